//! Group `frequencies`: each link's lines (link × term), the fundamental frequencies, the
//! combination of them explaining each line (link × term × fundamental; `explained` 1 where
//! one is within the attribute `combination_tolerance`, else the line is unexplained: its
//! combination 0 and residual NaN), and those of the two halves of the run (half ×
//! fundamental) with the diffusion index. Every variable has CF `units` and `long_name` over
//! named dimensions; a missing entry (a link with fewer lines, a half with fewer fundamentals)
//! is NaN, or 0 in the integer combinations with `valid` false.

use super::results::write_model;
use super::{write_method, H5Out, RunInfo, StoreError};
use crate::run::FrequenciesResult;
use crate::spec::FrequenciesRun;
use ndarray::{Array2, Array3};

/// How the threshold `combination_tolerance` is set, as the file states it.
pub const TOLERANCE_RULE: &str = "1e-7 * omega_ref: a combination sum_i k_i nu_i (sum |k_i| <= combination_order) explains a line when it lies within it; a line no combination comes that close to is unexplained (no label). Far above NAFF's frequency error on a torus (~1e-12..1e-10 relative, times the order), far below the window's resolution 2 pi / T";

pub fn write_frequencies(
    out: &H5Out,
    run: &RunInfo<'_>,
    spec: &FrequenciesRun,
    r: &FrequenciesResult,
) -> Result<(), StoreError> {
    let g = out.group("frequencies")?;
    let n = run.chain.links();
    let o = &r.orbit;
    g.attr_str("title", run.title)?;
    g.attr_str("model", run.model_name)?;
    g.attr_bool("complete", r.complete)?;
    g.attr_f64("omega_ref", r.omega_ref)?;
    g.attr_str(
        "omega_ref_source",
        if r.omega_ref_derived {
            "lowest small-oscillation frequency"
        } else {
            "given"
        },
    )?;
    g.attr_str(
        "signal",
        "theta_j - i omega_j / omega_ref (libration), exp(i theta_j) (circulation)",
    )?;
    g.attr_i64("window_order", spec.window_order as i64)?;
    g.attr_i64("terms", spec.terms as i64)?;
    g.attr_i64("combination_order", spec.combination_order as i64)?;
    g.attr_f64("combination_tolerance", r.tolerance)?;
    g.attr_str("combination_tolerance_rule", TOLERANCE_RULE)?;
    g.attr_i64("samples", r.samples as i64)?;
    g.attr_f64("dt_out", r.dt_out)?;
    g.attr_f64("t_end", (r.samples - 1) as f64 * r.dt_out)?;
    g.attr_f64("diffusion", o.diffusion)?;
    g.attr_f64("diffusion_index", o.diffusion_index)?;
    g.attr_f64("max_relative_energy_error", r.max_relative_energy_error)?;
    write_method(&g, run.method)?;
    g.coord_i64(
        "link",
        &(1..=n as i64).collect::<Vec<_>>(),
        "1",
        "link index, counted from the pivot",
    )?;
    write_model(&g, run.chain)?;
    g.initial_state(run.x0)?;
    let terms = o.links.iter().map(|l| l.lines.len()).max().unwrap_or(0);
    g.coord_i64(
        "term",
        &(1..=terms as i64).collect::<Vec<_>>(),
        "1",
        "line of the link's signal, in the order found (strongest first)",
    )?;
    let nf = o
        .fundamentals
        .len()
        .max(o.first_half.len())
        .max(o.second_half.len());
    g.coord_i64(
        "fundamental",
        &(1..=nf as i64).collect::<Vec<_>>(),
        "1",
        "fundamental frequency, ascending",
    )?;
    g.coord_i64("half", &[1, 2], "1", "half of the run: 1 first, 2 second")?;
    let signal: Vec<u8> = o.links.iter().map(|l| l.signal as u8).collect();
    g.var(
        "signal",
        &["link"],
        signal.as_slice(),
        "1",
        "the link's analysed signal",
    )?
    .attr_u8s("flag_values", &[0, 1])?
    .attr_str("flag_meanings", "libration circulation")?;
    let line = |f: &dyn Fn(&crate::analysis::frequency::LineOut) -> f64| {
        Array2::from_shape_fn((n, terms), |(j, k)| {
            o.links
                .get(j)
                .and_then(|l| l.lines.get(k))
                .map_or(f64::NAN, f)
        })
    };
    g.var(
        "frequency",
        &["link", "term"],
        &line(&|l| l.frequency),
        "rad s-1",
        "angular frequency of the line (signed: negative turns clockwise)",
    )?;
    g.var(
        "amplitude",
        &["link", "term"],
        &line(&|l| l.amplitude),
        "1",
        "modulus of the line's complex amplitude (rad for a libration signal, 1 for exp(i theta))",
    )?;
    g.var(
        "phase",
        &["link", "term"],
        &line(&|l| l.phase),
        "rad",
        "phase of the line at t = 0",
    )?;
    g.var(
        "combination_residual",
        &["link", "term"],
        &line(&|l| l.combination.as_ref().map_or(f64::NAN, |c| c.residual)),
        "rad s-1",
        "line frequency minus the combination of the fundamentals explaining it (NaN: unexplained)",
    )?;
    let combination = Array3::from_shape_fn((n, terms, nf), |(j, k, i)| {
        o.links
            .get(j)
            .and_then(|l| l.lines.get(k))
            .and_then(|l| l.combination.as_ref())
            .and_then(|c| c.k.get(i))
            .map_or(0i64, |&c| c as i64)
    });
    g.var(
        "combination",
        &["link", "term", "fundamental"],
        &combination,
        "1",
        "integer coefficients k of the combination sum_i k_i nu_i explaining the line (0 where no line or unexplained)",
    )?;
    let explained = Array2::from_shape_fn((n, terms), |(j, k)| {
        u8::from(
            o.links
                .get(j)
                .and_then(|l| l.lines.get(k))
                .is_some_and(|l| l.combination.is_some()),
        )
    });
    g.var(
        "explained",
        &["link", "term"],
        &explained,
        "1",
        "1 where a combination lies within combination_tolerance of the line, 0 where none does (unexplained) or no line",
    )?;
    let valid = Array2::from_shape_fn((n, terms), |(j, k)| {
        u8::from(o.links.get(j).is_some_and(|l| k < l.lines.len()))
    });
    g.var(
        "valid",
        &["link", "term"],
        &valid,
        "1",
        "1 where the link has this line",
    )?;
    let pad = |v: &[f64]| {
        (0..nf)
            .map(|i| v.get(i).copied().unwrap_or(f64::NAN))
            .collect::<Vec<f64>>()
    };
    g.var(
        "fundamental_frequency",
        &["fundamental"],
        pad(&o.fundamentals).as_slice(),
        "rad s-1",
        "fundamental frequency of the whole run",
    )?;
    let halves = Array2::from_shape_fn((2, nf), |(h, i)| {
        let v = if h == 0 {
            &o.first_half
        } else {
            &o.second_half
        };
        v.get(i).copied().unwrap_or(f64::NAN)
    });
    g.var(
        "half_fundamental_frequency",
        &["half", "fundamental"],
        &halves,
        "rad s-1",
        "fundamental frequency of each half of the run",
    )?;
    Ok(())
}
