//! States of the cart chain from their parts, their check on the manifold, and what is
//! observed of them: the input, the LQR's linear coordinates, the masses' positions, momentum
//! and the vertical angular momentum.

use super::*;

impl CartChain {
    /// The state `(x, ẋ, q, ω)` (x and ẋ dropped when fixed) from its parts.
    pub fn state(&self, x: [f64; 2], v: [f64; 2], q: &[[f64; 3]], omega: &[[f64; 3]]) -> Vec<f64> {
        let mut s = Vec::with_capacity(self.dim());
        if self.free() {
            s.extend_from_slice(&x);
            s.extend_from_slice(&v);
        }
        q.iter().for_each(|a| s.extend_from_slice(a));
        omega.iter().for_each(|a| s.extend_from_slice(a));
        s
    }

    /// The vertical equilibrium `q_i = s_i e₃` (s_i = ±1; hanging all +1) at rest, cart at x.
    pub fn equilibrium(&self, signs: &[f64], x: [f64; 2]) -> Vec<f64> {
        let q: Vec<[f64; 3]> = signs.iter().map(|s| [0.0, 0.0, *s]).collect();
        self.state(x, [0.0; 2], &q, &vec![[0.0; 3]; self.n])
    }

    /// Checks an initial state: finite, ‖q_i‖ = 1 and q_i·ω_i = 0 to 1e-9 (relative to ‖ω_i‖).
    /// Non-unit directions are **rejected**, not normalized: a silently rescaled q would no
    /// longer match the ω the user gave for it. The error names the component ("q[2]").
    pub fn check_state(&self, s: &[f64]) -> Result<(), ModelError> {
        if s.len() != self.dim() {
            return Err(bad("state", s.len() as f64, "has the wrong length"));
        }
        if let Some(i) = s.iter().position(|v| !v.is_finite()) {
            return Err(ModelError::Parameter {
                field: self.component_name(i),
                value: s[i],
                why: "must be finite",
            });
        }
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        for i in 0..self.n {
            let q = &s[qo + 3 * i..qo + 3 * i + 3];
            let w = &s[wo + 3 * i..wo + 3 * i + 3];
            let nq = dot(q, q).sqrt();
            if (nq - 1.0).abs() > 1e-9 {
                return Err(ModelError::Parameter {
                    field: format!("q[{}]", i + 1),
                    value: nq,
                    why: "must be a unit vector (its norm is the value given; not normalized)",
                });
            }
            let qw = dot(q, w);
            if qw.abs() > 1e-9 * (1.0 + dot(w, w).sqrt()) {
                return Err(ModelError::Parameter {
                    field: format!("omega[{}]", i + 1),
                    value: qw,
                    why: "must be perpendicular to q (the value is q·omega)",
                });
            }
        }
        Ok(())
    }

    /// The horizontal force at `(t, s)`.
    #[inline]
    pub fn input(&self, t: f64, s: &[f64]) -> [f64; 2] {
        match &self.p.input {
            CartInput::Zero => [0.0; 2],
            CartInput::Harmonic {
                amplitude,
                omega,
                phase,
            } => {
                let sn = (omega * t + phase).sin();
                [amplitude[0] * sn, amplitude[1] * sn]
            }
            CartInput::Feedback { gain, x_ref } => {
                let m = 4 * self.n + 4;
                let mut u = [0.0; 2];
                self.for_linear_coordinate(s, *x_ref, |j, zj| {
                    u[0] -= gain[j] * zj;
                    u[1] -= gain[m + j] * zj;
                });
                u
            }
        }
    }

    /// Calls `f(j, z_j)` for the 4n + 4 linear coordinates `z = (x − x_ref, Cᵀq_1, …, Cᵀq_n,
    /// ẋ, Cᵀq̇_1, …, Cᵀq̇_n)` of a free-cart state (q̇ = ω × q). Near a vertical equilibrium the
    /// horizontal components Cᵀq_i are a chart of S², so z is the state of the linearization.
    #[inline]
    fn for_linear_coordinate(&self, s: &[f64], x_ref: [f64; 2], mut f: impl FnMut(usize, f64)) {
        let n = self.n;
        let h = 2 * n + 2;
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        f(0, s[0] - x_ref[0]);
        f(1, s[1] - x_ref[1]);
        f(h, s[2]);
        f(h + 1, s[3]);
        for i in 0..n {
            let q = &s[qo + 3 * i..qo + 3 * i + 3];
            let qd = cross(&s[wo + 3 * i..wo + 3 * i + 3], q);
            f(2 + 2 * i, q[0]);
            f(3 + 2 * i, q[1]);
            f(h + 2 + 2 * i, qd[0]);
            f(h + 3 + 2 * i, qd[1]);
        }
    }

    /// The linear coordinates z of a state (see [`CartInput::Feedback`]): 4n + 4 entries for a
    /// free cart, 4n (no cart entries) for a fixed one.
    pub fn linear_coordinates(&self, s: &[f64], x_ref: [f64; 2]) -> Vec<f64> {
        let n = self.n;
        if self.free() {
            let mut z = vec![0.0; 4 * n + 4];
            self.for_linear_coordinate(s, x_ref, |j, v| z[j] = v);
            z
        } else {
            let wo = self.omega_offset();
            let mut z = vec![0.0; 4 * n];
            for i in 0..n {
                let q = &s[3 * i..3 * i + 3];
                let qd = cross(&s[wo + 3 * i..wo + 3 * i + 3], q);
                z[2 * i] = q[0];
                z[2 * i + 1] = q[1];
                z[2 * n + 2 * i] = qd[0];
                z[2 * n + 2 * i + 1] = qd[1];
            }
            z
        }
    }

    /// Positions of the cart (z = 0) and the n masses, `(n + 1) × 3`.
    pub fn positions(&self, s: &[f64]) -> Vec<[f64; 3]> {
        let qo = self.q_offset();
        let mut p = [0.0; 3];
        if self.free() {
            p[0] = s[0];
            p[1] = s[1];
        }
        let mut out = vec![p];
        for i in 0..self.n {
            for c in 0..3 {
                p[c] += self.p.lengths[i] * s[qo + 3 * i + c];
            }
            out.push(p);
        }
        out
    }

    /// Horizontal momentum `M_00 ẋ + Σ μ_i l_i Cᵀq̇_i` (conserved for u = 0, c_x = 0; zero when
    /// fixed).
    pub fn momentum(&self, s: &[f64]) -> [f64; 2] {
        if !self.free() {
            return [0.0; 2];
        }
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        let mut p = [self.m00 * s[2], self.m00 * s[3]];
        for i in 0..self.n {
            let qd = cross(
                &s[wo + 3 * i..wo + 3 * i + 3],
                &s[qo + 3 * i..qo + 3 * i + 3],
            );
            p[0] += self.ml[i] * qd[0];
            p[1] += self.ml[i] * qd[1];
        }
        p
    }

    /// Vertical angular momentum of the masses about the cart's vertical axis,
    /// `L_z = Σ_k m_k (r_k × ṙ_k)·e₃`, r_k relative to the pivot (conserved for a fixed pivot
    /// without input; for a free cart it is the angular momentum in the cart frame).
    pub fn angular_momentum_z(&self, s: &[f64]) -> f64 {
        let (qo, wo) = (self.q_offset(), self.omega_offset());
        let mut r = [0.0; 3];
        let mut rd = [0.0; 3];
        let mut lz = 0.0;
        for i in 0..self.n {
            let q = &s[qo + 3 * i..qo + 3 * i + 3];
            let qd = cross(&s[wo + 3 * i..wo + 3 * i + 3], q);
            for c in 0..3 {
                r[c] += self.p.lengths[i] * q[c];
                rd[c] += self.p.lengths[i] * qd[c];
            }
            lz += self.p.masses[i] * (r[0] * rd[1] - r[1] * rd[0]);
        }
        lz
    }
}
