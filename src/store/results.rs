//! The result structs' layouts in HDF5: one group per result, self-contained for xarray
//! (`xarray.open_dataset(path, group=..., engine="h5netcdf")` shows the data, its coordinates,
//! the model's per-link parameters and every run parameter as attributes).

use super::{GroupWriter, StoreError};
use crate::finding::Attr;
use crate::integrate::Method;
use crate::model::Chain;

/// The chain's parameters: per-link variables over `link` (which must be a coordinate of `g`)
/// and scalar attributes for gravity and the drive.
pub fn write_model(g: &GroupWriter<'_>, chain: &Chain) -> Result<(), StoreError> {
    let p = chain.params();
    let col = |f: fn(&crate::model::Link) -> f64| p.links.iter().map(f).collect::<Vec<f64>>();
    g.var(
        "link_length",
        &["link"],
        col(|l| l.length).as_slice(),
        "m",
        "link length (joint to joint)",
    )?;
    g.var(
        "link_mass",
        &["link"],
        col(|l| l.mass).as_slice(),
        "kg",
        "link mass",
    )?;
    g.var(
        "link_com",
        &["link"],
        col(|l| l.com).as_slice(),
        "m",
        "centre of mass distance from the upper joint",
    )?;
    g.var(
        "link_inertia",
        &["link"],
        col(|l| l.inertia).as_slice(),
        "kg m2",
        "moment of inertia about the centre of mass",
    )?;
    let n = chain.links();
    let pad = |v: &Vec<f64>| {
        if v.is_empty() {
            vec![0.0; n]
        } else {
            v.clone()
        }
    };
    g.var(
        "damping_absolute",
        &["link"],
        pad(&p.damping.absolute).as_slice(),
        "N m s",
        "absolute viscous damping coefficient",
    )?;
    g.var(
        "damping_joint",
        &["link"],
        pad(&p.damping.joint).as_slice(),
        "N m s",
        "joint viscous damping at the upper joint",
    )?;
    g.attr_f64("gravity", p.gravity)?;
    g.attr_i64("links", n as i64)?;
    if let Some(t) = &p.drive.torque {
        g.attr_f64("torque_amplitude", t.amplitude)?;
        g.attr_f64("torque_frequency", t.frequency)?;
        g.attr_f64("torque_phase", t.phase)?;
    }
    if let Some(s) = &p.drive.pivot {
        g.attr_f64("pivot_x_amplitude", s.x_amplitude)?;
        g.attr_f64("pivot_y_amplitude", s.y_amplitude)?;
        g.attr_f64("pivot_frequency", s.frequency)?;
        g.attr_f64("pivot_phase", s.phase)?;
    }
    Ok(())
}

/// The integrator's settings as attributes.
pub fn write_method(g: &GroupWriter<'_>, m: &Method) -> Result<(), StoreError> {
    for (name, a) in method_attrs(m) {
        match a {
            Attr::F64(v) => g.attr_f64(name, v)?,
            Attr::I64(v) => g.attr_i64(name, v)?,
            Attr::Str(v) => g.attr_str(name, &v)?,
            _ => unreachable!("an integrator's settings are numbers and its name"),
        };
    }
    Ok(())
}

/// The integrator's name and settings, as the attributes of a result's group (a record
/// without its run's parts, such as the cart chain's, adds them itself).
pub fn method_attrs(m: &Method) -> Vec<(&'static str, Attr)> {
    let mut a = vec![("integrator", Attr::from(m.name()))];
    match *m {
        Method::Rk4 { dt } => a.push(("dt", dt.into())),
        Method::Dop853 { rtol, atol, h_max } => {
            a.extend([
                ("rtol", rtol.into()),
                ("atol", atol.into()),
                ("h_max", h_max.into()),
            ]);
        }
        Method::Gauss { dt, stages } => {
            a.extend([("dt", dt.into()), ("stages", Attr::I64(stages as i64))]);
        }
    }
    a
}
