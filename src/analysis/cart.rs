//! The chain of spherical pendulums on a cart ([`CartChain`]): sampled trajectories, the
//! vertical equilibria and their (2n+2)-degree-of-freedom linearization (docs/physics.md §4: eq.
//! 31 of Lee, Leok & McClamroch), modes and stability, controllability, LQR and the nonlinear closed loop.
//!
//! **Linear coordinates.** Near `q_i = s_i e₃` the horizontal components `r_i = Cᵀq_i` chart
//! S², and to second order `T = ½ M₀₀‖ẋ‖² + ẋ·Σ μ_i l_i ṙ_i + ½ Σ M_ij ṙ_i·ṙ_j`,
//! `V = const + ½ Σ s_i W_i ‖r_i‖²`, `R = ½ c_x‖ẋ‖² + ½ Σ c_i ‖s_i ṙ_i − s_{i−1} ṙ_{i−1}‖²`
//! (ω_i = q_i × q̇_i ≈ s_i e₃ × ṙ_i), so `M Q̈ + D Q̇ + K Q = B u` with `Q = (x, r_1, …, r_n)`:
//! Lee, Leok & McClamroch's eq. (31) in the coordinates `r_i = −Cᵀê₃ Cᵀξ_i` (a quarter turn of
//! its `Cᵀξ_i`), which makes M symmetric block by block. With the cart fixed the x block is dropped.
//!
//! **Riccati.** The continuous algebraic Riccati equation `AᵀP + PA − PBR⁻¹BᵀP + Q = 0` is solved
//! through the stable invariant subspace of the Hamiltonian matrix `H = [[A, −G], [−Q, −Aᵀ]]`
//! (G = BR⁻¹Bᵀ), obtained from the matrix sign function by Newton's iteration with determinant
//! scaling (Roberts 1971; Byers, Linear Algebra Appl. 85, 267 (1987)): `(sign H + I)[I; P] = 0`
//! solved in least squares. It finds the same subspace as the Schur method without an ordered
//! real Schur form (which nalgebra lacks) and needs no stabilizing start, unlike Newton–Kleinman
//! (the inverted chain is open-loop unstable). The relative residual is returned and checked.

use super::energy::EnergyBalance;
use super::simulate::{Sampled, Samples, SimulateOptions};
use super::AnalysisError;
use crate::integrate::{Method, Stats};
use crate::model::{CartChain, CartInput, System};
use nalgebra::{Complex, DMatrix};
use serde::Serialize;
use thiserror::Error;

/// Errors of the cart-chain linear analyses (bad input: exit code 2 in the CLI).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CartError {
    #[error("equilibrium `{0}`: expected one sign (+ or -) per link")]
    Signs(String),
    #[error("equilibrium {label} is not controllable from the cart force: {why}")]
    Uncontrollable { label: String, why: String },
    #[error("{field} = {value} is invalid: {why}")]
    Invalid {
        field: &'static str,
        value: f64,
        why: &'static str,
    },
    #[error("the Riccati solver failed: {0}")]
    Riccati(String),
    /// The Riccati solver failed with a weight far from its default: that weight (`field`,
    /// spelt as the spec spells it under `[control]`) is what drives the failure.
    #[error("control.{field}: {}", weight_text(*value, others, why))]
    Weight {
        field: &'static str,
        value: f64,
        others: String,
        why: String,
    },
    /// The Cholesky factorisation of M failed in binary64: the masses or lengths are too far
    /// apart (or too small) for the linearization to be computed.
    #[error("the mass matrix of equilibrium {0} is not numerically positive definite: the masses (model.mass, model.cart_mass) or lengths (model.length) are too far apart or too small")]
    MassMatrix(String),
}

/// What [`CartError::Weight`] says after its field.
pub fn weight_text(value: f64, others: &str, why: &str) -> String {
    format!("{value:e} is too far from the other weights ({others}) for the LQR design: the Riccati solver failed ({why}); bring it closer to them")
}

/// Parses `+-+`-style sign strings, `hanging`, `inverted`, or `folded` (+-+…) for n links.
pub fn parse_signs(s: &str, n: usize) -> Result<Vec<f64>, CartError> {
    let signs: Vec<f64> = match s {
        "hanging" => vec![1.0; n],
        "inverted" => vec![-1.0; n],
        "folded" => (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect(),
        _ => s
            .chars()
            .map(|c| match c {
                '+' => Ok(1.0),
                '-' => Ok(-1.0),
                _ => Err(CartError::Signs(s.to_string())),
            })
            .collect::<Result<_, _>>()?,
    };
    if signs.len() != n {
        return Err(CartError::Signs(s.to_string()));
    }
    Ok(signs)
}

/// `+-+` label of a sign vector.
pub fn label(signs: &[f64]) -> String {
    signs
        .iter()
        .map(|s| if *s > 0.0 { '+' } else { '-' })
        .collect()
}

/// All 2ⁿ sign vectors (hanging first), for n ≤ 12.
pub fn all_signs(n: usize) -> Vec<Vec<f64>> {
    (0..1usize << n.min(12))
        .map(|b| {
            (0..n)
                .map(|i| if b >> i & 1 == 0 { 1.0 } else { -1.0 })
                .collect()
        })
        .collect()
}

/// `M Q̈ + D Q̇ + K Q = B u` about one vertical equilibrium (see the module docs).
#[derive(Debug, Clone)]
pub struct Linearization {
    pub signs: Vec<f64>,
    pub mass: DMatrix<f64>,
    pub stiffness: DMatrix<f64>,
    pub damping: DMatrix<f64>,
    /// (2n+2) × 2 (zero columns for a fixed cart: 2n × 0).
    pub input: DMatrix<f64>,
}

/// Builds the linearization about `q_i = s_i e₃`.
pub fn linearize(sys: &CartChain, signs: &[f64]) -> Result<Linearization, CartError> {
    let n = sys.links();
    if signs.len() != n || signs.iter().any(|s| s.abs() != 1.0) {
        return Err(CartError::Signs(label(signs)));
    }
    let c = if sys.free() { 1 } else { 0 };
    let nb = n + c; // 2-blocks
    let dim = 2 * nb;
    let ml = sys.coupling();
    let mij = sys.link_inertia();
    let w = sys.gravity_moments();
    let p = sys.params();
    let mut m = DMatrix::zeros(dim, dim);
    let mut k = DMatrix::zeros(dim, dim);
    let mut d = DMatrix::zeros(dim, dim);
    let block = |mat: &mut DMatrix<f64>, a: usize, b: usize, v: f64| {
        for r in 0..2 {
            mat[(2 * a + r, 2 * b + r)] += v;
        }
    };
    if c == 1 {
        block(&mut m, 0, 0, sys.total_mass());
        block(&mut d, 0, 0, p.cart_damping);
        for j in 0..n {
            block(&mut m, 0, j + 1, ml[j]);
            block(&mut m, j + 1, 0, ml[j]);
        }
    }
    let cj = |i: usize| p.joint_damping.get(i).copied().unwrap_or(0.0);
    for i in 0..n {
        for j in 0..n {
            block(&mut m, i + c, j + c, mij[i * n + j]);
        }
        block(&mut k, i + c, i + c, signs[i] * w[i]);
        // ½ c_i ‖s_i ṙ_i − s_{i−1} ṙ_{i−1}‖² (s_0 ṙ_0 = 0: the cart does not rotate).
        block(&mut d, i + c, i + c, cj(i));
        if i > 0 {
            block(&mut d, i - 1 + c, i - 1 + c, cj(i));
            block(&mut d, i + c, i - 1 + c, -cj(i) * signs[i] * signs[i - 1]);
            block(&mut d, i - 1 + c, i + c, -cj(i) * signs[i] * signs[i - 1]);
        }
    }
    let mut b = DMatrix::zeros(dim, 2 * c);
    if c == 1 {
        b[(0, 0)] = 1.0;
        b[(1, 1)] = 1.0;
    }
    Ok(Linearization {
        signs: signs.to_vec(),
        mass: m,
        stiffness: k,
        damping: d,
        input: b,
    })
}

impl Linearization {
    /// `ż = A z + B u` with `z = (Q, Q̇)`: `A = [[0, I], [−M⁻¹K, −M⁻¹D]]`, `B = [0; M⁻¹B]`.
    /// M is SPD in exact arithmetic; an error when binary64 loses that (extreme mass ratios).
    pub fn state_space(&self) -> Result<(DMatrix<f64>, DMatrix<f64>), CartError> {
        let n = self.mass.nrows();
        let chol = self
            .mass
            .clone()
            .cholesky()
            .ok_or_else(|| CartError::MassMatrix(label(&self.signs)))?;
        let mk = chol.solve(&self.stiffness);
        let md = chol.solve(&self.damping);
        let mb = chol.solve(&self.input);
        let mut a = DMatrix::zeros(2 * n, 2 * n);
        let mut b = DMatrix::zeros(2 * n, self.input.ncols());
        for i in 0..n {
            a[(i, n + i)] = 1.0;
            for j in 0..n {
                a[(n + i, j)] = -mk[(i, j)];
                a[(n + i, n + j)] = -md[(i, j)];
            }
            for j in 0..self.input.ncols() {
                b[(n + i, j)] = mb[(i, j)];
            }
        }
        Ok((a, b))
    }
}

/// Modes and stability of one equilibrium.
#[derive(Debug, Clone, Serialize)]
pub struct CartModes {
    pub equilibrium: String,
    /// Generalized eigenvalues ω² of (K, M), ascending (negative: unstable directions).
    pub omega2: Vec<f64>,
    /// √ω² for ω² ≥ 0 (rad/s), NaN for unstable directions.
    pub frequencies: Vec<f64>,
    /// √(−ω²) for ω² < 0 (1/s), 0 otherwise.
    pub growth_rates: Vec<f64>,
    /// Modes with |ω²| ≤ 1e-9 · max|ω²| (the cart translations: 2 for a free cart).
    pub zero_modes: usize,
    /// Modes with ω² < 0 (beyond the zero tolerance).
    pub unstable: usize,
    /// Eigenvalues of the state matrix A (with damping), as (re, im).
    pub eigenvalues: Vec<(f64, f64)>,
    /// Linearly stable in the sense of no exponential growth (all Re λ ≤ tolerance).
    pub stable: bool,
    /// Controllable from the cart force (PBH test; false for a fixed cart).
    pub controllable: bool,
    /// min over eigenvalues λ of σ_min([A − λI, B]) / ‖[A, B]‖ (the PBH margin).
    pub controllability_margin: f64,
    /// Mode shapes (columns, M-orthonormal), in Q = (x, r_1, …, r_n).
    #[serde(skip)]
    pub shapes: DMatrix<f64>,
}

/// Modes, stability and controllability at `signs`.
pub fn cart_modes(sys: &CartChain, signs: &[f64]) -> Result<CartModes, CartError> {
    let lin = linearize(sys, signs)?;
    let (omega2, shapes) = super::modes::generalized_symmetric_eigen(&lin.mass, &lin.stiffness)
        .ok_or_else(|| CartError::Riccati("mass matrix not positive definite".into()))?;
    let scale = omega2
        .iter()
        .fold(0.0f64, |a, b| a.max(b.abs()))
        .max(1e-300);
    let tol = 1e-9 * scale;
    let zero_modes = omega2.iter().filter(|w| w.abs() <= tol).count();
    let unstable = omega2.iter().filter(|w| **w < -tol).count();
    let frequencies = omega2
        .iter()
        .map(|&w| {
            if w >= -tol {
                w.max(0.0).sqrt()
            } else {
                f64::NAN
            }
        })
        .collect();
    let growth_rates = omega2
        .iter()
        .map(|&w| if w < -tol { (-w).sqrt() } else { 0.0 })
        .collect();
    let (a, b) = lin.state_space()?;
    let eig = a.complex_eigenvalues();
    let eigenvalues: Vec<(f64, f64)> = eig.iter().map(|z| (z.re, z.im)).collect();
    let emax = eigenvalues
        .iter()
        .fold(0.0f64, |m, z| m.max(z.0.hypot(z.1)));
    let stable = eigenvalues.iter().all(|z| z.0 <= 1e-9 * emax.max(1.0));
    let margin = controllability_margin(&a, &b);
    Ok(CartModes {
        equilibrium: label(signs),
        omega2,
        frequencies,
        growth_rates,
        zero_modes,
        unstable,
        eigenvalues,
        stable,
        controllable: margin > CONTROLLABILITY_TOL,
        controllability_margin: margin,
        shapes,
    })
}

/// PBH margin below which a pair (A, B) counts as uncontrollable.
pub const CONTROLLABILITY_TOL: f64 = 1e-9;

/// Popov–Belevitch–Hautus: `min_λ σ_min([A − λI, B]) / ‖[A B]‖₂` over the eigenvalues λ of A;
/// zero exactly when some mode cannot be reached from u (0 when B has no columns).
pub fn controllability_margin(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    let n = a.nrows();
    let m = b.ncols();
    if m == 0 {
        return 0.0;
    }
    let mut ab = DMatrix::zeros(n, n + m);
    ab.view_mut((0, 0), (n, n)).copy_from(a);
    ab.view_mut((0, n), (n, m)).copy_from(b);
    let norm = ab
        .clone()
        .svd(false, false)
        .singular_values
        .max()
        .max(1e-300);
    let mut worst = f64::INFINITY;
    for lam in a.complex_eigenvalues().iter() {
        let mut c =
            DMatrix::<Complex<f64>>::from_fn(n, n + m, |r, col| Complex::new(ab[(r, col)], 0.0));
        for i in 0..n {
            c[(i, i)] -= *lam;
        }
        let s = c.svd(false, false).singular_values.min();
        worst = worst.min(s / norm);
    }
    worst
}

/// Solves the CARE `AᵀP + PA − P G P + Q = 0` (G = B R⁻¹ Bᵀ) by the matrix sign function of
/// the Hamiltonian matrix (see the module docs). Returns P and its relative residual.
pub fn care(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<(DMatrix<f64>, f64), CartError> {
    let n = a.nrows();
    let rinv = r
        .clone()
        .try_inverse()
        .ok_or_else(|| CartError::Riccati("R is singular".into()))?;
    let g = b * &rinv * b.transpose();
    let mut z = DMatrix::zeros(2 * n, 2 * n);
    z.view_mut((0, 0), (n, n)).copy_from(a);
    z.view_mut((0, n), (n, n)).copy_from(&(-&g));
    z.view_mut((n, 0), (n, n)).copy_from(&(-q));
    z.view_mut((n, n), (n, n)).copy_from(&(-a.transpose()));
    let mut converged = false;
    for _ in 0..100 {
        let lu = z.clone().lu();
        let det = lu.determinant();
        let zinv = lu.try_inverse().ok_or_else(|| {
            CartError::Riccati("Hamiltonian matrix has eigenvalues on the imaginary axis".into())
        })?;
        let c = if det.is_finite() && det != 0.0 {
            det.abs().powf(1.0 / (2 * n) as f64)
        } else {
            1.0
        };
        let next = (&z / c + &zinv * c) * 0.5;
        let change = (&next - &z).norm() / next.norm();
        z = next;
        if change < 1e-13 {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(CartError::Riccati("sign iteration did not converge".into()));
    }
    let mut lhs = DMatrix::zeros(2 * n, n);
    let mut rhs = DMatrix::zeros(2 * n, n);
    for i in 0..n {
        for j in 0..n {
            lhs[(i, j)] = z[(i, n + j)];
            lhs[(n + i, j)] = z[(n + i, n + j)] + if i == j { 1.0 } else { 0.0 };
            rhs[(i, j)] = -(z[(i, j)] + if i == j { 1.0 } else { 0.0 });
            rhs[(n + i, j)] = -z[(n + i, j)];
        }
    }
    let p = lhs
        .svd(true, true)
        .solve(&rhs, 1e-14)
        .map_err(|e| CartError::Riccati(e.to_string()))?;
    let p = (&p + p.transpose()) * 0.5;
    let res = a.transpose() * &p + &p * a - &p * &g * &p + q;
    let scale = q.norm() + 2.0 * a.norm() * p.norm() + g.norm() * p.norm().powi(2);
    Ok((p, res.norm() / scale))
}

/// LQR weights: `Q = diag(q_cart I₂, q_angle I_{2n}, q_rate I_{2n+2})`, `R = r I₂`. The
/// defaults (100, 100, 10, 0.1) put the slowest closed-loop pole of the inverted 2-, 3- and
/// 8-link unit chains on a unit cart at Re λ ≈ −1.9, −1.6, −1.1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LqrWeights {
    pub q_cart: f64,
    pub q_angle: f64,
    pub q_rate: f64,
    pub r: f64,
}

impl Default for LqrWeights {
    fn default() -> Self {
        LqrWeights {
            q_cart: 100.0,
            q_angle: 100.0,
            q_rate: 10.0,
            r: 0.1,
        }
    }
}

impl LqrWeights {
    /// A Riccati failure put on the weight that drives it: the one farthest (in decades) from
    /// its default, when that is at least 3 decades (`q_cart = 5e-324` or `r = 1e-12` leave
    /// the Hamiltonian matrix too ill-conditioned for the sign iteration). With the weights
    /// near their defaults the failure is the model's, and `e` is kept as it is.
    fn blame(&self, e: CartError) -> CartError {
        let CartError::Riccati(why) = e else {
            return e;
        };
        let d = LqrWeights::default();
        let all = [
            ("q_cart", self.q_cart, d.q_cart),
            ("q_angle", self.q_angle, d.q_angle),
            ("q_rate", self.q_rate, d.q_rate),
            ("r", self.r, d.r),
        ];
        let decades = |v: f64, d: f64| (v / d).log10().abs();
        let far = all
            .iter()
            .max_by(|a, b| decades(a.1, a.2).total_cmp(&decades(b.1, b.2)))
            .filter(|w| decades(w.1, w.2) >= 3.0);
        match far {
            Some(&(field, value, _)) => CartError::Weight {
                field,
                value,
                others: all
                    .iter()
                    .filter(|w| w.0 != field)
                    .map(|w| format!("{} = {}", w.0, w.1))
                    .collect::<Vec<_>>()
                    .join(", "),
                why,
            },
            None => CartError::Riccati(why),
        }
    }
}

/// An LQR design about one equilibrium.
#[derive(Debug, Clone, Serialize)]
pub struct Lqr {
    pub equilibrium: String,
    pub weights: LqrWeights,
    /// K, 2 × (4n + 4) row-major: u = −K z.
    pub gain: Vec<f64>,
    /// Closed-loop eigenvalues of A − BK, as (re, im), sorted by real part.
    pub closed_loop: Vec<(f64, f64)>,
    /// Open-loop eigenvalues of A.
    pub open_loop: Vec<(f64, f64)>,
    /// Relative residual of the Riccati equation.
    pub riccati_residual: f64,
    pub controllability_margin: f64,
}

/// Designs the LQR gain at `signs`. Errors: a fixed cart, an uncontrollable linearization
/// (PBH margin ≤ [`CONTROLLABILITY_TOL`]), weights not > 0, or a Riccati failure.
pub fn lqr(sys: &CartChain, signs: &[f64], w: &LqrWeights) -> Result<Lqr, CartError> {
    for (field, v) in [
        ("q_cart", w.q_cart),
        ("q_angle", w.q_angle),
        ("q_rate", w.q_rate),
        ("r", w.r),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return Err(CartError::Invalid {
                field,
                value: v,
                why: "must be finite and > 0",
            });
        }
    }
    let lin = linearize(sys, signs)?;
    if !sys.free() {
        return Err(CartError::Uncontrollable {
            label: label(signs),
            why: "the cart is fixed, so there is no input".into(),
        });
    }
    let (a, b) = lin.state_space()?;
    let margin = controllability_margin(&a, &b);
    if margin <= CONTROLLABILITY_TOL {
        return Err(CartError::Uncontrollable {
            label: label(signs),
            why: format!("PBH margin {margin:.1e} (e.g. gravity = 0 decouples the links)"),
        });
    }
    let n = sys.links();
    let dim = 4 * n + 4;
    let q = DMatrix::from_fn(dim, dim, |i, j| {
        if i != j {
            0.0
        } else if i < 2 {
            w.q_cart
        } else if i < 2 * n + 2 {
            w.q_angle
        } else {
            w.q_rate
        }
    });
    let r = DMatrix::identity(2, 2) * w.r;
    let (p, residual) = care(&a, &b, &q, &r).map_err(|e| w.blame(e))?;
    // NaN fails too.
    if residual.is_nan() || residual >= 1e-8 {
        return Err(w.blame(CartError::Riccati(format!("residual {residual:.1e}"))));
    }
    let r_inv = r
        .try_inverse()
        .ok_or_else(|| CartError::Riccati("R is singular".into()))?;
    let k = r_inv * b.transpose() * &p;
    let acl = &a - &b * &k;
    let sorted = |m: &DMatrix<f64>| {
        let mut v: Vec<(f64, f64)> = m
            .complex_eigenvalues()
            .iter()
            .map(|z| (z.re, z.im))
            .collect();
        v.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        v
    };
    let mut gain = vec![0.0; 2 * dim];
    for r in 0..2 {
        for c in 0..dim {
            gain[r * dim + c] = k[(r, c)];
        }
    }
    Ok(Lqr {
        equilibrium: label(signs),
        weights: *w,
        gain,
        closed_loop: sorted(&acl),
        open_loop: sorted(&a),
        riccati_residual: residual,
        controllability_margin: margin,
    })
}

/// The equilibrium `signs` with the cart at `x` and every link tilted by `angle` (rad) towards
/// the common azimuth [`TILT_AZIMUTH`] (out of both coordinate planes, so the motion is 3-D), at
/// rest. (Tilting the links towards different azimuths twists the chain; for the inverted triple
/// chain that start leaves the basin of the default LQR at 0.05 rad.)
pub fn perturbed_equilibrium(sys: &CartChain, signs: &[f64], angle: f64, x: [f64; 2]) -> Vec<f64> {
    let n = sys.links();
    let (s, c) = TILT_AZIMUTH.sin_cos();
    let q: Vec<[f64; 3]> = (0..n)
        .map(|i| [angle.sin() * c, angle.sin() * s, signs[i] * angle.cos()])
        .collect();
    sys.state(x, [0.0; 2], &q, &vec![[0.0; 3]; n])
}

/// Azimuth (rad from e₁) of the tilt of [`perturbed_equilibrium`].
pub const TILT_AZIMUTH: f64 = 0.7;

/// A sampled trajectory of a cart chain: states (time × state), with its invariants.
#[derive(Debug, Clone)]
pub struct CartTrajectory {
    pub t: Vec<f64>,
    /// time × dim, row-major.
    pub state: Vec<f64>,
    pub dim: usize,
    pub energy: Vec<f64>,
    /// ∫ power dt (J), integrated with the state.
    pub work: Vec<f64>,
    /// The energy relative errors are measured against: max(|E(0)|, Σ W_i)
    /// ([`System::energy_scale`]).
    pub energy_scale: f64,
    /// Horizontal momentum (time × 2).
    pub momentum: Vec<[f64; 2]>,
    /// Vertical angular momentum about the pivot.
    pub angular_momentum_z: Vec<f64>,
    /// Cart force at each sample (time × 2).
    pub input: Vec<[f64; 2]>,
    /// Largest |‖q_i‖ − 1| and |q_i·ω_i| over the samples.
    pub constraint_drift: f64,
    pub stats: Stats,
    pub complete: bool,
}

impl CartTrajectory {
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
    pub fn sample(&self, k: usize) -> &[f64] {
        &self.state[k * self.dim..(k + 1) * self.dim]
    }
    /// Largest |E − E₀ − W| relative to `energy_scale` ([`EnergyBalance`]).
    pub fn max_energy_error(&self) -> f64 {
        let b = EnergyBalance {
            initial: self.energy[0],
            scale: self.energy_scale,
        };
        self.energy
            .iter()
            .zip(&self.work)
            .map(|(&e, &w)| b.relative(e, w))
            .fold(0.0, f64::max)
    }
}

fn drift(sys: &CartChain, s: &[f64]) -> f64 {
    let (qo, wo) = (sys.q_offset(), sys.omega_offset());
    let mut worst: f64 = 0.0;
    for i in 0..sys.links() {
        let q = &s[qo + 3 * i..qo + 3 * i + 3];
        let w = &s[wo + 3 * i..wo + 3 * i + 3];
        let nq = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
        worst = worst
            .max((nq - 1.0).abs())
            .max((q[0] * w[0] + q[1] * w[1] + q[2] * w[2]).abs());
    }
    worst
}

/// The cart chain's trajectory record; it always integrates the work (its error norm includes
/// it). Its state is constrained to (S²)ⁿ, so [`super::simulate`] lands every method on the
/// sample times and samples are projected solver points, on the manifold to round-off.
impl Sampled for CartChain {
    type Trajectory = CartTrajectory;

    fn trajectory(&self, s: Samples) -> CartTrajectory {
        let samples = || (0..s.len()).map(|k| (s.t[k], s.state(k)));
        let energy: Vec<f64> = samples().map(|(t, x)| self.energy(t, x)).collect();
        let momentum = samples().map(|(_, x)| self.momentum(x)).collect();
        let angular_momentum_z = samples().map(|(_, x)| self.angular_momentum_z(x)).collect();
        let input = samples()
            .map(|(t, x)| match self.free() {
                true => self.input(t, x),
                false => [0.0; 2],
            })
            .collect();
        let constraint_drift = samples().map(|(_, x)| drift(self, x)).fold(0.0, f64::max);
        CartTrajectory {
            energy_scale: self.energy_scale(energy[0]),
            energy,
            momentum,
            angular_momentum_z,
            input,
            constraint_drift,
            stats: s.stats,
            complete: s.complete,
            dim: s.dim,
            t: s.t,
            state: s.states,
            work: s.work,
        }
    }
}

/// A closed-loop run: the design, the trajectory and the error ‖z(t)‖ in linear coordinates.
#[derive(Debug, Clone)]
pub struct ClosedLoop {
    pub lqr: Lqr,
    pub trajectory: CartTrajectory,
    /// ‖z(t) − z_ref‖₂ at each sample.
    pub error: Vec<f64>,
    /// Largest ‖q_i − s_i e₃‖ at the last sample.
    pub final_direction_error: f64,
}

/// Designs the LQR at `signs` and runs the nonlinear chain under `u = −K (z − z_ref)` from `x0`.
#[allow(clippy::too_many_arguments)]
pub fn closed_loop(
    sys: &CartChain,
    signs: &[f64],
    weights: &LqrWeights,
    x_ref: [f64; 2],
    method: &Method,
    x0: &[f64],
    t_end: f64,
    dt_out: f64,
    observer: &mut dyn crate::observe::Observer,
) -> Result<ClosedLoop, ClosedLoopError> {
    let design = lqr(sys, signs, weights)?;
    let controlled = sys
        .with_input(CartInput::Feedback {
            gain: design.gain.clone(),
            x_ref,
        })
        .map_err(|e| CartError::Riccati(e.to_string()))?;
    let opts = SimulateOptions { t_end, dt_out };
    let trajectory = super::simulate(&controlled, method, x0, &opts, observer)?;
    let error = (0..trajectory.len())
        .map(|k| {
            let z = controlled.linear_coordinates(trajectory.sample(k), x_ref);
            z.iter().map(|v| v * v).sum::<f64>().sqrt()
        })
        .collect();
    let last = trajectory.sample(trajectory.len() - 1);
    let qo = controlled.q_offset();
    let final_direction_error = (0..sys.links())
        .map(|i| {
            let q = &last[qo + 3 * i..qo + 3 * i + 3];
            (q[0] * q[0] + q[1] * q[1] + (q[2] - signs[i]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max);
    Ok(ClosedLoop {
        lqr: design,
        trajectory,
        error,
        final_direction_error,
    })
}

/// Either a design error (bad input) or a failed run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ClosedLoopError {
    #[error(transparent)]
    Design(#[from] CartError),
    #[error(transparent)]
    Run(#[from] AnalysisError),
}

/// Σλ = ⟨tr J⟩ is not checked for the embedded state (see `lyapunov_spectrum`).
impl crate::model::PhaseVolume for CartChain {}
