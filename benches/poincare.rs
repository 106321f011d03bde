//! Poincaré sections of the equal double pendulum: 100 orbits × 1000 crossings of θ1 = 0
//! (θ̇1 > 0) at E = 9.81 J (the first-arm flip threshold), DOP853 at 1e-10, all cores.
//! Criterion's throughput line is crossings per second. Run: `cargo bench --bench poincare`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pendula::analysis::poincare::{
    section_orbits, shell_initial_conditions, Sampling, Section, SectionOptions, ShellSampling,
    Variables,
};
use pendula::integrate::Direction;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use std::time::Duration;

fn poincare_double(c: &mut Criterion) {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let section = Section::angle(0, 0.0, Direction::Rising);
    let sampling = ShellSampling {
        link: 1,
        variables: Variables::Momentum,
        sampling: Sampling::Random {
            count: 100,
            seed: 7,
        },
        angle_range: Some((-std::f64::consts::PI, std::f64::consts::PI)),
        speed_range: None,
    };
    let start = shell_initial_conditions(&chain, &section, 9.81, &sampling).unwrap();
    let states: Vec<Vec<f64>> = start.states.iter().cycle().take(100).cloned().collect();
    let opts = SectionOptions {
        crossings: 1000,
        rtol: 1e-10,
        atol: 1e-10,
        ..Default::default()
    };
    let mut group = c.benchmark_group("poincare");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(100 * 1000));
    group.bench_function("double_100x1000_E9.81_dop853_1e-10", |b| {
        b.iter(|| {
            let (orbits, _) = section_orbits(&chain, &section, &states, &opts, &mut Silent);
            assert!(orbits.iter().all(|o| o.len() == 1000));
            orbits
        })
    });
    group.finish();
}

criterion_group!(benches, poincare_double);
criterion_main!(benches);
