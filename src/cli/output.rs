//! What every command's run shares: its error type, the flags every command takes, output
//! paths, run descriptions, the JSON summary.

use pendula::kinds::Found;
use pendula::model::Chain;
use pendula::run::{Outcome, RunError};
use pendula::spec::{self, Spec, SpecError};
use pendula::store;
use std::path::{Path, PathBuf};

/// A failure, sorted by who can fix it.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit code 2.
    Input(String),
    /// Bad input about a field of the spec, kept as data until the command that knows its
    /// flags spells it ([`super::flags::name_flag`]): exit code 2.
    Field(SpecError),
    /// The run failed (blow-up, I/O, interrupted): exit code 1.
    Run(String),
}

impl From<SpecError> for CliError {
    fn from(e: SpecError) -> Self {
        CliError::Field(e)
    }
}

/// The library's run: bad input (its field as a spec names it) exit 2, a failed or stopped
/// run exit 1.
impl From<RunError> for CliError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Input(e) => CliError::Field(e),
            e => CliError::Run(e.render(&super::flags::spell)),
        }
    }
}

/// Drawing or writing a figure failed: the run failed (the path was checked before).
impl From<pendula::plot::PlotError> for CliError {
    fn from(e: pendula::plot::PlotError) -> Self {
        CliError::Run(e.to_string())
    }
}

/// Writing a result failed (I/O, HDF5): the run failed. (An output that exists without
/// --force is refused before any work, by [`prepare_path`].)
impl From<store::StoreError> for CliError {
    fn from(e: store::StoreError) -> Self {
        CliError::Run(e.render(&super::flags::spell))
    }
}

/// Flags every command shares (they are not part of a spec).
#[derive(Debug, clap::Args, Clone)]
pub struct Common {
    /// Write results to this HDF5 file (refuses to overwrite without --force).
    #[arg(short = 'o', long = "output", value_name = "FILE.h5")]
    pub output: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(long)]
    pub force: bool,
    /// Print a machine-readable summary on stdout.
    #[arg(long)]
    pub json: bool,
    /// Draw the figure (.png or .svg).
    #[arg(long, value_name = "FILE.png|svg")]
    pub plot: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Progress bar on stderr: auto (when stderr is a terminal), always or never.
    #[arg(long, value_enum, default_value_t = super::progress::Mode::Auto, value_name = "WHEN")]
    pub progress: super::progress::Mode,
    /// Memory the run may plan to use, e.g. 64G (default: half the machine's memory); a run
    /// estimated to need more is refused before any work, naming the flag that drives it.
    #[arg(long, value_name = "SIZE", value_parser = spec::Budget::parse)]
    pub max_memory: Option<spec::Budget>,
}

impl Common {
    /// The memory budget: `--max-memory`, else the machine's default.
    pub fn budget(&self) -> spec::Budget {
        self.max_memory.unwrap_or_else(spec::Budget::machine)
    }
}

/// Refuses a result file whose name does not end in `.h5` or `.hdf5` (any case), naming `flag`:
/// `-o out.txt` is most likely a mistake, and the readers look for HDF5 by its extension.
pub fn check_result_path(p: &Path, flag: &str) -> Result<(), CliError> {
    spec::result_format(flag, p)?;
    Ok(())
}

/// Output paths after flags override the spec's `[output]`.
pub struct Outputs {
    pub file: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

/// One run of a validated spec: what every analysis's runner is handed.
pub struct Run<'a> {
    pub spec: &'a Spec,
    pub outputs: Outputs,
    pub common: &'a Common,
    pub command_line: &'a str,
}

impl Run<'_> {
    /// What the run's files record of how they were made.
    pub fn provenance(&self) -> store::Provenance {
        store::Provenance::now(self.command_line, &self.spec.text)
    }

    /// Writes the result file of a library run ([`Outcome::write_file`]) when the run has one
    /// (`-o` or `[output] file`).
    pub fn write_outcome(&self, outcome: &mut Outcome) -> Result<(), CliError> {
        if let Some(path) = &self.outputs.file {
            outcome.write_file(path, self.common.force, &self.provenance())?;
        }
        Ok(())
    }
}

/// Refuses `--plot` for a run that draws no figure ([`pendula::run::figure_refused`]) before
/// any work.
pub fn refuse_cart_plot(ctx: &Run) -> Result<(), CliError> {
    match pendula::run::figure_refused(ctx.spec) {
        Some(why) if ctx.outputs.plot.is_some() => Err(CliError::Input(format!("--plot: {why}"))),
        _ => Ok(()),
    }
}

/// Sizes rayon's global pool for `--threads N` (all cores when absent). Called once, before any
/// work, so the pool cannot exist yet and `build_global` cannot fail. N is at most 4× the cores
/// this process may use: more threads only share them, and building a pool of 10⁵ threads takes
/// long enough to ignore Ctrl-C.
pub fn set_threads(threads: Option<usize>) -> Result<(), CliError> {
    if let Some(n) = threads {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        if n == 0 || n > 4 * cores {
            return Err(CliError::Input(format!(
                "--threads: must be between 1 and 4 x the {cores} cores = {} (got {n})",
                4 * cores
            )));
        }
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    Ok(())
}

/// Refuses a figure path whose extension is not a figure format
/// ([`pendula::plot::Format::from_path`]: `.png` or `.svg`, any case),
/// naming `flag`.
pub fn check_figure_path(p: &Path, flag: &str) -> Result<(), CliError> {
    spec::figure_format(flag, p)?;
    Ok(())
}

/// Creates missing parent folders and checks that `path` may be written, before any work.
pub fn prepare_path(path: &Path, force: bool) -> Result<(), String> {
    store::prepare_output(path, force).map_err(|e| e.to_string())
}

/// Prints a run's summary: one JSON line on stdout with `--json`, else the human-readable
/// `text` when the run has one; then fails the run if it was interrupted (its partial result is
/// already written).
pub fn report(
    summary: &serde_json::Value,
    json: bool,
    text: Option<String>,
    complete: bool,
) -> Result<(), CliError> {
    if json {
        println!("{summary}");
    } else if let Some(text) = text {
        print!("{text}");
    }
    if !complete {
        return Err(CliError::Run(
            "interrupted: the result so far was written, marked incomplete".into(),
        ));
    }
    Ok(())
}

/// The command's part of a registered kind's run (the file is written): its figures, then its
/// JSON summary (the result's own fields, with those of the run's kind, title, model,
/// integrator, wall time and paths written that it names:
/// [`pendula::finding::Finding::run_fields`]) or its text report; then, if it did not
/// complete, its own word why the run fails.
pub fn report_found(ctx: &Run, f: &dyn Found, wall: f64) -> Result<(), CliError> {
    report_result(Some(ctx.spec), &ctx.outputs, ctx.common.json, f, wall)
}

/// [`report_found`] of a run with its spec, or of a command's run without one (`pendula
/// measure`, whose result names its kind and title itself: its
/// [`pendula::finding::Finding::run_fields`] name none of the spec's fields).
pub fn report_result(
    spec: Option<&Spec>,
    outputs: &Outputs,
    json: bool,
    f: &dyn Found,
    wall: f64,
) -> Result<(), CliError> {
    let labels = spec.map(|s| s.output.labels()).unwrap_or_default();
    if let Some(path) = &outputs.plot {
        pendula::plot::labels::with_labels(labels.clone(), || f.draw(path))?;
    }
    pendula::plot::labels::with_labels(labels, || f.draw_stills())?;
    let j = pendula::run::summary(
        spec,
        f,
        wall,
        outputs.file.as_deref(),
        outputs.plot.as_deref(),
    );
    report(&j, json, Some(f.report()), true)?;
    for w in f.warnings() {
        eprintln!("{w}");
    }
    if !f.complete() {
        return Err(CliError::Run(f.interrupted(outputs.file.is_some())));
    }
    Ok(())
}

/// The rest of a run whose result describes itself, after [`pendula::run::execute`] or a
/// command that runs its kind itself (`animate`, which `execute` does not offer):
/// told its wall time, its file written as the library's outcome, then [`report_found`];
/// `start`, when the run began.
pub fn finish_found(
    ctx: &Run,
    chain: Option<&Chain>,
    mut result: Box<dyn Found>,
    start: std::time::Instant,
) -> Result<(), CliError> {
    use pendula::run::Output;
    let wall = start.elapsed().as_secs_f64();
    result.timed(wall);
    let mut outcome = Outcome {
        spec: ctx.spec,
        output: Output { chain, result },
    };
    ctx.write_outcome(&mut outcome)?;
    report_found(ctx, outcome.output.result.as_ref(), wall)
}

/// The rest of a command's run whose result describes itself but that runs without a spec
/// (`pendula measure`), `wall` seconds long: told its wall time, its file written when
/// `outputs.file` (provenance of `command_line` and `spec_text`, and `title`, at the root, then
/// its groups by [`store::write_record`]), then [`report_result`].
pub fn finish_command(
    outputs: &Outputs,
    (force, json): (bool, bool),
    (command_line, spec_text): (&str, &str),
    title: &str,
    mut result: Box<dyn Found>,
    wall: f64,
) -> Result<(), CliError> {
    result.timed(wall);
    if let Some(path) = &outputs.file {
        let records: Vec<_> = std::iter::once(result.record())
            .chain(result.beside())
            .collect();
        let prov = store::Provenance::now(command_line, spec_text);
        store::write_file(path, force, &prov, title, |out| {
            records
                .iter()
                .try_for_each(|r| store::write_record(out, None, r))
        })?;
    }
    report_result(None, outputs, json, result.as_ref(), wall)
}

/// The planar chain of a spec whose analysis only the planar chain offers (poincare, map,
/// animate: the spec's validation refused any other model).
pub fn planar(spec: &Spec) -> Result<&Chain, CliError> {
    spec.model.planar().ok_or_else(|| {
        CliError::Input(format!(
            "{} is offered for the planar chain only",
            spec.analysis.kind().name
        ))
    })
}

/// A command's closing stderr line: the files it wrote and how long it took, so that a run that
/// prints nothing else (a figure, a map) still says where its results went.
pub struct Closing {
    started: std::time::SystemTime,
    clock: std::time::Instant,
    candidates: Vec<PathBuf>,
    /// The candidates as a set: a sweep of 10⁵ points names 10⁵ map files (linear, not n²).
    seen: std::collections::HashSet<PathBuf>,
    /// A folder the run fills, what its entries are called, and the extension counted.
    frames: Option<(PathBuf, &'static str, Option<&'static str>)>,
}

impl Closing {
    /// Starts the clock: only files modified from now on count as written by this run.
    pub fn start() -> Closing {
        Closing {
            started: std::time::SystemTime::now(),
            clock: std::time::Instant::now(),
            candidates: Vec::new(),
            seen: std::collections::HashSet::new(),
            frames: None,
        }
    }

    /// A file the run may write (named in the line if it was written).
    pub fn may_write(&mut self, path: &Path) {
        if self.seen.insert(path.to_path_buf()) {
            self.candidates.push(path.to_path_buf());
        }
    }

    /// A folder the run may fill: `noun` names its entries in the line (`frames`), and only
    /// files with extension `ext` count, where given.
    pub fn may_fill(&mut self, dir: &Path, noun: &'static str, ext: Option<&'static str>) {
        self.frames = Some((dir.to_path_buf(), noun, ext));
    }

    fn fresh(&self, path: &Path) -> bool {
        // A small slack for file systems whose modification times are coarser than the clock.
        let since = self.started - std::time::Duration::from_millis(20);
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since)
    }

    /// What the run wrote, as the line names it.
    pub fn written(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .candidates
            .iter()
            .filter(|p| p.is_file() && self.fresh(p))
            .map(|p| p.display().to_string())
            .collect();
        if let Some((dir, noun, ext)) = &self.frames {
            let frames = std::fs::read_dir(dir)
                .map(|d| {
                    d.filter_map(Result::ok)
                        .filter(|e| {
                            let p = e.path();
                            ext.is_none_or(|x| p.extension().is_some_and(|e| e == x))
                                && self.fresh(&p)
                        })
                        .count()
                })
                .unwrap_or(0);
            if frames > 0 {
                names.push(format!("{}/ ({frames} {noun})", dir.display()));
            }
        }
        names
    }

    /// The closing line: `wrote A, B (what, 2.8 s)`, or `what: done in 0.1 s, no files written`.
    pub fn line(&self, what: &str) -> String {
        let secs = self.clock.elapsed().as_secs_f64();
        let took = if secs < 10.0 {
            format!("{secs:.2} s")
        } else {
            format!("{secs:.1} s")
        };
        let names = self.written();
        if names.is_empty() {
            format!("{what}: done in {took}, no files written")
        } else {
            format!("wrote {} ({what}, {took})", names.join(", "))
        }
    }
}
