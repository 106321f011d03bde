//! How the `[orbits]` table names its fields: a word among its allowed values, and a
//! library error's field (`segments`) renamed to the spec's (`orbits.segments`).

use crate::analysis::periodic::PeriodicError;
use crate::spec::SpecError;

/// `v` (default the first allowed word), which must be one of `allowed`.
pub(super) fn word<'a>(
    field: &str,
    v: Option<&'a str>,
    allowed: &[&'a str],
) -> Result<&'a str, SpecError> {
    let w = v.unwrap_or(allowed[0]);
    if allowed.contains(&w) {
        Ok(w)
    } else {
        Err(SpecError::new(
            field,
            format!("unknown `{w}` (expected {})", allowed.join(", ")),
        ))
    }
}

/// The library's field name replaced by the spec's.
pub(super) fn renamed(e: &PeriodicError, names: &[(&str, &str)]) -> SpecError {
    match e {
        PeriodicError::Invalid(f) => {
            let field = names
                .iter()
                .find(|(lib, _)| *lib == f.field())
                .map_or_else(|| f.field().to_string(), |(_, spec)| spec.to_string());
            SpecError::new(field, f.message.clone())
        }
        other => SpecError::new("orbits", other.to_string()),
    }
}
