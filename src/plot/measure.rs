//! Figures of `pendula measure`: log–log box counts N(s) with the fitted power law (D and its
//! 95 % interval in the legend) beside the uncertain fraction f(ε) with its fit (α, D = 2 − α);
//! for `--what basin-entropy` S_b and S_bb against ε with the ln 2 line, for `--what wada`
//! W(r). One colour per label set (e.g. one per flip-time threshold).

use super::{
    begin_figure, draw_polyline, frame_pixels, save, series_color, Area, Axis, DataError, Drawn,
    Legend, LegendEntry, Marker, PlotError, Render, Surface,
};
use crate::analysis::measure::chaotic::ShellFraction;
use crate::analysis::measure::MeasuredSet;
use plotters::prelude::*;
use std::path::Path;

/// One set's points in a panel, with an optional fitted line and error bars.
#[derive(Debug, Clone)]
struct Curve {
    label: String,
    colour: RGBColor,
    points: Vec<(f64, f64)>,
    bars: Vec<(f64, f64, f64)>,
    line: Vec<(f64, f64)>,
}

#[derive(Debug, Clone)]
struct Panel {
    x_label: String,
    y_label: String,
    log: (bool, bool),
    curves: Vec<Curve>,
    /// A horizontal reference line and its legend label (ln 2 for S_bb).
    reference: Option<(f64, String)>,
}

/// The figure of one `pendula measure` run.
#[derive(Debug, Clone)]
pub struct MeasureFigure {
    title: String,
    panels: Vec<Panel>,
}

fn ci(v: f64, (lo, hi): (f64, f64)) -> String {
    format!("{v:.3} [{lo:.3}, {hi:.3}]")
}

impl MeasureFigure {
    /// The panels of what the sets hold: box counts and f(ε) when either was measured, else
    /// basin entropy, else the Wada fractions. `names` label each set in the legends.
    pub fn new(title: &str, sets: &[MeasuredSet], names: &[String]) -> MeasureFigure {
        let name = |i: usize| {
            names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("set {}", i + 1))
        };
        let mut panels: Vec<Panel> = [box_panel(sets, &name), uncertainty_panel(sets, &name)]
            .into_iter()
            .flatten()
            .collect();
        if panels.is_empty() {
            panels.extend(entropy_panel(sets, &name));
        }
        if panels.is_empty() {
            panels.extend(wada_panel(sets, &name));
        }
        MeasureFigure {
            title: title.to_string(),
            panels,
        }
    }
}

/// Box counts N(s) against the box side with the fitted power law, one curve per set that
/// measured its boundary dimension (log-log, where the fit is a line).
fn box_panel(sets: &[MeasuredSet], name: &dyn Fn(usize) -> String) -> Option<Panel> {
    let boxes: Vec<Curve> = sets
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let b = s.measures.boundary.as_ref()?;
            let x: Vec<f64> = b.sizes.iter().map(|&v| v as f64).collect();
            Some(Curve {
                label: format!("{}: D = {}", name(i), ci(b.dimension, b.ci)),
                colour: series_color(i),
                points: x.iter().copied().zip(b.counts.iter().copied()).collect(),
                bars: vec![],
                line: x
                    .iter()
                    .map(|&s| (s, (b.fit.intercept - b.fit.slope * s.ln()).exp()))
                    .collect(),
            })
        })
        .collect();
    (!boxes.is_empty()).then(|| Panel {
        x_label: "box side s / px".into(),
        y_label: "boundary boxes N(s)".into(),
        log: (true, true),
        curves: boxes,
        reference: None,
    })
}

/// The uncertain fraction f(ε) with its fitted power law, one curve per set that measured
/// the uncertainty exponent (log-log).
fn uncertainty_panel(sets: &[MeasuredSet], name: &dyn Fn(usize) -> String) -> Option<Panel> {
    let unc: Vec<Curve> = sets
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let u = s.measures.uncertainty.as_ref()?;
            let x: Vec<f64> = u.eps.iter().map(|&v| v as f64).collect();
            Some(Curve {
                label: format!(
                    "{}: α = {}, 2 − α = {:.3}",
                    name(i),
                    ci(u.alpha, u.ci),
                    u.dimension
                ),
                colour: series_color(i),
                points: x.iter().copied().zip(u.fraction.iter().copied()).collect(),
                bars: vec![],
                line: x
                    .iter()
                    .map(|&e| (e, (u.fit.intercept + u.fit.slope * e.ln()).exp()))
                    .collect(),
            })
        })
        .collect();
    (!unc.is_empty()).then(|| Panel {
        x_label: "ε / px".into(),
        y_label: "uncertain fraction f(ε)".into(),
        log: (true, true),
        curves: unc,
        reference: None,
    })
}

/// Basin entropies against the box side: S_bb as dots with 95 % bars, S_b as the line, and
/// ln 2 (S_bb above it proves fractal boundaries) as the reference.
fn entropy_panel(sets: &[MeasuredSet], name: &dyn Fn(usize) -> String) -> Option<Panel> {
    let ent: Vec<Curve> = sets
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.measures.entropy.is_empty())
        .map(|(i, s)| {
            let e = &s.measures.entropy;
            let last = e.last().expect("not empty");
            Curve {
                label: format!(
                    "{}: S_bb(ε = {}) = {}",
                    name(i),
                    last.eps,
                    ci(last.sbb, last.sbb_ci)
                ),
                colour: series_color(i),
                points: e.iter().map(|v| (v.eps as f64, v.sbb)).collect(),
                bars: e
                    .iter()
                    .map(|v| (v.eps as f64, v.sbb_ci.0, v.sbb_ci.1))
                    .collect(),
                line: e.iter().map(|v| (v.eps as f64, v.sb)).collect(),
            }
        })
        .collect();
    (!ent.is_empty()).then(|| Panel {
        x_label: "box side ε / px   (dots: S_bb with 95 % bars; line: S_b)".into(),
        y_label: "entropy / nat".into(),
        log: (false, false),
        curves: ent,
        reference: Some((std::f64::consts::LN_2, "ln 2".into())),
    })
}

/// The Wada fraction W(r) against the neighbourhood radius, one curve per set that tested
/// the Wada property.
fn wada_panel(sets: &[MeasuredSet], name: &dyn Fn(usize) -> String) -> Option<Panel> {
    let wada: Vec<Curve> = sets
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let w = s.measures.wada.as_ref()?;
            let pts: Vec<(f64, f64)> = w
                .radii
                .iter()
                .map(|&r| r as f64)
                .zip(w.fraction.iter().copied())
                .collect();
            Some(Curve {
                label: format!(
                    "{}: {} labels, {}",
                    name(i),
                    w.labels,
                    if w.wada { "Wada" } else { "not Wada" }
                ),
                colour: series_color(i),
                line: pts.clone(),
                points: pts,
                bars: vec![],
            })
        })
        .collect();
    (!wada.is_empty()).then(|| Panel {
        x_label: "neighbourhood radius r / px".into(),
        y_label: "W(r): boundary points seeing every label".into(),
        log: (true, false),
        curves: wada,
        reference: None,
    })
}

impl MeasureFigure {
    /// The chaotic fraction against the shell energy with its Wilson 95 % bars (`pendula
    /// measure --chaotic-fraction`); a shell with no verdict (fraction NaN) keeps its (0, 1) bar.
    pub fn chaotic_fraction(title: &str, rows: &[ShellFraction]) -> MeasureFigure {
        let points: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.fraction.is_finite())
            .map(|r| (r.energy, r.fraction))
            .collect();
        let decided: usize = rows.iter().map(|r| r.chaotic + r.regular).sum();
        let undecided: usize = rows.iter().map(|r| r.undecided).sum();
        let curve = Curve {
            label: format!(
                "chaotic / (chaotic + regular), 95 % Wilson bars ({decided} decided, {undecided} undecided starts)"
            ),
            colour: series_color(0),
            line: points.clone(),
            points,
            bars: rows.iter().map(|r| (r.energy, r.wilson.0, r.wilson.1)).collect(),
        };
        let mut curves = vec![curve];
        // The shells whose fraction is still moving with the run length, marked again.
        let moving: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.fraction.is_finite() && !r.trend.converged())
            .map(|r| (r.energy, r.fraction))
            .collect();
        if !moving.is_empty() {
            curves.push(Curve {
                label: "not converged: still rising (or falling) over the last doubling of t_end"
                    .into(),
                colour: series_color(3),
                line: Vec::new(),
                points: moving,
                bars: Vec::new(),
            });
        }
        let mut panels = vec![Panel {
            x_label: "shell energy E / J".into(),
            y_label: "chaotic fraction".into(),
            log: (false, false),
            curves,
            reference: None,
        }];
        // The ladder: each shell's fraction against the run length it was judged at.
        let ladder: Vec<Curve> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.ladder.is_empty())
            .map(|(i, r)| {
                let pts: Vec<(f64, f64)> = r
                    .ladder
                    .iter()
                    .filter(|l| l.fraction.is_finite() && l.time > 0.0)
                    .map(|l| (l.time, l.fraction))
                    .collect();
                Curve {
                    label: format!("E = {} J: {}", r.energy, r.trend.words()),
                    colour: series_color(i),
                    line: pts.clone(),
                    points: pts,
                    bars: r
                        .ladder
                        .iter()
                        .filter(|l| l.time > 0.0)
                        .map(|l| (l.time, l.wilson.0, l.wilson.1))
                        .collect(),
                }
            })
            .collect();
        if !ladder.is_empty() {
            panels.push(Panel {
                x_label: "run length t / s (the same runs, cut)".into(),
                y_label: "chaotic fraction (95 % Wilson)".into(),
                log: (true, false),
                curves: ladder,
                reference: None,
            });
        }
        MeasureFigure {
            title: title.to_string(),
            panels,
        }
    }
}

impl MeasureFigure {
    /// A measure sweep: each measure against the swept parameter with its 95 % bars, one
    /// curve per label set (S_b, S_bb: per set and box side ε), a panel per measure measured.
    pub fn sweep(
        title: &str,
        parameter: &str,
        units: &str,
        values: &[f64],
        points: &[Vec<MeasuredSet>],
        names: &[String],
    ) -> MeasureFigure {
        let x_label = format!("{parameter} / {units}");
        let name = |j: usize| {
            names
                .get(j)
                .cloned()
                .unwrap_or_else(|| format!("set {}", j + 1))
        };
        let curves = SweepCurves {
            values,
            points,
            sets: points.first().map_or(0, Vec::len),
            name: &name,
            eps: points
                .first()
                .and_then(|p| p.first())
                .map(|s| s.measures.entropy.iter().map(|e| e.eps).collect())
                .unwrap_or_default(),
        };
        let panel = |y_label: &str, curves: Vec<Curve>, reference: Option<(f64, String)>| {
            (!curves.is_empty()).then(|| Panel {
                x_label: x_label.clone(),
                y_label: y_label.into(),
                log: (false, false),
                curves,
                reference,
            })
        };
        let panels = [
            panel(
                "box-counting dimension D (95 %)",
                curves.per_set(&|s| {
                    s.measures
                        .boundary
                        .as_ref()
                        .map(|b| (b.dimension, b.ci.0, b.ci.1))
                }),
                None,
            ),
            panel(
                "uncertainty exponent α (95 %)",
                curves.per_set(&|s| {
                    s.measures
                        .uncertainty
                        .as_ref()
                        .map(|u| (u.alpha, u.ci.0, u.ci.1))
                }),
                None,
            ),
            panel("basin entropy S_b (95 %)", curves.entropy(false), None),
            panel(
                "boundary basin entropy S_bb (95 %)",
                curves.entropy(true),
                Some((std::f64::consts::LN_2, "ln 2".into())),
            ),
            panel(
                "Wada fraction W(r) at the largest r",
                curves.per_set(&|s| {
                    s.measures
                        .wada
                        .as_ref()
                        .and_then(|w| w.fraction.last())
                        .map(|&f| (f, f64::NAN, f64::NAN))
                }),
                None,
            ),
        ];
        MeasureFigure {
            title: title.to_string(),
            panels: panels.into_iter().flatten().collect(),
        }
    }

    /// No measure of the figure has a curve (drawing it is refused).
    pub fn is_empty(&self) -> bool {
        self.panels.is_empty()
    }
}

/// A point (x, y) with its optional (lower, upper) bar.
pub type BarPoint = (f64, f64, Option<(f64, f64)>);

/// One curve of a figure built by [`MeasureFigure::of_panels`]: points (x, y) with their
/// optional (lower, upper) bar; `joined` draws the line through them.
#[derive(Debug, Clone)]
pub struct SeriesSpec {
    pub label: String,
    pub points: Vec<BarPoint>,
    pub joined: bool,
}

/// One panel of [`MeasureFigure::of_panels`].
#[derive(Debug, Clone)]
pub struct PanelSpec {
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<SeriesSpec>,
}

impl MeasureFigure {
    /// A figure of quantities against a parameter (a sweep's results) drawn as the measure
    /// sweep's are: a panel each, points with bars, a legend per panel. Series without a
    /// finite point and panels without a series are dropped.
    pub fn of_panels(title: &str, panels: Vec<PanelSpec>) -> MeasureFigure {
        let panels = panels
            .into_iter()
            .map(|p| Panel {
                x_label: p.x_label,
                y_label: p.y_label,
                log: (false, false),
                reference: None,
                curves: p
                    .series
                    .into_iter()
                    .enumerate()
                    .filter_map(|(j, c)| {
                        let points: Vec<(f64, f64)> = c
                            .points
                            .iter()
                            .filter(|q| q.0.is_finite() && q.1.is_finite())
                            .map(|q| (q.0, q.1))
                            .collect();
                        let bars = c
                            .points
                            .iter()
                            .filter_map(|q| q.2.map(|(lo, hi)| (q.0, lo, hi)))
                            .filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite())
                            .collect();
                        (!points.is_empty()).then(|| Curve {
                            label: c.label,
                            colour: series_color(j),
                            line: if c.joined { points.clone() } else { Vec::new() },
                            points,
                            bars,
                        })
                    })
                    .collect(),
            })
            .filter(|p: &Panel| !p.curves.is_empty())
            .collect();
        MeasureFigure {
            title: title.to_string(),
            panels,
        }
    }
}

/// One measure of a label set: (value, lower, upper) of its 95 % interval, if measured.
type Get<'a> = &'a dyn Fn(&MeasuredSet) -> Option<(f64, f64, f64)>;

/// The curves of a measure sweep: one point per swept value, one curve per label set (and per
/// box side ε for the entropies, which are measured at several).
struct SweepCurves<'a> {
    values: &'a [f64],
    points: &'a [Vec<MeasuredSet>],
    sets: usize,
    name: &'a dyn Fn(usize) -> String,
    /// The box sides of the first set's entropies (every point measures the same).
    eps: Vec<usize>,
}

impl SweepCurves<'_> {
    /// Set `j`'s measure `get` across the sweep: finite values as points, finite intervals
    /// as bars; `None` when no point has a value.
    fn curve(&self, label: String, colour: usize, j: usize, get: Get) -> Option<Curve> {
        let mut points_ = Vec::new();
        let mut bars = Vec::new();
        for (i, p) in self.points.iter().enumerate() {
            if let Some((v, lo, hi)) = p.get(j).and_then(get) {
                if v.is_finite() {
                    points_.push((self.values[i], v));
                }
                if lo.is_finite() && hi.is_finite() {
                    bars.push((self.values[i], lo, hi));
                }
            }
        }
        (!points_.is_empty()).then(|| Curve {
            label,
            colour: series_color(colour),
            line: points_.clone(),
            points: points_,
            bars,
        })
    }

    /// One curve per label set, named after it.
    fn per_set(&self, get: Get) -> Vec<Curve> {
        (0..self.sets)
            .filter_map(|j| self.curve((self.name)(j), j, j, get))
            .collect()
    }

    /// S_bb (`sbb`) or S_b: one curve per set and box side ε.
    fn entropy(&self, sbb: bool) -> Vec<Curve> {
        let mut out = Vec::new();
        for j in 0..self.sets {
            for (k, &e) in self.eps.iter().enumerate() {
                let get = move |s: &MeasuredSet| {
                    s.measures.entropy.get(k).map(|b| {
                        if sbb {
                            (b.sbb, b.sbb_ci.0, b.sbb_ci.1)
                        } else {
                            (b.sb, b.sb_ci.0, b.sb_ci.1)
                        }
                    })
                };
                let label = if self.sets > 1 {
                    format!("{}, ε = {e} px", (self.name)(j))
                } else {
                    format!("ε = {e} px")
                };
                out.extend(self.curve(label, j * self.eps.len() + k, j, &get));
            }
        }
        out
    }
}

/// At most this many panels side by side: a sweep's five measures wrap onto a second row
/// instead of a 3500 px strip whose labels are unreadable at page width.
const MAX_COLUMNS: usize = 3;

/// Panels per row and rows of the figure's grid.
fn grid(panels: usize) -> (usize, usize) {
    let cols = panels.clamp(1, MAX_COLUMNS);
    (cols, panels.max(1).div_ceil(cols))
}

/// Draws the figure (`.png` or `.svg`): 700 × 572 px per panel on a grid of at most three
/// columns, below a 48 px title.
pub fn draw_measure(fig: &MeasureFigure, path: &Path) -> Result<(), PlotError> {
    let (cols, rows) = grid(fig.panels.len());
    save(fig, path, (700 * cols as u32, 48 + 572 * rows as u32))
}

fn axis(values: Vec<f64>, log: bool, what: &str) -> Result<Axis, DataError> {
    Axis::fit(values, log, 0.06, 6, what)
}

impl Render for MeasureFigure {
    fn validate(&self) -> Result<(), DataError> {
        if self.panels.is_empty() {
            return Err(DataError::Empty {
                what: "measure figure (no measure with a curve)".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let header = begin_figure(root, surface, &self.title, 24.0)?;
        let top = 48.0 + header.extra;
        let (cols, rows) = grid(self.panels.len());
        let cell = header.w / cols as f64;
        let cell_h = (header.h - top) / rows as f64;
        for (k, p) in self.panels.iter().enumerate() {
            let (row, col) = (k / cols, k % cols);
            let area = root.clone().shrink(
                (px(col as f64 * cell + 6.0), px(top + row as f64 * cell_h)),
                (px(cell - 12.0) as u32, px(cell_h - 6.0) as u32),
            );
            // Bars count too: a chaotic-fraction shell without verdicts has a bar, no point.
            let xs: Vec<f64> = p
                .curves
                .iter()
                .flat_map(|c| {
                    c.points
                        .iter()
                        .map(|q| q.0)
                        .chain(c.bars.iter().map(|b| b.0))
                })
                .collect();
            let mut ys: Vec<f64> = p
                .curves
                .iter()
                .flat_map(|c| c.points.iter().chain(&c.line).map(|q| q.1))
                .collect();
            ys.extend(
                p.curves
                    .iter()
                    .flat_map(|c| c.bars.iter().flat_map(|b| [b.1, b.2])),
            );
            if let Some((v, _)) = &p.reference {
                ys.push(*v);
            }
            let xa = axis(xs, p.log.0, &p.x_label)?;
            // Room on top for the legend.
            let ya = axis(ys, p.log.1, &p.y_label)?
                .with_headroom(1.0 + 0.07 * (p.curves.len() + 1) as f64);
            let mut chart = ChartBuilder::on(&area)
                .margin(px(10.0))
                .x_label_area_size(px(50.0))
                .y_label_area_size(px(74.0))
                .build_cartesian_2d(xa.clone(), ya.clone())?;
            let xf = |v: &f64| xa.label(*v);
            let yf = |v: &f64| ya.label(*v);
            super::house_mesh(&mut chart, surface.stroke(1.0), scale, (14.0, 16.0))
                .x_label_formatter(&xf)
                .y_label_formatter(&yf)
                .x_desc(crate::plot::labels::x_desc(p.x_label.as_str()))
                .y_desc(crate::plot::labels::y_desc(p.y_label.as_str()))
                .draw()?;
            let plot = chart.plotting_area();
            let mut entries = Vec::new();
            if let Some((v, label)) = &p.reference {
                let (lo, hi) = xa.bounds();
                draw_polyline(
                    plot,
                    &[(lo, *v), (hi, *v)],
                    RGBColor(0x88, 0x88, 0x88),
                    1.5,
                    surface,
                )?;
                entries.push(LegendEntry {
                    label: label.clone(),
                    color: RGBColor(0x88, 0x88, 0x88),
                    band: false,
                    marker: None,
                });
            }
            let frame = plot.strip_coord_spec();
            let to_frame = frame_pixels(plot);
            let stroke = surface.stroke(1.5);
            for c in &p.curves {
                let ok = |q: &(f64, f64)| xa.accepts(q.0) && ya.accepts(q.1);
                let line: Vec<(f64, f64)> = c.line.iter().copied().filter(ok).collect();
                if line.len() > 1 {
                    draw_polyline(plot, &line, c.colour, 2.0, surface)?;
                }
                for &(x, lo, hi) in &c.bars {
                    if xa.accepts(x) && ya.accepts(lo) && ya.accepts(hi) {
                        let (a, b) = (to_frame(&(x, lo)), to_frame(&(x, hi)));
                        frame.draw(&PathElement::new(vec![a, b], c.colour.stroke_width(stroke)))?;
                    }
                }
                for q in c.points.iter().filter(|q| ok(q)) {
                    Marker::Circle.draw(&frame, to_frame(q), px(4.5), c.colour, stroke)?;
                }
                entries.push(LegendEntry {
                    label: c.label.clone(),
                    color: c.colour,
                    band: false,
                    marker: None,
                });
            }
            let legend = Legend::new(&frame, entries, scale, 13.0)?;
            let (corner, _) = legend.place(frame.dim_in_pixel(), &[]);
            legend.draw(&frame, corner)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::grid;

    #[test]
    fn panels_wrap_after_three_columns() {
        assert_eq!(grid(0), (1, 1));
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(3), (3, 1));
        // A sweep's five measures: two rows of three.
        assert_eq!(grid(5), (3, 2));
        assert_eq!(grid(7), (3, 3));
    }
}
