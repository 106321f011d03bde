//! # pendula — chaos in pendulum chains
//!
//! The data flow, one folder per layer; each layer knows only the layers to its left:
//!
//! ```text
//! model  →  integrate  →  analysis  →  store / plot  →  cli
//! (what evolves) (how it advances) (what we measure) (where results go) (how a person asks)
//! ```
//!
//! - [`model`]: the [`model::System`] trait (right-hand side with its exact tangent block) and the
//!   planar chain of general links with damping and drive.
//! - [`integrate`]: integrators as values (`Rk4 { dt }`, …) stepping a flat augmented state.
//! - [`analysis`]: functions over a system + integrator + options returning result structs.
//! - [`store`] and [`plot`]: HDF5 files and figures from result structs.
//! - [`spec`]: the validated analysis specification shared by the CLI and `analyses/*.toml`.
//! - [`run`]: one call that runs a validated spec and returns the outcome the store writes;
//!   the CLI and the Python package are front ends over it.
//! - [`bench`]: the workloads of `pendula bench`, one call each.

pub mod analysis;
pub mod bench;
pub mod error;
pub mod finding;
pub mod format;
pub mod integrate;
pub mod kinds;
pub mod limits;
pub mod model;
pub mod observe;
pub mod plot;
pub mod run;
pub mod serve;
pub mod spec;
pub mod store;
