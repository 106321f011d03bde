//! Benchmark F as a library call (`pendula bench flip`, `benches/flip.rs`): the exact grid,
//! RK4 and flip rule, timed over the computation only, with its checksum fields.

use super::{compute_map, FlipStats, MapData, MapOptions};
use crate::model::{Chain, ChainParams};
use crate::observe::Silent;
use serde::Serialize;
use std::time::Instant;

/// One benchmark F measurement (the field names of docs/benchmarks.md).
#[derive(Debug, Clone, Serialize)]
pub struct FlipBench {
    pub benchmark: &'static str,
    pub width: usize,
    pub t_max: f64,
    pub energy_skip: bool,
    pub kernel: &'static str,
    pub wall_s: f64,
    pub wall_s_all: Vec<f64>,
    /// Benchmark F's `steps`: Σ_p (k_p if flipped else n_steps), independent of the skip.
    pub steps: u64,
    /// RK4 steps actually integrated (smaller than `steps` with the energy skip).
    pub steps_integrated: u64,
    pub steps_per_s: f64,
    pub threads: usize,
    pub steps_per_s_per_thread: f64,
    /// Process CPU seconds of the best repeat over its wall time (≈ threads when not starved).
    pub cpu_share: f64,
    pub checksum: Checksum,
    pub n_forbidden: u64,
    pub n_forbidden_flipped: u64,
    pub symmetry_mismatches: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Checksum {
    pub n_flipped: u64,
    pub sum_flip_steps: u64,
    pub sum_flip_time: f64,
    pub fnv1a64: String,
}

/// Process CPU time (user + system) in seconds, from /proc/self/stat where available.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// `repeats` (at least one) timed runs of the map: the last map, every wall time, and the best
/// wall time with its CPU share (process CPU seconds per wall second).
fn timed_runs(chain: &Chain, opts: &MapOptions, repeats: usize) -> (MapData, Vec<f64>, (f64, f64)) {
    let mut walls = Vec::new();
    let mut best = (f64::INFINITY, 0.0);
    let mut data = None;
    for _ in 0..repeats.max(1) {
        let cpu0 = process_cpu_seconds();
        let t0 = Instant::now();
        let d = compute_map(chain, opts, &mut Silent);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = match (cpu0, process_cpu_seconds()) {
            (Some(a), Some(b)) => (b - a) / wall,
            _ => f64::NAN,
        };
        walls.push(wall);
        if wall < best.0 {
            best = (wall, cpu);
        }
        data = Some(d);
    }
    (data.expect("at least one repeat"), walls, best)
}

/// Runs benchmark F `repeats` times on a `width`² grid in rayon's current pool.
pub fn bench_flip(width: usize, t_max: f64, repeats: usize, energy_skip: bool) -> FlipBench {
    let chain = Chain::new(ChainParams::equal_points(2)).expect("unit double pendulum");
    let mut opts = MapOptions::benchmark_f(width, t_max);
    opts.energy_skip = energy_skip;
    let (data, walls, best) = timed_runs(&chain, &opts, repeats);
    let s: FlipStats = data.flip_stats(opts.dt);
    let n = u64::from(opts.n_steps());
    let px = data.flip_step.len() as u64;
    let steps = s.sum_flip_steps + (px - s.n_flipped) * n;
    let threads = rayon::current_num_threads();
    let steps_per_s = steps as f64 / best.0;
    FlipBench {
        benchmark: "F",
        width,
        t_max,
        energy_skip,
        kernel: opts.kernel_name(&chain),
        wall_s: best.0,
        wall_s_all: walls,
        steps,
        steps_integrated: data.steps,
        steps_per_s,
        threads,
        steps_per_s_per_thread: steps_per_s / threads as f64,
        cpu_share: best.1,
        checksum: Checksum {
            n_flipped: s.n_flipped,
            sum_flip_steps: s.sum_flip_steps,
            sum_flip_time: s.sum_flip_time,
            fnv1a64: s.fnv1a64,
        },
        n_forbidden: s.n_forbidden,
        n_forbidden_flipped: s.n_forbidden_flipped,
        symmetry_mismatches: s.symmetry_mismatches.unwrap_or(0),
    }
}

/// One `pendula bench map` measurement: a chaos-indicator map of the unit double pendulum over
/// benchmark F's square, timed over the computation only.
#[derive(Debug, Clone, Serialize)]
pub struct MapBench {
    pub benchmark: &'static str,
    pub kind: &'static str,
    pub width: usize,
    pub t_max: f64,
    pub dt: f64,
    /// The code that ran the pixels: `simd-two-link` or `scalar`.
    pub kernel: &'static str,
    pub wall_s: f64,
    pub wall_s_all: Vec<f64>,
    /// RK4 steps integrated (state and tangent vectors together count as one step).
    pub steps: u64,
    pub steps_per_s: f64,
    pub threads: usize,
    pub cpu_share: f64,
    /// Σ of the finite pixel values and how many were finite (a coarse checksum: lanes and
    /// scalar agree to rounding, not to the bit).
    pub value_sum: f64,
    pub n_finite: u64,
}

/// Times `repeats` runs of a `width`² map of `kind` (Lyapunov, FTLE, MEGNO, SALI, ...) over
/// [−π, π)² at dt = 0.01 with the given kernel, in rayon's current pool.
pub fn bench_map(
    kind: super::MapKind,
    width: usize,
    t_max: f64,
    kernel: super::Kernel,
    repeats: usize,
) -> MapBench {
    let chain = Chain::new(ChainParams::equal_points(2)).expect("unit double pendulum");
    let mut opts = MapOptions::benchmark_f(width, t_max);
    opts.kind = kind;
    opts.kernel = kernel;
    let (data, walls, best) = timed_runs(&chain, &opts, repeats);
    let finite = data.value.iter().filter(|v| v.is_finite());
    MapBench {
        benchmark: "map",
        kind: kind.name(),
        width,
        t_max,
        dt: opts.dt,
        kernel: opts.kernel_name(&chain),
        wall_s: best.0,
        wall_s_all: walls,
        steps: data.steps,
        steps_per_s: data.steps as f64 / best.0,
        threads: rayon::current_num_threads(),
        cpu_share: best.1,
        value_sum: finite.clone().sum(),
        n_finite: finite.count() as u64,
    }
}
