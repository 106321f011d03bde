//! The orbits kind's figure: an orbit diagram (θ₁ at drive phase 0 over the parameter,
//! coloured by λ_max), the shape of a found orbit, or the branches over the continued parameter
//! with their stability and located bifurcations.

use super::run::OrbitsResult;
use super::table::OrbitsRun;
use crate::analysis::periodic::shooting::wrap_angle;
use crate::analysis::periodic::{Branch, OrbitDiagram, PeriodicOrbit};
use crate::model::Chain;
use crate::plot::{
    draw_bifurcation, draw_orbit_diagram, draw_orbit_shape, BifurcationFigure, BifurcationMark,
    BranchCurve, OrbitDiagramFigure, OrbitShapeFigure, PlotError,
};
use std::path::Path;

/// Draws the figure of `r` (a run of `run` on `chain`) titled `title` to `path`.
pub fn draw(
    title: &str,
    chain: &Chain,
    run: &OrbitsRun,
    r: &OrbitsResult,
    path: &Path,
) -> Result<(), PlotError> {
    let title = title.to_string();
    let parameter_label = run.parameter.as_ref().map_or(String::new(), |p| {
        crate::model::axis_label(&p.long_name, &p.units)
    });
    if r.diagram.as_ref().is_some_and(|d| d.parameters.is_empty()) {
        // Interrupted before a value was finished: nothing to draw.
        return Ok(());
    }
    if let Some(d) = &r.diagram {
        return diagram(title, parameter_label, d, path);
    }
    if let Some(c) = &r.curves {
        return super::curve_figure::draw(&title, run, c, path);
    }
    if r.branches.is_empty() {
        let o = r.orbit.as_ref().expect("find keeps its orbit");
        return shape(title, chain, o, path);
    }
    branches(title, parameter_label, chain, r, path)
}

/// The orbit diagram: θ₁ of every sample, [parameter][start × sample].
fn diagram(
    title: String,
    parameter_label: String,
    d: &OrbitDiagram,
    path: &Path,
) -> Result<(), PlotError> {
    let samples: Vec<f64> = d.points.chunks(d.dim).map(|x| x[0]).collect();
    let fig = OrbitDiagramFigure {
        title,
        parameter_label,
        value_label: "θ₁ at drive phase 0 (rad)".into(),
        parameters: &d.parameters,
        samples: &samples,
        per_parameter: d.starts * d.samples,
        lyapunov: &d.lyapunov,
        starts: d.starts,
    };
    draw_orbit_diagram(&fig, path)
}

/// The shape of the orbit `o` found on `chain`.
fn shape(title: String, chain: &Chain, o: &PeriodicOrbit, path: &Path) -> Result<(), PlotError> {
    let lengths: Vec<f64> = chain.params().links.iter().map(|l| l.length).collect();
    let fig = OrbitShapeFigure {
        title,
        lengths: &lengths,
        shape: &o.shape,
        period: o.period,
    };
    draw_orbit_shape(&fig, path)
}

/// One drawn point of a branch: its parameter, orbit and stability.
struct Drawn<'a> {
    parameter: f64,
    orbit: &'a PeriodicOrbit,
    stable: bool,
}

/// The points of `b` as drawn: its continued points with each located bifurcation inserted
/// where it lies, twice (with the stability before and after it), so that the curve passes
/// through the bifurcation's marker and changes style exactly there, however coarse the
/// continuation's steps.
fn drawn_points(b: &Branch) -> Vec<Drawn<'_>> {
    let mut out = Vec::with_capacity(b.points.len() + 2 * b.bifurcations.len());
    for (i, p) in b.points.iter().enumerate() {
        out.push(Drawn {
            parameter: p.parameter,
            orbit: &p.orbit,
            stable: p.orbit.floquet.stability.is_stable(),
        });
        for x in b.bifurcations.iter().filter(|x| x.after == i) {
            for s in [x.from, x.to] {
                out.push(Drawn {
                    parameter: x.parameter,
                    orbit: &x.orbit,
                    stable: s.is_stable(),
                });
            }
        }
    }
    out
}

/// Whether every branch of `r` is one fixed state (the upright pendulum of a Kapitza window:
/// θ₁ = π all along), drawn by its multipliers' real parts instead: |Re μ| ≤ 1 on the unit
/// circle, ±1 at the edges where a pair leaves it.
fn fixed_state(r: &OrbitsResult) -> bool {
    let (lo, hi) = r
        .branches
        .iter()
        .flat_map(|(_, b)| b.points.iter().map(|p| p.orbit.x0[0]))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
    r.drive_period.is_some() && hi - lo < 1e-9
}

/// What a branch curve plots, and how many curves one orbit gives.
#[derive(Clone, Copy)]
enum Plotted {
    /// The j-th smallest Re μ (continuous curves), within ±3; one curve per multiplier.
    Multipliers(usize),
    /// θ₁ at each of the k drive-phase-0 points of a period-k orbit (k curves of one colour).
    Strobe(usize, usize),
    /// An autonomous family's period.
    Period,
}

impl Plotted {
    fn curves(self) -> usize {
        match self {
            Plotted::Multipliers(n) => n,
            Plotted::Strobe(_, k) => k,
            Plotted::Period => 1,
        }
    }

    /// The value of curve `j` for the orbit `o`.
    fn value(self, o: &PeriodicOrbit, j: usize) -> f64 {
        match self {
            Plotted::Multipliers(_) => {
                let mut re: Vec<f64> = o.floquet.multipliers.iter().map(|m| m.re).collect();
                re.sort_by(f64::total_cmp);
                re.get(j)
                    .copied()
                    .filter(|v| v.abs() <= 3.0)
                    .unwrap_or(f64::NAN)
            }
            Plotted::Strobe(dim, k) => {
                if j == 0 {
                    return o.x0[0];
                }
                let rows = o.shape.len() / dim;
                if (rows - 1).is_multiple_of(k) {
                    wrap_angle(o.shape[j * (rows - 1) / k * dim])
                } else {
                    f64::NAN
                }
            }
            Plotted::Period => o.period,
        }
    }
}

/// An angle curve made continuous along the branch (each value within π of the one before, by
/// whole turns): a branch through θ = π (the upright pendulum's, a pitchfork's tilted orbits
/// off it) would otherwise jump between π and −π.
fn unwrap_angles(v: &mut [f64]) {
    let tau = std::f64::consts::TAU;
    for i in 1..v.len() {
        if v[i].is_finite() && v[i - 1].is_finite() {
            v[i] -= ((v[i] - v[i - 1]) / tau).round() * tau;
        }
    }
}

/// The branches of `r` over the continued parameter, with their bifurcations: a bifurcation of
/// a period-k orbit is marked on each of its k curves.
fn branches(
    title: String,
    parameter_label: String,
    chain: &Chain,
    r: &OrbitsResult,
    path: &Path,
) -> Result<(), PlotError> {
    let dim = 2 * chain.links();
    let fixed = fixed_state(r);
    let mut curves = Vec::new();
    let mut marks = Vec::new();
    for (label, b) in &r.branches {
        let plotted = match r.drive_period {
            _ if fixed => Plotted::Multipliers(
                b.points
                    .iter()
                    .map(|p| p.orbit.floquet.multipliers.len())
                    .max()
                    .unwrap_or(0),
            ),
            Some(t) => Plotted::Strobe(
                dim,
                b.points
                    .first()
                    .map_or(1, |p| (p.orbit.period / t).round().max(1.0) as usize),
            ),
            None => Plotted::Period,
        };
        let drawn = drawn_points(b);
        // Both ways of one branch share a colour: the label without its way.
        let base = label.trim_end_matches(" up").trim_end_matches(" down");
        for j in 0..plotted.curves() {
            let mut value: Vec<f64> = drawn.iter().map(|d| plotted.value(d.orbit, j)).collect();
            if matches!(plotted, Plotted::Strobe(..)) {
                unwrap_angles(&mut value);
            }
            curves.push(BranchCurve {
                parameter: drawn.iter().map(|d| d.parameter).collect(),
                value,
                stable: drawn.iter().map(|d| d.stable).collect(),
                label: base.to_string(),
            });
        }
        for x in &b.bifurcations {
            // A fixed state's critical multiplier is marked where its curve meets ±1.
            let values: Vec<f64> = match plotted {
                Plotted::Multipliers(_) => vec![x.multiplier[0]],
                _ => (0..plotted.curves())
                    .map(|j| plotted.value(&x.orbit, j))
                    .collect(),
            };
            marks.extend(values.into_iter().map(|value| BifurcationMark {
                parameter: x.parameter,
                value,
                kind: x.kind.name().to_string(),
            }));
        }
    }
    let value_label = match r.drive_period {
        _ if fixed => "Re μ of each Floquet multiplier (within ±3)",
        Some(_) => "θ₁ at drive phase 0 (rad)",
        None => "period (s)",
    };
    // The located parameters' error bars are far below a pixel: the axis says how far.
    let widest = r
        .branches
        .iter()
        .flat_map(|(_, b)| &b.bifurcations)
        .map(|x| x.error.combined)
        .fold(f64::NAN, f64::max);
    let parameter_label = if widest.is_finite() {
        format!("{parameter_label}; bifurcations located ± ≤ {widest:.1e}")
    } else {
        parameter_label
    };
    let fig = BifurcationFigure {
        title,
        parameter_label,
        value_label: value_label.into(),
        branches: &curves,
        bifurcations: &marks,
    };
    draw_bifurcation(&fig, path)
}
