//! Convergence shown, not assumed: the chaotic fraction's ladder of run lengths (the same runs
//! cut at t_end/2^j) and its trend flag, and λ_max's running-estimate flag, each on a case
//! that is still moving and one that has settled.

use pendula::analysis::convergence::Trend;
use pendula::analysis::measure::chaotic::{chaotic_fraction, ChaoticOptions};
use pendula::analysis::{chain_spectrum, LyapunovOptions};
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

fn options(t_end: f64) -> ChaoticOptions {
    let mut o = ChaoticOptions::default();
    o.indicators.time = t_end;
    o
}

#[test]
fn the_ladder_ends_at_the_runs_own_verdicts_and_flags_a_rising_fraction() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    // E = −10 J at t_end = 100 s: most chaotic orbits need longer than 50 s for SALI to fall
    // below 1e-8, so the fraction is still rising over the last doubling.
    let rows = chaotic_fraction(&chain, &[-10.0, -20.0], 48, 1, &options(100.0)).unwrap();
    let hot = &rows[0];
    let top = hot.ladder.last().unwrap();
    assert_eq!(top.time, 100.0);
    assert_eq!((top.chaotic, top.regular), (hot.chaotic, hot.regular));
    assert_eq!(top.fraction.to_bits(), hot.fraction.to_bits());
    assert_eq!(hot.ladder.len(), 6);
    let times: Vec<f64> = hot.ladder.iter().map(|l| l.time).collect();
    // ⌊1000/2^j⌋ intervals of τ = 0.1 s.
    assert_eq!(times, vec![3.1, 6.2, 12.5, 25.0, 50.0, 100.0]);
    // A chaotic verdict at t is one at every longer t: the chaotic count never falls.
    for w in hot.ladder.windows(2) {
        assert!(w[1].chaotic >= w[0].chaotic);
    }
    let half = hot.ladder[hot.ladder.len() - 2].fraction;
    assert!(half < hot.wilson.0, "{half} vs {:?}", hot.wilson);
    assert_eq!(hot.trend, Trend::Rising);
    // E = −20 J: every start regular at every rung that decides it: settled at 0.
    let cold = &rows[1];
    assert_eq!(cold.chaotic, 0);
    assert_eq!(cold.trend, Trend::Settled);
}

#[test]
fn a_longer_run_settles_the_same_shell() {
    // The same shell and starts as above, run 16 times longer: the last doubling moves the
    // fraction by less than its interval.
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let rows = chaotic_fraction(&chain, &[-10.0], 48, 1, &options(1600.0)).unwrap();
    assert_eq!(rows[0].trend, Trend::Settled, "{:?}", rows[0].ladder);
    assert!(rows[0].fraction > 0.8);
}

#[test]
fn lambda_max_running_estimate_flag() {
    let chain = Chain::new(ChainParams::equal_points(2)).unwrap();
    let method = Method::Rk4 { dt: 0.001 };
    let run = |theta: [f64; 2], t_end: f64| {
        let opts = LyapunovOptions {
            time: t_end,
            k: Some(1),
            ..LyapunovOptions::default()
        };
        chain_spectrum(
            &chain,
            &method,
            &[theta[0], theta[1], 0.0, 0.0],
            &opts,
            &mut Silent,
        )
        .unwrap()
    };
    // A regular orbit over 1000 s: λ_max is zero within its error bar and no longer moves by
    // more than that bar.
    let regular = run([0.1, 0.1], 1000.0);
    let (half, trend) = regular.trend(0);
    assert!(half.is_finite());
    assert!(regular.exponents[0].abs() < 2.0 * regular.standard_error[0]);
    assert_eq!(trend, Trend::Settled);
    // The chaotic sea at θ = (2, 2) over 4000 s: the half-run value is inside the interval.
    let chaotic = run([2.0, 2.0], 4000.0);
    let (_, trend) = chaotic.trend(0);
    assert_eq!(trend, Trend::Settled, "{:?}", chaotic.exponents);
}

/// A still-moving λ_max: the Baker–Gollub pendulum at A = 1.2515… (the 59th point of
/// analyses/baker-gollub-lambda-sweep.toml) wanders chaotically before it settles on a
/// periodic attractor, so its running estimate is still falling at the end of the run: about
/// 0.09 s⁻¹ at half the averaging time, −0.008 at its end, far outside the end's error bar.
#[test]
fn lambda_max_still_falling_after_transient_chaos() {
    use pendula::run::execute;
    use pendula::run::sweep::{scalars, trend_of};
    let amplitude = 0.9 + 58.0 * (0.6 / 99.0);
    let text = format!(
        "kind = \"lyapunov\"\n[model]\npreset = \"simple\"\ngravity = 1.0\nlength = 1.0\nmass = 1.0\n\
         [model.damping]\nabsolute = 0.5\n[model.drive.torque]\namplitude = {amplitude}\n\
         frequency = 0.6666666666666666\n[initial]\ntheta = [0.2]\n[integrator]\nmethod = \"rk4\"\n\
         dt = 0.01\n[lyapunov]\nestimator = \"tangent\"\ntransient = 300.0\nt_end = 2300.0\ntau = 0.1\n"
    );
    let spec = pendula::spec::parse(&text, "<test>")
        .unwrap()
        .validate()
        .unwrap();
    let out = execute(&spec, &mut Silent).unwrap();
    // The numbers a sweep keeps of the run: λ_max at half the time, its trend, the exponents.
    let s = scalars(&out);
    let one = |name: &str| {
        s.iter()
            .find(|x| x.name == name)
            .unwrap_or_else(|| panic!("scalar {name}"))
            .values
            .clone()
    };
    let (half, trend, exponents) = (
        one("lambda_max_half")[0],
        trend_of(one("lambda_max_trend")[0]),
        one("lambda"),
    );
    assert_eq!(trend, Trend::Falling, "{half} → {exponents:?}");
    assert!(half > 0.05 && exponents[0] < 0.0, "{half} → {exponents:?}");
}
