//! `frequencies`' own part of a run ([`pendula::run::execute`] integrates the orbit, analyses
//! it and writes the `frequencies` group): the spectrum figure, the JSON summary, the text report.

use super::output::{report, CliError, Run};
use pendula::format::f64_json;
use pendula::run::FrequenciesResult;
use pendula::spec::FrequenciesRun;
use serde_json::json;
use std::fmt::Write;

pub fn report_frequencies(
    ctx: &Run,
    run: &FrequenciesRun,
    r: &FrequenciesResult,
    wall: f64,
) -> Result<(), CliError> {
    let spec = ctx.spec;
    let o = &r.orbit;
    if let Some(path) = &ctx.outputs.plot {
        let caption = format!(
            "NAFF, Hann p = {}, {} samples, T = {:.3} s, diffusion index {}{}",
            run.window_order,
            r.samples,
            (r.samples - 1) as f64 * r.dt_out,
            pendula::plot::format_value(o.diffusion_index, 3),
            if r.complete { "" } else { ", stopped early" }
        );
        pendula::plot::draw_frequencies(o, &spec.title, &caption, path)?;
    }
    let links: Vec<serde_json::Value> = o
        .links
        .iter()
        .map(|l| {
            json!({
                "signal": l.signal.name(),
                "frequency": l.lines.iter().map(|x| x.frequency).collect::<Vec<_>>(),
                "amplitude": l.lines.iter().map(|x| x.amplitude).collect::<Vec<_>>(),
                "phase": l.lines.iter().map(|x| x.phase).collect::<Vec<_>>(),
                // null where the line is unexplained (no combination within the tolerance).
                "combination": l.lines.iter().map(|x| x.combination.as_ref().map(|c| c.k.clone())).collect::<Vec<_>>(),
                "combination_residual": l.lines.iter().map(|x| x.combination.as_ref().map(|c| c.residual)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let j = json!({
        "kind": "frequencies",
        "title": spec.title,
        "model": spec.model_name,
        "integrator": spec.method,
        "omega_ref": r.omega_ref,
        "omega_ref_source": if r.omega_ref_derived { "lowest small-oscillation frequency" } else { "given" },
        "window_order": run.window_order,
        "terms": run.terms,
        "combination_order": run.combination_order,
        "combination_tolerance": r.tolerance,
        "combination_tolerance_rule": pendula::store::frequencies::TOLERANCE_RULE,
        "samples": r.samples,
        "dt_out": r.dt_out,
        "t_end": (r.samples - 1) as f64 * r.dt_out,
        "fundamentals": o.fundamentals,
        "first_half": o.first_half,
        "second_half": o.second_half,
        "diffusion": f64_json(o.diffusion),
        "diffusion_index": f64_json(o.diffusion_index),
        "links": links,
        "max_relative_energy_error": r.max_relative_energy_error,
        "steps": r.stats.steps,
        "rhs_evaluations": r.stats.evals,
        "complete": r.complete,
        "wall_s": wall,
        "output": ctx.outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": ctx.outputs.plot.as_ref().map(|p| p.display().to_string()),
    });
    report(&j, ctx.common.json, Some(text(run, r)), r.complete)
}

fn text(run: &FrequenciesRun, r: &FrequenciesResult) -> String {
    let o = &r.orbit;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "frequency analysis: {} samples, dt = {} s, ω_ref = {:.6} rad/s",
        r.samples, r.dt_out, r.omega_ref
    );
    for (i, f) in o.fundamentals.iter().enumerate() {
        let _ = writeln!(
            s,
            "  ν{} = {f:.12} rad/s (period {:.9} s)",
            i + 1,
            2.0 * std::f64::consts::PI / f
        );
    }
    let _ = writeln!(
        s,
        "  diffusion between the halves: {:.3e} rad/s (index {:.2})",
        o.diffusion, o.diffusion_index
    );
    let _ = writeln!(
        s,
        "  a line is explained by a combination within {:.1e} rad/s (order <= {}); else unexplained",
        r.tolerance, run.combination_order
    );
    for (j, l) in o.links.iter().enumerate() {
        let _ = writeln!(s, "  link {} ({}):", j + 1, l.signal.name());
        for x in &l.lines {
            let label = match &x.combination {
                Some(c) => format!("k = {:?}  (residual {:.1e})", c.k, c.residual),
                None => "unexplained".to_string(),
            };
            let _ = writeln!(
                s,
                "    ω = {:+.12}  a = {:.3e}  φ = {:+.6}  {label}",
                x.frequency, x.amplitude, x.phase
            );
        }
    }
    s
}
