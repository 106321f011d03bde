//! The tables of the registered kinds ([`crate::kinds::KINDS`]) in a spec: `[frequencies]` and
//! any kind added to the registry, without a field of their own in [`SpecFile`]. The spec
//! keeps each as TOML, read by its kind when the spec is parsed (`Kind::read`: unknown fields
//! and wrong types are refused there), and hands it to the kind's validation.

use super::reading::mark_field;
use super::SpecFile;
use crate::kinds::{self, KINDS};
use serde::de::{Error, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The registered kinds' tables of a spec, by kind name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KindTables(BTreeMap<String, toml::Table>);

impl KindTables {
    /// The table of kind `name`, if the spec has one.
    pub fn get(&self, name: &str) -> Option<&toml::Table> {
        self.0.get(name)
    }

    /// The table of kind `name`, an empty one added if the spec has none (a sweep sets a
    /// field of it).
    pub fn table_mut(&mut self, name: &str) -> &mut toml::Table {
        self.0.entry(name.to_string()).or_default()
    }

    /// The kinds whose tables the spec has.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

/// The top-level fields of a spec, in the order an unknown field's message lists them: the
/// fields of [`SpecFile`], the registered kinds' tables where they stand among them.
fn fields() -> &'static [&'static str] {
    static FIELDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let (before, after) = SpecFile::FIELDS.split_at(SpecFile::REGISTERED_AT);
        // A kind registered since it had a field of its own keeps its place in the list.
        let kinds = KINDS
            .iter()
            .map(|k| k.name)
            .filter(|k| !SpecFile::FIELDS.contains(k));
        before
            .iter()
            .copied()
            .chain(kinds)
            .chain(after.iter().copied())
            .collect()
    })
}

/// Each table with its fields in the order its kind declares them (a spec's echo reads as
/// the kind's other specs do), any other key after them.
impl Serialize for KindTables {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, table) in &self.0 {
            let order = kinds::named(name).map_or(&[][..], |k| (k.table.fields)());
            map.serialize_entry(name, &InOrder(table, order))?;
        }
        map.end()
    }
}

/// A table serialized with the keys of `.1` first, in that order.
struct InOrder<'a>(&'a toml::Table, &'static [&'static str]);

impl Serialize for InOrder<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let InOrder(table, order) = *self;
        let mut map = s.serialize_map(Some(table.len()))?;
        for key in order {
            if let Some(v) = table.get(*key) {
                map.serialize_entry(key, v)?;
            }
        }
        for (k, v) in table.iter().filter(|(k, _)| !order.contains(&k.as_str())) {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The keys [`SpecFile`] does not know itself: a registered kind's table, read by the kind;
/// anything else is an unknown field, refused with serde's own message.
impl<'de> Deserialize<'de> for KindTables {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Tables;
        impl<'de> Visitor<'de> for Tables {
            type Value = KindTables;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the tables of a spec")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<KindTables, A::Error> {
                let mut tables = BTreeMap::new();
                while let Some(key) = a.next_key::<String>()? {
                    let Some(kind) = kinds::named(&key) else {
                        // serde's own message, marked with its field so that it is placed.
                        let e = serde::de::value::Error::unknown_field(&key, fields());
                        return Err(A::Error::custom(mark_field(&key, &e.to_string())));
                    };
                    // Any value: the kind's table type refuses one that is not a table, in its
                    // own words (`expected struct SimulateSpec`).
                    let table = a
                        .next_value::<toml::Value>()
                        .map_err(|e| A::Error::custom(mark_field(&key, &e.to_string())))?;
                    let read = (kind.table.read)(table).map_err(|e| {
                        let path = match e.path.as_str() {
                            "" => key.clone(),
                            p => format!("{key}.{p}"),
                        };
                        A::Error::custom(mark_field(&path, &e.message))
                    })?;
                    tables.insert(key, read);
                }
                Ok(KindTables(tables))
            }
        }
        d.deserialize_map(Tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse;

    const HEAD: &str =
        "kind = \"frequencies\"\n[model]\npreset = \"double\"\n[initial]\ntheta = [0.1, 0.1]\n";

    #[test]
    fn every_listed_field_is_a_field_of_the_spec() {
        // A wrong type for a known field is refused for its type, never as unknown.
        for name in fields() {
            let e = parse(&format!("{name} = true\n"), "t")
                .unwrap_err()
                .to_string();
            assert!(!e.contains("unknown field"), "{name}: {e}");
        }
        let e = parse("frequencie = 3\n", "t").unwrap_err().to_string();
        assert_eq!(
            e,
            "t:1:1: frequencie: unknown field `frequencie`, expected one of `kind`, `title`, `model`, \
             `initial`, `integrator`, `simulate`, `modes`, `lyapunov`, `poincare`, `map`, `animate`, \
             `control`, `measure`, `orbits`, `frequencies`, `manifolds`, `figures`, `sweep`, `output`"
        );
    }

    #[test]
    fn an_error_in_a_kind_table_names_its_field_where_it_stands() {
        let e = parse(
            &format!("{HEAD}[frequencies]\nt_end = 10.0\nterms = \"a\"\n"),
            "t",
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "t:8:9: frequencies.terms: invalid type: string \"a\", expected usize"
        );
        let e = parse(
            &format!("{HEAD}[frequencies]\nt_end = 10.0\nterm = 3\n"),
            "t",
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "t:8:1: frequencies.term: unknown field `term`, expected one of `t_end`, `dt_out`, \
             `window_order`, `terms`, `combination_order`, `omega_ref`"
        );
        let e = parse(&format!("{HEAD}frequencies = 3\n"), "t").unwrap_err();
        assert!(
            e.to_string().contains("initial.frequencies: unknown field"),
            "{e}"
        );
        let e = parse("kind = \"frequencies\"\nfrequencies = 3\n", "t").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t:2:15: frequencies: invalid type"),
            "{e}"
        );
    }

    #[test]
    fn a_kind_table_is_kept_as_written_and_validated_by_its_kind() {
        let file = parse(
            &format!("{HEAD}[frequencies]\nterms = 4\ndt_out = 0.02\nt_end = 20.0\n"),
            "t",
        )
        .unwrap();
        let t = file.registered.get("frequencies").unwrap();
        assert_eq!(t.get("terms").and_then(|v| v.as_integer()), Some(4));
        assert_eq!(file.registered.names().collect::<Vec<_>>(), ["frequencies"]);
        // Its TOML form reads back the same (what flags are laid over, what a file echoes),
        // the table's fields in the order its type declares them.
        let text = toml::to_string(&file).unwrap();
        assert!(
            text.contains("[frequencies]\nt_end = 20.0\ndt_out = 0.02\nterms = 4\n"),
            "{text}"
        );
        let again = parse(&text, "t").unwrap();
        assert_eq!(again, file);
        let fields = (kinds::named("frequencies").unwrap().table.fields)();
        assert_eq!(fields[..2], ["t_end", "dt_out"]);
        assert_eq!(fields.len(), 6);
        let spec = file.validate().unwrap();
        let r = &spec.analysis;
        assert_eq!(r.kind().name, "frequencies");
        // An even number of samples at dt_out = 0.02 s: 1000, the last at 19.98 s.
        let (t, field) = r.time_span().unwrap();
        assert!(
            (t - 19.98).abs() < 1e-9 && field == "frequencies.t_end",
            "{t} {field}"
        );
        // No table: the kind names what it misses.
        let e = parse(HEAD, "t").unwrap().validate().unwrap_err();
        assert_eq!(e.to_string(), "frequencies.t_end: missing");
        // A table of another kind is refused as not the spec's.
        let e = parse(&format!("{HEAD}[frequencies]\nt_end = 1.0\n"), "t").unwrap();
        let mut other = e.clone();
        other.kind = Some("simulate".into());
        let e = other.validate().unwrap_err().to_string();
        assert!(
            e.starts_with("frequencies: this section belongs to kind = \"frequencies\""),
            "{e}"
        );
    }
}
