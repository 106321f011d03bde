//! The `[integrator]` table.

use super::{positive, SpecError};
use crate::integrate::Method;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegratorSpec {
    /// `rk4`, `dop853` (default) or `gauss`.
    pub method: Option<String>,
    /// Fixed step (s) for rk4 and gauss (default 1e-3).
    pub dt: Option<f64>,
    /// Alternative to dt for fixed-step methods: steps per output sample (seed 002's sub-steps).
    pub substeps: Option<u64>,
    /// Relative / absolute tolerance for dop853 (default 1e-10).
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    /// Largest step of dop853 (s; default unbounded).
    pub h_max: Option<f64>,
    /// Gauss–Legendre stages: 2 (order 4) or 3 (order 6, default).
    pub stages: Option<usize>,
}

impl IntegratorSpec {
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
                let stages = self.stages.unwrap_or(3);
                if !(stages == 2 || stages == 3) {
                    return Err(SpecError::new(
                        "integrator.stages",
                        format!("must be 2 or 3 (got {stages})"),
                    ));
                }
                Ok(Method::Gauss {
                    dt: fixed_dt()?,
                    stages,
                })
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
                let rtol = positive("integrator.rtol", self.rtol.unwrap_or(1e-10))?;
                let atol = positive("integrator.atol", self.atol.unwrap_or(1e-10))?;
                if rtol < 1e-14 {
                    return Err(SpecError::new(
                        "integrator.rtol",
                        format!("below what binary64 can deliver (got {rtol:e}; use >= 1e-14)"),
                    ));
                }
                let h_max = match self.h_max {
                    Some(h) => positive("integrator.h_max", h)?,
                    None => f64::INFINITY,
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
