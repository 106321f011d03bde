//! Poincaré sections: crossings on the section and the energy shell, times against a brute-force
//! reference, the ±π cut, grazes inside one step, closed curves at low energy and an area-filling
//! chaotic orbit, the stroboscopic map, and the CLI's refusals.

use assert_cmd::Command;
use pendula::analysis::modes::elliptic_k;
use pendula::analysis::poincare::{
    orbit, section_orbits, shell_initial_conditions, wrap_angle, Orbit, Sampling, Section,
    SectionOptions, ShellSampling, Variables,
};
use pendula::integrate::{Direction, Dop853, Flow, Solver};
use pendula::model::{Chain, ChainParams, Harmonic, System};
use pendula::observe::Silent;
use std::f64::consts::PI;
use std::sync::atomic::{AtomicBool, AtomicU64};

fn double() -> Chain {
    Chain::new(ChainParams::equal_points(2)).unwrap()
}

fn run(chain: &Chain, section: &Section, x0: &[f64], opts: &SectionOptions) -> Orbit {
    orbit(
        chain,
        section,
        x0,
        opts,
        &AtomicBool::new(false),
        &AtomicU64::new(0),
    )
}

fn grid(angles: usize, speeds: usize) -> ShellSampling {
    ShellSampling {
        link: 1,
        variables: Variables::Momentum,
        sampling: Sampling::Grid { angles, speeds },
        angle_range: Some((-PI, PI)),
        speed_range: None,
    }
}

fn theta1_up() -> Section {
    Section::angle(0, 0.0, Direction::Rising)
}

/// Energy scale used by the analysis: max(|E0|, g Σ b).
fn scale(chain: &Chain, e0: f64) -> f64 {
    e0.abs()
        .max(chain.gravity() * chain.b().iter().sum::<f64>())
}

#[test]
fn crossings_lie_on_the_section_and_the_energy_shell() {
    let chain = double();
    let opts = SectionOptions {
        crossings: 150,
        ..Default::default()
    };
    let mut worst = (0.0f64, 0.0f64);
    for e in [-20.0, 0.0, 15.0] {
        let start = shell_initial_conditions(&chain, &theta1_up(), e, &grid(3, 3)).unwrap();
        for x0 in &start.states {
            // The start is on the section at the requested energy.
            assert!(wrap_angle(x0[0]).abs() < 1e-15);
            assert!((chain.energy(0.0, x0) - e).abs() < 1e-12 * scale(&chain, e));
            assert!(x0[2] > 0.0, "θ̇1 > 0 on the + section");
        }
        let (orbits, complete) =
            section_orbits(&chain, &theta1_up(), &start.states, &opts, &mut Silent);
        assert!(complete);
        for o in &orbits {
            assert_eq!(o.len(), 150);
            let e0 = chain.energy(0.0, &o.initial);
            for x in &o.states {
                worst.0 = worst.0.max(wrap_angle(x[0]).abs());
                worst.1 = worst
                    .1
                    .max((chain.energy(0.0, x) - e0).abs() / scale(&chain, e0));
                assert!(x[2] > 0.0);
            }
        }
    }
    eprintln!(
        "max |θ1 mod 2π| = {:.2e}, max rel. energy error = {:.2e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-10, "section residual {:e}", worst.0);
    assert!(worst.1 < 1e-9, "energy error {:e}", worst.1);

    // A velocity section and a general hyperplane satisfy their equations too.
    let x0 = [0.4, -0.3, 0.0, 0.0];
    let sec = Section::Coordinate {
        index: 3,
        value: 0.5,
        direction: Direction::Either,
    };
    let o = run(
        &chain,
        &sec,
        &x0,
        &SectionOptions {
            crossings: 40,
            ..Default::default()
        },
    );
    assert_eq!(o.len(), 40);
    let r = o
        .states
        .iter()
        .map(|x| (x[3] - 0.5).abs())
        .fold(0.0, f64::max);
    assert!(r < 1e-10, "omega section residual {r:e}");
    let a = [1.0, -0.5, 0.2, 0.1];
    let sec = Section::Hyperplane {
        normal: a.to_vec(),
        offset: 0.1,
        direction: Direction::Rising,
    };
    let o = run(
        &chain,
        &sec,
        &x0,
        &SectionOptions {
            crossings: 40,
            ..Default::default()
        },
    );
    assert_eq!(o.len(), 40);
    let r = o
        .states
        .iter()
        .map(|x| (a.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - 0.1).abs())
        .fold(0.0, f64::max);
    assert!(r < 1e-10, "hyperplane residual {r:e}");
}

/// Classical RK4 on the chain, independent of the crate's integrators.
fn rk4(chain: &Chain, x: &mut [f64], h: f64) {
    let mut ws = chain.workspace();
    let n = x.len();
    let (mut k1, mut k2, mut k3, mut k4) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut y = vec![0.0; n];
    chain.rhs(0.0, x, &mut k1, &mut ws);
    for i in 0..n {
        y[i] = x[i] + 0.5 * h * k1[i];
    }
    chain.rhs(0.0, &y, &mut k2, &mut ws);
    for i in 0..n {
        y[i] = x[i] + 0.5 * h * k2[i];
    }
    chain.rhs(0.0, &y, &mut k3, &mut ws);
    for i in 0..n {
        y[i] = x[i] + h * k3[i];
    }
    chain.rhs(0.0, &y, &mut k4, &mut ws);
    for i in 0..n {
        x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

#[test]
fn crossing_times_match_a_brute_force_reference() {
    let chain = double();
    // A regular orbit (low energy), so the reference's own error stays small.
    let start = shell_initial_conditions(&chain, &theta1_up(), -22.0, &grid(3, 3)).unwrap();
    let x0 = start.states[0].clone();
    let o = run(
        &chain,
        &theta1_up(),
        &x0,
        &SectionOptions {
            crossings: 25,
            ..Default::default()
        },
    );
    assert_eq!(o.len(), 25);
    // Reference: RK4 at h = 1e-4; in each bracketing step, bisect with one RK4 sub-step from the
    // step's start (local error ~ h⁵, far below 1e-12).
    let h = 1e-4;
    let mut x = x0.clone();
    let mut t = 0.0;
    let mut refs = vec![];
    while refs.len() < o.len() {
        let before = x.clone();
        rk4(&chain, &mut x, h);
        if before[0].sin() < 0.0 && x[0].sin() >= 0.0 && x[0].cos() > 0.0 {
            let (mut a, mut b) = (0.0, h);
            for _ in 0..60 {
                let m = 0.5 * (a + b);
                let mut y = before.clone();
                rk4(&chain, &mut y, m);
                if y[0].sin() < 0.0 {
                    a = m;
                } else {
                    b = m;
                }
            }
            refs.push(t + 0.5 * (a + b));
        }
        t += h;
    }
    let worst =
        o.t.iter()
            .zip(&refs)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
    eprintln!(
        "max |t - t_ref| = {worst:.2e} over {} crossings (last at {:.1} s)",
        refs.len(),
        refs[refs.len() - 1]
    );
    assert!(
        worst < 1e-9,
        "crossing times differ from the reference by {worst:e}"
    );
}

#[test]
fn the_pi_cut_makes_no_false_crossings() {
    // A whirling simple pendulum: θ grows through every multiple of π.
    let chain = Chain::new(ChainParams::equal_points(1)).unwrap();
    let x0 = [0.3, 9.0];
    let t_max = 20.0;
    for (value, tol) in [(0.0, 1e-12), (PI, 1e-12), (0.0, 1e-5), (PI, 1e-5)] {
        let sec = Section::angle(0, value, Direction::Either);
        let opts = SectionOptions {
            crossings: 10_000,
            t_end: t_max,
            rtol: tol,
            atol: tol,
            ..Default::default()
        };
        let o = run(&chain, &sec, &x0, &opts);
        // Reference count: how often the unwrapped angle passes value + 2πk.
        let mut x = x0.to_vec();
        let mut passes = 0;
        let h = 1e-4;
        let steps = (t_max / h) as usize;
        for _ in 0..steps {
            let k0 = ((x[0] - value) / (2.0 * PI)).floor();
            rk4(&chain, &mut x, h);
            let k1 = ((x[0] - value) / (2.0 * PI)).floor();
            passes += (k1 - k0).abs() as usize;
        }
        let laps = ((x[0] - x0[0]) / (2.0 * PI)).abs();
        eprintln!("value {value}, tol {tol:e}: {} crossings, {passes} reference, {laps:.2} laps, {} steps", o.len(), o.stats.steps);
        assert_eq!(o.len(), passes, "value {value}, tol {tol:e}");
        for x in &o.states {
            assert!(
                wrap_angle(x[0] - value).abs() < 1e-8,
                "crossing off the section at {}",
                x[0]
            );
        }
    }
}

#[test]
fn a_graze_inside_one_step_gives_both_crossings() {
    // A librating pendulum whose turning point is 1e-6 rad past the section: it crosses
    // θ = c and comes back ~1 ms later, far inside one DOP853 step.
    let chain = Chain::new(ChainParams::equal_points(1)).unwrap();
    let amp = 1.0;
    let c = amp - 1e-6;
    let sec = Section::angle(0, c, Direction::Either);
    let opts = SectionOptions {
        crossings: 21,
        rtol: 1e-10,
        atol: 1e-10,
        ..Default::default()
    };
    let o = run(&chain, &sec, &[amp, 0.0], &opts);
    assert_eq!(o.len(), 21);
    let period = 4.0 * (1.0 / chain.gravity()).sqrt() * elliptic_k((amp / 2.0).sin());
    let mean_step = o.t_end / o.stats.steps as f64;
    // The first crossing is the release; then pairs around each return to the turning point.
    for k in 1..=10 {
        let (a, b) = (o.t[2 * k - 1], o.t[2 * k]);
        let turn = k as f64 * period;
        assert!(
            b - a < 0.1 * mean_step,
            "pair {k}: {} s apart, steps ~{mean_step} s",
            b - a
        );
        assert!(
            (0.5 * (a + b) - turn).abs() < 1e-7,
            "pair {k} not centred on the turn"
        );
        assert!(a < turn && turn < b);
    }
    eprintln!(
        "graze pairs {:.2e} s apart, mean step {mean_step:.3} s",
        o.t[2] - o.t[1]
    );
}

/// The crossings of one orbit in the (θ2, p2) plane.
fn plane(chain: &Chain, o: &Orbit) -> Vec<(f64, f64)> {
    o.plane(chain, 1, Variables::Momentum)
}

/// Box-counting dimension from the occupied boxes at two resolutions of the bounding box.
fn box_dimension(p: &[(f64, f64)], coarse: usize, fine: usize) -> f64 {
    let (x0, x1) = p
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), q| (a.min(q.0), b.max(q.0)));
    let (y0, y1) = p
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), q| (a.min(q.1), b.max(q.1)));
    let count = |m: usize| {
        let mut boxes = std::collections::HashSet::new();
        for q in p {
            let i = (((q.0 - x0) / (x1 - x0)) * m as f64).min(m as f64 - 1.0) as i64;
            let j = (((q.1 - y0) / (y1 - y0)) * m as f64).min(m as f64 - 1.0) as i64;
            boxes.insert((i, j));
        }
        boxes.len() as f64
    };
    (count(fine) / count(coarse)).ln() / (fine as f64 / coarse as f64).ln()
}

/// 95th percentile over the points of the minor/major eigenvalue ratio of the covariance of
/// each point's `k` nearest neighbours (with the point): ≈ 0 on a smooth curve, O(1) on an area.
fn flatness(p: &[(f64, f64)], k: usize) -> f64 {
    let mut ratios: Vec<f64> = p
        .iter()
        .map(|q| {
            let mut d: Vec<(f64, usize)> = p
                .iter()
                .enumerate()
                .map(|(j, r)| ((r.0 - q.0).hypot(r.1 - q.1), j))
                .collect();
            d.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
            let nb: Vec<(f64, f64)> = d[..=k].iter().map(|&(_, j)| p[j]).collect();
            let m = nb.len() as f64;
            let (mx, my) = nb
                .iter()
                .fold((0.0, 0.0), |a, r| (a.0 + r.0 / m, a.1 + r.1 / m));
            let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
            for r in &nb {
                sxx += (r.0 - mx).powi(2);
                syy += (r.1 - my).powi(2);
                sxy += (r.0 - mx) * (r.1 - my);
            }
            let tr = sxx + syy;
            let det = sxx * syy - sxy * sxy;
            let disc = (0.25 * tr * tr - det).max(0.0).sqrt();
            let (big, small) = (0.5 * tr + disc, (0.5 * tr - disc).max(0.0));
            small / big
        })
        .collect();
    ratios.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ratios[(0.95 * (ratios.len() - 1) as f64) as usize]
}

#[test]
fn low_energy_orbits_trace_closed_curves_and_a_chaotic_orbit_fills_an_area() {
    let chain = double();
    // Small oscillations (E 2.4 J above the hanging energy): every orbit lies on smooth
    // invariant curves (one closed curve, or a chain of islands): around each point, its nearest
    // neighbours lie along a line (local PCA: the minor/major variance ratio is tiny), and the
    // box-counting dimension is about 1.
    let start = shell_initial_conditions(&chain, &theta1_up(), -27.0, &grid(3, 3)).unwrap();
    let opts = SectionOptions {
        crossings: 400,
        ..Default::default()
    };
    let (orbits, _) = section_orbits(&chain, &theta1_up(), &start.states, &opts, &mut Silent);
    assert!(orbits.len() >= 3);
    for (i, o) in orbits.iter().enumerate() {
        let p = plane(&chain, o);
        let flat = flatness(&p, 6);
        let d = box_dimension(&p, 8, 32);
        eprintln!("regular orbit {i}: local minor/major variance ratio ≤ {flat:.2e} (95th percentile), box dimension {d:.3}");
        assert!(flat < 1e-2, "orbit {i} is not on a smooth curve ({flat})");
        assert!(d < 1.3, "orbit {i}: dimension {d}");
    }

    // High energy: one chaotic orbit's crossings cover an area.
    let start = shell_initial_conditions(&chain, &theta1_up(), 5.0, &grid(1, 1)).unwrap();
    let o = run(
        &chain,
        &theta1_up(),
        &start.states[0],
        &SectionOptions {
            crossings: 4000,
            ..Default::default()
        },
    );
    let p = plane(&chain, &o);
    let d = box_dimension(&p, 8, 32);
    let flat = flatness(&p[..400], 6);
    eprintln!("chaotic orbit: box-counting dimension {d:.3} from 4000 crossings, local variance ratio {flat:.2} (first 400)");
    assert!(d > 1.75, "dimension {d}");
    assert!(flat > 0.1, "chaotic points look like a curve ({flat})");
}

#[test]
fn stroboscopic_map_of_an_undriven_chain_is_the_flow_at_fixed_period() {
    let chain = double();
    let x0 = [0.5, -0.4, 0.2, 0.0];
    let (t0, period) = (0.3, 0.7);
    let sec = Section::Stroboscopic {
        t0,
        period,
        transient: 0,
    };
    let o = run(
        &chain,
        &sec,
        &x0,
        &SectionOptions {
            crossings: 30,
            ..Default::default()
        },
    );
    assert_eq!(o.len(), 30);
    let mut flow = Flow::new(&chain);
    let mut solver = Dop853::with_tol(1e-13).solver(4);
    let mut y = x0.to_vec();
    let mut t = 0.0;
    let mut worst = 0.0f64;
    for (k, (&tk, x)) in o.t.iter().zip(&o.states).enumerate() {
        let expect = t0 + (k + 1) as f64 * period;
        assert!((tk - expect).abs() < 1e-12);
        t = solver.advance_to(&mut flow, t, &mut y, tk).unwrap();
        for i in 0..4 {
            worst = worst.max((x[i] - y[i]).abs());
        }
    }
    eprintln!("stroboscopic vs direct flow: {worst:.2e}");
    assert!(worst < 1e-9, "{worst:e}");

    // Driven: the energy balance E − E0 − W holds at every sample.
    let mut p = ChainParams::equal_points(1);
    p.drive.torque = Some(Harmonic {
        amplitude: 4.0,
        frequency: 2.0,
        phase: 0.0,
    });
    let driven = Chain::new(p).unwrap();
    let sec = Section::Stroboscopic {
        t0: 0.0,
        period: PI,
        transient: 0,
    };
    let o = run(
        &driven,
        &sec,
        &[0.2, 0.0],
        &SectionOptions {
            crossings: 50,
            ..Default::default()
        },
    );
    assert_eq!(o.len(), 50);
    let e = o.energy_error.iter().fold(0.0f64, |m, &v| m.max(v));
    assert!(e < 1e-9, "driven energy balance {e:e}");
}

/// A transient of N drive periods drops the first N samples and changes nothing else: the
/// samples of the run with the transient are those of the plain run from the (N+1)-th on, bit
/// for bit (same integration, same sample times t0 + k·period).
#[test]
fn a_stroboscopic_transient_drops_whole_drive_periods_and_nothing_else() {
    let mut p = ChainParams::equal_points(1);
    p.damping.absolute = vec![0.5];
    p.drive.torque = Some(Harmonic {
        amplitude: 1.2,
        frequency: 2.0 * PI / 10.0,
        phase: 0.0,
    });
    let driven = Chain::new(p).unwrap();
    let strobe = |transient| Section::Stroboscopic {
        t0: 0.25,
        period: 10.0,
        transient,
    };
    let opts = |crossings| SectionOptions {
        crossings,
        t_end: 1e4,
        ..Default::default()
    };
    let plain = run(&driven, &strobe(0), &[0.2, 0.0], &opts(40));
    let late = run(&driven, &strobe(15), &[0.2, 0.0], &opts(25));
    assert_eq!(plain.len(), 40);
    assert_eq!(late.len(), 25);
    assert_eq!(late.t, plain.t[15..]);
    assert_eq!(late.states, plain.states[15..]);
    assert_eq!(late.t[0], 0.25 + 16.0 * 10.0);
}

/// Without an angle range, a shell samples the part of (−π, π) its energy reaches: at
/// E = −19 J on θ1 = 0, θ2 reaches |θ2| < acos(19/g − 2) = 1.634 rad, so a 2 × 2 grid (refused
/// before: its cell centres at ±π/2 lay outside) has all its points, and an 8 × 5 grid skips 8
/// of 40 (24 before) — the corners where the speed is too large for the energy.
#[test]
fn shells_sample_the_reachable_angles() {
    let chain = double();
    let mut s = grid(2, 2);
    s.angle_range = None;
    let start = shell_initial_conditions(&chain, &theta1_up(), -19.0, &s).unwrap();
    assert_eq!(start.states.len(), 4);
    let reach = (19.0 / 9.81f64 - 2.0).acos();
    let step = 2.0 * PI / 4096.0;
    assert!(
        (start.angle_range.1 - reach).abs() < 2.0 * step,
        "{:?}",
        start.angle_range
    );
    assert!(
        (start.angle_range.0 + reach).abs() < 2.0 * step,
        "{:?}",
        start.angle_range
    );
    let mut s = grid(8, 5);
    s.angle_range = None;
    let start = shell_initial_conditions(&chain, &theta1_up(), -19.0, &s).unwrap();
    assert_eq!(start.skipped.len(), 8);
    // Where the reach is the whole circle (above the energy that lets link 2 over the top),
    // the range stays (−π, π).
    let start = shell_initial_conditions(&chain, &theta1_up(), 5.0, &s).unwrap();
    assert_eq!(start.angle_range, (-PI, PI));
}

#[test]
fn parallel_results_equal_sequential_ones_and_unreachable_points_are_skipped() {
    let chain = double();
    let start = shell_initial_conditions(&chain, &theta1_up(), -20.0, &grid(4, 4)).unwrap();
    assert!(
        !start.skipped.is_empty(),
        "the box corners lie outside the shell"
    );
    assert_eq!(start.states.len() + start.skipped.len(), 16);
    let opts = SectionOptions {
        crossings: 30,
        lyapunov: true,
        ..Default::default()
    };
    let (par, _) = section_orbits(&chain, &theta1_up(), &start.states, &opts, &mut Silent);
    for (x0, p) in start.states.iter().zip(&par) {
        let s = run(&chain, &theta1_up(), x0, &opts);
        assert_eq!(&s, p);
    }
    // Velocity sampling also lands on the shell, with θ̇1 > 0.
    let mut samp = grid(3, 3);
    samp.variables = Variables::Velocity;
    let st = shell_initial_conditions(&chain, &theta1_up(), -10.0, &samp).unwrap();
    for x in &st.states {
        assert!(x[2] > 0.0);
        assert!((chain.energy(0.0, x) + 10.0).abs() < 1e-12);
    }
    // Below the section's least energy: an error naming both.
    let e = shell_initial_conditions(&chain, &theta1_up(), -40.0, &grid(3, 3)).unwrap_err();
    assert!(e.to_string().contains("-29.43"), "{e}");
}

fn pendula() -> Command {
    Command::cargo_bin("pendula").unwrap()
}

/// Exit 2, one line on stderr mentioning `needle`, and nothing written.
fn refused(args: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = pendula()
        .current_dir(dir.path())
        .arg("poincare")
        .args(args)
        .args(["-o", "out/p.h5", "--plot", "out/p.png"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{args:?}: `{err}` lacks `{needle}`");
    let left: Vec<_> = walk(dir.path());
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            v.extend(walk(&p));
        } else {
            v.push(p);
        }
    }
    v
}

#[test]
fn cli_refuses_bad_input_with_one_line() {
    refused(&["--energy", "-40"], "least energy on the section");
    refused(
        &["--energy", "0", "--section", "phi2"],
        "unknown coordinate `phi2`",
    );
    refused(&["--energy", "0", "--section", "theta3"], "--section");
    refused(
        &[
            "--theta",
            "0.1,0.1",
            "--section",
            "omega1",
            "--value",
            "50",
            "--t-end",
            "3",
        ],
        "no orbit crossed the section",
    );
    refused(
        &["--theta", "0.1,0.1", "--section", "theta1", "--value", "3"],
        "never reaches the section",
    );
    refused(&["--energy", "0", "--crossings", "0"], "--crossings");
    refused(&["--energy", "0", "--t-end", "-1"], "--t-end");
    refused(&["--energy", "0", "--direction", "up"], "--direction");
    refused(&["--energy", "0", "--grid", "0,3"], "--grid");
    refused(&["--energy", "0", "--link", "1"], "--link");
    refused(&["--energy", "0", "--variables", "speed"], "--variables");
    refused(&["--energy", "0", "--stroboscopic"], "--period");
    let driven = [
        "--preset",
        "simple",
        "--torque-amplitude",
        "1",
        "--torque-frequency",
        "1",
        "--theta",
        "0.2",
        "--stroboscopic",
    ];
    for (extra, needle) in [
        (
            &["--transient", "2.5"][..],
            "--transient: must be a whole number",
        ),
        (&["--transient", "-1"][..], "--transient"),
        (&["--transient", "10", "--t-end", "60"][..], "--transient"),
    ] {
        refused(&[&driven[..], extra].concat(), needle);
    }
    refused(&["--energy", "0", "--transient", "3"], "--transient");
    // A grid outside the shell's reach is refused naming the reach.
    refused(
        &["--energy", "-19", "--angle-range", "2.5,3", "--grid", "3,3"],
        "--energy: no sampled point reaches energy -19 J on the section: link 2's angle reaches it only on [-1.6352, 1.6352] rad",
    );
    refused(&["--energy", "0,nan"], "--energy");
}

#[test]
fn cli_writes_hdf5_json_and_figure() {
    let dir = tempfile::tempdir().unwrap();
    let out = pendula()
        .current_dir(dir.path())
        .args([
            "poincare",
            "--energy",
            "-20,5",
            "--grid",
            "3,2",
            "--crossings",
            "40",
            "--lyapunov",
            "-o",
            "p.h5",
            "--plot",
            "p.png",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "poincare");
    assert_eq!(v["shells"].as_array().unwrap().len(), 2);
    assert!(v["max_section_residual"].as_f64().unwrap() < 1e-10);
    assert!(v["max_relative_energy_error"].as_f64().unwrap() < 1e-9);
    let f = hdf5::File::open(dir.path().join("p.h5")).unwrap();
    let g = f.group("poincare/shell_2").unwrap();
    let theta = g.dataset("theta").unwrap();
    let shape = theta.shape();
    assert_eq!(shape[1], 40);
    assert_eq!(shape[2], 2);
    let time: ndarray::Array2<f64> = g.dataset("time").unwrap().read_2d().unwrap();
    assert!(time.iter().all(|t| t.is_finite() && *t > 0.0));
    let th: ndarray::Array3<f64> = theta.read().unwrap();
    assert!(th
        .index_axis(ndarray::Axis(2), 0)
        .iter()
        .all(|v| v.abs() < 1e-10));
    for name in ["orbit", "crossing", "link"] {
        assert!(g.dataset(name).is_ok(), "coordinate {name}");
    }
    let e: f64 = g.attr("energy").unwrap().read_scalar().unwrap();
    assert_eq!(e, 5.0);
    assert!(std::fs::metadata(dir.path().join("p.png")).unwrap().len() > 10_000);
}

/// A stroboscopic section's table names the drive and the transient, not an energy shell.
#[test]
fn cli_stroboscopic_table_names_the_drive_and_the_transient() {
    let dir = tempfile::tempdir().unwrap();
    let out = pendula()
        .current_dir(dir.path())
        .args([
            "poincare",
            "--preset",
            "simple",
            "--damping",
            "0.5",
            "--torque-amplitude",
            "1.2",
            "--torque-frequency",
            "0.6283185307179586",
            "--theta",
            "0.2",
            "--stroboscopic",
            "--transient",
            "20",
            "--crossings",
            "10",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("after a transient of 20 drive periods"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("stroboscopic section ("))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("torque 1.2"), "{line}");
    assert!(line.contains("1 orbits, 10 samples"), "{line}");
    assert!(!text.contains("E = -"), "{text}");
}

/// Issue 48: the λ colouring called an orbit "regular" whose NAFF diffusion index was −2.4: a
/// finite-time exponent below the threshold shows no chaos within T, it does not show an orbit
/// regular. The classes are now "chaotic" (λ_T > threshold) and "not shown chaotic" within the
/// orbits' T, and the criterion and T are said in the JSON (`chaos_criterion`, per shell
/// `chaotic_orbits` + `not_shown_chaotic_orbits` and `lyapunov_time_range`), the file (group
/// attribute `chaos_criterion`, the `chaotic` variable's description) and the figure's legend;
/// the stored numbers (`lyapunov`, `chaotic`) are what they were.
#[test]
fn chaos_colouring_states_its_criterion_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = pendula()
        .current_dir(dir.path())
        .args([
            "poincare",
            "--energy",
            "-15,9.81",
            "--grid",
            "3,2",
            "--crossings",
            "60",
            "--lyapunov",
            "-o",
            "p.h5",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let criterion = v["chaos_criterion"].as_str().expect("a criterion");
    assert!(
        criterion.contains("> 0.05 s-1") && criterion.contains("not shown chaotic within T"),
        "{criterion}"
    );
    let f = hdf5::File::open(dir.path().join("p.h5")).unwrap();
    let g = f.group("poincare").unwrap();
    let stored = g
        .attr("chaos_criterion")
        .unwrap()
        .read_scalar::<hdf5::types::VarLenUnicode>()
        .unwrap();
    assert_eq!(stored.as_str(), criterion);
    for (k, shell) in v["shells"].as_array().unwrap().iter().enumerate() {
        let s = g.group(&format!("shell_{}", k + 1)).unwrap();
        let lyap: Vec<f64> = s.dataset("lyapunov").unwrap().read_raw().unwrap();
        let chaotic: Vec<i64> = s.dataset("chaotic").unwrap().read_raw().unwrap();
        let t_end: Vec<f64> = s.dataset("t_end").unwrap().read_raw().unwrap();
        // The verdict is the exponent against the threshold, as before.
        for (l, c) in lyap.iter().zip(&chaotic) {
            assert_eq!(*c, i64::from(*l > 0.05), "{l}");
        }
        let n_chaotic = chaotic.iter().filter(|&&c| c == 1).count() as u64;
        assert_eq!(shell["chaotic_orbits"].as_u64(), Some(n_chaotic));
        assert_eq!(
            shell["not_shown_chaotic_orbits"].as_u64(),
            Some(lyap.len() as u64 - n_chaotic)
        );
        let range = &shell["lyapunov_time_range"];
        let lo = t_end.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = t_end.iter().copied().fold(0.0, f64::max);
        assert_eq!(range[0].as_f64(), Some(lo), "{range}");
        assert_eq!(range[1].as_f64(), Some(hi), "{range}");
        let meaning = s
            .dataset("chaotic")
            .unwrap()
            .attr("long_name")
            .unwrap()
            .read_scalar::<hdf5::types::VarLenUnicode>()
            .unwrap();
        assert!(
            meaning.contains("not shown chaotic") && !meaning.contains("regular ("),
            "{meaning}"
        );
    }
}

/// The figure's legend and subtitle name the criterion and the time, never "regular".
#[test]
fn chaos_legend_says_not_shown_chaotic_within_t() {
    use pendula::analysis::poincare::{poincare, PoincareOptions};
    use pendula::plot::PoincareFigure;
    let chain = double();
    let opts = PoincareOptions {
        section: theta1_up(),
        energies: vec![-15.0],
        sampling: grid(2, 2),
        initial: vec![],
        orbit: SectionOptions {
            crossings: 30,
            lyapunov: true,
            ..Default::default()
        },
        chaos_threshold: 0.05,
    };
    let r = poincare(&chain, &opts, &mut Silent).unwrap();
    let fig = PoincareFigure::of_result("t", &chain, &opts, &r);
    assert_eq!(fig.legend.0, "chaotic: λ(T) > 0.05 s⁻¹");
    assert!(
        fig.legend.1.starts_with("not shown chaotic within T = ")
            && fig.legend.1.contains("≤ 0.05"),
        "{}",
        fig.legend.1
    );
    assert!(
        fig.subtitle.contains("not shown chaotic"),
        "{}",
        fig.subtitle
    );
    assert!(!format!("{} {}", fig.legend.1, fig.subtitle).contains("regular orbits"));
}
