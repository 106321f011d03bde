//! The quantities of a chain's state that are not its flow: the mass matrix, kinetic and
//! potential energy and the energy gradient, per-link kinetic energies, generalized forces and
//! accelerations, joint positions and reaction forces, and the canonical coordinates (θ, p).

use super::Chain;
use crate::model::linalg::{cholesky_in_place, cholesky_solve};
use crate::model::structured;
use crate::model::System;

impl Chain {
    /// Mass matrix M(θ) (row-major N × N).
    pub fn mass_matrix(&self, theta: &[f64]) -> Vec<f64> {
        let n = self.n;
        let a = self.a();
        let mut m = vec![0.0; n * n];
        for j in 0..n {
            for k in 0..n {
                m[j * n + k] = a[j * n + k] * (theta[j] - theta[k]).cos();
            }
        }
        m
    }

    /// Kinetic energy ½ θ̇ᵀ M θ̇ (J).
    pub fn kinetic_energy(&self, x: &[f64]) -> f64 {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        if self.structured {
            return structured::kinetic_energy(&self.consts(), theta, omega);
        }
        let a = self.a();
        let mut t = 0.0;
        for j in 0..n {
            t += 0.5 * a[j * n + j] * omega[j] * omega[j];
            for k in (j + 1)..n {
                t += a[j * n + k] * (theta[j] - theta[k]).cos() * omega[j] * omega[k];
            }
        }
        t
    }

    /// Gravitational potential energy −g Σ b_j cos θ_j (J), zero at the pivot's height.
    pub fn potential_energy(&self, theta: &[f64]) -> f64 {
        -self.params.gravity
            * self
                .b
                .iter()
                .zip(theta)
                .map(|(b, th)| b * th.cos())
                .sum::<f64>()
    }

    /// ∇E at `x = (θ, θ̇)` for a still pivot, E = ½ Σ a_jk cos(θ_j − θ_k) θ̇_j θ̇_k − g Σ b_j cos θ_j:
    /// ∂E/∂θ_j = g b_j sin θ_j − Σ_k a_jk sin(θ_j − θ_k) θ̇_j θ̇_k and ∂E/∂θ̇ = M(θ) θ̇ (the energy
    /// condition of a periodic orbit's shooting equations).
    pub fn energy_gradient(&self, x: &[f64]) -> Vec<f64> {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        let a = self.a();
        let g = self.params.gravity;
        let mut grad = vec![0.0; 2 * n];
        for j in 0..n {
            grad[j] = g * self.b[j] * theta[j].sin();
            for k in 0..n {
                let (s, c) = (theta[j] - theta[k]).sin_cos();
                grad[j] -= a[j * n + k] * s * omega[j] * omega[k];
                grad[n + j] += a[j * n + k] * c * omega[k];
            }
        }
        grad
    }

    /// Per-link kinetic energies of the links' own motion: ½ m_i |ṙ_i|² + ½ J_i θ̇_i² (J).
    pub fn link_kinetic_energies(&self, x: &[f64]) -> Vec<f64> {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        let mut base = [0.0f64; 2];
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let link = &self.params.links[i];
            let q = [theta[i].cos(), theta[i].sin()];
            let v = [
                base[0] + link.com * q[0] * omega[i],
                base[1] + link.com * q[1] * omega[i],
            ];
            out.push(
                0.5 * link.mass * (v[0] * v[0] + v[1] * v[1])
                    + 0.5 * link.inertia * omega[i] * omega[i],
            );
            base[0] += link.length * q[0] * omega[i];
            base[1] += link.length * q[1] * omega[i];
        }
        out
    }

    /// Generalized non-conservative forces Q (damping, pivot torque, pivot motion), N·m.
    pub fn generalized_forces(&self, t: f64, x: &[f64]) -> Vec<f64> {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        let mut q = vec![0.0; n];
        q[0] += self.torque(t);
        if let Some(p) = &self.params.drive.pivot {
            let acc = p.acceleration(t);
            for j in 0..n {
                q[j] -= self.b[j] * (acc[0] * theta[j].cos() + acc[1] * theta[j].sin());
            }
        }
        for j in 0..n {
            q[j] -= self.d_diag[j] * omega[j];
            if j + 1 < n {
                q[j] -= self.d_off[j] * omega[j + 1];
                q[j + 1] -= self.d_off[j] * omega[j];
            }
        }
        q
    }

    /// Angular accelerations α = θ̈ (allocating convenience; the hot path is [`System::rhs`]).
    pub fn acceleration(&self, t: f64, x: &[f64]) -> Vec<f64> {
        let mut ws = self.workspace();
        let mut dx = vec![0.0; 2 * self.n];
        self.rhs(t, x, &mut dx, &mut ws);
        dx[self.n..].to_vec()
    }

    /// Positions of the joints at time t (pivot first, then each link's lower end), in the lab
    /// frame: a driven pivot is where its motion has taken it.
    pub fn joint_positions(&self, t: f64, theta: &[f64]) -> Vec<[f64; 2]> {
        let mut cur = self.params.drive.pivot_position(t);
        let mut p = vec![cur];
        for (link, th) in self.params.links.iter().zip(theta) {
            cur = [
                cur[0] + link.length * th.sin(),
                cur[1] - link.length * th.cos(),
            ];
            p.push(cur);
        }
        p
    }

    /// Joint reaction forces (docs/physics.md §1): entry j (0-based) is the force (N, x and y) that
    /// links j+1..N exert on the part above their upper joint (entry 0: the load on the pivot),
    /// `F_j = −Σ_{i≥j} m_i (r̈_i + g e_y)` with r̈_i the inertial acceleration of link i's c.o.m.
    pub fn reaction_forces(&self, t: f64, x: &[f64]) -> Vec<[f64; 2]> {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        let alpha = self.acceleration(t, x);
        let s_acc = self
            .params
            .drive
            .pivot
            .map_or([0.0, 0.0], |p| p.acceleration(t));
        let g = self.params.gravity;
        // Acceleration of the upper joint of link i, accumulated down the chain.
        let mut joint = s_acc;
        let mut acc = Vec::with_capacity(n);
        for i in 0..n {
            let link = &self.params.links[i];
            let (s, c) = theta[i].sin_cos();
            // d²/dt² of p(θ) = (sin θ, −cos θ) is q α − p ω², q = (cos θ, sin θ).
            let e = [
                c * alpha[i] - s * omega[i] * omega[i],
                s * alpha[i] + c * omega[i] * omega[i],
            ];
            acc.push([joint[0] + link.com * e[0], joint[1] + link.com * e[1]]);
            joint = [joint[0] + link.length * e[0], joint[1] + link.length * e[1]];
        }
        let mut out = vec![[0.0, 0.0]; n];
        let mut sum = [0.0, 0.0];
        for i in (0..n).rev() {
            let m = self.params.links[i].mass;
            sum = [sum[0] - m * acc[i][0], sum[1] - m * (acc[i][1] + g)];
            out[i] = sum;
        }
        out
    }

    /// (θ, θ̇) → (θ, p) with p = M(θ) θ̇, the canonical momenta.
    pub fn to_canonical(&self, x: &[f64]) -> Vec<f64> {
        let n = self.n;
        let m = self.mass_matrix(&x[..n]);
        let mut y = x.to_vec();
        for j in 0..n {
            y[n + j] = (0..n).map(|k| m[j * n + k] * x[n + k]).sum();
        }
        y
    }

    /// (θ, p) → (θ, θ̇).
    pub fn from_canonical(&self, y: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut l = self.mass_matrix(&y[..n]);
        let ok = cholesky_in_place(&mut l, n);
        debug_assert!(ok, "mass matrix must be positive definite");
        let mut x = y.to_vec();
        cholesky_solve(&l, n, &mut x[n..]);
        x
    }
}
