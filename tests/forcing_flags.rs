//! Damping and drive from flags on every command that takes a planar model: the same run as a
//! spec's [model.damping] and [model.drive] tables, number for number, and refusals naming the
//! flag where a model cannot take them or a drive is half given.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn pendula(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("pendula")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let out = pendula(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The damped, torque-driven simple pendulum of Baker & Gollub as flags and as a spec model.
const FLAGS: &[&str] = &[
    "--preset",
    "simple",
    "--damping",
    "0.5",
    "--torque-amplitude",
    "1.2",
    "--torque-frequency",
    "0.6283185307179586",
];
const MODEL: &str = "[model]\npreset = \"simple\"\n[model.damping]\nabsolute = 0.5\n\
                     [model.drive.torque]\namplitude = 1.2\nfrequency = 0.6283185307179586\n";

/// `pendula CMD FLAGS… ARGS…` and `pendula run` of a spec with the same model and `table`
/// give the same `fields` of their JSON.
fn same(dir: &Path, cmd: &str, args: &[&str], table: &str, fields: &[&str]) {
    let mut a = vec![cmd];
    a.extend_from_slice(FLAGS);
    a.extend_from_slice(args);
    a.push("--json");
    let flags = json(dir, &a);
    let spec = format!("kind = \"{cmd}\"\n{MODEL}{table}");
    let name = format!("{cmd}.toml");
    std::fs::write(dir.join(&name), spec).unwrap();
    let file = json(dir, &["run", &name, "--json"]);
    for f in fields {
        let (a, b) = (flags.pointer(f), file.pointer(f));
        assert!(a.is_some(), "{cmd}: no {f} in {flags}");
        assert_eq!(a, b, "{cmd}: {f}");
    }
    assert_eq!(flags["title"], file["title"], "{cmd}");
    assert!(
        flags["title"]
            .as_str()
            .unwrap()
            .contains("damped, torque 1.2 N·m at Ω = 0.6283 rad/s"),
        "{cmd}: {}",
        flags["title"]
    );
}

#[test]
fn flags_equal_the_spec_tables_on_every_command() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    same(
        d,
        "simulate",
        &["--theta", "0.2", "--t-end", "20"],
        "[initial]\ntheta = [0.2]\n[simulate]\nt_end = 20\n",
        &["/final_state", "/work_end"],
    );
    same(
        d,
        "lyapunov",
        &["--theta", "0.2", "--t-end", "60"],
        "[initial]\ntheta = [0.2]\n[lyapunov]\nt_end = 60\n",
        &["/exponents", "/standard_error", "/energy_work"],
    );
    // Modes take the damping (the damped spectrum), not a drive.
    let flags = json(
        d,
        &[
            "modes",
            "--preset",
            "double",
            "--damping",
            "0.3,0.1",
            "--json",
        ],
    );
    std::fs::write(
        d.join("modes.toml"),
        "kind = \"modes\"\n[model]\npreset = \"double\"\n[model.damping]\nabsolute = [0.3, 0.1]\n",
    )
    .unwrap();
    let file = json(d, &["run", "modes.toml", "--json"]);
    assert_eq!(flags["equilibria"], file["equilibria"]);
    assert!(!flags["equilibria"][0]["damped"]
        .as_array()
        .unwrap()
        .is_empty());
    same(
        d,
        "map",
        &[
            "--resolution",
            "16",
            "--t-end",
            "5",
            "--kind",
            "final-state",
            "-o",
            "m1.h5",
        ],
        "[map]\nresolution = 16\nt_end = 5\nkind = \"final-state\"\n[output]\nfile = \"m2.h5\"\n",
        &["/class_counts"],
    );
    same(
        d,
        "poincare",
        &["--stroboscopic", "--theta", "0.2", "--crossings", "20"],
        "[initial]\ntheta = [0.2]\n[poincare]\nstroboscopic = true\ncrossings = 20\n",
        &["/shells", "/section", "/max_relative_energy_error"],
    );
    same(
        d,
        "orbits",
        &["find", "--theta", "0.3"],
        "[initial]\ntheta = [0.3]\n[orbits]\naction = \"find\"\n",
        &["/orbit/period", "/orbit/multipliers"],
    );
}

#[test]
fn flags_are_refused_where_they_cannot_apply() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let refused = |args: &[&str], want: &str| {
        let out = pendula(d, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    // The cart chain has its own damping fields and no drive.
    refused(
        &["control", "--damping", "0.1"],
        "--damping: does not apply to the cart-chain model",
    );
    refused(
        &[
            "control",
            "--torque-amplitude",
            "1",
            "--torque-frequency",
            "1",
        ],
        "does not apply to the cart-chain model",
    );
    refused(
        &[
            "modes",
            "--torque-amplitude",
            "1",
            "--torque-frequency",
            "1",
        ],
        "--torque-amplitude: modes are computed for the unforced chain",
    );
    // A drive needs its frequency; a per-link list its length.
    refused(
        &["simulate", "--theta", "1,1", "--torque-amplitude", "1"],
        "--torque-frequency: is needed with --torque-amplitude",
    );
    refused(
        &["simulate", "--theta", "1,1", "--pivot-y", "0.1"],
        "--pivot-frequency: is needed with --pivot-y",
    );
    refused(
        &["simulate", "--theta", "1,1", "--damping", "0.1,0.2,0.3"],
        "--damping: has 3 entries",
    );
    refused(
        &["lyapunov", "--theta", "1,1", "--damping", "-1"],
        "--damping: must be",
    );
    refused(&["map", "--joint-damping", "nan"], "--joint-damping");
    // Energy shells need a conservative chain.
    refused(
        &["poincare", "--energy", "-10", "--damping", "0.1"],
        "--energy: energy shells need a conservative chain",
    );
}
