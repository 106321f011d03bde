//! Measures of label grids in HDF5: group `measure` (the options as attributes) with one
//! subgroup `set_<k>` per label grid (a map thresholded at one flip time, one dataset).
//!
//! This file lays out a set; the single map's record here and the sweep's ([`sweep`]) both
//! lay out their sets with it, so a file of one map and a file of a sweep point keep the same
//! layout. The records are the measure kind's ([`crate::finding::Finding::record`]) and the
//! Python package's writers' ([`write_measure`], [`write_chaotic_fraction`]), which is why
//! they are built here. Reading a label grid is [`labels`]; the chaotic fraction's group is [`chaotic`].
//!
//! Each set holds `label(label)` pixel counts and, for what was measured, the subgroups
//! `boundary_dimension` (box sides, mean and per-shift box counts, the fitted line, the slope
//! with its 95 % interval, the scaling range and its rule), `uncertainty_exponent` (ε, f(ε),
//! the fit, α and D = 2 − α with intervals), `basin_entropy` (S_b and S_bb per ε with their
//! per-shift values and intervals, the log 2 verdict) and `wada` (W(r) per radius). Sizes are
//! in pixels; `*_physical` variables give them in the axes' units when the extent is known.

use super::{write_record, H5Out, StoreError};
use crate::analysis::measure::{
    BasinEntropy, BoxDimension, MeasureOptions, MeasuredSet, UncertaintyExponent, WadaTest, BOX_CI,
    BOX_RULE, ENTROPY_CI, UNCERTAINTY_RULE,
};
use crate::finding::{Attr, Record};
use ndarray::Array2;

mod chaotic;
mod labels;
mod sweep;

pub use chaotic::{chaotic_record, write_chaotic_fraction, ChaoticRun, CHAOTIC_SAMPLING};
pub use labels::{read_labels, LabelData};
pub use sweep::{sweep_record, SweepRun};

/// Writes group `measure` with one `set_<k>` subgroup per entry of `sets` (k from 1).
pub fn write_measure(
    out: &H5Out,
    opts: &MeasureOptions,
    sets: &[MeasuredSet],
) -> Result<(), StoreError> {
    write_record(out, None, &measure_record(opts, sets))
}

/// Group `measure` with one `set_<k>` subgroup per entry of `sets` (k from 1), as a record
/// (the measure kind's result writes it through [`write_record`]).
pub fn measure_record(opts: &MeasureOptions, sets: &[MeasuredSet]) -> Record {
    let mut g = Record::new("measure");
    options_attrs(&mut g, opts, sets.len());
    for (k, s) in sets.iter().enumerate() {
        g.group(set_record(format!("set_{}", k + 1), s));
    }
    g
}

/// The measure options as attributes of `g`.
fn options_attrs(g: &mut Record, opts: &MeasureOptions, sets: usize) {
    g.attr("what", opts.what.name())
        .attr("sets", sets as i64)
        .attr("box_min_px", opts.boxes.min_box as i64)
        .attr("box_min_fraction_inv", opts.boxes.min_fraction_inv as i64)
        .attr("box_max_fraction_inv", opts.boxes.max_fraction_inv as i64)
        .attr("box_shifts", opts.boxes.shifts as i64)
        .attr("seed", opts.boxes.seed as i64)
        .attr("uncertainty_max_eps_px", opts.uncertainty.max_eps as i64)
        .attr("entropy_shifts", opts.entropy_shifts as i64)
        .attr("wada_threshold", opts.wada.threshold);
}

/// A measure and its 95 % interval.
type Bounded = (f64, (f64, f64));

/// One variable of a [`Bounded`] measure: its name, long name, and its part of the measure.
type Part = (String, String, fn(Bounded) -> f64);

/// A measure's three variables: the value `name` (long name `what`), then its lower and
/// upper 95 % bounds, whose (name, long name) `bound("lower")` and `bound("upper")` give.
/// One home for the set's entropy columns and the sweep's tables, which name bounds apart.
fn bounded_vars(name: &str, what: &str, bound: impl Fn(&str) -> (String, String)) -> [Part; 3] {
    let ((lo, lo_what), (hi, hi_what)) = (bound("lower"), bound("upper"));
    [
        (name.to_owned(), what.to_owned(), |m| m.0),
        (lo, lo_what, |m| m.1 .0),
        (hi, hi_what, |m| m.1 .1),
    ]
}

/// The group `name` of one measured set.
fn set_record(name: String, s: &MeasuredSet) -> Record {
    let mut g = Record::new(name);
    g.attr("source", s.source.as_str())
        .attr("width", s.nx as i64)
        .attr("height", s.ny as i64);
    if let Some(e) = s.extent {
        g.attr("extent", Attr::F64s(e.to_vec()));
    }
    if let Some([(xn, xu), (yn, yu)]) = &s.axes {
        g.attr("x_coordinate", xn.as_str())
            .attr("x_units", xu.as_str())
            .attr("y_coordinate", yn.as_str())
            .attr("y_units", yu.as_str());
    }
    let values: Vec<i64> = s.labels.iter().map(|l| i64::from(l.0)).collect();
    let counts: Vec<i64> = s.labels.iter().map(|l| l.1 as i64).collect();
    g.coord("label", values, "1", "label value in the grid");
    g.var(
        "label_pixels",
        &["label"],
        counts,
        "1",
        "pixels holding the label",
    );
    let m = &s.measures;
    if let Some(b) = &m.boundary {
        g.group(boxes(b, s));
    }
    if let Some(u) = &m.uncertainty {
        g.group(uncertainty(u, s));
    }
    if !m.entropy.is_empty() {
        g.group(entropy(&m.entropy));
    }
    if let Some(w) = &m.wada {
        g.group(wada(w));
    } else if let Some(why) = &m.wada_skipped {
        g.attr("wada_skipped", why.as_str());
    }
    g
}

/// Physical sizes `px · pixel side` along x, when the extent is known.
fn physical(g: &mut Record, dim: &'static str, px: &[usize], s: &MeasuredSet) {
    if let Some((dx, dy)) = s.pixel() {
        let units = |i: usize| s.axes.as_ref().map_or("1".to_string(), |a| a[i].1.clone());
        let x: Vec<f64> = px.iter().map(|&p| p as f64 * dx.abs()).collect();
        let y: Vec<f64> = px.iter().map(|&p| p as f64 * dy.abs()).collect();
        g.var(
            format!("{dim}_physical_x"),
            &[dim],
            x,
            units(0),
            format!("{dim} along x in the axis' units"),
        );
        g.var(
            format!("{dim}_physical_y"),
            &[dim],
            y,
            units(1),
            format!("{dim} along y in the axis' units"),
        );
    }
}

fn boxes(b: &BoxDimension, s: &MeasuredSet) -> Record {
    let mut g = Record::new("boundary_dimension");
    let sizes: Vec<i64> = b.sizes.iter().map(|&v| v as i64).collect();
    g.coord("box_size", sizes, "1", "box side in pixels");
    physical(&mut g, "box_size", &b.sizes, s);
    let shifts: Vec<i64> = (0..b.shift_counts.len() as i64).collect();
    g.coord("shift", shifts, "1", "box-grid shift (0: no shift)");
    g.var(
        "box_count",
        &["box_size"],
        b.counts.as_slice(),
        "1",
        "boxes the boundary passes through, mean over shifts (whole boxes, scaled to the grid's area)",
    );
    let fitted: Vec<f64> = b
        .sizes
        .iter()
        .map(|&v| (b.fit.intercept - b.fit.slope * (v as f64).ln()).exp())
        .collect();
    g.var(
        "fitted_box_count",
        &["box_size"],
        fitted,
        "1",
        "the fitted power law exp(intercept) · box_size^-D",
    );
    let mut per = Array2::<f64>::zeros((b.shift_counts.len(), b.sizes.len()));
    for (i, c) in b.shift_counts.iter().enumerate() {
        for (k, v) in c.iter().enumerate() {
            per[(i, k)] = *v;
        }
    }
    g.var(
        "shift_box_count",
        &["shift", "box_size"],
        per,
        "1",
        "boundary boxes per shift",
    );
    offsets(&mut g, &b.shift_offsets);
    g.var(
        "shift_slope",
        &["shift"],
        b.shift_slopes.as_slice(),
        "1",
        "slope of log N against log(1/s) for this shift alone",
    );
    g.attr("dimension", b.dimension)
        .attr("ci_low", b.ci.0)
        .attr("ci_high", b.ci.1)
        .attr("ci_method", BOX_CI)
        .attr("range_sensitivity", b.range_sensitivity)
        .attr("slope_se", b.fit.slope_se)
        .attr("intercept", b.fit.intercept)
        .attr("residual_se", b.fit.residual_se)
        .attr("fit_points", b.fit.points as i64)
        .attr("scaling_min_px", *b.sizes.first().unwrap_or(&0) as i64)
        .attr("scaling_max_px", *b.sizes.last().unwrap_or(&0) as i64)
        .attr("scaling_rule", BOX_RULE);
    g
}

fn offsets(g: &mut Record, o: &[(usize, usize)]) {
    let ox: Vec<i64> = o.iter().map(|p| p.0 as i64).collect();
    let oy: Vec<i64> = o.iter().map(|p| p.1 as i64).collect();
    g.var(
        "shift_offset_x",
        &["shift"],
        ox,
        "1",
        "box-grid offset along x in pixels",
    );
    g.var(
        "shift_offset_y",
        &["shift"],
        oy,
        "1",
        "box-grid offset along y in pixels",
    );
}

fn uncertainty(u: &UncertaintyExponent, s: &MeasuredSet) -> Record {
    let mut g = Record::new("uncertainty_exponent");
    let eps: Vec<i64> = u.eps.iter().map(|&v| v as i64).collect();
    g.coord("eps", eps, "1", "uncertainty distance ε in pixels");
    physical(&mut g, "eps", &u.eps, s);
    g.var(
        "uncertain_fraction",
        &["eps"],
        u.fraction.as_slice(),
        "1",
        "fraction f(ε) of tested pixels with another label ε away along ±x or ±y",
    );
    let fitted: Vec<f64> = u
        .eps
        .iter()
        .map(|&e| (u.fit.intercept + u.fit.slope * (e as f64).ln()).exp())
        .collect();
    g.var(
        "fitted_fraction",
        &["eps"],
        fitted,
        "1",
        "the fitted power law exp(intercept) · ε^α",
    );
    g.attr("alpha", u.alpha)
        .attr("ci_low", u.ci.0)
        .attr("ci_high", u.ci.1)
        .attr(
            "ci_method",
            "95 %: half-width sqrt((t_0.975 se of the fitted slope)^2 + r^2), r the larger change of alpha when eps = 1 or eps = K is dropped",
        )
        .attr("range_sensitivity", u.range_sensitivity)
        .attr("dimension", u.dimension)
        .attr("dimension_ci_low", u.dimension_ci.0)
        .attr("dimension_ci_high", u.dimension_ci.1)
        .attr("slope_se", u.fit.slope_se)
        .attr("intercept", u.fit.intercept)
        .attr("tested_pixels", u.tested as i64)
        .attr("scaling_min_px", 1i64)
        .attr("scaling_max_px", *u.eps.last().unwrap_or(&0) as i64)
        .attr("scaling_rule", UNCERTAINTY_RULE);
    g
}

fn entropy(es: &[BasinEntropy]) -> Record {
    let mut g = Record::new("basin_entropy");
    let eps: Vec<i64> = es.iter().map(|e| e.eps as i64).collect();
    g.coord("eps", eps, "1", "box side ε in pixels");
    let ns = es.iter().map(|e| e.shift_values.len()).max().unwrap_or(0);
    g.coord(
        "shift",
        (0..ns as i64).collect::<Vec<_>>(),
        "1",
        "box-grid shift (0: no shift)",
    );
    // S_b and S_bb with the ends of their 95 % intervals: value, `_ci_low`, `_ci_high`.
    type GetE = fn(&BasinEntropy) -> Bounded;
    let cols: [(&str, &str, &str, GetE); 2] = [
        (
            "sb",
            "S_b",
            "basin entropy S_b: mean Gibbs entropy of the label fractions over all boxes",
            |e| (e.sb, e.sb_ci),
        ),
        (
            "sbb",
            "S_bb",
            "boundary basin entropy S_bb: mean over boxes holding two or more labels",
            |e| (e.sbb, e.sbb_ci),
        ),
    ];
    for (name, symbol, what, f) in cols {
        let parts = bounded_vars(name, what, |end| {
            let short = if end == "lower" { "low" } else { "high" };
            (
                format!("{name}_ci_{short}"),
                format!("{end} end of the 95 % interval of {symbol}"),
            )
        });
        for (name, what, part) in parts {
            let v: Vec<f64> = es.iter().map(|e| part(f(e))).collect();
            g.var(name, &["eps"], v, "1", what);
        }
    }
    let log2: Vec<i8> = es.iter().map(|e| i8::from(e.fractal_by_log2)).collect();
    g.var(
        "fractal_by_log2",
        &["eps"],
        log2,
        "1",
        "1 when the whole 95 % interval of S_bb lies above ln 2 (sufficient for a fractal boundary)",
    );
    let grid = |f: &dyn Fn(&BasinEntropy, usize) -> f64| {
        Array2::from_shape_fn((es.len(), ns), |(i, j)| {
            if j < es[i].shift_values.len() {
                f(&es[i], j)
            } else {
                f64::NAN
            }
        })
    };
    g.var(
        "shift_sb",
        &["eps", "shift"],
        grid(&|e, j| e.shift_values[j].0),
        "1",
        "S_b for one shift",
    );
    g.var(
        "shift_sbb",
        &["eps", "shift"],
        grid(&|e, j| e.shift_values[j].1),
        "1",
        "S_bb for one shift",
    );
    g.var(
        "boxes",
        &["eps", "shift"],
        grid(&|e, j| e.shift_values[j].2 as f64),
        "1",
        "whole boxes counted for one shift",
    );
    g.var(
        "boundary_boxes",
        &["eps", "shift"],
        grid(&|e, j| e.shift_values[j].3 as f64),
        "1",
        "boxes holding two or more labels for one shift",
    );
    g.var(
        "shift_offset_x",
        &["eps", "shift"],
        grid(&|e, j| e.shift_offsets[j].0 as f64),
        "1",
        "box-grid offset along x in pixels",
    );
    g.var(
        "shift_offset_y",
        &["eps", "shift"],
        grid(&|e, j| e.shift_offsets[j].1 as f64),
        "1",
        "box-grid offset along y in pixels",
    );
    g.attr("log2", std::f64::consts::LN_2)
        .attr("ci_method", ENTROPY_CI);
    g
}

fn wada(w: &WadaTest) -> Record {
    let mut g = Record::new("wada");
    let r: Vec<i64> = w.radii.iter().map(|&v| v as i64).collect();
    g.coord(
        "radius",
        r,
        "1",
        "neighbourhood radius r in pixels (refinement steps, coarse to fine read backwards)",
    );
    let bp: Vec<i64> = w.boundary_points.iter().map(|&v| v as i64).collect();
    let wp: Vec<i64> = w.wada_points.iter().map(|&v| v as i64).collect();
    g.var(
        "boundary_points",
        &["radius"],
        bp,
        "1",
        "pixels whose (2r+1)² neighbourhood holds two or more labels",
    );
    g.var(
        "wada_points",
        &["radius"],
        wp,
        "1",
        "pixels whose neighbourhood holds every label",
    );
    g.var(
        "wada_fraction",
        &["radius"],
        w.fraction.as_slice(),
        "1",
        "W(r) = wada_points / boundary_points",
    );
    g.attr("wada", w.wada).attr("labels", w.labels as i64).attr(
        "rule",
        "Wada when W(r_max) >= threshold (measure/wada_threshold)",
    );
    g
}
