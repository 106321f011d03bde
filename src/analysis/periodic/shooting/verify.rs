//! The verification of a converged shooting solution before it is an orbit (see the parent
//! module's docs): the whole closure of the segments, one independent integration over the
//! period (its closure, its motion, no shorter repeat), and the trivial multipliers; then the
//! verified [`PeriodicOrbit`] with its Floquet analysis ([`Shooting::orbit`]).

use super::{phase_at, Closure, Evaluation, Periodic, PeriodicOrbit, Shooting};
use crate::analysis::periodic::floquet::{floquet, Floquet, Trivial};
use crate::analysis::periodic::flow::propagate;
use crate::analysis::periodic::PeriodicError;
use crate::model::angle::wrap_nearest_open_closed;
use crate::observe::Cancellable;
use nalgebra::DMatrix;
use std::f64::consts::TAU;

/// The verification's margin over the Newton and integration tolerances (see
/// [`PeriodicOrbit::closure_tolerance`]).
pub const VERIFY_FACTOR: f64 = 1e3;

/// An autonomous orbit must move more than this many Newton tolerances away from its start
/// over its period: less cannot be told from an equilibrium (or the period is too short for
/// the closure to mean anything).
pub const MOTION_FACTOR: f64 = 1e4;

/// The trivial multipliers of a verified autonomous orbit lie within this of +1 (times
/// max(1, ‖M‖∞), the amplification of the errors they are computed from).
pub const TRIVIAL_TOL: f64 = 1e-5;

/// Max-norm distance of `a` from `b`, the first `angles` components modulo 2π.
fn distance_mod(a: &[f64], b: &[f64], angles: usize) -> f64 {
    a.iter()
        .zip(b)
        .enumerate()
        .map(|(i, (x, y))| {
            if i < angles {
                wrap_nearest_open_closed(x - y).abs()
            } else {
                (x - y).abs()
            }
        })
        .fold(0.0, f64::max)
}

/// Max-norm of x(T) − x_0 less the whole turns of the angles.
fn closure_of(end: &[f64], x0: &[f64], turns: &[i64]) -> f64 {
    end.iter()
        .zip(x0)
        .enumerate()
        .map(|(i, (a, b))| {
            let wrap = turns.get(i).map_or(0.0, |&k| TAU * k as f64);
            (a - b - wrap).abs()
        })
        .fold(0.0, f64::max)
}

fn fmt_state(x: &[f64]) -> String {
    let v: Vec<String> = x.iter().map(|a| format!("{a:.6}")).collect();
    format!("({})", v.join(", "))
}

impl<S: Periodic> Shooting<'_, S> {
    /// Why an end `end` of the orbit from `x0` over `period` does not close: a half period
    /// (x(T) = −x_0 modulo 2π) named as such.
    fn unclosed(&self, end: &[f64], x0: &[f64], period: f64, d: f64, tol: f64) -> String {
        let angles = self.sys.angles();
        let minus: Vec<f64> = x0.iter().map(|v| -v).collect();
        let scale = x0.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if scale > 0.0 && distance_mod(end, &minus, angles) <= 1e-3 * scale {
            return format!(
                "converged to half a period: θ(T) = −θ₀ (x(T) = {} from x₀ = {}), the orbit through x₀ closes after about 2T = {:.6} s, not T = {period:.6} s",
                fmt_state(end),
                fmt_state(x0),
                2.0 * period
            );
        }
        format!(
            "the orbit does not close: x(T) = {} lies {d:.3e} from x₀ = {} (tolerance {tol:.1e}) after T = {period:.6} s",
            fmt_state(end),
            fmt_state(x0)
        )
    }

    /// Verifies converged unknowns `z` (see the module docs): the closure of the segments'
    /// whole ends, then one integration over the period from x_0 (its closure, its motion for
    /// an autonomous orbit, no repeat after T/j: j = 2, 3, 4 for an autonomous orbit, the
    /// proper divisors of k for a driven one of k drive periods, unless `shorter` allows it),
    /// and the trivial multipliers. Returns (closure residual, its tolerance, the trivial
    /// multipliers' tolerance); [`PeriodicError::Unverified`] naming the check that failed.
    /// The trivial multipliers are checked after the Floquet step ([`Shooting::verify_trivial`]).
    fn verify(
        &self,
        z: &[f64],
        ev: &Evaluation,
        monodromy: &DMatrix<f64>,
        shorter: bool,
    ) -> Result<(f64, f64, f64), PeriodicError> {
        let n = self.sys.dim();
        let m = self.opts.segments;
        let angles = self.sys.angles();
        let period = self.period(z);
        let x0 = &z[..n];
        let base = self.opts.tolerance.max(self.opts.rtol).max(self.opts.atol);
        let strict = VERIFY_FACTOR * base;
        let gain = monodromy
            .row_iter()
            .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
            .fold(1.0, f64::max);
        let unverified = PeriodicError::Unverified;
        if !gain.is_finite() {
            return Err(unverified("the monodromy matrix is not finite".to_string()));
        }
        // The whole closure of the segments (the projection across ∇E dropped a component).
        let end = &ev.segments[m - 1].x;
        let d = closure_of(end, x0, &ev.turns);
        if d.is_nan() || d > strict {
            return Err(unverified(self.unclosed(end, x0, period, d, strict)));
        }
        // One integration over the whole period, sampled so that T/j falls on a sample.
        let driven_k = match self.closure {
            Closure::Driven { k, .. } => Some(k),
            _ => None,
        };
        let lcm = driven_k.unwrap_or(12);
        let intervals = lcm * self.opts.samples.div_ceil(lcm).max(1);
        let mut obs = Cancellable(self.cancel.clone());
        let p = propagate(
            self.sys,
            &self.opts.method(),
            0.0,
            x0,
            period,
            intervals,
            &mut obs,
        )?;
        let at = |i: usize| &p.samples[i * n..(i + 1) * n];
        if driven_k.is_none() {
            let motion = (1..=intervals)
                .map(|i| closure_of(at(i), x0, &[]))
                .fold(0.0, f64::max);
            let still = MOTION_FACTOR * self.opts.tolerance;
            if motion.is_nan() || motion <= still {
                let (f, _) = phase_at(self.sys, x0);
                let speed = f.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                return Err(unverified(if speed <= still {
                    format!(
                        "the orbit is the equilibrium x₀ = {} (|ẋ| ≤ {speed:.1e} there; over T = {period} s it moves at most {motion:.1e}, not more than {MOTION_FACTOR:.0e} × the Newton tolerance = {still:.1e})",
                        fmt_state(x0)
                    )
                } else {
                    format!(
                        "the period T = {period:e} s is too short to resolve: the orbit moves at most {motion:.1e} from x₀ over it, not more than {MOTION_FACTOR:.0e} × the Newton tolerance = {still:.1e}"
                    )
                }));
            }
        }
        let closure_tolerance = strict * gain;
        let residual = closure_of(&p.x, x0, &ev.turns);
        if residual.is_nan() || residual > closure_tolerance {
            return Err(unverified(format!(
                "one integration over the period from x₀: {}",
                self.unclosed(&p.x, x0, period, residual, closure_tolerance)
            )));
        }
        if !shorter {
            let divisors: Vec<usize> = match driven_k {
                Some(k) => (1..k).filter(|j| k % j == 0).map(|j| k / j).collect(),
                None => vec![2, 3, 4],
            };
            for j in divisors {
                let y = at(intervals / j);
                let dj = distance_mod(y, x0, angles);
                if dj <= closure_tolerance {
                    return Err(unverified(match driven_k {
                        Some(k) => format!(
                            "the orbit is a fixed point of a lower iterate: x({} drive periods) lies {dj:.1e} from x₀ (tolerance {closure_tolerance:.1e}); its period is {} drive periods, not {k}",
                            k / j,
                            k / j
                        ),
                        None => format!(
                            "the orbit repeats after T/{j}: x(T/{j}) lies {dj:.1e} from x₀ (tolerance {closure_tolerance:.1e}); its period is {:.9} s, not T = {period:.9} s",
                            period / j as f64
                        ),
                    }));
                }
            }
        }
        let trivial_tolerance = if driven_k.is_some() {
            f64::NAN
        } else {
            TRIVIAL_TOL * gain
        };
        Ok((residual, closure_tolerance, trivial_tolerance))
    }

    /// The trivial multipliers of `floquet` within `trivial_tolerance` of +1.
    fn verify_trivial(floquet: &Floquet, trivial_tolerance: f64) -> Result<(), PeriodicError> {
        for (mu, what) in floquet
            .trivial
            .iter()
            .zip(["along the flow", "across the energy shells"])
        {
            let off = (mu.complex() - 1.0).norm();
            if off.is_nan() || off > trivial_tolerance {
                let all: Vec<String> = floquet
                    .trivial
                    .iter()
                    .map(|t| format!("{:.6}", t.re))
                    .collect();
                return Err(PeriodicError::Unverified(format!(
                    "the trivial multipliers are ({}), not +1: the one {what} lies {off:.2e} from 1 (tolerance {trivial_tolerance:.1e})",
                    all.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// The orbit of converged unknowns `z`, verified ([`Shooting::verify`]; `shorter`: a
    /// shorter period is allowed, as at the start of a period-doubled branch, which is the
    /// doubling orbit itself).
    pub fn orbit(
        &self,
        z: &[f64],
        ev: &Evaluation,
        residuals: Vec<f64>,
        shorter: bool,
    ) -> Result<PeriodicOrbit, PeriodicError> {
        let n = self.sys.dim();
        let period = self.period(z);
        let (monodromy, _) = monodromy_of(ev, n);
        let mut evaluations = 0;
        let mut shape = Vec::new();
        for (j, seg) in ev.segments.iter().enumerate() {
            evaluations += seg.evaluations;
            let skip = if j == 0 { 0 } else { n };
            shape.extend_from_slice(&seg.samples[skip..]);
        }
        let (closure_residual, closure_tolerance, trivial_tolerance) =
            self.verify(z, ev, &monodromy, shorter)?;
        let floquet = self.floquet_of(z, ev)?;
        Self::verify_trivial(&floquet, trivial_tolerance)?;
        let mut x0 = z[..n].to_vec();
        for a in x0.iter_mut().take(self.sys.angles()) {
            *a = wrap_nearest_open_closed(*a);
        }
        Ok(PeriodicOrbit {
            energy: self.sys.energy(0.0, &x0),
            x0,
            period,
            turns: ev.turns.clone(),
            floquet,
            monodromy,
            residuals,
            shape,
            evaluations,
            closure_residual,
            closure_tolerance,
            trivial_tolerance,
        })
    }

    /// The Floquet analysis of unknowns `z` from their evaluation, unverified: what the error
    /// estimates ([`crate::analysis::periodic::errors`]) compare between nearby solutions.
    pub(crate) fn floquet_of(&self, z: &[f64], ev: &Evaluation) -> Result<Floquet, PeriodicError> {
        let n = self.sys.dim();
        let (monodromy, trace) = monodromy_of(ev, n);
        let trivial = self.closure.autonomous().then(|| Trivial {
            flow: phase_at(self.sys, &z[..n]).0,
            gradient: self.sys.energy_gradient(&z[..n]),
        });
        floquet(
            &monodromy,
            self.period(z),
            trace,
            self.sys.hamiltonian(),
            trivial.as_ref(),
        )
    }
}

/// The monodromy matrix (the segments' Jacobians multiplied in order) and ∫ tr J dt.
fn monodromy_of(ev: &Evaluation, n: usize) -> (DMatrix<f64>, f64) {
    let mut monodromy = DMatrix::identity(n, n);
    let mut trace = 0.0;
    for seg in &ev.segments {
        monodromy = &seg.jacobian * monodromy;
        trace += seg.trace_integral;
    }
    (monodromy, trace)
}
