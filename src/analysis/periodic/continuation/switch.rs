//! Branch switching at a located branch point of a driven family: the new branch through it.
//!
//! At a branch point the continuation Jacobian J = [M − I  F_p] (n × (n + 1)) has rank n − 1:
//! a two-dimensional null space, spanned by φ₁ (its vector with the largest parameter
//! component: the old branch's tangent where that branch is symmetric) and φ₂ ⊥ e_p (a pure
//! state direction, M − I's null vector c to first order), and one left null vector ψ. The
//! branches' tangents α φ₁ + β φ₂ solve the algebraic branching equation
//! a₁₁ α² + 2 a₁₂ α β + a₂₂ β² = 0, a_ij = ψᵀ F_yy(φ_i, φ_j) (second differences of the exact
//! shooting residual). A symmetry-breaking pitchfork of a symmetric orbit has a₁₁ = a₂₂ = 0 (the
//! old branch along φ₁, the new one along φ₂, p changing only as s² on it); anything else (a
//! transcritical crossing) is refused by name rather than switched along a guessed direction.
//!
//! The new branch's first point, predicted a step s along ±φ₂ and corrected by pseudo-arclength
//! Newton, is verified to be a distinct orbit: the symmetric orbit at the same parameter (Newton
//! at fixed p from the branch point) lies farther from it than the Newton tolerance by orders of
//! magnitude. Its two halves (±φ₂) are the mirror images of each other under the chain's
//! reflection θ → −θ, which fixes the symmetric orbit: z₋ = 2z* − z₊. Where the corrected −s
//! point is that image, the second half is reported as the first's mirror and not continued.

use super::walk::continue_from;
use super::{Bifurcation, BifurcationKind, Branch, ContinuationOptions, Family, Tracker};
use crate::analysis::periodic::shooting::{norm_inf, Closure, ShootingOptions};
use crate::analysis::periodic::PeriodicError;
use crate::observe::Observer;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

/// |a₁₁| and |a₂₂| at most this fraction of |a₁₂|: the branch point is a pitchfork. The second
/// differences are good to about 1e-7 relative (step 1e-3 in unit directions, residuals to
/// 1e-12), a transcritical crossing's a₂₂ is of the order of a₁₂.
pub const PITCHFORK_RATIO: f64 = 1e-4;

/// The first switched point must lie this many Newton tolerances from the symmetric orbit.
pub const DISTINCT_FACTOR: f64 = 1e3;

/// What switching at a branch point gave.
#[derive(Debug, Clone, Serialize)]
pub struct BranchSwitch {
    /// The new branch along +φ₂, from the branch point.
    pub branch: Branch,
    /// The half along −φ₂, continued only where it is not the first's mirror image.
    pub other: Option<Branch>,
    /// The −φ₂ half's first point against the reflection 2z* − z₊ of the +φ₂ half's (max norm
    /// over the state and the parameter): within [`BranchSwitch::mirror_tolerance`], the halves
    /// are mirror images.
    pub mirror_distance: f64,
    pub mirror_tolerance: f64,
    /// Whether the second half is the first's mirror image (and so not continued).
    pub mirror: bool,
    /// The +φ₂ half's first point's distance (max norm) from the symmetric orbit at its
    /// parameter, and that point's parameter.
    pub distance: f64,
    pub first_parameter: f64,
    /// The algebraic branching equation's coefficients a₁₁, a₁₂, a₂₂.
    pub branching: [f64; 3],
    /// J's smallest over its second-smallest singular value at the branch point (its rank
    /// deficiency: small at a true branch point).
    pub rank_gap: f64,
    /// The new branch's direction φ₂ (a state direction, the parameter's component zero).
    pub direction: Vec<f64>,
}

/// Switches onto the new branch born at the branch point `bif` of a driven family's branch
/// and continues it (`opts`: its range, steps and points; its direction is the new branch's
/// own). Refuses (naming why) a branch point that is no symmetry-breaking pitchfork.
pub fn switch_branch_point<F: Family>(
    family: &F,
    bif: &Bifurcation,
    shooting: &ShootingOptions,
    opts: &ContinuationOptions,
    observer: &mut dyn Observer,
) -> Result<BranchSwitch, PeriodicError> {
    if bif.kind != BifurcationKind::BranchPoint {
        return Err(PeriodicError::invalid("switch", "needs a branch point"));
    }
    opts.check()?;
    shooting.check()?;
    let (_, closure) = family.at(bif.parameter)?;
    if !matches!(closure, Closure::Driven { .. }) {
        return Err(PeriodicError::invalid(
            "switch",
            "branch switching of an autonomous family is not supported; seed the new orbit with `find`",
        ));
    }
    let tracker = Tracker {
        family,
        opts: *shooting,
        phase: None,
        cancel: observer.cancel(),
    };
    let mut y0 = bif.orbit.x0.clone();
    y0.push(bif.parameter);
    let dim = y0.len();
    let zero = DVector::zeros(dim);
    let star = tracker.correct(y0.clone(), &y0, &zero, 0.0)?;
    let basis = null_basis(&star.jac)?;
    let (phi1, phi2) = (&basis.phi1, &basis.phi2);
    let branching = branching(&tracker, &star.y, &basis.psi, phi1, phi2)?;
    let [a11, a12, a22] = branching;
    if !(a11.abs() <= PITCHFORK_RATIO * a12.abs() && a22.abs() <= PITCHFORK_RATIO * a12.abs()) {
        return Err(PeriodicError::Unverified(format!(
            "the branch point at {} is not a symmetry-breaking pitchfork (branching equation a11 = {a11:.3e}, a12 = {a12:.3e}, a22 = {a22:.3e}): a transcritical branch is not switched here",
            bif.parameter
        )));
    }
    let s = opts.step;
    let half = |sign: f64| -> Result<Vec<f64>, PeriodicError> {
        let t = phi2 * sign;
        let guess: Vec<f64> = star
            .y
            .iter()
            .zip(t.iter())
            .map(|(a, b)| a + s * b)
            .collect();
        Ok(tracker.correct(guess, &star.y, &t, s)?.y)
    };
    let plus = half(1.0)?;
    let minus = half(-1.0)?;
    // The symmetric orbit at the new point's parameter: Newton at fixed p from the branch point.
    let p1 = plus[dim - 1];
    let mut fixed = star.y.clone();
    fixed[dim - 1] = p1;
    let mut ep = DVector::zeros(dim);
    ep[dim - 1] = 1.0;
    let symmetric = tracker.correct(fixed.clone(), &fixed, &ep, 0.0)?.y;
    let distance = norm_inf(&DVector::from_iterator(
        dim - 1,
        plus.iter()
            .zip(&symmetric)
            .take(dim - 1)
            .map(|(a, b)| a - b),
    ));
    let floor = DISTINCT_FACTOR * shooting.tolerance;
    if distance <= floor {
        return Err(PeriodicError::Unverified(format!(
            "the switched orbit at {p1} is the symmetric one ({distance:.2e} from it, at most {floor:.1e})"
        )));
    }
    // The reflection through the symmetric orbit at the branch point, the parameter kept.
    let mirror_distance = (0..dim)
        .map(|i| {
            let image = if i + 1 < dim {
                2.0 * star.y[i] - plus[i]
            } else {
                plus[i]
            };
            (minus[i] - image).abs()
        })
        .fold(0.0, f64::max);
    let mirror_tolerance = floor.max(1e-6 * distance);
    let mirror = mirror_distance <= mirror_tolerance;
    let mut start = bif.orbit.clone();
    start.x0 = star.y[..dim - 1].to_vec();
    let branch = continue_from(
        family,
        &start,
        bif.parameter,
        Some(phi2.clone()),
        shooting,
        opts,
        observer,
    )?;
    let other = if mirror {
        None
    } else {
        Some(continue_from(
            family,
            &start,
            bif.parameter,
            Some(-phi2),
            shooting,
            opts,
            observer,
        )?)
    };
    let (_, sigma) = basis.sigma;
    Ok(BranchSwitch {
        branch,
        other,
        mirror_distance,
        mirror_tolerance,
        mirror,
        distance,
        first_parameter: p1,
        branching,
        rank_gap: sigma,
        direction: phi2.iter().copied().collect(),
    })
}

/// J's two-dimensional null space at a branch point and its left null vector.
struct NullBasis {
    /// The null vector with the largest parameter component, and the one orthogonal to it
    /// with none.
    phi1: DVector<f64>,
    phi2: DVector<f64>,
    psi: DVector<f64>,
    /// (smallest, smallest over second-smallest) singular values of J.
    sigma: (f64, f64),
}

fn null_basis(jac: &DMatrix<f64>) -> Result<NullBasis, PeriodicError> {
    let (rows, cols) = jac.shape();
    let svd = jac
        .clone()
        .try_svd(true, true, f64::EPSILON, 100 * cols)
        .ok_or_else(|| {
            PeriodicError::NotConverged("the SVD of [M − I  F_p] did not converge".into())
        })?;
    let (u, vt) = (svd.u.expect("asked for U"), svd.v_t.expect("asked for V"));
    let sv = &svd.singular_values;
    let imin = sv.imin();
    let second = (0..sv.len())
        .filter(|&i| i != imin)
        .map(|i| sv[i])
        .fold(f64::INFINITY, f64::min);
    let psi = u.column(imin).into_owned();
    let v = vt.row(imin).transpose();
    // The complement of V's rows (rows of them, orthonormal in cols = rows + 1 dimensions).
    let w = (0..cols)
        .map(|k| {
            let mut e = DVector::zeros(cols);
            e[k] = 1.0;
            for i in 0..rows {
                let r = vt.row(i).transpose();
                let d = r.dot(&e);
                e -= r * d;
            }
            e
        })
        .max_by(|a, b| a.norm().total_cmp(&b.norm()))
        .expect("cols > 0")
        .normalize();
    let p = cols - 1;
    let (vp, wp) = (v[p], w[p]);
    let norm = vp.hypot(wp);
    if norm.is_nan() || norm <= 1e-8 {
        return Err(PeriodicError::Unverified(
            "the branch point's null space has no parameter direction (a degenerate point)".into(),
        ));
    }
    let phi1 = (&v * vp + &w * wp) / norm;
    let mut phi2 = (&v * wp - &w * vp) / norm;
    phi2[p] = 0.0;
    let phi2 = phi2.normalize();
    // A fixed orientation: the largest component positive.
    let big = phi2.iamax();
    let phi2 = if phi2[big] < 0.0 { -phi2 } else { phi2 };
    Ok(NullBasis {
        phi1,
        phi2,
        psi,
        sigma: (sv[imin], sv[imin] / second),
    })
}

/// The branching equation's a₁₁, a₁₂, a₂₂ at `y`: ψᵀ F_yy(φ_i, φ_j) by central second
/// differences of the shooting residual (step [`SECOND_STEP`] along unit directions).
fn branching<F: Family>(
    tracker: &Tracker<'_, F>,
    y: &[f64],
    psi: &DVector<f64>,
    phi1: &DVector<f64>,
    phi2: &DVector<f64>,
) -> Result<[f64; 3], PeriodicError> {
    let h = SECOND_STEP;
    let dim = y.len();
    let residual = |d: &DVector<f64>, c: f64| -> Result<f64, PeriodicError> {
        let q: Vec<f64> = y.iter().zip(d.iter()).map(|(a, b)| a + c * b).collect();
        let (sys, closure) = tracker.family.at(q[dim - 1])?;
        let r = tracker
            .shooting(&sys, closure)
            .evaluate(&q[..dim - 1])?
            .residual;
        Ok(psi.dot(&r))
    };
    // B(u, u) = [F(y + 2hu) − 2F(y) + F(y − 2hu)] / 4h², by polarisation for u ≠ v.
    let centre = residual(phi1, 0.0)?;
    let quad = |u: &DVector<f64>| -> Result<f64, PeriodicError> {
        Ok((residual(u, 2.0 * h)? - 2.0 * centre + residual(u, -2.0 * h)?) / (4.0 * h * h))
    };
    let (sum, diff) = (phi1 + phi2, phi1 - phi2);
    let b12 = (residual(&sum, h)? - residual(&diff, h)? - residual(&diff, -h)?
        + residual(&sum, -h)?)
        / (4.0 * h * h);
    Ok([quad(phi1)?, b12, quad(phi2)?])
}

/// The second differences' step along unit directions.
const SECOND_STEP: f64 = 1e-3;
