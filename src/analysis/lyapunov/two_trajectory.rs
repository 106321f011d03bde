//! The maximal exponent by two nearby trajectories (Benettin, Galgani & Strelcyn 1976): the
//! check on the tangent-space estimators that needs no linearization.

use super::*;
use crate::analysis::orbit::driver::{check_x0, interval_loop, EnergyWatch};
use crate::analysis::orbit::stepper::Stepper;
use crate::analysis::route::{Routed, Task};
use crate::integrate::{IntegrateError, Ode};
use crate::model::angle::wrap_nearest_open_closed;
/// An angle difference wrapped into (−π, π] (by its nearest whole number of turns; the name
/// callers know).
pub use crate::model::angle::wrap_nearest_open_closed as wrap_angle;
use crate::model::System;

/// Distances between nearby states, for the two-trajectory method.
///
/// `difference(a, b, out)` writes `b ⊖ a`, a tangent-like displacement whose Euclidean norm is
/// the distance and such that `a ⊕ s·out` (component-wise `a + s·out`) is a state at distance
/// `s·‖out‖` — so angles must be wrapped. Closures `Fn(&[f64], &[f64], &mut [f64])` are metrics.
pub trait Metric: Sync {
    fn difference(&self, a: &[f64], b: &[f64], out: &mut [f64]);
}

impl<F: Fn(&[f64], &[f64], &mut [f64]) + Sync> Metric for F {
    fn difference(&self, a: &[f64], b: &[f64], out: &mut [f64]) {
        self(a, b, out)
    }
}

/// Plain component differences.
#[derive(Debug, Clone, Copy, Default)]
pub struct Euclidean;

impl Metric for Euclidean {
    fn difference(&self, a: &[f64], b: &[f64], out: &mut [f64]) {
        for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
            *o = y - x;
        }
    }
}

/// The first `angles` components are angles: their differences are wrapped to (−π, π].
#[derive(Debug, Clone, Copy)]
pub struct AngleMetric {
    pub angles: usize,
}

impl Metric for AngleMetric {
    fn difference(&self, a: &[f64], b: &[f64], out: &mut [f64]) {
        for (i, ((o, x), y)) in out.iter_mut().zip(a).zip(b).enumerate() {
            *o = if i < self.angles {
                wrap_nearest_open_closed(y - x)
            } else {
                y - x
            };
        }
    }
}

/// The two-trajectory method's options: the initial separation `d0` (default 1e-8) along
/// `direction` (default `(1, …, 1)/√n`; normalized here).
#[derive(Debug, Clone, PartialEq)]
pub struct TwoTrajectoryOptions {
    pub d0: f64,
    pub direction: Option<Vec<f64>>,
}

impl Default for TwoTrajectoryOptions {
    fn default() -> Self {
        TwoTrajectoryOptions {
            d0: 1e-8,
            direction: None,
        }
    }
}

/// Two copies of a system's state flow, integrated with the same steps: `[x | x' | W]`, with the
/// work W of the reference orbit in slot 2n when non-conservative forces act.
struct Twin<'a, S: System> {
    sys: &'a S,
    n: usize,
    work: bool,
    ws: S::Workspace,
}

impl<S: System> Ode for Twin<'_, S> {
    fn len(&self) -> usize {
        2 * self.n + self.work as usize
    }
    #[inline]
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        let n = self.n;
        let (a, b) = (&y[..n], &y[n..2 * n]);
        let (da, rest) = dy.split_at_mut(n);
        let (db, dw) = rest.split_at_mut(n);
        self.sys.rhs(t, a, da, &mut self.ws);
        self.sys.rhs(t, b, db, &mut self.ws);
        if self.work {
            dw[0] = self.sys.power(t, a);
        }
    }
}

/// The maximal exponent by the two-trajectory method (Benettin, Galgani & Strelcyn, Phys. Rev. A
/// 14, 2338 (1976)): a neighbour at distance `two.d0` in `metric`, and every τ
/// `λ += ln(d/d0)`, neighbour ← x ⊕ (d0/d)(neighbour ⊖ x). Needs `d0` ≫ √ε·|x| (rounding) and
/// `d0·e^{λτ}` small (linear regime). Options as for [`lyapunov_spectrum`] (`k` ignored).
pub fn max_exponent_two_trajectory<S: System>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    two: &TwoTrajectoryOptions,
    metric: &dyn Metric,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    let n = sys.dim();
    let o = LyapunovOptions {
        k: Some(1),
        ..*opts
    };
    let (_, n_trans, n_avg) = o.resolve(n)?;
    check_x0(n, x0)?;
    if !(two.d0.is_finite() && two.d0 > 0.0) {
        return Err(LyapunovError::invalid(
            "d0",
            two.d0,
            "must be finite and > 0",
        ));
    }
    let mut dir = two.direction.clone().unwrap_or_else(|| vec![1.0; n]);
    let norm = dir.iter().map(|v| v * v).sum::<f64>().sqrt();
    if dir.len() != n || !(norm.is_finite() && norm > 0.0) {
        return Err(LyapunovError::invalid(
            "direction",
            norm,
            format!("must be a non-zero finite vector of length {n}"),
        ));
    }
    dir.iter_mut().for_each(|v| *v /= norm);
    let mut ode = Twin {
        sys,
        n,
        work: sys.non_conservative(),
        ws: sys.workspace(),
    };
    let ode_work = ode.work;
    let work = |y: &[f64]| if ode_work { y[2 * n] } else { 0.0 };
    let mut y = vec![0.0; ode.len()];
    y[..n].copy_from_slice(x0);
    for i in 0..n {
        y[n + i] = x0[i] + two.d0 * dir[i];
    }
    let mut stepper = Stepper::new(method, o.tau, y.len())?;
    let mut diff = vec![0.0; n];
    let mut acc = Accum::new(1, o.tau, o.max_history);
    let mut watch = EnergyWatch::new(sys, x0);
    let total = n_trans + n_avg;
    let name = |e: IntegrateError| -> LyapunovError {
        AnalysisError::from_integrate(e, |i| {
            if i < n {
                sys.component_name(i)
            } else if i < 2 * n {
                format!("neighbour {}", sys.component_name(i - n))
            } else {
                "work".to_string()
            }
        })
        .into()
    };
    let mut converged = o.tolerance.map(|_| false);
    // Each interval's end: the neighbour pulled back to d0 along the difference, ln(d/d0)
    // averaged after the transient.
    let each = |e: u64, t: f64, y: &mut [f64]| {
        let (a, rest) = y.split_at_mut(n);
        let b = &mut rest[..n];
        metric.difference(a, b, &mut diff);
        let d = diff.iter().map(|v| v * v).sum::<f64>().sqrt();
        let s = two.d0 / d;
        for i in 0..n {
            b[i] = a[i] + s * diff[i];
        }
        if e > n_trans {
            let recorded = acc.push(t, &[(d / two.d0).ln()]);
            if recorded {
                watch.sample(sys.energy(t, &y[..n]), work(y));
                if converged_now(&acc, &o) {
                    converged = Some(true);
                    return true;
                }
            }
        }
        false
    };
    let span = (total, "intervals");
    let (complete, done) =
        interval_loop(&mut stepper, &mut ode, &mut y, span, observer, name, each)?;
    let t_end = stepper.time(done);
    let end = RunEnd {
        estimator: Estimator::TwoTrajectory { d0: two.d0 },
        acc,
        volume: None,
        energy: watch.check(sys.energy(t_end, &y[..n]), work(&y)),
        stats: stepper.stats(),
        // One renormalisation per interval done.
        qr: done,
        transient_intervals: done.min(n_trans),
        t_end,
        complete,
        converged,
        // No volume split known here: a system without damping, drive or input keeps volume.
        volume_preserving: !sys.non_conservative(),
    };
    Ok(finish(end, method, &o, false))
}

/// [`max_exponent_two_trajectory`] for a planar chain with [`AngleMetric`] on the N angles
/// (Gauss–Legendre in canonical coordinates, as in [`chain_spectrum`]).
pub fn chain_two_trajectory(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    two: &TwoTrajectoryOptions,
    observer: &mut dyn Observer,
) -> Result<Lyapunov, LyapunovError> {
    check_len(chain, x0)?;
    let task = TwoTrajectory {
        method,
        opts,
        two,
        metric: AngleMetric {
            angles: chain.links(),
        },
        observer,
    };
    chain.run_task(method, x0, task)
}

/// [`max_exponent_two_trajectory`] as a [`Task`].
struct TwoTrajectory<'a, M: Metric> {
    method: &'a Method,
    opts: &'a LyapunovOptions,
    two: &'a TwoTrajectoryOptions,
    metric: M,
    observer: &'a mut dyn Observer,
}

impl<M: Metric> Task for TwoTrajectory<'_, M> {
    type Output = Result<Lyapunov, LyapunovError>;
    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
        let (method, opts, two) = (self.method, self.opts, self.two);
        max_exponent_two_trajectory(sys, method, y0, opts, two, &self.metric, self.observer)
    }
}
