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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ChainParams;

    /// Reports the state the task was started from, and that state mapped back to the model.
    struct Probe;
    impl Task for Probe {
        type Output = (Vec<f64>, Vec<f64>);
        fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
            (y0.to_vec(), sys.to_model(y0))
        }
    }

    #[test]
    fn gauss_runs_the_planar_chain_in_canonical_coordinates() {
        let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
        let x0 = [0.4, -0.2, 0.3, 0.5];
        let (y0, back) = chain.run_task(
            &Method::Gauss {
                dt: 0.01,
                stages: 3,
            },
            &x0,
            Probe,
        );
        assert_eq!(y0, chain.to_canonical(&x0));
        assert_ne!(y0, x0.to_vec());
        for (a, b) in back.iter().zip(x0) {
            assert!((a - b).abs() < 1e-14, "{a} vs {b}");
        }
        let (y0, back) = chain.run_task(&Method::Rk4 { dt: 0.01 }, &x0, Probe);
        assert_eq!((y0.as_slice(), back.as_slice()), (&x0[..], &x0[..]));
    }
}
