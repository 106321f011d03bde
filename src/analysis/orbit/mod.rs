//! Single-orbit tangent estimators: one driver loop and one small reducer per indicator.
//!
//! [`driver`] integrates the state with its tangent vectors and owns everything the estimators
//! share (checks, stepper, renormalisation grid, error naming, energy balance, progress, stop
//! requests, thinned histories). Each estimator is a [`Reducer`](driver::Reducer) on it:
//!
//! * [`spectrum`]: the k largest Lyapunov exponents by QR re-orthonormalisation
//!   ([`lyapunov_spectrum`], [`max_exponent_tangent`]; results in [`crate::analysis::lyapunov`]);
//! * [`sali`]: SALI and GALI_k from k normalised deviation vectors ([`indicators`]);
//! * [`megno`]: MEGNO ⟨Y⟩(t) from one tangent vector sampled every step ([`megno_orbit`]);
//! * [`fli`]: the fast Lyapunov indicator and its orthogonal variant ([`fli_orbit`]).
//!
//! A new single-orbit indicator is one reducer file here plus its registration below: a
//! `pub mod` line, and an entry in [`INDICATORS`] and [`ESTIMATORS`]. Its file holds the
//! reducer, its estimator type ([`ChainRun`] on a planar chain, [`Registered`] with its name)
//! and an [`OrbitFinding`] for its result (the result group, JSON fields, text report and figure,
//! see [`indicator`]); spec, run, store, plots, CLI and Python then serve it by name.
//!
//! The two-trajectory estimator and ensembles, which are not tangent loops, live in
//! [`crate::analysis::lyapunov`].

pub use clv::{
    batch_ci, chain_covariant, covariant_bytes, covariant_sample_bytes, covariant_vectors, median,
    student_t975, symplectic_residual, Covariant, CovariantEstimator, CovariantOptions,
};
pub use driver::EnergyCheck;
pub use error::LyapunovError;
pub use fli::{chain_fli, fli_orbit, FliEstimator, FliHistory, FliOptions, FliOrbit};
pub use indicator::{
    Deviation, Indicator, IndicatorEnd, IndicatorOptions, IndicatorResult, OrbitCounts,
    OrbitFinding, Registered, SlopeSamples,
};
pub use megno::{
    chain_megno, megno_orbit, MegnoEstimator, MegnoFit, MegnoHistory, MegnoOptions, MegnoOrbit,
};
pub use sali::{
    chain_indicators, indicators, initial_vectors, AlignmentIndices, AlignmentOptions, Regularity,
    Rung as SaliRung, SaliEstimator, LADDER_LEVELS, SALI_CHAOTIC, SALI_REGULAR,
};
pub use spectrum::{lyapunov_spectrum, max_exponent_tangent};

use crate::analysis::route::{Routed, Task, View};
use crate::integrate::Method;
use crate::model::{Chain, System};
use crate::observe::Observer;

/// A single-orbit estimator as a type: its options, its result, and how it runs on any system
/// a chain routes to (what [`chain_run`] needs).
pub trait ChainRun {
    type Options;
    type Output;
    fn run<V: View>(
        opts: &Self::Options,
        sys: &V,
        method: &Method,
        x0: &[f64],
        observer: &mut dyn Observer,
    ) -> Result<Self::Output, LyapunovError>;
}

/// Runs the estimator `E` for a planar chain from `x0 = (θ, θ̇)`; with Gauss–Legendre it runs
/// in canonical coordinates (θ, p) via [`Canonical`](crate::model::Canonical) (see
/// [`Routed`]), where the method is symplectic. Errors: `x0` of the wrong length, then those of
/// the estimator.
pub fn chain_run<E: ChainRun>(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &E::Options,
    observer: &mut dyn Observer,
) -> Result<E::Output, LyapunovError> {
    check_len(chain, x0)?;
    chain.run_task(
        method,
        x0,
        OrbitTask::<E> {
            method,
            opts,
            observer,
        },
    )
}

/// Registers a single-orbit estimator for planar chains: `chain_fn(chain, method, x0, opts,
/// observer)` runs `run_fn` through [`chain_run`], and `Estimator` implements [`ChainRun`].
macro_rules! chain_estimator {
    ($(#[$doc:meta])* $chain_fn:ident, $estimator:ty, $options:ty, $output:ty, $run_fn:ident) => {
        $(#[$doc])*
        pub fn $chain_fn(
            chain: &crate::model::Chain,
            method: &crate::integrate::Method,
            x0: &[f64],
            opts: &$options,
            observer: &mut dyn crate::observe::Observer,
        ) -> Result<$output, crate::analysis::orbit::LyapunovError> {
            crate::analysis::orbit::chain_run::<$estimator>(chain, method, x0, opts, observer)
        }

        impl crate::analysis::orbit::ChainRun for $estimator {
            type Options = $options;
            type Output = $output;
            fn run<V: crate::analysis::route::View>(
                opts: &$options,
                sys: &V,
                method: &crate::integrate::Method,
                x0: &[f64],
                observer: &mut dyn crate::observe::Observer,
            ) -> Result<$output, crate::analysis::orbit::LyapunovError> {
                $run_fn(sys, method, x0, opts, observer)
            }
        }
    };
}
pub(crate) use chain_estimator;

pub mod clv;
pub mod driver;
mod error;
pub mod fli;
pub mod indicator;
pub mod megno;
pub mod sali;
pub mod spectrum;
pub(crate) mod stepper;

/// The registered indicators beyond the spectrum, tangent, two-trajectory and SALI estimators.
pub static INDICATORS: [Indicator; 2] = [
    Indicator::of::<MegnoEstimator>(),
    Indicator::of::<FliEstimator>(),
];

/// Every `lyapunov.estimator` name, as `--help` lists them (a test holds it to [`INDICATORS`]).
pub const ESTIMATORS: &str = "spectrum|tangent|two-trajectory|sali|megno|fli";

/// The registered indicator called `name`.
pub fn indicator_by_name(name: &str) -> Option<&'static Indicator> {
    INDICATORS.iter().find(|i| i.name == name)
}

/// The chain's `x0` holds 2N entries.
pub(crate) fn check_len(chain: &Chain, x0: &[f64]) -> Result<(), LyapunovError> {
    if x0.len() != chain.dim() {
        return Err(LyapunovError::invalid(
            "x0",
            x0.len() as f64,
            format!("must have 2N = {} entries", chain.dim()),
        ));
    }
    Ok(())
}

/// [`chain_run`] as a [`Task`].
struct OrbitTask<'a, E: ChainRun> {
    method: &'a Method,
    opts: &'a E::Options,
    observer: &'a mut dyn Observer,
}

impl<E: ChainRun> Task for OrbitTask<'_, E> {
    type Output = Result<E::Output, LyapunovError>;
    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
        E::run(self.opts, sys, self.method, y0, self.observer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_indicator_is_listed_once_after_the_four_estimators() {
        let names: Vec<&str> = super::INDICATORS.iter().map(|i| i.name).collect();
        let listed = format!("spectrum|tangent|two-trajectory|sali|{}", names.join("|"));
        assert_eq!(super::ESTIMATORS, listed);
        for n in &names {
            assert_eq!(super::indicator_by_name(n).map(|i| i.name), Some(*n));
        }
        assert!(super::indicator_by_name("spectrum").is_none());
    }
}
