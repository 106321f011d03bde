//! The measures' options as a front end gives them, with their defaults and checks in one place:
//! the CLI (`pendula measure`), a spec's `[measure]` table and the Python package each fill a
//! [`MeasureChoices`] or [`ChaoticChoices`] from their arguments and get the library's options
//! back, or a [`FieldError`] naming the argument by its key (`shifts`, `entropy_eps`), which
//! each front end spells its own way (`--shifts`, `measure.shifts`, `shifts`).

use super::chaotic::ChaoticOptions;
use super::{MeasureOptions, What};
use crate::error::{positive, FieldError};
use crate::integrate::Method;

/// Largest ε (pixels) of the uncertainty exponent by default.
pub const DEFAULT_MAX_EPS: usize = 16;
/// Box sides ε (pixels) of the basin entropy by default.
pub const DEFAULT_ENTROPY_EPS: [usize; 4] = [2, 3, 5, 8];
/// Random box-grid shifts of box counting and basin entropy by default.
pub const DEFAULT_SHIFTS: usize = 16;
/// Seed of the box-grid shifts and of the chaotic fraction's starts by default.
pub const DEFAULT_SEED: u64 = 0x5eed;

/// The measures' options as given; `None` takes the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeasureChoices {
    /// boundary-dimension | uncertainty-exponent | basin-entropy | wada | all (default).
    pub what: Option<String>,
    /// Largest ε of the uncertainty exponent ([`DEFAULT_MAX_EPS`]).
    pub max_eps: Option<usize>,
    /// Box sides of the basin entropy ([`DEFAULT_ENTROPY_EPS`]).
    pub entropy_eps: Option<Vec<usize>>,
    /// Box-grid shifts ([`DEFAULT_SHIFTS`]).
    pub shifts: Option<usize>,
    /// Seed of the shifts ([`DEFAULT_SEED`]).
    pub seed: Option<u64>,
    /// Largest Wada radius (default: shorter side / 64).
    pub wada_radius: Option<usize>,
}

impl MeasureChoices {
    /// The options, checked. `short` is the shorter side (pixels) of the grid when it is known
    /// before measuring (a spec's map): then ε and the Wada radius must lie within 1/8 of it;
    /// otherwise the measures refuse what does not fit the grid they are given.
    pub fn options(&self, short: Option<usize>) -> Result<MeasureOptions, FieldError> {
        let mut o = MeasureOptions::default();
        if let Some(w) = &self.what {
            o.what = What::parse(w).ok_or_else(|| {
                FieldError::new(
                    "what",
                    format!("unknown `{w}` (expected {})", What::NAMES.join(", ")),
                )
            })?;
        }
        let max_eps = self.max_eps.unwrap_or(DEFAULT_MAX_EPS);
        if let (Some(short), Some(k)) = (short, self.max_eps) {
            if k < 2 || 8 * k as u128 > short as u128 {
                return Err(FieldError::new(
                    "max_eps",
                    format!(
                        "must be between 2 and 1/8 of the map's shorter side, {short} px (got {k})"
                    ),
                ));
            }
        }
        let entropy_eps = self
            .entropy_eps
            .clone()
            .unwrap_or_else(|| DEFAULT_ENTROPY_EPS.to_vec());
        // A box side given twice would only measure the same thing twice (10⁵ copies of one
        // side would be 10⁵ passes over the grid): refused, in linear time.
        let mut seen = std::collections::HashSet::with_capacity(entropy_eps.len());
        if let Some(e) = entropy_eps.iter().find(|&&e| !seen.insert(e)) {
            return Err(FieldError::new(
                "entropy_eps",
                format!("the box side {e} is given twice"),
            ));
        }
        match short {
            Some(short) if self.entropy_eps.is_some() => {
                let too_big = |e: usize| 8 * e as u128 > short as u128;
                let bad = entropy_eps.iter().find(|&&e| e < 2 || too_big(e));
                if entropy_eps.is_empty() || bad.is_some() {
                    // The first bad side, not the list: a list can be long.
                    let got = bad.map_or_else(|| "none".to_string(), |e| e.to_string());
                    return Err(FieldError::new(
                        "entropy_eps",
                        format!("give box sides between 2 and 1/8 of the map's shorter side, {short} px (got {got})"),
                    ));
                }
            }
            _ if entropy_eps.is_empty() => {
                return Err(FieldError::new("entropy_eps", "give at least one box side"))
            }
            _ => {}
        }
        let shifts = self.shifts.unwrap_or(DEFAULT_SHIFTS);
        if shifts == 0 {
            return Err(FieldError::new("shifts", "must be >= 1 (got 0)"));
        }
        if let Some(r) = self.wada_radius {
            match short {
                Some(short) if r == 0 || 8 * r as u128 > short as u128 => {
                    return Err(FieldError::new(
                        "wada_radius",
                        format!(
                        "must be between 1 and 1/8 of the map's shorter side, {short} px (got {r})"
                    ),
                    ))
                }
                None if r == 0 => {
                    return Err(FieldError::new("wada_radius", "must be >= 1 (got 0)"))
                }
                _ => {}
            }
        }
        o.uncertainty.max_eps = max_eps;
        o.entropy_eps = entropy_eps;
        o.boxes.shifts = shifts;
        o.entropy_shifts = shifts;
        o.boxes.seed = self.seed.unwrap_or(DEFAULT_SEED);
        o.wada.max_radius = self.wada_radius.unwrap_or(0);
        Ok(o)
    }
}

/// The physical extent `x0, x1, y0, y1` of a grid's pixel edges, checked: four finite numbers
/// with x0 != x1 and y0 != y1. `got` is how the caller gave it, for the message.
fn extent_of(v: &[f64], got: &str) -> Result<[f64; 4], FieldError> {
    if v.len() != 4 || !v.iter().all(|x| x.is_finite()) || v[0] == v[1] || v[2] == v[3] {
        return Err(FieldError::new(
            "extent",
            format!(
                "expected four finite numbers x0,x1,y0,y1 with x0 != x1 and y0 != y1 (got {got})"
            ),
        ));
    }
    Ok([v[0], v[1], v[2], v[3]])
}

/// The extent from four numbers.
pub fn extent(v: &[f64]) -> Result<[f64; 4], FieldError> {
    extent_of(v, &format!("{v:?}"))
}

/// The extent from its text, `x0,x1,y0,y1`.
pub fn parse_extent(s: &str) -> Result<[f64; 4], FieldError> {
    let got = format!("`{s}`");
    let v: Vec<f64> = s
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| extent_of(&[], &got).unwrap_err())?;
    extent_of(&v, &got)
}

/// The chaotic fraction's run as given; `None` takes the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChaoticChoices {
    /// Shell energies (J); at least one.
    pub energies: Vec<f64>,
    /// Starts per shell; required.
    pub samples: Option<usize>,
    /// Seed of the starts ([`DEFAULT_SEED`]).
    pub seed: Option<u64>,
    /// End of each SALI run (s), default [`ChaoticOptions`]' 200.
    pub t_end: Option<f64>,
    /// Fixed RK4 step (s), default 0.005.
    pub dt: Option<f64>,
    /// SALI renormalisation interval τ (s), a multiple of `dt`, default 0.1.
    pub tau: Option<f64>,
}

impl ChaoticChoices {
    /// The energies and the starts per shell, checked.
    pub fn samples(&self) -> Result<usize, FieldError> {
        if self.energies.is_empty() {
            return Err(FieldError::new(
                "energies",
                "give at least one shell energy (J)",
            ));
        }
        match self.samples {
            None => Err(FieldError::new(
                "samples",
                "give the number of starts per energy shell",
            )),
            Some(0) => Err(FieldError::new("samples", "must be >= 1 (got 0)")),
            Some(s) => Ok(s),
        }
    }

    /// The seed of the starts.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(DEFAULT_SEED)
    }

    /// The SALI run of every start, checked: positive times, τ a whole multiple of dt, t_end
    /// at least one τ.
    pub fn options(&self) -> Result<ChaoticOptions, FieldError> {
        let mut o = ChaoticOptions::default();
        let dt = self.dt.unwrap_or(match o.method {
            Method::Rk4 { dt } => dt,
            _ => 0.005,
        });
        let dt = positive("dt", dt)?;
        let tau = positive("tau", self.tau.unwrap_or(o.indicators.tau))?;
        let t_end = positive("t_end", self.t_end.unwrap_or(o.indicators.time))?;
        // As simulate and lyapunov: a step that takes more than MAX_STEPS steps to reach
        // t_end (or cannot advance t at all) is refused, not run into `failed` starts.
        let total = t_end / dt;
        if total > crate::limits::MAX_STEPS {
            let stuck = t_end + dt == t_end;
            return Err(FieldError::new(
                "dt",
                format!(
                    "a step of {dt:e} s takes {total:.1e} steps to reach t_end = {t_end} s{}; the limit is {:.0e} steps per trajectory",
                    if stuck { " (it does not even advance t in binary64)" } else { "" },
                    crate::limits::MAX_STEPS
                ),
            ));
        }
        let steps = tau / dt;
        if steps < 0.5 || (steps - steps.round()).abs() > 1e-9 * steps.max(1.0) {
            return Err(FieldError::new("tau", "must be a whole multiple of ")
                .name("dt")
                .text(format!(" = {dt} s (got {tau} s)")));
        }
        if t_end < tau {
            return Err(FieldError::new("t_end", "must be at least one interval ")
                .name("tau")
                .text(format!(" = {tau} s (got {t_end} s)")));
        }
        o.method = Method::Rk4 { dt };
        o.indicators.tau = tau;
        o.indicators.time = t_end;
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_checks() {
        let o = MeasureChoices::default().options(None).unwrap();
        assert_eq!(o, MeasureOptions::default());
        let bad = MeasureChoices {
            shifts: Some(0),
            ..Default::default()
        };
        assert_eq!(
            bad.options(None).unwrap_err().to_string(),
            "shifts: must be >= 1 (got 0)"
        );
        let big = MeasureChoices {
            max_eps: Some(64),
            ..Default::default()
        };
        assert!(big.options(None).is_ok());
        assert_eq!(big.options(Some(128)).unwrap_err().field(), "max_eps");
        assert_eq!(
            parse_extent("0,1,2").unwrap_err().to_string(),
            "extent: expected four finite numbers x0,x1,y0,y1 with x0 != x1 and y0 != y1 (got `0,1,2`)"
        );
        assert_eq!(parse_extent("0, 1,2,3").unwrap(), [0.0, 1.0, 2.0, 3.0]);
        assert!(extent(&[0.0, 0.0, 1.0, 2.0]).is_err());
        let c = ChaoticChoices {
            energies: vec![5.0],
            samples: Some(2),
            dt: Some(0.01),
            tau: Some(0.015),
            ..Default::default()
        };
        assert_eq!(c.samples(), Ok(2));
        assert_eq!(
            c.options().unwrap_err().to_string(),
            "tau: must be a whole multiple of dt = 0.01 s (got 0.015 s)"
        );
    }

    #[test]
    fn huge_and_repeated_options_are_refused_without_overflow() {
        let short = Some(128);
        for (c, field) in [
            (
                MeasureChoices {
                    max_eps: Some(usize::MAX / 4),
                    ..Default::default()
                },
                "max_eps",
            ),
            (
                MeasureChoices {
                    entropy_eps: Some(vec![2, usize::MAX / 8 + 1]),
                    ..Default::default()
                },
                "entropy_eps",
            ),
            (
                MeasureChoices {
                    wada_radius: Some(1 << 63),
                    ..Default::default()
                },
                "wada_radius",
            ),
        ] {
            assert_eq!(c.options(short).unwrap_err().field(), field);
        }
        let twice = MeasureChoices {
            entropy_eps: Some(vec![2, 3, 2]),
            ..Default::default()
        };
        let e = twice.options(None).unwrap_err();
        assert_eq!(e.to_string(), "entropy_eps: the box side 2 is given twice");
    }

    #[test]
    fn the_step_is_limited_like_simulate_s() {
        let c = ChaoticChoices {
            energies: vec![5.0],
            samples: Some(2),
            dt: Some(1e-300),
            ..Default::default()
        };
        let e = c.options().unwrap_err();
        assert_eq!(e.field(), "dt");
        assert!(e.to_string().contains("does not even advance t"), "{e}");
        let fine = ChaoticChoices {
            dt: Some(0.005),
            ..c
        };
        assert!(fine.options().is_ok());
    }
}
