//! The cart-chain figure: the chain in two projections, top (e₁–e₂) and side (e₁ against the
//! height −e₃), drawn at a few instants, each in its own colour and named with its time in a
//! legend, with the tip's trace over the run.
//!
//! The instants are spread evenly along the motion (the path length of all masses), not in
//! time: a stabilized chain moves in its first seconds and then rests, and instants evenly
//! spaced in time would all show the same upright chain.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    begin_figure, draw_centred, draw_foot_legend, draw_polyline, format_value, house_mesh, save,
    series_color, Axis, DataError, DrawError, Header, PlotError, Render, Surface,
};

/// What the figure needs: for each sample, its time and the cart and mass positions
/// ((n + 1) × 3).
pub struct CartFigure<'a> {
    pub title: String,
    pub frames: &'a [Vec<[f64; 3]>],
    /// Sample times (s), one per frame.
    pub times: &'a [f64],
    /// Chain drawings, at least 1.
    pub snapshots: usize,
}

/// Draws the figure to `path` (`.png` or `.svg`).
pub fn draw_cart_chain(fig: &CartFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1400, 760))
}

/// A side view whose horizontal extent is this much smaller than its height (relative to the
/// panel) is stretched horizontally, and says so, instead of drawing a vertical line.
const MAX_SQUASH: f64 = 2.0;

/// The colour of snapshot `s` of `m`: viridis from dark violet to green (its pale yellow end
/// would vanish on white).
pub fn snapshot_colour(s: usize, m: usize) -> RGBColor {
    let f = if m <= 1 {
        0.0
    } else {
        s as f64 / (m - 1) as f64
    };
    let c = colorous::VIRIDIS.eval_continuous(0.82 * f);
    RGBColor(c.r, c.g, c.b)
}

impl CartFigure<'_> {
    /// The frames drawn: `snapshots` indices evenly spaced in the path length travelled by the
    /// cart and masses (first and last frame included; evenly in time if nothing moves).
    pub fn instants(&self) -> Vec<usize> {
        let n = self.frames.len();
        let m = self.snapshots.max(1).min(n);
        if m == 1 {
            return vec![0];
        }
        let mut arc = vec![0.0];
        for k in 1..n {
            let step: f64 = self.frames[k]
                .iter()
                .zip(&self.frames[k - 1])
                .map(|(a, b)| {
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
                })
                .sum();
            arc.push(arc[k - 1] + step);
        }
        let total = arc[n - 1];
        let mut out: Vec<usize> = (0..m)
            .map(|s| {
                // The last instant is the end of the run, even after the motion has died out.
                if s == m - 1 {
                    return n - 1;
                }
                if !(total > 0.0 && total.is_finite()) {
                    return s * (n - 1) / (m - 1);
                }
                let target = total * s as f64 / (m - 1) as f64;
                arc.partition_point(|&a| a < target).min(n - 1)
            })
            .collect();
        out.dedup();
        out
    }
}

impl Render for CartFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.frames.is_empty() || self.frames.iter().any(|f| f.is_empty()) {
            return Err(DataError::Empty {
                what: "trajectory".into(),
            });
        }
        if self.times.len() != self.frames.len() {
            return Err(DataError::LengthMismatch {
                what: "sample times".into(),
                expected: self.frames.len(),
                found: self.times.len(),
            });
        }
        if self
            .frames
            .iter()
            .flatten()
            .flatten()
            .any(|v| !v.is_finite())
        {
            return Err(DataError::NoFiniteValues {
                what: "chain positions".into(),
            });
        }
        Ok(())
    }

    fn render<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        surface: Surface,
    ) -> Result<(), DrawError> {
        let Header { w, h, extra } = begin_figure(root, surface, &self.title, 26.0)?;
        let px = |v: f64| surface.px(v);
        let top = 50.0 + extra;
        let legend_h = 40.0;
        let panel_h = h - top - legend_h - 6.0;
        // The top view is square-ish (both axes horizontal, equal aspect); the side view gets
        // the rest of the width.
        let top_w = (panel_h * 1.05).min(0.5 * (w - 60.0));
        let widths = [top_w, w - 60.0 - top_w];
        let instants = self.instants();
        let mut x_left = 20.0;
        for v in 0..2 {
            let area = root.clone().shrink(
                (px(x_left), px(top)),
                (px(widths[v]) as u32, px(panel_h) as u32),
            );
            x_left += widths[v] + 20.0;
            let caption = (x_left - 20.0 - widths[v] / 2.0, top + 12.0, widths[v]);
            self.view(root, &area, surface, v == 1, caption, &instants)?;
        }
        self.legend(root, surface, &instants, (w, h, legend_h))
    }
}

impl CartFigure<'_> {
    /// One view in `area`: the top view (e₁, e₂) or the side view (e₁, height −e₃), equal
    /// scales unless that would squash the side view; `caption` is (centre x, y, panel width).
    fn view<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        area: &DrawingArea<DB, Shift>,
        surface: Surface,
        side: bool,
        (cap_x, cap_y, cap_w): (f64, f64, f64),
        instants: &[usize],
    ) -> Result<(), DrawError> {
        let scale = surface.scale;
        let px = |v: f64| surface.px(v);
        let thin = surface.stroke(1.0);
        let (vert, sign) = if side { (2usize, -1.0) } else { (1usize, 1.0) };
        let coord = |p: &[f64; 3]| (p[0], sign * p[vert]);
        let caption_h = 30.0;
        let (lab_x, lab_y) = (48.0, 72.0);
        let plot_area = area.margin(px(caption_h), px(8.0), px(8.0), px(8.0));
        // The plotting area's size in device pixels, as the chart will lay it out.
        let (pw, ph) = plot_area.dim_in_pixel();
        let aw = (f64::from(pw) - f64::from(px(lab_y))).max(1.0);
        let ah = (f64::from(ph) - f64::from(px(lab_x))).max(1.0);
        let (x_axis, y_axis, stretch) = self.view_axes(&coord, side, aw, ah);
        let caption = if !side {
            "top view (e₁, e₂), equal scales".to_string()
        } else if stretch > 1.05 {
            format!(
                "side view (e₁, height −e₃); e₁ stretched ×{} for legibility",
                format_value(stretch, if stretch < 10.0 { 1 } else { 0 })
            )
        } else {
            "side view (e₁, height −e₃), equal scales".to_string()
        };
        draw_centred(
            root,
            surface,
            &caption,
            (cap_x, cap_y),
            cap_w - 10.0,
            16.0,
            false,
        )?;
        let mut chart = ChartBuilder::on(&plot_area)
            .x_label_area_size(px(lab_x))
            .y_label_area_size(px(lab_y))
            .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
        let x_fmt = |v: &f64| x_axis.label(*v);
        let y_fmt = |v: &f64| y_axis.label(*v);
        house_mesh(&mut chart, thin, scale, (13.0, 15.0))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(crate::plot::labels::x_desc("e₁ / m"))
            .y_desc(crate::plot::labels::y_desc(if side {
                "height / m"
            } else {
                "e₂ / m"
            }))
            .draw()?;
        self.snapshots(chart.plotting_area(), surface, &coord, instants)
    }

    /// The view's axes for an `aw` × `ah` pixel plot: every position fits with a margin at
    /// equal scales, unless the side view would shrink to a line; then e₁ is stretched until
    /// the motion fills 60 % of the width (the stretch factor is returned for the caption).
    fn view_axes(
        &self,
        coord: &dyn Fn(&[f64; 3]) -> (f64, f64),
        side: bool,
        aw: f64,
        ah: f64,
    ) -> (Axis, Axis, f64) {
        let pts: Vec<(f64, f64)> = self.frames.iter().flatten().map(coord).collect();
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (x, y) in &pts {
            x0 = x0.min(*x);
            x1 = x1.max(*x);
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
        // Equal aspect with a margin, unless the side view would shrink to a line.
        let (wx, wy) = ((x1 - x0).max(1e-9), (y1 - y0).max(1e-9));
        let per_px = (wy / ah).max(wx / aw) * 1.12;
        let (mut sx, sy) = (per_px * aw, per_px * ah);
        let mut stretch = 1.0;
        if side && (wy / ah) / (wx / aw) > MAX_SQUASH {
            // Stretch e₁ until the motion fills 60 % of the width.
            let fill = wx / 0.6;
            stretch = sx / fill;
            sx = fill;
        }
        let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        let x_axis = Axis::linear(cx - sx / 2.0, cx + sx / 2.0, 6);
        let y_axis = Axis::linear(cy - sy / 2.0, cy + sy / 2.0, 7);
        (x_axis, y_axis, stretch)
    }

    /// The tip's path, then the chain at each instant in its colour: cart body, links, joints.
    fn snapshots<DB: DrawingBackend>(
        &self,
        plot: &DrawingArea<DB, Cartesian2d<Axis, Axis>>,
        surface: Surface,
        coord: &dyn Fn(&[f64; 3]) -> (f64, f64),
        instants: &[usize],
    ) -> Result<(), DrawError> {
        let px = |v: f64| surface.px(v);
        let m = instants.len();
        let tip: Vec<(f64, f64)> = self
            .frames
            .iter()
            .map(|f| coord(f.last().expect("validated: non-empty frame")))
            .collect();
        draw_polyline(plot, &tip, series_color(1), 1.2, surface)?;
        // The cart body: a fixed size on the page, so it never hides a short chain.
        let (bw, bh) = (px(9.0), px(4.0));
        for (s, &k) in instants.iter().enumerate() {
            let colour = snapshot_colour(s, m);
            let chain: Vec<(f64, f64)> = self.frames[k].iter().map(coord).collect();
            let (cxp, cyp) = plot.map_coordinate(&chain[0]);
            let screen = plot.strip_coord_spec();
            let (ox, oy) = plot.get_base_pixel();
            screen.draw(&Rectangle::new(
                [
                    (cxp - ox - bw, cyp - oy - bh),
                    (cxp - ox + bw, cyp - oy + bh),
                ],
                colour.mix(0.6).filled(),
            ))?;
            draw_polyline(plot, &chain, colour, 2.0, surface)?;
            for p in &chain[1..] {
                plot.draw(&Circle::new(*p, px(3.5) as u32, colour.filled()))?;
            }
        }
        Ok(())
    }

    /// Legend: which colour is which instant, and the tip's trace.
    fn legend<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        surface: Surface,
        instants: &[usize],
        (w, h, legend_h): (f64, f64, f64),
    ) -> Result<(), DrawError> {
        let m = instants.len();
        let mut entries: Vec<(Vec<RGBColor>, String)> = instants
            .iter()
            .enumerate()
            .map(|(s, &k)| {
                (
                    vec![snapshot_colour(s, m)],
                    format!("t = {} s", format_value(self.times[k], 2)),
                )
            })
            .collect();
        entries.push((vec![series_color(1)], "path of the tip".into()));
        draw_foot_legend(root, surface, &entries, (w, h), (legend_h, 4.0), 15.0)?;
        Ok(())
    }
}
