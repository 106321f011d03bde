//! The error bars of NAFF frequencies (issue 53) against an independent truth: the undriven
//! simple pendulum released from rest at θ₀, whose frequency is ν = π ω₀ / (2K(k)),
//! k = sin(θ₀/2), K by the arithmetic–geometric mean, and whose motion is sampled exactly from
//! Jacobi's elliptic functions (sin(θ/2) = k sn(K − ω₀t), θ̇ = −2kω₀ cn(K − ω₀t), sn and cn by
//! the descending Landen/AGM scheme, Abramowitz & Stegun 16.4): no integrator is involved, so
//! what is measured is NAFF's error and its estimate alone.

use ndarray::Array2;
use pendula::analysis::frequency::{FrequencyOptions, FrequencyWorkspace, NaffOptions};
use pendula::analysis::random::SplitMix64;
use std::f64::consts::PI;

#[path = "common/loglog.rs"]
mod loglog;
use loglog::slope;

const W0: f64 = 3.132_091_952_673_165_5; // √9.81

/// The AGM sequence (a_n, c_n) from (1, √(1 − m)), m = k².
fn agm_sequence(m: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut a, mut b, mut c) = (1.0f64, (1.0 - m).sqrt(), m.sqrt());
    let (mut av, mut cv) = (vec![a], vec![c]);
    while c.abs() > 1e-17 && av.len() < 40 {
        (a, b, c) = (0.5 * (a + b), (a * b).sqrt(), 0.5 * (a - b));
        av.push(a);
        cv.push(c);
    }
    (av, cv)
}

/// K(k) = π / (2 AGM(1, √(1 − k²))).
fn elliptic_k(k: f64) -> f64 {
    let (a, _) = agm_sequence(k * k);
    PI / (2.0 * a[a.len() - 1])
}

/// sn(u, k) and cn(u, k) (A&S 16.4.3), u reduced modulo the period 4K first.
fn sn_cn(u: f64, k: f64) -> (f64, f64) {
    let (a, c) = agm_sequence(k * k);
    let kk = elliptic_k(k);
    let u = u.rem_euclid(4.0 * kk);
    let n = a.len() - 1;
    let mut phi = 2f64.powi(n as i32) * a[n] * u;
    for j in (1..=n).rev() {
        phi = 0.5 * (phi + (c[j] / a[j] * phi.sin()).asin());
    }
    (phi.sin(), phi.cos())
}

/// The exact pendulum's θ and θ̇ at t0 + i·dt, i < n.
fn exact(theta0: f64, t0: f64, dt: f64, n: usize) -> (Array2<f64>, Array2<f64>) {
    let k = (theta0 / 2.0).sin();
    let kk = elliptic_k(k);
    let mut th = Array2::zeros((n, 1));
    let mut om = Array2::zeros((n, 1));
    for i in 0..n {
        let t = t0 + i as f64 * dt;
        let (sn, cn) = sn_cn(kk - W0 * t, k);
        th[(i, 0)] = 2.0 * (k * sn).asin();
        om[(i, 0)] = -2.0 * k * W0 * cn;
    }
    (th, om)
}

fn truth(theta0: f64) -> f64 {
    PI * W0 / (2.0 * elliptic_k((theta0 / 2.0).sin()))
}

fn options(terms: usize, window_order: u32) -> FrequencyOptions {
    FrequencyOptions {
        naff: NaffOptions {
            terms,
            window_order,
            ..NaffOptions::default()
        },
        omega_ref: W0,
        fundamentals: 1,
        order: 15,
        tolerance: 1e-7 * W0,
    }
}

/// (ν, its error bar, the true error) of one window of `periods` periods from t0.
fn one(theta0: f64, t0: f64, periods: f64, opts: FrequencyOptions) -> (f64, f64, f64) {
    let nu = truth(theta0);
    let dt = 2.0 * PI / nu / 37.3;
    let n = ((periods * 37.3) as usize) / 2 * 2;
    let (th, om) = exact(theta0, t0, dt, n);
    let mut ws = FrequencyWorkspace::new(n, dt, opts).unwrap();
    let f = ws.analyse(th.view(), om.view(), t0, true);
    (
        f.fundamentals[0],
        f.fundamental_error[0],
        f.fundamentals[0] - nu,
    )
}

/// The exact signal is what it claims: its first sample is θ₀ at rest, its energy is constant
/// to round-off, and θ̇ is the derivative of θ (central differences).
#[test]
fn exact_pendulum_is_exact() {
    let th0 = 1.0;
    let (th, om) = exact(th0, 0.0, 1e-4, 2001);
    assert!((th[(0, 0)] - th0).abs() < 1e-14 && om[(0, 0)].abs() < 1e-14);
    let e0 = -W0 * W0 * th0.cos();
    for i in 1..2000 {
        let e = 0.5 * om[(i, 0)].powi(2) - W0 * W0 * th[(i, 0)].cos();
        assert!((e - e0).abs() < 1e-12, "{i}: {e} vs {e0}");
        let d = (th[(i + 1, 0)] - th[(i - 1, 0)]) / 2e-4;
        assert!((d - om[(i, 0)]).abs() < 1e-6, "{i}: {d} vs {}", om[(i, 0)]);
    }
}

/// Coverage over 100 windows (random start in [0, 50] s, length 20 to 200 periods, θ₀ in
/// [0.5, 2]): how often the true error is within the stated error bar, for one term (the
/// frequency carries the window leakage of the lines not extracted: the window law's regime)
/// and for the frequencies kind's ten polished terms.
#[test]
fn error_bars_cover_the_elliptic_frequency() {
    for (terms, p) in [(1usize, 1u32), (10, 1), (1, 2)] {
        let mut rng = SplitMix64(53 + terms as u64 + 100 * p as u64);
        let mut inside = 0;
        let mut ratios = Vec::new();
        for _ in 0..100 {
            let t0 = 50.0 * rng.next_f64();
            let periods = 20.0 * 10f64.powf(rng.next_f64());
            let th0 = 0.5 + 1.5 * rng.next_f64();
            let (_, err, e) = one(th0, t0, periods, options(terms, p));
            if e.abs() <= err {
                inside += 1;
            }
            ratios.push(e.abs() / err);
        }
        ratios.sort_by(f64::total_cmp);
        eprintln!(
            "terms {terms}, p = {p}: {inside}/100 within the bar; |error|/bar median {:.3}, 90 % {:.3}, max {:.3}",
            ratios[50], ratios[90], ratios[99]
        );
        if terms == 10 {
            // The kind's configuration: the bar (mostly the round-off floor) bounds the error.
            assert!(inside >= 90, "{inside}/100");
        } else {
            // The window law's regime: the bar is the error's size, not a bound (the error
            // oscillates with T; README "Error bars" states the measured coverage).
            assert!(
                ratios[50] > 0.1 && ratios[50] < 10.0,
                "median ratio {}",
                ratios[50]
            );
        }
    }
}

/// The error bars shrink as the window law promises: log(bar) against log T over 20..200
/// periods (one term, p = 1 and 2), the envelope (largest bar in each of 8 bands) against
/// −(2p+2); the true errors' envelope beside it.
#[test]
fn error_bars_shrink_with_the_window_law() {
    for p in [1u32, 2] {
        let th0 = 1.0;
        let (mut ts, mut bars, mut errs) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..8 {
            let (mut bt, mut bb, mut be) = (0.0, 0.0f64, 0.0f64);
            for i in 0..6 {
                let periods = 20.0 * 10f64.powf((b * 6 + i) as f64 / 48.0);
                let (_, bar, e) = one(th0, 0.0, periods, options(1, p));
                if bar > bb {
                    (bt, bb) = (periods, bar);
                }
                be = be.max(e.abs());
            }
            ts.push(bt);
            bars.push(bb);
            errs.push(be);
        }
        let (sb, se) = (slope(&ts, &bars), slope(&ts, &errs));
        let law = -(2.0 * p as f64 + 2.0);
        eprintln!(
            "p = {p}: slope of the bars {sb:.2}, of the true errors {se:.2}, law {law}; bars {:.1e} .. {:.1e}",
            bars[0], bars[7]
        );
        if p == 1 {
            assert!((sb - law).abs() < 0.5, "slope {sb}");
            assert!((se - law).abs() < 0.5, "slope {se}");
        }
    }
}
