//! Non-conservative generalized forces on a planar chain (docs/physics.md §1, "generalized forces").

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

/// `amplitude · cos(frequency · t + phase)`, frequency in rad/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Harmonic {
    pub amplitude: f64,
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

    /// The drive period 2π/Ω (s), `None` when undriven; an error when the torque and the pivot
    /// run at different frequencies (no common period) or the frequency is not > 0.
    pub fn period(&self) -> Result<Option<f64>, String> {
        let freqs: Vec<f64> = self
            .torque
            .iter()
            .map(|t| t.frequency)
            .chain(self.pivot.iter().map(|p| p.frequency))
            .collect();
        match freqs.as_slice() {
            [] => Ok(None),
            [w, rest @ ..] => {
                if let Some(other) = rest.iter().find(|v| *v != w) {
                    return Err(format!(
                        "the torque ({w} rad/s) and pivot ({other} rad/s) frequencies differ: a periodic orbit needs one drive period"
                    ));
                }
                if !(w.is_finite() && *w > 0.0) {
                    return Err(format!("the drive frequency must be > 0 (got {w})"));
                }
                Ok(Some(std::f64::consts::TAU / w))
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
#[derive(Debug, Clone, Copy)]
pub(crate) struct PhaseCos {
    arg: u64,
    cos: f64,
}

impl PhaseCos {
    pub(crate) fn new() -> PhaseCos {
        PhaseCos {
            arg: 0.0f64.to_bits(),
            cos: 0.0f64.cos(),
        }
    }

    /// `arg.cos()`, from the cache when `arg` has the bits of the last call's.
    #[inline(always)]
    pub(crate) fn cos(&mut self, arg: f64) -> f64 {
        let bits = arg.to_bits();
        if bits != self.arg {
            self.arg = bits;
            self.cos = arg.cos();
        }
        self.cos
    }
}
