//! The frequency map of a frequency-kind map file (Laskar 1993): each computed pixel as a dot
//! at its fundamental frequencies (ω₁, ω₂) of the first half of the run, coloured by its
//! diffusion index, over the resonance lines k₁ω₁ + k₂ω₂ = 0 of low order (rays through the
//! origin, ω₂/ω₁ = −k₁/k₂, labelled |k₁|:|k₂|). Tori fill a smooth sheet; a resonance shows as
//! a line where dots gather or a gap opens, and chaotic pixels scatter off the sheet in warm
//! colours. The diffusion map itself (index over the initial conditions) is the map's default
//! figure; this one is `pendula render FILE.h5 --show frequency_map`.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::map::ColourMap;
use super::{
    begin_subtitled_figure, font, house_mesh, save, Area, Axis, DataError, Drawn, Header,
    PlotError, Render, Surface,
};

/// Colour-scale limits of the diffusion index: −12 (a torus to round-off) to 0 (ω changes by
/// 1 rad/s between the halves); values outside are drawn at the ends.
pub const INDEX_RANGE: (f64, f64) = (-12.0, 0.0);

/// Pixels below this diffusion index set the axes' ranges (see the render).
pub const REGULAR_BELOW: f64 = -6.0;

/// The figure's content.
pub struct FrequencyMapFigure {
    pub title: String,
    pub subtitle: String,
    /// (ω₁, ω₂, diffusion index) per computed pixel with two finite fundamentals.
    pub points: Vec<(f64, f64, f64)>,
    /// Largest |k₁| + |k₂| of the resonance lines drawn.
    pub order: i32,
}

/// Draws `fig` to `path` (`.png` or `.svg`).
pub fn draw_frequency_map(fig: &FrequencyMapFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (980, 860))
}

/// The resonances k₁ω₁ + k₂ω₂ = 0 with 0 < |k₁| + |k₂| ≤ `order`, k₁ ≥ 1, k₂ ≤ −1, in lowest
/// terms, as the slopes ω₂/ω₁ = k₁/|k₂| with their labels `k₁:|k₂|` (ω₁:ω₂ = |k₂|:k₁).
pub fn resonances(order: i32) -> Vec<(f64, String)> {
    fn gcd(a: i32, b: i32) -> i32 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let mut out = Vec::new();
    for k1 in 1..order {
        for k2 in 1..=(order - k1) {
            if gcd(k1, k2) == 1 {
                out.push((f64::from(k1) / f64::from(k2), format!("{k2}:{k1}")));
            }
        }
    }
    out
}

fn colour(lut: &[RGBColor], index: f64) -> RGBColor {
    let (lo, hi) = INDEX_RANGE;
    let f = ((index - lo) / (hi - lo)).clamp(0.0, 1.0);
    lut[((f * 255.0).round() as usize).min(255)]
}

impl Render for FrequencyMapFigure {
    fn validate(&self) -> Result<(), DataError> {
        if self.points.is_empty() {
            return Err(DataError::Empty {
                what: "frequency map (no pixel with two finite fundamental frequencies)".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let px = |v: f64| surface.px(v);
        let scale = surface.scale;
        let thin = surface.stroke(1.0);
        let (Header { w, h, extra }, sub_h) =
            begin_subtitled_figure(root, surface, &self.title, &self.subtitle)?;
        let top = 50.0 + extra + sub_h.max(8.0);
        let bar_w = 110.0;
        let area = root.clone().shrink(
            (px(5.0), px(top)),
            (px(w - bar_w - 10.0) as u32, px(h - top - 8.0) as u32),
        );
        let (x_axis, y_axis) = self.axes()?;
        let mut chart = ChartBuilder::on(&area)
            .margin(px(10.0))
            .x_label_area_size(px(50.0))
            .y_label_area_size(px(70.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let y_fmt = |v: &f64| y_axis.label(*v);
        house_mesh(&mut chart, thin, scale, (14.0, 16.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(crate::plot::labels::x_desc("ω₁ (first half) / (rad/s)"))
            .y_desc(crate::plot::labels::y_desc("ω₂ (first half) / (rad/s)"))
            .draw()?;
        let bounds = (x_axis.bounds(), y_axis.bounds());
        self.resonance_rays(root, &chart, surface, bounds)?;
        // Regular pixels last, so the sheet of tori stays visible over the scattered sea.
        let lut = ColourMap::Viridis.lut();
        self.dots(chart.plotting_area(), surface, &lut, bounds)?;
        colour_bar(root, surface, &lut, (w - bar_w + 10.0, top, h))
    }
}

impl FrequencyMapFigure {
    /// The axes: they fit the regular pixels (index < REGULAR_BELOW) when there are enough of
    /// them, as a chaotic pixel's "fundamentals" can be any strong line, far off the sheet;
    /// and only from their 2nd to their 98th percentile, as a few pixels whose second
    /// "fundamental" is a harmonic (periodic orbits, one frequency) would stretch them.
    fn axes(&self) -> Result<(Axis, Axis), DataError> {
        let regular: Vec<&(f64, f64, f64)> =
            self.points.iter().filter(|p| p.2 < REGULAR_BELOW).collect();
        let fit: Vec<&(f64, f64, f64)> = if regular.len() >= 10 {
            regular
        } else {
            self.points.iter().collect()
        };
        let range = |v: Vec<f64>| {
            let mut v: Vec<f64> = v.into_iter().filter(|x| x.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
            if v.is_empty() {
                v
            } else {
                vec![at(0.02), at(0.98)]
            }
        };
        let xs = range(fit.iter().map(|p| p.0).collect());
        let ys = range(fit.iter().map(|p| p.1).collect());
        let x_axis = Axis::fit(xs, false, 0.15, 8, "ω₁")?;
        let y_axis = Axis::fit(ys, false, 0.15, 8, "ω₂")?;
        Ok((x_axis, y_axis))
    }

    /// The resonance rays ω₂ = s ω₁ clipped to the box, labelled where they leave it.
    fn resonance_rays<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        chart: &ChartContext<DB, Cartesian2d<Axis, Axis>>,
        surface: Surface,
        ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
    ) -> Drawn {
        let px = |v: f64| surface.px(v);
        let plot = chart.plotting_area();
        let line = RGBColor(0xb0, 0xb0, 0xb0).stroke_width(surface.stroke(1.0));
        for (s, label) in resonances(self.order) {
            let (mut a, mut b) = (x0.max(y0 / s), x1.min(y1 / s));
            if a.is_nan() || b.is_nan() || a >= b {
                continue;
            }
            a = a.max(x0);
            b = b.min(x1);
            plot.draw(&PathElement::new(vec![(a, s * a), (b, s * b)], line))?;
            let (sx, sy) = chart.backend_coord(&(b, s * b));
            root.draw(&Text::new(
                label,
                (sx - px(4.0), sy + px(2.0)),
                font(12.0, surface.scale, false).pos(Pos::new(HPos::Right, VPos::Top)),
            ))?;
        }
        Ok(())
    }

    /// Every pixel inside the box `((x0, x1), (y0, y1))` as a dot coloured by its diffusion
    /// index through `lut`, in order of decreasing index.
    fn dots<DB: DrawingBackend>(
        &self,
        plot: &DrawingArea<DB, Cartesian2d<Axis, Axis>>,
        surface: Surface,
        lut: &[RGBColor],
        ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
    ) -> Drawn {
        let mut order: Vec<usize> = (0..self.points.len()).collect();
        order.sort_by(|&i, &j| self.points[j].2.total_cmp(&self.points[i].2));
        let screen = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        let dot = (surface.scale * 1.6).round().max(1.0) as i32;
        for i in order {
            let (a, b, index) = self.points[i];
            if !(x0..=x1).contains(&a) || !(y0..=y1).contains(&b) {
                continue;
            }
            let c = colour(lut, index).filled();
            let (x, y) = plot.map_coordinate(&(a, b));
            let (x, y) = (x - ox, y - oy);
            if surface.raster {
                screen.draw(&Rectangle::new(
                    [
                        (x - dot / 2, y - dot / 2),
                        (x - dot / 2 + dot, y - dot / 2 + dot),
                    ],
                    c,
                ))?;
            } else {
                screen.draw(&Circle::new((x, y), 1, c))?;
            }
        }
        Ok(())
    }
}

/// The colour bar of the diffusion index through `lut`, its left edge at `bx`, from 30 logical
/// pixels below `top` down to 80 above the figure's foot `h`, labelled every 2 decades.
fn colour_bar<DB: DrawingBackend>(
    root: &Area<DB>,
    surface: Surface,
    lut: &[RGBColor],
    (bx, top, h): (f64, f64, f64),
) -> Drawn {
    let px = |v: f64| surface.px(v);
    let scale = surface.scale;
    let (lo, hi) = INDEX_RANGE;
    let (by0, by1) = (top + 30.0, h - 80.0);
    for k in 0..256 {
        let f0 = k as f64 / 256.0;
        let f1 = (k + 1) as f64 / 256.0;
        let ya = by1 - f1 * (by1 - by0);
        let yb = by1 - f0 * (by1 - by0);
        root.draw(&Rectangle::new(
            [(px(bx), px(ya)), (px(bx + 22.0), px(yb) + 1)],
            lut[k].filled(),
        ))?;
    }
    let mut v = lo;
    while v <= hi + 1e-9 {
        let y = by1 - (v - lo) / (hi - lo) * (by1 - by0);
        root.draw(&Text::new(
            format!("{v:.0}").replace('-', "\u{2212}"),
            (px(bx + 28.0), px(y)),
            font(13.0, scale, false).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        v += 2.0;
    }
    root.draw(&Text::new(
        "log₁₀|Δω|",
        (px(bx + 11.0), px(by0 - 12.0)),
        font(13.0, scale, false).pos(Pos::new(HPos::Center, VPos::Bottom)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resonances_in_lowest_terms() {
        let r = resonances(4);
        let labels: Vec<&str> = r.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(labels, ["1:1", "2:1", "3:1", "1:2", "1:3"]);
        assert_eq!(r[1].0, 0.5);
        assert_eq!(r[3].0, 2.0);
    }
}
