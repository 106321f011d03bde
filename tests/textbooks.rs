//! The textbook forms of docs/textbooks.md in pendula's model, against the textbooks' own
//! numbers: Taylor's driven damped pendulum (his parameters, his drive strength γ on the torque
//! axis, ω = 2π given as "1 Hz") doubles its period at his first threshold γ = 1.0663, and at the
//! same γ as Baker and Gollub's form of the same pendulum, which is Taylor's in rescaled time.
//! The textbook presets (`preset = "taylor"`, `"baker-gollub"`, `"kapitza"`; src/model/textbook.rs)
//! take the textbooks' own parameters: continued in Taylor's γ the preset locates his table of
//! period doublings, in Baker and Gollub's g the same numbers, and in Kapitza's a the lower edge
//! of the window, against Mathieu's a₀(q) series and Kapitza's criterion a²Ω² > 2gl.

#[path = "common/spawn.rs"]
mod spawn;

/// The first period doubling located in `model` (a spec's `[model]` tables) on the period-1
/// attractor settled from rest at amplitude 1.05, continued in the torque's amplitude.
fn first_doubling(model: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(
        &spec,
        format!(
            "kind = \"orbits\"\n{model}[initial]\ntheta = [0.0]\n[orbits]\naction = \"continue\"\n\
             start = \"settle\"\ntransient_periods = 300\nparameter = \"model.drive.torque.amplitude\"\n\
             range = [1.05, 1.07]\npoints = 1000\nstep = 0.002\nmax_step = 0.005\n\
             locate_tolerance = 1e-10\n"
        ),
    )
    .unwrap();
    let j = run_json(dir.path(), &["run", spec.to_str().unwrap()]);
    let b = &j["branches"][0]["bifurcations"];
    assert_eq!(b.as_array().map(Vec::len), Some(1), "{b}");
    assert_eq!(b[0]["kind"], "period-doubling");
    b[0]["parameter"].as_f64().unwrap()
}

#[test]
fn taylors_pendulum_doubles_at_his_threshold_and_at_baker_and_gollubs() {
    // Taylor, chapter 12: ω = 2π, ω₀ = 1.5 ω = 3π, β = ω₀/4; mapped with l = 1 m, m = 1/ω₀²,
    // g = ω₀², damping 2β/ω₀² = 1/(2ω₀), torque amplitude = γ (docs/textbooks.md).
    let w0 = 3.0 * std::f64::consts::PI;
    let taylor = format!(
        "[model]\npreset = \"simple\"\nlength = 1.0\nmass = {}\ngravity = {}\n\
         [model.damping]\nabsolute = {}\n[model.drive.torque]\namplitude = 1.05\nfrequency = \"1 Hz\"\n",
        1.0 / (w0 * w0),
        w0 * w0,
        1.0 / (2.0 * w0)
    );
    let gamma = first_doubling(&taylor);
    // His table gives four decimals: 1.0663.
    assert!((gamma - 1.0663).abs() < 1e-4, "γ = {gamma}");
    // Baker and Gollub: l = m = g = 1, damping 1/q = 1/2, ω_D = 2/3, amplitude A = γ.
    let baker = "[model]\npreset = \"simple\"\nlength = 1.0\nmass = 1.0\ngravity = 1.0\n\
                 [model.damping]\nabsolute = 0.5\n[model.drive.torque]\namplitude = 1.05\n\
                 frequency = 0.6666666666666666\n";
    let a = first_doubling(baker);
    // The same pendulum in rescaled time: the two agree to the location's tolerance and the
    // integrator's error (DOP853 at 1e-12), far below Taylor's digits.
    assert!(
        (gamma - a).abs() < 1e-8,
        "Taylor {gamma} against Baker-Gollub {a}"
    );
}

/// `pendula` with `args` in `dir`, its JSON summary (the run must succeed).
fn run_json(dir: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = spawn::run(&[args, &["--json"]].concat(), dir);
    assert_eq!(code, 0, "{stderr}");
    spawn::json(&stdout)
}

/// Every located bifurcation of a continuation's summary: (kind, parameter).
fn bifurcations(j: &serde_json::Value) -> Vec<(String, f64)> {
    j["branches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["bifurcations"].as_array().unwrap().clone())
        .map(|b| {
            (
                b["kind"].as_str().unwrap().to_string(),
                b["parameter"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Taylor's table of period-doubling thresholds (Classical Mechanics, 2005, table 12.1).
const TAYLOR_TABLE: [f64; 4] = [1.0663, 1.0793, 1.0821, 1.0827];
/// The same thresholds located in N·m by `analyses/orbits-period-doubling-cascade.toml` (README,
/// "Shipped analyses"), to the README's nine decimals.
const CASCADE_NM: [f64; 4] = [1.066372862, 1.079313906, 1.082084384, 1.082678353];

#[test]
fn taylors_preset_continued_in_gamma_locates_his_table() {
    let dir = tempfile::tempdir().unwrap();
    // His chapter's pendulum (ω = 2π, ω₀ = 3π, β = ω₀/4, the preset's defaults), continued in
    // γ from 1.05 with three doublings followed: the shipped spec.
    let file = dir.path().join("taylor.h5");
    let j = run_json(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "run",
            "analyses/orbits-taylor-cascade.toml",
            "-o",
            file.to_str().unwrap(),
            "--plot",
            dir.path().join("taylor.png").to_str().unwrap(),
        ],
    );
    let b = bifurcations(&j);
    assert!(b.iter().all(|x| x.0 == "period-doubling"), "{b:?}");
    let gamma: Vec<f64> = b.iter().map(|x| x.1).collect();
    assert_eq!(gamma.len(), 4, "{gamma:?}");
    for (g, t) in gamma.iter().zip(TAYLOR_TABLE) {
        // His four decimals: every threshold within 1e-4 of his (the first, 1.066373, he
        // prints as 1.0663, the others rounded).
        assert!((g - t).abs() < 1e-4, "γ = {g} against Taylor's {t}");
    }
    for (g, nm) in gamma.iter().zip(CASCADE_NM) {
        // The same numbers as the N·m spec: the preset is that chain, in his time.
        assert!((g - nm).abs() < 2e-9, "γ = {g} against {nm} N·m");
    }
    // Titled by the range and the textbook's parameters, not the start value.
    let title = j["title"].as_str().unwrap();
    assert!(title.contains("γ from 1.05 to 1.085"), "{title}");
    assert!(title.contains("Taylor's driven pendulum"), "{title}");
    assert!(title.contains("ω₀ = 9.4248 rad/s"), "{title}");
    // The file names the parameter as the spec does, with the textbook's long name and unit.
    let f = hdf5::File::open(&file).unwrap();
    let g = f.group("orbits").unwrap();
    let attr = |name: &str| -> String {
        g.attr(name)
            .unwrap()
            .read_scalar::<hdf5::types::VarLenUnicode>()
            .unwrap()
            .to_string()
    };
    assert_eq!(attr("parameter"), "model.taylor.gamma");
    assert_eq!(attr("parameter_long_name"), "Taylor's drive strength γ");
    assert_eq!(attr("parameter_units"), "1");
    let p = f.dataset("orbits/branch_1/parameter").unwrap();
    let units: hdf5::types::VarLenUnicode = p.attr("units").unwrap().read_scalar().unwrap();
    assert_eq!(units.as_str(), "1");
}

#[test]
fn baker_and_gollubs_preset_continued_in_g_is_the_same_cascade() {
    let dir = tempfile::tempdir().unwrap();
    // Their q = 2, ω_D = 2/3 pendulum (the preset's defaults), from the command line.
    let j = run_json(
        dir.path(),
        &[
            "orbits",
            "continue",
            "--preset",
            "baker-gollub",
            "--baker-gollub-g",
            "1.05",
            "--theta",
            "0",
            "--start",
            "settle",
            "--transient-periods",
            "300",
            "--parameter",
            "model.baker-gollub.g",
            "--range",
            "1.05,1.085",
            "--points",
            "400",
            "--step",
            "0.002",
            "--max-step",
            "0.01",
            "--locate-tolerance",
            "1e-10",
            "--doublings",
            "3",
        ],
    );
    let g: Vec<f64> = bifurcations(&j).iter().map(|b| b.1).collect();
    assert_eq!(g.len(), 4, "{g:?}");
    for ((g, t), nm) in g.iter().zip(TAYLOR_TABLE).zip(CASCADE_NM) {
        assert!((g - t).abs() < 1e-4, "g = {g} against Taylor's {t}");
        assert!((g - nm).abs() < 2e-9, "g = {g} against {nm} N·m");
    }
}

/// Mathieu's characteristic value a₀(q) by its power series (Abramowitz and Stegun 20.2.25),
/// whose next term is O(q¹⁰): below 1e-13 relative at the window's q ≈ 0.044.
fn mathieu_a0(q: f64) -> f64 {
    let q2 = q * q;
    q2 * (-0.5 + q2 * (7.0 / 128.0 + q2 * (-29.0 / 2304.0 + q2 * 68687.0 / 18874368.0)))
}

#[test]
fn kapitzas_preset_continued_in_a_finds_the_window_edge_of_mathieu_and_his_criterion() {
    let dir = tempfile::tempdir().unwrap();
    let (omega, l, g): (f64, f64, f64) = (200.0, 1.0, 9.81);
    let criterion = (2.0 * g * l).sqrt() / omega;
    let spec = dir.path().join("k.toml");
    std::fs::write(
        &spec,
        format!(
            "kind = \"orbits\"\n[model]\npreset = \"kapitza\"\n[model.kapitza]\na = {}\n\
             omega = {omega:?}\n[initial]\ntheta = [3.141592653589793]\n[integrator]\nrtol = 1e-13\n\
             atol = 1e-13\n[orbits]\naction = \"continue\"\nparameter = \"model.kapitza.a\"\n\
             range = [{}, {}]\ndirection = \"down\"\npoints = 200\nstep = 1e-3\nmax_step = 0.005\n\
             newton_tolerance = 1e-11\nlocate_tolerance = 1e-12\n",
            1.3 * criterion,
            0.8 * criterion,
            1.3 * criterion,
        ),
    )
    .unwrap();
    let j = run_json(dir.path(), &["run", spec.to_str().unwrap()]);
    let edge = bifurcations(&j)
        .into_iter()
        .find(|b| b.0 == "branch-point")
        .expect("the lower edge")
        .1;
    // Mathieu: the upright state is stable where a₀(2a/l) < −4g/(lΩ²); its edge by bisection.
    let target = -4.0 * g / (l * omega * omega);
    let (mut lo, mut hi) = (0.5 * criterion, 2.0 * criterion);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mathieu_a0(2.0 * mid / l) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mathieu = 0.5 * (lo + hi);
    assert!(
        (edge - mathieu).abs() < 1e-11,
        "{edge} against Mathieu's {mathieu}"
    );
    // Kapitza's averaged criterion a²Ω² > 2gl is the edge to O(q²): 1.1e-4 below it here.
    let excess = edge / criterion - 1.0;
    assert!((1.0e-4..1.2e-4).contains(&excess), "{excess:e}");
}

#[test]
fn a_parameter_that_moves_several_fields_is_swept_not_continued() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = spawn::run(
        &[
            "orbits",
            "continue",
            "--preset",
            "taylor",
            "--taylor-gamma",
            "1.05",
            "--theta",
            "0",
            "--parameter",
            "model.taylor.omega0",
            "--range",
            "9,10",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--sweep model.taylor.omega0"), "{err}");
    // A textbook table beside another preset is refused by name.
    let (code, _, err) = spawn::run(
        &[
            "orbits",
            "find",
            "--preset",
            "simple",
            "--taylor-gamma",
            "1.05",
            "--theta",
            "0",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("model.taylor") || err.contains("--taylor-gamma"),
        "{err}"
    );
}

/// A sweep varies a textbook parameter that moves several fields (Taylor's β sets the damping
/// c = 2β/ω₀²): the Lyapunov exponents' sum, the phase-space contraction rate, is −2β in his
/// time at every point, the closed form of his equation's divergence.
#[test]
fn a_sweep_of_taylors_beta_contracts_phase_space_at_minus_two_beta() {
    let dir = tempfile::tempdir().unwrap();
    let j = run_json(
        dir.path(),
        &[
            "lyapunov",
            "--preset",
            "taylor",
            "--taylor-gamma",
            "1.07",
            "--theta",
            "0",
            "--t-end",
            "60",
            "--sweep",
            "model.taylor.beta=1.5:3:4",
            "--title",
            "Taylor's pendulum over β",
        ],
    );
    assert_eq!(j["title"], "Taylor's pendulum over β");
    let points = j["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        let beta = p["values"][0].as_f64().unwrap();
        let sum = p["results"]["lambda_sum"].as_f64().unwrap();
        assert!((sum + 2.0 * beta).abs() < 1e-8, "β = {beta}: Σλ = {sum}");
    }
}

#[test]
fn a_doubled_branch_started_with_small_steps_reports_no_fold_at_its_birth() {
    // The shipped Taylor spec with the N·m spec's unscaled steps: the doubled orbit leaves the
    // doubling with γ moving only as s², so its first points lie within 1e-9 of it with the
    // inherited multiplier (−1)² = +1 on either side of 1 by round-off. That used to be
    // reported as a "fold" 7e-10 above the doubling; the only bifurcations are doublings.
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join("analyses/orbits-taylor-cascade.toml")).unwrap();
    let spec: String = spec
        .lines()
        .map(|l| match l.split(" = ").next() {
            Some("step") => "step = 0.002".to_string(),
            Some("max_step") => "max_step = 0.01".to_string(),
            Some("points") => "points = 120".to_string(),
            Some("doublings") => "doublings = 1".to_string(),
            Some("file") | Some("plot") => String::new(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = dir.path().join("small-steps.toml");
    std::fs::write(&path, spec).unwrap();
    let j = run_json(dir.path(), &["run", path.to_str().unwrap()]);
    let b = bifurcations(&j);
    assert!(!b.is_empty(), "{j}");
    assert!(b.iter().all(|x| x.0 == "period-doubling"), "{b:?}");
    assert!((b[0].1 - CASCADE_NM[0]).abs() < 2e-9, "{b:?}");
}
