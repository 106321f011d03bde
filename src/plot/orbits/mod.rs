//! The periodic-orbit figures of `pendula orbits`: the bifurcation diagram of continued
//! branches (stable solid, unstable dashed, bifurcations marked by kind), the orbit diagram
//! (attractor samples against a parameter, λ_max below on the same axis) and an orbit's shape
//! in configuration space (every joint's path over one period, the chain drawn at t = 0).
//!
//! plotters has no dash style for a stroked path, so dashed curves are cut into dashes here
//! ([`dashes`]), in device pixels along the curve's length, so the pattern stays even across
//! the curve's vertices whatever the point spacing.

mod bifurcation;
mod diagram;
mod legend;
mod lines;
mod marks;
mod shape;

pub use bifurcation::{
    draw_bifurcation, stability_pieces, BifurcationFigure, BifurcationMark, BranchCurve, Piece,
};
pub use diagram::{draw_orbit_diagram, OrbitDiagramFigure};
pub use lines::dashes;
pub use marks::{bifurcation_style, MarkShape, BIFURCATION_KINDS};
pub use shape::{draw_orbit_shape, OrbitShapeFigure};

use super::DataError;

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
