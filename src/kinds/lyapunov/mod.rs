//! `kind = "lyapunov"`: its table and validation ([`table`], [`LyapunovRun`] its validated
//! settings, [`KIND`] its registry entry), its run on either model ([`Settings::execute`]) and
//! its results, each describing itself ([`crate::finding::Finding`] and
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
pub mod table;

pub use covariant::CovariantResult;
pub use ensemble::EnsembleResult;
pub use sali::SaliResult;
pub use spectrum::{SpectrumOf, SpectrumResult};
pub use table::{ExponentsSpec, LyapunovEstimator, LyapunovRun, LyapunovSpec};

use super::kind::{table_of, Executed, Found, Input, Kind, Settings, EITHER_MODEL};
use super::memory::{links_driver, solver, threads, Term, F64};
use crate::analysis::lyapunov::{
    chain_ensemble, chain_spectrum, chain_two_trajectory, lyapunov_spectrum,
};
use crate::analysis::orbit::{
    chain_covariant, chain_indicators, covariant_bytes, covariant_sample_bytes, IndicatorResult,
};
use crate::kinds::RunError;
use crate::model::{CartChain, Chain, Model, System};
use crate::observe::Observer;

/// The registry entry.
pub const KIND: Kind = Kind {
    name: "lyapunov",
    about:
        "Lyapunov exponents (spectrum, maximal exponent, SALI/GALI) with convergence diagnostics.",
    table: table_of::<LyapunovSpec>(),
    models: EITHER_MODEL,
    reports: true,
    swept: true,
};

impl Settings for LyapunovRun {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    /// `lyapunov spectrum`, `lyapunov tangent`, `lyapunov megno`, …
    fn describe(&self) -> String {
        format!("lyapunov {}", self.estimator.name())
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.options.transient + self.options.time, "lyapunov.t_end"))
    }

    /// The tangent vectors of the run (and of an ensemble's members, and their results).
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        let mut terms = Vec::new();
        let k = match self.estimator {
            LyapunovEstimator::Spectrum => self.options.k.unwrap_or(dim as usize) as f64,
            LyapunovEstimator::Tangent => 1.0,
            LyapunovEstimator::TwoTrajectory(_) => 1.0,
            LyapunovEstimator::Sali(ref s) => s.k as f64,
            LyapunovEstimator::Indicator(i, _) => i.vectors as f64,
        };
        // The convergence history, and its copy in the file's record while it is written.
        let history = self.options.max_history as f64 * (2.0 * k + 6.0) * F64;
        let written = history;
        // State and k tangent vectors through the solver, and the QR's copies.
        let run = solver(dim * (1.0 + k)) + 3.0 * F64 * dim * k;
        if let Some(cov) = &self.covariant {
            let o = &self.options;
            let (d, k) = (dim as usize, k as usize);
            terms.push(Term {
                // What the run keeps, and the record's copy of the samples while it is written.
                bytes: covariant_bytes(d, k, o.tau, o.time, cov)
                    + covariant_sample_bytes(d, k, o.tau, o.time, cov),
                field: "lyapunov.t_end",
                driver: format!(
                    "{:.0} s window and {} s backward transient at tau = {} s",
                    o.time, cov.backward_transient, o.tau
                ),
                what: "the covariant vectors' R factors and samples",
            });
        }
        match &self.ensemble {
            None => terms.push(Term {
                bytes: run + history + written,
                field: "model.links",
                driver: links_driver(n),
                what: "the tangent vectors",
            }),
            Some(e) => {
                let m = e.members as f64;
                let at_once = threads().min(m);
                terms.push(Term {
                    bytes: at_once * run,
                    field: "model.links",
                    driver: links_driver(n),
                    what: "the tangent vectors",
                });
                terms.push(Term {
                    bytes: m * (history + dim * F64 + 4096.0) + written,
                    field: "lyapunov.ensemble",
                    driver: format!("{} members", e.members),
                    what: "the ensemble's results",
                });
            }
        }
        terms
    }

    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        match input.model {
            Model::Planar(chain) => self.run_planar(input, chain, observer),
            Model::Cart(sys) => Ok(Box::new(self.run_cart(input, sys, observer)?)),
        }
    }
}

impl LyapunovRun {
    /// The estimator the spec names on the planar `chain`; SALI, MEGNO and FLI write their own
    /// groups, an ensemble the `lyapunov` group of its first member and the `ensemble` group.
    fn run_planar(
        &self,
        input: &Input<'_>,
        chain: &Chain,
        obs: &mut dyn Observer,
    ) -> Result<Box<dyn Found>, RunError> {
        let (method, x0, title) = (input.method, input.x0, input.title.to_string());
        let mut opts = self.options;
        if self.estimator == LyapunovEstimator::Tangent {
            opts.k = Some(1);
        }
        let links = chain.links();
        Ok(match (&self.estimator, &self.ensemble) {
            (LyapunovEstimator::Sali(io), _) => Box::new(SaliResult {
                title,
                indicators: chain_indicators(chain, method, x0, io, obs)?,
            }),
            (LyapunovEstimator::Indicator(indicator, io), _) => Box::new(IndicatorResult {
                title,
                links,
                found: (indicator.run)(chain, method, x0, io, obs)?,
            }),
            (_, None) if self.covariant.is_some() => Box::new(CovariantResult {
                title,
                links,
                covariant: Box::new(chain_covariant(
                    chain,
                    method,
                    x0,
                    &opts,
                    self.covariant.as_ref().expect("checked"),
                    obs,
                )?),
            }),
            (_, Some(ens)) => Box::new(EnsembleResult {
                title,
                links,
                estimator: self.estimator.name(),
                ensemble: chain_ensemble(chain, method, x0, &opts, ens, obs)?,
            }),
            (LyapunovEstimator::TwoTrajectory(two), None) => Box::new(SpectrumResult {
                title,
                of: SpectrumOf::Planar { links },
                spectrum: chain_two_trajectory(chain, method, x0, &opts, two, obs)?,
            }),
            (_, None) => Box::new(SpectrumResult {
                title,
                of: SpectrumOf::Planar { links },
                spectrum: chain_spectrum(chain, method, x0, &opts, obs)?,
            }),
        })
    }

    /// The QR spectrum of the cart chain `sys` on its manifold (the one estimator it offers).
    fn run_cart(
        &self,
        input: &Input<'_>,
        sys: &CartChain,
        obs: &mut dyn Observer,
    ) -> Result<SpectrumResult, RunError> {
        Ok(SpectrumResult {
            title: input.title.to_string(),
            of: SpectrumOf::Cart {
                phase_space_dimension: sys.manifold_dim(),
                initial_state: input.x0.to_vec(),
            },
            spectrum: lyapunov_spectrum(sys, input.method, input.x0, &self.options, obs)?,
        })
    }
}

/// The run fields these summaries take from the front end: the wall time alone (see the
/// module's doc).
const RUN_FIELDS: &[&str] = &["wall_s"];

/// SALI's successors on the orbit driver (MEGNO, FLI) describe a line chart.
impl Found for crate::analysis::orbit::IndicatorResult {
    fn draw(&self, path: &std::path::Path) -> Result<(), crate::plot::PlotError> {
        crate::plot::draw_figure(&self.figure(), path)
    }
}
