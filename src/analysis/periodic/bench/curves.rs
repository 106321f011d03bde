//! Issue 50's timings of bifurcation curves in two parameters, each one JSON line: the
//! Baker–Gollub pendulum's first period-doubling curve over 200 points in (A, ω_D), and the
//! Mathieu chart (the four boundary curves of the hanging and the upright pendulum on a
//! vertically vibrated pivot, 200 points each). Each curve starts, as `orbits curve` starts
//! it, from a bifurcation located on a one-parameter branch, and the timing includes that
//! branch.

use super::super::{
    continue_branch, continue_curve, find, BifurcationKind, Closure, ContinuationOptions, Curve,
    CurveOptions, Guess, PeriodicError, ShootingOptions,
};
use crate::model::{Chain, ChainParams, Harmonic, Link, PivotMotion};
use crate::observe::{Cancel, Silent};
use serde_json::{json, Value};
use std::f64::consts::{PI, TAU};
use std::time::Instant;

/// θ̈ + θ̇/2 + sin θ = A cos(ω_D t).
fn baker_gollub(a: f64, omega: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 1.0;
    p.damping.absolute = vec![0.5];
    p.drive.torque = Some(Harmonic {
        amplitude: a,
        frequency: omega,
        phase: 0.0,
    });
    Chain::new(p).expect("a valid chain")
}

/// The pendulum (1 kg, 1 m, g = 9.81) on a pivot a cos Ωt, undamped.
fn vibrated(omega: f64, a: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 9.81;
    p.drive.pivot = Some(PivotMotion {
        x_amplitude: 0.0,
        y_amplitude: a,
        frequency: omega,
        phase: 0.0,
    });
    Chain::new(p).expect("a valid chain")
}

fn driven(chain: Chain, omega: f64) -> (Chain, Closure) {
    (
        chain,
        Closure::Driven {
            drive_period: TAU / omega,
            k: 1,
        },
    )
}

/// The located bifurcations of `kind` on the branch of the orbit near `x0`, continued in the
/// first parameter from `p0` over `range` (down first when `down`), the second held at `q`.
fn located<F: Fn([f64; 2]) -> Result<(Chain, Closure), PeriodicError> + Sync>(
    family: &F,
    x0: &[f64],
    p0: f64,
    q: f64,
    range: [f64; 2],
    down: bool,
    shoot: &ShootingOptions,
) -> Result<Vec<(BifurcationKind, f64, Vec<f64>)>, PeriodicError> {
    let (chain, closure) = family([p0, q])?;
    let Closure::Driven { drive_period, .. } = closure else {
        unreachable!("driven families")
    };
    let guess = Guess {
        x0: x0.to_vec(),
        period: drive_period,
    };
    let orbit = find(&chain, &guess, closure, shoot, &Cancel::never())?;
    let one = |p: f64| family([p, q]);
    let branch = continue_branch(
        &one,
        &orbit,
        p0,
        shoot,
        &ContinuationOptions {
            min: range[0],
            max: range[1],
            points: 400,
            step: 0.02,
            max_step: 0.2,
            increasing: !down,
            ..ContinuationOptions::default()
        },
        &mut Silent,
    )?;
    Ok(branch
        .bifurcations
        .iter()
        .map(|b| (b.kind, b.parameter, b.orbit.x0.clone()))
        .collect())
}

fn curve_line(c: &Curve) -> Value {
    let (first, last) = (
        c.points[0].parameters,
        c.points[c.points.len() - 1].parameters,
    );
    json!({
        "kind": c.kind.name(),
        "points": c.points.len(),
        "from": first,
        "to": last,
        "ended": c.ended,
    })
}

/// The two benchmark lines.
pub fn bench_curves() -> Result<Vec<Value>, PeriodicError> {
    let shoot = ShootingOptions::default();
    // 1. Baker–Gollub: the branch in A at ω_D = 2/3 from the settled (asymmetric) orbit at A = 1.05 locates
    //    the first doubling (A ≈ 1.0664); its curve in (A, ω_D) over 200 points.
    let start = Instant::now();
    let bg = |p: [f64; 2]| Ok(driven(baker_gollub(p[0], p[1]), p[1]));
    let settled = super::settled(1.05)?;
    let found = located(&bg, &settled, 1.05, 2.0 / 3.0, [1.02, 1.1], false, &shoot)?;
    let located_s = start.elapsed().as_secs_f64();
    let (_, a_star, x_star) = found
        .iter()
        .find(|b| b.0 == BifurcationKind::PeriodDoubling)
        .ok_or_else(|| {
            PeriodicError::NotConverged(format!(
                "no period doubling in A ∈ [0.9, 1.1] (located: {:?})",
                found.iter().map(|b| (b.0, b.1)).collect::<Vec<_>>()
            ))
        })?
        .clone();
    let curve = continue_curve(
        &bg,
        BifurcationKind::PeriodDoubling,
        &x_star,
        [a_star, 2.0 / 3.0],
        &shoot,
        &CurveOptions {
            min: [0.2, 0.3],
            max: [3.0, 1.2],
            points: 200,
            step: 0.01,
            max_step: 0.01,
            ..CurveOptions::default()
        },
        &mut Silent,
    )?;
    let pd = json!({
        "benchmark": "orbits-curve-period-doubling",
        "wall_s": start.elapsed().as_secs_f64(),
        "locate_s": located_s,
        "start": [a_star, 2.0 / 3.0],
        "curve": curve_line(&curve),
        "threads": rayon::current_num_threads(),
        "target_s": 5.0,
    });
    // 2. The Mathieu chart: the hanging pendulum's first tongue (both edges, multiplier −1)
    //    from its branch in Ω at a = 0.04 m, and the upright pendulum's Kapitza window (lower
    //    edge a branch point, upper edge a period doubling) from its branch at a = 0.6 m.
    let start = Instant::now();
    let pivot = |p: [f64; 2]| Ok(driven(vibrated(p[0], p[1]), p[0]));
    let mut curves = Vec::new();
    // Steps (and boxes) large enough that each curve has its 200 points inside the box.
    struct Case {
        x0: [f64; 2],
        omega0: f64,
        a: f64,
        range: [f64; 2],
        down: bool,
        a_box: [f64; 2],
        step: f64,
    }
    let cases = [
        Case {
            x0: [0.0, 0.0],
            omega0: 7.0,
            a: 0.04,
            range: [5.0, 7.0],
            down: true,
            a_box: [0.01, 1.0],
            step: 0.01,
        },
        Case {
            x0: [PI, 0.0],
            omega0: 9.0,
            a: 0.6,
            range: [5.0, 14.0],
            down: false,
            a_box: [0.3, 2.0],
            step: 0.02,
        },
    ];
    for Case {
        x0,
        omega0,
        a,
        range,
        down,
        a_box,
        step,
    } in cases
    {
        let mut found = located(&pivot, &x0, omega0, a, range, down, &shoot)?;
        if x0[0] != 0.0 {
            // The window's other edge, continued the other way.
            found.extend(located(&pivot, &x0, omega0, a, range, !down, &shoot)?);
        }
        for (kind, omega, x) in found {
            let opts = CurveOptions {
                min: [1.0, a_box[0]],
                max: [300.0, a_box[1]],
                points: 200,
                step,
                max_step: step,
                ..CurveOptions::default()
            };
            curves.push(continue_curve(
                &pivot,
                kind,
                &x,
                [omega, a],
                &shoot,
                &opts,
                &mut Silent,
            )?);
        }
    }
    let chart = json!({
        "benchmark": "orbits-curve-mathieu-chart",
        "wall_s": start.elapsed().as_secs_f64(),
        "curves": curves.iter().map(curve_line).collect::<Vec<_>>(),
        "points": curves.iter().map(|c| c.points.len()).sum::<usize>(),
        "threads": rayon::current_num_threads(),
        "target_s": 5.0,
    });
    Ok(vec![pd, chart])
}
