//! Benchmark L (docs/benchmarks.md): the Lyapunov spectrum of the 3-link chain, T = 200 s,
//! 210 000 RK4 steps of the 42-dimensional system, 1 thread.
//!
//! Run: `cargo bench --bench lyapunov`. Before the criterion samples it prints one JSON line with
//! the fields docs/benchmarks.md names for L (best of 3 repeats), from the same library call that
//! `pendula bench lyapunov` exposes.

use criterion::{criterion_group, criterion_main, Criterion};
use pendula::analysis::lyapunov::{bench_lyapunov, chain_spectrum, LyapunovOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

fn benchmark_l(c: &mut Criterion) {
    let report = bench_lyapunov(3, 10.0, 200.0, 3).expect("benchmark L");
    println!("{}", serde_json::to_string(&report).expect("json"));

    let chain = Chain::new(ChainParams::equal_points(3)).unwrap();
    let x0 = [2.0, 2.0, 2.0, 0.0, 0.0, 0.0];
    let method = Method::Rk4 { dt: 1e-3 };
    let opts = LyapunovOptions::default();
    let mut group = c.benchmark_group("lyapunov");
    group.sample_size(10);
    group.bench_function("benchmark_L_N3_T200_rk4", |b| {
        b.iter(|| chain_spectrum(&chain, &method, &x0, &opts, &mut Silent).unwrap())
    });
    group.finish();
}

criterion_group!(benches, benchmark_l);
criterion_main!(benches);
