//! Error bars on located numbers: a found orbit's period and multipliers, and a located
//! bifurcation's parameter (the latter computed in `continuation/error.rs`, which needs the
//! continuation's own corrector).
//!
//! Each error has up to three components, added as magnitudes (a deterministic estimate, not a
//! statistical interval):
//! * `location`: the bisection's half-width (bifurcations only; 0 for an orbit);
//! * `newton`: what one more Newton step from the converged solution changes (the step
//!   δ = −J⁺r for the residual r left at convergence: a first-order J⁻¹r propagated through the
//!   number itself, by re-evaluating it at the corrected unknowns);
//! * `integrator`: the tolerance ladder. The number is computed again at two tighter DOP853
//!   tolerances, rtol and atol times [`LADDER`] (never below [`RUNG_FLOOR`]): v₀, v₁, v₂. The
//!   estimate ([`ladder_estimate`]) is |v₀ − v₂| + |v₁ − v₂|: the change down the ladder
//!   (Richardson-style, the tightest rung standing in for the truth), plus a bound on the
//!   tightest rung's own error, which is at most its last change |v₁ − v₂| wherever the error
//!   at least halves per rung (DOP853's falls about tenfold). Without that second term the
//!   estimate falls short of the true error by the tightest rung's error, about 1 % of it,
//!   and misses the truth every time (tests/orbit_errors.rs).

use super::floquet::Floquet;
use super::shooting::{
    find, least_squares_cut, phase_at, Closure, Guess, Periodic, PeriodicOrbit, Shooting,
    ShootingOptions,
};
use super::PeriodicError;
use crate::observe::Cancel;
use nalgebra::{Complex, DVector};
use serde::Serialize;

/// The ladder's rungs below the run's tolerance: rtol and atol times these.
pub const LADDER: [f64; 2] = [0.1, 0.01];

/// No rung is tighter than this (DOP853 near round-off: a rung below it would not be more
/// accurate, only slower).
pub const RUNG_FLOOR: f64 = 1e-15;

/// The Newton step's solve treats singular values below this times the largest as zero: at a
/// branch point the Jacobian is singular along the crossing branch, where a step would move
/// the solution without moving the located number (to first order).
pub(crate) const NEWTON_CUT: f64 = 1e-8;

/// How every error is obtained, in one line: the `error_method` of the file, the JSON and the
/// text report.
pub const ERROR_METHOD: &str = "error = location + newton + integrator (sum of magnitudes, a deterministic estimate, not a statistical interval): location = the bisection's half-width (bifurcations); newton = the change of the number after one more Newton step -J^+ r from the converged solution (singular values below 1e-8 of the largest cut) (for a bifurcation, the test function's change through its arclength slope, plus the step's parameter change); integrator = |v0 - v2| + |v1 - v2| from a tolerance ladder v0, v1, v2 at DOP853's (rtol, atol), /10, /100 (floored at 1e-15) that re-finds the orbit, or re-locates the bifurcation by chord steps on its test function around the located point: the change down the ladder plus a bound on the tightest rung's own error (its last change; holds where the error at least halves per rung)";

/// One number's error and its components (all magnitudes, in the number's units; NaN where a
/// component could not be estimated: the ladder's re-find failed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ErrorParts {
    /// The bisection's half-width (0 where nothing was bisected).
    pub location: f64,
    /// The Newton residual's effect.
    pub newton: f64,
    /// The tolerance ladder's estimate of the integrator's error.
    pub integrator: f64,
    /// location + newton + integrator.
    pub combined: f64,
}

impl ErrorParts {
    pub fn new(location: f64, newton: f64, integrator: f64) -> ErrorParts {
        ErrorParts {
            location,
            newton,
            integrator,
            combined: location + newton + integrator,
        }
    }
}

/// A found orbit's error bars.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrbitError {
    /// The period's (s); exactly 0 for a driven orbit, whose period k·T_drive is given.
    pub period: ErrorParts,
    /// Each non-trivial multiplier's, as |δμ| in the complex plane (bounds both parts), in
    /// the orbit's multiplier order.
    pub multipliers: Vec<ErrorParts>,
    /// The ladder's rtol values (run, and the two tighter rungs).
    pub rtol: [f64; 3],
    /// The period at each rung (s).
    pub period_ladder: [f64; 3],
}

/// The tolerances of the ladder's rungs: the run's, then tighter by [`LADDER`].
pub fn rungs(opts: &ShootingOptions) -> [ShootingOptions; 3] {
    let rung = |f: f64| ShootingOptions {
        rtol: (opts.rtol * f).max(RUNG_FLOOR),
        atol: (opts.atol * f).max(RUNG_FLOOR),
        ..*opts
    };
    [*opts, rung(LADDER[0]), rung(LADDER[1])]
}

/// The ladder's estimate of the run's error from its values at the three rungs (run first):
/// |v₀ − v₂| + |v₁ − v₂| (see the module docs).
pub fn ladder_estimate(v: [f64; 3]) -> f64 {
    (v[0] - v[2]).abs() + (v[1] - v[2]).abs()
}

/// The multiplier of `others` nearest `m` (multipliers may reorder between rungs where moduli
/// tie, as a conjugate pair's do); NaN where there is none.
fn nearest(m: Complex<f64>, others: &Floquet) -> Complex<f64> {
    others
        .multipliers
        .iter()
        .map(|o| o.complex())
        .min_by(|a, b| (a - m).norm().total_cmp(&(b - m).norm()))
        .unwrap_or(Complex::new(f64::NAN, f64::NAN))
}

/// |μ − nearest of `others`| for each of `mus`.
fn matched(mus: &Floquet, others: &Floquet) -> Vec<f64> {
    mus.multipliers
        .iter()
        .map(|m| (nearest(m.complex(), others) - m.complex()).norm())
        .collect()
}

/// The error bars of `orbit`, found on `sys` closed by `closure` with `opts`: its period's and
/// multipliers' ([`ERROR_METHOD`]). Costs two more searches (the ladder) and one Newton step.
pub fn orbit_error<S: Periodic>(
    sys: &S,
    orbit: &PeriodicOrbit,
    closure: Closure,
    opts: &ShootingOptions,
    cancel: &Cancel,
) -> Result<OrbitError, PeriodicError> {
    let driven = matches!(closure, Closure::Driven { .. });
    let nm = orbit.floquet.multipliers.len();
    // The Newton step from the orbit (the phase plane through its start).
    let shooting = Shooting {
        sys,
        closure,
        opts: *opts,
        phase: (!driven).then(|| phase_at(sys, &orbit.x0)),
        cancel: cancel.clone(),
    };
    let newton = newton_step(&shooting, orbit).or_else(|e| match e {
        PeriodicError::Interrupted => Err(e),
        _ => Ok((f64::NAN, vec![f64::NAN; nm])),
    })?;
    // The ladder: re-found from the orbit at the tighter tolerances.
    let ladder = rungs(opts);
    let guess = Guess {
        x0: orbit.x0.clone(),
        period: orbit.period,
    };
    let mut refound = Vec::with_capacity(2);
    for o in &ladder[1..] {
        match find(sys, &guess, closure, o, cancel) {
            Ok(r) => refound.push(Some(r)),
            Err(PeriodicError::Interrupted) => return Err(PeriodicError::Interrupted),
            Err(_) => refound.push(None),
        }
    }
    let period_at = |r: &Option<PeriodicOrbit>| r.as_ref().map_or(f64::NAN, |o| o.period);
    let period_ladder = [orbit.period, period_at(&refound[0]), period_at(&refound[1])];
    let integ_mu: Vec<f64> = match (&refound[0], &refound[1]) {
        (Some(a), Some(b)) => orbit
            .floquet
            .multipliers
            .iter()
            .map(|m| {
                let m0 = m.complex();
                let m2 = nearest(m0, &b.floquet);
                (m0 - m2).norm() + (nearest(m0, &a.floquet) - m2).norm()
            })
            .collect(),
        _ => vec![f64::NAN; nm],
    };
    let (period_newton, period_integrator) = if driven {
        (0.0, 0.0)
    } else {
        (newton.0, ladder_estimate(period_ladder))
    };
    Ok(OrbitError {
        period: ErrorParts::new(0.0, period_newton, period_integrator),
        multipliers: (0..nm)
            .map(|k| ErrorParts::new(0.0, newton.1[k], integ_mu[k]))
            .collect(),
        rtol: [ladder[0].rtol, ladder[1].rtol, ladder[2].rtol],
        period_ladder,
    })
}

/// One Newton step from `orbit`: the change of its period and of each multiplier.
fn newton_step<S: Periodic>(
    shooting: &Shooting<'_, S>,
    orbit: &PeriodicOrbit,
) -> Result<(f64, Vec<f64>), PeriodicError> {
    let z = shooting.initial(&orbit.x0, orbit.period)?;
    let ev = shooting.evaluate(&z)?;
    let before = shooting.floquet_of(&z, &ev)?;
    let step: DVector<f64> =
        least_squares_cut(&ev.jacobian, &(-&ev.residual), &shooting.cancel, NEWTON_CUT)?;
    let z2: Vec<f64> = z.iter().zip(step.iter()).map(|(a, d)| a + d).collect();
    let ev2 = shooting.evaluate(&z2)?;
    let after = shooting.floquet_of(&z2, &ev2)?;
    let dt = (shooting.period(&z2) - shooting.period(&z)).abs();
    Ok((dt, matched(&before, &after)))
}

/// A multiplier set's test value for a kind of crossing: Π(μ − c) (its real part) for a
/// multiplier through c = ±1; for a pair through the unit circle, the largest modulus of a
/// non-real multiplier less 1 (NaN where none is non-real).
pub(crate) fn test_value(through: Option<f64>, f: &Floquet) -> f64 {
    let mus: Vec<Complex<f64>> = f.multipliers.iter().map(|m| m.complex()).collect();
    match through {
        Some(c) => {
            mus.iter()
                .fold(Complex::new(1.0, 0.0), |a, m| a * (m - c))
                .re
        }
        None => mus
            .iter()
            .filter(|m| m.im.abs() > 1e-12)
            .map(|m| m.norm() - 1.0)
            .fold(f64::NAN, f64::max),
    }
}
