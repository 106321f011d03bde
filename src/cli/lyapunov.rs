//! `lyapunov`: spectra, two-trajectory estimates, ensembles and chaos indicators; HDF5,
//! convergence figures, JSON summary.

use super::output::{f64_json, report, CliError, Run};
use super::progress::Bar;
use pendula::analysis::indicators::chain_indicators;
use pendula::analysis::lyapunov::{
    chain_ensemble, chain_spectrum, chain_two_trajectory, lyapunov_spectrum, Lyapunov,
};
use pendula::model::{CartChain, System};
use pendula::spec::{LyapunovEstimator, LyapunovRun, Model};
use pendula::store::{self};
use serde_json::json;
use std::time::Instant;

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
        "energy_work": r.energy.work,
        "energy_scale": r.energy.scale,
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

pub fn run(ctx: &Run, run: &LyapunovRun) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    let chain = match &spec.model {
        Model::Planar(c) => c,
        Model::Cart(sys) => return run_cart(ctx, run, sys),
    };
    let mut bar = Bar::new("lyapunov");
    let start = Instant::now();
    let mut opts = run.options;
    if run.estimator == LyapunovEstimator::Tangent {
        opts.k = Some(1);
    }
    let (summary, complete) = match (&run.estimator, &run.ensemble) {
        (LyapunovEstimator::Sali(io), _) => {
            let r = chain_indicators(chain, &spec.method, &spec.x0, io, &mut bar)?;
            let wall = start.elapsed().as_secs_f64();
            ctx.write(|out| {
                let g = out.group("indicators")?;
                store::write_indicators(&g, &r)?;
                g.attr_f64s("initial_state", &spec.x0)?;
                Ok(())
            })?;
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_indicators(&r, &spec.title, path)?;
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
            let e = chain_ensemble(chain, &spec.method, &spec.x0, &opts, ens, &mut bar)?;
            let wall = start.elapsed().as_secs_f64();
            ctx.write(|out| {
                store::write_lyapunov_chain(out, "lyapunov", chain, &spec.x0, &e.members[0])?;
                let g = out.group("ensemble")?;
                store::write_ensemble(&g, &e)?;
                Ok(())
            })?;
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_convergence(&e.members[0], &spec.title, path)?;
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
            }?;
            let wall = start.elapsed().as_secs_f64();
            ctx.write(|out| store::write_lyapunov_chain(out, "lyapunov", chain, &spec.x0, &r))?;
            if let Some(path) = &outputs.plot {
                pendula::plot::draw_convergence(&r, &spec.title, path)?;
            }
            let mut j = lyapunov_json(&r);
            j["kind"] = json!("lyapunov");
            j["title"] = json!(spec.title);
            j["wall_s"] = json!(wall);
            (j, r.complete)
        }
    };
    report(&summary, common.json, true, complete)
}

/// The cart chain's spectrum on its constraint manifold.
fn run_cart(ctx: &Run, run: &LyapunovRun, sys: &CartChain) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    let mut bar = Bar::new("lyapunov");
    let start = Instant::now();
    let r = lyapunov_spectrum(sys, &spec.method, &spec.x0, &run.options, &mut bar)?;
    ctx.write(|out| {
        let g = out.group("lyapunov")?;
        store::write_lyapunov(&g, &r)?;
        g.attr_f64s("initial_state", &spec.x0)?;
        g.attr_i64("phase_space_dimension", sys.manifold_dim() as i64)?;
        g.attr_str("model", "cart-chain")?;
        Ok(())
    })?;
    if let Some(path) = &outputs.plot {
        pendula::plot::draw_convergence(&r, &spec.title, path)?;
    }
    let summary = json!({
        "kind": "lyapunov", "model": "cart-chain", "title": spec.title,
        "phase_space_dimension": sys.manifold_dim(),
        "exponents": r.exponents, "standard_error": r.standard_error,
        "sum_exponents": r.sum, "pair_sums": r.pair_sums,
        "closest_to_zero": r.closest_to_zero,
        "relative_energy_drift": r.energy.relative_drift,
        "averaged_time": r.averaged_time, "counts": r.counts,
        "complete": r.complete, "wall_s": start.elapsed().as_secs_f64(),
    });
    report(
        &summary,
        common.json,
        outputs.file.is_none() && outputs.plot.is_none(),
        r.complete,
    )
}
