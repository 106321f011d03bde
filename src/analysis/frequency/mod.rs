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
pub use orbit::{FrequencyOptions, FrequencyWorkspace, LineOut, LinkLines, OrbitFrequencies};

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
/// its residual; ties go to the lowest order (the first met in order of increasing Σ|k_i|).
/// Panics with more than [`MAX_FUNDAMENTALS`] fundamentals.
pub fn identify(frequency: f64, fundamentals: &[f64], order: u32) -> Combination {
    let m = fundamentals.len();
    assert!(
        m <= MAX_FUNDAMENTALS,
        "at most {MAX_FUNDAMENTALS} fundamentals"
    );
    let order = order as i32;
    let mut best = [0i32; MAX_FUNDAMENTALS];
    let mut best_r = frequency;
    let mut best_o = 0;
    let mut k = [0i32; MAX_FUNDAMENTALS];
    if m == 0 {
        return Combination {
            k: Vec::new(),
            residual: frequency,
        };
    }
    // Odometer over k ∈ [−order, order]^m, keeping Σ|k| ≤ order.
    k[..m].iter_mut().for_each(|x| *x = -order);
    loop {
        let o: i32 = k[..m].iter().map(|x| x.abs()).sum();
        if o <= order {
            let r = frequency
                - k[..m]
                    .iter()
                    .zip(fundamentals)
                    .map(|(&a, &f)| a as f64 * f)
                    .sum::<f64>();
            if r.abs() < best_r.abs() || (r.abs() == best_r.abs() && o < best_o) {
                best_r = r;
                best_o = o;
                best[..m].copy_from_slice(&k[..m]);
            }
        }
        let mut i = 0;
        loop {
            if i == m {
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
        if identify(l.frequency, &out, order).residual.abs() > tolerance {
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
