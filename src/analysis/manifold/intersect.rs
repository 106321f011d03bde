//! Intersections of an unstable and a stable branch: homoclinic points (the same saddle) or,
//! with a lattice shift, heteroclinic ones in the cover (the saddle at θ + 2πk, the same
//! point of the cylinder).
//!
//! Candidates are the crossings of the two polylines, found through a grid of cells of the
//! stable branch's longest piece (each unstable piece meets only the stable pieces of the
//! cells its box covers). Each is then refined on both curves: the crossing of their chords
//! gives a parameter on each piece, the points there are computed from the fundamental
//! domain ([`super::grow::Curve::eval`]), and each replaces the end of its piece on its side
//! of the other curve (regula falsi on both curves at once), until the two points agree to
//! `tolerance` in the plane. That needs the curves' points to be smooth in their parameters,
//! which they are not beyond the map's noise stretched along the curve (Λ^g for generation
//! g: 1e-6 on the double pendulum's flip saddle, 1e-4 on the Baker–Gollub stable branches).
//! Where the curves stop short of `tolerance`, the point is shot as the orbit it lies on
//! ([`super::homoclinic`]), which locates it to the map's own noise (1e-14 … 1e-12), and
//! `residual` is that orbit's error bar; the domain parameters stay those at which the curves
//! meet (a lobe integrates between them).

use super::grow::Branch;
use super::homoclinic::polish;
use super::map::PlaneMap;
use super::{cross, dist, sub, ManifoldError, P2};
use std::collections::HashMap;

/// One intersection point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intersection {
    /// The point (on the unstable branch; the stable one's is within `residual`).
    pub point: P2,
    /// A bound on the point's error on the branches as computed: |u − (s + shift)| of the
    /// refined points, or where the map's noise kept them apart the shot orbit's error bar
    /// (or, if shooting failed, the longest final bracket the point lies in).
    pub residual: f64,
    /// The lattice shift of the stable branch (in multiples of [`PlaneMap::lattice`]).
    pub shift: i32,
    /// The arclength along each branch at the point.
    pub arclength_unstable: f64,
    pub arclength_stable: f64,
    /// The angle between the branches there (rad, in [0, π/2]): 0 at a tangency.
    pub angle: f64,
    /// The pieces (node indices) of each branch it lies on.
    pub piece_unstable: usize,
    pub piece_stable: usize,
    /// The point's fundamental-domain parameter on each branch (its generation is that of
    /// its piece, [`Branch::piece`]).
    pub s_unstable: f64,
    pub s_stable: f64,
}

/// Where two segments p0p1 and q0q1 cross: the fractions (α, β) along each, α, β ∈ [0, 1),
/// or None.
fn crossing(p0: P2, p1: P2, q0: P2, q1: P2) -> Option<(f64, f64)> {
    let (r, s) = (sub(p1, p0), sub(q1, q0));
    let den = cross(r, s);
    if den == 0.0 {
        return None;
    }
    let qp = sub(q0, p0);
    let a = cross(qp, s) / den;
    let b = cross(qp, r) / den;
    ((0.0..1.0).contains(&a) && (0.0..1.0).contains(&b)).then_some((a, b))
}

fn shifted(p: P2, shift: P2) -> P2 {
    [p[0] + shift[0], p[1] + shift[1]]
}

/// The crossings of `unstable` with `stable` shifted by each of `shifts` lattice vectors
/// ([`PlaneMap::lattice`]; [0] without one), refined to `tolerance`.
pub fn intersections<M: PlaneMap>(
    map: &M,
    unstable: &Branch,
    stable: &Branch,
    shifts: &[i32],
    tolerance: f64,
) -> Result<Vec<Intersection>, ManifoldError> {
    let lattice = map.lattice().unwrap_or([0.0, 0.0]);
    let su: Vec<P2> = unstable.points().collect();
    let mut found = Vec::new();
    for &k in shifts {
        let shift = [lattice[0] * k as f64, lattice[1] * k as f64];
        let ss: Vec<P2> = stable.points().map(|p| shifted(p, shift)).collect();
        if su.len() < 2 || ss.len() < 2 {
            continue;
        }
        let cell = ss
            .windows(2)
            .map(|w| dist(w[0], w[1]))
            .fold(0.0, f64::max)
            .max(1e-12);
        let key = |x: f64| (x / cell).floor() as i64;
        let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
        for j in 0..ss.len() - 1 {
            let (a, b) = (ss[j], ss[j + 1]);
            for cx in key(a[0].min(b[0]))..=key(a[0].max(b[0])) {
                for cy in key(a[1].min(b[1]))..=key(a[1].max(b[1])) {
                    grid.entry((cx, cy)).or_default().push(j);
                }
            }
        }
        let mut candidates = Vec::new();
        for i in 0..su.len() - 1 {
            let (a, b) = (su[i], su[i + 1]);
            let (x0, x1) = (key(a[0].min(b[0])), key(a[0].max(b[0])));
            let (y0, y1) = (key(a[1].min(b[1])), key(a[1].max(b[1])));
            // A piece spanning many cells (the first, long ones) is tested cell by cell.
            candidates.clear();
            if (x1 - x0 + 1) * (y1 - y0 + 1) > 1_000_000 {
                candidates.extend(0..ss.len() - 1);
            } else {
                for cx in x0..=x1 {
                    for cy in y0..=y1 {
                        if let Some(js) = grid.get(&(cx, cy)) {
                            candidates.extend_from_slice(js);
                        }
                    }
                }
                candidates.sort_unstable();
                candidates.dedup();
            }
            for &j in &candidates {
                if crossing(a, b, ss[j], ss[j + 1]).is_some() {
                    let x = refine(map, unstable, i, stable, j, shift, tolerance)?;
                    let mut x = x;
                    x.shift = k;
                    if !found
                        .iter()
                        .any(|f: &Intersection| dist(f.point, x.point) < 1e3 * tolerance)
                    {
                        found.push(x);
                    }
                }
            }
        }
    }
    found.sort_by(|a, b| a.arclength_unstable.total_cmp(&b.arclength_unstable));
    Ok(found)
}

/// One end of a piece under refinement: its parameter and point.
#[derive(Clone, Copy)]
struct End {
    s: f64,
    p: P2,
}

/// Refines the crossing of unstable piece `i` with stable piece `j` (module docs).
fn refine<M: PlaneMap>(
    map: &M,
    u: &Branch,
    i: usize,
    st: &Branch,
    j: usize,
    shift: P2,
    tolerance: f64,
) -> Result<Intersection, ManifoldError> {
    let mut w = map.work();
    let (gu, su0, su1) = u.piece(i);
    let (gs, ss0, ss1) = st.piece(j);
    let mut a = [
        End {
            s: su0,
            p: u.nodes[i].point,
        },
        End {
            s: su1,
            p: u.nodes[i + 1].point,
        },
    ];
    let mut b = [
        End {
            s: ss0,
            p: shifted(st.nodes[j].point, shift),
        },
        End {
            s: ss1,
            p: shifted(st.nodes[j + 1].point, shift),
        },
    ];
    let mut best = (f64::INFINITY, a[0].p, a[0].s, b[0].s);
    for _ in 0..100 {
        let (r, q) = (sub(a[1].p, a[0].p), sub(b[1].p, b[0].p));
        let den = cross(r, q);
        if den == 0.0 {
            break;
        }
        let qp = sub(b[0].p, a[0].p);
        let alpha = (cross(qp, q) / den).clamp(0.0, 1.0);
        let beta = (cross(qp, r) / den).clamp(0.0, 1.0);
        let sa = a[0].s + alpha * (a[1].s - a[0].s);
        let sb = b[0].s + beta * (b[1].s - b[0].s);
        let pa = u.curve.eval(map, gu, sa, &mut w)?;
        let pb = shifted(st.curve.eval(map, gs, sb, &mut w)?, shift);
        let gap = dist(pa, pb);
        if gap < best.0 {
            best = (gap, pa, sa, sb);
        }
        if gap <= tolerance {
            break;
        }
        // Each new point replaces the end of its piece on its side of the other chord.
        let side = |p: P2, o: P2, d: P2| cross(d, sub(p, o)).signum();
        let na = End { s: sa, p: pa };
        let nb = End { s: sb, p: pb };
        let sa_new = side(pa, pb, q);
        if sa_new == side(a[0].p, pb, q) {
            a[0] = na;
        } else {
            a[1] = na;
        }
        let r2 = sub(a[1].p, a[0].p);
        if side(pb, pa, r2) == side(b[0].p, pa, r2) {
            b[0] = nb;
        } else {
            b[1] = nb;
        }
        if a[0].s == a[1].s || b[0].s == b[1].s {
            break;
        }
    }
    let (mut gap, mut p, sa, sb) = best;
    if gap > tolerance {
        // The sampled points could not be brought together (an adaptive map is piecewise
        // smooth: its points along a curve jump by its tolerance times the stretching); the
        // crossing of the final chords lies within the brackets, whose longest chord bounds
        // the error.
        let (r, q) = (sub(a[1].p, a[0].p), sub(b[1].p, b[0].p));
        let den = cross(r, q);
        if den != 0.0 {
            let qp = sub(b[0].p, a[0].p);
            let alpha = cross(qp, q) / den;
            let beta = cross(qp, r) / den;
            if (0.0..=1.0).contains(&alpha) && (0.0..=1.0).contains(&beta) {
                let bound = dist(a[0].p, a[1].p).max(dist(b[0].p, b[1].p));
                if bound < gap {
                    p = [a[0].p[0] + alpha * r[0], a[0].p[1] + alpha * r[1]];
                    gap = bound;
                }
            }
        }
    }
    if gap > tolerance {
        // The curves' points could not be brought together: shoot the orbit through the
        // crossing instead ([`super::homoclinic`]), which the stretching does not blur. The
        // domain parameters stay the curves' own: a point of generation g computed from its
        // parameter carries the stretched round-off along its curve, so the parameters at
        // which the computed curves meet (what a lobe integrates between) are these.
        if let Some(o) = polish(
            map, &u.curve, gu, sa, &st.curve, gs, sb, shift, tolerance, &mut w,
        )? {
            if o.error < gap {
                p = o.point();
                gap = o.error;
            }
        }
    }
    // The arclength at the point: the node's plus the distance along the piece.
    let arc = |br: &Branch, idx: usize, pt: P2, off: P2| {
        br.arclength.get(idx).map_or(f64::NAN, |l| {
            l + dist(shifted(br.nodes[idx].point, off), pt)
        })
    };
    let (du, ds) = (
        sub(u.nodes[i + 1].point, u.nodes[i].point),
        sub(st.nodes[j + 1].point, st.nodes[j].point),
    );
    let c = (cross(du, ds) / (du[0].hypot(du[1]) * ds[0].hypot(ds[1]))).abs();
    Ok(Intersection {
        point: p,
        residual: gap,
        shift: 0,
        arclength_unstable: arc(u, i, p, [0.0, 0.0]),
        arclength_stable: arc(st, j, p, shift),
        angle: c.clamp(0.0, 1.0).asin(),
        piece_unstable: i,
        piece_stable: j,
        s_unstable: sa,
        s_stable: sb,
    })
}
