//! The `[orbits]` table and what it validates into ([`OrbitsRun`], the kind's settings): a
//! periodic orbit (`action = "find"`), its branch against one spec
//! field with the located bifurcations (`"continue"`), or the orbit diagram of a driven chain
//! against one spec field (`"diagram"`).
//!
//! ```toml
//! kind = "orbits"
//! [model]                      # a driven chain: orbits of period k·T_drive
//! preset = "simple"
//! [model.drive.torque]
//! amplitude = 1.07
//! frequency = 0.6667
//! [initial]
//! theta = [0.3]                # the seed (start = "initial", default)
//! [orbits]
//! action = "continue"
//! start = "settle"             # initial | mode | settle (drive periods from [initial] first)
//! parameter = "model.drive.torque.amplitude"
//! range = [1.0, 1.1]
//! doublings = 3                # follow this many period-doubling branches
//! follow = ["branch-point"]    # or "all": the new branches born at the located bifurcations
//! ```
//!
//! An undriven, undamped chain's orbits are closed by their energy (`energy`, J; default the
//! seed's) or their period (`period`, s, without `energy`); `parameter = "orbits.energy"`
//! continues a family in energy. A normal mode seeds a nonlinear family: `start = "mode"`,
//! `mode = K` (1 = lowest), `amplitude` (rad, the largest link's). Inside the chaos of a driven
//! chain, `start = "return"` seeds an unstable orbit from the nearest return of the
//! stroboscopic map after k periods (with `segments` > 1 for a strongly unstable one), and
//! `start = "map"` from an attractor of a final-state map: `map_file = "basins.h5"`,
//! `attractor = "period_2"` (its class; the period sets `drive_periods`), the start of the
//! map's pixel of that class that settled first, after `transient_periods` drive periods.

use crate::analysis::periodic::{
    Closure, ContinuationOptions, DiagramOptions, Family, PeriodicError, ShootingOptions,
};
use crate::model::Chain;
use crate::model::{Parameter, ParameterError, PARAMETERS, TEXTBOOK_PARAMETERS};
use crate::spec::checked_chain;
use serde::{Deserialize, Serialize};

/// The `[orbits]` table as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrbitsSpec {
    /// find (default) | continue | diagram.
    pub action: Option<String>,
    /// Where the first orbit is sought from: initial (default) | mode | settle.
    pub start: Option<String>,
    /// The normal mode (1 = lowest) of `start = "mode"`.
    pub mode: Option<usize>,
    /// The mode seed's largest link angle (rad), default 0.05.
    pub amplitude: Option<f64>,
    /// A driven orbit's period in drive periods k (default 1).
    pub drive_periods: Option<usize>,
    /// An autonomous orbit's energy (J); default the seed's.
    pub energy: Option<f64>,
    /// An autonomous orbit's period (s): the guess, or (without `energy`) the fixed period.
    pub period: Option<f64>,
    /// Drive periods integrated from [initial] before the search (`start = "settle"` or
    /// `"return"`) or before the diagram's samples at each parameter value.
    pub transient_periods: Option<u64>,
    /// Drive periods scanned for the nearest return after k of them (`start = "return"`,
    /// default 1000); for an undriven chain, crossings of θ₁ = 0.
    pub scan_periods: Option<u64>,
    /// `start = "map"`: the final-state map file (HDF5, `pendula map --kind final-state`) whose
    /// attractor seeds the search.
    pub map_file: Option<String>,
    /// `start = "map"`: the attractor's class in that map (`period_K`), default
    /// `period_{drive_periods}`.
    pub attractor: Option<String>,
    /// Shooting segments (1: single shooting).
    pub segments: Option<usize>,
    /// Newton stops when every residual is at most this (rad, rad/s), default 1e-10.
    pub newton_tolerance: Option<f64>,
    pub max_iterations: Option<usize>,
    /// Intervals per segment along the orbit (its shape: this many states per segment, and
    /// the end), default 64.
    pub shape_samples: Option<usize>,
    /// The varied spec field (continue, diagram): one of the sweep fields or `orbits.energy`.
    pub parameter: Option<String>,
    /// continue: the parameter's bounds [min, max]; diagram: the swept values' ends [from, to].
    pub range: Option<Vec<f64>>,
    /// continue: most branch points (default 200); diagram: parameter values (default 200).
    pub points: Option<usize>,
    /// continue: up (default), down or both ways from the start value.
    pub direction: Option<String>,
    /// The continuation's first, smallest and largest arclength steps.
    pub step: Option<f64>,
    pub min_step: Option<f64>,
    pub max_step: Option<f64>,
    /// A located bifurcation's parameter is known to within this (default 1e-9).
    pub locate_tolerance: Option<f64>,
    /// Period-doubling branches followed after the first (continue of a driven chain).
    pub doublings: Option<usize>,
    /// continue: the kinds of located bifurcation whose new branches are followed
    /// (`period-doubling`, `branch-point`, `neimark-sacker`: a note, the torus being the
    /// frequency map's), or `all`.
    pub follow: Option<FollowSpec>,
    /// The diagram's further starts (each a whole state θ…, θ̇…) beside [initial].
    pub starts: Option<Vec<Vec<f64>>>,
    /// Drive periods sampled at each parameter value (diagram, default 100).
    pub sampled_periods: Option<u64>,
    /// RK4 steps per drive period (diagram, default 200).
    pub steps_per_period: Option<u64>,
    /// curve: the second varied spec field p₂ (any `parameter` accepts but the energy and p₁).
    pub parameter2: Option<String>,
    /// curve: p₂'s bounds [min, max].
    pub range2: Option<Vec<f64>>,
    /// curve: which located bifurcations of the branch to continue: all (default) | fold |
    /// branch-point | period-doubling | neimark-sacker | KIND:N (the N-th of that kind along the branch).
    pub bifurcation: Option<String>,
    /// curve: take the located bifurcations from this orbits `continue` file (HDF5) instead of
    /// continuing the branch.
    pub branch_file: Option<String>,
    /// curve: the stability chart's shading grid, nodes per axis (default 40, 0: none).
    pub chart_grid: Option<usize>,
}

/// `orbits.follow` as written: one word or a list of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FollowSpec {
    Word(String),
    List(Vec<String>),
}

/// By hand rather than `untagged`, so that a value of another type is refused as every field's
/// is ("invalid type: integer `1`, expected a word or a list of words"), not as an enum's.
impl<'de> Deserialize<'de> for FollowSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Words;
        impl<'de> serde::de::Visitor<'de> for Words {
            type Value = FollowSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a word or a list of words")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FollowSpec, E> {
                Ok(FollowSpec::Word(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<FollowSpec, A::Error> {
                let mut words = Vec::new();
                while let Some(w) = a.next_element::<String>()? {
                    words.push(w);
                }
                Ok(FollowSpec::List(words))
            }
        }
        d.deserialize_any(Words)
    }
}

/// Which located bifurcations' new branches a continuation follows (`orbits.follow`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Follow {
    /// Each period doubling of the first branch(es): its doubled branch.
    pub period_doubling: bool,
    /// Each branch point: the new branch (a symmetry-breaking pitchfork's).
    pub branch_point: bool,
    /// Each Neimark–Sacker point: a note naming the torus' command, nothing continued.
    pub neimark_sacker: bool,
}

impl Follow {
    /// The words `follow` takes, besides `all`.
    pub const NAMES: [&'static str; 3] = ["period-doubling", "branch-point", "neimark-sacker"];

    pub fn any(self) -> bool {
        self.period_doubling || self.branch_point || self.neimark_sacker
    }
}

/// What the run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrbitsAction {
    Find,
    Continue,
    Diagram,
    /// Curves of the branch's bifurcations in two parameters ([`super::curves`]).
    Curve,
}

impl OrbitsAction {
    /// Every action's name, the default first: `orbits.action`'s words and the values of the
    /// command's ACTION.
    pub const NAMES: [&'static str; 4] = ["find", "continue", "diagram", "curve"];

    /// The action called `name` (one of [`OrbitsAction::NAMES`]).
    pub fn named(name: &str) -> Option<OrbitsAction> {
        match name {
            "find" => Some(OrbitsAction::Find),
            "continue" => Some(OrbitsAction::Continue),
            "diagram" => Some(OrbitsAction::Diagram),
            "curve" => Some(OrbitsAction::Curve),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OrbitsAction::Find => "find",
            OrbitsAction::Continue => "continue",
            OrbitsAction::Diagram => "diagram",
            OrbitsAction::Curve => "curve",
        }
    }
}

/// Where the first orbit is sought from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OrbitStart {
    /// The spec's initial state.
    Initial,
    /// Normal mode `mode` (from 0) of the hanging chain, at `amplitude` (rad).
    Mode { mode: usize, amplitude: f64 },
    /// The initial state after `periods` drive periods (an attractor of a driven chain).
    Settle { periods: u64 },
    /// After `transient` drive periods, the stroboscopic point among the next `scan` whose
    /// k-th iterate returns nearest to it: a seed for an unstable orbit inside chaos. An
    /// undriven chain's: among `scan` crossings of θ₁ = 0 (upward), the one whose next
    /// crossing is nearest, with the time between them as the period guess.
    Return { transient: u64, scan: u64 },
    /// A final-state map's attractor ([`OrbitsRun::map_seed`]): the start of the map's pixel
    /// of that class that settled first, after `periods` drive periods.
    Map { periods: u64 },
}

/// Where `start = "map"` takes its seed from.
#[derive(Debug, Clone, PartialEq)]
pub struct MapSeed {
    /// The final-state map file, as the spec names it.
    pub file: String,
    /// The attractor's class word in the map's legend (`period_K`).
    pub attractor: String,
    /// Its K: the orbit's period in drive periods.
    pub period: usize,
}

/// What closes the orbits, before the parameter is applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OrbitClosure {
    /// Period k·T_drive, T_drive of the chain at each parameter value.
    Driven { k: usize },
    /// Fixed energy (J); `None`: the seed's energy.
    Energy(Option<f64>),
    /// Fixed period (s).
    Period(f64),
}

/// The varied field.
#[derive(Debug, Clone, PartialEq)]
pub struct OrbitParameter {
    /// As the spec names it (`model.drive.torque.amplitude`, `orbits.energy`).
    pub name: String,
    /// What the figure's axis and the file's `long_name` call it (`torque amplitude A`).
    pub long_name: String,
    pub units: String,
    pub varied: Varied,
}

/// What a continuation or diagram varies: the energy of an undriven chain's orbits, or a
/// parameter of the chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Varied {
    Energy,
    Model(Parameter),
}

impl OrbitParameter {
    /// Whether it is the orbits' energy (`orbits.energy`) rather than a model field.
    pub fn is_energy(&self) -> bool {
        self.varied == Varied::Energy
    }
}

/// The validated `[orbits]` table: the kind's settings ([`crate::kinds::Settings`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OrbitsRun {
    pub action: OrbitsAction,
    pub start: OrbitStart,
    pub closure: OrbitClosure,
    /// The period guess of an autonomous orbit (s); a mode seed's default is 2π/ω.
    pub period_guess: Option<f64>,
    pub shooting: ShootingOptions,
    pub parameter: Option<OrbitParameter>,
    pub continuation: ContinuationOptions,
    /// Continue down from the start too (a second branch, before the doubled ones).
    pub both_ways: bool,
    pub doublings: usize,
    /// The located bifurcations whose new branches are followed (`orbits.follow`).
    pub follow: Follow,
    /// The diagram's values, extra starts, transient, samples and steps (diagram).
    pub diagram: Option<DiagramOptions>,
    /// Whether the model is a preset (a varied chain's errors name `model.mass`, not
    /// `model.link[1].mass`).
    pub preset: bool,
    /// `start = "map"`: the map file and the attractor.
    pub map_seed: Option<MapSeed>,
    /// `action = "curve"`: the second parameter, the selection and the curves' options.
    pub curve: Option<super::curve_spec::CurveRun>,
}

/// The fields `parameter` may name.
pub fn parameters() -> Vec<&'static str> {
    PARAMETERS
        .iter()
        .map(|p| p.name)
        .chain(TEXTBOOK_PARAMETERS.iter().map(|p| p.name))
        .chain(["orbits.energy"])
        .collect()
}

/// The family a run continues or sweeps: the spec's chain with the parameter set, closed as
/// the spec says.
pub struct SpecFamily<'a> {
    pub run: &'a OrbitsRun,
    /// The spec's own chain (the energy parameter varies nothing else).
    pub chain: &'a Chain,
    /// The fixed energy of an autonomous family not continued in energy (the first orbit's).
    pub energy: f64,
}

impl Family for SpecFamily<'_> {
    type Sys = Chain;
    fn at(&self, p: f64) -> Result<(Chain, Closure), PeriodicError> {
        let chain = match self.run.parameter.as_ref() {
            None => self.chain.clone(),
            Some(q) => match q.varied {
                Varied::Energy => return Ok((self.chain.clone(), Closure::Energy(p))),
                Varied::Model(m) => {
                    let bad = |m: String| PeriodicError::invalid("orbits.parameter", m);
                    let set = match m.set(self.chain, p) {
                        Err(ParameterError::Model(e)) => Err(e),
                        Err(other) => return Err(bad(other.to_string())),
                        Ok(c) => Ok(c),
                    };
                    checked_chain(set, self.run.preset)
                        .map_err(|e| bad(format!("at {} = {p}: {e}", q.name)))?
                }
            },
        };
        let closure = match self.run.closure {
            OrbitClosure::Driven { k } => {
                let t = chain
                    .params()
                    .drive
                    .period_of_fields()
                    .map_err(PeriodicError::Invalid)?
                    .ok_or_else(|| {
                        PeriodicError::invalid("model.drive", "the chain is not driven")
                    })?;
                Closure::Driven { drive_period: t, k }
            }
            OrbitClosure::Energy(e) => Closure::Energy(e.unwrap_or(self.energy)),
            OrbitClosure::Period(t) => Closure::Period(t),
        };
        Ok((chain, closure))
    }
}

impl OrbitsRun {
    /// The parameter's value in the spec (the continuation's start); `energy` is the first
    /// orbit's energy, for `orbits.energy`.
    pub fn parameter_start(&self, chain: &Chain, energy: f64) -> Option<f64> {
        match self.parameter.as_ref()?.varied {
            Varied::Energy => Some(energy),
            Varied::Model(m) => m.get(chain),
        }
    }
}
