//! Phase-space volume: the check Σλ = ⟨tr J⟩ (Liouville; docs/physics.md §2).
//!
//! `Σ_i ln|R_ii|` over a run is `ln|det Φ(T)|`, and `d/dt ln|det Φ| = tr J` (Liouville's formula),
//! so `Σλ·T = ∫ tr J dt` for the flow (for RK4 to O(dt⁴), being the tangent of the discrete map).
//! When a model can split `tr J = dφ/dt + ψ` with a state function φ, the φ part is exact
//! (`[φ]₀ᵀ`) and only ψ needs a quadrature; for the planar chain in (θ, θ̇), `φ = −ln det M(θ)` and
//! `ψ = −tr(M⁻¹D)` (the damping part), and in canonical (θ, p), `φ = 0` and `ψ = −tr(M⁻¹D)`.

use crate::model::{Canonical, Chain, System};
pub use crate::model::{PhaseVolume, VolumeSplit};

/// Lower Cholesky factor of `M(θ)_jk = a_jk cos(θ_j − θ_k)` into `l` (n × n, row-major).
fn mass_cholesky(chain: &Chain, theta: &[f64], l: &mut [f64]) {
    let n = chain.links();
    let a = chain.a();
    for j in 0..n {
        for k in 0..n {
            l[j * n + k] = a[j * n + k] * (theta[j] - theta[k]).cos();
        }
    }
    for j in 0..n {
        let mut d = l[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in (j + 1)..n {
            let mut s = l[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
}

/// `−ln det M(θ) = −2 Σ ln L_jj`.
fn neg_ln_det_mass(chain: &Chain, theta: &[f64], scratch: &mut Vec<f64>) -> f64 {
    let n = chain.links();
    scratch.resize(n * n + n, 0.0);
    mass_cholesky(chain, theta, &mut scratch[..n * n]);
    -2.0 * (0..n).map(|j| scratch[j * n + j].ln()).sum::<f64>()
}

/// `−tr(M⁻¹D)`, D the (tridiagonal) damping matrix built from the chain's coefficients.
fn neg_trace_minv_d(chain: &Chain, theta: &[f64], scratch: &mut Vec<f64>) -> f64 {
    let n = chain.links();
    scratch.resize(n * n + n, 0.0);
    let (l, col) = scratch.split_at_mut(n * n);
    mass_cholesky(chain, theta, l);
    let damp = &chain.params().damping;
    let gamma = |j: usize| damp.absolute.get(j).copied().unwrap_or(0.0);
    let c = |j: usize| damp.joint.get(j).copied().unwrap_or(0.0);
    // D_jj = γ_j + c_j + c_{j+1}, D_{j,j−1} = D_{j−1,j} = −c_j.
    let d = |j: usize, k: usize| -> f64 {
        if j == k {
            gamma(j) + c(j) + if j + 1 < n { c(j + 1) } else { 0.0 }
        } else if j == k + 1 {
            -c(j)
        } else if k == j + 1 {
            -c(k)
        } else {
            0.0
        }
    };
    let mut tr = 0.0;
    for k in 0..n {
        // Column k of M⁻¹: solve L Lᵀ x = e_k.
        col.fill(0.0);
        col[k] = 1.0;
        for i in 0..n {
            let mut s = col[i];
            for q in 0..i {
                s -= l[i * n + q] * col[q];
            }
            col[i] = s / l[i * n + i];
        }
        for i in (0..n).rev() {
            let mut s = col[i];
            for q in (i + 1)..n {
                s -= l[q * n + i] * col[q];
            }
            col[i] = s / l[i * n + i];
        }
        // tr(M⁻¹D) = Σ_jk (M⁻¹)_jk D_kj; only |j − k| ≤ 1 contributes.
        let lo = k.saturating_sub(1);
        for (j, cj) in col.iter().enumerate().take((k + 2).min(n)).skip(lo) {
            tr += cj * d(k, j);
        }
    }
    -tr
}

fn damped(chain: &Chain) -> bool {
    !chain.params().damping.is_zero()
}

/// `tr J = tr(∂α/∂ω) = tr(M⁻¹(H₀ − D)) = d/dt(−ln det M) − tr(M⁻¹D)` (docs/physics.md §2; a pivot
/// drive or torque does not depend on θ̇ and adds nothing).
impl PhaseVolume for Chain {
    fn volume_split(&self) -> VolumeSplit {
        if damped(self) {
            VolumeSplit::PotentialAndDissipation
        } else {
            VolumeSplit::Potential
        }
    }
    fn volume_potential(&self, x: &[f64], scratch: &mut Vec<f64>) -> f64 {
        neg_ln_det_mass(self, &x[..self.links()], scratch)
    }
    fn volume_dissipation(&self, _t: f64, x: &[f64], scratch: &mut Vec<f64>) -> f64 {
        if damped(self) {
            neg_trace_minv_d(self, &x[..self.links()], scratch)
        } else {
            0.0
        }
    }
}

/// In (θ, p) the conservative flow is Hamiltonian (divergence-free): `tr J = −tr(M⁻¹D)`, φ = 0.
impl PhaseVolume for Canonical<'_> {
    fn volume_split(&self) -> VolumeSplit {
        if damped(self.0) {
            VolumeSplit::PotentialAndDissipation
        } else {
            VolumeSplit::Potential
        }
    }
    fn volume_dissipation(&self, _t: f64, y: &[f64], scratch: &mut Vec<f64>) -> f64 {
        if damped(self.0) {
            neg_trace_minv_d(self.0, &y[..self.0.links()], scratch)
        } else {
            0.0
        }
    }
}

/// tr J(t, x) through the tangent block on the identity (exact; one evaluation with n columns).
pub(crate) struct TraceProbe<S: System> {
    ws: S::Workspace,
    eye: Vec<f64>,
    dx: Vec<f64>,
    dv: Vec<f64>,
}

impl<S: System> TraceProbe<S> {
    pub(crate) fn new(sys: &S) -> Self {
        let n = sys.dim();
        let mut eye = vec![0.0; n * n];
        for i in 0..n {
            eye[i * n + i] = 1.0;
        }
        TraceProbe {
            ws: sys.workspace(),
            eye,
            dx: vec![0.0; n],
            dv: vec![0.0; n * n],
        }
    }
    pub(crate) fn trace(&mut self, sys: &S, t: f64, x: &[f64]) -> f64 {
        let n = sys.dim();
        sys.rhs_tangent(t, x, &self.eye, &mut self.dx, &mut self.dv, &mut self.ws);
        (0..n).map(|i| self.dv[i * n + i]).sum()
    }
}

/// Accumulates the volume check along a run.
pub(crate) struct VolumeTracker<S: System> {
    split: VolumeSplit,
    probe: Option<TraceProbe<S>>,
    scratch: Vec<f64>,
    phi0: f64,
    phi_last: f64,
    /// Trapezoidal ∫ of ψ (or of tr J when the split is unknown) over the averaging window.
    integral: f64,
    last: f64,
    started: bool,
}

impl<S: System + PhaseVolume> VolumeTracker<S> {
    pub(crate) fn new(sys: &S) -> Self {
        let split = sys.volume_split();
        VolumeTracker {
            split,
            probe: (split == VolumeSplit::Unknown).then(|| TraceProbe::new(sys)),
            scratch: Vec::new(),
            phi0: 0.0,
            phi_last: 0.0,
            integral: 0.0,
            last: 0.0,
            started: false,
        }
    }

    fn sample(&mut self, sys: &S, t: f64, x: &[f64]) -> f64 {
        match self.split {
            VolumeSplit::Unknown => self.probe.as_mut().unwrap().trace(sys, t, x),
            VolumeSplit::Potential => 0.0,
            VolumeSplit::PotentialAndDissipation => sys.volume_dissipation(t, x, &mut self.scratch),
        }
    }

    /// At the start of the averaging window.
    pub(crate) fn start(&mut self, sys: &S, t: f64, x: &[f64]) {
        if self.split != VolumeSplit::Unknown {
            self.phi0 = sys.volume_potential(x, &mut self.scratch);
            self.phi_last = self.phi0;
        }
        self.last = self.sample(sys, t, x);
        self.integral = 0.0;
        self.started = true;
    }

    /// At the end of each averaging interval of length `tau`.
    #[inline]
    pub(crate) fn interval(&mut self, sys: &S, t: f64, x: &[f64], tau: f64) {
        if self.split == VolumeSplit::Potential {
            return;
        }
        let v = self.sample(sys, t, x);
        self.integral += 0.5 * tau * (self.last + v);
        self.last = v;
    }

    /// The check over an averaged time `t_avg` ending at state `x` (NaN if nothing was averaged).
    pub(crate) fn finish(&mut self, sys: &S, x: &[f64], t_avg: f64) -> VolumeCheck {
        let per_time = |v: f64| if t_avg > 0.0 { v / t_avg } else { f64::NAN };
        if self.split == VolumeSplit::Unknown || !self.started {
            return VolumeCheck {
                split: self.split,
                trace_average: per_time(self.integral),
                boundary: None,
                dissipation_average: None,
            };
        }
        self.phi_last = sys.volume_potential(x, &mut self.scratch);
        let boundary = per_time(self.phi_last - self.phi0);
        let diss = per_time(self.integral);
        VolumeCheck {
            split: self.split,
            trace_average: boundary + diss,
            boundary: Some(boundary),
            dissipation_average: Some(diss),
        }
    }
}

/// The Liouville check of a spectrum: Σλ should equal `trace_average` (to the integrator's
/// accuracy for the flow; to O(τ²/T) from the trapezoidal rule where ψ or tr J is sampled).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct VolumeCheck {
    pub split: VolumeSplit,
    /// (1/T) ∫ tr J dt over the averaging window (1/s).
    pub trace_average: f64,
    /// `[φ]/T`, the exact boundary part (e.g. `−[ln det M]/T`), when the model splits tr J.
    pub boundary: Option<f64>,
    /// `⟨ψ⟩`, e.g. `−⟨tr(M⁻¹D)⟩` for a damped chain (0 for a conservative one).
    pub dissipation_average: Option<f64>,
}
