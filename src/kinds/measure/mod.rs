//! `kind = "measure"`: the measures of a label grid (boundary box dimension, uncertainty
//! exponent, basin entropy, the Wada test) and the chaotic fraction of energy shells.
//!
//! A measure spec computes (or reuses) the map of its `[map]` and measures it: its table and
//! validation are [`table`]'s, [`KIND`] is its registry entry and [`MeasureRun`] its
//! validated settings. Its run is its front end's (it computes or reuses the map file, then
//! reads it): [`crate::run::execute`] refuses it, the CLI finds the run with [`run_of`]. Its
//! command `pendula measure` turns flags into the options re-exported here. Here are its
//! runs and their results, each a [`crate::kinds::Found`] with its JSON summary, text report,
//! file group (the record the store's measure builders lay out) and figure: the label grids read and measured ([`labels`], a
//! [`GridMeasures`]), a spec's sweep of them ([`sweep`], a [`MeasureSweep`]) and the chaotic
//! fraction of energy shells ([`chaotic`], a [`ChaoticFraction`]); [`report`] holds the JSON
//! and text of a measured grid they share.

pub mod chaotic;
pub mod labels;
pub mod report;
pub mod sweep;
pub mod table;

pub use chaotic::ChaoticFraction;
pub use labels::{GridMeasures, Input, Source};
pub use sweep::MeasureSweep;
pub use table::{MeasureRun, MeasureSpec, SweepSpec};

use super::kind::{table_of, Executed, Kind, Settings, PLANAR_ONLY};
use super::memory::Term;
use crate::error::FieldError;
use crate::kinds::map::map_terms;
use crate::observe::Observer;
use crate::spec::{measure_terms, LabelGrids};

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

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "measure",
    about: "Boundary dimension, uncertainty exponent, basin entropy and Wada test of a label grid.",
    table: table_of::<MeasureSpec>(),
    models: PLANAR_ONLY,
    reports: true,
    swept: true,
};

/// The measure run of a validated spec's settings (None: not a measure spec).
pub fn run_of(settings: &dyn Settings) -> Option<&MeasureRun> {
    settings.as_any().downcast_ref()
}

impl Settings for MeasureRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.map.t_max, "map.t_end"))
    }

    /// The map's run (with the measures' label grid and masks) and the measures' results.
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        let mut terms = Vec::new();
        map_terms(&self.map, true, None, n, dim, &mut terms);
        self.measure_terms(&mut terms);
        terms
    }

    /// Refused, as [`crate::run::execute`] always refused it: its run computes or reuses the
    /// map file, which only a front end that has checked it may write (the CLI runs it).
    fn execute(&self, _: &super::Input<'_>, _: &mut dyn Observer) -> Executed {
        Err(FieldError::new("kind", "measure is run by its front end").into())
    }
}

impl MeasureRun {
    /// A measure spec's results beyond its map's arrays: the per-shift results and counts of
    /// [`crate::spec::measure_estimate`] for every label grid of every sweep point, and each
    /// point's spec.
    fn measure_terms(&self, terms: &mut Vec<Term>) {
        let points = self.sweep.as_ref().map_or(1, |s| s.points.len());
        let grids = LabelGrids {
            nx: self.map.grid.width,
            ny: self.map.grid.height,
            count: self.flip_before.len().max(1),
            read_per_px: 0.0,
            field: "map.resolution",
        };
        for t in measure_terms(&grids, &self.options) {
            let field = match t.field {
                "shifts" => "measure.shifts",
                "entropy_eps" => "measure.entropy_eps",
                "max_eps" => "measure.max_eps",
                "flip_before" => "measure.flip_before",
                // The label grid and masks: map_terms counts them for the map's grid.
                _ => continue,
            };
            let scale = if field == "measure.max_eps" {
                1.0
            } else {
                points as f64
            };
            terms.push(Term {
                bytes: t.bytes * scale,
                field,
                ..t
            });
        }
        if let Some(s) = &self.sweep {
            terms.push(Term {
                // Each point's spec file and validated copy.
                bytes: points as f64 * 16384.0,
                field: "measure.sweep.values",
                driver: format!("{} sweep values", s.values.len()),
                what: "the sweep's points",
            });
        }
    }
}
