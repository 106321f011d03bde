//! `pendula bench orbits`: the three timings issue 32 sets, each one JSON line — a period-1
//! branch of the driven damped pendulum over 500 points with its bifurcations located, an orbit
//! diagram of 1 000 drive amplitudes × 300 drive periods at 200 RK4 steps per period, and the
//! double pendulum's in-phase normal-mode family over 200 energies — and issue 50's two
//! bifurcation curves in two parameters ([`curves`]).

mod curves;

use super::{
    continue_branch, find, orbit_diagram, Closure, ContinuationOptions, DiagramOptions, Guess,
    PeriodicError, ShootingOptions,
};
use crate::analysis::modes::{modes_at, Equilibrium};
use crate::model::{Chain, ChainParams, Harmonic, Link, System};
use crate::observe::{Cancel, Silent};
use serde_json::{json, Value};
use std::f64::consts::PI;
use std::time::Instant;

/// θ̈ + θ̇/2 + sin θ = A cos(2t/3) (Baker–Gollub units).
pub(crate) fn driven(a: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 1.0;
    p.damping.absolute = vec![0.5];
    p.drive.torque = Some(Harmonic {
        amplitude: a,
        frequency: 2.0 / 3.0,
        phase: 0.0,
    });
    Chain::new(p).expect("a valid chain")
}

fn family(a: f64) -> Result<(Chain, Closure), PeriodicError> {
    Ok((
        driven(a),
        Closure::Driven {
            drive_period: 3.0 * PI,
            k: 1,
        },
    ))
}

/// The stroboscopic state of the Baker–Gollub pendulum at A = `a` (ω_D = 2/3) after 200 drive
/// periods from rest: a seed on its period-1 attractor.
fn settled(a: f64) -> Result<Vec<f64>, PeriodicError> {
    let diagram = orbit_diagram(
        &family,
        &DiagramOptions {
            parameters: vec![a],
            starts: vec![vec![0.0, 0.0]],
            transient: 200,
            samples: 1,
            steps_per_period: 200,
        },
        &Cancel::never(),
    )?;
    Ok(diagram.point(0, 0, 0).to_vec())
}

/// The benchmark lines: issue 32's three, then issue 50's two.
pub fn bench_orbits() -> Result<Vec<Value>, PeriodicError> {
    let td = 3.0 * PI;
    let shoot = ShootingOptions::default();
    // 1. The period-1 branch from A = 0.9 over 500 points, bifurcations located.
    let start = Instant::now();
    let a0 = 0.9;
    let closure = Closure::Driven {
        drive_period: td,
        k: 1,
    };
    let settled = Guess {
        x0: settled(a0)?,
        period: td,
    };
    let orbit = find(&driven(a0), &settled, closure, &shoot, &Cancel::never())?;
    let opts = ContinuationOptions {
        min: 0.0,
        max: 10.0,
        points: 500,
        step: 3e-3,
        max_step: 3e-3,
        ..ContinuationOptions::default()
    };
    let branch = continue_branch(&family, &orbit, a0, &shoot, &opts, &mut Silent)?;
    let continuation = json!({
        "benchmark": "orbits-continuation",
        "wall_s": start.elapsed().as_secs_f64(),
        "points": branch.points.len(),
        "parameter_end": branch.points.last().map(|p| p.parameter),
        "bifurcations": branch.bifurcations.iter().map(|b| json!({"kind": b.kind.name(), "parameter": b.parameter})).collect::<Vec<_>>(),
        "target_s": 1.0,
    });
    // 2. The orbit diagram: 1 000 amplitudes in 0.9 ..= 1.5, 300 periods each (100 sampled), two starts.
    let start = Instant::now();
    let parameters: Vec<f64> = (0..1000).map(|i| 0.9 + 0.6 * i as f64 / 999.0).collect();
    let d = orbit_diagram(
        &family,
        &DiagramOptions {
            parameters,
            starts: vec![vec![0.0, 0.0], vec![1.0, -0.5]],
            transient: 200,
            samples: 100,
            steps_per_period: 200,
        },
        &Cancel::never(),
    )?;
    let chaotic = d.lyapunov.iter().filter(|&&l| l > 0.01).count();
    let diagram = json!({
        "benchmark": "orbits-diagram",
        "wall_s": start.elapsed().as_secs_f64(),
        "parameters": d.parameters.len(),
        "starts": d.starts,
        "periods_per_value": 300,
        "steps_per_period": 200,
        "rk4_steps": 1000u64 * 2 * 300 * 200,
        "threads": rayon::current_num_threads(),
        "chaotic_values": chaotic,
        "target_s": 5.0,
    });
    // 3. The double pendulum's in-phase family over 200 energies.
    let start = Instant::now();
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0); 2]);
    p.gravity = 9.81;
    let chain = Chain::new(p).expect("a valid chain");
    let modes = modes_at(&chain, &Equilibrium::hanging(2))
        .map_err(|e| PeriodicError::NotConverged(e.to_string()))?;
    let s = modes.shapes.column(0).into_owned() / modes.shapes.column(0).amax();
    let x0 = vec![0.05 * s[0], 0.05 * s[1], 0.0, 0.0];
    let e0 = chain.energy(0.0, &x0);
    let first = find(
        &chain,
        &Guess {
            x0,
            period: 2.0 * PI / modes.omega2[0].sqrt(),
        },
        Closure::Energy(e0),
        &shoot,
        &Cancel::never(),
    )?;
    let energy_family = |e: f64| -> Result<(Chain, Closure), PeriodicError> {
        Ok((chain.clone(), Closure::Energy(e)))
    };
    let b = continue_branch(
        &energy_family,
        &first,
        e0,
        &shoot,
        &ContinuationOptions {
            points: 200,
            step: 0.05,
            max_step: 0.3,
            ..ContinuationOptions::default()
        },
        &mut Silent,
    )?;
    let nnm = json!({
        "benchmark": "orbits-normal-mode-family",
        "wall_s": start.elapsed().as_secs_f64(),
        "points": b.points.len(),
        "energy_end": b.points.last().map(|p| p.parameter),
        "bifurcations": b.bifurcations.iter().map(|x| json!({"kind": x.kind.name(), "parameter": x.parameter, "uncertainty": x.uncertainty})).collect::<Vec<_>>(),
        "target_s": 2.0,
    });
    let mut lines = vec![continuation, diagram, nnm];
    lines.extend(curves::bench_curves()?);
    Ok(lines)
}
