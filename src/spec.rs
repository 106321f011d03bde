//! Analysis specifications: the TOML format of `analyses/*.toml`, shared with the CLI.
//!
//! A [`SpecFile`] is what was written (every field optional where a default exists, unknown fields
//! rejected); [`SpecFile::validate`] turns it into a [`Spec`], where every value has been checked
//! and every error names its field (`model.link[2].length: must be finite and > 0 (got -1)`).
//! The CLI fills a `SpecFile` from its flags, so flags and files share one validation.
//!
//! ```toml
//! kind = "simulate"
//! title = "Double pendulum released from rest"
//! [model]
//! preset = "double"           # simple | double | triple | chain | rods (chain, rods need `links`)
//! # or explicit links:  [[model.link]] length = 1.0, mass = 1.0, shape = "point" | "rod",
//! #                     or com = 0.4, inertia = 0.01 for a general rigid link
//! gravity = 9.81
//! [model.damping]             # N·m·s; a number (every link) or a list (one per link)
//! absolute = 0.0
//! joint = 0.0
//! [model.drive.torque]        # A cos(Ω t + φ) on link 1
//! amplitude = 0.0
//! frequency = 1.0
//! [model.drive.pivot]         # s(t) = (x_amplitude, y_amplitude) cos(Ω t + φ)
//! y_amplitude = 0.0
//! frequency = 1.0
//! [initial]
//! theta = [2.0, 2.0]          # rad (or theta_deg); omega defaults to 0
//! [integrator]
//! method = "dop853"           # rk4 (dt or substeps) | dop853 (rtol, atol) | gauss (dt, stages)
//! rtol = 1e-10
//! [simulate]
//! t_end = 20.0
//! dt_out = 0.01
//! [output]
//! file = "out/double.h5"
//! plot = "out/double.png"
//! ```

use crate::analysis::indicators::IndicatorOptions;
use crate::analysis::lyapunov::{EnsembleOptions, LyapunovOptions, TwoTrajectoryOptions};
use crate::analysis::map::{
    FlipTarget, Grid, GridAxis, Kernel, MapKind, MapOptions, Shell, Tiling,
};
use crate::analysis::modes::{Equilibrium, ModesError, ModesOptions, NonlinearOptions};
use crate::analysis::SimulateOptions;
use crate::integrate::Method;
use crate::model::{
    Chain, ChainParams, Damping, Drive, Harmonic, Link, LinkShape, ModelError, PivotMotion,
};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use thiserror::Error;

mod visual;
pub use visual::{AnimateSpec, Figures, FiguresSpec};

/// A bad value in a spec or on the command line; `field` is the spec path of the value.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("{field}: {message}")]
pub struct SpecError {
    pub field: String,
    pub message: String,
}

impl SpecError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A spec file as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// The analysis: `simulate` (later issues add more kinds).
    pub kind: Option<String>,
    pub title: Option<String>,
    #[serde(default)]
    pub model: ModelSpec,
    #[serde(default)]
    pub initial: InitialSpec,
    #[serde(default)]
    pub integrator: IntegratorSpec,
    pub simulate: Option<SimulateSpec>,
    pub modes: Option<ModesSpec>,
    pub lyapunov: Option<LyapunovSpec>,
    pub poincare: Option<PoincareSpec>,
    pub map: Option<MapSpec>,
    pub animate: Option<AnimateSpec>,
    /// Still figures of the visual lab (simulate and animate kinds).
    pub figures: Option<FiguresSpec>,
    #[serde(default)]
    pub output: OutputSpec,
}

/// The `[model]` table (also a stand-alone model file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub preset: Option<String>,
    /// Number of links for the `chain` and `rods` presets.
    pub links: Option<usize>,
    /// Link length (m) for presets (default 1).
    pub length: Option<f64>,
    /// Link mass (kg) for presets (default 1).
    pub mass: Option<f64>,
    pub link: Option<Vec<LinkSpec>>,
    pub gravity: Option<f64>,
    pub damping: Option<DampingSpec>,
    pub drive: Option<DriveSpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub length: Option<f64>,
    pub mass: Option<f64>,
    pub shape: Option<String>,
    pub com: Option<f64>,
    pub inertia: Option<f64>,
}

/// A number for every link, or one per link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PerLink {
    All(f64),
    Each(Vec<f64>),
}

impl PerLink {
    fn expand(&self, n: usize) -> Vec<f64> {
        match self {
            PerLink::All(v) => vec![*v; n],
            PerLink::Each(v) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DampingSpec {
    pub absolute: Option<PerLink>,
    pub joint: Option<PerLink>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSpec {
    pub torque: Option<HarmonicSpec>,
    pub pivot: Option<PivotSpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarmonicSpec {
    pub amplitude: f64,
    pub frequency: f64,
    #[serde(default)]
    pub phase: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PivotSpec {
    #[serde(default)]
    pub x_amplitude: f64,
    #[serde(default)]
    pub y_amplitude: f64,
    pub frequency: f64,
    #[serde(default)]
    pub phase: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialSpec {
    /// Angles (rad), absolute from the downward vertical.
    pub theta: Option<Vec<f64>>,
    /// Angles in degrees (alternative to `theta`).
    pub theta_deg: Option<Vec<f64>>,
    /// Angular velocities (rad/s); default 0.
    pub omega: Option<Vec<f64>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegratorSpec {
    /// `rk4`, `dop853` (default) or `gauss`.
    pub method: Option<String>,
    /// Fixed step (s) for rk4 and gauss (default 1e-3).
    pub dt: Option<f64>,
    /// Alternative to dt for fixed-step methods: steps per output sample (seed 002's sub-steps).
    pub substeps: Option<u64>,
    /// Relative / absolute tolerance for dop853 (default 1e-10).
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    /// Largest step of dop853 (s; default unbounded).
    pub h_max: Option<f64>,
    /// Gauss–Legendre stages: 2 (order 4) or 3 (order 6, default).
    pub stages: Option<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulateSpec {
    pub t_end: Option<f64>,
    pub dt_out: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// HDF5 result file.
    pub file: Option<PathBuf>,
    /// Figure (.png or .svg).
    pub plot: Option<PathBuf>,
}

/// A validated analysis.
#[derive(Debug, Clone)]
pub struct Spec {
    pub title: String,
    pub chain: Chain,
    /// Preset name or "custom", for titles and attributes.
    pub model_name: String,
    /// Initial state (θ, θ̇).
    pub x0: Vec<f64>,
    pub method: Method,
    pub analysis: Analysis,
    pub output: OutputSpec,
    /// Still figures of the visual lab (`[figures]`).
    pub figures: Figures,
    /// The spec as TOML (what was read, with the command line's overrides applied), for provenance.
    pub text: String,
}

/// The validated analysis kind and its options.
#[derive(Debug, Clone, PartialEq)]
pub enum Analysis {
    Simulate(SimulateOptions),
    Modes(ModesOptions),
    Lyapunov(LyapunovRun),
    Poincare(crate::analysis::poincare::PoincareOptions),
    Map(MapOptions),
    Animate(crate::analysis::AnimateOptions),
}

/// Which Lyapunov estimator, with its options.
#[derive(Debug, Clone, PartialEq)]
pub struct LyapunovRun {
    pub estimator: LyapunovEstimator,
    pub options: LyapunovOptions,
    /// Members of a perturbed ensemble (None: a single orbit).
    pub ensemble: Option<EnsembleOptions>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LyapunovEstimator {
    /// QR method, k exponents.
    Spectrum,
    /// One tangent vector.
    Tangent,
    /// Two trajectories with rescaling.
    TwoTrajectory(TwoTrajectoryOptions),
    /// SALI / GALI fast indicators.
    Sali(IndicatorOptions),
}

impl LyapunovEstimator {
    pub fn name(&self) -> &'static str {
        match self {
            LyapunovEstimator::Spectrum => "spectrum",
            LyapunovEstimator::Tangent => "tangent",
            LyapunovEstimator::TwoTrajectory(_) => "two-trajectory",
            LyapunovEstimator::Sali(_) => "sali",
        }
    }
}

/// The `[lyapunov]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LyapunovSpec {
    /// `spectrum` (default), `tangent`, `two-trajectory` or `sali`.
    pub estimator: Option<String>,
    /// Number of exponents: an integer, or "all" (default).
    pub exponents: Option<ExponentsSpec>,
    /// Re-orthonormalization interval τ (s), default 0.01 (a multiple of dt for rk4/gauss).
    pub tau: Option<f64>,
    /// Transient (s) integrated with the logs discarded, default 10.
    pub transient: Option<f64>,
    /// Averaging time (s) after the transient, default 200 (or give `t_max`).
    pub time: Option<f64>,
    /// End time transient + time (s), instead of `time`.
    pub t_max: Option<f64>,
    /// Stopping rule: stop once every standard error is below this (1/s).
    pub tolerance: Option<f64>,
    /// Blocks for the batch-means standard errors (>= 10, default 20).
    pub blocks: Option<usize>,
    /// Initial separation of the two-trajectory method (default 1e-8).
    pub d0: Option<f64>,
    /// Members of a perturbed ensemble (>= 2), with perturbation size `epsilon` and `seed`.
    pub ensemble: Option<usize>,
    pub epsilon: Option<f64>,
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExponentsSpec {
    Count(usize),
    Word(String),
}

impl LyapunovSpec {
    fn run(&self, dim: usize) -> Result<LyapunovRun, SpecError> {
        let d = LyapunovOptions::default();
        let k = match &self.exponents {
            None => None,
            Some(ExponentsSpec::Word(w)) if w == "all" => None,
            Some(ExponentsSpec::Word(w)) => {
                return Err(SpecError::new(
                    "lyapunov.exponents",
                    format!("expected a number or \"all\" (got `{w}`)"),
                ))
            }
            Some(ExponentsSpec::Count(k)) => {
                if *k == 0 || *k > dim {
                    return Err(SpecError::new(
                        "lyapunov.exponents",
                        format!("must be between 1 and 2N = {dim} (got {k})"),
                    ));
                }
                Some(*k)
            }
        };
        let tau = positive("lyapunov.tau", self.tau.unwrap_or(d.tau))?;
        let transient = self.transient.unwrap_or(d.transient);
        if !(transient.is_finite() && transient >= 0.0) {
            return Err(SpecError::new(
                "lyapunov.transient",
                format!("must be finite and >= 0 (got {transient})"),
            ));
        }
        let time = match (self.time, self.t_max) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "lyapunov.t_max",
                    "give either `time` or `t_max`, not both",
                ))
            }
            (Some(t), None) => positive("lyapunov.time", t)?,
            (None, Some(t)) => {
                let t = positive("lyapunov.t_max", t)?;
                if t <= transient {
                    return Err(SpecError::new(
                        "lyapunov.t_max",
                        format!("must exceed the transient ({t} <= {transient})"),
                    ));
                }
                t - transient
            }
            (None, None) => d.time,
        };
        if time < tau {
            return Err(SpecError::new(
                "lyapunov.time",
                format!("is shorter than tau ({time} < {tau})"),
            ));
        }
        if (transient + time) / tau > 1e10 {
            return Err(SpecError::new(
                "lyapunov.tau",
                "gives more than 1e10 intervals",
            ));
        }
        let tolerance = match self.tolerance {
            Some(t) => Some(positive("lyapunov.tolerance", t)?),
            None => None,
        };
        let blocks = self.blocks.unwrap_or(d.blocks);
        if blocks < 10 {
            return Err(SpecError::new(
                "lyapunov.blocks",
                format!("must be >= 10 (got {blocks})"),
            ));
        }
        let options = LyapunovOptions {
            k,
            tau,
            transient,
            time,
            tolerance,
            blocks,
            ..d
        };
        let name = self.estimator.as_deref().unwrap_or("spectrum");
        let estimator = match name {
            "spectrum" => LyapunovEstimator::Spectrum,
            "tangent" => LyapunovEstimator::Tangent,
            "two-trajectory" => {
                let d0 = positive("lyapunov.d0", self.d0.unwrap_or(1e-8))?;
                if d0 > 1e-3 {
                    return Err(SpecError::new("lyapunov.d0", format!("must be small (<= 1e-3) for a linear separation (got {d0})")));
                }
                LyapunovEstimator::TwoTrajectory(TwoTrajectoryOptions { d0, direction: None })
            }
            "sali" => {
                // SALI/GALI have no transient: they run from t = 0 to `time` (or `t_max`).
                if self.transient.is_some() {
                    return Err(SpecError::new("lyapunov.transient", "does not apply to estimator = \"sali\""));
                }
                let k = k.unwrap_or(2).max(2);
                let end = self.t_max.unwrap_or(time);
                LyapunovEstimator::Sali(IndicatorOptions { tau, time: end, k, ..IndicatorOptions::default() })
            }
            other => {
                return Err(SpecError::new(
                    "lyapunov.estimator",
                    format!("unknown estimator `{other}` (expected spectrum, tangent, two-trajectory or sali)"),
                ))
            }
        };
        if self.d0.is_some() && name != "two-trajectory" {
            return Err(SpecError::new(
                "lyapunov.d0",
                "applies to estimator = \"two-trajectory\"",
            ));
        }
        let ensemble = match self.ensemble {
            None => {
                if self.epsilon.is_some() || self.seed.is_some() {
                    return Err(SpecError::new(
                        "lyapunov.epsilon",
                        "applies only with `ensemble`",
                    ));
                }
                None
            }
            Some(m) => {
                if m < 2 {
                    return Err(SpecError::new(
                        "lyapunov.ensemble",
                        format!("needs at least 2 members (got {m})"),
                    ));
                }
                if !matches!(name, "spectrum" | "tangent") {
                    return Err(SpecError::new(
                        "lyapunov.ensemble",
                        format!("is offered for the spectrum and tangent estimators, not {name}"),
                    ));
                }
                let e = EnsembleOptions::default();
                let epsilon = positive("lyapunov.epsilon", self.epsilon.unwrap_or(e.epsilon))?;
                Some(EnsembleOptions {
                    members: m,
                    epsilon,
                    seed: self.seed.unwrap_or(e.seed),
                    ..e
                })
            }
        };
        Ok(LyapunovRun {
            estimator,
            options,
            ensemble,
        })
    }
}

impl Analysis {
    pub fn kind(&self) -> &'static str {
        match self {
            Analysis::Simulate(_) => "simulate",
            Analysis::Modes(_) => "modes",
            Analysis::Lyapunov(_) => "lyapunov",
            Analysis::Poincare(_) => "poincare",
            Analysis::Map(_) => "map",
            Analysis::Animate(_) => "animate",
        }
    }
}

/// The `[modes]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModesSpec {
    /// `"hanging"` (default), `"all"` (2^N), or sign strings like `["++", "+-"]`.
    pub equilibria: Option<EquilibriaSpec>,
    /// Compare with the small-angle closed forms (default true).
    pub check: Option<bool>,
    /// Measure the nonlinear model's frequency in each mode (default false).
    pub verify_nonlinear: Option<bool>,
    /// Release amplitude (rad) of the small-amplitude check (default 1e-3).
    pub amplitude: Option<f64>,
    /// Linear periods integrated per measurement (default 20).
    pub periods: Option<f64>,
    /// Amplitudes (rad) for the lowest mode's amplitude dependence.
    pub amplitudes: Option<Vec<f64>>,
}

/// A word (`hanging`, `all`, or one sign string) or a list of sign strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EquilibriaSpec {
    Word(String),
    List(Vec<String>),
}

impl ModesSpec {
    fn options(&self, chain: &Chain) -> Result<ModesOptions, SpecError> {
        let n = chain.links();
        let bad = |e: ModesError| SpecError::new("modes.equilibria", e.to_string());
        let equilibria = match &self.equilibria {
            None => vec![Equilibrium::hanging(n)],
            Some(EquilibriaSpec::Word(w)) if w == "hanging" => vec![Equilibrium::hanging(n)],
            Some(EquilibriaSpec::Word(w)) if w == "all" => Equilibrium::all(n).map_err(bad)?,
            Some(EquilibriaSpec::Word(w)) => vec![Equilibrium::parse(w, n).map_err(bad)?],
            Some(EquilibriaSpec::List(v)) => {
                if v.is_empty() {
                    return Err(SpecError::new("modes.equilibria", "is an empty list"));
                }
                v.iter()
                    .map(|w| Equilibrium::parse(w, n))
                    .collect::<Result<_, _>>()
                    .map_err(bad)?
            }
        };
        let nonlinear = if self.verify_nonlinear.unwrap_or(false) {
            let d = NonlinearOptions::default();
            let amplitude = positive("modes.amplitude", self.amplitude.unwrap_or(d.amplitude))?;
            if amplitude >= 0.5 {
                return Err(SpecError::new(
                    "modes.amplitude",
                    format!("the small-amplitude check needs < 0.5 rad (got {amplitude}); use `amplitudes` for large ones"),
                ));
            }
            let periods = positive("modes.periods", self.periods.unwrap_or(d.periods))?;
            if !(2.0..=1e4).contains(&periods) {
                return Err(SpecError::new(
                    "modes.periods",
                    format!("must be between 2 and 1e4 (got {periods})"),
                ));
            }
            let amplitudes = self.amplitudes.clone().unwrap_or(d.amplitudes);
            for (i, &a) in amplitudes.iter().enumerate() {
                if !(a.is_finite() && a > 0.0 && a < std::f64::consts::PI) {
                    return Err(SpecError::new(
                        format!("modes.amplitudes[{}]", i + 1),
                        format!("must be in (0, π) rad (got {a})"),
                    ));
                }
            }
            Some(NonlinearOptions {
                amplitude,
                periods,
                amplitudes,
                tol: d.tol,
            })
        } else {
            for (f, set) in [
                ("amplitude", self.amplitude.is_some()),
                ("periods", self.periods.is_some()),
                ("amplitudes", self.amplitudes.is_some()),
            ] {
                if set {
                    return Err(SpecError::new(
                        format!("modes.{f}"),
                        "applies only with verify_nonlinear = true",
                    ));
                }
            }
            None
        };
        Ok(ModesOptions {
            equilibria,
            check: self.check.unwrap_or(true),
            nonlinear,
        })
    }
}

/// Cart-chain specs (`[model] kind = "cart-chain"`).
pub mod cart;

/// Parses TOML text; the error is one line with the line:column of the problem.
pub fn parse(text: &str, origin: &str) -> Result<SpecFile, SpecError> {
    toml::from_str(text).map_err(|e| toml_error(&e, text, origin))
}

/// Parses a stand-alone model file (the `[model]` table's fields at top level).
pub fn parse_model(text: &str, origin: &str) -> Result<ModelSpec, SpecError> {
    toml::from_str(text).map_err(|e| toml_error(&e, text, origin))
}

fn toml_error(e: &toml::de::Error, text: &str, origin: &str) -> SpecError {
    let at = e
        .span()
        .map(|s| {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{origin}:{line}:{col}")
        })
        .unwrap_or_else(|| origin.to_string());
    let msg = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    SpecError::new(at, msg)
}

fn positive(field: &str, v: f64) -> Result<f64, SpecError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(SpecError::new(
            field,
            format!("must be finite and > 0 (got {v})"),
        ))
    }
}

impl ModelSpec {
    /// Builds and validates the chain; returns it with a short name for titles.
    pub fn build(&self) -> Result<(Chain, String), SpecError> {
        let length = self.length.unwrap_or(1.0);
        let mass = self.mass.unwrap_or(1.0);
        let (links, name) = match (&self.preset, &self.link) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "model",
                    "give either `preset` or `[[model.link]]`, not both",
                ))
            }
            (None, None) => {
                return Err(SpecError::new(
                    "model",
                    "missing: give `preset` or `[[model.link]]` tables",
                ))
            }
            (Some(p), None) => {
                let (count, shape) = match p.as_str() {
                    "simple" => (1, LinkShape::Point),
                    "double" => (2, LinkShape::Point),
                    "triple" => (3, LinkShape::Point),
                    "chain" | "rods" => {
                        let n = self.links.ok_or_else(|| {
                            SpecError::new("model.links", format!("preset `{p}` needs the number of links"))
                        })?;
                        (n, if p == "rods" { LinkShape::Rod } else { LinkShape::Point })
                    }
                    other => {
                        return Err(SpecError::new(
                            "model.preset",
                            format!("unknown preset `{other}` (expected simple, double, triple, chain or rods)"),
                        ))
                    }
                };
                if let Some(n) = self.links {
                    if n != count && !matches!(p.as_str(), "chain" | "rods") {
                        return Err(SpecError::new(
                            "model.links",
                            format!("preset `{p}` has {count} links (got links = {n})"),
                        ));
                    }
                }
                (vec![Link::shaped(length, mass, shape); count], p.clone())
            }
            (None, Some(list)) => {
                if self.links.is_some() || self.length.is_some() || self.mass.is_some() {
                    return Err(SpecError::new(
                        "model",
                        "`links`, `length` and `mass` apply to presets; give them per [[model.link]]",
                    ));
                }
                let mut links = Vec::with_capacity(list.len());
                for (i, l) in list.iter().enumerate() {
                    links.push(l.build(i + 1)?);
                }
                (links, "custom".to_string())
            }
        };
        let n = links.len();
        let damping = match &self.damping {
            None => Damping::default(),
            Some(d) => Damping {
                absolute: d.absolute.as_ref().map_or(vec![], |v| v.expand(n)),
                joint: d.joint.as_ref().map_or(vec![], |v| v.expand(n)),
            },
        };
        let drive = match &self.drive {
            None => Drive::default(),
            Some(d) => Drive {
                torque: d.torque.as_ref().map(|h| Harmonic {
                    amplitude: h.amplitude,
                    frequency: h.frequency,
                    phase: h.phase,
                }),
                pivot: d.pivot.as_ref().map(|p| PivotMotion {
                    x_amplitude: p.x_amplitude,
                    y_amplitude: p.y_amplitude,
                    frequency: p.frequency,
                    phase: p.phase,
                }),
            },
        };
        let params = ChainParams {
            links,
            gravity: self.gravity.unwrap_or(ChainParams::G),
            damping,
            drive,
        };
        let chain = Chain::new(params).map_err(|e| model_error(e, self.preset.is_some()))?;
        Ok((chain, name))
    }
}

fn model_error(e: ModelError, preset: bool) -> SpecError {
    match &e {
        ModelError::NoLinks => SpecError::new(
            if preset { "model.links" } else { "model.link" },
            "a chain needs at least one link (got 0)",
        ),
        ModelError::Link {
            link,
            field,
            value,
            why,
        } => {
            let f = if preset && matches!(*field, "length" | "mass") {
                format!("model.{field}")
            } else {
                format!("model.link[{link}].{field}")
            };
            SpecError::new(f, format!("{why} (got {value})"))
        }
        ModelError::Parameter { field, value, why } => {
            SpecError::new(format!("model.{field}"), format!("{why} (got {value})"))
        }
        ModelError::Length { field, got, links } => SpecError::new(
            format!("model.{field}"),
            format!("has {got} entries but the chain has {links} links"),
        ),
    }
}

impl LinkSpec {
    fn build(&self, i: usize) -> Result<Link, SpecError> {
        let f = |name: &str| format!("model.link[{i}].{name}");
        let length = self
            .length
            .ok_or_else(|| SpecError::new(f("length"), "missing"))?;
        let mass = self
            .mass
            .ok_or_else(|| SpecError::new(f("mass"), "missing"))?;
        match (&self.shape, self.com, self.inertia) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(SpecError::new(
                f("shape"),
                "give either `shape` or `com` + `inertia`, not both",
            )),
            (Some(s), None, None) => match s.as_str() {
                "point" => Ok(Link::point(length, mass)),
                "rod" => Ok(Link::rod(length, mass)),
                other => Err(SpecError::new(
                    f("shape"),
                    format!("unknown shape `{other}` (expected point or rod)"),
                )),
            },
            (None, None, None) => Ok(Link::point(length, mass)),
            (None, com, inertia) => Ok(Link {
                length,
                mass,
                com: com
                    .ok_or_else(|| SpecError::new(f("com"), "missing (needed with `inertia`)"))?,
                inertia: inertia
                    .ok_or_else(|| SpecError::new(f("inertia"), "missing (needed with `com`)"))?,
            }),
        }
    }
}

impl IntegratorSpec {
    /// The integrator, validated; `dt_out` resolves `substeps`.
    pub fn method(&self, dt_out: Option<f64>) -> Result<Method, SpecError> {
        let name = self.method.as_deref().unwrap_or("dop853");
        let fixed_dt = || -> Result<f64, SpecError> {
            match (self.dt, self.substeps, dt_out) {
                (Some(_), Some(_), _) => Err(SpecError::new(
                    "integrator.substeps",
                    "give either `dt` or `substeps`, not both",
                )),
                (Some(dt), None, _) => positive("integrator.dt", dt),
                (None, Some(0), _) => Err(SpecError::new(
                    "integrator.substeps",
                    "must be >= 1 (got 0)",
                )),
                (None, Some(s), Some(out)) => Ok(out / s as f64),
                (None, Some(_), None) => Err(SpecError::new(
                    "integrator.substeps",
                    "needs an output interval",
                )),
                (None, None, _) => Ok(1e-3),
            }
        };
        let adaptive_only = |field: &str, v: &Option<f64>| match v {
            Some(_) => Err(SpecError::new(
                format!("integrator.{field}"),
                format!("applies to dop853, not {name}"),
            )),
            None => Ok(()),
        };
        match name {
            "rk4" => {
                adaptive_only("rtol", &self.rtol)?;
                adaptive_only("atol", &self.atol)?;
                if self.stages.is_some() {
                    return Err(SpecError::new(
                        "integrator.stages",
                        "applies to gauss, not rk4",
                    ));
                }
                Ok(Method::Rk4 { dt: fixed_dt()? })
            }
            "gauss" => {
                adaptive_only("rtol", &self.rtol)?;
                adaptive_only("atol", &self.atol)?;
                let stages = self.stages.unwrap_or(3);
                if !(stages == 2 || stages == 3) {
                    return Err(SpecError::new(
                        "integrator.stages",
                        format!("must be 2 or 3 (got {stages})"),
                    ));
                }
                Ok(Method::Gauss {
                    dt: fixed_dt()?,
                    stages,
                })
            }
            "dop853" => {
                if self.dt.is_some() || self.substeps.is_some() {
                    return Err(SpecError::new(
                        "integrator.dt",
                        "dop853 is adaptive: set rtol/atol (and h_max), not dt",
                    ));
                }
                if self.stages.is_some() {
                    return Err(SpecError::new(
                        "integrator.stages",
                        "applies to gauss, not dop853",
                    ));
                }
                let rtol = positive("integrator.rtol", self.rtol.unwrap_or(1e-10))?;
                let atol = positive("integrator.atol", self.atol.unwrap_or(1e-10))?;
                if rtol < 1e-14 {
                    return Err(SpecError::new(
                        "integrator.rtol",
                        format!("below what binary64 can deliver (got {rtol:e}; use >= 1e-14)"),
                    ));
                }
                let h_max = match self.h_max {
                    Some(h) => positive("integrator.h_max", h)?,
                    None => f64::INFINITY,
                };
                Ok(Method::Dop853 { rtol, atol, h_max })
            }
            other => Err(SpecError::new(
                "integrator.method",
                format!("unknown method `{other}` (expected rk4, dop853 or gauss)"),
            )),
        }
    }
}

impl InitialSpec {
    /// The initial state (θ, θ̇) for a chain of `n` links.
    pub fn state(&self, n: usize) -> Result<Vec<f64>, SpecError> {
        let theta = match (&self.theta, &self.theta_deg) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "initial.theta",
                    "give either `theta` or `theta_deg`, not both",
                ))
            }
            (Some(t), None) => t.clone(),
            (None, Some(t)) => t.iter().map(|d| d.to_radians()).collect(),
            (None, None) => {
                return Err(SpecError::new(
                    "initial.theta",
                    "missing: give the initial angles (rad)",
                ))
            }
        };
        let field = if self.theta.is_some() {
            "initial.theta"
        } else {
            "initial.theta_deg"
        };
        if theta.len() != n {
            return Err(SpecError::new(
                field,
                format!("has {} values but the chain has {n} links", theta.len()),
            ));
        }
        let omega = self.omega.clone().unwrap_or_else(|| vec![0.0; n]);
        if omega.len() != n {
            return Err(SpecError::new(
                "initial.omega",
                format!("has {} values but the chain has {n} links", omega.len()),
            ));
        }
        for (name, v) in [(field, &theta), ("initial.omega", &omega)] {
            if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                return Err(SpecError::new(
                    format!("{name}[{}]", i + 1),
                    format!("must be finite (got {})", v[i]),
                ));
            }
        }
        Ok(theta.into_iter().chain(omega).collect())
    }
}

/// The analysis kinds a spec can ask for.
pub const KINDS: [&str; 6] = [
    "simulate", "modes", "lyapunov", "poincare", "map", "animate",
];

impl SpecFile {
    /// Checks every value and builds the analysis.
    pub fn validate(&self) -> Result<Spec, SpecError> {
        let kind = self.kind.as_deref().ok_or_else(|| {
            SpecError::new(
                "kind",
                "missing: the analysis to run (simulate, modes, lyapunov, poincare, map or animate)",
            )
        })?;
        let (chain, model_name) = self.model.build()?;
        for (section, present) in [
            ("simulate", self.simulate.is_some()),
            ("modes", self.modes.is_some()),
            ("lyapunov", self.lyapunov.is_some()),
            ("poincare", self.poincare.is_some()),
            ("map", self.map.is_some()),
            ("animate", self.animate.is_some()),
        ] {
            if present && kind != section && KINDS.contains(&kind) {
                return Err(SpecError::new(
                    section,
                    format!("this section belongs to kind = \"{section}\", not \"{kind}\""),
                ));
            }
        }
        let (analysis, x0, method) = match kind {
            "simulate" => {
                let x0 = self.initial.state(chain.links())?;
                let s = self.simulate.clone().unwrap_or_default();
                let t_end = s
                    .t_end
                    .ok_or_else(|| SpecError::new("simulate.t_end", "missing"))?;
                let t_end = positive("simulate.t_end", t_end)?;
                let dt_out = positive("simulate.dt_out", s.dt_out.unwrap_or(0.01))?;
                if dt_out > t_end {
                    return Err(SpecError::new(
                        "simulate.dt_out",
                        format!("is longer than t_end ({dt_out} > {t_end})"),
                    ));
                }
                let samples = t_end / dt_out;
                if samples > 1e8 {
                    return Err(SpecError::new(
                        "simulate.dt_out",
                        format!("would store {samples:.3e} samples; the limit is 1e8"),
                    ));
                }
                let method = self.integrator.method(Some(dt_out))?;
                if let Some(dt) = method.fixed_dt() {
                    if dt > t_end {
                        return Err(SpecError::new(
                            "integrator.dt",
                            format!("is longer than t_end ({dt} > {t_end})"),
                        ));
                    }
                }
                (
                    Analysis::Simulate(SimulateOptions { t_end, dt_out }),
                    x0,
                    method,
                )
            }
            "modes" => {
                if !chain.params().drive.is_none() {
                    return Err(SpecError::new(
                        "model.drive",
                        "modes are computed for the unforced chain: remove the drive",
                    ));
                }
                if self.initial != InitialSpec::default() {
                    return Err(SpecError::new(
                        "initial",
                        "a modes analysis starts from the equilibria, not an initial state",
                    ));
                }
                if self.integrator != IntegratorSpec::default() {
                    return Err(SpecError::new(
                        "integrator",
                        "a modes analysis uses DOP853 at 1e-12 for its nonlinear check; remove [integrator]",
                    ));
                }
                let opts = self.modes.clone().unwrap_or_default().options(&chain)?;
                let tol = 1e-12;
                let method = Method::Dop853 {
                    rtol: tol,
                    atol: tol,
                    h_max: f64::INFINITY,
                };
                (Analysis::Modes(opts), vec![], method)
            }
            "lyapunov" => {
                let x0 = self.initial.state(chain.links())?;
                let run = self
                    .lyapunov
                    .clone()
                    .unwrap_or_default()
                    .run(2 * chain.links())?;
                // Benchmark L's integrator unless the spec chooses: RK4, dt = 1e-3.
                let mut integrator = self.integrator.clone();
                if integrator.method.is_none() {
                    integrator.method = Some("rk4".into());
                }
                let method = integrator.method(None)?;
                if let Some(dt) = method.fixed_dt() {
                    let q = run.options.tau / dt;
                    if (q - q.round()).abs() > 1e-9 * q.max(1.0) || q.round() < 1.0 {
                        return Err(SpecError::new(
                            "lyapunov.tau",
                            format!(
                                "must be a whole multiple of integrator.dt = {dt} (got {})",
                                run.options.tau
                            ),
                        ));
                    }
                }
                (Analysis::Lyapunov(run), x0, method)
            }
            "poincare" => {
                let initial = if self.initial == InitialSpec::default() {
                    None
                } else {
                    Some(self.initial.state(chain.links())?)
                };
                if !matches!(self.integrator.method.as_deref(), None | Some("dop853")) {
                    return Err(SpecError::new(
                        "integrator.method",
                        "Poincaré sections are located on DOP853's dense output: use dop853",
                    ));
                }
                let mut integ = self.integrator.clone();
                integ.rtol = integ.rtol.or(Some(1e-12));
                integ.atol = integ.atol.or(Some(1e-12));
                let method = integ.method(None)?;
                let mut opts = self
                    .poincare
                    .clone()
                    .unwrap_or_default()
                    .options(&chain, initial.clone())?;
                if let Method::Dop853 { rtol, atol, h_max } = method {
                    opts.orbit.rtol = rtol;
                    opts.orbit.atol = atol;
                    opts.orbit.h_max = h_max;
                }
                (
                    Analysis::Poincare(opts),
                    initial.unwrap_or_default(),
                    method,
                )
            }
            "map" => {
                if self.integrator != IntegratorSpec::default() {
                    return Err(SpecError::new(
                        "integrator",
                        "a map uses RK4 with map.dt; remove [integrator]",
                    ));
                }
                let opts = self
                    .map
                    .clone()
                    .unwrap_or_default()
                    .options(&chain, &self.initial)?;
                let (x0, dt) = (opts.grid.base.clone(), opts.dt);
                (Analysis::Map(opts), x0, Method::Rk4 { dt })
            }
            "animate" => {
                let x0 = self.initial.state(chain.links())?;
                let opts = self
                    .animate
                    .clone()
                    .unwrap_or_default()
                    .options(chain.links())?;
                // Seed 002's engine: RK4 with S sub-steps per frame unless the spec asks for
                // the adaptive method; the step comes from [animate], not from [integrator].
                let mut integ = self.integrator.clone();
                if integ.dt.is_some() || integ.substeps.is_some() {
                    return Err(SpecError::new(
                        "integrator.dt",
                        "an animation's step is animate.speed / (animate.fps · animate.substeps): set those",
                    ));
                }
                let method = match integ.method.as_deref() {
                    None | Some("rk4") => {
                        integ.method = Some("rk4".into());
                        integ.dt = Some(opts.sample_dt());
                        integ.method(None)?
                    }
                    Some("dop853") => integ.method(None)?,
                    Some(other) => {
                        return Err(SpecError::new(
                            "integrator.method",
                            format!("an animation uses rk4 or dop853 (got `{other}`)"),
                        ))
                    }
                };
                (Analysis::Animate(opts), x0, method)
            }
            other => {
                return Err(SpecError::new(
                    "kind",
                    format!(
                        "unknown analysis kind `{other}` (expected {})",
                        KINDS.join(", ")
                    ),
                ))
            }
        };
        for (field, p) in [
            ("output.file", &self.output.file),
            ("output.plot", &self.output.plot),
        ] {
            if let Some(p) = p {
                if p.as_os_str().is_empty() {
                    return Err(SpecError::new(field, "is empty"));
                }
            }
        }
        if let Some(p) = &self.output.plot {
            match p.extension().and_then(|e| e.to_str()) {
                Some("png") | Some("svg") => {}
                _ => {
                    return Err(SpecError::new(
                        "output.plot",
                        format!("`{}` must end in .png or .svg", p.display()),
                    ))
                }
            }
        }
        let figures = match &self.figures {
            None => Figures::default(),
            Some(_) if !matches!(kind, "simulate" | "animate") => {
                return Err(SpecError::new(
                    "figures",
                    format!("still figures are drawn by simulate and animate, not {kind}"),
                ))
            }
            Some(f) => f.figures(chain.links())?,
        };
        let title = self
            .title
            .clone()
            .unwrap_or_else(|| format!("{kind}: {model_name} chain"));
        Ok(Spec {
            figures,
            title,
            chain,
            model_name,
            x0,
            method,
            analysis,
            output: self.output.clone(),
            text: toml::to_string(self).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<Spec, SpecError> {
        parse(text, "t.toml")?.validate()
    }

    const OK: &str = "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [2.0, 2.0]\n[simulate]\nt_end = 1.0\n";

    #[test]
    fn minimal_spec_validates() {
        let s = spec(OK).unwrap();
        assert_eq!(s.chain.links(), 2);
        assert_eq!(s.x0, vec![2.0, 2.0, 0.0, 0.0]);
        assert!(matches!(s.method, Method::Dop853 { .. }));
    }

    #[test]
    fn errors_name_the_field() {
        let e = spec(&OK.replace("preset = \"double\"", "preset = \"quadruple\"")).unwrap_err();
        assert_eq!(e.field, "model.preset");
        let e = spec(&OK.replace("t_end = 1.0", "t_end = -1.0")).unwrap_err();
        assert_eq!(e.field, "simulate.t_end");
        let e = spec(&OK.replace("[2.0, 2.0]", "[2.0]")).unwrap_err();
        assert_eq!(e.field, "initial.theta");
        let e =
            spec(&OK.replace("preset = \"double\"", "preset = \"chain\"\nlinks = 0")).unwrap_err();
        assert_eq!(e.field, "model.links");
        let e = spec(&OK.replace("preset = \"double\"", "preset = \"double\"\nlength = -1.0"))
            .unwrap_err();
        assert_eq!(e.field, "model.length");
        let e = spec(&OK.replace("[model]\npreset = \"double\"", "[model]\n[[model.link]]\nlength = 1.0\nmass = nan\n[[model.link]]\nlength = 1.0\nmass = 1.0")).unwrap_err();
        assert_eq!(e.field, "model.link[1].mass");
        let e = spec(&OK.replace(
            "[simulate]",
            "[integrator]\nmethod = \"rk4\"\ndt = 0.0\n[simulate]",
        ))
        .unwrap_err();
        assert_eq!(e.field, "integrator.dt");
    }

    #[test]
    fn unknown_field_and_bad_toml_are_one_line_with_position() {
        let e = spec(&OK.replace("t_end", "t_ned")).unwrap_err();
        assert!(e.field.starts_with("t.toml:7:"), "{e}");
        assert!(e.message.contains("t_ned"), "{e}");
        assert!(!e.to_string().contains('\n'));
        let e = spec("kind = \"simulate\n").unwrap_err();
        assert!(e.field.starts_with("t.toml:1:"), "{e}");
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn substeps_set_the_step() {
        let s = spec(&OK.replace(
            "[simulate]",
            "[integrator]\nmethod = \"rk4\"\nsubsteps = 4\n[simulate]\ndt_out = 0.02",
        ))
        .unwrap();
        assert_eq!(s.method, Method::Rk4 { dt: 0.005 });
    }
}

/// One number or a list (energies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(f64),
    Many(Vec<f64>),
}

impl OneOrMany {
    fn values(&self) -> Vec<f64> {
        match self {
            OneOrMany::One(v) => vec![*v],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// The `[poincare]` table: a section, where orbits start, and how long they run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoincareSpec {
    /// Section coordinate: `theta<i>` (mod 2π) or `omega<i>`, 1-based (default `theta1`).
    pub section: Option<String>,
    /// Section position (rad or rad/s; default 0).
    pub value: Option<f64>,
    /// General hyperplane `normal · x = offset` on x = (θ, θ̇) instead of `section`.
    pub normal: Option<Vec<f64>>,
    pub offset: Option<f64>,
    /// Crossing direction: `+` (default), `-` or `both`.
    pub direction: Option<String>,
    /// Sample at t0 + k·period (default period 2π/Ω of the drive) instead of a surface.
    pub stroboscopic: Option<bool>,
    pub period: Option<f64>,
    pub t0: Option<f64>,
    /// Shell energies (J), or fractions between the hanging (0) and inverted (1) energies.
    pub energy: Option<OneOrMany>,
    pub energy_fraction: Option<OneOrMany>,
    /// The link (1-based) whose plane (θ, p or θ̇) is sampled and plotted (default: the first
    /// link that is not the section's).
    pub link: Option<usize>,
    /// `momentum` (default, p = M θ̇) or `velocity` (θ̇).
    pub variables: Option<String>,
    /// Grid of initial points [angles, speeds] (default [8, 5]), or `random` points with `seed`.
    pub grid: Option<Vec<usize>>,
    pub random: Option<usize>,
    pub seed: Option<u64>,
    pub angle_range: Option<Vec<f64>>,
    pub speed_range: Option<Vec<f64>>,
    /// Crossings per orbit (default 300) and time limit per orbit (s, default 5000).
    pub crossings: Option<usize>,
    pub t_max: Option<f64>,
    /// Finite-time Lyapunov exponent per orbit, and the chaotic threshold (1/s, default 0.05).
    pub lyapunov: Option<bool>,
    pub chaos_threshold: Option<f64>,
}

fn range2(field: &str, v: &Option<Vec<f64>>) -> Result<Option<(f64, f64)>, SpecError> {
    match v {
        None => Ok(None),
        Some(r) if r.len() == 2 && r.iter().all(|x| x.is_finite()) && r[0] < r[1] => {
            Ok(Some((r[0], r[1])))
        }
        Some(r) => Err(SpecError::new(
            field,
            format!("must be [lo, hi] with finite lo < hi (got {r:?})"),
        )),
    }
}

impl PoincareSpec {
    /// Validates against the chain; `initial` is the explicit start used without energies.
    fn options(
        &self,
        chain: &Chain,
        initial: Option<Vec<f64>>,
    ) -> Result<crate::analysis::poincare::PoincareOptions, SpecError> {
        use crate::analysis::poincare::{
            energy_bounds, section_min_energy, OrbitOptions, PoincareOptions, Sampling, Section,
            ShellSampling, Variables,
        };
        use crate::integrate::Direction;
        let n = chain.links();
        let f = |name: &str| format!("poincare.{name}");
        let direction = match self.direction.as_deref().unwrap_or("+") {
            "+" => Direction::Rising,
            "-" => Direction::Falling,
            "both" => Direction::Either,
            other => {
                return Err(SpecError::new(
                    f("direction"),
                    format!("unknown direction `{other}` (expected +, - or both)"),
                ))
            }
        };
        let strobe = self.stroboscopic.unwrap_or(false);
        let section = if strobe {
            if self.section.is_some() || self.normal.is_some() {
                return Err(SpecError::new(
                    f("stroboscopic"),
                    "a stroboscopic section replaces `section`/`normal`: give one",
                ));
            }
            let drive = &chain.params().drive;
            let omega = drive
                .torque
                .map(|h| h.frequency)
                .or(drive.pivot.map(|p| p.frequency));
            let period = match (self.period, omega) {
                (Some(p), _) => positive(&f("period"), p)?,
                (None, Some(w)) if w != 0.0 => 2.0 * std::f64::consts::PI / w.abs(),
                _ => {
                    return Err(SpecError::new(
                        f("period"),
                        "missing: the chain has no drive to take 2π/Ω from",
                    ))
                }
            };
            let t0 = self.t0.unwrap_or(0.0);
            if !t0.is_finite() {
                return Err(SpecError::new(
                    f("t0"),
                    format!("must be finite (got {t0})"),
                ));
            }
            Section::Stroboscopic { t0, period }
        } else {
            for (name, set) in [("period", self.period.is_some()), ("t0", self.t0.is_some())] {
                if set {
                    return Err(SpecError::new(
                        f(name),
                        "applies only with stroboscopic = true",
                    ));
                }
            }
            match (&self.section, &self.normal) {
                (Some(_), Some(_)) => {
                    return Err(SpecError::new(
                        f("normal"),
                        "give either `section` or `normal` + `offset`, not both",
                    ))
                }
                (_, Some(a)) => {
                    if a.len() != 2 * n
                        || a.iter().any(|v| !v.is_finite())
                        || a.iter().all(|&v| v == 0.0)
                    {
                        return Err(SpecError::new(
                            f("normal"),
                            format!("must be {} finite numbers, not all zero (θ then θ̇)", 2 * n),
                        ));
                    }
                    let offset = self.offset.unwrap_or(0.0);
                    if !offset.is_finite() {
                        return Err(SpecError::new(f("offset"), "must be finite"));
                    }
                    Section::Hyperplane {
                        normal: a.clone(),
                        offset,
                        direction,
                    }
                }
                (s, None) => {
                    let name = s.as_deref().unwrap_or("theta1");
                    let parse = |prefix: &str| {
                        name.strip_prefix(prefix)
                            .and_then(|k| k.parse::<usize>().ok())
                            .filter(|k| (1..=n).contains(k))
                    };
                    let index = match (parse("theta"), parse("omega")) {
                        (Some(k), _) => k - 1,
                        (_, Some(k)) => n + k - 1,
                        _ => {
                            return Err(SpecError::new(
                                f("section"),
                                format!("unknown coordinate `{name}` (expected theta1..theta{n} or omega1..omega{n})"),
                            ))
                        }
                    };
                    let value = self.value.unwrap_or(0.0);
                    if !value.is_finite() {
                        return Err(SpecError::new(
                            f("value"),
                            format!("must be finite (got {value})"),
                        ));
                    }
                    Section::Coordinate {
                        index,
                        value,
                        direction,
                    }
                }
            }
        };
        let angle_link = section.angle_link(n).map(|s| s.0);
        let link = match self.link {
            Some(l) if (1..=n).contains(&l) && Some(l - 1) != angle_link => l - 1,
            Some(l) => {
                return Err(SpecError::new(
                    f("link"),
                    format!("must be a link 1..{n} other than the section's (got {l})"),
                ))
            }
            None => (0..n).find(|&j| Some(j) != angle_link).unwrap_or(0),
        };
        let variables = match self.variables.as_deref().unwrap_or("momentum") {
            "momentum" => Variables::Momentum,
            "velocity" => Variables::Velocity,
            other => {
                return Err(SpecError::new(
                    f("variables"),
                    format!("unknown `{other}` (expected momentum or velocity)"),
                ))
            }
        };
        let sampling = match (&self.grid, self.random) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    f("random"),
                    "give either `grid` or `random`, not both",
                ))
            }
            (_, Some(c)) => {
                if !(1..=100_000).contains(&c) {
                    return Err(SpecError::new(
                        f("random"),
                        format!("must be 1..100000 (got {c})"),
                    ));
                }
                Sampling::Random {
                    count: c,
                    seed: self.seed.unwrap_or(1),
                }
            }
            (g, None) => {
                let g = g.clone().unwrap_or(vec![8, 5]);
                if g.len() != 2 || g.contains(&0) || g[0] * g[1] > 100_000 {
                    return Err(SpecError::new(
                        f("grid"),
                        format!("must be [angles, speeds], each >= 1, at most 100000 points (got {g:?})"),
                    ));
                }
                Sampling::Grid {
                    angles: g[0],
                    speeds: g[1],
                }
            }
        };
        if self.seed.is_some() && self.random.is_none() {
            return Err(SpecError::new(f("seed"), "applies only with `random`"));
        }
        let sampling = ShellSampling {
            link,
            variables,
            sampling,
            angle_range: range2(&f("angle_range"), &self.angle_range)?
                .unwrap_or((-std::f64::consts::PI, std::f64::consts::PI)),
            speed_range: range2(&f("speed_range"), &self.speed_range)?,
        };
        let (e_lo, e_hi) = energy_bounds(chain);
        let energies = match (&self.energy, &self.energy_fraction) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    f("energy_fraction"),
                    "give either `energy` or `energy_fraction`, not both",
                ))
            }
            (Some(e), None) => e.values(),
            (None, Some(r)) => r
                .values()
                .iter()
                .map(|r| e_lo + r * (e_hi - e_lo))
                .collect(),
            (None, None) => vec![],
        };
        let e_field = f(if self.energy_fraction.is_some() {
            "energy_fraction"
        } else {
            "energy"
        });
        if strobe && !energies.is_empty() {
            return Err(SpecError::new(
                e_field,
                "a stroboscopic section of a driven chain has no energy shell: give a grid via angle_range/speed_range",
            ));
        }
        if !energies.is_empty() && !chain.is_conservative() {
            return Err(SpecError::new(
                e_field,
                "energy shells need a conservative chain (no damping or drive); use stroboscopic = true",
            ));
        }
        if energies.len() > 12 {
            return Err(SpecError::new(
                e_field,
                format!("at most 12 energies (got {})", energies.len()),
            ));
        }
        let mut initial_states = vec![];
        if !energies.is_empty() {
            let Some((li, c, _)) = section.angle_link(n) else {
                return Err(SpecError::new(
                    e_field,
                    "energy-shell initial conditions need a section on an angle (section = \"thetaI\")",
                ));
            };
            if n < 2 {
                return Err(SpecError::new(
                    e_field,
                    "a single pendulum's energy shell meets the section in one point; use a drive and stroboscopic = true",
                ));
            }
            let min = section_min_energy(chain, li, c);
            for (i, &e) in energies.iter().enumerate() {
                if !(e.is_finite() && e > min) {
                    return Err(SpecError::new(
                        if energies.len() > 1 { format!("{e_field}[{}]", i + 1) } else { e_field.clone() },
                        format!("E = {e} J is not above the least energy on the section {} ({min:.6} J)", section.describe(chain)),
                    ));
                }
            }
        } else if let Some(x0) = initial {
            if let Some((li, c, _)) = section.angle_link(n) {
                let e = crate::model::System::energy(chain, 0.0, &x0);
                let min = section_min_energy(chain, li, c);
                if chain.is_conservative() && e <= min {
                    return Err(SpecError::new(
                        "initial",
                        format!("the orbit's energy {e:.6} J never reaches the section {} (needs > {min:.6} J)", section.describe(chain)),
                    ));
                }
            }
            initial_states.push(x0);
        } else if !strobe {
            return Err(SpecError::new(
                f("energy"),
                "missing: give energy (J) or energy_fraction, or an [initial] state",
            ));
        }
        let crossings = self.crossings.unwrap_or(300);
        if !(1..=10_000_000).contains(&crossings) {
            return Err(SpecError::new(
                f("crossings"),
                format!("must be 1..1e7 (got {crossings})"),
            ));
        }
        let t_max = positive(&f("t_max"), self.t_max.unwrap_or(5000.0))?;
        let chaos_threshold = self.chaos_threshold.unwrap_or(0.05);
        if !(chaos_threshold.is_finite() && chaos_threshold >= 0.0) {
            return Err(SpecError::new(
                f("chaos_threshold"),
                format!("must be finite and >= 0 (got {chaos_threshold})"),
            ));
        }
        Ok(PoincareOptions {
            section,
            energies,
            sampling,
            initial: initial_states,
            orbit: OrbitOptions {
                crossings,
                t_max,
                lyapunov: self.lyapunov.unwrap_or(false),
                ..OrbitOptions::default()
            },
            chaos_threshold,
        })
    }
}

/// The `[map]` table: an initial-condition map over two start coordinates.
///
/// ```toml
/// [map]
/// kind = "flip-time"          # flip-time | energy-error | lyapunov | ftle
/// width = 512                 # pixels; height defaults to width
/// x = "theta1"                # the two coordinates: theta<i> or omega<i> (default θ1, θ2)
/// y = "theta2"
/// window = [-3.14159, 3.14159, -3.14159, 3.14159]   # x_lo, x_hi, y_lo, y_hi (default [−π, π]²)
/// t_max = 10.0                # s
/// dt = 0.01                   # RK4 step (s)
/// flip = "any"                # flip-time: "any" link, or a link number "1", "2", …
/// energy_skip = true          # classify energetically forbidden pixels without integrating
/// tile = 64                   # tile edge (default 32 up to 256 pixels, else 64)
/// kernel = "auto"             # auto (SIMD two-link kernel where it applies) | scalar
/// tau = 0.1                   # lyapunov, sali, gali: renormalisation interval (s)
/// gali_order = 4              # gali: number of deviation vectors k (2..2N, default 2N)
/// angle_tol = 0.01            # final-state: settling tolerance on angles (rad)
/// omega_tol = 0.01            # final-state: on velocities (rad/s)
/// dwell = 1.0                 # final-state, undriven: time the state must stay settled (s)
/// max_period = 8              # final-state, driven: largest stroboscopic period searched
/// repeats = 3                 # final-state, driven: times a period-k orbit must repeat
/// energy = -5.0               # an energy-shell grid: E (J) of every pixel (conservative chains)
/// solve = "omega2"            # the velocity solved from E (≥ 0 root); default the last free one
/// ```
/// The other coordinates start from `[initial]` (default: all zero, at rest).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    pub kind: Option<String>,
    pub width: Option<usize>,
    pub height: Option<usize>,
    pub x: Option<String>,
    pub y: Option<String>,
    pub window: Option<Vec<f64>>,
    pub t_max: Option<f64>,
    pub dt: Option<f64>,
    pub flip: Option<String>,
    pub energy_skip: Option<bool>,
    pub tile: Option<usize>,
    pub kernel: Option<String>,
    pub tau: Option<f64>,
    pub gali_order: Option<usize>,
    pub angle_tol: Option<f64>,
    pub omega_tol: Option<f64>,
    pub dwell: Option<f64>,
    pub max_period: Option<u32>,
    pub repeats: Option<u32>,
    pub energy: Option<f64>,
    pub solve: Option<String>,
}

/// Largest map edge a spec accepts (the CLI asks for --force well below this).
pub const MAP_MAX_EDGE: usize = 65_536;

/// `theta1` / `omega2` → state index for a chain of `n` links.
fn map_coordinate(field: &str, name: &str, n: usize) -> Result<usize, SpecError> {
    let parse = |rest: &str| rest.parse::<usize>().ok().filter(|&i| i >= 1 && i <= n);
    let idx = if let Some(r) = name.strip_prefix("theta") {
        parse(r).map(|i| i - 1)
    } else if let Some(r) = name.strip_prefix("omega") {
        parse(r).map(|i| n + i - 1)
    } else {
        None
    };
    idx.ok_or_else(|| {
        SpecError::new(
            field,
            format!("unknown coordinate `{name}` (expected theta1..theta{n} or omega1..omega{n})"),
        )
    })
}

impl MapSpec {
    /// The final-state kind: settling tolerances; for a driven chain the stroboscopic test at
    /// the drive period 2π/Ω, which must be a whole number of RK4 steps.
    fn final_state(&self, chain: &Chain, dt: f64) -> Result<MapKind, SpecError> {
        use crate::analysis::map::basins::{self, Settle, Strobe};
        let n = chain.links();
        if n > basins::MAX_LINKS {
            return Err(SpecError::new(
                "map.kind",
                format!(
                    "final-state maps classify up to {} links (got {n})",
                    basins::MAX_LINKS
                ),
            ));
        }
        let drive = &chain.params().drive;
        if chain.is_conservative() {
            return Err(SpecError::new(
                "map.kind",
                "a final-state map needs a damped or driven chain ([model.damping] or [model.drive]): a conservative chain never settles",
            ));
        }
        let angle_tol = positive("map.angle_tol", self.angle_tol.unwrap_or(0.01))?;
        let omega_tol = positive("map.omega_tol", self.omega_tol.unwrap_or(0.01))?;
        if angle_tol >= std::f64::consts::FRAC_PI_2 {
            return Err(SpecError::new(
                "map.angle_tol",
                format!("must be below π/2 (got {angle_tol})"),
            ));
        }
        let omega = drive
            .torque
            .map(|h| h.frequency)
            .or(drive.pivot.map(|p| p.frequency))
            .filter(|w| *w != 0.0);
        let not_for = |field: &str, what: &str| {
            SpecError::new(
                field,
                format!("applies only to a final-state map of {what} chain"),
            )
        };
        let (dwell_steps, strobe) = match omega {
            None => {
                if self.max_period.is_some() {
                    return Err(not_for("map.max_period", "a driven"));
                }
                if self.repeats.is_some() {
                    return Err(not_for("map.repeats", "a driven"));
                }
                let dwell = self.dwell.unwrap_or(1.0);
                if !(dwell.is_finite() && dwell >= 0.0) {
                    return Err(SpecError::new(
                        "map.dwell",
                        format!("must be finite and >= 0 (got {dwell})"),
                    ));
                }
                ((dwell / dt).round() as u32, None)
            }
            Some(w) => {
                if self.dwell.is_some() {
                    return Err(not_for("map.dwell", "an undriven"));
                }
                let period = std::f64::consts::TAU / w.abs();
                let q = (period / dt).round();
                if q < 1.0 || (q * dt - period).abs() > 1e-9 * period {
                    return Err(SpecError::new(
                        "map.dt",
                        format!(
                            "the drive period 2π/Ω = {period} s must be a whole number of RK4 steps (e.g. dt = {} s)",
                            period / (period / dt).ceil()
                        ),
                    ));
                }
                let max_period = self.max_period.unwrap_or(8);
                if !(1..=basins::MAX_PERIOD).contains(&max_period) {
                    return Err(SpecError::new(
                        "map.max_period",
                        format!(
                            "must be between 1 and {} (got {max_period})",
                            basins::MAX_PERIOD
                        ),
                    ));
                }
                let repeats = self.repeats.unwrap_or(3);
                if repeats == 0 {
                    return Err(SpecError::new("map.repeats", "must be at least 1"));
                }
                (
                    0,
                    Some(Strobe {
                        period_steps: q as u32,
                        max_period,
                        repeats,
                    }),
                )
            }
        };
        Ok(MapKind::FinalState {
            settle: Settle {
                angle_tol,
                omega_tol,
                dwell_steps,
                strobe,
            },
        })
    }

    /// Validates the table against the chain; `initial` gives the fixed coordinates.
    pub fn options(&self, chain: &Chain, initial: &InitialSpec) -> Result<MapOptions, SpecError> {
        let n = chain.links();
        let t_max = positive("map.t_max", self.t_max.unwrap_or(10.0))?;
        let dt = positive("map.dt", self.dt.unwrap_or(0.01))?;
        if dt > t_max {
            return Err(SpecError::new(
                "map.dt",
                format!("is longer than t_max ({dt} > {t_max})"),
            ));
        }
        let steps = (t_max / dt).round();
        if steps > f64::from(i32::MAX) {
            return Err(SpecError::new(
                "map.t_max",
                format!("needs {steps:.3e} RK4 steps per pixel; the limit is 2^31 − 1"),
            ));
        }
        let kind = match self.kind.as_deref().unwrap_or("flip-time") {
            "flip-time" => {
                let target = match self.flip.as_deref().unwrap_or("any") {
                    "any" => FlipTarget::Any,
                    l => match l.parse::<usize>() {
                        Ok(j) if j >= 1 && j <= n => FlipTarget::Link(j - 1),
                        _ => {
                            return Err(SpecError::new(
                                "map.flip",
                                format!("must be \"any\" or a link number 1..{n} (got `{l}`)"),
                            ))
                        }
                    },
                };
                MapKind::FlipTime { target }
            }
            "energy-error" => MapKind::EnergyError,
            "ftle" => MapKind::Ftle,
            "final-state" => self.final_state(chain, dt)?,
            "sali" | "gali" => {
                let tau = positive("map.tau", self.tau.unwrap_or(0.1))?;
                let q = (tau / dt).round();
                if q < 1.0 || (q * dt - tau).abs() > 1e-9 * tau {
                    return Err(SpecError::new(
                        "map.tau",
                        format!("must be a whole number of RK4 steps dt = {dt} s (got {tau})"),
                    ));
                }
                let tau_steps = q as u32;
                if self.kind.as_deref() == Some("sali") {
                    MapKind::Sali { tau_steps }
                } else {
                    let dim = 2 * n;
                    let k = self.gali_order.unwrap_or(dim);
                    if !(2..=dim).contains(&k) {
                        return Err(SpecError::new(
                            "map.gali_order",
                            format!("must be between 2 and 2N = {dim} (got {k})"),
                        ));
                    }
                    MapKind::Gali { k, tau_steps }
                }
            }
            "lyapunov" => {
                let tau = positive("map.tau", self.tau.unwrap_or(0.1))?;
                MapKind::Lyapunov {
                    renorm_steps: ((tau / dt).round() as u32).max(1),
                }
            }
            other => {
                return Err(SpecError::new(
                    "map.kind",
                    format!(
                        "unknown map kind `{other}` (expected flip-time, energy-error, lyapunov, ftle, sali, gali or final-state)"
                    ),
                ))
            }
        };
        for (field, set, applies) in [
            (
                "map.flip",
                self.flip.is_some(),
                matches!(kind, MapKind::FlipTime { .. }),
            ),
            (
                "map.energy_skip",
                self.energy_skip.is_some(),
                matches!(kind, MapKind::FlipTime { .. }),
            ),
            (
                "map.tau",
                self.tau.is_some(),
                matches!(
                    kind,
                    MapKind::Lyapunov { .. } | MapKind::Sali { .. } | MapKind::Gali { .. }
                ),
            ),
            (
                "map.gali_order",
                self.gali_order.is_some(),
                matches!(kind, MapKind::Gali { .. }),
            ),
            (
                "map.angle_tol",
                self.angle_tol.is_some(),
                matches!(kind, MapKind::FinalState { .. }),
            ),
            (
                "map.omega_tol",
                self.omega_tol.is_some(),
                matches!(kind, MapKind::FinalState { .. }),
            ),
            (
                "map.dwell",
                self.dwell.is_some(),
                matches!(kind, MapKind::FinalState { .. }),
            ),
            (
                "map.max_period",
                self.max_period.is_some(),
                matches!(kind, MapKind::FinalState { .. }),
            ),
            (
                "map.repeats",
                self.repeats.is_some(),
                matches!(kind, MapKind::FinalState { .. }),
            ),
        ] {
            if set && !applies {
                return Err(SpecError::new(
                    field,
                    format!("does not apply to a {} map", kind.name()),
                ));
            }
        }
        let width = self.width.unwrap_or(256);
        let height = self.height.unwrap_or(width);
        for (field, v) in [("map.width", width), ("map.height", height)] {
            if v == 0 || v > MAP_MAX_EDGE {
                return Err(SpecError::new(
                    field,
                    format!("must be between 1 and {MAP_MAX_EDGE} pixels (got {v})"),
                ));
            }
        }
        let xi = map_coordinate("map.x", self.x.as_deref().unwrap_or("theta1"), n)?;
        let yi = map_coordinate(
            "map.y",
            self.y
                .as_deref()
                .unwrap_or(if n >= 2 { "theta2" } else { "omega1" }),
            n,
        )?;
        if xi == yi {
            return Err(SpecError::new("map.y", "must differ from map.x"));
        }
        let pi = std::f64::consts::PI;
        let default = |i: usize| if i < n { (-pi, pi) } else { (-10.0, 10.0) };
        let (xr, yr) = match &self.window {
            None => (default(xi), default(yi)),
            Some(w) if w.len() == 4 => ((w[0], w[1]), (w[2], w[3])),
            Some(w) => {
                return Err(SpecError::new(
                    "map.window",
                    format!("needs 4 numbers x_lo, x_hi, y_lo, y_hi (got {})", w.len()),
                ))
            }
        };
        for (axis, idx, (lo, hi)) in [("x", xi, xr), ("y", yi, yr)] {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(SpecError::new(
                    "map.window",
                    format!("{axis} range [{lo}, {hi}] must be finite with lo < hi"),
                ));
            }
            // 1e-12 rad of slack so that a window written with π to 6 digits is not refused.
            if idx < n && (lo < -pi - 1e-12 || hi > pi + 1e-12) {
                return Err(SpecError::new(
                    "map.window",
                    format!("{axis} range [{lo}, {hi}] is outside the angle range [−π, π]"),
                ));
            }
        }
        let tile = self
            .tile
            .unwrap_or_else(|| Tiling::default_size(width, height));
        if !(4..=1024).contains(&tile) {
            return Err(SpecError::new(
                "map.tile",
                format!("must be between 4 and 1024 pixels (got {tile})"),
            ));
        }
        let kernel = match self.kernel.as_deref().unwrap_or("auto") {
            "auto" => Kernel::Auto,
            "scalar" => Kernel::Scalar,
            other => {
                return Err(SpecError::new(
                    "map.kernel",
                    format!("unknown kernel `{other}` (expected auto or scalar)"),
                ))
            }
        };
        let base = if initial.theta.is_some() || initial.theta_deg.is_some() {
            initial.state(n)?
        } else if let Some(w) = &initial.omega {
            InitialSpec {
                theta: Some(vec![0.0; n]),
                omega: Some(w.clone()),
                ..Default::default()
            }
            .state(n)?
        } else {
            vec![0.0; 2 * n]
        };
        let shell = match (self.energy, &self.solve) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(SpecError::new(
                    "map.solve",
                    "applies only to an energy-shell grid (give map.energy)",
                ))
            }
            (Some(e), solve) => {
                if !e.is_finite() {
                    return Err(SpecError::new(
                        "map.energy",
                        format!("must be finite (got {e})"),
                    ));
                }
                if !chain.is_conservative() {
                    return Err(SpecError::new(
                        "map.energy",
                        "energy shells need a conservative chain (no damping or drive)",
                    ));
                }
                let free = (n..2 * n).rev().find(|&i| i != xi && i != yi);
                let omega = match solve {
                    Some(name) => Some(map_coordinate("map.solve", name, n)?),
                    None => free,
                };
                match omega {
                    Some(i) if i >= n && i != xi && i != yi => Some(Shell {
                        omega: i,
                        energy: e,
                    }),
                    _ => {
                        return Err(SpecError::new(
                            "map.solve",
                            "must name a velocity omega<j> that is neither map axis",
                        ))
                    }
                }
            }
        };
        Ok(MapOptions {
            grid: Grid {
                width,
                height,
                x: GridAxis {
                    index: xi,
                    lo: xr.0,
                    hi: xr.1,
                },
                y: GridAxis {
                    index: yi,
                    lo: yr.0,
                    hi: yr.1,
                },
                base,
                shell,
            },
            kind,
            t_max,
            dt,
            energy_skip: self.energy_skip.unwrap_or(true),
            tile,
            kernel,
        })
    }
}
