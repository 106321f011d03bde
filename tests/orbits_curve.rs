//! Bifurcation curves in two parameters (issue 50): the stability boundaries of the hanging
//! and the upright pendulum on a vertically vibrated pivot, continued in (Ω, a) from the
//! trivial orbit θ ≡ 0 or π, against Mathieu's characteristic values computed here on their
//! own (the Fourier–Hill matrices of DLMF 28.6 / Abramowitz–Stegun 20.2, eigenvalues of the
//! truncated symmetric tridiagonal matrices); the curve independent of the step, of the
//! direction it is walked in and of the number of threads.
//!
//! Linearised about θ ≡ 0 (−) or π (+), θ̈ + (±g/l ∓ aΩ²/l cos Ωt) θ = 0 with τ = Ωt/2 is
//! u'' + (a_M − 2q cos 2τ) u = 0, a_M = ±4g/(lΩ²), |q| = 2a/l (docs/textbooks.md; the sign of
//! q swaps a_{2r+1} and b_{2r+1} and leaves the rest). A multiplier −1 over one drive period
//! (τ-period π) is a 2π-periodic Mathieu solution (a_1, b_1, a_3, …), a multiplier +1 a
//! π-periodic one (a_0, b_2, a_2, …).

#[path = "common/mathieu.rs"]
mod mathieu;

use mathieu::characteristic;
use pendula::analysis::periodic::{
    continue_curve, BifurcationKind, Closure, Curve, CurveOptions, PeriodicError, ShootingOptions,
};
use pendula::model::{Chain, ChainParams, Link, PivotMotion};
use pendula::observe::Silent;
use std::f64::consts::PI;

const G: f64 = 9.81;
const L: f64 = 1.0;

#[test]
fn hill_matrices_give_the_tabulated_characteristic_values() {
    // Abramowitz & Stegun table 20.1 (q = 1): a₀ = −0.45513 86, b₁ = −0.11024 88,
    // a₁ = 1.85910 81, b₂ = 3.91702 48, a₂ = 4.37130 10.
    let q = 1.0;
    let t = 40;
    let checks = [
        (characteristic(true, false, q, t)[0], -0.455_138_6),
        (characteristic(false, true, q, t)[0], -0.110_248_8),
        (characteristic(true, true, q, t)[0], 1.859_108_1),
        (characteristic(false, false, q, t)[0], 3.917_024_8),
        (characteristic(true, false, q, t)[1], 4.371_301_0),
    ];
    for (got, table) in checks {
        assert!((got - table).abs() < 1e-7, "{got} vs {table}");
    }
    // Small q: a₀ ≈ −q²/2 + 7q⁴/128, b₁ ≈ 1 − q − q²/8.
    let q = 1e-3;
    let a0 = characteristic(true, false, q, t)[0];
    assert!((a0 - (-q * q / 2.0 + 7.0 * q.powi(4) / 128.0)).abs() < 1e-15);
}

/// The pendulum (point mass, l = 1 m, g = 9.81) on a pivot s(t) = a cos Ωt, undamped.
fn vibrated(omega: f64, a: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, L)]);
    p.gravity = G;
    p.drive.pivot = Some(PivotMotion {
        x_amplitude: 0.0,
        y_amplitude: a,
        frequency: omega,
        phase: 0.0,
    });
    Chain::new(p).unwrap()
}

/// p = (Ω, a): the one-parameter branch varied Ω, the curve starts at fixed a.
fn family(p: [f64; 2]) -> Result<(Chain, Closure), PeriodicError> {
    Ok((
        vibrated(p[0], p[1]),
        Closure::Driven {
            drive_period: 2.0 * PI / p[0],
            k: 1,
        },
    ))
}

fn shooting() -> ShootingOptions {
    ShootingOptions {
        rtol: 1e-13,
        atol: 1e-13,
        tolerance: 1e-11,
        ..ShootingOptions::default()
    }
}

/// Ω where a_M = ±4g/(lΩ²) equals the characteristic value `c`.
fn omega_of(c: f64, upright: bool) -> f64 {
    (4.0 * G / (L * if upright { -c } else { c })).sqrt()
}

/// The boundary a curve follows: which characteristic values (families) and which of them.
#[derive(Clone, Copy, Debug)]
struct Boundary {
    /// Odd harmonics (multiplier −1) or even (+1).
    odd: bool,
    /// Index within the family's ascending values, for the cos and sin series.
    index: usize,
    upright: bool,
}

/// Ω on each characteristic value of `b`'s pair (cos and sin series) at a.
fn predicted(b: Boundary, a: f64) -> [f64; 2] {
    let q = 2.0 * a / L;
    let t = 40;
    [true, false].map(|cos| {
        let idx = if !b.odd && !cos && b.index > 0 {
            b.index - 1
        } else {
            b.index
        };
        omega_of(characteristic(cos, b.odd, q, t)[idx], b.upright)
    })
}

/// Every point of `curve` lies on one characteristic value of `b` (the same one throughout)
/// to `tol` relative in Ω; returns the largest relative deviation.
fn on_boundary(curve: &Curve, b: Boundary, tol: f64) -> f64 {
    let first = curve.points[0].parameters;
    let pr = predicted(b, first[1]);
    let dist = |w: f64| {
        let d = (w - first[0]).abs();
        if d.is_nan() {
            f64::INFINITY
        } else {
            d
        }
    };
    let which = if dist(pr[0]) < dist(pr[1]) { 0 } else { 1 };
    let mut worst = 0.0f64;
    for pt in &curve.points {
        let [omega, a] = pt.parameters;
        let w = predicted(b, a)[which];
        let rel = (omega - w).abs() / w;
        if std::env::var("CURVE_DEBUG").is_ok() {
            eprintln!(
                "x0 {:?} a {a:.6} Ω {omega:.9} pred {w:.9} rel {rel:.2e} g {:.2e} fold {:.2e} flip {:.2e} rcond {:.1e} res {:?} mu {:?}",
                pt.orbit.x0, pt.test, pt.fold_test, pt.flip_test, pt.regularity, pt.orbit.residuals,
                pt.orbit.floquet.multipliers.iter().map(|m| (m.re, m.im)).collect::<Vec<_>>()
            );
        }
        assert!(
            rel < tol,
            "{b:?}: at a = {a}: Ω = {omega} vs Mathieu {w} (relative {rel:.2e})"
        );
        worst = worst.max(rel);
    }
    worst
}

/// The curve of `kind` from the trivial orbit at amplitude `a`, Ω guessed `off` from it.
fn curve(
    kind: BifurcationKind,
    upright: bool,
    omega_guess: f64,
    a: f64,
    opts: &CurveOptions,
) -> Curve {
    let x0 = [if upright { PI } else { 0.0 }, 0.0];
    continue_curve(
        &family,
        kind,
        &x0,
        [omega_guess, a],
        &shooting(),
        opts,
        &mut Silent,
    )
    .unwrap()
}

fn opts(a: [f64; 2], omega: [f64; 2], step: f64, increasing: bool) -> CurveOptions {
    CurveOptions {
        min: [omega[0], a[0]],
        max: [omega[1], a[1]],
        points: 400,
        step,
        min_step: 1e-9,
        max_step: 4.0 * step,
        increasing,
    }
}

#[test]
fn mathieu_boundaries_of_the_hanging_and_upright_pendulum() {
    let cases = [
        // The first tongue of parametric resonance, Ω ≈ 2ω₀: a multiplier −1 on a₁ and b₁.
        (
            "hanging a1/b1 (cos)",
            BifurcationKind::PeriodDoubling,
            Boundary {
                odd: true,
                index: 0,
                upright: false,
            },
            0,
        ),
        (
            "hanging a1/b1 (sin)",
            BifurcationKind::PeriodDoubling,
            Boundary {
                odd: true,
                index: 0,
                upright: false,
            },
            1,
        ),
        // The second tongue, Ω ≈ ω₀: a multiplier +1 on b₂ and a₂ (a branch point: the
        // trivial orbit persists, the symmetric pair of period-1 orbits is born).
        (
            "hanging b2",
            BifurcationKind::Fold,
            Boundary {
                odd: false,
                index: 1,
                upright: false,
            },
            1,
        ),
        (
            "hanging a2",
            BifurcationKind::Fold,
            Boundary {
                odd: false,
                index: 1,
                upright: false,
            },
            0,
        ),
        // The Kapitza window's lower edge: a₀ (multiplier +1).
        (
            "upright a0",
            BifurcationKind::Fold,
            Boundary {
                odd: false,
                index: 0,
                upright: true,
            },
            0,
        ),
    ];
    for (name, kind, b, series) in cases {
        let (a_lo, a_hi) = (0.04, 0.25);
        let guess = predicted(b, a_lo)[series] * 1.002;
        let o = if b.upright {
            opts([a_lo, a_hi], [5.0, 200.0], 1.0, true)
        } else {
            opts([a_lo, a_hi], [1.0, 20.0], 0.05, true)
        };
        let c = curve(kind, b.upright, guess, a_lo, &o);
        eprintln!("{name}: {:?}", c.kind);
        let worst = on_boundary(&c, b, 1e-8);
        let last = c.points.last().unwrap().parameters;
        eprintln!(
            "{name}: {:?}, {} points, ended {}, a ∈ [{a_lo}, {}], worst relative Ω {worst:.2e}",
            c.kind,
            c.points.len(),
            c.ended,
            last[1]
        );
        assert_eq!(c.ended, "range", "{name}");
        assert_eq!(last[1], a_hi, "{name}: reaches the range's end in a");
        let expected = if b.odd {
            BifurcationKind::PeriodDoubling
        } else {
            BifurcationKind::BranchPoint
        };
        assert_eq!(c.kind, expected, "{name}");
        for p in &c.points {
            let t = if b.odd { p.flip_test } else { p.fold_test };
            assert!(
                t.abs() < 1e-8,
                "{name}: test function {t} at {:?}",
                p.parameters
            );
        }
    }
    // The window's upper edge: b₁ < 0 (a multiplier −1) needs q ≳ 0.91, a ≳ 0.46 m.
    let b = Boundary {
        odd: true,
        index: 0,
        upright: true,
    };
    let (a_lo, a_hi) = (0.55, 0.9);
    let pr = predicted(b, a_lo);
    let series = usize::from(!pr[0].is_finite());
    let c = curve(
        BifurcationKind::PeriodDoubling,
        true,
        pr[series] * 1.002,
        a_lo,
        &opts([a_lo, a_hi], [1.0, 60.0], 0.2, true),
    );
    let worst = on_boundary(&c, b, 1e-8);
    eprintln!(
        "upright b1: {} points, ended {}, worst relative Ω {worst:.2e}",
        c.points.len(),
        c.ended
    );
    assert_eq!(c.ended, "range");
}

/// The first tongue's a₁ edge walked with two steps and back from its far end: the same end
/// points (each landed on the range's edge in a) to 1e-9 relative.
#[test]
fn a_curve_does_not_depend_on_step_or_direction() {
    let b = Boundary {
        odd: true,
        index: 0,
        upright: false,
    };
    let (a_lo, a_hi) = (0.04, 0.2);
    let guess = predicted(b, a_lo)[0];
    let kind = BifurcationKind::PeriodDoubling;
    let coarse = curve(
        kind,
        false,
        guess,
        a_lo,
        &opts([a_lo, a_hi], [1.0, 20.0], 0.1, true),
    );
    let fine = curve(
        kind,
        false,
        guess,
        a_lo,
        &opts([a_lo, a_hi], [1.0, 20.0], 0.01, true),
    );
    let end = |c: &Curve| c.points.last().unwrap().parameters;
    let (ec, ef) = (end(&coarse), end(&fine));
    assert!(fine.points.len() > coarse.points.len() + 5);
    assert_eq!((ec[1], ef[1]), (a_hi, a_hi));
    assert!((ec[0] - ef[0]).abs() / ef[0] < 1e-9, "{ec:?} vs {ef:?}");
    // Back down from the far end.
    let back = curve(
        kind,
        false,
        ef[0],
        a_hi,
        &opts([a_lo, a_hi], [1.0, 20.0], 0.03, false),
    );
    let eb = back.points.last().unwrap().parameters;
    let start = coarse.points[0].parameters;
    assert_eq!(eb[1], a_lo);
    assert!(
        (eb[0] - start[0]).abs() / start[0] < 1e-9,
        "{eb:?} vs {start:?}"
    );
    // Each point of the way back lies on the way up: between two of its points, Ω(a) is
    // within the interpolation's error of the fine curve's (checked against Mathieu above).
    on_boundary(&back, b, 1e-8);
}

#[test]
fn one_and_two_threads_give_the_same_curve() {
    let b = Boundary {
        odd: true,
        index: 0,
        upright: false,
    };
    let guess = predicted(b, 0.04)[1];
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                curve(
                    BifurcationKind::PeriodDoubling,
                    false,
                    guess,
                    0.04,
                    &opts([0.04, 0.15], [1.0, 20.0], 0.05, true),
                )
            })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.points.len(), two.points.len());
    for (a, b) in one.points.iter().zip(&two.points) {
        assert_eq!(
            a.parameters.map(f64::to_bits),
            b.parameters.map(f64::to_bits)
        );
        assert_eq!(a.test.to_bits(), b.test.to_bits());
    }
}
