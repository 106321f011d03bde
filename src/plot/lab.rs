//! The visual lab's still figures: the long-time trace of a link end ("spirograph"), phase
//! portraits θ_j–θ̇_j, and the energy budget (stacked per-link kinetic energy, potential, and
//! the work of damping and drive, so that the balance visibly closes).

use super::{
    begin_figure, draw_centred, font, save, series_color, stamp_polyline, Area, Axis, DataError,
    Drawn, Header,
};
use super::{house_mesh, DrawError, PlotError, Render, Surface};
use crate::analysis::animate::LinkEndPath;
use crate::analysis::{EnergyBudget, Trajectory};
use crate::model::angle::wrap_closed_open;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::f64::consts::PI;
use std::path::Path;

/// Colour levels a colour-coded path is drawn with.
const LEVELS: usize = 64;

/// What colours the spirograph's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceColour {
    /// viridis from t = 0 (dark) to the end (yellow).
    #[default]
    Time,
    /// viridis by the point's speed |ṙ|, from 0 to the largest speed.
    Speed,
}

/// Draws `points` (logical pixels in `root`) in `LEVELS` colour bands of `value ∈ [0, 1]`.
fn draw_coloured_path<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[(f64, f64)],
    value: &[f64],
    surface: Surface,
    width: f64,
) -> Result<(), DrawError> {
    let level = |v: f64| ((v.clamp(0.0, 1.0) * (LEVELS - 1) as f64).round()) as usize;
    let dev = |p: (f64, f64)| surface_px(surface, p);
    let mut i = 0;
    while i + 1 < points.len() {
        let lv = level(value[i + 1]);
        let mut j = i + 1;
        while j + 1 < points.len() && level(value[j + 1]) == lv {
            j += 1;
        }
        let c = colorous::VIRIDIS.eval_rational(lv, LEVELS);
        let pts = (i..=j).map(|m| dev(points[m])).collect();
        stamp_polyline(root, pts, RGBColor(c.r, c.g, c.b), surface.stroke(width))?;
        i = j;
    }
    Ok(())
}

fn surface_px(surface: Surface, p: (f64, f64)) -> (i32, i32) {
    (surface.px(p.0), surface.px(p.1))
}

/// The path of a link's lower end over a whole trajectory, coloured by time or speed.
pub struct Spirograph<'a> {
    pub path: &'a LinkEndPath,
    pub colour: TraceColour,
    pub title: String,
}

impl Render for Spirograph<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.path.t.len() < 2 {
            return Err(DataError::Empty {
                what: "trajectory (fewer than 2 samples)".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 24.0)?;
        let (pos, speed, reach) = (&self.path.position, &self.path.speed, self.path.reach);
        let (top, bottom) = (50.0 + extra, 46.0);
        let side = (w - 20.0).min(h - top - bottom);
        let (cx, cy, s) = (w / 2.0, top + side / 2.0, 0.5 * side / (1.04 * reach));
        let pts: Vec<(f64, f64)> = pos.iter().map(|p| (cx + s * p[0], cy - s * p[1])).collect();
        let t_end = *self.path.t.last().unwrap();
        let v_max = speed.iter().copied().fold(0.0, f64::max);
        let value: Vec<f64> = match self.colour {
            TraceColour::Time => self.path.t.iter().map(|t| t / t_end).collect(),
            TraceColour::Speed => speed
                .iter()
                .map(|v| if v_max > 0.0 { v / v_max } else { 0.0 })
                .collect(),
        };
        root.draw(&Circle::new(
            surface_px(surface, (cx, cy)),
            surface.px(3.0),
            RGBColor(0x44, 0x44, 0x44).filled(),
        ))?;
        draw_coloured_path(root, &pts, &value, surface, 1.0)?;
        let what = match self.colour {
            TraceColour::Time => format!("colour: time, 0 → {t_end:.0} s (viridis)"),
            TraceColour::Speed => format!("colour: speed, 0 → {v_max:.2} m/s (viridis)"),
        };
        let caption = format!("end of link {}; {what}", self.path.link + 1);
        draw_centred(
            root,
            surface,
            &caption,
            (w / 2.0, h - 22.0),
            w - 20.0,
            15.0,
            false,
        )?;
        Ok(())
    }
}

/// Draws the spirograph to `path` (PNG or SVG), 900 × 940.
pub fn draw_spirograph(fig: &Spirograph, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (900, 940))
}

/// Phase portraits θ_j–θ̇_j for chosen links, angles wrapped into [−π, π) for display (a
/// segment that crosses the cut is not drawn across the panel).
pub struct PhasePortrait<'a> {
    pub tr: &'a Trajectory,
    /// 0-based links, one panel each.
    pub links: Vec<usize>,
    pub title: String,
}

impl PhasePortrait<'_> {
    /// Logical size: 520 × 480 per panel, up to three in a row.
    pub fn size(&self) -> (u32, u32) {
        let k = self.links.len().max(1);
        let cols = k.min(3);
        let rows = k.div_ceil(cols);
        (cols as u32 * 520 + 20, rows as u32 * 480 + 70)
    }
}

impl Render for PhasePortrait<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.links.is_empty() || self.tr.len() < 2 {
            return Err(DataError::Empty {
                what: "phase portrait (no links or samples)".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 24.0)?;
        let k = self.links.len();
        let cols = k.min(3);
        let rows = k.div_ceil(cols);
        let top = 50.0 + extra;
        let (cell_w, cell_h) = ((w - 10.0) / cols as f64, (h - top - 10.0) / rows as f64);
        let thin = surface.stroke(1.0);
        let t_end = *self.tr.t.last().unwrap();
        for (p, &j) in self.links.iter().enumerate() {
            let (r, c) = (p / cols, p % cols);
            let area = root.clone().shrink(
                (px(5.0 + c as f64 * cell_w), px(top + r as f64 * cell_h)),
                (px(cell_w) as u32, px(cell_h) as u32),
            );
            let omega = self.tr.omega.column(j).to_vec();
            let y_axis = Axis::fit(omega.iter().copied(), false, 0.04, 6, "angular velocity")?;
            let mut chart = ChartBuilder::on(&area)
                .caption(format!("link {}", j + 1), font(17.0, scale, false))
                .margin(px(8.0))
                .x_label_area_size(px(48.0))
                .y_label_area_size(px(70.0))
                .build_cartesian_2d(Axis::linear(-PI, PI, 5), y_axis.clone())?;
            let y_fmt = |v: &f64| y_axis.label(*v);
            house_mesh(&mut chart, thin, scale, (14.0, 16.0))
                .y_label_formatter(&y_fmt)
                .x_desc(crate::plot::labels::x_desc(format!(
                    "θ{} (wrapped) / rad",
                    j + 1
                )))
                .y_desc(crate::plot::labels::y_desc(format!(
                    "ω{} = dθ{}/dt / rad s⁻¹",
                    j + 1,
                    j + 1
                )))
                .draw()?;
            let plot = chart.plotting_area();
            let screen = plot.strip_coord_spec();
            let (ox, oy) = plot.get_base_pixel();
            let theta = self.tr.theta.column(j);
            let mut run: Vec<(i32, i32)> = Vec::new();
            let mut lv_run = usize::MAX;
            let flush = |run: &mut Vec<(i32, i32)>, lv: usize| -> Result<(), DrawError> {
                if run.len() > 1 {
                    let c = colorous::VIRIDIS.eval_rational(lv, LEVELS);
                    stamp_polyline(&screen, std::mem::take(run), RGBColor(c.r, c.g, c.b), thin)?;
                }
                run.clear();
                Ok(())
            };
            for i in 0..self.tr.len() {
                let th = wrap_closed_open(theta[i]);
                let lv = ((self.tr.t[i] / t_end) * (LEVELS - 1) as f64).round() as usize;
                let cut = i > 0 && (wrap_closed_open(theta[i - 1]) - th).abs() > PI;
                let (x, y) = plot.map_coordinate(&(th, omega[i]));
                if cut || lv != lv_run {
                    let last = run.last().copied();
                    flush(&mut run, lv_run)?;
                    if let (false, Some(l)) = (cut, last) {
                        run.push(l);
                    }
                    lv_run = lv;
                }
                run.push((x - ox, y - oy));
            }
            flush(&mut run, lv_run)?;
        }
        Ok(())
    }
}

/// Draws the phase portraits to `path` (PNG or SVG).
pub fn draw_phase_portrait(fig: &PhasePortrait, path: &Path) -> Result<(), PlotError> {
    save(fig, path, fig.size())
}

/// The energy budget over time: bands of T_1 … T_N, then V − V_min, then (when damped or
/// driven) −W, the work dissipated (a band below zero where the drive injected more than
/// damping took). Their top is E(0) − V_min at every t when the integrator is exact, drawn as
/// a dashed line.
pub struct EnergyFigure<'a> {
    pub budget: &'a EnergyBudget,
    pub title: String,
}

impl EnergyFigure<'_> {
    /// The stacked bands' upper edges (J above V_min): T_1, T_1 + T_2, …, + (V − V_min),
    /// + (−W). Row k of band b.
    pub fn stack(&self) -> Vec<Vec<f64>> {
        let b = self.budget;
        let n = b.kinetic.ncols();
        let rows = b.t.len();
        let mut bands = Vec::with_capacity(n + 2);
        let mut acc = vec![0.0; rows];
        for j in 0..n {
            for k in 0..rows {
                acc[k] += b.kinetic[[k, j]];
            }
            bands.push(acc.clone());
        }
        for k in 0..rows {
            acc[k] += b.potential[k] - b.potential_floor;
        }
        bands.push(acc.clone());
        if b.has_work() {
            for k in 0..rows {
                acc[k] -= b.work[k];
            }
            bands.push(acc.clone());
        }
        bands
    }
}

impl Render for EnergyFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.budget.t.len() < 2 {
            return Err(DataError::Empty {
                what: "energy budget (fewer than 2 samples)".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(&self, root: &Area<DB>, surface: Surface) -> Drawn {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let b = self.budget;
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 24.0)?;
        let stack = self.stack();
        let n = b.kinetic.ncols();
        let e0 = b.total[0] - b.potential_floor;
        let ys = stack
            .iter()
            .flatten()
            .copied()
            .chain([0.0, e0])
            .chain(b.work.iter().map(|w| w.min(0.0)));
        let y_axis = Axis::fit(ys, false, 0.04, 7, "energy")?;
        let x_axis = Axis::fit(b.t.iter().copied(), false, 0.0, 10, "time")?;
        let legend_h = 34.0;
        let area = root.clone().shrink(
            (px(10.0), px(44.0 + extra)),
            (px(w - 20.0) as u32, px(h - 44.0 - extra - legend_h) as u32),
        );
        let thin = surface.stroke(1.0);
        let mut chart = ChartBuilder::on(&area)
            .margin(px(10.0))
            .x_label_area_size(px(50.0))
            .y_label_area_size(px(80.0))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let y_fmt = |v: &f64| y_axis.label(*v);
        let x_fmt = |v: &f64| x_axis.label(*v);
        house_mesh(&mut chart, thin, scale, (15.0, 17.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(crate::plot::labels::x_desc("time t / s"))
            .y_desc(crate::plot::labels::y_desc(
                "energy above the hanging rest / J",
            ))
            .draw()?;
        // Column-decimated bands: one polygon per band between its lower and upper edge.
        let cols = (px(w) as usize).max(2);
        let step = (b.t.len() / cols).max(1);
        let idx: Vec<usize> = (0..b.t.len())
            .step_by(step)
            .chain(std::iter::once(b.t.len() - 1))
            .collect();
        let zero = vec![0.0; b.t.len()];
        let colours: Vec<RGBColor> = (0..n)
            .map(series_color)
            .chain([RGBColor(0xb0, 0xb0, 0xb0), RGBColor(0xe8, 0xc5, 0x6e)])
            .collect();
        for (bi, upper) in stack.iter().enumerate() {
            let lower = if bi == 0 { &zero } else { &stack[bi - 1] };
            let mut poly: Vec<(f64, f64)> = idx.iter().map(|&k| (b.t[k], upper[k])).collect();
            poly.extend(idx.iter().rev().map(|&k| (b.t[k], lower[k])));
            chart.draw_series(std::iter::once(Polygon::new(poly, colours[bi].mix(0.85))))?;
        }
        let (t0, t1) = (b.t[0], *b.t.last().unwrap());
        chart.draw_series(DashedLineSeries::new(
            [(t0, e0), (t1, e0)],
            px(8.0) as u32,
            px(5.0) as u32,
            BLACK.stroke_width(surface.stroke(1.5)),
        ))?;
        // Legend row.
        let mut labels: Vec<(RGBColor, String)> = (0..n)
            .map(|j| (colours[j], format!("T{}", j + 1)))
            .collect();
        labels.truncate(8);
        labels.push((colours[n], "V − V_min".into()));
        if b.has_work() {
            labels.push((colours[n + 1], "−W (dissipated)".into()));
        }
        labels.push((BLACK, "E(0) − V_min".into()));
        let y = px(h - legend_h / 2.0);
        let slot = (w - 40.0) / labels.len() as f64;
        for (i, (c, label)) in labels.into_iter().enumerate() {
            let x = px(20.0 + slot * i as f64);
            root.draw(&Rectangle::new(
                [(x, y - px(6.0)), (x + px(14.0), y + px(6.0))],
                c.filled(),
            ))?;
            root.draw(&Text::new(
                label,
                (x + px(20.0), y),
                font(15.0, scale, false).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        Ok(())
    }
}

/// Draws the energy budget to `path` (PNG or SVG), 1200 × 700.
pub fn draw_energy_budget(fig: &EnergyFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1200, 700))
}
