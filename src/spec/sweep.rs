//! `[sweep]`: one analysis run once per value of one or more spec fields, the points tabulated
//! against them. The same table serves simulate, modes, lyapunov, poincare, map, frequencies
//! and measure (whose `[measure.sweep]` it fills), and the CLI's `--sweep PARAM=LIST`.
//!
//! ```toml
//! [sweep]                                   # one field: its values, or a range with a count
//! parameter = "model.drive.torque.amplitude"
//! range = [0.9, 1.5]                        # or values = [0.9, 1.07, 1.15]
//! count = 100                               # evenly spaced, both ends included
//! # several fields: [[sweep.axis]] tables of the same keys, and
//! # combine = "product" (every combination, the last axis fastest) or "zip" (equal lengths)
//! directory = "out/lambda-points"           # each point's own result file (default: beside output.file)
//! ```
//!
//! Every point is the spec with the fields set and no sweep, validated up front, so a bad point
//! is refused before any work, naming the axis and the value.

use super::parameter::{set_parameter, sweep_parameter, sweep_parameters};
use super::{Budget, Spec, SpecError, SpecFile};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Most points one sweep runs (each is a whole analysis with its own file).
pub const MAX_SWEEP_POINTS: usize = 100_000;

/// The `[sweep]` table as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepTable {
    /// One axis given inline (instead of `axis`): the field, its values or range and count.
    pub parameter: Option<String>,
    pub values: Option<Vec<f64>>,
    /// `[from, to]`: any other length is refused (never cut to two).
    pub range: Option<Vec<f64>>,
    pub count: Option<Count>,
    /// Several axes.
    pub axis: Option<Vec<AxisSpec>>,
    /// product (default) | zip.
    pub combine: Option<String>,
    /// Folder of the points' result files (default: `<output.file stem>-points` beside it).
    pub directory: Option<PathBuf>,
}

/// One swept field: its values, or `range = [from, to]` with `count`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    /// A field of [`sweep_parameters`], named as in a spec (`model.link[2].mass`).
    pub parameter: Option<String>,
    pub values: Option<Vec<f64>>,
    /// `[from, to]`: any other length is refused (never cut to two).
    pub range: Option<Vec<f64>>,
    pub count: Option<Count>,
}

/// A range's `count` as given: any number, so that one rule ([`axis_values`]: a whole number
/// from 2 to [`MAX_SWEEP_POINTS`]) checks every front end's count alike: a spec's `count =
/// 2.5`, the CLI's `--sweep F=1:2:2.5` and Python's `(1, 2, 2.5)` are refused with one message,
/// never rounded or cut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Count {
    /// An integer as written.
    Whole(i64),
    /// Any other number.
    Number(f64),
}

impl Count {
    /// The count, or `None` when it is not a whole number from 2 to [`MAX_SWEEP_POINTS`].
    pub fn points(self) -> Option<usize> {
        let n = match self {
            Count::Whole(n) => usize::try_from(n).ok()?,
            Count::Number(x) if x.fract() == 0.0 && (0.0..=1e15).contains(&x) => x as usize,
            Count::Number(_) => return None,
        };
        (2..=MAX_SWEEP_POINTS).contains(&n).then_some(n)
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Count::Whole(n) => write!(f, "{n}"),
            Count::Number(x) => write!(f, "{x}"),
        }
    }
}

impl From<usize> for Count {
    fn from(n: usize) -> Count {
        i64::try_from(n).map_or(Count::Number(n as f64), Count::Whole)
    }
}

impl Serialize for Count {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Count::Whole(n) => s.serialize_i64(*n),
            Count::Number(x) => s.serialize_f64(*x),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole number of values")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count::Whole(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(i64::try_from(v).map_or(Count::Number(v as f64), Count::Whole))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Count, E> {
                Ok(Count::Number(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl SweepTable {
    /// The inline axis (empty when none of its keys is given).
    fn inline(&self) -> AxisSpec {
        AxisSpec {
            parameter: self.parameter.clone(),
            values: self.values.clone(),
            range: self.range.clone(),
            count: self.count,
        }
    }
}

/// How several axes make points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Every combination, the last axis varying fastest.
    Product,
    /// The k-th value of every axis together (the axes have equal lengths).
    Zip,
}

impl Combine {
    pub fn name(&self) -> &'static str {
        match self {
            Combine::Product => "product",
            Combine::Zip => "zip",
        }
    }
}

/// A validated axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The spec field (`model.drive.torque.amplitude`).
    pub parameter: String,
    pub units: String,
    /// The model parameter it is (None: an analysis's field, `map.energy`).
    pub model: Option<crate::model::Parameter>,
    pub values: Vec<f64>,
}

impl Axis {
    /// The field as an HDF5/xarray variable name: `model.link[2].mass` → `model_link_2_mass`.
    pub fn variable(&self) -> String {
        let mut s: String = self
            .parameter
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        while s.contains("__") {
            s = s.replace("__", "_");
        }
        s.trim_matches('_').to_string()
    }
}

/// A validated sweep: its axes and every point, each a complete spec of its own.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    pub axes: Vec<Axis>,
    pub combine: Combine,
    /// Folder of the points' result files as the spec gives it (`sweep.directory`, or beside
    /// `output.file`); a front end may derive one from its own output ([`points_beside`]).
    pub directory: Option<PathBuf>,
    pub points: Vec<SweepPoint>,
}

/// One point: each axis's value and the spec run there.
#[derive(Debug, Clone)]
pub struct SweepPoint {
    pub values: Vec<f64>,
    pub spec: Spec,
}

impl SweepPlan {
    /// `axis = value, …` of point `k`, for messages and reports.
    pub fn describe(&self, k: usize) -> String {
        self.axes
            .iter()
            .zip(&self.points[k].values)
            .map(|(a, v)| format!("{} = {v}", a.parameter))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The result file of point `k` (from 0) in a sweep's folder `dir`.
pub fn point_file(dir: &std::path::Path, k: usize) -> PathBuf {
    dir.join(format!("point-{:05}.h5", k + 1))
}

/// The default folder of a sweep's points: `<stem>-points` beside its result file.
pub fn points_beside(file: &std::path::Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!("{stem}-points"))
}

/// The axes of `[sweep]`, each checked, with the field name each message uses.
fn axes(t: &SweepTable) -> Result<Vec<(Axis, String)>, SpecError> {
    let inline = t.inline();
    let given: Vec<(&AxisSpec, String)> = match (&t.axis, inline == AxisSpec::default()) {
        (Some(_), false) => return Err(SpecError::new(
            "sweep.axis",
            "give one field inline (parameter, values or range) or [[sweep.axis]] tables, not both",
        )),
        (Some(list), true) => list
            .iter()
            .enumerate()
            .map(|(i, a)| (a, format!("sweep.axis[{}]", i + 1)))
            .collect(),
        (None, _) => vec![(&inline, "sweep".to_string())],
    };
    if given.is_empty() {
        return Err(SpecError::new("sweep.axis", "give at least one axis"));
    }
    let mut out: Vec<(Axis, String)> = Vec::with_capacity(given.len());
    for (a, at) in given {
        let axis = axis(a, &at)?;
        if out.iter().any(|(o, _)| o.parameter == axis.parameter) {
            return Err(SpecError::new(
                format!("{at}.parameter"),
                format!("`{}` is swept twice", axis.parameter),
            ));
        }
        out.push((axis, at));
    }
    Ok(out)
}

/// One axis checked: a known field and its values ([`axis_values`]); errors name `{at}.…`.
/// `[measure.sweep]` (at = `measure.sweep`) is checked by the same rules.
pub(super) fn axis(a: &AxisSpec, at: &str) -> Result<Axis, SpecError> {
    let names: Vec<&str> = sweep_parameters().map(|p| p.0).collect();
    let parameter = a.parameter.clone().ok_or_else(|| {
        SpecError::new(
            format!("{at}.parameter"),
            format!("missing: the field to vary ({})", names.join(", ")),
        )
    })?;
    let (units, model) = sweep_parameter(&parameter).ok_or_else(|| {
        SpecError::new(
            format!("{at}.parameter"),
            format!("unknown `{parameter}` (expected {})", names.join(", ")),
        )
    })?;
    Ok(Axis {
        values: axis_values(a, at)?,
        parameter,
        units: units.to_string(),
        model,
    })
}

/// An axis's values: its list, or `count` evenly spaced over `range`; finite, distinct.
fn axis_values(a: &AxisSpec, at: &str) -> Result<Vec<f64>, SpecError> {
    let values = match (&a.values, &a.range, a.count) {
        (Some(_), Some(_), _) => {
            return Err(SpecError::new(
                format!("{at}.range"),
                "give values or range with count, not both",
            ))
        }
        (Some(_), None, Some(_)) => {
            return Err(SpecError::new(
                format!("{at}.count"),
                "count goes with range, not with a list of values",
            ))
        }
        (Some(v), None, None) => v.clone(),
        (None, Some(r), count) => {
            let [from, to] = r[..] else {
                return Err(SpecError::new(
                    format!("{at}.range"),
                    format!(
                        "must be [from, to] (got {} values; the number of values is count, a list of values is values = [...])",
                        r.len()
                    ),
                ));
            };
            let r = [from, to];
            let count = count.ok_or_else(|| {
                SpecError::new(
                    format!("{at}.count"),
                    "missing: the number of values in range",
                )
            })?;
            let count = count.points().ok_or_else(|| {
                SpecError::new(
                    format!("{at}.count"),
                    format!("must be a whole number from 2 to {MAX_SWEEP_POINTS} (got {count})"),
                )
            })?;
            if !r[0].is_finite() || !r[1].is_finite() || r[0] == r[1] {
                return Err(SpecError::new(
                    format!("{at}.range"),
                    format!(
                        "must be two different finite values (got [{}, {}])",
                        r[0], r[1]
                    ),
                ));
            }
            // Each value from its index, so none carries the others' round-off; the ends exact.
            let step = (r[1] - r[0]) / (count - 1) as f64;
            (0..count)
                .map(|i| {
                    if i == count - 1 {
                        r[1]
                    } else {
                        r[0] + i as f64 * step
                    }
                })
                .collect()
        }
        (None, None, Some(_)) => {
            return Err(SpecError::new(
                format!("{at}.range"),
                "missing: count needs range = [from, to]",
            ))
        }
        (None, None, None) => {
            return Err(SpecError::new(
                format!("{at}.values"),
                "missing: give values = [...] or range = [from, to] with count",
            ))
        }
    };
    if values.is_empty() {
        return Err(SpecError::new(
            format!("{at}.values"),
            "give at least one value of the parameter",
        ));
    }
    let mut seen = std::collections::HashSet::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        let field = format!("{at}.values[{}]", i + 1);
        if !v.is_finite() {
            return Err(SpecError::new(field, format!("must be finite (got {v})")));
        }
        if !seen.insert((v + 0.0).to_bits()) {
            return Err(SpecError::new(field, format!("{v} is given twice")));
        }
    }
    Ok(values)
}

/// The kinds a `[sweep]` runs: the registered kinds whose entry says so ([`Kind::swept`]),
/// in the order its messages have always named them; a measure spec's sweep is its
/// `[measure.sweep]` ([`into_measure`]).
///
/// [`Kind::swept`]: crate::kinds::Kind::swept
pub fn swept_kinds() -> Vec<&'static str> {
    const ORDER: &[&str] = &["simulate", "modes", "lyapunov", "poincare", "map"];
    ORDER
        .iter()
        .copied()
        .chain(super::registered(ORDER))
        .filter(|k| crate::kinds::named(k).is_none_or(|k| k.swept))
        .collect()
}

/// A measure spec's `[sweep]` is its `[measure.sweep]` (one field): the file with the sweep
/// moved there, or the refusal of what a measure sweep cannot take.
pub(super) fn into_measure(file: &SpecFile) -> Result<SpecFile, SpecError> {
    let t = file.sweep.as_ref().expect("a sweep");
    let list = axes(t)?;
    if list.len() != 1 {
        return Err(SpecError::new(
            "sweep.axis",
            "a measure sweep varies one field",
        ));
    }
    if t.directory.is_some() {
        return Err(SpecError::new(
            "sweep.directory",
            "a measure sweep keeps each point's map beside measure.map_file (-01, -02, …)",
        ));
    }
    let mut f = file.clone();
    let m = f.registered.table_mut("measure");
    if m.contains_key("sweep") {
        return Err(SpecError::new(
            "sweep",
            "give the measure's sweep once: [sweep] or [measure.sweep]",
        ));
    }
    let (axis, _) = &list[0];
    // As its table type writes it ([`crate::kinds::measure::SweepSpec`]).
    let sweep = crate::kinds::measure::SweepSpec {
        parameter: Some(axis.parameter.clone()),
        values: Some(axis.values.clone()),
    };
    m.insert(
        "sweep".into(),
        toml::Value::try_from(sweep).expect("a table of a string and numbers"),
    );
    f.sweep = None;
    Ok(f)
}

/// Builds and validates every point of `file`'s `[sweep]` (`file` is the spec with its sweep;
/// `template` the spec it validates to without one).
pub(super) fn plan(
    file: &SpecFile,
    template: &Spec,
    budget: &Budget,
) -> Result<SweepPlan, SpecError> {
    let t = file.sweep.as_ref().expect("a sweep");
    let kind = template.analysis.kind().name;
    if !swept_kinds().contains(&kind) {
        return Err(SpecError::new(
            "sweep",
            format!("a sweep runs {}, not {kind}", swept_kinds().join(", ")),
        ));
    }
    if let Some(o) = crate::kinds::map::spec_options(template) {
        // Each point's map is held in memory (tiles, then its file's image).
        crate::limits::check_in_memory_map(o.grid.width, o.grid.height).map_err(|e| {
            SpecError::new(
                e.field.clone(),
                format!(
                    "{}: a sweep holds each point's map in memory (run larger maps one by one with `pendula map`)",
                    e.message
                ),
            )
        })?;
    }
    let combine = match t.combine.as_deref() {
        None | Some("product") => Combine::Product,
        Some("zip") => Combine::Zip,
        Some(other) => {
            return Err(SpecError::new(
                "sweep.combine",
                format!("unknown `{other}` (expected product or zip)"),
            ))
        }
    };
    let list = axes(t)?;
    let lengths: Vec<usize> = list.iter().map(|(a, _)| a.values.len()).collect();
    let count = match combine {
        Combine::Zip => {
            if let Some(((_, at), n)) = list.iter().zip(&lengths).find(|(_, n)| **n != lengths[0]) {
                return Err(SpecError::new(
                    format!("{at}.values"),
                    format!(
                        "has {n} values and the first axis {}: zipped axes have equal lengths",
                        lengths[0]
                    ),
                ));
            }
            lengths[0]
        }
        Combine::Product => lengths
            .iter()
            .try_fold(1usize, |acc, n| acc.checked_mul(*n))
            .unwrap_or(usize::MAX),
    };
    if count > MAX_SWEEP_POINTS {
        return Err(SpecError::new(
            "sweep",
            format!("{count} points: a sweep runs at most {MAX_SWEEP_POINTS}"),
        ));
    }
    let directory = match (&t.directory, &file.output.file) {
        (Some(d), _) if d.as_os_str().is_empty() => {
            return Err(SpecError::new("sweep.directory", "is empty"))
        }
        (Some(d), _) => Some(d.clone()),
        (None, Some(f)) => Some(points_beside(f)),
        (None, None) => None,
    };
    let mut base = file.clone();
    base.sweep = None;
    base.output = super::OutputSpec::default();
    // A point's title is the sweep's with its values, unless the spec titles it.
    let mut points = Vec::with_capacity(count);
    for k in 0..count {
        let values: Vec<f64> = match combine {
            Combine::Zip => list.iter().map(|(a, _)| a.values[k]).collect(),
            Combine::Product => {
                let mut rest = k;
                let mut v = vec![0.0; list.len()];
                for (i, (a, _)) in list.iter().enumerate().rev() {
                    v[i] = a.values[rest % a.values.len()];
                    rest /= a.values.len();
                }
                v
            }
        };
        let mut p = base.clone();
        for ((a, at), &v) in list.iter().zip(&values) {
            set_parameter(&mut p, &a.parameter, a.model, v).map_err(|m| {
                SpecError::new(format!("{at}.parameter"), format!("{}: {m}", a.parameter))
            })?;
        }
        let spec = p.validate_for(budget, None).map_err(|e| {
            let at = list
                .iter()
                .zip(&values)
                .map(|((a, _), v)| format!("{} = {v}", a.parameter))
                .collect::<Vec<_>>()
                .join(", ");
            SpecError::new(
                "sweep",
                format!("point {} ({at}): {}: {}", k + 1, e.field, e.message),
            )
        })?;
        points.push(SweepPoint { values, spec });
    }
    Ok(SweepPlan {
        axes: list.into_iter().map(|(a, _)| a).collect(),
        combine,
        directory,
        points,
    })
}
