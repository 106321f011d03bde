//! `pendula measure --chaotic-fraction`: the chaotic fraction of energy shells of a chain (SALI
//! on Liouville-uniform starts), no label grid but a model and a run instead.

use super::{as_input, MeasureArgs};
use crate::cli::output::CliError;
use clap::Args;
use pendula::kinds::measure::{chaotic, ChaoticChoices};
use std::path::PathBuf;
use std::time::Instant;

/// The chaotic fraction of energy shells (issue 16, item 5): no label grid, a model instead.
/// The model and run flags keep the names the spec commands give them (src/cli/flags.rs).
#[derive(Debug, Args)]
pub struct ChaoticArgs {
    /// Measure the chaotic fraction of energy shells of a chain (SALI on Liouville-uniform
    /// starts) instead of a label grid.
    #[arg(
        long,
        conflicts_with_all = ["input", "labels", "variable", "flip_before", "extent", "wada_radius"]
    )]
    pub chaotic_fraction: bool,
    /// Shell energies (J), comma-separated; each must be above the hanging rest's.
    #[arg(
        long,
        value_name = "E1,E2,…",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub energies: Vec<f64>,
    /// Starts sampled per energy shell.
    #[arg(long, value_name = "S")]
    pub samples: Option<usize>,
    /// End of each SALI run (s), default 200; a fraction belongs to its t_end.
    #[arg(long, value_name = "S")]
    pub t_end: Option<f64>,
    /// Fixed RK4 step (s), default 0.005.
    #[arg(long, value_name = "S")]
    pub dt: Option<f64>,
    /// SALI renormalisation interval τ (s), a multiple of --dt, default 0.1.
    #[arg(long, value_name = "S")]
    pub tau: Option<f64>,
    /// Model preset (default double).
    #[arg(long, value_name = "simple|double|triple|chain|rods")]
    pub preset: Option<String>,
    /// Read the model from this TOML file (the fields of a spec's [model]).
    #[arg(long, value_name = "MODEL.toml", conflicts_with = "preset")]
    pub model: Option<PathBuf>,
    /// Number of links (chain and rods presets).
    #[arg(long, value_name = "N")]
    pub links: Option<usize>,
    /// Link length (m) of a preset.
    #[arg(long, value_name = "M")]
    pub length: Option<f64>,
    /// Link mass (kg) of a preset.
    #[arg(long, value_name = "KG")]
    pub mass: Option<f64>,
    /// Gravity (m/s²).
    #[arg(long, value_name = "G")]
    pub gravity: Option<f64>,
}

impl ChaoticArgs {
    /// The first chaotic-fraction flag given (clap's `requires` is met by a switch's default).
    pub(super) fn given(&self) -> Option<&'static str> {
        [
            ("--energies", !self.energies.is_empty()),
            ("--samples", self.samples.is_some()),
            ("--t-end", self.t_end.is_some()),
            ("--dt", self.dt.is_some()),
            ("--tau", self.tau.is_some()),
            ("--preset", self.preset.is_some()),
            ("--model", self.model.is_some()),
            ("--links", self.links.is_some()),
            ("--length", self.length.is_some()),
            ("--mass", self.mass.is_some()),
            ("--gravity", self.gravity.is_some()),
        ]
        .into_iter()
        .find_map(|(f, g)| g.then_some(f))
    }
}

impl ChaoticArgs {
    /// The run as the library takes it.
    fn choices(&self, seed: u64) -> ChaoticChoices {
        ChaoticChoices {
            energies: self.energies.clone(),
            samples: self.samples,
            seed: Some(seed),
            t_end: self.t_end,
            dt: self.dt,
            tau: self.tau,
        }
    }

    /// The flag that names model field `field` (`model.mass`): its flag when given, else the
    /// `--model` file it came from, else the preset.
    fn model_flag(&self, field: &str) -> String {
        let given = |long: &str| match long {
            "preset" => self.preset.is_some(),
            "links" => self.links.is_some(),
            "length" => self.length.is_some(),
            "mass" => self.mass.is_some(),
            "gravity" => self.gravity.is_some(),
            _ => false,
        };
        match crate::cli::flags::flag_of(field, "map") {
            Some(f) if given(f.long) => format!("--{}", f.long),
            _ if self.model.is_some() => "--model".into(),
            _ => "--preset".into(),
        }
    }
}

/// The chain `--model`/`--preset` and the other model flags describe, as the spec commands
/// build it (default: the equal double pendulum); errors name the flag. The run's memory
/// ([`pendula::spec::chaotic_estimate`]: its links, samples and energies) is checked against
/// `budget` before the chain is built.
fn chain(
    c: &ChaoticArgs,
    samples: usize,
    budget: &pendula::spec::Budget,
) -> Result<(pendula::model::Chain, String), CliError> {
    use pendula::spec::{self, Model, ModelFile, ModelSpec};
    let mut file = match &c.model {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                CliError::Input(format!("--model: cannot read `{}`: {e}", p.display()))
            })?;
            spec::parse_model(&text, &p.display().to_string())
                .map_err(|e| CliError::Input(format!("--model: {e}")))?
        }
        None => ModelFile::Planar(ModelSpec::default()),
    };
    let ModelFile::Planar(m) = &mut file else {
        return Err(as_input(chaotic::needs_planar()));
    };
    if c.preset.is_some() {
        m.preset = c.preset.clone();
    }
    if m.preset.is_none() && m.link.is_none() {
        m.preset = Some("double".into());
    }
    m.links = c.links.or(m.links);
    m.length = c.length.or(m.length);
    m.mass = c.mass.or(m.mass);
    m.gravity = c.gravity.or(m.gravity);
    let links = file.link_count();
    let estimate = spec::chaotic_estimate(links, samples, c.energies.len());
    spec::over_budget(&estimate, budget).map_err(|e| {
        CliError::Input(e.render(&|f| match f {
            "links" => c.model_flag("model.links"),
            f => super::flag(f),
        }))
    })?;
    // A field a flag set is named by the flag; the rest came from the --model file.
    let (model, name) = file
        .build()
        .map_err(|e| CliError::Input(e.render(&|f| c.model_flag(f))))?;
    match model {
        Model::Planar(chain) => Ok((chain, name)),
        Model::Cart(_) => unreachable!("a planar model file builds a planar chain"),
    }
}

/// `pendula measure --chaotic-fraction …`: samples, classifies, then writes the HDF5 group
/// `measure/chaotic_fraction`, the figure and the JSON line or text table. Every check runs
/// before any output is touched.
pub(super) fn command(
    a: &MeasureArgs,
    command_line: &str,
    cancel: &pendula::observe::Cancel,
) -> Result<(), CliError> {
    let c = &a.chaotic;
    let choices = c.choices(a.seed);
    let samples = choices.samples().map_err(as_input)?;
    let (chain, name) = chain(c, samples, &a.common.budget())?;
    let opts = choices.options().map_err(as_input)?;
    // The library's own checks (conservative chain, energies above the hanging rest) on no
    // work at all, so a refusal comes before any output path is prepared.
    chaotic::check(&chain, &c.energies).map_err(as_input)?;
    let (file, plot) = (&a.common.output, &a.common.plot);
    if let Some(p) = file {
        crate::cli::output::check_result_path(p, "-o")?;
    }
    if let Some(p) = plot {
        crate::cli::output::check_figure_path(p, "--plot")?;
    }
    for (flag, p) in [("-o", file), ("--plot", plot)] {
        if let Some(p) = p {
            crate::cli::output::prepare_path(p, a.common.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    let start = Instant::now();
    // A stop keeps the shells finished before it: written marked incomplete (`complete = 0`),
    // then the run fails as every interrupted run does.
    let f = chaotic::run(&chain, name, &c.energies, samples, a.seed, opts, cancel)
        .map_err(super::label::cli_error)?;
    let wall = start.elapsed().as_secs_f64();
    let outputs = crate::cli::output::Outputs {
        file: file.clone(),
        plot: plot.clone(),
    };
    let title = f.title.clone();
    crate::cli::output::finish_command(
        &outputs,
        (a.common.force, a.common.json),
        (command_line, ""),
        &title,
        Box::new(f),
        wall,
    )
}
