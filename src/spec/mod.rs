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

use crate::integrate::Method;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

mod bounds;
mod budget;
pub mod cart;
mod integrator;
mod model;
mod parameter;
mod paths;
mod points;
mod reading;
/// Renamed fields, refused by name (a registered kind's table refuses its own with them).
pub(crate) mod retired;
mod sweep;
mod tables;
mod title;
mod validate;
mod visual;

/// The names `map.kind` takes (`--kind`'s value list).
pub use crate::analysis::map::kinds::NAMES as MAP_KINDS;
/// The names `lyapunov.estimator` takes (`--estimator`'s value list).
pub use crate::analysis::orbit::ESTIMATORS;
pub(crate) use bounds::refuse_given;
use bounds::{bounded, in_size_range, mass_ratio};
pub use bounds::{MAX_ANGLE, MAX_MASS_RATIO, MAX_POSITION, MAX_RATE, SIZE_RANGE};
pub use budget::{
    chaotic_estimate, format_bytes, measure_estimate, over_budget, Budget, Estimate, LabelGrids,
    MAX_LINKS, MAX_STEPS,
};
pub(crate) use budget::{check_adaptive, measure_terms};
pub use cart::{CartModelSpec, InputSpec};
pub use integrator::IntegratorSpec;
pub(crate) use model::checked_chain;
pub use model::{
    DampingSpec, DriveSpec, InitialSpec, LinkSpec, ModelFile, ModelSpec, Omega, PerLink,
};
pub use parameter::{parameter_long_name, sweep_parameters, ANALYSIS_PARAMETERS};
pub use paths::{figure_format, no_nul, result_format};
pub use points::Sweep;
pub(crate) use reading::mark_field;
pub use reading::{parse, parse_model, parse_table};
pub use sweep::{
    point_file, points_beside, swept_kinds, Axis, AxisSpec, Combine, Count, SweepPlan, SweepPoint,
    SweepTable, MAX_SWEEP_POINTS,
};
pub use tables::KindTables;
pub use title::{chain_words, default_title, describe_run, swept_title};
pub use visual::{AnimateSpec, Figures, FiguresSpec};

/// A bad value in a spec or on the command line; `field` is the spec path of the value. The
/// library's one field-carrying error: see [`crate::error`].
pub use crate::error::FieldError as SpecError;

/// A spec file as written: every table of every analysis kind and model; [`SpecFile::validate`]
/// refuses the tables and fields that do not apply to the spec's kind and model. A key that is
/// neither a field here nor a registered kind's table is refused by [`KindTables`] (so no
/// `deny_unknown_fields`, which serde does not combine with its `flatten`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SpecFile {
    /// The analysis: one of [`kinds`].
    pub kind: Option<String>,
    pub title: Option<String>,
    #[serde(default)]
    pub model: ModelFile,
    #[serde(default)]
    pub initial: InitialSpec,
    #[serde(default)]
    pub integrator: IntegratorSpec,
    /// The map kind's table, a field here (not among `registered`) because a measure spec
    /// computes its map from it too.
    pub map: Option<crate::kinds::map::MapSpec>,
    /// The tables of the registered kinds (`[frequencies]`, …), each read by its kind.
    #[serde(flatten)]
    pub registered: KindTables,
    /// Still figures of the visual lab (simulate and animate kinds).
    pub figures: Option<FiguresSpec>,
    /// The analysis run once per value of one or more fields ([`SweepTable`]).
    pub sweep: Option<SweepTable>,
    #[serde(default)]
    pub output: OutputSpec,
}

impl SpecFile {
    /// Its fields as a spec names them, in order (for the message about an unknown one);
    /// `simulate`, `modes`, `lyapunov`, `poincare`, `measure` and `orbits`, registered kinds'
    /// tables since, keep the places they had as fields.
    const FIELDS: &'static [&'static str] = &[
        "kind",
        "title",
        "model",
        "initial",
        "integrator",
        "simulate",
        "modes",
        "lyapunov",
        "poincare",
        "map",
        "animate",
        "control",
        "measure",
        "orbits",
        "figures",
        "sweep",
        "output",
    ];
    /// Where among [`SpecFile::FIELDS`] the registered kinds' tables stand.
    const REGISTERED_AT: usize = 14;
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// HDF5 result file.
    pub file: Option<PathBuf>,
    /// Figure (.png or .svg).
    pub plot: Option<PathBuf>,
    /// The figure's x-axis label in place of its own (`--xlabel`).
    pub xlabel: Option<String>,
    /// The figure's y-axis label in place of its own, every panel's (`--ylabel`).
    pub ylabel: Option<String>,
}

impl OutputSpec {
    /// The axis labels it gives in place of the figure's own ([`crate::plot::labels`]).
    pub fn labels(&self) -> crate::plot::labels::Labels {
        crate::plot::labels::Labels {
            x: self.xlabel.clone(),
            y: self.ylabel.clone(),
        }
    }
}

/// The validated model (the model layer's, named here as the spec has always named it).
pub use crate::model::Model;

impl Model {
    /// The analysis kinds this model supports, in the order of [`kinds`]: the registered
    /// kinds that run on it ([`crate::kinds::Kind::runs_on`]) and those not registered yet
    /// that it offers.
    pub fn kinds(&self) -> Vec<&'static str> {
        let unregistered: &[&str] = match self {
            Model::Planar(_) => &[],
            Model::Cart(_) => &[],
        };
        kinds()
            .into_iter()
            .filter(|k| match crate::kinds::named(k) {
                Some(kind) => kind.runs_on(self),
                None => unregistered.contains(k),
            })
            .collect()
    }
}

/// A validated analysis.
#[derive(Debug, Clone)]
pub struct Spec {
    pub title: String,
    pub model: Model,
    /// Preset name, "custom" or "cart-chain", for titles and attributes.
    pub model_name: String,
    /// Initial state in the model's coordinates (planar: (θ, θ̇)).
    pub x0: Vec<f64>,
    pub method: Method,
    /// The validated analysis: a registered kind's settings ([`crate::kinds`]).
    pub analysis: crate::kinds::Registered,
    pub output: OutputSpec,
    /// Still figures of the visual lab (`[figures]`).
    pub figures: Figures,
    /// The spec as TOML (what was read, with the command line's overrides applied), for provenance.
    pub text: String,
    /// What validation chose that the user did not write and should know (e.g. an energy
    /// shell's window clipped to what the energy reaches); front ends show them before running.
    pub notes: Vec<String>,
    /// `[sweep]`: every point validated; the rest of the spec is the template they share.
    pub sweep: Option<Box<SweepPlan>>,
}

/// What one analysis table validates into.
struct Validated {
    analysis: crate::kinds::Registered,
    x0: Vec<f64>,
    method: Method,
}

use crate::error::positive;

/// Fields that stand for one another: an override of one (a flag) removes the others.
pub const ALTERNATIVES: &[&[&str]] = &[
    &["initial.theta", "initial.theta_deg"],
    &["model.preset", "model.link"],
    &["integrator.dt", "integrator.substeps"],
    &["poincare.energy", "poincare.energy_fraction"],
    &["poincare.section", "poincare.normal"],
    &["poincare.grid", "poincare.random"],
];

/// `theta1` / `omega2` → state index for a chain of `n` links: a map's axes, an energy
/// shell's solved velocity, a Poincaré section's coordinate.
pub(crate) fn state_coordinate(field: &str, name: &str, n: usize) -> Result<usize, SpecError> {
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

/// The names of the registered kinds ([`crate::kinds::KINDS`]) that `listed` does not name.
fn registered(listed: &'static [&'static str]) -> impl Iterator<Item = &'static str> {
    crate::kinds::KINDS
        .iter()
        .map(|k| k.name)
        .filter(|k| !listed.contains(k))
}

/// The kinds in the order every list of them has always shown (messages, commands): a
/// registered kind that was here before the registry keeps its place, a new one comes after.
pub const KIND_ORDER: &[&str] = &[
    "simulate", "modes", "lyapunov", "poincare", "map", "animate", "control", "measure", "orbits",
];

/// The analysis kinds a spec can ask for (each model supports some: [`Model::kinds`]), in
/// [`KIND_ORDER`], then the registered kinds it does not name.
pub fn kinds() -> Vec<&'static str> {
    KIND_ORDER
        .iter()
        .copied()
        .chain(registered(KIND_ORDER))
        .collect()
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
        assert_eq!(s.model.links(), 2);
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

    #[test]
    fn old_names_are_refused_naming_the_new_one() {
        let lyap = "kind = \"lyapunov\"\n[initial]\ntheta = [2.0, 2.0]\n[lyapunov]\ntime = 200.0\n";
        let e = spec(lyap).unwrap_err();
        assert!(e.field.starts_with("t.toml:5:"), "{e}");
        assert!(e.message.contains("t_end"), "{e}");
        assert!(!e.to_string().contains('\n'));
        for (old, new) in [
            ("t_max = 5.0", "t_end"),
            ("dt = 0.01", "[integrator] dt"),
            ("width = 64", "resolution"),
        ] {
            let e = spec(&format!("kind = \"map\"\n[map]\n{old}\n")).unwrap_err();
            assert!(e.message.contains(new), "{old}: {e}");
        }
        let e = spec(&OK.replace("[simulate]", "[figures]\nenergy = \"e.png\"\n[simulate]"))
            .unwrap_err();
        assert!(e.message.contains("energy_plot"), "{e}");
    }

    #[test]
    fn the_new_names_carry_the_old_values() {
        let s = spec("kind = \"lyapunov\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [2.0, 2.0]\n[lyapunov]\ntransient = 10.0\nt_end = 210.0\n").unwrap();
        let r = &s.analysis;
        let run = r
            .as_any()
            .downcast_ref::<crate::kinds::lyapunov::LyapunovRun>()
            .unwrap();
        assert_eq!((run.options.transient, run.options.time), (10.0, 200.0));
        let s = spec("kind = \"map\"\n[model]\npreset = \"double\"\n[integrator]\ndt = 0.005\n[map]\nresolution = [64, 32]\nt_end = 3.0\n").unwrap();
        let r = &s.analysis;
        let m = crate::kinds::map::options(&**r).expect("a map's settings");
        assert_eq!(
            (m.grid.width, m.grid.height, m.t_max, m.dt),
            (64, 32, 3.0, 0.005)
        );
        assert_eq!(s.method, Method::Rk4 { dt: 0.005 });
        let e = spec(
            "kind = \"map\"\n[model]\npreset = \"double\"\n[integrator]\nmethod = \"dop853\"\n",
        )
        .unwrap_err();
        assert_eq!(e.field, "integrator.method");
    }

    const CART: &str = "[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n";

    #[test]
    fn one_spec_holds_either_model() {
        let s = spec(&format!(
            "kind = \"simulate\"\n{CART}[initial]\nequilibrium = \"hanging\"\ntilt = 0.1\n"
        ))
        .unwrap();
        assert!(matches!(s.model, Model::Cart(_)));
        assert_eq!(s.model_name, "cart-chain");
        // Each model refuses the other's initial fields and the analyses it does not offer.
        let e = spec(&format!(
            "kind = \"simulate\"\n{CART}[initial]\ntheta = [1.0, 2.0]\n"
        ))
        .unwrap_err();
        assert_eq!(e.field, "initial.theta");
        let e =
            spec(&OK.replace("theta = [2.0, 2.0]", "theta = [2.0, 2.0]\ntilt = 0.1")).unwrap_err();
        assert_eq!(e.field, "initial.tilt");
        let e = spec(&format!("kind = \"map\"\n{CART}")).unwrap_err();
        assert_eq!(e.field, "kind");
        assert!(e.message.contains("cart-chain"), "{e}");
        let e = spec("kind = \"control\"\n[model]\npreset = \"double\"\n").unwrap_err();
        assert_eq!(e.field, "kind");
        let e = spec(&OK.replace("[model]", "[model]\nkind = \"rope\"")).unwrap_err();
        assert!(e.message.contains("unknown model kind `rope`"), "{e}");
        // A control spec without a start begins at its target, tilted by 0.05 rad.
        let s = spec(&format!("kind = \"control\"\n{CART}")).unwrap();
        let r = &s.analysis;
        let c = r
            .as_any()
            .downcast_ref::<crate::kinds::control::ControlOptions>();
        let c = c.expect("control's settings");
        assert_eq!(c.signs, vec![-1.0, -1.0]);
    }
}
