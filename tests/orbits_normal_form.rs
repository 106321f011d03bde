//! Normal-form coefficients at located bifurcations (issue 50, item 2), each against a route
//! of its own:
//!
//! * the formulas on explicit polynomial maps, conjugated by a linear change of coordinates,
//!   whose coefficients are known in closed form (the centre-manifold reduction by hand, the
//!   planar Neimark–Sacker formula) and whose 2-cycles and invariant circles are found by
//!   Newton and by iteration;
//! * the driven damped pendulum's first period doubling (supercritical) and the vertically
//!   vibrated damped pendulum's hanging state at the lower edge of its principal tongue
//!   (subcritical: the softening nonlinearity bends the doubled branch back out of the
//!   tongue): the predicted side and amplitude law against the doubled branch that
//!   `switch_period_doubling` continues;
//! * a fold of the driven pendulum's resonance curve: the predicted parabola
//!   α − α* ≈ −(a/b)ξ² against the branch's points near it.

use nalgebra::{Complex, DMatrix, DVector};
use pendula::analysis::periodic::{
    continue_branch, find, map_normal_form, propagate, switch_period_doubling, Bifurcation,
    BifurcationKind, Branch, Closure, ContinuationOptions, Criticality, Guess, NormalFormSteps,
    PeriodicError, ShootingOptions,
};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, Harmonic, Link, PivotMotion};
use pendula::observe::{Cancel, Silent};
use std::f64::consts::PI;

type Jet = Result<(DVector<f64>, DMatrix<f64>), PeriodicError>;

/// The linear change of coordinates x = S y every polynomial map is conjugated by.
fn s() -> DMatrix<f64> {
    DMatrix::from_row_slice(2, 2, &[1.0, 0.3, -0.4, 0.8])
}

/// x ↦ S f(S⁻¹x) and its Jacobian S Df S⁻¹, for f and Df given in y.
fn conjugate(x: &[f64], f: impl Fn(&[f64]) -> ([f64; 2], [[f64; 2]; 2])) -> Jet {
    let s = s();
    let si = s.clone().try_inverse().unwrap();
    let y = &si * DVector::from_column_slice(x);
    let (fy, dfy) = f(y.as_slice());
    let df = DMatrix::from_row_slice(2, 2, &[dfy[0][0], dfy[0][1], dfy[1][0], dfy[1][1]]);
    Ok((&s * DVector::from_column_slice(&fy), &s * df * si))
}

/// ‖S e₁‖: the normal-form coefficients scale with the unit eigenvector's length in y.
fn s1() -> f64 {
    s().column(0).norm()
}

/// u ↦ −(1+β)u + αu² + γu³ + σuv, v ↦ λv + κu²: the centre manifold v = κu²/(1 − λ) gives
/// u ↦ −u + αu² + (γ + σκ/(1 − λ))u³, whose second iterate is u ↦ u − 2cu³ with
/// c = γ + σκ/(1 − λ) + α² (in y; c/‖Se₁‖² in x).
fn flip(beta: f64, gamma: f64) -> impl Fn(&[f64], f64) -> Jet + Sync {
    let (al, si, la, ka) = (0.7, 0.9, 0.4, 0.5);
    move |x: &[f64], db: f64| {
        let b = beta + db;
        conjugate(x, |y| {
            let (u, v) = (y[0], y[1]);
            (
                [
                    -(1.0 + b) * u + al * u * u + gamma * u.powi(3) + si * u * v,
                    la * v + ka * u * u,
                ],
                [
                    [
                        -(1.0 + b) + 2.0 * al * u + 3.0 * gamma * u * u + si * v,
                        si * u,
                    ],
                    [2.0 * ka * u, la],
                ],
            )
        })
    }
}

fn flip_c(gamma: f64) -> f64 {
    (gamma + 0.9 * 0.5 / (1.0 - 0.4) + 0.7 * 0.7) / (s1() * s1())
}

/// The 2-cycle of `map` at dβ by Newton on P(P(x)) = x from `x0`.
fn two_cycle(map: &impl Fn(&[f64], f64) -> Jet, db: f64, x0: &[f64]) -> Vec<f64> {
    let mut x = DVector::from_column_slice(x0);
    for _ in 0..50 {
        let (p1, j1) = map(x.as_slice(), db).unwrap();
        let (p2, j2) = map(p1.as_slice(), db).unwrap();
        let r = &p2 - &x;
        if r.norm() < 1e-15 {
            break;
        }
        let j = j2 * j1 - DMatrix::identity(2, 2);
        x -= j.lu().solve(&r).unwrap();
    }
    x.as_slice().to_vec()
}

#[test]
fn flip_of_a_polynomial_map_matches_its_reduction_and_its_two_cycle() {
    for (gamma, critical) in [
        (-0.3, Criticality::Supercritical),
        (-1.5, Criticality::Subcritical),
    ] {
        let map = flip(0.0, gamma);
        let nf = map_normal_form(
            &map,
            &[0.0, 0.0],
            BifurcationKind::PeriodDoubling,
            NormalFormSteps::default(),
        )
        .unwrap();
        let c = flip_c(gamma);
        eprintln!("γ = {gamma}: {nf:?}, c expected {c}");
        // A polynomial's central differences are exact up to round-off (its fourth
        // derivative vanishes): c to 1e-8, its error bar alike.
        assert!(
            (nf.coefficient - c).abs() < 1e-8,
            "{} vs {c}",
            nf.coefficient
        );
        assert!(nf.error < 1e-7 && nf.error < c.abs() * 1e-6, "{}", nf.error);
        assert_eq!(nf.criticality, Some(critical));
        // μ = −(1 + β): dμ/dβ = −1.
        assert!((nf.transversality + 1.0).abs() < 1e-9);
        // The 2-cycle, found by Newton, on the predicted side with half its separation
        // K √|β|, K² = |μ′/c|; the ratio's deviation shrinks like β.
        let side = nf.side;
        assert_eq!(side, if c > 0.0 { 1.0 } else { -1.0 });
        let mut devs = Vec::new();
        for beta in [1e-3, 1e-4, 1e-5] {
            let db = side * beta;
            let guess: Vec<f64> = nf
                .eigenvector
                .iter()
                .map(|e| e[0] * nf.amplitude * beta.sqrt())
                .collect();
            let x2 = two_cycle(&map, db, &guess);
            let (px2, _) = map(&x2, db).unwrap();
            let half = 0.5 * (DVector::from_column_slice(&x2) - px2).norm();
            assert!(half > 0.3 * nf.amplitude * beta.sqrt(), "a true 2-cycle");
            let dev = (half * half / beta / nf.amplitude.powi(2) - 1.0).abs();
            devs.push(dev);
        }
        eprintln!("γ = {gamma}: relative deviations {devs:?}");
        assert!(devs[2] < 1e-3, "{devs:?}");
        assert!(
            devs[1] < 0.2 * devs[0] && devs[2] < 0.2 * devs[1],
            "{devs:?}"
        );
        // On the other side there is none: Newton from the same guess returns to x* = 0.
        let x2 = two_cycle(&map, -side * 1e-4, &[nf.amplitude * 1e-2, 0.0]);
        assert!(DVector::from_column_slice(&x2).norm() < 1e-10, "{x2:?}");
    }
}

/// u ↦ u + β + au² + σuv, v ↦ λv + κu²: a = 0.6 in y; in x a/‖Se₁‖ and b = ‖Se₁‖.
#[test]
fn fold_of_a_polynomial_map_matches_its_coefficients() {
    let (a, si, la, ka) = (0.6, 0.9, 0.4, 0.5);
    let map = move |x: &[f64], db: f64| -> Jet {
        conjugate(x, |y| {
            let (u, v) = (y[0], y[1]);
            (
                [u + db + a * u * u + si * u * v, la * v + ka * u * u],
                [[1.0 + 2.0 * a * u + si * v, si * u], [2.0 * ka * u, la]],
            )
        })
    };
    let nf = map_normal_form(
        &map,
        &[0.0, 0.0],
        BifurcationKind::Fold,
        NormalFormSteps::default(),
    )
    .unwrap();
    eprintln!("{nf:?}");
    assert!((nf.coefficient - a / s1()).abs() < 1e-9);
    assert!((nf.transversality - s1()).abs() < 1e-9);
    assert_eq!(nf.criticality, None);
    // The fixed points u = ±√(−β/a) exist for β < 0, at ‖x‖ = ‖Se₁‖·√(|β|/a).
    assert_eq!(nf.side, -1.0);
    assert!((nf.amplitude - s1() / a.sqrt()).abs() < 1e-8);
}

/// z ↦ μz + g₂₀z²/2 + g₁₁zz̄ + g₀₂z̄²/2 + g₂₁z²z̄/2 with z = y₁ + iy₂, μ = (1+β)e^{iθ}.
fn planar(theta: f64, g: [Complex<f64>; 4], beta: f64) -> impl Fn(&[f64], f64) -> Jet + Sync {
    move |x: &[f64], db: f64| {
        let mu = Complex::from_polar(1.0 + beta + db, theta);
        conjugate(x, |y| {
            let z = Complex::new(y[0], y[1]);
            let zb = z.conj();
            let f = mu * z
                + g[0] * z * z * 0.5
                + g[1] * z * zb
                + g[2] * zb * zb * 0.5
                + g[3] * z * z * zb * 0.5;
            // Wirtinger derivatives: dz' = A dz + B dz̄.
            let a = mu + g[0] * z + g[1] * zb + g[3] * z * zb;
            let b = g[1] * z + g[2] * zb + g[3] * z * z * 0.5;
            let (c1, c2) = (a + b, Complex::new(0.0, 1.0) * (a - b));
            ([f.re, f.im], [[c1.re, c2.re], [c1.im, c2.im]])
        })
    }
}

/// The planar formula for c₁ (Kuznetsov, Elements of Applied Bifurcation Theory, §4.7; the
/// g₂₀g₁₁ term's numerator is μ̄ − 3 + 2μ: the variant with −2μ, or (1 − 2μ)/(1 − μ̄), is
/// off by a factor 2.6 or 1.8 against the circle the map is iterated onto below), and
/// d = Re(e^{−iθ}c₁), in the coordinate z (q = (1, −i)/2 in y; ‖S q‖² rescales it).
fn planar_d(theta: f64, g: [Complex<f64>; 4]) -> f64 {
    let mu = Complex::from_polar(1.0, theta);
    let mb = mu.conj();
    let one = Complex::new(1.0, 0.0);
    let c1 = g[0] * g[1] * (mb - 3.0 + 2.0 * mu) / (2.0 * (mu * mu - mu) * (mb - one))
        + g[1].norm_sqr() / (one - mb)
        + g[2].norm_sqr() / (2.0 * (mu * mu - mb))
        + g[3] * 0.5;
    let q = s().map(|v| Complex::new(v, 0.0))
        * DVector::from_column_slice(&[Complex::new(0.5, 0.0), Complex::new(0.0, -0.5)]);
    (mb * c1).re / q.norm_squared()
}

#[test]
fn neimark_sacker_of_a_polynomial_map_matches_the_planar_formula_and_its_circle() {
    let theta = 1.0;
    let c = |re: f64, im: f64| Complex::new(re, im);
    for g in [
        [c(0.4, -0.2), c(0.3, 0.5), c(-0.6, 0.1), c(-1.2, 0.4)],
        [c(0.4, -0.2), c(0.3, 0.5), c(-0.6, 0.1), c(1.5, -0.3)],
    ] {
        let map = planar(theta, g, 0.0);
        let nf = map_normal_form(
            &map,
            &[0.0, 0.0],
            BifurcationKind::NeimarkSacker,
            NormalFormSteps::default(),
        )
        .unwrap();
        let d = planar_d(theta, g);
        eprintln!("{nf:?}, d expected {d}");
        assert!((nf.coefficient - d).abs() < 1e-8 * d.abs().max(1.0));
        assert!((nf.transversality - 1.0).abs() < 1e-9);
        let super_ = d < 0.0;
        assert_eq!(
            nf.criticality,
            Some(if super_ {
                Criticality::Supercritical
            } else {
                Criticality::Subcritical
            })
        );
        if !super_ {
            // Past the point (β > 0) the subcritical map repels everything near x*: escape.
            let mut x = DVector::from_column_slice(&[1e-3, 0.0]);
            let beta = 1e-3;
            let m = planar(theta, g, beta);
            let mut escaped = false;
            for _ in 0..200_000 {
                x = m(x.as_slice(), 0.0).unwrap().0;
                if x.norm() > 0.5 {
                    escaped = true;
                    break;
                }
            }
            assert!(escaped);
            continue;
        }
        // Supercritical: iterated past the point, the map settles on a circle of normal-form
        // radius |z|² = −β/d (z = wᵀx: its mean over the circle), for two β: the ratio to
        // the prediction → 1 linearly in β.
        let mut devs = Vec::new();
        for beta in [4e-3, 1e-3] {
            let m = planar(theta, g, beta);
            let mut x = DVector::from_column_slice(&[1e-3, 0.0]);
            let (s, si) = (s(), s().try_inverse().unwrap());
            // w in x: the coordinate z of y = S⁻¹x, scaled to the unit q.
            let qn = (s.map(|v| Complex::new(v, 0.0))
                * DVector::from_column_slice(&[Complex::new(0.5, 0.0), Complex::new(0.0, -0.5)]))
            .norm();
            for _ in 0..(40.0 / beta) as usize {
                x = m(x.as_slice(), 0.0).unwrap().0;
            }
            let mut sum = 0.0;
            let count = 20_000;
            for _ in 0..count {
                x = m(x.as_slice(), 0.0).unwrap().0;
                let y = &si * &x;
                sum += (Complex::new(y[0], y[1]) * qn).norm_sqr();
            }
            let r2 = sum / count as f64;
            let predicted = nf.amplitude.powi(2) * beta;
            devs.push((r2 / predicted - 1.0).abs());
        }
        eprintln!("circle deviations {devs:?}");
        assert!(devs[1] < 0.02 && devs[1] < 0.5 * devs[0], "{devs:?}");
    }
}

fn shoot() -> ShootingOptions {
    ShootingOptions {
        rtol: 1e-12,
        atol: 1e-12,
        tolerance: 1e-10,
        ..ShootingOptions::default()
    }
}

fn method() -> Method {
    Method::Dop853 {
        rtol: 1e-12,
        atol: 1e-12,
        h_max: f64::INFINITY,
    }
}

/// θ̈ + γθ̇ + sin θ = A cos ω t (l = g = m = 1).
fn torqued(gamma: f64, w: f64, a: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 1.0;
    p.damping.absolute = vec![gamma];
    p.drive.torque = Some(Harmonic {
        amplitude: a,
        frequency: w,
        phase: 0.0,
    });
    Chain::new(p).unwrap()
}

/// The pendulum (l = 1 m, g = 9.81) on a pivot a cos Ωt vertically, damped by `gamma`.
fn vibrated(gamma: f64, omega: f64, a: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 9.81;
    p.damping.absolute = vec![gamma];
    p.drive.pivot = Some(PivotMotion {
        x_amplitude: 0.0,
        y_amplitude: a,
        frequency: omega,
        phase: 0.0,
    });
    Chain::new(p).unwrap()
}

fn driven_closure(w: f64) -> Closure {
    Closure::Driven {
        drive_period: 2.0 * PI / w,
        k: 1,
    }
}

/// The converged period-1 orbit of `chain` (drive frequency `w`) reached from `x0` after
/// `periods` drive periods.
fn settled(
    chain: &Chain,
    w: f64,
    x0: &[f64],
    periods: usize,
) -> pendula::analysis::periodic::PeriodicOrbit {
    let td = 2.0 * PI / w;
    let mut x = x0.to_vec();
    for _ in 0..periods {
        x = propagate(chain, &method(), 0.0, &x, td, 1, &mut Silent)
            .unwrap()
            .x;
    }
    find(
        chain,
        &Guess { x0: x, period: td },
        driven_closure(w),
        &shoot(),
        &Cancel::never(),
    )
    .unwrap()
}

/// Along the doubled branch: (p − p*, half the separation of the 2-cycle's two stroboscopic
/// points ½‖x₂ − φ(T₂/2; x₂)‖, angles compared modulo 2π), from the branch's second point on.
fn separations(
    chain_at: impl Fn(f64) -> Chain,
    pd: &Bifurcation,
    doubled: &Branch,
) -> Vec<(f64, f64)> {
    doubled.points[1..]
        .iter()
        .map(|pt| {
            let chain = chain_at(pt.parameter);
            let o = &pt.orbit;
            let half = propagate(
                &chain,
                &method(),
                0.0,
                &o.x0,
                0.5 * o.period,
                1,
                &mut Silent,
            )
            .unwrap()
            .x;
            let mut d2 = 0.0;
            for i in 0..o.x0.len() {
                let mut d = o.x0[i] - half[i];
                if i < o.x0.len() / 2 {
                    d -= (d / (2.0 * PI)).round() * 2.0 * PI;
                }
                d2 += d * d;
            }
            (pt.parameter - pd.parameter, 0.5 * d2.sqrt())
        })
        .collect()
}

/// The amplitude law on the doubled branch: at each point within `near` of p*, on the
/// predicted side (asserted), the ratio's deviation (separation²/|p − p*|)/K² − 1 against a
/// line s·|p − p*| fitted through the points with |p − p*| ≤ `near`. Near p* the doubled orbit's
/// critical multiplier μ₂ → 1 magnifies the shooting tolerance τ into a position error
/// τ/|1 − μ₂|, a relative error 2τ/(|1 − μ₂|·separation) of the ratio: points where that
/// exceeds 1e-4 are left out, and each point's allowance includes it. Returns the slope and
/// the nearest point kept (|p − p*|, deviation).
fn amplitude_law(
    pd: &Bifurcation,
    doubled: &Branch,
    chain_at: impl Fn(f64) -> Chain,
    near: f64,
) -> (f64, (f64, f64)) {
    let nf = pd.normal_form.as_ref().unwrap();
    let seps = separations(chain_at, pd, doubled);
    let mut pts: Vec<(f64, f64, f64)> = seps
        .iter()
        .zip(&doubled.points[1..])
        .filter(|((dp, _), _)| dp.abs() <= near && dp.abs() > 0.0)
        .map(|(&(dp, h), pt)| {
            assert_eq!(
                dp.signum(),
                nf.side,
                "the doubled orbit on the predicted side: {dp}"
            );
            let mu2 = pt
                .orbit
                .floquet
                .multipliers
                .iter()
                .map(|m| (m.complex() - 1.0).norm())
                .fold(f64::INFINITY, f64::min);
            let noise = 2.0 * shoot().tolerance / (mu2 * h);
            (
                dp.abs(),
                h * h / dp.abs() / nf.amplitude.powi(2) - 1.0,
                noise,
            )
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    eprintln!("(|p − p*|, ratio − 1, noise): {pts:?}");
    pts.retain(|p| p.2 < 1e-4);
    assert!(pts.len() >= 5, "{pts:?}");
    let slope =
        pts.iter().map(|p| p.0 * p.1).sum::<f64>() / pts.iter().map(|p| p.0 * p.0).sum::<f64>();
    for &(dp, dev, noise) in &pts {
        let allowed = noise + 1e-6 + 0.01 * slope.abs() * dp;
        assert!(
            (dev - slope * dp).abs() <= allowed,
            "{dp}: {dev} vs {slope}·Δp ± {allowed}"
        );
    }
    eprintln!("slope {slope}");
    (slope, (pts[0].0, pts[0].1))
}

/// Taylor's pendulum (γ = ½, ω = ⅔): the first period doubling near A ≈ 1.066 is
/// supercritical, the 2-cycle born on the side A > A*, its half-separation K√(A − A*).
#[test]
fn driven_pendulum_first_period_doubling_is_supercritical_with_the_predicted_amplitude() {
    let (gamma, w) = (0.5, 2.0 / 3.0);
    let family = move |a: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((torqued(gamma, w, a), driven_closure(w)))
    };
    let a0 = 1.05;
    let orbit = settled(&torqued(gamma, w, a0), w, &[0.0, 0.0], 300);
    let opts = ContinuationOptions {
        min: 1.0,
        max: 1.08,
        points: 100,
        step: 0.002,
        max_step: 0.005,
        locate_tolerance: 1e-11,
        ..ContinuationOptions::default()
    };
    let branch = continue_branch(&family, &orbit, a0, &shoot(), &opts, &mut Silent).unwrap();
    let pd = branch
        .bifurcations
        .iter()
        .find(|b| b.kind == BifurcationKind::PeriodDoubling)
        .expect("the first period doubling");
    let nf = pd
        .normal_form
        .as_ref()
        .expect("a driven orbit's normal form");
    eprintln!("period doubling at A = {}: {nf:?}", pd.parameter);
    assert_eq!(nf.criticality, Some(Criticality::Supercritical));
    assert_eq!(nf.side, 1.0);
    let doubled = switch_period_doubling(
        &family,
        pd,
        &shoot(),
        &ContinuationOptions {
            min: pd.parameter - 0.01,
            max: pd.parameter + 0.01,
            points: 40,
            step: 1e-3,
            max_step: 2e-2,
            min_step: 1e-10,
            locate: false,
            ..opts
        },
        &mut Silent,
    )
    .unwrap();
    // Measured: c = 4.544 ± 1e-5, K = 2.800; the deviation is −6.25·(A − A*) from 5e-6 to
    // 2e-4 (−3.0e-5 at 4.9e-6), the nearer points within the tolerance's magnification.
    let (slope, nearest) = amplitude_law(pd, &doubled, |a| torqued(gamma, w, a), 2e-4);
    assert!(slope.abs() < 10.0, "{slope}");
    assert!(nearest.0 < 1e-5 && nearest.1.abs() < 1e-4, "{nearest:?}");
}

/// The hanging state of the vertically vibrated damped pendulum loses stability at both edges
/// of its principal tongue (Ω ≈ 2ω₀); the soft pendulum's 2-cycle bends to lower Ω, so at the
/// lower edge it is born outside the tongue, where the hanging state is still stable:
/// subcritical, side Ω < Ω₋; at the upper edge inside: supercritical, side Ω < Ω₊ too.
#[test]
fn vibrated_pendulum_tongue_edges_are_sub_and_supercritical() {
    let (gamma, a) = (0.1, 0.05);
    let family = move |om: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((vibrated(gamma, om, a), driven_closure(om)))
    };
    let o0 = 5.6;
    let orbit = find(
        &vibrated(gamma, o0, a),
        &Guess {
            x0: vec![0.0, 0.0],
            period: 2.0 * PI / o0,
        },
        driven_closure(o0),
        &shoot(),
        &Cancel::never(),
    )
    .unwrap();
    let opts = ContinuationOptions {
        min: 5.5,
        max: 7.0,
        points: 200,
        step: 0.01,
        max_step: 0.02,
        locate_tolerance: 1e-11,
        ..ContinuationOptions::default()
    };
    let branch = continue_branch(&family, &orbit, o0, &shoot(), &opts, &mut Silent).unwrap();
    let pds: Vec<&Bifurcation> = branch
        .bifurcations
        .iter()
        .filter(|b| b.kind == BifurcationKind::PeriodDoubling)
        .collect();
    for pd in &pds {
        eprintln!(
            "period doubling at Ω = {}: {:?}",
            pd.parameter, pd.normal_form
        );
    }
    assert_eq!(pds.len(), 2);
    for (pd, crit) in pds
        .iter()
        .zip([Criticality::Subcritical, Criticality::Supercritical])
    {
        let nf = pd.normal_form.as_ref().unwrap();
        assert_eq!(nf.criticality, Some(crit));
        assert_eq!(nf.side, -1.0);
        let doubled = switch_period_doubling(
            &family,
            pd,
            &shoot(),
            &ContinuationOptions {
                min: pd.parameter - 0.05,
                max: pd.parameter + 0.05,
                points: 40,
                step: 1e-3,
                max_step: 2e-2,
                min_step: 1e-10,
                locate: false,
                ..opts
            },
            &mut Silent,
        )
        .unwrap();
        // Measured: the deviation is ≈ 0.04·|Ω − Ω₋| and ≈ −0.18·|Ω − Ω₊|, below 2e-6 from
        // 1e-6 to 4e-5 (the noise bound, an upper bound, keeps the points from ~5e-5 on).
        let (slope, nearest) = amplitude_law(pd, &doubled, |om| vibrated(gamma, om, a), 1e-3);
        assert!(slope.abs() < 1.0, "{slope}");
        assert!(nearest.0 < 1e-4 && nearest.1.abs() < 1e-5, "{nearest:?}");
    }
}

/// The resonance curve of the lightly damped driven pendulum (γ = A = 0.05) leans to low ω
/// and folds; near a located fold the branch is the parabola ω − ω* ≈ −(a/b)ξ² in the
/// coordinate ξ along the critical eigenvector, a/b from the normal form; the branch's points
/// on both sides of the fold, fitted with ξ² and ξ³, give the curvature.
#[test]
fn resonance_fold_curvature_matches_the_normal_form() {
    let (gamma, amp) = (0.05, 0.05);
    let family = move |w: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((torqued(gamma, w, amp), driven_closure(w)))
    };
    let w0 = 1.2;
    let orbit = settled(&torqued(gamma, w0, amp), w0, &[0.0, 0.0], 200);
    let opts = ContinuationOptions {
        min: 0.7,
        max: 1.25,
        points: 400,
        step: 0.01,
        max_step: 0.03,
        increasing: false,
        locate_tolerance: 1e-11,
        ..ContinuationOptions::default()
    };
    let branch = continue_branch(&family, &orbit, w0, &shoot(), &opts, &mut Silent).unwrap();
    let folds: Vec<&Bifurcation> = branch
        .bifurcations
        .iter()
        .filter(|b| b.kind == BifurcationKind::Fold)
        .collect();
    for f in &folds {
        eprintln!("fold at ω = {}: {:?}", f.parameter, f.normal_form);
    }
    assert!(!folds.is_empty());
    let fold = folds[0];
    let nf = fold.normal_form.as_ref().unwrap();
    let predicted = -nf.coefficient / nf.transversality;
    // Re-walk the stretch through the fold finely.
    let before = &branch.points[fold.after];
    let fine = continue_branch(
        &family,
        &before.orbit,
        before.parameter,
        &shoot(),
        &ContinuationOptions {
            points: 80,
            step: 1e-3,
            max_step: 2e-3,
            increasing: fold.parameter > before.parameter,
            locate: false,
            ..opts
        },
        &mut Silent,
    )
    .unwrap();
    let q: Vec<f64> = nf.eigenvector.iter().map(|e| e[0]).collect();
    let x_star = &fold.orbit.x0;
    let pts: Vec<(f64, f64)> = fine
        .points
        .iter()
        .map(|p| {
            let xi: f64 = (0..q.len())
                .map(|i| q[i] * (p.orbit.x0[i] - x_star[i]))
                .sum();
            (xi, p.parameter - fold.parameter)
        })
        .filter(|(xi, _)| xi.abs() < 0.05)
        .collect();
    eprintln!(
        "{} points within |ξ| < 0.05; predicted curvature {predicted}",
        pts.len()
    );
    let fit = |pts: &[(f64, f64)]| -> f64 {
        let a = DMatrix::from_fn(pts.len(), 2, |r, c| pts[r].0.powi(2 + c as i32));
        let b = DVector::from_fn(pts.len(), |r, _| pts[r].1);
        let sol = a.svd(true, true).solve(&b, 1e-14).unwrap();
        sol[0]
    };
    let kappa = fit(&pts);
    eprintln!(
        "fitted curvature {kappa}, relative deviation {}",
        kappa / predicted - 1.0
    );
    assert!(pts.iter().any(|p| p.0 > 0.0) && pts.iter().any(|p| p.0 < 0.0));
    // Both branches near the fold on the predicted side of it.
    assert!(pts.iter().all(|p| p.1 * nf.side > -1e-9), "{pts:?}");
    // Measured: 4.6e-4 relative (the fold's a and b known to ~2e-5 relative).
    assert!(
        (kappa / predicted - 1.0).abs() < 3e-3,
        "{kappa} vs {predicted}"
    );
}
