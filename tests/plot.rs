//! Figures end to end: files written atomically, PNG and SVG well-formed, errors name
//! what to fix. Images are kept in `target/plot-test/` for a visual check.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use pendula::analysis::modes::{formula_checks, modes_at, Equilibrium};
use pendula::model::{Chain, ChainParams};
use pendula::plot::cart::snapshot_colour;
use pendula::plot::modes::{mode_colour, shape_grid, MAX_SHAPE_PANELS, MODE_COLOURS};
use pendula::plot::{
    draw_timeseries, fit_text, format_value, partial_path, render_rgb, text_width, Axis,
    CartFigure, Figure, Format, ModesFigure, Panel, PlotError, Series,
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

/// A 200-character title: words of varied length, and one with a 60-character "word".
fn long_titles() -> Vec<String> {
    let words = "Triple pendulum from θ = (2, 2, 2): Lyapunov spectrum (benchmark L), spectrum, \
                 rk4, τ = 0.01 s, Σλ = −1.08×10⁻⁴, with a deliberately long description that \
                 goes on and on";
    let mut a: String = words.chars().take(200).collect();
    while a.chars().count() < 200 {
        a.push('x');
    }
    let b = format!(
        "{} {}",
        "W".repeat(60),
        &a[..a.char_indices().nth(139).unwrap().0]
    );
    vec![a, b]
}

#[test]
fn long_titles_fit_the_canvas_by_the_font_metrics_and_lose_nothing() {
    for title in long_titles() {
        assert_eq!(title.chars().count(), 200);
        for (w, size) in [(1200.0, 24.0), (600.0, 22.0), (300.0, 15.0)] {
            for scale in [1.0, 3.0] {
                let fit = fit_text(&title, w, size, true, scale, 3);
                for line in &fit.lines {
                    let lw = text_width(line, fit.size, true, scale);
                    assert!(lw <= w, "{lw} > {w} px: {line:?}");
                }
                // Nothing is cut: the lines hold every character of the title.
                let kept: String = fit.lines.concat().split_whitespace().collect();
                let all: String = title.split_whitespace().collect();
                assert_eq!(kept, all, "width {w}");
                assert!(fit.size <= size && fit.size > 0.0);
            }
        }
        // Wide enough canvases wrap at full size rather than shrinking.
        let fit = fit_text(&title, 1200.0, 24.0, true, 3.0, 3);
        assert_eq!(fit.size, 24.0);
        assert!(
            fit.lines.len() >= 2 && fit.lines.len() <= 3,
            "{:?}",
            fit.lines
        );
    }
    // A short title stays one line, and an explicit line break is kept.
    let one = fit_text("Double pendulum", 1200.0, 24.0, true, 1.0, 3);
    assert_eq!(one.lines, vec!["Double pendulum".to_string()]);
    let two = fit_text("mode 1\nω = 2.0 rad/s", 1200.0, 15.0, false, 1.0, 3);
    assert_eq!(two.lines.len(), 2);
}

/// Whether a column of an RGB image holds any ink (a pixel darker than light grey).
fn column_has_ink(rgb: &[u8], w: usize, x: usize, rows: std::ops::Range<usize>) -> bool {
    rows.into_iter().any(|y| {
        let p = &rgb[3 * (y * w + x)..3 * (y * w + x) + 3];
        p.iter().map(|&c| u32::from(c)).sum::<u32>() < 3 * 200
    })
}

fn ink_rows(rgb: &[u8], w: usize, rows: std::ops::Range<usize>) -> usize {
    rows.filter(|&y| (0..w).any(|x| column_has_ink(rgb, w, x, y..y + 1)))
        .count()
}

#[test]
fn a_200_character_title_is_drawn_inside_the_canvas() {
    let title = &long_titles()[0];
    let d = data(400);
    let mut fig = figure(&d);
    fig.title = title.clone();
    let (w, h) = (900usize, 700usize);
    fig.size = (w as u32, h as u32);
    let rgb = render_rgb(&fig, fig.size).unwrap();
    // The figure keeps margins on both sides: a title running off the canvas would leave ink
    // in the outermost columns.
    for x in [0, 1, 2, w - 3, w - 2, w - 1] {
        assert!(!column_has_ink(&rgb, w, x, 0..h), "ink in column {x}");
    }
    // The title is there, wrapped into several lines above the first panel.
    assert!(ink_rows(&rgb, w, 0..110) > 40);
    std::fs::write(out_dir().join("long-title.rgb"), &rgb).unwrap();

    // The same for the figures that start with `begin_figure` (here the modes figure).
    let chain = Chain::new(ChainParams::equal_points(3)).unwrap();
    let modes = modes_at(&chain, &Equilibrium::hanging(3)).unwrap();
    let lengths = [1.0; 3];
    let fig = ModesFigure {
        title: title.clone(),
        lengths: &lengths,
        modes: &modes,
        check: None,
    };
    let (w, h) = (700usize, 600usize);
    let rgb = render_rgb(&fig, (w as u32, h as u32)).unwrap();
    for x in [0, 1, w - 2, w - 1] {
        assert!(
            !column_has_ink(&rgb, w, x, 0..h),
            "modes figure: ink in column {x}"
        );
    }
}

#[test]
fn ticks_never_read_minus_zero() {
    // The zero tick reads "0", and no label is a signed zero, over many ranges and step sizes.
    let minus = '\u{2212}';
    for (lo, hi) in [
        (-1.0, 1.0),
        (-0.3, 0.3),
        (-0.1, 0.45),
        (-0.0625, 0.01),
        (-2.5e-4, 1e-4),
        (-1.5, 1.5),
        (-0.05, 0.05),
        (-7.0, 3.0),
        (-1e6, 1e6),
    ] {
        for n in 3..10 {
            let a = Axis::linear(lo, hi, n);
            for &t in a.ticks() {
                let label = a.label(t);
                assert!(!label.starts_with('-'), "ASCII minus in {label:?}");
                if t.abs() < 1e-12 * (hi - lo) {
                    assert_eq!(label, "0", "zero tick of {lo}..{hi} ({n} ticks)");
                }
                if let Some(rest) = label.strip_prefix(minus) {
                    assert!(
                        rest.chars().any(|c| c.is_ascii_digit() && c != '0'),
                        "signed zero {label:?} on {lo}..{hi}"
                    );
                }
            }
        }
    }
    // A tick computed as a tiny negative number, and values in legends and captions.
    assert_eq!(Axis::linear(-1.0, 1.0, 5).label(-1e-17), "0");
    assert_eq!(format_value(-0.00004, 4), "0.0000");
    assert_eq!(format_value(-0.0175, 4), "\u{2212}0.0175");
    assert_eq!(format_value(2.12716, 4), "2.1272");
}

#[test]
fn mode_shape_colours_are_pairwise_distinct() {
    assert_eq!(MODE_COLOURS.len(), MAX_SHAPE_PANELS);
    let dist = |a: plotters::style::RGBColor, b: plotters::style::RGBColor| {
        (i32::from(a.0) - i32::from(b.0)).abs()
            + (i32::from(a.1) - i32::from(b.1)).abs()
            + (i32::from(a.2) - i32::from(b.2)).abs()
    };
    for i in 0..MAX_SHAPE_PANELS {
        for j in 0..i {
            let d = dist(mode_colour(i), mode_colour(j));
            assert!(d > 80, "modes {i} and {j}: colour distance {d}");
        }
        // Not the formula's orange, not the rest chain's grey, not near white.
        let c = mode_colour(i);
        assert!(dist(c, plotters::style::RGBColor(0xff, 0x7f, 0x0e)) > 80);
        assert!(dist(c, plotters::style::RGBColor(0xbb, 0xbb, 0xbb)) > 80);
        assert!(u32::from(c.0) + u32::from(c.1) + u32::from(c.2) < 3 * 215);
    }
}

/// Pixels of `rgb` within `tol` (sum of channel differences) of `c`, as (x, y).
fn pixels_of(
    rgb: &[u8],
    w: usize,
    rows: std::ops::Range<usize>,
    c: plotters::style::RGBColor,
    tol: i32,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for y in rows {
        for x in 0..w {
            let p = &rgb[3 * (y * w + x)..3 * (y * w + x) + 3];
            let d = (i32::from(p[0]) - i32::from(c.0)).abs()
                + (i32::from(p[1]) - i32::from(c.1)).abs()
                + (i32::from(p[2]) - i32::from(c.2)).abs();
            if d <= tol {
                out.push((x, y));
            }
        }
    }
    out
}

#[test]
fn every_mode_shape_of_a_20_link_chain_is_visible_in_its_own_colour() {
    let chain = Chain::new(ChainParams::equal_points(20)).unwrap();
    let modes = modes_at(&chain, &Equilibrium::hanging(20)).unwrap();
    let checks = formula_checks(&chain, &modes.frequencies());
    let lengths = [1.0; 20];
    let fig = ModesFigure {
        title: "20 equal point links: modes vs Laguerre zeros".into(),
        lengths: &lengths,
        modes: &modes,
        check: checks.first(),
    };
    let (w, h) = (1200usize, 900usize);
    let rgb = render_rgb(&fig, (w as u32, h as u32)).unwrap();
    save_rgb(&rgb, (w, h), "modes-20.png");
    let (cols, _) = shape_grid(MAX_SHAPE_PANELS);
    let cell = (w - 40) / cols;
    for k in 0..MAX_SHAPE_PANELS {
        // The shape band is the upper half; each mode's panel is its column.
        let px = pixels_of(&rgb, w, 60..h / 2, mode_colour(k), 12);
        let (x0, x1) = (20 + k * cell, 20 + (k + 1) * cell);
        let inside: Vec<_> = px.iter().filter(|p| p.0 >= x0 && p.0 < x1).collect();
        assert!(
            inside.len() > 300,
            "mode {}: {} pixels",
            k + 1,
            inside.len()
        );
        assert!(
            inside.len() * 10 > px.len() * 9,
            "mode {}'s colour is drawn outside its panel",
            k + 1
        );
        // Visibly bent: the shape spans a good part of the panel's width.
        let (lo, hi) = inside
            .iter()
            .fold((usize::MAX, 0), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
        assert!(hi - lo > cell / 4, "mode {}: {} px wide", k + 1, hi - lo);
    }
}

/// Writes an RGB buffer as a PNG under the test output folder, for a person to look at.
fn save_rgb(rgb: &[u8], (w, h): (usize, usize), name: &str) {
    use plotters::prelude::*;
    let path = out_dir().join(name);
    let mut backend = BitMapBackend::new(&path, (w as u32, h as u32));
    backend
        .blit_bitmap((0, 0), (w as u32, h as u32), rgb)
        .unwrap();
    backend.present().unwrap();
}

/// A cart chain that swings in the first second and rests for nineteen: 2001 samples.
fn settling_cart() -> (Vec<Vec<[f64; 3]>>, Vec<f64>) {
    let t: Vec<f64> = (0..2001).map(|i| i as f64 * 0.01).collect();
    let frames = t
        .iter()
        .map(|&t| {
            let tilt = 0.3 * (-4.0 * t).exp() * (6.0 * t).cos();
            let cart = 0.2 * (-4.0 * t).exp();
            let mut f = vec![[cart, 0.0, 0.0]];
            for j in 1..=3 {
                let r = j as f64;
                f.push([cart + r * tilt.sin(), 0.5 * r * tilt.sin(), -r * tilt.cos()]);
            }
            f
        })
        .collect();
    (frames, t)
}

#[test]
fn cart_instants_follow_the_motion_and_are_told_apart() {
    let (frames, t) = settling_cart();
    let fig = CartFigure {
        title: "settling cart chain".into(),
        frames: &frames,
        times: &t,
        snapshots: 6,
    };
    let k = fig.instants();
    assert_eq!(k.len(), 6);
    assert_eq!((k[0], k[5]), (0, frames.len() - 1));
    assert!(k.windows(2).all(|w| w[0] < w[1]), "{k:?}");
    // Evenly spaced in time, five of six would show the resting chain; here four of them fall
    // in the first two seconds, where it moves.
    assert!(k[..5].iter().filter(|&&i| t[i] < 2.0).count() >= 4, "{k:?}");
    // Each instant has its own colour, and each colour is drawn.
    let (w, h) = (1400usize, 760usize);
    let rgb = render_rgb(&fig, (w as u32, h as u32)).unwrap();
    save_rgb(&rgb, (w, h), "cart.png");
    for s in 0..6 {
        for r in 0..s {
            let (a, b) = (snapshot_colour(s, 6), snapshot_colour(r, 6));
            let d = (i32::from(a.0) - i32::from(b.0)).abs()
                + (i32::from(a.1) - i32::from(b.1)).abs()
                + (i32::from(a.2) - i32::from(b.2)).abs();
            assert!(d > 40, "instants {r} and {s}: colour distance {d}");
        }
        let n = pixels_of(&rgb, w, 50..h - 50, snapshot_colour(s, 6), 10).len();
        assert!(n > 100, "instant {s}: {n} pixels");
    }
}
