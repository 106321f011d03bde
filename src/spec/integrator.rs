//! The `[integrator]` table.

use super::{positive, SpecError};
use crate::integrate::{Dop853, Gauss, Method};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegratorSpec {
    /// `rk4`, `dop853` (default) or `gauss`.
    pub method: Option<String>,
    /// Fixed step (s) for rk4 and gauss (default 1e-3).
    pub dt: Option<f64>,
    /// Alternative to dt for fixed-step methods: steps per output sample (the animation engine's sub-steps, docs/physics.md §6).
    pub substeps: Option<u64>,
    /// Relative / absolute tolerance for dop853 (default [`Dop853::default`]'s, 1e-10).
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    /// Largest step of dop853 (s; default unbounded).
    pub h_max: Option<f64>,
    /// Gauss–Legendre stages: 1 (the implicit midpoint rule, order 2), 2 (order 4) or 3 (order
    /// 6, the default of [`Gauss::new`]).
    pub stages: Option<usize>,
}

impl IntegratorSpec {
    /// Whether the table sets anything (a kind with an integrator of its own refuses one).
    pub fn is_given(&self) -> bool {
        *self != Self::default()
    }

    /// Whether it gives a fixed step (`dt` or `substeps`).
    pub fn step_given(&self) -> bool {
        self.dt.is_some() || self.substeps.is_some()
    }

    /// The table with `tolerance` as rtol and atol where it gives none: for a kind whose
    /// adaptive default is tighter than the integrator's.
    pub fn with_tolerance(&self, tolerance: f64) -> Self {
        Self {
            rtol: self.rtol.or(Some(tolerance)),
            atol: self.atol.or(Some(tolerance)),
            ..self.clone()
        }
    }

    /// The table with the method `name` where it names none: for a kind whose default
    /// integrator is not the spec's (lyapunov's RK4).
    pub fn or_method(&self, name: &str) -> Self {
        Self {
            method: self.method.clone().or_else(|| Some(name.into())),
            ..self.clone()
        }
    }

    /// The table run as method `name` with the fixed step `dt` a kind sets.
    pub fn fixed(&self, name: &str, dt: f64) -> Self {
        Self {
            method: Some(name.into()),
            dt: Some(dt),
            ..self.clone()
        }
    }

    /// The integrator, validated; `dt_out` resolves `substeps`.
    pub fn method(&self, dt_out: Option<f64>) -> Result<Method, SpecError> {
        let name = self.method.as_deref().unwrap_or("dop853");
        let fixed_dt = || -> Result<f64, SpecError> {
            match (self.dt, self.substeps, dt_out) {
                (Some(_), Some(_), _) => Err(SpecError::new(
                    "integrator.substeps",
                    "give either `dt` or `substeps`, not both",
                )),
                (Some(dt), None, _) => positive("integrator.dt", dt),
                (None, Some(0), _) => Err(SpecError::new(
                    "integrator.substeps",
                    "must be >= 1 (got 0)",
                )),
                (None, Some(s), Some(out)) => Ok(out / s as f64),
                (None, Some(_), None) => Err(SpecError::new(
                    "integrator.substeps",
                    "needs an output interval",
                )),
                (None, None, _) => Ok(1e-3),
            }
        };
        let adaptive_only = |field: &str, v: &Option<f64>| match v {
            Some(_) => Err(SpecError::new(
                format!("integrator.{field}"),
                format!("applies to dop853, not {name}"),
            )),
            None => Ok(()),
        };
        match name {
            "rk4" => {
                adaptive_only("rtol", &self.rtol)?;
                adaptive_only("atol", &self.atol)?;
                if self.stages.is_some() {
                    return Err(SpecError::new(
                        "integrator.stages",
                        "applies to gauss, not rk4",
                    ));
                }
                Ok(Method::Rk4 { dt: fixed_dt()? })
            }
            "gauss" => {
                adaptive_only("rtol", &self.rtol)?;
                adaptive_only("atol", &self.atol)?;
                let dt = fixed_dt()?;
                let Method::Gauss {
                    stages: default, ..
                } = Method::gauss_default(dt)
                else {
                    unreachable!("gauss_default is a Gauss method")
                };
                let stages = self.stages.unwrap_or(default);
                if !Gauss::STAGES.contains(&stages) {
                    return Err(SpecError::new(
                        "integrator.stages",
                        format!(
                            "must be {} to {} (got {stages})",
                            Gauss::STAGES.start(),
                            Gauss::STAGES.end()
                        ),
                    ));
                }
                Ok(Method::Gauss { dt, stages })
            }
            "dop853" => {
                if self.dt.is_some() || self.substeps.is_some() {
                    return Err(SpecError::new(
                        "integrator.dt",
                        "dop853 is adaptive: set rtol/atol (and h_max), not dt",
                    ));
                }
                if self.stages.is_some() {
                    return Err(SpecError::new(
                        "integrator.stages",
                        "applies to gauss, not dop853",
                    ));
                }
                let d = Dop853::default();
                let rtol = positive("integrator.rtol", self.rtol.unwrap_or(d.rtol))?;
                let atol = positive("integrator.atol", self.atol.unwrap_or(d.atol))?;
                if rtol < 1e-14 {
                    return Err(SpecError::new(
                        "integrator.rtol",
                        format!("below what binary64 can deliver (got {rtol:e}; use >= 1e-14)"),
                    ));
                }
                let h_max = match self.h_max {
                    Some(h) => positive("integrator.h_max", h)?,
                    None => d.h_max,
                };
                Ok(Method::Dop853 { rtol, atol, h_max })
            }
            other => Err(SpecError::new(
                "integrator.method",
                format!("unknown method `{other}` (expected rk4, dop853 or gauss)"),
            )),
        }
    }
}
