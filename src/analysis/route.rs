//! Which system a method integrates: the model itself, or a derived view of it.
//!
//! Gauss–Legendre is symplectic only in canonical coordinates, so a planar [`Chain`] runs under
//! it as [`Canonical`]`(chain)` from `(θ, p)`; every other method, and every other model,
//! integrates the model as given. [`Routed::run_task`] is the one place that rule is written: an
//! analysis written as a [`Task`] over any [`View`] runs on whichever system the rule picks.

use crate::integrate::Method;
use crate::model::{Canonical, CartChain, Chain, PhaseVolume, System};

/// A system as an integrator sees it: a model, or a derived system of one, with the map from
/// its state back to the model's coordinates.
pub trait View: System + PhaseVolume {
    /// The model's state for this system's state `y` (`y` itself unless this is a derived view).
    fn to_model(&self, y: &[f64]) -> Vec<f64> {
        y.to_vec()
    }
}

impl View for Chain {}
impl View for CartChain {}

impl View for Canonical<'_> {
    /// `(θ, θ̇)` from `(θ, p)`.
    fn to_model(&self, y: &[f64]) -> Vec<f64> {
        self.0.from_canonical(y)
    }
}

/// An analysis that runs on any [`View`] from an initial state in that view's coordinates.
pub trait Task {
    type Output;
    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output;
}

/// A model and the system each method integrates (see the module docs).
pub trait Routed: View + Sized {
    /// Runs `task` on the system `method` integrates, from the model's state `x0`.
    fn run_task<T: Task>(&self, method: &Method, x0: &[f64], task: T) -> T::Output {
        let _ = method;
        task.run(self, x0)
    }
}

/// Gauss–Legendre in canonical coordinates `(θ, p)`, where it is symplectic.
impl Routed for Chain {
    fn run_task<T: Task>(&self, method: &Method, x0: &[f64], task: T) -> T::Output {
        match method {
            Method::Gauss { .. } => task.run(&Canonical(self), &self.to_canonical(x0)),
            _ => task.run(self, x0),
        }
    }
}

impl Routed for CartChain {}
