//! Lagrangian descriptor maps on the lanes (two and three links, damping and drive included):
//! the pixel's forward half M⁺ = ∫₀^τ Σᵢ |ẋᵢ|^p dt and backward half M⁻ (the same lanes run
//! with −h), each the sum over its steps of the step's RK4 quadrature of the stage derivatives
//! ([`rk4_quad`](super::engine::rk4_quad): |h|/6 (s(k₁) + 2 s(k₂) + 2 s(k₃) + s(k₄)),
//! s = [`p_sum`]), as the scalar path (`kinds::descriptor`) adds them. A half is NaN where the
//! orbit or its integral left the finite numbers by the end; such a pixel stops there, since
//! neither can come back.

use super::engine::{run, At, LaneModel, Reduction, Width};

/// Σᵢ |vᵢ|^p (p = 1/2 as a square root: exact and faster than `powf`).
#[inline(always)]
pub fn p_sum(v: &[f64], p: f64) -> f64 {
    if p == 0.5 {
        v.iter().map(|x| x.abs().sqrt()).sum()
    } else {
        v.iter().map(|x| x.abs().powf(p)).sum()
    }
}

/// Integrates each start state `y0[q]` forward and backward over `n` steps of `h` and writes
/// the descriptor's halves to `forward[q]` and `backward[q]` (NaN where non-finite). Damping
/// (`damped`) and drive (`driven`) are compiled in only where asked. Returns the RK4 steps of
/// both halves, n per pixel and half (as the scalar path counts them, diverged or not).
#[allow(clippy::too_many_arguments)]
pub fn descriptor_run<W: Width, const S: usize, M: LaneModel<S>>(
    m: &M,
    damped: bool,
    driven: bool,
    y0: &[[f64; S]],
    n: u32,
    h: f64,
    p: f64,
    forward: &mut [f64],
    backward: &mut [f64],
) -> u64 {
    assert!(forward.len() == y0.len() && backward.len() == y0.len());
    let mut steps = 0;
    for (step, out) in [(h, forward), (-h, backward)] {
        if n == 0 {
            for (o, y) in out.iter_mut().zip(y0) {
                *o = if y.iter().all(|v| v.is_finite()) {
                    0.0
                } else {
                    f64::NAN
                };
            }
            continue;
        }
        // p = 1/2 compiled apart: a square root vectorizes, a `powf` call does not.
        steps += if p == 0.5 {
            let mut half = Half::<true> { n, p, out };
            run::<W, S, 0, M, _>(m, damped, driven, y0, step, &mut half)
        } else {
            let mut half = Half::<false> { n, p, out };
            run::<W, S, 0, M, _>(m, damped, driven, y0, step, &mut half)
        };
    }
    steps
}

/// One half of the descriptor: n steps of `h` (either sign), Σ of the steps' quadratures
/// ([`p_sum`]; `SQRT`: p = 1/2).
struct Half<'a, const SQRT: bool> {
    n: u32,
    p: f64,
    out: &'a mut [f64],
}

impl<const S: usize, const SQRT: bool> Reduction<S, 0> for Half<'_, SQRT> {
    /// The integral so far.
    type Lane = f64;
    const QUAD: bool = true;

    fn lane(&self) -> f64 {
        0.0
    }

    #[inline(always)]
    fn stage(&self, k: &[f64; S]) -> f64 {
        p_sum(k, if SQRT { 0.5 } else { self.p })
    }

    #[inline(always)]
    fn start(&mut self, a: &mut f64, _px: usize, _y: &[f64; S]) -> bool {
        *a = 0.0;
        false
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<S>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        _m: &M,
        a: &mut f64,
        at: At<'_, L, S, 0>,
    ) -> Option<u64> {
        *a += at.quad;
        if (at.k as u32) < self.n && a.is_finite() {
            return None;
        }
        let (y, _) = at.lanes.get(at.l);
        self.out[at.px] = if y.iter().all(|v| v.is_finite()) && a.is_finite() {
            *a
        } else {
            f64::NAN
        };
        Some(u64::from(self.n))
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::{rk4_quad, Fixed, Widest};
    use super::super::two_link::RODS_DRIVEN as P;
    use super::*;

    /// Lane widths 1, 4, 8, 16 (and the dispatched width) give the same bits as one pixel
    /// stepped by hand with `rk4_quad`, forward and backward, damped and driven, for p = 1/2
    /// and another p, with a pixel that is NaN from the start.
    #[test]
    fn lane_widths_agree_with_one_lane_steps() {
        let mut y0: Vec<[f64; 4]> = (0..21)
            .map(|i| [-3.0 + 0.3 * i as f64, 2.9 - 0.27 * i as f64, 0.3, -0.1])
            .collect();
        y0.push([f64::NAN, 0.0, 0.0, 0.0]);
        let np = y0.len();
        let (n, h) = (120, 0.01);
        for p in [0.5, 0.8] {
            let run = |lanes: usize| {
                let (mut f, mut b) = (vec![0.0; np], vec![0.0; np]);
                let (x, z) = (&mut f, &mut b);
                let s = match lanes {
                    1 => descriptor_run::<Fixed<1>, 4, _>(&P, true, true, &y0, n, h, p, x, z),
                    4 => descriptor_run::<Fixed<4>, 4, _>(&P, true, true, &y0, n, h, p, x, z),
                    8 => descriptor_run::<Fixed<8>, 4, _>(&P, true, true, &y0, n, h, p, x, z),
                    16 => descriptor_run::<Fixed<16>, 4, _>(&P, true, true, &y0, n, h, p, x, z),
                    _ => descriptor_run::<Widest, 4, _>(&P, true, true, &y0, n, h, p, x, z),
                };
                let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                (bits(&f), bits(&b), s)
            };
            let want = run(1);
            assert_eq!(want.2, 2 * np as u64 * u64::from(n));
            for (q, y) in y0.iter().enumerate().take(np - 1) {
                for (half, step) in [h, -h].into_iter().enumerate() {
                    let (mut y, mut none) = (*y, [[0.0; 4]; 0]);
                    let mut m = 0.0;
                    for k in 0..n {
                        let t = f64::from(k) * step;
                        let f = |k: &[f64; 4]| p_sum(k, p);
                        m += rk4_quad::<4, 0, _, true, true, true>(
                            &P, step, t, &mut y, &mut none, f,
                        )
                        .1;
                    }
                    let got = if half == 0 { want.0[q] } else { want.1[q] };
                    assert_eq!(got, m.to_bits(), "pixel {q} half {half} p {p}");
                }
            }
            assert!(f64::from_bits(want.0[np - 1]).is_nan());
            assert!(f64::from_bits(want.1[np - 1]).is_nan());
            for lanes in [4, 8, 16, 0] {
                assert_eq!(run(lanes), want, "{lanes} lanes, p {p}");
            }
        }
    }
}
