//! The `[map]` table's kind-specific fields: the map kind and its parameters, each kind
//! refusing the fields it does not take.

use super::table::{MapSpec, DEFAULT_SAMPLES};
use crate::analysis::map::{FlipTarget, MapKind, MapKindId};
use crate::error::positive;
use crate::model::Chain;
use crate::spec::SpecError;

/// A number as Rust writes it (`0.014`), in scientific notation where that is long (`1e-300`).
fn short(v: f64) -> String {
    if (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

impl MapSpec {
    /// The final-state kind: settling tolerances; for a driven chain the stroboscopic test at
    /// the drive period 2π/Ω, which must be a whole number of RK4 steps.
    fn final_state(&self, chain: &Chain, dt: f64) -> Result<MapKind, SpecError> {
        use crate::analysis::map::basins::{self, Settle, Strobe};
        let n = chain.links();
        if n > basins::MAX_LINKS {
            return Err(SpecError::new(
                "map.kind",
                format!(
                    "final-state maps classify up to {} links (got {n})",
                    basins::MAX_LINKS
                ),
            ));
        }
        let drive = &chain.params().drive;
        if chain.is_conservative() {
            return Err(SpecError::new(
                "map.kind",
                "a final-state map needs a damped or driven chain ([model.damping] or [model.drive]): a conservative chain never settles",
            ));
        }
        let angle_tol = positive("map.angle_tol", self.angle_tol.unwrap_or(0.01))?;
        let omega_tol = positive("map.omega_tol", self.omega_tol.unwrap_or(0.01))?;
        if angle_tol >= std::f64::consts::FRAC_PI_2 {
            return Err(SpecError::new(
                "map.angle_tol",
                format!("must be below π/2 (got {angle_tol})"),
            ));
        }
        // The stroboscopic period of the one drive period there is (`Drive::period`):
        // a torque and a pivot at different frequencies are refused, never sampled at one
        // of their periods.
        let drive_period = drive.period_of_fields()?;
        let not_for = |field: &str, what: &str| {
            SpecError::new(
                field,
                format!("applies only to a final-state map of {what} chain"),
            )
        };
        let (dwell_steps, strobe) = match drive_period {
            None => {
                if self.max_period.is_some() {
                    return Err(not_for("map.max_period", "a driven"));
                }
                if self.repeats.is_some() {
                    return Err(not_for("map.repeats", "a driven"));
                }
                let dwell = self.dwell.unwrap_or(1.0);
                if !(dwell.is_finite() && dwell >= 0.0) {
                    return Err(SpecError::new(
                        "map.dwell",
                        format!("must be finite and >= 0 (got {dwell})"),
                    ));
                }
                ((dwell / dt).round() as u32, None)
            }
            Some(period) => {
                if self.dwell.is_some() {
                    return Err(not_for("map.dwell", "an undriven"));
                }
                let q = (period / dt).round();
                if q < 1.0 || (q * dt - period).abs() > 1e-9 * period {
                    return Err(SpecError::new(
                        "integrator.dt",
                        format!(
                            "the drive period 2π/Ω = {period} s must be a whole number of RK4 steps (e.g. dt = {} s)",
                            period / (period / dt).ceil()
                        ),
                    ));
                }
                let max_period = self.max_period.unwrap_or(8);
                if !(1..=basins::MAX_PERIOD).contains(&max_period) {
                    return Err(SpecError::new(
                        "map.max_period",
                        format!(
                            "must be between 1 and {} (got {max_period})",
                            basins::MAX_PERIOD
                        ),
                    ));
                }
                let repeats = self.repeats.unwrap_or(3);
                if repeats == 0 {
                    return Err(SpecError::new("map.repeats", "must be at least 1"));
                }
                (
                    0,
                    Some(Strobe {
                        period_steps: q as u32,
                        max_period,
                        repeats,
                    }),
                )
            }
        };
        Ok(MapKind::FinalState {
            settle: Settle {
                angle_tol,
                omega_tol,
                dwell_steps,
                strobe,
            },
        })
    }

    /// The kind and its parameters, with the fields it does not take refused.
    pub(super) fn kind(&self, chain: &Chain, dt: f64, steps: f64) -> Result<MapKind, SpecError> {
        let n = chain.links();
        let name = self.kind.as_deref().unwrap_or(MapKindId::FlipTime.name());
        let id = MapKindId::parse(name).ok_or_else(|| {
            SpecError::new(
                "map.kind",
                format!(
                    "unknown map kind `{name}` (expected {})",
                    MapKindId::expected(&MapKindId::ALL)
                ),
            )
        })?;
        let kind = match id {
            MapKindId::FlipTime => MapKind::FlipTime {
                target: self.flip_target(n)?,
            },
            MapKindId::EnergyError => MapKind::EnergyError,
            MapKindId::LagrangianDescriptor => self.descriptor()?,
            MapKindId::Ftle => MapKind::Ftle,
            MapKindId::Frequency => self.frequency(steps)?,
            MapKindId::FinalState => self.final_state(chain, dt)?,
            MapKindId::Sali | MapKindId::Gali | MapKindId::Megno | MapKindId::Fli => {
                self.renormalised(id, n, dt)?
            }
            MapKindId::Lyapunov => self.lyapunov(dt, steps)?,
        };
        self.refuse_foreign_fields(id, &kind)?;
        Ok(kind)
    }

    /// The flip-time map's link (`map.flip`): "any" or a link number 1..n.
    fn flip_target(&self, n: usize) -> Result<FlipTarget, SpecError> {
        Ok(match self.flip.as_deref().unwrap_or("any") {
            "any" => FlipTarget::Any,
            l => match l.parse::<usize>() {
                Ok(j) if j >= 1 && j <= n => FlipTarget::Link(j - 1),
                _ => {
                    return Err(SpecError::new(
                        "map.flip",
                        format!("must be \"any\" or a link number 1..{n} (got `{l}`)"),
                    ))
                }
            },
        })
    }

    /// The Lagrangian descriptor's exponent p (`map.descriptor_p`, default 0.5).
    fn descriptor(&self) -> Result<MapKind, SpecError> {
        let p = self.descriptor_p.unwrap_or(0.5);
        // Only p ≤ 1 makes the descriptor singular across the manifolds (Lopesino et
        // al. 2017), which is what the map is for.
        if !(p > 0.0 && p <= 1.0) {
            return Err(SpecError::new(
                "map.descriptor_p",
                format!("must be in (0, 1] (got {p})"),
            ));
        }
        Ok(MapKind::LagrangianDescriptor { p })
    }

    /// The frequency map's samples per pixel, their spacing in steps, and its window order.
    fn frequency(&self, steps: f64) -> Result<MapKind, SpecError> {
        let samples = self.samples.unwrap_or(DEFAULT_SAMPLES);
        let least = 2 * crate::analysis::frequency::MIN_SAMPLES as u32;
        if samples < least || !samples.is_multiple_of(2) {
            return Err(SpecError::new(
                "map.samples",
                format!("must be even and at least {least} (got {samples})"),
            ));
        }
        // The samples span (samples − 1)·sample_steps ≤ t_end / dt steps.
        let sample_steps = (steps / f64::from(samples - 1)).floor();
        if sample_steps < 1.0 {
            return Err(SpecError::new(
                "map.samples",
                format!(
                    "{samples} samples need at least {} steps; t_end / dt gives {steps} (raise t_end or lower dt)",
                    samples - 1
                ),
            ));
        }
        // p = 2: the leakage of the lines a map's short extraction leaves unfound
        // falls like T^-6 (at p = 1, T^-4 left a torus at -7.3 in places).
        let window_order = self.window_order.unwrap_or(2);
        let most = crate::analysis::frequency::MAX_WINDOW_ORDER;
        if window_order > most {
            return Err(SpecError::new(
                "map.window_order",
                format!("must be 0..={most} (got {window_order})"),
            ));
        }
        Ok(MapKind::Frequency {
            sample_steps: sample_steps.min(f64::from(u32::MAX)) as u32,
            samples,
            window_order,
        })
    }

    /// The kinds that renormalise deviation vectors every τ: SALI, GALI (with its order k),
    /// MEGNO and FLI.
    fn renormalised(&self, id: MapKindId, n: usize, dt: f64) -> Result<MapKind, SpecError> {
        let tau_steps = self.tau_steps(dt)?;
        Ok(if id == MapKindId::Sali {
            MapKind::Sali { tau_steps }
        } else if id == MapKindId::Megno {
            MapKind::Megno { tau_steps }
        } else if id == MapKindId::Fli {
            MapKind::Fli { tau_steps }
        } else {
            let dim = 2 * n;
            let k = self.gali_order.unwrap_or(dim);
            if !(2..=dim).contains(&k) {
                return Err(SpecError::new(
                    "map.gali_order",
                    format!("must be between 2 and 2N = {dim} (got {k})"),
                ));
            }
            MapKind::Gali { k, tau_steps }
        })
    }

    /// The Lyapunov map's renormalisation, block count and early-stop tolerance.
    fn lyapunov(&self, dt: f64, steps: f64) -> Result<MapKind, SpecError> {
        let renorm_steps = self.tau_steps(dt)?;
        let most = crate::analysis::map::blocks::max_blocks(steps as u32, renorm_steps);
        // The default of 10 shrinks to the intervals a short run has; a value given
        // explicitly is checked as given.
        let blocks = self.blocks.unwrap_or(10.min(most));
        if blocks < 2 || blocks > most {
            return Err(SpecError::new(
                "map.blocks",
                format!(
                    "must be between 2 and the {most} renormalisation intervals of t_end (got {blocks})"
                ),
            ));
        }
        let tolerance = match self.tolerance {
            Some(t) => Some(positive("map.tolerance", t)?),
            None => None,
        };
        Ok(MapKind::Lyapunov {
            renorm_steps,
            blocks,
            tolerance,
        })
    }

    /// Refuses a field the catalogue does not list for the map's kind.
    fn refuse_foreign_fields(&self, id: MapKindId, kind: &MapKind) -> Result<(), SpecError> {
        // Each kind takes the fields the catalogue lists for it and refuses the others.
        for (field, set) in [
            ("map.flip", self.flip.is_some()),
            ("map.energy_skip", self.energy_skip.is_some()),
            ("map.tau", self.tau.is_some()),
            ("map.blocks", self.blocks.is_some()),
            ("map.tolerance", self.tolerance.is_some()),
            ("map.gali_order", self.gali_order.is_some()),
            ("map.angle_tol", self.angle_tol.is_some()),
            ("map.omega_tol", self.omega_tol.is_some()),
            ("map.dwell", self.dwell.is_some()),
            ("map.max_period", self.max_period.is_some()),
            ("map.repeats", self.repeats.is_some()),
            ("map.descriptor_p", self.descriptor_p.is_some()),
            ("map.samples", self.samples.is_some()),
            ("map.window_order", self.window_order.is_some()),
        ] {
            if set && !id.facts().fields.contains(&field) {
                return Err(SpecError::new(
                    field,
                    format!("does not apply to a {} map", kind.name()),
                ));
            }
        }
        Ok(())
    }

    /// τ (`map.tau`, default 0.1 s) in RK4 steps of `dt`: every kind that renormalises takes
    /// the same rule, a whole number of steps, so that the τ a map ran with is the τ it was
    /// given (a Lyapunov map used to round 0.014 s, or 1e-300 s, to one step of 0.01 s).
    fn tau_steps(&self, dt: f64) -> Result<u32, SpecError> {
        let tau = positive("map.tau", self.tau.unwrap_or(0.1))?;
        let q = (tau / dt).round();
        if q < 1.0 || (q * dt - tau).abs() > 1e-9 * tau {
            return Err(SpecError::new(
                "map.tau",
                format!(
                    "must be a whole number of RK4 steps dt = {} s (got {})",
                    short(dt),
                    short(tau)
                ),
            ));
        }
        Ok(q as u32)
    }
}
