//! Layouts of the Lyapunov results (spectrum, ensemble, SALI/GALI, MEGNO, FLI) in HDF5, self-contained for
//! xarray: every diagnostic of the result struct is a variable or an attribute of its group.
//!
//! Spectrum group (e.g. `lyapunov`): coordinates `exponent` (1..k) and `time` (the history),
//! variables `exponents(exponent)`, `standard_error(exponent)`, `history(time, exponent)`,
//! `history_standard_error(time, exponent)`, `pair_sums(pair)` for a full spectrum, and as
//! attributes: Σλ and its error, the volume check, energy drift, Kaplan–Yorke dimension (only for a
//! non-conservative chain whose exponents determine it), counts,
//! options and the integrator ([`write_method`]). Units of rates: `s-1` (CF spelling of 1/s).
//!
//! A registered indicator's group (`megno`, `fli`, …) is not written here: its result describes
//! itself ([`crate::analysis::orbit::IndicatorResult`]) and [`super::write_record`] writes it.

use super::results::{link_coord, write_method, write_model};
use super::{GroupWriter, H5Out, StoreError};
use crate::analysis::lyapunov::{EnergyCheck, Estimator, Lyapunov};
use crate::model::Chain;

fn nan_if_none(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// Writes `r` into `g` (see the module docs for the layout).
pub fn write_lyapunov(g: &GroupWriter<'_>, r: &Lyapunov) -> Result<(), StoreError> {
    spectrum_vars(g, r)?;
    run_attrs(g, r)?;
    result_attrs(g, r)?;
    write_energy(g, &r.energy)?;
    count_attrs(g, r)
}

/// The spectrum's coordinates and variables: the exponents with their errors, their history,
/// and the pair sums of a full spectrum.
fn spectrum_vars(g: &GroupWriter<'_>, r: &Lyapunov) -> Result<(), StoreError> {
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
    Ok(())
}

/// How the spectrum was run, as attributes: the estimator, the integrator, the times and
/// the options, whether it completed and converged.
fn run_attrs(g: &GroupWriter<'_>, r: &Lyapunov) -> Result<(), StoreError> {
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
    // The one vector's start, as run (default diagonal); none for a spectrum's basis.
    if let Some(d) = r.options.deviation {
        g.attr_str("deviation", d.name())?;
    }
    g.attr_bool("complete", r.complete)?;
    g.attr_str(
        "converged",
        match r.converged {
            None => "no tolerance",
            Some(true) => "yes",
            Some(false) => "no",
        },
    )?;
    Ok(())
}

/// What the spectrum says, as attributes: Σλ with its error, the exponents closest to zero,
/// the Kaplan–Yorke dimension and the volume check where they mean something.
fn result_attrs(g: &GroupWriter<'_>, r: &Lyapunov) -> Result<(), StoreError> {
    g.attr_f64("sum_exponents", r.sum)?;
    g.attr_f64("sum_standard_error", r.sum_standard_error)?;
    let near: Vec<f64> = r.closest_to_zero.iter().map(|&i| (i + 1) as f64).collect();
    g.attr_f64s("closest_to_zero", &near)?;
    // Omitted where it means nothing (a conservative chain) or the exponents do not determine it.
    if let Some(d) = r.kaplan_yorke {
        g.attr_f64("kaplan_yorke_dimension", d)?;
    }
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
    Ok(())
}

/// The run's work counts as attributes.
fn count_attrs(g: &GroupWriter<'_>, r: &Lyapunov) -> Result<(), StoreError> {
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
    for (name, v) in e.attrs() {
        g.attr_f64(name, v)?;
    }
    Ok(())
}

/// Group `name` in `out` with the chain's links, parameters ([`write_model`]) and initial state:
/// where a planar chain's spectrum goes (`write_lyapunov` then fills it).
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
