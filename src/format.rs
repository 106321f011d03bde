//! How a number is written for people, in one place for every front end: text reports
//! ([`num`]), JSON summaries ([`f64_json`]), figure text ([`format_value`]) and the choices a
//! refusal lists ([`one_of`]). A leaf: the
//! analyses' self-descriptions, the plots and the CLI all use it.

use serde_json::json;

/// A number for a text report: fixed-point when it reads well, else scientific.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if (1e-3..1e5).contains(&a) {
        format!("{v:.6}")
    } else {
        format!("{v:.4e}")
    }
}

/// A finite number, or JSON `null` (JSON has no NaN or infinity).
pub fn f64_json(v: f64) -> serde_json::Value {
    if v.is_finite() {
        json!(v)
    } else {
        serde_json::Value::Null
    }
}

/// `v` for a figure's text (legends, captions, titles): `decimals` decimals with a true minus,
/// a value that rounds to zero as `0` with the sign dropped, never `-0.0000`.
pub fn format_value(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "∞".into()
        } else {
            "\u{2212}∞".into()
        };
    }
    let s = format!("{:.*}", decimals, v);
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        return format!("{:.*}", decimals, 0.0);
    }
    s.replace('-', "\u{2212}")
}

/// Names as a message lists the choices: `a, b, … or z` (one name alone as it is).
pub fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}
