//! The planar N-link chain with general links (docs/physics.md §1–2).
//!
//! State `x = (θ_1..θ_N, ω_1..ω_N)`, absolute angles from the downward vertical, SI units.
//! Link i has length l_i, mass m_i, centre of mass at c_i from its upper joint and inertia J_i
//! about its centre of mass. With the constants
//!
//! ```text
//! b_k  = m_k c_k + l_k Σ_{i>k} m_i
//! a_jj = m_j c_j² + J_j + l_j² Σ_{i>j} m_i,   a_jk = a_kj = l_j b_k  (j < k)
//! ```
//!
//! the mass matrix is `M_jk = a_jk cos(θ_j − θ_k)` and the equations of motion are
//! `M α = F`, `F_j = −Σ_k a_jk sin(θ_j − θ_k) ω_k² − b_j (g_y sin θ_j + g_x cos θ_j) + Q_j`,
//! where `(g_x, g_y) = (s̈_x, g + s̈_y)` folds a moving pivot into gravity.
//!
//! The right-hand side and its exact tangent block share one factorisation of M and are checked
//! against each other term by term, so they are read side by side here (the small-N closed
//! forms are the child `small`, the O(N) route is `model::structured`); the quantities of a
//! state (mass matrix, energies, forces, joint positions, canonical coordinates) are the child
//! `state`.

pub(crate) mod small;
mod state;

use super::forcing::{Damping, Drive, PhaseCos};
use super::linalg::{cholesky_in_place, cholesky_solve};
use super::structured::{self, Consts};
use super::{ModelError, System};
use serde::{Deserialize, Serialize};
use small::SMALL_MAX_LINKS;
use std::sync::OnceLock;

/// Which kernels evaluate the dynamics of a [`Chain`].
///
/// Both give the same numbers to round-off (`tests/structured.rs`); they differ in cost only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// [`Route::Small`] up to three links, [`Route::Structured`] from
    /// [`Chain::STRUCTURED_MIN_LINKS`] links on, else [`Route::Dense`].
    #[default]
    Auto,
    /// Build M(θ) as an N × N matrix and factor it: O(N³) per evaluation, O(N²) per tangent.
    Dense,
    /// The dense equations in fixed-size, fully unrolled kernels with M⁻¹ in closed form
    /// (`chain/small.rs`); N ≤ 3 only (for more links it resolves to [`Route::Dense`]).
    Small,
    /// The semiseparable kernels of `model::structured`: O(N) per evaluation and per tangent.
    Structured,
}

/// How a link's mass is distributed (docs/physics.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkShape {
    /// Point mass at the lower end of a massless rod: c = l, J = 0.
    Point,
    /// Uniform rod: c = l/2, J = m l²/12.
    Rod,
}

/// One rigid link, fully resolved: length, mass, centre-of-mass offset, inertia about the c.o.m.
/// Its `Debug` and `==` see these four alone: they determine the dynamics (a map's fingerprint
/// is taken over the chain's `Debug` text, `analysis::map::spec_hash`, and an orbit seeded from
/// a map checks the map's chain with `==`), while [`Link::shape`] says only how they follow a
/// varied length or mass.
#[derive(Clone, Copy, Serialize, Deserialize)]
pub struct Link {
    pub length: f64,
    pub mass: f64,
    pub com: f64,
    pub inertia: f64,
    /// How the c.o.m. and inertia follow the length and mass when a parameter changes them
    /// ([`Link::with_length`], [`Link::with_mass`]): those of a point mass or a uniform rod, or
    /// given (`None`) and kept.
    #[serde(default)]
    pub shape: Option<LinkShape>,
}

impl PartialEq for Link {
    fn eq(&self, o: &Link) -> bool {
        (self.length, self.mass, self.com, self.inertia) == (o.length, o.mass, o.com, o.inertia)
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("length", &self.length)
            .field("mass", &self.mass)
            .field("com", &self.com)
            .field("inertia", &self.inertia)
            .finish()
    }
}

impl Link {
    /// A link with its c.o.m. offset and inertia given: they stay when its length or mass is
    /// varied.
    pub fn given(length: f64, mass: f64, com: f64, inertia: f64) -> Link {
        Link {
            length,
            mass,
            com,
            inertia,
            shape: None,
        }
    }

    /// The link with length `length`: a point mass or rod keeps its shape, a given c.o.m. and
    /// inertia stay.
    pub fn with_length(self, length: f64) -> Link {
        match self.shape {
            Some(s) => Link::shaped(length, self.mass, s),
            None => Link { length, ..self },
        }
    }

    /// The link with mass `mass` (a rod's inertia follows it).
    pub fn with_mass(self, mass: f64) -> Link {
        match self.shape {
            Some(s) => Link::shaped(self.length, mass, s),
            None => Link { mass, ..self },
        }
    }

    pub fn point(length: f64, mass: f64) -> Link {
        Link::shaped(length, mass, LinkShape::Point)
    }
    pub fn rod(length: f64, mass: f64) -> Link {
        Link::shaped(length, mass, LinkShape::Rod)
    }
    pub fn shaped(length: f64, mass: f64, shape: LinkShape) -> Link {
        match shape {
            LinkShape::Point => Link {
                length,
                mass,
                com: length,
                inertia: 0.0,
                shape: Some(shape),
            },
            LinkShape::Rod => Link {
                length,
                mass,
                com: 0.5 * length,
                inertia: mass * length * length / 12.0,
                shape: Some(shape),
            },
        }
    }
}

/// Everything that defines a planar chain, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainParams {
    pub links: Vec<Link>,
    /// Gravitational acceleration g (m/s²), acting along −y.
    pub gravity: f64,
    pub damping: Damping,
    pub drive: Drive,
}

impl ChainParams {
    /// Standard gravity used by the presets and benchmarks.
    pub const G: f64 = 9.81;

    pub fn new(links: Vec<Link>) -> ChainParams {
        ChainParams {
            links,
            gravity: Self::G,
            damping: Damping::default(),
            drive: Drive::default(),
        }
    }
    /// N equal point masses (1 kg) on equal massless rods (1 m).
    pub fn equal_points(n: usize) -> ChainParams {
        ChainParams::new(vec![Link::point(1.0, 1.0); n])
    }
    /// N equal uniform rods (1 m, 1 kg).
    pub fn equal_rods(n: usize) -> ChainParams {
        ChainParams::new(vec![Link::rod(1.0, 1.0); n])
    }
}

/// A validated planar chain with its precomputed constants.
#[derive(Debug, Clone)]
pub struct Chain {
    params: ChainParams,
    n: usize,
    /// a_jk, row-major n × n, built on first use (the structured route never needs it).
    a: OnceLock<Vec<f64>>,
    b: Vec<f64>,
    /// Link lengths l_j and the diagonal a_jj, for the structured route.
    len: Vec<f64>,
    diag: Vec<f64>,
    /// The resolved route: true for the structured kernels.
    structured: bool,
    /// The resolved route: true for the fixed-size kernels of `small.rs` (N ≤ 3).
    small: bool,
    /// Damping matrix D (tridiagonal): diagonal and the (j, j+1) off-diagonal.
    d_diag: Vec<f64>,
    d_off: Vec<f64>,
    damped: bool,
}

/// Scratch memory of [`Chain`]'s right-hand side. Sized for the chain's route: the dense
/// buffers are empty on the structured route, whose buffers are all O(N).
#[derive(Debug, Clone)]
pub struct ChainWorkspace {
    s: Vec<f64>,
    c: Vec<f64>,
    /// Cholesky factor of M(θ) (dense route).
    l: Vec<f64>,
    alpha: Vec<f64>,
    g: Vec<f64>,
    h: Vec<f64>,
    /// Structured route: pivots L_kk, generators w_k, and the tangent block's P, Q, G_jj.
    ld: Vec<f64>,
    wx: Vec<f64>,
    wy: Vec<f64>,
    tp: Vec<f64>,
    tq: Vec<f64>,
    gd: Vec<f64>,
    /// ω_k² for the force sums.
    w2: Vec<f64>,
    /// cos of the torque's and of the pivot motion's phase at the last time asked.
    torque_cos: PhaseCos,
    pivot_cos: PhaseCos,
}

impl Chain {
    /// Smallest N for which [`Route::Auto`] takes the structured kernels (measured with
    /// `cargo bench --bench structured`: below it the dense route's simpler loops win).
    pub const STRUCTURED_MIN_LINKS: usize = 8;

    /// Validates the parameters and precomputes a_jk, b_k and the damping matrix.
    ///
    /// Errors name the link (1-based) and field: lengths and masses must be finite and > 0,
    /// centre-of-mass offsets and inertias finite and ≥ 0, gravity and forcing finite.
    pub fn new(params: ChainParams) -> Result<Chain, ModelError> {
        let n = params.links.len();
        if n == 0 {
            return Err(ModelError::NoLinks);
        }
        for (i, l) in params.links.iter().enumerate() {
            let link = i + 1;
            let bad = |field, value, why| {
                Err(ModelError::Link {
                    link,
                    field,
                    value,
                    why,
                })
            };
            if !(l.length.is_finite() && l.length > 0.0) {
                return bad("length", l.length, "must be finite and > 0");
            }
            if !(l.mass.is_finite() && l.mass > 0.0) {
                return bad("mass", l.mass, "must be finite and > 0");
            }
            if !(l.com.is_finite() && l.com >= 0.0) {
                return bad("com", l.com, "must be finite and >= 0");
            }
            if !(l.inertia.is_finite() && l.inertia >= 0.0) {
                return bad("inertia", l.inertia, "must be finite and >= 0");
            }
        }
        let finite = |field: &str, v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(ModelError::Parameter {
                    field: field.to_string(),
                    value: v,
                    why: "must be finite",
                })
            }
        };
        finite("gravity", params.gravity)?;
        for (field, v) in [
            ("damping.absolute", &params.damping.absolute),
            ("damping.joint", &params.damping.joint),
        ] {
            if !v.is_empty() && v.len() != n {
                return Err(ModelError::Length {
                    field,
                    got: v.len(),
                    links: n,
                });
            }
            for (j, &c) in v.iter().enumerate() {
                if !(c.is_finite() && c >= 0.0) {
                    return Err(ModelError::Parameter {
                        field: format!("{field}[{}]", j + 1),
                        value: c,
                        why: "must be finite and >= 0",
                    });
                }
            }
        }
        if let Some(tq) = &params.drive.torque {
            finite("drive.torque.amplitude", tq.amplitude)?;
            finite("drive.torque.frequency", tq.frequency)?;
            finite("drive.torque.phase", tq.phase)?;
        }
        if let Some(p) = &params.drive.pivot {
            finite("drive.pivot.x_amplitude", p.x_amplitude)?;
            finite("drive.pivot.y_amplitude", p.y_amplitude)?;
            finite("drive.pivot.frequency", p.frequency)?;
            finite("drive.pivot.phase", p.phase)?;
        }

        let links = &params.links;
        // Mass hanging below link k: Σ_{i>k} m_i.
        let mut below = vec![0.0; n];
        for k in (0..n.saturating_sub(1)).rev() {
            below[k] = below[k + 1] + links[k + 1].mass;
        }
        let b: Vec<f64> = (0..n)
            .map(|k| links[k].mass * links[k].com + links[k].length * below[k])
            .collect();
        let diag: Vec<f64> = (0..n)
            .map(|j| {
                let lj = &links[j];
                lj.mass * lj.com * lj.com + lj.inertia + lj.length * lj.length * below[j]
            })
            .collect();
        let len: Vec<f64> = links.iter().map(|l| l.length).collect();
        // D tridiagonal, as `Damping::matrix` builds it, without the N × N buffer.
        let mut d_diag = vec![0.0; n];
        let mut d_off = vec![0.0; n.saturating_sub(1)];
        for (j, &g) in params.damping.absolute.iter().enumerate() {
            d_diag[j] += g;
        }
        for (j, &c) in params.damping.joint.iter().enumerate() {
            d_diag[j] += c;
            if j > 0 {
                d_diag[j - 1] += c;
                d_off[j - 1] -= c;
            }
        }
        let damped = !params.damping.is_zero();
        Ok(Chain {
            params,
            n,
            a: OnceLock::new(),
            b,
            len,
            diag,
            structured: n >= Self::STRUCTURED_MIN_LINKS,
            small: n <= SMALL_MAX_LINKS,
            d_diag,
            d_off,
            damped,
        })
    }

    /// The same chain evaluated by `route` ([`Route::Auto`]: by N). Make workspaces after this.
    pub fn with_route(mut self, route: Route) -> Chain {
        self.structured = match route {
            Route::Auto => self.n >= Self::STRUCTURED_MIN_LINKS,
            Route::Dense | Route::Small => false,
            Route::Structured => true,
        };
        self.small = matches!(route, Route::Auto | Route::Small) && self.n <= SMALL_MAX_LINKS;
        self
    }

    /// The route in use: [`Route::Dense`] or [`Route::Structured`].
    pub fn route(&self) -> Route {
        if self.structured {
            Route::Structured
        } else if self.small {
            Route::Small
        } else {
            Route::Dense
        }
    }

    /// The diagonal a_jj of the constant matrix (kg·m²).
    pub fn a_diag(&self) -> &[f64] {
        &self.diag
    }

    #[inline]
    fn consts(&self) -> Consts<'_> {
        Consts {
            l: &self.len,
            b: &self.b,
            d: &self.diag,
        }
    }

    pub fn params(&self) -> &ChainParams {
        &self.params
    }
    /// Number of links N.
    pub fn links(&self) -> usize {
        self.n
    }
    /// a_jk (row-major N × N; built on the first call, O(N²) memory).
    pub fn a(&self) -> &[f64] {
        self.a.get_or_init(|| {
            let n = self.n;
            let mut a = vec![0.0; n * n];
            for j in 0..n {
                a[j * n + j] = self.diag[j];
                for k in (j + 1)..n {
                    a[j * n + k] = self.a_entry(j, k);
                    a[k * n + j] = a[j * n + k];
                }
            }
            a
        })
    }
    /// One coupling a_jk without building the N × N table (for callers that fill their own
    /// matrix in pieces, e.g. to stay interruptible at thousands of links).
    #[inline]
    pub fn a_entry(&self, j: usize, k: usize) -> f64 {
        match j.cmp(&k) {
            std::cmp::Ordering::Equal => self.diag[j],
            std::cmp::Ordering::Less => self.len[j] * self.b[k],
            std::cmp::Ordering::Greater => self.len[k] * self.b[j],
        }
    }
    /// b_k (kg·m).
    pub fn b(&self) -> &[f64] {
        &self.b
    }
    pub fn gravity(&self) -> f64 {
        self.params.gravity
    }
    /// Whether the chain is conservative (no damping, no drive).
    pub fn is_conservative(&self) -> bool {
        !self.damped && self.params.drive.is_none()
    }

    /// The damping matrix D (row-major N × N), Q_damping = −D θ̇.
    pub fn damping_matrix(&self) -> Vec<f64> {
        self.params.damping.matrix(self.n)
    }

    #[inline]
    fn torque(&self, t: f64) -> f64 {
        self.params.drive.torque.map_or(0.0, |h| h.value(t))
    }

    /// Effective gravity (g_x, g_y) in the pivot's frame at t: (s̈_x, g + s̈_y), the cosine of
    /// the pivot's phase through the workspace's cache (the same bits as a fresh call).
    #[inline(always)]
    fn effective_gravity_cached(&self, t: f64, cache: &mut PhaseCos) -> (f64, f64) {
        match &self.params.drive.pivot {
            Some(p) => {
                let acc = p.acceleration_from_cos(cache.cos(p.argument(t)));
                (acc[0], self.params.gravity + acc[1])
            }
            None => (0.0, self.params.gravity),
        }
    }

    /// [`Chain::torque`] through the workspace's cache of the torque phase's cosine (the same
    /// bits).
    #[inline(always)]
    fn torque_cached(&self, t: f64, cache: &mut PhaseCos) -> f64 {
        self.params
            .drive
            .torque
            .map_or(0.0, |h| h.amplitude * cache.cos(h.argument(t)))
    }

    /// Evaluates sin/cos, factors M(θ) and solves for α; leaves all in the workspace.
    #[inline]
    fn dynamics(&self, t: f64, x: &[f64], ws: &mut ChainWorkspace) {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        for j in 0..n {
            let (s, c) = theta[j].sin_cos();
            ws.s[j] = s;
            ws.c[j] = c;
        }
        let (gx, gy) = self.effective_gravity_cached(t, &mut ws.pivot_cos);
        let tau = self.torque_cached(t, &mut ws.torque_cos);
        if self.structured {
            let k = self.consts();
            for j in 0..n {
                ws.w2[j] = omega[j] * omega[j];
            }
            structured::forces(&k, &ws.c, &ws.s, &ws.w2, gx, gy, &mut ws.alpha);
            self.add_damping_and_torque(tau, omega, &mut ws.alpha);
            // M is SPD for any θ; a NaN state is caught by the integrators' finiteness check.
            let _ = structured::factor(&k, &ws.c, &ws.s, &mut ws.ld, &mut ws.wx, &mut ws.wy);
            structured::solve(&k, &ws.c, &ws.s, &ws.ld, &ws.wx, &ws.wy, &mut ws.alpha);
            return;
        }
        let a = self.a();
        for j in 0..n {
            let (sj, cj) = (ws.s[j], ws.c[j]);
            let mut f = -self.b[j] * (gy * sj + gx * cj);
            for k in 0..n {
                let (sk, ck) = (ws.s[k], ws.c[k]);
                let ajk = a[j * n + k];
                ws.l[j * n + k] = ajk * (cj * ck + sj * sk);
                if k != j {
                    f -= ajk * (sj * ck - cj * sk) * omega[k] * omega[k];
                }
            }
            ws.alpha[j] = f;
        }
        self.add_damping_and_torque(tau, omega, &mut ws.alpha);
        // M is SPD for any θ (it is a Gram matrix of the link velocities), so this cannot fail
        // for finite input; a NaN state is caught by the integrators' finiteness check.
        let _ = cholesky_in_place(&mut ws.l, n);
        cholesky_solve(&ws.l, n, &mut ws.alpha);
    }

    /// f −= D ω, f_1 += τ (the drive torque at the time, [`Chain::torque`]).
    #[inline(always)]
    fn add_damping_and_torque(&self, tau: f64, omega: &[f64], f: &mut [f64]) {
        let n = self.n;
        if self.damped {
            for j in 0..n {
                f[j] -= self.d_diag[j] * omega[j];
                if j + 1 < n {
                    f[j] -= self.d_off[j] * omega[j + 1];
                    f[j + 1] -= self.d_off[j] * omega[j];
                }
            }
        }
        f[0] += tau;
    }

    /// The structured tangent block: per column, G vθ + H vω − D vω by prefix/suffix sums, then
    /// the O(N) solve with the factor that served the state.
    fn tangent_structured(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dv: &mut [f64],
        ws: &mut ChainWorkspace,
    ) {
        let n = self.n;
        let dim = 2 * n;
        let omega = &x[n..];
        let (gx, gy) = self.effective_gravity_cached(t, &mut ws.pivot_cos);
        let k = self.consts();
        structured::tangent_setup(
            &k, &ws.c, &ws.s, omega, &ws.alpha, gx, gy, &mut ws.tp, &mut ws.tq, &mut ws.gd,
        );
        for (vc, dvc) in v.chunks_exact(dim).zip(dv.chunks_exact_mut(dim)) {
            let (vth, vom) = vc.split_at(n);
            let (dth, dom) = dvc.split_at_mut(n);
            dth.copy_from_slice(vom);
            structured::tangent_column(
                &k, &ws.c, &ws.s, omega, &ws.tp, &ws.tq, &ws.gd, vth, vom, dom,
            );
            if self.damped {
                for j in 0..n {
                    dom[j] -= self.d_diag[j] * vom[j];
                    if j + 1 < n {
                        dom[j] -= self.d_off[j] * vom[j + 1];
                        dom[j + 1] -= self.d_off[j] * vom[j];
                    }
                }
            }
            structured::solve(&k, &ws.c, &ws.s, &ws.ld, &ws.wx, &ws.wy, dom);
        }
    }
}

impl System for Chain {
    type Workspace = ChainWorkspace;

    fn dim(&self) -> usize {
        2 * self.n
    }

    fn workspace(&self) -> ChainWorkspace {
        let n = self.n;
        let (dn, sn) = if self.structured { (0, n) } else { (n * n, 0) };
        ChainWorkspace {
            s: vec![0.0; n],
            c: vec![0.0; n],
            l: vec![0.0; dn],
            alpha: vec![0.0; n],
            g: vec![0.0; dn],
            h: vec![0.0; dn],
            ld: vec![0.0; sn],
            wx: vec![0.0; sn],
            wy: vec![0.0; sn],
            tp: vec![0.0; sn],
            tq: vec![0.0; sn],
            gd: vec![0.0; sn],
            w2: vec![0.0; sn],
            torque_cos: PhaseCos::new(),
            pivot_cos: PhaseCos::new(),
        }
    }

    /// The plain workspace whose drive-phase caches remember earlier phases: a time grid
    /// repeated every period then costs its cosines once.
    fn workspace_for_repeated_times(&self) -> ChainWorkspace {
        let remembering = |on: bool| {
            if on {
                PhaseCos::remembering()
            } else {
                PhaseCos::new()
            }
        };
        ChainWorkspace {
            torque_cos: remembering(self.params.drive.torque.is_some()),
            pivot_cos: remembering(self.params.drive.pivot.is_some()),
            ..self.workspace()
        }
    }

    fn rhs(&self, t: f64, x: &[f64], dx: &mut [f64], ws: &mut ChainWorkspace) {
        let n = self.n;
        if self.small {
            match n {
                1 => return self.small_rhs::<1>(t, x, dx, ws),
                2 => return self.small_rhs::<2>(t, x, dx, ws),
                3 => return self.small_rhs::<3>(t, x, dx, ws),
                _ => {}
            }
        }
        self.dynamics(t, x, ws);
        dx[..n].copy_from_slice(&x[n..]);
        dx[n..].copy_from_slice(&ws.alpha);
    }

    /// The exact Jacobian J = [[0, I], [M⁻¹G, M⁻¹H]] with
    /// `G = ∂F/∂θ − ∂(Mα)/∂θ|_α` and `H = ∂F/∂ω` (docs/physics.md §2):
    ///
    /// ```text
    /// G_jk = a_jk (cos_jk ω_k² − sin_jk α_k)                     (k ≠ j)
    /// G_jj = −Σ_{k≠j} G_jk − b_j (g_y cos θ_j − g_x sin θ_j)
    /// H_jk = −2 a_jk sin_jk ω_k (k ≠ j),  H_jj = 0,  then H −= D
    /// ```
    fn rhs_tangent(
        &self,
        t: f64,
        x: &[f64],
        v: &[f64],
        dx: &mut [f64],
        dv: &mut [f64],
        ws: &mut ChainWorkspace,
    ) {
        let n = self.n;
        if self.small {
            match n {
                1 => return self.small_rhs_tangent::<1>(t, x, dx, v, dv, ws),
                2 => return self.small_rhs_tangent::<2>(t, x, dx, v, dv, ws),
                3 => return self.small_rhs_tangent::<3>(t, x, dx, v, dv, ws),
                _ => {}
            }
        }
        let dim = 2 * n;
        self.dynamics(t, x, ws);
        let omega = &x[n..];
        dx[..n].copy_from_slice(omega);
        dx[n..].copy_from_slice(&ws.alpha);
        if self.structured {
            self.tangent_structured(t, x, v, dv, ws);
            return;
        }
        let (gx, gy) = self.effective_gravity_cached(t, &mut ws.pivot_cos);
        let a = self.a();
        for j in 0..n {
            let (sj, cj) = (ws.s[j], ws.c[j]);
            let mut diag = 0.0;
            for (k, ajk, sjk, cjk) in couplings(a, &ws.s, &ws.c, j) {
                let g = ajk * (cjk * omega[k] * omega[k] - sjk * ws.alpha[k]);
                ws.g[j * n + k] = g;
                diag += g;
                ws.h[j * n + k] = -2.0 * ajk * sjk * omega[k];
            }
            ws.g[j * n + j] = -diag - self.b[j] * (gy * cj - gx * sj);
            ws.h[j * n + j] = 0.0;
        }
        if self.damped {
            for j in 0..n {
                ws.h[j * n + j] -= self.d_diag[j];
                if j + 1 < n {
                    ws.h[j * n + j + 1] -= self.d_off[j];
                    ws.h[(j + 1) * n + j] -= self.d_off[j];
                }
            }
        }
        for (vc, dvc) in v.chunks_exact(dim).zip(dv.chunks_exact_mut(dim)) {
            let (vth, vom) = vc.split_at(n);
            let (dth, dom) = dvc.split_at_mut(n);
            dth.copy_from_slice(vom);
            for j in 0..n {
                let gr = &ws.g[j * n..(j + 1) * n];
                let hr = &ws.h[j * n..(j + 1) * n];
                let mut s = 0.0;
                for k in 0..n {
                    s += gr[k] * vth[k] + hr[k] * vom[k];
                }
                dom[j] = s;
            }
            cholesky_solve(&ws.l, n, dom);
        }
    }

    fn energy(&self, _t: f64, x: &[f64]) -> f64 {
        self.kinetic_energy(x) + self.potential_energy(&x[..self.n])
    }

    fn non_conservative(&self) -> bool {
        !self.is_conservative()
    }

    /// max(|E₀|, g Σ b_j): a chain released with E₀ ≈ 0 (arms horizontal) still gets a
    /// meaningful relative figure, on the scale of lifting it from hanging to level.
    fn energy_scale(&self, e0: f64) -> f64 {
        let depth = self.gravity().abs() * self.b().iter().sum::<f64>();
        e0.abs().max(depth).max(f64::MIN_POSITIVE)
    }

    /// θ̇·Q without allocating (the work quadrature calls it at every stage).
    fn power(&self, t: f64, x: &[f64]) -> f64 {
        let n = self.n;
        let (theta, omega) = x.split_at(n);
        let mut p = self.torque(t) * omega[0];
        if let Some(pm) = &self.params.drive.pivot {
            let acc = pm.acceleration(t);
            for j in 0..n {
                let (s, c) = theta[j].sin_cos();
                p -= omega[j] * self.b[j] * (acc[0] * c + acc[1] * s);
            }
        }
        if self.damped {
            // ω·Dω with D tridiagonal.
            for j in 0..n {
                p -= self.d_diag[j] * omega[j] * omega[j];
                if j + 1 < n {
                    p -= 2.0 * self.d_off[j] * omega[j] * omega[j + 1];
                }
            }
        }
        p
    }

    fn angles(&self) -> usize {
        self.n
    }

    fn component_name(&self, i: usize) -> String {
        if i < self.n {
            format!("theta[{}]", i + 1)
        } else {
            format!("omega[{}]", i - self.n + 1)
        }
    }
}

/// The couplings of link `j` to every other link k ≠ j, in ascending k: `(k, a_jk,
/// sin(θⱼ − θₖ), cos(θⱼ − θₖ))` from `a` (row-major N × N) and the cached sin `s` and cos `c` of
/// each angle (N of each), with no further trigonometric call: the off-diagonal terms of the
/// mass matrix and its derivatives, which both tangent blocks sum row by row.
#[inline(always)]
pub(super) fn couplings<'a>(
    a: &'a [f64],
    s: &'a [f64],
    c: &'a [f64],
    j: usize,
) -> impl Iterator<Item = (usize, f64, f64, f64)> + 'a {
    let n = s.len();
    let (sj, cj) = (s[j], c[j]);
    (0..n).filter(move |&k| k != j).map(move |k| {
        let (sk, ck) = (s[k], c[k]);
        (k, a[j * n + k], sj * ck - cj * sk, cj * ck + sj * sk)
    })
}
