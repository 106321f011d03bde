//! A result's in-memory image ([`MemGroup`], what the CLI's writers would put in its HDF5
//! file) as Python objects: each variable's vector becomes a NumPy array that owns it (moved,
//! not copied); the Python side reshapes it (a view) and builds the xarray objects.

use numpy::IntoPyArray;
use pendula::store::memory::{Attr, MemGroup, Values};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

fn values<'py>(py: Python<'py>, v: Values) -> Bound<'py, PyAny> {
    match v {
        Values::F64(x) => x.into_pyarray(py).into_any(),
        Values::F32(x) => x.into_pyarray(py).into_any(),
        Values::I64(x) => x.into_pyarray(py).into_any(),
        Values::I32(x) => x.into_pyarray(py).into_any(),
        Values::I16(x) => x.into_pyarray(py).into_any(),
        Values::I8(x) => x.into_pyarray(py).into_any(),
        Values::U64(x) => x.into_pyarray(py).into_any(),
        Values::U32(x) => x.into_pyarray(py).into_any(),
        Values::U16(x) => x.into_pyarray(py).into_any(),
        Values::U8(x) => x.into_pyarray(py).into_any(),
    }
}

/// `(type, value)`: the Python side gives each the NumPy type h5py reads it as.
fn attr<'py>(py: Python<'py>, a: Attr) -> PyResult<Bound<'py, PyTuple>> {
    Ok(match a {
        Attr::F64(v) => ("f64", v).into_pyobject(py)?,
        Attr::I64(v) => ("i64", v).into_pyobject(py)?,
        Attr::I8(v) => ("i8", v).into_pyobject(py)?,
        Attr::Str(v) => ("str", v).into_pyobject(py)?,
        Attr::F64s(v) => ("f64s", v.into_pyarray(py)).into_pyobject(py)?,
        Attr::U8s(v) => ("u8s", v.into_pyarray(py)).into_pyobject(py)?,
    })
}

fn attrs<'py>(py: Python<'py>, a: Vec<(String, Attr)>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in a {
        d.set_item(k, attr(py, v)?)?;
    }
    Ok(d)
}

/// `{"name", "attrs", "vars": [(name, dims, shape, array, attrs, coord)], "groups": [...]}`.
pub fn to_py(py: Python<'_>, g: MemGroup) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", g.name)?;
    d.set_item("attrs", attrs(py, g.attrs)?)?;
    let vars = PyList::empty(py);
    for v in g.vars {
        let item = (
            v.name,
            PyTuple::new(py, v.dims)?,
            PyTuple::new(py, v.shape)?,
            values(py, v.values),
            attrs(py, v.attrs)?,
            v.coord,
        );
        vars.append(item.into_pyobject(py)?)?;
    }
    d.set_item("vars", vars)?;
    let groups = PyList::empty(py);
    for c in g.groups {
        groups.append(to_py(py, c)?)?;
    }
    d.set_item("groups", groups)?;
    Ok(d)
}
