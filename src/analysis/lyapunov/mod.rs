//! Lyapunov exponents with convergence diagnostics (docs/physics.md §5, docs/benchmarks.md, L).
//!
//! * [`lyapunov_spectrum`]: the k largest exponents (default all 2N) by the
//!   Benettin–Galgani–Giorgilli–Strelcyn / Shimada–Nagashima method: the state and k deviation
//!   vectors are integrated together ([`Flow::with_layout`], same stages, so RK4 gives the exact
//!   tangent of the discrete map), re-orthonormalized by Householder QR every τ, and
//!   `λ_i = Σ ln|R_ii| / (n τ)` over the averaging window after a transient whose logs are
//!   discarded. (Benettin et al., Meccanica 15, 9 and 21 (1980); Shimada & Nagashima,
//!   Prog. Theor. Phys. 61, 1605 (1979).)
//! * [`max_exponent_tangent`]: the maximal exponent from one tangent vector (k = 1).
//! * [`max_exponent_two_trajectory`]: Benettin et al.'s two-trajectory method (1976): a
//!   neighbour at distance d0 in a [`Metric`] (angle-aware for the chain), rescaled every τ.
//! * [`chain_megno`] / [`megno_orbit`]: MEGNO ⟨Y⟩(t) from one tangent vector and the slope of
//!   ⟨Y⟩ over the second half (→ λ_max/2), on the [`megno::Megno`] accumulator.
//!
//! Every [`Lyapunov`] result carries its convergence history λ_i(t) (thinned evenly to at most
//! `max_history` points), batch-means standard errors, Hamiltonian checks (pairs, the near-zero
//! exponents, Σλ against ⟨tr J⟩), the energy drift, the Kaplan–Yorke dimension and the counts of
//! work. No wall-clock time enters a result.
//!
//! **Standard error.** The averaging window is split into B equal blocks (default 20; block ends
//! on the history grid, so equal to within one history stride ≤ 1/5000 of the window); each block
//! gives an estimate `ΔS_i/Δt`, and the error is `s/√B` with `s` the sample standard deviation of
//! the B block estimates (batch means; Flyvbjerg & Petersen, J. Chem. Phys. 91, 461 (1989)). It
//! is valid when a block is much longer than the correlation time of the stretching rates; the
//! running error in the history uses the same rule on the window so far.

pub(crate) mod accum;
pub mod bench;
pub mod ensemble;
mod qr;
mod two_trajectory;
pub(crate) mod volume;

/// The MEGNO accumulator and single-orbit estimator, at their old path.
pub use crate::analysis::orbit::megno;
pub use crate::analysis::orbit::megno::{
    chain_megno, megno_orbit, MegnoFit, MegnoHistory, MegnoOptions, MegnoOrbit,
};
pub use crate::analysis::orbit::{
    chain_fli, fli_orbit, lyapunov_spectrum, max_exponent_tangent, EnergyCheck, FliHistory,
    FliOptions, FliOrbit,
};
pub use bench::{bench_lyapunov, BenchLyapunov};
pub use ensemble::{ensemble_initial_conditions, lyapunov_ensemble, Ensemble, EnsembleOptions};
pub use qr::Qr;
pub use two_trajectory::{
    chain_two_trajectory, max_exponent_two_trajectory, wrap_angle, AngleMetric, Euclidean, Metric,
    TwoTrajectoryOptions,
};
pub use volume::{PhaseVolume, VolumeCheck, VolumeSplit};

use super::convergence::{trend, Trend};
use super::orbit::check_len;
pub use super::orbit::LyapunovError;
use super::route::View;
use super::AnalysisError;
use crate::integrate::{Method, Stats};
use crate::model::{Chain, System};
use crate::observe::Observer;
use accum::Accum;
use ndarray::Array2;
use serde::Serialize;

/// Options of the tangent-space estimators. Defaults are benchmark L's (docs/benchmarks.md):
/// `k = None` (all), `tau = 0.01` s (q = 10 RK4 steps of 1e-3), `transient = 10` s,
/// `time = 200` s, `tolerance = None`, `min_time = 0`, `blocks = 20`, `max_history = 10_000`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LyapunovOptions {
    /// Number of exponents (deviation vectors), 1..=dim; `None` = the full spectrum.
    pub k: Option<usize>,
    /// Re-orthonormalization (or rescaling) interval τ (s); for fixed-step methods a whole
    /// multiple of dt.
    pub tau: f64,
    /// Transient (s), integrated and re-orthonormalized with its logs discarded; rounded to a
    /// whole number of intervals τ.
    pub transient: f64,
    /// Averaging time T (s) after the transient, rounded to a whole number of intervals; with a
    /// `tolerance` it is the largest averaging time (t_max − transient).
    pub time: f64,
    /// Stopping rule: stop once every exponent's standard error is below this (1/s).
    pub tolerance: Option<f64>,
    /// The stopping rule is not applied before this averaging time (s) nor before
    /// 10 intervals per block.
    pub min_time: f64,
    /// Blocks B for the batch-means standard error (≥ 10).
    pub blocks: usize,
    /// Most history points kept (≥ 16); the history is thinned evenly.
    pub max_history: usize,
    /// The start of a single deviation vector (k = 1); `None`:
    /// [`Deviation::DEFAULT`](crate::analysis::orbit::Deviation::DEFAULT), the λ map's
    /// (1, …, 1)/√n (a system with an embedded state: its own tangent basis). The spectrum
    /// (k > 1) starts from the system's tangent basis (the identity's first k columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<crate::analysis::orbit::Deviation>,
}

impl Default for LyapunovOptions {
    fn default() -> Self {
        LyapunovOptions {
            k: None,
            tau: 0.01,
            transient: 10.0,
            time: 200.0,
            tolerance: None,
            min_time: 0.0,
            blocks: 20,
            max_history: 10_000,
            deviation: None,
        }
    }
}

impl LyapunovOptions {
    /// Intervals τ a run takes at most (transient + averaging), for progress totals.
    pub fn intervals(&self) -> u64 {
        ((self.transient / self.tau).round() + (self.time / self.tau).round()).max(0.0) as u64
    }

    /// Checks the options against a state dimension; returns (k, transient intervals,
    /// averaging intervals).
    pub(crate) fn resolve(&self, dim: usize) -> Result<(usize, u64, u64), LyapunovError> {
        let k = self.k.unwrap_or(dim);
        if k == 0 || k > dim {
            return Err(LyapunovError::invalid(
                "k",
                k as f64,
                format!("must be between 1 and the state dimension {dim}"),
            ));
        }
        if !(self.tau.is_finite() && self.tau > 0.0) {
            return Err(LyapunovError::invalid(
                "tau",
                self.tau,
                "must be finite and > 0",
            ));
        }
        if !(self.transient.is_finite() && self.transient >= 0.0) {
            return Err(LyapunovError::invalid(
                "transient",
                self.transient,
                "must be finite and >= 0",
            ));
        }
        if !(self.time.is_finite() && self.time > 0.0) {
            return Err(LyapunovError::invalid(
                "time",
                self.time,
                "must be finite and > 0",
            ));
        }
        let n_avg = (self.time / self.tau).round();
        if n_avg < 1.0 {
            return Err(LyapunovError::invalid(
                "time",
                self.time,
                format!("must be at least one interval tau = {}", self.tau),
            ));
        }
        if let Some(tol) = self.tolerance {
            if !(tol.is_finite() && tol > 0.0) {
                return Err(LyapunovError::invalid(
                    "tolerance",
                    tol,
                    "must be finite and > 0",
                ));
            }
        }
        if !(self.min_time.is_finite() && self.min_time >= 0.0) {
            return Err(LyapunovError::invalid(
                "min_time",
                self.min_time,
                "must be finite and >= 0",
            ));
        }
        if self.blocks < 10 {
            return Err(LyapunovError::invalid(
                "blocks",
                self.blocks as f64,
                "must be >= 10",
            ));
        }
        if self.max_history < 16 {
            return Err(LyapunovError::invalid(
                "max_history",
                self.max_history as f64,
                "must be >= 16",
            ));
        }
        Ok((k, (self.transient / self.tau).round() as u64, n_avg as u64))
    }
}

/// Which estimator produced a [`Lyapunov`] result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "estimator", rename_all = "snake_case")]
pub enum Estimator {
    /// k deviation vectors with QR re-orthonormalization.
    Spectrum,
    /// One deviation vector, renormalized.
    Tangent,
    /// Two trajectories at initial distance `d0`, rescaled.
    TwoTrajectory { d0: f64 },
}

impl Estimator {
    pub fn name(&self) -> &'static str {
        match self {
            Estimator::Spectrum => "spectrum",
            Estimator::Tangent => "tangent",
            Estimator::TwoTrajectory { .. } => "two_trajectory",
        }
    }
}

/// The convergence history: running estimates at evenly spaced interval ends.
#[derive(Debug, Clone)]
pub struct History {
    /// Absolute time (s) of each point (the averaging window starts at `Lyapunov::transient`).
    pub time: Vec<f64>,
    /// λ_i(t) = S_i(t) / (t − t_transient), shape (time, exponent).
    pub estimate: Array2<f64>,
    /// Running batch-means standard error over the window so far (NaN until it holds 10
    /// intervals per block), shape (time, exponent).
    pub standard_error: Array2<f64>,
}

/// Work done: integrator counters, QR factorizations and intervals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Counts {
    pub steps: u64,
    pub rejected_steps: u64,
    pub rhs_evaluations: u64,
    /// QR factorizations (or renormalizations / rescalings), transient included.
    pub qr_factorizations: u64,
    /// Intervals τ in the averaging window.
    pub averaged_intervals: u64,
    /// Intervals τ in the transient actually run.
    pub transient_intervals: u64,
}

/// A Lyapunov estimate with its diagnostics. Exponents in 1/s, in QR column order (descending
/// once converged).
#[derive(Debug, Clone)]
pub struct Lyapunov {
    pub estimator: Estimator,
    pub exponents: Vec<f64>,
    /// Batch-means standard error per exponent (1/s; NaN with fewer than B history points).
    pub standard_error: Vec<f64>,
    /// B, the number of blocks.
    pub blocks: usize,
    pub history: History,
    /// Σλ and its batch-means standard error.
    pub sum: f64,
    pub sum_standard_error: f64,
    /// `λ_i + λ_{k+1−i}`, i = 1..k/2, for a full spectrum (0 for a Hamiltonian flow as T → ∞).
    pub pair_sums: Vec<f64>,
    pub pair_sums_standard_error: Vec<f64>,
    /// Indices (0-based) of the two exponents closest to zero (empty for k < 2).
    pub closest_to_zero: Vec<usize>,
    /// Σλ against ⟨tr J⟩ (full spectrum only).
    pub volume: Option<VolumeCheck>,
    /// Kaplan–Yorke dimension `j + Σ_{i≤j} λ_i / |λ_{j+1}|` of the descending exponents (Kaplan &
    /// Yorke, LNM 730 (1979)); `None` when the k exponents do not determine it, and for a
    /// flow that keeps phase volume (an undamped chain, driven or not: its
    /// [`VolumeSplit`](crate::model::VolumeSplit) is `Potential`, tr J a total derivative, so
    /// Σλ = 0): a Hamiltonian flow's exponents come in pairs ±λ, the partial sums never turn
    /// negative and the formula returns the phase-space dimension whatever the orbit — the
    /// dimension of an attractor there is none of.
    pub kaplan_yorke: Option<f64>,
    pub energy: EnergyCheck,
    pub counts: Counts,
    /// τ (s).
    pub tau: f64,
    /// Transient actually discarded (s).
    pub transient: f64,
    /// Averaging time actually used (s).
    pub averaged_time: f64,
    /// The last interval end (s).
    pub t_end: f64,
    pub method: Method,
    pub options: LyapunovOptions,
    /// False when the observer stopped the run; the estimates are then over what was averaged.
    pub complete: bool,
    /// With a tolerance: whether the stopping rule was met (`None` without one).
    pub converged: Option<bool>,
}

/// What the loops hand to [`finish`].
pub(crate) struct RunEnd {
    pub(crate) estimator: Estimator,
    pub(crate) acc: Accum,
    pub(crate) volume: Option<VolumeCheck>,
    pub(crate) energy: EnergyCheck,
    pub(crate) stats: Stats,
    pub(crate) qr: u64,
    pub(crate) transient_intervals: u64,
    pub(crate) t_end: f64,
    pub(crate) complete: bool,
    pub(crate) converged: Option<bool>,
    /// The flow keeps phase volume (no Kaplan–Yorke dimension then).
    pub(crate) volume_preserving: bool,
}

pub(crate) fn finish(end: RunEnd, method: &Method, opts: &LyapunovOptions, full: bool) -> Lyapunov {
    let RunEnd {
        estimator,
        mut acc,
        volume,
        energy,
        stats,
        qr,
        transient_intervals,
        t_end,
        complete,
        converged,
        volume_preserving,
    } = end;
    acc.close(t_end);
    let k = acc.k;
    let b = opts.blocks;
    let exponents = acc.estimates();
    let ones = vec![1.0; k];
    let pairs: Vec<Vec<f64>> = if full && k % 2 == 0 {
        (0..k / 2)
            .map(|i| {
                let mut w = vec![0.0; k];
                w[i] = 1.0;
                w[k - 1 - i] = 1.0;
                w
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut combos: Vec<&[f64]> = vec![&ones];
    combos.extend(pairs.iter().map(|w| w.as_slice()));
    let points = acc.points();
    let se_all = if points > 0 {
        acc.standard_errors(points - 1, b, &combos)
    } else {
        vec![f64::NAN; k + combos.len()]
    };
    let mut estimate = Array2::zeros((points, k));
    let mut running = Array2::from_elem((points, k), f64::NAN);
    for j in 0..points {
        let t = acc.count(j) as f64 * acc.tau;
        for (i, s) in acc.sums_at(j).iter().enumerate() {
            estimate[(j, i)] = s / t;
        }
        // As for the stopping rule: a block must hold at least 10 intervals.
        if j + 1 >= b && acc.count(j) >= 10 * b as u64 {
            for (i, v) in acc.standard_errors(j, b, &[]).into_iter().enumerate() {
                running[(j, i)] = v;
            }
        }
    }
    let sum: f64 = exponents.iter().sum();
    let pair_sums: Vec<f64> = (0..pairs.len())
        .map(|i| exponents[i] + exponents[k - 1 - i])
        .collect();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &c| exponents[a].abs().total_cmp(&exponents[c].abs()));
    let closest_to_zero = if k >= 2 {
        order[..2].to_vec()
    } else {
        Vec::new()
    };
    Lyapunov {
        estimator,
        standard_error: se_all[..k].to_vec(),
        sum_standard_error: se_all[k],
        pair_sums_standard_error: se_all[k + 1..].to_vec(),
        pair_sums,
        closest_to_zero,
        kaplan_yorke: if volume_preserving {
            None
        } else {
            kaplan_yorke(&exponents, full)
        },
        sum,
        exponents,
        blocks: b,
        history: History {
            time: acc.times(),
            estimate,
            standard_error: running,
        },
        volume,
        energy,
        counts: Counts {
            steps: stats.steps,
            rejected_steps: stats.rejected,
            rhs_evaluations: stats.evals,
            qr_factorizations: qr,
            averaged_intervals: acc.events,
            transient_intervals,
        },
        tau: opts.tau,
        transient: transient_intervals as f64 * opts.tau,
        averaged_time: acc.averaged_time(),
        t_end,
        method: *method,
        options: *opts,
        complete,
        converged,
    }
}

impl Lyapunov {
    /// Whether exponent `i`'s running estimate has settled ([`crate::analysis::convergence`]):
    /// its value at half the averaging window (the last history point at or before it) against
    /// the final estimate's 95 % interval λ ± 1.96 SE (batch means). Returns that half-window
    /// value (NaN without one) and the verdict; `Unknown` without a standard error.
    pub fn trend(&self, i: usize) -> (f64, Trend) {
        let end = self.exponents.get(i).copied().unwrap_or(f64::NAN);
        let se = self.standard_error.get(i).copied().unwrap_or(f64::NAN);
        let half_time = self.transient + 0.5 * self.averaged_time;
        let half = self
            .history
            .time
            .iter()
            .rposition(|&t| t <= half_time + 1e-9 * half_time.abs().max(1.0))
            .filter(|&j| self.history.time[j] > self.transient)
            .map_or(f64::NAN, |j| self.history.estimate[(j, i)]);
        let z = 1.959_963_984_540_054;
        (half, trend(half, end, (end - z * se, end + z * se)))
    }
}

/// Kaplan–Yorke dimension of a spectrum (sorted here, descending). `full`: these are all the
/// exponents, so a spectrum whose partial sums never turn negative has dimension k.
pub fn kaplan_yorke(exponents: &[f64], full: bool) -> Option<f64> {
    if exponents.iter().any(|v| !v.is_finite()) || exponents.is_empty() {
        return None;
    }
    let mut l = exponents.to_vec();
    l.sort_by(|a, b| b.total_cmp(a));
    if l[0] < 0.0 {
        return Some(0.0);
    }
    let mut s = 0.0;
    for (j, &lj) in l.iter().enumerate() {
        if s + lj < 0.0 {
            return Some(j as f64 + s / lj.abs());
        }
        s += lj;
    }
    full.then_some(l.len() as f64)
}

/// The batch-means standard error of a mean from its B block estimates `means`: `s/√B`, `s`
/// the sample standard deviation (divisor B − 1) of the block estimates (module docs). NaN for
/// fewer than two blocks. The one definition the single-orbit estimators and the λ maps'
/// per-pixel error bars share.
pub fn batch_means_standard_error(means: &[f64]) -> f64 {
    let b = means.len();
    if b < 2 {
        return f64::NAN;
    }
    let mean = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (b - 1) as f64;
    (var / b as f64).sqrt()
}

/// Whether the stopping rule is met at the newest history point.
pub(crate) fn converged_now(acc: &Accum, opts: &LyapunovOptions) -> bool {
    let Some(tol) = opts.tolerance else {
        return false;
    };
    if acc.averaged_time() < opts.min_time || acc.events < 10 * opts.blocks as u64 {
        return false;
    }
    let j = acc.points() - 1;
    acc.standard_errors(j, opts.blocks, &[])
        .iter()
        .all(|&se| se < tol)
}

/// The QR spectrum as a type (its [`ChainRun`](crate::analysis::orbit::ChainRun)
/// registration).
pub struct SpectrumEstimator;

crate::analysis::orbit::chain_estimator!(
    /// [`lyapunov_spectrum`] for a planar chain from `x0 = (θ, θ̇)`; with Gauss–Legendre it runs in
    /// canonical coordinates (θ, p) via [`Canonical`](crate::model::Canonical) (see
    /// [`Routed`](crate::analysis::route::Routed)), where the method is symplectic. The spectrum is coordinate independent as T → ∞ (finite-T
    /// estimates differ by O(1/T)); the history and the Σλ check then refer to (θ, p).
    chain_spectrum,
    SpectrumEstimator,
    LyapunovOptions,
    Lyapunov,
    lyapunov_spectrum
);

/// [`chain_spectrum`] over an ensemble of perturbed initial conditions (see
/// [`lyapunov_ensemble`]).
pub fn chain_ensemble(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    ens: &EnsembleOptions,
    observer: &mut dyn Observer,
) -> Result<Ensemble, LyapunovError> {
    check_len(chain, x0)?;
    opts.resolve(chain.dim())?;
    lyapunov_ensemble(
        x0,
        ens,
        opts.intervals(),
        |x, o| chain_spectrum(chain, method, x, opts, o),
        observer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn wrap() {
        assert_eq!(wrap_angle(PI), PI);
        assert!((wrap_angle(-PI) - PI).abs() < 1e-15);
        assert!((wrap_angle(2.0 * PI + 0.1) - 0.1).abs() < 1e-15);
        assert!((wrap_angle(-3.0 * PI / 2.0) - PI / 2.0).abs() < 1e-15);
    }

    #[test]
    fn kaplan_yorke_values() {
        assert_eq!(kaplan_yorke(&[1.0, 0.0, -2.0], true), Some(2.5));
        assert_eq!(kaplan_yorke(&[-1.0, -2.0], true), Some(0.0));
        assert_eq!(kaplan_yorke(&[1.0, 0.5], true), Some(2.0));
        assert_eq!(kaplan_yorke(&[1.0, 0.5], false), None);
    }
}
