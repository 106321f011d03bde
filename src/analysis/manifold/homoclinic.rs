//! A homoclinic (or heteroclinic) point as the orbit it lies on, polished by multiple shooting.
//!
//! A point q where an unstable and a stable branch cross is Q_u^{g_u}(c_u(s_u)) and
//! Q_s^{g_s}(c_s(s_s)) + shift ([`super::grow::Curve`]): P carries c_u(s_u) to q in m_u
//! applications and q to c_s(s_s) + shift in m_s more. Computing q as one long composition
//! from a domain parameter is ill-conditioned: P^m stretches 1e-16 in s by Λ^m, and the
//! adaptive map's jumps (its tolerance) with it, so the curves' own points cannot be brought
//! closer than that (1e-6 on the double pendulum, whose flip saddle stretches 2.3e4 a step).
//! The orbit is well-conditioned instead (a hyperbolic orbit's boundary-value problem, with
//! its unstable component fixed at the start and its stable one at the end): the unknowns are
//! s_u, the intermediate points x_1 … x_{N−1} and s_s, N = m_u + m_s, and the equations
//! x_{k+1} = P(x_k) for k < m_u and x_k = P⁻¹(x_{k+1}) after (each branch's own map: a
//! stable branch is grown by P⁻¹, which is the inverse of P only to the integration's
//! accuracy, and a lobe integrates along the branches as grown), with x_0 = c_u(s_u),
//! x_N = c_s(s_s) + shift: 2N of each.
//! Newton on them, DP by the map's central differences at each x_k, converges from the
//! curves' crossing (within ~1e-6) in a few steps, and q = x_{m_u} is then located to the
//! map's own noise, not to that noise stretched by Λ^m.
//!
//! The error bar is the Newton correction of q at the converged orbit, one step past
//! convergence: what the orbit's remaining defect (the map's noise) still moves q by, i.e. how
//! well q is located on the branches of the map as computed. The integration's own error
//! moves the branches themselves: tests/manifolds_homoclinic.rs shows the maps at tolerances
//! 1e-13 and 1e-12 giving the same points to 6e-11 (double pendulum) and 2e-12 (Baker–Gollub).

use super::grow::Curve;
use super::map::PlaneMap;
use super::saddle::differences;
use super::{sub, ManifoldError, P2};
use nalgebra::{DMatrix, DVector};

/// A polished homoclinic point: the orbit from the unstable domain to the stable one.
#[derive(Debug, Clone, PartialEq)]
pub struct HomoclinicOrbit {
    /// x_0 = c_u(s_u) … x_N = c_s(s_s) + shift.
    pub points: Vec<P2>,
    /// The applications of the map from x_0 to the point q (q = points[m_u]).
    pub m_u: usize,
    pub s_u: f64,
    pub s_s: f64,
    /// |δq| of a Newton step past convergence: q's error from the map's remaining defect.
    pub error: f64,
    /// max_k |x_{k+1} − P(x_k)| at the end.
    pub defect: f64,
    pub iterations: usize,
}

impl HomoclinicOrbit {
    pub fn point(&self) -> P2 {
        self.points[self.m_u]
    }
}

/// dc/ds of a branch's fundamental domain.
fn seed_derivative(c: &Curve, s: f64) -> P2 {
    let ln = c.stretch.ln();
    let f = c.stretch.powf(s) * ln / (c.stretch - 1.0);
    [(c.b[0] - c.a[0]) * f, (c.b[1] - c.a[1]) * f]
}

/// Most Newton steps.
const MAX_ITERATIONS: usize = 12;

/// Polishes the crossing of `u` (generation `gu`, near `su`) and `st` shifted by `shift`
/// (generation `gs`, near `ss`) as an orbit (module docs), until the correction of q falls
/// below 1e-2·`tolerance` or stalls at the map's noise. None where there is nothing to shoot
/// (N = 0) or Newton broke down (a singular system); the caller keeps the curves' crossing.
#[allow(clippy::too_many_arguments)]
pub fn polish<M: PlaneMap>(
    map: &M,
    u: &Curve,
    gu: u32,
    su: f64,
    st: &Curve,
    gs: u32,
    ss: f64,
    shift: P2,
    tolerance: f64,
    w: &mut M::Work,
) -> Result<Option<HomoclinicOrbit>, ManifoldError> {
    let m_u = gu as usize * u.power;
    let m_s = gs as usize * st.power;
    let n = m_u + m_s;
    if n == 0 {
        return Ok(None);
    }
    let add = |p: P2| [p[0] + shift[0], p[1] + shift[1]];
    // The first guess: forward images of the unstable domain point up to q, backward images
    // of the stable one after it.
    let (mut s_u, mut s_s) = (su, ss);
    let mut x = vec![[0.0; 2]; n + 1];
    x[0] = u.seed(s_u);
    for k in 0..m_u {
        x[k + 1] = map.apply(x[k], false, w)?;
    }
    x[n] = add(st.seed(s_s));
    let mut y = st.seed(s_s);
    for k in (m_u + 1..n).rev() {
        y = map.apply(y, true, w)?;
        x[k] = add(y);
    }
    let dim = 2 * n;
    let mut jac = DMatrix::<f64>::zeros(dim, dim);
    let mut rhs = DVector::<f64>::zeros(dim);
    // Column scales of s_u and s_s: the domain's |dc/ds|, so that every unknown is a length.
    let mut lu = None;
    let mut error = f64::INFINITY;
    let mut defect = f64::INFINITY;
    let mut last = f64::INFINITY;
    let mut iterations = 0;
    // Equation k (rows 2k, 2k + 1) is E_k = A_k(x_k) + B_k(x_{k+1}): x_{k+1} − P(x_k) up to q
    // (k < m_u, the unstable branch's own forward map), x_k − P⁻¹(x_{k+1}) after it (the
    // stable branch's inverse map), so that q lies on both branches as they are computed.
    let forward = |k: usize| k < m_u;
    for it in 0..=MAX_ITERATIONS {
        defect = 0.0;
        for k in 0..n {
            let e = if forward(k) {
                let y = map.apply(x[k], false, w)?;
                [x[k + 1][0] - y[0], x[k + 1][1] - y[1]]
            } else {
                let y = add(map.apply(sub(x[k + 1], shift), true, w)?);
                [x[k][0] - y[0], x[k][1] - y[1]]
            };
            for i in 0..2 {
                rhs[2 * k + i] = -e[i];
                defect = defect.max(e[i].abs());
            }
        }
        if lu.is_none() {
            // The Jacobian at the first guess, kept while Newton converges fast (the guess is
            // within ~1e-6, where DP barely changes).
            let du = seed_derivative(u, s_u);
            let ds = seed_derivative(st, s_s);
            let (su_scale, ss_scale) = (du[0].hypot(du[1]), ds[0].hypot(ds[1]));
            if !(su_scale > 0.0 && ss_scale > 0.0) {
                return Ok(None);
            }
            jac.fill(0.0);
            let eye = [[1.0, 0.0], [0.0, 1.0]];
            for k in 0..n {
                let (a, b) = if forward(k) {
                    let d = differences(map, x[k], map.difference_step(), false, w)?;
                    ([[-d[0][0], -d[0][1]], [-d[1][0], -d[1][1]]], eye)
                } else {
                    let d = differences(map, sub(x[k + 1], shift), map.difference_step(), true, w)?;
                    (eye, [[-d[0][0], -d[0][1]], [-d[1][0], -d[1][1]]])
                };
                let r = 2 * k;
                // x_k's columns (x_0 through s_u: column 0), then x_{k+1}'s (x_N through s_s:
                // the last column).
                for i in 0..2 {
                    if k == 0 {
                        jac[(r + i, 0)] = (a[i][0] * du[0] + a[i][1] * du[1]) / su_scale;
                    } else {
                        jac[(r + i, 2 * k - 1)] = a[i][0];
                        jac[(r + i, 2 * k)] = a[i][1];
                    }
                    if k + 1 == n {
                        jac[(r + i, dim - 1)] = (b[i][0] * ds[0] + b[i][1] * ds[1]) / ss_scale;
                    } else {
                        jac[(r + i, 2 * k + 1)] = b[i][0];
                        jac[(r + i, 2 * k + 2)] = b[i][1];
                    }
                }
            }
            lu = Some((jac.clone().lu(), su_scale, ss_scale));
        }
        let (dz, su_scale, ss_scale) = {
            let (f, a, b) = lu.as_ref().expect("factored");
            (f.solve(&rhs), *a, *b)
        };
        let Some(dz) = dz else {
            return Ok(None);
        };
        if dz.iter().any(|v| !v.is_finite()) {
            return Ok(None);
        }
        // The correction of q: x_{m_u}, or x_0 / x_N through the parameters at the ends.
        let dq = if m_u == 0 {
            let d = seed_derivative(u, s_u);
            (d[0].hypot(d[1]) / su_scale) * dz[0].abs()
        } else if m_u == n {
            let d = seed_derivative(st, s_s);
            (d[0].hypot(d[1]) / ss_scale) * dz[dim - 1].abs()
        } else {
            dz[2 * m_u - 1].hypot(dz[2 * m_u])
        };
        iterations = it;
        if dq <= 1e-2 * tolerance || it == MAX_ITERATIONS {
            // Converged, or at the map's noise floor: this step (not applied) is q's
            // remaining error on the computed branches.
            error = dq;
            break;
        }
        if it > 0 && dq > 0.5 * last {
            // Slow: the Jacobian of the first guess is too far from the orbit's; refactor.
            lu = None;
        }
        last = dq;
        s_u += dz[0] / su_scale;
        s_s += dz[dim - 1] / ss_scale;
        for k in 1..n {
            x[k][0] += dz[2 * k - 1];
            x[k][1] += dz[2 * k];
        }
        x[0] = u.seed(s_u);
        x[n] = add(st.seed(s_s));
    }
    if !error.is_finite() {
        return Ok(None);
    }
    Ok(Some(HomoclinicOrbit {
        points: x,
        m_u,
        s_u,
        s_s,
        error,
        defect,
        iterations,
    }))
}
