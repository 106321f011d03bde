//! O(N) kernels for the planar chain: mass-matrix factorization, solve, forces and the tangent
//! block, exploiting the rank-2 semiseparable structure of M(θ) (issue 8).
//!
//! **Structure.** For j > k, `M_jk = a_kj cos(θ_j − θ_k) = l_k b_j (c_j c_k + s_j s_k) = u_j·v_k`
//! with `u_j = b_j (c_j, s_j)`, `v_k = l_k (c_k, s_k)` (c = cos θ, s = sin θ); the diagonal
//! `a_jj` is free. So the lower triangle of M has generators of rank 2.
//!
//! **Cholesky.** With `S_k = Σ_{i<k} w_i w_iᵀ` (2×2) the factor has the same shape,
//! `L_jk = u_j·w_k` (j > k), where
//!
//! ```text
//! L_kk² = a_kk − u_kᵀ S_k u_k,      w_k = (v_k − S_k u_k) / L_kk
//! ```
//!
//! (from `M_jk = Σ_{i<k} L_ji L_ki + L_jk L_kk = u_jᵀ S_k u_k + L_kk u_j·w_k` for j ≥ k).
//! Forward and back substitution then carry a running 2-vector: `y_j = (f_j − u_j·Σ_{k<j} w_k
//! y_k)/L_jj`, `x_k = (y_k − w_k·Σ_{j>k} u_j x_j)/L_kk`.
//!
//! **Stability.** `u_kᵀ S_k u_k = Σ_{i<k} L_ki²` is a positive quadratic form. Its rounding error
//! is O(ε |u_k|² ‖S_k‖), and `|u_k|² ‖S_k‖ ≤ a_kk` because turning link k to the direction of
//! S_k's top eigenvector is another mass matrix of the same chain (S_k, a_kk and |u_k| do not
//! depend on θ_k), whose pivot L_kk² is still positive. So the pivots carry an O(ε a_kk) error,
//! as in the dense Cholesky; `tests/structured.rs` checks agreement with the dense route on long
//! chains with wound angles.
//!
//! **Forces and tangents.** Every sum `Σ_{k≠j} a_jk f(θ_j − θ_k) x_k` splits into k > j
//! (weight `l_j b_k`) and k < j (weight `l_k b_j`); expanding cos and sin of the difference into
//! products leaves suffix sums of `b_k (c_k, s_k) x_k` and prefix sums of `l_k (c_k, s_k) x_k`,
//! O(N) per vector.

/// Constant per-link data the kernels read: `l_j`, `b_j` and `a_jj`.
pub(super) struct Consts<'a> {
    pub l: &'a [f64],
    pub b: &'a [f64],
    pub d: &'a [f64],
}

/// Factor M(θ) = L Lᵀ from the link directions (c, s): writes the inverse pivots `ld` (1/L_kk,
/// so that the solves multiply) and the generators `w` of the columns of L. Returns `false` if a pivot is not positive.
#[inline]
pub(super) fn factor(
    k: &Consts,
    c: &[f64],
    s: &[f64],
    ld: &mut [f64],
    wx: &mut [f64],
    wy: &mut [f64],
) -> bool {
    let n = c.len();
    let (mut s00, mut s01, mut s11) = (0.0, 0.0, 0.0);
    let mut ok = true;
    for j in 0..n {
        let (ux, uy) = (k.b[j] * c[j], k.b[j] * s[j]);
        let (vx, vy) = (k.l[j] * c[j], k.l[j] * s[j]);
        let sux = s00 * ux + s01 * uy;
        let suy = s01 * ux + s11 * uy;
        let p = k.d[j] - (ux * sux + uy * suy);
        ok &= p > 0.0;
        let inv = 1.0 / p.sqrt();
        let (ax, ay) = ((vx - sux) * inv, (vy - suy) * inv);
        ld[j] = inv;
        wx[j] = ax;
        wy[j] = ay;
        s00 += ax * ax;
        s01 += ax * ay;
        s11 += ay * ay;
    }
    ok
}

/// Solves `L Lᵀ x = f` in place with the factor from [`factor`].
#[inline]
pub(super) fn solve(
    k: &Consts,
    c: &[f64],
    s: &[f64],
    ld: &[f64],
    wx: &[f64],
    wy: &[f64],
    x: &mut [f64],
) {
    let n = c.len();
    let (mut rx, mut ry) = (0.0, 0.0);
    for j in 0..n {
        let bj = k.b[j];
        let y = (x[j] - bj * (c[j] * rx + s[j] * ry)) * ld[j];
        x[j] = y;
        rx += wx[j] * y;
        ry += wy[j] * y;
    }
    let (mut qx, mut qy) = (0.0, 0.0);
    for j in (0..n).rev() {
        let xj = (x[j] - (wx[j] * qx + wy[j] * qy)) * ld[j];
        x[j] = xj;
        let bj = k.b[j];
        qx += bj * c[j] * xj;
        qy += bj * s[j] * xj;
    }
}

/// `f_j = −Σ_{k≠j} a_jk sin(θ_j − θ_k) x_k − b_j (g_y s_j + g_x c_j)`, written to `f`
/// (x_k = ω_k² for the forces of the equations of motion).
#[inline]
pub(super) fn forces(k: &Consts, c: &[f64], s: &[f64], x: &[f64], gx: f64, gy: f64, f: &mut [f64]) {
    let n = c.len();
    // k > j: l_j b_k (s_j c_k − c_j s_k) x_k.
    let (mut pc, mut ps) = (0.0, 0.0);
    for j in (0..n).rev() {
        f[j] = -k.l[j] * (s[j] * pc - c[j] * ps);
        let bx = k.b[j] * x[j];
        pc += bx * c[j];
        ps += bx * s[j];
    }
    // k < j: l_k b_j (s_j c_k − c_j s_k) x_k.
    let (mut pc, mut ps) = (0.0, 0.0);
    for j in 0..n {
        let bj = k.b[j];
        f[j] -= bj * (s[j] * pc - c[j] * ps) + bj * (gy * s[j] + gx * c[j]);
        let lx = k.l[j] * x[j];
        pc += lx * c[j];
        ps += lx * s[j];
    }
}

/// Per-evaluation quantities of the tangent block: with `P_k = c_k ω_k² + s_k α_k` and
/// `Q_k = s_k ω_k² − c_k α_k`, `G_jk = a_jk (c_j P_k + s_j Q_k)` for k ≠ j. Writes P, Q and the
/// diagonal `G_jj = −Σ_{k≠j} G_jk − b_j (g_y c_j − g_x s_j)` into `gd`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn tangent_setup(
    k: &Consts,
    c: &[f64],
    s: &[f64],
    omega: &[f64],
    alpha: &[f64],
    gx: f64,
    gy: f64,
    p: &mut [f64],
    q: &mut [f64],
    gd: &mut [f64],
) {
    let n = c.len();
    for j in 0..n {
        let w2 = omega[j] * omega[j];
        p[j] = c[j] * w2 + s[j] * alpha[j];
        q[j] = s[j] * w2 - c[j] * alpha[j];
    }
    let (mut sp, mut sq) = (0.0, 0.0);
    for j in (0..n).rev() {
        gd[j] = k.l[j] * (c[j] * sp + s[j] * sq);
        sp += k.b[j] * p[j];
        sq += k.b[j] * q[j];
    }
    let (mut sp, mut sq) = (0.0, 0.0);
    for j in 0..n {
        let bj = k.b[j];
        gd[j] = -(gd[j] + bj * (c[j] * sp + s[j] * sq)) - bj * (gy * c[j] - gx * s[j]);
        sp += k.l[j] * p[j];
        sq += k.l[j] * q[j];
    }
}

/// One tangent column: `out = G vθ + H vω` with `H_jk = −2 a_jk sin(θ_j − θ_k) ω_k` (k ≠ j),
/// `H_jj = 0`, damping excluded (the caller subtracts D vω).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn tangent_column(
    k: &Consts,
    c: &[f64],
    s: &[f64],
    omega: &[f64],
    p: &[f64],
    q: &[f64],
    gd: &[f64],
    vth: &[f64],
    vom: &[f64],
    out: &mut [f64],
) {
    let n = c.len();
    // Σ_{k>j} b_k (P_k vθ_k, Q_k vθ_k, c_k ω_k vω_k, s_k ω_k vω_k).
    let (mut ap, mut aq, mut hc, mut hs) = (0.0, 0.0, 0.0, 0.0);
    for j in (0..n).rev() {
        out[j] = k.l[j] * (c[j] * ap + s[j] * aq - 2.0 * (s[j] * hc - c[j] * hs));
        let bj = k.b[j];
        let bw = bj * omega[j] * vom[j];
        ap += bj * p[j] * vth[j];
        aq += bj * q[j] * vth[j];
        hc += bw * c[j];
        hs += bw * s[j];
    }
    let (mut ap, mut aq, mut hc, mut hs) = (0.0, 0.0, 0.0, 0.0);
    for j in 0..n {
        let bj = k.b[j];
        out[j] += bj * (c[j] * ap + s[j] * aq - 2.0 * (s[j] * hc - c[j] * hs)) + gd[j] * vth[j];
        let lj = k.l[j];
        let lw = lj * omega[j] * vom[j];
        ap += lj * p[j] * vth[j];
        aq += lj * q[j] * vth[j];
        hc += lw * c[j];
        hs += lw * s[j];
    }
}

/// Kinetic energy `½ Σ a_jj ω_j² + Σ_{j<k} l_j b_k cos(θ_j − θ_k) ω_j ω_k` by a prefix sum.
#[inline]
pub(super) fn kinetic_energy(k: &Consts, theta: &[f64], omega: &[f64]) -> f64 {
    let (mut t, mut px, mut py) = (0.0, 0.0, 0.0);
    for j in 0..theta.len() {
        let (s, c) = theta[j].sin_cos();
        let w = omega[j];
        t += 0.5 * k.d[j] * w * w + k.b[j] * w * (c * px + s * py);
        px += k.l[j] * c * w;
        py += k.l[j] * s * w;
    }
    t
}
