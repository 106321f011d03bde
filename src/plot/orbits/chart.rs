//! The stability chart of `pendula orbits curve`: bifurcation curves over two parameters, each
//! coloured by its kind, the located bifurcations they start from and their codimension-2
//! points marked, the cells of a coarse grid shaded by the continued orbit's stability where it
//! is known (light green stable, light red unstable, blank unknown).

use std::path::Path;

use plotters::prelude::*;

use super::legend::{boxed_legend, trace, Glyph};
use super::lines::line;
use super::marks::{bifurcation_style, MarkShape};
use super::{parameter_chart, require_finite};
use crate::plot::{
    begin_chart_figure, frame_pixels, runs, save, Area, Axis, DataError, Drawn, PlotError, Render,
    Surface,
};

/// Stable and unstable cells' fill.
const STABLE: RGBColor = RGBColor(0xc7, 0xe9, 0xc0);
const UNSTABLE: RGBColor = RGBColor(0xfc, 0xc5, 0xc0);
/// Codimension-2 points' marker colour.
const CODIM2: RGBColor = RGBColor(0x1f, 0x77, 0xb4);

/// One continued curve, as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartCurve {
    pub p1: Vec<f64>,
    pub p2: Vec<f64>,
    /// "fold" | "branch-point" | "period-doubling": its colour and legend row.
    pub kind: String,
}

/// The shading: cell centres along each axis and each cell's stability, row-major over
/// (p₂, p₁); `None`: not known (left blank).
#[derive(Debug, Clone, PartialEq)]
pub struct ChartCells<'a> {
    pub p1: &'a [f64],
    pub p2: &'a [f64],
    pub stable: Vec<Option<bool>>,
}

/// The stability chart: x = p₁, y = p₂.
pub struct StabilityChart<'a> {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub curves: &'a [ChartCurve],
    /// Where each curve started (a located bifurcation of the branch), with its kind.
    pub starts: &'a [(f64, f64, String)],
    /// Codimension-2 points (p₁, p₂).
    pub codim2: &'a [(f64, f64)],
    pub cells: Option<ChartCells<'a>>,
}

/// Draws the chart to `path` (`.png` or `.svg`), 1100 × 900.
pub fn draw_stability_chart(fig: &StabilityChart, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1100, 900))
}

impl StabilityChart<'_> {
    fn finite_points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let cells = self.cells.iter().flat_map(|c| {
            let edge = |v: &[f64]| -> Vec<f64> {
                // The cells' outer edges (half a cell beyond the first and last centres).
                match v {
                    [a, b, ..] => {
                        let h = 0.5 * (b - a);
                        vec![a - h, v[v.len() - 1] + h]
                    }
                    _ => v.to_vec(),
                }
            };
            let (x, y) = (edge(c.p1), edge(c.p2));
            x.into_iter()
                .flat_map(move |a| y.clone().into_iter().map(move |b| (a, b)))
        });
        self.curves
            .iter()
            .flat_map(|c| c.p1.iter().copied().zip(c.p2.iter().copied()))
            .chain(self.starts.iter().map(|s| (s.0, s.1)))
            .chain(cells)
            .filter(|(x, y)| x.is_finite() && y.is_finite())
    }
}

impl Render for StabilityChart<'_> {
    fn validate(&self) -> Result<(), DataError> {
        for c in self.curves {
            if c.p2.len() != c.p1.len() {
                return Err(DataError::LengthMismatch {
                    what: format!("{} curve's second parameter", c.kind),
                    expected: c.p1.len(),
                    found: c.p2.len(),
                });
            }
        }
        if let Some(c) = &self.cells {
            if c.stable.len() != c.p1.len() * c.p2.len() {
                return Err(DataError::LengthMismatch {
                    what: "stability chart cells".into(),
                    expected: c.p1.len() * c.p2.len(),
                    found: c.stable.len(),
                });
            }
        }
        require_finite(
            self.curves
                .iter()
                .flat_map(|c| c.p1.iter().copied().zip(c.p2.iter().copied())),
            "stability chart curves",
        )
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let px = |v: f64| surface.px(v);
        let area = begin_chart_figure(root, surface, &self.title)?;
        let x_axis = Axis::fit(self.finite_points().map(|p| p.0), false, 0.0, 10, "p1")?;
        let y_axis = Axis::fit(self.finite_points().map(|p| p.1), false, 0.0, 8, "p2")?;
        let chart = parameter_chart(
            &area,
            surface,
            (&x_axis, &y_axis),
            (&self.x_label, &self.y_label),
        )?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let to_frame = frame_pixels(plot);
        let mut rows: Vec<(Glyph, String)> = Vec::new();
        if let Some(c) = &self.cells {
            let (any_s, any_u) = draw_cells(&frame, c, to_frame)?;
            if any_s {
                rows.push((
                    Glyph::Mark(MarkShape::Square, STABLE),
                    "stable orbit".into(),
                ));
            }
            if any_u {
                rows.push((
                    Glyph::Mark(MarkShape::Square, UNSTABLE),
                    "unstable orbit".into(),
                ));
            }
        }
        let mut occupied = Vec::new();
        let width = surface.stroke(2.5);
        for c in self.curves {
            let (label, _, colour) = bifurcation_style(&c.kind);
            let finite = |i: usize| c.p1[i].is_finite() && c.p2[i].is_finite();
            for run in runs(c.p1.len(), finite) {
                let pixels: Vec<(i32, i32)> = run.map(|i| to_frame(&(c.p1[i], c.p2[i]))).collect();
                trace(&pixels, px(6.0).max(1), &mut occupied);
                line(&frame, pixels, colour, width, surface)?;
            }
            let curve_row = format!("{label} curve");
            if !rows.iter().any(|r| r.1 == curve_row) {
                rows.push((Glyph::Line(colour), curve_row));
            }
        }
        let mut start_drawn = false;
        for (x, y, kind) in self.starts {
            if !(x.is_finite() && y.is_finite()) {
                continue;
            }
            let (_, shape, colour) = bifurcation_style(kind);
            let p = to_frame(&(*x, *y));
            shape.draw(&frame, p, px(7.0), colour, surface.stroke(1.0))?;
            occupied.push(p);
            start_drawn = true;
        }
        if start_drawn {
            rows.push((
                Glyph::Mark(MarkShape::Circle, RGBColor(0x55, 0x55, 0x55)),
                "start (located on the branch)".into(),
            ));
        }
        for (x, y) in self.codim2 {
            if x.is_finite() && y.is_finite() {
                let p = to_frame(&(*x, *y));
                MarkShape::Diamond.draw(&frame, p, px(8.0), CODIM2, surface.stroke(1.0))?;
                occupied.push(p);
            }
        }
        if !self.codim2.is_empty() {
            rows.push((
                Glyph::Mark(MarkShape::Diamond, CODIM2),
                "codimension-2 point".into(),
            ));
        }
        boxed_legend(&frame, surface, &rows, &occupied, 15.0)
    }
}

/// Fills each known cell; returns whether any stable and any unstable cell was drawn.
fn draw_cells<DB: DrawingBackend>(
    frame: &Area<DB>,
    c: &ChartCells<'_>,
    to_frame: impl Fn(&(f64, f64)) -> (i32, i32),
) -> Result<(bool, bool), crate::plot::DrawError> {
    let half = |v: &[f64], i: usize| -> (f64, f64) {
        let h = if v.len() > 1 {
            0.5 * (v[1] - v[0])
        } else {
            0.5
        };
        (v[i] - h, v[i] + h)
    };
    let (mut any_s, mut any_u) = (false, false);
    let n1 = c.p1.len();
    for (k, s) in c.stable.iter().enumerate() {
        let Some(stable) = *s else { continue };
        let (i, j) = (k % n1, k / n1);
        let (x0, x1) = half(c.p1, i);
        let (y0, y1) = half(c.p2, j);
        let (a, b) = (to_frame(&(x0, y1)), to_frame(&(x1, y0)));
        let colour = if stable {
            any_s = true;
            STABLE
        } else {
            any_u = true;
            UNSTABLE
        };
        frame.draw(&Rectangle::new([a, b], colour.filled()))?;
    }
    Ok((any_s, any_u))
}
