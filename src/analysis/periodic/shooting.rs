//! Periodic orbits by (multiple) shooting: damped Newton on the shooting equations, with every
//! Jacobian block the exact monodromy of a segment ([`propagate`]), never finite differences.
//!
//! The unknowns are the segment starts `x_0 … x_{m−1}` (and the period T of an autonomous
//! orbit); the equations close each segment on the next start, the last on `x_0` plus whole turns
//! of the angles (a rotating orbit returns to x_0 modulo 2π). A driven orbit's segments start at
//! t_j = j·kT_drive/m, so `x_0` is a fixed point of the k-th iterate of the stroboscopic map at
//! drive phase 0. An autonomous orbit adds a phase condition, f(x_ref)·(x_0 − x_ref) = 0 (the
//! start lies on the plane through the reference orthogonal to the flow), and fixes the energy
//! E(x_0) = E or the period; energy conservation makes one closure component redundant, so the
//! closure is kept only across ∇E(x_0) and the system is square.
//!
//! That projection is only locally faithful: any end on x_0's energy shell that agrees with x_0
//! across ∇E(x_0) zeroes it (a simple pendulum's half libration, θ(T) = −θ₀, θ̇ = 0, closes
//! "across" ∇E = (mgl sin θ₀, 0)). So a converged solution is verified before it is an orbit
//! ([`Shooting::orbit`]): the whole closure of the segments, then one integration over the whole
//! period from x_0 independent of the segments (its whole closure, that it moves, that it does
//! not repeat after T/j), and the trivial multipliers at +1.

use super::floquet::Floquet;
use super::flow::{propagate, Propagated};
use super::PeriodicError;
use crate::integrate::Method;
/// An angle wrapped into (−π, π] (by its nearest whole number of turns; the name callers know).
pub use crate::model::angle::wrap_nearest_open_closed as wrap_angle;
use crate::model::{Chain, System};
use crate::observe::{Cancel, Cancellable};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use std::f64::consts::TAU;
pub use verify::{MOTION_FACTOR, TRIVIAL_TOL, VERIFY_FACTOR};

mod verify;

/// A system whose periodic orbits can be found: what the shooting equations need beyond the
/// flow.
pub trait Periodic: System {
    /// ∇E(x), for the energy condition of an autonomous orbit.
    fn energy_gradient(&self, x: &[f64]) -> Vec<f64>;
    /// Whether the flow is Hamiltonian (undamped): its multipliers come in pairs μ, 1/μ.
    fn hamiltonian(&self) -> bool;
}

impl Periodic for Chain {
    fn energy_gradient(&self, x: &[f64]) -> Vec<f64> {
        Chain::energy_gradient(self, x)
    }
    fn hamiltonian(&self) -> bool {
        self.params().damping.is_zero()
    }
}

/// What closes the orbit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Closure {
    /// A driven system of drive period `drive_period` (s): period k·T_drive.
    Driven { drive_period: f64, k: usize },
    /// An autonomous system at fixed energy (J); the period is found.
    Energy(f64),
    /// An autonomous system at fixed period (s); the energy is found.
    Period(f64),
}

impl Closure {
    fn autonomous(&self) -> bool {
        !matches!(self, Closure::Driven { .. })
    }
}

/// How the shooting equations are set up and solved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ShootingOptions {
    /// Shooting segments m (1: single shooting; unstable orbits of chaotic systems need more).
    pub segments: usize,
    /// Converged when every residual is at most this (rad, rad/s).
    pub tolerance: f64,
    pub max_iterations: usize,
    /// The adaptive integrator's tolerances (DOP853) along the orbit and its tangent block.
    pub rtol: f64,
    pub atol: f64,
    /// Samples kept per segment (the orbit's shape; the ∫ tr J dt quadrature).
    pub samples: usize,
}

impl Default for ShootingOptions {
    fn default() -> Self {
        ShootingOptions {
            segments: 1,
            tolerance: 1e-10,
            max_iterations: 40,
            rtol: 1e-12,
            atol: 1e-12,
            samples: 64,
        }
    }
}

impl ShootingOptions {
    /// The options' own checks, naming the field.
    pub fn check(&self) -> Result<(), PeriodicError> {
        if self.segments == 0 || self.segments > 1000 {
            return Err(PeriodicError::invalid("segments", "must be 1 ..= 1000"));
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(PeriodicError::invalid(
                "tolerance",
                "must be finite and > 0",
            ));
        }
        if self.max_iterations == 0 {
            return Err(PeriodicError::invalid("max_iterations", "must be >= 1"));
        }
        for (f, v) in [("rtol", self.rtol), ("atol", self.atol)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(PeriodicError::invalid(f, "must be finite and > 0"));
            }
        }
        if self.samples == 0 || self.samples > 100_000 {
            return Err(PeriodicError::invalid("samples", "must be 1 ..= 100000"));
        }
        Ok(())
    }

    pub(crate) fn method(&self) -> Method {
        Method::Dop853 {
            rtol: self.rtol,
            atol: self.atol,
            h_max: f64::INFINITY,
        }
    }
}

/// A periodic orbit, converged.
#[derive(Debug, Clone, Serialize)]
pub struct PeriodicOrbit {
    /// The start x_0 (angles in (−π, π]); for a driven orbit at drive phase 0.
    pub x0: Vec<f64>,
    /// The period (s).
    pub period: f64,
    /// Net turns of each angle per period (a rotating orbit's winding).
    pub turns: Vec<i64>,
    /// E(x_0) (J).
    pub energy: f64,
    pub floquet: Floquet,
    /// The monodromy matrix, column-major n × n.
    #[serde(skip)]
    pub monodromy: DMatrix<f64>,
    /// Newton's residual (max norm) at each iterate, the last the converged one.
    pub residuals: Vec<f64>,
    /// The states along one period at equal times, the start and end included (row-major).
    #[serde(skip)]
    pub shape: Vec<f64>,
    /// Right-hand-side evaluations of the whole search.
    pub evaluations: u64,
    /// The verification's closure: max |x(T) − x_0| (angles less their whole turns) of one
    /// integration over the whole period from x_0, independent of the shooting segments.
    pub closure_residual: f64,
    /// What `closure_residual` was held to: [`VERIFY_FACTOR`] · max(Newton tolerance, rtol,
    /// atol) · max(1, ‖M‖∞) (an error in x_0 grows by up to ‖M‖ over the period).
    pub closure_tolerance: f64,
    /// What |μ − 1| of each trivial multiplier was held to (autonomous orbits; NaN for a driven
    /// one, which has none).
    pub trivial_tolerance: f64,
}

/// The shooting problem of one orbit.
pub(crate) struct Shooting<'a, S: Periodic> {
    pub sys: &'a S,
    pub closure: Closure,
    pub opts: ShootingOptions,
    /// The phase condition's plane: f(x_ref) and x_ref (autonomous orbits).
    pub phase: Option<(Vec<f64>, Vec<f64>)>,
    pub cancel: Cancel,
}

/// The shooting equations at one point of the unknowns.
pub(crate) struct Evaluation {
    pub residual: DVector<f64>,
    pub jacobian: DMatrix<f64>,
    pub segments: Vec<Propagated>,
    pub turns: Vec<i64>,
}

impl<S: Periodic> Shooting<'_, S> {
    /// Number of unknowns: m·n, plus T for an autonomous orbit.
    pub fn unknowns(&self) -> usize {
        let n = self.sys.dim();
        self.opts.segments * n + usize::from(self.closure.autonomous())
    }

    /// The period the unknowns `z` stand for.
    pub fn period(&self, z: &[f64]) -> f64 {
        match self.closure {
            Closure::Driven { drive_period, k } => drive_period * k as f64,
            _ => z[z.len() - 1],
        }
    }

    /// The unknowns for a start `x0` and period `period`: the segment starts along the orbit
    /// of `x0` (so that a guess needs only its start).
    pub fn initial(&self, x0: &[f64], period: f64) -> Result<Vec<f64>, PeriodicError> {
        let m = self.opts.segments;
        let mut z = Vec::with_capacity(self.unknowns());
        z.extend_from_slice(x0);
        if m > 1 {
            let p = self.segment(0, x0, period, m)?;
            let n = x0.len();
            for j in 1..m {
                z.extend_from_slice(&p.samples[j * n..(j + 1) * n]);
            }
        }
        if self.closure.autonomous() {
            z.push(period);
        }
        Ok(z)
    }

    /// Segment `j` from `x` over `period / m` (with `intervals` samples).
    fn segment(
        &self,
        j: usize,
        x: &[f64],
        period: f64,
        intervals: usize,
    ) -> Result<Propagated, PeriodicError> {
        let m = self.opts.segments as f64;
        let t0 = match self.closure {
            Closure::Driven { .. } => j as f64 * period / m,
            _ => 0.0,
        };
        let mut obs = Cancellable(self.cancel.clone());
        propagate(
            self.sys,
            &self.opts.method(),
            t0,
            x,
            period / m,
            intervals,
            &mut obs,
        )
    }

    /// The residuals and their Jacobian at `z`.
    pub fn evaluate(&self, z: &[f64]) -> Result<Evaluation, PeriodicError> {
        let n = self.sys.dim();
        let m = self.opts.segments;
        let period = self.period(z);
        if !(period.is_finite() && period > 0.0) {
            return Err(PeriodicError::NotConverged(format!(
                "the period went to {period} s"
            )));
        }
        let auto = self.closure.autonomous();
        let rows = m * n + if auto { 2 } else { 0 };
        let cols = self.unknowns();
        let mut r = DVector::zeros(rows);
        let mut jac = DMatrix::zeros(rows, cols);
        let mut segments = Vec::with_capacity(m);
        for j in 0..m {
            segments.push(self.segment(j, &z[j * n..(j + 1) * n], period, self.opts.samples)?);
        }
        // Whole turns of the angles between x_0 and the end of the last segment.
        let last = &segments[m - 1].x;
        let angles = self.sys.angles();
        let turns: Vec<i64> = (0..angles)
            .map(|i| ((last[i] - z[i]) / TAU).round() as i64)
            .collect();
        for (j, seg) in segments.iter().enumerate() {
            let next = (j + 1) % m;
            for i in 0..n {
                let wrap = if j == m - 1 && i < angles {
                    TAU * turns[i] as f64
                } else {
                    0.0
                };
                r[j * n + i] = seg.x[i] - z[next * n + i] - wrap;
            }
            jac.view_mut((j * n, j * n), (n, n))
                .copy_from(&seg.jacobian);
            for i in 0..n {
                jac[(j * n + i, next * n + i)] -= 1.0;
            }
            if auto {
                for i in 0..n {
                    jac[(j * n + i, cols - 1)] = seg.velocity[i] / m as f64;
                }
            }
        }
        if auto {
            let (f_ref, x_ref) = self
                .phase
                .as_ref()
                .expect("an autonomous orbit has a phase");
            let p = m * n;
            r[p] = (0..n).map(|i| f_ref[i] * (z[i] - x_ref[i])).sum();
            for i in 0..n {
                jac[(p, i)] = f_ref[i];
            }
            match self.closure {
                Closure::Energy(e) => {
                    r[p + 1] = self.sys.energy(0.0, &z[..n]) - e;
                    let g = self.sys.energy_gradient(&z[..n]);
                    for i in 0..n {
                        jac[(p + 1, i)] = g[i];
                    }
                }
                Closure::Period(t) => {
                    r[p + 1] = period - t;
                    jac[(p + 1, cols - 1)] = 1.0;
                }
                Closure::Driven { .. } => unreachable!(),
            }
        }
        if auto {
            // Energy conservation makes the closure's component along ∇E(x_0) redundant at a
            // solution: keep the n − 1 components across it, so that the system is square
            // (an overdetermined one stalls at its inconsistency near a branch point). At a
            // solution the dropped component vanishes too, E being conserved.
            let p = projection_across(&self.sys.energy_gradient(&z[..n]));
            let last = (m - 1) * n;
            let mut rp = DVector::zeros(rows - 1);
            let mut jp = DMatrix::zeros(rows - 1, cols);
            rp.rows_mut(0, last).copy_from(&r.rows(0, last));
            jp.view_mut((0, 0), (last, cols))
                .copy_from(&jac.view((0, 0), (last, cols)));
            rp.rows_mut(last, n - 1).copy_from(&(&p * r.rows(last, n)));
            jp.view_mut((last, 0), (n - 1, cols))
                .copy_from(&(&p * jac.view((last, 0), (n, cols))));
            rp.rows_mut(last + n - 1, 2).copy_from(&r.rows(m * n, 2));
            jp.view_mut((last + n - 1, 0), (2, cols))
                .copy_from(&jac.view((m * n, 0), (2, cols)));
            r = rp;
            jac = jp;
        }
        Ok(Evaluation {
            residual: r,
            jacobian: jac,
            segments,
            turns,
        })
    }

    /// Damped (Gauss–)Newton from `z`; the converged unknowns, their evaluation and the
    /// residual history.
    pub fn solve(
        &self,
        mut z: Vec<f64>,
    ) -> Result<(Vec<f64>, Evaluation, Vec<f64>), PeriodicError> {
        let mut ev = self.evaluate(&z)?;
        let mut res = norm_inf(&ev.residual);
        let mut history = vec![res];
        for _ in 0..self.opts.max_iterations {
            if res <= self.opts.tolerance {
                return Ok((z, ev, history));
            }
            let step = least_squares(&ev.jacobian, &(-&ev.residual), &self.cancel)?;
            // Backtrack on the residual: halve the step until it decreases (at most 12 times).
            let mut lambda = 1.0;
            let mut accepted = None;
            for _ in 0..12 {
                let trial: Vec<f64> = z
                    .iter()
                    .zip(step.iter())
                    .map(|(a, d)| a + lambda * d)
                    .collect();
                match self.evaluate(&trial) {
                    Ok(e) if norm_inf(&e.residual) < res => {
                        accepted = Some((trial, e));
                        break;
                    }
                    Err(PeriodicError::Interrupted) => return Err(PeriodicError::Interrupted),
                    _ => lambda *= 0.5,
                }
            }
            let Some((trial, e)) = accepted else {
                return Err(PeriodicError::NotConverged(format!(
                    "Newton stalled at residual {res:.3e} (no step along the Newton direction reduces it)"
                )));
            };
            z = trial;
            ev = e;
            res = norm_inf(&ev.residual);
            history.push(res);
        }
        if res <= self.opts.tolerance {
            return Ok((z, ev, history));
        }
        Err(PeriodicError::NotConverged(format!(
            "Newton did not converge in {} iterations (residual {res:.3e} > tolerance {:.1e})",
            self.opts.max_iterations, self.opts.tolerance
        )))
    }
}

/// An orthonormal basis of the vectors orthogonal to `g`, as the rows of an (n − 1) × n matrix
/// (Gram–Schmidt on the unit vectors, the one most aligned with g left out).
fn projection_across(g: &[f64]) -> DMatrix<f64> {
    let n = g.len();
    let gv = DVector::from_column_slice(g);
    let norm = gv.norm();
    let gh = if norm > 0.0 {
        gv / norm
    } else {
        DVector::zeros(n)
    };
    let skip = gh.iamax();
    let mut rows: Vec<DVector<f64>> = Vec::with_capacity(n - 1);
    for i in (0..n).filter(|&i| i != skip) {
        let mut v = DVector::from_fn(n, |r, _| if r == i { 1.0 } else { 0.0 });
        v -= &gh * gh[i];
        for b in &rows {
            v -= b * b.dot(&v);
        }
        rows.push(v.normalize());
    }
    DMatrix::from_fn(n - 1, n, |r, c| rows[r][c])
}

/// The phase plane through `x` orthogonal to the flow there.
pub(crate) fn phase_at<S: System>(sys: &S, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut f = vec![0.0; x.len()];
    let mut ws = sys.workspace();
    sys.rhs(0.0, x, &mut f, &mut ws);
    (f, x.to_vec())
}

/// A guess: a start, and (for an autonomous orbit) a period.
#[derive(Debug, Clone, PartialEq)]
pub struct Guess {
    pub x0: Vec<f64>,
    /// The period guess (s); ignored for a driven orbit, whose period is k·T_drive.
    pub period: f64,
}

/// Finds the periodic orbit of `sys` near `guess` closed by `closure`. Errors: invalid options or
/// a guess of the wrong length (naming the field); [`PeriodicError::NotConverged`] when Newton
/// fails; [`PeriodicError::Interrupted`] when `cancel` is set.
pub fn find<S: Periodic>(
    sys: &S,
    guess: &Guess,
    closure: Closure,
    opts: &ShootingOptions,
    cancel: &Cancel,
) -> Result<PeriodicOrbit, PeriodicError> {
    opts.check()?;
    check_closure(sys, guess, closure)?;
    let phase = closure.autonomous().then(|| phase_at(sys, &guess.x0));
    let shooting = Shooting {
        sys,
        closure,
        opts: *opts,
        phase,
        cancel: cancel.clone(),
    };
    let period = match closure {
        Closure::Driven { drive_period, k } => drive_period * k as f64,
        Closure::Period(t) => t,
        Closure::Energy(_) => guess.period,
    };
    let z = shooting.initial(&guess.x0, period)?;
    let (z, ev, residuals) = shooting.solve(z)?;
    shooting.orbit(&z, &ev, residuals, false)
}

/// The guess and closure's checks, naming the field.
pub(crate) fn check_closure<S: System>(
    sys: &S,
    guess: &Guess,
    closure: Closure,
) -> Result<(), PeriodicError> {
    if guess.x0.len() != sys.dim() {
        return Err(PeriodicError::invalid(
            "x0",
            format!("must have {} entries (the state)", sys.dim()),
        ));
    }
    if guess.x0.iter().any(|v| !v.is_finite()) {
        return Err(PeriodicError::invalid("x0", "must be finite"));
    }
    match closure {
        Closure::Driven { drive_period, k } => {
            if !(drive_period.is_finite() && drive_period > 0.0) {
                return Err(PeriodicError::invalid(
                    "drive",
                    "needs a drive frequency > 0",
                ));
            }
            if k == 0 || k > 1000 {
                return Err(PeriodicError::invalid("k", "must be 1 ..= 1000"));
            }
        }
        Closure::Energy(e) => {
            if !e.is_finite() {
                return Err(PeriodicError::invalid("energy", "must be finite"));
            }
            if !(guess.period.is_finite() && guess.period > 0.0) {
                return Err(PeriodicError::invalid("period", "must be finite and > 0"));
            }
        }
        Closure::Period(t) => {
            if !(t.is_finite() && t > 0.0) {
                return Err(PeriodicError::invalid("period", "must be finite and > 0"));
            }
        }
    }
    Ok(())
}

/// Systems with more entries than this are solved on a helper thread while the caller polls
/// the stop request: their SVD takes longer than a stop may wait (≈ 0.1 s at 300 × 300).
const INLINE_ENTRIES: usize = 300 * 300;

/// QR sweeps the SVD of a shooting Jacobian may take per dimension before it has failed.
const SVD_SWEEPS_PER_DIMENSION: usize = 100;

/// How often a caller waiting for a dense solve polls the stop request.
const SOLVE_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// The least-squares solution of `a x = b` (the exact solution when `a` is square and regular).
/// A large system is solved on a helper thread while `cancel` is polled: a stop request
/// returns [`PeriodicError::Interrupted`] at once (the SVD cannot poll; its thread is left to
/// finish on its own, its result dropped).
pub(crate) fn least_squares(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    cancel: &Cancel,
) -> Result<DVector<f64>, PeriodicError> {
    let size = a.nrows().max(a.ncols()) as f64;
    least_squares_cut(a, b, cancel, 1e-14 * size)
}

/// The unit null vector of the continuation Jacobian `jac` (one column more than rows: the
/// tangent of a branch or a curve at a solution), oriented along `prev`: the bordered system
/// [jac; prevᵀ] t = (0, 1), solved with singular values below `cut` of the largest cut.
pub(crate) fn unit_tangent(
    jac: &DMatrix<f64>,
    prev: &DVector<f64>,
    cancel: &Cancel,
    cut: f64,
) -> Result<DVector<f64>, PeriodicError> {
    let (rows, cols) = jac.shape();
    let mut a = DMatrix::zeros(rows + 1, cols);
    a.view_mut((0, 0), (rows, cols)).copy_from(jac);
    a.set_row(rows, &prev.transpose());
    let mut b = DVector::zeros(rows + 1);
    b[rows] = 1.0;
    let t = least_squares_cut(&a, &b, cancel, cut)?.normalize();
    if !t.iter().all(|v| v.is_finite()) {
        return Err(PeriodicError::NotConverged(
            "the tangent is not finite".into(),
        ));
    }
    Ok(if t.dot(prev) < 0.0 { -t } else { t })
}

/// [`least_squares`] with the singular values below `cut` times the largest treated as zero:
/// the minimal-norm solution off the (near-)null directions.
pub(crate) fn least_squares_cut(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    cancel: &Cancel,
    cut: f64,
) -> Result<DVector<f64>, PeriodicError> {
    let solve = move |a: DMatrix<f64>, b: &DVector<f64>| -> Result<DVector<f64>, PeriodicError> {
        // Bounded: nalgebra's plain `svd` iterates without limit (forever on a bad matrix).
        let sweeps = SVD_SWEEPS_PER_DIMENSION * a.nrows().min(a.ncols()).max(1);
        let svd = a.try_svd(true, true, f64::EPSILON, sweeps).ok_or_else(|| {
            PeriodicError::NotConverged(format!(
                "the SVD of the shooting Jacobian did not converge in {sweeps} sweeps"
            ))
        })?;
        let tol = svd.singular_values.max() * cut;
        svd.solve(b, tol).map_err(|e| {
            PeriodicError::NotConverged(format!("the shooting Jacobian is singular ({e})"))
        })
    };
    if cancel.is_set() {
        return Err(PeriodicError::Interrupted);
    }
    if a.len() <= INLINE_ENTRIES {
        return solve(a.clone(), b);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let (a, b) = (a.clone(), b.clone());
    std::thread::spawn(move || {
        // The receiver is gone when the caller was interrupted: nothing to hand back.
        let _ = tx.send(solve(a, &b));
    });
    loop {
        match rx.recv_timeout(SOLVE_POLL) {
            Ok(r) => return r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if cancel.is_set() {
                    return Err(PeriodicError::Interrupted);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PeriodicError::NotConverged(
                    "the dense solve of the shooting equations failed".into(),
                ))
            }
        }
    }
}

pub(crate) fn norm_inf(v: &DVector<f64>) -> f64 {
    v.iter().fold(0.0, |a, b| a.max(b.abs()))
}
