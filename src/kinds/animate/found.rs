//! An animation's run and its result, described for the front ends.

use crate::analysis::animate::AnimationKinematics;
use crate::analysis::{animation_trajectory, AnimateOptions, Trajectory};
use crate::finding::{Finding, Record};
use crate::kinds::simulate::{draw_stills, trajectory_record};
use crate::kinds::RunError;
use crate::kinds::{Found, Input};
use crate::model::Chain;
use crate::observe::Observer;
use crate::plot::animation::{write_animation, Animation, AnimationStats};
use crate::plot::PlotError;
use crate::spec::Figures;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// An animation: its trajectory and kinematics, the rendering's statistics, and what its
/// figures need of the run.
pub struct Animated {
    /// The run's title (the still figures').
    pub title: String,
    pub chain: Chain,
    pub opts: AnimateOptions,
    /// The spec's still figures, drawn after the run.
    pub figures: Figures,
    pub trajectory: Trajectory,
    pub kinematics: AnimationKinematics,
    pub stats: AnimationStats,
    /// Model time of the last frame (s).
    pub t_end: f64,
    /// When the run began: the summary's `wall_seconds` runs until it is asked for.
    pub started: Instant,
}

/// Integrates `input`'s start on `chain` as `opts` asks (reporting to `integrate`), then
/// renders the frames to the GIF and/or the frame folder `opts` names (reporting to
/// `render`). A stop during the integration keeps nothing; one during the rendering keeps
/// the trajectory, marked incomplete ([`Finding::complete`]), and no GIF.
pub fn run(
    input: &Input<'_>,
    chain: &Chain,
    opts: &AnimateOptions,
    integrate: &mut dyn Observer,
    render: &mut dyn Observer,
) -> Result<Animated, RunError> {
    let started = Instant::now();
    let tr = animation_trajectory(chain, input.method, input.x0, opts, integrate)?;
    if !tr.complete {
        return Err(RunError::Failed(
            "interrupted while integrating; nothing written".into(),
        ));
    }
    let kinematics = AnimationKinematics::new(chain, &tr, opts);
    let anim = Animation::new(&kinematics, opts);
    let stats = write_animation(&anim, opts.gif.as_deref(), opts.frames.as_deref(), render)?;
    let t_end = anim.time(anim.frames() - 1);
    Ok(Animated {
        title: input.title.to_string(),
        chain: chain.clone(),
        opts: opts.clone(),
        figures: input.figures.clone(),
        trajectory: tr,
        kinematics,
        stats,
        t_end,
        started,
    })
}

impl Finding for Animated {
    fn group(&self) -> &'static str {
        "trajectory"
    }

    /// False when a stop ended the rendering (the trajectory itself is whole).
    fn complete(&self) -> bool {
        self.stats.complete
    }

    fn record(&self) -> Record {
        trajectory_record(&self.chain, &self.trajectory, None)
    }

    /// The animation's settings and the rendering's statistics; it names its kind itself and
    /// the front end adds nothing.
    fn summary(&self) -> serde_json::Value {
        let (opts, stats) = (&self.opts, &self.stats);
        json!({
            "kind": "animate",
            "frames": stats.frames,
            "fps": opts.fps,
            "duration": opts.duration,
            "speed": opts.speed,
            "substeps": opts.substeps,
            "frame_dt": opts.frame_dt(),
            "sample_dt": opts.sample_dt(),
            "t_end": self.t_end,
            "size": [opts.size.0, opts.size.1],
            "integrator": self.trajectory.method,
            "relative_energy_drift": self.trajectory.relative_energy_drift(),
            "render_seconds": stats.seconds,
            "frames_per_second_rendered": stats.frames as f64 / stats.seconds.max(1e-9),
            "wall_seconds": self.started.elapsed().as_secs_f64(),
            "gif": opts.gif,
            "frames_dir": opts.frames,
            "complete": stats.complete,
        })
    }

    /// None: its summary never had the run's fields besides its kind, which it names itself.
    fn run_fields(&self) -> &'static [&'static str] {
        &[]
    }

    fn interrupted(&self, _written: bool) -> String {
        "interrupted while rendering; the GIF was not written".into()
    }
}

impl Found for Animated {
    /// The still: the last frame.
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        let anim = Animation::new(&self.kinematics, &self.opts);
        crate::plot::save(&anim.frame(anim.frames() - 1), path, self.opts.size)
    }

    fn draw_stills(&self) -> Result<(), PlotError> {
        draw_stills(&self.figures, &self.title, &self.chain, &self.trajectory)
    }
}
