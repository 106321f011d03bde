//! Pseudo-arclength continuation of a branch of periodic orbits in one parameter, with its
//! bifurcations located.
//!
//! The unknowns `y = (z, p)` are the shooting unknowns and the parameter. A step predicts along
//! the branch's unit tangent t (the null vector of [F_z F_p]) and corrects with Newton on
//! F(y) = 0 and tᵀ(y − y_k) = Δs, so folds in p are passed like any other point. F_z holds the
//! exact monodromy blocks; F_p, which the tangent flow does not give, is a central difference
//! in p. The step grows after an easy correction and halves after a failed one.
//!
//! Between two accepted points, a change of sign of Π(μ − 1) (a multiplier through +1: a fold,
//! or a branch point), of Π(μ + 1) (through −1: a period doubling) or of the number of
//! multipliers outside the unit circle with neither (a complex pair crossing it:
//! Neimark–Sacker; for a Hamiltonian orbit a Krein collision where a pair leaves the circle)
//! is located by bisection in the arclength, each midpoint corrected onto the branch, until the
//! parameter is known to `ContinuationOptions::locate_tolerance`. Its error bar adds to that
//! half-width the Newton residual's and the integrator's effects (`error.rs`).
//!
//! A located period doubling starts the doubled branch ([`switch_period_doubling`]), a located
//! branch point the new branch of a symmetry-breaking pitchfork ([`switch_branch_point`],
//! `switch.rs`).

use super::errors::ErrorParts;
use super::floquet::{Floquet, Stability, UNIT_CIRCLE_TOL};
use super::normal_form::{normal_form, NormalForm};
use super::shooting::{
    least_squares, norm_inf, unit_tangent, Closure, Evaluation, Periodic, PeriodicOrbit, Shooting,
    ShootingOptions,
};
use super::PeriodicError;
use crate::observe::{Cancel, Observer};
use nalgebra::{Complex, DMatrix, DVector};
use serde::Serialize;
use walk::continue_from;

mod error;
mod switch;
mod walk;

pub use switch::{switch_branch_point, BranchSwitch};

/// The system and closure at each parameter value: one member of the family per p.
pub trait Family: Sync {
    type Sys: Periodic;
    fn at(&self, p: f64) -> Result<(Self::Sys, Closure), PeriodicError>;
}

impl<S: Periodic, F: Fn(f64) -> Result<(S, Closure), PeriodicError> + Sync> Family for F {
    type Sys = S;
    fn at(&self, p: f64) -> Result<(S, Closure), PeriodicError> {
        self(p)
    }
}

/// How far and how finely a branch is followed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContinuationOptions {
    /// The parameter range; the branch stops on leaving it.
    pub min: f64,
    pub max: f64,
    /// Most points on the branch (the start included).
    pub points: usize,
    /// First, smallest and largest arclength steps (in the unknowns' own units).
    pub step: f64,
    pub min_step: f64,
    pub max_step: f64,
    /// Start towards increasing (true) or decreasing parameter.
    pub increasing: bool,
    /// A located bifurcation's parameter is known to within this.
    pub locate_tolerance: f64,
    /// Locate bifurcations (false: classify the points only).
    pub locate: bool,
}

impl Default for ContinuationOptions {
    fn default() -> Self {
        ContinuationOptions {
            min: f64::NEG_INFINITY,
            max: f64::INFINITY,
            points: 200,
            step: 0.01,
            min_step: 1e-8,
            max_step: 0.1,
            increasing: true,
            locate_tolerance: 1e-9,
            locate: true,
        }
    }
}

impl ContinuationOptions {
    pub fn check(&self) -> Result<(), PeriodicError> {
        if self.min.is_nan() || self.max.is_nan() || self.min >= self.max {
            return Err(PeriodicError::invalid("max", "the range needs min < max"));
        }
        if self.points < 2 || self.points > 1_000_000 {
            return Err(PeriodicError::invalid("points", "must be 2 ..= 1000000"));
        }
        for (f, v) in [
            ("step", self.step),
            ("min_step", self.min_step),
            ("max_step", self.max_step),
            ("locate_tolerance", self.locate_tolerance),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(PeriodicError::invalid(f, "must be finite and > 0"));
            }
        }
        // Below the floats' spacing over the range a parameter cannot be located.
        let scale = [self.min, self.max]
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, |a, v| a.max(v.abs()));
        let floor = 4.0 * spacing(scale);
        if self.locate_tolerance < floor {
            return Err(PeriodicError::invalid(
                "locate_tolerance",
                format!(
                    "must be >= {floor:.1e}: four times the floating-point spacing of the parameter over the range (got {:e})",
                    self.locate_tolerance
                ),
            ));
        }
        if !(self.min_step <= self.step && self.step <= self.max_step) {
            return Err(PeriodicError::invalid(
                "step",
                "must lie in min_step ..= max_step",
            ));
        }
        Ok(())
    }
}

/// One point of a branch.
#[derive(Debug, Clone, Serialize)]
pub struct BranchPoint {
    pub parameter: f64,
    pub orbit: PeriodicOrbit,
    /// The arclength from the branch's start.
    pub arclength: f64,
}

/// What happens at a bifurcation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BifurcationKind {
    /// A multiplier through +1 where the branch turns back in the parameter.
    Fold,
    /// A multiplier through +1 where the branch goes on (pitchfork or transcritical: another
    /// branch crosses).
    BranchPoint,
    /// A multiplier through −1.
    PeriodDoubling,
    /// A complex pair through the unit circle (a dissipative orbit).
    NeimarkSacker,
    /// A Hamiltonian orbit's pair leaving (or joining) the unit circle off the real axis.
    KreinCollision,
}

impl BifurcationKind {
    pub fn name(self) -> &'static str {
        match self {
            BifurcationKind::Fold => "fold",
            BifurcationKind::BranchPoint => "branch-point",
            BifurcationKind::PeriodDoubling => "period-doubling",
            BifurcationKind::NeimarkSacker => "neimark-sacker",
            BifurcationKind::KreinCollision => "krein-collision",
        }
    }
}

/// A located bifurcation.
#[derive(Debug, Clone, Serialize)]
pub struct Bifurcation {
    pub kind: BifurcationKind,
    pub parameter: f64,
    /// Half the width of the final bracket in the parameter (the bisection's part of `error`).
    pub uncertainty: f64,
    /// The parameter's error bar, by component ([`super::errors`]).
    pub error: ErrorParts,
    /// The parameter re-located at each rung of the tolerance ladder (run tolerance first).
    pub ladder: [f64; 3],
    /// The ladder's rtol values.
    pub ladder_rtol: [f64; 3],
    /// The critical multiplier there (the one nearest +1, −1 or the unit circle).
    pub multiplier: [f64; 2],
    /// The branch point after which it lies.
    pub after: usize,
    /// The orbit at the located point.
    pub orbit: PeriodicOrbit,
    /// Stability before and after.
    pub from: Stability,
    pub to: Stability,
    /// The normal form there (a driven, dissipative family's fold, period doubling or
    /// Neimark–Sacker point; `None` otherwise or where it could not be computed).
    pub normal_form: Option<NormalForm>,
}

/// A continued branch.
#[derive(Debug, Clone, Serialize)]
pub struct Branch {
    pub points: Vec<BranchPoint>,
    pub bifurcations: Vec<Bifurcation>,
    /// Why the branch ended ("range", "points", or the corrector's failure).
    pub ended: String,
}

/// The features of one point that a bifurcation changes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Features {
    plus: f64,
    minus: f64,
    outside: usize,
    dp: f64,
}

fn features(f: &Floquet, dp: f64, hamiltonian: bool) -> Features {
    let mus: Vec<Complex<f64>> = f.multipliers.iter().map(|m| m.complex()).collect();
    let prod = |shift: f64| -> f64 {
        mus.iter()
            .fold(Complex::new(1.0, 0.0), |a, m| a * (m - shift))
            .re
    };
    let margin = if hamiltonian { UNIT_CIRCLE_TOL } else { 0.0 };
    Features {
        plus: prod(1.0),
        minus: prod(-1.0),
        outside: mus.iter().filter(|m| m.norm() > 1.0 + margin).count(),
        dp,
    }
}

/// The continuation's state: the family, the shooting set-up and the current phase plane.
struct Tracker<'a, F: Family> {
    family: &'a F,
    opts: ShootingOptions,
    phase: Option<(Vec<f64>, Vec<f64>)>,
    cancel: Cancel,
}

struct Solved<S: Periodic> {
    y: Vec<f64>,
    sys: S,
    closure: Closure,
    ev: Evaluation,
    /// [F_z F_p] at y.
    jac: DMatrix<f64>,
    residuals: Vec<f64>,
}

impl<F: Family> Tracker<'_, F> {
    fn shooting<'s>(&self, sys: &'s F::Sys, closure: Closure) -> Shooting<'s, F::Sys> {
        Shooting {
            sys,
            closure,
            opts: self.opts,
            phase: self.phase.clone(),
            cancel: self.cancel.clone(),
        }
    }

    /// F and [F_z F_p] at y = (z, p).
    fn evaluate(
        &self,
        y: &[f64],
    ) -> Result<(F::Sys, Closure, Evaluation, DMatrix<f64>), PeriodicError> {
        let (z, p) = (&y[..y.len() - 1], y[y.len() - 1]);
        let (sys, closure) = self.family.at(p)?;
        let ev = self.shooting(&sys, closure).evaluate(z)?;
        let h = 1e-6 * p.abs().max(1.0);
        let side = |q: f64| -> Result<DVector<f64>, PeriodicError> {
            let (s, c) = self.family.at(q)?;
            Ok(self.shooting(&s, c).evaluate(z)?.residual)
        };
        let fp = (side(p + h)? - side(p - h)?) / (2.0 * h);
        let (rows, cols) = ev.jacobian.shape();
        let mut jac = DMatrix::zeros(rows, cols + 1);
        jac.view_mut((0, 0), (rows, cols)).copy_from(&ev.jacobian);
        jac.set_column(cols, &fp);
        Ok((sys, closure, ev, jac))
    }

    /// Newton on F(y) = 0 and tᵀ(y − base) = s from `guess`.
    fn correct(
        &self,
        guess: Vec<f64>,
        base: &[f64],
        t: &DVector<f64>,
        s: f64,
    ) -> Result<Solved<F::Sys>, PeriodicError> {
        let mut y = guess;
        let mut residuals = Vec::new();
        for _ in 0..=self.opts.max_iterations.min(12) {
            let (sys, closure, ev, jac) = self.evaluate(&y)?;
            let arc: f64 = y
                .iter()
                .zip(base)
                .zip(t.iter())
                .map(|((a, b), c)| (a - b) * c)
                .sum::<f64>()
                - s;
            let res = norm_inf(&ev.residual).max(arc.abs());
            residuals.push(res);
            if res <= self.opts.tolerance {
                return Ok(Solved {
                    y,
                    sys,
                    closure,
                    ev,
                    jac,
                    residuals,
                });
            }
            if residuals.len() > 2 && res > 0.5 * residuals[residuals.len() - 2] {
                break;
            }
            let (rows, cols) = jac.shape();
            let mut a = DMatrix::zeros(rows + 1, cols);
            a.view_mut((0, 0), (rows, cols)).copy_from(&jac);
            a.set_row(rows, &t.transpose());
            let mut b = DVector::zeros(rows + 1);
            b.rows_mut(0, rows).copy_from(&(-&ev.residual));
            b[rows] = -arc;
            let d = least_squares(&a, &b, &self.cancel)?;
            for (yi, di) in y.iter_mut().zip(d.iter()) {
                *yi += di;
            }
        }
        Err(PeriodicError::corrector("the corrector", &residuals))
    }

    /// The unit tangent at a solution, oriented along `prev`.
    fn tangent(
        &self,
        jac: &DMatrix<f64>,
        prev: &DVector<f64>,
    ) -> Result<DVector<f64>, PeriodicError> {
        // least_squares's own cut: 1e-14 of the largest singular value per dimension.
        let cut = 1e-14 * jac.nrows().max(jac.ncols()) as f64;
        unit_tangent(jac, prev, &self.cancel, cut)
    }

    /// The verified orbit of a solution (`shorter`: a shorter period is allowed, at the start
    /// of a switched branch).
    fn point(
        &self,
        solved: &Solved<F::Sys>,
        shorter: bool,
    ) -> Result<PeriodicOrbit, PeriodicError> {
        let z = &solved.y[..solved.y.len() - 1];
        self.shooting(&solved.sys, solved.closure).orbit(
            z,
            &solved.ev,
            solved.residuals.clone(),
            shorter,
        )
    }
}

/// Continues the branch of `family` through the orbit `start` at parameter `p0` (a converged
/// orbit of `family.at(p0)`, from [`super::find`]). Progress counts branch points;
/// a stop request ends the branch early (`ended = "interrupted"`).
pub fn continue_branch<F: Family>(
    family: &F,
    start: &PeriodicOrbit,
    p0: f64,
    shooting: &ShootingOptions,
    opts: &ContinuationOptions,
    observer: &mut dyn Observer,
) -> Result<Branch, PeriodicError> {
    continue_from(family, start, p0, None, shooting, opts, observer)
}

/// Continues the doubled branch born at a period doubling `bif` of a driven family's branch
/// (`family` as given for the period-1 orbits; the closure's k follows the doubling orbit's
/// period): the period-2k orbits, started from the located point along the critical
/// eigenvector.
pub fn switch_period_doubling<F: Family>(
    family: &F,
    bif: &Bifurcation,
    shooting: &ShootingOptions,
    opts: &ContinuationOptions,
    observer: &mut dyn Observer,
) -> Result<Branch, PeriodicError> {
    if bif.kind != BifurcationKind::PeriodDoubling {
        return Err(PeriodicError::invalid("switch", "needs a period doubling"));
    }
    let doubled = |p: f64| -> Result<(F::Sys, Closure), PeriodicError> {
        let (s, c) = family.at(p)?;
        match c {
            Closure::Driven { drive_period, .. } => {
                // Twice the period of the orbit that doubles (itself k·T_drive).
                let k = (2.0 * bif.orbit.period / drive_period).round() as usize;
                Ok((s, Closure::Driven { drive_period, k }))
            }
            _ => Err(PeriodicError::invalid("switch", "period doubling of an autonomous family is not supported; seed the doubled orbit with `find`")),
        }
    };
    // The eigenvector of the multiplier nearest −1.
    let m = &bif.orbit.monodromy;
    let n = m.nrows();
    let shifted = m + DMatrix::identity(n, n);
    let svd = shifted
        .try_svd(false, true, f64::EPSILON, 100 * n.max(1))
        .ok_or_else(|| {
            PeriodicError::NotConverged(
                "the SVD of M + I at the period doubling did not converge".into(),
            )
        })?;
    let vt = svd.v_t.expect("asked for V");
    let (imin, _) =
        svd.singular_values
            .iter()
            .enumerate()
            .fold(
                (0, f64::INFINITY),
                |b, (i, &s)| if s < b.1 { (i, s) } else { b },
            );
    let v: Vec<f64> = vt.row(imin).iter().copied().collect();
    let mut dir = DVector::zeros(n + 1);
    for i in 0..n {
        dir[i] = v[i];
    }
    let mut start = bif.orbit.clone();
    start.period *= 2.0;
    continue_from(
        &doubled,
        &start,
        bif.parameter,
        Some(dir),
        shooting,
        opts,
        observer,
    )
}

/// The spacing of the floats around `p`: how finely a parameter near `p` can be told apart.
pub fn spacing(p: f64) -> f64 {
    (f64::EPSILON * p.abs()).max(f64::MIN_POSITIVE)
}

/// The bifurcations whose test function changes between two points.
fn crossings(a: &Features, b: &Features, hamiltonian: bool) -> Vec<BifurcationKind> {
    let mut out = Vec::new();
    let plus = a.plus.signum() != b.plus.signum();
    let minus = a.minus.signum() != b.minus.signum();
    if plus {
        out.push(if a.dp.signum() != b.dp.signum() {
            BifurcationKind::Fold
        } else {
            BifurcationKind::BranchPoint
        });
    }
    if minus {
        out.push(BifurcationKind::PeriodDoubling);
    }
    if !plus && !minus && a.outside != b.outside {
        out.push(if hamiltonian {
            BifurcationKind::KreinCollision
        } else {
            BifurcationKind::NeimarkSacker
        });
    }
    out
}

/// Bisection in the arclength from `from` (along `t`, up to `ds`, where the parameter is
/// `p_end`) for the point where `kind`'s test function changes, to `tol` in the parameter.
fn locate<F: Family>(
    tracker: &Tracker<'_, F>,
    from: &Solved<F::Sys>,
    t: &DVector<f64>,
    (ds, p_end): (f64, f64),
    kind: BifurcationKind,
    start: &Features,
    tol: f64,
) -> Result<Bifurcation, PeriodicError> {
    let dim = from.y.len();
    let hamiltonian = from.sys.hamiltonian();
    let side = |f: &Features| -> bool {
        match kind {
            BifurcationKind::Fold | BifurcationKind::BranchPoint => {
                f.plus.signum() == start.plus.signum()
            }
            BifurcationKind::PeriodDoubling => f.minus.signum() == start.minus.signum(),
            _ => f.outside == start.outside,
        }
    };
    let (mut lo, mut hi) = (0.0, ds);
    let mut p_lo = from.y[dim - 1];
    // The last corrected midpoint: its orbit, its solution and its arclength.
    let mut best: Option<(PeriodicOrbit, Solved<F::Sys>, f64)> = None;
    let mut p_hi = p_end;
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        let guess: Vec<f64> = from
            .y
            .iter()
            .zip(t.iter())
            .map(|(a, b)| a + mid * b)
            .collect();
        // A midpoint the corrector cannot settle (the integration's noise floor near the
        // tolerance) ends the bisection: the bracket so far is the answer, its half-width the
        // reported uncertainty.
        let s = match tracker.correct(guess, &from.y, t, mid) {
            Ok(s) => s,
            Err(PeriodicError::NotConverged(_)) if best.is_some() => break,
            Err(e) => return Err(e),
        };
        let t_mid = tracker.tangent(&s.jac, t)?;
        let orbit = match tracker.point(&s, false) {
            Ok(o) => o,
            Err(PeriodicError::NotConverged(_) | PeriodicError::Unverified(_))
                if best.is_some() =>
            {
                break
            }
            Err(e) => return Err(e),
        };
        let f = features(&orbit.floquet, t_mid[dim - 1], hamiltonian);
        let p = s.y[dim - 1];
        if side(&f) {
            lo = mid;
            p_lo = p;
        } else {
            hi = mid;
            p_hi = p;
        }
        best = Some((orbit, s, mid));
        if (p_hi - p_lo).abs() <= tol || hi - lo <= 1e-15 * ds.max(1.0) {
            break;
        }
    }
    let (orbit, solved, s_loc) = best.expect("at least one bisection step");
    let target = match kind {
        BifurcationKind::Fold | BifurcationKind::BranchPoint => Some(1.0),
        BifurcationKind::PeriodDoubling => Some(-1.0),
        _ => None,
    };
    let critical = orbit
        .floquet
        .multipliers
        .iter()
        .map(|m| m.complex())
        .min_by(|a, b| {
            let d = |m: &Complex<f64>| match target {
                Some(c) => (m - c).norm(),
                None => (m.norm() - 1.0).abs() + if m.im.abs() < 1e-12 { 1.0 } else { 0.0 },
            };
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(Complex::new(f64::NAN, f64::NAN));
    // Never below the parameter's floating-point spacing: a bracket that closed to a single
    // float still knows the parameter only to that.
    let uncertainty = (0.5 * (p_hi - p_lo).abs()).max(spacing(0.5 * (p_lo + p_hi)));
    let (error, ladder, ladder_rtol) =
        error::location_error(tracker, from, t, (&solved, s_loc, ds), kind, uncertainty)?;
    // At the orbit's own parameter (within the bracket). A coefficient that cannot be computed
    // (a strong resonance, a double multiplier) leaves the bifurcation without one.
    let normal_form = match normal_form(
        tracker.family,
        solved.y[dim - 1],
        kind,
        &orbit,
        &tracker.opts,
        &tracker.cancel,
    ) {
        Ok(nf) => nf,
        Err(PeriodicError::Interrupted) => return Err(PeriodicError::Interrupted),
        Err(_) => None,
    };
    Ok(Bifurcation {
        kind,
        parameter: 0.5 * (p_lo + p_hi),
        uncertainty,
        error,
        ladder,
        ladder_rtol,
        multiplier: [critical.re, critical.im],
        after: 0,
        from: orbit.floquet.stability,
        to: orbit.floquet.stability,
        orbit,
        normal_form,
    })
}
