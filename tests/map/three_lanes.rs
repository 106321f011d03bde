//! The three-link SIMD lanes (`lanes::three_link`) against the generic scalar path (`Kernel::Scalar`:
//! `Chain` as a `System` through `Flow` and `integrate::Rk4`), on the whole square
//! [−π, π)² of (θ1, θ2) at 32², released from rest with θ3 = 0: point masses and rods, with and
//! without damping and drive, flip-time and final-state maps. The lanes follow the scalar
//! route's arithmetic operation for operation except sin/cos (a vectorisable polynomial
//! against the C library's, both ≈ 1 ulp), so the two agree to rounding until chaos
//! amplifies that last bit; where a decision (flip step, class) sits inside that rounding the
//! two paths may differ, and the tests say how many pixels may.

use crate::harness::{assert_agree, lanes_and_scalar};
use pendula::analysis::map::basins::Settle;
use pendula::analysis::map::{compute_map, FlipTarget, MapData, MapKind, MapOptions};
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, PivotMotion};
use pendula::observe::Silent;
use std::f64::consts::PI;

fn chain(rods: bool, damping: bool, drive: bool) -> Chain {
    chain_with(rods, if damping { 1.0 } else { 0.0 }, drive)
}

/// Damping scaled by `gamma` (0 for none).
fn chain_with(rods: bool, gamma: f64, drive: bool) -> Chain {
    let mut p = if rods {
        ChainParams::equal_rods(3)
    } else {
        ChainParams::equal_points(3)
    };
    if gamma > 0.0 {
        p.damping = Damping {
            absolute: vec![0.4 * gamma, 0.3 * gamma, 0.2 * gamma],
            joint: vec![0.1 * gamma, 0.05 * gamma, 0.08 * gamma],
        };
    }
    if drive {
        p.drive = Drive {
            torque: Some(Harmonic {
                amplitude: 1.2,
                frequency: 2.0,
                phase: 0.3,
            }),
            pivot: Some(PivotMotion {
                x_amplitude: 0.04,
                y_amplitude: 0.02,
                frequency: 2.0,
                phase: 0.0,
            }),
        };
    }
    Chain::new(p).unwrap()
}

/// A w² map over [−π, π)² of (θ1, θ2), θ3 = 0, from rest.
fn opts(w: usize, kind: MapKind, t_max: f64, dt: f64) -> MapOptions {
    let mut o = MapOptions::benchmark_f(w, t_max);
    o.grid.base = vec![0.0; 6];
    o.kind = kind;
    o.dt = dt;
    o.tile = 8;
    o
}

/// The stroboscopic rule of the driven final-state maps: one sample a drive period (100 steps
/// of h = period / 100), orbits up to period 4 repeated 3 times within 1e-3.
fn strobe_rule() -> Settle {
    Settle::stroboscopic(1e-3, 100, 4, 3)
}

fn both(chain: &Chain, o: &MapOptions) -> (MapData, MapData) {
    lanes_and_scalar(chain, o, "simd-three-link")
}

/// Flip steps, links, classes and located times of every pixel: pixels whose flip step
/// differs are counted (at most `allowed`), located times of the agreeing ones compared to
/// `tol` seconds. Returns the number of flipped pixels.
fn compare_flips(label: &str, fast: &MapData, slow: &MapData, allowed: usize, tol: f64) -> usize {
    let n = fast.flip_step.len();
    let mut differ = 0;
    let mut worst: f64 = 0.0;
    for p in 0..n {
        if fast.flip_step[p] != slow.flip_step[p] {
            differ += 1;
            continue;
        }
        assert_eq!(
            fast.flip_link[p], slow.flip_link[p],
            "{label} pixel {p}: link"
        );
        assert_eq!(fast.class[p], slow.class[p], "{label} pixel {p}: class");
        let (a, b) = (fast.aux[p], slow.aux[p]);
        if fast.flip_step[p] > 0 {
            worst = worst.max((a - b).abs());
        } else {
            assert!(a.is_nan() && b.is_nan(), "{label} pixel {p}");
        }
    }
    let flipped = fast.flip_step.iter().filter(|&&k| k > 0).count();
    eprintln!(
        "{label}: {differ} of {n} pixels with different flip steps, {flipped} flipped, \
         located times within {worst:.1e} s"
    );
    assert!(differ <= allowed, "{label}: {differ} pixels differ");
    assert!(worst <= tol, "{label}: located times differ by {worst}");
    flipped
}

/// Flip-time maps to 10 s (dt = 0.01 s) of point masses and rods, conservative and with
/// damping and drive: identical flip steps, links and classes on every pixel, and located
/// flip times to 1e-9 s.
#[test]
fn flip_time_lanes_match_the_scalar_path() {
    let kind = MapKind::FlipTime {
        target: FlipTarget::Any,
    };
    for rods in [false, true] {
        for forced in [false, true] {
            let c = chain(rods, forced, forced);
            let o = opts(32, kind, 10.0, 0.01);
            let (fast, slow) = both(&c, &o);
            let label = format!("flip rods={rods} damped+driven={forced}");
            let flipped = compare_flips(&label, &fast, &slow, 0, 1e-9);
            assert!(flipped > 100, "{label}: {flipped} flips");
            assert_eq!(fast.steps, slow.steps, "{label}");
        }
    }
    // One watched link (link 3, the free end).
    let c = chain(false, false, false);
    let o = opts(
        32,
        MapKind::FlipTime {
            target: FlipTarget::Link(2),
        },
        10.0,
        0.01,
    );
    let (fast, slow) = both(&c, &o);
    let flipped = compare_flips("flip of link 3", &fast, &slow, 0, 1e-9);
    assert!(flipped > 50);
    assert!(fast.flip_link.iter().all(|&l| l == 0 || l == 3));
}

/// Final-state maps: damped (equilibrium rule) and damped + driven (stroboscopic rule), point
/// masses and rods: identical classes on every pixel, and where settled the same settle time
/// and final angles within 1e-6 rad.
#[test]
fn final_state_lanes_match_the_scalar_path() {
    let dwell = Settle {
        angle_tol: 0.02,
        omega_tol: 0.02,
        dwell_steps: 100,
        strobe: None,
    };
    let period = PI; // 2π/Ω, Ω = 2
    let strobe = strobe_rule();
    for rods in [false, true] {
        for driven in [false, true] {
            let c = chain_with(rods, 4.0, driven);
            let o = if driven {
                opts(
                    32,
                    MapKind::FinalState { settle: strobe },
                    24.0 * period,
                    period / 100.0,
                )
            } else {
                opts(32, MapKind::FinalState { settle: dwell }, 20.0, 0.01)
            };
            let (fast, slow) = both(&c, &o);
            let label = format!("final state rods={rods} driven={driven}");
            let n = fast.class.len();
            let m = fast.aux_width;
            assert_eq!(m, 9, "three columns per link");
            let mut settled = 0;
            let mut worst: f64 = 0.0;
            for p in 0..n {
                assert_eq!(fast.class[p], slow.class[p], "{label} pixel {p}: class");
                let (tf, ts) = (fast.value[p], slow.value[p]);
                assert!(
                    tf == ts || (tf.is_nan() && ts.is_nan()),
                    "{label} pixel {p}: settle {tf} vs {ts}"
                );
                if tf.is_finite() {
                    settled += 1;
                    for j in 0..3 {
                        let (a, b) = (fast.aux[p * m + j], slow.aux[p * m + j]);
                        worst = worst.max((a - b).abs());
                    }
                }
            }
            eprintln!("{label}: {settled} of {n} settled, final angles within {worst:.1e}");
            let need = if driven { n / 2 } else { n / 10 };
            assert!(settled >= need, "{label}: only {settled} settled");
            assert!(worst <= 1e-6, "{label}: angles differ by {worst}");
            assert_eq!(fast.steps, slow.steps, "{label}");
        }
    }
}

/// Lanes vs scalar for the Lagrangian descriptor on three links (`--kernel lanes`): point
/// masses and rods, with and without damping and drive, over the whole 32² square for
/// t_max = 1 s forward and backward, within the harness's agreement of the kind.
#[test]
fn descriptor_lanes_match_the_scalar_path() {
    let kind = MapKind::LagrangianDescriptor { p: 0.5 };
    for (rods, damping, drive) in [
        (false, false, false),
        (true, false, false),
        (false, true, false),
        (true, true, true),
    ] {
        let c = chain(rods, damping, drive);
        let (fast, slow) = both(&c, &opts(32, kind, 1.0, 0.01));
        let label = format!("three links: rods {rods}, damping {damping}, drive {drive}");
        assert_agree(&label, kind, &fast, &slow);
    }
}

/// 1 vs 2 threads and two tile sizes give the same bits on the three-link lanes (flip and
/// final-state maps, damped and driven).
#[test]
fn threads_and_tiles_do_not_change_the_bits() {
    let period = PI; // 2π/Ω, Ω = 2
    let strobe = strobe_rule();
    let flip = MapKind::FlipTime {
        target: FlipTarget::Any,
    };
    let cases = [
        (chain(true, true, true), opts(20, flip, 4.0, 0.01)),
        (
            chain_with(true, 4.0, true),
            opts(
                20,
                MapKind::FinalState { settle: strobe },
                12.0 * period,
                period / 100.0,
            ),
        ),
    ];
    for (chain, mut o) in cases {
        assert_eq!(o.kernel_name(&chain), "simd-three-link");
        let mut maps = vec![];
        for (threads, tile) in [(1, 8), (2, 8), (2, 16)] {
            o.tile = tile;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            maps.push(pool.install(|| compute_map(&chain, &o, &mut Silent)));
        }
        let bits = |m: &MapData| {
            let b = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            (
                m.class.clone(),
                m.flip_step.clone(),
                b(&m.value),
                b(&m.aux),
                m.steps,
            )
        };
        for m in &maps[1..] {
            assert!(m.complete());
            assert_eq!(bits(m), bits(&maps[0]));
        }
    }
}
