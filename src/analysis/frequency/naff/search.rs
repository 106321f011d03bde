//! The search for one line's frequency: the coarse peak of the windowed residual's FFT, then the
//! zero of the derivative of |⟨r, e^{iωt}⟩_χ|² in ±1 bin around it, by Newton's method
//! safeguarded by bisection (see the parent module's docs for why the derivative's zero).

use super::kernels::sum2;
use super::Naff;
use num_complex::Complex64;

impl Naff {
    /// G(ω) = Σ w_k r_k e^{−iω s_k} and its first two derivatives in ω.
    fn moments(&mut self, omega: f64) -> (Complex64, Complex64, Complex64) {
        self.phases(-omega);
        let (c, e) = (&self.windowed, &self.e);
        let [g0, g1, g2] = sum2((&c[0], &c[1]), (&e[0], &e[1]), &self.s, &self.s2);
        // d/dω e^{−iωs} = −is e^{−iωs}; d² = −s² e^{−iωs}.
        (g0, g1 * Complex64::new(0.0, -1.0), -g2)
    }

    /// d/dω |G|² / 2, d²/dω² |G|² / 2, and G itself.
    fn slope(&mut self, omega: f64) -> (f64, f64, Complex64) {
        let (g0, g1, g2) = self.moments(omega);
        let d1 = (g0.conj() * g1).re;
        let d2 = g1.norm_sqr() + (g0.conj() * g2).re;
        (d1, d2, g0)
    }

    fn value(&mut self, omega: f64) -> f64 {
        self.moments(omega).0.norm_sqr()
    }

    /// The refined frequency of the windowed residual's strongest line and G there, or None if
    /// the residual is zero.
    pub(super) fn peak(&mut self) -> Option<(f64, Complex64)> {
        for (k, v) in self.fft_buf.iter_mut().enumerate() {
            *v = Complex64::new(self.windowed[0][k], self.windowed[1][k]);
        }
        self.fft
            .process_with_scratch(&mut self.fft_buf, &mut self.fft_scratch);
        let (mut best, mut best_v) = (0usize, 0.0);
        for (k, v) in self.fft_buf.iter().enumerate() {
            let a = v.norm_sqr();
            if a > best_v {
                best_v = a;
                best = k;
            }
        }
        if best_v <= 0.0 {
            return None;
        }
        let bin = self.bin();
        let m = if best > self.n / 2 {
            best as f64 - self.n as f64
        } else {
            best as f64
        };
        // Newton starts from the maximum of the parabola through the logarithms of the three
        // bins around the peak (exact for a Gaussian, within a few hundredths of a bin for a
        // Hann window), not from the bin: one or two Newton steps fewer. The bracket stays the
        // bin ± 1.
        let at = |k: usize| self.fft_buf[k % self.n].norm_sqr().ln();
        let (lm, l0, lp) = (at(best + self.n - 1), best_v.ln(), at(best + 1));
        let den = lm - 2.0 * l0 + lp;
        let offset = 0.5 * (lm - lp) / den;
        let offset = if den < 0.0 && offset.is_finite() {
            offset.clamp(-0.5, 0.5)
        } else {
            0.0
        };
        let centre = m * bin;
        Some(self.refine(centre - bin, centre + bin, (m + offset) * bin))
    }

    /// The maximum of |G|² on [lo, hi] starting from `omega`, and G there: safeguarded Newton
    /// on the slope, whose bracket's ends are checked only when Newton first needs to bisect
    /// (the slopes of opposite signs there; a converging Newton never does, and the two checks
    /// were a quarter of the refinement's evaluations); if they fail, a golden-section search
    /// to a small interval first.
    pub(super) fn refine(&mut self, lo: f64, hi: f64, omega: f64) -> (f64, Complex64) {
        if let Some(found) = self.newton(lo, hi, omega) {
            return found;
        }
        // No sign change: the maximum sits near an end or another line interferes; golden
        // section on the values narrows the interval, Newton then polishes inside it.
        let r = (5f64.sqrt() - 1.0) / 2.0;
        let (mut a, mut b) = (lo, hi);
        let mut x1 = b - r * (b - a);
        let mut x2 = a + r * (b - a);
        let (mut f1, mut f2) = (self.value(x1), self.value(x2));
        for _ in 0..40 {
            if self.halted() {
                return (x1, Complex64::default());
            }
            if f1 < f2 {
                a = x1;
                x1 = x2;
                f1 = f2;
                x2 = a + r * (b - a);
                f2 = self.value(x2);
            } else {
                b = x2;
                x2 = x1;
                f2 = f1;
                x1 = b - r * (b - a);
                f1 = self.value(x1);
            }
        }
        let x = (a + b) / 2.0;
        let width = b - a;
        self.newton(x - width, x + width, x)
            .unwrap_or_else(|| (x, self.moments(x).0))
    }

    /// Newton on the slope inside a bracket [lo, hi] meant to have slope(lo) > 0 > slope(hi);
    /// bisection whenever the step leaves the bracket or the curvature has the wrong sign. An
    /// end is checked when bisection first needs it (unless an iterate has replaced it): None
    /// if its slope has the wrong sign. Returns the frequency and G there.
    fn newton(&mut self, mut lo: f64, mut hi: f64, start: f64) -> Option<(f64, Complex64)> {
        let (mut lo_checked, mut hi_checked) = (false, false);
        let mut x = start.clamp(lo, hi);
        for _ in 0..200 {
            if self.halted() {
                // Abandoned: the caller discards the analysis.
                return Some((x, Complex64::default()));
            }
            let (d1, d2, g0) = self.slope(x);
            if d1 == 0.0 {
                return Some((x, g0));
            }
            if d1 > 0.0 {
                lo = lo.max(x);
                lo_checked = true;
            } else {
                hi = hi.min(x);
                hi_checked = true;
            }
            let newton = x - d1 / d2;
            let tol = 2.0 * f64::EPSILON * x.abs().max(hi.abs()).max(lo.abs());
            // Converged: the Newton step is at round-off. Tested before the bracket, because
            // then d1 is round-off whose sign has just moved an end of the bracket onto x, and
            // the step lands on or a rounding past that end: the bracket test rejected it and
            // bisection took ~40 halvings to close in on the root Newton already had (most of
            // a diffusion map's NAFF time; issue 33). x itself is returned, whose G is known.
            if d2 < 0.0 && (newton - x).abs() <= tol {
                return Some((x, g0));
            }
            let next = if d2 < 0.0 && newton > lo && newton < hi {
                newton
            } else {
                if !lo_checked {
                    if self.slope(lo).0 <= 0.0 {
                        return None;
                    }
                    lo_checked = true;
                }
                if !hi_checked {
                    if self.slope(hi).0 >= 0.0 {
                        return None;
                    }
                    hi_checked = true;
                }
                0.5 * (lo + hi)
            };
            if (next - x).abs() <= tol || hi - lo <= tol {
                return Some((next, self.moments(next).0));
            }
            x = next;
        }
        Some((x, self.moments(x).0))
    }
}
