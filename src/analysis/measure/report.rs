//! Every measure of one label grid in one call, as `pendula measure --what …` asks for them.

use super::boxcount::{box_dimension_cancellable, box_sizes};
use super::entropy::{basin_entropy_cancellable, check_eps};
use super::uncertainty::{check_max_eps, uncertainty_exponent_cancellable};
use super::wada::{wada_radius, wada_test_cancellable};
use super::{
    BasinEntropy, BoxDimension, BoxOptions, EntropyOptions, LabelGrid, MeasureError,
    UncertaintyExponent, UncertaintyOptions, WadaOptions, WadaTest,
};
use crate::observe::Cancel;
use serde::{Deserialize, Serialize};

/// Which measures to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum What {
    BoundaryDimension,
    UncertaintyExponent,
    BasinEntropy,
    Wada,
    All,
}

impl What {
    pub const NAMES: [&'static str; 5] = [
        "boundary-dimension",
        "uncertainty-exponent",
        "basin-entropy",
        "wada",
        "all",
    ];
    pub fn parse(s: &str) -> Option<What> {
        [
            What::BoundaryDimension,
            What::UncertaintyExponent,
            What::BasinEntropy,
            What::Wada,
            What::All,
        ]
        .into_iter()
        .find(|w| w.name() == s)
    }
    pub fn name(self) -> &'static str {
        match self {
            What::BoundaryDimension => "boundary-dimension",
            What::UncertaintyExponent => "uncertainty-exponent",
            What::BasinEntropy => "basin-entropy",
            What::Wada => "wada",
            What::All => "all",
        }
    }
    fn has(self, w: What) -> bool {
        self == What::All || self == w
    }
}

/// Options of every measure, with the defaults the library's oracles were tested at.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureOptions {
    pub what: What,
    pub boxes: BoxOptions,
    pub uncertainty: UncertaintyOptions,
    /// Box sides ε (pixels) at which S_b and S_bb are computed.
    pub entropy_eps: Vec<usize>,
    pub entropy_shifts: usize,
    pub wada: WadaOptions,
}

impl Default for MeasureOptions {
    fn default() -> Self {
        MeasureOptions {
            what: What::All,
            boxes: BoxOptions::default(),
            uncertainty: UncertaintyOptions::default(),
            entropy_eps: vec![2, 3, 5, 8],
            entropy_shifts: 16,
            wada: WadaOptions::default(),
        }
    }
}

/// The measures of one grid; a measure not asked for is `None`.
#[derive(Debug, Clone)]
pub struct Measures {
    pub boundary: Option<BoxDimension>,
    pub uncertainty: Option<UncertaintyExponent>,
    /// One per ε of [`MeasureOptions::entropy_eps`], in order.
    pub entropy: Vec<BasinEntropy>,
    pub wada: Option<WadaTest>,
    /// Why the Wada test was left out of `--what all` (two labels share one boundary trivially).
    pub wada_skipped: Option<String>,
}

/// Which option a failed measure was driven by, for the CLI's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Boundary,
    Uncertainty,
    Entropy,
    Wada,
}

impl MeasureOptions {
    /// Every size check of the measures `what` asks for on an `nx` × `ny` grid, done before
    /// any of them is computed (overflow-safe: any option value is answered), in the order
    /// the measures run. The Wada radius is checked when the test will run: `labels` is the
    /// grid's label count where known (a spec's map is not computed yet: `None`).
    pub fn check_grid(
        &self,
        nx: usize,
        ny: usize,
        labels: Option<usize>,
    ) -> Result<(), (Stage, MeasureError)> {
        let w = self.what;
        if w.has(What::BoundaryDimension) {
            box_sizes(&self.boxes, nx, ny).map_err(|e| (Stage::Boundary, e))?;
        }
        if w.has(What::UncertaintyExponent) {
            check_max_eps(self.uncertainty.max_eps, nx, ny).map_err(|e| (Stage::Uncertainty, e))?;
        }
        if w.has(What::BasinEntropy) {
            for &e in &self.entropy_eps {
                check_eps(e, nx, ny).map_err(|e| (Stage::Entropy, e))?;
            }
        }
        let wada_runs = match (w, labels) {
            (What::Wada, Some(n)) | (What::All, Some(n)) => (3..=64).contains(&n),
            (What::Wada, None) => true,
            _ => false,
        };
        if wada_runs {
            wada_radius(&self.wada, nx, ny).map_err(|e| (Stage::Wada, e))?;
        }
        Ok(())
    }
}

/// Computes the measures `o.what` asks for. A measure that cannot run is an error naming its
/// stage, except the Wada test of a two-label grid under `All`, which is skipped and said why.
pub fn measure(g: &LabelGrid, o: &MeasureOptions) -> Result<Measures, (Stage, MeasureError)> {
    measure_cancellable(g, o, &Cancel::never())
}

/// [`measure`] that stops once `cancel` is set, with [`MeasureError::Interrupted`] (nothing
/// measured is kept). Every option is checked against the grid ([`MeasureOptions::check_grid`])
/// before any measure runs.
pub fn measure_cancellable(
    g: &LabelGrid,
    o: &MeasureOptions,
    cancel: &Cancel,
) -> Result<Measures, (Stage, MeasureError)> {
    o.check_grid(g.nx, g.ny, Some(g.n_labels()))?;
    let w = o.what;
    let boundary = w
        .has(What::BoundaryDimension)
        .then(|| box_dimension_cancellable(g, &o.boxes, cancel))
        .transpose()
        .map_err(|e| (Stage::Boundary, e))?;
    let uncertainty = w
        .has(What::UncertaintyExponent)
        .then(|| uncertainty_exponent_cancellable(g, &o.uncertainty, cancel))
        .transpose()
        .map_err(|e| (Stage::Uncertainty, e))?;
    let mut entropy = Vec::new();
    if w.has(What::BasinEntropy) {
        for &eps in &o.entropy_eps {
            let e = EntropyOptions {
                eps,
                shifts: o.entropy_shifts,
                seed: o.boxes.seed,
            };
            entropy
                .push(basin_entropy_cancellable(g, &e, cancel).map_err(|e| (Stage::Entropy, e))?);
        }
    }
    let (mut wada, mut wada_skipped) = (None, None);
    if w.has(What::Wada) {
        if w == What::All && g.n_labels() < 3 {
            wada_skipped = Some(format!(
                "{} labels: the Wada property needs three or more",
                g.n_labels()
            ));
        } else {
            wada = Some(wada_test_cancellable(g, &o.wada, cancel).map_err(|e| (Stage::Wada, e))?);
        }
    }
    Ok(Measures {
        boundary,
        uncertainty,
        entropy,
        wada,
        wada_skipped,
    })
}

/// One label grid with where it came from and its measures: what the store writes as one
/// `measure/set_<k>` group and the figure draws as one line per panel.
#[derive(Debug, Clone)]
pub struct MeasuredSet {
    /// How the labels were made, e.g. `flip_step of flip.h5, flipped before 5 s`.
    pub source: String,
    pub nx: usize,
    pub ny: usize,
    /// Physical extent (x0, x1, y0, y1) of the pixel edges, when known.
    pub extent: Option<[f64; 4]>,
    /// Names and units of the two axes (`theta1`, `rad`), when known.
    pub axes: Option<[(String, String); 2]>,
    /// The distinct labels and their pixel counts, ascending.
    pub labels: Vec<(i32, u64)>,
    pub measures: Measures,
}

impl MeasuredSet {
    /// Pixel side (dx, dy) in physical units, when the extent is known.
    pub fn pixel(&self) -> Option<(f64, f64)> {
        self.extent
            .map(|[x0, x1, y0, y1]| ((x1 - x0) / self.nx as f64, (y1 - y0) / self.ny as f64))
    }
}

/// The distinct labels of a grid and how many pixels hold each.
pub fn label_counts(g: &LabelGrid) -> Vec<(i32, u64)> {
    let mut c = vec![0u64; g.n_labels()];
    for &l in &g.index {
        c[l as usize] += 1;
    }
    g.values.iter().copied().zip(c).collect()
}

/// The scaling range rule of the box counts, as reported beside the fit.
pub const BOX_RULE: &str = "box sides 2^k px from the larger of 2 px and the largest power of two <= 1/128 of the shorter side (the pixel staircase lies below) to the largest power of two <= 1/8 of it (at least 8 boxes per side); boxes past an edge count with their area fraction inside";
/// How the box dimension's interval is made.
pub const BOX_CI: &str = "95 %: half-width sqrt((1.96 sd of the per-shift slopes)^2 + (t_0.975 se of the fit)^2 + r^2), r the larger change of D when the smallest or the largest box size is dropped";
/// The scaling range of the uncertainty exponent.
pub const UNCERTAINTY_RULE: &str = "eps = 1 ... K px, every pixel at least K px from the edges tested at every eps (one denominator)";
/// How S_b and S_bb intervals are made.
pub const ENTROPY_CI: &str = "95 %: mean +- 1.96 sd over random shifts of the box grid";

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid of three vertical bands.
    fn bands(n: usize) -> LabelGrid {
        let v: Vec<i32> = (0..n * n).map(|i| ((i % n) * 3 / n) as i32).collect();
        LabelGrid::new(n, n, &v).unwrap()
    }

    #[test]
    fn options_beyond_the_grid_are_refused_before_any_measure() {
        let g = bands(64);
        let mut o = MeasureOptions::default();
        o.wada.max_radius = 1 << 63;
        let (stage, e) = measure(&g, &o).unwrap_err();
        // The uncertainty exponent's default K = 16 needs 128 px: refused first, in stage order.
        assert_eq!(stage, Stage::Uncertainty, "{e}");
        o.what = What::Wada;
        let (stage, e) = measure(&g, &o).unwrap_err();
        assert_eq!(stage, Stage::Wada);
        assert!(e.to_string().contains("73786976294838206464"), "{e}");
        o.what = What::BasinEntropy;
        o.entropy_eps = vec![2, usize::MAX];
        assert_eq!(measure(&g, &o).unwrap_err().0, Stage::Entropy);
    }

    #[test]
    fn a_set_token_stops_every_measure() {
        let g = bands(128);
        let c = Cancel::new();
        c.set();
        let (_, e) = measure_cancellable(&g, &MeasureOptions::default(), &c).unwrap_err();
        assert_eq!(e, MeasureError::Interrupted);
        for what in [What::UncertaintyExponent, What::BasinEntropy, What::Wada] {
            let o = MeasureOptions {
                what,
                ..MeasureOptions::default()
            };
            let (_, e) = measure_cancellable(&g, &o, &c).unwrap_err();
            assert_eq!(e, MeasureError::Interrupted, "{what:?}");
        }
    }
}
