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
//!   tile in memory and hands them to the file as it is written ([`InMemory`], a result that
//!   writes its own file content: [`crate::kinds::Found::own_content`]).
//!
//! Its table and validation are [`table`]'s (a measure spec validates its `[map]` there too),
//! its memory [`terms`]'; [`KIND`] is its registry entry and the map's [`MapOptions`] its
//! validated settings.

pub mod files;
mod found;
pub mod memory;
pub mod stream;
pub mod table;
mod terms;
mod validation;

pub use files::{merge, render, Merge};
pub use memory::InMemory;
pub use stream::{draw, Stream, StreamError, Target};
pub use table::{map_title, reach_note, validate_map, MapSpec, Resolution};
pub use terms::map_terms;

use super::kind::{planar_chain, table_of, Executed, Input, Kind, Registered, Settings};
use super::kind::{SpecParts, Table, Validation, PLANAR_ONLY};
use super::memory::Term;
use crate::analysis::map::MapOptions;
use crate::model::{Chain, Model};
use crate::observe::Observer;
use crate::spec::Spec;
use crate::store::map::MapInfo;

/// The registry entry. Its command is `pendula map` (flags of its own: `--resume`,
/// `--shard`, `--dry-run`), whose run streams its tiles ([`stream`]).
pub const KIND: Kind = Kind {
    name: "map",
    about: "Initial-condition map (flip time, energy error, Lyapunov, basins): tiled, resumable, shardable.",
    table: table_of::<MapSpec>(),
    models: PLANAR_ONLY,
    reports: false,
    swept: true,
};

impl Table for MapSpec {
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let chain = planar_chain(KIND.name, model)?;
        let (opts, x0, method) = validate_map(&self, chain, spec)?;
        Ok((Registered(Box::new(opts)), method, x0))
    }
}

/// The map's options of a validated run (None: not a map).
pub fn options(settings: &dyn Settings) -> Option<&MapOptions> {
    settings.as_any().downcast_ref()
}

/// The map's options of a spec (None: not a map spec).
pub fn spec_options(spec: &Spec) -> Option<&MapOptions> {
    options(&*spec.analysis)
}

impl Settings for MapOptions {
    fn kind(&self) -> &'static Kind {
        &KIND
    }

    fn time_span(&self) -> Option<(f64, &'static str)> {
        Some((self.t_max, "map.t_end"))
    }

    /// The whole map's run ([`map_terms`]).
    fn memory(&self, n: usize, dim: f64) -> Vec<Term> {
        self.memory_of_shard(n, dim, None)
    }

    /// A shard holds only its own tiles of each band ([`map_terms`]).
    fn memory_of_shard(&self, n: usize, dim: f64, shard: Option<(usize, usize)>) -> Vec<Term> {
        let mut terms = Vec::new();
        map_terms(self, false, shard, n, dim, &mut terms);
        terms
    }

    /// Its kind and size: `flip map 64²`, `lyapunov map 64x32`.
    fn describe(&self) -> String {
        let (w, h) = (self.grid.width, self.grid.height);
        let size = if w == h {
            format!("{w}²")
        } else {
            format!("{w}x{h}")
        };
        format!("{} map {size}", self.kind.name())
    }

    /// The map held in memory ([`memory::run`]).
    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed {
        let chain = input.planar(KIND.name)?;
        Ok(Box::new(memory::run(input, chain, self, observer)?))
    }
}

/// The map options of a map spec.
fn of_map_spec(spec: &Spec) -> &MapOptions {
    spec_options(spec).expect("only map specs run as maps")
}

/// What the map file of `spec` on `chain` (shard `shard`) says about itself: its title (the
/// map kind's when the spec keeps the default one), the spec hash and the coordinates.
pub fn info(spec: &Spec, chain: &Chain, shard: Option<(usize, usize)>) -> MapInfo {
    let opts = of_map_spec(spec);
    let title = map_title(&spec.title, &spec.model_name, chain, opts);
    MapInfo::of(title, &spec.model_name, &spec.text, chain, opts, shard)
}
