//! The library's one way to say which input was wrong: a [`FieldError`] carries the field as
//! data (its spec key, `shifts`, `measure.max_eps`, `model.mass`), so every front end names it
//! in its own spelling from the same value: the CLI its flag (`--max-eps`), the Python package
//! its keyword (`max_eps`), a spec its path. No front end reads the field back out of the text.

use std::fmt;

/// A bad value: the field it belongs to and why. A message may name other fields too (`tau`
/// must be a multiple of `dt`); they are kept as data beside the text, so a front end spells
/// them as it spells the field itself ([`FieldError::render`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// The field, as a spec names it (`measure.shifts`) or as a library call's argument
    /// (`shifts`, which [`FieldError::within`] turns into `measure.shifts`).
    pub field: String,
    /// Why, without the field's name; the other fields it names are in `names`.
    pub message: String,
    /// Other fields the message names: (byte offset in `message`, field).
    names: Vec<(usize, String)>,
    /// Whether the line starts with the field (`field: message`, the usual form) or the
    /// message places it itself (`names` then says where).
    lead: bool,
    /// What the reader found, for a front end that words some refusals itself (boxed, rare:
    /// a field error stays small enough to return by value everywhere).
    cause: Option<Box<Cause>>,
}

/// What a spec reader found wrong with a table, as data ([`FieldError::cause`]): a field the
/// table needs and lacks, or one its type does not have. A front end that made the table
/// (the CLI from its flags) names its own words for it from these, never from the text.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Cause {
    /// `table` lacks the field `name` it needs (`model.drive.torque`, `frequency`).
    Missing { table: String, name: String },
    /// `table` has a field `name` its type does not know (`model`, `preset` on a cart chain).
    Unknown { table: String, name: String },
    /// Anything else: the message says it.
    #[default]
    Other,
}

impl FieldError {
    /// `field: message`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
            names: Vec::new(),
            lead: true,
            cause: None,
        }
    }

    /// A line that does not start with its field: built from [`FieldError::text`] and
    /// [`FieldError::name`] pieces.
    pub fn unled(field: impl Into<String>) -> FieldError {
        FieldError {
            lead: false,
            ..FieldError::new(field, "")
        }
    }

    /// Appends text to the message.
    pub fn text(mut self, t: impl AsRef<str>) -> FieldError {
        self.message.push_str(t.as_ref());
        self
    }

    /// Appends the name of another field (or of the field itself) to the message.
    pub fn name(mut self, field: impl Into<String>) -> FieldError {
        self.names.push((self.message.len(), field.into()));
        self
    }

    /// The field this error is about.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// Appends the message of `other` (without its field), the fields it names kept as data.
    pub fn then(mut self, other: &FieldError) -> FieldError {
        let at = self.message.len();
        self.names
            .extend(other.names.iter().map(|(i, f)| (at + i, f.clone())));
        self.message.push_str(&other.message);
        self
    }

    /// The same error, saying what was found as data ([`Cause`]).
    pub fn because(mut self, cause: Cause) -> FieldError {
        self.cause = match cause {
            Cause::Other => None,
            c => Some(Box::new(c)),
        };
        self
    }

    /// What the reader found ([`Cause::Other`] unless it said).
    pub fn cause(&self) -> &Cause {
        self.cause.as_deref().unwrap_or(&Cause::Other)
    }

    /// The same error about fields of the table `table` (`shifts` → `measure.shifts`).
    pub fn within(mut self, table: &str) -> FieldError {
        self.field = format!("{table}.{}", self.field);
        for (_, f) in &mut self.names {
            *f = format!("{table}.{f}");
        }
        if let Some(Cause::Missing { table: t, .. } | Cause::Unknown { table: t, .. }) =
            self.cause.as_deref_mut()
        {
            *t = format!("{table}.{t}");
        }
        self
    }

    /// The one-line message with every field spelt by `name`.
    pub fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        let body = self.body(name);
        if self.lead {
            format!("{}: {body}", name(&self.field))
        } else {
            body
        }
    }
}

impl FieldError {
    /// The message without its leading field, the other fields it names spelt by `name` (for a
    /// front end that places the field itself).
    pub fn body(&self, name: &dyn Fn(&str) -> String) -> String {
        let mut body = String::with_capacity(self.message.len() + 16);
        let mut last = 0;
        for (at, f) in &self.names {
            body.push_str(&self.message[last..*at]);
            body.push_str(&name(f));
            last = *at;
        }
        body.push_str(&self.message[last..]);
        body
    }
}

/// The fields as a spec names them.
impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&|s| s.to_string()))
    }
}

impl std::error::Error for FieldError {}

/// `v` when finite and > 0, else the error naming `field`.
pub fn positive(field: &str, v: f64) -> Result<f64, FieldError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(FieldError::new(
            field,
            format!("must be finite and > 0 (got {v})"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_spelt_by_the_front_end() {
        let e = FieldError::new("tau", "must be a whole multiple of ")
            .name("dt")
            .text(" = 0.01 s (got 0.015 s)");
        assert_eq!(
            e.to_string(),
            "tau: must be a whole multiple of dt = 0.01 s (got 0.015 s)"
        );
        let flag = |f: &str| format!("--{}", f.replace('_', "-"));
        assert_eq!(
            e.render(&flag),
            "--tau: must be a whole multiple of --dt = 0.01 s (got 0.015 s)"
        );
        assert_eq!(e.field(), "tau");
        let s = e.within("measure");
        assert_eq!(
            s.to_string(),
            "measure.tau: must be a whole multiple of measure.dt = 0.01 s (got 0.015 s)"
        );
        let u = FieldError::unled("variable")
            .text("f.h5 ")
            .name("variable")
            .text(" class");
        assert_eq!(u.render(&flag), "f.h5 --variable class");
    }

    #[test]
    fn an_appended_message_keeps_the_fields_it_names() {
        let why = FieldError::unled("max_memory")
            .text("needs 2 GB (")
            .name("max_memory")
            .text(")");
        let e = FieldError::new("orbits.map_file", "m.h5: ").then(&why);
        assert_eq!(
            e.to_string(),
            "orbits.map_file: m.h5: needs 2 GB (max_memory)"
        );
        let flag = |f: &str| format!("--{}", f.replace(['_', '.'], "-"));
        assert_eq!(
            e.render(&flag),
            "--orbits-map-file: m.h5: needs 2 GB (--max-memory)"
        );
    }
}
