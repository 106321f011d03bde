//! The resume policy of a map run, decided before any work: whether the output may be written,
//! whether an existing checkpoint is continued, started over or refused, and which tiles are
//! left to compute; then the assembly of the finished tiles into the map file.
//!
//! | output | checkpoint | `resume` | `force` | plan |
//! |---|---|---|---|---|
//! | absent | absent | any | any | new checkpoint, every tile |
//! | absent | present | yes | no | continue the checkpoint's tiles (if it is this run's) |
//! | absent | present | no | no | [`PlanError::UnfinishedCheckpoint`] |
//! | this run's, finished | any | yes | no | [`MapPlan::AlreadyComplete`]; a checkpoint of this run (or one without manifest) left by a kill during clean-up is deleted |
//! | another run's | present | yes | no | continue the checkpoint (an earlier `--force` run) |
//! | another run's | absent | yes | no | [`PlanError::Mismatch`] naming the spec fields or shard that differ |
//! | present | any | no | no | [`PlanError::Exists`] |
//! | any | any | any | yes | new checkpoint (an old one is replaced), every tile |
//!
//! A run's identity is its spec hash and its shard. Every kill point of a run leaves one of
//! these states (tested phase by phase with `PENDULA_TEST_ABORT_AT`, see
//! [`super::abort_point`]): the checkpoint is built as `OUT.h5.tiles.new` and renamed into
//! place, the file is written as `OUT.h5.partial` and renamed, and only then is the checkpoint
//! moved to `OUT.h5.tiles.old` and deleted; leftovers of `.new`, `.old` and `.partial` are
//! deleted by the next run.

use super::{
    compare_identity, write_map, Assembly, Checkpoint, CheckpointError, MapInfo, MapReader,
    MapSummary, Mismatch,
};
use crate::analysis::map::{spec_hash, MapOptions};
use crate::model::{Chain, System};
use crate::store::{prepare_output, Provenance, StoreError};
use std::path::{Path, PathBuf};

impl MapInfo {
    /// The self-description of the map `opts` on `chain` for shard `shard`, titled `title`,
    /// of the spec `spec_text` (its model named `model_name`): the spec hash and the
    /// coordinates' names.
    pub fn of(
        title: String,
        model_name: &str,
        spec_text: &str,
        chain: &Chain,
        opts: &MapOptions,
        shard: Option<(usize, usize)>,
    ) -> MapInfo {
        MapInfo {
            title,
            model_name: model_name.to_string(),
            spec_hash: spec_hash(chain, opts),
            opts: opts.clone(),
            x_name: super::coord_name(&chain.component_name(opts.grid.x.index)),
            y_name: super::coord_name(&chain.component_name(opts.grid.y.index)),
            shard,
            spec_text: spec_text.to_string(),
        }
    }
}

/// How a map run proceeds (see the module doc).
#[derive(Debug)]
pub enum MapPlan {
    /// The output already holds this map, finished (a requeued `--resume`): nothing to compute.
    AlreadyComplete(Box<MapReader>),
    /// Compute the tiles in `todo` into the checkpoint.
    Run(RunPlan),
}

/// The tiles of a run still to compute, and the checkpoint that keeps them.
#[derive(Debug)]
pub struct RunPlan {
    pub checkpoint: Checkpoint,
    /// Per tile of the whole map: whether the checkpoint holds it.
    pub have: Vec<bool>,
    /// This run's tiles (a shard's, or all).
    pub tiles: Vec<usize>,
    /// This run's tiles not in the checkpoint yet.
    pub todo: Vec<usize>,
    /// This run's tiles already in the checkpoint (continued from an earlier run).
    pub resumed: usize,
}

/// Why a map run cannot start; [`PlanError::flag`] names the flag that fixes it.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The output holds another run's map: another spec or another shard.
    #[error(transparent)]
    Mismatch(Mismatch),
    /// The output holds this run's map but not all of its tiles (not written by this version).
    #[error("{} holds this map but not all of this run's tiles; use --force to overwrite it", path.display())]
    Unfinished { path: PathBuf },
    /// The output exists and neither resuming nor overwriting was asked for.
    #[error("output file {} already exists (use --force to overwrite it)", path.display())]
    Exists { path: PathBuf },
    /// A checkpoint of an unfinished run exists and resuming was not asked for.
    #[error("checkpoint {} of an unfinished run exists; add --resume to continue it or --force to start over", dir.display())]
    UnfinishedCheckpoint { dir: PathBuf },
    /// The existing output is not a readable map file.
    #[error(transparent)]
    Unreadable(StoreError),
    /// The output path cannot be written.
    #[error(transparent)]
    Output(StoreError),
    /// The checkpoint to resume cannot be used.
    #[error(transparent)]
    Resume(CheckpointError),
    /// Creating or listing the checkpoint failed.
    #[error(transparent)]
    Checkpoint(StoreError),
}

impl PlanError {
    /// The message, the fields it names spelt by `name` (a front end's spelling: an output
    /// read over the memory budget, [`StoreError::render`]).
    pub fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            PlanError::Unreadable(e) | PlanError::Output(e) | PlanError::Checkpoint(e) => {
                e.render(name)
            }
            e => e.to_string(),
        }
    }

    /// The flag whose value is wrong (`-o` or `--resume`); `None` for a failure while running.
    pub fn flag(&self) -> Option<&'static str> {
        match self {
            PlanError::Mismatch(m) | PlanError::Resume(CheckpointError::Other(m)) => Some(m.flag()),
            PlanError::Resume(_) => Some("--resume"),
            PlanError::Checkpoint(_) => None,
            _ => Some("-o"),
        }
    }
}

/// Decides how the map `info` is computed into `out` (see the module doc): `tiles` are this
/// run's tiles (a shard's, or all), `resume` continues a checkpoint or accepts a finished
/// output, `force` starts over. Creates the output's missing folders and the checkpoint.
pub fn prepare_run(
    out: &Path,
    info: &MapInfo,
    tiles: Vec<usize>,
    resume: bool,
    force: bool,
) -> Result<MapPlan, PlanError> {
    let ckpt_dir = Checkpoint::dir_for(out);
    if out.exists() && !force {
        if !resume {
            return Err(PlanError::Exists {
                path: out.to_path_buf(),
            });
        }
        let what = format!("the file {}", out.display());
        let found = MapReader::open(out).map_err(PlanError::Unreadable);
        let found = found.and_then(|r| {
            let h = &r.header;
            compare_identity(&what, &h.spec_hash, h.shard, &r.spec_text(), info)
                .map_err(PlanError::Mismatch)?;
            Ok(r)
        });
        match found {
            Ok(r) => {
                if !tiles.iter().all(|&t| r.header.tile_done[t]) {
                    return Err(PlanError::Unfinished {
                        path: out.to_path_buf(),
                    });
                }
                // Finished (a requeued job). A checkpoint beside it is what a kill during the
                // clean-up left: this run's, or without its manifest; one of another run is
                // refused, not deleted.
                if ckpt_dir.exists() {
                    match Checkpoint::open(&ckpt_dir, info) {
                        Ok(c) => c.remove().map_err(PlanError::Checkpoint)?,
                        Err(CheckpointError::Manifest { .. }) => {
                            Checkpoint::discard(&ckpt_dir).map_err(PlanError::Checkpoint)?
                        }
                        Err(e) => return Err(PlanError::Resume(e)),
                    }
                }
                remove_partial(out).map_err(PlanError::Checkpoint)?;
                Checkpoint::clear_leftovers(&ckpt_dir).map_err(PlanError::Checkpoint)?;
                return Ok(MapPlan::AlreadyComplete(Box::new(r)));
            }
            // Another run's file beside a checkpoint: an earlier `--force` run to continue.
            Err(e) if !ckpt_dir.exists() => return Err(e),
            Err(e) => {
                if let Err(CheckpointError::Manifest { .. }) = Checkpoint::open(&ckpt_dir, info) {
                    // No run to continue: what differs is the file.
                    return Err(e);
                }
            }
        }
    }
    prepare_output(out, true).map_err(PlanError::Output)?;
    let checkpoint = if ckpt_dir.exists() && !force {
        if !resume {
            return Err(PlanError::UnfinishedCheckpoint { dir: ckpt_dir });
        }
        let c = Checkpoint::open(&ckpt_dir, info).map_err(PlanError::Resume)?;
        Checkpoint::clear_leftovers(&ckpt_dir).map_err(PlanError::Checkpoint)?;
        c
    } else {
        Checkpoint::create(&ckpt_dir, info).map_err(PlanError::Checkpoint)?
    };
    let have = checkpoint
        .finished(info.opts.tiling().count())
        .map_err(PlanError::Checkpoint)?;
    let resumed = tiles.iter().filter(|&&t| have[t]).count();
    let todo = tiles.iter().copied().filter(|&t| !have[t]).collect();
    Ok(MapPlan::Run(RunPlan {
        checkpoint,
        have,
        tiles,
        todo,
        resumed,
    }))
}

/// Deletes `OUT.partial`, what a kill while assembling leaves (the next assembly would
/// truncate it; a finished map has no use for it).
fn remove_partial(out: &Path) -> Result<(), StoreError> {
    let mut p = out.as_os_str().to_owned();
    p.push(".partial");
    let p = PathBuf::from(p);
    match std::fs::remove_file(&p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Io {
            path: p,
            what: "removing the leftover".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}

impl RunPlan {
    /// This run's tiles the checkpoint holds.
    pub fn done(&self) -> usize {
        self.tiles.iter().filter(|&&t| self.have[t]).count()
    }

    /// Writes this run's finished tiles as the map file `out` (of `chain`, `info`), then removes
    /// the checkpoint. A shard's file holds only its own tiles.
    pub fn assemble(
        self,
        out: &Path,
        chain: &Chain,
        info: &MapInfo,
        prov: &Provenance,
    ) -> Result<MapSummary, StoreError> {
        let mut mine = vec![false; self.have.len()];
        for &t in &self.tiles {
            mine[t] = self.have[t];
        }
        let ckpt = &self.checkpoint;
        let mut source = |t| {
            ckpt.read_tile(t).ok_or_else(|| StoreError::Dims {
                var: ckpt.dir().display().to_string(),
                what: format!("tile {t} vanished from the checkpoint"),
            })
        };
        let a = Assembly {
            chain,
            info,
            have: &mine,
            source: &mut source,
            prov,
        };
        let written = write_map(out, true, a)?;
        self.checkpoint.remove()?;
        Ok(written)
    }
}
