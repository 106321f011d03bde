//! Branch switching at a branch point of cycles (issue 50): the upright double pendulum on a
//! vertically vibrated pivot (Kapitza) loses stability at the lower edge of its window through a
//! multiplier +1 where the upright orbit goes on: a symmetry-breaking pitchfork. The switched
//! branch's orbits are tilted (asymmetric), their distance from the upright orbit grows like
//! √|a − a*|, their mirror images θ → −θ are orbits too, and they are unstable: averaging the
//! vibration, the tilted states are the saddles of Kapitza's effective potential
//! U = −g·(upright height) + (aΩ)²/4 · |∂(bob positions)/∂θ · …|², which branch off the upright
//! minimum inside the window (a > a*), a subcritical pitchfork.

use pendula::analysis::periodic::{
    continue_branch, find, propagate, switch_branch_point, BifurcationKind, Closure,
    ContinuationOptions, Guess, PeriodicError, ShootingOptions, Stability,
};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, PivotMotion};
use pendula::observe::{Cancel, Silent};
use std::f64::consts::PI;

#[path = "common/loglog.rs"]
mod loglog;
#[path = "common/spawn.rs"]
mod spawn;

const OMEGA: f64 = 200.0;

/// The double pendulum (1 kg, 1 m point masses, g = 9.81) on a pivot y = a cos Ωt.
fn double(a: f64) -> Chain {
    let mut p = ChainParams::equal_points(2);
    p.gravity = 9.81;
    p.drive.pivot = Some(PivotMotion {
        x_amplitude: 0.0,
        y_amplitude: a,
        frequency: OMEGA,
        phase: 0.0,
    });
    Chain::new(p).unwrap()
}

fn family(a: f64) -> Result<(Chain, Closure), PeriodicError> {
    Ok((
        double(a),
        Closure::Driven {
            drive_period: 2.0 * PI / OMEGA,
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

/// The angle `x` less the nearest multiple of 2π.
fn wrap(x: f64) -> f64 {
    x - (x / (2.0 * PI)).round() * 2.0 * PI
}

/// A start's distance (max norm) from the upright state θ = π, θ̇ = 0.
fn from_upright(x: &[f64]) -> f64 {
    let n = x.len() / 2;
    (0..x.len())
        .map(|i| if i < n { wrap(x[i] - PI) } else { x[i] }.abs())
        .fold(0.0, f64::max)
}

#[test]
fn kapitza_double_pendulum_lower_edge_is_a_pitchfork_and_its_branch_is_switched() {
    let td = 2.0 * PI / OMEGA;
    let a0 = 0.065;
    let upright = find(
        &double(a0),
        &Guess {
            x0: vec![PI, PI, 0.0, 0.0],
            period: td,
        },
        Closure::Driven {
            drive_period: td,
            k: 1,
        },
        &shooting(),
        &Cancel::never(),
    )
    .unwrap();
    assert_eq!(upright.floquet.stability, Stability::Elliptic);
    let down = ContinuationOptions {
        min: 0.02,
        max: 0.1,
        points: 200,
        step: 1e-3,
        max_step: 0.005,
        increasing: false,
        locate_tolerance: 1e-12,
        ..ContinuationOptions::default()
    };
    let branch = continue_branch(&family, &upright, a0, &shooting(), &down, &mut Silent).unwrap();
    let bp = branch
        .bifurcations
        .iter()
        .find(|b| b.kind == BifurcationKind::BranchPoint)
        .expect("the window's lower edge")
        .clone();
    let a_star = bp.parameter;
    // Averaging: a²Ω² = (2 + √2) g l, off by O(q²) (q = 2a/l ≈ 0.06): the README's 0.028938575.
    let averaged = ((2.0 + 2f64.sqrt()) * 9.81).sqrt() / OMEGA;
    eprintln!("branch point a* = {a_star:.12} (averaging {averaged:.9})");
    assert!(
        (a_star / averaged - 1.0).abs() < 1e-4,
        "{a_star} vs {averaged}"
    );
    assert_eq!(bp.from, Stability::Elliptic);

    let opts = ContinuationOptions {
        min: 0.02,
        max: 0.04,
        points: 40,
        step: 2e-3,
        min_step: 1e-10,
        max_step: 0.02,
        locate_tolerance: 1e-12,
        ..ContinuationOptions::default()
    };
    let sw = switch_branch_point(&family, &bp, &shooting(), &opts, &mut Silent).unwrap();
    let [a11, a12, a22] = sw.branching;
    eprintln!(
        "branching a11 {a11:.3e} a12 {a12:.3e} a22 {a22:.3e}; rank gap {:.2e}; first point {:.3e} from the upright at a = {:.12}; mirror {:.2e} (tol {:.1e}); direction {:?}; ended {}",
        sw.rank_gap, sw.distance, sw.first_parameter, sw.mirror_distance, sw.mirror_tolerance,
        sw.direction, sw.branch.ended
    );
    // The symmetric orbit's own branch lies along φ₁ = e_p (F_p = 0 at the upright state), so
    // a₁₁ = 0; the reflection makes a₂₂ = 0: a pitchfork.
    assert!(a11.abs() < 1e-4 * a12.abs() && a22.abs() < 1e-4 * a12.abs());
    assert!(sw.rank_gap < 1e-6, "{}", sw.rank_gap);
    // The direction is a state direction, symmetric-breaking: both angles tilt the same way
    // (the lower edge is the first mode's, the bobs on one side).
    assert_eq!(sw.direction[4], 0.0);
    assert!(
        sw.direction[0] * sw.direction[1] > 0.0,
        "{:?}",
        sw.direction
    );
    assert!(sw.mirror, "the −c half is not the +c half's mirror");
    assert!(sw.other.is_none());
    let pts = &sw.branch.points;
    assert!(
        pts.len() > 10,
        "{} points, ended {}",
        pts.len(),
        sw.branch.ended
    );

    // Asymmetric orbits on one side: a > a* (inside the window, as averaging predicts).
    let rows: Vec<(f64, f64)> = pts[1..]
        .iter()
        .map(|p| (p.parameter - a_star, from_upright(&p.orbit.x0)))
        .collect();
    for &(dp, d) in &rows {
        eprintln!("a − a* = {dp:.6e}   distance {d:.6e}");
        assert!(dp > 0.0, "a tilted orbit below the edge: {dp}");
        assert!(d > 1e-4, "{d}");
    }
    // √|a − a*|: the slope of log d against log(a − a*) over the points within 0.1 rad.
    let near: Vec<&(f64, f64)> = rows.iter().filter(|r| r.1 < 0.1).collect();
    assert!(near.len() >= 4, "{}", near.len());
    let dp: Vec<f64> = near.iter().map(|r| r.0).collect();
    let d: Vec<f64> = near.iter().map(|r| r.1).collect();
    let slope = loglog::slope(&dp, &d);
    eprintln!("log-log slope {slope:.5} over {} points", near.len());
    assert!((slope - 0.5).abs() < 0.02, "slope {slope}");

    // Each orbit: unstable (a saddle of the effective potential: a real pair off the circle),
    // and its mirror image θ → −θ closes after one drive period like the orbit itself.
    let method = Method::Dop853 {
        rtol: 1e-13,
        atol: 1e-13,
        h_max: f64::INFINITY,
    };
    for p in &pts[1..] {
        assert_eq!(
            p.orbit.floquet.stability,
            Stability::Hyperbolic,
            "a = {}",
            p.parameter
        );
        let mirror: Vec<f64> = p.orbit.x0.iter().map(|v| -v).collect();
        let end = propagate(
            &double(p.parameter),
            &method,
            0.0,
            &mirror,
            td,
            1,
            &mut Silent,
        )
        .unwrap()
        .x;
        let miss = (0..4)
            .map(|i| {
                if i < 2 {
                    wrap(end[i] - mirror[i])
                } else {
                    end[i] - mirror[i]
                }
                .abs()
            })
            .fold(0.0, f64::max);
        let apart = (0..2)
            .map(|i| wrap(mirror[i] - p.orbit.x0[i]).abs())
            .fold(0.0, f64::max);
        assert!(
            miss < 1e-9,
            "a = {}: the mirror misses by {miss:.2e}",
            p.parameter
        );
        assert!(
            apart > 1e-4,
            "a = {}: the mirror is the orbit itself",
            p.parameter
        );
    }
    // An independent search from the switched orbit (perturbed by 1e-3) lands on it again.
    let p = &pts[pts.len() / 2];
    let guess: Vec<f64> = p.orbit.x0.iter().map(|v| v + 1e-3).collect();
    let again = find(
        &double(p.parameter),
        &Guess {
            x0: guess,
            period: td,
        },
        Closure::Driven {
            drive_period: td,
            k: 1,
        },
        &shooting(),
        &Cancel::never(),
    )
    .unwrap();
    let gap = (0..4)
        .map(|i| (again.x0[i] - p.orbit.x0[i]).abs())
        .fold(0.0, f64::max);
    assert!(gap < 1e-8, "{gap}");
}

/// The shipped analysis with `follow = "all"`: both branch points of the upright orbit switched
/// (each a pitchfork, its mirror half noted), the upper edge's period doubling followed, in the
/// JSON and the file; and `--follow` refusing an unknown word, naming the field, exit 2.
#[test]
fn the_shipped_follow_analysis_and_its_refusal() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.h5");
    let (code, out, err) = spawn::run(
        &[
            "run",
            "analyses/orbits-kapitza-double-follow.toml",
            "--json",
            "-o",
            file.to_str().unwrap(),
            "--plot",
            dir.path().join("f.png").to_str().unwrap(),
        ],
        root,
    );
    assert_eq!(code, 0, "{err}");
    let v = spawn::json(&out);
    let labels: Vec<&str> = v["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "period-1 up",
            "period-1 down",
            "period-doubling-1 period-2",
            "branch-point-1",
            "branch-point-2"
        ]
    );
    let first = |label: &str| {
        v["branches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["label"] == label)
            .unwrap()["parameter_first"]
            .as_f64()
            .unwrap()
    };
    // Each new branch starts at its bifurcation (the README's values).
    assert!((first("branch-point-1") - 0.028938575).abs() < 1e-9);
    assert!((first("branch-point-2") - 0.011990387).abs() < 1e-9);
    assert!((first("period-doubling-1 period-2") - 0.133392045).abs() < 1e-9);
    let notes = v["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes
        .iter()
        .all(|n| n.as_str().unwrap().contains("mirror image")));
    assert!(file.exists());

    // A spec's bad `follow` and the flag on an action that does not continue: exit 2, one
    // line naming the field (or the flag that set it), no file.
    let text =
        std::fs::read_to_string(root.join("analyses/orbits-kapitza-double-follow.toml")).unwrap();
    let named = |err: &str| err.contains("orbits.follow: ") || err.contains("--follow: ");
    let refused = dir.path().join("g.h5");
    let refused = refused.to_str().unwrap();
    for (follow, message) in [
        ("\"fold\"", "unknown bifurcation `fold`"),
        (
            "[\"branch-point\", \"branch-point\"]",
            "`branch-point` is named twice",
        ),
    ] {
        let spec = dir.path().join("bad.toml");
        std::fs::write(
            &spec,
            text.replace("follow = \"all\"", &format!("follow = {follow}")),
        )
        .unwrap();
        let (code, _, err) = spawn::run(&["run", spec.to_str().unwrap(), "-o", refused], root);
        assert_eq!(code, 2, "{err}");
        assert!(named(&err) && err.contains(message), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!dir.path().join("g.h5").exists());
    }
    let (code, _, err) = spawn::run(
        &[
            "orbits", "find", "--preset", "double", "--start", "mode", "--follow", "all", "-o",
            refused,
        ],
        root,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        named(&err) && err.contains("applies to action = \"continue\""),
        "{err}"
    );
    assert!(!dir.path().join("g.h5").exists());
}
