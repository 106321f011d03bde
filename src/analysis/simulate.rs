//! `simulate`: a sampled trajectory of any model, with its energy balance.
//!
//! One sampling loop serves every model: it records the time, the state (in the model's
//! coordinates) and the work integral at each sample ([`Samples`]); the model turns them into
//! its own trajectory record with its observables ([`Sampled`]): θ, θ̇ and the energy for the
//! planar [`Chain`] ([`Trajectory`]), the cart position, momentum and L_z for a
//! [`crate::model::CartChain`] (`CartTrajectory`, in the cart chain's analyses).

use super::energy::EnergyBalance;
use super::route::{Routed, Task, View};
use super::AnalysisError;
use crate::integrate::{Flow, Method, Solver, Stats};
use crate::model::{Chain, System};
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

/// A sampled trajectory of a planar chain. Arrays are (time, link).
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
    /// Energy scale used for relative errors: max(|E(0)|, g Σ b_j) ([`System::energy_scale`]), so
    /// that a chain released with E(0) ≈ 0 still gets a meaningful relative figure.
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
    /// The run's energy balance ([`EnergyBalance`]: E(0) and the scale).
    pub fn balance(&self) -> EnergyBalance {
        EnergyBalance {
            initial: self.energy[0],
            scale: self.energy_scale,
        }
    }
    /// |E(t) − E(0) − W(t)| / energy_scale at each sample.
    pub fn energy_error(&self) -> Vec<f64> {
        let b = self.balance();
        self.energy
            .iter()
            .zip(&self.work)
            .map(|(&e, &w)| b.relative(e, w))
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

/// A model [`simulate`] can run: it says whether the work integral rides along and builds its
/// trajectory record from the raw samples.
pub trait Sampled: Routed {
    /// The model's trajectory record.
    type Trajectory;
    /// Whether the run integrates the work of the non-conservative forces with the state (it
    /// enters an adaptive method's error norm, so it is part of the run's definition).
    fn integrates_work(&self) -> bool {
        true
    }
    /// The model's trajectory from the samples of one run.
    fn trajectory(&self, samples: Samples) -> Self::Trajectory;
}

/// What the sampling loop of [`simulate`] records, for any model.
#[derive(Debug, Clone)]
pub struct Samples {
    pub t: Vec<f64>,
    /// time × dim, row-major, in the model's coordinates.
    pub states: Vec<f64>,
    /// Length of one state.
    pub dim: usize,
    /// W(t) = ∫₀ᵗ (power of the non-conservative forces) dt (J); zeros when the model does not
    /// integrate it.
    pub work: Vec<f64>,
    pub method: Method,
    pub stats: Stats,
    /// False when an observer stopped the run early (the samples up to then are kept).
    pub complete: bool,
}

impl Samples {
    /// Samples stored.
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
    /// The state at sample `k`.
    pub fn state(&self, k: usize) -> &[f64] {
        &self.states[k * self.dim..(k + 1) * self.dim]
    }
}

/// Integrates `model` from `x0` (the model's coordinates, e.g. `(θ, θ̇)`) to `opts.t_end`,
/// sampling every `opts.dt_out`, and returns the model's trajectory record.
///
/// Fixed-step methods land on every sample time (so `dt_out` should be a multiple of `dt`;
/// otherwise the step before each sample is shortened); the adaptive method steps freely and
/// samples its dense output, except for a model whose state is constrained to a manifold
/// ([`System::manifold_dim`] < [`System::dim`]), where it lands on every sample time too so that
/// samples are projected solver points. The method integrates the system [`Routed`] picks (the
/// planar chain runs Gauss–Legendre in canonical coordinates (θ, p), where it is symplectic).
/// Errors: [`AnalysisError::Blowup`] names the time and variable of a NaN/Inf.
pub fn simulate<M: Sampled>(
    model: &M,
    method: &Method,
    x0: &[f64],
    opts: &SimulateOptions,
    observer: &mut dyn Observer,
) -> Result<M::Trajectory, AnalysisError> {
    let task = Sampling {
        method,
        opts,
        work: model.integrates_work(),
        observer,
    };
    let samples = model.run_task(method, x0, task)?;
    Ok(model.trajectory(samples))
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

/// The sampling loop, on whichever system the method integrates.
struct Sampling<'a> {
    method: &'a Method,
    opts: &'a SimulateOptions,
    work: bool,
    observer: &'a mut dyn Observer,
}

impl Task for Sampling<'_> {
    type Output = Result<Samples, AnalysisError>;

    fn run<V: View>(self, sys: &V, y0: &[f64]) -> Self::Output {
        let Sampling {
            method,
            opts,
            work,
            observer,
        } = self;
        let mut flow = Flow::with_layout(sys, work, 0);
        let layout = flow.layout;
        let mut solver = method.solver(layout.len());
        let dense = method.fixed_dt().is_none() && sys.manifold_dim() == sys.dim();
        let times = sample_times(opts);
        let mut y = flow.initial(y0, None);
        let mut buf = vec![0.0; y.len()];
        let mut t = 0.0;
        let mut out = Samples {
            t: Vec::with_capacity(times.len()),
            states: Vec::with_capacity(times.len() * layout.n),
            dim: layout.n,
            work: Vec::with_capacity(times.len()),
            method: *method,
            stats: Stats::default(),
            complete: true,
        };
        let record = |ts: f64, ya: &[f64], out: &mut Samples| {
            out.t.push(ts);
            out.states.extend_from_slice(&sys.to_model(&ya[..layout.n]));
            out.work.push(if layout.work { ya[layout.n] } else { 0.0 });
        };
        let name = AnalysisError::naming(sys, layout);
        let cancel = observer.cancel();
        observer.start(times.len() as u64 - 1, "samples");
        record(0.0, &y, &mut out);
        let mut next = 1;
        let mut steps = 0u64;
        'outer: while next < times.len() {
            // Samples can be millions of steps apart: poll the stop request between them too.
            steps += 1;
            if cancel.poll(steps) {
                out.complete = false;
                break;
            }
            let t_stop = if dense { opts.t_end } else { times[next] };
            let t_new = solver.step(&mut flow, t, &mut y, t_stop).map_err(&name)?;
            if dense {
                while next < times.len() && times[next] <= t_new {
                    if times[next] == t_new {
                        buf.copy_from_slice(&y);
                    } else {
                        solver.dense(&mut flow, times[next], &mut buf);
                    }
                    record(times[next], &buf, &mut out);
                    next += 1;
                    if observer.advance(next as u64 - 1) == Control::Stop {
                        out.complete = false;
                        break 'outer;
                    }
                }
            } else if t_new >= times[next] {
                record(times[next], &y, &mut out);
                next += 1;
                if observer.advance(next as u64 - 1) == Control::Stop {
                    out.complete = false;
                    break;
                }
            }
            t = t_new;
        }
        observer.finish();
        out.stats = solver.stats();
        Ok(out)
    }
}

/// The planar chain integrates the work only when it has non-conservative forces.
impl Sampled for Chain {
    type Trajectory = Trajectory;

    fn integrates_work(&self) -> bool {
        self.non_conservative()
    }

    fn trajectory(&self, s: Samples) -> Trajectory {
        let n = self.links();
        let rows = s.len();
        let column = |k: usize, j: usize| s.state(k)[j];
        let energy: Vec<f64> = (0..rows).map(|k| self.energy(s.t[k], s.state(k))).collect();
        let energy_scale = self.energy_scale(energy[0]);
        Trajectory {
            theta: Array2::from_shape_fn((rows, n), |(k, j)| column(k, j)),
            omega: Array2::from_shape_fn((rows, n), |(k, j)| column(k, n + j)),
            energy,
            work: s.work,
            method: s.method,
            stats: s.stats,
            energy_scale,
            complete: s.complete,
            t: s.t,
        }
    }
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
