//! `pendula bench animate` and `pendula bench viewer`: the visual lab's throughput figures.

use super::output::CliError;
use pendula::bench;
use pendula::serve::engine::MAX_LINKS;

/// Renders and encodes a `size`² GIF of the triple pendulum (θ = 2, 2.5, 3; 25 fps, S = 10)
/// into a temporary file; one JSON line with the frames per second.
pub fn animate(frames: usize, size: u32) -> Result<(), CliError> {
    if frames == 0 || frames > 2000 || !(16..=2048).contains(&size) {
        return Err(CliError::Input(format!(
            "bench animate: --frames must be 1..=2000 and --size 16..=2048 (got {frames}, {size})"
        )));
    }
    println!("{}", bench::animate(frames, size)?);
    Ok(())
}

/// Runs the viewer's engine flat out for `seconds` of wall time at N links (S sub-steps per
/// 1/60 s frame, frame JSON built each frame as the server does); one JSON line.
pub fn viewer(links: usize, substeps: u64, seconds: f64) -> Result<(), CliError> {
    if links == 0 || links > MAX_LINKS || substeps == 0 || substeps > 200 {
        return Err(CliError::Input(format!(
            "bench viewer: --links must be 1..={} and --substeps 1..=200 (got {links}, {substeps})",
            MAX_LINKS
        )));
    }
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 600.0) {
        return Err(CliError::Input(format!(
            "bench viewer: --seconds must be in (0, 600] (got {seconds})"
        )));
    }
    println!("{}", bench::viewer(links, substeps, seconds));
    Ok(())
}
