//! The `[simulate]` table of a spec and its validation into the run's settings
//! ([`SimulateRun`]): a sampled trajectory of either model.

use crate::analysis::SimulateOptions;
use crate::error::{positive, FieldError as SpecError};
use crate::integrate::Method;
use crate::kinds::kind::{typed_table, Registered, SpecParts};
use crate::model::Model;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulateSpec {
    /// End time (s); required for a planar chain, default 10 for the cart chain.
    pub t_end: Option<f64>,
    /// Sampling interval (s), default 0.01.
    pub dt_out: Option<f64>,
}

/// A validated simulation: its sampling, and whether it runs on the cart chain (whose samples
/// cost what its trajectory holds, not a planar chain's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulateRun {
    pub options: SimulateOptions,
    pub cart: bool,
}

/// Validates the table as the spec holds it, for the registry ([`super::KIND`]): the sampling
/// on `model`, the spec's integrator for it and its start.
pub fn validate_table(
    table: &toml::Table,
    model: &Model,
    spec: &dyn SpecParts,
) -> Result<(Registered, Method, Vec<f64>), SpecError> {
    let s: SimulateSpec = typed_table(super::KIND.name, table)?;
    let (t_end, x0) = match model {
        Model::Planar(_) => (
            s.t_end
                .ok_or_else(|| SpecError::new("simulate.t_end", "missing"))?,
            spec.start()?,
        ),
        Model::Cart(_) => (s.t_end.unwrap_or(10.0), spec.start()?),
    };
    let t_end = positive("simulate.t_end", t_end)?;
    let dt_out = positive("simulate.dt_out", s.dt_out.unwrap_or(0.01))?;
    if dt_out > t_end {
        return Err(SpecError::new(
            "simulate.dt_out",
            format!("is longer than t_end ({dt_out} > {t_end})"),
        ));
    }
    // How many samples fit is the memory budget's call (Settings::memory).
    let method = spec.method(Some(dt_out), None)?;
    if let Some(dt) = method.fixed_dt() {
        if dt > t_end {
            return Err(SpecError::new(
                "integrator.dt",
                format!("is longer than t_end ({dt} > {t_end})"),
            ));
        }
    }
    let run = SimulateRun {
        options: SimulateOptions { t_end, dt_out },
        cart: matches!(model, Model::Cart(_)),
    };
    Ok((Registered(Box::new(run)), method, x0))
}
