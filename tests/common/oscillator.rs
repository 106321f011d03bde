//! The linear damped driven oscillator ẍ + 2ζω₀ẋ + ω₀²x = F cos Ωt as a system of its own:
//! exactly linear, so its periodic orbit and Floquet multipliers exp(λT) are closed forms that
//! the shooting (tests/periodic.rs) and its error bars (tests/orbit_errors.rs) are checked against.

use pendula::analysis::periodic::Periodic;
use pendula::model::System;

/// The linear oscillator ẍ + 2ζω₀ẋ + ω₀²x = F cos Ωt as a system of its own.
pub struct Oscillator {
    pub zeta: f64,
    pub w0: f64,
    pub force: f64,
    pub omega: f64,
}

impl System for Oscillator {
    type Workspace = ();
    fn dim(&self) -> usize {
        2
    }
    fn workspace(&self) {}
    fn rhs(&self, t: f64, x: &[f64], dx: &mut [f64], _: &mut ()) {
        dx[0] = x[1];
        dx[1] = -2.0 * self.zeta * self.w0 * x[1] - self.w0 * self.w0 * x[0]
            + self.force * (self.omega * t).cos();
    }
    fn rhs_tangent(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        ws: &mut (),
    ) {
        self.rhs(t, x, dx, ws);
        for (vc, dc) in v.chunks_exact(2).zip(dv.chunks_exact_mut(2)) {
            dc[0] = vc[1];
            dc[1] = -2.0 * self.zeta * self.w0 * vc[1] - self.w0 * self.w0 * vc[0];
        }
    }
    fn energy(&self, _t: f64, x: &[f64]) -> f64 {
        0.5 * (x[1] * x[1] + self.w0 * self.w0 * x[0] * x[0])
    }
    fn power(&self, t: f64, x: &[f64]) -> f64 {
        x[1] * (self.force * (self.omega * t).cos() - 2.0 * self.zeta * self.w0 * x[1])
    }
}

impl Periodic for Oscillator {
    fn energy_gradient(&self, x: &[f64]) -> Vec<f64> {
        vec![self.w0 * self.w0 * x[0], x[1]]
    }
    fn hamiltonian(&self) -> bool {
        false
    }
}
