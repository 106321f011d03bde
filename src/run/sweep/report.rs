//! What a finished sweep shows its user: one figure panel per scalar result against the
//! (first) swept field with 95 % bars, a JSON summary and a text table (the front end prints
//! one of them and draws the figure where asked).

use super::{trend_of, SweepOutcome, Trend};
use crate::format::f64_json;
use crate::plot::measure::{BarPoint, PanelSpec, SeriesSpec};
use crate::plot::{MeasureFigure, PlotError};
use crate::store::{Provenance, StoreError};
use serde_json::json;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// z of a two-sided 95 % normal interval (the figure's bars: ±z·SE).
const Z95: f64 = 1.959_963_984_540_054;

/// Results a figure leaves out: codes and the half-run value, which the trend flag sums up.
const NOT_DRAWN: [&str; 3] = ["lambda_max_trend", "lambda_max_half", "regularity"];

impl SweepOutcome<'_> {
    /// The points taken from an earlier run instead of run again.
    pub fn reused(&self) -> usize {
        self.points.iter().filter(|p| p.reused).count()
    }

    /// Writes the file `path` ([`SweepOutcome::write_file`]) of a run by `command_line`: its
    /// provenance records the command and the spec's text.
    pub fn write_run(
        &self,
        path: &Path,
        force: bool,
        command_line: &str,
    ) -> Result<PathBuf, StoreError> {
        let prov = Provenance::now(command_line, &self.spec.text);
        self.write_file(path, force, &prov)
    }

    /// Whether its figure has anything to draw (a result with a value).
    pub fn has_figure(&self) -> bool {
        !figure(self).is_empty()
    }

    /// Draws its figure to `path` (PNG or SVG by its extension).
    pub fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_measure(&figure(self), path)
    }

    /// Its JSON summary: the sweep, each point's results, the points `reused`, the wall time
    /// and the paths written (`file`, `plot`).
    pub fn summary(
        &self,
        wall: f64,
        file: Option<&Path>,
        plot: Option<&Path>,
    ) -> serde_json::Value {
        summary(self, wall, self.reused(), (file, plot))
    }

    /// Its text table, headed by the points run and reused in `wall` seconds.
    pub fn report(&self, wall: f64) -> String {
        table(self, wall, self.reused())
    }
}

/// The x of point `k`: its value of the first swept field.
fn x_of(o: &SweepOutcome, k: usize) -> f64 {
    o.plan.points[k].values[0]
}

/// The figure: each drawn result against the first swept field; with several fields, one
/// series per combination of the others. λ_max's points whose running estimate is still
/// moving are drawn again as their own series, so the figure says which they are.
fn figure(o: &SweepOutcome) -> MeasureFigure {
    let plan = o.plan;
    let first = &plan.axes[0];
    let x_label = crate::model::axis_label(
        &crate::spec::parameter_long_name(&first.parameter),
        &first.units,
    );
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
                let mut points: Vec<BarPoint> = ks
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
                let moving: Vec<BarPoint> = ks
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
    MeasureFigure::of_panels(&o.spec.title, panels)
}

fn summary(
    o: &SweepOutcome,
    wall: f64,
    reused: usize,
    (file, plot): (Option<&Path>, Option<&Path>),
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
        "kind": o.spec.analysis.kind().name,
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
        "output": file.map(|p| p.display().to_string()),
        "plot": plot.map(|p| p.display().to_string()),
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
        o.spec.analysis.kind().name,
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
