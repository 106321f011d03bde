//! Running sums of log stretch factors, an evenly thinned history and batch-means errors.
//!
//! The history stores the time and the *cumulative* sums `S_i(t_j) = Σ ln|R_ii|` at every
//! `stride`-th interval, thinned as every single-orbit history is ([`Thinned`]: at `2·half`
//! points every other point is dropped and the stride doubles), so the points stay evenly spaced
//! and their number stays in `[half, 2·half)`. Block means over
//! any window are differences of these cumulative sums, so the batch-means standard error can be
//! evaluated at every history point (the running error) without storing every interval.

use crate::analysis::orbit::driver::Thinned;

/// Accumulator for `k` exponents with averaging intervals of length `tau`.
#[derive(Debug, Clone)]
pub(crate) struct Accum {
    pub k: usize,
    pub tau: f64,
    /// Σ ln|R_ii| over the averaging phase.
    pub sums: Vec<f64>,
    /// Averaging intervals so far.
    pub events: u64,
    /// The history points: interval counts as the index, rows `[t, S_1 … S_k]` (absolute time,
    /// cumulative sums).
    hist: Thinned,
    /// The row being recorded (kept, so that recording allocates nothing).
    scratch: Vec<f64>,
}

impl Accum {
    pub(crate) fn new(k: usize, tau: f64, max_points: usize) -> Accum {
        Accum {
            k,
            tau,
            sums: vec![0.0; k],
            events: 0,
            hist: Thinned::empty(max_points, k + 1),
            scratch: vec![0.0; k + 1],
        }
    }

    /// Adds one interval's logs; returns true when a history point was recorded.
    #[inline]
    pub(crate) fn push(&mut self, t: f64, logs: &[f64]) -> bool {
        for (s, l) in self.sums.iter_mut().zip(logs) {
            *s += l;
        }
        self.events += 1;
        if !self.hist.due(self.events) {
            return false;
        }
        self.fill(t);
        self.hist.push(self.events, &self.scratch);
        true
    }

    /// The history row of time `t`: `[t, S_1 … S_k]`.
    fn fill(&mut self, t: f64) {
        self.scratch[0] = t;
        self.scratch[1..].copy_from_slice(&self.sums);
    }

    /// The number of history points.
    pub(crate) fn points(&self) -> usize {
        self.hist.index.len()
    }

    /// The interval count at history point `j`.
    pub(crate) fn count(&self, j: usize) -> u64 {
        self.hist.index[j]
    }

    /// The cumulative sums at history point `j`.
    pub(crate) fn sums_at(&self, j: usize) -> &[f64] {
        &self.hist.row(j)[1..]
    }

    /// The absolute times of the history points.
    pub(crate) fn times(&self) -> Vec<f64> {
        self.hist.column(0)
    }

    /// Appends the last interval if it is not a history point yet.
    pub(crate) fn close(&mut self, t: f64) {
        if self.events > 0 && self.hist.index.last() != Some(&self.events) {
            self.fill(t);
            self.hist.push_unthinned(self.events, &self.scratch);
        }
    }

    /// Averaged time so far (s).
    pub(crate) fn averaged_time(&self) -> f64 {
        self.events as f64 * self.tau
    }

    /// Exponent estimates `S_i / (n τ)` at the end; NaN when nothing was averaged.
    pub(crate) fn estimates(&self) -> Vec<f64> {
        let t = self.averaged_time();
        self.sums
            .iter()
            .map(|s| if t > 0.0 { s / t } else { f64::NAN })
            .collect()
    }

    /// Batch-means standard errors of the exponents and of `combo`s (linear combinations of the
    /// exponents, e.g. Σλ) over the window up to history point `j` (inclusive), with `blocks`
    /// blocks whose ends are the history points nearest to `b·n_j/B`. NaN when the window holds
    /// fewer than `blocks` history points.
    pub(crate) fn standard_errors(&self, j: usize, blocks: usize, combos: &[&[f64]]) -> Vec<f64> {
        let k = self.k;
        let m = k + combos.len();
        let mut out = vec![f64::NAN; m];
        if j + 1 < blocks || blocks < 2 {
            return out;
        }
        let hist_n = &self.hist.index;
        let n_end = hist_n[j];
        // Block boundaries as history indices (−1 = the start, zero sums).
        let mut bounds: Vec<isize> = Vec::with_capacity(blocks + 1);
        bounds.push(-1);
        for b in 1..=blocks {
            let target = (b as f64 * n_end as f64 / blocks as f64).round() as u64;
            let idx = match hist_n[..=j].binary_search(&target) {
                Ok(i) => i,
                Err(i) => {
                    // Nearest of i−1 and i.
                    if i == 0 {
                        0
                    } else if i > j {
                        j
                    } else if target - hist_n[i - 1] <= hist_n[i] - target {
                        i - 1
                    } else {
                        i
                    }
                }
            };
            let idx = idx as isize;
            if idx <= *bounds.last().unwrap() {
                return out;
            }
            bounds.push(idx);
        }
        let at = |i: isize, c: usize| -> (u64, f64) {
            if i < 0 {
                (0, 0.0)
            } else {
                let i = i as usize;
                let sums = self.sums_at(i);
                let s = if c < k {
                    sums[c]
                } else {
                    let w = combos[c - k];
                    (0..k).map(|q| w[q] * sums[q]).sum()
                };
                (hist_n[i], s)
            }
        };
        let mut means = vec![0.0; blocks];
        for (c, o) in out.iter_mut().enumerate() {
            for b in 0..blocks {
                let (n0, s0) = at(bounds[b], c);
                let (n1, s1) = at(bounds[b + 1], c);
                means[b] = (s1 - s0) / ((n1 - n0) as f64 * self.tau);
            }
            *o = super::batch_means_standard_error(&means);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_even_spacing_and_bounds() {
        let mut a = Accum::new(1, 0.5, 16);
        for e in 1..=1000u64 {
            a.push(e as f64 * 0.5, &[1.0]);
        }
        a.close(500.0);
        let n = &a.hist.index;
        assert!(n.len() <= 17 && n.len() >= 8);
        let d = n[1] - n[0];
        for w in n.windows(2).take(n.len() - 2) {
            assert_eq!(w[1] - w[0], d);
        }
        assert_eq!(*n.last().unwrap(), 1000);
        assert_eq!(a.estimates(), vec![2.0]);
        // A constant stretch has zero spread.
        let se = a.standard_errors(a.points() - 1, 4, &[]);
        assert!(se[0].abs() < 1e-12);
    }
}
