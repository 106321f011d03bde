//! The clap definitions, and the mapping of flags onto a [`SpecFile`].

use super::CliError;
use clap::{Args, Parser, Subcommand};
use pendula::spec::{self, EquilibriaSpec, ExponentsSpec, SimulateSpec, SpecFile};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "pendula",
    version,
    about = "Chaos in pendulum chains: trajectories, Lyapunov spectra, sections, modes, fractals"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Integrate a chain from an initial state and write the sampled trajectory.
    Simulate(SimulateArgs),
    /// Equilibria, small-oscillation normal modes and the small-angle formula checks.
    Modes(ModesArgs),
    /// Lyapunov exponents (spectrum, maximal exponent, SALI/GALI) with convergence diagnostics.
    Lyapunov(LyapunovArgs),
    /// Poincaré sections on energy shells (or stroboscopic sections of a driven chain).
    Poincare(Box<super::poincare::PoincareArgs>),
    /// Run an analysis spec (analyses/*.toml).
    Run(RunArgs),
    /// Initial-condition map (flip-time fractal, energy error, Lyapunov): tiled, resumable, shardable.
    Map(super::map::MapArgs),
    /// Join the shard files of one map into the map a single run would write.
    Merge(super::map::MergeArgs),
    /// Draw the figure of a map file.
    Render(super::map::RenderArgs),
    /// Benchmarks of shared/benchmarks.md (`bench flip`: benchmark F).
    Bench(super::bench::BenchArgs),
    /// Animated GIF / PNG frames of a chain with fading traces and kinetic-energy bars.
    Animate(Box<super::animate::AnimateArgs>),
    /// Live viewer in the browser (binds 127.0.0.1 only).
    Serve(super::serve::ServeArgs),
    /// LQR about a vertical equilibrium of a cart chain ([model] kind = "cart-chain") and the
    /// nonlinear closed loop from a tilted start.
    Control(super::cart::ControlArgs),
}

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct ModesArgs {
    /// Start from this analysis spec (kind = "modes"); the flags below override it.
    #[arg(long, value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Equilibria: hanging (default), all, or sign strings like +-+ (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "hanging|all|+-…"
    )]
    pub equilibria: Option<Vec<String>>,
    /// Compare with the small-angle closed forms (on by default; --check=false to skip).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub check: Option<bool>,
    /// Start the nonlinear model in each mode and measure its frequency.
    #[arg(long)]
    pub verify_nonlinear: bool,
    /// Release amplitude (rad) for --verify-nonlinear (default 1e-3).
    #[arg(long)]
    pub amplitude: Option<f64>,
    /// Linear periods integrated per measurement (default 20).
    #[arg(long)]
    pub periods: Option<f64>,
    /// Amplitudes (rad) for the lowest mode's amplitude dependence, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub amplitudes: Option<Vec<f64>>,
    #[command(flatten)]
    pub common: Common,
}

impl ModesArgs {
    pub fn to_spec_file(&self) -> Result<(SpecFile, FlagMap), CliError> {
        let mut file = base_spec(&self.spec, "modes")?;
        let mut flags: FlagMap = vec![];
        self.model.apply(&mut file, &mut flags)?;
        let m = file.modes.get_or_insert_with(Default::default);
        if let Some(e) = &self.equilibria {
            m.equilibria = Some(if e.len() == 1 {
                EquilibriaSpec::Word(e[0].clone())
            } else {
                EquilibriaSpec::List(e.clone())
            });
            flags.push(("modes.equilibria", "--equilibria"));
        }
        if let Some(c) = self.check {
            m.check = Some(c);
        }
        if self.verify_nonlinear {
            m.verify_nonlinear = Some(true);
        }
        for (v, target, field, flag) in [
            (
                &self.amplitude,
                &mut m.amplitude,
                "modes.amplitude",
                "--amplitude",
            ),
            (&self.periods, &mut m.periods, "modes.periods", "--periods"),
        ] {
            if let Some(v) = v {
                *target = Some(*v);
                flags.push((field, flag));
            }
        }
        if let Some(a) = &self.amplitudes {
            m.amplitudes = Some(a.clone());
            flags.push(("modes.amplitudes", "--amplitudes"));
        }
        if self.spec.is_none() {
            flags.extend(ALL_FLAGS);
        }
        Ok((file, flags))
    }
}

/// Flags every command shares.
#[derive(Debug, Args, Clone)]
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
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The analysis spec (TOML).
    pub spec: PathBuf,
    #[command(flatten)]
    pub common: Common,
}

const ALL_FLAGS: [(&str, &str); 20] = [
    ("modes.equilibria", "--equilibria"),
    ("modes.amplitude", "--amplitude"),
    ("modes.periods", "--periods"),
    ("modes.amplitudes", "--amplitudes"),
    ("model.preset", "--preset"),
    ("model.links", "--links"),
    ("model.length", "--length"),
    ("model.mass", "--mass"),
    ("model.gravity", "--gravity"),
    ("initial.theta", "--theta"),
    ("initial.theta_deg", "--theta-deg"),
    ("initial.omega", "--omega"),
    ("simulate.t_end", "--t-end"),
    ("simulate.dt_out", "--dt-out"),
    ("integrator.method", "--method"),
    ("integrator.dt", "--dt"),
    ("integrator.substeps", "--substeps"),
    ("integrator.rtol", "--rtol"),
    ("integrator.atol", "--atol"),
    ("integrator.h_max", "--h-max"),
];

/// Flags that describe the model (shared by every command that takes one).
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Read the model from this TOML file (the fields of a spec's [model] table).
    #[arg(long, value_name = "MODEL.toml", conflicts_with = "preset")]
    pub model: Option<PathBuf>,
    /// Model preset: simple, double, triple, chain, rods (default double).
    #[arg(long)]
    pub preset: Option<String>,
    /// Number of links (for the chain and rods presets).
    #[arg(long, value_name = "N")]
    pub links: Option<usize>,
    /// Link length for presets (m).
    #[arg(long)]
    pub length: Option<f64>,
    /// Link mass for presets (kg).
    #[arg(long)]
    pub mass: Option<f64>,
    /// Gravity (m/s²).
    #[arg(long)]
    pub gravity: Option<f64>,
}

impl ModelArgs {
    /// Applies these flags to a spec's `[model]`, recording which fields came from flags.
    pub fn apply(&self, file: &mut SpecFile, flags: &mut FlagMap) -> Result<(), CliError> {
        macro_rules! set {
            ($value:expr, $target:expr, $field:literal, $flag:literal) => {
                if let Some(v) = &$value {
                    $target = Some(v.clone());
                    flags.push(($field, $flag));
                }
            };
        }
        if let Some(p) = &self.model {
            let text = std::fs::read_to_string(p).map_err(|e| {
                CliError::Input(format!("--model: cannot read `{}`: {e}", p.display()))
            })?;
            file.model = spec::parse_model(&text, &p.display().to_string())?;
        }
        if let Some(p) = &self.preset {
            file.model.link = None;
            file.model.preset = Some(p.clone());
            flags.push(("model.preset", "--preset"));
        }
        if file.model.preset.is_none() && file.model.link.is_none() {
            file.model.preset = Some("double".into());
        }
        set!(self.links, file.model.links, "model.links", "--links");
        set!(self.length, file.model.length, "model.length", "--length");
        set!(self.mass, file.model.mass, "model.mass", "--mass");
        set!(
            self.gravity,
            file.model.gravity,
            "model.gravity",
            "--gravity"
        );
        Ok(())
    }
}

/// Reads `--spec` (checking its kind) or starts an empty spec of `kind`.
pub(super) fn base_spec(spec: &Option<PathBuf>, kind: &str) -> Result<SpecFile, CliError> {
    let file = match spec {
        Some(p) => super::read_spec(p)?,
        None => SpecFile {
            kind: Some(kind.into()),
            ..Default::default()
        },
    };
    if file.kind.as_deref() != Some(kind) {
        return Err(CliError::Input(format!(
            "--spec: the spec's kind is `{}`, not {kind} (use `pendula run`)",
            file.kind.as_deref().unwrap_or("missing")
        )));
    }
    Ok(file)
}

/// (spec field, flag) pairs, so that errors name the flag the user typed.
pub type FlagMap = Vec<(&'static str, &'static str)>;

/// Initial-state flags (simulate, lyapunov).
#[derive(Debug, Args)]
pub struct InitialArgs {
    /// Initial angles (rad), comma-separated, from the downward vertical.
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_name = "θ1,θ2,…"
    )]
    pub theta: Option<Vec<f64>>,
    /// Initial angles in degrees (instead of --theta).
    #[arg(
        long,
        value_delimiter = ',',
        allow_hyphen_values = true,
        conflicts_with = "theta"
    )]
    pub theta_deg: Option<Vec<f64>>,
    /// Initial angular velocities (rad/s), default 0.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub omega: Option<Vec<f64>>,
}

impl InitialArgs {
    pub(super) fn apply(&self, file: &mut SpecFile, flags: &mut FlagMap) {
        if self.theta.is_some() || self.theta_deg.is_some() {
            file.initial.theta = None;
            file.initial.theta_deg = None;
        }
        set(
            &self.theta,
            &mut file.initial.theta,
            ("initial.theta", "--theta"),
            flags,
        );
        set(
            &self.theta_deg,
            &mut file.initial.theta_deg,
            ("initial.theta_deg", "--theta-deg"),
            flags,
        );
        set(
            &self.omega,
            &mut file.initial.omega,
            ("initial.omega", "--omega"),
            flags,
        );
    }
}

/// Integrator flags (simulate, lyapunov).
#[derive(Debug, Args)]
pub struct IntegratorArgs {
    /// Integrator: rk4, dop853 or gauss.
    #[arg(long)]
    pub method: Option<String>,
    /// Fixed step for rk4 and gauss (s).
    #[arg(long, allow_hyphen_values = true)]
    pub dt: Option<f64>,
    /// Steps per output sample for rk4 and gauss (instead of --dt; simulate only).
    #[arg(long, conflicts_with = "dt")]
    pub substeps: Option<u64>,
    /// Relative tolerance of dop853.
    #[arg(long, allow_hyphen_values = true)]
    pub rtol: Option<f64>,
    /// Absolute tolerance of dop853.
    #[arg(long, allow_hyphen_values = true)]
    pub atol: Option<f64>,
    /// Largest step of dop853 (s).
    #[arg(long, allow_hyphen_values = true)]
    pub h_max: Option<f64>,
}

impl IntegratorArgs {
    fn apply(&self, file: &mut SpecFile, flags: &mut FlagMap) {
        let integ = &mut file.integrator;
        if let Some(m) = &self.method {
            if integ.method.as_deref() != Some(m) {
                // A different method: the file's method-specific settings no longer apply.
                *integ = Default::default();
            }
        }
        set(
            &self.method,
            &mut integ.method,
            ("integrator.method", "--method"),
            flags,
        );
        set(&self.dt, &mut integ.dt, ("integrator.dt", "--dt"), flags);
        set(
            &self.substeps,
            &mut integ.substeps,
            ("integrator.substeps", "--substeps"),
            flags,
        );
        set(
            &self.rtol,
            &mut integ.rtol,
            ("integrator.rtol", "--rtol"),
            flags,
        );
        set(
            &self.atol,
            &mut integ.atol,
            ("integrator.atol", "--atol"),
            flags,
        );
        set(
            &self.h_max,
            &mut integ.h_max,
            ("integrator.h_max", "--h-max"),
            flags,
        );
    }
}

/// Copies a flag's value into the spec and records that the field came from that flag.
pub(super) fn set<T: Clone>(
    value: &Option<T>,
    target: &mut Option<T>,
    names: (&'static str, &'static str),
    flags: &mut FlagMap,
) {
    if let Some(v) = value {
        *target = Some(v.clone());
        flags.push(names);
    }
}

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct SimulateArgs {
    /// Start from this analysis spec; the flags below override it.
    #[arg(long, value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub initial: InitialArgs,
    /// End time (s).
    #[arg(long, allow_hyphen_values = true)]
    pub t_end: Option<f64>,
    /// Sampling interval (s), default 0.01.
    #[arg(long, allow_hyphen_values = true)]
    pub dt_out: Option<f64>,
    #[command(flatten)]
    pub integrator: IntegratorArgs,
    #[command(flatten)]
    pub figures: super::animate::FigureArgs,
    #[command(flatten)]
    pub common: Common,
}

impl SimulateArgs {
    /// The spec these flags describe, and which fields came from flags.
    pub fn to_spec_file(&self) -> Result<(SpecFile, FlagMap), CliError> {
        let mut file = base_spec(&self.spec, "simulate")?;
        let mut flags: FlagMap = vec![];
        self.model.apply(&mut file, &mut flags)?;
        self.initial.apply(&mut file, &mut flags);
        let sim = file.simulate.get_or_insert_with(SimulateSpec::default);
        set(
            &self.t_end,
            &mut sim.t_end,
            ("simulate.t_end", "--t-end"),
            &mut flags,
        );
        set(
            &self.dt_out,
            &mut sim.dt_out,
            ("simulate.dt_out", "--dt-out"),
            &mut flags,
        );
        self.integrator.apply(&mut file, &mut flags);
        self.figures.apply(&mut file, &mut flags);
        if self.spec.is_none() {
            // Everything came from flags or their defaults: name the flag in every error.
            flags.extend(ALL_FLAGS);
        }
        Ok((file, flags))
    }
}

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct LyapunovArgs {
    /// Start from this analysis spec (kind = "lyapunov"); the flags below override it.
    #[arg(long, value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub initial: InitialArgs,
    /// Estimator: spectrum (default), tangent, two-trajectory or sali.
    #[arg(long)]
    pub estimator: Option<String>,
    /// Number of exponents k, or "all" (default).
    #[arg(long, value_name = "k|all")]
    pub exponents: Option<String>,
    /// Re-orthonormalization interval τ (s), default 0.01.
    #[arg(long, allow_hyphen_values = true)]
    pub tau: Option<f64>,
    /// Transient (s) whose logs are discarded, default 10.
    #[arg(long, allow_hyphen_values = true)]
    pub transient: Option<f64>,
    /// Averaging time after the transient (s), default 200.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "t_max")]
    pub time: Option<f64>,
    /// End time = transient + averaging time (s), instead of --time.
    #[arg(long, allow_hyphen_values = true)]
    pub t_max: Option<f64>,
    /// Stop once every standard error is below this (1/s).
    #[arg(long, allow_hyphen_values = true)]
    pub tol: Option<f64>,
    /// Initial separation of the two-trajectory method.
    #[arg(long, allow_hyphen_values = true)]
    pub d0: Option<f64>,
    /// Run an ensemble of N perturbed initial conditions (mean ± standard error).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub ensemble: Option<usize>,
    /// Size of the ensemble's perturbations (default 1e-10).
    #[arg(long, allow_hyphen_values = true)]
    pub epsilon: Option<f64>,
    /// Seed of the ensemble's perturbations.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub integrator: IntegratorArgs,
    #[command(flatten)]
    pub common: Common,
}

impl LyapunovArgs {
    pub fn to_spec_file(&self) -> Result<(SpecFile, FlagMap), CliError> {
        let mut file = base_spec(&self.spec, "lyapunov")?;
        let mut flags: FlagMap = vec![];
        self.model.apply(&mut file, &mut flags)?;
        self.initial.apply(&mut file, &mut flags);
        self.integrator.apply(&mut file, &mut flags);
        let l = file.lyapunov.get_or_insert_with(Default::default);
        set(
            &self.estimator,
            &mut l.estimator,
            ("lyapunov.estimator", "--estimator"),
            &mut flags,
        );
        if let Some(e) = &self.exponents {
            l.exponents = Some(match e.parse::<usize>() {
                Ok(k) => ExponentsSpec::Count(k),
                Err(_) => ExponentsSpec::Word(e.clone()),
            });
            flags.push(("lyapunov.exponents", "--exponents"));
        }
        set(&self.tau, &mut l.tau, ("lyapunov.tau", "--tau"), &mut flags);
        set(
            &self.transient,
            &mut l.transient,
            ("lyapunov.transient", "--transient"),
            &mut flags,
        );
        if self.time.is_some() || self.t_max.is_some() {
            l.time = None;
            l.t_max = None;
        }
        set(
            &self.time,
            &mut l.time,
            ("lyapunov.time", "--time"),
            &mut flags,
        );
        set(
            &self.t_max,
            &mut l.t_max,
            ("lyapunov.t_max", "--t-max"),
            &mut flags,
        );
        set(
            &self.tol,
            &mut l.tolerance,
            ("lyapunov.tolerance", "--tol"),
            &mut flags,
        );
        set(&self.d0, &mut l.d0, ("lyapunov.d0", "--d0"), &mut flags);
        set(
            &self.ensemble,
            &mut l.ensemble,
            ("lyapunov.ensemble", "--ensemble"),
            &mut flags,
        );
        set(
            &self.epsilon,
            &mut l.epsilon,
            ("lyapunov.epsilon", "--epsilon"),
            &mut flags,
        );
        set(
            &self.seed,
            &mut l.seed,
            ("lyapunov.seed", "--seed"),
            &mut flags,
        );
        if self.spec.is_none() {
            flags.extend(ALL_FLAGS);
            flags.extend(LYAPUNOV_FLAGS);
        }
        Ok((file, flags))
    }
}

const LYAPUNOV_FLAGS: [(&str, &str); 12] = [
    ("lyapunov.estimator", "--estimator"),
    ("lyapunov.exponents", "--exponents"),
    ("lyapunov.tau", "--tau"),
    ("lyapunov.transient", "--transient"),
    ("lyapunov.time", "--time"),
    ("lyapunov.t_max", "--t-max"),
    ("lyapunov.tolerance", "--tol"),
    ("lyapunov.d0", "--d0"),
    ("lyapunov.ensemble", "--ensemble"),
    ("lyapunov.epsilon", "--epsilon"),
    ("lyapunov.seed", "--seed"),
    ("lyapunov.blocks", "--blocks"),
];
