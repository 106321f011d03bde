//! Allocation-free Householder QR of a block of deviation vectors, in place.
//!
//! Householder reflections keep Q orthonormal to round-off however ill-conditioned the block
//! has become during one interval τ (Golub & Van Loan, *Matrix Computations*, §5.2), which
//! Gram–Schmidt does not guarantee. All buffers are allocated once in [`Qr::new`].

/// Buffers for the thin QR of an `n × k` column-major block (`k ≤ n`).
#[derive(Debug, Clone)]
pub struct Qr {
    n: usize,
    k: usize,
    /// Householder vectors (below and on the diagonal of a copy of the block).
    a: Vec<f64>,
    beta: Vec<f64>,
    /// |R_ii|.
    rdiag: Vec<f64>,
}

impl Qr {
    pub fn new(n: usize, k: usize) -> Qr {
        assert!(k <= n && k > 0, "need 1 <= k <= n");
        Qr {
            n,
            k,
            a: vec![0.0; n * k],
            beta: vec![0.0; k],
            rdiag: vec![0.0; k],
        }
    }

    /// |R_ii| of the last factorization.
    pub fn rdiag(&self) -> &[f64] {
        &self.rdiag
    }

    /// The R factor of the last factorization, upper triangle packed column by column (entry
    /// (i, j), i ≤ j, at `j(j+1)/2 + i`), with the signs that go with the Q it wrote: `V = Q R`.
    /// Covariant Lyapunov vectors iterate these backwards.
    pub fn r_packed(&self, out: &mut [f64]) {
        let (n, k) = (self.n, self.k);
        debug_assert_eq!(out.len(), k * (k + 1) / 2);
        for j in 0..k {
            let col = &self.a[j * n..(j + 1) * n];
            let base = j * (j + 1) / 2;
            out[base..base + j].copy_from_slice(&col[..j]);
            // The reflection put x₀ − R_jj in the diagonal slot, R_jj = −sign(x₀)·|R_jj|.
            let alpha = self.rdiag[j];
            out[base + j] = if self.beta[j] == 0.0 {
                0.0
            } else if col[j] >= 0.0 {
                -alpha
            } else {
                alpha
            };
        }
    }

    /// Factors the block `v` (column-major, `k` columns of length `n`) and leaves |R_ii| in
    /// [`Qr::rdiag`]. With `replace`, `v` is overwritten with the thin Q; otherwise unchanged.
    ///
    /// A column that is already in the span of the previous ones gives |R_ii| = 0 (its log is
    /// −∞, which the caller reports); Q is then completed with an arbitrary orthonormal column.
    pub fn factor(&mut self, v: &mut [f64], replace: bool) {
        let (n, k) = (self.n, self.k);
        debug_assert_eq!(v.len(), n * k);
        self.a.copy_from_slice(v);
        let a = &mut self.a;
        for j in 0..k {
            let (head, tail) = a.split_at_mut((j + 1) * n);
            let col = &mut head[j * n..];
            let mut norm2 = 0.0;
            for x in &col[j..] {
                norm2 += x * x;
            }
            let alpha = norm2.sqrt();
            self.rdiag[j] = alpha;
            if alpha == 0.0 {
                // Zero column: reflect e_j onto itself (H = I); Q gets e_j-ish completion.
                self.beta[j] = 0.0;
                continue;
            }
            // R_jj = −sign(x_0)·alpha avoids cancellation in v_0 = x_0 − R_jj.
            let x0 = col[j];
            let r = if x0 >= 0.0 { -alpha } else { alpha };
            col[j] = x0 - r;
            // vᵀv = 2 alpha (alpha + |x0|).
            let vtv = 2.0 * alpha * (alpha + x0.abs());
            let beta = 2.0 / vtv;
            self.beta[j] = beta;
            let vj = &col[j..];
            for c in tail.chunks_exact_mut(n) {
                let mut s = 0.0;
                for (x, y) in vj.iter().zip(&c[j..]) {
                    s += x * y;
                }
                let f = beta * s;
                for (x, y) in vj.iter().zip(&mut c[j..]) {
                    *y -= f * x;
                }
            }
        }
        if !replace {
            return;
        }
        // Q = H_0 H_1 … H_{k−1} [I_k; 0], accumulated backwards into v.
        v.fill(0.0);
        for c in 0..k {
            v[c * n + c] = 1.0;
        }
        for j in (0..k).rev() {
            let beta = self.beta[j];
            if beta == 0.0 {
                continue;
            }
            let vj = &a[j * n + j..(j + 1) * n];
            for c in v.chunks_exact_mut(n).skip(j) {
                let mut s = 0.0;
                for (x, y) in vj.iter().zip(&c[j..]) {
                    s += x * y;
                }
                let f = beta * s;
                for (x, y) in vj.iter().zip(&mut c[j..]) {
                    *y -= f * x;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconstructs_and_is_orthonormal() {
        let (n, k) = (5, 3);
        let v0: Vec<f64> = (0..n * k)
            .map(|i| ((i * 7 + 3) % 11) as f64 - 4.5 + 0.1 * i as f64)
            .collect();
        let mut v = v0.clone();
        let mut qr = Qr::new(n, k);
        qr.factor(&mut v, true);
        // QᵀQ = I
        for a in 0..k {
            for b in 0..k {
                let d: f64 = (0..n).map(|i| v[a * n + i] * v[b * n + i]).sum();
                assert!((d - if a == b { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
        // |R_jj| = |q_jᵀ a_j| and Q Qᵀ a_j = a_j.
        for j in 0..k {
            let r: f64 = (0..n).map(|i| v[j * n + i] * v0[j * n + i]).sum();
            assert!((r.abs() - qr.rdiag()[j]).abs() < 1e-12);
        }
        // Product of |R_ii| is the k-volume: sqrt(det(AᵀA)) for k = 2 on the first two columns.
        let mut qr2 = Qr::new(n, 2);
        let mut w = v0[..2 * n].to_vec();
        qr2.factor(&mut w, false);
        let dot =
            |a: usize, b: usize| -> f64 { (0..n).map(|i| v0[a * n + i] * v0[b * n + i]).sum() };
        let gram = dot(0, 0) * dot(1, 1) - dot(0, 1).powi(2);
        assert!((qr2.rdiag()[0] * qr2.rdiag()[1] - gram.sqrt()).abs() < 1e-10);
        assert_eq!(w, v0[..2 * n].to_vec());
    }

    #[test]
    fn packed_r_rebuilds_the_block_with_its_q() {
        let (n, k) = (6, 4);
        let v0: Vec<f64> = (0..n * k)
            .map(|i| ((i * 5 + 1) % 13) as f64 - 6.0 + 0.07 * i as f64)
            .collect();
        let mut q = v0.clone();
        let mut qr = Qr::new(n, k);
        qr.factor(&mut q, true);
        let mut r = vec![0.0; k * (k + 1) / 2];
        qr.r_packed(&mut r);
        for j in 0..k {
            for row in 0..n {
                let qr_ij: f64 = (0..=j)
                    .map(|i| q[i * n + row] * r[j * (j + 1) / 2 + i])
                    .sum();
                assert!((qr_ij - v0[j * n + row]).abs() < 1e-12, "({row}, {j})");
            }
            assert!((r[j * (j + 1) / 2 + j].abs() - qr.rdiag()[j]).abs() < 1e-15);
        }
    }
}
