//! Frequency analysis (Laskar's NAFF): the lines of each link's complex signal, the orbit's
//! fundamental frequencies and the integer combinations of them that explain the other lines.
//!
//! **The signal.** For link j, z_j(t) = θ_j − i θ̇_j / ω_ref. For a harmonic oscillation
//! θ = A cos(ωt + φ) it is A[(1 + r)/2 · e^{i(ωt+φ)} + (1 − r)/2 · e^{−i(ωt+φ)}] with r = ω/ω_ref:
//! a single positive-frequency line when ω = ω_ref, and otherwise a mirror line at −ω whose
//! amplitude ratio to the main one is |1 − r| / (1 + r). The runner takes ω_ref as the chain's
//! lowest small-oscillation frequency about the hanging equilibrium, so the slowest mode at small
//! amplitude is a pure line and the other modes' mirrors are weaker than their main lines
//! (ratio < 1 for every r > 0); NAFF searches all frequencies, both signs, so a mirror line is
//! simply found and identified as the combination −ν of a fundamental (see [`identify`]).
//!
//! **Circulating links.** When θ_j winds (its unwrapped range over the run exceeds 2π), the
//! signal above is dominated by a secular drift that is no line at all. For such a link the
//! signal is e^{iθ_j} instead ([`link_signal`] picks it and says so): a rotation at mean rate ν
//! is then a line at ν (signed by the direction of rotation), with the libration of the rotation
//! rate as side lines at ν ± k ν'. The choice is made per link on the whole run.

mod naff;
mod orbit;

pub use naff::{hann, Line, Naff, NaffError, NaffOptions, MAX_WINDOW_ORDER, MIN_SAMPLES};
pub use orbit::{
    ladder_slope, FrequencyOptions, FrequencyWorkspace, LineOut, LinkLines, OrbitFrequencies,
    Verdict, CHAOTIC_INDEX, CHAOTIC_SLOPE, DRIFT_INDEX, ERROR_RULE, FLOOR_MARGIN, MIN_PERIODS,
    REGULAR_INDEX, ROUND_OFF, VERDICT_RULE,
};

use num_complex::Complex64;
use serde::Serialize;

/// Which signal a link's lines were computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalKind {
    /// z = θ − i θ̇ / ω_ref (the link librates).
    Libration,
    /// z = e^{iθ} (the link circulates: θ's range exceeds 2π).
    Circulation,
}

impl SignalKind {
    pub fn name(self) -> &'static str {
        match self {
            SignalKind::Libration => "libration",
            SignalKind::Circulation => "circulation",
        }
    }
}

/// Fills `out` with link j's complex signal from its samples θ and θ̇ (same length as `out`) and
/// says which one it is (see the module's notes).
pub fn link_signal(
    theta: impl Iterator<Item = f64> + Clone,
    omega: impl Iterator<Item = f64>,
    omega_ref: f64,
    out: &mut [Complex64],
) -> SignalKind {
    let (lo, hi) = theta
        .clone()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if hi - lo > 2.0 * std::f64::consts::PI {
        for (o, th) in out.iter_mut().zip(theta) {
            let (s, c) = th.sin_cos();
            *o = Complex64::new(c, s);
        }
        SignalKind::Circulation
    } else {
        for ((o, th), w) in out.iter_mut().zip(theta).zip(omega) {
            *o = Complex64::new(th, -w / omega_ref);
        }
        SignalKind::Libration
    }
}

/// Largest number of fundamental frequencies [`identify`] combines.
pub const MAX_FUNDAMENTALS: usize = 8;

/// A line explained as Σ_i k_i ν_i.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Combination {
    /// The integer coefficients, one per fundamental.
    pub k: Vec<i32>,
    /// ω − Σ k_i ν_i (rad/s).
    pub residual: f64,
}

/// The integer combination k (Σ|k_i| ≤ `order`) of `fundamentals` closest to `frequency`, with
/// its residual; ties go to the lowest order Σ|k_i|. Panics with more than
/// [`MAX_FUNDAMENTALS`] fundamentals.
///
/// The search runs over k_1..k_{m−1} (an odometer over [−order, order]^{m−1}, keeping
/// Σ|k| ≤ order); the last coefficient is not enumerated but solved: |r − k_m ν_m| is convex
/// in k_m, so the best k_m within the order left is the integer nearest r/ν_m, clamped (both
/// neighbours of r/ν_m are tried so that an exact tie goes to the smaller |k_m|). The work is
/// (2·order + 1)^{m−1} instead of (2·order + 1)^m, which is what lets the default order reach
/// the harmonics NAFF finds (`order` 15 with four fundamentals is 3·10⁴ trials per line).
///
/// The nearest combination is always returned, however far: whether it *explains* the line is
/// the caller's threshold ([`explain`]).
pub fn identify(frequency: f64, fundamentals: &[f64], order: u32) -> Combination {
    let m = fundamentals.len();
    assert!(
        m <= MAX_FUNDAMENTALS,
        "at most {MAX_FUNDAMENTALS} fundamentals"
    );
    if m == 0 {
        return Combination {
            k: Vec::new(),
            residual: frequency,
        };
    }
    let order = order as i32;
    let (head, last) = (&fundamentals[..m - 1], fundamentals[m - 1]);
    let mut best = [0i32; MAX_FUNDAMENTALS];
    let mut best_r = frequency;
    let mut best_o = 0;
    let mut k = [0i32; MAX_FUNDAMENTALS];
    // Odometer over k_1..k_{m−1} ∈ [−order, order], keeping Σ|k| ≤ order.
    k[..m - 1].iter_mut().for_each(|x| *x = -order);
    loop {
        let used: i32 = k[..m - 1].iter().map(|x| x.abs()).sum();
        if used <= order {
            let r = frequency
                - k[..m - 1]
                    .iter()
                    .zip(head)
                    .map(|(&a, &f)| a as f64 * f)
                    .sum::<f64>();
            let left = order - used;
            // The nearest k_m within ±left, both neighbours of r/ν_m (a zero ν_m: only 0).
            let x = if last != 0.0 { r / last } else { 0.0 };
            let lo = x.floor().clamp(-left as f64, left as f64) as i32;
            let hi = x.ceil().clamp(-left as f64, left as f64) as i32;
            for km in [lo, hi] {
                let rr = r - km as f64 * last;
                let o = used + km.abs();
                if rr.abs() < best_r.abs() || (rr.abs() == best_r.abs() && o < best_o) {
                    best_r = rr;
                    best_o = o;
                    best[..m - 1].copy_from_slice(&k[..m - 1]);
                    best[m - 1] = km;
                }
            }
        }
        let mut i = 0;
        loop {
            if i == m - 1 {
                return Combination {
                    k: best[..m].to_vec(),
                    residual: best_r,
                };
            }
            if k[i] < order {
                k[i] += 1;
                break;
            }
            k[i] = -order;
            i += 1;
        }
    }
}

/// The combination explaining `frequency` (the nearest one, [`identify`]) if its residual is
/// within `tolerance` (rad/s); `None`: the line is unexplained and gets no label.
pub fn explain(
    frequency: f64,
    fundamentals: &[f64],
    order: u32,
    tolerance: f64,
) -> Option<Combination> {
    let c = identify(frequency, fundamentals, order);
    (c.residual.abs() <= tolerance).then_some(c)
}

/// Up to `count` fundamental frequencies (positive, rad/s) from the lines of all links: the lines
/// are taken by decreasing amplitude, and each one that no integer combination (Σ|k| ≤ `order`)
/// of the fundamentals found so far explains within `tolerance` (rad/s) adds |ω| as a new one.
/// Returned in the order found (the strongest first).
pub fn fundamentals(lines: &[Line], count: usize, order: u32, tolerance: f64) -> Vec<f64> {
    let mut sorted: Vec<&Line> = lines.iter().collect();
    sorted.sort_by(|a, b| b.amplitude.total_cmp(&a.amplitude));
    let mut out: Vec<f64> = Vec::with_capacity(count);
    for l in sorted {
        if out.len() >= count.min(MAX_FUNDAMENTALS) {
            break;
        }
        if l.frequency.is_finite() && explain(l.frequency, &out, order, tolerance).is_none() {
            out.push(l.frequency.abs());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identify_finds_combinations() {
        let f = [1.0, std::f64::consts::SQRT_2];
        let c = identify(2.0 * 1.0 - 3.0 * f[1] + 1e-9, &f, 6);
        assert_eq!(c.k, vec![2, -3]);
        assert!((c.residual - 1e-9).abs() < 1e-14);
        let c = identify(-f[1], &f, 6);
        assert_eq!(c.k, vec![0, -1]);
        assert_eq!(c.residual, 0.0);
        // Beyond the order: the nearest lower-order combination, with a large residual.
        let c = identify(7.0, &f, 6);
        assert!(c.k.iter().map(|x| x.abs()).sum::<i32>() <= 6);
        assert!(c.residual.abs() > 1e-3);
    }

    /// The search that solves the last coefficient finds what trying every k finds: the same
    /// residual (to round-off, 1e-12 rad/s) and the same order, over random fundamentals and frequencies
    /// with one to four fundamentals.
    #[test]
    fn identify_equals_the_exhaustive_search() {
        fn brute(frequency: f64, f: &[f64], order: i32) -> (f64, i32) {
            let m = f.len();
            let mut best = (frequency, 0);
            let mut k = vec![-order; m];
            loop {
                let o: i32 = k.iter().map(|x| x.abs()).sum();
                if o <= order {
                    let r = frequency - k.iter().zip(f).map(|(&a, &b)| a as f64 * b).sum::<f64>();
                    if r.abs() < best.0.abs() || (r.abs() == best.0.abs() && o < best.1) {
                        best = (r, o);
                    }
                }
                let mut i = 0;
                loop {
                    if i == m {
                        return best;
                    }
                    if k[i] < order {
                        k[i] += 1;
                        break;
                    }
                    k[i] = -order;
                    i += 1;
                }
            }
        }
        let mut rng = crate::analysis::random::SplitMix64(7);
        for m in 1..=4usize {
            for _ in 0..200 {
                let f: Vec<f64> = (0..m).map(|_| 0.5 + 3.0 * rng.next_f64()).collect();
                let w = 40.0 * (rng.next_f64() - 0.5);
                let order = if m == 4 { 5 } else { 8 };
                let c = identify(w, &f, order as u32);
                let (r, o) = brute(w, &f, order);
                // The sums are taken in another order: equal to round-off.
                assert!((c.residual.abs() - r.abs()).abs() < 1e-12, "{f:?} {w}");
                let co: i32 = c.k.iter().map(|x| x.abs()).sum();
                assert!(
                    co <= order && co == o,
                    "{f:?} {w}: order {co}, exhaustive {o}"
                );
                let sum: f64 = c.k.iter().zip(&f).map(|(&a, &b)| a as f64 * b).sum();
                assert!((w - sum - c.residual).abs() < 1e-12);
            }
        }
    }

    /// Issue 48: the 7th and 9th harmonics of one fundamental are [7] and [9] when the order
    /// reaches them, and unexplained (never the nearest lower-order label) when it does not.
    #[test]
    fn harmonics_beyond_the_order_are_unexplained() {
        let nu = [2.357_913_5];
        for h in [7, 9] {
            let w = h as f64 * nu[0] + 1e-12;
            let c = explain(w, &nu, 15, 1e-9).expect("explained at order 15");
            assert_eq!(c.k, vec![h]);
            assert!(c.residual.abs() < 1e-11);
            assert_eq!(explain(w, &nu, 6, 1e-9), None);
        }
    }

    #[test]
    fn fundamentals_skip_mirrors_and_harmonics() {
        let line = |frequency, amplitude| Line {
            frequency,
            amplitude,
            phase: 0.0,
        };
        let (a, b) = (0.9, 2.1 * std::f64::consts::SQRT_2);
        let lines = [
            line(a, 1.0),
            line(-a, 0.5),
            line(3.0 * a, 0.4),
            line(b, 0.3),
            line(b - 2.0 * a, 0.1),
        ];
        let f = fundamentals(&lines, 2, 6, 1e-9);
        assert_eq!(f, vec![a, b]);
    }

    #[test]
    fn circulating_link_uses_the_angle() {
        let n = 100;
        let th: Vec<f64> = (0..n).map(|k| 0.1 * k as f64).collect();
        let w = vec![1.0; n];
        let mut z = vec![Complex64::default(); n];
        let kind = link_signal(th.iter().copied(), w.iter().copied(), 2.0, &mut z);
        assert_eq!(kind, SignalKind::Circulation);
        assert!((z[10] - Complex64::from_polar(1.0, 1.0)).norm() < 1e-15);
        let th: Vec<f64> = (0..n).map(|k| (0.1 * k as f64).sin()).collect();
        let kind = link_signal(th.iter().copied(), w.iter().copied(), 2.0, &mut z);
        assert_eq!(kind, SignalKind::Libration);
        assert_eq!(z[3], Complex64::new(th[3], -0.5));
    }
}
