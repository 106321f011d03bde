//! The integrator a spec asks for, as plain data (the analyses turn it into a solver).

use serde::Serialize;

/// Which integrator, with its parameters. See [`super::Rk4`], `Dop853` and `Gauss`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum Method {
    /// Classical RK4 with fixed step `dt` (s).
    Rk4 { dt: f64 },
    /// Adaptive Dormand–Prince 8(5,3) with dense output.
    Dop853 {
        rtol: f64,
        atol: f64,
        /// Largest step (s); infinite (the default) is left out of JSON, which has no infinity.
        #[serde(skip_serializing_if = "is_unbounded")]
        h_max: f64,
    },
    /// Gauss–Legendre collocation (symplectic, in canonical coordinates), fixed step.
    Gauss { dt: f64, stages: usize },
}

impl Method {
    /// Short name, as written in specs and files.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Rk4 { .. } => "rk4",
            Method::Dop853 { .. } => "dop853",
            Method::Gauss { .. } => "gauss",
        }
    }
    /// The fixed step, for fixed-step methods.
    pub fn fixed_dt(&self) -> Option<f64> {
        match *self {
            Method::Rk4 { dt } | Method::Gauss { dt, .. } => Some(dt),
            Method::Dop853 { .. } => None,
        }
    }
}

fn is_unbounded(h: &f64) -> bool {
    h.is_infinite()
}
