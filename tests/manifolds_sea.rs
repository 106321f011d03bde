//! The double pendulum's manifolds where its chaotic sea begins
//! (analyses/manifolds-double-pendulum-sea.toml), each number against an independent route:
//! the onset of the sea (the chaotic fraction of `poincare`'s shell grid below and above
//! E ≈ −19 J), the section map's multipliers against the shooting's Floquet multipliers, the
//! mirror saddle given by the chain's reversing symmetry, and the transverse heteroclinic point
//! of the pair on the symmetry line, whose forward and backward images converge to the two
//! saddles.

#[path = "common/manifold_fixtures.rs"]
mod fixtures;
#[path = "common/spawn.rs"]
mod spawn;

use pendula::analysis::manifold::grow::Growth;
use pendula::analysis::manifold::intersect::intersections;
use pendula::analysis::manifold::saddle::saddle;
use pendula::analysis::manifold::{Branch, PlaneMap, Saddle, SectionMap, P2};
use pendula::integrate::Direction;

/// Where the sea begins (the shipped spec's energy, J).
const E: f64 = -19.0;

fn dist(a: P2, b: P2) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// A branch grown to `g`, cut at its first gap wider than the resolution (the map's
/// discontinuity, where orbits graze the section: as the `manifolds` kind cuts it).
fn branch<M: PlaneMap>(map: &M, sd: &Saddle, unstable: bool, side: f64, g: &Growth) -> Branch {
    let mut b = fixtures::branch(map, sd, unstable, side, g);
    if let Some(i) = b
        .nodes
        .windows(2)
        .position(|w| dist(w[0].point, w[1].point) > g.resolution)
    {
        b.nodes.truncate(i + 1);
        b.arclength.truncate(i + 1);
    }
    b
}

/// The saddle A (released at rest from θ = (0.2, 1.594), `--start return`, shot at E = −19 J)
/// and its mirror B; the map's multipliers against the shooting's Floquet multipliers (the
/// monodromy of the tangent flow, an independent route to DP); W^u(A) ∩ W^s(B) on θ₂ = 0.
#[test]
fn the_seas_saddle_pair_has_the_orbits_multipliers_and_a_transverse_heteroclinic_point() {
    let chain = fixtures::double_pendulum();
    let x0 = vec![
        -0.002296218430673316,
        0.753774668480985,
        2.7635685571619244,
        0.0661615812135817,
    ];
    let o = fixtures::shot(&chain, x0, 2.7215, Some(E));
    assert!((o.energy - E).abs() < 1e-9, "{}", o.energy);
    let map =
        SectionMap::new(&chain, 0, 0.0, Direction::Rising, E, 1e-13, 50.0 * o.period).unwrap();
    let first = fixtures::first_crossing(&chain, &o);
    let a = saddle(&map, map.point(&first), 1e-12, 40).unwrap();
    let (mu, ms) = (o.floquet.multipliers[0].re, o.floquet.multipliers[1].re);
    println!(
        "period {:.10} s; A = ({:.12}, {:.12}), λu = {:.10}, λs = {:.10}; Floquet {mu:.10}, {ms:.10}",
        o.period, a.point[0], a.point[1], a.lambda_u, a.lambda_s
    );
    assert!((o.period - 2.7215420).abs() < 1e-6, "{}", o.period);
    assert!(
        (a.lambda_u - mu).abs() < 1e-6 * mu,
        "{} vs {mu}",
        a.lambda_u
    );
    assert!(
        (a.lambda_s - ms).abs() < 1e-6 * ms,
        "{} vs {ms}",
        a.lambda_s
    );
    assert!((a.lambda_u * a.lambda_s - 1.0).abs() < 1e-6);
    // Hyperbolic with positive multipliers: a saddle of the map, not a flip saddle.
    assert!(a.lambda_u > 2.9 && a.lambda_u < 3.0, "{}", a.lambda_u);

    // The reversing symmetry (θ, θ̇, t) → (−θ, θ̇, −t) keeps upward crossings of θ₁ = 0 and maps
    // (θ₂, p₂) → (−θ₂, p₂): Newton from A's mirror converges onto it, a second saddle.
    let b = saddle(&map, [-a.point[0], a.point[1]], 1e-12, 40).unwrap();
    println!(
        "B = ({:.12}, {:.12}), λu = {:.10}",
        b.point[0], b.point[1], b.lambda_u
    );
    assert!((b.point[0] + a.point[0]).abs() < 1e-9 && (b.point[1] - a.point[1]).abs() < 1e-9);
    assert!((b.lambda_u - a.lambda_u).abs() < 1e-6 * a.lambda_u);
    assert!(dist(a.point, b.point) > 1.0, "B is not A");

    // W^u(A) (both sides) against W^s(B) (both sides): the mirror of W^u(A) is W^s(B), so where
    // W^u(A) crosses θ₂ = 0 the two meet.
    let g = Growth {
        resolution: 0.01,
        arclength: 2.5,
        ..Growth::default()
    };
    let mut found = Vec::new();
    for su in [1.0, -1.0] {
        let u = branch(&map, &a, true, su, &g);
        for ss in [1.0, -1.0] {
            let s = branch(&map, &b, false, ss, &g);
            found.extend(intersections(&map, &u, &s, &[0], 1e-11).unwrap());
        }
    }
    for x in &found {
        println!(
            "heteroclinic ({:.10}, {:.10}), residual {:.1e}, angle {:.6} rad, arclength {:.4} / {:.4}",
            x.point[0], x.point[1], x.residual, x.angle, x.arclength_unstable, x.arclength_stable
        );
    }
    let h = found
        .iter()
        .find(|x| x.point[0].abs() < 1e-3)
        .expect("a heteroclinic point on the symmetry line θ₂ = 0");
    // On the symmetry line and at equal arclengths from A and B, as the symmetry demands.
    assert!(h.point[0].abs() < 1e-8, "{:?}", h.point);
    assert!((h.arclength_unstable - h.arclength_stable).abs() < 1e-6);
    assert!(h.residual < 1e-8, "{}", h.residual);
    // Transverse: 0.1693 rad at E = −19 J.
    assert!((h.angle - 0.1693).abs() < 1e-3, "transverse: {}", h.angle);
    assert!((2.9..3.2).contains(&h.point[1]), "{:?}", h.point);
    // Independent of the curves: the point's images converge to B forward and to A backward,
    // by about λs per application.
    let mut w = map.work();
    let (mut fwd, mut back) = (h.point, h.point);
    let (mut df, mut db) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        fwd = map.apply(fwd, false, &mut w).unwrap();
        back = map.apply(back, true, &mut w).unwrap();
        df.push(dist(fwd, b.point));
        db.push(dist(back, a.point));
    }
    println!("|Pⁿ(h) − B|: {df:?}\n|P⁻ⁿ(h) − A|: {db:?}");
    assert!(df[7] < 1e-2 && db[7] < 1e-2, "{} {}", df[7], db[7]);
    for d in [&df, &db] {
        let ratio = d[7] / d[5];
        let expected = a.lambda_s * a.lambda_s;
        assert!(
            (ratio / expected - 1.0).abs() < 0.1,
            "contraction {ratio} vs λs² = {expected}"
        );
    }
}

/// The onset of the sea with `poincare`'s own tools: on an 8 × 5 grid of its θ₁ = 0 section
/// (200 crossings per orbit), no orbit is chaotic (λ(T) > 0.05 s⁻¹) at E = −21 J and a sizeable
/// fraction is at −17 J (the shipped scan, 12 × 8 and 400 crossings, gives 0/76 and 21/72).
#[test]
fn the_sea_begins_between_minus_21_and_minus_17_joules() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scan.toml"),
        r#"kind = "poincare"
[model]
preset = "double"
[integrator]
method = "dop853"
rtol = 1e-10
atol = 1e-10
[poincare]
section = "theta1"
value = 0.0
direction = "+"
energy = [-21.0, -17.0]
link = 2
variables = "momentum"
grid = [8, 5]
crossings = 200
t_end = 1000.0
lyapunov = true
chaos_threshold = 0.05
[output]
file = "scan.h5"
"#,
    )
    .unwrap();
    let (code, out, err) = spawn::run(&["run", "scan.toml", "--json"], dir.path());
    assert_eq!(code, 0, "{err}");
    let j = spawn::json(&out);
    let shells = j["shells"].as_array().unwrap();
    let frac: Vec<f64> = shells
        .iter()
        .map(|s| s["chaotic_orbits"].as_f64().unwrap() / s["orbits"].as_f64().unwrap())
        .collect();
    println!("chaotic fraction: {frac:?}");
    assert_eq!(frac[0], 0.0);
    assert!(frac[1] > 0.15, "{}", frac[1]);
}
