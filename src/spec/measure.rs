//! `kind = "measure"`: a map spec (`[model]`, `[integrator]`, `[map]`) whose map is computed
//! (or reused, when `measure.map_file` already holds it complete) and then measured as
//! `pendula measure` does: boundary box dimension, uncertainty exponent, basin entropy, Wada.
//!
//! `[measure.sweep]` (`parameter` = one spec field, `values`) runs that spec once per value:
//! each point is the same measure spec with the field set, its own map file
//! (`map_file` with `-01`, `-02`, … before `.h5`, so an interrupted sweep resumes at the map
//! it stopped in) and its own measures, tabulated against the parameter.

use super::parameter::set_parameter;
use super::{Analysis, SpecError, SpecFile, Validated};
use crate::analysis::map::MapOptions;
use crate::analysis::measure::{MeasureChoices, MeasureOptions, Stage};
use crate::model::Chain;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The `[measure]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// boundary-dimension | uncertainty-exponent | basin-entropy | wada | all (default).
    pub what: Option<String>,
    /// flip_step (flip maps' default) | flip_link | class | attractor (final-state maps).
    pub variable: Option<String>,
    /// Flip times T (s): one label grid per T, flipped at or before T (default: t_end).
    pub flip_before: Option<Vec<f64>>,
    /// Where the map is kept (default: output.file with `-map` before `.h5`).
    pub map_file: Option<PathBuf>,
    pub max_eps: Option<usize>,
    pub entropy_eps: Option<Vec<usize>>,
    pub shifts: Option<usize>,
    pub seed: Option<u64>,
    pub wada_radius: Option<usize>,
    pub sweep: Option<SweepSpec>,
}

/// The `[measure.sweep]` table: one spec field and its values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// A field of [`sweep_parameters`](super::sweep_parameters), named as in a spec (`model.damping.absolute`).
    pub parameter: Option<String>,
    pub values: Option<Vec<f64>>,
}

/// A validated sweep: each point is a complete measure spec (no sweep) of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub parameter: String,
    pub units: String,
    pub values: Vec<f64>,
    pub points: Vec<SpecFile>,
}

/// `path` with `-NN` (k from 1) before its extension.
fn point_path(path: &std::path::Path, k: usize) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!("{stem}-{k:02}.h5"))
}

/// Checks `[measure.sweep]` and validates every point as a measure spec of its own.
fn validate_sweep(
    file: &SpecFile,
    s: &SweepSpec,
    map_file: &std::path::Path,
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
            parameter: s.parameter.clone(),
            values: Some(s.values.clone().unwrap_or_default()),
            range: None,
            count: None,
        },
        "measure.sweep",
    )?;
    // The points are copies of the spec without its sweep: copying the sweep's own list into
    // every point made the check quadratic in the number of values.
    let mut base = file.clone();
    base.measure
        .as_mut()
        .expect("a sweep is inside [measure]")
        .sweep = None;
    let mut points = Vec::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        let field = format!("measure.sweep.values[{}]", i + 1);
        let mut p = base.clone();
        set_parameter(&mut p, &parameter, model, v)
            .map_err(|m| SpecError::new("measure.sweep.parameter", format!("{parameter}: {m}")))?;
        let m = p.measure.as_mut().expect("a sweep is inside [measure]");
        m.map_file = Some(point_path(map_file, i + 1));
        p.output = super::OutputSpec::default();
        p.validate().map_err(|e| {
            SpecError::new(
                field.clone(),
                format!("{parameter} = {v}: {}: {}", e.field, e.message),
            )
        })?;
        points.push(p);
    }
    Ok(Sweep {
        parameter,
        units,
        values,
        points,
    })
}

impl MeasureSpec {
    /// The measures' options as the table gives them (the library's defaults and checks).
    pub fn choices(&self) -> MeasureChoices {
        MeasureChoices {
            what: self.what.clone(),
            max_eps: self.max_eps,
            entropy_eps: self.entropy_eps.clone(),
            shifts: self.shifts,
            seed: self.seed,
            wada_radius: self.wada_radius,
        }
    }
}

/// A validated measure spec: the map to compute and how to measure it.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureRun {
    pub map: MapOptions,
    pub map_file: PathBuf,
    pub variable: Option<String>,
    pub flip_before: Vec<f64>,
    pub options: MeasureOptions,
    /// Boxed: the points' spec files would make every [`Analysis`] large.
    pub sweep: Option<Box<Sweep>>,
}

pub(super) fn validate(
    file: &SpecFile,
    model: &super::Model,
    chain: &Chain,
) -> Result<Validated, SpecError> {
    if file.map.is_none() {
        return Err(SpecError::new(
            "map",
            "missing: a measure spec computes the [map] it measures (to measure an existing file run `pendula measure FILE.h5`)",
        ));
    }
    let (map, x0, method) = file.map_options(model, chain)?;
    let m = file.measure.clone().unwrap_or_default();
    let short = map.grid.width.min(map.grid.height);
    let o = m
        .choices()
        .options(Some(short))
        .map_err(|e| e.within("measure"))?;
    // Every measure asked for must fit the map's grid, checked now: not after the map (or a
    // sweep's first map) was computed and written.
    o.check_grid(map.grid.width, map.grid.height, None)
        .map_err(|(stage, e)| {
            let field = match stage {
                Stage::Boundary => "map.resolution",
                Stage::Uncertainty => "measure.max_eps",
                Stage::Entropy => "measure.entropy_eps",
                Stage::Wada => "measure.wada_radius",
            };
            let hint = if stage == Stage::Boundary {
                " (a finer map, or measure.what without boundary-dimension)"
            } else {
                ""
            };
            SpecError::new(field, format!("{e}{hint}"))
        })?;
    let flip = map.kind.id().is_flip();
    let variable = m.variable.clone();
    let allowed = map.kind.id().facts().labels;
    if let Some(v) = &variable {
        if !allowed.contains(&v.as_str()) {
            return Err(SpecError::new(
                "measure.variable",
                format!(
                    "`{v}` is not a label variable of a {} map (expected {})",
                    map.kind.name(),
                    allowed.join(", ")
                ),
            ));
        }
    }
    let flip_before = m.flip_before.clone().unwrap_or_default();
    if !flip_before.is_empty() && (!flip || variable.as_deref() == Some("class")) {
        return Err(SpecError::new(
            "measure.flip_before",
            "thresholds flip_step or flip_link of a flip-time map",
        ));
    }
    for (i, &t) in flip_before.iter().enumerate() {
        if !(t.is_finite() && t > 0.0 && t <= map.t_max * (1.0 + 1e-12)) {
            return Err(SpecError::new(
                format!("measure.flip_before[{}]", i + 1),
                "must be in (0, ",
            )
            .name("map.t_end")
            .text(format!(" = {} s] (got {t})", map.t_max)));
        }
    }
    if let Some(t) = crate::analysis::measure::labels::repeated(&flip_before) {
        let i = flip_before.iter().position(|&x| x == t).unwrap_or(0);
        let j = flip_before[i + 1..]
            .iter()
            .position(|&x| x == t)
            .map_or(i, |j| i + 1 + j);
        return Err(SpecError::new(
            format!("measure.flip_before[{}]", j + 1),
            format!("{t} is given twice"),
        ));
    }
    let map_file = match (&m.map_file, &file.output.file) {
        (Some(p), _) => p.clone(),
        (None, Some(out)) => {
            let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            out.with_file_name(format!("{stem}-map.h5"))
        }
        (None, None) => {
            return Err(SpecError::new(
                "measure.map_file",
                "missing: where the computed map is kept (or give output.file, beside which it is kept)",
            ))
        }
    };
    super::result_format("measure.map_file", &map_file)?;
    if file.output.file.as_ref() == Some(&map_file) {
        return Err(SpecError::new(
            "measure.map_file",
            "must differ from output.file (the map and its measures are two files)",
        ));
    }
    let sweep = m
        .sweep
        .as_ref()
        .map(|s| validate_sweep(file, s, &map_file).map(Box::new))
        .transpose()?;
    Ok(Validated {
        analysis: Analysis::Measure(MeasureRun {
            map,
            map_file,
            variable,
            flip_before,
            options: o,
            sweep,
        }),
        x0,
        method,
    })
}
