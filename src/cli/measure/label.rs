//! The label grids of `pendula measure` and of a measure spec, measured by the kind
//! ([`pendula::kinds::measure::labels`]), then written, drawn and reported as every result
//! ([`crate::cli::output::finish_command`]).

use super::{flag, Source};
use crate::cli::output::{finish_command, CliError, Outputs};
use pendula::kinds::measure::{labels, MeasureOptions, MeasuredSet};
use pendula::observe::Cancel;
use pendula::run::RunError;
use pendula::spec::Budget;
use std::path::PathBuf;
use std::time::Instant;

/// The kind's refusal as the command says it: bad input naming its flag, a failure, or a stop
/// ([`interrupted`]).
pub fn cli_error(e: RunError) -> CliError {
    match e {
        RunError::Input(f) => CliError::Input(f.render(&flag)),
        RunError::Interrupted => interrupted(),
        e => CliError::Run(e.render(&flag)),
    }
}

/// A map file's warning (written by an older pendula, no checksums) goes to stderr.
fn warn(w: &str) {
    eprintln!("{w}");
}

/// Measures every grid of `src`; nothing is written when any is refused, nothing is kept
/// once `cancel` is set (a failed run: "interrupted", exit 1).
pub fn measure_sets(
    src: &Source,
    opts: &MeasureOptions,
    budget: &Budget,
    cancel: &Cancel,
) -> Result<(Vec<MeasuredSet>, Vec<String>), CliError> {
    labels::measure_sets(src, opts, budget, cancel, &warn).map_err(cli_error)
}

/// A measure stopped by a signal: nothing of it is written.
pub fn interrupted() -> CliError {
    CliError::Run("interrupted: nothing measured was written".into())
}

/// Outputs and run description shared by the command and the `measure` spec kind.
pub struct Job<'a> {
    pub title: String,
    pub file: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub force: bool,
    pub json: bool,
    pub command_line: &'a str,
    pub spec_text: String,
    /// The memory the label grids and their measures may take (`--max-memory`).
    pub budget: Budget,
    /// Set by a stop signal.
    pub cancel: Cancel,
}

/// Measures, then writes the HDF5 group, the figure and the summary.
pub fn run_job(src: &Source, opts: &MeasureOptions, job: &Job) -> Result<(), CliError> {
    for (flag, p) in [("-o", &job.file), ("--plot", &job.plot)] {
        if let Some(p) = p {
            if flag == "-o" {
                crate::cli::output::check_result_path(p, flag)?;
            } else {
                crate::cli::output::check_figure_path(p, flag)?;
            }
        }
    }
    let start = Instant::now();
    let m = labels::measure(&job.title, src, opts, &job.budget, &job.cancel, &warn)
        .map_err(cli_error)?;
    let wall = start.elapsed().as_secs_f64();
    if job.plot.is_some() && !m.has_figure() {
        return Err(CliError::Input(
            "--plot: nothing measured has a figure (the Wada test of a two-label grid is skipped)"
                .into(),
        ));
    }
    for (flag, p) in [("-o", &job.file), ("--plot", &job.plot)] {
        if let Some(p) = p {
            crate::cli::output::prepare_path(p, job.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    let outputs = Outputs {
        file: job.file.clone(),
        plot: job.plot.clone(),
    };
    finish_command(
        &outputs,
        (job.force, job.json),
        (job.command_line, &job.spec_text),
        &job.title,
        Box::new(m),
        wall,
    )
}
