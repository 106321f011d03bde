//! The named parameters of a planar chain: what a sweep varies and a continuation follows.
//! [`PARAMETERS`] is their one table (the name a spec, a flag and Python give, its units);
//! [`Parameter`] reads one off a chain ([`Parameter::get`]) and builds the chain with it set
//! ([`Parameter::set`]), so that a continuation varies the chain it was given rather than
//! rebuilding it from a spec at every point.

use super::{Chain, ChainParams, ModelError};
use thiserror::Error;

/// A parameter's name as specs write it and its CF units; `model.link[K]` stands for any link
/// K counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    pub name: &'static str,
    /// What a figure's axis and a file's `long_name` call it, with its symbol.
    pub long_name: &'static str,
    pub units: &'static str,
}

/// Every parameter of a planar chain, in the order the front ends list them.
pub const PARAMETERS: &[Descriptor] = &[
    Descriptor {
        name: "model.gravity",
        long_name: "gravity g",
        units: "m s-2",
    },
    Descriptor {
        name: "model.mass",
        long_name: "link mass m",
        units: "kg",
    },
    Descriptor {
        name: "model.length",
        long_name: "link length l",
        units: "m",
    },
    Descriptor {
        name: "model.damping.absolute",
        long_name: "damping c",
        units: "N m s",
    },
    Descriptor {
        name: "model.damping.joint",
        long_name: "joint damping c",
        units: "N m s",
    },
    Descriptor {
        name: "model.drive.torque.amplitude",
        long_name: "torque amplitude A",
        units: "N m",
    },
    Descriptor {
        name: "model.drive.torque.frequency",
        long_name: "torque frequency Ω",
        units: "rad s-1",
    },
    Descriptor {
        name: "model.drive.torque.phase",
        long_name: "torque phase φ",
        units: "rad",
    },
    Descriptor {
        name: "model.drive.pivot.x_amplitude",
        long_name: "pivot amplitude x",
        units: "m",
    },
    Descriptor {
        name: "model.drive.pivot.y_amplitude",
        long_name: "pivot amplitude y",
        units: "m",
    },
    Descriptor {
        name: "model.drive.pivot.frequency",
        long_name: "pivot frequency Ω",
        units: "rad s-1",
    },
    Descriptor {
        name: "model.link[K].mass",
        long_name: "mass of link K",
        units: "kg",
    },
    Descriptor {
        name: "model.link[K].length",
        long_name: "length of link K",
        units: "m",
    },
];

/// One parameter of a planar chain. The chain-wide mass and length are a uniform chain's
/// (every link the same); a damping field sets every link's coefficient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parameter {
    Gravity,
    Mass,
    Length,
    AbsoluteDamping,
    JointDamping,
    TorqueAmplitude,
    TorqueFrequency,
    TorquePhase,
    PivotXAmplitude,
    PivotYAmplitude,
    PivotFrequency,
    /// A link's mass; the link counted from 0.
    LinkMass(usize),
    /// A link's length; the link counted from 0.
    LinkLength(usize),
}

/// Why a parameter cannot be set on a chain.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ParameterError {
    /// The chain lacks the part the parameter belongs to (a drive amplitude without the drive).
    #[error("the model has no {0}")]
    Missing(&'static str),
    /// The link is not in the chain.
    #[error("the chain has {links} links, not {link}")]
    NoLink { link: usize, links: usize },
    /// The chain with the value set is not a valid chain.
    #[error(transparent)]
    Model(#[from] ModelError),
}

impl Parameter {
    /// The parameter a spec names `name` (`model.link[2].mass`: the second link's mass).
    pub fn parse(name: &str) -> Option<Parameter> {
        if let Some(rest) = name.strip_prefix("model.link[") {
            let (k, field) = rest.split_once("].")?;
            let k: usize = k.parse().ok().filter(|&k| k >= 1)?;
            return match field {
                "mass" => Some(Parameter::LinkMass(k - 1)),
                "length" => Some(Parameter::LinkLength(k - 1)),
                _ => None,
            };
        }
        use Parameter::*;
        Some(match name {
            "model.gravity" => Gravity,
            "model.mass" => Mass,
            "model.length" => Length,
            "model.damping.absolute" => AbsoluteDamping,
            "model.damping.joint" => JointDamping,
            "model.drive.torque.amplitude" => TorqueAmplitude,
            "model.drive.torque.frequency" => TorqueFrequency,
            "model.drive.torque.phase" => TorquePhase,
            "model.drive.pivot.x_amplitude" => PivotXAmplitude,
            "model.drive.pivot.y_amplitude" => PivotYAmplitude,
            "model.drive.pivot.frequency" => PivotFrequency,
            _ => return None,
        })
    }

    /// Its entry of [`PARAMETERS`].
    pub fn descriptor(self) -> &'static Descriptor {
        use Parameter::*;
        let i = match self {
            Gravity => 0,
            Mass => 1,
            Length => 2,
            AbsoluteDamping => 3,
            JointDamping => 4,
            TorqueAmplitude => 5,
            TorqueFrequency => 6,
            TorquePhase => 7,
            PivotXAmplitude => 8,
            PivotYAmplitude => 9,
            PivotFrequency => 10,
            LinkMass(_) => 11,
            LinkLength(_) => 12,
        };
        &PARAMETERS[i]
    }

    /// Its CF units.
    pub fn units(self) -> &'static str {
        self.descriptor().units
    }

    /// Its long name with the link counted from 1 (`mass of link 2`).
    pub fn long_name(self) -> String {
        let d = self.descriptor().long_name;
        match self.link() {
            Some(k) => d.replace('K', &(k + 1).to_string()),
            None => d.to_string(),
        }
    }

    /// The link a link's field belongs to (from 0).
    pub fn link(self) -> Option<usize> {
        match self {
            Parameter::LinkMass(k) | Parameter::LinkLength(k) => Some(k),
            _ => None,
        }
    }

    /// Its value in `chain`: the first link's for the chain-wide mass and length, the first
    /// coefficient (0 when the chain has none) for damping; `None` for a drive field the chain
    /// lacks or a link it does not have.
    pub fn get(self, chain: &Chain) -> Option<f64> {
        let p = chain.params();
        let first = |v: &[f64]| v.first().copied().or(Some(0.0));
        use Parameter::*;
        match self {
            Gravity => Some(p.gravity),
            Mass => p.links.first().map(|l| l.mass),
            Length => p.links.first().map(|l| l.length),
            AbsoluteDamping => first(&p.damping.absolute),
            JointDamping => first(&p.damping.joint),
            TorqueAmplitude => p.drive.torque.map(|t| t.amplitude),
            TorqueFrequency => p.drive.torque.map(|t| t.frequency),
            TorquePhase => p.drive.torque.map(|t| t.phase),
            PivotFrequency => p.drive.pivot.map(|d| d.frequency),
            PivotXAmplitude => p.drive.pivot.map(|d| d.x_amplitude),
            PivotYAmplitude => p.drive.pivot.map(|d| d.y_amplitude),
            LinkMass(k) => p.links.get(k).map(|l| l.mass),
            LinkLength(k) => p.links.get(k).map(|l| l.length),
        }
    }

    /// The chain `chain` with this parameter at `v`, everything else as it was: a link's
    /// c.o.m. and inertia follow its length and mass as its shape says ([`super::Link::shape`]).
    pub fn set(self, chain: &Chain, v: f64) -> Result<Chain, ParameterError> {
        let mut p: ChainParams = chain.params().clone();
        let n = p.links.len();
        use Parameter::*;
        match self {
            Gravity => p.gravity = v,
            Mass => p.links.iter_mut().for_each(|l| *l = l.with_mass(v)),
            Length => p.links.iter_mut().for_each(|l| *l = l.with_length(v)),
            AbsoluteDamping => p.damping.absolute = vec![v; n],
            JointDamping => p.damping.joint = vec![v; n],
            TorqueAmplitude | TorqueFrequency | TorquePhase => {
                let t = p
                    .drive
                    .torque
                    .as_mut()
                    .ok_or(ParameterError::Missing("drive torque"))?;
                match self {
                    TorqueAmplitude => t.amplitude = v,
                    TorqueFrequency => t.frequency = v,
                    _ => t.phase = v,
                }
            }
            PivotXAmplitude | PivotYAmplitude | PivotFrequency => {
                let d = p
                    .drive
                    .pivot
                    .as_mut()
                    .ok_or(ParameterError::Missing("pivot drive"))?;
                match self {
                    PivotXAmplitude => d.x_amplitude = v,
                    PivotYAmplitude => d.y_amplitude = v,
                    _ => d.frequency = v,
                }
            }
            LinkMass(k) | LinkLength(k) => {
                let l = p.links.get_mut(k).ok_or(ParameterError::NoLink {
                    link: k + 1,
                    links: n,
                })?;
                *l = match self {
                    LinkMass(_) => l.with_mass(v),
                    _ => l.with_length(v),
                };
            }
        }
        Ok(Chain::new(p)?)
    }
}

/// `units` (CF) as a figure's label writes them: `N m` as `N·m`, `m s-2` as `m/s²`, `1` as
/// nothing.
pub fn display_units(units: &str) -> String {
    match units {
        "1" | "" => String::new(),
        "m s-2" => "m/s²".into(),
        "rad s-1" => "rad/s".into(),
        "s-1" => "1/s".into(),
        other => other.replace(' ', "·"),
    }
}

/// A figure's axis label for a parameter: `torque amplitude A (N·m)`, `drive strength γ
/// (Taylor)`; a dimensionless one has no unit.
pub fn axis_label(long_name: &str, units: &str) -> String {
    match display_units(units) {
        u if u.is_empty() => long_name.to_string(),
        u => format!("{long_name} ({u})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Harmonic, Link, LinkShape};

    fn driven_rods() -> Chain {
        let mut p = ChainParams::new(vec![Link::rod(1.0, 2.0), Link::point(0.5, 1.0)]);
        p.drive.torque = Some(Harmonic {
            amplitude: 0.3,
            frequency: 2.0,
            phase: 0.0,
        });
        Chain::new(p).expect("a chain")
    }

    #[test]
    fn every_descriptor_parses_to_itself() {
        for d in PARAMETERS {
            let name = d.name.replace("[K]", "[2]");
            let q = Parameter::parse(&name).expect(d.name);
            assert_eq!(q.descriptor(), d);
        }
        assert_eq!(Parameter::parse("model.link[0].mass"), None);
        assert_eq!(Parameter::parse("model.link[1].com"), None);
        assert_eq!(Parameter::parse("map.energy"), None);
    }

    #[test]
    fn set_then_get_gives_the_value_and_keeps_the_rest() {
        let c = driven_rods();
        for d in PARAMETERS {
            let q = Parameter::parse(&d.name.replace("[K]", "[1]")).expect(d.name);
            let before = q.get(&c);
            match q.set(&c, 0.7) {
                Ok(c2) => {
                    assert_eq!(q.get(&c2), Some(0.7), "{}", d.name);
                    assert_eq!(c2.params().links.len(), 2);
                }
                Err(ParameterError::Missing(_)) => assert_eq!(before, None, "{}", d.name),
                Err(e) => panic!("{}: {e}", d.name),
            }
        }
    }

    #[test]
    fn a_rod_keeps_its_shape_and_a_given_link_its_inertia() {
        let c = driven_rods();
        let c2 = Parameter::LinkLength(0).set(&c, 3.0).expect("set");
        // A uniform rod of 3 m: c.o.m. at 1.5 m, J = m l² / 12, bit for bit as built.
        assert_eq!(c2.params().links[0], Link::rod(3.0, 2.0));
        assert_eq!(c2.params().links[0].shape, Some(LinkShape::Rod));
        let c3 = Parameter::Mass.set(&c, 4.0).expect("set");
        assert_eq!(c3.params().links[0], Link::rod(1.0, 4.0));
        assert_eq!(c3.params().links[1], Link::point(0.5, 4.0));
        let given =
            Chain::new(ChainParams::new(vec![Link::given(1.0, 1.0, 0.3, 0.02)])).expect("a chain");
        let g2 = Parameter::LinkLength(0).set(&given, 2.0).expect("set");
        assert_eq!(g2.params().links[0], Link::given(2.0, 1.0, 0.3, 0.02));
        assert_eq!(g2.params().links[0].shape, None);
    }

    #[test]
    fn what_the_chain_lacks_is_named() {
        let c = Chain::new(ChainParams::new(vec![Link::point(1.0, 1.0)])).expect("a chain");
        assert_eq!(
            Parameter::PivotFrequency.set(&c, 1.0).err(),
            Some(ParameterError::Missing("pivot drive"))
        );
        assert_eq!(
            Parameter::LinkMass(3).set(&c, 1.0).err(),
            Some(ParameterError::NoLink { link: 4, links: 1 })
        );
        assert!(matches!(
            Parameter::Length.set(&c, -1.0),
            Err(ParameterError::Model(_))
        ));
    }
}
