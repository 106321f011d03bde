//! The orbit diagram: attractor samples against a parameter as small dots, λ_max below on the
//! same x axis.

use std::path::Path;

use plotters::element::BitMapElement;
use plotters::prelude::*;

use super::lines::{dashed_line, line, GREY};
use super::{parameter_chart, require_finite};
use crate::plot::{
    begin_figure, draw_foot_legend, frame_pixels, house_mesh, runs, save, series_color, Area, Axis,
    DataError, DrawError, Drawn, Header, PlotError, Render, Surface,
};

/// The orbit diagram: attractor samples against a parameter, λ_max below.
pub struct OrbitDiagramFigure<'a> {
    pub title: String,
    pub parameter_label: String,
    pub value_label: String,
    /// P parameter values.
    pub parameters: &'a [f64],
    /// `[P][S]` values of the plotted component (row-major, S = samples per parameter, all
    /// starts flattened), angles already in (−π, π].
    pub samples: &'a [f64],
    /// S.
    pub per_parameter: usize,
    /// `[P][starts]` λ_max (1/s); empty (with `starts` 0) draws the samples alone.
    pub lyapunov: &'a [f64],
    pub starts: usize,
}

/// Draws the orbit diagram to `path` (`.png` or `.svg`), 1200 × 1000. Top panel: the samples as
/// small dots against the parameter; bottom panel (same x axis): λ_max against the parameter,
/// one line per start, with a dashed zero line.
pub fn draw_orbit_diagram(fig: &OrbitDiagramFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1200, 1000))
}

impl OrbitDiagramFigure<'_> {
    fn has_lyapunov(&self) -> bool {
        self.starts > 0 && !self.lyapunov.is_empty()
    }
}

impl Render for OrbitDiagramFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        let p = self.parameters.len();
        if p == 0 || self.per_parameter == 0 {
            return Err(DataError::Empty {
                what: if p == 0 {
                    "orbit diagram parameters"
                } else {
                    "orbit diagram samples"
                }
                .into(),
            });
        }
        if self.samples.len() != p * self.per_parameter {
            return Err(DataError::LengthMismatch {
                what: "orbit diagram samples".into(),
                expected: p * self.per_parameter,
                found: self.samples.len(),
            });
        }
        if self.lyapunov.len() != p * self.starts && !(self.lyapunov.is_empty() && self.starts == 0)
        {
            return Err(DataError::LengthMismatch {
                what: "orbit diagram λ_max".into(),
                expected: p * self.starts,
                found: self.lyapunov.len(),
            });
        }
        let s = self.per_parameter;
        require_finite(
            self.parameters.iter().enumerate().flat_map(|(i, &x)| {
                self.samples[i * s..(i + 1) * s]
                    .iter()
                    .map(move |&y| (x, y))
            }),
            "orbit diagram samples",
        )?;
        if self.has_lyapunov() {
            let k = self.starts;
            require_finite(
                self.parameters.iter().enumerate().flat_map(|(i, &x)| {
                    self.lyapunov[i * k..(i + 1) * k]
                        .iter()
                        .map(move |&y| (x, y))
                }),
                "orbit diagram λ_max",
            )?;
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let top = 48.0 + extra;
        let lyap = self.has_lyapunov();
        let legend_h = if lyap && self.starts > 1 { 34.0 } else { 0.0 };
        let body = h - top - legend_h - 6.0;
        let top_h = if lyap { 0.6 * body } else { body };
        let s = self.per_parameter;
        let finite_x = |i: usize| self.parameters[i].is_finite();
        let xs = (0..self.parameters.len())
            .filter(|&i| {
                finite_x(i)
                    && self.samples[i * s..(i + 1) * s]
                        .iter()
                        .any(|v| v.is_finite())
            })
            .map(|i| self.parameters[i]);
        let x_axis = Axis::fit(xs, false, 0.01, 10, "parameter")?;
        let ys = (0..self.parameters.len())
            .filter(|&i| finite_x(i))
            .flat_map(|i| self.samples[i * s..(i + 1) * s].iter().copied());
        let y_axis = Axis::fit(ys, false, 0.04, 8, "samples")?;
        let thin = surface.stroke(1.0);
        // Both panels: the same horizontal margins and y label width, so their x axes align.
        let upper = root
            .clone()
            .shrink((px(10.0), px(top)), (px(w - 20.0) as u32, px(top_h) as u32));
        let mut chart = ChartBuilder::on(&upper)
            .margin(px(12.0))
            .x_label_area_size(px(if lyap { 12.0 } else { 56.0 }))
            .y_label_area_size(px(90.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let no_fmt = |_: &f64| String::new();
        let y_fmt = |v: &f64| y_axis.label(*v);
        // The dots first: the light grid is drawn over them, the same on PNG and on SVG (where
        // they are one embedded image).
        self.dots(chart.plotting_area(), surface)?;
        {
            let mut mesh = house_mesh(&mut chart, thin, scale, (15.0, 17.0));
            mesh.y_label_formatter(&y_fmt)
                .y_desc(crate::plot::labels::y_desc(self.value_label.clone()));
            if lyap {
                mesh.x_label_formatter(&no_fmt);
            } else {
                mesh.x_label_formatter(&x_fmt)
                    .x_desc(crate::plot::labels::x_desc(self.parameter_label.clone()));
            }
            mesh.draw()?;
        }
        if lyap {
            let lower = root.clone().shrink(
                (px(10.0), px(top + top_h)),
                (px(w - 20.0) as u32, px(body - top_h) as u32),
            );
            self.lyapunov_panel(&lower, surface, &x_axis)?;
        }
        if legend_h > 0.0 {
            let entries: Vec<(Vec<RGBColor>, String)> = if self.starts <= 6 {
                (0..self.starts)
                    .map(|k| (vec![series_color(k)], format!("λ_max from start {}", k + 1)))
                    .collect()
            } else {
                vec![(
                    (0..self.starts.min(10)).map(series_color).collect(),
                    format!("λ_max, one colour per start ({} starts)", self.starts),
                )]
            };
            draw_foot_legend(root, surface, &entries, (w, h), (legend_h, 4.0), 15.0)?;
        }
        Ok(())
    }
}

/// Colour of the orbit diagram's samples.
const SAMPLE: RGBColor = RGBColor(0x1a, 0x1a, 0x2e);

impl OrbitDiagramFigure<'_> {
    /// Every finite sample as a dot of about one logical pixel. On bitmaps a sample that falls
    /// on an already drawn dot is drawn once; on SVG the dots are one embedded image of the plot
    /// area at one pixel per logical pixel (10⁵–10⁶ samples as shapes would make a file of tens
    /// of megabytes).
    fn dots<DB: DrawingBackend>(
        &self,
        plot: &DrawingArea<DB, Cartesian2d<Axis, Axis>>,
        surface: Surface,
    ) -> Drawn {
        let dot = (surface.scale * 1.1).round().max(1.0) as i32;
        let frame = plot.strip_coord_spec();
        let (ox, oy) = plot.get_base_pixel();
        let (pw, ph) = frame.dim_in_pixel();
        if pw == 0 || ph == 0 {
            return Ok(());
        }
        let (cell, raster) = if surface.raster {
            (dot, true)
        } else {
            (1, false)
        };
        let (cols, rows) = (
            (pw as i32 / cell + 1) as usize,
            (ph as i32 / cell + 1) as usize,
        );
        let mut seen = vec![false; cols * rows];
        let s = self.per_parameter;
        for (i, &x) in self.parameters.iter().enumerate() {
            if !x.is_finite() {
                continue;
            }
            for &y in &self.samples[i * s..(i + 1) * s] {
                if !y.is_finite() {
                    continue;
                }
                let (px, py) = plot.map_coordinate(&(x, y));
                let (fx, fy) = (px - ox, py - oy);
                if fx < 0 || fy < 0 || fx >= pw as i32 || fy >= ph as i32 {
                    continue;
                }
                let c = &mut seen[(fy / cell) as usize * cols + (fx / cell) as usize];
                if *c {
                    continue;
                }
                *c = true;
                if raster {
                    let (x0, y0) = (fx - dot / 2, fy - dot / 2);
                    frame.draw(&Rectangle::new(
                        [(x0, y0), (x0 + dot, y0 + dot)],
                        SAMPLE.filled(),
                    ))?;
                }
            }
        }
        if !raster {
            let (w, h) = (pw as usize, ph as usize);
            let mut buf = vec![255u8; 3 * w * h];
            for v in 0..h {
                for u in 0..w {
                    if seen[v * cols + u] {
                        let o = 3 * (v * w + u);
                        buf[o..o + 3].copy_from_slice(&[SAMPLE.0, SAMPLE.1, SAMPLE.2]);
                    }
                }
            }
            let img = BitMapElement::with_owned_buffer((0, 0), (pw, ph), buf).ok_or_else(|| {
                DrawError::Backend("orbit diagram raster has the wrong size".into())
            })?;
            frame.draw(&img)?;
        }
        Ok(())
    }

    /// The lower panel: λ_max against the parameter, one line per start, a dashed zero line.
    fn lyapunov_panel<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        surface: Surface,
        x_axis: &Axis,
    ) -> Drawn {
        let px = |v: f64| surface.px(v);
        let k = self.starts;
        let p = self.parameters.len();
        let ys = (0..p)
            .filter(|&i| self.parameters[i].is_finite())
            .flat_map(|i| self.lyapunov[i * k..(i + 1) * k].iter().copied())
            .chain([0.0]);
        let y_axis = Axis::fit(ys, false, 0.06, 6, "λ_max")?;
        let chart = parameter_chart(
            area,
            surface,
            (x_axis, &y_axis),
            (&self.parameter_label, "λ_max / s⁻¹"),
        )?;
        let plot = chart.plotting_area();
        let frame = plot.strip_coord_spec();
        let to_frame = frame_pixels(plot);
        let (xlo, xhi) = x_axis.bounds();
        dashed_line(
            &frame,
            &[to_frame(&(xlo, 0.0)), to_frame(&(xhi, 0.0))],
            GREY,
            surface.stroke(1.0),
            (6.0, 4.0),
            surface,
        )?;
        let width = surface.stroke(if p > 300 { 1.2 } else { 1.8 });
        for j in 0..k {
            let colour = series_color(j);
            let at = |i: usize| (self.parameters[i], self.lyapunov[i * k + j]);
            let ok = |i: usize| at(i).0.is_finite() && at(i).1.is_finite();
            for run in runs(p, ok) {
                let pixels: Vec<(i32, i32)> = run.clone().map(|i| to_frame(&at(i))).collect();
                if pixels.len() == 1 {
                    frame.draw(&Circle::new(pixels[0], px(2.5), colour.filled()))?;
                } else {
                    line(&frame, pixels, colour, width, surface)?;
                }
            }
        }
        Ok(())
    }
}
