//! The periodic-orbit figures of `pendula orbits`: the bifurcation diagram of continued
//! branches (stable solid, unstable dashed, bifurcations marked by kind), the orbit diagram
//! (attractor samples against a parameter, λ_max below on the same axis) and an orbit's shape
//! in configuration space (every joint's path over one period, the chain drawn at t = 0).
//!
//! plotters has no dash style for a stroked path, so dashed curves are cut into dashes here
//! ([`dashes`]), in device pixels along the curve's length, so the pattern stays even across
//! the curve's vertices whatever the point spacing.

use std::path::Path;

use plotters::element::BitMapElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    begin_figure, draw_centred, draw_legend_row, font, format_value, house_mesh, runs, save,
    series_color, stamp_polyline, text_width, Area, Axis, DataError, DrawError, Drawn, Header,
    PlotError, Render, Surface,
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

/// The orbit diagram: attractor samples against a parameter, λ_max below.
pub struct OrbitDiagramFigure<'a> {
    pub title: String,
    pub parameter_label: String,
    pub value_label: String,
    /// P parameter values.
    pub parameters: &'a [f64],
    /// `[P][S]` values of the plotted component (row-major, S = samples per parameter, all
    /// starts flattened), angles already in (−π, π].
    pub samples: &'a [f64],
    /// S.
    pub per_parameter: usize,
    /// `[P][starts]` λ_max (1/s); empty (with `starts` 0) draws the samples alone.
    pub lyapunov: &'a [f64],
    pub starts: usize,
}

/// Draws the orbit diagram to `path` (`.png` or `.svg`), 1200 × 1000. Top panel: the samples as
/// small dots against the parameter; bottom panel (same x axis): λ_max against the parameter,
/// one line per start, with a dashed zero line.
pub fn draw_orbit_diagram(fig: &OrbitDiagramFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1200, 1000))
}

/// One periodic orbit's shape in configuration space.
pub struct OrbitShapeFigure<'a> {
    pub title: String,
    /// Link lengths (m), n links.
    pub lengths: &'a [f64],
    /// Row-major states over one period at equal times, each of 2n entries θ₁…θₙ, ω₁…ωₙ
    /// (angles absolute from the downward vertical).
    pub shape: &'a [f64],
    /// The orbit's period (s).
    pub period: f64,
}

/// Draws the orbit's shape to `path` (`.png` or `.svg`), 1000 × 1000: the x–y path of each joint
/// over one period (pivot at the origin, y up), the chain at t = 0 (and faintly at T/4, T/2,
/// 3T/4), equal aspect ratio, the period in the caption.
pub fn draw_orbit_shape(fig: &OrbitShapeFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1000, 1000))
}

// ---------------------------------------------------------------------------------------------
// Shared pieces: stability runs, dashes, markers, a boxed legend with mixed glyphs.

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

/// Cuts the polyline `points` (device pixels) into dashes `on` long with gaps `off` long,
/// measured along the line, so the pattern runs on across vertices. Each dash is a polyline of
/// at least two points; a line shorter than `on` is one dash.
pub fn dashes(points: &[(f64, f64)], on: f64, off: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    let Some(&first) = points.first() else {
        return out;
    };
    if !(on > 0.0 && off > 0.0) {
        return if points.len() >= 2 {
            vec![points.to_vec()]
        } else {
            out
        };
    }
    let mut phase = 0.0; // distance into the current dash or gap
    let mut drawing = true;
    let mut current = vec![first];
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = (b.0 - a.0).hypot(b.1 - a.1);
        let mut t = 0.0;
        while t < len {
            let limit = if drawing { on } else { off };
            let step = (limit - phase).min(len - t);
            t += step;
            phase += step;
            let f = t / len;
            let p = (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
            if drawing {
                current.push(p);
            }
            if phase >= limit - 1e-9 {
                phase = 0.0;
                if drawing {
                    out.push(std::mem::take(&mut current));
                } else {
                    current = vec![p];
                }
                drawing = !drawing;
            }
        }
    }
    if drawing && current.len() >= 2 {
        out.push(current);
    }
    out
}

/// Draws a polyline of device pixels `w` device pixels wide (stamped on raster surfaces, one
/// stroked path on vector ones; see [`super::draw_polyline`]).
fn line<DB: DrawingBackend>(
    area: &Area<DB>,
    pixels: Vec<(i32, i32)>,
    colour: RGBColor,
    w: u32,
    surface: Surface,
) -> Drawn {
    if surface.raster {
        stamp_polyline(area, pixels, colour, w)
    } else {
        area.draw(&PathElement::new(pixels, colour.stroke_width(w)))?;
        Ok(())
    }
}

/// Draws the polyline `pixels` dashed (dash and gap lengths in logical pixels).
fn dashed_line<DB: DrawingBackend>(
    area: &Area<DB>,
    pixels: &[(i32, i32)],
    colour: RGBColor,
    w: u32,
    (on, off): (f64, f64),
    surface: Surface,
) -> Drawn {
    let pts: Vec<(f64, f64)> = pixels
        .iter()
        .map(|&(x, y)| (f64::from(x), f64::from(y)))
        .collect();
    for dash in dashes(&pts, on * surface.scale, off * surface.scale) {
        let px = dash
            .iter()
            .map(|&(x, y)| (x.round() as i32, y.round() as i32))
            .collect();
        line(area, px, colour, w, surface)?;
    }
    Ok(())
}

/// The shape of a bifurcation marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkShape {
    Square,
    Diamond,
    Circle,
    TriangleUp,
    TriangleDown,
    Cross,
}

/// The known bifurcation kinds in legend order: (kind, legend label, shape, colour).
pub const BIFURCATION_KINDS: [(&str, &str, MarkShape, RGBColor); 5] = [
    (
        "fold",
        "fold",
        MarkShape::Square,
        RGBColor(0xd6, 0x27, 0x28),
    ),
    (
        "branch-point",
        "branch point",
        MarkShape::Diamond,
        RGBColor(0x94, 0x67, 0xbd),
    ),
    (
        "period-doubling",
        "period doubling",
        MarkShape::Circle,
        RGBColor(0x11, 0x11, 0x11),
    ),
    (
        "neimark-sacker",
        "Neimark–Sacker",
        MarkShape::TriangleUp,
        RGBColor(0x2c, 0xa0, 0x2c),
    ),
    (
        "krein-collision",
        "Krein collision",
        MarkShape::TriangleDown,
        RGBColor(0xff, 0x7f, 0x0e),
    ),
];

/// How a bifurcation of `kind` is drawn: its legend label, shape and colour (a grey cross
/// labelled with the kind itself for a kind not in [`BIFURCATION_KINDS`]).
pub fn bifurcation_style(kind: &str) -> (String, MarkShape, RGBColor) {
    BIFURCATION_KINDS
        .iter()
        .find(|k| k.0 == kind)
        .map(|k| (k.1.to_string(), k.2, k.3))
        .unwrap_or_else(|| {
            (
                kind.to_string(),
                MarkShape::Cross,
                RGBColor(0x7f, 0x7f, 0x7f),
            )
        })
}

/// Outline of every filled marker.
const EDGE: RGBColor = RGBColor(0x22, 0x22, 0x22);

impl MarkShape {
    /// Draws the marker centred at device pixel `c`, about `r` device pixels in radius, filled
    /// with `colour` and outlined `stroke` device pixels wide.
    fn draw<DB: DrawingBackend>(
        self,
        area: &Area<DB>,
        c: (i32, i32),
        r: i32,
        colour: RGBColor,
        stroke: u32,
    ) -> Drawn {
        let (x, y) = c;
        let rf = f64::from(r);
        let poly = |pts: Vec<(f64, f64)>| -> Vec<(i32, i32)> {
            pts.into_iter()
                .map(|(dx, dy)| (x + dx.round() as i32, y + dy.round() as i32))
                .collect()
        };
        let outline = match self {
            MarkShape::Circle => {
                area.draw(&Circle::new(c, r, colour.filled()))?;
                area.draw(&Circle::new(c, r, EDGE.stroke_width(stroke)))?;
                return Ok(());
            }
            MarkShape::Cross => {
                area.draw(&Cross::new(c, r, colour.stroke_width(stroke * 2)))?;
                return Ok(());
            }
            MarkShape::Square => {
                let s = 0.85 * rf;
                poly(vec![(-s, -s), (s, -s), (s, s), (-s, s)])
            }
            MarkShape::Diamond => {
                let s = 1.2 * rf;
                poly(vec![(0.0, -s), (s, 0.0), (0.0, s), (-s, 0.0)])
            }
            MarkShape::TriangleUp | MarkShape::TriangleDown => {
                let s = if self == MarkShape::TriangleUp {
                    1.25 * rf
                } else {
                    -1.25 * rf
                };
                let h = 0.866 * s.abs();
                poly(vec![(0.0, -s), (h, 0.5 * s), (-h, 0.5 * s)])
            }
        };
        area.draw(&Polygon::new(outline.clone(), colour.filled()))?;
        let mut closed = outline.clone();
        closed.push(outline[0]);
        area.draw(&PathElement::new(closed, EDGE.stroke_width(stroke)))?;
        Ok(())
    }
}

/// What a legend row shows before its label.
#[derive(Debug, Clone, Copy)]
enum Glyph {
    Line(RGBColor),
    Dashed(RGBColor),
    Mark(MarkShape, RGBColor),
}

/// A framed legend of `rows` (glyph, label) in the corner of `frame` (a plot area with its own
/// pixel origin) that hides the fewest `occupied` pixels; upper right preferred.
fn boxed_legend<DB: DrawingBackend>(
    frame: &Area<DB>,
    surface: Surface,
    rows: &[(Glyph, String)],
    occupied: &[(i32, i32)],
    font_size: f64,
) -> Drawn {
    if rows.is_empty() {
        return Ok(());
    }
    let px = |v: f64| surface.px(v);
    let (pad, glyph, gap, row) = (px(8.0), px(30.0), px(8.0), px(font_size * 1.45));
    let text_w = rows
        .iter()
        .map(|(_, l)| text_width(l, font_size, false, surface.scale))
        .fold(0.0, f64::max);
    let w = pad + glyph + gap + px(text_w) + pad;
    let h = 2 * pad + row * rows.len() as i32 - px(font_size * 0.3);
    let (aw, ah) = frame.dim_in_pixel();
    let (aw, ah) = (aw as i32, ah as i32);
    let inset = px(8.0);
    let corners = [
        (aw - inset - w, inset),
        (inset, inset),
        (aw - inset - w, ah - inset - h),
        (inset, ah - inset - h),
    ];
    let m = px(4.0);
    let hidden = |(x0, y0): (i32, i32)| {
        occupied
            .iter()
            .filter(|(x, y)| *x >= x0 - m && *x <= x0 + w + m && *y >= y0 - m && *y <= y0 + h + m)
            .count()
    };
    let (x0, y0) = corners
        .iter()
        .enumerate()
        .min_by_key(|(i, c)| (hidden(**c), *i))
        .map(|(_, c)| *c)
        .unwrap_or((inset, inset));
    let thin = surface.stroke(1.0);
    frame.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        WHITE.mix(0.9).filled(),
    ))?;
    frame.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        RGBColor(0xbb, 0xbb, 0xbb).stroke_width(thin),
    ))?;
    let text = font(font_size, surface.scale, false);
    let stroke = surface.stroke(2.0);
    for (i, (g, label)) in rows.iter().enumerate() {
        let cy = y0 + pad + row * i as i32 + px(font_size * 0.55);
        let gx = x0 + pad;
        match *g {
            Glyph::Line(c) => line(frame, vec![(gx, cy), (gx + glyph, cy)], c, stroke, surface)?,
            Glyph::Dashed(c) => dashed_line(
                frame,
                &[(gx, cy), (gx + glyph, cy)],
                c,
                stroke,
                DASH,
                surface,
            )?,
            Glyph::Mark(s, c) => {
                s.draw(frame, (gx + glyph / 2, cy), px(6.0), c, surface.stroke(1.0))?
            }
        }
        frame.draw(&Text::new(
            label.clone(),
            (gx + glyph + gap, cy),
            text.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// Appends the pixels of the polyline `pixels` to `out`, with points every `step` device pixels
/// between its vertices: what a legend must not hide, however sparse the curve's points.
fn trace(pixels: &[(i32, i32)], step: i32, out: &mut Vec<(i32, i32)>) {
    out.extend(pixels.first());
    for w in pixels.windows(2) {
        let (a, b) = (w[0], w[1]);
        let n = ((b.0 - a.0).abs().max((b.1 - a.1).abs()) / step).max(1);
        out.extend((1..=n).map(|k| (a.0 + (b.0 - a.0) * k / n, a.1 + (b.1 - a.1) * k / n)));
    }
}

/// Dash and gap of unstable branches (logical pixels).
const DASH: (f64, f64) = (7.0, 5.0);

/// The reference lines' colour (zero line, style rows of legends).
const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// Finite (x, y) pairs or an error naming `what`.
fn require_finite(
    points: impl IntoIterator<Item = (f64, f64)>,
    what: &str,
) -> Result<(), DataError> {
    if points
        .into_iter()
        .any(|(x, y)| x.is_finite() && y.is_finite())
    {
        Ok(())
    } else {
        Err(DataError::NoFiniteValues { what: what.into() })
    }
}

// ---------------------------------------------------------------------------------------------
// The bifurcation diagram.

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
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let top = 50.0 + extra;
        let area = root.clone().shrink(
            (px(10.0), px(top)),
            (px(w - 20.0) as u32, px(h - top - 8.0) as u32),
        );
        let x_axis = Axis::fit(
            self.finite_points().map(|p| p.0),
            false,
            0.03,
            10,
            "parameter",
        )?;
        let y_axis = Axis::fit(self.finite_points().map(|p| p.1), false, 0.06, 8, "value")?;
        let mut chart = ChartBuilder::on(&area)
            .margin(px(12.0))
            .x_label_area_size(px(56.0))
            .y_label_area_size(px(90.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let y_fmt = |v: &f64| y_axis.label(*v);
        house_mesh(&mut chart, surface.stroke(1.0), scale, (15.0, 17.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(self.parameter_label.clone())
            .y_desc(self.value_label.clone())
            .draw()?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        let to_frame = |p: &(f64, f64)| {
            let (x, y) = plot.map_coordinate(p);
            (x - ox, y - oy)
        };
        let mut occupied = Vec::new();
        let (mut any_stable, mut any_unstable) = (false, false);
        let width = surface.stroke(2.0);
        let colours = self.branch_colours();
        for (b, &colour) in self.branches.iter().zip(&colours) {
            for piece in stability_pieces(b) {
                let pixels: Vec<(i32, i32)> = piece.points.iter().map(to_frame).collect();
                trace(&pixels, surface.px(6.0).max(1), &mut occupied);
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
                    frame.draw(&Circle::new(pixels[0], px(3.0), style))?;
                } else if piece.stable {
                    line(&frame, pixels, colour, width, surface)?;
                } else {
                    dashed_line(&frame, &pixels, colour, width, DASH, surface)?;
                }
            }
        }
        let mut kinds: Vec<(String, MarkShape, RGBColor)> = Vec::new();
        for m in self.bifurcations {
            if !(m.parameter.is_finite() && m.value.is_finite()) {
                continue;
            }
            let style = bifurcation_style(&m.kind);
            let p = to_frame(&(m.parameter, m.value));
            style
                .1
                .draw(&frame, p, px(7.0), style.2, surface.stroke(1.0))?;
            occupied.push(p);
            if !kinds.contains(&style) {
                kinds.push(style);
            }
        }
        // Legend: the labelled branches, the two line styles, the bifurcation kinds present
        // (known kinds in their fixed order, then the others as met).
        let mut rows: Vec<(Glyph, String)> = Vec::new();
        for (b, &c) in self.branches.iter().zip(&colours) {
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
        let order = |s: &(String, MarkShape, RGBColor)| {
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
        boxed_legend(&frame, surface, &rows, &occupied, 15.0)
    }
}

// ---------------------------------------------------------------------------------------------
// The orbit diagram.

impl OrbitDiagramFigure<'_> {
    fn has_lyapunov(&self) -> bool {
        self.starts > 0 && !self.lyapunov.is_empty()
    }
}

impl Render for OrbitDiagramFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        let p = self.parameters.len();
        if p == 0 || self.per_parameter == 0 {
            return Err(DataError::Empty {
                what: if p == 0 {
                    "orbit diagram parameters"
                } else {
                    "orbit diagram samples"
                }
                .into(),
            });
        }
        if self.samples.len() != p * self.per_parameter {
            return Err(DataError::LengthMismatch {
                what: "orbit diagram samples".into(),
                expected: p * self.per_parameter,
                found: self.samples.len(),
            });
        }
        if self.lyapunov.len() != p * self.starts && !(self.lyapunov.is_empty() && self.starts == 0)
        {
            return Err(DataError::LengthMismatch {
                what: "orbit diagram λ_max".into(),
                expected: p * self.starts,
                found: self.lyapunov.len(),
            });
        }
        let s = self.per_parameter;
        require_finite(
            self.parameters.iter().enumerate().flat_map(|(i, &x)| {
                self.samples[i * s..(i + 1) * s]
                    .iter()
                    .map(move |&y| (x, y))
            }),
            "orbit diagram samples",
        )?;
        if self.has_lyapunov() {
            let k = self.starts;
            require_finite(
                self.parameters.iter().enumerate().flat_map(|(i, &x)| {
                    self.lyapunov[i * k..(i + 1) * k]
                        .iter()
                        .map(move |&y| (x, y))
                }),
                "orbit diagram λ_max",
            )?;
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let top = 48.0 + extra;
        let lyap = self.has_lyapunov();
        let legend_h = if lyap && self.starts > 1 { 34.0 } else { 0.0 };
        let body = h - top - legend_h - 6.0;
        let top_h = if lyap { 0.6 * body } else { body };
        let s = self.per_parameter;
        let finite_x = |i: usize| self.parameters[i].is_finite();
        let xs = (0..self.parameters.len())
            .filter(|&i| {
                finite_x(i)
                    && self.samples[i * s..(i + 1) * s]
                        .iter()
                        .any(|v| v.is_finite())
            })
            .map(|i| self.parameters[i]);
        let x_axis = Axis::fit(xs, false, 0.01, 10, "parameter")?;
        let ys = (0..self.parameters.len())
            .filter(|&i| finite_x(i))
            .flat_map(|i| self.samples[i * s..(i + 1) * s].iter().copied());
        let y_axis = Axis::fit(ys, false, 0.04, 8, "samples")?;
        let thin = surface.stroke(1.0);
        // Both panels: the same horizontal margins and y label width, so their x axes align.
        let upper = root
            .clone()
            .shrink((px(10.0), px(top)), (px(w - 20.0) as u32, px(top_h) as u32));
        let mut chart = ChartBuilder::on(&upper)
            .margin(px(12.0))
            .x_label_area_size(px(if lyap { 12.0 } else { 56.0 }))
            .y_label_area_size(px(90.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let no_fmt = |_: &f64| String::new();
        let y_fmt = |v: &f64| y_axis.label(*v);
        // The dots first: the light grid is drawn over them, the same on PNG and on SVG (where
        // they are one embedded image).
        self.dots(chart.plotting_area(), surface)?;
        {
            let mut mesh = house_mesh(&mut chart, thin, scale, (15.0, 17.0));
            mesh.y_label_formatter(&y_fmt)
                .y_desc(self.value_label.clone());
            if lyap {
                mesh.x_label_formatter(&no_fmt);
            } else {
                mesh.x_label_formatter(&x_fmt)
                    .x_desc(self.parameter_label.clone());
            }
            mesh.draw()?;
        }
        if lyap {
            let lower = root.clone().shrink(
                (px(10.0), px(top + top_h)),
                (px(w - 20.0) as u32, px(body - top_h) as u32),
            );
            self.lyapunov_panel(&lower, surface, &x_axis)?;
        }
        if legend_h > 0.0 {
            let entries: Vec<(Vec<RGBColor>, String)> = if self.starts <= 6 {
                (0..self.starts)
                    .map(|k| (vec![series_color(k)], format!("λ_max from start {}", k + 1)))
                    .collect()
            } else {
                vec![(
                    (0..self.starts.min(10)).map(series_color).collect(),
                    format!("λ_max, one colour per start ({} starts)", self.starts),
                )]
            };
            draw_legend_row(
                root,
                surface,
                &entries,
                (w / 2.0, h - legend_h / 2.0 - 4.0),
                w - 40.0,
                15.0,
            )?;
        }
        Ok(())
    }
}

/// Colour of the orbit diagram's samples.
const SAMPLE: RGBColor = RGBColor(0x1a, 0x1a, 0x2e);

impl OrbitDiagramFigure<'_> {
    /// Every finite sample as a dot of about one logical pixel. On bitmaps a sample that falls
    /// on an already drawn dot is drawn once; on SVG the dots are one embedded image of the plot
    /// area at one pixel per logical pixel (10⁵–10⁶ samples as shapes would make a file of tens
    /// of megabytes).
    fn dots<DB: DrawingBackend>(
        &self,
        plot: &DrawingArea<DB, Cartesian2d<Axis, Axis>>,
        surface: Surface,
    ) -> Drawn {
        let dot = (surface.scale * 1.1).round().max(1.0) as i32;
        let frame = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        let (pw, ph) = frame.dim_in_pixel();
        if pw == 0 || ph == 0 {
            return Ok(());
        }
        let (cell, raster) = if surface.raster {
            (dot, true)
        } else {
            (1, false)
        };
        let (cols, rows) = (
            (pw as i32 / cell + 1) as usize,
            (ph as i32 / cell + 1) as usize,
        );
        let mut seen = vec![false; cols * rows];
        let s = self.per_parameter;
        for (i, &x) in self.parameters.iter().enumerate() {
            if !x.is_finite() {
                continue;
            }
            for &y in &self.samples[i * s..(i + 1) * s] {
                if !y.is_finite() {
                    continue;
                }
                let (px, py) = plot.map_coordinate(&(x, y));
                let (fx, fy) = (px - ox, py - oy);
                if fx < 0 || fy < 0 || fx >= pw as i32 || fy >= ph as i32 {
                    continue;
                }
                let c = &mut seen[(fy / cell) as usize * cols + (fx / cell) as usize];
                if *c {
                    continue;
                }
                *c = true;
                if raster {
                    let (x0, y0) = (fx - dot / 2, fy - dot / 2);
                    frame.draw(&Rectangle::new(
                        [(x0, y0), (x0 + dot, y0 + dot)],
                        SAMPLE.filled(),
                    ))?;
                }
            }
        }
        if !raster {
            let (w, h) = (pw as usize, ph as usize);
            let mut buf = vec![255u8; 3 * w * h];
            for v in 0..h {
                for u in 0..w {
                    if seen[v * cols + u] {
                        let o = 3 * (v * w + u);
                        buf[o..o + 3].copy_from_slice(&[SAMPLE.0, SAMPLE.1, SAMPLE.2]);
                    }
                }
            }
            let img = BitMapElement::with_owned_buffer((0, 0), (pw, ph), buf).ok_or_else(|| {
                DrawError::Backend("orbit diagram raster has the wrong size".into())
            })?;
            frame.draw(&img)?;
        }
        Ok(())
    }

    /// The lower panel: λ_max against the parameter, one line per start, a dashed zero line.
    fn lyapunov_panel<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        surface: Surface,
        x_axis: &Axis,
    ) -> Drawn {
        let px = |v: f64| surface.px(v);
        let k = self.starts;
        let p = self.parameters.len();
        let ys = (0..p)
            .filter(|&i| self.parameters[i].is_finite())
            .flat_map(|i| self.lyapunov[i * k..(i + 1) * k].iter().copied())
            .chain([0.0]);
        let y_axis = Axis::fit(ys, false, 0.06, 6, "λ_max")?;
        let mut chart = ChartBuilder::on(area)
            .margin(px(12.0))
            .x_label_area_size(px(56.0))
            .y_label_area_size(px(90.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let y_fmt = |v: &f64| y_axis.label(*v);
        house_mesh(&mut chart, surface.stroke(1.0), surface.scale, (15.0, 17.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(self.parameter_label.clone())
            .y_desc("λ_max / s⁻¹")
            .draw()?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        let to_frame = |p: &(f64, f64)| {
            let (x, y) = plot.map_coordinate(p);
            (x - ox, y - oy)
        };
        let (xlo, xhi) = x_axis.bounds();
        dashed_line(
            &frame,
            &[to_frame(&(xlo, 0.0)), to_frame(&(xhi, 0.0))],
            GREY,
            surface.stroke(1.0),
            (6.0, 4.0),
            surface,
        )?;
        let width = surface.stroke(if p > 300 { 1.2 } else { 1.8 });
        for j in 0..k {
            let colour = series_color(j);
            let at = |i: usize| (self.parameters[i], self.lyapunov[i * k + j]);
            let ok = |i: usize| at(i).0.is_finite() && at(i).1.is_finite();
            for run in runs(p, ok) {
                let pixels: Vec<(i32, i32)> = run.clone().map(|i| to_frame(&at(i))).collect();
                if pixels.len() == 1 {
                    frame.draw(&Circle::new(pixels[0], px(2.5), colour.filled()))?;
                } else {
                    line(&frame, pixels, colour, width, surface)?;
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The orbit's shape.

/// The chain drawn faintly at these fractions of the period (besides t = 0).
const LATER: [(f64, &str); 3] = [(0.25, "T/4"), (0.5, "T/2"), (0.75, "3T/4")];

impl OrbitShapeFigure<'_> {
    fn links(&self) -> usize {
        self.lengths.len()
    }

    fn samples(&self) -> usize {
        self.shape.len() / (2 * self.links())
    }

    /// The joints' positions at sample `k` (pivot first, at the origin), or `None` when an angle
    /// is not finite.
    pub fn joints(&self, k: usize) -> Option<Vec<(f64, f64)>> {
        let n = self.links();
        let theta = &self.shape[k * 2 * n..k * 2 * n + n];
        if !theta.iter().all(|t| t.is_finite()) {
            return None;
        }
        let mut p = (0.0, 0.0);
        let mut out = vec![p];
        for (l, t) in self.lengths.iter().zip(theta) {
            p = (p.0 + l * t.sin(), p.1 - l * t.cos());
            out.push(p);
        }
        Some(out)
    }

    /// The caption under the title: the period with five significant digits.
    fn caption(&self) -> String {
        let mag = self.period.abs().log10().floor();
        let decimals = (4.0 - mag).clamp(0.0, 12.0) as usize;
        let mut t = format_value(self.period, decimals);
        if t.contains('.') {
            t = t.trim_end_matches('0').trim_end_matches('.').to_string();
        }
        format!(
            "period T = {t} s; the path of each joint over one period, the chain at t = 0 and, \
             faint, at t = T/4, T/2, 3T/4"
        )
    }
}

impl Render for OrbitShapeFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        let n = self.links();
        if n == 0 || self.shape.is_empty() {
            return Err(DataError::Empty {
                what: if n == 0 {
                    "orbit shape link lengths"
                } else {
                    "orbit shape"
                }
                .into(),
            });
        }
        if !self.lengths.iter().all(|l| l.is_finite()) {
            return Err(DataError::NoFiniteValues {
                what: "orbit shape link lengths (some are not finite)".into(),
            });
        }
        if !self.shape.len().is_multiple_of(2 * n) {
            return Err(DataError::LengthMismatch {
                what: format!("orbit shape (states of 2 × {n} entries)"),
                expected: self.shape.len().div_ceil(2 * n) * 2 * n,
                found: self.shape.len(),
            });
        }
        if !self.period.is_finite() {
            return Err(DataError::NoFiniteValues {
                what: "orbit shape period".into(),
            });
        }
        if self.period <= 0.0 {
            return Err(DataError::Empty {
                what: "orbit shape (period ≤ 0)".into(),
            });
        }
        if !(0..self.samples()).any(|k| self.joints(k).is_some()) {
            return Err(DataError::NoFiniteValues {
                what: "orbit shape angles".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let sub_h = draw_centred(
            root,
            surface,
            &self.caption(),
            (w / 2.0, 54.0 + extra),
            w - 40.0,
            15.0,
            false,
        )?;
        let top = 54.0 + extra + sub_h.max(15.0) - 4.0;
        let legend_h = 34.0;
        let area = root.clone().shrink(
            (px(10.0), px(top)),
            (px(w - 20.0) as u32, px(h - top - legend_h) as u32),
        );
        let m = self.samples();
        let positions: Vec<Option<Vec<(f64, f64)>>> = (0..m).map(|k| self.joints(k)).collect();
        let (ax, ay) = self.equal_aspect_axes(&area, surface, &positions)?;
        let mut chart = self
            .builder(&area, surface)
            .build_cartesian_2d(ax.clone(), ay.clone())?;
        let x_fmt = |v: &f64| ax.label(*v);
        let y_fmt = |v: &f64| ay.label(*v);
        house_mesh(&mut chart, surface.stroke(1.0), scale, (15.0, 17.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc("x / m")
            .y_desc("y / m")
            .draw()?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        let to_frame = |p: &(f64, f64)| {
            let (x, y) = plot.map_coordinate(p);
            (x - ox, y - oy)
        };
        let n = self.links();
        // Each joint's path, closed (positions are periodic even when angles turn by 2π).
        for j in 1..=n {
            let colour = series_color(j - 1);
            let ok = |k: usize| positions[k % m].is_some();
            let closed = m + usize::from(m > 1 && ok(0) && ok(m - 1));
            for run in runs(closed, ok) {
                let pixels: Vec<(i32, i32)> = run
                    .map(|k| to_frame(&positions[k % m].as_ref().unwrap()[j]))
                    .collect();
                line(&frame, pixels, colour, surface.stroke(2.0), surface)?;
            }
        }
        let chain = |k: usize, colour: RGBColor, width: f64, dot: f64, joints: bool| -> Drawn {
            let Some(p) = &positions[k] else {
                return Ok(());
            };
            let pixels: Vec<(i32, i32)> = p.iter().map(to_frame).collect();
            line(
                &frame,
                pixels.clone(),
                colour,
                surface.stroke(width),
                surface,
            )?;
            for (j, q) in pixels.iter().enumerate().skip(1) {
                let c = if joints { series_color(j - 1) } else { colour };
                frame.draw(&Circle::new(*q, px(dot), c.filled()))?;
                if joints {
                    frame.draw(&Circle::new(
                        *q,
                        px(dot),
                        EDGE.stroke_width(surface.stroke(1.0)),
                    ))?;
                }
            }
            Ok(())
        };
        if m >= 4 {
            for (f, _) in LATER {
                chain(
                    ((f * m as f64).round() as usize).min(m - 1),
                    FAINT,
                    2.0,
                    3.0,
                    false,
                )?;
            }
        }
        chain(0, EDGE, 3.5, 5.0, true)?;
        // The pivot.
        let (cx, cy) = to_frame(&(0.0, 0.0));
        frame.draw(&Rectangle::new(
            [(cx - px(9.0), cy - px(5.0)), (cx + px(9.0), cy)],
            RGBColor(0x44, 0x44, 0x44).filled(),
        ))?;
        let mut entries: Vec<(Vec<RGBColor>, String)> = if n <= 5 {
            (0..n)
                .map(|j| (vec![series_color(j)], format!("joint {}", j + 1)))
                .collect()
        } else {
            vec![(
                (0..n.min(10)).map(series_color).collect(),
                "joint paths, pivot outward".into(),
            )]
        };
        entries.push((vec![EDGE], "chain at t = 0".into()));
        if m >= 4 {
            let times: Vec<&str> = LATER.iter().map(|l| l.1).collect();
            entries.push((vec![FAINT], format!("t = {}", times.join(", "))));
        }
        draw_legend_row(
            root,
            surface,
            &entries,
            (w / 2.0, h - legend_h / 2.0 - 2.0),
            w - 40.0,
            15.0,
        )
    }
}

/// The chain at later times.
const FAINT: RGBColor = RGBColor(0xb8, 0xb8, 0xb8);

impl OrbitShapeFigure<'_> {
    fn builder<'a, 'b, DB: DrawingBackend>(
        &self,
        area: &'a Area<DB>,
        surface: Surface,
    ) -> ChartBuilder<'a, 'b, DB> {
        let mut b = ChartBuilder::on(area);
        b.margin(surface.px(12.0))
            .x_label_area_size(surface.px(56.0))
            .y_label_area_size(surface.px(80.0));
        b
    }

    /// Axes over every drawn position (and the pivot), padded, then widened about their centres
    /// so one metre is as long across as up: the plot area's size is measured by building the
    /// chart once on a unit range.
    fn equal_aspect_axes<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        surface: Surface,
        positions: &[Option<Vec<(f64, f64)>>],
    ) -> Result<(Axis, Axis), DrawError> {
        let (pw, ph) = {
            let probe = self
                .builder(area, surface)
                .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
            probe.plotting_area().dim_in_pixel()
        };
        let all = || positions.iter().flatten().flatten();
        let bounds = |f: fn(&(f64, f64)) -> f64| {
            all()
                .map(f)
                .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)))
        };
        let (x0, x1) = bounds(|p| p.0);
        let (y0, y1) = bounds(|p| p.1);
        let reach: f64 = self.lengths.iter().map(|l| l.abs()).sum::<f64>().max(1e-12);
        let pad = 0.06 * (x1 - x0).max(y1 - y0).max(0.2 * reach);
        let (sx, sy) = (x1 - x0 + 2.0 * pad, y1 - y0 + 2.0 * pad);
        let (pw, ph) = (f64::from(pw.max(1)), f64::from(ph.max(1)));
        let per_px = (sx / pw).max(sy / ph);
        let (hx, hy) = (0.5 * per_px * pw, 0.5 * per_px * ph);
        let (mx, my) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
        let ticks = |len: f64| ((len / surface.scale / 90.0).round() as usize).clamp(3, 10);
        Ok((
            Axis::linear(mx - hx, mx + hx, ticks(pw)),
            Axis::linear(my - hy, my + hy, ticks(ph)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashes_follow_the_length_across_vertices() {
        let pts = [(0.0, 0.0), (10.0, 0.0), (10.0, 14.0)];
        let d = dashes(&pts, 7.0, 5.0);
        // 24 px long: dashes over [0,7], [12,19], [24,24] (the last is empty, dropped).
        assert_eq!(d.len(), 2);
        assert_eq!(d[0], vec![(0.0, 0.0), (7.0, 0.0)]);
        assert_eq!(d[1], vec![(10.0, 2.0), (10.0, 9.0)]);
        // A dash that turns a corner keeps the corner.
        let d = dashes(&[(0.0, 0.0), (3.0, 0.0), (3.0, 10.0)], 7.0, 5.0);
        assert_eq!(d[0], vec![(0.0, 0.0), (3.0, 0.0), (3.0, 4.0)]);
    }
}
