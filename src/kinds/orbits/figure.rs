//! The orbits kind's figure: an orbit diagram (θ₁ at drive phase 0 over the parameter,
//! coloured by λ_max), the shape of a found orbit, or the branches over the continued parameter
//! with their stability and located bifurcations.

use super::run::OrbitsResult;
use super::table::OrbitsRun;
use crate::analysis::periodic::shooting::wrap_angle;
use crate::analysis::periodic::{OrbitDiagram, PeriodicOrbit};
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

/// The branches of `r` over the continued parameter, with their bifurcations.
fn branches(
    title: String,
    parameter_label: String,
    chain: &Chain,
    r: &OrbitsResult,
    path: &Path,
) -> Result<(), PlotError> {
    // A driven orbit is drawn by θ₁ at each of its k drive-phase-0 points (a period-k orbit
    // is k curves of one colour); an autonomous family by its period.
    let dim = 2 * chain.links();
    let strobe = |o: &PeriodicOrbit, j: usize, k: usize| -> f64 {
        if j == 0 {
            return o.x0[0];
        }
        let rows = o.shape.len() / dim;
        let i = j * (rows - 1) / k;
        if (rows - 1).is_multiple_of(k) {
            wrap_angle(o.shape[i * dim])
        } else {
            f64::NAN
        }
    };
    // A branch of fixed points (the upright pendulum of a Kapitza window: θ₁ = π all along)
    // is drawn by its multipliers' real parts instead: |Re μ| ≤ 1 on the unit circle, ±1 at
    // the edges where a pair leaves it.
    let fixed = r.drive_period.is_some() && {
        let firsts: Vec<f64> = r
            .branches
            .iter()
            .flat_map(|(_, b)| b.points.iter().map(|p| p.orbit.x0[0]))
            .collect();
        let (lo, hi) = firsts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        hi - lo < 1e-9
    };
    let mut curves = Vec::new();
    let mut marks = Vec::new();
    for (label, b) in &r.branches {
        let multipliers = b
            .points
            .iter()
            .map(|p| p.orbit.floquet.multipliers.len())
            .max()
            .unwrap_or(0);
        let k = match r.drive_period {
            _ if fixed => multipliers,
            Some(t) => b
                .points
                .first()
                .map_or(1, |p| (p.orbit.period / t).round().max(1.0) as usize),
            _ => 1,
        };
        let value = |o: &PeriodicOrbit, j: usize| match r.drive_period {
            _ if fixed => {
                // The j-th smallest Re μ, so that each curve is continuous; within ±3.
                let mut re: Vec<f64> = o.floquet.multipliers.iter().map(|m| m.re).collect();
                re.sort_by(f64::total_cmp);
                re.get(j)
                    .copied()
                    .filter(|v| v.abs() <= 3.0)
                    .unwrap_or(f64::NAN)
            }
            Some(_) => strobe(o, j, k),
            None => o.period,
        };
        // Both ways of one branch share a colour: the label without its way.
        let base = label.trim_end_matches(" up").trim_end_matches(" down");
        for j in 0..k {
            curves.push(BranchCurve {
                parameter: b.points.iter().map(|p| p.parameter).collect(),
                value: b.points.iter().map(|p| value(&p.orbit, j)).collect(),
                stable: b
                    .points
                    .iter()
                    .map(|p| p.orbit.floquet.stability.is_stable())
                    .collect(),
                label: base.to_string(),
            });
        }
        for x in &b.bifurcations {
            marks.push(BifurcationMark {
                parameter: x.parameter,
                value: if fixed {
                    x.multiplier[0]
                } else {
                    value(&x.orbit, 0)
                },
                kind: x.kind.name().to_string(),
            });
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
