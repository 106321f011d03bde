//! HDF5 dimension scales (the HL `H5DS` API), which the `hdf5` crates do not wrap.
//!
//! Dimension scales are how netCDF-4, h5netcdf and xarray learn a dataset's dimension
//! names and coordinates. The HL library is linked by `build.rs`.

use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_uint};

use hdf5::Dataset;
use hdf5_sys::h5::{herr_t, htri_t};
use hdf5_sys::h5i::hid_t;

use super::StoreError;

extern "C" {
    fn H5DSset_scale(did: hid_t, dimname: *const c_char) -> herr_t;
    fn H5DSattach_scale(did: hid_t, dsid: hid_t, idx: c_uint) -> herr_t;
    fn H5DSis_scale(did: hid_t) -> htri_t;
    fn H5DSget_num_scales(did: hid_t, idx: c_uint) -> c_int;
}

fn hdf5_failed(call: &str, ds: &Dataset) -> StoreError {
    StoreError::Hdf5 {
        what: format!("{call} on {}", ds.name()),
        source: hdf5::Error::Internal(format!("{call} returned a negative status")),
    }
}

/// Makes `ds` a dimension scale named `dimname` (writes `CLASS` and `NAME`).
pub fn set_scale(ds: &Dataset, dimname: &str) -> Result<(), StoreError> {
    let name = CString::new(dimname).map_err(|_| StoreError::Name {
        name: dimname.to_string(),
        what: "contains a NUL byte".into(),
    })?;
    // SAFETY: `ds` is a live dataset id and `name` outlives the call; the crate's global
    // lock serialises us with every other HDF5 call, as the non-threadsafe library needs.
    let status = hdf5::sync::sync(|| unsafe { H5DSset_scale(ds.id(), name.as_ptr()) });
    if status < 0 {
        return Err(hdf5_failed("H5DSset_scale", ds));
    }
    Ok(())
}

/// Attaches the scale `scale` to dimension `idx` of `ds` (writes `DIMENSION_LIST`).
pub fn attach_scale(ds: &Dataset, scale: &Dataset, idx: usize) -> Result<(), StoreError> {
    let idx = c_uint::try_from(idx).map_err(|_| hdf5_failed("H5DSattach_scale", ds))?;
    // SAFETY: both ids are live datasets; calls are serialised by the crate's lock.
    let status = hdf5::sync::sync(|| unsafe { H5DSattach_scale(ds.id(), scale.id(), idx) });
    if status < 0 {
        return Err(hdf5_failed("H5DSattach_scale", ds));
    }
    Ok(())
}

/// Whether `ds` is a dimension scale.
pub fn is_scale(ds: &Dataset) -> Result<bool, StoreError> {
    // SAFETY: live dataset id; calls are serialised by the crate's lock.
    let r = hdf5::sync::sync(|| unsafe { H5DSis_scale(ds.id()) });
    if r < 0 {
        return Err(hdf5_failed("H5DSis_scale", ds));
    }
    Ok(r > 0)
}

/// How many scales are attached to dimension `idx` of `ds`.
pub fn num_scales(ds: &Dataset, idx: usize) -> Result<usize, StoreError> {
    let i = c_uint::try_from(idx).map_err(|_| hdf5_failed("H5DSget_num_scales", ds))?;
    // SAFETY: live dataset id; calls are serialised by the crate's lock.
    let n = hdf5::sync::sync(|| unsafe { H5DSget_num_scales(ds.id(), i) });
    if n < 0 {
        return Err(hdf5_failed("H5DSget_num_scales", ds));
    }
    Ok(n as usize)
}
