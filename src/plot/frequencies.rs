//! The frequency analysis figure: each link's spectrum as stems (amplitude against frequency,
//! log amplitude), one panel per link, with the fundamental frequencies (and their mirrors at
//! −ν) marked by ticks above the stems.

use super::timeseries::{draw_timeseries, Figure, Panel, Series};
use super::{format_value, PlotError};
use crate::analysis::frequency::OrbitFrequencies;
use std::path::Path;

/// Draws the lines of every link of `r`, titled `{title} ({caption})`.
pub fn draw_frequencies(
    r: &OrbitFrequencies,
    title: &str,
    caption: &str,
    path: &Path,
) -> Result<(), PlotError> {
    let amps = || {
        r.links
            .iter()
            .flat_map(|l| l.lines.iter().map(|x| x.amplitude))
    };
    let top = amps().fold(0.0f64, f64::max);
    let least = amps().filter(|a| *a > 0.0).fold(f64::INFINITY, f64::min);
    // Stems rise from a decade below the weakest line.
    let floor = if least.is_finite() {
        least / 10.0
    } else {
        1e-16
    };
    let top = if top > 0.0 { top * 4.0 } else { 1.0 };
    let mut stems: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for l in &r.links {
        let mut x = Vec::with_capacity(3 * l.lines.len());
        let mut y = Vec::with_capacity(3 * l.lines.len());
        for line in &l.lines {
            x.extend([line.frequency, line.frequency, f64::NAN]);
            y.extend([floor, line.amplitude.max(floor), f64::NAN]);
        }
        stems.push((x, y));
    }
    // Each fundamental and its mirror −ν are marked by a tick above the tallest stem.
    let tick = top / 1.6;
    let marks: Vec<(Vec<f64>, Vec<f64>)> = r
        .fundamentals
        .iter()
        .map(|&f| {
            (
                vec![f, f, f64::NAN, -f, -f],
                vec![tick, top, f64::NAN, tick, top],
            )
        })
        .collect();
    let panels = r
        .links
        .iter()
        .enumerate()
        .map(|(j, l)| {
            let mut series = vec![Series {
                label: format!("link {} ({})", j + 1, l.signal.name()),
                x: &stems[j].0,
                y: &stems[j].1,
                band: None,
            }];
            for (i, (x, y)) in marks.iter().enumerate() {
                series.push(Series {
                    label: format!(
                        "ν{} = {} rad/s (ticks at ±ν{})",
                        i + 1,
                        format_value(r.fundamentals[i], 10),
                        i + 1
                    ),
                    x,
                    y,
                    band: None,
                });
            }
            Panel {
                y_label: format!("amplitude, link {}", j + 1),
                series,
                log_y: true,
            }
        })
        .collect();
    let fig = Figure {
        title: format!("{title} ({caption})"),
        x_label: "angular frequency ω / (rad/s)".into(),
        panels,
        log_x: false,
        size: (1200, 500 + 250 * r.links.len().min(4) as u32),
    };
    draw_timeseries(&fig, path)
}
