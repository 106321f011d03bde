//! The catalogue of map kinds: what each pixel is reduced to ([`MapKind`], with its parameters)
//! and, per kind ([`MapKindId`]), every fact the rest of pendula needs about it: its name, title,
//! value and auxiliary variables with units, `class` legend, the spec fields it takes, which
//! lanes serve it, which label variables `measure` may take from it and how its figure scales
//! the value. Spec, store, plot, measure, bench and the Python package ask this catalogue and
//! never compare kind names, so a new kind is one [`MapKindId`] arm here, its [`Facts`] in
//! `facts.rs` (the table of every kind's facts), its per-pixel reduction, and its parameters in
//! `spec/map.rs`.

use super::basins::{self, Settle};
use super::class;
use super::per_kind::{self, Work};
use super::{FlipTarget, TileResult};

pub mod descriptor;
mod facts;
pub mod fli;
pub mod frequency;
use serde::Serialize;

/// What each pixel is reduced to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MapKind {
    /// First step k after which |θ| > π for the target link(s), up to n_steps.
    FlipTime { target: FlipTarget },
    /// |E(t_max) − E(0) − W(t_max)| / E_scale, with E_scale = max(|E(0)|, g Σ b).
    EnergyError,
    /// Largest finite-time Lyapunov exponent over [0, t_max] (1/s): one tangent vector
    /// (normalised all-ones start), renormalised every `renorm_steps` steps; each pixel keeps
    /// `blocks` block means for its standard error and, with `tolerance`, stops once that is
    /// below it ([`super::blocks`] has the rule).
    Lyapunov {
        renorm_steps: u32,
        blocks: u32,
        tolerance: Option<f64>,
    },
    /// Finite-time Lyapunov exponent of the flow map over the horizon t_max (1/s):
    /// ln σ_max(Φ(t_max)) / t_max, Φ the full tangent matrix (dim deviation vectors from I).
    Ftle,
    /// Which attractor a damped or driven chain ends in, and when ([`basins`]).
    FinalState { settle: Settle },
    /// SALI at the horizon t_max (or where it fell below 1e-14), the single-orbit
    /// [`indicators`](crate::analysis::orbit::indicators) run per pixel with RK4, τ = tau_steps·dt.
    Sali { tau_steps: u32 },
    /// GALI_k at the horizon, from the same run with k deviation vectors.
    Gali { k: usize, tau_steps: u32 },
    /// MEGNO ⟨Y⟩ at t_max (Cincotta & Simó 2000) from one tangent vector renormalised every
    /// `tau_steps` steps, r = δ̇·δ/δ·δ taken at every step; the slope of ⟨Y⟩(t) over the second half is the
    /// aux column (→ λ_max/2 on chaotic orbits, 0 on regular ones).
    Megno { tau_steps: u32 },
    /// The Lagrangian descriptor M_p = ∫_{−t_max}^{t_max} Σᵢ |ẋᵢ|^p dt, forward and backward
    /// halves in aux ([`descriptor`]): its ridges and valleys draw the stable and unstable
    /// manifolds.
    LagrangianDescriptor { p: f64 },
    /// The fast Lyapunov indicator FLI(t_max) = sup ln‖w‖ of one tangent vector renormalised
    /// every `tau_steps` steps, OFLI in aux: the single-orbit reducer per pixel ([`fli`]).
    Fli { tau_steps: u32 },
    /// The diffusion index log₁₀‖ν(first half) − ν(second half)‖ of NAFF's fundamental
    /// frequencies over `samples` samples `sample_steps` Gauss–Legendre steps apart, Hann window of order
    /// `window_order` ([`frequency`]).
    Frequency {
        sample_steps: u32,
        samples: u32,
        window_order: u32,
    },
}

/// A parameter of a map kind as a file attribute ([`MapKind::attributes`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Int(i64),
    Float(f64),
    Text(String),
}

/// A map kind without its parameters: the key of the catalogue, and what a map file's `kind`
/// attribute names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapKindId {
    FlipTime,
    EnergyError,
    Lyapunov,
    Ftle,
    FinalState,
    Sali,
    Gali,
    Megno,
    LagrangianDescriptor,
    Fli,
    Frequency,
}

/// One per-pixel variable of a map file: its name, whether it runs over (y, x, link) rather
/// than (y, x), units and long_name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    pub name: &'static str,
    pub per_link: bool,
    pub units: &'static str,
    pub long_name: &'static str,
}

const fn var(name: &'static str, units: &'static str, long_name: &'static str) -> Var {
    Var {
        name,
        per_link: false,
        units,
        long_name,
    }
}

/// What the `class` array of a kind means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legend {
    /// never flipped / flipped / energetically forbidden / diverged ([`class::MEANINGS`]).
    Flip,
    /// The single-orbit regularity verdict: undecided / chaotic / regular / diverged.
    Regularity,
    /// The attractors of a final-state map ([`basins::legend`]).
    Basins,
    /// Computed / diverged (and energetically forbidden on an energy-shell grid, which the
    /// store adds): every kind that is not a flip map or a verdict, so that no flip vocabulary
    /// appears in their files and summaries.
    Computed,
}

/// Which SIMD lanes can run a kind (everything else runs on the scalar `System` path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lanes {
    /// Two-link chains: `Some(true)` only conservative ones, `Some(false)` damped and driven
    /// ones too, `None` no lanes.
    pub two_link: Option<bool>,
    /// Three-link chains, damping and drive included.
    pub three_link: bool,
    /// Whether `--kernel auto` takes these lanes; when not, only `--kernel lanes` does. The
    /// lanes agree with the scalar path to rounding, so a kind whose scalar map is promised
    /// bit for bit (FLI: each pixel the single-orbit run) or already shipped (the descriptor)
    /// keeps its numbers under `auto`.
    pub auto: bool,
}

/// How a figure draws a map of the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Flip times (the flip-time colour map with its legend of classes).
    Flip,
    /// Basins of attraction coloured by attractor.
    Basins,
    /// The value variable on a colour scale.
    Value(Scale),
}

/// The colour scale of a value variable; `{t}` in a label stands for t_max.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A log scale over the positive values, down to 1e-12 of the largest.
    LogPositive { label: &'static str },
    /// A log scale from round-off (1e-16) to the largest value; classes other than diverged,
    /// forbidden and missing are drawn as values.
    LogFromRoundOff { label: &'static str },
    /// A linear scale from 0 that keeps MEGNO's regular value 2 in its lower part.
    Megno { label: &'static str },
    /// A linear scale over the finite values' nice range.
    Linear { label: &'static str },
}

/// The facts of one kind (see [`MapKindId::facts`]).
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    /// The spec's and the file's name (`kind = "flip-time"`).
    pub name: &'static str,
    /// The default title, before ", {model} pendulum".
    pub title: &'static str,
    /// The value variable (`None`: flip-time maps, whose values are `flip_step`/`flip_time`).
    pub value: Option<Var>,
    /// The auxiliary variables, in the column order of [`super::TileResult::aux`].
    pub aux: &'static [Var],
    /// The `[map]` fields this kind takes besides the common ones (refused for other kinds).
    pub fields: &'static [&'static str],
    pub legend: Legend,
    pub lanes: Lanes,
    /// The variables `measure` may label the map by; the first is the default.
    pub labels: &'static [&'static str],
    pub figure: Figure,
}

/// Every kind's name, as `--help` lists them (a test holds it to [`MapKindId::ALL`]).
pub const NAMES: &str =
    "flip-time|energy-error|lyapunov|ftle|sali|gali|megno|final-state|lagrangian-descriptor|fli|frequency";

impl MapKindId {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [MapKindId; 11] = [
        MapKindId::FlipTime,
        MapKindId::EnergyError,
        MapKindId::Lyapunov,
        MapKindId::Ftle,
        MapKindId::Sali,
        MapKindId::Gali,
        MapKindId::Megno,
        MapKindId::FinalState,
        MapKindId::LagrangianDescriptor,
        MapKindId::Fli,
        MapKindId::Frequency,
    ];

    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The time a pixel's orbit spans, for a figure's subtitle: `t ≤ t_max`, or both ways
    /// for the Lagrangian descriptor, whose integral runs over [−τ, τ].
    pub fn span(self, t_max: f64) -> String {
        match self {
            MapKindId::LagrangianDescriptor => format!("|t| ≤ {t_max} s"),
            _ => format!("t ≤ {t_max} s"),
        }
    }

    /// The fixed-step scheme a pixel's orbit is integrated with, for the dry run's step count:
    /// Gauss–Legendre collocation for the frequency map (its NAFF needs a bounded energy
    /// error), RK4 for every other kind.
    pub fn stepper(self) -> &'static str {
        match self {
            MapKindId::Frequency => "Gauss–Legendre",
            _ => "RK4",
        }
    }

    /// The kind named `name` (a spec's `kind`, a file's `kind` attribute, a bench's `--kind`).
    pub fn parse(name: &str) -> Option<MapKindId> {
        MapKindId::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kinds' names for a message: "flip-time, energy-error, … or final-state".
    pub fn expected(kinds: &[MapKindId]) -> String {
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        crate::format::one_of(&names)
    }

    pub fn value(self) -> Option<&'static Var> {
        self.facts().value.as_ref()
    }

    pub fn aux(self) -> &'static [Var] {
        self.facts().aux
    }

    /// Aux f64 columns per pixel: one per variable, `n_links` per per-link variable.
    pub fn aux_columns(self, n_links: usize) -> usize {
        self.aux()
            .iter()
            .map(|v| if v.per_link { n_links } else { 1 })
            .sum()
    }

    pub fn is_flip(self) -> bool {
        self == MapKindId::FlipTime
    }

    /// The figure's label with `{t}` replaced by t_max.
    pub fn figure_label(label: &str, t_max: f64) -> String {
        label.replace("{t}", &t_max.to_string())
    }
}

impl MapKind {
    /// The kind without its parameters (the catalogue's key).
    pub fn id(&self) -> MapKindId {
        match self {
            MapKind::FlipTime { .. } => MapKindId::FlipTime,
            MapKind::EnergyError => MapKindId::EnergyError,
            MapKind::Lyapunov { .. } => MapKindId::Lyapunov,
            MapKind::Ftle => MapKindId::Ftle,
            MapKind::FinalState { .. } => MapKindId::FinalState,
            MapKind::Sali { .. } => MapKindId::Sali,
            MapKind::Gali { .. } => MapKindId::Gali,
            MapKind::Megno { .. } => MapKindId::Megno,
            MapKind::LagrangianDescriptor { .. } => MapKindId::LagrangianDescriptor,
            MapKind::Fli { .. } => MapKindId::Fli,
            MapKind::Frequency { .. } => MapKindId::Frequency,
        }
    }

    pub fn name(&self) -> &'static str {
        self.id().name()
    }

    /// The integrator of the map's orbits, as its file records it: RK4 at `dt`, except the
    /// frequency kind's symplectic Gauss–Legendre (see [`frequency`]).
    pub fn integrator(&self) -> &'static str {
        match self {
            MapKind::Frequency { .. } => "gauss-legendre order 6, canonical coordinates",
            _ => "rk4",
        }
    }

    /// The tangent vectors each pixel carries beside its state (of dimension `dim`).
    pub fn tangent_vectors(&self, dim: usize) -> usize {
        match *self {
            MapKind::Lyapunov { .. } | MapKind::Ftle => dim,
            MapKind::Sali { .. } => 2,
            MapKind::Megno { .. } | MapKind::Fli { .. } => 1,
            MapKind::Gali { k, .. } => k,
            MapKind::FlipTime { .. }
            | MapKind::EnergyError
            | MapKind::FinalState { .. }
            | MapKind::LagrangianDescriptor { .. }
            | MapKind::Frequency { .. } => 0,
        }
    }

    /// The kind's parameters as the map file's attributes, in the order they are written.
    pub fn attributes(&self) -> Vec<(&'static str, Attr)> {
        use Attr::{Float, Int, Text};
        match *self {
            MapKind::FlipTime { target } => vec![("flip_target", Text(target.label()))],
            MapKind::Lyapunov {
                renorm_steps,
                blocks,
                tolerance,
            } => {
                let mut a = vec![
                    ("renorm_steps", Int(i64::from(renorm_steps))),
                    ("blocks", Int(i64::from(blocks))),
                ];
                a.extend(tolerance.map(|t| ("tolerance", Float(t))));
                a
            }
            MapKind::FinalState { settle } => {
                let mut a = vec![
                    ("settle_angle_tol", Float(settle.angle_tol)),
                    ("settle_omega_tol", Float(settle.omega_tol)),
                    ("settle_dwell_steps", Int(i64::from(settle.dwell_steps))),
                ];
                if let Some(st) = settle.strobe {
                    a.extend([
                        ("strobe_period_steps", Int(i64::from(st.period_steps))),
                        ("strobe_max_period", Int(i64::from(st.max_period))),
                        ("strobe_repeats", Int(i64::from(st.repeats))),
                    ]);
                }
                a
            }
            MapKind::Sali { tau_steps }
            | MapKind::Megno { tau_steps }
            | MapKind::Fli { tau_steps } => {
                vec![("tau_steps", Int(i64::from(tau_steps)))]
            }
            MapKind::Gali { k, tau_steps } => vec![
                ("tau_steps", Int(i64::from(tau_steps))),
                ("gali_order", Int(k as i64)),
            ],
            MapKind::LagrangianDescriptor { p } => vec![("descriptor_p", Float(p))],
            MapKind::Frequency {
                sample_steps,
                samples,
                window_order,
            } => vec![
                ("sample_steps", Int(i64::from(sample_steps))),
                ("samples", Int(i64::from(samples))),
                ("window_order", Int(i64::from(window_order))),
            ],
            MapKind::EnergyError | MapKind::Ftle => vec![],
        }
    }

    /// Reduces a tile's pixels (`w`: their start states in pixel order) into `out`: the one
    /// place a kind is tied to its per-pixel work.
    pub(super) fn reduce(&self, w: &Work<'_>, out: &mut TileResult) {
        match *self {
            MapKind::FlipTime { target } => per_kind::flip_time(w, target, out),
            MapKind::EnergyError => per_kind::energy_error(w, out),
            MapKind::Lyapunov {
                renorm_steps,
                blocks,
                tolerance,
            } => per_kind::lyapunov(w, renorm_steps, blocks, tolerance, out),
            MapKind::Ftle => per_kind::ftle(w, out),
            MapKind::FinalState { settle } => per_kind::final_state(w, &settle, out),
            MapKind::Sali { .. } | MapKind::Gali { .. } => per_kind::indicator(w, out),
            MapKind::Megno { tau_steps } => per_kind::megno(w, tau_steps, out),
            MapKind::LagrangianDescriptor { p } => descriptor::descriptor(w, p, out),
            MapKind::Fli { tau_steps } => fli::fli(w, tau_steps, out),
            MapKind::Frequency {
                sample_steps,
                samples,
                window_order,
            } => frequency::frequency(w, sample_steps, samples, window_order, out),
        }
    }

    /// The map's default title for a chain called `model` (the CLI and the Python package both
    /// use it, so their files carry the same title).
    pub fn title(&self, model: &str) -> String {
        match self {
            MapKind::Gali { k, .. } => format!("GALI_{k}, {model} pendulum"),
            _ => format!("{}, {model} pendulum", self.id().facts().title),
        }
    }

    /// Extra f64 columns per pixel beside `value` (see [`super::TileResult::aux`]): the
    /// catalogue's aux variables ([`MapKindId::aux_columns`]).
    pub fn aux_columns(&self, n_links: usize) -> usize {
        self.id().aux_columns(n_links)
    }

    /// The `class` legend: (value, CF flag meaning, description).
    pub fn legend(&self, n_links: usize) -> Vec<(u8, String, String)> {
        let row = |v: u8, w: &str, d: &str| (v, w.to_string(), d.to_string());
        match (self.id().facts().legend, self) {
            (Legend::Basins, MapKind::FinalState { settle }) => basins::legend(n_links, settle),
            (Legend::Computed, _) => vec![
                row(
                    class::NEVER,
                    "computed",
                    "integrated over the whole horizon",
                ),
                row(class::DIVERGED, "diverged", "the state became non-finite"),
            ],
            (Legend::Regularity, _) => vec![
                row(
                    class::UNDECIDED,
                    "undecided",
                    "neither verdict by t_max (sticky or too short)",
                ),
                row(class::CHAOTIC, "chaotic", "SALI fell below 1e-8"),
                row(
                    class::REGULAR,
                    "regular",
                    "SALI stayed above 1e-4 over the second half",
                ),
                row(class::DIVERGED, "diverged", "the state became non-finite"),
            ],
            _ => class::MEANINGS
                .split(' ')
                .enumerate()
                .map(|(v, w)| row(v as u8, w, &w.replace('_', " ")))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_are_unique() {
        for k in MapKindId::ALL {
            assert_eq!(MapKindId::parse(k.name()), Some(k));
        }
        assert_eq!(MapKindId::parse("lyapunov-map"), None);
        let names: Vec<&str> = MapKindId::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(NAMES, names.join("|"));
        assert_eq!(
            MapKindId::expected(&MapKindId::ALL),
            "flip-time, energy-error, lyapunov, ftle, sali, gali, megno, final-state, lagrangian-descriptor, fli or frequency"
        );
    }

    #[test]
    fn variable_names_are_unique_within_a_file() {
        for k in MapKindId::ALL {
            let mut names: Vec<&str> = k.aux().iter().map(|v| v.name).collect();
            names.extend(k.value().map(|v| v.name));
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "{}", k.name());
        }
    }

    #[test]
    fn aux_columns_follow_the_variables() {
        assert_eq!(MapKindId::FinalState.aux_columns(3), 9);
        assert_eq!(MapKindId::Lyapunov.aux_columns(2), 3);
        assert_eq!(MapKindId::FlipTime.aux_columns(2), 1);
        assert_eq!(MapKindId::Ftle.aux_columns(2), 0);
        assert_eq!(MapKindId::Megno.aux_columns(4), 1);
    }
}
