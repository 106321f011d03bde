//! FLI maps (`--kind fli`): each pixel is the single-orbit FLI reducer from its start, to the
//! bit, and the map tells the regular island around the hanging double pendulum (FLI ≈ ln t)
//! from the chaotic sea (FLI ≈ λ_max t).

use pendula::analysis::map::{compute_map, MapKind, MapOptions};
use pendula::analysis::orbit::{fli_orbit, FliOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

use crate::harness::whole_square;

#[test]
fn pixels_equal_the_single_orbit_fli_and_split_regular_from_chaotic() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    // 8 × 8 pixels over (θ1, θ2) ∈ [−π, π)², released from rest, τ = 0.1 s, t_max = 100 s.
    let mut opts = MapOptions::benchmark_f(8, 100.0);
    opts.kind = MapKind::Fli { tau_steps: 10 };
    opts.tile = 4;
    let m = compute_map(&chain, &opts, &mut Silent);
    assert!(m.complete());
    let fo = FliOptions {
        tau: 0.1,
        time: 100.0,
        max_history: 16,
        deviation: None,
        slope_samples: None,
    };
    let mut x = vec![0.0; 4];
    for i in 0..8 {
        for j in 0..8 {
            assert!(opts.grid.start(&chain, i, j, &mut x));
            let r = fli_orbit(&chain, &Method::Rk4 { dt: 0.01 }, &x, &fo, &mut Silent).unwrap();
            let p = i * 8 + j;
            assert_eq!(m.value[p].to_bits(), r.fli.to_bits(), "pixel {p}");
            assert_eq!(m.aux[p].to_bits(), r.ofli.to_bits(), "pixel {p}");
        }
    }
    // The pixels next to the centre (|θ| ≈ 0.4) are regular: FLI ≲ ln t ≈ 4.6; the corner
    // pixels (θ ≈ ±2.7, released near the top) are chaotic: FLI grows like λ_max·t ≈ 100.
    let centre = [27, 28, 35, 36].map(|p| m.value[p]);
    assert!(centre.iter().all(|&f| f < 100f64.ln()), "{centre:?}");
    let corner = m.value[0];
    assert!(corner > 20.0, "{corner}");
}

/// The FLI lanes (`--kernel lanes`) against the scalar path over the whole square of every
/// two-link chain, damped and driven ones included: the same classes and steps, FLI and OFLI
/// within the bound of [`agreement`](crate::harness::agreement).
#[test]
fn lanes_match_the_scalar_path_on_the_whole_square() {
    whole_square(&[
        MapKind::Fli { tau_steps: 10 },
        MapKind::Fli { tau_steps: 4 },
    ]);
}
