//! What we measure: analyses are functions over a model, an integrator choice and an options
//! struct, returning result structs with their histories and the counts of work done.

pub mod animate;
pub mod cart;
pub mod convergence;
pub mod energy;
pub mod frequency;
pub mod lyapunov;
pub mod manifold;
pub mod map;
pub mod measure;
pub mod modes;
pub mod orbit;
pub mod periodic;
pub mod poincare;
pub mod random;
pub mod route;
pub mod simd;
pub mod simulate;

pub use animate::{animation_trajectory, AnimateOptions, AnimateStyle};
pub use energy::{EnergyBalance, EnergyBudget};
pub use lyapunov::{
    chain_ensemble, chain_spectrum, chain_two_trajectory, lyapunov_ensemble, lyapunov_spectrum,
    max_exponent_tangent, max_exponent_two_trajectory, Ensemble, EnsembleOptions, Lyapunov,
    LyapunovError, LyapunovOptions, TwoTrajectoryOptions,
};
pub use orbit::{chain_indicators, indicators, AlignmentIndices, AlignmentOptions, Regularity};
pub use route::{Routed, Task, View};
pub use simulate::{simulate, SimulateOptions, Trajectory};

use crate::integrate::{component_name, IntegrateError, Layout};
use crate::model::System;
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

impl AnalysisError {
    /// An integrator's error with a NaN/Inf named: `name(index)` names the component
    /// (see [`AnalysisError::naming`] for a [`crate::integrate::Flow`]'s augmented vector).
    pub fn from_integrate(e: IntegrateError, name: impl FnOnce(usize) -> String) -> AnalysisError {
        match e {
            IntegrateError::NonFinite { time, index } => AnalysisError::Blowup {
                time,
                variable: name(index),
            },
            other => AnalysisError::Integrate(other),
        }
    }

    /// The conversion for errors of a [`crate::integrate::Flow`] of `sys` with `layout`, naming
    /// components with [`component_name`] (for `map_err`).
    pub fn naming<S: System>(
        sys: &S,
        layout: Layout,
    ) -> impl Fn(IntegrateError) -> AnalysisError + '_ {
        move |e| AnalysisError::from_integrate(e, |i| component_name(sys, layout, i))
    }
}
