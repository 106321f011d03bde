//! The text report of a planar chain's modes (what `pendula modes` prints without `--json`):
//! each equilibrium's modes, the formula checks, the nonlinear checks.

use crate::analysis::modes::{
    EquilibriumModes, FormulaCheck, ModesResult, NonlinearCheck, PeriodRoute, PERIODIC_SPREAD,
};
use std::fmt::Write;

/// A human-readable report: each equilibrium's modes, the formula checks, the nonlinear checks.
pub fn planar(r: &ModesResult) -> String {
    let mut s = String::new();
    for m in &r.equilibria {
        equilibrium_text(&mut s, m);
    }
    for c in &r.checks {
        check_text(&mut s, c);
    }
    if !r.nonlinear.is_empty() {
        nonlinear_text(&mut s, &r.nonlinear);
    }
    s
}

/// One equilibrium's block: its unstable directions, each mode's ω², ω and period (or growth
/// rate when unstable), the damped eigenvalues.
fn equilibrium_text(s: &mut String, m: &EquilibriumModes) {
    let _ = writeln!(
        s,
        "equilibrium {}  ({} unstable direction{})",
        m.equilibrium.label(),
        m.unstable,
        if m.unstable == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "  {:>4}  {:>22}  {:>18}  {:>14}",
        "mode", "ω² / (rad/s)²", "omega / (rad/s)", "period / s"
    );
    for (k, w2) in m.omega2.iter().enumerate() {
        if *w2 >= 0.0 {
            let w = w2.sqrt();
            let _ = writeln!(
                s,
                "  {:>4}  {:>22.10}  {:>18.12}  {:>14.10}",
                k + 1,
                w2,
                w,
                2.0 * std::f64::consts::PI / w
            );
        } else {
            let _ = writeln!(
                s,
                "  {:>4}  {:>22.10}  unstable, growth rate {:.12} 1/s",
                k + 1,
                w2,
                (-w2).sqrt()
            );
        }
    }
    for d in &m.damped {
        let _ = writeln!(
            s,
            "  damped eigenvalue {:+.10} {:+.10}i  (decay {:.6} 1/s, Q = {:.4})",
            d.re, d.im, d.decay_rate, d.quality_factor
        );
    }
}

/// One formula check: the computed and expected frequencies with their relative difference.
fn check_text(s: &mut String, c: &FormulaCheck) {
    let _ = writeln!(s, "check: {}", c.formula);
    let _ = writeln!(
        s,
        "  {:>4}  {:>20}  {:>20}  {:>10}",
        "mode", "computed", "formula", "rel. diff"
    );
    for k in 0..c.expected.len() {
        let _ = writeln!(
            s,
            "  {:>4}  {:>20.14}  {:>20.14}  {:>10.2e}",
            k + 1,
            c.computed[k],
            c.expected[k],
            c.relative_difference[k]
        );
    }
}

/// The nonlinear checks (the full model released in a mode): linear against measured
/// frequency per mode, a note on the aperiodic ones, and for the quarter-period route the
/// periods against the elliptic-integral reference.
fn nonlinear_text(s: &mut String, nonlinear: &[NonlinearCheck]) {
    let quarter = nonlinear
        .iter()
        .all(|c| c.route == PeriodRoute::QuarterPeriod);
    let _ = writeln!(
        s,
        "nonlinear check (full model released in a mode; frequency from zero crossings{})",
        if quarter {
            ": 4 × the time from release to the bottom"
        } else {
            ", mean spacing"
        }
    );
    let _ = writeln!(
        s,
        "  {:>4}  {:>10}  {:>18}  {:>18}  {:>10}  {:>18}",
        "mode", "amplitude", "linear", "measured", "rel. diff", "elliptic (N = 1)"
    );
    let mut aperiodic = false;
    for c in nonlinear {
        let exact = if c.exact.is_finite() {
            format!("{:.12}", c.exact)
        } else {
            "-".into()
        };
        if !c.periodic {
            // No one frequency describes the motion: say so instead of printing a rate.
            aperiodic = true;
            let _ = writeln!(
                s,
                "  {:>4}  {:>10.4}  {:>18.12}  {:>18}  {:>10}  {:>18}",
                c.mode + 1,
                c.amplitude,
                c.linear,
                "not periodic *",
                "-",
                exact
            );
            continue;
        }
        let _ = writeln!(
            s,
            "  {:>4}  {:>10.4}  {:>18.12}  {:>18.12}  {:>10.2e}  {:>18}",
            c.mode + 1,
            c.amplitude,
            c.linear,
            c.measured,
            c.relative_difference,
            exact
        );
    }
    if aperiodic {
        let _ = writeln!(
            s,
            "  * the intervals between crossings vary by more than {:.0} % (std/mean): the mode \
             trades energy with the others or the motion is chaotic, so no frequency is given \
             (the JSON and file keep the mean crossing rate and the spread)",
            100.0 * PERIODIC_SPREAD
        );
    }
    if quarter {
        quarter_period_text(s, nonlinear);
    }
}

/// The quarter-period route's periods against the reference 4 √(l/g) K(sin(θ₀/2)).
fn quarter_period_text(s: &mut String, nonlinear: &[NonlinearCheck]) {
    let _ = writeln!(
        s,
        "periods against the reference 4 √(l/g) K(sin(θ₀/2))\n  {:>10}  {:>20}  {:>20}  {:>10}",
        "θ₀ (deg)", "period (s)", "reference (s)", "rel. err"
    );
    for c in nonlinear {
        let _ = writeln!(
            s,
            "  {:>10.4}  {:>20.15}  {:>20.15}  {:>10.2e}",
            c.amplitude.to_degrees(),
            c.period,
            c.reference_period,
            ((c.period - c.reference_period) / c.reference_period).abs()
        );
    }
}
