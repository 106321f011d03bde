//! Initial-condition map figures: the map as an image over its two start coordinates, a colour
//! bar with units, swatches for the classes that have no value (never flipped, energetically
//! forbidden), and a title with the model and run parameters.
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

use super::{font, save, Axis, DataError, DrawError, PlotError, Render, Surface};

/// Colour of pixels that never flipped (near white: the "nothing happened" region).
pub const NEVER_COLOR: RGBColor = RGBColor(0xf4, 0xf4, 0xf4);
/// Colour of energetically forbidden pixels (neutral mid grey, outside every colour map).
pub const FORBIDDEN_COLOR: RGBColor = RGBColor(0x9a, 0x9a, 0x9a);
/// Colour of pixels whose integration diverged.
pub const DIVERGED_COLOR: RGBColor = RGBColor(0xff, 0x00, 0xff);
/// Colour of pixels a shard file does not hold.
pub const MISSING_COLOR: RGBColor = RGBColor(0xff, 0xff, 0xff);

/// Which perceptually uniform colour map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourMap {
    Viridis,
    Magma,
    Cividis,
}

impl ColourMap {
    fn gradient(self) -> colorous::Gradient {
        match self {
            ColourMap::Viridis => colorous::VIRIDIS,
            ColourMap::Magma => colorous::MAGMA,
            ColourMap::Cividis => colorous::CIVIDIS,
        }
    }

    /// The 256 stops.
    pub fn lut(self) -> Vec<RGBColor> {
        let g = self.gradient();
        (0..256)
            .map(|i| {
                let c = g.eval_rational(i, 256);
                RGBColor(c.r, c.g, c.b)
            })
            .collect()
    }
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
}

/// Draws `fig` to `path` (`.png` or `.svg`), 1100 × 900 logical pixels.
pub fn draw_map(fig: &MapFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1100, 900))
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

impl MapFigure<'_> {
    fn colour_of(&self, p: usize, lut: &[RGBColor], scale_axis: &Axis) -> RGBColor {
        match self.class[p] {
            2 => FORBIDDEN_COLOR,
            3 => DIVERGED_COLOR,
            255 => MISSING_COLOR,
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
        for (what, len) in [("class", self.class.len()), ("values", self.values.len())] {
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

    fn render<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        surface: Surface,
    ) -> Result<(), DrawError> {
        let sc = surface.scale;
        let px = |v: f64| surface.px(v);
        let (dw, dh) = root.dim_in_pixel();
        let (w, h) = (f64::from(dw) / sc, f64::from(dh) / sc);
        root.fill(&WHITE)?;
        let ink = RGBColor(0x22, 0x22, 0x22);
        let thin = surface.stroke(1.0);

        root.draw(&Text::new(
            self.title.clone(),
            (px(w / 2.0), px(26.0)),
            font(22.0, sc, true).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        root.draw(&Text::new(
            self.subtitle.clone(),
            (px(w / 2.0), px(54.0)),
            font(15.0, sc, false).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;

        // The map keeps the data's aspect ratio inside the space left by labels and colour bar.
        let (left, top, right_space, bottom) = (112.0, 82.0, 250.0, 78.0);
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
        let (x0, y0) = (px(left), px(top + (avail_h - ph) / 2.0));
        let (pwd, phd) = (px(pw).max(1) as u32, px(ph).max(1) as u32);

        // The raster, nearest pixel per device pixel (row 0 at the bottom).
        let lut = self.scale.map.lut();
        let scale_axis = if self.scale.log {
            Axis::log(self.scale.lo, self.scale.hi)
        } else {
            Axis::linear(self.scale.lo, self.scale.hi, 6)
        };
        let mut buf = vec![0u8; 3 * pwd as usize * phd as usize];
        for v in 0..phd as usize {
            let i = self.height - 1 - (v * self.height / phd as usize).min(self.height - 1);
            for u in 0..pwd as usize {
                let j = (u * self.width / pwd as usize).min(self.width - 1);
                let c = self.colour_of(i * self.width + j, &lut, &scale_axis);
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
            ink.stroke_width(thin),
        ))?;

        // Axes.
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
                ink.stroke_width(thin),
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
                ink.stroke_width(thin),
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

        // Colour bar: the upper part of the map's height; swatches under it.
        let cb_x0 = x1 + px(36.0);
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
        let bar_ticks = colour_bar_ticks(&scale_axis, &self.scale);
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
        let sw = px(22.0);
        let mut sy = cb_y1 + px(28.0);
        for (label, colour) in &self.swatches {
            root.draw(&Rectangle::new(
                [(cb_x0, sy), (cb_x0 + sw, sy + sw)],
                colour.filled(),
            ))?;
            root.draw(&Rectangle::new(
                [(cb_x0, sy), (cb_x0 + sw, sy + sw)],
                ink.stroke_width(thin),
            ))?;
            root.draw(&Text::new(
                label.clone(),
                (cb_x0 + sw + px(8.0), sy + sw / 2),
                font(15.0, sc, false).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
            sy += sw + px(10.0);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
