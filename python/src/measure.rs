//! `pendula.measure` and `pendula.chaotic_fraction`: the label grids `pendula measure` reads
//! (a 2-D integer array as `--labels`, or a map Dataset's `flip_step`/`flip_link`/`class` as a
//! map file), measured by the library and written by the CLI's `measure` group writer. The
//! keywords only translate into the library's [`MeasureChoices`] and [`ChaoticChoices`]: their
//! defaults and checks are the library's, and an error's field is the keyword ([`refused`]).

use super::{image, watched, Failure};
use numpy::{
    PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pendula::analysis::map::Kind;
use pendula::analysis::measure::chaotic;
use pendula::analysis::measure::labels::{map_labels, refusal, Labelled, MapGrids};
use pendula::analysis::measure::options::{self, ChaoticChoices, MeasureChoices};
use pendula::analysis::measure::{
    label_counts, measure, LabelGrid, MeasureError, MeasureOptions, MeasuredSet,
};
use pendula::error::FieldError;
use pendula::spec::Model;
use pendula::store::{self, ChaoticRun, Provenance};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The measures' options from the keywords: the library's defaults and checks.
fn options(
    what: Option<&str>,
    max_eps: Option<usize>,
    entropy_eps: Option<Vec<usize>>,
    shifts: Option<usize>,
    seed: Option<u64>,
    wada_radius: Option<usize>,
) -> PyResult<MeasureOptions> {
    MeasureChoices {
        what: what.map(str::to_string),
        max_eps,
        entropy_eps,
        shifts,
        seed,
        wada_radius,
    }
    .options(None)
    .map_err(refused)
}

/// A library refusal: its field is the keyword, so the message is the library's as it is.
fn refused(e: FieldError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Measures every grid (off the GIL); the image of the file with group `measure` that the CLI
/// would write.
fn measure_all(
    py: Python<'_>,
    grids: Vec<Labelled>,
    opts: MeasureOptions,
    title: String,
) -> PyResult<Bound<'_, PyDict>> {
    let tree = watched(py, move |_cancel| {
        let mut sets = Vec::new();
        for l in grids {
            let m = measure(&l.grid, &opts)
                .map_err(|(s, e)| Failure::Input(refusal(s, &e, &l.name).to_string()))?;
            sets.push(MeasuredSet {
                source: l.source,
                nx: l.grid.nx,
                ny: l.grid.ny,
                extent: l.extent,
                axes: l.axes,
                labels: label_counts(&l.grid),
                measures: m,
            });
        }
        let prov = Provenance::now("pendula (python)", "");
        Ok(store::write_memory(&prov, &title, |out| {
            store::write_measure(out, &opts, &sets)
        })?)
    })?;
    image::to_py(py, tree)
}

fn parse_extent(e: Option<Vec<f64>>) -> PyResult<Option<[f64; 4]>> {
    e.map(|v| options::extent(&v)).transpose().map_err(refused)
}

/// A 2-D integer array as the labels (`pendula measure --labels`): the same checks as
/// `store::read_labels` (rank 2, an integer type, values within i32), read without a copy
/// when it is a C-contiguous int32 array.
#[pyfunction]
#[pyo3(signature = (labels, what=None, extent=None, max_eps=None, entropy_eps=None, shifts=None, seed=None, wada_radius=None))]
#[allow(clippy::too_many_arguments)]
pub fn measure_labels<'py>(
    py: Python<'py>,
    labels: &Bound<'_, PyAny>,
    what: Option<&str>,
    extent: Option<Vec<f64>>,
    max_eps: Option<usize>,
    entropy_eps: Option<Vec<usize>>,
    shifts: Option<usize>,
    seed: Option<u64>,
    wada_radius: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = options(what, max_eps, entropy_eps, shifts, seed, wada_radius)?;
    let extent = parse_extent(extent)?;
    let bad = |m: String| PyValueError::new_err(format!("labels: {m}"));
    let arr = labels
        .downcast::<PyUntypedArray>()
        .map_err(|_| bad("expected a NumPy array".into()))?;
    let shape = arr.shape().to_vec();
    if shape.len() != 2 {
        return Err(bad(format!(
            "array is {}-D (shape {shape:?}); labels must be a 2-D grid",
            shape.len()
        )));
    }
    match arr.dtype().kind() {
        b'i' | b'u' | b'b' => {}
        b'f' | b'c' => {
            return Err(bad(
                "array holds floating-point values; labels must be integers (threshold or classify it first)".into(),
            ))
        }
        _ => {
            return Err(bad(format!(
                "array has type {}; labels must be integers",
                arr.dtype()
            )))
        }
    }
    let values: Vec<i32> = match arr.downcast::<numpy::PyArray2<i32>>() {
        Ok(a) => a.readonly().as_array().iter().copied().collect(),
        Err(_) => {
            let a = arr.call_method1("astype", ("int64",))?;
            let a: PyReadonlyArray2<'_, i64> = a.extract()?;
            a.as_array()
                .iter()
                .map(|&v| i32::try_from(v))
                .collect::<Result<_, _>>()
                .map_err(|_| bad("array holds labels beyond the 32-bit range".into()))?
        }
    };
    let (ny, nx) = (shape[0], shape[1]);
    let grid = LabelGrid::new(nx, ny, &values).map_err(|e| bad(e.to_string()))?;
    let grids = vec![Labelled {
        name: "labels".into(),
        source: "NumPy array".into(),
        grid,
        extent,
        axes: None,
    }];
    measure_all(py, grids, opts, "Measures of a NumPy array".into())
}

/// The label grids of a map Dataset, as `pendula measure FILE.h5` reads a map file: `class`,
/// or `flip_step`/`flip_link` thresholded at each `flip_before` time (default `t_max`).
#[pyfunction]
#[pyo3(signature = (header, class, flip_step, flip_link, aux=None, variable=None, flip_before=None, extent=None, what=None, max_eps=None, entropy_eps=None, shifts=None, seed=None, wada_radius=None))]
#[allow(clippy::too_many_arguments)]
pub fn measure_map<'py>(
    py: Python<'py>,
    header: (String, bool, f64, f64, Vec<f64>, String, String),
    class: PyReadonlyArray2<'_, u8>,
    flip_step: Option<PyReadonlyArray2<'_, i32>>,
    flip_link: Option<PyReadonlyArray2<'_, u8>>,
    aux: Option<(PyReadonlyArray3<'_, f64>, usize)>,
    variable: Option<String>,
    flip_before: Option<Vec<f64>>,
    extent: Option<Vec<f64>>,
    what: Option<&str>,
    max_eps: Option<usize>,
    entropy_eps: Option<Vec<usize>>,
    shifts: Option<usize>,
    seed: Option<u64>,
    wada_radius: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let (kind, complete, t_max, dt, window, x_name, y_name) = header;
    let kind = Kind::parse(&kind)
        .ok_or_else(|| PyValueError::new_err(format!("kind: unknown map kind `{kind}`")))?;
    let opts = options(what, max_eps, entropy_eps, shifts, seed, wada_radius)?;
    let extent = parse_extent(extent)?;
    let (height, width) = class.as_array().dim();
    let class = class.as_slice()?;
    let flip_step = flip_step.as_ref().map(|a| a.as_slice()).transpose()?;
    let flip_link = flip_link.as_ref().map(|a| a.as_slice()).transpose()?;
    let attractor = match &aux {
        Some((a, links)) if kind.facts().labels.contains(&"attractor") => {
            let (h, w, _) = a.as_array().dim();
            if (h, w) != (height, width) {
                return Err(PyValueError::new_err(format!(
                    "labels: the aux variables are {h} × {w}, the class grid {height} × {width}"
                )));
            }
            Some((a.as_slice()?, *links))
        }
        _ => None,
    };
    let m = MapGrids {
        kind,
        complete,
        t_max,
        dt,
        width,
        height,
        axes: [&x_name, &y_name],
        window: [window[0], window[1], window[2], window[3]],
        class,
        flip_step: flip_step.unwrap_or_default(),
        flip_link: flip_link.unwrap_or_default(),
        attractor,
    };
    let grids = map_labels(
        &m,
        variable.as_deref(),
        &flip_before.unwrap_or_default(),
        extent,
        "the map Dataset",
    )
    .map_err(refused)?;
    measure_all(py, grids, opts, "Measures of the map Dataset".into())
}

/// The per-pixel aux variables of a map of `kind` as the map file holds them, in the order
/// of their columns: `(name, per_link)` (the Python side stacks them for `measure_map`).
#[pyfunction]
pub fn aux_vars(kind: &str) -> Vec<(&'static str, bool)> {
    Kind::parse(kind).map_or(vec![], |k| {
        k.aux().iter().map(|v| (v.name, v.per_link)).collect()
    })
}

/// The chaotic fraction of energy shells (`pendula measure --chaotic-fraction`): SALI on
/// Liouville-uniform starts, written as the CLI's group `measure/chaotic_fraction`.
#[pyfunction]
#[pyo3(signature = (spec_json, energies, samples, seed=None, t_end=None, dt=None, tau=None))]
#[allow(clippy::too_many_arguments)]
pub fn chaotic_fraction<'py>(
    py: Python<'py>,
    spec_json: &str,
    energies: Vec<f64>,
    samples: Option<usize>,
    seed: Option<u64>,
    t_end: Option<f64>,
    dt: Option<f64>,
    tau: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let choices = ChaoticChoices {
        energies,
        samples,
        seed,
        t_end,
        dt,
        tau,
    };
    let samples = choices.samples().map_err(refused)?;
    let seed = choices.seed();
    let spec = super::validated(spec_json)?;
    let Model::Planar(chain) = spec.model.clone() else {
        return Err(refused(chaotic::needs_planar()));
    };
    let o = choices.options().map_err(refused)?;
    let refused = |e: MeasureError| Failure::Input(chaotic::refusal(&e).to_string());
    let energies = choices.energies;
    let name = spec.model_name.clone();
    let tree = watched(py, move |_cancel| {
        // The library's own checks (conservative chain, energies above the hanging rest)
        // before any work, as the CLI.
        chaotic::check(&chain, &energies).map_err(refused)?;
        let rows =
            chaotic::chaotic_fraction(&chain, &energies, samples, seed, &o).map_err(refused)?;
        let title = format!(
            "Chaotic fraction of the energy shells, model {name}, {} links (t_end = {} s)",
            chain.links(),
            o.indicators.time
        );
        let run = ChaoticRun {
            model: name,
            links: chain.links(),
            samples,
            seed,
            options: o,
        };
        let prov = Provenance::now("pendula (python)", "");
        Ok(store::write_memory(&prov, &title, |out| {
            store::write_chaotic_fraction(out, &run, &rows)
        })?)
    })?;
    image::to_py(py, tree)
}
