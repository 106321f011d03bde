//! Final-state and SALI maps: a 32² basin map of the damped double pendulum of
//! `analyses/damped-driven-basins.toml` (γ = 0.4, tolerances 0.05, t_max = 60 s) on the SIMD
//! kernel and on the generic scalar path, and a 8² SALI map over 50 s (generic path). Criterion's throughput line is RK4 steps per second (the
//! steps the pixels really took: a settled pixel stops). Run: `cargo bench --bench map_kinds`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pendula::analysis::map::basins::Settle;
use pendula::analysis::map::{compute_map, Kernel, MapKind, MapOptions};
use pendula::model::{Chain, ChainParams, Damping};
use pendula::observe::Silent;
use std::time::Duration;

fn basins(c: &mut Criterion) {
    let mut p = ChainParams::equal_points(2);
    p.damping = Damping {
        absolute: vec![0.4; 2],
        joint: vec![],
    };
    let chain = Chain::new(p).unwrap();
    let mut opts = MapOptions::benchmark_f(32, 60.0);
    opts.kind = MapKind::FinalState {
        settle: Settle {
            angle_tol: 0.05,
            omega_tol: 0.05,
            dwell_steps: 100,
            strobe: None,
        },
    };
    let steps = compute_map(&chain, &opts, &mut Silent).steps;
    let mut g = c.benchmark_group("map");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(steps));
    g.bench_function("final_state_32", |b| {
        b.iter(|| compute_map(&chain, &opts, &mut Silent))
    });
    let scalar = MapOptions {
        kernel: Kernel::Scalar,
        ..opts.clone()
    };
    g.bench_function("final_state_32_scalar", |b| {
        b.iter(|| compute_map(&chain, &scalar, &mut Silent))
    });
    let free = Chain::new(ChainParams::equal_points(2)).unwrap();
    let mut sali = MapOptions::benchmark_f(8, 50.0);
    sali.kind = MapKind::Sali { tau_steps: 10 };
    let steps = compute_map(&free, &sali, &mut Silent).steps;
    g.throughput(Throughput::Elements(steps));
    g.bench_function("sali_8", |b| {
        b.iter(|| compute_map(&free, &sali, &mut Silent))
    });
    g.finish();
}

criterion_group!(benches, basins);
criterion_main!(benches);
