//! Chaotic fraction of an energy shell (issue 16, item 5): start points drawn uniformly on
//! H(θ, p) = E in the Liouville (microcanonical) measure, each classified by SALI, and the
//! fraction chaotic/(chaotic + regular) with a Wilson 95 % interval.
//!
//! **The shell measure.** For H = ½ pᵀM(θ)⁻¹p + V(θ) on N links, the microcanonical measure is
//! δ(H − E) dθ dp (e.g. Huang, *Statistical Mechanics*, 2nd ed., §6.2; Landau & Lifshitz,
//! *Statistical Physics* §4). Write p = L q with L Lᵀ = M(θ) (Cholesky), so dp = √det M dq and
//! pᵀM⁻¹p = |q|². At fixed θ the p-integral is
//! ∫ δ(½|q|² − (E − V)) √det M dq = √det M · |S^{N−1}| r^{N−2}, r = √(2(E − V)), hence
//!
//!   θ-marginal  w(θ) ∝ √det M(θ) · (E − V(θ))^{N/2 − 1}  on {V(θ) < E},
//!
//! and, given θ, q is uniform in direction on the sphere |q| = r (the delta's weight
//! 1/|∇_q H| = 1/r is the same everywhere on it). So: θ by rejection against w, then
//! q = r·u with u a normalised Gaussian vector (uniform on S^{N−1}), θ̇ = M⁻¹p = L⁻ᵀ q.
//!
//! **Rejection bound.** Proposals are uniform in the box |θ_j| ≤ c_j that contains {V < E}
//! (V < E needs −g b_j cos θ_j < E + g Σ_{k≠j} b_k), and accepted with probability w/W:
//! for N ≥ 2, W = √(Π_j M_jj) · (E − V_min)^{N/2−1} bounds w exactly (Hadamard's inequality
//! det M ≤ Π M_jj, and E − V ≤ E − V_min); for N = 1 the exponent is −½, so W =
//! √M₁₁ (E − V_max)^{−1/2}, finite only for E > V_max (rotations): a single pendulum's shell
//! below the inverted rest has an integrable but unbounded density at its turning points and is
//! refused. The bound is analytic, so no grid and no margin are needed.
//!
//! **Classification.** Each start runs [`chain_indicators`] (the single-orbit SALI of the sali
//! map kind, with its thresholds [`SALI_CHAOTIC`](crate::analysis::orbit::SALI_CHAOTIC)
//! and [`SALI_REGULAR`](crate::analysis::orbit::SALI_REGULAR)) to `indicators.time`:
//! chaotic, regular or undecided. Undecided starts (sticky orbits, too short a run, or an
//! integration failure, counted separately in `failed`) are left out of the fraction and
//! reported as their own count, so the fraction is chaotic/(chaotic + regular). Weakly chaotic
//! orbits can need longer than t_max to bring SALI below 1e-8, so a fraction belongs to its
//! t_max (equal double pendulum at E = −15 J, 64 starts: 0.13 at t_max = 100 s, 0.38 at the
//! default 200 s): report t_max beside it.
//!
//! **Determinism.** Sample i of energy e draws from its own SplitMix64 stream seeded by
//! (seed, e, i), and rayon only maps over samples, so every count is the same for any thread
//! count.

use super::MeasureError;
use crate::analysis::convergence::{trend, Trend};
use crate::analysis::lyapunov::LyapunovError;
use crate::analysis::orbit::{chain_indicators, AlignmentOptions, Regularity};
use crate::analysis::random::SplitMix64;
use crate::error::FieldError;
use crate::integrate::Method;
use crate::model::Chain;
use crate::observe::{Cancel, Cancellable};
use rayon::prelude::*;
use serde::Serialize;

/// Most θ proposals the rejection sampler draws for one start before it gives up: the exact
/// bound's acceptance falls off fast with the links (√(det M / Π M_jj) and the energy factor
/// are small together), so a long chain can need more proposals than any run would wait for.
/// 2²⁰ is thousands of times what a double or triple pendulum's shell needs.
pub const MAX_PROPOSALS: u64 = 1 << 20;

/// Why a start was not drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unsampled {
    /// [`MAX_PROPOSALS`] proposals were all rejected.
    Exhausted,
    /// The cancel token was set.
    Cancelled,
}

/// z of a two-sided 95 % normal interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Options of [`chaotic_fraction`]. Defaults: RK4 with dt = 0.005 s (as a sali map's pixels run),
/// SALI with τ = 0.1 s to t_max = 200 s, 2 deviation vectors, stop once SALI < 1e-14.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ChaoticOptions {
    /// Integrator of every orbit and its tangent vectors.
    pub method: Method,
    /// SALI run of every orbit: `time` is t_max, `tau` the renormalisation interval.
    pub indicators: AlignmentOptions,
}

impl Default for ChaoticOptions {
    fn default() -> Self {
        ChaoticOptions {
            method: Method::Rk4 { dt: 0.005 },
            indicators: AlignmentOptions {
                max_history: 16,
                ..AlignmentOptions::default()
            },
        }
    }
}

/// The fraction a shorter run of the same starts gives: each start's verdict on the prefix
/// of its own run that ends at `time` ([`crate::analysis::orbit::sali::Rung`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rung {
    /// The prefix's end (s).
    pub time: f64,
    pub chaotic: usize,
    pub regular: usize,
    pub undecided: usize,
    pub fraction: f64,
    pub wilson: (f64, f64),
}

/// The verdicts on one energy shell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShellFraction {
    /// E (J).
    pub energy: f64,
    pub chaotic: usize,
    pub regular: usize,
    /// Neither verdict by t_max (includes `failed`); not in the fraction.
    pub undecided: usize,
    /// Of the undecided: orbits whose integration failed (NaN/Inf).
    pub failed: usize,
    /// chaotic / (chaotic + regular); NaN when both are 0.
    pub fraction: f64,
    /// Wilson 95 % interval of `fraction` over chaotic + regular trials; (0, 1) when none.
    pub wilson: (f64, f64),
    /// θ proposals drawn by the rejection sampler (acceptance = samples / proposals).
    pub proposals: u64,
    /// The fraction at t_end/32, t_end/16, …, t_end from the same runs (ascending in time; the
    /// last rung is `fraction`); fewer rungs when τ is long against t_end.
    pub ladder: Vec<Rung>,
    /// The fraction at t_end/2 against the Wilson interval at t_end
    /// ([`crate::analysis::convergence`]): settled inside it, still rising below it.
    pub trend: Trend,
}

impl ShellFraction {
    /// The fraction and its Wilson interval from the counts.
    pub fn from_counts(
        energy: f64,
        chaotic: usize,
        regular: usize,
        undecided: usize,
    ) -> ShellFraction {
        let n = chaotic + regular;
        ShellFraction {
            energy,
            chaotic,
            regular,
            undecided,
            failed: 0,
            fraction: if n == 0 {
                f64::NAN
            } else {
                chaotic as f64 / n as f64
            },
            wilson: wilson_interval(chaotic, n),
            proposals: 0,
            ladder: Vec::new(),
            trend: Trend::Unknown,
        }
    }

    /// The ladder from each start's prefix verdicts (`ladders[i]`: start i's rungs, ascending
    /// in time; starts whose run failed have none and count as undecided), and the trend.
    fn with_ladder(mut self, ladders: &[Vec<crate::analysis::orbit::SaliRung>]) -> ShellFraction {
        let levels = ladders.iter().map(Vec::len).max().unwrap_or(0);
        let samples = ladders.len();
        self.ladder = (0..levels)
            .map(|j| {
                // Rung j counted from the top (the whole run) down, so that runs agree on it.
                let (mut c, mut r, mut time) = (0, 0, f64::NAN);
                for l in ladders {
                    if let Some(rung) = l.len().checked_sub(levels - j).and_then(|i| l.get(i)) {
                        time = rung.time;
                        match rung.regularity {
                            Regularity::Chaotic => c += 1,
                            Regularity::Regular => r += 1,
                            Regularity::Undecided => {}
                        }
                    }
                }
                let f = ShellFraction::from_counts(self.energy, c, r, samples - c - r);
                Rung {
                    time,
                    chaotic: c,
                    regular: r,
                    undecided: samples - c - r,
                    fraction: f.fraction,
                    wilson: f.wilson,
                }
            })
            .collect();
        self.trend = match self.ladder.as_slice() {
            [.., half, _] => trend(half.fraction, self.fraction, self.wilson),
            _ => Trend::Unknown,
        };
        self
    }
}

/// Wilson score 95 % interval of a binomial proportion k/n (Wilson 1927):
/// (k + z²/2)/(n + z²) ± z/(n + z²) · √(k(n−k)/n + z²/4), z = 1.96. (0, 1) for n = 0.
pub fn wilson_interval(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let z2 = Z95 * Z95;
    let centre = (k + z2 / 2.0) / (n + z2);
    let half = Z95 / (n + z2) * (k * (n - k) / n + z2 / 4.0).sqrt();
    // At k = 0 (k = n) the bound is exactly 0 (1); the subtraction would leave round-off.
    let lo = if k == 0.0 { 0.0 } else { centre - half };
    let hi = if k == n { 1.0 } else { centre + half };
    (lo.max(0.0), hi.min(1.0))
}

/// The potential's extremes: V at the hanging rest (all θ = 0) and at the inverted rest.
fn potential_range(chain: &Chain) -> (f64, f64) {
    let gb = chain.gravity().abs() * chain.b().iter().map(|b| b.abs()).sum::<f64>();
    (-gb, gb)
}

/// Why `energy` has no shell that can be sampled, naming the field `energies`.
fn check_energy(chain: &Chain, energy: f64) -> Result<(), MeasureError> {
    let (v_min, v_max) = potential_range(chain);
    if !energy.is_finite() || energy <= v_min {
        return Err(MeasureError::Field(FieldError::new(
            "energies",
            format!("E = {energy} J is not above the hanging rest's energy {v_min} J"),
        )));
    }
    if chain.links() == 1 && energy <= v_max {
        return Err(MeasureError::Field(FieldError::new(
            "energies",
            format!(
                "E = {energy} J of a single pendulum must be above the inverted rest's \
                 {v_max} J (below it the shell's θ-density is unbounded at the turning points)"
            ),
        )));
    }
    Ok(())
}

/// The conservative chain and energies above the hanging rest (and, for one link, above the
/// inverted rest) that [`chaotic_fraction`] needs, checked on no work at all, so a front end
/// can refuse them before it prepares any output.
pub fn check(chain: &Chain, energies: &[f64]) -> Result<(), MeasureError> {
    check_chain(chain)?;
    energies.iter().try_for_each(|&e| check_energy(chain, e))
}

/// A refused chaotic fraction as the argument it is about: its own field, an indicator option by
/// the chaotic fraction's key (`tau`, `t_end`), anything else the chaotic fraction as a whole.
pub fn refusal(e: &MeasureError) -> FieldError {
    e.field_error()
        .unwrap_or_else(|| FieldError::new("chaotic_fraction", e.to_string()))
}

/// The refusal of a model that is not a planar chain.
pub fn needs_planar() -> FieldError {
    FieldError::new(
        "model",
        "the chaotic fraction needs a planar chain (kind = \"planar-chain\")",
    )
}

/// The stream of sample `index` on shell `shell` (SplitMix64 finaliser over all three).
fn stream(seed: u64, shell: usize, index: usize) -> SplitMix64 {
    let mut s = SplitMix64(seed);
    let a = s.next_u64();
    let mut t = SplitMix64(a ^ (shell as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
    let b = t.next_u64();
    let mut u = SplitMix64(b ^ (index as u64).wrapping_mul(0xabc9_8388_fb8e_ac03));
    u.next_u64();
    u
}

/// In-place lower Cholesky factor of a row-major n × n SPD matrix; false if not SPD.
fn cholesky(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in (j + 1)..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
        for k in (j + 1)..n {
            a[j * n + k] = 0.0;
        }
    }
    true
}

/// One start (θ, θ̇) on the shell H = E, uniform in the Liouville measure (see the module docs),
/// and the number of θ proposals it took. `energy` must pass the checks of [`shell_samples`].
/// Gives up after [`MAX_PROPOSALS`] proposals, or when `cancel` is set (polled every 1024).
fn sample(
    chain: &Chain,
    energy: f64,
    rng: &mut SplitMix64,
    cancel: &Cancel,
) -> Result<(Vec<f64>, u64), Unsampled> {
    let n = chain.links();
    let g = chain.gravity();
    let b = chain.b();
    let total: f64 = b.iter().map(|b| b.abs()).sum();
    let (v_min, v_max) = potential_range(chain);
    // Half-widths of the box that holds {V < E} (the whole circle unless g b_j > 0).
    let half: Vec<f64> = (0..n)
        .map(|j| {
            if g * b[j] <= 0.0 {
                return std::f64::consts::PI;
            }
            let c = -(energy + g * (total - b[j])) / (g * b[j]);
            if c <= -1.0 {
                std::f64::consts::PI
            } else {
                c.min(1.0).acos()
            }
        })
        .collect();
    let exponent = 0.5 * n as f64 - 1.0;
    let v_ref = if n == 1 { v_max } else { v_min };
    let diag = chain.a_diag();
    let mut theta = vec![0.0; n];
    let mut proposals = 0u64;
    loop {
        if proposals >= MAX_PROPOSALS {
            return Err(Unsampled::Exhausted);
        }
        if cancel.poll(proposals) {
            return Err(Unsampled::Cancelled);
        }
        proposals += 1;
        for j in 0..n {
            theta[j] = (2.0 * rng.next_f64() - 1.0) * half[j];
        }
        let u = rng.next_f64();
        let v = chain.potential_energy(&theta);
        if v >= energy {
            continue;
        }
        let mut l = chain.mass_matrix(&theta);
        if !cholesky(&mut l, n) {
            continue;
        }
        // √(det M / Π M_jj) ≤ 1 by Hadamard.
        let mut ratio = 1.0;
        for j in 0..n {
            ratio *= l[j * n + j] / diag[j].sqrt();
        }
        if exponent != 0.0 {
            ratio *= ((energy - v) / (energy - v_ref)).powf(exponent);
        }
        if u >= ratio {
            continue;
        }
        // q uniform on the sphere of radius √(2(E − V)); θ̇ solves Lᵀ θ̇ = q.
        let mut q = gaussians(rng, n);
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        let r = (2.0 * (energy - v)).sqrt();
        q.iter_mut().for_each(|x| *x *= r / norm);
        for j in (0..n).rev() {
            let mut s = q[j];
            for k in (j + 1)..n {
                s -= l[k * n + j] * q[k];
            }
            q[j] = s / l[j * n + j];
        }
        let mut x = theta.clone();
        x.extend_from_slice(&q);
        // Round-off polish: scale θ̇ so that T = E − V to the last bits.
        let t = chain.kinetic_energy(&x);
        if t > 0.0 {
            let s = ((energy - v) / t).sqrt();
            x[n..].iter_mut().for_each(|w| *w *= s);
        }
        return Ok((x, proposals));
    }
}

/// `n` standard normal variates (Box–Muller).
fn gaussians(rng: &mut SplitMix64, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    while out.len() < n {
        let u1 = 1.0 - rng.next_f64();
        let u2 = rng.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let a = std::f64::consts::TAU * u2;
        out.push(r * a.cos());
        out.push(r * a.sin());
    }
    out.truncate(n);
    out
}

fn check_chain(chain: &Chain) -> Result<(), MeasureError> {
    if !chain.is_conservative() {
        return Err(MeasureError::Field(FieldError::new(
            "model",
            "the chaotic fraction needs a conservative chain (no damping, no drive): \
             an energy shell is not invariant otherwise",
        )));
    }
    Ok(())
}

/// `count` starts (θ, θ̇) uniform on the shell H = `energy` in the Liouville measure, with the
/// total θ proposals drawn. Start i is the same for any thread count and any `count` > i.
///
/// Errors: a damped or driven chain; `energy` not above the hanging rest (or, for one link,
/// not above the inverted rest), naming `energies`.
pub fn shell_samples(
    chain: &Chain,
    energy: f64,
    count: usize,
    seed: u64,
) -> Result<(Vec<Vec<f64>>, u64), MeasureError> {
    check_chain(chain)?;
    check_energy(chain, energy)?;
    shell_samples_unchecked(chain, energy, 0, count, seed, &Cancel::never())
}

/// The refusal of a shell whose sampler gave up ([`MAX_PROPOSALS`]), naming `energies`.
fn exhausted(chain: &Chain, energy: f64) -> MeasureError {
    MeasureError::Field(FieldError::new(
        "energies",
        format!(
            "E = {energy} J: the rejection sampler drew no start on this shell of {} links in {MAX_PROPOSALS} proposals (its acceptance falls off with the links; take fewer links or a higher energy)",
            chain.links()
        ),
    ))
}

fn shell_samples_unchecked(
    chain: &Chain,
    energy: f64,
    shell: usize,
    count: usize,
    seed: u64,
    cancel: &Cancel,
) -> Result<(Vec<Vec<f64>>, u64), MeasureError> {
    let drawn: Vec<(Vec<f64>, u64)> = (0..count)
        .into_par_iter()
        .map(|i| sample(chain, energy, &mut stream(seed, shell, i), cancel))
        .collect::<Result<_, _>>()
        .map_err(|e| match e {
            // A stop asked for wins over a shell that gave up at the same time.
            _ if cancel.is_set() => MeasureError::Interrupted,
            Unsampled::Cancelled => MeasureError::Interrupted,
            Unsampled::Exhausted => exhausted(chain, energy),
        })?;
    let proposals = drawn.iter().map(|d| d.1).sum();
    Ok((drawn.into_iter().map(|d| d.0).collect(), proposals))
}

/// The chaotic fraction of each energy shell: `samples` Liouville-uniform starts per energy
/// (shell k's stream seeded by (`seed`, k)), each classified by SALI (module docs), with the
/// fraction chaotic/(chaotic + regular) and its Wilson 95 % interval.
///
/// Errors ([`MeasureError::Field`], naming the field): `samples` = 0, no energies,
/// an energy not above the hanging rest's (min V) — `energies` —, a damped or driven chain, or
/// SALI options the indicators refuse.
pub fn chaotic_fraction(
    chain: &Chain,
    energies: &[f64],
    samples: usize,
    seed: u64,
    opts: &ChaoticOptions,
) -> Result<Vec<ShellFraction>, MeasureError> {
    whole(chaotic_fraction_partial(
        chain,
        energies,
        samples,
        seed,
        opts,
        &Cancel::never(),
    )?)
}

/// What [`chaotic_fraction_partial`] gave, as a run that keeps nothing of a stop: every shell,
/// or [`MeasureError::Interrupted`].
pub fn whole(
    (rows, complete): (Vec<ShellFraction>, bool),
) -> Result<Vec<ShellFraction>, MeasureError> {
    if complete {
        Ok(rows)
    } else {
        Err(MeasureError::Interrupted)
    }
}

/// [`chaotic_fraction`] that stops once `cancel` is set (polled by the sampler and by every
/// start's SALI run) and keeps what a stop leaves: the shells finished before
/// `cancel` was set, in order (a shell stopped midway is dropped whole: its fraction would count
/// only the starts that ended first), and whether every shell was (`true`) or the run stopped
/// (`false`, the result to store marked incomplete).
pub fn chaotic_fraction_partial(
    chain: &Chain,
    energies: &[f64],
    samples: usize,
    seed: u64,
    opts: &ChaoticOptions,
    cancel: &Cancel,
) -> Result<(Vec<ShellFraction>, bool), MeasureError> {
    check_chain(chain)?;
    if energies.is_empty() {
        return Err(MeasureError::Field(FieldError::new(
            "energies",
            "at least one energy is needed",
        )));
    }
    if samples == 0 {
        return Err(MeasureError::Field(FieldError::new(
            "samples",
            "must be at least 1",
        )));
    }
    for &e in energies {
        check_energy(chain, e)?;
    }
    let mut out = Vec::with_capacity(energies.len());
    for (k, &energy) in energies.iter().enumerate() {
        if cancel.is_set() {
            return Ok((out, false));
        }
        let (starts, proposals) =
            match shell_samples_unchecked(chain, energy, k, samples, seed, cancel) {
                Err(MeasureError::Interrupted) => return Ok((out, false)),
                other => other?,
            };
        let verdicts: Vec<Result<(Regularity, Vec<_>), LyapunovError>> = starts
            .par_iter()
            .map(|x0| {
                let mut watch = Cancellable(cancel.clone());
                chain_indicators(chain, &opts.method, x0, &opts.indicators, &mut watch)
                    .map(|r| (r.regularity, r.ladder))
            })
            .collect();
        if cancel.is_set() {
            return Ok((out, false));
        }
        let (mut chaotic, mut regular, mut undecided, mut failed) = (0, 0, 0, 0);
        let mut ladders = Vec::with_capacity(verdicts.len());
        for v in verdicts {
            let v = v.map(|(verdict, ladder)| {
                ladders.push(ladder);
                verdict
            });
            if v.is_err() {
                ladders.push(Vec::new());
            }
            match v {
                Ok(Regularity::Chaotic) => chaotic += 1,
                Ok(Regularity::Regular) => regular += 1,
                Ok(Regularity::Undecided) => undecided += 1,
                Err(LyapunovError::Invalid { field, value, why }) => {
                    return Err(MeasureError::Indicators { field, value, why })
                }
                Err(LyapunovError::Analysis(_)) => {
                    undecided += 1;
                    failed += 1;
                }
            }
        }
        let mut f = ShellFraction::from_counts(energy, chaotic, regular, undecided);
        f.failed = failed;
        f.proposals = proposals;
        out.push(f.with_ladder(&ladders));
    }
    Ok((out, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_reproduces_the_matrix() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let mut l = a;
        assert!(cholesky(&mut l, 3));
        for i in 0..3 {
            for j in 0..3 {
                let s: f64 = (0..3).map(|k| l[i * 3 + k] * l[j * 3 + k]).sum();
                assert!((s - a[i * 3 + j]).abs() < 1e-14);
            }
        }
    }
}
