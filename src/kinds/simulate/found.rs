//! A planar chain's trajectory, described for the front ends: the group `trajectory`, the JSON
//! summary, the figure (angles, energy balance, energy error), the spec's still figures and a
//! sweep's scalars.

use super::energy_and_work;
use crate::analysis::animate::LinkEndPath;
use crate::analysis::{self, EnergyBudget, SimulateOptions, Trajectory};
use crate::finding::{Finding, Record, RunPart, Scalar};
use crate::kinds::{Found, Input, RunError};
use crate::model::Chain;
use crate::observe::Observer;
use crate::plot::lab::{self, EnergyFigure, PhasePortrait, Spirograph};
use crate::plot::PlotError;
use crate::spec::Figures;
use serde_json::json;
use std::path::Path;

/// A planar chain's simulation: the trajectory with what its file, figure and still figures
/// need of the run.
#[derive(Debug, Clone)]
pub struct Simulated {
    /// The run's title (the figures').
    pub title: String,
    pub chain: Chain,
    /// The sampling asked for (the file's `t_end` and `dt_out`).
    pub opts: SimulateOptions,
    /// The spec's still figures, drawn after the run.
    pub figures: Figures,
    pub trajectory: Trajectory,
}

impl Simulated {
    /// Integrates `input`'s start on `chain` as `opts` asks, reporting to `observer`.
    pub fn run(
        input: &Input<'_>,
        chain: &Chain,
        opts: &SimulateOptions,
        observer: &mut dyn Observer,
    ) -> Result<Simulated, RunError> {
        let trajectory = analysis::simulate(chain, input.method, input.x0, opts, observer)?;
        Ok(Simulated {
            title: input.title.to_string(),
            chain: chain.clone(),
            opts: *opts,
            figures: input.figures.clone(),
            trajectory,
        })
    }
}

/// The group `trajectory` of a planar chain's run: the samples over (time, link), the energy
/// balance and budget, the chain, the integrator, the start and the run's statistics;
/// `sampling` (a simulation's options, not an animation's) adds the attributes `t_end` and
/// `dt_out`.
pub fn trajectory_record(
    chain: &Chain,
    tr: &Trajectory,
    sampling: Option<&SimulateOptions>,
) -> Record {
    let mut g = Record::new("trajectory");
    g.coord("time", tr.t.as_slice(), "s", "time")
        .index("link", chain.links(), "link index, counted from the pivot")
        .var(
            "theta",
            &["time", "link"],
            tr.theta.clone(),
            "rad",
            "link angle from the downward vertical (not wrapped)",
        )
        .var(
            "omega",
            &["time", "link"],
            tr.omega.clone(),
            "rad s-1",
            "link angular velocity",
        );
    energy_and_work(
        &mut g,
        &tr.energy,
        &tr.work,
        "work of damping and drive since t = 0",
    );
    g.var(
        "energy_error",
        &["time"],
        tr.energy_error(),
        "1",
        "|E - E0 - W| / energy_scale",
    );
    // The energy budget the lab's figure draws, so that it can be redrawn from the file.
    let budget = EnergyBudget::new(chain, tr);
    g.var(
        "kinetic_energy",
        &["time", "link"],
        budget.kinetic,
        "J",
        "kinetic energy of each link's own motion (pivot frame); sums to T over links",
    )
    .var(
        "potential_energy",
        &["time"],
        budget.potential,
        "J",
        "gravitational potential energy V",
    )
    .run_part(RunPart::Model)
    .run_part(RunPart::Method)
    .run_part(RunPart::Names);
    if let Some(o) = sampling {
        g.attr("t_end", o.t_end).attr("dt_out", o.dt_out);
    }
    g.run_part(RunPart::InitialState)
        .attr("energy_scale", tr.energy_scale)
        .attr("relative_energy_drift", tr.relative_energy_drift())
        .attr("max_relative_energy_error", tr.max_relative_energy_error())
        .attr("steps", tr.stats.steps as i64)
        .attr("rejected_steps", tr.stats.rejected as i64)
        .attr("rhs_evaluations", tr.stats.evals as i64)
        .attr("complete", tr.complete);
    g
}

/// Draws the still figures `figures` asks for from `tr`, a trajectory of `chain`, titled by
/// the run's `title`.
pub fn draw_stills(
    figures: &Figures,
    title: &str,
    chain: &Chain,
    tr: &Trajectory,
) -> Result<(), PlotError> {
    let f = figures;
    if let Some(p) = &f.spirograph {
        let path = LinkEndPath::new(chain, tr, f.spirograph_link);
        let fig = Spirograph {
            path: &path,
            colour: f.spirograph_colour,
            title: title.to_string(),
        };
        lab::draw_spirograph(&fig, p)?;
    }
    if let Some(p) = &f.phase {
        let fig = PhasePortrait {
            tr,
            links: f.phase_links.clone(),
            title: format!("{title}: phase portraits"),
        };
        lab::draw_phase_portrait(&fig, p)?;
    }
    if let Some(p) = &f.energy {
        let budget = EnergyBudget::new(chain, tr);
        let fig = EnergyFigure {
            budget: &budget,
            title: format!("{title}: energy budget"),
        };
        lab::draw_energy_budget(&fig, p)?;
    }
    Ok(())
}

impl Finding for Simulated {
    fn group(&self) -> &'static str {
        "trajectory"
    }

    fn complete(&self) -> bool {
        self.trajectory.complete
    }

    fn record(&self) -> Record {
        trajectory_record(&self.chain, &self.trajectory, Some(&self.opts))
    }

    fn summary(&self) -> serde_json::Value {
        let tr = &self.trajectory;
        let n = self.chain.links();
        let last = tr.len() - 1;
        let x = tr.final_state();
        json!({
            "links": n,
            "integrator": tr.method,
            "complete": tr.complete,
            "t_end": tr.t.last(),
            "final_time": tr.t[last],
            "final_state": { "theta": &x[..n], "omega": &x[n..] },
            "energy_start": tr.energy[0],
            "energy_end": tr.energy[last],
            "work_end": tr.work[last],
            "energy_scale": tr.energy_scale,
            "relative_energy_drift": tr.relative_energy_drift(),
            "max_relative_energy_error": tr.max_relative_energy_error(),
            "samples": tr.len(),
            "steps": tr.stats.steps,
            "rejected_steps": tr.stats.rejected,
            "rhs_evaluations": tr.stats.evals,
        })
    }

    fn scalars(&self) -> Vec<Scalar> {
        let tr = &self.trajectory;
        let e0 = tr.energy.first().copied().unwrap_or(f64::NAN);
        let err = tr
            .energy
            .iter()
            .zip(&tr.work)
            .map(|(e, w)| (e - e0 - w).abs())
            .fold(0.0, f64::max)
            / tr.energy_scale;
        let mut s = vec![Scalar::one(
            "energy_error_max",
            err,
            "1",
            "largest |E(t) - E(0) - W(t)| over the run, relative to the energy scale",
        )];
        let ends = [
            (
                "theta_end",
                &tr.theta,
                "rad",
                "angles at the end of the run",
            ),
            (
                "omega_end",
                &tr.omega,
                "rad s-1",
                "angular velocities at the end of the run",
            ),
        ];
        for (name, series, units, what) in ends {
            if let Some(last) = series.rows().into_iter().next_back() {
                s.push(Scalar::vector(name, "link", last.to_vec(), units, what));
            }
        }
        s
    }

    fn interrupted(&self, _written: bool) -> String {
        format!(
            "interrupted at t = {:.6} s; the samples up to then were written, marked incomplete",
            self.trajectory.t.last().copied().unwrap_or(0.0)
        )
    }
}

impl Found for Simulated {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        crate::plot::draw_trajectory(&self.trajectory, &self.title, path)
    }

    fn draw_stills(&self) -> Result<(), PlotError> {
        draw_stills(&self.figures, &self.title, &self.chain, &self.trajectory)
    }
}
