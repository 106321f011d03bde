//! Advancing an augmented vector from one QR (or rescaling) time to the next, exactly.
//!
//! Interval `e` ends at `t_e = e·q·dt` for the fixed-step methods (an integer step count, never a
//! running sum: docs/benchmarks.md, common rules) and at `t_e = e·τ` for DOP853, which lands on it with `t_stop`.

use super::LyapunovError;
use crate::integrate::{
    check_finite, Gauss, IntegrateError, Method, MethodSolver, Ode, Solver, Stats,
};

/// A solver and the grid of interval ends.
pub(crate) struct Stepper {
    solver: MethodSolver,
    grid: Grid,
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

    /// Advances `y` from the end of interval `e − 1` to the end of interval `e`.
    #[inline]
    pub(crate) fn interval<O: Ode>(
        &mut self,
        ode: &mut O,
        e: u64,
        y: &mut [f64],
    ) -> Result<(), IntegrateError> {
        let t0 = self.time(e - 1);
        let t1 = self.time(e);
        match (&mut self.solver, self.grid) {
            // RK4 driven step by step on the interval's own grid (no clipping, no clock).
            (MethodSolver::Rk4(solver), Grid::Fixed { dt, q }) => {
                let base = (e - 1) * q;
                for s in 0..q {
                    let t = (base + s) as f64 * dt;
                    solver.rk4_step(ode, t, dt, y);
                }
                check_finite(t1, y)
            }
            (solver, _) => solver.advance_to(ode, t0, y, t1).map(|_| ()),
        }
    }

    pub(crate) fn stats(&self) -> Stats {
        self.solver.stats()
    }
}
