//! Non-conservative generalized forces on a planar chain (docs/physics.md §1, "generalized forces").

use crate::error::FieldError;
use serde::{Deserialize, Serialize};

/// Viscous damping. Both vectors are empty (no damping) or have one entry per link.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Damping {
    /// Absolute damping γ_j (N·m·s): torque −γ_j θ̇_j on link j.
    pub absolute: Vec<f64>,
    /// Joint damping c_j (N·m·s) at the upper joint of link j: torque −c_j(θ̇_j − θ̇_{j−1}) on
    /// link j and the opposite on link j−1 (θ̇_0 = 0: joint 1 is the pivot).
    pub joint: Vec<f64>,
}

impl Damping {
    pub fn is_zero(&self) -> bool {
        self.absolute.iter().chain(&self.joint).all(|&c| c == 0.0)
    }

    /// The symmetric damping matrix D with Q = −D θ̇ (row-major n × n).
    pub fn matrix(&self, n: usize) -> Vec<f64> {
        let mut d = vec![0.0; n * n];
        for (j, &g) in self.absolute.iter().enumerate() {
            d[j * n + j] += g;
        }
        for (j, &c) in self.joint.iter().enumerate() {
            d[j * n + j] += c;
            if j > 0 {
                d[(j - 1) * n + (j - 1)] += c;
                d[j * n + (j - 1)] -= c;
                d[(j - 1) * n + j] -= c;
            }
        }
        d
    }
}

/// An angular frequency Ω (rad/s) as a spec gives it: a number, in rad/s, or a string with its
/// unit, `"60 Hz"` (Ω = 2π · 60 rad/s) or `"376.99 rad/s"`, so that a drive given in hertz is not
/// retyped by hand as 2π f. A bad string is refused naming what it takes.
pub fn angular_frequency<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    struct Visitor;
    impl serde::de::Visitor<'_> for Visitor {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(
                "an angular frequency in rad/s, or a string with its unit such as \"60 Hz\"",
            )
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<f64, E> {
            parse_angular_frequency(v).ok_or_else(|| {
                E::custom(format!(
                    "expected an angular frequency in rad/s, or a number with its unit such as \"60 Hz\" or \"377 rad/s\" (got \"{v}\")"
                ))
            })
        }
    }
    d.deserialize_any(Visitor)
}

/// `"60 Hz"`, `"60Hz"`, `"0.5 kHz"` or `"376.99 rad/s"` as rad/s; `None` for anything else.
pub fn parse_angular_frequency(text: &str) -> Option<f64> {
    const UNITS: [(&str, f64); 5] = [
        ("rad/s", 1.0),
        ("kHz", std::f64::consts::TAU * 1e3),
        ("khz", std::f64::consts::TAU * 1e3),
        ("Hz", std::f64::consts::TAU),
        ("hz", std::f64::consts::TAU),
    ];
    let t = text.trim();
    UNITS.iter().find_map(|&(unit, scale)| {
        let number = t.strip_suffix(unit)?.trim();
        let value: f64 = number.parse().ok()?;
        Some(value * scale)
    })
}

/// `amplitude · cos(frequency · t + phase)`, frequency in rad/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Harmonic {
    pub amplitude: f64,
    #[serde(deserialize_with = "angular_frequency")]
    pub frequency: f64,
    #[serde(default)]
    pub phase: f64,
}

impl Harmonic {
    #[inline]
    pub fn value(&self, t: f64) -> f64 {
        self.amplitude * self.argument(t).cos()
    }

    /// The phase `frequency · t + phase` (rad) whose cosine [`Harmonic::value`] scales.
    #[inline(always)]
    pub fn argument(&self, t: f64) -> f64 {
        self.frequency * t + self.phase
    }
}

/// Prescribed pivot motion s(t) = (x_amplitude, y_amplitude) · cos(Ω t + φ) (m), as in the
/// Kapitza pendulum. In the pivot's frame it acts as an extra, time-dependent gravity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PivotMotion {
    #[serde(default)]
    pub x_amplitude: f64,
    #[serde(default)]
    pub y_amplitude: f64,
    #[serde(deserialize_with = "angular_frequency")]
    pub frequency: f64,
    #[serde(default)]
    pub phase: f64,
}

impl PivotMotion {
    /// Pivot position s(t) (m).
    #[inline]
    pub fn position(&self, t: f64) -> [f64; 2] {
        let c = (self.frequency * t + self.phase).cos();
        [self.x_amplitude * c, self.y_amplitude * c]
    }

    /// Pivot velocity ṡ(t) (m/s).
    #[inline]
    pub fn velocity(&self, t: f64) -> [f64; 2] {
        let c = -self.frequency * (self.frequency * t + self.phase).sin();
        [self.x_amplitude * c, self.y_amplitude * c]
    }

    /// Pivot acceleration s̈(t) (m/s²).
    #[inline]
    pub fn acceleration(&self, t: f64) -> [f64; 2] {
        self.acceleration_from_cos(self.argument(t).cos())
    }

    /// The phase `frequency · t + phase` (rad) of the motion.
    #[inline(always)]
    pub fn argument(&self, t: f64) -> f64 {
        self.frequency * t + self.phase
    }

    /// s̈ given `cos` of [`PivotMotion::argument`] (what [`PivotMotion::acceleration`] computes).
    #[inline(always)]
    pub fn acceleration_from_cos(&self, cos: f64) -> [f64; 2] {
        let c = -(self.frequency * self.frequency) * cos;
        [self.x_amplitude * c, self.y_amplitude * c]
    }
}

/// Periodic drive: a torque on link 1 at the pivot and/or a moving pivot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Drive {
    pub torque: Option<Harmonic>,
    pub pivot: Option<PivotMotion>,
}

impl Drive {
    pub fn is_none(&self) -> bool {
        self.torque.is_none() && self.pivot.is_none()
    }

    /// The drive period 2π/|Ω| (s), `None` when undriven: the one place it is computed (final-state
    /// maps' stroboscopic sampling, Poincaré's stroboscopic section, periodic orbits). An
    /// error when the torque and the pivot run at different frequencies |Ω| (no common period
    /// is taken, commensurate or not) or a frequency is 0 or not finite.
    pub fn period(&self) -> Result<Option<f64>, String> {
        self.period_of_fields().map_err(|e| e.to_string())
    }

    /// [`Drive::period`], its error naming the spec fields (`model.drive.pivot.frequency`) so
    /// that a front end can name its flags (`--pivot-frequency`).
    pub fn period_of_fields(&self) -> Result<Option<f64>, FieldError> {
        const TORQUE: &str = "model.drive.torque.frequency";
        const PIVOT: &str = "model.drive.pivot.frequency";
        let freqs: Vec<(&str, f64)> = self
            .torque
            .iter()
            .map(|t| (TORQUE, t.frequency))
            .chain(self.pivot.iter().map(|p| (PIVOT, p.frequency)))
            .collect();
        for &(field, w) in &freqs {
            if !(w.is_finite() && w != 0.0) {
                return Err(FieldError::new(
                    field,
                    format!("a drive frequency must be finite and nonzero (got {w})"),
                ));
            }
        }
        match freqs.as_slice() {
            [] => Ok(None),
            [(_, w), rest @ ..] => {
                if let Some(&(field, other)) = rest.iter().find(|(_, v)| v.abs() != w.abs()) {
                    return Err(FieldError::unled(field)
                        .text("the torque (")
                        .name(TORQUE)
                        .text(format!(" {w} rad/s) and the pivot ("))
                        .name(field)
                        .text(format!(
                            " {other} rad/s) run at different frequencies: the drive has no one period"
                        )));
                }
                Ok(Some(std::f64::consts::TAU / w.abs()))
            }
        }
    }

    /// Where the pivot is at time t (m): the origin unless it is driven.
    pub fn pivot_position(&self, t: f64) -> [f64; 2] {
        self.pivot.map_or([0.0, 0.0], |p| p.position(t))
    }

    /// The farthest the pivot gets from the origin (m).
    pub fn pivot_reach(&self) -> f64 {
        self.pivot
            .map_or(0.0, |p| p.x_amplitude.hypot(p.y_amplitude))
    }
}

/// The cosine of the last drive phase seen, keyed by the phase's bits: RK4's two middle stages
/// (and often a step's last stage and the next step's first) evaluate the drive at one and the
/// same time, and `cos` is a pure function of its argument, so a hit returns exactly the bits a
/// fresh call would. Keyed by the argument, not by t, it stays right whichever chain or drive
/// the workspace serves.
///
/// A run that integrates every drive period on one and the same time grid (an orbit
/// diagram's stroboscopic loop) asks for the same few hundred phases in every period: with
/// [`PhaseCos::remembering`] the cache also keeps a direct-mapped table of earlier phases, so
/// that only the first period pays for the cosines. The table is keyed by the same bits.
#[derive(Debug, Clone)]
pub(crate) struct PhaseCos {
    arg: u64,
    cos: f64,
    /// (argument bits, cosine) slots, indexed by a hash of the bits; empty when not asked for.
    table: Box<[(u64, f64)]>,
}

/// Slots of a remembering [`PhaseCos`]: a power of two comfortably above the ~3 distinct
/// phases per step of a few hundred steps per period (32 KiB).
const REMEMBERED_PHASES: usize = 2048;

impl PhaseCos {
    pub(crate) fn new() -> PhaseCos {
        PhaseCos {
            arg: 0.0f64.to_bits(),
            cos: 0.0f64.cos(),
            table: Box::new([]),
        }
    }

    /// A cache that also remembers earlier phases (see the type's docs).
    pub(crate) fn remembering() -> PhaseCos {
        // The empty key is a NaN's bits, whose cosine (NaN) is what the slot holds: even a
        // lookup of that very NaN returns the right value.
        let nan = f64::from_bits(u64::MAX);
        PhaseCos {
            table: vec![(nan.to_bits(), nan.cos()); REMEMBERED_PHASES].into_boxed_slice(),
            ..PhaseCos::new()
        }
    }

    /// `arg.cos()`, from the cache when `arg` has the bits of the last call's (or, remembering,
    /// of an earlier call's still in its slot).
    #[inline(always)]
    pub(crate) fn cos(&mut self, arg: f64) -> f64 {
        let bits = arg.to_bits();
        if bits != self.arg {
            self.arg = bits;
            self.cos = if self.table.is_empty() {
                arg.cos()
            } else {
                self.recall(arg, bits)
            };
        }
        self.cos
    }

    /// The table's slot for `arg` (whose bits are `bits`), filled on a miss.
    #[inline]
    fn recall(&mut self, arg: f64, bits: u64) -> f64 {
        // Fibonacci hashing: the high bits of the product mix every bit of the argument.
        let shift = 64 - REMEMBERED_PHASES.trailing_zeros();
        let slot = &mut self.table[(bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize];
        if slot.0 != bits {
            *slot = (bits, arg.cos());
        }
        slot.1
    }
}

#[cfg(test)]
mod phase_cos_tests {
    use super::PhaseCos;

    /// Remembered or not, every lookup returns exactly the bits of a fresh `cos`, over a
    /// repeated grid (hits) and over phases that collide in the table (misses).
    #[test]
    fn remembered_cosines_are_the_fresh_bits() {
        let mut plain = PhaseCos::new();
        let mut kept = PhaseCos::remembering();
        for _period in 0..3 {
            for s in 0..5000 {
                let arg = s as f64 * 1.3e-3 + 0.25;
                for a in [arg, arg + 6.5e-4, arg + 6.5e-4] {
                    let fresh = a.cos().to_bits();
                    assert_eq!(plain.cos(a).to_bits(), fresh);
                    assert_eq!(kept.cos(a).to_bits(), fresh);
                }
            }
        }
        let nan = f64::from_bits(u64::MAX);
        assert!(kept.cos(nan).is_nan() && kept.cos(0.0) == 1.0);
    }
}

#[cfg(test)]
mod frequency_tests {
    use super::*;

    #[test]
    fn a_frequency_is_taken_in_rad_per_s_or_with_its_unit() {
        let tau = std::f64::consts::TAU;
        assert_eq!(parse_angular_frequency("60 Hz"), Some(tau * 60.0));
        assert_eq!(parse_angular_frequency(" 60Hz "), Some(tau * 60.0));
        let k = parse_angular_frequency("1e-1 kHz").unwrap();
        assert!((k - tau * 100.0).abs() <= 1e-15 * k, "{k}");
        assert_eq!(parse_angular_frequency("376.99 rad/s"), Some(376.99));
        for bad in ["60", "Hz", "60 rpm", "sixty Hz", "60 Hz Hz"] {
            assert_eq!(parse_angular_frequency(bad), None, "{bad}");
        }
        let h: Harmonic = toml::from_str("amplitude = 1.0\nfrequency = \"2 Hz\"").unwrap();
        assert_eq!(h.frequency, 2.0 * tau);
        let p: PivotMotion = toml::from_str("y_amplitude = 0.01\nfrequency = 200").unwrap();
        assert_eq!(p.frequency, 200.0);
        let e = toml::from_str::<PivotMotion>("frequency = \"60 rpm\"").unwrap_err();
        assert!(e.message().contains("such as \"60 Hz\""), "{e}");
    }
}
