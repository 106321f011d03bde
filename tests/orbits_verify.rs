//! Issue 48, periodic orbits: nothing reported that is not so. A converged Newton is not yet an
//! orbit: half a libration, an equilibrium, a period too short to resolve, an open closure are
//! each refused (exit 1 naming what failed, nothing written); a verified orbit stores its
//! closure residual and trivial multipliers; a branch stays in its range; a located number
//! never claims 0 uncertainty; a map seed is checked against the map's own arrays; a Floquet
//! step or a dense solve never hangs, and a stop ends find and diagram cleanly.

#[allow(dead_code)] // Its `run` and `json` serve other test binaries.
#[path = "common/spawn.rs"]
mod spawn;

#[path = "common/running.rs"]
mod running;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `pendula ARGS` in `dir`, spawned under the guard that keeps children from inheriting a file
/// a test has open (see common::spawn).
fn pendula(dir: &Path, args: &[&str]) -> std::process::Output {
    spawn::output(
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .current_dir(dir)
            .args(args),
    )
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `pendula orbits ARGS -o x.h5` fails with exit `code`, one stderr line containing `names`,
/// and writes nothing.
fn refused(args: &[&str], code: i32, names: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["orbits"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "x.h5"]);
    let out = pendula(dir.path(), &all);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(names), "{args:?}: {err}");
    assert!(!dir.path().join("x.h5").exists(), "{args:?}");
    assert!(!dir.path().join("x.h5.partial").exists(), "{args:?}");
}

const SIMPLE_150: [&str; 9] = [
    "--preset",
    "simple",
    "--length",
    "1",
    "--gravity",
    "9.81",
    "--theta-deg",
    "150",
    "--json",
];

/// θ₀ = 150° released at rest: a fixed period of 2.006 s is half its libration (3.535 s), and
/// the closure across ∇E = (mgl sin θ₀, 0) keeps only θ̇, which θ(T) = −θ₀ closes too. Before,
/// both searches reported the half libration as an orbit (trivial multipliers −1, −1).
#[test]
fn half_a_libration_is_no_orbit() {
    let mut fixed = SIMPLE_150.to_vec();
    fixed.extend_from_slice(&["--period", "2.006"]);
    refused(&fixed, 1, "half a period: θ(T) = −θ₀");
    // The energy of the release, E = −mgl cos θ₀, and the same guess.
    let e = (-9.81 * (150f64).to_radians().cos()).to_string();
    let mut energy = SIMPLE_150.to_vec();
    energy.extend_from_slice(&["--period", "2.006", "--energy", &e]);
    refused(&energy, 1, "half a period: θ(T) = −θ₀");
    // A guess near the whole libration gives the orbit, verified: its whole closure within
    // the stated tolerance, both trivial multipliers +1 within theirs.
    let dir = tempfile::tempdir().unwrap();
    let mut whole = vec!["orbits"];
    whole.extend_from_slice(&SIMPLE_150);
    whole.extend_from_slice(&["--period", "3.5", "--energy", &e]);
    let v = json(&pendula(dir.path(), &whole));
    let o = &v["orbit"];
    let period = o["period"].as_f64().unwrap();
    assert!((period - 3.5351).abs() < 1e-3, "{period}");
    let (res, tol) = (
        o["closure_residual"].as_f64().unwrap(),
        o["closure_tolerance"].as_f64().unwrap(),
    );
    // tol = 1e-7 · ‖M‖∞, the libration's shear ‖M‖ ≈ 1.2e3 at 150°.
    assert!(res <= tol && tol < 1e-5, "{res} {tol}");
    let ttol = o["trivial_tolerance"].as_f64().unwrap();
    for m in o["trivial_multipliers"].as_array().unwrap() {
        let re = m[0].as_f64().unwrap();
        assert!((re - 1.0).abs() <= ttol, "{m} {ttol}");
    }
    // One link: no non-trivial multiplier, so no largest modulus.
    assert!(o["largest_modulus"].is_null(), "{o}");
}

/// The double pendulum's second mode at 2.5 rad: Newton used to "converge" to a hyperbolic
/// orbit whose end lies 3.0 from its start, and continuation wrote a whole branch of them.
#[test]
fn an_open_closure_is_no_orbit_nor_a_branch() {
    let seed = [
        "--preset",
        "double",
        "--start",
        "mode",
        "--mode",
        "2",
        "--amplitude",
        "2.5",
    ];
    refused(&seed, 1, "Newton converged on no orbit");
    let mut cont = seed.to_vec();
    cont.extend_from_slice(&[
        "continue",
        "--parameter",
        "orbits.energy",
        "--range",
        "-100,100",
        "--points",
        "5",
    ]);
    refused(&cont, 1, "Newton converged on no orbit");
}

/// The hanging double pendulum "closes" after any period: it is an equilibrium, and was
/// reported as a complex-unstable orbit; a period of 1e-11 s turned any seed into an orbit.
#[test]
fn an_equilibrium_or_an_unresolvable_period_is_no_orbit() {
    refused(
        &["--preset", "double", "--theta", "0,0", "--period", "3"],
        1,
        "the orbit is the equilibrium",
    );
    refused(
        &[
            "--preset", "double", "--theta", "0.3,0.2", "--period", "1e-11",
        ],
        1,
        "too short to resolve",
    );
}

/// `largest_modulus` holds max |μ| (it held |μ| − 1), NaN where no multiplier is non-trivial;
/// the orbit group stores the closure residual and the trivial multipliers.
#[test]
fn the_orbit_file_holds_what_its_names_say() {
    let dir = tempfile::tempdir().unwrap();
    let out = pendula(
        dir.path(),
        &[
            "orbits",
            "--preset",
            "double",
            "--start",
            "mode",
            "--amplitude",
            "0.3",
            "-o",
            "o.h5",
            "--json",
        ],
    );
    let v = json(&out);
    let f = hdf5::File::open(dir.path().join("o.h5")).unwrap();
    let g = f.group("orbits/orbit").unwrap();
    let attr = |n: &str| -> f64 { g.attr(n).unwrap().read_scalar().unwrap() };
    let re: Vec<f64> = g.dataset("multiplier_real").unwrap().read_raw().unwrap();
    let im: Vec<f64> = g.dataset("multiplier_imag").unwrap().read_raw().unwrap();
    let largest = re
        .iter()
        .zip(&im)
        .map(|(a, b)| a.hypot(*b))
        .fold(0.0, f64::max);
    assert!(
        (attr("largest_modulus") - largest).abs() < 1e-15,
        "{largest}"
    );
    // An elliptic orbit: its multipliers on the unit circle.
    assert!((largest - 1.0).abs() < 1e-6, "{largest}");
    assert!(attr("closure_residual") <= attr("closure_tolerance"));
    let t: Vec<f64> = g
        .dataset("trivial_multiplier_real")
        .unwrap()
        .read_raw()
        .unwrap();
    assert_eq!(t.len(), 2);
    for m in t {
        assert!((m - 1.0).abs() <= attr("trivial_tolerance"), "{m}");
    }
    assert_eq!(
        v["orbit"]["closure_residual"].as_f64().unwrap(),
        attr("closure_residual")
    );

    let dir = tempfile::tempdir().unwrap();
    let out = pendula(
        dir.path(),
        &[
            "orbits",
            "--preset",
            "simple",
            "--start",
            "mode",
            "--amplitude",
            "0.5",
            "-o",
            "s.h5",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = hdf5::File::open(dir.path().join("s.h5")).unwrap();
    let m: f64 = f
        .group("orbits/orbit")
        .unwrap()
        .attr("largest_modulus")
        .unwrap()
        .read_scalar()
        .unwrap();
    assert!(m.is_nan(), "{m}");
}

/// A branch stays inside `--range`: its last point lands on the range's end (it went one point
/// past it, down to a = −0.0083 m, and reported a branch point there), every point and every
/// located bifurcation inside; each point stores its closure residual and trivial multipliers.
#[test]
fn a_branch_stays_in_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let spec = root().join("analyses/orbits-kapitza-inverted.toml");
    let out = pendula(
        dir.path(),
        &[
            "orbits",
            "--spec",
            spec.to_str().unwrap(),
            "--range",
            "0.001,0.5",
            "--locate-tolerance",
            "1e-9",
            "-o",
            "k.h5",
            "--json",
        ],
    );
    let v = json(&out);
    let (lo, hi) = (0.001, 0.5);
    for b in v["branches"].as_array().unwrap() {
        let first = b["parameter_first"].as_f64().unwrap();
        let last = b["parameter_last"].as_f64().unwrap();
        assert!(
            (lo..=hi).contains(&first) && (lo..=hi).contains(&last),
            "{b}"
        );
        if b["ended"] == "range" {
            assert!(last == lo || last == hi, "{b}");
        }
        for x in b["bifurcations"].as_array().unwrap() {
            let p = x["parameter"].as_f64().unwrap();
            assert!((lo..=hi).contains(&p), "{x}");
            assert!(x["uncertainty"].as_f64().unwrap() > 0.0, "{x}");
        }
    }
    let f = hdf5::File::open(dir.path().join("k.h5")).unwrap();
    for b in ["branch_1", "branch_2"] {
        let p: Vec<f64> = f
            .dataset(&format!("orbits/{b}/parameter"))
            .unwrap()
            .read_raw()
            .unwrap();
        assert!(p.iter().all(|x| (lo..=hi).contains(x)), "{b}: {p:?}");
        let r: Vec<f64> = f
            .dataset(&format!("orbits/{b}/closure_residual"))
            .unwrap()
            .read_raw()
            .unwrap();
        let t: Vec<f64> = f
            .dataset(&format!("orbits/{b}/closure_tolerance"))
            .unwrap()
            .read_raw()
            .unwrap();
        assert_eq!(r.len(), p.len());
        assert!(r.iter().zip(&t).all(|(a, b)| a <= b), "{b}");
        // A driven orbit has no trivial multiplier: NaN says so.
        let a: Vec<f64> = f
            .dataset(&format!("orbits/{b}/trivial_along_flow"))
            .unwrap()
            .read_raw()
            .unwrap();
        assert!(a.iter().all(|x| x.is_nan()));
    }
}

/// A locate tolerance below what the arithmetic resolves is refused naming the flag (it was
/// accepted, and the doubling reported with uncertainty 0.0).
#[test]
fn a_locate_tolerance_below_the_arithmetic_is_refused() {
    let spec = root().join("analyses/orbits-kapitza-inverted.toml");
    refused(
        &[
            "--spec",
            spec.to_str().unwrap(),
            "--locate-tolerance",
            "1e-300",
        ],
        2,
        "--locate-tolerance: must be >=",
    );
}

/// `--direction` lists all three of its words.
#[test]
fn direction_help_lists_both() {
    let out = pendula(Path::new("."), &["orbits", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    let line = help
        .lines()
        .find(|l| l.contains("--direction"))
        .unwrap_or_else(|| panic!("{help}"));
    assert!(line.contains("up|down|both"), "{line}");
}

/// Runs `pendula ARGS` in `dir` until it exits or `limit` passes (then kills it and fails).
fn run_within(dir: &Path, args: &[&str], limit: Duration) -> std::process::Output {
    let mut child = spawn::spawn(
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    running::poll_child(&mut child, &format!("pendula {args:?} ended"), limit, |c| {
        c.try_wait().unwrap()
    });
    child.wait_with_output().unwrap()
}

/// The triple pendulum's third mode at 2 rad: the Floquet step's eigenvalue iteration looped
/// forever. Now it ends, with an orbit or a one-line failure (exit 1), never a hang.
#[test]
fn the_floquet_step_never_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_within(
        dir.path(),
        &[
            "orbits",
            "find",
            "--preset",
            "triple",
            "--start",
            "mode",
            "--mode",
            "3",
            "--amplitude",
            "2.0",
        ],
        Duration::from_secs(120),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    if out.status.code() == Some(1) {
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// Sends `signal` to `pendula ARGS` once it has worked `cpu` CPU seconds (a condition, not a
/// fixed sleep: deep in its computation on however busy a machine) and checks a clean stop
/// within 2 s: exit 1, one line saying "interrupted", no `.partial` left.
fn stops_cleanly(dir: &Path, args: &[&str], cpu: f64, signal: &str) -> String {
    let mut child = spawn::spawn(
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let pid = child.id();
    let what = format!("pendula {args:?}");
    running::wait_running(&mut child, Duration::from_secs_f64(cpu), &what);
    let at = running::cpu_time(pid);
    assert!(
        spawn::status(Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]))
            .success()
    );
    let (status, _) = running::wait_stopped(&mut child, at, Duration::from_secs(2), &what);
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "SIG{signal}: {stderr}");
    assert!(stderr.contains("interrupted"), "SIG{signal}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        assert!(
            !p.to_string_lossy().ends_with(".partial"),
            "{}",
            p.display()
        );
    }
    stderr
}

/// 600 shooting segments of the double pendulum: a 2401 × 2401 dense solve (tens of seconds)
/// per Newton step, which did not poll the stop (with 300 segments of the triple pendulum the
/// process ran on > 8 s after SIGTERM).
#[test]
fn find_with_many_segments_stops_within_a_second_or_two() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        stops_cleanly(
            dir.path(),
            &[
                "orbits",
                "find",
                "--preset",
                "double",
                "--start",
                "mode",
                "--amplitude",
                "0.3",
                "--segments",
                "600",
                "-o",
                "o.h5",
            ],
            3.0,
            signal,
        );
    }
}

/// An interrupted orbit diagram writes what it finished, marked `complete = 0` (it wrote
/// nothing).
#[test]
fn an_interrupted_diagram_writes_its_part() {
    let dir = tempfile::tempdir().unwrap();
    let spec = root().join("analyses/orbits-baker-gollub-diagram.toml");
    stops_cleanly(
        dir.path(),
        &[
            "orbits",
            "--spec",
            spec.to_str().unwrap(),
            "--points",
            "100000",
            "--range",
            "0.9,1.2",
            "--sampled-periods",
            "8",
            "--transient-periods",
            "20",
            "-o",
            "d.h5",
        ],
        2.0,
        "TERM",
    );
    let f = hdf5::File::open(dir.path().join("d.h5")).unwrap();
    let g = f.group("orbits").unwrap();
    let complete: i8 = g.attr("complete").unwrap().read_scalar().unwrap();
    assert_eq!(complete, 0);
    let p: Vec<f64> = f
        .dataset("orbits/diagram/parameter")
        .unwrap()
        .read_raw()
        .unwrap();
    assert!(!p.is_empty() && p.len() < 100_000, "{}", p.len());
    let s = f.dataset("orbits/diagram/samples").unwrap();
    assert_eq!(s.shape()[0], p.len());
}

/// `--start map` rebuilt the map's grid from the spec text the file stores and trusted it: with
/// the stored resolution edited, the seed came from outside the pixel the map computed. The
/// stored spec is now checked against the file's own arrays and refused naming the file.
#[test]
fn a_map_whose_spec_text_disagrees_with_its_arrays_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = "[model]\npreset = \"simple\"\ngravity = 1.0\nlength = 1.0\nmass = 1.0\n\
[model.damping]\nabsolute = 0.5\n[model.drive.torque]\namplitude = 1.07\nfrequency = 0.6666666666666666\n";
    let map = format!(
        "kind = \"map\"\n{model}[integrator]\nmethod = \"rk4\"\ndt = {}\n\
[map]\nkind = \"final-state\"\nresolution = 16\nt_end = 300.0\nmax_period = 4\n",
        3.0 * std::f64::consts::PI / 200.0
    );
    std::fs::write(d.join("map.toml"), &map).unwrap();
    let out = pendula(d, &["run", "map.toml", "-o", "map.h5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    {
        let _g = spawn::spawn_guard();
        let f = hdf5::File::open_rw(d.join("map.h5")).unwrap();
        let text: hdf5::types::VarLenUnicode = f.attr("spec").unwrap().read_scalar().unwrap();
        let edited = text.as_str().replace("resolution = 16", "resolution = 32");
        assert_ne!(edited, text.as_str(), "the stored spec: {}", text.as_str());
        f.delete_attr("spec").unwrap();
        f.new_attr::<hdf5::types::VarLenUnicode>()
            .create("spec")
            .unwrap()
            .write_scalar(&edited.parse::<hdf5::types::VarLenUnicode>().unwrap())
            .unwrap();
    }
    let orbits = format!(
        "kind = \"orbits\"\n{model}[orbits]\nstart = \"map\"\nmap_file = \"map.h5\"\nattractor = \"period_2\"\n"
    );
    std::fs::write(d.join("orb.toml"), &orbits).unwrap();
    let out = pendula(d, &["run", "orb.toml", "-o", "orb.h5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("orbits.map_file") && err.contains("map.h5") && err.contains("resolution"),
        "{err}"
    );
    assert!(!d.join("orb.h5").exists());
}

/// A driven orbit of k = 2 drive periods seeded on the period-1 attractor (A = 0.9 of the
/// Baker–Gollub pendulum) converged to the period-1 orbit and was reported as period 2: it is
/// a fixed point of the lower iterate, and refused as such.
#[test]
fn a_fixed_point_of_a_lower_iterate_is_no_period_k_orbit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bg.toml"),
        "preset = \"simple\"\ngravity = 1.0\n[damping]\nabsolute = 0.5\n[drive.torque]\namplitude = 0.9\nfrequency = 0.6666666666666666\n",
    )
    .unwrap();
    let out = pendula(
        dir.path(),
        &[
            "orbits",
            "--model",
            "bg.toml",
            "--theta",
            "0",
            "--start",
            "settle",
            "--drive-periods",
            "2",
            "-o",
            "x.h5",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("a fixed point of a lower iterate"), "{err}");
    assert!(!dir.path().join("x.h5").exists());
}

/// An undriven orbit search over an absurd period (10⁶ s, 3.5·10⁵ turns of the simple
/// pendulum) ran for hours: it is refused up front, naming `--period`, with the bound.
#[test]
fn an_absurd_period_guess_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    for preset in ["simple", "double"] {
        let theta = if preset == "simple" { "2.5" } else { "2.5,0" };
        let out = spawn::output(
            Command::new(env!("CARGO_BIN_EXE_pendula"))
                .current_dir(dir.path())
                .args([
                    "orbits", "find", "--preset", preset, "--theta", theta, "--period", "1e6",
                ]),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{preset}: {err}");
        assert!(err.contains("--period") && err.contains("turns"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
