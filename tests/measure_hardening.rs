//! `pendula measure` against hostile sizes, signals and scales (issue 37): every size is checked
//! against the memory budget before it is allocated (declared dataset shapes, shifts, ε lists,
//! radii, samples, links), overflow-safe; a stop signal ends every mode with exit 1 and an
//! "interrupted" line, writing nothing; dimension scales must be finite, strictly monotonic and
//! evenly spaced; a measure spec (and its sweep) is checked whole, in linear time, before its
//! first map. Every refusal is one line naming the flag, exit 2, nothing written.

use ndarray::Array2;
use pendula::store::{write_file, Provenance};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/running.rs"]
mod running;
#[path = "common/spawn.rs"]
mod spawn;
use spawn::{run, spawn_guard};

/// Three labels in bands that wiggle: a boundary everywhere, `[iy, ix]`.
fn bands(n: usize) -> Array2<i32> {
    Array2::from_shape_fn((n, n), |(iy, ix)| {
        let v = (ix as f64 * 0.37 + (iy as f64 * 0.21).cos() * 3.0).sin() * 1.5 + 1.5;
        (v as i32).rem_euclid(3)
    })
}

/// `grid.h5`: groups whose x scale is `bad` (y is linear).
fn write_grid(dir: &Path, n: usize) {
    let prov = Provenance::now("test", "");
    let lin: Vec<f64> = (0..n).map(|i| i as f64 / (n - 1) as f64).collect();
    let scales: [(&str, Vec<f64>); 5] = [
        ("good", lin.clone()),
        (
            "nonmonotonic",
            (0..n).map(|i| (i % (n / 2)) as f64).collect(),
        ),
        (
            "zero_end",
            (0..n)
                .map(|i| if i + 1 == n { 0.0 } else { lin[i] })
                .collect(),
        ),
        ("constant", vec![1.0; n]),
        (
            "logarithmic",
            (0..n)
                .map(|i| 10f64.powf(3.0 * i as f64 / (n - 1) as f64))
                .collect(),
        ),
    ];
    let labels = bands(n);
    let _g = spawn_guard();
    write_file(&dir.join("grid.h5"), false, &prov, "bands", |out| {
        for (name, x) in &scales {
            let g = out.group(name)?;
            g.coord("x", x, "1", "x")?;
            g.coord("y", &lin, "1", "y")?;
            g.var("labels", &["y", "x"], &labels, "1", "labels")?;
        }
        Ok(())
    })
    .unwrap();
    // The same labels with no dimension scales at all.
    let f = hdf5::File::create(dir.join("plain.h5")).unwrap();
    f.new_dataset_builder()
        .with_data(&labels)
        .create("g")
        .unwrap();
}

/// `huge.h5` (a few KB): an int32 dataset declaring 10⁶ × 10⁶ values, chunked, none written.
fn write_huge(dir: &Path) {
    let _g = spawn_guard();
    let f = hdf5::File::create(dir.join("huge.h5")).unwrap();
    f.new_dataset::<i32>()
        .chunk((64, 64))
        .shape((1_000_000, 1_000_000))
        .create("huge")
        .unwrap();
}

/// A refusal: exit 2, one line naming `flag`, within `secs`, and nothing in `dir` but `keep`.
fn refused(dir: &Path, args: &[&str], flag: &str, secs: u64, keep: &[&str]) -> String {
    let t = Instant::now();
    let (code, out, err) = run(args, dir);
    assert!(
        t.elapsed() < Duration::from_secs(secs),
        "{args:?} took {:?}",
        t.elapsed()
    );
    assert_eq!(code, 2, "{args:?}: {err}{out}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line: {err}"
    );
    assert!(err.contains(flag), "{args:?} names {flag}: {err}");
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    left.sort();
    assert!(left.is_empty(), "{args:?} left {left:?}");
    err
}

#[test]
fn every_size_is_checked_before_it_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_grid(d, 128);
    write_huge(d);
    let keep = ["grid.h5", "plain.h5", "huge.h5"];
    let e = refused(
        d,
        &["measure", "--labels", "huge.h5:/huge", "-o", "m.h5"],
        "--labels",
        20,
        &keep,
    );
    assert!(e.contains("1000000×1000000 pixels"), "{e}");
    let g = "plain.h5:/g";
    let cases: &[(&[&str], &str)] = &[
        (
            &["--shifts", "1000000000", "--max-memory", "100M"],
            "--shifts",
        ),
        (&["--shifts", "18446744073709551615"], "--shifts"),
        (&["--max-eps", "2305843009213693952"], "--max-eps"),
        (&["--max-eps", "18446744073709551615"], "--max-eps"),
        (&["--entropy-eps", "2305843009213693952"], "--entropy-eps"),
        (&["--entropy-eps", "2,3,2"], "--entropy-eps"),
        (&["--wada-radius", "9223372036854775808"], "--wada-radius"),
        (
            &["--wada-radius", "18446744073709551615", "--what", "wada"],
            "--wada-radius",
        ),
    ];
    for (extra, flag) in cases {
        let mut args = vec!["measure", "--labels", g, "-o", "m.h5"];
        args.extend_from_slice(extra);
        refused(d, &args, flag, 20, &keep);
    }
    // 10⁴ distinct box sides (an argument is at most 128 KB): refused against the grid at once, not measured one by one.
    let many: String = (2..10_002)
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(",");
    refused(
        d,
        &[
            "measure",
            "--labels",
            g,
            "--entropy-eps",
            &many,
            "-o",
            "m.h5",
        ],
        "--entropy-eps",
        20,
        &keep,
    );
    let chaotic: &[(&[&str], &str)] = &[
        (&["--samples", "1000000000000"], "--samples"),
        (&["--samples", "18446744073709551615"], "--samples"),
        (
            &["--samples", "2", "--preset", "chain", "--links", "100000"],
            "--links",
        ),
        (&["--samples", "2", "--dt", "1e-300"], "--dt"),
    ];
    for (extra, flag) in chaotic {
        let mut args = vec![
            "measure",
            "--chaotic-fraction",
            "--energies",
            "5",
            "-o",
            "c.h5",
        ];
        args.extend_from_slice(extra);
        refused(d, &args, flag, 20, &keep);
    }
}

#[test]
fn the_rejection_sampler_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let e = refused(
        dir.path(),
        &[
            "measure",
            "--chaotic-fraction",
            "--preset",
            "chain",
            "--links",
            "15",
            "--energies",
            "5",
            "--samples",
            "2",
            "-o",
            "c.h5",
        ],
        "--energies",
        60,
        &[],
    );
    assert!(e.contains("proposals"), "{e}");
}

#[test]
fn dimension_scales_must_be_linear_or_the_extent_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_grid(d, 128);
    for bad in ["nonmonotonic", "zero_end", "constant", "logarithmic"] {
        let ds = format!("grid.h5:/{bad}/labels");
        let e = refused(
            d,
            &["measure", "--labels", &ds, "-o", "m.h5"],
            "--labels",
            20,
            &["grid.h5", "plain.h5"],
        );
        assert!(e.contains(&format!("/{bad}/labels")), "{e}");
        assert!(e.contains("--extent"), "{e}");
        // The user's extent replaces the scales.
        let (code, _, err) = run(
            &[
                "measure",
                "--labels",
                &ds,
                "--extent",
                "0,1,0,1",
                "--what",
                "boundary-dimension",
                "--json",
            ],
            d,
        );
        assert_eq!(code, 0, "{err}");
    }
    let (code, out, err) = run(
        &[
            "measure",
            "--labels",
            "grid.h5:/good/labels",
            "--what",
            "boundary-dimension",
            "--json",
        ],
        d,
    );
    assert_eq!(code, 0, "{err}");
    let v = spawn::json(&out);
    let x0 = v["sets"][0]["extent"][0].as_f64().unwrap();
    assert!((x0 + 0.5 / 127.0).abs() < 1e-12, "{v}");
}

/// Runs `pendula ARGS` in `dir`, sends SIGINT once it has spent `after` of CPU time in its run
/// (however busy the machine), and returns (code, stderr, the CPU time from the signal to the
/// exit).
fn interrupt(dir: &Path, args: &[&str], after: Duration) -> (Option<i32>, String, Duration) {
    let mut child = {
        let _g = spawn_guard();
        Command::new(env!("CARGO_BIN_EXE_pendula"))
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    running::wait_running(&mut child, after, &format!("{args:?}"));
    let cpu = running::cpu_time(child.id());
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    // The bound of the callers (3 s) is on the CPU the stop takes, not on a busy machine's
    // wall time; 5 s here only ends a run that is not stopping.
    let what = format!("{args:?}");
    let (status, took) = running::wait_stopped(&mut child, cpu, Duration::from_secs(5), &what);
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    (status.code(), err, took)
}

#[test]
fn sigint_stops_every_mode_and_writes_only_partial_results() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_grid(d, 512);
    let runs: [&[&str]; 2] = [
        &[
            "measure",
            "--labels",
            "plain.h5:/g",
            "--shifts",
            "200000",
            "-o",
            "m.h5",
        ],
        &[
            "measure",
            "--chaotic-fraction",
            "--energies=-15",
            "--samples",
            "64",
            "--t-end",
            "100000",
            "-o",
            "m.h5",
        ],
    ];
    for (i, args) in runs.into_iter().enumerate() {
        let (code, err, took) = interrupt(d, args, Duration::from_secs(1));
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("interrupted"), "{args:?}: {err}");
        assert!(took < Duration::from_secs(3), "{args:?}: {took:?}");
        let left: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n != "grid.h5" && n != "plain.h5")
            .collect();
        if i == 0 {
            // A label measure has no partial result: nothing is written.
            assert!(left.is_empty(), "{args:?} left {left:?}");
        } else {
            // The chaotic fraction writes the shells it finished (none here), marked
            // incomplete, as every command writes its partial result; no `.partial` is left.
            assert_eq!(left, ["m.h5"], "{args:?} left {left:?}");
            let f = hdf5::File::open(d.join("m.h5")).unwrap();
            let complete: i8 = f
                .group("measure/chaotic_fraction")
                .unwrap()
                .attr("complete")
                .unwrap()
                .read_scalar()
                .unwrap();
            assert_eq!(complete, 0, "{args:?}");
            std::fs::remove_file(d.join("m.h5")).unwrap();
        }
    }
}

/// A flip-map measure spec of resolution `res` with `extra` in its [measure] table.
fn measure_spec(res: usize, extra: &str) -> String {
    format!(
        r#"kind = "measure"
[model]
preset = "double"
[integrator]
method = "rk4"
dt = 0.01
[map]
kind = "flip-time"
resolution = {res}
t_end = 2.0
[measure]
map_file = "m-map.h5"
{extra}
[output]
file = "m.h5"
"#
    )
}

#[test]
fn a_measure_spec_is_checked_whole_before_its_first_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = "[measure.sweep]\nparameter = \"model.gravity\"\nvalues = [9.0, 9.81]";
    for (res, extra, field) in [
        (32, sweep.to_string(), "map.resolution"),
        (32, String::new(), "map.resolution"),
        (
            100,
            format!("what = \"uncertainty-exponent\"\n{sweep}"),
            "measure.max_eps",
        ),
        (
            128,
            format!("flip_before = [1.0, 2.0, 1.0]\n{sweep}"),
            "measure.flip_before[3]",
        ),
    ] {
        std::fs::write(d.join("s.toml"), measure_spec(res, &extra)).unwrap();
        refused(d, &["run", "s.toml"], field, 20, &["s.toml"]);
    }
    // 10⁵ values are checked in linear time: the last one, a repeat, is found in seconds.
    let mut values: Vec<String> = (0..100_000)
        .map(|i| format!("{}", 9.0 + i as f64 * 1e-5))
        .collect();
    values.push("9.0".into());
    let extra = format!(
        "[measure.sweep]\nparameter = \"model.gravity\"\nvalues = [{}]",
        values.join(", ")
    );
    std::fs::write(d.join("s.toml"), measure_spec(128, &extra)).unwrap();
    let e = refused(
        d,
        &["run", "s.toml"],
        "measure.sweep.values[100001]",
        30,
        &["s.toml"],
    );
    assert!(e.contains("given twice"), "{e}");
}
