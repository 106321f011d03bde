//! `pendula animate`, with the visual lab's still figures (drawn as `simulate` draws them).

use super::output::prepare_path;
use super::output::{planar, CliError, Run};
use super::progress::Bar;
use pendula::analysis::animate::AnimationKinematics;
use pendula::analysis::{self, AnimateOptions};
use pendula::kinds::simulate::{draw_stills, trajectory_record};
use pendula::plot::animation::{frame_path, write_animation, Animation};
use pendula::spec::Spec;
use pendula::store::{self};
use serde_json::json;

/// Checks that every still-figure path may be written (before any work).
pub fn prepare_figures(spec: &Spec, force: bool) -> Result<(), CliError> {
    for (field, p) in spec.figures.paths() {
        let flag = super::flags::flag_of(field, "animate")
            .map_or(field.to_string(), |f| format!("--{}", f.long));
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

/// Runs an animate spec: integrate, render the frames, write GIF / PNGs / HDF5 / still frame.
pub fn run(ctx: &Run, opts: &AnimateOptions) -> Result<(), CliError> {
    let (spec, outputs, common) = (ctx.spec, &ctx.outputs, ctx.common);
    let start = std::time::Instant::now();
    let mut bar = Bar::new("integrate");
    let tr = analysis::animation_trajectory(planar(spec)?, &spec.method, &spec.x0, opts, &mut bar)?;
    if !tr.complete {
        return Err(CliError::Run(
            "interrupted while integrating; nothing written".into(),
        ));
    }
    let kin = AnimationKinematics::new(planar(spec)?, &tr, opts);
    let anim = Animation::new(&kin, opts);
    let mut bar = Bar::new("render");
    let stats = write_animation(&anim, opts.gif.as_deref(), opts.frames.as_deref(), &mut bar)?;
    if let Some(p) = &outputs.plot {
        // The still: the last frame.
        pendula::plot::save(&anim.frame(anim.frames() - 1), p, opts.size)?;
    }
    if let Some(p) = &outputs.file {
        let prov = ctx.provenance();
        let info = super::output::run_info(spec)?;
        store::write_file(p, common.force, &prov, &spec.title, |out| {
            store::write_record(out, Some(&info), &trajectory_record(info.chain, &tr, None))
        })?;
    }
    draw_stills(&spec.figures, &spec.title, planar(spec)?, &tr)?;
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
