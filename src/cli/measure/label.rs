//! The label grids of `pendula measure` (a map file's variables or any HDF5 dataset) and
//! their measures, written as the HDF5 group `measure`, a figure and a summary.

use super::report::{no_curve, summary, table};
use super::{as_input, flag, Input, Source};
use crate::cli::output::CliError;
use pendula::analysis::measure::labels::{self, map_labels, refusal, Labelled, MapGrids};
use pendula::analysis::measure::{label_counts, measure, MeasureOptions, MeasuredSet};
use pendula::store::map::MapReader;
use pendula::store::{self, Provenance};
use std::path::PathBuf;
use std::time::Instant;

/// Reads the label grids `src` describes; every problem is bad input naming the flag.
fn load(src: &Source) -> Result<Vec<Labelled>, CliError> {
    match &src.input {
        Input::Labels { file, dataset } => {
            labels::grid_takes_no_map_options(src.variable.is_some(), !src.flip_before.is_empty())
                .map_err(as_input)?;
            let d = store::read_labels(file, dataset).map_err(as_input)?;
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
            let h = &r.header;
            let d = r.read_all()?;
            let links = h.link_length.len();
            let grids = MapGrids {
                kind: h.kind,
                complete: h.complete,
                t_max: h.t_max,
                dt: h.dt,
                width: h.width,
                height: h.height,
                axes: [&h.x_name, &h.y_name],
                window: h.window,
                class: &d.class,
                flip_step: &d.flip_step,
                flip_link: &d.flip_link,
                attractor: h
                    .kind
                    .facts()
                    .labels
                    .contains(&"attractor")
                    .then_some((&d.aux[..], links)),
            };
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

/// Measures every grid of `src`; nothing is written when any is refused.
pub fn measure_sets(
    src: &Source,
    opts: &MeasureOptions,
) -> Result<(Vec<MeasuredSet>, Vec<String>), CliError> {
    let grids = load(src)?;
    let mut sets = Vec::new();
    let mut names = Vec::new();
    for l in grids {
        let m = measure(&l.grid, opts)
            .map_err(|(s, e)| CliError::Input(refusal(s, &e, &l.name).render(&flag)))?;
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

/// Outputs and run description shared by the command and the `measure` spec kind.
pub struct Job<'a> {
    pub title: String,
    pub file: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub force: bool,
    pub json: bool,
    pub command_line: &'a str,
    pub spec_text: String,
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
    let (sets, names) = measure_sets(src, opts)?;
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
