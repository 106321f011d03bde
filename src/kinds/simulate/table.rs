//! The `[simulate]` table of a spec and its validation into the run's settings
//! ([`SimulateRun`]): a sampled trajectory of either model.

use crate::analysis::SimulateOptions;
use crate::error::{positive, FieldError as SpecError};
use crate::kinds::kind::{Registered, SpecParts, Table, Validation};
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

impl Table for SimulateSpec {
    /// Validates the table as the spec holds it, for the registry ([`super::KIND`]): the sampling
    /// on `model`, the spec's integrator for it and its start.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let s = self;
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
        let method = spec.integrator().method(Some(dt_out))?;
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
}

#[cfg(test)]
mod tests {
    use crate::kinds::named;
    use crate::spec::parse;

    const CART: &str = "[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n[initial]\nequilibrium = \"hanging\"\n";

    #[test]
    fn simulate_runs_on_either_model_through_the_registry() {
        let kind = named("simulate").expect("registered");
        let planar = "kind = \"simulate\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 0.5]\n[simulate]\nt_end = 2.0\n";
        for (text, cart, t_end) in [
            (planar.to_string(), false, 2.0),
            (format!("kind = \"simulate\"\n{CART}"), true, 10.0),
        ] {
            let spec = parse(&text, "t").unwrap().validate().unwrap();
            assert!(kind.runs_on(&spec.model));
            let r = &spec.analysis;
            let run = r.as_any().downcast_ref::<super::SimulateRun>().unwrap();
            assert_eq!((run.cart, run.options.t_end), (cart, t_end));
            assert_eq!(r.time_span(), Some((t_end, "simulate.t_end")));
        }
        // A planar chain needs its end time; its table keeps its place among a spec's fields.
        let e = parse(&planar.replace("t_end = 2.0\n", ""), "t")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(e.to_string(), "simulate.t_end: missing");
        let e = parse("kind = \"simulate\"\nsimulate = 3\n", "t").unwrap_err();
        assert!(
            e.to_string().ends_with("expected struct SimulateSpec"),
            "{e}"
        );
        let e = parse("bogus = 1\n", "t").unwrap_err().to_string();
        assert!(e.contains("`integrator`, `simulate`, `modes`"), "{e}");
    }
}
