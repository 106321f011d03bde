//! `pendula frequencies` and `kind = "frequencies"`: the front end of the frequency analysis
//! (the library's own tests are tests/frequencies.rs and the module's). Its numbers against the
//! pendulum's closed form through the CLI, its file read back against its JSON, its refusals
//! (one line naming the flag or field, exit 2, nothing written) and its interruption.

use assert_cmd::Command;
use std::f64::consts::PI;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

#[path = "common/running.rs"]
mod running;

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

/// SIGINT once a run whose samples are minutes apart is under way: exit 1 within 2 s of CPU, one line
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
    running::wait_running(
        &mut child,
        Duration::from_millis(500),
        "pendula frequencies",
    );
    let cpu = running::cpu_time(child.id());
    assert!(std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let (status, _) = running::wait_stopped(
        &mut child,
        cpu,
        Duration::from_secs(2),
        "pendula frequencies",
    );
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!dir.path().join("i.h5").exists());
    assert!(!dir.path().join("i.h5.partial").exists());
}

/// `pendula map --kind frequency` at 8² over the default window, writing `name`.
fn map_args(name: &str) -> Vec<String> {
    [
        "map",
        "--kind",
        "frequency",
        "--resolution",
        "8",
        "-o",
        name,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// A frequency map file's diffusion_index, omega_first and omega_second, its integrator checked.
fn read_map(path: &Path) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let f = hdf5::File::open(path).unwrap();
    let g = f.group("map").unwrap();
    let read = |v: &str| g.dataset(v).unwrap().read_raw::<f64>().unwrap();
    let integrator: String = g
        .attr("integrator")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap()
        .to_string();
    assert!(integrator.starts_with("gauss-legendre"), "{integrator}");
    (
        read("diffusion_index"),
        read("omega_first"),
        read("omega_second"),
    )
}

/// The frequency map at its defaults (2 × 1 024 samples 0.1 s apart, Gauss–Legendre steps of
/// 0.025 s, Hann window p = 2): the same bits for 1 and 2 threads, another tile size and a run
/// interrupted by SIGINT and resumed; a pixel near the hanging equilibrium, θ = (π/8, π/8), is a
/// torus (index < −8; measured −9.3, and −4.7 with the RK4 the other kinds use, whose energy
/// drift moves the frequencies between the halves), and the corner near the inverted state is
/// chaotic (index > −4; measured 0.3 on the lanes, −0.5 on the scalar path).
#[test]
fn frequency_map_is_independent_of_threads_tiles_and_resumption() {
    let dir = tempfile::tempdir().unwrap();
    let read = |name: &str| read_map(&dir.path().join(name));
    let run = |name: &str, extra: &[&str]| {
        let mut args = map_args(name);
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let out = pendula(dir.path(), &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        read(name)
    };
    let one = run("a.h5", &["--threads", "1"]);
    let two = run("b.h5", &["--threads", "2"]);
    let tiles = run("c.h5", &["--threads", "2", "--tile", "4"]);

    // Interrupted after its first 4² tile is checkpointed (one thread), then resumed.
    let mut args = map_args("d.h5");
    args.extend(["--tile", "4", "--threads", "1"].map(String::from));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"))
        .current_dir(dir.path())
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ckpt = dir.path().join("d.h5.tiles");
    let count = || std::fs::read_dir(&ckpt).map_or(0, |d| d.count());
    // Two tiles checkpointed (or the run already over: the test then resumes a finished map).
    running::poll_child(
        &mut child,
        "two checkpointed tiles",
        running::PATIENCE,
        |c| (count() >= 2 || c.try_wait().unwrap().is_some()).then_some(()),
    );
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let interrupted = !status.success();
    let resumed = run("d.h5", &["--tile", "4", "--threads", "1", "--resume"]);
    eprintln!("interrupted: {interrupted}");

    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for (a, b) in [(&one, &two), (&one, &tiles), (&one, &resumed)] {
        assert_eq!(bits(&a.0), bits(&b.0));
        assert_eq!(bits(&a.1), bits(&b.1));
        assert_eq!(bits(&a.2), bits(&b.2));
    }
    let index = &one.0;
    // 8 × 8 pixels over [−π, π]²: pixel (4, 4) starts at θ = (π/8, π/8), pixel (0, 0) at
    // (−7π/8, −7π/8).
    assert!(
        index[4 * 8 + 4] < -8.0,
        "near the centre {}",
        index[4 * 8 + 4]
    );
    assert!(index[0] > -4.0, "corner {}", index[0]);
}

/// `render --show frequency_map` draws a frequency map's ω₂-against-ω₁ figure; other kinds
/// refuse the name with exit 2, naming --show and what they can draw.
#[test]
fn render_draws_the_frequency_map_figure() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = pendula(
        d,
        &[
            "map",
            "--kind",
            "frequency",
            "--resolution",
            "6",
            "--window=-0.6,0.6,-0.6,0.6",
            "--samples",
            "512",
            "-o",
            "f.h5",
        ],
    );
    json_ok(&out);
    let out = pendula(
        d,
        &["render", "f.h5", "--show", "frequency_map", "-o", "fm.png"],
    );
    json_ok(&out);
    let png = std::fs::read(d.join("fm.png")).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{}",
        png.len()
    );
    let svg = pendula(
        d,
        &["render", "f.h5", "--show", "frequency_map", "-o", "fm.svg"],
    );
    json_ok(&svg);
    let text = std::fs::read_to_string(d.join("fm.svg")).unwrap();
    assert!(
        text.contains("ω₂ (first half)"),
        "the axes are the angular frequencies ω (rad/s)"
    );
    // At least one resonance ray crosses the box (here ω₂/ω₁ ≈ 2.4: 2:5 and 3:7 of order ≤ 10).
    assert!(
        ["2:5", "3:7", "1:2"].iter().any(|r| text.contains(r)),
        "no resonance label"
    );
    let out = pendula(
        d,
        &["map", "--resolution", "4", "--t-end", "1", "-o", "flip.h5"],
    );
    json_ok(&out);
    let out = pendula(
        d,
        &[
            "render",
            "flip.h5",
            "--show",
            "frequency_map",
            "-o",
            "x.png",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--show") && err.contains("frequency_map"),
        "{err}"
    );
    assert!(!d.join("x.png").exists());
}

fn json_ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A conservative two-link chain's frequency map runs on the SIMD lanes by default (the same
/// Gauss–Legendre method, the lanes' sin and cos): against the scalar solver (`--kernel
/// scalar`) every clear torus (index < −6) and every clear chaotic pixel (> −3) keeps its
/// class, and the tori's frequencies agree to 1e-12 rad/s (measured 9e-16); the baseline and
/// AVX2 instruction sets give the lanes' bits (the default here is the widest the CPU has).
#[test]
fn frequency_map_lanes_agree_with_the_scalar_solver() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str], simd: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"));
        cmd.current_dir(dir.path()).args(map_args(name)).args(extra);
        if let Some(s) = simd {
            cmd.env("PENDULA_SIMD", s);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        read_map(&dir.path().join(name))
    };
    let lanes = run("lanes.h5", &[], None);
    let scalar = run("scalar.h5", &["--kernel", "scalar"], None);
    let class = |x: f64| (x > -6.0) as u8 + (x > -3.0) as u8;
    let mut tori = 0;
    for p in 0..64 {
        let (a, b) = (lanes.0[p], scalar.0[p]);
        if !(-6.0..=-3.0).contains(&b) {
            assert_eq!(class(a), class(b), "pixel {p}: lanes {a}, scalar {b}");
        }
        if b < -8.0 {
            tori += 1;
            for j in 2 * p..2 * p + 2 {
                for (x, y) in [(lanes.1[j], scalar.1[j]), (lanes.2[j], scalar.2[j])] {
                    // NaN on both sides: a half with fewer fundamentals found.
                    let same = (x - y).abs() < 1e-12 || (x.is_nan() && y.is_nan());
                    assert!(same, "pixel {p}: ν {x} vs {y}");
                }
            }
        }
    }
    assert!(tori >= 4, "{tori} tori");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for simd in ["baseline", "avx2"] {
        let other = run(&format!("{simd}.h5"), &[], Some(simd));
        assert_eq!(bits(&other.0), bits(&lanes.0), "{simd}");
        assert_eq!(bits(&other.1), bits(&lanes.1), "{simd}");
        assert_eq!(bits(&other.2), bits(&lanes.2), "{simd}");
    }
}

/// Issue 48: `--preset simple --theta 2.0 --t-end 200` labelled the lines at 7ν and 9ν as the
/// combination [6] (residuals 2.36 and 7.07 rad/s) in the JSON and the file alike: a combination
/// search limited to order 6 returned its nearest one, however far. Now the default order (15)
/// reaches them and every labelled line is [h] at its odd harmonic h with a residual within the
/// stated tolerance (1e-7 ω_ref, in the JSON and the file); at `--combination-order 6` the two
/// lines are unexplained: no label (JSON null, `explained` 0, combination 0, residual NaN).
#[test]
fn lines_are_labelled_only_by_a_combination_that_explains_them() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let mut args = vec![
            "frequencies",
            "--preset",
            "simple",
            "--theta",
            "2.0",
            "--t-end",
            "200",
            "--json",
            "-o",
            out,
        ];
        args.extend_from_slice(extra);
        json(&pendula(dir.path(), &args))
    };
    let v = run(&[], "f.h5");
    let w_ref = v["omega_ref"].as_f64().unwrap();
    let tol = v["combination_tolerance"].as_f64().unwrap();
    assert_eq!(tol, 1e-7 * w_ref);
    assert_eq!(v["combination_order"], 15);
    assert!(v["combination_tolerance_rule"]
        .as_str()
        .unwrap()
        .contains("unexplained"));
    let nu = floats(&v["fundamentals"])[0];
    let link = &v["links"][0];
    let freq = floats(&link["frequency"]);
    assert_eq!(freq.len(), 10);
    let mut harmonics = Vec::new();
    for (i, w) in freq.iter().enumerate() {
        // The odd harmonic (signed) this line sits at, to NAFF's precision.
        let h = (w / nu).round();
        assert!((w - h * nu).abs() < 1e-9 * h.abs() * nu, "{w} vs {h}ν");
        let k = link["combination"][i].as_array().expect("labelled");
        assert_eq!(k.len(), 1);
        assert_eq!(k[0].as_i64().unwrap(), h as i64, "line {w}");
        let r = link["combination_residual"][i].as_f64().unwrap();
        assert!(r.abs() <= tol, "line {w}: residual {r}");
        harmonics.push(h as i64);
    }
    assert!(
        harmonics.contains(&7) && harmonics.contains(&9),
        "{harmonics:?}"
    );
    // The file says the same.
    let file = hdf5::File::open(dir.path().join("f.h5")).unwrap();
    let g = file.group("frequencies").unwrap();
    let k = g.dataset("combination").unwrap().read_raw::<i64>().unwrap();
    assert_eq!(k, harmonics);
    let explained = g.dataset("explained").unwrap().read_raw::<u8>().unwrap();
    assert!(explained.iter().all(|&e| e == 1), "{explained:?}");
    let t: f64 = g
        .attr("combination_tolerance")
        .unwrap()
        .read_scalar()
        .unwrap();
    assert_eq!(t, tol);

    // Order 6 cannot reach 7ν and 9ν: unexplained, never labelled [6].
    let v = run(&["--combination-order", "6"], "g.h5");
    let link = &v["links"][0];
    let freq = floats(&link["frequency"]);
    let file = hdf5::File::open(dir.path().join("g.h5")).unwrap();
    let g = file.group("frequencies").unwrap();
    let explained = g.dataset("explained").unwrap().read_raw::<u8>().unwrap();
    let k = g.dataset("combination").unwrap().read_raw::<i64>().unwrap();
    let res = g
        .dataset("combination_residual")
        .unwrap()
        .read_raw::<f64>()
        .unwrap();
    let mut unexplained = 0;
    for (i, w) in freq.iter().enumerate() {
        let h = (w / nu).round() as i64;
        if h.abs() > 6 {
            unexplained += 1;
            assert!(link["combination"][i].is_null(), "{w}: {link}");
            assert!(link["combination_residual"][i].is_null(), "{w}: {link}");
            assert_eq!((explained[i], k[i]), (0, 0), "{w}");
            assert!(res[i].is_nan(), "{w}: {}", res[i]);
        } else {
            assert_eq!(link["combination"][i][0].as_i64(), Some(h), "{w}");
            assert_eq!(explained[i], 1);
        }
    }
    assert_eq!(unexplained, 4, "±7ν and ±9ν: {freq:?}");
}

/// Issue 48: SIGTERM in the analysis stage (NAFF on 10⁶ samples, after the integration) was
/// ignored: the run went on for seconds and exited 0 complete. Now every NAFF pass polls the
/// stop: exit 1 within 2 s of the signal, "interrupted", no file and no `.partial`. The test
/// waits (with a deadline, no fixed sleep) until the progress bar shows the analysis stage
/// (its unit, "signals"), then signals.
#[test]
fn sigterm_in_the_analysis_stops_it() {
    use std::io::Read;
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args([
            "frequencies",
            "--preset",
            "simple",
            "--theta",
            "2.0",
            "--t-end",
            "2000",
            "--dt-out",
            "0.002",
            "--terms",
            "20",
            "--progress",
            "always",
            "-o",
            "s.h5",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = Arc::new(Mutex::new(Vec::<u8>::new()));
    let reader = {
        let err = Arc::clone(&err);
        let mut pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                err.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let text = |e: &Arc<Mutex<Vec<u8>>>| String::from_utf8_lossy(&e.lock().unwrap()).to_string();
    running::poll_child(
        &mut child,
        "the analysis stage on the progress bar",
        Duration::from_secs(120),
        |c| {
            assert!(
                c.try_wait().unwrap().is_none(),
                "ended before the analysis stage showed: {}",
                text(&err)
            );
            text(&err).contains("signals").then_some(())
        },
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the analysis ended before the signal"
    );
    let cpu = running::cpu_time(child.id());
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    // Within 2 s of CPU time after the signal (a busy machine stretches the wall time only).
    let (status, _) = running::wait_stopped(
        &mut child,
        cpu,
        Duration::from_secs(2),
        "the analysis stage",
    );
    reader.join().unwrap();
    let err = text(&err);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!dir.path().join("s.h5").exists());
    assert!(!dir.path().join("s.h5.partial").exists());
}

/// Issue 52: the verdict and its ladder in the JSON, the report and the file (a CF flag
/// variable), and the warning on a chaotic orbit's fundamentals on stderr, in the JSON and in
/// the report. The torus at θ = (0.5, 0.5) (its index falls from −8.2 at T/4 to −9.2 at T,
/// DOP853's floor at the default 1e-10) is regular; θ = (1.8, −1.5), far in the chaotic sea
/// (index ≈ 0 at every rung: its frequencies drift by ~1 rad/s), is chaotic. The verdict's
/// agreement with λ_max is tests/diffusion_verdict.rs.
#[test]
fn verdict_and_the_chaotic_warning() {
    let dir = tempfile::tempdir().unwrap();
    let run = |theta: &str, file: &str| {
        let args = [
            "frequencies",
            "--theta",
            theta,
            "--t-end",
            "1000",
            "--dt-out",
            "0.05",
            "-o",
            file,
            "--json",
        ];
        let out = pendula(dir.path(), &args);
        (json(&out), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (regular, err) = run("0.5,0.5", "r.h5");
    assert_eq!(regular["verdict"], "regular");
    assert!(
        regular["warning"].is_null() && !err.contains("warning"),
        "{err}"
    );
    let ladder = floats(&regular["diffusion_index_ladder"]);
    assert_eq!(ladder[2], regular["diffusion_index"].as_f64().unwrap());
    assert!(
        ladder[2] < ladder[0] - 0.5 && ladder[2] < -8.0,
        "{ladder:?}"
    );
    let (chaotic, err) = run("1.8,-1.5", "c.h5");
    assert_eq!(chaotic["verdict"], "chaotic");
    let warning = chaotic["warning"].as_str().unwrap();
    assert!(warning.contains("not frequencies of a torus"), "{warning}");
    assert!(err.lines().any(|l| l == warning), "{err}");
    assert!(floats(&chaotic["diffusion_index_ladder"])
        .iter()
        .all(|&i| i > -3.0));
    // The file: verdict a scalar flag variable whose flag_meanings name the JSON's word.
    for (file, v) in [("r.h5", &regular), ("c.h5", &chaotic)] {
        let f = hdf5::File::open(dir.path().join(file)).unwrap();
        let g = f.group("frequencies").unwrap();
        let d = g.dataset("verdict").unwrap();
        let flag = d.read_scalar::<u8>().unwrap();
        let meanings = d
            .attr("flag_meanings")
            .unwrap()
            .read_scalar::<hdf5::types::VarLenUnicode>()
            .unwrap();
        let values = d.attr("flag_values").unwrap().read_raw::<u8>().unwrap();
        assert_eq!(values, vec![0, 1, 2]);
        let words: Vec<&str> = meanings.as_str().split(' ').collect();
        assert_eq!(words[flag as usize], v["verdict"].as_str().unwrap());
        let ladder = g
            .attr("diffusion_index_ladder")
            .unwrap()
            .read_raw::<f64>()
            .unwrap();
        same(&ladder, &floats(&v["diffusion_index_ladder"]));
    }
    // The report says the verdict and the warning too.
    let out = pendula(
        dir.path(),
        &[
            "frequencies",
            "--theta",
            "1.8,-1.5",
            "--t-end",
            "1000",
            "--dt-out",
            "0.05",
        ],
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("): chaotic") && report.contains("not frequencies of a torus"));
}

/// Issue 52: the frequency map's verdict per pixel, a CF flag variable (f64, NaN where not
/// computed) beside the ladder's rungs, at the default step 0.025 s over T = 1638.4 s (16 384
/// samples: a verdict needs 300 periods of the slowest fundamental, ~2.4 rad/s here); each
/// pixel's verdict is the rule applied to its stored ladder (`Verdict::of`), the pixel at
/// θ = (π/8, π/8) a torus (regular) and the corner near the inverted state chaotic. At the
/// default T = 204.8 s (≈ 80 periods) every pixel is undecided.
#[test]
fn frequency_map_stores_the_verdict() {
    use pendula::analysis::frequency::Verdict;
    let dir = tempfile::tempdir().unwrap();
    let mut args = map_args("v.h5");
    args.extend(["--t-end", "1638.4", "--samples", "16384"].map(String::from));
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = pendula(dir.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let short = map_args("s.h5");
    let short: Vec<&str> = short.iter().map(|s| s.as_str()).collect();
    assert!(pendula(dir.path(), &short).status.success());
    let f = hdf5::File::open(dir.path().join("s.h5")).unwrap();
    let v = f.dataset("map/verdict").unwrap().read_raw::<f64>().unwrap();
    assert!(v.iter().all(|&x| x == 2.0 || x.is_nan()), "{v:?}");
    let f = hdf5::File::open(dir.path().join("v.h5")).unwrap();
    let g = f.group("map").unwrap();
    assert_eq!(g.attr("dt").unwrap().read_scalar::<f64>().unwrap(), 0.025);
    let read = |v: &str| g.dataset(v).unwrap().read_raw::<f64>().unwrap();
    let (quarter, half, index) = (
        read("diffusion_index_quarter"),
        read("diffusion_index_half"),
        read("diffusion_index"),
    );
    let (verdict, first, second) = (read("verdict"), read("omega_first"), read("omega_second"));
    let d = g.dataset("verdict").unwrap();
    let meanings = d
        .attr("flag_meanings")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap();
    assert_eq!(meanings.as_str(), "regular chaotic undecided");
    assert_eq!(
        d.attr("flag_values").unwrap().read_raw::<f64>().unwrap(),
        vec![0.0, 1.0, 2.0]
    );
    // The analysed span: samples × sample_steps × dt.
    let int = |a: &str| g.attr(a).unwrap().read_scalar::<i64>().unwrap() as f64;
    let t = int("samples") * int("sample_steps") * 0.025;
    assert!((t - 1638.4).abs() < 1e-9, "{t}");
    for p in 0..64 {
        let nu = [
            first[2 * p],
            first[2 * p + 1],
            second[2 * p],
            second[2 * p + 1],
        ];
        let nu_max = nu.iter().fold(0.0f64, |a, &b| a.max(b));
        let nu_min = nu.iter().fold(f64::NAN, |a, &b| b.min(a));
        let periods = t * nu_min / (2.0 * std::f64::consts::PI);
        let v = Verdict::of([quarter[p], half[p], index[p]], nu_max, periods);
        assert_eq!(verdict[p], f64::from(v.flag()), "pixel {p}");
    }
    assert_eq!(verdict[4 * 8 + 4], 0.0, "centre {}", index[4 * 8 + 4]);
    assert_eq!(verdict[0], 1.0, "corner {}", index[0]);
}

/// A frequency map written before the angular frequencies were renamed (`nu_first`,
/// `nu_second`) is still read: `render` draws it, and the file pendula reads back holds the
/// same frequencies under either name.
#[test]
fn a_map_with_the_old_frequency_names_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let args = map_args("new.h5");
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = pendula(dir.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, first, second) = read_map(&dir.path().join("new.h5"));
    std::fs::copy(dir.path().join("new.h5"), dir.path().join("old.h5")).unwrap();
    {
        let f = hdf5::File::open_rw(dir.path().join("old.h5")).unwrap();
        let g = f.group("map").unwrap();
        g.relink("omega_first", "nu_first").unwrap();
        g.relink("omega_second", "nu_second").unwrap();
        let old = |v: &str| g.dataset(v).unwrap().read_raw::<f64>().unwrap();
        assert_eq!(old("nu_first").len(), first.len());
        assert!(old("nu_second")
            .iter()
            .zip(&second)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
    for name in ["new", "old"] {
        let out = pendula(
            dir.path(),
            &[
                "render",
                &format!("{name}.h5"),
                "-o",
                &format!("{name}.png"),
            ],
        );
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        std::fs::read(dir.path().join("new.png")).unwrap(),
        std::fs::read(dir.path().join("old.png")).unwrap()
    );
}
