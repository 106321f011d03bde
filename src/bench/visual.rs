//! `bench animate` and `bench viewer`: the visual lab's throughput figures.

use crate::analysis::animate::AnimationKinematics;
use crate::analysis::{animation_trajectory, AnimateOptions, AnimateStyle};
use crate::integrate::Method;
use crate::kinds::RunError;
use crate::model::{Chain, ChainParams};
use crate::observe::Silent;
use crate::plot::animation::{write_animation, Animation};
use crate::serve::engine::{Engine, Settings};
use serde_json::{json, Value};
use std::time::Instant;

/// A failure of the workload that has no [`RunError`] of its own (a frame's drawing, the
/// scratch folder): a failed run, in its own words.
fn failed(e: impl std::fmt::Display) -> RunError {
    RunError::Failed(e.to_string())
}

/// Renders and encodes a `size`² GIF of the triple pendulum (θ = 2, 2.5, 3; 25 fps, S = 10)
/// into a temporary file: the JSON line with the frames per second. The caller checks
/// `frames` and `size`.
pub fn animate(frames: usize, size: u32) -> Result<Value, RunError> {
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
    let kin = AnimationKinematics::new(&chain, &tr, &opts);
    let anim = Animation::new(&kin, &opts);
    // Rendering alone, then rendering + GIF encoding.
    let t0 = Instant::now();
    for k in 0..anim.frames() {
        anim.render(k).map_err(failed)?;
    }
    let render = t0.elapsed().as_secs_f64();
    let dir = std::env::temp_dir().join(format!("pendula-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(failed)?;
    let gif = dir.join("bench.gif");
    let stats = write_animation(&anim, Some(&gif), None, &mut Silent)?;
    let bytes = std::fs::metadata(&gif).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(json!({
        "bench": "animate",
        "size": [size, size],
        "frames": stats.frames,
        "threads": rayon::current_num_threads(),
        "integrate_seconds": integrate,
        "render_only_frames_per_s": anim.frames() as f64 / render,
        "gif_frames_per_s": stats.frames as f64 / stats.seconds,
        "gif_bytes": bytes,
    }))
}

/// Runs the viewer's engine flat out for `seconds` of wall time at N links (S sub-steps per
/// 1/60 s frame, frame JSON built each frame as the server does): the JSON line. The caller
/// checks the three.
pub fn viewer(links: usize, substeps: u64, seconds: f64) -> Value {
    let mut s = Settings::equal(links);
    s.substeps = substeps;
    let mut engine = Engine::new(s);
    let start = Instant::now();
    let mut frames = 0u64;
    let mut bytes = 0usize;
    while start.elapsed().as_secs_f64() < seconds {
        engine.advance(1.0 / crate::serve::FRAME_RATE);
        bytes += engine.frame().to_string().len();
        frames += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let fps = frames as f64 / wall;
    json!({
        "bench": "viewer",
        "links": links,
        "substeps": substeps,
        "steps_per_s": engine.steps as f64 / wall,
        "frames_per_s_capacity": fps,
        "sustains_60_fps": fps >= crate::serve::FRAME_RATE,
        "realtime_factor_at_60_fps": fps / crate::serve::FRAME_RATE,
        "frame_json_bytes": bytes as f64 / frames.max(1) as f64,
        "lyapunov": engine.lyapunov(),
    })
}
