//! `kind = "lyapunov"`'s results, each describing itself ([`crate::finding::Finding`] and
//! [`crate::kinds::Found`]): a planar chain's spectrum, one exponent or two-trajectory
//! estimate ([`SpectrumResult`]),
//! that spectrum with its covariant vectors ([`CovariantResult`]), an ensemble of spectra
//! ([`EnsembleResult`]), SALI/GALI ([`SaliResult`]) and the cart chain's
//! spectrum ([`CartSpectrumResult`]). Each writes the group it wrote before it described itself
//! (the spectrum's `lyapunov` group, the vectors' `covariant` group or the
//! ensemble's `ensemble` group beside it), reports what the CLI reported and keeps a sweep's numbers.
//!
//! Their JSON summary is the whole object the CLI printed (with `kind` and `title`) but the
//! wall time: it has none of the keys the CLI adds to other results' summaries (`model`,
//! `output`, `plot`), so the CLI prints it as it stands ([`SpectrumResult`]'s keys unchanged).

mod cart;
mod covariant;
mod ensemble;
mod sali;
mod spectrum;

pub use cart::CartSpectrumResult;
pub use covariant::CovariantResult;
pub use ensemble::EnsembleResult;
pub use sali::SaliResult;
pub use spectrum::SpectrumResult;
