//! The single-orbit MEGNO estimator (`pendula lyapunov --estimator megno`) against exact limits:
//! ⟨Y⟩ → 0 for an isochronous (linear) oscillator, → 2 for integrable and quasi-periodic orbits,
//! slope λ/2 for a linear saddle, and slope λ_max/2 against the QR spectrum on a chaotic orbit.

use assert_cmd::Command;
use pendula::analysis::lyapunov::*;
use pendula::analysis::orbit::{Deviation, SlopeSamples};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;
use std::path::Path;

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

const RK4: Method = Method::Rk4 { dt: 0.01 };

/// The oracle runs start from e₁ and fit the slope at every step: the closed forms below (the
/// saddle's angle φ from δ(0), the exact-r reference fed every step) and the calibrated limits
/// are stated for that start. The defaults (the maps' diagonal start and τ-sampled fit, issue
/// 48) are tested against the map in tests/indicator_agreement.rs; ⟨Y⟩'s limits do not depend
/// on δ(0), only how fast they are reached (θ = (0.2, 0.2) at 4·10⁴ s: 1.9622 from e₁, 1.9334
/// from the diagonal).
fn opts(time: f64) -> MegnoOptions {
    MegnoOptions {
        tau: 0.01,
        time,
        deviation: Some(Deviation::Unit),
        slope_samples: Some(SlopeSamples::Step),
        ..Default::default()
    }
}

/// ⟨Y⟩ at the history point nearest to t.
fn mean_at(r: &MegnoOrbit, t: f64) -> f64 {
    let h = &r.history;
    let j = h.time.partition_point(|&s| s < t);
    h.mean[j.min(h.time.len() - 1)]
}

/// `R(φ) diag(λ, −λ) R(φ)ᵀ`: a saddle with rate λ whose unstable direction is at angle φ
/// from the initial deviation e₁.
fn saddle(lam: f64, phi: f64) -> Linear<2> {
    let (c, s) = (phi.cos(), phi.sin());
    Linear {
        a: [
            [lam * (c * c - s * s), 2.0 * lam * c * s],
            [2.0 * lam * c * s, lam * (s * s - c * c)],
        ],
    }
}

/// A linear saddle end to end (RK4 tangent, J·δ samples, trapezoid, second-half fit). With δ(0)
/// = e₁ at angle φ from the unstable direction, |δ|² = cos²φ e^{2λt} + sin²φ e^{−2λt} exactly, so
/// r(t) is known in closed form: the same accumulator fed the exact r is the reference (to 1e-9),
/// and the slope over [500, 1000] s is λ/2 to 1e-6 (the O(ln t / t²) transient of the alignment
/// is below that for φ = 0.3).
#[test]
fn linear_saddle_slope_is_half_its_rate() {
    let phi: f64 = 0.3;
    for lam in [0.5, 1.0] {
        let sys = saddle(lam, phi);
        let r = megno_orbit(&sys, &RK4, &[0.0, 0.0], &opts(1000.0), &mut Silent).unwrap();
        let exact_r = |t: f64| {
            let q = phi.tan().powi(2) * (-4.0 * lam * t).exp();
            lam * (1.0 - q) / (1.0 + q)
        };
        let mut m = megno::Megno::new();
        let (mut ts, mut ys) = (vec![], vec![]);
        for k in 0..=100_000 {
            let t = k as f64 * 0.01;
            m.push(t, exact_r(t));
            if k >= 50_000 {
                ts.push(t);
                ys.push(m.mean());
            }
        }
        let reference = megno::slope(&ts, &ys);
        eprintln!(
            "saddle λ = {lam}: slope {} (exact-r reference {reference}, λ/2 = {}), ⟨Y⟩ = {} (reference {}), ln|δ|/t = {}",
            r.fit.slope,
            lam / 2.0,
            r.mean,
            m.mean(),
            r.finite_time_exponent
        );
        assert!(r.end.complete && r.fit.every_sample);
        assert!((r.fit.slope - reference).abs() < 1e-9);
        assert!((r.mean - m.mean()).abs() < 1e-9 * m.mean());
        assert!((r.fit.slope - lam / 2.0).abs() < 1e-6, "{}", r.fit.slope);
        assert!((r.lyapunov - lam).abs() < 2e-6);
        // ln|δ(t)|/t = λ + ln cos φ / t.
        let ftle = lam + phi.cos().ln() / 1000.0;
        assert!((r.finite_time_exponent - ftle).abs() < 1e-9);
        assert_eq!(r.end.counts.steps, 100_000);
        assert_eq!(r.end.counts.samples, Some(100_001));
        assert_eq!(r.end.counts.renormalizations, 100_000);
        assert_eq!((r.fit.start, r.fit.end), (500.0, 1000.0));
    }
}

/// The harmonic oscillator `ẍ = −ω² x` is isochronous: deviations stay bounded (no shear), so
/// ⟨Y⟩ → 0, the stable-periodic limit (Cincotta, Giordano & Simó 2003), and the slope → 0.
#[test]
fn linear_oscillator_tends_to_zero() {
    let w = 2.0;
    let sys = Linear::<2> {
        a: [[0.0, 1.0], [-w * w, 0.0]],
    };
    let r = megno_orbit(&sys, &RK4, &[1.0, 0.0], &opts(1000.0), &mut Silent).unwrap();
    eprintln!(
        "harmonic oscillator ω = {w}: ⟨Y⟩(1000) = {}, slope {}",
        r.mean, r.fit.slope
    );
    assert!(r.mean.abs() < 0.05, "{}", r.mean);
    assert!(r.fit.slope.abs() < 1e-4);
}

/// The pendulum is integrable but not isochronous (ω falls with the amplitude), so δ grows
/// linearly and ⟨Y⟩ → 2; ⟨Y⟩ − 2 decays once the sheared part of δ dominates, after
/// t ~ 1/(amplitude · dω/dA), quickly at θ₀ = 1 and 2 rad.
#[test]
fn pendulum_tends_to_two() {
    for th in [1.0, 2.0] {
        let r = chain_megno(&chain(1), &RK4, &[th, 0.0], &opts(1000.0), &mut Silent).unwrap();
        eprintln!(
            "pendulum θ0 = {th}: ⟨Y⟩(1000) = {}, slope {}",
            r.mean, r.fit.slope
        );
        assert!((r.mean - 2.0).abs() < 0.05, "θ0 = {th}: {}", r.mean);
        assert!(r.fit.slope.abs() < 1e-3);
        assert!(r.end.energy.relative_drift < 1e-6);
    }
}

/// The regular double pendulum from rest at θ = (0.2, 0.2): a quasi-periodic orbit on a
/// 2-torus, ⟨Y⟩ → 2 from below. Near the linear normal modes the shear is weak, so at t = 1000 s
/// ⟨Y⟩ is still ≈ 1.4 (printed); |⟨Y⟩ − 2| shrinks with t and is below 0.05 by t = 4·10⁴ s.
#[test]
fn regular_double_pendulum_tends_to_two() {
    let r = chain_megno(
        &chain(2),
        &RK4,
        &rest(&[0.2, 0.2]),
        &MegnoOptions {
            tau: 0.1,
            ..opts(40_000.0)
        },
        &mut Silent,
    )
    .unwrap();
    let at: Vec<(f64, f64)> = [1000.0, 3000.0, 10_000.0, 40_000.0]
        .iter()
        .map(|&t| (t, mean_at(&r, t)))
        .collect();
    eprintln!(
        "regular θ = (0.2, 0.2): ⟨Y⟩(t) = {at:?}, slope over the second half {}",
        r.fit.slope
    );
    for w in at.windows(2) {
        assert!((w[1].1 - 2.0).abs() < (w[0].1 - 2.0).abs(), "{at:?}");
    }
    assert!((r.mean - 2.0).abs() < 0.05, "{}", r.mean);
    assert!(r.fit.slope.abs() < 1e-5, "{}", r.fit.slope);
}

/// The chaotic equal double pendulum θ = (2, 2): the slope of ⟨Y⟩ over [500, 1000] s against
/// λ_max/2 from the QR spectrum over the same orbit and horizon (same RK4 step).
#[test]
fn chaotic_double_pendulum_slope_is_half_lambda_max() {
    let c = chain(2);
    let x0 = rest(&[2.0, 2.0]);
    let r = chain_megno(&c, &RK4, &x0, &opts(1000.0), &mut Silent).unwrap();
    let s = chain_spectrum(
        &c,
        &RK4,
        &x0,
        &LyapunovOptions {
            tau: 0.1,
            transient: 0.0,
            time: 1000.0,
            ..Default::default()
        },
        &mut Silent,
    )
    .unwrap();
    let half = s.exponents[0] / 2.0;
    eprintln!(
        "chaotic θ = (2, 2): MEGNO slope {} vs λ_max/2 = {half} (λ_max = {} ± {}); 2·slope = {}, ln|δ|/t = {}, ⟨Y⟩(1000) = {}",
        r.fit.slope, s.exponents[0], s.standard_error[0], r.lyapunov, r.finite_time_exponent, r.mean
    );
    assert!((r.fit.slope - half).abs() < 0.1 * half);
    assert!(r.mean > 100.0);
}

/// τ only renormalises δ (r is scale invariant): τ = 0.01 and τ = 1 give the same ⟨Y⟩ to
/// round-off on a regular orbit, and DOP853 (sampling every τ) agrees with RK4 on ⟨Y⟩.
#[test]
fn tau_only_renormalises() {
    let c = chain(1);
    let x0 = [1.0, 0.0];
    let a = chain_megno(&c, &RK4, &x0, &opts(200.0), &mut Silent).unwrap();
    let b = chain_megno(
        &c,
        &RK4,
        &x0,
        &MegnoOptions {
            tau: 1.0,
            ..opts(200.0)
        },
        &mut Silent,
    )
    .unwrap();
    assert!((a.mean - b.mean).abs() < 1e-10, "{} vs {}", a.mean, b.mean);
    let dop = Method::Dop853 {
        rtol: 1e-11,
        atol: 1e-11,
        h_max: f64::INFINITY,
    };
    let d = chain_megno(&c, &dop, &x0, &opts(200.0), &mut Silent).unwrap();
    eprintln!(
        "pendulum θ0 = 1, t = 200: rk4 {} (τ = 1: {}), dop853 {}",
        a.mean, b.mean, d.mean
    );
    assert_eq!(d.sample_interval, 0.01);
    assert!((a.mean - d.mean).abs() < 1e-3);
    let e = chain_megno(
        &c,
        &RK4,
        &x0,
        &MegnoOptions {
            tau: 0.015,
            ..opts(200.0)
        },
        &mut Silent,
    )
    .unwrap_err();
    assert!(
        matches!(e, LyapunovError::Invalid { field: "tau", .. }),
        "{e}"
    );
}

fn pendula() -> Command {
    Command::cargo_bin("pendula").unwrap()
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Bad input: exit 2, one line on stderr naming `needle`, nothing written.
fn assert_bad_input(args: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(pendula()
        .current_dir(dir.path())
        .args(args)
        .args(["-o", "out.h5", "--plot", "out.png"]));
    assert_eq!(code, 2, "args {args:?}: stderr {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "`{err}` does not name `{needle}`");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn cli_bad_input_is_refused() {
    let base = ["lyapunov", "--theta", "2,2", "--estimator", "megno"];
    for (extra, needle) in [
        (&["--tau", "0"][..], "--tau"),
        (&["--tau", "-0.1"], "--tau"),
        (&["--t-end", "0"], "--t-end"),
        (&["--t-end", "-5"], "--t-end"),
        (&["--tau", "0.0105"], "--tau"),
        (&["--transient", "1"], "--transient"),
        (&["--tolerance", "0.01"], "--tolerance"),
        (&["--exponents", "2"], "--exponents"),
        (&["--ensemble", "4"], "--ensemble"),
    ] {
        assert_bad_input(&[&base[..], extra].concat(), needle);
    }
}

/// The CLI's JSON, HDF5 group (history with its named dimension and units) and figure, and a
/// spec file with `estimator = "megno"` giving the same numbers as the flags.
#[test]
fn cli_writes_file_plot_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (out, png) = (dir.path().join("m.h5"), dir.path().join("m.png"));
    let args = [
        "lyapunov",
        "--theta",
        "2,2",
        "--estimator",
        "megno",
        "--t-end",
        "100",
        "--dt",
        "0.01",
        "--json",
    ];
    let (code, stdout, err) = run(pendula()
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg("--plot")
        .arg(&png));
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(j["estimator"], "megno");
    assert_eq!(j["t_end"], 100.0);
    let (m, slope) = (j["megno"].as_f64().unwrap(), j["slope"].as_f64().unwrap());
    assert!(m > 10.0 && slope > 0.3, "{j}");
    assert!((j["lyapunov_from_slope"].as_f64().unwrap() - 2.0 * slope).abs() < 1e-14);
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);

    let f = hdf5::File::open(&out).unwrap();
    let g = f.group("megno").unwrap();
    let t: Vec<f64> = g.dataset("time").unwrap().read_raw().unwrap();
    let mean = g.dataset("megno_mean").unwrap();
    assert_eq!(mean.shape(), vec![t.len()]);
    let last: Vec<f64> = mean.read_raw().unwrap();
    // serde_json's parser may round the last bit.
    assert!((*last.last().unwrap() - m).abs() < 1e-14 * m);
    assert_eq!((t[0], *t.last().unwrap()), (0.0, 100.0));
    let units = mean
        .attr("units")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap();
    assert_eq!(units.as_str(), "1");
    let dims = g.dataset("megno_y").unwrap().attr("DIMENSION_LIST").is_ok();
    assert!(dims, "megno_y has no dimension scale");
    let stored: f64 = g.attr("slope").unwrap().read_scalar().unwrap();
    assert!((stored - slope).abs() < 1e-14 * slope);

    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "kind = \"lyapunov\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [2.0, 2.0]\n\
         [integrator]\nmethod = \"rk4\"\ndt = 0.01\n[lyapunov]\nestimator = \"megno\"\nt_end = 100.0\n",
    )
    .unwrap();
    let (code, stdout, err) = run(pendula().args(["lyapunov", "--json", "--spec"]).arg(&spec));
    assert_eq!(code, 0, "{err}");
    let k: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(k["megno"], j["megno"]);
    assert_eq!(k["slope"], j["slope"]);
}

/// The shipped spec validates and runs (shortened).
#[test]
fn shipped_specs_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["double-pendulum-megno", "double-pendulum-megno-regular"] {
        let dir = tempfile::tempdir().unwrap();
        let (code, stdout, err) = run(pendula()
            .current_dir(dir.path())
            .args(["lyapunov", "--spec"])
            .arg(root.join(format!("analyses/{name}.toml")))
            .args(["--t-end", "20", "--json", "-o", "x.h5", "--plot", "x.png"]));
        assert_eq!(code, 0, "{name}: {err}");
        let j: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(j["estimator"], "megno", "{name}");
    }
}
