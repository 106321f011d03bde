//! The `[poincare]` table of a spec and its validation into the section's options
//! ([`PoincareOptions`]).

use crate::analysis::poincare::PoincareOptions;
use crate::error::{positive, FieldError as SpecError};
use crate::integrate::Method;
use crate::kinds::kind::{planar_chain, Registered, SpecParts, Table, Validation};
use crate::model::{Chain, Model};
use crate::spec::retired::{self, Retired};
use crate::spec::{refuse_given, state_coordinate};
use serde::{Deserialize, Serialize};

/// One number or a list (energies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(f64),
    Many(Vec<f64>),
}

impl OneOrMany {
    fn values(&self) -> Vec<f64> {
        match self {
            OneOrMany::One(v) => vec![*v],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// The `[poincare]` table: a section, where orbits start, and how long they run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoincareSpec {
    /// Section coordinate: `theta<i>` (mod 2π) or `omega<i>`, 1-based (default `theta1`).
    pub section: Option<String>,
    /// Section position (rad or rad/s; default 0).
    pub value: Option<f64>,
    /// General hyperplane `normal · x = offset` on x = (θ, θ̇) instead of `section`.
    pub normal: Option<Vec<f64>>,
    pub offset: Option<f64>,
    /// Crossing direction: `+` (default), `-` or `both`.
    pub direction: Option<String>,
    /// Sample at t0 + k·period (default period 2π/Ω of the drive) instead of a surface.
    pub stroboscopic: Option<bool>,
    pub period: Option<f64>,
    pub t0: Option<f64>,
    /// Stroboscopic: drive periods integrated and discarded before the first sample (a whole
    /// number, default 0), so that a driven attractor's section carries no approach.
    pub transient: Option<f64>,
    /// Shell energies (J), or fractions between the hanging (0) and inverted (1) energies.
    pub energy: Option<OneOrMany>,
    pub energy_fraction: Option<OneOrMany>,
    /// The link (1-based) whose plane (θ, p or θ̇) is sampled and plotted (default: the first
    /// link that is not the section's).
    pub link: Option<usize>,
    /// `momentum` (default, p = M θ̇) or `velocity` (θ̇).
    pub variables: Option<String>,
    /// Grid of initial points [angles, speeds] (default [8, 5]), or `random` points with `seed`.
    pub grid: Option<Vec<usize>>,
    pub random: Option<usize>,
    pub seed: Option<u64>,
    pub angle_range: Option<Vec<f64>>,
    pub speed_range: Option<Vec<f64>>,
    /// Crossings per orbit (default 300) and time limit per orbit (s, default 5000).
    pub crossings: Option<usize>,
    pub t_end: Option<f64>,
    #[serde(
        default,
        deserialize_with = "retired::t_max_is_t_end",
        skip_serializing_if = "Option::is_none"
    )]
    pub t_max: Option<Retired>,
    /// Finite-time Lyapunov exponent per orbit, and the chaotic threshold (1/s, default 0.05).
    pub lyapunov: Option<bool>,
    pub chaos_threshold: Option<f64>,
}

fn range2(field: &str, v: &Option<Vec<f64>>) -> Result<Option<(f64, f64)>, SpecError> {
    match v {
        None => Ok(None),
        Some(r) if r.len() == 2 && r.iter().all(|x| x.is_finite()) && r[0] < r[1] => {
            Ok(Some((r[0], r[1])))
        }
        Some(r) => Err(SpecError::new(
            field,
            format!("must be [lo, hi] with finite lo < hi (got {r:?})"),
        )),
    }
}

impl PoincareSpec {
    /// Validates against the chain; `initial` is the explicit start used without energies.
    pub fn options(
        &self,
        chain: &Chain,
        initial: Option<Vec<f64>>,
    ) -> Result<PoincareOptions, SpecError> {
        use crate::analysis::poincare::{Section, SectionOptions};
        let n = chain.links();
        let f = |name: &str| format!("poincare.{name}");
        let (section, strobe) = self.section(chain)?;
        let sampling = self.sampling(n, &section)?;
        let (energies, initial_states) = self.energies(chain, &section, strobe, initial)?;
        // A shell whose grid reaches no point is bad input, found here (cheap: one quadratic
        // per point) rather than as a failed run.
        for (i, &e) in energies.iter().enumerate() {
            use crate::analysis::poincare::{shell_initial_conditions, PoincareError};
            if let Err(err @ PoincareError::NoneReachable { .. }) =
                shell_initial_conditions(chain, &section, e, &sampling)
            {
                let field = match (&self.energy, &self.energy_fraction) {
                    (Some(_), _) => f("energy"),
                    _ => f("energy_fraction"),
                };
                let field = if energies.len() > 1 {
                    format!("{field}[{}]", i + 1)
                } else {
                    field
                };
                return Err(SpecError::new(field, err.to_string()));
            }
        }
        let crossings = self.crossings.unwrap_or(300);
        if !(1..=10_000_000).contains(&crossings) {
            return Err(SpecError::new(
                f("crossings"),
                format!("must be 1..1e7 (got {crossings})"),
            ));
        }
        let t_end = positive(&f("t_end"), self.t_end.unwrap_or(5000.0))?;
        if let Section::Stroboscopic {
            t0,
            period,
            transient,
        } = section
        {
            let first = t0 + (transient + 1) as f64 * period;
            if first >= t_end {
                let field = if transient > 0 { "transient" } else { "t0" };
                return Err(SpecError::new(
                    f(field),
                    format!(
                        "the first sample at t = {first} s lies beyond t_end = {t_end} s (raise t_end)"
                    ),
                ));
            }
        }
        let chaos_threshold = self.chaos_threshold.unwrap_or(0.05);
        if !(chaos_threshold.is_finite() && chaos_threshold >= 0.0) {
            return Err(SpecError::new(
                f("chaos_threshold"),
                format!("must be finite and >= 0 (got {chaos_threshold})"),
            ));
        }
        Ok(PoincareOptions {
            section,
            energies,
            sampling,
            initial: initial_states,
            orbit: SectionOptions {
                crossings,
                t_end,
                lyapunov: self.lyapunov.unwrap_or(false),
                ..SectionOptions::default()
            },
            chaos_threshold,
        })
    }

    /// The section, and whether it is stroboscopic.
    fn section(
        &self,
        chain: &Chain,
    ) -> Result<(crate::analysis::poincare::Section, bool), SpecError> {
        let direction = self.crossing_direction()?;
        let strobe = self.stroboscopic.unwrap_or(false);
        let section = if strobe {
            self.strobe_section(chain)?
        } else {
            refuse_given(
                "poincare",
                &[
                    ("period", self.period.is_some()),
                    ("t0", self.t0.is_some()),
                    ("transient", self.transient.is_some()),
                ],
                "applies only with stroboscopic = true",
            )?;
            self.surface(chain.links(), direction)?
        };
        Ok((section, strobe))
    }

    /// The crossing direction (`poincare.direction`): `+`, `-` or `both`.
    fn crossing_direction(&self) -> Result<crate::integrate::Direction, SpecError> {
        use crate::integrate::Direction;
        Ok(match self.direction.as_deref().unwrap_or("+") {
            "+" => Direction::Rising,
            "-" => Direction::Falling,
            "both" => Direction::Either,
            other => {
                return Err(SpecError::new(
                    "poincare.direction",
                    format!("unknown direction `{other}` (expected +, - or both)"),
                ))
            }
        })
    }

    /// A stroboscopic section: samples at t0 + k·period after `transient` drive periods.
    fn strobe_section(
        &self,
        chain: &Chain,
    ) -> Result<crate::analysis::poincare::Section, SpecError> {
        let f = |name: &str| format!("poincare.{name}");
        if self.section.is_some() || self.normal.is_some() {
            return Err(SpecError::new(
                f("stroboscopic"),
                "a stroboscopic section replaces `section`/`normal`: give one",
            ));
        }
        // The drive's one period (`Drive::period`): a torque and a pivot at different
        // frequencies have none, and are refused rather than sampled at one of theirs.
        let period = match self.period {
            Some(p) => positive(&f("period"), p)?,
            None => match chain.params().drive.period_of_fields()? {
                Some(t) => t,
                None => {
                    return Err(SpecError::new(
                        f("period"),
                        "missing: the chain has no drive to take 2π/Ω from",
                    ))
                }
            },
        };
        let t0 = self.t0.unwrap_or(0.0);
        if !t0.is_finite() {
            return Err(SpecError::new(
                f("t0"),
                format!("must be finite (got {t0})"),
            ));
        }
        let transient = self.transient.unwrap_or(0.0);
        if !(transient >= 0.0 && transient.fract() == 0.0 && transient <= 1e12) {
            return Err(SpecError::new(
                f("transient"),
                format!("must be a whole number of drive periods, 0 to 1e12 (got {transient})"),
            ));
        }
        Ok(crate::analysis::poincare::Section::Stroboscopic {
            t0,
            period,
            transient: transient as u64,
        })
    }

    /// A surface of section: a general hyperplane `normal · x = offset`, or a coordinate
    /// (`section`, default `theta1`) at `value`.
    fn surface(
        &self,
        n: usize,
        direction: crate::integrate::Direction,
    ) -> Result<crate::analysis::poincare::Section, SpecError> {
        use crate::analysis::poincare::Section;
        let f = |name: &str| format!("poincare.{name}");
        Ok(match (&self.section, &self.normal) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    f("normal"),
                    "give either `section` or `normal` + `offset`, not both",
                ))
            }
            (_, Some(a)) => {
                if a.len() != 2 * n
                    || a.iter().any(|v| !v.is_finite())
                    || a.iter().all(|&v| v == 0.0)
                {
                    return Err(SpecError::new(
                        f("normal"),
                        format!("must be {} finite numbers, not all zero (θ then θ̇)", 2 * n),
                    ));
                }
                let offset = self.offset.unwrap_or(0.0);
                if !offset.is_finite() {
                    return Err(SpecError::new(f("offset"), "must be finite"));
                }
                Section::Hyperplane {
                    normal: a.clone(),
                    offset,
                    direction,
                }
            }
            (s, None) => {
                let name = s.as_deref().unwrap_or("theta1");
                let index = state_coordinate(&f("section"), name, n)?;
                let value = self.value.unwrap_or(0.0);
                if !value.is_finite() {
                    return Err(SpecError::new(
                        f("value"),
                        format!("must be finite (got {value})"),
                    ));
                }
                Section::Coordinate {
                    index,
                    value,
                    direction,
                }
            }
        })
    }

    /// The initial points on each energy shell: which link, variables, grid or random draw.
    fn sampling(
        &self,
        n: usize,
        section: &crate::analysis::poincare::Section,
    ) -> Result<crate::analysis::poincare::ShellSampling, SpecError> {
        use crate::analysis::poincare::{Sampling, ShellSampling, Variables};
        let f = |name: &str| format!("poincare.{name}");
        let angle_link = section.angle_link(n).map(|s| s.0);
        let link = match self.link {
            Some(l) if (1..=n).contains(&l) && Some(l - 1) != angle_link => l - 1,
            Some(l) => {
                return Err(SpecError::new(
                    f("link"),
                    format!("must be a link 1..{n} other than the section's (got {l})"),
                ))
            }
            None => (0..n).find(|&j| Some(j) != angle_link).unwrap_or(0),
        };
        let variables = match self.variables.as_deref().unwrap_or("momentum") {
            "momentum" => Variables::Momentum,
            "velocity" => Variables::Velocity,
            other => {
                return Err(SpecError::new(
                    f("variables"),
                    format!("unknown `{other}` (expected momentum or velocity)"),
                ))
            }
        };
        let sampling = match (&self.grid, self.random) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    f("random"),
                    "give either `grid` or `random`, not both",
                ))
            }
            (_, Some(c)) => {
                if !(1..=100_000).contains(&c) {
                    return Err(SpecError::new(
                        f("random"),
                        format!("must be 1..100000 (got {c})"),
                    ));
                }
                Sampling::Random {
                    count: c,
                    seed: self.seed.unwrap_or(1),
                }
            }
            (g, None) => {
                let g = g.clone().unwrap_or(vec![8, 5]);
                if g.len() != 2 || g.contains(&0) || g[0].saturating_mul(g[1]) > 100_000 {
                    return Err(SpecError::new(
                        f("grid"),
                        format!(
                        "must be [angles, speeds], each >= 1, at most 100000 points (got {g:?})"
                    ),
                    ));
                }
                Sampling::Grid {
                    angles: g[0],
                    speeds: g[1],
                }
            }
        };
        if self.seed.is_some() && self.random.is_none() {
            return Err(SpecError::new(f("seed"), "applies only with `random`"));
        }
        Ok(ShellSampling {
            link,
            variables,
            sampling,
            angle_range: range2(&f("angle_range"), &self.angle_range)?,
            speed_range: range2(&f("speed_range"), &self.speed_range)?,
        })
    }

    /// The shells' energies (J) and, without them, the explicit initial state, checked
    /// against the section.
    fn energies(
        &self,
        chain: &Chain,
        section: &crate::analysis::poincare::Section,
        strobe: bool,
        initial: Option<Vec<f64>>,
    ) -> Result<(Vec<f64>, Vec<Vec<f64>>), SpecError> {
        use crate::analysis::poincare::{energy_bounds, section_min_energy};
        let n = chain.links();
        let f = |name: &str| format!("poincare.{name}");
        let (e_lo, e_hi) = energy_bounds(chain);
        let energies = match (&self.energy, &self.energy_fraction) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    f("energy_fraction"),
                    "give either `energy` or `energy_fraction`, not both",
                ))
            }
            (Some(e), None) => e.values(),
            (None, Some(r)) => {
                // A fraction of the way from the hanging (0) to the inverted (1) energy; a shell
                // above the inverted chain is given in joules (`energy`), not as a fraction > 1.
                let values = r.values();
                if let Some(i) = values.iter().position(|v| !(0.0..=1.0).contains(v)) {
                    return Err(SpecError::new(
                        if values.len() > 1 {
                            format!("{}[{}]", f("energy_fraction"), i + 1)
                        } else {
                            f("energy_fraction")
                        },
                        format!(
                            "must be between 0 (hanging) and 1 (inverted) (got {}); for a shell above the inverted energy give `energy` in J",
                            values[i]
                        ),
                    ));
                }
                values.iter().map(|r| e_lo + r * (e_hi - e_lo)).collect()
            }
            (None, None) => vec![],
        };
        let e_field = f(if self.energy_fraction.is_some() {
            "energy_fraction"
        } else {
            "energy"
        });
        if strobe && !energies.is_empty() {
            return Err(SpecError::new(
                e_field,
                "a stroboscopic section of a driven chain has no energy shell: give a grid via angle_range/speed_range",
            ));
        }
        if !energies.is_empty() && !chain.is_conservative() {
            return Err(SpecError::new(
                e_field,
                "energy shells need a conservative chain (no damping or drive); use stroboscopic = true",
            ));
        }
        if energies.len() > 12 {
            return Err(SpecError::new(
                e_field,
                format!("at most 12 energies (got {})", energies.len()),
            ));
        }
        let mut initial_states = vec![];
        if !energies.is_empty() {
            let Some((li, c, _)) = section.angle_link(n) else {
                return Err(SpecError::new(
                e_field,
                "energy-shell initial conditions need a section on an angle (section = \"thetaI\")",
            ));
            };
            if n < 2 {
                return Err(SpecError::new(
                    e_field,
                    "a single pendulum's energy shell meets the section in one point; use a drive and stroboscopic = true",
                ));
            }
            let min = section_min_energy(chain, li, c);
            for (i, &e) in energies.iter().enumerate() {
                if !(e.is_finite() && e > min) {
                    return Err(SpecError::new(
                        if energies.len() > 1 {
                            format!("{e_field}[{}]", i + 1)
                        } else {
                            e_field.clone()
                        },
                        format!(
                        "E = {e} J is not above the least energy on the section {} ({min:.6} J)",
                        section.describe(chain)
                    ),
                    ));
                }
            }
        } else if let Some(x0) = initial {
            if let Some((li, c, _)) = section.angle_link(n) {
                let e = crate::model::System::energy(chain, 0.0, &x0);
                let min = section_min_energy(chain, li, c);
                if chain.is_conservative() && e <= min {
                    return Err(SpecError::new(
                        "initial",
                        format!("the orbit's energy {e:.6} J never reaches the section {} (needs > {min:.6} J)", section.describe(chain)),
                    ));
                }
            }
            initial_states.push(x0);
        } else if !strobe {
            return Err(SpecError::new(
                f("energy"),
                "missing: give energy (J) or energy_fraction, or an [initial] state",
            ));
        }
        Ok((energies, initial_states))
    }
}

impl Table for PoincareSpec {
    /// The table as the spec holds it validated for the registry ([`super::KIND`]): sections are
    /// located on DOP853's dense output, at tolerances 1e-12 where the spec gives none; the orbit
    /// starts from the spec's `[initial]` state when it gives one (else from the energy shells').
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let chain = planar_chain(super::KIND.name, model)?;
        let initial = if spec.has_start() {
            Some(spec.start()?)
        } else {
            None
        };
        if !matches!(spec.integrator().method.as_deref(), None | Some("dop853")) {
            return Err(SpecError::new(
                "integrator.method",
                "Poincaré sections are located on DOP853's dense output: use dop853",
            ));
        }
        let method = spec.integrator().with_tolerance(1e-12).method(None)?;
        let s = self;
        let mut opts = s.options(chain, initial.clone())?;
        if let Method::Dop853 { rtol, atol, h_max } = method {
            opts.orbit.rtol = rtol;
            opts.orbit.atol = atol;
            opts.orbit.h_max = h_max;
        }
        Ok((
            Registered(Box::new(opts)),
            method,
            initial.unwrap_or_default(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::parse;

    const HEAD: &str = "kind = \"poincare\"\n[model]\npreset = \"double\"\n";

    #[test]
    fn poincare_is_validated_through_the_registry() {
        let file = parse(
            &format!("{HEAD}[poincare]\nenergy = 0.0\ngrid = [2, 2]\n"),
            "t",
        )
        .unwrap();
        let spec = file.validate().unwrap();
        let r = &spec.analysis;
        assert_eq!(r.kind().name, "poincare");
        assert_eq!(r.time_span(), Some((5000.0, "poincare.t_end")));
        // Energy shells: no start of the spec's, and dop853 at 1e-12 by default.
        assert!(spec.x0.is_empty());
        assert!(matches!(
            spec.method,
            crate::integrate::Method::Dop853 { rtol, atol, h_max }
                if rtol == 1e-12 && atol == 1e-12 && h_max == f64::INFINITY
        ));
        // Another integrator is refused before the table is looked at.
        let e = parse(&format!("{HEAD}[integrator]\nmethod = \"rk4\"\n"), "t")
            .unwrap()
            .validate()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "integrator.method: Poincaré sections are located on DOP853's dense output: use dop853"
        );
        // Its table keeps its place among a spec's fields.
        let e = parse("bogus = 1\n", "t").unwrap_err().to_string();
        assert!(e.contains("`lyapunov`, `poincare`, `map`"), "{e}");
        assert!(
            e.contains("`orbits`, `frequencies`, `manifolds`, `figures`"),
            "{e}"
        );
    }
}
