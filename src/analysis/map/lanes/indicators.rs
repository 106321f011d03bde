//! SALI and GALI maps on the SIMD tangent lanes: the two-link tangent RK4 of
//! [`engine`](super::engine) with K = 2..4 deviation vectors per lane, reduced every τ as the
//! single-orbit [`indicators`](crate::analysis::orbit::indicators) reduces them (the
//! oracle; same start vectors, same order of operations):
//!
//! - at each interval end (every `q` steps) the augmented vector is tested for NaN/Inf (a
//!   blow-up: NaN, `DIVERGED`), each vector is normalised, SALI = min(‖u₁ + u₂‖, ‖u₁ − u₂‖),
//!   GALI_k = Π|R_ii| of the Householder QR of the unit vectors;
//! - the pixel ends at the last interval or once SALI < `stop_below`; its value is SALI (or
//!   GALI_k) of that interval, aux the first interval end with SALI < 1e-8 (NaN if none), and
//!   the class chaotic / regular (SALI > 1e-4 over the second half of a full run) / undecided.
//!
//! A lane whose pixel ends is refilled with the next pixel at once (the engine's refill loop).

use super::super::class;
use super::engine::{run, At, LaneModel, Reduction, Width};
use super::two_link::TwoLink;
use crate::analysis::orbit::{initial_vectors, AlignmentOptions, SALI_CHAOTIC, SALI_REGULAR};

/// The interval grid of one SALI/GALI run: `q` steps per interval, `total` intervals, `k`
/// vectors, stop below `stop_below`, and whether the value is GALI_k (else SALI).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndicatorGrid {
    pub q: u64,
    pub total: u64,
    pub k: usize,
    pub stop_below: Option<f64>,
    pub gali: bool,
    pub seed: u64,
}

impl IndicatorGrid {
    /// The grid [`indicators`](crate::analysis::orbit::indicators) would run for RK4 at
    /// step `h` with `io`, or None where it would refuse the options (the caller then runs
    /// the scalar path, which reports them) or the chain is not two-link (k > 4).
    pub fn new(io: &AlignmentOptions, h: f64, gali: bool) -> Option<IndicatorGrid> {
        let q = (io.tau / h).round();
        let total = (io.time / io.tau).round();
        let ok = io.tau.is_finite()
            && io.tau > 0.0
            && h.is_finite()
            && h > 0.0
            && q >= 1.0
            && q <= 2f64.powi(52)
            && ((io.tau / h) - q).abs() <= 1e-9 * q
            && io.time.is_finite()
            && total >= 1.0
            && (2..=4).contains(&io.k);
        ok.then_some(IndicatorGrid {
            q: q as u64,
            total: total as u64,
            k: io.k,
            stop_below: io.stop_below,
            gali,
            seed: io.seed,
        })
    }
}

/// |R_ii| of the Householder QR of the K columns `v` (the steps of `lyapunov::Qr::factor`
/// without forming Q, in its order of operations).
#[inline(always)]
fn rdiag<const K: usize>(v: &[[f64; 4]; K]) -> [f64; K] {
    let mut a = *v;
    let mut rd = [0.0; K];
    for j in 0..K {
        let mut norm2 = 0.0;
        for i in j..4 {
            norm2 += a[j][i] * a[j][i];
        }
        let alpha = norm2.sqrt();
        rd[j] = alpha;
        if alpha == 0.0 {
            continue;
        }
        let x0 = a[j][j];
        let r = if x0 >= 0.0 { -alpha } else { alpha };
        a[j][j] = x0 - r;
        let beta = 2.0 / (2.0 * alpha * (alpha + x0.abs()));
        for c in j + 1..K {
            let mut s = 0.0;
            for i in j..4 {
                s += a[j][i] * a[c][i];
            }
            let f = beta * s;
            for i in j..4 {
                a[c][i] -= f * a[j][i];
            }
        }
    }
    rd
}

/// What one lane's pixel has gathered so far.
#[derive(Debug, Clone, Copy)]
struct Acc {
    /// Smallest SALI over the second half (intervals e with 2e > total).
    min_second: f64,
    /// First interval end with SALI < [`SALI_CHAOTIC`] (NaN: none yet).
    chaos_time: f64,
}

const FRESH: Acc = Acc {
    min_second: f64::INFINITY,
    chaos_time: f64::NAN,
};

/// Runs each start state `y0[p]` (θ1, θ2, ω1, ω2) with `g.k` deviation vectors on the grid
/// `g` of steps `h`, writing SALI or GALI_k to `value[p]`, the chaos time to `aux[p]` and the
/// verdict to `class[p]` (see the module doc). Damping and drive are compiled in only where
/// `p` has them. Returns the RK4 steps taken, summed over pixels.
#[allow(clippy::too_many_arguments)]
pub fn indicator_run<W: Width>(
    p: &TwoLink,
    y0: &[[f64; 4]],
    h: f64,
    g: &IndicatorGrid,
    value: &mut [f64],
    aux: &mut [f64],
    class: &mut [u8],
) -> u64 {
    assert!(value.len() == y0.len() && aux.len() == y0.len() && class.len() == y0.len());
    let (damped, driven) = (p.damped(), p.driven());
    macro_rules! go {
        ($k:literal) => {{
            let mut red = SaliLanes::<$k> {
                g: *g,
                h,
                value,
                aux,
                class,
            };
            run::<W, 4, $k, _, _>(p, damped, driven, y0, h, &mut red)
        }};
    }
    match g.k {
        2 => go!(2),
        3 => go!(3),
        4 => go!(4),
        k => panic!("SALI/GALI lanes carry 2..4 vectors, not {k}"),
    }
}

/// The SALI/GALI reduction with K vectors.
struct SaliLanes<'a, const K: usize> {
    g: IndicatorGrid,
    h: f64,
    value: &'a mut [f64],
    aux: &'a mut [f64],
    class: &'a mut [u8],
}

impl<const K: usize> Reduction<4, K> for SaliLanes<'_, K> {
    type Lane = Acc;

    fn lane(&self) -> Acc {
        FRESH
    }

    /// The single-orbit path's start vectors.
    fn vectors(&self) -> [[f64; 4]; K] {
        let cols = initial_vectors(4, K, self.g.seed);
        let mut v0 = [[0.0; 4]; K];
        for (j, vj) in v0.iter_mut().enumerate() {
            vj.copy_from_slice(&cols[4 * j..4 * j + 4]);
        }
        v0
    }

    #[inline(always)]
    fn start(&mut self, a: &mut Acc, _px: usize, _y: &[f64; 4]) -> bool {
        *a = FRESH;
        false
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<4>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        a: &mut Acc,
        at: At<'_, L, 4, K>,
    ) -> Option<u64> {
        let (g, k, px) = (&self.g, at.k, at.px);
        if k % g.q != 0 {
            return None;
        }
        let e = k / g.q;
        let (y, mut v) = at.lanes.get(at.l);
        // `check_finite`'s test on the whole augmented vector.
        let mut z = y.iter().fold(0.0, |s, x| s + x * 0.0);
        for vj in &v {
            z = vj.iter().fold(z, |s, x| s + x * 0.0);
        }
        if z.is_nan() {
            self.value[px] = f64::NAN;
            self.aux[px] = f64::NAN;
            self.class[px] = class::DIVERGED;
            return Some(k);
        }
        for vj in v.iter_mut() {
            let mut n2 = 0.0;
            for x in vj.iter() {
                n2 += x * x;
            }
            let norm = n2.sqrt();
            vj.iter_mut().for_each(|x| *x /= norm);
        }
        let (mut plus, mut minus) = (0.0f64, 0.0f64);
        for i in 0..4 {
            plus += (v[0][i] + v[1][i]).powi(2);
            minus += (v[0][i] - v[1][i]).powi(2);
        }
        let s = plus.sqrt().min(minus.sqrt());
        if 2 * e > g.total {
            a.min_second = a.min_second.min(s);
        }
        if a.chaos_time.is_nan() && s < SALI_CHAOTIC {
            a.chaos_time = (e * g.q) as f64 * self.h;
        }
        let below = g.stop_below.is_some_and(|b| s < b);
        if !(below || e == g.total) {
            at.lanes.set(at.l, &y, &v);
            return None;
        }
        self.value[px] = if g.gali {
            let rd = rdiag(&v);
            let mut prod = rd[0];
            for x in &rd[1..] {
                prod *= x;
            }
            prod
        } else {
            s
        };
        self.aux[px] = a.chaos_time;
        self.class[px] = if !a.chaos_time.is_nan() {
            class::CHAOTIC
        } else if e == g.total && a.min_second > SALI_REGULAR {
            class::REGULAR
        } else {
            class::UNDECIDED
        };
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::lyapunov::Qr;

    /// `rdiag` is `Qr::factor`'s |R_ii|, bit for bit, on random and nearly parallel columns.
    #[test]
    fn rdiag_is_the_scalar_qr() {
        for (seed, tilt) in [(1u64, 1.0), (2, 1e-9), (3, -1e-13)] {
            let mut c = initial_vectors(4, 4, seed);
            for i in 0..4 {
                // Columns 1..3 pulled towards column 0 (GALI's chaotic case).
                for j in 1..4 {
                    c[4 * j + i] = c[i] + tilt * c[4 * j + i];
                }
            }
            let mut v = [[0.0; 4]; 4];
            for j in 0..4 {
                v[j].copy_from_slice(&c[4 * j..4 * j + 4]);
            }
            let mut qr = Qr::new(4, 4);
            qr.factor(&mut c, false);
            let want: Vec<u64> = qr.rdiag().iter().map(|x| x.to_bits()).collect();
            let got: Vec<u64> = rdiag(&v).iter().map(|x| x.to_bits()).collect();
            assert_eq!(got, want, "tilt {tilt}");
        }
    }
}
