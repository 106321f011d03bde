//! What a kind is to the layers around it: its registry entry ([`Kind`]), its spec table as
//! the spec holds it (plain TOML, read by the kind: [`read_table`]), its validated settings
//! ([`Settings`], held by the spec as [`Registered`]) and what a run runs on ([`Input`]: the
//! model, planar or cart chain, that the entry says it runs on). Each kind's folder implements
//! these; `kinds/mod.rs` lists the kinds.

use super::memory::Term;
use crate::analysis::map::MapOptions;
use crate::error::FieldError;
use crate::finding::Finding;
use crate::integrate::Method;
use crate::kinds::RunError;
use crate::model::{Chain, Model, Parameter};
use crate::observe::Observer;
use crate::plot::PlotError;
use crate::spec::{Figures, InitialSpec, IntegratorSpec, Sweep};
use crate::store::{H5Out, Provenance, RunInfo, StoreError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::path::Path;

/// A registered analysis kind: what `kind = "…"` names, its spec table `[name]` and its
/// command offer. The spec keeps the table as TOML; the kind alone knows its fields.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// Its name in specs, its table, its command and its result group.
    pub name: &'static str,
    /// The one-line help of its command.
    pub about: &'static str,
    /// Its spec table: how it is read, echoed and validated ([`table_of`] its table type).
    pub table: TableOf,
    /// The models it runs on, by their names in specs ([`Model::kind`]): the spec refuses it
    /// on any other.
    pub models: &'static [&'static str],
    /// Whether its run prints a text report: a run that does not, with no file, figure or
    /// JSON to write, has nothing to show and is refused.
    pub reports: bool,
    /// Whether a `[sweep]` runs it: its result gives the scalars a sweep tabulates
    /// ([`crate::finding::Finding::scalars`]). An orbits run varies its own parameter (its
    /// branch, its diagram) and keeps none; a closed loop and an animation have none.
    pub swept: bool,
}

impl Kind {
    /// Validates its table (empty when the spec has none) for a run on `model` (one of
    /// [`Kind::models`]) from the rest of the spec ([`SpecParts`]): the run's settings, its
    /// integrator and its start.
    pub fn validate(&self, table: &toml::Table, model: &Model, spec: &dyn SpecParts) -> Validation {
        (self.table.validate)(self.name, table, model, spec)
    }

    /// Whether it runs on `model` ([`Kind::models`]).
    pub fn runs_on(&self, model: &Model) -> bool {
        self.models.contains(&model.kind())
    }
}

/// The models of a kind that runs on the planar chain only ([`Kind::models`]).
pub const PLANAR_ONLY: &[&str] = &["planar-chain"];

/// The planar chain of `model` for kind `kind`, which runs on it only; on another model the
/// refusal a run of it has always met.
pub fn planar_chain<'m>(kind: &str, model: &'m Model) -> Result<&'m Chain, FieldError> {
    model.planar().ok_or_else(|| {
        FieldError::unled("kind").text(format!("{kind} is offered for the planar chain only"))
    })
}

/// What a kind's validation gives: its settings, its integrator and its initial state.
pub type Validation = Result<(Registered, Method, Vec<f64>), FieldError>;

/// A kind's spec table type: read and echoed by serde, validated for a run on a model.
pub trait Table: DeserializeOwned + Serialize {
    /// Validates the table for a run on `model` (one the kind runs on), reading the rest of
    /// the spec through `spec`.
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation;
}

/// How the registry reads, echoes and validates a kind's table ([`table_of`]).
#[derive(Debug, Clone, Copy)]
pub struct TableOf {
    /// Reads its table as written ([`read_table`] of its table type): unknown fields and
    /// wrong types, the table's own included (`simulate = 3`), are refused here, when the
    /// spec is parsed.
    pub read: fn(toml::Value) -> Result<toml::Table, TableError>,
    /// Its table's fields in the order its type declares them ([`table_fields`]), the order
    /// in which a spec echoes the table.
    pub fields: fn() -> &'static [&'static str],
    /// Its validation ([`Kind::validate`]), given the kind's name.
    validate: fn(&'static str, &toml::Table, &Model, &dyn SpecParts) -> Validation,
}

/// The registry's handling of the table type `T`.
pub const fn table_of<T: Table>() -> TableOf {
    TableOf {
        read: read_table::<T>,
        fields: table_fields::<T>,
        validate: validate_as::<T>,
    }
}

/// The table of kind `kind` as its type `T`, validated ([`Table::validate`]).
fn validate_as<T: Table>(
    kind: &'static str,
    table: &toml::Table,
    model: &Model,
    spec: &dyn SpecParts,
) -> Validation {
    typed_table::<T>(kind, table)?.validate(model, spec)
}

/// The models of a kind that runs on either model ([`Kind::models`]).
pub const EITHER_MODEL: &[&str] = &["planar-chain", "cart-chain"];

/// What a kind's validation reads of the spec besides its own table: its `[integrator]` and
/// its `[initial]` (the spec's tables, which the kind does not parse itself), and for a
/// measure spec its `[map]`, `output.file` and the points of its sweep.
pub trait SpecParts {
    /// The spec's `[integrator]` table as written: the kind asks it for its method
    /// ([`IntegratorSpec::method`]), with its own defaults where it has them.
    fn integrator(&self) -> &IntegratorSpec;
    /// Whether the spec gives an `[initial]` state.
    fn has_start(&self) -> bool;
    /// The `[initial]` state in the model's coordinates (a missing one refused as every kind
    /// refuses it).
    fn start(&self) -> Result<Vec<f64>, FieldError>;
    /// Whether the model is a preset (a varied chain's errors then name `model.mass`, not
    /// `model.link[1].mass`).
    fn preset(&self) -> bool;
    /// Whether the spec's model as written takes the field `name` (`parameter`) at `value`:
    /// set in its tables and built (a link's own field needs `[[model.link]]` tables, the
    /// chain-wide mass and length a preset); else why not.
    fn model_takes(&self, name: &str, parameter: Parameter, value: f64) -> Result<(), String>;
    /// [`SpecParts::start`] of a cart chain that, where `[initial]` gives no `q`, starts at
    /// `equilibrium` tilted by `tilt` rad unless it names its own (a start near the
    /// equilibrium a run steers to); a planar chain's is its [`SpecParts::start`].
    fn start_near(&self, equilibrium: &str, tilt: f64) -> Result<Vec<f64>, FieldError>;
    /// The spec's `[initial]` table as written: for a kind that starts from part of it (a
    /// map's pixels set two coordinates of its state).
    fn initial(&self) -> &InitialSpec;
    /// The spec's `[map]` validated as a map run: its options, start and integrator (None:
    /// the spec has no `[map]`), for a kind that computes the map it measures.
    fn map_run(&self) -> Result<Option<(MapOptions, Vec<f64>, Method)>, FieldError>;
    /// `output.file` as the spec gives it.
    fn output_file(&self) -> Option<&Path>;
    /// The points of a measure spec's `[measure.sweep]` (`parameter` over `values`): each the
    /// spec as a whole spec file with the field set, its map kept beside `map_file`
    /// (`-01`, `-02`, …), validated.
    fn measure_points(
        &self,
        parameter: Option<&str>,
        values: &[f64],
        map_file: &Path,
    ) -> Result<Sweep, FieldError>;
}

/// Why a kind's table could not be read: the field inside the table (`terms`, empty for the
/// table itself) and the reader's message.
#[derive(Debug, Clone, PartialEq)]
pub struct TableError {
    pub path: String,
    pub message: String,
}

/// Reads a table of type `T` (what [`Kind::read`] is for a kind whose table type is `T`):
/// checked field by field, and given back as `T` writes it, so that a spec echoes its tables
/// the same way whether they came from a file, flags or Python.
pub fn read_table<T: DeserializeOwned + Serialize>(
    table: toml::Value,
) -> Result<toml::Table, TableError> {
    let typed: T = serde_path_to_error::deserialize(table).map_err(|e| {
        let path = e.path().to_string();
        TableError {
            path: if path == "." { String::new() } else { path },
            message: e.inner().message().to_string(),
        }
    })?;
    toml::Table::try_from(&typed).map_err(|e| TableError {
        path: String::new(),
        message: e.to_string(),
    })
}

/// The fields of the table type `T` in the order it declares them: the list serde's derive
/// hands to a deserializer, caught by one that reads nothing.
pub fn table_fields<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut catch = FieldCatcher(&[]);
    let _ = T::deserialize(&mut catch);
    catch.0
}

/// A deserializer that keeps the field list of the struct asked of it and fails every call.
struct FieldCatcher(&'static [&'static str]);

impl<'de> serde::Deserializer<'de> for &mut FieldCatcher {
    type Error = serde::de::value::Error;
    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("only a struct's fields are read"))
    }
    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        self.deserialize_any(v)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The table of kind `kind` as its type `T`, for its validation (read before by
/// [`read_table`], so an error here names a table built in code, not a file).
pub fn typed_table<T: DeserializeOwned>(kind: &str, table: &toml::Table) -> Result<T, FieldError> {
    T::deserialize(toml::Value::Table(table.clone()))
        .map_err(|e| FieldError::new(kind, e.message().to_string()))
}

/// A validated run of a kind: its options, checked, which know what the run needs and how it
/// runs.
pub trait Settings: Same + std::fmt::Debug + Send + Sync {
    /// The kind it is a run of.
    fn kind(&self) -> &'static Kind;
    /// The model time one trajectory of the run integrates and the field that sets it (None:
    /// no time integration to speak of).
    fn time_span(&self) -> Option<(f64, &'static str)>;
    /// What the run holds in memory besides the model, term by term, for a chain of `links`
    /// links and `dim` states.
    fn memory(&self, links: usize, dim: f64) -> Vec<Term>;
    /// [`Settings::memory`] of shard `shard` (`(i, n)`, `--shard i/n`) of the run: a map's
    /// shard holds only its own tiles; a kind that is not sharded holds the same either way.
    fn memory_of_shard(&self, links: usize, dim: f64, _shard: Option<(usize, usize)>) -> Vec<Term> {
        self.memory(links, dim)
    }
    /// What the run is, in a few words, for a front end's dry run and closing line: the
    /// kind's name unless the run has a variant worth naming.
    fn describe(&self) -> String {
        self.kind().name.to_string()
    }
    /// The parameter a run varies over a range, for its default title
    /// ([`crate::spec::swept_title`]); None for a run at one value, which most are.
    fn varied(&self) -> Option<Swept<'_>> {
        None
    }
    /// Runs it on `input`, reporting to `observer` and stopping when its token is set.
    fn execute(&self, input: &Input<'_>, observer: &mut dyn Observer) -> Executed;
}

/// What a kind's run gives: its result, or why there is none.
pub type Executed = Result<Box<dyn Found>, RunError>;

/// A kind's result as the front ends hold it: what it says about itself ([`Finding`]) and its
/// figure, which it draws with the plot layer. The figure is drawn here rather than described
/// in [`Finding`] because `finding` sits below the plot layer, and a section, mode shapes or a
/// 3-D chain are more than the line panels [`crate::finding::Figure`] describes.
pub trait Found: Finding {
    /// Draws its figure to `path` (PNG or SVG by its extension).
    fn draw(&self, path: &Path) -> Result<(), PlotError>;
    /// Draws the still figures its run was asked for besides its figure, with or without it
    /// (a simulation's `[figures]`); most kinds have none.
    fn draw_stills(&self) -> Result<(), PlotError> {
        Ok(())
    }
    /// The writer of a result that writes its file's content itself, its root included,
    /// instead of as records (None: the store writes its [`Finding::record`] and
    /// [`Finding::beside`]). A map held in memory hands each tile to the file as its band is
    /// written, freeing it, so that it is never in memory twice: it is one such result, and
    /// is never asked for a record.
    fn own_content(&mut self) -> Option<&mut dyn OwnContent> {
        None
    }
}

/// A result that writes its file's content itself ([`Found::own_content`]).
pub trait OwnContent {
    /// Writes the file's whole content into `out`, the provenance `prov` at its root.
    fn write(&mut self, out: &H5Out, prov: &Provenance) -> Result<(), StoreError>;
}

/// What a run of a kind runs on: the validated spec's title, model, integrator and start.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub title: &'a str,
    /// Preset name, "custom" or "cart-chain".
    pub model_name: &'a str,
    pub model: &'a Model,
    pub method: &'a Method,
    /// Initial state in the model's coordinates (planar: (θ, θ̇)).
    pub x0: &'a [f64],
    /// The spec's still figures (`[figures]`), which a simulation draws besides its figure.
    pub figures: &'a Figures,
    /// The spec as TOML (what a map file keeps, with its provenance, to be rebuilt from).
    pub text: &'a str,
}

impl<'a> Input<'a> {
    /// The planar chain, for kind `kind` that runs on it only ([`planar_chain`]).
    pub fn planar(&self, kind: &str) -> Result<&'a Chain, FieldError> {
        planar_chain(kind, self.model)
    }

    /// The record of the run the store writes beside a result on the planar chain (None on
    /// the cart chain, whose results write their run themselves).
    pub fn run_info(&self) -> Option<RunInfo<'a>> {
        Some(RunInfo {
            title: self.title,
            model_name: self.model_name,
            chain: self.model.planar()?,
            method: self.method,
            x0: self.x0,
        })
    }
}

/// Cloning and comparing a [`Settings`] behind a box (what a spec, which is cloned and
/// compared, needs of it); every `Clone + PartialEq` settings type has it.
pub trait Same {
    fn clone_box(&self) -> Box<dyn Settings>;
    fn same(&self, other: &dyn Settings) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Settings + Clone + PartialEq + 'static> Same for T {
    fn clone_box(&self) -> Box<dyn Settings> {
        Box::new(self.clone())
    }
    fn same(&self, other: &dyn Settings) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A validated run of a registered kind, as the spec holds it.
#[derive(Debug)]
pub struct Registered(pub Box<dyn Settings>);

/// A parameter a run varies over a range ([`Settings::varied`]): its spec name, long name and
/// CF units, and the range's ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Swept<'a> {
    pub name: &'a str,
    pub long_name: &'a str,
    pub units: &'a str,
    pub range: [f64; 2],
}

impl Clone for Registered {
    fn clone(&self) -> Self {
        Registered(self.0.clone_box())
    }
}

impl PartialEq for Registered {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_ref())
    }
}

impl std::ops::Deref for Registered {
    type Target = dyn Settings;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}
