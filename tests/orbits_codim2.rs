//! Neimark–Sacker curves and codimension-2 points on bifurcation curves (issue 50): the NS
//! curve of a driven damped double pendulum against one-parameter continuations' located NS
//! points, and the cusp where the driven damped pendulum's two fold curves meet against a
//! bisection in γ on one-parameter continuations (two folds above, none below).

use pendula::analysis::periodic::curve::{continue_curve_with, Codim2};
use pendula::analysis::periodic::{
    continue_branch, continue_curve, find, BifurcationKind, Closure, ContinuationOptions, Curve,
    CurveOptions, Guess, PeriodicError, ShootingOptions,
};
use pendula::model::{Chain, ChainParams, Harmonic, Link, PivotMotion};
use pendula::observe::{Cancel, Silent};
use std::f64::consts::PI;

fn shooting() -> ShootingOptions {
    ShootingOptions {
        rtol: 1e-12,
        atol: 1e-12,
        tolerance: 1e-10,
        ..ShootingOptions::default()
    }
}

/// A torque-driven chain (l = m = g = 1): links' absolute damping `c`, torque A cos ωt on the
/// first link.
fn driven(links: usize, c: f64, w: f64, a: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0); links]);
    p.gravity = 1.0;
    p.damping.absolute = vec![c; links];
    p.drive.torque = Some(Harmonic {
        amplitude: a,
        frequency: w,
        phase: 0.0,
    });
    Chain::new(p).unwrap()
}

fn closure(w: f64) -> Closure {
    Closure::Driven {
        drive_period: 2.0 * PI / w,
        k: 1,
    }
}

/// The period-1 orbit of `chain` near `x0`.
fn orbit_at(chain: &Chain, x0: Vec<f64>, w: f64) -> pendula::analysis::periodic::PeriodicOrbit {
    find(
        chain,
        &Guess {
            x0,
            period: 2.0 * PI / w,
        },
        closure(w),
        &shooting(),
        &Cancel::never(),
    )
    .unwrap()
}

/// The double pendulum's damping.
const C2: f64 = 0.05;

/// p = (A, ω) for the double pendulum.
fn double_family(p: [f64; 2]) -> Result<(Chain, Closure), PeriodicError> {
    Ok((driven(2, C2, p[1], p[0]), closure(p[1])))
}

/// The one-parameter branch in A at ω from the orbit near `x0` at `a0`, over [lo, hi].
fn branch_in_a(
    w: f64,
    x0: Vec<f64>,
    a0: f64,
    lo: f64,
    hi: f64,
    step: f64,
) -> Vec<(BifurcationKind, f64)> {
    let family = move |a: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((driven(2, C2, w, a), closure(w)))
    };
    let start = orbit_at(&driven(2, C2, w, a0), x0, w);
    let opts = ContinuationOptions {
        min: lo,
        max: hi,
        points: 2000,
        step,
        max_step: 4.0 * step,
        locate_tolerance: 1e-11,
        ..ContinuationOptions::default()
    };
    let b = continue_branch(&family, &start, a0, &shooting(), &opts, &mut Silent).unwrap();
    b.bifurcations
        .iter()
        .map(|b| (b.kind, b.parameter))
        .collect()
}

/// The criticality of the NS located on the branch in A at ω from the orbit near `x0` at
/// `a0` (within ±0.05 of it), from its own normal form.
fn ns_criticality(w: f64, x0: Vec<f64>, a0: f64) -> &'static str {
    let family = move |a: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((driven(2, C2, w, a), closure(w)))
    };
    let start = orbit_at(&driven(2, C2, w, a0), x0, w);
    let mut found = None;
    for increasing in [true, false] {
        let opts = ContinuationOptions {
            min: a0 - 0.05,
            max: a0 + 0.05,
            points: 400,
            step: 1e-3,
            max_step: 4e-3,
            locate_tolerance: 1e-11,
            increasing,
            ..ContinuationOptions::default()
        };
        let b = continue_branch(&family, &start, a0, &shooting(), &opts, &mut Silent).unwrap();
        if let Some(ns) = b
            .bifurcations
            .iter()
            .find(|b| b.kind == BifurcationKind::NeimarkSacker)
        {
            found = Some(ns.clone());
            break;
        }
    }
    let ns = found.expect("an NS within ±0.05 in A");
    let nf = ns.normal_form.expect("the NS's normal form");
    eprintln!(
        "NS at ω = {w}, A = {}: d = {} ± {}",
        ns.parameter, nf.coefficient, nf.error
    );
    nf.criticality.map_or("undetermined", |c| c.name())
}

/// The NS of the double pendulum's period-1 branch at ω = 0.7 (continued in A from rest;
/// the branch folds twice before it): A and the orbit.
fn ns_start() -> (f64, Vec<f64>) {
    let w = 0.7;
    let family = move |a: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((driven(2, C2, w, a), closure(w)))
    };
    let a0 = 1e-3;
    let start = orbit_at(&driven(2, C2, w, a0), vec![0.0; 4], w);
    let opts = ContinuationOptions {
        min: 0.0,
        max: 0.9,
        points: 400,
        step: 0.01,
        max_step: 0.05,
        locate_tolerance: 1e-11,
        ..ContinuationOptions::default()
    };
    let b = continue_branch(&family, &start, a0, &shooting(), &opts, &mut Silent).unwrap();
    let ns = b
        .bifurcations
        .iter()
        .find(|b| b.kind == BifurcationKind::NeimarkSacker)
        .expect("an NS on the branch");
    (ns.parameter, ns.orbit.x0.clone())
}

fn ns_curve(x0: &[f64], p0: [f64; 2], w_box: [f64; 2], step: f64, increasing: bool) -> Curve {
    let opts = CurveOptions {
        min: [0.0, w_box[0]],
        max: [3.0, w_box[1]],
        points: 200,
        step,
        min_step: 1e-9,
        max_step: 2.0 * step,
        increasing,
    };
    continue_curve(
        &double_family,
        BifurcationKind::NeimarkSacker,
        x0,
        p0,
        &shooting(),
        &opts,
        &mut Silent,
    )
    .unwrap()
}

/// |μ| − 1 of the pair whose product is nearest 1.
fn pair_modulus_error(mu: &[[f64; 2]]) -> (f64, f64) {
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for i in 0..mu.len() {
        for j in i + 1..mu.len() {
            let (a, b) = (mu[i], mu[j]);
            let prod = [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
            let d = (prod[0] - 1.0).hypot(prod[1]);
            if d < best.0 {
                best = (d, a[0].hypot(a[1]) - 1.0, 0.5 * (a[0] + b[0]));
            }
        }
    }
    (best.1, best.2)
}

#[test]
fn neimark_sacker_curve_of_the_driven_double_pendulum() {
    let (a_ns, x_ns) = ns_start();
    eprintln!("NS at ω = 0.7: A = {a_ns}");
    let w_box = [0.7, 0.72];
    let c = ns_curve(&x_ns, [a_ns, 0.7], w_box, 0.01, true);
    eprintln!(
        "{} points, ended {}, codim-2 {:?}",
        c.points.len(),
        c.ended,
        c.codim2
    );
    assert_eq!(c.ended, "range");
    assert_eq!(c.points.last().unwrap().parameters[1], w_box[1]);
    // On the circle along the whole curve, κ = cos θ of that pair.
    for p in &c.points {
        let mu: Vec<[f64; 2]> = p
            .orbit
            .floquet
            .multipliers
            .iter()
            .map(|m| [m.re, m.im])
            .collect();
        let (modulus, kappa) = pair_modulus_error(&mu);
        assert!(
            modulus.abs() < 1e-9,
            "|μ| − 1 = {modulus:e} at {:?}",
            p.parameters
        );
        assert!((p.kappa.unwrap() - kappa).abs() < 1e-12);
    }
    // Three points against the one-parameter branch's located NS at their ω.
    let n = c.points.len();
    for p in [&c.points[n / 4], &c.points[n / 2], &c.points[n - 1]] {
        let [a, w] = p.parameters;
        let found = branch_in_a(
            w,
            p.orbit.x0.clone(),
            a - 0.005,
            a - 0.005,
            a + 0.005,
            0.001,
        );
        let ns: Vec<f64> = found
            .iter()
            .filter(|b| b.0 == BifurcationKind::NeimarkSacker)
            .map(|b| b.1)
            .collect();
        eprintln!("ω = {w}: curve A = {a}, branch NS {ns:?}");
        assert_eq!(ns.len(), 1, "{found:?}");
        assert!((ns[0] - a).abs() < 1e-8, "ω = {w}: {} vs {a}", ns[0]);
    }
    // Half the step: the same end; walked back from the end: the same start.
    let half = ns_curve(&x_ns, [a_ns, 0.7], w_box, 0.005, true);
    let (e1, e2) = (
        c.points.last().unwrap().parameters,
        half.points.last().unwrap().parameters,
    );
    assert!(half.points.len() > c.points.len());
    assert_eq!(e2[1], w_box[1]);
    assert!((e1[0] - e2[0]).abs() < 1e-8, "{e1:?} vs {e2:?}");
    let last = c.points.last().unwrap();
    let back = ns_curve(&last.orbit.x0, last.parameters, w_box, 0.01, false);
    let b = back.points.last().unwrap().parameters;
    eprintln!("step halving {e1:?} vs {e2:?}; back {b:?} vs ({a_ns}, 0.7)");
    assert_eq!(b[1], 0.7);
    assert!((b[0] - a_ns).abs() < 1e-8, "{b:?} vs {a_ns}");
}

/// θ̈ + δθ̇ + sin θ = γ cos ωt, δ = 0.1: p = (ω, γ).
const DELTA: f64 = 0.1;

fn pendulum_family(p: [f64; 2]) -> Result<(Chain, Closure), PeriodicError> {
    Ok((driven(1, DELTA, p[0], p[1]), closure(p[0])))
}

/// The folds of the pendulum's period-1 branch in ω ∈ [lo, hi] at γ, from the orbit near
/// `x0` at lo.
fn folds_in_omega(g: f64, x0: Vec<f64>, lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let family = move |w: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((driven(1, DELTA, w, g), closure(w)))
    };
    let start = orbit_at(&driven(1, DELTA, lo, g), x0, lo);
    let opts = ContinuationOptions {
        min: lo,
        max: hi,
        points: 100_000,
        step,
        max_step: step,
        locate_tolerance: 1e-12,
        ..ContinuationOptions::default()
    };
    let b = continue_branch(&family, &start, lo, &shooting(), &opts, &mut Silent).unwrap();
    assert_eq!(b.ended, "range");
    b.bifurcations
        .iter()
        .filter(|b| b.kind == BifurcationKind::Fold)
        .map(|b| b.parameter)
        .collect()
}

#[test]
fn the_resonance_folds_meet_at_a_cusp() {
    let g0 = 0.15;
    // The two folds of the hysteresis at γ = 0.15.
    let seed = vec![0.0, 0.0];
    let start = orbit_at(&driven(1, DELTA, 0.5, g0), seed, 0.5);
    let folds = folds_in_omega(g0, start.x0.clone(), 0.5, 1.2, 0.01);
    assert_eq!(folds.len(), 2, "{folds:?}");
    let (w_hi, w_lo) = (folds[0].max(folds[1]), folds[0].min(folds[1]));
    // The upper fold's orbit: re-found at the located ω from the branch near it.
    let family = move |w: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((driven(1, DELTA, w, g0), closure(w)))
    };
    let opts = ContinuationOptions {
        min: 0.5,
        max: 1.2,
        points: 600,
        step: 0.01,
        max_step: 0.01,
        locate_tolerance: 1e-12,
        ..ContinuationOptions::default()
    };
    let b = continue_branch(&family, &start, 0.5, &shooting(), &opts, &mut Silent).unwrap();
    let f = b
        .bifurcations
        .iter()
        .find(|b| b.kind == BifurcationKind::Fold && b.parameter == w_hi)
        .unwrap();
    let copts = CurveOptions {
        min: [0.3, 0.09],
        max: [1.2, g0],
        points: 300,
        step: 0.01,
        min_step: 1e-9,
        max_step: 0.02,
        increasing: false,
    };
    let c = continue_curve(
        &pendulum_family,
        BifurcationKind::Fold,
        &f.orbit.x0,
        [w_hi, g0],
        &shooting(),
        &copts,
        &mut Silent,
    )
    .unwrap();
    eprintln!(
        "{} points, ended {}, codim-2 {:#?}",
        c.points.len(),
        c.ended,
        c.codim2
    );
    let cusps: Vec<&Codim2> = c.codim2.iter().filter(|c| c.kind == "cusp").collect();
    assert_eq!(cusps.len(), 1);
    let cusp = cusps[0];
    assert!(!cusp.stops);
    // On along the other fold curve, back up to γ = 0.15 at the lower fold.
    assert_eq!(c.ended, "range");
    let end = c.points.last().unwrap().parameters;
    assert_eq!(end[1], g0);
    assert!(
        (end[0] - w_lo).abs() < 1e-8,
        "{end:?} vs the lower fold {w_lo}"
    );
    // The independent route: one-parameter continuations in ω about the cusp's ω, two folds
    // at γ above the cusp and none below, bisected in γ.
    let [wc, gc] = cusp.parameters;
    let count = |g: f64| {
        // From the small orbit at ω = 0.5 (the only one there) up to the window, then finely.
        let lo = wc - 0.003;
        let family = move |w: f64| -> Result<(Chain, Closure), PeriodicError> {
            Ok((driven(1, DELTA, w, g), closure(w)))
        };
        let small = orbit_at(&driven(1, DELTA, 0.5, g), vec![0.0, 0.0], 0.5);
        let opts = ContinuationOptions {
            min: 0.5,
            max: lo,
            points: 1000,
            step: 0.01,
            max_step: 0.01,
            locate: false,
            ..ContinuationOptions::default()
        };
        let b = continue_branch(&family, &small, 0.5, &shooting(), &opts, &mut Silent).unwrap();
        let p = b.points.iter().rev().find(|p| p.parameter <= lo).unwrap();
        folds_in_omega(g, p.orbit.x0.clone(), p.parameter, wc + 0.003, 1e-4).len()
    };
    let (mut below, mut above) = (gc - 1.3e-4, gc + 0.7e-4);
    assert_eq!(count(below), 0);
    assert_eq!(count(above), 2);
    while above - below > 2e-6 {
        let mid = 0.5 * (above + below);
        match count(mid) {
            0 => below = mid,
            2 => above = mid,
            k => panic!("{k} folds at γ = {mid}"),
        }
    }
    eprintln!(
        "cusp: detector γ = {gc} ± {:.1e} (ω = {wc}), bisection γ ∈ [{below}, {above}]",
        cusp.uncertainty[1]
    );
    assert!(
        gc > below - 1e-6 && gc < above + 1e-6,
        "{gc} vs [{below}, {above}]"
    );
}

/// The normal-form hook: a coefficient the caller gives is a test function like the others,
/// its zero located and written (here p₂ − 0.1 on the vibrated pendulum's first Mathieu
/// tongue edge, a period-doubling curve: the "degenerate flip" it reports sits at a = 0.1).
#[test]
fn a_normal_form_coefficient_is_located_where_it_vanishes() {
    let family = |p: [f64; 2]| -> Result<(Chain, Closure), PeriodicError> {
        let mut q = ChainParams::new(vec![Link::point(1.0, 1.0)]);
        q.gravity = 9.81;
        q.drive.pivot = Some(PivotMotion {
            x_amplitude: 0.0,
            y_amplitude: p[1],
            frequency: p[0],
            phase: 0.0,
        });
        Ok((Chain::new(q).unwrap(), closure(p[0])))
    };
    let coefficient = |_: BifurcationKind,
                       _: &Chain,
                       _: Closure,
                       _: &[f64],
                       p: [f64; 2],
                       _: &nalgebra::DMatrix<f64>|
     -> Result<f64, PeriodicError> { Ok(p[1] - 0.1) };
    let opts = CurveOptions {
        min: [1.0, 0.04],
        max: [20.0, 0.2],
        points: 400,
        step: 0.05,
        min_step: 1e-9,
        max_step: 0.2,
        increasing: true,
    };
    let c = continue_curve_with(
        &family,
        BifurcationKind::PeriodDoubling,
        &[0.0, 0.0],
        [(4.0 * 9.81f64 / 1.08).sqrt() * 1.002, 0.04],
        &shooting(),
        &opts,
        Some(&coefficient),
        &mut Silent,
    )
    .unwrap();
    eprintln!(
        "{} points, ended {}, {:?}",
        c.points.len(),
        c.ended,
        c.codim2
    );
    assert_eq!(c.ended, "range");
    assert_eq!(c.codim2.len(), 1);
    let d = &c.codim2[0];
    assert_eq!(d.kind, "degenerate-flip");
    assert!((d.parameters[1] - 0.1).abs() < 1e-9, "{d:?}");
    assert!(
        d.bracket <= shooting().tolerance || d.test.abs() < 1e-12,
        "{d:?}"
    );
}

/// The double pendulum's NS curve walked down in ω from 0.7: it meets the fold curve (a real
/// multiplier through +1: fold–NS), passes κ = −½ twice (1:3) and κ = 0 (1:4), and ends at
/// κ = 1 (1:1). Each point checked on a fresh orbit found there: its multipliers.
#[test]
fn strong_resonances_on_the_double_pendulum_ns_curve() {
    let (a_ns, x_ns) = ns_start();
    let opts = CurveOptions {
        min: [0.0, 0.6],
        max: [3.0, 0.7],
        points: 200,
        step: 0.02,
        min_step: 1e-9,
        max_step: 0.05,
        increasing: false,
    };
    let c = continue_curve(
        &double_family,
        BifurcationKind::NeimarkSacker,
        &x_ns,
        [a_ns, 0.7],
        &shooting(),
        &opts,
        &mut Silent,
    )
    .unwrap();
    let kinds: Vec<&str> = c.codim2.iter().map(|c| c.kind).collect();
    eprintln!("{} points, ended {}, {kinds:?}", c.points.len(), c.ended);
    // The Chenciner point: the first Lyapunov coefficient d changes sign (checked below
    // against one-parameter continuations' located NS points on either side).
    assert_eq!(kinds, ["chenciner", "fold-ns", "1:3", "1:3", "1:4", "1:1"]);
    assert!(
        c.ended.starts_with("the codimension-2 point 1:1"),
        "{}",
        c.ended
    );
    assert!(c.codim2.iter().all(|d| d.stops == (d.kind == "1:1")));
    let last = c.points.last().unwrap().parameters;
    assert_eq!(last, c.codim2[5].parameters);
    for d in &c.codim2 {
        let [a, w] = d.parameters;
        let o = orbit_at(&driven(2, C2, w, a), d.x0.clone(), w);
        let mu: Vec<nalgebra::Complex<f64>> =
            o.floquet.multipliers.iter().map(|m| m.complex()).collect();
        let near = |z: nalgebra::Complex<f64>, tol: f64| mu.iter().any(|m| (m - z).norm() < tol);
        let e = |t: f64| nalgebra::Complex::from_polar(1.0, t);
        eprintln!("{} at ({a}, {w}) ± {:?}: {mu:?}", d.kind, d.uncertainty);
        match d.kind {
            // Located to the corrector's tolerance: the pair at e^{±2πi/3}, ±i.
            "1:3" => assert!(near(e(2.0 * PI / 3.0), 1e-8) && near(e(-2.0 * PI / 3.0), 1e-8)),
            "1:4" => assert!(near(e(PI / 2.0), 1e-8) && near(e(-PI / 2.0), 1e-8)),
            // Next to a fold the corrector converges slowly and the bracket stays wider (its
            // width is the stated error bar): a multiplier +1 and the pair on the circle.
            "fold-ns" => {
                assert!(near(nalgebra::Complex::new(1.0, 0.0), 1e-4));
                assert!(mu
                    .iter()
                    .filter(|m| m.im.abs() > 0.1)
                    .all(|m| (m.norm() - 1.0).abs() < 1e-4));
            }
            // The NS located on one-parameter branches in A at ω on either side: d's sign
            // (the criticality) differs, and the pair is on the circle here.
            "chenciner" => {
                assert!(mu
                    .iter()
                    .any(|m| m.im.abs() > 1e-3 && (m.norm() - 1.0).abs() < 1e-8));
                // A zero of d, not a pole (which (I − A)⁻¹ gives next to a fold–NS): d there
                // is small against its values ±2e-3 away in ω (≈ 0.07).
                assert!(d.test.abs() < 1e-4, "d = {} at the point", d.test);
                let sides: Vec<&str> = [-1.0, 1.0]
                    .iter()
                    .map(|s| ns_criticality(w + s * 2e-3, d.x0.clone(), a))
                    .collect();
                eprintln!("chenciner: NS criticality at ω ∓ 2e-3: {sides:?}");
                assert_ne!(sides[0], sides[1]);
            }
            // A double multiplier +1, split as √ of the residual.
            _ => assert_eq!(
                mu.iter().filter(|m| (*m - 1.0).norm() < 3e-3).count(),
                2,
                "{mu:?}"
            ),
        }
    }
}

/// The pendulum (1 kg, 1 m, g = 9.81, damping 0.1 N·m·s) on a pivot a cos Ωt: p = (Ω, a).
fn vibrated(p: [f64; 2]) -> Result<(Chain, Closure), PeriodicError> {
    let mut c = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    c.gravity = 9.81;
    c.damping.absolute = vec![0.1];
    c.drive.pivot = Some(PivotMotion {
        x_amplitude: 0.0,
        y_amplitude: p[1],
        frequency: p[0],
        phase: 0.0,
    });
    Ok((Chain::new(c).unwrap(), closure(p[0])))
}

/// The located period doublings of the hanging state on its branch in Ω ∈ [5.5, 7] at `a`,
/// each with its normal form's criticality ("supercritical"/"subcritical").
fn tongue_edges(a: f64) -> Vec<(f64, &'static str)> {
    let family = move |om: f64| vibrated([om, a]);
    let (chain, c) = vibrated([5.5, a]).unwrap();
    let start = find(
        &chain,
        &Guess {
            x0: vec![0.0, 0.0],
            period: 2.0 * PI / 5.5,
        },
        c,
        &shooting(),
        &Cancel::never(),
    )
    .unwrap();
    let opts = ContinuationOptions {
        min: 5.5,
        max: 7.0,
        points: 400,
        step: 0.005,
        max_step: 0.01,
        locate_tolerance: 1e-11,
        ..ContinuationOptions::default()
    };
    let branch = continue_branch(&family, &start, 5.5, &shooting(), &opts, &mut Silent).unwrap();
    branch
        .bifurcations
        .iter()
        .filter(|b| b.kind == BifurcationKind::PeriodDoubling)
        .map(|b| {
            let nf = b.normal_form.as_ref().unwrap();
            (
                b.parameter,
                nf.criticality.map_or("undetermined", |c| c.name()),
            )
        })
        .collect()
}

/// The damped vibrated pendulum's principal tongue: its lower edge is subcritical at
/// a = 0.05 m and its upper edge supercritical (tests/orbits_normal_form.rs); walked from the
/// lower edge down round the tongue's tip and up the upper edge, the period-doubling curve's
/// cubic coefficient c changes sign once, a degenerate flip, which `continue_curve` locates
/// with its default normal-form hook. Where: next to the tip (measured: 2e-6 above the
/// curve's lowest point in a, on the lower edge). Averaging θ̈ + 2ζθ̇ + (1 − h cos 2ωt) sin θ
/// = 0 says why: the 2-cycles' amplitude r² = 8[(1 − ω²) ∓ S], S = √(h²/4 − 4ζ²ω²), is born
/// at the edges 1 − ω² = ±S with a slope dr²/dω that grows like dS/dω ∝ 1/S, while the
/// multiplier's rate μ′ there falls like S: the amplitude law r² ≈ |μ′/c|·|ω − ω*| then needs
/// c ∝ S², which vanishes where the edges meet (S = 0); the full map moves the zero slightly
/// off the tip. The independent route: one-parameter continuations in Ω at fixed a, each
/// period doubling's own normal form: just above the located point's a the lower edge is still
/// subcritical and the upper supercritical, just below it there is no tongue.
#[test]
fn the_tongue_edge_changes_criticality_at_a_degenerate_flip() {
    let a0 = 0.05;
    let edges = tongue_edges(a0);
    assert_eq!(edges.len(), 2, "{edges:?}");
    assert_eq!((edges[0].1, edges[1].1), ("subcritical", "supercritical"));
    let (chain, c) = vibrated([edges[0].0, a0]).unwrap();
    let x0 = find(
        &chain,
        &Guess {
            x0: vec![0.0, 0.0],
            period: 2.0 * PI / edges[0].0,
        },
        c,
        &shooting(),
        &Cancel::never(),
    )
    .unwrap()
    .x0;
    let curve = continue_curve(
        &vibrated,
        BifurcationKind::PeriodDoubling,
        &x0,
        [edges[0].0, a0],
        &shooting(),
        &CurveOptions {
            min: [5.0, 0.0],
            max: [8.0, 0.08],
            points: 400,
            step: 0.005,
            max_step: 0.01,
            increasing: false,
            ..CurveOptions::default()
        },
        &mut Silent,
    )
    .unwrap();
    let flips: Vec<&Codim2> = curve
        .codim2
        .iter()
        .filter(|c| c.kind == "degenerate-flip")
        .collect();
    for c in &curve.codim2 {
        eprintln!("{} at {:?} ± {:?}", c.kind, c.parameters, c.uncertainty);
    }
    let end = curve.points.last().unwrap().parameters;
    eprintln!(
        "ended {} at {end:?}, {} points",
        curve.ended,
        curve.points.len()
    );
    assert_eq!(flips.len(), 1, "{:?}", curve.codim2);
    let [om_g, a_g] = flips[0].parameters;
    // The tip: the curve's lowest point (its points are 0.005–0.01 apart in arclength).
    let tip = curve
        .points
        .iter()
        .map(|p| p.parameters)
        .min_by(|x, y| x[1].total_cmp(&y[1]))
        .unwrap();
    eprintln!("degenerate flip at Ω = {om_g}, a = {a_g}; the tip's nearest point {tip:?}");
    assert!((a_g - tip[1]).abs() < 1e-4 && (om_g - tip[0]).abs() < 0.02);
    let above = tongue_edges(a_g + 1e-3);
    let below = tongue_edges(a_g - 1e-3);
    eprintln!("above {above:?}, below {below:?}");
    assert_eq!(above.len(), 2);
    assert_eq!((above[0].1, above[1].1), ("subcritical", "supercritical"));
    assert!(above[0].0 < om_g && om_g < above[1].0);
    assert!(below.is_empty());
}
