//! One RK4 step of the planar point chain, with and without a tangent block of 2N vectors
//! (issue: foundation benchmarks). Run: `cargo bench --bench step`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pendula::integrate::{Flow, Rk4, Solver};
use pendula::model::{Chain, ChainParams};
use std::hint::black_box;

fn rk4_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("rk4_step");
    for &n in &[2usize, 3, 8, 32] {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let x0: Vec<f64> = (0..2 * n)
            .map(|i| if i < n { 2.0 - 0.01 * i as f64 } else { 0.0 })
            .collect();
        for &(label, k) in &[("state", 0usize), ("state+2N tangents", 2 * n)] {
            let mut flow = Flow::with_layout(&chain, false, k);
            let mut y = flow.initial(&x0, None);
            let mut solver = Rk4::new(1e-3).solver(y.len());
            let mut t = 0.0;
            group.throughput(Throughput::Elements(1));
            group.bench_function(BenchmarkId::new(label, n), |b| {
                b.iter(|| {
                    // Stay on a bounded orbit: restart every 10⁴ steps.
                    if t > 10.0 {
                        y = flow.initial(&x0, None);
                        t = 0.0;
                    }
                    t = solver
                        .step(&mut flow, t, black_box(&mut y), f64::INFINITY)
                        .unwrap();
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, rk4_step);
criterion_main!(benches);
