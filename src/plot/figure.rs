//! Draws a result's figure given as data ([`crate::finding::Figure`]): the line figure of
//! [`super::timeseries`], so every analysis kind's figure comes through here.

use super::timeseries::{draw_timeseries, Figure, Panel, Series};
use super::PlotError;
use crate::finding;
use std::path::Path;

/// Draws `fig` to `path` (`.png` or `.svg`).
pub fn draw_figure(fig: &finding::Figure, path: &Path) -> Result<(), PlotError> {
    let panels = fig
        .panels
        .iter()
        .map(|p| Panel {
            y_label: p.y_label.clone(),
            series: p
                .lines
                .iter()
                .map(|l| Series {
                    label: l.label.clone(),
                    x: &l.x,
                    y: &l.y,
                    band: None,
                })
                .collect(),
            log_y: p.log_y,
        })
        .collect();
    let drawn = Figure {
        title: fig.title.clone(),
        x_label: fig.x_label.clone(),
        panels,
        log_x: fig.log_x,
        size: fig.size,
    };
    draw_timeseries(&drawn, path)
}
