//! The two-link chains and map helpers the SIMD-lane tests (the tangent and indicator lanes
//! modules and the [`harness`](crate::harness)) share: one set of chains, so every two-link
//! lane kind is checked on the same damping and drive branches.

use pendula::analysis::map::{compute_map, Kernel, MapData, MapKind, MapOptions};
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, PivotMotion};
use pendula::observe::Silent;

/// The four chains: unit points, unit rods, damped points, damped and driven rods.
pub fn chains() -> Vec<(&'static str, Chain)> {
    let damped = |mut p: ChainParams| {
        p.damping = Damping {
            absolute: vec![0.3, 0.2],
            joint: vec![0.1, 0.05],
        };
        p
    };
    let driven = |mut p: ChainParams| {
        p.drive = Drive {
            torque: Some(Harmonic {
                amplitude: 1.5,
                frequency: 2.0,
                phase: 0.3,
            }),
            pivot: Some(PivotMotion {
                x_amplitude: 0.05,
                y_amplitude: 0.02,
                frequency: 3.0,
                phase: 0.1,
            }),
        };
        p
    };
    vec![
        ("points", ChainParams::equal_points(2)),
        ("rods", ChainParams::equal_rods(2)),
        ("damped points", damped(ChainParams::equal_points(2))),
        (
            "damped driven rods",
            driven(damped(ChainParams::equal_rods(2))),
        ),
    ]
    .into_iter()
    .map(|(n, p)| (n, Chain::new(p).unwrap()))
    .collect()
}

/// A `width`² benchmark-F map of `kind` over `t_max` on `kernel` (checked to be the one
/// used), every tile done.
pub fn run(chain: &Chain, kind: MapKind, width: usize, t_max: f64, kernel: Kernel) -> MapData {
    let mut opts = MapOptions::benchmark_f(width, t_max);
    opts.kind = kind;
    opts.kernel = kernel;
    opts.tile = 8;
    let want = if kernel == Kernel::Auto {
        "simd-two-link"
    } else {
        "scalar"
    };
    assert_eq!(opts.kernel_name(chain), want);
    let d = compute_map(chain, &opts, &mut Silent);
    assert!(d.done.iter().all(|&x| x));
    d
}

/// Largest |a − b| / max(|a|, |b|, floor) over pixels (both NaN counts as equal): relative,
/// except that values within `floor` of zero are compared on the scale `floor` (a λ crossing
/// zero inside the square has no relative accuracy to speak of).
pub fn worst(a: &[f64], b: &[f64], floor: f64) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            if (x.is_nan() && y.is_nan()) || x == y {
                0.0
            } else {
                (x - y).abs() / x.abs().max(y.abs()).max(floor)
            }
        })
        .fold(0.0, f64::max)
}

/// Runs `opts` on 1 thread (tile 8) and on 2 threads (tiles 8 and 16) and asserts every map
/// complete and the three equal bit for bit in class, value, aux and steps (`done` has one
/// entry per tile, so it is compared through `steps` and the arrays).
pub fn assert_threads_and_tiles_agree(chain: &Chain, mut opts: MapOptions) {
    let mut maps = vec![];
    for (threads, tile) in [(1, 8), (2, 8), (2, 16)] {
        opts.tile = tile;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        maps.push(pool.install(|| compute_map(chain, &opts, &mut Silent)));
    }
    let bits = |m: &MapData| {
        let b = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        (m.class.clone(), b(&m.value), b(&m.aux), m.steps)
    };
    for m in &maps[1..] {
        assert!(m.done.iter().all(|&d| d));
        assert_eq!(bits(m), bits(&maps[0]), "{}", opts.kind.name());
    }
}
