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
//! A new single-orbit indicator is one reducer file here plus its registration: a `pub mod`
//! line, and a [`ChainRun`] impl on its options so that [`chain_run`] runs it on a planar
//! chain (in canonical coordinates for Gauss–Legendre).
//!
//! The two-trajectory estimator and ensembles, which are not tangent loops, live in
//! [`crate::analysis::lyapunov`].

pub use driver::EnergyCheck;
pub use error::LyapunovError;
pub use fli::{chain_fli, fli_orbit, FliCounts, FliHistory, FliOptions, FliOrbit};
pub use megno::{
    chain_megno, megno_orbit, MegnoCounts, MegnoFit, MegnoHistory, MegnoOptions, MegnoOrbit,
};
pub use sali::{
    chain_indicators, indicators, initial_vectors, IndicatorOptions, Indicators, Regularity,
    SALI_CHAOTIC, SALI_REGULAR,
};
pub use spectrum::{lyapunov_spectrum, max_exponent_tangent};

use crate::analysis::route::{Routed, Task, View};
use crate::integrate::Method;
use crate::model::{Chain, System};
use crate::observe::Observer;

/// The options of a single-orbit estimator, which know how to run it on any system a chain
/// routes to (the registration [`chain_run`] needs).
pub trait ChainRun {
    type Output;
    fn run<V: View>(
        &self,
        sys: &V,
        method: &Method,
        x0: &[f64],
        observer: &mut dyn Observer,
    ) -> Result<Self::Output, LyapunovError>;
}

/// Runs the estimator of `opts` for a planar chain from `x0 = (θ, θ̇)`; with Gauss–Legendre it
/// runs in canonical coordinates (θ, p) via [`Canonical`](crate::model::Canonical) (see
/// [`Routed`]), where the method is symplectic. Errors: `x0` of the wrong length, then those of
/// the estimator.
pub fn chain_run<O: ChainRun>(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &O,
    observer: &mut dyn Observer,
) -> Result<O::Output, LyapunovError> {
    check_len(chain, x0)?;
    chain.run_task(
        method,
        x0,
        OrbitTask {
            method,
            opts,
            observer,
        },
    )
}

/// Registers a single-orbit estimator for planar chains: `chain_fn(chain, method, x0, opts,
/// observer)` runs `run_fn` through [`chain_run`], and `Options` implements [`ChainRun`].
macro_rules! chain_estimator {
    ($(#[$doc:meta])* $chain_fn:ident, $options:ty, $output:ty, $run_fn:ident) => {
        $(#[$doc])*
        pub fn $chain_fn(
            chain: &crate::model::Chain,
            method: &crate::integrate::Method,
            x0: &[f64],
            opts: &$options,
            observer: &mut dyn crate::observe::Observer,
        ) -> Result<$output, crate::analysis::orbit::LyapunovError> {
            crate::analysis::orbit::chain_run(chain, method, x0, opts, observer)
        }

        impl crate::analysis::orbit::ChainRun for $options {
            type Output = $output;
            fn run<V: crate::analysis::route::View>(
                &self,
                sys: &V,
                method: &crate::integrate::Method,
                x0: &[f64],
                observer: &mut dyn crate::observe::Observer,
            ) -> Result<$output, crate::analysis::orbit::LyapunovError> {
                $run_fn(sys, method, x0, self, observer)
            }
        }
    };
}
pub(crate) use chain_estimator;

pub mod driver;
mod error;
pub mod fli;
pub mod megno;
pub mod sali;
pub mod spectrum;
pub(crate) mod stepper;

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
struct OrbitTask<'a, O> {
    method: &'a Method,
    opts: &'a O,
    observer: &'a mut dyn Observer,
}

impl<O: ChainRun> Task for OrbitTask<'_, O> {
    type Output = Result<O::Output, LyapunovError>;
    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
        self.opts.run(sys, self.method, y0, self.observer)
    }
}
