//! `pendula measure`: boundary box dimension, uncertainty exponent, basin entropy and the Wada
//! test of a label grid: a pendula map file (flip maps thresholded at flip times, or classes)
//! or any 2-D integer dataset of any HDF5 file (`--labels FILE.h5:/path`).
//!
//! The flags only translate into the kind's [`MeasureChoices`] and
//! [`pendula::kinds::measure::ChaoticChoices`], whose defaults and checks are the library's; an
//! error names its field as data, spelt here as a flag by [`flag`]. The kind
//! ([`pendula::kinds::measure`]) reads, measures, writes, draws and reports; here: the label
//! grids' run ([`label`]), a `kind = "measure"` spec and its sweep ([`sweep`]), and the chaotic
//! fraction of energy shells ([`chaotic`]).

mod chaotic;
mod label;
mod sweep;

use super::output::{CliError, Common};
use clap::Args;
use pendula::error::FieldError;
use pendula::kinds::measure::{
    parse_extent, MeasureChoices, MeasureOptions, What, DEFAULT_MAX_EPS, DEFAULT_SEED,
    DEFAULT_SHIFTS,
};
use std::path::{Path, PathBuf};

pub use chaotic::ChaoticArgs;
pub use label::{run_job, Job};
pub use pendula::kinds::measure::{Input, Source};
pub use sweep::run_spec;

/// The measure run of a measure spec (None: another kind), found through the registry.
pub fn run_of(spec: &pendula::spec::Spec) -> Option<&pendula::kinds::measure::MeasureRun> {
    pendula::kinds::measure::run_of(&*spec.analysis)
}

#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// A map file written by `pendula map` or `pendula merge`.
    #[arg(
        value_name = "FILE.h5",
        required_unless_present_any = ["labels", "chaotic_fraction"],
        conflicts_with = "labels"
    )]
    pub input: Option<PathBuf>,
    /// Any HDF5 file's 2-D integer dataset as the labels: FILE.h5:/path/to/dataset.
    #[arg(long, value_name = "FILE.h5:/DATASET")]
    pub labels: Option<String>,
    /// The map variable the labels come from: flip_step (flip maps' default: flipped or not),
    /// flip_link (which link flipped first) or class (every other map's default).
    #[arg(long, value_name = "V")]
    pub variable: Option<String>,
    /// Flip maps: label a pixel flipped when it flipped at or before T seconds; several
    /// thresholds (comma-separated) measure one label grid each (default: t_max).
    #[arg(long, value_name = "T[,T…]", value_delimiter = ',')]
    pub flip_before: Vec<f64>,
    /// Physical extent of the grid's pixel edges, overriding its dimension scales.
    #[arg(long, value_name = "x0,x1,y0,y1", allow_hyphen_values = true)]
    pub extent: Option<String>,
    /// What to measure: boundary-dimension, uncertainty-exponent, basin-entropy, wada or all.
    #[arg(long, value_name = "WHAT", default_value = "all", value_parser = parse_what)]
    pub what: What,
    /// Largest ε (pixels) of the uncertainty exponent; ε = 1 … K are fitted.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_MAX_EPS)]
    pub max_eps: usize,
    /// Box sides ε (pixels) of the basin entropy, comma-separated.
    #[arg(
        long,
        value_name = "E[,E…]",
        value_delimiter = ',',
        default_value = "2,3,5,8"
    )]
    pub entropy_eps: Vec<usize>,
    /// Random box-grid shifts of box counting and basin entropy (their intervals' spread).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SHIFTS)]
    pub shifts: usize,
    /// Seed of the box-grid shifts, or of the starts of --chaotic-fraction.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Largest Wada neighbourhood radius in pixels (default: shorter side / 64).
    #[arg(long, value_name = "R")]
    pub wada_radius: Option<usize>,
    #[command(flatten)]
    pub chaotic: ChaoticArgs,
    #[command(flatten)]
    pub common: Common,
}

fn parse_what(s: &str) -> Result<What, String> {
    What::parse(s).ok_or_else(|| format!("expected one of {}", What::NAMES.join(", ")))
}

impl MeasureArgs {
    fn source(&self) -> Result<Source, CliError> {
        let input = match (&self.input, &self.labels) {
            (Some(p), None) => Input::Map(p.clone()),
            (None, Some(l)) => {
                let (f, d) = l.split_once(":/").ok_or_else(|| {
                    CliError::Input(format!(
                        "--labels: expected FILE.h5:/path/to/dataset (got `{l}`)"
                    ))
                })?;
                Input::Labels {
                    file: PathBuf::from(f),
                    dataset: format!("/{d}"),
                }
            }
            // clap refuses both; neither passes its check (a switch's default counts as given).
            _ => {
                return Err(CliError::Input(
                    "measure: give a map FILE.h5, --labels FILE.h5:/path or --chaotic-fraction"
                        .into(),
                ))
            }
        };
        let extent = self
            .extent
            .as_deref()
            .map(parse_extent)
            .transpose()
            .map_err(as_input)?;
        Ok(Source {
            input,
            variable: self.variable.clone(),
            flip_before: self.flip_before.clone(),
            extent,
        })
    }

    /// The measures' options: the library's defaults and checks on the flags' values.
    fn options(&self) -> Result<MeasureOptions, CliError> {
        MeasureChoices {
            what: Some(self.what.name().to_string()),
            max_eps: Some(self.max_eps),
            entropy_eps: Some(self.entropy_eps.clone()),
            shifts: Some(self.shifts),
            seed: Some(self.seed),
            wada_radius: self.wada_radius,
        }
        .options(None)
        .map_err(as_input)
    }
}

/// The flag of `pendula measure` that gives the library's field `field`: a measure option's
/// key is its flag (`max_eps` → `--max-eps`, `t_end` → `--t-end`), `measure` the command itself.
pub fn flag(field: &str) -> String {
    match field.strip_prefix("measure.").unwrap_or(field) {
        "measure" => "measure".into(),
        key => format!("--{}", key.replace('_', "-")),
    }
}

/// A library refusal as bad input, its field spelt as the flag.
fn as_input(e: FieldError) -> CliError {
    CliError::Input(e.render(&flag))
}

/// `pendula measure …`.
pub fn measure_command(a: &MeasureArgs, command_line: &str) -> Result<(), CliError> {
    super::output::set_threads(a.common.threads)?;
    // A stop signal asks the measures to stop; nothing is written then (exit 1).
    let cancel = super::progress::install_interrupt_handler();
    if a.chaotic.chaotic_fraction {
        return chaotic::command(a, command_line, &cancel);
    }
    if let Some(flag) = a.chaotic.given() {
        return Err(CliError::Input(format!(
            "{flag}: applies to --chaotic-fraction only (a label grid has no model or run)"
        )));
    }
    let src = a.source()?;
    let opts = a.options()?;
    let title = match &src.input {
        Input::Map(p) => format!("Measures of {}", file_name(p)),
        Input::Labels { file, dataset } => format!("Measures of {}:{dataset}", file_name(file)),
    };
    let job = Job {
        title,
        file: a.common.output.clone(),
        plot: a.common.plot.clone(),
        force: a.common.force,
        json: a.common.json,
        command_line,
        spec_text: String::new(),
        budget: a.common.budget(),
        cancel,
    };
    run_job(&src, &opts, &job)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
