//! MEGNO (Cincotta & Simó 2000): Y(t) = (2/t) ∫₀ᵗ s r(s) ds with r = δ̇·δ / δ·δ along a
//! tangent vector, and its mean ⟨Y⟩(t) = (1/t) ∫₀ᵗ Y ds. r is scale-invariant, so δ may be
//! renormalised freely. A pure accumulator over samples of r, for the single-orbit estimator
//! and the map kind alike.

/// Running MEGNO integrals by the trapezoid rule over samples (t, r(t)) fed in time order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Megno {
    t: f64,
    /// s·r(s) at the last sample.
    sr: f64,
    /// ∫₀ᵗ s r(s) ds.
    int_sr: f64,
    /// Y at the last sample and ∫₀ᵗ Y ds.
    y: f64,
    int_y: f64,
    started: bool,
}

impl Megno {
    pub fn new() -> Megno {
        Megno::default()
    }

    /// Adds the sample r(t) (t after the previous sample's; the first sample fixes t₀ = its t,
    /// normally 0).
    pub fn push(&mut self, t: f64, r: f64) {
        let sr = t * r;
        if !self.started {
            *self = Megno {
                t,
                sr,
                started: true,
                ..Megno::default()
            };
            return;
        }
        let h = t - self.t;
        self.int_sr += 0.5 * h * (self.sr + sr);
        let y = if t > 0.0 { 2.0 * self.int_sr / t } else { 0.0 };
        self.int_y += 0.5 * h * (self.y + y);
        (self.t, self.sr, self.y) = (t, sr, y);
    }

    /// Y(t) at the last sample.
    pub fn y(&self) -> f64 {
        self.y
    }

    /// ⟨Y⟩(t) at the last sample (0 before any time has passed).
    pub fn mean(&self) -> f64 {
        if self.t > 0.0 {
            self.int_y / self.t
        } else {
            0.0
        }
    }
}

/// Least-squares slope of `ys` over `ts` (the MEGNO slope over the second half → λ_max/2).
pub fn slope(ts: &[f64], ys: &[f64]) -> f64 {
    let n = ts.len().min(ys.len()) as f64;
    let (mt, my) = (ts.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (t, y) in ts.iter().zip(ys) {
        sxy += (t - mt) * (y - my);
        sxx += (t - mt) * (t - mt);
    }
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A linear saddle's unstable direction, δ(t) = e^{λt}: r ≡ λ, Y = λt, ⟨Y⟩ = λt/2, so the
    /// slope over the second half is λ/2 (the trapezoid rule is exact on these integrands).
    #[test]
    fn saddle_gives_half_its_rate() {
        let (lam, h) = (0.7, 1e-2);
        let mut m = Megno::new();
        let (mut ts, mut ys) = (vec![], vec![]);
        for k in 0..=10_000 {
            let t = k as f64 * h;
            // r from the analytic δ = e^{λt} and δ̇ = λ e^{λt}, renormalised each sample.
            let (d, dd) = (1.0, lam);
            m.push(t, dd * d / (d * d));
            if k >= 5_000 {
                ts.push(t);
                ys.push(m.mean());
            }
        }
        assert!((slope(&ts, &ys) - lam / 2.0).abs() < 1e-6);
        assert!((m.y() - lam * 100.0).abs() < 1e-9);
    }

    /// A rotation-like regular tangent, |δ|² = 1 + t² (linear shear): ⟨Y⟩ → 2.
    #[test]
    fn shear_tends_to_two() {
        let h = 1e-2;
        let mut m = Megno::new();
        for k in 0..=100_000 {
            let t = k as f64 * h;
            m.push(t, t / (1.0 + t * t));
        }
        assert!((m.mean() - 2.0).abs() < 0.05, "{}", m.mean());
    }
}
