//! The HDF5 writer: [`H5Out`] (the file), [`GroupWriter`] (a group) and [`Var`] (a
//! variable or coordinate, for adding attributes). The same writer also builds the file's
//! in-memory image ([`H5Out::memory`]) for the Python package, so both get one layout.

use std::cell::RefCell;
use std::fs;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use hdf5::file::FileCloseDegree;
use hdf5::types::VarLenUnicode;
use hdf5::{Dataset, File, Group, H5Type, Location};
use ndarray::{s, ArrayView, Dimension};

use super::memory::{Attr, Elem, Image, MemGroup, MemVar};
use super::{check_output_path, dimscale, Provenance, StoreError};
use crate::observe::Cancel;

mod attrs;
mod dataset;
mod group;
mod input;
mod tiles;

use dataset::{attached, check_name, mem_var, row_major, write_dataset};
pub use input::{check_input_file, open_input};
pub use tiles::Tile;

/// The token every file write polls between its chunks ([`stop_writes_with`]).
static WRITE_STOP: std::sync::OnceLock<Cancel> = std::sync::OnceLock::new();

/// Makes every result file written from now on poll `cancel` between the chunks of its
/// datasets (unless it was already set when the file was created: the run is then writing its
/// partial result): a stop request during the final write of a long run (10⁶ samples take seconds to
/// compress) ends it within one chunk with [`StoreError::Interrupted`], and the `.partial` is
/// removed, so nothing that looks complete is left. A front end calls it once with its stop
/// signal's token (the CLI's); the first call wins.
pub fn stop_writes_with(cancel: Cancel) {
    let _ = WRITE_STOP.set(cancel);
}

/// An HDF5 result file being written to `PATH.partial`, or its image in memory.
///
/// [`finish`](H5Out::finish) closes it and renames it to `PATH`; dropping it unfinished
/// deletes the `.partial`, so an error or panic never leaves a file that looks complete.
/// Group and variable writers borrow it, so none can outlive the file.
///
/// The `.partial` is locked (an exclusive advisory lock, held until the file is renamed or
/// removed) before it is created or truncated: a second run writing the same output fails with
/// [`StoreError::Locked`] and leaves the first one's file alone.
#[derive(Debug)]
pub struct H5Out {
    file: Option<File>,
    path: PathBuf,
    partial: PathBuf,
    /// The lock on `partial`, dropped after the file is renamed or removed.
    lock: Option<fs::File>,
    /// Polled between the chunks of a dataset ([`stop_writes_with`]).
    cancel: Cancel,
    /// The in-memory image (no file) of [`H5Out::memory`].
    image: Option<RefCell<Image>>,
}

/// Opens `partial` without truncating it and takes its exclusive lock, or fails with
/// [`StoreError::Locked`] when another run holds it. A lock taken on a file that a winner has
/// just renamed away (or removed) is on the wrong file: the path is opened again.
fn lock_partial(path: &Path, partial: &Path) -> Result<fs::File, StoreError> {
    let io = |what: &str| {
        let what = what.to_string();
        move |source| StoreError::Io {
            path: partial.to_path_buf(),
            what,
            source,
        }
    };
    for _ in 0..100 {
        let f = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(partial)
            .map_err(io("opening"))?;
        // Unix only: an advisory lock (flock) leaves HDF5's own writes through its handle
        // alone; Windows' locks are mandatory and would refuse them.
        #[cfg(unix)]
        match f.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(StoreError::Locked {
                    path: path.to_path_buf(),
                    partial: partial.to_path_buf(),
                })
            }
            Err(fs::TryLockError::Error(e)) => return Err(io("locking")(e)),
        }
        if same_file(&f, partial) {
            return Ok(f);
        }
    }
    Err(StoreError::Locked {
        path: path.to_path_buf(),
        partial: partial.to_path_buf(),
    })
}

/// Whether the open file `f` is still the one at `path` (not renamed away or removed).
#[cfg(unix)]
fn same_file(f: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_f: &fs::File, path: &Path) -> bool {
    path.is_file()
}

impl H5Out {
    /// Locks `PATH.partial`, then creates it (truncating a stale one from a crashed run).
    ///
    /// Runs [`check_output_path`] first, so the same errors as there: existing `PATH`
    /// without `force`, missing or unwritable directory, `PATH` a directory; and
    /// [`StoreError::Locked`] when another run is writing the same `PATH` (its `.partial` is
    /// left as it is). `PATH` is checked again once the lock is held, so a run that finished
    /// meanwhile is not overwritten without `force`.
    pub fn create(path: impl AsRef<Path>, force: bool) -> Result<H5Out, StoreError> {
        let path = path.as_ref().to_path_buf();
        check_output_path(&path, force)?;
        let mut partial = path.clone().into_os_string();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let lock = lock_partial(&path, &partial)?;
        // From here the `.partial` is ours: an error removes it (and then drops the lock).
        let mut out = H5Out {
            file: None,
            path,
            partial,
            lock: Some(lock),
            // A stop that came before the write is the run's own (it is writing its partial
            // result, marked incomplete, on purpose): only a stop during the write ends it.
            cancel: WRITE_STOP
                .get()
                .filter(|c| !c.is_set())
                .cloned()
                .unwrap_or_default(),
            image: None,
        };
        check_output_path(&out.path, force)?;
        // Strong close degree: closing the file closes every handle into it, so the rename
        // in `finish` never races with data still to be flushed.
        // The 1.8 object format at the least: an attribute too large for an object header
        // (a spec of 10⁶ angles in `spec`, a 10⁴-link equilibrium label) then moves to dense
        // storage instead of failing with "object header message is too large" after the run.
        // HDF5's own file lock is off where ours is taken: it comes after the file is
        // truncated (so a loser truncated the winner's file before failing), and it would
        // conflict with ours.
        let file = File::with_options()
            .with_fapl(|fapl| {
                let fapl = fapl.fclose_degree(FileCloseDegree::Strong).libver_v18();
                if cfg!(unix) {
                    fapl.file_locking(false)
                } else {
                    fapl
                }
            })
            .create(&out.partial)
            .map_err(|source| StoreError::Hdf5 {
                what: format!("creating {}", out.partial.display()),
                source,
            })?;
        out.file = Some(file);
        Ok(out)
    }

    /// An image in memory of the file the writers would write: same groups, variables,
    /// dims and attributes, no file. [`into_memory`](H5Out::into_memory) gives it.
    pub fn memory() -> H5Out {
        H5Out {
            file: None,
            path: PathBuf::new(),
            partial: PathBuf::new(),
            lock: None,
            cancel: Cancel::never(),
            image: Some(RefCell::new(Image::new())),
        }
    }

    /// The final path, written by [`finish`](H5Out::finish) (empty for an image).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `.partial` path being written now (empty for an image).
    pub fn partial_path(&self) -> &Path {
        &self.partial
    }

    fn at_root(&self) -> Result<At<'_>, StoreError> {
        if let Some(image) = &self.image {
            return Ok(At::Mem(image, 0));
        }
        let file = self
            .file
            .as_ref()
            .expect("H5Out file is open until finish or drop");
        let group = file.group("/").map_err(|source| StoreError::Hdf5 {
            what: "opening the root group".into(),
            source,
        })?;
        Ok(At::File(group, &self.cancel))
    }

    /// The root group: for file-wide attributes such as `title`.
    pub fn root(&self) -> Result<GroupWriter<'_>, StoreError> {
        Ok(GroupWriter {
            at: self.at_root()?,
        })
    }

    /// Creates the top-level group `name` (one path component; nest with
    /// [`GroupWriter::group`]).
    pub fn group(&self, name: &str) -> Result<GroupWriter<'_>, StoreError> {
        self.root()?.group(name)
    }

    /// Writes the run's `title` and `p` as root attributes: `pendula_version`, `git_commit`
    /// (`"unknown"` outside git), `command_line`, `spec`, `created_utc`, and the CF globals
    /// `Conventions`, `source` and `history`. Every result file starts with these.
    pub fn provenance(&self, p: &Provenance, title: &str) -> Result<(), StoreError> {
        let root = self.root()?;
        root.attr_str("Conventions", "CF-1.8")?
            .attr_str("source", &format!("pendula {}", p.pendula_version))?
            .attr_str("history", &format!("{} {}", p.created_utc, p.command_line))?
            .attr_str("pendula_version", &p.pendula_version)?
            .attr_str("git_commit", p.git_commit.as_deref().unwrap_or("unknown"))?
            .attr_str("command_line", &p.command_line)?
            .attr_str("spec", &p.spec_text)?
            .attr_str("created_utc", &p.created_utc)?
            .attr_str("title", title)?;
        Ok(())
    }

    /// Closes the file and renames `PATH.partial` to `PATH` (atomic on one file system),
    /// returning `PATH`. On failure the `.partial` is deleted. An image is dropped.
    pub fn finish(mut self) -> Result<PathBuf, StoreError> {
        let Some(file) = self.file.take() else {
            return Ok(PathBuf::new());
        };
        file.close().map_err(|source| StoreError::Hdf5 {
            what: format!("closing {}", self.partial.display()),
            source,
        })?;
        fs::rename(&self.partial, &self.path).map_err(|source| StoreError::Io {
            path: self.path.clone(),
            what: format!("renaming {} to", self.partial.display()),
            source,
        })?;
        // Renamed: nothing left for `drop` to delete; the lock goes with `self`.
        self.partial = PathBuf::new();
        Ok(self.path.clone())
    }

    /// The image of [`H5Out::memory`] as a tree from its root group (None for a file).
    pub fn into_memory(mut self) -> Option<MemGroup> {
        self.image.take().map(|i| i.into_inner().into_tree())
    }
}

impl Drop for H5Out {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.partial.as_os_str().is_empty() {
            // Nothing to report to: the error that brought us here is the one that matters.
            let _ = fs::remove_file(&self.partial);
        }
        // Unlocked only once the `.partial` is gone or renamed.
        drop(self.lock.take());
    }
}

/// Where a writer writes: an HDF5 group, or group `usize` of an image.
#[derive(Debug)]
enum At<'f> {
    /// The group, and the stop its datasets' writes poll ([`stop_writes_with`]).
    File(Group, &'f Cancel),
    Mem(&'f RefCell<Image>, usize),
}

/// A group being written; borrows its [`H5Out`].
#[derive(Debug)]
pub struct GroupWriter<'f> {
    at: At<'f>,
}

/// A dataset just written (variable or coordinate), for adding attributes.
#[derive(Debug)]
pub struct Var<'f> {
    at: VarAt<'f>,
}

#[derive(Debug)]
enum VarAt<'f> {
    File(Dataset, PhantomData<&'f H5Out>),
    /// Variable `.2` of group `.1`.
    Mem(&'f RefCell<Image>, usize, usize),
}

/// An HDF5 error as one line (HDF5 error stacks can span lines).
pub(crate) fn one_line(e: &hdf5::Error) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn hdf5_ctx<'a>(what: impl FnOnce() -> String + 'a) -> impl FnOnce(hdf5::Error) -> StoreError + 'a {
    move |source| StoreError::Hdf5 {
        what: what(),
        source,
    }
}
