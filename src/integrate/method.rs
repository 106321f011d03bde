//! The integrator a spec asks for, as plain data, and the one solver it builds.

use super::dop853::{Dop853, Dop853Solver};
use super::gauss::{Gauss, GaussSolver};
use super::rk4::{Rk4, Rk4Solver};
use super::{Ode, Result, Solver, Stats};
use serde::Serialize;

/// Which integrator, with its parameters. See [`super::Rk4`], `Dop853` and `Gauss`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum Method {
    /// Classical RK4 with fixed step `dt` (s).
    Rk4 { dt: f64 },
    /// Adaptive Dormand–Prince 8(5,3) with dense output.
    Dop853 {
        rtol: f64,
        atol: f64,
        /// Largest step (s); infinite (the default) is left out of JSON, which has no infinity.
        #[serde(skip_serializing_if = "is_unbounded")]
        h_max: f64,
    },
    /// Gauss–Legendre collocation (symplectic, in canonical coordinates), fixed step; `stages`
    /// in [`Gauss::STAGES`].
    Gauss { dt: f64, stages: usize },
}

impl Method {
    /// Short name, as written in specs and files.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Rk4 { .. } => "rk4",
            Method::Dop853 { .. } => "dop853",
            Method::Gauss { .. } => "gauss",
        }
    }
    /// The fixed step, for fixed-step methods.
    pub fn fixed_dt(&self) -> Option<f64> {
        match *self {
            Method::Rk4 { dt } | Method::Gauss { dt, .. } => Some(dt),
            Method::Dop853 { .. } => None,
        }
    }
    /// DOP853 with the defaults of [`Dop853::default`] (the one place they are written).
    pub fn dop853_default() -> Method {
        Method::from(Dop853::default())
    }
    /// Gauss–Legendre with step `dt` and the default stages of [`Gauss::new`].
    pub fn gauss_default(dt: f64) -> Method {
        Method::from(Gauss::new(dt))
    }
    /// The solver this method describes, with buffers for vectors of length `len`; DOP853's
    /// `h_init` and `max_steps` take their [`Dop853::default`] values.
    ///
    /// # Panics
    /// As [`Gauss::solver`]: Gauss stages outside [`Gauss::STAGES`] (validate first).
    pub fn solver(&self, len: usize) -> MethodSolver {
        match *self {
            Method::Rk4 { dt } => MethodSolver::Rk4(Rk4::new(dt).solver(len)),
            Method::Dop853 { rtol, atol, h_max } => MethodSolver::Dop853(
                Dop853 {
                    rtol,
                    atol,
                    h_max,
                    ..Default::default()
                }
                .solver(len),
            ),
            Method::Gauss { dt, stages } => MethodSolver::Gauss(Gauss { dt, stages }.solver(len)),
        }
    }
}

impl From<Dop853> for Method {
    fn from(d: Dop853) -> Method {
        Method::Dop853 {
            rtol: d.rtol,
            atol: d.atol,
            h_max: d.h_max,
        }
    }
}

impl From<Gauss> for Method {
    fn from(g: Gauss) -> Method {
        Method::Gauss {
            dt: g.dt,
            stages: g.stages,
        }
    }
}

impl From<Rk4> for Method {
    fn from(r: Rk4) -> Method {
        Method::Rk4 { dt: r.dt }
    }
}

fn is_unbounded(h: &f64) -> bool {
    h.is_infinite()
}

/// The solver of a [`Method`]: one type for whichever integrator a run asked for, so no caller
/// matches on the method to build or drive one. Each call forwards to the integrator's own
/// solver, so results are those of the integrator used directly.
#[derive(Debug, Clone)]
pub enum MethodSolver {
    Rk4(Rk4Solver),
    Dop853(Dop853Solver),
    Gauss(GaussSolver),
}

/// Forwards one call to the solver inside a [`MethodSolver`].
macro_rules! each {
    ($self:expr, $s:ident => $call:expr) => {
        match $self {
            MethodSolver::Rk4($s) => $call,
            MethodSolver::Dop853($s) => $call,
            MethodSolver::Gauss($s) => $call,
        }
    };
}

impl Solver for MethodSolver {
    #[inline]
    fn step<O: Ode>(&mut self, ode: &mut O, t: f64, y: &mut [f64], t_stop: f64) -> Result<f64> {
        each!(self, s => s.step(ode, t, y, t_stop))
    }

    #[inline]
    fn dense<O: Ode>(&mut self, ode: &mut O, s: f64, out: &mut [f64]) {
        each!(self, v => v.dense(ode, s, out))
    }

    fn stats(&self) -> Stats {
        each!(self, s => s.stats())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate::test_odes::Osc;

    fn run<S: Solver>(s: &mut S) -> ([f64; 2], Stats) {
        let mut y = [1.0, 0.0];
        let t = s.advance_to(&mut Osc, 0.0, &mut y, 3.0).unwrap();
        assert_eq!(t, 3.0);
        (y, s.stats())
    }

    /// The solver a Method builds gives the integrator's own numbers, bit for bit.
    #[test]
    fn method_solver_is_the_integrator() {
        let rk4 = Rk4::new(0.01);
        let dop = Dop853::with_tol(1e-9);
        let gauss = Gauss {
            dt: 0.05,
            stages: 2,
        };
        let a = run(&mut Method::from(rk4).solver(2));
        assert_eq!(a, run(&mut rk4.solver(2)));
        let a = run(&mut Method::from(dop).solver(2));
        assert_eq!(a, run(&mut dop.solver(2)));
        let a = run(&mut Method::from(gauss).solver(2));
        assert_eq!(a, run(&mut gauss.solver(2)));
    }

    #[test]
    fn defaults_come_from_the_integrators() {
        let d = Dop853::default();
        assert_eq!(
            Method::dop853_default(),
            Method::Dop853 {
                rtol: d.rtol,
                atol: d.atol,
                h_max: d.h_max
            }
        );
        assert_eq!(
            Method::gauss_default(0.1),
            Method::Gauss {
                dt: 0.1,
                stages: Gauss::new(0.1).stages
            }
        );
        assert!(Gauss::STAGES.contains(&Gauss::new(0.1).stages));
    }
}
