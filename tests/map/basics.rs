//! Initial-condition maps: benchmark F's reference table (the correctness oracle), symmetry,
//! thread-count independence, and the real binary's resume, shards, merge and bad input.

use pendula::analysis::map::{self, compute_map, Kernel, MapOptions};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

use crate::python;

fn double() -> Chain {
    Chain::new(ChainParams::equal_points(2)).unwrap()
}

/// Benchmark F's reference rows: W, n_flipped, sum_flip_steps, steps, fnv1a64, n_forbidden.
const TABLE: [(usize, u64, u64, u64, &str, u64); 2] = [
    (64, 2340, 637056, 2393056, "d28d64c5649257e1", 1264),
    (128, 9424, 2635044, 9595044, "3151129d2bae4a85", 5016),
];

fn check_row(w: usize, skip: bool, kernel: Kernel) {
    let row = TABLE.iter().find(|r| r.0 == w).unwrap();
    let mut opts = MapOptions::benchmark_f(w, 10.0);
    opts.energy_skip = skip;
    opts.kernel = kernel;
    let data = compute_map(&double(), &opts, &mut Silent);
    assert!(data.complete());
    let s = data.flip_stats(opts.dt);
    let label = format!("W = {w}, skip = {skip}, {kernel:?}");
    assert_eq!(s.n_flipped, row.1, "{label}");
    assert_eq!(s.sum_flip_steps, row.2, "{label}");
    assert_eq!(s.fnv1a64, row.4, "{label}");
    assert_eq!(s.n_forbidden, row.5, "{label}");
    assert_eq!(s.n_forbidden_flipped, 0, "{label}");
    assert_eq!(s.symmetry_mismatches, Some(0), "{label}");
    if skip {
        // Forbidden pixels cost nothing: steps = benchmark steps − n_forbidden · n_steps.
        assert_eq!(data.steps, row.3 - row.5 * 1000, "{label}");
    } else {
        assert_eq!(data.steps, row.3, "{label}");
    }
}

#[test]
fn benchmark_f_w64() {
    check_row(64, false, Kernel::Auto);
    check_row(64, true, Kernel::Auto);
}

#[test]
fn benchmark_f_w128() {
    check_row(128, false, Kernel::Auto);
    check_row(128, true, Kernel::Auto);
}

#[test]
fn benchmark_f_w64_generic_scalar_path() {
    check_row(64, false, Kernel::Scalar);
    check_row(64, true, Kernel::Scalar);
}

#[test]
fn thread_counts_give_identical_maps() {
    let mut opts = MapOptions::benchmark_f(96, 10.0);
    opts.tile = 16;
    let chain = double();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| compute_map(&chain, &opts, &mut Silent));
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| compute_map(&chain, &opts, &mut Silent));
    assert_eq!(one, two);
    // A different tile size changes the work split, not a single pixel.
    opts.tile = 40;
    let other = compute_map(&chain, &opts, &mut Silent);
    assert_eq!(one.flip_step, other.flip_step);
    assert_eq!(one.class, other.class);
}

#[test]
fn energy_criterion_generalizes() {
    // Equal rods: forbidden iff 3 cos θ1 + cos θ2 > 2 (physics.md §5).
    let rods = Chain::new(ChainParams::equal_rods(2)).unwrap();
    let t = map::EnergyTest::new(&rods, map::FlipTarget::Any).unwrap();
    for (a, b) in [(0.1, 0.2), (0.5, 1.5), (1.0, 0.3), (2.0, 0.1), (0.0, 2.0)] {
        let want = 3.0 * f64::cos(a) + f64::cos(b) > 2.0;
        assert_eq!(t.forbidden(&rods, &[a, b, 0.0, 0.0]), want, "({a}, {b})");
    }
}

// ------------------------------------------------------------------------------------------
// The real binary: resume after SIGKILL, shards and merge, bad input.

use pendula::store::map::MapReader;
use std::path::{Path, PathBuf};
use std::process::{Command as Proc, Stdio};
use std::time::Duration;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pendula"))
}

fn pendula(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = crate::spawn::output(Proc::new(bin()).current_dir(dir).args(args));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = pendula(dir, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

/// The map arrays and completion mask of a file.
fn read(path: &Path) -> (map::MapData, Vec<bool>) {
    let r = MapReader::open(path).unwrap();
    (r.read_all().unwrap(), r.header.tile_done.clone())
}

fn tiles_in(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".bin"))
                .count()
        })
        .unwrap_or(0)
}

/// Starts a map run and SIGKILLs it once its checkpoint holds at least `tiles` tiles.
fn kill_after(dir: &Path, args: &[&str], ckpt: &Path, tiles: usize) -> bool {
    let mut child = crate::spawn::spawn(
        Proc::new(bin())
            .current_dir(dir)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    );
    let what = format!("{tiles} tiles in the checkpoint");
    crate::running::poll_child(&mut child, &what, Duration::from_secs(300), |c| {
        if let Some(status) = c.try_wait().unwrap() {
            assert!(status.success(), "run failed before the kill");
            return Some(false); // finished before we could kill it: nothing to test this round
        }
        if tiles_in(ckpt) >= tiles {
            c.kill().unwrap(); // SIGKILL
            c.wait().unwrap();
            return Some(true);
        }
        None
    })
}

/// A map that runs long enough to be interrupted (scalar kernel, 10 s per pixel, 8² tiles), at
/// `resolution`²: the interrupt and resume tests' command line.
pub(crate) fn slow_map(resolution: &'static str) -> [&'static str; 12] {
    [
        "map",
        "--resolution",
        resolution,
        "--tile",
        "8",
        "--kernel",
        "scalar",
        "--no-energy-skip",
        "--t-end",
        "10",
        "--threads",
        "2",
    ]
}

#[test]
fn sigkill_and_resume_is_bit_identical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let whole = [&slow_map("128")[..], &["-o", "whole.h5"]].concat();
    ok(d, &whole);
    let part = [&slow_map("128")[..], &["-o", "part.h5"]].concat();
    let resume = [&part[..], &["--resume"]].concat();
    let ckpt = d.join("part.h5.tiles");
    let mut kills = 0;
    kills += kill_after(d, &part, &ckpt, 20) as usize;
    if kills == 1 {
        assert!(!d.join("part.h5").exists());
        // Without --resume the checkpoint is not silently discarded.
        let (code, _, err) = pendula(d, &part);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--resume"), "{err}");
        kills += kill_after(d, &resume, &ckpt, 120) as usize;
    }
    eprintln!("killed {kills} time(s)");
    let out = ok(d, &[&resume[..], &["--json"]].concat());
    assert!(
        kills >= 1,
        "the run always finished before it could be killed"
    );
    assert!(!ckpt.exists(), "checkpoint left behind");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["tiles_resumed"].as_u64().unwrap() >= 20, "{v}");
    let (a, da) = read(&d.join("whole.h5"));
    let (b, db) = read(&d.join("part.h5"));
    assert!(da.iter().all(|&x| x) && db.iter().all(|&x| x));
    assert_eq!(a, b, "resumed map differs from the uninterrupted one");
    // Resuming a finished map is a no-op that succeeds (a requeued job).
    ok(d, &resume);

    // Ctrl-C (SIGINT): the tiles in flight are finished and kept, exit 1 naming --resume.
    let int = [&slow_map("128")[..], &["-o", "int.h5"]].concat();
    let ckpt = d.join("int.h5.tiles");
    let child = crate::spawn::spawn(
        Proc::new(bin())
            .current_dir(d)
            .args(&int)
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let mut child = child;
    // Ten tiles on disk before the signal: a busy machine only delays them, and a run that ends
    // first is the "finished before the signal" branch below.
    crate::running::poll_child(
        &mut child,
        "10 tiles in the checkpoint",
        Duration::from_secs(300),
        |c| (tiles_in(&ckpt) >= 10 || c.try_wait().unwrap().is_some()).then_some(()),
    );
    if child.try_wait().unwrap().is_none() {
        let sent = crate::spawn::status(Proc::new("kill").args(["-INT", &child.id().to_string()]));
        assert!(sent.success());
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(1) {
        assert!(err.contains("--resume"), "{err}");
        // What is on disk: the checkpoint with its finished tiles, no map file, no .partial.
        assert!(tiles_in(&ckpt) >= 10 && !d.join("int.h5").exists());
        assert!(ckpt.join("manifest.json").exists() && !d.join("int.h5.partial").exists());
        ok(d, &[&int[..], &["--resume"]].concat());
    } else {
        assert_eq!(out.status.code(), Some(0), "{err}"); // finished before the signal landed
    }
    let (c, _) = read(&d.join("int.h5"));
    assert_eq!(a, c, "map after Ctrl-C + resume differs");
}

#[test]
fn shards_merge_to_the_single_run_and_bad_merges_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = ["map", "--resolution", "96", "--tile", "16", "--t-end", "6"];
    ok(d, &[&base[..], &["-o", "single.h5"]].concat());
    for i in 1..=3 {
        let s = format!("{i}/3");
        let o = format!("s{i}.h5");
        ok(d, &[&base[..], &["--shard", &s, "-o", &o]].concat());
        let (_, done) = read(&d.join(&o));
        assert_eq!(done.iter().filter(|&&x| x).count(), 12);
    }
    let out = ok(
        d,
        &[
            "merge",
            "s1.h5",
            "s2.h5",
            "s3.h5",
            "-o",
            "merged.h5",
            "--json",
            "--plot",
            "m.png",
        ],
    );
    assert!(out.contains("\"complete\":true"), "{out}");
    let (a, _) = read(&d.join("single.h5"));
    let (b, done) = read(&d.join("merged.h5"));
    assert!(done.iter().all(|&x| x));
    assert_eq!(a, b);
    assert!(d.join("m.png").exists());

    let refuse = |args: &[&str], needle: &str| {
        let (code, _, err) = pendula(d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!d.join("bad.h5").exists());
    };
    refuse(&["merge", "s1.h5", "s3.h5", "-o", "bad.h5"], "incomplete");
    refuse(
        &["merge", "s1.h5", "s1.h5", "s2.h5", "s3.h5", "-o", "bad.h5"],
        "both",
    );
    ok(
        d,
        &[
            "map",
            "--resolution",
            "96",
            "--tile",
            "16",
            "--t-end",
            "5",
            "--shard",
            "2/3",
            "-o",
            "other.h5",
        ],
    );
    refuse(
        &["merge", "s1.h5", "other.h5", "s3.h5", "-o", "bad.h5"],
        "same map",
    );
    refuse(
        &["merge", "s1.h5", "s2.h5", "s3.h5", "-o", "merged.h5"],
        "exists",
    );
}

#[test]
fn bad_map_input_is_one_line_exit_2_and_writes_nothing() {
    let cases: [(&[&str], &str); 11] = [
        (&["--resolution", "0"], "--resolution"),
        (&["--resolution", "18000", "--max-memory", "64M"], "--shard"),
        (&["--resolution", "64x0"], "--resolution"),
        (&["--window", "-4,4,-3,3"], "--window"),
        (&["--window", "1,0,-3,3"], "--window"),
        (&["--kind", "fractal"], "--kind"),
        (&["--t-end", "0"], "--t-end"),
        (&["--t-end", "-1"], "--t-end"),
        (&["--shard", "4/3"], "--shard"),
        (&["--shard", "0/3"], "--shard"),
        (&["--flip", "3"], "--flip"),
    ];
    for (extra, needle) in cases {
        let dir = tempfile::tempdir().unwrap();
        let size: &[&str] = if extra.contains(&"--resolution") {
            &[]
        } else {
            &["--resolution", "32"]
        };
        let args = [&["map"][..], size, extra, &["-o", "m.h5"]].concat();
        let (code, _, err) = pendula(dir.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: `{err}` lacks `{needle}`");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{args:?}"
        );
    }
    // An existing output is never overwritten without --force.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.h5"), b"precious").unwrap();
    let (code, _, err) = pendula(dir.path(), &["map", "--resolution", "32", "-o", "m.h5"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(dir.path().join("m.h5")).unwrap(), b"precious");
    // --dry-run writes nothing and says what it would cost.
    let out = ok(
        dir.path(),
        &["map", "--resolution", "64", "--dry-run", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["pixels"], 4096);
    assert_eq!(v["forbidden_skipped"], 1264);
    assert_eq!(v["max_rk4_steps"], (4096 - 1264) * 1000);
}

#[test]
fn map_file_matches_benchmark_f_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = ok(
        d,
        &[
            "map",
            "--resolution",
            "128",
            "-o",
            "f.h5",
            "--plot",
            "f.png",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["checksum"]["fnv1a64"], "3151129d2bae4a85");
    // Point symmetry θ → −θ, from the file: every one of the 128²/2 pairs matches.
    assert_eq!(v["point_symmetry"]["pairs"], 128 * 64);
    assert_eq!(v["point_symmetry"]["matched"], 128 * 64);
    assert_eq!(v["checksum"]["n_flipped"], 9424);
    assert_eq!(v["n_forbidden"], 5016);
    ok(d, &["render", "f.h5", "-o", "f.svg"]);
    let png = std::fs::read(d.join("f.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(d.join("f.svg")).unwrap();
    assert!(svg.contains("<image"), "the map is embedded as one raster");
    assert!(svg.len() < 2_000_000);
}

#[test]
fn lyapunov_and_ftle_maps_see_order_and_chaos() {
    let chain = double();
    let mut opts = MapOptions::benchmark_f(10, 20.0);
    for kind in [
        map::MapKind::Lyapunov {
            renorm_steps: 10,
            blocks: 10,
            tolerance: None,
        },
        map::MapKind::Ftle,
    ] {
        opts.kind = kind;
        let d = compute_map(&chain, &opts, &mut Silent);
        let n = d.value.len();
        // θ → −θ symmetry of the grid and the ODE holds for the exponents too.
        for p in 0..n {
            let (a, b) = (d.value[p], d.value[n - 1 - p]);
            assert!(
                (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                "{kind:?} p = {p}: {a} vs {b}"
            );
        }
        // The centre pixels (|θ| ≈ 0.3 rad) oscillate regularly; the corners (|θ| ≈ 2.8) are chaotic.
        let centre = d.value[4 * 10 + 5];
        let corner = d.value[0];
        assert!(centre.abs() < 0.25, "{kind:?}: centre {centre}");
        assert!(corner > 0.8, "{kind:?}: corner {corner}");
    }
    // A tiny window around the hanging state is a linear oscillator: λ → 0.
    opts.kind = map::MapKind::Lyapunov {
        renorm_steps: 10,
        blocks: 10,
        tolerance: None,
    };
    opts.grid.x.lo = -1e-3;
    opts.grid.x.hi = 1e-3;
    opts.grid.y.lo = -1e-3;
    opts.grid.y.hi = 1e-3;
    let d = compute_map(&chain, &opts, &mut Silent);
    assert!(d.value.iter().all(|v| v.abs() < 0.15), "{:?}", d.value);
}

// ------------------------------------------------------------------------------------------
// Final-state and SALI maps through the binary: resume, shards, render, HDF5, bad input.

const BASINS: &str = r#"
kind = "map"
[model]
preset = "double"
[model.damping]
absolute = 0.8
[map]
kind = "final-state"
t_end = 30.0
"#;

/// Class, value and aux bits of a map file (NaN-safe equality).
fn bits_of(path: &Path) -> (Vec<u8>, Vec<u64>, Vec<u64>, Vec<bool>) {
    let (d, done) = read(path);
    (
        d.class,
        d.value.iter().map(|v| v.to_bits()).collect(),
        d.aux.iter().map(|v| v.to_bits()).collect(),
        done,
    )
}

#[test]
fn final_state_map_resumes_merges_renders_and_checks_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("b.toml"), BASINS).unwrap();
    let base = [
        "map",
        "--spec",
        "b.toml",
        "--resolution",
        "64",
        "--tile",
        "8",
        "--threads",
        "2",
    ];
    let out = ok(d, &[&base[..], &["-o", "whole.h5", "--json"]].concat());
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let counts = v["class_counts"].as_object().unwrap();
    // Basins of the damped chain: class and (negated) turns are point-symmetric pixel pairs.
    let sym = &v["point_symmetry"];
    assert_eq!(sym["pairs"], 2048);
    assert_eq!(sym["matched"], 2048, "{sym}");
    assert_eq!(
        counts.values().map(|c| c.as_u64().unwrap()).sum::<u64>(),
        4096
    );
    assert!(counts["hanging"].as_u64().unwrap() > 1000, "{v}");
    // SIGKILL part-way, then resume: bit-identical.
    let part = [&base[..], &["-o", "part.h5"]].concat();
    let ckpt = d.join("part.h5.tiles");
    let killed = kill_after(d, &part, &ckpt, 8);
    let out = ok(d, &[&part[..], &["--resume", "--json"]].concat());
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    if killed {
        assert!(v["tiles_resumed"].as_u64().unwrap() >= 8, "{v}");
    }
    assert_eq!(bits_of(&d.join("whole.h5")), bits_of(&d.join("part.h5")));
    // Shards merged equal the single run.
    for i in 1..=2 {
        let (s, o) = (format!("{i}/2"), format!("s{i}.h5"));
        ok(d, &[&base[..], &["--shard", &s, "-o", &o]].concat());
    }
    ok(d, &["merge", "s1.h5", "s2.h5", "-o", "m.h5"]);
    assert_eq!(bits_of(&d.join("whole.h5")), bits_of(&d.join("m.h5")));
    // The legend travels with the file.
    let f = hdf5::File::open(d.join("whole.h5")).unwrap();
    let cls = f.dataset("map/class").unwrap();
    let meanings: hdf5::types::VarLenUnicode =
        cls.attr("flag_meanings").unwrap().read_scalar().unwrap();
    assert!(meanings
        .as_str()
        .starts_with("unsettled hanging inverted_1 inverted_2 inverted_1_2"));
    let fa = f.dataset("map/final_angle").unwrap();
    assert_eq!(fa.shape(), vec![64, 64, 2]);
    drop(f);
    // Figures: basins (default), final angles with the cyclic map, settle time.
    ok(d, &["render", "whole.h5", "-o", "b.png"]);
    ok(
        d,
        &[
            "render",
            "whole.h5",
            "-o",
            "a.svg",
            "--show",
            "final_angle2",
        ],
    );
    ok(
        d,
        &[
            "render",
            "whole.h5",
            "-o",
            "t.png",
            "--show",
            "settle_time",
            "--cmap",
            "magma",
        ],
    );
    for f in ["b.png", "a.svg", "t.png"] {
        assert!(std::fs::metadata(d.join(f)).unwrap().len() > 1000, "{f}");
    }
    let refuse = |args: &[&str], needle: &str| {
        let (code, _, err) = pendula(d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: `{err}` lacks `{needle}`");
        assert!(!d.join("bad.h5").exists() && !d.join("bad.png").exists());
    };
    refuse(
        &[
            "render",
            "whole.h5",
            "-o",
            "bad.png",
            "--show",
            "final_angle3",
        ],
        "--show",
    );
    refuse(
        &["render", "whole.h5", "-o", "bad.png", "--cmap", "jet"],
        "--cmap",
    );
    refuse(
        &[
            "map",
            "--kind",
            "final-state",
            "--resolution",
            "8",
            "-o",
            "bad.h5",
        ],
        "--kind",
    );
    refuse(
        &[&base[..], &["--angle-tol", "-1", "-o", "bad.h5"]].concat(),
        "--angle-tol",
    );
    refuse(
        &[&base[..], &["--max-period", "2", "-o", "bad.h5"]].concat(),
        "--max-period",
    );
    refuse(
        &["map", "--dwell", "1", "--resolution", "8", "-o", "bad.h5"],
        "--dwell",
    );
    refuse(
        &[
            "map",
            "--kind",
            "gali",
            "--gali-order",
            "5",
            "--resolution",
            "8",
            "-o",
            "bad.h5",
        ],
        "--gali-order",
    );
    refuse(
        &[
            "map",
            "--kind",
            "sali",
            "--tau",
            "0.015",
            "--resolution",
            "8",
            "-o",
            "bad.h5",
        ],
        "--tau",
    );
    let words = |s: &'static str| s.split(' ').collect::<Vec<_>>();
    refuse(
        &words("map --solve theta1 --energy 1 --resolution 8 -o bad.h5"),
        "--solve",
    );
    refuse(
        &words("map --solve omega2 --resolution 8 -o bad.h5"),
        "--solve",
    );
    refuse(
        &[&base[..], &["--energy", "1", "-o", "bad.h5"]].concat(),
        "--energy",
    );
    // An energy-shell grid: off-shell pixels are counted as skipped and classified forbidden.
    let out = ok(
        d,
        &[
            "map",
            "--energy",
            "-5",
            "--resolution",
            "16",
            "--json",
            "-o",
            "shell.h5",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["n_forbidden"].as_u64().unwrap() > 0, "{v}");
    let f = hdf5::File::open(d.join("shell.h5")).unwrap();
    let e: f64 = f
        .group("map")
        .unwrap()
        .attr("shell_energy")
        .unwrap()
        .read_scalar()
        .unwrap();
    assert_eq!(e, -5.0);
    drop(f);
    // Below the chain's least energy (−3g at rest, hanging) no pixel is on the shell: refused
    // before anything is written, naming the energy and the least one the window reaches.
    let (code, _, err) = pendula(
        d,
        &[
            "map",
            "--energy",
            "-30",
            "--resolution",
            "16",
            "-o",
            "empty.h5",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--energy") && err.contains("-30 J") && err.contains("-29.4294 J"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!d.join("empty.h5").exists() && !d.join("empty.h5.tiles").exists());
    // The shipped spec validates; its dry run states the work.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("analyses/damped-driven-basins.toml");
    let out = ok(
        d,
        &[
            "map",
            "--spec",
            shipped.to_str().unwrap(),
            "--dry-run",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["map"], "final-state");
    assert_eq!(v["pixels"], 192 * 192);
    assert_eq!(v["output_bytes_uncompressed"], 192 * 192 * (9 + 8 * 6));
    // --dry-run of a SALI map, then a small one with its figure.
    let out = ok(
        d,
        &[
            "map",
            "--kind",
            "sali",
            "--resolution",
            "8",
            "--dry-run",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["map"], "sali");
    assert_eq!(v["output_bytes_uncompressed"], 64 * 17);
    ok(
        d,
        &[
            "map",
            "--kind",
            "sali",
            "--resolution",
            "6",
            "--t-end",
            "20",
            "-o",
            "sali.h5",
            "--plot",
            "sali.png",
        ],
    );
}

/// Map files of three kinds (final state, SALI, an energy-shell flip map) open in h5py and xarray
/// with named dimensions (tests/python/check_h5.py). Skipped, saying why, where the Python readers are missing (tests/common/python.rs).
#[test]
fn map_files_open_in_h5py_and_xarray() {
    if !python::readers_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("b.toml"), BASINS).unwrap();
    let words = |s: &'static str| s.split(' ').collect::<Vec<_>>();
    ok(d, &words("map --spec b.toml --resolution 16 -o basins.h5"));
    ok(
        d,
        &words("map --kind sali --resolution 6 --t-end 20 -o sali.h5"),
    );
    ok(d, &words("map --energy -5 --resolution 16 -o shell.h5"));
    for file in ["basins.h5", "sali.h5", "shell.h5"] {
        python::check_h5(&d.join(file), "map");
    }
}

// ------------------------------------------------------------------------------------------
// Figures of incomplete maps: the tiles a file does not hold are hatched, in every kind.

use pendula::plot::map::{
    compose_map, compose_panels, ColourMap, Show, COLOUR_MAPS, DIVERGED_COLOR, FORBIDDEN_COLOR,
    MISSING_COLOR, MISSING_HATCH, NEVER_COLOR,
};
use plotters::style::RGBColor;

fn dist(a: [u8; 3], b: RGBColor) -> f64 {
    let d = |x: u8, y: u8| (f64::from(x) - f64::from(y)).powi(2);
    (d(a[0], b.0) + d(a[1], b.1) + d(a[2], b.2)).sqrt()
}

/// Distance from `c` to the segment between the two hatch colours (the box-filtered edges of
/// the hatch lines lie on it).
fn off_hatch(c: [u8; 3]) -> f64 {
    let (a, b) = (MISSING_COLOR, MISSING_HATCH);
    let a = [f64::from(a.0), f64::from(a.1), f64::from(a.2)];
    let ab = [
        f64::from(b.0) - a[0],
        f64::from(b.1) - a[1],
        f64::from(b.2) - a[2],
    ];
    let ac = [
        f64::from(c[0]) - a[0],
        f64::from(c[1]) - a[1],
        f64::from(c[2]) - a[2],
    ];
    let dot = |u: [f64; 3], v: [f64; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let t = (dot(ac, ab) / dot(ab, ab)).clamp(0.0, 1.0);
    let r = [ac[0] - t * ab[0], ac[1] - t * ab[1], ac[2] - t * ab[2]];
    dot(r, r).sqrt()
}

/// The first 1100 × 900 panel of a map figure's PNG (a Lyapunov map's figure has a second
/// panel, its standard error, to the right: `panels` of them in all).
fn decode_png(path: &Path, panels: u32) -> Vec<u8> {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    assert_eq!((info.width, info.height), (1100 * panels, 900));
    buf.truncate(info.buffer_size());
    let row = 3 * info.width as usize;
    buf.chunks(row)
        .flat_map(|r| &r[..3 * 1100])
        .copied()
        .collect()
}

#[test]
fn incomplete_maps_hatch_the_missing_tiles_in_every_kind() {
    // The hatch colours are no data colour: far from "no flip", the class colours, every stop
    // of every colour map and the basin palette.
    let mut data_colours = vec![
        NEVER_COLOR,
        FORBIDDEN_COLOR,
        DIVERGED_COLOR,
        RGBColor(0x5a, 0x5a, 0x5a),
    ];
    for m in COLOUR_MAPS {
        data_colours.extend(ColourMap::parse(m).unwrap().lut());
    }
    data_colours.extend(colorous::TABLEAU10.iter().map(|c| RGBColor(c.r, c.g, c.b)));
    for h in [MISSING_COLOR, MISSING_HATCH] {
        for &c in &data_colours {
            let d = dist([h.0, h.1, h.2], c);
            assert!(d >= 30.0, "hatch {h:?} is {d:.0} from data colour {c:?}");
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("b.toml"), BASINS).unwrap();
    let kinds: [(&str, &[&str]); 6] = [
        ("flip", &[]),
        ("energy", &["--kind", "energy-error"]),
        ("lyap", &["--kind", "lyapunov"]),
        ("ftle", &["--kind", "ftle"]),
        ("sali", &["--kind", "sali"]),
        ("basins", &["--spec", "b.toml"]),
    ];
    let (w, h, size) = (32usize, 32usize, (1100u32, 900u32));
    for (name, extra) in kinds {
        let (file, fig_png, render_png) = (
            format!("{name}.h5"),
            format!("{name}.png"),
            format!("{name}-render.png"),
        );
        let mut a = vec!["map"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--resolution", "32", "--tile", "8", "--t-end", "3"]);
        a.extend_from_slice(&["--shard", "1/2", "-o", &file, "--plot", &fig_png]);
        ok(d, &a);
        ok(d, &["render", &file, "-o", &render_png]);
        let r = MapReader::open(&d.join(&file)).unwrap();
        let data = r.read_all().unwrap();
        let composed = compose_map(&r.header, &data, Show::Default, None);
        let fig = composed.figure();
        assert!(
            fig.subtitle
                .contains("incomplete: 8 of 16 tiles (shard 1/2)"),
            "{name}: {}",
            fig.subtitle
        );
        assert!(
            fig.swatches
                .iter()
                .any(|s| s.1 == MISSING_COLOR && s.0.contains("not computed")),
            "{name}: no legend entry for the missing tiles"
        );
        // What `map --plot` and `render` wrote is this figure, pixel for pixel.
        let rgb = pendula::plot::render_rgb(&fig, size).unwrap();
        let panels = compose_panels(&r.header, &data, Show::Default, None).len() as u32;
        assert_eq!(
            panels,
            if r.header.kind.name() == "lyapunov" {
                2
            } else {
                1
            }
        );
        assert_eq!(decode_png(&d.join(&fig_png), panels), rgb, "{name}: --plot");
        assert_eq!(
            decode_png(&d.join(&render_png), panels),
            rgb,
            "{name}: render"
        );
        let [left, top, pw, ph] = fig.raster_rect((1100.0, 900.0));
        let mut missing_cells = 0;
        for i in 0..h {
            for j in 0..w {
                // Shard 1/2 of 4 × 4 tiles holds the even tiles: columns 0 and 2.
                let missing = data.class[i * w + j] == 255;
                assert_eq!(missing, ((i / 8) * 4 + j / 8) % 2 == 1, "{name} ({i}, {j})");
                missing_cells += usize::from(missing);
                // The cell's interior, 2 logical pixels in from its edges; row 0 at the bottom.
                let (x0, x1) = (
                    left + j as f64 * pw / w as f64,
                    left + (j + 1) as f64 * pw / w as f64,
                );
                let (y0, y1) = (
                    top + (h - 1 - i) as f64 * ph / h as f64,
                    top + (h - i) as f64 * ph / h as f64,
                );
                let mut seen = [false; 2];
                for y in (y0 + 2.0).ceil() as usize..(y1 - 2.0).floor() as usize {
                    for x in (x0 + 2.0).ceil() as usize..(x1 - 2.0).floor() as usize {
                        let o = 3 * (y * size.0 as usize + x);
                        let c = [rgb[o], rgb[o + 1], rgb[o + 2]];
                        let is = |k: RGBColor| c == [k.0, k.1, k.2];
                        if missing {
                            assert!(
                                off_hatch(c) <= 3.0,
                                "{name} ({i}, {j}): missing pixel drawn {c:?}"
                            );
                            seen[0] |= is(MISSING_COLOR);
                            seen[1] |= is(MISSING_HATCH);
                        } else {
                            assert!(
                                off_hatch(c) > 3.0,
                                "{name} ({i}, {j}): computed pixel drawn like a missing one {c:?}"
                            );
                        }
                    }
                }
                if missing {
                    assert!(seen[0] && seen[1], "{name} ({i}, {j}): not hatched");
                }
            }
        }
        assert_eq!(missing_cells, w * h / 2, "{name}");
    }
}

/// A map file is input: one whose header was tampered with (a one-number window, a zero tile)
/// is refused in one line naming the attribute by every command that reads it, never a panic.
#[test]
fn a_tampered_map_header_is_refused_by_render_merge_and_measure() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    ok(d, &["map", "--resolution", "16", "-o", "f.h5"]);
    std::fs::copy(d.join("f.h5"), d.join("g.h5")).unwrap();
    {
        // No child may start while the files are open here: it would inherit their descriptors
        // and locks (see common::spawn).
        let _g = crate::spawn::spawn_guard();
        let g = hdf5::File::open_rw(d.join("f.h5"))
            .unwrap()
            .group("map")
            .unwrap();
        g.delete_attr("window").unwrap();
        let a = g.new_attr::<f64>().shape(1).create("window").unwrap();
        a.write(&[1.0]).unwrap();
        let g = hdf5::File::open_rw(d.join("g.h5"))
            .unwrap()
            .group("map")
            .unwrap();
        g.attr("tile").unwrap().write_scalar(&0i64).unwrap();
    }
    for (file, attr) in [("f.h5", "window"), ("g.h5", "tile")] {
        let runs: [&[&str]; 3] = [
            &["render", file, "-o", "out.png"],
            &["merge", file, "-o", "out.h5"],
            &["measure", file, "--what", "boundary-dimension"],
        ];
        for args in runs {
            let (code, _, err) = pendula(d, args);
            // A corrupt input file is bad input: exit 2 on every path.
            assert_eq!(code, 2, "{args:?}: exit {code}: {err}");
            assert!(
                err.contains(&format!("attribute {attr}")),
                "{args:?}: {err}"
            );
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        }
    }
    assert!(!d.join("out.png").exists() && !d.join("out.h5").exists());
}

/// A value map (Lyapunov, MEGNO, FTLE, energy error) speaks no flip vocabulary: its `class`
/// legend and its summary's `class_counts` say computed / diverged (and energetically
/// forbidden on an energy-shell grid), never `never_flipped`.
#[test]
fn value_maps_have_their_own_class_legend() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for kind in ["lyapunov", "megno", "ftle", "energy-error"] {
        let out = ok(
            d,
            &[
                "map",
                "--kind",
                kind,
                "--resolution",
                "8",
                "--t-end",
                "2",
                "--json",
                "-o",
                &format!("{kind}.h5"),
            ],
        );
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        let counts = j["class_counts"].as_object().unwrap();
        assert_eq!(counts["computed"], 64, "{kind}: {counts:?}");
        assert!(!out.contains("flipped"), "{kind}: {out}");
        let f = hdf5::File::open(d.join(format!("{kind}.h5"))).unwrap();
        let meanings: hdf5::types::VarLenUnicode = f
            .dataset("map/class")
            .unwrap()
            .attr("flag_meanings")
            .unwrap()
            .read_scalar()
            .unwrap();
        assert_eq!(
            meanings.as_str(),
            "computed diverged not_computed",
            "{kind}"
        );
    }
    // On an energy shell the unreachable pixels are energetically forbidden.
    let out = ok(
        d,
        &[
            "map",
            "--kind",
            "lyapunov",
            "--resolution",
            "8",
            "--t-end",
            "2",
            "--energy",
            "-15",
            "--json",
            "-o",
            "shell.h5",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let counts = j["class_counts"].as_object().unwrap();
    assert!(
        counts["energetically_forbidden"].as_u64().unwrap() > 0,
        "{counts:?}"
    );
    assert!(counts["computed"].as_u64().unwrap() > 0, "{counts:?}");
}

/// An energy-shell map without a window samples what the energy reaches: at E = −19 J the
/// double pendulum's (θ1, θ2) reach is |θ1| ≤ 1.083, |θ2| ≤ 1.634 rad (2 cos θ1 + cos θ2 ≥
/// 19/g), the window is its bounding box padded by a lattice step (stated on stderr and stored),
/// and the forbidden pixels fall from 7 972 of 9 216 on [−π, π]² to the box's corners (26 %,
/// about 1 − π/4 of an ellipse's box); a window given is kept as it is.
#[test]
fn energy_shell_maps_sample_the_reachable_region() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |extra: &[&str], name: &str| {
        let mut args = vec![
            "map",
            "--kind",
            "lyapunov",
            "--energy",
            "-19",
            "--resolution",
            "96",
            "--t-end",
            "0.5",
            "--json",
            "-o",
            name,
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = pendula(d, &args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let forbidden = v["class_counts"]["energetically_forbidden"]
            .as_u64()
            .unwrap_or(0);
        let f = hdf5::File::open(d.join(name)).unwrap();
        let w: Vec<f64> = f
            .group("map")
            .unwrap()
            .attr("window")
            .unwrap()
            .read_raw()
            .unwrap();
        (forbidden, w, err)
    };
    let (forbidden, w, err) = run(&[], "reach.h5");
    let step_x = 2.0 * std::f64::consts::PI / 512.0;
    let theta1 = (19.0 / 9.81 - 1.0f64).mul_add(0.5, 0.0).acos();
    let theta2 = (19.0 / 9.81 - 2.0f64).acos();
    assert!(
        (w[1] - theta1).abs() < 2.0 * step_x && (w[0] + w[1]).abs() < 1e-12,
        "{w:?} vs {theta1}"
    );
    assert!(
        (w[3] - theta2).abs() < 2.0 * step_x && (w[2] + w[3]).abs() < 1e-12,
        "{w:?} vs {theta2}"
    );
    assert!(err.contains("note: the map's window is the part"), "{err}");
    assert!(forbidden < 96 * 96 * 30 / 100, "{forbidden}");
    let (forbidden, w, err) = run(&["--window=-3,3,-3,3"], "full.h5");
    assert_eq!(w, [-3.0, 3.0, -3.0, 3.0]);
    assert!(!err.contains("note:"), "{err}");
    assert!(forbidden > 96 * 96 * 80 / 100, "{forbidden}");
}
