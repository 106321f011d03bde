//! The SIMD tangent lanes (`analysis::map::lanes::tangent`) against the scalar `System` + RK4 path
//! (`Kernel::Scalar`, the chain's own `rhs_tangent` through `Flow`): Lyapunov, FTLE and MEGNO
//! maps over benchmark F's whole square, point masses and rods, with and without damping and
//! drive.
//!
//! The two paths run the same RK4 on the same augmented vector but with different code for
//! sin/cos (the kernel's branch-free polynomial vs libm, both ≈ 1 ulp) and a different order
//! of the products, so they differ by rounding. Rounding grows like e^{λt} along a chaotic
//! orbit; over t_max = 1 s (100 steps) it stays below 1e-12 of the values on every pixel,
//! which is the bar checked here. The lane arithmetic itself is checked bit for bit across
//! lane widths 1/4/8/16 against one-lane scalar steps of the same formulas.

use pendula::analysis::map::lanes::tangent::{tangent_run, Reduce};
use pendula::analysis::map::lanes::{rk4, Widest};
use pendula::analysis::map::{self, compute_map, Kernel, MapKind, MapOptions};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

use crate::chains::{assert_threads_and_tiles_agree, chains, run, worst};
use crate::harness::{scale, whole_square};

const KINDS: [MapKind; 3] = [
    MapKind::Lyapunov {
        renorm_steps: 10,
        blocks: 10,
        tolerance: None,
    },
    MapKind::Ftle,
    MapKind::Megno { tau_steps: 10 },
];

/// Every kind, chain and pixel of the 32² square over t_max = 1 s: the same classes, λ and
/// FTLE within 1e-12 relative (measured worst 3.9e-14; see `worst` for the floor of 1 % of the
/// map's scale, without which λ's worst is 3e-11 at a pixel where λ ≈ 0), MEGNO's ⟨Y⟩ and
/// slope within 1e-11.
#[test]
fn lanes_match_the_scalar_path_on_the_whole_square() {
    whole_square(&KINDS);
}

/// A pixel in one lane, stepped by hand with `rk4` (the lane formulas, one at a
/// time), gives the same bits as `tangent_run` at the machine's lane width with refills.
#[test]
fn tangent_run_equals_one_lane_steps() {
    let chain = &chains()[3].1;
    let p = map::two_link_any(chain).unwrap();
    let y0: Vec<[f64; 4]> = (0..37)
        .map(|i| [-3.0 + 0.16 * i as f64, 2.9 - 0.15 * i as f64, 0.1, -0.2])
        .collect();
    let (n, h) = (300u32, 0.01);
    let mut value = vec![0.0; y0.len()];
    let steps = tangent_run::<Widest>(
        &p,
        &y0,
        n,
        h,
        Reduce::Lyapunov {
            renorm_steps: 7,
            blocks: 10,
            tolerance: None,
        },
        &mut value,
        &mut vec![0.0; 3 * y0.len()],
    );
    assert_eq!(steps, y0.len() as u64 * u64::from(n));
    for (q, y) in y0.iter().enumerate() {
        let (mut y, mut v) = (*y, [[0.5; 4]]);
        let mut sum = 0.0;
        for k in 0..n {
            rk4::<4, 1, _, true, true>(&p, h, f64::from(k) * h, &mut y, &mut v);
            if (k + 1) % 7 == 0 || k + 1 == n {
                let r = v[0].iter().fold(0.0, |s, a| s + a * a).sqrt();
                sum += r.ln();
                v[0].iter_mut().for_each(|a| *a /= r);
            }
        }
        let want = sum / (f64::from(n) * h);
        assert_eq!(value[q].to_bits(), want.to_bits(), "pixel {q}");
    }
}

/// 1 vs 2 threads and two tile sizes give the same bits for every kind.
#[test]
fn threads_and_tiles_do_not_change_the_bits() {
    let chain = &chains()[1].1;
    for kind in KINDS {
        let mut opts = MapOptions::benchmark_f(20, 0.5);
        opts.kind = kind;
        assert_threads_and_tiles_agree(chain, opts);
    }
}

/// MEGNO over long times: regular pixels (θ1 = θ2 ∈ [1, 1.2]) have ⟨Y⟩ approaching 2 from below
/// (≈ 2 − c ln t / t, the slow approach of weak shear: within 0.15 at t = 1000 s and closer at
/// 2000 s; measured 1.89 and 1.94 at θ = (1, 1)) with a slope near 0, and pixels of the chaotic sea around θ = (2, 2) have a
/// ⟨Y⟩ far above 2 whose slope is λ/2: within 25 % of half the same pixel's Lyapunov map
/// value over the same run (both finite-time estimates of λ_max, so not equal).
#[test]
fn megno_map_is_two_on_regular_pixels_and_grows_on_chaotic_ones() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let window = |opts: &mut MapOptions, lo: f64, hi: f64| {
        opts.grid.x.lo = lo;
        opts.grid.x.hi = hi;
        opts.grid.y.lo = lo;
        opts.grid.y.hi = hi;
    };
    let regular = |t: f64| {
        let mut opts = MapOptions::benchmark_f(3, t);
        opts.kind = MapKind::Megno { tau_steps: 1 };
        window(&mut opts, 1.0, 1.2);
        compute_map(&chain, &opts, &mut Silent)
    };
    let (short, long) = (regular(1000.0), regular(2000.0));
    for p in 0..9 {
        let (y, s, y2) = (short.value[p], short.aux[p], long.value[p]);
        eprintln!("regular pixel {p}: <Y> = {y:.4} (2000 s: {y2:.4}), slope {s:.2e}");
        assert!((y - 2.0).abs() < 0.15, "pixel {p}: <Y> = {y}");
        assert!((y2 - 2.0).abs() < (y - 2.0).abs(), "pixel {p}: {y2} vs {y}");
        assert!(s.abs() < 1e-3, "pixel {p}: slope {s}");
    }
    let mut opts = MapOptions::benchmark_f(4, 200.0);
    opts.kind = MapKind::Megno { tau_steps: 1 };
    window(&mut opts, 1.9, 2.1);
    let chaotic = compute_map(&chain, &opts, &mut Silent);
    opts.kind = MapKind::Lyapunov {
        renorm_steps: 10,
        blocks: 10,
        tolerance: None,
    };
    let lyap = compute_map(&chain, &opts, &mut Silent);
    for p in 0..16 {
        let (y, s, l) = (chaotic.value[p], chaotic.aux[p], lyap.value[p]);
        eprintln!(
            "chaotic pixel {p}: <Y> = {y:.2}, slope {s:.4}, λ/2 = {:.4}",
            l / 2.0
        );
        assert!(y > 20.0, "pixel {p}: <Y> = {y}");
        assert!(
            (s - l / 2.0).abs() < 0.25 * l / 2.0,
            "pixel {p}: {s} vs {l}/2"
        );
    }
}

/// `pendula map --kind megno` writes ⟨Y⟩ and `megno_slope`; `--tau` ≤ 0 is exit 2 with one
/// line naming the flag, and nothing written.
#[test]
fn megno_cli_and_bad_tau() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.h5");
    let base = ["map", "--kind", "megno", "--resolution", "8"];
    for tau in ["0", "-0.1"] {
        let o = crate::spawn::output(
            Command::new(env!("CARGO_BIN_EXE_pendula"))
                .current_dir(dir.path())
                .args(base)
                .args(["--t-end", "2", "--tau", tau, "-o"])
                .arg(&out),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "--tau {tau}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("--tau"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
    let o = crate::spawn::output(
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .current_dir(dir.path())
            .args(base)
            .args(["--t-end", "2", "--tau", "0.05", "-o"])
            .arg(&out),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = pendula::store::map::MapReader::open(&out).unwrap();
    let d = r.read_all().unwrap();
    assert_eq!(d.aux_width, 1);
    assert!(d.value.iter().all(|v| v.is_finite()));
    assert!(d.aux.iter().all(|v| v.is_finite()));
    let file = hdf5::File::open(&out).unwrap();
    let slope = file.dataset("map/megno_slope").unwrap();
    let units: hdf5::types::VarLenUnicode = slope.attr("units").unwrap().read_scalar().unwrap();
    assert_eq!(units.as_str(), "s-1");
    assert!(file.dataset("map/megno").is_ok());
}

/// r = δ̇·δ/δ·δ does not depend on |δ|, so renormalising every step or every 20 steps changes
/// ⟨Y⟩ only by rounding (r is taken at every step either way; sampling it only every τ would
/// alias the fast swings of rotating pixels).
#[test]
fn megno_does_not_depend_on_the_renormalisation_interval() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let a = run(
        &chain,
        MapKind::Megno { tau_steps: 1 },
        16,
        20.0,
        Kernel::Auto,
    );
    let b = run(
        &chain,
        MapKind::Megno { tau_steps: 20 },
        16,
        20.0,
        Kernel::Auto,
    );
    let d = worst(&a.value, &b.value, 1e-2 * scale(&a.value));
    eprintln!("<Y> renormalised every 1 vs 20 steps: {d:.2e}");
    assert!(d < 1e-9, "{d:e}");
    // Hamiltonian: ⟨Y⟩ ≥ 0 up to its O(1/t) transient on every pixel, never tens below.
    assert!(a.value.iter().all(|&y| y > -0.5), "{:?}", a.value);
}
