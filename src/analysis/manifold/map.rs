//! The plane maps whose manifolds are grown: [`PlaneMap`] is a map with its inverse.
//!
//! [`FlowMap`] is the stroboscopic map of a one-link chain, x ↦ φ(T; 0, x), its state one
//! period T later, and its inverse x ↦ φ(0; T, x), the flow integrated backwards from t = T
//! to 0 (a driven chain's right-hand side depends on t, so the backward run starts at the
//! period's end). Both run DOP853 ([`MapIntegration`]): adaptive at a tolerance (the default,
//! 1e-13: accurate wherever the curves go, a damped chain's inverse map included, whose
//! velocities grow by e^{δT} a period), or pinned to a fixed grid of `steps` equal steps per
//! period (the tolerance set to 1e-13 with the step fixed: a run whose error estimate would
//! shrink a step is refused, so the map is one smooth function of x, free of the jumps at
//! the tolerance that an adaptive step selection makes). The angle is not wrapped: the curves
//! live in the cover θ ∈ ℝ, where their arclength is the true one, and [`PlaneMap::lattice`]
//! says which shift identifies points. tests/manifolds.rs checks P(P⁻¹(x)) = x to 1e-12 and
//! the adaptive map against a fine fixed grid.

use super::{ManifoldError, P2};
use crate::integrate::{Dop853, Dop853Solver, Flow, Solver};
use crate::model::System;

/// A plane map with its inverse, applied to one point at a time with a workspace per thread.
pub trait PlaneMap: Sync {
    /// What one thread reuses between applications (solvers, model workspace).
    type Work: Send;
    fn work(&self) -> Self::Work;
    /// P(x), or P⁻¹(x) when `inverse`.
    fn apply(&self, x: P2, inverse: bool, w: &mut Self::Work) -> Result<P2, ManifoldError>;
    /// The relative step of the central differences of DP ([`super::saddle::jacobian`]): a
    /// map whose error is far below its truncation error at the default step takes a
    /// smaller one.
    fn difference_step(&self) -> f64 {
        super::saddle::FD_STEP
    }
    /// The shift that identifies points of the plane (an angle's 2π), if any.
    fn lattice(&self) -> Option<P2> {
        None
    }
    /// P or P⁻¹ applied `k` times.
    fn iterate(
        &self,
        mut x: P2,
        k: usize,
        inverse: bool,
        w: &mut Self::Work,
    ) -> Result<P2, ManifoldError> {
        for _ in 0..k {
            x = self.apply(x, inverse, w)?;
        }
        Ok(x)
    }
}

/// A linear map x ↦ A x (A invertible): its manifolds are its eigenlines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearMap {
    /// Row-major [[a, b], [c, d]].
    pub a: [[f64; 2]; 2],
}

impl PlaneMap for LinearMap {
    type Work = ();
    fn work(&self) {}
    fn apply(&self, x: P2, inverse: bool, _: &mut ()) -> Result<P2, ManifoldError> {
        let [[a, b], [c, d]] = self.a;
        if inverse {
            let det = a * d - b * c;
            Ok([(d * x[0] - b * x[1]) / det, (-c * x[0] + a * x[1]) / det])
        } else {
            Ok([a * x[0] + b * x[1], c * x[0] + d * x[1]])
        }
    }
}

/// How a [`FlowMap`] integrates a period (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MapIntegration {
    /// Adaptive DOP853 at this tolerance (relative and absolute).
    Adaptive(f64),
    /// DOP853 pinned to this many equal steps per period.
    Fixed(u64),
}

/// The tolerance of the adaptive map and the fixed grid's error check.
pub const MAP_TOLERANCE: f64 = 1e-13;

/// The stroboscopic map of a one-link chain (state (θ, θ̇)) over `period` (module docs).
pub struct FlowMap<'a, S: System> {
    sys: &'a S,
    period: f64,
    integration: MapIntegration,
}

/// Most steps per period a [`FlowMap`] takes (fixed or adaptive).
pub const MAX_STEPS_PER_PERIOD: u64 = 1_000_000;

impl<'a, S: System> FlowMap<'a, S> {
    /// The map of `sys` (of dimension 2) over `period` (s). Errors name
    /// `manifolds.steps_per_period`, `manifolds.map_tolerance` or the period.
    pub fn new(
        sys: &'a S,
        period: f64,
        integration: MapIntegration,
    ) -> Result<Self, ManifoldError> {
        if sys.dim() != 2 {
            return Err(ManifoldError::invalid(
                "model",
                format!(
                    "the map of a plane needs a state of 2 components (one link); this one has {}",
                    sys.dim()
                ),
            ));
        }
        if !(period.is_finite() && period > 0.0) {
            return Err(ManifoldError::invalid(
                "drive_period",
                "must be finite and > 0",
            ));
        }
        match integration {
            MapIntegration::Fixed(steps) if !(1..=MAX_STEPS_PER_PERIOD).contains(&steps) => {
                return Err(ManifoldError::invalid(
                    "manifolds.steps_per_period",
                    format!("must be 1..={MAX_STEPS_PER_PERIOD} (got {steps})"),
                ));
            }
            MapIntegration::Adaptive(tol)
                if !(tol.is_finite() && (1e-15..=1e-3).contains(&tol)) =>
            {
                return Err(ManifoldError::invalid(
                    "manifolds.map_tolerance",
                    format!("must be in [1e-15, 1e-3] (got {tol})"),
                ));
            }
            _ => {}
        }
        Ok(FlowMap {
            sys,
            period,
            integration,
        })
    }

    pub fn period(&self) -> f64 {
        self.period
    }

    pub fn integration(&self) -> MapIntegration {
        self.integration
    }

    fn method(&self) -> Dop853 {
        match self.integration {
            MapIntegration::Fixed(steps) => {
                let h = self.period / steps as f64;
                Dop853 {
                    rtol: MAP_TOLERANCE,
                    atol: MAP_TOLERANCE,
                    h_init: Some(h),
                    h_max: h,
                    max_steps: u64::MAX,
                }
            }
            MapIntegration::Adaptive(tol) => Dop853 {
                rtol: tol,
                atol: tol,
                max_steps: u64::MAX,
                ..Dop853::default()
            },
        }
    }
}

/// A [`FlowMap`]'s workspace: its solver and the model's flow.
pub struct FlowWork<'a, S: System> {
    solver: Dop853Solver,
    flow: Flow<'a, S>,
}

impl<'a, S: System> PlaneMap for FlowMap<'a, S> {
    type Work = FlowWork<'a, S>;

    fn work(&self) -> Self::Work {
        FlowWork {
            solver: self.method().solver(2),
            flow: Flow::new(self.sys),
        }
    }

    fn apply(&self, x: P2, inverse: bool, w: &mut Self::Work) -> Result<P2, ManifoldError> {
        let (mut t, t_stop) = if inverse {
            (self.period, 0.0)
        } else {
            (0.0, self.period)
        };
        let mut y = x;
        w.solver.reset();
        let mut taken = 0u64;
        while t != t_stop {
            t = w.solver.step(&mut w.flow, t, &mut y, t_stop).map_err(|e| {
                ManifoldError::Failed(format!("the map from ({}, {}) failed: {e}", x[0], x[1]))
            })?;
            taken += 1;
            if taken > MAX_STEPS_PER_PERIOD {
                break;
            }
        }
        match self.integration {
            MapIntegration::Fixed(steps) if taken != steps => {
                return Err(ManifoldError::Failed(format!(
                    "the map from ({}, {}) took {taken} steps instead of its grid's {steps}: its error estimate exceeded {MAP_TOLERANCE:e} at the step T/{steps}; raise manifolds.steps_per_period",
                    x[0], x[1]
                )));
            }
            _ if taken > MAX_STEPS_PER_PERIOD => {
                return Err(ManifoldError::Failed(format!(
                    "the map from ({}, {}) took more than {MAX_STEPS_PER_PERIOD} steps",
                    x[0], x[1]
                )));
            }
            _ => {}
        }
        if !(y[0].is_finite() && y[1].is_finite()) {
            return Err(ManifoldError::Failed(format!(
                "the map from ({}, {}) blew up",
                x[0], x[1]
            )));
        }
        Ok(y)
    }

    fn lattice(&self) -> Option<P2> {
        (self.sys.angles() >= 1).then_some([std::f64::consts::TAU, 0.0])
    }
}

/// The k-th iterate of a map (a period-k saddle is a fixed point of it).
pub struct Iterate<'m, M: PlaneMap> {
    pub map: &'m M,
    pub k: usize,
}

impl<M: PlaneMap> PlaneMap for Iterate<'_, M> {
    type Work = M::Work;
    fn work(&self) -> M::Work {
        self.map.work()
    }
    fn apply(&self, x: P2, inverse: bool, w: &mut M::Work) -> Result<P2, ManifoldError> {
        self.map.iterate(x, self.k, inverse, w)
    }
    fn lattice(&self) -> Option<P2> {
        self.map.lattice()
    }
    fn difference_step(&self) -> f64 {
        self.map.difference_step()
    }
}
