//! Initial-condition maps: benchmark F's reference table (the correctness oracle), symmetry,
//! thread-count independence, and the real binary's resume, shards, merge and bad input.

use pendula::analysis::map::{self, compute_map, Kernel, MapOptions};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

fn double() -> Chain {
    Chain::new(ChainParams::equal_points(2)).unwrap()
}

/// Benchmark F's reference rows: W, n_flipped, sum_flip_steps, steps, fnv1a64, n_forbidden.
const TABLE: [(usize, u64, u64, u64, &str, u64); 2] = [
    (64, 2340, 637056, 2393056, "d28d64c5649257e1", 1264),
    (128, 9424, 2635044, 9595044, "3151129d2bae4a85", 5016),
];

fn check_row(w: usize, skip: bool, kernel: Kernel) {
    let row = TABLE.iter().find(|r| r.0 == w).unwrap();
    let mut opts = MapOptions::benchmark_f(w, 10.0);
    opts.energy_skip = skip;
    opts.kernel = kernel;
    let data = compute_map(&double(), &opts, &mut Silent);
    assert!(data.complete());
    let s = data.flip_stats(opts.dt);
    let label = format!("W = {w}, skip = {skip}, {kernel:?}");
    assert_eq!(s.n_flipped, row.1, "{label}");
    assert_eq!(s.sum_flip_steps, row.2, "{label}");
    assert_eq!(s.fnv1a64, row.4, "{label}");
    assert_eq!(s.n_forbidden, row.5, "{label}");
    assert_eq!(s.n_forbidden_flipped, 0, "{label}");
    assert_eq!(s.symmetry_mismatches, Some(0), "{label}");
    if skip {
        // Forbidden pixels cost nothing: steps = benchmark steps − n_forbidden · n_steps.
        assert_eq!(data.steps, row.3 - row.5 * 1000, "{label}");
    } else {
        assert_eq!(data.steps, row.3, "{label}");
    }
}

#[test]
fn benchmark_f_w64() {
    check_row(64, false, Kernel::Auto);
    check_row(64, true, Kernel::Auto);
}

#[test]
fn benchmark_f_w128() {
    check_row(128, false, Kernel::Auto);
    check_row(128, true, Kernel::Auto);
}

#[test]
fn benchmark_f_w64_generic_scalar_path() {
    check_row(64, false, Kernel::Scalar);
    check_row(64, true, Kernel::Scalar);
}

#[test]
fn thread_counts_give_identical_maps() {
    let mut opts = MapOptions::benchmark_f(96, 10.0);
    opts.tile = 16;
    let chain = double();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| compute_map(&chain, &opts, &mut Silent));
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| compute_map(&chain, &opts, &mut Silent));
    assert_eq!(one, two);
    // A different tile size changes the work split, not a single pixel.
    opts.tile = 40;
    let other = compute_map(&chain, &opts, &mut Silent);
    assert_eq!(one.flip_step, other.flip_step);
    assert_eq!(one.class, other.class);
}

#[test]
fn energy_criterion_generalizes() {
    // Equal rods: forbidden iff 3 cos θ1 + cos θ2 > 2 (physics.md §5).
    let rods = Chain::new(ChainParams::equal_rods(2)).unwrap();
    let t = map::EnergyTest::new(&rods, map::FlipTarget::Any).unwrap();
    for (a, b) in [(0.1, 0.2), (0.5, 1.5), (1.0, 0.3), (2.0, 0.1), (0.0, 2.0)] {
        let want = 3.0 * f64::cos(a) + f64::cos(b) > 2.0;
        assert_eq!(t.forbidden(&rods, &[a, b, 0.0, 0.0]), want, "({a}, {b})");
    }
}
