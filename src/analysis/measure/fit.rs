//! Ordinary least-squares line fits with the slope's standard error.

/// y = intercept + slope·x fitted by least squares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    pub slope: f64,
    pub intercept: f64,
    /// Standard error of the slope from the residuals (0 with two points).
    pub slope_se: f64,
    /// Residual standard error s = √(Σr²/(n−2)).
    pub residual_se: f64,
    pub points: usize,
}

impl LineFit {
    /// Fits the finite pairs of `x`, `y`; `None` with fewer than two.
    pub fn fit(x: &[f64], y: &[f64]) -> Option<LineFit> {
        let pts: Vec<(f64, f64)> = x
            .iter()
            .zip(y)
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|(a, b)| (*a, *b))
            .collect();
        let n = pts.len();
        if n < 2 {
            return None;
        }
        let nf = n as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / nf;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / nf;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let slope = sxy / sxx;
        let intercept = my - slope * mx;
        let (residual_se, slope_se) = if n > 2 {
            let rss: f64 = pts
                .iter()
                .map(|p| (p.1 - intercept - slope * p.0).powi(2))
                .sum();
            let s = (rss / (nf - 2.0)).sqrt();
            (s, s / sxx.sqrt())
        } else {
            (0.0, 0.0)
        };
        Some(LineFit {
            slope,
            intercept,
            slope_se,
            residual_se,
            points: n,
        })
    }

    /// Half-width of the slope's 95 % interval from the fit alone (Student t, n−2 dof).
    pub fn half_width(&self) -> f64 {
        if self.points > 2 {
            t_quantile_975(self.points - 2) * self.slope_se
        } else {
            0.0
        }
    }
}

/// The 97.5 % quantile of Student's t with `dof` degrees of freedom (table to 30, then the
/// normal value 1.96): two-sided 95 % intervals from few fitted scales.
pub fn t_quantile_975(dof: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match dof {
        0 => f64::INFINITY,
        d if d <= 30 => T[d - 1],
        _ => 1.96,
    }
}
