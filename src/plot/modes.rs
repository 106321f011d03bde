//! The `modes` figure: the hanging chain's lowest mode shapes as small multiples (one panel and
//! one colour per mode) above ω_k against k with the closed-form prediction.
//!
//! A shape is drawn as the lateral displacement of each joint, x_j = Σ_{i≤j} l_i v_i, scaled so
//! that every mode reaches the same fraction of its panel: drawn as angles of a fixed size, the
//! higher modes of a long chain alternate so fast that their displacements cancel and the
//! chain looks straight.

use std::path::Path;

use plotters::prelude::*;

use super::{
    begin_figure, draw_centred, font, format_value, frame_pixels, save, series_color,
    stamp_polyline, Area, Axis, DataError, DrawError, Drawn, Header, Legend, LegendEntry, Marker,
    PlotError, Render, Surface,
};
use crate::analysis::modes::{EquilibriumModes, FormulaCheck};

/// Most mode-shape panels drawn (the lowest modes); ω is plotted for all.
pub const MAX_SHAPE_PANELS: usize = 8;

/// One colour per shape panel: tab10 without its orange (the formula's crosses) and grey (the
/// chain at rest), so each shape, and its point in the ω_k plot, is told apart at a glance.
pub const MODE_COLOURS: [RGBColor; MAX_SHAPE_PANELS] = {
    use super::PALETTE as P;
    [P[0], P[2], P[3], P[4], P[5], P[6], P[8], P[9]]
};

/// The colour of mode `k` (0-based) in the shape panels and the ω_k plot.
pub fn mode_colour(k: usize) -> RGBColor {
    MODE_COLOURS[k % MODE_COLOURS.len()]
}

/// Colour of the formula's crosses.
const FORMULA: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
/// The chain at rest.
const REST: RGBColor = RGBColor(0xbb, 0xbb, 0xbb);

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

/// Layout of `shown` shape panels: (columns, rows). One row: a hanging chain is tall and
/// narrow, so side by side the panels stay as tall as the band allows.
pub fn shape_grid(shown: usize) -> (usize, usize) {
    (shown.max(1), 1)
}

impl ModesFigure<'_> {
    fn omegas(&self) -> Vec<f64> {
        self.modes.frequencies()
    }

    /// Lateral displacement of each joint (pivot first, 0) in mode `k`, scaled to a largest
    /// magnitude of 1 (the linearized x_j = Σ_{i≤j} l_i v_i).
    pub fn displacement(&self, k: usize) -> Vec<f64> {
        let v = self.modes.shapes.column(k);
        let mut x = vec![0.0];
        let mut acc = 0.0;
        for (j, l) in self.lengths.iter().enumerate() {
            acc += l * v[j];
            x.push(acc);
        }
        let m = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if m > 0.0 {
            x.iter_mut().for_each(|v| *v /= m);
        }
        x
    }

    fn caption(&self, k: usize, omegas: &[f64]) -> String {
        match omegas[k] {
            w if w.is_finite() => format!("mode {}\nω = {} rad/s", k + 1, format_value(w, 4)),
            _ => format!(
                "mode {}\ngrowth {} s⁻¹",
                k + 1,
                format_value(self.modes.growth_rates()[k], 4)
            ),
        }
    }
}

impl Render for ModesFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.lengths.is_empty() || self.modes.omega2.is_empty() {
            return Err(DataError::Empty {
                what: "modes".into(),
            });
        }
        if self.modes.shapes.ncols() < self.modes.omega2.len()
            || self.modes.shapes.nrows() < self.lengths.len()
        {
            return Err(DataError::LengthMismatch {
                what: "mode shapes".into(),
                expected: self.lengths.len(),
                found: self.modes.shapes.nrows(),
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
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let subtitle = "normal modes of the hanging chain; shapes: lateral displacement of the \
                        joints, each mode scaled to the same amplitude";
        let sub_h = draw_centred(
            root,
            surface,
            subtitle,
            (w / 2.0, 54.0 + extra),
            w - 40.0,
            14.0,
            false,
        )?;
        let nm = self.modes.omega2.len();
        let shown = nm.min(MAX_SHAPE_PANELS);
        let top = 54.0 + extra + sub_h.max(14.0);
        let shapes_h = (h * 0.56 - top).max(160.0);
        let omegas = self.omegas();
        self.shape_panels(root, surface, (w, top, shapes_h), shown, &omegas)?;
        self.frequency_plot(root, surface, (w, h, top, shapes_h), shown, &omegas)
    }
}

impl ModesFigure<'_> {
    /// The top band: one panel per shown mode in a grid of `(w, top, height)`.
    fn shape_panels<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        surface: Surface,
        (w, top, shapes_h): (f64, f64, f64),
        shown: usize,
        omegas: &[f64],
    ) -> Drawn {
        let (cols, rows) = shape_grid(shown);
        let total: f64 = self.lengths.iter().sum();
        let cell_w = (w - 40.0) / cols as f64;
        let cell_h = shapes_h / rows as f64;
        for k in 0..shown {
            let (r, c) = (k / cols, k % cols);
            let (x0, y0) = (20.0 + c as f64 * cell_w, top + r as f64 * cell_h);
            self.shape_panel(root, surface, k, (x0, y0, cell_w, cell_h), total, omegas)?;
        }
        Ok(())
    }

    /// One mode's panel: its caption, then the chain at rest (grey), the opposite phase
    /// (faint) and the mode's shape (its colour, joints dotted) hanging from a pivot block.
    fn shape_panel<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        surface: Surface,
        k: usize,
        (x0, y0, cell_w, cell_h): (f64, f64, f64, f64),
        total: f64,
        omegas: &[f64],
    ) -> Drawn {
        let px = |v: f64| surface.px(v);
        let n = self.lengths.len();
        let colour = mode_colour(k);
        // Caption (wrapped to the cell), then the chain below it.
        let cap_h = draw_centred(
            root,
            surface,
            &self.caption(k, omegas),
            (x0 + cell_w / 2.0, y0 + 10.0),
            cell_w - 8.0,
            15.0,
            false,
        )?;
        let chain_top = y0 + cap_h + 14.0;
        let chain_h = (y0 + cell_h - 10.0 - chain_top).max(20.0);
        let cx = x0 + cell_w / 2.0;
        let amp = (0.36 * cell_w).min(0.22 * chain_h);
        let mut depth = vec![0.0];
        for l in self.lengths {
            depth.push(depth.last().unwrap() + l / total * chain_h);
        }
        let disp = self.displacement(k);
        let at = |a: f64| -> Vec<(i32, i32)> {
            disp.iter()
                .zip(&depth)
                .map(|(d, y)| (px(cx + a * amp * d), px(chain_top + y)))
                .collect()
        };
        stamp_polyline(root, at(0.0), REST, surface.stroke(1.5))?;
        let faint = RGBColor(
            ((u16::from(colour.0) + 3 * 255) / 4) as u8,
            ((u16::from(colour.1) + 3 * 255) / 4) as u8,
            ((u16::from(colour.2) + 3 * 255) / 4) as u8,
        );
        stamp_polyline(root, at(-1.0), faint, surface.stroke(1.5))?;
        let bent = at(1.0);
        stamp_polyline(root, bent.clone(), colour, surface.stroke(2.5))?;
        let dot = px(if n > 30 { 1.5 } else { 3.5 });
        for p in bent.iter().skip(1) {
            root.draw(&Circle::new(*p, dot, colour.filled()))?;
        }
        root.draw(&Rectangle::new(
            [
                (px(cx - 14.0), px(chain_top - 6.0)),
                (px(cx + 14.0), px(chain_top)),
            ],
            RGBColor(0x44, 0x44, 0x44).filled(),
        ))?;
        Ok(())
    }

    /// The bottom band: ω_k against k (axes fitted to the computed and the formula's values),
    /// then its markers and legend.
    fn frequency_plot<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        surface: Surface,
        (w, h, top, shapes_h): (f64, f64, f64, f64),
        shown: usize,
        omegas: &[f64],
    ) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let nm = self.modes.omega2.len();
        let area = root.clone().shrink(
            (px(10.0), px(top + shapes_h + 6.0)),
            (px(w - 30.0) as u32, px(h - top - shapes_h - 14.0) as u32),
        );
        let mut ys: Vec<f64> = omegas.iter().copied().filter(|w| w.is_finite()).collect();
        if let Some(c) = self.check {
            ys.extend(c.expected.iter().copied().filter(|e| e.is_finite()));
        }
        let y_axis = Axis::fit(ys, false, 0.08, 6, "frequency")?;
        let x_axis = Axis::linear(0.5, nm as f64 + 0.5, 10.min(nm + 1));
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
        let thin = surface.stroke(1.0);
        chart
            .configure_mesh()
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd).stroke_width(thin))
            .light_line_style(RGBColor(0xee, 0xee, 0xee).stroke_width(thin))
            .axis_style(RGBColor(0x44, 0x44, 0x44).stroke_width(thin))
            .label_style(font(15.0, scale, false))
            .axis_desc_style(font(17.0, scale, false))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(crate::plot::labels::x_desc("mode number k"))
            .y_desc(crate::plot::labels::y_desc("frequency ω_k / (rad/s)"))
            .draw()?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let to_frame = frame_pixels(plot);
        let occupied = self.frequency_markers(&frame, surface, to_frame, shown, omegas)?;
        self.frequency_legend(&frame, scale, shown, &occupied)
    }

    /// The computed ω_k (open circles, filled in its colour for modes with a panel) and the
    /// formula's crosses on top; returns the pixels the markers cover, for the legend.
    fn frequency_markers<DB: DrawingBackend>(
        &self,
        frame: &Area<DB>,
        surface: Surface,
        to_frame: impl Fn(&(f64, f64)) -> (i32, i32),
        shown: usize,
        omegas: &[f64],
    ) -> Result<Vec<(i32, i32)>, DrawError> {
        let px = |v: f64| surface.px(v);
        let nm = self.modes.omega2.len();
        let r = px(if nm > 50 { 2.0 } else { 5.0 });
        // A marker's centre and the ends of its extent: what the legend must not hide.
        let around = |p: (i32, i32), r: i32| {
            [
                p,
                (p.0 - r, p.1),
                (p.0 + r, p.1),
                (p.0, p.1 - r),
                (p.0, p.1 + r),
            ]
        };
        let stroke = surface.stroke(2.0);
        let mut occupied = Vec::new();
        for (k, w) in omegas.iter().enumerate() {
            if w.is_finite() {
                let p = to_frame(&((k + 1) as f64, *w));
                if k < shown {
                    Marker::Dot.draw(frame, p, r, mode_colour(k), stroke)?;
                }
                Marker::Circle.draw(frame, p, r, series_color(0), stroke)?;
                occupied.extend(around(p, r));
            }
        }
        // The formula on top, so it stays visible over the filled points.
        if let Some(c) = self.check {
            for (k, e) in c.expected.iter().enumerate() {
                if e.is_finite() {
                    let p = to_frame(&((k + 1) as f64, *e));
                    Marker::Cross.draw(frame, p, r + 2, FORMULA, stroke)?;
                    occupied.extend(around(p, r + 2));
                }
            }
        }
        Ok(occupied)
    }

    /// A framed legend in the corner that hides the fewest points.
    fn frequency_legend<DB: DrawingBackend>(
        &self,
        frame: &Area<DB>,
        scale: f64,
        shown: usize,
        occupied: &[(i32, i32)],
    ) -> Drawn {
        let mut entries = vec![LegendEntry {
            label: if shown > 0 {
                "computed (K v = ω² M v); filled: the shapes above, in their colours".into()
            } else {
                "computed (K v = ω² M v)".into()
            },
            color: series_color(0),
            band: false,
            marker: Some(Marker::Circle),
        }];
        if let Some(c) = self.check {
            entries.push(LegendEntry {
                label: c.formula.clone(),
                color: FORMULA,
                band: false,
                marker: Some(Marker::Cross),
            });
        }
        let legend = Legend::new(frame, entries, scale, 15.0)?;
        let (corner, _) = legend.place(frame.dim_in_pixel(), occupied);
        legend.draw(frame, corner)?;
        Ok(())
    }
}
