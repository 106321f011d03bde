//! Event location on a solver's dense output: where a signed function g(t, y) changes sign
//! within the last step (Poincaré sections, flips, turning points).
//!
//! The caller steps the solver, evaluates `g` at both ends of each step and, when
//! [`Direction::crosses`] says so, calls [`locate`]. The root is bracketed by the step, so
//! Brent's method (R. P. Brent, *Algorithms for Minimization without Derivatives*, 1973, ch. 4)
//! converges superlinearly and never leaves the bracket; each iteration is one dense-output
//! evaluation, not a right-hand-side call (beyond the few a solver needs once per step).

use super::{Ode, Solver};

/// Which sign changes count as a crossing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// g goes from < 0 to ≥ 0.
    Rising,
    /// g goes from > 0 to ≤ 0.
    Falling,
    /// Either of the above (default).
    #[default]
    Either,
}

impl Direction {
    /// Whether a step from `g0` to `g1` contains a crossing in this direction.
    ///
    /// A zero at the end of a step counts for that step and not for the next one (the start is
    /// required to be strictly on the other side), so a root exactly on a step boundary is
    /// reported once.
    #[inline]
    pub fn crosses(self, g0: f64, g1: f64) -> bool {
        let rising = g0 < 0.0 && g1 >= 0.0;
        let falling = g0 > 0.0 && g1 <= 0.0;
        match self {
            Direction::Rising => rising,
            Direction::Falling => falling,
            Direction::Either => rising || falling,
        }
    }
}

/// A located sign change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// Time of the root (within `tol` of the true root of the interpolant).
    pub t: f64,
    /// g at `t` (≈ 0; its size tells how flat g is there).
    pub g: f64,
    /// Dense-output evaluations used by the root finder.
    pub iterations: u32,
}

/// Locates the root of `g(t, y(t))` on `[t0, t1]`, the solver's last step, with `y(t)` from
/// [`Solver::dense`]; `g0 = g(t0, y(t0))` and `g1 = g(t1, y(t1))` are the values the caller
/// already has. On return `buf` holds the interpolated state at the root.
///
/// `tol` is the absolute tolerance in t (e.g. `1e-13`); it is floored at a few ulps of t. The
/// accuracy of the state is then that of the dense output (DOP853: 7th order).
///
/// Returns `None` when `g0` and `g1` are both strictly of one sign (no bracket). Either end may
/// be the root (`g0 == 0` returns `t0`, `g1 == 0` returns `t1`). Never calls `g` outside
/// `[t0, t1]`; at most 200 iterations (Brent needs far fewer: it falls back to bisection).
#[allow(clippy::too_many_arguments)]
pub fn locate<S: Solver, O: Ode>(
    solver: &mut S,
    ode: &mut O,
    t0: f64,
    g0: f64,
    t1: f64,
    g1: f64,
    mut g: impl FnMut(f64, &[f64]) -> f64,
    buf: &mut [f64],
    tol: f64,
) -> Option<Crossing> {
    if (g0 > 0.0 && g1 > 0.0) || (g0 < 0.0 && g1 < 0.0) || g0.is_nan() || g1.is_nan() {
        return None;
    }
    let mut iterations = 0u32;
    if g0 == 0.0 || g1 == 0.0 {
        let t = if g0 == 0.0 { t0 } else { t1 };
        solver.dense(ode, t, buf);
        return Some(Crossing {
            t,
            g: 0.0,
            iterations,
        });
    }
    // Brent's zeroin: b is the best estimate, [b, c] brackets the root, a is the previous b.
    let (mut a, mut fa) = (t0, g0);
    let (mut b, mut fb) = (t1, g1);
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut e = d;
    while iterations < 200 {
        if (fb > 0.0) == (fc > 0.0) {
            c = a;
            fc = fa;
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol1 = 2.0 * f64::EPSILON * b.abs() + 0.5 * tol.max(0.0);
        let xm = 0.5 * (c - b);
        if xm.abs() <= tol1 || fb == 0.0 {
            break;
        }
        if e.abs() >= tol1 && fa.abs() > fb.abs() {
            // Inverse quadratic interpolation (or secant when only two points are distinct).
            let s = fb / fa;
            let (mut p, mut q);
            if a == c {
                p = 2.0 * xm * s;
                q = 1.0 - s;
            } else {
                let qq = fa / fc;
                let r = fb / fc;
                p = s * (2.0 * xm * qq * (qq - r) - (b - a) * (r - 1.0));
                q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
            }
            if p > 0.0 {
                q = -q;
            } else {
                p = -p;
            }
            if 2.0 * p < (3.0 * xm * q - (tol1 * q).abs()).min((e * q).abs()) {
                e = d;
                d = p / q;
            } else {
                d = xm;
                e = d;
            }
        } else {
            d = xm;
            e = d;
        }
        a = b;
        fa = fb;
        b += if d.abs() > tol1 { d } else { tol1.copysign(xm) };
        solver.dense(ode, b, buf);
        fb = g(b, buf);
        iterations += 1;
    }
    solver.dense(ode, b, buf);
    Some(Crossing {
        t: b,
        g: fb,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate::test_odes::Osc;
    use crate::integrate::Dop853;

    /// The oscillator from (1, 0): x = cos t, zeros at π/2 + kπ.
    #[test]
    fn finds_zeros_of_cosine() {
        let mut ode = Osc;
        let mut s = Dop853::with_tol(1e-13).solver(2);
        let mut y = [1.0, 0.0];
        let mut buf = [0.0; 2];
        let mut t = 0.0;
        let mut roots = vec![];
        while t < 10.0 {
            let (t0, g0) = (t, y[0]);
            t = s.step(&mut ode, t, &mut y, 10.0).unwrap();
            if Direction::Either.crosses(g0, y[0]) {
                let c = locate(
                    &mut s,
                    &mut ode,
                    t0,
                    g0,
                    t,
                    y[0],
                    |_, y| y[0],
                    &mut buf,
                    1e-14,
                )
                .unwrap();
                assert!(c.iterations < 20);
                assert!((buf[0] - c.g).abs() == 0.0);
                roots.push(c.t);
            }
        }
        assert_eq!(roots.len(), 3);
        for (k, r) in roots.iter().enumerate() {
            let exact = std::f64::consts::FRAC_PI_2 + k as f64 * std::f64::consts::PI;
            assert!((r - exact).abs() < 1e-12, "{r} vs {exact}");
        }
    }

    #[test]
    fn directions() {
        assert!(Direction::Rising.crosses(-1.0, 0.0));
        assert!(!Direction::Rising.crosses(0.0, 1.0));
        assert!(!Direction::Rising.crosses(1.0, -1.0));
        assert!(Direction::Falling.crosses(1.0, -1.0));
        assert!(Direction::Either.crosses(1.0, -1.0));
        assert!(!Direction::Either.crosses(1.0, 2.0));
    }
}
