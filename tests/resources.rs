//! Absurd sizes are refused before anything is allocated: every command that sizes its arrays
//! from the input (links, ensemble members, samples, crossings, pixels, frames) exits 2 within
//! a second of CPU time with one line naming the flag that drives the size, and the refused
//! process never grows past a small resident set (its own peak RSS and CPU time, read with
//! `wait4`: what the process did, not how long a busy machine took to let it).
#![cfg(target_os = "linux")]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[path = "common/running.rs"]
mod running;

/// What a refused run may cost: a process that merely parses and validates stays near 15 MB;
/// 100 MB leaves room for the allocator and still catches any per-link or per-sample array of
/// an absurd size.
const MAX_RSS_KB: i64 = 100 * 1024;
/// The CPU time (user + system) a refusal may take: parsing and validating take milliseconds;
/// a second catches any absurd array filled, or integration begun, before the refusal.
const MAX_CPU: Duration = Duration::from_secs(1);

struct Outcome {
    code: Option<i32>,
    stderr: String,
    /// User + system CPU time of the child.
    cpu: Duration,
    max_rss_kb: i64,
}

/// A `timeval` as a duration.
fn duration(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
}

/// Runs pendula in `dir` and reaps it with `wait4`, which reports the child's own peak RSS.
// The child is reaped by wait4 below (for its rusage), not by Child::wait.
#[allow(clippy::zombie_processes)]
fn run(dir: &Path, args: &[&str]) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pendula");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // wait4 rather than try_wait: it reaps the child with its resource usage.
    running::poll_child(
        &mut child,
        &format!("{args:?} ended"),
        running::PATIENCE,
        |_| {
            let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            assert!(r == 0 || r == pid, "wait4 failed for {args:?}");
            (r == pid).then_some(())
        },
    );
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    let code = if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    Outcome {
        code,
        stderr,
        cpu: duration(usage.ru_utime) + duration(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss,
    }
}

/// Asserts a clean, cheap refusal naming `flag` (and `also`, when given).
fn refused(dir: &Path, full: &[&str], flag: &str, also: &str) {
    let o = run(dir, full);
    // Long values (2000 angles) are shortened in the failure messages.
    let args: Vec<&str> = full.iter().map(|a| &a[..a.len().min(40)]).collect();
    let err = o.stderr.trim_end();
    assert_eq!(o.code, Some(2), "{args:?}: exit {:?}, stderr {err}", o.code);
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(
        err.starts_with("error: ") || err.contains("(see --help)"),
        "{args:?}: {err}"
    );
    assert!(err.contains(flag), "{args:?} should name {flag}: {err}");
    assert!(err.contains(also), "{args:?} should say {also:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(o.cpu < MAX_CPU, "{args:?} took {:?} of CPU", o.cpu);
    assert!(
        o.max_rss_kb < MAX_RSS_KB,
        "{args:?} reached {} KB before refusing",
        o.max_rss_kb
    );
}

/// The budget these tests run under, so that they do not depend on the machine's memory.
const BUDGET: &str = "--max-memory=4G";

#[test]
fn link_counts_that_cannot_fit_are_refused_before_the_model_is_built() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    for cmd in [
        "simulate", "lyapunov", "poincare", "map", "animate", "modes",
    ] {
        let mut args = vec![cmd, "--preset", "chain", "--links", "4294967296"];
        if cmd != "map" && cmd != "modes" {
            args.extend(["--theta", "1"]);
        }
        refused(d, &args, "--links", "at most");
    }
    refused(
        d,
        &[
            "simulate",
            "--preset",
            "chain",
            "--links",
            "18446744073709551615",
        ],
        "--links",
        "too large",
    );
    // 10⁶ links fit as a model but not as the modes' dense matrices.
    refused(
        d,
        &["modes", "--preset", "chain", "--links", "1000000", BUDGET],
        "--links",
        "for the modes' matrices, over the 4.0 GB budget (--max-memory)",
    );
    // The cart chain keeps N × N tables: 10⁵ links are refused as a model.
    refused(
        d,
        &["control", "--links", "100000", BUDGET],
        "--links",
        "--max-memory",
    );
    // A spec's integer that overflows is refused naming the field.
    std::fs::write(
        d.join("big.toml"),
        "kind = \"simulate\"\n[model]\npreset = \"chain\"\nlinks = 9223372036854775808\n",
    )
    .unwrap();
    refused(d, &["run", "big.toml"], "model.links", "too large");
}

#[test]
fn ensembles_samples_crossings_pixels_and_frames_are_budgeted() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    refused(
        d,
        &[
            "lyapunov",
            "--theta",
            "2,2",
            "--ensemble",
            "4294967296",
            BUDGET,
        ],
        "--ensemble",
        "members need",
    );
    refused(
        d,
        &["control", "--t-end", "1000000", BUDGET],
        "--t-end",
        "samples (t_end / dt_out)",
    );
    refused(
        d,
        &[
            "simulate", "--theta", "2,2", "--t-end", "1e7", "--dt-out", "1e-3", "-o", "a.h5",
            BUDGET,
        ],
        "--t-end",
        "for the trajectory",
    );
    refused(
        d,
        &[
            "poincare",
            "--energy-fraction",
            "0.5",
            "--grid",
            "300,300",
            "--crossings",
            "10000000",
            BUDGET,
        ],
        "--crossings",
        "for the section's points",
    );
    // A map streams tile by tile: what must fit is one band of tile rows (333 MB at 65536²,
    // which 4 GB allows: it would run), so a smaller budget refuses it.
    refused(
        d,
        &[
            "map",
            "--resolution",
            "65536",
            "-o",
            "m.h5",
            "--max-memory=100M",
        ],
        "--resolution",
        "for the assembly's band of tiles",
    );
    let theta = vec!["0.1"; 2000].join(",");
    refused(
        d,
        &[
            "animate",
            "--preset",
            "chain",
            "--links",
            "2000",
            "--theta",
            &theta,
            "--fps",
            "50",
            "--duration",
            "20",
            "--substeps",
            "1000",
            "--gif",
            "a.gif",
            BUDGET,
        ],
        "--duration",
        "frames × 1000 substeps",
    );
}

#[test]
fn steps_that_cannot_advance_time_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    refused(
        d,
        &[
            "simulate", "--theta", "2,2", "--method", "rk4", "--dt", "1e-300", "--t-end", "1",
            "-o", "a.h5",
        ],
        "--dt",
        "does not even advance t",
    );
    refused(
        d,
        &["lyapunov", "--theta", "2,2", "--dt", "5e-324"],
        "--dt",
        "steps per trajectory",
    );
    refused(
        d,
        &[
            "simulate",
            "--theta",
            "2,2",
            "--method",
            "rk4",
            "--substeps",
            "4611686018427387904",
            "--t-end",
            "1",
            "-o",
            "a.h5",
        ],
        "--substeps",
        "steps per trajectory",
    );
}

#[test]
fn the_budget_is_the_flags_to_raise() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let args = [
        "simulate", "--theta", "2,2", "--t-end", "100", "--dt-out", "0.001", "-o", "a.h5",
    ];
    let mut small = args.to_vec();
    small.push("--max-memory=1M");
    refused(
        d,
        &small,
        "--t-end",
        "over the 1.0 MB budget (--max-memory)",
    );
    let mut raised = args.to_vec();
    raised.push("--max-memory=1G");
    let o = run(d, &raised);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(d.join("a.h5").exists());
    refused(
        d,
        &["simulate", "--theta", "2,2", "--max-memory", "12X"],
        "--max-memory",
        "64G",
    );
}

/// A frequency map's pixels hold their sampled orbits and NAFF workspaces: `--samples` drives
/// its memory, not the resolution. One pixel at 2·10⁶ samples used 383 MB under a 100 MB budget
/// before the estimate counted them; now it is refused naming `--samples`, and the estimate the
/// dry run reports bounds the peak resident set of a run that fits.
#[test]
fn frequency_map_samples_are_budgeted() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    refused(
        d,
        &[
            "map",
            "--kind",
            "frequency",
            "--resolution",
            "1",
            "--samples",
            "2000000",
            "-o",
            "f.h5",
            "--max-memory=100M",
        ],
        "--samples",
        "samples per pixel",
    );
    let args = [
        "map",
        "--kind",
        "frequency",
        "--resolution",
        "1",
        "--samples",
        "200000",
        "--t-end",
        "10000",
    ];
    let dry = Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args(args)
        .args(["--dry-run", "--json"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&dry.stdout).unwrap();
    let estimate = v["memory_bytes"].as_f64().unwrap();
    let mut full = args.to_vec();
    full.extend(["-o", "f.h5"]);
    let o = run(d, &full);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let peak = o.max_rss_kb as f64 * 1024.0;
    assert!(
        peak < estimate,
        "peak RSS {peak:.3e} B over the estimate {estimate:.3e} B"
    );
}
