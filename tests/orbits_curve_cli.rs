//! `pendula orbits curve` end to end (issue 50): the hanging pendulum on a vertically vibrated
//! pivot, its branch in the pivot frequency Ω, the first tongue's two period-doubling edges
//! continued in (Ω, a) and checked against Mathieu's characteristic values (the Hill matrices
//! of tests/common/mathieu.rs, computed here on their own); the curve the same whichever way
//! and step it is walked with, from a `continue` file as from its own branch, and bit for bit
//! with 1 or 2 threads; bad specs refused naming their field.

#[path = "common/mathieu.rs"]
mod mathieu;
#[path = "common/spawn.rs"]
mod spawn;

use std::path::Path;

/// g, l of the spec's pendulum.
const G: f64 = 9.81;

/// The spec: the hanging point pendulum (l = 1 m) on a pivot s(t) = a cos Ωt, undamped, at
/// Ω = 5.5 rad/s, a = `a0`; its branch over Ω ∈ [5, 8] (the first tongue, Ω ≈ 2ω₀ = 6.26),
/// the curves over a ∈ [0.04, 0.15]. `extra`: more `[orbits]` lines.
fn spec(a0: f64, extra: &str) -> String {
    format!(
        "kind = \"orbits\"\ntitle = \"first tongue\"\n[model]\npreset = \"simple\"\ngravity = {G}\nlength = 1.0\nmass = 1.0\n\
[model.drive.pivot]\ny_amplitude = {a0}\nfrequency = 5.5\n[initial]\ntheta = [0.0]\n\
[integrator]\nrtol = 1e-13\natol = 1e-13\n\
[orbits]\naction = \"curve\"\nparameter = \"model.drive.pivot.frequency\"\nrange = [5.0, 8.0]\n\
parameter2 = \"model.drive.pivot.y_amplitude\"\nrange2 = [0.04, 0.15]\nnewton_tolerance = 1e-11\n\
points = 400\n{extra}"
    )
}

/// Runs `pendula run SPEC -o OUT ARGS` in `dir` (the spec written as `name`.toml, the file
/// `name`.h5), which must succeed; its JSON.
fn run(dir: &Path, name: &str, text: &str, args: &[&str]) -> serde_json::Value {
    std::fs::write(dir.join(format!("{name}.toml")), text).unwrap();
    let (toml, h5) = (format!("{name}.toml"), format!("{name}.h5"));
    let mut all = vec!["run", toml.as_str(), "-o", h5.as_str(), "--json"];
    all.extend_from_slice(args);
    let (code, out, err) = spawn::run(&all, dir);
    assert_eq!(code, 0, "{name}: {err}");
    spawn::json(&out)
}

/// One curve of a file: (Ω, a) per point.
fn curve(dir: &Path, name: &str, k: usize) -> Vec<[f64; 2]> {
    let _g = spawn::spawn_guard();
    let f = hdf5::File::open(dir.join(format!("{name}.h5"))).unwrap();
    let read = |v: &str| -> Vec<f64> {
        f.dataset(&format!("orbits/curve_{k}/{v}"))
            .unwrap()
            .read_raw()
            .unwrap()
    };
    let (w, a) = (read("parameter1"), read("parameter2"));
    w.into_iter().zip(a).map(|(w, a)| [w, a]).collect()
}

/// Ω on the first tongue's two edges at amplitude a: a_M = 4g/(lΩ²) equal to Mathieu's a₁ and
/// b₁ at q = 2a/l (a multiplier −1 over one drive period; tests/orbits_curve.rs).
fn edges(a: f64) -> [f64; 2] {
    let q = 2.0 * a;
    [true, false].map(|cos| (4.0 * G / mathieu::characteristic(cos, true, q, 40)[0]).sqrt())
}

/// The largest relative deviation of `c`'s Ω from the Mathieu edge it starts on.
fn off_mathieu(c: &[[f64; 2]]) -> f64 {
    let e = edges(c[0][1]);
    let which = usize::from((e[1] - c[0][0]).abs() < (e[0] - c[0][0]).abs());
    c.iter()
        .map(|&[w, a]| (w / edges(a)[which] - 1.0).abs())
        .fold(0.0, f64::max)
}

/// Ω of `c` at amplitude `a` by 4-point Lagrange interpolation in a (c ordered along a).
fn omega_at(c: &[[f64; 2]], a: f64) -> f64 {
    let i = c.partition_point(|p| p[1] < a).clamp(2, c.len() - 2);
    let pts = &c[i - 2..i + 2];
    let mut s = 0.0;
    for (j, pj) in pts.iter().enumerate() {
        let mut l = 1.0;
        for (k, pk) in pts.iter().enumerate() {
            if k != j {
                l *= (a - pk[1]) / (pj[1] - pk[1]);
            }
        }
        s += l * pj[0];
    }
    s
}

/// Both edges of the first tongue from the branch's two located period doublings, each on
/// Mathieu's a₁ or b₁ to 1e-8 relative in Ω over a ∈ [0.04, 0.15], landed on both ends; the
/// file's curve groups, its JSON and its stability chart (viewed: the tongue red between the
/// two edges, green outside).
#[test]
fn the_first_tongue_edges_are_mathieus() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v = run(
        d,
        "both",
        &spec(0.08, "step = 0.02\nmax_step = 0.1\nchart_grid = 12\n"),
        &["--plot", "both.png"],
    );
    let c = &v["curve"];
    let curves = c["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 2, "{c}");
    for (k, j) in curves.iter().enumerate() {
        assert_eq!(j["kind"], "period-doubling");
        assert_eq!(j["start"]["index"], k + 1);
        assert_eq!(j["ended"], "range");
        assert_eq!(j["parameter2_range"], serde_json::json!([0.04, 0.15]));
        let pts = curve(d, "both", k + 1);
        assert_eq!(pts.len() as u64, j["points"].as_u64().unwrap());
        let worst = off_mathieu(&pts);
        eprintln!(
            "curve {}: {} points, worst relative Ω {worst:.2e}",
            k + 1,
            pts.len()
        );
        assert!(worst < 1e-8, "curve {}: {worst:.2e}", k + 1);
        // Ordered by arclength: from a = 0.04 up to a = 0.15.
        assert_eq!((pts[0][1], pts[pts.len() - 1][1]), (0.04, 0.15));
    }
    // Inside the tongue the hanging state is unstable, outside stable: the chart knows both.
    let chart = &c["chart"];
    assert_eq!(chart["nodes"], serde_json::json!([12, 12]));
    assert!(chart["stable"].as_u64().unwrap() > 20, "{chart}");
    assert!(chart["unstable"].as_u64().unwrap() > 20, "{chart}");
    let png = std::fs::read(d.join("both.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    {
        let _g = spawn::spawn_guard();
        let f = hdf5::File::open(d.join("both.h5")).unwrap();
        let g = f.group("orbits/curve_1").unwrap();
        let s = |n: &str| -> String {
            g.attr(n)
                .unwrap()
                .read_scalar::<hdf5::types::VarLenUnicode>()
                .unwrap()
                .to_string()
        };
        assert_eq!(s("kind"), "period-doubling");
        assert_eq!(s("parameter2"), "model.drive.pivot.y_amplitude");
        let units: hdf5::types::VarLenUnicode = g
            .dataset("parameter2")
            .unwrap()
            .attr("units")
            .unwrap()
            .read_scalar()
            .unwrap();
        assert_eq!(units.as_str(), "m");
        let flip: Vec<f64> = g.dataset("flip_test").unwrap().read_raw().unwrap();
        assert!(flip.iter().all(|t| t.abs() < 1e-8), "{flip:?}");
        // The codim-2 table is there, empty until the core locates such points.
        assert_eq!(g.dataset("codim2/arclength").unwrap().shape(), vec![0usize]);
    }
    // The same curves from a continue file of the same branch (both ways over the range).
    let cont = spec(0.08, "step = 0.02\nmax_step = 0.1\n")
        .replace(
            "action = \"curve\"",
            "action = \"continue\"\ndirection = \"both\"",
        )
        .replace(
            "parameter2 = \"model.drive.pivot.y_amplitude\"\nrange2 = [0.04, 0.15]\n",
            "",
        );
    run(d, "branch", &cont, &[]);
    run(
        d,
        "from_file",
        &spec(
            0.08,
            "step = 0.02\nmax_step = 0.1\nchart_grid = 0\nbranch_file = \"branch.h5\"\n",
        ),
        &[],
    );
    for k in 1..=2 {
        let (a, b) = (curve(d, "both", k), curve(d, "from_file", k));
        assert_eq!(a.len(), b.len());
        for (p, q) in a.iter().zip(&b) {
            assert_eq!(p.map(f64::to_bits), q.map(f64::to_bits));
        }
    }
}

/// Up, down and both ways from a = 0.08 agree where they overlap (both is down reversed then
/// up, bit for bit); the step halved gives the same curve, interpolated, to 1e-8 relative.
#[test]
fn the_curve_does_not_depend_on_direction_or_step() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let opts = "bifurcation = \"period-doubling:1\"\nchart_grid = 0\n";
    let coarse = "step = 0.01\nmax_step = 0.02\n";
    for way in ["up", "down", "both"] {
        run(
            d,
            way,
            &spec(0.08, &format!("{opts}{coarse}direction = \"{way}\"\n")),
            &[],
        );
    }
    let (up, down, both) = (curve(d, "up", 1), curve(d, "down", 1), curve(d, "both", 1));
    assert_eq!(both.len(), up.len() + down.len() - 1);
    let joined: Vec<[f64; 2]> = down.iter().rev().chain(&up[1..]).copied().collect();
    for (p, q) in both.iter().zip(&joined) {
        assert_eq!(p.map(f64::to_bits), q.map(f64::to_bits));
    }
    assert_eq!((up[0][1], down[0][1]), (0.08, 0.08));
    assert_eq!((up[up.len() - 1][1], down[down.len() - 1][1]), (0.15, 0.04));
    // Halved steps.
    run(
        d,
        "fine",
        &spec(0.08, &format!("{opts}step = 0.005\nmax_step = 0.01\n")),
        &[],
    );
    let fine = curve(d, "fine", 1);
    assert!(
        fine.len() > both.len() + 5,
        "{} vs {}",
        fine.len(),
        both.len()
    );
    let mut worst = 0.0f64;
    for &[w, a] in &fine {
        worst = worst.max((omega_at(&both, a) / w - 1.0).abs());
    }
    eprintln!(
        "coarse {} points, fine {}: worst relative Ω between them {worst:.2e}",
        both.len(),
        fine.len()
    );
    assert!(worst < 1e-8, "{worst:.2e}");
    let (e1, e2) = (both[both.len() - 1], fine[fine.len() - 1]);
    assert_eq!(e1[1], e2[1]);
    assert!((e1[0] / e2[0] - 1.0).abs() < 1e-9, "{e1:?} vs {e2:?}");
}

/// One and two threads write the same curves and chart, bit for bit.
#[test]
fn one_and_two_threads_write_the_same_bits() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = spec(0.08, "step = 0.02\nmax_step = 0.1\nchart_grid = 8\n");
    run(d, "one", &text, &["--threads", "1"]);
    run(d, "two", &text, &["--threads", "2"]);
    let _g = spawn::spawn_guard();
    let (a, b) = (
        hdf5::File::open(d.join("one.h5")).unwrap(),
        hdf5::File::open(d.join("two.h5")).unwrap(),
    );
    for k in 1..=2 {
        for v in [
            "parameter1",
            "parameter2",
            "arclength",
            "period",
            "test",
            "fold_test",
            "flip_test",
            "regularity",
            "multiplier_real",
            "multiplier_imag",
        ] {
            let path = format!("orbits/curve_{k}/{v}");
            let x: Vec<f64> = a.dataset(&path).unwrap().read_raw().unwrap();
            let y: Vec<f64> = b.dataset(&path).unwrap().read_raw().unwrap();
            assert_eq!(
                x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{path}"
            );
        }
    }
    let x: Vec<u8> = a
        .dataset("orbits/chart/stability")
        .unwrap()
        .read_raw()
        .unwrap();
    let y: Vec<u8> = b
        .dataset("orbits/chart/stability")
        .unwrap()
        .read_raw()
        .unwrap();
    assert_eq!(x, y);
}

/// Each bad combination: exit 2, one line naming the field, no file.
#[test]
fn bad_curve_specs_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A small map, for a branch file that is not an orbits file.
    std::fs::write(
        d.join("map.toml"),
        "kind = \"map\"\n[model]\npreset = \"simple\"\n[map]\nkind = \"flip-time\"\nresolution = 4\nt_end = 1.0\n",
    )
    .unwrap();
    let (code, _, err) = spawn::run(&["run", "map.toml", "-o", "map.h5"], d);
    assert_eq!(code, 0, "{err}");
    let good = spec(0.08, "");
    let p2 = "parameter2 = \"model.drive.pivot.y_amplitude\"\n";
    let cases = [
        (good.replace(p2, ""), "orbits.parameter2: missing"),
        (
            good.replace(p2, "parameter2 = \"model.drive.pivot.frequency\"\n"),
            "orbits.parameter2: must differ from parameter",
        ),
        (
            good.replace(p2, "parameter2 = \"orbits.energy\"\n"),
            "orbits.parameter2:",
        ),
        (
            good.replace("range2 = [0.04, 0.15]", "range2 = [0.15, 0.04]"),
            "orbits.range2: must be [min, max]",
        ),
        (
            format!("{good}branch_file = \"map.h5\"\n"),
            "orbits.branch_file: map.h5: a map file",
        ),
        (
            format!("{good}bifurcation = \"fold:0\"\n"),
            "orbits.bifurcation:",
        ),
        (format!("{good}segments = 2\n"), "orbits.segments:"),
    ];
    for (text, names) in cases {
        std::fs::write(d.join("bad.toml"), &text).unwrap();
        let (code, _, err) = spawn::run(&["run", "bad.toml", "-o", "x.h5"], d);
        assert_eq!(code, 2, "{names}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{names}: {err}");
        assert!(err.contains(names), "{names}: {err}");
        assert!(!d.join("x.h5").exists(), "{names}");
        assert!(!d.join("x.h5.partial").exists(), "{names}");
    }
    // The command line names its flags.
    std::fs::write(d.join("good.toml"), &good).unwrap();
    for (flags, names) in [
        (
            ["--parameter2", "model.drive.pivot.frequency"],
            "--parameter2: must differ",
        ),
        (["--range2", "0.15,0.04"], "--range2: must be [min, max]"),
    ] {
        let mut args = vec!["orbits", "curve", "--spec", "good.toml", "-o", "x.h5"];
        args.extend_from_slice(&flags);
        let (code, _, err) = spawn::run(&args, d);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(names), "{names}: {err}");
    }
}
