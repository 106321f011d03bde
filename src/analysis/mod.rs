//! What we measure: analyses are functions over a model, an integrator choice and an options
//! struct, returning result structs with their histories and the counts of work done.

pub mod animate;
pub mod budget;
pub mod cart;
pub mod indicators;
pub mod lyapunov;
pub mod map;
pub mod modes;
pub mod poincare;
pub mod simulate;

pub use animate::{animation_trajectory, AnimateOptions, AnimateStyle};
pub use budget::EnergyBudget;
pub use indicators::{chain_indicators, indicators, IndicatorOptions, Indicators, Regularity};
pub use lyapunov::{
    chain_ensemble, chain_spectrum, chain_two_trajectory, lyapunov_ensemble, lyapunov_spectrum,
    max_exponent_tangent, max_exponent_two_trajectory, Ensemble, EnsembleOptions, Lyapunov,
    LyapunovError, LyapunovOptions, TwoTrajectoryOptions,
};
pub use simulate::{simulate, SimulateOptions, Trajectory};

use crate::integrate::IntegrateError;
use thiserror::Error;

/// Why an analysis failed while running (bad input is caught earlier, by the spec).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AnalysisError {
    /// The solution left the finite numbers: a blow-up, or a step far too large.
    #[error("the solution blew up: {variable} became non-finite at t = {time:.6} s")]
    Blowup { time: f64, variable: String },
    #[error(transparent)]
    Integrate(#[from] IntegrateError),
}
