//! Allocation-free dense kernels for the hot path (row-major n × n buffers).
//!
//! The mass matrix is symmetric positive definite, so a Cholesky factorization is the stable and
//! cheapest solve; it is done once per right-hand-side evaluation and reused for every column of
//! the tangent block.

/// In-place Cholesky factorization `A = L Lᵀ`; the lower triangle of `a` becomes `L`.
/// Returns `false` if `A` is not (numerically) positive definite.
#[inline]
pub fn cholesky_in_place(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        let inv = 1.0 / d;
        for i in (j + 1)..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s * inv;
        }
    }
    true
}

/// Solves `L Lᵀ x = b` in place, with `l` from [`cholesky_in_place`].
#[inline]
pub fn cholesky_solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * n + k] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in (i + 1)..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_spd_system() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let mut l = a;
        assert!(cholesky_in_place(&mut l, 3));
        let x = [1.0, -2.0, 0.5];
        let mut b = [0.0; 3];
        for i in 0..3 {
            for j in 0..3 {
                b[i] += a[i * 3 + j] * x[j];
            }
        }
        cholesky_solve(&l, 3, &mut b);
        for i in 0..3 {
            assert!((b[i] - x[i]).abs() < 1e-14);
        }
    }

    #[test]
    fn rejects_indefinite() {
        let mut a = [1.0, 2.0, 2.0, 1.0];
        assert!(!cholesky_in_place(&mut a, 2));
    }
}
