//! Invariant manifolds (`src/analysis/manifold/`), each against an independent route: a linear
//! map's eigenlines, the integrable pendulum's separatrix (its energy), the inverse map, the
//! backward convergence of unstable points, thread independence, the turnstile's equal lobes
//! (area preservation, and their first-order Melnikov area) and the first tangency of the
//! driven damped pendulum against Melnikov's threshold as δ → 0.

#[path = "common/manifold_fixtures.rs"]
mod fixtures;

use fixtures::{branch, double_pendulum_orbit, pendulum};
use pendula::analysis::manifold::grow::Growth;
use pendula::analysis::manifold::intersect::intersections;
use pendula::analysis::manifold::lobe::lobe_area;
use pendula::analysis::manifold::melnikov::{threshold, Melnikov};
use pendula::analysis::manifold::saddle::saddle;
use pendula::analysis::manifold::tangency::{first_tangency, splitting};
use pendula::analysis::manifold::{Branch, FlowMap, LinearMap, MapIntegration, PlaneMap, Saddle};
use pendula::model::{Chain, System};
use std::f64::consts::{PI, TAU};

/// A linear hyperbolic map's manifolds are its eigenlines: every point of each of the four
/// branches lies on the line to round-off, neighbours are at most `resolution` apart and each
/// branch reaches its arclength.
#[test]
fn a_linear_maps_manifolds_are_its_eigenlines() {
    // Eigenvalues −2.5 (a flip saddle: grown by the square) and 0.3; eigenvectors (1, 0.5),
    // (−0.4, 1).
    let (lu, ls) = (-2.5, 0.3);
    let (e1, e2) = ([1.0, 0.5], [-0.4, 1.0]);
    let det = e1[0] * e2[1] - e2[0] * e1[1];
    let inv = [[e2[1] / det, -e2[0] / det], [-e1[1] / det, e1[0] / det]];
    let mut a = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            a[i][j] = [e1, e2][0][i] * lu * inv[0][j] + [e1, e2][1][i] * ls * inv[1][j];
        }
    }
    let map = LinearMap { a };
    let sd = saddle(&map, [0.1, 0.1], 1e-15, 20).unwrap();
    assert!((sd.lambda_u - lu).abs() < 1e-9 && (sd.lambda_s - ls).abs() < 1e-9);
    let g = Growth {
        d0: 1e-3,
        resolution: 0.05,
        arclength: 20.0,
        ..Growth::default()
    };
    for (unstable, e) in [(true, e1), (false, e2)] {
        // The saddle's eigenvectors point to θ ≥ 0 (side +1 is along them).
        let n = e[0].hypot(e[1]) * e[0].signum();
        let e = [e[0] / n, e[1] / n];
        for side in [1.0, -1.0] {
            let b = branch(&map, &sd, unstable, side, &g);
            let mut worst: f64 = 0.0;
            for p in b.points() {
                let off = (e[0] * p[1] - e[1] * p[0]).abs() / (1.0 + p[0].hypot(p[1]));
                worst = worst.max(off);
                // On the branch's own side.
                assert!((e[0] * p[0] + e[1] * p[1]) * side > 0.0);
            }
            assert!(worst < 1e-14, "off the eigenline by {worst:e}");
            assert!(b.largest_gap() <= g.resolution);
            assert!(*b.arclength.last().unwrap() >= g.arclength);
            assert_eq!(b.ended, "arclength");
        }
    }
}

/// The undriven, undamped pendulum (l = m = g = 1): the time-1 flow map's saddle (π, 0) has
/// the multiplier e¹ and its manifolds are the separatrix, where the energy is the top's:
/// E = θ̇²/2 − cos θ = 1 to 1e-10 at every point of all four branches.
#[test]
fn the_pendulums_manifolds_lie_on_the_separatrix_energy() {
    let chain = pendulum(0.0, 0.0, 0.0);
    let map = FlowMap::new(&chain, 1.0, MapIntegration::Adaptive(1e-13)).unwrap();
    let sd = saddle(&map, [PI - 0.01, 0.02], 1e-14, 30).unwrap();
    // (θ* is kept in (−π, π]: π or −π, the same point of the cylinder.)
    assert!((sd.point[0].abs() - PI).abs() < 1e-12 && sd.point[1].abs() < 1e-12);
    assert!((sd.lambda_u - 1f64.exp()).abs() < 1e-8, "{}", sd.lambda_u);
    assert!(
        (sd.lambda_s - (-1f64).exp()).abs() < 1e-8,
        "{}",
        sd.lambda_s
    );
    let g = Growth {
        resolution: 0.02,
        arclength: 6.0,
        ..Growth::default()
    };
    let mut worst: f64 = 0.0;
    let mut count = 0;
    for unstable in [true, false] {
        for side in [1.0, -1.0] {
            let b = branch(&map, &sd, unstable, side, &g);
            for p in b.points() {
                worst = worst.max((chain.energy(0.0, &p) - 1.0).abs());
                count += 1;
            }
            assert!(b.largest_gap() <= g.resolution);
        }
    }
    println!("separatrix: {count} points, largest |E − 1| = {worst:.2e}");
    assert!(worst < 1e-10, "|E − E_top| up to {worst:e}");
}

/// The Baker–Gollub pendulum (q = 2, ω_D = 2/3, A = 1.15): P(P⁻¹(x)) = x to 1e-12 on the fixed
/// grid of 2048 steps a period (a smooth map), to 1e-11 on the adaptive map at 1e-13 (whose
/// backward errors the saddle's 1/|λs| ≈ 470 stretches), and the two maps agree to 1e-11.
#[test]
fn the_inverse_map_undoes_the_map_and_the_map_is_converged() {
    let chain = pendulum(0.5, 1.15, 2.0 / 3.0);
    let t = 3.0 * PI;
    let (m, fine) = (
        FlowMap::new(&chain, t, MapIntegration::Adaptive(1e-13)).unwrap(),
        FlowMap::new(&chain, t, MapIntegration::Fixed(2048)).unwrap(),
    );
    let (mut w, mut wf) = (m.work(), fine.work());
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    // Points whose preimages stay in the region the manifolds cross (|θ̇| < 3): a damped
    // chain's inverse map multiplies the velocities by about e^{δT} ≈ 110 a period, and the
    // error relative to a preimage at θ̇ ~ 300 is 1e-13 of that.
    for z in [
        [0.3, 0.1],
        [-2.0, 1.5],
        [3.0, -0.7],
        [1.0, 2.5],
        [-2.864, 0.906],
    ] {
        let x = m.apply(z, false, &mut w).unwrap();
        let y = m.apply(x, true, &mut w).unwrap();
        let back = m.apply(y, false, &mut w).unwrap();
        let yf = fine.apply(x, true, &mut wf).unwrap();
        let backf = fine.apply(yf, false, &mut wf).unwrap();
        let e = |b: [f64; 2]| (b[0] - x[0]).abs().max((b[1] - x[1]).abs());
        println!(
            "x = {x:?}: P(P⁻¹(x)) − x: adaptive {:.2e}, fixed grid {:.2e}",
            e(back),
            e(backf)
        );
        worst.0 = worst.0.max(e(back));
        worst.2 = worst.2.max(e(backf));
        let (a, b) = (
            m.apply(x, false, &mut w).unwrap(),
            fine.apply(x, false, &mut wf).unwrap(),
        );
        worst.1 = worst.1.max((a[0] - b[0]).abs().max((a[1] - b[1]).abs()));
    }
    println!(
        "P(P⁻¹(x)) − x: adaptive {:.2e}, fixed grid {:.2e}; adaptive − fixed: {:.2e}",
        worst.0, worst.2, worst.1
    );
    assert!(
        worst.2 < 1e-12 && worst.0 < 1e-11 && worst.1 < 1e-11,
        "{worst:?}"
    );
}

/// Points of an unstable branch of the Baker–Gollub saddle return to the saddle under the
/// inverse map: a point of generation g ≤ 1 lands, after g growth steps back, on the point of
/// the fundamental domain it was computed from (within 1e-8: the backward map stretches the
/// transverse round-off by 1/|λs| ≈ 470 per application, and this flip saddle grows by P²,
/// so later generations cannot be checked this way), within d0 of the saddle; the
/// refinement keeps neighbours within the resolution; and one and two threads give the same
/// branch bit for bit, grown to a chord accuracy as well.
#[test]
fn unstable_points_converge_backwards_and_threads_do_not_matter() {
    let chain = pendulum(0.5, 1.15, 2.0 / 3.0);
    let map = FlowMap::new(&chain, 3.0 * PI, MapIntegration::Adaptive(1e-13)).unwrap();
    // The period-1 saddle near the inverted position.
    let sd = saddle(&map, [-2.86, 0.9], 1e-13, 40).unwrap();
    let g = Growth {
        resolution: 0.05,
        arclength: 12.0,
        ..Growth::default()
    };
    let run = |threads: usize, g: &Growth| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| branch(&map, &sd, true, 1.0, g))
    };
    let (one, two) = (run(1, &g), run(2, &g));
    assert_eq!(one, two, "1 and 2 threads differ");
    assert!(one.largest_gap() <= g.resolution);
    // So does a growth to a chord accuracy (points inserted from the previous generation).
    let fine = Growth {
        accuracy: Some(1e-6),
        arclength: 6.0,
        ..g
    };
    assert_eq!(
        run(1, &fine),
        run(2, &fine),
        "1 and 2 threads differ with accuracy"
    );
    let mut w = map.work();
    let c = one.curve;
    let mut worst: f64 = 0.0;
    for n in one.nodes.iter().filter(|n| n.generation <= 1) {
        let back = map
            .iterate(n.point, n.generation as usize * c.power, true, &mut w)
            .unwrap();
        let seed = c.seed(n.s);
        worst = worst.max((back[0] - seed[0]).hypot(back[1] - seed[1]));
        let r = (back[0] - sd.point[0]).hypot(back[1] - sd.point[1]);
        assert!(r <= 1.001 * g.d0, "{r:e}");
    }
    println!(
        "BG saddle ({:.12}, {:.12}), λu = {:.6}, λs = {:.6}; {} points, generations ≤ 1 back-mapped to their seed within {:.2e}",
        sd.point[0], sd.point[1], sd.lambda_u, sd.lambda_s, one.nodes.len(), worst
    );
    assert!(worst < 1e-8, "{worst:e}");
}

/// θ̈ + δθ̇ + sin θ = γ cos ωt at ω = 2 (T = π): the saddle near (π, 0), its unstable branch
/// over the top to the right and the stable branch of the same saddle one turn on.
struct Tangle<'c> {
    map: FlowMap<'c, Chain>,
    saddle: Saddle,
    unstable: Branch,
    stable: Branch,
}

fn tangle<'c>(chain: &'c Chain, guess: [f64; 2], g: &Growth, how: MapIntegration) -> Tangle<'c> {
    let map = FlowMap::new(chain, PI, how).unwrap();
    let sd = saddle(&map, guess, 1e-13, 40).unwrap();
    let unstable = branch(&map, &sd, true, 1.0, g);
    let stable = branch(&map, &sd, false, -1.0, g);
    Tangle {
        map,
        saddle: sd,
        unstable,
        stable,
    }
}

/// The first homoclinic tangency of θ̈ + δθ̇ + sin θ = γ cos 2t located to 1e-8 in γ for
/// δ = 0.04, 0.02, 0.01 against Melnikov's γ_c = (4δ/π) cosh(π): the deviation shrinks like a
/// power of δ above 1 (Melnikov's error is second order in the perturbation, so the relative
/// deviation falls like δ).
#[test]
fn the_first_tangency_approaches_melnikovs_threshold() {
    let omega = 2.0;
    let g = Growth {
        resolution: 0.05,
        arclength: 10.0,
        ..Growth::default()
    };
    let mut rows = Vec::new();
    for delta in [0.04, 0.02, 0.01] {
        let gc = threshold(delta, omega);
        // The chain's own Melnikov form is the same (l = m = g = 1).
        let form = Melnikov::of_chain(&pendulum(delta, gc, omega)).unwrap();
        assert!((form.gamma_c - gc).abs() < 1e-15 && form.omega0 == 1.0);
        let t = first_tangency([0.5 * gc, 2.0 * gc], 1e-8, [PI, 0.0], |gamma, guess| {
            let chain = pendulum(delta, gamma, omega);
            let tg = tangle(&chain, guess, &g, MapIntegration::Adaptive(1e-13));
            // In the cover: the saddle at θ*, its twin one turn on at θ* + 2π.
            let th = tg.saddle.point[0];
            let sp = splitting(
                &tg.map,
                &tg.unstable,
                &tg.stable,
                [TAU, 0.0],
                [th + 0.6, th + TAU - 0.6],
                16,
            )?;
            Ok((sp.distance, tg.saddle.point))
        })
        .unwrap();
        let dev = (t.parameter - gc).abs();
        println!(
            "δ = {delta}: tangency γ = {:.10} (bracket width {:.1e}, {} evaluations), Melnikov γ_c = {gc:.10}, deviation {dev:.3e} ({:.3e} relative)",
            t.parameter,
            t.bracket[1] - t.bracket[0],
            t.steps.len(),
            dev / gc
        );
        assert!(t.bracket[1] - t.bracket[0] <= 1e-8);
        rows.push((delta, dev));
    }
    let slope = (rows[0].1 / rows[2].1).ln() / (rows[0].0 / rows[2].0).ln();
    let slope_near = (rows[1].1 / rows[2].1).ln() / (rows[1].0 / rows[2].0).ln();
    println!("deviation ∝ δ^p: p = {slope:.3} (0.04 → 0.01), {slope_near:.3} (0.02 → 0.01)");
    assert!(rows[0].1 > rows[1].1 && rows[1].1 > rows[2].1, "{rows:?}");
    assert!(slope > 1.2, "the deviation falls like δ^{slope}");
}

/// The undamped driven pendulum (γ = 0.1, ω = 2) grown with `g`: the turnstile's lobe areas
/// between adjacent primary intersection points q₀, q₁, q₂ = P(q₀), each located to 1e-9 (most
/// to 1e-10), and Melnikov's first-order area 4πγ sech(πω/2)/ω.
fn turnstile(g: &Growth) -> (f64, f64, f64) {
    let (gamma, omega) = (0.1, 2.0);
    let chain = pendulum(0.0, gamma, omega);
    // The fixed grid: a smooth map, on which the intersections refine to 1e-10 (the undamped
    // pendulum's velocities stay below 3 rad/s, well resolved by 1024 steps of π/1024 s).
    let tg = tangle(&chain, [PI, 0.0], g, MapIntegration::Fixed(1024));
    let th = tg.saddle.point[0];
    let xs = intersections(&tg.map, &tg.unstable, &tg.stable, &[1], 1e-11).unwrap();
    assert!(!xs.is_empty());
    // Located to 1e-10 where the stretching of round-off allows: a point of generation g
    // carries ~Λ^g·1e-16 along its curve (Λ = e^π here), 2.5e-10 at the far end (g ≈ 5).
    let worst = xs.iter().map(|x| x.residual).fold(0.0, f64::max);
    let within = xs.iter().filter(|x| x.residual <= 1e-10).count();
    println!(
        "{} of {} intersections within 1e-10, the worst {worst:.2e}",
        within,
        xs.len()
    );
    assert!(worst <= 1e-9, "{worst:e}");
    let mid = th + PI - 0.8;
    let i0 = (0..xs.len())
        .min_by(|&a, &b| {
            (xs[a].point[0] - mid)
                .abs()
                .total_cmp(&(xs[b].point[0] - mid).abs())
        })
        .unwrap();
    assert!(i0 + 2 < xs.len(), "{} intersections", xs.len());
    let (q0, q1, q2) = (xs[i0], xs[i0 + 1], xs[i0 + 2]);
    let mut w = tg.map.work();
    let p0 = tg.map.apply(q0.point, false, &mut w).unwrap();
    let d = (p0[0] - q2.point[0]).hypot(p0[1] - q2.point[1]);
    println!(
        "{} intersections; q0 = {:?}, q1 = {:?}, q2 = {:?}, |P(q0) − q2| = {d:.2e}",
        xs.len(),
        q0.point,
        q1.point,
        q2.point
    );
    assert!(d < 1e-9, "q2 is not P(q0): {d:e}");
    let shift = [TAU, 0.0];
    let a01 = lobe_area(&tg.map, &tg.unstable, &tg.stable, shift, &q0, &q1).unwrap();
    let a12 = lobe_area(&tg.map, &tg.unstable, &tg.stable, shift, &q1, &q2).unwrap();
    let first_order = 4.0 * PI * gamma / (PI * omega / 2.0).cosh() / omega;
    println!(
        "lobes: {a01:.12} and {a12:.12}, |sum| = {:.2e}; Melnikov's first order {first_order:.6}",
        (a01 + a12).abs()
    );
    (a01, a12, first_order)
}

/// The growth of the turnstile test.
const TURNSTILE: Growth = Growth {
    d0: 1e-6,
    resolution: 0.01,
    max_angle: 0.05,
    arclength: 7.5,
    max_points: 2_000_000,
    linear_tolerance: 1e-9,
    accuracy: None,
};

/// The undamped driven pendulum's map preserves area: the turnstile's two lobes have equal
/// areas (to 1e-8), of opposite orientation, and near Melnikov's first-order area (within
/// 10 % at γ = 0.1). Grown to a chord accuracy instead (later generations inserted from the
/// previous one, their domain parameters carried back along the pre-images), the branches
/// give the same lobes to 1e-10: intersections and areas are integrated along the manifold
/// between parameters, which the growth's route to its points does not change.
#[test]
fn the_turnstile_lobes_have_equal_areas() {
    let (a01, a12, first_order) = turnstile(&TURNSTILE);
    assert!(a01 * a12 < 0.0, "the lobes lie on opposite sides");
    assert!((a01.abs() - a12.abs()).abs() < 1e-8);
    assert!((a01.abs() - first_order).abs() < 0.1 * first_order);
    let (b01, b12, _) = turnstile(&Growth {
        accuracy: Some(1e-7),
        ..TURNSTILE
    });
    println!(
        "accuracy 1e-7: {:.1e} and {:.1e} from the domain growth's",
        (a01 - b01).abs(),
        (a12 - b12).abs()
    );
    assert!((a01 - b01).abs() < 1e-10 && (a12 - b12).abs() < 1e-10);
}

/// The Poincaré map of the conservative double pendulum on θ₁ = 0 (upward) at the orbit's
/// energy, in (θ₂, p₂): its saddle's multipliers against the orbit's non-trivial Floquet
/// multipliers (the monodromy from the tangent flow, an independent route to the map's
/// Jacobian: the section map's multipliers are the Floquet multipliers of the orbit), and
/// the central differences of the map at three steps (their spread is the Jacobian's error);
/// P(P⁻¹(x)) = x with P⁻¹ by time reversal; every branch point on the energy shell; the
/// integrated crossing state recovered from its plane point; unstable points converging to
/// the saddle under P⁻¹ and stable ones under P.
#[test]
fn the_double_pendulums_section_map_has_the_orbits_multipliers_and_keeps_the_shell() {
    use pendula::analysis::manifold::saddle::jacobian;
    use pendula::analysis::manifold::SectionMap;
    use pendula::analysis::poincare::{orbit, Section, SectionOptions};
    use pendula::integrate::Direction;
    use std::sync::atomic::{AtomicBool, AtomicU64};
    let (chain, o) = double_pendulum_orbit();
    let e = o.energy;
    let map = SectionMap::new(&chain, 0, 0.0, Direction::Rising, e, 1e-13, 150.0).unwrap();
    // The orbit's first crossing seeds Newton on P (one crossing a period).
    let (stop, count) = (AtomicBool::new(false), AtomicU64::new(0));
    let opts = fixtures::one_crossing(o.period);
    let section = Section::angle(0, 0.0, Direction::Rising);
    let first = orbit(&chain, &section, &o.x0, &opts, &stop, &count);
    let sd = saddle(&map, map.point(&first.states[0]), 1e-12, 40).unwrap();
    let (mu, ms) = (o.floquet.multipliers[0].re, o.floquet.multipliers[1].re);
    println!(
        "saddle ({:.12}, {:.12}) residual {:.1e}; map λu = {:.10}, λs = {:.10}, λu·λs = {:.6}; Floquet {mu:.10}, {ms:.10}",
        sd.point[0], sd.point[1], sd.residual, sd.lambda_u, sd.lambda_s, sd.lambda_u * sd.lambda_s
    );
    let mut w = map.work();
    for h in [1e-5, 1e-6, 3e-7, 1e-7] {
        let j =
            pendula::analysis::manifold::saddle::jacobian_step(&map, sd.point, h, &mut w).unwrap();
        let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
        let tr = j[0][0] + j[1][1];
        println!(
            "h = {h:e}: det DP = {det:.8}, trace = {tr:.8} (Floquet sum {:.8})",
            mu + ms
        );
    }
    let _ = jacobian(&map, sd.point, &mut w).unwrap();
    assert!(
        (sd.lambda_u - mu).abs() < 1e-5 * mu.abs(),
        "{} vs {mu}",
        sd.lambda_u
    );
    // At the map's own step (1e-7) the stable multiplier, det DP/λu, carries det DP's error.
    assert!(
        (sd.lambda_s - ms).abs() < 1e-5 * ms.abs(),
        "{} vs {ms}",
        sd.lambda_s
    );
    assert!(
        (sd.lambda_u * sd.lambda_s - 1.0).abs() < 1e-5,
        "area: {}",
        sd.lambda_u * sd.lambda_s
    );

    let g = Growth {
        resolution: 0.02,
        arclength: 4.0,
        ..Growth::default()
    };
    let u = branch(&map, &sd, true, 1.0, &g);
    let s = branch(&map, &sd, false, -1.0, &g);
    // Every point on the shell (its reconstructed state's energy) and P(P⁻¹(x)) = x.
    let mut shell: f64 = 0.0;
    let mut round: f64 = 0.0;
    let mut recovered: f64 = 0.0;
    for (k, x) in u.points().chain(s.points()).enumerate() {
        let st = map.state(x).unwrap();
        shell = shell.max((chain.energy(0.0, &st) - e).abs());
        if k % 10 == 0 {
            let back = map
                .apply(map.apply(x, true, &mut w).unwrap(), false, &mut w)
                .unwrap();
            round = round.max((back[0] - x[0]).hypot(back[1] - x[1]));
            // The crossing state the integration reaches, against the state rebuilt from its
            // plane point and the energy (p₁ from the shell).
            let y = orbit(
                &chain,
                &section,
                &st,
                &SectionOptions {
                    t_end: 150.0,
                    ..opts
                },
                &stop,
                &count,
            );
            let yx = &y.states[0];
            let rebuilt = map.state(map.point(yx)).unwrap();
            let d = (rebuilt[2] - yx[2]).abs().max((rebuilt[3] - yx[3]).abs());
            recovered = recovered.max(d);
        }
    }
    println!(
        "{} + {} points: |E − E₀| ≤ {shell:.1e} J, |P(P⁻¹(x)) − x| ≤ {round:.1e}, crossing state rebuilt to {recovered:.1e} rad/s",
        u.nodes.len(),
        s.nodes.len()
    );
    assert!(shell < 1e-10, "{shell:e}");
    // P⁻¹'s error (the tolerance, ~1e-12 here) is stretched by |λu| ≈ 152 under P.
    assert!(round < 5e-9, "{round:e}");
    assert!(recovered < 1e-8, "{recovered:e}");
    // Unstable points mapped back by P⁻¹ (stable ones forward by P) g·power times land on
    // their seed c(s) of the fundamental domain, within d0 of the saddle: they converge to it.
    // Each application stretches the round-off across the branch by |λu| ≈ 152 (P⁻¹ by
    // 1/|λs|), so only generations ≤ 1 (≤ 2 applications, ×2.3e4) are checked this way.
    for (b, inverse) in [(&u, true), (&s, false)] {
        let c = b.curve;
        let mut worst: f64 = 0.0;
        let mut checked = 0;
        for n in b.nodes.iter().filter(|n| n.generation <= 1) {
            let back = map
                .iterate(n.point, n.generation as usize * c.power, inverse, &mut w)
                .unwrap();
            let seed = c.seed(n.s);
            worst = worst.max((back[0] - seed[0]).hypot(back[1] - seed[1]));
            let r = (back[0] - sd.point[0]).hypot(back[1] - sd.point[1]);
            assert!(r <= 1.001 * g.d0, "{r:e}");
            checked += 1;
        }
        let far = b
            .nodes
            .iter()
            .filter(|n| n.generation <= 1)
            .map(|n| (n.point[0] - sd.point[0]).hypot(n.point[1] - sd.point[1]))
            .fold(0.0, f64::max);
        println!(
            "{}: {checked} points of generations ≤ 1 (up to {far:.3} from the saddle) mapped to their seeds within {worst:.1e}",
            if inverse { "unstable" } else { "stable" }
        );
        assert!(checked > 10 && far > 1e-3, "{checked} {far}");
        assert!(worst < 1e-7, "{worst:e}");
    }
}
