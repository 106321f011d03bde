//! The chaotic fraction of energy shells of a chain (SALI on Liouville-uniform starts): no
//! label grid but a model and a run, and its result ([`ChaoticFraction`]): the HDF5 group
//! `measure/chaotic_fraction`, the figure, the JSON summary and the text report.

use super::report::pair;
use crate::analysis::measure::chaotic::{self, ChaoticOptions, ShellFraction};
use crate::analysis::measure::MeasureError;
use crate::analysis::orbit::{SALI_CHAOTIC, SALI_REGULAR};
use crate::error::FieldError;
use crate::finding::{Finding, Record};
use crate::format::f64_json;
use crate::kinds::{Found, RunError};
use crate::model::Chain;
use crate::observe::Cancel;
use crate::plot::{self, PlotError};
use crate::store::{self, ChaoticRun};
use serde_json::json;
use std::path::Path;

/// The refusal of a model that is not a planar chain.
pub fn needs_planar() -> FieldError {
    chaotic::needs_planar()
}

/// The library's own checks (a conservative chain, energies above the hanging rest) on no
/// work at all, so that a front end refuses before it prepares any output.
pub fn check(chain: &Chain, energies: &[f64]) -> Result<(), FieldError> {
    chaotic::check(chain, energies).map_err(|e| chaotic::refusal(&e))
}

/// The chaotic fraction of the shells `energies` of `chain` (model name `model`), `samples`
/// starts each from `seed`. A stop keeps the shells finished before it (the result is then
/// marked incomplete); a refusal is bad input naming its field.
pub fn run(
    chain: &Chain,
    model: String,
    energies: &[f64],
    samples: usize,
    seed: u64,
    options: ChaoticOptions,
    cancel: &Cancel,
) -> Result<ChaoticFraction, RunError> {
    let (rows, complete) =
        chaotic::chaotic_fraction_partial(chain, energies, samples, seed, &options, cancel)
            .map_err(|e| match e {
                MeasureError::Interrupted => RunError::Interrupted,
                e => RunError::Input(chaotic::refusal(&e)),
            })?;
    let title = format!(
        "Chaotic fraction of the energy shells, model {model}, {} links (t_end = {} s)",
        chain.links(),
        options.indicators.time
    );
    Ok(ChaoticFraction {
        title,
        run: ChaoticRun {
            model,
            links: chain.links(),
            samples,
            seed,
            options,
            complete,
        },
        rows,
        wall: 0.0,
    })
}

/// The chaotic fraction of energy shells: one row per shell measured.
#[derive(Debug, Clone)]
pub struct ChaoticFraction {
    pub title: String,
    pub run: ChaoticRun,
    pub rows: Vec<ShellFraction>,
    /// The run's wall time (s), for the report ([`Finding::timed`]; 0 until told).
    pub wall: f64,
}

impl Finding for ChaoticFraction {
    fn group(&self) -> &'static str {
        "measure"
    }

    /// False when a stop left shells unmeasured.
    fn complete(&self) -> bool {
        self.run.complete
    }

    fn record(&self) -> Record {
        store::chaotic_record(&self.run, &self.rows)
    }

    fn summary(&self) -> serde_json::Value {
        chaotic_json(&self.title, &self.run, &self.rows)
    }

    fn report(&self) -> String {
        chaotic_table(&self.run, &self.rows, self.wall)
    }

    /// Its summary names its kind, title and integrator itself.
    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }

    fn timed(&mut self, wall: f64) {
        self.wall = wall;
    }
}

impl Found for ChaoticFraction {
    /// The fraction against the shell's energy; nothing when no shell was measured.
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let fig = plot::MeasureFigure::chaotic_fraction(&self.title, &self.rows);
        plot::draw_measure(&fig, path)
    }
}

/// Its fields of the JSON summary (the front end adds the wall time and the paths written).
fn chaotic_json(title: &str, run: &ChaoticRun, rows: &[ShellFraction]) -> serde_json::Value {
    let o = &run.options;
    json!({
        "kind": "measure",
        "what": "chaotic-fraction",
        "title": title,
        "model": run.model,
        "links": run.links,
        "samples": run.samples,
        "seed": run.seed,
        "complete": run.complete,
        "t_end": o.indicators.time,
        "dt": run.dt(),
        "tau": o.indicators.tau,
        "integrator": o.method.name(),
        "deviation_vectors": o.indicators.k,
        "sali_chaotic": SALI_CHAOTIC,
        "sali_regular": SALI_REGULAR,
        "sampling": store::CHAOTIC_SAMPLING,
        "rows": rows.iter().map(|r| json!({
            "energy": r.energy,
            "chaotic": r.chaotic,
            "regular": r.regular,
            "undecided": r.undecided,
            "failed": r.failed,
            "fraction": f64_json(r.fraction),
            "wilson": pair(r.wilson),
            "proposals": r.proposals,
            "trend": r.trend.words(),
            "converged": r.trend.converged(),
            "ladder": r.ladder.iter().map(|l| json!({
                "time": l.time,
                "chaotic": l.chaotic,
                "regular": l.regular,
                "undecided": l.undecided,
                "fraction": f64_json(l.fraction),
                "wilson": pair(l.wilson),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "convergence_rule": crate::analysis::convergence::FRACTION_RULE,
        "threads": rayon::current_num_threads(),
    })
}

fn chaotic_table(run: &ChaoticRun, rows: &[ShellFraction], wall: f64) -> String {
    use std::fmt::Write;
    let o = &run.options;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "chaotic fraction of the energy shells, model {} ({} links): {} Liouville-uniform starts per shell, SALI to t_end = {} s (rk4 dt = {} s, tau = {} s), seed {}",
        run.model, run.links, run.samples, o.indicators.time, run.dt(), o.indicators.tau, run.seed
    );
    let _ = writeln!(
        s,
        "  {:>10}  {:>7}  {:>7}  {:>9}  {:>6}  {:>8}  {:>17}  {:>13}  trend",
        "E / J",
        "chaotic",
        "regular",
        "undecided",
        "failed",
        "fraction",
        "Wilson 95 %",
        "at t_end/2",
    );
    for r in rows {
        let half = match r.ladder.as_slice() {
            [.., h, _] => format!("{:.3}", h.fraction),
            _ => "-".into(),
        };
        let _ = writeln!(
            s,
            "  {:>10}  {:>7}  {:>7}  {:>9}  {:>6}  {:>8.3}  [{:.3}, {:.3}]  {:>13}  {}",
            r.energy,
            r.chaotic,
            r.regular,
            r.undecided,
            r.failed,
            r.fraction,
            r.wilson.0,
            r.wilson.1,
            half,
            r.trend.words()
        );
    }
    let _ = writeln!(s, "trend: {}", crate::analysis::convergence::FRACTION_RULE);
    if rows.iter().any(|r| !r.trend.converged()) {
        let _ = writeln!(
            s,
            "not converged: a longer --t-end would move the fraction of the shells not marked settled"
        );
    }
    let _ = writeln!(s, "measured in {wall:.2} s");
    s
}
