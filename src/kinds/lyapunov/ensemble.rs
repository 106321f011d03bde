//! An ensemble of spectra: the `lyapunov` group of its first (unperturbed) member and, beside
//! it, the `ensemble` group.
//!
//! The `ensemble` group: coordinates `member`, `exponent`, `component`; variables `mean`,
//! `std`, `standard_error` over `exponent`, `member_exponents` and `member_standard_error` over
//! (member, exponent), `initial_conditions(member, component)`; attributes epsilon, seed,
//! complete and the first member's integrator and times.

use super::spectrum::{chain_group, method, spectrum_entries, spectrum_json};
use crate::analysis::lyapunov::Ensemble;
use crate::finding::{Finding, Record, Scalar};
use crate::format::num;
use crate::kinds::Found;
use crate::plot::PlotError;
use ndarray::Array2;
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// An ensemble's members and statistics on a planar chain.
#[derive(Debug, Clone)]
pub struct EnsembleResult {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    pub links: usize,
    /// The estimator as the spec names it.
    pub estimator: &'static str,
    pub ensemble: Ensemble,
}

impl Finding for EnsembleResult {
    fn group(&self) -> &'static str {
        "lyapunov"
    }

    fn complete(&self) -> bool {
        self.ensemble.complete
    }

    fn record(&self) -> Record {
        let mut g = chain_group("lyapunov", self.links);
        spectrum_entries(&mut g, &self.ensemble.members[0]);
        g
    }

    fn beside(&self) -> Vec<Record> {
        vec![ensemble_record(&self.ensemble)]
    }

    fn summary(&self) -> serde_json::Value {
        let e = &self.ensemble;
        json!({
            "kind": "lyapunov", "estimator": self.estimator, "title": self.title,
            "members": e.members.len(), "mean": e.mean, "std": e.std, "standard_error": e.standard_error,
            "member0": spectrum_json(&e.members[0]), "complete": e.complete,
        })
    }

    fn report(&self) -> String {
        let e = &self.ensemble;
        let mut s = format!(
            "Lyapunov exponents over an ensemble of {} initial conditions\n",
            e.members.len()
        );
        let _ = writeln!(
            s,
            "  {:>3}  {:>18}  {:>12}  {:>12}",
            "i", "mean / (1/s)", "std", "std. error"
        );
        for i in 0..e.mean.len() {
            let _ = writeln!(
                s,
                "  {:>3}  {:>18}  {:>12}  {:>12}",
                i + 1,
                num(e.mean[i]),
                num(e.std[i]),
                num(e.standard_error[i])
            );
        }
        s
    }

    fn scalars(&self) -> Vec<Scalar> {
        ensemble_scalars(&self.ensemble)
    }

    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }
}

/// The first member's convergence.
impl Found for EnsembleResult {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_convergence(&self.ensemble.members[0], &self.title, path)
    }
}

/// The `ensemble` group (see the module docs).
fn ensemble_record(e: &Ensemble) -> Record {
    let m = e.members.len();
    let k = e.mean.len();
    let dim = e.initial_conditions.first().map_or(0, |x| x.len());
    let ex = Array2::from_shape_fn((m, k), |(i, j)| {
        e.members[i].exponents.get(j).copied().unwrap_or(f64::NAN)
    });
    let se = Array2::from_shape_fn((m, k), |(i, j)| {
        e.members[i]
            .standard_error
            .get(j)
            .copied()
            .unwrap_or(f64::NAN)
    });
    let ic = Array2::from_shape_fn((m, dim), |(i, j)| e.initial_conditions[i][j]);
    let mut g = Record::new("ensemble");
    g.coord(
        "member",
        (0..m as i64).collect::<Vec<_>>(),
        "1",
        "ensemble member (0: unperturbed)",
    )
    .index("exponent", k, "exponent index i")
    .coord(
        "component",
        (0..dim as i64).collect::<Vec<_>>(),
        "1",
        "state component",
    )
    .var(
        "mean",
        &["exponent"],
        e.mean.as_slice(),
        "s-1",
        "ensemble mean exponent",
    )
    .var(
        "std",
        &["exponent"],
        e.std.as_slice(),
        "s-1",
        "standard deviation across members",
    )
    .var(
        "standard_error",
        &["exponent"],
        e.standard_error.as_slice(),
        "s-1",
        "standard error of the ensemble mean (std / sqrt(M))",
    )
    .var(
        "member_exponents",
        &["member", "exponent"],
        ex,
        "s-1",
        "each member's exponents",
    )
    .var(
        "member_standard_error",
        &["member", "exponent"],
        se,
        "s-1",
        "each member's batch-means standard error",
    )
    .var(
        "initial_conditions",
        &["member", "component"],
        ic,
        "1",
        "each member's initial state (SI units of the state components)",
    )
    .attr("epsilon", e.options.epsilon)
    .attr("seed", e.options.seed as i64)
    .attr("members_requested", e.options.members as i64)
    .attr("complete", e.complete);
    if let Some(first) = e.members.first() {
        method(&mut g, &first.method);
        g.attr("tau", first.tau)
            .attr("transient", first.transient)
            .attr("time_requested", first.options.time);
    }
    g
}

/// An ensemble's numbers for a sweep: the mean and spread of each exponent and the largest's
/// mean.
fn ensemble_scalars(e: &Ensemble) -> Vec<Scalar> {
    let mut s = vec![
        Scalar::vector(
            "lambda_mean",
            "exponent",
            e.mean.clone(),
            "s-1",
            "ensemble mean of each exponent",
        )
        .with_errors(e.standard_error.clone()),
        Scalar::vector(
            "lambda_std",
            "exponent",
            e.std.clone(),
            "s-1",
            "spread (sample standard deviation) of each exponent over the members",
        ),
    ];
    if let (Some(m), Some(err)) = (e.mean.first(), e.standard_error.first()) {
        s.push(
            Scalar::one(
                "lambda_max",
                *m,
                "s-1",
                "largest Lyapunov exponent (ensemble mean)",
            )
            .with_error(*err),
        );
    }
    s
}
