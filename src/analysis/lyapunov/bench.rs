//! Benchmark L (docs/benchmarks.md) as a library call, so that `pendula bench lyapunov` and
//! `benches/lyapunov.rs` run exactly the same workload and print the same JSON fields.

use super::{chain_spectrum, LyapunovError, LyapunovOptions};
use crate::integrate::Method;
use crate::model::{Chain, ChainParams};
use crate::observe::Silent;
use serde::Serialize;
use std::time::Instant;

/// One benchmark-L measurement: the fields docs/benchmarks.md names for L, plus the setup.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchLyapunov {
    pub benchmark: &'static str,
    pub links: usize,
    pub dt: f64,
    pub q: u64,
    pub t_trans: f64,
    pub t: f64,
    pub exponents: Vec<f64>,
    pub sum_exponents: f64,
    /// Best wall time of the repeats (s): the spectrum run only, no setup or output.
    pub wall_s: f64,
    /// Every repeat's wall time (s).
    pub wall_s_repeats: Vec<f64>,
    /// RK4 steps = n_trans + n_avg.
    pub steps: u64,
    pub steps_per_s: f64,
    pub threads: usize,
    pub energy0: f64,
    pub energy_end: f64,
    pub abs_energy_drift: f64,
}

/// Runs benchmark L `repeats` times on the calling thread: N equal point links (1 kg, 1 m,
/// g = 9.81) released from rest at θ_i = 2.0, RK4 dt = 1e-3, QR every q = 10 steps, transient
/// `t_trans` (default 10 s), averaging `t` (default 200 s). Every repeat gives identical numbers
/// (deterministic); only the wall time varies.
pub fn bench_lyapunov(
    links: usize,
    t_trans: f64,
    t: f64,
    repeats: usize,
) -> Result<BenchLyapunov, LyapunovError> {
    let chain = Chain::new(ChainParams::equal_points(links.max(1)))
        .map_err(|e| LyapunovError::invalid("links", links as f64, e.to_string()))?;
    let n = chain.links();
    let mut x0 = vec![2.0; n];
    x0.extend(vec![0.0; n]);
    let dt = 1e-3;
    let method = Method::Rk4 { dt };
    let opts = LyapunovOptions {
        tau: 10.0 * dt,
        transient: t_trans,
        time: t,
        ..Default::default()
    };
    let mut walls = Vec::new();
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let r = chain_spectrum(&chain, &method, &x0, &opts, &mut Silent)?;
        walls.push(start.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.expect("at least one repeat");
    let wall = walls.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(BenchLyapunov {
        benchmark: "L",
        links: n,
        dt,
        q: 10,
        t_trans: r.transient,
        t: r.averaged_time,
        sum_exponents: r.sum,
        exponents: r.exponents,
        wall_s: wall,
        wall_s_repeats: walls,
        steps: r.counts.steps,
        steps_per_s: r.counts.steps as f64 / wall,
        threads: 1,
        energy0: r.energy.initial,
        energy_end: r.energy.last,
        abs_energy_drift: r.energy.abs_drift,
    })
}
