//! Whether a statistic that depends on the run length has stopped moving: the value at the end
//! of the run against the value the same run had at half its length (the last doubling of
//! time). Settled when the change lies inside the end value's own uncertainty; rising or falling
//! otherwise. Shared by the chaotic fraction's ladder of times and λ_max's running estimate.

use serde::Serialize;

/// The verdict on the last doubling of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    /// The change over the last doubling is inside the end value's interval.
    Settled,
    /// It grew by more than that: a longer run would give a larger value.
    Rising,
    /// It fell by more than that.
    Falling,
    /// No earlier value or no interval to compare with (too short a run).
    Unknown,
}

impl Trend {
    /// How tables, JSON and figures name it.
    pub fn words(&self) -> &'static str {
        match self {
            Trend::Settled => "settled",
            Trend::Rising => "still rising",
            Trend::Falling => "still falling",
            Trend::Unknown => "unknown",
        }
    }

    /// The code of the HDF5 variables (`flag_meanings` [`Trend::MEANINGS`]).
    pub fn code(&self) -> u8 {
        match self {
            Trend::Unknown => 0,
            Trend::Settled => 1,
            Trend::Rising => 2,
            Trend::Falling => 3,
        }
    }

    /// `flag_meanings` of the values 0, 1, 2, 3.
    pub const MEANINGS: &'static str = "unknown settled still_rising still_falling";

    /// Whether the statistic has converged by this rule.
    pub fn converged(&self) -> bool {
        *self == Trend::Settled
    }
}

/// The rule of [`trend`] for a fraction with its Wilson interval, in the words the outputs use.
pub const FRACTION_RULE: &str = "settled when the fraction of the same runs cut at t_end/2 lies inside the Wilson 95 % interval at t_end; still rising (falling) below (above) it";

/// The trend from `half`, the value at half the run, to `end` with its interval `(lo, hi)`:
/// settled when `half` lies in `[lo, hi]`; rising (falling) when it lies below (above).
pub fn trend(half: f64, end: f64, (lo, hi): (f64, f64)) -> Trend {
    if !half.is_finite() || !end.is_finite() || !lo.is_finite() || !hi.is_finite() {
        return Trend::Unknown;
    }
    if half < lo {
        Trend::Rising
    } else if half > hi {
        Trend::Falling
    } else {
        Trend::Settled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_compares_the_half_run_value_with_the_end_interval() {
        assert_eq!(trend(0.30, 0.32, (0.28, 0.36)), Trend::Settled);
        assert_eq!(trend(0.10, 0.32, (0.28, 0.36)), Trend::Rising);
        assert_eq!(trend(0.50, 0.32, (0.28, 0.36)), Trend::Falling);
        assert_eq!(trend(f64::NAN, 0.32, (0.28, 0.36)), Trend::Unknown);
        assert_eq!(trend(0.3, 0.32, (f64::NAN, 0.36)), Trend::Unknown);
    }
}
