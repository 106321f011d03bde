//! Benchmark F (docs/benchmarks.md): flip-time fractal of the double pendulum, W = 256,
//! t_max = 10, best of 5, without and with the energy skip; one JSON line each.
//! Run: `cargo bench --bench flip` (env FLIP_W, FLIP_REPEATS override the size and repeats).

use pendula::analysis::map::bench::bench_flip;

fn main() {
    let w = std::env::var("FLIP_W")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let r = std::env::var("FLIP_REPEATS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    for skip in [false, true] {
        let b = bench_flip(w, 10.0, r, skip);
        println!("{}", serde_json::to_string(&b).unwrap());
    }
}
