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

mod run;
mod write;
use hdf5::types::VarLenUnicode;
use hdf5::{Dataset, File};
use ndarray::{s, Array2};
pub use run::{check_size, prepare_run, MapPlan, PlanError, RunPlan, LARGE_EDGE, LARGE_PIXELS};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
pub use write::{map_image, write_map};

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

/// The value variable of a map kind: (name, units, long_name); `None` for flip-time maps.
pub fn value_var(kind: &str) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match kind {
        "flip-time" => return None,
        "energy-error" => (
            "energy_error",
            "1",
            "relative energy error |E(t_max) − E(0) − W| / max(|E(0)|, g Σ b) of RK4",
        ),
        "ftle" => (
            "ftle",
            "s-1",
            "finite-time Lyapunov exponent ln σ_max(Φ(t_max)) / t_max of the flow map",
        ),
        "final-state" => (
            "settle_time",
            "s",
            "time at which the state settled into its final class (NaN = unsettled or diverged)",
        ),
        "sali" => (
            "sali",
            "1",
            "SALI at the horizon t_max, or where it fell below 1e-14 (the run stops there)",
        ),
        "gali" => (
            "gali",
            "1",
            "GALI_k at the horizon t_max, or where SALI fell below 1e-14 (the run stops there)",
        ),
        "megno" => (
            "megno",
            "1",
            "MEGNO ⟨Y⟩(t_max) from one tangent vector (2 on quasi-periodic orbits, growing on chaotic ones)",
        ),
        _ => (
            "lyapunov",
            "s-1",
            "largest finite-time Lyapunov exponent over [0, t_max]",
        ),
    })
}

/// One auxiliary variable of a map kind: name, over (y, x, link) if per link else (y, x),
/// units, long_name. Their columns, in this order, make up [`TileResult::aux`].
type AuxVar = (&'static str, bool, &'static str, &'static str);

pub fn aux_vars(kind: &str) -> &'static [AuxVar] {
    match kind {
        "final-state" => &[
            (
                "final_angle",
                true,
                "rad",
                "angle mod 2π in [−π, π] when the pixel was classified (or at t_max)",
            ),
            (
                "turns",
                true,
                "1",
                "net turns round((θ − θ*)/2π) about the final equilibrium (NaN if none)",
            ),
            (
                "rotation",
                true,
                "1",
                "rotation number: turns per drive period on the periodic orbit (NaN if none)",
            ),
        ],
        "flip-time" => &[(
            "flip_time_located",
            false,
            "s",
            "time the flipping angle passes ±π, located inside the flip step by the cubic Hermite \
             interpolant of the RK4 step (NaN = never flipped or not computed)",
        )],
        "lyapunov" => &[
            (
                "lyapunov_standard_error",
                false,
                "s-1",
                "batch-means standard error of lyapunov: s/√B of the B block means of the \
                 log-growth (B = the blocks attribute, fewer where the pixel stopped early)",
            ),
            (
                "time_used",
                false,
                "s",
                "time the pixel was integrated: t_max, or the block end where its standard \
                 error fell below the tolerance attribute",
            ),
            (
                "converged",
                false,
                "1",
                "lyapunov_standard_error < tolerance (1) or not (0); NaN without a tolerance \
                 or where diverged",
            ),
        ],
        "megno" => &[(
            "megno_slope",
            false,
            "s-1",
            "least-squares slope of ⟨Y⟩(t) over t ≥ t_max/2 (→ λ_max/2 on chaotic orbits, 0 on regular ones)",
        )],
        "sali" | "gali" => &[(
            "chaos_time",
            false,
            "s",
            "first time SALI < 1e-8 (NaN = never)",
        )],
        _ => &[],
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

fn bad(path: &Path, what: impl Into<String>) -> StoreError {
    StoreError::Dims {
        var: path.display().to_string(),
        what: what.into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Checkpoint

const TILE_MAGIC: &[u8; 8] = b"PNDTILE1";
const MANIFEST: &str = "manifest.json";

/// The sidecar directory of finished tiles for an output file (`OUT.h5.tiles`).
#[derive(Debug, Clone)]
pub struct Checkpoint {
    dir: PathBuf,
    spec_hash: String,
    /// Aux columns per pixel of the map's kind.
    aux_width: usize,
}

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The checkpoint (or file) holds another map, or another shard of this one.
    #[error(transparent)]
    Other(#[from] Mismatch),
    #[error("checkpoint {} has no readable manifest ({why}); use --force to start over", dir.display())]
    Manifest { dir: PathBuf, why: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How a stored map (a finished file or a checkpoint) differs from the run asked for: the run
/// identity is the spec hash together with the shard.
#[derive(Debug, thiserror::Error)]
pub enum Mismatch {
    /// Another spec: the differing spec fields (`map.t_end: 10 there, 20 in this run`).
    #[error("{what} holds another map ({}); use --force to overwrite it", differences.join("; "))]
    Spec {
        what: String,
        differences: Vec<String>,
    },
    /// The same map, another shard (or whole against shard).
    #[error("{what} holds {}, not {}; rerun with {} to resume it, or --force to start over", shard_words(*found), expected_words(*found, *expected), shard_flag(*found))]
    Shard {
        what: String,
        found: Option<(usize, usize)>,
        expected: Option<(usize, usize)>,
    },
}

impl Mismatch {
    /// The flag that selects what differs.
    pub fn flag(&self) -> &'static str {
        match self {
            Mismatch::Spec { .. } => "--resume",
            Mismatch::Shard { .. } => "--shard",
        }
    }
}

fn shard_words(s: Option<(usize, usize)>) -> String {
    s.map_or("the whole map".into(), |(i, n)| format!("shard {i}/{n}"))
}

/// `3/3` after "holds shard 2/3, not", else as [`shard_words`].
fn expected_words(found: Option<(usize, usize)>, expected: Option<(usize, usize)>) -> String {
    match (found, expected) {
        (Some(_), Some((i, n))) => format!("{i}/{n}"),
        _ => shard_words(expected),
    }
}

fn shard_flag(s: Option<(usize, usize)>) -> String {
    s.map_or("no --shard".into(), |(i, n)| format!("--shard {i}/{n}"))
}

/// Compares a stored run identity (`what`: "the file X" or "the checkpoint X") with `info`'s:
/// the spec hash first (naming the spec fields that differ, from the two specs' TOML), then
/// the shard.
pub fn compare_identity(
    what: &str,
    spec_hash: &str,
    shard: Option<(usize, usize)>,
    spec_text: &str,
    info: &MapInfo,
) -> Result<(), Mismatch> {
    if spec_hash != info.spec_hash {
        let mut differences = spec_differences(spec_text, &info.spec_text);
        if differences.is_empty() {
            differences.push(format!(
                "spec hash {spec_hash} there, {} in this run: written by another pendula version",
                info.spec_hash
            ));
        }
        return Err(Mismatch::Spec {
            what: what.into(),
            differences,
        });
    }
    if shard != info.shard {
        return Err(Mismatch::Shard {
            what: what.into(),
            found: shard,
            expected: info.shard,
        });
    }
    Ok(())
}

/// The leaves (`table.key`) where two specs' TOML differ, as `key: A there, B in this run`,
/// leaving out what does not enter the map (the title, `[output]`, `[figures]`).
fn spec_differences(stored: &str, ours: &str) -> Vec<String> {
    fn leaves(prefix: &str, v: &toml::Value, out: &mut std::collections::BTreeMap<String, String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    leaves(&key, v, out);
                }
            }
            v => {
                out.insert(prefix.to_string(), v.to_string());
            }
        }
    }
    let flat = |text: &str| {
        let mut out = std::collections::BTreeMap::new();
        if let Ok(t) = toml::from_str::<toml::Table>(text) {
            leaves("", &toml::Value::Table(t), &mut out);
        }
        out.retain(|k: &String, _| {
            !(k == "title" || k.starts_with("output.") || k.starts_with("figures."))
        });
        out
    };
    let (a, b) = (flat(stored), flat(ours));
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let unset = "unset".to_string();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            format!(
                "{k}: {} there, {} in this run",
                a.get(k).unwrap_or(&unset),
                b.get(k).unwrap_or(&unset)
            )
        })
        .collect()
}

/// The test-only fault hook: when the environment variable `PENDULA_TEST_ABORT_AT` names
/// `phase`, the process aborts here (no destructors, no clean-up: what `kill -9` leaves), so
/// the tests can check that every phase of a map run leaves a state `--resume` accepts. The
/// phases are `checkpoint` (staged, not yet in place), `tile` (the first tile stored),
/// `assembly` (the `.partial` half written), `assembled` (the file in place, the checkpoint
/// not yet touched) and `clean-up` (the checkpoint half removed). Not for users.
pub fn abort_point(phase: &str) {
    if abort_at() == Some(phase) {
        std::process::abort();
    }
}

/// The phase named by `PENDULA_TEST_ABORT_AT` (the only place that reads it; see [`abort_point`]).
fn abort_at() -> Option<&'static str> {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    AT.get_or_init(|| std::env::var("PENDULA_TEST_ABORT_AT").ok())
        .as_deref()
}

/// `DIR` + `suffix` (`OUT.h5.tiles.old`, …).
fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut s = dir.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

impl Checkpoint {
    /// `OUT.h5` → `OUT.h5.tiles`.
    pub fn dir_for(output: &Path) -> PathBuf {
        sibling(output, ".tiles")
    }

    /// Where a checkpoint is built before it is renamed into place, and where one is moved
    /// before it is deleted: a kill in either step leaves only these, never a checkpoint
    /// without its manifest. [`Checkpoint::clear_leftovers`] deletes them.
    fn staging(dir: &Path) -> [PathBuf; 2] {
        [sibling(dir, ".new"), sibling(dir, ".old")]
    }

    /// Deletes what a killed run left beside the checkpoint `dir`: a half-built or half-removed
    /// checkpoint (see [`Checkpoint::staging`]).
    pub fn clear_leftovers(dir: &Path) -> Result<(), StoreError> {
        for d in Checkpoint::staging(dir) {
            if d.exists() {
                fs::remove_dir_all(&d).map_err(io_err(&d, "removing leftover checkpoint"))?;
            }
        }
        Ok(())
    }

    /// Starts an empty checkpoint (removing a stale one: the caller decided to start over).
    /// Built as `DIR.new` with its manifest (written, synced), then renamed to `DIR`, so `DIR`
    /// never exists without a manifest.
    pub fn create(dir: &Path, info: &MapInfo) -> Result<Checkpoint, StoreError> {
        Checkpoint::clear_leftovers(dir)?;
        if dir.exists() {
            Checkpoint::discard(dir)?;
        }
        let [new, _] = Checkpoint::staging(dir);
        fs::create_dir_all(&new).map_err(io_err(&new, "creating checkpoint"))?;
        let manifest = serde_json::json!({
            "format": "pendula-map-checkpoint/1",
            "spec_hash": info.spec_hash,
            "kind": info.opts.kind.name(),
            "width": info.opts.grid.width,
            "height": info.opts.grid.height,
            "tile": info.opts.tile,
            "shard": info.shard.map(|(i, n)| format!("{i}/{n}")),
            "spec": info.spec_text,
        });
        let path = new.join(MANIFEST);
        let mut f = fs::File::create(&path).map_err(io_err(&path, "creating"))?;
        f.write_all(manifest.to_string().as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(io_err(&path, "writing"))?;
        drop(f);
        abort_point("checkpoint");
        fs::rename(&new, dir).map_err(io_err(dir, "renaming the new checkpoint to"))?;
        Ok(Checkpoint {
            dir: dir.to_path_buf(),
            spec_hash: info.spec_hash.clone(),
            aux_width: info.aux_width(),
        })
    }

    /// Removes the checkpoint `dir`: renamed to `DIR.old` first (atomic), then deleted, so a
    /// kill while deleting leaves a leftover, not a checkpoint without its manifest.
    pub fn discard(dir: &Path) -> Result<(), StoreError> {
        let [_, old] = Checkpoint::staging(dir);
        if old.exists() {
            fs::remove_dir_all(&old).map_err(io_err(&old, "removing leftover checkpoint"))?;
        }
        fs::rename(dir, &old).map_err(io_err(dir, "moving aside the checkpoint"))?;
        if abort_at() == Some("clean-up") {
            // Half removed, the manifest first: the worst state a kill here can leave.
            let _ = fs::remove_file(old.join(MANIFEST));
        }
        abort_point("clean-up");
        fs::remove_dir_all(&old).map_err(io_err(&old, "removing the checkpoint"))
    }

    /// Opens an existing checkpoint, checking that it belongs to the run of `info` (its spec
    /// hash and shard, see [`compare_identity`]).
    pub fn open(dir: &Path, info: &MapInfo) -> Result<Checkpoint, CheckpointError> {
        let path = dir.join(MANIFEST);
        let text = fs::read_to_string(&path).map_err(|e| CheckpointError::Manifest {
            dir: dir.to_path_buf(),
            why: e.to_string(),
        })?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| CheckpointError::Manifest {
                dir: dir.to_path_buf(),
                why: e.to_string(),
            })?;
        let shard = v["shard"].as_str().and_then(|s| {
            let (i, n) = s.split_once('/')?;
            Some((i.parse().ok()?, n.parse().ok()?))
        });
        compare_identity(
            &format!("the checkpoint {}", dir.display()),
            v["spec_hash"].as_str().unwrap_or(""),
            shard,
            v["spec"].as_str().unwrap_or(""),
            info,
        )?;
        Ok(Checkpoint {
            dir: dir.to_path_buf(),
            spec_hash: info.spec_hash.clone(),
            aux_width: info.aux_width(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn tile_path(&self, index: usize) -> PathBuf {
        self.dir.join(format!("tile-{index:07}.bin"))
    }

    /// Stores a finished tile atomically: `tile-N.tmp` (synced), then renamed to `tile-N.bin`.
    pub fn write_tile(&self, t: &TileResult) -> Result<(), StoreError> {
        let bytes = encode_tile(t, &self.spec_hash);
        let tmp = self.dir.join(format!("tile-{:07}.tmp", t.index));
        let mut f = fs::File::create(&tmp).map_err(io_err(&tmp, "creating"))?;
        f.write_all(&bytes).map_err(io_err(&tmp, "writing"))?;
        f.sync_data().map_err(io_err(&tmp, "syncing"))?;
        drop(f);
        let path = self.tile_path(t.index);
        fs::rename(&tmp, &path).map_err(io_err(&path, "renaming tile to"))?;
        abort_point("tile");
        Ok(())
    }

    /// Reads a stored tile; `None` if it is absent, torn, or from another spec.
    pub fn read_tile(&self, index: usize) -> Option<TileResult> {
        let bytes = fs::read(self.tile_path(index)).ok()?;
        decode_tile(&bytes, &self.spec_hash, self.aux_width).filter(|t| t.index == index)
    }

    /// The indices (< `count`) of the valid stored tiles. Leftover `.tmp` files and invalid
    /// tile files are deleted, so they are recomputed.
    pub fn finished(&self, count: usize) -> Result<Vec<bool>, StoreError> {
        let mut done = vec![false; count];
        let entries = fs::read_dir(&self.dir).map_err(io_err(&self.dir, "listing"))?;
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") && name != "manifest.tmp" {
                let _ = fs::remove_file(e.path());
                continue;
            }
            let Some(num) = name
                .strip_prefix("tile-")
                .and_then(|n| n.strip_suffix(".bin"))
            else {
                continue;
            };
            match num.parse::<usize>() {
                Ok(i) if i < count && self.read_tile(i).is_some() => done[i] = true,
                _ => {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
        Ok(done)
    }

    /// Deletes the checkpoint (after the map file is safely in place; see [`Checkpoint::discard`]).
    pub fn remove(self) -> Result<(), StoreError> {
        Checkpoint::discard(&self.dir)
    }
}

fn encode_tile(t: &TileResult, spec_hash: &str) -> Vec<u8> {
    let np = t.class.len();
    let mut b = Vec::with_capacity(64 + np * 14);
    b.extend_from_slice(TILE_MAGIC);
    b.extend_from_slice(
        &u64::from_str_radix(spec_hash, 16)
            .unwrap_or(0)
            .to_le_bytes(),
    );
    b.extend_from_slice(&(t.index as u64).to_le_bytes());
    b.extend_from_slice(&t.steps.to_le_bytes());
    b.extend_from_slice(&(np as u64).to_le_bytes());
    let flags = u8::from(!t.flip_step.is_empty())
        | (u8::from(!t.value.is_empty()) << 1)
        | (u8::from(!t.aux.is_empty()) << 2);
    b.push(flags);
    for k in &t.flip_step {
        b.extend_from_slice(&k.to_le_bytes());
    }
    b.extend_from_slice(&t.flip_link);
    b.extend_from_slice(&t.class);
    for v in t.value.iter().chain(&t.aux) {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let mut f = Fnv::new();
    f.bytes(&b);
    b.extend_from_slice(&f.0.to_le_bytes());
    b
}

/// `aux_width`: the [`crate::analysis::map::MapKind::aux_columns`] the spec implies (a tile is refused otherwise).
fn decode_tile(b: &[u8], spec_hash: &str, aux_width: usize) -> Option<TileResult> {
    if b.len() < 49 || &b[..8] != TILE_MAGIC {
        return None;
    }
    let (body, sum) = b.split_at(b.len() - 8);
    let mut f = Fnv::new();
    f.bytes(body);
    if f.0.to_le_bytes() != sum {
        return None;
    }
    let u64_at = |o: usize| u64::from_le_bytes(body[o..o + 8].try_into().unwrap());
    if u64_at(8) != u64::from_str_radix(spec_hash, 16).unwrap_or(0) {
        return None;
    }
    let index = u64_at(16) as usize;
    let steps = u64_at(24);
    let np = u64_at(32) as usize;
    let flags = body[40];
    let (has_flip, has_value) = (flags & 1 != 0, flags & 2 != 0);
    let m = if flags & 4 != 0 { aux_width } else { 0 };
    let want = 41
        + np
        + if has_flip { np * 5 } else { 0 }
        + if has_value { np * 8 } else { 0 }
        + np * m * 8;
    if body.len() != want {
        return None;
    }
    let mut o = 41;
    let mut t = TileResult {
        index,
        flip_step: vec![],
        flip_link: vec![],
        class: vec![],
        value: vec![],
        aux: vec![],
        steps,
    };
    if has_flip {
        t.flip_step = body[o..o + 4 * np]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        o += 4 * np;
        t.flip_link = body[o..o + np].to_vec();
        o += np;
    }
    t.class = body[o..o + np].to_vec();
    o += np;
    let f64s = |o: usize, len: usize| -> Vec<f64> {
        body[o..o + 8 * len]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    if has_value {
        t.value = f64s(o, np);
        o += 8 * np;
    }
    t.aux = f64s(o, np * m);
    Some(t)
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

/// An open map file, read tile by tile (merge) or whole (render).
pub struct MapReader {
    file: File,
    path: PathBuf,
    pub header: MapHeader,
}

impl std::fmt::Debug for MapReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapReader")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl MapReader {
    /// Opens `path` and reads its header; refuses files that are not pendula maps.
    pub fn open(path: &Path) -> Result<MapReader, StoreError> {
        let file = File::open(path).map_err(h5_err(format!("opening {}", path.display())))?;
        let g = file
            .group("map")
            .map_err(|_| bad(path, "is not a pendula map file (no /map group)"))?;
        let s = |name: &str| -> Result<String, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<VarLenUnicode>())
                .map(|v| v.as_str().to_string())
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let i = |name: &str| -> Result<i64, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<i64>())
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let f = |name: &str| -> Result<f64, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<f64>())
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let b = |name: &str| -> Result<bool, StoreError> {
            g.attr(name)
                .and_then(|a| a.read_scalar::<i8>())
                .map(|v| v != 0)
                .map_err(h5_err(format!("reading attribute {name}")))
        };
        let window: Vec<f64> = g
            .attr("window")
            .and_then(|a| a.read_raw::<f64>())
            .map_err(h5_err("reading attribute window"))?;
        let base_state: Vec<f64> = g
            .attr("base_state")
            .and_then(|a| a.read_raw::<f64>())
            .map_err(h5_err("reading attribute base_state"))?;
        let shard = s("shard")?;
        let shard = shard
            .split_once('/')
            .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
        let done: Vec<u8> = g
            .dataset("tile_done")
            .and_then(|d| d.read_raw::<u8>())
            .map_err(h5_err("reading tile_done"))?;
        let steps: Vec<i64> = g
            .dataset("tile_steps")
            .and_then(|d| d.read_raw::<i64>())
            .map_err(h5_err("reading tile_steps"))?;
        let model = g.group("model").map_err(h5_err("opening /map/model"))?;
        let col = |name: &str| -> Result<Vec<f64>, StoreError> {
            model
                .dataset(name)
                .and_then(|d| d.read_raw::<f64>())
                .map_err(h5_err(format!("reading {name}")))
        };
        let mf = |name: &str| model.attr(name).and_then(|a| a.read_scalar::<f64>()).ok();
        let gravity = model
            .attr("gravity")
            .and_then(|a| a.read_scalar::<f64>())
            .map_err(h5_err("reading gravity"))?;
        let header = MapHeader {
            title: s("title")?,
            model_name: s("model")?,
            kind: s("kind")?,
            spec_hash: s("spec_hash")?,
            width: i("width")? as usize,
            height: i("height")? as usize,
            tile: i("tile")? as usize,
            t_max: f("t_max")?,
            dt: f("dt")?,
            n_steps: i("n_steps")? as u32,
            energy_skip: b("energy_skip")?,
            kernel: s("kernel")?,
            flip_target: s("flip_target").unwrap_or_default(),
            x_name: s("x_coordinate")?,
            y_name: s("y_coordinate")?,
            window: [window[0], window[1], window[2], window[3]],
            shard,
            complete: b("complete")?,
            tile_done: done.iter().map(|&d| d == 1).collect(),
            tile_steps: steps.iter().map(|&v| v as u64).collect(),
            link_length: col("link_length")?,
            link_mass: col("link_mass")?,
            gravity,
            base_state,
            shell: f("shell_energy").ok().zip(s("shell_solve").ok()),
            damping_absolute: col("damping_absolute").unwrap_or_default(),
            damping_joint: col("damping_joint").unwrap_or_default(),
            torque: mf("torque_amplitude").zip(mf("torque_frequency")),
            pivot: mf("pivot_x_amplitude")
                .zip(mf("pivot_y_amplitude"))
                .zip(mf("pivot_frequency"))
                .map(|((x, y), w)| (x, y, w)),
        };
        if header.tile_done.len() != header.tiling().count() {
            return Err(bad(path, "tile_done does not match the tiling"));
        }
        Ok(MapReader {
            file,
            path: path.to_path_buf(),
            header,
        })
    }

    /// The spec the file was written from (root attribute `spec`; empty if absent).
    pub fn spec_text(&self) -> String {
        self.file
            .attr("spec")
            .and_then(|a| a.read_scalar::<VarLenUnicode>())
            .map(|v| v.as_str().to_string())
            .unwrap_or_default()
    }

    /// The path the reader was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn ds(&self, name: &str) -> Result<Dataset, StoreError> {
        self.file
            .dataset(&format!("map/{name}"))
            .map_err(h5_err(format!("opening {name} in {}", self.path.display())))
    }

    fn value_name(&self) -> &'static str {
        value_var(&self.header.kind).map_or("", |v| v.0)
    }

    /// Reads the aux variables over rows r0..r1, columns c0..c1 into pixel-major columns.
    fn read_aux(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Result<Vec<f64>, StoreError> {
        let defs = aux_vars(&self.header.kind);
        let nl = self.header.link_length.len();
        let m: usize = defs.iter().map(|d| if d.1 { nl } else { 1 }).sum();
        let np = (r1 - r0) * (c1 - c0);
        let mut out = vec![f64::NAN; np * m];
        let mut off = 0;
        for &(name, per_link, ..) in defs {
            // Flip maps written before flip_time_located existed read it as NaN.
            // So are Lyapunov maps' error columns written before they existed.
            let late = matches!(
                name,
                "flip_time_located" | "lyapunov_standard_error" | "time_used" | "converged"
            );
            if late && !self.file.link_exists(&format!("map/{name}")) {
                off += 1;
                continue;
            }
            let ds = self.ds(name)?;
            let err = h5_err(format!("reading {name}"));
            if per_link {
                let a = ds
                    .read_slice::<f64, _, ndarray::Ix3>(s![r0..r1, c0..c1, ..])
                    .map_err(err)?;
                for (q, v) in a.iter().enumerate() {
                    out[(q / nl) * m + off + q % nl] = *v;
                }
                off += nl;
            } else {
                let a = ds
                    .read_slice_2d::<f64, _>(s![r0..r1, c0..c1])
                    .map_err(err)?;
                for (q, v) in a.iter().enumerate() {
                    out[q * m + off] = *v;
                }
                off += 1;
            }
        }
        Ok(out)
    }

    /// Point symmetry of a complete map (see [`point_symmetric`](crate::analysis::map::point_symmetric)):
    /// (pixel pairs p ↔ P−1−p compared, pairs equal), over `flip_step` of flip-time maps or
    /// `class` and turns of final-state maps (turns negate), one pair of rows at a time.
    pub fn symmetry(&self) -> Result<(u64, u64), StoreError> {
        let h = &self.header;
        let (w, ht) = (h.width, h.height);
        let row = |i: usize| -> Result<(Vec<i64>, Vec<f64>), StoreError> {
            let err = h5_err(format!("reading row {i}"));
            if h.is_flip() {
                let k = self
                    .ds("flip_step")?
                    .read_slice_1d::<i32, _>(s![i, ..])
                    .map_err(err)?;
                Ok((k.iter().map(|&v| i64::from(v)).collect(), vec![]))
            } else {
                let c = self
                    .ds("class")?
                    .read_slice_1d::<u8, _>(s![i, ..])
                    .map_err(err)?;
                let t = self.read_aux(i, i + 1, 0, w)?;
                Ok((c.iter().map(|&v| i64::from(v)).collect(), t))
            }
        };
        let m = if h.is_flip() {
            0
        } else {
            aux_vars(&h.kind).len() * h.link_length.len()
        };
        let nl = h.link_length.len();
        let (mut pairs, mut same) = (0u64, 0u64);
        for i in 0..ht.div_ceil(2) {
            let (a, ta) = row(i)?;
            let (b, tb) = row(ht - 1 - i)?;
            let cols = if i == ht - 1 - i { w / 2 } else { w };
            for j in 0..cols {
                let jj = w - 1 - j;
                pairs += 1;
                // Turns (columns nl..2nl) of the mirror pixel are the negatives.
                let turns_ok = m == 0
                    || (0..nl).all(|l| {
                        let (x, y) = (ta[j * m + nl + l], tb[jj * m + nl + l]);
                        x == -y || (x.is_nan() && y.is_nan())
                    });
                same += u64::from(a[j] == b[jj] && turns_ok);
            }
        }
        Ok((pairs, same))
    }

    /// Reads tile `index` back as it was computed.
    pub fn read_tile(&self, index: usize) -> Result<TileResult, StoreError> {
        let r = self.header.tiling().rect(index);
        let sel = s![r.r0..r.r1, r.c0..r.c1];
        let flat = |a: Array2<u8>| a.iter().copied().collect::<Vec<u8>>();
        let read_err = |n: &str| h5_err(format!("reading tile {index} of {n}"));
        let class = flat(
            self.ds("class")?
                .read_slice_2d::<u8, _>(sel)
                .map_err(read_err("class"))?,
        );
        let mut t = TileResult {
            index,
            flip_step: vec![],
            flip_link: vec![],
            class,
            value: vec![],
            aux: self.read_aux(r.r0, r.r1, r.c0, r.c1)?,
            steps: self.header.tile_steps[index],
        };
        if self.header.is_flip() {
            t.flip_step = self
                .ds("flip_step")?
                .read_slice_2d::<i32, _>(sel)
                .map_err(read_err("flip_step"))?
                .iter()
                .copied()
                .collect();
            t.flip_link = flat(
                self.ds("flip_link")?
                    .read_slice_2d::<u8, _>(sel)
                    .map_err(read_err("flip_link"))?,
            );
        } else {
            t.value = self
                .ds(self.value_name())?
                .read_slice_2d::<f64, _>(sel)
                .map_err(read_err("value"))?
                .iter()
                .copied()
                .collect();
        }
        Ok(t)
    }

    /// Reads the whole map.
    pub fn read_all(&self) -> Result<MapData, StoreError> {
        let h = &self.header;
        let raw_u8 = |n: &str| -> Result<Vec<u8>, StoreError> {
            self.ds(n)?
                .read_raw::<u8>()
                .map_err(h5_err(format!("reading {n}")))
        };
        let mut d = MapData {
            width: h.width,
            height: h.height,
            flip_step: vec![],
            flip_link: vec![],
            class: raw_u8("class")?,
            value: vec![],
            aux: self.read_aux(0, h.height, 0, h.width)?,
            aux_width: 0,
            done: h.tile_done.clone(),
            steps: h.tile_steps.iter().sum(),
        };
        d.aux_width = d.aux.len() / (h.width * h.height).max(1);
        if h.is_flip() {
            d.flip_step = self
                .ds("flip_step")?
                .read_raw::<i32>()
                .map_err(h5_err("reading flip_step"))?;
            d.flip_link = raw_u8("flip_link")?;
        } else {
            d.value = self
                .ds(self.value_name())?
                .read_raw::<f64>()
                .map_err(h5_err("reading the value map"))?;
        }
        Ok(d)
    }
}

/// Checks that a map file can be written at `path` before work starts (as for every result).
pub fn check_map_output(path: &Path, force: bool) -> Result<(), StoreError> {
    check_output_path(path, force)
}
