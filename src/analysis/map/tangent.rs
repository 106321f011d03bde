//! Tangent dynamics on SIMD lanes: the two-link kernel's RK4 with K deviation vectors carried
//! beside the state, for Lyapunov, FTLE and MEGNO maps.
//!
//! With `M(θ) α = F` as in [`kernel`](super::kernel) (Δ = θ1 − θ2), a deviation δ = (δθ, δω)
//! obeys `M δα = δF − δM α`, which for two links is, row by row,
//!
//! ```text
//! r1 = a12 (sinΔ α2 − ω2² cosΔ) δΔ − q1 δθ1 − 2 a12 ω2 sinΔ δω2 − (D δω)_1
//! r2 = a12 (ω1² cosΔ + sinΔ α1) δΔ − q2 δθ2 + 2 a12 ω1 sinΔ δω1 − (D δω)_2
//! ```
//!
//! with `q_j = b_j (g_y cos θ_j − g_x sin θ_j)` (g·b_j cos θ_j undriven): the G and H blocks of
//! `Chain::rhs_tangent`, solved with the inverse that served the state. RK4 runs on the
//! augmented vector (state and deviations through the same stages), so the deviations follow
//! the exact tangent map of the discrete step, as the scalar `Flow` path's do. Every lane
//! counts its own steps and time; a lane refills as soon as its pixel reaches `n_steps` or its
//! state becomes non-finite.

use super::blocks::{BlockAcc, Blocks};
use super::kernel::{widest, TwoLink};
use super::sincos::sin_cos;
use crate::analysis::lyapunov::megno::{slope, Megno};

/// What each pixel's tangent run is reduced to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reduce {
    /// One vector from (1, 1, 1, 1)/2, renormalised every `renorm_steps` and at the end:
    /// Σ ln ‖δ‖ / time used in `value`, and in `aux` (3 per pixel) the standard error of
    /// `blocks` block means, the time used (t_max unless `tolerance` stopped the pixel) and
    /// the converged flag ([`super::blocks`]).
    Lyapunov {
        renorm_steps: u32,
        blocks: u32,
        tolerance: Option<f64>,
    },
    /// Four vectors from I, never renormalised: ln σ_max(Φ(t_max)) / t_max.
    Ftle,
    /// One vector from (1, 1, 1, 1)/2, renormalised every `tau_steps`; r = δ̇·δ/δ·δ at every
    /// step t_k = k·h (from the step's first stage) and at t_max is fed to [`Megno`]:
    /// ⟨Y⟩(t_max) in `value`, the slope of ⟨Y⟩ over its samples at the multiples of
    /// `tau_steps` with t ≥ t_max/2 and at t_max in `aux`. (Sampling r only every τ would
    /// alias: r swings with the motion, and a trapezoid over 0.1 s makes ⟨Y⟩ of rotating
    /// pixels wrong by tens.)
    Megno { tau_steps: u32 },
}

impl Reduce {
    /// Deviation vectors a lane carries.
    fn vectors(&self) -> usize {
        match self {
            Reduce::Ftle => 4,
            _ => 1,
        }
    }
}

/// State derivative and the K deviation derivatives at (t, y, v).
#[inline(always)]
#[allow(clippy::type_complexity)]
fn eval<const K: usize, const DAMPED: bool, const DRIVEN: bool>(
    p: &TwoLink,
    t: f64,
    y: &[f64; 4],
    v: &[[f64; 4]; K],
) -> ([f64; 4], [[f64; 4]; K]) {
    let [th1, th2, w1, w2] = *y;
    let (s1, c1) = sin_cos(th1);
    let (s2, c2) = sin_cos(th2);
    let sd = s1 * c2 - c1 * s2;
    let cd = c1 * c2 + s1 * s2;
    let (mut r1, mut r2, q1, q2);
    if DRIVEN {
        let d = &p.drive;
        let [ax, ay, om, ph] = d.pivot;
        let acc = -(om * om) * sin_cos(om * t + ph).1;
        let (gx, gy) = (ax * acc, d.g + ay * acc);
        r1 = -p.a12 * w2 * w2 * sd - d.b1 * (gy * s1 + gx * c1);
        r2 = p.a12 * w1 * w1 * sd - d.b2 * (gy * s2 + gx * c2);
        let [amp, om, ph] = d.torque;
        r1 += amp * sin_cos(om * t + ph).1;
        q1 = d.b1 * (gy * c1 - gx * s1);
        q2 = d.b2 * (gy * c2 - gx * s2);
    } else {
        r1 = -p.a12 * w2 * w2 * sd - p.gb1 * s1;
        r2 = p.a12 * w1 * w1 * sd - p.gb2 * s2;
        q1 = p.gb1 * c1;
        q2 = p.gb2 * c2;
    }
    if DAMPED {
        r1 -= p.d11.mul_add(w1, p.d12 * w2);
        r2 -= p.d12.mul_add(w1, p.d22 * w2);
    }
    let bc = p.a12 * cd;
    let inv = 1.0 / (p.a11 * p.a22 - bc * bc);
    let a1 = (p.a22 * r1 - bc * r2) * inv;
    let a2 = (p.a11 * r2 - bc * r1) * inv;
    // The tangent block's coefficients (module doc).
    let e1 = p.a12 * (sd * a2 - w2 * w2 * cd);
    let e2 = p.a12 * (w1 * w1 * cd + sd * a1);
    let h12 = -2.0 * p.a12 * w2 * sd;
    let h21 = 2.0 * p.a12 * w1 * sd;
    let mut dv = [[0.0; 4]; K];
    for j in 0..K {
        let [u1, u2, x1, x2] = v[j];
        let dd = u1 - u2;
        let mut f1 = e1 * dd - q1 * u1 + h12 * x2;
        let mut f2 = e2 * dd - q2 * u2 + h21 * x1;
        if DAMPED {
            f1 -= p.d11.mul_add(x1, p.d12 * x2);
            f2 -= p.d12.mul_add(x1, p.d22 * x2);
        }
        dv[j] = [
            x1,
            x2,
            (p.a22 * f1 - bc * f2) * inv,
            (p.a11 * f2 - bc * f1) * inv,
        ];
    }
    ([w1, w2, a1, a2], dv)
}

/// One classical RK4 step of size `h` of the state and its K deviation vectors together (the
/// stage formulas of `integrate::Rk4` on the augmented vector). Returns the deviations'
/// derivatives at the start of the step (the first stage), from which MEGNO takes r.
#[inline(always)]
pub fn rk4_tangent<const K: usize, const DAMPED: bool, const DRIVEN: bool>(
    p: &TwoLink,
    h: f64,
    t: f64,
    y: &mut [f64; 4],
    v: &mut [[f64; 4]; K],
) -> [[f64; 4]; K] {
    let hh = 0.5 * h;
    let h6 = h / 6.0;
    let (tm, te) = (t + hh, t + h);
    let stage = |a: f64, y: &[f64; 4], v: &[[f64; 4]; K], ky: &[f64; 4], kv: &[[f64; 4]; K]| {
        let mut u = [0.0; 4];
        let mut w = [[0.0; 4]; K];
        for c in 0..4 {
            u[c] = y[c] + a * ky[c];
            for j in 0..K {
                w[j][c] = v[j][c] + a * kv[j][c];
            }
        }
        (u, w)
    };
    let (k1, l1) = eval::<K, DAMPED, DRIVEN>(p, t, y, v);
    let (u, w) = stage(hh, y, v, &k1, &l1);
    let (k2, l2) = eval::<K, DAMPED, DRIVEN>(p, tm, &u, &w);
    let (u, w) = stage(hh, y, v, &k2, &l2);
    let (k3, l3) = eval::<K, DAMPED, DRIVEN>(p, tm, &u, &w);
    let (u, w) = stage(h, y, v, &k3, &l3);
    let (k4, l4) = eval::<K, DAMPED, DRIVEN>(p, te, &u, &w);
    for c in 0..4 {
        y[c] += h6 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
        for j in 0..K {
            v[j][c] += h6 * (l1[j][c] + 2.0 * l2[j][c] + 2.0 * l3[j][c] + l4[j][c]);
        }
    }
    l1
}

/// MEGNO's r = δ̇·δ / δ·δ (products summed in order, as the scalar path sums them).
#[inline(always)]
pub fn rate(dv: &[f64; 4], v: &[f64; 4]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for c in 0..4 {
        num += dv[c] * v[c];
        den += v[c] * v[c];
    }
    num / den
}

/// Structure-of-arrays state and deviation vectors of `L` lanes (also the SALI/GALI lanes').
pub(super) struct TangentLanes<const L: usize, const K: usize> {
    pub(super) y: [[f64; L]; 4],
    pub(super) v: [[[f64; L]; 4]; K],
}

impl<const L: usize, const K: usize> TangentLanes<L, K> {
    #[inline(always)]
    pub(super) fn get(&self, l: usize) -> ([f64; 4], [[f64; 4]; K]) {
        let y = [self.y[0][l], self.y[1][l], self.y[2][l], self.y[3][l]];
        let mut v = [[0.0; 4]; K];
        for (j, vj) in v.iter_mut().enumerate() {
            for c in 0..4 {
                vj[c] = self.v[j][c][l];
            }
        }
        (y, v)
    }

    #[inline(always)]
    pub(super) fn set(&mut self, l: usize, y: &[f64; 4], v: &[[f64; 4]; K]) {
        for c in 0..4 {
            self.y[c][l] = y[c];
            for j in 0..K {
                self.v[j][c][l] = v[j][c];
            }
        }
    }

    /// One step of every lane, each from its own time `t[l]`; with `RATE`, `r[l]` gets MEGNO's
    /// r at the start of the step (from the first stage, so it costs no evaluation).
    #[inline(always)]
    pub(super) fn step<const DAMPED: bool, const DRIVEN: bool, const RATE: bool>(
        &mut self,
        p: &TwoLink,
        h: f64,
        t: &[f64; L],
        r: &mut [f64; L],
    ) {
        for l in 0..L {
            let (mut y, mut v) = self.get(l);
            let v0 = v[0];
            let l1 = rk4_tangent::<K, DAMPED, DRIVEN>(p, h, t[l], &mut y, &mut v);
            if RATE {
                r[l] = rate(&l1[0], &v0);
            }
            self.set(l, &y, &v);
        }
    }
}

/// ‖v‖ as the scalar path computes it (squares summed in order).
#[inline(always)]
fn norm(v: &[f64; 4]) -> f64 {
    let mut s = 0.0;
    for a in v {
        s += a * a;
    }
    s.sqrt()
}

/// What one lane's pixel has gathered so far.
#[derive(Debug, Clone, Default)]
struct Acc {
    /// Σ ln ‖δ‖ at the renormalisations (Lyapunov).
    log_sum: f64,
    /// Its block means (Lyapunov).
    blocks: BlockAcc,
    megno: Megno,
    /// (t, ⟨Y⟩) samples with t ≥ t_max/2 (MEGNO).
    ts: Vec<f64>,
    ys: Vec<f64>,
}

/// Integrates each start state `y0[p]` (θ1, θ2, ω1, ω2) with its deviation vectors for
/// `n_steps` steps of `h` (or until its state is non-finite) and writes the reduction
/// ([`Reduce`]) to `value[p]` (NaN where diverged) and, for MEGNO, the slope of ⟨Y⟩ to
/// `aux[p]`, for Lyapunov its three error columns to `aux[3p..3p + 3]` (`aux` is empty for
/// FTLE). Damping and drive are compiled in only where `p` has
/// them. Returns the RK4 steps taken, summed over pixels.
pub fn tangent_run(
    p: &TwoLink,
    y0: &[[f64; 4]],
    n_steps: u32,
    h: f64,
    reduce: Reduce,
    value: &mut [f64],
    aux: &mut [f64],
) -> u64 {
    assert!(value.len() == y0.len());
    assert!(aux.len() == aux_width(&reduce) * y0.len());
    macro_rules! go {
        ($k:literal, $d:literal, $r:literal) => {
            widest!(tangent_lanes[$k, $d, $r](
                p: &TwoLink,
                y0: &[[f64; 4]],
                n_steps: u32,
                h: f64,
                reduce: Reduce,
                value: &mut [f64],
                aux: &mut [f64]
            ) -> u64)
        };
    }
    match (reduce.vectors(), p.damped(), p.driven()) {
        (4, false, false) => go!(4, false, false),
        (4, true, false) => go!(4, true, false),
        (4, false, true) => go!(4, false, true),
        (4, true, true) => go!(4, true, true),
        (_, false, false) => go!(1, false, false),
        (_, true, false) => go!(1, true, false),
        (_, false, true) => go!(1, false, true),
        (_, true, true) => go!(1, true, true),
    }
}

/// `aux` columns per pixel of a reduction.
fn aux_width(reduce: &Reduce) -> usize {
    match reduce {
        Reduce::Lyapunov { .. } => 3,
        Reduce::Megno { .. } => 1,
        Reduce::Ftle => 0,
    }
}

/// [`tangent_run`] with `L` lanes of K vectors (K = [`Reduce::vectors`]).
#[inline(always)]
pub(crate) fn tangent_lanes<
    const L: usize,
    const K: usize,
    const DAMPED: bool,
    const DRIVEN: bool,
>(
    p: &TwoLink,
    y0: &[[f64; 4]],
    n: u32,
    h: f64,
    reduce: Reduce,
    value: &mut [f64],
    aux: &mut [f64],
) -> u64 {
    const IDLE: usize = usize::MAX;
    assert_eq!(K, reduce.vectors());
    if n == 0 {
        value.fill(f64::NAN);
        aux.fill(f64::NAN);
        return 0;
    }
    let t_max = f64::from(n) * h;
    let schedule = match reduce {
        Reduce::Lyapunov {
            renorm_steps,
            blocks,
            tolerance,
        } => Blocks::new(n, renorm_steps, blocks, h, tolerance),
        _ => Blocks::new(n, 1, 1, h, None),
    };
    let mut lanes = TangentLanes::<L, K> {
        y: [[0.0; L]; 4],
        v: [[[0.0; L]; 4]; K],
    };
    let mut who = [IDLE; L];
    let mut k = [0u32; L];
    let mut acc: Vec<Acc> = vec![Acc::default(); L];
    let mut next = 0usize;
    let mut steps = 0u64;
    // The start vectors: (1, 1, 1, 1)/2 for one, the identity for four (the scalar path's).
    let mut v0 = [[0.0; 4]; K];
    for (j, vj) in v0.iter_mut().enumerate() {
        for (c, x) in vj.iter_mut().enumerate() {
            *x = if K == 1 {
                0.5
            } else {
                f64::from(u8::from(j == c))
            };
        }
    }
    let load = |l: usize,
                lanes: &mut TangentLanes<L, K>,
                who: &mut [usize; L],
                k: &mut [u32; L],
                acc: &mut [Acc],
                next: &mut usize| {
        let a = &mut acc[l];
        (a.log_sum, a.megno) = (0.0, Megno::new());
        a.blocks.reset();
        a.ts.clear();
        a.ys.clear();
        k[l] = 0;
        if *next < y0.len() {
            lanes.set(l, &y0[*next], &v0);
            who[l] = *next;
            *next += 1;
        } else {
            lanes.set(l, &[0.0; 4], &v0);
            who[l] = IDLE;
        }
    };
    for l in 0..L {
        load(l, &mut lanes, &mut who, &mut k, &mut acc, &mut next);
    }
    let mut t = [0.0; L];
    let mut r = [0.0; L];
    let megno = matches!(reduce, Reduce::Megno { .. });
    let mut iteration = 0u64;
    while who.iter().any(|&w| w != IDLE) {
        iteration += 1;
        if super::tile_cancelled(iteration) {
            break;
        }
        for l in 0..L {
            t[l] = f64::from(k[l]) * h;
        }
        if megno {
            lanes.step::<DAMPED, DRIVEN, true>(p, h, &t, &mut r);
        } else {
            lanes.step::<DAMPED, DRIVEN, false>(p, h, &t, &mut r);
        }
        for l in 0..L {
            if who[l] == IDLE {
                continue;
            }
            k[l] += 1;
            let kl = k[l];
            let (y, mut v) = lanes.get(l);
            let a = &mut acc[l];
            let finite = (y[0] + y[1] + y[2] + y[3]).is_finite();
            // A Lyapunov pixel that met its tolerance at a block end.
            let mut converged = false;
            match reduce {
                Reduce::Lyapunov { renorm_steps, .. }
                    if kl % renorm_steps.max(1) == 0 || kl == n =>
                {
                    let r = norm(&v[0]);
                    a.log_sum += r.ln();
                    converged = a.blocks.renorm(&schedule, kl, r.ln());
                    v[0].iter_mut().for_each(|x| *x /= r);
                    lanes.set(l, &y, &v);
                }
                Reduce::Megno { tau_steps } => {
                    let q = tau_steps.max(1);
                    // r at the start of this step, t_j = (k − 1)·h.
                    let j = kl - 1;
                    let tj = f64::from(j) * h;
                    a.megno.push(tj, r[l]);
                    if j % q == 0 && 2 * u64::from(j) >= u64::from(n) {
                        a.ts.push(tj);
                        a.ys.push(a.megno.mean());
                    }
                    if kl == n {
                        let tn = f64::from(n) * h;
                        let (_, dv) = eval::<K, DAMPED, DRIVEN>(p, tn, &y, &v);
                        a.megno.push(tn, rate(&dv[0], &v[0]));
                        a.ts.push(tn);
                        a.ys.push(a.megno.mean());
                    } else if kl % q == 0 {
                        let r = norm(&v[0]);
                        v[0].iter_mut().for_each(|x| *x /= r);
                        lanes.set(l, &y, &v);
                    }
                }
                _ => {}
            }
            if kl < n && finite && !converged {
                continue;
            }
            let px = who[l];
            steps += u64::from(kl);
            let m = aux_width(&reduce);
            if kl < n && !converged {
                value[px] = f64::NAN;
                aux[m * px..m * px + m].fill(f64::NAN);
            } else {
                match reduce {
                    Reduce::Lyapunov { .. } => {
                        let (lambda, errs) = a.blocks.finish(&schedule, kl, a.log_sum);
                        value[px] = lambda;
                        aux[3 * px..3 * px + 3].copy_from_slice(&errs);
                    }
                    Reduce::Ftle => {
                        let mut cols = [0.0; 16];
                        for j in 0..K {
                            cols[4 * j..4 * j + 4].copy_from_slice(&v[j]);
                        }
                        value[px] = super::largest_singular_value(&cols, 4).ln() / t_max;
                    }
                    Reduce::Megno { .. } => {
                        value[px] = a.megno.mean();
                        aux[px] = slope(&a.ts, &a.ys);
                    }
                }
            }
            load(l, &mut lanes, &mut who, &mut k, &mut acc, &mut next);
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::map::kernel::TwoLinkDrive;

    /// Damped, driven rods-like constants (every branch of `eval` compiled in).
    const P: TwoLink = TwoLink {
        a11: 4.0 / 3.0,
        a12: 0.5,
        a22: 1.0 / 3.0,
        gb1: 1.5 * 9.81,
        gb2: 0.5 * 9.81,
        d11: 0.4,
        d12: -0.05,
        d22: 0.25,
        drive: TwoLinkDrive {
            b1: 1.5,
            b2: 0.5,
            g: 9.81,
            torque: [1.5, 2.0, 0.3],
            pivot: [0.05, 0.02, 3.0, 0.1],
        },
    };

    /// Lane widths 1, 4, 8, 16 (and the dispatched width) give the same bits for every
    /// reduction, with pixels that refill lanes at different moments (one blows up early).
    #[test]
    fn lane_widths_agree() {
        let mut y0: Vec<[f64; 4]> = (0..29)
            .map(|i| [-3.0 + 0.2 * i as f64, 2.9 - 0.19 * i as f64, 0.3, -0.1])
            .collect();
        y0.push([f64::NAN, 0.0, 0.0, 0.0]);
        let np = y0.len();
        for reduce in [
            Reduce::Lyapunov {
                renorm_steps: 7,
                blocks: 5,
                tolerance: None,
            },
            Reduce::Lyapunov {
                renorm_steps: 7,
                blocks: 5,
                tolerance: Some(0.05),
            },
            Reduce::Ftle,
            Reduce::Megno { tau_steps: 3 },
        ] {
            let run = |lanes: usize| {
                let mut value = vec![0.0; np];
                let mut aux = vec![0.0; aux_width(&reduce) * np];
                let (n, h) = (250, 0.01);
                let (v, a) = (&mut value, &mut aux);
                let s = match (lanes, reduce) {
                    (1, Reduce::Ftle) => {
                        tangent_lanes::<1, 4, true, true>(&P, &y0, n, h, reduce, v, a)
                    }
                    (4, Reduce::Ftle) => {
                        tangent_lanes::<4, 4, true, true>(&P, &y0, n, h, reduce, v, a)
                    }
                    (8, Reduce::Ftle) => {
                        tangent_lanes::<8, 4, true, true>(&P, &y0, n, h, reduce, v, a)
                    }
                    (16, Reduce::Ftle) => {
                        tangent_lanes::<16, 4, true, true>(&P, &y0, n, h, reduce, v, a)
                    }
                    (1, _) => tangent_lanes::<1, 1, true, true>(&P, &y0, n, h, reduce, v, a),
                    (4, _) => tangent_lanes::<4, 1, true, true>(&P, &y0, n, h, reduce, v, a),
                    (8, _) => tangent_lanes::<8, 1, true, true>(&P, &y0, n, h, reduce, v, a),
                    (16, _) => tangent_lanes::<16, 1, true, true>(&P, &y0, n, h, reduce, v, a),
                    _ => tangent_run(&P, &y0, n, h, reduce, v, a),
                };
                let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                (bits(&value), bits(&aux), s)
            };
            let want = run(1);
            // The NaN start ends after its first step; every other pixel runs 250 (or until its
            // tolerance stops it).
            let stops = matches!(
                reduce,
                Reduce::Lyapunov {
                    tolerance: Some(_),
                    ..
                }
            );
            assert!(stops && want.2 < 29 * 250 + 1 || want.2 == 29 * 250 + 1);
            assert!(f64::from_bits(want.0[29]).is_nan());
            assert!(want.0[..29].iter().all(|&b| f64::from_bits(b).is_finite()));
            for lanes in [4, 8, 16, 0] {
                assert_eq!(run(lanes), want, "{reduce:?}, {lanes} lanes");
            }
        }
    }

    /// The tangent block against central differences of the state derivative: J·v from
    /// `eval` matches (f(y + εv) − f(y − εv)) / 2ε to the differences' own error.
    #[test]
    fn tangent_block_is_the_jacobian() {
        let y = [0.7, -1.9, 1.3, -0.4];
        let v = [[0.3, -0.8, 0.5, 0.2]];
        let t = 0.37;
        let (_, jv) = eval::<1, true, true>(&P, t, &y, &v);
        let eps = 1e-6;
        let shift = |s: f64| {
            let mut z = y;
            for c in 0..4 {
                z[c] += s * v[0][c];
            }
            eval::<1, true, true>(&P, t, &z, &v).0
        };
        let (fp, fm) = (shift(eps), shift(-eps));
        for c in 0..4 {
            let fd = (fp[c] - fm[c]) / (2.0 * eps);
            assert!(
                (fd - jv[0][c]).abs() < 1e-7 * (1.0 + fd.abs()),
                "{c}: {fd} vs {}",
                jv[0][c]
            );
        }
    }
}
