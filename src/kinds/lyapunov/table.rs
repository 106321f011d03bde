//! The `[lyapunov]` table of a spec and its validation into the run's settings
//! ([`LyapunovRun`]): an estimator on the planar chain, or the QR spectrum on the cart chain.

use crate::analysis::lyapunov::{EnsembleOptions, LyapunovOptions, TwoTrajectoryOptions};
use crate::analysis::orbit::{
    indicator_by_name, AlignmentOptions, CovariantOptions, Deviation, Indicator, IndicatorOptions,
    SlopeSamples, ESTIMATORS,
};
use crate::error::{positive, FieldError as SpecError};
use crate::format::one_of;
use crate::kinds::kind::{Registered, SpecParts, Table, Validation};
use crate::model::{Model, System};
use crate::spec::retired::{self, Retired};
use serde::{Deserialize, Serialize};

/// A validated Lyapunov run: its estimator and options, and the ensemble or covariant vectors
/// it computes besides.
#[derive(Debug, Clone, PartialEq)]
pub struct LyapunovRun {
    pub estimator: LyapunovEstimator,
    pub options: LyapunovOptions,
    /// Members of a perturbed ensemble (None: a single orbit).
    pub ensemble: Option<EnsembleOptions>,
    /// `vectors = "covariant"`: the spectrum's run also gives its covariant vectors.
    pub covariant: Option<CovariantOptions>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LyapunovEstimator {
    /// QR method, k exponents.
    Spectrum,
    /// One tangent vector.
    Tangent,
    /// Two trajectories with rescaling.
    TwoTrajectory(TwoTrajectoryOptions),
    /// SALI / GALI fast indicators.
    Sali(AlignmentOptions),
    /// A registered single-orbit indicator (MEGNO, FLI, …; see
    /// [`INDICATORS`](crate::analysis::orbit::INDICATORS)).
    Indicator(&'static Indicator, IndicatorOptions),
}

impl LyapunovEstimator {
    pub fn name(&self) -> &'static str {
        match self {
            LyapunovEstimator::Spectrum => "spectrum",
            LyapunovEstimator::Tangent => "tangent",
            LyapunovEstimator::TwoTrajectory(_) => "two-trajectory",
            LyapunovEstimator::Sali(_) => "sali",
            LyapunovEstimator::Indicator(i, _) => i.name,
        }
    }
}

/// The `[lyapunov]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LyapunovSpec {
    /// `spectrum` (default), `tangent`, `two-trajectory`, `sali`, or a registered indicator
    /// (`megno`, `fli`; all in [`ESTIMATORS`]).
    pub estimator: Option<String>,
    /// Number of exponents: an integer, or "all" (default).
    pub exponents: Option<ExponentsSpec>,
    /// Re-orthonormalization interval τ (s), default 0.01 (a multiple of dt for rk4/gauss).
    pub tau: Option<f64>,
    /// Transient (s) integrated with the logs discarded, default 10.
    pub transient: Option<f64>,
    /// End of the run (s): the transient plus the averaging time (default transient + 200).
    /// SALI/GALI run from 0 to `t_end` (default 200).
    pub t_end: Option<f64>,
    #[serde(
        default,
        deserialize_with = "retired::lyapunov_time",
        skip_serializing_if = "Option::is_none"
    )]
    pub time: Option<Retired>,
    #[serde(
        default,
        deserialize_with = "retired::t_max_is_t_end",
        skip_serializing_if = "Option::is_none"
    )]
    pub t_max: Option<Retired>,
    /// Stopping rule: stop once every standard error is below this (1/s).
    pub tolerance: Option<f64>,
    /// Blocks for the batch-means standard errors (>= 10, default 20).
    pub blocks: Option<usize>,
    /// Initial separation of the two-trajectory method (default 1e-8).
    pub d0: Option<f64>,
    /// Members of a perturbed ensemble (>= 2), with perturbation size `epsilon` and `seed`.
    pub ensemble: Option<usize>,
    pub epsilon: Option<f64>,
    pub seed: Option<u64>,
    /// Start deviation vector of the tangent estimator, MEGNO and FLI: `diagonal`
    /// ((1, …, 1)/√(2N), the default and every one-vector map kind's) or `unit` (e₁).
    pub deviation: Option<String>,
    /// MEGNO: the samples of ⟨Y⟩ its second-half slope is fitted over: `tau` (the
    /// renormalisation times and t_end, the MEGNO map's rule, default) or `step` (every step).
    pub slope_samples: Option<String>,
    /// `covariant`: also the covariant Lyapunov vectors (Ginelli's method) of the spectrum's
    /// run, sampled over its averaging window.
    pub vectors: Option<String>,
    /// Covariant vectors: the backward transient (s) run after the window, default 10.
    pub backward_transient: Option<f64>,
    /// Covariant vectors: most sample times in the window, default 1000.
    pub vector_samples: Option<usize>,
    /// Covariant vectors: pairs [i, j] (1-based) whose angle is reported at every sample.
    pub vector_pairs: Option<Vec<[usize; 2]>>,
    /// Covariant vectors: an unstable–stable angle below this (rad) is a near-tangency,
    /// default 0.1.
    pub tangency_angle: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExponentsSpec {
    Count(usize),
    Word(String),
}

impl LyapunovSpec {
    fn run(&self, dim: usize) -> Result<LyapunovRun, SpecError> {
        let d = LyapunovOptions::default();
        let k = self.exponents(dim)?;
        let tau = positive("lyapunov.tau", self.tau.unwrap_or(d.tau))?;
        // SALI/GALI, MEGNO and FLI have no transient: their run is the averaging time, from 0 to
        // t_end.
        let indicator = self.estimator.as_deref().and_then(indicator_by_name);
        let from_zero = indicator.is_some() || self.estimator.as_deref() == Some("sali");
        let (transient, time) = self.times(&d, tau, from_zero)?;
        let tolerance = match self.tolerance {
            Some(t) => Some(positive("lyapunov.tolerance", t)?),
            None => None,
        };
        let blocks = self.blocks.unwrap_or(d.blocks);
        if blocks < 10 {
            return Err(SpecError::new(
                "lyapunov.blocks",
                format!("must be >= 10 (got {blocks})"),
            ));
        }
        let deviation = match self.deviation.as_deref() {
            None => None,
            Some(w) => Some(Deviation::parse(w).ok_or_else(|| {
                SpecError::new(
                    "lyapunov.deviation",
                    format!("expected unit or diagonal (got `{w}`)"),
                )
            })?),
        };
        let options = LyapunovOptions {
            k,
            tau,
            transient,
            time,
            tolerance,
            blocks,
            deviation,
            ..d
        };
        let name = self.estimator.as_deref().unwrap_or("spectrum");
        let estimator = self.estimator(name, indicator, k, tau, time, deviation)?;
        if self.deviation.is_some()
            && !matches!(
                estimator,
                LyapunovEstimator::Indicator(..) | LyapunovEstimator::Tangent
            )
        {
            return Err(SpecError::new(
                "lyapunov.deviation",
                "applies to estimator = \"tangent\", \"megno\" or \"fli\"",
            ));
        }
        if self.slope_samples.is_some() && name != "megno" {
            return Err(SpecError::new(
                "lyapunov.slope_samples",
                "applies to estimator = \"megno\"",
            ));
        }
        if self.d0.is_some() && name != "two-trajectory" {
            return Err(SpecError::new(
                "lyapunov.d0",
                "applies to estimator = \"two-trajectory\"",
            ));
        }
        let ensemble = self.ensemble(name)?;
        let covariant = self.covariant(name, dim, &options, ensemble.is_some())?;
        Ok(LyapunovRun {
            estimator,
            options,
            ensemble,
            covariant,
        })
    }

    /// `lyapunov.exponents`: how many exponents (None: all 2N = `dim`).
    fn exponents(&self, dim: usize) -> Result<Option<usize>, SpecError> {
        Ok(match &self.exponents {
            None => None,
            Some(ExponentsSpec::Word(w)) if w == "all" => None,
            Some(ExponentsSpec::Word(w)) => {
                return Err(SpecError::new(
                    "lyapunov.exponents",
                    format!("expected a number or \"all\" (got `{w}`)"),
                ))
            }
            Some(ExponentsSpec::Count(k)) => {
                if *k == 0 || *k > dim {
                    return Err(SpecError::new(
                        "lyapunov.exponents",
                        format!("must be between 1 and 2N = {dim} (got {k})"),
                    ));
                }
                Some(*k)
            }
        })
    }

    /// The transient and the averaging time (s) at renormalisation interval `tau` (an
    /// indicator or SALI runs `from_zero`, with no transient).
    fn times(
        &self,
        d: &LyapunovOptions,
        tau: f64,
        from_zero: bool,
    ) -> Result<(f64, f64), SpecError> {
        let transient = match (from_zero, self.transient) {
            (true, Some(_)) => {
                return Err(SpecError::new(
                    "lyapunov.transient",
                    format!(
                        "does not apply to estimator = \"{}\"",
                        self.estimator.as_deref().unwrap_or_default()
                    ),
                ))
            }
            (true, None) => 0.0,
            (false, t) => t.unwrap_or(d.transient),
        };
        if !(transient.is_finite() && transient >= 0.0) {
            return Err(SpecError::new(
                "lyapunov.transient",
                format!("must be finite and >= 0 (got {transient})"),
            ));
        }
        let time = match self.t_end {
            Some(t) => {
                let t = positive("lyapunov.t_end", t)?;
                if t <= transient {
                    return Err(SpecError::new(
                        "lyapunov.t_end",
                        format!("must exceed the transient ({t} <= {transient})"),
                    ));
                }
                t - transient
            }
            None => d.time,
        };
        if time < tau {
            return Err(SpecError::new(
                "lyapunov.t_end",
                format!("leaves an averaging time shorter than tau ({time} < {tau})"),
            ));
        }
        let intervals = (transient + time) / tau;
        if intervals > 1e10 {
            // Name the field the user set: a long run at the default tau is t_end's doing.
            let field = if self.t_end.is_some() {
                "lyapunov.t_end"
            } else {
                "lyapunov.tau"
            };
            return Err(SpecError::new(
                field,
                format!(
                    "{} s at tau = {tau} s is {intervals:.1e} re-orthonormalization intervals, more than 1e10 (raise tau or shorten t_end)",
                    transient + time
                ),
            ));
        }
        Ok((transient, time))
    }

    /// The estimator `name` (an indicator's entry where it names one) and its own options.
    fn estimator(
        &self,
        name: &str,
        indicator: Option<&'static Indicator>,
        k: Option<usize>,
        tau: f64,
        time: f64,
        deviation: Option<Deviation>,
    ) -> Result<LyapunovEstimator, SpecError> {
        Ok(match (name, indicator) {
            ("spectrum", _) => LyapunovEstimator::Spectrum,
            ("tangent", _) => LyapunovEstimator::Tangent,
            ("two-trajectory", _) => {
                let d0 = positive("lyapunov.d0", self.d0.unwrap_or(1e-8))?;
                if d0 > 1e-3 {
                    return Err(SpecError::new(
                        "lyapunov.d0",
                        format!("must be small (<= 1e-3) for a linear separation (got {d0})"),
                    ));
                }
                LyapunovEstimator::TwoTrajectory(TwoTrajectoryOptions {
                    d0,
                    direction: None,
                })
            }
            ("sali", _) => {
                let k = k.unwrap_or(2).max(2);
                LyapunovEstimator::Sali(AlignmentOptions {
                    tau,
                    time,
                    k,
                    ..AlignmentOptions::default()
                })
            }
            (_, Some(indicator)) => {
                // Indicators run from 0 with no averaging window: these fields would be ignored.
                let unused = [
                    ("lyapunov.exponents", self.exponents.is_some()),
                    ("lyapunov.tolerance", self.tolerance.is_some()),
                    ("lyapunov.blocks", self.blocks.is_some()),
                ];
                if let Some((field, _)) = unused.iter().find(|(_, set)| *set) {
                    return Err(SpecError::new(
                        *field,
                        format!("does not apply to estimator = \"{name}\""),
                    ));
                }
                let slope_samples = match self.slope_samples.as_deref() {
                    None => None,
                    Some(_) if indicator.name != "megno" => {
                        return Err(SpecError::new(
                            "lyapunov.slope_samples",
                            "applies to estimator = \"megno\"",
                        ))
                    }
                    Some(w) => Some(SlopeSamples::parse(w).ok_or_else(|| {
                        SpecError::new(
                            "lyapunov.slope_samples",
                            format!("expected step or tau (got `{w}`)"),
                        )
                    })?),
                };
                let options = IndicatorOptions {
                    tau,
                    time,
                    deviation,
                    slope_samples,
                    ..IndicatorOptions::default()
                };
                LyapunovEstimator::Indicator(indicator, options)
            }
            (other, None) => {
                return Err(SpecError::new(
                    "lyapunov.estimator",
                    format!(
                        "unknown estimator `{other}` (expected {})",
                        one_of(&ESTIMATORS.split('|').collect::<Vec<_>>())
                    ),
                ))
            }
        })
    }

    /// `lyapunov.ensemble` and its fields, for the estimator `name`.
    fn ensemble(&self, name: &str) -> Result<Option<EnsembleOptions>, SpecError> {
        Ok(match self.ensemble {
            None => {
                if self.epsilon.is_some() || self.seed.is_some() {
                    return Err(SpecError::new(
                        "lyapunov.epsilon",
                        "applies only with `ensemble`",
                    ));
                }
                None
            }
            Some(m) => {
                if m < 2 {
                    return Err(SpecError::new(
                        "lyapunov.ensemble",
                        format!("needs at least 2 members (got {m})"),
                    ));
                }
                if !matches!(name, "spectrum" | "tangent") {
                    return Err(SpecError::new(
                        "lyapunov.ensemble",
                        format!("is offered for the spectrum and tangent estimators, not {name}"),
                    ));
                }
                let e = EnsembleOptions::default();
                let epsilon = positive("lyapunov.epsilon", self.epsilon.unwrap_or(e.epsilon))?;
                Some(EnsembleOptions {
                    members: m,
                    epsilon,
                    seed: self.seed.unwrap_or(e.seed),
                    ..e
                })
            }
        })
    }

    /// `vectors = "covariant"` and its fields: for the QR spectrum of a single orbit, with a
    /// window fixed in advance (no tolerance).
    fn covariant(
        &self,
        name: &str,
        dim: usize,
        options: &LyapunovOptions,
        ensemble: bool,
    ) -> Result<Option<CovariantOptions>, SpecError> {
        let fields = [
            (
                "lyapunov.backward_transient",
                self.backward_transient.is_some(),
            ),
            ("lyapunov.vector_samples", self.vector_samples.is_some()),
            ("lyapunov.vector_pairs", self.vector_pairs.is_some()),
            ("lyapunov.tangency_angle", self.tangency_angle.is_some()),
        ];
        match self.vectors.as_deref() {
            None => {
                if let Some((field, _)) = fields.iter().find(|(_, set)| *set) {
                    return Err(SpecError::new(
                        *field,
                        "applies with vectors = \"covariant\"",
                    ));
                }
                return Ok(None);
            }
            Some("covariant") => {}
            Some(w) => {
                return Err(SpecError::new(
                    "lyapunov.vectors",
                    format!("expected covariant (got `{w}`)"),
                ))
            }
        }
        if name != "spectrum" {
            return Err(SpecError::new(
                "lyapunov.vectors",
                format!("applies to estimator = \"spectrum\", not {name}"),
            ));
        }
        if ensemble {
            return Err(SpecError::new(
                "lyapunov.vectors",
                "is offered for a single orbit, not an ensemble",
            ));
        }
        if self.tolerance.is_some() {
            return Err(SpecError::new(
                "lyapunov.tolerance",
                "does not apply with vectors = \"covariant\" (the window is fixed in advance)",
            ));
        }
        let d = CovariantOptions::default();
        let backward_transient = self.backward_transient.unwrap_or(d.backward_transient);
        if !(backward_transient.is_finite() && backward_transient >= 0.0) {
            return Err(SpecError::new(
                "lyapunov.backward_transient",
                format!("must be finite and >= 0 (got {backward_transient})"),
            ));
        }
        if backward_transient / options.tau > 1e10 {
            return Err(SpecError::new(
                "lyapunov.backward_transient",
                format!(
                    "is {:.1e} intervals tau, more than 1e10",
                    backward_transient / options.tau
                ),
            ));
        }
        let samples = self.vector_samples.unwrap_or(d.samples);
        if samples == 0 {
            return Err(SpecError::new("lyapunov.vector_samples", "must be >= 1"));
        }
        let k = options.k.unwrap_or(dim);
        let mut pairs = Vec::new();
        for p in self.vector_pairs.iter().flatten() {
            if p[0] == p[1] || !(1..=k).contains(&p[0]) || !(1..=k).contains(&p[1]) {
                return Err(SpecError::new(
                    "lyapunov.vector_pairs",
                    format!(
                        "each pair names two different vectors among 1..={k} (got [{}, {}])",
                        p[0], p[1]
                    ),
                ));
            }
            if pairs.len() >= 64 {
                return Err(SpecError::new("lyapunov.vector_pairs", "at most 64 pairs"));
            }
            pairs.push((p[0] - 1, p[1] - 1));
        }
        let tangency_angle = self.tangency_angle.unwrap_or(d.tangency_angle);
        if !(tangency_angle > 0.0 && tangency_angle <= std::f64::consts::FRAC_PI_2) {
            return Err(SpecError::new(
                "lyapunov.tangency_angle",
                format!("must be in (0, pi/2] rad (got {tangency_angle})"),
            ));
        }
        Ok(Some(CovariantOptions {
            backward_transient,
            samples,
            pairs,
            tangency_angle,
        }))
    }
}

impl Table for LyapunovSpec {
    /// Validates the table as the spec holds it, for the registry ([`super::KIND`]): either model
    /// (the cart chain: the QR spectrum on its manifold), from the spec's start, on the spec's
    /// integrator or benchmark L's (RK4, dt = 1e-3) where it names none.
    fn validate(self, model: &Model, parts: &dyn SpecParts) -> Validation {
        let x0 = parts.start()?;
        let dim = match model {
            Model::Planar(chain) => 2 * chain.links(),
            Model::Cart(chain) => chain.manifold_dim(),
        };
        let spec = self;
        let run = spec.run(dim)?;
        if let Model::Cart(_) = model {
            if run.estimator != LyapunovEstimator::Spectrum {
                return Err(SpecError::new(
                    "lyapunov.estimator",
                    "the cart chain offers the QR spectrum (estimator = \"spectrum\")",
                ));
            }
            if run.ensemble.is_some() {
                return Err(SpecError::new(
                    "lyapunov.ensemble",
                    "is offered for the planar chain only",
                ));
            }
            if run.covariant.is_some() {
                return Err(SpecError::new(
                    "lyapunov.vectors",
                    "covariant vectors are offered for the planar chain only",
                ));
            }
        }
        // Benchmark L's integrator unless the spec chooses: RK4, dt = 1e-3.
        let method = parts.integrator().or_method("rk4").method(None)?;
        if let Some(dt) = method.fixed_dt() {
            let q = run.options.tau / dt;
            if (q - q.round()).abs() > 1e-9 * q.max(1.0) || q.round() < 1.0 {
                return Err(
                    SpecError::new("lyapunov.tau", "must be a whole multiple of ")
                        .name("integrator.dt")
                        .text(format!(" = {dt} (got {})", run.options.tau)),
                );
            }
        }
        Ok((Registered(Box::new(run)), method, x0))
    }
}

#[cfg(test)]
mod tests {
    use crate::integrate::Method;
    use crate::spec::parse;

    #[test]
    fn lyapunov_runs_on_either_model_through_the_registry() {
        let planar = "kind = \"lyapunov\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [1.0, 1.0]\n[lyapunov]\ntransient = 2.0\nt_end = 12.0\n";
        let cart = "kind = \"lyapunov\"\n[model]\nkind = \"cart-chain\"\nlinks = 2\ncart_mass = 1.0\n[initial]\nequilibrium = \"hanging\"\ntilt = 0.3\n";
        for text in [planar, cart] {
            let spec = parse(text, "t").unwrap().validate().unwrap();
            let r = &spec.analysis;
            assert!(r.as_any().downcast_ref::<super::LyapunovRun>().is_some());
            // Benchmark L's integrator where the spec names none.
            assert_eq!(spec.method, Method::Rk4 { dt: 1e-3 });
            let span = r.time_span().unwrap();
            assert_eq!(span.1, "lyapunov.t_end");
        }
        // The cart chain offers the QR spectrum alone.
        let e = parse(&format!("{cart}[lyapunov]\nestimator = \"tangent\"\n"), "t")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(e.field, "lyapunov.estimator");
    }
}
