//! The stroboscopic map of a driven system, P: x ↦ φ_T(x), its state one drive period T later:
//! a discrete system derived from the flow, as a value. An orbit diagram iterates it, the
//! shooting finds the fixed points of its k-th iterate, and a period-k orbit is one of its
//! k-cycles.
//!
//! P is the same function at every period only if every period is integrated the same way, so
//! [`Stroboscopic::iterate`] integrates one period from t = 0 on one fixed RK4 grid t = s·T/q
//! (s = 0..q) and wraps the angles into (−π, π] at its end: the map's argument stays small
//! (unwrapped angles and times grow without bound and cost more to reduce), and the model runs
//! on its workspace for repeated times
//! ([`crate::model::System::workspace_for_repeated_times`]), which computes the drive's cosines
//! of that grid in the first period and recalls them, bit for bit, in the others.
//!
//! A seed for a periodic orbit is the other use: [`iterates`] applies the map a given number
//! of times with the spec's own integrator (adaptive or fixed step), the angles left unwrapped,
//! to settle on an attractor or scan it for near returns.
//!
//! The period is the model's ([`crate::model::Drive::period`], through the family's
//! [`super::Closure::Driven`]); nothing here computes one. The map-kind lanes step many pixels
//! at once on their own SIMD engine and a Poincaré section samples t₀ + kT on one continuous
//! integration's dense output; neither iterates P as a map of single states.

use super::flow::propagate;
use super::PeriodicError;
use crate::analysis::AnalysisError;
use crate::integrate::rk4::Rk4Solver;
use crate::integrate::Method;
use crate::integrate::{check_finite, check_progress, Flow, Layout, Rk4};
use crate::model::angle::wrap_nearest_open_closed;
use crate::model::System;
use crate::observe::{Cancel, Observer};

/// The stroboscopic map of `sys` over its drive period (module docs), with the tangent map
/// DP·v of one deviation vector when asked.
pub struct Stroboscopic<'a, S: System> {
    sys: &'a S,
    /// The drive period T (s).
    period: f64,
    /// RK4 steps per period.
    steps: u64,
    /// The state alone, and the state with one tangent vector (a model evaluates the state
    /// part of `rhs_tangent` as `rhs` does, so both advance the state alike).
    state: Flow<'a, S>,
    with_tangent: Flow<'a, S>,
}

/// The RK4 solvers of a map's iterates, allocated once and reused by every map of the same
/// dimension (the hot loop allocates nothing): one for the state, one for `[x | v]`.
pub struct Solvers {
    state: Rk4Solver,
    tangent: Rk4Solver,
}

impl Solvers {
    /// Solvers for a state of `dim` components.
    pub fn new(dim: usize) -> Self {
        // (rk4_step takes its step at each call: the solvers' own dt is not used.)
        Solvers {
            state: Rk4::new(1.0).solver(dim),
            tangent: Rk4::new(1.0).solver(2 * dim),
        }
    }
}

impl<'a, S: System> Stroboscopic<'a, S> {
    /// The map of `sys` over `period` (s) in `steps` RK4 steps. Errors: a period that is not
    /// finite and > 0, or a step too small to advance t over it.
    pub fn new(sys: &'a S, period: f64, steps: u64) -> Result<Self, PeriodicError> {
        let dt = period / steps as f64;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(PeriodicError::invalid(
                "drive_period",
                "must be finite and > 0",
            ));
        }
        check_progress(0.0, dt, steps as f64 * dt).map_err(|e| {
            PeriodicError::Run(AnalysisError::naming(sys, Self::layout(sys, false))(e))
        })?;
        Ok(Stroboscopic {
            sys,
            period,
            steps,
            state: Flow::repeating(sys, false, 0),
            with_tangent: Flow::repeating(sys, false, 1),
        })
    }

    /// The drive period T (s).
    pub fn period(&self) -> f64 {
        self.period
    }

    /// The layout of the state alone or with one tangent vector (for naming a blow-up).
    fn layout(sys: &S, tangent: bool) -> Layout {
        Layout {
            n: sys.dim(),
            work: false,
            k: usize::from(tangent),
        }
    }

    /// `y ← P(y)`: the state `y` (of the system's dimension), or `[x | v]` (twice that) with
    /// the tangent vector v carried as DP·v, unnormalised. `periods` is the index of this
    /// iterate (for naming a blow-up at its time); `steps` counts RK4 steps for `cancel`'s
    /// polling. Errors: a blow-up, a stop request.
    pub fn iterate(
        &mut self,
        y: &mut [f64],
        solvers: &mut Solvers,
        periods: u64,
        steps: &mut u64,
        cancel: &Cancel,
    ) -> Result<(), PeriodicError> {
        let n = self.sys.dim();
        let tangent = y.len() > n;
        let q = self.steps;
        let dt = self.period / q as f64;
        for s in 0..q {
            *steps += 1;
            if cancel.poll(*steps) {
                return Err(PeriodicError::Interrupted);
            }
            let t = s as f64 * dt;
            if tangent {
                solvers.tangent.rk4_step(&mut self.with_tangent, t, dt, y);
            } else {
                solvers.state.rk4_step(&mut self.state, t, dt, y);
            }
        }
        check_finite((periods * q) as f64 * dt, y).map_err(|err| {
            PeriodicError::Run(AnalysisError::naming(
                self.sys,
                Self::layout(self.sys, tangent),
            )(err))
        })?;
        for a in &mut y[..self.sys.angles().min(n)] {
            *a = wrap_nearest_open_closed(*a);
        }
        Ok(())
    }
}

/// `periods` iterates of the stroboscopic map of `sys` over `period` (s), each integrated from
/// t = 0 with `method`, from `x0`; each iterate is handed to `each`, the last one returned. One
/// period at a time, so that the tangent flow the integration carries along never grows beyond
/// one period's stretching (over a chaotic stretch it overflows). Errors: a blow-up, a stop
/// request (checked after each period).
pub fn iterates<S: System>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    period: f64,
    periods: u64,
    observer: &mut dyn Observer,
    mut each: impl FnMut(&[f64]),
) -> Result<Vec<f64>, PeriodicError> {
    let mut x = x0.to_vec();
    for _ in 0..periods {
        x = propagate(sys, method, 0.0, &x, period, 1, observer)?.x;
        if observer.cancel().is_set() {
            return Err(PeriodicError::Interrupted);
        }
        each(&x);
    }
    Ok(x)
}
