//! Runs the validated analysis and exports its result: HDF5, figure, JSON summary.

use super::progress::Bar;
use super::{CliError, Common, Outputs};
use pendula::analysis::indicators::chain_indicators;
use pendula::analysis::lyapunov::{
    chain_ensemble, chain_spectrum, chain_two_trajectory, Lyapunov, LyapunovError,
};
use pendula::analysis::modes::{self, Equilibrium};
use pendula::analysis::{self, Trajectory};
use pendula::spec::{Analysis, LyapunovEstimator, LyapunovRun, Spec};
use pendula::store::{self, Provenance};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Creates missing parent folders and checks that `path` may be written, before any work.
pub fn prepare_path(path: &Path, force: bool) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() && !parent.exists() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create folder `{}`: {e}", parent.display()))?;
        }
    }
    store::check_output_path(path, force).map_err(|e| e.to_string())
}

pub fn run_analysis(
    spec: &Spec,
    outputs: &Outputs,
    common: &Common,
    command_line: &str,
) -> Result<(), CliError> {
    match &spec.analysis {
        Analysis::Map(_) => super::map::run_map(spec, common, &Default::default(), command_line),
        Analysis::Simulate(opts) => {
            let start = Instant::now();
            let mut bar = Bar::new("simulate");
            let tr = analysis::simulate(&spec.chain, &spec.method, &spec.x0, opts, &mut bar)
                .map_err(|e| CliError::Run(e.to_string()))?;
            let wall = start.elapsed().as_secs_f64();
            let prov = Provenance::now(command_line, &spec.text);
            if let Some(path) = &outputs.file {
                store::write_trajectory(path, common.force, spec, &tr, &prov)
                    .map_err(|e| CliError::Run(e.to_string()))?;
            }
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_trajectory(&tr, &spec.title, path)
                    .map_err(|e| CliError::Run(e.to_string()))?;
            }
            super::animate::draw_figures(spec, &tr)?;
            if common.json {
                println!("{}", simulate_summary(spec, &tr, outputs, wall));
            }
            if !tr.complete {
                return Err(CliError::Run(format!(
                    "interrupted at t = {:.6} s; the samples up to then were written, marked incomplete",
                    tr.t.last().copied().unwrap_or(0.0)
                )));
            }
            Ok(())
        }
        Analysis::Animate(opts) => super::animate::run(spec, opts, outputs, common, command_line),
        Analysis::Lyapunov(run) => run_lyapunov(spec, run, outputs, common, command_line),
        Analysis::Poincare(opts) => super::poincare::run(spec, opts, outputs, common, command_line),
        Analysis::Modes(opts) => {
            let start = Instant::now();
            let result =
                modes::modes(&spec.chain, opts).map_err(|e| CliError::Run(e.to_string()))?;
            let wall = start.elapsed().as_secs_f64();
            let prov = Provenance::now(command_line, &spec.text);
            if let Some(path) = &outputs.file {
                store::write_modes(path, common.force, spec, &result, &prov)
                    .map_err(|e| CliError::Run(e.to_string()))?;
            }
            if let Some(path) = &outputs.plot {
                let hanging = match result.hanging() {
                    Some(h) => h.clone(),
                    None => modes::modes_at(&spec.chain, &Equilibrium::hanging(spec.chain.links()))
                        .map_err(|e| CliError::Run(e.to_string()))?,
                };
                let lengths: Vec<f64> =
                    spec.chain.params().links.iter().map(|l| l.length).collect();
                let check = result
                    .checks
                    .iter()
                    .find(|c| c.expected.len() == lengths.len());
                let fig = pendula::plot::ModesFigure {
                    title: spec.title.clone(),
                    lengths: &lengths,
                    modes: &hanging,
                    check,
                };
                pendula::plot::draw_modes(&fig, path).map_err(|e| CliError::Run(e.to_string()))?;
            }
            if common.json {
                println!("{}", modes_summary(spec, &result, outputs, wall));
            } else {
                print!("{}", modes_table(&result));
            }
            Ok(())
        }
    }
}

fn lyapunov_error(e: LyapunovError) -> CliError {
    match e {
        LyapunovError::Invalid { field, value, why } => {
            CliError::Input(format!("lyapunov.{field}: {why} (got {value})"))
        }
        other => CliError::Run(other.to_string()),
    }
}

/// Writes a new HDF5 file with provenance and a title, then whatever `body` adds; atomically.
fn write_h5(
    path: &Path,
    common: &Common,
    spec: &Spec,
    prov: &Provenance,
    body: impl FnOnce(&store::H5Out) -> Result<(), store::StoreError>,
) -> Result<(), CliError> {
    let run = || -> Result<(), store::StoreError> {
        let out = store::H5Out::create(path, common.force)?;
        out.provenance(prov)?;
        out.root()?.attr_str("title", &spec.title)?;
        body(&out)?;
        out.finish()?;
        Ok(())
    };
    run().map_err(|e| CliError::Run(e.to_string()))
}

fn f64_json(v: f64) -> serde_json::Value {
    if v.is_finite() {
        json!(v)
    } else {
        serde_json::Value::Null
    }
}

fn lyapunov_json(r: &Lyapunov) -> serde_json::Value {
    json!({
        "estimator": format!("{:?}", r.estimator),
        "exponents": r.exponents,
        "standard_error": r.standard_error,
        "sum_exponents": r.sum,
        "sum_standard_error": r.sum_standard_error,
        "pair_sums": r.pair_sums,
        "pair_sums_standard_error": r.pair_sums_standard_error,
        "closest_to_zero": r.closest_to_zero,
        "trace_average": r.volume.map(|v| v.trace_average),
        "dissipation_average": r.volume.and_then(|v| v.dissipation_average),
        "kaplan_yorke_dimension": r.kaplan_yorke,
        "energy_initial": r.energy.initial,
        "energy_end": r.energy.last,
        "abs_energy_drift": r.energy.abs_drift,
        "relative_energy_drift": r.energy.relative_drift,
        "averaged_time": r.averaged_time,
        "transient": r.transient,
        "tau": r.tau,
        "t_end": r.t_end,
        "counts": r.counts,
        "integrator": r.method,
        "complete": r.complete,
        "converged": r.converged,
    })
}

fn run_lyapunov(
    spec: &Spec,
    run: &LyapunovRun,
    outputs: &Outputs,
    common: &Common,
    command_line: &str,
) -> Result<(), CliError> {
    let mut bar = Bar::new("lyapunov");
    let start = Instant::now();
    let chain = &spec.chain;
    let prov = Provenance::now(command_line, &spec.text);
    let mut opts = run.options;
    if run.estimator == LyapunovEstimator::Tangent {
        opts.k = Some(1);
    }
    let (summary, complete) = match (&run.estimator, &run.ensemble) {
        (LyapunovEstimator::Sali(io), _) => {
            let r = chain_indicators(chain, &spec.method, &spec.x0, io, &mut bar)
                .map_err(lyapunov_error)?;
            let wall = start.elapsed().as_secs_f64();
            if let Some(path) = &outputs.file {
                write_h5(path, common, spec, &prov, |out| {
                    let g = out.group("indicators")?;
                    store::write_indicators(&g, &r)?;
                    store::write_method(&g, &r.method)?;
                    g.attr_f64s("initial_state", &spec.x0)?;
                    Ok(())
                })?;
            }
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_indicators(&r, &spec.title, path)
                    .map_err(|e| CliError::Run(e.to_string()))?;
            }
            let j = json!({
                "kind": "lyapunov", "estimator": "sali", "title": spec.title,
                "regularity": r.regularity.name(), "chaos_time": r.chaos_time,
                "min_sali": f64_json(r.min_sali), "min_sali_second_half": f64_json(r.min_sali_second_half),
                "final_sali": r.sali.last().copied().map(f64_json),
                "t_end": r.t_end, "steps": r.steps, "rhs_evaluations": r.rhs_evaluations,
                "complete": r.complete, "wall_s": wall,
            });
            (j, r.complete)
        }
        (_, Some(ens)) => {
            let e = chain_ensemble(chain, &spec.method, &spec.x0, &opts, ens, &mut bar)
                .map_err(lyapunov_error)?;
            let wall = start.elapsed().as_secs_f64();
            if let Some(path) = &outputs.file {
                write_h5(path, common, spec, &prov, |out| {
                    store::write_lyapunov_chain(out, "lyapunov", chain, &spec.x0, &e.members[0])?;
                    let g = out.group("ensemble")?;
                    store::write_ensemble(&g, &e)?;
                    Ok(())
                })?;
            }
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_convergence(&e.members[0], &spec.title, path)
                    .map_err(|e| CliError::Run(e.to_string()))?;
            }
            let j = json!({
                "kind": "lyapunov", "estimator": run.estimator.name(), "title": spec.title,
                "members": e.members.len(), "mean": e.mean, "std": e.std, "standard_error": e.standard_error,
                "member0": lyapunov_json(&e.members[0]), "complete": e.complete, "wall_s": wall,
            });
            (j, e.complete)
        }
        (est, None) => {
            let r = match est {
                LyapunovEstimator::TwoTrajectory(two) => {
                    chain_two_trajectory(chain, &spec.method, &spec.x0, &opts, two, &mut bar)
                }
                _ => chain_spectrum(chain, &spec.method, &spec.x0, &opts, &mut bar),
            }
            .map_err(lyapunov_error)?;
            let wall = start.elapsed().as_secs_f64();
            if let Some(path) = &outputs.file {
                write_h5(path, common, spec, &prov, |out| {
                    store::write_lyapunov_chain(out, "lyapunov", chain, &spec.x0, &r)
                })?;
            }
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_convergence(&r, &spec.title, path)
                    .map_err(|e| CliError::Run(e.to_string()))?;
            }
            let mut j = lyapunov_json(&r);
            j["kind"] = json!("lyapunov");
            j["title"] = json!(spec.title);
            j["wall_s"] = json!(wall);
            (j, r.complete)
        }
    };
    if common.json {
        println!("{summary}");
    } else {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        );
    }
    if !complete {
        return Err(CliError::Run(
            "interrupted: the result so far was written, marked incomplete".into(),
        ));
    }
    Ok(())
}

/// A human-readable report: each equilibrium's modes, the formula checks, the nonlinear checks.
fn modes_table(r: &modes::ModesResult) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for m in &r.equilibria {
        let _ = writeln!(
            s,
            "equilibrium {}  ({} unstable direction{})",
            m.equilibrium.label(),
            m.unstable,
            if m.unstable == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            s,
            "  {:>4}  {:>22}  {:>18}  {:>14}",
            "mode", "ω² / (rad/s)²", "omega / (rad/s)", "period / s"
        );
        for (k, w2) in m.omega2.iter().enumerate() {
            if *w2 >= 0.0 {
                let w = w2.sqrt();
                let _ = writeln!(
                    s,
                    "  {:>4}  {:>22.10}  {:>18.12}  {:>14.10}",
                    k + 1,
                    w2,
                    w,
                    2.0 * std::f64::consts::PI / w
                );
            } else {
                let _ = writeln!(
                    s,
                    "  {:>4}  {:>22.10}  unstable, growth rate {:.12} 1/s",
                    k + 1,
                    w2,
                    (-w2).sqrt()
                );
            }
        }
        for d in &m.damped {
            let _ = writeln!(
                s,
                "  damped eigenvalue {:+.10} {:+.10}i  (decay {:.6} 1/s, Q = {:.4})",
                d.re, d.im, d.decay_rate, d.quality_factor
            );
        }
    }
    for c in &r.checks {
        let _ = writeln!(s, "check: {}", c.formula);
        let _ = writeln!(
            s,
            "  {:>4}  {:>20}  {:>20}  {:>10}",
            "mode", "computed", "formula", "rel. diff"
        );
        for k in 0..c.expected.len() {
            let _ = writeln!(
                s,
                "  {:>4}  {:>20.14}  {:>20.14}  {:>10.2e}",
                k + 1,
                c.computed[k],
                c.expected[k],
                c.relative_difference[k]
            );
        }
    }
    if !r.nonlinear.is_empty() {
        let _ = writeln!(
            s,
            "nonlinear check (full model released in a mode; frequency from zero crossings)"
        );
        let _ = writeln!(
            s,
            "  {:>4}  {:>10}  {:>18}  {:>18}  {:>10}  {:>18}",
            "mode", "amplitude", "linear", "measured", "rel. diff", "elliptic (N = 1)"
        );
        for c in &r.nonlinear {
            let exact = if c.exact.is_finite() {
                format!("{:.12}", c.exact)
            } else {
                "-".into()
            };
            let _ = writeln!(
                s,
                "  {:>4}  {:>10.4}  {:>18.12}  {:>18.12}  {:>10.2e}  {:>18}",
                c.mode + 1,
                c.amplitude,
                c.linear,
                c.measured,
                c.relative_difference,
                exact
            );
        }
    }
    s
}

fn modes_summary(
    spec: &Spec,
    r: &modes::ModesResult,
    outputs: &Outputs,
    wall: f64,
) -> serde_json::Value {
    let nan_null = |v: Vec<f64>| {
        v.into_iter()
            .map(|x| if x.is_finite() { Some(x) } else { None })
            .collect::<Vec<_>>()
    };
    json!({
        "kind": "modes",
        "title": spec.title,
        "model": spec.model_name,
        "links": spec.chain.links(),
        "equilibria": r.equilibria.iter().map(|m| json!({
            "label": m.equilibrium.label(),
            "unstable": m.unstable,
            "omega2": m.omega2,
            "frequency": nan_null(m.frequencies()),
            "growth_rate": nan_null(m.growth_rates()),
            "damped": m.damped,
        })).collect::<Vec<_>>(),
        "checks": r.checks.iter().map(|c| json!({
            "formula": c.formula,
            "computed": c.computed,
            "expected": c.expected,
            "max_relative_difference": c.relative_difference.iter().copied().fold(0.0, f64::max),
        })).collect::<Vec<_>>(),
        "nonlinear": r.nonlinear.iter().map(|c| json!({
            "mode": c.mode + 1, "amplitude": c.amplitude, "linear": c.linear, "measured": c.measured,
            "relative_difference": c.relative_difference, "exact": if c.exact.is_finite() { Some(c.exact) } else { None },
        })).collect::<Vec<_>>(),
        "wall_s": wall,
        "output": outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": outputs.plot.as_ref().map(|p| p.display().to_string()),
    })
}

fn simulate_summary(
    spec: &Spec,
    tr: &Trajectory,
    outputs: &Outputs,
    wall: f64,
) -> serde_json::Value {
    let n = spec.chain.links();
    let last = tr.len() - 1;
    let x = tr.final_state();
    json!({
        "kind": "simulate",
        "title": spec.title,
        "model": spec.model_name,
        "links": n,
        "integrator": tr.method,
        "complete": tr.complete,
        "t_end": tr.t.last(),
        "final_time": tr.t[last],
        "final_state": { "theta": &x[..n], "omega": &x[n..] },
        "energy_start": tr.energy[0],
        "energy_end": tr.energy[last],
        "work_end": tr.work[last],
        "energy_scale": tr.energy_scale,
        "relative_energy_drift": tr.relative_energy_drift(),
        "max_relative_energy_error": tr.max_relative_energy_error(),
        "samples": tr.len(),
        "steps": tr.stats.steps,
        "rejected_steps": tr.stats.rejected,
        "rhs_evaluations": tr.stats.evals,
        "wall_s": wall,
        "output": outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": outputs.plot.as_ref().map(|p| p.display().to_string()),
    })
}
