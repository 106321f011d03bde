//! `pendula bench manifolds`: issue 51's growth benchmark — the four branches (unstable and
//! stable, both sides) of the Baker–Gollub saddle (θ̈ + θ̇/2 + sin θ = 1.15 cos(2t/3), the
//! period-1 flip saddle near (−2.86, 0.9)) to arclength 50 each at a chord accuracy of 1e-6,
//! on the adaptive map at its default tolerance; one JSON line per branch and one for all.

use super::grow::{grow, Curve, Growth};
use super::map::{FlowMap, MapIntegration, PlaneMap, MAP_TOLERANCE};
use super::saddle::saddle;
use super::ManifoldError;
use crate::analysis::periodic::bench::driven;
use crate::observe::Cancel;
use serde_json::{json, Value};
use std::f64::consts::PI;
use std::time::Instant;

/// The branches' names and (unstable, side), as the `manifolds` kind names them.
const BRANCHES: [(&str, bool, f64); 4] = [
    ("unstable_plus", true, 1.0),
    ("unstable_minus", true, -1.0),
    ("stable_plus", false, 1.0),
    ("stable_minus", false, -1.0),
];

/// The benchmark lines: one per branch (growth time, points, map applications, measured
/// interpolation error on its sample), then the total. `resolution` is the largest spacing
/// kept beside the accuracy (issue 51's "1e-6 resolution" read as the chord's accuracy).
pub fn bench_manifolds(
    arclength: f64,
    accuracy: f64,
    resolution: f64,
) -> Result<Vec<Value>, ManifoldError> {
    let chain = driven(1.15);
    let map = FlowMap::new(&chain, 3.0 * PI, MapIntegration::Adaptive(MAP_TOLERANCE))?;
    let sd = saddle(&map, [-2.86, 0.9], 1e-13, 40)?;
    let g = Growth {
        resolution,
        arclength,
        accuracy: Some(accuracy),
        ..Growth::default()
    };
    g.check()?;
    let mut w = map.work();
    let mut lines = Vec::with_capacity(5);
    let (mut total, mut points, mut evaluations) = (0.0, 0, 0);
    for (name, unstable, side) in BRANCHES {
        let start = Instant::now();
        let c = Curve::new(&map, &sd, unstable, side, g.d0, &mut w)?;
        let b = grow(&map, &c, &g, &Cancel::never())?;
        let s = start.elapsed().as_secs_f64();
        total += s;
        points += b.nodes.len();
        evaluations += b.evaluations;
        lines.push(json!({
            "bench": "manifolds",
            "branch": name,
            "arclength": b.arclength.last().copied().unwrap_or(0.0),
            "accuracy": accuracy,
            "resolution": resolution,
            "points": b.nodes.len(),
            "map_evaluations": b.evaluations,
            "interpolation_error": b.interpolation_error,
            "interpolation_sampled": b.interpolation_sampled,
            "unresolved": b.unresolved,
            "ended": b.ended,
            "wall_s": s,
        }));
    }
    lines.push(json!({
        "bench": "manifolds",
        "branch": "all",
        "saddle": sd.point,
        "points": points,
        "map_evaluations": evaluations,
        "threads": rayon::current_num_threads(),
        "wall_s": total,
    }));
    Ok(lines)
}
