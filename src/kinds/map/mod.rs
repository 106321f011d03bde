//! `kind = "map"`: initial-condition maps of a planar chain (flip time, final state, energy
//! error, Lyapunov exponent, …), computed tile by tile and written as the `map` group.
//!
//! A map runs two ways, which share the tile loop ([`crate::analysis::map::run_tiles`]) and
//! the file's assembly ([`crate::store::map::assemble`]):
//! - [`stream`]: `pendula map` (and `pendula run` on a map spec) keeps each finished tile in
//!   the checkpoint beside the map file as it finishes, so that it can resume, shard and exceed
//!   the in-memory size limit in bounded memory; then it assembles the file and draws its
//!   figure. `pendula merge` joins shard files and `pendula render` draws a map file
//!   ([`files`]).
//! - [`memory`]: [`crate::run::execute`] (the Python package, a sweep's points) keeps every
//!   tile in memory and hands them to the file as it is written.
//!
//! Its table and validation are still `spec/map.rs`, its memory `spec/budget/`.

pub mod files;
pub mod memory;
pub mod stream;
pub mod table;
mod validation;

pub use files::{merge, render, Merge};
pub use memory::InMemory;
pub use stream::{draw, Stream, StreamError, Target};
pub use table::{map_title, reach_note, validate_map, MapSpec, Resolution, MAP_MAX_EDGE};

use crate::analysis::map::MapOptions;
use crate::model::Chain;
use crate::spec::{Analysis, Spec};
use crate::store::map::MapInfo;

/// The map options of a map spec.
pub fn options(spec: &Spec) -> &MapOptions {
    match &spec.analysis {
        Analysis::Map(o) => o,
        _ => unreachable!("only map specs run as maps"),
    }
}

/// What the map file of `spec` on `chain` (shard `shard`) says about itself: its title (the
/// map kind's when the spec keeps the default one), the spec hash and the coordinates.
pub fn info(spec: &Spec, chain: &Chain, shard: Option<(usize, usize)>) -> MapInfo {
    let opts = options(spec);
    let title = map_title(&spec.title, &spec.model_name, chain, opts);
    MapInfo::of(title, &spec.model_name, &spec.text, chain, opts, shard)
}
