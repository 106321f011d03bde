//! `kind = "animate"`: an animated GIF and/or PNG frames of a planar chain with fading traces
//! and kinetic-energy bars, the spec's still figures ([`crate::spec::Figures`], drawn as
//! `simulate` draws them) and the trajectory behind them ([`Animated`]).
//!
//! Its result describes itself ([`crate::finding::Finding`]): the group `trajectory` (as
//! `simulate` writes it), the JSON summary (with the rendering's statistics), the figure (the
//! last frame) and the still figures. The animation's files are written by the run, which
//! reports the integration and the rendering to two observers; [`crate::run::execute`] does
//! not run it (the Python package does not offer it): the CLI calls [`run`]. The spec's table
//! and validation still live in `spec/`.

mod found;

pub use found::{run, Animated};
