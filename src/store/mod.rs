//! Where results go: HDF5 files that netCDF tools, h5py and xarray read directly.
//!
//! Every analysis writes its result struct through the same small writer, so every file
//! has the same shape: groups of CF-style variables with named dimensions (HDF5
//! dimension scales), `units`/`long_name` on each variable, every run parameter as an
//! attribute, and provenance at the root.
//!
//! Failure never leaves a file that looks complete: the CLI calls
//! [`check_output_path`] (or [`prepare_output`]) before any work, and [`write_file`] (through
//! [`H5Out`]) writes `PATH.partial` and renames it to `PATH` only when the whole body has
//! succeeded; dropped unfinished (an error, a panic) it deletes the `.partial`.
//!
//! ```no_run
//! # fn main() -> Result<(), pendula::store::StoreError> {
//! use ndarray::Array2;
//! use pendula::store::{check_output_path, write_file, Provenance};
//! use std::path::Path;
//!
//! let path = Path::new("run.h5");
//! check_output_path(path, false)?; // before the work
//! let theta = Array2::<f64>::zeros((5, 3));
//! let prov = Provenance::now("pendula simulate run.toml", "[chain]\nlinks = 3\n");
//! let written = write_file(path, false, &prov, "a run", |out| {
//!     let g = out.group("trajectory")?;
//!     g.coord("time", &[0.0, 0.1, 0.2, 0.3, 0.4], "s", "time")?;
//!     g.coord_i64("link", &[1, 2, 3], "1", "link index")?;
//!     g.var("theta", &["time", "link"], &theta, "rad", "link angle from the downward vertical")?;
//!     g.attr_f64("dt", 0.1)?;
//!     Ok(())
//! })?;
//! # let _ = written; Ok(()) }
//! ```

pub mod dimscale;
mod h5;
pub mod memory;

pub use h5::{open_input, stop_writes_with, GroupWriter, H5Out, Tile, Var};

pub mod map;
mod results;
pub use results::{method_attrs, write_method, write_model};

pub mod cart;
mod record;
pub use record::{write_entries, write_record};
mod measure;
pub use measure::{
    chaotic_record, measure_record, read_labels, sweep_record, write_chaotic_fraction,
    write_measure, ChaoticRun, LabelData, SweepRun, CHAOTIC_SAMPLING,
};

use crate::error::FieldError;
use crate::integrate::Method;
use crate::model::Chain;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Writes a new result file at `path`: provenance and `title` at the root, then whatever
/// `body` adds (the result writers: [`write_record`], …). Atomic: written as `PATH.partial` and renamed when `body`
/// succeeds; on an error the `.partial` is removed and nothing is left at `path`.
///
/// Errors: [`StoreError::Exists`] when `path` exists and not `force`, and any error of `body`
/// or of the file system. Returns the path written.
pub fn write_file(
    path: &Path,
    force: bool,
    prov: &Provenance,
    title: &str,
    body: impl FnOnce(&H5Out) -> Result<(), StoreError>,
) -> Result<PathBuf, StoreError> {
    let out = H5Out::create(path, force)?;
    out.provenance(prov, title)?;
    body(&out)?;
    out.finish()
}

/// The image in memory of the file [`write_file`] would write (provenance and `title` at the
/// root, then `body`), for callers that hand the arrays on instead of storing them (the
/// Python package).
pub fn write_memory(
    prov: &Provenance,
    title: &str,
    body: impl FnOnce(&H5Out) -> Result<(), StoreError>,
) -> Result<memory::MemGroup, StoreError> {
    let out = H5Out::memory();
    out.provenance(prov, title)?;
    body(&out)?;
    Ok(out.into_memory().expect("a memory image"))
}

/// What a result group records about its run besides the result: the run's title, the
/// model's name and parameters, the integration method and the initial state.
#[derive(Debug, Clone, Copy)]
pub struct RunInfo<'a> {
    pub title: &'a str,
    /// Preset name or "custom".
    pub model_name: &'a str,
    pub chain: &'a Chain,
    pub method: &'a Method,
    /// Initial state (θ, θ̇).
    pub x0: &'a [f64],
}

/// Errors of the store layer; each names the file or object and what was being done.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The output exists and overwriting was not asked for.
    #[error("output file {path} already exists (use --force to overwrite it)")]
    Exists { path: PathBuf },
    /// The output path names a directory.
    #[error("output path {path} is a directory, not a file")]
    IsDirectory { path: PathBuf },
    /// The directory that should hold the output does not exist or is not a directory.
    #[error("cannot write {path}: directory {dir} {what}")]
    BadParent {
        path: PathBuf,
        dir: PathBuf,
        what: String,
    },
    /// A folder above the output could not be created.
    #[error("cannot create folder `{}`: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A file-system operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        path: PathBuf,
        what: String,
        #[source]
        source: io::Error,
    },
    /// An HDF5 call failed.
    #[error("HDF5 error while {what}: {source}")]
    Hdf5 {
        what: String,
        #[source]
        source: hdf5::Error,
    },
    /// A variable's dimensions do not match its data or the group's coordinates.
    #[error("variable {var}: {what}")]
    Dims { var: String, what: String },
    /// A file read as input is not what it claims (a map file's header, a shard's tiles).
    #[error("{}: {what}", path.display())]
    BadFile { path: PathBuf, what: String },
    /// Another run holds the lock on the output's `.partial`: it is writing the same file.
    #[error(
        "cannot write {}: another run is writing it (it holds the lock on {}); wait for it or choose another output",
        path.display(),
        partial.display()
    )]
    Locked { path: PathBuf, partial: PathBuf },
    /// A stop request (Ctrl-C, SIGTERM) came while the file was being written: its `.partial`
    /// is removed, nothing is left at the output path.
    #[error("interrupted while {what}: the unfinished file was removed, nothing was written")]
    Interrupted { what: String },
    /// A group, variable or attribute name that cannot be used.
    #[error("invalid name {name:?}: {what}")]
    Name { name: String, what: String },
    /// A file read as input needs more memory than the budget it is read within: `what` names
    /// the budget as a field ([`crate::limits::MEMORY_BUDGET`]), which each front end spells
    /// its own way ([`StoreError::render`]; the CLI `--max-memory`).
    #[error("{}: {what}", path.display())]
    OverBudget { path: PathBuf, what: FieldError },
}

impl StoreError {
    /// The message, the fields it names spelt by `name` (a front end's spelling).
    pub fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            StoreError::OverBudget { path, what } => {
                format!("{}: {}", path.display(), what.render(name))
            }
            e => e.to_string(),
        }
    }

    /// This error as bad input about `field` (a file given as input), the fields its message
    /// names kept as data.
    pub fn refusal(&self, field: &str) -> FieldError {
        match self {
            StoreError::OverBudget { path, what } => {
                FieldError::new(field, format!("{}: ", path.display())).then(what)
            }
            e => FieldError::new(field, e.to_string()),
        }
    }
}

impl From<hdf5::Error> for StoreError {
    fn from(source: hdf5::Error) -> Self {
        StoreError::Hdf5 {
            what: "writing".into(),
            source,
        }
    }
}

/// Creates the missing folders above `path`, then checks it like [`check_output_path`].
pub fn prepare_output(path: &Path, force: bool) -> Result<(), StoreError> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() && !parent.exists() {
            fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
                dir: parent.to_path_buf(),
                source,
            })?;
        }
    }
    check_output_path(path, force)
}

/// Checks, before any work, that `path` can be written as a new result file.
///
/// Refuses a directory, an existing file unless `force`, and a parent directory that is
/// missing, not a directory, or not writable (probed by creating and removing a hidden
/// empty file, which also catches read-only file systems and works for root). Removes
/// nothing that was there before.
pub fn check_output_path(path: &Path, force: bool) -> Result<(), StoreError> {
    if path.is_dir() {
        return Err(StoreError::IsDirectory { path: path.into() });
    }
    if path.exists() && !force {
        return Err(StoreError::Exists { path: path.into() });
    }
    let Some(file_name) = path.file_name() else {
        return Err(StoreError::Name {
            name: path.display().to_string(),
            what: "output path has no file name".into(),
        });
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let bad = |what: &str| StoreError::BadParent {
        path: path.into(),
        dir: dir.clone(),
        what: what.into(),
    };
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(bad("is not a directory")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(bad("does not exist")),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            return Err(bad("is not a directory"))
        }
        Err(e) => return Err(bad(&format!("cannot be inspected ({e})"))),
    }
    let probe = dir.join(format!(
        ".{}.pendula-probe-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(f) => {
            drop(f);
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(bad(&format!("is not writable ({e})"))),
    }
}

/// Where a result came from, written as root attributes by [`H5Out::provenance`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// `CARGO_PKG_VERSION` of the pendula that wrote the file.
    pub pendula_version: String,
    /// `git rev-parse HEAD` at build time; `None` for a build outside git.
    pub git_commit: Option<String>,
    /// The command line as the user typed it (the CLI joins its arguments).
    pub command_line: String,
    /// The full validated spec (TOML), so the run can be repeated from the file alone.
    pub spec_text: String,
    /// Creation time, UTC, RFC 3339 to the second (`2025-01-31T12:00:00Z`).
    pub created_utc: String,
}

impl Provenance {
    /// Provenance for a run starting now, with this build's version and commit.
    pub fn now(command_line: impl Into<String>, spec_text: impl Into<String>) -> Self {
        Provenance {
            pendula_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: build_git_commit().map(str::to_string),
            command_line: command_line.into(),
            spec_text: spec_text.into(),
            created_utc: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                .to_string(),
        }
    }
}

/// The git commit this crate was built from (embedded by `build.rs`), if known; `-dirty`
/// appended when the sources built differed from it.
pub fn build_git_commit() -> Option<&'static str> {
    option_env!("PENDULA_GIT_COMMIT")
}
