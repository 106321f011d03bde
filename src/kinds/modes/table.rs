//! The `[modes]` table of a spec and its validation into the run's settings ([`ModesRun`]).

use crate::analysis::cart::parse_signs;
use crate::analysis::modes::{Equilibrium, ModesError, ModesOptions, NonlinearOptions};
use crate::error::{positive, FieldError as SpecError};
use crate::integrate::Method;
use crate::kinds::kind::{Registered, SpecParts, Table, Validation};
use crate::model::{Chain, Model};
use crate::spec::refuse_given;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModesSpec {
    /// `"hanging"` (default), `"all"` (2^N), or sign strings like `["++", "+-"]`.
    pub equilibria: Option<EquilibriaSpec>,
    /// Compare with the small-angle closed forms (default true).
    pub check: Option<bool>,
    /// Measure the nonlinear model's frequency in each mode (default false).
    pub verify_nonlinear: Option<bool>,
    /// Release amplitude (rad) of the small-amplitude check (default 1e-3).
    pub amplitude: Option<f64>,
    /// Linear periods integrated per measurement (default 20).
    pub periods: Option<f64>,
    /// Amplitudes (rad) for the lowest mode's amplitude dependence.
    pub amplitudes: Option<Vec<f64>>,
}

/// A word (`hanging`, `all`, or one sign string) or a list of sign strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EquilibriaSpec {
    Word(String),
    List(Vec<String>),
}

impl ModesSpec {
    fn options(&self, chain: &Chain) -> Result<ModesOptions, SpecError> {
        let n = chain.links();
        let bad = |e: ModesError| SpecError::new("modes.equilibria", e.to_string());
        let equilibria = match &self.equilibria {
            None => vec![Equilibrium::hanging(n)],
            Some(EquilibriaSpec::Word(w)) if w == "hanging" => vec![Equilibrium::hanging(n)],
            Some(EquilibriaSpec::Word(w)) if w == "all" => Equilibrium::all(n).map_err(bad)?,
            Some(EquilibriaSpec::Word(w)) => vec![Equilibrium::parse(w, n).map_err(bad)?],
            Some(EquilibriaSpec::List(v)) => {
                if v.is_empty() {
                    return Err(SpecError::new("modes.equilibria", "is an empty list"));
                }
                v.iter()
                    .map(|w| Equilibrium::parse(w, n))
                    .collect::<Result<_, _>>()
                    .map_err(bad)?
            }
        };
        let nonlinear = if self.verify_nonlinear.unwrap_or(false) {
            let d = NonlinearOptions::default();
            let amplitude = positive("modes.amplitude", self.amplitude.unwrap_or(d.amplitude))?;
            if amplitude >= 0.5 {
                return Err(SpecError::new(
                    "modes.amplitude",
                    format!("the small-amplitude check needs < 0.5 rad (got {amplitude}); use `amplitudes` for large ones"),
                ));
            }
            let periods = positive("modes.periods", self.periods.unwrap_or(d.periods))?;
            if !(2.0..=1e4).contains(&periods) {
                return Err(SpecError::new(
                    "modes.periods",
                    format!("must be between 2 and 1e4 (got {periods})"),
                ));
            }
            let amplitudes = self
                .amplitudes
                .clone()
                .unwrap_or_else(|| NonlinearOptions::default_amplitudes(n));
            for (i, &a) in amplitudes.iter().enumerate() {
                if !(a.is_finite() && a > 0.0 && a < std::f64::consts::PI) {
                    return Err(SpecError::new(
                        format!("modes.amplitudes[{}]", i + 1),
                        format!("must be in (0, π) rad (got {a})"),
                    ));
                }
            }
            Some(NonlinearOptions {
                amplitude,
                periods,
                amplitudes,
                tol: d.tol,
            })
        } else {
            refuse_given(
                "modes",
                &[
                    ("amplitude", self.amplitude.is_some()),
                    ("periods", self.periods.is_some()),
                    ("amplitudes", self.amplitudes.is_some()),
                ],
                "applies only with verify_nonlinear = true",
            )?;
            None
        };
        Ok(ModesOptions {
            equilibria,
            check: self.check.unwrap_or(true),
            nonlinear,
        })
    }
}

/// A validated modes run: its equilibria and checks, and what its matrices cost on the model
/// it runs on (the cart chain's, or a planar chain's, damped or not).
#[derive(Debug, Clone, PartialEq)]
pub struct ModesRun {
    pub options: ModesOptions,
    pub cart: bool,
    pub damped: bool,
}

impl Table for ModesSpec {
    /// Validates the table as the spec holds it, for the registry ([`super::KIND`]): equilibria
    /// and small oscillations of either model, with no start and DOP853 at 1e-12 for the
    /// nonlinear check.
    fn validate(self, model: &Model, file: &dyn SpecParts) -> Validation {
        if file.has_start() {
            return Err(SpecError::new(
                "initial",
                "a modes analysis starts from the equilibria, not an initial state",
            ));
        }
        if file.integrator().is_given() {
            return Err(SpecError::new(
                "integrator",
                "a modes analysis uses DOP853 at 1e-12 for its nonlinear check; remove [integrator]",
            ));
        }
        let spec = self;
        let (options, damped) = match model {
            Model::Planar(chain) => {
                if !chain.params().drive.is_none() {
                    return Err(SpecError::new(
                        "model.drive",
                        "modes are computed for the unforced chain: remove the drive",
                    ));
                }
                (spec.options(chain)?, !chain.params().damping.is_zero())
            }
            Model::Cart(chain) => (spec.cart_options(chain.links())?, false),
        };
        let run = ModesRun {
            options,
            cart: matches!(model, Model::Cart(_)),
            damped,
        };
        let tol = 1e-12;
        Ok((
            Registered(Box::new(run)),
            Method::Dop853 {
                rtol: tol,
                atol: tol,
                h_max: f64::INFINITY,
            },
            vec![],
        ))
    }
}

impl ModesSpec {
    /// The cart chain's equilibria (sign strings or `hanging`, `inverted`, `folded`, `all`); its
    /// modes have no closed-form check or nonlinear verification.
    fn cart_options(&self, n: usize) -> Result<ModesOptions, SpecError> {
        refuse_given(
            "modes",
            &[
                ("check", self.check.is_some()),
                ("verify_nonlinear", self.verify_nonlinear.is_some()),
                ("amplitude", self.amplitude.is_some()),
                ("periods", self.periods.is_some()),
                ("amplitudes", self.amplitudes.is_some()),
            ],
            "applies to the planar-chain model, not the cart-chain one",
        )?;
        let words = match &self.equilibria {
            None => vec!["hanging".to_string()],
            Some(EquilibriaSpec::Word(w)) => vec![w.clone()],
            Some(EquilibriaSpec::List(v)) => v.clone(),
        };
        let mut signs = Vec::new();
        for w in &words {
            if w == "all" {
                if n > 10 {
                    return Err(SpecError::new(
                        "modes.equilibria",
                        "\"all\" is limited to n <= 10 links (2^n equilibria)",
                    ));
                }
                signs.extend(crate::analysis::cart::all_signs(n));
            } else {
                signs.push(
                    parse_signs(w, n)
                        .map_err(|e| SpecError::new("modes.equilibria", e.to_string()))?,
                );
            }
        }
        Ok(ModesOptions {
            equilibria: signs
                .into_iter()
                .map(|s| Equilibrium {
                    signs: s.iter().map(|&v| if v < 0.0 { -1 } else { 1 }).collect(),
                })
                .collect(),
            check: false,
            nonlinear: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::parse;

    #[test]
    fn modes_run_on_either_model_through_the_registry() {
        let cart = "kind = \"modes\"\n[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n";
        let damped =
            "kind = \"modes\"\n[model]\npreset = \"double\"\n[model.damping]\nabsolute = 0.1\n";
        for (text, is_cart, damped) in [(cart, true, false), (damped, false, true)] {
            let spec = parse(text, "t").unwrap().validate().unwrap();
            let r = &spec.analysis;
            let run = r.as_any().downcast_ref::<super::ModesRun>().unwrap();
            assert_eq!((run.cart, run.damped), (is_cart, damped));
            assert_eq!(r.time_span(), None);
            assert!(spec.x0.is_empty());
        }
        // No start and no integrator of the spec's.
        let e = parse(&format!("{cart}[integrator]\nrtol = 1e-9\n"), "t")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(e.field, "integrator");
        let e = parse(
            &format!("{cart}[initial]\nequilibrium = \"hanging\"\n"),
            "t",
        )
        .unwrap()
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "initial");
    }
}
