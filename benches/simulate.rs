//! `simulate` of the double pendulum for 1000 s with the adaptive integrator at 1e-10
//! (issue: foundation benchmarks). Run: `cargo bench --bench simulate`.

use criterion::{criterion_group, criterion_main, Criterion};
use pendula::analysis::{simulate, SimulateOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

fn simulate_double(c: &mut Criterion) {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let method = Method::Dop853 {
        rtol: 1e-10,
        atol: 1e-10,
        h_max: f64::INFINITY,
    };
    let opts = SimulateOptions {
        t_end: 1000.0,
        dt_out: 0.01,
    };
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.bench_function("double_1000s_dop853_1e-10", |b| {
        b.iter(|| simulate(&chain, &method, &[2.0, 2.0, 0.0, 0.0], &opts, &mut Silent).unwrap())
    });
    group.finish();
}

criterion_group!(benches, simulate_double);
criterion_main!(benches);
