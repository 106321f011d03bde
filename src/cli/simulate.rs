//! `simulate`'s own part of a run ([`pendula::run::execute`] integrates the trajectory and
//! writes it): figure, still figures, JSON summary.

use super::output::{report, CliError, Outputs, Run};
use pendula::analysis::cart::CartTrajectory;
use pendula::analysis::Trajectory;
use pendula::model::CartChain;
use pendula::spec::Spec;
use serde_json::json;
use std::path::Path;

/// A planar chain's trajectory (already written): figure, still figures, JSON summary.
pub fn report_planar(ctx: &Run, tr: &Trajectory, wall: f64) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    if let Some(path) = &outputs.plot {
        pendula::plot::draw_trajectory(tr, &spec.title, path)?;
    }
    super::animate::draw_figures(spec, tr)?;
    if common.json {
        println!("{}", simulate_summary(spec, tr, outputs, wall));
    }
    if !tr.complete {
        return Err(CliError::Run(format!(
            "interrupted at t = {:.6} s; the samples up to then were written, marked incomplete",
            tr.t.last().copied().unwrap_or(0.0)
        )));
    }
    Ok(())
}

fn simulate_summary(
    spec: &Spec,
    tr: &Trajectory,
    outputs: &Outputs,
    wall: f64,
) -> serde_json::Value {
    let n = spec.model.links();
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

/// The cart chain's trajectory (already written): the 3-D figure, the JSON summary.
pub fn report_cart(
    ctx: &Run,
    sys: &CartChain,
    tr: &CartTrajectory,
    wall: f64,
) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    if let Some(path) = &outputs.plot {
        draw_cart(spec, sys, tr, path)?;
    }
    let summary = json!({
        "kind": "simulate", "model": "cart-chain", "title": spec.title,
        "samples": tr.len(), "t_end": tr.t.last(),
        "max_energy_error": tr.max_energy_error(),
        "constraint_drift": tr.constraint_drift,
        "final_state": tr.sample(tr.len() - 1),
        "steps": tr.stats.steps, "rhs_evaluations": tr.stats.evals,
        "complete": tr.complete, "wall_s": wall,
    });
    report(&summary, common.json, None, tr.complete)
}

/// The cart chain's figure: snapshots of the chain in 3-D.
pub(super) fn draw_cart(
    spec: &Spec,
    sys: &CartChain,
    tr: &CartTrajectory,
    path: &Path,
) -> Result<(), CliError> {
    let frames: Vec<Vec<[f64; 3]>> = (0..tr.len()).map(|k| sys.positions(tr.sample(k))).collect();
    let fig = pendula::plot::CartFigure {
        title: spec.title.clone(),
        frames: &frames,
        times: &tr.t,
        snapshots: 6,
    };
    Ok(pendula::plot::draw_cart_chain(&fig, path)?)
}
