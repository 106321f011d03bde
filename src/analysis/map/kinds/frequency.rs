//! Frequency (diffusion) maps: each pixel's orbit integrated at the map's dt and sampled every
//! `sample_steps` steps, `samples` samples in all; the fundamental frequencies of the first and
//! of the second half by NAFF ([`crate::analysis::frequency`]) and the diffusion index
//! log₁₀‖ν(first half) − ν(second half)‖ (rad/s), Laskar's indicator: ≲ −8 on a torus at a few
//! hundred periods, ≳ −4 in a chaotic sea, in between near resonances.
//!
//! **Integrator.** Unlike the other kinds, not RK4: RK4's energy error grows linearly in time,
//! so the frequencies of its orbits drift between the two halves and the index measures the
//! integrator (on a double-pendulum torus at dt = 0.02 s, −4.7 instead of −8.1; −7.6 still at
//! dt = 0.005 s). The map integrates with Gauss–Legendre collocation of order 6
//! ([`GAUSS_STAGES`] stages) in canonical coordinates (θ, p), where it is symplectic: the
//! energy error stays bounded, the numerical orbit lies on a torus of a nearby Hamiltonian, and
//! the index measures the dynamics (−8.1 on that torus from dt = 0.02 to 0.1 s). θ̇ at each
//! sample is the canonical flow's dθ/dt = M(θ)⁻¹p.
//!
//! Each pixel is computed on its own from its start state (the tile's workspace is reset by
//! every analysis), so a map has the same bits for any thread count, tile size or resumption.
//! The per-pixel analysis is lighter than `pendula frequencies`: 2N + 2 lines per link and one
//! polishing pass (the fundamentals are among the strongest lines), lines identified to
//! 1e-6 ω_ref, and combinations up to the largest order ≤ 6 with (2K + 1)^N ≤ 10⁴.

use super::super::per_kind::Work;
use super::super::{class, tile_cancelled, TileResult};
use crate::analysis::frequency::{FrequencyOptions, FrequencyWorkspace, NaffOptions};
use crate::analysis::modes::{modes_at, Equilibrium};
use crate::integrate::{Flow, Gauss, Ode, Solver};
use crate::model::{Canonical, Chain};
use ndarray::Array2;

/// Gauss–Legendre stages of the frequency map's integrator (order 2s).
pub const GAUSS_STAGES: usize = 3;

/// The map's step unless `[integrator] dt` says otherwise (s).
pub const DEFAULT_DT: f64 = 0.05;

/// The map's ω_ref: the lowest small-oscillation frequency about the hanging equilibrium
/// (1 rad/s if the chain has none).
pub fn map_omega_ref(chain: &Chain) -> f64 {
    modes_at(chain, &Equilibrium::hanging(chain.links()))
        .ok()
        .and_then(|m| m.frequencies().first().copied())
        .filter(|w| w.is_finite() && *w > 0.0)
        .unwrap_or(1.0)
}

/// The per-pixel analysis options of a map of `chain` (see the module's notes).
pub fn map_options(chain: &Chain, window_order: u32) -> FrequencyOptions {
    let n = chain.links();
    let omega_ref = map_omega_ref(chain);
    let order = (0..=6u32)
        .rev()
        .find(|&o| (2.0 * f64::from(o) + 1.0).powi(n as i32) <= 1e4)
        .unwrap_or(0);
    FrequencyOptions {
        naff: NaffOptions {
            window_order,
            terms: 2 * n + 2,
            passes: 1,
            polish_at_end: true,
            ..NaffOptions::default()
        },
        omega_ref,
        fundamentals: n,
        order,
        tolerance: 1e-6 * omega_ref,
    }
}

/// The value is the diffusion index, the aux columns the first half's N fundamentals then the
/// second half's (ascending, NaN where a half has fewer); `class` DIVERGED where the orbit blew
/// up.
pub(in super::super) fn frequency(
    w: &Work<'_>,
    sample_steps: u32,
    samples: u32,
    window_order: u32,
    out: &mut TileResult,
) {
    let (chain, _, starts) = w.inputs();
    let (np, dim, _, h) = w.sizes();
    let n = dim / 2;
    let m = 2 * n;
    let samples = samples as usize;
    out.value = vec![f64::NAN; np];
    out.aux = vec![f64::NAN; np * m];
    let opts = map_options(chain, window_order);
    let Ok(mut ws) = FrequencyWorkspace::new(samples, f64::from(sample_steps) * h, opts) else {
        // Refused by the spec before any tile runs.
        out.class.fill(class::DIVERGED);
        return;
    };
    let canonical = Canonical(chain);
    let mut flow = Flow::with_layout(&canonical, false, 0);
    let mut solver = Gauss {
        dt: h,
        stages: GAUSS_STAGES,
    }
    .solver(flow.layout.len());
    let t_end = f64::from(sample_steps) * samples as f64 * h;
    let mut theta = Array2::<f64>::zeros((samples, n));
    let mut omega = Array2::<f64>::zeros((samples, n));
    let mut rate = vec![0.0; dim];
    let mut count = 0u64;
    for p in 0..np {
        let mut y = flow.initial(&chain.to_canonical(&starts[p]), None);
        let mut finite = true;
        let mut k = 0u64;
        let mut t = 0.0;
        'run: for s in 0..samples {
            if s > 0 {
                for _ in 0..sample_steps {
                    count += 1;
                    if tile_cancelled(count) {
                        return;
                    }
                    match solver.step(&mut flow, t, &mut y, t_end) {
                        Ok(t1) => t = t1,
                        Err(_) => {
                            // No convergence of the stages (a step too long for the motion)
                            // or a non-finite state: no frequencies for this pixel.
                            finite = false;
                            break 'run;
                        }
                    }
                    k += 1;
                }
            }
            if !y[..dim].iter().all(|v| v.is_finite()) {
                finite = false;
                break;
            }
            flow.eval(t, &y, &mut rate);
            for j in 0..n {
                theta[(s, j)] = y[j];
                omega[(s, j)] = rate[j];
            }
        }
        out.steps += k;
        if !finite {
            out.class[p] = class::DIVERGED;
            continue;
        }
        let f = ws.analyse(theta.view(), omega.view(), 0.0, false);
        out.value[p] = f.diffusion_index;
        let aux = &mut out.aux[p * m..(p + 1) * m];
        for (i, v) in f.first_half.iter().take(n).enumerate() {
            aux[i] = *v;
        }
        for (i, v) in f.second_half.iter().take(n).enumerate() {
            aux[n + i] = *v;
        }
    }
}
