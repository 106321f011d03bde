//! One RK4 step (with the projection onto ‖q_i‖ = 1, q_i·ω_i = 0) of the chain of spherical
//! pendulums on a free cart, with and without the full tangent block of 4n + 4 deviation vectors
//! (issue 7). Run: `cargo bench --bench cart_step`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pendula::integrate::{Flow, Rk4, Solver};
use pendula::model::{CartChain, CartChainParams, System};
use std::hint::black_box;

fn cart_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("cart_rk4_step");
    group.sample_size(20);
    group.measurement_time(std::time::Duration::from_secs(2));
    group.warm_up_time(std::time::Duration::from_millis(500));
    for &n in &[1usize, 2, 3, 8] {
        let sys = CartChain::new(CartChainParams::uniform(n, 1.0, 1.0, Some(1.0))).unwrap();
        // Every link tilted 1 rad in a different azimuth, spinning about the vertical.
        let q: Vec<[f64; 3]> = (0..n)
            .map(|i| {
                let phi = i as f64;
                [1f64.sin() * phi.cos(), 1f64.sin() * phi.sin(), 1f64.cos()]
            })
            .collect();
        let w: Vec<[f64; 3]> = q.iter().map(|q| [-q[1], q[0], 0.0]).collect();
        let w: Vec<[f64; 3]> = w
            .iter()
            .zip(&q)
            .map(|(w, q)| {
                let d = w[0] * q[0] + w[1] * q[1] + w[2] * q[2];
                [w[0] - d * q[0], w[1] - d * q[1], w[2] - d * q[2]]
            })
            .collect();
        let x0 = sys.state([0.0; 2], [0.1, 0.0], &q, &w);
        for &(label, k) in &[
            ("state", 0usize),
            ("state+tangent block", sys.manifold_dim()),
        ] {
            let mut flow = Flow::with_layout(&sys, false, k);
            let mut y = flow.initial(&x0, None);
            let mut solver = Rk4::new(1e-3).solver(y.len());
            let mut t = 0.0;
            group.throughput(Throughput::Elements(1));
            group.bench_function(BenchmarkId::new(label, n), |b| {
                b.iter(|| {
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

criterion_group!(benches, cart_step);
criterion_main!(benches);
