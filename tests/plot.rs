//! Figures end to end: files written atomically, PNG and SVG well-formed, errors name
//! what to fix. Images are kept in `target/plot-test/` for a visual check.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use pendula::plot::{
    draw_timeseries, partial_path, render_rgb, Figure, Format, Panel, PlotError, Series,
};

/// Where the test images are kept so a person can look at them.
fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plot-test");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Data {
    t: Vec<f64>,
    th1: Vec<f64>,
    th2: Vec<f64>,
    e: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

fn data(n: usize) -> Data {
    let t: Vec<f64> = (0..n).map(|i| 20.0 * i as f64 / (n - 1) as f64).collect();
    let th1 = t
        .iter()
        .map(|t| 1.2 * (2.0 * PI * t / 3.1).cos() * (-t / 40.0).exp())
        .collect();
    let th2 = t
        .iter()
        .map(|t| 0.8 * (2.0 * PI * t / 1.7 + 0.4).sin() + 0.3 * (2.0 * PI * t / 7.3).sin())
        .collect();
    let e: Vec<f64> = t
        .iter()
        .map(|t| -3.0 + 0.02 * (0.9 * t).sin() * t.sqrt())
        .collect();
    let lo = e
        .iter()
        .zip(&t)
        .map(|(e, t)| e - 0.004 - 0.002 * t)
        .collect();
    let hi = e
        .iter()
        .zip(&t)
        .map(|(e, t)| e + 0.004 + 0.002 * t)
        .collect();
    Data {
        t,
        th1,
        th2,
        e,
        lo,
        hi,
    }
}

fn figure(d: &Data) -> Figure<'_> {
    Figure {
        title: "Double pendulum, θ₀ = (1.2, 0.5) rad".into(),
        x_label: "time t / s".into(),
        panels: vec![
            Panel {
                y_label: "angle θ / rad".into(),
                series: vec![
                    Series {
                        label: "θ₁ (upper link)".into(),
                        x: &d.t,
                        y: &d.th1,
                        band: None,
                    },
                    Series {
                        label: "θ₂ (lower link)".into(),
                        x: &d.t,
                        y: &d.th2,
                        band: None,
                    },
                ],
                log_y: false,
            },
            Panel {
                y_label: "energy E / J".into(),
                series: vec![Series {
                    label: "total energy ± error".into(),
                    x: &d.t,
                    y: &d.e,
                    band: Some((&d.lo, &d.hi)),
                }],
                log_y: false,
            },
        ],
        log_x: false,
        size: (1200, 800),
    }
}

/// Width and height from a PNG's signature and IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

fn no_leftovers(path: &Path) {
    assert!(!path.exists(), "{} should not exist", path.display());
    let partial = partial_path(path).unwrap();
    assert!(!partial.exists(), "{} left behind", partial.display());
}

#[test]
fn two_panel_figure_png_and_svg() {
    let d = data(4001);
    let fig = figure(&d);
    let dir = out_dir();

    let png = dir.join("timeseries.png");
    draw_timeseries(&fig, &png).unwrap();
    assert_eq!(png_size(&png), (1200, 800));
    assert!(std::fs::metadata(&png).unwrap().len() > 20_000);
    assert!(!partial_path(&png).unwrap().exists());

    let svg = dir.join("timeseries.svg");
    draw_timeseries(&fig, &svg).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg"));
    assert!(text.contains("Double pendulum"));
    assert!(text.contains("energy E / J"));
    assert!(!partial_path(&svg).unwrap().exists());
}

#[test]
fn panels_contain_drawn_pixels() {
    let d = data(2001);
    let fig = figure(&d);
    let (w, h) = (600, 400);
    let rgb = render_rgb(&fig, (w, h)).unwrap();
    assert_eq!(rgb.len(), 3 * (w * h) as usize);
    // Count non-white pixels in each panel's middle band (plot interiors).
    let ink = |y0: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (150..w - 40).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let i = 3 * (y * w + x) as usize;
                rgb[i..i + 3].iter().any(|&c| c < 200)
            })
            .count()
    };
    assert!(ink(80, 160) > 500, "top panel nearly empty");
    assert!(ink(240, 300) > 500, "bottom panel nearly empty");
}

#[test]
fn unknown_extension_is_named() {
    let d = data(11);
    let path = out_dir().join("figure.jpg");
    let err = draw_timeseries(&figure(&d), &path).unwrap_err();
    assert!(matches!(&err, PlotError::UnsupportedFormat { extension, .. } if extension == "jpg"));
    assert!(err.to_string().contains("\"jpg\""), "{err}");
    assert!(matches!(
        Format::from_path(Path::new("a.SVG")),
        Ok(Format::Svg)
    ));
    assert!(!path.exists());
}

#[test]
fn all_nan_series_is_an_error_and_leaves_nothing() {
    let d = data(101);
    let nan = vec![f64::NAN; d.t.len()];
    let mut fig = figure(&d);
    fig.panels[0].series[1].y = &nan;
    for name in ["nan.png", "nan.svg"] {
        let path = out_dir().join(name);
        let _ = std::fs::remove_file(&path);
        let err = draw_timeseries(&fig, &path).unwrap_err();
        assert!(matches!(err, PlotError::Data { .. }), "{err}");
        assert!(err.to_string().contains("θ₂"), "{err}");
        no_leftovers(&path);
    }
}

#[test]
fn log_x_skips_nonpositive_time() {
    let d = data(5001);
    // A convergence-style panel: |error| ~ 1/t on log-log axes, starting at t = 0.
    let err: Vec<f64> = d.t.iter().map(|t| 2.0 / (t + 0.01) + 0.05).collect();
    let mut fig = figure(&d);
    fig.title = "Convergence (log–log)".into();
    fig.log_x = true;
    fig.panels[1] = Panel {
        y_label: "|λ₁ − λ₁(∞)| / s⁻¹".into(),
        series: vec![Series {
            label: String::new(),
            x: &d.t,
            y: &err,
            band: None,
        }],
        log_y: true,
    };
    for name in ["log_x.png", "log_x.svg"] {
        let path = out_dir().join(name);
        draw_timeseries(&fig, &path).unwrap();
        assert!(path.exists());
    }
    // Nothing drawable: x all ≤ 0 on a log axis.
    let zeros = vec![0.0; 3];
    let ys = vec![1.0; 3];
    let bad = Figure {
        title: String::new(),
        x_label: "t".into(),
        panels: vec![Panel {
            y_label: "y".into(),
            series: vec![Series {
                label: String::new(),
                x: &zeros,
                y: &ys,
                band: None,
            }],
            log_y: false,
        }],
        log_x: true,
        size: (400, 300),
    };
    let path = out_dir().join("bad_log.png");
    assert!(draw_timeseries(&bad, &path).is_err());
    no_leftovers(&path);
}

#[test]
fn million_points_are_decimated() {
    let n = 1_000_000;
    let t: Vec<f64> = (0..n).map(|i| i as f64 * 1e-4).collect();
    let y: Vec<f64> = t
        .iter()
        .map(|t| (3.0 * t).sin() + 0.2 * (170.0 * t).sin())
        .collect();
    let fig = Figure {
        title: "10⁶ points".into(),
        x_label: "time t / s".into(),
        panels: vec![Panel {
            y_label: "θ / rad".into(),
            series: vec![Series {
                label: "θ".into(),
                x: &t,
                y: &y,
                band: None,
            }],
            log_y: false,
        }],
        log_x: false,
        size: (1200, 500),
    };
    let svg = out_dir().join("million.svg");
    draw_timeseries(&fig, &svg).unwrap();
    let size = std::fs::metadata(&svg).unwrap().len();
    assert!(size < 1_000_000, "SVG is {size} bytes");
    draw_timeseries(&fig, &out_dir().join("million.png")).unwrap();
}
