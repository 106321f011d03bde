//! The Poincaré map of a conservative two-link chain on an energy shell, as a [`PlaneMap`].
//!
//! The section is `poincare`'s: θ_i = c (mod 2π) crossed in one direction, its crossings
//! located on DOP853's dense output by [`crate::analysis::poincare::orbit`]. A point of the
//! plane is (θ_j, p_j) of the other link j, p = M(θ) θ̇ the canonical momentum; the state it
//! stands for is `poincare`'s [`shell_state`]: θ_i = c, p_i solved from the energy (the root
//! of the section's direction). In (θ_j, p_j) the map is symplectic (the section of an energy
//! shell of a Hamiltonian flow), so it preserves area and lobe areas mean something.
//!
//! P(x) is that state's next crossing. P⁻¹(x), the previous crossing, is the backward flow,
//! computed by time reversal: the chain is conservative and its Lagrangian even in θ̇, so
//! φ₋ₜ(θ, θ̇) = R φₜ(θ, −θ̇) with R(θ, θ̇) = (θ, −θ̇), and the previous crossing in the section's
//! direction is the next crossing, in the opposite direction, of the reversed state, reversed
//! back. tests/manifolds.rs checks P(P⁻¹(x)) = x.
//!
//! θ_j is not wrapped: the curves live in the cover θ_j ∈ ℝ (2π-shifts identify points,
//! [`PlaneMap::lattice`]). Each application starts one `poincare` orbit, which allocates its
//! solver: small beside the hundreds of DOP853 steps to the next crossing.

use super::map::PlaneMap;
use super::{ManifoldError, P2};
use crate::analysis::poincare::{
    orbit, shell_state, Section, SectionEnd, SectionOptions, Variables,
};
use crate::integrate::Direction;
use crate::model::Chain;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// The Poincaré map of `chain` at `energy` on θ_`link` = `value` (module docs).
pub struct SectionMap<'a> {
    chain: &'a Chain,
    /// The section's link i and the plotted link j.
    link: usize,
    plane: usize,
    value: f64,
    direction: Direction,
    energy: f64,
    forward: Section,
    backward: Section,
    opts: SectionOptions,
}

/// What one thread of a [`SectionMap`] reuses: a stop flag nobody sets (the growth polls its
/// own) and the crossing counter `orbit` reports to.
pub struct SectionWork {
    stop: AtomicBool,
    progress: AtomicU64,
}

impl<'a> SectionMap<'a> {
    /// The map of a conservative two-link `chain` on the section θ_`link` = `value` crossed in
    /// `direction` (Rising or Falling), at `energy` (J), with DOP853 at `tolerance` and at
    /// most `max_return` s to the next crossing. Errors name the field.
    pub fn new(
        chain: &'a Chain,
        link: usize,
        value: f64,
        direction: Direction,
        energy: f64,
        tolerance: f64,
        max_return: f64,
    ) -> Result<Self, ManifoldError> {
        if chain.links() != 2 || !chain.is_conservative() {
            return Err(ManifoldError::invalid(
                "model",
                "the Poincaré map on an energy shell is a plane map for a conservative (undamped, undriven) chain of two links",
            ));
        }
        if link > 1 {
            return Err(ManifoldError::invalid(
                "manifolds.section",
                "must be theta1 or theta2",
            ));
        }
        let back = match direction {
            Direction::Rising => Direction::Falling,
            Direction::Falling => Direction::Rising,
            Direction::Either => {
                return Err(ManifoldError::invalid(
                    "manifolds.direction",
                    "the map needs one crossing direction (+ or -)",
                ))
            }
        };
        if !(value.is_finite() && energy.is_finite()) {
            return Err(ManifoldError::invalid(
                "manifolds.energy",
                "the section's value and the energy must be finite",
            ));
        }
        Ok(SectionMap {
            chain,
            link,
            plane: 1 - link,
            value,
            direction,
            energy,
            forward: Section::angle(link, value, direction),
            backward: Section::angle(link, value, back),
            opts: SectionOptions {
                crossings: 1,
                t_end: max_return,
                rtol: tolerance,
                atol: tolerance,
                ..SectionOptions::default()
            },
        })
    }

    pub fn energy(&self) -> f64 {
        self.energy
    }

    /// The section's link i (0-based) and the plotted link j.
    pub fn links(&self) -> (usize, usize) {
        (self.link, self.plane)
    }

    /// The chain's state (θ, θ̇) of the section point `x` = (θ_j, p_j): θ_i = c, p_i from the
    /// energy, every momentum of the chain consistent with `x` ([`shell_state`]).
    pub fn state(&self, x: P2) -> Result<Vec<f64>, ManifoldError> {
        shell_state(
            self.chain,
            self.link,
            self.value,
            self.direction,
            self.plane,
            x[0],
            x[1],
            Variables::Momentum,
            self.energy,
        )
        .ok_or_else(|| {
            ManifoldError::Failed(format!(
                "the point (θ{} = {}, p{} = {}) is off the section of the energy shell E = {} J (no momentum p{} of the section's direction reaches it)",
                self.plane + 1,
                x[0],
                self.plane + 1,
                x[1],
                self.energy,
                self.link + 1
            ))
        })
    }

    /// The section point (θ_j, p_j) of a state.
    pub fn point(&self, x: &[f64]) -> P2 {
        let p = self.chain.to_canonical(x);
        [x[self.plane], p[2 + self.plane]]
    }
}

/// The state with its velocities reversed.
fn reversed(x: &mut [f64]) {
    let n = x.len() / 2;
    x[n..].iter_mut().for_each(|v| *v = -*v);
}

impl PlaneMap for SectionMap<'_> {
    type Work = SectionWork;

    fn work(&self) -> SectionWork {
        SectionWork {
            stop: AtomicBool::new(false),
            progress: AtomicU64::new(0),
        }
    }

    fn apply(&self, x: P2, inverse: bool, w: &mut SectionWork) -> Result<P2, ManifoldError> {
        let mut s = self.state(x)?;
        if inverse {
            reversed(&mut s);
        }
        let section = if inverse {
            &self.backward
        } else {
            &self.forward
        };
        let o = orbit(self.chain, section, &s, &self.opts, &w.stop, &w.progress);
        let Some(y) = o.states.first() else {
            let why = match o.end {
                SectionEnd::Failed(m) => m,
                _ => format!(
                    "no crossing within {} s (the orbit does not return to the section there)",
                    self.opts.t_end
                ),
            };
            return Err(ManifoldError::Failed(format!(
                "the Poincaré map {}from ({}, {}): {why}",
                if inverse { "inverse " } else { "" },
                x[0],
                x[1]
            )));
        };
        let mut y = y.clone();
        if inverse {
            reversed(&mut y);
        }
        let p = self.point(&y);
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(ManifoldError::Failed(format!(
                "the Poincaré map from ({}, {}) blew up",
                x[0], x[1]
            )));
        }
        Ok(p)
    }

    fn lattice(&self) -> Option<P2> {
        Some([std::f64::consts::TAU, 0.0])
    }

    /// 1e-7: the double pendulum's map at θ = (2, 2) (|λu| ≈ 152) has det DP − 1 = 1.6e-2,
    /// 1.6e-4, 1.4e-5, 1.6e-6 at steps 1e-5, 1e-6, 3e-7, 1e-7 (tests/manifolds.rs): its
    /// error is the differences' truncation, O(h²), not the map's noise, down to there.
    fn difference_step(&self) -> f64 {
        1e-7
    }
}
