//! Curves of bifurcations of a driven orbit in two parameters: the period-doubling,
//! fold and branch-point curves that stability charts draw (Mathieu's tongues, the Kapitza
//! window's edges, a cascade's first doubling over (A, ω_D)).
//!
//! A located bifurcation of a one-parameter branch (multiplier −1 or +1) is continued in
//! (p₁, p₂) by pseudo-arclength on the minimally augmented system ([`system`]): the shooting
//! equations F(z, p) = 0 and the bordered test function g(z, p) = 0, n + 1 equations in the
//! n + 2 unknowns y = (z, p₁, p₂). The first point is corrected with p₂ held at its value (the
//! one-parameter branch varied p₁); from there the walk predicts along the unit null vector of
//! ∂(F, g)/∂y and corrects with Newton on (F, g) and the arclength condition, growing the step
//! after an easy correction and halving it after a failed one, until the curve leaves the
//! parameter box (the last point landed on its edge), has its points, or the test function
//! loses regularity (the bordered matrix turns singular: M ∓ I with a second null direction).
//!
//! A Neimark–Sacker point (a complex pair e^{±iθ} on the unit circle) is continued the same way
//! with C₂(M) − I in place of M ∓ I ([`system`]); each point records κ = cos θ, and a start
//! whose pair with product 1 is real (a neutral saddle) is refused.
//!
//! At every accepted point the curve's codimension-2 test functions are evaluated; a sign
//! change over a step is located on the arclength and written to [`Curve::codim2`]
//! ([`codim2`]). The walk stops at the strong resonances where the curve ends or changes
//! nature (1:1 and 1:2 on an NS curve: past them the pair is real and the curve is a neutral
//! saddle's; 1:2 on a period-doubling curve, where M + I's rank can drop by two) and goes on
//! through the others (a cusp of folds onto the other fold curve, 1:3, 1:4, fold–flip,
//! fold–NS, flip–NS, 1:1 on a fold curve).
//!
//! A multiplier +1 where the orbit persists on both sides (a symmetric orbit's pitchfork, like
//! the hanging or upright pendulum's on a vibrated pivot) makes [F_z F_p] rank-deficient along
//! the whole curve: the curve is then a branch-point curve. The corrector's and the tangent's
//! least-squares solves drop the singular values below [`RANK_CUT`] of the largest, so the walk
//! stays on the orbit it started from (the minimal-norm step never moves along the symmetry-
//! breaking null direction, on which F vanishes to third order) and the curve is that of the
//! symmetric orbit's branch point. F pins the orbit only to third order along that direction
//! (a 10⁻⁴ drift of the upright pendulum's θ = π leaves F below 10⁻¹²), so the corrector of a
//! branch-point curve also holds z's component along c (M − I's right null vector) at the last
//! point's: exact for a symmetric orbit, which stays in the symmetric subspace, c being
//! across it.

mod codim2;
mod system;

pub use codim2::{Codim2, NormalForm};
pub use system::{compound, Family2};

use super::continuation::BifurcationKind;
use super::floquet::Stability;
use super::shooting::{
    least_squares_cut, norm_inf, unit_tangent, Periodic, PeriodicOrbit, Shooting,
};
use super::{PeriodicError, ShootingOptions};
use crate::observe::{Cancel, Control, Observer};
use codim2::{changed, Context};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use system::{Border, Extended, System, Test};

/// Singular values below this fraction of the largest are treated as zero in the corrector's
/// and the tangent's solves (a branch-point curve's symmetric null direction).
pub const RANK_CUT: f64 = 1e-9;

/// A located zero of a normal-form coefficient is kept only where the coefficient there is
/// below this fraction of its larger value at the step's ends.
pub const NORMAL_FORM_ZERO: f64 = 0.1;

/// [`persists`]' threshold.
pub const PERSISTS: f64 = 1e-6;

/// How far and how finely a curve is followed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurveOptions {
    /// The parameter box [min₁, min₂] ..= [max₁, max₂]; the curve stops on leaving it.
    pub min: [f64; 2],
    pub max: [f64; 2],
    /// Most points on the curve (the start included).
    pub points: usize,
    /// First, smallest and largest arclength steps (in the unknowns' own units).
    pub step: f64,
    pub min_step: f64,
    pub max_step: f64,
    /// Start towards increasing (true) or decreasing second parameter.
    pub increasing: bool,
}

impl Default for CurveOptions {
    fn default() -> Self {
        CurveOptions {
            min: [f64::NEG_INFINITY; 2],
            max: [f64::INFINITY; 2],
            points: 200,
            step: 0.01,
            min_step: 1e-8,
            max_step: 0.1,
            increasing: true,
        }
    }
}

impl CurveOptions {
    /// The options' own checks, naming the field.
    pub fn check(&self) -> Result<(), PeriodicError> {
        for k in 0..2 {
            let field = ["range", "range2"][k];
            if self.min[k].is_nan() || self.max[k].is_nan() || self.min[k] >= self.max[k] {
                return Err(PeriodicError::invalid(field, "the range needs min < max"));
            }
        }
        if self.points < 2 || self.points > 1_000_000 {
            return Err(PeriodicError::invalid("points", "must be 2 ..= 1000000"));
        }
        for (f, v) in [
            ("step", self.step),
            ("min_step", self.min_step),
            ("max_step", self.max_step),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(PeriodicError::invalid(f, "must be finite and > 0"));
            }
        }
        if !(self.min_step <= self.step && self.step <= self.max_step) {
            return Err(PeriodicError::invalid(
                "step",
                "must lie in min_step ..= max_step",
            ));
        }
        Ok(())
    }

    fn inside(&self, p: [f64; 2]) -> bool {
        (0..2).all(|k| (self.min[k]..=self.max[k]).contains(&p[k]))
    }
}

/// One point of a bifurcation curve.
#[derive(Debug, Clone, Serialize)]
pub struct CurvePoint {
    pub parameters: [f64; 2],
    /// The arclength from the curve's start (in the unknowns' own units).
    pub arclength: f64,
    /// The orbit there (verified), with its multipliers.
    pub orbit: PeriodicOrbit,
    /// The continued test function g (zero to the Newton tolerance).
    pub test: f64,
    /// det(M − I) and det(M + I): the fold's and the flip's test functions, both kinds.
    pub fold_test: f64,
    pub flip_test: f64,
    /// The bordered matrix's reciprocal condition (the test function's regularity).
    pub regularity: f64,
    pub stability: Stability,
    /// A Neimark–Sacker curve's κ = cos θ of its pair e^{±iθ} (None on the other kinds).
    pub kappa: Option<f64>,
}

/// A continued bifurcation curve.
#[derive(Debug, Clone, Serialize)]
pub struct Curve {
    /// Fold, branch point (a multiplier +1 where the orbit persists), period doubling or
    /// Neimark–Sacker.
    pub kind: BifurcationKind,
    pub points: Vec<CurvePoint>,
    /// The codimension-2 points located along it, in order ([`codim2`]'s table).
    pub codim2: Vec<Codim2>,
    /// Why the curve ended: "range", "points", "interrupted", a codimension-2 point where
    /// the curve ends or changes nature, the loss of the test function's regularity, or the
    /// corrector's failure.
    pub ended: String,
}

/// Continues the bifurcation of kind `kind` (fold, branch point, period doubling or
/// Neimark–Sacker) of the driven orbit near `x0` at parameters `p0` in both parameters of
/// `family`. `x0` need only be near the bifurcating orbit (a located bifurcation's orbit is);
/// the first point is corrected with p₂ fixed. Progress counts curve points; a stop ends the
/// curve (`ended = "interrupted"`). The codimension-2 points that need a normal form
/// (degenerate flip, Chenciner) are located where the stroboscopic map's coefficient
/// ([`super::normal_form::CurveNormalForm`]) changes sign; [`continue_curve_with`] takes
/// another hook, or none.
pub fn continue_curve<F: Family2>(
    family: &F,
    kind: BifurcationKind,
    x0: &[f64],
    p0: [f64; 2],
    shooting: &ShootingOptions,
    opts: &CurveOptions,
    observer: &mut dyn Observer,
) -> Result<Curve, PeriodicError> {
    let hook = super::normal_form::CurveNormalForm {
        shooting: *shooting,
        cancel: observer.cancel(),
    };
    continue_curve_with(family, kind, x0, p0, shooting, opts, Some(&hook), observer)
}

/// [`continue_curve`] with a normal-form coefficient along the curve (a period-doubling
/// curve's degenerate flip, a Neimark–Sacker curve's Chenciner point where it vanishes).
#[allow(clippy::too_many_arguments)]
pub fn continue_curve_with<F: Family2>(
    family: &F,
    kind: BifurcationKind,
    x0: &[f64],
    p0: [f64; 2],
    shooting: &ShootingOptions,
    opts: &CurveOptions,
    normal_form: Option<&dyn NormalForm<F::Sys>>,
    observer: &mut dyn Observer,
) -> Result<Curve, PeriodicError> {
    opts.check()?;
    shooting.check()?;
    if shooting.segments != 1 {
        return Err(PeriodicError::invalid(
            "segments",
            "a bifurcation curve shoots with one segment",
        ));
    }
    let test = match kind {
        BifurcationKind::Fold | BifurcationKind::BranchPoint => Test::Shift(1.0),
        BifurcationKind::PeriodDoubling => Test::Shift(-1.0),
        BifurcationKind::NeimarkSacker => Test::Compound,
        other => {
            return Err(PeriodicError::invalid(
                "bifurcation",
                format!(
                    "a {} has no curve here (folds, branch points, period doublings and Neimark–Sacker points do)",
                    other.name()
                ),
            ))
        }
    };
    if !opts.inside(p0) {
        return Err(PeriodicError::invalid(
            "range2",
            format!(
                "the start ({}, {}) lies outside the parameter box",
                p0[0], p0[1]
            ),
        ));
    }
    let system = System {
        family,
        opts: *shooting,
        cancel: observer.cancel(),
    };
    let n = x0.len();
    let d = n + 2;
    let mut y: Vec<f64> = x0.to_vec();
    y.extend_from_slice(&p0);
    // The border from the start's monodromy.
    let (sys0, closure0) = family.at(p0)?;
    let ev0 = Shooting {
        sys: &sys0,
        closure: closure0,
        opts: *shooting,
        phase: None,
        cancel: system.cancel.clone(),
    }
    .evaluate(x0)?;
    let mut border = Border::at(&ev0.segments[0].jacobian, test)?;
    // The first point: p₂ held where it is.
    let mut e2 = DVector::zeros(d);
    e2[d - 1] = 1.0;
    // A multiplier +1: a fold, or a branch point where the orbit persists (classified at the
    // start, before the corrector can drift along the symmetry-breaking direction).
    let kind = match kind {
        BifurcationKind::PeriodDoubling | BifurcationKind::NeimarkSacker => kind,
        _ if persists(&system.evaluate(&y, &border)?.jacobian, &border.b, &y) => {
            BifurcationKind::BranchPoint
        }
        _ => BifurcationKind::Fold,
    };
    let pin0 = (kind == BifurcationKind::BranchPoint).then_some((&border.c, &y[..n]));
    let first = correct(&system, &border, y.clone(), &y, &e2, 0.0, pin0)?;
    let orient = if opts.increasing { e2.clone() } else { -&e2 };
    let mut t = tangent(&first.ext.jacobian, &orient, &system.cancel)?;
    let ctx = Context {
        kind,
        slots: codim2::slots(kind),
        hamiltonian: first.ext.sys.hamiltonian(),
        normal_form,
    };
    let (mu, mut vals) = tests_at(&ctx, &first, &t)?;
    if kind == BifurcationKind::NeimarkSacker && !codim2::complex_pair(&mu, &[]) {
        return Err(PeriodicError::invalid(
            "bifurcation",
            format!(
                "the start ({}, {}) is not a Neimark–Sacker point: the multipliers whose product is 1 are real (a neutral saddle)",
                first.y[n], first.y[n + 1]
            ),
        ));
    }
    let mut found: Vec<Codim2> = Vec::new();
    let mut walk = Vec::with_capacity(opts.points.min(4096));
    let orbit = verified(&system, &first.y, &first.ext)?;
    walk.push(point(&first, orbit, 0.0, kind));
    border = border.refreshed(&first.ext.bordered);
    let mut current = first;
    let mut ds = opts.step;
    let mut arclength = 0.0;
    observer.start(opts.points as u64, "points");
    let ended = loop {
        if walk.len() >= opts.points {
            break "points".to_string();
        }
        if observer.advance(walk.len() as u64) == Control::Stop {
            break "interrupted".to_string();
        }
        let base = current.y.clone();
        let guess: Vec<f64> = base.iter().zip(t.iter()).map(|(a, b)| a + ds * b).collect();
        let pin = (kind == BifurcationKind::BranchPoint).then_some((&border.c, &base[..n]));
        let next = match correct(&system, &border, guess, &base, &t, ds, pin) {
            Ok(s) => s,
            Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
            Err(e @ PeriodicError::Invalid(_)) => return Err(e),
            Err(e) => {
                ds *= 0.5;
                if ds < opts.min_step {
                    break format!("the step fell below min_step: {e}");
                }
                continue;
            }
        };
        // A step that leaves the box lands on its edge: the point there, and the end.
        let (next, step, last) = if opts.inside([next.y[n], next.y[n + 1]]) {
            (next, ds, false)
        } else {
            match land(&system, &border, opts, &base, next, &t, pin) {
                Ok(Some((s, step))) => (s, step, true),
                Ok(None) => break "range".to_string(),
                Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
                Err(e) => return Err(e),
            }
        };
        let p = [next.y[n], next.y[n + 1]];
        let rcond = next.ext.bordered.rcond;
        let t_next = match tangent(&next.ext.jacobian, &t, &system.cancel) {
            Ok(t) => t,
            Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
            Err(e) => return Err(e),
        };
        // The codimension-2 points on the step: each test function's sign change located,
        // in order along the step, up to the first where the curve stops.
        let (_, vals_next) = match tests_at(&ctx, &next, &t_next) {
            Ok(v) => v,
            Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
            Err(e) => break format!("the test functions at ({}, {}) failed: {e}", p[0], p[1]),
        };
        let step_pin = (kind == BifurcationKind::BranchPoint).then_some((&border.c, &base[..n]));
        let located = match codim2_on_step(
            &system,
            &border,
            &ctx,
            &current,
            (&t, &t_next),
            (step, p),
            &vals,
            &vals_next,
            step_pin,
        ) {
            Ok(l) => l,
            Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
            Err(e) => {
                break format!(
                    "a codimension-2 point after ({}, {}) was not located: {e}",
                    current.y[n],
                    current.y[n + 1]
                )
            }
        };
        let mut stop = None;
        for (slot, l) in located {
            let c = Codim2 {
                kind: slot.name,
                parameters: [l.solved.y[n], l.solved.y[n + 1]],
                x0: l.solved.y[..n].to_vec(),
                arclength: arclength + l.s,
                multipliers: l.mu.iter().map(|m| [m.re, m.im]).collect(),
                test: l.value,
                bracket: l.bracket,
                uncertainty: l.uncertainty,
                stops: slot.stops,
            };
            found.push(c);
            if slot.stops {
                stop = Some(l);
                break;
            }
        }
        if let Some(l) = stop {
            let c = found.last().expect("pushed");
            let ended = format!(
                "the codimension-2 point {} at ({}, {})",
                c.kind, c.parameters[0], c.parameters[1]
            );
            match verified(&system, &l.solved.y, &l.solved.ext) {
                Ok(o) => walk.push(point(&l.solved, o, arclength + l.s, kind)),
                Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
                Err(e) => break format!("{ended}, whose orbit failed verification: {e}"),
            }
            break ended;
        }
        if rcond < 1e-10 {
            break format!(
                "the test function lost regularity at ({}, {}): the bordered matrix of {} is singular (reciprocal condition {rcond:.1e}), {} has a second null direction",
                p[0],
                p[1],
                test.name(),
                test.name(),
            );
        }
        let orbit = match verified(&system, &next.y, &next.ext) {
            Ok(o) => o,
            Err(PeriodicError::Interrupted) => break "interrupted".to_string(),
            Err(e) => break format!("the point at ({}, {}) failed verification: {e}", p[0], p[1]),
        };
        arclength += step;
        walk.push(point(&next, orbit, arclength, kind));
        vals = vals_next;
        border = border.refreshed(&next.ext.bordered);
        if next.iterations <= 3 {
            ds = (ds * 1.3).min(opts.max_step);
        }
        t = t_next;
        current = next;
        if last {
            break "range".to_string();
        }
    };
    observer.finish();
    Ok(Curve {
        kind,
        points: walk,
        codim2: found,
        ended,
    })
}

/// The multipliers and test functions at a solved point with tangent `t` (the cusp's test
/// measured along t's own parameter part: its value here is |t_p|).
fn tests_at<S: Periodic>(
    ctx: &Context<'_, S>,
    s: &Solved<S>,
    t: &DVector<f64>,
) -> Result<(Vec<nalgebra::Complex<f64>>, Vec<f64>), PeriodicError> {
    codim2::values(
        ctx,
        &s.y,
        &s.ext.sys,
        s.ext.closure,
        &s.ext.monodromy,
        t,
        codim2::unit_p(t),
    )
}

/// A located codimension-2 point and its test function.
type Found<S> = (codim2::Slot, codim2::Located<S>);

/// The codimension-2 points between `from` (test values `v0`) and the next point (arclength
/// `step` along `t`, parameters `p1`, values `v1`), located and in order along the step;
/// a fold–NS or flip–NS whose pair is real there (a neutral saddle) is dropped.
#[allow(clippy::too_many_arguments)]
fn codim2_on_step<F: Family2>(
    system: &System<'_, F>,
    border: &Border,
    ctx: &Context<'_, F::Sys>,
    from: &Solved<F::Sys>,
    (t, t1): (&DVector<f64>, &DVector<f64>),
    (step, p1): (f64, [f64; 2]),
    v0: &[f64],
    v1: &[f64],
    pin: Option<(&DVector<f64>, &[f64])>,
) -> Result<Vec<Found<F::Sys>>, PeriodicError> {
    let n = from.y.len() - 2;
    let mut out = Vec::new();
    for (k, slot) in ctx.slots.iter().enumerate() {
        // The cusp's test along this step: t_p · u, u the unit t_p at the step's start.
        let (f0, f1) = if slot.name == "cusp" {
            let u = codim2::unit_p(t);
            (t[n].hypot(t[n + 1]), t1[n] * u[0] + t1[n + 1] * u[1])
        } else {
            (v0[k], v1[k])
        };
        if !changed(f0, f1) {
            continue;
        }
        let Some(l) = codim2::locate(system, border, ctx, k, from, t, (step, f0, f1, p1), pin)?
        else {
            continue;
        };
        // A normal-form coefficient's sign change must be a zero: where the computed
        // coefficient jumps across the step (its finite differences switching regime) the
        // located value stays of the size of the ends, and no point is reported.
        if matches!(slot.name, "degenerate-flip" | "chenciner")
            && l.value.abs() > NORMAL_FORM_ZERO * f0.abs().max(f1.abs())
        {
            continue;
        }
        if matches!(slot.name, "fold-ns" | "flip-ns") && ctx.kind != BifurcationKind::NeimarkSacker
        {
            let crit = codim2::critical(ctx.kind, &l.mu);
            if !codim2::complex_pair(&l.mu, &crit) {
                continue;
            }
        }
        out.push((*slot, l));
    }
    out.sort_by(|a, b| a.1.s.total_cmp(&b.1.s));
    Ok(out)
}

/// A corrected point of the extended system.
struct Solved<S: super::Periodic> {
    y: Vec<f64>,
    ext: Extended<S>,
    iterations: usize,
    residuals: Vec<f64>,
}

/// Newton on (F, g) = 0 and rowᵀ(y − base) = s from `guess`; on a branch-point curve
/// (`pin`, the right null vector c of M − I) also cᵀ(z − z_base) = 0 (Gauss–Newton on the
/// consistent overdetermined system).
fn correct<F: Family2>(
    system: &System<'_, F>,
    border: &Border,
    mut y: Vec<f64>,
    base: &[f64],
    row: &DVector<f64>,
    s: f64,
    pin: Option<(&DVector<f64>, &[f64])>,
) -> Result<Solved<F::Sys>, PeriodicError> {
    let d = y.len();
    let extra = usize::from(pin.is_some());
    let mut residuals = Vec::new();
    for it in 0..=system.opts.max_iterations.min(12) {
        let ext = system.evaluate(&y, border)?;
        let arc: f64 = y
            .iter()
            .zip(base)
            .zip(row.iter())
            .map(|((a, b), c)| (a - b) * c)
            .sum::<f64>()
            - s;
        // g is held to the tolerance relative to M's size (M's own rounding grows with it).
        let n = d - 2;
        let gain = ext.monodromy.amax().max(1.0);
        let pinned = pin.map_or(0.0, |(c, z)| {
            (0..n).map(|i| c[i] * (y[i] - z[i])).sum::<f64>()
        });
        let res = norm_inf(&ext.residual.rows(0, n).into_owned())
            .max(ext.residual[n].abs() / gain)
            .max(arc.abs())
            .max(pinned.abs());
        residuals.push(res);
        if res <= system.opts.tolerance {
            return Ok(Solved {
                y,
                ext,
                iterations: it,
                residuals,
            });
        }
        if residuals.len() > 2 && res > 0.5 * residuals[residuals.len() - 2] {
            break;
        }
        let rows = d + extra;
        let mut a = DMatrix::zeros(rows, d);
        a.view_mut((0, 0), (d - 1, d)).copy_from(&ext.jacobian);
        a.set_row(rows - 1, &row.transpose());
        let mut b = DVector::zeros(rows);
        b.rows_mut(0, d - 1).copy_from(&(-&ext.residual));
        b[rows - 1] = -arc;
        if let Some((c, _)) = pin {
            for i in 0..n {
                a[(d - 1, i)] = c[i];
            }
            b[d - 1] = -pinned;
        }
        let step = least_squares_cut(&a, &b, &system.cancel, RANK_CUT)?;
        for (yi, di) in y.iter_mut().zip(step.iter()) {
            *yi += di;
        }
    }
    Err(PeriodicError::corrector(
        "the curve's corrector",
        &residuals,
    ))
}

/// The unit tangent of the curve at a solution (the null vector of ∂(F, g)/∂y), oriented
/// along `prev`.
fn tangent(
    jac: &DMatrix<f64>,
    prev: &DVector<f64>,
    cancel: &Cancel,
) -> Result<DVector<f64>, PeriodicError> {
    unit_tangent(jac, prev, cancel, RANK_CUT)
}

/// Whether the orbit persists through the multiplier +1 (a branch point rather than a fold):
/// the parameters do not move F across F_z's range, |ψᵀ F_{p_k}|·|p_k| ≤ [`PERSISTS`] ‖F_z‖
/// for both, ψ the left null vector of F_z = M − I (a fold's transversality makes ψᵀ F_p
/// O(1); at a symmetric orbit's branch point it vanishes, F_p being symmetric and ψ across the
/// symmetric subspace).
fn persists(jac: &DMatrix<f64>, psi: &DVector<f64>, y: &[f64]) -> bool {
    let n = psi.len();
    let fz = jac.view((0, 0), (n, n)).norm();
    (0..2).all(|k| {
        let across: f64 = (0..n).map(|i| psi[i] * jac[(i, n + k)]).sum();
        (across * y[n + k].abs().max(1e-300)).abs() <= PERSISTS * fz
    })
}

/// A point landed on the box's edge and the arclength step to it.
type Landed<S> = (Solved<S>, f64);

/// A step that left the box, landed on its edge: the point where the step first crosses a
/// bound, corrected with that parameter fixed there. `None`: the current point is already on
/// that edge (or the landing failed), and the curve ends there.
fn land<F: Family2>(
    system: &System<'_, F>,
    border: &Border,
    opts: &CurveOptions,
    base: &[f64],
    next: Solved<F::Sys>,
    t: &DVector<f64>,
    pin: Option<(&DVector<f64>, &[f64])>,
) -> Result<Option<Landed<F::Sys>>, PeriodicError> {
    let d = base.len();
    let n = d - 2;
    // The first bound crossed along the step.
    let mut best: Option<(f64, usize, f64)> = None;
    for k in 0..2 {
        let (a, b) = (base[n + k], next.y[n + k]);
        for bound in [opts.min[k], opts.max[k]] {
            if (a - bound) * (b - bound) < 0.0 || (b != a && b == bound) {
                let frac = (bound - a) / (b - a);
                if best.is_none_or(|x| frac < x.0) {
                    best = Some((frac, k, bound));
                }
            }
        }
    }
    let Some((frac, k, bound)) = best else {
        return Ok(None);
    };
    if base[n + k] == bound {
        return Ok(None);
    }
    let guess: Vec<f64> = base
        .iter()
        .zip(&next.y)
        .map(|(a, b)| a + frac * (b - a))
        .collect();
    let mut fixed = guess.clone();
    fixed[n + k] = bound;
    let mut e = DVector::zeros(d);
    e[n + k] = 1.0;
    let mut s = match correct(system, border, guess, &fixed, &e, 0.0, pin) {
        Ok(s) => s,
        Err(PeriodicError::Interrupted) => return Err(PeriodicError::Interrupted),
        Err(e @ PeriodicError::Invalid(_)) => return Err(e),
        Err(_) => return Ok(None),
    };
    s.y[n + k] = bound;
    let step: f64 =
        s.y.iter()
            .zip(base)
            .zip(t.iter())
            .map(|((a, b), c)| (a - b) * c)
            .sum();
    if step.is_nan() || step <= 0.0 || !opts.inside([s.y[n], s.y[n + 1]]) {
        return Ok(None);
    }
    Ok(Some((s, step)))
}

/// The verified orbit at a solution.
fn verified<F: Family2>(
    system: &System<'_, F>,
    y: &[f64],
    ext: &Extended<F::Sys>,
) -> Result<PeriodicOrbit, PeriodicError> {
    let n = y.len() - 2;
    Shooting {
        sys: &ext.sys,
        closure: ext.closure,
        opts: system.opts,
        phase: None,
        cancel: system.cancel.clone(),
    }
    .orbit(&y[..n], &ext.ev, Vec::new(), false)
}

fn point<S: super::Periodic>(
    s: &Solved<S>,
    mut orbit: PeriodicOrbit,
    arclength: f64,
    kind: BifurcationKind,
) -> CurvePoint {
    let n = s.y.len() - 2;
    let m = &s.ext.monodromy;
    let id = DMatrix::<f64>::identity(n, n);
    orbit.residuals = s.residuals.clone();
    let stability = orbit.floquet.stability;
    CurvePoint {
        parameters: [s.y[n], s.y[n + 1]],
        arclength,
        test: s.ext.bordered.g,
        fold_test: (m - &id).determinant(),
        flip_test: (m + &id).determinant(),
        regularity: s.ext.bordered.rcond,
        stability,
        kappa: (kind == BifurcationKind::NeimarkSacker).then(|| {
            let mu: Vec<_> = orbit
                .floquet
                .multipliers
                .iter()
                .map(|m| m.complex())
                .collect();
            codim2::kappa(&mu)
        }),
        orbit,
    }
}
