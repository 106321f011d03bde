//! Advancing an augmented vector from one QR (or rescaling) time to the next, exactly.
//!
//! Interval `e` ends at `t_e = e·q·dt` for the fixed-step methods (an integer step count, never a
//! running sum: benchmarks.md §0) and at `t_e = e·τ` for DOP853, which lands on it with `t_stop`.

use super::LyapunovError;
use crate::integrate::rk4::Rk4Solver;
use crate::integrate::{
    check_finite, Dop853, Dop853Solver, Gauss, GaussSolver, IntegrateError, Method, Ode, Rk4,
    Solver, Stats,
};

/// A solver and the grid of interval ends.
pub(crate) enum Stepper {
    /// RK4 driven step by step: `q` steps of `dt` per interval.
    Rk4 {
        solver: Rk4Solver,
        dt: f64,
        q: u64,
    },
    Dop853 {
        solver: Dop853Solver,
        tau: f64,
    },
    Gauss {
        solver: GaussSolver,
        dt: f64,
        q: u64,
    },
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
        Ok(match *method {
            Method::Rk4 { dt } => Stepper::Rk4 {
                solver: Rk4::new(dt).solver(len),
                dt,
                q: steps_per_interval(tau, dt)?,
            },
            Method::Dop853 { rtol, atol, h_max } => Stepper::Dop853 {
                solver: Dop853 {
                    rtol,
                    atol,
                    h_max,
                    ..Default::default()
                }
                .solver(len),
                tau,
            },
            Method::Gauss { dt, stages } => {
                if !(1..=3).contains(&stages) {
                    return Err(LyapunovError::invalid(
                        "stages",
                        stages as f64,
                        "must be 1, 2 or 3",
                    ));
                }
                let q = steps_per_interval(tau, dt)?;
                Stepper::Gauss {
                    solver: Gauss { dt, stages }.solver(len),
                    dt,
                    q,
                }
            }
        })
    }

    /// The end time of interval `e` (and the start of interval `e + 1`).
    #[inline]
    pub(crate) fn time(&self, e: u64) -> f64 {
        match *self {
            Stepper::Rk4 { dt, q, .. } | Stepper::Gauss { dt, q, .. } => (e * q) as f64 * dt,
            Stepper::Dop853 { tau, .. } => e as f64 * tau,
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
        match self {
            Stepper::Rk4 { solver, dt, q } => {
                let base = (e - 1) * *q;
                for s in 0..*q {
                    let t = (base + s) as f64 * *dt;
                    solver.rk4_step(ode, t, *dt, y);
                }
                check_finite(t1, y)
            }
            Stepper::Dop853 { solver, .. } => solver.advance_to(ode, t0, y, t1).map(|_| ()),
            Stepper::Gauss { solver, .. } => solver.advance_to(ode, t0, y, t1).map(|_| ()),
        }
    }

    pub(crate) fn stats(&self) -> Stats {
        match self {
            Stepper::Rk4 { solver, .. } => solver.stats(),
            Stepper::Dop853 { solver, .. } => solver.stats(),
            Stepper::Gauss { solver, .. } => solver.stats(),
        }
    }
}
