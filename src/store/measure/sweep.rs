//! Group `measure` of a sweep: the (sweep, set) tables of every measure with its bounds, and
//! each point's full sets laid out as a single map's.

use super::{bounded_vars, options_attrs, set_record, Bounded, Part};
use crate::analysis::measure::{BasinEntropy, MeasureOptions, MeasuredSet};
use crate::finding::Record;
use ndarray::Array2;

/// A measure sweep: the spec field varied, its units and values, and every point's sets (each
/// point holds the same sets: one per flip time, or the one label grid).
#[derive(Debug, Clone)]
pub struct SweepRun<'a> {
    pub parameter: &'a str,
    pub units: &'a str,
    pub values: &'a [f64],
    pub points: &'a [Vec<MeasuredSet>],
}

/// Group `measure` of a sweep: the options and `sweep_parameter` as attributes, the
/// coordinates `sweep` (the parameter's values, in its units) and `set`, and over
/// (sweep, set) every measure with its 95 % bounds (`*_lo`, `*_hi`; NaN where not measured),
/// S_b and S_bb also over `eps`; each point's full sets in `point_<k>/set_<j>` (k, j from 1).
pub fn sweep_record(opts: &MeasureOptions, run: &SweepRun<'_>) -> Record {
    let mut g = Record::new("measure");
    let sets = run.points.first().map_or(0, Vec::len);
    options_attrs(&mut g, opts, sets);
    g.attr("sweep_parameter", run.parameter)
        .attr("points", run.points.len() as i64);
    g.coord(
        "sweep",
        run.values,
        run.units.to_string(),
        format!("{} of each sweep point", run.parameter),
    );
    let set_index: Vec<i64> = (1..=sets as i64).collect();
    g.coord("set", set_index, "1", "label set (point_<k>/set_<j>)");
    sweep_tables(&mut g, run, sets);
    sweep_entropy(&mut g, run, sets);
    for (k, p) in run.points.iter().enumerate() {
        let mut pg = Record::new(format!("point_{}", k + 1));
        pg.attr("sweep_value", run.values[k]);
        for (j, s) in p.iter().enumerate() {
            pg.group(set_record(format!("set_{}", j + 1), s));
        }
        g.group(pg);
    }
    g
}

/// The (sweep, set) tables of the measures taken once per set: D and α with their 95 %
/// bounds, then the derived and Wada columns and the label count.
fn sweep_tables(g: &mut Record, run: &SweepRun<'_>, sets: usize) {
    let np = run.points.len();
    let table = |f: &dyn Fn(&MeasuredSet) -> Option<f64>| {
        Array2::from_shape_fn((np, sets), |(i, j)| {
            run.points[i].get(j).and_then(f).unwrap_or(f64::NAN)
        })
    };
    // Each measure with its 95 % interval: value, `_lo`, `_hi`, in that order.
    type GetB = fn(&MeasuredSet) -> Option<Bounded>;
    let bounded: [(&str, &str, &str, GetB); 2] = [
        (
            "box_dimension",
            "D",
            "box-counting dimension D of the boundary",
            |s| s.measures.boundary.as_ref().map(|b| (b.dimension, b.ci)),
        ),
        ("alpha", "α", "uncertainty exponent α", |s| {
            s.measures.uncertainty.as_ref().map(|u| (u.alpha, u.ci))
        }),
    ];
    for (name, symbol, what, f) in bounded {
        for (name, what, part) in with_bounds(name, symbol, what) {
            g.var(
                name,
                &["sweep", "set"],
                table(&|s| f(s).map(part)),
                "1",
                what,
            );
        }
    }
    type Get = fn(&MeasuredSet) -> Option<f64>;
    let rows: [(&str, Get, &str); 4] = [
        (
            "uncertainty_dimension",
            |s| s.measures.uncertainty.as_ref().map(|u| u.dimension),
            "D = 2 − α",
        ),
        (
            "wada_fraction",
            |s| {
                s.measures
                    .wada
                    .as_ref()
                    .and_then(|w| w.fraction.last().copied())
            },
            "W(r) at the largest radius: boundary points near every label",
        ),
        (
            "wada",
            |s| {
                s.measures
                    .wada
                    .as_ref()
                    .map(|w| f64::from(u8::from(w.wada)))
            },
            "1 when the Wada test passed, 0 when not (NaN: not tested)",
        ),
        (
            "labels",
            |s| Some(s.labels.len() as f64),
            "distinct labels in the grid",
        ),
    ];
    for (name, f, what) in rows {
        g.var(name, &["sweep", "set"], table(&f), "1", what);
    }
}

/// S_b and S_bb with their bounds over (sweep, set, eps), and the `eps` coordinate (the first
/// set's box sides; every point measures the same); nothing when no entropy was measured.
fn sweep_entropy(g: &mut Record, run: &SweepRun<'_>, sets: usize) {
    let np = run.points.len();
    let eps: Vec<usize> = run
        .points
        .first()
        .and_then(|p| p.first())
        .map(|s| s.measures.entropy.iter().map(|e| e.eps).collect())
        .unwrap_or_default();
    if !eps.is_empty() {
        let e: Vec<i64> = eps.iter().map(|&v| v as i64).collect();
        g.coord("eps", e, "1", "box side of the basin entropy in pixels");
        type GetE = fn(&BasinEntropy) -> Bounded;
        let cols: [(&str, &str, &str, GetE); 2] = [
            ("sb", "S_b", "basin entropy S_b", |e| (e.sb, e.sb_ci)),
            ("sbb", "S_bb", "boundary basin entropy S_bb", |e| {
                (e.sbb, e.sbb_ci)
            }),
        ];
        for (name, symbol, what, f) in cols {
            for (name, what, part) in with_bounds(name, symbol, what) {
                let a = ndarray::Array3::from_shape_fn((np, sets, eps.len()), |(i, j, k)| {
                    run.points[i]
                        .get(j)
                        .and_then(|s| s.measures.entropy.get(k))
                        .map_or(f64::NAN, |e| part(f(e)))
                });
                g.var(name, &["sweep", "set", "eps"], a, "1", what);
            }
        }
    }
}

/// The sweep table's three variables of a measure `name` (`symbol` in the bounds' long
/// names): the value, `<name>_lo` and `<name>_hi`, each with its long name and its part of
/// [`Bounded`].
fn with_bounds(name: &str, symbol: &str, what: &str) -> [Part; 3] {
    bounded_vars(name, what, |end| {
        let short = if end == "lower" { "lo" } else { "hi" };
        (
            format!("{name}_{short}"),
            format!("{end} 95 % bound of {symbol}"),
        )
    })
}
