//! What the measures of label grids say in the JSON summary and the text report (the
//! command's and a measure sweep's).

use crate::analysis::measure::{self, MeasuredSet};
use crate::format::f64_json;
use serde_json::json;

/// Whether a set has nothing to draw (no measure with a curve; a skipped Wada test).
pub fn no_curve(s: &MeasuredSet) -> bool {
    let m = &s.measures;
    m.boundary.is_none() && m.uncertainty.is_none() && m.entropy.is_empty() && m.wada.is_none()
}

/// An interval as a JSON pair (non-finite ends as null).
pub fn pair(p: (f64, f64)) -> serde_json::Value {
    json!([f64_json(p.0), f64_json(p.1)])
}

/// One measured grid's part of the JSON summary (also a sweep point's).
pub fn set_json(s: &MeasuredSet) -> serde_json::Value {
    let m = &s.measures;
    let mut v = json!({
        "source": s.source,
        "width": s.nx,
        "height": s.ny,
        "extent": s.extent,
        "labels": s.labels.iter().map(|(l, c)| json!({"label": l, "pixels": c})).collect::<Vec<_>>(),
    });
    if let Some(b) = &m.boundary {
        v["boundary_dimension"] = json!({
            "dimension": f64_json(b.dimension),
            "ci": pair(b.ci),
            "box_sizes_px": b.sizes,
            "box_counts": b.counts,
            "slope_se": f64_json(b.fit.slope_se),
            "range_sensitivity": f64_json(b.range_sensitivity),
            "intercept": f64_json(b.fit.intercept),
            "scaling_range_px": [b.sizes.first(), b.sizes.last()],
            "scaling_rule": measure::BOX_RULE,
            "ci_method": measure::BOX_CI,
            "shifts": b.shift_counts.len(),
            "shift_slopes": b.shift_slopes,
        });
    }
    if let Some(u) = &m.uncertainty {
        v["uncertainty_exponent"] = json!({
            "alpha": f64_json(u.alpha),
            "ci": pair(u.ci),
            "dimension": f64_json(u.dimension),
            "dimension_ci": pair(u.dimension_ci),
            "eps_px": u.eps,
            "fraction": u.fraction,
            "tested_pixels": u.tested,
            "slope_se": f64_json(u.fit.slope_se),
            "range_sensitivity": f64_json(u.range_sensitivity),
            "scaling_rule": measure::UNCERTAINTY_RULE,
        });
    }
    if !m.entropy.is_empty() {
        v["basin_entropy"] = m
            .entropy
            .iter()
            .map(|e| {
                json!({
                    "eps_px": e.eps, "sb": f64_json(e.sb), "sb_ci": pair(e.sb_ci),
                    "sbb": f64_json(e.sbb), "sbb_ci": pair(e.sbb_ci),
                    "fractal_by_log2": e.fractal_by_log2,
                    "boxes": e.shift_values.first().map(|s| s.2),
                    "boundary_boxes": e.shift_values.first().map(|s| s.3),
                })
            })
            .collect::<Vec<_>>()
            .into();
    }
    if let Some(w) = &m.wada {
        v["wada"] = json!({
            "labels": w.labels, "radii_px": w.radii, "boundary_points": w.boundary_points,
            "wada_points": w.wada_points, "fraction": w.fraction, "wada": w.wada,
        });
    } else if let Some(why) = &m.wada_skipped {
        v["wada_skipped"] = json!(why);
    }
    v
}

/// The text report of measured grids, one block per grid, then the wall time.
pub fn table(sets: &[MeasuredSet], wall: f64) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for (k, set) in sets.iter().enumerate() {
        let m = &set.measures;
        let _ = writeln!(
            s,
            "set {}: {} ({}x{}, {} labels)",
            k + 1,
            set.source,
            set.nx,
            set.ny,
            set.labels.len()
        );
        if let Some(b) = &m.boundary {
            let _ = writeln!(
                s,
                "  box-counting dimension D = {:.4}  95% [{:.4}, {:.4}]  (boxes {}..{} px, {} shifts)",
                b.dimension, b.ci.0, b.ci.1, b.sizes[0], b.sizes[b.sizes.len() - 1], b.shift_counts.len()
            );
        }
        if let Some(u) = &m.uncertainty {
            let _ = writeln!(
                s,
                "  uncertainty exponent α = {:.4}  95% [{:.4}, {:.4}]  →  D = 2 − α = {:.4}  (ε = 1..{} px)",
                u.alpha, u.ci.0, u.ci.1, u.dimension, u.eps.len()
            );
        }
        for e in &m.entropy {
            let _ = writeln!(
                s,
                "  ε = {:>3} px: S_b = {:.4} [{:.4}, {:.4}], S_bb = {:.4} [{:.4}, {:.4}]{}",
                e.eps,
                e.sb,
                e.sb_ci.0,
                e.sb_ci.1,
                e.sbb,
                e.sbb_ci.0,
                e.sbb_ci.1,
                if e.fractal_by_log2 {
                    "  > ln 2: fractal"
                } else {
                    ""
                }
            );
        }
        if let Some(w) = &m.wada {
            let _ = writeln!(
                s,
                "  Wada test: W(r) = {:?} for r = {:?} px → {}",
                w.fraction
                    .iter()
                    .map(|f| (f * 1e4).round() / 1e4)
                    .collect::<Vec<_>>(),
                w.radii,
                if w.wada { "Wada" } else { "not Wada" }
            );
        } else if let Some(why) = &m.wada_skipped {
            let _ = writeln!(s, "  Wada test skipped: {why}");
        }
    }
    let _ = writeln!(s, "measured in {wall:.2} s");
    s
}
