//! `pendula animate` and the visual lab's still figures (also drawn by `simulate`).

use super::args::{base_spec, set, FlagMap, InitialArgs, ModelArgs};
use super::output::prepare_path;
use super::progress::Bar;
use super::{CliError, Common, Outputs};
use clap::Args;
use pendula::analysis::animate::{AnimationKinematics, LinkEndPath};
use pendula::analysis::{self, AnimateOptions, EnergyBudget, Trajectory};
use pendula::plot::animation::{frame_path, write_animation, Animation};
use pendula::plot::lab::{self, EnergyFigure, PhasePortrait, Spirograph};
use pendula::spec::{AnimateSpec, FiguresSpec, Spec, SpecFile};
use pendula::store::{self, Provenance};
use serde_json::json;
use std::path::PathBuf;

/// Still-figure flags (simulate and animate).
#[derive(Debug, Args, Clone, Default)]
pub struct FigureArgs {
    /// Draw the long-time trace of a link end ("spirograph", .png or .svg).
    #[arg(long, value_name = "FILE.png|svg")]
    pub spirograph: Option<PathBuf>,
    /// The link whose lower end the spirograph traces (1-based; default the tip).
    #[arg(long, value_name = "J")]
    pub spirograph_link: Option<usize>,
    /// Colour the spirograph by time (default) or speed.
    #[arg(long, value_name = "time|speed")]
    pub spirograph_colour: Option<String>,
    /// Draw phase portraits θ_j–θ̇_j (angles wrapped for display).
    #[arg(long, value_name = "FILE.png|svg")]
    pub phase: Option<PathBuf>,
    /// Links of the phase portraits, comma-separated (1-based; default all, up to 6).
    #[arg(long, value_delimiter = ',', value_name = "J,…")]
    pub phase_links: Option<Vec<usize>>,
    /// Draw the energy budget: stacked per-link kinetic energy, potential, dissipated work.
    #[arg(long, value_name = "FILE.png|svg")]
    pub energy_plot: Option<PathBuf>,
}

const FIGURE_FLAGS: [(&str, &str); 6] = [
    ("figures.spirograph", "--spirograph"),
    ("figures.spirograph_link", "--spirograph-link"),
    ("figures.spirograph_colour", "--spirograph-colour"),
    ("figures.phase", "--phase"),
    ("figures.phase_links", "--phase-links"),
    ("figures.energy", "--energy-plot"),
];

impl FigureArgs {
    pub fn apply(&self, file: &mut SpecFile, flags: &mut FlagMap) {
        let any = self.spirograph.is_some()
            || self.spirograph_link.is_some()
            || self.spirograph_colour.is_some()
            || self.phase.is_some()
            || self.phase_links.is_some()
            || self.energy_plot.is_some();
        if !any {
            return;
        }
        let f = file.figures.get_or_insert_with(FiguresSpec::default);
        let [sp, spl, spc, ph, phl, en] = FIGURE_FLAGS;
        set(&self.spirograph, &mut f.spirograph, sp, flags);
        set(&self.spirograph_link, &mut f.spirograph_link, spl, flags);
        set(
            &self.spirograph_colour,
            &mut f.spirograph_colour,
            spc,
            flags,
        );
        set(&self.phase, &mut f.phase, ph, flags);
        set(&self.phase_links, &mut f.phase_links, phl, flags);
        set(&self.energy_plot, &mut f.energy, en, flags);
    }
}

#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct AnimateArgs {
    /// Start from this analysis spec (kind = "animate"); the flags below override it.
    #[arg(long, value_name = "SPEC.toml")]
    pub spec: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub initial: InitialArgs,
    /// Write the animated GIF here.
    #[arg(long, value_name = "FILE.gif")]
    pub gif: Option<PathBuf>,
    /// Write the frames as PNG files into this folder (frame-00000.png, …).
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,
    /// Frames per second (default 25, at most 50).
    #[arg(long)]
    pub fps: Option<f64>,
    /// Length of the animation in seconds (default 10).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Speed multiplier α: model seconds per second of animation (default 1).
    #[arg(long)]
    pub speed: Option<f64>,
    /// RK4 sub-steps per frame, δt = α / (fps · S) (default 10).
    #[arg(long)]
    pub substeps: Option<u64>,
    /// Integrator: rk4 (default, S sub-steps per frame) or dop853 (adaptive).
    #[arg(long)]
    pub method: Option<String>,
    /// Relative tolerance of dop853.
    #[arg(long)]
    pub rtol: Option<f64>,
    /// Absolute tolerance of dop853.
    #[arg(long)]
    pub atol: Option<f64>,
    /// Link ends that leave a fading trace, comma-separated (1-based; default the tip).
    #[arg(long, value_delimiter = ',', value_name = "J,…")]
    pub trace: Option<Vec<usize>>,
    /// Model time (s) over which a trace fades out (default 2).
    #[arg(long)]
    pub trace_time: Option<f64>,
    /// Image width in pixels (default 600).
    #[arg(long)]
    pub width: Option<u32>,
    /// Image height in pixels (default 600).
    #[arg(long)]
    pub height: Option<u32>,
    /// Background colour (#rrggbb).
    #[arg(long)]
    pub background: Option<String>,
    /// Colour of the links (#rrggbb).
    #[arg(long)]
    pub chain_colour: Option<String>,
    /// Colour of the bobs (#rrggbb).
    #[arg(long)]
    pub bob_colour: Option<String>,
    /// Trace colours, comma-separated (#rrggbb,…).
    #[arg(long, value_delimiter = ',')]
    pub trace_colours: Option<Vec<String>>,
    #[command(flatten)]
    pub figures: FigureArgs,
    #[command(flatten)]
    pub common: Common,
}

const ANIMATE_FLAGS: [(&str, &str); 24] = [
    ("animate.gif", "--gif"),
    ("animate.frames", "--frames"),
    ("animate.fps", "--fps"),
    ("animate.duration", "--duration"),
    ("animate.speed", "--speed"),
    ("animate.substeps", "--substeps"),
    ("animate.trace", "--trace"),
    ("animate.trace_time", "--trace-time"),
    ("animate.width", "--width"),
    ("animate.height", "--height"),
    ("animate.background", "--background"),
    ("animate.chain_colour", "--chain-colour"),
    ("animate.bob_colour", "--bob-colour"),
    ("animate.trace_colours", "--trace-colours"),
    ("integrator.method", "--method"),
    ("integrator.rtol", "--rtol"),
    ("integrator.atol", "--atol"),
    ("model.preset", "--preset"),
    ("model.links", "--links"),
    ("model.length", "--length"),
    ("model.mass", "--mass"),
    ("model.gravity", "--gravity"),
    ("initial.theta", "--theta"),
    ("initial.omega", "--omega"),
];

impl AnimateArgs {
    pub fn to_spec_file(&self) -> Result<(SpecFile, FlagMap), CliError> {
        let mut file = base_spec(&self.spec, "animate")?;
        let mut flags: FlagMap = vec![];
        self.model.apply(&mut file, &mut flags)?;
        self.initial.apply(&mut file, &mut flags);
        let a = file.animate.get_or_insert_with(AnimateSpec::default);
        let f = &mut flags;
        let name = |i: usize| ANIMATE_FLAGS[i];
        set(&self.gif, &mut a.gif, name(0), f);
        set(&self.frames, &mut a.frames, name(1), f);
        set(&self.fps, &mut a.fps, name(2), f);
        set(&self.duration, &mut a.duration, name(3), f);
        set(&self.speed, &mut a.speed, name(4), f);
        set(&self.substeps, &mut a.substeps, name(5), f);
        set(&self.trace, &mut a.trace, name(6), f);
        set(&self.trace_time, &mut a.trace_time, name(7), f);
        set(&self.width, &mut a.width, name(8), f);
        set(&self.height, &mut a.height, name(9), f);
        set(&self.background, &mut a.background, name(10), f);
        set(&self.chain_colour, &mut a.chain_colour, name(11), f);
        set(&self.bob_colour, &mut a.bob_colour, name(12), f);
        set(&self.trace_colours, &mut a.trace_colours, name(13), f);
        let integ = &mut file.integrator;
        set(&self.method, &mut integ.method, name(14), f);
        set(&self.rtol, &mut integ.rtol, name(15), f);
        set(&self.atol, &mut integ.atol, name(16), f);
        self.figures.apply(&mut file, &mut flags);
        if self.spec.is_none() {
            flags.extend(ANIMATE_FLAGS);
        }
        Ok((file, flags))
    }
}

/// Checks that every still-figure path may be written (before any work).
pub fn prepare_figures(spec: &Spec, force: bool) -> Result<(), CliError> {
    for (field, p) in spec.figures.paths() {
        let flag = FIGURE_FLAGS
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(field, |(_, flag)| flag);
        prepare_path(p, force).map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
    }
    Ok(())
}

/// Checks the animation's own outputs (GIF, frame folder) before any work.
pub fn prepare_animation(opts: &AnimateOptions, force: bool) -> Result<(), CliError> {
    if let Some(g) = &opts.gif {
        prepare_path(g, force).map_err(|m| CliError::Input(format!("--gif: {m}")))?;
    }
    if let Some(dir) = &opts.frames {
        if dir.exists() && !dir.is_dir() {
            return Err(CliError::Input(format!(
                "--frames: `{}` exists and is not a folder",
                dir.display()
            )));
        }
        if !force && frame_path(dir, 0).exists() {
            return Err(CliError::Input(format!(
                "--frames: `{}` already holds frames (use --force to overwrite them)",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Draws the spec's still figures from a trajectory.
pub fn draw_figures(spec: &Spec, tr: &Trajectory) -> Result<(), CliError> {
    let f = &spec.figures;
    let run = |e: pendula::plot::PlotError| CliError::Run(e.to_string());
    if let Some(p) = &f.spirograph {
        let path = LinkEndPath::new(&spec.chain, tr, f.spirograph_link);
        let fig = Spirograph {
            path: &path,
            colour: f.spirograph_colour,
            title: spec.title.clone(),
        };
        lab::draw_spirograph(&fig, p).map_err(run)?;
    }
    if let Some(p) = &f.phase {
        let fig = PhasePortrait {
            tr,
            links: f.phase_links.clone(),
            title: format!("{}: phase portraits", spec.title),
        };
        lab::draw_phase_portrait(&fig, p).map_err(run)?;
    }
    if let Some(p) = &f.energy {
        let budget = EnergyBudget::new(&spec.chain, tr);
        let fig = EnergyFigure {
            budget: &budget,
            title: format!("{}: energy budget", spec.title),
        };
        lab::draw_energy_budget(&fig, p).map_err(run)?;
    }
    Ok(())
}

/// Runs an animate spec: integrate, render the frames, write GIF / PNGs / HDF5 / still frame.
pub fn run(
    spec: &Spec,
    opts: &AnimateOptions,
    outputs: &Outputs,
    common: &Common,
    command_line: &str,
) -> Result<(), CliError> {
    let start = std::time::Instant::now();
    let mut bar = Bar::new("integrate");
    let tr = analysis::animation_trajectory(&spec.chain, &spec.method, &spec.x0, opts, &mut bar)
        .map_err(|e| CliError::Run(e.to_string()))?;
    if !tr.complete {
        return Err(CliError::Run(
            "interrupted while integrating; nothing written".into(),
        ));
    }
    let kin = AnimationKinematics::new(&spec.chain, &tr, opts);
    let anim = Animation::new(&kin, opts);
    let mut bar = Bar::new("render");
    let stats = write_animation(&anim, opts.gif.as_deref(), opts.frames.as_deref(), &mut bar)
        .map_err(|e| CliError::Run(e.to_string()))?;
    if let Some(p) = &outputs.plot {
        // The still: the last frame.
        pendula::plot::save(&anim.frame(anim.frames() - 1), p, opts.size)
            .map_err(|e| CliError::Run(e.to_string()))?;
    }
    if let Some(p) = &outputs.file {
        let prov = Provenance::now(command_line, &spec.text);
        store::write_file(p, common.force, &prov, &spec.title, |out| {
            store::write_trajectory(out, &super::output::run_info(spec), &tr, None)
        })
        .map_err(|e| CliError::Run(e.to_string()))?;
    }
    draw_figures(spec, &tr)?;
    if common.json {
        println!(
            "{}",
            json!({
                "kind": "animate",
                "frames": stats.frames,
                "fps": opts.fps,
                "duration": opts.duration,
                "speed": opts.speed,
                "substeps": opts.substeps,
                "frame_dt": opts.frame_dt(),
                "sample_dt": opts.sample_dt(),
                "t_end": anim.time(anim.frames() - 1),
                "size": [opts.size.0, opts.size.1],
                "integrator": tr.method,
                "relative_energy_drift": tr.relative_energy_drift(),
                "render_seconds": stats.seconds,
                "frames_per_second_rendered": stats.frames as f64 / stats.seconds.max(1e-9),
                "wall_seconds": start.elapsed().as_secs_f64(),
                "gif": opts.gif,
                "frames_dir": opts.frames,
                "complete": stats.complete,
            })
        );
    }
    if !stats.complete {
        return Err(CliError::Run(
            "interrupted while rendering; the GIF was not written".into(),
        ));
    }
    Ok(())
}
