//! The chain of spherical pendulums on a cart (physics.md §4) against independent routes: the
//! planar chain, conservation laws, finite differences on the manifold, an independent
//! construction of seed 003's eq. (31), and the LQR closed loop.

use pendula::integrate::{Dop853, Flow, Rk4, Solver};
use pendula::model::{CartChain, CartChainParams, CartInput, Chain, ChainParams, Link, System};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A random state on the manifold: unit q_i, ω_i ⊥ q_i.
fn random_state(rng: &mut StdRng, sys: &CartChain) -> Vec<f64> {
    let n = sys.links();
    let mut q = Vec::new();
    let mut w = Vec::new();
    for _ in 0..n {
        let mut a = [0.0f64; 3];
        a.iter_mut().for_each(|v| *v = rng.random_range(-1.0..1.0));
        let na = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        a.iter_mut().for_each(|v| *v /= na);
        let mut b = [0.0f64; 3];
        b.iter_mut().for_each(|v| *v = rng.random_range(-2.0..2.0));
        let c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        for k in 0..3 {
            b[k] -= c * a[k];
        }
        q.push(a);
        w.push(b);
    }
    let x = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
    let v = [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)];
    sys.state(x, v, &q, &w)
}

fn chain(n: usize, cart: Option<f64>) -> CartChain {
    let mut p = CartChainParams::uniform(n, 1.0, 1.0, cart);
    p.lengths = (0..n).map(|i| 1.0 - 0.08 * i as f64).collect();
    p.masses = (0..n).map(|i| 1.0 + 0.3 * i as f64).collect();
    CartChain::new(p).unwrap()
}

fn integrate(sys: &CartChain, x0: &[f64], t_end: f64, tol: f64) -> Vec<f64> {
    let mut flow = Flow::new(sys);
    let mut y = x0.to_vec();
    let mut s = Dop853::with_tol(tol).solver(y.len());
    s.advance_to(&mut flow, 0.0, &mut y, t_end).unwrap();
    y
}

/// A planar start in the x–z plane: q = (sin θ, 0, cos θ), ω = (0, θ̇, 0).
fn planar_start(sys: &CartChain, theta: &[f64], thetadot: &[f64], v: [f64; 2]) -> Vec<f64> {
    let q: Vec<[f64; 3]> = theta.iter().map(|t| [t.sin(), 0.0, t.cos()]).collect();
    let w: Vec<[f64; 3]> = thetadot.iter().map(|d| [0.0, *d, 0.0]).collect();
    sys.state([0.0; 2], v, &q, &w)
}

#[test]
fn planar_motion_stays_in_plane_and_matches_the_planar_chain() {
    let theta = [0.6, -0.4, 0.9];
    let thetadot = [0.3, -0.5, 0.2];
    let lengths = [1.0, 0.8, 0.6];
    let masses = [1.0, 1.5, 0.7];
    let mut p = CartChainParams::uniform(3, 1.0, 1.0, None);
    p.lengths = lengths.to_vec();
    p.masses = masses.to_vec();
    let sys = CartChain::new(p.clone()).unwrap();
    let x0 = planar_start(&sys, &theta, &thetadot, [0.0; 2]);
    let planar = Chain::new(ChainParams::new(
        (0..3).map(|i| Link::point(lengths[i], masses[i])).collect(),
    ))
    .unwrap();
    let mut y_planar: Vec<f64> = theta.iter().chain(&thetadot).copied().collect();
    let mut flow_p = Flow::new(&planar);
    let mut sp = Dop853::with_tol(1e-13).solver(6);
    let mut flow = Flow::new(&sys);
    let mut y = x0.clone();
    let mut s = Dop853::with_tol(1e-13).solver(y.len());
    let mut worst_plane: f64 = 0.0;
    let mut worst_diff: f64 = 0.0;
    for k in 1..=100 {
        let t1 = 0.1 * k as f64;
        s.advance_to(&mut flow, 0.1 * (k - 1) as f64, &mut y, t1)
            .unwrap();
        sp.advance_to(&mut flow_p, 0.1 * (k - 1) as f64, &mut y_planar, t1)
            .unwrap();
        for i in 0..3 {
            let q = &y[3 * i..3 * i + 3];
            let w = &y[9 + 3 * i..9 + 3 * i + 3];
            worst_plane = worst_plane.max(q[1].abs()).max(w[0].abs()).max(w[2].abs());
            let th = y_planar[i];
            let thd = y_planar[3 + i];
            worst_diff = worst_diff
                .max((q[0] - th.sin()).abs())
                .max((q[2] - th.cos()).abs())
                .max((w[1] - thd).abs());
        }
    }
    eprintln!("planar: out of plane {worst_plane:e}, vs planar chain {worst_diff:e}");
    assert!(worst_plane <= 1e-12, "out of plane {worst_plane:e}");
    assert!(worst_diff <= 1e-9, "vs planar chain {worst_diff:e}");

    // Free cart pushed along e₁: the links stay in the x–z plane.
    p.cart_mass = Some(2.0);
    p.input = CartInput::Harmonic {
        amplitude: [3.0, 0.0],
        omega: 2.0,
        phase: 0.1,
    };
    let sys = CartChain::new(p).unwrap();
    let x0 = planar_start(&sys, &theta, &thetadot, [0.4, 0.0]);
    let y = integrate(&sys, &x0, 10.0, 1e-12);
    let mut worst: f64 = y[1].abs().max(y[3].abs());
    for i in 0..3 {
        worst = worst
            .max(y[4 + 3 * i + 1].abs())
            .max(y[13 + 3 * i].abs())
            .max(y[13 + 3 * i + 2].abs());
    }
    assert!(worst <= 1e-12, "cart chain out of plane {worst:e}");
}

#[test]
fn free_cart_conserves_horizontal_momentum_and_energy() {
    let mut rng = StdRng::seed_from_u64(7);
    for n in [1, 2, 3] {
        let sys = chain(n, Some(1.7));
        let x0 = random_state(&mut rng, &sys);
        let p0 = sys.momentum(&x0);
        let e0 = sys.energy(0.0, &x0);
        let y = integrate(&sys, &x0, 10.0, 1e-13);
        let p1 = sys.momentum(&y);
        let scale = sys.total_mass() * (1.0 + x0[2].abs() + x0[3].abs());
        let dp = (p1[0] - p0[0]).abs().max((p1[1] - p0[1]).abs()) / scale;
        // Momentum is a linear invariant of the ambient flow: RK preserves it exactly, and
        // the projection moves q, ω only by round-off-level amounts.
        eprintln!("n = {n}: momentum drift {dp:e}");
        assert!(dp < 1e-12, "n = {n}: momentum drift {dp:e}");
        let de = ((sys.energy(0.0, &y) - e0) / e0.abs()).abs();
        assert!(de < 1e-10, "n = {n}: relative energy drift {de:e}");
    }
}

#[test]
fn fixed_pivot_conserves_energy_and_vertical_angular_momentum() {
    let mut rng = StdRng::seed_from_u64(11);
    for n in [1, 2, 3] {
        let sys = chain(n, None);
        let x0 = random_state(&mut rng, &sys);
        let e0 = sys.energy(0.0, &x0);
        let l0 = sys.angular_momentum_z(&x0);
        let y = integrate(&sys, &x0, 10.0, 1e-13);
        let de = ((sys.energy(0.0, &y) - e0) / e0.abs()).abs();
        assert!(de < 1e-10, "n = {n}: relative energy drift {de:e}");
        let dl = (sys.angular_momentum_z(&y) - l0).abs() / (1.0 + l0.abs());
        eprintln!("n = {n}: fixed pivot energy {de:e}, L_z {dl:e}");
        assert!(dl < 1e-10, "n = {n}: L_z drift {dl:e}");
    }
}

#[test]
fn constraints_hold_to_round_off_after_ten_thousand_steps() {
    let mut rng = StdRng::seed_from_u64(3);
    for (n, cart) in [(2, Some(1.0)), (3, None), (8, Some(2.0))] {
        let sys = chain(n, cart);
        let x0 = random_state(&mut rng, &sys);
        let mut flow = Flow::new(&sys);
        let mut y = x0.clone();
        let mut s = Rk4::new(1e-3).solver(y.len());
        let mut t = 0.0;
        for _ in 0..10_000 {
            t = s.step(&mut flow, t, &mut y, f64::INFINITY).unwrap();
        }
        let (qo, wo) = (sys.q_offset(), sys.omega_offset());
        let mut worst: f64 = 0.0;
        for i in 0..n {
            let q = &y[qo + 3 * i..qo + 3 * i + 3];
            let w = &y[wo + 3 * i..wo + 3 * i + 3];
            let nq = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
            worst = worst
                .max((nq - 1.0).abs())
                .max((q[0] * w[0] + q[1] * w[1] + q[2] * w[2]).abs());
        }
        eprintln!("n = {n}: constraint drift {worst:e}");
        assert!(worst <= 1e-12, "n = {n}: drift {worst:e}");
        // The Gauss-free RK4 with projection still conserves energy to its order.
        let de = (sys.energy(t, &y) - sys.energy(0.0, &x0)).abs() / sys.energy(0.0, &x0).abs();
        assert!(de < 1e-5, "n = {n}: RK4 energy drift {de:e}");
    }
}

#[test]
fn power_of_the_input_is_the_energy_rate() {
    let mut p = CartChainParams::uniform(2, 1.0, 1.0, Some(1.5));
    p.input = CartInput::Harmonic {
        amplitude: [2.0, -1.0],
        omega: 1.3,
        phase: 0.4,
    };
    p.cart_damping = 0.3;
    p.joint_damping = vec![0.05, 0.1];
    let sys = CartChain::new(p).unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let x0 = random_state(&mut rng, &sys);
    // Pointwise: d/dt E along the flow (central difference of E over the exact flow) = power.
    let mut ws = sys.workspace();
    let mut dx = vec![0.0; sys.dim()];
    for t in [0.0, 0.7, 2.1] {
        sys.rhs(t, &x0, &mut dx, &mut ws);
        let h = 1e-5;
        let shifted = |s: f64| -> Vec<f64> { x0.iter().zip(&dx).map(|(a, b)| a + s * b).collect() };
        let de = (sys.energy(t, &shifted(h)) - sys.energy(t, &shifted(-h))) / (2.0 * h);
        let pw = sys.power(t, &x0);
        assert!(
            (de - pw).abs() < 1e-7 * (1.0 + pw.abs()),
            "t = {t}: dE/dt {de} vs power {pw}"
        );
        assert!(pw.abs() > 1e-3, "the test needs a non-trivial power");
    }
    // Integrated: E(t) − E(0) = W(t) with W the work quadrature integrated with the state.
    let mut flow = Flow::with_layout(&sys, true, 0);
    let mut y = flow.initial(&x0, None);
    let mut s = Dop853::with_tol(1e-12).solver(y.len());
    s.advance_to(&mut flow, 0.0, &mut y, 10.0).unwrap();
    let n = sys.dim();
    let e0 = sys.energy(0.0, &x0);
    let balance = (sys.energy(10.0, &y[..n]) - e0 - y[n]).abs();
    eprintln!("work {} balance {balance:e}", y[n]);
    assert!(y[n].abs() > 0.1, "work {}", y[n]);
    assert!(
        balance < 1e-9 * (1.0 + e0.abs()),
        "energy balance {balance:e}"
    );
}

/// The retraction R(x, ε v) = P(x + ε v) (the exact projection onto the manifold).
fn retract(sys: &CartChain, x: &[f64], v: &[f64], eps: f64) -> Vec<f64> {
    let mut y: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + eps * b).collect();
    sys.project(&mut y, &mut []);
    y
}

#[test]
fn tangent_block_matches_central_differences_on_the_manifold() {
    let mut rng = StdRng::seed_from_u64(17);
    for (n, cart) in [(1, None), (2, Some(1.3)), (3, Some(0.8)), (2, None)] {
        let mut p = CartChainParams::uniform(n, 0.9, 1.2, cart);
        p.joint_damping = vec![0.07; n];
        if cart.is_some() {
            p.cart_damping = 0.2;
            let m = 4 * n + 4;
            p.input = CartInput::Feedback {
                gain: (0..2 * m).map(|i| ((i * 7) % 5) as f64 - 2.0).collect(),
                x_ref: [0.1, -0.2],
            };
        }
        let sys = CartChain::new(p).unwrap();
        let x = random_state(&mut rng, &sys);
        let dim = sys.dim();
        let k = sys.manifold_dim();
        let mut basis = vec![0.0; dim * k];
        sys.tangent_basis(&x, k, &mut basis);
        let mut ws = sys.workspace();
        let mut dx = vec![0.0; dim];
        let mut dv = vec![0.0; dim * k];
        sys.rhs_tangent(0.3, &x, &basis, &mut dx, &mut dv, &mut ws);
        let mut worst: f64 = 0.0;
        let h = 1e-5;
        for c in 0..k {
            let v = &basis[c * dim..(c + 1) * dim];
            let (mut fp, mut fm) = (vec![0.0; dim], vec![0.0; dim]);
            sys.rhs(0.3, &retract(&sys, &x, v, h), &mut fp, &mut ws);
            sys.rhs(0.3, &retract(&sys, &x, v, -h), &mut fm, &mut ws);
            for i in 0..dim {
                let fd = (fp[i] - fm[i]) / (2.0 * h);
                worst = worst.max((fd - dv[c * dim + i]).abs() / (1.0 + fd.abs()));
            }
        }
        eprintln!("n = {n}, cart {cart:?}: tangent vs FD {worst:e}");
        assert!(
            worst < 1e-7,
            "n = {n}, cart {cart:?}: tangent vs FD {worst:e}"
        );
        // The basis is orthonormal and tangent: projecting it changes nothing.
        let mut b2 = basis.clone();
        let mut x2 = x.clone();
        sys.project(&mut x2, &mut b2);
        let moved = b2
            .iter()
            .zip(&basis)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(moved < 1e-14, "basis not tangent: {moved:e}");
        for a in 0..k {
            for b in 0..k {
                let d: f64 = (0..dim)
                    .map(|i| basis[a * dim + i] * basis[b * dim + i])
                    .sum();
                let want = if a == b { 1.0 } else { 0.0 };
                assert!((d - want).abs() < 1e-13);
            }
        }
    }
}

#[test]
fn bad_parameters_and_states_are_rejected() {
    let p = CartChainParams::uniform(2, 1.0, 1.0, Some(0.0));
    let e = CartChain::new(p).unwrap_err().to_string();
    assert!(e.contains("cart_mass"), "{e}");
    let p = CartChainParams::uniform(2, 1.0, 1.0, Some(-1.0));
    assert!(CartChain::new(p).is_err());
    let mut p = CartChainParams::uniform(2, 1.0, 1.0, None);
    p.input = CartInput::Harmonic {
        amplitude: [1.0, 0.0],
        omega: 1.0,
        phase: 0.0,
    };
    assert!(CartChain::new(p)
        .unwrap_err()
        .to_string()
        .contains("fixed cart"));
    let sys = chain(2, Some(1.0));
    let bad_q = sys.state(
        [0.0; 2],
        [0.0; 2],
        &[[0.0, 0.0, 1.1], [0.0, 0.0, 1.0]],
        &[[0.0; 3]; 2],
    );
    let e = sys.check_state(&bad_q).unwrap_err().to_string();
    assert!(e.contains("q[1]") && e.contains("unit"), "{e}");
    let bad_w = sys.state(
        [0.0; 2],
        [0.0; 2],
        &[[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]],
        &[[0.0; 3], [0.0, 0.1, 0.5]],
    );
    let e = sys.check_state(&bad_w).unwrap_err().to_string();
    assert!(e.contains("omega[2]") && e.contains("perpendicular"), "{e}");
}

mod linear {
    use super::*;
    use nalgebra::DMatrix;
    use pendula::analysis::cart::{
        cart_modes, closed_loop, label, linearize, lqr, parse_signs, perturbed_equilibrium,
        LqrWeights,
    };
    use pendula::analysis::modes::{modes_at, Equilibrium};
    use pendula::integrate::Method;
    use pendula::observe::Silent;

    /// Seed 003's eq. (31) written out with the hat matrices, in its coordinates (δx, Cᵀξ_i).
    fn seed031(l: &[f64], m: &[f64], cart: f64, g: f64) -> (DMatrix<f64>, DMatrix<f64>) {
        let n = l.len();
        let mu = |i: usize| m[i..].iter().sum::<f64>();
        let e3hat = DMatrix::from_row_slice(3, 3, &[0., -1., 0., 1., 0., 0., 0., 0., 0.]);
        let c = DMatrix::from_row_slice(3, 2, &[1., 0., 0., 1., 0., 0.]);
        let ct_e3_c = c.transpose() * &e3hat * &c;
        let dim = 2 * n + 2;
        let mut mm = DMatrix::zeros(dim, dim);
        let mut kk = DMatrix::zeros(dim, dim);
        let m00 = cart + m.iter().sum::<f64>();
        mm.view_mut((0, 0), (2, 2))
            .copy_from(&(DMatrix::identity(2, 2) * m00));
        for i in 0..n {
            // M_0i = Cᵀ μ_i l_i; block (0, i) = −M_0i ê₃ C, block (i, 0) = Cᵀ ê₃ M_i0.
            let m0i = c.transpose() * (mu(i) * l[i]);
            let b0i = -(&m0i * &e3hat * &c);
            let bi0 = c.transpose() * &e3hat * m0i.transpose();
            mm.view_mut((0, 2 + 2 * i), (2, 2)).copy_from(&b0i);
            mm.view_mut((2 + 2 * i, 0), (2, 2)).copy_from(&bi0);
            for j in 0..n {
                let mij = mu(i.max(j)) * l[i] * l[j];
                mm.view_mut((2 + 2 * i, 2 + 2 * j), (2, 2))
                    .copy_from(&(DMatrix::identity(2, 2) * mij));
            }
            kk.view_mut((2 + 2 * i, 2 + 2 * i), (2, 2))
                .copy_from(&(DMatrix::identity(2, 2) * (mu(i) * g * l[i])));
        }
        let _ = ct_e3_c;
        (mm, kk)
    }

    /// ω² of (K, M) from the general (non-symmetric) eigenproblem M⁻¹K.
    fn omega2(m: &DMatrix<f64>, k: &DMatrix<f64>) -> Vec<f64> {
        let a = m.clone().try_inverse().unwrap() * k;
        let mut v: Vec<f64> = a.complex_eigenvalues().iter().map(|z| z.re).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v
    }

    #[test]
    fn hanging_modes_match_seed_eq31_and_the_planar_chain() {
        for n in [1, 2, 3] {
            let l: Vec<f64> = (0..n).map(|i| 1.0 - 0.2 * i as f64).collect();
            let m: Vec<f64> = (0..n).map(|i| 1.0 + 0.5 * i as f64).collect();
            let mut p = CartChainParams::uniform(n, 1.0, 1.0, Some(2.5));
            p.lengths = l.clone();
            p.masses = m.clone();
            let free = CartChain::new(p.clone()).unwrap();
            let modes = cart_modes(&free, &vec![1.0; n]).unwrap();
            let (ms, ks) = seed031(&l, &m, 2.5, 9.81);
            let want = omega2(&ms, &ks);
            assert_eq!(modes.zero_modes, 2, "n = {n}: two cart translations");
            let mut worst: f64 = 0.0;
            for (a, b) in modes.omega2.iter().zip(&want) {
                worst = worst.max((a - b).abs() / (1.0 + b.abs()));
            }
            eprintln!("n = {n}: free-cart ω² vs eq. (31) {worst:e}");
            assert!(
                worst < 1e-10,
                "n = {n}: ω² {:?} vs eq. (31) {want:?}",
                modes.omega2
            );
            assert!(modes.stable && modes.controllable && modes.unstable == 0);
            // Fixed cart: every planar chain frequency twice.
            p.cart_mass = None;
            let fixed = CartChain::new(p).unwrap();
            let fm = cart_modes(&fixed, &vec![1.0; n]).unwrap();
            let planar = Chain::new(ChainParams::new(
                (0..n).map(|i| Link::point(l[i], m[i])).collect(),
            ))
            .unwrap();
            let pm = modes_at(&planar, &Equilibrium::hanging(n)).unwrap();
            for (i, w) in pm.omega2.iter().enumerate() {
                for c in 0..2 {
                    let got = fm.omega2[2 * i + c];
                    assert!((got - w).abs() < 1e-12 * w, "n = {n}: {got} vs planar {w}");
                }
            }
            assert!(!fm.controllable);
            // The free cart lifts each link frequency (the cart recoils): ω_free > ω_fixed.
            for i in 0..n {
                assert!(modes.omega2[2 + 2 * i] > fm.omega2[2 * i] * (1.0 + 1e-6));
            }
        }
    }

    #[test]
    fn linearization_matches_the_nonlinear_tangent_at_equilibria() {
        // A mode of the linearization started at small amplitude in the nonlinear chain
        // returns to its start after one period (to O(amplitude²)).
        let sys = CartChain::new(CartChainParams::uniform(2, 1.0, 1.0, Some(1.0))).unwrap();
        let modes = cart_modes(&sys, &[1.0, 1.0]).unwrap();
        let k = 2; // first link mode (after the two zero modes)
        let w = modes.frequencies[k];
        let shape = modes.shapes.column(k);
        let amp = 1e-4;
        let mut q = Vec::new();
        for i in 0..2 {
            let r = [amp * shape[2 + 2 * i], amp * shape[3 + 2 * i]];
            q.push([r[0], r[1], (1.0 - r[0] * r[0] - r[1] * r[1]).sqrt()]);
        }
        let x = [amp * shape[0], amp * shape[1]];
        let x0 = sys.state(x, [0.0; 2], &q, &[[0.0; 3]; 2]);
        let y = integrate(&sys, &x0, std::f64::consts::TAU / w, 1e-13);
        let z0 = sys.linear_coordinates(&x0, [0.0; 2]);
        let z1 = sys.linear_coordinates(&y, [0.0; 2]);
        let err = z0
            .iter()
            .zip(&z1)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        eprintln!("one linear period in the nonlinear chain: |Δz| {err:e} (amplitude {amp})");
        assert!(err < 1e-3 * amp, "{err:e}");
    }

    #[test]
    fn inverted_and_folded_equilibria_are_unstable_hanging_is_not() {
        let sys = CartChain::new(CartChainParams::uniform(3, 1.0, 1.0, Some(1.0))).unwrap();
        for s in ["hanging", "inverted", "folded", "+-+", "--+"] {
            let signs = parse_signs(s, 3).unwrap();
            let m = cart_modes(&sys, &signs).unwrap();
            assert_eq!(m.stable, label(&signs) == "+++", "{s}");
            assert!(m.controllable, "{s}");
        }
        assert!(parse_signs("+x+", 3).is_err() && parse_signs("++", 3).is_err());
    }

    #[test]
    fn lqr_stabilizes_the_inverted_chain_linear_and_nonlinear() {
        for n in [2, 3] {
            let sys = CartChain::new(CartChainParams::uniform(n, 1.0, 1.0, Some(1.0))).unwrap();
            let signs = vec![-1.0; n];
            let w = LqrWeights::default();
            let design = lqr(&sys, &signs, &w).unwrap();
            let worst_re = design
                .closed_loop
                .iter()
                .map(|z| z.0)
                .fold(f64::MIN, f64::max);
            eprintln!(
                "n = {n}: Riccati residual {:e}, slowest closed-loop Re λ {worst_re}",
                design.riccati_residual
            );
            assert!(design.riccati_residual < 1e-10);
            assert!(worst_re < 0.0, "closed loop {:?}", design.closed_loop);
            assert!(design.open_loop.iter().any(|z| z.0 > 0.1));
            let x0 = perturbed_equilibrium(&sys, &signs, 0.05, [0.0; 2]);
            sys.check_state(&x0).unwrap();
            let method = Method::Dop853 {
                rtol: 1e-10,
                atol: 1e-12,
                h_max: f64::INFINITY,
            };
            let run = closed_loop(
                &sys,
                &signs,
                &w,
                [0.0; 2],
                &method,
                &x0,
                20.0,
                0.5,
                &mut Silent,
            )
            .unwrap();
            let last = *run.error.last().unwrap();
            eprintln!(
                "n = {n}: closed-loop ‖z(20 s)‖ = {last:e}, from {:e}",
                run.error[0]
            );
            assert!(last < 1e-6, "n = {n}: ‖error‖ at 20 s = {last:e}");
            assert!(run.trajectory.constraint_drift < 1e-12);
        }
    }

    #[test]
    fn uncontrollable_designs_are_refused() {
        let fixed = CartChain::new(CartChainParams::uniform(2, 1.0, 1.0, None)).unwrap();
        let e = lqr(&fixed, &[-1.0, -1.0], &LqrWeights::default()).unwrap_err();
        assert!(e.to_string().contains("not controllable"), "{e}");
        let mut p = CartChainParams::uniform(2, 1.0, 1.0, Some(1.0));
        p.gravity = 0.0;
        let weightless = CartChain::new(p).unwrap();
        let e = lqr(&weightless, &[-1.0, -1.0], &LqrWeights::default()).unwrap_err();
        assert!(e.to_string().contains("not controllable"), "{e}");
        let _ = linearize(&weightless, &[1.0, 1.0]).unwrap();
    }
}

#[test]
fn spherical_double_pendulum_spectrum_pairs_with_four_zeros() {
    use pendula::analysis::{lyapunov_spectrum, LyapunovOptions};
    use pendula::integrate::Method;
    let sys = CartChain::new(CartChainParams::uniform(2, 1.0, 1.0, None)).unwrap();
    let a: f64 = 1.5;
    let b: f64 = 1.0;
    let x0 = sys.state(
        [0.0; 2],
        [0.0; 2],
        &[[a.sin(), 0.0, a.cos()], [0.0, b.sin(), -b.cos()]],
        &[[0.0, 1.0, 0.0], [1.5, 0.0, 0.0]],
    );
    sys.check_state(&x0).unwrap();
    let opts = LyapunovOptions {
        tau: 0.01,
        transient: 5.0,
        time: 100.0,
        ..Default::default()
    };
    let r = lyapunov_spectrum(
        &sys,
        &Method::Rk4 { dt: 1e-3 },
        &x0,
        &opts,
        &mut pendula::observe::Silent,
    )
    .unwrap();
    eprintln!(
        "spherical double pendulum: λ = {:?}, Σλ = {:e}",
        r.exponents, r.sum
    );
    // 4n = 8 exponents on the phase space, not 6n = 12 on the ambient state.
    assert_eq!(r.exponents.len(), 8);
    // Σλ·T is a bounded boundary term (the phase-space density in these coordinates), not 0.
    assert!(r.sum.abs() < 0.02, "Σλ = {}", r.sum);
    let mut l = r.exponents.clone();
    l.sort_by(|a, b| b.total_cmp(a));
    assert!(l[0] > 0.3 && l[1] > 0.2, "two positive exponents: {l:?}");
    for i in 0..4 {
        assert!((l[i] + l[7 - i]).abs() < 0.05, "pair {i}: {l:?}");
    }
    for z in &l[2..6] {
        assert!(
            z.abs() < 0.08,
            "four zeros (time/energy, rotation/L_z): {l:?}"
        );
    }
}
