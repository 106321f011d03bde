//! Initial-condition map figures: the map as an image over its two start coordinates, a colour
//! bar with units, swatches for the classes that have no value (never flipped, energetically
//! forbidden, and hatched "not computed" for the tiles a shard file does not hold), and a title
//! with the model and run parameters.
//!
//! Colour maps are the perceptually uniform 256-stop matplotlib maps from `colorous` (viridis
//! for flip times on a log scale, magma for energy errors, cividis for Lyapunov exponents; the
//! crate has no cyclic uniform map such as twilight, and no map here shows an angle), so
//! equal steps in colour read as equal steps in value and the figure survives grey-scale print.
//! Angle axes spanning ±π get π-fraction tick labels.

use std::f64::consts::PI;
use std::path::Path;

use plotters::coord::Shift;
use plotters::element::BitMapElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

use super::{font, save, Area, Axis, DataError, DrawError, Drawn, PlotError, Render, Surface};
use crate::analysis::map::class::NOT_COMPUTED;

mod compose;
pub use compose::{compose_map, compose_panels, draw_map_data, ComposedMap, Show, ShowError};

/// Colour of pixels that never flipped (near white: the "nothing happened" region).
pub const NEVER_COLOR: RGBColor = RGBColor(0xf4, 0xf4, 0xf4);
/// Colour of energetically forbidden pixels (neutral mid grey, outside every colour map).
pub const FORBIDDEN_COLOR: RGBColor = RGBColor(0x9a, 0x9a, 0x9a);
/// Colour of pixels whose integration diverged.
pub const DIVERGED_COLOR: RGBColor = RGBColor(0xff, 0x00, 0xff);
/// Pixels a file does not hold (a shard's, an incomplete map's) are hatched: dark green
/// diagonal lines on pale mint, colours no data class or colour map uses (tested), so a hole
/// never reads as "no flip" (near white) or as a value. A swatch of this colour is drawn
/// hatched too.
pub const MISSING_COLOR: RGBColor = RGBColor(0xdc, 0xf5, 0xdc);
/// The lines of the hatch over [`MISSING_COLOR`].
pub const MISSING_HATCH: RGBColor = RGBColor(0x1b, 0x5e, 0x20);

/// The hatch at device pixel (u, v): lines 2 logical pixels wide every 7, at 45°, fixed to the
/// figure, not to the data pixels, so neighbouring missing tiles join into one hatched area.
fn hatch(u: i64, v: i64, scale: f64) -> RGBColor {
    let period = (7.0 * scale).round().max(3.0) as i64;
    let line = (2.0 * scale).round().max(1.0) as i64;
    if (u + v).rem_euclid(period) < line {
        MISSING_HATCH
    } else {
        MISSING_COLOR
    }
}

/// Which perceptually uniform colour map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourMap {
    Viridis,
    Magma,
    Cividis,
    /// Cyclic, for angles: stop 255 runs back into stop 0 (see [`cyclic_stop`]).
    Cyclic,
}

/// Names accepted by `--cmap`.
pub const COLOUR_MAPS: [&str; 4] = ["viridis", "magma", "cividis", "cyclic"];

impl ColourMap {
    pub fn parse(name: &str) -> Option<ColourMap> {
        Some(match name {
            "viridis" => ColourMap::Viridis,
            "magma" => ColourMap::Magma,
            "cividis" => ColourMap::Cividis,
            "cyclic" => ColourMap::Cyclic,
            _ => return None,
        })
    }

    /// The 256 stops.
    pub fn lut(self) -> Vec<RGBColor> {
        let g = match self {
            ColourMap::Viridis => colorous::VIRIDIS,
            ColourMap::Magma => colorous::MAGMA,
            ColourMap::Cividis => colorous::CIVIDIS,
            ColourMap::Cyclic => return (0..256).map(|i| cyclic_stop(i as f64 / 256.0)).collect(),
        };
        (0..256)
            .map(|i| {
                let c = g.eval_rational(i, 256);
                RGBColor(c.r, c.g, c.b)
            })
            .collect()
    }
}

/// The cyclic map at `f` ∈ [0, 1): a circle of radius 0.12 in the OKLab colour space
/// (Ottosson 2020), centred on the grey L = 0.72 and tilted 30° out of the a–b plane, so the hue
/// turns once and the lightness rises and falls once per cycle. OKLab distances approximate
/// perceived colour differences and a circle is traversed at constant speed, so equal angle
/// steps are equal colour steps (perceptually uniform, like matplotlib's twilight, which no
/// permissively licensed crate ships: colorous and colorgrad have only sinebow and rainbow).
/// Every stop lies inside the sRGB gamut (tested), so nothing is clipped.
pub fn cyclic_stop(f: f64) -> RGBColor {
    let (r, tilt) = (0.12, 30f64.to_radians());
    let phi = 2.0 * PI * f;
    let (l, a, b) = (
        0.72 + r * tilt.sin() * phi.sin(),
        r * phi.cos(),
        r * tilt.cos() * phi.sin(),
    );
    let [lr, lg, lb] = oklab_to_linear_srgb(l, a, b);
    let enc = |c: f64| {
        let c = c.clamp(0.0, 1.0);
        let s = if c <= 0.003_130_8 {
            12.92 * c
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    };
    RGBColor(enc(lr), enc(lg), enc(lb))
}

/// OKLab → linear sRGB (Ottosson's published matrices).
pub fn oklab_to_linear_srgb(l: f64, a: f64, b: f64) -> [f64; 3] {
    let l_ = l + 0.396_337_777_4 * a + 0.215_803_757_3 * b;
    let m_ = l - 0.105_561_345_8 * a - 0.063_854_172_8 * b;
    let s_ = l - 0.089_484_177_5 * a - 1.291_485_548_0 * b;
    let (l3, m3, s3) = (l_ * l_ * l_, m_ * m_ * m_, s_ * s_ * s_);
    [
        4.076_741_662_1 * l3 - 3.307_711_591_3 * m3 + 0.230_969_929_2 * s3,
        -1.268_438_004_6 * l3 + 2.609_757_401_1 * m3 - 0.341_319_396_5 * s3,
        -0.004_196_086_3 * l3 - 0.703_418_614_7 * m3 + 1.707_614_701_0 * s3,
    ]
}

/// One axis of the map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapAxis {
    pub lo: f64,
    pub hi: f64,
    pub label: String,
    /// An angle in rad: ticks at multiples of π/2 (or π/4 in a zoom) where they fit.
    pub angle: bool,
}

/// The colour scale of the value map.
#[derive(Debug, Clone, PartialEq)]
pub struct ColourScale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    pub label: String,
    pub map: ColourMap,
}

/// A map figure. Pixel p = i·width + j is row i (drawn from the bottom up: y increases
/// upwards) and column j.
pub struct MapFigure<'a> {
    pub title: String,
    pub subtitle: String,
    pub width: usize,
    pub height: usize,
    /// Pixel classes (`analysis::map::class`, 255 = not computed).
    pub class: &'a [u8],
    /// Value per pixel; NaN where the class says what the pixel is.
    pub values: &'a [f64],
    pub x: MapAxis,
    pub y: MapAxis,
    pub scale: ColourScale,
    /// Legend swatches for classes without a value: (label, colour).
    pub swatches: Vec<(String, RGBColor)>,
    /// A categorical figure: each pixel's colour (the swatches are the legend, no colour bar).
    pub rgb: Option<Vec<RGBColor>>,
}

/// Draws `fig` to `path` (`.png` or `.svg`), 1100 × 900 logical pixels.
pub fn draw_map(fig: &MapFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1100, 900))
}

/// Draws map figures side by side to `path`, each panel 1100 × 900 logical pixels.
pub fn draw_map_panels(panels: &[MapFigure], path: &Path) -> Result<(), PlotError> {
    save(
        &Panels(panels),
        path,
        (1100 * panels.len().max(1) as u32, 900),
    )
}

/// Map figures in a row, each in an equal share of the width.
struct Panels<'a, 'b>(&'a [MapFigure<'b>]);

impl Render for Panels<'_, '_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.0.is_empty() {
            return Err(DataError::Empty {
                what: "map panels".into(),
            });
        }
        self.0.iter().try_for_each(|f| f.validate())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let areas = root.split_evenly((1, self.0.len()));
        for (fig, area) in self.0.iter().zip(&areas) {
            fig.render(area, surface)?;
        }
        Ok(())
    }
}

/// Tick positions and labels for an axis: π fractions for angles, 1-2-5 numbers otherwise.
pub fn axis_ticks(a: &MapAxis) -> Vec<(f64, String)> {
    if a.angle {
        for (step, denom, min_gaps) in [(PI / 2.0, 2i64, 4), (PI / 4.0, 4, 2)] {
            let first = (a.lo / step - 1e-9).ceil() as i64;
            let last = (a.hi / step + 1e-9).floor() as i64;
            if last - first >= min_gaps {
                return (first..=last)
                    .map(|m| (m as f64 * step, pi_label(m, denom)))
                    .collect();
            }
        }
    }
    let axis = Axis::linear(a.lo, a.hi, 6);
    axis.ticks().iter().map(|&t| (t, axis.label(t))).collect()
}

/// `m·π/denom` as text: 0, π, −π/2, 3π/4, …
fn pi_label(m: i64, denom: i64) -> String {
    if m == 0 {
        return "0".into();
    }
    let g = gcd(m.abs(), denom);
    let (num, den) = (m / g, denom / g);
    let sign = if num < 0 { "\u{2212}" } else { "" };
    let n = num.abs();
    let head = if n == 1 {
        "π".to_string()
    } else {
        format!("{n}π")
    };
    if den == 1 {
        format!("{sign}{head}")
    } else {
        format!("{sign}{head}/{den}")
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Colour-bar ticks: on a log scale spanning at most three decades, 1-2-5 steps with plain
/// numbers (0.1, 0.2, 0.5, 1, 2, 5, 10) read better than bare decades.
fn colour_bar_ticks(axis: &Axis, scale: &ColourScale) -> Vec<(f64, String)> {
    if scale.log && scale.hi / scale.lo <= 1e3 {
        let (d0, d1) = (
            scale.lo.log10().floor() as i32,
            scale.hi.log10().ceil() as i32,
        );
        let mut out = Vec::new();
        for d in d0..=d1 {
            for m in [1.0, 2.0, 5.0] {
                let v = m * 10f64.powi(d);
                if v >= scale.lo * (1.0 - 1e-9) && v <= scale.hi * (1.0 + 1e-9) {
                    let decimals = (-d).max(0) as usize;
                    out.push((v, format!("{v:.decimals$}")));
                }
            }
        }
        if out.len() >= 2 {
            return out;
        }
    }
    axis.ticks().iter().map(|&t| (t, axis.label(t))).collect()
}

/// Vertical distance between subtitle lines, logical pixels.
const SUBTITLE_LINE: f64 = 19.0;

impl MapFigure<'_> {
    /// The subtitle's lines as drawn in a figure `w` logical pixels wide: wrapped at the
    /// words (an energy shell's model, shell and integrator make a long one) and shrunk only
    /// past four lines, so that none runs off the figure or into its neighbour; with the step
    /// between lines.
    fn subtitle_lines(&self, w: f64) -> (Vec<String>, f64, f64) {
        let fit = super::fit_text(&self.subtitle, w - 30.0, 15.0, false, 1.0, 4);
        let step = SUBTITLE_LINE * fit.size / 15.0;
        (fit.lines, fit.size, step)
    }

    /// Where the map raster lies in a figure of logical size (w, h): [left, top, width,
    /// height] in logical pixels. The map keeps the data's aspect ratio inside the space left
    /// by the title lines, the labels and the colour bar.
    pub fn raster_rect(&self, (w, h): (f64, f64)) -> [f64; 4] {
        let (lines, _, step) = self.subtitle_lines(w);
        let extra = step * lines.len().saturating_sub(1) as f64;
        let (left, top, right_space, bottom) = (112.0, 82.0 + extra, 250.0, 78.0);
        let avail_w = w - left - right_space;
        let avail_h = h - top - bottom;
        let aspect = ((self.y.hi - self.y.lo) / self.height as f64 * self.width as f64)
            / (self.x.hi - self.x.lo);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            // Equal data units on both axes only when the axes share units and the ratio is
            // moderate; otherwise a square panel.
            if self.x.angle == self.y.angle && (0.25..=4.0).contains(&aspect) {
                (self.y.hi - self.y.lo) / (self.x.hi - self.x.lo)
            } else {
                1.0
            }
        } else {
            1.0
        };
        let (mut pw, mut ph) = (avail_w, avail_w * aspect);
        if ph > avail_h {
            ph = avail_h;
            pw = avail_h / aspect;
        }
        [left, top + (avail_h - ph) / 2.0, pw, ph]
    }

    fn colour_of(&self, p: usize, lut: &[RGBColor], scale_axis: &Axis) -> RGBColor {
        if let Some(rgb) = &self.rgb {
            return rgb[p];
        }
        // (Missing pixels, class 255, are hatched by the caller.)
        match self.class[p] {
            2 => FORBIDDEN_COLOR,
            3 => DIVERGED_COLOR,
            _ => {
                let v = self.values[p];
                if !v.is_finite() {
                    return NEVER_COLOR;
                }
                let v = if self.scale.log {
                    v.max(self.scale.lo)
                } else {
                    v
                };
                let f = scale_axis.fraction(v).clamp(0.0, 1.0);
                lut[((f * 255.0).round() as usize).min(255)]
            }
        }
    }
}

impl Render for MapFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        let n = self.width * self.height;
        if n == 0 {
            return Err(DataError::Empty { what: "map".into() });
        }
        let rgb = self.rgb.as_ref().map_or(n, |c| c.len());
        for (what, len) in [
            ("class", self.class.len()),
            ("values", self.values.len()),
            ("rgb", rgb),
        ] {
            if len != n {
                return Err(DataError::LengthMismatch {
                    what: what.into(),
                    expected: n,
                    found: len,
                });
            }
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let sc = surface.scale;
        let px = |v: f64| surface.px(v);
        let (dw, dh) = root.dim_in_pixel();
        let (w, h) = (f64::from(dw) / sc, f64::from(dh) / sc);
        root.fill(&WHITE)?;

        root.draw(&Text::new(
            self.title.clone(),
            (px(w / 2.0), px(26.0)),
            font(22.0, sc, true).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        let (lines, size, step) = self.subtitle_lines(w);
        for (k, line) in lines.into_iter().enumerate() {
            root.draw(&Text::new(
                line,
                (px(w / 2.0), px(54.0 + step * k as f64)),
                font(size, sc, false).pos(Pos::new(HPos::Center, VPos::Center)),
            ))?;
        }

        let [left, top, pw, ph] = self.raster_rect((w, h));
        let (x0, y0) = (px(left), px(top));
        let (pwd, phd) = (px(pw).max(1) as u32, px(ph).max(1) as u32);

        let lut = self.scale.map.lut();
        let scale_axis = if self.scale.log {
            Axis::log(self.scale.lo, self.scale.hi)
        } else {
            Axis::linear(self.scale.lo, self.scale.hi, 6)
        };
        let frame = self.raster(root, surface, (x0, y0, pwd, phd), &lut, &scale_axis)?;
        self.axes(root, surface, frame)?;
        self.colour_bar(root, surface, frame, &lut, &scale_axis)
    }
}

/// The device rectangle of the raster: corners (x0, y0), (x1, y1) and its size (pwd, phd).
#[derive(Clone, Copy)]
struct Frame {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
    pwd: u32,
    phd: u32,
}

impl Frame {
    /// The frame of a raster of pwd × phd device pixels from (x0, y0).
    fn at(x0: i32, y0: i32, pwd: u32, phd: u32) -> Frame {
        Frame {
            x0,
            y0,
            x1: x0 + pwd as i32,
            y1: y0 + phd as i32,
            pwd,
            phd,
        }
    }
}

const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);

impl MapFigure<'_> {
    /// The raster, nearest map pixel per device pixel (row 0 at the bottom), and its frame.
    fn raster<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        surface: Surface,
        (x0, y0, pwd, phd): (i32, i32, u32, u32),
        lut: &[RGBColor],
        scale_axis: &Axis,
    ) -> Result<Frame, DrawError> {
        let sc = surface.scale;
        let thin = surface.stroke(1.0);
        let mut buf = vec![0u8; 3 * pwd as usize * phd as usize];
        for v in 0..phd as usize {
            let i = self.height - 1 - (v * self.height / phd as usize).min(self.height - 1);
            for u in 0..pwd as usize {
                let j = (u * self.width / pwd as usize).min(self.width - 1);
                let p = i * self.width + j;
                let c = if self.class[p] == NOT_COMPUTED {
                    hatch((x0 as usize + u) as i64, (y0 as usize + v) as i64, sc)
                } else {
                    self.colour_of(p, lut, scale_axis)
                };
                let o = 3 * (v * pwd as usize + u);
                buf[o] = c.0;
                buf[o + 1] = c.1;
                buf[o + 2] = c.2;
            }
        }
        let img = BitMapElement::with_owned_buffer((x0, y0), (pwd, phd), buf)
            .ok_or_else(|| DrawError::Backend("map raster has the wrong size".into()))?;
        root.draw(&img)?;
        let (x1, y1) = (x0 + pwd as i32, y0 + phd as i32);
        root.draw(&Rectangle::new(
            [(x0, y0), (x1, y1)],
            INK.stroke_width(thin),
        ))?;

        Ok(Frame {
            x1,
            y1,
            ..Frame::at(x0, y0, pwd, phd)
        })
    }

    /// Ticks and labels of both axes.
    fn axes<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface, f: Frame) -> Drawn {
        let sc = surface.scale;
        let px = |v: f64| surface.px(v);
        let thin = surface.stroke(1.0);
        let Frame {
            x0,
            y0,
            x1,
            y1,
            pwd,
            phd,
        } = f;
        let tick_font = font(16.0, sc, false);
        let label_font = font(18.0, sc, false);
        let tick_len = px(6.0);
        for (t, label) in axis_ticks(&self.x) {
            let f = (t - self.x.lo) / (self.x.hi - self.x.lo);
            if !(-1e-9..=1.0 + 1e-9).contains(&f) {
                continue;
            }
            let xp = x0 + (f * f64::from(pwd)).round() as i32;
            root.draw(&PathElement::new(
                vec![(xp, y1), (xp, y1 + tick_len)],
                INK.stroke_width(thin),
            ))?;
            root.draw(&Text::new(
                label,
                (xp, y1 + tick_len + px(4.0)),
                tick_font.pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
        root.draw(&Text::new(
            self.x.label.clone(),
            ((x0 + x1) / 2, y1 + px(46.0)),
            label_font.pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        for (t, label) in axis_ticks(&self.y) {
            let f = (t - self.y.lo) / (self.y.hi - self.y.lo);
            if !(-1e-9..=1.0 + 1e-9).contains(&f) {
                continue;
            }
            let yp = y1 - (f * f64::from(phd)).round() as i32;
            root.draw(&PathElement::new(
                vec![(x0 - tick_len, yp), (x0, yp)],
                INK.stroke_width(thin),
            ))?;
            root.draw(&Text::new(
                label,
                (x0 - tick_len - px(5.0), yp),
                tick_font.pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        root.draw(&Text::new(
            self.y.label.clone(),
            (x0 - px(66.0), (y0 + y1) / 2),
            label_font
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;

        Ok(())
    }

    /// The colour bar, the upper part of the map's height, with swatches under it (a
    /// categorical figure has only the swatches).
    fn colour_bar<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        surface: Surface,
        f: Frame,
        lut: &[RGBColor],
        scale_axis: &Axis,
    ) -> Drawn {
        let sc = surface.scale;
        let px = |v: f64| surface.px(v);
        let thin = surface.stroke(1.0);
        let ink = INK;
        let tick_font = font(16.0, sc, false);
        let label_font = font(18.0, sc, false);
        let tick_len = px(6.0);
        let Frame { x1, y0, phd, .. } = f;
        let cb_x0 = x1 + px(36.0);
        let sw = px(22.0);
        if self.rgb.is_some() {
            let mut sy = y0;
            for (label, colour) in &self.swatches {
                swatch(root, (cb_x0, sy), sw, label, *colour, ink, thin, sc)?;
                sy += sw + px(10.0);
            }
            return Ok(());
        }
        let cb_w = px(26.0).max(1);
        let cb_h = ((f64::from(phd)) * 0.72) as i32;
        let cb_y0 = y0;
        let cb_y1 = cb_y0 + cb_h;
        let mut bar = vec![0u8; 3 * cb_w as usize * cb_h.max(1) as usize];
        for v in 0..cb_h.max(1) as usize {
            let f = 1.0 - (v as f64 + 0.5) / f64::from(cb_h.max(1));
            let c = lut[((f * 255.0).round() as usize).min(255)];
            for u in 0..cb_w as usize {
                let o = 3 * (v * cb_w as usize + u);
                bar[o] = c.0;
                bar[o + 1] = c.1;
                bar[o + 2] = c.2;
            }
        }
        let bar_img = BitMapElement::with_owned_buffer(
            (cb_x0, cb_y0),
            (cb_w as u32, cb_h.max(1) as u32),
            bar,
        )
        .ok_or_else(|| DrawError::Backend("colour bar raster has the wrong size".into()))?;
        root.draw(&bar_img)?;
        root.draw(&Rectangle::new(
            [(cb_x0, cb_y0), (cb_x0 + cb_w, cb_y1)],
            ink.stroke_width(thin),
        ))?;
        let mut widest = 0;
        let bar_ticks = colour_bar_ticks(scale_axis, &self.scale);
        for (t, label) in bar_ticks {
            let f = scale_axis.fraction(t);
            if !(-1e-9..=1.0 + 1e-9).contains(&f) {
                continue;
            }
            let yp = cb_y1 - (f * f64::from(cb_h)).round() as i32;
            root.draw(&PathElement::new(
                vec![(cb_x0 + cb_w, yp), (cb_x0 + cb_w + tick_len, yp)],
                ink.stroke_width(thin),
            ))?;
            widest = widest.max(root.estimate_text_size(&label, &tick_font)?.0 as i32);
            root.draw(&Text::new(
                label,
                (cb_x0 + cb_w + tick_len + px(5.0), yp),
                tick_font.pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        root.draw(&Text::new(
            self.scale.label.clone(),
            (
                cb_x0 + cb_w + tick_len + px(5.0) + widest + px(22.0),
                (cb_y0 + cb_y1) / 2,
            ),
            label_font
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        let mut sy = cb_y1 + px(28.0);
        for (label, colour) in &self.swatches {
            swatch(root, (cb_x0, sy), sw, label, *colour, ink, thin, sc)?;
            sy += sw + px(10.0);
        }
        Ok(())
    }
}

/// One legend entry: a framed colour square and its label.
#[allow(clippy::too_many_arguments)]
fn swatch<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    sw: i32,
    label: &str,
    colour: RGBColor,
    ink: RGBColor,
    thin: u32,
    sc: f64,
) -> Result<(), DrawError> {
    if colour == MISSING_COLOR {
        let mut buf = Vec::with_capacity(3 * (sw * sw) as usize);
        for v in 0..sw {
            for u in 0..sw {
                let c = hatch(i64::from(x + u), i64::from(y + v), sc);
                buf.extend_from_slice(&[c.0, c.1, c.2]);
            }
        }
        let img = BitMapElement::with_owned_buffer((x, y), (sw as u32, sw as u32), buf)
            .ok_or_else(|| DrawError::Backend("swatch raster has the wrong size".into()))?;
        root.draw(&img)?;
    } else {
        root.draw(&Rectangle::new([(x, y), (x + sw, y + sw)], colour.filled()))?;
    }
    root.draw(&Rectangle::new(
        [(x, y), (x + sw, y + sw)],
        ink.stroke_width(thin),
    ))?;
    root.draw(&Text::new(
        label.to_string(),
        (x + sw + (8.0 * sc) as i32, y + sw / 2),
        font(15.0, sc, false).pos(Pos::new(HPos::Left, VPos::Center)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linear sRGB → OKLab (the inverse matrices), for checking the cyclic map.
    fn oklab(c: RGBColor) -> [f64; 3] {
        let dec = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.040_45 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (dec(c.0), dec(c.1), dec(c.2));
        let l = (0.412_221_470_8 * r + 0.536_332_536_3 * g + 0.051_445_992_9 * b).cbrt();
        let m = (0.211_903_498_2 * r + 0.680_699_545_1 * g + 0.107_396_956_6 * b).cbrt();
        let s = (0.088_302_461_9 * r + 0.281_718_837_6 * g + 0.629_978_700_5 * b).cbrt();
        [
            0.210_454_255_3 * l + 0.793_617_785_0 * m - 0.004_072_046_8 * s,
            1.977_998_495_1 * l - 2.428_592_205_0 * m + 0.450_593_709_9 * s,
            0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766_0 * s,
        ]
    }

    #[test]
    fn cyclic_map_is_in_gamut_uniform_and_closes() {
        let lut = ColourMap::Cyclic.lut();
        // In gamut: no channel of the unclamped linear sRGB leaves [0, 1].
        for i in 0..256 {
            let phi = 2.0 * PI * i as f64 / 256.0;
            let t = 30f64.to_radians();
            let c = oklab_to_linear_srgb(
                0.72 + 0.12 * t.sin() * phi.sin(),
                0.12 * phi.cos(),
                0.12 * t.cos() * phi.sin(),
            );
            assert!(c.iter().all(|v| (0.0..=1.0).contains(v)), "stop {i}: {c:?}");
        }
        // Equal steps: ΔE_OK between stops 16 apart (wrapping 255 → 0) is the chord
        // 2·0.12·sin(π/16) ≈ 0.0468 everywhere, up to the 8-bit rounding of the stops.
        let want = 2.0 * 0.12 * (PI / 16.0).sin();
        for i in 0..256 {
            let (a, b) = (oklab(lut[i]), oklab(lut[(i + 16) % 256]));
            let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
            assert!((d - want).abs() < 0.08 * want, "stop {i}: ΔE {d} vs {want}");
        }
        // Round trip: the 8-bit stops sit on the designed circle to 8-bit precision.
        let l: Vec<f64> = lut.iter().map(|&c| oklab(c)[0]).collect();
        let (lo, hi) = l
            .iter()
            .fold((1.0f64, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
        assert!((hi - lo - 0.12).abs() < 0.01, "lightness range {lo}..{hi}");
    }

    #[test]
    fn pi_ticks() {
        let a = MapAxis {
            lo: -PI,
            hi: PI,
            label: String::new(),
            angle: true,
        };
        let labels: Vec<String> = axis_ticks(&a).into_iter().map(|t| t.1).collect();
        assert_eq!(labels, ["−π", "−π/2", "0", "π/2", "π"]);
        let z = MapAxis {
            lo: 0.0,
            hi: PI,
            label: String::new(),
            angle: true,
        };
        let labels: Vec<String> = axis_ticks(&z).into_iter().map(|t| t.1).collect();
        assert_eq!(labels, ["0", "π/4", "π/2", "3π/4", "π"]);
    }
}
