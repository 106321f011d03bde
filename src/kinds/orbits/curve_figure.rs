//! A curve run's figure: the stability chart over (p₁, p₂) ([`crate::plot::orbits::chart`]),
//! from the curves, their starts, their codimension-2 points and the chart's shading.

use super::curves::Curves;
use super::table::OrbitsRun;
use crate::plot::orbits::{draw_stability_chart, ChartCells, ChartCurve, StabilityChart};
use crate::plot::PlotError;
use std::path::Path;

/// Draws the stability chart of `c` (a curve run of `run`) titled `title` to `path`; nothing
/// when no curve has a point (an interrupted run).
pub(super) fn draw(title: &str, run: &OrbitsRun, c: &Curves, path: &Path) -> Result<(), PlotError> {
    if c.curves.iter().all(|k| k.curve.points.is_empty()) {
        return Ok(());
    }
    let label = |long: &str, units: &str| crate::model::axis_label(long, units);
    let x_label = run
        .parameter
        .as_ref()
        .map_or(String::new(), |p| label(&p.long_name, &p.units));
    let y_label = run.curve.as_ref().map_or(String::new(), |s| {
        label(&s.parameter2.long_name, &s.parameter2.units)
    });
    let curves: Vec<ChartCurve> = c
        .curves
        .iter()
        .map(|k| ChartCurve {
            p1: k.curve.points.iter().map(|p| p.parameters[0]).collect(),
            p2: k.curve.points.iter().map(|p| p.parameters[1]).collect(),
            kind: k.curve.kind.name().to_string(),
        })
        .collect();
    let start2 = run.curve.as_ref().map_or(f64::NAN, |s| s.start2);
    let starts: Vec<(f64, f64, String)> = c
        .curves
        .iter()
        .map(|k| (k.start.parameter, start2, k.start.kind.name().to_string()))
        .collect();
    let codim2: Vec<(f64, f64)> = c
        .curves
        .iter()
        .flat_map(|k| {
            k.curve
                .codim2
                .iter()
                .map(|x| (x.parameters[0], x.parameters[1]))
        })
        .collect();
    let cells = c.chart.as_ref().map(|ch| ChartCells {
        p1: &ch.p1,
        p2: &ch.p2,
        stable: ch
            .stability
            .iter()
            .map(|s| s.map(|s| s.is_stable()))
            .collect(),
    });
    let fig = StabilityChart {
        title: title.to_string(),
        x_label,
        y_label,
        curves: &curves,
        starts: &starts,
        codim2: &codim2,
        cells,
    };
    draw_stability_chart(&fig, path)
}
