//! Attributes of groups and variables, in a file or in an image: checked names and values,
//! strings as variable-length UTF-8, booleans as `i8`, and the chaining setters.

use super::*;

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
