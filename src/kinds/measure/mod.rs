//! `kind = "measure"`: the measures of a label grid (boundary box dimension, uncertainty
//! exponent, basin entropy, the Wada test) and the chaotic fraction of energy shells.
//!
//! Its spec table and validation are still `spec/`'s ([`crate::spec::Analysis::Measure`]);
//! its command `pendula measure` turns flags into the options re-exported here. Here are its
//! runs and their results, each a [`crate::kinds::Found`] with its JSON summary, text report,
//! file group (the record the store's measure builders lay out) and figure: the label grids read and measured ([`labels`], a
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

/// The fields of the run the front end adds to a measure's summary: its wall time and the
/// paths it wrote (each result names its kind, title and run itself, as its summary always
/// did: `pendula measure` runs without a spec).
const RUN_FIELDS: &[&str] = &["wall_s", "output", "plot"];

/// The options of the measures and of the chaotic fraction as its front ends choose them.
pub use crate::analysis::measure::options::{
    parse_extent, DEFAULT_MAX_EPS, DEFAULT_SEED, DEFAULT_SHIFTS,
};
pub use crate::analysis::measure::{
    ChaoticChoices, MeasureChoices, MeasureOptions, MeasuredSet, What,
};
