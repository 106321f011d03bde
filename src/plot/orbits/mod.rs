//! The periodic-orbit figures of `pendula orbits`: the bifurcation diagram of continued
//! branches (stable solid, unstable dashed, bifurcations marked by kind), the orbit diagram
//! (attractor samples against a parameter, λ_max below on the same axis) and an orbit's shape
//! in configuration space (every joint's path over one period, the chain drawn at t = 0).
//!
//! plotters has no dash style for a stroked path, so dashed curves are cut into dashes here
//! ([`dashes`]), in device pixels along the curve's length, so the pattern stays even across
//! the curve's vertices whatever the point spacing.

mod bifurcation;
mod chart;
mod diagram;
mod legend;
mod lines;
mod marks;
mod shape;

pub use bifurcation::{
    draw_bifurcation, stability_pieces, BifurcationFigure, BifurcationMark, BranchCurve, Piece,
};
pub use chart::{draw_stability_chart, ChartCells, ChartCurve, StabilityChart};
pub use diagram::{draw_orbit_diagram, OrbitDiagramFigure};
pub use lines::dashes;
pub use marks::{bifurcation_style, MarkShape, BIFURCATION_KINDS};
pub use shape::{draw_orbit_shape, OrbitShapeFigure};

use plotters::prelude::*;

use super::{house_mesh, Area, Axis, DataError, DrawError, Surface};

/// Finite (x, y) pairs or an error naming `what`.
fn require_finite(
    points: impl IntoIterator<Item = (f64, f64)>,
    what: &str,
) -> Result<(), DataError> {
    if points
        .into_iter()
        .any(|(x, y)| x.is_finite() && y.is_finite())
    {
        Ok(())
    } else {
        Err(DataError::NoFiniteValues { what: what.into() })
    }
}

/// A chart of `y_axis` against the parameter's `x_axis` on `area`, in these figures' style
/// (margins, label areas, the house mesh), its axes described `x_desc` and `y_desc`.
fn parameter_chart<'a, DB: DrawingBackend>(
    area: &'a Area<DB>,
    surface: Surface,
    (x_axis, y_axis): (&Axis, &Axis),
    (x_desc, y_desc): (&str, &str),
) -> Result<ChartContext<'a, DB, Cartesian2d<Axis, Axis>>, DrawError> {
    let px = |v: f64| surface.px(v);
    let mut chart = ChartBuilder::on(area)
        .margin(px(12.0))
        .x_label_area_size(px(56.0))
        .y_label_area_size(px(90.0))
        .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
    let x_fmt = |v: &f64| x_axis.label(*v);
    let y_fmt = |v: &f64| y_axis.label(*v);
    house_mesh(&mut chart, surface.stroke(1.0), surface.scale, (15.0, 17.0))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .x_desc(crate::plot::labels::x_desc(x_desc))
        .y_desc(crate::plot::labels::y_desc(y_desc))
        .draw()?;
    Ok(chart)
}
