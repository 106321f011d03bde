//! Covariant Lyapunov vectors by Ginelli's method (Ginelli et al., PRL 99, 130601 (2007);
//! Kuptsov & Parlitz, J. Nonlinear Sci. 22, 727 (2012)).
//!
//! The QR spectrum's run ([`super::spectrum`]) is the forward pass: after the forward
//! transient the Gram–Schmidt vectors Q have converged to the backward Lyapunov vectors; over
//! the averaging window every interval's R factor is kept (packed upper triangle) and Q at the
//! sample times. The run then goes on for the backward transient, keeping R only. The backward
//! pass starts from a fixed pseudo-random upper-triangular C at the run's end and iterates
//! `C_{e−1} = R_e⁻¹ C_e` with unit columns: after the backward transient the columns of
//! `V_e = Q_e C_e` are the covariant vectors, the intrinsic directions of each exponent (the
//! same for any norm; only their angles depend on the Euclidean metric of the run's
//! coordinates). The norm a column loses in one step is its growth over that interval, so the
//! local growth rate `γ_i(e) = −ln‖R_e⁻¹ c_i‖ / τ` averages to λ_i.
//!
//! Memory: `k(k+1)/2` numbers per interval of the window and the backward transient, and
//! `n·k + n` per sample; the spec's budget check ([`covariant_bytes`]) refuses a window that
//! would not fit before the run starts.
//!
//! Two exponents that are equal (the zero pair of a conservative chain: along the flow and
//! across the energy shell) share a two-dimensional Oseledets space in which the flow
//! direction is the one covariant line; a shear couples the other direction to it, so
//! both vectors of the pair converge to the flow direction, only algebraically (∝ 1/t), not
//! exponentially as separated exponents do.
//!
//! **Error bars** (README "Error bars"). The angle statistics (the median of the smallest
//! unstable–stable angle and of each pair's angle, the near-tangency fraction) get 95 %
//! confidence intervals by batch means: the samples are cut into B contiguous blocks (B the
//! spectrum's `blocks`, so a block spans window/B seconds), the statistic is taken in each block,
//! and the interval is the whole window's statistic ± t₀.₉₇₅,B−1 · sd(blocks)/√B, clipped to the
//! statistic's range: deterministic, no seed, the same for any thread count. It assumes blocks
//! longer than the angles' correlation time. The backward iteration's convergence is the
//! largest angle, per vector over the samples, between the vectors of the backward transient b
//! and of b/2 (a second backward pass over the same R factors: the change when the transient
//! doubles). The symplectic residual max |ω(vᵢ, vⱼ)| over the pairs with λᵢ + λⱼ ≠ 0 (which
//! must be ω-orthogonal) is computed for a conservative chain run in canonical coordinates.

use super::driver::{drive, End, Plan, Reducer, Sampling, Span, Step, Tangent, Tick};
use super::spectrum::Spectrum;
use crate::analysis::lyapunov::{
    batch_means_standard_error, Estimator, Lyapunov, LyapunovError, LyapunovOptions, PhaseVolume,
};
use crate::integrate::Method;
use crate::model::System;
use crate::observe::Observer;
use ndarray::{Array2, Array3};
use serde::Serialize;

/// What a covariant-vector run adds to the spectrum's options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CovariantOptions {
    /// The backward transient (s): intervals run after the averaging window whose R factors
    /// bring the coefficients C onto the covariant vectors before the window is reached.
    pub backward_transient: f64,
    /// Most sample times in the window (evenly spaced interval ends).
    pub samples: usize,
    /// Pairs (i, j) of vectors (0-based) whose angle is reported at every sample.
    pub pairs: Vec<(usize, usize)>,
    /// A minimal angle below this (rad) counts as a near-tangency.
    pub tangency_angle: f64,
}

impl Default for CovariantOptions {
    fn default() -> Self {
        CovariantOptions {
            backward_transient: 10.0,
            samples: 1000,
            pairs: Vec::new(),
            tangency_angle: 0.1,
        }
    }
}

impl CovariantOptions {
    /// Backward-transient intervals and the sample stride of a window of `n_avg` intervals.
    fn resolve(&self, tau: f64, n_avg: u64) -> Result<(u64, u64), LyapunovError> {
        let b = self.backward_transient;
        if !(b.is_finite() && b >= 0.0) {
            return Err(LyapunovError::invalid(
                "backward_transient",
                b,
                "must be finite and >= 0",
            ));
        }
        if self.samples == 0 {
            return Err(LyapunovError::invalid(
                "vector_samples",
                0.0,
                "must be >= 1",
            ));
        }
        let a = self.tangency_angle;
        if !(a.is_finite() && a > 0.0 && a <= std::f64::consts::FRAC_PI_2) {
            return Err(LyapunovError::invalid(
                "tangency_angle",
                a,
                "must be in (0, pi/2] rad",
            ));
        }
        let stride = n_avg.div_ceil(self.samples as u64).max(1);
        Ok(((b / tau).round() as u64, stride))
    }
}

/// Bytes a covariant-vector run keeps: R factors of the window and the backward transient,
/// Q, the state and the results at each sample, and the second backward pass's vectors (the
/// convergence check) (for the spec's memory budget).
pub fn covariant_bytes(n: usize, k: usize, tau: f64, time: f64, opts: &CovariantOptions) -> f64 {
    let n_avg = (time / tau).round().max(1.0);
    let back = (opts.backward_transient / tau).round().max(0.0);
    let kf = k as f64;
    let check = 8.0 * n_avg.min(opts.samples as f64) * (n * k) as f64;
    8.0 * (n_avg + back) * kf * (kf + 1.0) / 2.0
        + covariant_sample_bytes(n, k, tau, time, opts)
        + check
}

/// Of [`covariant_bytes`], what the samples hold (Q, the state and the results at each):
/// what a result file's record copies of them while it is written.
pub fn covariant_sample_bytes(
    n: usize,
    k: usize,
    tau: f64,
    time: f64,
    opts: &CovariantOptions,
) -> f64 {
    let n_avg = (time / tau).round().max(1.0);
    let samples = n_avg.min(opts.samples as f64);
    let (n, k) = (n as f64, k as f64);
    let per_sample = n * k + n + 2.0 * k + 2.0 + opts.pairs.len() as f64 + n * k;
    8.0 * samples * per_sample
}

/// Covariant Lyapunov vectors along an orbit, with the spectrum of the same run.
#[derive(Debug, Clone)]
pub struct Covariant {
    /// The QR spectrum over the averaging window (bit for bit the plain spectrum's exponents;
    /// its counts and energy check cover the whole run, the backward transient included).
    pub spectrum: Lyapunov,
    /// Sample times (s).
    pub time: Vec<f64>,
    /// The state at each sample, shape (time, component).
    pub state: Array2<f64>,
    /// The unit covariant vectors, shape (time, index, component); each vector's sign puts its
    /// largest component positive.
    pub vectors: Array3<f64>,
    /// Each vector's growth rate over the interval τ ending at each sample (1/s), shape
    /// (time, index).
    pub growth: Array2<f64>,
    /// The local growth rates averaged over the whole window (every interval, 1/s), and
    /// their batch-means standard errors (the spectrum's B blocks).
    pub growth_mean: Vec<f64>,
    pub growth_standard_error: Vec<f64>,
    /// Indices (0-based) of the exponents counted as expanding (λ > 3σ), neutral and
    /// contracting (λ < −3σ), σ the batch-means standard error.
    pub unstable: Vec<usize>,
    pub neutral: Vec<usize>,
    pub stable: Vec<usize>,
    /// The smallest principal angle between the unstable and stable subspaces at each
    /// sample (rad); `None` when either is empty.
    pub min_angle: Option<Vec<f64>>,
    pub pairs: Vec<(usize, usize)>,
    /// The angle between the two lines of each pair at each sample (rad, in [0, π/2]), shape
    /// (time, pair).
    pub pair_angles: Array2<f64>,
    pub tangency_angle: f64,
    /// The fraction of samples whose `min_angle` is below `tangency_angle`.
    pub tangency_fraction: Option<f64>,
    /// The backward transient actually run (s; shorter than asked only when stopped).
    pub backward_transient: f64,
    /// The blocks of the batch-means confidence intervals (the spectrum's B).
    pub ci_blocks: usize,
    /// The median of `min_angle` (rad) and its 95 % batch-means interval [lo, hi].
    pub min_angle_median: Option<f64>,
    pub min_angle_median_ci: Option<[f64; 2]>,
    /// The 95 % batch-means interval of `tangency_fraction`.
    pub tangency_fraction_ci: Option<[f64; 2]>,
    /// Each pair's median angle (rad) and its 95 % batch-means interval.
    pub pair_angle_median: Vec<f64>,
    pub pair_angle_median_ci: Vec<[f64; 2]>,
    /// Per vector, the largest angle over the samples (rad) between the vectors of the
    /// backward transient run and of half of it ([`Covariant::backward_check`] s); NaN when
    /// the run has fewer than two backward intervals.
    pub backward_change: Vec<f64>,
    pub backward_check: f64,
    /// The pairs (i, j) that must be ω-orthogonal (λᵢ + λⱼ ≠ 0) and their largest |ω(vᵢ, vⱼ)|
    /// over the samples; empty unless the run is a conservative chain's in canonical
    /// coordinates ([`symplectic_residual`]).
    pub symplectic_pairs: Vec<(usize, usize)>,
    pub symplectic_residual: Vec<f64>,
    /// The averaging window [start, end] (s).
    pub window: [f64; 2],
    pub options: CovariantOptions,
    /// The coordinates of the state and the vectors: `theta, theta_dot`, or `theta, p` where
    /// the chain's run is canonical (Gauss–Legendre).
    pub coordinates: &'static str,
    /// False when a stop request ended the run.
    pub complete: bool,
}

/// The covariant-vector run as a [`ChainRun`](super::ChainRun).
pub struct CovariantEstimator;

impl super::ChainRun for CovariantEstimator {
    type Options = (LyapunovOptions, CovariantOptions);
    type Output = Covariant;
    fn run<V: crate::analysis::route::View>(
        opts: &Self::Options,
        sys: &V,
        method: &Method,
        x0: &[f64],
        observer: &mut dyn Observer,
    ) -> Result<Covariant, LyapunovError> {
        covariant_vectors(sys, method, x0, &opts.0, &opts.1, observer)
    }
}

/// [`covariant_vectors`] for a planar chain from `x0 = (θ, θ̇)`; with Gauss–Legendre the run,
/// its states and its vectors are in canonical coordinates (θ, p), where the method is
/// symplectic (and ω(u, v) = u_θ·v_p − u_p·v_θ reads off the vectors directly).
pub fn chain_covariant(
    chain: &crate::model::Chain,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    cov: &CovariantOptions,
    observer: &mut dyn Observer,
) -> Result<Covariant, LyapunovError> {
    let mut out =
        super::chain_run::<CovariantEstimator>(chain, method, x0, &(*opts, cov.clone()), observer)?;
    if matches!(method, Method::Gauss { .. }) {
        out.coordinates = "theta, p";
        if chain.is_conservative() {
            symplectic_residual(&mut out);
        }
    }
    Ok(out)
}

/// Fills the symplectic residual of `out`, whose vectors are (δθ, δp) of a Hamiltonian flow:
/// ω(u, v) = u_θ·v_p − u_p·v_θ vanishes between Oseledets spaces unless λᵢ + λⱼ = 0, i.e. for
/// every pair (i, j), i < j, but the partners j = k − 1 − i of the full spectrum.
pub fn symplectic_residual(out: &mut Covariant) {
    let (samples, k, n) = out.vectors.dim();
    if k != n || n % 2 != 0 {
        return;
    }
    let h = n / 2;
    let pairs: Vec<(usize, usize)> = (0..k)
        .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
        .filter(|&(i, j)| i + j != k - 1)
        .collect();
    let v = &out.vectors;
    let res = pairs
        .iter()
        .map(|&(i, j)| {
            (0..samples)
                .map(|s| {
                    (0..h)
                        .map(|a| v[(s, i, a)] * v[(s, j, h + a)] - v[(s, i, h + a)] * v[(s, j, a)])
                        .sum::<f64>()
                        .abs()
                })
                .fold(0.0f64, f64::max)
        })
        .collect();
    out.symplectic_pairs = pairs;
    out.symplectic_residual = res;
}

/// The median of the finite values (the element at round((len − 1)/2) once sorted, as the
/// summary's quantiles take it); NaN when none.
pub fn median(v: &[f64]) -> f64 {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * 0.5).round() as usize]
}

/// The 0.975 quantile of Student's t with `dof` degrees of freedom (Cornish–Fisher expansion
/// about the normal's 1.959964; within 2e-4 of the exact value for dof ≥ 9).
pub fn student_t975(dof: usize) -> f64 {
    let z: f64 = 1.959_963_984_540_054;
    let v = dof as f64;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * v)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v)
}

/// The 95 % batch-means interval of `stat` over `values` cut into `blocks` contiguous blocks:
/// stat(all) ± t₀.₉₇₅,B−1 · sd(stat(block))/√B, clipped to [lo, hi]; NaNs when there are fewer
/// than two samples per block or fewer than two blocks.
pub fn batch_ci(
    values: &[f64],
    blocks: usize,
    range: [f64; 2],
    stat: impl Fn(&[f64]) -> f64,
) -> [f64; 2] {
    let n = values.len();
    if blocks < 2 || n < 2 * blocks {
        return [f64::NAN; 2];
    }
    let per: Vec<f64> = (0..blocks)
        .map(|b| stat(&values[b * n / blocks..(b + 1) * n / blocks]))
        .collect();
    let mean = per.iter().sum::<f64>() / blocks as f64;
    let var = per.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (blocks - 1) as f64;
    let half = student_t975(blocks - 1) * (var / blocks as f64).sqrt();
    let c = stat(values);
    [(c - half).max(range[0]), (c + half).min(range[1])]
}

/// The angle (rad, in [0, π/2]) between the lines of the unit vectors `a` and `b`, from the
/// chord 2·asin(|a ∓ b|/2), accurate near 0.
fn line_change(a: ndarray::ArrayView1<f64>, b: ndarray::ArrayView1<f64>) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let chord = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - sign * y).powi(2))
        .sum::<f64>()
        .sqrt();
    2.0 * (0.5 * chord).min(1.0).asin()
}

/// The covariant Lyapunov vectors of `sys` from `x0` (module docs): the forward transient is
/// `opts.transient`, the window `opts.time`, the backward transient and sampling `cov`.
/// `opts.tolerance` does not apply (the window is fixed in advance). Errors: as the spectrum's,
/// and [`LyapunovError::Invalid`] for bad `cov` fields.
pub fn covariant_vectors<S: System + PhaseVolume>(
    sys: &S,
    method: &Method,
    x0: &[f64],
    opts: &LyapunovOptions,
    cov: &CovariantOptions,
    observer: &mut dyn Observer,
) -> Result<Covariant, LyapunovError> {
    if let Some(t) = opts.tolerance {
        return Err(LyapunovError::invalid(
            "tolerance",
            t,
            "does not apply to covariant vectors (their window is fixed in advance)",
        ));
    }
    let (k, n_trans, n_avg) = opts.resolve(sys.manifold_dim())?;
    if sys.dim() != sys.manifold_dim() {
        return Err(LyapunovError::invalid(
            "vectors",
            sys.dim() as f64,
            "covariant vectors are offered for the planar chain's flat phase space",
        ));
    }
    let (n_back, stride) = cov.resolve(opts.tau, n_avg)?;
    for &(i, j) in &cov.pairs {
        if i >= k || j >= k || i == j {
            return Err(LyapunovError::invalid(
                "vector_pairs",
                (i.max(j) + 1) as f64,
                format!("each pair names two different vectors among 1..={k}"),
            ));
        }
    }
    let n = sys.dim();
    let kk = k * (k + 1) / 2;
    let samples = (n_avg / stride) as usize;
    let window_end = n_trans + n_avg;
    let reducer = Clv {
        inner: Spectrum::new(
            sys,
            method,
            opts,
            Estimator::Spectrum,
            k,
            n_trans,
            window_end,
        ),
        n_trans,
        window_end,
        stride,
        n,
        k,
        kk,
        r: Vec::with_capacity((n_avg + n_back) as usize * kk),
        q: Vec::with_capacity(samples * n * k),
        x: Vec::with_capacity(samples * n),
        t: Vec::with_capacity(samples),
        x_window_end: x0.to_vec(),
        t_window_end: 0.0,
        tau: opts.tau,
        blocks: opts.blocks,
        cov,
        n_back,
    };
    let plan = Plan {
        tau: opts.tau,
        span: Span::Intervals(window_end + n_back),
        sampling: Sampling::Interval,
        max_history: opts.max_history,
        work: true,
    };
    drive(sys, method, x0, &plan, reducer, observer)
}

/// The forward pass's store and the spectrum it runs on.
struct Clv<'a, S: System> {
    inner: Spectrum<'a, S>,
    n_trans: u64,
    window_end: u64,
    stride: u64,
    n: usize,
    k: usize,
    kk: usize,
    /// Packed R of every interval after the forward transient, in order.
    r: Vec<f64>,
    /// Q (column-major n × k), the state and the time at each sample.
    q: Vec<f64>,
    x: Vec<f64>,
    t: Vec<f64>,
    /// The state and time at the window's end (the spectrum's Liouville check ends there).
    x_window_end: Vec<f64>,
    t_window_end: f64,
    tau: f64,
    blocks: usize,
    cov: &'a CovariantOptions,
    n_back: u64,
}

impl<S: System + PhaseVolume> Reducer<S> for Clv<'_, S> {
    type Output = Covariant;

    fn tangent(&self, n: usize) -> Tangent {
        self.inner.tangent(n)
    }

    fn init(&mut self, sys: &S, x: &[f64], v: &mut [f64]) {
        self.inner.init(sys, x, v);
    }

    fn interval(&mut self, sys: &S, tick: Tick, x: &[f64], v: &mut [f64]) -> Step {
        let step = self.inner.interval(sys, tick, x, v);
        let e = tick.e;
        if e > self.n_trans {
            let at = self.r.len();
            self.r.resize(at + self.kk, 0.0);
            self.inner.qr.r_packed(&mut self.r[at..]);
            let w = e - self.n_trans;
            if e <= self.window_end && w.is_multiple_of(self.stride) {
                self.q.extend_from_slice(v);
                self.x.extend_from_slice(x);
                self.t.push(tick.t);
            }
            if e == self.window_end {
                self.x_window_end.copy_from_slice(x);
                self.t_window_end = tick.t;
            }
        }
        Step {
            stop: false,
            ..step
        }
    }

    fn finish(self, sys: &S, end: End<'_>) -> Covariant {
        let Clv {
            inner,
            n_trans,
            window_end,
            stride,
            n,
            k,
            kk,
            r,
            q,
            x,
            t,
            x_window_end,
            t_window_end,
            tau,
            blocks,
            cov,
            n_back,
        } = self;
        let done = end.done;
        let reached = done >= window_end;
        let complete = end.complete && done == window_end + n_back;
        // The spectrum as a plain run to the window's end would give it.
        let spectrum = inner.finish(
            sys,
            End {
                x: if reached { &x_window_end } else { end.x },
                t_end: if reached { t_window_end } else { end.t_end },
                done: done.min(window_end),
                ..end
            },
        );
        let window_start = n_trans as f64 * tau;
        let last = done.min(window_end);
        let samples = t.len();
        let (unstable, neutral, stable) = classify(&spectrum.exponents, &spectrum.standard_error);
        let mut out = Backward::new(n, k, samples, &cov.pairs);
        let mut c = backward_start(k);
        let mut prev = vec![0.0; k * k];
        let mut norms = vec![0.0; k];
        let m = (last - n_trans.min(last)) as usize;
        let b = blocks.max(1);
        let mut block_sums = vec![0.0; b * k];
        let mut block_len = vec![0u64; b];
        let mut total = vec![0.0; k];
        // Intervals after the forward transient, newest first: e = n_trans + 1 + idx.
        // The sample (if any) kept at interval end e, for both backward passes.
        let sample_at = |e: u64| {
            let w = e - n_trans;
            (e <= last && w.is_multiple_of(stride))
                .then(|| (w / stride - 1) as usize)
                .filter(|&s| s < samples)
        };
        for idx in (0..r.len() / kk).rev() {
            let e = n_trans + 1 + idx as u64;
            let w = e - n_trans;
            let sample = sample_at(e);
            if let Some(s) = sample {
                out.vectors_at(s, &q[s * n * k..(s + 1) * n * k], &c);
            }
            solve_upper(&r[idx * kk..(idx + 1) * kk], k, &c, &mut prev, &mut norms);
            if e <= last {
                let blk = ((w - 1) as usize * b) / m.max(1);
                block_len[blk] += 1;
                for i in 0..k {
                    let g = -norms[i].ln() / tau;
                    total[i] += g;
                    block_sums[blk * k + i] += g;
                    if let Some(s) = sample {
                        out.growth[(s, i)] = g;
                    }
                }
            }
            std::mem::swap(&mut c, &mut prev);
        }
        // The convergence check: a second backward pass from half the backward transient.
        let back_run = done.saturating_sub(window_end);
        let half = back_run / 2;
        let mut backward_change = vec![f64::NAN; k];
        if half >= 1 && done >= window_end {
            let mut alt = Backward::new(n, k, samples, &[]);
            let mut c = backward_start(k);
            let start = (window_end + half - n_trans) as usize;
            for idx in (0..start).rev() {
                if let Some(s) = sample_at(n_trans + 1 + idx as u64) {
                    alt.vectors_at(s, &q[s * n * k..(s + 1) * n * k], &c);
                }
                solve_upper(&r[idx * kk..(idx + 1) * kk], k, &c, &mut prev, &mut norms);
                std::mem::swap(&mut c, &mut prev);
            }
            for (i, ch) in backward_change.iter_mut().enumerate() {
                *ch = (0..samples)
                    .map(|s| {
                        line_change(
                            out.vectors.slice(ndarray::s![s, i, ..]),
                            alt.vectors.slice(ndarray::s![s, i, ..]),
                        )
                    })
                    .fold(0.0f64, f64::max);
            }
        }
        let growth_mean: Vec<f64> = total.iter().map(|s| s / m.max(1) as f64).collect();
        let growth_standard_error = block_standard_errors(&block_sums, &block_len, k);
        let min_angle = out.angles(&unstable, &stable, &cov.pairs);
        let tangency_fraction = min_angle
            .as_ref()
            .filter(|a| !a.is_empty())
            .map(|a| a.iter().filter(|&&v| v < cov.tangency_angle).count() as f64 / a.len() as f64);
        let quarter = std::f64::consts::FRAC_PI_2;
        let min_angle_median = min_angle.as_deref().map(median);
        let min_angle_median_ci = min_angle
            .as_deref()
            .map(|a| batch_ci(a, b, [0.0, quarter], median));
        let below = |a: &[f64]| {
            a.iter().filter(|&&v| v < cov.tangency_angle).count() as f64 / a.len().max(1) as f64
        };
        let tangency_fraction_ci = min_angle
            .as_deref()
            .filter(|a| !a.is_empty())
            .map(|a| batch_ci(a, b, [0.0, 1.0], below));
        let columns: Vec<Vec<f64>> = (0..cov.pairs.len())
            .map(|p| out.pair_angles.column(p).to_vec())
            .collect();
        let pair_angle_median = columns.iter().map(|c| median(c)).collect();
        let pair_angle_median_ci = columns
            .iter()
            .map(|c| batch_ci(c, b, [0.0, quarter], median))
            .collect();
        Covariant {
            spectrum,
            state: Array2::from_shape_vec((samples, n), x).expect("n per sample"),
            time: t,
            vectors: out.vectors,
            growth: out.growth,
            growth_mean,
            growth_standard_error,
            unstable,
            neutral,
            stable,
            min_angle,
            pairs: cov.pairs.clone(),
            pair_angles: out.pair_angles,
            tangency_angle: cov.tangency_angle,
            tangency_fraction,
            backward_transient: back_run as f64 * tau,
            ci_blocks: b,
            min_angle_median,
            min_angle_median_ci,
            tangency_fraction_ci,
            pair_angle_median,
            pair_angle_median_ci,
            backward_change,
            backward_check: half as f64 * tau,
            symplectic_pairs: Vec::new(),
            symplectic_residual: Vec::new(),
            window: [window_start, last as f64 * tau],
            options: cov.clone(),
            coordinates: "theta, theta_dot",
            complete,
        }
    }
}

/// The backward pass's start C: a fixed pseudo-random upper-triangular k × k matrix
/// (column-major, unit columns), so that no vector starts aligned with a Gram–Schmidt
/// direction by construction.
fn backward_start(k: usize) -> Vec<f64> {
    let mut c = vec![0.0; k * k];
    let mut rng = crate::analysis::random::SplitMix64(0x434c_5673);
    for j in 0..k {
        for i in 0..=j {
            c[j * k + i] = if i == j {
                1.0
            } else {
                rng.next_f64() * 2.0 - 1.0
            };
        }
        normalise(&mut c[j * k..(j + 1) * k]);
    }
    c
}

/// Per exponent, the batch-means standard error of its growth rates over the blocks that
/// hold intervals (`block_sums`: block-major sums of k rates, `block_len`: intervals per block).
fn block_standard_errors(block_sums: &[f64], block_len: &[u64], k: usize) -> Vec<f64> {
    let b = block_len.len();
    (0..k)
        .map(|i| {
            let means: Vec<f64> = (0..b)
                .filter(|&blk| block_len[blk] > 0)
                .map(|blk| block_sums[blk * k + i] / block_len[blk] as f64)
                .collect();
            batch_means_standard_error(&means)
        })
        .collect()
}

/// Expanding (λ > 3σ), neutral and contracting (λ < −3σ) exponents; a NaN σ counts as 0.
fn classify(l: &[f64], se: &[f64]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (mut u, mut z, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (&l, &e)) in l.iter().zip(se).enumerate() {
        let e = if e.is_finite() { e } else { 0.0 };
        if l > 3.0 * e && l > 0.0 {
            u.push(i);
        } else if l < -3.0 * e && l < 0.0 {
            s.push(i);
        } else {
            z.push(i);
        }
    }
    (u, z, s)
}

fn normalise(v: &mut [f64]) -> f64 {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    for x in v.iter_mut() {
        *x /= norm;
    }
    norm
}

/// `prev = R⁻¹ c` column by column (c upper triangular, k × k column-major; R packed), each
/// column then scaled to unit norm, its norm before in `norms`.
fn solve_upper(r: &[f64], k: usize, c: &[f64], prev: &mut [f64], norms: &mut [f64]) {
    let at = |i: usize, j: usize| r[j * (j + 1) / 2 + i];
    for j in 0..k {
        let (cj, pj) = (&c[j * k..(j + 1) * k], &mut prev[j * k..(j + 1) * k]);
        pj.fill(0.0);
        for i in (0..=j).rev() {
            let mut s = cj[i];
            for l in i + 1..=j {
                s -= at(i, l) * pj[l];
            }
            pj[i] = s / at(i, i);
        }
        norms[j] = normalise(pj);
    }
}

/// The backward pass's results, filled sample by sample.
struct Backward {
    n: usize,
    k: usize,
    vectors: Array3<f64>,
    growth: Array2<f64>,
    pair_angles: Array2<f64>,
}

impl Backward {
    fn new(n: usize, k: usize, samples: usize, pairs: &[(usize, usize)]) -> Backward {
        Backward {
            n,
            k,
            vectors: Array3::zeros((samples, k, n)),
            growth: Array2::from_elem((samples, k), f64::NAN),
            pair_angles: Array2::zeros((samples, pairs.len())),
        }
    }

    /// Once every sample's vectors are in: each pair's angle per sample (into `pair_angles`),
    /// and the smallest angle between the expanding and contracting subspaces per sample
    /// (`None` unless both are present).
    fn angles(
        &mut self,
        unstable: &[usize],
        stable: &[usize],
        pairs: &[(usize, usize)],
    ) -> Option<Vec<f64>> {
        let samples = self.growth.nrows();
        let min_angle = (!unstable.is_empty() && !stable.is_empty()).then(|| {
            (0..samples)
                .map(|s| self.subspace_angle(s, unstable, stable))
                .collect::<Vec<f64>>()
        });
        for s in 0..samples {
            for (p, &(i, j)) in pairs.iter().enumerate() {
                self.pair_angles[(s, p)] = self.subspace_angle(s, &[i], &[j]);
            }
        }
        min_angle
    }

    /// The vectors `Q c_j` at sample `s`, signed so that the largest component is positive.
    fn vectors_at(&mut self, s: usize, q: &[f64], c: &[f64]) {
        let (n, k) = (self.n, self.k);
        for j in 0..k {
            let mut v = self.vectors.slice_mut(ndarray::s![s, j, ..]);
            v.fill(0.0);
            for i in 0..=j {
                let cij = c[j * k + i];
                for (vr, qr) in v.iter_mut().zip(&q[i * n..(i + 1) * n]) {
                    *vr += qr * cij;
                }
            }
            let big = v
                .iter()
                .fold(0.0f64, |m, &x| if x.abs() > m.abs() { x } else { m });
            if big < 0.0 {
                v.mapv_inplace(|x| -x);
            }
        }
    }

    /// The smallest principal angle between the spans of the vectors `a` and `b` at sample
    /// `s` (rad): from the cosine σ_max(Q_aᵀ Q_b) and the sine σ_min((I − Q_b Q_bᵀ) Q_a) (the
    /// smaller set as `a`), so that angles near 0 and near π/2 are both accurate.
    fn subspace_angle(&self, s: usize, a: &[usize], b: &[usize]) -> f64 {
        use nalgebra::DMatrix;
        let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        let n = self.n;
        let block = |ix: &[usize]| {
            let m = DMatrix::from_fn(n, ix.len(), |r, c| self.vectors[(s, ix[c], r)]);
            m.qr().q()
        };
        let (qa, qb) = (block(a), block(b));
        let cos = qa.transpose() * &qb;
        let c = cos.singular_values().max();
        let w = &qa - &qb * (qb.transpose() * &qa);
        let sin = w.singular_values().min();
        sin.atan2(c)
    }
}
