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

use crate::analysis::map::MapOptions;
use crate::analysis::modes::ModesOptions;
use crate::analysis::SimulateOptions;
use crate::integrate::Method;
use crate::model::Chain;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use thiserror::Error;

pub mod cart;
mod integrator;
mod lyapunov;
mod map;
mod model;
mod modes;
mod poincare;
mod visual;

pub use integrator::IntegratorSpec;
pub use lyapunov::{ExponentsSpec, LyapunovEstimator, LyapunovRun, LyapunovSpec};
pub use map::{MapSpec, MAP_MAX_EDGE};
pub use model::{
    DampingSpec, DriveSpec, HarmonicSpec, InitialSpec, LinkSpec, ModelSpec, PerLink, PivotSpec,
};
pub use modes::{EquilibriaSpec, ModesSpec};
pub use poincare::{OneOrMany, PoincareSpec};
pub use visual::{AnimateSpec, Figures, FiguresSpec};

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
