//! The chains, orbits and branches the manifold tests share (tests/manifolds*.rs).

use pendula::analysis::manifold::grow::{grow, Curve, Growth};
use pendula::analysis::manifold::{Branch, PlaneMap, Saddle};
use pendula::analysis::periodic::{find, Closure, Guess, PeriodicOrbit, ShootingOptions};
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, Link, System};
use pendula::observe::Cancel;

/// θ̈ + δθ̇ + sin θ = γ cos ωt: a point link with l = m = g = 1 (the Melnikov form exactly).
#[allow(dead_code)] // Not every test binary that includes this file uses every item.
pub fn pendulum(delta: f64, gamma: f64, omega: f64) -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 1.0;
    if delta != 0.0 {
        p.damping = Damping {
            absolute: vec![delta],
            joint: vec![0.0],
        };
    }
    if gamma != 0.0 {
        p.drive = Drive {
            torque: Some(Harmonic {
                amplitude: gamma,
                frequency: omega,
                phase: 0.0,
            }),
            pivot: None,
        };
    }
    Chain::new(p).unwrap()
}

/// The equal double pendulum (preset "double": two point links of 1 m and 1 kg, g = 9.81).
#[allow(dead_code)]
pub fn double_pendulum() -> Chain {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0), Link::point(1.0, 1.0)]);
    p.gravity = 9.81;
    Chain::new(p).unwrap()
}

/// The periodic orbit of an undriven `chain` shot from `x0` with the period guess `period`,
/// closed on the energy `energy` (the start's where None).
#[allow(dead_code)]
pub fn shot(chain: &Chain, x0: Vec<f64>, period: f64, energy: Option<f64>) -> PeriodicOrbit {
    let e = energy.unwrap_or_else(|| chain.energy(0.0, &x0));
    find(
        chain,
        &Guess { x0, period },
        Closure::Energy(e),
        &ShootingOptions::default(),
        &Cancel::never(),
    )
    .unwrap()
}

/// The double pendulum's hyperbolic orbit released at θ = (2, 2) (`orbits find --start
/// return`): period 2.9949 s, E = 12.247 J.
#[allow(dead_code)]
pub fn double_pendulum_orbit() -> (Chain, PeriodicOrbit) {
    let chain = double_pendulum();
    let x0 = vec![
        -0.04411705022221213,
        -2.7291314643525393,
        5.437437655301149,
        1.6541539130501786,
    ];
    let o = shot(&chain, x0, 2.9949, None);
    (chain, o)
}

/// One branch of `sd`'s manifolds (unstable or stable, along ±v) grown with `g`.
#[allow(dead_code)]
pub fn branch<M: PlaneMap>(map: &M, sd: &Saddle, unstable: bool, side: f64, g: &Growth) -> Branch {
    let mut w = map.work();
    let c = Curve::new(map, sd, unstable, side, g.d0, &mut w).unwrap();
    grow(map, &c, g, &Cancel::never()).unwrap()
}

/// `poincare`'s options for one crossing within `t_end` at rtol = atol = 1e-13.
#[allow(dead_code)]
pub fn one_crossing(t_end: f64) -> pendula::analysis::poincare::SectionOptions {
    pendula::analysis::poincare::SectionOptions {
        crossings: 1,
        t_end,
        rtol: 1e-13,
        atol: 1e-13,
        ..Default::default()
    }
}

/// The state where the periodic orbit `o` of `chain` first crosses θ₁ = 0 upward (`poincare`'s
/// section): the seed of Newton on the section map.
#[allow(dead_code)]
pub fn first_crossing(chain: &Chain, o: &PeriodicOrbit) -> Vec<f64> {
    use pendula::analysis::poincare::{orbit, Section};
    use pendula::integrate::Direction;
    use std::sync::atomic::{AtomicBool, AtomicU64};
    let (stop, count) = (AtomicBool::new(false), AtomicU64::new(0));
    let section = Section::angle(0, 0.0, Direction::Rising);
    let first = orbit(
        chain,
        &section,
        &o.x0,
        &one_crossing(o.period),
        &stop,
        &count,
    );
    first.states[0].clone()
}
