//! Reading spec and model files: TOML deserialized with every error on one line, naming the
//! field it is about beside its line and column.

use super::{ModelFile, SpecError, SpecFile};
use crate::error::Cause;

/// Parses TOML text; the error is one line with the line:column of the problem.
pub fn parse(text: &str, origin: &str) -> Result<SpecFile, SpecError> {
    from_toml(text, origin)
}

/// Reads a spec from its TOML table (a front end's, the CLI's flags laid over a file): the
/// error is about the field it names (`model.drive.torque: missing field \`frequency\``),
/// with no place in a text, and says as data ([`Cause`]) when serde found a field of a table
/// missing or unknown, so the front end that made the table can name its own words for it.
pub fn parse_table(table: toml::Table) -> Result<SpecFile, SpecError> {
    serde_path_to_error::deserialize(table).map_err(|e| {
        let text = e.inner().message().split_whitespace().collect::<Vec<_>>();
        let (field, message) = split_field(&e.path().to_string(), &text.join(" "));
        // serde's own words for the two refusals (`de::Error::missing_field`,
        // `de::Error::unknown_field`), read here once, where its error is caught.
        let quoted = |s: &str| s.split('`').next().unwrap_or_default().to_string();
        let cause = match message.strip_prefix("missing field `") {
            Some(name) if !field.is_empty() => Cause::Missing {
                table: field.clone(),
                name: quoted(name),
            },
            _ => match message.split("unknown field `").nth(1) {
                Some(name) => Cause::Unknown {
                    table: field.clone(),
                    name: quoted(name),
                },
                None => Cause::Other,
            },
        };
        if field.is_empty() {
            SpecError::unled(field).text(message)
        } else {
            SpecError::new(field, message)
        }
        .because(cause)
    })
}

/// Deserializes `text`, naming in an error the field it is about (`initial.theta[1]`) beside
/// its line and column.
fn from_toml<T: serde::de::DeserializeOwned>(text: &str, origin: &str) -> Result<T, SpecError> {
    let de = toml::Deserializer::parse(text).map_err(|e| toml_error(&e, text, origin))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let err = toml_error(e.inner(), text, origin);
        SpecError::new(err.field, name_field(&path, &err.message))
    })
}

/// Marks the field an error inside a nested deserialization is about (the `[model]` table is
/// deserialized in a second pass, which the outer path cannot see into); [`name_field`] reads
/// the mark back.
const FIELD_MARK: char = '\u{1f}';

pub(crate) fn mark_field(path: &str, message: &str) -> String {
    if path.is_empty() || path == "." {
        message.to_string()
    } else {
        format!("{FIELD_MARK}{path}{FIELD_MARK}{message}")
    }
}

/// A deserialization message naming its field: `model.gravity: invalid type …` from the outer
/// path `model` and a message marked by [`mark_field`] (or unmarked, naming `path` alone).
fn name_field(path: &str, message: &str) -> String {
    match split_field(path, message) {
        (field, message) if field.is_empty() => message,
        (field, message) => format!("{field}: {message}"),
    }
}

/// [`name_field`]'s field (empty when none is known) and message apart.
fn split_field(path: &str, message: &str) -> (String, String) {
    let path = one_based(if path == "." { "" } else { path });
    let path = path.as_str();
    let (inner, rest) = match message
        .strip_prefix(FIELD_MARK)
        .and_then(|m| m.split_once(FIELD_MARK))
    {
        Some((inner, rest)) => (one_based(inner), rest),
        None => (String::new(), message),
    };
    let inner = inner.as_str();
    let full = match (path.is_empty(), inner.is_empty()) {
        (_, true) => path.to_string(),
        (true, false) => inner.to_string(),
        (false, false) => format!("{path}.{inner}"),
    };
    // A message that already names its field, or a coarser one (the line's key, from
    // `toml_error`), keeps only the finer name.
    if let Some((named, tail)) = rest.split_once(": ") {
        let coarser = full.starts_with(named)
            && matches!(
                full[named.len()..].chars().next(),
                None | Some('[') | Some('.')
            );
        if !full.is_empty() && coarser {
            return (full, tail.to_string());
        }
    }
    (full, rest.to_string())
}

/// A serde path's list indices counted from 1 (`theta[0]` → `theta[1]`), as every validation
/// message counts links and list entries.
fn one_based(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let close = rest.find(']').unwrap_or(rest.len());
        match rest[..close].parse::<usize>() {
            Ok(i) => out.push_str(&(i + 1).to_string()),
            Err(_) => out.push_str(&rest[..close]),
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Parses a stand-alone model file (the `[model]` table's fields at top level).
pub fn parse_model(text: &str, origin: &str) -> Result<ModelFile, SpecError> {
    from_toml(text, origin).map_err(|e| {
        // A whole spec given as a model file is the likely mistake: say so.
        match text.parse::<toml::Table>() {
            Ok(t) if t.contains_key("model") => SpecError::new(
                origin,
                "is a spec (it has a [model] table), not a model file: give it with --spec",
            ),
            _ => e,
        }
    })
}

fn toml_error(e: &toml::de::Error, text: &str, origin: &str) -> SpecError {
    let span = located(e, text);
    let at = span
        .clone()
        .map(|s| {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{origin}:{line}:{col}")
        })
        .unwrap_or_else(|| origin.to_string());
    let msg = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    // A message marked with its field ([`mark_field`]) is named by it, not by its line's key.
    let marked = msg.starts_with(FIELD_MARK);
    match span
        .and_then(|s| value_key(text, s.start))
        .filter(|_| !marked)
    {
        Some(key) => SpecError::new(at, format!("{key}: {msg}")),
        None => SpecError::new(at, msg),
    }
}

/// Where in `text` the error `e` is. A registered kind's table is read apart from the text
/// ([`super::KindTables`]), so its errors come without a place: the field its message names
/// is then looked up in the text (an unknown field at its key, any other error at its value).
fn located(e: &toml::de::Error, text: &str) -> Option<std::ops::Range<usize>> {
    let span = e.span();
    let Some((path, message)) = e
        .message()
        .strip_prefix(FIELD_MARK)
        .and_then(|m| m.split_once(FIELD_MARK))
    else {
        return span;
    };
    if span.as_ref().is_some_and(|s| !s.is_empty()) {
        return span;
    }
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut keys = path.split('.').peekable();
    while let Some(key) = keys.next() {
        let key = key.split('[').next()?;
        let (k, v) = table.iter().find(|(k, _)| &**k.get_ref() == key)?;
        match v.get_ref() {
            toml::de::DeValue::Table(t) if keys.peek().is_some() => table = t,
            _ if keys.peek().is_some() => return span,
            _ if message.starts_with("unknown field") => return Some(k.span()),
            _ => return Some(v.span()),
        }
    }
    span
}

/// The dotted field (`model.links`) whose value starts at byte `at`, when `at` lies after a
/// `key =` on its line: a value the parser refused (`links = 9223372036854775808`) is then
/// named, not only located. Syntax errors elsewhere give None.
fn value_key(text: &str, at: usize) -> Option<String> {
    let at = at.min(text.len());
    let start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let eq = line.find('=')?;
    if start + eq >= at {
        return None;
    }
    let key = line[..eq].trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') || key.starts_with('#') {
        return None;
    }
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn a_table_says_a_missing_or_unknown_field_as_data() {
        let base = "kind = \"simulate\"\n[initial]\ntheta = [1.0, 1.0]\n";
        let e = parse_table(table(&format!(
            "{base}[model]\npreset = \"double\"\n[model.drive.torque]\namplitude = 1.0\n"
        )))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "model.drive.torque: missing field `frequency`"
        );
        assert_eq!(
            e.cause(),
            &Cause::Missing {
                table: "model.drive.torque".into(),
                name: "frequency".into()
            }
        );
        let e = parse_table(table(&format!(
            "{base}[model]\nkind = \"cart-chain\"\nlinks = 2\npreset = \"double\"\n"
        )))
        .unwrap_err();
        assert!(
            matches!(e.cause(), Cause::Unknown { name, .. } if name == "preset"),
            "{e}"
        );
        let e = parse_table(table("kind = \"simulate\"\n[initial]\ntheta = \"x\"\n")).unwrap_err();
        assert_eq!(e.cause(), &Cause::Other, "{e}");
        assert!(
            e.to_string().starts_with("initial.theta: invalid type"),
            "{e}"
        );
    }
}
