//! Laskar's numerical analysis of fundamental frequencies (NAFF) on a complex signal sampled
//! uniformly: the leading lines a_k e^{iω_k t} of z(t), found one at a time.
//!
//! For each line: the windowed residual's FFT gives the coarse peak (the largest bin, any sign of
//! frequency); the maximum of |⟨r, e^{iωt}⟩_χ| in ±1 bin around it is then refined by Newton's
//! method on the derivative of |⟨r, e^{iωt}⟩_χ|², safeguarded by bisection on the bracket, to
//! round-off. The extremum is located as a zero of the derivative, not by comparing values of the
//! amplitude: near a maximum the amplitude is flat to second order, so value comparisons would
//! only find it to √ε, the derivative's zero crossing to ε.
//!
//! The found exponentials e_k = e^{iω_k t} are not orthogonal under the windowed inner product;
//! each new one is orthogonalised against the previous ones (Gram–Schmidt, Laskar 1993) and the
//! signal's components along the orthonormal vectors are subtracted, so that the residual is the
//! signal minus its projection onto the span of all found exponentials. The orthogonalisation
//! runs on coefficients, not samples: the Gram matrix ⟨e_a, e_b⟩_χ = W(ω_a − ω_b) is the windowed
//! sum of cos((ω_a − ω_b) s) (real, because the window is symmetric about the middle of the run),
//! and its Cholesky factor L gives the orthonormal vectors u = L⁻¹ e (L_nn² is the squared norm
//! Gram–Schmidt divides by, 1 − Σ_j |⟨e_n, u_j⟩|²); no basis vector is stored as samples.
//!
//! **Polishing.** A line found first carries the pull of the lines not yet found (their window
//! leakage, ≈ (Δω·T)^−(2p+2) relative for a neighbour Δω away). After each new line (or once
//! after the last, [`NaffOptions::polish_at_end`]), every frequency is therefore refined again
//! on the signal minus all the *other* lines, and the projection redone
//! ([`NaffOptions::passes`] times); two close incommensurate lines are then found to round-off
//! instead of to the leakage.
//!
//! **Accuracy.** Times are measured from the middle of the run (s = t − t_mid), which keeps the
//! derivatives' weights s and s² symmetric and small. The exponentials e^{iωs_k} come from
//! phase recurrences (one complex multiplication per sample, eight interleaved) restarted every
//! [`RESEED`](kernels::RESEED) samples from seeds that are exact `sin_cos` values every few
//! blocks (see [`phases`](kernels::phases)), so the recurrences add ~8 roundings instead of a
//! drift growing with the length of the run (the exact seeds carry the rounding of their argument, |ω s|·ε, as a sin_cos per
//! sample would; it is noise of zero mean to the windowed sums). The module's tests
//! recover a pure line to 1e-13 relative and two incommensurate lines to 1e-12.

use crate::observe::Cancel;
use kernels::{add_line, phases, real_sum, sum0};
use num_complex::Complex64;
use rustfft::{Fft, FftPlanner};
use std::f64::consts::PI;
use std::fmt;
use std::sync::Arc;

mod kernels;
mod search;

/// Options of [`Naff`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NaffOptions {
    /// Order p of the Hann window χ_p(τ) = 2^p (p!)² / (2p)! · (1 + cos πτ)^p (0: no window).
    /// The error of a frequency in a quasi-periodic signal falls like T^−(2p+2).
    pub window_order: u32,
    /// Most lines to extract.
    pub terms: usize,
    /// Stop when a line's amplitude falls below this fraction of the first line's.
    pub min_relative_amplitude: f64,
    /// Polishing passes: each frequency refined again with the other lines subtracted, then
    /// all amplitudes solved together. Without them a line's frequency keeps the pull of its
    /// neighbours' window leakage (≈ (Δω·T)^−(2p+2) relative).
    pub passes: u32,
    /// Polish once, after the last line is found, instead of after every new line. The
    /// extraction then sees residuals that still carry the pull between found lines (enough
    /// to find the next peak), and the cost falls from O(terms²) to O(terms) refinements: a
    /// diffusion map, which needs only the fundamentals of few strong lines, takes this.
    pub polish_at_end: bool,
}

impl Default for NaffOptions {
    fn default() -> Self {
        NaffOptions {
            window_order: 1,
            terms: 10,
            min_relative_amplitude: 1e-10,
            passes: 2,
            polish_at_end: false,
        }
    }
}

/// Largest window order accepted (the window's normalisation 2^p (p!)² / (2p)! stays exact and
/// the sidelobes are already far below round-off).
pub const MAX_WINDOW_ORDER: u32 = 12;

/// Fewest samples [`Naff`] accepts.
pub const MIN_SAMPLES: usize = 16;

/// Why a [`Naff`] workspace could not be built.
#[derive(Debug, Clone, PartialEq)]
pub enum NaffError {
    TooFewSamples(usize),
    BadStep(f64),
    BadWindowOrder(u32),
    NoTerms,
}

impl fmt::Display for NaffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NaffError::TooFewSamples(n) => {
                write!(
                    f,
                    "frequency analysis needs at least {MIN_SAMPLES} samples, got {n}"
                )
            }
            NaffError::BadStep(dt) => {
                write!(f, "the sampling interval must be finite and > 0, got {dt}")
            }
            NaffError::BadWindowOrder(p) => {
                write!(
                    f,
                    "the window order must be 0..={MAX_WINDOW_ORDER}, got {p}"
                )
            }
            NaffError::NoTerms => write!(f, "at least one term must be asked for"),
        }
    }
}

impl std::error::Error for NaffError {}

/// One line a e^{i(ωt + φ)} of a signal, with t the signal's own time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// ω (rad/s), signed: a negative frequency turns clockwise in the complex plane.
    pub frequency: f64,
    /// |a| (the signal's units).
    pub amplitude: f64,
    /// φ (rad) in (−π, π], at the signal's t = 0 (not the first sample).
    pub phase: f64,
}

/// The mean-one Hann window of order p at τ ∈ [−1, 1].
pub fn hann(p: u32, tau: f64) -> f64 {
    // 2^p (p!)² / (2p)! = Π_{j=1..p} 2j / (p + j)... computed as a product of ratios.
    let mut c = 1.0;
    for j in 1..=p {
        c *= 2.0 * j as f64 / (p + j) as f64;
    }
    c * (1.0 + (PI * tau).cos()).powi(p as i32)
}

/// A reusable NAFF workspace for signals of `n` samples `dt` apart: FFT plan and buffers, window
/// weights, residual and the Gram–Schmidt coefficients. [`Naff::analyse`] allocates nothing.
pub struct Naff {
    n: usize,
    dt: f64,
    opts: NaffOptions,
    fft: Arc<dyn Fft<f64>>,
    fft_buf: Vec<Complex64>,
    fft_scratch: Vec<Complex64>,
    /// Window × trapezoid weights, normalised to sum 1 (⟨1, 1⟩_χ = 1).
    weights: Vec<f64>,
    /// s_k = (k − (n−1)/2)·dt and s_k²: the weights of G's derivatives.
    s: Vec<f64>,
    s2: Vec<f64>,
    /// The signal (re, im), and times the weights, w_k z_k (the inner products' left side).
    /// Complex sample buffers are held as (re, im) pairs so that their loops vectorize.
    z: [Vec<f64>; 2],
    zw: [Vec<f64>; 2],
    /// The signal minus the lines found so far.
    residual: [Vec<f64>; 2],
    /// The windowed residual w_k r_k.
    windowed: [Vec<f64>; 2],
    /// e^{iω s_k} of the last [`phases`](kernels::phases) call.
    e: [Vec<f64>; 2],
    /// Frequencies found (rad/s).
    freqs: Vec<f64>,
    /// The found exponentials' Gram matrix W(ω_j − ω_k) (lower triangle, terms × terms,
    /// row-major), kept so that a new line adds one row instead of recomputing all.
    gram_m: Vec<f64>,
    /// The Cholesky factor L of the found exponentials' Gram matrix (lower triangular,
    /// terms × terms, row-major): the Gram–Schmidt orthogonalisation in coefficient space.
    chol: Vec<f64>,
    /// The lines' complex amplitudes at s = t − t_mid.
    amps: Vec<Complex64>,
    /// b_j = ⟨z, e_j⟩ of [`Naff::project`]; the first `inner_valid` are those of the current
    /// signal and frequencies (a new line adds one, so the extraction's projections cost one
    /// sum each instead of one per line found).
    inner: Vec<Complex64>,
    inner_valid: usize,
    lines: Vec<Line>,
    /// The stop request of the current [`Naff::analyse_until`] (never set for
    /// [`Naff::analyse`]), and whether it has been seen: every loop over the samples (the
    /// FFT's line search, each Newton or golden-section evaluation, each polishing refinement,
    /// each Gram entry) polls it first, so a stop takes effect within one O(n) pass.
    cancel: Cancel,
    stopped: bool,
}

impl fmt::Debug for Naff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Naff")
            .field("n", &self.n)
            .field("dt", &self.dt)
            .field("opts", &self.opts)
            .finish()
    }
}

impl Naff {
    /// A workspace for `n` samples `dt` apart.
    pub fn new(n: usize, dt: f64, opts: NaffOptions) -> Result<Naff, NaffError> {
        if n < MIN_SAMPLES {
            return Err(NaffError::TooFewSamples(n));
        }
        if !(dt.is_finite() && dt > 0.0) {
            return Err(NaffError::BadStep(dt));
        }
        if opts.window_order > MAX_WINDOW_ORDER {
            return Err(NaffError::BadWindowOrder(opts.window_order));
        }
        if opts.terms == 0 {
            return Err(NaffError::NoTerms);
        }
        let fft = FftPlanner::new().plan_fft_forward(n);
        let scratch = fft.get_inplace_scratch_len();
        let mut weights: Vec<f64> = (0..n)
            .map(|k| {
                let tau = -1.0 + 2.0 * k as f64 / (n - 1) as f64;
                let h = if k == 0 || k == n - 1 { 0.5 } else { 1.0 };
                h * hann(opts.window_order, tau)
            })
            .collect();
        let sum: f64 = weights.iter().sum();
        weights.iter_mut().for_each(|w| *w /= sum);
        let centre = (n as f64 - 1.0) / 2.0;
        let s: Vec<f64> = (0..n).map(|k| (k as f64 - centre) * dt).collect();
        let s2 = s.iter().map(|v| v * v).collect();
        let m = opts.terms;
        let pair = || [vec![0.0; n], vec![0.0; n]];
        Ok(Naff {
            n,
            dt,
            opts,
            fft,
            fft_buf: vec![Complex64::default(); n],
            fft_scratch: vec![Complex64::default(); scratch],
            weights,
            s,
            s2,
            z: pair(),
            zw: pair(),
            residual: pair(),
            windowed: pair(),
            e: pair(),
            freqs: Vec::with_capacity(m),
            gram_m: vec![0.0; m * m],
            chol: vec![0.0; m * m],
            amps: Vec::with_capacity(m),
            inner: vec![Complex64::default(); m],
            inner_valid: 0,
            lines: Vec::with_capacity(m),
            cancel: Cancel::never(),
            stopped: false,
        })
    }

    /// Samples per signal.
    pub fn samples(&self) -> usize {
        self.n
    }
    /// Sampling interval (s).
    pub fn dt(&self) -> f64 {
        self.dt
    }
    /// The options.
    pub fn options(&self) -> &NaffOptions {
        &self.opts
    }
    /// The FFT's frequency resolution 2π/(n·dt) (rad/s).
    pub fn bin(&self) -> f64 {
        2.0 * PI / (self.n as f64 * self.dt)
    }

    /// The leading lines of `z` (samples at t0 + k·dt), strongest first in the order found.
    /// Panics if `z` does not have the workspace's length.
    pub fn analyse(&mut self, z: &[Complex64], t0: f64) -> &[Line] {
        self.analyse_until(z, t0, &Cancel::never())
            .expect("a token that is never set")
    }

    /// [`Naff::analyse`], stopping within one pass over the samples once `cancel` is set:
    /// `None` then (the lines found so far are not all refined, so none is returned).
    pub fn analyse_until(&mut self, z: &[Complex64], t0: f64, cancel: &Cancel) -> Option<&[Line]> {
        self.cancel.clone_from(cancel);
        self.stopped = false;
        self.extract(z, t0);
        if self.halted() {
            None
        } else {
            Some(&self.lines)
        }
    }

    /// Whether the current analysis was asked to stop (polled; remembered once seen).
    fn halted(&mut self) -> bool {
        if !self.stopped && self.cancel.is_set() {
            self.stopped = true;
        }
        self.stopped
    }

    /// The extraction of [`Naff::analyse`] into `self.lines` (cut short by a stop).
    fn extract(&mut self, z: &[Complex64], t0: f64) {
        assert_eq!(
            z.len(),
            self.n,
            "signal length differs from the workspace's"
        );
        for (k, v) in z.iter().enumerate() {
            let w = self.weights[k];
            (self.z[0][k], self.z[1][k]) = (v.re, v.im);
            (self.zw[0][k], self.zw[1][k]) = (w * v.re, w * v.im);
        }
        self.residual.clone_from(&self.z);
        self.freqs.clear();
        self.inner_valid = 0;
        self.amps.clear();
        self.lines.clear();
        let mut first = 0.0;
        for n in 0..self.opts.terms {
            if self.halted() {
                return;
            }
            self.window();
            let Some((omega, g)) = self.peak() else { break };
            if self.halted() {
                return;
            }
            let amp = g.norm();
            if n == 0 {
                first = amp;
            }
            if amp.is_nan() || amp <= 0.0 || amp < self.opts.min_relative_amplitude * first {
                break;
            }
            // Gram–Schmidt of e_n against the orthonormalised u_0..u_{n−1}: the squared norm
            // of what is left, 1 − Σ_j |⟨e_n, u_j⟩|², is the new Cholesky pivot.
            self.freqs.push(omega);
            self.amps.push(Complex64::default());
            if !self.factor(self.freqs.len() - 1) {
                // The new exponential is (numerically) in the span of the found ones.
                self.freqs.pop();
                self.inner_valid = self.inner_valid.min(self.freqs.len());
                self.amps.pop();
                self.factor(self.freqs.len());
                break;
            }
            self.project();
            if !self.opts.polish_at_end {
                for _ in 0..self.opts.passes {
                    self.polish();
                }
            }
        }
        if self.opts.polish_at_end && !self.freqs.is_empty() {
            for _ in 0..self.opts.passes {
                self.polish();
            }
        }
        if self.halted() {
            return;
        }
        // Moved from s = t − t_mid to the signal's t.
        let t_mid = t0 + (self.n as f64 - 1.0) / 2.0 * self.dt;
        for k in 0..self.freqs.len() {
            let a = self.amps[k];
            let w = self.freqs[k];
            let (s, c) = (-w * t_mid).sin_cos();
            let a = a * Complex64::new(c, s);
            self.lines.push(Line {
                frequency: w,
                amplitude: a.norm(),
                phase: a.arg(),
            });
        }
    }

    /// The Gram–Schmidt orthogonalisation of the found exponentials, in coefficient space: the
    /// Cholesky factor L of their Gram matrix M_jk = ⟨e_j, e_k⟩_χ = W(ω_j − ω_k) (real and
    /// symmetric), so that u = L⁻¹ e is orthonormal; row j of L⁻¹ holds u_j's coefficients, and
    /// L_jj² = 1 − Σ_{i<j} |⟨e_j, u_i⟩|² is the squared norm Gram–Schmidt divides by. False when
    /// a pivot falls below 1e-12 (an exponential already in the span of the previous ones).
    /// Rows from `changed` on are recomputed (the frequencies before it are unchanged since
    /// the last call).
    fn factor(&mut self, changed: usize) -> bool {
        let m = self.opts.terms;
        let found = self.freqs.len();
        for j in changed..found {
            for k in 0..=j {
                if self.halted() {
                    return false;
                }
                let g = self.gram(self.freqs[j] - self.freqs[k]);
                self.gram_m[j * m + k] = g;
            }
        }
        for j in 0..found {
            self.chol[j * m..j * m + j + 1].copy_from_slice(&self.gram_m[j * m..j * m + j + 1]);
        }
        for j in 0..found {
            for k in 0..=j {
                let mut v = self.chol[j * m + k];
                for i in 0..k {
                    v -= self.chol[j * m + i] * self.chol[k * m + i];
                }
                if k == j {
                    if v.is_nan() || v <= 1e-12 {
                        return false;
                    }
                    self.chol[j * m + j] = v.sqrt();
                } else {
                    self.chol[j * m + k] = v / self.chol[k * m + k];
                }
            }
        }
        true
    }

    /// The projection of `z` onto the span of the found exponentials (the sum of its
    /// components along the Gram–Schmidt vectors u_j): amplitudes from M a = b, b_j = ⟨z, e_j⟩,
    /// by the Cholesky factor; the residual z − Σ a_k e_k rebuilt.
    fn project(&mut self) {
        let m = self.opts.terms;
        let found = self.freqs.len();
        for j in self.inner_valid..found {
            if self.halted() {
                return;
            }
            self.phases(-self.freqs[j]);
            let (zw, e) = (&self.zw, &self.e);
            self.inner[j] = sum0((&zw[0], &zw[1]), (&e[0], &e[1]));
        }
        self.inner_valid = found;
        self.amps[..found].copy_from_slice(&self.inner[..found]);
        // L y = b (y_j = ⟨z, u_j⟩), then Lᵀ a = y.
        for j in 0..found {
            let mut v = self.amps[j];
            for i in 0..j {
                v -= self.chol[j * m + i] * self.amps[i];
            }
            self.amps[j] = v / self.chol[j * m + j];
        }
        for j in (0..found).rev() {
            let mut v = self.amps[j];
            for i in j + 1..found {
                v -= self.chol[i * m + j] * self.amps[i];
            }
            self.amps[j] = v / self.chol[j * m + j];
        }
        self.residual.clone_from(&self.z);
        for k in 0..found {
            if self.halted() {
                return;
            }
            self.phases(self.freqs[k]);
            self.add_line(-1.0, self.amps[k]);
        }
    }

    /// `e` ← e^{iω s_k}.
    fn phases(&mut self, omega: f64) {
        let [re, im] = &mut self.e;
        phases(self.n, self.dt, omega, re, im);
    }

    /// residual ← residual + sign · a e (sign ±1).
    fn add_line(&mut self, sign: f64, a: Complex64) {
        let [rr, ri] = &mut self.residual;
        add_line((rr, ri), a * sign, (&self.e[0], &self.e[1]));
    }

    /// windowed ← w · residual.
    fn window(&mut self) {
        for c in 0..2 {
            let (v, r) = (&mut self.windowed[c], &self.residual[c]);
            for ((v, r), w) in v.iter_mut().zip(r).zip(&self.weights) {
                *v = r * w;
            }
        }
    }

    /// One polishing pass over the lines found: each frequency is refined again on the signal
    /// minus all the *other* lines (so a neighbouring line no longer pulls it), then the
    /// projection is redone with the new frequencies.
    fn polish(&mut self) {
        let found = self.freqs.len();
        let bin = self.bin();
        for k in 0..found {
            if self.halted() {
                return;
            }
            // r_k = residual + a_k e_k: the signal without the other lines.
            let (a, w) = (self.amps[k], self.freqs[k]);
            self.phases(w);
            self.add_line(1.0, a);
            self.window();
            let (w2, a2) = self.refine(w - 0.5 * bin, w + 0.5 * bin, w);
            self.freqs[k] = w2;
            self.inner_valid = self.inner_valid.min(k);
            self.amps[k] = a2;
            self.phases(w2);
            self.add_line(-1.0, a2);
        }
        if self.factor(0) {
            self.project();
        }
    }

    /// The Gram function W(Δ) = Σ_k w_k cos(Δ s_k) = ⟨e^{iω_a s}, e^{iω_b s}⟩_χ, Δ = ω_a − ω_b.
    fn gram(&mut self, delta: f64) -> f64 {
        if delta == 0.0 {
            return 1.0;
        }
        self.phases(delta);
        real_sum(&self.weights, &self.e[0])
    }
}

#[cfg(test)]
mod tests {
    use super::kernels::{EXACT_EVERY, RESEED};
    use super::*;

    fn signal(n: usize, dt: f64, t0: f64, lines: &[(f64, f64, f64)]) -> Vec<Complex64> {
        (0..n)
            .map(|k| {
                let t = t0 + k as f64 * dt;
                lines
                    .iter()
                    .map(|&(w, a, p)| Complex64::from_polar(a, w * t + p))
                    .sum()
            })
            .collect()
    }

    /// The interleaved, re-seeded phase recurrences against sin_cos, over 10⁶ samples at a
    /// frequency near Nyquist. Any evaluation at the phase ω·s carries the rounding of that
    /// argument (|ω s|·ε, here up to 3e-10: the exact seeds have it as a per-sample sin_cos
    /// would); what the recurrences add is checked against the last exact seed times
    /// cis(m·(ω dt)), m = k − k₀ < 128, its argument taken with its rounding error (fma) so
    /// that the reference itself is exact to ε: below 1e-14, where one recurrence over the
    /// run drifts by ≈ k·ε ≈ 1e-10.
    #[test]
    fn phase_recurrence_stays_at_round_off() {
        let (n, dt, w) = (1_000_000usize + 7, 0.01, 271.828_182_845);
        let centre = (n as f64 - 1.0) / 2.0;
        let x = w * dt;
        let mut worst = 0.0f64;
        let (mut re, mut im) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        phases(n, dt, w, &mut re, &mut im);
        for k in 0..n {
            let e = Complex64::new(re[k], im[k]);
            let k0 = k / (RESEED * EXACT_EVERY) * (RESEED * EXACT_EVERY);
            let (s0, c0) = (w * (k0 as f64 - centre) * dt).sin_cos();
            let m = (k - k0) as f64;
            let arg = m * x;
            let err = m.mul_add(x, -arg);
            let (s1, c1) = arg.sin_cos();
            let want = Complex64::new(c0, s0)
                * Complex64::new(c1, s1)
                * Complex64::new(1.0 - 0.5 * err * err, err);
            worst = worst.max((e - want).norm());
        }
        assert!(worst < 1e-14, "{worst:e}");
    }

    #[test]
    fn hann_has_mean_one() {
        for p in 0..=6 {
            let n = 20001;
            let s: f64 = (0..n)
                .map(|k| {
                    let tau = -1.0 + 2.0 * k as f64 / (n - 1) as f64;
                    let h = if k == 0 || k == n - 1 { 0.5 } else { 1.0 };
                    h * hann(p, tau)
                })
                .sum::<f64>()
                / (n - 1) as f64;
            assert!((s - 1.0).abs() < 1e-12, "p = {p}: mean {s}");
        }
    }

    #[test]
    fn pure_line_to_round_off() {
        let w = 1.234_567_890_123;
        let z = signal(4096, 0.05, 3.0, &[(w, 0.7, 0.4)]);
        let mut naff = Naff::new(4096, 0.05, NaffOptions::default()).unwrap();
        let lines = naff.analyse(&z, 3.0);
        let l = lines[0];
        assert!(((l.frequency - w) / w).abs() < 1e-13, "{}", l.frequency - w);
        assert!((l.amplitude - 0.7).abs() < 1e-12, "{}", l.amplitude);
        assert!((l.phase - 0.4).abs() < 1e-11, "{}", l.phase);
        // Nothing else in the signal: the next line, if any, is at round-off.
        for l in &lines[1..] {
            assert!(l.amplitude < 1e-10, "{l:?}");
        }
    }

    /// Two incommensurate lines, 1 and 0.7·√2 rad/s (0.0101 rad/s apart) with amplitudes 1 and
    /// 0.3: both frequencies to 1e-12 relative, amplitudes to 1e-12 and phases to 1e-11 (the
    /// phase at t = 0 carries the frequency's error times the run's half-length, 8 192 s). A
    /// second analysis in the same workspace gives the same bits.
    #[test]
    fn two_lines_to_1e_12() {
        let w1 = 1.0;
        let w2 = 0.7 * std::f64::consts::SQRT_2;
        let (dt, n) = (0.25, 1 << 16);
        let z = signal(n, dt, 0.0, &[(w1, 1.0, 0.3), (w2, 0.3, -2.0)]);
        let mut naff = Naff::new(n, dt, NaffOptions::default()).unwrap();
        let lines = naff.analyse(&z, 0.0).to_vec();
        let (a, b) = (lines[0], lines[1]);
        assert!(((a.frequency - w1) / w1).abs() < 1e-12);
        assert!(((b.frequency - w2) / w2).abs() < 1e-12);
        assert!((a.amplitude - 1.0).abs() < 1e-12);
        assert!((b.amplitude - 0.3).abs() < 1e-12);
        assert!((a.phase - 0.3).abs() < 1e-11);
        assert!((b.phase + 2.0).abs() < 1e-11);
        assert_eq!(naff.analyse(&z, 0.0), &lines[..]);
    }

    /// Least-squares slope of log|error| against log T.
    fn slope(ts: &[f64], errs: &[f64]) -> f64 {
        let x: Vec<f64> = ts.iter().map(|t| t.ln()).collect();
        let y: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
        let n = x.len() as f64;
        let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
        let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
        let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
        sxy / sxx
    }

    /// The frequency error of the leading line of a two-line signal, on T: one term, so that
    /// the neighbour's leakage is not polished away (the law is that of a single extraction).
    fn hann_errors(p: u32, ts: &[f64]) -> Vec<f64> {
        let (w1, w2) = (1.0, std::f64::consts::SQRT_2);
        let dt = 0.05;
        ts.iter()
            .map(|&t| {
                let n = (t / dt).round() as usize + 1;
                let z = signal(n, dt, 0.0, &[(w1, 1.0, 0.0), (w2, 0.5, 1.0)]);
                let opts = NaffOptions {
                    window_order: p,
                    terms: 1,
                    ..Default::default()
                };
                let mut naff = Naff::new(n, dt, opts).unwrap();
                (naff.analyse(&z, 0.0)[0].frequency - w1).abs()
            })
            .collect()
    }

    /// Laskar's law for the Hann window of order p: the frequency error of a quasi-periodic
    /// signal falls like T^−(2p+2). The error oscillates with T (its sidelobe structure), so the
    /// fit takes the largest error in each of 10 log-spaced bands of a decade of T (the
    /// envelope) and asks the slope to be within 0.5 of −(2p+2).
    #[test]
    fn hann_error_law() {
        for p in [1u32, 2] {
            let (t_lo, t_hi) = (200.0f64, 2000.0f64);
            let bands = 10;
            let per = 8;
            let mut ts_env = Vec::new();
            let mut env = Vec::new();
            for b in 0..bands {
                let ts: Vec<f64> = (0..per)
                    .map(|i| {
                        let u = (b * per + i) as f64 / (bands * per) as f64;
                        t_lo * (t_hi / t_lo).powf(u)
                    })
                    .collect();
                let errs = hann_errors(p, &ts);
                let (i, e) =
                    errs.iter().enumerate().fold(
                        (0, 0.0),
                        |(bi, be), (i, &e)| if e > be { (i, e) } else { (bi, be) },
                    );
                ts_env.push(ts[i]);
                env.push(e);
            }
            let s = slope(&ts_env, &env);
            eprintln!(
                "p = {p}: slope {s:.3}, errors {:e} .. {:e}",
                env[0],
                env[bands - 1]
            );
            let want = -(2.0 * p as f64 + 2.0);
            assert!((s - want).abs() < 0.5, "p = {p}: slope {s}, want {want}");
        }
    }
}
