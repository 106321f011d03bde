//! SALI/GALI: the group `indicators`, with coordinates `time` and `gali_order`, variables
//! `sali(time)` and `gali(time, gali_order)`, the verdict and thresholds as attributes, and
//! the run's initial state.

use super::spectrum::method;
use crate::analysis::map::class;
use crate::analysis::orbit::{AlignmentIndices, SALI_CHAOTIC, SALI_REGULAR};
use crate::analysis::Regularity;
use crate::finding::{Finding, Record, RunPart, Scalar};
use crate::format::{f64_json, num};
use crate::kinds::Found;
use crate::plot::PlotError;
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// SALI and GALI of one orbit of a planar chain.
#[derive(Debug, Clone)]
pub struct SaliResult {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    pub indicators: AlignmentIndices,
}

impl Finding for SaliResult {
    fn group(&self) -> &'static str {
        "indicators"
    }

    fn complete(&self) -> bool {
        self.indicators.complete
    }

    fn record(&self) -> Record {
        let r = &self.indicators;
        let mut g = Record::new("indicators");
        g.coord("time", r.time.as_slice(), "s", "time")
            .coord(
                "gali_order",
                r.orders.iter().map(|&o| o as i64).collect::<Vec<_>>(),
                "1",
                "number k of deviation vectors in GALI_k",
            )
            .var(
                "sali",
                &["time"],
                r.sali.as_slice(),
                "1",
                "smaller alignment index min(|u1+u2|, |u1-u2|)",
            )
            .var(
                "gali",
                &["time", "gali_order"],
                r.gali.clone(),
                "1",
                "generalized alignment index (volume of the k unit deviation vectors)",
            )
            .attr("regularity", r.regularity.name())
            .attr("chaos_time", r.chaos_time.unwrap_or(f64::NAN))
            .attr("min_sali", r.min_sali)
            .attr("min_sali_second_half", r.min_sali_second_half)
            .attr("sali_chaotic_threshold", SALI_CHAOTIC)
            .attr("sali_regular_threshold", SALI_REGULAR)
            .attr("tau", r.options.tau)
            .attr("time_requested", r.options.time)
            .attr("t_end", r.t_end)
            .attr("seed", r.options.seed as i64)
            .attr("stopped_below", r.stopped_below)
            .attr("stop_below", r.options.stop_below.unwrap_or(f64::NAN))
            .attr("complete", r.complete)
            .attr("steps", r.steps as i64)
            .attr("rhs_evaluations", r.rhs_evaluations as i64);
        method(&mut g, &r.method);
        g.run_part(RunPart::InitialState);
        g
    }

    fn summary(&self) -> serde_json::Value {
        let r = &self.indicators;
        json!({
            "kind": "lyapunov", "estimator": "sali", "title": self.title,
            "regularity": r.regularity.name(), "chaos_time": r.chaos_time,
            "min_sali": f64_json(r.min_sali), "min_sali_second_half": f64_json(r.min_sali_second_half),
            "final_sali": r.sali.last().copied().map(f64_json),
            "t_end": r.t_end, "steps": r.steps, "rhs_evaluations": r.rhs_evaluations,
            "complete": r.complete,
        })
    }

    /// The verdict.
    fn report(&self) -> String {
        let r = &self.indicators;
        let mut s = format!(
            "SALI over 0..{} s: {}\n  min SALI {} (second half {})\n",
            r.t_end,
            r.regularity.name(),
            num(r.min_sali),
            num(r.min_sali_second_half)
        );
        if let Some(t) = r.chaos_time {
            let _ = writeln!(s, "  SALI fell below the chaos threshold at t = {t} s");
        }
        s
    }

    fn scalars(&self) -> Vec<Scalar> {
        let r = &self.indicators;
        let code = match r.regularity {
            Regularity::Chaotic => class::CHAOTIC,
            Regularity::Regular => class::REGULAR,
            Regularity::Undecided => class::UNDECIDED,
        };
        vec![
            Scalar::one("sali_min", r.min_sali, "1", "smallest SALI over the run"),
            Scalar::one(
                "chaos_time",
                r.chaos_time.unwrap_or(f64::NAN),
                "s",
                "first time SALI < 1e-8 (NaN: never)",
            ),
            Scalar::one(
                "regularity",
                f64::from(code),
                "1",
                "SALI verdict: 0 undecided, 1 chaotic, 4 regular (the sali map's class codes)",
            ),
        ]
    }

    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }
}

impl Found for SaliResult {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_indicators(&self.indicators, &self.title, path)
    }
}
