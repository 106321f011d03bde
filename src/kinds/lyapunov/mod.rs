//! `kind = "lyapunov"`'s results, each describing itself ([`crate::finding::Finding`] and
//! [`crate::kinds::Found`]): a planar chain's spectrum, one exponent or two-trajectory estimate
//! ([`SpectrumResult`]), that spectrum with its covariant vectors ([`CovariantResult`]), an
//! ensemble of spectra ([`EnsembleResult`]), SALI/GALI ([`SaliResult`]), the cart chain's
//! spectrum (a [`SpectrumResult`] of [`SpectrumOf::Cart`]) and the registered indicators MEGNO and FLI
//! ([`crate::analysis::orbit::IndicatorResult`], whose figure is drawn here). Each writes the
//! groups it wrote before it described itself (the `lyapunov` group; the vectors' `covariant`
//! or the ensemble's `ensemble` group beside it; SALI's `indicators`), reports what the CLI
//! reported and keeps the numbers a sweep kept.
//!
//! Their JSON summary (all but MEGNO's and FLI's) is the whole object the CLI printed, with
//! `kind` and `title`, but the wall time: it has none of the other keys the front end adds to a
//! summary (`model`, `output`, `plot`, and `integrator` where it had none), so it names the wall
//! time alone as its run's field ([`RUN_FIELDS`]) and its keys stay as they were.

mod covariant;
mod ensemble;
mod sali;
mod spectrum;

pub use covariant::CovariantResult;
pub use ensemble::EnsembleResult;
pub use sali::SaliResult;
pub use spectrum::{SpectrumOf, SpectrumResult};

use super::Found;

/// The run fields these summaries take from the front end: the wall time alone (see the
/// module's doc).
const RUN_FIELDS: &[&str] = &["wall_s"];

/// SALI's successors on the orbit driver (MEGNO, FLI) describe a line chart.
impl Found for crate::analysis::orbit::IndicatorResult {
    fn draw(&self, path: &std::path::Path) -> Result<(), crate::plot::PlotError> {
        crate::plot::draw_figure(&self.figure(), path)
    }
}
