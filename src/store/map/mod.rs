//! Initial-condition maps on disk: the checkpoint of finished tiles, and the HDF5 map file.
//!
//! **Why a sidecar checkpoint and not an HDF5 file written in place:** a `kill -9` (or a node
//! lost mid-job) during an HDF5 write can leave the file's B-trees or superblock inconsistent,
//! and then every tile in it is lost. So a run keeps each finished tile in its own small file in
//! `OUT.h5.tiles/` (written as `tile-N.tmp`, then renamed: a tile file is complete or absent),
//! beside a `manifest.json` holding the map's spec hash and shard. `--resume` reads the manifest,
//! refuses a different spec or shard, drops torn or foreign tile files (each carries its own FNV
//! checksum), and computes only the missing tiles. The HDF5 file is assembled once at the end (as
//! `.partial`, renamed when complete, see [`super::H5Out`]), streaming one band of tiles at a
//! time, so memory stays bounded by a band however large the map; then the checkpoint is removed.
//! The checkpoint is built as `OUT.h5.tiles.new` and removed by way of `OUT.h5.tiles.old`, so no
//! kill leaves `OUT.h5.tiles/` without its manifest (`run.rs` lists every state a kill leaves).
//!
//! File layout (group `/map`, xarray-friendly): coordinates named after the two state
//! components (`theta1`, `theta2`, …: pixel centres), `tile_row`, `tile_col`; variables over
//! (y, x): `flip_step` (int32, 0 = never), `flip_time` (s, NaN = never), `flip_link`, `class`
//! (CF flags) for flip-time maps, or `energy_error` / `lyapunov`; `tile_done` (the completion
//! mask; a shard file has only its own tiles set) and `tile_steps`; the chain in `/map/model`.

use super::{check_output_path, StoreError};
pub use crate::analysis::map::MapHeader;
use crate::analysis::map::{FlipStats, Fnv, MapData, MapOptions, TileResult};

mod abort;
mod checkpoint;
mod codec;
mod reader;
mod run;
mod write;
pub use super::h5::{check_input_file, open_input};
pub use abort::abort_point;
pub use checkpoint::{compare_identity, Checkpoint, CheckpointError, Mismatch};
use hdf5::types::VarLenUnicode;
use hdf5::{Dataset, File};
use ndarray::{s, Array2};
pub use reader::{
    check_map_output, decimate, MapReader, Verified, FIGURE_EDGE, MAX_PIXELS, MAX_TILE,
};
pub use run::{prepare_run, MapPlan, PlanError, RunPlan};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
pub use write::{assemble, map_image, write_map, Assembly};

/// What a map file says about itself, besides the arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct MapInfo {
    pub title: String,
    pub model_name: String,
    pub spec_hash: String,
    pub opts: MapOptions,
    /// Names of the two coordinates (`theta1`, `omega2`, …).
    pub x_name: String,
    pub y_name: String,
    /// `(i, n)` for shard i of n.
    pub shard: Option<(usize, usize)>,
    /// The spec as TOML, for provenance and for re-running.
    pub spec_text: String,
}

impl MapInfo {
    /// Aux columns per pixel ([`crate::analysis::map::MapKind::aux_columns`]).
    pub fn aux_width(&self) -> usize {
        self.opts.kind.aux_columns(self.opts.grid.base.len() / 2)
    }
}

/// Counts of a written map (what `--json` reports).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MapSummary {
    pub path: PathBuf,
    pub tiles: usize,
    pub tiles_done: usize,
    pub complete: bool,
    pub steps: u64,
    /// Flip-time maps only; the fnv1a64 checksum only when complete.
    pub flip: Option<FlipStats>,
    /// Finite min/max of the value map (energy-error, lyapunov).
    pub value_range: Option<(f64, f64)>,
    /// Pixels per class of the legend (flag meaning, count), classes with none left out.
    pub class_counts: Vec<(String, u64)>,
}

fn io_err(path: &Path, what: &str) -> impl FnOnce(std::io::Error) -> StoreError {
    let (path, what) = (path.to_path_buf(), what.to_string());
    move |source| StoreError::Io { path, what, source }
}

fn h5_err(what: impl Into<String>) -> impl FnOnce(hdf5::Error) -> StoreError {
    let what = what.into();
    move |source| StoreError::Hdf5 { what, source }
}

/// A refusal of the input file `path`, in one line (a hostile name or HDF5 message may hold
/// line breaks).
/// `path` needs more memory than the budget allows: `why`, then the budget, named as its field.
fn over_budget(path: &Path, why: String) -> StoreError {
    let budget = crate::limits::MEMORY_BUDGET;
    StoreError::OverBudget {
        path: path.to_path_buf(),
        what: crate::error::FieldError::unled(budget)
            .text(why)
            .text(" (")
            .name(budget)
            .text(")"),
    }
}

fn bad(path: &Path, what: impl Into<String>) -> StoreError {
    StoreError::BadFile {
        path: path.to_path_buf(),
        what: what.into().replace(['\n', '\r'], " "),
    }
}

// ---------------------------------------------------------------------------------------------
// HDF5 map file

pub use crate::analysis::map::class::NOT_COMPUTED;

/// `theta[1]` → `theta1`, for dimension names.
pub fn coord_name(component: &str) -> String {
    component.replace(['[', ']'], "")
}

fn coord_long_name(name: &str) -> String {
    let (sym, unit) = if let Some(i) = name.strip_prefix("theta") {
        (format!("θ{i}"), "angle from the downward vertical")
    } else if let Some(i) = name.strip_prefix("omega") {
        (format!("ω{i}"), "angular velocity")
    } else {
        (name.to_string(), "coordinate")
    };
    format!("{sym} at release (pixel centre), {unit}")
}

fn coord_units(name: &str) -> &'static str {
    if name.starts_with("omega") {
        "rad s-1"
    } else {
        "rad"
    }
}
