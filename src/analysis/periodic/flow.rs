//! The flow map over one stretch of time together with its exact Jacobian (the monodromy when
//! the stretch is a period), as a reducer on the single-orbit driver.
//!
//! [`propagate`] integrates `x` and the full tangent block `V(0) = I` from `t0` over `duration`
//! in `m` equal intervals; at each interval end it keeps the state (the orbit's shape) and
//! tr J(x, t), whose trapezoidal sum is ∫ tr J dt: exact to round-off for the smooth periodic
//! integrand of a closed orbit, and what Liouville's formula det Φ = exp(∫ tr J dt) checks.

use super::PeriodicError;
use crate::analysis::orbit::driver::{
    drive, End, Plan, Reducer, Sampling, Span, Step, Tangent, Tick,
};
use crate::integrate::Method;
use crate::model::System;
use crate::observe::Observer;
use nalgebra::DMatrix;

/// `sys` seen from time `t0`: `rhs(t)` is `sys.rhs(t0 + t)`, so that the driver, which always
/// starts at t = 0, integrates a stretch that starts at `t0` (a shooting segment of a driven
/// chain).
pub(crate) struct Shifted<'a, S> {
    pub sys: &'a S,
    pub t0: f64,
}

impl<S: System> System for Shifted<'_, S> {
    type Workspace = S::Workspace;
    fn dim(&self) -> usize {
        self.sys.dim()
    }
    fn workspace(&self) -> Self::Workspace {
        self.sys.workspace()
    }
    fn workspace_for_repeated_times(&self) -> Self::Workspace {
        self.sys.workspace_for_repeated_times()
    }
    #[inline]
    fn rhs(&self, t: f64, x: &[f64], dx: &mut [f64], ws: &mut Self::Workspace) {
        self.sys.rhs(self.t0 + t, x, dx, ws)
    }
    #[inline]
    fn rhs_tangent(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        ws: &mut Self::Workspace,
    ) {
        self.sys.rhs_tangent(self.t0 + t, x, v, dx, dv, ws)
    }
    fn energy(&self, t: f64, x: &[f64]) -> f64 {
        self.sys.energy(self.t0 + t, x)
    }
    fn power(&self, t: f64, x: &[f64]) -> f64 {
        self.sys.power(self.t0 + t, x)
    }
    fn non_conservative(&self) -> bool {
        self.sys.non_conservative()
    }
    fn energy_scale(&self, e0: f64) -> f64 {
        self.sys.energy_scale(e0)
    }
    fn angles(&self) -> usize {
        self.sys.angles()
    }
    fn component_name(&self, i: usize) -> String {
        self.sys.component_name(i)
    }
}

/// One stretch of the flow: where it ends, its Jacobian, and the samples along it.
#[derive(Debug, Clone)]
pub struct Propagated {
    /// φ(x0): the state at the end.
    pub x: Vec<f64>,
    /// ∂φ/∂x0 (n × n).
    pub jacobian: DMatrix<f64>,
    /// ẋ at the end, f(φ(x0), t0 + duration): the derivative of the end in the duration.
    pub velocity: Vec<f64>,
    /// The states at the `m + 1` interval ends, the start included (row-major, n columns).
    pub samples: Vec<f64>,
    /// ∫ tr J dt over the stretch (trapezoidal rule on the interval ends).
    pub trace_integral: f64,
    /// Right-hand-side evaluations used.
    pub evaluations: u64,
}

/// The reducer: keeps the samples and tr J at each interval end.
struct Monodromy<S: System> {
    ws: S::Workspace,
    eye: Vec<f64>,
    jac: Vec<f64>,
    dx: Vec<f64>,
    samples: Vec<f64>,
    traces: Vec<f64>,
}

impl<S: System> Monodromy<S> {
    fn new(sys: &S, x0: &[f64], m: usize) -> Self {
        let n = sys.dim();
        let mut eye = vec![0.0; n * n];
        for c in 0..n {
            eye[c * n + c] = 1.0;
        }
        let mut r = Monodromy {
            ws: sys.workspace(),
            eye,
            jac: vec![0.0; n * n],
            dx: vec![0.0; n],
            samples: Vec::with_capacity((m + 1) * n),
            traces: Vec::with_capacity(m + 1),
        };
        r.sample(sys, 0.0, x0);
        r
    }

    /// Keeps `x` and tr J(x, t).
    fn sample(&mut self, sys: &S, t: f64, x: &[f64]) {
        let n = x.len();
        sys.rhs_tangent(t, x, &self.eye, &mut self.dx, &mut self.jac, &mut self.ws);
        self.traces.push((0..n).map(|c| self.jac[c * n + c]).sum());
        self.samples.extend_from_slice(x);
    }
}

impl<S: System> Reducer<S> for Monodromy<S> {
    type Output = Result<Propagated, PeriodicError>;
    fn tangent(&self, n: usize) -> Tangent {
        Tangent {
            k: n,
            v0: Some(self.eye.clone()),
        }
    }
    fn interval(&mut self, sys: &S, tick: Tick, x: &[f64], _v: &mut [f64]) -> Step {
        self.sample(sys, tick.t, x);
        Step::default()
    }
    fn finish(mut self, sys: &S, end: End<'_>) -> Self::Output {
        if !end.complete {
            return Err(PeriodicError::Interrupted);
        }
        let n = end.x.len();
        let m = self.traces.len() - 1;
        let h = end.t_end / m as f64;
        let inner: f64 = self.traces[1..m].iter().sum();
        let trace_integral = h * (inner + 0.5 * (self.traces[0] + self.traces[m]));
        sys.rhs(end.t_end, end.x, &mut self.dx, &mut self.ws);
        Ok(Propagated {
            x: end.x.to_vec(),
            jacobian: DMatrix::from_column_slice(n, n, end.v),
            velocity: self.dx,
            samples: self.samples,
            trace_integral,
            evaluations: end.stats.evals,
        })
    }
}

/// The flow of `sys` from `x0` at time `t0` over `duration` (> 0) in `m` (≥ 1) equal intervals,
/// with its Jacobian. `method`'s fixed step (if any) must divide `duration / m`.
pub fn propagate<S: System>(
    sys: &S,
    method: &Method,
    t0: f64,
    x0: &[f64],
    duration: f64,
    m: usize,
    observer: &mut dyn Observer,
) -> Result<Propagated, PeriodicError> {
    if !(duration.is_finite() && duration > 0.0) {
        return Err(PeriodicError::invalid("period", "must be finite and > 0"));
    }
    let shifted = Shifted { sys, t0 };
    let plan = Plan {
        tau: duration / m.max(1) as f64,
        span: Span::Intervals(m.max(1) as u64),
        sampling: Sampling::Interval,
        max_history: 16,
        work: false,
    };
    let reducer = Monodromy::new(&shifted, x0, m.max(1));
    drive(&shifted, method, x0, &plan, reducer, observer)?
}
