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

mod accum;
pub mod bench;
pub mod ensemble;
pub mod megno;
mod megno_orbit;
mod qr;
mod stepper;
mod two_trajectory;
mod volume;

pub use bench::{bench_lyapunov, BenchLyapunov};
pub use ensemble::{ensemble_initial_conditions, lyapunov_ensemble, Ensemble, EnsembleOptions};
pub use megno_orbit::{
    chain_megno, megno_orbit, MegnoCounts, MegnoFit, MegnoHistory, MegnoOptions, MegnoOrbit,
};
pub use qr::Qr;
pub use two_trajectory::{
    chain_two_trajectory, max_exponent_two_trajectory, wrap_angle, AngleMetric, Euclidean, Metric,
    TwoTrajectoryOptions,
};
pub use volume::{PhaseVolume, VolumeCheck, VolumeSplit};

use super::budget::EnergyBalance;
use super::route::{Routed, Task, View};
use super::AnalysisError;
use crate::integrate::{Flow, IntegrateError, Layout, Method, Ode, Stats};
use crate::model::{Chain, System};
use crate::observe::{Control, Observer};
use accum::Accum;
use ndarray::Array2;
use serde::Serialize;
use std::f64::consts::PI;
use stepper::Stepper;
use thiserror::Error;
use volume::VolumeTracker;

/// Errors of the Lyapunov analyses: invalid options (found before any work) or a failed run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LyapunovError {
    #[error("{field} = {value} is invalid: {why}")]
    Invalid {
        field: &'static str,
        value: f64,
        why: String,
    },
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
}

impl LyapunovError {
    pub(crate) fn invalid(field: &'static str, value: f64, why: impl Into<String>) -> Self {
        LyapunovError::Invalid {
            field,
            value,
            why: why.into(),
        }
    }
}

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
    fn resolve(&self, dim: usize) -> Result<(usize, u64, u64), LyapunovError> {
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

/// The energy balance along the reference orbit, `E − E₀ − W` ([`EnergyBalance`]): the
/// integrator's error for any chain, since the work W of damping and drive is integrated with
/// the state (W ≡ 0 for a conservative one).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnergyCheck {
    /// E at t = 0 (J).
    pub initial: f64,
    /// E at the last interval end (J).
    pub last: f64,
    /// W at the last interval end: the work of the non-conservative forces since t = 0 (J).
    pub work: f64,
    /// The energy relative figures are measured against (J; [`System::energy_scale`]).
    pub scale: f64,
    /// |E_end − E₀ − W_end| (J).
    pub abs_drift: f64,
    /// |E_end − E₀ − W_end| / scale.
    pub relative_drift: f64,
    /// max |E − E₀ − W| over the history points and the end (J).
    pub max_abs_error: f64,
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
    /// Yorke, LNM 730 (1979)); `None` when the k exponents do not determine it.
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

/// The interval stepper for `method` (shared with the SALI/GALI indicators).
pub(crate) fn stepper_for(method: &Method, tau: f64, len: usize) -> Result<Stepper, LyapunovError> {
    Stepper::new(method, tau, len)
}

fn name_error<S: System>(sys: &S, layout: Layout) -> impl Fn(IntegrateError) -> LyapunovError + '_ {
    let name = AnalysisError::naming(sys, layout);
    move |e| name(e).into()
}

/// Reports progress about 1000 times per run.
struct Progress {
    every: u64,
    total: u64,
}

impl Progress {
    fn new(observer: &mut dyn Observer, total: u64) -> Progress {
        observer.start(total, "intervals");
        Progress {
            every: (total / 1000).max(1),
            total,
        }
    }
    #[inline]
    fn stop(&self, observer: &mut dyn Observer, e: u64) -> bool {
        (e.is_multiple_of(self.every) || e == self.total) && observer.advance(e) == Control::Stop
    }
}

/// What the loops hand to [`finish`].
struct RunEnd {
    estimator: Estimator,
    acc: Accum,
    volume: Option<VolumeCheck>,
    energy: EnergyCheck,
    stats: Stats,
    qr: u64,
    transient_intervals: u64,
    t_end: f64,
    complete: bool,
    converged: Option<bool>,
}

fn finish(end: RunEnd, method: &Method, opts: &LyapunovOptions, full: bool) -> Lyapunov {
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
    let points = acc.hist_n.len();
    let se_all = if points > 0 {
        acc.standard_errors(points - 1, b, &combos)
    } else {
        vec![f64::NAN; k + combos.len()]
    };
    let mut estimate = Array2::zeros((points, k));
    let mut running = Array2::from_elem((points, k), f64::NAN);
    for j in 0..points {
        let t = acc.hist_n[j] as f64 * acc.tau;
        for i in 0..k {
            estimate[(j, i)] = acc.hist_s[j * k + i] / t;
        }
        // As for the stopping rule: a block must hold at least 10 intervals.
        if j + 1 >= b && acc.hist_n[j] >= 10 * b as u64 {
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
        kaplan_yorke: kaplan_yorke(&exponents, full),
        sum,
        exponents,
        blocks: b,
        history: History {
            time: acc.hist_t.clone(),
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

/// The [`EnergyCheck`] of a run with balance `b` that ended at energy `last` with work `work`,
/// `max_err` being the largest |E − E₀ − W| seen before.
fn energy_check(b: &EnergyBalance, last: f64, work: f64, max_err: f64) -> EnergyCheck {
    let abs_drift = b.error(last, work).abs();
    EnergyCheck {
        initial: b.initial,
        last,
        work,
        scale: b.scale,
        abs_drift,
        relative_drift: b.relative(last, work),
        max_abs_error: max_err.max(abs_drift),
    }
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
fn converged_now(acc: &Accum, opts: &LyapunovOptions) -> bool {
    let Some(tol) = opts.tolerance else {
        return false;
    };
    if acc.averaged_time() < opts.min_time || acc.events < 10 * opts.blocks as u64 {
        return false;
    }
    let j = acc.hist_n.len() - 1;
    acc.standard_errors(j, opts.blocks, &[])
        .iter()
        .all(|&se| se < tol)
}

/// The k largest Lyapunov exponents of `sys` from `x0` (QR method; see the module docs).
///
/// Generic over any [`System`] (implement [`PhaseVolume`], possibly empty, for the Σλ check).
/// Gauss–Legendre here integrates `sys` as given; use [`chain_spectrum`] to run it on the chain's
/// canonical coordinates, where it is symplectic. Errors: [`LyapunovError::Invalid`] for bad
/// options (τ not a multiple of dt, k out of range, …) before any work;
/// [`AnalysisError::Blowup`] naming the variable that became non-finite.
pub fn lyapunov_spectrum<S: System + PhaseVolume>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    let (k, n_trans, n_avg) = opts.resolve(sys.manifold_dim())?;
    let est = if opts.k == Some(1) && sys.manifold_dim() > 1 {
        Estimator::Tangent
    } else {
        Estimator::Spectrum
    };
    tangent_run(sys, method, x0, opts, k, n_trans, n_avg, est, observer)
}

/// The maximal exponent from one deviation vector renormalized every τ (`opts.k` is ignored).
pub fn max_exponent_tangent<S: System + PhaseVolume>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    let o = LyapunovOptions {
        k: Some(1),
        ..*opts
    };
    let (_, n_trans, n_avg) = o.resolve(sys.manifold_dim())?;
    tangent_run(
        sys,
        method,
        x0,
        &o,
        1,
        n_trans,
        n_avg,
        Estimator::Tangent,
        observer,
    )
}

#[allow(clippy::too_many_arguments)]
fn tangent_run<S: System + PhaseVolume>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    k: usize,
    n_trans: u64,
    n_avg: u64,
    estimator: Estimator,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    let n = sys.dim();
    if x0.len() != n {
        return Err(LyapunovError::invalid(
            "x0",
            x0.len() as f64,
            format!("must have the state dimension {n}"),
        ));
    }
    // The work W rides in slot n when damping or a drive acts, for the balance E − E₀ − W.
    let mut flow = Flow::with_layout(sys, sys.non_conservative(), k);
    let layout = flow.layout;
    let off = layout.tangent_offset();
    let work = |y: &[f64]| if layout.work { y[n] } else { 0.0 };
    let mut y = flow.initial(x0, None);
    let mut stepper = Stepper::new(method, opts.tau, y.len())?;
    let mut qr = Qr::new(n, k);
    let mut logs = vec![0.0; k];
    let mut acc = Accum::new(k, opts.tau, opts.max_history);
    let full = k == sys.manifold_dim();
    // tr J of an embedded state (n > manifold_dim) includes the directions normal to the
    // constraint manifold, so Liouville's check does not apply there.
    let mut vol = (full && n == sys.manifold_dim()).then(|| VolumeTracker::new(sys));
    let balance = EnergyBalance::new(sys, sys.energy(0.0, x0));
    let mut max_err: f64 = 0.0;
    let total = n_trans + n_avg;
    let progress = Progress::new(observer, total);
    let name = name_error(sys, layout);
    if n_trans == 0 {
        if let Some(v) = vol.as_mut() {
            v.start(sys, 0.0, x0);
        }
    }
    let mut complete = true;
    let mut converged = opts.tolerance.map(|_| false);
    let mut qr_count = 0u64;
    let mut done = 0u64;
    let cancel = observer.cancel();
    for e in 1..=total {
        if !stepper
            .interval(&mut flow, e, &mut y, &cancel)
            .map_err(&name)?
        {
            complete = false;
            break;
        }
        qr.factor(&mut y[off..], true);
        qr_count += 1;
        done = e;
        let t = stepper.time(e);
        if e > n_trans {
            for (l, r) in logs.iter_mut().zip(qr.rdiag()) {
                *l = r.ln();
            }
            let recorded = acc.push(t, &logs);
            if let Some(v) = vol.as_mut() {
                v.interval(sys, t, &y[..n], opts.tau);
            }
            if recorded {
                let err = balance.error(sys.energy(t, &y[..n]), work(&y));
                max_err = max_err.max(err.abs());
                if converged_now(&acc, opts) {
                    converged = Some(true);
                    break;
                }
            }
        } else if e == n_trans {
            if let Some(v) = vol.as_mut() {
                v.start(sys, t, &y[..n]);
            }
        }
        if progress.stop(observer, e) {
            complete = false;
            break;
        }
    }
    observer.finish();
    let t_end = stepper.time(done);
    let x_end = &y[..n];
    let volume = vol.map(|mut v| v.finish(sys, x_end, acc.averaged_time()));
    let end = RunEnd {
        estimator,
        acc,
        volume,
        energy: energy_check(&balance, sys.energy(t_end, x_end), work(&y), max_err),
        stats: stepper.stats(),
        qr: qr_count,
        transient_intervals: done.min(n_trans),
        t_end,
        complete,
        converged,
    };
    Ok(finish(end, method, opts, full))
}

/// [`lyapunov_spectrum`] for a planar chain from `x0 = (θ, θ̇)`; with Gauss–Legendre it runs in
/// canonical coordinates (θ, p) via [`Canonical`](crate::model::Canonical) (see [`Routed`]),
/// where the method is symplectic. The spectrum is coordinate independent as T → ∞ (finite-T
/// estimates differ by O(1/T)); the history and the Σλ check then refer to (θ, p).
pub fn chain_spectrum(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    check_len(chain, x0)?;
    let task = Spectrum {
        method,
        opts,
        observer,
    };
    chain.run_task(method, x0, task)
}

/// [`lyapunov_spectrum`] as a [`Task`].
struct Spectrum<'a> {
    method: &'a Method,
    opts: &'a LyapunovOptions,
    observer: &'a mut dyn Observer,
}

impl Task for Spectrum<'_> {
    type Output = Result<Lyapunov, LyapunovError>;
    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
        lyapunov_spectrum(sys, self.method, y0, self.opts, self.observer)
    }
}

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

fn check_len(chain: &Chain, x0: &[f64]) -> Result<(), LyapunovError> {
    if x0.len() != chain.dim() {
        return Err(LyapunovError::invalid(
            "x0",
            x0.len() as f64,
            format!("must have 2N = {} entries", chain.dim()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
