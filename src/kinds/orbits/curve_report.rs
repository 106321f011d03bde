//! A curve run's part of the JSON summary and the text report ([`super::report`]): per curve
//! its kind, start, points, how it ended, the parameter ranges it covers and its
//! codimension-2 points; the bifurcations not continued, with why; the chart's shading counts.

use super::curves::{ContinuedCurve, Curves};
use super::table::OrbitsRun;
use serde_json::{json, Value};
use std::fmt::Write;

/// [min, max] of a curve's parameter `k` (0: p₁, 1: p₂).
fn covered(k: &ContinuedCurve, i: usize) -> [f64; 2] {
    k.curve
        .points
        .iter()
        .map(|p| p.parameters[i])
        .fold([f64::INFINITY, f64::NEG_INFINITY], |[lo, hi], v| {
            [lo.min(v), hi.max(v)]
        })
}

/// The chart's nodes: (stable, unstable, unknown).
fn shaded(c: &Curves) -> Option<(usize, usize, usize)> {
    c.chart.as_ref().map(|ch| {
        ch.stability.iter().fold((0, 0, 0), |(s, u, n), x| match x {
            Some(st) if st.is_stable() => (s + 1, u, n),
            Some(_) => (s, u + 1, n),
            None => (s, u, n + 1),
        })
    })
}

/// The summary's `curves`, `not_continued` and `chart`.
pub(super) fn json(run: &OrbitsRun, c: &Curves) -> Value {
    let p2 = run.curve.as_ref().map(|s| &s.parameter2);
    let curves: Vec<Value> = c
        .curves
        .iter()
        .map(|k| {
            json!({
                "kind": k.curve.kind.name(),
                "start": {
                    "kind": k.start.kind.name(),
                    "index": k.start.index,
                    "parameter": k.start.parameter,
                },
                "points": k.curve.points.len(),
                "ended": k.curve.ended,
                "parameter1_range": covered(k, 0),
                "parameter2_range": covered(k, 1),
                "codim2": k.curve.codim2.iter().map(|x| json!({
                    "kind": x.kind,
                    "parameters": x.parameters,
                    "parameters_error": x.uncertainty,
                    "arclength": x.arclength,
                    "test": x.test,
                    "stops": x.stops,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut v = json!({
        "parameter2": p2.map(|p| &p.name),
        "parameter2_units": p2.map(|p| &p.units),
        "parameter2_start": run.curve.as_ref().map(|s| s.start2),
        "branch_file": c.branch_file,
        "curves": curves,
        "not_continued": c.not_continued.iter().map(|n| json!({
            "kind": n.start.kind.name(),
            "index": n.start.index,
            "parameter": n.start.parameter,
            "why": n.why,
        })).collect::<Vec<_>>(),
    });
    if let Some((s, u, n)) = shaded(c) {
        let ch = c.chart.as_ref().expect("shaded");
        v["chart"] = json!({
            "nodes": [ch.p1.len(), ch.p2.len()],
            "stable": s,
            "unstable": u,
            "unknown": n,
        });
    }
    v
}

/// The report's lines of the curves.
pub(super) fn table(s: &mut String, run: &OrbitsRun, c: &Curves) {
    let p1 = run.parameter.as_ref().map_or("", |p| p.name.as_str());
    let p2 = run
        .curve
        .as_ref()
        .map_or("", |x| x.parameter2.name.as_str());
    if let Some(f) = &c.branch_file {
        let _ = writeln!(s, "bifurcations from {f}");
    }
    for (i, k) in c.curves.iter().enumerate() {
        let (a, b) = (covered(k, 0), covered(k, 1));
        let _ = writeln!(
            s,
            "curve {}: {} from {}:{} at {p1} = {:.12}: {} points, {p1} in [{:.9}, {:.9}], {p2} in [{:.9}, {:.9}], ended: {}",
            i + 1,
            k.curve.kind.name(),
            k.start.kind.name(),
            k.start.index,
            k.start.parameter,
            k.curve.points.len(),
            a[0],
            a[1],
            b[0],
            b[1],
            k.curve.ended
        );
        for x in &k.curve.codim2 {
            let _ = writeln!(
                s,
                "  codim-2 {} at {p1} = {:.12} ± {:.1e}, {p2} = {:.12} ± {:.1e} (arclength {:.6}){}",
                x.kind,
                x.parameters[0],
                x.uncertainty[0],
                x.parameters[1],
                x.uncertainty[1],
                x.arclength,
                if x.stops { ", where the curve ends" } else { "" }
            );
        }
    }
    for n in &c.not_continued {
        let _ = writeln!(
            s,
            "not continued: {}:{} at {p1} = {:.12}: {}",
            n.start.kind.name(),
            n.start.index,
            n.start.parameter,
            n.why
        );
    }
    if let Some((st, un, unknown)) = shaded(c) {
        let ch = c.chart.as_ref().expect("shaded");
        let _ = writeln!(
            s,
            "stability chart: {} × {} nodes, {st} stable, {un} unstable, {unknown} not known",
            ch.p1.len(),
            ch.p2.len()
        );
    }
}
