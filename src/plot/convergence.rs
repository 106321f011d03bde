//! Convergence figures: running Lyapunov estimates λ_i(t) with ±1 standard-error bands on a log
//! time axis (so every decade of the run is visible), SALI/GALI against time, and a registered
//! indicator's own chart (MEGNO ⟨Y⟩(t), FLI(t), …).

use super::timeseries::{draw_timeseries, Figure, Panel, Series};
use super::{format_sci, format_value, PlotError};
use crate::analysis::lyapunov::Lyapunov;
use crate::analysis::orbit::AlignmentIndices;
use std::path::Path;

/// History points whose averaging time is below this many intervals τ are not drawn: the first
/// few estimates are dominated by the initial alignment of the vectors and would only stretch
/// the y axis.
pub const SKIP_INTERVALS: f64 = 10.0;

/// Points drawn per series: the evenly spaced history is subsampled to about this many
/// log-spaced times, so the last decade (which holds 90% of the points) is not a solid smear.
pub const LOG_POINTS: usize = 600;

/// The indices of `idx` nearest to `n` log-spaced values of `x` (first and last kept).
fn log_spaced(idx: &[usize], x: &dyn Fn(usize) -> f64, n: usize) -> Vec<usize> {
    if idx.len() <= n {
        return idx.to_vec();
    }
    let (a, b) = (
        x(idx[0]).max(f64::MIN_POSITIVE).ln(),
        x(idx[idx.len() - 1]).ln(),
    );
    let mut out = vec![idx[0]];
    let mut next = 1;
    for &j in idx {
        let target = a + (b - a) * next as f64 / (n - 1) as f64;
        if x(j).ln() >= target && Some(&j) != out.last() {
            out.push(j);
            while next < n && a + (b - a) * next as f64 / (n - 1) as f64 <= x(j).ln() {
                next += 1;
            }
        }
    }
    if out.last() != idx.last() {
        out.push(idx[idx.len() - 1]);
    }
    out
}

/// Draws λ_i(t) against the averaging time t − t_transient (log axis), each with a band of ±1
/// running batch-means standard error, over a panel of the running standard errors (log–log,
/// which falls like t^{-1/2} once the blocks decorrelate). Legends give the final λ_i ± SE.
///
/// Errors: as [`draw_timeseries`] (e.g. an empty history, from a run stopped in its transient).
pub fn draw_convergence(r: &Lyapunov, title: &str, path: &Path) -> Result<(), PlotError> {
    let h = &r.history;
    let k = r.exponents.len();
    let x_of = |j: usize| h.time[j] - r.transient;
    let all: Vec<usize> = (0..h.time.len())
        .filter(|&j| x_of(j) >= SKIP_INTERVALS * r.tau)
        .collect();
    let all = if all.is_empty() {
        (0..h.time.len()).collect()
    } else {
        all
    };
    let keep = log_spaced(&all, &x_of, LOG_POINTS);
    let x: Vec<f64> = keep.iter().map(|&j| h.time[j] - r.transient).collect();
    let mut y = Vec::with_capacity(k);
    let mut lo = Vec::with_capacity(k);
    let mut hi = Vec::with_capacity(k);
    let mut se = Vec::with_capacity(k);
    for i in 0..k {
        let yi: Vec<f64> = keep.iter().map(|&j| h.estimate[(j, i)]).collect();
        let si: Vec<f64> = keep.iter().map(|&j| h.standard_error[(j, i)]).collect();
        lo.push(yi.iter().zip(&si).map(|(a, s)| a - s).collect::<Vec<f64>>());
        hi.push(yi.iter().zip(&si).map(|(a, s)| a + s).collect::<Vec<f64>>());
        y.push(yi);
        se.push(si);
    }
    let label = |i: usize| {
        format!(
            "λ{} = {} ± {} s⁻¹",
            i + 1,
            format_value(r.exponents[i], 4),
            format_value(r.standard_error[i], 4)
        )
    };
    let estimates = (0..k)
        .map(|i| Series {
            label: label(i),
            x: &x,
            y: &y[i],
            band: Some((&lo[i], &hi[i])),
        })
        .collect();
    let mut panels = vec![Panel {
        y_label: "running estimate λᵢ / s⁻¹".into(),
        series: estimates,
        log_y: false,
    }];
    if se.iter().flatten().any(|&s| s > 0.0 && s.is_finite()) {
        panels.push(Panel {
            y_label: "standard error / s⁻¹".into(),
            series: (0..k)
                .filter(|&i| se[i].iter().any(|&s| s > 0.0 && s.is_finite()))
                .map(|i| Series {
                    label: format!("λ{}", i + 1),
                    x: &x,
                    y: &se[i],
                    band: None,
                })
                .collect(),
            log_y: true,
        });
    }
    let status = if r.complete { "" } else { ", stopped early" };
    let fig = Figure {
        title: format!(
            "{title} ({}, {}, τ = {} s, Σλ = {}{status})",
            r.estimator.name(),
            r.method.name(),
            r.tau,
            format_sci(r.sum, 2)
        ),
        x_label: format!(
            "time after the transient t − t₀ / s   (t₀ = {} s; bands: ±1 batch-means SE, B = {})",
            r.transient, r.blocks
        ),
        panels,
        log_x: true,
        size: (1200, 900),
    };
    draw_timeseries(&fig, path)
}

/// Draws SALI and GALI_2..GALI_k against time on a log y axis, with the verdict in the title
/// (values below ~1e-16 are round-off; see [`crate::analysis::orbit::sali`]).
pub fn draw_indicators(r: &AlignmentIndices, title: &str, path: &Path) -> Result<(), PlotError> {
    let gali: Vec<Vec<f64>> = (0..r.orders.len())
        .map(|c| r.gali.column(c).to_vec())
        .collect();
    // SALI ≈ GALI_2 on a chaotic orbit: draw it last, on top.
    let mut series: Vec<Series> = r
        .orders
        .iter()
        .enumerate()
        .map(|(c, o)| Series {
            label: format!("GALI_{o}"),
            x: &r.time,
            y: &gali[c],
            band: None,
        })
        .collect();
    series.push(Series {
        label: "SALI".into(),
        x: &r.time,
        y: &r.sali,
        band: None,
    });
    let fig = Figure {
        title: format!("{title} ({}: {})", r.method.name(), r.regularity.name()),
        x_label: "time t / s".into(),
        panels: vec![Panel {
            y_label: "alignment index".into(),
            series,
            log_y: true,
        }],
        log_x: false,
        size: (1200, 700),
    };
    draw_timeseries(&fig, path)
}

/// Bins of the angle histograms of [`draw_covariant`], log-spaced from the smallest angle to π/2.
const ANGLE_BINS: usize = 40;

/// The fraction of `a` per log-spaced bin from `lo` to π/2 as a step line `(x, y)`, and the
/// empirical distribution function at the bin edges.
fn angle_histogram(a: &[f64], lo: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let (l0, l1) = (lo.log10(), std::f64::consts::FRAC_PI_2.log10());
    let edge = |b: usize| 10f64.powf(l0 + (l1 - l0) * b as f64 / ANGLE_BINS as f64);
    let mut counts = vec![0usize; ANGLE_BINS];
    let finite: Vec<f64> = a.iter().copied().filter(|v| v.is_finite()).collect();
    for &v in &finite {
        let b = ((v.max(lo).log10() - l0) / (l1 - l0) * ANGLE_BINS as f64).floor();
        counts[(b.max(0.0) as usize).min(ANGLE_BINS - 1)] += 1;
    }
    let total = finite.len().max(1) as f64;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (b, c) in counts.iter().enumerate() {
        let f = *c as f64 / total;
        x.extend([edge(b), edge(b + 1)]);
        y.extend([f, f]);
    }
    let cx: Vec<f64> = (0..=ANGLE_BINS).map(edge).collect();
    let cy: Vec<f64> = cx
        .iter()
        .map(|&e| finite.iter().filter(|&&v| v <= e).count() as f64 / total)
        .collect();
    (x, y, cx, cy)
}

/// Draws the distributions of the covariant vectors' angles: the smallest angle between the
/// unstable and stable subspaces and each requested pair's, as the fraction of samples per
/// log-spaced bin (top) and the fraction below each angle (bottom), with the near-tangency
/// threshold marked and the near-tangency fraction in the legend.
pub fn draw_covariant(
    r: &crate::analysis::orbit::Covariant,
    title: &str,
    path: &Path,
) -> Result<(), PlotError> {
    let sets = angle_sets(r);
    if sets.is_empty() || r.time.is_empty() {
        return Err(PlotError::Data {
            path: path.to_path_buf(),
            source: super::DataError::Empty {
                what: "the covariant vectors' angles (no expanding or no contracting exponent, and no vector_pairs)".into(),
            },
        });
    }
    let smallest = sets
        .iter()
        .flat_map(|(_, a)| a.iter().copied())
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let lo = (smallest.min(r.tangency_angle) / 2.0).max(1e-12);
    let hist: Vec<_> = sets.iter().map(|(_, a)| angle_histogram(a, lo)).collect();
    let top = hist
        .iter()
        .flat_map(|h| h.1.iter().copied())
        .fold(0.0f64, f64::max);
    let mark_x = [r.tangency_angle, r.tangency_angle];
    let mark_top = [0.0, top.max(1e-3)];
    let mark_cdf = [0.0, 1.0];
    let mut density: Vec<Series> = sets
        .iter()
        .zip(&hist)
        .map(|((label, _), h)| Series {
            label: label.clone(),
            x: &h.0,
            y: &h.1,
            band: None,
        })
        .collect();
    density.push(Series {
        label: format!("near-tangency threshold {} rad", r.tangency_angle),
        x: &mark_x,
        y: &mark_top,
        band: None,
    });
    let mut cdf: Vec<Series> = sets
        .iter()
        .zip(&hist)
        .map(|((label, _), h)| Series {
            label: label.split(';').next().unwrap_or_default().to_string(),
            x: &h.2,
            y: &h.3,
            band: None,
        })
        .collect();
    cdf.push(Series {
        label: "near-tangency threshold".into(),
        x: &mark_x,
        y: &mark_cdf,
        band: None,
    });
    let (bar_x, bar_y) = ci_bars(r);
    if !bar_x.is_empty() {
        cdf.push(Series {
            label: format!(
                "95 % intervals (batch means, {} blocks): medians at 0.5, near-tangency fraction at the threshold",
                r.ci_blocks
            ),
            x: &bar_x,
            y: &bar_y,
            band: None,
        });
    }
    let (title, x_label) = covariant_labels(r, title);
    let fig = Figure {
        title,
        x_label,
        panels: vec![
            Panel {
                y_label: "fraction of samples per bin".into(),
                series: density,
                log_y: false,
            },
            Panel {
                y_label: "fraction of samples below the angle".into(),
                series: cdf,
                log_y: false,
            },
        ],
        log_x: true,
        size: (1200, 900),
    };
    draw_timeseries(&fig, path)
}

/// The angle series of the covariant-vector figure, each with its legend label: the
/// unstable–stable angle (with its share below the tangency threshold) when computed, then
/// each requested vector pair's angle.
fn angle_sets(r: &crate::analysis::orbit::Covariant) -> Vec<(String, Vec<f64>)> {
    let mut sets: Vec<(String, Vec<f64>)> = Vec::new();
    if let Some(a) = &r.min_angle {
        let frac = r.tangency_fraction.unwrap_or(f64::NAN);
        let fci = r.tangency_fraction_ci.unwrap_or([f64::NAN; 2]);
        sets.push((
            format!(
                "unstable–stable (min. principal angle); median {}; {:.2} % [{:.2}, {:.2}] below {} rad",
                median_label(
                    r.min_angle_median.unwrap_or(f64::NAN),
                    r.min_angle_median_ci.unwrap_or([f64::NAN; 2])
                ),
                100.0 * frac,
                100.0 * fci[0],
                100.0 * fci[1],
                r.tangency_angle
            ),
            a.clone(),
        ));
    }
    // A pair of the one expanding and the one contracting vector is the unstable–stable angle
    // itself: named there, not drawn twice.
    let same = |i: usize, j: usize| {
        r.min_angle.is_some()
            && r.unstable.len() == 1
            && r.stable.len() == 1
            && [i, j].contains(&r.unstable[0])
            && [i, j].contains(&r.stable[0])
    };
    for (p, &(i, j)) in r.pairs.iter().enumerate() {
        if same(i, j) {
            if let Some(first) = sets.first_mut() {
                first.0 = first.0.replacen(
                    " (min. principal angle)",
                    &format!(" (v{} – v{})", i + 1, j + 1),
                    1,
                );
            }
            continue;
        }
        sets.push((
            format!(
                "v{} – v{}; median {}",
                i + 1,
                j + 1,
                median_label(r.pair_angle_median[p], r.pair_angle_median_ci[p])
            ),
            r.pair_angles.column(p).to_vec(),
        ));
    }
    sets
}

/// "m [lo, hi] rad": a median with its 95 % interval.
fn median_label(m: f64, ci: [f64; 2]) -> String {
    format!(
        "{} [{}, {}] rad",
        format_value(m, 4),
        format_value(ci[0], 4),
        format_value(ci[1], 4)
    )
}

/// The error bars of the cumulative panel: each median's 95 % interval as a horizontal bar at
/// 0.5 and the near-tangency fraction's as a vertical bar at the threshold (NaN-separated).
fn ci_bars(r: &crate::analysis::orbit::Covariant) -> (Vec<f64>, Vec<f64>) {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let cis = r
        .min_angle_median_ci
        .iter()
        .chain(&r.pair_angle_median_ci)
        .filter(|c| c.iter().all(|v| v.is_finite() && *v > 0.0));
    for c in cis {
        x.extend([c[0], c[1], f64::NAN]);
        y.extend([0.5, 0.5, f64::NAN]);
    }
    if let Some(f) = r
        .tangency_fraction_ci
        .filter(|f| f.iter().all(|v| v.is_finite()))
    {
        x.extend([r.tangency_angle, r.tangency_angle, f64::NAN]);
        y.extend([f[0], f[1], f64::NAN]);
    }
    (x, y)
}

/// The covariant-vector figure's title (the run's samples, window and λ₁) and x-axis label
/// (the metric and the transients).
fn covariant_labels(r: &crate::analysis::orbit::Covariant, title: &str) -> (String, String) {
    let status = if r.complete { "" } else { ", stopped early" };
    let title = format!(
        "{title} (covariant Lyapunov vectors, {} samples over t = {}–{} s, λ₁ = {} s⁻¹{status})",
        r.time.len(),
        r.window[0],
        r.window[1],
        format_value(r.spectrum.exponents[0], 4)
    );
    let x_label = format!(
        "angle / rad   (Euclidean metric in ({}); transients: {} s forward, {} s backward)",
        r.coordinates, r.spectrum.transient, r.backward_transient
    );
    (title, x_label)
}
