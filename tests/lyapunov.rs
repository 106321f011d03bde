//! Oracle tests of the Lyapunov analyses (release mode; see the brief for the numbers).

use pendula::analysis::lyapunov::*;
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, System};
use pendula::observe::Silent;
use pendula::observe::{Control, Observer};

#[path = "common/linear.rs"]
mod linear;
use linear::Linear;

fn chain(n: usize) -> Chain {
    Chain::new(ChainParams::equal_points(n)).unwrap()
}

fn rest(theta: &[f64]) -> Vec<f64> {
    let mut x = theta.to_vec();
    x.extend(vec![0.0; theta.len()]);
    x
}

#[test]
fn benchmark_l_short_horizon() {
    let c = chain(3);
    let opts = LyapunovOptions {
        transient: 0.0,
        time: 2.0,
        ..Default::default()
    };
    let r = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0; 3]),
        &opts,
        &mut Silent,
    )
    .unwrap();
    let reference = [
        1.3548375705,
        1.1029196751,
        0.7159563658,
        -0.5963394147,
        -1.3440955070,
        -1.5066881637,
    ];
    eprintln!("short horizon: {:?}", r.exponents);
    for (a, b) in r.exponents.iter().zip(reference) {
        assert!((a - b).abs() < 1e-7, "{a} vs {b}");
    }
    assert_eq!(r.counts.steps, 2000);
    assert_eq!(r.counts.qr_factorizations, 200);
}

/// `ẋ = A x` with `A = P T Pᵀ`, P an orthogonal reflector and T quasi-triangular with
/// eigenvalues 1.0, 0.2 ± 2i, −0.8: the exponents are exactly (1.0, 0.2, 0.2, −0.8).
fn linear4() -> Linear<4> {
    let t = [
        [1.0, 0.3, -0.5, 0.7],
        [0.0, 0.2, -2.0, 0.4],
        [0.0, 2.0, 0.2, -0.3],
        [0.0, 0.0, 0.0, -0.8],
    ];
    let w = [1.0, 2.0, -1.0, 0.5];
    let ww: f64 = w.iter().map(|x| x * x).sum();
    let mut p = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            p[i][j] = if i == j { 1.0 } else { 0.0 } - 2.0 * w[i] * w[j] / ww;
        }
    }
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                for l in 0..4 {
                    a[i][j] += p[i][k] * t[k][l] * p[j][l];
                }
            }
        }
    }
    Linear { a }
}

#[test]
fn linear_system_known_exponents() {
    let sys = linear4();
    let exact = [1.0, 0.2, 0.2, -0.8];
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 40.0,
        time: 20.0,
        ..Default::default()
    };
    let x0 = [0.0; 4];
    for m in [
        Method::Rk4 { dt: 0.01 },
        Method::Dop853 {
            rtol: 1e-12,
            atol: 1e-12,
            h_max: 0.05,
        },
        Method::Gauss {
            dt: 0.01,
            stages: 3,
        },
    ] {
        let r = lyapunov_spectrum(&sys, &m, &x0, &opts, &mut Silent).unwrap();
        eprintln!(
            "linear {}: {:?} se {:?}",
            m.name(),
            r.exponents,
            r.standard_error
        );
        for (a, b) in r.exponents.iter().zip(exact) {
            assert!((a - b).abs() < 1e-6, "{}: {a} vs {b}", m.name());
        }
        // No split known: Σλ against the trapezoidal mean of the sampled tr J = tr A = 0.6.
        let vol = r.volume.unwrap();
        assert_eq!(vol.split, VolumeSplit::Unknown);
        assert!((vol.trace_average - 0.6).abs() < 1e-12);
        assert!((r.sum - 0.6).abs() < 1e-6);
        assert_eq!(r.kaplan_yorke, Some(4.0));
        let two = max_exponent_two_trajectory(
            &sys,
            &m,
            &x0,
            &opts,
            &TwoTrajectoryOptions::default(),
            &Euclidean,
            &mut Silent,
        )
        .unwrap();
        assert!((two.exponents[0] - 1.0).abs() < 1e-6, "{:?}", two.exponents);
    }
}

#[test]
fn inverted_pendulum_saddle() {
    // At θ = π the linearization is δθ̈ = (g/l) δθ: exponents ±√(g/l).
    let c = chain(1);
    let opts = LyapunovOptions {
        tau: 0.01,
        transient: 3.0,
        time: 4.0,
        ..Default::default()
    };
    let r = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &[std::f64::consts::PI, 0.0],
        &opts,
        &mut Silent,
    )
    .unwrap();
    let s = 9.81f64.sqrt();
    eprintln!("inverted: {:?} vs ±{s}", r.exponents);
    assert!((r.exponents[0] - s).abs() < 1e-6);
    assert!((r.exponents[1] + s).abs() < 1e-6);
    assert!(r.sum.abs() < 1e-6);
}

#[test]
fn regular_double_pendulum_decays_like_log_t_over_t() {
    let c = chain(2);
    // From e₁ (the default start became the maps' diagonal in issue 48; from it λ(100) is
    // −1e-4 on this orbit, a finite-time value of the other sign, and the law is the same only
    // later).
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 0.0,
        time: 1000.0,
        deviation: Some(pendula::analysis::orbit::Deviation::Unit),
        ..Default::default()
    };
    let r = max_exponent_tangent(
        &c,
        &Method::Rk4 { dt: 1e-2 },
        &rest(&[0.1, 0.1]),
        &opts,
        &mut Silent,
    )
    .unwrap();
    let h = &r.history;
    let at = |t: f64| {
        let j = h.time.iter().position(|&s| s >= t - 1e-9).unwrap();
        h.estimate[(j, 0)]
    };
    let (l100, l1000) = (at(100.0), at(1000.0));
    eprintln!("regular: λ(100) = {l100}, λ(1000) = {l1000}");
    assert!(l1000 < 0.5 * l100);
    assert!(l1000 > 0.0 && l1000 < 3.0 * 1000f64.ln() / 1000.0);
    assert!(l100 < 3.0 * 100f64.ln() / 100.0);
}

/// |a − b| within 3 combined standard errors.
fn agree(a: f64, sa: f64, b: f64, sb: f64) -> (bool, f64) {
    let s = (sa * sa + sb * sb).sqrt();
    ((a - b).abs() < 3.0 * s, (a - b).abs() / s)
}

#[test]
fn chaotic_double_pendulum() {
    let c = chain(2);
    let x0 = rest(&[2.0, 2.0]);
    let rk4 = Method::Rk4 { dt: 1e-3 };
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 10.0,
        time: 1000.0,
        ..Default::default()
    };
    let r = chain_spectrum(&c, &rk4, &x0, &opts, &mut Silent).unwrap();
    let l = &r.exponents;
    let se = &r.standard_error;
    eprintln!(
        "chaotic rk4 τ=0.1: {l:?} ± {se:?}, Σ = {}, pairs {:?}",
        r.sum, r.pair_sums
    );
    assert!(l[0] > 1.0);
    assert!((l[0] + l[3]).abs() < 1e-2 * l[0]);
    assert!((l[1] + l[2]).abs() < 1e-2 * l[0]);
    assert_eq!(r.closest_to_zero.len(), 2);
    for &i in &r.closest_to_zero {
        assert!(l[i].abs() < 1e-2 * l[0]);
    }
    // Liouville: Σλ = −[ln det M]/T exactly for the RK4 tangent map, up to O(dt⁴).
    let vol = r.volume.unwrap();
    assert!(
        (r.sum - vol.trace_average).abs() < 1e-8,
        "{} vs {vol:?}",
        r.sum
    );
    assert_eq!(r.counts.steps, 1_010_000);
    assert_eq!(r.counts.qr_factorizations, 10_100);

    // τ = 1: the R factors of a product are the products of the R factors, so the estimate is
    // τ-independent up to round-off (a stronger statement than "within the errors").
    let r1 = chain_spectrum(
        &c,
        &rk4,
        &x0,
        &LyapunovOptions { tau: 1.0, ..opts },
        &mut Silent,
    )
    .unwrap();
    for i in 0..4 {
        assert!((r1.exponents[i] - l[i]).abs() < 1e-9);
        assert!(agree(r1.exponents[i], r1.standard_error[i], l[i], se[i]).0);
    }

    // One tangent vector and two trajectories on the same orbit.
    let tan = max_exponent_tangent(&c, &rk4, &x0, &opts, &mut Silent).unwrap();
    let two = chain_two_trajectory(
        &c,
        &rk4,
        &x0,
        &opts,
        &TwoTrajectoryOptions::default(),
        &mut Silent,
    )
    .unwrap();
    eprintln!(
        "tangent {:?} ± {:?}; two-trajectory {:?} ± {:?}",
        tan.exponents, tan.standard_error, two.exponents, two.standard_error
    );
    for m in [&tan, &two] {
        let (ok, z) = agree(m.exponents[0], m.standard_error[0], l[0], se[0]);
        assert!(ok, "{:?}: z = {z}", m.estimator);
    }

    // DOP853 (deviations inside the error norm): a different orbit after ~20 s, same statistics.
    let dop = Method::Dop853 {
        rtol: 1e-10,
        atol: 1e-10,
        h_max: f64::INFINITY,
    };
    let d = chain_spectrum(&c, &dop, &x0, &opts, &mut Silent).unwrap();
    eprintln!("chaotic dop853: {:?} ± {:?}", d.exponents, d.standard_error);
    for i in 0..4 {
        let (ok, z) = agree(d.exponents[i], d.standard_error[i], l[i], se[i]);
        eprintln!("  λ{}: z = {z:.2}", i + 1);
        assert!(ok, "λ{}: z = {z}", i + 1);
    }
}

#[test]
fn gauss_canonical_is_volume_preserving() {
    let c = chain(2);
    let x0 = rest(&[2.0, 2.0]);
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 10.0,
        time: 500.0,
        ..Default::default()
    };
    let g = chain_spectrum(
        &c,
        &Method::Gauss {
            dt: 0.01,
            stages: 3,
        },
        &x0,
        &opts,
        &mut Silent,
    )
    .unwrap();
    let r = chain_spectrum(&c, &Method::Rk4 { dt: 1e-3 }, &x0, &opts, &mut Silent).unwrap();
    eprintln!(
        "gauss (θ, p): {:?} ± {:?}, Σ = {:e}; rk4 {:?}",
        g.exponents, g.standard_error, g.sum, r.exponents
    );
    // A symplectic map has det 1: Σλ vanishes to round-off in canonical coordinates.
    assert!(g.sum.abs() < 1e-10);
    assert_eq!(g.volume.unwrap().trace_average, 0.0);
    for i in 0..4 {
        let (ok, z) = agree(
            g.exponents[i],
            g.standard_error[i],
            r.exponents[i],
            r.standard_error[i],
        );
        assert!(ok, "λ{}: z = {z}", i + 1);
    }
    assert!(g.energy.relative_drift < 1e-9);
}

/// The chain seen through the trait only: no volume split, so tr J is sampled via the tangent
/// block on the identity (an independent route to ⟨tr J⟩).
struct Opaque<'a>(&'a Chain);

impl System for Opaque<'_> {
    type Workspace = <Chain as System>::Workspace;
    fn dim(&self) -> usize {
        self.0.dim()
    }
    fn workspace(&self) -> Self::Workspace {
        self.0.workspace()
    }
    fn rhs(&self, t: f64, x: &[f64], dx: &mut [f64], ws: &mut Self::Workspace) {
        self.0.rhs(t, x, dx, ws)
    }
    fn rhs_tangent(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        ws: &mut Self::Workspace,
    ) {
        self.0.rhs_tangent(t, x, v, dx, dv, ws)
    }
    fn energy(&self, t: f64, x: &[f64]) -> f64 {
        self.0.energy(t, x)
    }
    fn power(&self, t: f64, x: &[f64]) -> f64 {
        self.0.power(t, x)
    }
}

impl PhaseVolume for Opaque<'_> {}

#[test]
fn damped_chain_volume_contraction() {
    let mut p = ChainParams::equal_points(2);
    p.damping.absolute = vec![0.05, 0.02];
    p.damping.joint = vec![0.0, 0.03];
    let c = Chain::new(p).unwrap();
    let x0 = rest(&[2.0, 2.0]);
    let opts = LyapunovOptions {
        tau: 0.01,
        transient: 0.0,
        time: 100.0,
        ..Default::default()
    };
    let rk4 = Method::Rk4 { dt: 1e-3 };
    let r = chain_spectrum(&c, &rk4, &x0, &opts, &mut Silent).unwrap();
    let vol = r.volume.unwrap();
    let diss = vol.dissipation_average.unwrap();
    eprintln!(
        "damped: {:?}, Σ = {} ± {}, {vol:?}",
        r.exponents, r.sum, r.sum_standard_error
    );
    assert_eq!(vol.split, VolumeSplit::PotentialAndDissipation);
    assert!(((r.sum - vol.trace_average) / r.sum).abs() < 1e-3);
    assert!(
        (r.sum - diss).abs() < r.sum_standard_error,
        "{} vs {diss}",
        r.sum
    );
    // Independent route: ⟨tr J⟩ from the tangent block on the identity, same trajectory.
    let o = lyapunov_spectrum(&Opaque(&c), &rk4, &x0, &opts, &mut Silent).unwrap();
    assert_eq!(o.exponents, r.exponents);
    let v2 = o.volume.unwrap();
    eprintln!("  sampled tr J: {v2:?}");
    assert!(((r.sum - v2.trace_average) / r.sum).abs() < 1e-3);
}

#[test]
fn benchmark_l_default_run() {
    let c = chain(3);
    let r = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0; 3]),
        &LyapunovOptions::default(),
        &mut Silent,
    )
    .unwrap();
    let l = &r.exponents;
    eprintln!(
        "benchmark L: {l:?} ± {:?}, Σ = {:e}",
        r.standard_error, r.sum
    );
    assert_eq!(r.counts.steps, 210_000);
    assert!((l[0] - 2.20).abs() < 3.0 * 0.08);
    assert!((l[1] - 1.06).abs() < 3.0 * 0.07);
    assert!(l[2].abs() < 0.03 && l[3].abs() < 0.03);
    assert!(r.sum.abs() < 0.01);
    for (p, s) in r.pair_sums.iter().zip(&r.pair_sums_standard_error) {
        assert!(p.abs() < 3.0 * s.max(0.01), "pair sum {p} ± {s}");
    }
    assert!(r.energy.relative_drift < 1e-5);
}

#[test]
fn sali_separates_chaos_from_order() {
    use pendula::analysis::orbit::*;
    let c = chain(2);
    let io = AlignmentOptions {
        time: 50.0,
        k: 3,
        ..Default::default()
    };
    let m = Method::Rk4 { dt: 1e-3 };
    let ch = chain_indicators(&c, &m, &rest(&[2.0, 2.0]), &io, &mut Silent).unwrap();
    let re = chain_indicators(&c, &m, &rest(&[0.1, 0.1]), &io, &mut Silent).unwrap();
    eprintln!(
        "SALI chaotic: < 1e-8 at t = {:?}, min {:e}; regular: min {:e}, GALI_3(50) = {:e}",
        ch.chaos_time,
        ch.min_sali,
        re.min_sali,
        re.gali[(re.gali.nrows() - 1, 1)]
    );
    assert_eq!(ch.regularity, Regularity::Chaotic);
    assert!(ch.chaos_time.unwrap() < 50.0);
    assert!(ch.min_sali < 1e-8);
    assert!(ch.gali.iter().copied().fold(f64::INFINITY, f64::min) < 1e-8);
    assert_eq!(re.regularity, Regularity::Regular);
    assert!(re.min_sali > 1e-2);
    assert_eq!(re.t_end, 50.0);
}

#[test]
fn ensemble_is_thread_count_independent() {
    let c = chain(2);
    let x0 = rest(&[2.0, 2.0]);
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 1.0,
        time: 30.0,
        ..Default::default()
    };
    let m = Method::Rk4 { dt: 1e-3 };
    let run = |threads| {
        let ens = EnsembleOptions {
            members: 6,
            threads: Some(threads),
            ..Default::default()
        };
        chain_ensemble(&c, &m, &x0, &opts, &ens, &mut Silent).unwrap()
    };
    let (a, b) = (run(1), run(3));
    eprintln!("ensemble: {:?} ± {:?}", a.mean, a.standard_error);
    assert_eq!(a.mean, b.mean);
    assert_eq!(a.standard_error, b.standard_error);
    assert_eq!(a.members.len(), 6);
    assert!(a.complete);
    // Member 0 is x0 itself.
    let single = chain_spectrum(&c, &m, &x0, &opts, &mut Silent).unwrap();
    assert_eq!(a.members[0].exponents, single.exponents);
    assert!(a.standard_error.iter().all(|s| s.is_finite() && *s > 0.0));
}

struct StopAfter(u64);

impl Observer for StopAfter {
    fn advance(&mut self, done: u64) -> Control {
        if done >= self.0 {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

#[test]
fn cancellation_keeps_what_was_averaged() {
    let c = chain(2);
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 1.0,
        time: 100.0,
        ..Default::default()
    };
    let r = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0, 2.0]),
        &opts,
        &mut StopAfter(300),
    )
    .unwrap();
    assert!(!r.complete);
    assert_eq!(r.counts.averaged_intervals, 290);
    assert!((r.averaged_time - 29.0).abs() < 1e-9);
    assert!(r.exponents.iter().all(|v| v.is_finite()));
    assert_eq!(*r.history.time.last().unwrap(), 30.0);
}

#[test]
fn stopping_rule_meets_the_tolerance() {
    let c = chain(2);
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 10.0,
        time: 2000.0,
        tolerance: Some(0.05),
        ..Default::default()
    };
    let r = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0, 2.0]),
        &opts,
        &mut Silent,
    )
    .unwrap();
    eprintln!(
        "stopping rule: stopped after {} s, se {:?}",
        r.averaged_time, r.standard_error
    );
    assert_eq!(r.converged, Some(true));
    assert!(r.complete);
    assert!(r.averaged_time < 2000.0);
    assert!(r.standard_error.iter().all(|&s| s < 0.05));
}

#[test]
fn invalid_options_are_named() {
    let c = chain(2);
    let bad = LyapunovOptions {
        tau: 0.0105,
        ..Default::default()
    };
    let e = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0, 2.0]),
        &bad,
        &mut Silent,
    )
    .unwrap_err();
    assert!(
        matches!(e, LyapunovError::Invalid { field: "tau", .. }),
        "{e}"
    );
    let bad = LyapunovOptions {
        k: Some(5),
        ..Default::default()
    };
    let e = chain_spectrum(
        &c,
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0, 2.0]),
        &bad,
        &mut Silent,
    )
    .unwrap_err();
    assert!(e.to_string().contains("k = 5"), "{e}");
}

#[test]
fn store_and_plot() {
    use pendula::analysis::orbit::*;
    use pendula::finding::Finding;
    use pendula::kinds::lyapunov::{EnsembleResult, SaliResult, SpectrumOf, SpectrumResult};
    use pendula::plot::{draw_convergence, draw_indicators};
    use pendula::store::{write_record, H5Out, RunInfo};
    // Set PENDULA_PLOT_DIR to keep the figures for a look.
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("PENDULA_PLOT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());
    let c = chain(3);
    let x0 = rest(&[2.0; 3]);
    let m = Method::Rk4 { dt: 1e-3 };
    let opts = LyapunovOptions {
        time: 100.0,
        ..Default::default()
    };
    let r = chain_spectrum(&c, &m, &x0, &opts, &mut Silent).unwrap();
    let png = dir.join("lyapunov_convergence.png");
    draw_convergence(&r, "benchmark L, N = 3, θ = 2.0", &png).unwrap();
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
    let ind = chain_indicators(
        &c,
        &m,
        &x0,
        &AlignmentOptions {
            time: 30.0,
            k: 4,
            ..Default::default()
        },
        &mut Silent,
    )
    .unwrap();
    draw_indicators(&ind, "N = 3, θ = 2.0", &dir.join("lyapunov_sali.png")).unwrap();
    let ens = chain_ensemble(
        &chain(2),
        &m,
        &rest(&[2.0, 2.0]),
        &LyapunovOptions {
            transient: 1.0,
            time: 5.0,
            ..Default::default()
        },
        &EnsembleOptions {
            members: 3,
            ..Default::default()
        },
        &mut Silent,
    )
    .unwrap();

    let path = tmp.path().join("lyap.h5");
    let out = H5Out::create(&path, false).unwrap();
    let run = RunInfo {
        title: "",
        model_name: "",
        chain: &c,
        method: &m,
        x0: &x0,
    };
    let spectrum = |r: &Lyapunov| SpectrumResult {
        title: String::new(),
        of: SpectrumOf::Planar { links: 3 },
        spectrum: r.clone(),
    };
    write_record(&out, Some(&run), &spectrum(&r).record()).unwrap();
    let ens = EnsembleResult {
        title: String::new(),
        links: 2,
        estimator: "spectrum",
        ensemble: ens,
    };
    write_record(&out, None, &ens.beside()[0]).unwrap();
    let sali = SaliResult {
        title: String::new(),
        indicators: ind,
    };
    let mut g = sali.record();
    // The initial state is the run's part (no run here).
    g.entries.pop();
    write_record(&out, None, &g).unwrap();
    // A run stopped inside its transient has an empty history and NaN exponents; it still stores.
    let stopped = chain_spectrum(&c, &m, &x0, &opts, &mut StopAfter(5)).unwrap();
    assert!(!stopped.complete && stopped.history.time.is_empty());
    assert!(stopped.exponents.iter().all(|v| v.is_nan()));
    let mut g = spectrum(&stopped).record();
    g.name = "stopped".into();
    write_record(&out, Some(&run), &g).unwrap();
    out.finish().unwrap();

    let f = hdf5::File::open(&path).unwrap();
    let g = f.group("lyapunov").unwrap();
    let ex: Vec<f64> = g.dataset("exponents").unwrap().read_raw().unwrap();
    assert_eq!(ex, r.exponents);
    let hist = g.dataset("history").unwrap();
    assert_eq!(hist.shape(), vec![r.history.time.len(), 6]);
    let steps: i64 = g.attr("steps").unwrap().read_scalar().unwrap();
    assert_eq!(steps as u64, r.counts.steps);
    let sum: f64 = g.attr("sum_exponents").unwrap().read_scalar().unwrap();
    assert_eq!(sum, r.sum);
    let e = f.group("ensemble").unwrap();
    assert_eq!(e.dataset("member_exponents").unwrap().shape(), vec![3, 4]);
    let s = f.group("indicators").unwrap();
    assert_eq!(
        s.dataset("gali").unwrap().shape(),
        vec![sali.indicators.time.len(), 3]
    );
}

/// Issue 48: "Kaplan–Yorke dimension 4.000000" was printed for the conservative double
/// pendulum, where it means nothing (the exponents come in pairs ±λ, so the formula returns the
/// phase-space dimension whatever the orbit). No dimension for a conservative chain: not in the
/// result, the text, the JSON or the file; a damped chain keeps it.
#[test]
fn no_kaplan_yorke_dimension_for_a_conservative_chain() {
    let x0 = rest(&[2.0, 2.0]);
    let opts = LyapunovOptions {
        transient: 0.0,
        time: 20.0,
        ..Default::default()
    };
    let rk4 = Method::Rk4 { dt: 1e-3 };
    let r = chain_spectrum(&chain(2), &rk4, &x0, &opts, &mut Silent).unwrap();
    assert_eq!(r.kaplan_yorke, None, "{:?}", r.exponents);
    let mut p = ChainParams::equal_points(2);
    p.damping.absolute = vec![0.05, 0.02];
    let damped = Chain::new(p).unwrap();
    let r = chain_spectrum(&damped, &rk4, &x0, &opts, &mut Silent).unwrap();
    let d = r.kaplan_yorke.expect("a dissipative chain has one");
    assert_eq!(Some(d), kaplan_yorke(&r.exponents, true));

    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"))
            .current_dir(dir.path())
            .args([
                "lyapunov", "--preset", "double", "--theta", "2,2", "--t-end", "20", "-o", out,
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let has_attr = |file: &str| {
        let f = hdf5::File::open(dir.path().join(file)).unwrap();
        let g = f.group("lyapunov").unwrap();
        g.attr_names()
            .unwrap()
            .iter()
            .any(|a| a == "kaplan_yorke_dimension")
    };
    let text = run(&[], "a.h5");
    assert!(!text.contains("Kaplan"), "{text}");
    assert!(!has_attr("a.h5"));
    let json = run(&["--json"], "b.h5");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v.get("kaplan_yorke_dimension").is_none(), "{v}");
    // A damped chain: the dimension of its attractor is there, in all three.
    let damped = ["--damping", "0.05"];
    let text = run(&damped, "c.h5");
    assert!(text.contains("Kaplan-Yorke dimension"), "{text}");
    assert!(has_attr("c.h5"));
    let v: serde_json::Value =
        serde_json::from_str(&run(&[&damped[..], &["--json"]].concat(), "d.h5")).unwrap();
    assert!(v["kaplan_yorke_dimension"].as_f64().is_some(), "{v}");
}
