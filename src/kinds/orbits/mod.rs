//! `kind = "orbits"`: periodic orbits and their Floquet stability (`find`), branches with
//! located bifurcations (`continue`), orbit diagrams with λ_max (`diagram`).
//!
//! Its run ([`mod@run`]), its file's group ([`mod@store`]), its figure ([`figure`], drawn by
//! `plot/orbits/`) and its report ([`mod@report`]: JSON summary and text table) live here; its
//! table and validation are still `spec/orbits/` (the kind is not on the registry's self-describing
//! [`crate::finding::Finding`] yet).

pub mod figure;
pub mod report;
pub mod run;
pub mod store;

pub use run::{run, MapPixel, OrbitsResult};
pub use store::write_orbits;
