//! Homoclinic points located to 1e-10 by shooting their orbits (`analysis::manifold::homoclinic`),
//! where the curves' own points, stretched by the saddle, stop at 1e-6: the conservative double
//! pendulum's Poincaré map (a flip saddle stretching 2.3e4 a growth step) and the Baker–Gollub
//! pendulum's stroboscopic map (whose stable branches stretch 2.2e5 a step). The independent
//! route is a second map with ten times the integration tolerance: different errors and noise,
//! the same homoclinic points to 1e-10, each run's error bars (how well a point is located on
//! its own map's branches) below 1e-10 too.

use pendula::analysis::manifold::grow::{grow, Curve, Growth};
use pendula::analysis::manifold::intersect::{intersections, Intersection};
use pendula::analysis::manifold::saddle::saddle;
use pendula::analysis::manifold::{FlowMap, MapIntegration, PlaneMap, Saddle, SectionMap};
use pendula::analysis::periodic::{find, Closure, Guess, ShootingOptions};
use pendula::analysis::poincare::{orbit, Section, SectionOptions};
use pendula::integrate::Direction;
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, Link, System};
use pendula::observe::Cancel;
use std::f64::consts::PI;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// Every intersection of the unstable branch along +v with both stable branches (lattice
/// shifts −1, 0, 1), grown with `g`.
fn homoclinic_points<M: PlaneMap>(map: &M, sd: &Saddle, g: &Growth) -> Vec<Intersection> {
    let mut w = map.work();
    let branch = |unstable: bool, side: f64, w: &mut M::Work| {
        let c = Curve::new(map, sd, unstable, side, g.d0, w).unwrap();
        grow(map, &c, g, &Cancel::never()).unwrap()
    };
    let u = branch(true, 1.0, &mut w);
    let mut xs = Vec::new();
    for side in [1.0, -1.0] {
        let s = branch(false, side, &mut w);
        xs.extend(intersections(map, &u, &s, &[-1, 0, 1], 1e-11).unwrap());
    }
    xs
}

/// Each point of `fine` against its counterpart in `coarse` (the map at 10× the tolerance):
/// the worst residual (the error bar on its own map's branches) and the worst distance (the
/// integration's error in the branches themselves), both asserted below `within`.
fn compare(fine: &[Intersection], coarse: &[Intersection], within: f64) -> (f64, f64) {
    assert!(!fine.is_empty());
    assert_eq!(fine.len(), coarse.len(), "the same homoclinic points");
    let (mut worst_residual, mut worst_distance) = (0.0f64, 0.0f64);
    for q in fine {
        let (d, r) = coarse
            .iter()
            .map(|c| {
                let d = (c.point[0] - q.point[0]).hypot(c.point[1] - q.point[1]);
                (d, c.residual)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap();
        println!(
            "({:+.12}, {:+.12}) ±{:.1e}: the coarse map's within {d:.1e} (±{r:.1e})",
            q.point[0], q.point[1], q.residual
        );
        assert!(d <= within, "{d:e}");
        assert!(q.residual <= within, "{:e}", q.residual);
        worst_residual = worst_residual.max(q.residual);
        worst_distance = worst_distance.max(d);
    }
    (worst_residual, worst_distance)
}

/// The equal double pendulum's hyperbolic orbit released at θ = (2, 2) (E = 12.247 J), its
/// Poincaré map on θ₁ = 0 upward: the homoclinic points of its flip saddle (|λu| = 152) within
/// arclength 15, located to 1e-10 at rtol = atol = 1e-13 and 1e-12 alike.
#[test]
fn the_double_pendulums_homoclinic_points_are_located_to_1e_10() {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0), Link::point(1.0, 1.0)]);
    p.gravity = 9.81;
    let chain = Chain::new(p).unwrap();
    let x0 = vec![
        -0.04411705022221213,
        -2.7291314643525393,
        5.437437655301149,
        1.6541539130501786,
    ];
    let e = chain.energy(0.0, &x0);
    let o = find(
        &chain,
        &Guess { x0, period: 2.9949 },
        Closure::Energy(e),
        &ShootingOptions::default(),
        &Cancel::never(),
    )
    .unwrap();
    let section = Section::angle(0, 0.0, Direction::Rising);
    let (stop, count) = (AtomicBool::new(false), AtomicU64::new(0));
    let first = orbit(
        &chain,
        &section,
        &o.x0,
        &SectionOptions {
            crossings: 1,
            t_end: o.period,
            rtol: 1e-13,
            atol: 1e-13,
            ..SectionOptions::default()
        },
        &stop,
        &count,
    );
    let g = Growth {
        resolution: 0.01,
        arclength: 15.0,
        ..Growth::default()
    };
    let run = |tol: f64| {
        let map = SectionMap::new(&chain, 0, 0.0, Direction::Rising, o.energy, tol, 150.0).unwrap();
        let sd = saddle(&map, map.point(&first.states[0]), 1e-12, 40).unwrap();
        homoclinic_points(&map, &sd, &g)
    };
    let (fine, coarse) = (run(1e-13), run(1e-12));
    let (r, d) = compare(&fine, &coarse, 1e-10);
    println!(
        "{} homoclinic points: error bars ≤ {r:.1e}, the two maps agree to {d:.1e}",
        fine.len()
    );
}

/// The Baker–Gollub pendulum θ̈ + θ̇/2 + sin θ = 1.15 cos(2t/3): the homoclinic points of its
/// flip saddle's unstable branch along +v with both stable branches (whose inverse map stretches
/// 2.2e5 a growth step: the curves alone gave 1e-4), to arclength 12, on the adaptive map at
/// 1e-13 and 1e-12.
#[test]
fn the_baker_gollub_homoclinic_points_are_located_to_1e_10() {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = 1.0;
    p.damping = Damping {
        absolute: vec![0.5],
        joint: vec![0.0],
    };
    p.drive = Drive {
        torque: Some(Harmonic {
            amplitude: 1.15,
            frequency: 2.0 / 3.0,
            phase: 0.0,
        }),
        pivot: None,
    };
    let chain = Chain::new(p).unwrap();
    let g = Growth {
        resolution: 0.01,
        arclength: 12.0,
        ..Growth::default()
    };
    let run = |tol: f64| {
        let map = FlowMap::new(&chain, 3.0 * PI, MapIntegration::Adaptive(tol)).unwrap();
        let sd = saddle(&map, [-2.86, 0.9], 1e-12, 40).unwrap();
        homoclinic_points(&map, &sd, &g)
    };
    let (fine, coarse) = (run(1e-13), run(1e-12));
    let (r, d) = compare(&fine, &coarse, 1e-10);
    println!(
        "{} homoclinic points: error bars ≤ {r:.1e}, the two maps agree to {d:.1e}",
        fine.len()
    );
}
