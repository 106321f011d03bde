//! The result structs' layouts in HDF5: one group per result, self-contained for xarray
//! (`xarray.open_dataset(path, group=..., engine="h5netcdf")` shows the data, its coordinates,
//! the model's per-link parameters and every run parameter as attributes).

use super::{GroupWriter, H5Out, Provenance, StoreError};
use crate::analysis::Trajectory;
use crate::integrate::Method;
use crate::model::Chain;
use crate::spec::Spec;
use std::path::{Path, PathBuf};

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
    g.attr_str("integrator", m.name())?;
    match *m {
        Method::Rk4 { dt } => {
            g.attr_f64("dt", dt)?;
        }
        Method::Dop853 { rtol, atol, h_max } => {
            g.attr_f64("rtol", rtol)?;
            g.attr_f64("atol", atol)?;
            g.attr_f64("h_max", h_max)?;
        }
        Method::Gauss { dt, stages } => {
            g.attr_f64("dt", dt)?;
            g.attr_i64("stages", stages as i64)?;
        }
    }
    Ok(())
}

fn link_coord(g: &GroupWriter<'_>, n: usize) -> Result<(), StoreError> {
    let idx: Vec<i64> = (1..=n as i64).collect();
    g.coord_i64("link", &idx, "1", "link index, counted from the pivot")?;
    Ok(())
}

/// Writes a [`Trajectory`] as group `trajectory` of a new file at `path` (atomically).
pub fn write_trajectory(
    path: &Path,
    force: bool,
    spec: &Spec,
    tr: &Trajectory,
    prov: &Provenance,
) -> Result<PathBuf, StoreError> {
    let out = H5Out::create(path, force)?;
    out.provenance(prov)?;
    out.root()?.attr_str("title", &spec.title)?;
    {
        let g = out.group("trajectory")?;
        g.coord("time", &tr.t, "s", "time")?;
        link_coord(&g, spec.chain.links())?;
        g.var(
            "theta",
            &["time", "link"],
            &tr.theta,
            "rad",
            "link angle from the downward vertical (not wrapped)",
        )?;
        g.var(
            "omega",
            &["time", "link"],
            &tr.omega,
            "rad s-1",
            "link angular velocity",
        )?;
        g.var(
            "energy",
            &["time"],
            tr.energy.as_slice(),
            "J",
            "total mechanical energy T + V",
        )?;
        g.var(
            "work",
            &["time"],
            tr.work.as_slice(),
            "J",
            "work of damping and drive since t = 0",
        )?;
        g.var(
            "energy_error",
            &["time"],
            tr.energy_error().as_slice(),
            "1",
            "|E - E0 - W| / energy_scale",
        )?;
        write_model(&g, &spec.chain)?;
        write_method(&g, &tr.method)?;
        g.attr_str("title", &spec.title)?;
        g.attr_str("model", &spec.model_name)?;
        if let crate::spec::Analysis::Simulate(o) = &spec.analysis {
            g.attr_f64("t_end", o.t_end)?;
            g.attr_f64("dt_out", o.dt_out)?;
        }
        g.attr_f64s("initial_state", &spec.x0)?;
        g.attr_f64("energy_scale", tr.energy_scale)?;
        g.attr_f64("relative_energy_drift", tr.relative_energy_drift())?;
        g.attr_f64("max_relative_energy_error", tr.max_relative_energy_error())?;
        g.attr_i64("steps", tr.stats.steps as i64)?;
        g.attr_i64("rejected_steps", tr.stats.rejected as i64)?;
        g.attr_i64("rhs_evaluations", tr.stats.evals as i64)?;
        g.attr_bool("complete", tr.complete)?;
    }
    out.finish()
}
