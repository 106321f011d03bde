//! `lyapunov`'s own part of a run ([`pendula::run::execute`] runs the estimator and writes its
//! groups): for spectra, two-trajectory estimates, ensembles and the chaos indicators, the
//! convergence figures, the JSON summary and the text report.

use super::output::{num, report, CliError, Run};
use pendula::analysis::lyapunov::Lyapunov;
use pendula::model::{CartChain, System};
use serde_json::json;
use std::fmt::Write;

/// Whether a `lyapunov` run's summary is its result's whole JSON object
/// ([`super::output::report_whole`]): every estimator's but the registered indicators'
/// (MEGNO, FLI), which get the frame every registered kind's summary gets.
pub fn whole_summary(spec: &pendula::spec::Spec) -> bool {
    use pendula::spec::{Analysis, LyapunovEstimator};
    matches!(&spec.analysis, Analysis::Lyapunov(r) if !matches!(r.estimator, LyapunovEstimator::Indicator(..)))
}

/// The cart chain's spectrum on its constraint manifold (already written).
pub fn cart(ctx: &Run, sys: &CartChain, r: &Lyapunov, wall: f64) -> Result<(), CliError> {
    let spec = ctx.spec;
    if let Some(path) = &ctx.outputs.plot {
        pendula::plot::draw_convergence(r, &spec.title, path)?;
    }
    let summary = json!({
        "kind": "lyapunov", "model": "cart-chain", "title": spec.title,
        "phase_space_dimension": sys.manifold_dim(),
        "exponents": r.exponents, "standard_error": r.standard_error,
        "sum_exponents": r.sum, "pair_sums": r.pair_sums,
        "closest_to_zero": r.closest_to_zero,
        "relative_energy_drift": r.energy.relative_drift,
        "averaged_time": r.averaged_time, "counts": r.counts,
        "complete": r.complete, "wall_s": wall,
    });
    report(
        &summary,
        ctx.common.json,
        Some(spectrum_text(r)),
        r.complete,
    )
}

/// The text report of a spectrum (or one exponent): what the JSON says, for a reader.
fn spectrum_text(r: &Lyapunov) -> String {
    let mut s = String::new();
    let k = r.exponents.len();
    let _ = writeln!(
        s,
        "Lyapunov exponents ({}, {k} of them): averaged over {} s after a {} s transient, tau = {} s, {}",
        r.estimator.name(),
        r.averaged_time,
        r.transient,
        r.tau,
        r.method.name()
    );
    let _ = writeln!(
        s,
        "  {:>3}  {:>18}  {:>12}",
        "i", "lambda_i / (1/s)", "std. error"
    );
    for (i, (l, e)) in r.exponents.iter().zip(&r.standard_error).enumerate() {
        let _ = writeln!(s, "  {:>3}  {:>18}  {:>12}", i + 1, num(*l), num(*e));
    }
    if k > 1 {
        let _ = writeln!(
            s,
            "  sum = {} +- {} (1/s)",
            num(r.sum),
            num(r.sum_standard_error)
        );
    }
    if !r.pair_sums.is_empty() {
        let pairs: Vec<String> = r.pair_sums.iter().map(|v| num(*v)).collect();
        let _ = writeln!(
            s,
            "  pair sums lambda_i + lambda_(k+1-i): {} (0 for a conservative chain)",
            pairs.join(", ")
        );
    }
    if let Some(d) = r.kaplan_yorke {
        let _ = writeln!(s, "  Kaplan-Yorke dimension: {}", num(d));
    }
    let _ = writeln!(
        s,
        "  energy: E(0) = {} J, relative drift {}",
        num(r.energy.initial),
        num(r.energy.relative_drift)
    );
    if let Some(c) = r.converged {
        let _ = writeln!(
            s,
            "  converged to the tolerance: {}",
            if c { "yes" } else { "no" }
        );
    }
    if !r.complete {
        let _ = writeln!(s, "  (interrupted at t = {} s)", r.t_end);
    }
    s
}
