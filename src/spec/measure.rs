//! `kind = "measure"`: a map spec (`[model]`, `[integrator]`, `[map]`) whose map is computed
//! (or reused, when `measure.map_file` already holds it complete) and then measured as
//! `pendula measure` does: boundary box dimension, uncertainty exponent, basin entropy, Wada.

use super::{Analysis, SpecError, SpecFile, Validated};
use crate::analysis::map::{MapKind, MapOptions};
use crate::analysis::measure::{MeasureOptions, What};
use crate::model::Chain;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The `[measure]` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// boundary-dimension | uncertainty-exponent | basin-entropy | wada | all (default).
    pub what: Option<String>,
    /// flip_step (flip maps' default) | flip_link | class.
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
}

/// A validated measure spec: the map to compute and how to measure it.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureRun {
    pub map: MapOptions,
    pub map_file: PathBuf,
    pub variable: Option<String>,
    pub flip_before: Vec<f64>,
    pub options: MeasureOptions,
}

pub(super) fn validate(file: &SpecFile, chain: &Chain) -> Result<Validated, SpecError> {
    if file.map.is_none() {
        return Err(SpecError::new(
            "map",
            "missing: a measure spec computes the [map] it measures (to measure an existing file run `pendula measure FILE.h5`)",
        ));
    }
    let v = super::map::validate(file, chain)?;
    let Analysis::Map(map) = v.analysis else {
        unreachable!("map::validate returns a map")
    };
    let m = file.measure.clone().unwrap_or_default();
    let mut o = MeasureOptions::default();
    if let Some(w) = &m.what {
        o.what = What::parse(w).ok_or_else(|| {
            SpecError::new(
                "measure.what",
                format!("unknown `{w}` (expected {})", What::NAMES.join(", ")),
            )
        })?;
    }
    let short = map.grid.width.min(map.grid.height);
    if let Some(k) = m.max_eps {
        if k < 2 || 8 * k > short {
            return Err(SpecError::new(
                "measure.max_eps",
                format!(
                    "must be between 2 and 1/8 of the map's shorter side, {short} px (got {k})"
                ),
            ));
        }
        o.uncertainty.max_eps = k;
    }
    if let Some(e) = &m.entropy_eps {
        if e.is_empty() || e.iter().any(|&e| e < 2 || 8 * e > short) {
            return Err(SpecError::new(
                "measure.entropy_eps",
                format!("give box sides between 2 and 1/8 of the map's shorter side, {short} px (got {e:?})"),
            ));
        }
        o.entropy_eps = e.clone();
    }
    if let Some(s) = m.shifts {
        if s == 0 {
            return Err(SpecError::new("measure.shifts", "must be >= 1 (got 0)"));
        }
        o.boxes.shifts = s;
        o.entropy_shifts = s;
    }
    if let Some(s) = m.seed {
        o.boxes.seed = s;
    }
    if let Some(r) = m.wada_radius {
        if r == 0 || 8 * r > short {
            return Err(SpecError::new(
                "measure.wada_radius",
                format!(
                    "must be between 1 and 1/8 of the map's shorter side, {short} px (got {r})"
                ),
            ));
        }
        o.wada.max_radius = r;
    }
    let flip = matches!(map.kind, MapKind::FlipTime { .. });
    let variable = m.variable.clone();
    let allowed: &[&str] = if flip {
        &["flip_step", "flip_link", "class"]
    } else {
        &["class"]
    };
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
                format!("must be in (0, map.t_end = {} s] (got {t})", map.t_max),
            ));
        }
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
    Ok(Validated {
        analysis: Analysis::Measure(MeasureRun {
            map,
            map_file,
            variable,
            flip_before,
            options: o,
        }),
        x0: v.x0,
        method: v.method,
    })
}
