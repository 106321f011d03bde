//! Normal-form coefficients at a located fold, period doubling or Neimark–Sacker point of a
//! driven orbit: the sign that says on which side of the bifurcation the new orbits lie and
//! whether they attract, and the coefficient that says how large they are.
//!
//! The periodic normalization method (Kuznetsov, Govaerts & Meijer, SIAM J. Numer. Anal. 43
//! (2005) 1407) normalizes on the periodic orbit of a flow. For a driven chain its Poincaré map
//! at drive phase 0 *is* the k-th stroboscopic map P (an orbit of period k·T_drive is a fixed
//! point x* of P), so the periodic-normalization coefficients coincide with the fixed point's
//! normal-form coefficients of the map (Kuznetsov, *Elements of Applied Bifurcation Theory*,
//! 3rd ed., §5.4: the center-manifold reduction of an n-dimensional map at a fold, flip and
//! Neimark–Sacker point; §4.4–4.7 for the normal forms themselves), which is what is computed
//! here. An autonomous orbit's Poincaré map is not a
//! stroboscopic map (its return time varies), so it gets none; nor does a Hamiltonian orbit
//! (its multipliers pair up: the critical multiplier is not simple), a branch point or a Krein
//! collision.
//!
//! With A = DP(x*), q the critical right eigenvector (‖q‖₂ = 1) and w the left one
//! (wᵀA = μwᵀ, wᵀq = 1, no conjugation: wᵀx is the coordinate of x along q), and B, C the
//! second and third derivatives of P at x*:
//!
//! * fold (μ = 1): a = ½ wᵀB(q,q), b = wᵀ ∂P/∂α; the fixed points near x* lie at x* ± ξq with
//!   α − α* ≈ −(a/b) ξ²;
//! * period doubling (μ = −1): c = ⅙ wᵀ[C(q,q,q) + 3B(q, (I − A)⁻¹B(q,q))]; the second
//!   iterate at criticality is ξ ↦ ξ − 2cξ³, so c > 0 is supercritical; the 2-cycle is
//!   x* ± ξq with ξ² = −μ′(α − α*)/c, μ′ = dμ/dα along the branch;
//! * Neimark–Sacker (μ = e^{iθ}): c₁ = ½ wᵀ[C(q,q,q̄) + 2B(q,(I − A)⁻¹B(q,q̄)) +
//!   B(q̄,(e^{2iθ}I − A)⁻¹B(q,q))], d = Re(e^{−iθ}c₁); the normal form z ↦ μz(1 + d|z|²)
//!   (to third order) has the invariant circle |z|² = −|μ|′(α − α*)/d, supercritical for d < 0.
//!
//! With ‖q‖₂ = 1 in the state's units the coefficients' size depends on those units (a time
//! unit rescales the velocities); their sign, the side and the amplitude law do not.
//!
//! B and C are central differences of the exact Jacobian DP (the tangent flow):
//! B(u,v) = D_u v with D_u = [DP(x* + hu) − DP(x* − hu)]/2h, and C(u,u,v) = H_u v with
//! H_u = [DP(x* + hu) − 2A + DP(x* − hu)]/h² (complex arguments by multilinearity; the mixed
//! second derivative from the direction a + b). Every coefficient is computed at two steps,
//! h and 2h: the difference of the two is its error bar (the O(h²) truncation of the value at
//! h is a third of it where it dominates). μ′ comes from the same evaluations:
//! μ′ = wᵀ[∂A/∂α q + B(q, x′)] with x′ = dx*/dα = (I − A)⁻¹ ∂P/∂α.

use super::continuation::{BifurcationKind, Family};
use super::flow::propagate;
use super::shooting::{Closure, Periodic, PeriodicOrbit, ShootingOptions};
use super::PeriodicError;
use crate::observe::{Cancel, Cancellable};
use nalgebra::{Complex, DMatrix, DVector};
use rayon::prelude::*;
use serde::Serialize;

type C64 = Complex<f64>;

/// Whether the orbits born at a period doubling or Neimark–Sacker point attract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Criticality {
    /// The new orbit (2-cycle, invariant circle) exists where the old one is unstable and
    /// attracts: a soft loss of stability.
    Supercritical,
    /// The new orbit exists where the old one is still stable and repels: a hard one.
    Subcritical,
}

impl Criticality {
    pub fn name(self) -> &'static str {
        match self {
            Criticality::Supercritical => "supercritical",
            Criticality::Subcritical => "subcritical",
        }
    }
}

/// The normal form at one located bifurcation (module docs for the conventions).
#[derive(Debug, Clone, Serialize)]
pub struct NormalForm {
    /// The fold's a, the period doubling's c or the Neimark–Sacker d (‖q‖₂ = 1, wᵀq = 1).
    pub coefficient: f64,
    /// |coefficient(h) − coefficient(2h)|.
    pub error: f64,
    /// By the coefficient's sign (period doubling: c > 0, Neimark–Sacker: d < 0 is
    /// supercritical); `None` for a fold, or where the coefficient is within its error of 0.
    pub criticality: Option<Criticality>,
    /// How the bifurcation is crossed: the fold's b = wᵀ∂P/∂α; the period doubling's dμ/dα;
    /// the Neimark–Sacker point's d|μ|/dα.
    pub transversality: f64,
    pub transversality_error: f64,
    /// The side of the bifurcation's parameter (+1 above, −1 below, 0 undetermined) on which
    /// the new orbits lie: the fold's pair of fixed points, the 2-cycle, the invariant circle.
    pub side: f64,
    /// K in ‖x − x*‖ ≈ K √|α − α*|: each fixed point's distance from the fold point, each
    /// 2-cycle point's distance from x* (half their separation), the invariant circle's
    /// normal-form radius |z| (NaN where `side` is 0).
    pub amplitude: f64,
    /// The critical multiplier of A = DP(x*) used.
    pub multiplier: [f64; 2],
    /// The critical eigenvector q, unit: real and imaginary parts of each component.
    pub eigenvector: Vec<[f64; 2]>,
    /// The state step h of the finite differences (the error's other one is 2h).
    pub step: f64,
}

/// A map with its Jacobian, P(x, α* + dα) and DP there: what the normal form needs of P.
pub trait MapJet: Sync {
    fn jet(&self, x: &[f64], dalpha: f64) -> Result<(DVector<f64>, DMatrix<f64>), PeriodicError>;
}

impl<F> MapJet for F
where
    F: Fn(&[f64], f64) -> Result<(DVector<f64>, DMatrix<f64>), PeriodicError> + Sync,
{
    fn jet(&self, x: &[f64], dalpha: f64) -> Result<(DVector<f64>, DMatrix<f64>), PeriodicError> {
        self(x, dalpha)
    }
}

/// The finite-difference steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NormalFormSteps {
    /// In the state, along the unit eigenvector (the second difference's truncation h² and
    /// round-off ε/h² balance near ε^¼: 1e-3 for a Jacobian good to ~1e-12).
    pub state: f64,
    /// In the parameter (a first difference: ε^⅓).
    pub parameter: f64,
}

impl Default for NormalFormSteps {
    fn default() -> Self {
        NormalFormSteps {
            state: 1e-3,
            parameter: 1e-4,
        }
    }
}

/// The normal form of the map `map` at its fixed point `x` (at dα = 0) for a bifurcation of
/// `kind` (fold, period doubling or Neimark–Sacker; others are refused).
pub fn map_normal_form<M: MapJet>(
    map: &M,
    x: &[f64],
    kind: BifurcationKind,
    steps: NormalFormSteps,
) -> Result<NormalForm, PeriodicError> {
    let n = x.len();
    let (_, a) = map.jet(x, 0.0)?;
    let crit = critical(&a, kind)?;
    let complex = kind == BifurcationKind::NeimarkSacker;
    let qa: DVector<f64> = crit.q.map(|c| c.re);
    let qb: DVector<f64> = crit.q.map(|c| c.im);
    let mut dirs = vec![qa.clone()];
    if complex {
        dirs.push(qb.clone());
        dirs.push(&qa + &qb);
    }
    let (h, hp) = (steps.state, steps.parameter);
    if !(h.is_finite() && h > 0.0 && hp.is_finite() && hp > 0.0) {
        return Err(PeriodicError::invalid("step", "must be finite and > 0"));
    }
    // Every evaluation at both scales, in parallel: (x + s·d) for each direction and sign,
    // and (x, ±s_p).
    let mut points: Vec<(Vec<f64>, f64)> = Vec::new();
    for scale in [1.0, 2.0] {
        for d in &dirs {
            for sign in [1.0, -1.0] {
                let xs: Vec<f64> = (0..n).map(|i| x[i] + sign * scale * h * d[i]).collect();
                points.push((xs, 0.0));
            }
        }
        points.push((x.to_vec(), scale * hp));
        points.push((x.to_vec(), -scale * hp));
    }
    let jets: Vec<(DVector<f64>, DMatrix<f64>)> = points
        .par_iter()
        .map(|(xs, dp)| map.jet(xs, *dp))
        .collect::<Result<_, _>>()?;
    let per = 2 * dirs.len() + 2;
    let at = |scale: usize| -> Result<(f64, f64), PeriodicError> {
        let s = if scale == 0 { h } else { 2.0 * h };
        let sp = if scale == 0 { hp } else { 2.0 * hp };
        let j = &jets[scale * per..(scale + 1) * per];
        let d: Vec<DMatrix<f64>> = (0..dirs.len())
            .map(|k| (&j[2 * k].1 - &j[2 * k + 1].1) / (2.0 * s))
            .collect();
        let hh: Vec<DMatrix<f64>> = (0..dirs.len())
            .map(|k| (&j[2 * k].1 - &a * 2.0 + &j[2 * k + 1].1) / (s * s))
            .collect();
        let m = 2 * dirs.len();
        let pp = (&j[m].0 - &j[m + 1].0) / (2.0 * sp);
        let ap = (&j[m].1 - &j[m + 1].1) / (2.0 * sp);
        Ok(coefficients(&a, &crit, kind, &d, &hh, &pp, &ap))
    };
    let (c1, t1) = at(0)?;
    let (c2, t2) = at(1)?;
    let (error, t_error) = ((c1 - c2).abs(), (t1 - t2).abs());
    if !(c1.is_finite() && t1.is_finite()) {
        return Err(PeriodicError::NotConverged(
            "the normal-form coefficient is not finite (a resonant or degenerate point)".into(),
        ));
    }
    let known = c1.abs() > error && t1.abs() > t_error;
    let criticality = match kind {
        BifurcationKind::PeriodDoubling if c1.abs() > error => Some(if c1 > 0.0 {
            Criticality::Supercritical
        } else {
            Criticality::Subcritical
        }),
        BifurcationKind::NeimarkSacker if c1.abs() > error => Some(if c1 < 0.0 {
            Criticality::Supercritical
        } else {
            Criticality::Subcritical
        }),
        _ => None,
    };
    // Fold: ξ² = −b Δα / a; period doubling: ξ² = −μ′Δα / c; Neimark–Sacker: |z|² = −|μ|′Δα/d.
    let (side, amplitude) = if known {
        (-(c1 * t1).signum(), (t1 / c1).abs().sqrt())
    } else {
        (0.0, f64::NAN)
    };
    Ok(NormalForm {
        coefficient: c1,
        error,
        criticality,
        transversality: t1,
        transversality_error: t_error,
        side,
        amplitude,
        multiplier: [crit.mu.re, crit.mu.im],
        eigenvector: crit.q.iter().map(|c| [c.re, c.im]).collect(),
        step: h,
    })
}

/// The critical multiplier and its right (unit) and left (wᵀq = 1) eigenvectors.
struct Critical {
    mu: C64,
    q: DVector<C64>,
    w: DVector<C64>,
}

fn critical(a: &DMatrix<f64>, kind: BifurcationKind) -> Result<Critical, PeriodicError> {
    let n = a.nrows();
    let eig = a.complex_eigenvalues();
    let dist = |m: &C64| -> f64 {
        match kind {
            BifurcationKind::Fold => (m - 1.0).norm(),
            BifurcationKind::PeriodDoubling => (m + 1.0).norm(),
            // The upper member of the pair nearest the unit circle.
            _ => (m.norm() - 1.0).abs() + if m.im > 1e-12 { 0.0 } else { 1e3 },
        }
    };
    let mut mu = eig
        .iter()
        .copied()
        .min_by(|x, y| dist(x).total_cmp(&dist(y)))
        .ok_or_else(|| PeriodicError::invalid("dim", "an empty state"))?;
    if kind != BifurcationKind::NeimarkSacker {
        mu.im = 0.0;
    }
    let shifted = a.map(|v| C64::new(v, 0.0)) - DMatrix::<C64>::identity(n, n) * mu;
    let svd = shifted
        .try_svd(true, true, f64::EPSILON, 100 * n.max(1))
        .ok_or_else(|| PeriodicError::NotConverged("the SVD of A − μI did not converge".into()))?;
    let (u, vt) = (svd.u.expect("asked for U"), svd.v_t.expect("asked for V"));
    let i = svd.singular_values.imin();
    // (A − μI) v = σu and uᴴ(A − μI) = σvᴴ: q = v, and wᵀ = uᴴ.
    let mut q: DVector<C64> = vt.row(i).adjoint();
    let mut w: DVector<C64> = u.column(i).map(|c| c.conj());
    if kind != BifurcationKind::NeimarkSacker {
        // A real eigenvector: rotate the SVD's arbitrary phase away.
        let k = q.icamax();
        let ph = q[k] / q[k].norm();
        q /= ph;
        w *= ph;
        q.iter_mut().for_each(|c| c.im = 0.0);
        w.iter_mut().for_each(|c| c.im = 0.0);
    }
    let norm = q.norm();
    q /= C64::new(norm, 0.0);
    let wq = w.transpose() * &q;
    let wq = wq[(0, 0)];
    if wq.norm() < 1e-12 {
        return Err(PeriodicError::NotConverged(
            "the critical multiplier is not simple (wᵀq = 0)".into(),
        ));
    }
    w /= wq;
    Ok(Critical { mu, q, w })
}

fn cx(m: &DMatrix<f64>) -> DMatrix<C64> {
    m.map(|v| C64::new(v, 0.0))
}

fn dot(w: &DVector<C64>, v: &DVector<C64>) -> C64 {
    w.iter().zip(v.iter()).map(|(a, b)| a * b).sum()
}

fn solve(m: DMatrix<C64>, b: &DVector<C64>) -> DVector<C64> {
    m.lu()
        .solve(b)
        .unwrap_or_else(|| DVector::from_element(b.len(), C64::new(f64::NAN, f64::NAN)))
}

/// (coefficient, transversality) from the difference quotients: `d[k]`, `hh[k]` the first and
/// second derivatives of DP along direction k (q's real part; then its imaginary part and
/// their sum), `pp` = ∂P/∂α, `ap` = ∂A/∂α.
fn coefficients(
    a: &DMatrix<f64>,
    crit: &Critical,
    kind: BifurcationKind,
    d: &[DMatrix<f64>],
    hh: &[DMatrix<f64>],
    pp: &DVector<f64>,
    ap: &DMatrix<f64>,
) -> (f64, f64) {
    let n = a.nrows();
    let i = C64::new(0.0, 1.0);
    let eye = DMatrix::<C64>::identity(n, n);
    let ac = cx(a);
    let (dq, hq) = if d.len() == 3 {
        (
            cx(&d[0]) + cx(&d[1]) * i,
            cx(&hh[0]) - cx(&hh[1]) + cx(&(&hh[2] - &hh[0] - &hh[1])) * i,
        )
    } else {
        (cx(&d[0]), cx(&hh[0]))
    };
    let (q, w, mu) = (&crit.q, &crit.w, crit.mu);
    let bqq = &dq * q;
    // μ′ = wᵀ[A_α q + B(q, x′)], x′ = (I − A)⁻¹ P_α (not at a fold, where I − A is singular).
    let mu_prime = || {
        let xp = solve(&eye - &ac, &pp.map(|v| C64::new(v, 0.0)));
        dot(w, &(cx(ap) * q + &dq * xp))
    };
    match kind {
        BifurcationKind::Fold => {
            let coef = 0.5 * dot(w, &bqq).re;
            let b = dot(w, &pp.map(|v| C64::new(v, 0.0))).re;
            (coef, b)
        }
        BifurcationKind::PeriodDoubling => {
            let r = solve(&eye - &ac, &bqq);
            let c = dot(w, &(&hq * q + (&dq * r) * C64::new(3.0, 0.0))).re / 6.0;
            (c, mu_prime().re)
        }
        _ => {
            let qb = q.map(|c| c.conj());
            let dqb = dq.map(|c| c.conj());
            let r1 = solve(&eye - &ac, &(&dq * &qb));
            let e2 = (mu / mu.norm()).powi(2);
            let r2 = solve(&eye * e2 - &ac, &bqq);
            let c1 = 0.5 * dot(w, &(&hq * &qb + (&dq * r1) * C64::new(2.0, 0.0) + dqb * r2));
            let dcoef = ((mu / mu.norm()).conj() * c1).re;
            let dmu = mu_prime();
            (dcoef, (mu.conj() * dmu).re / mu.norm())
        }
    }
}

/// The normal form at a located bifurcation of `kind` of a driven family's orbit `orbit` at
/// `parameter` (the orbit of `family.at(parameter)`), P being the stroboscopic map over the
/// orbit's period, integrated with `shooting`'s method: `None` where there is none (an
/// autonomous or Hamiltonian family, a branch point, a Krein collision; module docs). For a
/// two-parameter curve, pass the curve's system at its second parameter as a one-parameter
/// family in the first.
pub fn normal_form<F: Family>(
    family: &F,
    parameter: f64,
    kind: BifurcationKind,
    orbit: &PeriodicOrbit,
    shooting: &ShootingOptions,
    cancel: &Cancel,
) -> Result<Option<NormalForm>, PeriodicError> {
    if !matches!(
        kind,
        BifurcationKind::Fold | BifurcationKind::PeriodDoubling | BifurcationKind::NeimarkSacker
    ) {
        return Ok(None);
    }
    let (sys, closure) = family.at(parameter)?;
    if !matches!(closure, Closure::Driven { .. }) || sys.hamiltonian() {
        return Ok(None);
    }
    let method = shooting.method();
    // The orbit's period in drive periods; the drive period itself may be the parameter, so
    // P at a neighbouring parameter spans that parameter's k drive periods.
    let turns = |c: Closure| match c {
        Closure::Driven { drive_period, .. } => drive_period,
        _ => f64::NAN,
    };
    let k = (orbit.period / turns(closure)).round();
    let map = |x: &[f64], dp: f64| -> Result<(DVector<f64>, DMatrix<f64>), PeriodicError> {
        let (s, c) = family.at(parameter + dp)?;
        let mut obs = Cancellable(cancel.clone());
        let p = propagate(&s, &method, 0.0, x, k * turns(c), 1, &mut obs)?;
        Ok((DVector::from_vec(p.x), p.jacobian))
    };
    let steps = NormalFormSteps {
        parameter: NormalFormSteps::default().parameter * parameter.abs().max(1.0),
        ..NormalFormSteps::default()
    };
    map_normal_form(&map, &orbit.x0, kind, steps).map(Some)
}

/// The normal-form coefficient along a two-parameter curve ([`super::curve::NormalForm`]: the
/// hook that locates degenerate flips and Chenciner points, and a fold curve's a): the
/// coefficient of the stroboscopic map of the system there, at the curve point's orbit,
/// integrated with `shooting`'s method. NaN where none applies (an autonomous or Hamiltonian
/// system, a branch point) or where the computation fails, so that no sign change is seen
/// there rather than the curve ending.
pub struct CurveNormalForm {
    pub shooting: ShootingOptions,
    pub cancel: Cancel,
}

impl<S: Periodic> super::curve::NormalForm<S> for CurveNormalForm {
    fn coefficient(
        &self,
        kind: BifurcationKind,
        sys: &S,
        closure: Closure,
        z: &[f64],
        _p: [f64; 2],
        _monodromy: &DMatrix<f64>,
    ) -> Result<f64, PeriodicError> {
        let Closure::Driven { drive_period, k } = closure else {
            return Ok(f64::NAN);
        };
        if sys.hamiltonian()
            || !matches!(
                kind,
                BifurcationKind::Fold
                    | BifurcationKind::PeriodDoubling
                    | BifurcationKind::NeimarkSacker
            )
        {
            return Ok(f64::NAN);
        }
        let method = self.shooting.method();
        // The coefficient alone: the parameter's derivatives (dα) are not needed along a curve.
        let map = |x: &[f64], _dp: f64| -> Result<(DVector<f64>, DMatrix<f64>), PeriodicError> {
            let mut obs = Cancellable(self.cancel.clone());
            let p = propagate(sys, &method, 0.0, x, k as f64 * drive_period, 1, &mut obs)?;
            Ok((DVector::from_vec(p.x), p.jacobian))
        };
        match map_normal_form(&map, z, kind, NormalFormSteps::default()) {
            Ok(nf) => Ok(nf.coefficient),
            Err(PeriodicError::Interrupted) => Err(PeriodicError::Interrupted),
            Err(_) => Ok(f64::NAN),
        }
    }
}
