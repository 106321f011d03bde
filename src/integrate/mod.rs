//! How a system advances: integrators stepping a flat augmented state.
//!
//! Every integrator works on an [`Ode`]: a flat vector `y` and its derivative. [`Flow`] adapts a
//! [`System`] to that shape with the layout `y = [x (n) | W (0 or 1) | V (n·k)]`: the state, an
//! optional quadrature of the non-conservative power (so that `E(t) − E(0) = W(t)` can be checked
//! to integrator accuracy), and `k` deviation vectors advanced with the same stages as the state.
//! So RK4 applied to `y` gives the exact tangent map of the discrete RK4 step, and an adaptive
//! method controls the error of the deviations too when they lie inside its error norm.

pub mod dop853;
pub mod event;
pub mod gauss;
pub mod method;
pub mod rk4;

pub use dop853::{Dop853, Dop853Solver};
pub use event::{locate, Crossing, Direction};
pub use gauss::{Gauss, GaussSolver};
pub use method::{Method, MethodSolver};
pub use rk4::Rk4;

use crate::model::System;
use crate::observe::Cancel;
use thiserror::Error;

/// A first-order ODE on a flat vector.
pub trait Ode {
    /// Length of `y`.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `dy = f(t, y)`.
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]);
    /// How many leading components the adaptive error norm looks at.
    fn norm_len(&self) -> usize {
        self.len()
    }
    /// How many leading components are angles. An adaptive error norm scales their relative
    /// tolerance with min(|y|, π): an unwrapped angle grows as a link winds, and its size says
    /// nothing about the accuracy it needs.
    fn angles(&self) -> usize {
        0
    }
    /// Puts `y` back on the constraint manifold of a model whose state is embedded in a larger
    /// vector space (unit vectors, say); called by every solver after each accepted step, before
    /// the derivative at the new point is taken. Returns false when there is nothing to project
    /// (the default, which the compiler removes from unconstrained models' steps).
    #[inline]
    fn project(&mut self, _y: &mut [f64]) -> bool {
        false
    }
}

/// Layout of the augmented vector of a [`Flow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// State dimension.
    pub n: usize,
    /// Whether slot `n` holds the work integral W = ∫ θ̇·Q dt.
    pub work: bool,
    /// Number of deviation vectors.
    pub k: usize,
}

impl Layout {
    pub fn len(&self) -> usize {
        self.n + self.work as usize + self.n * self.k
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Offset of the first deviation vector.
    pub fn tangent_offset(&self) -> usize {
        self.n + self.work as usize
    }
}

/// A [`System`] seen as an [`Ode`] on `[x | W | V]`.
pub struct Flow<'a, S: System> {
    pub sys: &'a S,
    pub layout: Layout,
    ws: S::Workspace,
    /// Include the deviation vectors in the adaptive error norm (default true).
    pub tangent_in_norm: bool,
    /// Right-hand-side evaluations so far (a cost counter for tests and reports).
    pub evals: u64,
}

impl<'a, S: System> Flow<'a, S> {
    /// The plain state flow.
    pub fn new(sys: &'a S) -> Self {
        Self::with_layout(sys, false, 0)
    }
    /// With the work quadrature and/or `k` deviation vectors.
    pub fn with_layout(sys: &'a S, work: bool, k: usize) -> Self {
        Flow {
            sys,
            layout: Layout {
                n: sys.dim(),
                work,
                k,
            },
            ws: sys.workspace(),
            tangent_in_norm: true,
            evals: 0,
        }
    }
    /// [`Flow::with_layout`] on the model's workspace for repeated times
    /// ([`System::workspace_for_repeated_times`]): for loops that integrate every period on
    /// one time grid.
    pub fn repeating(sys: &'a S, work: bool, k: usize) -> Self {
        Flow {
            ws: sys.workspace_for_repeated_times(),
            ..Self::with_layout(sys, work, k)
        }
    }
    /// An initial augmented vector: the state, W = 0, and the given deviation vectors (or the
    /// first k columns of the identity when `v0` is `None`).
    pub fn initial(&self, x0: &[f64], v0: Option<&[f64]>) -> Vec<f64> {
        let l = self.layout;
        let mut y = vec![0.0; l.len()];
        y[..l.n].copy_from_slice(x0);
        let off = l.tangent_offset();
        match v0 {
            Some(v) => y[off..].copy_from_slice(v),
            None => self.sys.tangent_basis(x0, l.k, &mut y[off..]),
        }
        y
    }
}

impl<S: System> Ode for Flow<'_, S> {
    fn len(&self) -> usize {
        self.layout.len()
    }

    #[inline(always)]
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.evals += 1;
        let l = self.layout;
        let off = l.tangent_offset();
        let (x, rest) = y.split_at(l.n);
        let (dx, drest) = dy.split_at_mut(l.n);
        if l.k == 0 {
            self.sys.rhs(t, x, dx, &mut self.ws);
        } else {
            self.sys.rhs_tangent(
                t,
                x,
                &rest[off - l.n..],
                dx,
                &mut drest[off - l.n..],
                &mut self.ws,
            );
        }
        if l.work {
            drest[0] = self.sys.power(t, x);
        }
    }

    fn angles(&self) -> usize {
        self.sys.angles()
    }

    #[inline]
    fn project(&mut self, y: &mut [f64]) -> bool {
        let l = self.layout;
        let (x, rest) = y.split_at_mut(l.n);
        let off = l.tangent_offset() - l.n;
        self.sys.project(x, &mut rest[off..])
    }

    fn norm_len(&self) -> usize {
        if self.tangent_in_norm {
            self.layout.len()
        } else {
            self.layout.tangent_offset()
        }
    }
}

/// The time grid of a fixed-step method: `t_k = t_0 + k·dt` from an integer step count, never a
/// running sum of dt, so step decisions are reproducible. A step that would pass `t_stop` is
/// shortened to land on it (and the grid restarts there); one within 1e-9·dt of it snaps to it.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock {
    pub dt: f64,
    t0: f64,
    count: u64,
}

impl FixedClock {
    pub fn new(dt: f64) -> FixedClock {
        FixedClock {
            dt,
            t0: f64::NAN,
            count: 0,
        }
    }

    /// The end of the next step from `t`, not beyond `t_stop`, and whether it was shortened.
    #[inline]
    pub fn next(&mut self, t: f64, t_stop: f64) -> (f64, bool) {
        if self.t0.is_nan() || t != self.t0 + self.count as f64 * self.dt {
            // A new start (or the caller moved t): restart the grid at t.
            self.t0 = t;
            self.count = 0;
        }
        let t_next = self.t0 + (self.count + 1) as f64 * self.dt;
        let slack = 1e-9 * self.dt;
        if t_next > t_stop + slack {
            (t_stop, true)
        } else if (t_next - t_stop).abs() <= slack {
            (t_stop, false)
        } else {
            (t_next, false)
        }
    }

    /// Records a step that ended at `t_next` (as returned by [`FixedClock::next`]).
    #[inline]
    pub fn commit(&mut self, t_next: f64, shortened: bool) {
        self.count += 1;
        // Keep t == t0 + count·dt exact for the next call, also after snapping to t_stop.
        if shortened || t_next != self.t0 + self.count as f64 * self.dt {
            self.t0 = t_next;
            self.count = 0;
        }
    }
}

/// Work done by an integrator, for reports and cost assertions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    pub steps: u64,
    pub rejected: u64,
    pub evals: u64,
}

/// The result of an integration call.
pub type Result<T, E = IntegrateError> = std::result::Result<T, E>;

/// Errors while integrating.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IntegrateError {
    /// `index` is the component of the augmented vector; see [`Layout`] and
    /// [`System::component_name`] to name it.
    #[error("non-finite value in component {index} at t = {time}")]
    NonFinite { time: f64, index: usize },
    #[error("step size underflow (h = {h:e}) at t = {time}")]
    StepSizeTooSmall { time: f64, h: f64 },
    /// The adaptive integrator's hard cap on one trajectory's attempts was reached.
    #[error("the adaptive integrator reached its cap of {max_steps} steps at t = {time} (the step size the tolerance needs there is too small to finish the run)")]
    TooManySteps { time: f64, max_steps: u64 },
    #[error("implicit stage iteration did not converge at t = {time}")]
    NoConvergence { time: f64 },
    /// The step is below the floating-point resolution of the time: `t + h == t` at `time`
    /// (where the run stands, or the time it must reach), so it would step forever.
    #[error("the step h = {h:.3e} does not advance t = {time} (t + h == t): the run cannot end")]
    NoProgress { time: f64, h: f64 },
    /// A [`Cancel`] token was set; `y` holds the state at `time` (not a failure: the caller
    /// keeps what it has, marked incomplete).
    #[error("interrupted at t = {time}")]
    Interrupted { time: f64 },
}

/// Fails with [`IntegrateError::NoProgress`] when the nominal step `h` of a fixed-step method
/// cannot advance `t`, or cannot reach `t_stop` (`t_stop + h == t_stop`: from a `t` far below,
/// that would take more than 2⁵² steps; from one near it, the steps stall). One add and compare
/// per step: the guard behind the input checks, so that no caller can loop forever.
#[inline]
pub fn check_progress(t: f64, h: f64, t_stop: f64) -> Result<()> {
    if t + h == t {
        return Err(IntegrateError::NoProgress { time: t, h });
    }
    // An infinite t_stop means "no end": only t itself must move.
    if t_stop.is_finite() && t_stop + h == t_stop {
        return Err(IntegrateError::NoProgress { time: t_stop, h });
    }
    Ok(())
}

/// A one-step method with dense output over its last step.
///
/// `step` advances `(t, y)` by one step ending at or before `t_stop` and returns the new time.
/// After a step, `dense(s, out)` evaluates the continuous extension at `s ∈ [t_prev, t_new]`.
pub trait Solver {
    fn step<O: Ode>(&mut self, ode: &mut O, t: f64, y: &mut [f64], t_stop: f64) -> Result<f64>;

    fn dense<O: Ode>(&mut self, ode: &mut O, s: f64, out: &mut [f64]);

    fn stats(&self) -> Stats;

    /// Advances to exactly `t_end` (steps clipped so that the last one lands on it).
    fn advance_to<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        y: &mut [f64],
        t_end: f64,
    ) -> Result<f64> {
        self.advance_to_cancellable(ode, t, y, t_end, &Cancel::never())
    }

    /// [`Solver::advance_to`], polling `cancel` every [`crate::observe::POLL_STEPS`] steps: when
    /// it is set, returns [`IntegrateError::Interrupted`] with `y` at the time reached.
    fn advance_to_cancellable<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        y: &mut [f64],
        t_end: f64,
        cancel: &Cancel,
    ) -> Result<f64> {
        let mut t = t;
        let mut count = 0u64;
        while t < t_end {
            count += 1;
            if cancel.poll(count) {
                return Err(IntegrateError::Interrupted { time: t });
            }
            t = self.step(ode, t, y, t_end)?;
        }
        Ok(t)
    }
}

/// Fails with [`IntegrateError::NonFinite`] naming the first NaN/Inf component of `y`.
#[inline]
pub fn check_finite(t: f64, y: &[f64]) -> Result<()> {
    // A sum is NaN iff some term is NaN or terms of opposite infinite sign exist; cheap first test.
    if y.iter().fold(0.0, |acc, v| acc + v * 0.0).is_nan() {
        let index = y.iter().position(|v| !v.is_finite()).unwrap_or(0);
        return Err(IntegrateError::NonFinite { time: t, index });
    }
    Ok(())
}

/// A name for component `i` of a [`Flow`]'s augmented vector.
pub fn component_name<S: System>(sys: &S, layout: Layout, i: usize) -> String {
    if i < layout.n {
        sys.component_name(i)
    } else if layout.work && i == layout.n {
        "work".to_string()
    } else {
        let j = i - layout.tangent_offset();
        format!(
            "deviation vector {} ({})",
            j / layout.n + 1,
            sys.component_name(j % layout.n)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::test_odes::Osc;
    use super::*;

    /// x'' = −ω² x with ω = 10³⁸: DOP853 must resolve each period, so its step collapses to
    /// ~10⁻³⁸ s (the speed-at-the-f64-limit case).
    struct FastOsc;
    impl Ode for FastOsc {
        fn len(&self) -> usize {
            2
        }
        fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
            dy[0] = 1e38 * y[1];
            dy[1] = -1e38 * y[0];
        }
    }

    /// A fixed step below the resolution of the end time fails at the first step instead of
    /// taking 10³⁰⁰ of them; from a t where t + h == t, too.
    #[test]
    fn fixed_steps_that_cannot_advance_fail_at_once() {
        let mut y = [1.0, 0.0];
        let stuck = Err(IntegrateError::NoProgress {
            time: 1.0,
            h: 1e-300,
        });
        let r = Rk4::new(1e-300)
            .solver(2)
            .advance_to(&mut Osc, 0.0, &mut y, 1.0);
        assert_eq!(r, stuck);
        let r = Gauss::new(1e-300)
            .solver(2)
            .advance_to(&mut Osc, 0.0, &mut y, 1.0);
        assert_eq!(r, stuck);
        let mut s = Rk4::new(1e-17).solver(2);
        let r = s.step(&mut Osc, 1.0, &mut y, 2.0);
        assert_eq!(
            r,
            Err(IntegrateError::NoProgress {
                time: 1.0,
                h: 1e-17
            })
        );
        assert_eq!(s.stats().steps, 0);
        assert_eq!(y, [1.0, 0.0], "the state is untouched");
        // At t_stop a fixed-step method has nothing to do (not an error).
        let mut g = Gauss::new(0.1).solver(2);
        assert_eq!(g.step(&mut Osc, 1.0, &mut y, 1.0), Ok(1.0));
        // The guard does not fire for an ordinary step.
        assert!(Rk4::new(1e-3)
            .solver(2)
            .advance_to(&mut Osc, 0.0, &mut y, 1.0)
            .is_ok());
    }

    /// DOP853's collapsed step ends the run after a hundred steps, not after 10⁸ (minutes).
    #[test]
    fn dop853_collapsed_step_fails_quickly() {
        let mut s = Dop853::default().solver(2);
        let mut y = [1.0, 0.0];
        let r = s.advance_to(&mut FastOsc, 0.0, &mut y, 1.0);
        assert!(
            matches!(r, Err(IntegrateError::NoProgress { time, h }) if time == 1.0 && h < 1e-30),
            "{r:?}"
        );
        assert!(s.stats().steps < 1000, "{:?}", s.stats());
        assert!(y.iter().all(|v| v.is_finite()));
    }

    /// A set token stops the loop at its next poll, with the state at the time reached; an unset
    /// one changes nothing (same bits as advance_to).
    #[test]
    fn advance_polls_the_cancel_token() {
        let cancel = crate::observe::Cancel::new();
        let mut free = Rk4::new(1e-3).solver(2);
        let mut y_free = [1.0, 0.0];
        free.advance_to(&mut Osc, 0.0, &mut y_free, 10.0).unwrap();
        let mut s = Rk4::new(1e-3).solver(2);
        let mut y = [1.0, 0.0];
        let t = s
            .advance_to_cancellable(&mut Osc, 0.0, &mut y, 10.0, &cancel)
            .unwrap();
        assert_eq!((t, y), (10.0, y_free));
        cancel.set();
        let mut s = Rk4::new(1e-3).solver(2);
        let mut y = [1.0, 0.0];
        let r = s.advance_to_cancellable(&mut Osc, 0.0, &mut y, 10.0, &cancel);
        let steps = crate::observe::POLL_STEPS - 1;
        let Err(IntegrateError::Interrupted { time }) = r else {
            panic!("{r:?}");
        };
        assert_eq!(s.stats().steps, steps);
        assert!((time - steps as f64 * 1e-3).abs() < 1e-12, "{time}");
        assert!((y[0] - time.cos()).abs() < 1e-9, "y is the state at {time}");
    }
}

/// Small ODEs with known solutions for the integrators' unit tests.
#[cfg(test)]
pub(crate) mod test_odes {
    use super::Ode;

    /// The harmonic oscillator x'' = −x as (x, x'): from (1, 0), x = cos t.
    pub(crate) struct Osc;

    impl Ode for Osc {
        fn len(&self) -> usize {
            2
        }
        fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
            dy[0] = y[1];
            dy[1] = -y[0];
        }
    }
}
