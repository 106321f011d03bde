//! The `[animate]` table's validation into the run's settings ([`super::AnimateOptions`]). Seed
//! 002's engine: RK4 with S sub-steps per frame unless the spec asks for the adaptive method;
//! the step comes from `[animate]`, not from `[integrator]`. The table's type and its checks
//! ([`AnimateSpec`]) stay in `spec/visual.rs` beside `[figures]`, whose checks they share.

use crate::error::FieldError as SpecError;
use crate::kinds::kind::{Registered, SpecParts, Table, Validation};
use crate::model::Model;
use crate::spec::AnimateSpec;

impl Table for AnimateSpec {
    /// Validates the table as the spec holds it, for the registry ([`super::KIND`]): the
    /// animation on the planar chain `model`, its start and its integrator.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let Model::Planar(chain) = model else {
            unreachable!("animate is offered for the planar chain only (KIND.models)")
        };
        let x0 = spec.start()?;
        let a = self;
        let opts = a.options(chain.links())?;
        let integ = spec.integrator();
        if integ.step_given() {
            return Err(SpecError::new(
                "integrator.dt",
                "an animation's step is animate.speed / (animate.fps · animate.substeps): set those",
            ));
        }
        let method = match integ.method.as_deref() {
            None | Some("rk4") => integ.fixed("rk4", opts.sample_dt()).method(None)?,
            Some("dop853") => integ.method(None)?,
            Some(other) => {
                return Err(SpecError::new(
                    "integrator.method",
                    format!("an animation uses rk4 or dop853 (got `{other}`)"),
                ))
            }
        };
        Ok((Registered(Box::new(opts)), method, x0))
    }
}
