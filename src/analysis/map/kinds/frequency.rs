//! Frequency (diffusion) maps: each pixel's orbit integrated with RK4 at the map's dt and
//! sampled every `sample_steps` steps, `samples` samples in all; the fundamental frequencies of
//! the first and of the second half by NAFF ([`crate::analysis::frequency`]) and the diffusion
//! index log₁₀‖ν(first half) − ν(second half)‖ (rad/s), Laskar's indicator: ≲ −8 on a torus at
//! a few hundred periods, ≳ −4 in a chaotic sea, in between near resonances.
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
use crate::integrate::{Flow, Rk4};
use crate::model::Chain;
use ndarray::Array2;

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
    let mut flow = Flow::with_layout(chain, false, 0);
    let mut solver = Rk4::new(h).solver(flow.layout.len());
    let mut theta = Array2::<f64>::zeros((samples, n));
    let mut omega = Array2::<f64>::zeros((samples, n));
    let mut count = 0u64;
    for p in 0..np {
        let mut y = flow.initial(&starts[p], None);
        let mut finite = true;
        let mut k = 0u64;
        for s in 0..samples {
            if s > 0 {
                for _ in 0..sample_steps {
                    count += 1;
                    if tile_cancelled(count) {
                        return;
                    }
                    solver.rk4_step(&mut flow, k as f64 * h, h, &mut y);
                    k += 1;
                }
            }
            if !y[..dim].iter().all(|v| v.is_finite()) {
                finite = false;
                break;
            }
            for j in 0..n {
                theta[(s, j)] = y[j];
                omega[(s, j)] = y[n + j];
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
