//! The `[control]` table of a spec and its validation into the run's settings
//! ([`ControlOptions`]): an LQR design about a vertical equilibrium of a cart chain.

use crate::analysis::cart::{parse_signs, LqrWeights};
use crate::error::{positive, FieldError as SpecError};
use crate::kinds::kind::{Registered, SpecParts, Table, Validation};
use crate::model::{CartInput, Model};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    /// The equilibrium to stabilize (default "inverted").
    pub equilibrium: Option<String>,
    pub q_cart: Option<f64>,
    pub q_angle: Option<f64>,
    pub q_rate: Option<f64>,
    pub r: Option<f64>,
    /// Where the cart should come to rest (default [0, 0]).
    pub x_ref: Option<[f64; 2]>,
    pub t_end: Option<f64>,
    pub dt_out: Option<f64>,
}

/// The validated `[control]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlOptions {
    /// The equilibrium to stabilize, s_j = ±1.
    pub signs: Vec<f64>,
    pub weights: LqrWeights,
    /// Where the cart should come to rest.
    pub x_ref: [f64; 2],
    pub t_end: f64,
    pub dt_out: f64,
}

impl Table for ControlSpec {
    /// Validates the table as the spec holds it, for the registry ([`super::KIND`]): the design
    /// on the cart chain `model`, its start (without an explicit one, the target tilted by
    /// 0.05 rad) and the spec's integrator.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let Model::Cart(chain) = model else {
            unreachable!("control is offered for the cart chain only (KIND.models)")
        };
        let c = self;
        let target = c.equilibrium.as_deref().unwrap_or("inverted");
        let signs = parse_signs(target, chain.links())
            .map_err(|e| SpecError::new("control.equilibrium", e.to_string()))?;
        if !chain.free() {
            return Err(SpecError::new(
                "model.fixed",
                "control needs a moving cart (give cart_mass, not fixed = true)",
            ));
        }
        if !matches!(chain.params().input, CartInput::Zero) {
            return Err(SpecError::new(
                "model.input",
                "control computes the input; leave model.input out",
            ));
        }
        let d = LqrWeights::default();
        let weights = LqrWeights {
            q_cart: positive("control.q_cart", c.q_cart.unwrap_or(d.q_cart))?,
            q_angle: positive("control.q_angle", c.q_angle.unwrap_or(d.q_angle))?,
            q_rate: positive("control.q_rate", c.q_rate.unwrap_or(d.q_rate))?,
            r: positive("control.r", c.r.unwrap_or(d.r))?,
        };
        let t_end = positive("control.t_end", c.t_end.unwrap_or(20.0))?;
        let dt_out = positive("control.dt_out", c.dt_out.unwrap_or(0.01))?;
        let x_ref = c.x_ref.unwrap_or([0.0; 2]);
        if !x_ref.iter().all(|v| v.is_finite()) {
            return Err(SpecError::new("control.x_ref", "must be finite"));
        }
        // Without an explicit start, the closed loop starts at the target tilted by 0.05 rad.
        let x0 = spec.start_near(target, 0.05)?;
        let method = spec.integrator().method(Some(dt_out))?;
        let run = ControlOptions {
            signs,
            weights,
            x_ref,
            t_end,
            dt_out,
        };
        Ok((Registered(Box::new(run)), method, x0))
    }
}
