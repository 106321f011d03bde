//! Stop signals end a long run within a second, whatever its sampling: SIGINT (Ctrl-C) and
//! SIGTERM (a scheduler's preemption) 1 s of CPU into a run whose samples (or intervals, or tiles)
//! are minutes apart; the process must exit within 2 s of CPU time after the signal (the wall
//! time is a busy machine's to stretch) with code 1 and an
//! "interrupted" message, the partial result written and marked `complete = 0` (a map keeps its
//! tile checkpoint), and no `.partial` file left. Also: steps that cannot advance time, and a
//! state at the edge of the f64 range, end in seconds instead of looping.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "common/running.rs"]
mod running;

/// The CPU time the process may spend between the signal and its exit (a busy machine
/// stretches the wall time, not the work).
const EXIT_WITHIN: Duration = Duration::from_secs(2);

struct Stopped {
    code: Option<i32>,
    stderr: String,
    /// CPU time from the signal to the exit.
    took: Duration,
}

/// Runs `pendula ARGS` in `dir`, sends `signal` (INT or TERM) once the run is under way (its
/// stop handler installed and 1 s of CPU spent, however busy the machine), and waits for the
/// exit (killing the process and failing if it spends more than [`EXIT_WITHIN`] of CPU time
/// after the signal, or is not gone within [`running::PATIENCE`]).
fn stop_after_1s(dir: &Path, args: &[&str], signal: &str) -> Stopped {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    running::wait_running(
        &mut child,
        Duration::from_secs(1),
        &format!("pendula {args:?}"),
    );
    let pid = child.id().to_string();
    let cpu = running::cpu_time(child.id());
    assert!(Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .unwrap()
        .success());
    let what = format!("pendula {args:?} (SIG{signal})");
    let (status, took) = running::wait_stopped(&mut child, cpu, EXIT_WITHIN, &what);
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    Stopped {
        code: status.code(),
        stderr,
        took,
    }
}

/// No `*.partial` anywhere under `dir`.
fn assert_no_partial(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        assert!(
            !p.to_string_lossy().ends_with(".partial"),
            "left behind: {}",
            p.display()
        );
        if p.is_dir() {
            assert_no_partial(&p);
        }
    }
}

/// The `complete` attribute of group `group` in `file`.
fn complete_attr(file: &Path, group: &str) -> i8 {
    let f = hdf5::File::open(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let g = f.group(group).unwrap();
    g.attr("complete").unwrap().read_scalar().unwrap()
}

/// SIGINT and SIGTERM each stop `args` (writing `out`, which holds group `group`) cleanly.
fn both_signals_stop(args: &[&str], out: &str, group: Option<&str>) {
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let r = stop_after_1s(dir.path(), args, signal);
        let what = format!("SIG{signal} {args:?}: {}", r.stderr);
        assert!(r.took < EXIT_WITHIN, "{what} took {:?}", r.took);
        assert_eq!(r.code, Some(1), "{what}");
        assert!(r.stderr.contains("interrupted"), "{what}");
        assert_eq!(r.stderr.trim().lines().count(), 1, "one line: {what}");
        assert_no_partial(dir.path());
        if let Some(g) = group {
            assert_eq!(complete_attr(&dir.path().join(out), g), 0, "{what}");
        }
    }
}

/// Samples 10⁹ RK4 steps apart: before, a signal was seen only at a sample.
#[test]
fn simulate_stops_between_samples() {
    both_signals_stop(
        &[
            "simulate", "--theta", "2,2", "--t-end", "2000", "--dt-out", "1000", "--method", "rk4",
            "--dt", "1e-6", "-o", "x.h5",
        ],
        "x.h5",
        Some("trajectory"),
    );
}

/// The adaptive method's dense-output path, samples far apart at a tight tolerance.
#[test]
fn simulate_dop853_stops_between_samples() {
    both_signals_stop(
        &[
            "simulate", "--theta", "2,2", "--t-end", "1e6", "--dt-out", "1e6", "--method",
            "dop853", "--rtol", "1e-14", "--atol", "1e-14", "-o", "x.h5",
        ],
        "x.h5",
        Some("trajectory"),
    );
}

/// One interval τ = 1000 s is 10⁸ steps of the QR method.
#[test]
fn lyapunov_spectrum_stops_inside_an_interval() {
    both_signals_stop(
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--tau",
            "1000",
            "--transient",
            "0",
            "--t-end",
            "2000",
            "--dt",
            "1e-5",
            "-o",
            "l.h5",
        ],
        "l.h5",
        Some("lyapunov"),
    );
}

/// Covariant vectors: a stop in the forward pass still runs the backward pass over what was
/// kept and writes it, marked incomplete.
#[test]
fn lyapunov_covariant_vectors_stop() {
    both_signals_stop(
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--t-end",
            "1e5",
            "--vectors",
            "covariant",
            "-o",
            "c.h5",
        ],
        "c.h5",
        Some("covariant"),
    );
}

#[test]
fn lyapunov_two_trajectory_stops_inside_an_interval() {
    both_signals_stop(
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--estimator",
            "two-trajectory",
            "--tau",
            "1000",
            "--transient",
            "0",
            "--t-end",
            "2000",
            "--dt",
            "1e-5",
            "-o",
            "l.h5",
        ],
        "l.h5",
        Some("lyapunov"),
    );
}

#[test]
fn lyapunov_sali_stops_inside_an_interval() {
    both_signals_stop(
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--estimator",
            "sali",
            "--tau",
            "1000",
            "--t-end",
            "2000",
            "--dt",
            "1e-5",
            "-o",
            "l.h5",
        ],
        "l.h5",
        Some("indicators"),
    );
}

/// The adaptive method's intervals (DOP853 lands on each τ).
#[test]
/// A regular orbit: its deviation vectors grow only linearly, so one interval of 10⁵ s cannot
/// overflow them before the signal however fast the machine integrates.
fn lyapunov_dop853_stops_inside_an_interval() {
    both_signals_stop(
        &[
            "lyapunov",
            "--theta",
            "0.1,0.1",
            "--method",
            "dop853",
            "--rtol",
            "1e-14",
            "--atol",
            "1e-14",
            "--tau",
            "1e5",
            "--transient",
            "0",
            "--t-end",
            "2e5",
            "-o",
            "l.h5",
        ],
        "l.h5",
        Some("lyapunov"),
    );
}

#[test]
fn poincare_stops() {
    both_signals_stop(
        &[
            "poincare",
            "--theta",
            "2,2",
            "--crossings",
            "10000000",
            "--t-end",
            "1e9",
            "--rtol",
            "1e-14",
            "--atol",
            "1e-14",
            "-o",
            "p.h5",
        ],
        "p.h5",
        Some("poincare"),
    );
}

/// A branch of 10⁶ points in steps of 1e-7: the continuation stops between points (or inside
/// a Newton's integration) and writes the branch so far, marked incomplete.
#[test]
fn orbits_continuation_stops() {
    both_signals_stop(
        &[
            "orbits",
            "continue",
            "--preset",
            "double",
            "--start",
            "mode",
            "--parameter",
            "orbits.energy",
            "--range",
            "-30,12",
            "--points",
            "1000000",
            "--step",
            "1e-7",
            "--min-step",
            "1e-8",
            "--max-step",
            "1e-7",
            "-o",
            "o.h5",
        ],
        "o.h5",
        Some("orbits"),
    );
}

/// Two frames 10⁵ model seconds apart at a tight tolerance: the integration is interrupted and
/// nothing is written.
#[test]
fn animate_stops_while_integrating() {
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "animate",
            "--theta",
            "2,2",
            "--method",
            "dop853",
            "--rtol",
            "1e-14",
            "--atol",
            "1e-14",
            "--fps",
            "1",
            "--duration",
            "2",
            "--speed",
            "1e5",
            "--substeps",
            "1",
            "--gif",
            "a.gif",
        ];
        let r = stop_after_1s(dir.path(), &args, signal);
        assert!(r.took < EXIT_WITHIN, "SIG{signal}: {:?}", r.took);
        assert_eq!(r.code, Some(1), "SIG{signal}: {}", r.stderr);
        assert!(r.stderr.contains("interrupted"), "{}", r.stderr);
        assert!(!dir.path().join("a.gif").exists());
        assert_no_partial(dir.path());
    }
}

/// The closed loop of the cart chain, one sample at the end of 10⁶ s (about 9 s of work on an
/// idle 2-core machine: 10⁵ s took 0.94 s there and ended before the signal at 1 s).
#[test]
fn control_stops() {
    both_signals_stop(
        &[
            "control", "--tilt", "0.1", "--t-end", "1e6", "--dt-out", "1e6", "--rtol", "1e-14",
            "--atol", "1e-14", "-o", "c.h5",
        ],
        "c.h5",
        Some("trajectory"),
    );
}

/// One tile of 64 pixels × 10⁹ steps: the tile in flight is abandoned, the checkpoint kept for
/// --resume.
#[test]
fn map_stops_inside_a_tile() {
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "map",
            "--kind",
            "energy-error",
            "--resolution",
            "8",
            "--t-end",
            "1e6",
            "--dt",
            "1e-3",
            "-o",
            "m.h5",
        ];
        let r = stop_after_1s(dir.path(), &args, signal);
        assert!(r.took < EXIT_WITHIN, "SIG{signal}: {:?}", r.took);
        assert_eq!(r.code, Some(1), "SIG{signal}: {}", r.stderr);
        assert!(r.stderr.contains("interrupted"), "{}", r.stderr);
        assert!(r.stderr.contains("--resume"), "{}", r.stderr);
        assert!(dir.path().join("m.h5.tiles").is_dir());
        assert!(!dir.path().join("m.h5").exists());
        assert_no_partial(dir.path());
    }
}

/// The nonlinear checks of `modes` (nine DOP853 runs of 10⁴ periods each).
#[test]
fn modes_verify_nonlinear_stops() {
    both_signals_stop(
        &[
            "modes",
            "--verify-nonlinear",
            "--periods",
            "1e4",
            "-o",
            "mo.h5",
        ],
        "mo.h5",
        Some("modes"),
    );
}

/// Runs `pendula ARGS`, failing if it is still running after `limit`; returns (code, stderr).
fn run_within(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = running::poll_child(&mut child, &format!("pendula {args:?} ended"), limit, |c| {
        c.try_wait().unwrap()
    });
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

/// A step below the resolution of t is refused (exit 2, by the input checks) or fails the run
/// (exit 1, by the integrators' guard): either way it names the step and ends at once.
#[test]
fn steps_that_cannot_advance_time_end_at_once() {
    let cases: [&[&str]; 4] = [
        &[
            "simulate", "--theta", "2,2", "--method", "rk4", "--dt", "1e-300", "--t-end", "1",
            "--json",
        ],
        &[
            "simulate", "--theta", "2,2", "--method", "gauss", "--dt", "1e-300", "--t-end", "1",
            "--json",
        ],
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--method",
            "rk4",
            "--dt",
            "5e-324",
            "--transient",
            "0",
            "--t-end",
            "1",
            "--json",
        ],
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--method",
            "gauss",
            "--dt",
            "5e-324",
            "--transient",
            "0",
            "--t-end",
            "1",
            "--json",
        ],
    ];
    for args in cases {
        let (code, err) = run_within(args, running::PATIENCE);
        assert!(matches!(code, Some(1 | 2)), "{args:?}: {code:?} {err}");
        assert!(
            err.contains("dt") || err.contains("step"),
            "{args:?}: {err}"
        );
        assert!(err.contains("advance"), "{args:?}: {err}");
    }
}

/// A speed at the edge of the f64 range: every method ends in seconds with a clear failure
/// (a blow-up, a collapsed step) or a refusal, never a loop.
#[test]
fn a_huge_state_ends_in_seconds_with_every_method() {
    for method in [
        &["--method", "rk4"][..],
        &["--method", "gauss", "--dt", "0.01"],
        &["--method", "dop853"],
    ] {
        let mut args = vec![
            "simulate", "--theta", "0,0", "--omega", "0,3.4e38", "--t-end", "1", "--json",
        ];
        args.extend_from_slice(method);
        let (code, err) = run_within(&args, running::PATIENCE);
        assert!(matches!(code, Some(1 | 2)), "{args:?}: {code:?} {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// An interrupted map spec run by `pendula run` says to rerun the same command with --resume,
/// and `run` takes --resume: the resumed run finishes the map (exit 0). The map flags are
/// refused, naming the flag, for a spec they do not apply to.
#[test]
fn run_resumes_an_interrupted_map_spec() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.toml"),
        "kind = \"map\"\n[model]\npreset = \"double\"\n[integrator]\ndt = 0.01\n\
         [map]\nkind = \"energy-error\"\nresolution = 32\ntile = 4\nt_end = 2000.0\n\
         [output]\nfile = \"m.h5\"\n",
    )
    .unwrap();
    let r = stop_after_1s(dir.path(), &["run", "m.toml"], "INT");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("rerun the same command with --resume"),
        "{}",
        r.stderr
    );
    assert!(dir.path().join("m.h5.tiles").is_dir());
    let out = Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args(["run", "m.toml", "--resume"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(dir.path().join("m.h5").is_file(), "{err}");
    assert!(!dir.path().join("m.h5.tiles").exists(), "{err}");
    assert_no_partial(dir.path());

    std::fs::write(
        dir.path().join("s.toml"),
        "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 1.0]\n\
         [simulate]\nt_end = 0.1\n[output]\nfile = \"s.h5\"\n",
    )
    .unwrap();
    for (flag, extra) in [
        ("--resume", None),
        ("--shard", Some("1/2")),
        ("--dry-run", None),
    ] {
        let mut args = vec!["run", "s.toml", flag];
        args.extend(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_pendula"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("error: {flag}: applies to a map")),
            "{args:?}: {err}"
        );
        assert!(
            err.trim_end().ends_with("not to this `simulate` spec"),
            "{err}"
        );
        assert!(!dir.path().join("s.h5").exists());
    }
}

/// The eigen-solutions of long chains: the tridiagonal route of 3000 point links (its
/// eigenvectors poll the token; then the Laguerre check, one dense eigen-solution of 3000²,
/// 12 s) and the dense route of 2000 rods (one nalgebra call of 25 s). Both used to ignore
/// SIGINT and exit 0 when done. The linearization before them (two dense 3000² matrices and
/// the chain's coupling table, 0.6 s on an idle core) polled nothing either: under load a
/// signal at 1 s was answered up to 1.8 s later (measured with four busy processes beside it),
/// which made this test flaky in CI; it now fills M a column at a time and polls (≤ 0.14 s
/// under the same load).
#[test]
fn modes_of_long_chains_stop() {
    for args in [
        &["modes", "--preset", "chain", "--links", "3000", "--json"][..],
        &[
            "modes",
            "--preset",
            "rods",
            "--links",
            "2000",
            "--check=false",
            "--json",
        ][..],
    ] {
        both_signals_stop(args, "", None);
    }
}

/// The chaotic fraction of long SALI runs: a stop writes the shells finished before it (none,
/// or some) with `complete = 0`, as every other command writes its partial result (before:
/// "nothing measured was written", no file).
#[test]
fn chaotic_fraction_stops_and_writes_its_partial_result() {
    both_signals_stop(
        &[
            "measure",
            "--chaotic-fraction",
            "--energies",
            "-20,-10,0,10",
            "--samples",
            "64",
            "--t-end",
            "100000",
            "-o",
            "cf.h5",
        ],
        "cf.h5",
        Some("measure/chaotic_fraction"),
    );
}

/// SIGTERM while the final file of a 4·10⁶-sample run is written (seconds of compression): the
/// write stops within a band of chunks, the unfinished `.partial` is removed, nothing is left at
/// the output path, and the run exits 1 saying so (before: the signal was ignored and the run
/// exited 0 with the file 5–14 s later). The signal is sent once the `.partial` exists.
#[test]
fn a_stop_during_the_final_write_removes_the_unfinished_file() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "simulate", "--preset", "double", "--theta", "2,2", "--t-end", "40000", "--dt-out", "0.01",
        "-o", "x.h5",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let partial = dir.path().join("x.h5.partial");
    running::poll_child(
        &mut child,
        "the final write's .partial",
        Duration::from_secs(600),
        |c| {
            assert!(
                c.try_wait().unwrap().is_none(),
                "the run ended before its write was seen"
            );
            partial.exists().then_some(())
        },
    );
    let cpu = running::cpu_time(child.id());
    assert!(Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let (status, _) = running::wait_stopped(
        &mut child,
        cpu,
        EXIT_WITHIN,
        "SIGTERM during the final write",
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("interrupted") && stderr.contains("removed"),
        "says the write was interrupted and its file removed: {stderr}"
    );
    assert!(!dir.path().join("x.h5").exists(), "no result: {stderr}");
    assert_no_partial(dir.path());
}
