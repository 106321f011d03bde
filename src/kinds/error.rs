//! Why a run gave no outcome: [`RunError`], the kinds' and the run's one error type. It keeps
//! the layer errors it was made from as they are (their types, their fields), so a front end
//! decides from data, never from text, what a failure is: bad input naming a field
//! ([`RunError::Input`]: the CLI's exit 2, Python's `ValueError`), a stop
//! ([`RunError::Interrupted`]), or a failed run (every other variant: the CLI's exit 1,
//! Python's `RuntimeError`, each said in its layer's own words).
//!
//! It lives here, above the analysis, store and plot layers whose errors it carries, not in
//! [`crate::error`], which those layers import for [`FieldError`]; [`crate::run`] re-exports it.

use crate::analysis::frequency::NaffError;
use crate::analysis::lyapunov::LyapunovError;
use crate::analysis::map::MapError;
use crate::analysis::modes::ModesError;
use crate::analysis::poincare::PoincareError;
use crate::analysis::AnalysisError;
use crate::error::FieldError;
use crate::plot::PlotError;
use crate::store::StoreError;
use std::path::PathBuf;

/// Why a run gave no outcome.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad input, found before or by the run: the field it is about is data
    /// ([`RunError::field`]). The CLI's exit 2, Python's `ValueError`.
    #[error(transparent)]
    Input(FieldError),
    /// The integration failed (a blow-up, a step size collapse).
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A Poincaré section could not be computed.
    #[error(transparent)]
    Poincare(#[from] PoincareError),
    /// A map's tiles could not be computed.
    #[error(transparent)]
    Map(#[from] MapError),
    /// Modes that cannot be computed (a stop is [`RunError::Interrupted`]).
    #[error(transparent)]
    Modes(ModesError),
    /// A Lyapunov estimator's run failed (its refused options are [`RunError::Input`]).
    #[error(transparent)]
    Lyapunov(LyapunovError),
    /// The frequency analysis' workspace could not be built.
    #[error(transparent)]
    Frequency(#[from] NaffError),
    /// Writing or reading a file of the store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Drawing or writing a figure failed.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A sweep point's record beside its file could not be read back or written.
    #[error("{what} {}: {source}", path.display())]
    SweepRecord {
        /// `reading back` or `writing`.
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A sweep point failed: the point and its values (`point 3 (model.gravity = 9.81)`),
    /// then its own error.
    #[error("{at}: {error}")]
    AtPoint {
        at: String,
        #[source]
        error: Box<RunError>,
    },
    /// A failure whose cause is only text: the words a kind gives to a search that found no
    /// orbit (the analysis layer's `PeriodicError::NotConverged`/`Unverified` and an orbit's
    /// `SectionEnd::Failed` carry text, which the kind turns into advice), a stop that keeps
    /// nothing and says so in its own words (animate's integration), a panicked run
    /// (its payload has no type) and an I/O failure of a benchmark's scratch files.
    #[error("{0}")]
    Failed(String),
    /// A stop was asked for and the run keeps nothing (`run::Outcome::finished`, an in-memory map).
    #[error("interrupted")]
    Interrupted,
}

impl RunError {
    /// The field of a bad input, as a spec names it (`lyapunov.tau`, `poincare.t_end`).
    pub fn field(&self) -> Option<&str> {
        match self {
            RunError::Input(e) => Some(e.field()),
            _ => None,
        }
    }
}

impl RunError {
    /// A failed run's message, the fields it names spelt by `name` (a front end's spelling:
    /// a map read over the memory budget names the budget, [`StoreError::render`]). Bad input
    /// is its [`FieldError`]'s to render.
    pub fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            RunError::Store(e) => e.render(name),
            RunError::AtPoint { at, error } => format!("{at}: {}", error.render(name)),
            e => e.to_string(),
        }
    }
}

impl From<FieldError> for RunError {
    fn from(e: FieldError) -> Self {
        RunError::Input(e)
    }
}

/// An option the estimator refuses is bad input naming its field; anything else, a failed run.
impl From<LyapunovError> for RunError {
    fn from(e: LyapunovError) -> Self {
        match e {
            LyapunovError::Invalid { field, value, why } => RunError::Input(FieldError::new(
                format!("lyapunov.{field}"),
                format!("{why} (got {value})"),
            )),
            other => RunError::Lyapunov(other),
        }
    }
}

/// Modes that cannot be computed are a failed run; a stop during their eigen-solutions keeps
/// nothing.
impl From<ModesError> for RunError {
    fn from(e: ModesError) -> Self {
        match e {
            ModesError::Interrupted => RunError::Interrupted,
            e => RunError::Modes(e),
        }
    }
}
