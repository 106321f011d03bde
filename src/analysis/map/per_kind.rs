//! The work of a tile for each kind of map: one function per [`MapKind`], each filling the
//! tile's result from its pixels' start states (see [`compute_tile`]).

use super::lanes::{final_state as fs, flip, indicators, tangent, Widest};
use super::*;
use crate::analysis::energy::EnergyBalance;

/// What every kind's pixel loop reads: the chain, the map's options, the pixels' start states
/// (pixel order) and their count, the state dimension, the RK4 step count and step.
#[derive(Clone, Copy)]
pub(super) struct Work<'a> {
    chain: &'a Chain,
    opts: &'a MapOptions,
    starts: &'a [Vec<f64>],
    np: usize,
    dim: usize,
    n: u32,
    h: f64,
}

impl<'a> Work<'a> {
    pub fn new(chain: &'a Chain, opts: &'a MapOptions, starts: &'a [Vec<f64>]) -> Work<'a> {
        Work {
            chain,
            opts,
            starts,
            np: starts.len(),
            dim: chain.dim(),
            n: opts.n_steps(),
            h: opts.dt,
        }
    }

    /// (chain, options, start states).
    pub(super) fn inputs(&self) -> (&'a Chain, &'a MapOptions, &'a [Vec<f64>]) {
        (self.chain, self.opts, self.starts)
    }

    /// (pixels, state dimension, RK4 steps, step).
    pub(super) fn sizes(&self) -> (usize, usize, u32, f64) {
        (self.np, self.dim, self.n, self.h)
    }
}

/// The pixels' start states as the lanes take them (`S` = the state dimension).
pub(super) fn states<const S: usize>(starts: &[Vec<f64>]) -> Vec<[f64; S]> {
    starts
        .iter()
        .map(|s| std::array::from_fn(|c| s[c]))
        .collect()
}

/// Flip-time maps: the first flip of the watched link(s), with the energy test.
pub(super) fn flip_time(w: &Work<'_>, target: FlipTarget, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, dim, n, h) = w.sizes();
    out.flip_step = vec![0; np];
    out.flip_link = vec![0; np];
    let test = EnergyTest::new(chain, target);
    let mut todo = Vec::with_capacity(np);
    for (p, s) in starts.iter().enumerate() {
        let forbidden = test.as_ref().is_some_and(|t| t.forbidden(chain, s));
        if forbidden {
            out.class[p] = class::FORBIDDEN;
        }
        if !(forbidden && opts.energy_skip) {
            todo.push(p);
        }
    }
    let mut k = vec![0i32; todo.len()];
    let mut link = vec![0u8; todo.len()];
    let mut located = vec![f64::NAN; todo.len()];
    if let Some(p2) = opts.lanes2(chain) {
        let y0: Vec<[f64; 4]> = todo
            .iter()
            .map(|&p| std::array::from_fn(|c| starts[p][c]))
            .collect();
        let mask = match target {
            FlipTarget::Any => (true, true),
            FlipTarget::Link(0) => (true, false),
            FlipTarget::Link(_) => (false, true),
        };
        let (k, link, t) = (&mut k, &mut link, &mut located);
        out.steps = flip::flip_run::<Widest>(&p2, &y0, n, h, mask, k, link, t);
    } else if let Some(p3) = opts.lanes3(chain) {
        let y0: Vec<[f64; 6]> = todo
            .iter()
            .map(|&p| std::array::from_fn(|c| starts[p][c]))
            .collect();
        let mask = match target {
            FlipTarget::Any => 0b111,
            FlipTarget::Link(j) => 1u8 << j,
        };
        let (k, link, t) = (&mut k, &mut link, &mut located);
        out.steps = flip::flip_run3::<Widest>(&p3, &y0, n, h, mask, k, link, t);
    } else {
        let mut flow = Flow::new(chain);
        let mut solver = Rk4::new(h).solver(dim);
        for (q, &p) in todo.iter().enumerate() {
            let f = flip_scalar(&mut flow, &mut solver, &starts[p], n, h, target);
            k[q] = f.step;
            link[q] = f.link;
            located[q] = f.located;
            out.steps += f.steps;
        }
    }
    // The aux column: the located flip time (NaN where none or not integrated).
    out.aux = vec![f64::NAN; np];
    for (q, &p) in todo.iter().enumerate() {
        out.flip_step[p] = k[q];
        out.aux[p] = located[q];
        if link[q] == lanes::DIVERGED {
            out.class[p] = class::DIVERGED;
        } else {
            out.flip_link[p] = link[q];
            if k[q] > 0 && out.class[p] != class::FORBIDDEN {
                out.class[p] = class::FLIPPED;
            }
        }
    }
}

/// Energy-error maps: |E(t_max) − E(0) − W| over the energy scale.
pub(super) fn energy_error(w: &Work<'_>, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, dim, n, h) = w.sizes();
    out.value = vec![0.0; np];
    let balance = |p: usize| EnergyBalance::new(chain, chain.energy(0.0, &starts[p]));
    if let Some(p2) = opts.lanes2(chain) {
        let mut y: Vec<[f64; 4]> = states(starts);
        fs::full_run::<Widest>(&p2, &mut y, n, h);
        for p in 0..np {
            // This kernel runs only undamped, undriven chains: W = 0.
            out.value[p] = balance(p).relative(chain.energy(0.0, &y[p]), 0.0);
        }
    } else {
        let mut flow = Flow::with_layout(chain, !chain.is_conservative(), 0);
        let len = flow.layout.len();
        let mut solver = Rk4::new(h).solver(len);
        for p in 0..np {
            let mut y = flow.initial(&starts[p], None);
            if !steps(&mut solver, &mut flow, &mut y, n, h) {
                return;
            }
            let t = n as f64 * h;
            let w = if flow.layout.work { y[dim] } else { 0.0 };
            out.value[p] = balance(p).relative(chain.energy(t, &y[..dim]), w);
        }
    }
    out.steps = np as u64 * u64::from(n);
    for p in 0..np {
        if !out.value[p].is_finite() {
            out.value[p] = f64::NAN;
            out.class[p] = class::DIVERGED;
        }
    }
}

/// Lyapunov maps: the largest exponent from one tangent vector renormalised every
/// `renorm_steps`, with the standard error of `blocks` block means, the time used and the
/// converged flag in `aux` ([`blocks`](super::blocks): the schedule both paths share).
pub(super) fn lyapunov(
    w: &Work<'_>,
    renorm_steps: u32,
    blocks: u32,
    tolerance: Option<f64>,
    out: &mut TileResult,
) {
    let (chain, opts, starts) = w.inputs();
    let (np, dim, n, h) = w.sizes();
    out.value = vec![0.0; np];
    out.aux = vec![f64::NAN; 3 * np];
    if let Some(p2) = opts.lanes2(chain) {
        let reduce = tangent::Reduce::Lyapunov {
            renorm_steps,
            blocks,
            tolerance,
        };
        return tangent_lanes(w, &p2, reduce, out);
    }
    let schedule = super::blocks::Blocks::new(n, renorm_steps, blocks, h, tolerance);
    let mut acc = super::blocks::BlockAcc::default();
    let mut flow = Flow::with_layout(chain, false, 1);
    let mut solver = Rk4::new(h).solver(flow.layout.len());
    let v0 = vec![1.0 / (dim as f64).sqrt(); dim];
    let q = renorm_steps.max(1);
    for p in 0..np {
        let mut y = flow.initial(&starts[p], Some(&v0));
        let mut sum = 0.0;
        acc.reset();
        let mut used = n;
        for k in 0..n {
            if tile_cancelled(u64::from(k) + 1) {
                return;
            }
            solver.rk4_step(&mut flow, k as f64 * h, h, &mut y);
            if (k + 1) % q == 0 || k + 1 == n {
                let v = &mut y[dim..];
                let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
                sum += norm.ln();
                let stop = acc.renorm(&schedule, k + 1, norm.ln());
                v.iter_mut().for_each(|a| *a /= norm);
                if stop {
                    used = k + 1;
                    break;
                }
            }
        }
        let (lambda, errs) = acc.finish(&schedule, used, sum);
        if lambda.is_finite() {
            out.value[p] = lambda;
            out.aux[3 * p..3 * p + 3].copy_from_slice(&errs);
        } else {
            out.value[p] = f64::NAN;
            out.class[p] = class::DIVERGED;
        }
        out.steps += u64::from(used);
    }
}

/// FTLE maps: the flow map's largest singular value.
pub(super) fn ftle(w: &Work<'_>, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, dim, n, h) = w.sizes();
    out.value = vec![0.0; np];
    if let Some(p2) = opts.lanes2(chain) {
        return tangent_lanes(w, &p2, tangent::Reduce::Ftle, out);
    }
    let mut flow = Flow::with_layout(chain, false, dim);
    let mut solver = Rk4::new(h).solver(flow.layout.len());
    for p in 0..np {
        let mut y = flow.initial(&starts[p], None);
        if !steps(&mut solver, &mut flow, &mut y, n, h) {
            return;
        }
        let s = largest_singular_value(&y[dim..], dim);
        let v = s.ln() / (f64::from(n) * h);
        if v.is_finite() {
            out.value[p] = v;
        } else {
            out.value[p] = f64::NAN;
            out.class[p] = class::DIVERGED;
        }
    }
    out.steps = np as u64 * u64::from(n);
}

/// MEGNO maps: ⟨Y⟩(t_max) from one tangent vector renormalised every `tau_steps`, with
/// r = δ̇·δ/δ·δ at every step (δ̇ from the step's first stage, the chain's own `rhs_tangent`)
/// and at t_max; the aux column is the slope of ⟨Y⟩ over its samples at the multiples of
/// `tau_steps` with t ≥ t_max/2 and at t_max ([`tangent::Reduce::Megno`], the same rule).
pub(super) fn megno(w: &Work<'_>, tau_steps: u32, out: &mut TileResult) {
    use crate::analysis::lyapunov::megno::{slope, Megno};
    use crate::integrate::Ode;
    let (chain, opts, starts) = w.inputs();
    let (np, dim, n, h) = w.sizes();
    out.value = vec![0.0; np];
    out.aux = vec![f64::NAN; np];
    if let Some(p2) = opts.lanes2(chain) {
        return tangent_lanes(w, &p2, tangent::Reduce::Megno { tau_steps }, out);
    }
    let mut ode = FirstStage {
        flow: Flow::with_layout(chain, false, 1),
        first: true,
        k1: vec![0.0; 2 * dim],
    };
    let len = ode.flow.layout.len();
    let mut solver = Rk4::new(h).solver(len);
    let v0 = vec![1.0 / (dim as f64).sqrt(); dim];
    let mut dy = vec![0.0; len];
    let mut v_start = vec![0.0; dim];
    let q = tau_steps.max(1);
    let rate = |dv: &[f64], v: &[f64]| {
        let (mut num, mut den) = (0.0, 0.0);
        for c in 0..dim {
            num += dv[c] * v[c];
            den += v[c] * v[c];
        }
        num / den
    };
    for p in 0..np {
        let mut y = ode.flow.initial(&starts[p], Some(&v0));
        let mut m = Megno::new();
        let (mut ts, mut ys) = (Vec::new(), Vec::new());
        for k in 0..n {
            if tile_cancelled(u64::from(k) + 1) {
                return;
            }
            v_start.copy_from_slice(&y[dim..]);
            ode.first = true;
            solver.rk4_step(&mut ode, k as f64 * h, h, &mut y);
            let t = f64::from(k) * h;
            m.push(t, rate(&ode.k1[dim..], &v_start));
            if k % q == 0 && 2 * u64::from(k) >= u64::from(n) {
                ts.push(t);
                ys.push(m.mean());
            }
            if (k + 1) % q == 0 && k + 1 < n {
                let norm = y[dim..].iter().map(|a| a * a).sum::<f64>().sqrt();
                y[dim..].iter_mut().for_each(|a| *a /= norm);
            }
        }
        let t = f64::from(n) * h;
        ode.flow.eval(t, &y, &mut dy);
        m.push(t, rate(&dy[dim..], &y[dim..]));
        ts.push(t);
        ys.push(m.mean());
        let (mean, s) = (m.mean(), slope(&ts, &ys));
        if mean.is_finite() && y[..dim].iter().all(|v| v.is_finite()) {
            out.value[p] = mean;
            out.aux[p] = s;
        } else {
            out.value[p] = f64::NAN;
            out.class[p] = class::DIVERGED;
        }
    }
    out.steps = np as u64 * u64::from(n);
}

/// The tangent [`Flow`] that keeps the first stage of each RK4 step (the derivative at the
/// step's start, which MEGNO's r needs) when `first` is set: no evaluation beyond RK4's four.
struct FirstStage<'a> {
    flow: Flow<'a, Chain>,
    first: bool,
    k1: Vec<f64>,
}

impl crate::integrate::Ode for FirstStage<'_> {
    fn len(&self) -> usize {
        self.flow.len()
    }

    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.flow.eval(t, y, dy);
        if self.first {
            self.k1.copy_from_slice(dy);
            self.first = false;
        }
    }

    fn project(&mut self, y: &mut [f64]) -> bool {
        self.flow.project(y)
    }
}

/// The map kind's aux columns per pixel.
fn opts_aux(w: &Work<'_>) -> usize {
    w.opts.kind.aux_columns(w.chain.links())
}

/// Lyapunov, FTLE and MEGNO maps on the SIMD tangent kernel: `out.value` (and for MEGNO
/// `out.aux`) from [`tangent::tangent_run`], NaN and `DIVERGED` where a pixel blew up.
fn tangent_lanes(w: &Work<'_>, p2: &TwoLink, reduce: tangent::Reduce, out: &mut TileResult) {
    let (_, _, starts) = w.inputs();
    let (np, _, n, h) = w.sizes();
    let y0: Vec<[f64; 4]> = states(starts);
    out.value = vec![f64::NAN; np];
    let m = opts_aux(w);
    out.aux = vec![f64::NAN; m * np];
    let (value, aux) = (&mut out.value, &mut out.aux);
    out.steps = tangent::tangent_run::<Widest>(p2, &y0, n, h, reduce, value, aux);
    for p in 0..np {
        if !out.value[p].is_finite() {
            out.value[p] = f64::NAN;
            out.aux[m * p..m * p + m].fill(f64::NAN);
            out.class[p] = class::DIVERGED;
        }
    }
}

/// Final-state maps: each pixel's attractor, settle time and final angles.
pub(super) fn final_state(w: &Work<'_>, settle: &basins::Settle, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, dim, n, h) = w.sizes();
    out.value = vec![f64::NAN; np];
    let m = opts.kind.aux_columns(chain.links());
    out.aux = vec![f64::NAN; np * m];
    let blank = basins::Outcome {
        label: basins::label::UNSETTLED,
        settle_time: f64::NAN,
        steps: 0,
    };
    let mut px = vec![blank; np];
    let aux = &mut out.aux;
    let lanes = if let Some(p2) = opts.lanes2(chain) {
        Some(fs::final_state_run::<Widest, 4, _>(
            &p2,
            &states(starts),
            n,
            h,
            settle,
            &mut px,
            aux,
        ))
    } else {
        opts.lanes3(chain).map(|p3| {
            fs::final_state_run::<Widest, 6, _>(&p3, &states(starts), n, h, settle, &mut px, aux)
        })
    };
    if let Some(steps) = lanes {
        out.steps = steps;
        for (p, r) in px.iter().enumerate() {
            out.class[p] = r.label;
            out.value[p] = r.settle_time;
        }
        return;
    }
    let mut flow = Flow::new(chain);
    let mut solver = Rk4::new(h).solver(dim);
    let (mut y, mut ring) = (Vec::with_capacity(dim), Vec::new());
    for p in 0..np {
        if tile_cancelled(0) {
            return;
        }
        let o = basins::classify(
            &mut flow,
            &mut solver,
            settle,
            &starts[p],
            n,
            h,
            &mut y,
            &mut ring,
            &mut out.aux[p * m..(p + 1) * m],
        );
        out.class[p] = o.label;
        out.value[p] = o.settle_time;
        out.steps += o.steps;
    }
}

/// SALI/GALI maps: the single-orbit indicators of each pixel (on the SIMD tangent lanes for a
/// two-link chain, [`indicators`], which reproduce them).
pub(super) fn indicator(w: &Work<'_>, out: &mut TileResult) {
    let (chain, opts, starts) = w.inputs();
    let (np, _, n, h) = w.sizes();
    out.value = vec![f64::NAN; np];
    out.aux = vec![f64::NAN; np];
    let io = indicator_options(opts).expect("validated kind");
    let gali = matches!(opts.kind, MapKind::Gali { .. });
    let grid = indicators::IndicatorGrid::new(&io, h, gali);
    if let (Some(p2), Some(g)) = (opts.lanes2(chain), grid) {
        let y0: Vec<[f64; 4]> = states(starts);
        let (value, aux) = (&mut out.value, &mut out.aux);
        let class = &mut out.class;
        out.steps = indicators::indicator_run::<Widest>(&p2, &y0, h, &g, value, aux, class);
        return;
    }
    let method = crate::integrate::Method::Rk4 { dt: h };
    for p in 0..np {
        let r = crate::analysis::orbit::indicators(
            chain,
            &method,
            &starts[p],
            &io,
            // The tile's stop request reaches inside the pixel's intervals.
            &mut crate::observe::Cancellable(TILE_CANCEL.with(|c| c.borrow().clone())),
        );
        match r {
            Ok(ind) => {
                out.value[p] = match opts.kind {
                    MapKind::Gali { .. } => ind.gali[(ind.gali.nrows() - 1, io.k - 2)],
                    _ => *ind.sali.last().expect("history starts at t = 0"),
                };
                out.aux[p] = ind.chaos_time.unwrap_or(f64::NAN);
                out.class[p] = match ind.regularity {
                    Regularity::Chaotic => class::CHAOTIC,
                    Regularity::Regular => class::REGULAR,
                    Regularity::Undecided => class::UNDECIDED,
                };
                out.steps += ind.steps;
            }
            Err(_) => {
                out.class[p] = class::DIVERGED;
                out.steps += u64::from(n);
            }
        }
    }
}

/// `n` RK4 steps of `h` from t = 0 on the scalar path; false if the tile was stopped meanwhile.
fn steps(
    solver: &mut crate::integrate::rk4::Rk4Solver,
    flow: &mut Flow<'_, Chain>,
    y: &mut [f64],
    n: u32,
    h: f64,
) -> bool {
    for k in 0..n {
        if tile_cancelled(u64::from(k) + 1) {
            return false;
        }
        solver.rk4_step(flow, k as f64 * h, h, y);
    }
    true
}
