//! What the cart chain's modes analysis found, described for the front ends: the group
//! `modes`, the JSON summary and the text report (no figure: the mode-shape figure is the
//! planar chain's, and a cart-chain run refuses `--plot` before any work).
//!
//! The group: coordinates `equilibrium` (index), `mode`, `link`, `eigenvalue`; `signs`,
//! `omega2`, `frequency`, `growth_rate`, `eigenvalue_re/_im`, `stable`, `controllable`,
//! `zero_modes`, the attribute `labels` and the model's parameters.

use crate::analysis::cart::CartModes;
use crate::finding::{Finding, Record};
use crate::format::{f64_json, num};
use crate::kinds::Found;
use crate::model::CartChain;
use crate::plot::PlotError;
use ndarray::Array2;
use serde_json::json;
use std::fmt::Write;
use std::path::Path;

/// The modes of the cart chain at each equilibrium.
#[derive(Debug, Clone)]
pub struct CartChainModes {
    pub sys: CartChain,
    /// Each equilibrium's links, ±1.
    pub signs: Vec<Vec<f64>>,
    pub modes: Vec<CartModes>,
}

impl Finding for CartChainModes {
    fn group(&self) -> &'static str {
        "modes"
    }

    fn complete(&self) -> bool {
        true
    }

    fn record(&self) -> Record {
        let modes = &self.modes;
        let n = self.sys.links();
        let e = modes.len();
        let m = modes.first().map_or(0, |x| x.omega2.len());
        let ne = 2 * m;
        let fill = |f: &dyn Fn(&CartModes, usize) -> f64, cols: usize| {
            Array2::from_shape_fn((e, cols), |(i, j)| f(&modes[i], j))
        };
        let flag = |f: &dyn Fn(&CartModes) -> bool| -> Vec<i64> {
            modes.iter().map(|c| f(c) as i64).collect()
        };
        let labels: Vec<String> = modes.iter().map(|c| c.equilibrium.clone()).collect();
        let mut g = Record::new("modes");
        g.index("equilibrium", e, "equilibrium index (see attribute labels)")
            .index("mode", m, "mode index, ascending omega2")
            .index("link", n, "link index, counted from the cart")
            .index("eigenvalue", ne, "eigenvalue index of the state matrix")
            .var(
                "signs",
                &["equilibrium", "link"],
                Array2::from_shape_fn((e, n), |(i, j)| self.signs[i][j]),
                "1",
                "+1: q = e3 (hanging), -1: q = -e3",
            )
            .var(
                "omega2",
                &["equilibrium", "mode"],
                fill(&|c, j| c.omega2[j], m),
                "s-2",
                "generalized eigenvalue of (K, M)",
            )
            .var(
                "frequency",
                &["equilibrium", "mode"],
                fill(&|c, j| c.frequencies[j], m),
                "rad s-1",
                "mode frequency (NaN if unstable)",
            )
            .var(
                "growth_rate",
                &["equilibrium", "mode"],
                fill(&|c, j| c.growth_rates[j], m),
                "s-1",
                "exponential growth rate (0 if not unstable)",
            )
            .var(
                "eigenvalue_re",
                &["equilibrium", "eigenvalue"],
                fill(&|c, j| c.eigenvalues[j].0, ne),
                "s-1",
                "real part of the state-matrix eigenvalue",
            )
            .var(
                "eigenvalue_im",
                &["equilibrium", "eigenvalue"],
                fill(&|c, j| c.eigenvalues[j].1, ne),
                "s-1",
                "imaginary part of the state-matrix eigenvalue",
            )
            .var(
                "stable",
                &["equilibrium"],
                flag(&|c| c.stable),
                "1",
                "1 if no eigenvalue has a positive real part",
            )
            .var(
                "controllable",
                &["equilibrium"],
                flag(&|c| c.controllable),
                "1",
                "1 if controllable from the cart force (PBH)",
            )
            .var(
                "zero_modes",
                &["equilibrium"],
                modes
                    .iter()
                    .map(|c| c.zero_modes as i64)
                    .collect::<Vec<_>>(),
                "1",
                "modes with omega2 = 0 (cart translations)",
            )
            .attr("labels", labels.join(","));
        crate::store::cart::cart_model(&mut g, &self.sys);
        g
    }

    fn summary(&self) -> serde_json::Value {
        json!({
            "equilibria": self.modes.iter().map(|m| json!({
                "equilibrium": m.equilibrium,
                "omega2": m.omega2,
                "frequencies": m.frequencies.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
                "growth_rates": m.growth_rates,
                "zero_modes": m.zero_modes,
                "unstable": m.unstable,
                "stable": m.stable,
                "controllable": m.controllable,
                "controllability_margin": m.controllability_margin,
            })).collect::<Vec<_>>(),
        })
    }

    /// One block per equilibrium.
    fn report(&self) -> String {
        let mut s = String::new();
        for m in &self.modes {
            let _ = writeln!(
                s,
                "equilibrium {}  ({} unstable, {} zero modes; {}stable, {}controllable, margin {})",
                m.equilibrium,
                m.unstable,
                m.zero_modes,
                if m.stable { "" } else { "not " },
                if m.controllable { "" } else { "not " },
                num(m.controllability_margin)
            );
            let _ = writeln!(
                s,
                "  mode  {:>18}  {:>16}",
                "omega^2 / (rad/s)^2", "omega / (rad/s)"
            );
            for (i, (w2, w)) in m.omega2.iter().zip(&m.frequencies).enumerate() {
                let _ = writeln!(s, "  {:>4}  {:>18}  {:>16}", i + 1, num(*w2), num(*w));
            }
        }
        s
    }

    /// The kind, title and model (`cart-chain`) only, as the cart chain's modes always said.
    fn run_fields(&self) -> &'static [&'static str] {
        &["kind", "title", "model"]
    }
}

impl Found for CartChainModes {
    /// Never asked for: the front end refuses `--plot` for the cart chain before the run.
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        Err(PlotError::Draw {
            path: path.to_path_buf(),
            message: "the cart-chain figure is drawn for simulate and control".into(),
        })
    }
}
