//! Lyapunov, FTLE and MEGNO maps on the lanes: the two-link RK4 with K deviation vectors carried
//! beside the state ([`rk4`](super::engine::rk4) on the augmented vector, so the deviations
//! follow the exact tangent map of the discrete step, as the scalar `Flow` path's do). Every
//! lane counts its own steps and time; a pixel ends when it reaches `n_steps`, when its state
//! becomes non-finite (its outputs NaN), or (Lyapunov with a tolerance) once it converged.

use super::super::blocks::{BlockAcc, Blocks};
use super::engine::{run, At, LaneModel, Reduction, Width};
use super::two_link::TwoLink;
use crate::analysis::lyapunov::megno::{slope, Megno};

pub use super::engine::rate;

/// What each pixel's tangent run is reduced to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reduce {
    /// One vector from (1, 1, 1, 1)/2, renormalised every `renorm_steps` and at the end:
    /// Σ ln ‖δ‖ / time used in `value`, and in `aux` (3 per pixel) the standard error of
    /// `blocks` block means, the time used (t_max unless `tolerance` stopped the pixel) and
    /// the converged flag ([`blocks`](super::super::blocks)).
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

/// `aux` columns per pixel of a reduction.
pub fn aux_width(reduce: &Reduce) -> usize {
    match reduce {
        Reduce::Lyapunov { .. } => 3,
        Reduce::Megno { .. } => 1,
        Reduce::Ftle => 0,
    }
}

/// Integrates each start state `y0[p]` (θ1, θ2, ω1, ω2) with its deviation vectors for
/// `n_steps` steps of `h` (or until its state is non-finite) and writes the reduction
/// ([`Reduce`]) to `value[p]` (NaN where diverged) and, for MEGNO, the slope of ⟨Y⟩ to
/// `aux[p]`, for Lyapunov its three error columns to `aux[3p..3p + 3]` (`aux` is empty for
/// FTLE). Damping and drive are compiled in only where `p` has them. Returns the RK4 steps
/// taken, summed over pixels.
pub fn tangent_run<W: Width>(
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
    let n = n_steps;
    if n == 0 {
        value.fill(f64::NAN);
        aux.fill(f64::NAN);
        return 0;
    }
    let (damped, driven) = (p.damped(), p.driven());
    match reduce {
        Reduce::Lyapunov {
            renorm_steps,
            blocks,
            tolerance,
        } => {
            let schedule = Blocks::new(n, renorm_steps, blocks, h, tolerance);
            let q = renorm_steps.max(1);
            let mut red = LyapunovLanes {
                schedule,
                q,
                n,
                value,
                aux,
            };
            run::<W, 4, 1, _, _>(p, damped, driven, y0, h, &mut red)
        }
        Reduce::Ftle => {
            let t_max = f64::from(n) * h;
            let mut red = FtleLanes { n, t_max, value };
            run::<W, 4, 4, _, _>(p, damped, driven, y0, h, &mut red)
        }
        Reduce::Megno { tau_steps } => {
            let q = tau_steps.max(1);
            let mut red = MegnoLanes { q, n, value, aux };
            run::<W, 4, 1, _, _>(p, damped, driven, y0, h, &mut red)
        }
    }
}

/// The start vector of the one-vector reductions: (1, 1, 1, 1)/2 (the scalar path's).
pub(super) const HALVES: [[f64; 4]; 1] = [[0.5; 4]];

/// ‖v‖ as the scalar path computes it (squares summed in order).
#[inline(always)]
pub(super) fn norm(v: &[f64; 4]) -> f64 {
    let mut s = 0.0;
    for a in v {
        s += a * a;
    }
    s.sqrt()
}

/// How a pixel at step `k` of `n` ends: `None` while it runs on, `Some(true)` with its
/// outputs to be written (at `n`, or `converged`), `Some(false)` when its state became
/// non-finite first (its outputs NaN).
#[inline(always)]
fn ending(k: u32, n: u32, y: &[f64; 4], converged: bool) -> Option<bool> {
    let finite = (y[0] + y[1] + y[2] + y[3]).is_finite();
    if k < n && finite && !converged {
        return None;
    }
    Some(k >= n || converged)
}

/// A diverged pixel: NaN in `value[px]` and its `m` aux columns.
fn diverged(value: &mut [f64], aux: &mut [f64], m: usize, px: usize) {
    value[px] = f64::NAN;
    aux[m * px..m * px + m].fill(f64::NAN);
}

/// The largest exponent: Σ ln ‖δ‖ at the renormalisations over the time used, with the block
/// errors of [`Blocks`].
struct LyapunovLanes<'a> {
    schedule: Blocks,
    /// Steps per renormalisation.
    q: u32,
    n: u32,
    value: &'a mut [f64],
    aux: &'a mut [f64],
}

/// A Lyapunov lane: Σ ln ‖δ‖ at the renormalisations and their block means.
#[derive(Debug, Clone, Default)]
struct LogSum {
    log_sum: f64,
    blocks: BlockAcc,
}

impl Reduction<4, 1> for LyapunovLanes<'_> {
    type Lane = LogSum;

    fn lane(&self) -> LogSum {
        LogSum::default()
    }

    fn vectors(&self) -> [[f64; 4]; 1] {
        HALVES
    }

    #[inline(always)]
    fn start(&mut self, a: &mut LogSum, _px: usize, _y: &[f64; 4]) -> bool {
        a.log_sum = 0.0;
        a.blocks.reset();
        false
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<4>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        a: &mut LogSum,
        at: At<'_, L, 4, 1>,
    ) -> Option<u64> {
        let (kl, px) = (at.k as u32, at.px);
        let (y, mut v) = at.lanes.get(at.l);
        // A pixel that met its tolerance at a block end.
        let mut converged = false;
        if kl % self.q == 0 || kl == self.n {
            let r = norm(&v[0]);
            a.log_sum += r.ln();
            converged = a.blocks.renorm(&self.schedule, kl, r.ln());
            v[0].iter_mut().for_each(|x| *x /= r);
            at.lanes.set(at.l, &y, &v);
        }
        if ending(kl, self.n, &y, converged)? {
            let (lambda, errs) = a.blocks.finish(&self.schedule, kl, a.log_sum);
            self.value[px] = lambda;
            self.aux[3 * px..3 * px + 3].copy_from_slice(&errs);
        } else {
            diverged(self.value, self.aux, 3, px);
        }
        Some(u64::from(kl))
    }
}

/// The finite-time exponent: four vectors from I, ln σ_max(Φ(t_max)) / t_max.
struct FtleLanes<'a> {
    n: u32,
    t_max: f64,
    value: &'a mut [f64],
}

impl Reduction<4, 4> for FtleLanes<'_> {
    type Lane = ();

    fn lane(&self) {}

    fn vectors(&self) -> [[f64; 4]; 4] {
        std::array::from_fn(|j| std::array::from_fn(|c| f64::from(u8::from(j == c))))
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<4>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        _a: &mut (),
        at: At<'_, L, 4, 4>,
    ) -> Option<u64> {
        let (kl, px) = (at.k as u32, at.px);
        let (y, v) = at.lanes.get(at.l);
        if ending(kl, self.n, &y, false)? {
            let mut cols = [0.0; 16];
            for j in 0..4 {
                cols[4 * j..4 * j + 4].copy_from_slice(&v[j]);
            }
            self.value[px] = super::super::largest_singular_value(&cols, 4).ln() / self.t_max;
        } else {
            diverged(self.value, &mut [], 0, px);
        }
        Some(u64::from(kl))
    }
}

/// MEGNO: ⟨Y⟩ from r at every step and at t_max, one vector renormalised every `q` steps.
struct MegnoLanes<'a> {
    q: u32,
    n: u32,
    value: &'a mut [f64],
    aux: &'a mut [f64],
}

/// A MEGNO lane: the running ⟨Y⟩ and its (t, ⟨Y⟩) samples with t ≥ t_max/2.
#[derive(Debug, Clone, Default)]
struct MegnoAcc {
    megno: Megno,
    ts: Vec<f64>,
    ys: Vec<f64>,
}

impl Reduction<4, 1> for MegnoLanes<'_> {
    type Lane = MegnoAcc;
    const RATE: bool = true;

    fn lane(&self) -> MegnoAcc {
        MegnoAcc::default()
    }

    fn vectors(&self) -> [[f64; 4]; 1] {
        HALVES
    }

    #[inline(always)]
    fn start(&mut self, a: &mut MegnoAcc, _px: usize, _y: &[f64; 4]) -> bool {
        a.megno = Megno::new();
        a.ts.clear();
        a.ys.clear();
        false
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<4>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        m: &M,
        a: &mut MegnoAcc,
        at: At<'_, L, 4, 1>,
    ) -> Option<u64> {
        let (kl, px, h, n, q) = (at.k as u32, at.px, at.h, self.n, self.q);
        let (y, mut v) = at.lanes.get(at.l);
        // r at the start of this step, t_j = (k − 1)·h.
        let j = kl - 1;
        let tj = f64::from(j) * h;
        a.megno.push(tj, at.rate);
        if j % q == 0 && 2 * u64::from(j) >= u64::from(n) {
            a.ts.push(tj);
            a.ys.push(a.megno.mean());
        }
        if kl == n {
            let tn = f64::from(n) * h;
            let (_, dv) = m.deriv::<1, DAMPED, DRIVEN>(tn, &y, &v);
            a.megno.push(tn, rate(&dv[0], &v[0]));
            a.ts.push(tn);
            a.ys.push(a.megno.mean());
        } else if kl % q == 0 {
            let r = norm(&v[0]);
            v[0].iter_mut().for_each(|x| *x /= r);
            at.lanes.set(at.l, &y, &v);
        }
        if ending(kl, n, &y, false)? {
            self.value[px] = a.megno.mean();
            self.aux[px] = slope(&a.ts, &a.ys);
        } else {
            diverged(self.value, self.aux, 1, px);
        }
        Some(u64::from(kl))
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::{Fixed, Widest};
    use super::super::two_link::{starts, RODS_DRIVEN as P};
    use super::*;

    /// Lane widths 1, 4, 8, 16 (and the dispatched width) give the same bits for every
    /// reduction, with pixels that refill lanes at different moments (one blows up early).
    #[test]
    fn lane_widths_agree() {
        let y0 = starts();
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
                let s = match lanes {
                    1 => tangent_run::<Fixed<1>>(&P, &y0, n, h, reduce, v, a),
                    4 => tangent_run::<Fixed<4>>(&P, &y0, n, h, reduce, v, a),
                    8 => tangent_run::<Fixed<8>>(&P, &y0, n, h, reduce, v, a),
                    16 => tangent_run::<Fixed<16>>(&P, &y0, n, h, reduce, v, a),
                    _ => tangent_run::<Widest>(&P, &y0, n, h, reduce, v, a),
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
}
