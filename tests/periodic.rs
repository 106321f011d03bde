//! Periodic orbits by shooting: against closed forms (elliptic-integral periods, the linear
//! damped driven oscillator, the small-amplitude normal modes), Liouville's formula, reciprocal
//! pairs, quadratic convergence and a finite-difference monodromy.

use nalgebra::Complex;
use pendula::analysis::modes::{elliptic_k, modes_at, Equilibrium};
use pendula::analysis::periodic::{
    find, propagate, Closure, Guess, PeriodicOrbit, ShootingOptions, Stability,
};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, Link, System};
use pendula::observe::{Cancel, Silent};
use std::f64::consts::PI;

#[path = "common/oscillator.rs"]
mod oscillator;
use oscillator::Oscillator;

const G: f64 = 9.81;

fn pendulum() -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = G;
    Chain::new(p).unwrap()
}

fn tight() -> ShootingOptions {
    ShootingOptions {
        rtol: 1e-13,
        atol: 1e-13,
        tolerance: 1e-11,
        ..ShootingOptions::default()
    }
}

/// The checks every orbit must pass: Liouville's formula and (Hamiltonian) reciprocal pairs to
/// 1e-10, and a converged Newton.
fn exact_checks(o: &PeriodicOrbit, what: &str) {
    assert!(
        o.floquet.liouville_error < 1e-10,
        "{what}: det M = {} but exp(∫tr J) = {} (error {:.2e})",
        o.floquet.determinant,
        o.floquet.liouville,
        o.floquet.liouville_error
    );
    if let Some(r) = o.floquet.reciprocal_error {
        assert!(r < 1e-10, "{what}: reciprocal pairs off by {r:.2e}");
    }
    assert!(
        *o.residuals.last().unwrap() <= 1e-10,
        "{what}: {:?}",
        o.residuals
    );
}

/// Period of the simple pendulum at amplitude θ₀: 4√(l/g)·K(sin(θ₀/2)), to 1e-10 relative up
/// to 179°, each orbit found at fixed energy from the previous one's period (a family continued
/// in energy by hand; the continuation module does it with pseudo-arclength).
#[test]
fn simple_pendulum_periods_match_the_elliptic_integral_up_to_179_degrees() {
    let chain = pendulum();
    let mut period = 2.0 * PI / G.sqrt();
    let mut worst: f64 = 0.0;
    for deg in [
        1.0, 10.0, 30.0, 60.0, 90.0, 120.0, 150.0, 170.0, 175.0, 178.0, 179.0,
    ] {
        let th0: f64 = deg * PI / 180.0;
        let energy = -G * th0.cos();
        let exact = 4.0 / G.sqrt() * elliptic_k((th0 / 2.0).sin());
        let guess = Guess {
            x0: vec![th0, 0.0],
            period: period.max(exact * 0.98),
        };
        let o = find(
            &chain,
            &guess,
            Closure::Energy(energy),
            &tight(),
            &Cancel::never(),
        )
        .unwrap_or_else(|e| panic!("{deg}°: {e}"));
        let rel = (o.period - exact).abs() / exact;
        worst = worst.max(rel);
        assert!(
            rel < 1e-10,
            "{deg}°: T = {} vs {exact} ({rel:.2e})",
            o.period
        );
        assert_eq!(o.floquet.stability, Stability::Elliptic);
        assert!(
            o.floquet.multipliers.is_empty(),
            "one degree of freedom: only the trivial pair"
        );
        for t in &o.floquet.trivial {
            assert!((t.complex() - 1.0).norm() < 1e-4, "{deg}°: trivial {t:?}");
        }
        exact_checks(&o, &format!("{deg}°"));
        period = o.period;
    }
    eprintln!("simple pendulum: worst relative period error {worst:.2e}");
}

#[test]
fn linear_damped_driven_oscillator_orbit_and_multipliers_match_the_closed_form() {
    let sys = Oscillator {
        zeta: 0.1,
        w0: 2.0,
        force: 1.5,
        omega: 1.3,
    };
    let t = 2.0 * PI / sys.omega;
    let opts = ShootingOptions {
        rtol: 1e-15,
        atol: 1e-15,
        tolerance: 1e-13,
        ..ShootingOptions::default()
    };
    let guess = Guess {
        x0: vec![0.0, 0.0],
        period: t,
    };
    let closure = Closure::Driven {
        drive_period: t,
        k: 1,
    };
    let o = find(&sys, &guess, closure, &opts, &Cancel::never()).unwrap();
    let (w0, w) = (sys.w0, sys.omega);
    let amp = sys.force / ((w0 * w0 - w * w).powi(2) + (2.0 * sys.zeta * w0 * w).powi(2)).sqrt();
    let phi = (2.0 * sys.zeta * w0 * w).atan2(w0 * w0 - w * w);
    // x(t) = A cos(Ωt − φ): x(0) = A cos φ, ẋ(0) = AΩ sin φ.
    let (x, v) = (amp * phi.cos(), amp * w * phi.sin());
    assert!((o.x0[0] - x).abs() < 1e-12, "{} vs {x}", o.x0[0]);
    assert!((o.x0[1] - v).abs() < 1e-12, "{} vs {v}", o.x0[1]);
    // Amplitude and phase from the found start.
    let amp_found = (o.x0[0].powi(2) + (o.x0[1] / w).powi(2)).sqrt();
    let phi_found = (o.x0[1] / w).atan2(o.x0[0]);
    assert!((amp_found - amp).abs() < 1e-12 && (phi_found - phi).abs() < 1e-12);
    // Multipliers exp(λT), λ = −ζω₀ ± iω₀√(1 − ζ²).
    let wd = w0 * (1.0 - sys.zeta * sys.zeta).sqrt();
    let expected = [
        (Complex::new(-sys.zeta * w0, wd) * t).exp(),
        (Complex::new(-sys.zeta * w0, -wd) * t).exp(),
    ];
    for e in expected {
        let best = o
            .floquet
            .multipliers
            .iter()
            .map(|m| (m.complex() - e).norm())
            .fold(f64::INFINITY, f64::min);
        assert!(best < 1e-12, "multiplier {e} missed by {best:.2e}");
    }
    assert_eq!(o.floquet.stability, Stability::Stable);
    assert!(o.floquet.reciprocal_error.is_none());
    exact_checks(&o, "oscillator");
    assert!(
        o.residuals.len() <= 3,
        "a linear problem converges in one step: {:?}",
        o.residuals
    );
}

fn double_pendulum() -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0), Link::point(1.0, 1.0)]);
    p.gravity = G;
    Chain::new(p).unwrap()
}

/// The two nonlinear normal-mode families of the double pendulum at small amplitude: their
/// periods tend to 2π/ω± and their non-trivial multipliers to exp(±2πi ω∓/ω±), with errors
/// shrinking like the amplitude squared.
#[test]
fn double_pendulum_small_amplitude_families_tend_to_the_normal_modes() {
    let chain = double_pendulum();
    let modes = modes_at(&chain, &Equilibrium::hanging(2)).unwrap();
    let w: Vec<f64> = modes.omega2.iter().map(|w2| w2.sqrt()).collect();
    for mode in 0..2 {
        let shape = modes.shapes.column(mode).into_owned();
        let scale = shape.amax();
        let (other, own) = (w[1 - mode], w[mode]);
        let mut errors = Vec::new();
        for amp in [0.02, 0.01, 0.005] {
            let x0 = vec![amp * shape[0] / scale, amp * shape[1] / scale, 0.0, 0.0];
            let energy = chain.energy(0.0, &x0);
            let guess = Guess {
                x0: x0.clone(),
                period: 2.0 * PI / own,
            };
            let o = find(
                &chain,
                &guess,
                Closure::Energy(energy),
                &tight(),
                &Cancel::never(),
            )
            .unwrap_or_else(|e| panic!("mode {mode} amplitude {amp}: {e}"));
            exact_checks(&o, &format!("mode {mode} amplitude {amp}"));
            assert_eq!(o.floquet.stability, Stability::Elliptic);
            let t_err = (o.period - 2.0 * PI / own).abs() / (2.0 * PI / own);
            // The pair exp(±2πi ω_other/ω_own).
            let angle = 2.0 * PI * other / own;
            let target = Complex::new(angle.cos(), angle.sin());
            let m_err = o
                .floquet
                .multipliers
                .iter()
                .map(|m| {
                    (m.complex() - target)
                        .norm()
                        .min((m.complex() - target.conj()).norm())
                })
                .fold(f64::INFINITY, f64::min);
            errors.push((amp, t_err, m_err));
        }
        eprintln!("mode {mode}: (amplitude, period error, multiplier error) {errors:?}");
        for pair in errors.windows(2) {
            let (t_ratio, m_ratio) = (pair[0].1 / pair[1].1, pair[0].2 / pair[1].2);
            assert!(
                (3.6..4.4).contains(&t_ratio),
                "period error ratio {t_ratio} (expect 4)"
            );
            assert!(
                (3.6..4.4).contains(&m_ratio),
                "multiplier error ratio {m_ratio} (expect 4)"
            );
        }
    }
}

/// Newton converges quadratically: each residual is at most C·(previous)² once in the basin.
#[test]
fn newton_converges_quadratically() {
    let chain = double_pendulum();
    // The in-phase linear mode at 0.3 rad, a guess off the nonlinear orbit at its energy.
    let modes = modes_at(&chain, &Equilibrium::hanging(2)).unwrap();
    let s = modes.shapes.column(0).into_owned() / modes.shapes.column(0).amax();
    let guess = Guess {
        x0: vec![0.3 * s[0], 0.3 * s[1], 0.0, 0.0],
        period: 2.0 * PI / modes.omega2[0].sqrt(),
    };
    let energy = chain.energy(0.0, &guess.x0);
    let opts = ShootingOptions {
        tolerance: 1e-12,
        ..tight()
    };
    let o = find(
        &chain,
        &guess,
        Closure::Energy(energy),
        &opts,
        &Cancel::never(),
    )
    .unwrap();
    let r = &o.residuals;
    eprintln!("residuals {r:?}");
    assert!(r.len() >= 3, "{r:?}");
    let tail: Vec<&[f64]> = r
        .windows(2)
        .filter(|p| p[0] < 1e-2 && p[1] > 1e-13)
        .collect();
    assert!(!tail.is_empty(), "{r:?}");
    for p in tail {
        assert!(p[1] <= 50.0 * p[0] * p[0], "not quadratic: {r:?}");
    }
    exact_checks(&o, "large-amplitude in-phase orbit");
}

/// The monodromy from the tangent flow agrees with central differences of the flow.
#[test]
fn monodromy_agrees_with_finite_differences() {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0), Link::rod(0.7, 0.5)]);
    p.gravity = G;
    p.damping.absolute = vec![0.1, 0.05];
    let chain = Chain::new(p).unwrap();
    let method = Method::Dop853 {
        rtol: 1e-13,
        atol: 1e-13,
        h_max: f64::INFINITY,
    };
    let x0 = [0.9, -0.4, 0.3, 1.1];
    let t = 2.3;
    let base = propagate(&chain, &method, 0.0, &x0, t, 64, &mut Silent).unwrap();
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for c in 0..4 {
        let mut xp = x0;
        let mut xm = x0;
        xp[c] += h;
        xm[c] -= h;
        let fp = propagate(&chain, &method, 0.0, &xp, t, 8, &mut Silent).unwrap();
        let fm = propagate(&chain, &method, 0.0, &xm, t, 8, &mut Silent).unwrap();
        for r in 0..4 {
            let fd = (fp.x[r] - fm.x[r]) / (2.0 * h);
            worst = worst.max((fd - base.jacobian[(r, c)]).abs());
        }
    }
    assert!(worst < 1e-6, "tangent vs central differences: {worst:.2e}");
    // Liouville over an open stretch: det Φ = exp(∫ tr J), the trapezoidal sum converging
    // like h² there (on a closed orbit it is exact to round-off: `exact_checks`).
    let det = base.jacobian.clone().determinant();
    let fine = propagate(&chain, &method, 0.0, &x0, t, 256, &mut Silent).unwrap();
    let (e64, e256) = (
        (det - base.trace_integral.exp()).abs(),
        (det - fine.trace_integral.exp()).abs(),
    );
    assert!(
        (12.0..20.0).contains(&(e64 / e256)),
        "trapezoid errors {e64:.2e}, {e256:.2e}"
    );
}
