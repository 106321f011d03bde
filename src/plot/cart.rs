//! The cart-chain figure: the chain in two projections, top (e₁–e₂) and side (e₁–e₃, gravity
//! down the page), drawn at a few instants (light to dark), with the tip's trace over the run.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    begin_figure, draw_polyline, font, save, series_color, DataError, DrawError, PlotError, Render,
    Surface,
};

/// What the figure needs: for each sample, the cart and mass positions ((n + 1) × 3).
pub struct CartFigure<'a> {
    pub title: String,
    pub frames: &'a [Vec<[f64; 3]>],
    /// Chain drawings (evenly spaced samples), at least 1.
    pub snapshots: usize,
}

/// Draws the figure to `path` (`.png` or `.svg`).
pub fn draw_cart_chain(fig: &CartFigure, path: &Path) -> Result<(), PlotError> {
    save(fig, path, (1400, 720))
}

impl Render for CartFigure<'_> {
    fn validate(&self) -> Result<(), DataError> {
        if self.frames.is_empty() {
            return Err(DataError::Empty {
                what: "trajectory".into(),
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
        let scale = surface.scale;
        let (w, h) = begin_figure(root, surface, &self.title, 26.0)?;
        let px = |v: f64| surface.px(v);
        let top = 50.0;
        let panel_w = (w - 60.0) / 2.0;
        let panel_h = h - top - 20.0;
        // (horizontal axis, vertical axis, sign of vertical): top view e₁ → e₂; side view e₁ → −e₃.
        let views = [
            ("top view (e1, e2)", 1usize, 1.0),
            ("side view (e1, -e3: up)", 2usize, -1.0),
        ];
        for (v, (caption, vert, sign)) in views.iter().enumerate() {
            let area = root.clone().shrink(
                (px(20.0 + v as f64 * (panel_w + 20.0)), px(top)),
                (px(panel_w) as u32, px(panel_h) as u32),
            );
            let coord = |p: &[f64; 3]| (p[0], sign * p[*vert]);
            let pts: Vec<(f64, f64)> = self.frames.iter().flatten().map(coord).collect();
            let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
            for (x, y) in &pts {
                x0 = x0.min(*x);
                x1 = x1.max(*x);
                y0 = y0.min(*y);
                y1 = y1.max(*y);
            }
            // Equal aspect with a margin.
            let (aw, ah) = area.dim_in_pixel();
            let span = ((x1 - x0).max(y1 - y0) * 1.15).max(1e-6);
            let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
            let ratio = f64::from(aw) / f64::from(ah).max(1.0);
            let (sx, sy) = if ratio >= 1.0 {
                (span * ratio, span)
            } else {
                (span, span / ratio)
            };
            let mut chart = ChartBuilder::on(&area)
                .caption(*caption, font(16.0, scale, false))
                .margin(px(8.0))
                .x_label_area_size(px(36.0))
                .y_label_area_size(px(52.0))
                .build_cartesian_2d(cx - sx / 2.0..cx + sx / 2.0, cy - sy / 2.0..cy + sy / 2.0)?;
            chart
                .configure_mesh()
                .x_desc("e1 / m")
                .y_desc(if *vert == 1 { "e2 / m" } else { "height / m" })
                .label_style(font(13.0, scale, false))
                .axis_desc_style(font(14.0, scale, false))
                .light_line_style(RGBColor(0xee, 0xee, 0xee))
                .draw()?;
            let plot = chart.plotting_area();
            let tip: Vec<(f64, f64)> = self
                .frames
                .iter()
                .map(|f| coord(f.last().expect("non-empty frame")))
                .collect();
            draw_polyline(plot, &tip, series_color(1), 1.2, surface)?;
            let m = self.snapshots.max(1);
            for s in 0..m {
                let k = if m == 1 {
                    0
                } else {
                    s * (self.frames.len() - 1) / (m - 1)
                };
                let shade = 0.75 - 0.75 * s as f64 / m.max(2) as f64;
                let base = series_color(0);
                let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * shade) as u8;
                let color = RGBColor(mix(base.0), mix(base.1), mix(base.2));
                let chain: Vec<(f64, f64)> = self.frames[k].iter().map(coord).collect();
                draw_polyline(plot, &chain, color, 2.0, surface)?;
                for p in &chain[1..] {
                    plot.draw(&Circle::new(*p, px(3.0) as u32, color.filled()))?;
                }
                plot.draw(&Rectangle::new(
                    [
                        (chain[0].0 - 0.04 * span, chain[0].1 - 0.015 * span),
                        (chain[0].0 + 0.04 * span, chain[0].1 + 0.015 * span),
                    ],
                    RGBColor(0x44, 0x44, 0x44).filled(),
                ))?;
            }
        }
        Ok(())
    }
}
