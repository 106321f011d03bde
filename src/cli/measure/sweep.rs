//! `pendula run` of a `kind = "measure"` spec: its map computed (or reused) into
//! `measure.map_file`, then measured; a `[measure.sweep]` measures one map per value.

use super::label::{measure_sets, run_job, Job};
use super::{Input, Source};
use crate::cli::output::{finish_command, CliError, Common, Outputs};
use pendula::kinds::measure::{MeasureRun, MeasureSweep};
use std::path::PathBuf;
use std::time::Instant;

/// `pendula run` of a `kind = "measure"` spec: computes its map into `measure.map_file` (a
/// complete map of the same spec there is reused, an interrupted one resumed; `--force`
/// recomputes it), then measures that file as `pendula measure` does.
pub fn run_spec(
    spec: &pendula::spec::Spec,
    common: &Common,
    r: &MeasureRun,
    command_line: &str,
) -> Result<(), CliError> {
    // A stop signal from here on ends the run with nothing of the measures written (a map
    // being computed keeps its own checkpoint, as `pendula map` does).
    let cancel = crate::cli::progress::install_interrupt_handler();
    let file = common.output.clone().or_else(|| spec.output.file.clone());
    let plot = common.plot.clone().or_else(|| spec.output.plot.clone());
    // Refuse an existing result before the map's work, not after it.
    for (flag, p) in [("output.file", &file), ("output.plot", &plot)] {
        if let Some(p) = p {
            crate::cli::output::prepare_path(p, common.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    if let Some(sweep) = &r.sweep {
        return run_sweep(spec, common, r, sweep, (file, plot), command_line, &cancel);
    }
    compute_map(spec, common, r, command_line)?;
    let src = Source {
        input: Input::Map(r.map_file.clone()),
        variable: r.variable.clone(),
        flip_before: r.flip_before.clone(),
        extent: None,
    };
    let job = Job {
        title: spec.title.clone(),
        file,
        plot,
        force: common.force,
        json: common.json,
        command_line,
        spec_text: spec.text.clone(),
        budget: common.budget(),
        cancel,
    };
    run_job(&src, &r.options, &job)
}

/// Computes the measure spec's map into `r.map_file` as `pendula run` of its `[map]` would,
/// resuming an interrupted one and reusing a complete one.
fn compute_map(
    spec: &pendula::spec::Spec,
    common: &Common,
    r: &MeasureRun,
    command_line: &str,
) -> Result<(), CliError> {
    let map_spec = r.map_spec(spec).map_err(CliError::Run)?;
    let map_common = Common {
        output: Some(r.map_file.clone()),
        plot: None,
        json: false,
        ..common.clone()
    };
    let flags = crate::cli::map::RunFlags {
        resume: true,
        ..Default::default()
    };
    crate::cli::map::run_map(&map_spec, &map_common, &flags, command_line)
}

/// A `[measure.sweep]`: every point's map (its own file and checkpoint, so a rerun reuses
/// the finished maps and resumes the interrupted one) and measures, then one HDF5 group
/// `measure` over the dimension `sweep`, one figure of each measure against the parameter
/// and one summary. Nothing is written before every point was measured.
fn run_sweep(
    spec: &pendula::spec::Spec,
    common: &Common,
    r: &MeasureRun,
    sweep: &pendula::spec::Sweep,
    (file, plot): (Option<PathBuf>, Option<PathBuf>),
    command_line: &str,
    cancel: &pendula::observe::Cancel,
) -> Result<(), CliError> {
    let budget = common.budget();
    if let Some(p) = &file {
        crate::cli::output::check_result_path(p, "output.file")?;
    }
    if let Some(p) = &plot {
        crate::cli::output::check_figure_path(p, "output.plot")?;
    }
    let start = Instant::now();
    let mut points = Vec::with_capacity(sweep.points.len());
    let mut names = Vec::new();
    for (k, pf) in sweep.points.iter().enumerate() {
        if cancel.is_set() {
            return Err(super::label::interrupted());
        }
        let field = format!("measure.sweep.values[{}]", k + 1);
        let ps = pf
            .validate()
            .map_err(|e| CliError::Input(format!("{field}: {e}")))?;
        let Some(pr) = super::run_of(&ps) else {
            unreachable!("a sweep point is a measure spec")
        };
        compute_map(&ps, common, pr, command_line)?;
        let src = Source {
            input: Input::Map(pr.map_file.clone()),
            variable: pr.variable.clone(),
            flip_before: pr.flip_before.clone(),
            extent: None,
        };
        let (sets, n) = measure_sets(&src, &pr.options, &budget, cancel).map_err(|e| {
            let at = format!("{field} ({} = {})", sweep.parameter, sweep.values[k]);
            match e {
                CliError::Input(m) => CliError::Input(format!("{at}: {m}")),
                CliError::Field(f) => {
                    CliError::Input(format!("{at}: {}", f.render(&super::super::flags::spell)))
                }
                CliError::Run(m) => CliError::Run(format!("{at}: {m}")),
            }
        })?;
        names = n;
        points.push(sets);
    }
    let wall = start.elapsed().as_secs_f64();
    let m = MeasureSweep::new(&spec.title, &r.options, sweep, points, names);
    if plot.is_some() && !m.has_figure() {
        return Err(CliError::Input(
            "output.plot: nothing measured has a figure (the Wada test of a two-label grid is skipped)".into(),
        ));
    }
    finish_command(
        &Outputs { file, plot },
        (common.force, common.json),
        (command_line, &spec.text),
        &spec.title,
        Box::new(m),
        wall,
    )
}
