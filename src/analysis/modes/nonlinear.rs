//! The nonlinear verification of the modes: the full chain released from rest in a mode, its
//! frequency measured and set beside the linear one (and, for a single link, the exact one).
//!
//! **Which route.** Near the separatrix a trajectory error grows like e^{√(g/l)·t} while the
//! orbit lingers by the unstable top, and a full swing lingers there twice (once at each turning
//! point), so timing many swings amplifies the integrator's error once per half period. A single
//! link's motion is exactly periodic and time-reversible about the turning point, so a quarter
//! period — from release at rest to the first zero of the angle, where the angle crosses zero at
//! its fastest and the crossing is best conditioned — gives the period with one pass by the top
//! (the half period to the opposite turning point would time a zero of the velocity, flat there:
//! worse conditioned). With DOP853 at the default 1e-12 the period is within 1.9e-12 of the
//! elliptic reference at 179°, 1.7e-11 at 179.9° and 1.6e-10 at 179.99° (the former mean of
//! zero crossings: 1.3e-9 at 179°, 6.6e-8 at 179.9°); the error scales with the tolerance
//! (5e-13 at 179.99° with 1e-14), so it is the integrator's, not the route's.
//! A multi-link mode at finite amplitude is not periodic, so there the mean spacing of upward
//! crossings of the modal coordinate over many linear periods stays the measure.

use super::EquilibriumModes;
use crate::integrate::{locate, Direction, Dop853, Flow, Solver};
use crate::model::Chain;
use crate::observe::Cancel;
use nalgebra::DVector;
use serde::Serialize;

/// Options of [`verify_nonlinear`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NonlinearOptions {
    /// Amplitude (rad) of the largest link angle for the small-amplitude check (default 1e-3).
    pub amplitude: f64,
    /// Linear periods to integrate (default 20).
    pub periods: f64,
    /// Larger amplitudes (rad) at which the lowest mode's frequency is measured: the nonlinear
    /// shift (default 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0).
    pub amplitudes: Vec<f64>,
    /// DOP853 tolerance (default 1e-12).
    pub tol: f64,
}

impl NonlinearOptions {
    /// The default amplitudes for a chain of `links` links: [`NonlinearOptions::default`]'s,
    /// and for a single link also 179°, 179.5°, 179.9° and 179.99° (the approach to the
    /// separatrix, where the quarter-period route keeps the elliptic reference to ~1e-10).
    pub fn default_amplitudes(links: usize) -> Vec<f64> {
        let mut a = NonlinearOptions::default().amplitudes;
        if links == 1 {
            let deg = std::f64::consts::PI / 180.0;
            a.extend([179.0 * deg, 179.5 * deg, 179.9 * deg, 179.99 * deg]);
        }
        a
    }
}

impl Default for NonlinearOptions {
    fn default() -> Self {
        NonlinearOptions {
            amplitude: 1e-3,
            periods: 20.0,
            amplitudes: vec![0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0],
            tol: 1e-12,
        }
    }
}

/// One nonlinear frequency measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NonlinearCheck {
    /// Mode index (0 = lowest).
    pub mode: usize,
    /// Largest link angle at release (rad).
    pub amplitude: f64,
    /// Linear frequency ω_k (rad/s).
    pub linear: f64,
    /// Mean frequency 2π/T̄ from the zero crossings of the modal coordinate (rad/s).
    pub measured: f64,
    /// |measured − linear| / linear.
    pub relative_difference: f64,
    /// For a single link: the exact frequency 2π / (4 √(l_eff/g) K(sin(θ₀/2))) (else NaN).
    pub exact: f64,
    /// Upward zero crossings used (1 on the quarter-period route).
    pub crossings: usize,
    /// How the period was measured.
    pub route: PeriodRoute,
    /// The measured period 2π / `measured` (s).
    pub period: f64,
    /// For a single link: the reference period 4 √(l_eff/g) K(sin(θ₀/2)) (s), else NaN.
    pub reference_period: f64,
    /// The spread of the intervals between upward crossings: their standard deviation over
    /// their mean (0 on the quarter-period route, whose single link is exactly periodic).
    pub interval_spread: f64,
    /// Whether the motion is periodic enough for one frequency to describe it: the interval
    /// spread is below [`PERIODIC_SPREAD`]. Where it is not (a mode at an amplitude where it
    /// trades energy with the others, or chaos), `measured` is only a mean crossing rate.
    pub periodic: bool,
}

/// The largest spread of the crossing intervals (standard deviation over mean) at which a
/// released mode still counts as periodic. A mode exchanging energy regularly with another
/// stays well below it (the double pendulum's lowest mode: 2.3e-3 at 1 rad, 1.0e-2 at
/// 1.5 rad); chaotic motion is far above (a 5-rod chain at 2 rad: 1.6). Fewer than three
/// crossings give no spread (NaN), and no verdict of periodicity.
pub const PERIODIC_SPREAD: f64 = 0.05;

/// How [`verify_nonlinear`] measures a period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodRoute {
    /// A single link: the time from release at rest (a turning point) to the first zero of the
    /// angle (the bottom), located on the dense output, times 4. The orbit passes the slow,
    /// unstable neighbourhood of the top once, so the error is amplified once, not on every
    /// swing (see the module documentation).
    QuarterPeriod,
    /// A chain of several links: the mean spacing of the modal coordinate's upward zero
    /// crossings over `periods` linear periods. A multi-link mode released at finite amplitude is
    /// not exactly periodic (it exchanges energy with the other modes), so there is no single
    /// quarter period to time; the mean over many swings is the frequency the linear mode
    /// predicts at small amplitude.
    MeanOfCrossings,
}

impl PeriodRoute {
    /// The name printed and written (`quarter_period`, `mean_of_crossings`).
    pub fn name(self) -> &'static str {
        match self {
            PeriodRoute::QuarterPeriod => "quarter_period",
            PeriodRoute::MeanOfCrossings => "mean_of_crossings",
        }
    }
}

/// Complete elliptic integral of the first kind K(k), modulus k (not the parameter m = k²), by
/// the arithmetic–geometric mean: K = π / (2 AGM(1, √(1 − k²))).
///
/// Near k = 1 the complement √(1 − k²) loses digits to cancellation; when it is known directly
/// (a pendulum: k′ = cos(θ₀/2)) use [`elliptic_k_complement`].
pub fn elliptic_k(k: f64) -> f64 {
    elliptic_k_complement((1.0 - k * k).sqrt())
}

/// K(k) from the complementary modulus k′ = √(1 − k²): π / (2 AGM(1, k′)). Full relative
/// precision for every k′ in (0, 1], so the pendulum period 4 √(l/g) K stays exact to a few
/// ulps up to the separatrix (k′ = cos(θ₀/2) = 8.7e-5 at θ₀ = 179.99°).
pub fn elliptic_k_complement(kp: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, kp);
    for _ in 0..60 {
        let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
        a = an;
        b = bn;
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Starts the full nonlinear chain from rest in each mode of a stable equilibrium (largest link
/// displacement `amplitude`) and measures its frequency from the zero crossings of the modal
/// coordinate q_k = v_kᵀ M (θ − θ*), located on DOP853's dense output: for a single link four
/// times the first crossing ([`PeriodRoute::QuarterPeriod`]), for several links the mean spacing
/// of the upward crossings ([`PeriodRoute::MeanOfCrossings`]). Then the same
/// for the lowest mode at `opts.amplitudes` (the amplitude dependence). Modes of an unstable
/// equilibrium are skipped (their motion leaves the neighbourhood).
pub fn verify_nonlinear(
    chain: &Chain,
    em: &EquilibriumModes,
    opts: &NonlinearOptions,
) -> Vec<NonlinearCheck> {
    verify_nonlinear_cancellable(chain, em, opts, &Cancel::never()).0
}

/// [`verify_nonlinear`], stopping when `cancel` is set (polled every
/// [`crate::observe::POLL_STEPS`] steps):
/// returns the checks finished so far and whether all were run.
pub fn verify_nonlinear_cancellable(
    chain: &Chain,
    em: &EquilibriumModes,
    opts: &NonlinearOptions,
    cancel: &Cancel,
) -> (Vec<NonlinearCheck>, bool) {
    if em.unstable > 0 {
        return (vec![], true);
    }
    let n = chain.links();
    let mut out = vec![];
    let omegas = em.frequencies();
    let runs = (0..n)
        .map(|k| (k, opts.amplitude))
        .chain(opts.amplitudes.iter().map(|&a| (0, a)));
    for (k, a) in runs {
        match measure_mode(chain, em, k, a, opts, omegas[k], cancel) {
            Measured::Check(c) => out.push(c),
            Measured::Nothing => {}
            Measured::Interrupted => return (out, false),
        }
    }
    (out, true)
}

/// What one nonlinear measurement gave.
enum Measured {
    Check(NonlinearCheck),
    /// Too few crossings, or the integration failed.
    Nothing,
    Interrupted,
}

fn measure_mode(
    chain: &Chain,
    em: &EquilibriumModes,
    k: usize,
    amplitude: f64,
    opts: &NonlinearOptions,
    omega: f64,
    cancel: &Cancel,
) -> Measured {
    let n = chain.links();
    let theta_star = em.equilibrium.theta();
    let v: DVector<f64> = em.shapes.column(k).into_owned();
    let scale = amplitude / v.amax();
    let mut x0 = vec![0.0; 2 * n];
    for j in 0..n {
        x0[j] = theta_star[j] + scale * v[j];
    }
    // Row vector w = vᵀ M*, so q = w · (θ − θ*).
    let w: Vec<f64> = (em.mass.transpose() * &v).iter().copied().collect();
    let q = |y: &[f64]| -> f64 { (0..n).map(|j| w[j] * (y[j] - theta_star[j])).sum() };
    let two_pi = 2.0 * std::f64::consts::PI;
    let reference_period = if n == 1 {
        let l = &chain.params().links[0];
        let l_eff = (l.inertia + l.mass * l.com * l.com) / (l.mass * l.com);
        4.0 * (l_eff / chain.gravity()).sqrt() * elliptic_k_complement((amplitude / 2.0).cos())
    } else {
        f64::NAN
    };
    let route = if n == 1 {
        PeriodRoute::QuarterPeriod
    } else {
        PeriodRoute::MeanOfCrossings
    };
    let mut flow = Flow::new(chain);
    let mut solver = Dop853::with_tol(opts.tol).solver(2 * n);
    let mut y = x0;
    let mut buf = vec![0.0; 2 * n];
    let t_end = match route {
        // The quarter period is at most the full reference period; never cut it short.
        PeriodRoute::QuarterPeriod => (opts.periods * two_pi / omega).max(reference_period),
        PeriodRoute::MeanOfCrossings => opts.periods * two_pi / omega,
    };
    let direction = match route {
        // Released on one side at rest, the first zero is the bottom, whichever the side.
        PeriodRoute::QuarterPeriod => Direction::Either,
        PeriodRoute::MeanOfCrossings => Direction::Rising,
    };
    let (mut t, mut g0) = (0.0, q(&y));
    let mut ups = vec![];
    let mut steps = 0u64;
    while t < t_end {
        steps += 1;
        if cancel.poll(steps) {
            return Measured::Interrupted;
        }
        let Ok(t1) = solver.step(&mut flow, t, &mut y, t_end) else {
            return Measured::Nothing;
        };
        let g1 = q(&y);
        if direction.crosses(g0, g1) {
            let Some(c) = locate(
                &mut solver,
                &mut flow,
                t,
                g0,
                t1,
                g1,
                |_, s| q(s),
                &mut buf,
                1e-13,
            ) else {
                return Measured::Nothing;
            };
            ups.push(c.t);
            if route == PeriodRoute::QuarterPeriod {
                break;
            }
        }
        t = t1;
        g0 = g1;
    }
    let period = match route {
        PeriodRoute::QuarterPeriod if !ups.is_empty() => 4.0 * ups[0],
        PeriodRoute::MeanOfCrossings if ups.len() >= 2 => {
            (ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64
        }
        _ => return Measured::Nothing,
    };
    let interval_spread = if ups.len() >= 3 {
        let d: Vec<f64> = ups.windows(2).map(|w| w[1] - w[0]).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (d.len() - 1) as f64;
        var.sqrt() / mean
    } else if route == PeriodRoute::QuarterPeriod {
        0.0
    } else {
        // Two crossings give one interval: nothing to compare it with.
        f64::NAN
    };
    let measured = two_pi / period;
    Measured::Check(NonlinearCheck {
        mode: k,
        amplitude,
        linear: omega,
        measured,
        relative_difference: ((measured - omega) / omega).abs(),
        exact: two_pi / reference_period,
        crossings: ups.len(),
        route,
        period,
        reference_period,
        interval_spread,
        periodic: interval_spread < PERIODIC_SPREAD,
    })
}
