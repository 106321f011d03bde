//! Manifold growth to a stated accuracy (issue 51's `manifolds.accuracy`): what the polyline of
//! a grown branch misses of the manifold, measured by independent routes — the manifold's own
//! point at each piece's mid-parameter (Q^g(c(s)) from the fundamental domain) against the
//! chord, on the Baker–Gollub saddle; and the closed-form separatrix θ̇ = ±2 cos(θ/2) of the
//! undriven pendulum (E = 1) against the chords, with no map at all.

#[path = "common/manifold_fixtures.rs"]
mod fixtures;

use fixtures::{branch, pendulum};
use pendula::analysis::manifold::grow::Growth;
use pendula::analysis::manifold::saddle::saddle;
use pendula::analysis::manifold::{Branch, FlowMap, MapIntegration, PlaneMap};
use std::f64::consts::PI;

/// The distance of m from the segment p–q (written out here, not the library's).
fn segment_distance(m: [f64; 2], p: [f64; 2], q: [f64; 2]) -> f64 {
    let (ux, uy) = (q[0] - p[0], q[1] - p[1]);
    let t = (((m[0] - p[0]) * ux + (m[1] - p[1]) * uy) / (ux * ux + uy * uy)).clamp(0.0, 1.0);
    (m[0] - p[0] - t * ux).hypot(m[1] - p[1] - t * uy)
}

/// Over every piece: the largest distance of the manifold's point at the piece's
/// mid-parameter from its chord, with the piece's index.
fn mid_parameter_error<M: PlaneMap>(map: &M, b: &Branch) -> (f64, usize) {
    let mut w = map.work();
    let mut worst = (0.0, 0);
    for i in 0..b.nodes.len() - 1 {
        let (g, sa, sb) = b.piece(i);
        let m = b.curve.eval(map, g, 0.5 * (sa + sb), &mut w).unwrap();
        let e = segment_distance(m, b.nodes[i].point, b.nodes[i + 1].point);
        if e > worst.0 {
            worst = (e, i);
        }
    }
    worst
}

/// The Baker–Gollub saddle (q = 2, ω_D = 2/3, A = 1.15) to arclength 8: on every piece of the
/// four branches the manifold's mid-parameter point lies within `accuracy` of the chord, the
/// branch's own sampled `interpolation_error` agrees (it is a subset), and without `accuracy`
/// the same growth misses by far more (so the control, not the resolution, did it).
#[test]
fn baker_gollub_chords_are_within_the_accuracy() {
    let chain = pendulum(0.5, 1.15, 2.0 / 3.0);
    let map = FlowMap::new(&chain, 3.0 * PI, MapIntegration::Adaptive(1e-13)).unwrap();
    let sd = saddle(&map, [-2.86, 0.9], 1e-13, 40).unwrap();
    let acc = 1e-6;
    let g = Growth {
        resolution: 0.05,
        arclength: 8.0,
        accuracy: Some(acc),
        ..Growth::default()
    };
    for (unstable, side) in [(true, 1.0), (true, -1.0), (false, 1.0), (false, -1.0)] {
        let b = branch(&map, &sd, unstable, side, &g);
        let (worst, at) = mid_parameter_error(&map, &b);
        let (gen, sa, sb) = b.piece(at);
        println!(
            "BG unstable={unstable} side={side}: {} points, mid-parameter error {worst:.3e} (piece {at}, generation {gen}, s {sa:.6e}..{sb:.6e}, length {:.2e}), sampled {:.3e} over {}, unresolved {}",
            b.nodes.len(),
            (b.nodes[at + 1].point[0] - b.nodes[at].point[0]).hypot(b.nodes[at + 1].point[1] - b.nodes[at].point[1]),
            b.interpolation_error.unwrap(),
            b.interpolation_sampled,
            b.unresolved
        );
        assert_eq!(b.ended, "arclength");
        assert!(worst <= acc, "mid-parameter error {worst:e} > {acc:e}");
        assert!(b.interpolation_error.unwrap() <= worst * (1.0 + 1e-12) + 1e-15);
        assert!(b.interpolation_sampled >= (b.nodes.len() - 1) / 16);
    }
    // The same unstable branch grown by the resolution alone misses by more than the accuracy.
    let loose = branch(
        &map,
        &sd,
        true,
        1.0,
        &Growth {
            accuracy: None,
            ..g
        },
    );
    let (worst, _) = mid_parameter_error(&map, &loose);
    println!(
        "without accuracy: {} points, mid-parameter error {worst:.3e}",
        loose.nodes.len()
    );
    assert!(worst > 10.0 * acc, "{worst:e}");
    assert!(loose.interpolation_error.is_none() && loose.interpolation_sampled == 0);
}

/// The undriven, undamped pendulum's separatrix is known in closed form, θ̇ = ±2 cos(θ/2)
/// (E = θ̇²/2 − cos θ = 1): the largest distance of the curve from each chord, found on a fine
/// grid of θ between the piece's ends (no map), is within `accuracy` on all four branches, and
/// it shrinks like accuracy when accuracy is divided by 16.
#[test]
fn the_separatrix_is_within_the_accuracy_of_its_chords() {
    let chain = pendulum(0.0, 0.0, 0.0);
    let map = FlowMap::new(&chain, 1.0, MapIntegration::Adaptive(1e-13)).unwrap();
    let sd = saddle(&map, [PI - 0.01, 0.02], 1e-14, 30).unwrap();
    let mut worst_at = Vec::new();
    for acc in [1e-5, 1e-5 / 16.0] {
        let g = Growth {
            resolution: 0.5,
            arclength: 6.0,
            accuracy: Some(acc),
            ..Growth::default()
        };
        let mut worst: f64 = 0.0;
        let mut points = 0;
        for unstable in [true, false] {
            for side in [1.0, -1.0] {
                let b = branch(&map, &sd, unstable, side, &g);
                points += b.nodes.len();
                for w in b.nodes.windows(2) {
                    let (p, q) = (w[0].point, w[1].point);
                    // The branch's sign of θ̇ (it does not change along a branch).
                    let sign = (p[1] + q[1]).signum();
                    for k in 1..64 {
                        let th = p[0] + (q[0] - p[0]) * k as f64 / 64.0;
                        let m = [th, sign * 2.0 * (0.5 * th).cos().abs()];
                        worst = worst.max(segment_distance(m, p, q));
                    }
                }
                assert!(
                    b.interpolation_error.unwrap() <= acc,
                    "{:?}",
                    b.interpolation_error
                );
            }
        }
        println!("separatrix at accuracy {acc:.2e}: {points} points, largest chord departure {worst:.3e}");
        assert!(worst <= acc, "{worst:e} > {acc:e}");
        worst_at.push(worst);
    }
    // Sixteen times finer: the departure follows (not merely stays below a fixed bound).
    let ratio = worst_at[0] / worst_at[1];
    assert!((4.0..64.0).contains(&ratio), "ratio {ratio}");
}

/// The distance of `m` from the polyline `p` (arclengths `l`), over its pieces whose
/// arclength lies within `window` of `at`.
fn polyline_distance(m: [f64; 2], p: &[[f64; 2]], l: &[f64], at: f64, window: f64) -> f64 {
    let lo = l.partition_point(|&x| x < at - window).saturating_sub(1);
    let hi = l.partition_point(|&x| x <= at + window).min(p.len() - 1);
    (lo..hi)
        .map(|j| segment_distance(m, p[j], p[j + 1]))
        .fold(f64::INFINITY, f64::min)
}

/// Deep in the tangle (the Baker–Gollub branches along +v to arclength 25, past the folds
/// where points computed from the domain stopped resolving at arclength 15.9: its seeds are
/// quantised to 4e-16 and each generation stretches that), the growth at accuracy 1e-6 leaves
/// nothing unresolved, and against the same branch grown at 1e-8 (an independent polyline,
/// 100 times closer) its nodes lie on the manifold and its chords' middles within the
/// accuracy, the worst one near it (the control is what bounds it).
#[test]
fn deep_folds_are_resolved_to_the_accuracy() {
    let chain = pendulum(0.5, 1.15, 2.0 / 3.0);
    let map = FlowMap::new(&chain, 3.0 * PI, MapIntegration::Adaptive(1e-13)).unwrap();
    let sd = saddle(&map, [-2.86, 0.9], 1e-13, 40).unwrap();
    let acc = 1e-6;
    // The fine branch runs a little further, past the coarse one's last piece.
    let g = |accuracy: f64, arclength: f64| Growth {
        resolution: 0.01,
        arclength,
        accuracy: Some(accuracy),
        ..Growth::default()
    };
    for unstable in [true, false] {
        let coarse = branch(&map, &sd, unstable, 1.0, &g(acc, 25.0));
        let fine = branch(&map, &sd, unstable, 1.0, &g(1e-8, 25.2));
        assert_eq!((coarse.unresolved, fine.unresolved), (0, 0));
        let fp: Vec<[f64; 2]> = fine.points().collect();
        let (mut node, mut chord): (f64, f64) = (0.0, 0.0);
        for (i, w) in coarse.nodes.windows(2).enumerate() {
            let at = coarse.arclength[i];
            node = node.max(polyline_distance(
                w[0].point,
                &fp,
                &fine.arclength,
                at,
                0.05,
            ));
            let mid = [
                0.5 * (w[0].point[0] + w[1].point[0]),
                0.5 * (w[0].point[1] + w[1].point[1]),
            ];
            chord = chord.max(polyline_distance(mid, &fp, &fine.arclength, at, 0.05));
        }
        println!(
            "BG unstable={unstable}: {} and {} points, nodes within {node:.2e} of the fine polyline, chord middles within {chord:.2e}, sampled {:.2e}",
            coarse.nodes.len(),
            fine.nodes.len(),
            coarse.interpolation_error.unwrap()
        );
        assert!(node <= 1e-7, "{node:e}");
        assert!(chord <= acc && chord > 0.3 * acc, "{chord:e}");
    }
}
