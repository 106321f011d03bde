//! Oracle tests of the Lyapunov analyses (release mode; see the brief for the numbers).

use pendula::analysis::lyapunov::*;
use pendula::integrate::Method;
use pendula::model::{Chain, ChainParams};
use pendula::observe::Silent;

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
    let r = chain_spectrum(&c, &Method::Rk4 { dt: 1e-3 }, &rest(&[2.0; 3]), &opts, &mut Silent)
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
