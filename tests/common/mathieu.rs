//! Mathieu's characteristic values from the truncated Fourier–Hill matrices (DLMF 28.6 /
//! Abramowitz–Stegun 20.2): the independent reference of the vibrated pendulum's stability
//! boundaries (tests/orbits_curve.rs, tests/orbits_curve_cli.rs).

use nalgebra::{DMatrix, SymmetricEigen};

/// Mathieu's characteristic values of one Fourier family at q, ascending: `cos` or `sin`
/// series of even (period π) or odd (period 2π) harmonics, truncated at `terms` harmonics.
pub fn characteristic(cos: bool, odd: bool, q: f64, terms: usize) -> Vec<f64> {
    let mut m = DMatrix::<f64>::zeros(terms, terms);
    for r in 0..terms {
        // The harmonic of row r: 2r (even cos), 2r + 2 (even sin), 2r + 1 (odd).
        let h = match (odd, cos) {
            (true, _) => (2 * r + 1) as f64,
            (false, true) => (2 * r) as f64,
            (false, false) => (2 * r + 2) as f64,
        };
        m[(r, r)] = h * h;
        if r + 1 < terms {
            m[(r, r + 1)] = q;
            m[(r + 1, r)] = q;
        }
    }
    match (odd, cos) {
        // cos τ: −2q cos 2τ cos τ = −q (cos 3τ + cos τ), so a − 1 − q on the diagonal.
        (true, true) => m[(0, 0)] += q,
        // sin τ: −2q cos 2τ sin τ = −q (sin 3τ − sin τ).
        (true, false) => m[(0, 0)] -= q,
        // The constant term couples to cos 2τ with 2q: symmetrised by √2 A₀.
        (false, true) if terms > 1 => {
            m[(0, 1)] = 2f64.sqrt() * q;
            m[(1, 0)] = 2f64.sqrt() * q;
        }
        _ => {}
    }
    let mut v: Vec<f64> = SymmetricEigen::new(m).eigenvalues.iter().copied().collect();
    v.sort_by(f64::total_cmp);
    v
}
