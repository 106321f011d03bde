//! Runs the validated analysis (each kind in its own module: simulate, modes, lyapunov,
//! poincare, map, animate), and what their exports share: output paths, run descriptions, JSON.

use super::{CliError, Common, Outputs};
use pendula::spec::{Analysis, Spec};
use pendula::store;
use serde_json::json;
use std::path::Path;

/// Refuses a figure path whose extension is not a figure format
/// ([`pendula::plot::Format::from_path`]: `.png` or `.svg`, any case),
/// naming `flag`.
pub fn check_figure_path(p: &Path, flag: &str) -> Result<(), CliError> {
    pendula::plot::Format::from_path(p)
        .map(|_| ())
        .map_err(|_| {
            CliError::Input(format!(
                "{flag}: `{}` must end in .png or .svg",
                p.display()
            ))
        })
}

/// Creates missing parent folders and checks that `path` may be written, before any work.
pub fn prepare_path(path: &Path, force: bool) -> Result<(), String> {
    store::prepare_output(path, force).map_err(|e| e.to_string())
}

pub fn run_analysis(
    spec: &Spec,
    outputs: &Outputs,
    common: &Common,
    command_line: &str,
) -> Result<(), CliError> {
    match &spec.analysis {
        Analysis::Map(_) => super::map::run_map(spec, common, &Default::default(), command_line),
        Analysis::Simulate(opts) => super::simulate::run(spec, opts, outputs, common, command_line),
        Analysis::Animate(opts) => super::animate::run(spec, opts, outputs, common, command_line),
        Analysis::Lyapunov(run) => super::lyapunov::run(spec, run, outputs, common, command_line),
        Analysis::Poincare(opts) => super::poincare::run(spec, opts, outputs, common, command_line),
        Analysis::Modes(opts) => super::modes::run(spec, opts, outputs, common, command_line),
    }
}

/// Prints a run's summary (one JSON line with `--json`; else pretty-printed when `pretty`),
/// then fails the run if it was interrupted (its partial result is already written).
pub fn report(
    summary: &serde_json::Value,
    json: bool,
    pretty: bool,
    complete: bool,
) -> Result<(), CliError> {
    if json {
        println!("{summary}");
    } else if pretty {
        println!(
            "{}",
            serde_json::to_string_pretty(summary).unwrap_or_default()
        );
    }
    if !complete {
        return Err(CliError::Run(
            "interrupted: the result so far was written, marked incomplete".into(),
        ));
    }
    Ok(())
}

/// A finite number, or JSON `null` (JSON has no NaN or infinity).
pub fn f64_json(v: f64) -> serde_json::Value {
    if v.is_finite() {
        json!(v)
    } else {
        serde_json::Value::Null
    }
}

/// What the store's result writers record about a spec's run.
pub fn run_info(spec: &Spec) -> store::RunInfo<'_> {
    store::RunInfo {
        title: &spec.title,
        model_name: &spec.model_name,
        chain: &spec.chain,
        method: &spec.method,
        x0: &spec.x0,
    }
}
