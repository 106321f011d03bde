//! What bounds an orbit search's integrations before it runs (the spec's step checks, for the
//! orbits' shooting): each segment must be integrable by the adaptive integrator, and an
//! undriven orbit's period must not span too many turns.

use super::table::{OrbitClosure, OrbitsRun};
use crate::model::Chain;
use crate::spec::{check_adaptive, Model, SpecError};

/// The orbits' shooting: each segment of each Newton iteration is one adaptive trajectory over
/// T / segments, T the period (k drive periods, the fixed period or the period guess); the
/// orbit diagram steps RK4 on its own grid and is bounded by its own fields.
pub(super) fn check_orbit_segments(r: &OrbitsRun, chain: &Chain) -> Result<(), SpecError> {
    let model = &Model::Planar(chain.clone());
    if r.diagram.is_some() {
        return Ok(());
    }
    let (period, field) = match r.closure {
        OrbitClosure::Driven { k } => match chain.params().drive.period() {
            Ok(Some(t)) => (k as f64 * t, "orbits.drive_periods"),
            _ => return Ok(()),
        },
        OrbitClosure::Period(t) => (t, "orbits.period"),
        OrbitClosure::Energy(_) => match r.period_guess {
            Some(t) => (t, "orbits.period"),
            None => return Ok(()),
        },
    };
    let segment = period / r.shooting.segments.max(1) as f64;
    check_adaptive(model, segment, field)?;
    if field == "orbits.period" {
        check_orbit_turns(model, period)?;
    }
    Ok(())
}

/// The most turns of a chain's slowest pendulum an undriven orbit search takes on: 10⁴.
///
/// Every Newton step of the search integrates the whole period with its 2N tangent vectors
/// (DOP853 at 1e-12 takes some 50 steps a turn), so a period of 10⁴ turns costs ~5·10⁵ steps
/// per evaluation and tens of evaluations; far beyond it (a period guess of 10⁶ s is 3.5·10⁵
/// turns of the double pendulum) the search runs for hours, and the accumulated error of so
/// long an integration exceeds what the closure check accepts. Long-period orbits near a
/// separatrix stay far below it (their period grows like the logarithm of the energy gap,
/// ~40 turns at the gap's round-off).
pub const MAX_ORBIT_TURNS: f64 = 1e4;

/// Refuses an undriven orbit whose period (the guess or the fixed one) spans more than
/// [`MAX_ORBIT_TURNS`] turns of the chain's slowest pendulum, ω = √(g/L) with L its whole
/// length (the lowest rate its small oscillations can have, so the count is a lower bound).
/// A chain without gravity has no such scale and is not checked.
fn check_orbit_turns(model: &Model, period: f64) -> Result<(), SpecError> {
    let Model::Planar(chain) = model else {
        return Ok(());
    };
    let params = chain.params();
    let length: f64 = params.links.iter().map(|l| l.length).sum();
    if !(params.gravity > 0.0 && length > 0.0) {
        return Ok(());
    }
    let scale = std::f64::consts::TAU * (length / params.gravity).sqrt();
    let turns = period / scale;
    if turns > MAX_ORBIT_TURNS {
        return Err(SpecError::new(
            "orbits.period",
            format!(
                "a period of {period:e} s is {turns:.1e} turns of the chain's slowest pendulum (2π√(L/g) = {scale:.3} s); an orbit search integrates every Newton step over it with the tangent vectors: at most {MAX_ORBIT_TURNS:.0e} turns ({:.3e} s)",
                MAX_ORBIT_TURNS * scale
            ),
        ));
    }
    Ok(())
}
