//! The Melnikov function of the driven damped pendulum, the asymptotic prediction of its
//! first homoclinic tangency as damping and drive go to zero together.
//!
//! **The form.** One link of mass m, centre of mass at c from the pivot, inertia J about it
//! (I = J + m c² about the pivot), gravity g, absolute damping γ₁ and joint damping c₁ (both act
//! on link 1 as −(γ₁ + c₁) θ̇: joint 1 is the pivot) and the pivot torque A cos(Ω t + φ):
//! I θ̈ + (γ₁ + c₁) θ̇ + m g c sin θ = A cos(Ω t + φ). With ω₀² = m g c / I and τ = ω₀ t this is
//! exactly θ'' + δ θ' + sin θ = γ cos(ω τ + φ), δ = (γ₁ + c₁)/(I ω₀), γ = A/(m g c), ω = Ω/ω₀
//! (a point mass with l = m = g = 1 has ω₀ = 1, δ = γ₁ + c₁, γ = A, ω = Ω: the form itself).
//!
//! **The function.** At δ = γ = 0 the upper separatrix from the saddle (−π, 0) to (π, 0) is
//! θ₀(τ) = 4 arctan(e^τ) − π, on which θ₀' = 4e^τ/(1 + e^{2τ}) = 2 sech τ (the energy
//! θ'²/2 − cos θ is 1 there: θ' = 2 cos(θ/2) and cos(θ₀/2) = sin(2 arctan e^τ) = sech τ).
//! The perturbation is (0, −δθ' + γ cos(ωτ + φ)), so the Melnikov integral along it, with the
//! separatrix passing θ = 0 at τ = τ₀, is
//!
//! M(τ₀) = ∫ θ₀'(τ) [−δ θ₀'(τ) + γ cos(ω(τ + τ₀) + φ)] dτ
//!       = −4δ ∫ sech²τ dτ + 2γ ∫ sech τ cos(ω(τ + τ₀) + φ) dτ
//!       = −8δ + 2πγ sech(πω/2) cos(ωτ₀ + φ),
//!
//! using ∫ sech²τ dτ = 2, ∫ sech τ cos ωτ dτ = π sech(πω/2) and ∫ sech τ sin ωτ dτ = 0 (odd).
//! M has a simple zero, and the manifolds cross transversally for small δ, γ, iff
//! 2πγ sech(πω/2) > 8δ: γ_c = (4δ/π) cosh(πω/2). M > 0 means the unstable manifold lies
//! outside (above) the stable one.

use crate::model::Chain;
use std::f64::consts::PI;

/// The driven damped pendulum in the Melnikov form, and its threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Melnikov {
    /// ω₀ = √(m g c / I) (rad/s): the time scale τ = ω₀ t.
    pub omega0: f64,
    pub delta: f64,
    pub gamma: f64,
    pub omega: f64,
    /// The torque's phase φ (rad).
    pub phase: f64,
    /// γ_c = (4δ/π) cosh(πω/2).
    pub gamma_c: f64,
}

impl Melnikov {
    /// The form of `chain` (module docs); None with the reason where it has none: more than
    /// one link, a moving pivot, no torque, no gravity.
    pub fn of_chain(chain: &Chain) -> Result<Melnikov, String> {
        let p = chain.params();
        if p.links.len() != 1 {
            return Err(format!(
                "the Melnikov form is of one link (this chain has {})",
                p.links.len()
            ));
        }
        if p.drive.pivot.is_some() {
            return Err("the Melnikov form has no moving pivot".into());
        }
        let Some(t) = p.drive.torque else {
            return Err("the Melnikov form needs the pivot torque".into());
        };
        let l = &p.links[0];
        let weight = l.mass * p.gravity * l.com;
        if weight.is_nan() || weight <= 0.0 {
            return Err(
                "the Melnikov form needs gravity and a centre of mass off the pivot".into(),
            );
        }
        let inertia = l.inertia + l.mass * l.com * l.com;
        let omega0 = (weight / inertia).sqrt();
        let damping = p.damping.absolute.first().copied().unwrap_or(0.0)
            + p.damping.joint.first().copied().unwrap_or(0.0);
        let delta = damping / (inertia * omega0);
        let omega = t.frequency.abs() / omega0;
        Ok(Melnikov {
            omega0,
            delta,
            gamma: t.amplitude / weight,
            omega,
            phase: t.phase,
            gamma_c: threshold(delta, omega),
        })
    }

    /// M(τ₀) (module docs).
    pub fn value(&self, tau0: f64) -> f64 {
        function(self.delta, self.gamma, self.omega, self.phase, tau0)
    }

    /// The threshold in the chain's own torque amplitude: A_c = γ_c m g c (N·m).
    pub fn torque_threshold(&self, chain: &Chain) -> f64 {
        let l = &chain.params().links[0];
        self.gamma_c * l.mass * chain.params().gravity * l.com
    }
}

/// M(τ₀) = −8δ + 2πγ sech(πω/2) cos(ωτ₀ + φ).
pub fn function(delta: f64, gamma: f64, omega: f64, phase: f64, tau0: f64) -> f64 {
    -8.0 * delta + 2.0 * PI * gamma / (PI * omega / 2.0).cosh() * (omega * tau0 + phase).cos()
}

/// γ_c = (4δ/π) cosh(πω/2).
pub fn threshold(delta: f64, omega: f64) -> f64 {
    4.0 * delta / PI * (PI * omega / 2.0).cosh()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form against a quadrature of the Melnikov integral along θ₀(τ).
    #[test]
    fn the_closed_form_matches_a_quadrature_of_the_integral() {
        let (delta, gamma, omega, phase) = (0.03, 0.2, 0.9, 0.4);
        for tau0 in [0.0, 0.7, 2.1] {
            let h = 1e-3;
            let mut sum = 0.0;
            let n = 60_000;
            for i in -n..=n {
                let t = i as f64 * h;
                let v = 4.0 * t.exp() / (1.0 + (2.0 * t).exp());
                let w = if i == -n || i == n { 0.5 } else { 1.0 };
                sum += w * v * (-delta * v + gamma * (omega * (t + tau0) + phase).cos());
            }
            let q = sum * h;
            let m = function(delta, gamma, omega, phase, tau0);
            assert!((q - m).abs() < 1e-9, "τ₀ = {tau0}: {q} vs {m}");
        }
        // At γ_c the maximum of M over τ₀ is zero.
        let g = threshold(delta, omega);
        assert!(function(delta, g, omega, 0.0, 0.0).abs() < 1e-14);
    }
}
