//! The resume policy of a map run, decided before any work: whether the output may be written,
//! whether an existing checkpoint is continued, started over or refused, and which tiles are
//! left to compute; then the assembly of the finished tiles into the map file.
//!
//! | output | checkpoint | `resume` | `force` | plan |
//! |---|---|---|---|---|
//! | absent | absent | any | any | new checkpoint, every tile |
//! | absent | present | yes | no | continue the checkpoint's tiles |
//! | absent | present | no | no | [`PlanError::UnfinishedCheckpoint`] |
//! | present | absent | yes | no | [`MapPlan::AlreadyComplete`] if the file is this finished map, else [`PlanError::OtherMap`] |
//! | present | any | no | no | [`PlanError::Exists`] |
//! | any | any | any | yes | new checkpoint (an old one is replaced), every tile |

use super::{write_map, Checkpoint, CheckpointError, MapInfo, MapReader, MapSummary};
use crate::model::Chain;
use crate::store::{prepare_output, Provenance, StoreError};
use std::path::{Path, PathBuf};

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
    /// The output holds another map (or an unfinished shard of this one).
    #[error("{} exists and belongs to another map (spec hash {found}); use --force to overwrite it", path.display())]
    OtherMap { path: PathBuf, found: String },
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
    /// The flag whose value is wrong (`-o` or `--resume`); `None` for a failure while running.
    pub fn flag(&self) -> Option<&'static str> {
        match self {
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
        if resume && !ckpt_dir.exists() {
            let r = MapReader::open(out).map_err(PlanError::Unreadable)?;
            if r.header.spec_hash == info.spec_hash && r.header.complete == info.shard.is_none() {
                return Ok(MapPlan::AlreadyComplete(Box::new(r)));
            }
            return Err(PlanError::OtherMap {
                path: out.to_path_buf(),
                found: r.header.spec_hash,
            });
        }
        if !resume {
            return Err(PlanError::Exists {
                path: out.to_path_buf(),
            });
        }
    }
    prepare_output(out, true).map_err(PlanError::Output)?;
    let checkpoint = if ckpt_dir.exists() && !force {
        if !resume {
            return Err(PlanError::UnfinishedCheckpoint { dir: ckpt_dir });
        }
        Checkpoint::open(&ckpt_dir, info).map_err(PlanError::Resume)?
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
        let written = write_map(
            out,
            true,
            chain,
            info,
            &mine,
            &mut |t| {
                ckpt.read_tile(t).ok_or_else(|| StoreError::Dims {
                    var: ckpt.dir().display().to_string(),
                    what: format!("tile {t} vanished from the checkpoint"),
                })
            },
            prov,
        )?;
        self.checkpoint.remove()?;
        Ok(written)
    }
}
