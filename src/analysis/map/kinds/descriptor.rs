//! Lagrangian descriptor maps (Mancho, Wiggins, Curbelo & Mendoza 2013; the p-norm form of
//! Lopesino et al. 2017): for the orbit through the pixel's start x₀ at t = 0,
//!
//! M_p(x₀) = M⁺ + M⁻,  M⁺ = ∫₀^τ Σᵢ |ẋᵢ(t)|^p dt,  M⁻ = ∫_{−τ}^0 Σᵢ |ẋᵢ(t)|^p dt,
//!
//! summed over all 2N state components (θ̇ in rad/s, ω̇ in rad/s²), with τ the map's t_end and
//! p = 1/2 by default. M⁺ is not differentiable across the stable manifolds of the flow and M⁻
//! across the unstable ones, so the sharp ridges and valleys of the map draw the manifolds
//! (for the simple pendulum: its separatrix, θ̇ = ±2√(g/l) at θ = 0).
//!
//! The integral rides along RK4 as one more component: each stage's Σ|kᵢ|^p enters with the
//! RK4 weights, so the quadrature has the integrator's order; the backward half steps with −dt.

use super::super::lanes::{descriptor::descriptor_run, Widest};
use super::super::per_kind::{states, Work};
use super::super::{class, tile_cancelled, TileResult};
use crate::model::System;

/// Σᵢ |vᵢ|^p, written once for this path and the lanes.
pub use super::super::lanes::descriptor::p_sum;

/// The three columns of a pixel: (M⁺, M⁻) in aux, M⁺ + M⁻ the value; `class` DIVERGED where the
/// orbit left the finite numbers (its values NaN). On the lanes
/// ([`lanes::descriptor`](super::super::lanes::descriptor)) where
/// the kernel asks for them and they serve the chain, else on the scalar path.
pub(in super::super) fn descriptor(w: &Work<'_>, p: f64, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, _, n, h) = w.sizes();
    out.value = vec![f64::NAN; np];
    out.aux = vec![f64::NAN; 2 * np];
    let (mut forward, mut backward) = (vec![f64::NAN; np], vec![f64::NAN; np]);
    let (f, b) = (&mut forward, &mut backward);
    let lanes = if let Some(p2) = opts.lanes2(chain) {
        let (damped, driven) = (p2.damped(), p2.driven());
        let y0 = states::<4>(starts);
        Some(descriptor_run::<Widest, 4, _>(
            &p2, damped, driven, &y0, n, h, p, f, b,
        ))
    } else {
        opts.lanes3(chain).map(|p3| {
            let (damped, driven) = (p3.damped, p3.driven());
            let y0 = states::<6>(starts);
            descriptor_run::<Widest, 6, _>(&p3, damped, driven, &y0, n, h, p, f, b)
        })
    };
    match lanes {
        Some(steps) => out.steps = steps,
        None => {
            if !scalar(w, p, f, b) {
                return;
            }
            out.steps = 2 * np as u64 * u64::from(n);
        }
    }
    for q in 0..np {
        let halves = [forward[q], backward[q]];
        if halves.iter().all(|m| m.is_finite()) {
            out.value[q] = halves[0] + halves[1];
            out.aux[2 * q..2 * q + 2].copy_from_slice(&halves);
        } else {
            out.class[q] = class::DIVERGED;
        }
    }
}

/// The halves of every pixel on the scalar path (NaN where non-finite); false when the tile
/// was stopped.
fn scalar(w: &Work<'_>, p: f64, forward: &mut [f64], backward: &mut [f64]) -> bool {
    let (chain, _, starts) = w.inputs();
    let (_, dim, n, h) = w.sizes();
    let mut rk = Stages::new(dim);
    let mut ws = chain.workspace();
    let mut x = vec![0.0; dim];
    let mut count = 0u64;
    for (q, x0) in starts.iter().enumerate() {
        for (half, step) in [h, -h].into_iter().enumerate() {
            x.copy_from_slice(x0);
            let mut m = 0.0;
            for k in 0..n {
                count += 1;
                if tile_cancelled(count) {
                    return false;
                }
                m += rk.step(chain, &mut ws, f64::from(k) * step, step, &mut x, p);
            }
            let out = if half == 0 {
                &mut *forward
            } else {
                &mut *backward
            };
            out[q] = if x.iter().all(|v| v.is_finite()) && m.is_finite() {
                m
            } else {
                f64::NAN
            };
        }
    }
    true
}

/// The RK4 stages of one step, kept between steps so that the loop allocates nothing.
struct Stages {
    k: [Vec<f64>; 4],
    tmp: Vec<f64>,
}

impl Stages {
    fn new(dim: usize) -> Stages {
        Stages {
            k: std::array::from_fn(|_| vec![0.0; dim]),
            tmp: vec![0.0; dim],
        }
    }

    /// One classical RK4 step of size `h` (negative: backward in time) from time `t`, and the
    /// RK4 quadrature of Σ|ẋᵢ|^p over it (|h|, a positive measure either way).
    fn step<S: System>(
        &mut self,
        sys: &S,
        ws: &mut S::Workspace,
        t: f64,
        h: f64,
        x: &mut [f64],
        p: f64,
    ) -> f64 {
        let [k1, k2, k3, k4] = &mut self.k;
        let tmp = &mut self.tmp;
        sys.rhs(t, x, k1, ws);
        for i in 0..x.len() {
            tmp[i] = x[i] + 0.5 * h * k1[i];
        }
        sys.rhs(t + 0.5 * h, tmp, k2, ws);
        for i in 0..x.len() {
            tmp[i] = x[i] + 0.5 * h * k2[i];
        }
        sys.rhs(t + 0.5 * h, tmp, k3, ws);
        for i in 0..x.len() {
            tmp[i] = x[i] + h * k3[i];
        }
        sys.rhs(t + h, tmp, k4, ws);
        for i in 0..x.len() {
            x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        h.abs() / 6.0 * (p_sum(k1, p) + 2.0 * p_sum(k2, p) + 2.0 * p_sum(k3, p) + p_sum(k4, p))
    }
}
