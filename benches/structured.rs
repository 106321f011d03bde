//! Per-step cost of the chain routes (issue 8, item 4): one RK4 step of the equal point chain,
//! state only and state + 2N tangents, N = 2 … 2048, dense and structured kernels (and the
//! fixed-size kernels of `Route::Small` at N = 2, 3).
//! Run: `cargo bench --bench structured -- rk4_route`; the crossover sets
//! `Chain::STRUCTURED_MIN_LINKS`, and t(2N)/t(N) for N ≥ 128 shows the O(N) slope.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pendula::integrate::{Flow, Rk4, Solver};
use pendula::model::{Chain, ChainParams, Route};
use std::hint::black_box;
use std::time::Duration;

fn rk4_route(c: &mut Criterion) {
    let mut group = c.benchmark_group("rk4_route");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for &n in &[2usize, 3, 8, 32, 128, 512, 2048] {
        for route in [Route::Small, Route::Dense, Route::Structured] {
            if route == Route::Small && n > 3 {
                continue;
            }
            let chain = Chain::new(ChainParams::equal_points(n))
                .unwrap()
                .with_route(route);
            let x0: Vec<f64> = (0..2 * n)
                .map(|i| if i < n { 2.0 - 0.01 * i as f64 } else { 0.0 })
                .collect();
            for &(label, k) in &[("state", 0usize), ("state+2N", 2 * n)] {
                // Dense: O(N³) per step, and O(N³) per tangent block; skip the hopeless sizes.
                if route == Route::Dense && (n >= 2048 || (k > 0 && n >= 512)) {
                    continue;
                }
                if route == Route::Structured && k > 0 && n >= 2048 {
                    group.sample_size(10);
                }
                let mut flow = Flow::with_layout(&chain, false, k);
                let mut y = flow.initial(&x0, None);
                let mut solver = Rk4::new(1e-4).solver(y.len());
                let mut t = 0.0;
                let id = BenchmarkId::new(format!("{label}/{route:?}").to_lowercase(), n);
                group.bench_function(id, |b| {
                    b.iter(|| {
                        if t > 1.0 {
                            y = flow.initial(&x0, None);
                            t = 0.0;
                        }
                        t = solver
                            .step(&mut flow, t, black_box(&mut y), f64::INFINITY)
                            .unwrap();
                    })
                });
                group.sample_size(100);
            }
        }
    }
    group.finish();
}

criterion_group!(benches, rk4_route);
criterion_main!(benches);
