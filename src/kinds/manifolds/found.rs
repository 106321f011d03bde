//! What a manifolds run found, described for the front ends: the group `manifolds` (the
//! saddle, its multipliers and eigenvectors, one subgroup per branch with its ordered points
//! and arclength, the intersections, the splitting, the tangency, the lobes and the Melnikov
//! prediction), the JSON summary, the text report and the figure (the branches in the
//! section plane, θ wrapped into (−π, π]: unstable red, stable blue, intersections marked).

use super::run::{ManifoldsResult, BRANCHES};
use super::table::ManifoldsRun;
use crate::analysis::manifold::map::MapIntegration;
use crate::analysis::manifold::Branch;
use crate::analysis::poincare::Section;
use crate::finding::{Figure, Finding, Line, Panel, Record, RunPart};
use crate::kinds::Found;
use crate::model::Chain;
use crate::plot::PlotError;
use serde_json::json;
use std::f64::consts::{PI, TAU};
use std::fmt::Write;
use std::path::Path;

/// A manifolds run's result with what it was computed on.
#[derive(Debug, Clone)]
pub struct Manifolds {
    pub title: String,
    pub chain: Chain,
    pub run: ManifoldsRun,
    pub result: ManifoldsResult,
}

const ARCLENGTH_UNITS: &str = "1";
const ARCLENGTH_NOTE: &str =
    "arclength in the (theta, omega) plane, sqrt(dtheta^2 + domega^2) with rad and rad/s taken as numbers, from the saddle";

impl Manifolds {
    /// The plane's second coordinate: its variable name, units and long name (θ̇ of the
    /// driven link, or p_j of the plane's link on a two-link section).
    fn second(&self) -> (&'static str, &'static str, String) {
        match &self.result.shell {
            None => ("omega", "rad s-1", "angular velocity of the point".into()),
            Some(sh) => (
                "momentum",
                "J s",
                format!(
                    "canonical momentum p{} of link {} on the section (p = M(theta) theta')",
                    sh.plane + 1,
                    sh.plane + 1
                ),
            ),
        }
    }

    fn integration(&self) -> String {
        match self.run.integration {
            MapIntegration::Adaptive(t) if self.result.shell.is_some() => format!(
                "Poincare map: dop853 adaptive, rtol = atol = {t:e}, crossings located on its dense output; inverse by time reversal"
            ),
            MapIntegration::Adaptive(t) => format!("dop853 adaptive, rtol = atol = {t:e}"),
            MapIntegration::Fixed(q) => {
                format!("dop853 on a fixed grid of {q} steps per drive period")
            }
        }
    }

    fn branch_record(&self, name: &'static str, b: &Branch) -> Record {
        let (second, units, long) = self.second();
        let mut g = Record::new(name);
        let n = b.nodes.len();
        g.attr("manifold", if b.curve.unstable { "unstable" } else { "stable" })
            .attr("side", b.curve.side)
            .attr("ended", b.ended)
            .attr("linear_error", b.curve.linear_error())
            .attr("largest_gap", b.largest_gap())
            .attr("map_evaluations", b.evaluations as i64)
            .attr("unresolved", b.unresolved as i64)
            .attr("interpolation_error", b.interpolation_error.unwrap_or(f64::NAN))
            .attr("interpolation_sampled", b.interpolation_sampled as i64)
            .attr("growth_map_power", b.curve.power as i64)
            .index("point", n, "point of the branch, in order from the saddle")
            .var(
                "theta",
                &["point"],
                b.nodes.iter().map(|x| x.point[0]).collect::<Vec<_>>(),
                "rad",
                "angle of the point, unwrapped (the cover of the cylinder)",
            )
            .var(
                second,
                &["point"],
                b.nodes.iter().map(|x| x.point[1]).collect::<Vec<_>>(),
                units,
                long,
            )
            .var(
                "arclength",
                &["point"],
                b.arclength.clone(),
                ARCLENGTH_UNITS,
                if self.result.shell.is_some() { ARCLENGTH_NOTE_SHELL } else { ARCLENGTH_NOTE },
            )
            .var(
                "generation",
                &["point"],
                b.nodes.iter().map(|x| x.generation as i64).collect::<Vec<_>>(),
                "1",
                "growth steps from the fundamental domain (applications of the map, or its square for a negative multiplier)",
            )
            .var(
                "domain_parameter",
                &["point"],
                b.nodes.iter().map(|x| x.s).collect::<Vec<_>>(),
                "1",
                "parameter s in [0, 1) of the point's preimage on the fundamental domain",
            );
        g
    }
}

const ARCLENGTH_NOTE_SHELL: &str =
    "arclength in the section plane (theta_j, p_j), sqrt(dtheta^2 + dp^2) with rad and J s taken as numbers, from the saddle";

impl Finding for Manifolds {
    fn group(&self) -> &'static str {
        "manifolds"
    }

    fn complete(&self) -> bool {
        self.result.complete
    }

    fn record(&self) -> Record {
        let r = &self.result;
        let sd = &r.saddle;
        let mut g = Record::new("manifolds");
        g.run_part(RunPart::Names).attr("complete", r.complete);
        match &r.shell {
            None => {
                g.attr("drive_period", r.drive_period)
                    .attr("drive_periods", self.run.k as i64);
            }
            Some(sh) => {
                g.attr("map_kind", "poincare")
                    .attr("energy", sh.energy)
                    .attr(
                        "section",
                        Section::angle(sh.link, sh.value, sh.direction).describe(&self.chain),
                    )
                    .attr("section_link", sh.link as i64 + 1)
                    .attr("plane_link", sh.plane as i64 + 1)
                    .attr("orbit_period", sh.period)
                    .attr("section_returns", sh.returns as i64)
                    .attr("orbit_theta", [sh.orbit_x0[0], sh.orbit_x0[1]])
                    .attr("orbit_omega", [sh.orbit_x0[2], sh.orbit_x0[3]])
                    .attr("energy_error", sh.energy_error);
            }
        }
        g.attr("saddle_theta", sd.point[0])
            .attr(
                if r.shell.is_some() {
                    "saddle_momentum"
                } else {
                    "saddle_omega"
                },
                sd.point[1],
            )
            .attr("saddle_residual", sd.residual)
            .attr("lambda_unstable", sd.lambda_u)
            .attr("lambda_stable", sd.lambda_s)
            .attr("map", self.integration())
            .attr("d0", self.run.growth.d0)
            .attr("resolution", self.run.growth.resolution)
            .attr("max_angle", self.run.growth.max_angle)
            .attr("accuracy", self.run.growth.accuracy.unwrap_or(f64::NAN))
            .attr("arclength", self.run.growth.arclength)
            .attr("linear_tolerance", self.run.growth.linear_tolerance)
            .attr("intersection_tolerance", self.run.intersection_tolerance)
            .attr("window", self.run.window)
            .attr("map_evaluations", r.evaluations as i64)
            .attr("seed_theta", r.seed[0])
            .attr(
                "map_file",
                r.background.as_ref().map_or("", |b| b.file.as_str()),
            )
            .attr("seed_omega", r.seed[r.seed.len() / 2])
            .run_part(RunPart::Method)
            .index(
                "link",
                self.chain.links(),
                "link index, counted from the pivot",
            )
            .run_part(RunPart::Model)
            .run_part(RunPart::InitialState);
        if let Some(d) = r.return_distance {
            g.attr("return_distance", d);
        }
        g.coord(
            "eigen",
            vec![1i64, 2],
            "1",
            "eigendirection: 1 unstable, 2 stable",
        )
        .coord(
            "component",
            vec![1i64, 2],
            "1",
            if r.shell.is_some() {
                "plane component: 1 theta_j, 2 p_j"
            } else {
                "state component: 1 theta, 2 omega"
            },
        )
        .var(
            "multiplier",
            &["eigen"],
            vec![sd.lambda_u, sd.lambda_s],
            "1",
            "multiplier of the saddle's map (of its k-th iterate), by central differences of the map",
        )
        .var(
            "eigenvector",
            &["eigen", "component"],
            ndarray::arr2(&[sd.v_u, sd.v_s]),
            "1",
            "unit eigenvector (theta component >= 0; branch `plus` runs along it)",
        )
        .var(
            "shooting_multiplier_modulus",
            &["eigen"],
            r.shot_multipliers
                .iter()
                .map(|m| m.0.hypot(m.1))
                .chain(std::iter::repeat(f64::NAN))
                .take(2)
                .collect::<Vec<_>>(),
            "1",
            "modulus of the Floquet multipliers of the orbit as orbits find shoots it (its monodromy), largest first",
        );
        for (i, b) in r.branches.iter().enumerate() {
            g.group(self.branch_record(BRANCHES[i].0, b));
        }
        g.attr("intersections", r.crossings.len() as i64);
        if !r.crossings.is_empty() {
            let mut x = Record::new("intersections");
            let c = &r.crossings;
            x.index("intersection", c.len(), "intersection, by unstable branch, stable branch, shift and arclength")
                .var("theta", &["intersection"], c.iter().map(|c| c.at.point[0]).collect::<Vec<_>>(), "rad", "angle of the intersection point (unwrapped)")
                .var(self.second().0, &["intersection"], c.iter().map(|c| c.at.point[1]).collect::<Vec<_>>(), self.second().1, self.second().2)
                .var("residual", &["intersection"], c.iter().map(|c| c.at.residual).collect::<Vec<_>>(), "1", "error bar of the point on the computed branches: the distance between their refined points, or the shot orbit's last Newton correction")
                .var("unstable_branch", &["intersection"], c.iter().map(|c| c.unstable as i64 + 1).collect::<Vec<_>>(), "1", "1 unstable_plus, 2 unstable_minus")
                .var("stable_branch", &["intersection"], c.iter().map(|c| c.stable as i64 - 1).collect::<Vec<_>>(), "1", "1 stable_plus, 2 stable_minus")
                .var("lattice_shift", &["intersection"], c.iter().map(|c| c.at.shift as i64).collect::<Vec<_>>(), "1", "the stable branch is that of the saddle at theta* + 2 pi times this (0: homoclinic in the cover)")
                .var("arclength_unstable", &["intersection"], c.iter().map(|c| c.at.arclength_unstable).collect::<Vec<_>>(), ARCLENGTH_UNITS, "arclength along the unstable branch")
                .var("arclength_stable", &["intersection"], c.iter().map(|c| c.at.arclength_stable).collect::<Vec<_>>(), ARCLENGTH_UNITS, "arclength along the stable branch")
                .var("angle", &["intersection"], c.iter().map(|c| c.at.angle).collect::<Vec<_>>(), "rad", "angle between the branches at the point (0 at a tangency)");
            g.group(x);
        }
        match &r.splitting {
            Ok(s) => {
                g.attr("splitting_distance", s.distance)
                    .attr("splitting_theta", s.theta);
            }
            Err(m) => {
                g.attr("splitting_note", m.as_str());
            }
        }
        if let (Some(t), Some(ts)) = (&r.tangency, &self.run.tangency) {
            let mut x = Record::new("tangency");
            x.attr("parameter", ts.name.as_str())
                .attr("units", ts.units.as_str())
                .attr("value", t.parameter)
                .attr("bracket", t.bracket)
                .attr("tolerance", ts.tolerance)
                .index("evaluation", t.steps.len(), "evaluation of the signed distance, in order")
                .var("parameter_value", &["evaluation"], t.steps.iter().map(|s| s.parameter).collect::<Vec<_>>(), ts.units.clone(), "the parameter's value")
                .var("signed_distance", &["evaluation"], t.steps.iter().map(|s| s.distance).collect::<Vec<_>>(), "rad s-1", "max over the window of omega_unstable(theta) - omega_stable(theta): >= 0 where the branches cross")
                .var("saddle_theta", &["evaluation"], t.steps.iter().map(|s| s.saddle[0]).collect::<Vec<_>>(), "rad", "the saddle followed by Newton")
                .var("saddle_omega", &["evaluation"], t.steps.iter().map(|s| s.saddle[1]).collect::<Vec<_>>(), "rad s-1", "the saddle followed by Newton");
            g.group(x);
        }
        match &r.lobes {
            Ok(l) => {
                g.attr("lobe_areas", l.areas)
                    .attr("lobe_closure", l.closure);
            }
            Err(m) => {
                g.attr("lobe_note", m.as_str());
            }
        }
        match &r.melnikov {
            Ok(m) => {
                g.attr("melnikov_delta", m.delta)
                    .attr("melnikov_gamma", m.gamma)
                    .attr("melnikov_omega", m.omega)
                    .attr("melnikov_omega0", m.omega0)
                    .attr("melnikov_gamma_c", m.gamma_c)
                    .attr("melnikov_torque_threshold", m.torque_threshold(&self.chain))
                    .attr("melnikov_form", "theta'' + delta theta' + sin theta = gamma cos(omega tau + phase), tau = omega0 t; gamma_c = (4 delta / pi) cosh(pi omega / 2)");
            }
            Err(m) => {
                g.attr("melnikov_note", m.as_str());
            }
        }
        g
    }

    fn summary(&self) -> serde_json::Value {
        let r = &self.result;
        let sd = &r.saddle;
        let branches: serde_json::Map<String, serde_json::Value> = r
            .branches
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    BRANCHES[i].0.to_string(),
                    json!({
                        "points": b.nodes.len(),
                        "arclength": b.arclength.last().copied().unwrap_or(0.0),
                        "ended": b.ended,
                        "largest_gap": b.largest_gap(),
                        "linear_error": b.curve.linear_error(),
                        "map_evaluations": b.evaluations,
                        "interpolation_error": b.interpolation_error,
                        "interpolation_sampled": b.interpolation_sampled,
                    }),
                )
            })
            .collect();
        let crossings: Vec<_> = r
            .crossings
            .iter()
            .map(|c| {
                json!({
                    "theta": c.at.point[0],
                    "omega": c.at.point[1],
                    "residual": c.at.residual,
                    "unstable": BRANCHES[c.unstable].0,
                    "stable": BRANCHES[c.stable].0,
                    "lattice_shift": c.at.shift,
                    "angle": c.at.angle,
                })
            })
            .collect();
        json!({
            "saddle": sd.point,
            "saddle_residual": sd.residual,
            "drive_period": r.drive_period,
            "drive_periods": self.run.k,
            "multipliers": [sd.lambda_u, sd.lambda_s],
            "eigenvectors": [sd.v_u, sd.v_s],
            "shooting_multipliers": r.shot_multipliers,
            "map": self.integration(),
            "branches": branches,
            "intersections": crossings,
            "splitting": r.splitting.as_ref().ok().map(|s| json!({"distance": s.distance, "theta": s.theta})),
            "tangency": r.tangency.as_ref().map(|t| json!({
                "parameter": self.run.tangency.as_ref().map(|t| t.name.clone()),
                "value": t.parameter,
                "bracket": t.bracket,
                "evaluations": t.steps.len(),
            })),
            "lobe_areas": r.lobes.as_ref().ok().map(|l| l.areas),
            "melnikov": r.melnikov.as_ref().ok().map(|m| json!({
                "delta": m.delta, "gamma": m.gamma, "omega": m.omega, "omega0": m.omega0,
                "gamma_c": m.gamma_c, "torque_threshold": m.torque_threshold(&self.chain),
            })),
            "map_evaluations": r.evaluations,
            "complete": r.complete,
            "map_file": r.background.as_ref().map(|b| b.file.clone()),
            "shell": r.shell.as_ref().map(|sh| json!({
                "energy": sh.energy,
                "section": Section::angle(sh.link, sh.value, sh.direction).describe(&self.chain),
                "plane_link": sh.plane + 1,
                "orbit_period": sh.period,
                "section_returns": sh.returns,
                "orbit_x0": sh.orbit_x0,
                "energy_error": sh.energy_error,
            })),
        })
    }

    fn report(&self) -> String {
        let r = &self.result;
        let sd = &r.saddle;
        let mut s = String::new();
        match &r.shell {
            None => {
                let _ = writeln!(
                    s,
                    "saddle of the stroboscopic map (period {} × {:.6} s): θ = {:.12}, θ̇ = {:.12} (|P(x) − x| = {:.1e})",
                    self.run.k, r.drive_period, sd.point[0], sd.point[1], sd.residual
                );
            }
            Some(sh) => {
                let _ = writeln!(
                    s,
                    "saddle of the Poincaré map on {} at E = {:.10} J (orbit period {:.10} s, {} crossing(s) a period): θ{j} = {:.12}, p{j} = {:.12} (|P^k(x) − x| = {:.1e}); branch points on the shell to {:.1e} J",
                    Section::angle(sh.link, sh.value, sh.direction).describe(&self.chain),
                    sh.energy,
                    sh.period,
                    sh.returns,
                    sd.point[0],
                    sd.point[1],
                    sd.residual,
                    sh.energy_error,
                    j = sh.plane + 1
                );
            }
        }
        let _ = writeln!(
            s,
            "  multipliers λu = {:.10}, λs = {:.10}; eigenvectors ({:.6}, {:.6}), ({:.6}, {:.6})",
            sd.lambda_u, sd.lambda_s, sd.v_u[0], sd.v_u[1], sd.v_s[0], sd.v_s[1]
        );
        let _ = writeln!(s, "  map: {}", self.integration());
        for (i, b) in r.branches.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:<15} {:>8} points, arclength {:.4}, largest gap {:.2e}, ended at {}, {} map applications",
                BRANCHES[i].0,
                b.nodes.len(),
                b.arclength.last().copied().unwrap_or(0.0),
                b.largest_gap(),
                b.ended,
                b.evaluations
            );
            if b.unresolved > 0 {
                let _ = writeln!(
                    s,
                    "    {} pieces wider than the resolution or above the accuracy: their domain parameters, seeds or pre-images cannot be split further (a fold stretched beyond what f64 resolves; without --accuracy every point comes from the fundamental domain, whose seeds are quantised)",
                    b.unresolved
                );
            }
        }
        let _ = writeln!(s, "  intersections: {}", r.crossings.len());
        for c in r.crossings.iter().take(12) {
            let _ = writeln!(
                s,
                "    {} × {} (shift {:+}): θ = {:.10}, {} = {:.10}, residual {:.1e}, angle {:.3e} rad",
                BRANCHES[c.unstable].0,
                BRANCHES[c.stable].0,
                c.at.shift,
                c.at.point[0],
                match &r.shell {
                    None => "θ̇".to_string(),
                    Some(sh) => format!("p{}", sh.plane + 1),
                },
                c.at.point[1],
                c.at.residual,
                c.at.angle
            );
        }
        match &r.splitting {
            Ok(sp) => {
                let _ = writeln!(
                    s,
                    "  splitting (unstable_plus vs stable_minus one turn on): max D = {:+.6e} rad/s at θ = {:.6}",
                    sp.distance, sp.theta
                );
            }
            Err(m) => {
                let _ = writeln!(s, "  splitting: not measured ({m})");
            }
        }
        if let (Some(t), Some(ts)) = (&r.tangency, &self.run.tangency) {
            let _ = writeln!(
                s,
                "  first tangency: {} = {:.10} {} (bracket [{:.10}, {:.10}], {} evaluations)",
                ts.name,
                t.parameter,
                ts.units,
                t.bracket[0],
                t.bracket[1],
                t.steps.len()
            );
        }
        match &r.lobes {
            Ok(l) => {
                let _ = writeln!(
                    s,
                    "  turnstile lobes: {:+.10e}, {:+.10e} (|P(q0) − q2| = {:.1e})",
                    l.areas[0], l.areas[1], l.closure
                );
            }
            Err(m) => {
                let _ = writeln!(s, "  lobes: not computed ({m})");
            }
        }
        match &r.melnikov {
            Ok(m) => {
                let _ = writeln!(
                    s,
                    "  Melnikov: δ = {:.6}, γ = {:.6}, ω = {:.6} (ω₀ = {:.6} rad/s): γ_c = {:.10} (torque amplitude {:.10} N·m)",
                    m.delta,
                    m.gamma,
                    m.omega,
                    m.omega0,
                    m.gamma_c,
                    m.torque_threshold(&self.chain)
                );
            }
            Err(m) => {
                let _ = writeln!(s, "  Melnikov: not applicable ({m})");
            }
        }
        s
    }
}

/// A branch's points with θ wrapped into (−π, π], broken (NaN) where it wraps.
pub(super) fn wrapped(b: &Branch) -> (Vec<f64>, Vec<f64>) {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut last: Option<f64> = None;
    for n in &b.nodes {
        let t = n.point[0] - TAU * ((n.point[0] + PI) / TAU).floor();
        if let Some(l) = last {
            if (t - l).abs() > PI {
                x.push(f64::NAN);
                y.push(f64::NAN);
            }
        }
        x.push(t);
        y.push(n.point[1]);
        last = Some(t);
    }
    (x, y)
}

impl Manifolds {
    /// The figure as line panels: the palette's first colour (blue) the stable branches, its
    /// second (orange) the unstable ones, its third (green) the saddle (a diagonal cross) and
    /// its fourth (red) the intersections (small crosses), which come last so that a figure
    /// without any keeps the others' colours.
    pub fn figure(&self) -> Figure {
        let r = &self.result;
        let mut stable = Line {
            label: "stable manifold".into(),
            x: vec![],
            y: vec![],
        };
        let mut unstable = Line {
            label: "unstable manifold".into(),
            x: vec![],
            y: vec![],
        };
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut left, mut right) = (f64::INFINITY, f64::NEG_INFINITY);
        for b in &r.branches {
            let (x, y) = wrapped(b);
            for v in y.iter().filter(|v| v.is_finite()) {
                lo = lo.min(*v);
                hi = hi.max(*v);
            }
            for v in x.iter().filter(|v| v.is_finite()) {
                left = left.min(*v);
                right = right.max(*v);
            }
            let l = if b.curve.unstable {
                &mut unstable
            } else {
                &mut stable
            };
            l.x.extend(x);
            l.x.push(f64::NAN);
            l.y.extend(y);
            l.y.push(f64::NAN);
        }
        // Marks a fixed fraction of the drawn extent, however far the curves reach in θ.
        let (dx, dy) = (
            0.015 * (right - left).max(1e-9),
            0.015 * (hi - lo).max(1e-9),
        );
        let mut marks = Line {
            label: format!("intersections ({})", r.crossings.len()),
            x: vec![],
            y: vec![],
        };
        for c in &r.crossings {
            let t = c.at.point[0] - TAU * ((c.at.point[0] + PI) / TAU).floor();
            let w = c.at.point[1];
            marks.x.extend([t - dx, t + dx, f64::NAN, t, t, f64::NAN]);
            marks.y.extend([w, w, f64::NAN, w - dy, w + dy, f64::NAN]);
        }
        let sd = &r.saddle;
        let t = sd.point[0] - TAU * ((sd.point[0] + PI) / TAU).floor();
        let w = sd.point[1];
        let saddle = Line {
            label: "saddle".into(),
            x: vec![t - dx, t + dx, f64::NAN, t, t],
            y: vec![w - dy, w + dy, f64::NAN, w + dy, w - dy],
        };
        Figure {
            title: format!(
                "{}: manifolds of the saddle ({:.4}, {:.4}), λu = {:.4}, λs = {:.4}",
                self.title, sd.point[0], sd.point[1], sd.lambda_u, sd.lambda_s
            ),
            x_label: match &r.shell {
                None => "θ (rad, wrapped into (−π, π])".into(),
                Some(sh) => format!(
                    "θ{} (rad, wrapped into (−π, π])",
                    crate::plot::subscript(&(sh.plane + 1).to_string())
                ),
            },
            panels: vec![Panel {
                y_label: match &r.shell {
                    None => "θ̇ (rad/s)".into(),
                    Some(sh) => {
                        format!(
                            "p{} (J s)",
                            crate::plot::subscript(&(sh.plane + 1).to_string())
                        )
                    }
                },
                // A series must have points: no intersections, no legend entry (last, so that
                // the others keep their colours).
                lines: if marks.x.is_empty() {
                    vec![stable, unstable, saddle]
                } else {
                    vec![stable, unstable, saddle, marks]
                },
                log_y: false,
            }],
            log_x: false,
            size: (900, 700),
        }
    }
}

impl Found for Manifolds {
    /// Over the run's map (`map_file`) where it has one, else the plain figure.
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        match &self.result.background {
            Some(bg) => super::over_map::draw_over_map(self, bg, path),
            None => crate::plot::draw_figure(&self.figure(), path),
        }
    }
}
