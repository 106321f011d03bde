//! Located flip times (`flip_time_located`) against an independent event location: DOP853 at
//! rtol = atol = 1e-13, the crossing of ±π found by bisection on its dense output.
//!
//! Units are SI: unit masses (or rods) of length 1 m under g = 9.81 m/s², times in seconds.
//! The located time carries two errors: locating the crossing inside the flip step (this
//! code: cubic Hermite + Newton/bisection) and RK4's global error in the trajectory up to that
//! step (O(dt⁴), growing like e^{λt} on chaotic orbits). The first is checked alone for every
//! flip before 10 s (DOP853 restarted from the map's own RK4 state at the start of the flip
//! step); the sum against DOP853 from t = 0, at dt = 1e-3 s for flips before 5 s and at
//! dt = 2.5e-4 s for all flips before 10 s (at dt = 1e-3 s, RK4 itself drifts by up to ~7e-6 s
//! from the converged orbit on the few chaotic pixels that flip after 5 s).

use pendula::analysis::map::{self, compute_map, Kernel, MapData, MapOptions};
use pendula::integrate::{Dop853, Flow, Solver};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use std::f64::consts::PI;

const T_END: f64 = 10.0;

/// A 12 × 12 map over benchmark F's square at step `dt`, lanes or scalar path.
fn map(chain: &Chain, kernel: Kernel, dt: f64) -> (MapOptions, MapData) {
    let mut opts = MapOptions::benchmark_f(12, T_END);
    opts.dt = dt;
    opts.kernel = kernel;
    let data = compute_map(chain, &opts, &mut Silent);
    assert!(data.complete());
    assert_eq!(data.aux_width, 1, "one aux column: flip_time_located");
    (opts, data)
}

/// First time either angle reaches ±π by DOP853 (rtol = atol = 1e-13) + dense-output bisection.
fn reference_flip(chain: &Chain, x0: &[f64], t_end: f64) -> Option<f64> {
    let mut flow = Flow::new(chain);
    let mut solver = Dop853::with_tol(1e-13).solver(x0.len());
    let mut y = x0.to_vec();
    let mut t = 0.0;
    let g = |y: &[f64]| y[0].abs().max(y[1].abs()) - PI;
    let mut buf = vec![0.0; x0.len()];
    while t < t_end {
        let t0 = t;
        t = solver.step(&mut flow, t, &mut y, t_end).unwrap();
        if g(&y) > 0.0 {
            let (mut lo, mut hi) = (t0, t);
            while hi - lo > 1e-15 * hi.max(1.0) {
                let m = 0.5 * (lo + hi);
                if m <= lo || m >= hi {
                    break;
                }
                solver.dense(&mut flow, m, &mut buf);
                if g(&buf) > 0.0 {
                    hi = m;
                } else {
                    lo = m;
                }
            }
            return Some(0.5 * (lo + hi));
        }
    }
    None
}

/// The map's own RK4 state after `k` steps (the lane kernel's step, bit for bit).
fn rk4_state(chain: &Chain, x0: &[f64], k: i32, dt: f64) -> Vec<f64> {
    let p = map::two_link(chain).expect("a two-link chain");
    let mut y = [x0[0], x0[1], x0[2], x0[3]];
    for _ in 0..k {
        map::lanes::rk4::<4, 0, _, false, false>(&p, dt, 0.0, &mut y, &mut []);
    }
    y.to_vec()
}

/// Worst differences found by [`check`]: (flips compared to DOP853 from t = 0, worst of those,
/// worst locator-only error, worst lanes − scalar before 1 s, worst lanes − scalar overall).
struct Worst {
    compared: usize,
    full: f64,
    locator: f64,
    lanes_early: f64,
    lanes_all: f64,
}

/// Runs the lanes and scalar maps at `dt` and compares every flip with DOP853; flips before
/// `t_full` are compared with DOP853 from t = 0 to `tol_full`.
fn check(chain: &Chain, label: &str, dt: f64, t_full: f64, tol_full: f64) -> Worst {
    let (opts, lanes) = map(chain, Kernel::Auto, dt);
    let (_, scalar) = map(chain, Kernel::Scalar, dt);
    assert_eq!(lanes.flip_step, scalar.flip_step, "{label}: flip steps");
    let mut x = vec![0.0; 4];
    let mut w = Worst {
        compared: 0,
        full: 0.0,
        locator: 0.0,
        lanes_early: 0.0,
        lanes_all: 0.0,
    };
    for i in 0..opts.grid.height {
        for j in 0..opts.grid.width {
            let p = i * opts.grid.width + j;
            assert!(opts.grid.start(chain, i, j, &mut x));
            let (k, t) = (lanes.flip_step[p], lanes.aux[p]);
            if k == 0 {
                assert!(t.is_nan() && scalar.aux[p].is_nan(), "{label} pixel {p}");
                assert!(
                    reference_flip(chain, &x, T_END - 0.05).is_none(),
                    "{label} {p}"
                );
                continue;
            }
            // Inside the step flip_step names: ((k − 1)·dt, k·dt].
            let (a, b) = (f64::from(k - 1) * dt, f64::from(k) * dt);
            assert!(t > a && t <= b, "{label} pixel {p}: {t} not in ({a}, {b}]");
            let ts = scalar.aux[p];
            assert!(ts > a && ts <= b, "{label} pixel {p} scalar: {ts}");
            let d = (t - ts).abs();
            w.lanes_all = w.lanes_all.max(d);
            if t < 1.0 {
                w.lanes_early = w.lanes_early.max(d);
            }
            // The locator alone: DOP853 from the RK4 state at the start of the flip step.
            let y = rk4_state(chain, &x, k - 1, dt);
            let r = a + reference_flip(chain, &y, 2.0 * dt).expect("flips within the step");
            w.locator = w.locator.max((t - r).abs());
            assert!(
                (t - r).abs() <= 1e-11,
                "{label} pixel {p}: locator {t} vs {r}"
            );
            if t < t_full {
                let r = reference_flip(chain, &x, T_END).expect("DOP853 flips too");
                w.full = w.full.max((t - r).abs());
                assert!(
                    (t - r).abs() <= tol_full,
                    "{label} pixel {p} {x:?}: {t} vs DOP853 {r}"
                );
                w.compared += 1;
            }
        }
    }
    eprintln!(
        "{label}, dt = {dt}: {} flips before {t_full} s, |located − DOP853| ≤ {:.1e} s; \
         locator alone ≤ {:.1e} s; lanes − scalar ≤ {:.1e} s before 1 s, ≤ {:.1e} s overall",
        w.compared, w.full, w.locator, w.lanes_early, w.lanes_all
    );
    assert!(w.compared >= 10, "{label}: only {} flips", w.compared);
    // Lanes and the generic scalar path agree to rounding until chaos amplifies it.
    assert!(
        w.lanes_early <= 1e-12,
        "{label}: lanes vs scalar {}",
        w.lanes_early
    );
    assert!(
        w.lanes_all <= 1e-9,
        "{label}: lanes vs scalar {}",
        w.lanes_all
    );
    w
}

fn points() -> Chain {
    Chain::new(ChainParams::equal_points(2)).unwrap()
}

fn rods() -> Chain {
    Chain::new(ChainParams::equal_rods(2)).unwrap()
}

#[test]
fn located_flip_times_match_dop853_point_masses() {
    check(&points(), "point masses", 1e-3, 5.0, 1e-7);
}

#[test]
fn located_flip_times_match_dop853_rods() {
    check(&rods(), "rods", 1e-3, 5.0, 1e-7);
}

/// At a step where RK4's own trajectory is converged, every flip before 10 s is within 1e-7 s.
#[test]
fn located_flip_times_before_10_s_at_a_finer_step() {
    for (chain, label) in [(points(), "point masses"), (rods(), "rods")] {
        check(&chain, label, 2.5e-4, T_END, 1e-7);
    }
}

/// The binary's file carries `flip_time_located` (CF units and long_name), sharded and merged
/// files hold the same bits, and every located time lies inside its flip step.
#[test]
fn the_file_stores_located_times_through_shards_and_merge() {
    use pendula::store::map::MapReader;
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| {
        let out = crate::spawn::output(
            Command::new(env!("CARGO_BIN_EXE_pendula"))
                .current_dir(d)
                .args(args),
        );
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let base = ["map", "--resolution", "32", "--tile", "8", "--t-end", "3"];
    run(&[&base[..], &["-o", "one.h5"]].concat());
    run(&[&base[..], &["--shard", "1/2", "-o", "s1.h5"]].concat());
    run(&[&base[..], &["--shard", "2/2", "-o", "s2.h5"]].concat());
    run(&["merge", "s1.h5", "s2.h5", "-o", "m.h5"]);
    let r = MapReader::open(&d.join("one.h5")).unwrap();
    let one = r.read_all().unwrap();
    let merged = MapReader::open(&d.join("m.h5"))
        .unwrap()
        .read_all()
        .unwrap();
    assert_eq!(one, merged);
    let dt = r.header.dt;
    let mut flipped = 0;
    for (p, &k) in one.flip_step.iter().enumerate() {
        let t = one.aux[p];
        if k > 0 {
            assert!(
                t > f64::from(k - 1) * dt && t <= f64::from(k) * dt,
                "pixel {p}"
            );
            flipped += 1;
        } else {
            assert!(t.is_nan(), "pixel {p}");
        }
    }
    assert!(flipped > 100, "{flipped}");
    let f = hdf5::File::open(d.join("one.h5")).unwrap();
    let ds = f.dataset("map/flip_time_located").unwrap();
    assert_eq!(ds.shape(), vec![32, 32]);
    let units: hdf5::types::VarLenUnicode = ds.attr("units").unwrap().read_scalar().unwrap();
    assert_eq!(units.as_str(), "s");
    let long: hdf5::types::VarLenUnicode = ds.attr("long_name").unwrap().read_scalar().unwrap();
    assert!(long.as_str().contains("Hermite"), "{}", long.as_str());
}
