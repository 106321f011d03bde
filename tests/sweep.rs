//! `[sweep]` / `--sweep`: every point is the single run of its spec, number for number; an
//! interrupted sweep keeps its finished points and a rerun reuses them (and only them: a changed
//! spec runs again); bad sweeps are refused before any work, naming the flag or field.

#[path = "common/python.rs"]
mod python;
#[path = "common/running.rs"]
mod running;
#[path = "common/spawn.rs"]
mod spawn;

use serde_json::Value;
use spawn::{json, run};
use std::path::Path;
use std::time::Duration;

/// `lyapunov` of the damped, torque-driven double pendulum at torque amplitude `amplitude`
/// over 60 s, then `extra`.
fn driven<'a>(amplitude: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "lyapunov",
        "--preset",
        "double",
        "--theta",
        "2,2",
        "--damping",
        "0.1",
        "--torque-amplitude",
        amplitude,
        "--torque-frequency",
        "2",
        "--t-end",
        "60",
        "--json",
    ];
    args.extend_from_slice(extra);
    args
}

fn ok(args: &[&str], dir: &Path) -> Value {
    let (code, out, err) = run(args, dir);
    assert_eq!(code, 0, "{args:?}: {err}");
    json(&out)
}

#[test]
fn lyapunov_sweep_points_equal_single_runs_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let amplitudes = ["0.5", "1.2", "2.5"];
    let args = driven(
        "1",
        &[
            "--sweep",
            "model.drive.torque.amplitude=0.5,1.2,2.5",
            "-o",
            "lam.h5",
        ],
    );
    let sweep = ok(&args, dir.path());
    let points = sweep["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for (p, amp) in points.iter().zip(amplitudes) {
        let s = ok(&driven(amp, &[]), dir.path());
        assert_eq!(p["values"][0].as_f64().unwrap().to_string(), amp);
        // The same f64s, printed and parsed the same way: equal to the last bit.
        assert_eq!(p["results"]["lambda"], s["exponents"], "amplitude {amp}");
        assert_eq!(
            p["results"]["lambda_standard_error"], s["standard_error"],
            "amplitude {amp}"
        );
        assert_eq!(p["results"]["lambda_sum"], s["sum_exponents"]);
    }
    // The point files are the single runs' files.
    assert!(dir.path().join("lam-points/point-00002.h5").is_file());
}

#[test]
fn modes_sweep_points_equal_single_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("links.toml"),
        "[[link]]\nlength = 1.0\nmass = 1.0\n[[link]]\nlength = 1.0\nmass = 1.0\n",
    )
    .unwrap();
    let sweep = ok(
        &[
            "modes",
            "--model",
            "links.toml",
            "--sweep",
            "model.link[2].mass=0.5,2",
            "--json",
        ],
        dir.path(),
    );
    std::fs::write(
        dir.path().join("m.toml"),
        "kind = \"modes\"\n[model]\n[[model.link]]\nlength = 1.0\nmass = 1.0\n[[model.link]]\nlength = 1.0\nmass = 2.0\n",
    )
    .unwrap();
    let single = ok(&["modes", "--spec", "m.toml", "--json"], dir.path());
    let omega2 = &single["equilibria"][0]["omega2"];
    assert!(omega2.is_array(), "{single}");
    assert_eq!(&sweep["points"][1]["results"]["omega2"], omega2);
    // Small-angle check of the swept point: the equal-length double pendulum with masses
    // m1 = 1, m2 = 2 has ω² = g (m1 + m2 ∓ √((m1 + m2) m2)) / (m1 l).
    let (g, m1, m2) = (9.81f64, 1.0f64, 2.0f64);
    let low = g * (m1 + m2 - ((m1 + m2) * m2).sqrt()) / m1;
    let got = omega2[0].as_f64().unwrap();
    assert!((got - low).abs() < 1e-10 * low, "{got} vs {low}");
}

/// The gravity sweep of the interruption tests, started in `dir`; returns once its first
/// point's record is on disk.
fn start_gravity_sweep(dir: &Path, stderr: std::process::Stdio) -> std::process::Child {
    let child = {
        let _g = spawn::spawn_guard();
        std::process::Command::new(assert_cmd::cargo::cargo_bin("pendula"))
            .current_dir(dir)
            .args(GRAVITY_SWEEP)
            .stdout(std::process::Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap()
    };
    let mut child = child;
    let first = dir.join("g-points/point-00001.json");
    // A sweep that ends or never writes its first point fails here, naming which, rather than
    // later with a puzzling missing file.
    running::poll_child(
        &mut child,
        "the first point's record",
        Duration::from_secs(300),
        |c| {
            assert!(
                c.try_wait().unwrap().is_none(),
                "the sweep ended before its first point's record was written"
            );
            first.is_file().then_some(())
        },
    );
    child
}

const GRAVITY_SWEEP: &[&str] = &[
    "lyapunov",
    "--preset",
    "double",
    "--theta",
    "2,2",
    "--t-end",
    "2500",
    "--threads",
    "1",
    "--sweep",
    "model.gravity=9,9.2,9.4,9.6,9.8,10,10.2,10.4",
    "-o",
    "g.h5",
];

#[test]
fn an_interrupted_sweep_resumes_with_its_finished_points() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = GRAVITY_SWEEP.to_vec();
    args.push("--json");
    // Killed (SIGKILL: no handler runs) once the first point's record is on disk.
    let mut child = start_gravity_sweep(dir.path(), std::process::Stdio::null());
    child.kill().unwrap();
    child.wait().unwrap();
    let first = dir.path().join("g-points/point-00001.json");
    assert!(first.is_file(), "no point finished within 120 s");
    assert!(
        !dir.path().join("g.h5").exists(),
        "the sweep file is written last"
    );
    let kept = std::fs::read_dir(dir.path().join("g-points"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert!(kept < 8, "killed before the end ({kept} points kept)");
    let resumed = ok(&args, dir.path());
    let reused = resumed["reused"].as_u64().unwrap() as usize;
    assert_eq!(reused, kept, "every kept point is reused");
    // The resumed sweep's numbers are a fresh sweep's.
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = ok(&args, fresh_dir.path());
    assert_eq!(fresh["reused"], 0);
    for (a, b) in resumed["points"]
        .as_array()
        .unwrap()
        .iter()
        .zip(fresh["points"].as_array().unwrap())
    {
        assert_eq!(a["results"], b["results"]);
    }
    // A changed spec (another t_end) reuses nothing.
    let mut changed = args.to_vec();
    changed[6] = "2000";
    changed.push("--force");
    let again = ok(&changed, dir.path());
    assert_eq!(again["reused"], 0);
}

#[test]
fn sweep_file_tabulates_over_the_parameter() {
    let dir = tempfile::tempdir().unwrap();
    ok(
        &[
            "simulate",
            "--preset",
            "double",
            "--theta",
            "1,0",
            "--t-end",
            "2",
            "--sweep",
            "model.gravity=1:4:4",
            "--sweep",
            "model.length=1,2",
            "-o",
            "s.h5",
            "--json",
        ],
        dir.path(),
    );
    let f = hdf5::File::open(dir.path().join("s.h5")).unwrap();
    let g = f.group("sweep").unwrap();
    let sweep: Vec<i64> = g.dataset("sweep").unwrap().read_raw().unwrap();
    assert_eq!(sweep, (1..=8).collect::<Vec<_>>());
    let gravity: Vec<f64> = g.dataset("model_gravity").unwrap().read_raw().unwrap();
    let mass: Vec<f64> = g.dataset("model_length").unwrap().read_raw().unwrap();
    // The product, the last field fastest.
    assert_eq!(gravity, vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]);
    assert_eq!(mass, vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
    let theta = g.dataset("theta_end").unwrap();
    assert_eq!(theta.shape(), vec![8, 2]);
}

#[test]
fn bad_sweeps_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--sweep", "model.colour=1,2"], "--sweep"),
        (&["--sweep", "model.gravity=1:2"], "--sweep"),
        (&["--sweep", "model.gravity=1:2:1"], "--sweep"),
        (&["--sweep", "model.gravity=1,1"], "given twice"),
        (
            &[
                "--sweep",
                "model.gravity=1,2",
                "--sweep",
                "model.mass=1,2,3",
                "--sweep-combine",
                "zip",
            ],
            "equal lengths",
        ),
        (&["--sweep", "model.length=1,-1"], "point 2"),
        (
            &["--sweep", "model.drive.torque.amplitude=1,2"],
            "model.drive.torque",
        ),
        (&["--sweep", "model.link[2].mass=1,2"], "[[model.link]]"),
    ];
    for (extra, says) in cases {
        let mut args = vec!["lyapunov", "--preset", "double", "--theta", "1,1", "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args, dir.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_map_sweep_tabulates_class_fractions_per_point() {
    let dir = tempfile::tempdir().unwrap();
    let v = ok(
        &[
            "map",
            "--preset",
            "double",
            "--resolution",
            "16",
            "--t-end",
            "5",
            "--sweep",
            "model.gravity=5,9.81",
            "-o",
            "m.h5",
            "--json",
        ],
        dir.path(),
    );
    for p in v["points"].as_array().unwrap() {
        let f: Vec<f64> = p["results"]["class_fraction"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!((f.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{f:?}");
    }
    // Each point's file is the map a single run writes.
    let one = hdf5::File::open(dir.path().join("m-points/point-00002.h5")).unwrap();
    let class: Vec<u8> = one.dataset("map/class").unwrap().read_raw().unwrap();
    assert_eq!(class.len(), 256);
    let flipped = class.iter().filter(|&&c| c == 1).count() as f64 / 256.0;
    let got = v["points"][1]["results"]["class_fraction"][1]
        .as_f64()
        .unwrap();
    assert_eq!(got, flipped);
}

#[test]
fn an_interrupt_keeps_the_finished_points_and_says_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let child = start_gravity_sweep(dir.path(), std::process::Stdio::piped());
    let first = dir.path().join("g-points/point-00001.json");
    assert!(std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("rerun the same command to resume"), "{err}");
    assert!(!dir.path().join("g.h5").exists());
    assert!(first.is_file());
}

/// `pendula ARGS` in `dir`, failing (after killing it) if it has not ended within `limit`:
/// (exit code, stdout, stderr).
fn run_within(args: &[&str], dir: &Path, limit: Duration) -> (i32, String, String) {
    let mut child = spawn::spawn(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("pendula"))
            .current_dir(dir)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
    );
    let what = format!("pendula {args:?} ended (else a deadlock)");
    running::poll_child(&mut child, &what, limit, |c| c.try_wait().unwrap());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Analyses that poll their observer while their work runs on the pool (poincare, an ensemble,
/// a map), swept on one thread and on all: each point alone takes a fraction of a second, the
/// sweep ends (before: a deadlock at 0 % CPU, the polling point holding the pool's only thread).
#[test]
fn sweeps_of_analyses_that_use_the_pool_do_not_deadlock() {
    let runs: &[&[&str]] = &[
        &[
            "poincare",
            "--energy",
            "-20",
            "--grid",
            "2,2",
            "--crossings",
            "20",
        ],
        &[
            "lyapunov",
            "--preset",
            "double",
            "--theta",
            "2,2",
            "--t-end",
            "15",
            "--ensemble",
            "4",
        ],
        &[
            "map",
            "--preset",
            "double",
            "--resolution",
            "8",
            "--t-end",
            "2",
        ],
    ];
    for base in runs {
        for threads in [Some("1"), None] {
            let dir = tempfile::tempdir().unwrap();
            let mut args = base.to_vec();
            args.extend_from_slice(&["--sweep", "model.gravity=9,9.5,10", "--json"]);
            if let Some(t) = threads {
                args.extend_from_slice(&["--threads", t]);
            }
            // A deadlock never ends; the deadline is the busy machine's, as everywhere else.
            let (code, out, err) = run_within(&args, dir.path(), Duration::from_secs(300));
            assert_eq!(code, 0, "{args:?}: {err}");
            assert_eq!(
                json(&out)["points"].as_array().unwrap().len(),
                3,
                "{args:?}"
            );
        }
    }
}

/// A kept point whose file no longer matches its record (truncated to 0 bytes, or changed) is
/// not reused: the rerun runs it again, says so, and its numbers are a fresh run's (before:
/// the truncated point counted as reused and the sweep reported success).
#[test]
fn a_rerun_sweep_runs_again_a_point_whose_file_was_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "simulate",
        "--preset",
        "double",
        "--theta",
        "1,1",
        "--t-end",
        "1",
        "--sweep",
        "model.gravity=9,9.5,10",
        "-o",
        "s.h5",
        "--json",
        "--force",
    ];
    let first = ok(&args, dir.path());
    assert_eq!(first["reused"], 0);
    let points = dir.path().join("s-points");
    std::fs::write(points.join("point-00002.h5"), b"").unwrap();
    // Same length, one byte changed: only the checksum tells.
    let third = points.join("point-00003.h5");
    let mut bytes = std::fs::read(&third).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&third, bytes).unwrap();
    let (code, out, err) = run(&args, dir.path());
    assert_eq!(code, 0, "{err}");
    let again = json(&out);
    assert_eq!(again["reused"], 1, "only the intact point is reused: {err}");
    for k in [2, 3] {
        assert!(
            err.contains(&format!("point {k} (model.gravity = ")) && err.contains("run again"),
            "says point {k} was run again: {err}"
        );
        assert!(again["points"][k - 1]["rerun"].is_string(), "{again}");
    }
    for (a, b) in again["points"]
        .as_array()
        .unwrap()
        .iter()
        .zip(first["points"].as_array().unwrap())
    {
        assert_eq!(a["results"], b["results"], "a fresh run's numbers");
    }
    // The files are whole again, and a third run reuses every point.
    let f = hdf5::File::open(points.join("point-00002.h5")).unwrap();
    assert!(f.group("trajectory").is_ok());
    drop(f);
    let third_run = ok(&args, dir.path());
    assert_eq!(third_run["reused"], 3);
}

/// `frequencies --sweep … -o` writes a file that HDF5 (and, where installed, h5py and xarray)
/// reads: the fundamentals are `fundamental_frequency` over (sweep, fundamental), named as in
/// a single run's file (before: exit 1, the variable and its dimension shared the name).
#[test]
fn a_frequency_sweep_writes_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let v = ok(
        &[
            "frequencies",
            "--preset",
            "double",
            "--theta",
            "0.3,0.2",
            "--t-end",
            "100",
            "--sweep",
            "model.gravity=9,10",
            "-o",
            "f.h5",
            "--json",
        ],
        dir.path(),
    );
    let f = hdf5::File::open(dir.path().join("f.h5")).unwrap();
    let ds = f.dataset("sweep/fundamental_frequency").unwrap();
    let shape = ds.shape();
    assert_eq!(shape[0], 2);
    let values: Vec<f64> = ds.read_raw().unwrap();
    for (k, p) in v["points"].as_array().unwrap().iter().enumerate() {
        let want: Vec<f64> = p["results"]["fundamental_frequency"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(
            &values[k * shape[1]..k * shape[1] + want.len()],
            want.as_slice()
        );
    }
    drop(f);
    if python::readers_available() {
        let _g = spawn::spawn_guard();
        python::check_h5(&dir.path().join("f.h5"), "sweep");
    }
}

/// What a range and its count mean is one rule for every front end: `range = [from, to]`
/// (three values are refused, never cut to two) and a whole count from 2 (2.5 is refused by
/// the spec, the CLI and Python alike, never rounded).
#[test]
fn a_range_and_a_count_are_taken_as_written_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = |range: &str, count: &str| {
        format!(
            "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 1.0]\n\
             [simulate]\nt_end = 1.0\n[sweep]\nparameter = \"model.gravity\"\nrange = {range}\ncount = {count}\n"
        )
    };
    let refused = |text: String, says: &[&str]| {
        std::fs::write(dir.path().join("s.toml"), text).unwrap();
        let (code, out, err) = run(&["run", "s.toml", "--json"], dir.path());
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty());
        for s in says {
            assert!(err.contains(s), "{s:?} in {err}");
        }
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        err
    };
    refused(
        spec("[1.0, 2.0, 3.0]", "2"),
        &["sweep.range", "must be [from, to] (got 3 values"],
    );
    let in_spec = refused(spec("[1.0, 2.0]", "2.5"), &["sweep.count"]);
    // The CLI's `FROM:TO:COUNT` meets the same rule, in the same words.
    let (code, _, in_cli) = run(
        &[
            "simulate",
            "--preset",
            "double",
            "--theta",
            "1,1",
            "--t-end",
            "1",
            "--sweep",
            "model.gravity=1:2:2.5",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{in_cli}");
    assert!(in_cli.contains("--sweep"), "{in_cli}");
    let rule = "must be a whole number from 2 to 100000 (got 2.5)";
    assert!(in_spec.contains(rule), "{in_spec}");
    assert!(in_cli.contains(rule), "{in_cli}");
    // A whole count as a float is the count.
    std::fs::write(dir.path().join("s.toml"), spec("[9.0, 10.0]", "3.0")).unwrap();
    let v = ok(&["run", "s.toml", "--json"], dir.path());
    assert_eq!(v["points"].as_array().unwrap().len(), 3);
}

/// A `--sweep-dir` that cannot be created or written is bad input naming the flag, refused
/// before any work (before: exit 1 after the run, not naming it).
#[test]
fn an_unusable_sweep_dir_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-file"), b"").unwrap();
    let (code, out, err) = run(
        &[
            "simulate",
            "--preset",
            "double",
            "--theta",
            "1,1",
            "--t-end",
            "1",
            "--sweep",
            "model.gravity=9,10",
            "--sweep-dir",
            "a-file/points",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: --sweep-dir") || err.contains("--sweep-dir:"),
        "{err}"
    );
    assert!(err.contains("a-file/points"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
