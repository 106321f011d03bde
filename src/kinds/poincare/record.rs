//! The Poincaré result's group `poincare`: the run's parameters and the model, with one
//! self-contained subgroup `shell_<k>` per energy shell.
//!
//! Each shell has coordinates `orbit` (0-based), `crossing` (1-based return number) and `link`,
//! and variables `time(orbit, crossing)`, `theta`, `omega`, `momentum(orbit, crossing, link)`,
//! `energy_error(orbit, crossing)` (NaN past an orbit's last crossing), `count(orbit)`,
//! `initial_theta`, `initial_omega(orbit, link)`, `lyapunov(orbit)` and `chaotic(orbit)`.
//! Crossing angles are wrapped into (−π, π]; the section's own angle is ≈ 0 mod 2π there.

use super::PoincareSection;
use crate::analysis::poincare::{chaos_criterion, wrap_angle, SectionEnd, Shell, Variables};
use crate::finding::{Attr, Record, RunPart};
use crate::model::Chain;
use ndarray::{Array2, Array3};

/// The group `poincare`.
pub fn section(s: &PoincareSection) -> Record {
    let (chain, opts, result) = (&s.chain, &s.opts, &s.result);
    let mut g = Record::new("poincare");
    g.index("link", chain.links(), "link index, counted from the pivot")
        .run_part(RunPart::Model)
        .run_part(RunPart::Method)
        .run_part(RunPart::Names)
        .attr("section", opts.section.describe(chain))
        .attr("plane_link", opts.sampling.link as i64 + 1)
        .attr(
            "variables",
            match opts.sampling.variables {
                Variables::Momentum => "momentum",
                Variables::Velocity => "velocity",
            },
        )
        .attr(
            "sampling",
            serde_json::to_string(&opts.sampling.sampling).unwrap_or_default(),
        )
        .attr("energies", Attr::F64s(opts.energies.clone()))
        .attr("crossings", opts.orbit.crossings as i64)
        .attr("t_max", opts.orbit.t_end)
        .attr("chaos_threshold", opts.chaos_threshold);
    if opts.orbit.lyapunov {
        g.attr("chaos_criterion", chaos_criterion(opts.chaos_threshold));
    }
    g.attr("lyapunov", opts.orbit.lyapunov)
        .attr("shells", result.shells.len() as i64)
        .attr("complete", result.complete)
        .attr("max_energy_error", result.max_energy_error());
    for (k, shell) in result.shells.iter().enumerate() {
        g.group(shell_group(k + 1, chain, shell, opts.chaos_threshold));
    }
    g
}

/// One shell's orbits, the group `shell_<k>`: coordinates `orbit`, `crossing` and `link`, the
/// crossings, the per-orbit summary and the shell's attributes.
fn shell_group(k: usize, chain: &Chain, shell: &Shell, threshold: f64) -> Record {
    let n = chain.links();
    let no = shell.orbits.len();
    let kmax = shell.orbits.iter().map(|o| o.len()).max().unwrap_or(0);
    let mut g = Record::new(format!("shell_{k}"));
    // Counted from 1, as every other index of pendula's files (link, crossing, branch).
    g.index("orbit", no, "orbit index, counted from 1")
        .index("crossing", kmax, "return to the section, counted from 1")
        .index("link", n, "link index, counted from the pivot");
    crossings(&mut g, chain, shell, kmax);
    orbit_summary(&mut g, shell, threshold, n);
    if let Some(e) = shell.energy {
        g.attr("energy", e);
    }
    g.attr("skipped_unreachable", shell.skipped.len() as i64)
        .attr("angle_range", [shell.angle_range.0, shell.angle_range.1]);
    if let Some(r) = shell.speed_range {
        g.attr("speed_range", [r.0, r.1]);
    }
    g
}

/// The crossings as (orbit, crossing[, link]) arrays, NaN-padded past each orbit's last
/// crossing so that orbits of different lengths share one rectangle.
fn crossings(g: &mut Record, chain: &Chain, shell: &Shell, kmax: usize) {
    let n = chain.links();
    let no = shell.orbits.len();
    let mut time = Array2::from_elem((no, kmax), f64::NAN);
    let mut err = Array2::from_elem((no, kmax), f64::NAN);
    let mut theta = Array3::from_elem((no, kmax, n), f64::NAN);
    let mut omega = Array3::from_elem((no, kmax, n), f64::NAN);
    let mut mom = Array3::from_elem((no, kmax, n), f64::NAN);
    for (i, o) in shell.orbits.iter().enumerate() {
        for (k, x) in o.states.iter().enumerate() {
            time[(i, k)] = o.t[k];
            err[(i, k)] = o.energy_error[k];
            let p = chain.to_canonical(x);
            for j in 0..n {
                theta[(i, k, j)] = wrap_angle(x[j]);
                omega[(i, k, j)] = x[n + j];
                mom[(i, k, j)] = p[n + j];
            }
        }
    }
    let per_link = ["orbit", "crossing", "link"];
    g.var(
        "time",
        &["orbit", "crossing"],
        time,
        "s",
        "crossing time (NaN past the orbit's last crossing)",
    )
    .var(
        "theta",
        &per_link,
        theta,
        "rad",
        "link angle at the crossing, wrapped into (-pi, pi]",
    )
    .var(
        "omega",
        &per_link,
        omega,
        "rad s-1",
        "link angular velocity at the crossing",
    )
    .var(
        "momentum",
        &per_link,
        mom,
        "J s",
        "canonical momentum p = M(theta) omega at the crossing",
    )
    .var(
        "energy_error",
        &["orbit", "crossing"],
        err,
        "1",
        "|E - E0 - W| / energy_scale at the crossing",
    );
}

/// One value per orbit: how far it got, where it started, its exponent and the chaotic / not
/// shown chaotic verdict drawn from it (so a reader can colour the section without
/// recomputing; the group's `chaos_criterion` says what the verdict means).
fn orbit_summary(g: &mut Record, shell: &Shell, threshold: f64, n: usize) {
    let orbits = &shell.orbits;
    let no = orbits.len();
    let count: Vec<i64> = orbits.iter().map(|o| o.len() as i64).collect();
    let t_end: Vec<f64> = orbits.iter().map(|o| o.t_end).collect();
    let complete: Vec<i64> = orbits
        .iter()
        .map(|o| i64::from(o.end == SectionEnd::Complete))
        .collect();
    let init = |off: usize| Array2::from_shape_fn((no, n), |(i, j)| orbits[i].initial[off + j]);
    let lyapunov: Vec<f64> = orbits
        .iter()
        .map(|o| o.lyapunov.unwrap_or(f64::NAN))
        .collect();
    let chaotic: Vec<i64> = orbits
        .iter()
        .map(|o| o.chaotic(threshold).map_or(-1, i64::from))
        .collect();
    g.var("count", &["orbit"], count, "1", "crossings found")
        .var(
            "t_end",
            &["orbit"],
            t_end,
            "s",
            "time integrated (the T of the finite-time exponent lambda_T)",
        )
        .var(
            "complete",
            &["orbit"],
            complete,
            "1",
            "1 if all requested crossings were found before t_max",
        )
        .var(
            "initial_theta",
            &["orbit", "link"],
            init(0),
            "rad",
            "initial link angle",
        )
        .var(
            "initial_omega",
            &["orbit", "link"],
            init(n),
            "rad s-1",
            "initial angular velocity",
        )
        .var(
            "lyapunov",
            &["orbit"],
            lyapunov,
            "s-1",
            "finite-time maximal Lyapunov exponent lambda_T over the orbit's t_end (NaN: not computed)",
        )
        .var(
            "chaotic",
            &["orbit"],
            chaotic,
            "1",
            "1 chaotic (lambda_T > chaos_threshold), 0 not shown chaotic within the orbit's t_end (not a proof of regularity), -1 not computed",
        );
}
