//! Fast chaos indicators: SALI and GALI_k (Skokos, J. Phys. A 34, 10029 (2001); Skokos, Bountis &
//! Antonopoulos, Physica D 231, 30 (2007)).
//!
//! k deviation vectors are integrated with the state and normalized (not orthogonalized) every
//! τ, so they keep their directions and all of them align with the most unstable one on a chaotic
//! orbit. `SALI = min(‖u₁ + u₂‖, ‖u₁ − u₂‖)` of the first two; `GALI_j` (j = 2..k) is the volume
//! of the parallelotope spanned by the first j unit vectors, `Π_{i≤j} |R_ii|` of their QR
//! factorization. On a chaotic orbit `SALI ∝ e^{−(λ₁−λ₂)t}` and `GALI_j ∝ e^{−Σ_{i≤j}(λ₁−λ_i)t}`
//! fall to round-off (~1e-16); on a regular orbit of an N-dof Hamiltonian system SALI and GALI_j,
//! j ≤ N, stay bounded away from 0, while GALI_j, j > N, decays as a power law `t^{−2(j−N)}`.
//!
//! **Resolution.** Each unit vector carries ~16 significant digits, so a component orthogonal to
//! the others below ~1e-16 of its length is not resolved: SALI and GALI_2 bottom out near 1e-16,
//! and the factors of GALI_j (j > 2) below ~1e-16 are round-off; the run stops when SALI falls
//! below `stop_below`.
//!
//! **Classification** ([`Regularity`], from SALI, the thresholds of Skokos et al. 2004,
//! J. Phys. A 37, 6269): chaotic once SALI < 10⁻⁸ ([`SALI_CHAOTIC`]); regular if SALI stays
//! above 10⁻⁴ ([`SALI_REGULAR`]) over the second half of a run that reached its end time;
//! undecided otherwise (sticky orbits, or a run too short).

use super::driver::{drive, End, Plan, Reducer, Sampling, Step, Tangent, Thinned, Tick};
use super::LyapunovError;
use crate::analysis::lyapunov::Qr;
use crate::analysis::random::SplitMix64;
use crate::integrate::Method;
use crate::model::System;
use crate::observe::Observer;
use ndarray::Array2;
use serde::Serialize;

/// SALI below this: chaotic.
pub const SALI_CHAOTIC: f64 = 1e-8;
/// SALI above this over the second half of the run: regular.
pub const SALI_REGULAR: f64 = 1e-4;

/// Options of [`indicators`]. Defaults: `tau = 0.1` s, `time = 200` s, `k = 2`,
/// `stop_below = Some(1e-14)`, `seed = 7`, `max_history = 10_000`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AlignmentOptions {
    /// Normalization and sampling interval τ (s); a multiple of dt for fixed-step methods.
    pub tau: f64,
    /// End time (s).
    pub time: f64,
    /// Deviation vectors (2 ≤ k ≤ dim): SALI from the first two, GALI_2..GALI_k.
    pub k: usize,
    /// Stop once SALI is below this (it has reached round-off).
    pub stop_below: Option<f64>,
    /// Seed of the random initial deviation vectors (orthonormalized).
    pub seed: u64,
    /// Most history points kept (≥ 16), thinned evenly.
    pub max_history: usize,
}

impl Default for AlignmentOptions {
    fn default() -> Self {
        AlignmentOptions {
            tau: 0.1,
            time: 200.0,
            k: 2,
            stop_below: Some(1e-14),
            seed: 7,
            max_history: 10_000,
        }
    }
}

/// Regular / chaotic verdict from SALI (see the module docs for the thresholds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Regularity {
    Chaotic,
    Regular,
    Undecided,
}

impl Regularity {
    pub fn name(&self) -> &'static str {
        match self {
            Regularity::Chaotic => "chaotic",
            Regularity::Regular => "regular",
            Regularity::Undecided => "undecided",
        }
    }
}

/// Levels of [`AlignmentIndices::ladder`]: the run's length and its halvings, down to t_end/32.
pub const LADDER_LEVELS: usize = 6;

/// The verdict a run to `time` (a prefix of this run: τ intervals are the same) would have
/// given.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rung {
    /// The prefix's end (s).
    pub time: f64,
    pub regularity: Regularity,
}

/// SALI and GALI histories with a verdict.
#[derive(Debug, Clone)]
pub struct AlignmentIndices {
    /// Sample times (s), evenly spaced multiples of τ (thinned), starting at 0.
    pub time: Vec<f64>,
    pub sali: Vec<f64>,
    /// GALI_j for j in `orders`, shape (time, order).
    pub gali: Array2<f64>,
    /// 2..=k.
    pub orders: Vec<usize>,
    pub regularity: Regularity,
    /// First interval end with SALI < [`SALI_CHAOTIC`].
    pub chaos_time: Option<f64>,
    /// Smallest SALI over every interval (not only the kept history).
    pub min_sali: f64,
    /// Smallest SALI over the second half of the run.
    pub min_sali_second_half: f64,
    pub steps: u64,
    pub rhs_evaluations: u64,
    pub t_end: f64,
    pub method: Method,
    pub options: AlignmentOptions,
    /// Stopped by `stop_below` (the indicators reached round-off).
    pub stopped_below: bool,
    /// False when the observer stopped the run.
    pub complete: bool,
    /// The verdicts of the prefixes of ⌊n/2^j⌋ of the run's n intervals, j = 0 (the whole run, the same
    /// verdict as `regularity`) up to [`LADDER_LEVELS`] − 1, while a prefix holds 4 intervals
    /// or more; ascending in time. How a statistic over many runs shows its convergence.
    pub ladder: Vec<Rung>,
}

/// The `k` start deviation vectors of [`indicators`] (column-major, `k` columns of length `n`):
/// SplitMix64 numbers from `seed`, orthonormalized. Shared with the map lanes
/// ([`lanes::indicators`](crate::analysis::map::lanes)) so both start alike.
pub fn initial_vectors(n: usize, k: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64(seed);
    let mut v0: Vec<f64> = (0..n * k).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
    Qr::new(n, k).factor(&mut v0, true);
    v0
}

/// SALI and GALI_2..GALI_k along the orbit of `sys` from `x0` (see the module docs).
///
/// Errors: [`LyapunovError::Invalid`] for bad options;
/// [`AnalysisError::Blowup`](crate::analysis::AnalysisError::Blowup) for NaN/Inf.
pub fn indicators<S: System>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &AlignmentOptions,
    observer: &mut dyn Observer,
) -> Result<AlignmentIndices, LyapunovError> {
    let n = sys.dim();
    let k = opts.k;
    if k < 2 || k > n {
        return Err(LyapunovError::invalid(
            "k",
            k as f64,
            format!("must be between 2 and the state dimension {n}"),
        ));
    }
    let plan = Plan::timed(
        opts.tau,
        opts.time,
        Sampling::Interval,
        opts.max_history,
        false,
    );
    let m = k - 1;
    let mut first = vec![0.0, 2f64.sqrt()];
    first.extend(std::iter::repeat_n(1.0, m));
    let reducer = Sali {
        method,
        opts,
        n,
        qr: Qr::new(n, k),
        hist: Thinned::new(opts.max_history, &first),
        row: vec![0.0; 2 + m],
        min_sali: f64::INFINITY,
        min_second: f64::INFINITY,
        chaos_time: None,
        chaos_e: None,
        stopped_below: false,
        rungs: Vec::new(),
    };
    drive(sys, method, x0, &plan, reducer, observer)
}

/// SALI/GALI's running state; a history row is (t, SALI, GALI_2..GALI_k).
struct Sali<'a> {
    method: &'a Method,
    opts: &'a AlignmentOptions,
    n: usize,
    qr: Qr,
    hist: Thinned,
    row: Vec<f64>,
    min_sali: f64,
    min_second: f64,
    chaos_time: Option<f64>,
    /// The interval whose end first had SALI < [`SALI_CHAOTIC`].
    chaos_e: Option<u64>,
    stopped_below: bool,
    /// Per ladder level: its intervals, the time of its last one (once reached) and the
    /// smallest SALI over its second half.
    rungs: Vec<(u64, Option<f64>, f64)>,
}

impl<S: System> Reducer<S> for Sali<'_> {
    type Output = AlignmentIndices;

    fn tangent(&self, n: usize) -> Tangent {
        Tangent {
            k: self.opts.k,
            v0: Some(initial_vectors(n, self.opts.k, self.opts.seed)),
        }
    }

    fn interval(&mut self, _sys: &S, tick: Tick, _x: &[f64], v: &mut [f64]) -> Step {
        let (n, k) = (self.n, self.opts.k);
        let Tick { e, t, total, .. } = tick;
        for c in v.chunks_exact_mut(n) {
            let norm = c.iter().map(|x| x * x).sum::<f64>().sqrt();
            c.iter_mut().for_each(|x| *x /= norm);
        }
        let (mut plus, mut minus) = (0.0, 0.0);
        for i in 0..n {
            plus += (v[i] + v[n + i]).powi(2);
            minus += (v[i] - v[n + i]).powi(2);
        }
        let s = plus.sqrt().min(minus.sqrt());
        self.qr.factor(v, false);
        let mut prod = self.qr.rdiag()[0];
        for j in 1..k {
            prod *= self.qr.rdiag()[j];
            self.row[1 + j] = prod;
        }
        self.min_sali = self.min_sali.min(s);
        if 2 * e > total {
            self.min_second = self.min_second.min(s);
        }
        if self.rungs.is_empty() {
            self.rungs = (0..LADDER_LEVELS)
                .map(|j| total >> j)
                .take_while(|&n| n >= 4)
                .map(|n| (n, None, f64::INFINITY))
                .collect();
        }
        for r in &mut self.rungs {
            if 2 * e > r.0 && e <= r.0 {
                r.2 = r.2.min(s);
            }
            if e == r.0 {
                r.1 = Some(t);
            }
        }
        if self.chaos_time.is_none() && s < SALI_CHAOTIC {
            self.chaos_time = Some(t);
            self.chaos_e = Some(e);
        }
        let below = self.opts.stop_below.is_some_and(|b| s < b);
        if self.hist.due(e) || below || e == total {
            (self.row[0], self.row[1]) = (t, s);
            self.hist.push(e, &self.row);
        }
        self.stopped_below = below;
        Step {
            recorded: false,
            stop: below,
        }
    }

    fn finish(self, _sys: &S, end: End<'_>) -> AlignmentIndices {
        let orders: Vec<usize> = (2..=self.opts.k).collect();
        let m = orders.len();
        let regularity = if self.chaos_time.is_some() {
            Regularity::Chaotic
        } else if end.complete && end.done == end.total && self.min_second > SALI_REGULAR {
            Regularity::Regular
        } else {
            Regularity::Undecided
        };
        // A prefix's verdict: chaotic if SALI fell below the threshold within it; regular if
        // it was reached (by a whole run: to its end) and its second half stayed above the
        // regular threshold.
        let whole = end.complete && end.done == end.total;
        let ladder = self
            .rungs
            .iter()
            .enumerate()
            .rev()
            .map(|(j, &(n, at, min))| {
                let reached = if j == 0 { whole } else { at.is_some() };
                let regularity = if self.chaos_e.is_some_and(|c| c <= n) {
                    Regularity::Chaotic
                } else if reached && min > SALI_REGULAR {
                    Regularity::Regular
                } else {
                    Regularity::Undecided
                };
                let time = at.unwrap_or(n as f64 * self.opts.tau);
                Rung { time, regularity }
            })
            .collect();
        let time = self.hist.column(0);
        let rows = time.len();
        let gali = self.hist.columns_from(2);
        AlignmentIndices {
            time,
            sali: self.hist.column(1),
            gali: Array2::from_shape_vec((rows, m), gali).expect("shape"),
            orders,
            regularity,
            chaos_time: self.chaos_time,
            min_sali: self.min_sali,
            min_sali_second_half: self.min_second,
            steps: end.stats.steps,
            rhs_evaluations: end.stats.evals,
            t_end: end.t_end,
            method: *self.method,
            options: *self.opts,
            stopped_below: self.stopped_below,
            complete: end.complete,
            ladder,
        }
    }
}

/// SALI/GALI as a type (its [`ChainRun`](super::ChainRun) registration).
pub struct SaliEstimator;

super::chain_estimator!(
    /// [`indicators`] for a planar chain from `(θ, θ̇)`; Gauss–Legendre runs in canonical
    /// coordinates (the indicators' verdict is coordinate independent).
    chain_indicators,
    SaliEstimator,
    AlignmentOptions,
    AlignmentIndices,
    indicators
);
