//! `kind = "orbits"`: periodic orbits and their Floquet stability (`find`), branches with
//! located bifurcations (`continue`), orbit diagrams with λ_max (`diagram`).
//!
//! Its run ([`mod@run`]), its file's group ([`mod@store`]) and its figure ([`figure`], drawn by
//! `plot/orbits/`) live here; its table and validation are still `spec/orbits/` and its
//! report `cli/orbits.rs` (the kind is not on the registry's self-describing
//! [`crate::finding::Finding`] yet).

pub mod figure;
pub mod run;
pub mod store;

pub use run::{run, MapPixel, OrbitsResult};
pub use store::write_orbits;
