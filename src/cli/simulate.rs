//! `simulate`: integrate one trajectory; HDF5, figure, still figures, JSON summary.

use super::progress::Bar;
use super::{CliError, Common, Outputs};
use pendula::analysis::{self, SimulateOptions, Trajectory};
use pendula::spec::Spec;
use pendula::store::{self, Provenance};
use serde_json::json;
use std::time::Instant;

pub fn run(
    spec: &Spec,
    opts: &SimulateOptions,
    outputs: &Outputs,
    common: &Common,
    command_line: &str,
) -> Result<(), CliError> {
    let start = Instant::now();
    let mut bar = Bar::new("simulate");
    let tr = analysis::simulate(&spec.chain, &spec.method, &spec.x0, opts, &mut bar)
        .map_err(|e| CliError::Run(e.to_string()))?;
    let wall = start.elapsed().as_secs_f64();
    let prov = Provenance::now(command_line, &spec.text);
    if let Some(path) = &outputs.file {
        store::write_file(path, common.force, &prov, &spec.title, |out| {
            store::write_trajectory(out, &super::output::run_info(spec), &tr, Some(opts))
        })
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
