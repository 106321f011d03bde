//! A spectrum with its covariant vectors: the `lyapunov` group of its QR spectrum and, beside
//! it, the `covariant` group.
//!
//! The `covariant` group: coordinates `time` (the samples over the averaging window), `vector`
//! (1..k) and `state_component`; the unit vectors `vectors(time, vector, state_component)`, the
//! state at each sample, each vector's local growth rate and its window average with its
//! batch-means error beside the QR exponents of the same run, each vector's class (expanding,
//! neutral, contracting), the smallest angle between the unstable and stable subspaces and the
//! angles of the pairs asked for; the error bars of the angle statistics (95 % batch-means
//! intervals), the backward iteration's convergence and the symplectic residual
//! ([`crate::analysis::orbit::Covariant`], README "Error bars").

use super::spectrum::{
    chain_group, method, spectrum_entries, spectrum_json, spectrum_scalars, spectrum_text,
};
use crate::analysis::orbit::Covariant;
use crate::finding::{Attr, Finding, Record, Scalar};
use crate::format::{f64_json, num};
use crate::kinds::Found;
use crate::plot::PlotError;
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// How the angle statistics' intervals are obtained, as the output states it.
pub const CI_RULE: &str = "95 % batch means: the samples cut into B contiguous blocks (B = lyapunov.blocks, a block spans window/B s), the statistic taken per block, interval = whole-window statistic +- t(0.975, B-1) sd(blocks)/sqrt(B), clipped to the statistic's range; deterministic (no seed), independent of the thread count; assumes blocks longer than the angles' correlation time";

/// How the backward iteration's convergence is measured, as the output states it.
pub const CONVERGENCE_RULE: &str = "largest angle over the samples between each vector of the backward transient b and of b/2 (a second backward pass over the same R factors: the change when the transient doubles); an upper estimate of the reported vectors' own error, which is smaller (exponentially for separated exponents)";

/// A planar chain's spectrum with its covariant vectors.
#[derive(Debug, Clone)]
pub struct CovariantResult {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    pub links: usize,
    pub covariant: Box<Covariant>,
}

impl Finding for CovariantResult {
    /// The vectors' group names the run (its progress and a sweep); the spectrum's is written
    /// first.
    fn group(&self) -> &'static str {
        "covariant"
    }

    fn complete(&self) -> bool {
        self.covariant.complete
    }

    fn record(&self) -> Record {
        let mut g = chain_group("lyapunov", self.links);
        spectrum_entries(&mut g, &self.covariant.spectrum);
        g
    }

    fn beside(&self) -> Vec<Record> {
        let r = &self.covariant;
        let mut g = chain_group("covariant", self.links);
        covariant_vars(&mut g, r);
        vector_class(&mut g, r);
        angles(&mut g, r);
        covariant_attrs(&mut g, r);
        vec![g]
    }

    fn summary(&self) -> serde_json::Value {
        let r = &self.covariant;
        let mut j = spectrum_json(&r.spectrum);
        j["kind"] = json!("lyapunov");
        j["title"] = json!(self.title);
        j["vectors"] = json!("covariant");
        let angles = |a: &[f64]| {
            let mut v: Vec<f64> = a.iter().copied().filter(|x| x.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            let q = |p: f64| {
                v.get(((v.len() as f64 - 1.0) * p).round() as usize)
                    .copied()
            };
            json!({"min": q(0.0), "median": q(0.5), "max": q(1.0)})
        };
        j["covariant"] = json!({
            "samples": r.time.len(),
            "window": r.window,
            "forward_transient": r.spectrum.transient,
            "backward_transient": r.backward_transient,
            "growth_rate_mean": r.growth_mean.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
            "growth_rate_standard_error": r.growth_standard_error.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
            "unstable": r.unstable.iter().map(|i| i + 1).collect::<Vec<_>>(),
            "neutral": r.neutral.iter().map(|i| i + 1).collect::<Vec<_>>(),
            "stable": r.stable.iter().map(|i| i + 1).collect::<Vec<_>>(),
            "min_angle": r.min_angle.as_deref().map(angles),
            "tangency_angle": r.tangency_angle,
            "tangency_fraction": r.tangency_fraction,
            "tangency_fraction_ci": r.tangency_fraction_ci.map(ci_json),
            "min_angle_median_ci": r.min_angle_median_ci.map(ci_json),
            "ci_blocks": r.ci_blocks,
            "ci_rule": CI_RULE,
            "pairs": r.pairs.iter().enumerate().map(|(p, &(a, b))| json!({
                "vectors": [a + 1, b + 1],
                "angle": angles(&r.pair_angles.column(p).to_vec()),
                "median_ci": ci_json(r.pair_angle_median_ci[p]),
            })).collect::<Vec<_>>(),
            "backward_check_transient": r.backward_check,
            "backward_change": r.backward_change.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
            "convergence_rule": CONVERGENCE_RULE,
            "symplectic_residual": r.symplectic_pairs.iter().zip(&r.symplectic_residual).map(|(&(a, b), &w)| json!({
                "vectors": [a + 1, b + 1],
                "max_abs_omega": f64_json(w),
            })).collect::<Vec<_>>(),
            "coordinates": r.coordinates,
            "complete": r.complete,
        });
        j["complete"] = json!(r.complete);
        j
    }

    fn report(&self) -> String {
        let mut text = spectrum_text(&self.covariant.spectrum);
        covariant_text(&mut text, &self.covariant);
        text
    }

    fn scalars(&self) -> Vec<Scalar> {
        let mut s = spectrum_scalars(&self.covariant.spectrum);
        let r = &self.covariant;
        let ci = r.tangency_fraction_ci.unwrap_or([f64::NAN; 2]);
        s.push(Scalar::one(
            "tangency_fraction",
            r.tangency_fraction.unwrap_or(f64::NAN),
            "1",
            "fraction of samples with a near-tangency of the unstable and stable subspaces",
        ));
        s.push(Scalar::one(
            "tangency_fraction_ci_lo",
            ci[0],
            "1",
            "lower bound of the 95 % batch-means interval of the near-tangency fraction",
        ));
        s.push(Scalar::one(
            "tangency_fraction_ci_hi",
            ci[1],
            "1",
            "upper bound of the 95 % batch-means interval of the near-tangency fraction",
        ));
        s
    }

    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }
}

/// The angle distributions.
impl Found for CovariantResult {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_covariant(&self.covariant, &self.title, path)
    }
}

/// The coordinates `time` and `vector`, the unit vectors, the state at each sample, the
/// local growth rates with their window mean, and the QR exponents of the same run.
fn covariant_vars(g: &mut Record, r: &Covariant) {
    let k = r.growth_mean.len();
    g.coord(
        "time",
        r.time.as_slice(),
        "s",
        "sample time in the averaging window",
    )
    .coord(
        "vector",
        (1..=k as i64).collect::<Vec<_>>(),
        "1",
        "covariant vector index i (exponent order)",
    )
    .var(
        "vectors",
        &["time", "vector", "state_component"],
        r.vectors.clone(),
        "1",
        "unit covariant Lyapunov vector (sign: largest component positive)",
    )
    .var_attr("coordinates_of_components", r.coordinates)
    .var(
        "state",
        &["time", "state_component"],
        r.state.clone(),
        "1",
        "state at the sample (angles rad, velocities rad/s, or momenta)",
    )
    .var(
        "growth_rate",
        &["time", "vector"],
        r.growth.clone(),
        "s-1",
        "growth rate of the vector over the interval tau ending at the sample",
    )
    .var(
        "growth_rate_mean",
        &["vector"],
        r.growth_mean.as_slice(),
        "s-1",
        "local growth rate averaged over every interval of the window",
    )
    .var(
        "growth_rate_standard_error",
        &["vector"],
        r.growth_standard_error.as_slice(),
        "s-1",
        "batch-means standard error of the mean growth rate",
    )
    .var(
        "exponents",
        &["vector"],
        r.spectrum.exponents.as_slice(),
        "s-1",
        "Lyapunov exponent of the same run (QR method)",
    )
    .var(
        "standard_error",
        &["vector"],
        r.spectrum.standard_error.as_slice(),
        "s-1",
        "batch-means standard error of the exponent",
    );
}

/// Each vector's class from its exponent: contracting, neutral or expanding.
fn vector_class(g: &mut Record, r: &Covariant) {
    let class: Vec<u8> = (0..r.growth_mean.len())
        .map(|i| {
            if r.unstable.contains(&i) {
                2
            } else if r.stable.contains(&i) {
                0
            } else {
                1
            }
        })
        .collect();
    g.var(
        "class",
        &["vector"],
        class,
        "1",
        "contracting (lambda < -3 SE), neutral, or expanding (lambda > 3 SE)",
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2]))
    .var_attr("flag_meanings", "contracting neutral expanding");
}

/// The smallest angle between the unstable and stable subspaces, and the angles of the pairs
/// of vectors asked for.
fn angles(g: &mut Record, r: &Covariant) {
    g.coord(
        "bound",
        vec![1i64, 2],
        "1",
        "bound of a 95 % interval: 1 lower, 2 upper",
    );
    if let Some(a) = &r.min_angle {
        g.var(
            "min_angle",
            &["time"],
            a.as_slice(),
            "rad",
            "smallest principal angle between the unstable and stable subspaces",
        )
        .var(
            "min_angle_median",
            &[] as &[&str],
            ndarray::arr0(r.min_angle_median.unwrap_or(f64::NAN)),
            "rad",
            "median of min_angle over the window",
        )
        .var_attr("ancillary_variables", "min_angle_median_ci")
        .var(
            "min_angle_median_ci",
            &["bound"],
            r.min_angle_median_ci.unwrap_or([f64::NAN; 2]).to_vec(),
            "rad",
            "95 % batch-means interval of the median of min_angle (attribute ci_rule)",
        )
        .var(
            "tangency_fraction",
            &[] as &[&str],
            ndarray::arr0(r.tangency_fraction.unwrap_or(f64::NAN)),
            "1",
            "fraction of samples whose min_angle is below tangency_angle",
        )
        .var_attr("ancillary_variables", "tangency_fraction_ci")
        .var(
            "tangency_fraction_ci",
            &["bound"],
            r.tangency_fraction_ci.unwrap_or([f64::NAN; 2]).to_vec(),
            "1",
            "95 % batch-means interval of the near-tangency fraction (attribute ci_rule)",
        );
    }
    if !r.pairs.is_empty() {
        let first: Vec<i64> = r.pairs.iter().map(|p| p.0 as i64 + 1).collect();
        let second: Vec<i64> = r.pairs.iter().map(|p| p.1 as i64 + 1).collect();
        g.coord(
            "pair",
            (1..=r.pairs.len() as i64).collect::<Vec<_>>(),
            "1",
            "pair of vectors whose angle is reported",
        )
        .var("pair_first", &["pair"], first, "1", "first vector i")
        .var("pair_second", &["pair"], second, "1", "second vector j")
        .var(
            "pair_angle",
            &["time", "pair"],
            r.pair_angles.clone(),
            "rad",
            "angle between the lines of vectors i and j (0 to pi/2)",
        )
        .var(
            "pair_angle_median",
            &["pair"],
            r.pair_angle_median.clone(),
            "rad",
            "median of the pair's angle over the window",
        )
        .var_attr("ancillary_variables", "pair_angle_median_ci")
        .var(
            "pair_angle_median_ci",
            &["pair", "bound"],
            ndarray::Array2::from_shape_fn((r.pairs.len(), 2), |(p, b)| {
                r.pair_angle_median_ci[p][b]
            }),
            "rad",
            "95 % batch-means interval of the median of the pair's angle (attribute ci_rule)",
        );
    }
    g.var(
        "backward_change",
        &["vector"],
        r.backward_change.as_slice(),
        "rad",
        "largest angle over the samples between the vector of the backward transient and of half of it (attribute convergence_rule)",
    );
    if !r.symplectic_pairs.is_empty() {
        let first: Vec<i64> = r.symplectic_pairs.iter().map(|p| p.0 as i64 + 1).collect();
        let second: Vec<i64> = r.symplectic_pairs.iter().map(|p| p.1 as i64 + 1).collect();
        g.index(
            "symplectic_pair",
            first.len(),
            "pair of vectors that must be omega-orthogonal (lambda_i + lambda_j != 0)",
        )
        .var("symplectic_first", &["symplectic_pair"], first, "1", "vector i")
        .var("symplectic_second", &["symplectic_pair"], second, "1", "vector j")
        .var(
            "symplectic_residual",
            &["symplectic_pair"],
            r.symplectic_residual.as_slice(),
            "1",
            "largest |omega(v_i, v_j)| = |dtheta_i.dp_j - dp_i.dtheta_j| of the unit vectors over the samples (0 for exact covariant vectors)",
        );
    }
}

/// A 95 % interval as JSON [lo, hi] (null for NaN).
fn ci_json(c: [f64; 2]) -> serde_json::Value {
    json!([f64_json(c[0]), f64_json(c[1])])
}

/// How the vectors were computed and what the run was, as attributes.
fn covariant_attrs(g: &mut Record, r: &Covariant) {
    method(g, &r.spectrum.method);
    g.attr(
        "method_of_vectors",
        "Ginelli et al. 2007: forward Gram-Schmidt (QR), backward iteration of the R factors",
    )
    .attr("tau", r.spectrum.tau)
    .attr("forward_transient", r.spectrum.transient)
    .attr("backward_transient", r.backward_transient)
    .attr("backward_transient_requested", r.options.backward_transient)
    .attr("window", r.window)
    .attr("vector_samples", r.options.samples as i64)
    .attr("tangency_angle", r.tangency_angle)
    .attr("tangency_fraction", r.tangency_fraction.unwrap_or(f64::NAN))
    .attr("ci_blocks", r.ci_blocks as i64)
    .attr("ci_rule", CI_RULE)
    .attr("backward_check_transient", r.backward_check)
    .attr("convergence_rule", CONVERGENCE_RULE)
    // Not `coordinates`: CF readers take that attribute as a list of coordinate variables.
    .attr("state_coordinates", r.coordinates)
    .attr(
        "metric",
        "Euclidean in the run's coordinates (angles depend on it; the directions do not)",
    )
    .attr("complete", r.complete);
}

/// The covariant vectors' lines of the text report.
fn covariant_text(s: &mut String, r: &Covariant) {
    let _ = writeln!(
        s,
        "Covariant vectors: {} samples over t = {}..{} s ({} s forward, {} s backward transient)",
        r.time.len(),
        r.window[0],
        r.window[1],
        r.spectrum.transient,
        r.backward_transient
    );
    let _ = writeln!(
        s,
        "  {:>3}  {:>18}  {:>12}  {:>10}",
        "i", "<growth rate>", "std. error", "class"
    );
    for i in 0..r.growth_mean.len() {
        let class = if r.unstable.contains(&i) {
            "expanding"
        } else if r.stable.contains(&i) {
            "contracting"
        } else {
            "neutral"
        };
        let _ = writeln!(
            s,
            "  {:>3}  {:>18}  {:>12}  {:>10}",
            i + 1,
            num(r.growth_mean[i]),
            num(r.growth_standard_error[i]),
            class
        );
    }
    match (&r.min_angle, r.tangency_fraction) {
        (Some(a), Some(f)) => {
            let min = a.iter().copied().fold(f64::INFINITY, f64::min);
            let ci = r.tangency_fraction_ci.unwrap_or([f64::NAN; 2]);
            let mci = r.min_angle_median_ci.unwrap_or([f64::NAN; 2]);
            let _ = writeln!(
                s,
                "  unstable-stable angle: min {} rad, median {} rad (95 % {}..{}); {:.2} % (95 % {:.2}..{:.2} %) of samples below {} rad (near-tangencies)",
                num(min),
                num(r.min_angle_median.unwrap_or(f64::NAN)),
                num(mci[0]),
                num(mci[1]),
                100.0 * f,
                100.0 * ci[0],
                100.0 * ci[1],
                r.tangency_angle
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "  no unstable-stable angle: the spectrum has no expanding or no contracting exponent"
            );
        }
    }
    for (p, &(i, j)) in r.pairs.iter().enumerate() {
        let ci = r.pair_angle_median_ci[p];
        let _ = writeln!(
            s,
            "  angle v{} - v{}: median {} rad (95 % {}..{})",
            i + 1,
            j + 1,
            num(r.pair_angle_median[p]),
            num(ci[0]),
            num(ci[1])
        );
    }
    let _ = writeln!(s, "  intervals: {CI_RULE}");
    let change: Vec<String> = r.backward_change.iter().map(|v| num(*v)).collect();
    let _ = writeln!(
        s,
        "  backward convergence: largest change of v1..v{} from a {} s to a {} s backward transient: {} rad",
        change.len(),
        r.backward_check,
        r.backward_transient,
        change.join(", ")
    );
    if !r.symplectic_pairs.is_empty() {
        let w = r.symplectic_residual.iter().copied().fold(0.0f64, f64::max);
        let _ = writeln!(
            s,
            "  symplectic residual: largest |ω(vi, vj)| over the pairs with λi + λj ≠ 0: {}",
            num(w)
        );
    }
}
