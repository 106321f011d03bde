//! The sidecar checkpoint of a map run (`OUT.h5.tiles/`): finished tiles, one file each, beside
//! a manifest naming the run (see the module doc of [`super`]), and how a stored map differs from
//! the run asked for ([`Mismatch`]).

use super::abort::{abort_at, abort_point};
use super::codec::{decode_tile, encode_tile};
use super::*;

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
        remove_files(&old)?;
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

/// Deletes the files directly in `dir` (the tiles of a checkpoint moved aside) from a few
/// threads at once: an unlink mostly waits on the file system's journal (a millisecond or more
/// each on a VM disk), so thousands of tiles deleted one after another cost seconds, while
/// waits side by side overlap. I/O-bound, so not the compute pool's threads.
fn remove_files(dir: &Path) -> Result<(), StoreError> {
    const REMOVERS: usize = 8;
    let files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(io_err(dir, "listing"))?
        .flatten()
        .map(|e| e.path())
        .collect();
    let per = files.len().div_ceil(REMOVERS).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    for f in part {
                        match fs::remove_file(f) {
                            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                                return Err(io_err(f, "removing")(e));
                            }
                            _ => {}
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().unwrap_or(Ok(())))
    })
}
