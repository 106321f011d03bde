//! The one check of a lane kernel against the scalar path: [`lanes_and_scalar`] runs a map
//! through the SIMD lanes and through the generic `System` + RK4 path, and [`whole_square`]
//! compares the two on every two-link chain of [`chains`](crate::chains) with the agreement
//! its kind promises ([`agreement`]: one line per lane map kind).

use crate::chains::{chains, worst};
use pendula::analysis::map::{compute_map, Kernel, MapData, MapKind, MapOptions};
use pendula::model::Chain;
use pendula::observe::Silent;

/// The map of `opts` on `chain` through the lanes (`Kernel::Auto` where the catalogue lets
/// `auto` take them, else `Kernel::Lanes`; asserted to run on the kernel named `lanes`) and
/// through the scalar path, both complete: (lanes, scalar).
pub fn lanes_and_scalar(chain: &Chain, opts: &MapOptions, lanes: &str) -> (MapData, MapData) {
    let mut o = opts.clone();
    o.kernel = if o.kind.id().facts().lanes.auto {
        Kernel::Auto
    } else {
        Kernel::Lanes
    };
    assert_eq!(o.kernel_name(chain), lanes, "{}", o.kind.name());
    let fast = compute_map(chain, &o, &mut Silent);
    o.kernel = Kernel::Scalar;
    assert_eq!(o.kernel_name(chain), "scalar");
    let slow = compute_map(chain, &o, &mut Silent);
    assert!(fast.complete() && slow.complete(), "{}", o.kind.name());
    assert_eq!(fast.aux.len(), slow.aux.len(), "{}", o.kind.name());
    (fast, slow)
}

/// How closely a kind's lanes reproduce the scalar path on [`whole_square`].
#[derive(Debug, Clone, Copy)]
pub struct Agreement {
    /// Largest relative difference of the values ([`worst`]).
    value: f64,
    /// The scale below which values are compared absolutely: a fraction of the scalar map's
    /// largest |value| (`Scale`) or a fixed number (`Abs`).
    floor: Floor,
    /// The aux columns: within a relative bound (on the scale of 1 % of their largest), or bit
    /// for bit.
    aux: Option<f64>,
    /// Whether every pixel runs exactly t_max / dt steps on both paths.
    full_steps: bool,
}

#[derive(Debug, Clone, Copy)]
enum Floor {
    Scale(f64),
    Abs(f64),
}

/// The agreement of each lane map kind (one line a kind; the bounds and what they rest on are
/// in the tests that call [`whole_square`]).
pub fn agreement(kind: MapKind) -> Agreement {
    let (value, floor, aux, full_steps) = match kind {
        // λ and FTLE: measured worst 3.9e-14 (the floor of 1 % of the map's scale: without it
        // λ's worst is 3e-11 at a pixel where λ ≈ 0); λ's aux (errors, time used, flag) too.
        MapKind::Lyapunov { .. } | MapKind::Ftle => (1e-12, Floor::Scale(1e-2), Some(1e-11), false),
        // ⟨Y⟩ integrates r = δ̇·δ/δ·δ, which changes sign every swing: a small remainder of
        // large cancelling parts, so its rounding is ~10× that of λ (measured worst 2.3e-12 on
        // rods); the slope is a least-squares difference quotient of ⟨Y⟩ samples, which
        // amplifies their rounding (measured worst 2.8e-12).
        MapKind::Megno { .. } => (1e-11, Floor::Scale(1e-2), Some(1e-11), false),
        // SALI and GALI_k on the scale 1e-4: GALI_4 of nearly dependent unit vectors is a small
        // remainder of O(1) products, so its rounding is absolute (measured worst 6.9e-13);
        // chaos times bit for bit, n_steps on every pixel.
        MapKind::Sali { .. } | MapKind::Gali { .. } => (1e-12, Floor::Abs(1e-4), None, true),
        // FLI and OFLI: sups of the log-norms λ sums (measured worst 2.4e-14); OFLI's ln‖w⊥‖
        // subtracts the flow's component, a cancellation (measured worst 5.2e-13).
        MapKind::Fli { .. } => (1e-12, Floor::Scale(1e-2), Some(1e-11), true),
        // M and its halves: |ẋᵢ|^p has an infinite slope at ẋᵢ = 0, so where an RK4 stage's
        // derivative passes within rounding of 0 the paths' 1e-16 differences enter as their
        // p-th power (1e-8 for p = 1/2), weighted by h/6 (measured worst 5.3e-11 for p = 1/2,
        // in the value and either half); both halves count their steps.
        MapKind::LagrangianDescriptor { .. } => (1e-9, Floor::Scale(1e-2), Some(1e-9), false),
        other => panic!("{} has no whole-square agreement", other.name()),
    };
    Agreement {
        value,
        floor,
        aux,
        full_steps,
    }
}

/// The largest |value| of a map (its scale).
pub fn scale(a: &[f64]) -> f64 {
    a.iter()
        .filter(|v| v.is_finite())
        .fold(0.0, |m, v| m.max(v.abs()))
}

/// Every chain of [`chains`](crate::chains::chains) and every pixel of a 32² benchmark-F
/// square over t_max = 1 s, for each of `kinds`: the same classes and steps, finite values,
/// and values and aux within the kind's [`agreement`].
pub fn whole_square(kinds: &[MapKind]) {
    for (name, chain) in chains() {
        for &kind in kinds {
            let mut opts = MapOptions::benchmark_f(32, 1.0);
            opts.kind = kind;
            opts.tile = 8;
            let (fast, slow) = lanes_and_scalar(&chain, &opts, "simd-two-link");
            let label = format!("{name} {} {kind:?}", kind.name());
            assert_agree(&label, kind, &fast, &slow);
            if agreement(kind).full_steps {
                assert_eq!(fast.steps, 32 * 32 * 100, "{label}");
            }
        }
    }
}

/// A lane map (`fast`) against the scalar one (`slow`) of `kind`: the same classes and steps,
/// finite values, and values and aux within the kind's [`agreement`].
pub fn assert_agree(label: &str, kind: MapKind, fast: &MapData, slow: &MapData) {
    let a = agreement(kind);
    assert_eq!(fast.class, slow.class, "{label}");
    assert!(fast.value.iter().all(|v| v.is_finite()), "{label}");
    let floor = match a.floor {
        Floor::Scale(f) => f * scale(&slow.value),
        Floor::Abs(f) => f,
    };
    let dv = worst(&fast.value, &slow.value, floor);
    let pure = worst(&fast.value, &slow.value, 0.0);
    let smallest = fast.value.iter().fold(f64::INFINITY, |m, v| m.min(*v));
    eprintln!("{label}: value {dv:.2e} (pure relative {pure:.2e}, smallest value {smallest:.2e})");
    assert!(dv <= a.value, "{label}: {dv:e}");
    match a.aux {
        Some(bound) => {
            let da = worst(&fast.aux, &slow.aux, 1e-2 * scale(&slow.aux));
            eprintln!("{label}: aux {da:.2e}");
            assert!(da <= bound, "{label}: aux {da:e}");
        }
        None => {
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast.aux), bits(&slow.aux), "{label}");
        }
    }
    assert_eq!(fast.steps, slow.steps, "{label}");
}
