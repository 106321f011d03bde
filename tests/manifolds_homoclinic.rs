//! Homoclinic points located to 1e-10 by shooting their orbits (`analysis::manifold::homoclinic`),
//! where the curves' own points, stretched by the saddle, stop at 1e-6: the conservative double
//! pendulum's Poincaré map (a flip saddle stretching 2.3e4 a growth step) and the Baker–Gollub
//! pendulum's stroboscopic map (whose stable branches stretch 2.2e5 a step). The independent
//! route is a second map with ten times the integration tolerance: different errors and noise,
//! the same homoclinic points to 1e-10, each run's error bars (how well a point is located on
//! its own map's branches) below 1e-10 too.

#[path = "common/manifold_fixtures.rs"]
mod fixtures;

use fixtures::{branch, double_pendulum_orbit, pendulum};
use pendula::analysis::manifold::grow::Growth;
use pendula::analysis::manifold::intersect::{intersections, Intersection};
use pendula::analysis::manifold::saddle::saddle;
use pendula::analysis::manifold::{FlowMap, MapIntegration, PlaneMap, Saddle, SectionMap};
use pendula::integrate::Direction;
use std::f64::consts::PI;

/// Every intersection of the unstable branch along +v with both stable branches (lattice
/// shifts −1, 0, 1), grown with `g`.
fn homoclinic_points<M: PlaneMap>(map: &M, sd: &Saddle, g: &Growth) -> Vec<Intersection> {
    let u = branch(map, sd, true, 1.0, g);
    let mut xs = Vec::new();
    for side in [1.0, -1.0] {
        let s = branch(map, sd, false, side, g);
        xs.extend(intersections(map, &u, &s, &[-1, 0, 1], 1e-11).unwrap());
    }
    xs
}

/// Each point of `fine` against its counterpart in `coarse` (the map at 10× the tolerance, or
/// the other growth):
/// the worst residual (the error bar on its own map's branches) and the worst distance (the
/// integration's error in the branches themselves), both asserted below `within` and printed.
fn compare(fine: &[Intersection], coarse: &[Intersection], within: f64) {
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
            "({:+.12}, {:+.12}) ±{:.1e}: the other's within {d:.1e} (±{r:.1e})",
            q.point[0], q.point[1], q.residual
        );
        assert!(d <= within, "{d:e}");
        assert!(q.residual <= within, "{:e}", q.residual);
        worst_residual = worst_residual.max(q.residual);
        worst_distance = worst_distance.max(d);
    }
    println!(
        "{} homoclinic points: error bars ≤ {worst_residual:.1e}, the two runs agree to {worst_distance:.1e}",
        fine.len()
    );
}

/// The equal double pendulum's hyperbolic orbit released at θ = (2, 2) (E = 12.247 J), its
/// Poincaré map on θ₁ = 0 upward: the homoclinic points of its flip saddle (|λu| = 152) within
/// arclength 15, located to 1e-10 at rtol = atol = 1e-13 and 1e-12 alike.
#[test]
fn the_double_pendulums_homoclinic_points_are_located_to_1e_10() {
    let (chain, o) = double_pendulum_orbit();
    let first = fixtures::first_crossing(&chain, &o);
    let g = Growth {
        resolution: 0.01,
        arclength: 15.0,
        ..Growth::default()
    };
    let run = |tol: f64| {
        let map = SectionMap::new(&chain, 0, 0.0, Direction::Rising, o.energy, tol, 150.0).unwrap();
        let sd = saddle(&map, map.point(&first), 1e-12, 40).unwrap();
        homoclinic_points(&map, &sd, &g)
    };
    let (fine, coarse) = (run(1e-13), run(1e-12));
    compare(&fine, &coarse, 1e-10);
}

/// The Baker–Gollub pendulum θ̈ + θ̇/2 + sin θ = 1.15 cos(2t/3): the homoclinic points of its
/// flip saddle's unstable branch along +v with both stable branches (whose inverse map stretches
/// 2.2e5 a growth step: the curves alone gave 1e-4), to arclength 12, on the adaptive map at
/// 1e-13 and 1e-12. And a growth to a chord accuracy, which inserts its later generations'
/// points from the previous generation (Hobson) and names each by a domain parameter carried
/// back along its pre-images: its intersections, refined and shot from those parameters, are
/// the same homoclinic points to 1e-10 on the same map.
#[test]
fn the_baker_gollub_homoclinic_points_are_located_to_1e_10() {
    let chain = pendulum(0.5, 1.15, 2.0 / 3.0);
    let g = Growth {
        resolution: 0.01,
        arclength: 12.0,
        ..Growth::default()
    };
    let run = |tol: f64, g: &Growth| {
        let map = FlowMap::new(&chain, 3.0 * PI, MapIntegration::Adaptive(tol)).unwrap();
        let sd = saddle(&map, [-2.86, 0.9], 1e-12, 40).unwrap();
        homoclinic_points(&map, &sd, g)
    };
    let (fine, coarse) = (run(1e-13, &g), run(1e-12, &g));
    compare(&fine, &coarse, 1e-10);
    let from_previous = run(
        1e-13,
        &Growth {
            accuracy: Some(1e-6),
            ..g
        },
    );
    compare(&from_previous, &fine, 1e-10);
}
