//! The `[map]` table.

use super::retired::{self, Retired};
use super::{positive, state_coordinate, Analysis, InitialSpec, SpecError, SpecFile, Validated};
use crate::analysis::map::{
    FlipTarget, Grid, GridAxis, Kernel, MapKind, MapKindId, MapOptions, Shell, Tiling,
};
use crate::integrate::Method;
use crate::model::Chain;
use serde::{Deserialize, Serialize};

/// Samples per pixel of a frequency map unless `map.samples` says otherwise.
pub const DEFAULT_SAMPLES: u32 = 2048;

/// The `[map]` table: an initial-condition map over two start coordinates.
///
/// ```toml
/// [map]
/// kind = "flip-time"          # flip-time | energy-error | lyapunov | ftle | sali | gali | megno | final-state | lagrangian-descriptor | fli | frequency
/// resolution = 512            # pixels: W (square) or [W, H]
/// x = "theta1"                # the two coordinates: theta<i> or omega<i> (default θ1, θ2)
/// y = "theta2"
/// window = [-3.14159, 3.14159, -3.14159, 3.14159]   # x_lo, x_hi, y_lo, y_hi (default [−π, π]²)
/// t_end = 10.0                # s
/// flip = "any"                # flip-time: "any" link, or a link number "1", "2", …
/// energy_skip = true          # classify energetically forbidden pixels without integrating
/// tile = 64                   # tile edge (default 32 up to 256 pixels, else 64)
/// kernel = "auto"             # auto (SIMD lanes where they apply) | lanes (also fli, lagrangian-descriptor) | scalar
/// tau = 0.1                   # lyapunov, sali, gali, megno, fli: renormalisation interval (s)
/// blocks = 10                 # lyapunov: block means per pixel for its standard error (>= 2; default 10, fewer if t_end has fewer τ intervals)
/// tolerance = 0.01            # lyapunov: a pixel stops once its standard error is below (1/s)
/// gali_order = 4              # gali: number of deviation vectors k (2..2N, default 2N)
/// angle_tol = 0.01            # final-state: settling tolerance on angles (rad)
/// omega_tol = 0.01            # final-state: on velocities (rad/s)
/// dwell = 1.0                 # final-state, undriven: time the state must stay settled (s)
/// max_period = 8              # final-state, driven: largest stroboscopic period searched
/// repeats = 3                 # final-state, driven: times a period-k orbit must repeat
/// descriptor_p = 0.5          # lagrangian-descriptor: exponent p of Σ|ẋᵢ|^p, in (0, 1] (t_end is τ, both ways)
/// samples = 2048              # frequency: samples per pixel (even, >= 32), a whole number of steps apart
/// window_order = 2            # frequency: order p of the Hann window (default 2)
/// energy = -5.0               # an energy-shell grid: E (J) of every pixel (conservative chains);
///                             # without a window, the window is the part of the default the energy reaches
/// solve = "omega2"            # the velocity solved from E (≥ 0 root); default the last free one
/// ```
/// The other coordinates start from `[initial]` (default: all zero, at rest). The step is
/// `[integrator] dt` (default 0.01 s); a map integrates with RK4, except the frequency kind:
/// Gauss–Legendre of order 6 in canonical coordinates (symplectic, so that its frequencies do
/// not drift), default dt = 0.05 s and t_end = 0.1 s × samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    pub kind: Option<String>,
    pub resolution: Option<Resolution>,
    pub x: Option<String>,
    pub y: Option<String>,
    pub window: Option<Vec<f64>>,
    pub t_end: Option<f64>,
    pub flip: Option<String>,
    pub energy_skip: Option<bool>,
    pub tile: Option<usize>,
    pub kernel: Option<String>,
    pub tau: Option<f64>,
    pub blocks: Option<u32>,
    pub tolerance: Option<f64>,
    pub gali_order: Option<usize>,
    pub angle_tol: Option<f64>,
    pub omega_tol: Option<f64>,
    pub dwell: Option<f64>,
    pub max_period: Option<u32>,
    pub repeats: Option<u32>,
    pub energy: Option<f64>,
    pub solve: Option<String>,
    pub descriptor_p: Option<f64>,
    /// Frequency maps: samples per pixel (even, >= 32, default 2048), spread evenly over t_end
    /// at a whole number of RK4 steps apart.
    pub samples: Option<u32>,
    /// Frequency maps: order of the Hann window (default 2).
    pub window_order: Option<u32>,
    #[serde(
        default,
        deserialize_with = "retired::t_max_is_t_end",
        skip_serializing_if = "Option::is_none"
    )]
    pub t_max: Option<Retired>,
    #[serde(
        default,
        deserialize_with = "retired::map_dt",
        skip_serializing_if = "Option::is_none"
    )]
    pub dt: Option<Retired>,
    #[serde(
        default,
        deserialize_with = "retired::map_size",
        skip_serializing_if = "Option::is_none"
    )]
    pub width: Option<Retired>,
    #[serde(
        default,
        deserialize_with = "retired::map_size",
        skip_serializing_if = "Option::is_none"
    )]
    pub height: Option<Retired>,
}

/// Map pixels: `W` (a square) or `[W, H]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Resolution {
    Square(usize),
    Rect([usize; 2]),
}

/// Largest map edge a spec accepts (the CLI asks for --force well below this).
pub const MAP_MAX_EDGE: usize = 65_536;

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

    /// Validates the table against the chain; `initial` gives the fixed coordinates.
    /// `dt` is the RK4 step (`[integrator] dt`, default 0.01 s).
    pub fn options(
        &self,
        chain: &Chain,
        initial: &InitialSpec,
        dt: Option<f64>,
    ) -> Result<MapOptions, SpecError> {
        let n = chain.links();
        let (t_max, dt, steps) = self.span(dt)?;
        let kind = self.kind(chain, dt, steps)?;
        let (width, height, (xi, xr), (yi, yr)) = self.window(n)?;
        let tile = self.tile(width, height)?;
        let kernel = self.kernel()?;
        let base = base_state(initial, n)?;
        let shell = self.shell(chain, xi, yi)?;
        let mut grid = Grid {
            width,
            height,
            x: GridAxis {
                index: xi,
                lo: xr.0,
                hi: xr.1,
            },
            y: GridAxis {
                index: yi,
                lo: yr.0,
                hi: yr.1,
            },
            base,
            shell,
        };
        self.clip_to_reach(&mut grid, chain)?;
        Ok(MapOptions {
            grid,
            kind,
            t_max,
            dt,
            energy_skip: self.energy_skip.unwrap_or(true),
            tile,
            kernel,
        })
    }

    /// The time each pixel runs (`map.t_end`), the RK4 step `dt` and the steps between: a
    /// frequency map's defaults follow its samples, every other kind's are 10 s and 0.01 s.
    fn span(&self, dt: Option<f64>) -> Result<(f64, f64, f64), SpecError> {
        // A frequency map samples every 0.1 s by default (Gauss steps of 0.05 s, see
        // kinds/frequency.rs): t_end = 0.1 s per sample, 204.8 s for the default 2048.
        let frequency =
            self.kind.as_deref().and_then(MapKindId::parse) == Some(MapKindId::Frequency);
        let t_default = if frequency {
            0.1 * f64::from(self.samples.unwrap_or(DEFAULT_SAMPLES))
        } else {
            10.0
        };
        let t_max = positive("map.t_end", self.t_end.unwrap_or(t_default))?;
        let dt = positive(
            "integrator.dt",
            dt.unwrap_or(if frequency {
                crate::analysis::map::kinds::frequency::DEFAULT_DT
            } else {
                0.01
            }),
        )?;
        if dt > t_max {
            return Err(SpecError::new(
                "integrator.dt",
                format!("is longer than t_end ({dt} > {t_max})"),
            ));
        }
        let steps = (t_max / dt).round();
        if steps > f64::from(i32::MAX) {
            return Err(SpecError::new(
                "map.t_end",
                format!("needs {steps:.3e} RK4 steps per pixel; the limit is 2^31 − 1"),
            ));
        }
        Ok((t_max, dt, steps))
    }

    /// The tile edge (`map.tile`, default [`Tiling::default_size`] of the grid).
    fn tile(&self, width: usize, height: usize) -> Result<usize, SpecError> {
        let tile = self
            .tile
            .unwrap_or_else(|| Tiling::default_size(width, height));
        if !(4..=1024).contains(&tile) {
            return Err(SpecError::new(
                "map.tile",
                format!("must be between 4 and 1024 pixels (got {tile})"),
            ));
        }
        Ok(tile)
    }

    /// The kernel (`map.kernel`): auto, lanes or scalar.
    fn kernel(&self) -> Result<Kernel, SpecError> {
        let kernel = match self.kernel.as_deref().unwrap_or("auto") {
            "auto" => Kernel::Auto,
            "lanes" => Kernel::Lanes,
            "scalar" => Kernel::Scalar,
            other => {
                return Err(SpecError::new(
                    "map.kernel",
                    format!("unknown kernel `{other}` (expected auto, lanes or scalar)"),
                ))
            }
        };
        Ok(kernel)
    }

    /// Clips an energy shell's default window to what the energy reaches (a grid without a
    /// shell reaches everywhere and is kept).
    fn clip_to_reach(&self, grid: &mut Grid, chain: &Chain) -> Result<(), SpecError> {
        let n = chain.links();
        // An energy shell's default window is the part of [−π, π]² (or ±10 rad/s) the energy
        // reaches, so no pixel is spent on forbidden states; a given window is kept, and a
        // window the energy does not reach at all is refused.
        let samples = if n <= 3 { 512 } else { 128 };
        if let Some(reach) = grid.reach(chain, samples) {
            let e = self.energy.unwrap_or(f64::NAN);
            match reach.window {
                None => {
                    return Err(SpecError::new(
                        "map.energy",
                        format!(
                            "E = {e} J reaches no point of the window: the least energy there is {:.4} J (raise the energy{})",
                            reach.least,
                            if self.window.is_some() { " or move the window" } else { "" }
                        ),
                    ))
                }
                Some(((x0, x1), (y0, y1))) if self.window.is_none() => {
                    (grid.x.lo, grid.x.hi, grid.y.lo, grid.y.hi) = (x0, x1, y0, y1);
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The kind and its parameters, with the fields it does not take refused.
    fn kind(&self, chain: &Chain, dt: f64, steps: f64) -> Result<MapKind, SpecError> {
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

    /// The pixels (width, height) and the two axes (state index, (lo, hi)).
    #[allow(clippy::type_complexity)]
    fn window(
        &self,
        n: usize,
    ) -> Result<(usize, usize, (usize, (f64, f64)), (usize, (f64, f64))), SpecError> {
        let (width, height) = match self.resolution {
            None => (256, 256),
            Some(Resolution::Square(w)) => (w, w),
            Some(Resolution::Rect([w, h])) => (w, h),
        };
        for v in [width, height] {
            if v == 0 || v > MAP_MAX_EDGE {
                return Err(SpecError::new(
                    "map.resolution",
                    format!("must be between 1 and {MAP_MAX_EDGE} pixels (got {v})"),
                ));
            }
        }
        let xi = state_coordinate("map.x", self.x.as_deref().unwrap_or("theta1"), n)?;
        let yi = state_coordinate(
            "map.y",
            self.y
                .as_deref()
                .unwrap_or(if n >= 2 { "theta2" } else { "omega1" }),
            n,
        )?;
        if xi == yi {
            return Err(SpecError::new("map.y", "must differ from map.x"));
        }
        let pi = std::f64::consts::PI;
        let default = |i: usize| if i < n { (-pi, pi) } else { (-10.0, 10.0) };
        let (xr, yr) = match &self.window {
            None => (default(xi), default(yi)),
            Some(w) if w.len() == 4 => ((w[0], w[1]), (w[2], w[3])),
            Some(w) => {
                return Err(SpecError::new(
                    "map.window",
                    format!("needs 4 numbers x_lo, x_hi, y_lo, y_hi (got {})", w.len()),
                ))
            }
        };
        for (axis, idx, (lo, hi)) in [("x", xi, xr), ("y", yi, yr)] {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(SpecError::new(
                    "map.window",
                    format!("{axis} range [{lo}, {hi}] must be finite with lo < hi"),
                ));
            }
            // 1e-12 rad of slack so that a window written with π to 6 digits is not refused.
            if idx < n && (lo < -pi - 1e-12 || hi > pi + 1e-12) {
                return Err(SpecError::new(
                    "map.window",
                    format!("{axis} range [{lo}, {hi}] is outside the angle range [−π, π]"),
                ));
            }
            // A velocity axis starts its pixels there: the bound of an initial |θ̇| holds for
            // it too (a window of ±1.7e308 had a pixel pitch, and so an axis, of inf).
            let max = super::MAX_RATE;
            if idx >= n && (lo < -max || hi > max) {
                return Err(SpecError::new(
                    "map.window",
                    format!(
                        "{axis} range [{lo:e}, {hi:e}] is outside the velocity range |θ̇| <= {max:e} rad/s"
                    ),
                ));
            }
        }
        Ok((width, height, (xi, xr), (yi, yr)))
    }

    /// The energy shell of the grid, if `energy` is given: the velocity solved from E.
    fn shell(&self, chain: &Chain, xi: usize, yi: usize) -> Result<Option<Shell>, SpecError> {
        let n = chain.links();
        Ok(match (self.energy, &self.solve) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(SpecError::new(
                    "map.solve",
                    "applies only to an energy-shell grid (give map.energy)",
                ))
            }
            (Some(e), solve) => {
                if !e.is_finite() {
                    return Err(SpecError::new(
                        "map.energy",
                        format!("must be finite (got {e})"),
                    ));
                }
                if !chain.is_conservative() {
                    return Err(SpecError::new(
                        "map.energy",
                        "energy shells need a conservative chain (no damping or drive)",
                    ));
                }
                let free = (n..2 * n).rev().find(|&i| i != xi && i != yi);
                let omega = match solve {
                    Some(name) => Some(state_coordinate("map.solve", name, n)?),
                    None => free,
                };
                match omega {
                    Some(i) if i >= n && i != xi && i != yi => Some(Shell {
                        omega: i,
                        energy: e,
                    }),
                    _ => {
                        return Err(SpecError::new(
                            "map.solve",
                            "must name a velocity omega<j> that is neither map axis",
                        ))
                    }
                }
            }
        })
    }
}

/// The state every pixel starts from before its two coordinates are set: `[initial]`'s, its
/// rates alone from rest, or rest.
fn base_state(initial: &InitialSpec, n: usize) -> Result<Vec<f64>, SpecError> {
    Ok(if initial.theta.is_some() || initial.theta_deg.is_some() {
        initial.state(n)?
    } else if let Some(w) = &initial.omega {
        InitialSpec {
            theta: Some(vec![0.0; n]),
            omega: Some(w.clone()),
            ..Default::default()
        }
        .state(n)?
    } else {
        vec![0.0; 2 * n]
    })
}

/// The note of an energy-shell map whose default window was clipped to the shell's reach.
pub(super) fn reach_note(o: &MapOptions, energy: f64) -> String {
    let n = o.grid.base.len() / 2;
    let name = |i: usize| {
        if i < n {
            format!("θ{}", i + 1)
        } else {
            format!("θ̇{}", i - n + 1)
        }
    };
    let (x, y) = (&o.grid.x, &o.grid.y);
    format!(
        "note: the map's window is the part of the default one that E = {energy} J reaches: \
         {} ∈ [{:.4}, {:.4}], {} ∈ [{:.4}, {:.4}] (give a window to choose another)",
        name(x.index),
        x.lo,
        x.hi,
        name(y.index),
        y.lo,
        y.hi
    )
}

/// `kind = "map"`: a grid of initial conditions, each integrated by RK4 with `[integrator] dt`.
pub(super) fn validate(file: &SpecFile, chain: &Chain) -> Result<Validated, SpecError> {
    let integ = &file.integrator;
    if let Some(m) = integ.method.as_deref().filter(|m| *m != "rk4") {
        return Err(SpecError::new(
            "integrator.method",
            format!("a map integrates with rk4 (got `{m}`)"),
        ));
    }
    let only_dt = super::IntegratorSpec {
        method: integ.method.clone(),
        dt: integ.dt,
        ..Default::default()
    };
    if *integ != only_dt {
        return Err(SpecError::new(
            "integrator",
            "a map uses RK4 with a fixed step: give only `dt` (and method = \"rk4\")",
        ));
    }
    let opts = file
        .map
        .clone()
        .unwrap_or_default()
        .options(chain, &file.initial, integ.dt)?;
    let (x0, dt) = (opts.grid.base.clone(), opts.dt);
    Ok(Validated {
        analysis: Analysis::Map(opts),
        x0,
        method: Method::Rk4 { dt },
    })
}

/// The title of the map `opts` of `spec` on `chain`: its kind's title and the chain's forcing,
/// unless the spec has a title of its own.
pub fn map_title(spec: &super::Spec, chain: &Chain, opts: &MapOptions) -> String {
    let name = &spec.model_name;
    if spec.title == super::default_title("map", name, chain, None) {
        let forcing = super::describe_run(chain.params(), None);
        format!("{}{forcing}", opts.kind.title(name))
    } else {
        spec.title.clone()
    }
}
