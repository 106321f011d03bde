//! The frequency analysis of one sampled orbit: each link's lines, the fundamental frequencies,
//! the combination explaining each line, and the diffusion between the two halves of the run.
//!
//! **Error bars** ([`ERROR_RULE`]). NAFF's frequency error on a quasi-periodic signal follows
//! the window law |δν| ≈ C·T^−(2p+2) (Hann order p; `naff`'s test `hann_error_law`), so a half
//! run (T/2) errs 2^(2p+2) times more than the whole run. The whole run's value is then the
//! reference for each half: |ν − ν^(h)| is the half's error (to a fraction 2^−(2p+2)), and the
//! whole run's error is the larger half's scaled down by the law, 2^−(2p+2)·max_h |ν − ν^(h)|.
//! The diffusion ‖ν¹ − ν²‖ carries the halves' errors, propagated linearly. The estimate is
//! deterministic (NAFF's errors are not random) and bounded below by a round-off floor
//! [`ROUND_OFF`]·|ν|; it contains nothing of the integrator's error. On a chaotic orbit the
//! halves differ by the drift itself, which the rule then reports as the error.

use super::{explain, fundamentals, link_signal, Combination, Line, Naff, NaffError};
use super::{NaffOptions, SignalKind};
use crate::observe::{Control, Observer, Silent};
use ndarray::ArrayView2;
use num_complex::Complex64;
use serde::Serialize;

/// The relative round-off floor of a NAFF frequency: the exponentials' phases carry the
/// rounding of their argument ω·s (≈ ε relative, over n samples), which the window law does not
/// scale away; measured in tests/frequency_errors.rs.
pub const ROUND_OFF: f64 = 1e-14;

/// How the error bars of the frequencies and the diffusion are obtained, as the output states.
pub const ERROR_RULE: &str = "window law: NAFF's frequency error falls like T^-(2p+2) (Hann order p), so each half run (T/2) errs 2^(2p+2) times more than the whole run; a half's error is |omega - omega_half| (the whole run as reference), the whole run's error is 2^-(2p+2) max over the halves of |omega - omega_half|, at least 1e-14 |omega| (round-off); the diffusion |omega_first - omega_second| carries the halves' errors propagated linearly, its index log10((diffusion + error) / diffusion) (= error / (diffusion ln 10) when small; where the error exceeds the diffusion the index is only an upper bound). A deterministic estimate of NAFF's error (not a statistical interval); the integrator's error is not in it; on a chaotic orbit it is the drift between the halves";

/// Options of [`FrequencyWorkspace`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrequencyOptions {
    pub naff: NaffOptions,
    /// ω_ref (rad/s) of the libration signal θ − i θ̇/ω_ref, > 0.
    pub omega_ref: f64,
    /// Fundamental frequencies sought (the chain's degrees of freedom).
    pub fundamentals: usize,
    /// Largest Σ|k_i| of the integer combinations tried.
    pub order: u32,
    /// A line is explained by a combination when their difference is at most this (rad/s):
    /// the one threshold both for taking a line as a new fundamental (it is not explained by
    /// the fundamentals found before it) and for labelling a line with a combination (it is);
    /// a line beyond it is unexplained and carries no label.
    pub tolerance: f64,
}

/// One link's lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkLines {
    pub signal: SignalKind,
    pub lines: Vec<LineOut>,
}

/// A line with the combination of the fundamentals that explains it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineOut {
    pub frequency: f64,
    pub amplitude: f64,
    pub phase: f64,
    /// The combination (Σ|k_i| ≤ the order) within [`FrequencyOptions::tolerance`] of the
    /// line; `None`: no combination is, the line is unexplained (not the nearest one, however
    /// far: that would be a label that is not so).
    pub combination: Option<Combination>,
}

/// The frequency analysis of one orbit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrbitFrequencies {
    pub links: Vec<LinkLines>,
    /// The fundamental frequencies of the whole run, ascending (rad/s).
    pub fundamentals: Vec<f64>,
    /// Those of the first and the second half of the run, ascending (rad/s).
    pub first_half: Vec<f64>,
    pub second_half: Vec<f64>,
    /// ‖ν(first half) − ν(second half)‖ over the fundamentals both halves have (rad/s); NaN
    /// when either half has none.
    pub diffusion: f64,
    /// log₁₀ of `diffusion` (rad/s): Laskar's diffusion index (−∞ for identical halves).
    pub diffusion_index: f64,
    /// The window-law error of each whole-run fundamental (rad/s; [`ERROR_RULE`]); NaN where a
    /// half lacks it or the whole run was not analysed.
    pub fundamental_error: Vec<f64>,
    /// |ν¹ᵢ − ν²ᵢ| per fundamental both halves have (rad/s): the two-half difference.
    pub half_difference: Vec<f64>,
    /// The error δD of `diffusion` D (rad/s), from the halves' errors |ν − ν^(h)| propagated
    /// linearly, and of `diffusion_index`, log₁₀((D + δD)/D); NaN without the whole run.
    pub diffusion_error: f64,
    pub diffusion_index_error: f64,
    /// The ladder: the diffusion index of the runs of length T/4, T/2 and T from the same start
    /// (the first eighths', the first quarters' and the halves' fundamentals compared); NaN
    /// where a rung is too short for NAFF or was not analysed.
    pub ladder: [f64; 3],
    /// The index's slope over the ladder, (I(T) − I(T/4)) / log₁₀ 4: how it falls with T.
    pub ladder_slope: f64,
    /// The orbit's verdict from its ladder ([`Verdict::of`]).
    pub verdict: Verdict,
}

/// What the diffusion ladder says of an orbit (the rule: [`Verdict::of`], [`VERDICT_RULE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The index falls with the run length, or sits at NAFF's round-off floor: a torus.
    Regular,
    /// The index is large and does not fall with the run length: the frequencies drift.
    Chaotic,
    /// Neither (a resonance, a sticky orbit, a ladder too short or not finite).
    Undecided,
}

/// The verdict's rule, as the output states it (its code: [`Verdict::of`]).
pub const VERDICT_RULE: &str = "ladder: the diffusion index I at run lengths T/4, T/2 and T from the same start, slope s = (I(T) - I(T/4)) / log10(4) per decade of T. On a torus the halves differ only by NAFF's error, which falls with T (like T^-(2p+2) at best, Hann order p); a chaotic orbit's frequencies drift and do not. Undecided when T spans fewer than 300 periods of the slowest fundamental (2 pi / min omega) or a rung is not finite. Regular: s < -1 and I(T) <= -5 (falls, and two decades below the chaotic level), or I(T) <= log10(1e-12 max omega) (NAFF's round-off floor: nothing left to fall). Chaotic: I(T) >= -3 (the halves' frequencies differ by 1e-3 rad/s or more) and either s >= -1 (not falling) or I(T) >= -1 (they differ by 0.1 rad/s, a few per cent of omega: no torus's NAFF error at 300 periods comes near). Undecided: otherwise (resonances, sticky orbits). The levels -3 and -5 are measured on the double pendulum at E = -20 J (README); the integrator's error must stay below them (the frequency map's default step does)";

/// The index at or above which (with a ladder that does not fall) an orbit is chaotic: the
/// halves' fundamentals differ by 1e-3 rad/s or more ([`VERDICT_RULE`]). On the double
/// pendulum's E = −20 J shell at T = 1638 s, orbits with λ_max > 0.02 s⁻¹ read −3 to 0.4 and
/// most regular ones −5 to −9 (README, "Verdict").
pub const CHAOTIC_INDEX: f64 = -3.0;
/// At or below this index, an index that falls (slope below [`CHAOTIC_SLOPE`]) is a torus: two
/// decades below the chaotic level.
pub const REGULAR_INDEX: f64 = -5.0;
/// The slope per decade of T at or above which the index does not fall: D falls slower than
/// 1/T, which no window law does (T^−(2p+2)).
pub const CHAOTIC_SLOPE: f64 = -1.0;
/// At or above this index the halves' frequencies differ by 0.1 rad/s, a few per cent of ω:
/// chaotic whatever the ladder's trend (above −3).
pub const DRIFT_INDEX: f64 = -1.0;
/// The fewest periods of the slowest fundamental a run T must span for a verdict. Measured on
/// the E = −20 J shell against λ_max: at ≈ 80 periods (T = 205 s, the map's default) the
/// decided pixels agreed only 45 % of the time (regular orbits still read −3 to −5 there), at
/// ≈ 310 periods (819 s) 94 %, at ≈ 620 (1638 s) 98 % (README, "Verdict").
pub const MIN_PERIODS: f64 = 300.0;
/// An index this far above NAFF's relative round-off floor ([`ROUND_OFF`]·max ν, ×100) counts as
/// at the floor: a torus resolved to round-off.
pub const FLOOR_MARGIN: f64 = 100.0;

impl Verdict {
    /// Every verdict in its CF flag order (flag_values 0, 1, 2).
    pub const ALL: [Verdict; 3] = [Verdict::Regular, Verdict::Chaotic, Verdict::Undecided];
    /// The CF `flag_meanings` of the flag values 0, 1, 2.
    pub const FLAG_MEANINGS: &'static str = "regular chaotic undecided";

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Regular => "regular",
            Verdict::Chaotic => "chaotic",
            Verdict::Undecided => "undecided",
        }
    }

    /// The CF flag value (0 regular, 1 chaotic, 2 undecided).
    pub fn flag(self) -> u8 {
        self as u8
    }

    /// The verdict of a ladder [I(T/4), I(T/2), I(T)] whose largest fundamental is `nu_max`
    /// (rad/s) over a run T of `periods` periods of its slowest fundamental (T·min ω / 2π):
    /// the one rule, [`VERDICT_RULE`]. A fast fall alone (at the window law's slope)
    /// does not make a torus: a sticky chaotic orbit's index can fall over a factor 4 of T
    /// (on the E = −20 J shell one with λ_max = 0.064 s⁻¹ read −0.5, −2.3, −3.1), so a
    /// regular verdict also needs the level [`REGULAR_INDEX`].
    pub fn of(ladder: [f64; 3], nu_max: f64, periods: f64) -> Verdict {
        let [a, b, c] = ladder;
        // NaN periods (no fundamental): no verdict either.
        if periods.is_nan() || periods < MIN_PERIODS {
            return Verdict::Undecided;
        }
        if !(a.is_finite() && b.is_finite() && c.is_finite()) {
            // −∞ (identical halves) is a torus resolved beyond round-off.
            return if c == f64::NEG_INFINITY {
                Verdict::Regular
            } else {
                Verdict::Undecided
            };
        }
        let slope = ladder_slope(ladder);
        let floor = (FLOOR_MARGIN * ROUND_OFF * nu_max).log10();
        let falls = slope < CHAOTIC_SLOPE && c <= REGULAR_INDEX;
        if c <= floor || falls {
            Verdict::Regular
        } else if c >= CHAOTIC_INDEX && (slope >= CHAOTIC_SLOPE || c >= DRIFT_INDEX) {
            Verdict::Chaotic
        } else {
            Verdict::Undecided
        }
    }
}

/// (I(T) − I(T/4)) / log₁₀ 4 of a ladder [I(T/4), I(T/2), I(T)].
pub fn ladder_slope(ladder: [f64; 3]) -> f64 {
    (ladder[2] - ladder[0]) / 4f64.log10()
}

/// Reusable workspaces for the whole run and its halves (a map calls it per pixel).
#[derive(Debug)]
pub struct FrequencyWorkspace {
    opts: FrequencyOptions,
    whole: Naff,
    half: Naff,
    /// The ladder's rungs T/2 and T/4: NAFF over a quarter and an eighth of the samples
    /// (`None` where too few for NAFF: the ladder is then NaN).
    quarter: Option<Naff>,
    eighth: Option<Naff>,
    z: Vec<Complex64>,
    lines: Vec<Line>,
}

impl FrequencyWorkspace {
    /// Workspaces for runs of `samples` samples `dt` apart (each half has ⌊samples/2⌋).
    pub fn new(samples: usize, dt: f64, opts: FrequencyOptions) -> Result<Self, NaffError> {
        Ok(FrequencyWorkspace {
            opts,
            whole: Naff::new(samples, dt, opts.naff)?,
            half: Naff::new(samples / 2, dt, opts.naff)?,
            quarter: Naff::new(samples / 4, dt, opts.naff).ok(),
            eighth: Naff::new(samples / 8, dt, opts.naff).ok(),
            z: vec![Complex64::default(); samples],
            lines: Vec::new(),
        })
    }

    /// The fundamentals (ascending) of the half run starting at sample `start` (time t0);
    /// `None` when `obs` stopped it. `done` counts the signals analysed (progress).
    fn half_fundamentals(
        &mut self,
        theta: &ArrayView2<f64>,
        omega: &ArrayView2<f64>,
        start: usize,
        t0: f64,
        obs: &mut dyn Observer,
        done: &mut u64,
    ) -> Option<Vec<f64>> {
        let at = Segment { start, t0 };
        let (naff, z, lines) = (&mut self.half, &mut self.z, &mut self.lines);
        segment_fundamentals(naff, z, lines, &self.opts, theta, omega, at, obs, done)
    }

    /// The ladder's indices [I(T/4), I(T/2)] (the first eighths' and quarters' fundamentals
    /// compared); NaN where a rung has too few samples. `None` when `obs` stopped it.
    fn ladder_rungs(
        &mut self,
        theta: &ArrayView2<f64>,
        omega: &ArrayView2<f64>,
        t0: f64,
        obs: &mut dyn Observer,
        done: &mut u64,
    ) -> Option<[f64; 2]> {
        let mut rungs = [f64::NAN; 2];
        for (r, naff) in [&mut self.eighth, &mut self.quarter]
            .into_iter()
            .enumerate()
        {
            let Some(naff) = naff else { continue };
            let m = naff.samples();
            let t1 = t0 + m as f64 * naff.dt();
            let (z, lines, o) = (&mut self.z, &mut self.lines, &self.opts);
            let first = Segment { start: 0, t0 };
            let a = segment_fundamentals(naff, z, lines, o, theta, omega, first, obs, done)?;
            let second = Segment { start: m, t0: t1 };
            let b = segment_fundamentals(naff, z, lines, o, theta, omega, second, obs, done)?;
            rungs[r] = distance(&a, &b).log10();
        }
        Some(rungs)
    }

    /// Analyses θ and θ̇ (time × link) sampled at t0 + k·dt; the number of samples must be the
    /// workspace's. With `whole` false only the halves are analysed (`links` and
    /// `fundamentals` come back empty), as a diffusion map needs.
    pub fn analyse(
        &mut self,
        theta: ArrayView2<f64>,
        omega: ArrayView2<f64>,
        t0: f64,
        whole: bool,
    ) -> OrbitFrequencies {
        self.analyse_observed(theta, omega, t0, whole, &mut Silent)
            .expect("Silent never stops")
    }

    /// [`FrequencyWorkspace::analyse`] reporting to `obs`: progress in signals (one per link
    /// for the whole run, then one per link for each half), and its stop request polled inside
    /// every NAFF pass over the samples ([`Naff::analyse_until`]) and between the signals.
    /// `None` when it asked to stop: nothing of a half-done analysis is returned.
    pub fn analyse_observed(
        &mut self,
        theta: ArrayView2<f64>,
        omega: ArrayView2<f64>,
        t0: f64,
        whole: bool,
        obs: &mut dyn Observer,
    ) -> Option<OrbitFrequencies> {
        let links = theta.ncols() as u64;
        let rungs = 2 * u64::from(self.quarter.is_some()) + 2 * u64::from(self.eighth.is_some());
        let total = if whole { 3 * links } else { 2 * links } + rungs * links;
        obs.start(total, "signals");
        let mut done = 0u64;
        let n = self.whole.samples();
        assert_eq!(
            theta.nrows(),
            n,
            "sample count differs from the workspace's"
        );
        let whole_run = if whole {
            self.whole_lines(&theta, &omega, t0, obs, &mut done)
        } else {
            Some((Vec::new(), Vec::new()))
        };
        let r = whole_run.and_then(|(links, fundamentals)| {
            let dt = self.whole.dt();
            let h = self.half.samples();
            let first = self.half_fundamentals(&theta, &omega, 0, t0, obs, &mut done)?;
            let t1 = t0 + h as f64 * dt;
            let second = self.half_fundamentals(&theta, &omega, h, t1, obs, &mut done)?;
            let rungs = self.ladder_rungs(&theta, &omega, t0, obs, &mut done)?;
            let p = self.opts.naff.window_order;
            let t_run = n as f64 * dt;
            Some(OrbitFrequencies::of_halves(
                links,
                fundamentals,
                first,
                second,
                rungs,
                t_run,
                p,
            ))
        });
        obs.finish();
        r
    }

    /// Each link's lines over the whole run, explained by the fundamentals found among them
    /// (ascending); `None` when `obs` stopped it. `done` counts the signals analysed.
    fn whole_lines(
        &mut self,
        theta: &ArrayView2<f64>,
        omega: &ArrayView2<f64>,
        t0: f64,
        obs: &mut dyn Observer,
        done: &mut u64,
    ) -> Option<(Vec<LinkLines>, Vec<f64>)> {
        let cancel = obs.cancel();
        let mut all = Vec::new();
        let mut kinds = Vec::new();
        let mut counts = Vec::new();
        for j in 0..theta.ncols() {
            let kind = link_signal(
                theta.column(j).iter().copied(),
                omega.column(j).iter().copied(),
                self.opts.omega_ref,
                &mut self.z,
            );
            let found = self.whole.analyse_until(&self.z, t0, &cancel)?;
            all.extend_from_slice(found);
            kinds.push(kind);
            counts.push(found.len());
            *done += 1;
            if obs.advance(*done) == Control::Stop {
                return None;
            }
        }
        let o = &self.opts;
        let mut fund = fundamentals(&all, o.fundamentals, o.order, o.tolerance);
        fund.sort_by(f64::total_cmp);
        let mut links = Vec::new();
        let mut at = 0;
        for (kind, count) in kinds.into_iter().zip(counts) {
            let lines = all[at..at + count]
                .iter()
                .map(|l| LineOut {
                    frequency: l.frequency,
                    amplitude: l.amplitude,
                    phase: l.phase,
                    combination: explain(l.frequency, &fund, o.order, o.tolerance),
                })
                .collect();
            at += count;
            links.push(LinkLines {
                signal: kind,
                lines,
            });
        }
        Some((links, fund))
    }
}

impl OrbitFrequencies {
    /// The analysis from the whole run's lines and fundamentals and the halves' fundamentals:
    /// the diffusion is the distance between the halves' over the fundamentals both have.
    fn of_halves(
        links: Vec<LinkLines>,
        fundamentals: Vec<f64>,
        first: Vec<f64>,
        second: Vec<f64>,
        rungs: [f64; 2],
        t_run: f64,
        window_order: u32,
    ) -> OrbitFrequencies {
        let m = first.len().min(second.len());
        let diffusion = distance(&first, &second);
        let ladder = [rungs[0], rungs[1], diffusion.log10()];
        let nu_max = first.iter().chain(&second).fold(0.0f64, |a, &b| a.max(b));
        let nu_min = first.iter().chain(&second).fold(f64::NAN, |a, &b| b.min(a));
        let periods = t_run * nu_min / (2.0 * std::f64::consts::PI);
        let half_difference: Vec<f64> = first[..m]
            .iter()
            .zip(&second[..m])
            .map(|(a, b)| (a - b).abs())
            .collect();
        let e = errors(&fundamentals, &first, &second, window_order);
        OrbitFrequencies {
            links,
            fundamentals,
            first_half: first,
            second_half: second,
            diffusion,
            diffusion_index: diffusion.log10(),
            fundamental_error: e.whole,
            half_difference,
            diffusion_error: e.diffusion,
            // The index of (diffusion + its error) minus the index: δD/(D ln 10) to first order,
            // and finite (logarithmic) where the error exceeds the diffusion itself, where the
            // index is only an upper bound of the halves' true difference.
            diffusion_index_error: (e.diffusion / diffusion).ln_1p() / std::f64::consts::LN_10,
            ladder,
            ladder_slope: ladder_slope(ladder),
            verdict: Verdict::of(ladder, nu_max, periods),
        }
    }
}

/// Where a segment of the samples starts: its first sample and that sample's time (s).
#[derive(Clone, Copy)]
struct Segment {
    start: usize,
    t0: f64,
}

/// The fundamentals (ascending) of the `naff.samples()` samples from `at`: each link's lines
/// into `lines` (its signal in `z`), then [`fundamentals`] of them all; `None` when `obs`
/// stopped it. `done` counts the signals analysed (progress).
#[allow(clippy::too_many_arguments)]
fn segment_fundamentals(
    naff: &mut Naff,
    z: &mut [Complex64],
    lines: &mut Vec<Line>,
    o: &FrequencyOptions,
    theta: &ArrayView2<f64>,
    omega: &ArrayView2<f64>,
    at: Segment,
    obs: &mut dyn Observer,
    done: &mut u64,
) -> Option<Vec<f64>> {
    let n = naff.samples();
    let cancel = obs.cancel();
    lines.clear();
    for j in 0..theta.ncols() {
        let th = theta.column(j);
        let om = omega.column(j);
        let z = &mut z[..n];
        link_signal(
            th.iter().skip(at.start).take(n).copied(),
            om.iter().skip(at.start).take(n).copied(),
            o.omega_ref,
            z,
        );
        let found = naff.analyse_until(z, at.t0, &cancel)?;
        lines.extend_from_slice(found);
        *done += 1;
        if obs.advance(*done) == Control::Stop {
            return None;
        }
    }
    let mut f = fundamentals(lines, o.fundamentals, o.order, o.tolerance);
    f.sort_by(f64::total_cmp);
    Some(f)
}

/// ‖a − b‖ over the fundamentals both have (rad/s; ascending, matched by index); NaN when
/// either has none.
fn distance(a: &[f64], b: &[f64]) -> f64 {
    let m = a.len().min(b.len());
    if m == 0 {
        return f64::NAN;
    }
    a[..m]
        .iter()
        .zip(&b[..m])
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// The error bars of [`ERROR_RULE`].
struct Errors {
    whole: Vec<f64>,
    diffusion: f64,
}

/// The window-law errors of the whole run's fundamentals `nu` and the propagated error of the
/// diffusion between the halves `first` and `second` (all ascending, matched by index).
fn errors(nu: &[f64], first: &[f64], second: &[f64], window_order: u32) -> Errors {
    let law = 0.5f64.powi(2 * window_order as i32 + 2);
    let dev = |h: &[f64], i: usize| h.get(i).map_or(f64::NAN, |v| (nu[i] - v).abs());
    let whole = (0..nu.len())
        .map(|i| {
            let d = dev(first, i).max(dev(second, i));
            // NaN.max(x) is x: a half without the fundamental leaves no estimate.
            if first.len() <= i || second.len() <= i {
                f64::NAN
            } else {
                (law * d).max(ROUND_OFF * nu[i].abs())
            }
        })
        .collect();
    let m = first.len().min(second.len());
    let diffusion = if m == 0 || nu.len() < m {
        f64::NAN
    } else {
        let d: f64 = (0..m)
            .map(|i| (first[i] - second[i]).powi(2))
            .sum::<f64>()
            .sqrt();
        // ∂D/∂ν¹ᵢ = (ν¹ᵢ − ν²ᵢ)/D = −∂D/∂ν²ᵢ; each half's error at least the round-off floor.
        let floor = |i: usize| ROUND_OFF * nu[i].abs();
        let var: f64 = (0..m)
            .map(|i| {
                let g = if d > 0.0 {
                    (first[i] - second[i]) / d
                } else {
                    1.0
                };
                let (a, b) = (dev(first, i).max(floor(i)), dev(second, i).max(floor(i)));
                g * g * (a * a + b * b)
            })
            .sum();
        var.sqrt()
    };
    Errors { whole, diffusion }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule's cases, each on one side of its thresholds: a ladder that falls to −5 or below
    /// is regular, one at NAFF's round-off floor is regular however flat, a high flat one is
    /// chaotic, and a fall that stays above −5, a low flat ladder, or a NaN rung is undecided.
    #[test]
    fn verdict_rule_cases() {
        let nu = 6.0;
        let of = |l: [f64; 3]| Verdict::of(l, nu, MIN_PERIODS);
        assert_eq!(of([-4.0, -4.6, -5.2]), Verdict::Regular);
        assert_eq!(of([-13.0, -13.1, -13.0]), Verdict::Regular);
        assert_eq!(of([-3.0, -3.0, f64::NEG_INFINITY]), Verdict::Regular);
        assert_eq!(of([-1.0, 0.2, -0.5]), Verdict::Chaotic);
        assert_eq!(of([-3.5, -3.2, -3.0]), Verdict::Chaotic);
        // Falling, but the halves differ by 0.1 rad/s or more: chaotic.
        assert_eq!(of([0.8, 0.3, -0.5]), Verdict::Chaotic);
        // Too short a run for any verdict.
        assert_eq!(
            Verdict::of([-4.0, -4.6, -5.2], nu, MIN_PERIODS - 1.0),
            Verdict::Undecided
        );
        assert_eq!(
            Verdict::of([-1.0, 0.2, -0.5], nu, f64::NAN),
            Verdict::Undecided
        );
        // A fast fall that ends above −5 (a sticky chaotic orbit can do that).
        assert_eq!(of([-0.5, -2.3, -3.1]), Verdict::Undecided);
        // Low but flat: neither falling nor at the chaotic level.
        assert_eq!(of([-6.0, -6.1, -6.2]), Verdict::Undecided);
        assert_eq!(of([f64::NAN, -6.0, -9.0]), Verdict::Undecided);
        // The slope is per decade of T: a fall of log10(4) over the ladder is −1.
        assert!((ladder_slope([0.0, 0.0, -4f64.log10()]) + 1.0).abs() < 1e-15);
        assert_eq!(
            Verdict::FLAG_MEANINGS.split(' ').count(),
            Verdict::ALL.len()
        );
        for (i, v) in Verdict::ALL.iter().enumerate() {
            assert_eq!(v.flag() as usize, i);
            assert_eq!(Verdict::FLAG_MEANINGS.split(' ').nth(i), Some(v.name()));
        }
    }
}
