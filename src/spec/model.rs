//! The `[model]` table of a planar chain and the `[initial]` state.

use super::cart::CartModelSpec;
use super::{Model, SpecError};
use crate::model::textbook::{BakerGollub, Kapitza, Taylor};
use crate::model::{
    Chain, ChainParams, Damping, Drive, Harmonic, Link, LinkShape, ModelError, PivotMotion,
};
use serde::{Deserialize, Serialize};

/// The `[model]` table (also a stand-alone model file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// `planar-chain` (the default when absent).
    pub kind: Option<String>,
    pub preset: Option<String>,
    /// Number of links for the `chain` and `rods` presets.
    pub links: Option<usize>,
    /// Link length (m) for presets (default 1).
    pub length: Option<f64>,
    /// Link mass (kg) for presets (default 1).
    pub mass: Option<f64>,
    pub link: Option<Vec<LinkSpec>>,
    pub gravity: Option<f64>,
    pub damping: Option<DampingSpec>,
    pub drive: Option<DriveSpec>,
    /// Taylor's parameters, for `preset = "taylor"` (docs/textbooks.md).
    pub taylor: Option<Taylor>,
    /// Baker and Gollub's parameters, for `preset = "baker-gollub"`.
    #[serde(rename = "baker-gollub")]
    pub baker_gollub: Option<BakerGollub>,
    /// Kapitza's parameters, for `preset = "kapitza"`.
    pub kapitza: Option<Kapitza>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub length: Option<f64>,
    pub mass: Option<f64>,
    pub shape: Option<String>,
    pub com: Option<f64>,
    pub inertia: Option<f64>,
}

/// A number for every link, or one per link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PerLink {
    All(f64),
    Each(Vec<f64>),
}

impl PerLink {
    pub(super) fn expand(&self, n: usize) -> Vec<f64> {
        match self {
            PerLink::All(v) => vec![*v; n],
            PerLink::Each(v) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DampingSpec {
    pub absolute: Option<PerLink>,
    pub joint: Option<PerLink>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSpec {
    pub torque: Option<Harmonic>,
    pub pivot: Option<PivotMotion>,
}

/// The `[initial]` table. Planar chains take angles (`theta` or `theta_deg`) and rates (`omega`);
/// the cart chain takes unit directions `q` with `omega` vectors ⊥ q, or an `equilibrium` with a
/// `tilt`, and the cart's `x`, `v`. [`InitialSpec::check_model`] refuses the other model's fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialSpec {
    /// Angles (rad), absolute from the downward vertical.
    pub theta: Option<Vec<f64>>,
    /// Angles in degrees (alternative to `theta`).
    pub theta_deg: Option<Vec<f64>>,
    /// Angular velocities: rad/s per link (planar, default 0), or 3-vectors (cart chain).
    pub omega: Option<Omega>,
    /// Cart position and velocity (m, m/s).
    pub x: Option<[f64; 2]>,
    pub v: Option<[f64; 2]>,
    /// Link directions (unit vectors), cart chain.
    pub q: Option<Vec<[f64; 3]>>,
    /// An equilibrium (`hanging`, `inverted`, `folded`, signs) to start from, cart chain.
    pub equilibrium: Option<String>,
    /// Tilt (rad) of every link away from `equilibrium`.
    pub tilt: Option<f64>,
}

/// Angular velocities: one rate per planar link, or one vector per spherical link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Omega {
    Rates(Vec<f64>),
    Vectors(Vec<[f64; 3]>),
}

/// The `[model]` table of either model, told apart by `kind` (absent: a planar chain).
#[derive(Debug, Clone, PartialEq)]
pub enum ModelFile {
    Planar(ModelSpec),
    Cart(CartModelSpec),
}

impl Default for ModelFile {
    fn default() -> Self {
        ModelFile::Planar(ModelSpec::default())
    }
}

impl Serialize for ModelFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ModelFile::Planar(m) => m.serialize(s),
            ModelFile::Cart(m) => m.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ModelFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let table = toml::Table::deserialize(d)?;
        let kind = table
            .get("kind")
            .map(|k| k.as_str().unwrap_or("?").to_string());
        let value = toml::Value::Table(table);
        match kind.as_deref() {
            None | Some(PLANAR) => serde_path_to_error::deserialize(value).map(ModelFile::Planar),
            Some(CART) => serde_path_to_error::deserialize(value).map(ModelFile::Cart),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "unknown model kind `{other}` (expected {PLANAR} or {CART})"
                )))
            }
        }
        .map_err(|e| {
            let message = e.inner().message().split_whitespace().collect::<Vec<_>>();
            D::Error::custom(super::mark_field(&e.path().to_string(), &message.join(" ")))
        })
    }
}

const PLANAR: &str = "planar-chain";
const CART: &str = "cart-chain";

impl ModelFile {
    /// Builds and validates the model; returns it with a short name for titles.
    pub fn build(&self) -> Result<(Model, String), SpecError> {
        match self {
            ModelFile::Planar(m) => {
                let (chain, name) = m.build()?;
                Ok((Model::Planar(chain), name))
            }
            ModelFile::Cart(m) => Ok((Model::Cart(m.build()?), CART.to_string())),
        }
    }
}

impl ModelSpec {
    /// Builds and validates the chain; returns it with a short name for titles.
    pub fn build(&self) -> Result<(Chain, String), SpecError> {
        if let Some(built) = self.textbook()? {
            return Ok(built);
        }
        let length = self.length.unwrap_or(1.0);
        let mass = self.mass.unwrap_or(1.0);
        let (links, name) = match (&self.preset, &self.link) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "model",
                    "give either `preset` or `[[model.link]]`, not both",
                ))
            }
            (None, None) => {
                return Err(SpecError::new(
                    "model",
                    "missing: give `preset` or `[[model.link]]` tables",
                ))
            }
            (Some(p), None) => {
                let (count, shape) = match p.as_str() {
                    "simple" => (1, LinkShape::Point),
                    "double" => (2, LinkShape::Point),
                    "triple" => (3, LinkShape::Point),
                    "chain" | "rods" => {
                        let n = self.links.ok_or_else(|| {
                            SpecError::new("model.links", format!("preset `{p}` needs the number of links"))
                        })?;
                        (n, if p == "rods" { LinkShape::Rod } else { LinkShape::Point })
                    }
                    other => {
                        return Err(SpecError::new(
                            "model.preset",
                            format!("unknown preset `{other}` (expected simple, double, triple, chain, rods, taylor, baker-gollub or kapitza)"),
                        ))
                    }
                };
                if let Some(n) = self.links {
                    if n != count && !matches!(p.as_str(), "chain" | "rods") {
                        return Err(SpecError::new(
                            "model.links",
                            format!("preset `{p}` has {count} links (got links = {n})"),
                        ));
                    }
                }
                (vec![Link::shaped(length, mass, shape); count], p.clone())
            }
            (None, Some(list)) => {
                if self.links.is_some() || self.length.is_some() || self.mass.is_some() {
                    return Err(SpecError::new(
                        "model",
                        "`links`, `length` and `mass` apply to presets; give them per [[model.link]]",
                    ));
                }
                let mut links = Vec::with_capacity(list.len());
                for (i, l) in list.iter().enumerate() {
                    links.push(l.build(i + 1)?);
                }
                (links, "custom".to_string())
            }
        };
        let n = links.len();
        let damping = match &self.damping {
            None => Damping::default(),
            Some(d) => Damping {
                absolute: d.absolute.as_ref().map_or(vec![], |v| v.expand(n)),
                joint: d.joint.as_ref().map_or(vec![], |v| v.expand(n)),
            },
        };
        let drive = match &self.drive {
            None => Drive::default(),
            Some(d) => Drive {
                torque: d.torque,
                pivot: d.pivot,
            },
        };
        let params = ChainParams {
            links,
            gravity: self.gravity.unwrap_or(ChainParams::G),
            damping,
            drive,
        };
        let chain = Chain::new(params).map_err(|e| model_error(e, self.preset.is_some()))?;
        check_physical(&chain, self.preset.is_some())?;
        Ok((chain, name))
    }
}

impl ModelSpec {
    /// The chain of a textbook preset (`taylor`, `baker-gollub`, `kapitza`), built from its
    /// table alone ([`crate::model::textbook`] holds each mapping); `None` for another preset.
    /// A textbook table without its preset, or a chain field beside one, is refused: the
    /// preset sets them all.
    fn textbook(&self) -> Result<Option<(Chain, String)>, SpecError> {
        let tables = [
            ("taylor", self.taylor.is_some()),
            ("baker-gollub", self.baker_gollub.is_some()),
            ("kapitza", self.kapitza.is_some()),
        ];
        let preset = self.preset.as_deref().unwrap_or("");
        for (name, given) in tables {
            if given && preset != name {
                return Err(SpecError::new(
                    format!("model.{name}"),
                    format!("applies to preset = \"{name}\" (the preset is `{preset}`)"),
                ));
            }
        }
        let params = match preset {
            "taylor" => self.taylor.as_ref().map(Taylor::chain_params),
            "baker-gollub" => self.baker_gollub.as_ref().map(BakerGollub::chain_params),
            "kapitza" => self.kapitza.as_ref().map(Kapitza::chain_params),
            _ => return Ok(None),
        }
        .ok_or_else(|| {
            SpecError::new(
                format!("model.{preset}"),
                format!("missing: preset `{preset}` takes its parameters from [model.{preset}] (docs/textbooks.md)"),
            )
        })?;
        super::refuse_given(
            "model",
            &[
                ("links", self.links.is_some()),
                ("length", self.length.is_some()),
                ("mass", self.mass.is_some()),
                ("link", self.link.is_some()),
                ("gravity", self.gravity.is_some()),
                ("damping", self.damping.is_some()),
                ("drive", self.drive.is_some()),
            ],
            &format!("is set by preset `{preset}` from [model.{preset}]"),
        )?;
        let table = format!("model.{preset}");
        let chain =
            Chain::new(params).map_err(|e| SpecError::new(table.as_str(), e.to_string()))?;
        check_physical(&chain, true)
            .map_err(|e| SpecError::new(table.as_str(), format!("makes {e}")))?;
        Ok(Some((chain, preset.to_string())))
    }
}

/// A chain a parameter changed ([`crate::model::Parameter::set`]), checked as a spec's chain is
/// when it is built (its errors name the spec's fields: `model.mass` for a preset).
pub(crate) fn checked_chain(
    chain: Result<Chain, ModelError>,
    preset: bool,
) -> Result<Chain, SpecError> {
    let chain = chain.map_err(|e| model_error(e, preset))?;
    check_physical(&chain, preset)?;
    Ok(chain)
}

/// Lengths and masses in [`super::SIZE_RANGE`], masses within [`super::MAX_MASS_RATIO`], and a
/// last link with inertia about its pivot: what keeps the mass matrix numerically SPD.
fn check_physical(chain: &Chain, preset: bool) -> Result<(), SpecError> {
    let links = &chain.params().links;
    let field = |i: usize, name: &str| {
        if preset {
            format!("model.{name}")
        } else {
            format!("model.link[{}].{name}", i + 1)
        }
    };
    for (i, l) in links.iter().enumerate() {
        super::in_size_range(&field(i, "length"), l.length, "m")?;
        super::in_size_range(&field(i, "mass"), l.mass, "kg")?;
    }
    let masses: Vec<(String, f64)> = links
        .iter()
        .enumerate()
        .map(|(i, l)| (field(i, "mass"), l.mass))
        .collect();
    super::mass_ratio(&masses)?;
    if let Some(last) = links.last() {
        // Nothing below the last link sees its angle: it needs a moment of inertia of its own.
        let inertia = last.mass * last.com * last.com + last.inertia;
        if inertia.is_nan() || inertia <= 0.0 {
            return Err(SpecError::new(
                field(links.len() - 1, "com"),
                "the last link needs com > 0 or inertia > 0 (its angle would have no inertia)",
            ));
        }
    }
    Ok(())
}

fn model_error(e: ModelError, preset: bool) -> SpecError {
    match &e {
        ModelError::NoLinks => SpecError::new(
            if preset { "model.links" } else { "model.link" },
            "a chain needs at least one link (got 0)",
        ),
        ModelError::Link {
            link,
            field,
            value,
            why,
        } => {
            let f = if preset && matches!(*field, "length" | "mass") {
                format!("model.{field}")
            } else {
                format!("model.link[{link}].{field}")
            };
            SpecError::new(f, format!("{why} (got {value})"))
        }
        ModelError::Parameter { field, value, why } => {
            SpecError::new(format!("model.{field}"), format!("{why} (got {value})"))
        }
        ModelError::Length { field, got, links } => SpecError::new(
            format!("model.{field}"),
            format!("has {got} entries but the chain has {links} links"),
        ),
    }
}

impl LinkSpec {
    fn build(&self, i: usize) -> Result<Link, SpecError> {
        let f = |name: &str| format!("model.link[{i}].{name}");
        let length = self
            .length
            .ok_or_else(|| SpecError::new(f("length"), "missing"))?;
        let mass = self
            .mass
            .ok_or_else(|| SpecError::new(f("mass"), "missing"))?;
        match (&self.shape, self.com, self.inertia) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(SpecError::new(
                f("shape"),
                "give either `shape` or `com` + `inertia`, not both",
            )),
            (Some(s), None, None) => match s.as_str() {
                "point" => Ok(Link::point(length, mass)),
                "rod" => Ok(Link::rod(length, mass)),
                other => Err(SpecError::new(
                    f("shape"),
                    format!("unknown shape `{other}` (expected point or rod)"),
                )),
            },
            (None, None, None) => Ok(Link::point(length, mass)),
            (None, com, inertia) => Ok(Link::given(
                length,
                mass,
                com.ok_or_else(|| SpecError::new(f("com"), "missing (needed with `inertia`)"))?,
                inertia
                    .ok_or_else(|| SpecError::new(f("inertia"), "missing (needed with `com`)"))?,
            )),
        }
    }
}

impl InitialSpec {
    /// True when nothing is given.
    pub fn is_empty(&self) -> bool {
        *self == InitialSpec::default()
    }

    /// Refuses the fields of the other model, naming the field.
    pub fn check_model(&self, model: &Model) -> Result<(), SpecError> {
        let (foreign, owner): (&[(&str, bool)], &str) = match model {
            Model::Planar(_) => (
                &[
                    ("x", self.x.is_some()),
                    ("v", self.v.is_some()),
                    ("q", self.q.is_some()),
                    ("equilibrium", self.equilibrium.is_some()),
                    ("tilt", self.tilt.is_some()),
                ],
                CART,
            ),
            Model::Cart(_) => (
                &[
                    ("theta", self.theta.is_some()),
                    ("theta_deg", self.theta_deg.is_some()),
                ],
                PLANAR,
            ),
        };
        super::refuse_given(
            "initial",
            foreign,
            &format!("applies to the {owner} model, not the {} one", model.kind()),
        )
    }

    /// The initial state (θ, θ̇) for a chain of `n` links.
    pub fn state(&self, n: usize) -> Result<Vec<f64>, SpecError> {
        let theta = match (&self.theta, &self.theta_deg) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "initial.theta",
                    "give either `theta` or `theta_deg`, not both",
                ))
            }
            (Some(t), None) => t.clone(),
            (None, Some(t)) => t.iter().map(|d| d.to_radians()).collect(),
            (None, None) => {
                return Err(SpecError::new(
                    "initial.theta",
                    "missing: give the initial angles (rad)",
                ))
            }
        };
        let field = if self.theta.is_some() {
            "initial.theta"
        } else {
            "initial.theta_deg"
        };
        if theta.len() != n {
            return Err(SpecError::new(
                field,
                format!("has {} values but the chain has {n} links", theta.len()),
            ));
        }
        let omega = match &self.omega {
            Some(Omega::Rates(w)) => w.clone(),
            Some(Omega::Vectors(_)) => {
                return Err(SpecError::new(
                    "initial.omega",
                    "a planar chain takes one rate (rad/s) per link",
                ))
            }
            None => vec![0.0; n],
        };
        if omega.len() != n {
            return Err(SpecError::new(
                "initial.omega",
                format!("has {} values but the chain has {n} links", omega.len()),
            ));
        }
        let (max_angle, unit) = if self.theta.is_some() {
            (super::MAX_ANGLE, "rad")
        } else {
            (super::MAX_ANGLE.to_degrees(), "degrees")
        };
        let given_angles = self.theta.as_ref().or(self.theta_deg.as_ref());
        super::bounded(field, given_angles.map_or(&theta, |v| v), max_angle, unit)?;
        super::bounded("initial.omega", &omega, super::MAX_RATE, "rad/s")?;
        Ok(theta.into_iter().chain(omega).collect())
    }
}
