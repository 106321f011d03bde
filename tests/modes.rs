//! Normal modes against the small-angle formulas (physics.md §3) and Sylvester's law of inertia.

use pendula::analysis::modes::{self, bessel_j0_zeros, laguerre_zeros, modes_at, Equilibrium};
use pendula::model::{Chain, ChainParams, Damping, Link};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn hanging(chain: &Chain) -> modes::EquilibriumModes {
    modes_at(chain, &Equilibrium::hanging(chain.links())).unwrap()
}

#[test]
fn equal_point_chain_matches_laguerre_zeros() {
    for n in 1..=20 {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let m = hanging(&chain);
        let x = laguerre_zeros(n);
        for (k, (&w2, &xk)) in m.omega2.iter().zip(&x).enumerate() {
            let got = w2 / 9.81;
            assert!(
                ((got - xk) / xk).abs() < 1e-10,
                "N = {n}, mode {k}: {got} vs {xk}"
            );
        }
        // Trace identity: Σ x_k = N².
        let sum: f64 = x.iter().sum();
        assert!((sum - (n * n) as f64).abs() < 1e-9 * (n * n) as f64);
    }
}

#[test]
fn random_double_point_pendulum_matches_closed_form() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..50 {
        let (m1, m2) = (rng.random_range(0.1..5.0), rng.random_range(0.1..5.0));
        let (l1, l2) = (rng.random_range(0.1..3.0), rng.random_range(0.1..3.0));
        let g = rng.random_range(1.0..20.0);
        let chain = Chain::new(ChainParams {
            gravity: g,
            ..ChainParams::new(vec![Link::point(l1, m1), Link::point(l2, m2)])
        })
        .unwrap();
        let w = hanging(&chain).frequencies();
        let s = (m1 + m2) * (l1 + l2);
        let r = (s * s - 4.0 * m1 * (m1 + m2) * l1 * l2).sqrt();
        let w2 = [
            g * (s - r) / (2.0 * m1 * l1 * l2),
            g * (s + r) / (2.0 * m1 * l1 * l2),
        ];
        for k in 0..2 {
            let rel = (w[k] * w[k] - w2[k]).abs() / w2[k];
            assert!(rel < 1e-12, "mode {k}: {rel:e}");
        }
    }
}

/// Seed 004's eq. (19) linearized: ρl³ [[4/3, 1/2], [1/2, 1/3]] δθ̈ + ρl³ (g/l) diag(3/2, 1/2) δθ = 0,
/// whose characteristic equation gives ω² = (g/l)(3 ∓ 6/√7).
#[test]
fn equal_rod_double_pendulum_matches_seed004() {
    for &(l, m) in &[(1.0, 1.0), (0.37, 2.5), (2.2, 0.3)] {
        let chain = Chain::new(ChainParams::new(vec![Link::rod(l, m); 2])).unwrap();
        let w2 = hanging(&chain).omega2;
        let g = 9.81;
        let expect = [
            g / l * (3.0 - 6.0 / 7f64.sqrt()),
            g / l * (3.0 + 6.0 / 7f64.sqrt()),
        ];
        for k in 0..2 {
            assert!(
                ((w2[k] - expect[k]) / expect[k]).abs() < 1e-12,
                "{} vs {}",
                w2[k],
                expect[k]
            );
        }
    }
}

#[test]
fn long_chain_approaches_the_continuum_bessel_limit() {
    // The discrete chain's lowest frequencies converge to (j0k/2)√(g/L) as N grows, roughly like 1/N.
    let bessel = bessel_j0_zeros(5);
    let mut previous = f64::INFINITY;
    for &n in &[50usize, 100, 200] {
        let chain = Chain::new(ChainParams::new(vec![
            Link::point(
                1.0 / n as f64,
                1.0 / n as f64
            );
            n
        ]))
        .unwrap();
        let w = hanging(&chain).frequencies();
        let worst = (0..5)
            .map(|k| {
                let expect = 0.5 * bessel[k] * 9.81f64.sqrt();
                ((w[k] - expect) / expect).abs()
            })
            .fold(0.0, f64::max);
        if n == 200 {
            assert!(worst < 0.01, "N = 200: worst relative difference {worst}");
        }
        assert!(
            worst < previous,
            "no convergence at N = {n}: {worst} >= {previous}"
        );
        previous = worst;
    }
}

#[test]
fn morse_index_counts_links_pointing_up() {
    let mut rng = StdRng::seed_from_u64(12);
    for n in 1..=6 {
        let point = ChainParams::new(
            (0..n)
                .map(|_| Link::point(rng.random_range(0.3..2.0), rng.random_range(0.2..3.0)))
                .collect(),
        );
        let rod = ChainParams::new(
            (0..n)
                .map(|_| Link::rod(rng.random_range(0.3..2.0), rng.random_range(0.2..3.0)))
                .collect(),
        );
        let mixed = ChainParams::new(
            (0..n)
                .map(|j| match j % 3 {
                    0 => Link::point(1.0, 0.7),
                    1 => Link::rod(0.8, 1.3),
                    _ => Link::given(0.6, 0.9, 0.2, 0.05),
                })
                .collect(),
        );
        for params in [point, rod, mixed] {
            let chain = Chain::new(params).unwrap();
            for eq in Equilibrium::all(n).unwrap() {
                let m = modes_at(&chain, &eq).unwrap();
                assert_eq!(m.unstable, eq.inverted_links(), "N = {n}, {}", eq.label());
                // M-orthonormal shapes: VᵀMV = I, and the residual of K v = ω² M v.
                let vtmv = m.shapes.transpose() * &m.mass * &m.shapes;
                let resid = &m.stiffness * &m.shapes
                    - &m.mass
                        * &m.shapes
                        * nalgebra::DMatrix::from_diagonal(&nalgebra::DVector::from_vec(
                            m.omega2.clone(),
                        ));
                assert!((vtmv - nalgebra::DMatrix::identity(n, n)).amax() < 1e-10);
                assert!(resid.amax() < 1e-9 * m.stiffness.amax());
            }
        }
    }
}

#[test]
fn damped_single_pendulum_has_the_textbook_eigenvalues() {
    let (l, m, gamma) = (1.5, 0.8, 0.3);
    let mut p = ChainParams::new(vec![Link::point(l, m)]);
    p.damping = Damping {
        absolute: vec![gamma],
        joint: vec![],
    };
    let chain = Chain::new(p).unwrap();
    let modes = hanging(&chain);
    let decay = gamma / (2.0 * m * l * l);
    let freq = (9.81 / l - decay * decay).sqrt();
    assert_eq!(modes.damped.len(), 2);
    for d in &modes.damped {
        assert!((d.decay_rate - decay).abs() < 1e-12, "{d:?}");
        assert!((d.damped_frequency - freq).abs() < 1e-12, "{d:?}");
    }
}

#[test]
fn formula_checks_apply_where_they_should() {
    let chain = Chain::new(ChainParams::equal_points(3)).unwrap();
    let w = hanging(&chain).frequencies();
    let checks = modes::formula_checks(&chain, &w);
    assert_eq!(checks.len(), 1);
    assert!(checks[0].relative_difference.iter().all(|&r| r < 1e-10));
    let chain = Chain::new(ChainParams::new(vec![Link::rod(0.9, 2.0)])).unwrap();
    let w = hanging(&chain).frequencies();
    let checks = modes::formula_checks(&chain, &w);
    assert!(checks[0].formula.starts_with("compound"));
    // Uniform rod: ω² = 3g / (2l).
    assert!((w[0] * w[0] - 3.0 * 9.81 / 1.8).abs() < 1e-12);
    assert!(checks[0].relative_difference[0] < 1e-14);
}

#[test]
fn nonlinear_small_amplitude_frequency_matches_linear_modes() {
    for n in [2usize, 3, 5] {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let m = hanging(&chain);
        let opts = modes::NonlinearOptions {
            amplitudes: vec![],
            ..Default::default()
        };
        let checks = modes::verify_nonlinear(&chain, &m, &opts);
        assert_eq!(checks.len(), n, "N = {n}: every mode measured");
        for c in &checks {
            assert!(
                c.relative_difference < 1e-4,
                "N = {n}, mode {}: {:e}",
                c.mode,
                c.relative_difference
            );
            assert!(c.crossings >= 15);
        }
    }
}

#[test]
fn single_pendulum_amplitude_dependence_matches_elliptic_period() {
    for link in [Link::point(0.8, 1.0), Link::rod(1.2, 0.5)] {
        let chain = Chain::new(ChainParams::new(vec![link])).unwrap();
        let m = hanging(&chain);
        let opts = modes::NonlinearOptions {
            amplitudes: vec![0.3, 1.0, 2.0, 2.8],
            ..Default::default()
        };
        let checks = modes::verify_nonlinear(&chain, &m, &opts);
        for c in checks.iter().skip(1) {
            let rel = ((c.measured - c.exact) / c.exact).abs();
            assert!(
                rel < 1e-9,
                "amplitude {}: measured {} vs elliptic {} ({rel:e})",
                c.amplitude,
                c.measured,
                c.exact
            );
            // The frequency falls with amplitude (softening).
            assert!(c.measured < c.linear);
        }
    }
}

/// Periods up to the separatrix: a single link released at rest, timed over a quarter period
/// from the turning point to the bottom, against 4 √(l_eff/g) K(sin(θ₀/2)) with K from the
/// complementary modulus cos(θ₀/2) (exact to a few ulps there). With the default DOP853
/// tolerance 1e-12 (measured, point link): 1.9e-12 at 179°, 3.7e-12 at 179.5°, 1.7e-11 at
/// 179.9°, 1.6e-10 at 179.99° (so 1e-9 there); the former mean over zero crossings gave
/// 1.3e-9 at 179° and 6.6e-8 at 179.9°.
#[test]
fn single_pendulum_period_near_the_separatrix_to_1e_10() {
    let deg = std::f64::consts::PI / 180.0;
    for link in [Link::point(1.0, 1.0), Link::rod(1.2, 0.5)] {
        let chain = Chain::new(ChainParams::new(vec![link])).unwrap();
        let m = hanging(&chain);
        let opts = modes::NonlinearOptions {
            amplitudes: vec![
                170.0 * deg,
                179.0 * deg,
                179.5 * deg,
                179.9 * deg,
                179.99 * deg,
            ],
            ..Default::default()
        };
        let checks = modes::verify_nonlinear(&chain, &m, &opts);
        assert_eq!(checks.len(), 6);
        for c in &checks {
            assert_eq!(c.route, modes::PeriodRoute::QuarterPeriod);
            let rel = ((c.period - c.reference_period) / c.reference_period).abs();
            let rel_f = ((c.measured - c.exact) / c.exact).abs();
            eprintln!(
                "θ₀ = {:>8.3}°: period {:.15} reference {:.15} rel {rel:.2e} (frequency {rel_f:.2e})",
                c.amplitude / deg,
                c.period,
                c.reference_period
            );
            let bound = if c.amplitude > 179.95 * deg {
                1e-9
            } else {
                1e-10
            };
            assert!(rel <= bound, "θ₀ = {}°: {rel:e}", c.amplitude / deg);
            assert!(rel_f <= bound);
        }
    }
}

/// The quarter-period route's error is the integrator's, not the route's: with DOP853 at 1e-14
/// the period holds to ≤ 1e-12 of the reference even at 179.99°, where the default 1e-12
/// gives 1.6e-10.
#[test]
fn single_pendulum_period_error_follows_the_tolerance() {
    let deg = std::f64::consts::PI / 180.0;
    let chain = Chain::new(ChainParams::new(vec![Link::point(1.0, 1.0)])).unwrap();
    let m = hanging(&chain);
    let opts = modes::NonlinearOptions {
        amplitudes: vec![179.0 * deg, 179.9 * deg, 179.99 * deg],
        tol: 1e-14,
        ..Default::default()
    };
    for c in modes::verify_nonlinear(&chain, &m, &opts) {
        let rel = ((c.period - c.reference_period) / c.reference_period).abs();
        eprintln!("tol 1e-14, θ₀ = {:.3}°: {rel:.2e}", c.amplitude / deg);
        assert!(rel <= 1e-12, "θ₀ = {}°: {rel:e}", c.amplitude / deg);
    }
}
