//! Codimension-2 points on a bifurcation curve: scalar test functions of the multipliers (and
//! of the curve's tangent) evaluated at every accepted point; a sign change between two points
//! is located by the Illinois variant of regula falsi on the arclength from the earlier point,
//! every trial point corrected onto the curve, until the bracket is narrower than the
//! corrector's tolerance (or 60 trials: the bracket reached is then the stated error bar).
//!
//! The test functions, c the critical multiplier(s) of the curve's own kind:
//!
//! | curve | point | test function | walk |
//! |---|---|---|---|
//! | fold | cusp | t_p · u: the tangent's parameter part along the last point's (it vanishes and reverses at a cusp of the parameter-plane projection, with no normal form) | goes on (along the other fold curve) |
//! | fold | 1:1 | Π_{j≠c} (μⱼ − 1) | goes on |
//! | fold | fold–flip | Π_{j≠c} (μⱼ + 1) | goes on |
//! | fold, PD | fold–NS, flip–NS | Π_{i<j; i,j≠c} (μᵢμⱼ − 1), kept where the pair is complex (a real pair μ, 1/μ is a neutral saddle, no bifurcation) | goes on |
//! | PD | fold–flip | Π_{j≠c} (μⱼ − 1) | goes on |
//! | PD | 1:2 | Π_{j≠c} (μⱼ + 1) | stops |
//! | PD | degenerate flip | the normal-form hook's coefficient | goes on |
//! | NS | 1:1, 1:2, 1:3, 1:4 | κ − 1, κ + 1, κ + ½, κ; κ = (μ₁ + μ₂)/2 of the pair whose product is nearest 1 (cos θ on the circle, (μ + 1/μ)/2 once the pair is real: smooth through 1:1 and 1:2) | stops at 1:1 and 1:2 (the NS curve ends: a neutral-saddle curve goes on), on through 1:3 and 1:4 |
//! | NS | fold–NS, flip–NS | Π_{j∉pair} (μⱼ ∓ 1) | goes on |
//! | NS | Chenciner | the normal-form hook's coefficient | goes on |
//!
//! A branch-point curve has the fold's set less the cusp. A Hamiltonian orbit's multipliers
//! come in reciprocal pairs (on a 2-dimensional fold curve the second multiplier is +1
//! throughout), so its multiplier tests are not evaluated; the cusp's is.
//!
//! The degenerate flip and the Chenciner point need normal-form coefficients (the flip's cubic,
//! the NS's first Lyapunov coefficient) that this module does not compute: they come from a
//! [`NormalForm`] hook, which [`super::continue_curve`] takes from
//! [`crate::analysis::periodic::normal_form`] (the stroboscopic map's coefficient) and
//! [`super::continue_curve_with`] from its caller; without one their slots are empty.

use super::super::continuation::BifurcationKind;
use super::super::floquet::eigenvalues;
use super::super::shooting::{Closure, Periodic};
use super::super::PeriodicError;
use super::system::{Border, System};
use super::{correct, tangent, Family2, Solved};
use nalgebra::{Complex, DMatrix, DVector};
use serde::Serialize;

/// A located codimension-2 point.
#[derive(Debug, Clone, Serialize)]
pub struct Codim2 {
    /// "cusp", "1:1", "1:2", "1:3", "1:4", "fold-flip", "fold-ns", "flip-ns",
    /// "degenerate-flip" or "chenciner".
    pub kind: &'static str,
    pub parameters: [f64; 2],
    /// The orbit's shooting unknowns there (a start for the curves that meet it).
    pub x0: Vec<f64>,
    /// The arclength from the curve's start.
    pub arclength: f64,
    /// The multipliers there, (re, im).
    pub multipliers: Vec<[f64; 2]>,
    /// The test function's value at the located point.
    pub test: f64,
    /// The final bracket's width in arclength, and the parameters' change across it: the
    /// location's error bar.
    pub bracket: f64,
    pub uncertainty: [f64; 2],
    /// Whether the curve ends here.
    pub stops: bool,
}

/// A normal-form coefficient along a curve: a period-doubling curve's cubic coefficient
/// (a degenerate flip where it vanishes) or a Neimark–Sacker curve's first Lyapunov
/// coefficient (a Chenciner point), at the orbit through `z` of `sys` at parameters `p`,
/// monodromy `monodromy`.
pub trait NormalForm<S>: Sync {
    fn coefficient(
        &self,
        kind: BifurcationKind,
        sys: &S,
        closure: Closure,
        z: &[f64],
        p: [f64; 2],
        monodromy: &DMatrix<f64>,
    ) -> Result<f64, PeriodicError>;
}

impl<S, F> NormalForm<S> for F
where
    F: Fn(
            BifurcationKind,
            &S,
            Closure,
            &[f64],
            [f64; 2],
            &DMatrix<f64>,
        ) -> Result<f64, PeriodicError>
        + Sync,
{
    fn coefficient(
        &self,
        kind: BifurcationKind,
        sys: &S,
        closure: Closure,
        z: &[f64],
        p: [f64; 2],
        monodromy: &DMatrix<f64>,
    ) -> Result<f64, PeriodicError> {
        self(kind, sys, closure, z, p, monodromy)
    }
}

/// What a slot's test function measures.
#[derive(Debug, Clone, Copy, PartialEq)]
enum What {
    Cusp,
    /// Π over the non-critical multipliers of (μ − σ).
    Other(f64),
    /// Π over the non-critical pairs of (μᵢμⱼ − 1).
    Pairs,
    /// κ − value.
    Kappa(f64),
    NormalForm,
}

/// One test function of a curve.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    pub name: &'static str,
    pub stops: bool,
    what: What,
}

/// The test functions of a curve of `kind`.
pub(super) fn slots(kind: BifurcationKind) -> Vec<Slot> {
    let s = |name, stops, what| Slot { name, stops, what };
    match kind {
        BifurcationKind::Fold | BifurcationKind::BranchPoint => {
            let mut v = vec![
                s("1:1", false, What::Other(1.0)),
                s("fold-flip", false, What::Other(-1.0)),
                s("fold-ns", false, What::Pairs),
            ];
            if kind == BifurcationKind::Fold {
                v.insert(0, s("cusp", false, What::Cusp));
            }
            v
        }
        BifurcationKind::PeriodDoubling => vec![
            s("fold-flip", false, What::Other(1.0)),
            s("1:2", true, What::Other(-1.0)),
            s("flip-ns", false, What::Pairs),
            s("degenerate-flip", false, What::NormalForm),
        ],
        _ => vec![
            s("1:1", true, What::Kappa(1.0)),
            s("1:2", true, What::Kappa(-1.0)),
            s("1:3", false, What::Kappa(-0.5)),
            s("1:4", false, What::Kappa(0.0)),
            s("fold-ns", false, What::Other(1.0)),
            s("flip-ns", false, What::Other(-1.0)),
            s("chenciner", false, What::NormalForm),
        ],
    }
}

/// The indices of the curve's critical multipliers: the one nearest +1 (fold, branch point) or
/// −1 (period doubling), or the pair whose product is nearest 1 (Neimark–Sacker).
pub(super) fn critical(kind: BifurcationKind, mu: &[Complex<f64>]) -> Vec<usize> {
    let nearest = |s: f64| {
        (0..mu.len())
            .min_by(|&i, &j| (mu[i] - s).norm().total_cmp(&(mu[j] - s).norm()))
            .into_iter()
            .collect()
    };
    match kind {
        BifurcationKind::Fold | BifurcationKind::BranchPoint => nearest(1.0),
        BifurcationKind::PeriodDoubling => nearest(-1.0),
        _ => {
            let (i, j) = nearest_pair(mu, &[]);
            vec![i, j]
        }
    }
}

/// The pair (i < j) outside `skip` whose product is nearest 1.
fn nearest_pair(mu: &[Complex<f64>], skip: &[usize]) -> (usize, usize) {
    let mut best = (0, 1, f64::INFINITY);
    for i in 0..mu.len() {
        for j in i + 1..mu.len() {
            if skip.contains(&i) || skip.contains(&j) {
                continue;
            }
            let d = (mu[i] * mu[j] - 1.0).norm();
            if d < best.2 {
                best = (i, j, d);
            }
        }
    }
    (best.0, best.1)
}

/// κ = (μ₁ + μ₂)/2 of the pair whose product is nearest 1: cos θ for a pair e^{±iθ}.
pub(super) fn kappa(mu: &[Complex<f64>]) -> f64 {
    let (i, j) = nearest_pair(mu, &[]);
    0.5 * (mu[i] + mu[j]).re
}

/// Whether the non-critical pair whose product is nearest 1 is a complex pair (a torus
/// bifurcation) rather than a real one (a neutral saddle).
pub(super) fn complex_pair(mu: &[Complex<f64>], skip: &[usize]) -> bool {
    if mu.len() < skip.len() + 2 {
        return false;
    }
    let (i, j) = nearest_pair(mu, skip);
    mu[i].im.abs() > 1e-7 && (mu[i] - mu[j].conj()).norm() < 1e-6 * mu[i].norm().max(1.0)
}

/// What the test functions need beyond a point.
pub(super) struct Context<'a, S> {
    pub kind: BifurcationKind,
    pub slots: Vec<Slot>,
    pub hamiltonian: bool,
    pub normal_form: Option<&'a dyn NormalForm<S>>,
}

/// The multipliers of a point and its test functions' values; `u` is the unit parameter part
/// of the tangent the cusp's test is measured along (NaN where there is no such slot).
pub(super) fn values<S: Periodic>(
    ctx: &Context<'_, S>,
    y: &[f64],
    sys: &S,
    closure: Closure,
    monodromy: &DMatrix<f64>,
    t: &DVector<f64>,
    u: [f64; 2],
) -> Result<(Vec<Complex<f64>>, Vec<f64>), PeriodicError> {
    let mu = eigenvalues(monodromy)?;
    let crit = critical(ctx.kind, &mu);
    let n = y.len() - 2;
    let mut out = Vec::with_capacity(ctx.slots.len());
    for slot in &ctx.slots {
        let multiplier_test = !matches!(slot.what, What::Cusp | What::NormalForm);
        if multiplier_test && ctx.hamiltonian {
            out.push(f64::NAN);
            continue;
        }
        let v = match slot.what {
            What::Cusp => t[n] * u[0] + t[n + 1] * u[1],
            What::Other(s) => {
                (0..mu.len())
                    .filter(|i| !crit.contains(i))
                    .fold(Complex::new(1.0, 0.0), |a, i| a * (mu[i] - s))
                    .re
            }
            What::Pairs => {
                let mut a = Complex::new(1.0, 0.0);
                for i in 0..mu.len() {
                    for j in i + 1..mu.len() {
                        if !crit.contains(&i) && !crit.contains(&j) {
                            a *= mu[i] * mu[j] - 1.0;
                        }
                    }
                }
                a.re
            }
            What::Kappa(k) => kappa(&mu) - k,
            What::NormalForm => match ctx.normal_form {
                Some(nf) => {
                    nf.coefficient(ctx.kind, sys, closure, &y[..n], [y[n], y[n + 1]], monodromy)?
                }
                None => f64::NAN,
            },
        };
        out.push(v);
    }
    Ok((mu, out))
}

/// Whether a test function changed sign between two values (both evaluated).
pub(super) fn changed(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && a != 0.0 && (b == 0.0 || (a > 0.0) != (b > 0.0))
}

/// The unit parameter part of a tangent (zero where it vanishes).
pub(super) fn unit_p(t: &DVector<f64>) -> [f64; 2] {
    let n = t.len() - 2;
    let norm = t[n].hypot(t[n + 1]);
    if norm > 0.0 {
        [t[n] / norm, t[n + 1] / norm]
    } else {
        [0.0; 2]
    }
}

/// A located zero of one test function between `base` (s = 0, value `f0`) and the point at
/// arclength step `ds` along `t` (value `f1`, parameters `p1`).
pub(super) struct Located<S: Periodic> {
    pub solved: Solved<S>,
    pub s: f64,
    pub value: f64,
    pub mu: Vec<Complex<f64>>,
    pub bracket: f64,
    pub uncertainty: [f64; 2],
}

/// Regula falsi (Illinois) on the arclength for slot `k`'s zero.
#[allow(clippy::too_many_arguments)]
pub(super) fn locate<F: Family2>(
    system: &System<'_, F>,
    border: &Border,
    ctx: &Context<'_, F::Sys>,
    k: usize,
    base: &Solved<F::Sys>,
    t: &DVector<f64>,
    (ds, f0, f1, p1): (f64, f64, f64, [f64; 2]),
    pin: Option<(&DVector<f64>, &[f64])>,
) -> Result<Option<Located<F::Sys>>, PeriodicError> {
    let n = base.y.len() - 2;
    let u = unit_p(t);
    let tol = system.opts.tolerance;
    let (mut a, mut fa, mut pa) = (0.0, f0, [base.y[n], base.y[n + 1]]);
    let (mut b, mut fb, mut pb) = (ds, f1, p1);
    let mut last: Option<Located<F::Sys>> = None;
    let mut side = 0i8;
    let mut bisect = false;
    for _ in 0..60 {
        if b - a <= tol {
            break;
        }
        let mut s = b - fb * (b - a) / (fb - fa);
        if bisect || !(s > a && s < b) {
            s = 0.5 * (a + b);
        }
        let guess: Vec<f64> = base
            .y
            .iter()
            .zip(t.iter())
            .map(|(y, d)| y + s * d)
            .collect();
        // A trial the corrector fails on is retried at the bracket's middle; a second failure
        // ends the search with the bracket reached (its width is the error bar).
        let solved = match correct(system, border, guess, &base.y, t, s, pin) {
            Ok(x) => {
                bisect = false;
                x
            }
            Err(e @ (PeriodicError::Interrupted | PeriodicError::Invalid(_))) => return Err(e),
            Err(e) if bisect || last.is_none() && s == 0.5 * (a + b) => {
                if last.is_none() {
                    return Err(e);
                }
                break;
            }
            Err(_) => {
                bisect = true;
                continue;
            }
        };
        let tn = tangent(&solved.ext.jacobian, t, &system.cancel)?;
        let (mu, vals) = values(
            ctx,
            &solved.y,
            &solved.ext.sys,
            solved.ext.closure,
            &solved.ext.monodromy,
            &tn,
            u,
        )?;
        let f = vals[k];
        let p = [solved.y[n], solved.y[n + 1]];
        if !f.is_finite() {
            return Ok(None);
        }
        let done = f == 0.0;
        if (f > 0.0) == (fa > 0.0) {
            (a, fa, pa) = (s, f, p);
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        } else {
            (b, fb, pb) = (s, f, p);
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        }
        last = Some(Located {
            solved,
            s,
            value: f,
            mu,
            bracket: f64::NAN,
            uncertainty: [f64::NAN; 2],
        });
        if done {
            break;
        }
    }
    Ok(last.map(|l| Located {
        bracket: b - a,
        uncertainty: [(pb[0] - pa[0]).abs(), (pb[1] - pa[1]).abs()],
        ..l
    }))
}
