//! Normal modes of point-like chains in O(N²): a symmetric tridiagonal reduction (issue 8, part 3).
//!
//! **When the structure holds.** `a_jk = l_j b_k` for j < k. If also `a_jj = l_j b_j` (the
//! diagonal continues the pattern), then with `β_k = b_k / l_k`
//!
//! ```text
//! M₀_jk = l_j l_k β_max(j,k),   β_max(j,k) = Σ_{i ≥ max(j,k)} m̃_i,   m̃_i = β_i − β_{i+1}
//! ```
//!
//! i.e. `M₀ = Λ E diag(m̃) Eᵀ Λ` with Λ = diag(l) and E the upper triangle of ones: a "min"
//! matrix, whose inverse is tridiagonal. `a_jj − l_j b_j = J_j + m_j c_j (c_j − l_j)`: zero for
//! point masses (c = l, J = 0) and for any link equivalent to two point masses at its joints
//! (J = m c (l − c)); a uniform rod gives −m l²/6, so rods and general links keep the dense route.
//! `m̃_i` is then the mass lumped at the lower joint of link i; it must be > 0.
//!
//! **Reduction.** At an equilibrium `M* = S M₀ S` (S = diag(s), s = ±1) and `K = g diag(b_j s_j)`.
//! With `M* = B Bᵀ`, `B = S Λ E diag(√m̃)`, the problem `K v = ω² M* v` becomes
//! `T y = ω² y`, `T = B⁻¹ K B⁻ᵀ`, `v = B⁻ᵀ y`. Since `E⁻¹` is bidiagonal and `S K S = K`,
//!
//! ```text
//! T = diag(m̃)^-½ E⁻¹ diag(κ) E⁻ᵀ diag(m̃)^-½,   κ_j = g β_j s_j / l_j,
//! T_ii = (κ_i + κ_{i+1}) / m̃_i,   T_{i,i+1} = −κ_{i+1} / √(m̃_i m̃_{i+1})   (κ_{N+1} = 0)
//! v_j = (s_j / l_j) (y_j / √m̃_j − y_{j−1} / √m̃_{j−1})
//! ```
//!
//! No square root of K is taken, so the signs of K at unstable equilibria need no care: T is
//! congruent to K (Sylvester) and similar to M*⁻¹K. Orthonormal y give M*-orthonormal v.
//!
//! **Eigen-solver.** At a stable equilibrium (D > 0 below) eigenvalues by dqds on the factored
//! form T = U D Uᵀ: one division per entry and sweep, no square roots, and every eigenvalue to
//! high relative accuracy, in about 2.2 transforms per eigenvalue ([`dqds`]). Elsewhere (or should dqds not converge) implicit QL with Wilkinson
//! shifts on T reversed (T is graded, large at the top; QL deflates from the top, so the reversal
//! lets the small eigenvalues converge first), with the small ones refined by bisection: O(N²)
//! either way. Eigenvectors by inverse iteration, O(N) per vector per iteration (tridiagonal LU
//! with partial pivoting), with Gram–Schmidt against the preceding vectors of a cluster
//! (consecutive gaps below `1e-5 ‖T‖`; at most 16 of them); clusters run in parallel. With D > 0, an
//! eigenvector whose relative gap is ≥ 1e-3 comes instead from one twisted factorization of the
//! factored form (MRRR's getvec): no pivoting, no iteration.

mod dqds;
mod twisted;

pub use dqds::dqds_eigenvalues;

use super::closed_form::laguerre_zeros;
use super::equilibrium::Equilibrium;
use crate::model::Chain;
use crate::observe::Cancel;
use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;
use twisted::{twisted_vectors, TwistScratch, TWIST_MIN_RELGAP};

/// The symmetric tridiagonal T of a point-like chain at an equilibrium, and what maps its
/// eigenvectors back to mode shapes.
#[derive(Debug, Clone)]
pub struct TridiagonalReduction {
    /// Diagonal and off-diagonal of T (rad²/s²).
    pub diag: Vec<f64>,
    pub off: Vec<f64>,
    signs: Vec<f64>,
    len: Vec<f64>,
    /// 1/√m̃_i.
    inv_sqrt_mass: Vec<f64>,
    /// T = U D Uᵀ, U unit upper bidiagonal (`udu_u[i] = U_{i,i+1} = −√(m̃_{i+1}/m̃_i)`),
    /// D = diag(κ_i/m̃_i): the factored form that fixes the small eigenvalues to high relative
    /// accuracy when D > 0 (T = Z Zᵀ, Z bidiagonal: Demmel–Kahan).
    udu_d: Vec<f64>,
    udu_u: Vec<f64>,
}

/// Gram–Schmidt against at most this many preceding vectors of a cluster: bounds the cost on
/// long chains, whose bottom clusters hold hundreds of modes (N = 10⁴); vectors further apart in
/// a cluster are separated enough for inverse iteration to keep them orthogonal (checked by
/// [`benchmark_m`]'s orthogonality figure).
const REORTH_WINDOW: usize = 16;

/// Relative tolerance for `a_jj = l_j b_j`.
const STRUCTURE_TOL: f64 = 8.0 * f64::EPSILON;

impl TridiagonalReduction {
    /// The reduction, or `None` when the chain's links are not point-like (see the module doc).
    pub fn new(chain: &Chain, eq: &Equilibrium) -> Option<TridiagonalReduction> {
        let n = chain.links();
        if eq.signs.len() != n {
            return None;
        }
        let (b, d) = (chain.b(), chain.a_diag());
        let len: Vec<f64> = chain.params().links.iter().map(|l| l.length).collect();
        for j in 0..n {
            if (d[j] - len[j] * b[j]).abs() > STRUCTURE_TOL * d[j] {
                return None;
            }
        }
        let beta: Vec<f64> = (0..n).map(|j| b[j] / len[j]).collect();
        let mut inv_sqrt_mass = vec![0.0; n];
        for i in 0..n {
            let mt = beta[i] - if i + 1 < n { beta[i + 1] } else { 0.0 };
            if mt.is_nan() || mt <= 0.0 {
                return None;
            }
            inv_sqrt_mass[i] = 1.0 / mt.sqrt();
        }
        let g = chain.gravity();
        let signs: Vec<f64> = eq.signs.iter().map(|&s| s as f64).collect();
        let kappa: Vec<f64> = (0..n).map(|j| g * beta[j] * signs[j] / len[j]).collect();
        let diag = (0..n)
            .map(|i| {
                let next = if i + 1 < n { kappa[i + 1] } else { 0.0 };
                (kappa[i] + next) * inv_sqrt_mass[i] * inv_sqrt_mass[i]
            })
            .collect();
        let off = (0..n.saturating_sub(1))
            .map(|i| -kappa[i + 1] * inv_sqrt_mass[i] * inv_sqrt_mass[i + 1])
            .collect();
        let udu_d = (0..n)
            .map(|i| kappa[i] * inv_sqrt_mass[i] * inv_sqrt_mass[i])
            .collect();
        let udu_u = (0..n.saturating_sub(1))
            .map(|i| -inv_sqrt_mass[i] / inv_sqrt_mass[i + 1])
            .collect();
        Some(TridiagonalReduction {
            diag,
            off,
            signs,
            len,
            inv_sqrt_mass,
            udu_d,
            udu_u,
        })
    }

    /// ω² ascending: dqds at a stable equilibrium ([`dqds_eigenvalues`]; every eigenvalue to
    /// high relative accuracy, which the physically interesting low modes of long chains need),
    /// QL elsewhere or should dqds not converge ([`Self::eigenvalues_ql`]).
    pub fn eigenvalues(&self) -> Vec<f64> {
        self.dqds().unwrap_or_else(|| self.eigenvalues_ql())
    }

    /// At a stable equilibrium (D > 0): dqds on `T = Z Zᵀ`, `Z = U D^½` (q_i = D_i,
    /// e_i = U_{i,i+1}² D_{i+1}), all eigenvalues to high relative accuracy. `None` elsewhere.
    fn dqds(&self) -> Option<Vec<f64>> {
        let (d, u) = (&self.udu_d, &self.udu_u);
        if !d.iter().all(|&x| x > 0.0) {
            return None;
        }
        let e: Vec<f64> = (0..u.len()).map(|i| u[i] * u[i] * d[i + 1]).collect();
        dqds_eigenvalues(d, &e)
    }

    /// The QL route that [`Self::eigenvalues`] falls back on. At a stable equilibrium the
    /// eigenvalues below 1e-3 ‖T‖, whose QL values carry an error ~ε‖T‖ that is large relative
    /// to them, are refined by bisection on Sturm counts of U D Uᵀ (stationary qd transform).
    pub fn eigenvalues_ql(&self) -> Vec<f64> {
        let mut w = tridiagonal_eigenvalues(&self.diag, &self.off);
        if self.udu_d.iter().all(|&d| d > 0.0) {
            self.refine_low(&mut w);
        }
        w
    }

    /// Number of eigenvalues of U D Uᵀ below σ: the signs of D⁺ in U D Uᵀ − σI = U⁺ D⁺ U⁺ᵀ,
    /// from the bottom up (differential stationary qd, dstqds).
    fn count_below(&self, sigma: f64) -> usize {
        let n = self.udu_d.len();
        let (d, u) = (&self.udu_d, &self.udu_u);
        let mut count = 0;
        let mut s = -sigma;
        for i in (1..n).rev() {
            let dp = d[i] + s;
            count += (dp < 0.0) as usize;
            let up = d[i] * u[i - 1] / dp;
            s = up * u[i - 1] * s - sigma;
        }
        count += (d[0] + s < 0.0) as usize;
        count
    }

    fn refine_low(&self, w: &mut [f64]) {
        let n = w.len();
        let norm = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let eps = f64::EPSILON;
        for k in 0..n {
            if w[k] >= 1e-3 * norm {
                break;
            }
            let mut delta = 8.0 * eps * norm;
            let (mut lo, mut hi);
            let mut tries = 0;
            loop {
                lo = w[k] - delta;
                hi = w[k] + delta;
                if (self.count_below(lo) <= k && self.count_below(hi) > k) || tries > 20 {
                    break;
                }
                delta *= 4.0;
                tries += 1;
            }
            while hi - lo > 2.0 * eps * lo.abs().max(hi.abs()) {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                if self.count_below(mid) > k {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            w[k] = 0.5 * (lo + hi);
        }
    }

    /// ω² ascending and the M*-orthonormal mode shapes (columns; largest component positive).
    pub fn eigen(&self) -> (Vec<f64>, DMatrix<f64>) {
        self.eigen_cancellable(&Cancel::never())
            .expect("a token that is never set stops nothing")
    }

    /// [`Self::eigen`], `None` when `cancel` stopped it: the eigenvalues (dqds or QL, one
    /// O(N²) call) are [`super::abandonable`], the eigenvectors poll the token one by one.
    pub fn eigen_cancellable(&self, cancel: &Cancel) -> Option<(Vec<f64>, DMatrix<f64>)> {
        let n = self.diag.len();
        let me = self.clone();
        let w = super::abandonable(n, cancel, move || me.eigenvalues())?;
        let rrr = self.udu_d.iter().all(|&x| x > 0.0);
        let rrr = rrr.then_some((self.udu_d.as_slice(), self.udu_u.as_slice()));
        let mut y = eigenvectors_with(&self.diag, &self.off, &w, rrr, cancel);
        if cancel.is_set() {
            return None;
        }
        // v_j = (s_j / l_j)(y_j / √m̃_j − y_{j−1} / √m̃_{j−1}), column by column in place.
        let sign_over_len: Vec<f64> = (0..n).map(|j| self.signs[j] / self.len[j]).collect();
        y.par_chunks_mut(n).for_each(|col| {
            let mut prev = 0.0;
            let mut big = 0.0f64;
            for j in 0..n {
                let z = col[j] * self.inv_sqrt_mass[j];
                col[j] = sign_over_len[j] * (z - prev);
                prev = z;
                if col[j].abs() > big.abs() {
                    big = col[j];
                }
            }
            if big < 0.0 {
                col.iter_mut().for_each(|x| *x = -*x);
            }
        });
        let v = DMatrix::from_vec(n, n, y);
        Some((w, v))
    }

    /// M* x in O(N): `S Λ E diag(m̃) Eᵀ Λ S x` by a prefix and a suffix sum.
    pub fn mass_times(&self, x: &[f64], out: &mut [f64]) {
        let n = x.len();
        let mut acc = 0.0;
        for j in 0..n {
            acc += self.signs[j] * self.len[j] * x[j];
            let im = self.inv_sqrt_mass[j];
            out[j] = acc / (im * im);
        }
        let mut acc = 0.0;
        for j in (0..n).rev() {
            acc += out[j];
            out[j] = self.signs[j] * self.len[j] * acc;
        }
    }
}

/// Eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal `d` and
/// off-diagonal `e`: implicit QL with Wilkinson shifts on the reversed matrix (see module doc).
pub fn tridiagonal_eigenvalues(d: &[f64], e: &[f64]) -> Vec<f64> {
    let n = d.len();
    let mut dd: Vec<f64> = d.iter().rev().copied().collect();
    let mut ee: Vec<f64> = e.iter().rev().copied().collect();
    ee.push(0.0);
    ql_implicit(&mut dd, &mut ee);
    dd.sort_by(f64::total_cmp);
    debug_assert_eq!(dd.len(), n);
    dd
}

/// Implicit QL (Numerical Recipes' tqli, values only); `e[i]` couples i and i+1, `e[n−1] = 0`.
fn ql_implicit(d: &mut [f64], e: &mut [f64]) {
    let n = d.len();
    for l in 0..n {
        let mut iter = 0;
        loop {
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() <= f64::EPSILON * dd {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            iter += 1;
            if iter > 100 {
                break; // cannot happen in practice (QL with Wilkinson shifts converges cubically)
            }
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let mut r = (g * g + 1.0).sqrt();
            g = d[m] - d[l] + e[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (1.0, 1.0, 0.0);
            let mut i = m;
            let mut underflow = false;
            while i > l {
                i -= 1;
                let f = s * e[i];
                let b = c * e[i];
                r = (f * f + g * g).sqrt();
                e[i + 1] = r;
                if r == 0.0 {
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
            }
            if underflow {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
}

/// Orthonormal eigenvectors (column-major, n × n) for the ascending eigenvalues `w` of the
/// tridiagonal (d, e), by inverse iteration (LAPACK dstein's scheme, with a tighter cluster rule).
///
/// Vectors of different clusters need nothing of each other, so runs of whole clusters go to
/// rayon's threads; each vector's random start is seeded by its index, so the result does not
/// depend on the thread count.
pub fn tridiagonal_eigenvectors(d: &[f64], e: &[f64], w: &[f64]) -> Vec<f64> {
    eigenvectors_with(d, e, w, None, &Cancel::never())
}

/// [`tridiagonal_eigenvectors`], and where the factored form `T = U D Uᵀ` (D > 0, `(D, u)`) is
/// given, each eigenvector whose eigenvalue is separated from its neighbours by a relative gap
/// ≥ [`TWIST_MIN_RELGAP`] in one pass of a twisted factorization ([`twisted_vector`]) instead.
/// A stop request (`cancel`) leaves the vectors not yet computed at zero; the caller checks
/// the token.
fn eigenvectors_with(
    d: &[f64],
    e: &[f64],
    w: &[f64],
    rrr: Option<(&[f64], &[f64])>,
    cancel: &Cancel,
) -> Vec<f64> {
    let n = d.len();
    let mut out = vec![0.0; n * n];
    if n == 1 {
        out[0] = 1.0;
        return out;
    }
    let norm = (0..n).fold(0.0f64, |m, i| {
        let left = if i > 0 { e[i - 1].abs() } else { 0.0 };
        let right = if i + 1 < n { e[i].abs() } else { 0.0 };
        m.max(d[i].abs() + left + right)
    });
    let cluster_gap = 1e-5 * norm;
    // Work units: consecutive clusters, at least `unit` vectors each (a few per thread).
    let unit = n.div_ceil(8 * rayon::current_num_threads()).max(16);
    let mut starts = vec![0];
    for j in 1..n {
        if w[j] - w[j - 1] > cluster_gap && j - starts[starts.len() - 1] >= unit {
            starts.push(j);
        }
    }
    starts.push(n);
    let mut chunks: Vec<(usize, &mut [f64])> = Vec::with_capacity(starts.len());
    let mut rest = out.as_mut_slice();
    for win in starts.windows(2) {
        let (head, tail) = rest.split_at_mut((win[1] - win[0]) * n);
        chunks.push((win[0], head));
        rest = tail;
    }
    chunks.into_par_iter().for_each(|(first, block)| {
        inverse_iteration(d, e, w, norm, cluster_gap, rrr, first, block, cancel);
    });
    out
}

/// Inverse iteration for the eigenvalues `w[first..first + block.len() / n]`, which begin a
/// cluster; Gram–Schmidt against the preceding vectors of the same cluster (within the block).
#[allow(clippy::too_many_arguments)]
fn inverse_iteration(
    d: &[f64],
    e: &[f64],
    w: &[f64],
    norm: f64,
    cluster_gap: f64,
    rrr: Option<(&[f64], &[f64])>,
    first: usize,
    block: &mut [f64],
    cancel: &Cancel,
) {
    let n = d.len();
    let eps = f64::EPSILON;
    let mut lu = ShiftedLu::new(n);
    let mut x = vec![0.0; n];
    let mut twist = TwistScratch::default();
    // A run of vectors for twisted factorizations, from `run_start` to the current j, done in
    // batches when it ends.
    let mut run_start = first;
    let mut flush = |run_start: usize, end: usize, block: &mut [f64]| {
        if let (Some((dd, uu)), true) = (rrr, end > run_start) {
            let cols = &mut block[(run_start - first) * n..(end - first) * n];
            twisted_vectors(dd, uu, &w[run_start..end], &mut twist, cols);
        }
    };
    let mut cluster_start = first;
    let mut last_shift = f64::NEG_INFINITY;
    let end = first + block.len() / n;
    for j in first..end {
        // One relaxed load per vector of O(N) work.
        if cancel.is_set() {
            return;
        }
        if j > first && w[j] - w[j - 1] > cluster_gap {
            cluster_start = j;
        }
        if rrr.is_some() && twistable(w, n, j, cluster_gap) {
            continue;
        }
        flush(run_start, j, block);
        run_start = j + 1;
        // Perturb coincident shifts apart, as dstein does, so the factors differ.
        let mut shift = w[j];
        if j > cluster_start && shift - last_shift < 10.0 * eps * norm {
            shift = last_shift + 10.0 * eps * norm;
        }
        last_shift = shift;
        lu.factor(d, e, shift, eps * norm);
        random_start(j, &mut x);
        // With λ accurate to O(ε‖T‖), two solves from a random start converge.
        for _ in 0..2 {
            lu.solve(&mut x);
            let window = cluster_start.max(j.saturating_sub(REORTH_WINDOW))..j;
            orthonormalise(&mut x, block, first, window);
        }
        block[(j - first) * n..(j - first + 1) * n].copy_from_slice(&x);
    }
    flush(run_start, end, block);
}

/// Whether eigenvalue `j` (of `n`) is isolated enough for one twisted factorization: apart
/// from both neighbours by more than `cluster_gap` and by a relative gap ≥ [`TWIST_MIN_RELGAP`].
fn twistable(w: &[f64], n: usize, j: usize, cluster_gap: f64) -> bool {
    let below = if j > 0 {
        w[j] - w[j - 1]
    } else {
        f64::INFINITY
    };
    let above = if j + 1 < n {
        w[j + 1] - w[j]
    } else {
        f64::INFINITY
    };
    let isolated = below > cluster_gap && above > cluster_gap;
    isolated && below.min(above) >= TWIST_MIN_RELGAP * w[j].abs()
}

/// A reproducible pseudo-random start vector for eigenvalue `j` (an LCG seeded from j, so
/// results do not depend on the thread or the block a vector is computed in).
fn random_start(j: usize, x: &mut [f64]) {
    let mut seed = (j as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for xi in x.iter_mut() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *xi = ((seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5;
    }
}

/// Gram–Schmidt of `x` against the block's columns `window` (global indices; the block
/// starts at `first`), then normalisation to unit length.
fn orthonormalise(x: &mut [f64], block: &[f64], first: usize, window: std::ops::Range<usize>) {
    let n = x.len();
    for k in window {
        let q = &block[(k - first) * n..(k - first + 1) * n];
        let dot: f64 = q.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
        x.iter_mut().zip(q).for_each(|(xi, qi)| *xi -= dot * qi);
    }
    let nrm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    x.iter_mut().for_each(|v| *v /= nrm);
}

/// The LU factors of T − shift·I with partial pivoting (LAPACK's dgttrf): `u0` the diagonal
/// of U (stored as reciprocals), `u1`, `u2` its super-diagonals, `lm` the multipliers and `piv`
/// the row swaps; kept between eigenvalues so that no vector allocates.
struct ShiftedLu {
    u0: Vec<f64>,
    u1: Vec<f64>,
    u2: Vec<f64>,
    lm: Vec<f64>,
    piv: Vec<bool>,
}

impl ShiftedLu {
    fn new(n: usize) -> Self {
        ShiftedLu {
            u0: vec![0.0; n],
            u1: vec![0.0; n],
            u2: vec![0.0; n],
            lm: vec![0.0; n],
            piv: vec![false; n],
        }
    }

    /// Factors T − shift·I (T = tridiag(e, d, e)), then replaces pivots below `tiny` (the
    /// matrix is singular to working precision at an eigenvalue) and keeps reciprocals, so
    /// the solves multiply.
    fn factor(&mut self, d: &[f64], e: &[f64], shift: f64, tiny: f64) {
        let n = d.len();
        let ShiftedLu {
            u0,
            u1,
            u2,
            lm,
            piv,
        } = self;
        // LU of T − shift·I with partial pivoting (dgttrf).
        for i in 0..n {
            u0[i] = d[i] - shift;
        }
        u1[..n - 1].copy_from_slice(e);
        lm[..n - 1].copy_from_slice(e);
        for i in 0..n - 1 {
            u2[i] = 0.0;
            if u0[i].abs() >= lm[i].abs() {
                piv[i] = false;
                if u0[i] != 0.0 {
                    let f = lm[i] / u0[i];
                    lm[i] = f;
                    u0[i + 1] -= f * u1[i];
                }
            } else {
                piv[i] = true;
                let f = u0[i] / lm[i];
                u0[i] = lm[i];
                lm[i] = f;
                let t = u1[i];
                u1[i] = u0[i + 1];
                u0[i + 1] = t - f * u0[i + 1];
                if i + 2 < n {
                    u2[i] = u1[i + 1];
                    u1[i + 1] *= -f;
                }
            }
        }
        // Replace tiny pivots (the matrix is singular to working precision at an eigenvalue)
        // and keep reciprocals, so the solves multiply.
        for v in u0.iter_mut() {
            if v.abs() < tiny {
                *v = tiny.copysign(if *v == 0.0 { 1.0 } else { *v });
            }
            *v = 1.0 / *v;
        }
    }

    /// Solves (T − shift) x_new = x in place.
    fn solve(&self, x: &mut [f64]) {
        let n = x.len();
        let (u0, u1, u2, lm, piv) = (&self.u0, &self.u1, &self.u2, &self.lm, &self.piv);
        for i in 0..n - 1 {
            if piv[i] {
                let t = x[i];
                x[i] = x[i + 1];
                x[i + 1] = t - lm[i] * x[i];
            } else {
                x[i + 1] -= lm[i] * x[i];
            }
        }
        x[n - 1] *= u0[n - 1];
        x[n - 2] = (x[n - 2] - u1[n - 2] * x[n - 1]) * u0[n - 2];
        for i in (0..n.saturating_sub(2)).rev() {
            x[i] = (x[i] - u1[i] * x[i + 1] - u2[i] * x[i + 2]) * u0[i];
        }
    }
}

/// Benchmark M (docs/benchmarks.md) on the structured route: the equal point chain
/// (m = l = 1, g = 9.81) about the hanging equilibrium, as the JSON fields the benchmark asks for.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkM {
    pub links: usize,
    /// ω_k ascending (rad/s).
    pub frequencies: Vec<f64>,
    /// Best of `repeats` wall times (s): eigenvalues only, and eigenvalues + eigenvectors.
    pub time_values_s: f64,
    pub time_vectors_s: f64,
    pub repeats: usize,
    /// Threads used: rayon's pool (eigenvalues are serial; eigenvectors run over clusters).
    pub threads: usize,
    pub route: &'static str,
    pub checks: BenchmarkMChecks,
}

/// Accuracy checks of [`BenchmarkM`].
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkMChecks {
    /// max_k |ω_k²/(g/l) − x_k| / x_k against the Laguerre zeros (Golub–Welsch + Newton);
    /// `None` above N = 1000 (the dense zeros would dominate the run).
    pub laguerre_max_rel: Option<f64>,
    /// |Σ ω_k² − g N²| / (g N²).
    pub trace_rel: f64,
    /// ‖KV − MVΛ‖_F / ‖KV‖_F.
    pub residual: f64,
    /// max |VᵀMV − I| over all pairs (N ≤ 2000) or over the first 32 columns against all.
    pub orthogonality: f64,
    /// How many columns the orthogonality check covered.
    pub orthogonality_columns: usize,
}

/// Runs benchmark M on the structured route at `n` links, best of `repeats`.
pub fn benchmark_m(n: usize, repeats: usize) -> BenchmarkM {
    use crate::model::ChainParams;
    let g = ChainParams::G;
    let chain = Chain::new(ChainParams::equal_points(n)).expect("valid chain");
    let eq = Equilibrium::hanging(n);
    let red = TridiagonalReduction::new(&chain, &eq).expect("point chain");
    let repeats = repeats.max(1);
    let mut best_values = f64::INFINITY;
    let mut w = vec![];
    for _ in 0..repeats {
        let t0 = Instant::now();
        let r = TridiagonalReduction::new(&chain, &eq).expect("point chain");
        w = r.eigenvalues();
        best_values = best_values.min(t0.elapsed().as_secs_f64());
    }
    let mut best_vectors = f64::INFINITY;
    let mut v = DMatrix::zeros(0, 0);
    for _ in 0..repeats {
        let t0 = Instant::now();
        let r = TridiagonalReduction::new(&chain, &eq).expect("point chain");
        let (w2, v2) = r.eigen();
        best_vectors = best_vectors.min(t0.elapsed().as_secs_f64());
        w = w2;
        v = v2;
    }
    let laguerre_max_rel = (n <= 1000).then(|| {
        laguerre_zeros(n)
            .iter()
            .zip(&w)
            .map(|(x, w2)| ((w2 / g - x) / x).abs())
            .fold(0.0, f64::max)
    });
    let total = g * (n * n) as f64;
    let trace_rel = (w.iter().sum::<f64>() - total).abs() / total;
    // Residuals with K diagonal and M applied in O(N) per column.
    let b = chain.b();
    let (mut num, mut den) = (0.0, 0.0);
    let mut mv = vec![0.0; n];
    let mut mvs: Vec<f64> = vec![];
    let cols = if n <= 2000 { n } else { 32 };
    for c in 0..n {
        let col = &v.as_slice()[c * n..(c + 1) * n];
        red.mass_times(col, &mut mv);
        for j in 0..n {
            let kv = g * b[j] * col[j];
            num += (kv - w[c] * mv[j]).powi(2);
            den += kv * kv;
        }
        if c < cols {
            mvs.extend_from_slice(&mv);
        }
    }
    let mut orth = 0.0f64;
    for c in 0..cols {
        let mc = &mvs[c * n..(c + 1) * n];
        for k in 0..n {
            let vk = &v.as_slice()[k * n..(k + 1) * n];
            let dot: f64 = mc.iter().zip(vk).map(|(a, b)| a * b).sum();
            orth = orth.max((dot - if c == k { 1.0 } else { 0.0 }).abs());
        }
    }
    BenchmarkM {
        links: n,
        frequencies: w.iter().map(|x| x.sqrt()).collect(),
        time_values_s: best_values,
        time_vectors_s: best_vectors,
        repeats,
        threads: rayon::current_num_threads(),
        route: "structured (symmetric tridiagonal)",
        checks: BenchmarkMChecks {
            laguerre_max_rel,
            trace_rel,
            residual: (num / den).sqrt(),
            orthogonality: orth,
            orthogonality_columns: cols,
        },
    }
}
