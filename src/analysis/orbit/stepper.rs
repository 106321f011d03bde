//! Advancing an augmented vector from one QR (or rescaling) time to the next, exactly.
//!
//! Interval `e` ends at `t_e = e·q·dt` for the fixed-step methods (an integer step count, never a
//! running sum: docs/benchmarks.md, common rules) and at `t_e = e·τ` for DOP853, which lands on it with `t_stop`.

use super::LyapunovError;
use crate::integrate::{
    check_finite, check_progress, Gauss, IntegrateError, Method, MethodSolver, Ode, Solver, Stats,
};
use crate::observe::{Cancel, POLL_STEPS};

/// A solver and the grid of interval ends.
pub(crate) struct Stepper {
    solver: MethodSolver,
    grid: Grid,
    /// The state at the start of the interval in progress, put back when a stop request ends
    /// it early, so that an interrupted run ends on an interval end with a consistent state.
    y_start: Vec<f64>,
}

/// Where the intervals end.
#[derive(Debug, Clone, Copy)]
enum Grid {
    /// `q` steps of `dt` per interval (the fixed-step methods).
    Fixed { dt: f64, q: u64 },
    /// Every `tau` (the adaptive method lands on each end).
    Adaptive { tau: f64 },
}

/// `q = τ/dt`, which must be a whole number (to 1e-9 relative) so that every interval end is a
/// step of the fixed grid.
fn steps_per_interval(tau: f64, dt: f64) -> Result<u64, LyapunovError> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(LyapunovError::invalid("dt", dt, "must be finite and > 0"));
    }
    let q = (tau / dt).round();
    // Beyond 2⁵² steps per interval the grid times e·q·dt lose their integer steps (and the
    // run would never end): a step that small does not advance t (the integrators' guard).
    if q.is_nan() || q > 2f64.powi(52) {
        let e = IntegrateError::NoProgress { time: tau, h: dt };
        return Err(LyapunovError::Analysis(e.into()));
    }
    if q < 1.0 || ((tau / dt) - q).abs() > 1e-9 * q {
        return Err(LyapunovError::invalid(
            "tau",
            tau,
            format!("must be a whole multiple of the step dt = {dt}"),
        ));
    }
    Ok(q as u64)
}

impl Stepper {
    pub(crate) fn new(method: &Method, tau: f64, len: usize) -> Result<Stepper, LyapunovError> {
        if let Method::Gauss { stages, .. } = *method {
            if !Gauss::STAGES.contains(&stages) {
                return Err(LyapunovError::invalid(
                    "stages",
                    stages as f64,
                    "must be 1, 2 or 3",
                ));
            }
        }
        let grid = match method.fixed_dt() {
            Some(dt) => Grid::Fixed {
                dt,
                q: steps_per_interval(tau, dt)?,
            },
            None => Grid::Adaptive { tau },
        };
        Ok(Stepper {
            solver: method.solver(len),
            grid,
            y_start: vec![0.0; len],
        })
    }

    /// The end time of interval `e` (and the start of interval `e + 1`).
    #[inline]
    pub(crate) fn time(&self, e: u64) -> f64 {
        match self.grid {
            Grid::Fixed { dt, q } => (e * q) as f64 * dt,
            Grid::Adaptive { tau } => e as f64 * tau,
        }
    }

    /// Advances `y` from the end of interval `e − 1` to the end of interval `e`, polling
    /// `cancel` every [`POLL_STEPS`] steps. Returns false when a stop request ended the interval
    /// early; `y` is then put back at the start of the interval (the end of interval `e − 1`).
    #[inline]
    pub(crate) fn interval<O: Ode>(
        &mut self,
        ode: &mut O,
        e: u64,
        y: &mut [f64],
        cancel: &Cancel,
    ) -> Result<bool, IntegrateError> {
        let t0 = self.time(e - 1);
        let t1 = self.time(e);
        self.y_start.copy_from_slice(y);
        let done = match (&mut self.solver, self.grid) {
            // RK4 driven step by step on the interval's own grid (no clipping, no clock).
            (MethodSolver::Rk4(solver), Grid::Fixed { dt, q }) => {
                check_progress(t0, dt, t1)?;
                let base = (e - 1) * q;
                let mut done = true;
                for s in 0..q {
                    if (s + 1).is_multiple_of(POLL_STEPS) && cancel.is_set() {
                        done = false;
                        break;
                    }
                    let t = (base + s) as f64 * dt;
                    solver.rk4_step(ode, t, dt, y);
                }
                if done {
                    check_finite(t1, y)?;
                }
                done
            }
            (solver, _) => match solver.advance_to_cancellable(ode, t0, y, t1, cancel) {
                Ok(_) => true,
                Err(IntegrateError::Interrupted { .. }) => false,
                Err(err) => return Err(err),
            },
        };
        if !done {
            y.copy_from_slice(&self.y_start);
        }
        Ok(done)
    }

    pub(crate) fn stats(&self) -> Stats {
        self.solver.stats()
    }
}
