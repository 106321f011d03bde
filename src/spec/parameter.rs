//! The spec fields a run can vary: a measure spec's `[measure.sweep]`, a sweep's axes and an
//! orbits spec's continuation or orbit-diagram `parameter` name them the same way
//! (`model.drive.torque.amplitude`, `model.link[2].mass`). The model's fields are the chain's
//! parameters ([`crate::model::PARAMETERS`]), read and set on a chain by
//! [`crate::model::Parameter`]; a sweep, which validates a whole spec at every point, sets them
//! on a copy of the spec ([`set_parameter`]).

use super::SpecFile;
use crate::model::{Parameter, TextbookParameter, PARAMETERS, TEXTBOOK_PARAMETERS};

/// The analyses' own fields a sweep varies, besides the model's parameters.
pub const ANALYSIS_PARAMETERS: &[(&str, &str)] = &[("map.energy", "J"), ("poincare.energy", "J")];

/// The fields a sweep varies and their units, the analyses' then the model's;
/// `model.link[K]` takes any link K counted from 1.
pub fn sweep_parameters() -> impl Iterator<Item = (&'static str, &'static str)> {
    ANALYSIS_PARAMETERS
        .iter()
        .copied()
        .chain(PARAMETERS.iter().map(|d| (d.name, d.units)))
        .chain(TEXTBOOK_PARAMETERS.iter().map(|d| (d.name, d.units)))
}

/// `name`'s units and, for a model parameter, the parameter (`model.link[2].mass` is the
/// second link's mass).
pub(super) fn sweep_parameter(name: &str) -> Option<(&'static str, Option<Parameter>)> {
    if let Some(q) = Parameter::parse(name) {
        return Some((q.units(), Some(q)));
    }
    if let Some(t) = TextbookParameter::parse(name) {
        return Some((t.units, None));
    }
    ANALYSIS_PARAMETERS
        .iter()
        .find(|p| p.0 == name)
        .map(|p| (p.1, None))
}

/// What a figure's axis and a file's `long_name` call the field `name` (`torque amplitude A`,
/// `Taylor's drive strength γ`); the name itself for a field without one.
pub fn parameter_long_name(name: &str) -> String {
    if let Some(q) = Parameter::parse(name) {
        return q.long_name();
    }
    if let Some(t) = TextbookParameter::parse(name) {
        return t.long_name.to_string();
    }
    match name {
        "map.energy" | "poincare.energy" | "orbits.energy" => "energy E".into(),
        other => other.to_string(),
    }
}

/// Sets the sweep's field `name` of `file` to `v` (`model`: the model parameter it names, as
/// [`sweep_parameter`] gives it); a table the field lives in must be in the spec (a drive
/// amplitude needs the drive's frequency), a missing one is named.
pub(super) fn set_parameter(
    file: &mut SpecFile,
    name: &str,
    model: Option<Parameter>,
    v: f64,
) -> Result<(), String> {
    use super::model::{ModelFile, PerLink};
    use Parameter::*;
    if let Some(t) = TextbookParameter::parse(name) {
        return set_textbook(file, t, v);
    }
    let Some(q) = model else {
        if name == "map.energy" {
            file.map.get_or_insert_with(Default::default).energy = Some(v);
        } else {
            let p = file.registered.table_mut("poincare");
            p.insert("energy".into(), toml::Value::Float(v));
            p.remove("energy_fraction");
        }
        return Ok(());
    };
    let ModelFile::Planar(m) = &mut file.model else {
        return Err("a sweep varies a planar chain's fields (the model is not one)".into());
    };
    let missing = |t: &str| format!("the spec has no [{t}] table whose field to vary");
    match q {
        Gravity => m.gravity = Some(v),
        Mass => m.mass = Some(v),
        Length => m.length = Some(v),
        AbsoluteDamping => {
            m.damping.get_or_insert_with(Default::default).absolute = Some(PerLink::All(v))
        }
        JointDamping => {
            m.damping.get_or_insert_with(Default::default).joint = Some(PerLink::All(v))
        }
        TorqueAmplitude | TorqueFrequency | TorquePhase => {
            let t = m
                .drive
                .as_mut()
                .and_then(|d| d.torque.as_mut())
                .ok_or_else(|| missing("model.drive.torque"))?;
            match q {
                TorqueAmplitude => t.amplitude = v,
                TorquePhase => t.phase = v,
                _ => t.frequency = v,
            }
        }
        PivotXAmplitude | PivotYAmplitude | PivotFrequency => {
            let p = m
                .drive
                .as_mut()
                .and_then(|d| d.pivot.as_mut())
                .ok_or_else(|| missing("model.drive.pivot"))?;
            match q {
                PivotXAmplitude => p.x_amplitude = v,
                PivotYAmplitude => p.y_amplitude = v,
                _ => p.frequency = v,
            }
        }
        LinkMass(k) | LinkLength(k) => {
            let n = m.link.as_ref().map_or(0, Vec::len);
            if n == 0 {
                return Err("a link's own field needs the links as [[model.link]] tables (a preset's links are set together: model.mass, model.length)".into());
            }
            let l = m.link.as_mut().and_then(|l| l.get_mut(k)).ok_or_else(|| {
                format!(
                    "the spec's [[model.link]] list has {n} links, not {}",
                    k + 1
                )
            })?;
            if let LinkMass(_) = q {
                l.mass = Some(v);
            } else {
                l.length = Some(v);
            }
        }
    }
    Ok(())
}

/// Sets a textbook preset's parameter `t` ([`crate::model::textbook`]) in its table, which the
/// spec must have (with its preset): the chain is built from the table again.
fn set_textbook(file: &mut SpecFile, t: &TextbookParameter, v: f64) -> Result<(), String> {
    use super::model::ModelFile;
    let preset = t.preset();
    let m = match &mut file.model {
        ModelFile::Planar(m) if m.preset.as_deref() == Some(preset) => m,
        _ => return Err(format!("{} needs the model preset = \"{preset}\"", t.name)),
    };
    let missing = || format!("the spec has no [model.{preset}] table whose field to vary");
    match (preset, t.field_name()) {
        ("taylor", f) => {
            let p = m.taylor.as_mut().ok_or_else(missing)?;
            match f {
                "gamma" => p.gamma = v,
                "beta" => p.beta = v,
                "omega0" => p.omega0 = v,
                _ => p.omega = v,
            }
        }
        ("baker-gollub", f) => {
            let p = m.baker_gollub.as_mut().ok_or_else(missing)?;
            match f {
                "g" => p.g = v,
                "q" => p.q = v,
                _ => p.omega_d = v,
            }
        }
        (_, f) => {
            let p = m.kapitza.as_mut().ok_or_else(missing)?;
            match f {
                "a" => p.a = v,
                "omega" => p.omega = v,
                "l" => p.l = v,
                _ => p.g = v,
            }
        }
    }
    Ok(())
}
