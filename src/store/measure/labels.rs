//! A label grid read from an HDF5 dataset, with its extent from the dimension scales.

use crate::analysis::measure::labels::{self, ValueType};
use crate::error::FieldError;

/// A 2-D integer dataset read as labels, with its axes when it has dimension scales.
#[derive(Debug, Clone)]
pub struct LabelData {
    pub nx: usize,
    pub ny: usize,
    /// Row-major `[iy * nx + ix]` (HDF5 axis 0 is y).
    pub values: Vec<i32>,
    /// Pixel-edge extent (x0, x1, y0, y1) from the dimension scales (uniform centres assumed).
    pub extent: Option<[f64; 4]>,
    /// Scale names and `units` of x and y.
    pub axes: Option<[(String, String); 2]>,
}

extern "C" {
    fn H5DSiterate_scales(
        did: hdf5_sys::h5i::hid_t,
        dim: std::os::raw::c_uint,
        idx: *mut std::os::raw::c_int,
        visitor: extern "C" fn(
            hdf5_sys::h5i::hid_t,
            std::os::raw::c_uint,
            hdf5_sys::h5i::hid_t,
            *mut std::ffi::c_void,
        ) -> hdf5_sys::h5::herr_t,
        data: *mut std::ffi::c_void,
    ) -> hdf5_sys::h5::herr_t;
}

/// Records the path of the first scale attached to a dimension (then stops the iteration).
extern "C" fn first_scale(
    _did: hdf5_sys::h5i::hid_t,
    _dim: std::os::raw::c_uint,
    scale: hdf5_sys::h5i::hid_t,
    data: *mut std::ffi::c_void,
) -> hdf5_sys::h5::herr_t {
    let mut buf = vec![0u8; 1024];
    // SAFETY: `scale` is a live id handed to us by H5DSiterate_scales, `buf` outlives the call,
    // and `data` is the `Option<String>` the caller passed.
    let n = unsafe { hdf5_sys::h5i::H5Iget_name(scale, buf.as_mut_ptr().cast(), buf.len()) };
    if n > 0 {
        buf.truncate((n as usize).min(buf.len() - 1));
        let out = unsafe { &mut *data.cast::<Option<String>>() };
        *out = String::from_utf8(buf).ok();
    }
    1
}

/// The path of the scale attached to dimension `dim` of `ds`, if any.
fn scale_path(ds: &hdf5::Dataset, dim: u32) -> Option<String> {
    if crate::store::dimscale::num_scales(ds, dim as usize).ok()? == 0 {
        return None;
    }
    let mut out: Option<String> = None;
    // SAFETY: live dataset id; the visitor writes only `out`; calls are serialised by the
    // crate's (reentrant) lock.
    hdf5::sync::sync(|| unsafe {
        H5DSiterate_scales(
            ds.id(),
            dim,
            std::ptr::null_mut(),
            first_scale,
            (&mut out as *mut Option<String>).cast(),
        )
    });
    out
}

/// One axis of a label grid from its dimension scale: the pixel edges' span and (name, units).
type Axis = ((f64, f64), (String, String));

/// Reads `dataset` of `file` as a label grid. Errors are one line naming the dataset, about
/// the `labels` option: a missing file or dataset, or the library's checks of a label grid
/// (a rank other than 2, a non-integer type, values beyond i32). `fits` is asked about the
/// declared shape (columns, rows) before anything is read, so a small file declaring a huge
/// dataset is refused, not allocated. The dimension scales give the extent when both axes have
/// one: each must be finite, strictly monotonic and evenly spaced (the measures take pixels as
/// equal), or the read is refused naming the scale; with `scales = false` (the caller has its
/// own extent) their values are not used and not checked.
pub fn read_labels(
    file: &std::path::Path,
    dataset: &str,
    scales: bool,
    fits: impl FnOnce(usize, usize) -> Result<(), FieldError>,
) -> Result<LabelData, FieldError> {
    use hdf5::types::TypeDescriptor as T;
    let bad = |m: String| FieldError::new("labels", m);
    // A FIFO or device would block HDF5's open; a directory or text file gets a plain line.
    let f = crate::store::h5::open_input(file).map_err(|e| bad(e.to_string()))?;
    let ds = f
        .dataset(dataset)
        .map_err(|_| bad(format!("{} has no dataset {dataset}", file.display())))?;
    let shape = ds.shape();
    let what = format!("dataset {dataset}");
    let ty = if shape.len() == 2 {
        let dtype = ds
            .dtype()
            .and_then(|t| t.to_descriptor())
            .map_err(|e| bad(format!("{what}: unreadable type ({e})")))?;
        match dtype {
            T::Integer(_) | T::Unsigned(_) | T::Boolean | T::Enum(_) => ValueType::Integer,
            T::Float(_) => ValueType::Float,
            other => ValueType::Other(format!("{other:?}")),
        }
    } else {
        ValueType::Integer
    };
    let (nx, ny) = labels::grid_shape(&what, &shape, &ty)?;
    fits(nx, ny)?;
    let axis = |dim: u32, n: usize| -> Result<Option<Axis>, FieldError> {
        let Some(p) = scale_path(&ds, dim) else {
            return Ok(None);
        };
        let Ok(s) = f.dataset(&p) else {
            return Ok(None);
        };
        let units = s
            .attr("units")
            .and_then(|a| a.read_scalar::<hdf5::types::VarLenUnicode>())
            .map(|u| u.as_str().to_string())
            .unwrap_or_else(|_| "1".into());
        let name = p.rsplit('/').next().unwrap_or(&p).to_string();
        // The scale's declared length first: a scale is read only when it is the axis's.
        if s.shape() != [n] || n < 2 {
            return Ok(None);
        }
        if !scales {
            return Ok(Some(((f64::NAN, f64::NAN), (name, units))));
        }
        let Ok(c) = s.read_raw::<f64>() else {
            return Ok(None);
        };
        if let Some(why) = labels::scale_problem(&c) {
            let axis = if dim == 1 { "x" } else { "y" };
            return Err(FieldError::new(
                "labels",
                format!(
                    "{what}: its dimension scale {p} ({axis}, axis {dim}) {why}; the measures need evenly spaced pixels: pass "
                ),
            )
                .name("extent")
                .text(" x0,x1,y0,y1 to give the extent instead"));
        }
        let d = (c[n - 1] - c[0]) / (n - 1) as f64;
        Ok(Some(((c[0] - d / 2.0, c[n - 1] + d / 2.0), (name, units))))
    };
    let (x, y) = (axis(1, nx)?, axis(0, ny)?);
    let raw: Vec<i64> = ds
        .read_raw::<i64>()
        .map_err(|e| bad(format!("reading {what}: {e}")))?;
    let values = labels::grid_values(&what, raw)?;
    let (extent, axes) = match (x, y) {
        (Some((x, xa)), Some((y, ya))) => (Some([x.0, x.1, y.0, y.1]), Some([xa, ya])),
        _ => (None, None),
    };
    Ok(LabelData {
        nx,
        ny,
        values,
        extent: extent.filter(|e| e.iter().all(|v| v.is_finite())),
        axes,
    })
}
