//! Validating the `[orbits]` table: the action, the seed and its fields, how the orbits close
//! and the shooting (the varied parameter with the continuation's or diagram's options:
//! [`super::varied`]); the rest of the spec (its `[initial]`, `[integrator]` and model) read
//! through [`SpecParts`].

use super::fields::{renamed, word};
use super::steps::check_orbit_segments;
use super::table::{
    Follow, FollowSpec, MapSeed, OrbitClosure, OrbitStart, OrbitsAction, OrbitsRun, OrbitsSpec,
};
use super::varied::{continuation_options, diagram_options, varied};
use crate::analysis::periodic::{ContinuationOptions, PeriodicError, ShootingOptions};
use crate::error::positive;
use crate::integrate::Method;
use crate::kinds::kind::{planar_chain, Registered, SpecParts, Table, Validation};
use crate::model::{Chain, Model};
use crate::spec::{refuse_given, SpecError};

impl Table for OrbitsSpec {
    /// The table as the spec holds it validated for the registry ([`super::KIND`], planar
    /// chains): the run's settings, the integrator the orbits are shot with and the seed state
    /// (zeros where the run computes it); a shooting segment the integrator cannot cross is
    /// refused here.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let chain = planar_chain(super::KIND.name, model)?;
        let s = self;
        let (run, method, x0) = validate(&s, chain, spec)?;
        check_orbit_segments(&run, chain)?;
        Ok((Registered(Box::new(run)), method, x0))
    }
}

/// `kind = "orbits"` (planar chains): the table `s` checked field by field.
fn validate(
    s: &OrbitsSpec,
    chain: &Chain,
    file: &dyn SpecParts,
) -> Result<(OrbitsRun, Method, Vec<f64>), SpecError> {
    let n = chain.links();
    let action = word("orbits.action", s.action.as_deref(), &OrbitsAction::NAMES)?;
    let action = OrbitsAction::named(action).expect("one of the names");
    let driven = chain.params().drive.period_of_fields()?.is_some();
    let damped = !chain.params().damping.is_zero();
    if !driven && damped {
        return Err(SpecError::new(
            "model.damping",
            "an undriven damped chain has no periodic orbits, only equilibria: add a drive or remove the damping",
        ));
    }
    let start = start(s, file, n, driven, action)?;
    let map_seed = map_seed(s, &start)?;
    if !matches!(start, OrbitStart::Mode { .. }) {
        refuse_given(
            "orbits",
            &[
                ("mode", s.mode.is_some()),
                ("amplitude", s.amplitude.is_some()),
            ],
            "applies with start = \"mode\"",
        )?;
    }
    let x0 = seed_state(file, &start, n)?;
    let closure = closure(s, driven, &start, map_seed.as_ref())?;
    let period_guess = period_guess(s, driven, &start)?;
    let (shooting, method) = shooting(s, file)?;

    let (parameter, range) = varied(s, chain, driven, file, action != OrbitsAction::Find)?;
    refuse_other_actions(s, action)?;
    super::curve_spec::refuse_curve_fields(s, action)?;
    let mut continuation = ContinuationOptions::default();
    let mut diagram = None;
    let mut both_ways = false;
    let mut curve = None;
    match action {
        OrbitsAction::Find => {}
        OrbitsAction::Continue => {
            (continuation, both_ways) =
                continuation_options(s, chain, driven, parameter.as_ref(), range)?;
        }
        OrbitsAction::Curve => {
            // p₁'s branch, continued both ways to locate the bifurcations (`direction` is p₂'s).
            let branch = OrbitsSpec {
                direction: None,
                ..s.clone()
            };
            (continuation, _) =
                continuation_options(&branch, chain, driven, parameter.as_ref(), range)?;
            both_ways = true;
            let p1 = parameter.as_ref().expect("checked by varied()");
            let range = range.expect("checked by varied()");
            curve = Some(super::curve_spec::curve_run(
                s, chain, driven, file, p1, range, &shooting,
            )?);
        }
        OrbitsAction::Diagram => {
            diagram = Some(diagram_options(
                s,
                n,
                driven,
                &start,
                parameter.as_ref(),
                range,
                &x0,
            )?);
        }
    }
    check_transient(s, action, &start)?;
    let run = OrbitsRun {
        action,
        start,
        closure,
        period_guess,
        shooting,
        parameter,
        continuation,
        both_ways,
        doublings: s.doublings.unwrap_or(0),
        follow: follow(s, driven)?,
        diagram,
        preset: file.preset(),
        map_seed,
        curve,
    };
    Ok((run, method, x0))
}

/// `orbits.follow`: its words (one, a list, or `all`), each once; a driven chain's (the
/// switches shoot over drive periods).
fn follow(s: &OrbitsSpec, driven: bool) -> Result<Follow, SpecError> {
    let words: Vec<&str> = match &s.follow {
        None => return Ok(Follow::default()),
        Some(FollowSpec::Word(w)) => vec![w.as_str()],
        Some(FollowSpec::List(l)) => l.iter().map(String::as_str).collect(),
    };
    let mut f = Follow::default();
    for w in words {
        let flag = match w {
            "all" => {
                f = Follow {
                    period_doubling: true,
                    branch_point: true,
                    neimark_sacker: true,
                };
                continue;
            }
            "period-doubling" => &mut f.period_doubling,
            "branch-point" => &mut f.branch_point,
            "neimark-sacker" => &mut f.neimark_sacker,
            other => {
                return Err(SpecError::new(
                    "orbits.follow",
                    format!(
                        "unknown bifurcation `{other}` (one of {}, or all; a fold starts no new branch)",
                        Follow::NAMES.join(", ")
                    ),
                ))
            }
        };
        if *flag {
            return Err(SpecError::new(
                "orbits.follow",
                format!("`{w}` is named twice"),
            ));
        }
        *flag = true;
    }
    if f.any() && !driven {
        return Err(SpecError::new(
            "orbits.follow",
            "follows the bifurcations of a driven chain's branch (the model has no drive)",
        ));
    }
    Ok(f)
}

/// The state the search starts from: `[initial]`, which must be given, unless the seed
/// replaces it (a mode or a map's attractor, which the run computes).
fn seed_state(file: &dyn SpecParts, start: &OrbitStart, n: usize) -> Result<Vec<f64>, SpecError> {
    Ok(match start {
        // Seeds that replace [initial] (the run computes them).
        OrbitStart::Mode { .. } | OrbitStart::Map { .. } => vec![0.0; 2 * n],
        _ => {
            if !file.has_start() {
                return Err(SpecError::new(
                    "initial.theta",
                    "missing: the seed state of the search (or start = \"mode\")",
                ));
            }
            file.start()?
        }
    })
}

/// An autonomous orbit's period guess (s): `orbits.period`, needed when the search starts
/// from `[initial]` of an undriven chain.
fn period_guess(
    s: &OrbitsSpec,
    driven: bool,
    start: &OrbitStart,
) -> Result<Option<f64>, SpecError> {
    let period_guess = match s.period {
        Some(t) => Some(positive("orbits.period", t)?),
        None => None,
    };
    if !driven && matches!(start, OrbitStart::Initial) && period_guess.is_none() {
        return Err(SpecError::new(
            "orbits.period",
            "missing: an autonomous orbit's period guess (s), or start = \"mode\"",
        ));
    }
    Ok(period_guess)
}

/// Refuses the fields of the actions other than `action` (`continue`'s, `diagram`'s).
fn refuse_other_actions(s: &OrbitsSpec, action: OrbitsAction) -> Result<(), SpecError> {
    let continue_only = [
        ("direction", s.direction.is_some()),
        ("step", s.step.is_some()),
        ("min_step", s.min_step.is_some()),
        ("max_step", s.max_step.is_some()),
        ("locate_tolerance", s.locate_tolerance.is_some()),
        ("doublings", s.doublings.is_some()),
        ("follow", s.follow.is_some()),
    ];
    let diagram_only = [
        ("starts", s.starts.is_some()),
        ("sampled_periods", s.sampled_periods.is_some()),
        ("steps_per_period", s.steps_per_period.is_some()),
    ];
    match action {
        OrbitsAction::Find => {
            refuse_given("orbits", &continue_only, "applies to action = \"continue\"")?;
            refuse_given("orbits", &diagram_only, "applies to action = \"diagram\"")?;
            refuse_given(
                "orbits",
                &[("points", s.points.is_some())],
                "applies to action = \"continue\" or \"diagram\"",
            )
        }
        OrbitsAction::Continue => {
            refuse_given("orbits", &diagram_only, "applies to action = \"diagram\"")
        }
        OrbitsAction::Diagram => {
            refuse_given("orbits", &continue_only, "applies to action = \"continue\"")
        }
        // The curve's own refusals: curve_spec::refuse_curve_fields.
        OrbitsAction::Curve => Ok(()),
    }
}

/// Refuses `transient_periods` where nothing integrates drive periods before the search.
fn check_transient(
    s: &OrbitsSpec,
    action: OrbitsAction,
    start: &OrbitStart,
) -> Result<(), SpecError> {
    if action != OrbitsAction::Diagram
        && !matches!(
            start,
            OrbitStart::Settle { .. } | OrbitStart::Return { .. } | OrbitStart::Map { .. }
        )
        && s.transient_periods.is_some()
    {
        return Err(SpecError::new(
            "orbits.transient_periods",
            "applies to start = \"settle\", \"return\" or \"map\", or action = \"diagram\"",
        ));
    }
    Ok(())
}

/// The seed of the search (`orbits.start`) and its own fields, checked.
fn start(
    s: &OrbitsSpec,
    file: &dyn SpecParts,
    n: usize,
    driven: bool,
    action: OrbitsAction,
) -> Result<OrbitStart, SpecError> {
    let start = match word(
        "orbits.start",
        s.start.as_deref(),
        &["initial", "mode", "settle", "return", "map"],
    )? {
        "initial" => OrbitStart::Initial,
        "mode" => {
            if file.has_start() {
                return Err(SpecError::new(
                    "initial",
                    "start = \"mode\" seeds the orbit from a normal mode: remove [initial]",
                ));
            }
            let mode = s.mode.unwrap_or(1);
            if mode == 0 || mode > n {
                return Err(SpecError::new(
                    "orbits.mode",
                    format!("must be 1 ..= {n} (the chain's modes; got {mode})"),
                ));
            }
            let amplitude = positive("orbits.amplitude", s.amplitude.unwrap_or(0.05))?;
            if amplitude >= std::f64::consts::PI {
                return Err(SpecError::new(
                    "orbits.amplitude",
                    format!("must be < π rad (got {amplitude})"),
                ));
            }
            OrbitStart::Mode {
                mode: mode - 1,
                amplitude,
            }
        }
        "return" if !driven => {
            // An undriven chain's returns are its crossings of θ₁ = 0 (upward).
            refuse_given(
                "orbits",
                &[("transient_periods", s.transient_periods.is_some())],
                "applies to a driven chain (an undriven one is scanned from [initial] on)",
            )?;
            let scan = s.scan_periods.unwrap_or(1000);
            if !(2..=1_000_000).contains(&scan) {
                return Err(SpecError::new(
                    "orbits.scan_periods",
                    format!("must be 2 ..= 1e6 section crossings (got {scan})"),
                ));
            }
            OrbitStart::Return { transient: 0, scan }
        }
        other => {
            if !driven {
                return Err(SpecError::new(
                    "orbits.start",
                    format!("\"{other}\" integrates drive periods: the chain has no drive"),
                ));
            }
            let transient = s.transient_periods.unwrap_or(200);
            if transient > 10_000_000 {
                return Err(SpecError::new(
                    "orbits.transient_periods",
                    format!("must be <= 1e7 drive periods (got {transient})"),
                ));
            }
            if other == "settle" {
                OrbitStart::Settle { periods: transient }
            } else if other == "map" {
                if file.has_start() {
                    return Err(SpecError::new(
                        "initial",
                        "start = \"map\" seeds the orbit from the map file: remove [initial]",
                    ));
                }
                if action == OrbitsAction::Diagram {
                    return Err(SpecError::new(
                    "orbits.start",
                    "\"map\" seeds an orbit search (action = \"find\" or \"continue\"); a diagram starts from [initial] and starts",
                ));
                }
                OrbitStart::Map { periods: transient }
            } else {
                let scan = s.scan_periods.unwrap_or(1000);
                let k = s.drive_periods.unwrap_or(1) as u64;
                if scan <= k || scan > 1_000_000 {
                    return Err(SpecError::new(
                        "orbits.scan_periods",
                        format!("must exceed drive_periods ({k}) and be <= 1e6 (got {scan})"),
                    ));
                }
                OrbitStart::Return { transient, scan }
            }
        }
    };
    if !matches!(start, OrbitStart::Return { .. }) && s.scan_periods.is_some() {
        return Err(SpecError::new(
            "orbits.scan_periods",
            "applies to start = \"return\"",
        ));
    }
    Ok(start)
}

/// The final-state map and attractor that seed a `start = "map"` search.
fn map_seed(s: &OrbitsSpec, start: &OrbitStart) -> Result<Option<MapSeed>, SpecError> {
    Ok(if matches!(start, OrbitStart::Map { .. }) {
        let Some(map_file) = s.map_file.clone().filter(|f| !f.is_empty()) else {
            return Err(SpecError::new(
                "orbits.map_file",
                "missing: the final-state map (HDF5) whose attractor seeds the search",
            ));
        };
        let k = s.drive_periods.unwrap_or(1);
        let attractor = s.attractor.clone().unwrap_or(format!("period_{k}"));
        let period = attractor
            .strip_prefix("period_")
            .and_then(|p| p.parse::<usize>().ok())
            .filter(|&p| p >= 1);
        let period = match period {
            None => {
                return Err(SpecError::new(
                    "orbits.attractor",
                    format!("must be a periodic attractor's class, period_K (got `{attractor}`)"),
                ))
            }
            Some(p) if s.drive_periods.is_some_and(|k| k != p) => {
                return Err(SpecError::new(
                    "orbits.attractor",
                    format!(
                        "`{attractor}` has period {p} but drive_periods = {k}: give one of them"
                    ),
                ))
            }
            Some(p) => p,
        };
        Some(MapSeed {
            file: map_file,
            attractor,
            period,
        })
    } else {
        refuse_given(
            "orbits",
            &[
                ("map_file", s.map_file.is_some()),
                ("attractor", s.attractor.is_some()),
            ],
            "applies with start = \"map\"",
        )?;
        None
    })
}

/// How the orbit closes: after k drive periods, at a given energy or with a given period.
fn closure(
    s: &OrbitsSpec,
    driven: bool,
    start: &OrbitStart,
    map_seed: Option<&MapSeed>,
) -> Result<OrbitClosure, SpecError> {
    Ok(if driven {
        refuse_given(
            "orbits",
            &[
                ("energy", s.energy.is_some()),
                ("period", s.period.is_some()),
            ],
            "a driven chain's orbits have period k·T_drive (set drive_periods = k)",
        )?;
        // The map seed's attractor names the period (drive_periods, if given, agrees).
        let k = map_seed
            .as_ref()
            .map_or(s.drive_periods.unwrap_or(1), |m| m.period);
        if k == 0 || k > 1000 {
            return Err(SpecError::new(
                "orbits.drive_periods",
                format!("must be 1 ..= 1000 (got {k})"),
            ));
        }
        OrbitClosure::Driven { k }
    } else {
        refuse_given(
            "orbits",
            &[("drive_periods", s.drive_periods.is_some())],
            "applies to a driven chain (the model has no drive)",
        )?;
        match (s.energy, s.period) {
            (Some(e), _) if !e.is_finite() => {
                return Err(SpecError::new(
                    "orbits.energy",
                    format!("must be finite (got {e})"),
                ))
            }
            (Some(e), _) => OrbitClosure::Energy(Some(e)),
            (None, Some(t)) if matches!(start, OrbitStart::Initial) => {
                OrbitClosure::Period(positive("orbits.period", t)?)
            }
            _ => OrbitClosure::Energy(None),
        }
    })
}

/// The shooting options and the integrator the orbits are shot with.
fn shooting(s: &OrbitsSpec, file: &dyn SpecParts) -> Result<(ShootingOptions, Method), SpecError> {
    let integ = file.integrator();
    if integ.h_max.is_some() {
        return Err(SpecError::new(
            "integrator.h_max",
            "orbits are shot with dop853's tolerances alone (rtol, atol)",
        ));
    }
    // The tolerances given, else the shooting defaults (1e-12): the written method is the
    // one the orbits were shot with.
    let Method::Dop853 { rtol, atol, .. } = integ.method(None)? else {
        return Err(SpecError::new(
            "integrator.method",
            "orbits are shot with dop853 (the monodromy's accuracy is its tolerance)",
        ));
    };
    let d = ShootingOptions::default();
    let shooting = ShootingOptions {
        segments: s.segments.unwrap_or(d.segments),
        tolerance: s.newton_tolerance.unwrap_or(d.tolerance),
        max_iterations: s.max_iterations.unwrap_or(d.max_iterations),
        rtol: if integ.rtol.is_some() { rtol } else { d.rtol },
        atol: if integ.atol.is_some() { atol } else { d.atol },
        samples: s.shape_samples.unwrap_or(d.samples),
    };
    shooting.check().map_err(|e| shooting_field(&e))?;
    let method = Method::Dop853 {
        rtol: shooting.rtol,
        atol: shooting.atol,
        h_max: f64::INFINITY,
    };
    Ok((shooting, method))
}

/// Shooting options' field names as the spec writes them.
fn shooting_field(e: &PeriodicError) -> SpecError {
    renamed(
        e,
        &[
            ("segments", "orbits.segments"),
            ("tolerance", "orbits.newton_tolerance"),
            ("max_iterations", "orbits.max_iterations"),
            ("rtol", "integrator.rtol"),
            ("atol", "integrator.atol"),
            ("samples", "orbits.shape_samples"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use crate::spec::parse;

    const HEAD: &str = "kind = \"orbits\"\n[model]\npreset = \"double\"\n";

    #[test]
    fn orbits_are_validated_through_the_registry() {
        let spec = parse(&format!("{HEAD}[orbits]\nstart = \"mode\"\n"), "t")
            .unwrap()
            .validate()
            .unwrap();
        let r = &spec.analysis;
        assert_eq!(r.kind().name, "orbits");
        assert_eq!(r.time_span(), None);
        // A mode seed: the run computes the start; dop853 at the shooting's 1e-12.
        assert_eq!(spec.x0, vec![0.0; 4]);
        assert_eq!(
            spec.method,
            crate::integrate::Method::Dop853 {
                rtol: 1e-12,
                atol: 1e-12,
                h_max: f64::INFINITY
            }
        );
        // The spec's integrator fields are read through the registry's view of the spec.
        let e = parse(
            &format!("{HEAD}[integrator]\nh_max = 0.1\n[orbits]\nstart = \"mode\"\n"),
            "t",
        )
        .unwrap()
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "integrator.h_max: orbits are shot with dop853's tolerances alone (rtol, atol)"
        );
        // A sweep still refuses orbits (a branch varies its own parameter).
        let e = parse(
            &format!("{HEAD}[orbits]\nstart = \"mode\"\n[sweep]\nparameter = \"model.gravity\"\nvalues = [9.0, 9.8]\n"),
            "t",
        )
        .unwrap()
        .validate()
        .unwrap_err();
        assert!(e.to_string().ends_with(", not orbits"), "{e}");
    }
}
