//! The `[simulate]` table: a sampled trajectory of either model.

use super::{positive, Analysis, Model, SpecError, SpecFile, Validated};
use crate::analysis::SimulateOptions;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulateSpec {
    /// End time (s); required for a planar chain, default 10 for the cart chain.
    pub t_end: Option<f64>,
    /// Sampling interval (s), default 0.01.
    pub dt_out: Option<f64>,
}

pub(super) fn validate(file: &SpecFile, model: &Model) -> Result<Validated, SpecError> {
    let s = file.simulate.clone().unwrap_or_default();
    let (t_end, x0) = match model {
        Model::Planar(chain) => (
            s.t_end
                .ok_or_else(|| SpecError::new("simulate.t_end", "missing"))?,
            file.initial.state(chain.links())?,
        ),
        Model::Cart(chain) => (s.t_end.unwrap_or(10.0), file.initial.cart_state(chain)?),
    };
    let t_end = positive("simulate.t_end", t_end)?;
    let dt_out = positive("simulate.dt_out", s.dt_out.unwrap_or(0.01))?;
    if dt_out > t_end {
        return Err(SpecError::new(
            "simulate.dt_out",
            format!("is longer than t_end ({dt_out} > {t_end})"),
        ));
    }
    // How many samples fit is the memory budget's call (Spec::memory_estimate).
    let method = file.integrator.method(Some(dt_out))?;
    if let Some(dt) = method.fixed_dt() {
        if dt > t_end {
            return Err(SpecError::new(
                "integrator.dt",
                format!("is longer than t_end ({dt} > {t_end})"),
            ));
        }
    }
    Ok(Validated {
        analysis: Analysis::Simulate(SimulateOptions { t_end, dt_out }),
        x0,
        method,
    })
}
