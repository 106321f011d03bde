//! A spectrum's group, summary, report, figure and sweep numbers, shared by the planar
//! chain's estimates and the cart chain's.
//!
//! The group (e.g. `lyapunov`): coordinates `exponent` (1..k) and `time` (the history),
//! variables `exponents(exponent)`, `standard_error(exponent)`, `history(time, exponent)`,
//! `history_standard_error(time, exponent)`, `pair_sums(pair)` for a full spectrum, and as
//! attributes: Σλ and its error, the volume check, energy drift, Kaplan–Yorke dimension (only
//! for a non-conservative chain whose exponents determine it), counts, options and the
//! integrator. Units of rates: `s-1` (CF spelling of 1/s).

use crate::analysis::lyapunov::{Estimator, Lyapunov, VolumeSplit};
use crate::finding::{Finding, Record, RunPart, Scalar};
use crate::format::num;
use crate::kinds::Found;
use crate::plot::PlotError;
use crate::store::method_attrs;
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// A spectrum, one exponent or two-trajectory estimate: the group `lyapunov` with the planar
/// chain's links, parameters and initial state, or the cart chain's: the spectrum (the planar
/// chain's layout), the initial state, the manifold's dimension and the model's name (the cart
/// chain has no planar run for the store to write beside it, so the record holds its initial
/// state itself).
#[derive(Debug, Clone)]
pub struct SpectrumResult {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    pub of: SpectrumOf,
    pub spectrum: Lyapunov,
}

/// What a spectrum is of.
#[derive(Debug, Clone)]
pub enum SpectrumOf {
    /// A planar chain of `links` links (the store writes its run beside the spectrum).
    Planar { links: usize },
    /// The cart chain, on its constraint manifold of that dimension, from that state.
    Cart {
        phase_space_dimension: usize,
        initial_state: Vec<f64>,
    },
}

impl Finding for SpectrumResult {
    fn group(&self) -> &'static str {
        "lyapunov"
    }

    fn complete(&self) -> bool {
        self.spectrum.complete
    }

    fn record(&self) -> Record {
        match &self.of {
            SpectrumOf::Planar { links } => {
                let mut g = chain_group("lyapunov", *links);
                spectrum_entries(&mut g, &self.spectrum);
                g
            }
            SpectrumOf::Cart {
                phase_space_dimension,
                initial_state,
            } => cart_record(&self.spectrum, *phase_space_dimension, initial_state),
        }
    }

    fn summary(&self) -> serde_json::Value {
        if let SpectrumOf::Cart {
            phase_space_dimension,
            ..
        } = self.of
        {
            return cart_summary(&self.spectrum, phase_space_dimension, &self.title);
        }
        let mut j = spectrum_json(&self.spectrum);
        j["kind"] = json!("lyapunov");
        j["title"] = json!(self.title);
        j
    }

    fn report(&self) -> String {
        spectrum_text(&self.spectrum)
    }

    fn scalars(&self) -> Vec<Scalar> {
        spectrum_scalars(&self.spectrum)
    }

    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }
}

impl Found for SpectrumResult {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_convergence(&self.spectrum, &self.title, path)
    }
}

/// Group `name` with the planar chain's links, parameters and initial state, where its
/// spectrum goes.
pub(super) fn chain_group(name: &'static str, links: usize) -> Record {
    let mut g = Record::new(name);
    g.index("link", links, "link index, counted from the pivot")
        .run_part(RunPart::Model)
        .run_part(RunPart::InitialState);
    g
}

/// Adds the integrator's settings as run to `g`.
pub(super) fn method(g: &mut Record, m: &crate::integrate::Method) {
    for (name, a) in method_attrs(m) {
        g.attr(name, a);
    }
}

fn nan_if_none(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// Adds the spectrum `r` to `g` (see the module docs for the layout).
pub(super) fn spectrum_entries(g: &mut Record, r: &Lyapunov) {
    spectrum_vars(g, r);
    run_attrs(g, r);
    result_attrs(g, r);
    for (name, v) in r.energy.attrs() {
        g.attr(name, v);
    }
    let c = &r.counts;
    g.attr("steps", c.steps)
        .attr("rejected_steps", c.rejected_steps)
        .attr("rhs_evaluations", c.rhs_evaluations)
        .attr("qr_factorizations", c.qr_factorizations)
        .attr("averaged_intervals", c.averaged_intervals)
        .attr("transient_intervals", c.transient_intervals);
}

/// The spectrum's coordinates and variables: the exponents with their errors, their history,
/// and the pair sums of a full spectrum.
fn spectrum_vars(g: &mut Record, r: &Lyapunov) {
    let k = r.exponents.len();
    g.coord(
        "exponent",
        (1..=k as i64).collect::<Vec<_>>(),
        "1",
        "exponent index i (QR column order, descending once converged)",
    )
    .coord(
        "time",
        r.history.time.as_slice(),
        "s",
        "time of the running estimate (averaging starts after the transient)",
    )
    .var(
        "exponents",
        &["exponent"],
        r.exponents.as_slice(),
        "s-1",
        "Lyapunov exponent",
    )
    .var(
        "standard_error",
        &["exponent"],
        r.standard_error.as_slice(),
        "s-1",
        "batch-means standard error of the exponent",
    )
    .var_attr("blocks", r.blocks as i64)
    .var(
        "history",
        &["time", "exponent"],
        r.history.estimate.clone(),
        "s-1",
        "running estimate of the exponent",
    )
    .var(
        "history_standard_error",
        &["time", "exponent"],
        r.history.standard_error.clone(),
        "s-1",
        "running batch-means standard error (NaN until the window holds one point per block)",
    );
    if !r.pair_sums.is_empty() {
        g.coord(
            "pair",
            (1..=r.pair_sums.len() as i64).collect::<Vec<_>>(),
            "1",
            "pair (i, k+1-i)",
        )
        .var(
            "pair_sums",
            &["pair"],
            r.pair_sums.as_slice(),
            "s-1",
            "lambda_i + lambda_(k+1-i) (zero for a Hamiltonian flow as T -> infinity)",
        )
        .var(
            "pair_sums_standard_error",
            &["pair"],
            r.pair_sums_standard_error.as_slice(),
            "s-1",
            "batch-means standard error of the pair sum",
        );
    }
}

/// How the spectrum was run, as attributes: the estimator, the integrator, the times and
/// the options, whether it completed and converged.
fn run_attrs(g: &mut Record, r: &Lyapunov) {
    g.attr("estimator", r.estimator.name());
    if let Estimator::TwoTrajectory { d0 } = r.estimator {
        g.attr("d0", d0);
    }
    method(g, &r.method);
    g.attr("tau", r.tau)
        .attr("transient", r.transient)
        .attr("averaged_time", r.averaged_time)
        .attr("t_end", r.t_end)
        .attr("time_requested", r.options.time)
        .attr("tolerance", nan_if_none(r.options.tolerance))
        .attr("min_time", r.options.min_time)
        .attr("max_history", r.options.max_history as i64);
    // The one vector's start, as run (default diagonal); none for a spectrum's basis.
    if let Some(d) = r.options.deviation {
        g.attr("deviation", d.name());
    }
    g.attr("complete", r.complete).attr(
        "converged",
        match r.converged {
            None => "no tolerance",
            Some(true) => "yes",
            Some(false) => "no",
        },
    );
}

/// What the spectrum says, as attributes: Σλ with its error, the exponents closest to zero,
/// the Kaplan–Yorke dimension and the volume check where they mean something.
fn result_attrs(g: &mut Record, r: &Lyapunov) {
    let near: Vec<f64> = r.closest_to_zero.iter().map(|&i| (i + 1) as f64).collect();
    g.attr("sum_exponents", r.sum)
        .attr("sum_standard_error", r.sum_standard_error)
        .attr("closest_to_zero", crate::finding::Attr::F64s(near));
    // Omitted where it means nothing (a conservative chain) or the exponents do not determine it.
    if let Some(d) = r.kaplan_yorke {
        g.attr("kaplan_yorke_dimension", d);
    }
    if let Some(v) = &r.volume {
        g.attr(
            "volume_split",
            match v.split {
                VolumeSplit::Unknown => "trapezoid of sampled tr J",
                VolumeSplit::Potential => "exact boundary term",
                VolumeSplit::PotentialAndDissipation => {
                    "exact boundary term + trapezoid of dissipation"
                }
            },
        )
        .attr("trace_average", v.trace_average)
        .attr("volume_boundary", nan_if_none(v.boundary))
        .attr("dissipation_average", nan_if_none(v.dissipation_average));
    }
}

/// A spectrum's fields of the JSON summary.
pub(super) fn spectrum_json(r: &Lyapunov) -> serde_json::Value {
    let mut j = json!({
        "estimator": r.estimator.name(),
        "exponents": r.exponents,
        "standard_error": r.standard_error,
        "sum_exponents": r.sum,
        "sum_standard_error": r.sum_standard_error,
        "pair_sums": r.pair_sums,
        "pair_sums_standard_error": r.pair_sums_standard_error,
        "closest_to_zero": r.closest_to_zero,
        "trace_average": r.volume.map(|v| v.trace_average),
        "dissipation_average": r.volume.and_then(|v| v.dissipation_average),
        "energy_initial": r.energy.initial,
        "energy_end": r.energy.last,
        "energy_work": r.energy.work,
        "energy_scale": r.energy.scale,
        "abs_energy_drift": r.energy.abs_drift,
        "relative_energy_drift": r.energy.relative_drift,
        "averaged_time": r.averaged_time,
        "transient": r.transient,
        "tau": r.tau,
        "t_end": r.t_end,
        "counts": r.counts,
        "integrator": r.method,
        "complete": r.complete,
        "converged": r.converged,
    });
    // Only where it means something: none for a conservative chain (see `Lyapunov::kaplan_yorke`).
    if let Some(d) = r.kaplan_yorke {
        j["kaplan_yorke_dimension"] = json!(d);
    }
    // The one vector's start, as run (default diagonal); none for a spectrum's basis.
    if let Some(d) = r.options.deviation {
        j["deviation"] = json!(d.name());
    }
    j
}

/// The text report of a spectrum (or one exponent): what the JSON says, for a reader.
pub(super) fn spectrum_text(r: &Lyapunov) -> String {
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

/// A spectrum's numbers for a sweep: the exponents, the largest with its running estimate at
/// half the time and its trend, and their sum.
pub(super) fn spectrum_scalars(r: &Lyapunov) -> Vec<Scalar> {
    let mut s = vec![Scalar::vector(
        "lambda",
        "exponent",
        r.exponents.clone(),
        "s-1",
        "Lyapunov exponents, in QR order",
    )
    .with_errors(r.standard_error.clone())];
    if let (Some(m), Some(e)) = (r.exponents.first(), r.standard_error.first()) {
        s.push(Scalar::one("lambda_max", *m, "s-1", "largest Lyapunov exponent").with_error(*e));
        let (half, trend) = r.trend(0);
        s.push(Scalar::one(
            "lambda_max_half",
            half,
            "s-1",
            "the running estimate of lambda_max at half the averaging time",
        ));
        s.push(Scalar::one(
            "lambda_max_trend",
            f64::from(trend.code()),
            "1",
            "lambda_max's running estimate over the last doubling of time: 0 unknown, 1 settled, 2 still rising, 3 still falling",
        ));
    }
    s.push(
        Scalar::one("lambda_sum", r.sum, "s-1", "sum of the exponents")
            .with_error(r.sum_standard_error),
    );
    s
}

/// The group `lyapunov` of the cart chain's spectrum `spectrum` from `initial_state`, on a
/// constraint manifold of dimension `phase_space_dimension`.
fn cart_record(spectrum: &Lyapunov, phase_space_dimension: usize, initial_state: &[f64]) -> Record {
    let mut g = Record::new("lyapunov");
    spectrum_entries(&mut g, spectrum);
    // As `GroupWriter::initial_state` writes a planar run's.
    g.index(
        "state_component",
        initial_state.len(),
        "component of the state vector, in the model's coordinates (planar chain: theta_1..theta_N, then omega_1..omega_N)",
    )
    .var(
        "initial_state",
        &["state_component"],
        initial_state,
        "1",
        "initial state in the model's coordinates (rad and rad/s for a planar chain)",
    )
    .attr("phase_space_dimension", phase_space_dimension as i64)
    .attr("model", "cart-chain");
    g
}

/// The cart chain's spectrum's JSON summary (with its kind, model and title).
fn cart_summary(
    spectrum: &Lyapunov,
    phase_space_dimension: usize,
    title: &str,
) -> serde_json::Value {
    let r = spectrum;
    json!({
        "kind": "lyapunov", "model": "cart-chain", "title": title,
        "phase_space_dimension": phase_space_dimension,
        "exponents": r.exponents, "standard_error": r.standard_error,
        "sum_exponents": r.sum, "pair_sums": r.pair_sums,
        "closest_to_zero": r.closest_to_zero,
        "relative_energy_drift": r.energy.relative_drift,
        "averaged_time": r.averaged_time, "counts": r.counts,
        "complete": r.complete,
    })
}
