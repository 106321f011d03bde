//! Oracle tests of the planar chain against independent routes: the seeds' scalar equations,
//! finite differences of the right-hand side, energy derivatives and the pendulum's rod tension.

mod common;
use common::forced;
use pendula::model::{Chain, ChainParams, Link, ModelError, System};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_state(rng: &mut StdRng, n: usize) -> Vec<f64> {
    (0..2 * n)
        .map(|i| {
            if i < n {
                rng.random_range(-3.0..3.0)
            } else {
                rng.random_range(-4.0..4.0)
            }
        })
        .collect()
}

/// Seed 000, eq. (46)/(47), written out link by link with its nested sums (q, k, i all 1-based in
/// the paper; 0-based here). The seed's term (46.4) carries a stray factor θ̇_q: d/dt of
/// l_i l_q θ̇_i cos(θ_i − θ_q) gives l_i l_q θ̇_i sin(θ_i − θ_q)(θ̇_q − θ̇_i), which is what we use
/// (the printed form is not dimensionally consistent).
fn seed000_residual(l: &[f64], m: &[f64], g: f64, x: &[f64], acc: &[f64]) -> (Vec<f64>, f64) {
    let n = l.len();
    let (th, om) = x.split_at(n);
    let mut res = vec![0.0; n];
    let mut scale: f64 = 0.0;
    for q in 0..n {
        let mut r = 0.0;
        for k in q..n {
            let mut terms = vec![g * m[k] * l[q] * th[q].sin(), m[k] * l[q] * l[q] * acc[q]];
            for i in 0..=k {
                terms.push(m[k] * l[i] * l[q] * om[i] * om[q] * (th[q] - th[i]).sin());
                terms.push(m[k] * l[i] * l[q] * om[i] * (th[i] - th[q]).sin() * (om[q] - om[i]));
                if i != q {
                    terms.push(m[k] * l[i] * l[q] * (th[i] - th[q]).cos() * acc[i]);
                }
            }
            for t in terms {
                r += t;
                scale = scale.max(t.abs());
            }
        }
        res[q] = r;
    }
    (res, scale)
}

#[test]
fn point_chain_matches_seed000_scalar_equations() {
    let mut rng = StdRng::seed_from_u64(1);
    let g = 9.81;
    for n in 1..=6 {
        for _ in 0..20 {
            let l: Vec<f64> = (0..n).map(|_| rng.random_range(0.2..2.0)).collect();
            let m: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..3.0)).collect();
            let links = l.iter().zip(&m).map(|(&l, &m)| Link::point(l, m)).collect();
            let chain = Chain::new(ChainParams {
                gravity: g,
                ..ChainParams::new(links)
            })
            .unwrap();
            let x = random_state(&mut rng, n);
            let acc = chain.acceleration(0.0, &x);
            let (res, scale) = seed000_residual(&l, &m, g, &x, &acc);
            for r in res {
                assert!(
                    r.abs() <= 1e-12 * scale,
                    "N = {n}: residual {r:e}, scale {scale:e}"
                );
            }
        }
    }
}

/// Seed 004, eq. (18): uniform rods of one density ρ,
/// Σ_k A_jk [cos(θ_j−θ_k) θ̈_k + sin(θ_j−θ_k) θ̇_k²] + g B_j sin θ_j = 0 with
/// A_jk = ρ l_j l_k (L_max(j,k) − δ_jk l_j/6), B_j = ρ l_j L_j, L_j = l_j/2 + Σ_{i>j} l_i.
#[test]
fn rod_chain_matches_seed004_equation_18() {
    let mut rng = StdRng::seed_from_u64(2);
    let g = 9.81;
    for n in 1..=6 {
        for _ in 0..20 {
            let rho = rng.random_range(0.5..2.0);
            let l: Vec<f64> = (0..n).map(|_| rng.random_range(0.2..2.0)).collect();
            let links = l.iter().map(|&l| Link::rod(l, rho * l)).collect();
            let chain = Chain::new(ChainParams {
                gravity: g,
                ..ChainParams::new(links)
            })
            .unwrap();
            let x = random_state(&mut rng, n);
            let (th, om) = x.split_at(n);
            let acc = chain.acceleration(0.0, &x);
            let big_l: Vec<f64> = (0..n)
                .map(|j| l[j] / 2.0 + l[j + 1..].iter().sum::<f64>())
                .collect();
            for j in 0..n {
                let mut r = g * rho * l[j] * big_l[j] * th[j].sin();
                let mut scale = r.abs();
                for k in 0..n {
                    let lmax = big_l[j.max(k)];
                    let ajk = rho * l[j] * l[k] * (lmax - if j == k { l[j] / 6.0 } else { 0.0 });
                    let t = ajk
                        * ((th[j] - th[k]).cos() * acc[k] + (th[j] - th[k]).sin() * om[k] * om[k]);
                    scale = scale.max(t.abs());
                    r += t;
                }
                assert!(
                    r.abs() <= 1e-12 * scale,
                    "N = {n}, link {j}: residual {r:e}"
                );
            }
        }
    }
}

/// Seed 004, eq. (19) / physics.md: two equal rods, divided by ρ l³.
#[test]
fn equal_rod_double_pendulum_matches_explicit_form() {
    let l = 0.7;
    let g = 9.81;
    let chain = Chain::new(ChainParams {
        gravity: g,
        ..ChainParams::new(vec![Link::rod(l, 2.0 * l); 2])
    })
    .unwrap();
    let x = [0.9, -1.7, 1.3, -2.2];
    let a = chain.acceleration(0.0, &x);
    let d = x[0] - x[1];
    let r1 = 4.0 / 3.0 * a[0]
        + 0.5 * d.cos() * a[1]
        + 0.5 * d.sin() * x[3] * x[3]
        + 1.5 * g / l * x[0].sin();
    let r2 =
        0.5 * d.cos() * a[0] + a[1] / 3.0 - 0.5 * d.sin() * x[2] * x[2] + 0.5 * g / l * x[1].sin();
    assert!(
        r1.abs() < 1e-12 * 30.0 && r2.abs() < 1e-12 * 30.0,
        "{r1:e} {r2:e}"
    );
}

fn test_chains() -> Vec<(&'static str, Chain)> {
    let mixed = vec![
        Link::point(1.0, 1.0),
        Link::rod(0.6, 0.4),
        Link::given(0.8, 0.7, 0.3, 0.02),
        Link::point(0.5, 0.3),
    ];
    vec![
        ("point", Chain::new(ChainParams::equal_points(3)).unwrap()),
        ("rod", Chain::new(ChainParams::equal_rods(3)).unwrap()),
        (
            "mixed",
            Chain::new(ChainParams::new(mixed.clone())).unwrap(),
        ),
        (
            "point, forced",
            forced(vec![Link::point(1.0, 1.0), Link::point(0.7, 2.0)]),
        ),
        ("rod, forced", forced(vec![Link::rod(1.0, 1.0); 3])),
        ("mixed, forced", forced(mixed)),
        ("single, forced", forced(vec![Link::point(1.3, 0.8)])),
    ]
}

#[test]
fn tangent_block_matches_central_differences() {
    let mut rng = StdRng::seed_from_u64(3);
    for (name, chain) in test_chains() {
        let d = chain.dim();
        let mut ws = chain.workspace();
        for _ in 0..5 {
            let x = random_state(&mut rng, d / 2);
            let t = rng.random_range(0.0..5.0);
            // k = d + 1 columns: the identity plus a random direction.
            let mut v = vec![0.0; d * (d + 1)];
            for c in 0..d {
                v[c * d + c] = 1.0;
            }
            for i in 0..d {
                v[d * d + i] = rng.random_range(-1.0..1.0);
            }
            let mut dx = vec![0.0; d];
            let mut dv = vec![0.0; v.len()];
            chain.rhs_tangent(t, &x, &v, &mut dx, &mut dv, &mut ws);
            let mut f0 = vec![0.0; d];
            chain.rhs(t, &x, &mut f0, &mut ws);
            assert_eq!(dx, f0, "{name}: fused call changes f");
            for c in 0..=d {
                let dir = &v[c * d..(c + 1) * d];
                let h = 1e-6;
                let xp: Vec<f64> = x.iter().zip(dir).map(|(a, b)| a + h * b).collect();
                let xm: Vec<f64> = x.iter().zip(dir).map(|(a, b)| a - h * b).collect();
                let (mut fp, mut fm) = (vec![0.0; d], vec![0.0; d]);
                chain.rhs(t, &xp, &mut fp, &mut ws);
                chain.rhs(t, &xm, &mut fm, &mut ws);
                let scale = dv[c * d..(c + 1) * d]
                    .iter()
                    .fold(1.0f64, |s, v| s.max(v.abs()));
                for i in 0..d {
                    let fd = (fp[i] - fm[i]) / (2.0 * h);
                    let ex = dv[c * d + i];
                    assert!(
                        (fd - ex).abs() <= 1e-7 * scale,
                        "{name}: column {c}, row {i}: exact {ex}, fd {fd}"
                    );
                }
            }
        }
    }
}

#[test]
fn power_equals_time_derivative_of_energy() {
    // dE/dt along the flow = ∇E · f, by central differences in time of E(x(t)) via the flow field.
    let mut rng = StdRng::seed_from_u64(4);
    for (name, chain) in test_chains() {
        let d = chain.dim();
        let mut ws = chain.workspace();
        for _ in 0..5 {
            let x = random_state(&mut rng, d / 2);
            let t = rng.random_range(0.0..5.0);
            let mut f = vec![0.0; d];
            chain.rhs(t, &x, &mut f, &mut ws);
            let h = 1e-6;
            let xp: Vec<f64> = x.iter().zip(&f).map(|(a, b)| a + h * b).collect();
            let xm: Vec<f64> = x.iter().zip(&f).map(|(a, b)| a - h * b).collect();
            let de = (chain.energy(t, &xp) - chain.energy(t, &xm)) / (2.0 * h);
            let p = chain.power(t, &x);
            let scale = 1.0 + chain.energy(t, &x).abs() + p.abs();
            assert!(
                (de - p).abs() < 1e-7 * scale,
                "{name}: dE/dt {de} vs power {p}"
            );
            if chain.is_conservative() {
                assert_eq!(p, 0.0);
            }
        }
    }
}

#[test]
fn kinetic_energy_is_sum_of_link_energies() {
    let mut rng = StdRng::seed_from_u64(5);
    for (name, chain) in test_chains() {
        let x = random_state(&mut rng, chain.links());
        let parts: f64 = chain.link_kinetic_energies(&x).iter().sum();
        let t = chain.kinetic_energy(&x);
        assert!(
            (parts - t).abs() < 1e-12 * t.max(1.0),
            "{name}: {parts} vs {t}"
        );
    }
}

#[test]
fn single_pendulum_rod_tension() {
    let (l, m, g) = (1.3, 0.8, 9.81);
    let chain = Chain::new(ChainParams {
        gravity: g,
        ..ChainParams::new(vec![Link::point(l, m)])
    })
    .unwrap();
    for &(th, om) in &[(0.0, 0.0), (0.4, 1.5), (2.5, -3.0), (-1.0, 0.2)] {
        let f = chain.reaction_forces(0.0, &[th, om])[0];
        let tension = m * (l * om * om + g * th.cos());
        // The pendulum pulls the pivot along the rod, towards the bob: F = T (sin θ, −cos θ).
        assert!((f[0] - tension * th.sin()).abs() < 1e-12 * (1.0 + tension.abs()));
        assert!((f[1] + tension * th.cos()).abs() < 1e-12 * (1.0 + tension.abs()));
    }
}

#[test]
fn reaction_at_pivot_balances_weight_at_rest() {
    let chain = Chain::new(ChainParams::new(vec![
        Link::point(1.0, 1.0),
        Link::rod(0.5, 2.0),
        Link::point(0.3, 0.5),
    ]))
    .unwrap();
    let f = chain.reaction_forces(0.0, &[0.0; 6]);
    assert!((f[0][1] + 9.81 * 3.5).abs() < 1e-12);
    assert!((f[1][1] + 9.81 * 2.5).abs() < 1e-12);
    assert!((f[2][1] + 9.81 * 0.5).abs() < 1e-12);
}

#[test]
fn validation_names_link_and_field() {
    let bad = |links: Vec<Link>| Chain::new(ChainParams::new(links)).unwrap_err();
    assert_eq!(
        Chain::new(ChainParams::new(vec![])).unwrap_err(),
        ModelError::NoLinks
    );
    let e = bad(vec![Link::point(1.0, 1.0), Link::point(-1.0, 1.0)]);
    assert!(
        matches!(
            e,
            ModelError::Link {
                link: 2,
                field: "length",
                ..
            }
        ),
        "{e}"
    );
    let e = bad(vec![Link::point(1.0, f64::NAN)]);
    assert!(
        matches!(
            e,
            ModelError::Link {
                link: 1,
                field: "mass",
                ..
            }
        ),
        "{e}"
    );
    let e = bad(vec![Link::given(1.0, 1.0, 0.5, -0.1)]);
    assert!(
        matches!(
            e,
            ModelError::Link {
                field: "inertia",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("link 1") && e.to_string().contains("inertia"));
    let mut p = ChainParams::equal_points(2);
    p.damping.absolute = vec![0.1];
    assert!(matches!(
        Chain::new(p).unwrap_err(),
        ModelError::Length { .. }
    ));
    let mut p = ChainParams::equal_points(2);
    p.gravity = f64::INFINITY;
    assert!(Chain::new(p).unwrap_err().to_string().contains("gravity"));
}
