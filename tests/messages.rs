//! Error messages name what the user gave: the flag, or the spec field (with its line), on one
//! line, with control characters escaped.

use assert_cmd::Command;
use std::path::Path;

/// Runs `args` in `dir`; asserts exit 2 and one stderr line, and returns it.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("pendula")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {err}"
    );
    assert!(
        !err.bytes().any(|b| b < 0x20 && b != b'\n'),
        "{args:?}: raw control bytes in {err:?}"
    );
    err
}

fn spec(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

#[test]
fn a_long_lyapunov_run_names_t_end_not_tau() {
    let d = tempfile::tempdir().unwrap();
    let e = refused(d.path(), &["lyapunov", "--theta", "2,2", "--t-end", "1e9"]);
    assert!(e.contains("--t-end"), "{e}");
    assert!(!e.contains("--tau:"), "{e}");
    // With tau given too, the message still names the run's length and tau's value.
    let e = refused(
        d.path(),
        &[
            "lyapunov", "--theta", "2,2", "--t-end", "1e9", "--tau", "1e-3",
        ],
    );
    assert!(e.contains("tau = 0.001"), "{e}");
}

#[test]
fn an_existing_output_named_by_the_spec_names_the_spec_field() {
    let d = tempfile::tempdir().unwrap();
    let s = spec(
        d.path(),
        "s.toml",
        "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 1.0]\n\
         [simulate]\nt_end = 0.2\n[output]\nfile = \"s.h5\"\nplot = \"s.png\"\n",
    );
    std::fs::write(d.path().join("s.png"), b"old").unwrap();
    let e = refused(d.path(), &["run", &s]);
    assert!(e.contains("output.plot"), "{e}");
    assert!(!e.contains("--plot"), "{e}");
    // Given as a flag, the flag is named.
    let e = refused(
        d.path(),
        &["simulate", "--spec", &s, "--plot", "s.png", "-o", "t.h5"],
    );
    assert!(e.contains("--plot"), "{e}");
    // The same for a map spec, whose outputs are checked by the map runner.
    let m = spec(
        d.path(),
        "m.toml",
        "kind = \"map\"\n[model]\npreset = \"double\"\n[map]\nresolution = 8\nt_end = 1.0\n\
         [output]\nfile = \"m.h5\"\nplot = \"s.png\"\n",
    );
    let e = refused(d.path(), &["run", &m]);
    assert!(e.contains("output.plot") && !e.contains("--plot"), "{e}");
}

#[test]
fn missing_arguments_and_bad_values_are_named() {
    let d = tempfile::tempdir().unwrap();
    let e = refused(d.path(), &["render"]);
    assert!(e.contains("<INPUT>") && e.contains("--output"), "{e}");
    let e = refused(d.path(), &["merge"]);
    assert!(e.contains("<SHARD.h5>"), "{e}");
    let e = refused(d.path(), &["serve", "--port", "-1"]);
    assert!(e.contains("--port"), "{e}");
}

#[test]
fn spec_type_errors_name_the_field_and_its_line() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        (
            "kind = \"simulate\"\n[initial]\ntheta = [1.0, \"a\"]\n",
            "initial.theta[2]",
            "s.toml:3:",
        ),
        (
            "kind = \"simulate\"\n[model]\npreset = \"double\"\ngravity = \"x\"\n",
            "model.gravity",
            "s.toml:",
        ),
        (
            "kind = \"simulate\"\n[model]\nkind = \"cart-chain\"\nlinks = \"x\"\n",
            "model.links",
            "s.toml:",
        ),
        (
            "kind = \"simulate\"\n[simulate]\nt_end = \"x\"\n",
            "simulate.t_end",
            "s.toml:3:",
        ),
    ];
    for (text, field, at) in cases {
        let s = spec(d.path(), "s.toml", text);
        let e = refused(d.path(), &["run", &s]);
        assert!(e.contains(field), "{text}: {e}");
        assert!(e.contains(at), "{text}: {e}");
    }
}

#[test]
fn control_characters_in_values_are_escaped() {
    let d = tempfile::tempdir().unwrap();
    let s = spec(
        d.path(),
        "s.toml",
        "kind = \"simulate\"\n[model]\npreset = \"dou\\u001b[31mble\"\n",
    );
    let e = refused(d.path(), &["run", &s]);
    assert!(e.contains("model.preset"), "{e}");
    assert!(e.contains("\\u{1b}[31m"), "{e}");
}

#[test]
fn every_field_a_refusal_names_is_spelt_as_the_user_gave_it() {
    let d = tempfile::tempdir().unwrap();
    // Both fields from flags: both named as flags.
    let e = refused(
        d.path(),
        &[
            "lyapunov", "--theta", "1,1", "--tau", "0.015", "--dt", "0.01",
        ],
    );
    assert_eq!(
        e.trim_end(),
        "error: --tau: must be a whole multiple of --dt = 0.01 (got 0.015)"
    );
    // Both from a spec file: both named as its fields.
    let s = spec(
        d.path(),
        "t.toml",
        "kind = \"lyapunov\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 1.0]\n\
         [integrator]\nmethod = \"rk4\"\ndt = 0.01\n[lyapunov]\ntau = 0.015\n",
    );
    let e = refused(d.path(), &["run", &s]);
    assert_eq!(
        e.trim_end(),
        "error: lyapunov.tau: must be a whole multiple of integrator.dt = 0.01 (got 0.015)"
    );
    // tau from the file, dt from a flag over it: each as it was given.
    let e = refused(d.path(), &["lyapunov", "--spec", &s, "--dt", "0.01"]);
    assert_eq!(
        e.trim_end(),
        "error: lyapunov.tau: must be a whole multiple of --dt = 0.01 (got 0.015)"
    );
}

#[test]
fn threads_beyond_four_per_core_are_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let args = [
        "simulate",
        "--theta",
        "1,1",
        "--t-end",
        "0.1",
        "-o",
        "s.h5",
        "--threads",
    ];
    let e = refused(d.path(), &[&args[..], &["100000"]].concat());
    assert!(
        e.starts_with("error: --threads: must be between 1 and 4 x the "),
        "{e}"
    );
    assert!(e.trim_end().ends_with("(got 100000)"), "{e}");
    let e = refused(d.path(), &[&args[..], &["0"]].concat());
    assert!(e.trim_end().ends_with("(got 0)"), "{e}");
    assert!(!d.path().join("s.h5").exists());
    // merge takes the same flag, bounded the same way, before it reads any shard.
    let e = refused(
        d.path(),
        &["merge", "none.h5", "-o", "m.h5", "--threads", "100000"],
    );
    assert!(
        e.starts_with("error: --threads: must be between 1 and 4 x the "),
        "{e}"
    );
    assert!(!d.path().join("m.h5").exists());
}

/// Asserts the directory holds nothing (a refusal writes no file, no folder).
fn empty(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn every_map_kind_takes_tau_as_a_whole_number_of_steps() {
    let d = tempfile::tempdir().unwrap();
    let base = ["map", "--resolution", "8", "--t-end", "1", "-o", "m.h5"];
    for kind in ["lyapunov", "sali", "gali", "megno", "fli"] {
        for tau in ["0.014", "1e-300", "0.0149"] {
            let e = refused(
                d.path(),
                &[&base[..], &["--kind", kind, "--tau", tau]].concat(),
            );
            assert_eq!(
                e.trim_end(),
                format!(
                    "error: --tau: must be a whole number of RK4 steps dt = 0.01 s (got {tau})"
                ),
                "{kind}"
            );
        }
    }
    // In a spec, the field is named; the default τ of 0.1 s is not a whole number of 0.03 s.
    let s = spec(
        d.path(),
        "l.toml",
        "kind = \"map\"\n[model]\npreset = \"double\"\n[integrator]\ndt = 0.03\n\
         [map]\nkind = \"lyapunov\"\nresolution = 8\nt_end = 1.0\n[output]\nfile = \"m.h5\"\n",
    );
    let e = refused(d.path(), &["run", &s]);
    assert!(
        e.starts_with("error: map.tau: must be a whole number of RK4 steps dt = 0.03 s (got 0.1)"),
        "{e}"
    );
    std::fs::remove_file(d.path().join(s)).unwrap();
    empty(d.path());
}

#[test]
fn a_map_window_in_omega_stays_within_the_initial_rate_bound() {
    let d = tempfile::tempdir().unwrap();
    let base = [
        "map",
        "--x",
        "omega1",
        "--y",
        "omega2",
        "--resolution",
        "8",
        "--t-end",
        "0.1",
        "-o",
        "m.h5",
        "--window",
    ];
    for w in ["-1.7e308,1.7e308,-1,1", "-1,1,-1,1.000001e6", "-1e7,0,-1,1"] {
        let e = refused(d.path(), &[&base[..], &[w]].concat());
        assert!(e.starts_with("error: --window: "), "{e}");
        assert!(
            e.contains("outside the velocity range |θ̇| <= 1e6 rad/s"),
            "{e}"
        );
    }
    // An angle axis beside a velocity axis: each is held to its own range.
    let e = refused(
        d.path(),
        &[
            "map",
            "--x",
            "theta1",
            "--y",
            "omega2",
            "--resolution",
            "8",
            "-o",
            "m.h5",
            "--window",
            "-3,3,-2e6,2e6",
        ],
    );
    assert!(e.contains("y range"), "{e}");
    empty(d.path());
}

#[test]
fn a_riccati_failure_names_the_weight_that_drives_it() {
    let d = tempfile::tempdir().unwrap();
    for (flag, value) in [
        ("--q-cart", "5e-324"),
        ("--q-cart", "1e-30"),
        ("--r", "1e-12"),
        ("--q-angle", "1e300"),
    ] {
        let e = refused(
            d.path(),
            &["control", flag, value, "--t-end", "0.1", "-o", "c.h5"],
        );
        assert!(e.starts_with(&format!("error: {flag}: ")), "{e}");
        assert!(e.contains("is too far from the other weights"), "{e}");
        assert!(e.contains("the Riccati solver failed"), "{e}");
    }
    // From a spec, the field.
    let s = spec(
        d.path(),
        "c.toml",
        "kind = \"control\"\n[model]\nkind = \"cart-chain\"\n[control]\nq_cart = 5e-324\n\
         t_end = 0.1\n[output]\nfile = \"c.h5\"\n",
    );
    let e = refused(d.path(), &["run", &s]);
    assert!(
        e.starts_with("error: control.q_cart: 5e-324 is too far"),
        "{e}"
    );
    std::fs::remove_file(d.path().join(s)).unwrap();
    empty(d.path());
}

#[test]
fn a_nul_byte_in_an_output_path_is_named_as_such() {
    let d = tempfile::tempdir().unwrap();
    let sim = "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 1.0]\n\
               [simulate]\nt_end = 0.1\n";
    for (field, table) in [
        ("output.file", "[output]\nfile = \"a\\u0000b.h5\"\n"),
        ("output.plot", "[output]\nplot = \"a\\u0000b.png\"\n"),
        (
            "figures.phase",
            "[output]\nfile = \"s.h5\"\n[figures]\nphase = \"p\\u0000.png\"\n",
        ),
    ] {
        let s = spec(d.path(), "s.toml", &format!("{sim}{table}"));
        let e = refused(d.path(), &["run", &s]);
        assert!(e.starts_with(&format!("error: {field}: the path `")), "{e}");
        assert!(e.contains("contains a NUL byte"), "{e}");
        assert!(!e.contains("not writable"), "{e}");
    }
    std::fs::remove_file(d.path().join("s.toml")).unwrap();
    empty(d.path());
}

/// A run from flags gets a title that says what was run: the model, the initial state where
/// the run starts from one (first four links, then …), and the damping and drive.
#[test]
fn default_titles_name_the_state_and_the_forcing() {
    let d = tempfile::tempdir().unwrap();
    let title = |args: &[&str]| {
        let out = Command::cargo_bin("pendula")
            .unwrap()
            .current_dir(d.path())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        j["title"].as_str().unwrap().to_string()
    };
    assert_eq!(
        title(&["lyapunov", "--theta", "2,2", "--t-end", "12", "--json"]),
        "lyapunov: double pendulum from θ = (2, 2) rad"
    );
    assert_eq!(
        title(&[
            "simulate", "--preset", "chain", "--links", "5", "--theta-deg", "120,90,60,30,0",
            "--omega", "0.5,0,0,0,0", "--t-end", "1", "--json"
        ]),
        "simulate: 5-link chain from θ = (2.0944, 1.5708, 1.0472, 0.5236, …) rad, θ̇ = (0.5, 0, 0, 0, …) rad/s"
    );
    let s = spec(
        d.path(),
        "drive.toml",
        "kind = \"lyapunov\"\n[model]\npreset = \"simple\"\n[model.damping]\nabsolute = [0.5]\n\
         [model.drive.torque]\namplitude = 1.2\nfrequency = 0.6667\n[initial]\ntheta = [0.2]\n\
         [lyapunov]\nt_end = 12\n",
    );
    assert_eq!(
        title(&["run", &s, "--json"]),
        "lyapunov: simple pendulum from θ = (0.2) rad, damped, torque 1.2 N·m at Ω = 0.6667 rad/s"
    );
}

/// `modes --verify-nonlinear` says where a released mode is not periodic instead of printing
/// a frequency: the 5-rod chain's lowest mode is periodic to 2 % at 1 rad and chaotic at 2 rad.
#[test]
fn verify_nonlinear_marks_motion_that_is_not_periodic() {
    let d = tempfile::tempdir().unwrap();
    let run = |json: bool| {
        let mut args = vec![
            "modes",
            "--preset",
            "rods",
            "--links",
            "5",
            "--verify-nonlinear",
        ];
        if json {
            args.push("--json");
        }
        let out = Command::cargo_bin("pendula")
            .unwrap()
            .current_dir(d.path())
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let j: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let at = |a: f64| {
        j["nonlinear"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["amplitude"] == a && c["mode"] == 1)
            .unwrap()
            .clone()
    };
    assert_eq!(at(1.0)["periodic"], true);
    assert!(at(1.0)["interval_spread"].as_f64().unwrap() < 0.01);
    assert_eq!(at(2.0)["periodic"], false);
    assert!(at(2.0)["interval_spread"].as_f64().unwrap() > 0.5);
    let text = run(false);
    let line = |a: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(a))
            .unwrap_or_else(|| panic!("no row at {a}: {text}"))
            .to_string()
    };
    assert!(line("2.0000").contains("not periodic"), "{text}");
    assert!(!line("1.0000").contains("not periodic"), "{text}");
    assert!(text.contains("no frequency is given"), "{text}");
}
