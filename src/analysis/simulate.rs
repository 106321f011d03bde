//! `simulate`: a sampled trajectory of a planar chain, with its energy balance.

use super::AnalysisError;
use crate::integrate::{
    component_name, Dop853, Flow, Gauss, IntegrateError, Method, Rk4, Solver, Stats,
};
use crate::model::{Canonical, Chain, System};
use crate::observe::{Control, Observer};
use ndarray::Array2;
use serde::Serialize;

/// Options of [`simulate`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SimulateOptions {
    /// End time (s), > 0.
    pub t_end: f64,
    /// Sampling interval (s), > 0; samples at k·dt_out, plus t_end if it is off that grid.
    pub dt_out: f64,
}

/// A sampled trajectory. Arrays are (time, link).
#[derive(Debug, Clone)]
pub struct Trajectory {
    pub t: Vec<f64>,
    pub theta: Array2<f64>,
    pub omega: Array2<f64>,
    /// Total energy T + V (J) at each sample.
    pub energy: Vec<f64>,
    /// Work of the non-conservative forces W(t) = ∫₀ᵗ θ̇·Q dt (J), integrated with the state;
    /// zero for a conservative chain. The balance E(t) − E(0) − W(t) is the integrator's error.
    pub work: Vec<f64>,
    pub method: Method,
    pub stats: Stats,
    /// Energy scale used for relative errors: max(|E(0)|, g Σ b_j), so that a chain released with
    /// E(0) ≈ 0 still gets a meaningful relative figure.
    pub energy_scale: f64,
    /// False when an observer stopped the run early (the samples up to then are kept).
    pub complete: bool,
}

impl Trajectory {
    /// Samples stored.
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
    /// |E(t) − E(0) − W(t)| / energy_scale at each sample.
    pub fn energy_error(&self) -> Vec<f64> {
        let e0 = self.energy[0];
        self.energy
            .iter()
            .zip(&self.work)
            .map(|(e, w)| (e - e0 - w).abs() / self.energy_scale)
            .collect()
    }
    /// Energy balance error at the last sample, relative to the energy scale.
    pub fn relative_energy_drift(&self) -> f64 {
        *self.energy_error().last().unwrap_or(&0.0)
    }
    /// Largest energy balance error over all samples, relative to the energy scale.
    pub fn max_relative_energy_error(&self) -> f64 {
        self.energy_error().into_iter().fold(0.0, f64::max)
    }
    /// The final state (θ, θ̇).
    pub fn final_state(&self) -> Vec<f64> {
        let k = self.len() - 1;
        self.theta
            .row(k)
            .iter()
            .chain(self.omega.row(k).iter())
            .copied()
            .collect()
    }
}

/// Integrates `chain` from `x0 = (θ, θ̇)` to `opts.t_end`, sampling every `opts.dt_out`.
///
/// Fixed-step methods land on every sample time (so `dt_out` should be a multiple of `dt`;
/// otherwise the step before each sample is shortened); the adaptive method steps freely and
/// samples its dense output. Gauss–Legendre runs in canonical coordinates (θ, p), where it is
/// symplectic. Errors: [`AnalysisError::Blowup`] names the time and variable of a NaN/Inf.
pub fn simulate(
    chain: &Chain,
    method: &Method,
    x0: &[f64],
    opts: &SimulateOptions,
    observer: &mut dyn Observer,
) -> Result<Trajectory, AnalysisError> {
    let work = !chain.is_conservative();
    let ident = |y: &[f64]| y.to_vec();
    match *method {
        Method::Rk4 { dt } => {
            let flow = Flow::with_layout(chain, work, 0);
            let solver = Rk4::new(dt).solver(flow.layout.len());
            run(
                chain,
                flow,
                solver,
                false,
                x0.to_vec(),
                &ident,
                method,
                opts,
                observer,
            )
        }
        Method::Dop853 { rtol, atol, h_max } => {
            let flow = Flow::with_layout(chain, work, 0);
            let solver = Dop853 {
                rtol,
                atol,
                h_max,
                ..Default::default()
            }
            .solver(flow.layout.len());
            run(
                chain,
                flow,
                solver,
                true,
                x0.to_vec(),
                &ident,
                method,
                opts,
                observer,
            )
        }
        Method::Gauss { dt, stages } => {
            let canonical = Canonical(chain);
            let flow = Flow::with_layout(&canonical, work, 0);
            let solver = Gauss { dt, stages }.solver(flow.layout.len());
            let back = |y: &[f64]| chain.from_canonical(y);
            let y0 = chain.to_canonical(x0);
            run(
                chain, flow, solver, false, y0, &back, method, opts, observer,
            )
        }
    }
}

/// Sample times k·dt_out ≤ t_end, plus t_end when it is off the grid.
fn sample_times(opts: &SimulateOptions) -> Vec<f64> {
    let k_max = (opts.t_end / opts.dt_out * (1.0 + 1e-12)).floor() as u64;
    let mut ts: Vec<f64> = (0..=k_max).map(|k| k as f64 * opts.dt_out).collect();
    let last = *ts.last().unwrap();
    if (opts.t_end - last) > 1e-9 * opts.dt_out {
        ts.push(opts.t_end);
    } else {
        *ts.last_mut().unwrap() = opts.t_end;
    }
    ts
}

#[allow(clippy::too_many_arguments)]
fn run<S: System, V: Solver>(
    chain: &Chain,
    mut flow: Flow<'_, S>,
    mut solver: V,
    dense: bool,
    y0: Vec<f64>,
    to_physical: &dyn Fn(&[f64]) -> Vec<f64>,
    method: &Method,
    opts: &SimulateOptions,
    observer: &mut dyn Observer,
) -> Result<Trajectory, AnalysisError> {
    let n = chain.links();
    let layout = flow.layout;
    let times = sample_times(opts);
    let mut y = flow.initial(&y0, None);
    let mut buf = vec![0.0; y.len()];
    let mut t = 0.0;
    let mut tr = Trajectory {
        t: Vec::with_capacity(times.len()),
        theta: Array2::zeros((0, n)),
        omega: Array2::zeros((0, n)),
        energy: Vec::with_capacity(times.len()),
        work: Vec::with_capacity(times.len()),
        method: *method,
        stats: Stats::default(),
        energy_scale: 0.0,
        complete: true,
    };
    let mut theta = Vec::with_capacity(times.len() * n);
    let mut omega = Vec::with_capacity(times.len() * n);
    let mut record = |ts: f64, ya: &[f64], tr: &mut Trajectory| {
        let x = to_physical(&ya[..layout.n]);
        theta.extend_from_slice(&x[..n]);
        omega.extend_from_slice(&x[n..2 * n]);
        tr.t.push(ts);
        tr.energy.push(chain.energy(ts, &x));
        tr.work.push(if layout.work { ya[layout.n] } else { 0.0 });
    };
    let sys = flow.sys;
    let name = |e: IntegrateError| match e {
        IntegrateError::NonFinite { time, index } => AnalysisError::Blowup {
            time,
            variable: component_name(sys, layout, index),
        },
        other => AnalysisError::Integrate(other),
    };
    observer.start(times.len() as u64 - 1, "samples");
    record(0.0, &y, &mut tr);
    let mut next = 1;
    'outer: while next < times.len() {
        let t_stop = if dense { opts.t_end } else { times[next] };
        let t_new = solver.step(&mut flow, t, &mut y, t_stop).map_err(name)?;
        if dense {
            while next < times.len() && times[next] <= t_new {
                if times[next] == t_new {
                    buf.copy_from_slice(&y);
                } else {
                    solver.dense(&mut flow, times[next], &mut buf);
                }
                record(times[next], &buf, &mut tr);
                next += 1;
                if observer.advance(next as u64 - 1) == Control::Stop {
                    tr.complete = false;
                    break 'outer;
                }
            }
        } else if t_new >= times[next] {
            record(times[next], &y, &mut tr);
            next += 1;
            if observer.advance(next as u64 - 1) == Control::Stop {
                tr.complete = false;
                break;
            }
        }
        t = t_new;
    }
    observer.finish();
    let rows = tr.t.len();
    tr.theta = Array2::from_shape_vec((rows, n), theta).expect("shape");
    tr.omega = Array2::from_shape_vec((rows, n), omega).expect("shape");
    tr.stats = solver.stats();
    let depth = chain.gravity().abs() * chain.b().iter().sum::<f64>();
    tr.energy_scale = tr.energy[0].abs().max(depth).max(f64::MIN_POSITIVE);
    Ok(tr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_grid_includes_end() {
        let ts = sample_times(&SimulateOptions {
            t_end: 1.0,
            dt_out: 0.1,
        });
        assert_eq!(ts.len(), 11);
        assert_eq!(*ts.last().unwrap(), 1.0);
        let ts = sample_times(&SimulateOptions {
            t_end: 1.05,
            dt_out: 0.1,
        });
        assert_eq!(ts.len(), 12);
        assert_eq!(*ts.last().unwrap(), 1.05);
    }
}
