//! `pendula poincare`'s own part of a run ([`pendula::run::execute`] computes the crossings
//! and writes them): figure, table or JSON summary.

use super::output::{CliError, Outputs, Run};
use pendula::analysis::poincare::{self, OrbitEnd, PoincareOptions, PoincareResult};
use pendula::model::Chain;
use pendula::plot::PoincareFigure;
use pendula::spec::Spec;
use serde_json::json;

/// Largest section residual |g| over all crossings (angles mod 2π).
fn max_residual(chain: &Chain, opts: &PoincareOptions, r: &PoincareResult) -> f64 {
    use pendula::analysis::poincare::Section;
    let n = chain.links();
    let mut m = 0.0f64;
    for x in r
        .shells
        .iter()
        .flat_map(|s| &s.orbits)
        .flat_map(|o| &o.states)
    {
        let g = match &opts.section {
            Section::Coordinate { index, value, .. } if *index < n => {
                poincare::wrap_angle(x[*index] - value)
            }
            Section::Coordinate { index, value, .. } => x[*index] - value,
            Section::Hyperplane { normal, offset, .. } => {
                normal.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - offset
            }
            Section::Stroboscopic { .. } => 0.0,
        };
        m = m.max(g.abs());
    }
    m
}

/// A section's crossings (already written): figure, table or JSON summary.
pub fn report(
    ctx: &Run,
    chain: &Chain,
    opts: &PoincareOptions,
    result: &PoincareResult,
    wall: f64,
) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    if let Some(path) = &outputs.plot {
        if result.crossings() > 0 {
            pendula::plot::draw_poincare(
                &PoincareFigure::of_result(&spec.title, chain, opts, result),
                path,
            )?;
        }
    }
    let res = max_residual(chain, opts, result);
    if common.json {
        println!("{}", summary(spec, chain, opts, result, outputs, wall, res));
    } else {
        print!("{}", table(chain, opts, result, wall, res));
    }
    if !result.complete {
        return Err(CliError::Run(
            "interrupted; the crossings so far were written, marked incomplete".into(),
        ));
    }
    Ok(())
}

/// Crossings, orbits stopped at t_end, skipped points, and (chaotic, not shown chaotic) orbits.
fn shell_stats(
    s: &poincare::Shell,
    threshold: f64,
) -> (usize, usize, usize, Option<(usize, usize)>) {
    let crossings = s.orbits.iter().map(|o| o.len()).sum();
    let short = s
        .orbits
        .iter()
        .filter(|o| o.end != OrbitEnd::Complete)
        .count();
    (crossings, short, s.skipped.len(), s.chaos_counts(threshold))
}

/// ", 3 chaotic and 37 not shown chaotic within T = 100–5000 s (chaotic: λ(T) > 0.05 s⁻¹)".
fn chaos_text(s: &poincare::Shell, counts: Option<(usize, usize)>, threshold: f64) -> String {
    let within = s.lyapunov_times().map_or(String::new(), |t| {
        format!(" within {}", poincare::describe_times(t))
    });
    counts.map_or(String::new(), |(c, n)| {
        format!(
            ", {c} {} and {n} {}{within} (chaotic: λ(T) > {threshold} s⁻¹)",
            poincare::CHAOTIC_CLASS,
            poincare::NOT_SHOWN_CHAOTIC_CLASS
        )
    })
}

fn table(
    chain: &Chain,
    opts: &PoincareOptions,
    r: &PoincareResult,
    wall: f64,
    residual: f64,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "section {}", opts.section.describe(chain));
    for (k, sh) in r.shells.iter().enumerate() {
        let (c, short, skipped, counts) = shell_stats(sh, opts.chaos_threshold);
        let chaotic = chaos_text(sh, counts, opts.chaos_threshold);
        if let pendula::analysis::poincare::Section::Stroboscopic { .. } = opts.section {
            // No energy shell: the drive is what the section samples.
            let forcing = pendula::spec::describe_run(chain.params(), None);
            let _ = writeln!(
                s,
                "stroboscopic section ({}): {} orbits, {c} samples, {short} stopped at t_end{chaotic}",
                forcing.trim_start_matches(", "),
                sh.orbits.len(),
            );
            continue;
        }
        let e = sh.energy.map_or("-".into(), |e| format!("{e:.6} J"));
        let _ = writeln!(
            s,
            "shell {}: E = {e}, {} orbits, {c} crossings, {short} stopped at t_end, {skipped} unreachable points skipped{chaotic}",
            k + 1,
            sh.orbits.len(),
        );
    }
    let _ = writeln!(
        s,
        "max |section residual| {residual:.2e}, max relative energy error {:.2e}, {:.0} crossings/s ({wall:.2} s)",
        r.max_energy_error(),
        r.crossings() as f64 / wall.max(1e-9)
    );
    s
}

fn summary(
    spec: &Spec,
    chain: &Chain,
    opts: &PoincareOptions,
    r: &PoincareResult,
    outputs: &Outputs,
    wall: f64,
    residual: f64,
) -> serde_json::Value {
    json!({
        "kind": "poincare",
        "title": spec.title,
        "model": spec.model_name,
        "links": chain.links(),
        "section": opts.section.describe(chain),
        "integrator": spec.method,
        "options": opts,
        "chaos_criterion": opts.orbit.lyapunov.then(|| poincare::chaos_criterion(opts.chaos_threshold)),
        "complete": r.complete,
        "shells": r.shells.iter().map(|sh| {
            let (c, short, skipped, counts) = shell_stats(sh, opts.chaos_threshold);
            json!({
                "energy": sh.energy,
                "orbits": sh.orbits.len(),
                "crossings": c,
                "stopped_at_t_max": short,
                "skipped_unreachable": skipped,
                "chaotic_orbits": counts.map(|c| c.0),
                "not_shown_chaotic_orbits": counts.map(|c| c.1),
                "lyapunov_time_range": sh.lyapunov_times().map(|(a, b)| [a, b]),
                "lyapunov": sh.orbits.iter().map(|o| o.lyapunov).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
        "crossings": r.crossings(),
        "max_section_residual": residual,
        "max_relative_energy_error": r.max_energy_error(),
        "wall_s": wall,
        "crossings_per_s": r.crossings() as f64 / wall.max(1e-9),
        "output": outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": outputs.plot.as_ref().map(|p| p.display().to_string()),
    })
}
