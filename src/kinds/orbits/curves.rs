//! `action = "curve"`: the located bifurcations of the branch (or of a `continue` file's),
//! each continued in (p₁, p₂) by [`continue_curve`] on the spec's two-parameter family
//! ([`SpecFamily2`]), and the stability chart's shading: the orbit solved on a grid over the
//! parameter box from the nearest curve point's orbit ([`shade`]).

use super::table::{OrbitsAction, OrbitsRun, SpecFamily, Varied};
use crate::analysis::periodic::shooting::wrap_angle;
use crate::analysis::periodic::{
    continue_curve, find, BifurcationKind, Branch, Closure, Curve, CurveOptions, Family, Family2,
    Guess, PeriodicError, Stability,
};
use crate::error::FieldError;
use crate::kinds::RunError;
use crate::model::{Chain, Parameter, ParameterError};
use crate::observe::{Cancel, Observer};
use crate::spec::checked_chain;
use rayon::prelude::*;

/// A located bifurcation a curve may start from: its kind, p₁ and its orbit's start.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub kind: BifurcationKind,
    pub parameter: f64,
    pub x0: Vec<f64>,
}

/// Which located bifurcation a curve started from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurveStart {
    pub kind: BifurcationKind,
    /// Its count (from 1) among the located bifurcations of its kind, along the branch.
    pub index: usize,
    /// p₁ there (p₂ is the spec's).
    pub parameter: f64,
}

/// One continued curve.
#[derive(Debug, Clone)]
pub struct ContinuedCurve {
    pub start: CurveStart,
    /// The curve (both halves joined for `direction = "both"`: the down half reversed with
    /// negative arclength, then the up half from the start).
    pub curve: Curve,
}

/// A selected bifurcation that has no curve, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct NotContinued {
    pub start: CurveStart,
    pub why: String,
}

/// The stability chart's shading: the orbit's stability at `nodes` × `nodes` cell centres over
/// the parameter box, row-major over (p₂, p₁); `None` where it is not known (Newton failed or
/// found another orbit).
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub p1: Vec<f64>,
    pub p2: Vec<f64>,
    pub stability: Vec<Option<Stability>>,
}

/// What a curve run found beside its branch.
#[derive(Debug, Clone)]
pub struct Curves {
    pub curves: Vec<ContinuedCurve>,
    pub not_continued: Vec<NotContinued>,
    pub chart: Option<Chart>,
    /// The `continue` file the bifurcations came from (else the run's own branch).
    pub branch_file: Option<String>,
    /// False when a stop request ended a curve or the shading.
    pub complete: bool,
}

/// The spec's chain with p₂ set, then p₁ through [`SpecFamily`] (which also closes the orbit
/// after k drive periods of the chain so set).
pub struct SpecFamily2<'a> {
    pub run: &'a OrbitsRun,
    pub chain: &'a Chain,
    pub p2: Parameter,
}

impl Family2 for SpecFamily2<'_> {
    type Sys = Chain;
    fn at(&self, p: [f64; 2]) -> Result<(Chain, Closure), PeriodicError> {
        let bad = |m: String| PeriodicError::invalid("orbits.parameter2", m);
        let set = match self.p2.set(self.chain, p[1]) {
            Err(ParameterError::Model(e)) => Err(e),
            Err(other) => return Err(bad(other.to_string())),
            Ok(c) => Ok(c),
        };
        let chain =
            checked_chain(set, self.run.preset).map_err(|e| bad(format!("at {}: {e}", p[1])))?;
        SpecFamily {
            run: self.run,
            chain: &chain,
            energy: 0.0,
        }
        .at(p[0])
    }
}

/// The located bifurcations of `branches` along p₁ (every branch's, ordered by p₁; one located
/// twice, by both ways from the start, counts once).
pub fn located_on(branches: &[(String, Branch)]) -> Vec<Located> {
    along(
        branches
            .iter()
            .flat_map(|(_, b)| &b.bifurcations)
            .map(|x| Located {
                kind: x.kind,
                parameter: x.parameter,
                x0: x.orbit.x0.clone(),
            })
            .collect(),
    )
}

/// `all` in order along p₁, each bifurcation once.
fn along(mut all: Vec<Located>) -> Vec<Located> {
    all.sort_by(|a, b| a.parameter.total_cmp(&b.parameter));
    all.dedup_by(|b, a| {
        a.kind == b.kind && (a.parameter - b.parameter).abs() <= 1e-9 * a.parameter.abs().max(1.0)
    });
    all
}

/// The curves of `located`'s selected bifurcations, one after another (each is parallel
/// inside; in sequence the file is the same for any number of threads), and the chart.
pub fn curves(
    run: &OrbitsRun,
    chain: &Chain,
    located: &[Located],
    branch_file: Option<String>,
    obs: &mut dyn Observer,
) -> Result<Curves, RunError> {
    let c = run.curve.as_ref().expect("a curve run has its settings");
    let Varied::Model(p2) = c.parameter2.varied else {
        unreachable!("validation refuses the energy as p₂")
    };
    let family = SpecFamily2 { run, chain, p2 };
    let mut out = Curves {
        curves: vec![],
        not_continued: vec![],
        chart: None,
        branch_file,
        complete: true,
    };
    let mut counts = [0usize; 5];
    for loc in located {
        let count = &mut counts[loc.kind as usize];
        *count += 1;
        let start = CurveStart {
            kind: loc.kind,
            index: *count,
            parameter: loc.parameter,
        };
        if !c.selection.selects(loc.kind, start.index) {
            continue;
        }
        if loc.kind == BifurcationKind::KreinCollision {
            out.not_continued.push(NotContinued {
                start,
                why: "a Krein collision of a conservative orbit has no curve here (folds, branch points, period doublings and Neimark–Sacker points have)".to_string(),
            });
            continue;
        }
        if let Some(k) = already_on(&out.curves, loc.kind, [loc.parameter, c.start2]) {
            out.not_continued.push(NotContinued {
                start,
                why: format!(
                    "it lies on curve {k} already (a damped tongue's two edges are one curve)"
                ),
            });
            continue;
        }
        match one_curve(&family, loc, c, &run.shooting, obs) {
            Ok(curve) => {
                let stopped = curve.ended.contains("interrupted");
                out.curves.push(ContinuedCurve { start, curve });
                if stopped {
                    out.complete = false;
                    return Ok(out);
                }
            }
            Err(PeriodicError::Interrupted) => {
                out.complete = false;
                return Ok(out);
            }
            Err(e @ PeriodicError::Invalid(_)) => {
                return Err(RunError::Input(super::fields::renamed(
                    &e,
                    &[("range2", "orbits.range2"), ("range", "orbits.range")],
                )))
            }
            Err(e) => out.not_continued.push(NotContinued {
                start,
                why: format!("its first point did not converge: {e}"),
            }),
        }
    }
    if out.curves.is_empty() && out.not_continued.is_empty() {
        let found: Vec<String> = located
            .iter()
            .map(|l| format!("{} at {}", l.kind.name(), l.parameter))
            .collect();
        return Err(RunError::Input(FieldError::new(
            "orbits.bifurcation",
            format!(
                "`{}` selects none of the branch's located bifurcations ({})",
                c.selection.name(),
                if found.is_empty() {
                    "none within the range".to_string()
                } else {
                    found.join(", ")
                }
            ),
        )));
    }
    if c.chart_grid > 0 && !out.curves.is_empty() {
        let seeds: Vec<Seed> = out
            .curves
            .iter()
            .flat_map(|k| &k.curve.points)
            .map(|p| Seed {
                at: p.parameters,
                x0: &p.orbit.x0,
                period: p.orbit.period,
            })
            .collect();
        let n = chain.links();
        out.chart = shade(
            &family,
            &seeds,
            &c.options,
            c.chart_grid,
            n,
            run,
            &obs.cancel(),
        );
        out.complete &= out.chart.is_some();
    }
    Ok(out)
}

/// The curve (from 1) of the same kind that already passes through `p`: one of its segments
/// crosses p₂ = p[1] with p[0] inside its p₁ span (widened by a tenth of it, for the chord's
/// sag). A damped tongue's boundary, continued from one edge, crosses the start's p₂ again at
/// the other edge's located point.
fn already_on(curves: &[ContinuedCurve], kind: BifurcationKind, p: [f64; 2]) -> Option<usize> {
    curves
        .iter()
        .position(|k| {
            k.start.kind == kind
                && k.curve.points.windows(2).any(|w| {
                    let (a, b) = (w[0].parameters, w[1].parameters);
                    let crosses = (a[1] - p[1]) * (b[1] - p[1]) <= 0.0 && a[1] != b[1];
                    let (lo, hi) = (a[0].min(b[0]), a[0].max(b[0]));
                    let pad = 0.1 * (hi - lo);
                    crosses && (lo - pad..=hi + pad).contains(&p[0])
                })
        })
        .map(|i| i + 1)
}

/// One curve from `loc`, up, down or both ways along p₂ (joined into one curve).
fn one_curve(
    family: &SpecFamily2<'_>,
    loc: &Located,
    c: &super::curve_spec::CurveRun,
    shooting: &crate::analysis::periodic::ShootingOptions,
    obs: &mut dyn Observer,
) -> Result<Curve, PeriodicError> {
    use super::curve_spec::CurveDirection;
    let p0 = [loc.parameter, c.start2];
    let mut half = |increasing: bool| {
        let opts = CurveOptions {
            increasing,
            ..c.options
        };
        continue_curve(family, loc.kind, &loc.x0, p0, shooting, &opts, obs)
    };
    match c.direction {
        CurveDirection::Up => half(true),
        CurveDirection::Down => half(false),
        CurveDirection::Both => {
            let up = half(true)?;
            if up.ended == "interrupted" {
                return Ok(up);
            }
            let down = half(false)?;
            Ok(joined(down, up))
        }
    }
}

/// The down half reversed (its arclength negated, its start dropped: the up half's, the same
/// corrected point), then the up half; their codimension-2 points likewise.
pub fn joined(down: Curve, up: Curve) -> Curve {
    let mut points: Vec<_> = down
        .points
        .into_iter()
        .skip(1)
        .rev()
        .map(|mut p| {
            p.arclength = -p.arclength;
            p
        })
        .collect();
    points.extend(up.points);
    let ended = if down.ended == up.ended {
        up.ended
    } else {
        format!("down: {}; up: {}", down.ended, up.ended)
    };
    let mut codim2: Vec<_> = down
        .codim2
        .into_iter()
        .rev()
        .map(|mut c| {
            c.arclength = -c.arclength;
            c
        })
        .collect();
    codim2.extend(up.codim2);
    Curve {
        kind: up.kind,
        points,
        codim2,
        ended,
    }
}

/// A curve point's orbit, as a seed of the chart's Newton.
struct Seed<'a> {
    at: [f64; 2],
    x0: &'a [f64],
    period: f64,
}

/// How far (max norm over the state, angles modulo 2π; rad and rad/s) the orbit Newton finds
/// at a chart node may lie from its seed and still be the continued orbit: beyond it, Newton
/// jumped to another orbit and the node stays blank.
pub const CHART_JUMP: f64 = 0.2;

/// The stability at the cell centres of a `grid` × `grid` chart over `box_`: each node's
/// orbit solved by single shooting from the nearest seed (in box-scaled distance), verified by
/// [`find`] and kept if it lies within [`CHART_JUMP`] of the seed. Parallel over the nodes;
/// `None` when a stop was asked for.
fn shade(
    family: &SpecFamily2<'_>,
    seeds: &[Seed<'_>],
    box_: &CurveOptions,
    grid: usize,
    links: usize,
    run: &OrbitsRun,
    cancel: &Cancel,
) -> Option<Chart> {
    let axis = |k: usize| -> Vec<f64> {
        let w = (box_.max[k] - box_.min[k]) / grid as f64;
        (0..grid)
            .map(|i| box_.min[k] + (i as f64 + 0.5) * w)
            .collect()
    };
    let (p1, p2) = (axis(0), axis(1));
    let span = [box_.max[0] - box_.min[0], box_.max[1] - box_.min[1]];
    let shooting = crate::analysis::periodic::ShootingOptions {
        segments: 1,
        ..run.shooting
    };
    let stability: Vec<Option<Stability>> = (0..grid * grid)
        .into_par_iter()
        .map(|node| {
            if cancel.is_set() {
                return None;
            }
            let at = [p1[node % grid], p2[node / grid]];
            let d = |s: &Seed| {
                let dx = (s.at[0] - at[0]) / span[0];
                let dy = (s.at[1] - at[1]) / span[1];
                dx * dx + dy * dy
            };
            let seed = seeds.iter().min_by(|a, b| d(a).total_cmp(&d(b)))?;
            let (sys, closure) = family.at(at).ok()?;
            let guess = Guess {
                x0: seed.x0.to_vec(),
                period: seed.period,
            };
            let orbit = find(&sys, &guess, closure, &shooting, cancel).ok()?;
            let jump = orbit
                .x0
                .iter()
                .zip(seed.x0)
                .enumerate()
                .map(|(i, (a, b))| {
                    if i < links {
                        wrap_angle(a - b).abs()
                    } else {
                        (a - b).abs()
                    }
                })
                .fold(0.0, f64::max);
            (jump <= CHART_JUMP).then_some(orbit.floquet.stability)
        })
        .collect();
    if cancel.is_set() {
        return None;
    }
    Some(Chart { p1, p2, stability })
}

/// The located bifurcations of the orbits `continue` file `file`, whose recorded spec must be
/// of this spec's model and vary the same p₁ (a branch of another chain or parameter starts no
/// curve of this one).
pub fn located_in_file(
    chain: &Chain,
    run: &OrbitsRun,
    file: &str,
) -> Result<Vec<Located>, RunError> {
    let field = "orbits.branch_file";
    let bad = |m: String| RunError::Input(FieldError::new(field, format!("{file}: {m}")));
    let f = crate::store::open_input(std::path::Path::new(file))
        .map_err(|e| RunError::Input(e.refusal(field)))?;
    let text = f
        .attr("spec")
        .and_then(|a| a.read_scalar::<hdf5::types::VarLenUnicode>())
        .map(|v| v.as_str().to_string())
        .unwrap_or_default();
    if text.is_empty() {
        return Err(bad("records no spec to check its model against".into()));
    }
    let spec = crate::spec::parse(&text, file)
        .and_then(|f| f.validate())
        .map_err(|e| bad(format!("its recorded spec: {e}")))?;
    let kind = spec.analysis.kind().name;
    let Some(theirs) = spec.analysis.as_any().downcast_ref::<OrbitsRun>() else {
        return Err(bad(format!(
            "a {kind} file, not an orbits continue file (its located bifurcations)"
        )));
    };
    if theirs.action != OrbitsAction::Continue {
        return Err(bad(format!(
            "an orbits {} file; the bifurcations come from an orbits continue file",
            theirs.action.name()
        )));
    }
    if spec.model.planar().map(|c| c.params()) != Some(chain.params()) {
        return Err(bad(
            "its branch was computed for another model; give this spec the file's [model]".into(),
        ));
    }
    let (theirs_p, ours_p) = (
        theirs.parameter.as_ref().map(|p| p.name.as_str()),
        run.parameter.as_ref().map(|p| p.name.as_str()),
    );
    if theirs_p != ours_p {
        return Err(bad(format!(
            "its branch varied {}, this run's parameter is {}",
            theirs_p.unwrap_or("nothing"),
            ours_p.unwrap_or("nothing")
        )));
    }
    let Ok(g) = f.group("orbits/bifurcations") else {
        return Ok(Vec::new());
    };
    let read = || -> hdf5::Result<(Vec<u8>, Vec<f64>, ndarray::Array2<f64>)> {
        Ok((
            g.dataset("kind")?.read_raw()?,
            g.dataset("parameter")?.read_raw()?,
            g.dataset("initial_state")?.read_2d()?,
        ))
    };
    let (kinds, params, x0) = read().map_err(|e| bad(format!("its bifurcations: {e}")))?;
    let dim = 2 * chain.links();
    if params.len() != kinds.len() || x0.nrows() != kinds.len() || x0.ncols() != dim {
        return Err(bad("its bifurcation table's columns disagree".into()));
    }
    let all = [
        BifurcationKind::Fold,
        BifurcationKind::BranchPoint,
        BifurcationKind::PeriodDoubling,
        BifurcationKind::NeimarkSacker,
        BifurcationKind::KreinCollision,
    ];
    let mut out = Vec::with_capacity(kinds.len());
    for (i, &k) in kinds.iter().enumerate() {
        let kind = *all
            .get(k as usize)
            .ok_or_else(|| bad(format!("bifurcation kind code {k} is unknown")))?;
        out.push(Located {
            kind,
            parameter: params[i],
            x0: x0.row(i).to_vec(),
        });
    }
    Ok(along(out))
}
