//! `[measure.sweep]`: a sweep's points equal the single measure specs at each value (identical
//! numbers), a rerun after an interruption reuses the finished maps and gives the same table,
//! and a bad sweep exits 2 naming its field, writing nothing.

use serde_json::Value;
use std::path::Path;

#[path = "common/spawn.rs"]
mod spawn;
use spawn::{json, run};

/// A flip map of a double pendulum with link 2's mass `mass2` (link 1: 1 kg), measured;
/// `sweep` is appended verbatim.
fn spec(mass2: &str, sweep: &str, out: &str) -> String {
    format!(
        r#"kind = "measure"
title = "sweep"
[model]
gravity = 9.81
[[model.link]]
length = 1.0
mass = 1.0
[[model.link]]
length = 1.0
mass = {mass2}
[integrator]
method = "rk4"
dt = 0.01
[map]
kind = "flip-time"
resolution = 64
t_end = 5.0
[measure]
what = "all"
max_eps = 4
entropy_eps = [2, 4]
flip_before = [2.5, 5.0]
map_file = "{out}-map.h5"
{sweep}
[output]
file = "{out}.h5"
"#
    )
}

/// The measured sets without their `source` (it names the map file, which differs).
fn sets(v: &Value) -> Vec<Value> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.as_object_mut().unwrap().remove("source");
            s
        })
        .collect()
}

fn go(dir: &Path, name: &str, text: &str) -> Value {
    std::fs::write(dir.join(name), text).unwrap();
    let (code, out, err) = run(&["run", name, "--json"], dir);
    assert_eq!(code, 0, "{err}");
    json(&out)
}

const SWEEP: &str = "[measure.sweep]\nparameter = \"model.link[2].mass\"\nvalues = [0.5, 1.0, 2.0]";

#[test]
fn sweep_equals_single_runs_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = go(d, "sweep.toml", &spec("1.0", SWEEP, "sweep"));
    assert_eq!(sweep["sweep"]["parameter"], "model.link[2].mass");
    assert_eq!(sweep["sweep"]["units"], "kg");
    let points = sweep["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for (k, m) in ["0.5", "1.0", "2.0"].iter().enumerate() {
        let single = go(
            d,
            &format!("single{k}.toml"),
            &spec(m, "", &format!("single{k}")),
        );
        assert_eq!(points[k]["value"].as_f64(), m.parse().ok());
        assert_eq!(sets(&points[k]["sets"]), sets(&single["sets"]), "point {m}");
    }
    // Each point kept its own map; the mass ratio changes the map (else the test is empty).
    for k in 1..=3 {
        assert!(d.join(format!("sweep-map-{k:02}.h5")).exists());
    }
    assert_ne!(sets(&points[0]["sets"]), sets(&points[2]["sets"]));
    // Interrupted after two values: the third map is gone, the table was never written.
    std::fs::remove_file(d.join("sweep-map-03.h5")).unwrap();
    std::fs::remove_file(d.join("sweep.h5")).unwrap();
    let stamp = |k: usize| {
        std::fs::metadata(d.join(format!("sweep-map-{k:02}.h5")))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = (stamp(1), stamp(2));
    let again = go(d, "sweep.toml", &spec("1.0", SWEEP, "sweep"));
    assert_eq!(before, (stamp(1), stamp(2)), "finished maps are reused");
    for k in 0..3 {
        assert_eq!(
            sets(&again["points"][k]["sets"]),
            sets(&points[k]["sets"]),
            "point {k}"
        );
    }
    // HDF5: the sweep coordinate with units, every measure over (sweep, set).
    let f = hdf5::File::open(d.join("sweep.h5")).unwrap();
    let g = f.group("measure").unwrap();
    let x: Vec<f64> = g.dataset("sweep").unwrap().read_raw().unwrap();
    assert_eq!(x, vec![0.5, 1.0, 2.0]);
    let units: hdf5::types::VarLenUnicode = g
        .dataset("sweep")
        .unwrap()
        .attr("units")
        .unwrap()
        .read_scalar()
        .unwrap();
    assert_eq!(units.as_str(), "kg");
    let dim: ndarray::Array2<f64> = g.dataset("box_dimension").unwrap().read_2d().unwrap();
    let lo: ndarray::Array2<f64> = g.dataset("box_dimension_lo").unwrap().read_2d().unwrap();
    assert_eq!(dim.dim(), (3, 2));
    for k in 0..3 {
        for j in 0..2 {
            let b = &points[k]["sets"][j]["boundary_dimension"];
            assert!((dim[(k, j)] - b["dimension"].as_f64().unwrap()).abs() < 1e-12);
            assert!((lo[(k, j)] - b["ci"][0].as_f64().unwrap()).abs() < 1e-12);
        }
    }
    let sbb: ndarray::Array3<f64> = g.dataset("sbb").unwrap().read().unwrap();
    assert_eq!(sbb.dim(), (3, 2, 2));
    // JSON prints S_bb through its own float formatting: equal to 1e-12, not bit for bit.
    let want = points[2]["sets"][1]["basin_entropy"][1]["sbb"]
        .as_f64()
        .unwrap();
    assert!(
        (sbb[(2, 1, 1)] - want).abs() < 1e-12,
        "{} vs {want}",
        sbb[(2, 1, 1)]
    );
}

#[test]
fn bad_sweeps_exit_2_naming_the_field() {
    for (sweep, field) in [
        (
            "[measure.sweep]\nparameter = \"model.link[2].colour\"\nvalues = [1.0]",
            "measure.sweep.parameter",
        ),
        (
            "[measure.sweep]\nparameter = \"model.drive.torque.amplitude\"\nvalues = [1.0]",
            "measure.sweep.parameter",
        ),
        (
            "[measure.sweep]\nparameter = \"model.link[2].mass\"\nvalues = []",
            "measure.sweep.values",
        ),
        (
            "[measure.sweep]\nparameter = \"model.link[2].mass\"\nvalues = [1.0, nan]",
            "measure.sweep.values[2]",
        ),
        (
            "[measure.sweep]\nparameter = \"model.link[2].mass\"\nvalues = [1.0, -1.0]",
            "measure.sweep.values[2]",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("s.toml"), spec("1.0", sweep, "out/s")).unwrap();
        let (code, out, err) = run(&["run", "s.toml"], d);
        assert_eq!(code, 2, "{sweep}: {out}{err}");
        assert!(err.contains(field), "{sweep}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!d.join("out").exists(), "{sweep}: wrote something");
    }
}

/// A measure spec's top-level `[sweep]` is its `[measure.sweep]`: the same points, numbers and
/// files; a second field or a folder is refused, naming the field.
#[test]
fn top_level_sweep_is_the_measure_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let inner = go(d, "inner.toml", &spec("1.0", SWEEP, "inner"));
    let top = go(
        d,
        "top.toml",
        &spec(
            "1.0",
            "[sweep]\nparameter = \"model.link[2].mass\"\nvalues = [0.5, 1.0, 2.0]",
            "top",
        ),
    );
    for k in 0..3 {
        assert_eq!(
            sets(&top["points"][k]["sets"]),
            sets(&inner["points"][k]["sets"])
        );
    }
    assert!(d.join("top-map-02.h5").exists());
    for (extra, field) in [
        (
            "[sweep]\nparameter = \"model.link[2].mass\"\nvalues = [1.0]\ndirectory = \"x\"",
            "sweep.directory",
        ),
        (
            "[[sweep.axis]]\nparameter = \"model.link[2].mass\"\nvalues = [1.0]\n[[sweep.axis]]\nparameter = \"model.gravity\"\nvalues = [1.0]",
            "sweep.axis",
        ),
    ] {
        std::fs::write(d.join("bad.toml"), spec("1.0", extra, "bad")).unwrap();
        let (code, _, err) = run(&["run", "bad.toml"], d);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(field), "{err}");
    }
}
