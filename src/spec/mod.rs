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
use crate::analysis::poincare::PoincareOptions;
use crate::analysis::{AnimateOptions, SimulateOptions};
use crate::integrate::Method;
use crate::model::{CartChain, Chain};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

mod budget;
pub mod cart;
mod integrator;
mod lyapunov;
mod map;
mod measure;
mod model;
mod modes;
pub mod orbits;
mod parameter;
mod poincare;
mod retired;
mod simulate;
mod sweep;
mod visual;

pub use crate::kinds::frequencies::{FrequenciesRun, FrequenciesSpec};
pub use budget::{
    chaotic_estimate, format_bytes, measure_estimate, over_budget, Budget, Estimate, LabelGrids,
    MAX_LINKS, MAX_STEPS,
};
pub use cart::{CartModelSpec, ControlOptions, ControlSpec, InputSpec};
pub use integrator::IntegratorSpec;
pub use lyapunov::{ExponentsSpec, LyapunovEstimator, LyapunovRun, LyapunovSpec};
pub use map::{map_title, MapSpec, Resolution, MAP_MAX_EDGE};
pub use measure::{MeasureRun, MeasureSpec, Sweep, SweepSpec};
pub use model::{
    DampingSpec, DriveSpec, InitialSpec, LinkSpec, ModelFile, ModelSpec, Omega, PerLink,
};
pub use modes::{EquilibriaSpec, ModesSpec};
pub use orbits::{OrbitsAction, OrbitsRun, OrbitsSpec};
pub use parameter::SWEEP_PARAMETERS;
pub use poincare::{OneOrMany, PoincareSpec};
pub use simulate::SimulateSpec;
pub use sweep::{
    point_file, points_beside, swept_kinds, Axis, AxisSpec, Combine, Count, SweepPlan, SweepPoint,
    SweepTable, MAX_SWEEP_POINTS,
};
pub use visual::{AnimateSpec, Figures, FiguresSpec};

/// A bad value in a spec or on the command line; `field` is the spec path of the value. The
/// library's one field-carrying error: see [`crate::error`].
pub use crate::error::FieldError as SpecError;

/// A spec file as written: every table of every analysis kind and model; [`SpecFile::validate`]
/// refuses the tables and fields that do not apply to the spec's kind and model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    pub simulate: Option<SimulateSpec>,
    pub modes: Option<ModesSpec>,
    pub lyapunov: Option<LyapunovSpec>,
    pub poincare: Option<PoincareSpec>,
    pub map: Option<MapSpec>,
    pub animate: Option<AnimateSpec>,
    pub control: Option<ControlSpec>,
    /// Measures of a computed map (kind = "measure", beside its `[map]`).
    pub measure: Option<MeasureSpec>,
    /// Periodic orbits, their branches and orbit diagrams.
    pub orbits: Option<OrbitsSpec>,
    /// The frequency analysis (NAFF) of one orbit.
    pub frequencies: Option<FrequenciesSpec>,
    /// Still figures of the visual lab (simulate and animate kinds).
    pub figures: Option<FiguresSpec>,
    /// The analysis run once per value of one or more fields ([`SweepTable`]).
    pub sweep: Option<SweepTable>,
    #[serde(default)]
    pub output: OutputSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// HDF5 result file.
    pub file: Option<PathBuf>,
    /// Figure (.png or .svg).
    pub plot: Option<PathBuf>,
}

/// The validated model: what evolves. A third model is a third variant here and in
/// [`ModelFile`]; the CLI does not change.
#[derive(Debug, Clone)]
pub enum Model {
    /// Planar chain of general links (angles from the downward vertical).
    Planar(Chain),
    /// Chain of spherical pendulums on a cart, on (S²)ⁿ × R².
    Cart(CartChain),
}

impl Model {
    /// The model's name in specs (`[model] kind`) and files.
    pub fn kind(&self) -> &'static str {
        match self {
            Model::Planar(_) => "planar-chain",
            Model::Cart(_) => "cart-chain",
        }
    }
    /// The analysis kinds this model supports (the registered kinds run on the planar chain).
    pub fn kinds(&self) -> Vec<&'static str> {
        match self {
            Model::Planar(_) => [
                "simulate", "modes", "lyapunov", "poincare", "map", "animate", "measure", "orbits",
            ]
            .into_iter()
            .chain(registered())
            .collect(),
            Model::Cart(_) => vec!["simulate", "modes", "lyapunov", "control"],
        }
    }
    /// The planar chain, for the analyses only it supports.
    pub fn planar(&self) -> Option<&Chain> {
        match self {
            Model::Planar(c) => Some(c),
            Model::Cart(_) => None,
        }
    }
    pub fn links(&self) -> usize {
        match self {
            Model::Planar(c) => c.links(),
            Model::Cart(c) => c.links(),
        }
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
    pub analysis: Analysis,
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

/// The validated analysis kind and its options.
#[derive(Debug, Clone, PartialEq)]
pub enum Analysis {
    Simulate(SimulateOptions),
    Modes(ModesOptions),
    Lyapunov(LyapunovRun),
    Poincare(PoincareOptions),
    Map(MapOptions),
    Animate(AnimateOptions),
    Control(ControlOptions),
    Measure(MeasureRun),
    Orbits(Box<OrbitsRun>),
    /// A kind of the registry ([`crate::kinds`]): its validated settings.
    Registered(crate::kinds::Registered),
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
            Analysis::Control(_) => "control",
            Analysis::Measure(_) => "measure",
            Analysis::Orbits(_) => "orbits",
            Analysis::Registered(r) => r.kind().name,
        }
    }
}

/// What one analysis table validates into.
struct Validated {
    analysis: Analysis,
    x0: Vec<f64>,
    method: Method,
}

/// The title of a planar run whose spec gives none: `{kind}: {chain}` ([`chain_words`]) and
/// [`describe_run`]'s state and forcing. A map whose title is this default takes its kind's
/// title instead.
pub fn default_title(
    kind: &str,
    model_name: &str,
    chain: &crate::model::Chain,
    x0: Option<&[f64]>,
) -> String {
    format!(
        "{kind}: {}{}",
        chain_words(model_name, chain.links()),
        describe_run(chain.params(), x0)
    )
}

/// A planar chain as a title names it: `double pendulum`, `5-link chain`, `3-rod chain`,
/// `custom chain` (from the preset name the model was built from).
pub fn chain_words(model_name: &str, links: usize) -> String {
    match model_name {
        "simple" | "double" | "triple" => format!("{model_name} pendulum"),
        "chain" => format!("{links}-link chain"),
        "rods" => format!("{links}-rod chain"),
        other => format!("{other} chain"),
    }
}

/// What a default title adds to `{kind}: {chain}` ([`chain_words`]): the initial state `x0 = (θ, θ̇)` where
/// the run starts from one (the first four links, then `…`), then the damping and drive, so
/// that figures made from flags say what was run.
pub fn describe_run(p: &crate::model::ChainParams, x0: Option<&[f64]>) -> String {
    let short = |v: f64| {
        if v == 0.0 || (1e-3..1e6).contains(&v.abs()) {
            let s = format!("{v:.4}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s == "-0" {
                "0".to_string()
            } else {
                s.to_string()
            }
        } else {
            format!("{v:.3e}")
        }
    };
    let list = |v: &[f64]| {
        let mut parts: Vec<String> = v.iter().take(4).map(|x| short(*x)).collect();
        if v.len() > 4 {
            parts.push("…".into());
        }
        format!("({})", parts.join(", "))
    };
    let mut out = String::new();
    if let Some(x) = x0 {
        let n = x.len() / 2;
        out.push_str(&format!(" from θ = {} rad", list(&x[..n])));
        if x[n..].iter().any(|w| *w != 0.0) {
            out.push_str(&format!(", θ̇ = {} rad/s", list(&x[n..])));
        }
    }
    if !p.damping.is_zero() {
        out.push_str(", damped");
    }
    if let Some(t) = &p.drive.torque {
        out.push_str(&format!(
            ", torque {} N·m at Ω = {} rad/s",
            short(t.amplitude),
            short(t.frequency)
        ));
    }
    if let Some(m) = &p.drive.pivot {
        let amp = m.x_amplitude.hypot(m.y_amplitude);
        out.push_str(&format!(
            ", pivot driven {} m at Ω = {} rad/s",
            short(amp),
            short(m.frequency)
        ));
    }
    out
}

/// Parses TOML text; the error is one line with the line:column of the problem.
pub fn parse(text: &str, origin: &str) -> Result<SpecFile, SpecError> {
    from_toml(text, origin)
}

/// Deserializes `text`, naming in an error the field it is about (`initial.theta[1]`) beside
/// its line and column.
fn from_toml<T: serde::de::DeserializeOwned>(text: &str, origin: &str) -> Result<T, SpecError> {
    let de = toml::Deserializer::parse(text).map_err(|e| toml_error(&e, text, origin))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let err = toml_error(e.inner(), text, origin);
        SpecError::new(err.field, name_field(&path, &err.message))
    })
}

/// Marks the field an error inside a nested deserialization is about (the `[model]` table is
/// deserialized in a second pass, which the outer path cannot see into); [`name_field`] reads
/// the mark back.
const FIELD_MARK: char = '\u{1f}';

pub(crate) fn mark_field(path: &str, message: &str) -> String {
    if path.is_empty() || path == "." {
        message.to_string()
    } else {
        format!("{FIELD_MARK}{path}{FIELD_MARK}{message}")
    }
}

/// A deserialization message naming its field: `model.gravity: invalid type …` from the outer
/// path `model` and a message marked by [`mark_field`] (or unmarked, naming `path` alone).
pub fn name_field(path: &str, message: &str) -> String {
    let path = one_based(if path == "." { "" } else { path });
    let path = path.as_str();
    let (inner, rest) = match message
        .strip_prefix(FIELD_MARK)
        .and_then(|m| m.split_once(FIELD_MARK))
    {
        Some((inner, rest)) => (one_based(inner), rest),
        None => (String::new(), message),
    };
    let inner = inner.as_str();
    let full = match (path.is_empty(), inner.is_empty()) {
        (_, true) => path.to_string(),
        (true, false) => inner.to_string(),
        (false, false) => format!("{path}.{inner}"),
    };
    // A message that already names its field, or a coarser one (the line's key, from
    // `toml_error`), keeps only the finer name.
    if let Some((named, tail)) = rest.split_once(": ") {
        let coarser = full.starts_with(named)
            && matches!(
                full[named.len()..].chars().next(),
                None | Some('[') | Some('.')
            );
        if !full.is_empty() && coarser {
            return format!("{full}: {tail}");
        }
    }
    match (path.is_empty(), inner.is_empty()) {
        (true, true) => rest.to_string(),
        (false, true) => format!("{path}: {rest}"),
        (true, false) => format!("{inner}: {rest}"),
        (false, false) => format!("{path}.{inner}: {rest}"),
    }
}

/// A serde path's list indices counted from 1 (`theta[0]` → `theta[1]`), as every validation
/// message counts links and list entries.
fn one_based(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let close = rest.find(']').unwrap_or(rest.len());
        match rest[..close].parse::<usize>() {
            Ok(i) => out.push_str(&(i + 1).to_string()),
            Err(_) => out.push_str(&rest[..close]),
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Parses a stand-alone model file (the `[model]` table's fields at top level).
pub fn parse_model(text: &str, origin: &str) -> Result<ModelFile, SpecError> {
    from_toml(text, origin).map_err(|e| {
        // A whole spec given as a model file is the likely mistake: say so.
        match text.parse::<toml::Table>() {
            Ok(t) if t.contains_key("model") => SpecError::new(
                origin,
                "is a spec (it has a [model] table), not a model file: give it with --spec",
            ),
            _ => e,
        }
    })
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
    match e.span().and_then(|s| value_key(text, s.start)) {
        Some(key) => SpecError::new(at, format!("{key}: {msg}")),
        None => SpecError::new(at, msg),
    }
}

/// The dotted field (`model.links`) whose value starts at byte `at`, when `at` lies after a
/// `key =` on its line: a value the parser refused (`links = 9223372036854775808`) is then
/// named, not only located. Syntax errors elsewhere give None.
fn value_key(text: &str, at: usize) -> Option<String> {
    let at = at.min(text.len());
    let start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let eq = line.find('=')?;
    if start + eq >= at {
        return None;
    }
    let key = line[..eq].trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') || key.starts_with('#') {
        return None;
    }
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

/// The lengths (m) and masses (kg) a model takes: a wide physical range whose squares and
/// products stay far from binary64's underflow and overflow (a length of 5e-324 squares to 0
/// and leaves the mass matrix singular).
pub const SIZE_RANGE: (f64, f64) = (1e-6, 1e6);

/// Largest ratio of two masses of one model (the cart's included): the mass matrix's Cholesky
/// factor subtracts the mass below a link from the mass at it, so a light body beside a body
/// 1e16 times heavier vanishes in round-off (`mass = 1e150` on a 1 kg cart is not SPD); 1e8
/// keeps at least 8 of its digits.
pub const MAX_MASS_RATIO: f64 = 1e8;

/// Largest |θ| (rad) and |θ̇| (rad/s) of an initial state: beyond 1e6 rad binary64 keeps fewer
/// than ten digits of the angle mod 2π, and 1e308 only overflows the energy.
pub const MAX_ANGLE: f64 = 1e6;
pub const MAX_RATE: f64 = 1e6;
/// Largest |x| (m) and |v| (m/s) of the cart's initial position and velocity, for the same
/// reason.
pub const MAX_POSITION: f64 = 1e6;

/// Refuses a length or mass outside [`SIZE_RANGE`], naming `field`.
fn in_size_range(field: &str, v: f64, unit: &str) -> Result<(), SpecError> {
    let (lo, hi) = SIZE_RANGE;
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(SpecError::new(
            field,
            format!("must be between {lo:e} and {hi:e} {unit} (got {v:e})"),
        ))
    }
}

/// Refuses masses whose ratio exceeds [`MAX_MASS_RATIO`]: `masses` are `(field, kg)`, the
/// lightest is named.
fn mass_ratio(masses: &[(String, f64)]) -> Result<(), SpecError> {
    let heaviest = masses.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let lightest = masses.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(h), Some(l)) = (heaviest, lightest) {
        if h.1 / l.1 > MAX_MASS_RATIO {
            return Err(SpecError::new(
                l.0.clone(),
                format!(
                    "{:e} kg is {:.1e} times lighter than {} ({:e} kg); the limit is a ratio of {MAX_MASS_RATIO:e} (the mass matrix would lose the lighter body in round-off)",
                    l.1, h.1 / l.1, h.0, h.1
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses an initial angle or rate beyond [`MAX_ANGLE`] / [`MAX_RATE`]; `values` are one
/// field's list (`field[i]` is named).
fn bounded(field: &str, values: &[f64], max: f64, unit: &str) -> Result<(), SpecError> {
    if let Some(i) = values.iter().position(|v| v.is_nan() || v.abs() > max) {
        return Err(SpecError::new(
            format!("{field}[{}]", i + 1),
            format!(
                "must be finite with |value| <= {max:e} {unit} (got {:e})",
                values[i]
            ),
        ));
    }
    Ok(())
}

use crate::error::positive;

/// Refuses the first of `fields` (`(name, given)` in `table`) that was given: it does not
/// apply, and `why` says so.
fn refuse_given(table: &str, fields: &[(&str, bool)], why: &str) -> Result<(), SpecError> {
    match fields.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(SpecError::new(format!("{table}.{name}"), why)),
        None => Ok(()),
    }
}

/// A figure path must name a format [`crate::plot::Format`] draws (.png or .svg).
pub fn figure_format(field: &str, p: &std::path::Path) -> Result<crate::plot::Format, SpecError> {
    no_nul(field, p)?;
    crate::plot::Format::from_path(p)
        .map_err(|_| SpecError::new(field, format!("`{}` must end in .png or .svg", p.display())))
}

/// A path with a NUL byte (a spec's string can hold `\u0000`; a command line cannot) names no
/// file the system can open: say so, rather than let the directory check call it unwritable.
pub fn no_nul(field: &str, p: &std::path::Path) -> Result<(), SpecError> {
    if p.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(SpecError::new(
            field,
            format!(
                "the path `{}` contains a NUL byte, which no file name can hold",
                p.display().to_string().replace('\0', "\\0")
            ),
        ));
    }
    Ok(())
}

/// A result file must be HDF5 by name: `.h5` or `.hdf5` (any case).
pub fn result_format(field: &str, p: &std::path::Path) -> Result<(), SpecError> {
    no_nul(field, p)?;
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if matches!(ext.as_deref(), Some("h5" | "hdf5")) {
        Ok(())
    } else {
        Err(SpecError::new(
            field,
            format!(
                "`{}` must end in .h5 or .hdf5 (results are HDF5)",
                p.display()
            ),
        ))
    }
}

/// Fields that stand for one another: an override of one (a flag) removes the others.
pub const ALTERNATIVES: &[&[&str]] = &[
    &["initial.theta", "initial.theta_deg"],
    &["model.preset", "model.link"],
    &["integrator.dt", "integrator.substeps"],
    &["poincare.energy", "poincare.energy_fraction"],
    &["poincare.section", "poincare.normal"],
    &["poincare.grid", "poincare.random"],
];

/// The names of the registered kinds ([`crate::kinds::KINDS`]).
fn registered() -> impl Iterator<Item = &'static str> {
    crate::kinds::KINDS.iter().map(|k| k.name)
}

/// The analysis kinds a spec can ask for (each model supports some: [`Model::kinds`]): the
/// kinds whose slices are still here, then the registered ones.
pub fn kinds() -> Vec<&'static str> {
    [
        "simulate", "modes", "lyapunov", "poincare", "map", "animate", "control", "measure",
        "orbits",
    ]
    .into_iter()
    .chain(registered())
    .collect()
}

impl SpecFile {
    /// Which analysis tables are present, by kind.
    fn sections(&self) -> [(&'static str, bool); 10] {
        [
            ("simulate", self.simulate.is_some()),
            ("modes", self.modes.is_some()),
            ("lyapunov", self.lyapunov.is_some()),
            ("poincare", self.poincare.is_some()),
            ("map", self.map.is_some()),
            ("animate", self.animate.is_some()),
            ("control", self.control.is_some()),
            ("measure", self.measure.is_some()),
            ("orbits", self.orbits.is_some()),
            ("frequencies", self.frequencies.is_some()),
        ]
    }

    /// Checks every value and builds the analysis: the one validator of files and flags. The
    /// run must fit the machine's default [`Budget`] ([`SpecFile::validate_within`]).
    pub fn validate(&self) -> Result<Spec, SpecError> {
        self.validate_within(&Budget::machine())
    }

    /// [`SpecFile::validate`] with a memory budget: the link count is checked before the model
    /// is built, the whole run's [`Spec::memory_estimate`] and its step count
    /// ([`MAX_STEPS`]) before the spec is returned, so nothing large is allocated for a run
    /// that would be refused.
    pub fn validate_within(&self, budget: &Budget) -> Result<Spec, SpecError> {
        self.validate_for(budget, None)
    }

    /// [`SpecFile::validate_within`] for shard `shard` (`(i, n)`, `--shard i/n`) of a map
    /// run, whose memory is its own tiles' ([`Spec::memory_estimate_for`]).
    pub fn validate_for(
        &self,
        budget: &Budget,
        shard: Option<(usize, usize)>,
    ) -> Result<Spec, SpecError> {
        let kind = self.kind.as_deref().ok_or_else(|| {
            SpecError::new(
                "kind",
                format!("missing: the analysis to run ({})", kinds().join(", ")),
            )
        })?;
        if !kinds().contains(&kind) {
            return Err(SpecError::new(
                "kind",
                format!(
                    "unknown analysis kind `{kind}` (expected {})",
                    kinds().join(", ")
                ),
            ));
        }
        if self.sweep.is_some() {
            return self.validate_sweep(kind, budget, shard);
        }
        for (section, present) in self.sections() {
            // A measure spec computes the map it measures: its [map] table belongs to it.
            let measured_map = kind == "measure" && section == "map";
            if present && kind != section && !measured_map {
                return Err(SpecError::new(
                    section,
                    format!("this section belongs to kind = \"{section}\", not \"{kind}\""),
                ));
            }
        }
        self.check_links(budget)?;
        let (model, model_name) = self.model.build()?;
        if !model.kinds().contains(&kind) {
            return Err(SpecError::new(
                "kind",
                format!(
                    "`{kind}` is not offered for the {} model (expected {})",
                    model.kind(),
                    model.kinds().join(", ")
                ),
            ));
        }
        self.initial.check_model(&model)?;
        let v = match kind {
            "simulate" => simulate::validate(self, &model)?,
            "modes" => modes::validate(self, &model)?,
            "lyapunov" => lyapunov::validate(self, &model)?,
            "control" => cart::validate_control(self, &model)?,
            planar_only => {
                let chain = model.planar().expect("checked by Model::kinds");
                match planar_only {
                    "poincare" => poincare::validate(self, chain)?,
                    "map" => map::validate(self, chain)?,
                    "measure" => measure::validate(self, chain)?,
                    "orbits" => orbits::validate(self, chain)?,
                    "frequencies" => self.validate_frequencies(chain)?,
                    _ => visual::validate_animate(self, chain)?,
                }
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
            figure_format("output.plot", p)?;
        }
        if let Some(p) = &self.output.file {
            result_format("output.file", p)?;
        }
        let figures = match &self.figures {
            None => Figures::default(),
            Some(_) if !matches!(kind, "simulate" | "animate") || model.planar().is_none() => {
                return Err(SpecError::new(
                    "figures",
                    format!(
                        "still figures are drawn by simulate and animate of a planar chain, not {kind} of the {} model",
                        model.kind()
                    ),
                ))
            }
            Some(f) => f.figures(model.links())?,
        };
        let title = self.title.clone().unwrap_or_else(|| match &model {
            Model::Planar(c) => {
                // A run from a given state names it; every planar run names its forcing.
                let state = matches!(kind, "simulate" | "lyapunov" | "animate");
                default_title(kind, &model_name, c, state.then_some(v.x0.as_slice()))
            }
            Model::Cart(c) => cart::default_title(kind, c),
        });
        let mut notes = Vec::new();
        if let (Analysis::Map(o), Some(m)) = (&v.analysis, &self.map) {
            if let (Some(sh), None) = (&o.grid.shell, &m.window) {
                notes.push(map::reach_note(o, sh.energy));
            }
        }
        let spec = Spec {
            figures,
            title,
            model,
            model_name,
            x0: v.x0,
            method: v.method,
            analysis: v.analysis,
            output: self.output.clone(),
            text: toml::to_string(self).unwrap_or_default(),
            notes,
            sweep: None,
        };
        self.check_steps(&spec)?;
        spec.check_memory(budget, shard)?;
        Ok(spec)
    }

    /// The `[frequencies]` table validated by its kind ([`crate::kinds::frequencies`]).
    fn validate_frequencies(&self, chain: &Chain) -> Result<Validated, SpecError> {
        let table = self.frequencies.clone().unwrap_or_default();
        let method = |dt| self.integrator.method(dt);
        let (run, method) = crate::kinds::frequencies::validate(&table, chain, &method)?;
        Ok(Validated {
            analysis: Analysis::Registered(crate::kinds::Registered(Box::new(run))),
            x0: self.initial.state(chain.links())?,
            method,
        })
    }

    /// A spec with a `[sweep]`: the spec without it validated as the template, then every
    /// point ([`sweep::plan`]); a measure spec's sweep is its `[measure.sweep]`.
    fn validate_sweep(
        &self,
        kind: &str,
        budget: &Budget,
        shard: Option<(usize, usize)>,
    ) -> Result<Spec, SpecError> {
        if kind == "measure" {
            return sweep::into_measure(self)?.validate_for(budget, shard);
        }
        if shard.is_some() {
            return Err(SpecError::new(
                "sweep",
                "a sweep runs each point's map whole: shard a map spec without a sweep",
            ));
        }
        let mut base = self.clone();
        base.sweep = None;
        let mut spec = base.validate_for(budget, shard)?;
        let plan = sweep::plan(self, &spec, budget)?;
        if self.title.is_none() {
            // The template's default title names its own values of the swept fields.
            let fields: Vec<&str> = plan.axes.iter().map(|a| a.parameter.as_str()).collect();
            spec.title = format!(
                "{kind} sweep over {}: {}",
                fields.join(", "),
                chain_words(&spec.model_name, spec.model.links())
            );
        }
        spec.text = toml::to_string(self).unwrap_or_default();
        spec.sweep = Some(Box::new(plan));
        Ok(spec)
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
        let Analysis::Lyapunov(run) = &s.analysis else {
            panic!("a lyapunov spec")
        };
        assert_eq!((run.options.transient, run.options.time), (10.0, 200.0));
        let s = spec("kind = \"map\"\n[model]\npreset = \"double\"\n[integrator]\ndt = 0.005\n[map]\nresolution = [64, 32]\nt_end = 3.0\n").unwrap();
        let Analysis::Map(m) = &s.analysis else {
            panic!("a map spec")
        };
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
        let Analysis::Control(c) = &s.analysis else {
            panic!("a control spec")
        };
        assert_eq!(c.signs, vec![-1.0, -1.0]);
    }
}
