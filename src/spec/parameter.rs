//! The spec fields a run can vary: a measure spec's `[measure.sweep]` and an orbits spec's
//! continuation or orbit-diagram `parameter` name them the same way (`model.drive.torque.amplitude`,
//! `model.link[2].mass`), set them on a copy of the spec ([`set_parameter`]) and read the value
//! a model was built with ([`value_of`]).

use super::SpecFile;
use crate::model::Chain;

/// The fields a sweep varies and their units; `model.link[K]` takes any link K counted from 1.
pub const SWEEP_PARAMETERS: &[(&str, &str)] = &[
    ("map.energy", "J"),
    ("poincare.energy", "J"),
    ("model.gravity", "m s-2"),
    ("model.mass", "kg"),
    ("model.length", "m"),
    ("model.damping.absolute", "N m s"),
    ("model.damping.joint", "N m s"),
    ("model.drive.torque.amplitude", "N m"),
    ("model.drive.torque.frequency", "rad s-1"),
    ("model.drive.torque.phase", "rad"),
    ("model.drive.pivot.x_amplitude", "m"),
    ("model.drive.pivot.y_amplitude", "m"),
    ("model.drive.pivot.frequency", "rad s-1"),
    ("model.link[K].mass", "kg"),
    ("model.link[K].length", "m"),
];

/// `name`'s entry of [`SWEEP_PARAMETERS`] (`model.link[2].mass` matches `model.link[K].mass`)
/// and, for a link field, its link index from 0.
pub(super) fn sweep_parameter(name: &str) -> Option<(&'static str, Option<usize>)> {
    if let Some(rest) = name.strip_prefix("model.link[") {
        let (k, field) = rest.split_once("].")?;
        let k: usize = k.parse().ok().filter(|&k| k >= 1)?;
        let units = match field {
            "mass" => "kg",
            "length" => "m",
            _ => return None,
        };
        return Some((units, Some(k - 1)));
    }
    SWEEP_PARAMETERS
        .iter()
        .find(|p| p.0 == name && !p.0.contains("[K]"))
        .map(|p| (p.1, None))
}

/// Sets the sweep's field of `file` to `v`; a table the field lives in must be in the spec
/// (a drive amplitude needs the drive's frequency), a missing one is named.
pub(super) fn set_parameter(
    file: &mut SpecFile,
    name: &str,
    link: Option<usize>,
    v: f64,
) -> Result<(), String> {
    use super::model::{ModelFile, PerLink};
    if name == "map.energy" {
        file.map.get_or_insert_with(Default::default).energy = Some(v);
        return Ok(());
    }
    if name == "poincare.energy" {
        let p = file.poincare.get_or_insert_with(Default::default);
        p.energy = Some(super::OneOrMany::One(v));
        p.energy_fraction = None;
        return Ok(());
    }
    let ModelFile::Planar(m) = &mut file.model else {
        return Err("a sweep varies a planar chain's fields (the model is not one)".into());
    };
    let missing = |t: &str| format!("the spec has no [{t}] table whose field to vary");
    match name {
        "model.gravity" => m.gravity = Some(v),
        "model.mass" => m.mass = Some(v),
        "model.length" => m.length = Some(v),
        "model.damping.absolute" => {
            m.damping.get_or_insert_with(Default::default).absolute = Some(PerLink::All(v))
        }
        "model.damping.joint" => {
            m.damping.get_or_insert_with(Default::default).joint = Some(PerLink::All(v))
        }
        "model.drive.torque.amplitude"
        | "model.drive.torque.frequency"
        | "model.drive.torque.phase" => {
            let t = m
                .drive
                .as_mut()
                .and_then(|d| d.torque.as_mut())
                .ok_or_else(|| missing("model.drive.torque"))?;
            if name.ends_with("amplitude") {
                t.amplitude = v;
            } else if name.ends_with("phase") {
                t.phase = v;
            } else {
                t.frequency = v;
            }
        }
        "model.drive.pivot.x_amplitude"
        | "model.drive.pivot.y_amplitude"
        | "model.drive.pivot.frequency" => {
            let p = m
                .drive
                .as_mut()
                .and_then(|d| d.pivot.as_mut())
                .ok_or_else(|| missing("model.drive.pivot"))?;
            if name.contains("x_amp") {
                p.x_amplitude = v;
            } else if name.contains("y_amp") {
                p.y_amplitude = v;
            } else {
                p.frequency = v;
            }
        }
        _ => {
            let k = link.expect("a link field");
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
            if name.ends_with(".mass") {
                l.mass = Some(v);
            } else {
                l.length = Some(v);
            }
        }
    }
    Ok(())
}

/// The value of the sweep field `name` (`link`: its link index from 0, as
/// [`sweep_parameter`] gives it) in the chain a spec built: the start of a continuation. A
/// preset-wide field (`model.mass`) reads the first link; a damping field the first entry; a
/// drive field that the chain lacks is `None`.
pub(super) fn value_of(chain: &Chain, name: &str, link: Option<usize>) -> Option<f64> {
    let p = chain.params();
    let first = |v: &[f64]| v.first().copied().or(Some(0.0));
    match name {
        "model.gravity" => Some(p.gravity),
        "model.mass" => p.links.first().map(|l| l.mass),
        "model.length" => p.links.first().map(|l| l.length),
        "model.damping.absolute" => first(&p.damping.absolute),
        "model.damping.joint" => first(&p.damping.joint),
        "model.drive.torque.amplitude" => p.drive.torque.map(|t| t.amplitude),
        "model.drive.torque.frequency" => p.drive.torque.map(|t| t.frequency),
        "model.drive.torque.phase" => p.drive.torque.map(|t| t.phase),
        "model.drive.pivot.frequency" => p.drive.pivot.map(|d| d.frequency),
        "model.drive.pivot.x_amplitude" => p.drive.pivot.map(|d| d.x_amplitude),
        "model.drive.pivot.y_amplitude" => p.drive.pivot.map(|d| d.y_amplitude),
        _ => {
            let l = p.links.get(link?)?;
            if name.ends_with(".mass") {
                Some(l.mass)
            } else {
                Some(l.length)
            }
        }
    }
}
