//! Orbit diagrams: the stroboscopic samples of a driven chain's attractor against a parameter,
//! with the largest Lyapunov exponent from the same run.
//!
//! Each parameter value starts from the previous value's final state (so a branch of
//! attractors is followed as the parameter moves, not re-found from scratch), for each of
//! several starts (so coexisting attractors show); the starts run in parallel, each sweeping
//! the parameters in order, so the result does not depend on the thread count. One run per
//! value iterates the chain's stroboscopic map ([`super::stroboscopic`]: one drive period on
//! one fixed RK4 grid, without the single-orbit driver's per-interval reducer, energy watch
//! and progress): the state alone through most of the transient, then with one tangent vector
//! over the last `ALIGN_PERIODS` transient periods and the sampled ones, renormalised every
//! drive period, its log-growth summed over the sampled periods.

use super::continuation::Family;
use super::shooting::Closure;
use super::stroboscopic::{Solvers, Stroboscopic};
use super::PeriodicError;
use crate::model::System;
use crate::observe::Cancel;
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
    /// False when a stop request ended the sweep: `parameters` holds then only the leading
    /// values every start finished.
    pub complete: bool,
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

/// Drive periods the tangent vector is carried before the sampled ones (at most the
/// transient). Earlier transient periods integrate the state alone: the tangent only has to
/// line up with the most unstable direction before λ_max is summed, which takes a few periods
/// (the ratio of the two leading Floquet multipliers per period, to the 16th power), not the
/// whole transient.
const ALIGN_PERIODS: u64 = 16;

/// One start's run at one parameter value: `transient + samples` iterates of the stroboscopic
/// map ([`Stroboscopic`]) from the state `y[..n]` (left at the end), the tangent vector in
/// `y[n..]` over the last [`ALIGN_PERIODS`] transient periods and the sampled ones,
/// renormalised at every period end. Appends the samples to `points` and returns λ_max.
/// Errors: a blow-up (named, at its time), a step too small to advance t, a stop request.
fn sweep_value<S: System>(
    sys: &S,
    drive_period: f64,
    opts: &DiagramOptions,
    y: &mut [f64],
    solvers: &mut Solvers,
    points: &mut Vec<f64>,
    cancel: &Cancel,
) -> Result<f64, PeriodicError> {
    let n = sys.dim();
    let mut map = Stroboscopic::new(sys, drive_period, opts.steps_per_period)?;
    let total = opts.transient + opts.samples;
    let free = opts.transient.saturating_sub(ALIGN_PERIODS);
    let mut log_growth = 0.0;
    let mut steps = 0u64;
    for e in 1..=total {
        let tangent = e > free;
        if e == free + 1 {
            let (x, v) = y.split_at_mut(n);
            v.fill(0.0);
            sys.tangent_basis(x, 1, v);
        }
        let y = if tangent { &mut y[..] } else { &mut y[..n] };
        map.iterate(y, solvers, e, &mut steps, cancel)?;
        if tangent {
            let v = &mut y[n..];
            let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            v.iter_mut().for_each(|a| *a /= norm);
            if e > opts.transient {
                log_growth += norm.ln();
            }
        }
        if e > opts.transient {
            points.extend_from_slice(&y[..n]);
        }
    }
    Ok(log_growth / (opts.samples as f64 * map.period()))
}

/// The orbit diagram of the driven `family` (see the module docs). Errors: bad options, a
/// family member that is not driven, a blow-up. A stop request (`cancel`) ends every start's
/// sweep at once: the diagram of the leading parameter values every start finished, marked
/// incomplete.
pub fn orbit_diagram<F: Family>(
    family: &F,
    opts: &DiagramOptions,
    cancel: &Cancel,
) -> Result<OrbitDiagram, PeriodicError> {
    let (probe, _) = family.at(opts.parameters[0])?;
    let dim = probe.dim();
    opts.check(dim)?;
    let per_start: Vec<Result<StartSweep, PeriodicError>> = opts
        .starts
        .par_iter()
        .map(|x0| {
            // [x | v]: the state carried from value to value, and one tangent vector.
            let mut y = vec![0.0; 2 * dim];
            y[..dim].copy_from_slice(x0);
            let mut solvers = Solvers::new(dim);
            let mut points =
                Vec::with_capacity(opts.parameters.len() * opts.samples as usize * dim);
            let mut lyap = Vec::with_capacity(opts.parameters.len());
            for &p in &opts.parameters {
                if cancel.is_set() {
                    break;
                }
                let (sys, closure) = family.at(p)?;
                let Closure::Driven { drive_period, .. } = closure else {
                    return Err(PeriodicError::invalid(
                        "drive",
                        "an orbit diagram needs a driven chain",
                    ));
                };
                match sweep_value(
                    &sys,
                    drive_period,
                    opts,
                    &mut y,
                    &mut solvers,
                    &mut points,
                    cancel,
                ) {
                    Ok(lambda) => lyap.push(lambda),
                    Err(PeriodicError::Interrupted) => {
                        // The samples of the value it was in are dropped with it.
                        points.truncate(lyap.len() * opts.samples as usize * dim);
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok((points, lyap))
        })
        .collect();
    let per_start = per_start.into_iter().collect::<Result<Vec<_>, _>>()?;
    let starts = opts.starts.len();
    let samples = opts.samples as usize;
    // The values every start finished (all of them unless a stop request came).
    let np = per_start.iter().map(|(_, l)| l.len()).min().unwrap_or(0);
    let complete = np == opts.parameters.len();
    let mut points = vec![0.0; np * starts * samples * dim];
    let mut lyapunov = vec![0.0; np * starts];
    for (j, (pts, lyap)) in per_start.into_iter().enumerate() {
        for i in 0..np {
            let from = i * samples * dim;
            let to = ((i * starts + j) * samples) * dim;
            points[to..to + samples * dim].copy_from_slice(&pts[from..from + samples * dim]);
            lyapunov[i * starts + j] = lyap[i];
        }
    }
    Ok(OrbitDiagram {
        parameters: opts.parameters[..np].to_vec(),
        starts,
        samples,
        dim,
        points,
        lyapunov,
        complete,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Chain;
    use std::f64::consts::PI;

    /// θ̈ + θ̇/2 + sin θ = A cos(2t/3), period-1 closure.
    fn driven(a: f64) -> Result<(Chain, Closure), PeriodicError> {
        let closure = Closure::Driven {
            drive_period: 3.0 * PI,
            k: 1,
        };
        Ok((super::super::bench::driven(a), closure))
    }

    fn opts(parameters: Vec<f64>, starts: Vec<Vec<f64>>, samples: u64) -> DiagramOptions {
        DiagramOptions {
            parameters,
            starts,
            transient: 40,
            samples,
            steps_per_period: 200,
        }
    }

    /// Near the bottom the pendulum is a damped linear oscillator: its two multipliers are a
    /// complex pair of modulus e^(−T/4), so λ_max = −1/4 whatever direction the tangent vector
    /// starts in (it is started late in the transient); a rotating orbit's samples stay in
    /// (−π, π].
    #[test]
    fn lambda_of_the_damped_linear_limit_and_wrapped_samples() {
        let d = orbit_diagram(
            &driven,
            &opts(vec![1e-3, 1.5], vec![vec![0.0, 0.0]], 100),
            &Cancel::never(),
        )
        .unwrap();
        assert!((d.lyapunov[0] + 0.25).abs() < 0.01, "{}", d.lyapunov[0]);
        for s in 0..d.samples {
            let p = d.point(1, 0, s);
            assert!(p[0] > -PI && p[0] <= PI && p[1].is_finite(), "{p:?}");
        }
    }

    #[test]
    fn a_stop_request_or_an_undriven_family_ends_the_diagram() {
        let stop = Cancel::new();
        stop.set();
        let o = opts(vec![1.0], vec![vec![0.0, 0.0]], 10);
        let d = orbit_diagram(&driven, &o, &stop).unwrap();
        assert!(!d.complete && d.parameters.is_empty() && d.points.is_empty());
        let undriven = |a: f64| driven(a).map(|(c, _)| (c, Closure::Energy(0.0)));
        let e = orbit_diagram(&undriven, &o, &Cancel::never()).unwrap_err();
        assert!(e.to_string().contains("drive"), "{e}");
    }
}
