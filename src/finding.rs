//! What a result says about itself, as plain data: the groups and variables of its file, its
//! JSON summary, its text report and its scalars for sweeps; and a line figure as data
//! ([`Figure`]) for the kinds whose figure is line panels.
//!
//! An analysis kind ([`crate::kinds`]) returns a [`Finding`]; the store writes its [`Record`]
//! ([`crate::store::write_record`]), the CLI prints its summary and report and a sweep keeps its
//! [`Scalar`]s, each without knowing the kind. So this module sits below all of them and knows
//! none: only numbers, names and units. Its figure is drawn through the kind
//! ([`crate::kinds::Found::draw`]), which sits above the plot layer: a section, mode shapes or
//! a 3-D chain are more than line panels, and a kind with line panels hands its [`Figure`] to
//! [`crate::plot::draw_figure`].

use ndarray::{ArrayD, IxDyn};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The result of an analysis kind, described for the front ends.
pub trait Finding: Send {
    /// The result group it writes, also the name a progress bar and a sweep show.
    fn group(&self) -> &'static str;
    /// False when a stop ended the run early (what it holds is marked incomplete).
    fn complete(&self) -> bool;
    /// The content of its result group.
    fn record(&self) -> Record;
    /// The groups it writes beside its result group, after it (a spectrum's covariant
    /// vectors, an ensemble's statistics); most kinds write none.
    fn beside(&self) -> Vec<Record> {
        Vec::new()
    }
    /// Its fields of the JSON summary (an object; the front end adds the run's wall time and
    /// the paths it wrote).
    fn summary(&self) -> serde_json::Value;
    /// Its text report (what the CLI prints without `--json`); none by default, for a result
    /// that prints its summary with `--json` only (a trajectory, the cart chain's runs).
    fn report(&self) -> String {
        String::new()
    }
    /// The numbers a sweep keeps of each point; none by default, for a result a sweep does not
    /// run (the cart chain's, whose fields are not a planar chain's; an animation).
    fn scalars(&self) -> Vec<Scalar> {
        Vec::new()
    }
    /// Which fields of the run the front end adds to the summary, of [`RUN_FIELDS`] (all by
    /// default): a result whose summary never had some (no integrator where nothing is
    /// integrated) names those it has, so that its JSON keeps its keys.
    fn run_fields(&self) -> &'static [&'static str] {
        RUN_FIELDS
    }
    /// Warnings on what it found, each one line that the CLI prints on stderr (also in its
    /// report and summary where the kind puts them); none by default.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// Told the wall time of its run (s) before the front end asks for its summary and
    /// report: a kind that reports a rate (a section's crossings per second) keeps it.
    fn timed(&mut self, _wall: f64) {}
    /// Why a run that did not complete ([`Finding::complete`]) fails, said after its report;
    /// `written`: whether its result went to a file.
    fn interrupted(&self, written: bool) -> String {
        let _ = written;
        "interrupted: the result so far was written, marked incomplete".into()
    }
}

/// The fields of the run that a front end can add to a summary ([`Finding::run_fields`]):
/// the run's kind, title, model and integrator, its wall time and the paths it wrote.
pub const RUN_FIELDS: &[&str] = &[
    "kind",
    "title",
    "model",
    "integrator",
    "wall_s",
    "output",
    "plot",
];

/// One result group: its entries in the order they are written (a coordinate before the
/// variables over it).
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// Its group's name (made for the run where a kind writes several: `check_2`, `shell_2`).
    pub name: Name,
    pub entries: Vec<Entry>,
}

/// An entry of a [`Record`].
#[derive(Debug, Clone)]
pub enum Entry {
    /// An attribute of the group.
    Attr(Name, Attr),
    /// A coordinate: a 1-d variable that is also the dimension of its name.
    Coord(Var),
    /// A variable over coordinates written before it.
    Var(Var),
    /// A group inside the group (written where it stands among the entries).
    Group(Record),
    /// What the store knows of every planar run and writes the same way everywhere: the run's
    /// title and model name as attributes, the integrator's settings, the chain's parameters
    /// (over the coordinate `link`), the initial state.
    Run(RunPart),
}

/// A shared part of a planar run's group ([`Entry::Run`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunPart {
    /// The attributes `title` and `model` (the preset name).
    Names,
    /// The integrator's name and settings as attributes.
    Method,
    /// The chain's link parameters over `link`, gravity and drive as attributes.
    Model,
    /// The variable `initial_state` over `state_component`.
    InitialState,
}

/// A variable: values over named dimensions, with CF `units` and `long_name`, and attributes
/// of its own (`flag_values`, …).
#[derive(Debug, Clone)]
pub struct Var {
    pub name: Name,
    pub dims: Vec<Name>,
    pub data: Data,
    pub units: Name,
    pub long_name: Name,
    pub attrs: Vec<(Name, Attr)>,
}

/// A name, unit or description: a literal, or text made for the run (a swept field's name).
pub type Name = Cow<'static, str>;

/// A variable's values, of the element types pendula writes.
#[derive(Debug, Clone)]
pub enum Data {
    F64(ArrayD<f64>),
    I64(ArrayD<i64>),
    I8(ArrayD<i8>),
    U8(ArrayD<u8>),
}

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    F64(f64),
    F64s(Vec<f64>),
    I64(i64),
    Bool(bool),
    Str(String),
    U8s(Vec<u8>),
}

impl From<f64> for Attr {
    fn from(v: f64) -> Attr {
        Attr::F64(v)
    }
}

impl From<[f64; 2]> for Attr {
    fn from(v: [f64; 2]) -> Attr {
        Attr::F64s(v.to_vec())
    }
}

impl From<u64> for Attr {
    fn from(v: u64) -> Attr {
        Attr::I64(v as i64)
    }
}

impl From<i64> for Attr {
    fn from(v: i64) -> Attr {
        Attr::I64(v)
    }
}

impl From<bool> for Attr {
    fn from(v: bool) -> Attr {
        Attr::Bool(v)
    }
}

impl From<&str> for Attr {
    fn from(v: &str) -> Attr {
        Attr::Str(v.to_string())
    }
}

impl From<String> for Attr {
    fn from(v: String) -> Attr {
        Attr::Str(v)
    }
}

impl Data {
    /// The lengths of its axes.
    pub fn shape(&self) -> &[usize] {
        match self {
            Data::F64(a) => a.shape(),
            Data::I64(a) => a.shape(),
            Data::I8(a) => a.shape(),
            Data::U8(a) => a.shape(),
        }
    }
}

/// Values of an array of any dimension, as [`Data`].
pub trait IntoData {
    fn into_data(self) -> Data;
}

macro_rules! into_data {
    ($t:ty, $v:ident) => {
        impl<D: ndarray::Dimension> IntoData for ndarray::Array<$t, D> {
            fn into_data(self) -> Data {
                Data::$v(self.into_dyn())
            }
        }
        impl IntoData for Vec<$t> {
            fn into_data(self) -> Data {
                let n = self.len();
                Data::$v(ArrayD::from_shape_vec(IxDyn(&[n]), self).expect("1-d"))
            }
        }
        impl IntoData for &[$t] {
            fn into_data(self) -> Data {
                self.to_vec().into_data()
            }
        }
    };
}
into_data!(f64, F64);
into_data!(i64, I64);
into_data!(i8, I8);
into_data!(u8, U8);

impl Record {
    /// An empty group `name`.
    pub fn new(name: impl Into<Name>) -> Record {
        Record {
            name: name.into(),
            entries: Vec::new(),
        }
    }

    /// Adds an attribute.
    pub fn attr(&mut self, name: impl Into<Name>, value: impl Into<Attr>) -> &mut Self {
        self.entries.push(Entry::Attr(name.into(), value.into()));
        self
    }

    /// Adds the group `sub` inside this one.
    pub fn group(&mut self, sub: Record) -> &mut Self {
        self.entries.push(Entry::Group(sub));
        self
    }

    /// Adds a shared part of the run.
    pub fn run_part(&mut self, part: RunPart) -> &mut Self {
        self.entries.push(Entry::Run(part));
        self
    }

    /// Adds the coordinate `name` with `values`.
    pub fn coord(
        &mut self,
        name: impl Into<Name>,
        values: impl IntoData,
        units: impl Into<Name>,
        long_name: impl Into<Name>,
    ) -> &mut Self {
        let name = name.into();
        self.entries.push(Entry::Coord(Var {
            dims: vec![name.clone()],
            name,
            data: values.into_data(),
            units: units.into(),
            long_name: long_name.into(),
            attrs: Vec::new(),
        }));
        self
    }

    /// Adds the integer coordinate `name` = 1..=`n`.
    pub fn index(
        &mut self,
        name: impl Into<Name>,
        n: usize,
        long_name: impl Into<Name>,
    ) -> &mut Self {
        self.coord(name, (1..=n as i64).collect::<Vec<_>>(), "1", long_name)
    }

    /// Adds a variable over `dims`; [`Record::var_attr`] adds attributes to it.
    pub fn var<N: Into<Name> + Clone>(
        &mut self,
        name: impl Into<Name>,
        dims: &[N],
        values: impl IntoData,
        units: impl Into<Name>,
        long_name: impl Into<Name>,
    ) -> &mut Self {
        self.entries.push(Entry::Var(Var {
            name: name.into(),
            dims: dims.iter().cloned().map(Into::into).collect(),
            data: values.into_data(),
            units: units.into(),
            long_name: long_name.into(),
            attrs: Vec::new(),
        }));
        self
    }

    /// Adds an attribute to the last variable added.
    pub fn var_attr(&mut self, name: impl Into<Name>, value: impl Into<Attr>) -> &mut Self {
        let name = name.into();
        match self.entries.last_mut() {
            Some(Entry::Var(v) | Entry::Coord(v)) => v.attrs.push((name, value.into())),
            _ => panic!("var_attr `{name}` follows no variable"),
        }
        self
    }
}

/// A figure as data: panels stacked top to bottom over one x axis (the plot layer's line
/// figure).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub title: String,
    /// The shared x axis label with units.
    pub x_label: String,
    pub panels: Vec<Panel>,
    pub log_x: bool,
    /// Logical size in pixels.
    pub size: (u32, u32),
}

/// One panel of a [`Figure`]: lines sharing a y axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub y_label: String,
    pub lines: Vec<Line>,
    pub log_y: bool,
}

/// One line of a [`Panel`] (NaN breaks it).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Legend text; empty for no entry.
    pub label: String,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// One number (or a short vector over `dim`: exponents, links, shells) a sweep keeps of each
/// point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scalar {
    /// Its variable name in the `sweep` group (`lambda_max`).
    pub name: String,
    /// The trailing dimension of a vector result and its coordinate values.
    pub dim: Option<(String, Vec<i64>)>,
    pub values: Vec<f64>,
    /// One standard error per value, where the analysis gives one.
    pub errors: Option<Vec<f64>>,
    pub units: String,
    pub long_name: String,
}

impl Scalar {
    /// One number.
    pub fn one(name: &str, value: f64, units: &str, long_name: &str) -> Scalar {
        Scalar {
            name: name.into(),
            dim: None,
            values: vec![value],
            errors: None,
            units: units.into(),
            long_name: long_name.into(),
        }
    }

    pub fn with_error(self, error: f64) -> Scalar {
        self.with_errors(vec![error])
    }

    /// The standard errors of the values, one each.
    pub fn with_errors(mut self, errors: Vec<f64>) -> Scalar {
        self.errors = Some(errors);
        self
    }

    /// A vector over `dim` = 1..=len.
    pub fn vector(name: &str, dim: &str, values: Vec<f64>, units: &str, long_name: &str) -> Scalar {
        Scalar {
            name: name.into(),
            dim: Some((dim.into(), (1..=values.len() as i64).collect())),
            values,
            errors: None,
            units: units.into(),
            long_name: long_name.into(),
        }
    }
}
