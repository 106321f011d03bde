//! SALI and GALI maps on the SIMD tangent lanes: the two-link tangent RK4 of
//! [`tangent`](super::tangent) with K = 2..4 deviation vectors per lane, reduced every τ as the
//! single-orbit [`indicators`](crate::analysis::indicators::indicators) reduces them (the
//! oracle; same start vectors, same order of operations):
//!
//! - at each interval end (every `q` steps) the augmented vector is tested for NaN/Inf (a
//!   blow-up: NaN, `DIVERGED`), each vector is normalised, SALI = min(‖u₁ + u₂‖, ‖u₁ − u₂‖),
//!   GALI_k = Π|R_ii| of the Householder QR of the unit vectors;
//! - the pixel ends at the last interval or once SALI < `stop_below`; its value is SALI (or
//!   GALI_k) of that interval, aux the first interval end with SALI < 1e-8 (NaN if none), and
//!   the class chaotic / regular (SALI > 1e-4 over the second half of a full run) / undecided.
//!
//! A lane whose pixel ends is refilled with the next pixel at once, as the flip kernel does.

use super::class;
use super::kernel::{widest, TwoLink};
use super::tangent::TangentLanes;
use crate::analysis::indicators::{initial_vectors, IndicatorOptions, SALI_CHAOTIC, SALI_REGULAR};

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
    /// The grid [`indicators`](crate::analysis::indicators::indicators) would run for RK4 at
    /// step `h` with `io`, or None where it would refuse the options (the caller then runs
    /// the scalar path, which reports them) or the chain is not two-link (k > 4).
    pub fn new(io: &IndicatorOptions, h: f64, gali: bool) -> Option<IndicatorGrid> {
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
pub fn indicator_run(
    p: &TwoLink,
    y0: &[[f64; 4]],
    h: f64,
    g: &IndicatorGrid,
    value: &mut [f64],
    aux: &mut [f64],
    class: &mut [u8],
) -> u64 {
    macro_rules! go {
        ($k:literal, $d:literal, $r:literal) => {
            widest!(indicator_lanes[$k, $d, $r](
                p: &TwoLink,
                y0: &[[f64; 4]],
                h: f64,
                g: &IndicatorGrid,
                value: &mut [f64],
                aux: &mut [f64],
                class: &mut [u8]
            ) -> u64)
        };
    }
    match (g.k, p.damped(), p.driven()) {
        (2, false, false) => go!(2, false, false),
        (2, true, false) => go!(2, true, false),
        (2, false, true) => go!(2, false, true),
        (2, true, true) => go!(2, true, true),
        (3, false, false) => go!(3, false, false),
        (3, true, false) => go!(3, true, false),
        (3, false, true) => go!(3, false, true),
        (3, true, true) => go!(3, true, true),
        (4, false, false) => go!(4, false, false),
        (4, true, false) => go!(4, true, false),
        (4, false, true) => go!(4, false, true),
        (4, true, true) => go!(4, true, true),
        (k, ..) => panic!("SALI/GALI lanes carry 2..4 vectors, not {k}"),
    }
}

/// [`indicator_run`] with `L` lanes of K = `g.k` vectors (public for the lane-width tests).
#[inline(always)]
pub fn indicator_lanes<const L: usize, const K: usize, const DAMPED: bool, const DRIVEN: bool>(
    p: &TwoLink,
    y0: &[[f64; 4]],
    h: f64,
    g: &IndicatorGrid,
    value: &mut [f64],
    aux: &mut [f64],
    class: &mut [u8],
) -> u64 {
    const IDLE: usize = usize::MAX;
    assert_eq!(K, g.k);
    assert!(value.len() == y0.len() && aux.len() == y0.len() && class.len() == y0.len());
    let cols = initial_vectors(4, K, g.seed);
    let mut v0 = [[0.0; 4]; K];
    for (j, vj) in v0.iter_mut().enumerate() {
        vj.copy_from_slice(&cols[4 * j..4 * j + 4]);
    }
    let mut lanes = TangentLanes::<L, K> {
        y: [[0.0; L]; 4],
        v: [[[0.0; L]; 4]; K],
    };
    let mut who = [IDLE; L];
    let mut k = [0u64; L];
    let mut acc = [FRESH; L];
    let mut next = 0usize;
    let mut steps = 0u64;
    let load = |l: usize,
                lanes: &mut TangentLanes<L, K>,
                who: &mut [usize; L],
                k: &mut [u64; L],
                acc: &mut [Acc; L],
                next: &mut usize| {
        acc[l] = FRESH;
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
    let mut iteration = 0u64;
    while who.iter().any(|&w| w != IDLE) {
        iteration += 1;
        if super::tile_cancelled(iteration) {
            break;
        }
        for l in 0..L {
            // The scalar stepper's step time, (e − 1)·q + s steps of h.
            t[l] = k[l] as f64 * h;
        }
        lanes.step::<DAMPED, DRIVEN, false>(p, h, &t, &mut r);
        for l in 0..L {
            if who[l] == IDLE {
                continue;
            }
            k[l] += 1;
            if k[l] % g.q != 0 {
                continue;
            }
            let e = k[l] / g.q;
            let px = who[l];
            let (y, mut v) = lanes.get(l);
            // `check_finite`'s test on the whole augmented vector.
            let mut z = y.iter().fold(0.0, |s, x| s + x * 0.0);
            for vj in &v {
                z = vj.iter().fold(z, |s, x| s + x * 0.0);
            }
            if z.is_nan() {
                value[px] = f64::NAN;
                aux[px] = f64::NAN;
                class[px] = class::DIVERGED;
                steps += k[l];
                load(l, &mut lanes, &mut who, &mut k, &mut acc, &mut next);
                continue;
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
            let a = &mut acc[l];
            if 2 * e > g.total {
                a.min_second = a.min_second.min(s);
            }
            if a.chaos_time.is_nan() && s < SALI_CHAOTIC {
                a.chaos_time = (e * g.q) as f64 * h;
            }
            let below = g.stop_below.is_some_and(|b| s < b);
            if !(below || e == g.total) {
                lanes.set(l, &y, &v);
                continue;
            }
            value[px] = if g.gali {
                let rd = rdiag(&v);
                let mut prod = rd[0];
                for x in &rd[1..] {
                    prod *= x;
                }
                prod
            } else {
                s
            };
            aux[px] = a.chaos_time;
            class[px] = if !a.chaos_time.is_nan() {
                class::CHAOTIC
            } else if e == g.total && a.min_second > SALI_REGULAR {
                class::REGULAR
            } else {
                class::UNDECIDED
            };
            steps += k[l];
            load(l, &mut lanes, &mut who, &mut k, &mut acc, &mut next);
        }
    }
    steps
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
