//! The `[manifolds]` table and what it validates into ([`ManifoldsRun`], the kind's settings).
//!
//! ```toml
//! kind = "manifolds"
//! [model]                      # one driven link: the stroboscopic map's saddle
//! preset = "simple"
//! [model.drive.torque]
//! amplitude = 1.15
//! frequency = 0.6666666666666666
//! [initial]
//! theta = [-2.86]              # the seed of the saddle (start = "initial", default)
//! omega = [0.9]
//! [manifolds]
//! resolution = 0.01            # largest distance between neighbours
//! accuracy = 1e-6              # largest departure of a chord from the curve (optional)
//! arclength = 20               # of each branch, from the saddle
//! parameter = "model.drive.torque.amplitude"   # the first tangency in it (optional)
//! range = [0.2, 0.6]
//! map_file = "basins.h5"       # the figure over this map of (θ, θ̇) at release (optional)
//! ```
//!
//! The saddle is found as `orbits find` finds a period-k orbit (`start`, `drive_periods`,
//! `transient_periods`, `scan_periods` as in `[orbits]`), then polished by Newton on the map the
//! curves are grown with (`newton_tolerance`). That map is DOP853 at `map_tolerance` (default
//! 1e-13) or on a fixed grid of `steps_per_period`.

use crate::analysis::manifold::grow::Growth;
use crate::analysis::manifold::map::{MapIntegration, MAP_TOLERANCE, MAX_STEPS_PER_PERIOD};
use crate::analysis::periodic::ShootingOptions;
use crate::error::{positive, FieldError as SpecError};
use crate::integrate::Method;
use crate::kinds::kind::{planar_chain, Registered, SpecParts, Table, Validation};
use crate::kinds::orbits::table::OrbitStart;
use crate::model::{Model, Parameter, PARAMETERS};
use serde::{Deserialize, Serialize};

/// The `[manifolds]` table as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifoldsSpec {
    /// Where the saddle is sought from: initial (default) | settle | return.
    pub start: Option<String>,
    /// The saddle's period in drive periods k (default 1).
    pub drive_periods: Option<usize>,
    /// Drive periods integrated from [initial] first (settle, return; default 200).
    pub transient_periods: Option<u64>,
    /// Drive periods scanned for the nearest k-period return (return; default 1000).
    pub scan_periods: Option<u64>,
    /// Newton on the saddle stops at this residual (default 1e-12).
    pub newton_tolerance: Option<f64>,
    /// The map's DOP853 tolerance (default 1e-13).
    pub map_tolerance: Option<f64>,
    /// Instead: DOP853 on a fixed grid of this many steps per drive period.
    pub steps_per_period: Option<u64>,
    /// The first point's distance from the saddle along the eigenvector (default 1e-6).
    pub d0: Option<f64>,
    /// Largest distance between neighbours (default 0.01).
    pub resolution: Option<f64>,
    /// Largest turn of a curve at a point (rad, default 0.2).
    pub max_angle: Option<f64>,
    /// Largest estimated departure of the chord between neighbours from the manifold
    /// (default: not controlled).
    pub accuracy: Option<f64>,
    /// Each branch's arclength from the saddle (default 10).
    pub arclength: Option<f64>,
    /// Most points of a branch (default 2e6).
    pub max_points: Option<usize>,
    /// Largest departure of the fundamental domain's chord from the eigenline's image
    /// (default 1e-9).
    pub linear_tolerance: Option<f64>,
    /// The intersections are refined until both curves' points agree to this (default 1e-11).
    pub intersection_tolerance: Option<f64>,
    /// The window [a, b] of θ − θ* (rad) over which the splitting is measured (default
    /// [0.6, 2π − 0.6]).
    pub window: Option<Vec<f64>>,
    /// The model field in which the first tangency is sought.
    pub parameter: Option<String>,
    /// Its bracket [from, to]: the signed distance changes sign between them.
    pub range: Option<Vec<f64>>,
    /// The tangency's parameter to within this (default 1e-8).
    pub tangency_tolerance: Option<f64>,
    /// Two conservative links: the Poincaré section's angle, `theta1` (default) or `theta2`
    /// (as `[poincare]`'s `section`); the plane is the other link's (θ, p).
    pub section: Option<String>,
    /// The section's angle (rad, mod 2π; default 0).
    pub value: Option<f64>,
    /// Its crossing direction: `+` (default) or `-`.
    pub direction: Option<String>,
    /// The energy shell (J; default the seed's): the hyperbolic orbit is found at it.
    pub energy: Option<f64>,
    /// The orbit's period guess (s) for start = "initial".
    pub period: Option<f64>,
    /// A map of `pendula map` (HDF5) over (θ, θ̇) at release of this very model: the figure
    /// draws the manifolds over it (a final-state map's basins), as `orbits`' seed map.
    pub map_file: Option<String>,
}

/// The Poincaré map of a conservative two-link chain on an energy shell.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellMap {
    /// The section's link i (0-based): θ_i = `value` crossed in `direction`.
    pub link: usize,
    pub value: f64,
    pub direction: crate::integrate::Direction,
    /// The shell's energy (J); `None`: the seed's.
    pub energy: Option<f64>,
    /// The orbit's period guess (s; start = "initial").
    pub period: Option<f64>,
}

/// The first-tangency search.
#[derive(Debug, Clone, PartialEq)]
pub struct TangencySearch {
    pub name: String,
    pub parameter: Parameter,
    pub units: String,
    pub range: [f64; 2],
    pub tolerance: f64,
}

/// The validated `[manifolds]` table: the kind's settings ([`crate::kinds::Settings`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ManifoldsRun {
    pub start: OrbitStart,
    pub k: usize,
    pub shooting: ShootingOptions,
    pub newton_tolerance: f64,
    pub integration: MapIntegration,
    pub growth: Growth,
    pub intersection_tolerance: f64,
    pub window: [f64; 2],
    pub tangency: Option<TangencySearch>,
    /// Whether the model is a preset (a varied chain's errors name `model.mass`).
    pub preset: bool,
    /// `Some`: a conservative two-link chain's Poincaré map on an energy shell (not the
    /// stroboscopic map of a driven link).
    pub shell: Option<ShellMap>,
    /// The map the figure draws the manifolds over (checked when the run starts).
    pub map_file: Option<String>,
}

fn word<'a>(field: &str, v: Option<&'a str>, allowed: &[&'a str]) -> Result<&'a str, SpecError> {
    match v {
        None => Ok(allowed[0]),
        Some(w) if allowed.contains(&w) => Ok(w),
        Some(w) => Err(SpecError::new(
            field,
            format!("`{w}` is not one of {}", allowed.join(", ")),
        )),
    }
}

/// The section, energy and period guess of a two-link run.
fn shell_map(s: &ManifoldsSpec) -> Result<ShellMap, SpecError> {
    use crate::integrate::Direction;
    let link = match s.section.as_deref().unwrap_or("theta1") {
        "theta1" => 0,
        "theta2" => 1,
        w => {
            return Err(SpecError::new(
                "manifolds.section",
                format!("`{w}` is not theta1 or theta2 (the map's section is on an angle)"),
            ))
        }
    };
    let value = s.value.unwrap_or(0.0);
    if !value.is_finite() {
        return Err(SpecError::new("manifolds.value", "must be finite"));
    }
    let direction = match s.direction.as_deref().unwrap_or("+") {
        "+" => Direction::Rising,
        "-" => Direction::Falling,
        w => {
            return Err(SpecError::new(
                "manifolds.direction",
                format!("`{w}` is not + or - (the map needs one crossing direction)"),
            ))
        }
    };
    if let Some(e) = s.energy {
        if !e.is_finite() {
            return Err(SpecError::new("manifolds.energy", "must be finite"));
        }
    }
    let period = match s.period {
        Some(p) => Some(positive("manifolds.period", p)?),
        None => None,
    };
    Ok(ShellMap {
        link,
        value,
        direction,
        energy: s.energy,
        period,
    })
}

impl Table for ManifoldsSpec {
    fn validate(self, model: &Model, spec: &dyn SpecParts) -> Validation {
        let chain = planar_chain(super::KIND.name, model)?;
        let s = self;
        let shell = match chain.links() {
            1 => {
                if chain.params().drive.period_of_fields()?.is_none() {
                    return Err(SpecError::new(
                        "model.drive",
                        "manifolds of one link are those of the stroboscopic map: they need a driven chain (the undriven chain's are not offered)",
                    ));
                }
                if s.section.is_some()
                    || s.value.is_some()
                    || s.direction.is_some()
                    || s.energy.is_some()
                    || s.period.is_some()
                {
                    return Err(SpecError::new(
                        "manifolds.section",
                        "section, value, direction, energy and period apply to a conservative two-link chain (the Poincaré map on an energy shell)",
                    ));
                }
                None
            }
            2 if chain.is_conservative() => Some(shell_map(&s)?),
            n => {
                return Err(SpecError::new(
                    "model",
                    format!(
                        "manifolds are offered for one driven link (the stroboscopic map) and for a conservative two-link chain (the Poincaré map on an energy shell); this chain has {n} link(s){}",
                        if chain.is_conservative() { "" } else { " and is damped or driven" }
                    ),
                ));
            }
        };
        let map_file = match s.map_file.as_deref() {
            None => None,
            Some("") => {
                return Err(SpecError::new(
                    "manifolds.map_file",
                    "is empty: give the map file (HDF5) to draw the manifolds over",
                ))
            }
            Some(f) => Some(f.to_string()),
        };
        if shell.is_some() {
            for (set, field) in [
                (map_file.is_some(), "manifolds.map_file"),
                (s.drive_periods.is_some(), "manifolds.drive_periods"),
                (s.steps_per_period.is_some(), "manifolds.steps_per_period"),
                (s.parameter.is_some(), "manifolds.parameter"),
                (s.window.is_some(), "manifolds.window"),
                (s.transient_periods.is_some(), "manifolds.transient_periods"),
            ] {
                if set {
                    return Err(SpecError::new(
                        field,
                        "applies to a driven one-link chain (its stroboscopic map), not to the Poincaré map of two conservative links",
                    ));
                }
            }
            if s.start.as_deref() == Some("settle") {
                return Err(SpecError::new(
                    "manifolds.start",
                    "settle applies to a driven chain; use initial (with manifolds.period) or return",
                ));
            }
            if s.start.as_deref().unwrap_or("initial") == "initial" && s.period.is_none() {
                return Err(SpecError::new(
                    "manifolds.period",
                    "start = \"initial\" on two conservative links needs the orbit's period guess (s), or use start = \"return\"",
                ));
            }
        }
        let k = s.drive_periods.unwrap_or(1);
        if !(1..=64).contains(&k) {
            return Err(SpecError::new(
                "manifolds.drive_periods",
                format!("must be 1..=64 (got {k})"),
            ));
        }
        let transient = s.transient_periods.unwrap_or(200);
        if transient > 10_000_000 {
            return Err(SpecError::new(
                "manifolds.transient_periods",
                format!("must be <= 1e7 drive periods (got {transient})"),
            ));
        }
        let start = match word(
            "manifolds.start",
            s.start.as_deref(),
            &["initial", "settle", "return"],
        )? {
            "initial" => OrbitStart::Initial,
            "settle" => OrbitStart::Settle { periods: transient },
            _ => {
                let scan = s.scan_periods.unwrap_or(1000);
                if scan <= k as u64 || scan > 1_000_000 {
                    return Err(SpecError::new(
                        "manifolds.scan_periods",
                        format!("must exceed drive_periods ({k}) and be <= 1e6 (got {scan})"),
                    ));
                }
                OrbitStart::Return { transient, scan }
            }
        };
        if !matches!(start, OrbitStart::Return { .. }) && s.scan_periods.is_some() {
            return Err(SpecError::new(
                "manifolds.scan_periods",
                "applies with start = \"return\"",
            ));
        }
        let newton_tolerance = positive(
            "manifolds.newton_tolerance",
            s.newton_tolerance.unwrap_or(1e-12),
        )?;
        let integration = match (s.map_tolerance, s.steps_per_period) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "manifolds.steps_per_period",
                    "give map_tolerance (adaptive) or steps_per_period (fixed grid), not both",
                ))
            }
            (_, Some(q)) if !(1..=MAX_STEPS_PER_PERIOD).contains(&q) => {
                return Err(SpecError::new(
                    "manifolds.steps_per_period",
                    format!("must be 1..={MAX_STEPS_PER_PERIOD} (got {q})"),
                ))
            }
            (_, Some(q)) => MapIntegration::Fixed(q),
            (t, None) => {
                let t = t.unwrap_or(MAP_TOLERANCE);
                if !(t.is_finite() && (1e-15..=1e-3).contains(&t)) {
                    return Err(SpecError::new(
                        "manifolds.map_tolerance",
                        format!("must be in [1e-15, 1e-3] (got {t})"),
                    ));
                }
                MapIntegration::Adaptive(t)
            }
        };
        let d = Growth::default();
        let growth = Growth {
            d0: s.d0.unwrap_or(d.d0),
            resolution: s.resolution.unwrap_or(d.resolution),
            max_angle: s.max_angle.unwrap_or(d.max_angle),
            arclength: s.arclength.unwrap_or(d.arclength),
            max_points: s.max_points.unwrap_or(d.max_points),
            linear_tolerance: s.linear_tolerance.unwrap_or(d.linear_tolerance),
            accuracy: s.accuracy,
        };
        growth.check().map_err(|e| match e {
            crate::analysis::manifold::ManifoldError::Invalid(f) => f,
            other => SpecError::new("manifolds", other.to_string()),
        })?;
        let intersection_tolerance = positive(
            "manifolds.intersection_tolerance",
            s.intersection_tolerance.unwrap_or(1e-11),
        )?;
        let window = match s.window.as_deref() {
            None => [0.6, std::f64::consts::TAU - 0.6],
            Some(&[a, b]) if a.is_finite() && b.is_finite() && a < b => [a, b],
            Some(_) => {
                return Err(SpecError::new(
                    "manifolds.window",
                    "must be two finite offsets [a, b] from the saddle's θ with a < b",
                ))
            }
        };
        let tangency = match s.parameter.as_deref() {
            None => {
                if s.range.is_some() || s.tangency_tolerance.is_some() {
                    return Err(SpecError::new(
                        "manifolds.range",
                        "applies with manifolds.parameter (the field of the tangency search)",
                    ));
                }
                None
            }
            Some(name) => {
                let field = "manifolds.parameter";
                let p = Parameter::parse(name).ok_or_else(|| {
                    SpecError::new(
                        field,
                        format!(
                            "`{name}` is not a field a run can vary (expected {})",
                            PARAMETERS
                                .iter()
                                .map(|p| p.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                let here = p.get(chain).ok_or_else(|| {
                    SpecError::new(field, format!("`{name}`: the model has no such field"))
                })?;
                spec.model_takes(name, p, here)
                    .map_err(|e| SpecError::new(field, format!("{name}: {e}")))?;
                let range = match s.range.as_deref() {
                    Some(&[a, b]) if a.is_finite() && b.is_finite() && a != b => [a, b],
                    _ => return Err(SpecError::new(
                        "manifolds.range",
                        "must be two different finite values [from, to] bracketing the tangency",
                    )),
                };
                let tolerance = positive(
                    "manifolds.tangency_tolerance",
                    s.tangency_tolerance.unwrap_or(1e-8),
                )?;
                Some(TangencySearch {
                    name: name.to_string(),
                    parameter: p,
                    units: p.units().to_string(),
                    range,
                    tolerance,
                })
            }
        };
        // The shooting that finds the saddle: dop853 at the integrator's tolerances (default
        // the shooting's own, 1e-12).
        let integ = spec.integrator();
        let Method::Dop853 { rtol, atol, .. } = integ.method(None)? else {
            return Err(SpecError::new(
                "integrator.method",
                "the saddle is shot with dop853",
            ));
        };
        let dflt = ShootingOptions::default();
        let shooting = ShootingOptions {
            // An autonomous orbit's shooting stalls near 1e-12 (its period and phase condition):
            // it only seeds Newton on the section map, so `orbits`' default suffices there.
            tolerance: if shell.is_some() {
                dflt.tolerance
            } else {
                newton_tolerance.max(1e-12)
            },
            rtol: if integ.rtol.is_some() {
                rtol
            } else {
                dflt.rtol
            },
            atol: if integ.atol.is_some() {
                atol
            } else {
                dflt.atol
            },
            ..dflt
        };
        let method = Method::Dop853 {
            rtol: shooting.rtol,
            atol: shooting.atol,
            h_max: f64::INFINITY,
        };
        let run = ManifoldsRun {
            start,
            k,
            shooting,
            newton_tolerance,
            integration,
            growth,
            intersection_tolerance,
            window,
            tangency,
            preset: spec.preset(),
            shell,
            map_file,
        };
        Ok((Registered(Box::new(run)), method, spec.start()?))
    }
}
