//! Issue 33's figure: the double pendulum's diffusion map (frequency kind) at 256², 2 × 1 024
//! samples per pixel, on all cores, at the window and defaults of
//! `analyses/double-pendulum-diffusion.toml` (θ1, θ2 ∈ [−1.5, 1.5]², released from rest; samples
//! 0.1 s apart over 204.8 s, Gauss–Legendre order 6 at the map's default dt, Hann p = 2).
//!
//! One whole map takes tens of seconds, so this is a bench binary that times one run (after no
//! warm-up: the map has no state to warm) and prints the wall time, not a Criterion loop.
//! `DIFFUSION_RES=64` runs a smaller map over the same window (1/16 of the work).
//! The tally of tori (index < −8) and chaotic pixels (> −4) is printed as a sanity check.
//! The chain is conservative with two links, so the orbits run on the SIMD lanes and NAFF's sums
//! on the widest vectors this CPU has (`PENDULA_SIMD=avx2` or `baseline` times the others; the
//! same bits).
//!
//! Run: `cargo bench --bench diffusion` (the equivalent CLI command is in README's frequency
//! section).

use pendula::analysis::map::{compute_map, Grid, GridAxis, Kernel, MapKind, MapOptions, Tiling};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use std::time::Instant;

fn main() {
    let res: usize = std::env::var("DIFFUSION_RES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let samples = 2048u32;
    // The map's defaults (src/spec/map.rs): t_end = 0.1 s per sample, dt as the spec's default.
    let spec_dt = pendula::analysis::map::kinds::frequency::DEFAULT_DT;
    let sample_steps = (0.1 / spec_dt).round() as u32;
    let axis = |index| GridAxis {
        index,
        lo: -1.5,
        hi: 1.5,
    };
    let opts = MapOptions {
        grid: Grid {
            width: res,
            height: res,
            x: axis(0),
            y: axis(1),
            base: vec![0.0; 4],
            shell: None,
        },
        kind: MapKind::Frequency {
            sample_steps,
            samples,
            window_order: 2,
        },
        t_max: 0.1 * f64::from(samples),
        dt: spec_dt,
        energy_skip: false,
        tile: Tiling::default_size(res, res),
        kernel: Kernel::Auto,
    };
    let threads = rayon::current_num_threads();
    let start = Instant::now();
    let data = compute_map(&chain, &opts, &mut Silent);
    let wall = start.elapsed().as_secs_f64();
    let tori = data.value.iter().filter(|v| **v < -8.0).count();
    let chaos = data.value.iter().filter(|v| **v > -4.0).count();
    println!(
        "diffusion map {res}x{res}, {samples} samples, dt {spec_dt} s, {threads} threads: \
         {wall:.2} s wall ({:.3} ms/pixel/thread), {} Gauss steps; index < -8: {tori}, > -4: {chaos}",
        wall * 1e3 * threads as f64 / (res * res) as f64,
        data.steps
    );
}
