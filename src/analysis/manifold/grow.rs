//! Growing one branch of a one-dimensional manifold (Hobson 1993; Krauskopf & Osinga 1998).
//!
//! The branch starts at a = x* ± (d0/Λ)·v, v the eigenvector, and the fundamental domain is
//! the chord from a to b = Q(a) ≈ x* ± d0·v, Q the growth map: P for an unstable branch, P⁻¹ for a stable
//! one, squared where the multiplier is negative so that a branch stays on its side. A point
//! of the branch is named by its generation g and its parameter s ∈ [0, 1) on the domain:
//! Q^g(c(s)), c(s) = a + (b − a)·(Λ^s − 1)/(Λ − 1), Λ = |multiplier| of Q (so that the
//! images of even s are spread evenly). Since c(1) = b = Q(a), the end of generation g is
//! exactly the start of generation g + 1: the curve has no seams.
//!
//! Generation g + 1 starts as the images of generation g's points. Where two neighbours are
//! further apart than `resolution`, the turn of the curve at a point exceeds `max_angle`, or
//! (with `accuracy`) the chord between neighbours is estimated to depart from the manifold by
//! more than `accuracy` ([`sagitta`]), a point is inserted. Without `accuracy` it is computed
//! from the fundamental domain at the mean of the neighbours' parameters, Q^g(c(s)): never by
//! interpolating images, so every point is on the manifold to the map's accuracy, at its
//! exact parameter. That costs g applications of Q a point, and it stops resolving in the
//! folds: the seeds c(s) lie |x*| from the origin, quantised to ulp(|x*|), and Q^g stretches
//! that quantum along the curve by Λ^g and more.
//!
//! With `accuracy`, a point of generation g ≥ 2 is inserted as Hobson and Krauskopf–Osinga
//! insert it: the image under Q of the point between the neighbours' pre-images on generation
//! g − 1 ([`Node::pre`], [`on_polyline`]: the cubic through four nodes, O(Δ⁴) off the curve
//! where a chord is O(Δ²)), one application of Q a point, and Q contracts that interpolation
//! error across the curve. Its parameter is its pre-image's, followed back along the
//! pre-images to the domain ([`parameter_at`]), so that intersections and lobes, which
//! evaluate Q^g(c(s)) between parameters, work on such a branch as on one grown from the
//! domain (tests/manifolds.rs: the same turnstile lobes to 1e-13; tests/manifolds_homoclinic.rs:
//! the same homoclinic points to 1e-14).
//!
//! New points of a pass are computed in parallel and merged in order, so the result does not
//! depend on the threads. The branch stops at `arclength` (measured from the saddle) or at
//! `max_points`.
//!
//! The chord deviates from the manifold by about the distance of b from the eigenline,
//! `linear_error`; under Q a transverse error contracts (by |λs|/|λu| per step along an
//! unstable branch), so the curve beyond the first generation is closer still.
//!
//! With `accuracy`, [`interpolation_error`] measures what the estimate promised, by the
//! manifold itself: a point of the manifold in the middle of each sampled piece and its
//! distance from the polyline (every [`SAMPLE_EVERY`]-th piece).

use super::map::PlaneMap;
use super::saddle::Saddle;
use super::{cross, dist, sub, ManifoldError, P2};
use crate::observe::Cancel;
use rayon::prelude::*;

/// How a branch is grown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Growth {
    /// The fundamental domain's far end's distance from the saddle (its near end is at
    /// d0/Λ, Λ the growth map's multiplier).
    pub d0: f64,
    /// Largest distance between neighbours.
    pub resolution: f64,
    /// Largest turn of the curve at a point (rad).
    pub max_angle: f64,
    /// Arclength at which the branch stops (from the saddle).
    pub arclength: f64,
    /// Most points of a branch.
    pub max_points: usize,
    /// Largest accepted `linear_error` (the chord's distance from the eigenline's image).
    pub linear_tolerance: f64,
    /// Largest estimated departure of the chord between neighbours from the manifold
    /// ([`sagitta`]), with points of generation ≥ 2 inserted from the previous generation
    /// (module docs); `None` (the default): not controlled, only `resolution` and
    /// `max_angle`, every point from the domain, so the shipped curves keep their points.
    pub accuracy: Option<f64>,
}

impl Default for Growth {
    fn default() -> Self {
        Growth {
            d0: 1e-6,
            resolution: 0.01,
            max_angle: 0.2,
            arclength: 10.0,
            max_points: 2_000_000,
            linear_tolerance: 1e-9,
            accuracy: None,
        }
    }
}

impl Growth {
    /// Checks every field, naming it as `manifolds.<field>`.
    pub fn check(&self) -> Result<(), ManifoldError> {
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ManifoldError::invalid(
                    &format!("manifolds.{name}"),
                    format!("must be finite and > 0 (got {v})"),
                ))
            }
        };
        pos("d0", self.d0)?;
        pos("resolution", self.resolution)?;
        pos("max_angle", self.max_angle)?;
        pos("arclength", self.arclength)?;
        pos("linear_tolerance", self.linear_tolerance)?;
        if let Some(a) = self.accuracy {
            pos("accuracy", a)?;
        }
        if self.max_angle >= std::f64::consts::PI {
            return Err(ManifoldError::invalid(
                "manifolds.max_angle",
                format!("must be < π (got {})", self.max_angle),
            ));
        }
        if self.d0 >= self.resolution {
            return Err(ManifoldError::invalid(
                "manifolds.d0",
                format!(
                    "must be below manifolds.resolution ({} >= {})",
                    self.d0, self.resolution
                ),
            ));
        }
        if self.max_points < 16 {
            return Err(ManifoldError::invalid(
                "manifolds.max_points",
                "must be at least 16",
            ));
        }
        Ok(())
    }
}

/// A branch's parameterisation: its fundamental domain and growth map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curve {
    /// The saddle.
    pub saddle: P2,
    /// Unstable (grown by P) or stable (by P⁻¹).
    pub unstable: bool,
    /// +1: along +v, −1: along −v.
    pub side: f64,
    /// The eigenvector.
    pub v: P2,
    /// Applications of P (or P⁻¹) per growth step: 2 where the multiplier is negative.
    pub power: usize,
    /// |multiplier|^power of the growth map.
    pub stretch: f64,
    /// The fundamental domain's ends a and b = Q(a).
    pub a: P2,
    pub b: P2,
}

impl Curve {
    /// The branch `side` (±1) of the unstable or stable manifold of `sd` at `d0`.
    pub fn new<M: PlaneMap>(
        map: &M,
        sd: &Saddle,
        unstable: bool,
        side: f64,
        d0: f64,
        w: &mut M::Work,
    ) -> Result<Curve, ManifoldError> {
        let (lambda, v) = if unstable {
            (sd.lambda_u, sd.v_u)
        } else {
            (1.0 / sd.lambda_s, sd.v_s)
        };
        let power = if lambda < 0.0 { 2 } else { 1 };
        let stretch = lambda.abs().powi(power as i32);
        // The domain runs from d0/Λ to about d0: its chord departs from the manifold by
        // ~κ d0² whatever the multiplier (a strongly contracting stable direction has Λ ~ 1e5).
        let r = d0 / stretch;
        let a = [sd.point[0] + side * r * v[0], sd.point[1] + side * r * v[1]];
        let b = map.iterate(a, power, !unstable, w)?;
        Ok(Curve {
            saddle: sd.point,
            unstable,
            side,
            v,
            power,
            stretch,
            a,
            b,
        })
    }

    /// The point c(s) of the fundamental domain.
    pub fn seed(&self, s: f64) -> P2 {
        let f = self.law(s);
        [
            self.a[0] + (self.b[0] - self.a[0]) * f,
            self.a[1] + (self.b[1] - self.a[1]) * f,
        ]
    }

    /// The domain's law f(s) = (Λ^s − 1)/(Λ − 1): c(s) lies the fraction f(s) along the chord
    /// from a to b.
    pub fn law(&self, s: f64) -> f64 {
        (self.stretch.powf(s) - 1.0) / (self.stretch - 1.0)
    }

    /// The parameter at which the law reaches `f` (the inverse of [`Curve::law`]).
    fn law_inverse(&self, f: f64) -> f64 {
        (f * (self.stretch - 1.0)).ln_1p() / self.stretch.ln()
    }

    /// The point of generation `g` at parameter `s`: Q^g(c(s)).
    pub fn eval<M: PlaneMap>(
        &self,
        map: &M,
        g: u32,
        s: f64,
        w: &mut M::Work,
    ) -> Result<P2, ManifoldError> {
        map.iterate(self.seed(s), g as usize * self.power, !self.unstable, w)
    }

    /// The distance of b from the eigenline through the saddle: the size of the chord's
    /// departure from the manifold.
    pub fn linear_error(&self) -> f64 {
        cross(self.v, sub(self.b, self.saddle)).abs()
    }

    /// Applications of P (or P⁻¹) to compute a point of generation `g`.
    fn cost(&self, g: u32) -> u64 {
        g as u64 * self.power as u64
    }
}

/// One point of a branch: generation, parameter, position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    pub generation: u32,
    pub s: f64,
    pub point: P2,
    /// Where its pre-image Q⁻¹(point) lies on the branch's polyline, as a fractional node
    /// index (k + t: the fraction t of the piece from node k to k + 1, in the previous
    /// generation); `None` in generation 0. With `accuracy`, points are inserted from it.
    pub pre: Option<f64>,
}

/// A grown branch.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    pub curve: Curve,
    /// Its points in order from the saddle.
    pub nodes: Vec<Node>,
    /// The arclength at each point, from the saddle (the first is |a − x*| = d0).
    pub arclength: Vec<f64>,
    /// Why it ended: `arclength` (reached), `max_points`, [`INTERRUPTED`].
    pub ended: &'static str,
    /// Applications of the map.
    pub evaluations: u64,
    /// Neighbours left further apart than the resolution (or, with `accuracy`, above it)
    /// because their domain parameters, seeds or (with `accuracy`) pre-images could not be
    /// split further, one f64 spacing apart (the growth of a point of generation g from the
    /// domain stretches the seeds' spacing by up to Λ^g, more in a fold).
    pub unresolved: usize,
    /// With `accuracy`: the largest distance of a sampled piece's mid-parameter point from its
    /// chord ([`interpolation_error`]) and how many pieces were sampled; `None` and 0
    /// without (not NaN, so that branches compare equal).
    pub interpolation_error: Option<f64>,
    pub interpolation_sampled: usize,
}

impl Branch {
    pub fn points(&self) -> impl Iterator<Item = P2> + '_ {
        self.nodes.iter().map(|n| n.point)
    }

    /// The generation and parameter interval of the piece between nodes `i` and `i + 1`
    /// (the end of a generation is the start of the next: s = 1 of the earlier one).
    pub fn piece(&self, i: usize) -> (u32, f64, f64) {
        piece(&self.nodes, i)
    }

    /// The largest distance between neighbours.
    pub fn largest_gap(&self) -> f64 {
        self.nodes
            .windows(2)
            .map(|w| dist(w[0].point, w[1].point))
            .fold(0.0, f64::max)
    }
}

/// The generation and parameter interval of the piece from `nodes[i]` to `nodes[i + 1]` (the
/// end of a generation is the start of the next: s = 1 of the earlier one).
fn piece(nodes: &[Node], i: usize) -> (u32, f64, f64) {
    let (a, b) = (nodes[i], nodes[i + 1]);
    if b.generation == a.generation {
        (a.generation, a.s, b.s)
    } else {
        (a.generation, a.s, 1.0)
    }
}

/// The piece k and the fraction t ∈ [0, 1] along it of the fractional node index `u` of a
/// polyline of `n` nodes.
fn split_place(u: f64, n: usize) -> (usize, f64) {
    let k = (u.floor().max(0.0) as usize).min(n.saturating_sub(2));
    (k, (u - k as f64).clamp(0.0, 1.0))
}

/// The turn of the curve at q between p and r (rad).
fn turn(p: P2, q: P2, r: P2) -> f64 {
    let (u, v) = (sub(q, p), sub(r, q));
    cross(u, v).atan2(u[0] * v[0] + u[1] * v[1]).abs()
}

/// Pieces shorter than this give no curvature to [`sagitta`]: the map's ~1e-13 error turns a
/// piece of 1e-9 by ~1e-4 rad, so shorter ones would estimate noise.
const CURVATURE_FLOOR: f64 = 1e-9;

/// The estimated departure of the chord from node `i` to `i + 1` from the manifold: the
/// sagitta (Δ/2)·tan(κΔ/4) of a circular arc of curvature κ over the chord Δ (κΔ²/8 for a
/// small turn; twice that for a hairpin's tip), κ the largest of the discrete curvatures
/// turn/(mean adjacent chord) at its two ends and their outer neighbours (so that a curvature
/// growing towards a fold is seen a piece early). This is Krauskopf–Osinga's αΔ control, α
/// the turn, as a length. It is a priori, from the neighbours already there, so it costs no
/// map application; after an insertion the turn at the new point carries the measured
/// distance h of that point from the old chord (each half's estimate is then ~h/4, a
/// parabola's), so the a posteriori information is used as well. It is exact on a circle,
/// not an upper bound: a piece may miss by a little more where the curvature changes fast
/// along it. [`interpolation_error`] checks it by the manifold itself.
fn sagitta(nodes: &[Node], i: usize) -> f64 {
    let p = |j: usize| nodes[j].point;
    let curvature = |j: usize| {
        let (a, b) = (dist(p(j - 1), p(j)), dist(p(j), p(j + 1)));
        if a.min(b) <= CURVATURE_FLOOR {
            0.0
        } else {
            turn(p(j - 1), p(j), p(j + 1)) / (0.5 * (a + b))
        }
    };
    let mut k: f64 = 0.0;
    for j in i.saturating_sub(1)..=i + 2 {
        if j >= 1 && j + 1 < nodes.len() {
            k = k.max(curvature(j));
        }
    }
    let d = dist(p(i), p(i + 1));
    // The arc's sagitta for the angle κΔ it subtends (κΔ²/8 for a small one; a hairpin tip
    // of a fold turns by up to π within a piece, where κΔ²/8 is half the true sagitta).
    0.5 * d * (0.25 * (k * d).min(std::f64::consts::PI)).tan()
}

/// Every how many pieces a grown branch's [`interpolation_error`] is sampled (the first piece
/// always): ~1/16 of the growth's map applications.
pub const SAMPLE_EVERY: usize = 16;

/// The distance of `m` from the segment p–q.
fn off_chord(m: P2, p: P2, q: P2) -> f64 {
    let (u, w) = (sub(q, p), sub(m, p));
    let l2 = u[0] * u[0] + u[1] * u[1];
    let t = if l2 > 0.0 {
        ((w[0] * u[0] + w[1] * u[1]) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dist(m, [p[0] + t * u[0], p[1] + t * u[1]])
}

/// What the polyline of `b` misses of the manifold, measured by the manifold itself: over
/// every `every`-th piece (0, every, 2·every, …), the largest distance of a manifold point at
/// the piece's middle from the polyline there (the piece and its two neighbours, so that a
/// point carried a little along the curve is still measured across it). In generations 0
/// and 1 that point is Q^g(c(s)) at the mid-parameter, from the fundamental domain; in later
/// ones it is the image of the point at the middle of the piece's pre-image on the previous
/// generation ([`on_polyline`]), the point an insertion there would add: the curve's own
/// points came that way too, so this measures the chords, and tests/manifolds_growth.rs
/// checks the insertion against the domain and the closed-form separatrix. Returns that
/// largest distance, the pieces measured and the map applications spent.
pub fn interpolation_error<M: PlaneMap>(
    map: &M,
    b: &Branch,
    every: usize,
    cancel: &Cancel,
) -> Result<(f64, usize, u64), ManifoldError> {
    let n = b.nodes.len();
    let pieces: Vec<usize> = (0..n.saturating_sub(1)).step_by(every.max(1)).collect();
    let c = &b.curve;
    let off: Vec<Result<(f64, u64), ManifoldError>> = pieces
        .par_iter()
        .map_init(
            || map.work(),
            |w, &i| {
                if cancel.is_set() {
                    return Err(ManifoldError::Interrupted);
                }
                let (g, sa, sb) = b.piece(i);
                let (na, nb) = (b.nodes[i], b.nodes[i + 1]);
                let (m, steps) = match (na.pre, nb.pre) {
                    (Some(ua), Some(ub)) if g >= 2 => (
                        map.iterate(
                            on_polyline(&b.nodes, 0.5 * (ua + ub)),
                            c.power,
                            !c.unstable,
                            w,
                        )?,
                        1,
                    ),
                    _ => (c.eval(map, g, 0.5 * (sa + sb), w)?, g),
                };
                let d = (i.saturating_sub(1)..=(i + 1).min(n - 2))
                    .map(|j| off_chord(m, b.nodes[j].point, b.nodes[j + 1].point))
                    .fold(f64::INFINITY, f64::min);
                Ok((d, c.cost(steps)))
            },
        )
        .collect();
    let (mut worst, mut cost): (f64, u64) = (0.0, 0);
    for o in off {
        let (d, k) = o?;
        worst = worst.max(d);
        cost += k;
    }
    Ok((worst, pieces.len(), cost))
}

/// Grows the branch of `curve` with `opts` (module docs); a stop request is
/// [`ManifoldError::Interrupted`].
pub fn grow<M: PlaneMap>(
    map: &M,
    curve: &Curve,
    opts: &Growth,
    cancel: &Cancel,
) -> Result<Branch, ManifoldError> {
    let b = grow_observed(map, curve, opts, cancel, &mut |_| {})?;
    if b.ended == INTERRUPTED {
        return Err(ManifoldError::Interrupted);
    }
    Ok(b)
}

/// Why a branch that a stop request ended ended.
pub const INTERRUPTED: &str = "interrupted";

/// [`grow`], telling `progress` the arclength grown so far after every pass of insertions
/// (a lower bound: later insertions only lengthen the polyline). A stop request (polled
/// before every map application) ends the branch cleanly: it keeps the points refined so far
/// (every neighbour pair within the resolution) and `ended` = [`INTERRUPTED`].
pub fn grow_observed<M: PlaneMap>(
    map: &M,
    curve: &Curve,
    opts: &Growth,
    cancel: &Cancel,
    progress: &mut dyn FnMut(f64),
) -> Result<Branch, ManifoldError> {
    opts.check()?;
    let linear = curve.linear_error();
    if linear > opts.linear_tolerance {
        return Err(ManifoldError::invalid(
            "manifolds.d0",
            format!(
                "the fundamental domain's chord at d0 = {:e} departs {linear:.2e} from the eigenline's image, above manifolds.linear_tolerance = {:e}: lower d0",
                opts.d0, opts.linear_tolerance
            ),
        ));
    }
    let mut evaluations = 0u64;
    let m0 = 8;
    let mut nodes: Vec<Node> = (0..m0)
        .map(|j| {
            let s = j as f64 / m0 as f64;
            Node {
                generation: 0,
                s,
                point: curve.seed(s),
                pre: None,
            }
        })
        .collect();
    // The start of generation 1 closes generation 0 (refined against it below).
    let mut unresolved = 0;
    let mut ended = "arclength";
    let mut generation = 0u32;
    // The first generation's end: its image b.
    nodes.push(Node {
        generation: 1,
        s: 0.0,
        point: curve.b,
        pre: Some(0.0),
    });
    evaluations += curve.power as u64;
    let mut from = 0;
    loop {
        if cancel.is_set() {
            nodes.truncate(from + 1);
            ended = INTERRUPTED;
            break;
        }
        let reached = match refine(
            map,
            curve,
            opts,
            &mut nodes,
            from,
            &mut evaluations,
            &mut unresolved,
            cancel,
            progress,
        ) {
            Err(ManifoldError::Interrupted) => {
                // Keep what is refined: up to the first point of the generation under way.
                nodes.truncate(from + 1);
                ended = INTERRUPTED;
                break;
            }
            other => other?,
        };
        if nodes.len() > opts.max_points {
            ended = "max_points";
            break;
        }
        if reached {
            break;
        }
        // The next generation: the images of this one's points (its first is already there).
        generation += 1;
        let start = nodes
            .iter()
            .position(|n| n.generation == generation - 1)
            .unwrap_or(0);
        let end = nodes.len() - 1;
        let olds: Vec<Node> = nodes[start + 1..end].to_vec();
        let first_next = nodes[end];
        let images: Vec<Result<P2, ManifoldError>> = std::iter::once(first_next)
            .chain(olds.iter().copied())
            .collect::<Vec<_>>()
            .par_iter()
            .map_init(
                || map.work(),
                |w, n| {
                    if cancel.is_set() {
                        return Err(ManifoldError::Interrupted);
                    }
                    let mut p = n.point;
                    for _ in 0..curve.power {
                        p = map.apply(p, !curve.unstable, w)?;
                    }
                    Ok(p)
                },
            )
            .collect();
        evaluations += images.len() as u64 * curve.power as u64;
        let images = match images.into_iter().collect::<Result<Vec<P2>, _>>() {
            Err(ManifoldError::Interrupted) => {
                ended = INTERRUPTED;
                break;
            }
            other => other?,
        };
        let head = images[0];
        for (j, (n, &p)) in olds.iter().zip(&images[1..]).enumerate() {
            nodes.push(Node {
                generation,
                s: n.s,
                point: p,
                pre: Some((start + 1 + j) as f64),
            });
        }
        // The end of this generation is the start of the next, the image of its first point.
        nodes.push(Node {
            generation: generation + 1,
            s: 0.0,
            point: head,
            pre: Some(end as f64),
        });
        from = end;
    }
    // Cut at the arclength.
    let mut arclength = Vec::with_capacity(nodes.len());
    let mut l = dist(nodes[0].point, curve.saddle);
    for i in 0..nodes.len() {
        if i > 0 {
            l += dist(nodes[i - 1].point, nodes[i].point);
        }
        arclength.push(l);
        if l >= opts.arclength {
            break;
        }
    }
    nodes.truncate(arclength.len());
    // The pairs left wider than the resolution: where the curve folds so tightly that
    // neighbours one spacing of f64 apart in the domain parameter map far apart.
    let unresolved = (0..nodes.len().saturating_sub(1))
        .filter(|&i| {
            dist(nodes[i].point, nodes[i + 1].point) > opts.resolution
                || opts.accuracy.is_some_and(|a| sagitta(&nodes, i) > a)
        })
        .count()
        .min(unresolved);
    let mut b = Branch {
        curve: *curve,
        nodes,
        arclength,
        ended,
        evaluations,
        unresolved,
        interpolation_error: None,
        interpolation_sampled: 0,
    };
    if opts.accuracy.is_some() && b.ended != INTERRUPTED {
        match interpolation_error(map, &b, SAMPLE_EVERY, cancel) {
            Ok((worst, n, cost)) => {
                b.interpolation_error = Some(worst);
                b.interpolation_sampled = n;
                b.evaluations += cost;
            }
            Err(ManifoldError::Interrupted) => b.ended = INTERRUPTED,
            Err(e) => return Err(e),
        }
    }
    Ok(b)
}

/// A point to insert after node `after`: its generation, parameter and pre-image's place.
struct Insert {
    after: usize,
    generation: u32,
    s: f64,
    pre: Option<f64>,
    /// Mapped from the previous generation's polyline at `pre` (Hobson's insertion), not
    /// grown from the fundamental domain.
    from_previous: bool,
}

/// The parameter of the point at fractional index `u` of generation 0, the domain's chord:
/// its piece's ends' parameters interpolated in the domain's law, which is exact there (the
/// chord is straight and c(s) moves along it as f(s)).
fn label_at(curve: &Curve, nodes: &[Node], u: f64) -> f64 {
    let (k, t) = split_place(u, nodes.len());
    let (_, sa, sb) = piece(nodes, k);
    let (fa, fb) = (curve.law(sa), curve.law(sb));
    curve.law_inverse(fa + t * (fb - fa)).clamp(sa, sb)
}

/// The domain parameter of the polyline's point at fractional index `u`: its place followed
/// back along the pre-images ([`back_step`]) to generation 0, where [`label_at`] is exact. An
/// error in a place one generation back is an error along the curve that Q stretches by Λ
/// on the way forward, so each step must be accurate to far less than a piece: a parameter
/// interpolated at the previous generation instead (even in the domain's law) put the
/// Baker–Gollub points of generation 6 most of a piece away from Q^6(c(s)); this route,
/// 2e-4 of a piece (the mid-parameter test in tests/manifolds_growth.rs).
fn parameter_at(curve: &Curve, nodes: &[Node], mut u: f64) -> f64 {
    loop {
        match back_step(nodes, u) {
            Some(v) => u = v,
            None => return label_at(curve, nodes, u),
        }
    }
}

/// The place one generation back of the polyline's point at fractional index `u` (`None` in
/// generation 0): the pre-images' places of the four nodes around its piece, as chord
/// lengths along the previous generation, interpolated by the cubic in the nodes' own chord
/// length (the place along the curve is as smooth as the curve), so that the step errs by
/// O(Δ⁴) of the piece, not O(Δ²) as a linear one would.
fn back_step(nodes: &[Node], u: f64) -> Option<f64> {
    let n = nodes.len();
    let (k, t) = split_place(u, n);
    let (pa, pb) = (nodes[k].pre?, nodes[k + 1].pre?);
    if t == 0.0 {
        return Some(pa);
    }
    let linear = pa + t * (pb - pa);
    // The stencil: up to four nodes around the piece, all with pre-images.
    let j0 = if k > 0 && nodes[k - 1].pre.is_some() {
        k - 1
    } else {
        k
    };
    let mut j1 = k + 1;
    while j1 + 1 < n && j1 - j0 < 3 && nodes[j1 + 1].pre.is_some() {
        j1 += 1;
    }
    let len = j1 - j0 + 1;
    if len < 3 {
        return Some(linear);
    }
    let mut places = [0.0; 4];
    let mut tau = [0.0; 4];
    for j in 0..len {
        places[j] = nodes[j0 + j].pre.unwrap_or(0.0);
        if j > 0 {
            tau[j] = tau[j - 1] + dist(nodes[j0 + j - 1].point, nodes[j0 + j].point);
        }
    }
    let (places, tau) = (&places[..len], &tau[..len]);
    if !places.windows(2).all(|w| w[1] >= w[0]) || !tau.windows(2).all(|w| w[1] > w[0]) {
        return Some(linear);
    }
    // Chord lengths along the previous generation (σ), from the node at the first place's
    // floor; neighbours' pre-images lie within a piece or two of each other there.
    let base = places[0].floor() as usize;
    let top = (places[len - 1].floor() as usize + 1).min(n - 1);
    if top <= base || top - base > MAX_SPAN {
        return Some(linear);
    }
    let mut cum = [0.0; MAX_SPAN + 1];
    for m in base + 1..=top {
        cum[m - base] = cum[m - 1 - base] + dist(nodes[m - 1].point, nodes[m].point);
    }
    let cum = &cum[..=top - base];
    let sigma = |p: f64| {
        let m = (p.floor() as usize).clamp(base, top - 1);
        cum[m - base] + (p - m as f64) * (cum[m + 1 - base] - cum[m - base])
    };
    let x = tau[k - j0] + t * (tau[k + 1 - j0] - tau[k - j0]);
    let target: f64 = (0..len)
        .map(|j| lagrange(tau, j, x) * sigma(places[j]))
        .sum();
    // Back to a place, kept within the piece's own pre-images.
    let (lo, hi) = (sigma(pa), sigma(pb));
    let target = target.clamp(lo.min(hi), lo.max(hi));
    let m = (base + cum.partition_point(|&c| c <= target).saturating_sub(1)).min(top - 1);
    let piece = cum[m + 1 - base] - cum[m - base];
    let place = if piece > 0.0 {
        m as f64 + ((target - cum[m - base]) / piece).clamp(0.0, 1.0)
    } else {
        m as f64
    };
    Some(place.clamp(pa.min(pb), pa.max(pb)))
}

/// The most pieces of the previous generation that the pre-images of [`back_step`]'s four
/// nodes may span (beyond: a linear step).
const MAX_SPAN: usize = 16;

/// The Lagrange basis polynomial of abscissa `j` of `tau` at `x`.
fn lagrange(tau: &[f64], j: usize, x: f64) -> f64 {
    (0..tau.len())
        .filter(|&m| m != j)
        .map(|m| (x - tau[m]) / (tau[j] - tau[m]))
        .product()
}

/// The place (fractional node index) of the seed c(s) on generation 0, the domain's chord,
/// whose nodes are seeds in increasing s and end at b = c(1).
fn domain_place(curve: &Curve, nodes: &[Node], s: f64) -> f64 {
    let end = nodes
        .iter()
        .position(|n| n.generation > 0)
        .unwrap_or(nodes.len() - 1);
    let k = nodes[..end].partition_point(|n| n.s <= s).saturating_sub(1);
    let (_, s0, s1) = piece(nodes, k);
    let t = (curve.law(s) - curve.law(s0)) / (curve.law(s1) - curve.law(s0));
    k as f64 + t.clamp(0.0, 1.0)
}

/// The point of the polyline `nodes` at fractional index `u` (module docs): the cubic through
/// the four nodes around its piece, in their chord length, so that a point between well
/// resolved neighbours lies on the curve to O(Δ⁴) where the chord is O(Δ²) off it.
pub fn on_polyline(nodes: &[Node], u: f64) -> P2 {
    let n = nodes.len();
    let (k, t) = split_place(u, n);
    if t == 0.0 || n < 2 {
        return nodes[k].point;
    }
    let (a, b) = (nodes[k].point, nodes[k + 1].point);
    let linear = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
    let j0 = k.saturating_sub(1).min(n.saturating_sub(4));
    let len = (j0 + 4).min(n) - j0;
    let mut tau = [0.0; 4];
    for j in 1..len {
        tau[j] = tau[j - 1] + dist(nodes[j0 + j - 1].point, nodes[j0 + j].point);
    }
    let tau = &tau[..len];
    if !tau.windows(2).all(|w| w[1] > w[0]) {
        return linear;
    }
    let x = tau[k - j0] + t * (tau[k + 1 - j0] - tau[k - j0]);
    let mut out = [0.0; 2];
    for j in 0..len {
        let l = lagrange(tau, j, x);
        out[0] += l * nodes[j0 + j].point[0];
        out[1] += l * nodes[j0 + j].point[1];
    }
    out
}

/// Inserts points between neighbours from index `from` on until every pair up to the
/// arclength meets the resolution, the angle and the accuracy. Returns whether the arclength is reached.
#[allow(clippy::too_many_arguments)]
fn refine<M: PlaneMap>(
    map: &M,
    curve: &Curve,
    opts: &Growth,
    nodes: &mut Vec<Node>,
    from: usize,
    evaluations: &mut u64,
    unresolved: &mut usize,
    cancel: &Cancel,
    progress: &mut dyn FnMut(f64),
) -> Result<bool, ManifoldError> {
    // Turns of pieces shorter than this are round-off, not shape.
    let short = opts.resolution * 1e-3;
    loop {
        if cancel.is_set() {
            return Err(ManifoldError::Interrupted);
        }
        // The arclength up to `from`.
        let mut l = dist(nodes[0].point, curve.saddle);
        for i in 1..=from {
            l += dist(nodes[i - 1].point, nodes[i].point);
        }
        let mut split = vec![false; nodes.len()];
        let mut reached = false;
        for i in from..nodes.len() - 1 {
            let d = dist(nodes[i].point, nodes[i + 1].point);
            if d > opts.resolution {
                split[i] = true;
            }
            if i >= 1 {
                let (p, q, r) = (nodes[i - 1].point, nodes[i].point, nodes[i + 1].point);
                if dist(p, q) > short && d > short && turn(p, q, r) > opts.max_angle {
                    if i > from {
                        split[i - 1] = true;
                    }
                    split[i] = true;
                }
            }
            if let Some(acc) = opts.accuracy {
                if !split[i] && sagitta(nodes, i) > acc {
                    split[i] = true;
                }
            }
            l += d;
            if l >= opts.arclength {
                reached = true;
                break;
            }
        }
        // The parameters of the new points, and (with `accuracy`, from generation 2 on) their
        // pre-images' places on the previous generation.
        let mut todo: Vec<Insert> = Vec::new();
        for (i, &s) in split.iter().enumerate() {
            if !s {
                continue;
            }
            let (a, b) = (nodes[i], nodes[i + 1]);
            let (g, sa, sb) = piece(nodes, i);
            let sm = 0.5 * (sa + sb);
            if !(sm > sa && sm < sb) {
                *unresolved += 1;
                continue;
            }
            let pre = match (a.pre, b.pre) {
                // A point of generation 1 is computed from the domain: its pre-image is the
                // seed c(sm), on the chord of generation 0.
                _ if g == 1 => Some(domain_place(curve, nodes, sm)),
                (Some(ua), Some(ub)) => Some(0.5 * (ua + ub)),
                _ => None,
            };
            let from_previous = opts.accuracy.is_some() && g >= 2;
            let mut sm = sm;
            if from_previous {
                // Two pre-images one f64 spacing apart on the previous polyline: nothing
                // lies between them to map.
                let (ua, ub, um) = (
                    a.pre.unwrap_or(0.0),
                    b.pre.unwrap_or(0.0),
                    pre.unwrap_or(0.0),
                );
                if !(um > ua && um < ub) {
                    *unresolved += 1;
                    continue;
                }
                // The new point's parameter is its pre-image's.
                sm = parameter_at(curve, nodes, um);
                if !(sm > sa && sm < sb) {
                    *unresolved += 1;
                    continue;
                }
            } else if opts.accuracy.is_some() {
                // The domain lies |x*| from the origin, so its seeds are quantised to
                // ulp(|x*|) (4e-16 at θ* ≈ −2.9): a mid-parameter whose seed is an end's is that
                // end's point again, and splitting on would only add copies. Checked with
                // `accuracy`, so a run without it keeps its points as before.
                let cm = curve.seed(sm);
                if cm == curve.seed(sa) || cm == curve.seed(sb) {
                    *unresolved += 1;
                    continue;
                }
            }
            todo.push(Insert {
                after: i,
                generation: g,
                s: sm,
                pre,
                from_previous,
            });
        }
        progress(l.min(opts.arclength));
        if todo.is_empty() {
            return Ok(reached);
        }
        if nodes.len() + todo.len() > opts.max_points {
            nodes.truncate(opts.max_points + 1);
            return Ok(true);
        }
        let current: &[Node] = nodes;
        let points: Vec<Result<P2, ManifoldError>> = todo
            .par_iter()
            .map_init(
                || map.work(),
                |w, t| {
                    if cancel.is_set() {
                        return Err(ManifoldError::Interrupted);
                    }
                    match (t.from_previous, t.pre) {
                        (true, Some(u)) => {
                            map.iterate(on_polyline(current, u), curve.power, !curve.unstable, w)
                        }
                        _ => curve.eval(map, t.generation, t.s, w),
                    }
                },
            )
            .collect();
        *evaluations += todo
            .iter()
            .map(|t| {
                if t.from_previous {
                    curve.power as u64
                } else {
                    curve.cost(t.generation)
                }
            })
            .sum::<u64>();
        let mut merged = Vec::with_capacity(nodes.len() + todo.len());
        let mut next = todo.iter().zip(points).peekable();
        for (i, n) in nodes.iter().enumerate() {
            merged.push(*n);
            if let Some(&(t, _)) = next.peek() {
                if t.after == i {
                    let (_, p) = next.next().expect("peeked");
                    merged.push(Node {
                        generation: t.generation,
                        s: t.s,
                        point: p?,
                        pre: t.pre,
                    });
                }
            }
        }
        *nodes = merged;
    }
}
