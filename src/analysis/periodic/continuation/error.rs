//! A located bifurcation's error bar ([`crate::analysis::periodic::errors`] states the rule):
//! the bisection's half-width, the Newton residual's effect and the tolerance ladder.
//!
//! Both estimates work on the kind's smooth test function g along the branch, in the
//! bisection's own coordinate, the arclength s from the point before (along its tangent):
//! Π(μ − 1) for a fold or branch point, Π(μ + 1) for a period doubling, the largest modulus of
//! a non-real multiplier less 1 for a Neimark–Sacker point. A Krein collision's g is flat on
//! the circle's side (the pair splits like a square root), so neither is estimated there (NaN).
//!
//! * Ladder: at each rung's tolerance the point is corrected at the located s and at s + h
//!   (h = 1e-3 of the step): the chord gives g' and dp/ds, and two chord steps s ← s − g/g' the
//!   rung's root; its parameter is the rung's location, and the three locations give the
//!   estimate ([`ladder_estimate`]).
//! * Newton: δy = −[F_y; tᵀ]⁺ (F, tᵀ(y − y_k) − s) at the located point (the corrector's next
//!   step; singular values below [`NEWTON_CUT`] of the largest cut). Its effect on the location is |dp/ds · δg / g'| (the root moves by δg/g' in s, δg
//!   the test function's change over the step) plus |δp| (the step's own parameter change).

use super::{BifurcationKind, Family, Solved, Tracker};
use crate::analysis::periodic::errors::{
    ladder_estimate, rungs, test_value, ErrorParts, NEWTON_CUT,
};
use crate::analysis::periodic::shooting::least_squares_cut;
use crate::analysis::periodic::PeriodicError;
use nalgebra::{DMatrix, DVector};

/// The multiplier a kind's test function watches: +1, −1, or the unit circle (None).
fn through(kind: BifurcationKind) -> Option<f64> {
    match kind {
        BifurcationKind::Fold | BifurcationKind::BranchPoint => Some(1.0),
        BifurcationKind::PeriodDoubling => Some(-1.0),
        _ => None,
    }
}

/// The point at arclength `s` from `base` along `t`, corrected from `guess`: its test value,
/// parameter and unknowns.
fn test_at<F: Family>(
    tr: &Tracker<'_, F>,
    base: &[f64],
    t: &DVector<f64>,
    (s, guess): (f64, Vec<f64>),
    kind: BifurcationKind,
) -> Result<(f64, f64, Vec<f64>), PeriodicError> {
    let solved = tr.correct(guess, base, t, s)?;
    let g = test_of(tr, &solved, kind)?;
    let p = solved.y[solved.y.len() - 1];
    Ok((g, p, solved.y))
}

/// The test value of a corrected point.
fn test_of<F: Family>(
    tr: &Tracker<'_, F>,
    solved: &Solved<F::Sys>,
    kind: BifurcationKind,
) -> Result<f64, PeriodicError> {
    let z = &solved.y[..solved.y.len() - 1];
    let f = tr
        .shooting(&solved.sys, solved.closure)
        .floquet_of(z, &solved.ev)?;
    Ok(test_value(through(kind), &f))
}

/// One rung's re-location: the parameter at the test function's root, the slope g' = dg/ds
/// and dp/ds there.
struct Rung {
    p: f64,
    slope: f64,
    dp_ds: f64,
}

/// The rung of `tr`'s tolerances: chord steps on g from the located arclength `s0` (the
/// located unknowns `y0` the first guess), with the chord over `h`.
fn relocate<F: Family>(
    tr: &Tracker<'_, F>,
    base: &[f64],
    t: &DVector<f64>,
    (s0, y0, h): (f64, &[f64], f64),
    kind: BifurcationKind,
) -> Result<Rung, PeriodicError> {
    let along = |y: &[f64], d: f64| -> Vec<f64> {
        y.iter().zip(t.iter()).map(|(a, b)| a + d * b).collect()
    };
    let (g0, p0, y0) = test_at(tr, base, t, (s0, y0.to_vec()), kind)?;
    let (g1, p1, _) = test_at(tr, base, t, (s0 + h, along(&y0, h)), kind)?;
    let slope = (g1 - g0) / h;
    let dp_ds = (p1 - p0) / h;
    if !(slope.is_finite() && slope != 0.0 && dp_ds.is_finite()) {
        return Err(PeriodicError::NotConverged(
            "the test function is flat at the located point".into(),
        ));
    }
    let d1 = -g0 / slope;
    let (g2, p2, _) = test_at(tr, base, t, (s0 + d1, along(&y0, d1)), kind)?;
    let d2 = -g2 / slope;
    Ok(Rung {
        p: p2 + dp_ds * d2,
        slope,
        dp_ds,
    })
}

/// A failed estimate is NaN (the caller documents it as "not estimated"); a stop request ends
/// the location.
fn or_nan<T>(r: Result<T, PeriodicError>) -> Result<Option<T>, PeriodicError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(PeriodicError::Interrupted) => Err(PeriodicError::Interrupted),
        Err(_) => Ok(None),
    }
}

/// The located point's error bar: `located` is the last corrected midpoint, at arclength
/// `s_loc` from `from` along `t` in the step `ds`; `bisection` the bracket's half-width.
/// Returns the components, the parameter at each rung and the rungs' rtol.
pub(super) fn location_error<F: Family>(
    tracker: &Tracker<'_, F>,
    from: &Solved<F::Sys>,
    t: &DVector<f64>,
    (located, s_loc, ds): (&Solved<F::Sys>, f64, f64),
    kind: BifurcationKind,
    bisection: f64,
) -> Result<(ErrorParts, [f64; 3], [f64; 3]), PeriodicError> {
    let ladder = rungs(&tracker.opts);
    let rtol = [ladder[0].rtol, ladder[1].rtol, ladder[2].rtol];
    if kind == BifurcationKind::KreinCollision {
        return Ok((
            ErrorParts::new(bisection, f64::NAN, f64::NAN),
            [f64::NAN; 3],
            rtol,
        ));
    }
    let h = 1e-3 * ds.abs();
    let mut found: Vec<Option<Rung>> = Vec::with_capacity(3);
    for opts in ladder {
        let tr = Tracker {
            family: tracker.family,
            opts,
            phase: tracker.phase.clone(),
            cancel: tracker.cancel.clone(),
        };
        found.push(or_nan(relocate(
            &tr,
            &from.y,
            t,
            (s_loc, &located.y, h),
            kind,
        ))?);
    }
    let p_of = |r: &Option<Rung>| r.as_ref().map_or(f64::NAN, |r| r.p);
    let at = [p_of(&found[0]), p_of(&found[1]), p_of(&found[2])];
    let integrator = ladder_estimate(at);
    let newton = match &found[0] {
        Some(r) => {
            or_nan(newton_effect(tracker, from, t, (located, s_loc), kind, r))?.unwrap_or(f64::NAN)
        }
        None => f64::NAN,
    };
    Ok((ErrorParts::new(bisection, newton, integrator), at, rtol))
}

/// The location's change after one more corrector step from `located` (see the module docs),
/// with the run rung's slopes `r`.
fn newton_effect<F: Family>(
    tracker: &Tracker<'_, F>,
    from: &Solved<F::Sys>,
    t: &DVector<f64>,
    (located, s_loc): (&Solved<F::Sys>, f64),
    kind: BifurcationKind,
    r: &Rung,
) -> Result<f64, PeriodicError> {
    let y = &located.y;
    let dim = y.len();
    let (rows, cols) = located.jac.shape();
    let mut a = DMatrix::zeros(rows + 1, cols);
    a.view_mut((0, 0), (rows, cols)).copy_from(&located.jac);
    a.set_row(rows, &t.transpose());
    let arc: f64 = y
        .iter()
        .zip(&from.y)
        .zip(t.iter())
        .map(|((a, b), c)| (a - b) * c)
        .sum::<f64>()
        - s_loc;
    let mut b = DVector::zeros(rows + 1);
    b.rows_mut(0, rows).copy_from(&(-&located.ev.residual));
    b[rows] = -arc;
    let d = least_squares_cut(&a, &b, &tracker.cancel, NEWTON_CUT)?;
    let y2: Vec<f64> = y.iter().zip(d.iter()).map(|(a, b)| a + b).collect();
    let (sys, closure) = tracker.family.at(y2[dim - 1])?;
    let sh = tracker.shooting(&sys, closure);
    let z2 = &y2[..dim - 1];
    let f2 = sh.floquet_of(z2, &sh.evaluate(z2)?)?;
    let dg = test_value(through(kind), &f2) - test_of(tracker, located, kind)?;
    Ok((r.dp_ds * dg / r.slope).abs() + d[dim - 1].abs())
}
