//! Orbit diagrams: the stroboscopic samples of a driven chain's attractor against a parameter,
//! with the largest Lyapunov exponent from the same run.
//!
//! Each parameter value starts from the previous value's final state (so a branch of
//! attractors is followed as the parameter moves, not re-found from scratch), for each of
//! several starts (so coexisting attractors show); the starts run in parallel, each sweeping
//! the parameters in order, so the result does not depend on the thread count. One run per
//! value is a reducer on the single-orbit driver: one tangent vector, renormalised every drive
//! period, its log-growth summed after the transient.

use super::continuation::Family;
use super::shooting::{wrap_angle, Closure};
use super::PeriodicError;
use crate::analysis::orbit::driver::{
    drive, End, Plan, Reducer, Sampling, Span, Step, Tangent, Tick,
};
use crate::integrate::Method;
use crate::model::System;
use crate::observe::{Cancel, Cancellable};
use rayon::prelude::*;
use serde::Serialize;

/// What the diagram samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagramOptions {
    /// The parameter values, in the order they are swept.
    pub parameters: Vec<f64>,
    /// The starts x0 (each of the state's length).
    pub starts: Vec<Vec<f64>>,
    /// Drive periods discarded at each value before sampling.
    pub transient: u64,
    /// Drive periods sampled at each value.
    pub samples: u64,
    /// Fixed steps per drive period (RK4).
    pub steps_per_period: u64,
}

impl DiagramOptions {
    pub fn check(&self, dim: usize) -> Result<(), PeriodicError> {
        if self.parameters.is_empty() || self.parameters.iter().any(|p| !p.is_finite()) {
            return Err(PeriodicError::invalid(
                "parameters",
                "must be one or more finite values",
            ));
        }
        if self.starts.is_empty()
            || self
                .starts
                .iter()
                .any(|s| s.len() != dim || s.iter().any(|v| !v.is_finite()))
        {
            return Err(PeriodicError::invalid(
                "starts",
                format!("must be one or more finite states of {dim} entries"),
            ));
        }
        if self.samples == 0 || self.samples > 1_000_000 {
            return Err(PeriodicError::invalid("samples", "must be 1 ..= 1000000"));
        }
        if self.transient > 100_000_000 {
            return Err(PeriodicError::invalid(
                "transient",
                "must be <= 1e8 drive periods",
            ));
        }
        if self.steps_per_period == 0 || self.steps_per_period > 1_000_000 {
            return Err(PeriodicError::invalid(
                "steps_per_period",
                "must be 1 ..= 1000000",
            ));
        }
        let values = (self.parameters.len() as u128)
            * (self.starts.len() as u128)
            * u128::from(self.samples)
            * dim as u128;
        if values > 1 << 31 {
            return Err(PeriodicError::invalid("samples", format!("parameters × starts × samples × {dim} = {values} values is too many (at most 2³¹)")));
        }
        Ok(())
    }
}

/// The diagram.
#[derive(Debug, Clone, Serialize)]
pub struct OrbitDiagram {
    pub parameters: Vec<f64>,
    pub starts: usize,
    pub samples: usize,
    pub dim: usize,
    /// The sampled states (angles in (−π, π]), indexed [parameter][start][sample][component].
    pub points: Vec<f64>,
    /// λ_max (1/s) over the sampled periods, indexed [parameter][start].
    pub lyapunov: Vec<f64>,
}

impl OrbitDiagram {
    /// Sample `s` of start `j` at parameter index `i`.
    pub fn point(&self, i: usize, j: usize, s: usize) -> &[f64] {
        let at = ((i * self.starts + j) * self.samples + s) * self.dim;
        &self.points[at..at + self.dim]
    }
}

/// One start's sweep: its samples [parameter][sample][component] and λ_max per parameter.
type StartSweep = (Vec<f64>, Vec<f64>);

/// The reducer of one parameter value.
struct Strobe {
    transient: u64,
    angles: usize,
    points: Vec<f64>,
    log_growth: f64,
}

impl<S: System> Reducer<S> for Strobe {
    type Output = (Vec<f64>, f64, Vec<f64>, bool);
    fn tangent(&self, _n: usize) -> Tangent {
        Tangent { k: 1, v0: None }
    }
    fn interval(&mut self, _sys: &S, tick: Tick, x: &[f64], v: &mut [f64]) -> Step {
        let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        v.iter_mut().for_each(|a| *a /= norm);
        if tick.e > self.transient {
            self.log_growth += norm.ln();
            let angles = self.angles;
            self.points.extend(x.iter().enumerate().map(|(i, &a)| {
                if i < angles {
                    wrap_angle(a)
                } else {
                    a
                }
            }));
        }
        Step::default()
    }
    fn finish(self, _sys: &S, end: End<'_>) -> Self::Output {
        let sampled = end.done.saturating_sub(self.transient);
        let lambda = self.log_growth / (sampled as f64 * end.sample_interval);
        (self.points, lambda, end.x.to_vec(), end.complete)
    }
}

/// The orbit diagram of the driven `family` (see the module docs). Errors: bad options, a
/// family member that is not driven, a blow-up; [`PeriodicError::Interrupted`] when `cancel`
/// is set.
pub fn orbit_diagram<F: Family>(
    family: &F,
    opts: &DiagramOptions,
    cancel: &Cancel,
) -> Result<OrbitDiagram, PeriodicError> {
    let (probe, _) = family.at(opts.parameters[0])?;
    let dim = probe.dim();
    let angles = probe.angles();
    opts.check(dim)?;
    let per_start: Vec<Result<StartSweep, PeriodicError>> = opts
        .starts
        .par_iter()
        .map(|x0| {
            let mut x = x0.clone();
            let mut points =
                Vec::with_capacity(opts.parameters.len() * opts.samples as usize * dim);
            let mut lyap = Vec::with_capacity(opts.parameters.len());
            for &p in &opts.parameters {
                let (sys, closure) = family.at(p)?;
                let Closure::Driven { drive_period, .. } = closure else {
                    return Err(PeriodicError::invalid(
                        "drive",
                        "an orbit diagram needs a driven chain",
                    ));
                };
                let method = Method::Rk4 {
                    dt: drive_period / opts.steps_per_period as f64,
                };
                let plan = Plan {
                    tau: drive_period,
                    span: Span::Intervals(opts.transient + opts.samples),
                    sampling: Sampling::Interval,
                    max_history: 16,
                    work: false,
                };
                let reducer = Strobe {
                    transient: opts.transient,
                    angles,
                    points: Vec::with_capacity(opts.samples as usize * dim),
                    log_growth: 0.0,
                };
                let mut obs = Cancellable(cancel.clone());
                let (pts, lambda, end, complete) =
                    drive(&sys, &method, &x, &plan, reducer, &mut obs)?;
                if !complete {
                    return Err(PeriodicError::Interrupted);
                }
                points.extend_from_slice(&pts);
                lyap.push(lambda);
                x = end;
            }
            Ok((points, lyap))
        })
        .collect();
    let starts = opts.starts.len();
    let samples = opts.samples as usize;
    let np = opts.parameters.len();
    let mut points = vec![0.0; np * starts * samples * dim];
    let mut lyapunov = vec![0.0; np * starts];
    for (j, r) in per_start.into_iter().enumerate() {
        let (pts, lyap) = r?;
        for i in 0..np {
            let from = i * samples * dim;
            let to = ((i * starts + j) * samples) * dim;
            points[to..to + samples * dim].copy_from_slice(&pts[from..from + samples * dim]);
            lyapunov[i * starts + j] = lyap[i];
        }
    }
    Ok(OrbitDiagram {
        parameters: opts.parameters.clone(),
        starts,
        samples,
        dim,
        points,
        lyapunov,
    })
}
