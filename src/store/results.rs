//! The result structs' layouts in HDF5: one group per result, self-contained for xarray
//! (`xarray.open_dataset(path, group=..., engine="h5netcdf")` shows the data, its coordinates,
//! the model's per-link parameters and every run parameter as attributes).

use super::{GroupWriter, H5Out, RunInfo, StoreError};
use crate::analysis::modes::ModesResult;
use crate::analysis::{SimulateOptions, Trajectory};
use crate::finding::Attr;
use crate::integrate::Method;
use crate::model::Chain;
use ndarray::{Array2, Array3};

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

/// The integrator's settings as the attributes [`write_method`] writes, for a result that
/// describes itself with the method it ran ([`crate::finding::Record`]).
pub fn method_attrs(m: &Method) -> Vec<(&'static str, Attr)> {
    let mut a = vec![("integrator", Attr::from(m.name()))];
    match *m {
        Method::Rk4 { dt } => a.push(("dt", dt.into())),
        Method::Dop853 { rtol, atol, h_max } => a.extend([
            ("rtol", rtol.into()),
            ("atol", atol.into()),
            ("h_max", h_max.into()),
        ]),
        Method::Gauss { dt, stages } => {
            a.extend([("dt", dt.into()), ("stages", Attr::I64(stages as i64))])
        }
    }
    a
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

/// Writes a [`ModesResult`] as group `modes` (plus `modes/check_*` and `modes/nonlinear`).
///
/// Layout: coordinates `equilibrium` (index), `link`, `mode` (1 = lowest ω²) and `link_k` (a
/// second link axis for matrices); `signs(equilibrium, link)` (+1 hanging, −1 inverted),
/// `omega2(equilibrium, mode)`, `frequency` and `growth_rate` (NaN where not applicable),
/// `shape(equilibrium, mode, link)` (M-orthonormal), `unstable(equilibrium)` (Morse index),
/// `mass_matrix` and `stiffness(equilibrium, link, link_k)`.
pub fn write_modes(out: &H5Out, run: &RunInfo<'_>, result: &ModesResult) -> Result<(), StoreError> {
    let n = run.chain.links();
    let e = result.equilibria.len();
    {
        let g = out.group("modes")?;
        modes_coordinates(&g, e, n)?;
        let labels: Vec<String> = result
            .equilibria
            .iter()
            .map(|m| m.equilibrium.label())
            .collect();
        g.attr_str("equilibria", &labels.join(","))?;
        g.attr_bool("complete", result.complete)?;
        modes_frequencies(&g, result, e, n)?;
        modes_matrices(&g, result, e, n)?;
        if result.equilibria.iter().any(|m| !m.damped.is_empty()) {
            modes_damped(&g, result, e, n)?;
        }
        write_model(&g, run.chain)?;
        g.attr_str("title", run.title)?;
        g.attr_str("model", run.model_name)?;
        modes_checks(&g, result)?;
        if !result.nonlinear.is_empty() {
            modes_nonlinear(&g, result)?;
        }
    }
    Ok(())
}

/// The axes every `modes` variable is laid over: equilibria, links, modes and a second link
/// axis so that matrices have two named dimensions.
fn modes_coordinates(g: &GroupWriter<'_>, e: usize, n: usize) -> Result<(), StoreError> {
    g.coord_i64(
        "equilibrium",
        &(0..e as i64).collect::<Vec<_>>(),
        "1",
        "equilibrium index (see attribute equilibria)",
    )?;
    link_coord(g, n)?;
    g.coord_i64(
        "mode",
        &(1..=n as i64).collect::<Vec<_>>(),
        "1",
        "mode number, ascending omega2",
    )?;
    g.coord_i64(
        "link_k",
        &(1..=n as i64).collect::<Vec<_>>(),
        "1",
        "link index (second matrix axis)",
    )?;
    Ok(())
}

/// Which equilibrium each row is (`signs`) and its modes' frequencies in the four forms a
/// reader asks for: ω², ω, period and, for unstable modes, growth rate.
fn modes_frequencies(
    g: &GroupWriter<'_>,
    result: &ModesResult,
    e: usize,
    n: usize,
) -> Result<(), StoreError> {
    let signs = Array2::from_shape_fn((e, n), |(i, j)| result.equilibria[i].equilibrium.signs[j]);
    g.var(
        "signs",
        &["equilibrium", "link"],
        &signs,
        "1",
        "cos of the equilibrium angle: +1 hanging, -1 inverted",
    )?;
    let per_mode = |f: &dyn Fn(&crate::analysis::modes::EquilibriumModes) -> Vec<f64>| {
        Array2::from_shape_fn((e, n), |(i, k)| f(&result.equilibria[i])[k])
    };
    g.var(
        "omega2",
        &["equilibrium", "mode"],
        &per_mode(&|m| m.omega2.clone()),
        "rad2 s-2",
        "squared mode frequency (negative: unstable)",
    )?;
    g.var(
        "frequency",
        &["equilibrium", "mode"],
        &per_mode(&|m| m.frequencies()),
        "rad s-1",
        "mode frequency (NaN for unstable modes)",
    )?;
    g.var(
        "period",
        &["equilibrium", "mode"],
        &per_mode(&|m| m.periods()),
        "s",
        "mode period (NaN for unstable modes)",
    )?;
    g.var(
        "growth_rate",
        &["equilibrium", "mode"],
        &per_mode(&|m| m.growth_rates()),
        "s-1",
        "growth rate of unstable modes (NaN for stable ones)",
    )?;
    Ok(())
}

/// Mode shapes and the two matrices they diagonalise, so a reader can check
/// `v^T M v = 1` and `K v = ω² M v` without the model; plus the Morse index.
fn modes_matrices(
    g: &GroupWriter<'_>,
    result: &ModesResult,
    e: usize,
    n: usize,
) -> Result<(), StoreError> {
    let shape = Array3::from_shape_fn((e, n, n), |(i, k, j)| result.equilibria[i].shapes[(j, k)]);
    g.var(
        "shape",
        &["equilibrium", "mode", "link"],
        &shape,
        "rad",
        "mode shape, mass-normalized (v^T M v = 1)",
    )?;
    let mass = Array3::from_shape_fn((e, n, n), |(i, j, k)| result.equilibria[i].mass[(j, k)]);
    g.var(
        "mass_matrix",
        &["equilibrium", "link", "link_k"],
        &mass,
        "kg m2",
        "mass matrix M at the equilibrium",
    )?;
    let stiff = Array3::from_shape_fn((e, n, n), |(i, j, k)| {
        result.equilibria[i].stiffness[(j, k)]
    });
    g.var(
        "stiffness",
        &["equilibrium", "link", "link_k"],
        &stiff,
        "N m",
        "stiffness matrix K = diag(g b_j cos theta_j)",
    )?;
    let unstable: Vec<i64> = result
        .equilibria
        .iter()
        .map(|m| m.unstable as i64)
        .collect();
    g.var(
        "unstable",
        &["equilibrium"],
        unstable.as_slice(),
        "1",
        "number of unstable directions (Morse index)",
    )?;
    Ok(())
}

/// The damped first-order system's 2n eigenvalues per equilibrium (only written when some
/// equilibrium has them; NaN-padded where one has fewer).
fn modes_damped(
    g: &GroupWriter<'_>,
    result: &ModesResult,
    e: usize,
    n: usize,
) -> Result<(), StoreError> {
    g.coord_i64(
        "eigenvalue",
        &(1..=2 * n as i64).collect::<Vec<_>>(),
        "1",
        "eigenvalue of the damped first-order system",
    )?;
    let pick = |f: fn(&crate::analysis::modes::DampedMode) -> f64| {
        Array2::from_shape_fn((e, 2 * n), |(i, k)| {
            result.equilibria[i].damped.get(k).map_or(f64::NAN, f)
        })
    };
    g.var(
        "damped_re",
        &["equilibrium", "eigenvalue"],
        &pick(|d| d.re),
        "s-1",
        "real part of the damped eigenvalue",
    )?;
    g.var(
        "damped_im",
        &["equilibrium", "eigenvalue"],
        &pick(|d| d.im),
        "rad s-1",
        "imaginary part of the damped eigenvalue",
    )?;
    g.var(
        "quality_factor",
        &["equilibrium", "eigenvalue"],
        &pick(|d| d.quality_factor),
        "1",
        "quality factor |lambda| / (2 decay rate)",
    )?;
    Ok(())
}

/// One `check_<i>` group per closed-form comparison, so each keeps its own `mode` axis
/// (a check may cover fewer modes than the chain has).
fn modes_checks(g: &GroupWriter<'_>, result: &ModesResult) -> Result<(), StoreError> {
    for (i, c) in result.checks.iter().enumerate() {
        let cg = g.group(&format!("check_{}", i + 1))?;
        cg.coord_i64(
            "mode",
            &(1..=c.expected.len() as i64).collect::<Vec<_>>(),
            "1",
            "mode number",
        )?;
        cg.var(
            "computed",
            &["mode"],
            c.computed.as_slice(),
            "rad s-1",
            "computed frequency",
        )?;
        cg.var(
            "expected",
            &["mode"],
            c.expected.as_slice(),
            "rad s-1",
            "closed-form frequency",
        )?;
        cg.var(
            "relative_difference",
            &["mode"],
            c.relative_difference.as_slice(),
            "1",
            "|computed - expected| / expected",
        )?;
        cg.attr_str("formula", &c.formula)?;
    }
    Ok(())
}

/// Group `nonlinear`: one row per large-amplitude measurement, the measured frequency beside
/// the linear one (and the exact elliptic one where it exists), to show where linearity ends.
fn modes_nonlinear(g: &GroupWriter<'_>, result: &ModesResult) -> Result<(), StoreError> {
    let ng = g.group("nonlinear")?;
    let m = result.nonlinear.len();
    ng.coord_i64(
        "measurement",
        &(0..m as i64).collect::<Vec<_>>(),
        "1",
        "measurement index",
    )?;
    let col = |f: fn(&crate::analysis::modes::NonlinearCheck) -> f64| {
        result.nonlinear.iter().map(f).collect::<Vec<f64>>()
    };
    let modes: Vec<i64> = result.nonlinear.iter().map(|c| c.mode as i64 + 1).collect();
    // A single link is timed over a quarter period (see analysis::modes::nonlinear).
    let quarter = result
        .nonlinear
        .iter()
        .all(|c| c.route == crate::analysis::modes::PeriodRoute::QuarterPeriod);
    ng.var(
        "mode",
        &["measurement"],
        modes.as_slice(),
        "1",
        "mode number started in",
    )?;
    ng.var(
        "amplitude",
        &["measurement"],
        col(|c| c.amplitude).as_slice(),
        "rad",
        "largest link angle at release",
    )?;
    ng.var(
        "linear",
        &["measurement"],
        col(|c| c.linear).as_slice(),
        "rad s-1",
        "linear mode frequency",
    )?;
    ng.var(
        "measured",
        &["measurement"],
        col(|c| c.measured).as_slice(),
        "rad s-1",
        if quarter {
            "nonlinear frequency 2 pi / (4 x time from release at rest to the first zero)"
        } else {
            "nonlinear mean frequency from zero crossings"
        },
    )?;
    ng.var(
        "relative_difference",
        &["measurement"],
        col(|c| c.relative_difference).as_slice(),
        "1",
        "|measured - linear| / linear",
    )?;
    ng.var(
        "exact",
        &["measurement"],
        col(|c| c.exact).as_slice(),
        "rad s-1",
        "elliptic-integral frequency (single link; else NaN)",
    )?;
    ng.var(
        "interval_spread",
        &["measurement"],
        col(|c| c.interval_spread).as_slice(),
        "1",
        "standard deviation over mean of the intervals between upward crossings",
    )?;
    let periodic: Vec<i8> = result
        .nonlinear
        .iter()
        .map(|c| i8::from(c.periodic))
        .collect();
    ng.var(
        "periodic",
        &["measurement"],
        periodic.as_slice(),
        "1",
        "1 where the interval spread is below the periodicity threshold, so that 'measured' is a frequency; 0 where it is only a mean crossing rate",
    )?
    .attr_f64("threshold", crate::analysis::modes::PERIODIC_SPREAD)?;
    Ok(())
}
