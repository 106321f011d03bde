//! The points of a measure spec's `[measure.sweep]`: each a whole spec file of its own (the
//! measure spec with the swept field set, no sweep, its own map file and no output),
//! validated as a spec; the measure kind reaches this through
//! [`crate::kinds::SpecParts::measure_points`].

use super::parameter::set_parameter;
use super::{SpecError, SpecFile};
use std::path::{Path, PathBuf};

/// A validated `[measure.sweep]`: each point is a complete measure spec (no sweep) of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub parameter: String,
    pub units: String,
    pub values: Vec<f64>,
    pub points: Vec<SpecFile>,
    /// Each point's `measure.map_file` (`-01`, `-02`, … beside the spec's).
    pub map_files: Vec<PathBuf>,
}

/// `path` with `-NN` (k from 1) before its extension.
fn point_path(path: &Path, k: usize) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!("{stem}-{k:02}.h5"))
}

/// Checks `[measure.sweep]` (`parameter`, `values`) of `file` and validates every point as a
/// measure spec of its own, its map kept beside `map_file`.
pub(super) fn measure_points(
    file: &SpecFile,
    parameter: Option<&str>,
    values: &[f64],
    map_file: &Path,
) -> Result<Sweep, SpecError> {
    // The rules of every sweep axis (a known field; finite, distinct values), checked in
    // linear time before any point is built.
    let super::Axis {
        parameter,
        units,
        model,
        values,
    } = super::sweep::axis(
        &super::AxisSpec {
            parameter: parameter.map(str::to_string),
            values: Some(values.to_vec()),
            range: None,
            count: None,
        },
        "measure.sweep",
    )?;
    // The points are copies of the spec without its sweep: copying the sweep's own list into
    // every point made the check quadratic in the number of values.
    let mut base = file.clone();
    base.registered.table_mut("measure").remove("sweep");
    let mut points = Vec::with_capacity(values.len());
    let mut map_files = Vec::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        let field = format!("measure.sweep.values[{}]", i + 1);
        let mut p = base.clone();
        set_parameter(&mut p, &parameter, model, v)
            .map_err(|m| SpecError::new("measure.sweep.parameter", format!("{parameter}: {m}")))?;
        let map_file = point_path(map_file, i + 1);
        p.registered.table_mut("measure").insert(
            "map_file".into(),
            toml::Value::String(map_file.to_string_lossy().into_owned()),
        );
        p.output = super::OutputSpec::default();
        p.validate().map_err(|e| {
            SpecError::new(
                field.clone(),
                format!("{parameter} = {v}: {}: {}", e.field, e.message),
            )
        })?;
        points.push(p);
        map_files.push(map_file);
    }
    Ok(Sweep {
        parameter,
        units,
        values,
        points,
        map_files,
    })
}
