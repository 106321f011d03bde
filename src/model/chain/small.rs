//! Fixed-size kernels for chains of one to three links on the dense route (issue 8, item 2).
//!
//! The same equations as the general dense route (`Chain::dynamics`, `rhs_tangent`), with every
//! loop over a compile-time bound so that the compiler unrolls it and keeps the state in
//! registers, sin/cos of the differences from the per-link sin/cos (no extra transcendental),
//! and M(θ)⁻¹ in closed form (adjugate over determinant) instead of a Cholesky factor: each of
//! the 2N tangent columns then costs one N × N multiply instead of two triangular solves with N
//! divisions. M is a Gram matrix with condition number bounded by the link parameters, so the
//! explicit inverse loses nothing measurable against the Cholesky route (tested to 1e-12).

use super::{Chain, ChainWorkspace};

/// Largest N served by these kernels.
pub(crate) const SMALL_MAX_LINKS: usize = 3;

/// What one evaluation leaves for the tangent block.
struct Eval<const N: usize> {
    /// Effective gravity (g_x, g_y) at t.
    g: (f64, f64),
    s: [f64; N],
    c: [f64; N],
    minv: [[f64; N]; N],
    alpha: [f64; N],
}

/// The inverse of a symmetric positive definite N × N matrix, N ≤ 3, by its adjugate.
#[inline(always)]
pub(crate) fn inverse_spd<const N: usize>(m: &[[f64; N]; N]) -> [[f64; N]; N] {
    let mut r = [[0.0; N]; N];
    match N {
        1 => r[0][0] = 1.0 / m[0][0],
        2 => {
            let inv_det = 1.0 / (m[0][0] * m[1][1] - m[0][1] * m[0][1]);
            r[0][0] = m[1][1] * inv_det;
            r[1][1] = m[0][0] * inv_det;
            r[0][1] = -m[0][1] * inv_det;
            r[1][0] = r[0][1];
        }
        3 => {
            let (a, b, c) = (m[0][0], m[0][1], m[0][2]);
            let (d, e, f) = (m[1][1], m[1][2], m[2][2]);
            let c00 = d * f - e * e;
            let c01 = c * e - b * f;
            let c02 = b * e - c * d;
            let inv_det = 1.0 / (a * c00 + b * c01 + c * c02);
            r[0][0] = c00 * inv_det;
            r[0][1] = c01 * inv_det;
            r[0][2] = c02 * inv_det;
            r[1][1] = (a * f - c * c) * inv_det;
            r[1][2] = (b * c - a * e) * inv_det;
            r[2][2] = (a * d - b * b) * inv_det;
            r[1][0] = r[0][1];
            r[2][0] = r[0][2];
            r[2][1] = r[1][2];
        }
        _ => unreachable!("small kernels serve N ≤ {SMALL_MAX_LINKS}"),
    }
    r
}

/// `m x`, each row's sum started from 0 and taken in column order.
#[inline(always)]
pub(crate) fn mat_vec<const N: usize>(m: &[[f64; N]; N], x: &[f64; N]) -> [f64; N] {
    let mut y = [0.0; N];
    for j in 0..N {
        let mut s = 0.0;
        for k in 0..N {
            s += m[j][k] * x[k];
        }
        y[j] = s;
    }
    y
}

/// M(θ) and F without damping and torque for N links, from the per-link sin/cos `s`, `c`
/// (the differences by their angle-difference formulas): `M_jk = a_jk cos(θ_j − θ_k)` and
/// `F_j = −Σ_k a_jk sin(θ_j − θ_k) ω_k² − b_j (g_y sin θ_j + g_x cos θ_j)`, with `a` row-major
/// N × N and `(gx, gy)` the effective gravity. The three-link lanes build theirs with it too.
#[inline(always)]
pub(crate) fn mass_and_force<const N: usize>(
    a: &[f64],
    b: &[f64],
    (gx, gy): (f64, f64),
    s: &[f64; N],
    c: &[f64; N],
    omega: &[f64; N],
) -> ([[f64; N]; N], [f64; N]) {
    let mut m = [[0.0; N]; N];
    let mut f = [0.0; N];
    for j in 0..N {
        m[j][j] = a[j * N + j];
        f[j] -= b[j] * (gy * s[j] + gx * c[j]);
        for k in (j + 1)..N {
            let ajk = a[j * N + k];
            let cjk = c[j] * c[k] + s[j] * s[k];
            let sjk = s[j] * c[k] - c[j] * s[k];
            m[j][k] = ajk * cjk;
            m[k][j] = m[j][k];
            f[j] -= ajk * sjk * omega[k] * omega[k];
            f[k] += ajk * sjk * omega[j] * omega[j];
        }
    }
    (m, f)
}

impl Chain {
    /// sin/cos, M(θ)⁻¹ and α = M⁻¹F for a chain of exactly N links.
    #[inline(always)]
    fn small_eval<const N: usize>(&self, t: f64, x: &[f64], ws: &mut ChainWorkspace) -> Eval<N> {
        let theta: &[f64; N] = x[..N].try_into().expect("state length");
        let omega: &[f64; N] = x[N..2 * N].try_into().expect("state length");
        let a: &[f64] = &self.a()[..N * N];
        let mut s = [0.0; N];
        let mut c = [0.0; N];
        for j in 0..N {
            (s[j], c[j]) = theta[j].sin_cos();
        }
        let (gx, gy) = self.effective_gravity_cached(t, &mut ws.pivot_cos);
        let (m, mut f) = mass_and_force(a, &self.b, (gx, gy), &s, &c, omega);
        let tau = self.torque_cached(t, &mut ws.torque_cos);
        self.add_damping_and_torque(tau, omega, &mut f);
        let minv = inverse_spd(&m);
        let alpha = mat_vec(&minv, &f);
        Eval {
            g: (gx, gy),
            s,
            c,
            minv,
            alpha,
        }
    }

    /// `rhs` for N ≤ [`SMALL_MAX_LINKS`] links.
    #[inline]
    pub(super) fn small_rhs<const N: usize>(
        &self,
        t: f64,
        x: &[f64],
        dx: &mut [f64],
        ws: &mut ChainWorkspace,
    ) {
        let e = self.small_eval::<N>(t, x, ws);
        dx[..N].copy_from_slice(&x[N..2 * N]);
        dx[N..2 * N].copy_from_slice(&e.alpha);
    }

    /// `rhs_tangent` for N ≤ [`SMALL_MAX_LINKS`] links: the same G and H as the general route.
    /// Takes the state and its derivative, then the deviation vectors and theirs.
    #[inline]
    pub(super) fn small_rhs_tangent<const N: usize>(
        &self,
        t: f64,
        x: &[f64],
        dx: &mut [f64],
        v: &[f64],
        dv: &mut [f64],
        ws: &mut ChainWorkspace,
    ) {
        let e = self.small_eval::<N>(t, x, ws);
        let omega: &[f64; N] = x[N..2 * N].try_into().expect("state length");
        dx[..N].copy_from_slice(omega);
        dx[N..2 * N].copy_from_slice(&e.alpha);
        let (gx, gy) = e.g;
        let a: &[f64] = &self.a()[..N * N];
        let (s, c) = (&e.s, &e.c);
        let mut g = [[0.0; N]; N];
        let mut h = [[0.0; N]; N];
        for j in 0..N {
            g[j][j] -= self.b[j] * (gy * c[j] - gx * s[j]);
            for k in (j + 1)..N {
                let ajk = a[j * N + k];
                let cjk = c[j] * c[k] + s[j] * s[k];
                let sjk = s[j] * c[k] - c[j] * s[k];
                let gjk = ajk * (cjk * omega[k] * omega[k] - sjk * e.alpha[k]);
                let gkj = ajk * (cjk * omega[j] * omega[j] + sjk * e.alpha[j]);
                g[j][k] = gjk;
                g[k][j] = gkj;
                g[j][j] -= gjk;
                g[k][k] -= gkj;
                h[j][k] = -2.0 * ajk * sjk * omega[k];
                h[k][j] = 2.0 * ajk * sjk * omega[j];
            }
        }
        if self.damped {
            for j in 0..N {
                h[j][j] -= self.d_diag[j];
                if j + 1 < N {
                    h[j][j + 1] -= self.d_off[j];
                    h[j + 1][j] -= self.d_off[j];
                }
            }
        }
        for (vc, dvc) in v.chunks_exact(2 * N).zip(dv.chunks_exact_mut(2 * N)) {
            let vth: &[f64; N] = vc[..N].try_into().expect("column length");
            let vom: &[f64; N] = vc[N..].try_into().expect("column length");
            let mut r = [0.0; N];
            for j in 0..N {
                let mut acc = 0.0;
                for k in 0..N {
                    acc += g[j][k] * vth[k] + h[j][k] * vom[k];
                }
                r[j] = acc;
            }
            dvc[..N].copy_from_slice(vom);
            dvc[N..].copy_from_slice(&mat_vec(&e.minv, &r));
        }
    }
}
