//! One-dimensional stable and unstable manifolds of a saddle of a plane map, and what they
//! say about chaos: their homoclinic intersections, the parameter of their first tangency,
//! the lobes of a turnstile and, for the driven damped pendulum, the Melnikov prediction.
//!
//! * [`map`]: the maps, as [`PlaneMap`]: a driven one-link chain's stroboscopic map with its
//!   inverse (the flow integrated backwards over a period) by DOP853, and a linear map (a
//!   closed form for the tests);
//! * [`section`]: the Poincaré map of a conservative two-link chain on an energy shell
//!   (`poincare`'s section, its inverse by time reversal);
//! * [`saddle`]: the saddle as a fixed point of the map's k-th iterate (Newton), its
//!   multipliers and eigenvectors;
//! * [`grow`]: the curves, grown from a fundamental domain on the eigenvector with inserted
//!   points computed from the fundamental domain (Hobson 1993, Krauskopf–Osinga);
//! * [`intersect`]: crossings of an unstable and a stable curve, refined on both curves;
//! * [`tangency`]: the signed distance of the branches over a window and the first tangency
//!   in a parameter by bisection, the saddle followed by Newton;
//! * [`lobe`]: the areas of the turnstile's lobes between two primary intersection points;
//! * [`melnikov`]: the Melnikov function of θ̈ + δθ̇ + sin θ = γ cos ωt and its threshold.

pub mod bench;
pub mod grow;
pub mod homoclinic;
pub mod intersect;
pub mod lobe;
pub mod map;
pub mod melnikov;
pub mod saddle;
pub mod section;
pub mod tangency;

pub use grow::{grow, Branch, Growth, Node};
pub use intersect::{intersections, Intersection};
pub use map::{FlowMap, LinearMap, MapIntegration, PlaneMap};
pub use saddle::{saddle, Saddle};
pub use section::SectionMap;

use crate::error::FieldError;
use thiserror::Error;

/// Why a manifold computation gave no result.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ManifoldError {
    /// Bad input, found before any work (names its field).
    #[error("{0}")]
    Invalid(FieldError),
    /// The computation could not be done as asked (a saddle that is not hyperbolic, a
    /// Newton that did not converge, a blow-up of the map).
    #[error("{0}")]
    Failed(String),
    /// A stop request ended it.
    #[error("interrupted")]
    Interrupted,
}

impl ManifoldError {
    pub(crate) fn invalid(field: &str, why: impl Into<String>) -> ManifoldError {
        ManifoldError::Invalid(FieldError::new(field, why))
    }
}

/// A point of the plane.
pub type P2 = [f64; 2];

#[inline]
pub(crate) fn sub(a: P2, b: P2) -> P2 {
    [a[0] - b[0], a[1] - b[1]]
}

#[inline]
pub(crate) fn dist(a: P2, b: P2) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

#[inline]
pub(crate) fn cross(a: P2, b: P2) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}
