//! The Lyapunov spectrum as a reducer: k deviation vectors re-orthonormalised by Householder QR
//! every τ, `ln|R_ii|` summed over the averaging window after the transient (the method and the
//! result are described in [`crate::analysis::lyapunov`]).

use super::driver::{drive, End, Plan, Reducer, Sampling, Span, Step, Tangent, Tick};
use super::indicator::Deviation;
use crate::analysis::lyapunov::accum::Accum;
use crate::analysis::lyapunov::volume::VolumeTracker;
use crate::analysis::lyapunov::{
    converged_now, finish, Estimator, Lyapunov, LyapunovError, LyapunovOptions, PhaseVolume, Qr,
    RunEnd,
};
use crate::integrate::Method;
use crate::model::System;
use crate::observe::Observer;

/// The k largest Lyapunov exponents of `sys` from `x0` (QR method; see
/// [`crate::analysis::lyapunov`]).
///
/// Generic over any [`System`] (implement [`PhaseVolume`], possibly empty, for the Σλ check).
/// Gauss–Legendre here integrates `sys` as given; use
/// [`chain_spectrum`](crate::analysis::lyapunov::chain_spectrum) to run it on the chain's
/// canonical coordinates, where it is symplectic. Errors: [`LyapunovError::Invalid`] for bad
/// options (τ not a multiple of dt, k out of range, …) before any work;
/// [`AnalysisError::Blowup`](crate::analysis::AnalysisError) naming the variable that became
/// non-finite.
pub fn lyapunov_spectrum<S: System + PhaseVolume>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    let est = if opts.k == Some(1) && sys.manifold_dim() > 1 {
        Estimator::Tangent
    } else {
        Estimator::Spectrum
    };
    spectrum(sys, method, x0, opts, est, observer)
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
    spectrum(sys, method, x0, &o, Estimator::Tangent, observer)
}

fn spectrum<S: System + PhaseVolume>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    estimator: Estimator,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    let (k, n_trans, n_avg) = opts.resolve(sys.manifold_dim())?;
    let reducer = Spectrum::new(sys, method, opts, estimator, k, n_trans, u64::MAX);
    let plan = Plan {
        tau: opts.tau,
        span: Span::Intervals(n_trans + n_avg),
        sampling: Sampling::Interval,
        max_history: opts.max_history,
        work: true,
    };
    drive(sys, method, x0, &plan, reducer, observer)
}

/// The QR spectrum's running state.
pub(super) struct Spectrum<'a, S: System> {
    method: &'a Method,
    opts: &'a LyapunovOptions,
    estimator: Estimator,
    k: usize,
    n_trans: u64,
    /// The last interval of the averaging window: a covariant-vector run goes on past it for
    /// its backward transient, re-orthonormalising without averaging (`u64::MAX` otherwise).
    window_end: u64,
    full: bool,
    /// The state has as many coordinates as the phase space (not embedded, as a cart chain's
    /// unit vectors are): a one-vector run may start from [`Deviation::DEFAULT`].
    flat: bool,
    pub(super) qr: Qr,
    logs: Vec<f64>,
    acc: Accum,
    vol: Option<VolumeTracker<S>>,
    converged: Option<bool>,
    qr_count: u64,
}

impl<'a, S: System + PhaseVolume> Spectrum<'a, S> {
    /// The reducer of `k` exponents with `n_trans` transient intervals, averaging up to interval
    /// `window_end`.
    pub(super) fn new(
        sys: &S,
        method: &'a Method,
        opts: &'a LyapunovOptions,
        estimator: Estimator,
        k: usize,
        n_trans: u64,
        window_end: u64,
    ) -> Self {
        let n = sys.dim();
        let full = k == sys.manifold_dim();
        Spectrum {
            method,
            opts,
            estimator,
            k,
            n_trans,
            window_end,
            full,
            flat: n == sys.manifold_dim(),
            qr: Qr::new(n, k),
            logs: vec![0.0; k],
            acc: Accum::new(k, opts.tau, opts.max_history),
            // tr J of an embedded state (n > manifold_dim) includes the directions normal to
            // the constraint manifold, so Liouville's check does not apply there.
            vol: (full && n == sys.manifold_dim()).then(|| VolumeTracker::new(sys)),
            converged: opts.tolerance.map(|_| false),
            qr_count: 0,
        }
    }
}

impl<S: System + PhaseVolume> Reducer<S> for Spectrum<'_, S> {
    type Output = Lyapunov;

    fn tangent(&self, n: usize) -> Tangent {
        Tangent {
            k: self.k,
            v0: match (self.opts.deviation, self.k) {
                (Some(d), 1) => Some(d.vector(n)),
                (None, 1) if self.flat => Some(Deviation::DEFAULT.vector(n)),
                _ => None,
            },
        }
    }

    fn init(&mut self, sys: &S, x: &[f64], _v: &mut [f64]) {
        if self.n_trans == 0 {
            if let Some(v) = self.vol.as_mut() {
                v.start(sys, 0.0, x);
            }
        }
    }

    fn interval(&mut self, sys: &S, tick: Tick, x: &[f64], v: &mut [f64]) -> Step {
        let Tick { e, t, .. } = tick;
        self.qr.factor(v, true);
        self.qr_count += 1;
        let mut step = Step::default();
        if e > self.n_trans && e <= self.window_end {
            for (l, r) in self.logs.iter_mut().zip(self.qr.rdiag()) {
                *l = r.ln();
            }
            step.recorded = self.acc.push(t, &self.logs);
            if let Some(vt) = self.vol.as_mut() {
                vt.interval(sys, t, x, self.opts.tau);
            }
            if step.recorded && converged_now(&self.acc, self.opts) {
                self.converged = Some(true);
                step.stop = true;
            }
        } else if e == self.n_trans {
            if let Some(vt) = self.vol.as_mut() {
                vt.start(sys, t, x);
            }
        }
        step
    }

    fn finish(self, sys: &S, end: End<'_>) -> Lyapunov {
        let volume = self
            .vol
            .map(|mut v| v.finish(sys, end.x, self.acc.averaged_time()));
        let run = RunEnd {
            estimator: self.estimator,
            acc: self.acc,
            volume,
            energy: end.energy,
            stats: end.stats,
            qr: self.qr_count,
            transient_intervals: end.done.min(self.n_trans),
            t_end: end.t_end,
            complete: end.complete,
            converged: self.converged,
            volume_preserving: sys.volume_split() == crate::model::VolumeSplit::Potential,
        };
        // As run: the one vector's start resolved (the spectrum's basis has none to name).
        let opts = LyapunovOptions {
            deviation: match (self.opts.deviation, self.k) {
                (Some(d), 1) => Some(d),
                (None, 1) if self.flat => Some(Deviation::DEFAULT),
                _ => None,
            },
            ..*self.opts
        };
        finish(run, self.method, &opts, self.full)
    }
}
