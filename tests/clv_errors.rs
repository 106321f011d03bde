//! The error bars of the covariant-vector statistics (issue 53) against independent truths.
//!
//! **A linear flow with known covariant vectors and a known angle distribution.** With
//! S(t) = [[1, cos φ(t)], [0, sin φ(t)]] and D = diag(λ₁, λ₂), the flow ẋ = A(t)x with
//! A = Ṡ S⁻¹ + S D S⁻¹ = [[λ₁, (λ₂ − λ₁) cot φ − φ̇], [0, λ₂ + φ̇ cot φ]] is x = S(t) y, ẏ = D y:
//! S is a bounded change of coordinates with bounded inverse (a Lyapunov transformation), so
//! the exponents are λ₁, λ₂ and the covariant vectors at t are S(t)e₁ = (1, 0) and
//! S(t)e₂ = (cos φ, sin φ): their angle is φ(t) exactly. φ is random but smooth: i.i.d.
//! φ_k ~ U[φ₀ − a, φ₀ + a] at t = k·Δ, joined by the smoothstep s(u) = 3u² − 2u³. Its marginal
//! distribution is symmetric about φ₀ (swapping φ_k, φ_{k+1} and u ↔ 1 − u), so the true median
//! angle is φ₀; the true near-tangency fraction P(φ < c) is a two-dimensional integral over u
//! and φ_k with the inner probability in closed form (computed here by quadrature). Each seed
//! is another realisation of φ: the 95 % intervals should contain the truth about 95 times in
//! 100.

use pendula::analysis::lyapunov::{LyapunovOptions, PhaseVolume};
use pendula::analysis::orbit::{chain_covariant, covariant_vectors, Covariant, CovariantOptions};
use pendula::analysis::random::SplitMix64;
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, System};
use pendula::observe::Silent;

#[path = "common/loglog.rs"]
mod loglog;
use loglog::slope;

const PHI0: f64 = 0.6;
const SPREAD: f64 = 0.4;
const GRID: f64 = 1.0;
const TANGENCY: f64 = 0.35;
const L1: f64 = 1.0;
const L2: f64 = -1.0;

fn smoothstep(u: f64) -> (f64, f64) {
    (u * u * (3.0 - 2.0 * u), 6.0 * u * (1.0 - u))
}

struct Sheared {
    phi: Vec<f64>,
}

impl Sheared {
    fn new(seed: u64, t_end: f64) -> Sheared {
        let mut rng = SplitMix64(seed);
        let n = (t_end / GRID) as usize + 3;
        Sheared {
            phi: (0..n)
                .map(|_| PHI0 + SPREAD * (2.0 * rng.next_f64() - 1.0))
                .collect(),
        }
    }

    /// φ(t) and φ̇(t).
    fn angle(&self, t: f64) -> (f64, f64) {
        let x = (t / GRID).max(0.0);
        let k = (x.floor() as usize).min(self.phi.len() - 2);
        let (s, ds) = smoothstep(x - k as f64);
        let d = self.phi[k + 1] - self.phi[k];
        (self.phi[k] + d * s, d * ds / GRID)
    }

    fn apply(&self, t: f64, x: &[f64], out: &mut [f64]) {
        let (p, dp) = self.angle(t);
        let cot = p.cos() / p.sin();
        out[0] = L1 * x[0] + ((L2 - L1) * cot - dp) * x[1];
        out[1] = (L2 + dp * cot) * x[1];
    }
}

impl System for Sheared {
    type Workspace = ();
    fn dim(&self) -> usize {
        2
    }
    fn workspace(&self) {}
    fn rhs(&self, t: f64, x: &[f64], dx: &mut [f64], _: &mut ()) {
        self.apply(t, x, dx);
    }
    fn rhs_tangent(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        _: &mut (),
    ) {
        self.apply(t, x, dx);
        for (c, d) in v.chunks_exact(2).zip(dv.chunks_exact_mut(2)) {
            self.apply(t, c, d);
        }
    }
    fn energy(&self, _t: f64, _x: &[f64]) -> f64 {
        0.0
    }
    fn power(&self, _t: f64, _x: &[f64]) -> f64 {
        0.0
    }
    fn non_conservative(&self) -> bool {
        false
    }
}

impl PhaseVolume for Sheared {}

fn sheared_run(seed: u64, window: f64) -> (Sheared, Covariant) {
    let transient = 10.0;
    let back = 10.0;
    let sys = Sheared::new(seed, transient + window + back + 1.0);
    let opts = LyapunovOptions {
        tau: 0.1,
        transient,
        time: window,
        ..Default::default()
    };
    let cov = CovariantOptions {
        backward_transient: back,
        samples: (window / 0.1).round() as usize,
        tangency_angle: TANGENCY,
        ..Default::default()
    };
    let r = covariant_vectors(
        &sys,
        &Method::Rk4 { dt: 0.01 },
        &[0.0, 0.0],
        &opts,
        &cov,
        &mut Silent,
    )
    .unwrap();
    (sys, r)
}

/// P(φ < c) of the smoothstep-joined uniform process: ∫₀¹ du ∫ dx/(2a) P(Y < (c − (1 − s)x)/s),
/// midpoint rule over u and x (2 000² points), the inner probability in closed form.
fn true_fraction(c: f64) -> f64 {
    let (lo, hi) = (PHI0 - SPREAD, PHI0 + SPREAD);
    let m = 2000;
    let mut sum = 0.0;
    for i in 0..m {
        let (s, _) = smoothstep((i as f64 + 0.5) / m as f64);
        for j in 0..m {
            let x = lo + (hi - lo) * (j as f64 + 0.5) / m as f64;
            sum += if s == 0.0 {
                f64::from(u8::from(x < c))
            } else {
                (((c - (1.0 - s) * x) / s - lo) / (hi - lo)).clamp(0.0, 1.0)
            };
        }
    }
    sum / (m * m) as f64
}

/// The run recovers the construction: exponents ±1, the unstable–stable angle φ(t) at every
/// sample (to 1e-6 rad: RK4 at 0.01 s).
#[test]
fn sheared_flow_gives_its_angle() {
    let (sys, r) = sheared_run(1, 100.0);
    assert!(
        (r.spectrum.exponents[0] - L1).abs() < 0.05,
        "{:?}",
        r.spectrum.exponents
    );
    assert!(
        (r.spectrum.exponents[1] - L2).abs() < 0.05,
        "{:?}",
        r.spectrum.exponents
    );
    let a = r
        .min_angle
        .as_ref()
        .expect("an unstable and a stable vector");
    for (s, t) in r.time.iter().enumerate() {
        let (phi, _) = sys.angle(*t);
        assert!((a[s] - phi).abs() < 1e-6, "t = {t}: {} vs {phi}", a[s]);
    }
}

/// Coverage: over 100 seeds (400 s windows, 4 000 samples, 20 blocks of 20 s), how often the
/// 95 % batch-means intervals of the median angle and of the near-tangency fraction contain
/// the truth (φ₀, and the quadrature's P(φ < 0.35)).
#[test]
fn batch_means_intervals_cover_the_truth() {
    let truth = true_fraction(TANGENCY);
    let (mut median_in, mut fraction_in) = (0, 0);
    for seed in 0..100u64 {
        let (_, r) = sheared_run(1000 + seed, 400.0);
        let m = r.min_angle_median_ci.unwrap();
        let f = r.tangency_fraction_ci.unwrap();
        median_in += usize::from(m[0] <= PHI0 && PHI0 <= m[1]);
        fraction_in += usize::from(f[0] <= truth && truth <= f[1]);
    }
    eprintln!(
        "coverage of the 95 % intervals over 100 seeds: median angle {median_in}/100, near-tangency fraction {fraction_in}/100 (true fraction {truth:.5})"
    );
    assert!((90..=99).contains(&median_in), "{median_in}");
    assert!((90..=99).contains(&fraction_in), "{fraction_in}");
}

/// The intervals shrink like 1/√T (batch means over independent blocks): the mean width over
/// 8 seeds at windows of 100 to 1 600 s, slope of log width against log T within 0.15 of −½.
#[test]
fn intervals_shrink_like_one_over_root_t() {
    let ts = [100.0, 200.0, 400.0, 800.0, 1600.0];
    let (mut wm, mut wf) = (Vec::new(), Vec::new());
    for &t in &ts {
        let (mut a, mut b) = (0.0, 0.0);
        for seed in 0..8u64 {
            let (_, r) = sheared_run(77 + seed, t);
            let m = r.min_angle_median_ci.unwrap();
            let f = r.tangency_fraction_ci.unwrap();
            a += (m[1] - m[0]) / 8.0;
            b += (f[1] - f[0]) / 8.0;
        }
        wm.push(a);
        wf.push(b);
    }
    let (sm, sf) = (slope(&ts, &wm), slope(&ts, &wf));
    eprintln!("interval width against T: median slope {sm:.3}, fraction slope {sf:.3} (law -0.5); widths {wm:?} {wf:?}");
    assert!((sm + 0.5).abs() < 0.15, "{sm}");
    assert!((sf + 0.5).abs() < 0.15, "{sf}");
}

fn rest(theta: &[f64]) -> Vec<f64> {
    let mut x = theta.to_vec();
    x.extend(vec![0.0; theta.len()]);
    x
}

/// The conservative double pendulum from rest at (2, 2), Gauss–Legendre in canonical
/// coordinates: the run's own symplectic residual over the pairs that must be ω-orthogonal
/// (all but (1, 4) and (2, 3)) is near round-off; an RK4 run in (θ, θ̇) reports none.
#[test]
fn symplectic_residual_near_round_off() {
    let c = Chain::new(ChainParams::equal_points(2)).unwrap();
    let opts = LyapunovOptions {
        transient: 30.0,
        time: 30.0,
        ..Default::default()
    };
    let cov = CovariantOptions {
        backward_transient: 30.0,
        samples: 30,
        ..Default::default()
    };
    let gauss = Method::Gauss {
        dt: 1e-3,
        stages: 2,
    };
    let r = chain_covariant(&c, &gauss, &rest(&[2.0, 2.0]), &opts, &cov, &mut Silent).unwrap();
    assert_eq!(r.symplectic_pairs, vec![(0, 1), (0, 2), (1, 3), (2, 3)]);
    let worst = r.symplectic_residual.iter().copied().fold(0.0f64, f64::max);
    eprintln!("symplectic residual: {:?}", r.symplectic_residual);
    assert!(worst < 1e-10, "{worst}");
    let rk4 = Method::Rk4 { dt: 1e-3 };
    let r = chain_covariant(&c, &rk4, &rest(&[2.0, 2.0]), &opts, &cov, &mut Silent).unwrap();
    assert!(r.symplectic_pairs.is_empty());
}

/// The convergence check bounds the true error: the vectors of a b = 4 s backward transient
/// differ from those of b = 64 s (the reference) by no more than the reported change from
/// b/2 to b, for the contracting vector v4 (v1, the first Gram–Schmidt vector, never changes);
/// v4's change falls by orders from b = 4 to b = 16 s; the neutral pair's is printed (its
/// convergence is algebraic).
#[test]
fn backward_change_bounds_the_error() {
    let c = Chain::new(ChainParams::equal_points(2)).unwrap();
    let run = |tb: f64| {
        let opts = LyapunovOptions {
            transient: 50.0,
            time: 20.0,
            ..Default::default()
        };
        let cov = CovariantOptions {
            backward_transient: tb,
            samples: 50,
            ..Default::default()
        };
        chain_covariant(
            &c,
            &Method::Rk4 { dt: 1e-3 },
            &rest(&[2.0, 2.0]),
            &opts,
            &cov,
            &mut Silent,
        )
        .unwrap()
    };
    let (short, mid, reference) = (run(4.0), run(16.0), run(64.0));
    let angle = |a: &Covariant, b: &Covariant, s: usize, i: usize| {
        let (u, v) = (
            a.vectors.slice(ndarray::s![s, i, ..]),
            b.vectors.slice(ndarray::s![s, i, ..]),
        );
        let d: f64 = u.iter().zip(v).map(|(x, y)| x * y).sum();
        let ch: f64 = u
            .iter()
            .zip(v)
            .map(|(x, y)| (x - d.signum() * y).powi(2))
            .sum::<f64>()
            .sqrt();
        2.0 * (0.5 * ch).asin()
    };
    // v1 is the first Gram–Schmidt vector itself (C's first column never changes).
    assert_eq!(short.backward_change[0], 0.0);
    let i = 3;
    let err = (0..short.time.len())
        .map(|s| angle(&short, &reference, s, i))
        .fold(0.0f64, f64::max);
    eprintln!(
        "v4: reported change {:e} (b = 4 s), {:e} (b = 16 s); true error {err:e} (b = 4 s)",
        short.backward_change[i], mid.backward_change[i]
    );
    assert!(
        err <= short.backward_change[i],
        "{err} > {}",
        short.backward_change[i]
    );
    assert!(mid.backward_change[i] < 1e-2 * short.backward_change[i]);
    eprintln!("neutral pair: {:?}", &short.backward_change[1..3]);
}
