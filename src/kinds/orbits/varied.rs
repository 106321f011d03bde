//! Validating what a `continue` or `diagram` run of the `[orbits]` table varies: the
//! parameter (a field of the spec's model, or the orbits' energy) and its range, with the
//! continuation's or the orbit diagram's options.

use super::fields::{renamed, word};
use super::table::{parameters, OrbitParameter, OrbitStart, OrbitsSpec, Varied};
use crate::analysis::periodic::{ContinuationOptions, DiagramOptions, PeriodicError};
use crate::kinds::kind::SpecParts;
use crate::model::{Chain, Parameter, TextbookParameter};
use crate::spec::{SpecError, MAX_ANGLE, MAX_RATE};

/// The continuation of a `continue` run over `range`, and whether it goes both ways.
pub(super) fn continuation_options(
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
pub(super) fn diagram_options(
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
pub(super) fn varied(
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
pub(super) fn parameter(
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
            long_name: "energy E".into(),
            units: "J".into(),
            varied: Varied::Energy,
        });
    }
    // A textbook preset's parameter (`model.taylor.gamma`) is the chain's field it equals,
    // named and labelled as the textbook names it.
    let textbook = TextbookParameter::parse(name);
    if let Some(t) = textbook.filter(|t| t.field.is_none()) {
        return Err(SpecError::new(
            field,
            format!(
                "`{}` sets several of the chain's fields at once, which a continuation cannot follow; a sweep varies it (--sweep {}=FROM:TO:COUNT)",
                t.name, t.name
            ),
        ));
    }
    let m = textbook
        .and_then(|t| t.field)
        .or_else(|| Parameter::parse(name))
        .ok_or_else(|| {
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
        long_name: textbook.map_or_else(|| m.long_name(), |t| t.long_name.to_string()),
        units: textbook.map_or(m.units(), |t| t.units).into(),
        varied: Varied::Model(m),
    })
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
