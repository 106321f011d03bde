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

/// Chunks are at most this many bytes: the default HDF5 chunk cache is 1 MiB, so a whole
/// chunk fits in it, and it is large enough for deflate to work well.
const CHUNK_TARGET_BYTES: usize = 1 << 20;
/// zlib level 4: close to level 9 in size on floating-point data, much faster.
const DEFLATE_LEVEL: u8 = 4;

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

/// Refuses, before anything opens it, an input path that is not a readable regular file: a
/// FIFO (opening one blocks until a writer comes, which may be never), a socket, a device or a
/// directory. One line naming the file and what it is.
pub fn check_input_file(path: &Path) -> Result<(), StoreError> {
    let bad = |what: String| StoreError::BadFile {
        path: path.to_path_buf(),
        what,
    };
    let meta = fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad("no such file".into()),
        std::io::ErrorKind::PermissionDenied => bad("cannot be read (permission denied)".into()),
        _ => bad(format!("cannot be read ({e})")),
    })?;
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        if t.is_dir() {
            "a directory"
        } else if t.is_fifo() {
            "a FIFO (named pipe)"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_block_device() || t.is_char_device() {
            "a device"
        } else {
            "a special file"
        }
    };
    #[cfg(not(unix))]
    let what = if t.is_dir() {
        "a directory"
    } else {
        "a special file"
    };
    Err(bad(format!("is {what}, not a regular file")))
}

/// Opens the HDF5 file `path` for reading, after [`check_input_file`]; a file that is not
/// HDF5 (or is truncated) is refused in one line naming it.
pub fn open_input(path: &Path) -> Result<File, StoreError> {
    check_input_file(path)?;
    File::open(path).map_err(|e| {
        let text = one_line(&e);
        let what = if text.contains("file signature not found") {
            "is not an HDF5 file (no HDF5 signature)".to_string()
        } else {
            format!("cannot be opened as HDF5 ({text})")
        };
        StoreError::BadFile {
            path: path.to_path_buf(),
            what,
        }
    })
}

fn check_name(name: &str) -> Result<(), StoreError> {
    let what = if name.is_empty() {
        "empty"
    } else if name.contains('/') {
        "contains '/' (nest groups with .group() instead)"
    } else if name.contains('\0') {
        "contains a NUL byte"
    } else if name == "." {
        "is '.'"
    } else {
        return Ok(());
    };
    Err(StoreError::Name {
        name: name.into(),
        what: what.into(),
    })
}

/// Chunk shape for `shape`: the whole array if it is at most [`CHUNK_TARGET_BYTES`],
/// otherwise the longest axis is halved until it fits. Keeping whole rows of short axes
/// (links, exponents) in one chunk suits reading a time series or a map at once.
fn chunk_shape(shape: &[usize], elem_bytes: usize) -> Vec<usize> {
    let mut c = shape.to_vec();
    let bytes = |c: &[usize]| c.iter().product::<usize>() * elem_bytes.max(1);
    while bytes(&c) > CHUNK_TARGET_BYTES {
        let (i, &longest) = c
            .iter()
            .enumerate()
            .max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i)))
            .expect("non-empty shape: 0-d data is never chunked");
        if longest <= 1 {
            break;
        }
        c[i] = longest.div_ceil(2);
    }
    c
}

/// Writes `data` as dataset `name` of `group`: chunked, shuffled and deflated unless it is
/// 0-d or empty (which HDF5 cannot chunk usefully), or deflate is unavailable.
///
/// Data of more than one chunk along its first axis is written band of chunks by band,
/// polling `cancel` before each band: a stop request ends a long write (a 10⁶-sample
/// trajectory takes seconds to compress) within one band, with [`StoreError::Interrupted`].
fn write_dataset<T: H5Type + Clone, D: Dimension>(
    group: &Group,
    name: &str,
    data: ArrayView<'_, T, D>,
    cancel: &Cancel,
) -> Result<Dataset, StoreError> {
    let shape = data.shape().to_vec();
    let data = data.as_standard_layout();
    let what = || {
        format!(
            "writing dataset {}/{name}",
            group.name().trim_end_matches('/')
        )
    };
    let interrupted = || StoreError::Interrupted { what: what() };
    if cancel.is_set() {
        return Err(interrupted());
    }
    let compress = !shape.is_empty() && shape.iter().all(|&n| n > 0);
    if !(compress && hdf5::filters::deflate_available()) {
        return group
            .new_dataset_builder()
            .with_data(data.view())
            .create(name)
            .map_err(hdf5_ctx(what));
    }
    let chunk = chunk_shape(&shape, std::mem::size_of::<T>());
    if chunk[0] >= shape[0] {
        return group
            .new_dataset_builder()
            .with_data(data.view())
            .chunk(chunk)
            .shuffle()
            .deflate(DEFLATE_LEVEL)
            .create(name)
            .map_err(hdf5_ctx(what));
    }
    let ds = group
        .new_dataset::<T>()
        .shape(shape.as_slice())
        .chunk(chunk.as_slice())
        .shuffle()
        .deflate(DEFLATE_LEVEL)
        .create(name)
        .map_err(hdf5_ctx(what))?;
    // A band of four whole chunks (about 4 MiB): a poll every few tens of milliseconds.
    let band = 4 * chunk[0];
    let mut r0 = 0;
    while r0 < shape[0] {
        if cancel.is_set() {
            return Err(interrupted());
        }
        let r1 = (r0 + band).min(shape[0]);
        let mut sel: Vec<hdf5::SliceOrIndex> = vec![(r0..r1).into()];
        sel.extend(shape[1..].iter().map(|&n| hdf5::SliceOrIndex::from(0..n)));
        ds.write_slice(
            data.slice_axis(ndarray::Axis(0), (r0..r1).into()),
            hdf5::Hyperslab::from(sel),
        )
        .map_err(hdf5_ctx(what))?;
        r0 = r1;
    }
    Ok(ds)
}

fn hdf5_ctx<'a>(what: impl FnOnce() -> String + 'a) -> impl FnOnce(hdf5::Error) -> StoreError + 'a {
    move |source| StoreError::Hdf5 {
        what: what(),
        source,
    }
}

/// Dataset `ds` with its axes attached to the coordinates `scales`, as a variable.
fn attached<'f>(ds: Dataset, scales: &[Dataset]) -> Result<Var<'f>, StoreError> {
    for (i, scale) in scales.iter().enumerate() {
        dimscale::attach_scale(&ds, scale, i)?;
    }
    Ok(Var {
        at: VarAt::File(ds, PhantomData),
    })
}

/// `var` added to image group `i` as a variable, refused when its name is taken (as HDF5
/// refuses it).
fn mem_var(image: &RefCell<Image>, i: usize, var: MemVar) -> Result<Var<'_>, StoreError> {
    let mut im = image.borrow_mut();
    let name = var.name.clone();
    match im.add_var(i, var) {
        Some(v) => Ok(Var {
            at: VarAt::Mem(image, i, v),
        }),
        None => Err(StoreError::Name {
            what: format!("already exists in {}", im.path(i)),
            name,
        }),
    }
}

/// The elements of `data` in row-major order.
fn row_major<T: Clone, D: Dimension>(data: &ArrayView<'_, T, D>) -> Vec<T> {
    match data.as_slice() {
        Some(s) => s.to_vec(),
        None => data.iter().cloned().collect(),
    }
}

impl<'f> GroupWriter<'f> {
    /// The group's path in the file, e.g. `/trajectory` (an image's subgroup: its name).
    pub fn name(&self) -> String {
        match &self.at {
            At::File(g, _) => g.name(),
            At::Mem(image, i) => image.borrow().path(*i),
        }
    }

    /// Creates the subgroup `name` (one path component).
    pub fn group(&self, name: &str) -> Result<GroupWriter<'f>, StoreError> {
        check_name(name)?;
        let at = match &self.at {
            At::File(g, cancel) => {
                let group = g.create_group(name).map_err(hdf5_ctx(|| {
                    format!("creating group {name} in {}", g.name())
                }))?;
                At::File(group, cancel)
            }
            At::Mem(image, i) => {
                let added = image.borrow_mut().add_group(*i, name);
                let k = added.ok_or_else(|| StoreError::Name {
                    name: name.into(),
                    what: format!("already exists in {}", self.name()),
                })?;
                At::Mem(image, k)
            }
        };
        Ok(GroupWriter { at })
    }

    /// Writes a floating-point coordinate: a 1-D variable that is also the dimension
    /// `name` (an HDF5 dimension scale), which later variables in this group name.
    pub fn coord(
        &self,
        name: &str,
        values: &[f64],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        self.coord_of(name, values, units, long_name)
    }

    /// Writes an integer coordinate, e.g. link indices `1..=n` (`units = "1"`).
    pub fn coord_i64(
        &self,
        name: &str,
        values: &[i64],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        self.coord_of(name, values, units, long_name)
    }

    /// Writes a coordinate of any element type (see [`coord`](GroupWriter::coord)).
    pub fn coord_of<T: Elem>(
        &self,
        name: &str,
        values: &[T],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        check_name(name)?;
        let var = match &self.at {
            At::File(g, cancel) => {
                let ds = write_dataset(g, name, ArrayView::from(values), cancel)?;
                dimscale::set_scale(&ds, name)?;
                Var {
                    at: VarAt::File(ds, PhantomData),
                }
            }
            At::Mem(image, i) => {
                mem_var(image, *i, MemVar::coord(name, T::values(values.to_vec())))?
            }
        };
        var.described(units, long_name)
    }

    /// Writes a run's initial state as the variable `initial_state` over its own coordinate
    /// `state_component` (1..=len): its length grows with the links, so it is a dataset, never
    /// an attribute (HDF5 caps an object header message at 64 KiB).
    pub fn initial_state(&self, x0: &[f64]) -> Result<(), StoreError> {
        let index: Vec<i64> = (1..=x0.len() as i64).collect();
        self.coord_i64(
            "state_component",
            &index,
            "1",
            "component of the state vector, in the model's coordinates (planar chain: theta_1..theta_N, then omega_1..omega_N)",
        )?;
        self.var(
            "initial_state",
            &["state_component"],
            x0,
            "1",
            "initial state in the model's coordinates (rad and rad/s for a planar chain)",
        )?;
        Ok(())
    }

    /// Checks that `dims` are coordinates of this group whose lengths are `shape`; returns
    /// the HDF5 scales to attach (none for an image).
    fn check_dims(
        &self,
        name: &str,
        dims: &[&str],
        shape: &[usize],
    ) -> Result<Vec<Dataset>, StoreError> {
        let group_name = self.name();
        let dims_err = |what: String| StoreError::Dims {
            var: format!("{}/{name}", group_name.trim_end_matches('/')),
            what,
        };
        if dims.len() != shape.len() {
            return Err(dims_err(format!(
                "{} dimension names {dims:?} for {}-d data of shape {shape:?}",
                dims.len(),
                shape.len(),
            )));
        }
        let not_coord = |dim: &str| {
            dims_err(format!(
                "dimension {dim:?} is not a coordinate of group {group_name} (write it with .coord first)"
            ))
        };
        let bad_len = |i: usize, dim: &str, len: &[usize]| {
            dims_err(format!(
                "axis {i} has length {} but coordinate {dim:?} has shape {len:?}",
                shape[i]
            ))
        };
        let mut scales = Vec::with_capacity(dims.len());
        for (i, &dim) in dims.iter().enumerate() {
            if dim.is_empty() || dim.contains('/') {
                return Err(not_coord(dim));
            }
            match &self.at {
                At::File(g, _) => {
                    if !g.link_exists(dim) {
                        return Err(not_coord(dim));
                    }
                    let scale = g
                        .dataset(dim)
                        .map_err(hdf5_ctx(|| format!("opening coordinate {dim}")))?;
                    if !dimscale::is_scale(&scale)? {
                        return Err(dims_err(format!("{dim:?} is a variable, not a coordinate")));
                    }
                    let len = scale.shape();
                    if len.len() != 1 || len[0] != shape[i] {
                        return Err(bad_len(i, dim, &len));
                    }
                    scales.push(scale);
                }
                At::Mem(image, k) => {
                    let im = image.borrow();
                    let Some(v) = im.group(*k).var(dim) else {
                        return Err(not_coord(dim));
                    };
                    if !v.coord {
                        return Err(dims_err(format!("{dim:?} is a variable, not a coordinate")));
                    }
                    if v.shape != [shape[i]] {
                        return Err(bad_len(i, dim, &v.shape));
                    }
                }
            }
        }
        Ok(scales)
    }

    /// Writes a variable whose axes are the coordinates `dims` of this group, in order.
    ///
    /// Each dimension must already exist here as a coordinate of the same length; the
    /// dataset's axis `i` is attached to the scale `dims[i]`, so netCDF tools see named
    /// dimensions. `units` and `long_name` follow CF (`"1"` for dimensionless). Any
    /// element type works (f64, i64, i32, u8, …); any layout (copied if not contiguous).
    pub fn var<'d, T, D>(
        &self,
        name: &str,
        dims: &[&str],
        data: impl Into<ArrayView<'d, T, D>>,
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError>
    where
        T: Elem + 'd,
        D: Dimension,
    {
        check_name(name)?;
        let data = data.into();
        let scales = self.check_dims(name, dims, data.shape())?;
        let var = match &self.at {
            At::File(g, cancel) => attached(write_dataset(g, name, data, cancel)?, &scales)?,
            At::Mem(image, i) => {
                let values = T::values(row_major(&data));
                mem_var(image, *i, MemVar::data(name, dims, data.shape(), values))?
            }
        };
        var.described(units, long_name)
    }

    /// Creates a variable of `shape` over `dims` (`fill` where nothing is written: HDF5
    /// allocates no chunk for it) to be filled row band by row band with [`Var::write_rows`],
    /// or tile by tile with [`Var::write_tiles`]: a map, chunked as `chunk` (its tile).
    #[allow(clippy::too_many_arguments)]
    pub fn var_rows<T: Elem>(
        &self,
        name: &str,
        dims: &[&str],
        shape: &[usize],
        chunk: &[usize],
        fill: T,
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        check_name(name)?;
        let scales = self.check_dims(name, dims, shape)?;
        let var = match &self.at {
            At::File(g, _) => {
                let chunk: Vec<usize> = chunk
                    .iter()
                    .zip(shape)
                    .map(|(&c, &n)| c.min(n).max(1))
                    .collect();
                let b = g
                    .new_dataset::<T>()
                    .shape(shape)
                    .chunk(chunk)
                    .fill_value(fill);
                let b = if hdf5::filters::deflate_available() {
                    b.shuffle().deflate(DEFLATE_LEVEL)
                } else {
                    b
                };
                let ds = b
                    .create(name)
                    .map_err(hdf5_ctx(|| format!("creating dataset {name}")))?;
                attached(ds, &scales)?
            }
            At::Mem(image, i) => {
                let filled = T::values(vec![fill; shape.iter().product()]);
                mem_var(image, *i, MemVar::data(name, dims, shape, filled))?
            }
        };
        var.described(units, long_name)
    }
}

impl<'f> Var<'f> {
    /// This variable with its CF `units` and `long_name` attributes.
    fn described(self, units: &str, long_name: &str) -> Result<Var<'f>, StoreError> {
        self.attr_str("units", units)?
            .attr_str("long_name", long_name)?;
        Ok(self)
    }

    /// The dataset's path in the file, e.g. `/trajectory/theta`.
    pub fn name(&self) -> String {
        match &self.at {
            VarAt::File(ds, _) => ds.name(),
            VarAt::Mem(image, g, v) => {
                let im = image.borrow();
                format!(
                    "{}/{}",
                    im.path(*g).trim_end_matches('/'),
                    im.group(*g).vars[*v].name
                )
            }
        }
    }

    /// Writes `band` as the rows from `r0` of a variable made by
    /// [`GroupWriter::var_rows`] (2-D or 3-D; the other axes whole).
    pub fn write_rows<T: Elem, D: Dimension>(
        &self,
        r0: usize,
        band: ArrayView<'_, T, D>,
    ) -> Result<(), StoreError> {
        let r1 = r0 + band.shape()[0];
        let what = || format!("writing rows {r0}..{r1} of {}", self.name());
        match &self.at {
            VarAt::File(ds, _) => {
                let res = if band.ndim() == 3 {
                    ds.write_slice(band, s![r0..r1, .., ..])
                } else {
                    ds.write_slice(band, s![r0..r1, ..])
                };
                res.map_err(hdf5_ctx(what))
            }
            VarAt::Mem(image, g, v) => {
                let fits = {
                    let im = image.borrow();
                    let var = &im.group(*g).vars[*v];
                    band.ndim() == var.shape.len()
                        && band.shape()[1..] == var.shape[1..]
                        && r1 <= var.shape[0]
                };
                let misfit = || StoreError::Dims {
                    var: what(),
                    what: format!("a band of shape {:?} does not fit", band.shape()),
                };
                if !fits {
                    return Err(misfit());
                }
                let mut im = image.borrow_mut();
                let var = &mut im.group_mut(*g).vars[*v];
                let row: usize = var.shape[1..].iter().product();
                let Some(slot) = T::slot(&mut var.values) else {
                    drop(im);
                    return Err(misfit());
                };
                for (dst, src) in slot[r0 * row..r1 * row].iter_mut().zip(band.iter()) {
                    *dst = *src;
                }
                Ok(())
            }
        }
    }
}

/// One tile of a variable made by [`GroupWriter::var_rows`]: its first row and column, its
/// size, and its values row-major over (rows, cols, the variable's other axes).
#[derive(Debug, Clone, Copy)]
pub struct Tile<'a, T> {
    pub r0: usize,
    pub c0: usize,
    pub rows: usize,
    pub cols: usize,
    pub data: &'a [T],
}

impl<'f> Var<'f> {
    /// Writes `tiles` of a variable made by [`GroupWriter::var_rows`] whose chunk is the tile:
    /// each tile is one chunk, shuffled and deflated as the dataset's filters say, on every
    /// thread of the pool at once, and written as it is with `H5Dwrite_chunk` (HDF5's filter
    /// pipeline would compress on this thread alone). Tiles not aligned to the chunks, or a
    /// dataset with other filters, are written through HDF5's own pipeline.
    pub fn write_tiles<T: Elem>(&self, tiles: &[Tile<'_, T>]) -> Result<(), StoreError> {
        let what = || format!("writing tiles of {}", self.name());
        match &self.at {
            VarAt::File(ds, _) => {
                let shape = ds.shape();
                let chunk = ds.chunk().unwrap_or_default();
                let rest: usize = shape.iter().skip(2).product();
                let plan = chunk_filters(ds);
                let aligned = chunk.len() == shape.len()
                    && shape.len() >= 2
                    && chunk[2..] == shape[2..]
                    && tiles.iter().all(|t| {
                        t.r0 % chunk[0] == 0
                            && t.c0 % chunk[1] == 0
                            && t.rows <= chunk[0]
                            && t.cols <= chunk[1]
                            && t.r0 + t.rows <= shape[0]
                            && t.c0 + t.cols <= shape[1]
                            && t.data.len() == t.rows * t.cols * rest
                    });
                let Some(level) = plan.filter(|_| aligned) else {
                    for t in tiles {
                        self.write_tile_slice(ds, t, &shape)
                            .map_err(hdf5_ctx(what))?;
                    }
                    return Ok(());
                };
                use rayon::prelude::*;
                let encoded: Vec<Vec<u8>> = tiles
                    .par_iter()
                    .map(|t| encode_chunk(t, &chunk, level))
                    .collect();
                for (t, bytes) in tiles.iter().zip(&encoded) {
                    let mut offset = vec![t.r0 as u64, t.c0 as u64];
                    offset.resize(shape.len(), 0);
                    write_raw_chunk(ds, &offset, bytes).map_err(hdf5_ctx(what))?;
                }
                Ok(())
            }
            VarAt::Mem(image, g, v) => {
                let mut im = image.borrow_mut();
                let var = &mut im.group_mut(*g).vars[*v];
                let (w, rest) = (var.shape[1], var.shape[2..].iter().product::<usize>());
                let h = var.shape[0];
                let Some(slot) = T::slot(&mut var.values) else {
                    drop(im);
                    return Err(StoreError::Dims {
                        var: what(),
                        what: "another element type".into(),
                    });
                };
                for t in tiles {
                    if t.r0 + t.rows > h
                        || t.c0 + t.cols > w
                        || t.data.len() != t.rows * t.cols * rest
                    {
                        return Err(StoreError::Dims {
                            var: what(),
                            what: format!(
                                "a {}x{} tile at ({}, {}) does not fit",
                                t.rows, t.cols, t.r0, t.c0
                            ),
                        });
                    }
                    let row = t.cols * rest;
                    for i in 0..t.rows {
                        let at = ((t.r0 + i) * w + t.c0) * rest;
                        slot[at..at + row].copy_from_slice(&t.data[i * row..(i + 1) * row]);
                    }
                }
                Ok(())
            }
        }
    }

    /// One tile through HDF5's filter pipeline.
    fn write_tile_slice<T: Elem>(
        &self,
        ds: &Dataset,
        t: &Tile<'_, T>,
        shape: &[usize],
    ) -> hdf5::Result<()> {
        let mut dims = vec![t.rows, t.cols];
        dims.extend_from_slice(&shape[2..]);
        let a = ndarray::ArrayView::from_shape(ndarray::IxDyn(&dims), t.data)
            .map_err(|e| hdf5::Error::Internal(e.to_string()))?;
        let (r, c) = (t.r0..t.r0 + t.rows, t.c0..t.c0 + t.cols);
        if shape.len() == 3 {
            let a = a.into_dimensionality::<ndarray::Ix3>().expect("3-D");
            ds.write_slice(a, s![r, c, ..])
        } else {
            let a = a.into_dimensionality::<ndarray::Ix2>().expect("2-D");
            ds.write_slice(a, s![r, c])
        }
    }
}

/// The deflate level of a dataset whose filters are exactly shuffle then deflate (what
/// [`GroupWriter::var_rows`] sets), `Some(0)` for no filters (chunks stored raw), else `None`.
fn chunk_filters(ds: &Dataset) -> Option<u8> {
    use hdf5::filters::Filter;
    match ds.filters().as_slice() {
        [] => Some(0),
        [Filter::Shuffle, Filter::Deflate(level)] => Some((*level).max(1)),
        _ => None,
    }
}

/// Tile `t` as the stored bytes of a chunk of shape `chunk` (padded with zeros past the
/// dataset's edge, which no reader sees): byte-shuffled and zlib-deflated at `level` as HDF5's
/// shuffle and deflate filters do, or raw for `level` 0.
fn encode_chunk<T: Elem>(t: &Tile<'_, T>, chunk: &[usize], level: u8) -> Vec<u8> {
    use std::io::Write;
    let n: usize = chunk.iter().product();
    let rest: usize = chunk[2..].iter().product();
    let size = std::mem::size_of::<T>();
    let mut padded = vec![T::default(); n];
    let (row, stride) = (t.cols * rest, chunk[1] * rest);
    for i in 0..t.rows {
        padded[i * stride..i * stride + row].copy_from_slice(&t.data[i * row..(i + 1) * row]);
    }
    let bytes: &[u8] = bytemuck::cast_slice(&padded);
    if level == 0 {
        return bytes.to_vec();
    }
    let mut shuffled = vec![0u8; bytes.len()];
    if size == 1 {
        shuffled.copy_from_slice(bytes);
    } else {
        for (i, e) in bytes.chunks_exact(size).enumerate() {
            for (b, &v) in e.iter().enumerate() {
                shuffled[b * n + i] = v;
            }
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(bytes.len() / 2 + 64),
        flate2::Compression::new(u32::from(level)),
    );
    // Writing into a Vec cannot fail.
    z.write_all(&shuffled).expect("deflating into memory");
    z.finish().expect("deflating into memory")
}

/// Stores `bytes` (already filtered) as the chunk at element offset `offset` of `ds`.
fn write_raw_chunk(ds: &Dataset, offset: &[u64], bytes: &[u8]) -> hdf5::Result<()> {
    let rc = hdf5::sync::sync(|| unsafe {
        // SAFETY: `offset` has one entry per dimension of `ds` and `bytes` outlives the call;
        // HDF5 copies the buffer into the file before returning.
        hdf5_sys::h5d::H5Dwrite_chunk(
            ds.id(),
            hdf5_sys::h5p::H5P_DEFAULT,
            0,
            offset.as_ptr(),
            bytes.len(),
            bytes.as_ptr().cast(),
        )
    });
    if rc < 0 {
        return Err(hdf5::Error::query().unwrap_or_else(|e| e));
    }
    Ok(())
}

impl VarAt<'_> {
    fn put(&self, name: &str, value: Attr) -> Result<(), StoreError> {
        match self {
            VarAt::File(ds, _) => put_file_attr(ds, name, &value),
            VarAt::Mem(image, g, v) => {
                let mut im = image.borrow_mut();
                put_mem_attr(&mut im.group_mut(*g).vars[*v].attrs, name, value)
            }
        }
    }
}

impl At<'_> {
    fn put(&self, name: &str, value: Attr) -> Result<(), StoreError> {
        match self {
            At::File(g, _) => put_file_attr(g, name, &value),
            At::Mem(image, i) => {
                put_mem_attr(&mut image.borrow_mut().group_mut(*i).attrs, name, value)
            }
        }
    }
}

fn attr_err(loc: &Location, name: &str) -> impl FnOnce(hdf5::Error) -> StoreError {
    let what = format!("writing attribute {name:?} on {}", loc.name());
    move |source| StoreError::Hdf5 { what, source }
}

fn check_attr_name(name: &str) -> Result<(), StoreError> {
    if name.is_empty() || name.contains('\0') {
        return Err(StoreError::Name {
            name: name.into(),
            what: "attribute names must be non-empty and free of NUL bytes".into(),
        });
    }
    Ok(())
}

fn put_scalar<T: H5Type>(loc: &Location, name: &str, value: &T) -> Result<(), StoreError> {
    loc.new_attr::<T>()
        .shape(())
        .create(name)
        .and_then(|a| a.write_scalar(value))
        .map_err(attr_err(loc, name))
}

fn put_array<T: H5Type>(loc: &Location, name: &str, values: &[T]) -> Result<(), StoreError> {
    loc.new_attr_builder()
        .with_data(values)
        .create(name)
        .map(|_| ())
        .map_err(attr_err(loc, name))
}

fn check_str(name: &str, value: &str) -> Result<(), StoreError> {
    if value.contains('\0') {
        return Err(StoreError::Name {
            name: name.into(),
            what: "string attribute value contains a NUL byte".into(),
        });
    }
    Ok(())
}

/// Writes `value` as attribute `name` of `loc`: strings as variable-length UTF-8 (which
/// h5py, netCDF and xarray read as `str`), booleans as `i8`.
fn put_file_attr(loc: &Location, name: &str, value: &Attr) -> Result<(), StoreError> {
    check_attr_name(name)?;
    match value {
        Attr::F64(v) => put_scalar(loc, name, v),
        Attr::I64(v) => put_scalar(loc, name, v),
        Attr::I8(v) => put_scalar(loc, name, v),
        Attr::Str(v) => {
            check_str(name, v)?;
            let v = VarLenUnicode::from_str(v).expect("checked: no NUL byte");
            put_scalar(loc, name, &v)
        }
        Attr::F64s(v) => put_array(loc, name, v),
        Attr::U8s(v) => put_array(loc, name, v),
    }
}

/// The image's attribute `name`, refused when already set (as HDF5 refuses it).
fn put_mem_attr(
    attrs: &mut Vec<(String, Attr)>,
    name: &str,
    value: Attr,
) -> Result<(), StoreError> {
    check_attr_name(name)?;
    if let Attr::Str(v) = &value {
        check_str(name, v)?;
    }
    if attrs.iter().any(|(k, _)| k == name) {
        return Err(StoreError::Name {
            name: name.into(),
            what: "attribute already exists".into(),
        });
    }
    attrs.push((name.into(), value));
    Ok(())
}

/// The attribute setters shared by groups and variables. Each returns `&Self` so calls
/// chain: `g.attr_f64("dt", 0.01)?.attr_i64("steps", 1000)?`.
macro_rules! attr_methods {
    () => {
        /// Sets a scalar `f64` attribute (a run parameter, a tolerance, …).
        pub fn attr_f64(&self, name: &str, value: f64) -> Result<&Self, StoreError> {
            self.at.put(name, Attr::F64(value))?;
            Ok(self)
        }

        /// Sets a scalar `i64` attribute (a count, a seed, …).
        pub fn attr_i64(&self, name: &str, value: i64) -> Result<&Self, StoreError> {
            self.at.put(name, Attr::I64(value))?;
            Ok(self)
        }

        /// Sets a string attribute, stored as a variable-length UTF-8 string, which h5py,
        /// netCDF and xarray all read as a Python `str`.
        pub fn attr_str(&self, name: &str, value: &str) -> Result<&Self, StoreError> {
            self.at.put(name, Attr::Str(value.into()))?;
            Ok(self)
        }

        /// Sets a 1-D `f64` array attribute (link lengths, masses, …).
        pub fn attr_f64s(&self, name: &str, values: &[f64]) -> Result<&Self, StoreError> {
            self.at.put(name, Attr::F64s(values.to_vec()))?;
            Ok(self)
        }

        /// Sets a 1-D `u8` array attribute (a class variable's CF `flag_values`).
        pub fn attr_u8s(&self, name: &str, values: &[u8]) -> Result<&Self, StoreError> {
            self.at.put(name, Attr::U8s(values.to_vec()))?;
            Ok(self)
        }

        /// Sets a boolean attribute, stored as an `i8` 0 or 1: netCDF has no boolean type
        /// and `i8` is its classic `byte`, readable everywhere.
        pub fn attr_bool(&self, name: &str, value: bool) -> Result<&Self, StoreError> {
            self.at.put(name, Attr::I8(i8::from(value)))?;
            Ok(self)
        }
    };
}

impl GroupWriter<'_> {
    attr_methods!();
}

impl Var<'_> {
    attr_methods!();
}

#[cfg(test)]
mod tests {
    use super::chunk_shape;

    #[test]
    fn small_arrays_are_one_chunk() {
        assert_eq!(chunk_shape(&[5, 3], 8), vec![5, 3]);
        assert_eq!(chunk_shape(&[1], 8), vec![1]);
    }

    #[test]
    fn long_series_keep_short_axes_whole() {
        let c = chunk_shape(&[1_000_000, 3], 8);
        assert_eq!(c[1], 3);
        assert!(c[0] * 3 * 8 <= super::CHUNK_TARGET_BYTES);
        assert!(c[0] * 3 * 8 > super::CHUNK_TARGET_BYTES / 2);
    }

    #[test]
    fn square_maps_are_split_on_both_axes() {
        let c = chunk_shape(&[2000, 2000], 8);
        assert!(c.iter().product::<usize>() * 8 <= super::CHUNK_TARGET_BYTES);
        assert!(c[0] < 2000 && c[1] < 2000);
    }
}
