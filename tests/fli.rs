//! The fast Lyapunov indicator (`pendula lyapunov --estimator fli`) against exact growth laws:
//! a linear saddle's FLI(t) = ½ ln cosh(2λt), so FLI(t)/t → λ; a linear centre's FLI stays 0;
//! on the equal double pendulum a regular start grows like ln t and a chaotic one like λ_max t,
//! λ_max from the QR spectrum over the same orbit.

use assert_cmd::Command;
use pendula::analysis::lyapunov::*;
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

#[path = "common/linear.rs"]
mod linear;
use linear::Linear;

const RK4: Method = Method::Rk4 { dt: 0.01 };

fn opts(time: f64) -> FliOptions {
    FliOptions {
        tau: 0.01,
        time,
        ..Default::default()
    }
}

/// The saddle diag(λ, −λ) with w(0) = (1, 1)/√2: |w(t)|² = cosh(2λt), so FLI(t) =
/// ½ ln cosh(2λt) exactly (to RK4's error, < 1e-7 here), and FLI(t)/t = λ − ln 2/(2t) + O(e^{−4λt}/t):
/// within ln 2/(2t) of λ. At the equilibrium the flow vanishes, so OFLI = FLI.
#[test]
fn linear_saddle_grows_at_its_rate() {
    let lam = 0.7;
    let sys = Linear::<2> {
        a: [[lam, 0.0], [0.0, -lam]],
    };
    let t = 100.0;
    let r = fli_orbit(&sys, &RK4, &[0.0, 0.0], &opts(t), &mut Silent).unwrap();
    let exact = 0.5 * (2.0 * lam * t).cosh().ln();
    eprintln!(
        "saddle λ = {lam}: FLI({t}) = {} (exact {exact}), FLI/t = {}",
        r.fli, r.rate
    );
    assert!((r.fli - exact).abs() < 1e-7, "{} vs {exact}", r.fli);
    assert!(
        (r.rate - lam).abs() <= 0.5 * 2f64.ln() / t + 1e-9,
        "{}",
        r.rate
    );
    assert_eq!(r.ofli, r.fli);
    assert_eq!(r.end.counts.renormalizations, 10_000);
    // The history is the exact curve at every kept point.
    for (s, f) in r.history.time.iter().zip(&r.history.fli) {
        let e = 0.5 * (2.0 * lam * s).cosh().ln();
        assert!((f - e).abs() < 1e-7, "t = {s}: {f} vs {e}");
    }
}

/// A linear centre (ẋ = y, ẏ = −x) turns w without stretching it: FLI = sup ln|w| = 0 (its
/// value at t = 0) to round-off.
#[test]
fn linear_centre_stays_at_zero() {
    let sys = Linear::<2> {
        a: [[0.0, 1.0], [-1.0, 0.0]],
    };
    let r = fli_orbit(&sys, &RK4, &[1.0, 0.0], &opts(500.0), &mut Silent).unwrap();
    assert!(r.fli.abs() < 1e-9, "{}", r.fli);
    assert!(r.log_norm.abs() < 1e-6, "{}", r.log_norm);
}

fn double() -> Chain {
    Chain::new(ChainParams::equal_points(2)).unwrap()
}

/// The equal double pendulum released from rest: θ = (0.2, 0.2) is regular (w grows at most
/// linearly: FLI(1000) / ln 1000 < 1, and FLI grows by less than 2 ln 10 from t = 100 to 1000), θ
/// = (2, 2) is chaotic (FLI(t)/t within 5% of λ_max from the QR spectrum over the same orbit
/// and horizon, and the least-squares slope of FLI(t) over the second half within 10%).
#[test]
fn regular_and_chaotic_double_pendulum() {
    let c = double();
    let t = 1000.0;
    let reg = chain_fli(&c, &RK4, &[0.2, 0.2, 0.0, 0.0], &opts(t), &mut Silent).unwrap();
    let at = |r: &FliOrbit, s: f64| {
        let j = r.history.time.partition_point(|&x| x < s);
        r.history.fli[j]
    };
    eprintln!(
        "regular θ = (0.2, 0.2): FLI(100) = {}, FLI(1000) = {}, OFLI = {}, FLI/ln t = {}",
        at(&reg, 100.0),
        reg.fli,
        reg.ofli,
        reg.fli / t.ln()
    );
    assert!(reg.end.complete && reg.end.t_end == t);
    assert!(reg.fli / t.ln() < 1.0, "{}", reg.fli);
    assert!(reg.fli - at(&reg, 100.0) < 2.0 * 10f64.ln());

    let x0 = [2.0, 2.0, 0.0, 0.0];
    let ch = chain_fli(&c, &RK4, &x0, &opts(t), &mut Silent).unwrap();
    let s = chain_spectrum(
        &c,
        &RK4,
        &x0,
        &LyapunovOptions {
            tau: 0.1,
            transient: 0.0,
            time: t,
            ..Default::default()
        },
        &mut Silent,
    )
    .unwrap();
    let lam = s.exponents[0];
    let h = &ch.history;
    let from = h.time.partition_point(|&x| x < 0.5 * t);
    let slope = megno::slope(&h.time[from..], &h.fli[from..]);
    eprintln!(
        "chaotic θ = (2, 2): FLI/t = {}, slope {slope} vs λ_max = {lam} ± {}; OFLI/t = {}",
        ch.rate,
        s.standard_error[0],
        ch.ofli / t
    );
    assert!((ch.rate - lam).abs() < 0.05 * lam);
    assert!((slope - lam).abs() < 0.1 * lam);
    assert!(ch.fli > 50.0 * reg.fli);
}

/// Bad options are refused before any work, naming the field.
#[test]
fn bad_options_name_their_field() {
    let c = double();
    let x0 = [2.0, 2.0, 0.0, 0.0];
    for (o, field) in [
        (
            FliOptions {
                tau: 0.0,
                ..opts(10.0)
            },
            "tau",
        ),
        (opts(0.001), "time"),
        (
            FliOptions {
                max_history: 4,
                ..opts(10.0)
            },
            "max_history",
        ),
        (
            FliOptions {
                tau: 0.015,
                ..opts(10.0)
            },
            "tau",
        ),
    ] {
        match chain_fli(&c, &RK4, &x0, &o, &mut Silent) {
            Err(LyapunovError::Invalid { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{o:?}: {other:?}"),
        }
    }
    assert!(matches!(
        chain_fli(&c, &RK4, &[2.0, 2.0], &opts(10.0), &mut Silent),
        Err(LyapunovError::Invalid { field: "x0", .. })
    ));
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

/// Bad input: exit 2, one line on stderr naming the flag, nothing written.
#[test]
fn cli_bad_input_is_refused() {
    let base = ["lyapunov", "--theta", "2,2", "--estimator", "fli"];
    for (extra, needle) in [
        (&["--tau", "0"][..], "--tau"),
        (&["--t-end", "-5"], "--t-end"),
        (&["--tau", "0.0105"], "--tau"),
        (&["--transient", "1"], "--transient"),
        (&["--tolerance", "0.01"], "--tolerance"),
        (&["--exponents", "2"], "--exponents"),
        (&["--blocks", "12"], "--blocks"),
        (&["--ensemble", "4"], "--ensemble"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let args = [&base[..], extra].concat();
        let (code, _, err) = run(pendula()
            .current_dir(dir.path())
            .args(&args)
            .args(["-o", "out.h5", "--plot", "out.png"]));
        assert_eq!(code, 2, "args {args:?}: stderr {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
        assert!(err.contains(needle), "`{err}` does not name `{needle}`");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "files left behind: {left:?}");
    }
    let (code, _, err) = run(pendula().args(["lyapunov", "--theta", "2,2", "--estimator", "fly"]));
    assert_eq!(code, 2);
    assert!(err.contains("--estimator") && err.contains("fli"), "{err}");
}

/// The CLI's JSON, HDF5 group `fli` (history with units and the attributes) and figure, and a
/// spec file with `estimator = "fli"` giving the same numbers as the flags.
#[test]
fn cli_writes_file_plot_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (out, png) = (dir.path().join("f.h5"), dir.path().join("f.png"));
    let args = [
        "lyapunov",
        "--theta",
        "2,2",
        "--estimator",
        "fli",
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
    assert_eq!(j["kind"], "lyapunov");
    assert_eq!(j["estimator"], "fli");
    assert_eq!(j["t_end"], 100.0);
    let (fli, rate) = (j["fli"].as_f64().unwrap(), j["fli_rate"].as_f64().unwrap());
    assert!(fli > 50.0 && (rate - fli / 100.0).abs() < 1e-14, "{j}");
    assert!(j["ofli"].as_f64().unwrap() <= fli);
    assert!(j["relative_energy_drift"].as_f64().is_some());
    assert_eq!(j["counts"]["renormalizations"], 10_000);
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);

    let f = hdf5::File::open(&out).unwrap();
    let g = f.group("fli").unwrap();
    let t: Vec<f64> = g.dataset("time").unwrap().read_raw().unwrap();
    let d = g.dataset("fli").unwrap();
    assert_eq!(d.shape(), vec![t.len()]);
    let hist: Vec<f64> = d.read_raw().unwrap();
    assert!((*hist.last().unwrap() - fli).abs() < 1e-14 * fli);
    assert!(
        hist.windows(2).all(|w| w[1] >= w[0]),
        "FLI is a running sup"
    );
    assert_eq!((t[0], *t.last().unwrap()), (0.0, 100.0));
    assert_eq!(g.dataset("ofli").unwrap().shape(), vec![t.len()]);
    let units = d
        .attr("units")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap();
    assert_eq!(units.as_str(), "1");
    let est = g
        .attr("estimator")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap();
    assert_eq!(est.as_str(), "fli");
    let stored: f64 = g.attr("fli").unwrap().read_scalar().unwrap();
    assert!((stored - fli).abs() < 1e-14 * fli);
    let _: f64 = g
        .attr("relative_energy_drift")
        .unwrap()
        .read_scalar()
        .unwrap();

    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "kind = \"lyapunov\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [2.0, 2.0]\n\
         [integrator]\nmethod = \"rk4\"\ndt = 0.01\n[lyapunov]\nestimator = \"fli\"\nt_end = 100.0\n",
    )
    .unwrap();
    let (code, stdout, err) = run(pendula().args(["lyapunov", "--json", "--spec"]).arg(&spec));
    assert_eq!(code, 0, "{err}");
    let k: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(k["fli"], j["fli"]);
    assert_eq!(k["ofli"], j["ofli"]);
}
