//! Issue 53 (part A): the error bars of found orbits and located bifurcations, each against an
//! independent truth. The integrator runs at loose tolerances so that its true error lies far
//! above round-off, where a ladder estimate can be told right or wrong.
//!
//! * The ladder's estimate is within a factor 10 of the true error: the simple pendulum's
//!   period (4 √(l/g) K(sin(θ₀/2)), K by the AGM in this file) and the linear damped driven
//!   oscillator's multipliers (exp(λT) in closed form; a system of its own, exactly linear).
//! * Coverage: the lower edge of the Kapitza window (the upright pendulum on a vertically
//!   vibrated pivot), located for 100 drive frequencies, against Mathieu's a₀(q) = −4g/(lΩ²)
//!   solved from its continued fraction (no integrator).
//! * The error bars fall with the tolerance: the slope of log(error) against log(rtol).

use nalgebra::Complex;
use pendula::analysis::periodic::{
    continue_branch, find, orbit_error, BifurcationKind, Closure, ContinuationOptions, Guess,
    PeriodicError, ShootingOptions,
};
use pendula::model::{Chain, ChainParams, Link, PivotMotion};
use pendula::observe::{Cancel, Silent};
use std::f64::consts::PI;

#[path = "common/oscillator.rs"]
mod oscillator;
use oscillator::Oscillator;

#[path = "common/loglog.rs"]
mod loglog;
use loglog::slope;

const G: f64 = 9.81;

/// K(k) = π / (2 AGM(1, √(1 − k²))), written here so the truth owes nothing to pendula.
fn agm_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..40 {
        let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
        a = an;
        b = bn;
    }
    PI / (2.0 * a)
}

/// DOP853 at `tol`, free to choose its steps: one sample per period (the default 64 cap the
/// step so far below the tolerance's that the error is round-off).
fn loose(tol: f64) -> ShootingOptions {
    ShootingOptions {
        rtol: tol,
        atol: tol,
        tolerance: 1e-11,
        samples: 1,
        ..ShootingOptions::default()
    }
}

/// The ladder's period error against the true one, within a factor 10 both ways, at three
/// amplitudes and two loose tolerances.
#[test]
fn ladder_estimates_the_simple_pendulum_period_error_within_a_factor_10() {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = G;
    let chain = Chain::new(p).unwrap();
    for deg in [30.0f64, 90.0, 150.0] {
        let th0 = deg.to_radians();
        let exact = 4.0 / G.sqrt() * agm_k((th0 / 2.0).sin());
        for tol in [1e-6, 1e-7] {
            let opts = loose(tol);
            let closure = Closure::Energy(-G * th0.cos());
            let guess = Guess {
                x0: vec![th0, 0.0],
                period: exact * 1.001,
            };
            let o = find(&chain, &guess, closure, &opts, &Cancel::never()).unwrap();
            let e = orbit_error(&chain, &o, closure, &opts, &Cancel::never()).unwrap();
            let truth = (o.period - exact).abs();
            let est = e.period.integrator;
            eprintln!(
                "{deg:>5}° rtol {tol:.0e}: true error {truth:.2e}, ladder {est:.2e} (ratio {:.2}), newton {:.1e}, combined {:.2e}, rungs {:?}",
                est / truth,
                e.period.newton,
                e.period.combined,
                e.period_ladder
            );
            assert!(
                truth > 1e-13,
                "{deg}° {tol:e}: the true error {truth:.1e} is round-off"
            );
            assert!(
                est > truth / 10.0 && est < truth * 10.0,
                "{deg}° rtol {tol:e}: ladder {est:.2e} vs true {truth:.2e}"
            );
            assert!(
                e.period.combined >= truth,
                "{deg}°: the bar misses the truth"
            );
        }
    }
}

/// The multipliers exp(λT), λ = −ζω₀ ± iω₀√(1 − ζ²): the ladder's |δμ| against the true
/// error, within a factor 10, for three oscillators at a loose tolerance.
#[test]
fn ladder_estimates_the_linear_oscillator_multiplier_error_within_a_factor_10() {
    for (zeta, w0, omega) in [(0.1, 2.0, 1.3), (0.05, 3.0, 1.0), (0.2, 1.0, 0.7)] {
        let sys = Oscillator {
            zeta,
            w0,
            force: 1.5,
            omega,
        };
        let t = 2.0 * PI / omega;
        let closure = Closure::Driven {
            drive_period: t,
            k: 1,
        };
        let opts = loose(1e-7);
        let guess = Guess {
            x0: vec![0.0, 0.0],
            period: t,
        };
        let o = find(&sys, &guess, closure, &opts, &Cancel::never()).unwrap();
        let e = orbit_error(&sys, &o, closure, &opts, &Cancel::never()).unwrap();
        assert_eq!(e.period.combined, 0.0, "a driven orbit's period is given");
        let wd = w0 * (1.0 - zeta * zeta).sqrt();
        for (m, err) in o.floquet.multipliers.iter().zip(&e.multipliers) {
            let truth = [wd, -wd]
                .iter()
                .map(|&w| (m.complex() - (Complex::new(-zeta * w0, w) * t).exp()).norm())
                .fold(f64::INFINITY, f64::min);
            let est = err.integrator;
            eprintln!(
                "ζ {zeta} ω₀ {w0} Ω {omega}: |μ| {:.6}, true error {truth:.2e}, ladder {est:.2e} (ratio {:.2}), newton {:.1e}",
                m.modulus,
                est / truth,
                err.newton
            );
            assert!(truth > 1e-13, "the true error {truth:.1e} is round-off");
            assert!(
                est > truth / 10.0 && est < truth * 10.0,
                "ζ {zeta}: ladder {est:.2e} vs true {truth:.2e}"
            );
        }
    }
}

/// Mathieu's a₀(q) (the characteristic value of ce₀) from its continued fraction
/// a = 2q² / (a − 4 − q v₂), v_r = q / (a − 4r² − q v_{r+1}), by fixed-point iteration: exact
/// to round-off for the small q here, and no integration.
fn mathieu_a0(q: f64) -> f64 {
    let mut a = -0.5 * q * q;
    for _ in 0..50 {
        let mut v = 0.0;
        for r in (2..40).rev() {
            v = q / (a - 4.0 * (r * r) as f64 - q * v);
        }
        a = 2.0 * q * q / (a - 4.0 - q * v);
    }
    a
}

/// The pivot amplitude a (m) where a₀(2a/l) = −4g/(lΩ²): the lower edge of the window.
fn kapitza_edge(g: f64, l: f64, w: f64) -> f64 {
    let target = -4.0 * g / (l * w * w);
    let asym = (2.0 * g * l).sqrt() / w;
    let (mut lo, mut hi) = (0.5 * asym, 2.0 * asym);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mathieu_a0(2.0 * mid / l) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The upright pendulum (l = 1 m) on a pivot vibrated at `w` rad/s, continued down in the
/// amplitude a from 1.3 times the asymptotic edge: the located lower edge (a multiplier through
/// +1) and its error bar.
fn located_edge(w: f64, tol: f64) -> (f64, pendula::analysis::periodic::Bifurcation) {
    let pendulum = |a: f64| -> Chain {
        let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
        p.gravity = G;
        p.drive.pivot = Some(PivotMotion {
            x_amplitude: 0.0,
            y_amplitude: a,
            frequency: w,
            phase: 0.0,
        });
        Chain::new(p).unwrap()
    };
    let td = 2.0 * PI / w;
    let closure = Closure::Driven {
        drive_period: td,
        k: 1,
    };
    let family = |a: f64| -> Result<(Chain, Closure), PeriodicError> { Ok((pendulum(a), closure)) };
    let asym = (2.0 * G).sqrt() / w;
    let shoot = loose(tol);
    let a0 = 1.3 * asym;
    let guess = Guess {
        x0: vec![PI, 0.0],
        period: td,
    };
    let start = find(&pendulum(a0), &guess, closure, &shoot, &Cancel::never()).unwrap();
    let opts = ContinuationOptions {
        min: 0.8 * asym,
        max: 2.0 * asym,
        points: 200,
        step: 2e-3,
        max_step: 5e-3,
        increasing: false,
        locate_tolerance: 1e-14,
        ..ContinuationOptions::default()
    };
    let b = continue_branch(&family, &start, a0, &shoot, &opts, &mut Silent).unwrap();
    let edge = b
        .bifurcations
        .iter()
        .find(|x| matches!(x.kind, BifurcationKind::BranchPoint | BifurcationKind::Fold))
        .unwrap_or_else(|| panic!("Ω = {w}: no edge located ({})", b.ended))
        .clone();
    (kapitza_edge(G, 1.0, w), edge)
}

/// Over 100 drive frequencies the located edge's error bar contains Mathieu's edge. The bar is
/// a deterministic estimate (a sum of magnitudes), not a 95 % interval: coverage here is the
/// count of cases it contains the truth, printed with the bisection half-width's own count
/// (the old `uncertainty`) for comparison.
#[test]
fn kapitza_edge_error_bars_cover_mathieu_over_100_drive_frequencies() {
    // The continued fraction agrees with the q⁸ series where that is good to 1e-16.
    let q: f64 = 0.01;
    let series = -q * q / 2.0 + 7.0 * q.powi(4) / 128.0 - 29.0 * q.powi(6) / 2304.0;
    assert!(
        (mathieu_a0(q) - series).abs() < 1e-17,
        "{} vs {series}",
        mathieu_a0(q)
    );
    let (mut covered, mut bisection_only, mut plain, mut ratios) = (0, 0, 0, Vec::new());
    for i in 0..100 {
        let w = 150.0 + i as f64;
        let (truth, edge) = located_edge(w, 1e-9);
        let miss = (edge.parameter - truth).abs();
        let e = edge.error;
        assert!(e.combined.is_finite(), "Ω = {w}: {e:?}");
        covered += usize::from(miss <= e.combined);
        bisection_only += usize::from(miss <= edge.uncertainty);
        // The plain Richardson difference |v₀ − v₂| without the tightest rung's own error.
        let difference = (edge.ladder[0] - edge.ladder[2]).abs();
        plain += usize::from(miss <= e.location + e.newton + difference);
        ratios.push(miss / e.combined);
        if i % 10 == 0 {
            eprintln!(
                "Ω = {w}: a = {:.14} vs Mathieu {truth:.14}: miss {miss:.2e}, bar {:.2e} (bisection {:.1e}, newton {:.1e}, integrator {:.1e}; ladder {:?})",
                edge.parameter, e.combined, e.location, e.newton, e.integrator, edge.ladder
            );
        }
    }
    ratios.sort_by(f64::total_cmp);
    eprintln!(
        "coverage: the error bar contains Mathieu's edge in {covered}/100 cases (the bisection half-width alone: {bisection_only}/100; with the plain ladder difference |v0 - v2|: {plain}/100); miss/bar median {:.2}, 95th percentile {:.2}, max {:.2}",
        ratios[50], ratios[95], ratios[99]
    );
    assert!(covered >= 90, "{covered}/100");
}

/// Numbers as `1.23e-9, …`.
fn sci(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.2e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// DOP853's error falls about like its tolerance, and so must the error bars: the slope of
/// log(bar) against log(rtol) lies in 0.5 … 1.5, for the pendulum's period (1e-5 … 1e-9) and
/// the Kapitza edge's integrator part (1e-7 … 1e-10), each printed with the true error's slope.
#[test]
fn error_bars_fall_like_the_tolerance() {
    let mut p = ChainParams::new(vec![Link::point(1.0, 1.0)]);
    p.gravity = G;
    let chain = Chain::new(p).unwrap();
    let th0 = 120f64.to_radians();
    let exact = 4.0 / G.sqrt() * agm_k((th0 / 2.0).sin());
    let closure = Closure::Energy(-G * th0.cos());
    let tols = [1e-5, 1e-6, 1e-7, 1e-8, 1e-9];
    let (mut bars, mut truths) = (Vec::new(), Vec::new());
    for tol in tols {
        let opts = loose(tol);
        let guess = Guess {
            x0: vec![th0, 0.0],
            period: exact,
        };
        let o = find(&chain, &guess, closure, &opts, &Cancel::never()).unwrap();
        let e = orbit_error(&chain, &o, closure, &opts, &Cancel::never()).unwrap();
        bars.push(e.period.combined);
        truths.push((o.period - exact).abs());
    }
    let (sb, st) = (slope(&tols, &bars), slope(&tols, &truths));
    eprintln!(
        "pendulum period: bars {}, true errors {}; slope of the bar {sb:.2}, of the true error {st:.2}",
        sci(&bars),
        sci(&truths)
    );
    assert!((0.5..=1.5).contains(&sb), "{sb}");
    let tols = [1e-7, 1e-8, 1e-9, 1e-10];
    let (mut bars, mut truths) = (Vec::new(), Vec::new());
    for tol in tols {
        let (truth, edge) = located_edge(200.0, tol);
        bars.push(edge.error.integrator);
        truths.push((edge.parameter - truth).abs());
    }
    let (sb, st) = (slope(&tols, &bars), slope(&tols, &truths));
    eprintln!(
        "Kapitza edge: integrator parts {}, true errors {}; slope of the bar {sb:.2}, of the true error {st:.2}",
        sci(&bars),
        sci(&truths)
    );
    assert!((0.5..=1.5).contains(&sb), "{sb}");
}

/// The shipped Kapitza window through the CLI: every located bifurcation carries its error bar
/// in the JSON (components, ladder, method) and the file (`parameter_error` beside `parameter`
/// with CF `ancillary_variables` and units, `uncertainty` kept as the bisection half-width),
/// and `orbits find` reports the period's and multipliers' errors.
#[test]
fn the_error_bars_reach_the_json_the_file_and_the_report() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.h5");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"))
        .current_dir(root)
        .args([
            "run",
            "analyses/orbits-kapitza-inverted.toml",
            "--json",
            "-o",
            file.to_str().unwrap(),
            "--plot",
            dir.path().join("k.png").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["error_method"]
        .as_str()
        .unwrap()
        .contains("tolerance ladder"));
    let mut n = 0;
    for b in v["branches"].as_array().unwrap() {
        for x in b["bifurcations"].as_array().unwrap() {
            let e = &x["error"];
            let part = |k: &str| e[k].as_f64().unwrap_or_else(|| panic!("{k}: {x}"));
            let sum = part("location") + part("newton") + part("integrator");
            assert!(
                (part("combined") - sum).abs() <= 1e-15 * sum.max(1e-300),
                "{x}"
            );
            assert_eq!(x["parameter_error"].as_f64().unwrap(), part("combined"));
            assert_eq!(x["uncertainty"].as_f64().unwrap(), part("location"));
            assert_eq!(x["parameter_ladder"].as_array().unwrap().len(), 3);
            n += 1;
        }
    }
    assert!(n >= 2, "{v}");
    let f = hdf5::File::open(&file).unwrap();
    let text = |d: &hdf5::Dataset, a: &str| -> String {
        d.attr(a)
            .unwrap()
            .read_scalar::<hdf5::types::VarLenUnicode>()
            .unwrap()
            .to_string()
    };
    let p = f.dataset("orbits/bifurcations/parameter").unwrap();
    assert_eq!(text(&p, "ancillary_variables"), "parameter_error");
    let pe = f.dataset("orbits/bifurcations/parameter_error").unwrap();
    assert_eq!(text(&pe, "units"), "m");
    let values: Vec<f64> = pe.read_raw().unwrap();
    let unc: Vec<f64> = f
        .dataset("orbits/bifurcations/uncertainty")
        .unwrap()
        .read_raw()
        .unwrap();
    assert_eq!(values.len(), n);
    assert!(
        values.iter().zip(&unc).all(|(e, u)| e >= u),
        "{values:?} {unc:?}"
    );
    let method: hdf5::types::VarLenUnicode = f
        .group("orbits")
        .unwrap()
        .attr("error_method")
        .unwrap()
        .read_scalar()
        .unwrap();
    assert!(method.as_str().contains("sum of magnitudes"));
    // The found orbit (the window's start): its multipliers' errors beside them.
    let me: Vec<f64> = f
        .dataset("orbits/orbit/multiplier_error")
        .unwrap()
        .read_raw()
        .unwrap();
    assert_eq!(me.len(), 2);
    assert!(me.iter().all(|e| e.is_finite() && *e >= 0.0), "{me:?}");
    let mr = f.dataset("orbits/orbit/multiplier_real").unwrap();
    assert_eq!(text(&mr, "ancillary_variables"), "multiplier_error");
    // The text report of `orbits find` on the simple pendulum: the period's error line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pendula"))
        .args([
            "orbits",
            "find",
            "--preset",
            "simple",
            "--start",
            "mode",
            "--mode",
            "1",
            "--amplitude",
            "0.5",
        ])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("period error ±"), "{report}");
    assert!(report.contains("error method:"), "{report}");
}
