//! `pendula measure` on label grids written here: Newton's z³ = 1 basins as a dataset with
//! dimension scales (--labels) and a flip map computed by `pendula map`; the JSON and the HDF5
//! group must hold the library's numbers for the same grids, and bad input exits 2 with one
//! line, writing nothing.

use ndarray::Array2;
use pendula::analysis::measure::{measure, LabelGrid, MeasureOptions, Measures};
use pendula::store::{write_file, Provenance};
use serde_json::Value;
use std::path::Path;

#[path = "common/python.rs"]
mod python;
#[path = "common/spawn.rs"]
mod spawn;
use spawn::{json, run, spawn_guard};

/// Newton's method for z³ = 1 on [−1, 1]², `[iy, ix]`: the root reached (0, 1, 2).
fn newton(n: usize) -> Array2<i32> {
    let roots = [
        (1.0, 0.0),
        (-0.5, 0.75f64.sqrt()),
        (-0.5, -(0.75f64.sqrt())),
    ];
    Array2::from_shape_fn((n, n), |(iy, ix)| {
        let mut a = -1.0 + 2.0 * (ix as f64 + 0.5) / n as f64;
        let mut b = -1.0 + 2.0 * (iy as f64 + 0.5) / n as f64;
        for _ in 0..200 {
            let (a2, b2) = (a * a - b * b, 2.0 * a * b);
            let (a3, b3) = (a2 * a - b2 * b, a2 * b + b2 * a);
            let (nr, ni) = (2.0 * a3 + 1.0, 2.0 * b3);
            let (dr, di) = (3.0 * a2, 3.0 * b2);
            let d = dr * dr + di * di;
            if d == 0.0 {
                break;
            }
            a = (nr * dr + ni * di) / d;
            b = (ni * dr - nr * di) / d;
        }
        (0..3)
            .min_by(|&i, &j| {
                let q = |k: usize| (a - roots[k].0).powi(2) + (b - roots[k].1).powi(2);
                q(i).total_cmp(&q(j))
            })
            .unwrap() as i32
    })
}

/// `basins.h5`: /basins/root (int32 over y, x with dimension scales on [−1, 1]), and the
/// bad inputs: a float dataset, a 1-D dataset, a one-label grid.
fn write_inputs(dir: &Path, n: usize) -> Array2<i32> {
    let roots = newton(n);
    let c: Vec<f64> = (0..n)
        .map(|i| -1.0 + 2.0 * (i as f64 + 0.5) / n as f64)
        .collect();
    let prov = Provenance::now("test", "");
    let _g = spawn_guard();
    write_file(&dir.join("basins.h5"), false, &prov, "newton", |out| {
        let g = out.group("basins")?;
        g.coord("x", &c, "1", "Re z0")?;
        g.coord("y", &c, "1", "Im z0")?;
        g.var("root", &["y", "x"], &roots, "1", "root reached")?;
        g.var("re", &["y", "x"], &roots.mapv(f64::from), "1", "float copy")?;
        g.var("row", &["x"], c.as_slice(), "1", "a 1-D dataset")?;
        g.var(
            "one",
            &["y", "x"],
            &Array2::<i32>::zeros((n, n)),
            "1",
            "one label",
        )?;
        Ok(())
    })
    .unwrap();
    roots
}

fn close(a: &Value, b: f64, what: &str) {
    let a = a.as_f64().unwrap_or_else(|| panic!("{what} missing"));
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

/// The JSON set against the library's measures of the same grid.
fn same_as_library(s: &Value, m: &Measures) {
    let b = m.boundary.as_ref().unwrap();
    let j = &s["boundary_dimension"];
    close(&j["dimension"], b.dimension, "D");
    close(&j["ci"][0], b.ci.0, "D ci low");
    close(&j["ci"][1], b.ci.1, "D ci high");
    // JSON keeps 17 digits; serde_json reads them back to within an ulp.
    let counts = j["box_counts"].as_array().unwrap();
    assert_eq!(counts.len(), b.counts.len());
    for (c, n) in counts.iter().zip(&b.counts) {
        close(c, *n, "box count");
    }
    let u = m.uncertainty.as_ref().unwrap();
    let j = &s["uncertainty_exponent"];
    close(&j["alpha"], u.alpha, "α");
    close(&j["ci"][0], u.ci.0, "α ci low");
    close(&j["dimension"], u.dimension, "2 − α");
    for (j, e) in s["basin_entropy"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&m.entropy)
    {
        assert_eq!(j["eps_px"].as_u64().unwrap() as usize, e.eps);
        close(&j["sb"], e.sb, "S_b");
        close(&j["sbb"], e.sbb, "S_bb");
        close(&j["sbb_ci"][1], e.sbb_ci.1, "S_bb ci high");
    }
}

#[test]
fn newton_basins_from_any_dataset_match_the_library_and_the_published_values() {
    let dir = tempfile::tempdir().unwrap();
    let roots = write_inputs(dir.path(), 800);
    let (code, out, err) = run(
        &[
            "measure",
            "--labels",
            "basins.h5:/basins/root",
            "--json",
            "-o",
            "m.h5",
            "--plot",
            "m.png",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.trim_end().ends_with(")") && err.contains("wrote m.h5, m.png"),
        "{err}"
    );
    let v = json(&out);
    let s = &v["sets"][0];
    let grid = LabelGrid::from_array(&roots).unwrap();
    let m = measure(&grid, &MeasureOptions::default()).unwrap();
    same_as_library(s, &m);
    // Published: D ≈ 1.42, α ≈ 0.58 (accept 0.55 … 0.65); Wada.
    let d = s["boundary_dimension"]["dimension"].as_f64().unwrap();
    let a = s["uncertainty_exponent"]["alpha"].as_f64().unwrap();
    assert!((d - 1.42).abs() < 0.1, "D = {d}");
    assert!((0.55..=0.65).contains(&a), "α = {a}");
    assert_eq!(s["wada"]["wada"], Value::Bool(true), "{}", s["wada"]);
    assert_eq!(s["wada"]["labels"], 3);
    // The extent comes from the dimension scales.
    let e: Vec<f64> = s["extent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for (got, want) in e.iter().zip([-1.0, 1.0, -1.0, 1.0]) {
        assert!((got - want).abs() < 1e-12, "extent {e:?}");
    }
    // The HDF5 group holds the same numbers, with named dimensions.
    let f = hdf5::File::open(dir.path().join("m.h5")).unwrap();
    let g = f.group("measure/set_1/boundary_dimension").unwrap();
    let dim: f64 = g.attr("dimension").unwrap().read_scalar().unwrap();
    assert_eq!(dim, m.boundary.as_ref().unwrap().dimension);
    let n: Vec<f64> = g.dataset("box_count").unwrap().read_raw().unwrap();
    assert_eq!(n, m.boundary.as_ref().unwrap().counts);
    let phys: Vec<f64> = g
        .dataset("box_size_physical_x")
        .unwrap()
        .read_raw()
        .unwrap();
    // The smallest box at 800²: the largest power of two ≤ 800/128, 4 px (of 2/800 each).
    assert_eq!(m.boundary.as_ref().unwrap().sizes[0], 4);
    assert!((phys[0] - 4.0 * 2.0 / 800.0).abs() < 1e-12, "{phys:?}");
    let u = f.group("measure/set_1/uncertainty_exponent").unwrap();
    let fr: Vec<f64> = u.dataset("uncertain_fraction").unwrap().read_raw().unwrap();
    assert_eq!(fr, m.uncertainty.as_ref().unwrap().fraction);
    let w: Vec<f64> = f
        .dataset("measure/set_1/wada/wada_fraction")
        .unwrap()
        .read_raw()
        .unwrap();
    assert_eq!(w, m.wada.as_ref().unwrap().fraction);
    let sbb: Vec<f64> = f
        .dataset("measure/set_1/basin_entropy/sbb")
        .unwrap()
        .read_raw()
        .unwrap();
    assert_eq!(sbb, m.entropy.iter().map(|e| e.sbb).collect::<Vec<_>>());
    assert!(std::fs::metadata(dir.path().join("m.png")).unwrap().len() > 10_000);
    // One thread gives the same numbers.
    let (code, out1, err) = run(
        &[
            "measure",
            "--labels",
            "basins.h5:/basins/root",
            "--json",
            "--threads",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out1)["sets"], v["sets"]);
}

#[test]
fn a_flip_map_thresholded_at_two_times_matches_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        &[
            "map",
            "--resolution",
            "128",
            "--t-end",
            "4",
            "-o",
            "flip.h5",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(
        &[
            "measure",
            "flip.h5",
            "--flip-before",
            "2,4",
            "--json",
            "-o",
            "m.h5",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["sets"].as_array().unwrap().len(), 2);
    // Threshold the file's flip steps here, independently of the CLI.
    let f = hdf5::File::open(dir.path().join("flip.h5")).unwrap();
    let k: Array2<i32> = f.dataset("map/flip_step").unwrap().read_2d().unwrap();
    let dt: f64 = f
        .group("map")
        .unwrap()
        .attr("dt")
        .unwrap()
        .read_scalar()
        .unwrap();
    for (i, t) in [2.0, 4.0].into_iter().enumerate() {
        let labels = k.mapv(|s| i32::from(s > 0 && f64::from(s) * dt <= t + 1e-9));
        let m = measure(
            &LabelGrid::from_array(&labels).unwrap(),
            &MeasureOptions::default(),
        )
        .unwrap();
        let s = &v["sets"][i];
        same_as_library(s, &m);
        assert!(s["wada_skipped"].is_string(), "two labels: no Wada test");
        let flipped = labels.iter().filter(|&&l| l == 1).count() as u64;
        assert_eq!(s["labels"][1]["pixels"].as_u64().unwrap(), flipped);
    }
    let g = f.group("map").unwrap();
    let window: Vec<f64> = g.attr("window").unwrap().read_raw().unwrap();
    assert_eq!(v["sets"][0]["extent"], serde_json::json!(window));
}

#[test]
fn bad_input_exits_2_with_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), 128);
    let cases: &[(&[&str], &str)] = &[
        (&["--labels", "basins.h5:/basins/re"], "floating-point"),
        (&["--labels", "basins.h5:/basins/row"], "1-D"),
        (&["--labels", "basins.h5:/basins/one"], "1 distinct label"),
        (
            &["--labels", "basins.h5:/basins/missing"],
            "no dataset /basins/missing",
        ),
        (
            &["--labels", "basins.h5:/basins/root", "--max-eps", "40"],
            "--max-eps",
        ),
        (
            &["--labels", "basins.h5:/basins/root", "--entropy-eps", "50"],
            "--entropy-eps",
        ),
        (&["--labels", "nothere.h5:/a"], "--labels"),
        (&["--labels", "basins.h5"], "--labels"),
        (
            &["--labels", "basins.h5:/basins/root", "--extent", "0,1,2"],
            "--extent",
        ),
        (
            &["--labels", "basins.h5:/basins/root", "--what", "volume"],
            "--what",
        ),
        (&["basins.h5"], "not a pendula map"),
    ];
    for (args, needle) in cases {
        let mut a = vec!["measure"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-o", "out.h5", "--plot", "out.png", "--json"]);
        let (code, out, err) = run(&a, dir.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: not one line: {err}"
        );
        assert!(
            err.contains(needle),
            "{args:?}: expected `{needle}` in {err}"
        );
        assert!(out.is_empty(), "{args:?}: printed {out}");
        assert!(!dir.path().join("out.h5").exists() && !dir.path().join("out.png").exists());
    }
    // A two-label map asked for the Wada test, and a threshold beyond t_max.
    let (code, _, err) = run(
        &["map", "--resolution", "64", "--t-end", "2", "-o", "flip.h5"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    for (args, needle) in [
        (&["--what", "wada"][..], "--what wada"),
        (&["--flip-before", "3"][..], "--flip-before"),
        (&["--variable", "lyapunov"][..], "--variable"),
    ] {
        let mut a = vec!["measure", "flip.h5"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-o", "out.h5"]);
        let (code, _, err) = run(&a, dir.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(needle),
            "{args:?}: expected `{needle}` in {err}"
        );
        assert!(!dir.path().join("out.h5").exists());
    }
}

const SPEC: &str = "kind = \"measure\"\n[model]\npreset = \"double\"\n[integrator]\nmethod = \"rk4\"\ndt = 0.01\n[map]\nkind = \"flip-time\"\nresolution = 128\nt_end = 4.0\n[measure]\nflip_before = [2.0, 4.0]\nmap_file = \"map.h5\"\n[output]\nfile = \"m.h5\"\nplot = \"m.png\"\n";

#[test]
fn a_measure_spec_computes_its_map_and_measures_it_as_the_command_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), SPEC).unwrap();
    let (code, out, err) = run(&["run", "s.toml", "--json"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("m.h5") && err.contains("m.png") && err.contains("map.h5"),
        "{err}"
    );
    let spec_run = json(&out);
    let (code, out, err) = run(
        &["measure", "map.h5", "--flip-before", "2,4", "--json"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["sets"], spec_run["sets"]);
    // A rerun reuses the complete map of the same spec (not rewritten): the same measures.
    let stamp = |p: &str| {
        std::fs::metadata(dir.path().join(p))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = stamp("map.h5");
    std::fs::remove_file(dir.path().join("m.h5")).unwrap();
    std::fs::remove_file(dir.path().join("m.png")).unwrap();
    let (code, out, err) = run(&["run", "s.toml", "--json"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["sets"], spec_run["sets"]);
    assert_eq!(stamp("map.h5"), before, "the map was recomputed");
    // An existing result is refused before any work.
    let (code, _, err) = run(&["run", "s.toml"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("output.file") && err.contains("exists"),
        "{err}"
    );
    // Bad fields are named, and nothing is written.
    for (from, to, field) in [
        (
            "flip_before = [2.0, 4.0]",
            "flip_before = [2.0, 5.0]",
            "measure.flip_before[2]",
        ),
        (
            "flip_before = [2.0, 4.0]",
            "max_eps = 40",
            "measure.max_eps",
        ),
        (
            "flip_before = [2.0, 4.0]",
            "what = \"volume\"",
            "measure.what",
        ),
        (
            "map_file = \"map.h5\"",
            "map_file = \"m.h5\"",
            "measure.map_file",
        ),
    ] {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("s.toml"), SPEC.replace(from, to)).unwrap();
        let (code, _, err) = run(&["run", "s.toml"], d.path());
        assert_eq!(code, 2, "{to}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(field), "{to}: expected {field} in {err}");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "{to}: wrote files"
        );
    }
}

/// The README's table of the flip boundary's measures is what the shipped analysis prints
/// today (the 1024² map and its measures: about 5 s on 2 cores).
#[test]
fn the_readme_quotes_the_shipped_flip_dimension_analysis() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let spec = root.join("analyses/double-pendulum-flip-dimension.toml");
    let t: toml::Table = std::fs::read_to_string(&spec).unwrap().parse().unwrap();
    assert_eq!(t["map"]["resolution"].as_integer(), Some(1024));
    assert_eq!(t["map"]["t_end"].as_float(), Some(20.0));
    assert!(readme.contains("1024 × 1024 grid over [−π, π)², RK4, dt = 0.01 s, t_max = 20 s"));
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        &[
            "run",
            spec.to_str().unwrap(),
            "--json",
            "-o",
            "m.h5",
            "--plot",
            "m.png",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let f = |x: &Value| format!("{:.3}", x.as_f64().unwrap());
    for (s, t) in v["sets"].as_array().unwrap().iter().zip([5, 10, 20]) {
        let b = &s["boundary_dimension"];
        let u = &s["uncertainty_exponent"];
        let e = s["basin_entropy"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["eps_px"] == 5)
            .unwrap();
        let row = format!(
            "| T = {t} s | {} [{}, {}] | {} [{}, {}] | {} | {} [{}, {}] |",
            f(&b["dimension"]),
            f(&b["ci"][0]),
            f(&b["ci"][1]),
            f(&u["alpha"]),
            f(&u["ci"][0]),
            f(&u["ci"][1]),
            f(&u["dimension"]),
            f(&e["sbb"]),
            f(&e["sbb_ci"][0]),
            f(&e["sbb_ci"][1]),
        );
        assert!(readme.contains(&row), "the README no longer shows: {row}");
    }
}

#[test]
fn measure_files_open_in_h5py_and_xarray() {
    if !python::readers_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), 256);
    let (code, _, err) = run(
        &[
            "measure",
            "--labels",
            "basins.h5:/basins/root",
            "-o",
            "m.h5",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    for g in [
        "",
        "/boundary_dimension",
        "/uncertainty_exponent",
        "/basin_entropy",
        "/wada",
    ] {
        // Python is a child too: forked while another test writes, it would inherit that lock.
        let _g = spawn_guard();
        python::check_h5(&dir.path().join("m.h5"), &format!("measure/set_1{g}"));
    }
}

/// Each `--what` computes only its measure and draws its own figure; `--extent` overrides the
/// dimension scales.
#[test]
fn each_what_measures_only_itself_and_draws_its_figure() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path(), 256);
    let keys = [
        "boundary_dimension",
        "uncertainty_exponent",
        "basin_entropy",
        "wada",
    ];
    for (what, key) in [
        "boundary-dimension",
        "uncertainty-exponent",
        "basin-entropy",
        "wada",
    ]
    .into_iter()
    .zip(keys)
    {
        let png = format!("{what}.svg");
        let (code, out, err) = run(
            &[
                "measure",
                "--labels",
                "basins.h5:/basins/root",
                "--what",
                what,
                "--json",
                "--plot",
                &png,
                "--extent",
                "-2,2,-1,1",
            ],
            dir.path(),
        );
        assert_eq!(code, 0, "{what}: {err}");
        let s = &json(&out)["sets"][0];
        for k in keys {
            assert_eq!(s.get(k).is_some(), k == key, "{what}: {k} in {s}");
        }
        assert_eq!(s["extent"], serde_json::json!([-2.0, 2.0, -1.0, 1.0]));
        let svg = std::fs::read_to_string(dir.path().join(&png)).unwrap();
        assert!(
            svg.contains("<svg") && svg.len() > 5_000,
            "{what}: empty figure"
        );
    }
}

/// The driven damped pendulum of `analyses/damped-driven-basin-entropy.toml` at F = 1.66 N·m,
/// on a 32² grid: a final-state map whose basins are told apart by attractor.
const BASINS: &str = "kind = \"map\"\n[model]\ngravity = 1.0\n[[model.link]]\nlength = 1.0\nmass = 1.0\n[model.damping]\nabsolute = 0.2\n[model.drive.torque]\namplitude = 1.66\nfrequency = 1.0\n[integrator]\nmethod = \"rk4\"\ndt = 0.06283185307179587\n[map]\nkind = \"final-state\"\nresolution = 32\nx = \"theta1\"\ny = \"omega1\"\nwindow = [-3.14159265, 3.14159265, -3.0, 3.0]\nt_end = 400.0\nangle_tol = 0.001\nomega_tol = 0.001\nmax_period = 8\nrepeats = 3\n[output]\nfile = \"basins.h5\"\n";

#[test]
fn attractor_labels_split_what_class_alone_merges() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("basins.toml"), BASINS).unwrap();
    let (code, _, err) = run(&["run", "basins.toml"], dir.path());
    assert_eq!(code, 0, "{err}");
    let measured = |variable: &str| {
        let (code, out, err) = run(
            &[
                "measure",
                "basins.h5",
                "--variable",
                variable,
                "--what",
                "basin-entropy",
                "--entropy-eps",
                "2,4",
                "--json",
            ],
            dir.path(),
        );
        assert_eq!(code, 0, "{err}");
        json(&out)["sets"][0].clone()
    };
    let attractor = measured("attractor");
    let class = measured("class");
    // The labels from the file here: (class, per link the net turns of an equilibrium or
    // period × rotation number of a periodic orbit, nothing for unsettled/diverged).
    let f = hdf5::File::open(dir.path().join("basins.h5")).unwrap();
    let g = f.group("map").unwrap();
    let cls: Vec<u8> = g.dataset("class").unwrap().read_raw().unwrap();
    let turns: Vec<f64> = g.dataset("turns").unwrap().read_raw().unwrap();
    let rotation: Vec<f64> = g.dataset("rotation").unwrap().read_raw().unwrap();
    let keys: std::collections::BTreeSet<(u8, Option<i64>)> = cls
        .iter()
        .enumerate()
        .map(|(p, &c)| match c {
            0 | 254 => (c, None),
            c if c >= 100 => (c, Some((rotation[p] * f64::from(c - 100)).round() as i64)),
            c => (c, Some(turns[p].round() as i64)),
        })
        .collect();
    let classes: std::collections::BTreeSet<u8> = cls.iter().copied().collect();
    let n = |s: &Value| s["labels"].as_array().unwrap().len();
    assert_eq!(n(&attractor), keys.len(), "{keys:?}");
    assert_eq!(n(&class), classes.len());
    // Coexisting period-1 orbits rotating left, right, or librating share a class.
    assert!(keys.len() > classes.len(), "{keys:?} vs {classes:?}");
    let source = attractor["source"].as_str().unwrap();
    assert!(source.starts_with("attractor of basins.h5: (class, turns or rotation per link) numbered in sorted order: 0 = "), "{source}");
    // Counts per label add up to the grid.
    let pixels: u64 = attractor["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["pixels"].as_u64().unwrap())
        .sum();
    assert_eq!(pixels, 32 * 32);
}
