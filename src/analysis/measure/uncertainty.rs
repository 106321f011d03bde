//! Uncertainty exponent (Grebogi, McDonald, Ott & Yorke 1983) from a label grid.
//!
//! A pixel is ε-uncertain when any of the four pixels ε away along ±x, ±y has another label.
//! The same interior (pixels at least K from every edge) is used for every ε so f(ε) shares
//! one denominator. f(ε) ∝ ε^α; α is the slope of log f against log ε over ε = 1 … K; its
//! 95 % interval combines the fit's Student-t interval with the fit range's sensitivity r, the
//! larger change of α when ε = 1 or ε = K is dropped: half-width √((t·se)² + r²). The
//! boundary's dimension is D = 2 − α. On exact sets (straight, round, Koch boundaries at
//! 512²–2048², `tests/measure.rs`) α is within 0.005 of 2 − D.

use super::{LabelGrid, LineFit, MeasureError};
use crate::observe::Cancel;
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct UncertaintyOptions {
    /// Largest ε in pixels (all of 1 … K are used).
    pub max_eps: usize,
}

impl Default for UncertaintyOptions {
    fn default() -> Self {
        UncertaintyOptions { max_eps: 16 }
    }
}

#[derive(Debug, Clone)]
pub struct UncertaintyExponent {
    pub eps: Vec<usize>,
    /// Fraction of ε-uncertain interior pixels.
    pub fraction: Vec<f64>,
    /// Interior pixels tested for every ε.
    pub tested: u64,
    pub fit: LineFit,
    /// The larger |Δα| when ε = 1 or ε = K is dropped from the fit.
    pub range_sensitivity: f64,
    pub alpha: f64,
    pub ci: (f64, f64),
    /// D = 2 − α and its interval.
    pub dimension: f64,
    pub dimension_ci: (f64, f64),
}

pub fn uncertainty_exponent(
    g: &LabelGrid,
    o: &UncertaintyOptions,
) -> Result<UncertaintyExponent, MeasureError> {
    uncertainty_exponent_cancellable(g, o, &Cancel::never())
}

/// The checks of the largest ε `k` on an `nx` × `ny` grid: at least 2, at most 1/8 of the
/// shorter side (overflow-safe: any `usize` is answered).
pub(super) fn check_max_eps(k: usize, nx: usize, ny: usize) -> Result<(), MeasureError> {
    if k < 2 {
        return Err(MeasureError::Option(format!(
            "the largest ε must be at least 2 pixels, not {k}"
        )));
    }
    if 8 * k as u128 > nx.min(ny) as u128 {
        return Err(MeasureError::TooSmall {
            what: "the uncertainty exponent (8 × the largest ε)",
            needed: 8 * k as u128,
            nx,
            ny,
        });
    }
    Ok(())
}

/// [`uncertainty_exponent`] that stops (with [`MeasureError::Interrupted`]) once `cancel` is
/// set.
pub fn uncertainty_exponent_cancellable(
    g: &LabelGrid,
    o: &UncertaintyOptions,
    cancel: &Cancel,
) -> Result<UncertaintyExponent, MeasureError> {
    let k = o.max_eps;
    check_max_eps(k, g.nx, g.ny)?;
    let eps: Vec<usize> = (1..=k).collect();
    let rows: Vec<usize> = (k..g.ny - k).collect();
    let counts: Vec<u64> = rows
        .par_iter()
        .map(|&iy| {
            let mut c = vec![0u64; k];
            if cancel.is_set() {
                return c;
            }
            for ix in k..g.nx - k {
                let l = g.at(ix, iy);
                for e in 1..=k {
                    if g.at(ix - e, iy) != l
                        || g.at(ix + e, iy) != l
                        || g.at(ix, iy - e) != l
                        || g.at(ix, iy + e) != l
                    {
                        c[e - 1] += 1;
                    }
                }
            }
            c
        })
        .reduce(
            || vec![0u64; k],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    if cancel.is_set() {
        return Err(MeasureError::Interrupted);
    }
    let tested = ((g.nx - 2 * k) * (g.ny - 2 * k)) as u64;
    let fraction: Vec<f64> = counts.iter().map(|&c| c as f64 / tested as f64).collect();
    if fraction.contains(&0.0) {
        return Err(MeasureError::Labels(
            "no ε-uncertain pixel in the interior: the labels have no boundary away from the edges"
                .into(),
        ));
    }
    let lx: Vec<f64> = eps.iter().map(|&e| (e as f64).ln()).collect();
    let ly: Vec<f64> = fraction.iter().map(|f| f.ln()).collect();
    let fit = LineFit::fit(&lx, &ly).expect("K ≥ 2 points");
    let alpha = fit.slope;
    let m = lx.len();
    let range_sensitivity = if m >= 4 {
        let without_first = LineFit::fit(&lx[1..], &ly[1..]).map_or(alpha, |f| f.slope);
        let without_last = LineFit::fit(&lx[..m - 1], &ly[..m - 1]).map_or(alpha, |f| f.slope);
        (without_first - alpha)
            .abs()
            .max((without_last - alpha).abs())
    } else {
        0.0
    };
    let h = (fit.half_width().powi(2) + range_sensitivity.powi(2)).sqrt();
    Ok(UncertaintyExponent {
        eps,
        fraction,
        tested,
        fit,
        range_sensitivity,
        alpha,
        ci: (alpha - h, alpha + h),
        dimension: 2.0 - alpha,
        dimension_ci: (2.0 - alpha - h, 2.0 - alpha + h),
    })
}
