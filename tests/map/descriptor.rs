//! Lagrangian descriptor maps (`--kind lagrangian-descriptor`) against what is known exactly:
//! the simple pendulum's separatrix θ̇ = ±2√(g/l) at θ = 0 is where the descriptor's valley
//! lies (to within one pixel at 512 pixels a side), and at small amplitude the integral is the
//! harmonic oscillator's, whose mean of |sin|^{1/2} is Γ(3/4)/(√π Γ(5/4)).

use crate::spawn::{json, run};
use pendula::analysis::map::{compute_map, Grid, GridAxis, MapData, MapKind, MapOptions, Tiling};
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

use crate::harness::whole_square;

fn simple() -> Chain {
    Chain::new(ChainParams::equal_points(1)).unwrap()
}

/// A one-column map of the simple pendulum at θ = `theta` over ω ∈ [lo, hi] (`height` pixels).
fn column(theta: f64, lo: f64, hi: f64, height: usize, t_max: f64, dt: f64, p: f64) -> MapData {
    let opts = MapOptions {
        grid: Grid {
            width: 1,
            height,
            x: GridAxis {
                index: 0,
                lo: theta - 1e-9,
                hi: theta + 1e-9,
            },
            y: GridAxis { index: 1, lo, hi },
            base: vec![0.0; 2],
            shell: None,
        },
        kind: MapKind::LagrangianDescriptor { p },
        t_max,
        dt,
        energy_skip: false,
        tile: Tiling::default_size(1, height),
        kernel: pendula::analysis::map::Kernel::Auto,
    };
    compute_map(&simple(), &opts, &mut Silent)
}

/// The pixel centre of row i of [lo, hi] in `n` rows.
fn centre(lo: f64, hi: f64, n: usize, i: usize) -> f64 {
    lo + (i as f64 + 0.5) * (hi - lo) / n as f64
}

/// The separatrix of the simple pendulum (l = 1 m, g = 9.81) crosses θ = 0 at ω = ±2√g; the
/// descriptor's local minimum along the θ = 0 column must sit in the pixel that holds it (or
/// its neighbour: within one pixel), for the sum and for each half, at 512 pixels over
/// [−8, 8] rad/s with τ = 10 s.
#[test]
fn the_valley_lies_on_the_separatrix_within_one_pixel() {
    let (lo, hi, n) = (-8.0, 8.0, 512);
    let m = column(0.0, lo, hi, n, 10.0, 0.01, 0.5);
    let px = (hi - lo) / n as f64;
    let sep = 2.0 * 9.81f64.sqrt();
    let forward: Vec<f64> = (0..n).map(|i| m.aux[2 * i]).collect();
    let backward: Vec<f64> = (0..n).map(|i| m.aux[2 * i + 1]).collect();
    for (name, values) in [
        ("descriptor", &m.value),
        ("forward", &forward),
        ("backward", &backward),
    ] {
        for sign in [1.0, -1.0] {
            // The lowest value between 4 and 8 rad/s (or −8 and −4): away from the centre's
            // own minimum at the stable equilibrium.
            let rows: Vec<usize> = (0..n)
                .filter(|&i| (4.0..8.0).contains(&(sign * centre(lo, hi, n, i))))
                .collect();
            let best = *rows
                .iter()
                .min_by(|&&a, &&b| values[a].total_cmp(&values[b]))
                .unwrap();
            let w = centre(lo, hi, n, best);
            assert!(
                (w - sign * sep).abs() <= px,
                "{name}: minimum at ω = {w} (pixel {px}), separatrix at {}",
                sign * sep
            );
            // A valley, not an edge of the search range: both neighbours are higher.
            assert!(values[best - 1] > values[best] && values[best + 1] > values[best]);
        }
    }
    // Symmetric under (θ, ω) → (−θ, −ω): the backward half at ω is the forward half at −ω.
    for i in 0..n {
        let j = n - 1 - i;
        assert!(
            (forward[i] - backward[j]).abs() <= 1e-9 * forward[i],
            "row {i}"
        );
    }
}

/// At amplitude A = 1e-3 rad released from rest, θ = A cos ω₀t with ω₀ = √g to 1e-7, so over
/// whole periods M⁺ = τ·c·(√(Aω₀) + √(Aω₀²)) with c = Γ(3/4)/(√π Γ(5/4)) = 0.762759…, the
/// mean of |sin|^{1/2}; for p = 1, c = 2/π. The cusps of |sin|^p at its zeros cost the RK4
/// quadrature its order: at 200 steps a period the measured errors are 1.25e-4 (p = 1/2) and
/// 1.1e-7 (p = 1, which includes the amplitude correction A²/16).
#[test]
fn small_oscillations_give_the_harmonic_integral() {
    let a = 1e-3;
    let w0 = 9.81f64.sqrt();
    let period = 2.0 * std::f64::consts::PI / w0;
    let tau = 10.0 * period;
    let dt = period / 200.0;
    for (p, c, tol) in [
        (0.5, 0.762_759_051_161_167_f64, 2e-4),
        (1.0, 2.0 / std::f64::consts::PI, 3e-7),
    ] {
        let m = {
            // One pixel at θ = A, ω = 0.
            let opts = MapOptions {
                grid: Grid {
                    width: 1,
                    height: 1,
                    x: GridAxis {
                        index: 0,
                        lo: a - 1e-12,
                        hi: a + 1e-12,
                    },
                    y: GridAxis {
                        index: 1,
                        lo: -1e-12,
                        hi: 1e-12,
                    },
                    base: vec![0.0; 2],
                    shell: None,
                },
                kind: MapKind::LagrangianDescriptor { p },
                t_max: tau,
                dt,
                energy_skip: false,
                tile: 4,
                kernel: pendula::analysis::map::Kernel::Auto,
            };
            compute_map(&simple(), &opts, &mut Silent)
        };
        let exact = tau * c * ((a * w0).powf(p) + (a * w0 * w0).powf(p));
        let (fwd, bwd) = (m.aux[0], m.aux[1]);
        assert!(
            (fwd - exact).abs() <= tol * exact,
            "p = {p}: {fwd} vs {exact}"
        );
        assert!(
            (bwd - exact).abs() <= tol * exact,
            "p = {p}: {bwd} vs {exact}"
        );
        assert_eq!(m.value[0], fwd + bwd);
    }
}

/// The CLI writes the three variables with their units and p, draws the map, and refuses a p
/// outside (0, 1] or given to another kind, naming the flag.
#[test]
fn cli_writes_the_descriptor_and_refuses_bad_p() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        &[
            "map",
            "--preset",
            "simple",
            "--kind",
            "lagrangian-descriptor",
            "--resolution",
            "16",
            "--t-end",
            "2",
            "--window=-3,3,-8,8",
            "-o",
            "ld.h5",
            "--plot",
            "ld.png",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    assert_eq!(j["map"], "lagrangian-descriptor");
    assert!(dir.path().join("ld.png").exists());
    {
        // Closed again before the next child starts (see common::spawn).
        let f = hdf5::File::open(dir.path().join("ld.h5")).unwrap();
        let g = f.group("map").unwrap();
        for v in ["descriptor", "descriptor_forward", "descriptor_backward"] {
            let d = g.dataset(v).unwrap();
            assert_eq!(d.shape(), vec![16, 16], "{v}");
            let vals = d.read_raw::<f64>().unwrap();
            assert!(vals.iter().all(|x| x.is_finite() && *x > 0.0), "{v}");
        }
        let p: f64 = g.attr("descriptor_p").unwrap().read_scalar().unwrap();
        assert_eq!(p, 0.5);
    }
    for (args, flag) in [
        (
            vec!["--kind", "lagrangian-descriptor", "--descriptor-p", "1.5"],
            "--descriptor-p",
        ),
        (
            vec!["--kind", "ftle", "--descriptor-p", "0.5"],
            "--descriptor-p",
        ),
    ] {
        let mut a = vec!["map", "--preset", "simple", "--resolution", "8"];
        a.extend(args);
        let (code, _, err) = run(&a, dir.path());
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(flag), "{err}");
    }
}

/// Lanes vs scalar: the descriptor lanes (`--kernel lanes`, forward and backward on the same
/// lanes) against the scalar path over the whole square of every two-link chain, damped and
/// driven ones included, for p = 1/2 (square roots) and p = 0.8 (`powf`).
#[test]
fn lanes_match_the_scalar_path_on_the_whole_square() {
    whole_square(&[
        MapKind::LagrangianDescriptor { p: 0.5 },
        MapKind::LagrangianDescriptor { p: 0.8 },
    ]);
}
