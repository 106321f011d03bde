//! `modes`' own part of a run ([`pendula::run::execute`] finds the equilibria and their
//! small-oscillation normal modes and writes them): mode-shape figure, table or JSON summary.

use super::output::{f64_json, report, CliError, Outputs, Run};
use pendula::analysis::cart::CartModes;
use pendula::analysis::modes::{self, Equilibrium};
use pendula::model::Chain;
use pendula::spec::{Model, Spec};
use serde_json::json;
use std::fmt::Write;

/// Refuses `--plot` for the cart chain before any work: its figure is drawn for simulate and
/// control only.
pub fn refuse_cart_plot(ctx: &Run) -> Result<(), CliError> {
    if matches!(ctx.spec.model, Model::Cart(_)) && ctx.outputs.plot.is_some() {
        return Err(CliError::Input(
            "--plot: the cart-chain figure is drawn for simulate and control".into(),
        ));
    }
    Ok(())
}

/// A planar chain's modes (already written): mode-shape figure, table or JSON summary.
pub fn report_planar(
    ctx: &Run,
    chain: &Chain,
    result: &modes::ModesResult,
    wall: f64,
) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    if let Some(path) = &outputs.plot {
        let hanging = match result.hanging() {
            Some(h) => h.clone(),
            None => modes::modes_at(chain, &Equilibrium::hanging(chain.links()))?,
        };
        let lengths: Vec<f64> = chain.params().links.iter().map(|l| l.length).collect();
        let check = result
            .checks
            .iter()
            .find(|c| c.expected.len() == lengths.len());
        let fig = pendula::plot::ModesFigure {
            title: spec.title.clone(),
            lengths: &lengths,
            modes: &hanging,
            check,
        };
        pendula::plot::draw_modes(&fig, path)?;
    }
    if common.json {
        println!("{}", modes_summary(spec, result, outputs, wall));
    } else {
        print!("{}", modes_table(result));
    }
    if !result.complete {
        let kept = if outputs.file.is_some() {
            "written, marked incomplete"
        } else {
            "reported"
        };
        return Err(CliError::Run(format!(
            "interrupted: the modes and checks so far were {kept}"
        )));
    }
    Ok(())
}

/// A human-readable report: each equilibrium's modes, the formula checks, the nonlinear checks.
fn modes_table(r: &modes::ModesResult) -> String {
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
fn equilibrium_text(s: &mut String, m: &modes::EquilibriumModes) {
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
fn check_text(s: &mut String, c: &modes::FormulaCheck) {
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
fn nonlinear_text(s: &mut String, nonlinear: &[modes::NonlinearCheck]) {
    let quarter = nonlinear
        .iter()
        .all(|c| c.route == modes::PeriodRoute::QuarterPeriod);
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
            100.0 * modes::PERIODIC_SPREAD
        );
    }
    if quarter {
        quarter_period_text(s, nonlinear);
    }
}

/// The quarter-period route's periods against the reference 4 √(l/g) K(sin(θ₀/2)).
fn quarter_period_text(s: &mut String, nonlinear: &[modes::NonlinearCheck]) {
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

fn modes_summary(
    spec: &Spec,
    r: &modes::ModesResult,
    outputs: &Outputs,
    wall: f64,
) -> serde_json::Value {
    let nan_null = |v: Vec<f64>| {
        v.into_iter()
            .map(|x| if x.is_finite() { Some(x) } else { None })
            .collect::<Vec<_>>()
    };
    json!({
        "kind": "modes",
        "title": spec.title,
        "model": spec.model_name,
        "links": spec.model.links(),
        "equilibria": r.equilibria.iter().map(|m| json!({
            "label": m.equilibrium.label(),
            "unstable": m.unstable,
            "omega2": m.omega2,
            "frequency": nan_null(m.frequencies()),
            "growth_rate": nan_null(m.growth_rates()),
            "damped": m.damped,
        })).collect::<Vec<_>>(),
        "checks": r.checks.iter().map(|c| json!({
            "formula": c.formula,
            "computed": c.computed,
            "expected": c.expected,
            "max_relative_difference": c.relative_difference.iter().copied().fold(0.0, f64::max),
        })).collect::<Vec<_>>(),
        "nonlinear": r.nonlinear.iter().map(|c| json!({
            "mode": c.mode + 1, "amplitude": c.amplitude, "linear": c.linear, "measured": c.measured,
            "relative_difference": c.relative_difference, "exact": if c.exact.is_finite() { Some(c.exact) } else { None },
            "route": c.route.name(), "period": c.period,
            "interval_spread": if c.interval_spread.is_finite() { Some(c.interval_spread) } else { None },
            "periodic": c.periodic,
            "reference_period": if c.reference_period.is_finite() { Some(c.reference_period) } else { None },
        })).collect::<Vec<_>>(),
        "complete": r.complete,
        "wall_s": wall,
        "output": outputs.file.as_ref().map(|p| p.display().to_string()),
        "plot": outputs.plot.as_ref().map(|p| p.display().to_string()),
    })
}

/// The cart chain's modes at each equilibrium (already written): table or JSON summary (no
/// figure: the mode-shape figure is planar).
pub fn report_cart(ctx: &Run, modes: &[CartModes]) -> Result<(), CliError> {
    let summary = json!({
        "kind": "modes", "model": "cart-chain", "title": ctx.spec.title,
        "equilibria": modes.iter().map(cart_modes_json).collect::<Vec<_>>(),
    });
    report(
        &summary,
        ctx.common.json,
        Some(cart_modes_text(modes)),
        true,
    )
}

fn cart_modes_json(m: &CartModes) -> serde_json::Value {
    json!({
        "equilibrium": m.equilibrium,
        "omega2": m.omega2,
        "frequencies": m.frequencies.iter().map(|v| f64_json(*v)).collect::<Vec<_>>(),
        "growth_rates": m.growth_rates,
        "zero_modes": m.zero_modes,
        "unstable": m.unstable,
        "stable": m.stable,
        "controllable": m.controllable,
        "controllability_margin": m.controllability_margin,
    })
}

/// The text report of the cart chain's modes, one block per equilibrium.
fn cart_modes_text(modes: &[CartModes]) -> String {
    let mut s = String::new();
    for m in modes {
        let _ = writeln!(
            s,
            "equilibrium {}  ({} unstable, {} zero modes; {}stable, {}controllable, margin {})",
            m.equilibrium,
            m.unstable,
            m.zero_modes,
            if m.stable { "" } else { "not " },
            if m.controllable { "" } else { "not " },
            super::output::num(m.controllability_margin)
        );
        let _ = writeln!(
            s,
            "  mode  {:>18}  {:>16}",
            "omega^2 / (rad/s)^2", "omega / (rad/s)"
        );
        for (i, (w2, w)) in m.omega2.iter().zip(&m.frequencies).enumerate() {
            let _ = writeln!(
                s,
                "  {:>4}  {:>18}  {:>16}",
                i + 1,
                super::output::num(*w2),
                super::output::num(*w)
            );
        }
    }
    s
}
