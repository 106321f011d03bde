//! Measures of a 2-D label grid (basins, flip/no-flip classes): boundary box-counting
//! dimension, uncertainty exponent, basin entropy and a Wada test. Pure functions over the
//! grid, no I/O, so labels computed anywhere (a pendula map, Attractors.jl) are measured alike.
//!
//! Every measure is deterministic: bootstrap offsets come from a seeded SplitMix64, and rayon
//! only splits work whose per-part results are combined in a fixed order, so the thread count
//! does not change any number.

mod boxcount;
pub mod chaotic;
mod entropy;
mod fit;
pub mod labels;
pub mod options;
mod report;
mod uncertainty;
mod wada;

pub use boxcount::{box_dimension, BoxDimension, BoxOptions};
pub use entropy::{basin_entropy, BasinEntropy, EntropyOptions};
pub use fit::{t_quantile_975, LineFit};
pub use options::{ChaoticChoices, MeasureChoices};
pub use report::{
    label_counts, measure, measure_cancellable, MeasureOptions, MeasuredSet, Measures, Stage, What,
    BOX_CI, BOX_RULE, ENTROPY_CI, UNCERTAINTY_RULE,
};
pub use uncertainty::{uncertainty_exponent, UncertaintyExponent, UncertaintyOptions};
pub use wada::{wada_test, WadaOptions, WadaTest};

use crate::error::FieldError;
use thiserror::Error;

/// Why a grid cannot be measured (bad input; the message names what is wrong).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MeasureError {
    #[error("the label grid has {data} values, not {nx} × {ny}")]
    Shape { nx: usize, ny: usize, data: usize },
    #[error("the label grid has {0} distinct label(s); a boundary needs at least two")]
    FewLabels(usize),
    #[error("{what} needs {needed} pixels along each side; the grid is {nx} × {ny}")]
    TooSmall {
        what: &'static str,
        /// Pixels needed along each side (u128: 8 × a usize option cannot overflow it).
        needed: u128,
        nx: usize,
        ny: usize,
    },
    #[error("{0}")]
    Option(String),
    /// The labels themselves do not allow the measure (no boundary away from the edges, too
    /// few or too many labels for the Wada test).
    #[error("{0}")]
    Labels(String),
    /// A bad argument, its field as data.
    #[error("{0}")]
    Field(FieldError),
    /// An option of the SALI run refused by the indicators, named by the chaotic fraction's
    /// own key (`tau`, `t_end`).
    #[error("indicators: {field} = {value} is invalid: {why}")]
    Indicators {
        field: &'static str,
        value: f64,
        why: String,
    },
    /// The run was stopped (a [`Cancel`](crate::observe::Cancel) token was set); nothing of
    /// it is kept.
    #[error("interrupted")]
    Interrupted,
}

impl MeasureError {
    /// The argument this error is about, if it is about one: an indicator option by the
    /// chaotic fraction's key (`tau`, `t_end`), the others by the chaotic fraction as a whole.
    pub fn field_error(&self) -> Option<FieldError> {
        match self {
            MeasureError::Field(e) => Some(e.clone()),
            MeasureError::Indicators { field, value, why } => Some(match *field {
                "tau" => FieldError::new("tau", format!("tau = {value} is invalid: {why}")),
                "time" => FieldError::new("t_end", format!("t_end = {value} is invalid: {why}")),
                _ => FieldError::new("chaotic_fraction", self.to_string()),
            }),
            _ => None,
        }
    }
}

/// A row-major grid of integer labels: `labels[iy * nx + ix]`. Labels are compacted to
/// 0 … n_labels−1 (sorted order of the original values) so per-box counts index arrays.
#[derive(Debug, Clone)]
pub struct LabelGrid {
    pub nx: usize,
    pub ny: usize,
    /// Compacted labels, 0 … `values.len()` − 1.
    pub index: Vec<u32>,
    /// The original label of each compacted index, ascending.
    pub values: Vec<i32>,
}

impl LabelGrid {
    /// A grid of `nx` columns × `ny` rows; at least two distinct labels.
    pub fn new(nx: usize, ny: usize, labels: &[i32]) -> Result<LabelGrid, MeasureError> {
        if labels.len() != nx * ny || nx == 0 || ny == 0 {
            return Err(MeasureError::Shape {
                nx,
                ny,
                data: labels.len(),
            });
        }
        let mut values: Vec<i32> = labels.to_vec();
        values.sort_unstable();
        values.dedup();
        if values.len() < 2 {
            return Err(MeasureError::FewLabels(values.len()));
        }
        let index = labels
            .iter()
            .map(|l| values.binary_search(l).expect("label present") as u32)
            .collect();
        Ok(LabelGrid {
            nx,
            ny,
            index,
            values,
        })
    }

    /// From an array indexed `[iy, ix]` (rows are y), as HDF5 maps store them.
    pub fn from_array(a: &ndarray::Array2<i32>) -> Result<LabelGrid, MeasureError> {
        let (ny, nx) = a.dim();
        let data: Vec<i32> = a.iter().copied().collect();
        LabelGrid::new(nx, ny, &data)
    }

    pub fn n_labels(&self) -> usize {
        self.values.len()
    }

    #[inline]
    pub(crate) fn at(&self, ix: usize, iy: usize) -> u32 {
        self.index[iy * self.nx + ix]
    }
}

/// SplitMix64 stream for box offsets (same generator as the Poincaré shell sampler).
pub(crate) fn offsets(seed: u64, count: usize, max: usize) -> Vec<(usize, usize)> {
    let mut rng = crate::analysis::random::SplitMix64(seed);
    let mut out = vec![(0, 0)];
    while out.len() < count.max(1) {
        let ox = (rng.next_u64() % max.max(1) as u64) as usize;
        let oy = (rng.next_u64() % max.max(1) as u64) as usize;
        out.push((ox, oy));
    }
    out
}

/// Mean and sample standard deviation.
pub(crate) fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    if x.len() < 2 {
        return (m, 0.0);
    }
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, v.sqrt())
}
