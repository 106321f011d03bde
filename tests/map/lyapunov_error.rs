//! Per-pixel error bars of Lyapunov maps (`analysis::map::blocks`): the stored batch-means
//! standard error against an independent ensemble, the `tolerance` stopping rule, the lane
//! kernel against the scalar path, and the CLI's refusals.

use crate::harness::lanes_and_scalar;
use pendula::analysis::map::{compute_map, MapData, MapKind, MapOptions};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

/// aux columns of a Lyapunov map pixel: standard error, time used, converged.
fn errs(d: &MapData, p: usize) -> (f64, f64, f64) {
    (d.aux[3 * p], d.aux[3 * p + 1], d.aux[3 * p + 2])
}

fn lyapunov(blocks: u32, tolerance: Option<f64>) -> MapKind {
    MapKind::Lyapunov {
        renorm_steps: 10,
        blocks,
        tolerance,
    }
}

/// The standard error of the mean of B block means estimates the standard deviation of the
/// time average λ(t_max) over orbits of the same chaotic sea. 16 start points of the double
/// pendulum within 3e-9 of θ = (2, 2) (a 4 × 4 map on that window) separate to O(1) within
/// ln(1e9)/λ ≈ 15 s and are then independent orbits of the sea, so over t_max = 300 s their 16
/// λ's are (apart from the shared first 5 %) independent samples of λ(t_max). Their sample
/// standard deviation is known to ±18 % (15 degrees of freedom), each pixel's SE from 20 blocks
/// to ±16 %: the mean stored SE and every pixel's SE must lie within a factor 2 of it.
#[test]
fn standard_error_matches_the_ensemble_spread() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let mut opts = MapOptions::benchmark_f(4, 300.0);
    opts.kind = lyapunov(20, None);
    opts.grid.x.lo = 2.0;
    opts.grid.x.hi = 2.0 + 3e-9;
    opts.grid.y.lo = 2.0;
    opts.grid.y.hi = 2.0 + 3e-9;
    let d = compute_map(&chain, &opts, &mut Silent);
    let l = &d.value;
    let mean = l.iter().sum::<f64>() / 16.0;
    let sd = (l.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 15.0).sqrt();
    let se: Vec<f64> = (0..16).map(|p| errs(&d, p).0).collect();
    let se_mean = se.iter().sum::<f64>() / 16.0;
    eprintln!("λ mean {mean:.4}, ensemble sd {sd:.4}, stored SE mean {se_mean:.4}: {se:.4?}");
    assert!(mean > 0.5, "not a chaotic pixel: λ = {mean}");
    assert!(
        se_mean < 2.0 * sd && sd < 2.0 * se_mean,
        "{se_mean} vs {sd}"
    );
    for (p, &s) in se.iter().enumerate() {
        assert!(s < 2.0 * sd && sd < 2.0 * s, "pixel {p}: SE {s} vs sd {sd}");
        let (_, t, c) = errs(&d, p);
        assert_eq!(t, 300.0);
        assert!(c.is_nan(), "no tolerance, no verdict");
    }
}

/// With a tolerance, the pixels that stop early stop at a block end (a multiple of t_max/B)
/// with SE < tolerance and converged = 1, and regular pixels do; every pixel that ran to t_max
/// has the same bits (λ, SE) as in the map without a tolerance, with converged = (SE < tol).
#[test]
fn tolerance_stops_early_and_leaves_full_pixels_unchanged() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let (t_max, tol) = (20.0, 0.1);
    let mut opts = MapOptions::benchmark_f(16, t_max);
    opts.kind = lyapunov(10, None);
    let free = compute_map(&chain, &opts, &mut Silent);
    opts.kind = lyapunov(10, Some(tol));
    let tolled = compute_map(&chain, &opts, &mut Silent);
    assert!(tolled.steps < free.steps);
    let (mut early, mut full) = (0, 0);
    for p in 0..256 {
        let (se, t, c) = errs(&tolled, p);
        if tolled.value[p].is_nan() {
            assert!(free.value[p].is_nan(), "pixel {p}");
            continue;
        }
        if t < t_max {
            early += 1;
            assert!(se < tol && c == 1.0, "pixel {p}: SE {se} at {t}");
            // A block end: j·(t_max/B) for j ≥ 4 (here R = 200 intervals, 20 per block).
            let j = t / 2.0;
            assert!((j - j.round()).abs() < 1e-9 && j >= 4.0, "pixel {p}: t {t}");
        } else {
            full += 1;
            assert_eq!(t, t_max);
            let (se0, ..) = errs(&free, p);
            assert_eq!(tolled.value[p].to_bits(), free.value[p].to_bits(), "{p}");
            assert_eq!(se.to_bits(), se0.to_bits(), "pixel {p}");
            assert_eq!(c, f64::from(u8::from(se < tol)), "pixel {p}");
        }
    }
    eprintln!("{early} pixels stopped early, {full} ran to t_max");
    assert!(early > 10 && full > 10, "{early} early, {full} full");
    // Regular pixels (λ → 0, steady block means) are the ones that end early.
    let mean_of = |early: bool| {
        let v: Vec<f64> = (0..256)
            .filter(|&p| tolled.value[p].is_finite() && (errs(&tolled, p).1 < t_max) == early)
            .map(|p| tolled.value[p])
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (le, lf) = (mean_of(true), mean_of(false));
    eprintln!("mean λ: stopped early {le:.3}, ran to t_max {lf:.3}");
    assert!(le < 0.5 * lf, "{le} vs {lf}");
}

/// The lane kernel and the scalar path give the same stops and, to 1e-12 relative, the same
/// λ and standard errors (over 1 s, where rounding has not grown; see the tangent lanes module).
#[test]
fn lanes_and_scalar_path_agree_with_and_without_tolerance() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let mut opts = MapOptions::benchmark_f(12, 1.0);
    opts.tile = 8;
    for tol in [None, Some(0.05)] {
        opts.kind = MapKind::Lyapunov {
            renorm_steps: 2,
            blocks: 10,
            tolerance: tol,
        };
        let (lanes, scalar) = lanes_and_scalar(&chain, &opts, "simd-two-link");
        assert_eq!(lanes.steps, scalar.steps, "{tol:?}");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-3);
        let mut early = 0;
        for p in 0..144 {
            let (a, b) = (errs(&lanes, p), errs(&scalar, p));
            assert!(close(lanes.value[p], scalar.value[p]), "{tol:?} pixel {p}");
            assert!(close(a.0, b.0), "{tol:?} pixel {p}: SE {} vs {}", a.0, b.0);
            assert_eq!(a.1, b.1, "{tol:?} pixel {p}");
            assert_eq!(a.2.to_bits(), b.2.to_bits(), "{tol:?} pixel {p}");
            early += usize::from(a.1 < 1.0);
        }
        eprintln!("{tol:?}: {early} of 144 pixels stopped early");
        assert_eq!(early > 0, tol.is_some());
    }
}

/// `--blocks 0`, `--blocks 1` and `--tolerance` ≤ 0 are exit 2 with one line naming the flag,
/// nothing written; a good run writes the error variables, `converged` as CF flags.
#[test]
fn cli_refuses_bad_blocks_and_tolerance() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("l.h5");
    let base = [
        "map",
        "--kind",
        "lyapunov",
        "--resolution",
        "8",
        "--t-end",
        "2",
    ];
    for (flag, v) in [
        ("--blocks", "0"),
        ("--blocks", "1"),
        ("--blocks", "21"),
        ("--tolerance", "0"),
        ("--tolerance", "-0.1"),
    ] {
        let o = crate::spawn::output(
            Command::new(env!("CARGO_BIN_EXE_pendula"))
                .current_dir(dir.path())
                .args(base)
                .args([flag, v, "-o"])
                .arg(&out),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {v}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(flag), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
    let o = crate::spawn::output(
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .current_dir(dir.path())
            .args(base)
            .args(["--blocks", "5", "--tolerance", "0.1", "-o"])
            .arg(&out),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f = hdf5::File::open(&out).unwrap();
    let g = f.group("map").unwrap();
    assert_eq!(g.attr("blocks").unwrap().read_scalar::<i64>().unwrap(), 5);
    assert_eq!(
        g.attr("tolerance").unwrap().read_scalar::<f64>().unwrap(),
        0.1
    );
    for name in ["lyapunov_standard_error", "time_used", "converged"] {
        let ds = g.dataset(name).unwrap();
        assert_eq!(ds.shape(), vec![8, 8], "{name}");
    }
    let c = g.dataset("converged").unwrap();
    let values = c.attr("flag_values").unwrap().read_raw::<f64>().unwrap();
    assert_eq!(values, vec![0.0, 1.0]);
    let used = g.dataset("time_used").unwrap().read_raw::<f64>().unwrap();
    let conv = c.read_raw::<f64>().unwrap();
    // Pixels that stopped early are converged.
    for (t, c) in used.iter().zip(&conv) {
        assert!(*t == 2.0 || (*t < 2.0 && *c == 1.0), "{t} {c}");
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// A Lyapunov map's figure is two panels (λ and its standard error, each 1100 px wide);
/// `render --show` draws either alone, and names both when given another variable.
#[test]
fn figure_shows_the_standard_error_beside_the_exponent() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        crate::spawn::output(
            Command::new(env!("CARGO_BIN_EXE_pendula"))
                .current_dir(dir.path())
                .args(args),
        )
    };
    let o = run(&[
        "map",
        "--kind",
        "lyapunov",
        "--resolution",
        "16",
        "--t-end",
        "2",
        "-o",
        "l.h5",
        "--plot",
        "l.png",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(png_size(&dir.path().join("l.png")), (2200, 900));
    for show in ["lyapunov", "lyapunov_standard_error"] {
        let png = format!("{show}.png");
        let o = run(&["render", "l.h5", "-o", &png, "--show", show]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(png_size(&dir.path().join(&png)), (1100, 900), "{show}");
    }
    let o = run(&["render", "l.h5", "-o", "x.png", "--show", "basins"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--show") && err.contains("lyapunov_standard_error"),
        "{err}"
    );
    assert!(!dir.path().join("x.png").exists());
}
