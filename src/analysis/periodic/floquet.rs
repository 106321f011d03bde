//! Floquet multipliers of a periodic orbit, its stability, and the two checks that hold exactly:
//! Liouville's formula det M = exp(∫ tr J dt) (any orbit), and reciprocal pairs μ, 1/μ
//! (a Hamiltonian orbit: undamped, driven or not).

use super::PeriodicError;
use nalgebra::{Complex, DMatrix, DVector, Schur};
use serde::Serialize;

/// A multiplier counts as on the unit circle within this distance of it. Integrated to
/// tolerance 1e-12, a multiplier's modulus is good to about 1e-9; where two collide on the
/// circle they split like the square root of the error, hence the margin.
pub const UNIT_CIRCLE_TOL: f64 = 1e-6;

/// How a periodic orbit responds to small deviations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stability {
    /// Dissipative orbit: every multiplier inside the unit circle (an attractor).
    Stable,
    /// Dissipative orbit: a multiplier outside the unit circle.
    Unstable,
    /// Hamiltonian orbit: every non-trivial multiplier on the unit circle (linearly stable).
    Elliptic,
    /// Hamiltonian orbit: a real pair μ, 1/μ off the circle (and no complex quartet).
    Hyperbolic,
    /// Hamiltonian orbit: a quartet μ, 1/μ, μ̄, 1/μ̄ off the circle and off the real axis.
    ComplexUnstable,
}

impl Stability {
    pub fn name(self) -> &'static str {
        match self {
            Stability::Stable => "stable",
            Stability::Unstable => "unstable",
            Stability::Elliptic => "elliptic",
            Stability::Hyperbolic => "hyperbolic",
            Stability::ComplexUnstable => "complex-unstable",
        }
    }
    /// Whether small deviations stay small (stable or elliptic).
    pub fn is_stable(self) -> bool {
        matches!(self, Stability::Stable | Stability::Elliptic)
    }
    /// The stability of a HDF5 code (0..=4, [`Stability::code`]).
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A multiplier μ with its Floquet exponent ln(μ)/T.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Multiplier {
    pub re: f64,
    pub im: f64,
    /// |μ|.
    pub modulus: f64,
    /// Re ln(μ) / T (1/s): the growth rate of deviations along this direction.
    pub exponent: f64,
    /// arg(μ) (rad).
    pub angle: f64,
}

impl Multiplier {
    fn new(mu: Complex<f64>, period: f64) -> Multiplier {
        Multiplier {
            re: mu.re,
            im: mu.im,
            modulus: mu.norm(),
            exponent: mu.norm().ln() / period,
            angle: mu.arg(),
        }
    }
    pub fn complex(&self) -> Complex<f64> {
        Complex::new(self.re, self.im)
    }
}

/// The Floquet analysis of one orbit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Floquet {
    /// The non-trivial multipliers, by modulus, largest first.
    pub multipliers: Vec<Multiplier>,
    /// The trivial multipliers factored out (an autonomous Hamiltonian orbit's two at +1:
    /// along the flow and across the energy shells); their distance from 1 measures the
    /// orbit's accuracy.
    pub trivial: Vec<Multiplier>,
    pub stability: Stability,
    /// det M, computed from the matrix.
    pub determinant: f64,
    /// What Liouville's formula says det M is: exp(∫ tr J dt) along a damped orbit (trapezoidal
    /// rule on its samples); exactly 1 for a Hamiltonian one (it keeps a density that returns).
    pub liouville: f64,
    /// |det M − exp(∫ tr J dt)| / exp(∫ tr J dt).
    pub liouville_error: f64,
    /// Hamiltonian orbits: max over μ of min over μ' of |μ μ' − 1| (0 when every multiplier has
    /// its reciprocal); None for a damped orbit.
    pub reciprocal_error: Option<f64>,
    /// max |μ| over the non-trivial multipliers (> 1: unstable); NaN when the orbit has no
    /// non-trivial multiplier (a one-link autonomous orbit: both of its multipliers are trivial).
    pub largest_modulus: f64,
}

/// QR sweeps the Schur decomposition may take per dimension of the matrix; beyond them it has
/// failed, and the multipliers are not computed. Generous (a monodromy near the identity, its
/// eigenvalues clustered at 1, takes hundreds): the bound is there to end a loop that would
/// never end, in microseconds at these sizes.
pub const SCHUR_SWEEPS_PER_DIMENSION: usize = 10_000;

/// The eigenvalues of `m` by a Schur decomposition with a bounded number of QR sweeps
/// (nalgebra's `complex_eigenvalues` iterates without bound and can loop forever); an error
/// naming the failure where it does not converge.
pub fn eigenvalues(m: &DMatrix<f64>) -> Result<Vec<Complex<f64>>, PeriodicError> {
    if m.nrows() == 0 {
        return Ok(Vec::new());
    }
    if m.iter().any(|v| !v.is_finite()) {
        return Err(PeriodicError::NotConverged(
            "the Floquet multipliers were not computed: the monodromy matrix is not finite".into(),
        ));
    }
    let sweeps = SCHUR_SWEEPS_PER_DIMENSION * m.nrows();
    let schur = Schur::try_new(m.clone(), f64::EPSILON, sweeps).ok_or_else(|| {
        PeriodicError::NotConverged(format!(
            "the Floquet multipliers were not computed: the Schur decomposition of the {0}×{0} monodromy did not converge in {sweeps} QR sweeps",
            m.nrows()
        ))
    })?;
    Ok(schur.complex_eigenvalues().iter().copied().collect())
}

/// The two exact eigen-directions of an autonomous conservative orbit's monodromy: M f = f
/// along the flow f(x₀), and ∇Eᵀ M = ∇Eᵀ across the energy shells.
#[derive(Debug, Clone, PartialEq)]
pub struct Trivial {
    pub flow: Vec<f64>,
    pub gradient: Vec<f64>,
}

/// The Floquet analysis of monodromy `m` over `period` with ∫ tr J dt = `trivial_integral`;
/// `hamiltonian` orbits have reciprocal pairs; an autonomous one's `trivial` directions are
/// factored out (not picked as the multipliers nearest 1, which fails exactly where a
/// non-trivial pair passes through +1).
pub fn floquet(
    m: &DMatrix<f64>,
    period: f64,
    trace_integral: f64,
    hamiltonian: bool,
    trivial: Option<&Trivial>,
) -> Result<Floquet, PeriodicError> {
    let eig = eigenvalues(m)?;
    let (mut rest, set_aside) = match trivial {
        None => (eig.clone(), Vec::new()),
        Some(t) => {
            let (rest, along, across) = reduce(m, t)?;
            let set_aside = vec![
                Multiplier::new(Complex::new(along, 0.0), period),
                Multiplier::new(Complex::new(across, 0.0), period),
            ];
            (rest, set_aside)
        }
    };
    rest.sort_by(|a, b| b.norm().total_cmp(&a.norm()).then(b.im.total_cmp(&a.im)));
    let multipliers: Vec<Multiplier> = rest.iter().map(|&mu| Multiplier::new(mu, period)).collect();
    let largest = rest.iter().map(|mu| mu.norm()).fold(0.0, f64::max);
    let largest_modulus = if rest.is_empty() { f64::NAN } else { largest };
    let stability = if hamiltonian {
        let off: Vec<&Complex<f64>> = rest
            .iter()
            .filter(|mu| mu.norm() > 1.0 + UNIT_CIRCLE_TOL)
            .collect();
        if off.is_empty() {
            Stability::Elliptic
        } else if off.iter().any(|mu| mu.im.abs() > UNIT_CIRCLE_TOL) {
            Stability::ComplexUnstable
        } else {
            Stability::Hyperbolic
        }
    } else if largest > 1.0 {
        Stability::Unstable
    } else {
        Stability::Stable
    };
    let determinant = m.clone().determinant();
    // A Hamiltonian flow keeps a smooth density ρ(x) (in (θ, θ̇): det M(θ), which the angles
    // bring back), so a closed orbit's det M = ρ(x₀)/ρ(x_T) is exactly 1; a quadrature of
    // tr J over the samples would be only as good as their spacing. A damped orbit has no such
    // density: exp(∫ tr J dt) by the trapezoidal rule on the samples.
    let liouville = if hamiltonian {
        1.0
    } else {
        trace_integral.exp()
    };
    let reciprocal_error = hamiltonian.then(|| {
        eig.iter()
            .map(|a| {
                eig.iter()
                    .map(|b| (a * b - 1.0).norm())
                    .fold(f64::INFINITY, f64::min)
            })
            .fold(0.0, f64::max)
    });
    Ok(Floquet {
        multipliers,
        trivial: set_aside,
        stability,
        determinant,
        liouville,
        liouville_error: (determinant - liouville).abs() / liouville,
        reciprocal_error,
        largest_modulus,
    })
}

/// The monodromy reduced to the energy shell's tangent space W = ∇E^⊥ (invariant: ∇Eᵀ M = ∇Eᵀ)
/// modulo the flow direction f ∈ W (M f = f): with B an orthonormal basis of W starting with
/// f/|f|, R = Bᵀ M B is block upper-triangular with R₀₀ ≈ 1, and the eigenvalues of R without
/// its first row and column are the non-trivial multipliers. Returns them, R₀₀ and the
/// multiplier across the shells, ∇Eᵀ M ∇E / |∇E|².
fn reduce(m: &DMatrix<f64>, t: &Trivial) -> Result<(Vec<Complex<f64>>, f64, f64), PeriodicError> {
    let n = m.nrows();
    let g = DVector::from_column_slice(&t.gradient);
    let gn = g.norm();
    let across = if gn > 0.0 {
        (g.transpose() * m * &g)[(0, 0)] / (gn * gn)
    } else {
        f64::NAN
    };
    let gh = if gn > 0.0 { g / gn } else { DVector::zeros(n) };
    let mut basis: Vec<DVector<f64>> = Vec::with_capacity(n - 1);
    let candidates = std::iter::once(DVector::from_column_slice(&t.flow))
        .chain((0..n).map(|i| DVector::from_fn(n, |r, _| if r == i { 1.0 } else { 0.0 })));
    for mut v in candidates {
        if basis.len() == n - 1 {
            break;
        }
        v -= &gh * gh.dot(&v);
        for b in &basis {
            v -= b * b.dot(&v);
        }
        let norm = v.norm();
        if norm > 1e-8 {
            basis.push(v / norm);
        }
    }
    let b = DMatrix::from_columns(&basis);
    let r = b.transpose() * m * &b;
    let along = r[(0, 0)];
    let k = r.nrows() - 1;
    let rest = if k == 0 {
        Vec::new()
    } else {
        eigenvalues(&r.view((1, 1), (k, k)).into_owned())?
    };
    Ok((rest, along, across))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotation_is_elliptic_and_a_saddle_hyperbolic() {
        let (c, s) = (0.3f64.cos(), 0.3f64.sin());
        let rot = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
        let f = floquet(&rot, 1.0, 0.0, true, None).unwrap();
        assert_eq!(f.stability, Stability::Elliptic);
        assert!(f.reciprocal_error.unwrap() < 1e-14);
        assert!((f.multipliers[0].angle.abs() - 0.3).abs() < 1e-14);
        let saddle = DMatrix::from_row_slice(2, 2, &[2.0, 0.0, 0.0, 0.5]);
        let f = floquet(&saddle, 2.0, 0.0, true, None).unwrap();
        assert_eq!(f.stability, Stability::Hyperbolic);
        assert!((f.multipliers[0].exponent - 2f64.ln() / 2.0).abs() < 1e-15);
        let sink = DMatrix::from_row_slice(2, 2, &[0.5, 0.0, 0.0, 0.25]);
        let f = floquet(&sink, 1.0, (0.125f64).ln(), false, None).unwrap();
        assert_eq!(f.largest_modulus, 0.5);
        assert_eq!(f.stability, Stability::Stable);
        assert!(f.liouville_error < 1e-15 && f.reciprocal_error.is_none());
    }
}
