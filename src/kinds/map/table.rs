//! The `[map]` table ([`MapSpec`]) and its validation into the map's options
//! ([`validate_map`]); the fields each map kind takes are checked in `validation.rs`.

use crate::analysis::map::{Grid, GridAxis, Kernel, MapKindId, MapOptions, Shell, Tiling};
use crate::error::positive;
use crate::integrate::Method;
use crate::kinds::SpecParts;
use crate::limits::MAP_MAX_EDGE;
use crate::model::Chain;
use crate::spec::retired::{self, Retired};
use crate::spec::{state_coordinate, InitialSpec, IntegratorSpec, SpecError};
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

impl MapSpec {
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
            let max = crate::spec::MAX_RATE;
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
pub fn reach_note(o: &MapOptions, energy: f64) -> String {
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

/// `kind = "map"`: a grid of initial conditions, each integrated by RK4 with `[integrator] dt`,
/// the others of each pixel's coordinates from `[initial]` (read through `spec`); the map's
/// options, the base state and the integrator. A measure spec validates its `[map]` here too.
pub fn validate_map(
    map: &MapSpec,
    chain: &Chain,
    spec: &dyn SpecParts,
) -> Result<(MapOptions, Vec<f64>, Method), SpecError> {
    let integ = spec.integrator();
    if let Some(m) = integ.method.as_deref().filter(|m| *m != "rk4") {
        return Err(SpecError::new(
            "integrator.method",
            format!("a map integrates with rk4 (got `{m}`)"),
        ));
    }
    let only_dt = IntegratorSpec {
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
    let opts = map.options(chain, spec.initial(), integ.dt)?;
    let (x0, dt) = (opts.grid.base.clone(), opts.dt);
    Ok((opts, x0, Method::Rk4 { dt }))
}

/// The title of the map `opts` on `chain` of a spec titled `title` (its model named
/// `model_name`): its kind's title and the chain's forcing, unless the spec has a title of its
/// own.
pub fn map_title(title: &str, model_name: &str, chain: &Chain, opts: &MapOptions) -> String {
    if title == crate::spec::default_title("map", model_name, chain, None) {
        let forcing = crate::spec::describe_run(chain.params(), None);
        format!("{}{forcing}", opts.kind.title(model_name))
    } else {
        title.to_string()
    }
}
