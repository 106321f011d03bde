//! The textbook forms of docs/textbooks.md in pendula's model, against the textbooks' own
//! numbers: Taylor's driven damped pendulum (his parameters, his drive strength γ on the torque
//! axis, ω = 2π given as "1 Hz") doubles its period at his first threshold γ = 1.0663, and at the
//! same γ as Baker and Gollub's form of the same pendulum, which is Taylor's in rescaled time.

use assert_cmd::Command;

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
    let out = Command::cargo_bin("pendula")
        .unwrap()
        .args(["run"])
        .arg(&spec)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
