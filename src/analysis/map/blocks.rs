//! Per-pixel error bars of λ maps: block means of the log-growth, their batch-means standard
//! error and the `tolerance` stopping rule, one schedule for the lane kernel and the scalar path
//! (so both give the same blocks, the same stops and, to rounding, the same values).
//!
//! **Blocks.** With R = ⌈n/q⌉ renormalisation intervals of q steps (the last one shorter when q
//! does not divide n), block b = 1..B ends at the renormalisation closing interval
//! round(b·R/B), i.e. at step min(round(b·R/B)·q, n): whole renormalisation intervals, equal to
//! within one interval (duration ≈ t_max/B), the last ending at t_max. Block b's estimate is
//! Σ ln ‖δ‖ over its renormalisations / its duration; the standard error is
//! [`batch_means_standard_error`] of the block estimates (s/√B, s their sample deviation) — the
//! definition the single-orbit estimator uses. The blocks never depend on the tolerance, so a
//! pixel that runs to t_max has the same blocks, λ and standard error with or without it.
//!
//! **Stopping.** With a tolerance T the standard error is tested only at block ends, once
//! j ≥ min(B, 4) blocks are done (fewer give no usable spread); a pixel stops at the first block
//! end j < B where the SE of its j block means is < T. λ is then its mean log-growth over the
//! time it ran (Σ ln ‖δ‖ / time_used), the standard error that of those j blocks.

use crate::analysis::lyapunov::batch_means_standard_error;

/// The fewest blocks whose spread is tested against the tolerance.
const MIN_TESTED: usize = 4;

/// A map's block schedule (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Blocks {
    /// The step closing each block (increasing; the last is n).
    ends: Vec<u32>,
    h: f64,
    tolerance: Option<f64>,
}

impl Blocks {
    /// The schedule of `blocks` blocks over `n` steps of `h` renormalised every `renorm_steps`.
    /// Callers validate `2 ≤ blocks ≤ ⌈n/renorm_steps⌉` ([`max_blocks`]).
    pub fn new(n: u32, renorm_steps: u32, blocks: u32, h: f64, tolerance: Option<f64>) -> Blocks {
        let q = u64::from(renorm_steps.max(1));
        let r = u64::from(n).div_ceil(q);
        let b = u64::from(blocks.max(1));
        let ends = (1..=b)
            .map(|i| ((2 * i * r + b) / (2 * b) * q).min(u64::from(n)) as u32)
            .collect();
        Blocks { ends, h, tolerance }
    }
}

/// The most blocks `n` steps renormalised every `renorm_steps` hold: one per interval.
pub fn max_blocks(n: u32, renorm_steps: u32) -> u32 {
    n.div_ceil(renorm_steps.max(1))
}

/// One pixel's block means so far.
#[derive(Debug, Clone, Default)]
pub struct BlockAcc {
    /// Σ ln ‖δ‖ of the block in progress.
    sum: f64,
    /// The step the block in progress started at.
    start: u32,
    means: Vec<f64>,
}

impl BlockAcc {
    pub fn reset(&mut self) {
        (self.sum, self.start) = (0.0, 0);
        self.means.clear();
    }

    /// Adds the log-growth `ln_growth` of the renormalisation at step `k`; true when the pixel
    /// has converged by the tolerance rule and stops here.
    #[inline]
    pub fn renorm(&mut self, s: &Blocks, k: u32, ln_growth: f64) -> bool {
        self.sum += ln_growth;
        let j = self.means.len();
        if j >= s.ends.len() || k != s.ends[j] {
            return false;
        }
        self.means
            .push(self.sum / (f64::from(k - self.start) * s.h));
        (self.sum, self.start) = (0.0, k);
        let j = j + 1;
        match s.tolerance {
            Some(t) if j < s.ends.len() && j >= MIN_TESTED.min(s.ends.len()) => {
                batch_means_standard_error(&self.means) < t
            }
            _ => false,
        }
    }

    /// The pixel's (λ, [standard error, time used, converged]) after `k` steps with total
    /// log-growth `log_sum`. `converged` is 1 where the standard error is below the tolerance,
    /// 0 where not, NaN without a tolerance.
    pub fn finish(&self, s: &Blocks, k: u32, log_sum: f64) -> (f64, [f64; 3]) {
        let t = f64::from(k) * s.h;
        let se = batch_means_standard_error(&self.means);
        let converged = s
            .tolerance
            .map_or(f64::NAN, |tol| f64::from(u8::from(se < tol)));
        (log_sum / t, [se, t, converged])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Block ends are whole renormalisation intervals, strictly increasing, the last at n,
    /// and equal to within one interval.
    #[test]
    fn ends_are_whole_intervals() {
        for (n, q, b) in [(2000, 10, 10), (2005, 10, 7), (100, 10, 10), (999, 7, 13)] {
            let s = Blocks::new(n, q, b, 0.01, None);
            assert_eq!(s.ends.len(), b as usize);
            assert_eq!(*s.ends.last().unwrap(), n);
            let mut prev = 0;
            for &e in &s.ends {
                assert!(
                    e > prev && (e % q == 0 || e == n),
                    "{n} {q} {b}: {:?}",
                    s.ends
                );
                let len = e - prev;
                assert!(len.abs_diff(n / b) <= q, "{n} {q} {b}: {:?}", s.ends);
                prev = e;
            }
        }
    }

    /// A constant growth rate gives zero spread and the rate itself; the tolerance stops at the
    /// fourth block end.
    #[test]
    fn constant_rate_stops_at_fourth_block() {
        let s = Blocks::new(100, 5, 10, 0.1, Some(1e-9));
        let mut a = BlockAcc::default();
        let stop = (5..=100)
            .step_by(5)
            .find(|&k| a.renorm(&s, k, 0.5 * 5.0 * 0.1))
            .unwrap();
        assert_eq!(stop, 40);
        let (lambda, [se, t, c]) = a.finish(&s, stop, 4.0 * 2.0 * 0.5 * 5.0 * 0.1);
        assert!((lambda - 0.5).abs() < 1e-15 && se < 1e-15 && t == 4.0 && c == 1.0);
    }
}
