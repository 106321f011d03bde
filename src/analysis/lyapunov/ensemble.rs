//! Ensembles of nearby initial conditions: the spread of finite-time exponents across members is
//! the honest error bar between implementations that round differently (docs/benchmarks.md, L).
//!
//! Members are independent and deterministic, run in parallel with rayon and reduced in member
//! order, so the result is identical for any number of threads.

use super::{Lyapunov, LyapunovError};
use crate::analysis::random::SplitMix64;
use crate::observe::{Cancel, Control, Observer};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Defaults: 16 members, `epsilon = 1e-10`, `seed = 1`, all components perturbed, rayon's global
/// pool. Member 0 is the unperturbed `x0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnsembleOptions {
    pub members: usize,
    /// Euclidean size of each perturbation.
    pub epsilon: f64,
    /// Seed of the SplitMix64 stream that draws the perturbation directions.
    pub seed: u64,
    /// Perturb only the first this many components (e.g. N: the angles); `None` = all.
    pub perturbed_components: Option<usize>,
    /// Worker threads; `None` = rayon's global pool. Results do not depend on it.
    pub threads: Option<usize>,
}

impl Default for EnsembleOptions {
    fn default() -> Self {
        EnsembleOptions {
            members: 16,
            epsilon: 1e-10,
            seed: 1,
            perturbed_components: None,
            threads: None,
        }
    }
}

/// Ensemble mean ± standard error per exponent, with every member's full result.
#[derive(Debug, Clone)]
pub struct Ensemble {
    pub initial_conditions: Vec<Vec<f64>>,
    /// Members in order (fewer than requested if the run was stopped before some started).
    pub members: Vec<Lyapunov>,
    pub mean: Vec<f64>,
    /// Sample standard deviation across members (the scatter of one run).
    pub std: Vec<f64>,
    /// `std / √M`, the error of the mean.
    pub standard_error: Vec<f64>,
    pub options: EnsembleOptions,
    pub complete: bool,
}

/// The members' initial conditions: `x0`, then `x0 + ε u_m` with `u_m` a unit vector (in the
/// perturbed components) drawn from SplitMix64 seeded by `seed` and the member index.
pub fn ensemble_initial_conditions(x0: &[f64], opts: &EnsembleOptions) -> Vec<Vec<f64>> {
    let p = opts.perturbed_components.unwrap_or(x0.len()).min(x0.len());
    (0..opts.members)
        .map(|m| {
            let mut x = x0.to_vec();
            if m == 0 || p == 0 {
                return x;
            }
            let mut rng = SplitMix64(opts.seed ^ (m as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
            let u: Vec<f64> = (0..p).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
            let norm = u.iter().map(|v| v * v).sum::<f64>().sqrt();
            for i in 0..p {
                x[i] += opts.epsilon * u[i] / norm;
            }
            x
        })
        .collect()
}

/// Forwards a member's progress to shared counters and its stop request back.
struct Member<'a> {
    done: &'a AtomicU64,
    stop: &'a AtomicBool,
    last: u64,
    /// The ensemble observer's token, so that members stop inside their intervals too.
    cancel: &'a Cancel,
}

impl Observer for Member<'_> {
    fn advance(&mut self, done: u64) -> Control {
        self.done.fetch_add(done - self.last, Ordering::Relaxed);
        self.last = done;
        if self.stop.load(Ordering::Relaxed) {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn cancel(&self) -> Cancel {
        self.cancel.clone()
    }
}

/// Runs `run` on every member's initial condition in parallel and reduces the exponents.
///
/// `run(x, observer)` is one analysis (e.g. `|x, o| chain_spectrum(&chain, &method, x, &opts,
/// o)`), `intervals_per_member` its length in intervals for progress
/// ([`super::LyapunovOptions::intervals`]). The observer is called from this thread; a stop
/// request stops every member (their partial results are kept, `complete = false`). Errors: the
/// first failing member's error, in member order.
pub fn lyapunov_ensemble<F>(
    x0: &[f64],
    opts: &EnsembleOptions,
    intervals_per_member: u64,
    run: F,
    observer: &mut dyn Observer,
) -> Result<Ensemble, LyapunovError>
where
    F: Fn(&[f64], &mut dyn Observer) -> Result<Lyapunov, LyapunovError> + Sync,
{
    if opts.members < 2 {
        return Err(LyapunovError::invalid(
            "members",
            opts.members as f64,
            "an ensemble needs at least 2 members",
        ));
    }
    if !(opts.epsilon.is_finite() && opts.epsilon >= 0.0) {
        return Err(LyapunovError::invalid(
            "epsilon",
            opts.epsilon,
            "must be finite and >= 0",
        ));
    }
    let ics = ensemble_initial_conditions(x0, opts);
    let cancel = observer.cancel();
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let work = || -> Vec<Option<Result<Lyapunov, LyapunovError>>> {
        ics.par_iter()
            .map(|x| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let mut obs = Member {
                    done: &done,
                    stop: &stop,
                    last: 0,
                    cancel: &cancel,
                };
                Some(run(x, &mut obs))
            })
            .collect()
    };
    let pool = match opts.threads {
        Some(t) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(t.max(1))
                .build()
                .map_err(|e| LyapunovError::invalid("threads", t as f64, e.to_string()))?,
        ),
        None => None,
    };
    let total = intervals_per_member * opts.members as u64;
    observer.start(total, "intervals");
    let results = std::thread::scope(|s| {
        let handle = s.spawn(|| {
            let r = match &pool {
                Some(p) => p.install(work),
                None => work(),
            };
            finished.store(true, Ordering::Release);
            r
        });
        while !finished.load(Ordering::Acquire) {
            // Not a plain sleep: nested in a sweep's point this thread is one of the pool's.
            crate::observe::pause(Duration::from_millis(20));
            let d = done.load(Ordering::Relaxed).min(total);
            if observer.advance(d) == Control::Stop {
                stop.store(true, Ordering::Relaxed);
            }
        }
        handle.join().expect("ensemble worker panicked")
    });
    observer.finish();
    let mut members = Vec::with_capacity(results.len());
    let mut complete = !stop.load(Ordering::Relaxed);
    for r in results {
        match r {
            Some(Ok(l)) => {
                complete &= l.complete;
                members.push(l);
            }
            Some(Err(e)) => return Err(e),
            None => complete = false,
        }
    }
    let used: Vec<&Lyapunov> = members.iter().filter(|l| l.averaged_time > 0.0).collect();
    let k = used.first().map_or(0, |l| l.exponents.len());
    let m = used.len() as f64;
    let mut mean = vec![f64::NAN; k];
    let mut std = vec![f64::NAN; k];
    let mut se = vec![f64::NAN; k];
    for i in 0..k {
        mean[i] = used.iter().map(|l| l.exponents[i]).sum::<f64>() / m;
        if used.len() >= 2 {
            let var = used
                .iter()
                .map(|l| (l.exponents[i] - mean[i]).powi(2))
                .sum::<f64>()
                / (m - 1.0);
            std[i] = var.sqrt();
            se[i] = std[i] / m.sqrt();
        }
    }
    Ok(Ensemble {
        initial_conditions: ics,
        members,
        mean,
        std,
        standard_error: se,
        options: *opts,
        complete,
    })
}
