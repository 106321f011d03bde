//! Flip-time maps on the lanes: each pixel runs until a watched link passes ±π (`|θ| > π`
//! after a step, never wrapped) or `n_steps` steps; the flip is located inside its step.
//!
//! Only a step after which some lane's watched angle is beyond ±π (or some pixel reaches
//! `n_steps`) looks at the lanes one by one ([`Reduction::due`]); every other step is the
//! vector step alone.

use super::engine::{run, At, LaneModel, Lanes, Reduction, Width};
use super::three_link::ThreeLink;
use super::two_link::TwoLink;
use std::f64::consts::PI;

/// Which links' flips end a pixel: `(link 1, link 2)`.
pub type FlipMask = (bool, bool);

/// Marks a pixel whose state became non-finite (in `link_out`).
pub const DIVERGED: u8 = u8::MAX;

/// Where inside one step an angle passes ±π: the step of size `h` took it from `(th0, w0)` to
/// `(th1, w1)` with `|th0| ≤ π < |th1|`, and the cubic Hermite interpolant of θ (values θ and
/// derivatives ω at both ends, error O(h⁴), far below RK4's global error) is solved for
/// θ = ±π (the sign of `th1`) by Newton's method safeguarded by bisection on the bracket.
/// Returns the fraction s ∈ (0, 1] of the step. A pure function of its inputs, so the lane
/// kernel and the scalar path give the same bits from the same states.
pub fn crossing_fraction(h: f64, th0: f64, w0: f64, th1: f64, w1: f64) -> f64 {
    let target = PI.copysign(th1);
    let (d0, d1) = (th0 - target, th1 - target);
    if !(d0.is_finite() && d1.is_finite()) || d0 * d1 > 0.0 {
        return 1.0;
    }
    // p(s) − target = d0 h00 + h w0 h10 + d1 h01 + h w1 h11, in powers of s.
    let (m0, m1) = (h * w0, h * w1);
    let c1 = m0;
    let c2 = -3.0 * d0 - 2.0 * m0 + 3.0 * d1 - m1;
    let c3 = 2.0 * d0 + m0 - 2.0 * d1 + m1;
    let f = |s: f64| ((c3 * s + c2) * s + c1) * s + d0;
    let df = |s: f64| (3.0 * c3 * s + 2.0 * c2) * s + c1;
    // Bracket [lo, hi] with f(lo) on d0's side and f(hi) on d1's side.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let side = d1.signum();
    let mut s = if d1 != d0 { d0 / (d0 - d1) } else { 0.5 };
    for _ in 0..100 {
        let v = f(s);
        if v == 0.0 {
            break;
        }
        if v.signum() == side {
            hi = s;
        } else {
            lo = s;
        }
        let g = df(s);
        let mut next = if g != 0.0 { s - v / g } else { f64::NAN };
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - s).abs() <= 4.0 * f64::EPSILON * s.abs().max(f64::MIN_POSITIVE)
            || hi - lo <= f64::EPSILON
        {
            s = next;
            break;
        }
        s = next;
    }
    s.clamp(f64::MIN_POSITIVE, 1.0)
}

/// The located flip time of a step `k` (1-based) that ended at `(th1, w1)` from `(th0, w0)`:
/// `(k − 1 + s)·h`, kept inside ((k − 1)·h, k·h].
pub fn located_time(k: u64, h: f64, th0: f64, w0: f64, th1: f64, w1: f64) -> f64 {
    let (a, b) = ((k - 1) as f64 * h, k as f64 * h);
    let t = a + crossing_fraction(h, th0, w0, th1, w1) * h;
    if t <= a {
        a.next_up()
    } else {
        t.min(b)
    }
}

/// Integrates each start state `y0[p]` (θ1, θ2, ω1, ω2) of a conservative two-link chain until
/// a watched link passes ±π or `n_steps` steps. Writes the flip step (0 = never) to `k_out[p]`,
/// the flipping link (1, 2, 3 for both at once; 0 never; [`DIVERGED`]) to `link_out[p]` and
/// the located flip time ([`located_time`], the earlier of two links; NaN when none) to
/// `t_out[p]`. Returns the RK4 steps taken, summed over pixels.
#[allow(clippy::too_many_arguments)]
pub fn flip_run<W: Width>(
    p: &TwoLink,
    y0: &[[f64; 4]],
    n_steps: u32,
    h: f64,
    mask: FlipMask,
    k_out: &mut [i32],
    link_out: &mut [u8],
    t_out: &mut [f64],
) -> u64 {
    let bits = mask.0 as u8 | (mask.1 as u8) << 1;
    let outs = (k_out, link_out, t_out);
    flip_lanes::<W, 4, TwoLink>(p, (false, false), y0, n_steps, h, bits, outs)
}

/// [`flip_run`] for three links: `mask` bit j watches link j + 1; damping and drive as the
/// chain has them (each lane at its own pixel's time).
#[allow(clippy::too_many_arguments)]
pub fn flip_run3<W: Width>(
    p: &ThreeLink,
    y0: &[[f64; 6]],
    n_steps: u32,
    h: f64,
    mask: u8,
    k_out: &mut [i32],
    link_out: &mut [u8],
    t_out: &mut [f64],
) -> u64 {
    let outs = (k_out, link_out, t_out);
    flip_lanes::<W, 6, ThreeLink>(p, (p.damped, p.driven()), y0, n_steps, h, mask, outs)
}

/// The flip step, link code and located time of each pixel.
type FlipOut<'a> = (&'a mut [i32], &'a mut [u8], &'a mut [f64]);

/// Either chain's flip map: `mask` bit j watches link j + 1; `link_out` gets
/// [`LaneModel::link_code`] and `t_out` the earliest located crossing among the flipped links.
fn flip_lanes<W: Width, const S: usize, M: LaneModel<S>>(
    p: &M,
    (damped, driven): (bool, bool),
    y0: &[[f64; S]],
    n_steps: u32,
    h: f64,
    mask: u8,
    (k_out, link_out, t_out): FlipOut<'_>,
) -> u64 {
    assert!(k_out.len() == y0.len() && link_out.len() == y0.len() && t_out.len() == y0.len());
    if n_steps == 0 {
        k_out.fill(0);
        link_out.fill(0);
        t_out.fill(f64::NAN);
        return 0;
    }
    let mut red = Flip {
        n: u64::from(n_steps),
        mask,
        k_out,
        link_out,
        t_out,
    };
    run::<W, S, 0, M, _>(p, damped, driven, y0, h, &mut red)
}

/// The flip reduction: the pixel ends at its first step with a watched link beyond ±π, or at
/// `n` steps.
struct Flip<'a> {
    n: u64,
    mask: u8,
    k_out: &'a mut [i32],
    link_out: &'a mut [u8],
    t_out: &'a mut [f64],
}

/// The watched links (bit j of `mask` = link j + 1) beyond ±π in lane `l`.
#[inline(always)]
fn flipped<const L: usize, const S: usize>(lanes: &Lanes<L, S, 0>, mask: u8, l: usize) -> u8 {
    let mut bits = 0u8;
    for c in 0..S / 2 {
        bits |= (((lanes.y[c][l].abs() > PI) & ((mask >> c) & 1 != 0)) as u8) << c;
    }
    bits
}

impl<const S: usize> Reduction<S, 0> for Flip<'_> {
    type Lane = ();
    const PREV: bool = true;

    fn lane(&self) {}

    fn deadline(&self) -> u64 {
        self.n
    }

    /// Whether any lane's watched angle is beyond ±π.
    #[inline(always)]
    fn due<const L: usize>(&self, lanes: &Lanes<L, S, 0>) -> bool {
        let mut any = 0u8;
        for l in 0..L {
            for c in 0..S / 2 {
                any |= ((lanes.y[c][l].abs() > PI) & ((self.mask >> c) & 1 != 0)) as u8;
            }
        }
        any != 0
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<S>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        _lane: &mut (),
        at: At<'_, L, S, 0>,
    ) -> Option<u64> {
        let (l, k, px, nl) = (at.l, at.k, at.px, S / 2);
        let y = &at.lanes.y;
        let flipped = flipped(at.lanes, self.mask, l);
        if flipped == 0 && k != self.n {
            return None;
        }
        if flipped != 0 {
            self.k_out[px] = k as i32;
            self.link_out[px] = M::link_code(flipped);
            let mut t = f64::INFINITY;
            for c in 0..nl {
                if (flipped >> c) & 1 != 0 {
                    let (a, b) = (at.prev[c][l], y[c][l]);
                    let (wa, wb) = (at.prev[c + nl][l], y[c + nl][l]);
                    t = t.min(located_time(k, at.h, a, wa, b, wb));
                }
            }
            self.t_out[px] = t;
        } else {
            self.t_out[px] = f64::NAN;
            self.k_out[px] = 0;
            let finite = (0..S).all(|c| y[c][l].is_finite());
            self.link_out[px] = if finite { 0 } else { DIVERGED };
        }
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::{rk4, Fixed, Widest};
    use super::super::two_link::UNIT;
    use super::*;

    /// Every lane width and the scalar step give the same bits.
    #[test]
    fn lane_widths_agree_with_scalar_steps() {
        let y0: Vec<[f64; 4]> = (0..37)
            .map(|i| [-3.0 + 0.16 * i as f64, 2.9 - 0.15 * i as f64, 0.0, 0.0])
            .collect();
        let n = 500;
        let mut want_k = vec![0i32; y0.len()];
        let mut want_t = vec![f64::NAN; y0.len()];
        for (p, y) in y0.iter().enumerate() {
            let mut s = *y;
            for k in 1..=n {
                let a = s;
                rk4::<4, 0, _, false, false>(&UNIT, 0.01, 0.0, &mut s, &mut []);
                let f = [s[0].abs() > PI, s[1].abs() > PI];
                if f[0] || f[1] {
                    want_k[p] = k;
                    want_t[p] = (0..2)
                        .filter(|&c| f[c])
                        .map(|c| located_time(k as u64, 0.01, a[c], a[c + 2], s[c], s[c + 2]))
                        .fold(f64::INFINITY, f64::min);
                    break;
                }
            }
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for lanes in [1usize, 4, 8, 16] {
            let mut k = vec![-1i32; y0.len()];
            let mut link = vec![0u8; y0.len()];
            let mut t = vec![0.0; y0.len()];
            let (m, nn) = ((true, true), n as u32);
            let steps = match lanes {
                1 => flip_run::<Fixed<1>>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
                4 => flip_run::<Fixed<4>>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
                8 => flip_run::<Fixed<8>>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
                _ => flip_run::<Widest>(&UNIT, &y0, nn, 0.01, m, &mut k, &mut link, &mut t),
            };
            for (q, &kq) in k.iter().enumerate() {
                if kq > 0 {
                    let (a, b) = (f64::from(kq - 1) * 0.01, f64::from(kq) * 0.01);
                    assert!(
                        t[q] > a && t[q] <= b,
                        "{lanes} lanes pixel {q}: {} in ({a}, {b}]",
                        t[q]
                    );
                } else {
                    assert!(t[q].is_nan());
                }
            }
            assert_eq!(k, want_k, "{lanes} lanes");
            assert_eq!(bits(&t), bits(&want_t), "{lanes} lanes: located times");
            let want: u64 = want_k
                .iter()
                .map(|&k| if k > 0 { k as u64 } else { n as u64 })
                .sum();
            assert_eq!(steps, want);
        }
    }

    /// The root of a known cubic: θ(s) = 3 + 0.5 s + 0.1 s² − 0.02 s³ over a step of h = 0.5
    /// has Hermite data θ and ω = θ'/h at both ends, so the interpolant is θ itself and the
    /// crossing of π is its root (found here by bisection to the last bit).
    #[test]
    fn crossing_of_an_exact_cubic() {
        let h = 0.5;
        let th = |s: f64| 3.0 + 0.5 * s + 0.1 * s * s - 0.02 * s * s * s;
        let w = |s: f64| (0.5 + 0.2 * s - 0.06 * s * s) / h;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let m = 0.5 * (lo + hi);
            if th(m) > PI {
                hi = m;
            } else {
                lo = m;
            }
        }
        let s = crossing_fraction(h, th(0.0), w(0.0), th(1.0), w(1.0));
        assert!((s - lo).abs() < 1e-14, "{s} vs {lo}");
        // The mirror image crosses −π at the same fraction.
        let s2 = crossing_fraction(h, -th(0.0), -w(0.0), -th(1.0), -w(1.0));
        assert!((s2 - lo).abs() < 1e-14);
        let t = located_time(7, h, th(0.0), w(0.0), th(1.0), w(1.0));
        assert!((t - (6.0 + lo) * h).abs() < 1e-13);
    }
}
