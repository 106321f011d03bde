//! Gauss–Legendre collocation: implicit, symmetric, symplectic Runge–Kutta of order 2s.
//!
//! Reference: E. Hairer, C. Lubich, G. Wanner, *Geometric Numerical Integration*, 2nd ed.,
//! §II.1.3 (collocation), §VI.4 (symplecticity), §VIII.5–6 (fixed-point iteration, starting
//! approximations, compensated summation).
//!
//! Symplectic only for a Hamiltonian system in canonical coordinates, so integrate
//! [`crate::model::Canonical`], not the chain's `(θ, θ̇)` form, when energy must stay bounded
//! over long times. With deviation vectors in the [`super::Flow`] the variational equations are
//! solved by the same collocation method, which gives the exact tangent map of the discrete step.
//!
//! - Stages solved by fixed-point iteration on the stage increments `Z_i = h Σ_j a_ij f(y + Z_j)`
//!   to round-off: until `max |ΔZ| / max(|y| + |Z|) ≤ 1e-15` (max over all stages and
//!   components), or until that measure stops decreasing once below 1e-10 (a round-off
//!   plateau). At most `max_iter` (50) sweeps.
//! - Starting guess: the previous step's collocation polynomial extrapolated over the new step
//!   (when the caller hands back the state the last step returned), else `Z_i = c_i h f(t, y)`.
//! - The update `y += h Σ b_j F_j` uses compensated (Kahan) summation, so round-off does not
//!   random-walk the energy over 10⁶ steps.
//! - Dense output: the collocation polynomial itself (order s at interior points, 2s at the ends).

// Numerical kernels index several parallel buffers with one counter; iterator chains over
// four or five zipped slices would hide the formulas they implement.
#![allow(clippy::needless_range_loop)]

use super::{check_finite, check_progress, FixedClock, IntegrateError, Ode, Result, Solver, Stats};

/// Gauss–Legendre collocation with `stages` ∈ {1, 2, 3} (order 2, 4, 6) and fixed step `dt` (s).
///
/// Default stages: 3 (order 6). Times are `t_k = t_0 + k·dt` with an integer step count, as for
/// [`super::Rk4`]; a step that would pass `t_stop` is shortened to land on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gauss {
    /// Step size (s), finite and > 0.
    pub dt: f64,
    /// Number of stages: 1 (implicit midpoint, order 2), 2 (order 4) or 3 (order 6).
    pub stages: usize,
}

impl Gauss {
    /// The stage counts this implementation has tableaus for (orders 2, 4 and 6).
    pub const STAGES: std::ops::RangeInclusive<usize> = 1..=3;

    /// Three stages (order 6) with step `dt`.
    pub fn new(dt: f64) -> Gauss {
        Gauss { dt, stages: 3 }
    }

    /// The classical order of the method, `2·stages`.
    pub fn order(&self) -> usize {
        2 * self.stages
    }

    /// A solver with buffers for vectors of length `len`.
    ///
    /// # Panics
    /// If `stages` is not in [`Gauss::STAGES`], or `dt` is not finite and > 0 (configuration
    /// errors, caught before any integration starts).
    pub fn solver(&self, len: usize) -> GaussSolver {
        assert!(
            Gauss::STAGES.contains(&self.stages),
            "Gauss: stages = {} is not supported (use 1, 2 or 3)",
            self.stages
        );
        assert!(
            self.dt.is_finite() && self.dt > 0.0,
            "Gauss: dt = {} must be finite and > 0",
            self.dt
        );
        GaussSolver {
            tab: Tableau::new(self.stages),
            max_iter: 50,
            clock: FixedClock::new(self.dt),
            t_prev: 0.0,
            t_new: f64::NAN,
            h_last: 0.0,
            len,
            z: vec![0.0; 3 * len],
            f: vec![0.0; 3 * len],
            y_stage: vec![0.0; len],
            y_prev: vec![0.0; len],
            y_last: vec![0.0; len],
            comp: vec![0.0; len],
            have_prev: false,
            fixed_size: true,
            last_iterations: 0,
            stats: Stats::default(),
        }
    }
}

/// The coefficients of the s-stage method: nodes `c`, matrix `a`, weights `b`, and the
/// integrals `L_j` of the Lagrange basis on `c` (ascending powers), from which the starting
/// guess and the dense output are built. The solver and the frequency map's lanes both step
/// with it.
#[derive(Debug, Clone, Copy)]
pub struct Tableau {
    pub s: usize,
    pub c: [f64; 3],
    pub a: [[f64; 3]; 3],
    pub b: [f64; 3],
    lp: [[f64; 4]; 3],
}

impl Tableau {
    /// The method with `s` ∈ [`Gauss::STAGES`] stages.
    pub fn new(s: usize) -> Tableau {
        let (c, a, b) = tableau(s);
        let mut lp = [[0.0; 4]; 3];
        for (j, l) in lp.iter_mut().enumerate().take(s) {
            *l = lagrange_integral(&c[..s], j);
        }
        Tableau { s, c, a, b, lp }
    }

    /// The starting guess of a step of length `h` after one of length `h_last`: the last
    /// collocation polynomial u extrapolated, `Z_i = u(t + c_i h) − u(t) = Σ_j w_ij F_j` with
    /// `w_ij = h_last (L_j(1 + c_i h / h_last) − b_j)` (F_j the last step's stage derivatives).
    #[inline(always)]
    pub fn extrapolation(&self, h_last: f64, h: f64) -> [[f64; 3]; 3] {
        let r = h / h_last;
        let mut w = [[0.0; 3]; 3];
        for i in 0..self.s {
            for j in 0..self.s {
                w[i][j] = h_last * (horner(&self.lp[j], 1.0 + r * self.c[i]) - self.b[j]);
            }
        }
        w
    }
}

/// The stage iteration's stopping rule (module doc): a sweep whose largest change `change`,
/// relative to the state's scale `scale`, is at round-off (≤ 1e-15), or no longer falls below
/// the last sweep's `prev` once under 1e-10. Returns (done, this sweep's relative change).
#[inline(always)]
pub fn sweeps_done(change: f64, scale: f64, prev: f64) -> (bool, f64) {
    // One scale for all components: a per-component ratio blows up where a component and its
    // increment are both ~0 while the rounding of f is not.
    let delta = if change == 0.0 { 0.0 } else { change / scale };
    (delta <= 1e-15 || (delta >= prev && delta <= 1e-10), delta)
}

/// The stopping state of one step's fixed-point sweeps: [`sweeps_done`] against the last
/// sweep's relative change.
struct Sweeps {
    prev: f64,
}

impl Sweeps {
    #[inline(always)]
    fn new() -> Sweeps {
        Sweeps {
            prev: f64::INFINITY,
        }
    }

    /// After a sweep whose largest stage change is `change` (against the state's `scale`):
    /// `Some(true)` converged, `Some(false)` failed (a NaN: the stages are lost), `None` to
    /// sweep again.
    #[inline(always)]
    fn after(&mut self, change: f64, scale: f64) -> Option<bool> {
        if change.is_nan() || scale.is_nan() {
            return Some(false);
        }
        let (done, delta) = sweeps_done(change, scale, self.prev);
        if done {
            return Some(true);
        }
        self.prev = delta;
        None
    }
}

/// A state of the `L` components a fixed-size step was chosen for.
#[inline(always)]
fn fixed<const L: usize>(y: &mut [f64]) -> &mut [f64; L] {
    y.try_into().expect("state length")
}

/// `y += dy` with Kahan's compensation `comp`, so that round-off does not random-walk the
/// energy over 10⁶ steps.
#[inline(always)]
pub fn compensated_add(y: &mut f64, comp: &mut f64, dy: f64) {
    let d = dy + *comp;
    let yn = *y + d;
    *comp = d - (yn - *y);
    *y = yn;
}

/// Nodes, matrix and weights of the s-stage Gauss method (closed forms).
fn tableau(s: usize) -> ([f64; 3], [[f64; 3]; 3], [f64; 3]) {
    match s {
        1 => (
            [0.5, 0.0, 0.0],
            [[0.5, 0.0, 0.0], [0.0; 3], [0.0; 3]],
            [1.0, 0.0, 0.0],
        ),
        2 => {
            let r = 3f64.sqrt() / 6.0;
            (
                [0.5 - r, 0.5 + r, 0.0],
                [[0.25, 0.25 - r, 0.0], [0.25 + r, 0.25, 0.0], [0.0; 3]],
                [0.5, 0.5, 0.0],
            )
        }
        _ => {
            let r = 15f64.sqrt();
            (
                [0.5 - r / 10.0, 0.5, 0.5 + r / 10.0],
                [
                    [5.0 / 36.0, 2.0 / 9.0 - r / 15.0, 5.0 / 36.0 - r / 30.0],
                    [5.0 / 36.0 + r / 24.0, 2.0 / 9.0, 5.0 / 36.0 - r / 24.0],
                    [5.0 / 36.0 + r / 30.0, 2.0 / 9.0 + r / 15.0, 5.0 / 36.0],
                ],
                [5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0],
            )
        }
    }
}

/// Coefficients (ascending powers) of `L_j(θ) = ∫₀^θ ℓ_j`, ℓ_j the Lagrange basis on `c`.
fn lagrange_integral(c: &[f64], j: usize) -> [f64; 4] {
    let mut p = [0.0; 4];
    p[0] = 1.0;
    let mut deg = 0;
    for (m, &cm) in c.iter().enumerate() {
        if m == j {
            continue;
        }
        let den = c[j] - cm;
        // p ← p · (τ − c_m) / den
        for k in (0..=deg + 1).rev() {
            let lower = if k > 0 { p[k - 1] } else { 0.0 };
            let here = if k <= deg { p[k] } else { 0.0 };
            p[k] = (lower - cm * here) / den;
        }
        deg += 1;
    }
    let mut out = [0.0; 4];
    for k in 0..=deg {
        out[k + 1] = p[k] / (k + 1) as f64;
    }
    out
}

#[inline]
fn horner(p: &[f64; 4], x: f64) -> f64 {
    ((p[3] * x + p[2]) * x + p[1]) * x + p[0]
}

/// Gauss buffers and step bookkeeping.
#[derive(Debug, Clone)]
pub struct GaussSolver {
    tab: Tableau,
    /// Fixed-point sweeps after which [`IntegrateError::NoConvergence`] is returned (default 50).
    pub max_iter: u32,
    clock: FixedClock,
    t_prev: f64,
    t_new: f64,
    h_last: f64,
    len: usize,
    /// Stage increments Z_i (stage i at `i·len`).
    z: Vec<f64>,
    /// Stage derivatives F_i = f(t + c_i h, y + Z_i).
    f: Vec<f64>,
    y_stage: Vec<f64>,
    y_prev: Vec<f64>,
    /// The state the last step returned (to detect a caller's change of `y`).
    y_last: Vec<f64>,
    /// Kahan compensation of the running sum y.
    comp: Vec<f64>,
    have_prev: bool,
    /// Take [`GaussSolver::gauss_step_fixed`] where it applies (false only in the test that
    /// compares it with the general loop).
    fixed_size: bool,
    last_iterations: u32,
    stats: Stats,
}

impl GaussSolver {
    /// Fixed-point sweeps used by the last step.
    pub fn last_iterations(&self) -> u32 {
        self.last_iterations
    }

    /// After a step's sweeps (`it` of them): records their count, fails the step at `t` if
    /// they did not converge, else keeps the step's start state `y` (for the dense output).
    #[inline(always)]
    fn end_sweeps(
        &mut self,
        it: u32,
        converged: bool,
        t: f64,
        y: &[f64],
    ) -> Result<(), IntegrateError> {
        self.last_iterations = it;
        if !converged {
            return Err(IntegrateError::NoConvergence { time: t });
        }
        self.y_prev.copy_from_slice(y);
        Ok(())
    }

    /// [`GaussSolver::gauss_step_any`] for three stages and `L` components, on arrays of
    /// compile-time size: the same operations in the same order (the same bits), with the
    /// loops unrolled and no bounds checks, which were a quarter of a frequency map's time
    /// once the right-hand side of small chains was closed-form (issue 33).
    #[inline(never)]
    fn gauss_step_fixed<O: Ode, const L: usize>(
        &mut self,
        ode: &mut O,
        t: f64,
        h: f64,
        y: &mut [f64; L],
    ) -> Result<(), IntegrateError> {
        const S: usize = 3;
        let mut f = [[0.0; L]; S];
        for (j, fj) in f.iter_mut().enumerate() {
            fj.copy_from_slice(&self.f[j * L..(j + 1) * L]);
        }
        let mut z = [[0.0; L]; S];
        let continuing = self.have_prev && t == self.t_new && y[..] == self.y_last[..];
        let tab = self.tab;
        if continuing {
            let w = tab.extrapolation(self.h_last, h);
            for i in 0..S {
                for q in 0..L {
                    let mut acc = 0.0;
                    for j in 0..S {
                        acc += w[i][j] * f[j][q];
                    }
                    z[i][q] = acc;
                }
            }
        } else {
            check_finite(t, y)?;
            self.comp.fill(0.0);
            ode.eval(t, y, &mut f[0]);
            self.stats.evals += 1;
            for i in (0..S).rev() {
                for q in 0..L {
                    z[i][q] = tab.c[i] * h * f[0][q];
                }
            }
        }
        let (a, c) = (tab.a, tab.c);
        let mut y_stage = [0.0; L];
        let mut sweeps = Sweeps::new();
        let mut converged = false;
        let mut it = 0;
        while it < self.max_iter {
            it += 1;
            for i in 0..S {
                for q in 0..L {
                    y_stage[q] = y[q] + z[i][q];
                }
                ode.eval(t + c[i] * h, &y_stage, &mut f[i]);
            }
            self.stats.evals += S as u64;
            let mut change: f64 = 0.0;
            let mut scale: f64 = 0.0;
            for i in 0..S {
                let ai = a[i];
                for q in 0..L {
                    let mut acc = 0.0;
                    for j in 0..S {
                        acc += ai[j] * f[j][q];
                    }
                    let znew = h * acc;
                    let zold = z[i][q];
                    change = change.max((znew - zold).abs());
                    scale = scale.max(y[q].abs() + zold.abs());
                    z[i][q] = znew;
                }
            }
            if let Some(ok) = sweeps.after(change, scale) {
                converged = ok;
                break;
            }
        }
        for (j, fj) in f.iter().enumerate() {
            self.f[j * L..(j + 1) * L].copy_from_slice(fj);
            self.z[j * L..(j + 1) * L].copy_from_slice(&z[j]);
        }
        self.end_sweeps(it, converged, t, y)?;
        let comp: &mut [f64; L] = (&mut self.comp[..]).try_into().expect("state length");
        for q in 0..L {
            let mut inc = 0.0;
            for j in 0..S {
                inc += tab.b[j] * f[j][q];
            }
            compensated_add(&mut y[q], &mut comp[q], h * inc);
        }
        self.h_last = h;
        self.stats.steps += 1;
        Ok(())
    }

    /// One collocation step of size `h` from `(t, y)`, in place (any stages and length).
    fn gauss_step_any<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        h: f64,
        y: &mut [f64],
    ) -> Result<(), IntegrateError> {
        let (tab, len) = (self.tab, self.len);
        let s = tab.s;
        let continuing = self.have_prev && t == self.t_new && y == self.y_last.as_slice();
        if continuing {
            let w = tab.extrapolation(self.h_last, h);
            for i in 0..s {
                for q in 0..len {
                    let mut acc = 0.0;
                    for j in 0..s {
                        acc += w[i][j] * self.f[j * len + q];
                    }
                    self.z[i * len + q] = acc;
                }
            }
        } else {
            check_finite(t, y)?;
            self.comp.fill(0.0);
            ode.eval(t, y, &mut self.f[..len]);
            self.stats.evals += 1;
            for i in (0..s).rev() {
                for q in 0..len {
                    self.z[i * len + q] = tab.c[i] * h * self.f[q];
                }
            }
        }
        let mut sweeps = Sweeps::new();
        let mut converged = false;
        let mut it = 0;
        while it < self.max_iter {
            it += 1;
            for i in 0..s {
                for q in 0..len {
                    self.y_stage[q] = y[q] + self.z[i * len + q];
                }
                ode.eval(
                    t + tab.c[i] * h,
                    &self.y_stage,
                    &mut self.f[i * len..(i + 1) * len],
                );
            }
            self.stats.evals += s as u64;
            let mut change: f64 = 0.0;
            let mut scale: f64 = 0.0;
            for i in 0..s {
                let ai = tab.a[i];
                for q in 0..len {
                    let mut acc = 0.0;
                    for j in 0..s {
                        acc += ai[j] * self.f[j * len + q];
                    }
                    let znew = h * acc;
                    let zold = self.z[i * len + q];
                    change = change.max((znew - zold).abs());
                    scale = scale.max(y[q].abs() + zold.abs());
                    self.z[i * len + q] = znew;
                }
            }
            if let Some(ok) = sweeps.after(change, scale) {
                converged = ok;
                break;
            }
        }
        self.end_sweeps(it, converged, t, y)?;
        for q in 0..len {
            let mut inc = 0.0;
            for j in 0..s {
                inc += tab.b[j] * self.f[j * len + q];
            }
            compensated_add(&mut y[q], &mut self.comp[q], h * inc);
        }
        self.h_last = h;
        self.stats.steps += 1;
        Ok(())
    }
}

impl Solver for GaussSolver {
    /// One step of `dt` (shortened to land on `t_stop`).
    ///
    /// Errors: [`IntegrateError::NoConvergence`] when the stage iteration does not reach
    /// round-off within `max_iter` sweeps (step too large for the dynamics, roughly
    /// `dt · ‖∂f/∂y‖ ≳ 1`), [`IntegrateError::NonFinite`] for NaN/Inf in the input or result,
    /// [`IntegrateError::NoProgress`] when `dt` is below the resolution of `t` or `t_stop`.
    fn step<O: Ode>(&mut self, ode: &mut O, t: f64, y: &mut [f64], t_stop: f64) -> Result<f64> {
        debug_assert_eq!(y.len(), self.len);
        check_progress(t, self.clock.dt, t_stop)?;
        let (t_next, reset) = self.clock.next(t, t_stop);
        if t_next <= t {
            // Nothing left to do at t_stop; short of it, a step that cannot advance t.
            if t >= t_stop {
                return Ok(t);
            }
            return Err(IntegrateError::NoProgress {
                time: t,
                h: self.clock.dt,
            });
        }
        // One collocation step of size h: three stages on states of 2, 4 or 6 components
        // (planar chains of 1 to 3 links without deviation vectors, the frequency map's
        // orbits) take `gauss_step_fixed`, the rest the general loop.
        let h = t_next - t;
        match (self.tab.s, if self.fixed_size { self.len } else { 0 }) {
            (3, 2) => self.gauss_step_fixed::<O, 2>(ode, t, h, fixed(y)),
            (3, 4) => self.gauss_step_fixed::<O, 4>(ode, t, h, fixed(y)),
            (3, 6) => self.gauss_step_fixed::<O, 6>(ode, t, h, fixed(y)),
            _ => self.gauss_step_any(ode, t, h, y),
        }?;
        ode.project(y);
        self.t_prev = t;
        self.t_new = t_next;
        self.have_prev = true;
        self.y_last.copy_from_slice(y);
        self.clock.commit(t_next, reset);
        check_finite(t_next, y)?;
        Ok(t_next)
    }

    /// The collocation polynomial of the last step at `s ∈ [t_prev, t_new]`; no evaluations.
    fn dense<O: Ode>(&mut self, _ode: &mut O, s: f64, out: &mut [f64]) {
        if !self.have_prev {
            return;
        }
        let h = self.h_last;
        let th = (s - self.t_prev) / h;
        let mut w = [0.0; 3];
        for (j, wj) in w.iter_mut().enumerate().take(self.tab.s) {
            *wj = h * horner(&self.tab.lp[j], th);
        }
        let len = self.len;
        for q in 0..len {
            let mut acc = 0.0;
            for (j, wj) in w.iter().enumerate().take(self.tab.s) {
                acc += wj * self.f[j * len + q];
            }
            out[q] = self.y_prev[q] + acc;
        }
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate::test_odes::Osc;

    /// The closed-form tableau is the collocation one: a_ij = L_j(c_i), b_j = L_j(1).
    #[test]
    fn tableau_is_collocation() {
        for s in 1..=3 {
            let (c, a, b) = tableau(s);
            for j in 0..s {
                let l = lagrange_integral(&c[..s], j);
                assert!(
                    (horner(&l, 1.0) - b[j]).abs() < 4e-15,
                    "s={s} b[{j}]: {}",
                    horner(&l, 1.0) - b[j]
                );
                for i in 0..s {
                    assert!(
                        (horner(&l, c[i]) - a[i][j]).abs() < 4e-15,
                        "s={s} a[{i}][{j}]"
                    );
                }
            }
        }
    }

    /// On a linear oscillator the Gauss method conserves the quadratic invariant exactly.
    #[test]
    fn oscillator_quadratic_invariant() {
        for stages in 1..=3 {
            let mut s = Gauss { dt: 0.1, stages }.solver(2);
            let mut y = [1.0, 0.0];
            let t = s.advance_to(&mut Osc, 0.0, &mut y, 100.0).unwrap();
            assert_eq!(t, 100.0);
            let e = y[0] * y[0] + y[1] * y[1];
            assert!((e - 1.0).abs() < 1e-13, "stages {stages}: {e}");
            // Dense output interpolates between the ends.
            let mut out = [0.0; 2];
            s.dense(&mut Osc, 100.0, &mut out);
            assert!((out[0] - y[0]).abs() < 1e-14);
        }
    }

    /// The fixed-size path (3 stages, 2/4/6 components) gives the general loop's bits.
    #[test]
    fn fixed_path_has_the_general_bits() {
        use crate::integrate::Flow;
        use crate::model::{Canonical, Chain, ChainParams};
        for links in 1..=3 {
            let chain = Chain::new(ChainParams::equal_points(links)).unwrap();
            let can = Canonical(&chain);
            let x0: Vec<f64> = (0..2 * links).map(|i| 1.3 - 0.4 * i as f64).collect();
            let y0 = chain.to_canonical(&x0);
            let mut fixed = Gauss::new(0.07).solver(y0.len());
            let mut general = fixed.clone();
            general.fixed_size = false;
            let (mut fa, mut fb) = (Flow::new(&can), Flow::new(&can));
            let (mut ya, mut yb) = (y0.clone(), y0.clone());
            let (mut ta, mut tb) = (0.0, 0.0);
            for _ in 0..300 {
                ta = fixed.step(&mut fa, ta, &mut ya, 100.0).unwrap();
                tb = general.step(&mut fb, tb, &mut yb, 100.0).unwrap();
                assert_eq!(ta, tb);
                assert_eq!(ya, yb, "{links} links");
                assert_eq!(fixed.last_iterations(), general.last_iterations());
            }
        }
    }

    #[test]
    #[should_panic(expected = "stages = 4")]
    fn rejects_four_stages() {
        let _ = Gauss { dt: 0.1, stages: 4 }.solver(2);
    }
}
