//! Measures of label grids in HDF5: group `measure` (the options as attributes) with one
//! subgroup `set_<k>` per label grid (a map thresholded at one flip time, one dataset).
//!
//! Over 800 lines on purpose: the single-map writer and the sweep writer lay out the same
//! subgroups (sets, box counts, entropy tables), and they are kept side by side so that a file
//! of one map and a file of a sweep point stay the same layout.
//!
//! Each set holds `label(label)` pixel counts and, for what was measured, the subgroups
//! `boundary_dimension` (box sides, mean and per-shift box counts, the fitted line, the slope
//! with its 95 % interval, the scaling range and its rule), `uncertainty_exponent` (ε, f(ε),
//! the fit, α and D = 2 − α with intervals), `basin_entropy` (S_b and S_bb per ε with their
//! per-shift values and intervals, the log 2 verdict) and `wada` (W(r) per radius). Sizes are
//! in pixels; `*_physical` variables give them in the axes' units when the extent is known.

use super::{GroupWriter, H5Out, StoreError};
use crate::analysis::convergence::Trend;
use crate::analysis::measure::chaotic::{ChaoticOptions, ShellFraction};
use crate::analysis::measure::labels::{self, ValueType};
use crate::analysis::measure::{
    BasinEntropy, BoxDimension, MeasureOptions, MeasuredSet, UncertaintyExponent, WadaTest, BOX_CI,
    BOX_RULE, ENTROPY_CI, UNCERTAINTY_RULE,
};
use crate::analysis::orbit::{SALI_CHAOTIC, SALI_REGULAR};
use crate::error::FieldError;
use crate::integrate::Method;
use ndarray::Array2;

/// Writes group `measure` with one `set_<k>` subgroup per entry of `sets` (k from 1).
pub fn write_measure(
    out: &H5Out,
    opts: &MeasureOptions,
    sets: &[MeasuredSet],
) -> Result<(), StoreError> {
    let g = out.group("measure")?;
    options_attrs(&g, opts, sets.len())?;
    for (k, s) in sets.iter().enumerate() {
        write_set(&g.group(&format!("set_{}", k + 1))?, s)?;
    }
    Ok(())
}

/// The measure options as attributes of `g`.
fn options_attrs(
    g: &GroupWriter<'_>,
    opts: &MeasureOptions,
    sets: usize,
) -> Result<(), StoreError> {
    g.attr_str("what", opts.what.name())?
        .attr_i64("sets", sets as i64)?
        .attr_i64("box_min_px", opts.boxes.min_box as i64)?
        .attr_i64("box_min_fraction_inv", opts.boxes.min_fraction_inv as i64)?
        .attr_i64("box_max_fraction_inv", opts.boxes.max_fraction_inv as i64)?
        .attr_i64("box_shifts", opts.boxes.shifts as i64)?
        .attr_i64("seed", opts.boxes.seed as i64)?
        .attr_i64("uncertainty_max_eps_px", opts.uncertainty.max_eps as i64)?
        .attr_i64("entropy_shifts", opts.entropy_shifts as i64)?
        .attr_f64("wada_threshold", opts.wada.threshold)?;
    Ok(())
}

/// A measure sweep: the spec field varied, its units and values, and every point's sets (each
/// point holds the same sets: one per flip time, or the one label grid).
#[derive(Debug, Clone)]
pub struct SweepRun<'a> {
    pub parameter: &'a str,
    pub units: &'a str,
    pub values: &'a [f64],
    pub points: &'a [Vec<MeasuredSet>],
}

/// Writes group `measure` of a sweep: the options and `sweep_parameter` as attributes, the
/// coordinates `sweep` (the parameter's values, in its units) and `set`, and over
/// (sweep, set) every measure with its 95 % bounds (`*_lo`, `*_hi`; NaN where not measured),
/// S_b and S_bb also over `eps`; each point's full sets in `point_<k>/set_<j>` (k, j from 1).
pub fn write_measure_sweep(
    out: &H5Out,
    opts: &MeasureOptions,
    run: &SweepRun<'_>,
) -> Result<(), StoreError> {
    let g = out.group("measure")?;
    let sets = run.points.first().map_or(0, Vec::len);
    options_attrs(&g, opts, sets)?;
    g.attr_str("sweep_parameter", run.parameter)?
        .attr_i64("points", run.points.len() as i64)?;
    g.coord(
        "sweep",
        run.values,
        run.units,
        &format!("{} of each sweep point", run.parameter),
    )?;
    let set_index: Vec<i64> = (1..=sets as i64).collect();
    g.coord_i64("set", &set_index, "1", "label set (point_<k>/set_<j>)")?;
    sweep_tables(&g, run, sets)?;
    sweep_entropy(&g, run, sets)?;
    for (k, p) in run.points.iter().enumerate() {
        let pg = g.group(&format!("point_{}", k + 1))?;
        pg.attr_f64("sweep_value", run.values[k])?;
        for (j, s) in p.iter().enumerate() {
            write_set(&pg.group(&format!("set_{}", j + 1))?, s)?;
        }
    }
    Ok(())
}

/// The (sweep, set) tables of the measures taken once per set: D and α with their 95 %
/// bounds, then the derived and Wada columns and the label count.
fn sweep_tables(g: &GroupWriter<'_>, run: &SweepRun<'_>, sets: usize) -> Result<(), StoreError> {
    let np = run.points.len();
    let table = |f: &dyn Fn(&MeasuredSet) -> Option<f64>| {
        Array2::from_shape_fn((np, sets), |(i, j)| {
            run.points[i].get(j).and_then(f).unwrap_or(f64::NAN)
        })
    };
    // Each measure with its 95 % interval: value, `_lo`, `_hi`, in that order.
    type GetB = fn(&MeasuredSet) -> Option<Bounded>;
    let bounded: [(&str, &str, &str, GetB); 2] = [
        (
            "box_dimension",
            "D",
            "box-counting dimension D of the boundary",
            |s| s.measures.boundary.as_ref().map(|b| (b.dimension, b.ci)),
        ),
        ("alpha", "α", "uncertainty exponent α", |s| {
            s.measures.uncertainty.as_ref().map(|u| (u.alpha, u.ci))
        }),
    ];
    for (name, symbol, what, f) in bounded {
        for (name, what, part) in with_bounds(name, symbol, what) {
            g.var(
                &name,
                &["sweep", "set"],
                &table(&|s| f(s).map(part)),
                "1",
                &what,
            )?;
        }
    }
    type Get = fn(&MeasuredSet) -> Option<f64>;
    let rows: [(&str, Get, &str); 4] = [
        (
            "uncertainty_dimension",
            |s| s.measures.uncertainty.as_ref().map(|u| u.dimension),
            "D = 2 − α",
        ),
        (
            "wada_fraction",
            |s| {
                s.measures
                    .wada
                    .as_ref()
                    .and_then(|w| w.fraction.last().copied())
            },
            "W(r) at the largest radius: boundary points near every label",
        ),
        (
            "wada",
            |s| {
                s.measures
                    .wada
                    .as_ref()
                    .map(|w| f64::from(u8::from(w.wada)))
            },
            "1 when the Wada test passed, 0 when not (NaN: not tested)",
        ),
        (
            "labels",
            |s| Some(s.labels.len() as f64),
            "distinct labels in the grid",
        ),
    ];
    for (name, f, what) in rows {
        g.var(name, &["sweep", "set"], &table(&f), "1", what)?;
    }
    Ok(())
}

/// S_b and S_bb with their bounds over (sweep, set, eps), and the `eps` coordinate (the first
/// set's box sides; every point measures the same); nothing when no entropy was measured.
fn sweep_entropy(g: &GroupWriter<'_>, run: &SweepRun<'_>, sets: usize) -> Result<(), StoreError> {
    let np = run.points.len();
    let eps: Vec<usize> = run
        .points
        .first()
        .and_then(|p| p.first())
        .map(|s| s.measures.entropy.iter().map(|e| e.eps).collect())
        .unwrap_or_default();
    if !eps.is_empty() {
        let e: Vec<i64> = eps.iter().map(|&v| v as i64).collect();
        g.coord_i64("eps", &e, "1", "box side of the basin entropy in pixels")?;
        type GetE = fn(&BasinEntropy) -> Bounded;
        let cols: [(&str, &str, &str, GetE); 2] = [
            ("sb", "S_b", "basin entropy S_b", |e| (e.sb, e.sb_ci)),
            ("sbb", "S_bb", "boundary basin entropy S_bb", |e| {
                (e.sbb, e.sbb_ci)
            }),
        ];
        for (name, symbol, what, f) in cols {
            for (name, what, part) in with_bounds(name, symbol, what) {
                let a = ndarray::Array3::from_shape_fn((np, sets, eps.len()), |(i, j, k)| {
                    run.points[i]
                        .get(j)
                        .and_then(|s| s.measures.entropy.get(k))
                        .map_or(f64::NAN, |e| part(f(e)))
                });
                g.var(&name, &["sweep", "set", "eps"], &a, "1", &what)?;
            }
        }
    }
    Ok(())
}

/// A measure and its 95 % interval.
type Bounded = (f64, (f64, f64));

/// One sweep-table variable: its name, long name, and its part of a [`Bounded`].
type Part = (String, String, fn(Bounded) -> f64);

/// The sweep table's three variables of a measure `name` (`symbol` in the bounds' long
/// names): the value, `<name>_lo` and `<name>_hi`, each with its long name and its part of
/// [`Bounded`].
fn with_bounds(name: &str, symbol: &str, what: &str) -> [Part; 3] {
    [
        (name.to_owned(), what.to_owned(), |m| m.0),
        (
            format!("{name}_lo"),
            format!("lower 95 % bound of {symbol}"),
            |m| m.1 .0,
        ),
        (
            format!("{name}_hi"),
            format!("upper 95 % bound of {symbol}"),
            |m| m.1 .1,
        ),
    ]
}

fn write_set(g: &GroupWriter<'_>, s: &MeasuredSet) -> Result<(), StoreError> {
    g.attr_str("source", &s.source)?
        .attr_i64("width", s.nx as i64)?
        .attr_i64("height", s.ny as i64)?;
    if let Some(e) = s.extent {
        g.attr_f64s("extent", &e)?;
    }
    if let Some([(xn, xu), (yn, yu)]) = &s.axes {
        g.attr_str("x_coordinate", xn)?
            .attr_str("x_units", xu)?
            .attr_str("y_coordinate", yn)?
            .attr_str("y_units", yu)?;
    }
    let values: Vec<i64> = s.labels.iter().map(|l| i64::from(l.0)).collect();
    let counts: Vec<i64> = s.labels.iter().map(|l| l.1 as i64).collect();
    g.coord_i64("label", &values, "1", "label value in the grid")?;
    g.var(
        "label_pixels",
        &["label"],
        counts.as_slice(),
        "1",
        "pixels holding the label",
    )?;
    let m = &s.measures;
    if let Some(b) = &m.boundary {
        write_boxes(&g.group("boundary_dimension")?, b, s)?;
    }
    if let Some(u) = &m.uncertainty {
        write_uncertainty(&g.group("uncertainty_exponent")?, u, s)?;
    }
    if !m.entropy.is_empty() {
        write_entropy(&g.group("basin_entropy")?, &m.entropy)?;
    }
    if let Some(w) = &m.wada {
        write_wada(&g.group("wada")?, w)?;
    } else if let Some(why) = &m.wada_skipped {
        g.attr_str("wada_skipped", why)?;
    }
    Ok(())
}

/// Physical sizes `px · pixel side` along x, when the extent is known.
fn physical(
    g: &GroupWriter<'_>,
    dim: &str,
    px: &[usize],
    s: &MeasuredSet,
) -> Result<(), StoreError> {
    if let Some((dx, dy)) = s.pixel() {
        let units = |i: usize| s.axes.as_ref().map_or("1".to_string(), |a| a[i].1.clone());
        let x: Vec<f64> = px.iter().map(|&p| p as f64 * dx.abs()).collect();
        let y: Vec<f64> = px.iter().map(|&p| p as f64 * dy.abs()).collect();
        g.var(
            &format!("{dim}_physical_x"),
            &[dim],
            x.as_slice(),
            &units(0),
            &format!("{dim} along x in the axis' units"),
        )?;
        g.var(
            &format!("{dim}_physical_y"),
            &[dim],
            y.as_slice(),
            &units(1),
            &format!("{dim} along y in the axis' units"),
        )?;
    }
    Ok(())
}

fn write_boxes(g: &GroupWriter<'_>, b: &BoxDimension, s: &MeasuredSet) -> Result<(), StoreError> {
    let sizes: Vec<i64> = b.sizes.iter().map(|&v| v as i64).collect();
    g.coord_i64("box_size", &sizes, "1", "box side in pixels")?;
    physical(g, "box_size", &b.sizes, s)?;
    let shifts: Vec<i64> = (0..b.shift_counts.len() as i64).collect();
    g.coord_i64("shift", &shifts, "1", "box-grid shift (0: no shift)")?;
    g.var(
        "box_count",
        &["box_size"],
        b.counts.as_slice(),
        "1",
        "boxes the boundary passes through, mean over shifts (whole boxes, scaled to the grid's area)",
    )?;
    let fitted: Vec<f64> = b
        .sizes
        .iter()
        .map(|&v| (b.fit.intercept - b.fit.slope * (v as f64).ln()).exp())
        .collect();
    g.var(
        "fitted_box_count",
        &["box_size"],
        fitted.as_slice(),
        "1",
        "the fitted power law exp(intercept) · box_size^-D",
    )?;
    let mut per = Array2::<f64>::zeros((b.shift_counts.len(), b.sizes.len()));
    for (i, c) in b.shift_counts.iter().enumerate() {
        for (k, v) in c.iter().enumerate() {
            per[(i, k)] = *v;
        }
    }
    g.var(
        "shift_box_count",
        &["shift", "box_size"],
        &per,
        "1",
        "boundary boxes per shift",
    )?;
    offsets(g, &b.shift_offsets)?;
    g.var(
        "shift_slope",
        &["shift"],
        b.shift_slopes.as_slice(),
        "1",
        "slope of log N against log(1/s) for this shift alone",
    )?;
    g.attr_f64("dimension", b.dimension)?
        .attr_f64("ci_low", b.ci.0)?
        .attr_f64("ci_high", b.ci.1)?
        .attr_str("ci_method", BOX_CI)?
        .attr_f64("range_sensitivity", b.range_sensitivity)?
        .attr_f64("slope_se", b.fit.slope_se)?
        .attr_f64("intercept", b.fit.intercept)?
        .attr_f64("residual_se", b.fit.residual_se)?
        .attr_i64("fit_points", b.fit.points as i64)?
        .attr_i64("scaling_min_px", *b.sizes.first().unwrap_or(&0) as i64)?
        .attr_i64("scaling_max_px", *b.sizes.last().unwrap_or(&0) as i64)?
        .attr_str("scaling_rule", BOX_RULE)?;
    Ok(())
}

fn offsets(g: &GroupWriter<'_>, o: &[(usize, usize)]) -> Result<(), StoreError> {
    let ox: Vec<i64> = o.iter().map(|p| p.0 as i64).collect();
    let oy: Vec<i64> = o.iter().map(|p| p.1 as i64).collect();
    g.var(
        "shift_offset_x",
        &["shift"],
        ox.as_slice(),
        "1",
        "box-grid offset along x in pixels",
    )?;
    g.var(
        "shift_offset_y",
        &["shift"],
        oy.as_slice(),
        "1",
        "box-grid offset along y in pixels",
    )?;
    Ok(())
}

fn write_uncertainty(
    g: &GroupWriter<'_>,
    u: &UncertaintyExponent,
    s: &MeasuredSet,
) -> Result<(), StoreError> {
    let eps: Vec<i64> = u.eps.iter().map(|&v| v as i64).collect();
    g.coord_i64("eps", &eps, "1", "uncertainty distance ε in pixels")?;
    physical(g, "eps", &u.eps, s)?;
    g.var(
        "uncertain_fraction",
        &["eps"],
        u.fraction.as_slice(),
        "1",
        "fraction f(ε) of tested pixels with another label ε away along ±x or ±y",
    )?;
    let fitted: Vec<f64> = u
        .eps
        .iter()
        .map(|&e| (u.fit.intercept + u.fit.slope * (e as f64).ln()).exp())
        .collect();
    g.var(
        "fitted_fraction",
        &["eps"],
        fitted.as_slice(),
        "1",
        "the fitted power law exp(intercept) · ε^α",
    )?;
    g.attr_f64("alpha", u.alpha)?
        .attr_f64("ci_low", u.ci.0)?
        .attr_f64("ci_high", u.ci.1)?
        .attr_str(
            "ci_method",
            "95 %: half-width sqrt((t_0.975 se of the fitted slope)^2 + r^2), r the larger change of alpha when eps = 1 or eps = K is dropped",
        )?
        .attr_f64("range_sensitivity", u.range_sensitivity)?
        .attr_f64("dimension", u.dimension)?
        .attr_f64("dimension_ci_low", u.dimension_ci.0)?
        .attr_f64("dimension_ci_high", u.dimension_ci.1)?
        .attr_f64("slope_se", u.fit.slope_se)?
        .attr_f64("intercept", u.fit.intercept)?
        .attr_i64("tested_pixels", u.tested as i64)?
        .attr_i64("scaling_min_px", 1)?
        .attr_i64("scaling_max_px", *u.eps.last().unwrap_or(&0) as i64)?
        .attr_str("scaling_rule", UNCERTAINTY_RULE)?;
    Ok(())
}

fn write_entropy(g: &GroupWriter<'_>, es: &[BasinEntropy]) -> Result<(), StoreError> {
    let eps: Vec<i64> = es.iter().map(|e| e.eps as i64).collect();
    g.coord_i64("eps", &eps, "1", "box side ε in pixels")?;
    let ns = es.iter().map(|e| e.shift_values.len()).max().unwrap_or(0);
    g.coord_i64(
        "shift",
        &(0..ns as i64).collect::<Vec<_>>(),
        "1",
        "box-grid shift (0: no shift)",
    )?;
    let col = |f: &dyn Fn(&BasinEntropy) -> f64| es.iter().map(f).collect::<Vec<f64>>();
    for (name, v, what) in [
        (
            "sb",
            col(&|e| e.sb),
            "basin entropy S_b: mean Gibbs entropy of the label fractions over all boxes",
        ),
        (
            "sb_ci_low",
            col(&|e| e.sb_ci.0),
            "lower end of the 95 % interval of S_b",
        ),
        (
            "sb_ci_high",
            col(&|e| e.sb_ci.1),
            "upper end of the 95 % interval of S_b",
        ),
        (
            "sbb",
            col(&|e| e.sbb),
            "boundary basin entropy S_bb: mean over boxes holding two or more labels",
        ),
        (
            "sbb_ci_low",
            col(&|e| e.sbb_ci.0),
            "lower end of the 95 % interval of S_bb",
        ),
        (
            "sbb_ci_high",
            col(&|e| e.sbb_ci.1),
            "upper end of the 95 % interval of S_bb",
        ),
    ] {
        g.var(name, &["eps"], v.as_slice(), "1", what)?;
    }
    let log2: Vec<i8> = es.iter().map(|e| i8::from(e.fractal_by_log2)).collect();
    g.var(
        "fractal_by_log2",
        &["eps"],
        log2.as_slice(),
        "1",
        "1 when the whole 95 % interval of S_bb lies above ln 2 (sufficient for a fractal boundary)",
    )?;
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
        &grid(&|e, j| e.shift_values[j].0),
        "1",
        "S_b for one shift",
    )?;
    g.var(
        "shift_sbb",
        &["eps", "shift"],
        &grid(&|e, j| e.shift_values[j].1),
        "1",
        "S_bb for one shift",
    )?;
    g.var(
        "boxes",
        &["eps", "shift"],
        &grid(&|e, j| e.shift_values[j].2 as f64),
        "1",
        "whole boxes counted for one shift",
    )?;
    g.var(
        "boundary_boxes",
        &["eps", "shift"],
        &grid(&|e, j| e.shift_values[j].3 as f64),
        "1",
        "boxes holding two or more labels for one shift",
    )?;
    g.var(
        "shift_offset_x",
        &["eps", "shift"],
        &grid(&|e, j| e.shift_offsets[j].0 as f64),
        "1",
        "box-grid offset along x in pixels",
    )?;
    g.var(
        "shift_offset_y",
        &["eps", "shift"],
        &grid(&|e, j| e.shift_offsets[j].1 as f64),
        "1",
        "box-grid offset along y in pixels",
    )?;
    g.attr_f64("log2", std::f64::consts::LN_2)?
        .attr_str("ci_method", ENTROPY_CI)?;
    Ok(())
}

fn write_wada(g: &GroupWriter<'_>, w: &WadaTest) -> Result<(), StoreError> {
    let r: Vec<i64> = w.radii.iter().map(|&v| v as i64).collect();
    g.coord_i64(
        "radius",
        &r,
        "1",
        "neighbourhood radius r in pixels (refinement steps, coarse to fine read backwards)",
    )?;
    let bp: Vec<i64> = w.boundary_points.iter().map(|&v| v as i64).collect();
    let wp: Vec<i64> = w.wada_points.iter().map(|&v| v as i64).collect();
    g.var(
        "boundary_points",
        &["radius"],
        bp.as_slice(),
        "1",
        "pixels whose (2r+1)² neighbourhood holds two or more labels",
    )?;
    g.var(
        "wada_points",
        &["radius"],
        wp.as_slice(),
        "1",
        "pixels whose neighbourhood holds every label",
    )?;
    g.var(
        "wada_fraction",
        &["radius"],
        w.fraction.as_slice(),
        "1",
        "W(r) = wada_points / boundary_points",
    )?;
    g.attr_bool("wada", w.wada)?
        .attr_i64("labels", w.labels as i64)?
        .attr_str(
            "rule",
            "Wada when W(r_max) >= threshold (measure/wada_threshold)",
        )?;
    Ok(())
}

/// A 2-D integer dataset read as labels, with its axes when it has dimension scales.
#[derive(Debug, Clone)]
pub struct LabelData {
    pub nx: usize,
    pub ny: usize,
    /// Row-major `[iy * nx + ix]` (HDF5 axis 0 is y).
    pub values: Vec<i32>,
    /// Pixel-edge extent (x0, x1, y0, y1) from the dimension scales (uniform centres assumed).
    pub extent: Option<[f64; 4]>,
    /// Scale names and `units` of x and y.
    pub axes: Option<[(String, String); 2]>,
}

extern "C" {
    fn H5DSiterate_scales(
        did: hdf5_sys::h5i::hid_t,
        dim: std::os::raw::c_uint,
        idx: *mut std::os::raw::c_int,
        visitor: extern "C" fn(
            hdf5_sys::h5i::hid_t,
            std::os::raw::c_uint,
            hdf5_sys::h5i::hid_t,
            *mut std::ffi::c_void,
        ) -> hdf5_sys::h5::herr_t,
        data: *mut std::ffi::c_void,
    ) -> hdf5_sys::h5::herr_t;
}

/// Records the path of the first scale attached to a dimension (then stops the iteration).
extern "C" fn first_scale(
    _did: hdf5_sys::h5i::hid_t,
    _dim: std::os::raw::c_uint,
    scale: hdf5_sys::h5i::hid_t,
    data: *mut std::ffi::c_void,
) -> hdf5_sys::h5::herr_t {
    let mut buf = vec![0u8; 1024];
    // SAFETY: `scale` is a live id handed to us by H5DSiterate_scales, `buf` outlives the call,
    // and `data` is the `Option<String>` the caller passed.
    let n = unsafe { hdf5_sys::h5i::H5Iget_name(scale, buf.as_mut_ptr().cast(), buf.len()) };
    if n > 0 {
        buf.truncate((n as usize).min(buf.len() - 1));
        let out = unsafe { &mut *data.cast::<Option<String>>() };
        *out = String::from_utf8(buf).ok();
    }
    1
}

/// The path of the scale attached to dimension `dim` of `ds`, if any.
fn scale_path(ds: &hdf5::Dataset, dim: u32) -> Option<String> {
    if super::dimscale::num_scales(ds, dim as usize).ok()? == 0 {
        return None;
    }
    let mut out: Option<String> = None;
    // SAFETY: live dataset id; the visitor writes only `out`; calls are serialised by the
    // crate's (reentrant) lock.
    hdf5::sync::sync(|| unsafe {
        H5DSiterate_scales(
            ds.id(),
            dim,
            std::ptr::null_mut(),
            first_scale,
            (&mut out as *mut Option<String>).cast(),
        )
    });
    out
}

/// One axis of a label grid from its dimension scale: the pixel edges' span and (name, units).
type Axis = ((f64, f64), (String, String));

/// Reads `dataset` of `file` as a label grid. Errors are one line naming the dataset, about
/// the `labels` option: a missing file or dataset, or the library's checks of a label grid
/// (a rank other than 2, a non-integer type, values beyond i32). `fits` is asked about the
/// declared shape (columns, rows) before anything is read, so a small file declaring a huge
/// dataset is refused, not allocated. The dimension scales give the extent when both axes have
/// one: each must be finite, strictly monotonic and evenly spaced (the measures take pixels as
/// equal), or the read is refused naming the scale; with `scales = false` (the caller has its
/// own extent) their values are not used and not checked.
pub fn read_labels(
    file: &std::path::Path,
    dataset: &str,
    scales: bool,
    fits: impl FnOnce(usize, usize) -> Result<(), FieldError>,
) -> Result<LabelData, FieldError> {
    use hdf5::types::TypeDescriptor as T;
    let bad = |m: String| FieldError::new("labels", m);
    // A FIFO or device would block HDF5's open; a directory or text file gets a plain line.
    let f = crate::store::h5::open_input(file).map_err(|e| bad(e.to_string()))?;
    let ds = f
        .dataset(dataset)
        .map_err(|_| bad(format!("{} has no dataset {dataset}", file.display())))?;
    let shape = ds.shape();
    let what = format!("dataset {dataset}");
    let ty = if shape.len() == 2 {
        let dtype = ds
            .dtype()
            .and_then(|t| t.to_descriptor())
            .map_err(|e| bad(format!("{what}: unreadable type ({e})")))?;
        match dtype {
            T::Integer(_) | T::Unsigned(_) | T::Boolean | T::Enum(_) => ValueType::Integer,
            T::Float(_) => ValueType::Float,
            other => ValueType::Other(format!("{other:?}")),
        }
    } else {
        ValueType::Integer
    };
    let (nx, ny) = labels::grid_shape(&what, &shape, &ty)?;
    fits(nx, ny)?;
    let axis = |dim: u32, n: usize| -> Result<Option<Axis>, FieldError> {
        let Some(p) = scale_path(&ds, dim) else {
            return Ok(None);
        };
        let Ok(s) = f.dataset(&p) else {
            return Ok(None);
        };
        let units = s
            .attr("units")
            .and_then(|a| a.read_scalar::<hdf5::types::VarLenUnicode>())
            .map(|u| u.as_str().to_string())
            .unwrap_or_else(|_| "1".into());
        let name = p.rsplit('/').next().unwrap_or(&p).to_string();
        // The scale's declared length first: a scale is read only when it is the axis's.
        if s.shape() != [n] || n < 2 {
            return Ok(None);
        }
        if !scales {
            return Ok(Some(((f64::NAN, f64::NAN), (name, units))));
        }
        let Ok(c) = s.read_raw::<f64>() else {
            return Ok(None);
        };
        if let Some(why) = labels::scale_problem(&c) {
            let axis = if dim == 1 { "x" } else { "y" };
            return Err(FieldError::new(
                "labels",
                format!(
                    "{what}: its dimension scale {p} ({axis}, axis {dim}) {why}; the measures need evenly spaced pixels: pass "
                ),
            )
                .name("extent")
                .text(" x0,x1,y0,y1 to give the extent instead"));
        }
        let d = (c[n - 1] - c[0]) / (n - 1) as f64;
        Ok(Some(((c[0] - d / 2.0, c[n - 1] + d / 2.0), (name, units))))
    };
    let (x, y) = (axis(1, nx)?, axis(0, ny)?);
    let raw: Vec<i64> = ds
        .read_raw::<i64>()
        .map_err(|e| bad(format!("reading {what}: {e}")))?;
    let values = labels::grid_values(&what, raw)?;
    let (extent, axes) = match (x, y) {
        (Some((x, xa)), Some((y, ya))) => (Some([x.0, x.1, y.0, y.1]), Some([xa, ya])),
        _ => (None, None),
    };
    Ok(LabelData {
        nx,
        ny,
        values,
        extent: extent.filter(|e| e.iter().all(|v| v.is_finite())),
        axes,
    })
}

/// How `pendula measure --chaotic-fraction` draws its starts (the attribute `sampling`).
pub const CHAOTIC_SAMPLING: &str = "Liouville measure on the energy shell: θ ∝ √det M (E−V)^(N/2−1) by rejection, momenta uniform on the kinetic ellipsoid";

/// What a chaotic-fraction run was: the model, the sample counts and the SALI run of each start.
#[derive(Debug, Clone)]
pub struct ChaoticRun {
    /// The model's short name (preset or `custom`).
    pub model: String,
    pub links: usize,
    /// Starts per energy shell.
    pub samples: usize,
    pub seed: u64,
    pub options: ChaoticOptions,
    /// Every shell asked for was measured (`false`: a stop left the shells finished before
    /// it; the attribute `complete = 0`).
    pub complete: bool,
}

impl ChaoticRun {
    /// The fixed step of the integrator (NaN for an adaptive one).
    pub fn dt(&self) -> f64 {
        match self.options.method {
            Method::Rk4 { dt } => dt,
            _ => f64::NAN,
        }
    }
}

/// Writes group `measure/chaotic_fraction`: over the dimension `energy` (J) the counts of
/// chaotic, regular, undecided and failed starts, the fraction chaotic/(chaotic + regular) with
/// its Wilson 95 % bounds and the rejection sampler's proposals; the run as attributes.
pub fn write_chaotic_fraction(
    out: &H5Out,
    run: &ChaoticRun,
    rows: &[ShellFraction],
) -> Result<(), StoreError> {
    let m = out.group("measure")?;
    m.attr_str("what", "chaotic-fraction")?;
    let g = m.group("chaotic_fraction")?;
    let o = &run.options;
    g.attr_bool("complete", run.complete)?;
    g.attr_str("model", &run.model)?
        .attr_i64("links", run.links as i64)?
        .attr_i64("samples", run.samples as i64)?
        .attr_i64("seed", run.seed as i64)?
        .attr_f64("t_end", o.indicators.time)?
        .attr_f64("dt", run.dt())?
        .attr_f64("tau", o.indicators.tau)?
        .attr_str("integrator", o.method.name())?
        .attr_i64("deviation_vectors", o.indicators.k as i64)?
        .attr_f64("sali_chaotic", SALI_CHAOTIC)?
        .attr_f64("sali_regular", SALI_REGULAR)?
        .attr_str("sampling", CHAOTIC_SAMPLING)?
        .attr_str(
            "fraction_rule",
            "chaotic / (chaotic + regular): SALI < sali_chaotic by t_end is chaotic, SALI > sali_regular over the run's second half regular, else undecided (not in the fraction)",
        )?;
    let e: Vec<f64> = rows.iter().map(|r| r.energy).collect();
    g.coord("energy", &e, "J", "energy of the shell H(θ, p) = E")?;
    let count = |name: &str, v: Vec<i64>, what: &str| {
        g.var(name, &["energy"], v.as_slice(), "1", what)
            .map(|_| ())
    };
    count(
        "chaotic",
        rows.iter().map(|r| r.chaotic as i64).collect(),
        "starts classified chaotic",
    )?;
    count(
        "regular",
        rows.iter().map(|r| r.regular as i64).collect(),
        "starts classified regular",
    )?;
    count(
        "undecided",
        rows.iter().map(|r| r.undecided as i64).collect(),
        "starts with neither verdict by t_end (includes failed)",
    )?;
    count(
        "failed",
        rows.iter().map(|r| r.failed as i64).collect(),
        "undecided starts whose integration failed (NaN/Inf)",
    )?;
    count(
        "proposals",
        rows.iter().map(|r| r.proposals as i64).collect(),
        "θ proposals of the rejection sampler (acceptance = samples / proposals)",
    )?;
    let real = |name: &str, v: Vec<f64>, what: &str| {
        g.var(name, &["energy"], v.as_slice(), "1", what)
            .map(|_| ())
    };
    real(
        "fraction",
        rows.iter().map(|r| r.fraction).collect(),
        "chaotic fraction chaotic / (chaotic + regular) (NaN when both are 0)",
    )?;
    real(
        "wilson_lo",
        rows.iter().map(|r| r.wilson.0).collect(),
        "lower bound of the Wilson 95 % interval of the fraction",
    )?;
    real(
        "wilson_hi",
        rows.iter().map(|r| r.wilson.1).collect(),
        "upper bound of the Wilson 95 % interval of the fraction",
    )?;
    g.var(
        "trend",
        &["energy"],
        rows.iter()
            .map(|r| r.trend.code())
            .collect::<Vec<u8>>()
            .as_slice(),
        "1",
        "the fraction's convergence: the fraction at t_end/2 against the Wilson interval at t_end",
    )?
    .attr_u8s("flag_values", &[0, 1, 2, 3])?
    .attr_str("flag_meanings", Trend::MEANINGS)?;
    g.attr_str(
        "convergence_rule",
        crate::analysis::convergence::FRACTION_RULE,
    )?;
    // The ladder: the same starts judged on the prefixes t_end/2^j of their runs.
    let levels = rows.iter().map(|r| r.ladder.len()).max().unwrap_or(0);
    if levels > 0 {
        let times: Vec<f64> = (0..levels)
            .map(|j| {
                rows.iter()
                    .find_map(|r| r.ladder.get(j).map(|l| l.time))
                    .unwrap_or(f64::NAN)
            })
            .collect();
        g.coord(
            "ladder_time",
            &times,
            "s",
            "end of the prefix of every start's run that the ladder judges (t_end/2^j)",
        )?;
        let table = |f: &dyn Fn(&crate::analysis::measure::chaotic::Rung) -> f64| {
            ndarray::Array2::from_shape_fn((rows.len(), levels), |(i, j)| {
                rows[i].ladder.get(j).map_or(f64::NAN, f)
            })
        };
        type Get<'a> = &'a dyn Fn(&crate::analysis::measure::chaotic::Rung) -> f64;
        let ladder: [(&str, &str, Get); 5] = [
            (
                "ladder_fraction",
                "chaotic fraction of the starts judged at ladder_time",
                &|l| l.fraction,
            ),
            (
                "ladder_wilson_lo",
                "lower Wilson 95 % bound at ladder_time",
                &|l| l.wilson.0,
            ),
            (
                "ladder_wilson_hi",
                "upper Wilson 95 % bound at ladder_time",
                &|l| l.wilson.1,
            ),
            ("ladder_chaotic", "starts chaotic by ladder_time", &|l| {
                l.chaotic as f64
            }),
            ("ladder_regular", "starts regular by ladder_time", &|l| {
                l.regular as f64
            }),
        ];
        for (name, what, f) in ladder {
            g.var(name, &["energy", "ladder_time"], &table(f), "1", what)?;
        }
    }
    Ok(())
}
