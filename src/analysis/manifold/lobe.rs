//! The areas of the lobes between two intersection points of an unstable and a stable
//! branch: the region bounded by the unstable branch from one point to the other and the
//! stable branch back. Between adjacent primary intersection points q₀, q₁, q₂ = P(q₀) of an
//! area-preserving map the two lobes of the turnstile carry equal areas in and out.
//!
//! The area is ½∮(x dy − y dx). Each piece of a branch between neighbours is replaced by the
//! parabola in its fundamental-domain parameter through its ends and its parameter midpoint
//! (computed from the fundamental domain, like every point of a branch); on a parabola the
//! integrand is a cubic in the parameter, which Simpson's rule integrates exactly. The error
//! is the parabola's, O(h⁴) per unit length for pieces of length h, where a polygon's would
//! be O(h²).

use super::grow::Branch;
use super::intersect::Intersection;
use super::map::PlaneMap;
use super::{ManifoldError, P2};
use rayon::prelude::*;

/// ∫ x dy − y dx along the parabola through p0, pm, p2 (parameter 0, ½, 1).
fn parabola(p0: P2, pm: P2, p2: P2) -> f64 {
    let mut b = [0.0; 2];
    let mut c = [0.0; 2];
    for k in 0..2 {
        b[k] = -3.0 * p0[k] + 4.0 * pm[k] - p2[k];
        c[k] = 2.0 * p0[k] - 4.0 * pm[k] + 2.0 * p2[k];
    }
    let f = |t: f64| {
        let r = [
            p0[0] + b[0] * t + c[0] * t * t,
            p0[1] + b[1] * t + c[1] * t * t,
        ];
        let d = [b[0] + 2.0 * c[0] * t, b[1] + 2.0 * c[1] * t];
        r[0] * d[1] - r[1] * d[0]
    };
    (f(0.0) + 4.0 * f(0.5) + f(1.0)) / 6.0
}

/// A point of a branch: its piece and parameter.
#[derive(Debug, Clone, Copy)]
struct At {
    piece: usize,
    s: f64,
}

/// ∫ x dy − y dx along `branch` (shifted by `shift`) from `a` to `b` (a before b).
fn along<M: PlaneMap>(
    map: &M,
    branch: &Branch,
    shift: P2,
    a: At,
    b: At,
) -> Result<f64, ManifoldError> {
    // The sub-pieces (generation, s from, s to).
    let mut parts: Vec<(u32, f64, f64)> = Vec::new();
    for i in a.piece..=b.piece {
        let (g, s0, s1) = branch.piece(i);
        let lo = if i == a.piece { a.s } else { s0 };
        let hi = if i == b.piece { b.s } else { s1 };
        if hi > lo {
            parts.push((g, lo, hi));
        }
    }
    let c = &branch.curve;
    let pts: Vec<Result<[P2; 3], ManifoldError>> = parts
        .par_iter()
        .map_init(
            || map.work(),
            |w, &(g, lo, hi)| {
                Ok([
                    c.eval(map, g, lo, w)?,
                    c.eval(map, g, 0.5 * (lo + hi), w)?,
                    c.eval(map, g, hi, w)?,
                ])
            },
        )
        .collect();
    let mut sum = 0.0;
    for p in pts {
        let [p0, pm, p2] = p?;
        let sh = |p: P2| [p[0] + shift[0], p[1] + shift[1]];
        sum += parabola(sh(p0), sh(pm), sh(p2));
    }
    Ok(sum)
}

/// The signed area of the lobe between intersections `x` and `y` (`shift`: the stable
/// branch's lattice shift, the lattice vector times the intersections' `shift`): positive
/// when the unstable branch from x to y and the stable one back run counter-clockwise.
pub fn lobe_area<M: PlaneMap>(
    map: &M,
    unstable: &Branch,
    stable: &Branch,
    shift: P2,
    x: &Intersection,
    y: &Intersection,
) -> Result<f64, ManifoldError> {
    let order = |a: At, b: At| (a.piece, a.s) <= (b.piece, b.s);
    let (ux, uy) = (
        At {
            piece: x.piece_unstable,
            s: x.s_unstable,
        },
        At {
            piece: y.piece_unstable,
            s: y.s_unstable,
        },
    );
    let (sx, sy) = (
        At {
            piece: x.piece_stable,
            s: x.s_stable,
        },
        At {
            piece: y.piece_stable,
            s: y.s_stable,
        },
    );
    let iu = if order(ux, uy) {
        along(map, unstable, [0.0, 0.0], ux, uy)?
    } else {
        -along(map, unstable, [0.0, 0.0], uy, ux)?
    };
    // The stable branch back from y to x.
    let is = if order(sx, sy) {
        -along(map, stable, shift, sx, sy)?
    } else {
        along(map, stable, shift, sy, sx)?
    };
    Ok(0.5 * (iu + is))
}
