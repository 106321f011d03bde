//! The textbook pendulums of docs/textbooks.md as one-link chains built from the textbook's own
//! parameters: Taylor's driven damped pendulum (γ, β, ω₀, ω), Baker and Gollub's dimensionless
//! one (q, g, ω_D) and Kapitza's pendulum on a vibrated pivot (a, Ω, l, g). Each `chain_params`
//! is the one place its mapping is written; [`TEXTBOOK_PARAMETERS`] names every textbook
//! parameter as a spec, a flag and a file name it (`model.taylor.gamma`), with its long name
//! and units, and the chain's field it equals where it is one.

use super::forcing::angular_frequency;
use super::{ChainParams, Damping, Drive, Harmonic, Link, Parameter, PivotMotion};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Taylor, *Classical Mechanics* (2005), ch. 12: φ̈ + 2β φ̇ + ω₀² sin φ = γ ω₀² cos ωt. The
/// defaults are his chapter's: ω = 2π, ω₀ = 1.5 ω, β = ω₀/4.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Taylor {
    /// Drive strength γ = F₀/(m g) (dimensionless).
    pub gamma: f64,
    /// Damping constant β (s⁻¹).
    #[serde(default = "taylor_beta")]
    pub beta: f64,
    /// Natural frequency ω₀ (rad/s).
    #[serde(default = "taylor_omega0", deserialize_with = "angular_frequency")]
    pub omega0: f64,
    /// Drive frequency ω (rad/s).
    #[serde(default = "taylor_omega", deserialize_with = "angular_frequency")]
    pub omega: f64,
}

fn taylor_omega() -> f64 {
    2.0 * PI
}
fn taylor_omega0() -> f64 {
    3.0 * PI
}
fn taylor_beta() -> f64 {
    0.75 * PI
}

impl Taylor {
    /// l = 1 m, m = 1/ω₀² kg, g = ω₀² m/s², c = 2β/ω₀² N·m·s, A = γ N·m, Ω = ω: then
    /// c/(m l²) = 2β, g/l = ω₀² and A/(m l²) = γ ω₀², Taylor's equation in his time.
    pub fn chain_params(&self) -> ChainParams {
        let w2 = self.omega0 * self.omega0;
        one_link(
            1.0,
            1.0 / w2,
            w2,
            2.0 * self.beta / w2,
            Some(Harmonic {
                amplitude: self.gamma,
                frequency: self.omega,
                phase: 0.0,
            }),
            None,
        )
    }
}

/// Baker and Gollub, *Chaotic Dynamics* (2nd ed., 1996): dω/dt = −ω/q − sin θ + g cos φ,
/// dφ/dt = ω_D, in dimensionless time; the defaults are their cascade's q = 2, ω_D = 2/3.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BakerGollub {
    /// Drive amplitude g (dimensionless; their name, not gravity).
    pub g: f64,
    /// Quality factor q (dimensionless).
    #[serde(default = "bg_q")]
    pub q: f64,
    /// Drive frequency ω_D (dimensionless, in units of the natural frequency).
    #[serde(default = "bg_omega_d", deserialize_with = "angular_frequency")]
    pub omega_d: f64,
}

fn bg_q() -> f64 {
    2.0
}
fn bg_omega_d() -> f64 {
    2.0 / 3.0
}

impl BakerGollub {
    /// l = m = 1, gravity 1, c = 1/q, A = g, Ω = ω_D.
    pub fn chain_params(&self) -> ChainParams {
        one_link(
            1.0,
            1.0,
            1.0,
            1.0 / self.q,
            Some(Harmonic {
                amplitude: self.g,
                frequency: self.omega_d,
                phase: 0.0,
            }),
            None,
        )
    }
}

/// Kapitza's pendulum (Kapitza 1951; Acheson 1997): a point mass on a rod of length l whose
/// pivot moves vertically, y = a cos Ωt; l θ̈ + (g − aΩ² cos Ωt) sin θ = 0. Defaults l = 1 m,
/// g = 9.81 m/s².
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kapitza {
    /// The pivot's amplitude a (m).
    pub a: f64,
    /// The pivot's angular frequency Ω (rad/s, or "60 Hz").
    #[serde(deserialize_with = "angular_frequency")]
    pub omega: f64,
    /// The rod's length l (m).
    #[serde(default = "kapitza_l")]
    pub l: f64,
    /// Gravity g (m/s²).
    #[serde(default = "kapitza_g")]
    pub g: f64,
}

fn kapitza_l() -> f64 {
    1.0
}
fn kapitza_g() -> f64 {
    9.81
}

impl Kapitza {
    /// A 1 kg point mass on l, gravity g, pivot y = a cos Ωt (the mass drops out of (2)).
    pub fn chain_params(&self) -> ChainParams {
        one_link(
            self.l,
            1.0,
            self.g,
            0.0,
            None,
            Some(PivotMotion {
                x_amplitude: 0.0,
                y_amplitude: self.a,
                frequency: self.omega,
                phase: 0.0,
            }),
        )
    }
}

fn one_link(
    length: f64,
    mass: f64,
    gravity: f64,
    damping: f64,
    torque: Option<Harmonic>,
    pivot: Option<PivotMotion>,
) -> ChainParams {
    ChainParams {
        links: vec![Link::point(length, mass)],
        gravity,
        damping: Damping {
            absolute: if damping == 0.0 {
                vec![]
            } else {
                vec![damping]
            },
            joint: vec![],
        },
        drive: Drive { torque, pivot },
    }
}

/// A textbook's parameter: its name as a spec, a flag (`--taylor-gamma`) and a file name it,
/// the figure's label, its CF units, and the chain's field it equals (`None` where it sets
/// several at once, as ω₀ does, or is not one of them, as q = 1/c is): a continuation can vary
/// only a parameter that is a field, a sweep varies any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextbookParameter {
    pub name: &'static str,
    pub long_name: &'static str,
    pub units: &'static str,
    pub field: Option<Parameter>,
}

const fn tp(
    name: &'static str,
    long_name: &'static str,
    units: &'static str,
    field: Option<Parameter>,
) -> TextbookParameter {
    TextbookParameter {
        name,
        long_name,
        units,
        field,
    }
}

/// Every textbook parameter, preset by preset.
pub const TEXTBOOK_PARAMETERS: &[TextbookParameter] = &[
    tp(
        "model.taylor.gamma",
        "Taylor's drive strength γ",
        "1",
        Some(Parameter::TorqueAmplitude),
    ),
    tp(
        "model.taylor.beta",
        "Taylor's damping constant β",
        "s-1",
        None,
    ),
    tp(
        "model.taylor.omega0",
        "Taylor's natural frequency ω₀",
        "rad s-1",
        None,
    ),
    tp(
        "model.taylor.omega",
        "Taylor's drive frequency ω",
        "rad s-1",
        Some(Parameter::TorqueFrequency),
    ),
    tp(
        "model.baker-gollub.g",
        "Baker and Gollub's drive amplitude g",
        "1",
        Some(Parameter::TorqueAmplitude),
    ),
    tp(
        "model.baker-gollub.q",
        "Baker and Gollub's quality factor q",
        "1",
        None,
    ),
    tp(
        "model.baker-gollub.omega_d",
        "Baker and Gollub's drive frequency ω_D",
        "1",
        Some(Parameter::TorqueFrequency),
    ),
    tp(
        "model.kapitza.a",
        "Kapitza's pivot amplitude a",
        "m",
        Some(Parameter::PivotYAmplitude),
    ),
    tp(
        "model.kapitza.omega",
        "Kapitza's pivot frequency Ω",
        "rad s-1",
        Some(Parameter::PivotFrequency),
    ),
    tp(
        "model.kapitza.l",
        "Kapitza's rod length l",
        "m",
        Some(Parameter::Length),
    ),
    tp(
        "model.kapitza.g",
        "Kapitza's gravity g",
        "m s-2",
        Some(Parameter::Gravity),
    ),
];

/// The preset names of the textbook pendulums, each also its `[model.<name>]` table.
pub const TEXTBOOK_PRESETS: &[&str] = &["taylor", "baker-gollub", "kapitza"];

impl TextbookParameter {
    /// The parameter named `name` (`model.taylor.gamma`).
    pub fn parse(name: &str) -> Option<&'static TextbookParameter> {
        TEXTBOOK_PARAMETERS.iter().find(|p| p.name == name)
    }

    /// The preset it belongs to (`taylor`).
    pub fn preset(&self) -> &'static str {
        self.name
            .trim_start_matches("model.")
            .split('.')
            .next()
            .unwrap_or("")
    }

    /// Its field in its table (`gamma`).
    pub fn field_name(&self) -> &'static str {
        self.name.rsplit('.').next().unwrap_or("")
    }
}

/// The values of preset `preset`'s parameters read back off the chain it built (`params`),
/// for titles: empty for another preset. Each is its mapping ([`Taylor::chain_params`], …)
/// solved for the textbook's parameter.
pub fn textbook_values(
    preset: &str,
    params: &ChainParams,
) -> Vec<(&'static TextbookParameter, f64)> {
    let Some(link) = params.links.first() else {
        return vec![];
    };
    let damping = params.damping.absolute.first().copied().unwrap_or(0.0);
    let torque = params.drive.torque.unwrap_or(Harmonic {
        amplitude: 0.0,
        frequency: 0.0,
        phase: 0.0,
    });
    let values: Vec<f64> = match preset {
        "taylor" => {
            let w2 = params.gravity / link.length;
            vec![
                torque.amplitude,
                damping * w2 / 2.0,
                w2.sqrt(),
                torque.frequency,
            ]
        }
        "baker-gollub" => vec![torque.amplitude, 1.0 / damping, torque.frequency],
        "kapitza" => {
            let Some(p) = params.drive.pivot else {
                return vec![];
            };
            vec![p.y_amplitude, p.frequency, link.length, params.gravity]
        }
        _ => return vec![],
    };
    TEXTBOOK_PARAMETERS
        .iter()
        .filter(|t| t.preset() == preset)
        .zip(values)
        .collect()
}

impl TextbookParameter {
    /// Its symbol, the last word of its long name (`γ`).
    pub fn symbol(&self) -> &'static str {
        self.long_name.rsplit(' ').next().unwrap_or(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Chain;

    /// Each mapping's coefficients of θ̈ + k θ̇ + w² sin θ = F cos Ωt, computed from the built
    /// chain's mass, length, gravity and damping, are the textbook's.
    #[test]
    fn the_chains_have_the_textbooks_coefficients() {
        let coeffs = |p: ChainParams| {
            let c = Chain::new(p).expect("a chain");
            let p = c.params();
            let (l, m) = (p.links[0].length, p.links[0].mass);
            let i = m * l * l;
            let damp = p.damping.absolute.first().copied().unwrap_or(0.0);
            let t = p.drive.torque.map_or(0.0, |t| t.amplitude);
            (damp / i, p.gravity / l, t / i)
        };
        let t = Taylor {
            gamma: 1.07,
            beta: taylor_beta(),
            omega0: taylor_omega0(),
            omega: taylor_omega(),
        };
        let (k, w2, f) = coeffs(t.chain_params());
        let w0 = 3.0 * PI;
        assert!((k - 2.0 * 0.75 * PI).abs() < 1e-14 * k);
        assert!((w2 - w0 * w0).abs() < 1e-13 * w2);
        assert!((f - 1.07 * w0 * w0).abs() < 1e-13 * f);
        let (k, w2, f) = coeffs(
            BakerGollub {
                g: 1.5,
                q: 4.0,
                omega_d: 2.0 / 3.0,
            }
            .chain_params(),
        );
        assert_eq!((k, w2, f), (0.25, 1.0, 1.5));
        let k = Kapitza {
            a: 0.05,
            omega: 200.0,
            l: 0.5,
            g: 9.81,
        }
        .chain_params();
        let pivot = k.drive.pivot.expect("a pivot drive");
        assert_eq!((pivot.y_amplitude, pivot.frequency), (0.05, 200.0));
        assert_eq!((k.links[0].length, k.gravity), (0.5, 9.81));
        assert!(k.damping.absolute.is_empty() && k.drive.torque.is_none());
    }

    #[test]
    fn the_values_read_back_are_the_given_ones() {
        let t = Taylor {
            gamma: 1.0793,
            beta: 0.3,
            omega0: 2.5,
            omega: 1.7,
        };
        let got: Vec<f64> = textbook_values("taylor", &t.chain_params())
            .iter()
            .map(|p| p.1)
            .collect();
        for (g, w) in got.iter().zip([1.0793, 0.3, 2.5, 1.7]) {
            assert!((g - w).abs() < 1e-15 * w.max(1.0) * 4.0, "{got:?}");
        }
        let b = BakerGollub {
            g: 1.5,
            q: 4.0,
            omega_d: 0.5,
        };
        let got: Vec<f64> = textbook_values("baker-gollub", &b.chain_params())
            .iter()
            .map(|p| p.1)
            .collect();
        assert_eq!(got, vec![1.5, 4.0, 0.5]);
        let k = Kapitza {
            a: 0.05,
            omega: 200.0,
            l: 0.5,
            g: 9.81,
        };
        let got: Vec<(&str, f64)> = textbook_values("kapitza", &k.chain_params())
            .iter()
            .map(|p| (p.0.symbol(), p.1))
            .collect();
        assert_eq!(
            got,
            vec![("a", 0.05), ("Ω", 200.0), ("l", 0.5), ("g", 9.81)]
        );
    }

    #[test]
    fn a_parameter_knows_its_preset_and_field() {
        let p = TextbookParameter::parse("model.baker-gollub.omega_d").expect("known");
        assert_eq!((p.preset(), p.field_name()), ("baker-gollub", "omega_d"));
        for p in TEXTBOOK_PARAMETERS {
            assert!(TEXTBOOK_PRESETS.contains(&p.preset()), "{}", p.name);
        }
    }
}
