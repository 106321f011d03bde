//! The result structs' layouts in HDF5: one group per result, self-contained for xarray
//! (`xarray.open_dataset(path, group=..., engine="h5netcdf")` shows the data, its coordinates,
//! the model's per-link parameters and every run parameter as attributes).

use super::{GroupWriter, H5Out, RunInfo, StoreError};
use crate::analysis::{SimulateOptions, Trajectory};
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

/// Variables `energy` (T + V) and `work` (described by `work_meaning`) over `time`.
pub(super) fn write_energy_and_work(
    g: &GroupWriter<'_>,
    energy: &[f64],
    work: &[f64],
    work_meaning: &str,
) -> Result<(), StoreError> {
    g.var(
        "energy",
        &["time"],
        energy,
        "J",
        "total mechanical energy T + V",
    )?;
    g.var("work", &["time"], work, "J", work_meaning)?;
    Ok(())
}

/// Coordinate `link` (1..=`n`): every result over a chain's links names them alike.
pub(crate) fn link_coord(g: &GroupWriter<'_>, n: usize) -> Result<(), StoreError> {
    let idx: Vec<i64> = (1..=n as i64).collect();
    g.coord_i64("link", &idx, "1", "link index, counted from the pivot")?;
    Ok(())
}

/// Writes a [`Trajectory`] of `run` as group `trajectory` of `out` (see [`super::write_file`]);
/// `sampling`, the simulation's options, adds attributes `t_end` and `dt_out`.
pub fn write_trajectory(
    out: &H5Out,
    run: &RunInfo<'_>,
    tr: &Trajectory,
    sampling: Option<&SimulateOptions>,
) -> Result<(), StoreError> {
    {
        let g = out.group("trajectory")?;
        g.coord("time", &tr.t, "s", "time")?;
        link_coord(&g, run.chain.links())?;
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
        write_energy_and_work(
            &g,
            &tr.energy,
            &tr.work,
            "work of damping and drive since t = 0",
        )?;
        g.var(
            "energy_error",
            &["time"],
            tr.energy_error().as_slice(),
            "1",
            "|E - E0 - W| / energy_scale",
        )?;
        // The energy budget the lab's figure draws, so that it can be redrawn from the file.
        let budget = crate::analysis::EnergyBudget::new(run.chain, tr);
        g.var(
            "kinetic_energy",
            &["time", "link"],
            &budget.kinetic,
            "J",
            "kinetic energy of each link's own motion (pivot frame); sums to T over links",
        )?;
        g.var(
            "potential_energy",
            &["time"],
            budget.potential.as_slice(),
            "J",
            "gravitational potential energy V",
        )?;
        write_model(&g, run.chain)?;
        write_method(&g, &tr.method)?;
        g.attr_str("title", run.title)?;
        g.attr_str("model", run.model_name)?;
        if let Some(o) = sampling {
            g.attr_f64("t_end", o.t_end)?;
            g.attr_f64("dt_out", o.dt_out)?;
        }
        g.initial_state(run.x0)?;
        g.attr_f64("energy_scale", tr.energy_scale)?;
        g.attr_f64("relative_energy_drift", tr.relative_energy_drift())?;
        g.attr_f64("max_relative_energy_error", tr.max_relative_energy_error())?;
        g.attr_i64("steps", tr.stats.steps as i64)?;
        g.attr_i64("rejected_steps", tr.stats.rejected as i64)?;
        g.attr_i64("rhs_evaluations", tr.stats.evals as i64)?;
        g.attr_bool("complete", tr.complete)?;
    }
    Ok(())
}
