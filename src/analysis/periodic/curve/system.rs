//! The minimally augmented system of a bifurcation curve: the shooting equations
//! F(z, p) = φ(kT; z, p) − z of a driven orbit and one scalar test function g(z, p) that
//! vanishes where a test matrix A(M) is singular, from the bordered system
//!
//! ```text
//! [ A(M)  b ] [v]   [0]
//! [ cᵀ    0 ] [g] = [1]
//! ```
//!
//! (Govaerts' minimal augmentation; b, c approximate the left and right null vectors and are
//! refreshed at each accepted point). A(M) is M − σI for a multiplier σ = +1 (fold or branch
//! point) or σ = −1 (period doubling), and C₂(M) − I for a Neimark–Sacker point: C₂(M), the
//! second compound (bialternate M⊙M), has the eigenvalues μᵢμⱼ (i < j), so C₂(M) − I is
//! singular where a pair's product is 1: a complex pair on the unit circle, or a real pair
//! μ, 1/μ (a neutral saddle, which the walk tells apart by the multipliers themselves). One
//! real unknown fewer than a 2-bordered M² − 2κM + I with κ unknown, and the same
//! corrector as the other kinds; its size n(n − 1)/2 is 6 for a double pendulum.
//!
//! g is a regular function wherever A(M) has rank one less than full, and its zero set is
//! exactly the bifurcation set there; the rank dropping further (a double multiplier σ with
//! two eigenvectors, like the Mathieu tongue's tip M = −I) makes the bordered matrix
//! singular, which the walk reports as a loss of regularity.
//!
//! F_z = M − I is the exact monodromy; F_p and the whole gradient of g are central differences
//! of the exact F and M (g's derivative would need the second-order variational equations).
//! Newton's limit does not depend on them: only its convergence rate does, the residuals F and
//! g being evaluated exactly at every iterate.

use crate::analysis::periodic::shooting::{Closure, Evaluation, Periodic, Shooting};
use crate::analysis::periodic::{PeriodicError, ShootingOptions};
use crate::observe::Cancel;
use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

/// A two-parameter family: the system and closure at each parameter pair.
pub trait Family2: Sync {
    type Sys: Periodic;
    fn at(&self, p: [f64; 2]) -> Result<(Self::Sys, Closure), PeriodicError>;
}

impl<S: Periodic, F: Fn([f64; 2]) -> Result<(S, Closure), PeriodicError> + Sync> Family2 for F {
    type Sys = S;
    fn at(&self, p: [f64; 2]) -> Result<(S, Closure), PeriodicError> {
        self(p)
    }
}

/// The test matrix A(M) whose singularity the curve follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Test {
    /// M − σI: a multiplier σ (+1 or −1).
    Shift(f64),
    /// C₂(M) − I: two multipliers whose product is 1.
    Compound,
}

impl Test {
    pub fn matrix(self, m: &DMatrix<f64>) -> DMatrix<f64> {
        match self {
            Test::Shift(sigma) => m - DMatrix::identity(m.nrows(), m.ncols()) * sigma,
            Test::Compound => {
                let c = compound(m);
                let k = c.nrows();
                c - DMatrix::identity(k, k)
            }
        }
    }

    /// How the test matrix reads in a message.
    pub fn name(self) -> &'static str {
        match self {
            Test::Shift(s) if s > 0.0 => "M − I",
            Test::Shift(_) => "M + I",
            Test::Compound => "C₂(M) − I",
        }
    }
}

/// The second compound matrix of `m`: the 2 × 2 minors, rows and columns indexed by the pairs
/// (p, q), p < q, in lexicographic order; its eigenvalues are the products μᵢμⱼ, i < j.
pub fn compound(m: &DMatrix<f64>) -> DMatrix<f64> {
    let n = m.nrows();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|p| (p + 1..n).map(move |q| (p, q)))
        .collect();
    let mut c = DMatrix::zeros(pairs.len(), pairs.len());
    for (i, &(p, q)) in pairs.iter().enumerate() {
        for (j, &(r, s)) in pairs.iter().enumerate() {
            c[(i, j)] = m[(p, r)] * m[(q, s)] - m[(p, s)] * m[(q, r)];
        }
    }
    c
}

/// The bordering vectors of the test function.
#[derive(Debug, Clone)]
pub(super) struct Border {
    /// The test matrix whose singularity is followed.
    pub test: Test,
    /// Approximate left (b) and right (c) null vectors of the test matrix, unit.
    pub b: DVector<f64>,
    pub c: DVector<f64>,
}

/// The bordered solve at a monodromy: g, the right vector v and the left vector w, and the
/// bordered matrix's reciprocal condition (smallest over largest singular value).
pub(super) struct Bordered {
    pub g: f64,
    pub v: DVector<f64>,
    pub w: DVector<f64>,
    pub rcond: f64,
}

impl Border {
    /// The border at `m`: the singular vectors of the test matrix's smallest singular value.
    pub fn at(m: &DMatrix<f64>, test: Test) -> Result<Border, PeriodicError> {
        let a = test.matrix(m);
        let n = a.nrows();
        let svd = a
            .try_svd(true, true, f64::EPSILON, 100 * n.max(1))
            .ok_or_else(|| {
                PeriodicError::NotConverged(format!("the SVD of {} failed", test.name()))
            })?;
        let (u, vt) = (svd.u.expect("asked"), svd.v_t.expect("asked"));
        let i = svd.singular_values.imin();
        Ok(Border {
            test,
            b: u.column(i).into_owned(),
            c: vt.row(i).transpose(),
        })
    }

    /// g and the null vectors at monodromy `m`.
    pub fn solve(&self, m: &DMatrix<f64>) -> Result<Bordered, PeriodicError> {
        let a = self.test.matrix(m);
        let n = a.nrows();
        let mut big = DMatrix::zeros(n + 1, n + 1);
        big.view_mut((0, 0), (n, n)).copy_from(&a);
        big.view_mut((0, n), (n, 1)).copy_from(&self.b);
        big.view_mut((n, 0), (1, n)).copy_from(&self.c.transpose());
        let sv = big.clone().singular_values();
        let rcond = sv.min() / sv.max();
        let lu = big.clone().lu();
        let mut rhs = DVector::zeros(n + 1);
        rhs[n] = 1.0;
        let singular = || {
            PeriodicError::NotConverged(format!(
                "the bordered matrix of {} is singular (the test function lost regularity)",
                self.test.name()
            ))
        };
        let right = lu.solve(&rhs).ok_or_else(singular)?;
        let left = big.transpose().lu().solve(&rhs).ok_or_else(singular)?;
        Ok(Bordered {
            g: right[n],
            v: right.rows(0, n).into_owned(),
            w: left.rows(0, n).into_owned(),
            rcond,
        })
    }

    /// The border refreshed from a point's null vectors.
    pub fn refreshed(&self, at: &Bordered) -> Border {
        Border {
            test: self.test,
            b: at.w.normalize(),
            c: at.v.normalize(),
        }
    }
}

/// The extended system at one point y = (z, p₁, p₂).
pub(super) struct Extended<S: Periodic> {
    pub sys: S,
    pub closure: Closure,
    pub ev: Evaluation,
    /// M (one segment: its Jacobian).
    pub monodromy: DMatrix<f64>,
    pub bordered: Bordered,
    /// (F, g).
    pub residual: DVector<f64>,
    /// ∂(F, g)/∂(z, p₁, p₂), (n + 1) × (n + 2).
    pub jacobian: DMatrix<f64>,
}

/// Evaluates the family's shooting equations and test function.
pub(super) struct System<'a, F: Family2> {
    pub family: &'a F,
    pub opts: ShootingOptions,
    pub cancel: Cancel,
}

impl<F: Family2> System<'_, F> {
    /// F and M at (z, p), the system itself too.
    fn shoot(
        &self,
        z: &[f64],
        p: [f64; 2],
    ) -> Result<(F::Sys, Closure, Evaluation), PeriodicError> {
        let (sys, closure) = self.family.at(p)?;
        if !matches!(closure, Closure::Driven { .. }) {
            return Err(PeriodicError::invalid(
                "orbits.action",
                "a bifurcation curve follows a driven chain's orbits (an autonomous family's are not supported)",
            ));
        }
        let ev = Shooting {
            sys: &sys,
            closure,
            opts: self.opts,
            phase: None,
            cancel: self.cancel.clone(),
        }
        .evaluate(z)?;
        Ok((sys, closure, ev))
    }

    /// The residual (F, g) and its Jacobian at y; the side evaluations run in parallel, each
    /// into its own column, so the result is the same on any number of threads.
    pub fn evaluate(&self, y: &[f64], border: &Border) -> Result<Extended<F::Sys>, PeriodicError> {
        let d = y.len();
        let n = d - 2;
        let p = [y[n], y[n + 1]];
        let (sys, closure, ev) = self.shoot(&y[..n], p)?;
        let monodromy = ev.segments[0].jacobian.clone();
        let bordered = border.solve(&monodromy)?;
        let mut residual = DVector::zeros(n + 1);
        residual.rows_mut(0, n).copy_from(&ev.residual);
        residual[n] = bordered.g;
        // Central differences along every unknown: F's columns for the parameters, g's for all.
        let columns: Vec<Result<(DVector<f64>, f64), PeriodicError>> = (0..d)
            .into_par_iter()
            .map(|i| {
                let h = 1e-6 * y[i].abs().max(1.0);
                let side = |s: f64| -> Result<(DVector<f64>, f64), PeriodicError> {
                    let mut q = y.to_vec();
                    q[i] += s * h;
                    let (_, _, e) = self.shoot(&q[..n], [q[n], q[n + 1]])?;
                    let g = border.solve(&e.segments[0].jacobian)?.g;
                    Ok((e.residual, g))
                };
                let (fp, gp) = side(1.0)?;
                let (fm, gm) = side(-1.0)?;
                Ok(((fp - fm) / (2.0 * h), (gp - gm) / (2.0 * h)))
            })
            .collect();
        let mut jacobian = DMatrix::zeros(n + 1, d);
        jacobian.view_mut((0, 0), (n, n)).copy_from(&ev.jacobian);
        for (i, col) in columns.into_iter().enumerate() {
            let (fcol, gcol) = col?;
            if i >= n {
                jacobian.view_mut((0, i), (n, 1)).copy_from(&fcol);
            }
            jacobian[(n, i)] = gcol;
        }
        Ok(Extended {
            sys,
            closure,
            ev,
            monodromy,
            bordered,
            residual,
            jacobian,
        })
    }
}
