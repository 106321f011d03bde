//! The label grids of `pendula measure` (a map file's variables or any HDF5 dataset) and
//! their measures, written as the HDF5 group `measure`, a figure and a summary.

use super::report::{no_curve, summary, table};
use super::{as_input, flag, Input, Source};
use crate::cli::output::CliError;
use pendula::analysis::measure::labels::{self, map_labels, refusal, Labelled};
use pendula::analysis::measure::{
    label_counts, measure_cancellable, MeasureError, MeasureOptions, MeasuredSet,
};
use pendula::observe::Cancel;
use pendula::spec::{measure_estimate, over_budget, Budget, LabelGrids};
use pendula::store::map::MapReader;
use pendula::store::{self, Provenance};
use std::path::PathBuf;
use std::time::Instant;

/// Refuses `count` label grids of `nx` × `ny` pixels (named by option `field`) whose
/// measures with `opts` would not fit `budget`, before any of them is read.
fn fits(
    grids: &LabelGrids,
    opts: &MeasureOptions,
    budget: &Budget,
) -> Result<(), pendula::error::FieldError> {
    over_budget(&measure_estimate(grids, opts), budget)
}

/// Reads the label grids `src` describes; every problem is bad input naming the flag. Their
/// size, as the file declares it, is checked against `budget` before anything is read.
fn load(src: &Source, opts: &MeasureOptions, budget: &Budget) -> Result<Vec<Labelled>, CliError> {
    match &src.input {
        Input::Labels { file, dataset } => {
            labels::grid_takes_no_map_options(src.variable.is_some(), !src.flip_before.is_empty())
                .map_err(as_input)?;
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
            let d =
                store::read_labels(file, dataset, src.extent.is_none(), check).map_err(as_input)?;
            let source = format!("{}:{dataset}", file.display());
            let grid = labels::grid(d.nx, d.ny, &d.values, Some(&source)).map_err(as_input)?;
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
                CliError::Input(format!(
                    "measure: {e} (for a dataset of another file use --labels FILE.h5:/path)"
                ))
            })?;
            if let Some(w) = r.warning() {
                eprintln!("{w}");
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
            fits(&g, opts, budget).map_err(as_input)?;
            let d = r.read_all()?;
            let grids = r.grids(&d);
            map_labels(
                &grids,
                src.variable.as_deref(),
                &src.flip_before,
                src.extent,
                &path.display().to_string(),
            )
            .map_err(as_input)
        }
    }
}

/// Measures every grid of `src`; nothing is written when any is refused, nothing is kept
/// once `cancel` is set (a failed run: "interrupted", exit 1).
pub fn measure_sets(
    src: &Source,
    opts: &MeasureOptions,
    budget: &Budget,
    cancel: &Cancel,
) -> Result<(Vec<MeasuredSet>, Vec<String>), CliError> {
    let grids = load(src, opts, budget)?;
    let mut sets = Vec::new();
    let mut names = Vec::new();
    for l in grids {
        let m = measure_cancellable(&l.grid, opts, cancel).map_err(|(s, e)| match e {
            MeasureError::Interrupted => interrupted(),
            e => CliError::Input(refusal(s, &e, &l.name).render(&flag)),
        })?;
        if cancel.is_set() {
            return Err(interrupted());
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

/// A measure stopped by a signal: nothing of it is written.
pub fn interrupted() -> CliError {
    CliError::Run("interrupted: nothing measured was written".into())
}

/// Outputs and run description shared by the command and the `measure` spec kind.
pub struct Job<'a> {
    pub title: String,
    pub file: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub force: bool,
    pub json: bool,
    pub command_line: &'a str,
    pub spec_text: String,
    /// The memory the label grids and their measures may take (`--max-memory`).
    pub budget: Budget,
    /// Set by a stop signal.
    pub cancel: Cancel,
}

/// Measures, then writes the HDF5 group, the figure and the summary.
pub fn run_job(src: &Source, opts: &MeasureOptions, job: &Job) -> Result<(), CliError> {
    for (flag, p) in [("-o", &job.file), ("--plot", &job.plot)] {
        if let Some(p) = p {
            if flag == "-o" {
                crate::cli::output::check_result_path(p, flag)?;
            } else {
                crate::cli::output::check_figure_path(p, flag)?;
            }
        }
    }
    let start = Instant::now();
    let (sets, names) = measure_sets(src, opts, &job.budget, &job.cancel)?;
    let wall = start.elapsed().as_secs_f64();
    if job.plot.is_some() && sets.iter().all(no_curve) {
        return Err(CliError::Input(
            "--plot: nothing measured has a figure (the Wada test of a two-label grid is skipped)"
                .into(),
        ));
    }
    for (flag, p) in [("-o", &job.file), ("--plot", &job.plot)] {
        if let Some(p) = p {
            crate::cli::output::prepare_path(p, job.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    if let Some(path) = &job.file {
        let prov = Provenance::now(job.command_line, &job.spec_text);
        store::write_file(path, job.force, &prov, &job.title, |out| {
            store::write_measure(out, opts, &sets)
        })?;
    }
    if let Some(path) = &job.plot {
        let fig = pendula::plot::MeasureFigure::new(&job.title, &sets, &names);
        pendula::plot::draw_measure(&fig, path)?;
    }
    if job.json {
        println!("{}", summary(src, opts, &sets, job, wall));
    } else {
        print!("{}", table(&sets, wall));
    }
    Ok(())
}
