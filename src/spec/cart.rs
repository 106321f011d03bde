//! Specs of the chain of spherical pendulums on a cart: `[model] kind = "cart-chain"`.
//!
//! ```toml
//! kind = "control"                 # simulate | modes | lyapunov | control
//! [model]
//! kind = "cart-chain"
//! links = 2
//! length = 1.0                     # or one per link: [1.0, 0.8]
//! mass = 1.0
//! cart_mass = 1.0                  # or fixed = true (inertial pivot)
//! gravity = 9.81
//! cart_damping = 0.0               # N s/m
//! joint_damping = 0.0              # N m s, one or per link
//! # input = { kind = "harmonic", amplitude = [1.0, 0.0], omega = 2.0, phase = 0.0 }
//! [initial]                        # explicit q (unit vectors) and omega (⊥ q), cart x, v …
//! q = [[0.3, 0.0, 0.954], [0.0, 0.1, 0.995]]
//! # … or an equilibrium with every link tilted by `tilt` rad (towards one common 3-D azimuth)
//! # equilibrium = "inverted"; tilt = 0.05
//! [control]
//! equilibrium = "inverted"
//! t_end = 20.0
//! ```
//!
//! Initial directions that are not unit vectors, or ω not ⊥ q, are rejected (not normalized).

use super::{InitialSpec, Omega, PerLink, SpecError};
use crate::analysis::cart::parse_signs;
use crate::model::{CartChain, CartChainParams, CartInput, ModelError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CartModelSpec {
    /// Must be "cart-chain".
    pub kind: Option<String>,
    pub links: Option<usize>,
    pub length: Option<PerLink>,
    pub mass: Option<PerLink>,
    pub cart_mass: Option<f64>,
    pub fixed: Option<bool>,
    pub gravity: Option<f64>,
    pub cart_damping: Option<f64>,
    pub joint_damping: Option<PerLink>,
    pub input: Option<InputSpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// "zero" or "harmonic".
    pub kind: String,
    pub amplitude: Option<[f64; 2]>,
    pub omega: Option<f64>,
    pub phase: Option<f64>,
}

/// The title of a cart-chain spec that gives none.
pub(super) fn default_title(kind: &str, chain: &CartChain) -> String {
    let n = chain.links();
    let what = if chain.free() {
        "on a cart"
    } else {
        "on a fixed pivot"
    };
    format!(
        "{kind}: {n} spherical pendulum{} {what}",
        if n == 1 { "" } else { "s" }
    )
}

fn model_error(e: ModelError) -> SpecError {
    match e {
        ModelError::Link { link, field, .. } => {
            SpecError::new(format!("model.{field}[{link}]"), e.to_string())
        }
        ModelError::Parameter { ref field, .. } => {
            SpecError::new(format!("model.{field}"), e.to_string())
        }
        ModelError::Length { field, .. } => SpecError::new(format!("model.{field}"), e.to_string()),
        ModelError::NoLinks => SpecError::new("model.links", e.to_string()),
    }
}

impl CartModelSpec {
    /// The model (input zero unless `input` says otherwise).
    pub fn build(&self) -> Result<CartChain, SpecError> {
        if self.kind.as_deref() != Some("cart-chain") {
            return Err(SpecError::new("model.kind", "must be \"cart-chain\""));
        }
        let n = match (self.links, &self.length, &self.mass) {
            (Some(n), _, _) => n,
            (None, Some(PerLink::Each(v)), _) | (None, None, Some(PerLink::Each(v))) => v.len(),
            _ => 2,
        };
        if n == 0 {
            return Err(SpecError::new("model.links", "must be >= 1 (got 0)"));
        }
        let per = |field: &str, v: &Option<PerLink>, d: f64| -> Result<Vec<f64>, SpecError> {
            let out = v.as_ref().map_or(vec![d; n], |p| p.expand(n));
            if out.len() != n {
                return Err(SpecError::new(
                    format!("model.{field}"),
                    format!("has {} entries but the chain has {n} links", out.len()),
                ));
            }
            Ok(out)
        };
        let fixed = self.fixed.unwrap_or(false);
        let cart_mass = match (fixed, self.cart_mass) {
            (true, Some(_)) => {
                return Err(SpecError::new(
                    "model.cart_mass",
                    "give either `cart_mass` or `fixed = true`, not both",
                ))
            }
            (true, None) => None,
            (false, m) => Some(m.unwrap_or(1.0)),
        };
        let input = match &self.input {
            None => CartInput::Zero,
            Some(i) => match i.kind.as_str() {
                "zero" => CartInput::Zero,
                "harmonic" => CartInput::Harmonic {
                    amplitude: i.amplitude.ok_or_else(|| {
                        SpecError::new("model.input.amplitude", "is required for a harmonic input")
                    })?,
                    omega: i.omega.ok_or_else(|| {
                        SpecError::new("model.input.omega", "is required for a harmonic input")
                    })?,
                    phase: i.phase.unwrap_or(0.0),
                },
                other => {
                    return Err(SpecError::new(
                        "model.input.kind",
                        format!("unknown input `{other}` (expected zero or harmonic)"),
                    ))
                }
            },
        };
        let lengths = per("length", &self.length, 1.0)?;
        let masses = per("mass", &self.mass, 1.0)?;
        // One value for every link names the field; a list names the entry.
        let name = |field: &str, list: &Option<PerLink>, i: usize| match list {
            Some(PerLink::Each(_)) => format!("model.{field}[{}]", i + 1),
            _ => format!("model.{field}"),
        };
        for i in 0..n {
            super::in_size_range(&name("length", &self.length, i), lengths[i], "m")?;
            super::in_size_range(&name("mass", &self.mass, i), masses[i], "kg")?;
        }
        let mut all: Vec<(String, f64)> = (0..n)
            .map(|i| (name("mass", &self.mass, i), masses[i]))
            .collect();
        if let Some(m) = cart_mass {
            super::in_size_range("model.cart_mass", m, "kg")?;
            all.push(("model.cart_mass".into(), m));
        }
        super::mass_ratio(&all)?;
        let p = CartChainParams {
            lengths,
            masses,
            cart_mass,
            gravity: self.gravity.unwrap_or(9.81),
            cart_damping: self.cart_damping.unwrap_or(0.0),
            joint_damping: match &self.joint_damping {
                None => Vec::new(),
                some => per("joint_damping", some, 0.0)?,
            },
            input,
        };
        CartChain::new(p).map_err(model_error)
    }
}

impl InitialSpec {
    /// The cart chain's initial state, checked on the manifold (non-unit q and ω not ⊥ q are
    /// errors).
    pub fn cart_state(&self, chain: &CartChain) -> Result<Vec<f64>, SpecError> {
        let n = chain.links();
        let x = self.x.unwrap_or([0.0; 2]);
        let v = self.v.unwrap_or([0.0; 2]);
        super::bounded("initial.x", &x, super::MAX_POSITION, "m")?;
        super::bounded("initial.v", &v, super::MAX_POSITION, "m/s")?;
        if let Some(Omega::Vectors(w)) = &self.omega {
            let flat: Vec<f64> = w.iter().flatten().copied().collect();
            super::bounded("initial.omega", &flat, super::MAX_RATE, "rad/s")?;
        }
        if let Some(t) = self.tilt {
            super::bounded("initial.tilt", &[t], super::MAX_ANGLE, "rad")?;
        }
        if !chain.free() && (self.x.is_some() || self.v.is_some()) {
            return Err(SpecError::new(
                "initial.x",
                "a fixed cart has no position or velocity",
            ));
        }
        let s = match (&self.q, &self.equilibrium) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "initial.equilibrium",
                    "give either `q` or `equilibrium`, not both",
                ))
            }
            (Some(q), None) => {
                if q.len() != n {
                    return Err(SpecError::new(
                        "initial.q",
                        format!("has {} entries but the chain has {n} links", q.len()),
                    ));
                }
                if self.tilt.is_some() {
                    return Err(SpecError::new(
                        "initial.tilt",
                        "applies to `equilibrium` only",
                    ));
                }
                let w = match &self.omega {
                    Some(Omega::Vectors(w)) => w.clone(),
                    Some(Omega::Rates(r)) if r.is_empty() => vec![],
                    Some(Omega::Rates(_)) => {
                        return Err(SpecError::new(
                            "initial.omega",
                            "a cart chain takes one angular-velocity vector [x, y, z] per link",
                        ))
                    }
                    None => vec![[0.0; 3]; n],
                };
                if w.len() != n {
                    return Err(SpecError::new(
                        "initial.omega",
                        format!("has {} entries but the chain has {n} links", w.len()),
                    ));
                }
                chain.state(x, v, q, &w)
            }
            (None, eq) => {
                if self.omega.is_some() {
                    return Err(SpecError::new("initial.omega", "needs `q`"));
                }
                let signs = parse_signs(eq.as_deref().unwrap_or("hanging"), n)
                    .map_err(|e| SpecError::new("initial.equilibrium", e.to_string()))?;
                let tilt = self.tilt.unwrap_or(0.0);
                if !tilt.is_finite() {
                    return Err(SpecError::new("initial.tilt", "must be finite"));
                }
                let mut s = crate::analysis::cart::perturbed_equilibrium(chain, &signs, tilt, x);
                if chain.free() {
                    s[2] = v[0];
                    s[3] = v[1];
                }
                s
            }
        };
        chain.check_state(&s).map_err(|e| match e {
            ModelError::Parameter { ref field, .. } => {
                SpecError::new(format!("initial.{field}"), e.to_string())
            }
            other => SpecError::new("initial", other.to_string()),
        })?;
        Ok(s)
    }
}
