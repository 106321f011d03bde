//! A chain of spherical pendulums on a cart moving in the horizontal plane (docs/physics.md §4,
//! after Lee, Leok & McClamroch): configuration (S²)ⁿ × R², directions `q_i` (unit vectors, e₃ along gravity) and
//! angular velocities `ω_i ⊥ q_i`, point masses at the outer link ends, a horizontal force
//! `u ∈ R²` on the cart. No Euler angles: the state is embedded in R^{6n+4} and the integrators
//! keep it on the constraint manifold through [`System::project`].
//!
//! **State.** Free cart: `[x (2) | ẋ (2) | q_1 … q_n (3n) | ω_1 … ω_n (3n)]`; fixed cart (an
//! inertial pivot, the chain of spherical pendulums): `[q | ω]`. The phase space has dimension
//! 4n + 4 (4n fixed).
//!
//! **Equations.** Seed 003 (27)–(29) with `q̈_i = −q̂_i ω̇_i − ‖ω_i‖² q_i`, i.e. the
//! Lagrange–d'Alembert equations in the unknowns `z = (ẍ, ω̇_1, …, ω̇_n)`:
//! `A(q) z = b(q, ω, ẋ, t)`, with `A = Jᵀ M J` the kinetic form in `(ẋ, ω)` (J maps `ω_j` to
//! `q̇_j = ω_j × q_j`) plus `M_jj q_j q_jᵀ` on each link's diagonal block. `A` is symmetric
//! positive definite: the added term fills exactly the null direction `ω̇_j ∥ q_j` of `Jᵀ M J`
//! and, since row j of `b` is ⊥ q_j, it forces `q_j · ω̇_j = 0`. The diagonal blocks become
//! `M_jj ‖q_j‖² I`; the off-diagonal ones are
//! `A_ij w = M_ij ((q_i·q_j) w − q_j (q_i·w))`, `A_0j w = −μ_j l_j Cᵀ(q_j × w)`,
//! `b_0 = u − c_x ẋ + Σ μ_i l_i ‖ω_i‖² Cᵀq_i`,
//! `b_i = Σ_j M_ij ‖ω_j‖² q_i × q_j + W_i q_i × e₃ + P_i τ_i`
//! (μ_i = Σ_{a≥i} m_a, W_i = g μ_i l_i, P_i = I − q_i q_iᵀ, τ_i the joint damping torque).
//! One Cholesky factor of `A` serves the state and every deviation vector.
//!
//! **Manifold.** Off the manifold the extension still conserves ‖q_i‖ and q_i·ω_i exactly in
//! continuous time (q̇_i ⊥ q_i, ω̇_i ⊥ q_i), so an explicit Runge–Kutta step leaves it only by its
//! truncation error; [`CartChain::project`] then puts the state back exactly (to round-off:
//! `q ← q/‖q‖`, `ω ← ω − (q·ω) q`) and the deviation vectors into the tangent space
//! (`δq ← P δq`, `δω ← δω − (q·δω + ω·δq) q`). We chose RK-plus-projection over an RKMK or
//! Crouch–Grossman scheme because it reuses DOP853's error control and dense output and RK4's
//! exact discrete tangent unchanged, keeps the order of the underlying method (the projection
//! moves the state by no more than its local error), and works for any [`System`]; the price is
//! that the discrete map is not symplectic, which no analysis here relies on.

mod state;

use super::linalg::{cholesky_in_place, cholesky_solve};
use super::{ModelError, System};

/// The horizontal force on the cart.
#[derive(Debug, Clone, PartialEq)]
pub enum CartInput {
    /// u = 0.
    Zero,
    /// `u_k(t) = amplitude_k · sin(omega · t + phase)`.
    Harmonic {
        amplitude: [f64; 2],
        omega: f64,
        phase: f64,
    },
    /// State feedback `u = −K (z − z_ref)` about the vertical equilibrium: `z` are the linear
    /// coordinates of [`CartChain::linear_coordinates`], `z_ref` the equilibrium with the cart
    /// at `x_ref`; `gain` is K, 2 × (4n + 4), row-major.
    Feedback { gain: Vec<f64>, x_ref: [f64; 2] },
}

/// Parameters of a [`CartChain`].
#[derive(Debug, Clone, PartialEq)]
pub struct CartChainParams {
    /// Link lengths l_i (m), cart to tip.
    pub lengths: Vec<f64>,
    /// Point masses m_i (kg) at the outer link ends.
    pub masses: Vec<f64>,
    /// Cart mass (kg); `None` for an inertially fixed pivot.
    pub cart_mass: Option<f64>,
    /// g (m/s²), along +e₃.
    pub gravity: f64,
    /// Viscous cart friction c_x (N·s/m): force −c_x ẋ.
    pub cart_damping: f64,
    /// Joint damping c_i (N·m·s): torque −c_i (ω_i − ω_{i−1}) on link i (ω_0 = 0) and its
    /// reaction on link i − 1. Empty for none.
    pub joint_damping: Vec<f64>,
    pub input: CartInput,
}

impl CartChainParams {
    /// n equal links of length `l` and mass `m` on a cart of mass `cart` (`None`: fixed), g = 9.81.
    pub fn uniform(n: usize, l: f64, m: f64, cart: Option<f64>) -> CartChainParams {
        CartChainParams {
            lengths: vec![l; n],
            masses: vec![m; n],
            cart_mass: cart,
            gravity: 9.81,
            cart_damping: 0.0,
            joint_damping: Vec::new(),
            input: CartInput::Zero,
        }
    }
}

/// The chain of spherical pendulums on a cart (see the module docs).
#[derive(Debug, Clone)]
pub struct CartChain {
    p: CartChainParams,
    n: usize,
    /// μ_i l_i.
    ml: Vec<f64>,
    /// W_i = g μ_i l_i.
    w: Vec<f64>,
    /// M_ij = μ_max(i,j) l_i l_j, n × n row-major.
    mij: Vec<f64>,
    /// M_00 = m + Σ m_i (0 for a fixed cart).
    m00: f64,
    /// Joint damping, padded to n + 1 entries (the last is 0).
    cj: Vec<f64>,
}

/// Scratch for [`CartChain`]'s right-hand sides.
#[derive(Debug, Clone)]
pub struct CartWorkspace {
    /// A (d × d) and then its Cholesky factor (lower triangle).
    a: Vec<f64>,
    /// z = (ẍ, ω̇) for the state.
    z: Vec<f64>,
    /// A right-hand side / solution for one deviation vector.
    r: Vec<f64>,
    /// Damping torques τ_i (3n).
    tau: Vec<f64>,
}

#[inline]
fn cross(a: &[f64], b: &[f64]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn bad(field: &str, value: f64, why: &'static str) -> ModelError {
    ModelError::Parameter {
        field: field.to_string(),
        value,
        why,
    }
}

/// At least one link, one mass per link, and every length and mass finite and > 0.
fn check_links(p: &CartChainParams) -> Result<(), ModelError> {
    let n = p.lengths.len();
    if n == 0 {
        return Err(ModelError::NoLinks);
    }
    if p.masses.len() != n {
        return Err(ModelError::Length {
            field: "masses",
            got: p.masses.len(),
            links: n,
        });
    }
    for i in 0..n {
        for (field, v) in [("length", p.lengths[i]), ("mass", p.masses[i])] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ModelError::Link {
                    link: i + 1,
                    field,
                    value: v,
                    why: "must be finite and > 0",
                });
            }
        }
    }
    Ok(())
}

/// The cart and its surroundings: cart mass > 0 unless fixed, finite gravity, damping of the
/// cart and of each joint (none, or one per link) finite and ≥ 0.
fn check_cart(p: &CartChainParams) -> Result<(), ModelError> {
    let n = p.lengths.len();
    if let Some(m) = p.cart_mass {
        if !(m.is_finite() && m > 0.0) {
            return Err(bad(
                "cart_mass",
                m,
                "must be finite and > 0 (set fixed = true for an inertial pivot)",
            ));
        }
    }
    if !p.gravity.is_finite() {
        return Err(bad("gravity", p.gravity, "must be finite"));
    }
    if !(p.cart_damping.is_finite() && p.cart_damping >= 0.0) {
        return Err(bad(
            "cart_damping",
            p.cart_damping,
            "must be finite and >= 0",
        ));
    }
    if !p.joint_damping.is_empty() && p.joint_damping.len() != n {
        return Err(ModelError::Length {
            field: "joint_damping",
            got: p.joint_damping.len(),
            links: n,
        });
    }
    if let Some(&c) = p
        .joint_damping
        .iter()
        .find(|c| !(c.is_finite() && **c >= 0.0))
    {
        return Err(bad("joint_damping", c, "must be finite and >= 0"));
    }
    Ok(())
}

/// The input: only on a free cart, finite, and a feedback gain of 2 × (4n + 4) entries.
fn check_input(p: &CartChainParams) -> Result<(), ModelError> {
    let n = p.lengths.len();
    match &p.input {
        CartInput::Zero => {}
        _ if p.cart_mass.is_none() => {
            return Err(bad(
                "input",
                f64::NAN,
                "a fixed cart takes no force (set a cart mass)",
            ))
        }
        CartInput::Harmonic {
            amplitude,
            omega,
            phase,
        } => {
            if !(amplitude.iter().all(|a| a.is_finite()) && omega.is_finite() && phase.is_finite())
            {
                return Err(bad(
                    "input",
                    f64::NAN,
                    "amplitude, omega and phase must be finite",
                ));
            }
        }
        CartInput::Feedback { gain, x_ref } => {
            if gain.len() != 2 * (4 * n + 4) {
                return Err(bad(
                    "gain",
                    gain.len() as f64,
                    "must have 2 × (4n + 4) entries",
                ));
            }
            if !gain.iter().chain(x_ref.iter()).all(|v| v.is_finite()) {
                return Err(bad("gain", f64::NAN, "must be finite"));
            }
        }
    }
    Ok(())
}

impl CartChain {
    /// Validates the parameters (every length and mass finite and > 0, the cart mass > 0 unless
    /// fixed, damping ≥ 0, an input only on a free cart, a gain of 2 × (4n + 4)).
    pub fn new(p: CartChainParams) -> Result<CartChain, ModelError> {
        check_links(&p)?;
        check_cart(&p)?;
        check_input(&p)?;
        let n = p.lengths.len();
        let mut mu = vec![0.0; n];
        let mut acc = 0.0;
        for i in (0..n).rev() {
            acc += p.masses[i];
            mu[i] = acc;
        }
        let l = &p.lengths;
        let ml: Vec<f64> = (0..n).map(|i| mu[i] * l[i]).collect();
        let w = ml.iter().map(|v| p.gravity * v).collect();
        let mut mij = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                mij[i * n + j] = mu[i.max(j)] * l[i] * l[j];
            }
        }
        let m00 = p.cart_mass.map_or(0.0, |m| m + acc);
        let mut cj = vec![0.0; n + 1];
        cj[..p.joint_damping.len()].copy_from_slice(&p.joint_damping);
        Ok(CartChain {
            n,
            ml,
            w,
            mij,
            m00,
            cj,
            p,
        })
    }

    pub fn params(&self) -> &CartChainParams {
        &self.p
    }
    pub fn links(&self) -> usize {
        self.n
    }
    /// Whether the cart moves (a cart mass was given).
    pub fn free(&self) -> bool {
        self.p.cart_mass.is_some()
    }
    /// The link directions `q_i` and angular velocities `ω_i` (3n entries each) of a state, or
    /// of a deviation vector (same layout).
    #[inline]
    fn links_of<'a>(&self, s: &'a [f64]) -> (&'a [f64], &'a [f64]) {
        let (qo, wo, m) = (self.q_offset(), self.omega_offset(), 3 * self.n);
        (&s[qo..qo + m], &s[wo..wo + m])
    }

    /// Offset of q_1 in the state (4 for a free cart, 0 for a fixed one).
    #[inline]
    pub fn q_offset(&self) -> usize {
        if self.free() {
            4
        } else {
            0
        }
    }
    /// Offset of ω_1 in the state.
    #[inline]
    pub fn omega_offset(&self) -> usize {
        self.q_offset() + 3 * self.n
    }
    /// Unknowns of the acceleration solve (2 + 3n or 3n).
    #[inline]
    fn unknowns(&self) -> usize {
        self.q_offset() / 2 + 3 * self.n
    }
    /// μ_i l_i (the cart–link coupling of eq. 9).
    pub fn coupling(&self) -> &[f64] {
        &self.ml
    }
    /// M_ij of eq. (11), n × n row-major.
    pub fn link_inertia(&self) -> &[f64] {
        &self.mij
    }
    /// M_00 = m + Σ m_i (0 when fixed).
    pub fn total_mass(&self) -> f64 {
        self.m00
    }
    /// W_i = g μ_i l_i (the gravity moments).
    pub fn gravity_moments(&self) -> &[f64] {
        &self.w
    }

    /// A model with the same chain and another input.
    pub fn with_input(&self, input: CartInput) -> Result<CartChain, ModelError> {
        CartChain::new(CartChainParams {
            input,
            ..self.p.clone()
        })
    }

    /// Joint damping torques τ_i into `tau` (3n) from the ω block `w`.
    #[inline]
    fn torques(&self, w: &[f64], tau: &mut [f64]) {
        let n = self.n;
        for i in 0..n {
            for c in 0..3 {
                let wi = w[3 * i + c];
                let below = if i > 0 { w[3 * i - 3 + c] } else { 0.0 };
                let above = if i + 1 < n { w[3 * i + 3 + c] } else { wi };
                tau[3 * i + c] = -self.cj[i] * (wi - below) + self.cj[i + 1] * (above - wi);
            }
        }
    }

    fn damped(&self) -> bool {
        self.cj.iter().any(|c| *c != 0.0)
    }

    /// Assembles A(q) into `ws.a` and factors it (Cholesky, lower triangle), and b into `ws.z`,
    /// which it then overwrites with z = A⁻¹ b.
    fn accelerations(&self, t: f64, s: &[f64], ws: &mut CartWorkspace) {
        let (n, d) = (self.n, self.unknowns());
        let o = d - 3 * n;
        let (q, w) = self.links_of(s);
        let a = &mut ws.a;
        let b = &mut ws.z;
        // Lower triangle of A (row ≥ column), row-major d × d.
        if o == 2 {
            a[0] = self.m00;
            a[d] = 0.0;
            a[d + 1] = self.m00;
            for j in 0..n {
                let qj = &q[3 * j..3 * j + 3];
                // A[o+3j+s, r] = −μ_j l_j (q̂_j)_{r s}; q̂ = [[0,−q3,q2],[q3,0,−q1],[−q2,q1,0]].
                let hat = [[0.0, -qj[2], qj[1]], [qj[2], 0.0, -qj[0]]];
                for sdx in 0..3 {
                    for r in 0..2 {
                        a[(o + 3 * j + sdx) * d + r] = -self.ml[j] * hat[r][sdx];
                    }
                }
            }
        }
        for i in 0..n {
            let qi = &q[3 * i..3 * i + 3];
            for j in 0..=i {
                let qj = &q[3 * j..3 * j + 3];
                let mij = self.mij[i * n + j];
                let base = (o + 3 * i) * d + o + 3 * j;
                if i == j {
                    let diag = mij * dot(qi, qi);
                    for r in 0..3 {
                        for c in 0..=r {
                            a[base + r * d + c] = if r == c { diag } else { 0.0 };
                        }
                    }
                } else {
                    let qq = dot(qi, qj);
                    for r in 0..3 {
                        for c in 0..3 {
                            let delta = if r == c { qq } else { 0.0 };
                            a[base + r * d + c] = mij * (delta - qj[r] * qi[c]);
                        }
                    }
                }
            }
        }
        // b.
        if o == 2 {
            let u = self.input(t, s);
            b[0] = u[0] - self.p.cart_damping * s[2];
            b[1] = u[1] - self.p.cart_damping * s[3];
            for i in 0..n {
                let w2 = dot(&w[3 * i..3 * i + 3], &w[3 * i..3 * i + 3]);
                b[0] += self.ml[i] * w2 * q[3 * i];
                b[1] += self.ml[i] * w2 * q[3 * i + 1];
            }
        }
        let damped = self.damped();
        if damped {
            self.torques(w, &mut ws.tau);
        }
        for i in 0..n {
            let qi = &q[3 * i..3 * i + 3];
            let g = self.w[i];
            let mut bi = [g * qi[1], -g * qi[0], 0.0];
            for j in 0..n {
                if j == i {
                    continue;
                }
                let wj = &w[3 * j..3 * j + 3];
                let c = self.mij[i * n + j] * dot(wj, wj);
                let x = cross(qi, &q[3 * j..3 * j + 3]);
                for k in 0..3 {
                    bi[k] += c * x[k];
                }
            }
            if damped {
                let ti = &ws.tau[3 * i..3 * i + 3];
                let qt = dot(qi, ti);
                for k in 0..3 {
                    bi[k] += ti[k] - qt * qi[k];
                }
            }
            b[o + 3 * i..o + 3 * i + 3].copy_from_slice(&bi);
        }
        // A is SPD for any state (a kinetic-energy Gram matrix); a NaN state is caught by the
        // integrators' finiteness check.
        let _ = cholesky_in_place(a, d);
        cholesky_solve(a, d, b);
    }

    /// The tangent right-hand side of one deviation vector `dv` into `out` (see the module docs
    /// for the formulas differentiated here); `ws.z` holds z and `ws.a` the factor of A.
    #[inline]
    fn tangent_column(&self, s: &[f64], dx: &[f64], out: &mut [f64], ws: &mut CartWorkspace) {
        let (n, d) = (self.n, self.unknowns());
        let o = d - 3 * n;
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        let (q, w) = self.links_of(s);
        let (dq, dw) = self.links_of(dx);
        let z = &ws.z;
        let r = &mut ws.r;
        let acc = if o == 2 { [z[0], z[1], 0.0] } else { [0.0; 3] };
        let wd = &z[o..];
        if o == 2 {
            // δu (feedback), friction, centripetal terms, minus δA z.
            let mut du = [0.0; 2];
            if let CartInput::Feedback { gain, .. } = &self.p.input {
                let m = 4 * n + 4;
                let h = 2 * n + 2;
                let mut add = |j: usize, v: f64| {
                    du[0] -= gain[j] * v;
                    du[1] -= gain[m + j] * v;
                };
                add(0, dx[0]);
                add(1, dx[1]);
                add(h, dx[2]);
                add(h + 1, dx[3]);
                for i in 0..n {
                    let a = cross(&dw[3 * i..3 * i + 3], &q[3 * i..3 * i + 3]);
                    let b = cross(&w[3 * i..3 * i + 3], &dq[3 * i..3 * i + 3]);
                    add(2 + 2 * i, dq[3 * i]);
                    add(3 + 2 * i, dq[3 * i + 1]);
                    add(h + 2 + 2 * i, a[0] + b[0]);
                    add(h + 3 + 2 * i, a[1] + b[1]);
                }
            }
            r[0] = du[0] - self.p.cart_damping * dx[2];
            r[1] = du[1] - self.p.cart_damping * dx[3];
            for i in 0..n {
                let wi = &w[3 * i..3 * i + 3];
                let w2 = dot(wi, wi);
                let dw2 = 2.0 * dot(wi, &dw[3 * i..3 * i + 3]);
                let x = cross(&dq[3 * i..3 * i + 3], &wd[3 * i..3 * i + 3]);
                for k in 0..2 {
                    r[k] += self.ml[i] * (dw2 * q[3 * i + k] + w2 * dq[3 * i + k] + x[k]);
                }
            }
        }
        let damped = self.damped();
        for i in 0..n {
            let qi = &q[3 * i..3 * i + 3];
            let dqi = &dq[3 * i..3 * i + 3];
            let g = self.w[i];
            let mut ri = [g * dqi[1], -g * dqi[0], 0.0];
            // −δA_i0 ẍ = −μ_i l_i δq_i × Cẍ.
            let x = cross(dqi, &acc);
            for k in 0..3 {
                ri[k] -= self.ml[i] * x[k];
            }
            // −δA_ii ω̇_i.
            let c = 2.0 * self.mij[i * n + i] * dot(qi, dqi);
            for k in 0..3 {
                ri[k] -= c * wd[3 * i + k];
            }
            for j in 0..n {
                if j == i {
                    continue;
                }
                let qj = &q[3 * j..3 * j + 3];
                let dqj = &dq[3 * j..3 * j + 3];
                let wj = &w[3 * j..3 * j + 3];
                let mij = self.mij[i * n + j];
                let w2 = dot(wj, wj);
                let dw2 = 2.0 * dot(wj, &dw[3 * j..3 * j + 3]);
                let a = cross(qi, qj);
                let b1 = cross(dqi, qj);
                let b2 = cross(qi, dqj);
                let zj = &wd[3 * j..3 * j + 3];
                let s1 = dot(dqi, qj) + dot(qi, dqj);
                let s2 = dot(qi, zj);
                let s3 = dot(dqi, zj);
                for k in 0..3 {
                    ri[k] += mij
                        * (dw2 * a[k] + w2 * (b1[k] + b2[k])
                            - (s1 * zj[k] - dqj[k] * s2 - qj[k] * s3));
                }
            }
            if damped {
                // δ(P_i τ_i) with δτ from δω (τ is linear in ω).
                let mut dt = [0.0; 3];
                for k in 0..3 {
                    let wi = dw[3 * i + k];
                    let below = if i > 0 { dw[3 * i - 3 + k] } else { 0.0 };
                    let above = if i + 1 < n { dw[3 * i + 3 + k] } else { wi };
                    dt[k] = -self.cj[i] * (wi - below) + self.cj[i + 1] * (above - wi);
                }
                let ti = &ws.tau[3 * i..3 * i + 3];
                let qt = dot(qi, ti);
                let c = dot(dqi, ti) + dot(qi, &dt);
                for k in 0..3 {
                    ri[k] += dt[k] - dqi[k] * qt - qi[k] * c;
                }
            }
            r[o + 3 * i..o + 3 * i + 3].copy_from_slice(&ri);
        }
        cholesky_solve(&ws.a, d, r);
        if o == 2 {
            out[0] = dx[2];
            out[1] = dx[3];
            out[2] = r[0];
            out[3] = r[1];
        }
        for i in 0..n {
            let a = cross(&dw[3 * i..3 * i + 3], &q[3 * i..3 * i + 3]);
            let b = cross(&w[3 * i..3 * i + 3], &dq[3 * i..3 * i + 3]);
            for k in 0..3 {
                out[qo + 3 * i + k] = a[k] + b[k];
                out[wo + 3 * i + k] = r[o + 3 * i + k];
            }
        }
    }

    /// Writes the state derivative from z (in `ws.z`).
    #[inline]
    fn state_rhs(&self, s: &[f64], out: &mut [f64], ws: &CartWorkspace) {
        let n = self.n;
        let o = self.unknowns() - 3 * n;
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        if o == 2 {
            out[0] = s[2];
            out[1] = s[3];
            out[2] = ws.z[0];
            out[3] = ws.z[1];
        }
        for i in 0..n {
            let qd = cross(
                &s[wo + 3 * i..wo + 3 * i + 3],
                &s[qo + 3 * i..qo + 3 * i + 3],
            );
            out[qo + 3 * i..qo + 3 * i + 3].copy_from_slice(&qd);
            out[wo + 3 * i..wo + 3 * i + 3].copy_from_slice(&ws.z[o + 3 * i..o + 3 * i + 3]);
        }
    }
}

impl System for CartChain {
    type Workspace = CartWorkspace;

    fn dim(&self) -> usize {
        self.q_offset() + 6 * self.n
    }

    fn workspace(&self) -> CartWorkspace {
        let d = self.unknowns();
        CartWorkspace {
            a: vec![0.0; d * d],
            z: vec![0.0; d],
            r: vec![0.0; d],
            tau: vec![0.0; 3 * self.n],
        }
    }

    fn rhs(&self, t: f64, s: &[f64], ds: &mut [f64], ws: &mut CartWorkspace) {
        self.accelerations(t, s, ws);
        self.state_rhs(s, ds, ws);
    }

    fn rhs_tangent(
        &self,
        t: f64,
        s: &[f64],
        v: &[f64],
        ds: &mut [f64],
        dv: &mut [f64],
        ws: &mut CartWorkspace,
    ) {
        self.rhs(t, s, ds, ws);
        let n = self.dim();
        for (col, out) in v.chunks_exact(n).zip(dv.chunks_exact_mut(n)) {
            self.tangent_column(s, col, out, ws);
        }
    }

    fn energy(&self, _t: f64, s: &[f64]) -> f64 {
        let n = self.n;
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        let qd: Vec<[f64; 3]> = (0..n)
            .map(|i| {
                cross(
                    &s[wo + 3 * i..wo + 3 * i + 3],
                    &s[qo + 3 * i..qo + 3 * i + 3],
                )
            })
            .collect();
        let mut t = 0.0;
        if self.free() {
            t += 0.5 * self.m00 * (s[2] * s[2] + s[3] * s[3]);
            for i in 0..n {
                t += self.ml[i] * (s[2] * qd[i][0] + s[3] * qd[i][1]);
            }
        }
        let mut v = 0.0;
        for i in 0..n {
            for j in 0..n {
                t += 0.5 * self.mij[i * n + j] * dot(&qd[i], &qd[j]);
            }
            v -= self.w[i] * s[qo + 3 * i + 2];
        }
        t + v
    }

    /// max(|E₀|, Σ w_i): the potential is −Σ w_i q_i·e₃, so Σ w_i lifts the hanging chain to
    /// the pivot's level, as g Σ b_j does for the planar chain.
    fn energy_scale(&self, e0: f64) -> f64 {
        e0.abs()
            .max(self.w.iter().map(|w| w.abs()).sum::<f64>())
            .max(f64::MIN_POSITIVE)
    }

    /// `u·ẋ − c_x ‖ẋ‖² + Σ τ_i·ω_i` (the last is −Σ c_i ‖ω_i − ω_{i−1}‖²).
    fn power(&self, t: f64, s: &[f64]) -> f64 {
        let mut p = 0.0;
        if self.free() {
            let u = self.input(t, s);
            p += u[0] * s[2] + u[1] * s[3] - self.p.cart_damping * (s[2] * s[2] + s[3] * s[3]);
        }
        if self.damped() {
            let wo = self.omega_offset();
            let w = &s[wo..wo + 3 * self.n];
            let mut tau = vec![0.0; 3 * self.n];
            self.torques(w, &mut tau);
            p += tau.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
        }
        p
    }

    fn manifold_dim(&self) -> usize {
        self.q_offset() + 4 * self.n
    }

    #[inline]
    fn project(&self, s: &mut [f64], v: &mut [f64]) -> bool {
        let n = self.n;
        let dim = self.dim();
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        for i in 0..n {
            let (qa, wa) = (qo + 3 * i, wo + 3 * i);
            let nq = dot(&s[qa..qa + 3], &s[qa..qa + 3]).sqrt();
            for k in 0..3 {
                s[qa + k] /= nq;
            }
            let qw = dot(&s[qa..qa + 3], &s[wa..wa + 3]);
            for k in 0..3 {
                s[wa + k] -= qw * s[qa + k];
            }
            for col in v.chunks_exact_mut(dim) {
                let c = dot(&s[qa..qa + 3], &col[qa..qa + 3]);
                for k in 0..3 {
                    col[qa + k] -= c * s[qa + k];
                }
                let c =
                    dot(&s[qa..qa + 3], &col[wa..wa + 3]) + dot(&s[wa..wa + 3], &col[qa..qa + 3]);
                for k in 0..3 {
                    col[wa + k] -= c * s[qa + k];
                }
            }
        }
        true
    }

    /// Gram–Schmidt on the natural tangent basis: the cart axes, and per link the two rotations
    /// δq = a (with δω = −(ω·a) q, as q·δω + ω·δq = 0 requires) and δω = a, for a ⊥ q.
    fn tangent_basis(&self, s: &[f64], k: usize, v: &mut [f64]) {
        let n = self.n;
        let dim = self.dim();
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        let mut basis: Vec<Vec<f64>> = Vec::new();
        for c in 0..qo {
            let mut e = vec![0.0; dim];
            e[c] = 1.0;
            basis.push(e);
        }
        for i in 0..n {
            let q = &s[qo + 3 * i..qo + 3 * i + 3];
            let w = &s[wo + 3 * i..wo + 3 * i + 3];
            // A vector not parallel to q, then two orthonormal vectors ⊥ q.
            let pick = if q[0].abs() < 0.6 {
                [1.0, 0.0, 0.0]
            } else {
                [0.0, 1.0, 0.0]
            };
            let mut a = cross(q, &pick);
            let na = dot(&a, &a).sqrt();
            a.iter_mut().for_each(|x| *x /= na);
            let b = cross(q, &a);
            for t in [a, b] {
                let mut e = vec![0.0; dim];
                let wa = dot(w, &t);
                for c in 0..3 {
                    e[qo + 3 * i + c] = t[c];
                    e[wo + 3 * i + c] = -wa * q[c];
                }
                basis.push(e);
                let mut e = vec![0.0; dim];
                e[wo + 3 * i..wo + 3 * i + 3].copy_from_slice(&t);
                basis.push(e);
            }
        }
        for j in 0..basis.len() {
            for i in 0..j {
                let (done, rest) = basis.split_at_mut(j);
                let c: f64 = done[i].iter().zip(&rest[0]).map(|(a, b)| a * b).sum();
                rest[0]
                    .iter_mut()
                    .zip(&done[i])
                    .for_each(|(x, y)| *x -= c * y);
            }
            let nb = basis[j].iter().map(|x| x * x).sum::<f64>().sqrt();
            basis[j].iter_mut().for_each(|x| *x /= nb);
        }
        for (c, e) in basis.iter().take(k).enumerate() {
            v[c * dim..(c + 1) * dim].copy_from_slice(e);
        }
    }

    fn component_name(&self, i: usize) -> String {
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        let axis = ["x", "y", "z"];
        if i < qo {
            ["x[1]", "x[2]", "xdot[1]", "xdot[2]"][i].to_string()
        } else if i < wo {
            format!("q[{}].{}", (i - qo) / 3 + 1, axis[(i - qo) % 3])
        } else {
            format!("omega[{}].{}", (i - wo) / 3 + 1, axis[(i - wo) % 3])
        }
    }
}
