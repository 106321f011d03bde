//! The energy balance `E(t) − E(0) − W(t)` that every report of energy drift uses
//! ([`EnergyBalance`]), and the energy budget of a sampled trajectory: per-link kinetic energy,
//! potential energy and the work of the non-conservative forces, so that `Σ T_j + V − W = E(0)`
//! can be drawn and checked (how kinetic energy passes between connected links).

use super::Trajectory;
use crate::model::{Chain, System};
use ndarray::Array2;
use serde::Serialize;

/// The energy balance of one run: `dE/dt` is the power of the non-conservative forces, so
/// `E(t) − E(0) − W(t)`, with `W` its integral, vanishes for an exact solution of any model —
/// conservative, damped or driven — and what remains is the integrator's error. `E − E(0)`
/// alone is that error only without damping and drive. simulate, lyapunov, poincare, the
/// energy-error map and the cart chain's reports all measure drift through this one rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnergyBalance {
    /// E(0) (J).
    pub initial: f64,
    /// The energy relative errors are measured against (J; [`System::energy_scale`]).
    pub scale: f64,
}

impl EnergyBalance {
    /// The balance of a run of `sys` that starts at energy `e0`.
    pub fn new<S: System + ?Sized>(sys: &S, e0: f64) -> EnergyBalance {
        EnergyBalance {
            initial: e0,
            scale: sys.energy_scale(e0),
        }
    }

    /// `E − E(0) − W` (J) for the energy `energy` and the work done so far `work`.
    #[inline]
    pub fn error(&self, energy: f64, work: f64) -> f64 {
        energy - self.initial - work
    }

    /// `|E − E(0) − W| / scale`.
    #[inline]
    pub fn relative(&self, energy: f64, work: f64) -> f64 {
        self.error(energy, work).abs() / self.scale
    }
}

/// Energy terms at every sample of a trajectory. Arrays are (time, link).
#[derive(Debug, Clone)]
pub struct EnergyBudget {
    pub t: Vec<f64>,
    /// Kinetic energy of each link's own motion, ½ m_j |ṙ_j|² + ½ J_j θ̇_j² (J); the rows sum to
    /// the chain's kinetic energy.
    pub kinetic: Array2<f64>,
    /// Gravitational potential energy −g Σ b_j cos θ_j (J).
    pub potential: Vec<f64>,
    /// Total mechanical energy T + V (J), from the model (an independent route to Σ T_j + V).
    pub total: Vec<f64>,
    /// Work of damping and drive since t = 0 (J): negative when damping dissipates.
    pub work: Vec<f64>,
    /// The lowest potential energy the chain can have, −g Σ b_j (J): the figure stacks
    /// V − potential_floor so that every band is non-negative.
    pub potential_floor: f64,
}

impl EnergyBudget {
    /// Evaluates the budget at every sample of `tr` (a trajectory of `chain`).
    pub fn new(chain: &Chain, tr: &Trajectory) -> EnergyBudget {
        let n = chain.links();
        let rows = tr.len();
        let mut kinetic = Array2::zeros((rows, n));
        let mut potential = Vec::with_capacity(rows);
        let mut total = Vec::with_capacity(rows);
        let mut x = vec![0.0; 2 * n];
        for k in 0..rows {
            for j in 0..n {
                x[j] = tr.theta[[k, j]];
                x[n + j] = tr.omega[[k, j]];
            }
            for (j, e) in chain.link_kinetic_energies(&x).into_iter().enumerate() {
                kinetic[[k, j]] = e;
            }
            potential.push(chain.potential_energy(&x[..n]));
            total.push(chain.energy(tr.t[k], &x));
        }
        EnergyBudget {
            t: tr.t.clone(),
            kinetic,
            potential,
            total,
            work: tr.work.clone(),
            potential_floor: -chain.gravity().abs() * chain.b().iter().sum::<f64>(),
        }
    }

    /// Σ_j T_j + V at sample k (J).
    pub fn sum_at(&self, k: usize) -> f64 {
        self.kinetic.row(k).sum() + self.potential[k]
    }

    /// The balance E(t) − W(t) at sample k (J): constant (= E(0)) to integrator accuracy.
    pub fn balance_at(&self, k: usize) -> f64 {
        self.total[k] - self.work[k]
    }

    /// Whether the chain is damped or driven (any work done).
    pub fn has_work(&self) -> bool {
        self.work.iter().any(|&w| w != 0.0)
    }
}
