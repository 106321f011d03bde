//! Frequency analysis (NAFF) of integrated chains against closed forms computed here by an
//! independent route: the pendulum's period by the arithmetic–geometric mean, the double
//! pendulum's normal modes by their small-angle formula.
//!
//! Trajectories come from `simulate` with DOP853 at rtol = atol = 1e-13 and dense output, which
//! keeps the phase error after a thousand periods far below the asserted tolerances.

use ndarray::s;
use pendula::analysis::frequency::{FrequencyOptions, FrequencyWorkspace, NaffOptions};
use pendula::analysis::modes::{modes_at, Equilibrium};
use pendula::analysis::{simulate, SimulateOptions, Trajectory};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use std::f64::consts::PI;

const G: f64 = 9.81;

/// The arithmetic–geometric mean.
fn agm(mut a: f64, mut b: f64) -> f64 {
    // Quadratic convergence: a handful of steps; the means can end one ulp apart for good.
    for _ in 0..64 {
        if (a - b).abs() <= 4.0 * f64::EPSILON * a {
            break;
        }
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    a
}

/// The complete elliptic integral of the first kind K(k), modulus k: π / (2 AGM(1, √(1 − k²))).
fn elliptic_k(k: f64) -> f64 {
    PI / (2.0 * agm(1.0, (1.0 - k * k).sqrt()))
}

fn run(chain: &Chain, x0: &[f64], t_end: f64, dt_out: f64) -> Trajectory {
    let method = Method::Dop853 {
        rtol: 1e-13,
        atol: 1e-13,
        h_max: f64::INFINITY,
    };
    let opts = SimulateOptions { t_end, dt_out };
    simulate(chain, &method, x0, &opts, &mut Silent).unwrap()
}

fn lowest_mode(chain: &Chain) -> f64 {
    modes_at(chain, &Equilibrium::hanging(chain.links()))
        .unwrap()
        .frequencies()[0]
}

fn options(omega_ref: f64, fundamentals: usize) -> FrequencyOptions {
    FrequencyOptions {
        naff: NaffOptions::default(),
        omega_ref,
        fundamentals,
        order: 6,
        tolerance: 1e-7 * omega_ref,
    }
}

/// Analyses a trajectory with an even number of samples (the last one dropped if needed).
fn analyse(
    tr: &Trajectory,
    opts: FrequencyOptions,
) -> pendula::analysis::frequency::OrbitFrequencies {
    let n = tr.len() / 2 * 2;
    let dt = tr.t[1] - tr.t[0];
    let mut ws = FrequencyWorkspace::new(n, dt, opts).unwrap();
    ws.analyse(
        tr.theta.slice(s![..n, ..]),
        tr.omega.slice(s![..n, ..]),
        tr.t[0],
        true,
    )
}

/// θ₀ = 1 rad from rest: ν = π√(g/ℓ) / (2K(sin(θ₀/2))) to 1e-10 relative over 1 000 periods.
#[test]
fn simple_pendulum_frequency_matches_the_elliptic_integral() {
    let chain = Chain::new(ChainParams::equal_points(1)).unwrap();
    let w0 = (G / 1.0f64).sqrt();
    let theta0 = 1.0f64;
    let nu = PI * w0 / (2.0 * elliptic_k((theta0 / 2.0).sin()));
    let period = 2.0 * PI / nu;
    let tr = run(&chain, &[theta0, 0.0], 1000.0 * period, period / 40.0);
    // Order 15: the ten lines reach the 9th harmonic and beyond.
    let mut opts = options(lowest_mode(&chain), 1);
    opts.order = 15;
    let f = analyse(&tr, opts);
    let got = f.fundamentals[0];
    let rel = (got - nu) / nu;
    eprintln!(
        "pendulum: ν = {got:.15} vs {nu:.15}: {rel:e}; diffusion index {:.2}",
        f.diffusion_index
    );
    assert!(rel.abs() < 1e-10, "relative error {rel:e}");
    // The leading line is the fundamental itself; the other lines are its odd harmonics and
    // their mirrors (the potential is even), each identified with a small residual.
    let lines = &f.links[0].lines;
    assert!((lines[0].frequency - nu).abs() < 1e-10 * nu);
    for l in lines.iter().filter(|l| l.amplitude > 1e-6) {
        let c = l.combination.as_ref().expect("every line explained");
        let k = c.k[0];
        assert!(k % 2 != 0, "even harmonic {k} at amplitude {}", l.amplitude);
        assert!(c.residual.abs() < 1e-8 * nu, "{l:?}");
    }
    // A regular orbit: the two halves agree to far better than the index of chaos.
    assert!(f.diffusion_index < -8.0, "{}", f.diffusion_index);
}

/// A circulating pendulum (θ̇₀ = 2ω₀/k at θ = 0, k = 0.8): the signal is e^{iθ}, whose leading
/// line is the mean rotation rate ν = π θ̇₀ / (2K(k)) (one revolution takes 4K(k)/θ̇₀).
#[test]
fn circulating_pendulum_turns_at_its_mean_rate() {
    let chain = Chain::new(ChainParams::equal_points(1)).unwrap();
    let w0 = G.sqrt();
    let k = 0.8;
    let v = 2.0 * w0 / k;
    let nu = PI * v / (2.0 * elliptic_k(k));
    let period = 2.0 * PI / nu;
    let tr = run(&chain, &[0.0, v], 500.0 * period, period / 40.0);
    let f = analyse(&tr, options(lowest_mode(&chain), 1));
    assert_eq!(
        f.links[0].signal,
        pendula::analysis::frequency::SignalKind::Circulation
    );
    let rel = (f.fundamentals[0] - nu) / nu;
    eprintln!("rotation: {rel:e}");
    assert!(rel.abs() < 1e-10, "relative error {rel:e}");
}

/// The two fundamentals of the equal double pendulum (ℓ = 1, m = 1) released at θ = (ε, 0)
/// (both modes excited): the linear frequencies ω² = (g/ℓ)(2 ∓ √2) plus a nonlinear shift of
/// second order in the amplitude. Asserted: the shift is below ε² relative, and halving ε divides
/// it by 4 (to 5 %), so the limit ε → 0 is the linear frequency.
#[test]
fn double_pendulum_linear_frequencies() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let linear = [
        (G * (2.0 - 2f64.sqrt())).sqrt(),
        (G * (2.0 + 2f64.sqrt())).sqrt(),
    ];
    let w_ref = lowest_mode(&chain);
    assert!((w_ref - linear[0]).abs() < 1e-12 * linear[0]);
    let slow = 2.0 * PI / linear[0];
    let mut shifts = Vec::new();
    for eps in [0.02, 0.01] {
        let tr = run(&chain, &[eps, 0.0, 0.0, 0.0], 500.0 * slow, 0.05);
        let f = analyse(&tr, options(w_ref, 2));
        assert_eq!(f.fundamentals.len(), 2);
        let shift: Vec<f64> = (0..2)
            .map(|i| (f.fundamentals[i] - linear[i]) / linear[i])
            .collect();
        eprintln!(
            "ε = {eps}: relative shifts {shift:?}, index {:.2}",
            f.diffusion_index
        );
        for s in &shift {
            assert!(s.abs() < eps * eps, "ε = {eps}: shift {s:e}");
        }
        assert!(f.diffusion_index < -8.0);
        shifts.push(shift);
    }
    for i in 0..2 {
        let ratio = shifts[0][i] / shifts[1][i];
        assert!((ratio - 4.0).abs() < 0.2, "mode {i}: shift ratio {ratio}");
    }
}
