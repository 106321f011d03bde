//! What each analysis holds in memory: one function per kind, each pushing the [`Term`]s of
//! its dominant arrays; [`crate::spec::Spec::memory_estimate`] adds the model's and picks the
//! largest.

use super::{estimate, threads, Estimate};
use crate::analysis::measure::{MeasureOptions, What};
use crate::kinds::memory::{links_driver, solver, Term, F64, PLANAR_LINK_BYTES};

/// The label grids `pendula measure` (or the Python package) measures: their size, how many
/// there are, what reading one costs, and the field that names them.
#[derive(Debug, Clone, Copy)]
pub struct LabelGrids {
    pub nx: usize,
    pub ny: usize,
    /// Label grids of this size (one per flip time of a flip map, else one).
    pub count: usize,
    /// Bytes per pixel the source holds while it is read (an HDF5 dataset read as i64, a map
    /// file's variables).
    pub read_per_px: f64,
    /// The field that gives the grid: `labels` (a dataset or array) or `measure` (a map file).
    pub field: &'static str,
}

/// What measuring `grids` with options `o` holds at once: the grids and their reading, the
/// measures' masks (the Wada test's three u64 masks, one box-count flag grid per thread), the
/// per-shift results of every grid (kept, then copied while written) and the uncertainty
/// exponent's counts, each term naming the option that drives it. Overflow-safe: every count is
/// taken as f64, so 10¹² × 10¹² is a number over any budget, not a wrapped product.
pub fn measure_estimate(grids: &LabelGrids, o: &MeasureOptions) -> Estimate {
    estimate(measure_terms(grids, o))
}

/// The terms of [`measure_estimate`], which a measure spec's run adds to its map's.
pub(crate) fn measure_terms(grids: &LabelGrids, o: &MeasureOptions) -> Vec<Term> {
    let px = grids.nx as f64 * grids.ny as f64;
    let count = grids.count.max(1) as f64;
    let pixels = format!("{}×{} pixels", grids.nx, grids.ny);
    let mut terms = vec![Term {
        // Reading, the i32 values and their sorted copy, the Wada masks, box-count flags.
        bytes: px * (grids.read_per_px + 8.0 + 24.0 + 1.5 * threads()),
        field: grids.field,
        driver: pixels.clone(),
        what: "the label grid and the measures' masks, held whole (the measures do not stream)",
    }];
    terms.push(Term {
        // Every grid's compacted labels (u32) exist before the first is measured.
        bytes: count * px * F64 / 2.0,
        field: "flip_before",
        driver: format!("{} label grids of {pixels}", grids.count),
        what: "the label grids",
    });
    let shifts = o.boxes.shifts.max(o.entropy_shifts) as f64;
    let short = grids.nx.min(grids.ny).max(1) as f64;
    let sizes = short.log2().max(1.0);
    let eps = if o.what == What::All || o.what == What::BasinEntropy {
        o.entropy_eps.len() as f64
    } else {
        0.0
    };
    // Per shift: its offsets, box counts per size and slope; per entropy side its offsets
    // and four values; twice (the results, then the arrays written).
    let per_shift = 2.0 * (48.0 + 16.0 * sizes + eps * 56.0);
    let (field, driver) = if eps > shifts {
        ("entropy_eps", format!("{} box sides", o.entropy_eps.len()))
    } else {
        (
            "shifts",
            format!("{} shifts", o.boxes.shifts.max(o.entropy_shifts)),
        )
    };
    terms.push(Term {
        bytes: count * (shifts * per_shift + eps * 256.0),
        field,
        driver,
        what: "the per-shift results",
    });
    terms.push(Term {
        // ε = 1 … K and a row of counts per ε in every thread's partial sums.
        bytes: o.uncertainty.max_eps as f64 * F64 * (2.0 * threads() + 4.0),
        field: "max_eps",
        driver: format!("{} values of ε", o.uncertainty.max_eps),
        what: "the uncertainty exponent's counts",
    });
    terms
}

/// What the chaotic fraction of `energies` shells of `samples` starts on a chain of `links`
/// links holds at once: the model, every start's state, verdict and proposal count, and per
/// thread a start's mass matrix and Cholesky factor and its SALI run (the state and two
/// deviation vectors through RK4). Overflow-safe as [`measure_estimate`].
pub fn chaotic_estimate(links: usize, samples: usize, energies: usize) -> Estimate {
    let n = links as f64;
    let dim = 2.0 * n;
    let mut terms = vec![Term {
        bytes: n * PLANAR_LINK_BYTES
            + threads() * (2.0 * F64 * n * n + solver(dim * 3.0) + 64.0 * dim * F64),
        field: "links",
        driver: links_driver(links),
        what: "the model and each start's matrices and tangent vectors",
    }];
    terms.push(Term {
        bytes: samples as f64 * (dim * F64 + 24.0 + 48.0),
        field: "samples",
        driver: format!("{samples} samples of {links} links"),
        what: "the starts and their verdicts",
    });
    terms.push(Term {
        bytes: energies as f64 * 512.0,
        field: "energies",
        driver: format!("{energies} energies"),
        what: "the shells' rows",
    });
    estimate(terms)
}
