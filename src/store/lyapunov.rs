//! Layouts of the Lyapunov results (spectrum, ensemble, SALI/GALI, MEGNO, FLI) in HDF5, self-contained for
//! xarray: every diagnostic of the result struct is a variable or an attribute of its group.
//!
//! Spectrum group (e.g. `lyapunov`): coordinates `exponent` (1..k) and `time` (the history),
//! variables `exponents(exponent)`, `standard_error(exponent)`, `history(time, exponent)`,
//! `history_standard_error(time, exponent)`, `pair_sums(pair)` for a full spectrum, and as
//! attributes: Σλ and its error, the volume check, energy drift, Kaplan–Yorke dimension, counts,
//! options and the integrator ([`write_method`]). Units of rates: `s-1` (CF spelling of 1/s).
//!
//! MEGNO group (`megno`): coordinate `time` (the thinned sample history from t = 0), variables
//! `megno_y(time)` (Y) and `megno_mean(time)` (⟨Y⟩), and as attributes ⟨Y⟩ and Y at t_end, the
//! second-half fit (slope, intercept, window), λ = 2·slope, the tangent vector's finite-time
//! exponent, energy drift, counts and the integrator.
//!
//! FLI group (`fli`): coordinate `time` (the thinned interval ends from t = 0), variables
//! `fli(time)` and `ofli(time)`, and as attributes FLI and OFLI at t_end, the rate FLI/t_end,
//! ln|w(t_end)|, energy drift (named as MEGNO's), counts and the integrator.

use super::results::{write_method, write_model};
use super::{GroupWriter, H5Out, StoreError};
use crate::analysis::lyapunov::{EnergyCheck, Ensemble, Estimator, FliOrbit, Lyapunov, MegnoOrbit};
use crate::analysis::orbit::Indicators;
use crate::model::Chain;
use ndarray::Array2;

fn nan_if_none(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// Writes `r` into `g` (see the module docs for the layout).
pub fn write_lyapunov(g: &GroupWriter<'_>, r: &Lyapunov) -> Result<(), StoreError> {
    let k = r.exponents.len();
    let idx: Vec<i64> = (1..=k as i64).collect();
    g.coord_i64(
        "exponent",
        &idx,
        "1",
        "exponent index i (QR column order, descending once converged)",
    )?;
    g.coord(
        "time",
        &r.history.time,
        "s",
        "time of the running estimate (averaging starts after the transient)",
    )?;
    g.var(
        "exponents",
        &["exponent"],
        r.exponents.as_slice(),
        "s-1",
        "Lyapunov exponent",
    )?;
    g.var(
        "standard_error",
        &["exponent"],
        r.standard_error.as_slice(),
        "s-1",
        "batch-means standard error of the exponent",
    )?
    .attr_i64("blocks", r.blocks as i64)?;
    g.var(
        "history",
        &["time", "exponent"],
        &r.history.estimate,
        "s-1",
        "running estimate of the exponent",
    )?;
    g.var(
        "history_standard_error",
        &["time", "exponent"],
        &r.history.standard_error,
        "s-1",
        "running batch-means standard error (NaN until the window holds one point per block)",
    )?;
    if !r.pair_sums.is_empty() {
        let pairs: Vec<i64> = (1..=r.pair_sums.len() as i64).collect();
        g.coord_i64("pair", &pairs, "1", "pair (i, k+1-i)")?;
        g.var(
            "pair_sums",
            &["pair"],
            r.pair_sums.as_slice(),
            "s-1",
            "lambda_i + lambda_(k+1-i) (zero for a Hamiltonian flow as T -> infinity)",
        )?;
        g.var(
            "pair_sums_standard_error",
            &["pair"],
            r.pair_sums_standard_error.as_slice(),
            "s-1",
            "batch-means standard error of the pair sum",
        )?;
    }
    g.attr_str("estimator", r.estimator.name())?;
    if let Estimator::TwoTrajectory { d0 } = r.estimator {
        g.attr_f64("d0", d0)?;
    }
    write_method(g, &r.method)?;
    g.attr_f64("tau", r.tau)?;
    g.attr_f64("transient", r.transient)?;
    g.attr_f64("averaged_time", r.averaged_time)?;
    g.attr_f64("t_end", r.t_end)?;
    g.attr_f64("time_requested", r.options.time)?;
    g.attr_f64("tolerance", nan_if_none(r.options.tolerance))?;
    g.attr_f64("min_time", r.options.min_time)?;
    g.attr_i64("max_history", r.options.max_history as i64)?;
    g.attr_bool("complete", r.complete)?;
    g.attr_str(
        "converged",
        match r.converged {
            None => "no tolerance",
            Some(true) => "yes",
            Some(false) => "no",
        },
    )?;
    g.attr_f64("sum_exponents", r.sum)?;
    g.attr_f64("sum_standard_error", r.sum_standard_error)?;
    let near: Vec<f64> = r.closest_to_zero.iter().map(|&i| (i + 1) as f64).collect();
    g.attr_f64s("closest_to_zero", &near)?;
    g.attr_f64("kaplan_yorke_dimension", nan_if_none(r.kaplan_yorke))?;
    if let Some(v) = &r.volume {
        g.attr_str(
            "volume_split",
            match v.split {
                crate::analysis::lyapunov::VolumeSplit::Unknown => "trapezoid of sampled tr J",
                crate::analysis::lyapunov::VolumeSplit::Potential => "exact boundary term",
                crate::analysis::lyapunov::VolumeSplit::PotentialAndDissipation => {
                    "exact boundary term + trapezoid of dissipation"
                }
            },
        )?;
        g.attr_f64("trace_average", v.trace_average)?;
        g.attr_f64("volume_boundary", nan_if_none(v.boundary))?;
        g.attr_f64("dissipation_average", nan_if_none(v.dissipation_average))?;
    }
    write_energy(g, &r.energy)?;
    let c = &r.counts;
    g.attr_i64("steps", c.steps as i64)?;
    g.attr_i64("rejected_steps", c.rejected_steps as i64)?;
    g.attr_i64("rhs_evaluations", c.rhs_evaluations as i64)?;
    g.attr_i64("qr_factorizations", c.qr_factorizations as i64)?;
    g.attr_i64("averaged_intervals", c.averaged_intervals as i64)?;
    g.attr_i64("transient_intervals", c.transient_intervals as i64)?;
    Ok(())
}

/// The energy balance of a single-orbit run as attributes (the same names for every estimator).
fn write_energy(g: &GroupWriter<'_>, e: &EnergyCheck) -> Result<(), StoreError> {
    g.attr_f64("energy0", e.initial)?;
    g.attr_f64("energy_end", e.last)?;
    g.attr_f64("energy_work", e.work)?;
    g.attr_f64("energy_scale", e.scale)?;
    g.attr_f64("abs_energy_drift", e.abs_drift)?;
    g.attr_f64("relative_energy_drift", e.relative_drift)?;
    g.attr_f64("max_abs_energy_error", e.max_abs_error)?;
    Ok(())
}

/// Group `name` in `out` with the chain's links, parameters ([`write_model`]) and initial state:
/// where a planar chain's single-orbit result goes (`write_lyapunov`, `write_megno`,
/// `write_fli` then fill it).
pub fn chain_group<'a>(
    out: &'a H5Out,
    name: &str,
    chain: &Chain,
    x0: &[f64],
) -> Result<GroupWriter<'a>, StoreError> {
    let g = out.group(name)?;
    link_coord(&g, chain.links())?;
    write_model(&g, chain)?;
    g.initial_state(x0)?;
    Ok(g)
}

/// The `time` coordinate of a single-orbit indicator's history (MEGNO, FLI).
fn sample_time(g: &GroupWriter<'_>, time: &[f64]) -> Result<(), StoreError> {
    g.coord(
        "time",
        time,
        "s",
        "time of the sample (the run starts at 0)",
    )?;
    Ok(())
}

fn link_coord(g: &GroupWriter<'_>, n: usize) -> Result<(), StoreError> {
    let idx: Vec<i64> = (1..=n as i64).collect();
    g.coord_i64("link", &idx, "1", "link index, counted from the pivot")?;
    Ok(())
}

/// Writes a MEGNO run into `g` (see the module docs for the layout).
pub fn write_megno(g: &GroupWriter<'_>, r: &MegnoOrbit) -> Result<(), StoreError> {
    let h = &r.history;
    sample_time(g, &h.time)?;
    g.var(
        "megno_y",
        &["time"],
        h.y.as_slice(),
        "1",
        "MEGNO Y(t) = (2/t) integral_0^t s r(s) ds, r = (J delta).delta / delta.delta",
    )?;
    g.var(
        "megno_mean",
        &["time"],
        h.mean.as_slice(),
        "1",
        "mean MEGNO <Y>(t) = (1/t) integral_0^t Y ds (-> 2 quasi-periodic, 0 stable periodic, (lambda/2) t chaotic)",
    )?;
    g.attr_str("estimator", "megno")?;
    write_method(g, &r.method)?;
    g.attr_f64("megno", r.mean)?;
    g.attr_f64("megno_y_end", r.y)?;
    g.attr_f64("slope", r.fit.slope)?;
    g.attr_f64("slope_intercept", r.fit.intercept)?;
    g.attr_f64s("slope_window", &[r.fit.start, r.fit.end])?;
    g.attr_i64("slope_samples", r.fit.samples as i64)?;
    g.attr_bool("slope_over_every_sample", r.fit.every_sample)?;
    g.attr_f64("lyapunov_from_slope", r.lyapunov)?;
    g.attr_f64("finite_time_exponent", r.finite_time_exponent)?;
    g.attr_f64("tau", r.tau)?;
    g.attr_f64("sample_interval", r.sample_interval)?;
    write_run_end(
        g,
        r.t_end,
        r.options.time,
        r.options.max_history,
        r.complete,
        &r.energy,
    )?;
    let c = &r.counts;
    write_work(g, c.steps, c.rejected_steps, c.rhs_evaluations)?;
    g.attr_i64("samples", c.samples as i64)?;
    g.attr_i64("renormalizations", c.renormalizations as i64)?;
    Ok(())
}

/// Writes an FLI run into `g` (see the module docs for the layout).
pub fn write_fli(g: &GroupWriter<'_>, r: &FliOrbit) -> Result<(), StoreError> {
    let h = &r.history;
    sample_time(g, &h.time)?;
    g.var(
        "fli",
        &["time"],
        h.fli.as_slice(),
        "1",
        "fast Lyapunov indicator FLI(t) = sup_(s<=t) ln|w(s)|, |w(0)| = 1 (~ lambda t chaotic, ~ ln t regular)",
    )?;
    g.var(
        "ofli",
        &["time"],
        h.ofli.as_slice(),
        "1",
        "orthogonal FLI: sup_(s<=t) ln|w_perp(s)|, w_perp the part of w orthogonal to the flow",
    )?;
    g.attr_str("estimator", "fli")?;
    write_method(g, &r.method)?;
    g.attr_f64("fli", r.fli)?;
    g.attr_f64("ofli", r.ofli)?;
    g.attr_f64("fli_rate", r.rate)?;
    g.attr_f64("log_norm_end", r.log_norm)?;
    g.attr_f64("tau", r.tau)?;
    write_run_end(
        g,
        r.t_end,
        r.options.time,
        r.options.max_history,
        r.complete,
        &r.energy,
    )?;
    let c = &r.counts;
    write_work(g, c.steps, c.rejected_steps, c.rhs_evaluations)?;
    g.attr_i64("renormalizations", c.renormalizations as i64)?;
    Ok(())
}

/// The end of a single-orbit indicator run (MEGNO, FLI): where it ended, what was asked, whether
/// it finished, and its energy balance.
fn write_run_end(
    g: &GroupWriter<'_>,
    t_end: f64,
    time_requested: f64,
    max_history: usize,
    complete: bool,
    energy: &EnergyCheck,
) -> Result<(), StoreError> {
    g.attr_f64("t_end", t_end)?;
    g.attr_f64("time_requested", time_requested)?;
    g.attr_i64("max_history", max_history as i64)?;
    g.attr_bool("complete", complete)?;
    write_energy(g, energy)
}

/// The integrator's work counts of a single-orbit indicator run.
fn write_work(g: &GroupWriter<'_>, steps: u64, rejected: u64, rhs: u64) -> Result<(), StoreError> {
    g.attr_i64("steps", steps as i64)?;
    g.attr_i64("rejected_steps", rejected as i64)?;
    g.attr_i64("rhs_evaluations", rhs as i64)?;
    Ok(())
}

/// Writes an ensemble into `g`: coordinates `member`, `exponent`, `component`; variables
/// `mean`, `std`, `standard_error` over `exponent`, `member_exponents` and
/// `member_standard_error` over (member, exponent), `initial_conditions(member, component)`;
/// attributes epsilon, seed, complete.
pub fn write_ensemble(g: &GroupWriter<'_>, e: &Ensemble) -> Result<(), StoreError> {
    let m = e.members.len();
    let k = e.mean.len();
    let dim = e.initial_conditions.first().map_or(0, |x| x.len());
    g.coord_i64(
        "member",
        &(0..m as i64).collect::<Vec<_>>(),
        "1",
        "ensemble member (0: unperturbed)",
    )?;
    g.coord_i64(
        "exponent",
        &(1..=k as i64).collect::<Vec<_>>(),
        "1",
        "exponent index i",
    )?;
    g.coord_i64(
        "component",
        &(0..dim as i64).collect::<Vec<_>>(),
        "1",
        "state component",
    )?;
    g.var(
        "mean",
        &["exponent"],
        e.mean.as_slice(),
        "s-1",
        "ensemble mean exponent",
    )?;
    g.var(
        "std",
        &["exponent"],
        e.std.as_slice(),
        "s-1",
        "standard deviation across members",
    )?;
    g.var(
        "standard_error",
        &["exponent"],
        e.standard_error.as_slice(),
        "s-1",
        "standard error of the ensemble mean (std / sqrt(M))",
    )?;
    let ex = Array2::from_shape_fn((m, k), |(i, j)| {
        e.members[i].exponents.get(j).copied().unwrap_or(f64::NAN)
    });
    let se = Array2::from_shape_fn((m, k), |(i, j)| {
        e.members[i]
            .standard_error
            .get(j)
            .copied()
            .unwrap_or(f64::NAN)
    });
    let ic = Array2::from_shape_fn((m, dim), |(i, j)| e.initial_conditions[i][j]);
    g.var(
        "member_exponents",
        &["member", "exponent"],
        &ex,
        "s-1",
        "each member's exponents",
    )?;
    g.var(
        "member_standard_error",
        &["member", "exponent"],
        &se,
        "s-1",
        "each member's batch-means standard error",
    )?;
    g.var(
        "initial_conditions",
        &["member", "component"],
        &ic,
        "1",
        "each member's initial state (SI units of the state components)",
    )?;
    g.attr_f64("epsilon", e.options.epsilon)?;
    g.attr_i64("seed", e.options.seed as i64)?;
    g.attr_i64("members_requested", e.options.members as i64)?;
    g.attr_bool("complete", e.complete)?;
    if let Some(first) = e.members.first() {
        write_method(g, &first.method)?;
        g.attr_f64("tau", first.tau)?;
        g.attr_f64("transient", first.transient)?;
        g.attr_f64("time_requested", first.options.time)?;
    }
    Ok(())
}

/// Writes SALI/GALI histories into `g`: coordinates `time` and `gali_order`, variables
/// `sali(time)` and `gali(time, gali_order)`, the verdict and thresholds as attributes.
pub fn write_indicators(g: &GroupWriter<'_>, r: &Indicators) -> Result<(), StoreError> {
    use crate::analysis::orbit::{SALI_CHAOTIC, SALI_REGULAR};
    g.coord("time", &r.time, "s", "time")?;
    let orders: Vec<i64> = r.orders.iter().map(|&o| o as i64).collect();
    g.coord_i64(
        "gali_order",
        &orders,
        "1",
        "number k of deviation vectors in GALI_k",
    )?;
    g.var(
        "sali",
        &["time"],
        r.sali.as_slice(),
        "1",
        "smaller alignment index min(|u1+u2|, |u1-u2|)",
    )?;
    g.var(
        "gali",
        &["time", "gali_order"],
        &r.gali,
        "1",
        "generalized alignment index (volume of the k unit deviation vectors)",
    )?;
    g.attr_str("regularity", r.regularity.name())?;
    g.attr_f64("chaos_time", nan_if_none(r.chaos_time))?;
    g.attr_f64("min_sali", r.min_sali)?;
    g.attr_f64("min_sali_second_half", r.min_sali_second_half)?;
    g.attr_f64("sali_chaotic_threshold", SALI_CHAOTIC)?;
    g.attr_f64("sali_regular_threshold", SALI_REGULAR)?;
    g.attr_f64("tau", r.options.tau)?;
    g.attr_f64("time_requested", r.options.time)?;
    g.attr_f64("t_end", r.t_end)?;
    g.attr_i64("seed", r.options.seed as i64)?;
    g.attr_bool("stopped_below", r.stopped_below)?;
    g.attr_f64("stop_below", nan_if_none(r.options.stop_below))?;
    g.attr_bool("complete", r.complete)?;
    g.attr_i64("steps", r.steps as i64)?;
    g.attr_i64("rhs_evaluations", r.rhs_evaluations as i64)?;
    write_method(g, &r.method)?;
    Ok(())
}
