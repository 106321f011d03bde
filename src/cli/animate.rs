//! `pendula animate` ([`pendula::kinds::animate`]): its outputs checked before any work, its
//! run with the integration's and the rendering's progress bars.

use super::output::prepare_path;
use super::output::{finish_found, planar, CliError, Run};
use super::progress::Bar;
use pendula::kinds::animate::AnimateOptions;
use pendula::plot::animation::frame_path;
use pendula::spec::Spec;
use std::path::Path;

/// The animation's settings of an animate spec (None: another kind).
pub fn options(spec: &Spec) -> Option<&AnimateOptions> {
    pendula::kinds::animate::options(&*spec.analysis)
}

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
pub fn prepare_animation(
    gif: Option<&Path>,
    frames: Option<&Path>,
    force: bool,
) -> Result<(), CliError> {
    if let Some(g) = gif {
        prepare_path(g, force).map_err(|m| CliError::Input(format!("--gif: {m}")))?;
    }
    if let Some(dir) = frames {
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

/// Runs an animate spec ([`pendula::kinds::animate::run`]: integrate, render the GIF / PNG
/// frames), then writes the HDF5 file, the still frame and the still figures and prints the
/// summary as for every result ([`super::output::finish_found`]).
pub fn run(ctx: &Run) -> Result<(), CliError> {
    let Some(opts) = options(ctx.spec) else {
        unreachable!("called for an animate spec")
    };
    let chain = planar(ctx.spec)?;
    let start = std::time::Instant::now();
    let (mut integrate, mut render) = (Bar::new("integrate"), Bar::new("render"));
    let input = pendula::kinds::Input {
        title: &ctx.spec.title,
        model_name: &ctx.spec.model_name,
        model: &ctx.spec.model,
        method: &ctx.spec.method,
        x0: &ctx.spec.x0,
        figures: &ctx.spec.figures,
        text: &ctx.spec.text,
    };
    let result = pendula::kinds::animate::run(&input, chain, opts, &mut integrate, &mut render)?;
    finish_found(ctx, Some(chain), Box::new(result), start)
}
