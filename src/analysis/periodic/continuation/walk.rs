//! The walk along a branch: [`continue_from`] and its steps. One step predicts along the
//! tangent and corrects, lands on the range's end where it would leave the range, verifies the
//! new point, locates the bifurcations passed since the last point and accepts the point.

use super::{
    crossings, features, locate, BifurcationKind, Branch, BranchPoint, ContinuationOptions, Family,
    Features, Solved, Tracker,
};
use crate::analysis::periodic::shooting::{
    phase_at, Closure, Periodic, PeriodicOrbit, ShootingOptions,
};
use crate::analysis::periodic::PeriodicError;
use crate::observe::{Control, Observer};
use nalgebra::{Complex, DVector};

/// How near +1 a switched branch's inherited multiplier may be for a +1 crossing to still be
/// the bifurcation the branch was born at ([`Walk::inherited`]): far above the multipliers'
/// round-off at the start (3e-8 measured on Taylor's pendulum), far below any fold's.
const BORN_AT: f64 = 1e-6;

/// Follows the branch of `family` from `start` at `p0` (along `initial_tangent` where given:
/// a switched branch), point by point, until it has `opts.points` points, leaves the range,
/// fails or is stopped.
pub(super) fn continue_from<F: Family>(
    family: &F,
    start: &PeriodicOrbit,
    p0: f64,
    initial_tangent: Option<DVector<f64>>,
    shooting: &ShootingOptions,
    opts: &ContinuationOptions,
    observer: &mut dyn Observer,
) -> Result<Branch, PeriodicError> {
    opts.check()?;
    shooting.check()?;
    if shooting.segments != 1 {
        return Err(PeriodicError::invalid(
            "segments",
            "continuation shoots with one segment",
        ));
    }
    let mut walk = Walk::start(family, start, p0, initial_tangent, shooting, opts, observer)?;
    observer.start(opts.points as u64, "points");
    let ended = loop {
        if walk.points.len() >= opts.points {
            break "points".to_string();
        }
        if observer.advance(walk.points.len() as u64) == Control::Stop {
            break "interrupted".to_string();
        }
        match walk.step() {
            Ok(()) => {}
            Err(Halt::End(why)) => break why,
            Err(Halt::Fail(e)) => return Err(e),
        }
    };
    observer.finish();
    Ok(Branch {
        points: walk.points,
        bifurcations: walk.bifurcations,
        ended,
    })
}

/// Why a step gave no point to go on from: the branch ends (the reason [`Branch::ended`]
/// records), or the whole continuation fails.
enum Halt {
    End(String),
    Fail(PeriodicError),
}

impl Halt {
    fn end(why: &str) -> Halt {
        Halt::End(why.to_string())
    }

    /// A stop request ends the branch ("interrupted"); any other error is `other(e)`.
    fn or_interrupted(e: PeriodicError, other: impl FnOnce(PeriodicError) -> Halt) -> Halt {
        match e {
            PeriodicError::Interrupted => Halt::end("interrupted"),
            e => other(e),
        }
    }
}

/// The branch so far and where the walk stands on it.
struct Walk<'a, F: Family> {
    tracker: Tracker<'a, F>,
    opts: &'a ContinuationOptions,
    /// Whether the period is an unknown (an autonomous family), so the phase plane follows.
    auto: bool,
    hamiltonian: bool,
    /// A switched branch, whose start is the bifurcation itself.
    switched: bool,
    /// The unknowns' count, the parameter last.
    dim: usize,
    points: Vec<BranchPoint>,
    feats: Vec<Features>,
    bifurcations: Vec<super::Bifurcation>,
    current: Solved<F::Sys>,
    /// The unit tangent at `current`.
    t: DVector<f64>,
    /// The next arclength step.
    ds: f64,
    arclength: f64,
}

impl<'a, F: Family> Walk<'a, F> {
    /// The first point, corrected in place, and its tangent: from the parameter direction, or
    /// `initial_tangent` (oriented along it) on a switched branch.
    fn start(
        family: &'a F,
        start: &PeriodicOrbit,
        p0: f64,
        initial_tangent: Option<DVector<f64>>,
        shooting: &ShootingOptions,
        opts: &'a ContinuationOptions,
        observer: &mut dyn Observer,
    ) -> Result<Self, PeriodicError> {
        let (sys0, closure0) = family.at(p0)?;
        let auto = !matches!(closure0, Closure::Driven { .. });
        let hamiltonian = sys0.hamiltonian();
        let tracker = Tracker {
            family,
            opts: *shooting,
            phase: auto.then(|| phase_at(&sys0, &start.x0)),
            cancel: observer.cancel(),
        };
        let mut y: Vec<f64> = start.x0.clone();
        if auto {
            y.push(start.period);
        }
        y.push(p0);
        let dim = y.len();
        let mut ep = DVector::zeros(dim);
        ep[dim - 1] = if opts.increasing { 1.0 } else { -1.0 };
        let first = tracker.correct(y.clone(), &y, &DVector::zeros(dim), 0.0)?;
        let switched = initial_tangent.is_some();
        let t = match initial_tangent {
            Some(d) => {
                let d = d.normalize();
                if d[dim - 1] * ep[dim - 1] < 0.0 {
                    -d
                } else {
                    d
                }
            }
            None => tracker.tangent(&first.jac, &ep)?,
        };
        let points = vec![BranchPoint {
            parameter: p0,
            orbit: tracker.point(&first, switched)?,
            arclength: 0.0,
        }];
        let feats = vec![features(&points[0].orbit.floquet, t[dim - 1], hamiltonian)];
        Ok(Walk {
            tracker,
            opts,
            auto,
            hamiltonian,
            switched,
            dim,
            points,
            feats,
            bifurcations: Vec::new(),
            current: first,
            t,
            ds: opts.step,
            arclength: 0.0,
        })
    }

    /// One step along the branch: `Ok` once a point is accepted or the step was halved after a
    /// failed correction, `Err` where the branch ends or the continuation fails.
    fn step(&mut self) -> Result<(), Halt> {
        let dim = self.dim;
        let base = self.current.y.clone();
        let Some(next) = self.predict_correct(&base)? else {
            return Ok(());
        };
        let (next, step, last) = self.land_in_range(&base, next)?;
        let t_next = self
            .tracker
            .tangent(&next.jac, &self.t)
            .map_err(|e| Halt::or_interrupted(e, Halt::Fail))?;
        let p = next.y[dim - 1];
        let orbit = self.tracker.point(&next, false).map_err(|e| {
            Halt::or_interrupted(e, |e| {
                Halt::End(format!(
                    "the point at parameter {p} failed verification: {e}"
                ))
            })
        })?;
        self.arclength += step;
        let f = features(&orbit.floquet, t_next[dim - 1], self.hamiltonian);
        self.locate_bifurcations(&f, (step, p), &orbit)?;
        self.accept(next, orbit, f, t_next, p);
        if last {
            return Err(Halt::end("range"));
        }
        Ok(())
    }

    /// The point a step `ds` along the tangent from `base`, corrected; `None` where the
    /// corrector failed and the step was halved (the branch ends once it falls below
    /// `min_step`).
    fn predict_correct(&mut self, base: &[f64]) -> Result<Option<Solved<F::Sys>>, Halt> {
        let ds = self.ds;
        let guess: Vec<f64> = base
            .iter()
            .zip(self.t.iter())
            .map(|(a, b)| a + ds * b)
            .collect();
        match self.tracker.correct(guess, base, &self.t, ds) {
            Ok(s) => Ok(Some(s)),
            Err(PeriodicError::Interrupted) => Err(Halt::end("interrupted")),
            Err(e) => {
                self.ds *= 0.5;
                if self.ds < self.opts.min_step {
                    return Err(Halt::End(format!("the step fell below min_step: {e}")));
                }
                Ok(None)
            }
        }
    }

    /// A step that leaves the range lands on its end instead: the point there is corrected
    /// with the parameter fixed at the bound (or, where that fails, the branch ends before
    /// it), so that no point and no located bifurcation lies outside the range. Returns the
    /// point, the arclength step to it and whether it is the last (on the bound).
    fn land_in_range(
        &self,
        base: &[f64],
        next: Solved<F::Sys>,
    ) -> Result<(Solved<F::Sys>, f64, bool), Halt> {
        let (dim, opts) = (self.dim, self.opts);
        let p_next = next.y[dim - 1];
        if (opts.min..=opts.max).contains(&p_next) {
            return Ok((next, self.ds, false));
        }
        let bound = if p_next > opts.max {
            opts.max
        } else {
            opts.min
        };
        let p_cur = self.current.y[dim - 1];
        if p_cur == bound {
            return Err(Halt::end("range"));
        }
        let frac = ((bound - p_cur) / (p_next - p_cur)).clamp(0.0, 1.0);
        let guess: Vec<f64> = base
            .iter()
            .zip(&next.y)
            .map(|(a, b)| a + frac * (b - a))
            .collect();
        let mut fixed = guess.clone();
        fixed[dim - 1] = bound;
        let mut e = DVector::zeros(dim);
        e[dim - 1] = 1.0;
        let mut s = self
            .tracker
            .correct(guess, &fixed, &e, 0.0)
            .map_err(|e| Halt::or_interrupted(e, |_| Halt::end("range")))?;
        // Exactly on the bound (the corrector leaves it within its tolerance).
        s.y[dim - 1] = bound;
        let step: f64 =
            s.y.iter()
                .zip(base)
                .zip(self.t.iter())
                .map(|((a, b), c)| (a - b) * c)
                .sum();
        if step.is_nan() || step <= 0.0 {
            return Err(Halt::end("range"));
        }
        Ok((s, step, true))
    }

    /// Whether a change of `kind`'s test function on a switched branch is the bifurcation the
    /// branch was born at rather than a new one: in its first interval, or while the last
    /// point still has a multiplier within [`BORN_AT`] of +1. The doubled orbit leaves a
    /// period doubling with the parameter changing only as s² (its tangent is the critical
    /// eigenvector), so with small steps several points lie within round-off of the doubling
    /// with the inherited multiplier (−1)² = +1 on either side of 1 by noise: a "fold" 1e-9
    /// from the doubling (seen in Taylor's units) was that noise, not a fold.
    fn inherited(&self, kind: BifurcationKind) -> bool {
        if self.points.len() == 1 {
            return true;
        }
        let plus = matches!(kind, BifurcationKind::Fold | BifurcationKind::BranchPoint);
        plus && self.points.last().is_some_and(|q| {
            q.orbit
                .floquet
                .multipliers
                .iter()
                .any(|m| (m.complex() - Complex::new(1.0, 0.0)).norm() < BORN_AT)
        })
    }

    /// Locates (with `opts.locate`) each bifurcation whose test function changed between the
    /// last point and `f`, the features of the new point `orbit` a `step` further at parameter
    /// `p`; those inside the range join the branch's. A bifurcation that cannot be located
    /// ends the branch.
    fn locate_bifurcations(
        &mut self,
        f: &Features,
        (step, p): (f64, f64),
        orbit: &PeriodicOrbit,
    ) -> Result<(), Halt> {
        if !self.opts.locate {
            return Ok(());
        }
        let prev_f = *self.feats.last().expect("the start is a point");
        for kind in crossings(&prev_f, f, self.hamiltonian) {
            if self.switched && self.inherited(kind) {
                // The start of a switched branch is the bifurcation itself.
                continue;
            }
            let located = locate(
                &self.tracker,
                &self.current,
                &self.t,
                (step, p),
                kind,
                &prev_f,
                self.opts.locate_tolerance,
            );
            match located {
                Ok(mut b) => {
                    if !(self.opts.min..=self.opts.max).contains(&b.parameter) {
                        continue;
                    }
                    b.after = self.points.len() - 1;
                    b.from = self.points.last().expect("a point").orbit.floquet.stability;
                    b.to = orbit.floquet.stability;
                    self.bifurcations.push(b);
                }
                Err(PeriodicError::Interrupted) => {}
                Err(e @ (PeriodicError::Unverified(_) | PeriodicError::NotConverged(_))) => {
                    return Err(Halt::End(format!(
                        "locating the {} after parameter {}: {e}",
                        kind.name(),
                        self.current.y[self.dim - 1]
                    )));
                }
                Err(e) => return Err(Halt::Fail(e)),
            }
        }
        Ok(())
    }

    /// Takes the verified point `next` (its orbit, features and tangent) onto the branch and
    /// moves there; the step grows after an easy correction.
    fn accept(
        &mut self,
        next: Solved<F::Sys>,
        orbit: PeriodicOrbit,
        f: Features,
        t_next: DVector<f64>,
        p: f64,
    ) {
        if self.auto {
            self.tracker.phase = Some(phase_at(&next.sys, &orbit.x0));
        }
        self.points.push(BranchPoint {
            parameter: p,
            orbit,
            arclength: self.arclength,
        });
        self.feats.push(f);
        if next.residuals.len() <= 3 {
            self.ds = (self.ds * 1.3).min(self.opts.max_step);
        }
        self.t = t_next;
        self.current = next;
    }
}
