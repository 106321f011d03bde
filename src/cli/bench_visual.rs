//! `pendula bench animate` and `pendula bench viewer`: the visual lab's throughput figures.

use super::output::CliError;
use pendula::analysis::{animation_trajectory, AnimateOptions, AnimateStyle};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use pendula::plot::animation::{write_animation, Animation};
use pendula::serve::engine::{Engine, Settings};
use serde_json::json;
use std::time::Instant;

/// Renders and encodes a `size`² GIF of the triple pendulum (θ = 2, 2.5, 3; 25 fps, S = 10)
/// into a temporary file; one JSON line with the frames per second.
pub fn animate(frames: usize, size: u32) -> Result<(), CliError> {
    if frames == 0 || frames > 2000 || !(16..=2048).contains(&size) {
        return Err(CliError::Input(format!(
            "bench animate: --frames must be 1..=2000 and --size 16..=2048 (got {frames}, {size})"
        )));
    }
    let chain = Chain::new(ChainParams::equal_points(3)).expect("triple pendulum");
    let opts = AnimateOptions {
        fps: 25.0,
        duration: frames as f64 / 25.0,
        speed: 1.0,
        substeps: 10,
        traces: vec![1, 2],
        trace_time: 2.0,
        size: (size, size),
        style: AnimateStyle::default(),
        gif: None,
        frames: None,
    };
    let x0 = [2.0, 2.5, 3.0, 0.0, 0.0, 0.0];
    let method = Method::Rk4 {
        dt: opts.sample_dt(),
    };
    let start = Instant::now();
    let tr = animation_trajectory(&chain, &method, &x0, &opts, &mut Silent)?;
    let integrate = start.elapsed().as_secs_f64();
    let kin = pendula::analysis::animate::AnimationKinematics::new(&chain, &tr, &opts);
    let anim = Animation::new(&kin, &opts);
    // Rendering alone, then rendering + GIF encoding.
    let t0 = Instant::now();
    for k in 0..anim.frames() {
        anim.render(k).map_err(|e| CliError::Run(e.to_string()))?;
    }
    let render = t0.elapsed().as_secs_f64();
    let dir = std::env::temp_dir().join(format!("pendula-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| CliError::Run(e.to_string()))?;
    let gif = dir.join("bench.gif");
    let stats = write_animation(&anim, Some(&gif), None, &mut Silent)?;
    let bytes = std::fs::metadata(&gif).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{}",
        json!({
            "bench": "animate",
            "size": [size, size],
            "frames": stats.frames,
            "threads": rayon::current_num_threads(),
            "integrate_seconds": integrate,
            "render_only_frames_per_s": anim.frames() as f64 / render,
            "gif_frames_per_s": stats.frames as f64 / stats.seconds,
            "gif_bytes": bytes,
        })
    );
    Ok(())
}

/// Runs the viewer's engine flat out for `seconds` of wall time at N links (S sub-steps per
/// 1/60 s frame, frame JSON built each frame as the server does); one JSON line.
pub fn viewer(links: usize, substeps: u64, seconds: f64) -> Result<(), CliError> {
    if links == 0 || links > pendula::serve::engine::MAX_LINKS || substeps == 0 || substeps > 200 {
        return Err(CliError::Input(format!(
            "bench viewer: --links must be 1..={} and --substeps 1..=200 (got {links}, {substeps})",
            pendula::serve::engine::MAX_LINKS
        )));
    }
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 600.0) {
        return Err(CliError::Input(format!(
            "bench viewer: --seconds must be in (0, 600] (got {seconds})"
        )));
    }
    let mut s = Settings::equal(links);
    s.substeps = substeps;
    let mut engine = Engine::new(s);
    let start = Instant::now();
    let mut frames = 0u64;
    let mut bytes = 0usize;
    while start.elapsed().as_secs_f64() < seconds {
        engine.advance(1.0 / pendula::serve::FRAME_RATE);
        bytes += engine.frame().to_string().len();
        frames += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let fps = frames as f64 / wall;
    println!(
        "{}",
        json!({
            "bench": "viewer",
            "links": links,
            "substeps": substeps,
            "steps_per_s": engine.steps as f64 / wall,
            "frames_per_s_capacity": fps,
            "sustains_60_fps": fps >= pendula::serve::FRAME_RATE,
            "realtime_factor_at_60_fps": fps / pendula::serve::FRAME_RATE,
            "frame_json_bytes": bytes as f64 / frames.max(1) as f64,
            "lyapunov": engine.lyapunov(),
        })
    );
    Ok(())
}
