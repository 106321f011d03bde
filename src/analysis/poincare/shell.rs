//! Where orbits start: points of one link's plane (θ_j, p_j or θ̇_j) on an energy shell, with
//! the section's own velocity solved from the energy, or on a stroboscopic section's plane.

use super::{PoincareError, Section};
use crate::analysis::random::SplitMix64;
use crate::integrate::Direction;
use crate::model::Chain;
use nalgebra::DMatrix;
use serde::Serialize;
use std::f64::consts::PI;

/// Which momentum-like coordinate is sampled and plotted beside an angle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variables {
    /// Canonical momentum p = M(θ) θ̇ (the section map is symplectic in (θ, p)); default.
    #[default]
    Momentum,
    /// Angular velocity θ̇.
    Velocity,
}

/// How initial points are spread over the sampled plane.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "sampling", rename_all = "lowercase")]
pub enum Sampling {
    /// Cell centres of an `angles × speeds` grid over the ranges.
    Grid { angles: usize, speeds: usize },
    /// `count` candidates uniform over the ranges (SplitMix64 from `seed`).
    Random { count: usize, seed: u64 },
}

/// Where orbits start: the plane (θ_j, p_j or θ̇_j) of one link j, all other free coordinates at
/// zero, the section's own velocity solved from the energy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShellSampling {
    /// The plotted link j (0-based), not the section's link.
    pub link: usize,
    pub variables: Variables,
    pub sampling: Sampling,
    /// θ_j range (rad); `None`: the part of (−π, π) the energy shell reaches
    /// ([`reachable_angles`]).
    pub angle_range: Option<(f64, f64)>,
    /// p_j (J·s) or θ̇_j (rad/s) range; `None`: the energy shell's full extent.
    pub speed_range: Option<(f64, f64)>,
}

/// Initial conditions on one energy shell.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellStart {
    pub energy: f64,
    /// States (θ, θ̇) on the section at `energy`.
    pub states: Vec<Vec<f64>>,
    /// Candidate (θ_j, p_j or θ̇_j) where the energy is not reachable, skipped.
    pub skipped: Vec<(f64, f64)>,
    /// The sampled ranges (the speed range resolved from the shell).
    pub angle_range: (f64, f64),
    pub speed_range: (f64, f64),
}

/// Energies bounding the chain's potential: all hanging (−g Σ b_j) and all inverted (+g Σ b_j).
pub fn energy_bounds(chain: &Chain) -> (f64, f64) {
    let e = chain.gravity() * chain.b().iter().sum::<f64>();
    (-e, e)
}

/// The least energy on the section θ_i = c (the other links hanging, at rest).
pub fn section_min_energy(chain: &Chain, link: usize, value: f64) -> f64 {
    let g = chain.gravity();
    let b = chain.b();
    -g * (0..b.len())
        .map(|k| if k == link { b[k] * value.cos() } else { b[k] })
        .sum::<f64>()
}

/// The state at which the section link i has θ_i = c, link j has (θ_j, s_j) with s_j a momentum
/// or velocity, every other link θ = 0 and zero momentum/velocity, and the energy is `energy`:
/// the section's own p_i (or θ̇_i) solves the quadratic T = E − V. The root is the one whose
/// θ̇_i has the direction's sign (momentum: θ̇_i = ±√disc, so exactly one; velocity: the larger
/// |θ̇_i| of the right sign). `None` where the energy is not reachable with that sign.
#[allow(clippy::too_many_arguments)]
pub fn shell_state(
    chain: &Chain,
    link_i: usize,
    value: f64,
    direction: Direction,
    link_j: usize,
    angle: f64,
    speed: f64,
    variables: Variables,
    energy: f64,
) -> Option<Vec<f64>> {
    let n = chain.links();
    let mut theta = vec![0.0; n];
    theta[link_i] = value;
    theta[link_j] = angle;
    let avail = energy - chain.potential_energy(&theta);
    let m = DMatrix::from_row_slice(n, n, &chain.mass_matrix(&theta));
    let q = match variables {
        Variables::Momentum => m.clone().try_inverse()?,
        Variables::Velocity => m.clone(),
    };
    // ½ q_ii s_i² + s_i q_ij s_j + ½ q_jj s_j² = avail.
    let a = 0.5 * q[(link_i, link_i)];
    let b = q[(link_i, link_j)] * speed;
    let c = 0.5 * q[(link_j, link_j)] * speed * speed - avail;
    let disc = b * b - 4.0 * a * c;
    if disc.is_nan() || disc <= 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    // Cancellation-free roots.
    let qq = -0.5 * (b + if b >= 0.0 { sq } else { -sq });
    let (r1, r2) = if qq != 0.0 {
        (qq / a, c / qq)
    } else {
        (sq / (2.0 * a), -sq / (2.0 * a))
    };
    let (hi, lo) = (r1.max(r2), r1.min(r2));
    let s_i = match (variables, direction) {
        (Variables::Momentum, Direction::Falling) => lo,
        (Variables::Momentum, _) => hi,
        (Variables::Velocity, Direction::Falling) => {
            if lo < 0.0 {
                lo
            } else {
                return None;
            }
        }
        (Variables::Velocity, Direction::Rising) => {
            if hi > 0.0 {
                hi
            } else {
                return None;
            }
        }
        (Variables::Velocity, Direction::Either) => {
            if hi > 0.0 {
                hi
            } else {
                lo
            }
        }
    };
    let mut s = vec![0.0; n];
    s[link_i] = s_i;
    s[link_j] = speed;
    let mut x = theta.clone();
    match variables {
        Variables::Velocity => x.extend_from_slice(&s),
        Variables::Momentum => {
            x.extend_from_slice(&s);
            x = chain.from_canonical(&x);
        }
    }
    Some(x)
}

/// The largest |s_j| on the shell at angle θ_j (minimum kinetic energy over the section link's
/// velocity): |s_j| ≤ √(2 (E − V) / (q_jj − q_ij²/q_ii)), q = M⁻¹ (momenta) or M (velocities).
fn speed_extent(
    chain: &Chain,
    link_i: usize,
    value: f64,
    link_j: usize,
    variables: Variables,
    energy: f64,
) -> f64 {
    let n = chain.links();
    let mut best = 0.0f64;
    for k in 0..=720 {
        let mut theta = vec![0.0; n];
        theta[link_i] = value;
        theta[link_j] = -PI + 2.0 * PI * k as f64 / 720.0;
        let avail = energy - chain.potential_energy(&theta);
        if avail <= 0.0 {
            continue;
        }
        let m = DMatrix::from_row_slice(n, n, &chain.mass_matrix(&theta));
        let q = match variables {
            Variables::Momentum => match m.try_inverse() {
                Some(q) => q,
                None => continue,
            },
            Variables::Velocity => m,
        };
        let schur = q[(link_j, link_j)] - q[(link_i, link_j)].powi(2) / q[(link_i, link_i)];
        best = best.max((2.0 * avail / schur).sqrt());
    }
    best
}

/// Candidate points of `sampling` over the two ranges.
fn candidates(s: &Sampling, ar: (f64, f64), sr: (f64, f64)) -> Vec<(f64, f64)> {
    match *s {
        Sampling::Grid { angles, speeds } => {
            let mut out = Vec::with_capacity(angles * speeds);
            for a in 0..angles {
                for v in 0..speeds {
                    out.push((
                        ar.0 + (a as f64 + 0.5) / angles as f64 * (ar.1 - ar.0),
                        sr.0 + (v as f64 + 0.5) / speeds as f64 * (sr.1 - sr.0),
                    ));
                }
            }
            out
        }
        Sampling::Random { count, seed } => {
            let mut rng = SplitMix64(seed);
            (0..count)
                .map(|_| {
                    let u = rng.next_f64();
                    let v = rng.next_f64();
                    (ar.0 + u * (ar.1 - ar.0), sr.0 + v * (sr.1 - sr.0))
                })
                .collect()
        }
    }
}

/// Initial states on the section θ_i = c at `energy` (J), sampled over (θ_j, p_j or θ̇_j).
///
/// Errors: [`PoincareError::NotAngleSection`], [`PoincareError::SameLink`],
/// [`PoincareError::BelowMinimum`] (E not above [`section_min_energy`]),
/// [`PoincareError::NoneReachable`]. Unreachable candidates are listed in `skipped`.
pub fn shell_initial_conditions(
    chain: &Chain,
    section: &Section,
    energy: f64,
    sampling: &ShellSampling,
) -> Result<ShellStart, PoincareError> {
    let (li, c, dir) = section
        .angle_link(chain.links())
        .ok_or(PoincareError::NotAngleSection)?;
    let lj = sampling.link;
    if lj == li || lj >= chain.links() {
        return Err(PoincareError::SameLink { link: lj + 1 });
    }
    let min = section_min_energy(chain, li, c);
    if energy.is_nan() || energy <= min {
        return Err(PoincareError::BelowMinimum { energy, min });
    }
    let sr = sampling.speed_range.unwrap_or_else(|| {
        let e = speed_extent(chain, li, c, lj, sampling.variables, energy);
        (-e, e)
    });
    let ar = sampling
        .angle_range
        .unwrap_or_else(|| reachable_angles(chain, li, c, lj, energy));
    let mut start = ShellStart {
        energy,
        states: vec![],
        skipped: vec![],
        angle_range: ar,
        speed_range: sr,
    };
    for (a, s) in candidates(&sampling.sampling, ar, sr) {
        match shell_state(chain, li, c, dir, lj, a, s, sampling.variables, energy) {
            Some(x) => start.states.push(x),
            None => start.skipped.push((a, s)),
        }
    }
    if start.states.is_empty() {
        return Err(PoincareError::NoneReachable {
            energy,
            link: lj + 1,
            angles: reachable_angles(chain, li, c, lj, energy),
            sampled: ar,
        });
    }
    Ok(start)
}

/// Samples of θ_j over (−π, π) where [`reachable_angles`] looks for the shell's reach.
const REACH_SAMPLES: usize = 4096;

/// The θ_j interval on which the section (θ_i = `value`, every other link at 0) reaches
/// `energy`: where E > V, i.e. where the section's speed solves T = E − V with link j at rest
/// (the least kinetic energy there). Found on [`REACH_SAMPLES`] angles and padded by one
/// sample, kept inside (−π, π); the whole of (−π, π) when the reach touches ±π (an interval
/// through the cut), and (0, 0) padded when nothing is reached (the caller has refused
/// energies at or below the section's least energy, where θ_j = 0 is reachable).
pub fn reachable_angles(
    chain: &Chain,
    link_i: usize,
    value: f64,
    link_j: usize,
    energy: f64,
) -> (f64, f64) {
    let n = chain.links();
    let mut theta = vec![0.0; n];
    theta[link_i] = value;
    let step = 2.0 * PI / REACH_SAMPLES as f64;
    let (mut lo, mut hi) = (usize::MAX, 0);
    for k in 0..=REACH_SAMPLES {
        theta[link_j] = -PI + k as f64 * step;
        if energy > chain.potential_energy(&theta) {
            lo = lo.min(k);
            hi = hi.max(k);
        }
    }
    if lo == usize::MAX {
        return (-step, step);
    }
    if lo == 0 || hi == REACH_SAMPLES {
        return (-PI, PI);
    }
    (
        (-PI + (lo - 1) as f64 * step).max(-PI),
        (-PI + (hi + 1) as f64 * step).min(PI),
    )
}

/// Initial states for a stroboscopic section: a grid/random sample of (θ_j, p_j or θ̇_j) of
/// one link, everything else at zero.
pub fn plane_initial_conditions(chain: &Chain, sampling: &ShellSampling) -> Vec<Vec<f64>> {
    let n = chain.links();
    let j = sampling.link;
    let sr = sampling.speed_range.unwrap_or_else(|| {
        let a = chain.a()[j * n + j];
        let w = 2.0 * (chain.gravity() * chain.b()[j] / a).abs().sqrt();
        match sampling.variables {
            Variables::Velocity => (-w, w),
            Variables::Momentum => (-w * a, w * a),
        }
    });
    candidates(
        &sampling.sampling,
        sampling.angle_range.unwrap_or((-PI, PI)),
        sr,
    )
    .into_iter()
    .map(|(th, s)| {
        let mut x = vec![0.0; 2 * n];
        x[j] = th;
        x[n + j] = s;
        if sampling.variables == Variables::Momentum {
            x = chain.from_canonical(&x);
        }
        x
    })
    .collect()
}
