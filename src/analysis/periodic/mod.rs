//! Periodic orbits: the skeleton of the dynamics beyond the equilibria.
//!
//! * [`flow`]: the flow over a stretch of time with its exact Jacobian, as a reducer on the
//!   single-orbit driver ([`crate::analysis::orbit::driver`]);
//! * [`shooting`]: (multiple) shooting with damped Newton, for driven orbits (fixed points of the
//!   k-th stroboscopic iterate) and autonomous ones (the period an unknown, a phase condition,
//!   the energy or the period fixed);
//! * [`floquet`]: multipliers, exponents, stability, and the Liouville and reciprocal-pair checks;
//! * [`normal_form`]: the normal-form coefficients at a located fold, period doubling or
//!   Neimark–Sacker point of a driven orbit (criticality, side, amplitude law);
//! * [`continuation`]: pseudo-arclength continuation of a branch in one parameter, with located
//!   folds, period doublings, Neimark–Sacker points and stability changes, and the switch onto
//!   the branch born at a period doubling or at a branch point (a symmetry-breaking pitchfork);
//! * [`curve`]: a fold, branch point or period doubling continued in two parameters (the
//!   stability chart's curves);
//! * [`stroboscopic`]: the stroboscopic map of a driven system, one drive period as a map;
//! * [`errors`]: error bars on a found orbit's period and multipliers and on a located
//!   bifurcation's parameter (bisection, Newton residual, tolerance ladder);
//! * [`diagram`]: orbit diagrams (stroboscopic samples against a parameter) with λ_max.

pub mod bench;
pub mod continuation;
pub mod curve;
pub mod diagram;
pub mod errors;
pub mod floquet;
pub mod flow;
pub mod normal_form;
pub mod shooting;
pub mod stroboscopic;

pub use continuation::{
    continue_branch, switch_branch_point, switch_period_doubling, Bifurcation, BifurcationKind,
    Branch, BranchPoint, BranchSwitch, ContinuationOptions, Family,
};
pub use curve::{
    continue_curve, continue_curve_with, Codim2, Curve, CurveOptions, CurvePoint, Family2,
};
pub use diagram::{orbit_diagram, DiagramOptions, OrbitDiagram};
pub use errors::{ladder_estimate, orbit_error, ErrorParts, OrbitError, ERROR_METHOD};
pub use floquet::{floquet, Floquet, Multiplier, Stability};
pub use flow::{propagate, Propagated};
pub use normal_form::{map_normal_form, normal_form, Criticality, NormalForm, NormalFormSteps};
pub use shooting::{find, Closure, Guess, Periodic, PeriodicOrbit, ShootingOptions};
pub use stroboscopic::Stroboscopic;

use crate::analysis::orbit::LyapunovError;
use crate::analysis::AnalysisError;
use crate::error::FieldError;
use thiserror::Error;

/// Why a periodic-orbit search failed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PeriodicError {
    /// Bad input, found before any work.
    #[error("{0}")]
    Invalid(FieldError),
    /// Newton (or the continuation's corrector) did not converge.
    #[error("{0}")]
    NotConverged(String),
    /// Newton converged, but the solution failed verification (it is no periodic orbit of
    /// the stated period: half a period, an equilibrium, a shorter period, an open closure).
    #[error("{0}")]
    Unverified(String),
    /// A stop request ended the search.
    #[error("interrupted")]
    Interrupted,
    /// The integration failed (a blow-up).
    #[error(transparent)]
    Run(#[from] AnalysisError),
}

impl PeriodicError {
    pub(crate) fn invalid(field: &str, why: impl Into<String>) -> PeriodicError {
        PeriodicError::Invalid(FieldError::new(field, why))
    }

    /// A corrector (`what`) that did not converge, with its residuals' history.
    pub(crate) fn corrector(what: &str, residuals: &[f64]) -> PeriodicError {
        let r: Vec<String> = residuals.iter().map(|r| format!("{r:.1e}")).collect();
        PeriodicError::NotConverged(format!(
            "{what} did not converge (residuals {})",
            r.join(", ")
        ))
    }
}

impl From<LyapunovError> for PeriodicError {
    fn from(e: LyapunovError) -> Self {
        match e {
            LyapunovError::Invalid { field, why, .. } => PeriodicError::invalid(field, why),
            LyapunovError::Analysis(a) => PeriodicError::Run(a),
        }
    }
}
