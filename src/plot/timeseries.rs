//! Stacked time-series panels sharing one x axis: the figure behind simulate output,
//! Lyapunov convergence and energy budgets.
//!
//! Drawing notes:
//! - NaN (and infinite) values break a line rather than being bridged.
//! - With `log_x`, points with x ≤ 0 are skipped (a run starting at t = 0 loses its first
//!   sample); with `log_y`, y ≤ 0 is skipped and band lower bounds ≤ 0 are clamped to the
//!   bottom of the axis.
//! - Lines are decimated per device pixel column with [`decimate_minmax`], so a series
//!   of 10⁶ points draws in milliseconds and an SVG stays at a few hundred kB while
//!   looking identical at its resolution.

use std::path::Path;

use plotters::prelude::*;

use super::{
    decimate_minmax, draw_centred, draw_polyline, fit_text, font, runs, save, series_color,
    text_width, Area, Axis, DataError, DrawError, Drawn, Legend, LegendEntry, PlotError, Render,
    Surface, LINE_SPACING,
};

/// One line, optionally with a shaded band (e.g. ± one standard error).
#[derive(Debug, Clone)]
pub struct Series<'a> {
    /// Legend text; empty for no legend entry.
    pub label: String,
    pub x: &'a [f64],
    pub y: &'a [f64],
    /// `(lower, upper)`, each as long as `x`.
    pub band: Option<(&'a [f64], &'a [f64])>,
}

/// One panel: series sharing a y axis.
#[derive(Debug, Clone)]
pub struct Panel<'a> {
    /// Axis label including units, e.g. `"energy E / (m g l)"`.
    pub y_label: String,
    pub series: Vec<Series<'a>>,
    pub log_y: bool,
}

/// Panels stacked top to bottom; only the bottom one shows x tick labels.
#[derive(Debug, Clone)]
pub struct Figure<'a> {
    pub title: String,
    /// Shared x axis label including units, e.g. `"time t / s"`.
    pub x_label: String,
    pub panels: Vec<Panel<'a>>,
    pub log_x: bool,
    /// Logical size in pixels: the PNG size, the SVG view box. 1200 × 800 suits 2–3 panels.
    pub size: (u32, u32),
}

/// Draws `fig` to `path` (`.png` or `.svg`).
///
/// Errors: [`PlotError::UnsupportedFormat`] for other extensions; [`PlotError::Data`] for
/// no panels, empty or length-mismatched series, or a series with nothing drawable (all
/// NaN, or nothing positive on a log axis), in which case no file is created.
pub fn draw_timeseries(fig: &Figure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, fig.size)
}

/// Base sizes in logical pixels at 1200 × 800, scaled with the figure.
struct Sizes {
    k: f64,
    title: f64,
    desc: f64,
    tick: f64,
    legend: f64,
}

impl Sizes {
    fn for_figure(w: f64, h: f64) -> Sizes {
        // Geometric mean, so wide-and-short figures keep legible text.
        let k = ((w * h) / (1200.0 * 800.0)).sqrt().clamp(0.8, 2.5);
        Sizes {
            k,
            title: 24.0 * k,
            desc: 19.0 * k,
            tick: 16.0 * k,
            legend: 16.0 * k,
        }
    }
}

impl Figure<'_> {
    fn what(&self, p: usize, s: usize) -> String {
        let panel = &self.panels[p];
        let series = &panel.series[s];
        let name = if series.label.is_empty() {
            format!("#{}", s + 1)
        } else {
            format!("{:?}", series.label)
        };
        format!("series {name} of panel {:?}", panel.y_label)
    }

    fn x_ok(&self, v: f64) -> bool {
        v.is_finite() && (!self.log_x || v > 0.0)
    }

    /// Validates the data and fits the axes.
    fn axes(&self, x_ticks: usize, y_ticks: usize) -> Result<(Axis, Vec<Axis>), DataError> {
        if self.panels.is_empty() {
            return Err(DataError::Empty {
                what: "figure (no panels)".into(),
            });
        }
        for (p, panel) in self.panels.iter().enumerate() {
            if panel.series.is_empty() {
                return Err(DataError::Empty {
                    what: format!("panel {:?} (no series)", panel.y_label),
                });
            }
            for (s, series) in panel.series.iter().enumerate() {
                let what = || self.what(p, s);
                let n = series.x.len();
                if n == 0 {
                    return Err(DataError::Empty { what: what() });
                }
                let mut lens = vec![("y", series.y.len())];
                if let Some((lo, hi)) = series.band {
                    lens.push(("band lower", lo.len()));
                    lens.push(("band upper", hi.len()));
                }
                for (name, len) in lens {
                    if len != n {
                        return Err(DataError::LengthMismatch {
                            what: format!("{} {name}", what()),
                            expected: n,
                            found: len,
                        });
                    }
                }
                let y_ok = |v: f64| v.is_finite() && (!panel.log_y || v > 0.0);
                let drawable = (0..n).any(|i| self.x_ok(series.x[i]) && y_ok(series.y[i]));
                if !drawable {
                    let log = (self.log_x && !series.x.iter().any(|v| *v > 0.0))
                        || (panel.log_y && !series.y.iter().any(|v| *v > 0.0));
                    return Err(if log {
                        DataError::NoPositiveValues { what: what() }
                    } else {
                        DataError::NoFiniteValues { what: what() }
                    });
                }
            }
        }
        let xs = self
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .flat_map(|s| s.x.iter().copied());
        let x_axis = Axis::fit(xs, self.log_x, 0.0, x_ticks, "x")?;
        let mut y_axes = Vec::new();
        for panel in &self.panels {
            let mut ys = Vec::new();
            for s in &panel.series {
                for i in 0..s.x.len() {
                    if !self.x_ok(s.x[i]) {
                        continue;
                    }
                    ys.push(s.y[i]);
                    if let Some((lo, hi)) = s.band {
                        ys.push(lo[i]);
                        ys.push(hi[i]);
                    }
                }
            }
            let what = format!("panel {:?}", panel.y_label);
            y_axes.push(Axis::fit(ys, panel.log_y, 0.05, y_ticks, &what)?);
        }
        Ok((x_axis, y_axes))
    }
}

/// What a panel draws, decimated, in data coordinates; `usize` is the series index.
struct Shapes {
    bands: Vec<(usize, Vec<(f64, f64)>)>,
    lines: Vec<(usize, Vec<(f64, f64)>)>,
}

impl Shapes {
    /// Every vertex (bands and lines): what a legend should not hide.
    fn points(&self) -> impl Iterator<Item = &(f64, f64)> + '_ {
        self.bands
            .iter()
            .chain(&self.lines)
            .flat_map(|(_, pts)| pts.iter())
    }
}

impl Figure<'_> {
    /// Decimated band outlines and polylines of `panel`, split at undrawable points.
    fn shapes(&self, panel: &Panel, y_axis: &Axis, column: impl Fn(f64) -> i64 + Copy) -> Shapes {
        let x_ok = |v: f64| self.x_ok(v);
        let y_ok = |v: f64| y_axis.accepts(v);
        let y_floor = y_axis.bounds().0;
        let mut shapes = Shapes {
            bands: Vec::new(),
            lines: Vec::new(),
        };
        for (s, series) in panel.series.iter().enumerate() {
            let x = series.x;
            if let Some((lo, hi)) = series.band {
                // Log axes cannot show a lower bound <= 0: clamp it to the axis bottom.
                let lower = |i: usize| {
                    if y_axis.is_log() && lo[i] <= 0.0 {
                        y_floor
                    } else {
                        lo[i]
                    }
                };
                let keep = |i: usize| x_ok(x[i]) && y_ok(hi[i]) && y_ok(lower(i));
                for run in runs(x.len(), keep) {
                    let upper = decimate_minmax(run.clone().map(|i| (x[i], hi[i])), column);
                    let bottom = decimate_minmax(run.map(|i| (x[i], lower(i))), column);
                    let outline = upper.into_iter().chain(bottom.into_iter().rev()).collect();
                    shapes.bands.push((s, outline));
                }
            }
            let keep = |i: usize| x_ok(x[i]) && y_ok(series.y[i]);
            for run in runs(x.len(), keep) {
                let line = decimate_minmax(run.map(|i| (x[i], series.y[i])), column);
                shapes.lines.push((s, line));
            }
        }
        shapes
    }

    /// Legend rows: every labelled series, and numbered ones when a panel has several.
    fn legend_entries(&self, panel: &Panel) -> Vec<LegendEntry> {
        let several = panel.series.len() > 1;
        panel
            .series
            .iter()
            .enumerate()
            .filter(|(_, s)| several || !s.label.is_empty())
            .map(|(i, s)| LegendEntry {
                label: if s.label.is_empty() {
                    format!("series {}", i + 1)
                } else {
                    s.label.clone()
                },
                color: series_color(i),
                band: s.band.is_some(),
                marker: None,
            })
            .collect()
    }
}

impl Render for Figure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        self.axes(8, 5).map(|_| ())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let (dw, dh) = root.dim_in_pixel();
        let (w, h) = (f64::from(dw) / scale, f64::from(dh) / scale);
        let sz = Sizes::for_figure(w, h);
        let px = |v: f64| (v * scale).round() as i32;
        let k = sz.k;
        let n = self.panels.len().max(1);

        // Layout in logical pixels.
        let outer = 14.0 * k;
        // A long title wraps (and shrinks) to the width instead of running off both sides.
        let title_fit = fit_text(&self.title, w - 2.0 * outer, sz.title, true, scale, 3);
        let title_line = title_fit.size * LINE_SPACING;
        let title_h = if self.title.trim().is_empty() {
            0.0
        } else {
            title_line * title_fit.lines.len() as f64 + 0.75 * sz.title
        };
        let gap = 14.0 * k;
        let x_area = sz.tick * 1.6 + sz.desc * 1.7;
        let avail = h - 2.0 * outer - title_h - x_area - gap * (n - 1) as f64;
        let panel_h = (avail / n as f64).max(40.0);
        let x_ticks = ((w / 120.0) as usize).clamp(3, 10);
        let y_ticks = ((panel_h / 45.0) as usize).clamp(3, 8);
        let (x_axis, y_axes) = self.axes(x_ticks, y_ticks)?;

        root.fill(&WHITE)?;
        let title_centre = (w / 2.0, outer + 0.25 * sz.title + 0.5 * title_line);
        draw_centred(
            root,
            surface,
            &self.title,
            title_centre,
            w - 2.0 * outer,
            sz.title,
            true,
        )?;

        let tick_font = font(sz.tick, scale, false);
        let room_x = w - 2.0 * outer - 22.0 * k;
        let (y_area, desc) = self.label_room(root, surface, &sz, &y_axes, room_x, panel_h)?;
        let shared = Shared {
            surface,
            x_axis,
            x_area,
            y_area,
            desc,
            tick_font,
            legend: sz.legend,
        };

        let mut breaks = Vec::new();
        let mut top = outer + title_h;
        for i in 0..n {
            breaks.push(px(top));
            top += panel_h + if i + 1 == n { x_area } else { 0.0 };
            breaks.push(px(top));
            top += gap;
        }
        let areas = root.split_by_breakpoints::<i32, i32, _, _>([], &breaks);

        for (p, panel) in self.panels.iter().enumerate() {
            let last = p + 1 == n;
            let area = areas[2 * p + 1].margin(0, 0, px(outer), px(outer + 22.0 * k));
            self.draw_panel(root, &area, &shared, panel, y_axes[p].clone(), last)?;
        }
        Ok(())
    }
}

/// What every panel shares: the x axis, the label areas' sizes and the fonts, so that the
/// panels' plot areas line up.
struct Shared {
    surface: Surface,
    x_axis: Axis,
    /// Height of the x label area (last panel only) and width of the y label area.
    x_area: f64,
    y_area: f64,
    /// Axis description font size, after shrinking to fit.
    desc: f64,
    tick_font: TextStyle<'static>,
    /// Legend font size.
    legend: f64,
}

impl Figure<'_> {
    /// The y label area's width and the axis description size: one width for all panels
    /// keeps their plot areas aligned, and descriptions shrink (never cut) to the plot's
    /// width (`room_x` less the y label area) and the panels' height.
    fn label_room<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        surface: Surface,
        sz: &Sizes,
        y_axes: &[Axis],
        room_x: f64,
        panel_h: f64,
    ) -> Result<(f64, f64), DrawError> {
        let scale = surface.scale;
        let k = sz.k;
        // One y label width for all panels keeps their plot areas aligned.
        let tick_font = font(sz.tick, scale, false);
        let mut tick_w = 0u32;
        for axis in y_axes {
            for t in axis.ticks() {
                tick_w = tick_w.max(root.estimate_text_size(&axis.label(*t), &tick_font)?.0);
            }
        }
        let y_area = f64::from(tick_w) / scale + 12.0 * k + sz.desc * 1.6;
        // Axis descriptions shrink (never cut) to the plot's width and the panels' height.
        let mut desc = sz.desc;
        let room_x = room_x - y_area;
        let fits = |d: f64| {
            text_width(&self.x_label, d, false, scale) <= room_x
                && self
                    .panels
                    .iter()
                    .all(|p| text_width(&p.y_label, d, false, scale) <= panel_h)
        };
        while desc > 6.0 && !fits(desc) {
            desc *= 0.95;
        }
        Ok((y_area, desc))
    }

    /// One panel in `area`: chart, legend corner (stretching the y axis if every corner
    /// hides data), grid and labels, then bands, lines, frame and legend.
    fn draw_panel<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        area: &Area<DB>,
        shared: &Shared,
        panel: &Panel,
        y_axis: Axis,
        last: bool,
    ) -> Drawn {
        let surface = shared.surface;
        let scale = surface.scale;
        let px = |v: f64| (v * scale).round() as i32;
        let x_axis = &shared.x_axis;
        let build = |y_axis: &Axis| {
            ChartBuilder::on(area)
                .y_label_area_size(px(shared.y_area))
                .x_label_area_size(if last { px(shared.x_area) } else { 0 })
                .build_cartesian_2d(x_axis.clone(), y_axis.clone())
        };
        let mut y_axis = y_axis;
        let mut chart = build(&y_axis)?;
        let (pw, ph) = chart.plotting_area().dim_in_pixel();
        let column = |x: f64| (x_axis.fraction(x) * f64::from(pw)).floor() as i64;
        let shapes = self.shapes(panel, &y_axis, column);

        // Legend: the emptiest corner; if every corner hides data, stretch the y axis
        // upwards (at most 1.6×) so that an upper corner is free.
        let entries = self.legend_entries(panel);
        let legend = Legend::new(root, entries, scale, shared.legend)?;
        let mut corner = None;
        if !legend.is_empty() {
            let (best, stretch) = legend_corner(&legend, &shapes, x_axis, &y_axis, (pw, ph), scale);
            corner = Some(best);
            if let Some(factor) = stretch {
                y_axis = y_axis.with_headroom(factor * 1.01);
                chart = build(&y_axis)?;
            }
        }

        self.panel_mesh(&mut chart, shared, panel, &y_axis, last)?;

        let thin = px(1.0).max(1) as u32;
        let plot = chart.plotting_area();
        for (s, band) in &shapes.bands {
            plot.draw(&Polygon::new(
                band.clone(),
                series_color(*s).mix(0.22).filled(),
            ))?;
        }
        for (s, line) in &shapes.lines {
            draw_polyline(plot, line, series_color(*s), 2.0, surface)?;
        }
        let frame = plot.strip_coord_spec();
        frame.draw(&Rectangle::new(
            [(0, 0), (pw as i32 - 1, ph as i32 - 1)],
            RGBColor(0x44, 0x44, 0x44).stroke_width(thin),
        ))?;
        if let Some(c) = corner {
            legend.draw(&frame, c)?;
        }
        Ok(())
    }

    /// Grid, ticks and axis descriptions of one panel (the x description on the last only).
    fn panel_mesh<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<Axis, Axis>>,
        shared: &Shared,
        panel: &Panel,
        y_axis: &Axis,
        last: bool,
    ) -> Drawn {
        let scale = shared.surface.scale;
        let px = |v: f64| (v * scale).round() as i32;
        let x_axis = &shared.x_axis;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let y_fmt = |v: &f64| y_axis.label(*v);
        let thin = px(1.0).max(1) as u32;
        let mut mesh = chart.configure_mesh();
        mesh.bold_line_style(RGBColor(0xdd, 0xdd, 0xdd).stroke_width(thin))
            .light_line_style(RGBColor(0xee, 0xee, 0xee).stroke_width(thin))
            .axis_style(RGBColor(0x44, 0x44, 0x44).stroke_width(thin))
            .set_all_tick_mark_size(px(5.0))
            .label_style(shared.tick_font.clone())
            .axis_desc_style(font(shared.desc, scale, false))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .y_desc(crate::plot::labels::y_desc(panel.y_label.as_str()));
        if last {
            mesh.x_desc(crate::plot::labels::x_desc(self.x_label.as_str()));
        }
        mesh.draw()?;
        Ok(())
    }
}

/// The legend's corner in a `(pw, ph)` plot: the one hiding the fewest points, and, when every
/// corner hides some, the upper corner needing the least y headroom with that factor if it is
/// at most 1.6 (the caller stretches the axis by it).
fn legend_corner(
    legend: &Legend,
    shapes: &Shapes,
    x_axis: &Axis,
    y_axis: &Axis,
    (pw, ph): (u32, u32),
    scale: f64,
) -> ((i32, i32), Option<f64>) {
    let px = |v: f64| (v * scale).round() as i32;
    let to_px = |f: &(f64, f64)| {
        let (fx, fy) = (x_axis.fraction(f.0), y_axis.fraction(f.1));
        (
            (fx * f64::from(pw)) as i32,
            ((1.0 - fy) * f64::from(ph)) as i32,
        )
    };
    let occupied: Vec<(i32, i32)> = shapes.points().map(to_px).collect();
    let (best, hidden) = legend.place((pw, ph), &occupied);
    if hidden > 0 {
        let (lw, lh) = legend.size();
        let room = 1.0 - f64::from(lh + px(14.0)) / f64::from(ph);
        let corners = legend.corners((pw, ph));
        let need = |c: (i32, i32)| {
            shapes
                .points()
                .filter(|q| {
                    let (x, _) = to_px(q);
                    x >= c.0 - px(4.0) && x <= c.0 + lw + px(4.0)
                })
                .map(|q| y_axis.fraction(q.1))
                .fold(0.0f64, f64::max)
                / room
        };
        let (factor, c) = [corners[0], corners[1]]
            .into_iter()
            .map(|c| (need(c), c))
            .fold(
                (f64::INFINITY, corners[0]),
                |a, b| if b.0 < a.0 { b } else { a },
            );
        if factor > 1.0 && factor <= 1.6 {
            return (c, Some(factor));
        }
    }
    (best, None)
}
