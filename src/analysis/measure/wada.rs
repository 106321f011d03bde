//! Wada test on a label grid: the grid approximation of Daza et al.'s (2015) grid method.
//!
//! The full grid method refines each boundary box by computing new trajectories inside it;
//! a label grid has no dynamics to call, so here the refinement is replaced by its standard
//! grid-only approximation: a pixel is a boundary point at radius r when its
//! (2r+1) × (2r+1) neighbourhood holds at least two labels, and a Wada point when it holds
//! every label. W(r) = Wada points / boundary points is reported for r = 1, 2, 4, … ≤ r_max
//! (the "refinement steps", coarse-to-fine read backwards). A Wada boundary has W(r) → 1 as the
//! neighbourhood grows a few pixels (every boundary point is near all basins at every scale);
//! an ordinary boundary (labels meeting along curves, with at most isolated triple points) has
//! W(r) ≈ r / size, small. The verdict is W(r_max) ≥ `threshold`.

use super::{LabelGrid, MeasureError};
use crate::observe::Cancel;
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct WadaOptions {
    /// Largest neighbourhood radius in pixels; 0 → shorter side / 64 (at least 1).
    pub max_radius: usize,
    /// Fraction of boundary points that must see every label at the largest radius.
    pub threshold: f64,
}

impl Default for WadaOptions {
    fn default() -> Self {
        WadaOptions {
            max_radius: 0,
            threshold: 0.95,
        }
    }
}

#[derive(Debug, Clone)]
pub struct WadaTest {
    pub labels: usize,
    pub radii: Vec<usize>,
    pub boundary_points: Vec<u64>,
    pub wada_points: Vec<u64>,
    /// W(r) per radius.
    pub fraction: Vec<f64>,
    pub wada: bool,
}

pub fn wada_test(g: &LabelGrid, o: &WadaOptions) -> Result<WadaTest, MeasureError> {
    wada_test_cancellable(g, o, &Cancel::never())
}

/// The largest radius the options give on an `nx` × `ny` grid, checked: at most 1/8 of the
/// shorter side (overflow-safe: any `usize` is answered).
pub(super) fn wada_radius(o: &WadaOptions, nx: usize, ny: usize) -> Result<usize, MeasureError> {
    let rmax = if o.max_radius == 0 {
        (nx.min(ny) / 64).max(1)
    } else {
        o.max_radius
    };
    if 8 * rmax as u128 > nx.min(ny) as u128 {
        return Err(MeasureError::TooSmall {
            what: "the Wada test (8 × the largest radius)",
            needed: 8 * rmax as u128,
            nx,
            ny,
        });
    }
    Ok(rmax)
}

/// [`wada_test`] that stops (with [`MeasureError::Interrupted`]) once `cancel` is set.
pub fn wada_test_cancellable(
    g: &LabelGrid,
    o: &WadaOptions,
    cancel: &Cancel,
) -> Result<WadaTest, MeasureError> {
    let n = g.n_labels();
    if n > 64 {
        return Err(MeasureError::Labels(format!(
            "the Wada test handles at most 64 labels; the grid has {n}"
        )));
    }
    if n < 3 {
        // Two basins share their one boundary trivially; Wada needs three or more.
        return Err(MeasureError::Labels(format!(
            "the Wada test needs at least three labels; the grid has {n}"
        )));
    }
    let rmax = wada_radius(o, g.nx, g.ny)?;
    let all: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let (nx, ny) = (g.nx, g.ny);
    let base: Vec<u64> = g.index.iter().map(|&l| 1u64 << l).collect();
    // Radius 1: the 3 × 3 neighbourhood.
    let mut w = spread(&base, nx, ny, 1, true);
    let mut r = 1;
    let (mut radii, mut bp, mut wp, mut fr) = (vec![], vec![], vec![], vec![]);
    loop {
        if cancel.is_set() {
            return Err(MeasureError::Interrupted);
        }
        let (b, a) = w
            .par_chunks(nx)
            .map(|row| {
                row.iter().fold((0u64, 0u64), |(b, a), &m| {
                    (b + (m.count_ones() >= 2) as u64, a + (m == all) as u64)
                })
            })
            .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
        radii.push(r);
        bp.push(b);
        wp.push(a);
        fr.push(if b > 0 { a as f64 / b as f64 } else { 0.0 });
        if 2 * r > rmax {
            break;
        }
        // W_{2r}(x) = ∪ W_r(x ± r) over the four corners: covers [x − 2r, x + 2r]².
        w = spread(&w, nx, ny, r, false);
        r *= 2;
    }
    let wada = *fr.last().unwrap() >= o.threshold;
    Ok(WadaTest {
        labels: n,
        radii,
        boundary_points: bp,
        wada_points: wp,
        fraction: fr,
        wada,
    })
}

/// OR of `src` at offsets {−d, (0,) +d}² (indices clamped to the grid; clamping keeps the
/// union inside the wanted window). `centre` adds the zero offset (the 3 × 3 first step).
fn spread(src: &[u64], nx: usize, ny: usize, d: usize, centre: bool) -> Vec<u64> {
    let mut out = vec![0u64; nx * ny];
    out.par_chunks_mut(nx).enumerate().for_each(|(y, row)| {
        let ys = [y.saturating_sub(d), y, (y + d).min(ny - 1)];
        for (x, v) in row.iter_mut().enumerate() {
            let xs = [x.saturating_sub(d), x, (x + d).min(nx - 1)];
            let mut m = 0u64;
            for (j, &yy) in ys.iter().enumerate() {
                for (i, &xx) in xs.iter().enumerate() {
                    if centre || (i != 1 && j != 1) {
                        m |= src[yy * nx + xx];
                    }
                }
            }
            *v = m;
        }
    });
    out
}
