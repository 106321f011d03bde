//! The cart chain's spectrum on its constraint manifold: the group `lyapunov` with the
//! spectrum (the planar chain's layout), the initial state, the manifold's dimension and the
//! model's name. The cart chain has no planar run for the store to write beside it, so the
//! record holds its initial state itself.

use super::spectrum::{spectrum_entries, spectrum_scalars, spectrum_text};
use crate::analysis::lyapunov::Lyapunov;
use crate::finding::{Finding, Record, Scalar};
use crate::kinds::Found;
use crate::plot::PlotError;
use serde_json::json;
use std::path::Path;

/// The cart chain's spectrum.
#[derive(Debug, Clone)]
pub struct CartSpectrumResult {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    /// The dimension of the constraint manifold the spectrum is of.
    pub phase_space_dimension: usize,
    pub initial_state: Vec<f64>,
    pub spectrum: Lyapunov,
}

impl Finding for CartSpectrumResult {
    fn group(&self) -> &'static str {
        "lyapunov"
    }

    fn complete(&self) -> bool {
        self.spectrum.complete
    }

    fn record(&self) -> Record {
        let mut g = Record::new("lyapunov");
        spectrum_entries(&mut g, &self.spectrum);
        // As `GroupWriter::initial_state` writes a planar run's.
        g.index(
            "state_component",
            self.initial_state.len(),
            "component of the state vector, in the model's coordinates (planar chain: theta_1..theta_N, then omega_1..omega_N)",
        )
        .var(
            "initial_state",
            &["state_component"],
            self.initial_state.as_slice(),
            "1",
            "initial state in the model's coordinates (rad and rad/s for a planar chain)",
        )
        .attr("phase_space_dimension", self.phase_space_dimension as i64)
        .attr("model", "cart-chain");
        g
    }

    fn summary(&self) -> serde_json::Value {
        let r = &self.spectrum;
        json!({
            "kind": "lyapunov", "model": "cart-chain", "title": self.title,
            "phase_space_dimension": self.phase_space_dimension,
            "exponents": r.exponents, "standard_error": r.standard_error,
            "sum_exponents": r.sum, "pair_sums": r.pair_sums,
            "closest_to_zero": r.closest_to_zero,
            "relative_energy_drift": r.energy.relative_drift,
            "averaged_time": r.averaged_time, "counts": r.counts,
            "complete": r.complete,
        })
    }

    fn report(&self) -> String {
        spectrum_text(&self.spectrum)
    }

    fn scalars(&self) -> Vec<Scalar> {
        spectrum_scalars(&self.spectrum)
    }

    fn run_fields(&self) -> &'static [&'static str] {
        super::RUN_FIELDS
    }
}

impl Found for CartSpectrumResult {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_convergence(&self.spectrum, &self.title, path)
    }
}
