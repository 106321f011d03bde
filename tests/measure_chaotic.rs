//! Oracles for the chaotic fraction of an energy shell (issue 16, item 5): the Liouville shell
//! sampler against exact marginals (one pendulum: KS against ∝ 1/√(E − V); double pendulum:
//! ⟨cos²(θ₁ − θ₂)⟩ and ⟨cos θ₁⟩ against quadrature, microcanonical equipartition), the Wilson
//! interval against textbook values, the fraction's low- and high-energy behaviour, thread-count
//! independence, and both limits of a mixed system (standard map at K = 0 and K = 10).

use pendula::analysis::measure::chaotic::*;
use pendula::analysis::orbit::{AlignmentOptions, Regularity, SALI_CHAOTIC, SALI_REGULAR};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use std::f64::consts::PI;

fn chain(n: usize) -> Chain {
    Chain::new(ChainParams::equal_points(n)).unwrap()
}

/// Short SALI runs for the tests: RK4 dt = 0.01 s, τ = 0.1 s, t_max = 100 s.
fn opts() -> ChaoticOptions {
    ChaoticOptions {
        method: Method::Rk4 { dt: 0.01 },
        indicators: AlignmentOptions {
            tau: 0.1,
            time: 100.0,
            max_history: 16,
            ..AlignmentOptions::default()
        },
    }
}

#[test]
fn wilson_matches_textbook_values() {
    // Wilson (1927); e.g. Newcombe, Stat. Med. 17, 857 (1998), and Agresti & Coull (1998).
    let (lo, hi) = wilson_interval(50, 100);
    assert!(
        (lo - 0.4038).abs() < 5e-4 && (hi - 0.5962).abs() < 5e-4,
        "{lo} {hi}"
    );
    let (lo, hi) = wilson_interval(0, 20);
    assert!(lo == 0.0 && (hi - 0.1611).abs() < 5e-4, "{lo} {hi}");
    let (lo, hi) = wilson_interval(20, 20);
    assert!(hi == 1.0 && (lo - 0.8389).abs() < 5e-4, "{lo} {hi}");
    // Newcombe's example 81/263: 0.2553 … 0.3662.
    let (lo, hi) = wilson_interval(81, 263);
    assert!(
        (lo - 0.2553).abs() < 5e-4 && (hi - 0.3662).abs() < 5e-4,
        "{lo} {hi}"
    );
    assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    let f = ShellFraction::from_counts(1.0, 3, 1, 7);
    assert_eq!((f.fraction, f.undecided), (0.75, 7));
}

/// Composite Simpson on [a, b] with `m` (even) panels.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, m: usize) -> f64 {
    let h = (b - a) / m as f64;
    let mut s = f(a) + f(b);
    for i in 1..m {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

#[test]
fn single_pendulum_marginal_passes_ks_against_the_exact_density() {
    // One point mass, 1 m, g = 9.81: V = −g cos θ, V_max = 9.81. On a rotating shell E = 12 J the
    // θ-marginal is ∝ 1/√(E − V(θ)) (N/2 − 1 = −1/2), ≈ 3.3 times denser at θ = π than at 0.
    let c = chain(1);
    let g = ChainParams::G;
    let e = 12.0;
    let n = 4000;
    let (xs, proposals) = shell_samples(&c, e, n, 11).unwrap();
    assert_eq!(xs.len(), n);
    let dens = |t: f64| 1.0 / (e + g * t.cos()).sqrt();
    let total = simpson(dens, -PI, PI, 4000);
    let cdf = |t: f64| simpson(dens, -PI, t, 400) / total;
    let mut th: Vec<f64> = xs.iter().map(|x| x[0]).collect();
    th.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let ks = |f: &dyn Fn(f64) -> f64| {
        th.iter().enumerate().fold(0.0f64, |d, (i, &t)| {
            let fi = f(t);
            d.max((fi - i as f64 / n as f64).abs())
                .max(((i + 1) as f64 / n as f64 - fi).abs())
        })
    };
    let d = ks(&cdf);
    let d_uniform = ks(&|t: f64| (t + PI) / (2.0 * PI));
    // Kolmogorov's 1 % critical value 1.628/√n = 0.0257; uniform angles fail it by far.
    let crit = 1.628 / (n as f64).sqrt();
    println!(
        "KS D = {d:.4} (uniform-in-θ: {d_uniform:.4}, 1 % critical {crit:.4}), acceptance {:.3}",
        n as f64 / proposals as f64
    );
    assert!(d < crit, "KS D = {d}");
    assert!(
        d_uniform > 3.0 * crit,
        "the test must tell the densities apart: {d_uniform}"
    );
    // Every start on the shell, both directions of rotation about equally often.
    let mut forward = 0;
    for x in &xs {
        let h = c.kinetic_energy(x) + c.potential_energy(&x[..1]);
        assert!((h - e).abs() <= 1e-12 * e, "H = {h}");
        forward += usize::from(x[1] > 0.0);
    }
    let z = (forward as f64 - n as f64 / 2.0) / (n as f64 / 4.0).sqrt();
    assert!(z.abs() < 4.0, "forward {forward} of {n}");
}

#[test]
fn double_pendulum_samples_are_on_the_shell_with_the_liouville_marginal() {
    // Equal point masses: a = [[2, 1], [1, 1]], b = [2, 1], det M = 2 − cos²(θ₁ − θ₂); N = 2 so
    // the θ-marginal is ∝ √det M on {V < E}.
    let c = chain(2);
    let g = ChainParams::G;
    let n = 4000;
    let sqrt_det = |t1: f64, t2: f64| (2.0 - (t1 - t2).cos().powi(2)).sqrt();
    // E = −10 J: part of the torus is out of reach. ⟨cos θ₁⟩ by quadrature: θ₂ over the exact
    // interval |θ₂| < c(θ₁) where V < E (Simpson, smooth), θ₁ by midpoints.
    let e = -10.0;
    let m1 = 4000;
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..m1 {
        let t1 = -PI + (i as f64 + 0.5) * 2.0 * PI / m1 as f64;
        // −2g cos θ₁ − g cos θ₂ < E  ⇔  cos θ₂ > −(E + 2g cos θ₁)/g.
        let cth = -(e + 2.0 * g * t1.cos()) / g;
        if cth >= 1.0 {
            continue;
        }
        let w = cth.max(-1.0).acos();
        let inner = simpson(|t2| sqrt_det(t1, t2), -w, w, 200);
        num += t1.cos() * inner;
        den += inner;
    }
    let exact = num / den;
    let (xs, _) = shell_samples(&c, e, n, 5).unwrap();
    let (mut s, mut s2, mut eq, mut eq2) = (0.0, 0.0, 0.0, 0.0);
    for x in &xs {
        let h = c.kinetic_energy(x) + c.potential_energy(&x[..2]);
        assert!((h - e).abs() <= 1e-12 * e.abs(), "H − E = {}", h - e);
        s += x[0].cos();
        s2 += x[0].cos().powi(2);
        // Microcanonical equipartition ⟨p₁ θ̇₁⟩ = ⟨p₂ θ̇₂⟩ tests the momentum directions.
        let y = c.to_canonical(x);
        let d = y[2] * x[2] - y[3] * x[3];
        eq += d;
        eq2 += d * d;
    }
    let nf = n as f64;
    let mean = s / nf;
    let se = ((s2 / nf - mean * mean) / nf).sqrt();
    println!("E = {e}: <cos θ1> = {mean:.4} ± {se:.4}, quadrature {exact:.4}");
    assert!(
        (mean - exact).abs() < 4.0 * se,
        "{mean} vs {exact} (se {se})"
    );
    let eqm = eq / nf;
    let eqse = ((eq2 / nf - eqm * eqm) / nf).sqrt();
    println!("<p1 θ̇1 − p2 θ̇2> = {eqm:.4} ± {eqse:.4}");
    assert!(eqm.abs() < 4.0 * eqse);

    // E = 40 J > V_max: the whole torus; ⟨cos²(θ₁ − θ₂)⟩ weighted by √det M (0.5 if uniform).
    let e = 40.0;
    let wnum = simpson(|f| f.cos().powi(2) * sqrt_det(f, 0.0), -PI, PI, 2000);
    let wden = simpson(|f| sqrt_det(f, 0.0), -PI, PI, 2000);
    let exact = wnum / wden;
    let (xs, _) = shell_samples(&c, e, n, 6).unwrap();
    let v: Vec<f64> = xs.iter().map(|x| (x[0] - x[1]).cos().powi(2)).collect();
    let mean = v.iter().sum::<f64>() / nf;
    let se = (v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / (nf - 1.0) / nf).sqrt();
    println!("E = {e}: <cos²(θ1−θ2)> = {mean:.4} ± {se:.4}, quadrature {exact:.4}");
    assert!(
        (mean - exact).abs() < 4.0 * se,
        "{mean} vs {exact} (se {se})"
    );
    assert!(
        (0.5 - exact).abs() > 6.0 * se,
        "the weight must matter: {exact}"
    );
    for x in &xs {
        let h = c.kinetic_energy(x) + c.potential_energy(&x[..2]);
        assert!((h - e).abs() <= 1e-12 * e, "H − E = {}", h - e);
    }
}

#[test]
fn fraction_is_zero_near_the_hanging_rest_and_rises_with_energy() {
    // V_min = −3g = −29.43 J, V_max = +29.43 J for the equal double pendulum.
    let c = chain(2);
    let t = std::time::Instant::now();
    let r = chaotic_fraction(&c, &[-29.0, -15.0, -5.0], 64, 3, &opts()).unwrap();
    for f in &r {
        println!(
            "E = {:6.1}: chaotic {:2} regular {:2} undecided {:2}  fraction {:.3} [{:.3}, {:.3}]",
            f.energy, f.chaotic, f.regular, f.undecided, f.fraction, f.wilson.0, f.wilson.1
        );
        assert_eq!(f.chaotic + f.regular + f.undecided, 64);
        assert_eq!(f.failed, 0);
    }
    println!("3 × 64 samples in {:?}", t.elapsed());
    // Just above the hanging rest: all regular, the interval reaches 0.
    assert_eq!(r[0].wilson.0, 0.0);
    assert!(r[0].fraction < 0.05 && r[0].regular >= 60, "{:?}", r[0]);
    // Rising: the high shell's interval lies above the middle one's, and is clearly positive.
    assert!(r[2].wilson.0 > r[1].wilson.1, "{:?} {:?}", r[1], r[2]);
    assert!(r[2].fraction > 0.8, "{:?}", r[2]);
    assert!(r[1].fraction < r[2].fraction && r[0].fraction <= r[1].fraction);
}

#[test]
fn counts_do_not_depend_on_the_thread_count() {
    let c = chain(2);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let s = shell_samples(&c, -12.0, 50, 9).unwrap();
                let f = chaotic_fraction(&c, &[-15.0, -10.0], 24, 9, &opts()).unwrap();
                (s, f)
            })
    };
    let (s1, f1) = run(1);
    let (s2, f2) = run(2);
    assert_eq!(s1, s2);
    assert_eq!(f1, f2);
    // A different seed draws different starts.
    assert_ne!(shell_samples(&c, -12.0, 50, 10).unwrap().0, s1.0);
}

#[test]
fn bad_energies_and_chains_are_refused_naming_the_field() {
    let c = chain(2);
    for bad in [-29.43, -40.0, f64::NAN] {
        let e = chaotic_fraction(&c, &[0.0, bad], 4, 1, &opts()).unwrap_err();
        assert!(e.to_string().starts_with("energies:"), "{e}");
    }
    let e = chaotic_fraction(&c, &[], 4, 1, &opts()).unwrap_err();
    assert!(e.to_string().starts_with("energies:"), "{e}");
    let e = chaotic_fraction(&c, &[0.0], 0, 1, &opts()).unwrap_err();
    assert!(e.to_string().starts_with("samples:"), "{e}");
    // One link below the inverted rest: unbounded density, refused.
    let e = shell_samples(&chain(1), 5.0, 4, 1).unwrap_err();
    assert!(e.to_string().starts_with("energies:"), "{e}");
    let mut p = ChainParams::equal_points(2);
    p.damping.absolute = vec![0.1, 0.1];
    let damped = Chain::new(p).unwrap();
    let e = chaotic_fraction(&damped, &[0.0], 4, 1, &opts()).unwrap_err();
    assert!(e.to_string().contains("conservative"), "{e}");
    let mut o = opts();
    o.indicators.tau = 0.015; // not a multiple of dt = 0.01
    let e = chaotic_fraction(&c, &[0.0], 2, 1, &o).unwrap_err();
    assert!(e.to_string().starts_with("indicators:"), "{e}");
}

/// The SALI two-vector test of the indicators (same thresholds and verdict rule) on a 4-D
/// symplectic map: Chirikov's standard map p' = p + K sin x, x' = x + p' in (x₁, p₁), times the
/// free shear p' = p, x' = x + p in (x₂, p₂). A product with a second degree of freedom is
/// needed because on a 2-D map SALI of a regular orbit decays as a power law (Skokos 2001);
/// here regular orbits (K = 0) keep SALI bounded and chaotic ones (λ₁ = λ of the standard map,
/// λ₂ = 0) reach 1e-8 exponentially. `indicators` integrates flows (a `System`), not maps,
/// hence this helper.
fn standard_map_verdict(k: f64, x: [f64; 4], iterations: usize) -> Regularity {
    let [mut x1, mut p1, mut x2, mut p2] = x;
    let mut v = [[1.0, 0.3, -0.2, 0.5], [-0.4, 0.9, 0.7, 0.1]];
    let mut min_second = f64::INFINITY;
    for it in 1..=iterations {
        let c = k * x1.cos();
        for w in v.iter_mut() {
            // Tangent map: δp₁' = δp₁ + K cos x₁ δx₁, δx₁' = δx₁ + δp₁'; shear in (x₂, p₂).
            let dp1 = w[1] + c * w[0];
            let dx1 = w[0] + dp1;
            let dx2 = w[2] + w[3];
            *w = [dx1, dp1, dx2, w[3]];
            let norm = w.iter().map(|a| a * a).sum::<f64>().sqrt();
            w.iter_mut().for_each(|a| *a /= norm);
        }
        p1 += k * x1.sin();
        x1 = (x1 + p1).rem_euclid(2.0 * PI);
        p2 = p2.rem_euclid(2.0 * PI);
        x2 = (x2 + p2).rem_euclid(2.0 * PI);
        let plus = (0..4)
            .map(|i| (v[0][i] + v[1][i]).powi(2))
            .sum::<f64>()
            .sqrt();
        let minus = (0..4)
            .map(|i| (v[0][i] - v[1][i]).powi(2))
            .sum::<f64>()
            .sqrt();
        let s = plus.min(minus);
        if s < SALI_CHAOTIC {
            return Regularity::Chaotic;
        }
        if 2 * it > iterations {
            min_second = min_second.min(s);
        }
    }
    if min_second > SALI_REGULAR {
        Regularity::Regular
    } else {
        Regularity::Undecided
    }
}

#[test]
fn standard_map_limits_all_regular_at_k0_and_chaotic_at_k10() {
    let fraction = |k: f64| {
        let mut rng = 0x1234_5678u64;
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 11) as f64 / (1u64 << 53) as f64 * 2.0 * PI
        };
        let (mut ch, mut re, mut un) = (0, 0, 0);
        for _ in 0..200 {
            match standard_map_verdict(k, [next(), next(), next(), next()], 2000) {
                Regularity::Chaotic => ch += 1,
                Regularity::Regular => re += 1,
                Regularity::Undecided => un += 1,
            }
        }
        ShellFraction::from_counts(k, ch, re, un)
    };
    let f0 = fraction(0.0);
    let f10 = fraction(10.0);
    println!("K = 0: {f0:?}\nK = 10: {f10:?}");
    assert_eq!((f0.chaotic, f0.regular), (0, 200));
    assert_eq!(f0.wilson.0, 0.0);
    assert!(f10.fraction > 0.9 && f10.wilson.0 > 0.9, "{f10:?}");
}

#[test]
fn triple_pendulum_marginal_carries_the_energy_factor() {
    // N = 3: the θ-marginal is ∝ √det M · (E − V)^{1/2}. Equal point masses: a_jk = 3 − max(j, k)
    // (0-based), M_jk = a_jk cos(θ_j − θ_k), V = −g(3 cos θ₁ + 2 cos θ₂ + cos θ₃), V_max = 6g.
    // On E = 80 J > V_max the weight is smooth and periodic, so the trapezoid rule on a 64³ grid
    // is exact to far below the sampling error.
    let c = chain(3);
    let g = ChainParams::G;
    let e = 80.0;
    let weight = |t: [f64; 3]| {
        let a = |j: usize, k: usize| (3 - j.max(k)) as f64 * (t[j] - t[k]).cos();
        let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
            - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
            + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
        let v = -g * (3.0 * t[0].cos() + 2.0 * t[1].cos() + t[2].cos());
        det.sqrt() * (e - v).sqrt()
    };
    let m = 64;
    let h = 2.0 * PI / m as f64;
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..m {
            for k in 0..m {
                let t = [i as f64 * h - PI, j as f64 * h - PI, k as f64 * h - PI];
                let w = weight(t);
                num += w * t[0].cos();
                den += w;
            }
        }
    }
    let exact = num / den;
    let n = 20000;
    let (xs, proposals) = shell_samples(&c, e, n, 21).unwrap();
    let v: Vec<f64> = xs.iter().map(|x| x[0].cos()).collect();
    let nf = n as f64;
    let mean = v.iter().sum::<f64>() / nf;
    let se = (v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / (nf - 1.0) / nf).sqrt();
    // Without the (E − V)^{1/2} factor the mean would be the √det M-weighted one.
    let mut plain = (0.0, 0.0);
    for i in 0..m {
        for j in 0..m {
            for k in 0..m {
                let t = [i as f64 * h - PI, j as f64 * h - PI, k as f64 * h - PI];
                let v = -g * (3.0 * t[0].cos() + 2.0 * t[1].cos() + t[2].cos());
                let w = weight(t) / (e - v).sqrt();
                plain.0 += w * t[0].cos();
                plain.1 += w;
            }
        }
    }
    let plain = plain.0 / plain.1;
    println!(
        "N = 3, E = {e}: <cos θ1> = {mean:.4} ± {se:.4}, quadrature {exact:.4} \
         (without the energy factor {plain:.4}), acceptance {:.3}",
        nf / proposals as f64
    );
    assert!(
        (mean - exact).abs() < 4.0 * se,
        "{mean} vs {exact} (se {se})"
    );
    assert!(
        (plain - exact).abs() > 8.0 * se,
        "the factor must matter: {plain}"
    );
    // Equipartition ⟨p₁ θ̇₁⟩ = ⟨p₃ θ̇₃⟩, and every start on the shell.
    let d: Vec<f64> = xs
        .iter()
        .map(|x| {
            let h = c.kinetic_energy(x) + c.potential_energy(&x[..3]);
            assert!((h - e).abs() <= 1e-12 * e, "H − E = {}", h - e);
            let y = c.to_canonical(x);
            y[3] * x[3] - y[5] * x[5]
        })
        .collect();
    let dm = d.iter().sum::<f64>() / nf;
    let dse = (d.iter().map(|a| (a - dm).powi(2)).sum::<f64>() / (nf - 1.0) / nf).sqrt();
    assert!(dm.abs() < 4.0 * dse, "{dm} ± {dse}");
}
