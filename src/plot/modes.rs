//! The `modes` figure: the hanging chain's mode shapes (one small panel per mode, the chain
//! drawn displaced along the mode over its equilibrium) above ω_k against k with the
//! closed-form prediction.

use std::path::Path;

use plotters::prelude::*;

use super::{
    begin_figure, draw_polyline, font, save, series_color, Area, Axis, DataError, Drawn, PlotError,
    Render, Surface,
};
use crate::analysis::modes::{EquilibriumModes, FormulaCheck};

/// Most mode-shape panels drawn (the lowest modes); ω is plotted for all.
pub const MAX_SHAPE_PANELS: usize = 8;

/// What the figure needs: link lengths, the modes, and optionally a formula to compare with.
pub struct ModesFigure<'a> {
    pub title: String,
    pub lengths: &'a [f64],
    pub modes: &'a EquilibriumModes,
    pub check: Option<&'a FormulaCheck>,
}

/// Draws the hanging equilibrium's modes to `path` (`.png` or `.svg`).
pub fn draw_modes(fig: &ModesFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1200, 900))
}

impl ModesFigure<'_> {
    fn omegas(&self) -> Vec<f64> {
        self.modes.frequencies()
    }
}

impl Render for ModesFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.lengths.is_empty() || self.modes.omega2.is_empty() {
            return Err(DataError::Empty {
                what: "modes".into(),
            });
        }
        if !self.omegas().iter().any(|w| w.is_finite()) {
            return Err(DataError::NoFiniteValues {
                what: "mode frequencies (every mode is unstable)".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let (w, h) = begin_figure(root, surface, &self.title, 28.0)?;
        let n = self.lengths.len();
        let shown = n.min(MAX_SHAPE_PANELS);
        let cols = shown.min(4);
        let rows = shown.div_ceil(cols);
        let top = 56.0;
        let shapes_h = (h * 0.58 - top).max(120.0);
        let thin = surface.stroke(1.0);
        let total: f64 = self.lengths.iter().sum();
        let omegas = self.omegas();

        // Mode shapes: θ_j = A v_j / max|v| with A = 0.5 rad, drawn over the hanging chain.
        let cell_w = (w - 40.0) / cols as f64;
        let cell_h = shapes_h / rows as f64;
        for k in 0..shown {
            let (r, c) = (k / cols, k % cols);
            let x0 = 20.0 + c as f64 * cell_w;
            let y0 = top + r as f64 * cell_h;
            let area = root.clone().shrink(
                (px(x0), px(y0)),
                (px(cell_w - 10.0) as u32, px(cell_h - 8.0) as u32),
            );
            let (aw, ah) = area.dim_in_pixel();
            // Equal aspect: fit a box of height 1.1 L and matching width.
            let span_y = 1.15 * total;
            let span_x = span_y * f64::from(aw) / f64::from(ah).max(1.0);
            let caption = match omegas[k] {
                w if w.is_finite() => format!("mode {}: ω = {:.4} rad/s", k + 1, w),
                _ => format!(
                    "mode {}: growth {:.4} 1/s",
                    k + 1,
                    self.modes.growth_rates()[k]
                ),
            };
            let mut chart = ChartBuilder::on(&area)
                .caption(caption, font(15.0, scale, false))
                .build_cartesian_2d(-span_x / 2.0..span_x / 2.0, -1.08 * total..0.07 * total)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .disable_axes()
                .draw()?;
            let v = self.modes.shapes.column(k);
            let amax = v.amax().max(f64::MIN_POSITIVE);
            let chain = |amp: f64| {
                let mut p = vec![(0.0, 0.0)];
                let (mut x, mut y) = (0.0, 0.0);
                for j in 0..n {
                    let th = amp * v[j] / amax;
                    x += self.lengths[j] * th.sin();
                    y -= self.lengths[j] * th.cos();
                    p.push((x, y));
                }
                p
            };
            let plot = chart.plotting_area();
            let rest = chain(0.0);
            draw_polyline(plot, &rest, RGBColor(0xbb, 0xbb, 0xbb), 1.5, surface)?;
            let bent = chain(0.5);
            draw_polyline(plot, &bent, series_color(0), 2.5, surface)?;
            let dot = px(if n > 30 { 1.5 } else { 3.5 }) as u32;
            for p in bent.iter().skip(1) {
                plot.draw(&Circle::new(*p, dot, series_color(0).filled()))?;
            }
            plot.draw(&Rectangle::new(
                [(-0.04 * total, 0.0), (0.04 * total, 0.03 * total)],
                RGBColor(0x44, 0x44, 0x44).filled(),
            ))?;
        }

        // ω_k against k.
        let area = root.clone().shrink(
            (px(10.0), px(top + shapes_h + 10.0)),
            (px(w - 30.0) as u32, px(h - top - shapes_h - 20.0) as u32),
        );
        let mut ys: Vec<f64> = omegas.iter().copied().filter(|w| w.is_finite()).collect();
        if let Some(c) = self.check {
            ys.extend(c.expected.iter().copied());
        }
        let y_axis = Axis::fit(ys, false, 0.08, 6, "frequency")?;
        let x_axis = Axis::linear(0.5, n as f64 + 0.5, 10.min(n + 1));
        let mut chart = ChartBuilder::on(&area)
            .margin(px(12.0))
            .x_label_area_size(px(52.0))
            .y_label_area_size(px(80.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| {
            if (v - v.round()).abs() < 1e-9 {
                format!("{}", v.round() as i64)
            } else {
                String::new()
            }
        };
        let y_fmt = |v: &f64| y_axis.label(*v);
        chart
            .configure_mesh()
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd).stroke_width(thin))
            .light_line_style(RGBColor(0xee, 0xee, 0xee).stroke_width(thin))
            .axis_style(RGBColor(0x44, 0x44, 0x44).stroke_width(thin))
            .label_style(font(15.0, scale, false))
            .axis_desc_style(font(17.0, scale, false))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc("mode number k")
            .y_desc("frequency ω_k / (rad/s)")
            .draw()?;
        let plot = chart.plotting_area();
        let r = px(if n > 50 { 2.0 } else { 5.0 }) as u32;
        if let Some(c) = self.check {
            for (k, e) in c.expected.iter().enumerate() {
                let p = ((k + 1) as f64, *e);
                plot.draw(&Cross::new(
                    p,
                    r + 2,
                    series_color(1).stroke_width(surface.stroke(2.0)),
                ))?;
            }
        }
        for (k, w) in omegas.iter().enumerate() {
            if w.is_finite() {
                plot.draw(&Circle::new(
                    ((k + 1) as f64, *w),
                    r,
                    series_color(0).stroke_width(surface.stroke(2.0)),
                ))?;
            }
        }
        // Legend, top left.
        let (lx, ly) = (px(16.0), px(14.0));
        let frame = plot.strip_coord_spec();
        frame.draw(&Circle::new(
            (lx, ly),
            r,
            series_color(0).stroke_width(surface.stroke(2.0)),
        ))?;
        frame.draw(&Text::new(
            "computed (K v = ω² M v)",
            (lx + px(14.0), ly - px(8.0)),
            font(15.0, scale, false),
        ))?;
        if let Some(c) = self.check {
            let y2 = ly + px(24.0);
            frame.draw(&Cross::new(
                (lx, y2),
                r + 2,
                series_color(1).stroke_width(surface.stroke(2.0)),
            ))?;
            frame.draw(&Text::new(
                c.formula.clone(),
                (lx + px(14.0), y2 - px(8.0)),
                font(15.0, scale, false),
            ))?;
        }
        Ok(())
    }
}
