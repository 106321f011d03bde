//! The planar chain in canonical coordinates `(θ, p)`, `p = M(θ) θ̇` (docs/physics.md §1–2).
//!
//! Symplectic integrators (Gauss–Legendre) are symplectic only in canonical coordinates, so this
//! view of a [`Chain`] exists for them. With `H(θ, p) = ½ pᵀ M⁻¹(θ) p + V(θ)` and ω = M⁻¹ p,
//! `∂M_lk/∂θ_j = −a_lk sin(θ_l − θ_k)(δ_lj − δ_kj)` gives `½ ωᵀ (∂M/∂θ_j) ω = −Σ_k a_jk sin_jk ω_j ω_k`,
//! so Hamilton's equations with the generalized forces Q read
//!
//! ```text
//! θ̇_j = ω_j,    ω = M⁻¹(θ) p
//! ṗ_j = −ω_j Σ_k a_jk sin(θ_j − θ_k) ω_k − b_j (g_y sin θ_j + g_x cos θ_j) + τ(t) δ_j1 − (D ω)_j
//! ```
//!
//! where `(g_x, g_y) = (s̈_x, g + s̈_y)` folds a moving pivot into gravity exactly as [`Chain`]
//! does. Energy and power are the chain's, so `E(t) − E(0) = ∫ θ̇·Q dt` holds in both views.

// Numerical kernels index several parallel buffers with one counter; iterator chains over
// four or five zipped slices would hide the formulas they implement.
#![allow(clippy::needless_range_loop)]

use super::chain::small::{inverse_spd, mat_vec, SMALL_MAX_LINKS};
use super::chain::{couplings, Chain};
use super::linalg::{cholesky_in_place, cholesky_solve};
use super::System;

/// [`Chain`] seen in canonical coordinates: state `y = (θ_1..θ_N, p_1..p_N)`.
///
/// Convert states with [`Chain::to_canonical`] and [`Chain::from_canonical`].
#[derive(Debug, Clone, Copy)]
pub struct Canonical<'a>(pub &'a Chain);

/// Scratch memory of [`Canonical`]'s right-hand side and tangent block.
#[derive(Debug, Clone)]
pub struct CanonicalWorkspace {
    s: Vec<f64>,
    c: Vec<f64>,
    /// Cholesky factor of M(θ).
    l: Vec<f64>,
    omega: Vec<f64>,
    pdot: Vec<f64>,
    /// `δ(M) ω = A δθ`.
    am: Vec<f64>,
    /// `∂ṗ/∂θ` at fixed ω.
    g: Vec<f64>,
    /// `∂ṗ/∂ω` at fixed θ (damping included).
    h: Vec<f64>,
    /// Damping matrix D (row-major), copied once so the hot path needs no allocation.
    d: Vec<f64>,
    damped: bool,
}

impl Canonical<'_> {
    /// Effective gravity (g_x, g_y) = (s̈_x, g + s̈_y) in the pivot's frame.
    #[inline]
    fn effective_gravity(&self, t: f64) -> (f64, f64) {
        let p = self.0.params();
        match &p.drive.pivot {
            Some(pm) => {
                let acc = pm.acceleration(t);
                (acc[0], p.gravity + acc[1])
            }
            None => (0.0, p.gravity),
        }
    }

    /// sin/cos, Cholesky of M(θ), ω = M⁻¹p and ṗ, all left in the workspace.
    #[inline]
    fn dynamics(&self, t: f64, y: &[f64], ws: &mut CanonicalWorkspace) {
        let chain = self.0;
        let n = chain.links();
        let a = chain.a();
        let b = chain.b();
        let (theta, p) = y.split_at(n);
        for j in 0..n {
            let (s, c) = theta[j].sin_cos();
            ws.s[j] = s;
            ws.c[j] = c;
        }
        for j in 0..n {
            for k in 0..n {
                ws.l[j * n + k] = a[j * n + k] * (ws.c[j] * ws.c[k] + ws.s[j] * ws.s[k]);
            }
        }
        // M is SPD for every θ; a NaN state is caught by the integrators' finiteness check.
        let _ = cholesky_in_place(&mut ws.l, n);
        ws.omega.copy_from_slice(p);
        cholesky_solve(&ws.l, n, &mut ws.omega);
        let (gx, gy) = self.effective_gravity(t);
        let omega = &ws.omega;
        for j in 0..n {
            let (sj, cj) = (ws.s[j], ws.c[j]);
            let mut acc = 0.0;
            for k in 0..n {
                if k != j {
                    let sjk = sj * ws.c[k] - cj * ws.s[k];
                    acc += a[j * n + k] * sjk * omega[k];
                }
            }
            ws.pdot[j] = -omega[j] * acc - b[j] * (gy * sj + gx * cj);
        }
        if ws.damped {
            for j in 0..n {
                let mut s = 0.0;
                for k in 0..n {
                    s += ws.d[j * n + k] * omega[k];
                }
                ws.pdot[j] -= s;
            }
        }
        if let Some(tq) = &chain.params().drive.torque {
            ws.pdot[0] += tq.value(t);
        }
    }
}

impl Canonical<'_> {
    /// `rhs` for a chain of exactly N ≤ [`SMALL_MAX_LINKS`] links: the same equations as
    /// [`Canonical::dynamics`], with ω = M⁻¹p by the closed-form inverse of
    /// [`inverse_spd`] instead of a Cholesky factor and every loop over a compile-time bound
    /// (the Gauss–Legendre frequency map evaluates this ~30 times a step; issue 33). M is a
    /// Gram matrix whose condition number the link parameters bound, so the explicit inverse
    /// agrees with the Cholesky route to ~1e-15 relative (tested to 1e-12).
    #[inline]
    fn small_rhs<const N: usize>(
        &self,
        t: f64,
        y: &[f64],
        dy: &mut [f64],
        ws: &mut CanonicalWorkspace,
    ) {
        let chain = self.0;
        let a: &[f64] = &chain.a()[..N * N];
        let b: &[f64] = &chain.b()[..N];
        let theta: &[f64; N] = y[..N].try_into().expect("state length");
        let p: &[f64; N] = y[N..2 * N].try_into().expect("state length");
        let mut s = [0.0; N];
        let mut c = [0.0; N];
        for j in 0..N {
            (s[j], c[j]) = theta[j].sin_cos();
        }
        let mut m = [[0.0; N]; N];
        let mut sd = [[0.0; N]; N];
        for j in 0..N {
            m[j][j] = a[j * N + j];
            for k in (j + 1)..N {
                let ajk = a[j * N + k];
                m[j][k] = ajk * (c[j] * c[k] + s[j] * s[k]);
                m[k][j] = m[j][k];
                // a_jk sin(θ_j − θ_k), antisymmetric.
                sd[j][k] = ajk * (s[j] * c[k] - c[j] * s[k]);
                sd[k][j] = -sd[j][k];
            }
        }
        let omega = mat_vec(&inverse_spd(&m), p);
        let (gx, gy) = self.effective_gravity(t);
        let mut pdot = [0.0; N];
        for j in 0..N {
            let mut acc = 0.0;
            for k in 0..N {
                acc += sd[j][k] * omega[k];
            }
            pdot[j] = -omega[j] * acc - b[j] * (gy * s[j] + gx * c[j]);
        }
        if ws.damped {
            for j in 0..N {
                let mut acc = 0.0;
                for k in 0..N {
                    acc += ws.d[j * N + k] * omega[k];
                }
                pdot[j] -= acc;
            }
        }
        if let Some(tq) = &chain.params().drive.torque {
            pdot[0] += tq.value(t);
        }
        dy[..N].copy_from_slice(&omega);
        dy[N..2 * N].copy_from_slice(&pdot);
    }
}

impl System for Canonical<'_> {
    type Workspace = CanonicalWorkspace;

    fn dim(&self) -> usize {
        2 * self.0.links()
    }

    fn workspace(&self) -> CanonicalWorkspace {
        let n = self.0.links();
        let d = self.0.damping_matrix();
        let damped = d.iter().any(|&v| v != 0.0);
        CanonicalWorkspace {
            s: vec![0.0; n],
            c: vec![0.0; n],
            l: vec![0.0; n * n],
            omega: vec![0.0; n],
            pdot: vec![0.0; n],
            am: vec![0.0; n * n],
            g: vec![0.0; n * n],
            h: vec![0.0; n * n],
            d,
            damped,
        }
    }

    /// Chains of up to [`SMALL_MAX_LINKS`] links take [`Canonical::small_rhs`] (the Gauss
    /// map's hot path); longer ones the Cholesky route.
    fn rhs(&self, t: f64, y: &[f64], dy: &mut [f64], ws: &mut CanonicalWorkspace) {
        let n = self.0.links();
        match n {
            1 => return self.small_rhs::<1>(t, y, dy, ws),
            2 => return self.small_rhs::<2>(t, y, dy, ws),
            3 => return self.small_rhs::<3>(t, y, dy, ws),
            _ => debug_assert!(n > SMALL_MAX_LINKS),
        }
        self.dynamics(t, y, ws);
        dy[..n].copy_from_slice(&ws.omega);
        dy[n..].copy_from_slice(&ws.pdot);
    }

    /// The exact Jacobian, one Cholesky factor shared by the state and every column:
    ///
    /// ```text
    /// δω  = M⁻¹ (δp − A δθ),   A_lk = a_lk sin_lk ω_k (k ≠ l),  A_ll = −Σ_{k≠l} A_lk
    /// δṗ  = G δθ + H δω
    /// G_jk = a_jk cos_jk ω_j ω_k (k ≠ j),  G_jj = −Σ_{k≠j} G_jk − b_j (g_y cos θ_j − g_x sin θ_j)
    /// H_jk = −a_jk sin_jk ω_j (k ≠ j),     H_jj = A_jj,   then H −= D
    /// ```
    ///
    /// (`H + D = Aᵀ`, which is what makes the conservative flow Hamiltonian.)
    fn rhs_tangent(
        &self,
        t: f64,
        y: &[f64],
        v: &[f64],
        dy: &mut [f64],
        dv: &mut [f64],
        ws: &mut CanonicalWorkspace,
    ) {
        let chain = self.0;
        let n = chain.links();
        let dim = 2 * n;
        let a = chain.a();
        let b = chain.b();
        self.dynamics(t, y, ws);
        // f by the route `rhs` takes (the closed-form M⁻¹ of ≤ 3 links), so that a run with
        // deviation vectors has the bits of one without; the tangent below is built from the
        // Cholesky route's ω, which agrees to ~1e-15.
        match n {
            1 => self.small_rhs::<1>(t, y, dy, ws),
            2 => self.small_rhs::<2>(t, y, dy, ws),
            3 => self.small_rhs::<3>(t, y, dy, ws),
            _ => {
                dy[..n].copy_from_slice(&ws.omega);
                dy[n..].copy_from_slice(&ws.pdot);
            }
        }
        let (gx, gy) = self.effective_gravity(t);
        for j in 0..n {
            let (sj, cj) = (ws.s[j], ws.c[j]);
            let wj = ws.omega[j];
            let mut am_diag = 0.0;
            let mut g_diag = 0.0;
            for (k, ajk, sjk, cjk) in couplings(a, &ws.s, &ws.c, j) {
                let wk = ws.omega[k];
                let am = ajk * sjk * wk;
                ws.am[j * n + k] = am;
                am_diag += am;
                let g = ajk * cjk * wj * wk;
                ws.g[j * n + k] = g;
                g_diag += g;
                ws.h[j * n + k] = -ajk * sjk * wj;
            }
            ws.am[j * n + j] = -am_diag;
            ws.g[j * n + j] = -g_diag - b[j] * (gy * cj - gx * sj);
            ws.h[j * n + j] = -am_diag;
        }
        if ws.damped {
            for (h, d) in ws.h.iter_mut().zip(&ws.d) {
                *h -= d;
            }
        }
        for (vc, dvc) in v.chunks_exact(dim).zip(dv.chunks_exact_mut(dim)) {
            let (vth, vp) = vc.split_at(n);
            let (dth, dp) = dvc.split_at_mut(n);
            // δω into dth: M⁻¹ (δp − A δθ).
            for j in 0..n {
                let row = &ws.am[j * n..(j + 1) * n];
                let mut s = vp[j];
                for k in 0..n {
                    s -= row[k] * vth[k];
                }
                dth[j] = s;
            }
            cholesky_solve(&ws.l, n, dth);
            for j in 0..n {
                let gr = &ws.g[j * n..(j + 1) * n];
                let hr = &ws.h[j * n..(j + 1) * n];
                let mut s = 0.0;
                for k in 0..n {
                    s += gr[k] * vth[k] + hr[k] * dth[k];
                }
                dp[j] = s;
            }
        }
    }

    /// `E = ½ pᵀ ω + V(θ)`, equal to the chain's energy at `(θ, ω)` (allocates).
    fn energy(&self, t: f64, y: &[f64]) -> f64 {
        self.0.energy(t, &self.0.from_canonical(y))
    }

    /// `θ̇ · Q`, the chain's power at `(θ, ω)` (allocates).
    fn power(&self, t: f64, y: &[f64]) -> f64 {
        self.0.power(t, &self.0.from_canonical(y))
    }

    fn non_conservative(&self) -> bool {
        self.0.non_conservative()
    }

    fn energy_scale(&self, e0: f64) -> f64 {
        self.0.energy_scale(e0)
    }

    fn angles(&self) -> usize {
        self.0.links()
    }

    fn component_name(&self, i: usize) -> String {
        let n = self.0.links();
        if i < n {
            format!("theta[{}]", i + 1)
        } else {
            format!("p[{}]", i - n + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChainParams, Damping, Drive, Harmonic, Link, PivotMotion};

    fn forced(links: Vec<Link>) -> Chain {
        let n = links.len();
        let mut p = ChainParams::new(links);
        p.damping = Damping {
            absolute: (0..n).map(|j| 0.05 + 0.01 * j as f64).collect(),
            joint: (0..n).map(|j| 0.03 + 0.02 * j as f64).collect(),
        };
        p.drive = Drive {
            torque: Some(Harmonic {
                amplitude: 0.7,
                frequency: 2.3,
                phase: 0.4,
            }),
            pivot: Some(PivotMotion {
                x_amplitude: 0.02,
                y_amplitude: 0.05,
                frequency: 7.0,
                phase: 0.1,
            }),
        };
        Chain::new(p).unwrap()
    }

    fn state(n: usize) -> Vec<f64> {
        (0..2 * n)
            .map(|i| 0.3 + 0.7 * (i as f64 * 1.7).sin() + 0.2 * i as f64)
            .collect()
    }

    /// The closed-form small-N route agrees with the Cholesky route (damped, driven chains).
    #[test]
    fn small_route_matches_cholesky_route() {
        for links in [
            vec![Link::point(1.0, 1.0)],
            vec![Link::rod(0.8, 1.3), Link::point(1.1, 0.6)],
            vec![Link::point(1.0, 1.0); 3],
        ] {
            let chain = forced(links);
            let n = chain.links();
            let y = chain.to_canonical(&state(n));
            let can = Canonical(&chain);
            let mut ws = can.workspace();
            let mut dy = vec![0.0; 2 * n];
            can.rhs(0.37, &y, &mut dy, &mut ws);
            can.dynamics(0.37, &y, &mut ws);
            let want: Vec<f64> = ws.omega.iter().chain(&ws.pdot).copied().collect();
            for (g, w) in dy.iter().zip(&want) {
                assert!(
                    (g - w).abs() < 1e-12 * (1.0 + w.abs()),
                    "{dy:?} vs {want:?}"
                );
            }
        }
    }

    /// θ̇ from the canonical view equals the chain's ω, and ṗ equals d/dt (M ω) along the flow.
    #[test]
    fn matches_chain_rhs() {
        for links in [
            vec![Link::point(1.0, 1.0); 3],
            vec![Link::rod(0.8, 1.3), Link::point(1.1, 0.6)],
        ] {
            let chain = forced(links);
            let n = chain.links();
            let x = state(n);
            let t = 0.37;
            let y = chain.to_canonical(&x);
            let can = Canonical(&chain);
            let mut ws = can.workspace();
            let mut dy = vec![0.0; 2 * n];
            can.rhs(t, &y, &mut dy, &mut ws);
            for j in 0..n {
                assert!((dy[j] - x[n + j]).abs() < 1e-12);
            }
            // ṗ = d/dt (M(θ(t)) ω(t)) by a central difference along the chain's own flow.
            let mut cws = chain.workspace();
            let mut dx = vec![0.0; 2 * n];
            chain.rhs(t, &x, &mut dx, &mut cws);
            let eps = 1e-6;
            let shifted = |sgn: f64| {
                let xs: Vec<f64> = x.iter().zip(&dx).map(|(a, b)| a + sgn * eps * b).collect();
                chain.to_canonical(&xs)
            };
            let (yp, ym) = (shifted(1.0), shifted(-1.0));
            for j in 0..n {
                let fd = (yp[n + j] - ym[n + j]) / (2.0 * eps);
                assert!(
                    (fd - dy[n + j]).abs() < 1e-7 * (1.0 + fd.abs()),
                    "pdot[{j}]: fd {fd} vs {}",
                    dy[n + j]
                );
            }
        }
    }
}
