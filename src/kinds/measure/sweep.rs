//! A measure sweep's result ([`MeasureSweep`]): every point's label grids measured, written as
//! one group `measure` over the dimension `sweep`, drawn as each measure against the swept
//! parameter, summarised as one JSON line or one text block per point.

use super::report::{set_json, table};
use crate::analysis::measure::{MeasureOptions, MeasuredSet};
use crate::finding::{Finding, Record};
use crate::kinds::Found;
use crate::plot::{self, MeasureFigure, PlotError};
use crate::spec::Sweep;
use crate::store::{self, SweepRun};
use serde_json::json;
use std::path::Path;

/// The measures of a `[measure.sweep]`: one list of sets per swept value.
#[derive(Debug, Clone)]
pub struct MeasureSweep {
    pub title: String,
    pub opts: MeasureOptions,
    /// The spec field varied and its units.
    pub parameter: String,
    pub units: String,
    pub values: Vec<f64>,
    /// Each point's map file, as its spec names it.
    pub map_files: Vec<String>,
    pub points: Vec<Vec<MeasuredSet>>,
    /// The sets' names (a flip time, a variable), the figure's legend.
    pub names: Vec<String>,
    /// The run's wall time (s), for the report ([`Finding::timed`]; 0 until told).
    pub wall: f64,
}

impl MeasureSweep {
    /// The sweep `sweep` of a spec titled `title`, measured with `opts` into `points`.
    pub fn new(
        title: &str,
        opts: &MeasureOptions,
        sweep: &Sweep,
        points: Vec<Vec<MeasuredSet>>,
        names: Vec<String>,
    ) -> MeasureSweep {
        MeasureSweep {
            title: title.to_string(),
            opts: opts.clone(),
            parameter: sweep.parameter.clone(),
            units: sweep.units.clone(),
            values: sweep.values.clone(),
            map_files: sweep
                .map_files
                .iter()
                .map(|f| f.display().to_string())
                .collect(),
            points,
            names,
            wall: 0.0,
        }
    }

    fn figure(&self) -> MeasureFigure {
        MeasureFigure::sweep(
            &self.title,
            &self.parameter,
            &self.units,
            &self.values,
            &self.points,
            &self.names,
        )
    }
}

impl MeasureSweep {
    /// Whether it has a figure to draw (not when no point measured anything with a curve).
    pub fn has_figure(&self) -> bool {
        !self.figure().is_empty()
    }
}

impl Finding for MeasureSweep {
    fn group(&self) -> &'static str {
        "measure"
    }

    fn complete(&self) -> bool {
        true
    }

    fn record(&self) -> Record {
        let run = SweepRun {
            parameter: &self.parameter,
            units: &self.units,
            values: &self.values,
            points: &self.points,
        };
        store::sweep_record(&self.opts, &run)
    }

    fn summary(&self) -> serde_json::Value {
        json!({
            "kind": "measure",
            "title": self.title,
            "what": self.opts.what.name(),
            "seed": self.opts.boxes.seed,
            "sweep": {
                "parameter": self.parameter,
                "units": self.units,
                "values": self.values,
                "map_files": self.map_files,
            },
            "points": self.points.iter().zip(&self.values).map(|(sets, v)| json!({
                "value": v,
                "sets": sets.iter().map(set_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "threads": rayon::current_num_threads(),
        })
    }

    fn report(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for (sets, v) in self.points.iter().zip(&self.values) {
            let _ = writeln!(s, "{} = {v} {}:", self.parameter, self.units);
            s.push_str(&table(sets, self.wall));
        }
        s
    }

    /// Its summary names its kind and title itself.
    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }

    fn timed(&mut self, wall: f64) {
        self.wall = wall;
    }
}

impl Found for MeasureSweep {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        plot::draw_measure(&self.figure(), path)
    }
}
