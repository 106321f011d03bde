//! How many steps one trajectory of a run takes, bounded before it runs: a fixed step's count
//! against [`MAX_STEPS`], an adaptive integration's least count against the integrator's cap.

use super::MAX_STEPS;
use crate::integrate::dop853::MAX_ATTEMPTS;
use crate::integrate::Method;
use crate::spec::{Model, Spec, SpecError, SpecFile};

impl SpecFile {
    /// Refuses a fixed step that takes more than [`MAX_STEPS`] steps over one trajectory,
    /// naming the field the step came from.
    pub(in crate::spec) fn check_steps(&self, spec: &Spec) -> Result<(), SpecError> {
        let Some(span) = spec.time_span() else {
            return Ok(());
        };
        let (step, field) = match spec.method {
            Method::Rk4 { dt } | Method::Gauss { dt, .. } => {
                let field = match spec.analysis.kind().name {
                    "animate" => "animate.substeps",
                    _ if self.integrator.substeps.is_some() => "integrator.substeps",
                    _ if self.integrator.dt.is_some() => "integrator.dt",
                    _ => spec.span_field(),
                };
                (dt, field)
            }
            Method::Dop853 { h_max, .. } => {
                check_adaptive(&spec.model, span, spec.span_field())?;
                if !h_max.is_finite() {
                    return Ok(());
                }
                (h_max, "integrator.h_max")
            }
        };
        let steps = span / step;
        if steps > MAX_STEPS {
            let stuck = span + step == span;
            return Err(SpecError::new(
                field,
                format!(
                    "a step of {step:e} s takes {steps:.1e} steps to reach t = {span} s{}; the limit is {MAX_STEPS:.0e} steps per trajectory",
                    if stuck { " (it does not even advance t in binary64)" } else { "" }
                ),
            ));
        }
        Ok(())
    }
}

/// Steps an adaptive integration takes at the least per turn (2π) of the fastest phase it
/// must follow: one. An explicit Runge–Kutta step spans at most a fraction of a period of
/// the forces it samples (DOP853 takes ~10–50 at its usual tolerances), so one per turn is a
/// bound no run beats, not an estimate of its cost.
pub const ADAPTIVE_STEPS_PER_TURN: f64 = 1.0;

/// The fastest phase an integration of `model` must follow whatever its tolerance (rad/s),
/// with the field that sets it and a phrase saying what it is; `None` when nothing but the
/// state's own motion sets the pace (an undriven chain, a cart chain).
///
/// A torque at Ω turns at Ω. A pivot at Ω with amplitude a is, in the pivot's frame, a
/// gravity of up to aΩ² that swings the chain at √(aΩ²/L) (L the chain's whole length, its
/// slowest pendulum) when that is faster than Ω itself. A drive of zero amplitude acts on
/// nothing and sets no pace. (A chain hanging exactly at rest under a purely vertical pivot
/// stays at rest and may be integrated in fewer steps: the only exception, a measure-zero
/// one.)
pub fn fastest_rate(model: &Model) -> Option<(f64, &'static str, String)> {
    let Model::Planar(chain) = model else {
        return None;
    };
    let params = chain.params();
    let drive = &params.drive;
    let mut fastest: Option<(f64, &'static str, String)> = None;
    let mut consider = |rate: f64, field: &'static str, what: String| {
        if rate.is_finite() && rate > fastest.as_ref().map_or(0.0, |f| f.0) {
            fastest = Some((rate, field, what));
        }
    };
    if let Some(t) = drive.torque.filter(|t| t.amplitude != 0.0) {
        consider(
            t.frequency.abs(),
            "model.drive.torque.frequency",
            format!("a torque at {:e} rad/s", t.frequency.abs()),
        );
    }
    let reach = drive.pivot_reach();
    if let Some(p) = drive.pivot.filter(|_| reach > 0.0) {
        let w = p.frequency.abs();
        let length: f64 = params.links.iter().map(|l| l.length).sum();
        let swing = if length > 0.0 {
            w * (reach / length).sqrt()
        } else {
            0.0
        };
        if swing > w {
            consider(
                swing,
                "model.drive.pivot.frequency",
                format!(
                    "a pivot at {w:e} rad/s and {reach:e} m swinging the chain at √(aΩ²/L) = {swing:.3e} rad/s"
                ),
            );
        } else {
            consider(
                w,
                "model.drive.pivot.frequency",
                format!("a pivot at {w:e} rad/s"),
            );
        }
    }
    fastest
}

/// The fewest steps an adaptive (DOP853) integration of `model` over `span` seconds takes
/// ([`ADAPTIVE_STEPS_PER_TURN`] per turn of [`fastest_rate`]), with the field that sets the
/// pace and what it is; `None` when nothing bounds it from below.
pub fn adaptive_steps_floor(model: &Model, span: f64) -> Option<(f64, &'static str, String)> {
    let (rate, field, what) = fastest_rate(model)?;
    // Turns per second first: 1e308 rad/s over 10 s is 1.6e308 turns, not an overflow.
    let steps = rate / std::f64::consts::TAU * span.abs() * ADAPTIVE_STEPS_PER_TURN;
    Some((steps, field, what))
}

/// Refuses an adaptive integration over `span` seconds (one trajectory, one solver) whose
/// fewest steps ([`adaptive_steps_floor`]) exceed the integrator's hard cap
/// ([`MAX_ATTEMPTS`]): it could only end there, minutes or hours later, with nothing to show.
/// The error names the drive field that sets the pace; `span_field` is the time it covers.
pub fn check_adaptive(model: &Model, span: f64, span_field: &str) -> Result<(), SpecError> {
    let Some((steps, field, what)) = adaptive_steps_floor(model, span) else {
        return Ok(());
    };
    let cap = MAX_ATTEMPTS as f64;
    if steps > cap {
        let count = if steps.is_finite() {
            format!("at least {steps:.1e}")
        } else {
            format!("more than {:.1e}", f64::MAX)
        };
        // The span as a person writes it (19.99, not 19.990000000000002).
        let span = (span * 1e9).round() / 1e9;
        return Err(SpecError::new(
            field,
            format!("{what} takes {count} adaptive steps to reach t = {span} s ("),
        )
        .name(span_field)
        .text(format!(
            "); the adaptive integrator stops at {cap:.0e} steps per trajectory"
        )));
    }
    Ok(())
}
