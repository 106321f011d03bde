//! The O(N) route against the dense route (θ̈ and the tangent block, to round-off), a long chain's
//! energy under DOP853, and the structured normal modes against the dense ones and the formulas.

use nalgebra::DMatrix;
use pendula::integrate::{Dop853, Flow, Solver};
use pendula::model::{
    Chain, ChainParams, Damping, Drive, Harmonic, Link, PivotMotion, Route, System,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_links(rng: &mut StdRng, n: usize, kind: &str) -> Vec<Link> {
    (0..n)
        .map(|i| {
            let l = rng.random_range(0.5..2.0);
            let m = rng.random_range(0.5..2.0);
            match (kind, i % 3) {
                ("point", _) | ("mixed", 0) => Link::point(l, m),
                ("rod", _) | ("mixed", 1) => Link::rod(l, m),
                // Not near c = J = 0: a link with neither would make M nearly singular, and
                // the routes agree to about ε·cond(M) (both are backward stable).
                _ => Link::given(
                    l,
                    m,
                    rng.random_range(0.2..0.9) * l,
                    rng.random_range(0.02..0.2) * m * l * l,
                ),
            }
        })
        .collect()
}

fn forcing(rng: &mut StdRng, n: usize) -> (Damping, Drive) {
    (
        Damping {
            absolute: (0..n).map(|_| rng.random_range(0.0..0.3)).collect(),
            joint: (0..n).map(|_| rng.random_range(0.0..0.3)).collect(),
        },
        Drive {
            torque: Some(Harmonic {
                amplitude: 0.7,
                frequency: 2.3,
                phase: 0.4,
            }),
            pivot: Some(PivotMotion {
                x_amplitude: 0.03,
                y_amplitude: 0.05,
                frequency: 9.0,
                phase: 0.1,
            }),
        },
    )
}

fn rel_diff(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// θ̈ and J·V (k = 4 random columns) by both routes, for N = 1..64, three link kinds, with and
/// without damping and drive, at random states with wound angles (|θ| up to 20 rad).
///
/// Both routes are backward stable (against a 40-digit mpmath reference each is within
/// 3e-13 on such cases), so their difference is bounded by ε·cond(M(θ)), not by a fixed
/// figure: cond reaches 1e5 at N = 64. The assertion is 1e-12 relative, or ε·cond(M) where
/// that is larger; the report counts the cases beyond 1e-12.
#[test]
fn structured_route_matches_dense() {
    compare_with_dense(Route::Structured, 1..=64, 8);
}

/// The fixed-size kernels (closed-form M⁻¹, N ≤ 3) against the general dense route, by the same
/// cases and the same rule as the structured route.
#[test]
fn small_route_matches_dense() {
    compare_with_dense(Route::Small, 1..=3, 10);
    assert_eq!(
        Chain::new(ChainParams::equal_points(4))
            .unwrap()
            .with_route(Route::Small)
            .route(),
        Route::Dense,
        "Route::Small resolves to Dense beyond three links"
    );
}

fn compare_with_dense(route: Route, links: std::ops::RangeInclusive<usize>, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut worst_acc, mut worst_tan, mut worst_ratio) = (0.0f64, 0.0f64, 0.0f64);
    let (mut cases, mut beyond) = (0usize, 0usize);
    for n in links.clone() {
        for kind in ["point", "rod", "mixed"] {
            for forced in [false, true] {
                let mut params = ChainParams::new(random_links(&mut rng, n, kind));
                if forced {
                    (params.damping, params.drive) = forcing(&mut rng, n);
                }
                let dense = Chain::new(params.clone()).unwrap().with_route(Route::Dense);
                let fast = Chain::new(params).unwrap().with_route(route);
                assert_eq!(fast.route(), route);
                let (mut wd, mut wf) = (dense.workspace(), fast.workspace());
                let dim = 2 * n;
                let k = 4;
                for _ in 0..3 {
                    let x: Vec<f64> = (0..dim)
                        .map(|i| {
                            if i < n {
                                rng.random_range(-20.0..20.0)
                            } else {
                                rng.random_range(-3.0..3.0)
                            }
                        })
                        .collect();
                    let v: Vec<f64> = (0..dim * k).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let t = rng.random_range(0.0..5.0);
                    let (mut dxd, mut dxf) = (vec![0.0; dim], vec![0.0; dim]);
                    dense.rhs(t, &x, &mut dxd, &mut wd);
                    fast.rhs(t, &x, &mut dxf, &mut wf);
                    let sv = DMatrix::from_row_slice(n, n, &dense.mass_matrix(&x[..n]))
                        .singular_values();
                    let cond = sv.max() / sv.min();
                    let tol = 1e-12f64.max(f64::EPSILON * cond);
                    let mut check = |e: f64, what: &str| {
                        worst_ratio = worst_ratio.max(e / (f64::EPSILON * cond));
                        beyond += (e > 1e-12) as usize;
                        cases += 1;
                        assert!(
                            e < tol,
                            "N = {n} {kind} forced={forced}: {what} rel diff {e:e}, cond {cond:e}"
                        );
                    };
                    let e = rel_diff(&dxf[n..], &dxd[n..]);
                    worst_acc = worst_acc.max(e);
                    check(e, "θ̈");
                    let (mut dvd, mut dvf) = (vec![0.0; dim * k], vec![0.0; dim * k]);
                    dense.rhs_tangent(t, &x, &v, &mut dxd, &mut dvd, &mut wd);
                    fast.rhs_tangent(t, &x, &v, &mut dxf, &mut dvf, &mut wf);
                    assert!(rel_diff(&dxf[n..], &dxd[n..]) < tol);
                    for c in 0..k {
                        let r = c * dim + n..(c + 1) * dim;
                        let e = rel_diff(&dvf[r.clone()], &dvd[r]);
                        worst_tan = worst_tan.max(e);
                        check(e, "J·v");
                    }
                    let ef = fast.energy(t, &x);
                    let ed = dense.kinetic_energy(&x) + dense.potential_energy(&x[..n]);
                    assert!((ef - ed).abs() <= 1e-13 * ed.abs().max(fast.kinetic_energy(&x)));
                }
            }
        }
    }
    eprintln!(
        "{route:?} vs dense, N = {links:?}: θ̈ max rel diff {worst_acc:.2e}, J·v {worst_tan:.2e}; \
         max diff/(ε·cond M) {worst_ratio:.2e}; {beyond} of {cases} comparisons beyond 1e-12"
    );
}

/// Long chains near the hanging and the inverted configurations, all links nearly aligned (the
/// worst case for the 2×2 running sums) and wound by many turns.
#[test]
fn structured_route_is_stable_on_long_chains() {
    let mut rng = StdRng::seed_from_u64(9);
    for &n in &[200usize, 1000] {
        for base in [0.0, std::f64::consts::PI, 40.0 * std::f64::consts::PI, 17.3] {
            for spread in [1e-6, 1e-2, 1.0] {
                let params = ChainParams::new(random_links(&mut rng, n, "mixed"));
                let dense = Chain::new(params.clone()).unwrap().with_route(Route::Dense);
                let fast = Chain::new(params).unwrap().with_route(Route::Structured);
                let x: Vec<f64> = (0..2 * n)
                    .map(|i| {
                        if i < n {
                            base + spread * rng.random_range(-1.0..1.0)
                        } else {
                            rng.random_range(-1.0..1.0)
                        }
                    })
                    .collect();
                let (ad, af) = (dense.acceleration(0.0, &x), fast.acceleration(0.0, &x));
                let e = rel_diff(&af, &ad);
                // The same system solved twice: ‖M (α_s − α_d)‖∞ / (‖M‖∞ ‖α_d‖∞), a backward
                // error, is at round-off even where cond(M) ~ 1e7 spreads the forward one.
                let m = dense.mass_matrix(&x[..n]);
                let (mut back, mut norm_m) = (0.0f64, 0.0f64);
                for j in 0..n {
                    let row = &m[j * n..(j + 1) * n];
                    let r: f64 = row
                        .iter()
                        .zip(af.iter().zip(&ad))
                        .map(|(m, (p, q))| m * (p - q))
                        .sum();
                    back = back.max(r.abs());
                    norm_m = norm_m.max(row.iter().map(|v| v.abs()).sum());
                }
                let back = back / (norm_m * ad.iter().fold(0.0f64, |a, v| a.max(v.abs())));
                eprintln!(
                    "N = {n}, θ = {base:.3} ± {spread:e}: θ̈ rel diff {e:.2e}, backward {back:.2e}"
                );
                assert!(
                    back < 1e-15,
                    "N = {n}, base {base}, spread {spread}: backward {back:e}"
                );
                assert!(e < 1e-9, "N = {n}, base {base}, spread {spread}: {e:e}");
            }
        }
    }
}

#[test]
fn auto_route_switches_at_the_crossover() {
    let n = Chain::STRUCTURED_MIN_LINKS;
    let below = Chain::new(ChainParams::equal_points(n - 1)).unwrap();
    let above = Chain::new(ChainParams::equal_points(n)).unwrap();
    assert_eq!(below.route(), Route::Dense);
    for small in 1..=3 {
        let chain = Chain::new(ChainParams::equal_points(small)).unwrap();
        assert_eq!(chain.route(), Route::Small);
    }
    assert_eq!(
        Chain::new(ChainParams::equal_points(4)).unwrap().route(),
        Route::Dense
    );
    assert_eq!(above.route(), Route::Structured);
    assert_eq!(above.with_route(Route::Dense).route(), Route::Dense);
}

/// The equal 1000-link chain (benchmark M's, 1 m and 1 kg links) released from rest in a gently
/// curved shape: DOP853 at tol 1e-11 keeps the energy to 1e-9 relative over 10 s.
#[test]
fn thousand_link_chain_conserves_energy() {
    let n = 1000;
    let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
    assert_eq!(chain.route(), Route::Structured);
    let x0: Vec<f64> = (0..2 * n)
        .map(|i| {
            if i < n {
                let s = (i as f64 + 0.5) / n as f64;
                0.3 * (std::f64::consts::FRAC_PI_2 * s).sin()
            } else {
                0.0
            }
        })
        .collect();
    let e0 = chain.energy(0.0, &x0);
    let mut flow = Flow::new(&chain);
    let mut solver = Dop853::with_tol(1e-11).solver(2 * n);
    let (mut t, mut y, mut worst, mut steps) = (0.0, x0.clone(), 0.0f64, 0usize);
    let start = std::time::Instant::now();
    while t < 10.0 {
        t = solver.step(&mut flow, t, &mut y, 10.0).unwrap();
        steps += 1;
        if steps % 20 == 0 || t >= 10.0 {
            worst = worst.max((chain.energy(t, &y) - e0).abs());
        }
    }
    let rel = worst / e0.abs();
    // |E0| is mostly the rest state's potential; the energy of the motion is E0 − V(hanging).
    let e_motion = e0 - chain.potential_energy(&vec![0.0; n]);
    let rel_motion = worst / e_motion;
    eprintln!(
        "N = 1000, 10 s, DOP853 tol 1e-11: {steps} steps, {} evals, {:.2} s, max |ΔE|/|E0| = {rel:.2e}, \
         max |ΔE|/(E0 − V_rest) = {rel_motion:.2e} (E0 = {e0:.6} J, max |θ| at end {:.3})",
        flow.evals,
        start.elapsed().as_secs_f64(),
        y[..n].iter().fold(0.0f64, |m, v| m.max(v.abs()))
    );
    assert!(rel < 1e-9, "energy drift {rel:e}");
    assert!(
        rel_motion < 1e-9,
        "energy drift {rel_motion:e} of the motion's energy"
    );
}

use pendula::analysis::modes::structured::{benchmark_m, TridiagonalReduction};
use pendula::analysis::modes::{
    bessel_j0_zeros, laguerre_zeros, modes_at_with, Equilibrium, ModesRoute,
};

fn random_point_chain(rng: &mut StdRng, n: usize) -> Chain {
    let links = (0..n)
        .map(|_| Link::point(rng.random_range(0.3..2.0), rng.random_range(0.3..3.0)))
        .collect();
    Chain::new(ChainParams {
        gravity: rng.random_range(1.0..20.0),
        ..ChainParams::new(links)
    })
    .unwrap()
}

/// Tridiagonal and dense modes of random point chains at random equilibria (stable and
/// unstable), N = 2..200: ω² to 1e-10 relative (to max |ω²|), shapes up to sign, residuals.
#[test]
fn tridiagonal_modes_match_dense() {
    let mut rng = StdRng::seed_from_u64(10);
    let (mut worst_w, mut worst_v, mut worst_res, mut worst_orth) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let sizes: Vec<usize> = (2..=40).chain([50, 64, 100, 150, 200]).collect();
    for &n in &sizes {
        for rep in 0..3 {
            let chain = random_point_chain(&mut rng, n);
            let eq = if rep == 0 {
                Equilibrium::hanging(n)
            } else {
                Equilibrium {
                    signs: (0..n)
                        .map(|_| if rng.random_bool(0.3) { -1 } else { 1 })
                        .collect(),
                }
            };
            let d = modes_at_with(&chain, &eq, ModesRoute::Dense).unwrap();
            let t = modes_at_with(&chain, &eq, ModesRoute::Tridiagonal).unwrap();
            assert_eq!(d.unstable, t.unstable);
            assert_eq!(t.unstable, eq.inverted_links());
            let scale = d.omega2.iter().fold(0.0f64, |m, w| m.max(w.abs()));
            for k in 0..n {
                let e = (t.omega2[k] - d.omega2[k]).abs() / scale;
                worst_w = worst_w.max(e);
                assert!(
                    e < 1e-10,
                    "N = {n}, {}: ω²[{k}] {} vs {}",
                    eq.label(),
                    t.omega2[k],
                    d.omega2[k]
                );
                // Shapes up to sign, where the mode is separated from its neighbours.
                let gap = (0..n)
                    .filter(|&i| i != k)
                    .map(|i| (d.omega2[i] - d.omega2[k]).abs())
                    .fold(f64::INFINITY, f64::min)
                    / scale;
                let (vt, vd) = (t.shapes.column(k), d.shapes.column(k));
                let sign = if vt.dot(&vd) < 0.0 { -1.0 } else { 1.0 };
                let dv = (vt * sign - vd).amax() / vd.amax();
                worst_v = worst_v.max(dv * gap);
                assert!(
                    dv * gap < 1e-12,
                    "N = {n}: shape {k} differs by {dv:e} (gap {gap:e})"
                );
            }
            let lam = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(t.omega2.clone()));
            let kv = &t.stiffness * &t.shapes;
            let res = (&kv - &t.mass * &t.shapes * lam).norm() / kv.norm();
            let orth =
                (t.shapes.transpose() * &t.mass * &t.shapes - DMatrix::identity(n, n)).amax();
            worst_res = worst_res.max(res);
            worst_orth = worst_orth.max(orth);
            assert!(
                res < 1e-11 && orth < 1e-11,
                "N = {n}: residual {res:e}, orthogonality {orth:e}"
            );
        }
    }
    eprintln!(
        "tridiagonal vs dense modes, N = 2..200: ω² max rel diff {worst_w:.2e}, shapes max diff·gap \
         {worst_v:.2e}, residual {worst_res:.2e}, max|VᵀMV − I| {worst_orth:.2e}"
    );
}

#[test]
fn tridiagonal_structure_detection() {
    let eq = Equilibrium::hanging(3);
    let rods = Chain::new(ChainParams::equal_rods(3)).unwrap();
    assert!(TridiagonalReduction::new(&rods, &eq).is_none());
    // A link of two point masses at its joints, m₁ at the top and m₂ at the bottom:
    // c = m₂ l / m, J = m₁ m₂ l² / m = m c (l − c), so a_jj = l_j b_j and T is tridiagonal.
    let (m1, m2, l) = (0.4, 1.1, 0.9);
    let m = m1 + m2;
    let dumbbell = Link::given(l, m, m2 * l / m, m1 * m2 * l * l / m);
    let chain = Chain::new(ChainParams::new(vec![
        Link::point(1.0, 1.0),
        dumbbell,
        Link::point(0.7, 0.5),
    ]))
    .unwrap();
    let red = TridiagonalReduction::new(&chain, &eq).expect("point-like links");
    let d = modes_at_with(&chain, &eq, ModesRoute::Dense).unwrap();
    for (a, b) in red.eigenvalues().iter().zip(&d.omega2) {
        assert!((a - b).abs() < 1e-13 * b.abs(), "{a} vs {b}");
    }
}

#[test]
fn tridiagonal_laguerre_zeros_and_trace() {
    for n in 1..=50 {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let red = TridiagonalReduction::new(&chain, &Equilibrium::hanging(n)).unwrap();
        let w = red.eigenvalues();
        for (k, (w2, x)) in w.iter().zip(laguerre_zeros(n)).enumerate() {
            let e = ((w2 / 9.81 - x) / x).abs();
            assert!(e < 1e-10, "N = {n}, mode {k}: {e:e}");
        }
    }
    for n in [1000usize, 10_000] {
        let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
        let red = TridiagonalReduction::new(&chain, &Equilibrium::hanging(n)).unwrap();
        let w = red.eigenvalues();
        let total = 9.81 * (n * n) as f64;
        let e = (w.iter().sum::<f64>() - total).abs() / total;
        eprintln!(
            "trace identity, N = {n}: rel {e:.2e}; ω²_min = {:.6e}",
            w[0]
        );
        assert!(e < 1e-12, "N = {n}: trace {e:e}");
    }
}

/// The 1000-link chain's lowest modes approach the continuous hanging chain's
/// ω_k = (j_{0,k}/2) √(g/L), with an error falling like 1/N.
#[test]
fn long_chain_modes_approach_bessel_zeros() {
    let j0 = bessel_j0_zeros(5);
    let mut errs = vec![];
    for n in [250usize, 1000] {
        let chain =
            Chain::new(ChainParams::new(vec![Link::point(1.0 / n as f64, 1.0); n])).unwrap();
        let w = TridiagonalReduction::new(&chain, &Equilibrium::hanging(n))
            .unwrap()
            .eigenvalues();
        let e: Vec<f64> = (0..5)
            .map(|k| {
                let cont = 0.5 * j0[k] * 9.81f64.sqrt();
                (w[k].sqrt() - cont).abs() / cont
            })
            .collect();
        eprintln!("N = {n}: lowest five vs Bessel zeros, rel {e:?}");
        errs.push(e);
    }
    for k in 0..5 {
        assert!(errs[1][k] < 2e-3, "mode {k}: {:e}", errs[1][k]);
        let ratio = errs[0][k] / errs[1][k];
        assert!((3.0..5.0).contains(&ratio), "mode {k}: error ratio {ratio}");
    }
}

#[test]
fn benchmark_m_checks() {
    for n in [10usize, 100, 1000] {
        let b = benchmark_m(n, 1);
        eprintln!(
            "benchmark M, N = {n}: values {:.3e} s, vectors {:.3e} s, checks {:?}",
            b.time_values_s, b.time_vectors_s, b.checks
        );
        assert!(b.checks.laguerre_max_rel.unwrap() < 1e-9);
        assert!(b.checks.trace_rel < 1e-12);
        assert!(b.checks.residual < 1e-11);
        assert!(b.checks.orthogonality < 1e-10);
        let json = serde_json::to_string(&b).unwrap();
        assert!(json.contains("\"frequencies\""));
    }
    let b = benchmark_m(10, 1);
    let reference = [
        1.1626495370,
        2.6750605845,
        4.2118694028,
        5.7765097227,
        7.3803785224,
        9.0398450455,
        10.7790323810,
        12.6372275174,
        14.6896734755,
        17.1324848662,
    ];
    for (a, r) in b.frequencies.iter().zip(reference) {
        assert!((a - r).abs() < 1e-9, "{a} vs {r}");
    }
}

/// Counts heap allocations made by the current thread.
struct CountingAlloc;

thread_local! {
    static ALLOCS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

unsafe impl std::alloc::GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// The structured rhs and rhs_tangent (damped, driven, 6 deviation vectors) allocate nothing.
#[test]
fn structured_hot_path_does_not_allocate() {
    let mut rng = StdRng::seed_from_u64(12);
    let n = 40;
    let mut params = ChainParams::new(random_links(&mut rng, n, "mixed"));
    (params.damping, params.drive) = forcing(&mut rng, n);
    let chain = Chain::new(params).unwrap().with_route(Route::Structured);
    let mut ws = chain.workspace();
    let x: Vec<f64> = (0..2 * n).map(|i| 0.01 * i as f64).collect();
    let v = vec![0.5; 2 * n * 6];
    let (mut dx, mut dv) = (vec![0.0; 2 * n], vec![0.0; 2 * n * 6]);
    let before = ALLOCS.with(|c| c.get());
    for _ in 0..10 {
        chain.rhs(0.3, &x, &mut dx, &mut ws);
        chain.rhs_tangent(0.3, &x, &v, &mut dx, &mut dv, &mut ws);
        std::hint::black_box(chain.energy(0.3, &x));
    }
    assert_eq!(ALLOCS.with(|c| c.get()) - before, 0);
}

/// dqds (the default at stable equilibria) against the independent QL + Sturm-bisection route:
/// every ω² to 1e-12 relative — relative to each eigenvalue, not to the largest — on random point
/// chains N = 1..300 and the equal chains up to N = 2000, whose spectra span six decades.
#[test]
fn dqds_matches_ql_relative_to_each_eigenvalue() {
    let mut rng = StdRng::seed_from_u64(12);
    let mut worst = 0.0f64;
    let mut check = |chain: &Chain, n: usize| {
        let r = TridiagonalReduction::new(chain, &Equilibrium::hanging(n)).unwrap();
        let (a, b) = (r.eigenvalues(), r.eigenvalues_ql());
        assert_eq!(a.len(), n);
        for k in 0..n {
            let e = ((a[k] - b[k]) / b[k]).abs();
            worst = worst.max(e);
            assert!(e < 1e-12, "N = {n}: ω²[{k}] dqds {} vs QL {}", a[k], b[k]);
        }
    };
    for n in (1..=60).chain([100, 200, 300]) {
        let chain = random_point_chain(&mut rng, n);
        check(&chain, n);
    }
    for n in [500, 2000] {
        check(&Chain::new(ChainParams::equal_points(n)).unwrap(), n);
    }
    eprintln!("dqds vs QL + bisection: max relative difference {worst:.2e}");
}

/// The eigenvectors run over clusters on rayon's threads; 1 and 2 threads give the same bits.
#[test]
fn structured_modes_do_not_depend_on_thread_count() {
    let n = 700;
    let chain = Chain::new(ChainParams::equal_points(n)).unwrap();
    let r = TridiagonalReduction::new(&chain, &Equilibrium::hanging(n)).unwrap();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| r.eigen())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
}
