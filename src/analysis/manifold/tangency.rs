//! The splitting of a separatrix and the first tangency in a parameter.
//!
//! Over a window θ ∈ [θa, θb] where an unstable branch and a stable branch (of the saddle
//! shifted by the lattice: the same saddle of the cylinder one turn on) are graphs over θ
//! (each taken at its first crossing of θ from its saddle), their splitting is
//! D(θ) = θ̇ᵤ(θ) − θ̇ₛ(θ) (each curve's θ̇ at θ found by regula falsi on its
//! fundamental-domain parameter), positive where the unstable branch lies above. Both
//! curves are invariant, so if the window holds a fundamental domain of the unstable branch
//! (the branch's point at θa maps to a θ ≤ θb, checked), the branches cross somewhere iff
//! they cross in the window: the signed distance S = max D over the window (sampled, then
//! golden section and a parabola) is ≥ 0 iff they intersect. The first tangency is the
//! parameter where S changes sign, found by bisection (with regula falsi steps of the
//! Illinois kind where they shrink the bracket faster) to a tolerance in the parameter; the
//! saddle is followed from each parameter value to the next by Newton.

use super::grow::{Branch, Curve};
use super::map::PlaneMap;
use super::{ManifoldError, P2};

/// The splitting of two branches over a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Splitting {
    /// S = max D over the window, and where.
    pub distance: f64,
    pub theta: f64,
    /// θ of the image of the unstable branch's point at the window's start (≤ θb: the window
    /// holds a fundamental domain).
    pub image_theta: f64,
}

/// θ̇ of `branch` (its points shifted by `shift`) where it first crosses θ = `theta` from the
/// saddle (later crossings belong to the tangle near the other saddle); None if it does not.
pub fn graph_value<M: PlaneMap>(
    map: &M,
    branch: &Branch,
    shift: P2,
    theta: f64,
    w: &mut M::Work,
) -> Result<Option<f64>, ManifoldError> {
    let th = |p: P2| p[0] + shift[0] - theta;
    let mut hit = None;
    for i in 0..branch.nodes.len().saturating_sub(1) {
        let (f0, f1) = (th(branch.nodes[i].point), th(branch.nodes[i + 1].point));
        if (f0 <= 0.0 && f1 > 0.0) || (f0 >= 0.0 && f1 < 0.0) {
            hit = Some(i);
            break;
        }
    }
    let Some(i) = hit else {
        return Ok(None);
    };
    let (g, s0, s1) = branch.piece(i);
    let c: &Curve = &branch.curve;
    let (mut a, mut b) = ((s0, branch.nodes[i].point), (s1, branch.nodes[i + 1].point));
    let (mut fa, mut fb) = (th(a.1), th(b.1));
    let mut best = if fa.abs() < fb.abs() { a } else { b };
    let mut side = 0;
    for _ in 0..60 {
        if fa == fb {
            break;
        }
        let mut s = a.0 + (b.0 - a.0) * fa / (fa - fb);
        if !(s > a.0.min(b.0) && s < a.0.max(b.0)) {
            s = 0.5 * (a.0 + b.0);
        }
        let p = c.eval(map, g, s, w)?;
        let f = th(p);
        if f.abs() < th(best.1).abs() {
            best = (s, p);
        }
        if f.abs() <= 1e-13 * (1.0 + theta.abs()) {
            break;
        }
        // Illinois: halve the value of an end kept twice.
        if (f < 0.0) == (fa < 0.0) {
            a = (s, p);
            fa = f;
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        } else {
            b = (s, p);
            fb = f;
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        }
    }
    Ok(Some(best.1[1] + shift[1]))
}

/// The splitting of `unstable` and `stable` (shifted by `shift`) over `window` (module docs),
/// from `samples` values of θ.
pub fn splitting<M: PlaneMap>(
    map: &M,
    unstable: &Branch,
    stable: &Branch,
    shift: P2,
    window: [f64; 2],
    samples: usize,
) -> Result<Splitting, ManifoldError> {
    let mut w = map.work();
    let [ta, tb] = window;
    let d = |theta: f64, w: &mut M::Work| -> Result<f64, ManifoldError> {
        let u = graph_value(map, unstable, [0.0, 0.0], theta, w)?;
        let s = graph_value(map, stable, shift, theta, w)?;
        match (u, s) {
            (Some(u), Some(s)) => Ok(u - s),
            _ => Err(ManifoldError::Failed(format!(
                "the {} branch does not reach θ = {theta}: raise manifolds.arclength or narrow manifolds.window",
                if u.is_none() { "unstable" } else { "stable" }
            ))),
        }
    };
    // The window must hold a fundamental domain of the unstable branch.
    let first = graph_value(map, unstable, [0.0, 0.0], ta, &mut w)?.ok_or_else(|| {
        ManifoldError::Failed(format!(
            "the unstable branch does not reach θ = {ta}: raise manifolds.arclength"
        ))
    })?;
    let mut p = [ta, first];
    for _ in 0..unstable.curve.power {
        p = map.apply(p, false, &mut w)?;
    }
    if p[0] > tb {
        return Err(ManifoldError::invalid(
            "manifolds.window",
            format!(
                "[{ta}, {tb}] holds no fundamental domain: the unstable branch's point at θ = {ta} maps to θ = {}; widen it",
                p[0]
            ),
        ));
    }
    let n = samples.max(3);
    let h = (tb - ta) / (n - 1) as f64;
    let mut best = (f64::NEG_INFINITY, ta, 0usize);
    for k in 0..n {
        let t = ta + k as f64 * h;
        let v = d(t, &mut w)?;
        if v > best.0 {
            best = (v, t, k);
        }
    }
    // Golden section on the neighbours of the best sample, then a parabola.
    let (mut lo, mut hi) = ((best.1 - h).max(ta), (best.1 + h).min(tb));
    let r = 0.5 * (5f64.sqrt() - 1.0);
    let (mut x1, mut x2) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut f1, mut f2) = (d(x1, &mut w)?, d(x2, &mut w)?);
    for _ in 0..20 {
        if f1 > f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - r * (hi - lo);
            f1 = d(x1, &mut w)?;
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + r * (hi - lo);
            f2 = d(x2, &mut w)?;
        }
    }
    let (mut bt, mut bv) = if f1 > f2 { (x1, f1) } else { (x2, f2) };
    if best.0 > bv {
        bt = best.1;
        bv = best.0;
    }
    // The parabola through x1, x2 and their mean.
    let xm = 0.5 * (x1 + x2);
    let fm = d(xm, &mut w)?;
    let den = (x1 - xm) * (f1 - f2) - (x1 - x2) * (f1 - fm);
    if den != 0.0 {
        let num = (x1 - xm).powi(2) * (f1 - f2) - (x1 - x2).powi(2) * (f1 - fm);
        let xv = x1 - 0.5 * num / den;
        if xv > lo && xv < hi {
            let fv = d(xv, &mut w)?;
            if fv > bv {
                bt = xv;
                bv = fv;
            }
        }
    }
    if fm > bv {
        bt = xm;
        bv = fm;
    }
    Ok(Splitting {
        distance: bv,
        theta: bt,
        image_theta: p[0],
    })
}

/// One evaluation of the signed distance at a parameter value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TangencyStep {
    pub parameter: f64,
    pub distance: f64,
    pub saddle: P2,
}

/// The first tangency: where `distance(p, saddle guess)` (giving S and the saddle at p) changes
/// sign in `range`, to `tolerance` in p.
#[derive(Debug, Clone, PartialEq)]
pub struct Tangency {
    /// The parameter of the tangency: the middle of the final bracket.
    pub parameter: f64,
    /// The final bracket (S < 0 at one end, ≥ 0 at the other).
    pub bracket: [f64; 2],
    /// Every evaluation, in order.
    pub steps: Vec<TangencyStep>,
}

/// Bisection (with Illinois steps) on `f(p, saddle guess) = (S, saddle)` over `range` from the
/// saddle `start` at the range's low end's side, to `tolerance`.
pub fn first_tangency(
    range: [f64; 2],
    tolerance: f64,
    start: P2,
    mut f: impl FnMut(f64, P2) -> Result<(f64, P2), ManifoldError>,
) -> Result<Tangency, ManifoldError> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        return Err(ManifoldError::invalid(
            "manifolds.tangency_tolerance",
            "must be finite and > 0",
        ));
    }
    let [mut a, mut b] = range;
    if !(a.is_finite() && b.is_finite() && a != b) {
        return Err(ManifoldError::invalid(
            "manifolds.tangency_range",
            "must be two different finite values",
        ));
    }
    let mut steps = Vec::new();
    let (fa0, sa) = f(a, start)?;
    steps.push(TangencyStep {
        parameter: a,
        distance: fa0,
        saddle: sa,
    });
    let (fb0, sb) = f(b, sa)?;
    steps.push(TangencyStep {
        parameter: b,
        distance: fb0,
        saddle: sb,
    });
    if (fa0 >= 0.0) == (fb0 >= 0.0) {
        return Err(ManifoldError::invalid(
            "manifolds.tangency_range",
            format!(
                "the signed distance has one sign at both ends ({fa0:.3e} at {a}, {fb0:.3e} at {b}): no tangency between them"
            ),
        ));
    }
    let (mut fa, mut fb) = (fa0, fb0);
    let (mut sad_a, mut sad_b) = (sa, sb);
    let mut kept = 0i32;
    let mut bisect = false;
    while (b - a).abs() > tolerance {
        let width = (b - a).abs();
        let mut p = if bisect {
            0.5 * (a + b)
        } else {
            a + (b - a) * fa / (fa - fb)
        };
        if !(p > a.min(b) && p < a.max(b)) {
            p = 0.5 * (a + b);
        }
        // The saddle from the nearer end's.
        let guess = if (p - a).abs() < (p - b).abs() {
            sad_a
        } else {
            sad_b
        };
        let (fp, sp) = f(p, guess)?;
        steps.push(TangencyStep {
            parameter: p,
            distance: fp,
            saddle: sp,
        });
        if (fp >= 0.0) == (fa >= 0.0) {
            a = p;
            fa = fp;
            sad_a = sp;
            if kept == 1 {
                fb *= 0.5;
            }
            kept = 1;
        } else {
            b = p;
            fb = fp;
            sad_b = sp;
            if kept == -1 {
                fa *= 0.5;
            }
            kept = -1;
        }
        // A step that did not halve the bracket is followed by a bisection.
        bisect = !bisect && (b - a).abs() > 0.5 * width;
    }
    Ok(Tangency {
        parameter: 0.5 * (a + b),
        bracket: [a.min(b), a.max(b)],
        steps,
    })
}
