//! The ranges a model's sizes and an initial state must lie in, so that the arithmetic on
//! them stays far from binary64's limits, and the refusal of fields that do not apply.

use super::SpecError;

/// The lengths (m) and masses (kg) a model takes: a wide physical range whose squares and
/// products stay far from binary64's underflow and overflow (a length of 5e-324 squares to 0
/// and leaves the mass matrix singular).
pub const SIZE_RANGE: (f64, f64) = (1e-6, 1e6);

/// Largest ratio of two masses of one model (the cart's included): the mass matrix's Cholesky
/// factor subtracts the mass below a link from the mass at it, so a light body beside a body
/// 1e16 times heavier vanishes in round-off (`mass = 1e150` on a 1 kg cart is not SPD); 1e8
/// keeps at least 8 of its digits.
pub const MAX_MASS_RATIO: f64 = 1e8;

/// Largest |θ| (rad) and |θ̇| (rad/s) of an initial state: beyond 1e6 rad binary64 keeps fewer
/// than ten digits of the angle mod 2π, and 1e308 only overflows the energy.
pub const MAX_ANGLE: f64 = 1e6;
pub const MAX_RATE: f64 = 1e6;
/// Largest |x| (m) and |v| (m/s) of the cart's initial position and velocity, for the same
/// reason.
pub const MAX_POSITION: f64 = 1e6;

/// Refuses a length or mass outside [`SIZE_RANGE`], naming `field`.
pub(super) fn in_size_range(field: &str, v: f64, unit: &str) -> Result<(), SpecError> {
    let (lo, hi) = SIZE_RANGE;
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(SpecError::new(
            field,
            format!("must be between {lo:e} and {hi:e} {unit} (got {v:e})"),
        ))
    }
}

/// Refuses masses whose ratio exceeds [`MAX_MASS_RATIO`]: `masses` are `(field, kg)`, the
/// lightest is named.
pub(super) fn mass_ratio(masses: &[(String, f64)]) -> Result<(), SpecError> {
    let heaviest = masses.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let lightest = masses.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(h), Some(l)) = (heaviest, lightest) {
        if h.1 / l.1 > MAX_MASS_RATIO {
            return Err(SpecError::new(
                l.0.clone(),
                format!(
                    "{:e} kg is {:.1e} times lighter than {} ({:e} kg); the limit is a ratio of {MAX_MASS_RATIO:e} (the mass matrix would lose the lighter body in round-off)",
                    l.1, h.1 / l.1, h.0, h.1
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses an initial angle or rate beyond [`MAX_ANGLE`] / [`MAX_RATE`]; `values` are one
/// field's list (`field[i]` is named).
pub(super) fn bounded(field: &str, values: &[f64], max: f64, unit: &str) -> Result<(), SpecError> {
    if let Some(i) = values.iter().position(|v| v.is_nan() || v.abs() > max) {
        return Err(SpecError::new(
            format!("{field}[{}]", i + 1),
            format!(
                "must be finite with |value| <= {max:e} {unit} (got {:e})",
                values[i]
            ),
        ));
    }
    Ok(())
}

/// Refuses the first of `fields` (`(name, given)` in `table`) that was given: it does not
/// apply, and `why` says so.
pub(crate) fn refuse_given(
    table: &str,
    fields: &[(&str, bool)],
    why: &str,
) -> Result<(), SpecError> {
    match fields.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(SpecError::new(format!("{table}.{name}"), why)),
        None => Ok(()),
    }
}
