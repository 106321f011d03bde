//! The saddle: a fixed point x* of the map (a period-k point of the stroboscopic map is a
//! fixed point of its k-th iterate, [`super::map::Iterate`]) located by Newton on P(x) − x,
//! with the Jacobian DP(x*) by central differences of the map itself, so that the point, the
//! multipliers and the eigenvectors are those of the map the curves are grown with.

use super::map::PlaneMap;
use super::{ManifoldError, P2};

/// A hyperbolic fixed point and its linearisation.
#[derive(Debug, Clone, PartialEq)]
pub struct Saddle {
    pub point: P2,
    /// DP(x*), row-major.
    pub jacobian: [[f64; 2]; 2],
    /// The unstable multiplier (|λu| > 1) and its unit eigenvector (θ component ≥ 0).
    pub lambda_u: f64,
    pub v_u: P2,
    /// The stable multiplier (|λs| < 1) and its unit eigenvector (θ component ≥ 0).
    pub lambda_s: f64,
    pub v_s: P2,
    /// |P(x*) − x*| (max norm) at the end of Newton.
    pub residual: f64,
    pub iterations: usize,
}

/// The step of the central differences of DP, relative to 1 + |x|: their truncation error
/// ~h² P''' (≈1e-12 relative) against round-off ~ε/h (≈1e-11 relative).
pub const FD_STEP: f64 = 1e-5;

/// DP(x) by central differences.
pub fn jacobian<M: PlaneMap>(
    map: &M,
    x: P2,
    w: &mut M::Work,
) -> Result<[[f64; 2]; 2], ManifoldError> {
    jacobian_step(map, x, map.difference_step(), w)
}

/// DP(x) by central differences of relative step `step` (each h = step·(1 + |x_j|)).
pub fn jacobian_step<M: PlaneMap>(
    map: &M,
    x: P2,
    step: f64,
    w: &mut M::Work,
) -> Result<[[f64; 2]; 2], ManifoldError> {
    differences(map, x, step, false, w)
}

/// DP(x), or D(P⁻¹)(x) when `inverse`, by central differences of relative step `step`.
pub fn differences<M: PlaneMap>(
    map: &M,
    x: P2,
    step: f64,
    inverse: bool,
    w: &mut M::Work,
) -> Result<[[f64; 2]; 2], ManifoldError> {
    let mut jac = [[0.0; 2]; 2];
    for j in 0..2 {
        let h = step * (1.0 + x[j].abs());
        let (mut a, mut b) = (x, x);
        a[j] += h;
        b[j] -= h;
        let (pa, pb) = (map.apply(a, inverse, w)?, map.apply(b, inverse, w)?);
        for i in 0..2 {
            jac[i][j] = (pa[i] - pb[i]) / (a[j] - b[j]);
        }
    }
    Ok(jac)
}

/// `x` shifted by the lattice into (−L/2, L/2] in its first component.
fn wrap<M: PlaneMap>(map: &M, x: P2) -> P2 {
    match map.lattice() {
        Some(l) if l[0] > 0.0 => {
            let k = (x[0] / l[0]).round();
            let y = [x[0] - k * l[0], x[1] - k * l[1]];
            if y[0] <= -0.5 * l[0] {
                [y[0] + l[0], y[1] + l[1]]
            } else {
                y
            }
        }
        _ => x,
    }
}

/// The real eigenvalues of a 2×2 matrix (larger modulus first) or None when complex.
fn eigen(m: &[[f64; 2]; 2]) -> Option<[(f64, P2); 2]> {
    let [[a, b], [c, d]] = *m;
    let tr = a + d;
    let det = a * d - b * c;
    let disc = tr * tr / 4.0 - det;
    if disc <= 0.0 {
        return None;
    }
    let r = disc.sqrt();
    // The root of larger modulus without cancellation, the other from the determinant.
    let l1 = tr / 2.0 + r.copysign(tr);
    let l2 = if l1 != 0.0 { det / l1 } else { tr / 2.0 - r };
    let vec = |l: f64| -> P2 {
        let (u, v) = ([b, l - a], [l - d, c]);
        let pick = if u[0].hypot(u[1]) >= v[0].hypot(v[1]) {
            u
        } else {
            v
        };
        let n = pick[0].hypot(pick[1]);
        let mut e = [pick[0] / n, pick[1] / n];
        if e[0] < 0.0 || (e[0] == 0.0 && e[1] < 0.0) {
            e = [-e[0], -e[1]];
        }
        e
    };
    Some([(l1, vec(l1)), (l2, vec(l2))])
}

/// The hyperbolic fixed point of `map` nearest `x0` by Newton (at most `max_iterations`),
/// converged when the step and |P(x) − x| are below `tolerance`. Errors: no convergence, a
/// point that returns shifted by the lattice (an orbit that turns over), multipliers that
/// are complex or on the unit circle.
pub fn saddle<M: PlaneMap>(
    map: &M,
    x0: P2,
    tolerance: f64,
    max_iterations: usize,
) -> Result<Saddle, ManifoldError> {
    let mut w = map.work();
    let mut x = wrap(map, x0);
    let mut residual = f64::INFINITY;
    let mut iterations = 0;
    for it in 0..=max_iterations {
        let px = map.apply(x, false, &mut w)?;
        let f = [px[0] - x[0], px[1] - x[1]];
        residual = f[0].abs().max(f[1].abs());
        iterations = it;
        if let Some(l) = map.lattice() {
            let turns = (f[0] / l[0]).round();
            if it == 0 && turns != 0.0 && residual > 1.0 {
                return Err(ManifoldError::Failed(format!(
                    "the point ({}, {}) returns {turns} turns over: a rotating orbit, whose manifolds are not offered",
                    x[0], x[1]
                )));
            }
        }
        let j = jacobian(map, x, &mut w)?;
        let a = [[j[0][0] - 1.0, j[0][1]], [j[1][0], j[1][1] - 1.0]];
        let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
        if det == 0.0 || !det.is_finite() {
            return Err(ManifoldError::Failed(
                "Newton on the fixed point met a multiplier 1".into(),
            ));
        }
        let dx = [
            -(a[1][1] * f[0] - a[0][1] * f[1]) / det,
            -(-a[1][0] * f[0] + a[0][0] * f[1]) / det,
        ];
        let step = dx[0].abs().max(dx[1].abs());
        if residual <= tolerance && step <= tolerance {
            break;
        }
        if it == max_iterations {
            return Err(ManifoldError::Failed(format!(
                "Newton on the fixed point did not converge in {max_iterations} iterations (|P(x) − x| = {residual:.2e}); start nearer the saddle"
            )));
        }
        x = [x[0] + dx[0], x[1] + dx[1]];
        // The map commutes with the lattice shift: keep θ in (−π, π] (an error relative to θ
        // would grow with it).
        x = wrap(map, x);
    }
    let jac = jacobian(map, x, &mut w)?;
    let Some([(l1, e1), (l2, e2)]) = eigen(&jac) else {
        return Err(ManifoldError::Failed(format!(
            "the fixed point ({}, {}) has complex multipliers: it is no saddle",
            x[0], x[1]
        )));
    };
    if !(l1.abs() > 1.0 + 1e-9 && l2.abs() < 1.0 - 1e-9) {
        return Err(ManifoldError::Failed(format!(
            "the fixed point ({}, {}) has multipliers {l1} and {l2}: it is no saddle (one must lie outside the unit circle and one inside)",
            x[0], x[1]
        )));
    }
    Ok(Saddle {
        point: x,
        jacobian: jac,
        lambda_u: l1,
        v_u: e1,
        lambda_s: l2,
        v_s: e2,
        residual,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::manifold::LinearMap;

    /// A linear saddle's multipliers and eigenvectors against the closed form.
    #[test]
    fn a_linear_saddle_has_its_closed_form_multipliers_and_eigenvectors() {
        // A = S diag(3, 1/4) S⁻¹ with S's columns (1, 1)/√2 and (1, −2)/√5.
        let (lu, ls) = (3.0, 0.25);
        let s = [[1.0, 1.0], [1.0, -2.0]];
        let det = s[0][0] * s[1][1] - s[0][1] * s[1][0];
        let inv = [
            [s[1][1] / det, -s[0][1] / det],
            [-s[1][0] / det, s[0][0] / det],
        ];
        let mut a = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                a[i][j] = s[i][0] * lu * inv[0][j] + s[i][1] * ls * inv[1][j];
            }
        }
        let m = LinearMap { a };
        let sd = saddle(&m, [0.3, -0.2], 1e-14, 10).unwrap();
        assert!(sd.point[0].abs() < 1e-14 && sd.point[1].abs() < 1e-14);
        assert!((sd.lambda_u - lu).abs() < 1e-9, "{}", sd.lambda_u);
        assert!((sd.lambda_s - ls).abs() < 1e-9, "{}", sd.lambda_s);
        let r2 = 0.5f64.sqrt();
        assert!((sd.v_u[0] - r2).abs() < 1e-9 && (sd.v_u[1] - r2).abs() < 1e-9);
        let r5 = 5f64.sqrt();
        assert!((sd.v_s[0] - 1.0 / r5).abs() < 1e-9 && (sd.v_s[1] + 2.0 / r5).abs() < 1e-9);
    }
}
