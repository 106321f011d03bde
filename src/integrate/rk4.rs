//! Classical fixed-step RK4 (as docs/benchmarks.md defines it), with a cubic Hermite continuous extension.

use super::{check_finite, check_progress, FixedClock, IntegrateError, Ode, Result, Solver, Stats};

/// Classical Runge–Kutta of order 4 with a fixed step `dt` (s).
///
/// Times are `t_k = t_0 + k·dt` with an integer step count, never a running sum, so step
/// decisions are reproducible. A step that would pass `t_stop` is shortened to land on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rk4 {
    pub dt: f64,
}

impl Rk4 {
    pub fn new(dt: f64) -> Rk4 {
        Rk4 { dt }
    }
    /// A solver with buffers for vectors of length `len`.
    pub fn solver(&self, len: usize) -> Rk4Solver {
        Rk4Solver {
            clock: FixedClock::new(self.dt),
            t_prev: 0.0,
            t_new: 0.0,
            k: [
                vec![0.0; len],
                vec![0.0; len],
                vec![0.0; len],
                vec![0.0; len],
            ],
            tmp: vec![0.0; len],
            y_prev: vec![0.0; len],
            f_prev: vec![0.0; len],
            f_new: vec![0.0; len],
            f_new_valid: false,
            stats: Stats::default(),
        }
    }
}

/// RK4 buffers and step bookkeeping.
#[derive(Debug, Clone)]
pub struct Rk4Solver {
    clock: FixedClock,
    t_prev: f64,
    t_new: f64,
    k: [Vec<f64>; 4],
    tmp: Vec<f64>,
    y_prev: Vec<f64>,
    f_prev: Vec<f64>,
    f_new: Vec<f64>,
    f_new_valid: bool,
    stats: Stats,
}

impl Rk4Solver {
    /// One RK4 step of size `h` from `(t, y)`, in place.
    #[inline]
    pub fn rk4_step<O: Ode>(&mut self, ode: &mut O, t: f64, h: f64, y: &mut [f64]) {
        let [k1, k2, k3, k4] = &mut self.k;
        let tmp = &mut self.tmp;
        ode.eval(t, y, k1);
        for i in 0..y.len() {
            tmp[i] = y[i] + 0.5 * h * k1[i];
        }
        ode.eval(t + 0.5 * h, tmp, k2);
        for i in 0..y.len() {
            tmp[i] = y[i] + 0.5 * h * k2[i];
        }
        ode.eval(t + 0.5 * h, tmp, k3);
        for i in 0..y.len() {
            tmp[i] = y[i] + h * k3[i];
        }
        ode.eval(t + h, tmp, k4);
        let h6 = h / 6.0;
        for i in 0..y.len() {
            y[i] += h6 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        ode.project(y);
        self.stats.steps += 1;
        self.stats.evals += 4;
    }
}

impl Solver for Rk4Solver {
    /// Errors: [`IntegrateError::NoProgress`] when `dt` is below the resolution of `t` or
    /// `t_stop` (the loop would never end), [`IntegrateError::NonFinite`] for NaN/Inf.
    fn step<O: Ode>(&mut self, ode: &mut O, t: f64, y: &mut [f64], t_stop: f64) -> Result<f64> {
        check_progress(t, self.clock.dt, t_stop)?;
        let (t_next, reset) = self.clock.next(t, t_stop);
        if t_next <= t && t < t_stop {
            return Err(IntegrateError::NoProgress {
                time: t,
                h: self.clock.dt,
            });
        }
        self.y_prev.copy_from_slice(y);
        self.t_prev = t;
        self.rk4_step(ode, t, t_next - t, y);
        self.f_prev.copy_from_slice(&self.k[0]);
        self.f_new_valid = false;
        self.t_new = t_next;
        self.clock.commit(t_next, reset);
        check_finite(t_next, y)?;
        Ok(t_next)
    }

    /// Cubic Hermite interpolation between the last two points (third order, C¹).
    fn dense<O: Ode>(&mut self, ode: &mut O, s: f64, out: &mut [f64]) {
        let h = self.t_new - self.t_prev;
        if !self.f_new_valid {
            // y_new = y_prev + h·(...) was written back into the caller's y; rebuild it.
            let [k1, k2, k3, k4] = &self.k;
            for i in 0..out.len() {
                self.tmp[i] =
                    self.y_prev[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            ode.eval(self.t_new, &self.tmp, &mut self.f_new);
            self.stats.evals += 1;
            self.f_new_valid = true;
        }
        let th = if h == 0.0 { 1.0 } else { (s - self.t_prev) / h };
        let [k1, k2, k3, k4] = &self.k;
        for i in 0..out.len() {
            let y0 = self.y_prev[i];
            let y1 = y0 + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            let (f0, f1) = (self.f_prev[i], self.f_new[i]);
            let h00 = (1.0 + 2.0 * th) * (1.0 - th) * (1.0 - th);
            let h10 = th * (1.0 - th) * (1.0 - th);
            let h01 = th * th * (3.0 - 2.0 * th);
            let h11 = th * th * (th - 1.0);
            out[i] = h00 * y0 + h * h10 * f0 + h01 * y1 + h * h11 * f1;
        }
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}
