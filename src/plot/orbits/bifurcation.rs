//! The bifurcation diagram: continued branches against their parameter, solid where stable and
//! dashed where unstable, the located bifurcations marked by kind with a boxed legend.

use std::path::Path;

use plotters::prelude::*;

use super::legend::{boxed_legend, trace, Glyph};
use super::lines::{dashed_line, line, DASH, GREY};
use super::marks::{bifurcation_style, MarkShape, BIFURCATION_KINDS};
use super::{parameter_chart, require_finite};
use crate::plot::{
    begin_chart_figure, frame_pixels, runs, save, series_color, Area, Axis, DataError, DrawError,
    Drawn, PlotError, Render, Surface,
};

/// One continued branch, as drawn: the parameter, a scalar measure of each orbit (the y axis),
/// and each point's stability.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BranchCurve {
    pub parameter: Vec<f64>,
    pub value: Vec<f64>,
    pub stable: Vec<bool>,
    /// Legend label; an empty label gives the branch no legend row.
    pub label: String,
}

/// A located bifurcation, as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct BifurcationMark {
    pub parameter: f64,
    pub value: f64,
    /// "fold" | "branch-point" | "period-doubling" | "neimark-sacker" | "krein-collision";
    /// any other kind is drawn as a grey cross labelled with the kind as given.
    pub kind: String,
}

/// The bifurcation diagram: continued branches against their parameter, bifurcations marked.
pub struct BifurcationFigure<'a> {
    pub title: String,
    /// E.g. "model.drive.torque.amplitude (N m)".
    pub parameter_label: String,
    /// E.g. "θ₁ at drive phase 0 (rad)" or "period (s)".
    pub value_label: String,
    pub branches: &'a [BranchCurve],
    pub bifurcations: &'a [BifurcationMark],
}

/// Draws the bifurcation diagram to `path` (`.png` or `.svg`), 1200 × 800: each branch in its
/// palette colour, solid where stable and dashed where unstable, the bifurcations as markers
/// with a legend by kind.
pub fn draw_bifurcation(fig: &BifurcationFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1200, 800))
}

/// A piece of a branch drawn in one style: its points (data units) and whether it is stable.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub points: Vec<(f64, f64)>,
    pub stable: bool,
}

/// Splits a branch into maximal pieces of equal stability. A point with a non-finite parameter
/// or value is skipped and breaks the curve; where the stability changes between two points the
/// segment is split at its midpoint, which ends the one piece and starts the next, so the
/// curve stays continuous. A piece may hold a single point (an isolated finite point).
pub fn stability_pieces(branch: &BranchCurve) -> Vec<Piece> {
    let n = branch
        .parameter
        .len()
        .min(branch.value.len())
        .min(branch.stable.len());
    let at = |i: usize| (branch.parameter[i], branch.value[i]);
    let finite = |i: usize| branch.parameter[i].is_finite() && branch.value[i].is_finite();
    let mut out = Vec::new();
    for run in runs(n, finite) {
        let mut piece = Piece {
            points: vec![at(run.start)],
            stable: branch.stable[run.start],
        };
        for i in run.start + 1..run.end {
            if branch.stable[i] != piece.stable {
                let (a, b) = (at(i - 1), at(i));
                let mid = (0.5 * (a.0 + b.0), 0.5 * (a.1 + b.1));
                piece.points.push(mid);
                let done = std::mem::replace(
                    &mut piece,
                    Piece {
                        points: vec![mid],
                        stable: branch.stable[i],
                    },
                );
                out.push(done);
            }
            piece.points.push(at(i));
        }
        out.push(piece);
    }
    out
}

impl BifurcationFigure<'_> {
    fn finite_points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.branches
            .iter()
            .flat_map(|b| b.parameter.iter().copied().zip(b.value.iter().copied()))
            .chain(self.bifurcations.iter().map(|m| (m.parameter, m.value)))
            .filter(|(x, y)| x.is_finite() && y.is_finite())
    }
}

impl BifurcationFigure<'_> {
    /// Each branch's colour: palette colours in order, one per distinct label (so the two sheets
    /// of a doubled branch, given the same label, share a colour and a legend row); a branch
    /// without a label gets a colour of its own.
    pub fn branch_colours(&self) -> Vec<RGBColor> {
        let mut seen: Vec<&str> = Vec::new();
        let mut next = 0;
        self.branches
            .iter()
            .map(|b| {
                let k = match seen
                    .iter()
                    .position(|l| !b.label.is_empty() && *l == b.label)
                {
                    Some(k) => k,
                    None => {
                        seen.push(&b.label);
                        next += 1;
                        next - 1
                    }
                };
                series_color(k)
            })
            .collect()
    }
}

impl Render for BifurcationFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.branches.iter().all(|b| b.parameter.is_empty()) {
            return Err(DataError::Empty {
                what: "bifurcation diagram (no branch points)".into(),
            });
        }
        for b in self.branches {
            for (what, len) in [("values", b.value.len()), ("stabilities", b.stable.len())] {
                if len != b.parameter.len() {
                    return Err(DataError::LengthMismatch {
                        what: format!("branch `{}` {what}", b.label),
                        expected: b.parameter.len(),
                        found: len,
                    });
                }
            }
        }
        require_finite(
            self.branches
                .iter()
                .flat_map(|b| b.parameter.iter().copied().zip(b.value.iter().copied())),
            "bifurcation diagram branches",
        )
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let area = begin_chart_figure(root, surface, &self.title)?;
        let x_axis = Axis::fit(
            self.finite_points().map(|p| p.0),
            false,
            0.03,
            10,
            "parameter",
        )?;
        let y_axis = Axis::fit(self.finite_points().map(|p| p.1), false, 0.06, 8, "value")?;
        let chart = parameter_chart(
            &area,
            surface,
            (&x_axis, &y_axis),
            (&self.parameter_label, &self.value_label),
        )?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let to_frame = frame_pixels(plot);
        let mut occupied = Vec::new();
        let colours = self.branch_colours();
        let styles = self.draw_branches(&frame, surface, to_frame, &colours, &mut occupied)?;
        let kinds = self.draw_marks(&frame, surface, to_frame, &mut occupied)?;
        let rows = self.legend_rows(&colours, styles, kinds);
        boxed_legend(&frame, surface, &rows, &occupied, 15.0)
    }
}

/// A bifurcation's legend label, marker shape and colour (see [`bifurcation_style`]).
type KindStyle = (String, MarkShape, RGBColor);

impl BifurcationFigure<'_> {
    /// Draws every branch in its colour, piece by piece: solid where stable, dashed where
    /// unstable, an isolated point as a dot (open when unstable). Adds the drawn pixels to
    /// `occupied` (for the legend's placement) and returns whether any stable and any
    /// unstable piece was drawn.
    fn draw_branches<DB: DrawingBackend>(
        &self,
        frame: &Area<DB>,
        surface: Surface,
        to_frame: impl Fn(&(f64, f64)) -> (i32, i32),
        colours: &[RGBColor],
        occupied: &mut Vec<(i32, i32)>,
    ) -> Result<(bool, bool), DrawError> {
        let (mut any_stable, mut any_unstable) = (false, false);
        let width = surface.stroke(2.0);
        for (b, &colour) in self.branches.iter().zip(colours) {
            for piece in stability_pieces(b) {
                let pixels: Vec<(i32, i32)> = piece.points.iter().map(&to_frame).collect();
                trace(&pixels, surface.px(6.0).max(1), occupied);
                if piece.stable {
                    any_stable = true;
                } else {
                    any_unstable = true;
                }
                if pixels.len() == 1 {
                    // An isolated point: a dot, open when unstable.
                    let style = if piece.stable {
                        colour.filled()
                    } else {
                        colour.stroke_width(surface.stroke(1.5))
                    };
                    frame.draw(&Circle::new(pixels[0], surface.px(3.0), style))?;
                } else if piece.stable {
                    line(frame, pixels, colour, width, surface)?;
                } else {
                    dashed_line(frame, &pixels, colour, width, DASH, surface)?;
                }
            }
        }
        Ok((any_stable, any_unstable))
    }

    /// Marks every finite bifurcation by its kind, adds the markers' centres to `occupied` and
    /// returns the distinct kinds' styles in the order met.
    fn draw_marks<DB: DrawingBackend>(
        &self,
        frame: &Area<DB>,
        surface: Surface,
        to_frame: impl Fn(&(f64, f64)) -> (i32, i32),
        occupied: &mut Vec<(i32, i32)>,
    ) -> Result<Vec<KindStyle>, DrawError> {
        let mut kinds: Vec<KindStyle> = Vec::new();
        for m in self.bifurcations {
            if !(m.parameter.is_finite() && m.value.is_finite()) {
                continue;
            }
            let style = bifurcation_style(&m.kind);
            let p = to_frame(&(m.parameter, m.value));
            style
                .1
                .draw(frame, p, surface.px(7.0), style.2, surface.stroke(1.0))?;
            occupied.push(p);
            if !kinds.contains(&style) {
                kinds.push(style);
            }
        }
        Ok(kinds)
    }

    /// The legend's rows: the labelled branches, the two line styles drawn (`styles`: any
    /// stable, any unstable), the bifurcation `kinds` present (known kinds in their fixed
    /// order, then the others as met).
    fn legend_rows(
        &self,
        colours: &[RGBColor],
        (any_stable, any_unstable): (bool, bool),
        mut kinds: Vec<KindStyle>,
    ) -> Vec<(Glyph, String)> {
        let mut rows: Vec<(Glyph, String)> = Vec::new();
        for (b, &c) in self.branches.iter().zip(colours) {
            if !b.label.is_empty() && !rows.iter().any(|r| r.1 == b.label) {
                rows.push((Glyph::Line(c), b.label.clone()));
            }
        }
        if any_stable {
            rows.push((Glyph::Line(GREY), "stable".into()));
        }
        if any_unstable {
            rows.push((Glyph::Dashed(GREY), "unstable".into()));
        }
        let order = |s: &KindStyle| {
            BIFURCATION_KINDS
                .iter()
                .position(|k| k.1 == s.0 && k.2 == s.1)
                .unwrap_or(BIFURCATION_KINDS.len())
        };
        kinds.sort_by_key(order);
        rows.extend(
            kinds
                .into_iter()
                .map(|(label, shape, c)| (Glyph::Mark(shape, c), label)),
        );
        rows
    }
}
