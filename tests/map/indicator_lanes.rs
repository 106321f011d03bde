//! SALI and GALI maps on the SIMD tangent lanes (`analysis::map::lanes::indicators`) against
//! the scalar path (`Kernel::Scalar`: the single-orbit `indicators` per pixel, `System` + RK4
//! through `Flow`), over benchmark F's whole square, point masses and rods, with and without
//! damping and drive; lane widths, threads and tiles bit for bit.
//!
//! The two paths differ only by rounding (the kernel's sin/cos polynomial and product order
//! vs libm and the chain's own `rhs_tangent`); the reduction every τ (normalise, SALI, the
//! Householder |R_ii| of GALI) is the same operations in the same order.

use pendula::analysis::map::lanes::indicators::{indicator_run, IndicatorGrid};
use pendula::analysis::map::lanes::{Fixed, Widest};
use pendula::analysis::map::{self, class, MapKind, MapOptions};
use pendula::analysis::orbit::{indicators, AlignmentOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

use crate::chains::{assert_threads_and_tiles_agree, chains};
use crate::harness::whole_square;

const KINDS: [MapKind; 4] = [
    MapKind::Sali { tau_steps: 10 },
    MapKind::Gali {
        k: 2,
        tau_steps: 10,
    },
    MapKind::Gali { k: 3, tau_steps: 5 },
    MapKind::Gali {
        k: 4,
        tau_steps: 10,
    },
];

/// Every kind, chain and pixel of the 32² square over t_max = 1 s: the same classes, chaos
/// times and steps, SALI and GALI_k within 1e-12 relative, on the scale 1e-4 for smaller
/// values: GALI_4 of nearly dependent unit vectors is a small remainder of O(1) products, so
/// its rounding is absolute, not relative (measured: worst 6.9e-13 on that scale; pure
/// relative ≤ 1.7e-13 for SALI and GALI_2, up to 6.2e-11 at GALI_4 = 1.2e-10 on rods, i.e.
/// ~1e-20 absolute).
#[test]
fn lanes_match_the_scalar_path_on_the_whole_square() {
    whole_square(&KINDS);
}

/// Pixels in the chaotic sea and on regular islands over 30 s, where SALI falls below 1e-8
/// (chaotic, with a chaos time) and below 1e-14 (the run stops early, the lane refills):
/// the lanes give each pixel's class, chaos time and step count as the single-orbit
/// `indicators` does, its steps to 1 %, and its value wherever that value is above round-off
/// (SALI > 1e-6; below, the final SALI is rounding noise of the unit vectors' difference).
#[test]
fn lanes_match_single_orbits_through_the_early_stop() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let p = map::two_link_any(&chain).unwrap();
    let y0: Vec<[f64; 4]> = (0..24)
        .map(|i| {
            let a = 0.1 + 0.12 * f64::from(i);
            [a, 0.8 * a, 0.0, 0.0]
        })
        .collect();
    let h = 0.01;
    let io = AlignmentOptions {
        tau: 0.1,
        time: 30.0,
        k: 3,
        max_history: 16,
        ..AlignmentOptions::default()
    };
    for gali in [false, true] {
        let g = IndicatorGrid::new(&io, h, gali).unwrap();
        let np = y0.len();
        let (mut value, mut aux, mut cls) = (vec![0.0; np], vec![0.0; np], vec![0u8; np]);
        let steps = indicator_run::<Widest>(&p, &y0, h, &g, &mut value, &mut aux, &mut cls);
        let mut want_steps = 0;
        let (mut stopped, mut regular) = (0, 0);
        for (q, y) in y0.iter().enumerate() {
            let r = indicators(&chain, &Method::Rk4 { dt: h }, y, &io, &mut Silent).unwrap();
            want_steps += r.steps;
            let want = if gali {
                r.gali[(r.gali.nrows() - 1, 1)]
            } else {
                *r.sali.last().unwrap()
            };
            let want_class = match r.regularity.name() {
                "chaotic" => class::CHAOTIC,
                "regular" => class::REGULAR,
                _ => class::UNDECIDED,
            };
            assert_eq!(cls[q], want_class, "pixel {q}");
            assert_eq!(
                aux[q].to_bits(),
                r.chaos_time.unwrap_or(f64::NAN).to_bits(),
                "pixel {q}"
            );
            let s = *r.sali.last().unwrap();
            if s > 1e-6 {
                let d = (value[q] - want).abs() / want.abs();
                assert!(d <= 1e-9, "pixel {q}: {} vs {want} ({d:e})", value[q]);
            } else {
                assert!(value[q] < 1e-6 * 10.0, "pixel {q}: {}", value[q]);
            }
            stopped += usize::from(r.stopped_below);
            regular += usize::from(want_class == class::REGULAR);
        }
        // Where SALI crosses 1e-14 (the stop) it is round-off of the unit vectors'
        // difference, so the stop interval of a chaotic pixel moves by a few τ with the
        // rounding (measured 140 steps of 67590 in all); the classes and chaos times above do
        // not.
        let ds = steps.abs_diff(want_steps);
        eprintln!("gali {gali}: steps {steps} vs {want_steps}");
        assert!(
            ds * 100 <= want_steps,
            "gali {gali}: {steps} vs {want_steps}"
        );
        eprintln!("gali {gali}: {stopped} pixels stopped below 1e-14, {regular} regular");
        // Both regimes are exercised.
        assert!(
            stopped >= 3 && regular >= 3,
            "{stopped} stopped, {regular} regular"
        );
    }
}

/// Lane widths 1, 4, 8, 16 and the dispatched width give the same bits for every K, on a
/// damped, driven chain whose pixels end at different moments (a NaN start blows up at the
/// first interval end).
#[test]
fn lane_widths_agree() {
    let chain = &chains()[3].1;
    let p = map::two_link_any(chain).unwrap();
    let mut y0: Vec<[f64; 4]> = (0..29)
        .map(|i| [-3.0 + 0.2 * i as f64, 2.9 - 0.19 * i as f64, 0.3, -0.1])
        .collect();
    y0.push([f64::NAN, 0.0, 0.0, 0.0]);
    let np = y0.len();
    let h = 0.01;
    for (k, gali) in [(2, false), (2, true), (3, true), (4, true)] {
        let io = AlignmentOptions {
            tau: 0.05,
            time: 4.0,
            k,
            max_history: 16,
            ..AlignmentOptions::default()
        };
        let g = IndicatorGrid::new(&io, h, gali).unwrap();
        let run = |lanes: usize| {
            let (mut v, mut a, mut c) = (vec![0.0; np], vec![0.0; np], vec![0u8; np]);
            let (y, g) = (&y0, &g);
            let s = match lanes {
                1 => indicator_run::<Fixed<1>>(&p, y, h, g, &mut v, &mut a, &mut c),
                4 => indicator_run::<Fixed<4>>(&p, y, h, g, &mut v, &mut a, &mut c),
                8 => indicator_run::<Fixed<8>>(&p, y, h, g, &mut v, &mut a, &mut c),
                16 => indicator_run::<Fixed<16>>(&p, y, h, g, &mut v, &mut a, &mut c),
                _ => indicator_run::<Widest>(&p, y, h, g, &mut v, &mut a, &mut c),
            };
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            (bits(&v), bits(&a), c, s)
        };
        let want = run(1);
        assert!(f64::from_bits(want.0[np - 1]).is_nan());
        assert_eq!(want.2[np - 1], class::DIVERGED);
        assert!(want.0[..np - 1]
            .iter()
            .all(|&b| f64::from_bits(b).is_finite()));
        for lanes in [4, 8, 16, 0] {
            assert_eq!(run(lanes), want, "k {k} gali {gali}, {lanes} lanes");
        }
    }
}

/// 1 vs 2 threads and two tile sizes give the same bits for SALI and GALI.
#[test]
fn threads_and_tiles_do_not_change_the_bits() {
    let chain = &chains()[1].1;
    for kind in [KINDS[0], KINDS[3]] {
        let mut opts = MapOptions::benchmark_f(20, 3.0);
        opts.kind = kind;
        assert_threads_and_tiles_agree(chain, opts);
    }
}

/// `pendula bench map --kind gali` runs on the lanes and, with `--kernel scalar`, on the scalar
/// path (the same steps: no pixel of this short run stops early); `--gali-order` outside 2..4
/// is exit 2 with one line naming the flag.
#[test]
fn bench_map_accepts_sali_and_gali() {
    use std::process::Command;
    let bench = |args: &[&str]| {
        crate::spawn::output(
            Command::new(env!("CARGO_BIN_EXE_pendula"))
                .args([
                    "bench",
                    "map",
                    "--width",
                    "4",
                    "--t-max",
                    "0.5",
                    "--threads",
                    "1",
                ])
                .args(args),
        )
    };
    for kind in ["sali", "gali"] {
        let mut steps = vec![];
        for (kernel, name) in [("auto", "simd-two-link"), ("scalar", "scalar")] {
            let o = bench(&["--kind", kind, "--kernel", kernel]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["kind"], kind);
            assert_eq!(v["kernel"], name);
            steps.push(v["steps"].as_u64().unwrap());
        }
        assert_eq!(steps, [16 * 50, 16 * 50], "{kind}");
    }
    for order in ["1", "5"] {
        let o = bench(&["--kind", "gali", "--gali-order", order]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("--gali-order"), "{err}");
    }
}
