//! The `sweep` group of a sweep's result file: one row per point over the dimension `sweep`.
//! With one swept field the `sweep` coordinate holds its values; with several it numbers the
//! points, and each field is a variable over `sweep` named after it (`model_link_2_mass`),
//! listed in every result's CF `coordinates` attribute so that xarray makes it a coordinate.
//! Each result is a variable over `sweep` (and its own trailing dimension: `exponent`, `link`,
//! `shell`, …), with `<name>_standard_error` beside it where the analysis gives one.

use super::{GroupWriter, StoreError};
use crate::run::sweep::SweepOutcome;
use ndarray::{Array1, Array2};

/// Writes `o` into `g`.
pub fn write_sweep(g: &GroupWriter<'_>, o: &SweepOutcome<'_>) -> Result<(), StoreError> {
    let plan = o.plan;
    let n = o.points.len();
    let params: Vec<&str> = plan.axes.iter().map(|a| a.parameter.as_str()).collect();
    g.attr_str("kind", o.spec.analysis.kind())?
        .attr_str("parameters", &params.join(" "))?
        .attr_str("combine", plan.combine.name())?
        .attr_i64("points", n as i64)?;
    if let Some(d) = &o.directory {
        g.attr_str(
            "point_files",
            &d.join("point-NNNNN.h5").display().to_string(),
        )?;
    }
    if let [axis] = plan.axes.as_slice() {
        let v: Vec<f64> = plan.points.iter().map(|p| p.values[0]).collect();
        g.coord(
            "sweep",
            &v,
            &axis.units,
            &format!("{} of each sweep point", axis.parameter),
        )?
        .attr_str("parameter", &axis.parameter)?;
    } else {
        let index: Vec<i64> = (1..=n as i64).collect();
        g.coord_i64(
            "sweep",
            &index,
            "1",
            "sweep point (see the swept fields' variables)",
        )?;
    }
    let mut coordinates = Vec::new();
    for (i, axis) in plan.axes.iter().enumerate() {
        let name = axis.variable();
        let v: Vec<f64> = plan.points.iter().map(|p| p.values[i]).collect();
        g.var(
            &name,
            &["sweep"],
            &Array1::from(v),
            &axis.units,
            &format!("{} of each sweep point", axis.parameter),
        )?
        .attr_str("parameter", &axis.parameter)?;
        coordinates.push(name);
    }
    let coordinates = coordinates.join(" ");
    let mut dims_written: Vec<(String, usize)> = Vec::new();
    for col in o.columns() {
        let width = col.dim.as_ref().map_or(1, |(_, c)| c.len());
        let (values, errors) = o.table(&col.name, width);
        let put = |name: &str, data: Vec<f64>, long: String| -> Result<(), StoreError> {
            let var = match &col.dim {
                None => g.var(name, &["sweep"], &Array1::from(data), &col.units, &long)?,
                Some((dim, _)) => {
                    let a = Array2::from_shape_vec((n, width), data).expect("shape");
                    g.var(name, &["sweep", dim], &a, &col.units, &long)?
                }
            };
            var.attr_str("coordinates", &coordinates)?;
            Ok(())
        };
        if let Some((dim, index)) = &col.dim {
            match dims_written.iter().find(|(d, _)| d == dim) {
                Some((_, len)) if *len != index.len() => {
                    return Err(StoreError::Dims {
                        var: col.name.clone(),
                        what: format!("its dimension {dim} has {} entries, not {len}", index.len()),
                    })
                }
                Some(_) => {}
                None => {
                    g.coord_i64(dim, index, "1", &format!("{dim} index"))?;
                    dims_written.push((dim.clone(), index.len()));
                }
            }
        }
        put(&col.name, values, col.long_name.clone())?;
        if col.errors.is_some() {
            put(
                &format!("{}_standard_error", col.name),
                errors,
                format!("standard error of {}", col.name),
            )?;
        }
    }
    Ok(())
}
