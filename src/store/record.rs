//! Writes a self-described result ([`Record`]) into its group: every analysis kind's file
//! comes through here, so the writer knows no kind.

use super::results::{write_method, write_model};
use super::{GroupWriter, H5Out, RunInfo, StoreError};
use crate::finding::{Attr, Data, Entry, Record, RunPart, Var};

/// Sets the attribute `name` = `a` on a group or a variable (they share the setters).
macro_rules! put {
    ($at:expr, $name:expr, $a:expr) => {{
        match $a {
            Attr::F64(v) => $at.attr_f64($name, *v)?,
            Attr::F64s(v) => $at.attr_f64s($name, v)?,
            Attr::I64(v) => $at.attr_i64($name, *v)?,
            Attr::Bool(v) => $at.attr_bool($name, *v)?,
            Attr::Str(v) => $at.attr_str($name, v)?,
            Attr::U8s(v) => $at.attr_u8s($name, v)?,
        };
    }};
}

/// Writes the group `record.name` of the run `run` (None: a record without its run's parts,
/// such as a sweep's): its entries in order.
pub fn write_record(
    out: &H5Out,
    run: Option<&RunInfo<'_>>,
    record: &Record,
) -> Result<(), StoreError> {
    entries(&out.group(&record.name)?, run, record)
}

/// Writes the entries of `record` (not its run's parts) into the existing group `g`: a group
/// that holds more than one record (`control`'s trajectory and its closed loop) or a shared
/// part of many groups (the integrator's attributes).
pub fn write_entries(g: &GroupWriter<'_>, record: &Record) -> Result<(), StoreError> {
    entries(g, None, record)
}

/// Writes the entries of `record` into its group `g`, a subgroup's into a group of `g`.
fn entries(
    g: &GroupWriter<'_>,
    info: Option<&RunInfo<'_>>,
    record: &Record,
) -> Result<(), StoreError> {
    for e in &record.entries {
        let run = || {
            info.ok_or_else(|| StoreError::Dims {
                var: record.name.to_string(),
                what: "a part of its run without the run".into(),
            })
        };
        match e {
            Entry::Attr(name, a) => put!(g, name, a),
            Entry::Coord(v) => coord(g, v)?,
            Entry::Var(v) => var(g, v)?,
            Entry::Group(sub) => entries(&g.group(&sub.name)?, info, sub)?,
            Entry::Run(RunPart::Names) => {
                g.attr_str("title", run()?.title)?;
                g.attr_str("model", run()?.model_name)?;
            }
            Entry::Run(RunPart::Method) => write_method(g, run()?.method)?,
            Entry::Run(RunPart::Model) => write_model(g, run()?.chain)?,
            Entry::Run(RunPart::InitialState) => g.initial_state(run()?.x0)?,
        }
    }
    Ok(())
}

fn coord(g: &GroupWriter<'_>, v: &Var) -> Result<(), StoreError> {
    let shape = v.data.shape();
    if shape.len() != 1 {
        return Err(StoreError::Dims {
            var: v.name.to_string(),
            what: format!("a coordinate must be 1-d (shape {shape:?})"),
        });
    }
    let (name, units, long) = (&v.name, &v.units, &v.long_name);
    let w = match &v.data {
        Data::F64(a) => g.coord_of(name, values(a), units, long)?,
        Data::I64(a) => g.coord_of(name, values(a), units, long)?,
        Data::I8(a) => g.coord_of(name, values(a), units, long)?,
        Data::U8(a) => g.coord_of(name, values(a), units, long)?,
    };
    for (name, a) in &v.attrs {
        put!(w, name, a);
    }
    Ok(())
}

/// The values of a record's array: built from vectors and ndarray's constructors, it is in
/// standard layout.
fn values<T>(a: &ndarray::ArrayD<T>) -> &[T] {
    a.as_slice()
        .expect("a record's arrays are in standard layout")
}

fn var(g: &GroupWriter<'_>, v: &Var) -> Result<(), StoreError> {
    let dims: Vec<&str> = v.dims.iter().map(|d| d.as_ref()).collect();
    let w = match &v.data {
        Data::F64(a) => g.var(&v.name, &dims, a.view(), &v.units, &v.long_name)?,
        Data::I64(a) => g.var(&v.name, &dims, a.view(), &v.units, &v.long_name)?,
        Data::I8(a) => g.var(&v.name, &dims, a.view(), &v.units, &v.long_name)?,
        Data::U8(a) => g.var(&v.name, &dims, a.view(), &v.units, &v.long_name)?,
    };
    for (name, a) in &v.attrs {
        put!(w, name, a);
    }
    Ok(())
}
