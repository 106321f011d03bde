//! The cart chain's spectrum on its constraint manifold: the group `lyapunov` with the
//! spectrum (the planar chain's layout), the initial state, the manifold's dimension and the
//! model's name. The cart chain has no planar run for the store to write beside it, so the
//! record holds its initial state itself.

use super::spectrum::spectrum_entries;
use crate::analysis::lyapunov::Lyapunov;
use crate::finding::Record;
use serde_json::json;

/// The group `lyapunov` of the cart chain's spectrum `spectrum` from `initial_state`, on a
/// constraint manifold of dimension `phase_space_dimension`.
pub(super) fn cart_record(
    spectrum: &Lyapunov,
    phase_space_dimension: usize,
    initial_state: &[f64],
) -> Record {
    let mut g = Record::new("lyapunov");
    spectrum_entries(&mut g, spectrum);
    // As `GroupWriter::initial_state` writes a planar run's.
    g.index(
        "state_component",
        initial_state.len(),
        "component of the state vector, in the model's coordinates (planar chain: theta_1..theta_N, then omega_1..omega_N)",
    )
    .var(
        "initial_state",
        &["state_component"],
        initial_state,
        "1",
        "initial state in the model's coordinates (rad and rad/s for a planar chain)",
    )
    .attr("phase_space_dimension", phase_space_dimension as i64)
    .attr("model", "cart-chain");
    g
}

/// The cart chain's spectrum's JSON summary (with its kind, model and title).
pub(super) fn cart_summary(
    spectrum: &Lyapunov,
    phase_space_dimension: usize,
    title: &str,
) -> serde_json::Value {
    let r = spectrum;
    json!({
        "kind": "lyapunov", "model": "cart-chain", "title": title,
        "phase_space_dimension": phase_space_dimension,
        "exponents": r.exponents, "standard_error": r.standard_error,
        "sum_exponents": r.sum, "pair_sums": r.pair_sums,
        "closest_to_zero": r.closest_to_zero,
        "relative_energy_drift": r.energy.relative_drift,
        "averaged_time": r.averaged_time, "counts": r.counts,
        "complete": r.complete,
    })
}
