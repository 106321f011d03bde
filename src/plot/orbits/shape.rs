//! An orbit's shape in configuration space: every joint's path over one period, the chain drawn
//! at t = 0 (and faintly at later quarter periods), equal aspect ratio.

use std::path::Path;

use plotters::prelude::*;

use super::lines::line;
use super::marks::EDGE;
use crate::plot::{
    begin_figure, draw_centred, draw_foot_legend, format_value, frame_pixels, house_mesh, runs,
    save, series_color, Area, Axis, DataError, DrawError, Drawn, Header, PlotError, Render,
    Surface,
};

/// One periodic orbit's shape in configuration space.
pub struct OrbitShapeFigure<'a> {
    pub title: String,
    /// Link lengths (m), n links.
    pub lengths: &'a [f64],
    /// Row-major states over one period at equal times, each of 2n entries θ₁…θₙ, ω₁…ωₙ
    /// (angles absolute from the downward vertical).
    pub shape: &'a [f64],
    /// The orbit's period (s).
    pub period: f64,
}

/// Draws the orbit's shape to `path` (`.png` or `.svg`), 1000 × 1000: the x–y path of each joint
/// over one period (pivot at the origin, y up), the chain at t = 0 (and faintly at T/4, T/2,
/// 3T/4), equal aspect ratio, the period in the caption.
pub fn draw_orbit_shape(fig: &OrbitShapeFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1000, 1000))
}

/// The chain drawn faintly at these fractions of the period (besides t = 0).
const LATER: [(f64, &str); 3] = [(0.25, "T/4"), (0.5, "T/2"), (0.75, "3T/4")];

impl OrbitShapeFigure<'_> {
    fn links(&self) -> usize {
        self.lengths.len()
    }

    fn samples(&self) -> usize {
        self.shape.len() / (2 * self.links())
    }

    /// The joints' positions at sample `k` (pivot first, at the origin), or `None` when an angle
    /// is not finite.
    pub fn joints(&self, k: usize) -> Option<Vec<(f64, f64)>> {
        let n = self.links();
        let theta = &self.shape[k * 2 * n..k * 2 * n + n];
        if !theta.iter().all(|t| t.is_finite()) {
            return None;
        }
        let mut p = (0.0, 0.0);
        let mut out = vec![p];
        for (l, t) in self.lengths.iter().zip(theta) {
            p = (p.0 + l * t.sin(), p.1 - l * t.cos());
            out.push(p);
        }
        Some(out)
    }

    /// The caption under the title: the period with five significant digits.
    fn caption(&self) -> String {
        let mag = self.period.abs().log10().floor();
        let decimals = (4.0 - mag).clamp(0.0, 12.0) as usize;
        let mut t = format_value(self.period, decimals);
        if t.contains('.') {
            t = t.trim_end_matches('0').trim_end_matches('.').to_string();
        }
        format!(
            "period T = {t} s; the path of each joint over one period, the chain at t = 0 and, \
             faint, at t = T/4, T/2, 3T/4"
        )
    }
}

impl Render for OrbitShapeFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        let n = self.links();
        if n == 0 || self.shape.is_empty() {
            return Err(DataError::Empty {
                what: if n == 0 {
                    "orbit shape link lengths"
                } else {
                    "orbit shape"
                }
                .into(),
            });
        }
        if !self.lengths.iter().all(|l| l.is_finite()) {
            return Err(DataError::NoFiniteValues {
                what: "orbit shape link lengths (some are not finite)".into(),
            });
        }
        if !self.shape.len().is_multiple_of(2 * n) {
            return Err(DataError::LengthMismatch {
                what: format!("orbit shape (states of 2 × {n} entries)"),
                expected: self.shape.len().div_ceil(2 * n) * 2 * n,
                found: self.shape.len(),
            });
        }
        if !self.period.is_finite() {
            return Err(DataError::NoFiniteValues {
                what: "orbit shape period".into(),
            });
        }
        if self.period <= 0.0 {
            return Err(DataError::Empty {
                what: "orbit shape (period ≤ 0)".into(),
            });
        }
        if !(0..self.samples()).any(|k| self.joints(k).is_some()) {
            return Err(DataError::NoFiniteValues {
                what: "orbit shape angles".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let sub_h = draw_centred(
            root,
            surface,
            &self.caption(),
            (w / 2.0, 54.0 + extra),
            w - 40.0,
            15.0,
            false,
        )?;
        let top = 54.0 + extra + sub_h.max(15.0) - 4.0;
        let legend_h = 34.0;
        let area = root.clone().shrink(
            (px(10.0), px(top)),
            (px(w - 20.0) as u32, px(h - top - legend_h) as u32),
        );
        let m = self.samples();
        let positions: Vec<Option<Vec<(f64, f64)>>> = (0..m).map(|k| self.joints(k)).collect();
        let (ax, ay) = self.equal_aspect_axes(&area, surface, &positions)?;
        let mut chart = self
            .builder(&area, surface)
            .build_cartesian_2d(ax.clone(), ay.clone())?;
        let x_fmt = |v: &f64| ax.label(*v);
        let y_fmt = |v: &f64| ay.label(*v);
        house_mesh(&mut chart, surface.stroke(1.0), scale, (15.0, 17.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(crate::plot::labels::x_desc("x / m"))
            .y_desc(crate::plot::labels::y_desc("y / m"))
            .draw()?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let to_frame = frame_pixels(plot);
        // Every position in the plot frame's pixels, mapped once for the paths and the chains.
        let pixels: Vec<Option<Vec<(i32, i32)>>> = positions
            .iter()
            .map(|p| p.as_ref().map(|p| p.iter().map(to_frame).collect()))
            .collect();
        self.joint_paths(&frame, surface, &pixels)?;
        if m >= 4 {
            for (f, _) in LATER {
                let k = ((f * m as f64).round() as usize).min(m - 1);
                chain(
                    &frame,
                    surface,
                    pixels[k].as_deref(),
                    FAINT,
                    (2.0, 3.0),
                    false,
                )?;
            }
        }
        chain(
            &frame,
            surface,
            pixels[0].as_deref(),
            EDGE,
            (3.5, 5.0),
            true,
        )?;
        // The pivot.
        let (cx, cy) = to_frame(&(0.0, 0.0));
        frame.draw(&Rectangle::new(
            [(cx - px(9.0), cy - px(5.0)), (cx + px(9.0), cy)],
            RGBColor(0x44, 0x44, 0x44).filled(),
        ))?;
        draw_foot_legend(
            root,
            surface,
            &self.legend_entries(),
            (w, h),
            (legend_h, 2.0),
            15.0,
        )
    }
}

impl OrbitShapeFigure<'_> {
    /// Each joint's path over the period, closed (positions are periodic even when angles turn
    /// by 2π); a sample with a non-finite angle breaks it.
    fn joint_paths<DB: DrawingBackend>(
        &self,
        frame: &Area<DB>,
        surface: Surface,
        pixels: &[Option<Vec<(i32, i32)>>],
    ) -> Drawn {
        let m = pixels.len();
        for j in 1..=self.links() {
            let colour = series_color(j - 1);
            let ok = |k: usize| pixels[k % m].is_some();
            let closed = m + usize::from(m > 1 && ok(0) && ok(m - 1));
            for run in runs(closed, ok) {
                let path: Vec<(i32, i32)> =
                    run.map(|k| pixels[k % m].as_ref().unwrap()[j]).collect();
                line(frame, path, colour, surface.stroke(2.0), surface)?;
            }
        }
        Ok(())
    }

    /// The legend row: one entry per joint (or one for all of a long chain), the chain at t = 0
    /// and, for four samples or more, the faint later chains.
    fn legend_entries(&self) -> Vec<(Vec<RGBColor>, String)> {
        let n = self.links();
        let mut entries: Vec<(Vec<RGBColor>, String)> = if n <= 5 {
            (0..n)
                .map(|j| (vec![series_color(j)], format!("joint {}", j + 1)))
                .collect()
        } else {
            vec![(
                (0..n.min(10)).map(series_color).collect(),
                "joint paths, pivot outward".into(),
            )]
        };
        entries.push((vec![EDGE], "chain at t = 0".into()));
        if self.samples() >= 4 {
            let times: Vec<&str> = LATER.iter().map(|l| l.1).collect();
            entries.push((vec![FAINT], format!("t = {}", times.join(", "))));
        }
        entries
    }
}

/// Draws the chain through the joint `pixels` of one sample (nothing when an angle is not
/// finite) in `colour`, `width` logical pixels wide with dots of radius `dot` at the joints;
/// with `joints`, each dot in its joint's palette colour, outlined.
fn chain<DB: DrawingBackend>(
    frame: &Area<DB>,
    surface: Surface,
    pixels: Option<&[(i32, i32)]>,
    colour: RGBColor,
    (width, dot): (f64, f64),
    joints: bool,
) -> Drawn {
    let Some(pixels) = pixels else {
        return Ok(());
    };
    line(
        frame,
        pixels.to_vec(),
        colour,
        surface.stroke(width),
        surface,
    )?;
    for (j, q) in pixels.iter().enumerate().skip(1) {
        let c = if joints { series_color(j - 1) } else { colour };
        frame.draw(&Circle::new(*q, surface.px(dot), c.filled()))?;
        if joints {
            frame.draw(&Circle::new(
                *q,
                surface.px(dot),
                EDGE.stroke_width(surface.stroke(1.0)),
            ))?;
        }
    }
    Ok(())
}

/// The chain at later times.
const FAINT: RGBColor = RGBColor(0xb8, 0xb8, 0xb8);

impl OrbitShapeFigure<'_> {
    fn builder<'a, 'b, DB: DrawingBackend>(
        &self,
        area: &'a Area<DB>,
        surface: Surface,
    ) -> ChartBuilder<'a, 'b, DB> {
        let mut b = ChartBuilder::on(area);
        b.margin(surface.px(12.0))
            .x_label_area_size(surface.px(56.0))
            .y_label_area_size(surface.px(80.0));
        b
    }

    /// Axes over every drawn position (and the pivot), padded, then widened about their centres
    /// so one metre is as long across as up: the plot area's size is measured by building the
    /// chart once on a unit range.
    fn equal_aspect_axes<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        surface: Surface,
        positions: &[Option<Vec<(f64, f64)>>],
    ) -> Result<(Axis, Axis), DrawError> {
        let (pw, ph) = {
            let probe = self
                .builder(area, surface)
                .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
            probe.plotting_area().dim_in_pixel()
        };
        let all = || positions.iter().flatten().flatten();
        let bounds = |f: fn(&(f64, f64)) -> f64| {
            all()
                .map(f)
                .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)))
        };
        let (x0, x1) = bounds(|p| p.0);
        let (y0, y1) = bounds(|p| p.1);
        let reach: f64 = self.lengths.iter().map(|l| l.abs()).sum::<f64>().max(1e-12);
        let pad = 0.06 * (x1 - x0).max(y1 - y0).max(0.2 * reach);
        let (sx, sy) = (x1 - x0 + 2.0 * pad, y1 - y0 + 2.0 * pad);
        let (pw, ph) = (f64::from(pw.max(1)), f64::from(ph.max(1)));
        let per_px = (sx / pw).max(sy / ph);
        let (hx, hy) = (0.5 * per_px * pw, 0.5 * per_px * ph);
        let (mx, my) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
        let ticks = |len: f64| ((len / surface.scale / 90.0).round() as usize).clamp(3, 10);
        Ok((
            Axis::linear(mx - hx, mx + hx, ticks(pw)),
            Axis::linear(my - hy, my + hy, ticks(ph)),
        ))
    }
}
