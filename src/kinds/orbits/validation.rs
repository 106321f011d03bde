//! Validating the `[orbits]` table: the action, the seed and its fields, how the orbits close,
//! the shooting, and the varied parameter with the continuation's or diagram's options; the
//! rest of the spec (its `[initial]`, `[integrator]` and model) read through [`SpecParts`].

use super::steps::check_orbit_segments;
use super::table::{
    parameters, MapSeed, OrbitClosure, OrbitParameter, OrbitStart, OrbitsAction, OrbitsRun,
    OrbitsSpec, Varied,
};
use crate::analysis::periodic::{
    ContinuationOptions, DiagramOptions, PeriodicError, ShootingOptions,
};
use crate::error::positive;
use crate::integrate::Method;
use crate::kinds::kind::{typed_table, Registered, SpecParts};
use crate::model::{Chain, Parameter};
use crate::spec::{refuse_given, SpecError, MAX_ANGLE, MAX_RATE};

fn word<'a>(field: &str, v: Option<&'a str>, allowed: &[&'a str]) -> Result<&'a str, SpecError> {
    let w = v.unwrap_or(allowed[0]);
    if allowed.contains(&w) {
        Ok(w)
    } else {
        Err(SpecError::new(
            field,
            format!("unknown `{w}` (expected {})", allowed.join(", ")),
        ))
    }
}

/// The table as the spec holds it validated for the registry ([`super::KIND`], planar
/// chains): the run's settings, the integrator the orbits are shot with and the seed state
/// (zeros where the run computes it); a shooting segment the integrator cannot cross is
/// refused here.
pub fn validate_table(
    table: &toml::Table,
    chain: &Chain,
    spec: &dyn SpecParts,
) -> Result<(Registered, Method, Vec<f64>), SpecError> {
    let s: OrbitsSpec = typed_table(super::KIND.name, table)?;
    let (run, method, x0) = validate(&s, chain, spec)?;
    check_orbit_segments(&run, chain)?;
    Ok((Registered(Box::new(run)), method, x0))
}

/// `kind = "orbits"` (planar chains): the table `s` checked field by field.
fn validate(
    s: &OrbitsSpec,
    chain: &Chain,
    file: &dyn SpecParts,
) -> Result<(OrbitsRun, Method, Vec<f64>), SpecError> {
    let n = chain.links();
    let action = match word(
        "orbits.action",
        s.action.as_deref(),
        &["find", "continue", "diagram"],
    )? {
        "find" => OrbitsAction::Find,
        "continue" => OrbitsAction::Continue,
        _ => OrbitsAction::Diagram,
    };
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
    let mut continuation = ContinuationOptions::default();
    let mut diagram = None;
    let mut both_ways = false;
    match action {
        OrbitsAction::Find => {}
        OrbitsAction::Continue => {
            (continuation, both_ways) =
                continuation_options(s, chain, driven, parameter.as_ref(), range)?;
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
        diagram,
        preset: file.preset(),
        map_seed,
    };
    Ok((run, method, x0))
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
    if file.integrator_gives("h_max") {
        return Err(SpecError::new(
            "integrator.h_max",
            "orbits are shot with dop853's tolerances alone (rtol, atol)",
        ));
    }
    // The tolerances given, else the shooting defaults (1e-12): the written method is the
    // one the orbits were shot with.
    let Method::Dop853 { rtol, atol, .. } = file.method(None, None)? else {
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
        rtol: if file.integrator_gives("rtol") {
            rtol
        } else {
            d.rtol
        },
        atol: if file.integrator_gives("atol") {
            atol
        } else {
            d.atol
        },
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

/// The continuation of a `continue` run over `range`, and whether it goes both ways.
fn continuation_options(
    s: &OrbitsSpec,
    chain: &Chain,
    driven: bool,
    parameter: Option<&OrbitParameter>,
    range: Option<[f64; 2]>,
) -> Result<(ContinuationOptions, bool), SpecError> {
    let dc = ContinuationOptions::default();
    let [a, b] = range.expect("checked above");
    let direction = word(
        "orbits.direction",
        s.direction.as_deref(),
        &["up", "down", "both"],
    )?;
    let increasing = direction != "down";
    let continuation = ContinuationOptions {
        min: a.min(b),
        max: a.max(b),
        points: s.points.unwrap_or(dc.points),
        step: s.step.unwrap_or(dc.step),
        min_step: s.min_step.unwrap_or(dc.min_step),
        max_step: s.max_step.unwrap_or(dc.max_step),
        increasing,
        locate_tolerance: s.locate_tolerance.unwrap_or(dc.locate_tolerance),
        locate: true,
    };
    continuation.check().map_err(|e| continuation_field(&e))?;
    // The start value, where the spec fixes it (a seed's energy is known only later).
    let start_value = match parameter.as_ref() {
        Some(OrbitParameter {
            varied: Varied::Model(m),
            ..
        }) => m.get(chain),
        Some(_) => s.energy,
        None => None,
    };
    if let Some(v) = start_value.filter(|v| !(a.min(b)..=a.max(b)).contains(v)) {
        return Err(SpecError::new(
            "orbits.range",
            format!(
                "the start value {} = {v} lies outside [{}, {}]",
                parameter.as_ref().map_or("", |q| q.name.as_str()),
                a.min(b),
                a.max(b)
            ),
        ));
    }
    if s.doublings.is_some_and(|d| d > 0) && !driven {
        return Err(SpecError::new(
            "orbits.doublings",
            "follows period doublings of a driven chain's branch (the model has no drive)",
        ));
    }
    if s.doublings.is_some_and(|d| d > 10) {
        return Err(SpecError::new("orbits.doublings", "must be 0 ..= 10"));
    }
    Ok((continuation, direction == "both"))
}

/// The options of an orbit diagram over `range`, from `x0` and `orbits.starts`.
fn diagram_options(
    s: &OrbitsSpec,
    n: usize,
    driven: bool,
    start: &OrbitStart,
    parameter: Option<&OrbitParameter>,
    range: Option<[f64; 2]>,
    x0: &[f64],
) -> Result<DiagramOptions, SpecError> {
    if !driven {
        return Err(SpecError::new(
            "model.drive",
            "an orbit diagram samples a driven chain once per drive period: add a drive",
        ));
    }
    if *start != OrbitStart::Initial {
        return Err(SpecError::new(
            "orbits.start",
            "an orbit diagram starts from [initial] (and orbits.starts), its transient is transient_periods",
        ));
    }
    if parameter.as_ref().is_some_and(|p| p.is_energy()) {
        return Err(SpecError::new(
            "orbits.parameter",
            "an orbit diagram varies a model field, not the energy",
        ));
    }
    let [from, to] = range.expect("checked above");
    let count = s.points.unwrap_or(200);
    if !(2..=100_000).contains(&count) {
        return Err(SpecError::new(
            "orbits.points",
            format!("must be 2 ..= 100000 parameter values (got {count})"),
        ));
    }
    let values = (0..count)
        .map(|i| from + (to - from) * i as f64 / (count - 1) as f64)
        .collect();
    let mut starts = vec![x0.to_vec()];
    for (i, st) in s.starts.iter().flatten().enumerate() {
        let field = format!("orbits.starts[{}]", i + 1);
        if st.len() != 2 * n {
            return Err(SpecError::new(
                field,
                format!(
                    "must be a whole state of {} values (θ…, θ̇…; got {})",
                    2 * n,
                    st.len()
                ),
            ));
        }
        if let Some(v) = st[..n].iter().find(|v| v.is_nan() || v.abs() > MAX_ANGLE) {
            return Err(SpecError::new(
                field,
                format!("angle {v} is not finite or beyond {MAX_ANGLE:e} rad"),
            ));
        }
        if let Some(v) = st[n..].iter().find(|v| v.is_nan() || v.abs() > MAX_RATE) {
            return Err(SpecError::new(
                field,
                format!("rate {v} is not finite or beyond {MAX_RATE:e} rad/s"),
            ));
        }
        starts.push(st.clone());
    }
    let opts = DiagramOptions {
        parameters: values,
        starts,
        transient: s.transient_periods.unwrap_or(200),
        samples: s.sampled_periods.unwrap_or(100),
        steps_per_period: s.steps_per_period.unwrap_or(200),
    };
    opts.check(2 * n).map_err(|e| diagram_field(&e))?;
    Ok(opts)
}

/// The field a `continue` or `diagram` run varies, and its range (neither for `find`).
fn varied(
    s: &OrbitsSpec,
    chain: &Chain,
    driven: bool,
    model: &dyn SpecParts,
    needs_parameter: bool,
) -> Result<(Option<OrbitParameter>, Option<[f64; 2]>), SpecError> {
    let parameter = match (&s.parameter, needs_parameter) {
        (None, true) => {
            return Err(SpecError::new(
                "orbits.parameter",
                format!(
                    "missing: the spec field to vary ({})",
                    parameters().join(", ")
                ),
            ))
        }
        (Some(_), false) => {
            return Err(SpecError::new(
                "orbits.parameter",
                "applies to action = \"continue\" or \"diagram\"",
            ))
        }
        (None, false) => None,
        (Some(name), true) => Some(parameter(name, chain, driven, model)?),
    };
    let range = match (&s.range, needs_parameter) {
        (None, true) => {
            return Err(SpecError::new(
                "orbits.range",
                "missing: the parameter's [min, max] (continue) or [from, to] (diagram)",
            ))
        }
        (Some(_), false) => {
            return Err(SpecError::new(
                "orbits.range",
                "applies to action = \"continue\" or \"diagram\"",
            ))
        }
        (None, false) => None,
        (Some(r), true) => {
            if r.len() != 2 || r.iter().any(|v| !v.is_finite()) || r[0] == r[1] {
                return Err(SpecError::new(
                    "orbits.range",
                    format!("must be two different finite values (got {r:?})"),
                ));
            }
            Some([r[0], r[1]])
        }
    };
    Ok((parameter, range))
}

/// Checks `name` as a parameter of this chain and reads its units: a field of the chain that
/// this spec's model has (a drive amplitude needs the drive; a preset's links vary together)
/// and that it can be set on.
fn parameter(
    name: &str,
    chain: &Chain,
    driven: bool,
    model: &dyn SpecParts,
) -> Result<OrbitParameter, SpecError> {
    let field = "orbits.parameter";
    if name == "orbits.energy" {
        if driven {
            return Err(SpecError::new(
                field,
                "orbits.energy varies an undriven chain's energy; a driven chain's orbits have no fixed energy",
            ));
        }
        return Ok(OrbitParameter {
            name: name.into(),
            units: "J".into(),
            varied: Varied::Energy,
        });
    }
    let m = Parameter::parse(name).ok_or_else(|| {
        SpecError::new(
            field,
            format!(
                "`{name}` is not a field a run can vary (expected {})",
                parameters().join(", ")
            ),
        )
    })?;
    let here = m
        .get(chain)
        .ok_or_else(|| SpecError::new(field, format!("`{name}`: the model has no such field")))?;
    // The spec's model must take it as written: a link's own field needs [[model.link]]
    // tables, the chain-wide mass and length a preset.
    model
        .model_takes(name, m, here)
        .map_err(|e| SpecError::new(field, format!("{name}: {e}")))?;
    Ok(OrbitParameter {
        name: name.into(),
        units: m.units().into(),
        varied: Varied::Model(m),
    })
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

fn continuation_field(e: &PeriodicError) -> SpecError {
    renamed(
        e,
        &[
            ("max", "orbits.range"),
            ("points", "orbits.points"),
            ("step", "orbits.step"),
            ("min_step", "orbits.min_step"),
            ("max_step", "orbits.max_step"),
            ("locate_tolerance", "orbits.locate_tolerance"),
        ],
    )
}

fn diagram_field(e: &PeriodicError) -> SpecError {
    renamed(
        e,
        &[
            ("parameters", "orbits.range"),
            ("starts", "orbits.starts"),
            ("samples", "orbits.sampled_periods"),
            ("transient", "orbits.transient_periods"),
            ("steps_per_period", "orbits.steps_per_period"),
        ],
    )
}

/// The library's field name replaced by the spec's.
pub(crate) fn renamed(e: &PeriodicError, names: &[(&str, &str)]) -> SpecError {
    match e {
        PeriodicError::Invalid(f) => {
            let field = names
                .iter()
                .find(|(lib, _)| *lib == f.field())
                .map_or_else(|| f.field().to_string(), |(_, spec)| spec.to_string());
            SpecError::new(field, f.message.clone())
        }
        other => SpecError::new("orbits", other.to_string()),
    }
}
