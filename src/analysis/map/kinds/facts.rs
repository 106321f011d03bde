//! The catalogue's table: every map kind's [`Facts`] (names, variables, fields, lanes, labels,
//! figure), one static each, and [`MapKindId::facts`], the one lookup. The types they are written
//! in, and what is derived from them, live in the parent module.

use super::{var, Facts, Figure, Lanes, Legend, MapKindId, Scale, Var};

const TAU: &str = "map.tau";
/// The lanes of the tangent and indicator kinds: two-link chains, damped and driven too.
const TWO_LINK: Lanes = Lanes {
    two_link: Some(false),
    three_link: false,
    auto: true,
};
/// The lanes of the kinds that need a conservative two-link chain (energy error, frequency).
const CONSERVATIVE_TWO_LINK: Lanes = Lanes {
    two_link: Some(true),
    three_link: false,
    auto: true,
};
/// The one label variable of most kinds.
const CLASS: &[&str] = &["class"];

impl MapKindId {
    /// The facts of this kind.
    pub fn facts(self) -> &'static Facts {
        match self {
            MapKindId::FlipTime => &FLIP_TIME,
            MapKindId::EnergyError => &ENERGY_ERROR,
            MapKindId::Lyapunov => &LYAPUNOV,
            MapKindId::Ftle => &FTLE,
            MapKindId::FinalState => &FINAL_STATE,
            MapKindId::Sali => &SALI,
            MapKindId::Gali => &GALI,
            MapKindId::Megno => &MEGNO,
            MapKindId::LagrangianDescriptor => &LAGRANGIAN_DESCRIPTOR,
            MapKindId::Fli => &FLI,
            MapKindId::Frequency => &FREQUENCY,
        }
    }
}

static FLIP_TIME: Facts = Facts {
    name: "flip-time",
    title: "First-flip time",
    value: None,
    aux: &[var(
        "flip_time_located",
        "s",
        "time the flipping angle passes ±π, located inside the flip step by the cubic Hermite \
                     interpolant of the RK4 step (NaN = never flipped or not computed)",
    )],
    fields: &["map.flip", "map.energy_skip"],
    legend: Legend::Flip,
    lanes: Lanes {
        two_link: Some(true),
        three_link: true,
        auto: true,
    },
    labels: &["flip_step", "flip_link", "class"],
    figure: Figure::Flip,
};

static ENERGY_ERROR: Facts = Facts {
    name: "energy-error",
    title: "RK4 energy error",
    value: Some(var(
        "energy_error",
        "1",
        "relative energy error |E(t_max) − E(0) − W| / max(|E(0)|, g Σ b) of RK4",
    )),
    aux: &[],
    fields: &[],
    legend: Legend::Computed,
    lanes: CONSERVATIVE_TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::LogPositive {
        label: "relative energy error at t = {t} s",
    }),
};

static LYAPUNOV: Facts = Facts {
    name: "lyapunov",
    title: "Finite-time Lyapunov exponent",
    value: Some(var(
        "lyapunov",
        "s-1",
        "largest finite-time Lyapunov exponent over [0, t_max]",
    )),
    aux: &[
        var(
            "lyapunov_standard_error",
            "s-1",
            "batch-means standard error of lyapunov: s/√B of the B block means of the \
             log-growth (B = the blocks attribute, fewer where the pixel stopped early)",
        ),
        var(
            "time_used",
            "s",
            "time the pixel was integrated: t_max, or the block end where its standard \
             error fell below the tolerance attribute",
        ),
        var(
            "converged",
            "1",
            "lyapunov_standard_error < tolerance (1) or not (0); NaN without a tolerance \
             or where diverged",
        ),
    ],
    fields: &[TAU, "map.blocks", "map.tolerance"],
    legend: Legend::Computed,
    lanes: TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::Linear {
        label: "Lyapunov exponent over {t} s / (1/s)",
    }),
};

static FTLE: Facts = Facts {
    name: "ftle",
    title: "Finite-time Lyapunov exponent (flow map)",
    value: Some(var(
        "ftle",
        "s-1",
        "finite-time Lyapunov exponent ln σ_max(Φ(t_max)) / t_max of the flow map",
    )),
    aux: &[],
    fields: &[],
    legend: Legend::Computed,
    lanes: TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::Linear {
        label: "FTLE over {t} s / (1/s)",
    }),
};

static FINAL_STATE: Facts = Facts {
    name: "final-state",
    title: "Final states",
    value: Some(var(
        "settle_time",
        "s",
        "time at which the state settled into its final class (NaN = unsettled or diverged)",
    )),
    aux: &[
        Var {
            per_link: true,
            ..var(
                "final_angle",
                "rad",
                "angle mod 2π in [−π, π] when the pixel was classified (or at t_max)",
            )
        },
        Var {
            per_link: true,
            ..var(
                "turns",
                "1",
                "net turns round((θ − θ*)/2π) about the final equilibrium (NaN if none)",
            )
        },
        Var {
            per_link: true,
            ..var(
                "rotation",
                "1",
                "rotation number: turns per drive period on the periodic orbit (NaN if none)",
            )
        },
    ],
    fields: &[
        "map.angle_tol",
        "map.omega_tol",
        "map.dwell",
        "map.max_period",
        "map.repeats",
    ],
    legend: Legend::Basins,
    lanes: Lanes {
        two_link: Some(false),
        three_link: true,
        auto: true,
    },
    labels: &["class", "attractor"],
    figure: Figure::Basins,
};

static SALI: Facts = Facts {
    name: "sali",
    title: "SALI",
    value: Some(var(
        "sali",
        "1",
        "SALI at the horizon t_max, or where it fell below 1e-14 (the run stops there)",
    )),
    aux: CHAOS_TIME,
    fields: &[TAU],
    legend: Legend::Regularity,
    lanes: TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::LogFromRoundOff {
        label: "SALI at t = {t} s (or where SALI < 1e-14)",
    }),
};

static GALI: Facts = Facts {
    name: "gali",
    title: "GALI",
    value: Some(var(
        "gali",
        "1",
        "GALI_k at the horizon t_max, or where SALI fell below 1e-14 (the run stops there)",
    )),
    aux: CHAOS_TIME,
    fields: &[TAU, "map.gali_order"],
    legend: Legend::Regularity,
    lanes: TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::LogFromRoundOff {
        label: "GALI at t = {t} s (or where SALI < 1e-14)",
    }),
};

static MEGNO: Facts = Facts {
    name: "megno",
    title: "MEGNO",
    value: Some(var(
        "megno",
        "1",
        "MEGNO ⟨Y⟩(t_max) from one tangent vector (2 on quasi-periodic orbits, growing on chaotic ones)",
    )),
    aux: &[var(
        "megno_slope",
        "s-1",
        "least-squares slope of ⟨Y⟩(t) over t ≥ t_max/2 (→ λ_max/2 on chaotic orbits, 0 on regular ones)",
    )],
    fields: &[TAU],
    legend: Legend::Computed,
    lanes: TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::Megno {
        label: "MEGNO ⟨Y⟩ at t = {t} s",
    }),
};

static LAGRANGIAN_DESCRIPTOR: Facts = Facts {
    name: "lagrangian-descriptor",
    title: "Lagrangian descriptor",
    value: Some(var(
        "descriptor",
        "1",
        "Lagrangian descriptor M = ∫ Σ_i |dx_i/dt|^p dt over [−t_max, t_max] (θ̇ in rad/s, \
         ω̇ in rad/s²; p = the descriptor_p attribute): its ridges and valleys lie on \
         the stable and unstable manifolds",
    )),
    aux: &[
        var(
            "descriptor_forward",
            "1",
            "forward half ∫_0^t_max Σ_i |dx_i/dt|^p dt (singular across stable manifolds)",
        ),
        var(
            "descriptor_backward",
            "1",
            "backward half ∫_−t_max^0 Σ_i |dx_i/dt|^p dt (singular across unstable manifolds)",
        ),
    ],
    fields: &["map.descriptor_p"],
    legend: Legend::Computed,
    // Two and three links, damping and drive included, only under `--kernel lanes`.
    lanes: Lanes {
        two_link: Some(false),
        three_link: true,
        auto: false,
    },
    labels: CLASS,
    figure: Figure::Value(Scale::Linear {
        label: "Lagrangian descriptor over [−{t}, {t}] s",
    }),
};

static FLI: Facts = Facts {
    name: "fli",
    title: "Fast Lyapunov indicator",
    value: Some(var(
        "fli",
        "1",
        "fast Lyapunov indicator FLI(t_max) = sup ln‖w(s)‖ over the renormalisation times s ≤ t_max, \
         w(0) = (1, …, 1)/√(2N) (≈ λ_max t on chaotic orbits, ≈ ln t on regular ones)",
    )),
    aux: &[var(
        "ofli",
        "1",
        "orthogonal FLI: sup ln‖w⊥‖, w⊥ the part of w orthogonal to the flow",
    )],
    fields: &[TAU],
    legend: Legend::Computed,
    // The tangent lanes (two links, damping and drive included), only under `--kernel lanes`.
    lanes: Lanes {
        auto: false,
        ..TWO_LINK
    },
    labels: CLASS,
    figure: Figure::Value(Scale::Linear {
        label: "FLI = sup ln‖w‖ at t = {t} s",
    }),
};

static FREQUENCY: Facts = Facts {
    name: "frequency",
    title: "Frequency map (diffusion index)",
    value: Some(var(
        "diffusion_index",
        "1",
        "diffusion index log10 of |omega(first half) - omega(second half)| in rad/s, the \
         fundamental angular frequencies of each half of the run by NAFF (about -8 or below on a torus, above -4 in \
         a chaotic sea)",
    )),
    aux: &[
        Var {
            name: "omega_first",
            per_link: true,
            units: "rad s-1",
            long_name: "fundamental angular frequencies ω of the first half, ascending (NaN: fewer found)",
        },
        Var {
            name: "omega_second",
            per_link: true,
            units: "rad s-1",
            long_name: "fundamental angular frequencies ω of the second half, ascending (NaN: fewer found)",
        },
        var(
            "diffusion_index_error",
            "1",
            "error of the diffusion index, log10((D + dD) / D): dD from each half's window-law \
             error |omega - omega_half| (the whole run's NAFF as reference) propagated linearly to \
             D = |omega_first - omega_second| (angular frequencies, rad/s) (README, Error bars)",
        ),
        var(
            "diffusion_index_quarter",
            "1",
            "diffusion index of the run of length t_max/4 from the same start (the ladder's \
             first rung; NaN: too few samples)",
        ),
        var(
            "diffusion_index_half",
            "1",
            "diffusion index of the run of length t_max/2 from the same start (the ladder's \
             second rung; NaN: too few samples)",
        ),
        var(
            "verdict",
            "1",
            "the diffusion ladder's verdict (flag_meanings; rule in the verdict_rule attribute, \
             README Verdict): 0 regular, 1 chaotic, 2 undecided; NaN where not computed",
        ),
    ],
    fields: &["map.samples", "map.window_order"],
    legend: Legend::Computed,
    // Conservative two-link chains ([`super::lanes::gauss`]).
    lanes: CONSERVATIVE_TWO_LINK,
    labels: CLASS,
    figure: Figure::Value(Scale::Linear {
        label: "diffusion index log₁₀|Δω| over t ≤ {t} s",
    }),
};

const CHAOS_TIME: &[Var] = &[var(
    "chaos_time",
    "s",
    "first time SALI < 1e-8 (NaN = never)",
)];
