//! `kind = "animate"`: an animated GIF and/or PNG frames of a planar chain with fading traces
//! and kinetic-energy bars, the spec's still figures ([`crate::spec::Figures`], drawn as
//! `simulate` draws them) and the trajectory behind them ([`Animated`]).
//!
//! Its result describes itself ([`crate::finding::Finding`]): the group `trajectory` (as
//! `simulate` writes it), the JSON summary (with the rendering's statistics), the figure (the
//! last frame) and the still figures. Its validation is [`table`]'s, [`KIND`] is its registry
//! entry and [`AnimateOptions`] its validated settings. The animation's files are written by
//! the run, which reports the integration and the rendering to two observers: the CLI calls
//! [`run`] with its two progress bars, after checking those files may be written;
//! [`crate::run::execute`] refuses it (it cannot tell whether the files may be overwritten).

mod found;
pub mod table;

pub use crate::analysis::AnimateOptions;
pub use found::{run, Animated};

use super::kind::{table_of, Executed, Input, Kind, Settings, PLANAR_ONLY};
use super::memory::{samples_term, Term, F64};
use crate::error::FieldError;
use crate::observe::Observer;
use crate::spec::AnimateSpec;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "animate",
    about: "Animated GIF / PNG frames of a chain with fading traces and kinetic-energy bars.",
    table: table_of::<AnimateSpec>(),
    models: PLANAR_ONLY,
    reports: false,
    swept: false,
};

/// The animation's settings of a validated run (None: not an animation).
pub fn options(settings: &dyn Settings) -> Option<&AnimateOptions> {
    settings.as_any().downcast_ref()
}

impl Settings for AnimateOptions {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((
            self.frame_count() as f64 * self.frame_dt(),
            "animate.duration",
        ))
    }

    /// An animation's samples and frame buffers.
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        let nf = n as f64;
        let samples = self.frame_count() as f64 * self.substeps as f64 + 1.0;
        // The trajectory, the joints' positions and the kinetic energy per link, and the copy
        // of the trajectory's arrays its file's record holds while it is written (as a
        // simulation's).
        let per = (3.0 * dim + 8.0) * F64 + (nf + 1.0) * 16.0 + nf * F64 + (1.5 * dim + 5.0) * F64;
        let mut t = samples_term(
            samples,
            per,
            n,
            "animate.duration",
            "the animation's samples",
        );
        if t.field == "animate.duration" {
            t.driver = format!(
                "{} frames × {} substeps of {n} links",
                self.frame_count(),
                self.substeps
            );
        }
        let (w, h) = (f64::from(self.size.0), f64::from(self.size.1));
        vec![
            t,
            Term {
                bytes: 8.0 * w * h,
                field: "animate.width",
                driver: format!("{}×{} pixel frames", self.size.0, self.size.1),
                what: "the frame buffers",
            },
        ]
    }

    /// Refused, as [`crate::run::execute`] always refused it: its run writes the GIF and the
    /// frames, which only a front end that has checked them may overwrite (the CLI runs
    /// [`run`] itself).
    fn execute(&self, _: &Input<'_>, _: &mut dyn Observer) -> Executed {
        Err(FieldError::new("kind", "animate is run by its front end").into())
    }
}
