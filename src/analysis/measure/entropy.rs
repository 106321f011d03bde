//! Basin entropy S_b and boundary basin entropy S_bb (Daza, Wagemakers, Georgeot,
//! Guéry-Odelin & Sanjuán 2016).
//!
//! The grid is covered by boxes of ε × ε pixels; box i has the Gibbs entropy
//! S_i = −Σ_j p_ij ln p_ij of its label fractions. S_b is the mean over all boxes, S_bb the mean
//! over boxes holding more than one label. S_bb > ln 2 is a sufficient condition for a fractal
//! boundary (the log 2 criterion). The estimates are repeated over random box-grid shifts; the
//! reported value is their mean and the 95 % interval mean ± 1.96·sd over shifts.

use super::{mean_sd, offsets, LabelGrid, MeasureError};
use crate::observe::Cancel;
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct EntropyOptions {
    /// Box side ε in pixels (Daza et al. use 5).
    pub eps: usize,
    pub shifts: usize,
    pub seed: u64,
}

impl Default for EntropyOptions {
    fn default() -> Self {
        EntropyOptions {
            eps: 5,
            shifts: 16,
            seed: 0x5eed,
        }
    }
}

#[derive(Debug, Clone)]
pub struct BasinEntropy {
    pub eps: usize,
    pub sb: f64,
    pub sb_ci: (f64, f64),
    pub sbb: f64,
    pub sbb_ci: (f64, f64),
    /// Per shift: (S_b, S_bb, boxes, boundary boxes).
    pub shift_values: Vec<(f64, f64, u64, u64)>,
    pub shift_offsets: Vec<(usize, usize)>,
    /// The log 2 criterion holds: the whole 95 % interval of S_bb lies above ln 2.
    pub fractal_by_log2: bool,
}

pub fn basin_entropy(g: &LabelGrid, o: &EntropyOptions) -> Result<BasinEntropy, MeasureError> {
    basin_entropy_cancellable(g, o, &Cancel::never())
}

/// The checks of a box side `e` on an `nx` × `ny` grid: at least 2, at most 1/8 of the
/// shorter side (overflow-safe: any `usize` is answered).
pub(super) fn check_eps(e: usize, nx: usize, ny: usize) -> Result<(), MeasureError> {
    if e < 2 {
        return Err(MeasureError::Option(format!(
            "the entropy box must be at least 2 pixels, not {e}"
        )));
    }
    if 8 * e as u128 > nx.min(ny) as u128 {
        return Err(MeasureError::TooSmall {
            what: "basin entropy (8 boxes along each side)",
            needed: 8 * e as u128,
            nx,
            ny,
        });
    }
    Ok(())
}

/// [`basin_entropy`] that stops (with [`MeasureError::Interrupted`]) once `cancel` is set.
pub fn basin_entropy_cancellable(
    g: &LabelGrid,
    o: &EntropyOptions,
    cancel: &Cancel,
) -> Result<BasinEntropy, MeasureError> {
    let e = o.eps;
    check_eps(e, g.nx, g.ny)?;
    let shift_offsets = offsets(o.seed, o.shifts, e);
    let shift_values: Vec<(f64, f64, u64, u64)> = shift_offsets
        .par_iter()
        .map(|&(ox, oy)| entropy_shift(g, ox, oy, e, cancel))
        .collect();
    if cancel.is_set() {
        return Err(MeasureError::Interrupted);
    }
    let sb: Vec<f64> = shift_values.iter().map(|v| v.0).collect();
    let sbb: Vec<f64> = shift_values.iter().map(|v| v.1).collect();
    let (mb, sdb) = mean_sd(&sb);
    let (mbb, sdbb) = mean_sd(&sbb);
    let sbb_ci = (mbb - 1.96 * sdbb, mbb + 1.96 * sdbb);
    Ok(BasinEntropy {
        eps: e,
        sb: mb,
        sb_ci: (mb - 1.96 * sdb, mb + 1.96 * sdb),
        sbb: mbb,
        sbb_ci,
        shift_values,
        shift_offsets,
        fractal_by_log2: sbb_ci.0 > std::f64::consts::LN_2,
    })
}

/// (S_b, S_bb, boxes, boundary boxes) for whole ε-boxes starting at (ox, oy); unfinished once
/// `cancel` is set (the caller discards it).
fn entropy_shift(
    g: &LabelGrid,
    ox: usize,
    oy: usize,
    e: usize,
    cancel: &Cancel,
) -> (f64, f64, u64, u64) {
    let bx = (g.nx - ox) / e;
    let by = (g.ny - oy) / e;
    let mut counts = vec![0u32; g.n_labels()];
    let mut touched = Vec::new();
    let area = (e * e) as f64;
    let (mut sum, mut boxes, mut bnd) = (0.0, 0u64, 0u64);
    for j in 0..by {
        if cancel.is_set() {
            break;
        }
        for i in 0..bx {
            for y in 0..e {
                let row = (oy + j * e + y) * g.nx + ox + i * e;
                for &l in &g.index[row..row + e] {
                    if counts[l as usize] == 0 {
                        touched.push(l);
                    }
                    counts[l as usize] += 1;
                }
            }
            boxes += 1;
            if touched.len() > 1 {
                bnd += 1;
                let mut s = 0.0;
                for &l in &touched {
                    let p = counts[l as usize] as f64 / area;
                    s -= p * p.ln();
                }
                sum += s;
            }
            for &l in &touched {
                counts[l as usize] = 0;
            }
            touched.clear();
        }
    }
    let sbb = if bnd > 0 { sum / bnd as f64 } else { 0.0 };
    (sum / boxes as f64, sbb, boxes, bnd)
}
