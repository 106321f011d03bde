//! The single-orbit MEGNO estimator (Cincotta & Simó, A&AS 147, 205 (2000)): one tangent
//! vector integrated with the state by the tangent estimator's [`Stepper`], and
//! `r = δ̇·δ / δ·δ` with `δ̇ = J(x, t)·δ` (the exact tangent flow, no differences) fed to the
//! [`Megno`] accumulator.
//!
//! r is sampled at every step of a fixed-step method (RK4, Gauss–Legendre) and every τ for DOP853,
//! whose steps are not on a grid; δ is renormalised every τ (r is scale invariant, so this only
//! keeps it finite). The result is ⟨Y⟩(t_end), Y(t_end) and the least-squares slope of ⟨Y⟩(t)
//! over the second half of the run, `[t_end/2, t_end]`, fitted over every sample there: on a
//! chaotic orbit ⟨Y⟩ ≈ (λ_max/2) t, so `λ ≈ 2·slope`; ⟨Y⟩ → 2 on a quasi-periodic orbit and → 0
//! on a stable periodic one (an isochronous oscillator), whose slopes tend to 0.

use super::megno::{slope, Megno};
use super::stepper::Stepper;
use super::{energy_check, name_error, EnergyCheck, LyapunovError};
use crate::analysis::budget::EnergyBalance;
use crate::analysis::route::{Routed, Task, View};
use crate::integrate::{Flow, Method};
use crate::model::{Chain, System};
use crate::observe::{Control, Observer};
use serde::Serialize;

/// Options of [`megno_orbit`]. Defaults: `tau = 0.01` s, `time = 200` s, `max_history = 10_000`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MegnoOptions {
    /// Renormalisation interval of δ (s); a whole multiple of dt for the fixed-step methods, and
    /// the sampling interval of r for DOP853.
    pub tau: f64,
    /// End time (s): MEGNO runs from t = 0 (no transient: its weight s in ∫ s r ds already
    /// discounts the start).
    pub time: f64,
    /// Most history points kept (≥ 16), thinned evenly.
    pub max_history: usize,
}

impl Default for MegnoOptions {
    fn default() -> Self {
        MegnoOptions {
            tau: 0.01,
            time: 200.0,
            max_history: 10_000,
        }
    }
}

/// Y(t) and ⟨Y⟩(t) at evenly spaced sample times (thinned), starting at t = 0.
#[derive(Debug, Clone, Default)]
pub struct MegnoHistory {
    pub time: Vec<f64>,
    pub y: Vec<f64>,
    pub mean: Vec<f64>,
}

/// The fit ⟨Y⟩ ≈ intercept + slope·t over the second half of the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MegnoFit {
    /// d⟨Y⟩/dt (1/s): λ_max/2 on a chaotic orbit, → 0 on a regular one.
    pub slope: f64,
    pub intercept: f64,
    /// The window `[start, end]` (s) and the samples in it.
    pub start: f64,
    pub end: f64,
    pub samples: u64,
    /// True when fitted over every sample of the window; false for a run stopped early, fitted
    /// over the (thinned) history's second half.
    pub every_sample: bool,
}

/// Work done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct MegnoCounts {
    pub steps: u64,
    pub rejected_steps: u64,
    /// The solver's evaluations plus one `J·δ` evaluation per sample.
    pub rhs_evaluations: u64,
    /// Samples of r fed to the accumulator (t = 0 included).
    pub samples: u64,
    pub renormalizations: u64,
}

/// A MEGNO estimate with its history and diagnostics.
#[derive(Debug, Clone)]
pub struct MegnoOrbit {
    /// ⟨Y⟩(t_end).
    pub mean: f64,
    /// Y(t_end).
    pub y: f64,
    pub fit: MegnoFit,
    /// `2·slope` (1/s): the maximal exponent MEGNO implies.
    pub lyapunov: f64,
    /// `ln(|δ(t_end)| / |δ(0)|) / t_end` (1/s): the tangent estimator's exponent on the same
    /// vector, for comparison.
    pub finite_time_exponent: f64,
    pub history: MegnoHistory,
    pub energy: EnergyCheck,
    pub counts: MegnoCounts,
    /// Time between samples of r (s): dt, or τ for DOP853.
    pub sample_interval: f64,
    pub tau: f64,
    pub t_end: f64,
    pub method: Method,
    pub options: MegnoOptions,
    /// False when the observer stopped the run.
    pub complete: bool,
}

/// Running least-squares slope (Welford's updates: no cancellation at t ~ 1e4 over 1e7 samples).
#[derive(Debug, Clone, Copy, Default)]
struct SlopeFit {
    n: u64,
    mt: f64,
    my: f64,
    sxx: f64,
    sxy: f64,
}

impl SlopeFit {
    fn push(&mut self, t: f64, y: f64) {
        self.n += 1;
        let n = self.n as f64;
        let dt = t - self.mt;
        self.mt += dt / n;
        self.my += (y - self.my) / n;
        self.sxx += dt * (t - self.mt);
        self.sxy += dt * (y - self.my);
    }
    fn slope(&self) -> f64 {
        self.sxy / self.sxx
    }
}

/// MEGNO along the orbit of `sys` from `x0` (see the module docs). Errors:
/// [`LyapunovError::Invalid`] for bad options (τ ≤ 0 or not a multiple of dt, time < τ, …)
/// before any work; [`AnalysisError::Blowup`](crate::analysis::AnalysisError) for NaN/Inf.
pub fn megno_orbit<S: System>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &MegnoOptions,
    observer: &mut dyn Observer,
) -> Result<MegnoOrbit, LyapunovError> {
    let n = sys.dim();
    if x0.len() != n {
        return Err(LyapunovError::invalid(
            "x0",
            x0.len() as f64,
            format!("must have the state dimension {n}"),
        ));
    }
    if !(opts.tau.is_finite() && opts.tau > 0.0) {
        return Err(LyapunovError::invalid(
            "tau",
            opts.tau,
            "must be finite and > 0",
        ));
    }
    let per_tau_total = (opts.time / opts.tau).round();
    if !(opts.time.is_finite() && per_tau_total >= 1.0) {
        return Err(LyapunovError::invalid(
            "time",
            opts.time,
            "must be finite and at least one interval tau",
        ));
    }
    if opts.max_history < 16 {
        return Err(LyapunovError::invalid(
            "max_history",
            opts.max_history as f64,
            "must be >= 16",
        ));
    }
    let mut flow = Flow::with_layout(sys, sys.non_conservative(), 1);
    let layout = flow.layout;
    let off = layout.tangent_offset();
    let work = |y: &[f64]| if layout.work { y[n] } else { 0.0 };
    let mut y = flow.initial(x0, None);
    // Checks τ against dt (the same error as the tangent estimator), then steps one sample at a
    // time: dt for the fixed-step methods, τ for DOP853.
    Stepper::new(method, opts.tau, y.len())?;
    let h = method.fixed_dt().unwrap_or(opts.tau);
    let per_tau = (opts.tau / h).round() as u64;
    let total = per_tau_total as u64 * per_tau;
    let mut stepper = Stepper::new(method, h, y.len())?;
    let name = name_error(sys, layout);
    let mut ws = sys.workspace();
    let (mut dx, mut dv) = (vec![0.0; n], vec![0.0; n]);
    let mut rate = |t: f64, y: &[f64], ws: &mut S::Workspace| -> f64 {
        let v = &y[off..off + n];
        sys.rhs_tangent(t, &y[..n], v, &mut dx, &mut dv, ws);
        let vv: f64 = v.iter().map(|a| a * a).sum();
        dv.iter().zip(v).map(|(a, b)| a * b).sum::<f64>() / vv
    };
    let mut megno = Megno::new();
    megno.push(0.0, rate(0.0, &y, &mut ws));
    let t_plan = stepper.time(total);
    let mut fit = SlopeFit::default();
    let mut hist = MegnoHistory {
        time: vec![0.0],
        y: vec![0.0],
        mean: vec![0.0],
    };
    let mut hist_e = vec![0u64];
    let half = (opts.max_history / 2).max(8);
    let mut stride = 1u64;
    let balance = EnergyBalance::new(sys, sys.energy(0.0, x0));
    let mut max_err: f64 = 0.0;
    let mut log_growth = 0.0;
    let mut renorm = 0u64;
    let mut complete = true;
    let mut done = 0u64;
    let every = (total / 1000).max(1);
    observer.start(total, "samples");
    let cancel = observer.cancel();
    for e in 1..=total {
        if !stepper
            .interval(&mut flow, e, &mut y, &cancel)
            .map_err(&name)?
        {
            complete = false;
            break;
        }
        done = e;
        let t = stepper.time(e);
        megno.push(t, rate(t, &y, &mut ws));
        if 2 * e >= total {
            fit.push(t, megno.mean());
        }
        if e.is_multiple_of(per_tau) {
            let v = &mut y[off..off + n];
            let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            v.iter_mut().for_each(|a| *a /= norm);
            log_growth += norm.ln();
            renorm += 1;
        }
        if e.is_multiple_of(stride) || e == total {
            hist_e.push(e);
            hist.time.push(t);
            hist.y.push(megno.y());
            hist.mean.push(megno.mean());
            let err = balance.error(sys.energy(t, &y[..n]), work(&y));
            max_err = max_err.max(err.abs());
            if hist_e.len() >= 2 * half {
                stride *= 2;
                let mut w = 0;
                for r in 0..hist_e.len() {
                    if hist_e[r].is_multiple_of(stride) {
                        hist_e[w] = hist_e[r];
                        hist.time[w] = hist.time[r];
                        hist.y[w] = hist.y[r];
                        hist.mean[w] = hist.mean[r];
                        w += 1;
                    }
                }
                for v in [&mut hist.time, &mut hist.y, &mut hist.mean] {
                    v.truncate(w);
                }
                hist_e.truncate(w);
            }
        }
        if (e.is_multiple_of(every) || e == total) && observer.advance(e) == Control::Stop {
            complete = false;
            break;
        }
    }
    observer.finish();
    let t_end = stepper.time(done);
    if hist_e.last() != Some(&done) {
        hist_e.push(done);
        hist.time.push(t_end);
        hist.y.push(megno.y());
        hist.mean.push(megno.mean());
    }
    // The part of δ grown since the last renormalisation.
    let v = &y[off..off + n];
    log_growth += v.iter().map(|a| a * a).sum::<f64>().sqrt().ln();
    let fit = if complete && done == total {
        MegnoFit {
            slope: fit.slope(),
            intercept: fit.my - fit.slope() * fit.mt,
            start: stepper.time(total.div_ceil(2)),
            end: t_plan,
            samples: fit.n,
            every_sample: true,
        }
    } else {
        let from = hist.time.partition_point(|&s| s < 0.5 * t_end);
        let (ts, ms) = (&hist.time[from..], &hist.mean[from..]);
        let s = if ts.len() >= 2 {
            slope(ts, ms)
        } else {
            f64::NAN
        };
        let mt = ts.iter().sum::<f64>() / ts.len() as f64;
        let my = ms.iter().sum::<f64>() / ms.len() as f64;
        MegnoFit {
            slope: s,
            intercept: my - s * mt,
            start: ts.first().copied().unwrap_or(f64::NAN),
            end: t_end,
            samples: ts.len() as u64,
            every_sample: false,
        }
    };
    let x_end = &y[..n];
    let stats = stepper.stats();
    Ok(MegnoOrbit {
        mean: megno.mean(),
        y: megno.y(),
        lyapunov: 2.0 * fit.slope,
        fit,
        finite_time_exponent: if t_end > 0.0 {
            log_growth / t_end
        } else {
            f64::NAN
        },
        history: hist,
        energy: energy_check(&balance, sys.energy(t_end, x_end), work(&y), max_err),
        counts: MegnoCounts {
            steps: stats.steps,
            rejected_steps: stats.rejected,
            rhs_evaluations: stats.evals + done + 1,
            samples: done + 1,
            renormalizations: renorm,
        },
        sample_interval: h,
        tau: opts.tau,
        t_end,
        method: *method,
        options: *opts,
        complete,
    })
}

/// [`megno_orbit`] for a planar chain from `(θ, θ̇)`; Gauss–Legendre runs in canonical
/// coordinates (r then refers to (θ, p); ⟨Y⟩'s limits and slope are coordinate independent).
pub fn chain_megno(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &MegnoOptions,
    observer: &mut dyn Observer,
) -> Result<MegnoOrbit, LyapunovError> {
    super::check_len(chain, x0)?;
    chain.run_task(
        method,
        x0,
        MegnoTask {
            method,
            opts,
            observer,
        },
    )
}

/// [`megno_orbit`] as a [`Task`].
struct MegnoTask<'a> {
    method: &'a Method,
    opts: &'a MegnoOptions,
    observer: &'a mut dyn Observer,
}

impl Task for MegnoTask<'_> {
    type Output = Result<MegnoOrbit, LyapunovError>;
    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
        megno_orbit(sys, self.method, y0, self.opts, self.observer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn online_slope_matches_the_batch_fit() {
        let ts: Vec<f64> = (0..1000).map(|i| 500.0 + i as f64 * 0.5).collect();
        let ys: Vec<f64> = ts.iter().map(|t| 0.3 * t + (t * 1.7).sin()).collect();
        let mut f = SlopeFit::default();
        for (t, y) in ts.iter().zip(&ys) {
            f.push(*t, *y);
        }
        assert!((f.slope() - slope(&ts, &ys)).abs() < 1e-12);
    }
}
