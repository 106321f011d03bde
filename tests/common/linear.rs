//! `ẋ = A x`: the linear systems whose growth the tangent estimators are checked against
//! (exponents = the real parts of A's eigenvalues; a saddle's deviation grows like cosh).
//! Conservative in the balance's sense (no work to integrate: E ≡ 0).

use pendula::analysis::lyapunov::PhaseVolume;
use pendula::model::System;

pub struct Linear<const N: usize> {
    pub a: [[f64; N]; N],
}

impl<const N: usize> Linear<N> {
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        for (o, row) in out.iter_mut().zip(&self.a) {
            *o = row.iter().zip(x).map(|(a, x)| a * x).sum();
        }
    }
}

impl<const N: usize> System for Linear<N> {
    type Workspace = ();
    fn dim(&self) -> usize {
        N
    }
    fn workspace(&self) {}
    fn rhs(&self, _t: f64, x: &[f64], dx: &mut [f64], _ws: &mut ()) {
        self.apply(x, dx);
    }
    fn rhs_tangent(
        &self,
        _t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        _: &mut (),
    ) {
        self.apply(x, dx);
        for (c, d) in v.chunks_exact(N).zip(dv.chunks_exact_mut(N)) {
            self.apply(c, d);
        }
    }
    fn energy(&self, _t: f64, _x: &[f64]) -> f64 {
        0.0
    }
    fn power(&self, _t: f64, _x: &[f64]) -> f64 {
        0.0
    }
    fn non_conservative(&self) -> bool {
        false
    }
}

impl<const N: usize> PhaseVolume for Linear<N> {}
