//! `kind = "control"`: an LQR design about a vertical equilibrium of a cart chain and the
//! nonlinear closed loop from a tilted start ([`Controlled`]).
//!
//! Its result describes itself ([`crate::finding::Finding`]): the groups `lqr` (the design)
//! and `trajectory` (the cart chain's, as `simulate` writes it, with the closed-loop error),
//! the JSON summary and the 3-D figure. The spec's table and validation still live in `spec/`.
//! [`crate::run::execute`] does not run it (the Python package does not offer it); the CLI
//! calls [`run`] and handles the result as every other.

mod found;

pub use found::{run, Controlled};
