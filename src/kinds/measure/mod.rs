//! `kind = "measure"`: the measures of a label grid (boundary box dimension, uncertainty
//! exponent, basin entropy, the Wada test) and the chaotic fraction of energy shells.
//!
//! Its spec table and validation are still `spec/`'s ([`crate::spec::Analysis::Measure`]);
//! its command `pendula measure` turns flags into the options re-exported here. Here are its
//! runs and their results, each with its JSON summary, text report, file group (written by the
//! store's measure writers) and figure: the label grids read and measured ([`labels`], a
//! [`GridMeasures`]), a spec's sweep of them ([`sweep`], a [`MeasureSweep`]) and the chaotic
//! fraction of energy shells ([`chaotic`], a [`ChaoticFraction`]); [`report`] holds the JSON
//! and text of a measured grid they share.

pub mod chaotic;
pub mod labels;
pub mod report;
pub mod sweep;

pub use chaotic::ChaoticFraction;
pub use labels::{GridMeasures, Input, Source};
pub use sweep::MeasureSweep;

use crate::plot::PlotError;
use crate::store::{H5Out, StoreError};
use std::path::Path;

/// A measure run's result as its command handles it: written to its file, drawn, summarised
/// and reported (the measure kind's results are not yet `Found`s: its command runs without a
/// spec's run and writes through the store's measure writers).
pub trait Measured {
    /// Whether it has a figure to draw (a run that measured nothing has none).
    fn has_figure(&self) -> bool;
    /// Writes its groups into `out`.
    fn write(&self, out: &H5Out) -> Result<(), StoreError>;
    /// Draws its figure to `path`.
    fn draw(&self, path: &Path) -> Result<(), PlotError>;
    /// The JSON summary of a run that took `wall` seconds and wrote `file` and `plot`.
    fn summary(&self, wall: f64, file: Option<&Path>, plot: Option<&Path>) -> serde_json::Value;
    /// The text report of a run that took `wall` seconds.
    fn report(&self, wall: f64) -> String;
}

/// The options of the measures and of the chaotic fraction as its front ends choose them.
pub use crate::analysis::measure::options::{
    parse_extent, DEFAULT_MAX_EPS, DEFAULT_SEED, DEFAULT_SHIFTS,
};
pub use crate::analysis::measure::{
    ChaoticChoices, MeasureChoices, MeasureOptions, MeasuredSet, What,
};
