//! The periodic-orbit figures: bifurcation diagram, orbit diagram with λ_max, orbit shape.
//! Each is drawn as PNG and SVG into a temporary folder; copies are kept in
//! `target/…/plot-orbits/` for a visual check. Bad input is refused before any file exists.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use pendula::plot::orbits::{
    bifurcation_style, dashes, stability_pieces, MarkShape, Piece, BIFURCATION_KINDS,
};
use pendula::plot::{
    draw_bifurcation, draw_orbit_diagram, draw_orbit_shape, partial_path, BifurcationFigure,
    BifurcationMark, BranchCurve, OrbitDiagramFigure, OrbitShapeFigure, PlotError,
};

/// Where copies of the images are kept so a person can look at them.
fn keep_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plot-orbits");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Draws `name`.png and `name`.svg with `draw` into a temporary folder, checks both are
/// non-empty and well-formed (PNG signature, an `<svg` root) with no partial file left, keeps
/// copies, and returns the SVG text.
fn draw_both(name: &str, draw: impl Fn(&Path) -> Result<(), PlotError>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut svg_text = String::new();
    for ext in ["png", "svg"] {
        let path = dir.path().join(format!("{name}.{ext}"));
        draw(&path).unwrap_or_else(|e| panic!("{name}.{ext}: {e}"));
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 1000, "{name}.{ext} is {} bytes", bytes.len());
        assert!(!partial_path(&path).unwrap().exists());
        if ext == "png" {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        } else {
            svg_text = String::from_utf8(bytes).unwrap();
            assert!(svg_text.contains("<svg") && svg_text.trim_end().ends_with("</svg>"));
        }
        std::fs::copy(&path, keep_dir().join(format!("{name}.{ext}"))).unwrap();
    }
    svg_text
}

/// Asserts `draw` refuses with a data error and leaves no file (nor a partial one) behind.
fn refused(what: &str, draw: impl Fn(&Path) -> Result<(), PlotError>) {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["png", "svg"] {
        let path = dir.path().join(format!("bad.{ext}"));
        match draw(&path) {
            Err(PlotError::Data { path: p, .. }) => assert_eq!(p, path),
            other => panic!("{what}: expected a data error, got {other:?}"),
        }
        assert!(!path.exists() && !partial_path(&path).unwrap().exists());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{what}");
}

fn curve(
    p: Vec<f64>,
    f: impl Fn(f64) -> f64,
    stable: impl Fn(f64) -> bool,
    label: &str,
) -> BranchCurve {
    BranchCurve {
        value: p.iter().map(|&x| f(x)).collect(),
        stable: p.iter().map(|&x| stable(x)).collect(),
        parameter: p,
        label: label.into(),
    }
}

fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
        .collect()
}

/// A period-1 branch losing stability in a period doubling, the doubled branch's two sheets,
/// an S-shaped branch with two folds, and a NaN point; marks of every kind.
fn branches() -> (Vec<BranchCurve>, Vec<BifurcationMark>) {
    let mut p1 = curve(
        linspace(0.9, 1.5, 121),
        |a| 0.4 * (a - 0.9) - 1.2,
        |a| a < 1.08,
        "period 1",
    );
    p1.value[100] = f64::NAN;
    let up = curve(
        linspace(1.08, 1.5, 60),
        |a| 0.4 * (a - 0.9) - 1.2 + 1.6 * (a - 1.08).sqrt(),
        |a| a < 1.35,
        "period 2",
    );
    let down = curve(
        linspace(1.08, 1.5, 60),
        |a| 0.4 * (a - 0.9) - 1.2 - 1.6 * (a - 1.08).sqrt(),
        |a| a < 1.35,
        "period 2",
    );
    // An S-curve: parameter = c − (s³ − s), stable on the outer sheets.
    let s = linspace(-1.3, 1.3, 140);
    let fold = BranchCurve {
        parameter: s.iter().map(|s| 1.2 - 0.25 * (s * s * s - s)).collect(),
        value: s.iter().map(|s| 1.0 + 0.5 * s).collect(),
        stable: s.iter().map(|s| s.abs() > 1.0 / 3f64.sqrt()).collect(),
        label: "hysteresis branch".into(),
    };
    let sf = 1.0 / 3f64.sqrt();
    let marks = vec![
        BifurcationMark {
            parameter: 1.08,
            value: 0.4 * 0.18 - 1.2,
            kind: "period-doubling".into(),
        },
        BifurcationMark {
            parameter: 1.35,
            value: 0.4 * 0.45 - 1.2 + 1.6 * 0.27f64.sqrt(),
            kind: "neimark-sacker".into(),
        },
        BifurcationMark {
            parameter: 1.35,
            value: 0.4 * 0.45 - 1.2 - 1.6 * 0.27f64.sqrt(),
            kind: "krein-collision".into(),
        },
        BifurcationMark {
            parameter: 1.2 - 0.25 * (sf * sf * sf - sf),
            value: 1.0 + 0.5 * sf,
            kind: "fold".into(),
        },
        BifurcationMark {
            parameter: 1.2 + 0.25 * (sf * sf * sf - sf),
            value: 1.0 - 0.5 * sf,
            kind: "fold".into(),
        },
        BifurcationMark {
            parameter: 1.0,
            value: 0.4 * 0.1 - 1.2,
            kind: "branch-point".into(),
        },
        BifurcationMark {
            parameter: f64::NAN,
            value: 0.0,
            kind: "fold".into(),
        },
    ];
    (vec![p1, up, down, fold], marks)
}

fn bifurcation<'a>(b: &'a [BranchCurve], m: &'a [BifurcationMark]) -> BifurcationFigure<'a> {
    BifurcationFigure {
        title: "Driven damped pendulum: period-1 branch and its period doubling".into(),
        parameter_label: "model.drive.torque.amplitude (N m)".into(),
        value_label: "θ₁ at drive phase 0 (rad)".into(),
        branches: b,
        bifurcations: m,
    }
}

#[test]
fn bifurcation_diagram_png_and_svg() {
    let (b, m) = branches();
    let svg = draw_both("bifurcation", |p| draw_bifurcation(&bifurcation(&b, &m), p));
    // Every kind's legend label is in the SVG.
    for k in BIFURCATION_KINDS {
        assert!(svg.contains(k.1), "legend lacks {}", k.1);
    }
    for label in [
        "period 1",
        "period 2",
        "hysteresis branch",
        "stable",
        "unstable",
    ] {
        assert!(svg.contains(label), "legend lacks {label}");
    }
    // The doubled branch's two sheets share a label: one colour, one legend row.
    assert_eq!(svg.matches("\nperiod 2\n</text>").count(), 1);
    let colours = bifurcation(&b, &m).branch_colours();
    assert_eq!(colours[1], colours[2]);
    assert_ne!(colours[0], colours[1]);
    assert_ne!(colours[3], colours[1]);
}

/// How many stroked paths an SVG holds (plotters writes a path element as `<polyline`).
fn polylines(svg: &str) -> usize {
    svg.matches("<polyline").count()
}

#[test]
fn unstable_runs_are_dashed() {
    let p = linspace(0.0, 1.0, 50);
    let one = |stable: bool| vec![curve(p.clone(), |x| x * x, move |_| stable, "")];
    let (stable, unstable) = (one(true), one(false));
    let count = |b: &[BranchCurve], name: &str| {
        let svg = draw_both(name, |path| draw_bifurcation(&bifurcation(b, &[]), path));
        polylines(&svg)
    };
    let solid = count(&stable, "branch_stable");
    let dashed = count(&unstable, "branch_unstable");
    // The solid curve is one path; the dashed one is a path per dash (its length is several
    // hundred pixels, a dash and gap 12), beside the same grid and legend.
    assert!(dashed >= solid + 20, "solid {solid} paths, dashed {dashed}");
}

#[test]
fn stability_pieces_split_at_midpoints_and_skip_nan() {
    let b = BranchCurve {
        parameter: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        value: vec![0.0, 1.0, 2.0, 3.0, f64::NAN, 5.0, 6.0, 7.0],
        stable: vec![true, true, false, false, false, false, true, true],
        label: String::new(),
    };
    let pieces = stability_pieces(&b);
    let expect = vec![
        Piece {
            points: vec![(0.0, 0.0), (1.0, 1.0), (1.5, 1.5)],
            stable: true,
        },
        Piece {
            points: vec![(1.5, 1.5), (2.0, 2.0), (3.0, 3.0)],
            stable: false,
        },
        Piece {
            points: vec![(5.0, 5.0), (5.5, 5.5)],
            stable: false,
        },
        Piece {
            points: vec![(5.5, 5.5), (6.0, 6.0), (7.0, 7.0)],
            stable: true,
        },
    ];
    assert_eq!(pieces, expect);
    // An isolated point is a piece of its own.
    let lone = BranchCurve {
        parameter: vec![0.0, 1.0, 2.0],
        value: vec![f64::NAN, 1.0, f64::NAN],
        stable: vec![true, false, true],
        label: String::new(),
    };
    assert_eq!(
        stability_pieces(&lone),
        vec![Piece {
            points: vec![(1.0, 1.0)],
            stable: false
        }]
    );
}

#[test]
fn dashes_alternate_along_the_line() {
    let d = dashes(&[(0.0, 0.0), (100.0, 0.0)], 7.0, 5.0);
    assert_eq!(d.len(), 9); // 100 = 8 × 12 + 4: eight full dashes and a 4-pixel one
    for (i, dash) in d.iter().enumerate() {
        let x0 = 12.0 * i as f64;
        assert!((dash[0].0 - x0).abs() < 1e-9);
        assert!((dash.last().unwrap().0 - (x0 + 7.0).min(100.0)).abs() < 1e-9);
    }
    assert!(dashes(&[(1.0, 1.0)], 7.0, 5.0).is_empty());
    assert!(dashes(&[], 7.0, 5.0).is_empty());
}

#[test]
fn every_bifurcation_kind_has_its_own_marker() {
    let kinds = [
        "fold",
        "branch-point",
        "period-doubling",
        "neimark-sacker",
        "krein-collision",
    ];
    let shapes: Vec<MarkShape> = kinds.iter().map(|k| bifurcation_style(k).1).collect();
    for i in 0..shapes.len() {
        for j in 0..i {
            assert_ne!(shapes[i], shapes[j], "{} and {}", kinds[i], kinds[j]);
        }
    }
    // An unknown kind is still drawn, labelled as given.
    let (label, shape, _) = bifurcation_style("transcritical");
    assert_eq!((label.as_str(), shape), ("transcritical", MarkShape::Cross));
}

#[test]
fn bifurcation_diagram_refuses_bad_input() {
    refused("no branches", |p| {
        draw_bifurcation(&bifurcation(&[], &[]), p)
    });
    let empty = [BranchCurve::default()];
    refused("empty branch", |p| {
        draw_bifurcation(&bifurcation(&empty, &[]), p)
    });
    let nan = [BranchCurve {
        parameter: vec![1.0, f64::NAN],
        value: vec![f64::NAN, 2.0],
        stable: vec![true, false],
        label: "all NaN".into(),
    }];
    refused("no finite point", |p| {
        draw_bifurcation(&bifurcation(&nan, &[]), p)
    });
    let short = [BranchCurve {
        parameter: vec![1.0, 2.0],
        value: vec![1.0, 2.0],
        stable: vec![true],
        label: "short".into(),
    }];
    refused("stability length", |p| {
        draw_bifurcation(&bifurcation(&short, &[]), p)
    });
}

/// The logistic map's orbit diagram as stand-in data: P parameters, `starts` starts of
/// `per_start` samples each, the exact λ per start (per iteration).
struct Diagram {
    parameters: Vec<f64>,
    samples: Vec<f64>,
    lyapunov: Vec<f64>,
    per_parameter: usize,
    starts: usize,
}

fn logistic(p: usize, starts: usize, per_start: usize) -> Diagram {
    let parameters = linspace(2.8, 4.0, p);
    let mut samples = Vec::new();
    let mut lyapunov = Vec::new();
    for &r in &parameters {
        for k in 0..starts {
            let mut x = 0.2 + 0.5 * k as f64 / starts as f64;
            let mut sum = 0.0;
            for i in 0..600 + per_start {
                x = r * x * (1.0 - x);
                if i >= 600 {
                    // As an angle in (−π, π].
                    samples.push(PI * (2.0 * x - 1.0));
                    sum += (r * (1.0 - 2.0 * x)).abs().max(1e-300).ln();
                }
            }
            lyapunov.push(sum / per_start as f64);
        }
    }
    Diagram {
        parameters,
        samples,
        lyapunov,
        per_parameter: starts * per_start,
        starts,
    }
}

fn diagram(d: &Diagram) -> OrbitDiagramFigure<'_> {
    OrbitDiagramFigure {
        title: "Orbit diagram (logistic map as test data)".into(),
        parameter_label: "model.drive.torque.amplitude (N m)".into(),
        value_label: "θ₁ at drive phase 0 (rad)".into(),
        parameters: &d.parameters,
        samples: &d.samples,
        per_parameter: d.per_parameter,
        lyapunov: &d.lyapunov,
        starts: d.starts,
    }
}

#[test]
fn orbit_diagram_png_and_svg() {
    let mut d = logistic(600, 2, 120);
    d.samples[7] = f64::NAN;
    d.lyapunov[40] = f64::NAN;
    d.parameters[300] = f64::NAN;
    let svg = draw_both("orbit_diagram", |p| draw_orbit_diagram(&diagram(&d), p));
    assert!(svg.contains("λ_max"));
    // The 144 000 dots are one embedded image, not a shape each.
    assert_eq!(svg.matches("<image").count(), 1);
    assert!(svg.len() < 1_000_000, "{} bytes", svg.len());
    // One start and no λ: the samples alone.
    let one = logistic(200, 1, 100);
    draw_both("orbit_diagram_one_start", |p| {
        draw_orbit_diagram(&diagram(&one), p)
    });
    let bare = OrbitDiagramFigure {
        lyapunov: &[],
        starts: 0,
        ..diagram(&one)
    };
    draw_both("orbit_diagram_no_lyapunov", |p| {
        draw_orbit_diagram(&bare, p)
    });
}

#[test]
fn orbit_diagram_refuses_bad_input() {
    let d = logistic(20, 2, 10);
    refused("no parameters", |p| {
        draw_orbit_diagram(
            &OrbitDiagramFigure {
                parameters: &[],
                ..diagram(&d)
            },
            p,
        )
    });
    refused("sample count", |p| {
        draw_orbit_diagram(
            &OrbitDiagramFigure {
                samples: &d.samples[1..],
                ..diagram(&d)
            },
            p,
        )
    });
    refused("λ count", |p| {
        draw_orbit_diagram(
            &OrbitDiagramFigure {
                lyapunov: &d.lyapunov[1..],
                ..diagram(&d)
            },
            p,
        )
    });
    let nan = vec![f64::NAN; d.samples.len()];
    refused("all samples NaN", |p| {
        draw_orbit_diagram(
            &OrbitDiagramFigure {
                samples: &nan,
                ..diagram(&d)
            },
            p,
        )
    });
    let inf = vec![f64::INFINITY; d.lyapunov.len()];
    refused("all λ infinite", |p| {
        draw_orbit_diagram(
            &OrbitDiagramFigure {
                lyapunov: &inf,
                ..diagram(&d)
            },
            p,
        )
    });
    refused("no samples per parameter", |p| {
        draw_orbit_diagram(
            &OrbitDiagramFigure {
                samples: &[],
                per_parameter: 0,
                ..diagram(&d)
            },
            p,
        )
    });
}

/// `m` states over one period of a chain of `lengths.len()` links: θ_j(t) = `theta(j, t/T)`,
/// ω by a central difference (not drawn).
fn orbit(n: usize, m: usize, theta: impl Fn(usize, f64) -> f64) -> Vec<f64> {
    let mut shape = Vec::with_capacity(m * 2 * n);
    for k in 0..m {
        let s = k as f64 / m as f64;
        for j in 0..n {
            shape.push(theta(j, s));
        }
        for j in 0..n {
            shape.push((theta(j, s + 1e-6) - theta(j, s - 1e-6)) / 2e-6);
        }
    }
    shape
}

#[test]
fn orbit_shape_png_and_svg() {
    // A double pendulum's in-phase-like libration with a second harmonic.
    let lengths = [1.0, 0.7];
    let shape = orbit(2, 240, |j, s| {
        let a = [0.9, 1.3][j];
        a * (2.0 * PI * s).cos() + 0.35 * j as f64 * (4.0 * PI * s).sin()
    });
    let fig = OrbitShapeFigure {
        title: "Double pendulum: a nonlinear normal mode".into(),
        lengths: &lengths,
        shape: &shape,
        period: 2.456_71,
    };
    let svg = draw_both("orbit_shape", |p| draw_orbit_shape(&fig, p));
    assert!(svg.contains("T = 2.4567 s"), "the caption gives the period");
    // A rotating single pendulum (one full turn per period): the path closes on itself.
    let one = [0.5];
    let rot = orbit(1, 100, |_, s| 2.0 * PI * s + 0.3 * (2.0 * PI * s).sin());
    let fig = OrbitShapeFigure {
        title: "Rotating pendulum".into(),
        lengths: &one,
        shape: &rot,
        period: 0.0123,
    };
    let svg = draw_both("orbit_shape_rotation", |p| draw_orbit_shape(&fig, p));
    assert!(svg.contains("T = 0.0123 s"), "trailing zeros are dropped");
    // Eight links, a NaN state skipped.
    let eight = [0.2; 8];
    let mut wave = orbit(8, 300, |j, s| {
        0.25 * (1.0 + j as f64 * 0.3) * (2.0 * PI * s - 0.4 * j as f64).sin()
    });
    wave[16 * 50 + 3] = f64::NAN;
    let fig = OrbitShapeFigure {
        title: "Eight-link chain".into(),
        lengths: &eight,
        shape: &wave,
        period: 31.4159,
    };
    draw_both("orbit_shape_eight", |p| draw_orbit_shape(&fig, p));
}

#[test]
fn orbit_shape_refuses_bad_input() {
    let shape = orbit(2, 20, |j, s| (j as f64 + 1.0) * s);
    let fig = |lengths: &'static [f64], shape: &[f64], period: f64, p: &Path| {
        draw_orbit_shape(
            &OrbitShapeFigure {
                title: "bad".into(),
                lengths,
                shape,
                period,
            },
            p,
        )
    };
    refused("no links", |p| fig(&[], &shape, 1.0, p));
    refused("no states", |p| fig(&[1.0, 0.5], &[], 1.0, p));
    refused("ragged states", |p| fig(&[1.0, 0.5], &shape[1..], 1.0, p));
    refused("NaN period", |p| fig(&[1.0, 0.5], &shape, f64::NAN, p));
    refused("zero period", |p| fig(&[1.0, 0.5], &shape, 0.0, p));
    refused("NaN length", |p| fig(&[1.0, f64::NAN], &shape, 1.0, p));
    let nan = vec![f64::NAN; shape.len()];
    refused("all angles NaN", |p| fig(&[1.0, 0.5], &nan, 1.0, p));
}
