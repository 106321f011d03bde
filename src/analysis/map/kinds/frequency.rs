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
//! **Lanes.** A conservative two-link chain runs on the SIMD lanes ([`lanes::gauss`]): the same
//! method on a group of pixels at once, with the lanes' sin and cos, so its bits are not the
//! scalar path's (`--kernel scalar`): tori agree to round-off, chaotic pixels get other indices
//! of the same size (tests/frequencies_cli.rs). The flow's evaluations are 4/5 of the scalar
//! path's time; with the lanes (and NAFF's vector sums) the 256² benchmark takes 43 s on 2
//! cores instead of 171 s.
//!
//! Each pixel is computed on its own from its start state (the tile's workspace is reset by
//! every analysis), so a map has the same bits for any thread count, tile size or resumption.
//! The per-pixel analysis is lighter than `pendula frequencies`: 2N + 2 lines per link and one
//! polishing pass (the fundamentals are among the strongest lines), lines identified to
//! 1e-6 ω_ref, and combinations up to the largest order ≤ 6 with (2K + 1)^N ≤ 10⁴.
//! The whole run is analysed beside its halves: its fundamentals are the reference that gives
//! each half's error and so the error of the index (`diffusion_index_error`, README "Error
//! bars"); it doubles the NAFF work per pixel.

use super::super::lanes::{self, TwoLink};
use super::super::per_kind::Work;
use super::super::{class, tile_cancelled, TileResult};
use crate::analysis::frequency::{FrequencyOptions, FrequencyWorkspace, NaffOptions};
use crate::analysis::modes::{modes_at, Equilibrium};
use crate::integrate::{Flow, Gauss, Ode, Solver};
use crate::model::{Canonical, Chain};
use ndarray::{Array2, ArrayView2};

/// The aux columns per pixel: ν of both halves per link, then the index's error, the ladder's
/// indices at T/4 and T/2, and the verdict's flag (the catalogue's order, `facts.rs`).
const AUX_PER_LINK: usize = 2;
const AUX_SCALARS: usize = 4;

/// Gauss–Legendre stages of the frequency map's integrator (order 2s).
pub const GAUSS_STAGES: usize = 3;

/// The map's step unless `[integrator] dt` says otherwise (s). It was 0.05 s, which on the
/// double pendulum's E = −20 J and −15 J shells moved regular pixels' indices by up to 5
/// (−5.16 read −0.17, −6.0 read −4.0) while 0.025, 0.0125 and 0.00625 s agree to 0.02 (README,
/// "Verdict"): at 0.05 s the integrator, not the orbit, set the index; 0.025 s costs ~20 % more.
pub const DEFAULT_DT: f64 = 0.025;

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
/// second half's (ascending, NaN where a half has fewer), then the index's error (the whole run
/// is analysed too, as its reference: [`crate::analysis::frequency::ERROR_RULE`]); `class`
/// DIVERGED where the orbit blew up.
pub(in super::super) fn frequency(
    w: &Work<'_>,
    sample_steps: u32,
    samples: u32,
    window_order: u32,
    out: &mut TileResult,
) {
    let (chain, map, starts) = w.inputs();
    let (np, dim, _, h) = w.sizes();
    let n = dim / 2;
    let m = AUX_PER_LINK * n + AUX_SCALARS;
    let samples = samples as usize;
    out.value = vec![f64::NAN; np];
    out.aux = vec![f64::NAN; np * m];
    let opts = map_options(chain, window_order);
    let Ok(mut ws) = FrequencyWorkspace::new(samples, f64::from(sample_steps) * h, opts) else {
        // Refused by the spec before any tile runs.
        out.class.fill(class::DIVERGED);
        return;
    };
    if let Some(p2) = map.lanes2(chain) {
        return frequency_lanes(w, &p2, sample_steps, samples, &mut ws, out);
    }
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
        write(&mut ws, p, theta.view(), omega.view(), out);
    }
}

/// Pixel `p`'s NAFF analysis of its samples into the tile's value and aux columns.
fn write(
    ws: &mut FrequencyWorkspace,
    p: usize,
    theta: ArrayView2<'_, f64>,
    omega: ArrayView2<'_, f64>,
    out: &mut TileResult,
) {
    let n = theta.ncols();
    let m = AUX_PER_LINK * n + AUX_SCALARS;
    let f = ws.analyse(theta, omega, 0.0, true);
    out.value[p] = f.diffusion_index;
    let aux = &mut out.aux[p * m..(p + 1) * m];
    aux[2 * n] = f.diffusion_index_error;
    aux[2 * n + 1] = f.ladder[0];
    aux[2 * n + 2] = f.ladder[1];
    aux[2 * n + 3] = f64::from(f.verdict.flag());
    for (i, v) in f.first_half.iter().take(n).enumerate() {
        aux[i] = *v;
    }
    for (i, v) in f.second_half.iter().take(n).enumerate() {
        aux[n + i] = *v;
    }
}

/// [`frequency`] for a conservative two-link chain: the orbits on the lanes
/// ([`lanes::gauss`], the same method with the lanes' sin and cos), a group of pixels at once;
/// NAFF per pixel as on the scalar path.
fn frequency_lanes(
    w: &Work<'_>,
    p2: &TwoLink,
    sample_steps: u32,
    samples: usize,
    ws: &mut FrequencyWorkspace,
    out: &mut TileResult,
) {
    let (chain, _, starts) = w.inputs();
    let (np, _, _, h) = w.sizes();
    let width = lanes::gauss::width();
    let mut group = lanes::gauss::Group::new(width, samples);
    let at = lanes::gauss::Sampling {
        h,
        every: sample_steps,
        samples,
    };
    let y0: Vec<[f64; 4]> = starts
        .iter()
        .map(|s| {
            let c = chain.to_canonical(s);
            std::array::from_fn(|q| c[q])
        })
        .collect();
    let mut done = 0u64;
    for (g, chunk) in y0.chunks(width).enumerate() {
        let cancelled = |count: u64| tile_cancelled(done + count);
        if !lanes::gauss::run(p2, chunk, at, &mut group, &cancelled) {
            return;
        }
        done += u64::from(sample_steps) * samples as u64;
        for l in 0..chunk.len() {
            let p = g * width + l;
            out.steps += group.steps[l];
            if !group.ok[l] {
                out.class[p] = class::DIVERGED;
                continue;
            }
            let block = samples * 2;
            let range = l * block..(l + 1) * block;
            let theta = ArrayView2::from_shape((samples, 2), &group.theta[range.clone()]);
            let omega = ArrayView2::from_shape((samples, 2), &group.omega[range]);
            let (theta, omega) = (theta.expect("a block"), omega.expect("a block"));
            write(ws, p, theta, omega, out);
        }
    }
    debug_assert_eq!(y0.len(), np);
}
