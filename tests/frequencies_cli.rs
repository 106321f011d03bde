//! `pendula frequencies` and `kind = "frequencies"`: the front end of the frequency analysis
//! (the library's own tests are tests/frequencies.rs and the module's). Its numbers against the
//! pendulum's closed form through the CLI, its file read back against its JSON, its refusals
//! (one line naming the flag or field, exit 2, nothing written) and its interruption.

use assert_cmd::Command;
use std::f64::consts::PI;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn pendula(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("pendula")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// K(k) = π / (2 AGM(1, √(1 − k²))).
fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..64 {
        if (a - b).abs() <= 4.0 * f64::EPSILON * a {
            break;
        }
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    PI / (2.0 * a)
}

/// The simple pendulum from θ₀ = 1 rad over ~1000 periods, through the CLI: its fundamental is
/// π√g / (2K(sin ½)) to 1e-10 relative; ω_ref is derived (√g, the small-oscillation frequency).
#[test]
fn simple_pendulum_frequency_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let g: f64 = 9.81;
    let nu = PI * g.sqrt() / (2.0 * elliptic_k(0.5f64.sin()));
    let v = json(&pendula(
        dir.path(),
        &[
            "frequencies",
            "--preset",
            "simple",
            "--theta",
            "1",
            "--t-end",
            "2140",
            "--dt-out",
            "0.05",
            "--rtol",
            "1e-13",
            "--atol",
            "1e-13",
            "--json",
        ],
    ));
    assert_eq!(v["kind"], "frequencies");
    let f = floats(&v["fundamentals"]);
    assert_eq!(f.len(), 1);
    assert!(((f[0] - nu) / nu).abs() < 1e-10, "{} vs {nu}", f[0]);
    assert!((v["omega_ref"].as_f64().unwrap() - g.sqrt()).abs() < 1e-12);
    assert_eq!(v["omega_ref_source"], "lowest small-oscillation frequency");
    assert_eq!(v["links"][0]["signal"], "libration");
    assert_eq!(v["samples"], 42800);
    assert!(v["diffusion_index"].as_f64().unwrap() < -8.0);
    assert_eq!(v["complete"], true);
}

/// The same numbers, but for the last bit JSON text may lose (serde_json's default parser
/// rounds some decimal strings one ulp off).
fn same(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 4.0 * f64::EPSILON * x.abs(),
            "{a:?} vs {b:?}"
        );
    }
}

/// The double pendulum's file: the group's variables over named dimensions hold what the JSON
/// says (to the last bit JSON keeps).
#[test]
fn file_holds_what_the_json_says() {
    let dir = tempfile::tempdir().unwrap();
    let v = json(&pendula(
        dir.path(),
        &[
            "frequencies",
            "--theta",
            "0.5,0.5",
            "--t-end",
            "300",
            "--dt-out",
            "0.05",
            "--terms",
            "6",
            "--window-order",
            "2",
            "-o",
            "f.h5",
            "--json",
        ],
    ));
    let file = hdf5::File::open(dir.path().join("f.h5")).unwrap();
    let g = file.group("frequencies").unwrap();
    let read = |name: &str| g.dataset(name).unwrap().read_raw::<f64>().unwrap();
    let shape = |name: &str| g.dataset(name).unwrap().shape();
    same(&read("fundamental_frequency"), &floats(&v["fundamentals"]));
    assert_eq!(shape("frequency"), vec![2, 6]);
    assert_eq!(shape("combination"), vec![2, 6, 2]);
    let freq = read("frequency");
    let amp = read("amplitude");
    for j in 0..2 {
        same(
            &freq[6 * j..6 * j + 6],
            &floats(&v["links"][j]["frequency"]),
        );
        same(&amp[6 * j..6 * j + 6], &floats(&v["links"][j]["amplitude"]));
    }
    let halves = read("half_fundamental_frequency");
    same(&halves[..2], &floats(&v["first_half"]));
    same(&halves[2..], &floats(&v["second_half"]));
    let attr = |name: &str| g.attr(name).unwrap().read_scalar::<f64>().unwrap();
    assert_eq!(
        attr("diffusion_index"),
        v["diffusion_index"].as_f64().unwrap()
    );
    assert_eq!(
        g.attr("window_order")
            .unwrap()
            .read_scalar::<i64>()
            .unwrap(),
        2
    );
    // The two fundamentals are the strongest lines of link 1, identified as (1, 0) and (0, 1).
    let k = g.dataset("combination").unwrap().read_raw::<i64>().unwrap();
    let first: Vec<[i64; 2]> = (0..2).map(|t| [k[2 * t], k[2 * t + 1]]).collect();
    assert!(
        first.contains(&[1, 0]) && first.contains(&[0, 1]),
        "{first:?}"
    );
    let units = g
        .dataset("frequency")
        .unwrap()
        .attr("units")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap();
    assert_eq!(units.as_str(), "rad s-1");
}

/// Bad input: one line naming the flag, exit 2, no file.
#[test]
fn refusals_name_the_flag_and_write_nothing() {
    let base = ["frequencies", "--theta", "0.3,0.2"];
    let cases: &[(&[&str], &str)] = &[
        (&["--json"], "--t-end"),
        (&["--t-end", "0.2"], "--t-end"),
        (&["--t-end", "10", "--dt-out", "-1"], "--dt-out"),
        (&["--t-end", "10", "--window-order", "13"], "--window-order"),
        (&["--t-end", "10", "--terms", "0"], "--terms"),
        (&["--t-end", "10", "--omega-ref", "0"], "--omega-ref"),
        (
            &["--t-end", "10", "--combination-order", "500"],
            "--combination-order",
        ),
        (&["--t-end", "10", "--theta", "0.1"], "--theta"),
    ];
    for (extra, flag) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", "x.h5"]);
        let out = pendula(dir.path(), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(!dir.path().join("x.h5").exists(), "{args:?}");
        assert!(!dir.path().join("x.h5.partial").exists(), "{args:?}");
    }
    // An existing file is kept without --force.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.h5"), b"keep").unwrap();
    let out = pendula(
        dir.path(),
        &[
            "frequencies",
            "--theta",
            "0.3,0.2",
            "--t-end",
            "10",
            "-o",
            "x.h5",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(std::fs::read(dir.path().join("x.h5")).unwrap(), b"keep");
}

/// `pendula run` takes kind = "frequencies" with its [frequencies] table (the same numbers as
/// the command's flags); the table beside another kind is refused naming it.
#[test]
fn spec_kind_runs_and_its_table_is_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "kind = \"frequencies\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [0.3, 0.2]\n[frequencies]\nt_end = 200.0\ndt_out = 0.05\nterms = 4\n";
    std::fs::write(dir.path().join("f.toml"), spec).unwrap();
    let a = json(&pendula(dir.path(), &["run", "f.toml", "--json"]));
    let b = json(&pendula(
        dir.path(),
        &[
            "frequencies",
            "--theta",
            "0.3,0.2",
            "--t-end",
            "200",
            "--dt-out",
            "0.05",
            "--terms",
            "4",
            "--json",
        ],
    ));
    assert_eq!(a["fundamentals"], b["fundamentals"]);
    assert_eq!(a["links"], b["links"]);
    let bad = "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [0.3, 0.2]\n[simulate]\nt_end = 1.0\n[frequencies]\nt_end = 2.0\n";
    std::fs::write(dir.path().join("bad.toml"), bad).unwrap();
    let out = pendula(dir.path(), &["run", "bad.toml", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("frequencies"));
}

/// The shipped analysis validates and its orbit is a torus (diffusion index below −8).
#[test]
fn shipped_analysis_is_a_torus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let spec = root.join("analyses/double-pendulum-frequencies.toml");
    let v = json(&pendula(
        dir.path(),
        &[
            "run",
            spec.to_str().unwrap(),
            "--json",
            "-o",
            "a.h5",
            "--plot",
            "a.png",
        ],
    ));
    assert!(v["diffusion_index"].as_f64().unwrap() < -8.0, "{v}");
    assert_eq!(floats(&v["fundamentals"]).len(), 2);
    assert!(dir.path().join("a.png").exists());
}

/// SIGINT one second into a run whose samples are minutes apart: exit 1 within 2 s, one line
/// saying it was interrupted, and no file (fewer than 32 samples to analyse).
#[test]
fn interrupt_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args([
            "frequencies",
            "--theta",
            "2,2",
            "--t-end",
            "1e7",
            "--dt-out",
            "1e5",
            "--rtol",
            "1e-14",
            "--atol",
            "1e-14",
            "-o",
            "i.h5",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        child.try_wait().unwrap().is_none(),
        "ended before the signal"
    );
    let sent = std::time::Instant::now();
    assert!(std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(2) {
            let _ = child.kill();
            panic!("still running 2 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!dir.path().join("i.h5").exists());
    assert!(!dir.path().join("i.h5.partial").exists());
}

/// The frequency map: the same bits for 1 and 2 threads and for another tile size; a pixel
/// near the hanging equilibrium, θ = (π/8, π/8), is a torus (index < −5.5 at this short run,
/// 2 × 512 samples over 92 s, where NAFF's own finite-time error is ≈ 4e-7 rad/s: measured
/// −6.0; −6.4 with DOP853 at 1e-12, so the integrator is not the limit), and the corner near
/// the inverted state is chaotic (index > −4; measured −0.1).
#[test]
fn frequency_map_is_independent_of_threads_and_tiles() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "map",
            "--kind",
            "frequency",
            "--resolution",
            "8",
            "--t-end",
            "100",
            "--samples",
            "1024",
            "-o",
            name,
        ];
        args.extend_from_slice(extra);
        let out = pendula(dir.path(), &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let f = hdf5::File::open(dir.path().join(name)).unwrap();
        let g = f.group("map").unwrap();
        let read = |v: &str| g.dataset(v).unwrap().read_raw::<f64>().unwrap();
        (read("diffusion_index"), read("nu_first"), read("nu_second"))
    };
    let one = run("a.h5", &["--threads", "1"]);
    let two = run("b.h5", &["--threads", "2"]);
    let tiles = run("c.h5", &["--threads", "2", "--tile", "4"]);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for (a, b) in [(&one, &two), (&one, &tiles)] {
        assert_eq!(bits(&a.0), bits(&b.0));
        assert_eq!(bits(&a.1), bits(&b.1));
        assert_eq!(bits(&a.2), bits(&b.2));
    }
    let index = &one.0;
    // 8 × 8 pixels over [−π, π]²: pixel (4, 4) starts at θ = (π/8, π/8), pixel (0, 0) at
    // (−7π/8, −7π/8).
    assert!(
        index[4 * 8 + 4] < -5.5,
        "near the centre {}",
        index[4 * 8 + 4]
    );
    assert!(index[0] > -4.0, "corner {}", index[0]);
}
