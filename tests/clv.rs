//! Covariant Lyapunov vectors (Ginelli's method) against independent routes: the eigenvectors
//! of a linear flow, the flow direction of a conservative chain, the time average of the local
//! growth rates against the QR spectrum, symplectic orthogonality in canonical coordinates, and
//! independence of the window placement.

use pendula::analysis::lyapunov::*;
use pendula::analysis::orbit::{chain_covariant, covariant_vectors, Covariant, CovariantOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams, System};
use pendula::observe::Silent;

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

fn unit(v: &[f64]) -> Vec<f64> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// The angle between two lines (rad, in [0, π/2]), accurate near 0.
fn line_angle(a: &[f64], b: &[f64]) -> f64 {
    let (a, b) = (unit(a), unit(b));
    let c: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let s = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (y - c * x).powi(2))
        .sum::<f64>()
        .sqrt();
    s.atan2(c.abs())
}

fn vector(r: &Covariant, s: usize, i: usize) -> Vec<f64> {
    r.vectors.slice(ndarray::s![s, i, ..]).to_vec()
}

/// `ẋ = A x`, A upper triangular with eigenvalues 0.5, 0.1, −0.3 and eigenvectors far from
/// orthogonal: the covariant vectors are the eigenvectors (the Gram–Schmidt vectors are
/// e₁, e₂, e₃, which are not), and each local growth rate is its eigenvalue.
#[test]
fn linear_flow_gives_its_eigenvectors() {
    let a = [[0.5, 1.0, 0.7], [0.0, 0.1, -0.9], [0.0, 0.0, -0.3]];
    let sys = Linear { a };
    // Eigenvectors of the triangular A by back substitution.
    let eig = |l: f64| -> Vec<f64> {
        let mut v = [0.0; 3];
        let k = (0..3).find(|&i| (a[i][i] - l).abs() < 1e-12).unwrap();
        v[k] = 1.0;
        for i in (0..k).rev() {
            let s: f64 = (i + 1..=k).map(|j| a[i][j] * v[j]).sum();
            v[i] = -s / (a[i][i] - l);
        }
        v.to_vec()
    };
    let opts = LyapunovOptions {
        tau: 0.1,
        transient: 20.0,
        time: 40.0,
        ..Default::default()
    };
    let cov = CovariantOptions {
        backward_transient: 60.0,
        samples: 40,
        pairs: vec![(0, 2)],
        ..Default::default()
    };
    let r = covariant_vectors(
        &sys,
        &Method::Rk4 { dt: 0.01 },
        &[1.0, 1.0, 1.0],
        &opts,
        &cov,
        &mut Silent,
    )
    .unwrap();
    assert_eq!(r.time.len(), 40);
    for (i, l) in [0.5, 0.1, -0.3].into_iter().enumerate() {
        let e = eig(l);
        for s in 0..r.time.len() {
            let ang = line_angle(&vector(&r, s, i), &e);
            assert!(ang < 1e-9, "vector {i} at sample {s}: {ang} rad off");
            // RK4's growth factor over τ differs from e^{λτ} by O(dt⁴).
            assert!((r.growth[(s, i)] - l).abs() < 1e-8, "{}", r.growth[(s, i)]);
        }
        assert!((r.growth_mean[i] - l).abs() < 1e-8);
        assert!((r.spectrum.exponents[i] - l).abs() < 1e-8);
    }
    // The Gram–Schmidt vectors are not the eigenvectors: the second eigenvector is 45° off e₂.
    assert!(line_angle(&eig(0.1), &[0.0, 1.0, 0.0]) > 0.5);
    assert_eq!(
        (r.unstable.clone(), r.stable.clone()),
        (vec![0, 1], vec![2])
    );
    let want = {
        // The principal angle between span(v1, v2) = span(e1, e2) and v3.
        let v3 = unit(&eig(-0.3));
        v3[2].abs().asin()
    };
    for a in r.min_angle.as_ref().unwrap() {
        assert!((a - want).abs() < 1e-9, "{a} vs {want}");
    }
    for s in 0..r.time.len() {
        let want = line_angle(&eig(0.5), &eig(-0.3));
        assert!((r.pair_angles[(s, 0)] - want).abs() < 1e-9);
    }
}

/// The distance of `f` from the span of `vs` (relative to |f|), by Gram–Schmidt done twice.
fn off_span(f: &[f64], vs: &[Vec<f64>]) -> f64 {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for v in vs {
        let mut w = v.clone();
        for _ in 0..2 {
            for b in &basis {
                let d: f64 = w.iter().zip(b).map(|(x, y)| x * y).sum();
                w.iter_mut().zip(b).for_each(|(x, y)| *x -= d * y);
            }
        }
        basis.push(unit(&w));
    }
    let mut r = unit(f);
    for _ in 0..2 {
        for b in &basis {
            let d: f64 = r.iter().zip(b).map(|(x, y)| x * y).sum();
            r.iter_mut().zip(b).for_each(|(x, y)| *x -= d * y);
        }
    }
    r.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// ∇E at `x` by central differences (an independent route to the energy's gradient).
fn energy_gradient(c: &Chain, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[i] += h;
            b[i] -= h;
            (c.energy(0.0, &a) - c.energy(0.0, &b)) / (2.0 * h)
        })
        .collect()
}

fn chaotic_run(links: usize, tf: f64, time: f64, tb: f64) -> (Chain, Covariant) {
    let c = chain(links);
    let opts = LyapunovOptions {
        transient: tf,
        time,
        ..Default::default()
    };
    let cov = CovariantOptions {
        backward_transient: tb,
        samples: 100,
        ..Default::default()
    };
    let method = Method::Rk4 { dt: 1e-3 };
    let r = chain_covariant(
        &c,
        &method,
        &rest(&vec![2.0; links]),
        &opts,
        &cov,
        &mut Silent,
    )
    .unwrap();
    (c, r)
}

/// The double and triple pendulum at θ = (2, …, 2), chaotic: the flow direction f(x) lies in
/// the neutral Oseledets space, i.e. in span(v₁ … v_{u+2}) and in span(v_{u+1} … v_{2N})
/// (both converge exponentially), to 1e-6; the vectors of the nonzero exponents lie in the
/// energy shell (∇E·v = 0: dE is conserved along the tangent flow, and an expanding or
/// contracting vector keeps it only at 0); each vector's mean local growth rate is its exponent
/// within the standard errors.
#[test]
fn chaotic_chains_zero_exponents_hold_the_flow() {
    for links in [2, 3] {
        let (c, r) = chaotic_run(links, 50.0, 100.0, 50.0);
        let dim = 2 * links;
        let u = r.unstable.len();
        assert!(u >= 1, "{links} links: {:?}", r.spectrum.exponents);
        assert_eq!(
            r.neutral.len(),
            2,
            "{links} links: {:?}",
            r.spectrum.exponents
        );
        assert_eq!(r.stable.len(), u);
        let mut ws = c.workspace();
        let mut f = vec![0.0; dim];
        for s in 0..r.time.len() {
            let x = r.state.row(s).to_vec();
            c.rhs(r.time[s], &x, &mut f, &mut ws);
            let v: Vec<Vec<f64>> = (0..dim).map(|i| vector(&r, s, i)).collect();
            let forward = off_span(&f, &v[..u + 2]);
            let backward = off_span(&f, &v[u..]);
            assert!(
                forward < 1e-6,
                "{links} links, t = {}: {forward}",
                r.time[s]
            );
            assert!(
                backward < 1e-6,
                "{links} links, t = {}: {backward}",
                r.time[s]
            );
            let g = unit(&energy_gradient(&c, &x));
            for i in r.unstable.iter().chain(&r.stable) {
                let d: f64 = g.iter().zip(&v[*i]).map(|(a, b)| a * b).sum();
                assert!(d.abs() < 1e-6, "{links} links, v{}: ∇E·v = {d}", i + 1);
            }
        }
        for i in 0..dim {
            let (a, b) = (r.growth_mean[i], r.spectrum.exponents[i]);
            let se = r.growth_standard_error[i].max(r.spectrum.standard_error[i]);
            assert!(
                (a - b).abs() < se,
                "{links} links, λ{}: {a} vs {b} ± {se}",
                i + 1
            );
        }
    }
}

/// Within the zero pair's two-dimensional space the flow direction is the one covariant line
/// and a shear couples the other direction to it: the vectors of the pair approach f(x) only
/// algebraically. The issue asked for an angle below 1e-6; that needs run lengths far beyond
/// any practical one (the angle falls roughly like 1/t), so what is asserted is the decay:
/// 16 times the forward transient brings the median angle of the first neutral vector down at
/// least tenfold, and it is never below 1e-6 at these lengths.
#[test]
fn zero_pair_converges_to_the_flow_only_algebraically() {
    let median_angle = |tf: f64| {
        let (c, r) = chaotic_run(2, tf, 50.0, 25.0);
        let mut ws = c.workspace();
        let mut f = vec![0.0; 4];
        let mut a: Vec<f64> = (0..r.time.len())
            .map(|s| {
                let x = r.state.row(s).to_vec();
                c.rhs(r.time[s], &x, &mut f, &mut ws);
                line_angle(&vector(&r, s, r.neutral[0]), &f)
            })
            .collect();
        a.sort_by(f64::total_cmp);
        a[a.len() / 2]
    };
    let (short, long) = (median_angle(25.0), median_angle(400.0));
    eprintln!("median angle to the flow: {short:e} (t_f = 25 s), {long:e} (t_f = 400 s)");
    assert!(long < short / 10.0, "{short} -> {long}");
    assert!(long > 1e-6, "{long}");
}

/// ω(vᵢ, vⱼ) = 0 unless λᵢ + λⱼ = 0, in canonical coordinates (a Gauss–Legendre run, whose
/// vectors are (δθ, δp)); the partners' ω is far from 0.
#[test]
fn symplectic_orthogonality_in_canonical_coordinates() {
    let c = chain(2);
    let opts = LyapunovOptions {
        transient: 30.0,
        time: 30.0,
        ..Default::default()
    };
    let cov = CovariantOptions {
        backward_transient: 30.0,
        samples: 30,
        ..Default::default()
    };
    let method = Method::Gauss {
        dt: 1e-3,
        stages: 2,
    };
    let r = chain_covariant(&c, &method, &rest(&[2.0, 2.0]), &opts, &cov, &mut Silent).unwrap();
    assert_eq!(r.coordinates, "theta, p");
    assert_eq!((r.unstable.len(), r.stable.len()), (1, 1));
    let omega = |a: &[f64], b: &[f64]| a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1];
    for s in 0..r.time.len() {
        let v: Vec<Vec<f64>> = (0..4).map(|i| vector(&r, s, i)).collect();
        for (i, j) in [(0, 1), (0, 2), (1, 3), (2, 3)] {
            let w = omega(&v[i], &v[j]);
            assert!(
                w.abs() < 1e-8,
                "t = {}: ω(v{}, v{}) = {w}",
                r.time[s],
                i + 1,
                j + 1
            );
        }
        let w = omega(&v[0], &v[3]);
        assert!(w.abs() > 1e-3, "t = {}: ω(v1, v4) = {w}", r.time[s]);
    }
}

/// Vectors at a time two windows share agree whatever the window's extent: a window of
/// 100 s and one of its first 50 s (each followed by its backward transient) give the same
/// expanding and contracting vectors there (the coefficients converge exponentially).
#[test]
fn vectors_do_not_depend_on_the_window() {
    let (_, long) = chaotic_run(2, 50.0, 100.0, 50.0);
    let (_, short) = chaotic_run(2, 50.0, 50.0, 50.0);
    let mut compared = 0;
    for (s, t) in short.time.iter().enumerate() {
        let Some(l) = long.time.iter().position(|u| u == t) else {
            continue;
        };
        assert_eq!(long.state.row(l), short.state.row(s));
        for i in [0, 3] {
            let a = line_angle(&vector(&long, l, i), &vector(&short, s, i));
            assert!(a < 1e-8, "t = {t}: v{} differs by {a} rad", i + 1);
        }
        compared += 1;
    }
    assert!(compared >= 40, "{compared} common samples");
    // The exponents are the plain spectrum's, bit for bit.
    let plain = chain_spectrum(
        &chain(2),
        &Method::Rk4 { dt: 1e-3 },
        &rest(&[2.0, 2.0]),
        &LyapunovOptions {
            transient: 50.0,
            time: 50.0,
            ..Default::default()
        },
        &mut Silent,
    )
    .unwrap();
    assert_eq!(plain.exponents, short.spectrum.exponents);
    assert_eq!(plain.standard_error, short.spectrum.standard_error);
}

mod cli {
    //! `pendula lyapunov --vectors covariant`: its file against the library, the shipped
    //! analysis, and its refusals (one line naming the flag, exit 2, nothing written).

    use assert_cmd::Command;
    use std::path::Path;

    fn pendula(dir: &Path, args: &[&str]) -> std::process::Output {
        Command::cargo_bin("pendula")
            .unwrap()
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap()
    }

    #[test]
    fn file_and_json_hold_the_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let out = pendula(
            dir.path(),
            &[
                "lyapunov",
                "--theta",
                "2,2",
                "--t-end",
                "60",
                "--vectors",
                "covariant",
                "--vector-samples",
                "100",
                "--vector-pairs",
                "1:4,2:3",
                "--json",
                "-o",
                "c.h5",
                "--plot",
                "c.png",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.trim().lines().last().unwrap().contains("c.h5"), "{err}");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = &j["covariant"];
        assert_eq!(c["samples"], 100);
        assert_eq!(c["unstable"], serde_json::json!([1]));
        assert_eq!(c["stable"], serde_json::json!([4]));
        assert_eq!(c["pairs"][0]["vectors"], serde_json::json!([1, 4]));
        // With one expanding and one contracting vector, the subspace angle is the pair's.
        assert_eq!(c["min_angle"], c["pairs"][0]["angle"]);
        let f = hdf5::File::open(dir.path().join("c.h5")).unwrap();
        let g = f.group("covariant").unwrap();
        let v = g.dataset("vectors").unwrap().read_dyn::<f64>().unwrap();
        assert_eq!(v.shape(), &[100, 4, 4]);
        for s in 0..100 {
            for i in 0..4 {
                let n: f64 = (0..4).map(|c| v[[s, i, c]].powi(2)).sum();
                assert!((n - 1.0).abs() < 1e-12);
            }
        }
        // The spectrum in both groups is the run's one, and the JSON's.
        let e1 = g.dataset("exponents").unwrap().read_raw::<f64>().unwrap();
        let e2 = f
            .group("lyapunov")
            .unwrap()
            .dataset("exponents")
            .unwrap()
            .read_raw::<f64>()
            .unwrap();
        assert_eq!(e1, e2);
        let ej: Vec<f64> = serde_json::from_value(j["exponents"].clone()).unwrap();
        // (serde_json's default parser rounds the last bit.)
        for (a, b) in e1.iter().zip(&ej) {
            assert!((a - b).abs() <= 1e-15 * a.abs(), "{a} vs {b}");
        }
        let frac: f64 = g.attr("tangency_fraction").unwrap().read_scalar().unwrap();
        assert_eq!(frac, c["tangency_fraction"].as_f64().unwrap());
        assert!(dir.path().join("c.png").exists());
    }

    /// One orbit runs on one thread: the file's vectors are the same bits for 1 and 2 threads.
    #[test]
    fn thread_count_changes_nothing() {
        let read = |threads: &str| {
            let dir = tempfile::tempdir().unwrap();
            let out = pendula(
                dir.path(),
                &[
                    "lyapunov",
                    "--theta",
                    "2,2",
                    "--t-end",
                    "40",
                    "--vectors",
                    "covariant",
                    "--threads",
                    threads,
                    "-o",
                    "c.h5",
                ],
            );
            assert!(out.status.success());
            let f = hdf5::File::open(dir.path().join("c.h5")).unwrap();
            let g = f.group("covariant").unwrap();
            let v = g.dataset("vectors").unwrap().read_raw::<f64>().unwrap();
            let a = g.dataset("min_angle").unwrap().read_raw::<f64>().unwrap();
            (v, a)
        };
        let (one, two) = (read("1"), read("2"));
        assert_eq!(
            one.0.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            two.0.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(
            one.1.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            two.1.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn shipped_analysis_runs() {
        let dir = tempfile::tempdir().unwrap();
        let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("analyses/double-pendulum-clv.toml");
        let out = pendula(
            dir.path(),
            &["run", spec.to_str().unwrap(), "-o", "a.h5", "--json"],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = &j["covariant"];
        assert_eq!(c["samples"], 5000);
        let frac = c["tangency_fraction"].as_f64().unwrap();
        assert!(frac > 0.0 && frac < 0.1, "{frac}");
        // Each mean growth rate agrees with its exponent within the errors.
        for i in 0..4 {
            let (a, b) = (
                c["growth_rate_mean"][i].as_f64().unwrap(),
                j["exponents"][i].as_f64().unwrap(),
            );
            let se = c["growth_rate_standard_error"][i].as_f64().unwrap();
            assert!((a - b).abs() < se, "{i}: {a} vs {b} ± {se}");
        }
    }

    #[test]
    fn refusals_name_the_flag_and_write_nothing() {
        let cases: &[(&[&str], &str)] = &[
            (&["--vectors", "cov"], "--vectors"),
            (
                &["--vectors", "covariant", "--estimator", "tangent"],
                "--vectors",
            ),
            (
                &["--vectors", "covariant", "--estimator", "sali"],
                "--vectors",
            ),
            (&["--vectors", "covariant", "--ensemble", "4"], "--vectors"),
            (
                &["--vectors", "covariant", "--tolerance", "0.01"],
                "--tolerance",
            ),
            (
                &["--vectors", "covariant", "--vector-pairs", "1:5"],
                "--vector-pairs",
            ),
            (
                &["--vectors", "covariant", "--vector-pairs", "2:2"],
                "--vector-pairs",
            ),
            (
                &["--vectors", "covariant", "--vector-pairs", "1-4"],
                "--vector-pairs",
            ),
            (
                &["--vectors", "covariant", "--vector-samples", "0"],
                "--vector-samples",
            ),
            (
                &["--vectors", "covariant", "--tangency-angle", "0"],
                "--tangency-angle",
            ),
            (
                &["--vectors", "covariant", "--tangency-angle", "nan"],
                "--tangency-angle",
            ),
            (
                &["--vectors", "covariant", "--backward-transient", "-1"],
                "--backward-transient",
            ),
            (&["--backward-transient", "5"], "--backward-transient"),
            (&["--vector-pairs", "1:4"], "--vector-pairs"),
            (
                &[
                    "--vectors",
                    "covariant",
                    "--t-end",
                    "1e7",
                    "--max-memory",
                    "100M",
                ],
                "--t-end",
            ),
        ];
        for (args, flag) in cases {
            let dir = tempfile::tempdir().unwrap();
            let mut all = vec!["lyapunov", "--theta", "2,2", "-o", "x.h5"];
            all.extend_from_slice(args);
            let out = pendula(dir.path(), &all);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(flag), "{args:?}: {err}");
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                0,
                "{args:?}"
            );
        }
        // The cart chain offers the spectrum, not its covariant vectors.
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let spec =
            std::fs::read_to_string(root.join("analyses/spherical-double-pendulum-lyapunov.toml"))
                .unwrap()
                .replace("[lyapunov]\n", "[lyapunov]\nvectors = \"covariant\"\n");
        std::fs::write(dir.path().join("s.toml"), spec).unwrap();
        let out = pendula(dir.path(), &["run", "s.toml", "-o", "s.h5"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("lyapunov.vectors"), "{err}");
    }
}
