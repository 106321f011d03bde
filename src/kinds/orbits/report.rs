//! What an orbits run reports: its JSON summary and its text table (the front end adds its wall
//! time and the paths it wrote, and prints one or the other).

use super::table::{OrbitsAction, OrbitsRun};
use super::OrbitsResult;
use crate::analysis::periodic::{
    BifurcationKind, Branch, ErrorParts, NormalForm, OrbitError, PeriodicOrbit, ERROR_METHOD,
};
use serde_json::{json, Value};
use std::fmt::Write;

/// An error's components (null where not estimated).
fn error_json(e: &ErrorParts) -> Value {
    json!({
        "combined": finite(e.combined),
        "location": finite(e.location),
        "newton": finite(e.newton),
        "integrator": finite(e.integrator),
    })
}

fn orbit_json(o: &PeriodicOrbit, err: Option<&OrbitError>) -> Value {
    let f = &o.floquet;
    let mut v = json!({
        "x0": o.x0,
        "period": o.period,
        "energy": o.energy,
        "turns": o.turns,
        "stability": f.stability.name(),
        "multipliers": f.multipliers.iter().map(|m| [m.re, m.im]).collect::<Vec<_>>(),
        "floquet_exponents": f.multipliers.iter().map(|m| m.exponent).collect::<Vec<_>>(),
        "trivial_multipliers": f.trivial.iter().map(|m| [m.re, m.im]).collect::<Vec<_>>(),
        "trivial_tolerance": finite(o.trivial_tolerance),
        "largest_modulus": finite(f.largest_modulus),
        "closure_residual": o.closure_residual,
        "closure_tolerance": o.closure_tolerance,
        "liouville_error": f.liouville_error,
        "reciprocal_error": f.reciprocal_error,
        "newton_residuals": o.residuals,
        "evaluations": o.evaluations,
    });
    if let Some(e) = err {
        v["period_error"] = finite(e.period.combined);
        v["multipliers_error"] = e.multipliers.iter().map(|m| finite(m.combined)).collect();
        v["error"] = json!({
            "period": error_json(&e.period),
            "multipliers": e.multipliers.iter().map(error_json).collect::<Vec<_>>(),
            "period_ladder": e.period_ladder.iter().map(|&p| finite(p)).collect::<Vec<_>>(),
            "ladder_rtol": e.rtol,
        });
    }
    v
}

/// A number, or null where it is NaN (JSON has no NaN).
fn finite(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

fn branch_json(label: &str, b: &Branch) -> Value {
    let first = b.points.first();
    let last = b.points.last();
    json!({
        "label": label,
        "points": b.points.len(),
        "ended": b.ended,
        "parameter_first": first.map(|p| p.parameter),
        "parameter_last": last.map(|p| p.parameter),
        "stable_points": b.points.iter().filter(|p| p.orbit.floquet.stability.is_stable()).count(),
        "closure_residuals": b.points.iter().map(|p| p.orbit.closure_residual).collect::<Vec<_>>(),
        "trivial_multipliers": b.points.iter().map(|p| p.orbit.floquet.trivial.iter().map(|m| [m.re, m.im]).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "bifurcations": b.bifurcations.iter().map(|x| json!({
            "kind": x.kind.name(),
            "parameter": x.parameter,
            "uncertainty": x.uncertainty,
            "parameter_error": finite(x.error.combined),
            "error": error_json(&x.error),
            "parameter_ladder": x.ladder.iter().map(|&p| finite(p)).collect::<Vec<_>>(),
            "ladder_rtol": x.ladder_rtol,
            "multiplier": x.multiplier,
            "period": x.orbit.period,
            "from": x.from.name(),
            "to": x.to.name(),
            "normal_form": x.normal_form,
        })).collect::<Vec<_>>(),
    })
}

/// The located period doublings in branch order, and the ratios of successive intervals
/// between them (against Feigenbaum's δ).
fn doublings(r: &OrbitsResult) -> (Vec<f64>, Vec<f64>) {
    let pds: Vec<f64> = r
        .branches
        .iter()
        .flat_map(|(_, b)| &b.bifurcations)
        .filter(|x| x.kind == BifurcationKind::PeriodDoubling)
        .map(|x| x.parameter)
        .collect();
    let ratios = pds
        .windows(3)
        .map(|w| (w[1] - w[0]) / (w[2] - w[1]))
        .collect();
    (pds, ratios)
}

/// The JSON summary of a run (`links`: the chain's), without the run's fields the front end
/// adds (its kind, title and model, its wall time and the paths it wrote).
pub fn summary(links: usize, run: &OrbitsRun, r: &OrbitsResult) -> Value {
    let mut v = json!({
        "action": r.action.name(),
        "links": links,
        "drive_period": r.drive_period,
        "parameter": run.parameter.as_ref().map(|p| &p.name),
        "parameter_units": run.parameter.as_ref().map(|p| &p.units),
        "seed": r.seed,
        "seed_return_distance": r.return_distance,
        "seed_map_pixel": r.map_pixel.as_ref().map(|m| json!({
            "row": m.row, "col": m.col, "settle_time": m.settle_time, "start": m.start,
        })),
        "complete": r.complete,
        "error_method": ERROR_METHOD,
    });
    if let Some(o) = &r.orbit {
        v["orbit"] = orbit_json(o, r.orbit_error.as_ref());
    }
    if let Some(p) = r.start_parameter {
        v["start_parameter"] = json!(p);
    }
    if !r.branches.is_empty() {
        v["branches"] = r
            .branches
            .iter()
            .map(|(l, b)| branch_json(l, b))
            .collect::<Vec<_>>()
            .into();
        let (pds, ratios) = doublings(r);
        if pds.len() >= 3 {
            v["period_doublings"] = json!(pds);
            v["feigenbaum_ratios"] = json!(ratios);
        }
    }
    if !r.notes.is_empty() {
        v["notes"] = json!(r.notes);
    }
    if let Some(c) = &r.curves {
        v["curve"] = super::curve_report::json(run, c);
    }
    if let Some(d) = &r.diagram {
        v["diagram"] = json!({
            "parameters": d.parameters.len(),
            "starts": d.starts,
            "samples": d.samples,
            "parameter_first": d.parameters.first(),
            "parameter_last": d.parameters.last(),
            "chaotic_values": d.lyapunov.iter().filter(|&&l| l > 0.01).count(),
            "lyapunov_max": d.lyapunov.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        });
    }
    v
}

/// An error bar in a table: `± combined` or `± n/a` where not estimated.
/// "supercritical, c = … ± …, new orbits at A > A*, |x − x*| ≈ K √|A − A*|".
fn normal_form_line(kind: BifurcationKind, nf: &NormalForm) -> String {
    let symbol = match kind {
        BifurcationKind::Fold => "a",
        BifurcationKind::PeriodDoubling => "c",
        _ => "d",
    };
    let crit = nf
        .criticality
        .map_or(String::new(), |c| format!("{}, ", c.name()));
    let side = match nf.side {
        s if s > 0.0 => "above",
        s if s < 0.0 => "below",
        _ => "undetermined",
    };
    format!(
        "{crit}{symbol} = {:.6e} {}, new orbits {side} it, |x − x*| ≈ {:.4e} √|p − p*|",
        nf.coefficient,
        pm(nf.error),
        nf.amplitude
    )
}

fn pm(e: f64) -> String {
    if e.is_finite() {
        format!("± {e:.1e}")
    } else {
        "± n/a".to_string()
    }
}

/// An error's components in a table line (`bisected`: a located point's, with its bisection).
fn parts_line(e: &ErrorParts, bisected: bool) -> String {
    let v = |x: f64| {
        if x.is_finite() {
            format!("{x:.1e}")
        } else {
            "n/a".to_string()
        }
    };
    let newton = format!("Newton {} + integrator {}", v(e.newton), v(e.integrator));
    if bisected {
        format!("bisection {} + {newton}", v(e.location))
    } else {
        newton
    }
}

fn orbit_table(s: &mut String, o: &PeriodicOrbit, err: Option<&OrbitError>) {
    let f = &o.floquet;
    let _ = writeln!(
        s,
        "period {:.12} s   energy {:.12} J   {}",
        o.period,
        o.energy,
        f.stability.name()
    );
    if let Some(e) = err {
        if e.period == ErrorParts::new(0.0, 0.0, 0.0) && o.floquet.trivial.is_empty() {
            let _ = writeln!(s, "period error ± 0 s   (a driven orbit's period is given)");
        } else {
            let _ = writeln!(
                s,
                "period error {} s   ({})",
                pm(e.period.combined),
                parts_line(&e.period, false)
            );
        }
    }
    let _ = writeln!(s, "start  {:?}", o.x0);
    if o.turns.iter().any(|&t| t != 0) {
        let _ = writeln!(s, "turns per period  {:?}", o.turns);
    }
    let _ = writeln!(
        s,
        "  {:>3}  {:>22}  {:>22}  {:>14}  {:>14}  {:>10}",
        "k", "Re μ", "Im μ", "|μ|", "exponent 1/s", "|δμ|"
    );
    for (k, m) in f.multipliers.iter().enumerate() {
        let e = err
            .and_then(|e| e.multipliers.get(k))
            .map_or(f64::NAN, |e| e.combined);
        let _ = writeln!(
            s,
            "  {:>3}  {:>22.14}  {:>22.14}  {:>14.10}  {:>14.6e}  {:>10}",
            k + 1,
            m.re,
            m.im,
            m.modulus,
            m.exponent,
            if e.is_finite() {
                format!("{e:.1e}")
            } else {
                "n/a".to_string()
            }
        );
    }
    if !f.trivial.is_empty() {
        let t: Vec<String> = f
            .trivial
            .iter()
            .map(|m| format!("{:.3e}", (m.complex() - 1.0).norm()))
            .collect();
        let _ = writeln!(
            s,
            "trivial multipliers' distance from 1: {} (verified within {:.1e})",
            t.join(", "),
            o.trivial_tolerance
        );
    }
    let _ = writeln!(
        s,
        "closure of one integration over the period: {:.2e} (verified within {:.1e})",
        o.closure_residual, o.closure_tolerance
    );
    let expected = if f.reciprocal_error.is_some() {
        "1 (a closed Hamiltonian orbit)".to_string()
    } else {
        format!("exp(∫ tr J dt) = {:.14e}", f.liouville)
    };
    let _ = writeln!(
        s,
        "Liouville: det M = {:.14e}, expected {expected}, rel. error {:.2e}",
        f.determinant, f.liouville_error
    );
    if let Some(e) = f.reciprocal_error {
        let _ = writeln!(s, "reciprocal pairs: max |μ μ' − 1| = {e:.2e}");
    }
    let res: Vec<String> = o.residuals.iter().map(|r| format!("{r:.1e}")).collect();
    let _ = writeln!(s, "Newton residuals {}", res.join(", "));
}

/// The text report of a run: the orbit's table, each branch with its bifurcations, the
/// period-doubling ratios and the orbit diagram's extent.
pub fn table(run: &OrbitsRun, r: &OrbitsResult) -> String {
    let mut s = String::new();
    if let Some(d) = r.return_distance {
        let _ = writeln!(
            s,
            "seed: the nearest return of the scanned periods, {d:.3e} away"
        );
    }
    if let Some(o) = &r.orbit {
        let _ = writeln!(s, "periodic orbit");
        orbit_table(&mut s, o, r.orbit_error.as_ref());
    }
    let (name, units) = run
        .parameter
        .as_ref()
        .map_or(("", ""), |p| (p.name.as_str(), p.units.as_str()));
    // A dimensionless parameter (Taylor's γ) has no unit to write.
    let units = match units {
        "1" => String::new(),
        u => format!(" {u}"),
    };
    for (label, b) in &r.branches {
        let (a, z) = (
            b.points.first().map_or(f64::NAN, |p| p.parameter),
            b.points.last().map_or(f64::NAN, |p| p.parameter),
        );
        let _ = writeln!(
            s,
            "branch {label}: {} points, {name} from {a} to {z}{units}, ended: {}",
            b.points.len(),
            b.ended
        );
        for x in &b.bifurcations {
            let _ = writeln!(
                s,
                "  {:<16} {name} = {:.12} {}{units}   μ = {:+.8} {:+.8}i   {} → {}",
                x.kind.name(),
                x.parameter,
                pm(x.error.combined),
                x.multiplier[0],
                x.multiplier[1],
                x.from.name(),
                x.to.name()
            );
            let _ = writeln!(s, "  {:<16} error: {}", "", parts_line(&x.error, true));
            if let Some(nf) = &x.normal_form {
                let _ = writeln!(
                    s,
                    "  {:<16} normal form: {}",
                    "",
                    normal_form_line(x.kind, nf)
                );
            }
        }
    }
    for n in &r.notes {
        let _ = writeln!(s, "{n}");
    }
    let (_, ratios) = doublings(r);
    if !ratios.is_empty() {
        let ratios: Vec<String> = ratios.iter().map(|x| format!("{x:.4}")).collect();
        let _ = writeln!(
            s,
            "ratios of successive period-doubling intervals: {} (Feigenbaum's δ = 4.6692)",
            ratios.join(", ")
        );
    }
    if let Some(d) = &r.diagram {
        let chaotic = d.lyapunov.iter().filter(|&&l| l > 0.01).count();
        let _ = writeln!(
            s,
            "orbit diagram: {} values of {name} from {} to {}{units}, {} start(s), {} samples each; λ_max > 0.01 1/s at {chaotic} of {}",
            d.parameters.len(),
            d.parameters.first().copied().unwrap_or(f64::NAN),
            d.parameters.last().copied().unwrap_or(f64::NAN),
            d.starts,
            d.samples,
            d.lyapunov.len()
        );
    }
    if let Some(c) = &r.curves {
        super::curve_report::table(&mut s, run, c);
    }
    if r.action == OrbitsAction::Continue
        && r.branches.iter().all(|(_, b)| b.bifurcations.is_empty())
    {
        let _ = writeln!(s, "no bifurcation on the branch within the range");
    }
    if r.orbit_error.is_some() || r.branches.iter().any(|(_, b)| !b.bifurcations.is_empty()) {
        let _ = writeln!(s, "error method: {ERROR_METHOD}");
    }
    s
}
