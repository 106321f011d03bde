//! Equilibria and small-oscillation normal modes of the unforced planar chain (docs/physics.md §3).
//!
//! The equilibria are the 2^N configurations θ*_j ∈ {0, π}. Linearizing about one gives
//! `M* δθ̈ + D δθ̇ + K δθ = 0` with `M*_jk = a_jk cos(θ*_j − θ*_k) = a_jk s_j s_k` (s_j = ±1) and
//! `K = diag(g b_j cos θ*_j) = diag(g b_j s_j)`. The modes solve the symmetric-definite problem
//! `K v = ω² M* v`, reduced by a Cholesky factor `M* = L Lᵀ` to the symmetric eigenproblem of
//! `L⁻¹ K L⁻ᵀ`, whose eigenvectors u give M*-orthonormal mode shapes `v = L⁻ᵀ u`.
//!
//! **Morse index.** M* is positive definite and K = diag(g b_j s_j) with b_j > 0, so by
//! Sylvester's law of inertia `L⁻¹ K L⁻ᵀ` (congruent to K) has exactly as many negative
//! eigenvalues as K has negative entries: the number of unstable directions of an equilibrium is
//! the number of links pointing up. The tests check this for every equilibrium.

mod closed_form;
mod equilibrium;
mod nonlinear;
pub mod structured;

pub use closed_form::{bessel_j0_j1, bessel_j0_zeros, laguerre_zeros};
pub use equilibrium::{Equilibrium, ModesError, MAX_ALL_EQUILIBRIA_LINKS};
pub use nonlinear::{
    elliptic_k, elliptic_k_complement, verify_nonlinear, verify_nonlinear_cancellable,
    NonlinearCheck, NonlinearOptions, PeriodRoute, PERIODIC_SPREAD,
};

use crate::model::Chain;
use crate::observe::Cancel;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

/// A complex eigenvalue λ of the damped first-order system, with derived figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DampedMode {
    pub re: f64,
    pub im: f64,
    /// −Re λ (1/s): positive for a decaying mode.
    pub decay_rate: f64,
    /// |Im λ| (rad/s).
    pub damped_frequency: f64,
    /// Quality factor |λ| / (2 · decay rate) (infinite without damping).
    pub quality_factor: f64,
}

/// The linearization about one equilibrium and its modes.
#[derive(Debug, Clone)]
pub struct EquilibriumModes {
    pub equilibrium: Equilibrium,
    /// M(θ*) and K(θ*), row-major N × N.
    pub mass: DMatrix<f64>,
    pub stiffness: DMatrix<f64>,
    /// ω² ascending (rad²/s²); negative values are unstable directions.
    pub omega2: Vec<f64>,
    /// Mode shapes as columns (θ components), M-orthonormal: VᵀMV = I; column k belongs to
    /// omega2[k]. Sign fixed so that the largest component is positive.
    pub shapes: DMatrix<f64>,
    /// Number of ω² < 0 (the Morse index).
    pub unstable: usize,
    /// Eigenvalues of the damped first-order system (empty without damping), sorted by decay rate.
    pub damped: Vec<DampedMode>,
}

impl EquilibriumModes {
    /// Frequencies √ω² of the stable modes (NaN for unstable ones), rad/s.
    pub fn frequencies(&self) -> Vec<f64> {
        self.omega2
            .iter()
            .map(|&w| if w >= 0.0 { w.sqrt() } else { f64::NAN })
            .collect()
    }
    /// Periods 2π/ω (s), NaN for unstable modes.
    pub fn periods(&self) -> Vec<f64> {
        self.frequencies()
            .iter()
            .map(|w| 2.0 * std::f64::consts::PI / w)
            .collect()
    }
    /// Growth rates √(−ω²) of the unstable modes (NaN for stable ones), 1/s.
    pub fn growth_rates(&self) -> Vec<f64> {
        self.omega2
            .iter()
            .map(|&w| if w < 0.0 { (-w).sqrt() } else { f64::NAN })
            .collect()
    }
}

/// M(θ*) and K(θ*) of the unforced chain at an equilibrium.
pub fn linearize(chain: &Chain, eq: &Equilibrium) -> (DMatrix<f64>, DMatrix<f64>) {
    linearize_cancellable(chain, eq, &Cancel::never()).expect("never cancelled")
}

/// [`linearize`], filled a column at a time with `cancel` polled between columns: at thousands
/// of links the two dense N × N matrices are hundreds of MB of fresh pages (0.6 s for 3000
/// links on an idle core, seconds under load), too long to leave a stop unanswered. `None`
/// when stopped.
pub fn linearize_cancellable(
    chain: &Chain,
    eq: &Equilibrium,
    cancel: &Cancel,
) -> Option<(DMatrix<f64>, DMatrix<f64>)> {
    let n = chain.links();
    let s = &eq.signs;
    let mut m = DMatrix::<f64>::zeros(n, n);
    let mut k = DMatrix::<f64>::zeros(n, n);
    for c in 0..n {
        if c % 64 == 0 && cancel.is_set() {
            return None;
        }
        for (j, v) in m.column_mut(c).iter_mut().enumerate() {
            *v = chain.a_entry(j, c) * (s[j] * s[c]) as f64;
        }
        k[(c, c)] = chain.gravity() * chain.b()[c] * s[c] as f64;
    }
    Some((m, k))
}

/// Solves `K v = ω² M v` for symmetric K and SPD M: ω² ascending and M-orthonormal shapes.
pub fn generalized_symmetric_eigen(
    m: &DMatrix<f64>,
    k: &DMatrix<f64>,
) -> Option<(Vec<f64>, DMatrix<f64>)> {
    let n = m.nrows();
    let chol = m.clone().cholesky()?;
    let l = chol.l();
    // C = L⁻¹ K L⁻ᵀ, formed by two triangular solves.
    let x = l.solve_lower_triangular(k)?; // L⁻¹ K
    let c = l.solve_lower_triangular(&x.transpose())?; // L⁻¹ (L⁻¹ K)ᵀ = L⁻¹ K L⁻ᵀ (K symmetric)
    let c = (&c + c.transpose()) * 0.5;
    let eig = c.symmetric_eigen();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
    let omega2: Vec<f64> = order.iter().map(|&i| eig.eigenvalues[i]).collect();
    let u = DMatrix::from_fn(n, n, |r, c| eig.eigenvectors[(r, order[c])]);
    let mut v = l.transpose().solve_upper_triangular(&u)?; // L⁻ᵀ U
    for c in 0..n {
        let col = v.column(c);
        let big = col
            .iter()
            .copied()
            .fold(0.0f64, |a, b| if b.abs() > a.abs() { b } else { a });
        if big < 0.0 {
            v.column_mut(c).neg_mut();
        }
    }
    Some((omega2, v))
}

/// Which eigen-solver [`modes_at_with`] uses for ω² and the shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModesRoute {
    /// Tridiagonal for point-like chains from [`TRIDIAGONAL_MIN_LINKS`] links on, else dense.
    #[default]
    Auto,
    /// Cholesky reduction and nalgebra's dense symmetric eigen-solver: O(N³).
    Dense,
    /// The symmetric tridiagonal reduction of [`structured`] (O(N²)) where its
    /// structure holds (point-like links); other chains take the dense route.
    Tridiagonal,
}

/// Smallest N for which [`ModesRoute::Auto`] takes the tridiagonal route (`cargo bench --bench
/// modes`: the tridiagonal route is already faster at N = 10; the closed-form tests of N ≤ 3
/// keep the dense route).
pub const TRIDIAGONAL_MIN_LINKS: usize = 4;

/// Modes at one equilibrium, with the damped spectrum when the chain has damping
/// ([`ModesRoute::Auto`]).
pub fn modes_at(chain: &Chain, eq: &Equilibrium) -> Result<EquilibriumModes, ModesError> {
    modes_at_with(chain, eq, ModesRoute::Auto)
}

/// [`modes_at`] with an explicit eigen-solver route. Both routes give the same ω² and
/// M-orthonormal shapes (largest component positive) to round-off (`tests/structured.rs`).
pub fn modes_at_with(
    chain: &Chain,
    eq: &Equilibrium,
    route: ModesRoute,
) -> Result<EquilibriumModes, ModesError> {
    modes_at_cancellable(chain, eq, route, &Cancel::never())
}

/// Below this many links the dense eigen-solvers take milliseconds and run inline; from it
/// on, [`abandonable`] runs them on a thread of their own.
const ABANDON_MIN_LINKS: usize = 64;

/// Runs `work`, one long call that polls nothing (nalgebra's dense eigen-solvers, O(N³): 12 s
/// for the Laguerre check of 3000 links, 76 s for the modes of 3000 rods), so that a stop
/// request is answered within 20 ms: on a thread of its own, waited for in 20 ms slices that
/// poll `cancel`. On a stop it returns `None` at once and the thread is left to finish its
/// call, whose result is dropped (a CLI run exits meanwhile; a Python caller gets its
/// `KeyboardInterrupt` while the thread runs to its end). Small problems (`n` below
/// [`ABANDON_MIN_LINKS`]) run inline. The result is the call's own, bit for bit.
fn abandonable<T: Send + 'static>(
    n: usize,
    cancel: &Cancel,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    use std::sync::mpsc::RecvTimeoutError;
    use std::sync::{Arc, Mutex};
    if cancel.is_set() {
        return None;
    }
    if n < ABANDON_MIN_LINKS {
        return Some(work());
    }
    // Kept here too, so that the work still runs (inline) should no thread be had.
    let slot = Arc::new(Mutex::new(Some(work)));
    let theirs = Arc::clone(&slot);
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("pendula-modes".into())
        .spawn(move || {
            let work = theirs.lock().ok().and_then(|mut w| w.take());
            if let Some(work) = work {
                let _ = tx.send(work());
            }
        });
    let Ok(handle) = spawned else {
        let work = slot.lock().ok().and_then(|mut w| w.take());
        return work.map(|w| w());
    };
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(20)) {
            Ok(v) => {
                let _ = handle.join();
                return Some(v);
            }
            Err(RecvTimeoutError::Timeout) => {
                if cancel.is_set() {
                    return None;
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                // The work panicked: the panic is this caller's, as if the call were inline.
                if let Err(p) = handle.join() {
                    std::panic::resume_unwind(p);
                }
                return None;
            }
        }
    }
}

/// [`modes_at_with`], stopping when `cancel` is set: the tridiagonal route polls it between
/// eigenvectors, the dense calls are [`abandonable`]. A stop gives [`ModesError::Interrupted`].
pub fn modes_at_cancellable(
    chain: &Chain,
    eq: &Equilibrium,
    route: ModesRoute,
    cancel: &Cancel,
) -> Result<EquilibriumModes, ModesError> {
    if eq.signs.len() != chain.links() {
        return Err(ModesError::WrongLength {
            signs: eq.label(),
            got: eq.signs.len(),
            links: chain.links(),
        });
    }
    let (m, k) = linearize_cancellable(chain, eq, cancel).ok_or(ModesError::Interrupted)?;
    let tri = match route {
        ModesRoute::Dense => None,
        ModesRoute::Auto if chain.links() < TRIDIAGONAL_MIN_LINKS => None,
        _ => structured::TridiagonalReduction::new(chain, eq),
    };
    let n = chain.links();
    let (omega2, shapes) = match tri {
        Some(t) => t.eigen_cancellable(cancel).ok_or(ModesError::Interrupted)?,
        None => {
            let (mc, kc) = (m.clone(), k.clone());
            abandonable(n, cancel, move || generalized_symmetric_eigen(&mc, &kc))
                .ok_or(ModesError::Interrupted)?
                .ok_or_else(|| ModesError::NotDefinite(eq.label()))?
        }
    };
    let unstable = omega2.iter().filter(|&&w| w < 0.0).count();
    let damped = if chain.params().damping.is_zero() {
        vec![]
    } else {
        let (mc, kc) = (m.clone(), k.clone());
        let d = DMatrix::from_row_slice(n, n, &chain.damping_matrix());
        abandonable(n, cancel, move || damped_spectrum(&mc, &kc, &d))
            .ok_or(ModesError::Interrupted)?
            .ok_or_else(|| ModesError::NotDefinite(eq.label()))?
    };
    Ok(EquilibriumModes {
        equilibrium: eq.clone(),
        mass: m,
        stiffness: k,
        omega2,
        shapes,
        unstable,
        damped,
    })
}

/// Eigenvalues of `ẋ = A x`, `A = [[0, I], [−M⁻¹K, −M⁻¹D]]`, sorted by decay rate then frequency.
/// None when binary64 cannot factor M (SPD in exact arithmetic; extreme mass ratios break it).
pub fn damped_spectrum(
    m: &DMatrix<f64>,
    k: &DMatrix<f64>,
    d: &DMatrix<f64>,
) -> Option<Vec<DampedMode>> {
    let n = m.nrows();
    let chol = m.clone().cholesky()?;
    let mk = chol.solve(k);
    let md = chol.solve(d);
    let mut a = DMatrix::zeros(2 * n, 2 * n);
    for i in 0..n {
        a[(i, n + i)] = 1.0;
        for j in 0..n {
            a[(n + i, j)] = -mk[(i, j)];
            a[(n + i, n + j)] = -md[(i, j)];
        }
    }
    let mut out: Vec<DampedMode> = a
        .complex_eigenvalues()
        .iter()
        .map(|z| {
            let decay = -z.re;
            DampedMode {
                re: z.re,
                im: z.im,
                decay_rate: decay,
                damped_frequency: z.im.abs(),
                quality_factor: if decay == 0.0 {
                    f64::INFINITY
                } else {
                    z.norm() / (2.0 * decay)
                },
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.decay_rate
            .total_cmp(&b.decay_rate)
            .then(a.im.total_cmp(&b.im))
    });
    Some(out)
}

/// Closed-form small-oscillation frequencies, when a formula applies to this chain at the
/// hanging equilibrium.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormulaCheck {
    /// Which formula: "single pendulum", "compound pendulum", "double point pendulum",
    /// "equal point chain (Laguerre zeros)", "continuous hanging chain (Bessel J0 zeros)".
    pub formula: String,
    pub computed: Vec<f64>,
    pub expected: Vec<f64>,
    pub relative_difference: Vec<f64>,
}

/// The frequencies ω_k the closed forms predict at the hanging equilibrium (docs/physics.md §3), for
/// every formula that applies; compared with `computed` (ascending ω).
pub fn formula_checks(chain: &Chain, computed: &[f64]) -> Vec<FormulaCheck> {
    formula_checks_cancellable(chain, computed, &Cancel::never()).unwrap_or_default()
}

/// [`formula_checks`], `None` when `cancel` stopped them (the Laguerre zeros of a long chain
/// are one dense eigen-solution, [`abandonable`]).
pub fn formula_checks_cancellable(
    chain: &Chain,
    computed: &[f64],
    cancel: &Cancel,
) -> Option<Vec<FormulaCheck>> {
    let links = &chain.params().links;
    let n = links.len();
    let g = chain.gravity();
    let mut out = vec![];
    let mut push = |formula: &str, expected: Vec<f64>| {
        let computed: Vec<f64> = computed[..expected.len()].to_vec();
        let rel = computed
            .iter()
            .zip(&expected)
            .map(|(c, e)| ((c - e) / e).abs())
            .collect();
        out.push(FormulaCheck {
            formula: formula.to_string(),
            computed,
            expected,
            relative_difference: rel,
        });
    };
    let is_point = |l: &crate::model::Link| l.com == l.length && l.inertia == 0.0;
    if n == 1 {
        let l = &links[0];
        if is_point(l) {
            push("single pendulum: ω² = g/l", vec![(g / l.length).sqrt()]);
        } else {
            push(
                "compound pendulum: ω² = g m c / (J + m c²)",
                vec![(g * l.mass * l.com / (l.inertia + l.mass * l.com * l.com)).sqrt()],
            );
        }
    }
    if n == 2 && links.iter().all(is_point) {
        let (m1, m2, l1, l2) = (
            links[0].mass,
            links[1].mass,
            links[0].length,
            links[1].length,
        );
        let s = (m1 + m2) * (l1 + l2);
        let r = (s * s - 4.0 * m1 * (m1 + m2) * l1 * l2).sqrt();
        let w = |sign: f64| (g * (s + sign * r) / (2.0 * m1 * l1 * l2)).sqrt();
        push("double point pendulum (closed form)", vec![w(-1.0), w(1.0)]);
    }
    let is_rod = |l: &crate::model::Link| {
        (l.com - 0.5 * l.length).abs() <= 1e-15 * l.length
            && (l.inertia - l.mass * l.length * l.length / 12.0).abs() <= 1e-15 * l.inertia
    };
    if n == 2
        && links.iter().all(is_rod)
        && links[0].length == links[1].length
        && links[0].mass == links[1].mass
    {
        // Seed 004, eq. (19) linearized: det(K − ω² M) = 0 gives ω² = (g/l)(3 ∓ 6/√7).
        let gl = g / links[0].length;
        let r = 6.0 / 7f64.sqrt();
        push(
            "equal uniform rods: ω² = (g/l)(3 ∓ 6/√7)",
            vec![(gl * (3.0 - r)).sqrt(), (gl * (3.0 + r)).sqrt()],
        );
    }
    let equal_points = links
        .iter()
        .all(|l| is_point(l) && l.length == links[0].length && l.mass == links[0].mass);
    if equal_points {
        let l = links[0].length;
        let x = abandonable(n, cancel, move || laguerre_zeros(n))?;
        push(
            "equal point chain: ω² = (g/l) x_k, L_N(x_k) = 0",
            x.iter().map(|x| (g / l * x).sqrt()).collect(),
        );
        if n >= 20 {
            let total = l * n as f64;
            let count = 5.min(n);
            push(
                "continuous hanging chain: ω_k = (j0k/2) √(g/L)",
                bessel_j0_zeros(count)
                    .iter()
                    .map(|j| 0.5 * j * (g / total).sqrt())
                    .collect(),
            );
        }
    }
    Some(out)
}

/// The modal coordinate q = vᵀ M (θ − θ*) of a displacement, for M-orthonormal v.
pub fn modal_coordinate(m: &DMatrix<f64>, v: &DVector<f64>, dtheta: &DVector<f64>) -> f64 {
    v.dot(&(m * dtheta))
}

/// What `pendula modes` computes, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ModesOptions {
    pub equilibria: Vec<Equilibrium>,
    /// Compare the hanging equilibrium's frequencies with the closed forms that apply.
    pub check: bool,
    /// Start the nonlinear model in each mode and measure its frequency.
    pub nonlinear: Option<NonlinearOptions>,
}

/// The result of a modes analysis.
#[derive(Debug, Clone)]
pub struct ModesResult {
    pub equilibria: Vec<EquilibriumModes>,
    pub checks: Vec<FormulaCheck>,
    pub nonlinear: Vec<NonlinearCheck>,
    /// False when a stop request ended the nonlinear checks early (those finished are kept).
    pub complete: bool,
}

impl ModesResult {
    /// The hanging equilibrium's modes, if it was computed.
    pub fn hanging(&self) -> Option<&EquilibriumModes> {
        self.equilibria
            .iter()
            .find(|e| e.equilibrium.inverted_links() == 0)
    }
}

/// Modes at every requested equilibrium, the formula checks, and the nonlinear verification.
pub fn modes(chain: &Chain, opts: &ModesOptions) -> Result<ModesResult, ModesError> {
    modes_cancellable(chain, opts, &Cancel::never())
}

/// [`modes`], whose nonlinear checks (long integrations) stop early when `cancel` is set: the
/// result then has the checks finished so far and `complete = false`.
pub fn modes_cancellable(
    chain: &Chain,
    opts: &ModesOptions,
    cancel: &Cancel,
) -> Result<ModesResult, ModesError> {
    // A stop during the eigen-solutions keeps nothing ([`ModesError::Interrupted`]); one
    // during the checks keeps the modes, marked incomplete.
    let auto = ModesRoute::Auto;
    let equilibria = opts
        .equilibria
        .iter()
        .map(|eq| modes_at_cancellable(chain, eq, auto, cancel))
        .collect::<Result<Vec<_>, _>>()?;
    let mut result = ModesResult {
        equilibria,
        checks: vec![],
        nonlinear: vec![],
        complete: true,
    };
    // Borrowed, not cloned: a long chain's modes hold three dense N² matrices (216 MB at
    // 3000 links), and copying them into fresh pages took half a second that no stop request
    // could interrupt.
    let own;
    let hanging = match result
        .equilibria
        .iter()
        .position(|e| e.equilibrium.inverted_links() == 0)
    {
        Some(i) => &result.equilibria[i],
        None => {
            let eq = Equilibrium::hanging(chain.links());
            own = match modes_at_cancellable(chain, &eq, auto, cancel) {
                Err(ModesError::Interrupted) => {
                    result.complete = false;
                    return Ok(result);
                }
                other => other?,
            };
            &own
        }
    };
    if opts.check {
        match formula_checks_cancellable(chain, &hanging.frequencies(), cancel) {
            Some(checks) => result.checks = checks,
            None => {
                result.complete = false;
                return Ok(result);
            }
        }
    }
    if let Some(nl) = &opts.nonlinear {
        (result.nonlinear, result.complete) =
            verify_nonlinear_cancellable(chain, hanging, nl, cancel);
    }
    Ok(result)
}
