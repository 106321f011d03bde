//! The binary on cart-chain specs: `pendula control`, `run`, and `simulate`/`modes`/`lyapunov`
//! with `[model] kind = "cart-chain"`; bad input exits 2 with one line and writes nothing.

use assert_cmd::Command;
use std::path::Path;

#[path = "common/python.rs"]
mod python;

fn pendula() -> Command {
    Command::cargo_bin("pendula").unwrap()
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const MODEL: &str = "[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n";

/// Writes `spec` to a temporary folder and runs `args` (with `SPEC` replaced by its path and
/// `-o out.h5`); returns (code, stdout, stderr, folder, spec path).
fn run_spec(spec: &str, args: &[&str]) -> (i32, String, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.toml");
    std::fs::write(&path, spec).unwrap();
    let p = path.display().to_string();
    let args: Vec<String> = args.iter().map(|a| a.replace("SPEC", &p)).collect();
    let (code, out, err) = run(pendula()
        .current_dir(dir.path())
        .args(&args)
        .arg("-o")
        .arg(dir.path().join("out.h5")));
    (code, out, err, dir)
}

fn only_spec_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "spec.toml")
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

fn bad(spec: &str, args: &[&str], needle: &str) {
    let (code, _, err, dir) = run_spec(spec, args);
    assert_eq!(code, 2, "stderr {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
    only_spec_left(dir.path());
}

#[test]
fn control_stabilizes_the_inverted_double_pendulum_on_a_cart() {
    let spec = format!("kind = \"control\"\n{MODEL}[control]\nt_end = 20.0\ndt_out = 0.1\n");
    let (code, out, err, dir) = run_spec(&spec, &["control", "--spec", "SPEC", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(j["final_error"].as_f64().unwrap() < 1e-6, "{j}");
    assert!(j["closed_loop_max_re"].as_f64().unwrap() < 0.0);
    assert!((j["initial_error"].as_f64().unwrap() - 0.0707).abs() < 1e-3);
    assert!(dir.path().join("out.h5").exists());
    // Written, so a second run refuses to overwrite (exit 2) without --force.
    let (code, _, err) = run(pendula()
        .args(["control", "--spec"])
        .arg(dir.path().join("spec.toml"))
        .arg("-o")
        .arg(dir.path().join("out.h5")));
    assert_eq!(code, 2, "{err}");
}

#[test]
fn simulate_modes_and_lyapunov_accept_the_cart_chain() {
    let spec = format!(
        "kind = \"simulate\"\n{MODEL}[initial]\nequilibrium = \"hanging\"\ntilt = 0.3\n[simulate]\nt_end = 2.0\ndt_out = 0.1\n"
    );
    let (code, out, err, _dir) = run_spec(&spec, &["simulate", "--spec", "SPEC", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(j["samples"], 21);
    assert!(j["max_energy_error"].as_f64().unwrap() < 1e-9, "{j}");
    assert!(j["constraint_drift"].as_f64().unwrap() < 1e-13, "{j}");

    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.toml");
    std::fs::write(&model, MODEL.replace("[model]\n", "")).unwrap();
    let (code, out, err) = run(pendula().args(["modes", "--model"]).arg(&model).args([
        "--equilibria",
        "hanging,inverted",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let eq = j["equilibria"].as_array().unwrap();
    assert_eq!(eq.len(), 2);
    assert_eq!(eq[0]["zero_modes"], 2);
    assert_eq!(eq[0]["stable"], true);
    assert_eq!(eq[1]["stable"], false);

    let spec = "kind = \"lyapunov\"\n[model]\nkind = \"cart-chain\"\nlinks = 1\nfixed = true\n[initial]\nq = [[0.6, 0.0, 0.8]]\nomega = [[0.0, 1.0, 0.0]]\n[integrator]\nmethod = \"rk4\"\ndt = 0.001\n[lyapunov]\ntau = 0.01\ntransient = 0.0\nt_end = 5.0\n";
    let (code, out, err, _dir) = run_spec(spec, &["lyapunov", "--spec", "SPEC", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // The spherical pendulum: 4 exponents on TS², all zero (integrable).
    let l = j["exponents"].as_array().unwrap();
    assert_eq!(l.len(), 4);
    assert!(l.iter().all(|v| v.as_f64().unwrap().abs() < 0.5), "{j}");
}

#[test]
fn bad_cart_chain_input_exits_2_and_writes_nothing() {
    let sim = |initial: &str| {
        format!("kind = \"simulate\"\n{MODEL}[initial]\n{initial}\n[simulate]\nt_end = 1.0\n")
    };
    // Non-unit directions are rejected, not normalized.
    bad(
        &sim("q = [[0.0, 0.0, 1.0], [0.1, 0.0, 1.0]]"),
        &["run", "SPEC"],
        "initial.q[2]",
    );
    bad(
        &sim("q = [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]\nomega = [[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]"),
        &["run", "SPEC"],
        "initial.omega[1]",
    );
    bad(
        "kind = \"simulate\"\n[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 0.0\n",
        &["run", "SPEC"],
        "model.cart_mass",
    );
    bad(
        "kind = \"simulate\"\n[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = -2.0\n",
        &["simulate", "--spec", "SPEC"],
        "model.cart_mass",
    );
    // Uncontrollable: no gravity decouples the links from the cart force; a fixed cart has none.
    bad(
        &format!("kind = \"control\"\n{MODEL}gravity = 0.0\n"),
        &["control", "--spec", "SPEC"],
        "not controllable",
    );
    bad(
        "kind = \"control\"\n[model]\nkind = \"cart-chain\"\nlinks = 2\nfixed = true\n",
        &["run", "SPEC"],
        "moving cart",
    );
    bad(
        &format!("kind = \"control\"\n{MODEL}[control]\nequilibrium = \"+x\"\n"),
        &["run", "SPEC"],
        "control.equilibrium",
    );
    bad(
        &format!("kind = \"modes\"\n{MODEL}[modes]\nequilibria = [\"+++\"]\n"),
        &["run", "SPEC"],
        "modes.equilibria",
    );
    bad(
        &format!("kind = \"simulate\"\n{MODEL}[control]\nt_end = 1.0\n"),
        &["run", "SPEC"],
        "control",
    );
}

#[test]
fn shipped_cart_chain_specs_run() {
    for spec in [
        "cart-chain-hanging-modes",
        "cart-chain-inverted-lqr",
        "spherical-double-pendulum-lyapunov",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("analyses/{spec}.toml"));
        let out = dir.path().join("r.h5");
        let (code, stdout, err) = run(pendula()
            .current_dir(dir.path())
            .arg("run")
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .arg("--json"));
        assert_eq!(code, 0, "{spec}: {err}");
        assert!(out.exists(), "{spec}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        match v["kind"].as_str().unwrap() {
            "modes" => {
                let eq = v["equilibria"].as_array().unwrap();
                assert_eq!(eq.len(), 8);
                // Only the hanging equilibrium is stable; all are controllable.
                for e in eq {
                    let hanging = e["equilibrium"] == "+++";
                    assert_eq!(e["stable"].as_bool().unwrap(), hanging, "{e}");
                    assert_eq!(e["controllable"], true);
                    assert_eq!(e["zero_modes"], 2);
                }
            }
            "control" => {
                assert!(v["final_error"].as_f64().unwrap() < 1e-6, "{v}");
                assert!(dir.path().join("out/cart-chain-inverted-lqr.png").exists());
            }
            "lyapunov" => {
                assert_eq!(v["exponents"].as_array().unwrap().len(), 8);
                assert!(v["sum_exponents"].as_f64().unwrap().abs() < 1e-3, "{v}");
            }
            other => panic!("{other}"),
        }
    }
}

/// The cart chain's files (modes, LQR with its closed-loop trajectory, Lyapunov) open in h5py and
/// xarray with named dimensions (tests/python/check_h5.py). Skipped, saying why, where
/// the Python readers are missing (tests/common/python.rs).
#[test]
fn cart_chain_files_open_in_h5py_and_xarray() {
    if !python::readers_available() {
        return;
    }
    let modes =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("analyses/cart-chain-hanging-modes.toml");
    let (code, _, err, dir) = run_spec("", &["run", modes.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    python::check_h5(&dir.path().join("out.h5"), "modes");

    let spec = format!("kind = \"control\"\n{MODEL}[control]\nt_end = 2.0\ndt_out = 0.1\n");
    let (code, _, err, dir) = run_spec(&spec, &["control", "--spec", "SPEC"]);
    assert_eq!(code, 0, "{err}");
    for g in ["lqr", "trajectory"] {
        python::check_h5(&dir.path().join("out.h5"), g);
    }

    let spec = "kind = \"lyapunov\"\n[model]\nkind = \"cart-chain\"\nlinks = 1\nfixed = true\n[initial]\nq = [[0.6, 0.0, 0.8]]\nomega = [[0.0, 1.0, 0.0]]\n[integrator]\nmethod = \"rk4\"\ndt = 0.001\n[lyapunov]\ntau = 0.01\ntransient = 0.0\nt_end = 1.0\n";
    let (code, _, err, dir) = run_spec(spec, &["lyapunov", "--spec", "SPEC"]);
    assert_eq!(code, 0, "{err}");
    python::check_h5(&dir.path().join("out.h5"), "lyapunov");
}

/// Planar-only flags (`--theta`, `--links`, `--method`, …) given with a cart-chain spec are
/// refused, naming the flag, instead of being silently ignored; the flags the cart path applies
/// (and the shared output flags) still work.
#[test]
fn planar_only_flags_are_refused_for_cart_chains() {
    let sim = format!("kind = \"simulate\"\n{MODEL}");
    bad(
        &sim,
        &["simulate", "--spec", "SPEC", "--theta", "1,2"],
        "--theta",
    );
    bad(
        &sim,
        &["simulate", "--spec", "SPEC", "--preset", "triple"],
        "--preset",
    );
    bad(
        &sim,
        &["simulate", "--spec", "SPEC", "--theta-deg", "10,20"],
        "--theta-deg",
    );
    let modes = format!("kind = \"modes\"\n{MODEL}");
    bad(
        &modes,
        &["modes", "--spec", "SPEC", "--verify-nonlinear"],
        "--verify-nonlinear",
    );
    let lyap = format!("kind = \"lyapunov\"\n{MODEL}");
    bad(
        &lyap,
        &["lyapunov", "--spec", "SPEC", "--estimator", "qr"],
        "--estimator",
    );
    let (code, out, err, _dir) = run_spec(
        &sim,
        &[
            "simulate", "--spec", "SPEC", "--t-end", "0.5", "--json", "--force",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let summary: serde_json::Value = serde_json::from_str(out.trim()).expect("a JSON summary");
    assert!(summary.is_object(), "{out}");
    // Flags the cart chain does take (its number of links, its integrator) apply to it.
    let (code, out, err, _dir) = run_spec(
        &sim,
        &[
            "simulate", "--spec", "SPEC", "--links", "3", "--method", "rk4", "--dt", "0.001",
            "--t-end", "0.1", "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).expect("a JSON summary");
    assert_eq!(j["samples"], 11, "{j}");
    assert_eq!(j["steps"], 100, "rk4 at dt = 1e-3 over 0.1 s: {j}");
}

/// The cart chain's figure is drawn for `simulate` (the chain in 3-D, as `control` draws it)
/// and refused before the run for the kinds that draw none, naming `--plot`.
#[test]
fn the_cart_chain_figure_is_drawn_for_simulate_and_refused_for_modes() {
    let spec = format!(
        "kind = \"simulate\"\n{MODEL}[initial]\nequilibrium = \"hanging\"\ntilt = 0.3\n[simulate]\nt_end = 1.0\ndt_out = 0.1\n"
    );
    let (code, _, err, dir) = run_spec(&spec, &["run", "SPEC", "--plot", "sim.png"]);
    assert_eq!(code, 0, "{err}");
    let png = std::fs::read(dir.path().join("sim.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 5000);
    bad(
        &format!("kind = \"modes\"\n{MODEL}"),
        &["run", "SPEC", "--plot", "m.png"],
        "--plot: the cart-chain figure is drawn for simulate and control",
    );
}
