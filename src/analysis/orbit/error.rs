//! The error of every tangent estimator (the spectrum, SALI/GALI, MEGNO, FLI, and the
//! two-trajectory and ensemble estimators of [`crate::analysis::lyapunov`], which re-exports it):
//! an option refused before any work, or a run that failed.

use crate::analysis::AnalysisError;
use thiserror::Error;

/// Errors of the Lyapunov analyses: invalid options (found before any work) or a failed run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LyapunovError {
    #[error("{field} = {value} is invalid: {why}")]
    Invalid {
        field: &'static str,
        value: f64,
        why: String,
    },
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
}

impl LyapunovError {
    pub(crate) fn invalid(field: &'static str, value: f64, why: impl Into<String>) -> Self {
        LyapunovError::Invalid {
            field,
            value,
            why: why.into(),
        }
    }
}
