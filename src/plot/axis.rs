//! Axes: ranges padded around finite data, linear and logarithmic ticks at nice steps, and
//! their typographic labels (true minus, ×10ⁿ, sub- and superscripts).

use super::*;

/// Finite min/max of `values` widened by `pad` (a fraction of the span) on each side.
///
/// NaN and infinite values are skipped; none left is [`DataError::NoFiniteValues`]. A
/// constant series gets a symmetric pad of 10 % of its magnitude (±1 around zero), so
/// it draws as a line in the middle instead of a degenerate axis.
pub fn nice_range(
    values: impl IntoIterator<Item = f64>,
    pad: f64,
) -> Result<(f64, f64), DataError> {
    let (lo, hi) = finite_bounds(values).ok_or_else(|| DataError::NoFiniteValues {
        what: "data".into(),
    })?;
    Ok(pad_range(lo, hi, pad))
}

fn finite_bounds(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
        })
}

fn pad_range(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    let span = hi - lo;
    let tiny = f64::EPSILON * 16.0 * lo.abs().max(hi.abs());
    if span <= tiny || span == 0.0 {
        let mid = 0.5 * (lo + hi);
        let half = if mid == 0.0 { 1.0 } else { 0.1 * mid.abs() };
        return (mid - half, mid + half);
    }
    (lo - pad * span, hi + pad * span)
}

/// An axis with our own tick positions and labels; implements plotters' [`Ranged`].
///
/// Linear axes get 1-2-5 ticks; log axes map `log10`, put labels at decades (`10ⁿ`)
/// and light grid lines at 2…9. Labels use a real minus sign and `×10ⁿ` notation for
/// very large or small numbers.
#[derive(Debug, Clone)]
pub struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    max_ticks: usize,
    major: Vec<f64>,
    minor: Vec<f64>,
}

impl Axis {
    /// Linear axis over `lo..hi` with at most about `max_ticks` labelled ticks.
    pub fn linear(lo: f64, hi: f64, max_ticks: usize) -> Axis {
        let step = nice_step((hi - lo) / max_ticks.max(1) as f64);
        let first = (lo / step).ceil() as i64;
        let last = (hi / step).floor() as i64;
        let major = (first..=last)
            .map(|i| {
                let v = i as f64 * step;
                if v.abs() < step * 1e-9 {
                    0.0
                } else {
                    v
                }
            })
            .collect();
        Axis {
            lo,
            hi,
            log: false,
            max_ticks,
            major,
            minor: Vec::new(),
        }
    }

    /// Log axis over `lo..hi` (both > 0).
    pub fn log(lo: f64, hi: f64) -> Axis {
        let (a, b) = (lo.log10(), hi.log10());
        let (d0, d1) = (a.floor() as i32, b.ceil() as i32);
        let decades = (b - a).max(1e-12);
        let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
        let every = (decades / 8.0).ceil().max(1.0) as i32;
        let mut major: Vec<f64> = (d0..=d1)
            .filter(|d| d.rem_euclid(every) == 0)
            .map(|d| 10f64.powi(d))
            .filter(inside)
            .collect();
        let mut minor: Vec<f64> = Vec::new();
        if decades <= 6.0 {
            for d in d0..=d1 {
                for m in 2..10 {
                    minor.push(f64::from(m) * 10f64.powi(d));
                }
            }
            minor.retain(inside);
        }
        if major.len() < 2 {
            // Less than a decade: label the 1…9 multiples we have instead.
            let mut mults: Vec<f64> = (d0..=d1)
                .flat_map(|d| (1..10).map(move |m| f64::from(m) * 10f64.powi(d)))
                .filter(inside)
                .collect();
            if mults.len() > 6 {
                mults.retain(|v| {
                    let m = v / 10f64.powf(v.log10().floor());
                    [1.0, 2.0, 5.0].iter().any(|k| (m - k).abs() < 1e-6)
                });
            }
            major = mults;
        }
        Axis {
            lo,
            hi,
            log: true,
            max_ticks: 0,
            major,
            minor,
        }
    }

    /// Axis fitted to the finite `values` (positive ones when `log`), padded by `pad`
    /// of the span (in decades when `log`). `what` names the data in errors.
    pub fn fit(
        values: impl IntoIterator<Item = f64>,
        log: bool,
        pad: f64,
        max_ticks: usize,
        what: &str,
    ) -> Result<Axis, DataError> {
        if log {
            let (lo, hi) =
                finite_bounds(values.into_iter().filter(|v| *v > 0.0).map(|v| v.log10()))
                    .ok_or_else(|| DataError::NoPositiveValues { what: what.into() })?;
            let (lo, hi) = if hi - lo < 1e-9 {
                (lo - 0.5, hi + 0.5)
            } else {
                pad_range(lo, hi, pad)
            };
            Ok(Axis::log(10f64.powf(lo), 10f64.powf(hi)))
        } else {
            let (lo, hi) = finite_bounds(values)
                .ok_or_else(|| DataError::NoFiniteValues { what: what.into() })?;
            let (lo, hi) = pad_range(lo, hi, pad);
            Ok(Axis::linear(lo, hi, max_ticks))
        }
    }

    /// The same axis with its span (in decades when log) stretched by `factor` above
    /// `lo`: room on top for a legend.
    pub fn with_headroom(&self, factor: f64) -> Axis {
        if self.log {
            let (a, b) = (self.lo.log10(), self.hi.log10());
            Axis::log(self.lo, 10f64.powf(a + (b - a) * factor))
        } else {
            Axis::linear(
                self.lo,
                self.lo + (self.hi - self.lo) * factor,
                self.max_ticks,
            )
        }
    }

    /// The axis limits.
    pub fn bounds(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// Whether the axis is logarithmic.
    pub fn is_log(&self) -> bool {
        self.log
    }

    /// Labelled tick positions.
    pub fn ticks(&self) -> &[f64] {
        &self.major
    }

    /// Whether `v` can be drawn on this axis (finite, and positive on a log axis).
    pub fn accepts(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    /// Position of `v` along the axis: 0 at `lo`, 1 at `hi`.
    pub fn fraction(&self, v: f64) -> f64 {
        if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }

    /// The tick label for `v`.
    pub fn label(&self, v: f64) -> String {
        if self.log {
            let e = v.log10().round();
            if (v.log10() - e).abs() < 1e-9 {
                return format!("10{}", superscript(e as i64));
            }
            if (1e-3..1e4).contains(&v) {
                return format_decimal(v, decimals_for(v));
            }
            return format_scientific(v);
        }
        let mag = self.major.iter().fold(0.0f64, |m, t| m.max(t.abs()));
        if mag >= 1e5 || (mag > 0.0 && mag < 1e-3) {
            return format_scientific(v);
        }
        let step = match self.major.as_slice() {
            [a, b, ..] => b - a,
            _ => (self.hi - self.lo) / 5.0,
        };
        format_decimal(v, decimals_for(step))
    }
}

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = self.fraction(*value);
        let f = if f.is_finite() {
            f.clamp(-10.0, 11.0)
        } else {
            0.0
        };
        limit.0 + (f64::from(limit.1 - limit.0) * f).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.minor.clone()
        } else {
            self.major.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Axis {
    fn format_ext(&self, value: &f64) -> String {
        self.label(*value)
    }
}

/// Smallest 1, 2, 2.5 or 5 × 10ⁿ at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// Fewest decimals that show `step` exactly (up to 12).
fn decimals_for(step: f64) -> usize {
    let step = step.abs();
    // The fewest decimals at which the tick step is a whole number (≥ 1), so that ticks
    // 12.2472013996, 12.2472013998, … on a narrow range stay distinct.
    (0..17)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            scaled >= 1.0 - 1e-9 && (scaled - scaled.round()).abs() < 1e-6 * scaled
        })
        .unwrap_or(16)
}

/// `v` with `decimals` decimals and a true minus sign; whatever rounds to zero reads `0`
/// (never `-0.0`, and not `0.000` beside `−0.005`: the zero tick is exact).
pub fn format_decimal(v: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, v);
    let zero = s
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.');
    if zero {
        return "0".into();
    }
    s.replace('-', "\u{2212}")
}

/// `v` in ×10ⁿ notation with up to `digits` significant decimals of the mantissa, a true minus
/// and `0` for zero: `−1.08×10⁻⁴`.
pub fn format_sci(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return format_value(v, 0);
    }
    if v == 0.0 {
        return "0".into();
    }
    let e = v.abs().log10().floor();
    let m = v / 10f64.powf(e);
    let (m, e) = if format!("{:.*}", digits, m.abs()).starts_with("10") {
        (m / 10.0, e + 1.0)
    } else {
        (m, e)
    };
    format!(
        "{}\u{d7}10{}",
        format_value(m, digits),
        superscript(e as i64)
    )
}

fn format_scientific(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let e = v.abs().log10().floor();
    let m = v / 10f64.powf(e);
    let (m, e) = if (m.abs() - 10.0).abs() < 1e-9 {
        (m / 10.0, e + 1.0)
    } else {
        (m, e)
    };
    let exp = format!("10{}", superscript(e as i64));
    if (m.abs() - 1.0).abs() < 1e-9 {
        return if m < 0.0 {
            format!("\u{2212}{exp}")
        } else {
            exp
        };
    }
    let mant = format_decimal(m, decimals_for(m).min(3));
    format!("{mant}\u{d7}{exp}")
}

fn superscript(n: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::new();
    if n < 0 {
        s.push('⁻');
    }
    for c in n.unsigned_abs().to_string().chars() {
        s.push(DIGITS[c as usize - '0' as usize]);
    }
    s
}

/// `s` with its decimal digits as Unicode subscripts (`"12"` → `"₁₂"`); other characters stay.
pub fn subscript(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32(0x2080 + c as u32 - '0' as u32).unwrap_or(c),
            _ => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_skip_nan_and_pad_constants() {
        assert_eq!(nice_range([1.0, f64::NAN, 3.0], 0.0).unwrap(), (1.0, 3.0));
        assert_eq!(nice_range([2.0, 2.0], 0.05).unwrap(), (1.8, 2.2));
        assert_eq!(nice_range([0.0], 0.05).unwrap(), (-1.0, 1.0));
        assert!(nice_range([f64::NAN, f64::INFINITY], 0.05).is_err());
    }

    #[test]
    fn labels_are_typographic() {
        let a = Axis::linear(-1.0, 1.0, 5);
        assert_eq!(a.ticks(), &[-1.0, -0.5, 0.0, 0.5, 1.0]);
        assert_eq!(a.label(-0.5), "\u{2212}0.5");
        assert_eq!(a.label(0.0), "0");
        // A tick computed as a tiny negative number is a zero, not "−0.0".
        assert_eq!(a.label(-1e-17), "0");
        assert_eq!(format_value(-0.00001, 4), "0.0000");
        assert_eq!(format_value(-0.0175, 4), "\u{2212}0.0175");
        assert_eq!(
            format_sci(-1.08e-4, 2),
            "\u{2212}1.08\u{d7}10\u{207b}\u{2074}"
        );
        assert_eq!(format_sci(9.996e2, 2), "1.00\u{d7}10\u{b3}");
        let l = Axis::log(1e-3, 10.0);
        assert_eq!(l.label(1e-3), "10⁻³");
        assert_eq!(format_scientific(2.5e-7), "2.5×10⁻⁷");
        // A narrow range far from zero keeps enough decimals to tell ticks apart.
        let n = Axis::linear(12.2472013990, 12.2472014000, 5);
        let labels: Vec<String> = n.ticks().iter().map(|&t| n.label(t)).collect();
        let mut unique = labels.clone();
        unique.dedup();
        assert_eq!(unique.len(), labels.len(), "{labels:?}");
    }
}
