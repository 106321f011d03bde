//! Final-state (basin) and SALI/GALI maps, checked pixel by pixel against the single-orbit
//! analyses (`simulate`, `indicators`) with settling criteria re-derived here.

use crate::harness::lanes_and_scalar;
use pendula::analysis::map::basins::{label, Settle};
use pendula::analysis::map::{self, compute_map, MapData, MapKind, MapOptions};
use pendula::analysis::{chain_indicators, simulate, Regularity, SimulateOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, Damping, Drive, Harmonic};
use pendula::observe::Silent;
use std::f64::consts::{PI, TAU};

fn damped(gamma: f64) -> Chain {
    let mut p = ChainParams::equal_points(2);
    p.damping = Damping {
        absolute: vec![gamma; 2],
        joint: vec![],
    };
    Chain::new(p).unwrap()
}

const SETTLE: Settle = Settle {
    angle_tol: 0.01,
    omega_tol: 0.01,
    dwell_steps: 100,
    strobe: None,
};

/// A w × w final-state map over the window [lo, hi]² of (θ1, θ2), released from rest.
fn basin_opts(w: usize, lo: f64, hi: f64, t_max: f64, settle: Settle) -> MapOptions {
    let mut o = MapOptions::benchmark_f(w, t_max);
    o.grid.x.lo = lo;
    o.grid.x.hi = hi;
    o.grid.y.lo = lo;
    o.grid.y.hi = hi;
    o.kind = MapKind::FinalState { settle };
    o.tile = 4;
    o
}

/// The equilibrium test written out independently: angles reduced with atan2, nearest of 0
/// and π, every deviation and velocity below the tolerances.
fn near(theta: &[f64], omega: &[f64], s: &Settle) -> Option<u32> {
    let mut mask = 0;
    for (j, (&th, &w)) in theta.iter().zip(omega).enumerate() {
        let r = th.sin().atan2(th.cos());
        let dev = if r.abs() < PI / 2.0 {
            r
        } else {
            mask |= 1 << j;
            PI - r.abs()
        };
        if dev.abs() >= s.angle_tol || w.abs() >= s.omega_tol {
            return None;
        }
    }
    Some(mask)
}

/// From a `simulate` trajectory sampled every step: (mask, settle time, sample index at which
/// the dwell completed), or None if it never settles.
fn settle_of(
    chain: &Chain,
    x0: &[f64],
    t_max: f64,
    dt: f64,
    s: &Settle,
) -> Option<(u32, f64, usize, Vec<f64>)> {
    let tr = simulate(
        chain,
        &Method::Rk4 { dt },
        x0,
        &SimulateOptions {
            t_end: t_max,
            dt_out: dt,
        },
        &mut Silent,
    )
    .unwrap();
    let n = chain.links();
    let mut run: Option<(u32, usize)> = None;
    for k in 0..tr.t.len() {
        let th: Vec<f64> = (0..n).map(|j| tr.theta[(k, j)]).collect();
        let om: Vec<f64> = (0..n).map(|j| tr.omega[(k, j)]).collect();
        run = match (near(&th, &om, s), run) {
            (Some(m), Some((m0, k0))) if m == m0 => Some((m0, k0)),
            (Some(m), _) => Some((m, k)),
            (None, _) => None,
        };
        if let Some((m, k0)) = run {
            if k - k0 == s.dwell_steps as usize {
                return Some((m, tr.t[k0], k, th));
            }
        }
    }
    None
}

fn pixel(d: &MapData, p: usize) -> (u8, f64, &[f64]) {
    let m = d.aux_width;
    (d.class[p], d.value[p], &d.aux[p * m..(p + 1) * m])
}

#[test]
fn pixels_near_hanging_settle_as_the_single_orbit_does() {
    let chain = damped(0.8);
    let opts = basin_opts(4, -0.4, 0.4, 30.0, SETTLE);
    let d = compute_map(&chain, &opts, &mut Silent);
    for i in 0..4 {
        for j in 0..4 {
            let p = i * 4 + j;
            let x0 = opts.grid.state(i, j);
            let (mask, t, _, th) = settle_of(&chain, &x0, opts.t_max, opts.dt, &SETTLE)
                .expect("a small swing with strong damping settles");
            let (c, st, aux) = pixel(&d, p);
            assert_eq!(mask, 0, "pixel {p}");
            assert_eq!(c, label::EQUILIBRIUM, "pixel {p}: hanging");
            assert!(
                (st - t).abs() <= 1e-12,
                "pixel {p}: settle {st} vs simulate {t}"
            );
            assert!(
                st > 1.0,
                "pixel {p}: a release at |θ| ≥ 0.05 takes time to settle ({st})"
            );
            for j in 0..2 {
                assert!(
                    (aux[j] - th[j]).abs() <= 1e-12,
                    "final angle {j}: {} vs {}",
                    aux[j],
                    th[j]
                );
                assert_eq!(aux[2 + j], 0.0, "no turns");
                assert!(aux[4 + j].is_nan(), "no rotation number for an equilibrium");
            }
        }
    }
    // Released at rest exactly hanging: settled at t = 0.
    let mut at_rest = basin_opts(1, -1e-9, 1e-9, 5.0, SETTLE);
    at_rest.grid.x.lo = -1e-300;
    at_rest.grid.x.hi = 1e-300;
    let d = compute_map(&chain, &at_rest, &mut Silent);
    assert_eq!(pixel(&d, 0).0, label::EQUILIBRIUM);
    assert_eq!(pixel(&d, 0).1, 0.0);
}

#[test]
fn inverted_start_with_strong_damping_ends_where_simulate_ends() {
    let chain = damped(2.0);
    let t_max = 60.0;
    // Pixel centres near the inverted state (θ ≈ (3.0, 3.05)) and the far corner, which wind.
    let mut opts = basin_opts(2, 2.9, 3.1, t_max, SETTLE);
    opts.grid.x.lo = 2.95;
    opts.grid.x.hi = 3.05;
    let d = compute_map(&chain, &opts, &mut Silent);
    for p in 0..4 {
        let x0 = opts.grid.state(p / 2, p % 2);
        // The direct run to t_max: where it ends, and the equilibrium it is near there.
        let tr = simulate(
            &chain,
            &Method::Rk4 { dt: opts.dt },
            &x0,
            &SimulateOptions {
                t_end: t_max,
                dt_out: 1.0,
            },
            &mut Silent,
        )
        .unwrap();
        let last = tr.t.len() - 1;
        let th = [tr.theta[(last, 0)], tr.theta[(last, 1)]];
        let om = [tr.omega[(last, 0)], tr.omega[(last, 1)]];
        let mask = near(&th, &om, &SETTLE).expect("at rest by t_max");
        let (c, st, aux) = pixel(&d, p);
        assert_eq!(c, label::EQUILIBRIUM + mask as u8, "pixel {p}");
        assert_eq!(
            mask, 0,
            "pixel {p}: the inverted state is unstable, it falls"
        );
        assert!(st.is_finite() && st < t_max, "pixel {p}: settle {st}");
        for j in 0..2 {
            let turns = (th[j] / TAU).round();
            assert_eq!(aux[2 + j], turns, "pixel {p} link {j}: turns");
            let wrapped = th[j] - TAU * turns;
            assert!(
                (aux[j] - wrapped).abs() < SETTLE.angle_tol,
                "pixel {p} link {j}: {} vs {wrapped}",
                aux[j]
            );
        }
        // And the settle time is the one the trajectory itself shows.
        let (_, t, ..) = settle_of(&chain, &x0, t_max, opts.dt, &SETTLE).unwrap();
        assert!((st - t).abs() <= 1e-12, "pixel {p}: {st} vs {t}");
    }
}

/// Bits of every array of a value map (NaN-safe equality).
fn bits(d: &MapData) -> (Vec<u8>, Vec<u64>, Vec<u64>) {
    (
        d.class.clone(),
        d.value.iter().map(|v| v.to_bits()).collect(),
        d.aux.iter().map(|v| v.to_bits()).collect(),
    )
}

#[test]
fn final_state_maps_are_thread_and_tile_independent() {
    let chain = damped(0.8);
    let mut opts = basin_opts(16, -PI, PI, 30.0, SETTLE);
    let run = |threads: usize, opts: &MapOptions| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| compute_map(&chain, opts, &mut Silent))
    };
    let one = run(1, &opts);
    let two = run(2, &opts);
    assert_eq!(bits(&one), bits(&two));
    opts.tile = 5;
    assert_eq!(bits(&one), bits(&run(2, &opts)));
    // Point symmetry θ → −θ of the grid and the damped ODE: same class and settle time (to a
    // step: the pixel centres are mirror images only to rounding), opposite turns.
    let n = one.class.len();
    let mut settled = 0;
    for p in 0..n {
        let q = n - 1 - p;
        assert_eq!(one.class[p], one.class[q], "p = {p}");
        if one.class[p] == label::EQUILIBRIUM {
            settled += 1;
            assert!(
                (one.value[p] - one.value[q]).abs() <= 1.5 * opts.dt,
                "p = {p}"
            );
            for j in 0..2 {
                assert_eq!(one.aux[p * 6 + 2 + j], -one.aux[q * 6 + 2 + j], "p = {p}");
            }
        }
    }
    assert!(settled > n / 10, "{settled} of {n} settled by t_max");
}

/// The SIMD final-state kernel (undriven two-link chains) against the generic scalar path, on
/// a 24² map with joint and absolute damping over the whole square, where chaotic transients
/// amplify the two paths' different rounding: the same class on ≥ 97 % of pixels (all of them
/// away from basin boundaries), and where the class agrees, settle times to a step and final
/// angles to 1e-6. Both count the same steps where every pixel agrees.
#[test]
fn simd_final_state_kernel_matches_the_scalar_path() {
    let mut p = ChainParams::equal_points(2);
    p.damping = Damping {
        absolute: vec![0.3, 0.2],
        joint: vec![0.1, 0.15],
    };
    let chain = Chain::new(p).unwrap();
    let opts = basin_opts(24, -PI, PI, 40.0, SETTLE);
    let (fast, slow) = lanes_and_scalar(&chain, &opts, "simd-two-link");
    let n = fast.class.len();
    let mut same = 0;
    for px in 0..n {
        if fast.class[px] != slow.class[px] {
            continue;
        }
        same += 1;
        let (_, tf, af) = pixel(&fast, px);
        let (_, ts, as_) = pixel(&slow, px);
        if tf.is_finite() || ts.is_finite() {
            assert!((tf - ts).abs() <= 1.5 * opts.dt, "pixel {px}: {tf} vs {ts}");
        }
        for j in 0..2 {
            assert!(
                (af[j] - as_[j]).abs() < 1e-6 || (af[j] - as_[j]).abs() > TAU - 1e-6,
                "pixel {px} angle {j}: {} vs {}",
                af[j],
                as_[j]
            );
            assert!(
                af[2 + j] == as_[2 + j] || (af[2 + j].is_nan() && as_[2 + j].is_nan()),
                "pixel {px} turns {j}"
            );
        }
    }
    eprintln!("SIMD vs scalar final-state kernel: {same} of {n} pixels in the same class");
    assert!(same * 100 >= 97 * n, "{same} of {n} pixels agree");
    // Hanging starts near rest settle identically on both paths (no chaos to amplify).
    let opts = basin_opts(8, -0.3, 0.3, 30.0, SETTLE);
    let (fast, slow) = lanes_and_scalar(&chain, &opts, "simd-two-link");
    assert_eq!(fast.class, slow.class);
    assert_eq!(fast.steps, slow.steps);
}

#[test]
fn driven_chain_settles_on_a_period_one_orbit() {
    // A damped single pendulum under a weak torque 1·cos(2t): one attracting period-1 orbit
    // of small amplitude without rotation.
    let mut p = ChainParams::equal_points(1);
    p.damping = Damping {
        absolute: vec![1.0],
        joint: vec![],
    };
    p.drive = Drive {
        torque: Some(Harmonic {
            amplitude: 1.0,
            frequency: 2.0,
            phase: 0.0,
        }),
        pivot: None,
    };
    let chain = Chain::new(p).unwrap();
    let period = PI; // 2π/Ω
    let dt = period / 300.0;
    let settle = Settle::stroboscopic(1e-3, 300, 4, 3);
    let mut opts = MapOptions::benchmark_f(3, 40.0 * period);
    opts.dt = dt;
    opts.grid.base = vec![0.0; 2];
    opts.grid.y.index = 1; // θ1 × ω1
    opts.grid.y.lo = -2.0;
    opts.grid.y.hi = 2.0;
    opts.grid.x.lo = -1.0;
    opts.grid.x.hi = 1.0;
    opts.kind = MapKind::FinalState { settle };
    let d = compute_map(&chain, &opts, &mut Silent);
    for p in 0..9 {
        let (c, st, aux) = pixel(&d, p);
        assert_eq!(c, label::PERIODIC + 1, "pixel {p}");
        assert_eq!(aux[2], 0.0, "pixel {p}: rotation number");
        assert!(st.is_finite() && st >= 0.0 && st < opts.t_max, "{st}");
        // A whole number of drive periods.
        assert!(((st / period) - (st / period).round()).abs() < 1e-9, "{st}");
    }
}

/// The driven final-state kernel (SIMD, stroboscopic rule per lane, each lane at its own time)
/// against the scalar path: a damped double pendulum under a torque on link 1 and a shaken
/// pivot, released from rest over a window around hanging where the period-1 response
/// attracts everything: the same classes, settle times (whole periods) and rotation numbers
/// on every pixel, final angles to 1e-9; and over the whole square, where chaotic transients
/// amplify the two paths' rounding, the same class on ≥ 90 % of pixels.
#[test]
fn simd_driven_final_state_kernel_matches_the_scalar_path() {
    let mut p = ChainParams::equal_points(2);
    p.damping = Damping {
        absolute: vec![0.8, 0.6],
        joint: vec![],
    };
    p.drive = Drive {
        torque: Some(Harmonic {
            amplitude: 1.5,
            frequency: 2.0,
            phase: 0.3,
        }),
        pivot: Some(pendula::model::PivotMotion {
            x_amplitude: 0.05,
            y_amplitude: 0.02,
            frequency: 2.0,
            phase: 0.0,
        }),
    };
    let chain = Chain::new(p).unwrap();
    let period = PI;
    let settle = Settle::stroboscopic(1e-3, 100, 4, 3);
    let run = |w: usize, lo: f64, hi: f64| {
        let mut opts = basin_opts(w, lo, hi, 40.0 * period, settle);
        opts.dt = period / 100.0;
        lanes_and_scalar(&chain, &opts, "simd-two-link")
    };
    let (fast, slow) = run(6, -0.5, 0.5);
    assert_eq!(fast.class, slow.class);
    for px in 0..fast.class.len() {
        let (c, tf, af) = pixel(&fast, px);
        let (_, ts, as_) = pixel(&slow, px);
        assert_eq!(c, label::PERIODIC + 1, "pixel {px}");
        assert_eq!(tf, ts, "pixel {px}");
        for j in 0..2 {
            assert!((af[j] - as_[j]).abs() < 1e-9, "pixel {px} angle {j}");
            assert_eq!(af[4 + j], as_[4 + j], "pixel {px} rotation {j}");
        }
    }
    let (fast, slow) = run(16, -PI, PI);
    let n = fast.class.len();
    let same = (0..n).filter(|&p| fast.class[p] == slow.class[p]).count();
    eprintln!("SIMD vs scalar driven final-state kernel: {same} of {n} pixels in the same class");
    assert!(same * 10 >= 9 * n, "{same} of {n} pixels agree");
}

#[test]
fn sali_and_gali_maps_match_the_single_orbit_indicators() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    for kind in [
        MapKind::Sali { tau_steps: 10 },
        MapKind::Gali {
            k: 4,
            tau_steps: 10,
        },
    ] {
        // Two pixels: θ = (0.2, 0.2) (regular) and (2, 2) (chaotic).
        let mut opts = MapOptions::benchmark_f(2, 100.0);
        opts.grid.x.lo = 0.2 - 0.9;
        opts.grid.x.hi = 2.0 + 0.9;
        opts.grid.y.lo = 0.2 - 0.9;
        opts.grid.y.hi = 2.0 + 0.9;
        opts.kind = kind;
        opts.tile = 4;
        // The scalar map path runs the single-orbit code itself (bit for bit); the SIMD lanes
        // reproduce it to rounding (the indicator lanes module).
        opts.kernel = map::Kernel::Scalar;
        let d = compute_map(&chain, &opts, &mut Silent);
        let io = map::indicator_options(&opts).unwrap();
        for (p, (i, j)) in [(0usize, (0usize, 0usize)), (3, (1, 1))] {
            let x0 = opts.grid.state(i, j);
            let want = [0.2, 2.0][i];
            assert!(
                (x0[0] - want).abs() < 1e-12 && (x0[1] - want).abs() < 1e-12,
                "{x0:?}"
            );
            let ind = chain_indicators(&chain, &Method::Rk4 { dt: opts.dt }, &x0, &io, &mut Silent)
                .unwrap();
            let single = match kind {
                MapKind::Gali { .. } => ind.gali[(ind.gali.nrows() - 1, 2)],
                _ => *ind.sali.last().unwrap(),
            };
            assert_eq!(d.value[p].to_bits(), single.to_bits(), "{kind:?} pixel {p}");
            assert_eq!(
                d.aux[p].to_bits(),
                ind.chaos_time.unwrap_or(f64::NAN).to_bits()
            );
            if want < 1.0 {
                assert_eq!(ind.regularity, Regularity::Regular);
                assert_eq!(d.class[p], map::class::REGULAR);
                match kind {
                    // SALI stays away from 0 on the torus.
                    MapKind::Sali { .. } => assert!(d.value[p] > 1e-3, "{}", d.value[p]),
                    // GALI_4 of a 2-dof regular orbit decays as a power law (t^-4 for large
                    // t), not exponentially: at t = 100 s it is below 1 but far above round-off.
                    _ => assert!(d.value[p] > 1e-6 && d.value[p] < 0.5, "{}", d.value[p]),
                }
            } else {
                assert_eq!(ind.regularity, Regularity::Chaotic);
                assert_eq!(d.class[p], map::class::CHAOTIC);
                assert!(d.value[p] < 1e-12, "{kind:?}: {}", d.value[p]);
                assert!(ind.t_end < opts.t_max, "stopped at round-off");
            }
        }
    }
}

#[test]
fn energy_shell_grids_put_every_pixel_on_the_shell() {
    use pendula::model::System;
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let e = -5.0; // J: above the hanging minimum −29.43 J and the flip threshold −9.81 J
                  // (θ1, θ2) with θ̇1 = 0 and θ̇2 ≥ 0 solved; and (θ1, θ̇1) on the plane θ2 = 0.
    let mut plane = MapOptions::benchmark_f(24, 5.0);
    plane.grid.y.index = 2;
    plane.grid.y.lo = -6.0;
    plane.grid.y.hi = 6.0;
    for mut opts in [MapOptions::benchmark_f(24, 5.0), plane] {
        opts.grid.shell = Some(map::Shell {
            omega: 3,
            energy: e,
        });
        let (mut on, mut off) = (0, 0);
        let mut x = vec![0.0; 4];
        for i in 0..24 {
            for j in 0..24 {
                if opts.grid.start(&chain, i, j, &mut x) {
                    on += 1;
                    let got = chain.energy(0.0, &x);
                    assert!((got - e).abs() <= 1e-12 * e.abs(), "({i}, {j}): E = {got}");
                    assert!(x[3] >= 0.0);
                    assert_eq!(x[opts.grid.x.index], opts.grid.x.centre(j, 24));
                    assert_eq!(x[opts.grid.y.index], opts.grid.y.centre(i, 24));
                } else {
                    off += 1;
                    // Forbidden: the minimum of E over θ̇2 (the others fixed) is above E, or
                    // both roots of E(θ̇2) = E are negative (the convention θ̇2 ≥ 0).
                    x[3] = 0.0;
                    let m = chain.mass_matrix(&x[..2]);
                    let (a, b) = (0.5 * m[3], m[2] * x[2]);
                    let c = chain.energy(0.0, &x) - e;
                    let min_e = e + c - b * b / (4.0 * a);
                    let larger = (-b + (b * b - 4.0 * a * c).max(0.0).sqrt()) / (2.0 * a);
                    assert!(
                        min_e > e - 1e-12 || larger < 1e-12,
                        "({i}, {j}): reachable, E_min = {min_e}, root {larger}"
                    );
                }
            }
        }
        assert!(on > 50 && off > 50, "{on} on the shell, {off} off");
        // The map classifies the off-shell pixels without integrating them.
        let d = compute_map(&chain, &opts, &mut Silent);
        let forbidden = d
            .class
            .iter()
            .filter(|&&c| c == map::class::FORBIDDEN)
            .count();
        assert!(forbidden >= off && forbidden < on + off, "{forbidden}");
        assert!(
            d.flip_step.iter().any(|&k| k > 0),
            "some pixels on the shell flip"
        );
        let skipped = map::estimate(
            &chain,
            &opts,
            &(0..opts.tiling().count()).collect::<Vec<_>>(),
        );
        assert_eq!(skipped.forbidden_skipped as usize, forbidden);
        opts.kind = MapKind::Lyapunov {
            renorm_steps: 10,
            blocks: 10,
            tolerance: None,
        };
        let d = compute_map(&chain, &opts, &mut Silent);
        assert_eq!(
            d.steps as usize,
            on * 500,
            "only on-shell pixels are integrated"
        );
        assert_eq!(
            d.class
                .iter()
                .filter(|&&c| c == map::class::FORBIDDEN)
                .count(),
            off
        );
    }
}
