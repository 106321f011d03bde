//! A spec with a `[sweep]` (or `--sweep PARAM=LIST`): the points run by the library
//! ([`pendula::run::sweep::run_sweep`]), then the `sweep` group, one figure panel per scalar
//! result against the (first) swept field with 95 % bars, and a table or JSON summary.

use super::output::{f64_json, CliError, Common};
use super::progress;
use pendula::plot::measure::{PanelSpec, SeriesSpec};
use pendula::run::sweep::{run_sweep, trend_of, SweepOutcome, Trend};
use pendula::run::RunError;
use pendula::spec::Spec;
use pendula::store::Provenance;
use serde_json::json;
use std::fmt::Write;

/// z of a two-sided 95 % normal interval (the figure's bars: ±z·SE).
const Z95: f64 = 1.959_963_984_540_054;

/// Results a figure leaves out: codes and the half-run value, which the trend flag sums up.
const NOT_DRAWN: [&str; 3] = ["lambda_max_trend", "lambda_max_half", "regularity"];

/// Runs the sweep of `spec` and writes its outputs (checked by the caller before any work).
pub fn run(
    spec: &Spec,
    common: &Common,
    outputs: &super::output::Outputs,
    command_line: &str,
) -> Result<(), CliError> {
    let start = std::time::Instant::now();
    let mut bar = progress::Bar::new("sweep");
    let directory = sweep_directory(spec, outputs);
    let outcome = match run_sweep(spec, directory.clone(), command_line, &mut bar) {
        Err(RunError::Interrupted) => {
            let kept = match &directory {
                Some(d) => format!(
                    "the finished points are kept in {}; rerun the same command to resume",
                    d.display()
                ),
                None => "no point was kept (give -o or sweep.directory to keep them)".into(),
            };
            return Err(CliError::Run(format!("interrupted: {kept}")));
        }
        other => other?,
    };
    let wall = start.elapsed().as_secs_f64();
    // A kept point whose file no longer matched its record was run again: say which and why.
    for (k, p) in outcome.points.iter().enumerate() {
        if let Some(why) = &p.rerun {
            eprintln!(
                "point {} ({}): not reused, run again: {why}",
                k + 1,
                outcome.plan.describe(k)
            );
        }
    }
    if let Some(path) = &outputs.file {
        let prov = Provenance::now(command_line, &spec.text);
        outcome.write_file(path, common.force, &prov)?;
    }
    if let Some(path) = &outputs.plot {
        let fig = figure(&outcome);
        if fig.is_empty() {
            return Err(CliError::Input(
                "--plot: no result of this sweep has a value to draw".into(),
            ));
        }
        pendula::plot::draw_measure(&fig, path)?;
    }
    let reused = outcome.points.iter().filter(|p| p.reused).count();
    if common.json {
        println!("{}", summary(&outcome, wall, reused, outputs));
    } else {
        print!("{}", table(&outcome, wall, reused));
    }
    Ok(())
}

/// Where a sweep keeps its points: `sweep.directory`, else beside the result file (`-o` or
/// `output.file`), else nowhere.
pub fn sweep_directory(
    spec: &Spec,
    outputs: &super::output::Outputs,
) -> Option<std::path::PathBuf> {
    let plan = spec.sweep.as_deref()?;
    plan.directory
        .clone()
        .or_else(|| outputs.file.as_deref().map(pendula::spec::points_beside))
}

/// The x of point `k`: its value of the first swept field.
fn x_of(o: &SweepOutcome, k: usize) -> f64 {
    o.plan.points[k].values[0]
}

/// The figure: each drawn result against the first swept field; with several fields, one
/// series per combination of the others. λ_max's points whose running estimate is still
/// moving are drawn again as their own series, so the figure says which they are.
fn figure(o: &SweepOutcome) -> pendula::plot::MeasureFigure {
    let plan = o.plan;
    let first = &plan.axes[0];
    let x_label = format!("{} / {}", first.parameter, first.units);
    // The points of each series: those sharing the values of every field but the first.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for k in 0..plan.points.len() {
        let label = plan
            .axes
            .iter()
            .zip(&plan.points[k].values)
            .skip(1)
            .map(|(a, v)| format!("{} = {v}", a.parameter))
            .collect::<Vec<_>>()
            .join(", ");
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(g) => g.1.push(k),
            None => groups.push((label, vec![k])),
        }
    }
    let mut panels = Vec::new();
    let columns = o.columns();
    // One exponent: λ, λ_max and Σλ are the same numbers; λ_max's panel alone draws them.
    let one_exponent = columns
        .iter()
        .any(|c| c.name == "lambda" && c.dim.as_ref().is_some_and(|(_, i)| i.len() == 1));
    for col in columns {
        if NOT_DRAWN.contains(&col.name.as_str())
            || (one_exponent && matches!(col.name.as_str(), "lambda" | "lambda_sum"))
        {
            continue;
        }
        let width = col.dim.as_ref().map_or(1, |(_, c)| c.len());
        if width > 8 {
            continue;
        }
        let (v, e) = o.table(&col.name, width);
        let mut series = Vec::new();
        for (label, ks) in &groups {
            for j in 0..width {
                let mut name = col.name.clone();
                if let Some((dim, c)) = &col.dim {
                    let _ = write!(name, " {dim} {}", c[j]);
                }
                if !label.is_empty() {
                    let _ = write!(name, " ({label})");
                }
                let mut points: Vec<pendula::plot::measure::BarPoint> = ks
                    .iter()
                    .map(|&k| {
                        let (y, se) = (v[k * width + j], e[k * width + j]);
                        let bar = se.is_finite().then_some((y - Z95 * se, y + Z95 * se));
                        (x_of(o, k), y, bar)
                    })
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                series.push(SeriesSpec {
                    label: name,
                    points,
                    joined: true,
                });
            }
            if col.name == "lambda_max" {
                let (codes, _) = o.table("lambda_max_trend", 1);
                let moving: Vec<pendula::plot::measure::BarPoint> = ks
                    .iter()
                    .filter(|&&k| matches!(trend_of(codes[k]), Trend::Rising | Trend::Falling))
                    .map(|&k| (x_of(o, k), v[k], None))
                    .collect();
                if !moving.is_empty() {
                    series.push(SeriesSpec {
                        label: "running estimate still moving".into(),
                        points: moving,
                        joined: false,
                    });
                }
            }
        }
        let bars = if col.errors.is_some() { " (95 %)" } else { "" };
        panels.push(PanelSpec {
            x_label: x_label.clone(),
            y_label: format!("{} / {}{bars}", col.name, col.units),
            series,
        });
    }
    pendula::plot::MeasureFigure::of_panels(&o.spec.title, panels)
}

fn summary(
    o: &SweepOutcome,
    wall: f64,
    reused: usize,
    outputs: &super::output::Outputs,
) -> serde_json::Value {
    let plan = o.plan;
    let points: Vec<serde_json::Value> = o
        .points
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut results = serde_json::Map::new();
            for s in &p.scalars {
                let v = |x: &[f64]| {
                    if s.dim.is_some() {
                        json!(x.iter().map(|v| f64_json(*v)).collect::<Vec<_>>())
                    } else {
                        f64_json(x[0])
                    }
                };
                results.insert(s.name.clone(), v(&s.values));
                if let Some(e) = &s.errors {
                    results.insert(format!("{}_standard_error", s.name), v(e));
                }
                if s.name == "lambda_max_trend" {
                    results.insert(
                        "lambda_max_trend".into(),
                        json!(trend_of(s.values[0]).words()),
                    );
                }
            }
            json!({
                "values": plan.points[k].values,
                "results": results,
                "file": p.file.as_ref().map(|f| f.display().to_string()),
                "reused": p.reused,
                "rerun": p.rerun,
            })
        })
        .collect();
    json!({
        "kind": o.spec.analysis.kind(),
        "title": o.spec.title,
        "sweep": {
            "parameters": plan.axes.iter().map(|a| json!({
                "parameter": a.parameter,
                "units": a.units,
                "values": a.values,
            })).collect::<Vec<_>>(),
            "combine": plan.combine.name(),
            "directory": o.directory.as_ref().map(|d| d.display().to_string()),
        },
        "points": points,
        "reused": reused,
        "wall_s": wall,
        "threads": rayon::current_num_threads(),
        "output": outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": outputs.plot.as_ref().map(|p| p.display().to_string()),
    })
}

/// One row per point: the swept values, then each single-valued result (± its standard
/// error) and λ_max's trend in words.
fn table(o: &SweepOutcome, wall: f64, reused: usize) -> String {
    let plan = o.plan;
    let cols: Vec<_> = o
        .columns()
        .into_iter()
        .filter(|c| c.dim.is_none() && c.name != "lambda_max_half")
        .collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} sweep: {} points ({} reused) in {wall:.2} s",
        o.spec.analysis.kind(),
        o.points.len(),
        reused
    );
    let mut head: Vec<String> = plan.axes.iter().map(|a| a.parameter.clone()).collect();
    head.extend(cols.iter().map(|c| c.name.clone()));
    let _ = writeln!(s, "{}", head.join("  "));
    for (k, p) in o.points.iter().enumerate() {
        let mut row: Vec<String> = plan.points[k]
            .values
            .iter()
            .map(|v| format!("{v}"))
            .collect();
        for c in &cols {
            let cell = match p.scalars.iter().find(|x| x.name == c.name) {
                None => "-".to_string(),
                Some(x) if x.name == "lambda_max_trend" => trend_of(x.values[0]).words().into(),
                Some(x) => match x.errors.as_ref().and_then(|e| e.first()) {
                    Some(e) if e.is_finite() => format!("{:.6} ± {:.2e}", x.values[0], e),
                    _ => format!("{:.6}", x.values[0]),
                },
            };
            row.push(cell);
        }
        let _ = writeln!(s, "{}", row.join("  "));
    }
    s
}
