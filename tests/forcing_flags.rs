//! Damping and drive from flags on every command that takes a planar model: the same run as a
//! spec's [model.damping] and [model.drive] tables, number for number, and refusals naming the
//! flag where a model cannot take them or a drive is half given.

use assert_cmd::Command;
use pendula::model::{Drive, Harmonic, PivotMotion};
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

/// `pendula ARGS…` in `dir`, killed after `limit` (a run that would go on for hours fails the
/// test instead of hanging it).
fn pendula_within(dir: &Path, args: &[&str], limit: std::time::Duration) -> std::process::Output {
    Command::cargo_bin("pendula")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .timeout(limit)
        .output()
        .unwrap()
}

/// Exit 2 with one line that contains every one of `want`, and no file in `dir`.
fn refused_naming(dir: &Path, args: &[&str], want: &[&str]) {
    // Generous for a machine under load: a refusal takes milliseconds, the runs refused here
    // hours.
    let out = pendula_within(dir, args, std::time::Duration::from_secs(120));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: no `{w}` in {err}");
    }
    let written: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert!(written.is_empty(), "{args:?} wrote {written:?}");
}

/// A torque and a pivot at different frequencies have no one drive period: every command that
/// samples once a drive period refuses them, naming both flags (the final-state map used to
/// sample at the torque's period, Poincaré's stroboscopic section likewise).
#[test]
fn differing_drive_frequencies_are_refused_by_every_stroboscopic_command() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let two = [
        "--preset",
        "simple",
        "--damping",
        "0.5",
        "--torque-amplitude",
        "1.2",
        "--torque-frequency",
        "0.6283185307179586",
        "--pivot-x",
        "0.05",
        "--pivot-frequency",
        "1.5",
    ];
    let want = [
        "--torque-frequency 0.6283185307179586 rad/s",
        "--pivot-frequency 1.5 rad/s",
        "different frequencies",
    ];
    for args in [
        &[
            "map",
            "--kind",
            "final-state",
            "--resolution",
            "4",
            "--t-end",
            "5",
            "-o",
            "m.h5",
        ][..],
        &[
            "poincare",
            "--stroboscopic",
            "--theta",
            "0.2",
            "--crossings",
            "5",
        ][..],
    ] {
        let mut a = vec![args[0]];
        a.extend_from_slice(&two);
        a.extend_from_slice(&args[1..]);
        refused_naming(d, &a, &want);
    }
    // Orbits refused them already (under `model.drive`'s flag) and still do.
    let mut a = vec!["orbits"];
    a.extend_from_slice(&two);
    a.extend_from_slice(&["find", "--theta", "0.3"]);
    refused_naming(d, &a, &["different frequencies"]);
    // A zero frequency is no period either (the map used to take the chain as undriven).
    let mut a = vec!["map"];
    a.extend_from_slice(&two[..7]);
    a.extend_from_slice(&[
        "0",
        "--kind",
        "final-state",
        "--resolution",
        "4",
        "-o",
        "m.h5",
    ]);
    refused_naming(
        d,
        &a,
        &["--torque-frequency: a drive frequency must be finite and nonzero"],
    );
}

/// The same |Ω| with either sign is one drive period: a final-state map of a drive at −Ω is
/// the map at +Ω with the phase reflected, class for class (cos(−Ωt + φ) = cos(Ωt − φ)).
#[test]
fn a_negative_drive_frequency_has_the_period_of_its_magnitude() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let map = |w: &str, phase: &str, out: &str| {
        json(
            d,
            &[
                "map",
                "--preset",
                "simple",
                "--damping",
                "0.5",
                "--torque-amplitude",
                "1.2",
                "--torque-frequency",
                w,
                "--torque-phase",
                phase,
                "--kind",
                "final-state",
                "--resolution",
                "8",
                "--t-end",
                "30",
                "-o",
                out,
                "--json",
            ],
        )
    };
    let plus = map("0.6283185307179586", "0.5", "p.h5");
    let minus = map("-0.6283185307179586", "-0.5", "n.h5");
    assert_eq!(plus["class_counts"], minus["class_counts"]);
}

/// An adaptive run whose drive is far faster than its length allows is refused up front,
/// naming the flag and the steps it would take at the least (one a turn of the fastest
/// phase), instead of running for hours into the integrator's step cap.
#[test]
fn absurd_drives_are_refused_before_an_adaptive_run() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let torque = ["--torque-amplitude", "1", "--torque-frequency", "1e308"];
    let pivot = ["--pivot-x", "1e6", "--pivot-frequency", "1e6"];
    for (drive, want) in [
        (&torque[..], "--torque-frequency: a torque at 1e308 rad/s takes more than 1.8e308"),
        (&pivot[..], "--pivot-frequency: a pivot at 1e6 rad/s and 1e6 m swinging the chain at √(aΩ²/L) = 1.000e9 rad/s takes at least"),
    ] {
        for cmd in [
            &["simulate", "--theta", "0.2", "--t-end", "20"][..],
            &["lyapunov", "--method", "dop853", "--theta", "0.2", "--t-end", "20"][..],
            &["poincare", "--theta", "0.2", "--t-end", "20"][..],
            &["frequencies", "--theta", "0.2", "--t-end", "20"][..],
        ] {
            let mut a = vec![cmd[0], "--preset", "simple"];
            a.extend_from_slice(drive);
            a.extend_from_slice(&cmd[1..]);
            refused_naming(
                d,
                &a,
                &[want, "adaptive steps to reach t = ", " s (--t-end)", "stops at 1e8 steps"],
            );
        }
    }
    // A fast drive whose turns fit the cap still runs.
    let out = json(
        d,
        &[
            "simulate",
            "--preset",
            "simple",
            "--torque-amplitude",
            "1",
            "--torque-frequency",
            "1000",
            "--theta",
            "0.2",
            "--t-end",
            "1",
            "--json",
        ],
    );
    assert_eq!(out["complete"], true, "{out}");
    // And the bound is one: at least a step a turn of the torque (1000 rad/s over 1 s).
    let steps = out["steps"].as_f64().unwrap();
    assert!(steps >= 1000.0 / std::f64::consts::TAU, "{out}");
}

fn drive(torque: Option<f64>, pivot: Option<f64>) -> Drive {
    Drive {
        torque: torque.map(|frequency| Harmonic {
            amplitude: 1.0,
            frequency,
            phase: 0.0,
        }),
        pivot: pivot.map(|frequency| PivotMotion {
            x_amplitude: 0.1,
            y_amplitude: 0.0,
            frequency,
            phase: 0.0,
        }),
    }
}

/// One period 2π/|Ω| whatever the sign; none for two different |Ω|, nor for Ω = 0, each
/// error naming the field it is about.
#[test]
fn the_drive_period_is_one_or_refused_naming_the_field() {
    let tau = std::f64::consts::TAU;
    assert_eq!(drive(None, None).period_of_fields().unwrap(), None);
    assert_eq!(drive(Some(2.0), None).period(), Ok(Some(tau / 2.0)));
    assert_eq!(drive(Some(-2.0), Some(2.0)).period(), Ok(Some(tau / 2.0)));
    let e = drive(Some(2.0), Some(3.0)).period_of_fields().unwrap_err();
    assert_eq!(e.field(), "model.drive.pivot.frequency");
    let flags = e.render(&|f| match f {
        "model.drive.torque.frequency" => "--torque-frequency".into(),
        "model.drive.pivot.frequency" => "--pivot-frequency".into(),
        other => other.into(),
    });
    assert_eq!(
        flags,
        "the torque (--torque-frequency 2 rad/s) and the pivot (--pivot-frequency 3 rad/s) run at different frequencies: the drive has no one period"
    );
    let e = drive(Some(0.0), Some(3.0)).period_of_fields().unwrap_err();
    assert_eq!(e.field(), "model.drive.torque.frequency");
    let e = drive(None, Some(f64::NAN)).period_of_fields().unwrap_err();
    assert_eq!(e.field(), "model.drive.pivot.frequency");
    assert!(drive(Some(2.0), Some(3.0)).period().is_err());
}

/// A drive frequency may be given with its unit: `--torque-frequency 0.1Hz` is Ω = 2π·0.1 rad/s,
/// the same run as the number in rad/s, and `frequency = "0.1 Hz"` in a spec too; a unit pendula
/// does not read is refused naming the flag.
#[test]
fn a_drive_frequency_in_hertz_is_the_same_run() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let run = |freq: &str| {
        let mut args: Vec<&str> = FLAGS.to_vec();
        *args.last_mut().unwrap() = freq;
        let mut args: Vec<&str> = [&["simulate"], args.as_slice()].concat();
        args.extend(["--theta", "0.5", "--t-end", "5", "--json"]);
        let mut j = json(d, &args);
        j.as_object_mut().unwrap().remove("wall_s");
        j
    };
    let hz = run("0.1Hz");
    assert_eq!(hz, run("0.6283185307179586"));
    assert_eq!(hz, run("0.6283185307179586rad/s"));
    std::fs::write(
        d.join("spec.toml"),
        format!(
            "kind = \"simulate\"\n{}",
            MODEL.replace("0.6283185307179586", "\"0.1 Hz\"")
        ),
    )
    .unwrap();
    let mut j = json(
        d,
        &[
            "simulate",
            "--spec",
            "spec.toml",
            "--theta",
            "0.5",
            "--t-end",
            "5",
            "--json",
        ],
    );
    j.as_object_mut().unwrap().remove("wall_s");
    assert_eq!(j, hz);
    std::fs::remove_file(d.join("spec.toml")).unwrap();
    let mut bad: Vec<&str> = [&["simulate"], FLAGS].concat();
    *bad.last_mut().unwrap() = "6rpm";
    bad.extend(["--theta", "0.5", "--json"]);
    refused_naming(
        d,
        &bad,
        &[
            "--torque-frequency: expected an angular frequency",
            "(got \"6rpm\")",
        ],
    );
}
