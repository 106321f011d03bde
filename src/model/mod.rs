//! What evolves: the [`System`] trait and the models that implement it.
//!
//! A system is a first-order ODE `ẋ = f(x, t)` together with its *exact* tangent linearization
//! `δẋ = J(x, t) δx`. The two sit side by side because every chaos measure needs both, and because
//! one factorization of the mass matrix serves the state and all deviation vectors at once.

pub mod angle;
pub mod canonical;
pub mod cart_chain;
pub mod chain;
mod either;
pub mod forcing;
mod linalg;
pub mod parameter;
mod structured;
pub mod textbook;
pub mod volume;

pub use canonical::{Canonical, CanonicalWorkspace};
pub use cart_chain::{CartChain, CartChainParams, CartInput};
pub use chain::{Chain, ChainParams, Link, LinkShape, Route};
pub use either::Model;
pub use forcing::{Damping, Drive, Harmonic, PivotMotion};
pub use parameter::{axis_label, display_units, Parameter, ParameterError, PARAMETERS};
pub use textbook::{TextbookParameter, TEXTBOOK_PARAMETERS, TEXTBOOK_PRESETS};
pub use volume::{PhaseVolume, VolumeSplit};

use thiserror::Error;

/// A first-order system with an exact tangent block.
///
/// Hot-path methods take a caller-owned workspace so that they never allocate.
pub trait System: Sync {
    /// Scratch memory for [`System::rhs`] and [`System::rhs_tangent`].
    type Workspace: Send;

    /// Length of the state vector `x`.
    fn dim(&self) -> usize;

    /// A fresh workspace (allocates; call once per thread, not per step).
    fn workspace(&self) -> Self::Workspace;

    /// A fresh workspace for a run that evaluates the model at the same times again and again
    /// (a stroboscopic loop that integrates every drive period on one time grid): a model may
    /// remember its time-dependent terms there, keyed by their exact argument, so that results
    /// keep their bits. By default the plain [`System::workspace`].
    fn workspace_for_repeated_times(&self) -> Self::Workspace {
        self.workspace()
    }

    /// `dx = f(x, t)`.
    fn rhs(&self, t: f64, x: &[f64], dx: &mut [f64], ws: &mut Self::Workspace);

    /// `dx = f(x, t)` and `dv = J(x, t) · v` for a block of deviation vectors.
    ///
    /// `v` and `dv` hold `k = v.len() / dim()` columns of length `dim()`, one after another
    /// (column-major). The state and all columns share one evaluation of the dynamics.
    fn rhs_tangent(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        ws: &mut Self::Workspace,
    );

    /// Total mechanical energy `T + V` (J).
    fn energy(&self, t: f64, x: &[f64]) -> f64;

    /// Power of the non-conservative forces, `dE/dt = θ̇ · Q` (W).
    fn power(&self, t: f64, x: &[f64]) -> f64;

    /// Whether non-conservative forces act (damping, a drive, an input): analyses then integrate
    /// the work `W = ∫ power dt` with the state, for the energy balance `E − E₀ − W`. The default
    /// is always correct; a model that knows [`System::power`] vanishes may skip the quadrature.
    fn non_conservative(&self) -> bool {
        true
    }

    /// The energy (J) that relative balance errors are measured against, for a run that starts
    /// at energy `e0`; never zero. The default is |E₀|.
    fn energy_scale(&self, e0: f64) -> f64 {
        e0.abs().max(f64::MIN_POSITIVE)
    }

    /// How many leading state components are angles (an adaptive error norm caps their scale at
    /// π: an unwrapped angle grows as a link winds).
    fn angles(&self) -> usize {
        0
    }

    /// Dimension of the phase space (≤ [`System::dim`]): the number of Lyapunov exponents. A
    /// model whose state is embedded in a larger vector space (unit vectors on S², say) has
    /// fewer; its deviation vectors live in the tangent space of the constraint manifold.
    fn manifold_dim(&self) -> usize {
        self.dim()
    }

    /// Puts a state that drifted off the constraint manifold back on it and the `v.len() / dim()`
    /// deviation vectors in `v` into its tangent space there. Returns false for a model without
    /// constraints (the default: nothing is touched).
    #[inline]
    fn project(&self, _x: &mut [f64], _v: &mut [f64]) -> bool {
        false
    }

    /// `k` orthonormal initial deviation vectors at `x` (column-major in `v`, zeroed by the
    /// caller): the first k columns of the identity unless the state is constrained.
    fn tangent_basis(&self, _x: &[f64], k: usize, v: &mut [f64]) {
        let n = self.dim();
        for c in 0..k.min(n) {
            v[c * n + c] = 1.0;
        }
    }

    /// Names of the state components, for error messages ("theta[2]", "omega[1]").
    fn component_name(&self, i: usize) -> String {
        format!("x[{i}]")
    }
}

/// Errors in building a model: the field and, for per-link data, the link (1-based).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    #[error("a chain needs at least one link (N = 0)")]
    NoLinks,
    #[error("link {link}: {field} = {value} is invalid: {why}")]
    Link {
        link: usize,
        field: &'static str,
        value: f64,
        why: &'static str,
    },
    #[error("{field} = {value} is invalid: {why}")]
    Parameter {
        field: String,
        value: f64,
        why: &'static str,
    },
    #[error("{field} has {got} entries but the chain has {links} links")]
    Length {
        field: &'static str,
        got: usize,
        links: usize,
    },
}
