//! `pendula.measure` and `pendula.chaotic_fraction`: the label grids `pendula measure` reads
//! (a 2-D integer array as `--labels`, or a map Dataset's `flip_step`/`flip_link`/`class` as a
//! map file), measured by the library and written by the CLI's `measure` group writer. The
//! keywords only translate into the library's [`MeasureChoices`] and [`ChaoticChoices`]: their
//! defaults and checks are the library's, and an error's field is the keyword ([`refused`]).

use super::{figure_format, image, raise, watched};
use numpy::{
    PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pendula::analysis::map::MapKindId;
use pendula::analysis::measure::chaotic;
use pendula::analysis::measure::labels::{self, map_labels, Labelled, MapGrids, ValueType};
use pendula::analysis::measure::options::{self, ChaoticChoices, MeasureChoices};
use pendula::analysis::measure::{MeasureError, MeasureOptions};
use pendula::error::FieldError;
use pendula::kinds::measure::report::no_curve;
use pendula::model::Chain;
use pendula::plot;
use pendula::run::RunError;
use pendula::spec::{self, Budget, LabelGrids, ModelFile};
use pendula::store::{self, ChaoticRun, Provenance};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

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
    raise(RunError::Input(e))
}

/// Measures every grid (off the GIL); the image of the file with group `measure` that the CLI
/// would write.
fn measure_all(
    py: Python<'_>,
    grids: Vec<Labelled>,
    opts: MeasureOptions,
    title: String,
    plot: Option<PathBuf>,
) -> PyResult<Bound<'_, PyDict>> {
    let tree = watched(py, move |cancel| {
        let (sets, names) = pendula::kinds::measure::labels::measure_grids(grids, &opts, &cancel)?;
        if let Some(p) = &plot {
            if sets.iter().all(no_curve) {
                return Err(RunError::Input(FieldError::new(
                    "plot",
                    "nothing measured has a figure (the Wada test of a two-label grid is skipped)",
                )));
            }
            drawn(plot::draw_measure(
                &plot::MeasureFigure::new(&title, &sets, &names),
                p,
            ))?;
        }
        let prov = Provenance::now("pendula (python)", "");
        Ok(store::write_memory(&prov, &title, |out| {
            store::write_measure(out, &opts, &sets)
        })?)
    })?;
    image::to_py(py, tree)
}

/// A figure's failure to draw is a failed run naming `plot`.
fn drawn(r: Result<(), plot::PlotError>) -> Result<(), RunError> {
    r.map_err(|e| RunError::Failed(format!("plot: {e}")))
}

/// Refuses `count` label grids of `nx` × `ny` pixels whose measures with `opts` would not
/// fit the machine's budget, as the CLI refuses them: before any copy or measure, naming the
/// keyword that drives the estimate (`labels`, `shifts`, `entropy_eps`, `max_eps`,
/// `flip_before`).
fn fits(nx: usize, ny: usize, count: usize, opts: &MeasureOptions) -> PyResult<()> {
    let grids = LabelGrids {
        nx,
        ny,
        count,
        read_per_px: 8.0,
        field: "labels",
    };
    spec::over_budget(&spec::measure_estimate(&grids, opts), &Budget::machine()).map_err(refused)
}

fn parse_extent(e: Option<Vec<f64>>) -> PyResult<Option<[f64; 4]>> {
    e.map(|v| options::extent(&v)).transpose().map_err(refused)
}

/// A 2-D integer array as the labels (`pendula measure --labels`): the library's checks of a
/// label grid (rank 2, an integer type, values within i32, as `store::read_labels`), read
/// without a copy when it is a C-contiguous int32 array. `variable` and `flip_before` are
/// given only to be refused as the library refuses them beside `--labels`.
#[pyfunction]
#[pyo3(signature = (labels, variable=None, flip_before=None, what=None, extent=None, max_eps=None, entropy_eps=None, shifts=None, seed=None, wada_radius=None, plot=None))]
#[allow(clippy::too_many_arguments)]
pub fn measure_labels<'py>(
    py: Python<'py>,
    labels: &Bound<'_, PyAny>,
    variable: Option<String>,
    flip_before: Option<Vec<f64>>,
    what: Option<&str>,
    extent: Option<Vec<f64>>,
    max_eps: Option<usize>,
    entropy_eps: Option<Vec<usize>>,
    shifts: Option<usize>,
    seed: Option<u64>,
    wada_radius: Option<usize>,
    plot: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    figure_format(plot.as_deref())?;
    labels::grid_takes_no_map_options(variable.is_some(), flip_before.is_some())
        .map_err(refused)?;
    let opts = options(what, max_eps, entropy_eps, shifts, seed, wada_radius)?;
    let extent = parse_extent(extent)?;
    let arr = labels.downcast::<PyUntypedArray>()?;
    let ty = match arr.dtype().kind() {
        b'i' | b'u' | b'b' => ValueType::Integer,
        b'f' | b'c' => ValueType::Float,
        _ => ValueType::Other(arr.dtype().to_string()),
    };
    let (nx, ny) = labels::grid_shape("array", arr.shape(), &ty).map_err(refused)?;
    fits(nx, ny, 1, &opts)?;
    let values: Vec<i32> = match arr.downcast::<numpy::PyArray2<i32>>() {
        Ok(a) => a.readonly().as_array().iter().copied().collect(),
        Err(_) => {
            let a = arr.call_method1("astype", ("int64",))?;
            let a: PyReadonlyArray2<'_, i64> = a.extract()?;
            labels::grid_values("array", a.as_array().iter().copied()).map_err(refused)?
        }
    };
    let grid = labels::grid(nx, ny, &values, None).map_err(refused)?;
    let grids = vec![Labelled {
        name: "labels".into(),
        source: "NumPy array".into(),
        grid,
        extent,
        axes: None,
    }];
    measure_all(py, grids, opts, "Measures of a NumPy array".into(), plot)
}

/// A map Dataset's attributes as `measure_map` takes them (`None` where the Dataset lacks one):
/// kind, complete, t_max, dt, window, x_coordinate, y_coordinate.
type MapHeader = (
    Option<String>,
    Option<bool>,
    Option<f64>,
    Option<f64>,
    Option<Vec<f64>>,
    Option<String>,
    Option<String>,
);

/// What a map Dataset must hold, or the library's refusal of one that is no map.
fn held<T>(v: Option<T>, name: &str) -> PyResult<T> {
    v.ok_or_else(|| refused(labels::not_a_map("the Dataset", name)))
}

/// The label grids of a map Dataset, as `pendula measure FILE.h5` reads a map file: `class`,
/// or `flip_step`/`flip_link` thresholded at each `flip_before` time (default `t_max`).
#[pyfunction]
#[pyo3(signature = (header, class, flip_step, flip_link, aux=None, variable=None, flip_before=None, extent=None, what=None, max_eps=None, entropy_eps=None, shifts=None, seed=None, wada_radius=None, plot=None))]
#[allow(clippy::too_many_arguments)]
pub fn measure_map<'py>(
    py: Python<'py>,
    header: MapHeader,
    class: Option<PyReadonlyArray2<'_, u8>>,
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
    plot: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    figure_format(plot.as_deref())?;
    let (kind, complete, t_max, dt, window, x_name, y_name) = header;
    let kind = labels::map_kind(&held(kind, "kind")?).map_err(refused)?;
    let class = held(class, "class")?;
    let (complete, t_max, dt) = (
        held(complete, "complete")?,
        held(t_max, "t_max")?,
        held(dt, "dt")?,
    );
    let window = held(window.and_then(|w| <[f64; 4]>::try_from(w).ok()), "window")?;
    let (x_name, y_name) = (held(x_name, "x_coordinate")?, held(y_name, "y_coordinate")?);
    let opts = options(what, max_eps, entropy_eps, shifts, seed, wada_radius)?;
    let extent = parse_extent(extent)?;
    let (height, width) = class.as_array().dim();
    let count = flip_before.as_ref().map_or(1, |f| f.len().max(1));
    fits(width, height, count, &opts)?;
    let class = class.as_slice()?;
    let flip_step = flip_step.as_ref().map(|a| a.as_slice()).transpose()?;
    let flip_link = flip_link.as_ref().map(|a| a.as_slice()).transpose()?;
    // The library checks the aux columns' size against the class grid (`map_labels`).
    let attractor = match &aux {
        Some((a, links)) if kind.facts().labels.contains(&"attractor") => {
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
        window,
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
    measure_all(py, grids, opts, "Measures of the map Dataset".into(), plot)
}

/// The per-pixel aux variables of a map of `kind` as the map file holds them, in the order
/// of their columns: `(name, per_link)` (the Python side stacks them for `measure_map`).
#[pyfunction]
pub fn aux_vars(kind: &str) -> Vec<(&'static str, bool)> {
    MapKindId::parse(kind).map_or(vec![], |k| {
        k.aux().iter().map(|v| (v.name, v.per_link)).collect()
    })
}

/// The chaotic fraction of energy shells (`pendula measure --chaotic-fraction`): SALI on
/// Liouville-uniform starts, written as the CLI's group `measure/chaotic_fraction`.
#[pyfunction]
#[pyo3(signature = (model_json, energies, samples, seed=None, t_end=None, dt=None, tau=None, plot=None))]
#[allow(clippy::too_many_arguments)]
pub fn chaotic_fraction<'py>(
    py: Python<'py>,
    model_json: Option<&str>,
    energies: Vec<f64>,
    samples: Option<usize>,
    seed: Option<u64>,
    t_end: Option<f64>,
    dt: Option<f64>,
    tau: Option<f64>,
    plot: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    figure_format(plot.as_deref())?;
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
    let n_energies = choices.energies.len();
    let (chain, name) = chain(model_json, |links| {
        let e = spec::chaotic_estimate(links, samples, n_energies);
        // The links come from the model: its keyword names them.
        spec::over_budget(&e, &Budget::machine()).map_err(|e| {
            if e.field() == "links" {
                FieldError::new("model", e.message)
            } else {
                e
            }
        })
    })?;
    let o = choices.options().map_err(refused)?;
    let refused = |e: MeasureError| RunError::Input(chaotic::refusal(&e));
    let energies = choices.energies;
    let tree = watched(py, move |cancel| {
        // The library's own checks (conservative chain, energies above the hanging rest)
        // before any work, as the CLI.
        chaotic::check(&chain, &energies).map_err(refused)?;
        let rows = chaotic::chaotic_fraction_partial(&chain, &energies, samples, seed, &o, &cancel)
            .and_then(chaotic::whole)
            .map_err(|e| match e {
                MeasureError::Interrupted => RunError::Interrupted,
                e => refused(e),
            })?;
        let title = format!(
            "Chaotic fraction of the energy shells, model {name}, {} links (t_end = {} s)",
            chain.links(),
            o.indicators.time
        );
        if let Some(p) = &plot {
            // No shell measured draws nothing, as the CLI's figure.
            if !rows.is_empty() {
                drawn(plot::draw_measure(
                    &plot::MeasureFigure::chaotic_fraction(&title, &rows),
                    p,
                ))?;
            }
        }
        let run = ChaoticRun {
            model: name,
            links: chain.links(),
            samples,
            seed,
            options: o,
            complete: true,
        };
        let prov = Provenance::now("pendula (python)", "");
        Ok(store::write_memory(&prov, &title, |out| {
            store::write_chaotic_fraction(out, &run, &rows)
        })?)
    })?;
    image::to_py(py, tree)
}

/// The planar chain of a model's `[model]` table (as JSON; `None` for no model table), read as
/// the CLI reads `--model`: anything else is the library's refusal.
/// `fits` is asked about the link count before the chain is built.
fn chain(
    model_json: Option<&str>,
    fits: impl FnOnce(usize) -> Result<(), FieldError>,
) -> PyResult<(Chain, String)> {
    let Some(json) = model_json else {
        return Err(refused(chaotic::needs_planar()));
    };
    let table: toml::Table =
        serde_json::from_str(json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let text = toml::to_string(&table).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let file = spec::parse_model(&text, "model").map_err(refused)?;
    fits(file.link_count()).map_err(refused)?;
    let ModelFile::Planar(m) = file else {
        return Err(refused(chaotic::needs_planar()));
    };
    m.build().map_err(refused)
}
