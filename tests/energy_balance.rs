//! The energy balance `E − E₀ − W` that every drift report uses (`analysis::EnergyBalance`):
//! for damped and driven chains the Lyapunov analyses integrate the work W with the state, so
//! their reported drift is the integrator's error and not the (large) work of damping and
//! drive; and W itself agrees with independent routes — the quadrature of −Σ γ_j θ̇_j² over a
//! sampled trajectory, and the closed form for a driven free rotor.

use pendula::analysis::lyapunov::{
    chain_spectrum, chain_two_trajectory, Lyapunov, LyapunovOptions, TwoTrajectoryOptions,
};
use pendula::analysis::{simulate, EnergyBalance, SimulateOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, Link, System};
use pendula::observe::Silent;

fn dop853(tol: f64) -> Method {
    Method::Dop853 {
        rtol: tol,
        atol: tol,
        h_max: f64::INFINITY,
    }
}

/// The double pendulum of `analyses/damped-double-pendulum-spectrum.toml`: absolute and joint
/// damping and a torque drive on link 1.
fn damped_driven() -> Chain {
    let mut p = ChainParams::equal_points(2);
    p.damping = Damping {
        absolute: vec![0.05; 2],
        joint: vec![0.02; 2],
    };
    p.drive = Drive {
        torque: Some(Harmonic {
            amplitude: 10.0,
            frequency: 2.0,
            phase: 0.0,
        }),
        pivot: None,
    };
    Chain::new(p).unwrap()
}

fn opts(transient: f64, time: f64) -> LyapunovOptions {
    LyapunovOptions {
        tau: 0.05,
        transient,
        time,
        ..Default::default()
    }
}

/// Every estimator and route (QR spectrum, one tangent vector, two trajectories; DOP853, RK4
/// and Gauss–Legendre in canonical coordinates) reports a balance that closes to its
/// integrator's accuracy, while E changed by tens of joules.
#[test]
fn lyapunov_of_a_damped_driven_chain_reports_the_balance_not_the_energy_change() {
    let chain = damped_driven();
    let x0 = [1.0, 0.5, 0.0, 0.0];
    let o = opts(5.0, 20.0);
    let gauss = Method::Gauss {
        dt: 1e-3,
        stages: 3,
    };
    let rk4 = Method::Rk4 { dt: 1e-3 };
    let runs: Vec<(&str, Lyapunov, f64)> = vec![
        (
            "spectrum dop853 1e-12",
            chain_spectrum(&chain, &dop853(1e-12), &x0, &o, &mut Silent).unwrap(),
            1e-9,
        ),
        (
            "spectrum gauss",
            chain_spectrum(&chain, &gauss, &x0, &o, &mut Silent).unwrap(),
            1e-9,
        ),
        (
            "tangent rk4",
            chain_spectrum(
                &chain,
                &rk4,
                &x0,
                &LyapunovOptions { k: Some(1), ..o },
                &mut Silent,
            )
            .unwrap(),
            1e-7,
        ),
        (
            "two-trajectory dop853 1e-12",
            chain_two_trajectory(
                &chain,
                &dop853(1e-12),
                &x0,
                &o,
                &TwoTrajectoryOptions::default(),
                &mut Silent,
            )
            .unwrap(),
            1e-9,
        ),
    ];
    let depth: f64 = 9.81 * 3.0; // g Σ b_j for unit masses on unit rods: b = (2, 1).
    for (label, r, tol) in &runs {
        let e = &r.energy;
        let change = e.last - e.initial;
        eprintln!(
            "{label}: E0 = {:.6}, E = {:.6}, W = {:.6}, drift {:.3e} (max {:.3e} J)",
            e.initial, e.last, e.work, e.relative_drift, e.max_abs_error
        );
        assert!(change.abs() > 10.0, "{label}: E − E0 = {change}");
        assert_eq!(e.scale, depth.max(e.initial.abs()), "{label}");
        assert!(e.relative_drift < *tol, "{label}: {e:?}");
        assert!(e.max_abs_error / e.scale < *tol, "{label}: {e:?}");
        assert!((e.work - change).abs() < tol * e.scale, "{label}: {e:?}");
        assert_eq!(
            e.abs_drift,
            EnergyBalance::new(&chain, e.initial)
                .error(e.last, e.work)
                .abs(),
            "{label}"
        );
    }
    // The same work from two different integrations of the same orbit (DOP853 and Gauss), over
    // 3 s: the orbit is chaotic (λ₁ ≈ 1/s), so over 25 s the two runs part.
    let short = opts(0.0, 3.0);
    let w_dop = chain_spectrum(&chain, &dop853(1e-12), &x0, &short, &mut Silent)
        .unwrap()
        .energy
        .work;
    let w_gauss = chain_spectrum(&chain, &gauss, &x0, &short, &mut Silent)
        .unwrap()
        .energy
        .work;
    assert!(w_dop.abs() > 1.0, "{w_dop}");
    assert!(
        (w_dop - w_gauss).abs() < 1e-9 * depth,
        "{w_dop} vs {w_gauss}"
    );
}

/// Composite Simpson's rule on an even number of equal intervals of width `h`.
fn simpson(f: &[f64], h: f64) -> f64 {
    let m = f.len() - 1;
    assert!(m >= 2 && m.is_multiple_of(2));
    let inner: f64 = (1..m)
        .map(|i| if i % 2 == 1 { 4.0 * f[i] } else { 2.0 * f[i] })
        .sum();
    (f[0] + f[m] + inner) * h / 3.0
}

/// Pure absolute damping: W(T) = −Σ_j γ_j ∫₀ᵀ θ̇_j² dt, computed by Simpson's rule from a
/// trajectory sampled every millisecond, equals the work integrated with the state by simulate
/// and by the Lyapunov spectrum (each its own integration), and closes E(T) − E(0).
#[test]
fn damping_work_matches_the_quadrature_of_the_sampled_trajectory() {
    let gamma = [0.3, 0.2];
    let mut p = ChainParams::equal_points(2);
    p.damping = Damping {
        absolute: gamma.to_vec(),
        joint: vec![0.0; 2],
    };
    let chain = Chain::new(p).unwrap();
    let x0 = [2.0, 2.0, 0.0, 0.0];
    let t_end = 10.0;
    let h = 1e-3;
    let tr = simulate(
        &chain,
        &dop853(1e-12),
        &x0,
        &SimulateOptions { t_end, dt_out: h },
        &mut Silent,
    )
    .unwrap();
    assert_eq!(tr.len(), 10_001);
    let quadrature: f64 = (0..2)
        .map(|j| {
            let w2: Vec<f64> = tr.omega.column(j).iter().map(|w| w * w).collect();
            -gamma[j] * simpson(&w2, h)
        })
        .sum();
    let w_sim = *tr.work.last().unwrap();
    let e0 = tr.energy[0];
    eprintln!("E0 = {e0}, W: quadrature {quadrature}, simulate {w_sim}");
    // Damping takes a good part of the energy, so W = 0 would fail every check below.
    assert!(quadrature < -0.2 * e0.abs(), "{quadrature} vs E0 = {e0}");
    assert!(
        (w_sim - quadrature).abs() < 1e-9 * quadrature.abs(),
        "{w_sim}"
    );
    let e_end = *tr.energy.last().unwrap();
    assert!((e_end - e0 - quadrature).abs() < 1e-9 * tr.energy_scale);
    assert!(
        tr.relative_energy_drift() < 1e-10,
        "{}",
        tr.relative_energy_drift()
    );

    let r = chain_spectrum(
        &chain,
        &dop853(1e-12),
        &x0,
        &LyapunovOptions {
            tau: 0.01,
            transient: 0.0,
            time: t_end,
            ..Default::default()
        },
        &mut Silent,
    )
    .unwrap();
    assert!((r.t_end - t_end).abs() < 1e-12, "{}", r.t_end);
    assert!(
        (r.energy.work - quadrature).abs() < 1e-8 * quadrature.abs(),
        "{} vs {quadrature}",
        r.energy.work
    );
    assert!(r.energy.relative_drift < 1e-9, "{:?}", r.energy);
}

/// A free rotor (g = 0, one point link) driven by A cos Ωt from rest: m l² θ̈ = A cos Ωt, so
/// θ̇ = A sin Ωt / (m l² Ω) and W(t) = E(t) = A² sin² Ωt / (2 m l² Ω²), exactly.
#[test]
fn driven_rotor_work_matches_the_closed_form() {
    let (l, m, a, big_omega) = (1.5, 2.0, 3.0, 2.5);
    let mut p = ChainParams::new(vec![Link::point(l, m)]);
    p.gravity = 0.0;
    p.drive.torque = Some(Harmonic {
        amplitude: a,
        frequency: big_omega,
        phase: 0.0,
    });
    let chain = Chain::new(p).unwrap();
    assert!(chain.non_conservative());
    let exact =
        |t: f64| a * a * (big_omega * t).sin().powi(2) / (2.0 * m * l * l * big_omega * big_omega);
    let o = LyapunovOptions {
        tau: 0.01,
        transient: 0.0,
        time: 7.3,
        ..Default::default()
    };
    for method in [
        dop853(1e-12),
        Method::Gauss {
            dt: 1e-3,
            stages: 3,
        },
    ] {
        let r = chain_spectrum(&chain, &method, &[0.0, 0.0], &o, &mut Silent).unwrap();
        let w = exact(r.t_end);
        eprintln!("{}: W = {} (exact {w})", method.name(), r.energy.work);
        assert!(w > 0.05, "{w}");
        assert!(
            (r.energy.work - w).abs() < 1e-10,
            "{}: {:?}",
            method.name(),
            r.energy
        );
        assert!(
            (r.energy.last - w).abs() < 1e-10,
            "{}: {:?}",
            method.name(),
            r.energy
        );
        assert!(r.energy.abs_drift < 1e-10, "{:?}", r.energy);
    }
}

/// A conservative chain carries no work slot, and its drift is the plain E − E₀.
#[test]
fn conservative_chain_balance_is_the_energy_change() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    assert!(!chain.non_conservative());
    let r = chain_spectrum(
        &chain,
        &Method::Rk4 { dt: 1e-2 },
        &[2.0, 2.0, 0.0, 0.0],
        &opts(0.0, 20.0),
        &mut Silent,
    )
    .unwrap();
    let e = &r.energy;
    assert_eq!(e.work, 0.0);
    assert_eq!(e.abs_drift, (e.last - e.initial).abs());
    // RK4 at dt = 0.01 visibly drifts, so this is not a trivially zero comparison.
    assert!(e.abs_drift > 1e-9, "{e:?}");
    assert_eq!(e.relative_drift, e.abs_drift / e.scale);
}
