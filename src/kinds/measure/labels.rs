//! The label grids of a measure (a map file's variables or any HDF5 dataset), read and
//! measured, and their result ([`GridMeasures`]): the HDF5 group `measure`, the figure, the
//! JSON summary and the text report.

use super::report::{no_curve, set_json, table};
use crate::analysis::measure::labels::{self, map_labels, refusal, Labelled};
use crate::analysis::measure::{
    label_counts, measure_cancellable, MeasureError, MeasureOptions, MeasuredSet,
};
use crate::error::FieldError;
use crate::finding::{Finding, Record};
use crate::kinds::{Found, RunError};
use crate::observe::Cancel;
use crate::plot::{self, PlotError};
use crate::spec::{measure_estimate, over_budget, Budget, LabelGrids};
use crate::store;
use crate::store::map::MapReader;
use serde_json::json;
use std::path::{Path, PathBuf};

/// Where the labels come from.
#[derive(Debug, Clone)]
pub enum Input {
    Map(PathBuf),
    Labels { file: PathBuf, dataset: String },
}

/// The labels' source and how to read them.
#[derive(Debug, Clone)]
pub struct Source {
    pub input: Input,
    pub variable: Option<String>,
    pub flip_before: Vec<f64>,
    pub extent: Option<[f64; 4]>,
}

impl Source {
    /// The input as the summary names it: the map file, or `FILE.h5:/dataset`.
    pub fn describe(&self) -> String {
        match &self.input {
            Input::Map(p) => p.display().to_string(),
            Input::Labels { file, dataset } => format!("{}:{dataset}", file.display()),
        }
    }
}

/// Refuses label grids (`grids`) whose measures with `opts` would not fit `budget`, before
/// any of them is read.
fn fits(grids: &LabelGrids, opts: &MeasureOptions, budget: &Budget) -> Result<(), FieldError> {
    over_budget(&measure_estimate(grids, opts), budget)
}

/// Reads the label grids `src` describes; their size, as the file declares it, is checked
/// against `budget` before anything is read. `warn` is told a map file's warning.
fn load(
    src: &Source,
    opts: &MeasureOptions,
    budget: &Budget,
    warn: &dyn Fn(&str),
) -> Result<Vec<Labelled>, RunError> {
    match &src.input {
        Input::Labels { file, dataset } => {
            labels::grid_takes_no_map_options(src.variable.is_some(), !src.flip_before.is_empty())?;
            let check = |nx, ny| {
                let g = LabelGrids {
                    nx,
                    ny,
                    count: 1,
                    read_per_px: 8.0,
                    field: "labels",
                };
                fits(&g, opts, budget)
            };
            let d = store::read_labels(file, dataset, src.extent.is_none(), check)?;
            let source = format!("{}:{dataset}", file.display());
            let grid = labels::grid(d.nx, d.ny, &d.values, Some(&source))?;
            Ok(vec![Labelled {
                name: dataset.clone(),
                source: format!("dataset {dataset} of {}", file.display()),
                grid,
                extent: src.extent.or(d.extent),
                axes: d.axes,
            }])
        }
        Input::Map(path) => {
            let r = MapReader::open(path).map_err(|e| {
                e.refusal("measure")
                    .text(" (for a dataset of another file use --labels FILE.h5:/path)")
            })?;
            if let Some(w) = r.warning() {
                warn(&w);
            }
            let h = &r.header;
            let links = h.link_length.len();
            let g = LabelGrids {
                nx: h.width,
                ny: h.height,
                count: src.flip_before.len().max(1),
                // class, flip_step, flip_link and the aux columns.
                read_per_px: 6.0 + 8.0 * h.kind.aux_columns(links) as f64,
                field: "measure",
            };
            fits(&g, opts, budget)?;
            let d = r.read_all()?;
            let grids = r.grids(&d);
            Ok(map_labels(
                &grids,
                src.variable.as_deref(),
                &src.flip_before,
                src.extent,
                &path.display().to_string(),
            )?)
        }
    }
}

/// Measures every grid of `src`: bad input (a field of the measure) when any is refused,
/// [`RunError::Interrupted`] once `cancel` is set; the sets and their names.
pub fn measure_sets(
    src: &Source,
    opts: &MeasureOptions,
    budget: &Budget,
    cancel: &Cancel,
    warn: &dyn Fn(&str),
) -> Result<(Vec<MeasuredSet>, Vec<String>), RunError> {
    measure_grids(load(src, opts, budget, warn)?, opts, cancel)
}

/// Measures the label grids `grids` (read by [`measure_sets`], or handed over by the Python
/// package): bad input (a field of the measure) when any is refused,
/// [`RunError::Interrupted`] once `cancel` is set; the sets and their names.
pub fn measure_grids(
    grids: Vec<Labelled>,
    opts: &MeasureOptions,
    cancel: &Cancel,
) -> Result<(Vec<MeasuredSet>, Vec<String>), RunError> {
    let mut sets = Vec::new();
    let mut names = Vec::new();
    for l in grids {
        let m = measure_cancellable(&l.grid, opts, cancel).map_err(|(s, e)| match e {
            MeasureError::Interrupted => RunError::Interrupted,
            e => RunError::Input(refusal(s, &e, &l.name)),
        })?;
        if cancel.is_set() {
            return Err(RunError::Interrupted);
        }
        sets.push(MeasuredSet {
            source: l.source,
            nx: l.grid.nx,
            ny: l.grid.ny,
            extent: l.extent,
            axes: l.axes,
            labels: label_counts(&l.grid),
            measures: m,
        });
        names.push(l.name);
    }
    Ok((sets, names))
}

/// Measures every grid of `src` as [`measure_sets`] does: the result, titled `title`.
pub fn measure(
    title: &str,
    src: &Source,
    opts: &MeasureOptions,
    budget: &Budget,
    cancel: &Cancel,
    warn: &dyn Fn(&str),
) -> Result<GridMeasures, RunError> {
    let (sets, names) = measure_sets(src, opts, budget, cancel, warn)?;
    Ok(GridMeasures {
        title: title.to_string(),
        input: src.describe(),
        opts: opts.clone(),
        sets,
        names,
        wall: 0.0,
    })
}

/// The measures of label grids: the group `measure` with one `set_<k>` per grid, a figure of
/// the measures' curves, the JSON summary and the text report.
#[derive(Debug, Clone)]
pub struct GridMeasures {
    pub title: String,
    /// The input as the summary names it ([`Source::describe`]).
    pub input: String,
    pub opts: MeasureOptions,
    pub sets: Vec<MeasuredSet>,
    /// The grids' names (a dataset, a flip time), the figure's legend.
    pub names: Vec<String>,
    /// The run's wall time (s), for the report ([`Finding::timed`]; 0 until told).
    pub wall: f64,
}

impl GridMeasures {
    /// Whether it has a figure to draw (not when nothing measured has a curve: a two-label
    /// grid's skipped Wada test alone).
    pub fn has_figure(&self) -> bool {
        !self.sets.iter().all(no_curve)
    }
}

impl Finding for GridMeasures {
    fn group(&self) -> &'static str {
        "measure"
    }

    fn complete(&self) -> bool {
        true
    }

    fn record(&self) -> Record {
        store::measure_record(&self.opts, &self.sets)
    }

    fn summary(&self) -> serde_json::Value {
        json!({
            "kind": "measure",
            "title": self.title,
            "input": self.input,
            "what": self.opts.what.name(),
            "seed": self.opts.boxes.seed,
            "sets": self.sets.iter().map(set_json).collect::<Vec<_>>(),
            "threads": rayon::current_num_threads(),
        })
    }

    fn report(&self) -> String {
        table(&self.sets, self.wall)
    }

    /// Its summary names its kind and title itself.
    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }

    fn timed(&mut self, wall: f64) {
        self.wall = wall;
    }
}

impl Found for GridMeasures {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        let fig = plot::MeasureFigure::new(&self.title, &self.sets, &self.names);
        plot::draw_measure(&fig, path)
    }
}
