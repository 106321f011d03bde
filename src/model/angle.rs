//! Angle wrapping: the one home of reducing an angle (or an angle difference) to one turn about
//! zero. pendula uses three conventions at ±π, and each caller keeps its own, because files,
//! figures and tests depend on their bits; each is named for the interval it returns:
//!
//! - [`wrap_closed_open`]: [−π, π), by `rem_euclid` of θ + π (figures);
//! - [`wrap_open_closed`]: (−π, π], by `rem_euclid` of θ (Poincaré sections);
//! - [`wrap_nearest`]: [−π, π], θ less its nearest whole number of turns; an exact ±π comes
//!   back as ∓π (final-state maps);
//! - [`wrap_nearest_open_closed`]: (−π, π], [`wrap_nearest`] with −π (and anything rounding
//!   left past ±π) moved by one turn (two-trajectory Lyapunov differences, periodic orbits).
//!
//! The two (−π, π] functions agree on the interval but not to the bit (`rem_euclid` rounds
//! θ + 2π where the nearest-turn form leaves a small negative θ as it is), so they are kept
//! apart.

use std::f64::consts::{PI, TAU};

/// θ wrapped into [−π, π): (θ + π) mod 2π − π, the mod by `rem_euclid`.
#[inline]
pub fn wrap_closed_open(theta: f64) -> f64 {
    (theta + PI).rem_euclid(2.0 * PI) - PI
}

/// θ wrapped into (−π, π]: θ mod 2π by `rem_euclid`, less one turn where that is above π.
#[inline]
pub fn wrap_open_closed(theta: f64) -> f64 {
    let w = theta.rem_euclid(2.0 * PI);
    if w > PI {
        w - 2.0 * PI
    } else {
        w
    }
}

/// θ less its nearest whole number of turns, θ − 2π·round(θ/2π), in [−π, π]: ties round away
/// from zero, so an exact π gives −π and an exact −π gives π.
#[inline]
pub fn wrap_nearest(theta: f64) -> f64 {
    theta - TAU * (theta / TAU).round()
}

/// θ wrapped into (−π, π]: [`wrap_nearest`], then one turn added at or below −π and taken away
/// above π.
#[inline]
pub fn wrap_nearest_open_closed(theta: f64) -> f64 {
    let w = wrap_nearest(theta);
    if w <= -PI {
        w + 2.0 * PI
    } else if w > PI {
        w - 2.0 * PI
    } else {
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_convention_holds_at_plus_and_minus_pi() {
        assert_eq!(wrap_closed_open(PI), -PI);
        assert_eq!(wrap_closed_open(-PI), -PI);
        assert_eq!(wrap_open_closed(PI), PI);
        assert_eq!(wrap_open_closed(-PI), PI);
        assert_eq!(wrap_nearest(PI), -PI);
        assert_eq!(wrap_nearest(-PI), PI);
        assert_eq!(wrap_nearest_open_closed(PI), PI);
        assert_eq!(wrap_nearest_open_closed(-PI), PI);
    }

    #[test]
    fn the_nearest_turn_uses_the_same_turn_as_two_pi() {
        // The two-trajectory wrap was written with 2π, the basins' with TAU: the same double.
        assert_eq!(TAU.to_bits(), (2.0 * PI).to_bits());
    }

    #[test]
    fn every_convention_wraps_a_turn_and_a_bit() {
        for w in [
            wrap_closed_open,
            wrap_open_closed,
            wrap_nearest,
            wrap_nearest_open_closed,
        ] {
            assert!((w(2.0 * PI + 0.1) - 0.1).abs() < 1e-15);
            assert!((w(-3.0 * PI / 2.0) - PI / 2.0).abs() < 1e-15);
        }
    }
}
