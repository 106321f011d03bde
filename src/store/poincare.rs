//! The Poincaré result in HDF5: group `poincare` (run parameters, the model) with one
//! self-contained subgroup `shell_<k>` per energy shell.
//!
//! Each shell has coordinates `orbit` (0-based), `crossing` (1-based return number) and `link`,
//! and variables `time(orbit, crossing)`, `theta`, `omega`, `momentum(orbit, crossing, link)`,
//! `energy_error(orbit, crossing)` (NaN past an orbit's last crossing), `count(orbit)`,
//! `initial_theta`, `initial_omega(orbit, link)`, `lyapunov(orbit)` and `chaotic(orbit)`.
//! Crossing angles are wrapped into (−π, π]; the section's own angle is ≈ 0 mod 2π there.

use super::{link_coord, write_method, write_model, GroupWriter, H5Out, RunInfo, StoreError};
use crate::analysis::poincare::{
    chaos_criterion, wrap_angle, OrbitEnd, PoincareOptions, PoincareResult, Shell,
};
use crate::model::Chain;
use ndarray::{Array2, Array3};

/// One shell's orbits: coordinates `orbit`, `crossing` and `link`, the crossings, the
/// per-orbit summary and the shell's attributes.
fn write_shell(
    g: &GroupWriter<'_>,
    chain: &Chain,
    shell: &Shell,
    opts: &PoincareOptions,
) -> Result<(), StoreError> {
    let n = chain.links();
    let no = shell.orbits.len();
    let kmax = shell.orbits.iter().map(|o| o.len()).max().unwrap_or(0);
    g.coord_i64(
        "orbit",
        &(0..no as i64).collect::<Vec<_>>(),
        "1",
        "orbit index",
    )?;
    g.coord_i64(
        "crossing",
        &(1..=kmax as i64).collect::<Vec<_>>(),
        "1",
        "return to the section, counted from 1",
    )?;
    link_coord(g, n)?;
    shell_crossings(g, chain, shell, kmax)?;
    shell_orbit_summary(g, shell, opts, n)?;
    if let Some(e) = shell.energy {
        g.attr_f64("energy", e)?;
    }
    g.attr_i64("skipped_unreachable", shell.skipped.len() as i64)?;
    g.attr_f64s("angle_range", &[shell.angle_range.0, shell.angle_range.1])?;
    if let Some(r) = shell.speed_range {
        g.attr_f64s("speed_range", &[r.0, r.1])?;
    }
    Ok(())
}

/// The crossings as (orbit, crossing[, link]) arrays, NaN-padded past each orbit's last
/// crossing so that orbits of different lengths share one rectangle.
fn shell_crossings(
    g: &GroupWriter<'_>,
    chain: &Chain,
    shell: &Shell,
    kmax: usize,
) -> Result<(), StoreError> {
    let n = chain.links();
    let no = shell.orbits.len();
    let mut time = Array2::from_elem((no, kmax), f64::NAN);
    let mut err = Array2::from_elem((no, kmax), f64::NAN);
    let mut theta = Array3::from_elem((no, kmax, n), f64::NAN);
    let mut omega = Array3::from_elem((no, kmax, n), f64::NAN);
    let mut mom = Array3::from_elem((no, kmax, n), f64::NAN);
    for (i, o) in shell.orbits.iter().enumerate() {
        for (k, x) in o.states.iter().enumerate() {
            time[(i, k)] = o.t[k];
            err[(i, k)] = o.energy_error[k];
            let p = chain.to_canonical(x);
            for j in 0..n {
                theta[(i, k, j)] = wrap_angle(x[j]);
                omega[(i, k, j)] = x[n + j];
                mom[(i, k, j)] = p[n + j];
            }
        }
    }
    g.var(
        "time",
        &["orbit", "crossing"],
        &time,
        "s",
        "crossing time (NaN past the orbit's last crossing)",
    )?;
    g.var(
        "theta",
        &["orbit", "crossing", "link"],
        &theta,
        "rad",
        "link angle at the crossing, wrapped into (-pi, pi]",
    )?;
    g.var(
        "omega",
        &["orbit", "crossing", "link"],
        &omega,
        "rad s-1",
        "link angular velocity at the crossing",
    )?;
    g.var(
        "momentum",
        &["orbit", "crossing", "link"],
        &mom,
        "J s",
        "canonical momentum p = M(theta) omega at the crossing",
    )?;
    g.var(
        "energy_error",
        &["orbit", "crossing"],
        &err,
        "1",
        "|E - E0 - W| / energy_scale at the crossing",
    )?;
    Ok(())
}

/// One value per orbit: how far it got, where it started, its exponent and the chaotic / not
/// shown chaotic verdict drawn from it (so a reader can colour the section without
/// recomputing; the group's `chaos_criterion` says what the verdict means).
fn shell_orbit_summary(
    g: &GroupWriter<'_>,
    shell: &Shell,
    opts: &PoincareOptions,
    n: usize,
) -> Result<(), StoreError> {
    let no = shell.orbits.len();
    let count: Vec<i64> = shell.orbits.iter().map(|o| o.len() as i64).collect();
    g.var(
        "count",
        &["orbit"],
        count.as_slice(),
        "1",
        "crossings found",
    )?;
    let t_end: Vec<f64> = shell.orbits.iter().map(|o| o.t_end).collect();
    g.var(
        "t_end",
        &["orbit"],
        t_end.as_slice(),
        "s",
        "time integrated (the T of the finite-time exponent lambda_T)",
    )?;
    let complete: Vec<i64> = shell
        .orbits
        .iter()
        .map(|o| i64::from(o.end == OrbitEnd::Complete))
        .collect();
    g.var(
        "complete",
        &["orbit"],
        complete.as_slice(),
        "1",
        "1 if all requested crossings were found before t_max",
    )?;
    let init =
        |off: usize| Array2::from_shape_fn((no, n), |(i, j)| shell.orbits[i].initial[off + j]);
    g.var(
        "initial_theta",
        &["orbit", "link"],
        &init(0),
        "rad",
        "initial link angle",
    )?;
    g.var(
        "initial_omega",
        &["orbit", "link"],
        &init(n),
        "rad s-1",
        "initial angular velocity",
    )?;
    let lyap: Vec<f64> = shell
        .orbits
        .iter()
        .map(|o| o.lyapunov.unwrap_or(f64::NAN))
        .collect();
    g.var(
        "lyapunov",
        &["orbit"],
        lyap.as_slice(),
        "s-1",
        "finite-time maximal Lyapunov exponent lambda_T over the orbit's t_end (NaN: not computed)",
    )?;
    let chaotic: Vec<i64> = shell
        .orbits
        .iter()
        .map(|o| o.chaotic(opts.chaos_threshold).map_or(-1, i64::from))
        .collect();
    g.var(
        "chaotic",
        &["orbit"],
        chaotic.as_slice(),
        "1",
        "1 chaotic (lambda_T > chaos_threshold), 0 not shown chaotic within the orbit's t_end (not a proof of regularity), -1 not computed",
    )?;
    Ok(())
}

/// Writes a [`PoincareResult`] of `run` with options `opts` as group `poincare` of `out`
/// (see [`super::write_file`]).
pub fn write_poincare(
    out: &H5Out,
    run: &RunInfo<'_>,
    opts: &PoincareOptions,
    result: &PoincareResult,
) -> Result<(), StoreError> {
    let chain = run.chain;
    {
        let g = out.group("poincare")?;
        link_coord(&g, chain.links())?;
        write_model(&g, chain)?;
        write_method(&g, run.method)?;
        g.attr_str("title", run.title)?;
        g.attr_str("model", run.model_name)?;
        g.attr_str("section", &opts.section.describe(chain))?;
        g.attr_i64("plane_link", opts.sampling.link as i64 + 1)?;
        g.attr_str(
            "variables",
            match opts.sampling.variables {
                crate::analysis::poincare::Variables::Momentum => "momentum",
                crate::analysis::poincare::Variables::Velocity => "velocity",
            },
        )?;
        g.attr_str(
            "sampling",
            &serde_json::to_string(&opts.sampling.sampling).unwrap_or_default(),
        )?;
        g.attr_f64s("energies", &opts.energies)?;
        g.attr_i64("crossings", opts.orbit.crossings as i64)?;
        g.attr_f64("t_max", opts.orbit.t_max)?;
        g.attr_f64("chaos_threshold", opts.chaos_threshold)?;
        if opts.orbit.lyapunov {
            g.attr_str("chaos_criterion", &chaos_criterion(opts.chaos_threshold))?;
        }
        g.attr_bool("lyapunov", opts.orbit.lyapunov)?;
        g.attr_i64("shells", result.shells.len() as i64)?;
        g.attr_bool("complete", result.complete)?;
        g.attr_f64("max_energy_error", result.max_energy_error())?;
        for (k, shell) in result.shells.iter().enumerate() {
            let sg = g.group(&format!("shell_{}", k + 1))?;
            write_shell(&sg, chain, shell, opts)?;
        }
    }
    Ok(())
}
