//! Closed forms the modes are checked against: zeros of the Laguerre polynomials (the point
//! chain with equal masses and lengths) and of the Bessel function J₀ (the hanging rope).

use nalgebra::DMatrix;

/// Zeros of the Laguerre polynomial L_n, ascending: Golub–Welsch (eigenvalues of the Jacobi
/// matrix, diagonal 2k+1, off-diagonal k) polished by Newton steps on the three-term recurrence.
pub fn laguerre_zeros(n: usize) -> Vec<f64> {
    let j = DMatrix::from_fn(n, n, |r, c| {
        if r == c {
            (2 * r + 1) as f64
        } else if r.abs_diff(c) == 1 {
            r.max(c) as f64
        } else {
            0.0
        }
    });
    let mut z: Vec<f64> = j.symmetric_eigenvalues().iter().copied().collect();
    z.sort_by(f64::total_cmp);
    for x in z.iter_mut() {
        for _ in 0..3 {
            // L_n overflows for large x and N (x ≳ 1400 at N = 1000): keep the eigenvalue then.
            let (p, dp) = laguerre_with_derivative(n, *x);
            let step = p / dp;
            if step.is_finite() {
                *x -= step;
            }
        }
    }
    z
}

/// L_n(x) and L_n'(x) by the recurrence (k+1) L_{k+1} = (2k+1−x) L_k − k L_{k−1}.
fn laguerre_with_derivative(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, 1.0 - x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 1..n {
        let p2 = ((2 * k + 1) as f64 - x) * p1 / (k + 1) as f64 - k as f64 * p0 / (k + 1) as f64;
        p0 = p1;
        p1 = p2;
    }
    // x L_n' = n (L_n − L_{n−1})
    (p1, n as f64 * (p1 - p0) / x)
}

/// Bessel J₀ and J₁ by the trapezoidal rule on their integral representations over [0, π]
/// (spectrally accurate for a periodic analytic integrand; 1e-15 for x ≲ 60 with 128 nodes).
pub fn bessel_j0_j1(x: f64) -> (f64, f64) {
    let m = 128usize;
    let (mut j0, mut j1) = (0.0, 0.0);
    for i in 0..m {
        let t = std::f64::consts::PI * (i as f64 + 0.5) / m as f64;
        j0 += (x * t.sin()).cos();
        j1 += (t - x * t.sin()).cos();
    }
    (j0 / m as f64, j1 / m as f64)
}

/// The first `count` positive zeros j_{0,k} of J₀: McMahon's asymptotic start, Newton on J₀' = −J₁.
pub fn bessel_j0_zeros(count: usize) -> Vec<f64> {
    (1..=count)
        .map(|k| {
            let beta = (k as f64 - 0.25) * std::f64::consts::PI;
            let mut x = beta + 1.0 / (8.0 * beta) - 31.0 / (384.0 * beta.powi(3));
            for _ in 0..6 {
                let (j0, j1) = bessel_j0_j1(x);
                x += j0 / j1;
            }
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laguerre_zeros_small_cases() {
        let z = laguerre_zeros(2);
        assert!((z[0] - (2.0 - 2f64.sqrt())).abs() < 1e-15);
        assert!((z[1] - (2.0 + 2f64.sqrt())).abs() < 1e-14);
        let z = laguerre_zeros(1);
        assert!((z[0] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bessel_zeros_match_tables() {
        // Abramowitz & Stegun, table 9.5.
        let z = bessel_j0_zeros(5);
        let table = [
            2.404825557695773,
            5.520078110286311,
            8.653727912911013,
            11.79153443901428,
            14.93091770848779,
        ];
        for (a, b) in z.iter().zip(table) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}
