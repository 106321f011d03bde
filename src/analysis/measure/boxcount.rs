//! Box-counting dimension of the boundary between labels.
//!
//! Boxes are s × s pixels with s = 2^k; a box counts when the boundary passes through it (it
//! holds a pixel whose right or lower neighbour has another label). One random shift (ox, oy)
//! of the box grid is applied to all scales at once and an OR pyramid gives every scale in O(N). The scaling range rule: s from 2 px (1-px boxes only
//! repeat the pixel grid) to 1/8 of the shorter side (fewer than 8 boxes per side are too coarse to
//! count a boundary), both reported. D is the slope of log N(s) against log(1/s), fitted to the
//! counts averaged over shifts. Its 95 % interval combines the spread of the per-shift slopes
//! (the bootstrap over box offsets) with the fit's own Student-t interval:
//! half-width = √((1.96·sd_shift)² + (t·se_fit)²).

use super::{mean_sd, offsets, LabelGrid, LineFit, MeasureError};
use crate::observe::Cancel;
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct BoxOptions {
    /// Smallest box side in pixels (a power of two, ≥ 2).
    pub min_box: usize,
    /// Largest box side: the largest power of two ≤ shorter side / `max_fraction_inv`.
    pub max_fraction_inv: usize,
    /// Number of box-grid shifts (the first is no shift).
    pub shifts: usize,
    pub seed: u64,
}

impl Default for BoxOptions {
    fn default() -> Self {
        BoxOptions {
            min_box: 2,
            max_fraction_inv: 8,
            shifts: 16,
            seed: 0x5eed,
        }
    }
}

#[derive(Debug, Clone)]
pub struct BoxDimension {
    /// Box sides in pixels.
    pub sizes: Vec<usize>,
    /// Boundary boxes per size, averaged over shifts.
    pub counts: Vec<f64>,
    /// Per shift, per size: boundary boxes (`shifts × sizes`, row-major).
    pub shift_counts: Vec<Vec<f64>>,
    pub shift_offsets: Vec<(usize, usize)>,
    /// Slope of log N vs log(1/s) per shift.
    pub shift_slopes: Vec<f64>,
    pub fit: LineFit,
    pub dimension: f64,
    pub ci: (f64, f64),
}

/// Box-counting dimension of the label boundary.
pub fn box_dimension(g: &LabelGrid, o: &BoxOptions) -> Result<BoxDimension, MeasureError> {
    box_dimension_cancellable(g, o, &Cancel::never())
}

/// The box sides the options give on a grid of shorter side `short`, checked: the
/// smallest a power of two ≥ 2 and at least three sides up to `short / max_fraction_inv`.
pub(super) fn box_sizes(o: &BoxOptions, nx: usize, ny: usize) -> Result<Vec<usize>, MeasureError> {
    if !o.min_box.is_power_of_two() || o.min_box < 2 {
        return Err(MeasureError::Option(format!(
            "the smallest box must be a power of two ≥ 2, not {}",
            o.min_box
        )));
    }
    let short = nx.min(ny);
    let limit = short / o.max_fraction_inv.max(1);
    let mut sizes = Vec::new();
    let mut s = o.min_box;
    while s <= limit {
        sizes.push(s);
        match s.checked_mul(2) {
            Some(t) => s = t,
            None => break,
        }
    }
    if sizes.len() < 3 {
        return Err(MeasureError::TooSmall {
            what: "box counting (three box sizes from the smallest box to 1/8 of the grid)",
            needed: o.min_box as u128 * 4 * o.max_fraction_inv.max(1) as u128,
            nx,
            ny,
        });
    }
    Ok(sizes)
}

/// [`box_dimension`] that stops (with [`MeasureError::Interrupted`]) once `cancel` is set.
pub fn box_dimension_cancellable(
    g: &LabelGrid,
    o: &BoxOptions,
    cancel: &Cancel,
) -> Result<BoxDimension, MeasureError> {
    let sizes = box_sizes(o, g.nx, g.ny)?;
    let smax = *sizes.last().unwrap();
    let shift_offsets = offsets(o.seed, o.shifts, smax);
    let shift_counts: Vec<Vec<f64>> = shift_offsets
        .par_iter()
        .map(|&(ox, oy)| count_shift(g, ox, oy, &sizes, cancel))
        .collect();
    if cancel.is_set() {
        return Err(MeasureError::Interrupted);
    }
    let lx: Vec<f64> = sizes.iter().map(|&s| -(s as f64).ln()).collect();
    let counts: Vec<f64> = (0..sizes.len())
        .map(|k| shift_counts.iter().map(|c| c[k]).sum::<f64>() / shift_counts.len() as f64)
        .collect();
    let ly: Vec<f64> = counts.iter().map(|c| c.ln()).collect();
    let fit = LineFit::fit(&lx, &ly).ok_or(MeasureError::FewLabels(g.n_labels()))?;
    let shift_slopes: Vec<f64> = shift_counts
        .iter()
        .filter_map(|c| {
            let y: Vec<f64> = c.iter().map(|&v| v.ln()).collect();
            LineFit::fit(&lx, &y).map(|f| f.slope)
        })
        .collect();
    let (_, sd) = mean_sd(&shift_slopes);
    let half = ((1.96 * sd).powi(2) + fit.half_width().powi(2)).sqrt();
    Ok(BoxDimension {
        sizes,
        counts,
        shift_counts,
        shift_offsets,
        shift_slopes,
        dimension: fit.slope,
        ci: (fit.slope - half, fit.slope + half),
        fit,
    })
}

/// Boundary boxes at each size for the box grid starting at pixel (ox, oy), counted over whole
/// boxes and scaled by the grid's area over theirs (partial edge boxes would bias the largest
/// sizes' counts up, dropping them biases them down). A pixel
/// is flagged when its right or lower neighbour has another label: the boundary runs along
/// pixel edges, and this assigns each edge to one box, so a boundary lying on a box edge is
/// neither missed nor counted twice. Boxes holding a flag count; an OR pyramid gives all sizes.
/// Once `cancel` is set the counts are left unfinished (the caller discards them).
fn count_shift(g: &LabelGrid, ox: usize, oy: usize, sizes: &[usize], cancel: &Cancel) -> Vec<f64> {
    if cancel.is_set() {
        // Every shift left after a stop returns at once, without its flag grid.
        return vec![0.0; sizes.len()];
    }
    let mut cw = g.nx - ox;
    let mut ch = g.ny - oy;
    let mut f = vec![0u8; cw * ch];
    for iy in oy..g.ny {
        if cancel.is_set() {
            return vec![0.0; sizes.len()];
        }
        for ix in ox..g.nx {
            let l = g.at(ix, iy);
            let edge = (ix + 1 < g.nx && g.at(ix + 1, iy) != l)
                || (iy + 1 < g.ny && g.at(ix, iy + 1) != l);
            f[(iy - oy) * cw + ix - ox] = edge as u8;
        }
    }
    let mut side = 1;
    let mut out = Vec::with_capacity(sizes.len());
    for &s in sizes {
        while side < s {
            let nw = cw / 2;
            let nh = ch / 2;
            let mut nf = vec![0u8; nw * nh];
            for y in 0..nh {
                for x in 0..nw {
                    let a = (2 * y) * cw + 2 * x;
                    let b = a + cw;
                    nf[y * nw + x] = f[a] | f[a + 1] | f[b] | f[b + 1];
                }
            }
            f = nf;
            cw = nw;
            ch = nh;
            side *= 2;
        }
        let hits = f.iter().filter(|&&v| v != 0).count() as f64;
        // Whole boxes cover cw·ch·s² of the grid's nx·ny pixels: scale to the whole grid.
        out.push(hits * (g.nx * g.ny) as f64 / ((cw * ch * s * s) as f64));
    }
    out
}
