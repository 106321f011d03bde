//! `pendula measure --chaotic-fraction`: the binary's JSON rows and HDF5 group hold exactly the
//! counts the library's `chaotic_fraction` gives on the same chain and options, for any thread
//! count, and bad input exits 2 with one line naming the flag, writing nothing.

use pendula::analysis::measure::chaotic::{chaotic_fraction, ChaoticOptions, ShellFraction};
use pendula::analysis::orbit::AlignmentOptions;
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use serde_json::Value;

#[path = "common/python.rs"]
mod python;
#[path = "common/spawn.rs"]
mod spawn;
use spawn::{json, run, spawn_guard};

/// Energies from the lowest (near the hanging rest, V_min = −3g ≈ −29.4 J) to above the
/// inverted rest (+29.4 J), with short runs so the test takes about a second.
const ENERGIES: &str = "-27,-10,5,35";
const ARGS: &[&str] = &[
    "measure",
    "--chaotic-fraction",
    "--energies",
    ENERGIES,
    "--samples",
    "24",
    "--seed",
    "11",
    "--t-end",
    "30",
    "--dt",
    "0.01",
    "--tau",
    "0.1",
];

/// The library's answer for ARGS, built independently of the CLI: the equal double pendulum
/// (preset double = two 1 m, 1 kg point masses) and the documented ChaoticOptions fields.
fn library() -> Vec<ShellFraction> {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let opts = ChaoticOptions {
        method: Method::Rk4 { dt: 0.01 },
        indicators: AlignmentOptions {
            tau: 0.1,
            time: 30.0,
            max_history: 16,
            ..AlignmentOptions::default()
        },
    };
    chaotic_fraction(&chain, &[-27.0, -10.0, 5.0, 35.0], 24, 11, &opts).unwrap()
}

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    ARGS.iter().chain(extra).copied().collect()
}

fn close(a: f64, b: f64) -> bool {
    // JSON carries the shortest decimal; its parse may differ from the f64 by one ulp.
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-15 * a.abs().max(1.0)
}

fn assert_rows(rows: &Value, want: &[ShellFraction]) {
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), want.len());
    for (r, w) in rows.iter().zip(want) {
        assert_eq!(r["energy"].as_f64().unwrap(), w.energy);
        for (k, v) in [
            ("chaotic", w.chaotic),
            ("regular", w.regular),
            ("undecided", w.undecided),
            ("failed", w.failed),
        ] {
            assert_eq!(
                r[k].as_u64().unwrap() as usize,
                v,
                "{k} at E = {}",
                w.energy
            );
        }
        assert_eq!(r["proposals"].as_u64().unwrap(), w.proposals);
        assert_eq!(
            r["chaotic"].as_u64().unwrap()
                + r["regular"].as_u64().unwrap()
                + r["undecided"].as_u64().unwrap(),
            24
        );
        let f = r["fraction"].as_f64().unwrap_or(f64::NAN);
        assert!(close(f, w.fraction), "{f} vs {}", w.fraction);
        let lo = r["wilson"][0].as_f64().unwrap();
        let hi = r["wilson"][1].as_f64().unwrap();
        assert!(close(lo, w.wilson.0) && close(hi, w.wilson.1), "{r}");
    }
}

#[test]
fn json_rows_and_hdf5_equal_the_library_for_any_thread_count() {
    let want = library();
    // The oracle is not degenerate: the lowest shell has verdicts, the highest chaotic starts.
    assert!(want[0].chaotic + want[0].regular > 0, "{want:?}");
    assert!(want[3].chaotic > 0, "{want:?}");
    let dir = tempfile::tempdir().unwrap();
    let (code, out1, err) = run(
        &with(&[
            "--threads",
            "1",
            "--json",
            "-o",
            "cf.h5",
            "--plot",
            "cf.svg",
        ]),
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let j1 = json(&out1);
    assert_eq!(j1["what"], "chaotic-fraction");
    assert_eq!(j1["t_end"].as_f64(), Some(30.0));
    assert_eq!(j1["samples"].as_u64(), Some(24));
    assert_eq!(j1["seed"].as_u64(), Some(11));
    assert_rows(&j1["rows"], &want);
    let last = err.trim_end().lines().last().unwrap();
    assert!(
        last.contains("cf.h5") && last.contains("cf.svg"),
        "closing line: {err}"
    );
    let (code, out2, err) = run(&with(&["--threads", "2", "--json"]), dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out2)["rows"], j1["rows"], "threads 1 vs 2");

    // The HDF5 group: the same counts over the dimension `energy`, the run as attributes.
    let f = {
        let _g = spawn_guard();
        hdf5::File::open(dir.path().join("cf.h5")).unwrap()
    };
    let g = f.group("measure/chaotic_fraction").unwrap();
    let e: Vec<f64> = g.dataset("energy").unwrap().read_raw().unwrap();
    assert_eq!(e, vec![-27.0, -10.0, 5.0, 35.0]);
    let ints = |n: &str| -> Vec<usize> {
        let v: Vec<i64> = g.dataset(n).unwrap().read_raw().unwrap();
        v.into_iter().map(|x| x as usize).collect()
    };
    assert_eq!(
        ints("chaotic"),
        want.iter().map(|w| w.chaotic).collect::<Vec<_>>()
    );
    assert_eq!(
        ints("regular"),
        want.iter().map(|w| w.regular).collect::<Vec<_>>()
    );
    assert_eq!(
        ints("undecided"),
        want.iter().map(|w| w.undecided).collect::<Vec<_>>()
    );
    assert_eq!(
        ints("failed"),
        want.iter().map(|w| w.failed).collect::<Vec<_>>()
    );
    let reals = |n: &str| -> Vec<f64> { g.dataset(n).unwrap().read_raw().unwrap() };
    for (k, w) in want.iter().enumerate() {
        assert!(reals("fraction")[k].to_bits() == w.fraction.to_bits());
        assert_eq!(reals("wilson_lo")[k], w.wilson.0);
        assert_eq!(reals("wilson_hi")[k], w.wilson.1);
    }
    let attr = |n: &str| -> f64 { g.attr(n).unwrap().read_scalar().unwrap() };
    assert_eq!((attr("t_end"), attr("dt"), attr("tau")), (30.0, 0.01, 0.1));
    assert_eq!((attr("sali_chaotic"), attr("sali_regular")), (1e-8, 1e-4));
    let samples: i64 = g.attr("samples").unwrap().read_scalar().unwrap();
    assert_eq!(samples, 24);
    drop(f);
    let svg = std::fs::read_to_string(dir.path().join("cf.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.len() > 5_000, "empty figure");

    // Without --json: the text table, one row per energy with the same counts.
    let (code, text, err) = run(ARGS, dir.path());
    assert_eq!(code, 0, "{err}");
    for w in &want {
        let row = format!(
            "{:>10}  {:>7}  {:>7}  {:>9}",
            w.energy, w.chaotic, w.regular, w.undecided
        );
        assert!(text.contains(&row), "no row `{row}` in\n{text}");
    }
}

#[test]
fn chaotic_fraction_file_opens_in_h5py_and_xarray() {
    if !python::readers_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        &[
            "measure",
            "--chaotic-fraction",
            "--energies",
            "-10,5",
            "--samples",
            "4",
            "--t-end",
            "5",
            "-o",
            "cf.h5",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    // Python is a child too: forked while another test writes, it would inherit that lock.
    let repr = {
        let _g = spawn_guard();
        python::check_h5(&dir.path().join("cf.h5"), "measure/chaotic_fraction")
    };
    assert!(repr.contains("energy"), "{repr}");
}

#[test]
fn bad_input_exits_2_naming_the_flag_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("damped.toml"),
        "preset = \"double\"\n[damping]\nabsolute = 0.1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("driven.toml"),
        "preset = \"double\"\n[drive]\ntorque = { amplitude = 1.0, frequency = 2.0 }\n",
    )
    .unwrap();
    let base = |energies: &'static str, samples: &'static str| {
        vec![
            "measure",
            "--chaotic-fraction",
            "--energies",
            energies,
            "--samples",
            samples,
            "--t-end",
            "2",
            "-o",
            "out.h5",
            "--plot",
            "out.png",
        ]
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // V_min of the equal double pendulum is −3g = −29.43 J.
        (base("-10,-30", "4"), "--energies"),
        (base("-29.43", "4"), "--energies"),
        (base("5", "0"), "--samples"),
        (
            [base("5", "4"), vec!["--model", "damped.toml"]].concat(),
            "--model",
        ),
        (
            [base("5", "4"), vec!["--model", "driven.toml"]].concat(),
            "--model",
        ),
        (
            [base("5", "4"), vec!["--labels", "x.h5:/a"]].concat(),
            "--labels",
        ),
        ([base("5", "4"), vec!["--tau", "0.013"]].concat(), "--tau"),
        (
            [base("5", "4"), vec!["--preset", "simple"]].concat(),
            "--energies",
        ),
        (
            vec![
                "measure",
                "--labels",
                "x.h5:/a",
                "--energies",
                "5",
                "-o",
                "out.h5",
            ],
            "--energies",
        ),
    ];
    for (args, flag) in cases {
        let (code, out, err) = run(&args, dir.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?} should name {flag}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(!dir.path().join("out.h5").exists(), "{args:?} wrote out.h5");
        assert!(
            !dir.path().join("out.png").exists(),
            "{args:?} wrote out.png"
        );
    }
}

/// A shell without verdicts (fraction NaN) keeps its (0, 1) bar; the figure still draws, also
/// when no shell has a verdict.
#[test]
fn figure_draws_shells_without_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = [
        ShellFraction::from_counts(-10.0, 0, 0, 5),
        ShellFraction::from_counts(5.0, 7, 1, 0),
    ];
    assert!(mixed[0].fraction.is_nan());
    for (name, rows) in [("mixed.svg", &mixed[..]), ("none.svg", &mixed[..1])] {
        let fig = pendula::plot::MeasureFigure::chaotic_fraction("test", rows);
        let path = dir.path().join(name);
        pendula::plot::draw_measure(&fig, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            svg.contains("<svg") && svg.len() > 3_000,
            "{name}: empty figure"
        );
    }
}
