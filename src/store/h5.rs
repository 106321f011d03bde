//! The HDF5 writer: [`H5Out`] (the file), [`GroupWriter`] (a group) and [`Var`] (a
//! variable or coordinate, for adding attributes).

use std::fs;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use hdf5::file::FileCloseDegree;
use hdf5::types::VarLenUnicode;
use hdf5::{Dataset, File, Group, H5Type, Location};
use ndarray::{ArrayView, Dimension};

use super::{check_output_path, dimscale, Provenance, StoreError};

/// Chunks are at most this many bytes: the default HDF5 chunk cache is 1 MiB, so a whole
/// chunk fits in it, and it is large enough for deflate to work well.
const CHUNK_TARGET_BYTES: usize = 1 << 20;
/// zlib level 4: close to level 9 in size on floating-point data, much faster.
const DEFLATE_LEVEL: u8 = 4;

/// An HDF5 result file being written to `PATH.partial`.
///
/// [`finish`](H5Out::finish) closes it and renames it to `PATH`; dropping it unfinished
/// deletes the `.partial`, so an error or panic never leaves a file that looks complete.
/// Group and variable writers borrow it, so none can outlive the file.
#[derive(Debug)]
pub struct H5Out {
    file: Option<File>,
    path: PathBuf,
    partial: PathBuf,
}

impl H5Out {
    /// Creates `PATH.partial` (truncating a stale one from a crashed run).
    ///
    /// Runs [`check_output_path`] first, so the same errors as there: existing `PATH`
    /// without `force`, missing or unwritable directory, `PATH` a directory.
    pub fn create(path: impl AsRef<Path>, force: bool) -> Result<H5Out, StoreError> {
        let path = path.as_ref().to_path_buf();
        check_output_path(&path, force)?;
        let mut partial = path.clone().into_os_string();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        // Strong close degree: closing the file closes every handle into it, so the rename
        // in `finish` never races with data still to be flushed.
        // The 1.8 object format at the least: an attribute too large for an object header
        // (a spec of 10⁶ angles in `spec`, a 10⁴-link equilibrium label) then moves to dense
        // storage instead of failing with "object header message is too large" after the run.
        let file = File::with_options()
            .with_fapl(|fapl| fapl.fclose_degree(FileCloseDegree::Strong).libver_v18())
            .create(&partial)
            .map_err(|source| StoreError::Hdf5 {
                what: format!("creating {}", partial.display()),
                source,
            })?;
        Ok(H5Out {
            file: Some(file),
            path,
            partial,
        })
    }

    /// The final path, written by [`finish`](H5Out::finish).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `.partial` path being written now.
    pub fn partial_path(&self) -> &Path {
        &self.partial
    }

    fn file(&self) -> &File {
        self.file
            .as_ref()
            .expect("H5Out file is open until finish or drop")
    }

    /// The root group: for file-wide attributes such as `title`.
    pub fn root(&self) -> Result<GroupWriter<'_>, StoreError> {
        let group = self.file().group("/").map_err(|source| StoreError::Hdf5 {
            what: "opening the root group".into(),
            source,
        })?;
        Ok(GroupWriter {
            group,
            _file: PhantomData,
        })
    }

    /// Creates the top-level group `name` (one path component; nest with
    /// [`GroupWriter::group`]).
    pub fn group(&self, name: &str) -> Result<GroupWriter<'_>, StoreError> {
        self.root()?.group(name)
    }

    /// Writes `p` as root attributes: `pendula_version`, `git_commit` (`"unknown"` outside
    /// git), `command_line`, `spec`, `created_utc`, and the CF globals `Conventions`,
    /// `source` and `history`.
    pub fn provenance(&self, p: &Provenance) -> Result<(), StoreError> {
        let root = self.root()?;
        root.attr_str("Conventions", "CF-1.8")?
            .attr_str("source", &format!("pendula {}", p.pendula_version))?
            .attr_str("history", &format!("{} {}", p.created_utc, p.command_line))?
            .attr_str("pendula_version", &p.pendula_version)?
            .attr_str("git_commit", p.git_commit.as_deref().unwrap_or("unknown"))?
            .attr_str("command_line", &p.command_line)?
            .attr_str("spec", &p.spec_text)?
            .attr_str("created_utc", &p.created_utc)?;
        Ok(())
    }

    /// Closes the file and renames `PATH.partial` to `PATH` (atomic on one file system),
    /// returning `PATH`. On failure the `.partial` is deleted.
    pub fn finish(mut self) -> Result<PathBuf, StoreError> {
        let file = self.file.take().expect("H5Out file is open until finish");
        file.close().map_err(|source| StoreError::Hdf5 {
            what: format!("closing {}", self.partial.display()),
            source,
        })?;
        fs::rename(&self.partial, &self.path).map_err(|source| StoreError::Io {
            path: self.path.clone(),
            what: format!("renaming {} to", self.partial.display()),
            source,
        })?;
        // Renamed: nothing left for `drop` to delete.
        self.partial = PathBuf::new();
        Ok(self.path.clone())
    }
}

impl Drop for H5Out {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.partial.as_os_str().is_empty() {
            // Nothing to report to: the error that brought us here is the one that matters.
            let _ = fs::remove_file(&self.partial);
        }
    }
}

/// A group being written; borrows its [`H5Out`].
#[derive(Debug)]
pub struct GroupWriter<'f> {
    group: Group,
    _file: PhantomData<&'f H5Out>,
}

/// A dataset just written (variable or coordinate), for adding attributes.
#[derive(Debug)]
pub struct Var<'f> {
    ds: Dataset,
    _file: PhantomData<&'f H5Out>,
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
fn write_dataset<T: H5Type + Clone, D: Dimension>(
    group: &Group,
    name: &str,
    data: ArrayView<'_, T, D>,
) -> Result<Dataset, StoreError> {
    let shape = data.shape().to_vec();
    let data = data.as_standard_layout();
    let builder = group.new_dataset_builder().with_data(data.view());
    let compress = !shape.is_empty() && shape.iter().all(|&n| n > 0);
    let res = if compress && hdf5::filters::deflate_available() {
        builder
            .chunk(chunk_shape(&shape, std::mem::size_of::<T>()))
            .shuffle()
            .deflate(DEFLATE_LEVEL)
            .create(name)
    } else {
        builder.create(name)
    };
    res.map_err(|source| StoreError::Hdf5 {
        what: format!(
            "writing dataset {}/{name}",
            group.name().trim_end_matches('/')
        ),
        source,
    })
}

fn hdf5_ctx<'a>(what: impl FnOnce() -> String + 'a) -> impl FnOnce(hdf5::Error) -> StoreError + 'a {
    move |source| StoreError::Hdf5 {
        what: what(),
        source,
    }
}

impl<'f> GroupWriter<'f> {
    /// The HDF5 group itself, for writers that stream a large array slab by slab (map tiles).
    pub(crate) fn hdf5_group(&self) -> &Group {
        &self.group
    }

    /// The group's path in the file, e.g. `/trajectory`.
    pub fn name(&self) -> String {
        self.group.name()
    }

    /// Creates the subgroup `name` (one path component).
    pub fn group(&self, name: &str) -> Result<GroupWriter<'f>, StoreError> {
        check_name(name)?;
        let group = self.group.create_group(name).map_err(hdf5_ctx(|| {
            format!("creating group {name} in {}", self.group.name())
        }))?;
        Ok(GroupWriter {
            group,
            _file: PhantomData,
        })
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

    /// Writes a coordinate of any HDF5 element type (see [`coord`](GroupWriter::coord)).
    pub fn coord_of<T: H5Type + Clone>(
        &self,
        name: &str,
        values: &[T],
        units: &str,
        long_name: &str,
    ) -> Result<Var<'f>, StoreError> {
        check_name(name)?;
        let ds = write_dataset(&self.group, name, ArrayView::from(values))?;
        dimscale::set_scale(&ds, name)?;
        Var::described(ds, units, long_name)
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
        T: H5Type + Clone + 'd,
        D: Dimension,
    {
        check_name(name)?;
        let data = data.into();
        let dims_err = |what: String| StoreError::Dims {
            var: format!("{}/{name}", self.group.name().trim_end_matches('/')),
            what,
        };
        if dims.len() != data.ndim() {
            return Err(dims_err(format!(
                "{} dimension names {dims:?} for {}-d data of shape {:?}",
                dims.len(),
                data.ndim(),
                data.shape()
            )));
        }
        let mut scales = Vec::with_capacity(dims.len());
        for (i, &dim) in dims.iter().enumerate() {
            if dim.is_empty() || dim.contains('/') || !self.group.link_exists(dim) {
                return Err(dims_err(format!(
                    "dimension {dim:?} is not a coordinate of group {} (write it with .coord first)",
                    self.group.name()
                )));
            }
            let scale = self
                .group
                .dataset(dim)
                .map_err(hdf5_ctx(|| format!("opening coordinate {dim}")))?;
            if !dimscale::is_scale(&scale)? {
                return Err(dims_err(format!("{dim:?} is a variable, not a coordinate")));
            }
            let len = scale.shape();
            if len.len() != 1 || len[0] != data.shape()[i] {
                return Err(dims_err(format!(
                    "axis {i} has length {} but coordinate {dim:?} has shape {len:?}",
                    data.shape()[i]
                )));
            }
            scales.push(scale);
        }
        let ds = write_dataset(&self.group, name, data)?;
        for (i, scale) in scales.iter().enumerate() {
            dimscale::attach_scale(&ds, scale, i)?;
        }
        Var::described(ds, units, long_name)
    }
}

impl<'f> Var<'f> {
    /// A variable of dataset `ds`, with its CF `units` and `long_name` attributes.
    fn described(ds: Dataset, units: &str, long_name: &str) -> Result<Var<'f>, StoreError> {
        let var = Var {
            ds,
            _file: PhantomData,
        };
        var.attr_str("units", units)?
            .attr_str("long_name", long_name)?;
        Ok(var)
    }

    /// The dataset's path in the file, e.g. `/trajectory/theta`.
    pub fn name(&self) -> String {
        self.ds.name()
    }
}

fn attr_err(loc: &Location, name: &str) -> impl FnOnce(hdf5::Error) -> StoreError {
    let what = format!("writing attribute {name:?} on {}", loc.name());
    move |source| StoreError::Hdf5 { what, source }
}

fn put_scalar<T: H5Type>(loc: &Location, name: &str, value: &T) -> Result<(), StoreError> {
    check_attr_name(name)?;
    loc.new_attr::<T>()
        .shape(())
        .create(name)
        .and_then(|a| a.write_scalar(value))
        .map_err(attr_err(loc, name))
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

fn put_str(loc: &Location, name: &str, value: &str) -> Result<(), StoreError> {
    let v = VarLenUnicode::from_str(value).map_err(|_| StoreError::Name {
        name: name.into(),
        what: "string attribute value contains a NUL byte".into(),
    })?;
    put_scalar(loc, name, &v)
}

fn put_f64s(loc: &Location, name: &str, values: &[f64]) -> Result<(), StoreError> {
    check_attr_name(name)?;
    loc.new_attr_builder()
        .with_data(values)
        .create(name)
        .map(|_| ())
        .map_err(attr_err(loc, name))
}

/// The attribute setters shared by groups and variables. Each returns `&Self` so calls
/// chain: `g.attr_f64("dt", 0.01)?.attr_i64("steps", 1000)?`.
macro_rules! attr_methods {
    ($loc:ident) => {
        /// Sets a scalar `f64` attribute (a run parameter, a tolerance, …).
        pub fn attr_f64(&self, name: &str, value: f64) -> Result<&Self, StoreError> {
            put_scalar(&self.$loc, name, &value)?;
            Ok(self)
        }

        /// Sets a scalar `i64` attribute (a count, a seed, …).
        pub fn attr_i64(&self, name: &str, value: i64) -> Result<&Self, StoreError> {
            put_scalar(&self.$loc, name, &value)?;
            Ok(self)
        }

        /// Sets a string attribute, stored as a variable-length UTF-8 string, which h5py,
        /// netCDF and xarray all read as a Python `str`.
        pub fn attr_str(&self, name: &str, value: &str) -> Result<&Self, StoreError> {
            put_str(&self.$loc, name, value)?;
            Ok(self)
        }

        /// Sets a 1-D `f64` array attribute (link lengths, masses, …).
        pub fn attr_f64s(&self, name: &str, values: &[f64]) -> Result<&Self, StoreError> {
            put_f64s(&self.$loc, name, values)?;
            Ok(self)
        }

        /// Sets a boolean attribute, stored as an `i8` 0 or 1: netCDF has no boolean type
        /// and `i8` is its classic `byte`, readable everywhere.
        pub fn attr_bool(&self, name: &str, value: bool) -> Result<&Self, StoreError> {
            put_scalar(&self.$loc, name, &i8::from(value))?;
            Ok(self)
        }
    };
}

impl GroupWriter<'_> {
    attr_methods!(group);
}

impl Var<'_> {
    attr_methods!(ds);
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
