//! What every command's run shares: its error type, the flags every command takes, output
//! paths, run descriptions, the JSON summary.

use pendula::model::Chain;
use pendula::spec::{self, Spec, SpecError};
use pendula::store;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A failure, sorted by who can fix it.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit code 2.
    Input(String),
    /// The run failed (blow-up, I/O, interrupted): exit code 1.
    Run(String),
}

impl From<SpecError> for CliError {
    fn from(e: SpecError) -> Self {
        CliError::Input(e.to_string())
    }
}

/// A run that failed (blow-up, step size collapse): exit 1 with the reason.
impl From<pendula::analysis::AnalysisError> for CliError {
    fn from(e: pendula::analysis::AnalysisError) -> Self {
        CliError::Run(e.to_string())
    }
}

/// An option the estimator refuses is bad input naming its field; anything else, a failed run.
impl From<pendula::analysis::lyapunov::LyapunovError> for CliError {
    fn from(e: pendula::analysis::lyapunov::LyapunovError) -> Self {
        use pendula::analysis::lyapunov::LyapunovError;
        match e {
            LyapunovError::Invalid { field, value, why } => {
                CliError::Input(format!("lyapunov.{field}: {why} (got {value})"))
            }
            other => CliError::Run(other.to_string()),
        }
    }
}

/// Modes that cannot be computed (a singular mass matrix, no convergence): a failed run.
impl From<pendula::analysis::modes::ModesError> for CliError {
    fn from(e: pendula::analysis::modes::ModesError) -> Self {
        CliError::Run(e.to_string())
    }
}

/// A section whose orbits failed: a failed run.
impl From<pendula::analysis::poincare::PoincareError> for CliError {
    fn from(e: pendula::analysis::poincare::PoincareError) -> Self {
        CliError::Run(e.to_string())
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
        CliError::Run(e.to_string())
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

    /// Writes the result file through [`store::write_file`] when the run has one (`-o` or
    /// `[output] file`).
    pub fn write(
        &self,
        body: impl FnOnce(&store::H5Out) -> Result<(), store::StoreError>,
    ) -> Result<(), CliError> {
        if let Some(path) = &self.outputs.file {
            let prov = self.provenance();
            store::write_file(path, self.common.force, &prov, &self.spec.title, body)?;
        }
        Ok(())
    }
}

/// Sizes rayon's global pool for `--threads N` (all cores when absent). Called once, before any
/// work, so the pool cannot exist yet and `build_global` cannot fail.
pub fn set_threads(threads: Option<usize>) -> Result<(), CliError> {
    if let Some(n) = threads {
        if n == 0 {
            return Err(CliError::Input("--threads: must be >= 1 (got 0)".into()));
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

/// What the store's result writers record about a planar chain's run.
pub fn run_info(spec: &Spec) -> Result<store::RunInfo<'_>, CliError> {
    Ok(store::RunInfo {
        title: &spec.title,
        model_name: &spec.model_name,
        chain: planar(spec)?,
        method: &spec.method,
        x0: &spec.x0,
    })
}

/// The planar chain of a spec whose analysis only the planar chain offers (poincare, map,
/// animate: the spec's validation refused any other model).
pub fn planar(spec: &Spec) -> Result<&Chain, CliError> {
    spec.model.planar().ok_or_else(|| {
        CliError::Input(format!(
            "{} is offered for the planar chain only",
            spec.analysis.kind()
        ))
    })
}
