//! A curve run's part of group `orbits` ([`super::record`]): each bifurcation curve as group
//! `curve_K` (one row per point over `point`, like a branch's `branch_K`), its located
//! codimension-2 points as its subgroup `codim2`, the bifurcations that got no curve as
//! `not_continued`, and the stability chart's shading as `chart`.

use super::curves::{Chart, ContinuedCurve, Curves, NotContinued};
use super::table::OrbitsRun;
use crate::analysis::periodic::Codim2;
use crate::finding::{Attr, Record};
use ndarray::Array2;

/// The stability codes of `stability` variables, as CF flag meanings (record.rs's).
const STABILITY_MEANINGS: &str = "stable unstable elliptic hyperbolic complex_unstable";
/// A chart node whose stability is not known.
pub const UNKNOWN: u8 = 255;
/// The bifurcation kinds, as CF flag meanings (record.rs's).
const KIND_MEANINGS: &str = "fold branch_point period_doubling neimark_sacker krein_collision";

/// The curves, the not continued bifurcations and the chart of `c` into `g`.
pub(super) fn write_curves(g: &mut Record, run: &OrbitsRun, c: &Curves) {
    let Some(spec) = run.curve.as_ref() else {
        return;
    };
    let p1 = run.parameter.as_ref().expect("a curve run has p₁");
    let p2 = &spec.parameter2;
    g.attr("parameter2", p2.name.as_str())
        .attr("parameter2_long_name", p2.long_name.as_str())
        .attr("parameter2_units", p2.units.as_str())
        .attr("parameter2_start", spec.start2)
        .attr("bifurcation", spec.selection.name())
        .attr("curves", c.curves.len() as i64);
    if let Some(f) = &c.branch_file {
        g.attr("branch_file", f.as_str());
    }
    let names = Names {
        p1: (&p1.name, &p1.long_name, &p1.units),
        p2: (&p2.name, &p2.long_name, &p2.units),
    };
    for (i, k) in c.curves.iter().enumerate() {
        let mut cg = Record::new(format!("curve_{}", i + 1));
        write_curve(&mut cg, k, &names);
        g.group(cg);
    }
    if !c.not_continued.is_empty() {
        let mut ng = Record::new("not_continued");
        write_not_continued(&mut ng, &c.not_continued, &names);
        g.group(ng);
    }
    if let Some(chart) = &c.chart {
        let mut cg = Record::new("chart");
        write_chart(&mut cg, chart, &names);
        g.group(cg);
    }
}

/// Each parameter's (name, long name, units).
struct Names<'a> {
    p1: (&'a str, &'a str, &'a str),
    p2: (&'a str, &'a str, &'a str),
}

/// One curve: its start, how it ended, and per point both parameters, the arclength, the
/// period, the multipliers, the test functions and the stability.
fn write_curve(g: &mut Record, k: &ContinuedCurve, names: &Names<'_>) {
    let pts = &k.curve.points;
    let p = pts.len();
    g.attr("kind", k.curve.kind.name())
        .attr("ended", k.curve.ended.as_str())
        .attr("start_kind", k.start.kind.name())
        .attr("start_index", k.start.index as i64)
        .attr("start_parameter", k.start.parameter)
        .attr("parameter1", names.p1.0.to_string())
        .attr("parameter2", names.p2.0.to_string());
    g.index("point", p, "point along the curve, in arclength order");
    let col = |f: &dyn Fn(&crate::analysis::periodic::CurvePoint) -> f64| -> Vec<f64> {
        pts.iter().map(f).collect()
    };
    for (name, idx, (_, long, units)) in [("parameter1", 0, names.p1), ("parameter2", 1, names.p2)]
    {
        g.var(
            name,
            &["point"],
            col(&|q| q.parameters[idx]).as_slice(),
            units.to_string(),
            long.to_string(),
        );
    }
    let vars: [(&str, Vec<f64>, &str, &str); 7] = [
        (
            "arclength",
            col(&|q| q.arclength),
            "1",
            "pseudo-arclength from the curve's start (negative: the half walked towards decreasing parameter2)",
        ),
        ("period", col(&|q| q.orbit.period), "s", "period of the orbit"),
        (
            "test",
            col(&|q| q.test),
            "1",
            "the continued test function g of the bordered M - sigma I, or of the bialternate product M.M - I on a Neimark-Sacker curve (zero on the curve)",
        ),
        ("fold_test", col(&|q| q.fold_test), "1", "det(M - I)"),
        ("flip_test", col(&|q| q.flip_test), "1", "det(M + I)"),
        (
            "regularity",
            col(&|q| q.regularity),
            "1",
            "reciprocal condition of the bordered matrix (the test function's regularity; near 0: lost)",
        ),
        (
            "kappa",
            col(&|q| q.kappa.unwrap_or(f64::NAN)),
            "1",
            "kappa = cos(theta) of the multiplier pair e^(+-i theta) on a Neimark-Sacker curve (NaN on the others)",
        ),
    ];
    for (name, v, units, long) in vars {
        g.var(name, &["point"], v.as_slice(), units, long);
    }
    let stab: Vec<u8> = pts.iter().map(|q| q.stability.code()).collect();
    g.var(
        "stability",
        &["point"],
        stab.as_slice(),
        "1",
        "stability of the orbit on the curve",
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3, 4]))
    .var_attr("flag_meanings", STABILITY_MEANINGS);
    let m = pts
        .iter()
        .map(|q| q.orbit.floquet.multipliers.len())
        .max()
        .unwrap_or(0);
    g.index(
        "multiplier",
        m,
        "non-trivial Floquet multiplier, by modulus, largest first",
    );
    let mu = |i: usize, j: usize, re: bool| {
        pts[i]
            .orbit
            .floquet
            .multipliers
            .get(j)
            .map_or(f64::NAN, |x| if re { x.re } else { x.im })
    };
    for (name, re) in [("multiplier_real", true), ("multiplier_imag", false)] {
        g.var(
            name,
            &["point", "multiplier"],
            Array2::from_shape_fn((p, m), |(i, j)| mu(i, j, re)),
            "1",
            if re {
                "real part of the Floquet multiplier"
            } else {
                "imaginary part of the Floquet multiplier"
            },
        );
    }
    let mut cg = Record::new("codim2");
    write_codim2(&mut cg, &k.curve.codim2, names);
    g.group(cg);
}

/// The codimension-2 points of one curve: one row each over `codim2_point` (kind, both
/// parameters with their error bars, arclength, the test function there, whether the curve
/// ends there).
fn write_codim2(g: &mut Record, points: &[Codim2], names: &Names<'_>) {
    g.attr(
        "kinds",
        points.iter().map(|c| c.kind).collect::<Vec<_>>().join(" "),
    );
    g.index(
        "codim2_point",
        points.len(),
        "codimension-2 point, in arclength order (its kind: attribute kinds, one word each)",
    );
    for (name, err, idx, (_, long, units)) in [
        ("parameter1", "parameter1_error", 0, names.p1),
        ("parameter2", "parameter2_error", 1, names.p2),
    ] {
        let v: Vec<f64> = points.iter().map(|c| c.parameters[idx]).collect();
        g.var(
            name,
            &["codim2_point"],
            v.as_slice(),
            units.to_string(),
            long.to_string(),
        );
        let e: Vec<f64> = points.iter().map(|c| c.uncertainty[idx]).collect();
        g.var(
            err,
            &["codim2_point"],
            e.as_slice(),
            units.to_string(),
            format!("{long}: its change across the location's final bracket"),
        );
    }
    let test: Vec<f64> = points.iter().map(|c| c.test).collect();
    g.var(
        "test",
        &["codim2_point"],
        test.as_slice(),
        "1",
        "the located test function's value there",
    );
    let stops: Vec<u8> = points.iter().map(|c| u8::from(c.stops)).collect();
    g.var(
        "stops",
        &["codim2_point"],
        stops.as_slice(),
        "1",
        "1 where the curve ends at the point (1:1 or 1:2)",
    );
    let arc: Vec<f64> = points.iter().map(|c| c.arclength).collect();
    g.var(
        "arclength",
        &["codim2_point"],
        arc.as_slice(),
        "1",
        "where on the curve (its arclength)",
    );
}

/// The selected bifurcations without a curve: kind, index, p₁; why in attribute `why` (one
/// line each, joined by newlines).
fn write_not_continued(g: &mut Record, n: &[NotContinued], names: &Names<'_>) {
    g.index(
        "bifurcation",
        n.len(),
        "selected bifurcation without a curve",
    );
    let kind: Vec<u8> = n.iter().map(|x| x.start.kind as u8).collect();
    g.var("kind", &["bifurcation"], kind.as_slice(), "1", "its kind")
        .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3, 4]))
        .var_attr("flag_meanings", KIND_MEANINGS);
    let index: Vec<i64> = n.iter().map(|x| x.start.index as i64).collect();
    g.var(
        "index",
        &["bifurcation"],
        index.as_slice(),
        "1",
        "its count among the located bifurcations of its kind, along the branch",
    );
    let p: Vec<f64> = n.iter().map(|x| x.start.parameter).collect();
    g.var(
        "parameter1",
        &["bifurcation"],
        p.as_slice(),
        names.p1.2.to_string(),
        names.p1.1.to_string(),
    );
    g.attr(
        "why",
        n.iter()
            .map(|x| x.why.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

/// The chart's shading: the stability code at each node over (parameter2, parameter1), 255
/// where not known.
fn write_chart(g: &mut Record, c: &Chart, names: &Names<'_>) {
    g.attr("jump_tolerance", super::curves::CHART_JUMP);
    g.coord(
        "parameter1",
        c.p1.as_slice(),
        names.p1.2.to_string(),
        names.p1.1.to_string(),
    );
    g.coord(
        "parameter2",
        c.p2.as_slice(),
        names.p2.2.to_string(),
        names.p2.1.to_string(),
    );
    let (n1, n2) = (c.p1.len(), c.p2.len());
    let codes = Array2::from_shape_fn((n2, n1), |(j, i)| {
        c.stability[j * n1 + i].map_or(UNKNOWN, |s| s.code())
    });
    g.var(
        "stability",
        &["parameter2", "parameter1"],
        codes,
        "1",
        "stability of the continued orbit solved at the node from the nearest curve point's orbit (255: not known: Newton failed or found another orbit)",
    )
    .var_attr("flag_values", Attr::U8s(vec![0, 1, 2, 3, 4, UNKNOWN]))
    .var_attr("flag_meanings", format!("{STABILITY_MEANINGS} unknown"));
}
