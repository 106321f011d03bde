//! A spec with a `[sweep]` (or `--sweep PARAM=LIST`): the points run by the library
//! ([`pendula::run::sweep::run_sweep`]), then the `sweep` group, its figure and its table or
//! JSON summary, each the run layer's ([`pendula::run::sweep::SweepOutcome`]).

use super::output::{CliError, Common};
use super::progress;
use pendula::run::sweep::run_sweep;
use pendula::run::RunError;
use pendula::spec::Spec;

/// Runs the sweep of `spec` and writes its outputs (checked by the caller before any work).
pub fn run(
    spec: &Spec,
    common: &Common,
    outputs: &super::output::Outputs,
    command_line: &str,
) -> Result<(), CliError> {
    let start = std::time::Instant::now();
    let mut bar = progress::Bar::new("sweep");
    let directory = sweep_directory(spec, outputs);
    let outcome = match run_sweep(spec, directory.clone(), command_line, &mut bar) {
        Err(RunError::Interrupted) => {
            let kept = match &directory {
                Some(d) => format!(
                    "the finished points are kept in {}; rerun the same command to resume",
                    d.display()
                ),
                None => "no point was kept (give -o or sweep.directory to keep them)".into(),
            };
            return Err(CliError::Run(format!("interrupted: {kept}")));
        }
        other => other?,
    };
    let wall = start.elapsed().as_secs_f64();
    // A kept point whose file no longer matched its record was run again: say which and why.
    for (k, p) in outcome.points.iter().enumerate() {
        if let Some(why) = &p.rerun {
            eprintln!(
                "point {} ({}): not reused, run again: {why}",
                k + 1,
                outcome.plan.describe(k)
            );
        }
    }
    if let Some(path) = &outputs.file {
        outcome.write_run(path, common.force, command_line)?;
    }
    if let Some(path) = &outputs.plot {
        if !outcome.has_figure() {
            return Err(CliError::Input(
                "--plot: no result of this sweep has a value to draw".into(),
            ));
        }
        pendula::plot::labels::with_labels(spec.output.labels(), || outcome.draw(path))?;
    }
    let (file, plot) = (outputs.file.as_deref(), outputs.plot.as_deref());
    if common.json {
        println!("{}", outcome.summary(wall, file, plot));
    } else {
        print!("{}", outcome.report(wall));
    }
    Ok(())
}

/// Where a sweep keeps its points: `sweep.directory`, else beside the result file (`-o` or
/// `output.file`), else nowhere.
pub fn sweep_directory(
    spec: &Spec,
    outputs: &super::output::Outputs,
) -> Option<std::path::PathBuf> {
    let plan = spec.sweep.as_deref()?;
    plan.directory
        .clone()
        .or_else(|| outputs.file.as_deref().map(pendula::spec::points_beside))
}
