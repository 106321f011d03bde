//! Fast Lyapunov indicator maps on the lanes: the single-orbit FLI/OFLI reducer
//! (`analysis::orbit::fli`) per pixel, on the two-link tangent lanes. One vector from
//! (1, 1, 1, 1)/2 rides beside the state ([`rk4`](super::engine::rk4) on the augmented vector);
//! at every interval end (every `tau_steps` steps, t = k·h) FLI = sup ln‖w‖ and
//! OFLI = sup ln‖w⊥‖ (w⊥ the part of w orthogonal to the flow f(t, x)) are updated from the
//! norms' running log sum and the vector renormalised, as the reducer does; OFLI starts from
//! ln‖w⊥(0)‖. A pixel whose state or vector is non-finite at an interval end is diverged (its
//! outputs NaN), where the single-orbit run reports a blow-up.

use super::engine::{run, At, LaneModel, Reduction, Width};
use super::tangent::{norm, HALVES};
use super::two_link::TwoLink;

/// Integrates each start state `y0[p]` (θ1, θ2, ω1, ω2) with one tangent vector over
/// `intervals` intervals of `tau_steps` steps of `h` and writes FLI(t_end) to `fli[p]` and
/// OFLI(t_end) to `ofli[p]` (NaN where the orbit diverged; such a pixel counts `diverged_steps`
/// steps, as the scalar map counts it). Damping and drive are compiled in only where `p` has
/// them. Returns the RK4 steps, summed over pixels.
#[allow(clippy::too_many_arguments)]
pub fn fli_run<W: Width>(
    p: &TwoLink,
    y0: &[[f64; 4]],
    intervals: u32,
    tau_steps: u32,
    h: f64,
    diverged_steps: u64,
    fli: &mut [f64],
    ofli: &mut [f64],
) -> u64 {
    assert!(fli.len() == y0.len() && ofli.len() == y0.len());
    let q = tau_steps.max(1);
    let n = intervals.saturating_mul(q);
    if n == 0 {
        fli.fill(f64::NAN);
        ofli.fill(f64::NAN);
        return diverged_steps * y0.len() as u64;
    }
    let mut red = FliLanes {
        q,
        n,
        y0,
        diverged_steps,
        fli,
        ofli,
    };
    run::<W, 4, 1, _, _>(p, p.damped(), p.driven(), y0, h, &mut red)
}

/// ln‖w⊥‖, w⊥ the part of `w` orthogonal to f(t, y) (w itself where f = 0), as the reducer
/// computes it (sums in order).
#[inline(always)]
fn log_orthogonal<M: LaneModel<4>, const DAMPED: bool, const DRIVEN: bool>(
    m: &M,
    t: f64,
    y: &[f64; 4],
    w: &[f64; 4],
) -> f64 {
    let (f, _) = m.deriv::<0, DAMPED, DRIVEN>(t, y, &[]);
    let mut ff = 0.0;
    for b in &f {
        ff += b * b;
    }
    let c = if ff > 0.0 {
        let mut wf = 0.0;
        for i in 0..4 {
            wf += w[i] * f[i];
        }
        wf / ff
    } else {
        0.0
    };
    let mut perp = 0.0;
    for i in 0..4 {
        let d = w[i] - c * f[i];
        perp += d * d;
    }
    0.5 * perp.ln()
}

struct FliLanes<'a> {
    /// Steps per interval.
    q: u32,
    /// Steps per pixel (whole intervals).
    n: u32,
    y0: &'a [[f64; 4]],
    diverged_steps: u64,
    fli: &'a mut [f64],
    ofli: &'a mut [f64],
}

/// A lane's FLI state: Σ ln‖w‖ at the renormalisations and the two sups.
#[derive(Debug, Clone, Copy, Default)]
struct Sups {
    log_growth: f64,
    fli: f64,
    ofli: f64,
}

impl Reduction<4, 1> for FliLanes<'_> {
    type Lane = Sups;

    fn lane(&self) -> Sups {
        Sups::default()
    }

    fn vectors(&self) -> [[f64; 4]; 1] {
        HALVES
    }

    #[inline(always)]
    fn advance<const L: usize, M: LaneModel<4>, const DAMPED: bool, const DRIVEN: bool>(
        &mut self,
        m: &M,
        a: &mut Sups,
        at: At<'_, L, 4, 1>,
    ) -> Option<u64> {
        let (k, px) = (at.k as u32, at.px);
        if k == 1 {
            // The pixel's first step: its sups start at FLI(0) = ln‖w(0)‖ = 0 and
            // OFLI(0) = ln‖w⊥(0)‖ (the model is at hand only here).
            *a = Sups {
                ofli: log_orthogonal::<M, DAMPED, DRIVEN>(m, 0.0, &self.y0[px], &HALVES[0]),
                ..Sups::default()
            };
        }
        if k % self.q != 0 {
            return None;
        }
        let (y, mut v) = at.lanes.get(at.l);
        let finite = (y[0] + y[1] + y[2] + y[3]).is_finite()
            && (v[0][0] + v[0][1] + v[0][2] + v[0][3]).is_finite();
        if !finite {
            self.fli[px] = f64::NAN;
            self.ofli[px] = f64::NAN;
            return Some(self.diverged_steps);
        }
        let t = f64::from(k) * at.h;
        let r = norm(&v[0]);
        let perp = a.log_growth + log_orthogonal::<M, DAMPED, DRIVEN>(m, t, &y, &v[0]);
        a.fli = a.fli.max(a.log_growth + r.ln());
        a.ofli = a.ofli.max(perp);
        v[0].iter_mut().for_each(|x| *x /= r);
        at.lanes.set(at.l, &y, &v);
        a.log_growth += r.ln();
        if k < self.n {
            return None;
        }
        self.fli[px] = a.fli;
        self.ofli[px] = a.ofli;
        Some(u64::from(k))
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::{Fixed, Widest};
    use super::super::two_link::{starts, RODS_DRIVEN as P};
    use super::*;

    /// Lane widths 1, 4, 8, 16 (and the dispatched width) give the same bits, with a pixel
    /// that blows up at once.
    #[test]
    fn lane_widths_agree() {
        let y0 = starts();
        let np = y0.len();
        let run = |lanes: usize| {
            let (mut f, mut o) = (vec![0.0; np], vec![0.0; np]);
            let (a, b) = (&mut f, &mut o);
            let s = match lanes {
                1 => fli_run::<Fixed<1>>(&P, &y0, 25, 10, 0.01, 7, a, b),
                4 => fli_run::<Fixed<4>>(&P, &y0, 25, 10, 0.01, 7, a, b),
                8 => fli_run::<Fixed<8>>(&P, &y0, 25, 10, 0.01, 7, a, b),
                16 => fli_run::<Fixed<16>>(&P, &y0, 25, 10, 0.01, 7, a, b),
                _ => fli_run::<Widest>(&P, &y0, 25, 10, 0.01, 7, a, b),
            };
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            (bits(&f), bits(&o), s)
        };
        let want = run(1);
        assert_eq!(want.2, 29 * 250 + 7);
        assert!(f64::from_bits(want.0[29]).is_nan() && f64::from_bits(want.1[29]).is_nan());
        assert!(want.0[..29].iter().all(|&b| f64::from_bits(b).is_finite()));
        for lanes in [4, 8, 16, 0] {
            assert_eq!(run(lanes), want, "{lanes} lanes");
        }
    }
}
