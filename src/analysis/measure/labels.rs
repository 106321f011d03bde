//! The label grids a map gives to the measures, for every front end: which variables label a
//! map of each kind, the flip-time thresholds, the attractor labels of a final-state map, the
//! checks on these choices, and which option a refused measure names. Errors are
//! [`FieldError`]s naming the option by its key (`variable`, `max_eps`), which the CLI spells
//! as its flag (`--max-eps`) and the Python package as its keyword.

use super::{LabelGrid, MeasureError, Stage};
use crate::analysis::map::basins::label;
use crate::analysis::map::MapKindId;
use crate::error::FieldError;
use std::collections::BTreeMap;

/// What a map holds for labelling, however it was read (a file, a Dataset).
#[derive(Debug, Clone, Copy)]
pub struct MapGrids<'a> {
    pub kind: MapKindId,
    pub complete: bool,
    pub t_max: f64,
    pub dt: f64,
    pub width: usize,
    pub height: usize,
    /// The map's coordinates (x then y) and window, the default extent.
    pub axes: [&'a str; 2],
    pub window: [f64; 4],
    pub class: &'a [u8],
    /// Empty unless read (a flip-time map's).
    pub flip_step: &'a [i32],
    pub flip_link: &'a [u8],
    /// A final-state map's aux columns per pixel and its links: with them the `attractor`
    /// labels are offered.
    pub attractor: Option<(&'a [f64], usize)>,
}

/// One label grid to measure, with its description.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// Short legend name.
    pub name: String,
    pub source: String,
    pub grid: LabelGrid,
    pub extent: Option<[f64; 4]>,
    /// (name, units) of the x and y axes.
    pub axes: Option<[(String, String); 2]>,
}

/// The units of a map coordinate by its name.
pub fn axis_units(name: &str) -> String {
    if name.starts_with("omega") {
        "rad s-1"
    } else {
        "rad"
    }
    .into()
}

/// How a label grid's values are typed where it was read (an HDF5 dataset, a NumPy array).
#[derive(Debug, Clone, PartialEq)]
pub enum ValueType {
    /// Integers, booleans or enumerations: labels as they are.
    Integer,
    /// Floating-point or complex values: not labels until thresholded or classified.
    Float,
    /// Anything else, described as its reader names it.
    Other(String),
}

/// Checks a label grid read from `what` (`dataset /basins/row`, `array`): two dimensions of
/// an integer type; returns its columns and rows (`[y, x]` indexing, rows are y). Errors
/// name the `labels` option.
pub fn grid_shape(
    what: &str,
    shape: &[usize],
    ty: &ValueType,
) -> Result<(usize, usize), FieldError> {
    let bad = |m: String| FieldError::new("labels", format!("{what} {m}"));
    if shape.len() != 2 {
        return Err(bad(format!(
            "is {}-D (shape {shape:?}); labels must be a 2-D grid",
            shape.len()
        )));
    }
    match ty {
        ValueType::Integer => Ok((shape[1], shape[0])),
        ValueType::Float => Err(bad(
            "holds floating-point values; labels must be integers (threshold or classify it first)"
                .into(),
        )),
        ValueType::Other(t) => Err(bad(format!("has type {t}; labels must be integers"))),
    }
}

/// A label grid's values read as 64-bit integers, as the measures take them (32-bit).
pub fn grid_values(what: &str, raw: impl IntoIterator<Item = i64>) -> Result<Vec<i32>, FieldError> {
    raw.into_iter()
        .map(i32::try_from)
        .collect::<Result<Vec<i32>, _>>()
        .map_err(|_| {
            FieldError::new(
                "labels",
                format!("{what} holds labels beyond the 32-bit range"),
            )
        })
}

/// Why the coordinates `c` of a dimension scale cannot give a grid's extent, or `None` when
/// they can: finite, strictly monotonic (either way) and evenly spaced, every coordinate
/// within 1e-6 of the span from the line through the first and the last.
pub fn scale_problem(c: &[f64]) -> Option<String> {
    let n = c.len();
    if let Some(v) = c.iter().find(|v| !v.is_finite()) {
        return Some(format!("holds {v}"));
    }
    if n < 2 {
        return None;
    }
    let up = c[1] > c[0];
    if let Some(i) = (1..n).find(|&i| {
        if up {
            c[i] <= c[i - 1]
        } else {
            c[i] >= c[i - 1]
        }
    }) {
        return Some(format!(
            "is not strictly monotonic ({} then {} at {} and {})",
            c[i - 1],
            c[i],
            i - 1,
            i
        ));
    }
    let span = c[n - 1] - c[0];
    let d = span / (n - 1) as f64;
    if !d.is_finite() {
        return Some(format!("spans {} to {}, beyond binary64", c[0], c[n - 1]));
    }
    let tol = 1e-6 * span.abs();
    if let Some(i) = (0..n).find(|&i| (c[i] - (c[0] + i as f64 * d)).abs() > tol) {
        return Some(format!(
            "is not evenly spaced (a logarithmic or irregular scale: {} at {i}, {} on the line from {} to {})",
            c[i],
            c[0] + i as f64 * d,
            c[0],
            c[n - 1]
        ));
    }
    None
}

/// The label grid of `nx` × `ny` `values` given as the `labels` option, described in messages
/// after the option as `source` (`f.h5:/basins/one`) where there is one.
pub fn grid(
    nx: usize,
    ny: usize,
    values: &[i32],
    source: Option<&str>,
) -> Result<LabelGrid, FieldError> {
    LabelGrid::new(nx, ny, values).map_err(|e| {
        let at = source.map_or_else(String::new, |s| format!(" {s}"));
        FieldError::unled("labels")
            .name("labels")
            .text(format!("{at}: {e}"))
    })
}

/// The options only a map's labels take, refused for a label grid given as the `labels`
/// option: the grid is its own labels (no variable to choose, no flip times).
pub fn grid_takes_no_map_options(variable: bool, flip_before: bool) -> Result<(), FieldError> {
    if variable {
        return Err(FieldError::new(
            "variable",
            "applies to a map's label variables, not to a grid given as ",
        )
        .name("labels"));
    }
    if flip_before {
        return Err(FieldError::new(
            "flip_before",
            "thresholds a flip-time map, not a grid given as ",
        )
        .name("labels"));
    }
    Ok(())
}

/// The map kind named `name` (a map's `kind` attribute), as the `kind` option.
pub fn map_kind(name: &str) -> Result<MapKindId, FieldError> {
    MapKindId::parse(name).ok_or_else(|| {
        FieldError::new(
            "kind",
            format!(
                "unknown map kind `{name}` (expected {})",
                MapKindId::expected(&MapKindId::ALL)
            ),
        )
    })
}

/// The refusal of labels `what` (`the Dataset`) that are no map of `pendula map`: it lacks
/// `missing` (its kind, its class grid).
pub fn not_a_map(what: &str, missing: &str) -> FieldError {
    FieldError::new(
        "labels",
        format!("{what} is not a map of pendula map (no {missing})"),
    )
}

/// The first value of `v` that an earlier one equals (`==`: 0 and −0 are one), found in
/// linear time; NaN never repeats.
pub fn repeated(v: &[f64]) -> Option<f64> {
    let mut seen = std::collections::HashSet::with_capacity(v.len());
    v.iter()
        .copied()
        .find(|&x| !x.is_nan() && !seen.insert((x + 0.0).to_bits()))
}

/// A map `measure` can label: complete (not a shard or an interrupted run), with aux
/// variables of the catalogue's shape where its attractors are asked for.
fn check_map(m: &MapGrids<'_>, file: &str) -> Result<(), FieldError> {
    if !m.complete {
        return Err(FieldError::new(
            "measure",
            format!("{file} is incomplete (a shard or interrupted map); merge or resume it first"),
        ));
    }
    if let Some((aux, links)) = m.attractor {
        let (pixels, columns) = (m.width * m.height, m.kind.aux_columns(links));
        if aux.len() != pixels * columns {
            return Err(FieldError::new(
                "labels",
                format!(
                    "the aux variables hold {} values, not {pixels} pixels × {columns} columns",
                    aux.len()
                ),
            ));
        }
    }
    Ok(())
}

/// The label variable asked for (`None`: the kind's default), one of the catalogue's label
/// variables of the map's kind (`attractor` only where its aux columns were read).
fn label_variable<'v>(m: &MapGrids<'_>, variable: Option<&'v str>) -> Result<&'v str, FieldError> {
    // The catalogue's label variables; `attractor` needs the aux columns read.
    let allowed: Vec<&str> = (m.kind.facts().labels.iter().copied())
        .filter(|&v| v != "attractor" || m.attractor.is_some())
        .collect();
    let var = variable.unwrap_or(allowed[0]);
    if !allowed.contains(&var) {
        return Err(FieldError::new(
            "variable",
            format!(
                "`{var}` is not a label variable of this {} map (expected {})",
                m.kind.name(),
                allowed.join(", ")
            ),
        ));
    }
    Ok(var)
}

/// `flip_before`: only for a thresholded variable (flip_step, flip_link), each time in
/// (0, t_max] and none twice.
fn check_flip_before(
    m: &MapGrids<'_>,
    thresholded: bool,
    flip_before: &[f64],
) -> Result<(), FieldError> {
    if !thresholded && !flip_before.is_empty() {
        return Err(FieldError::new(
            "flip_before",
            "thresholds flip_step or flip_link of a flip-time map, not class",
        ));
    }
    for &t in flip_before {
        if !(t.is_finite() && t > 0.0 && t <= m.t_max * (1.0 + 1e-12)) {
            return Err(FieldError::new(
                "flip_before",
                format!("{t} must be in (0, t_max = {} s]", m.t_max),
            ));
        }
    }
    if let Some(t) = repeated(flip_before) {
        return Err(FieldError::new(
            "flip_before",
            format!("{t} is given twice (each time is one label grid of the whole map)"),
        ));
    }
    Ok(())
}

/// The label grids of map `m` (called `file` in messages): `variable` (default `flip_step`
/// for flip-time maps, else `class`) and, for `flip_step`/`flip_link`, one grid per
/// `flip_before` time (default `t_max`): flipped by then (or the first link to flip) else 0.
/// `extent` overrides the map's window. An error names the option by its key (`measure` for
/// the map itself).
pub fn map_labels(
    m: &MapGrids<'_>,
    variable: Option<&str>,
    flip_before: &[f64],
    extent: Option<[f64; 4]>,
    file: &str,
) -> Result<Vec<Labelled>, FieldError> {
    check_map(m, file)?;
    let var = label_variable(m, variable)?;
    let thresholded = var != "class" && var != "attractor";
    check_flip_before(m, thresholded, flip_before)?;
    let axes = Some(m.axes.map(|a| (a.to_string(), axis_units(a))));
    let extent = Some(extent.unwrap_or(m.window));
    let make = |name: String, source: String, labels: Vec<i32>| {
        let grid = LabelGrid::new(m.width, m.height, &labels).map_err(|e| {
            FieldError::unled("variable")
                .text(format!("{file} "))
                .name("variable")
                .text(format!(" {var} ({name}): {e}"))
        })?;
        Ok::<Labelled, FieldError>(Labelled {
            name,
            source,
            grid,
            extent,
            axes: axes.clone(),
        })
    };
    if let ("attractor", Some((aux, links))) = (var, m.attractor) {
        let (labels, keys) = attractor_labels(m.class, aux, links);
        return Ok(vec![make(
            "attractor".into(),
            format!(
                "attractor of {file}: (class, turns or rotation per link) numbered in sorted order: {}",
                keys.join("; ")
            ),
            labels,
        )?]);
    }
    if !thresholded {
        let labels = m.class.iter().map(|&c| i32::from(c)).collect();
        return Ok(vec![make(
            "class".into(),
            format!("class of {file}"),
            labels,
        )?]);
    }
    let pixels = m.width * m.height;
    if m.flip_step.len() != pixels || m.flip_link.len() != pixels {
        return Err(FieldError::new(
            "variable",
            format!("{var} needs the map's flip_step and flip_link"),
        ));
    }
    let times = if flip_before.is_empty() {
        vec![m.t_max]
    } else {
        flip_before.to_vec()
    };
    let what = if var == "flip_link" {
        "first link to flip (0 = none)"
    } else {
        "flipped (1) or not (0)"
    };
    times
        .into_iter()
        .map(|t| {
            let labels = flipped_by(m, var == "flip_link", t);
            let source = format!(
                "{var} of {file}: {what} by t = {t} s (flip_step · dt <= t; dt = {} s, t_max = {} s; never flipped, forbidden and diverged pixels are 0)",
                m.dt, m.t_max
            );
            make(format!("flipped by t = {t} s"), source, labels)
        })
        .collect()
}

/// A flip-time map thresholded at `t`: 1 (or, `by_link`, the first link to flip) where a pixel
/// flipped at or before `t`, else 0.
fn flipped_by(m: &MapGrids<'_>, by_link: bool, t: f64) -> Vec<i32> {
    m.flip_step
        .iter()
        .zip(m.flip_link)
        .map(|(&k, &l)| {
            let flipped = k > 0 && f64::from(k) * m.dt <= t * (1.0 + 1e-12);
            match (flipped, by_link) {
                (false, _) => 0,
                (true, true) => i32::from(l),
                (true, false) => 1,
            }
        })
        .collect()
}

/// Labels of a final-state map's attractors. `class` alone is not one: a driven pendulum's
/// oscillating and its left- and right-rotating period-1 orbits are all "period 1", and an
/// undriven chain reaches the same hanging rest after different net turns. So a pixel's label
/// is the tuple (class, per link: net turns n_j about its equilibrium, or k · rotation number
/// = whole turns per k drive periods on a period-k orbit; none for unsettled or diverged),
/// the distinct tuples numbered 0, 1, … in sorted order. Equilibria are told apart on the
/// covering space (θ and θ + 2π differ), periodic orbits by how they wind; two coexisting
/// orbits of one period and equal winding (a mirror pair of oscillations) share a label.
/// Returns the labels and each label's tuple, described.
pub fn attractor_labels(class: &[u8], aux: &[f64], links: usize) -> (Vec<i32>, Vec<String>) {
    let m = aux.len() / class.len().max(1);
    let keys: Vec<(u8, Vec<i64>)> = class
        .iter()
        .enumerate()
        .map(|(p, &c)| {
            let col = |off: usize, j: usize| {
                aux.get(p * m + off * links + j)
                    .copied()
                    .unwrap_or(f64::NAN)
            };
            let wind: Vec<i64> = match c {
                label::UNSETTLED | label::DIVERGED => vec![],
                c if c >= label::PERIODIC => {
                    let k = f64::from(c - label::PERIODIC);
                    (0..links).map(|j| (col(2, j) * k).round() as i64).collect()
                }
                _ => (0..links).map(|j| col(1, j).round() as i64).collect(),
            };
            (c, wind)
        })
        .collect();
    let mut index: BTreeMap<&(u8, Vec<i64>), i32> = keys.iter().map(|k| (k, 0)).collect();
    let mut names = Vec::with_capacity(index.len());
    for (n, (k, v)) in index.iter_mut().enumerate() {
        *v = n as i32;
        let what = match k.0 {
            label::UNSETTLED => "unsettled".to_string(),
            label::DIVERGED => "diverged".to_string(),
            c if c >= label::PERIODIC => {
                format!("period {} winding {:?}", c - label::PERIODIC, k.1)
            }
            c => format!("equilibrium {} turns {:?}", c - label::EQUILIBRIUM, k.1),
        };
        names.push(format!("{n} = {what}"));
    }
    (keys.iter().map(|k| index[k]).collect(), names)
}

/// A measure refused on label set `set`, naming the option that drives it (its key): the label
/// set itself (field `labels`) where its labels are the problem.
pub fn refusal(stage: Stage, e: &MeasureError, set: &str) -> FieldError {
    let of_set = |what: String| FieldError::unled("labels").text(format!("{what}: {e}"));
    match (e, stage) {
        (MeasureError::FewLabels(_), _) => of_set(set.to_string()),
        (_, Stage::Boundary) => of_set(format!("{set} (box counting)")),
        (MeasureError::Labels(_), Stage::Uncertainty) => of_set(set.to_string()),
        (_, Stage::Uncertainty) => FieldError::new("max_eps", e.to_string()),
        (_, Stage::Entropy) => FieldError::new("entropy_eps", e.to_string()),
        (MeasureError::Labels(_), Stage::Wada) => FieldError::unled("what")
            .name("what")
            .text(format!(" wada ({set}): {e}")),
        (_, Stage::Wada) => FieldError::new("wada_radius", e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(k: &str) -> String {
        format!("--{}", k.replace('_', "-"))
    }

    /// The CLI's and the package's spelling of an error.
    fn spelt(e: FieldError, cli_flags: bool) -> String {
        if cli_flags {
            e.render(&cli)
        } else {
            e.to_string()
        }
    }

    /// A 2 × 2 flip-time map (dt = 0.5 s, t_max = 4 s): pixels flip at steps 0 (never), 2
    /// (1 s, link 1), 6 (3 s, link 2) and 8 (4 s, both links: 3).
    fn flip_map<'a>(class: &'a [u8], steps: &'a [i32], links: &'a [u8]) -> MapGrids<'a> {
        MapGrids {
            kind: MapKindId::FlipTime,
            complete: true,
            t_max: 4.0,
            dt: 0.5,
            width: 2,
            height: 2,
            axes: ["theta1", "omega2"],
            window: [-1.0, 1.0, -2.0, 2.0],
            class,
            flip_step: steps,
            flip_link: links,
            attractor: None,
        }
    }

    #[test]
    fn flip_thresholds_label_each_time() {
        let (class, steps, links) = ([0u8, 1, 1, 1], [0, 2, 6, 8], [0u8, 1, 2, 3]);
        let m = flip_map(&class, &steps, &links);
        let sets = map_labels(&m, None, &[1.0, 3.5], None, "f.h5").unwrap();
        assert_eq!(sets.len(), 2);
        // Flipped by 1 s: pixel 1 only; by 3.5 s: pixels 1 and 2 (step 8 is 4 s).
        assert_eq!(sets[0].grid.values, [0, 1]);
        assert_eq!(sets[0].grid.index, [0, 1, 0, 0]);
        assert_eq!(sets[1].grid.index, [0, 1, 1, 0]);
        assert_eq!(sets[1].name, "flipped by t = 3.5 s");
        assert_eq!(sets[0].extent, Some([-1.0, 1.0, -2.0, 2.0]));
        let axes = sets[0].axes.clone().unwrap();
        assert_eq!(axes[1], ("omega2".to_string(), "rad s-1".to_string()));
        // The default time is t_max; flip_link labels by the first link to flip.
        let sets = map_labels(
            &m,
            Some("flip_link"),
            &[],
            Some([0.0, 1.0, 0.0, 1.0]),
            "f.h5",
        )
        .unwrap();
        assert_eq!(sets[0].grid.values, [0, 1, 2, 3]);
        assert_eq!(sets[0].extent, Some([0.0, 1.0, 0.0, 1.0]));
        assert!(sets[0]
            .source
            .starts_with("flip_link of f.h5: first link to flip"));
    }

    #[test]
    fn bad_choices_name_the_option_in_each_spelling() {
        let (class, steps, links) = ([0u8, 1, 1, 1], [0, 2, 6, 8], [0u8, 1, 2, 3]);
        let m = flip_map(&class, &steps, &links);
        let e = spelt(
            map_labels(&m, Some("attractor"), &[], None, "f.h5").unwrap_err(),
            true,
        );
        assert!(e.starts_with("--variable: `attractor` is not a label variable of this flip-time map (expected flip_step, flip_link, class)"), "{e}");
        let e = spelt(
            map_labels(&m, Some("class"), &[1.0], None, "the map Dataset").unwrap_err(),
            false,
        );
        assert!(e.starts_with("flip_before: thresholds"), "{e}");
        let e = spelt(
            map_labels(&m, None, &[4.5], None, "f.h5").unwrap_err(),
            true,
        );
        assert_eq!(e, "--flip-before: 4.5 must be in (0, t_max = 4 s]");
        // Nothing flipped by 0.5 s: one label only.
        let e = spelt(
            map_labels(&m, None, &[0.5], None, "f.h5").unwrap_err(),
            true,
        );
        assert!(
            e.starts_with("f.h5 --variable flip_step (flipped by t = 0.5 s): "),
            "{e}"
        );
        let incomplete = MapGrids {
            complete: false,
            ..m
        };
        let e = spelt(
            map_labels(&incomplete, None, &[], None, "the map Dataset").unwrap_err(),
            false,
        );
        assert!(
            e.starts_with("measure: the map Dataset is incomplete"),
            "{e}"
        );
        let no_flips = MapGrids {
            flip_step: &[],
            ..m
        };
        let e = spelt(
            map_labels(&no_flips, None, &[], None, "d").unwrap_err(),
            false,
        );
        assert_eq!(
            e,
            "variable: flip_step needs the map's flip_step and flip_link"
        );
        let e = refusal(
            Stage::Uncertainty,
            &MeasureError::Option("too big".into()),
            "s",
        )
        .render(&cli);
        assert_eq!(
            e,
            format!("--max-eps: {}", MeasureError::Option("too big".into()))
        );
        let e = refusal(Stage::Entropy, &MeasureError::Option("x".into()), "s").to_string();
        assert!(e.starts_with("entropy_eps: "), "{e}");
    }

    #[test]
    fn label_grids_given_as_they_are_are_checked_once_for_every_front_end() {
        let e = grid_shape("array", &[8], &ValueType::Integer).unwrap_err();
        assert_eq!(
            e.render(&cli),
            "--labels: array is 1-D (shape [8]); labels must be a 2-D grid"
        );
        let e = grid_shape("dataset /d", &[2, 2], &ValueType::Float).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("labels: dataset /d holds floating-point"));
        let e = grid_shape("array", &[2, 2], &ValueType::Other("<U1".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "labels: array has type <U1; labels must be integers"
        );
        assert_eq!(
            grid_shape("array", &[2, 3], &ValueType::Integer),
            Ok((3, 2))
        );
        assert_eq!(grid_values("array", [1, -2]), Ok(vec![1, -2]));
        let e = grid_values("array", [1 << 40]).unwrap_err();
        assert!(e.to_string().ends_with("beyond the 32-bit range"), "{e}");
        let e = grid(2, 1, &[3, 3], Some("f.h5:/d")).unwrap_err();
        assert!(e.render(&cli).starts_with("--labels f.h5:/d: "), "{e}");
        assert!(grid(2, 1, &[3, 3], None)
            .unwrap_err()
            .to_string()
            .starts_with("labels: "));
        let e = grid_takes_no_map_options(true, true).unwrap_err();
        assert_eq!(
            e.render(&cli),
            "--variable: applies to a map's label variables, not to a grid given as --labels"
        );
        let e = grid_takes_no_map_options(false, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flip_before: thresholds a flip-time map, not a grid given as labels"
        );
        assert!(grid_takes_no_map_options(false, false).is_ok());
        assert_eq!(map_kind("final-state"), Ok(MapKindId::FinalState));
        assert!(map_kind("x")
            .unwrap_err()
            .to_string()
            .starts_with("kind: unknown map kind `x`"));
        assert_eq!(
            not_a_map("the Dataset", "kind").to_string(),
            "labels: the Dataset is not a map of pendula map (no kind)"
        );
    }

    #[test]
    fn attractors_tell_turns_and_windings_apart() {
        // One link; aux columns per pixel: final_angle, turns, rotation.
        let eq = label::EQUILIBRIUM;
        let p1 = label::PERIODIC + 1;
        let class = [eq, eq, p1, p1, label::UNSETTLED, eq];
        let aux = [
            0.0,
            0.0,
            f64::NAN, // rest, no turn
            0.0,
            1.0,
            f64::NAN, // rest after one turn
            0.3,
            0.0,
            1.0, // rotating once per period
            0.3,
            0.0,
            0.0, // oscillating
            0.0,
            0.0,
            0.0, // unsettled
            0.0,
            0.0,
            f64::NAN, // rest, no turn: same as the first
        ];
        let (labels, names) = attractor_labels(&class, &aux, 1);
        assert_eq!(labels[0], labels[5]);
        let distinct: std::collections::BTreeSet<i32> = labels.iter().copied().collect();
        assert_eq!(distinct.len(), 5, "{labels:?} {names:?}");
        assert_eq!(names[0], "0 = unsettled");
        assert!(
            names.iter().any(|n| n.ends_with("period 1 winding [1]")),
            "{names:?}"
        );
        let m = MapGrids {
            kind: MapKindId::FinalState,
            class: &class,
            width: 3,
            height: 2,
            flip_step: &[],
            flip_link: &[],
            attractor: Some((&aux, 1)),
            ..flip_map(&[], &[], &[])
        };
        let sets = map_labels(&m, Some("attractor"), &[], None, "b.h5").unwrap();
        assert_eq!(sets[0].grid.values.len(), 5);
        assert!(sets[0]
            .source
            .contains("numbered in sorted order: 0 = unsettled"));
        // Without the aux columns (the Python package) only class is offered.
        let e = spelt(
            map_labels(
                &MapGrids {
                    attractor: None,
                    ..m
                },
                Some("attractor"),
                &[],
                None,
                "d",
            )
            .unwrap_err(),
            false,
        );
        assert!(e.ends_with("(expected class)"), "{e}");
    }

    #[test]
    fn scales_must_be_finite_monotonic_and_linear() {
        let lin: Vec<f64> = (0..64).map(|i| 0.5 - i as f64 / 63.0).collect();
        assert_eq!(scale_problem(&lin), None, "decreasing and linear is fine");
        let mut nonmono: Vec<f64> = (0..64).map(f64::from).collect();
        nonmono.swap(10, 11);
        let mut zero_end: Vec<f64> = (0..64).map(|i| 1.0 + f64::from(i)).collect();
        zero_end[63] = 0.0;
        let log: Vec<f64> = (0..64).map(|i| 10f64.powf(f64::from(i) / 21.0)).collect();
        let mut nan = lin.clone();
        nan[3] = f64::NAN;
        for (c, why) in [
            (nonmono, "not strictly monotonic"),
            (zero_end, "not strictly monotonic"),
            (vec![2.0; 64], "not strictly monotonic"),
            (log, "not evenly spaced"),
            (nan, "holds NaN"),
            (vec![-f64::MAX, f64::MAX], "beyond binary64"),
        ] {
            let p = scale_problem(&c).unwrap_or_default();
            assert!(p.contains(why), "{p}");
        }
    }

    #[test]
    fn repeats_are_found_in_one_pass() {
        assert_eq!(repeated(&[1.0, 2.0, 3.0]), None);
        assert_eq!(repeated(&[0.0, 1.0, -0.0]), Some(-0.0));
        assert_eq!(repeated(&[f64::NAN, f64::NAN]), None);
        let many: Vec<f64> = (0..100_000).map(f64::from).chain([5.0]).collect();
        assert_eq!(repeated(&many), Some(5.0));
    }

    #[test]
    fn repeated_flip_times_are_refused() {
        let (class, steps, links) = ([0u8; 4], [0, 2, 6, 8], [0u8, 1, 2, 3]);
        let m = flip_map(&class, &steps, &links);
        let e = map_labels(&m, None, &[1.0, 2.0, 1.0], None, "f.h5").unwrap_err();
        assert_eq!(e.field(), "flip_before");
        assert!(e.to_string().contains("1 is given twice"), "{e}");
    }
}
