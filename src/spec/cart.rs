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

use super::{positive, IntegratorSpec, OutputSpec, PerLink, SpecError};
use crate::analysis::cart::{parse_signs, LqrWeights};
use crate::analysis::LyapunovOptions;
use crate::integrate::Method;
use crate::model::{CartChain, CartChainParams, CartInput, ModelError};
use serde::{Deserialize, Serialize};

/// The analysis kinds a cart-chain spec can ask for.
pub const CART_KINDS: [&str; 4] = ["simulate", "modes", "lyapunov", "control"];

/// Whether a spec (or model file) text describes a cart chain (`[model] kind = "cart-chain"`,
/// or a bare model table with `kind = "cart-chain"`).
pub fn is_cart_chain(text: &str) -> bool {
    let Ok(t) = text.parse::<toml::Table>() else {
        return false;
    };
    let model_kind = t
        .get("model")
        .and_then(|m| m.get("kind"))
        .or_else(|| t.get("kind").filter(|_| !t.contains_key("model")));
    model_kind.and_then(|k| k.as_str()) == Some("cart-chain")
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CartSpecFile {
    pub kind: Option<String>,
    pub title: Option<String>,
    #[serde(default)]
    pub model: CartModelSpec,
    #[serde(default)]
    pub initial: CartInitialSpec,
    #[serde(default)]
    pub integrator: IntegratorSpec,
    pub simulate: Option<CartSimulateSpec>,
    pub modes: Option<CartModesSpec>,
    pub lyapunov: Option<CartLyapunovSpec>,
    pub control: Option<ControlSpec>,
    #[serde(default)]
    pub output: OutputSpec,
}

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

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CartInitialSpec {
    pub x: Option<[f64; 2]>,
    pub v: Option<[f64; 2]>,
    pub q: Option<Vec<[f64; 3]>>,
    pub omega: Option<Vec<[f64; 3]>>,
    pub equilibrium: Option<String>,
    pub tilt: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CartSimulateSpec {
    pub t_end: Option<f64>,
    pub dt_out: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CartModesSpec {
    /// "hanging" (default), "all", or sign strings ("+-", "inverted", "folded").
    pub equilibria: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CartLyapunovSpec {
    pub tau: Option<f64>,
    pub transient: Option<f64>,
    pub time: Option<f64>,
    /// Number of exponents (default all 4n + 4, or 4n fixed).
    pub exponents: Option<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    /// The equilibrium to stabilize (default "inverted").
    pub equilibrium: Option<String>,
    pub q_cart: Option<f64>,
    pub q_angle: Option<f64>,
    pub q_rate: Option<f64>,
    pub r: Option<f64>,
    /// Where the cart should come to rest (default [0, 0]).
    pub x_ref: Option<[f64; 2]>,
    pub t_end: Option<f64>,
    pub dt_out: Option<f64>,
}

/// A validated cart-chain analysis.
#[derive(Debug, Clone)]
pub enum CartAnalysis {
    Simulate {
        t_end: f64,
        dt_out: f64,
    },
    Modes {
        equilibria: Vec<Vec<f64>>,
    },
    Lyapunov(LyapunovOptions),
    Control {
        signs: Vec<f64>,
        weights: LqrWeights,
        x_ref: [f64; 2],
        t_end: f64,
        dt_out: f64,
    },
}

impl CartAnalysis {
    pub fn kind(&self) -> &'static str {
        match self {
            CartAnalysis::Simulate { .. } => "simulate",
            CartAnalysis::Modes { .. } => "modes",
            CartAnalysis::Lyapunov(_) => "lyapunov",
            CartAnalysis::Control { .. } => "control",
        }
    }
}

#[derive(Debug, Clone)]
pub struct CartSpec {
    pub title: String,
    pub chain: CartChain,
    pub x0: Vec<f64>,
    pub method: Method,
    pub analysis: CartAnalysis,
    pub output: OutputSpec,
    pub text: String,
}

/// Parses a cart-chain spec; errors name the line and column like [`super::parse`].
pub fn parse_cart(text: &str, origin: &str) -> Result<CartSpecFile, SpecError> {
    toml::from_str(text).map_err(|e| super::toml_error(&e, text, origin))
}

/// Parses a stand-alone cart-chain model table (the fields of a spec's `[model]`).
pub fn parse_cart_model(text: &str, origin: &str) -> Result<CartModelSpec, SpecError> {
    toml::from_str(text).map_err(|e| super::toml_error(&e, text, origin))
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
        let p = CartChainParams {
            lengths: per("length", &self.length, 1.0)?,
            masses: per("mass", &self.mass, 1.0)?,
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

impl CartInitialSpec {
    /// The initial state, checked on the manifold (non-unit q and ω not ⊥ q are errors).
    pub fn state(&self, chain: &CartChain) -> Result<Vec<f64>, SpecError> {
        let n = chain.links();
        let x = self.x.unwrap_or([0.0; 2]);
        let v = self.v.unwrap_or([0.0; 2]);
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
                let w = self.omega.clone().unwrap_or_else(|| vec![[0.0; 3]; n]);
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

impl CartSpecFile {
    /// Validates everything before any work starts.
    pub fn validate(&self, text: &str) -> Result<CartSpec, SpecError> {
        let kind = self.kind.as_deref().ok_or_else(|| {
            SpecError::new(
                "kind",
                format!("missing (expected {})", CART_KINDS.join(", ")),
            )
        })?;
        for (section, present) in [
            ("simulate", self.simulate.is_some()),
            ("modes", self.modes.is_some()),
            ("lyapunov", self.lyapunov.is_some()),
            ("control", self.control.is_some()),
        ] {
            if present && kind != section {
                return Err(SpecError::new(
                    section,
                    format!("this section belongs to kind = \"{section}\", not \"{kind}\""),
                ));
            }
        }
        let chain = self.model.build()?;
        let n = chain.links();
        let (analysis, dt_out) = match kind {
            "simulate" => {
                let s = self.simulate.clone().unwrap_or_default();
                let t_end = positive("simulate.t_end", s.t_end.unwrap_or(10.0))?;
                let dt_out = positive("simulate.dt_out", s.dt_out.unwrap_or(0.01))?;
                (CartAnalysis::Simulate { t_end, dt_out }, Some(dt_out))
            }
            "modes" => {
                let m = self.modes.clone().unwrap_or_default();
                let words = m.equilibria.unwrap_or_else(|| vec!["hanging".into()]);
                let mut equilibria = Vec::new();
                for w in &words {
                    if w == "all" {
                        if n > 10 {
                            return Err(SpecError::new(
                                "modes.equilibria",
                                "\"all\" is limited to n <= 10 links (2^n equilibria)",
                            ));
                        }
                        equilibria.extend(crate::analysis::cart::all_signs(n));
                    } else {
                        equilibria.push(
                            parse_signs(w, n)
                                .map_err(|e| SpecError::new("modes.equilibria", e.to_string()))?,
                        );
                    }
                }
                (CartAnalysis::Modes { equilibria }, None)
            }
            "lyapunov" => {
                let l = self.lyapunov.clone().unwrap_or_default();
                let d = LyapunovOptions::default();
                let dim = chain_dim(&chain);
                if let Some(k) = l.exponents {
                    if k == 0 || k > dim {
                        return Err(SpecError::new(
                            "lyapunov.exponents",
                            format!(
                                "must be between 1 and the phase-space dimension {dim} (got {k})"
                            ),
                        ));
                    }
                }
                let transient = l.transient.unwrap_or(d.transient);
                if !(transient.is_finite() && transient >= 0.0) {
                    return Err(SpecError::new(
                        "lyapunov.transient",
                        "must be finite and >= 0",
                    ));
                }
                let opts = LyapunovOptions {
                    k: l.exponents,
                    tau: positive("lyapunov.tau", l.tau.unwrap_or(d.tau))?,
                    transient,
                    time: positive("lyapunov.time", l.time.unwrap_or(d.time))?,
                    ..d
                };
                (CartAnalysis::Lyapunov(opts), None)
            }
            "control" => {
                let c = self.control.clone().unwrap_or_default();
                let signs = parse_signs(c.equilibrium.as_deref().unwrap_or("inverted"), n)
                    .map_err(|e| SpecError::new("control.equilibrium", e.to_string()))?;
                if !chain.free() {
                    return Err(SpecError::new(
                        "model.fixed",
                        "control needs a moving cart (give cart_mass, not fixed = true)",
                    ));
                }
                if !matches!(chain.params().input, CartInput::Zero) {
                    return Err(SpecError::new(
                        "model.input",
                        "control computes the input; leave model.input out",
                    ));
                }
                let d = LqrWeights::default();
                let weights = LqrWeights {
                    q_cart: positive("control.q_cart", c.q_cart.unwrap_or(d.q_cart))?,
                    q_angle: positive("control.q_angle", c.q_angle.unwrap_or(d.q_angle))?,
                    q_rate: positive("control.q_rate", c.q_rate.unwrap_or(d.q_rate))?,
                    r: positive("control.r", c.r.unwrap_or(d.r))?,
                };
                let t_end = positive("control.t_end", c.t_end.unwrap_or(20.0))?;
                let dt_out = positive("control.dt_out", c.dt_out.unwrap_or(0.01))?;
                let x_ref = c.x_ref.unwrap_or([0.0; 2]);
                if !x_ref.iter().all(|v| v.is_finite()) {
                    return Err(SpecError::new("control.x_ref", "must be finite"));
                }
                (
                    CartAnalysis::Control {
                        signs,
                        weights,
                        x_ref,
                        t_end,
                        dt_out,
                    },
                    Some(dt_out),
                )
            }
            other => {
                return Err(SpecError::new(
                    "kind",
                    format!(
                        "unknown analysis kind `{other}` for a cart chain (expected {})",
                        CART_KINDS.join(", ")
                    ),
                ))
            }
        };
        let x0 = self.initial.state(&chain)?;
        let method = self.integrator.method(dt_out)?;
        let what = if chain.free() {
            "on a cart"
        } else {
            "on a fixed pivot"
        };
        let title = self.title.clone().unwrap_or_else(|| {
            format!(
                "{kind}: {n} spherical pendulum{} {what}",
                if n == 1 { "" } else { "s" }
            )
        });
        Ok(CartSpec {
            title,
            chain,
            x0,
            method,
            analysis,
            output: self.output.clone(),
            text: text.to_string(),
        })
    }
}

fn chain_dim(c: &CartChain) -> usize {
    use crate::model::System;
    c.manifold_dim()
}
