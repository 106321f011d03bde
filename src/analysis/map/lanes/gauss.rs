//! The frequency map's orbits on the lanes: Gauss–Legendre collocation of order 6 in canonical
//! coordinates (θ, p) for conservative two-link chains, a group of pixels at once.
//!
//! The method is [`crate::integrate::Gauss`]'s with three stages, step for step, and its pieces
//! are the solver's own ([`Tableau`], its starting guess [`Tableau::extrapolation`], the
//! stopping rule [`sweeps_done`], the Kahan update [`compensated_add`]); only the loops over
//! stages and sweeps are written again here, over lanes. What differs from the scalar path is only the rounding of the flow: sin and
//! cos are the lanes' `sin_cos` (about 1 ulp from the standard library's), and the step is
//! exactly `h` (the scalar clock's `t_{k+1} − t_k` can differ from it in the last bit). A torus
//! gives the same frequencies both ways to round-off; a chaotic pixel, which amplifies any
//! rounding, gets another index of the same size.
//!
//! Each lane stops its fixed-point iteration on its own (its stage values frozen once its
//! rule is met, while the other lanes sweep on), so a pixel's bits depend neither on its
//! neighbours in the group nor on the lane width: a map has the same bits for every thread
//! count, tile size, resumption and instruction set.
//!
//! Speed: the scalar step spends about 30 flow evaluations (10 sweeps of 3 stages), each with
//! two libm `sin_cos` calls; here each evaluation serves a whole vector of pixels (issue 33).

// Numerical kernels index several parallel buffers with one counter (module doc of gauss.rs).
#![allow(clippy::needless_range_loop)]

use super::sincos::sin_cos;
use super::{simd, Simd, TwoLink};
use crate::analysis::simd::multiversion;
use crate::integrate::gauss::{compensated_add, sweeps_done, Tableau};

/// Fixed-point sweeps after which a lane's step has failed (the scalar solver's `max_iter`).
const MAX_SWEEPS: u32 = 50;

/// The canonical flow of a conservative two-link chain on `L` lanes: `θ̇ = M(θ)⁻¹ p`,
/// `ṗ₁ = −a12 sin(θ1 − θ2) ω1 ω2 − g b1 sin θ1`, `ṗ₂ = a12 sin(θ1 − θ2) ω1 ω2 − g b2 sin θ2`
/// (`Canonical::rhs` for two links, with the lanes' sin and cos).
#[inline(always)]
fn flow<const L: usize>(m: &TwoLink, y: &[[f64; L]; 4], f: &mut [[f64; L]; 4]) {
    for l in 0..L {
        let (s1, c1) = sin_cos(y[0][l]);
        let (s2, c2) = sin_cos(y[1][l]);
        let (p1, p2) = (y[2][l], y[3][l]);
        let m12 = m.a12 * (c1 * c2 + s1 * s2);
        let sd = m.a12 * (s1 * c2 - c1 * s2);
        let inv = 1.0 / (m.a11 * m.a22 - m12 * m12);
        let w1 = (m.a22 * p1 - m12 * p2) * inv;
        let w2 = (m.a11 * p2 - m12 * p1) * inv;
        let q = sd * w2 * w1;
        f[0][l] = w1;
        f[1][l] = w2;
        f[2][l] = -q - m.gb1 * s1;
        f[3][l] = q - m.gb2 * s2;
    }
}

/// `max(a, b)` for the running maxima of the stopping rule, where `a` is never NaN: what
/// `f64::max` gives there (a NaN `b` is ignored), written as a select so that it vectorizes.
#[inline(always)]
fn larger(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// One group's samples: lane `l`'s θ and θ̇ as a row-major (samples × 2) block at
/// `l · samples · 2`, and per lane whether its orbit held (stages converged, state finite) and
/// the steps it took.
pub struct Group {
    pub theta: Vec<f64>,
    pub omega: Vec<f64>,
    pub ok: Vec<bool>,
    pub steps: Vec<u64>,
}

impl Group {
    /// Buffers for up to `width` lanes of `samples` samples.
    pub fn new(width: usize, samples: usize) -> Group {
        Group {
            theta: vec![0.0; width * samples * 2],
            omega: vec![0.0; width * samples * 2],
            ok: vec![false; width],
            steps: vec![0; width],
        }
    }
}

/// How a group's orbits are sampled: steps of `h`, a sample every `every` steps, `samples`
/// samples (the first at the start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    pub h: f64,
    pub every: u32,
    pub samples: usize,
}

/// Lanes per group on this CPU: 8 with AVX-512, 4 otherwise (the same bits at every width).
pub fn width() -> usize {
    match simd() {
        Simd::Avx512 => 8,
        _ => 4,
    }
}

multiversion! {
    /// Integrates the canonical start states `y0` (at most [`width`] of them) with step `at.h`,
    /// taking `at.samples` samples `at.every` steps apart (the first at the start), into `out`
    /// (from [`Group::new`] with `width()` lanes). `cancelled(count)` is asked after each step
    /// with the group's running step count; true abandons the group (returns false).
    pub fn run(
        m: &TwoLink,
        y0: &[[f64; 4]],
        at: Sampling,
        out: &mut Group,
        cancelled: &dyn Fn(u64) -> bool,
    ) -> bool = group::<8>, group::<4>, group::<4>;
}

/// [`run`] on `L` lanes (`y0.len() ≤ L`; the lanes beyond it idle at rest).
#[inline(always)]
pub fn group<const L: usize>(
    m: &TwoLink,
    y0: &[[f64; 4]],
    at: Sampling,
    out: &mut Group,
    cancelled: &dyn Fn(u64) -> bool,
) -> bool {
    let Sampling {
        h,
        every: sample_steps,
        samples,
    } = at;
    assert!(y0.len() <= L && out.ok.len() >= y0.len());
    let tab = Tableau::new(3);
    // Every step has length h, so the starting guess's weights are the same for all.
    let w = tab.extrapolation(h, h);
    let mut y = [[0.0; L]; 4];
    let mut alive = [false; L];
    for (l, s) in y0.iter().enumerate() {
        for q in 0..4 {
            y[q][l] = s[q];
        }
        alive[l] = true;
    }
    let mut comp = [[0.0; L]; 4];
    let mut big_f = [[[0.0; L]; 4]; 3];
    let mut steps = [0u64; L];
    let mut count = 0u64;
    let mut rate = [[0.0; L]; 4];
    let n_lanes = y0.len();
    record(m, 0, samples, n_lanes, &y, &mut rate, out);
    let mut first = true;
    for s in 1..samples {
        for _ in 0..sample_steps {
            count += 1;
            if cancelled(count) {
                return false;
            }
            step(
                m, &tab, &w, h, first, &mut y, &mut comp, &mut big_f, &mut alive,
            );
            first = false;
            for l in 0..L {
                steps[l] += u64::from(alive[l]);
            }
            if !alive[..n_lanes].iter().any(|&a| a) {
                break;
            }
        }
        record(m, s, samples, n_lanes, &y, &mut rate, out);
    }
    out.ok[..n_lanes].copy_from_slice(&alive[..n_lanes]);
    out.steps[..n_lanes].copy_from_slice(&steps[..n_lanes]);
    true
}

/// Sample `s` of the first `n_lanes` lanes: θ, and θ̇ from the flow.
#[inline(always)]
fn record<const L: usize>(
    m: &TwoLink,
    s: usize,
    samples: usize,
    n_lanes: usize,
    y: &[[f64; L]; 4],
    rate: &mut [[f64; L]; 4],
    out: &mut Group,
) {
    flow(m, y, rate);
    for l in 0..n_lanes {
        let at = (l * samples + s) * 2;
        out.theta[at] = y[0][l];
        out.theta[at + 1] = y[1][l];
        out.omega[at] = rate[0][l];
        out.omega[at + 1] = rate[1][l];
    }
}

/// One collocation step of every live lane, in place; a lane whose stages do not converge or
/// whose state is no longer finite dies (and rests at the origin from then on).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn step<const L: usize>(
    m: &TwoLink,
    tab: &Tableau,
    w: &[[f64; 3]; 3],
    h: f64,
    first: bool,
    y: &mut [[f64; L]; 4],
    comp: &mut [[f64; L]; 4],
    big_f: &mut [[[f64; L]; 4]; 3],
    alive: &mut [bool; L],
) {
    let mut z = [[[0.0; L]; 4]; 3];
    if first {
        // Z_i = c_i h f(y).
        let mut f0 = [[0.0; L]; 4];
        flow(m, y, &mut f0);
        for i in 0..3 {
            for q in 0..4 {
                for l in 0..L {
                    z[i][q][l] = tab.c[i] * h * f0[q][l];
                }
            }
        }
    } else {
        // The last step's collocation polynomial extrapolated ([`Tableau::extrapolation`]).
        for i in 0..3 {
            let wi = w[i];
            for q in 0..4 {
                for l in 0..L {
                    let mut acc = 0.0;
                    for j in 0..3 {
                        acc += wi[j] * big_f[j][q][l];
                    }
                    z[i][q][l] = acc;
                }
            }
        }
    }
    let mut active = *alive;
    let mut prev = [f64::INFINITY; L];
    let mut fresh = [[[0.0; L]; 4]; 3];
    let mut ys = [[0.0; L]; 4];
    for _ in 0..MAX_SWEEPS {
        for i in 0..3 {
            for q in 0..4 {
                for l in 0..L {
                    ys[q][l] = y[q][l] + z[i][q][l];
                }
            }
            flow(m, &ys, &mut fresh[i]);
        }
        let mut change = [0.0f64; L];
        let mut scale = [0.0f64; L];
        for i in 0..3 {
            let ai = tab.a[i];
            for q in 0..4 {
                for l in 0..L {
                    let mut acc = 0.0;
                    for j in 0..3 {
                        acc += ai[j] * fresh[j][q][l];
                    }
                    let znew = h * acc;
                    let zold = z[i][q][l];
                    change[l] = larger(change[l], (znew - zold).abs());
                    scale[l] = larger(scale[l], y[q][l].abs() + zold.abs());
                    z[i][q][l] = if active[l] { znew } else { zold };
                }
            }
        }
        for j in 0..3 {
            for q in 0..4 {
                for l in 0..L {
                    let keep = big_f[j][q][l];
                    big_f[j][q][l] = if active[l] { fresh[j][q][l] } else { keep };
                }
            }
        }
        let mut any = false;
        for l in 0..L {
            if !active[l] {
                continue;
            }
            let (c, sc) = (change[l], scale[l]);
            if c.is_nan() || sc.is_nan() {
                active[l] = false;
                alive[l] = false;
                continue;
            }
            let (done, delta) = sweeps_done(c, sc, prev[l]);
            if done {
                active[l] = false;
            } else {
                prev[l] = delta;
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    for l in 0..L {
        // Still iterating after MAX_SWEEPS: no convergence, as the scalar solver reports it.
        if active[l] {
            alive[l] = false;
        }
    }
    for q in 0..4 {
        for l in 0..L {
            let mut inc = 0.0;
            for j in 0..3 {
                inc += tab.b[j] * big_f[j][q][l];
            }
            compensated_add(&mut y[q][l], &mut comp[q][l], h * inc);
        }
    }
    for l in 0..L {
        let finite = (0..4).all(|q| y[q][l].is_finite());
        if !(alive[l] && finite) {
            alive[l] = false;
            for q in 0..4 {
                y[q][l] = 0.0;
                comp[q][l] = 0.0;
                for j in 0..3 {
                    big_f[j][q][l] = 0.0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate::{Flow, Gauss, Solver};
    use crate::model::{Canonical, Chain, ChainParams, System};

    fn rods() -> (Chain, TwoLink) {
        let chain = Chain::new(ChainParams::equal_rods(2)).unwrap();
        let p2 = crate::analysis::map::two_link(&chain).unwrap();
        (chain, p2)
    }

    /// Canonical start states of unit point masses across the square, a fast one and a NaN.
    fn starts(chain: &Chain) -> Vec<[f64; 4]> {
        let mut y0: Vec<[f64; 4]> = (0..13)
            .map(|i| {
                let x = [-2.9 + 0.45 * i as f64, 2.7 - 0.4 * i as f64, 0.2, -0.3];
                let c = chain.to_canonical(&x);
                std::array::from_fn(|q| c[q])
            })
            .collect();
        y0.push([0.0, 0.0, 40.0, 0.0]);
        y0.push([f64::NAN, 0.0, 0.0, 0.0]);
        y0
    }

    /// The lanes' flow is `Canonical::rhs` to round-off (only sin and cos differ).
    #[test]
    fn flow_is_the_canonical_rhs() {
        let (chain, p2) = rods();
        let can = Canonical(&chain);
        let mut ws = can.workspace();
        for (k, s) in starts(&chain).iter().take(14).enumerate() {
            let mut y = [[0.0; 1]; 4];
            for q in 0..4 {
                y[q][0] = s[q] + 0.1 * k as f64;
            }
            let mut f = [[0.0; 1]; 4];
            flow(&p2, &y, &mut f);
            let x: Vec<f64> = y.iter().map(|v| v[0]).collect();
            let mut want = vec![0.0; 4];
            can.rhs(0.0, &x, &mut want, &mut ws);
            for q in 0..4 {
                let tol = 1e-14 * (1.0 + want[q].abs());
                assert!(
                    (f[q][0] - want[q]).abs() < tol,
                    "{k} {q}: {} vs {}",
                    f[q][0],
                    want[q]
                );
            }
        }
    }

    /// Every lane width and every grouping of the pixels gives each pixel the same bits; the
    /// NaN start fails, the others hold.
    #[test]
    fn every_width_and_grouping_gives_the_same_bits() {
        let (chain, p2) = rods();
        let y0 = starts(&chain);
        let (h, every, samples) = (0.05, 2, 40);
        let at = Sampling { h, every, samples };
        let run_in = |size: usize, lanes: usize| {
            let mut theta = Vec::new();
            let mut ok = Vec::new();
            for chunk in y0.chunks(size) {
                let mut g = Group::new(lanes, samples);
                let never = |_: u64| false;
                let done = match lanes {
                    1 => group::<1>(&p2, chunk, at, &mut g, &never),
                    4 => group::<4>(&p2, chunk, at, &mut g, &never),
                    _ => group::<8>(&p2, chunk, at, &mut g, &never),
                };
                assert!(done);
                for l in 0..chunk.len() {
                    ok.push(g.ok[l]);
                    let block = &g.theta[l * samples * 2..(l + 1) * samples * 2];
                    theta.extend(block.iter().map(|v| v.to_bits()));
                }
            }
            (theta, ok)
        };
        let one = run_in(1, 1);
        // The NaN start, and the fast one, whose stages do not converge at this step on the
        // scalar solver either.
        let failed: Vec<usize> = (0..y0.len()).filter(|&p| !one.1[p]).collect();
        assert_eq!(failed, [y0.len() - 2, y0.len() - 1]);
        let can = Canonical(&chain);
        let mut flow = Flow::with_layout(&can, false, 0);
        let mut solver = Gauss::new(h).solver(4);
        let mut y = y0[y0.len() - 2].to_vec();
        let mut t = 0.0;
        let scalar = (0..every as usize * samples).try_for_each(|_| {
            t = solver.step(&mut flow, t, &mut y, 1e3)?;
            Ok::<(), crate::integrate::IntegrateError>(())
        });
        assert!(scalar.is_err());
        for (size, lanes) in [(4, 4), (3, 4), (8, 8), (5, 8)] {
            assert_eq!(
                run_in(size, lanes),
                one,
                "groups of {size} on {lanes} lanes"
            );
        }
        let all = run_in(8, width());
        assert_eq!(all, one, "the dispatched width");
    }

    /// On a regular orbit the lanes follow the scalar solver (`integrate::Gauss`, three stages)
    /// to round-off: the two differ only in sin, cos and the last bit of the step.
    #[test]
    fn follows_the_scalar_solver() {
        let (chain, p2) = rods();
        let x = [0.4, 0.3, 0.0, 0.0];
        let c = chain.to_canonical(&x);
        let y0: [f64; 4] = std::array::from_fn(|q| c[q]);
        let (h, every, samples) = (0.05, 2, 1000);
        let at = Sampling { h, every, samples };
        let mut g = Group::new(1, samples);
        assert!(group::<1>(&p2, &[y0], at, &mut g, &|_| { false }));
        assert!(g.ok[0]);
        let can = Canonical(&chain);
        let mut flow = Flow::with_layout(&can, false, 0);
        let mut solver = Gauss::new(h).solver(4);
        let mut y = c.clone();
        let mut t = 0.0;
        let t_end = h * (every as usize * samples) as f64;
        let mut worst: f64 = 0.0;
        for s in 1..samples {
            for _ in 0..every {
                t = solver.step(&mut flow, t, &mut y, t_end).unwrap();
            }
            for j in 0..2 {
                worst = worst.max((g.theta[s * 2 + j] - y[j]).abs());
            }
        }
        assert!(
            worst < 1e-11,
            "largest difference in θ over 100 s: {worst:e}"
        );
    }
}
