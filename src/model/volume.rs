//! What a model knows about its phase-space volume: the split `tr J = dφ/dt + ψ` that the
//! Lyapunov analyses use to check Σλ = ⟨tr J⟩ (Liouville; docs/physics.md §2). The planar chain's
//! implementations sit with that check, in `analysis::lyapunov::volume`.

use super::System;

/// What a model knows about `tr J = dφ/dt + ψ`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VolumeSplit {
    /// Nothing: Σλ is compared with the trapezoidal mean of tr J sampled at the QR times.
    Unknown,
    /// `tr J = dφ/dt` exactly (ψ ≡ 0): the check needs φ only at the ends.
    Potential,
    /// `tr J = dφ/dt + ψ`: φ at the ends, ψ by the trapezoidal rule on the QR times.
    PotentialAndDissipation,
}

/// Optional volume bookkeeping of a [`System`] for the Σλ check. All methods have defaults, so
/// `impl PhaseVolume for MySystem {}` is enough (tr J is then sampled through
/// [`System::rhs_tangent`] on the identity).
pub trait PhaseVolume: System {
    fn volume_split(&self) -> VolumeSplit {
        VolumeSplit::Unknown
    }
    /// φ(x). `scratch` is caller-owned and may be resized (allocates on first use only).
    fn volume_potential(&self, _x: &[f64], _scratch: &mut Vec<f64>) -> f64 {
        0.0
    }
    /// ψ(t, x).
    fn volume_dissipation(&self, _t: f64, _x: &[f64], _scratch: &mut Vec<f64>) -> f64 {
        0.0
    }
}
