//! Dormand–Prince 8(5,3) with Hairer's step-size control and 7th-order dense output.
//!
//! Reference: E. Hairer, S. P. Nørsett, G. Wanner, *Solving Ordinary Differential Equations I*,
//! 2nd ed., §II.5 and §II.10 (the code DOP853). The tableau constants are those of DOP853; the
//! implementation here is independent.
//!
//! - 12 stages per attempt, the 13th (f at the new point) only on acceptance; it is reused as the
//!   first stage of the next step (FSAL) when the caller hands back the same `(t, y)`.
//! - Error estimate: the 5th-order estimator scaled by the 3rd-order one,
//!   `err = |h| · ‖e₅‖² / √(‖e₅‖² + 0.01 ‖e₃‖²)` (RMS norms over `y[..norm_len]`, weights
//!   `atol + rtol · max(|y_old|, |y_new|)`), so the controller behaves like an 8th-order one.
//! - Step control: `h_new = h · clamp(0.9 · err^(−1/8), 1/3, 6)`; no growth right after a
//!   rejection; a rejected attempt shrinks by at most 1/3 … 0.9·err^(−1/8).
//! - Dense output: the 3 extra stages are computed **lazily**, on the first [`Solver::dense`]
//!   call after a step (3 evaluations), so a plain integration pays nothing for it.

// Numerical kernels index several parallel buffers with one counter; iterator chains over
// four or five zipped slices would hide the formulas they implement.
#![allow(clippy::needless_range_loop)]

use super::{check_finite, IntegrateError, Ode, Result, Solver, Stats};

/// Adaptive Dormand–Prince 8(5,3) (DOP853).
///
/// Defaults: `rtol = atol = 1e-10`, `h_init = None` (automatic initial step, Hairer's `hinit`),
/// `h_max = ∞`, `max_steps = ` [`MAX_ATTEMPTS`] (accepted + rejected attempts over the solver's
/// life).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dop853 {
    /// Relative tolerance (per component, of `max(|y_old|, |y_new|)`).
    pub rtol: f64,
    /// Absolute tolerance (per component).
    pub atol: f64,
    /// Initial step size; `None` picks one from the derivative at the start.
    pub h_init: Option<f64>,
    /// Largest step size magnitude allowed.
    pub h_max: f64,
    /// Attempts (accepted + rejected) after which [`IntegrateError::TooManySteps`] is returned.
    pub max_steps: u64,
}

/// The hard cap on one solver's attempts (accepted + rejected steps) by default: 10⁸, minutes
/// of one core for a small chain. A run whose step count is certain to exceed it is refused
/// before it starts (`crate::spec` compares its lower bound on the steps with this cap); one
/// that reaches it anyway stops with [`IntegrateError::TooManySteps`].
pub const MAX_ATTEMPTS: u64 = 100_000_000;

impl Default for Dop853 {
    fn default() -> Self {
        Dop853 {
            rtol: 1e-10,
            atol: 1e-10,
            h_init: None,
            h_max: f64::INFINITY,
            max_steps: MAX_ATTEMPTS,
        }
    }
}

impl Dop853 {
    /// Defaults with both tolerances set to `tol`.
    pub fn with_tol(tol: f64) -> Dop853 {
        Dop853 {
            rtol: tol,
            atol: tol,
            ..Dop853::default()
        }
    }

    /// A solver with all buffers for vectors of length `len` (the only allocation).
    pub fn solver(&self, len: usize) -> Dop853Solver {
        Dop853Solver {
            opts: *self,
            len,
            k: vec![0.0; STAGES_DENSE * len],
            y_old: vec![0.0; len],
            y_new: vec![0.0; len],
            y_stage: vec![0.0; len],
            cont: vec![0.0; 4 * len],
            t_old: 0.0,
            t_new: f64::NAN,
            h_step: 0.0,
            h: 0.0,
            started: false,
            dense_ready: false,
            stalled: 0,
            stats: Stats::default(),
        }
    }
}

/// Stages used by a step (including the FSAL stage at the new point).
const STAGES: usize = 13;
/// Stages including the three extra ones of the dense output.
const STAGES_DENSE: usize = 16;

#[allow(clippy::excessive_precision)]
const C: [f64; STAGES_DENSE] = [
    0.0,
    0.526001519587677318785587544488e-01,
    0.789002279381515978178381316732e-01,
    0.118350341907227396726757197510,
    0.281649658092772603273242802490,
    0.333333333333333333333333333333,
    0.25,
    0.307692307692307692307692307692,
    0.651282051282051282051282051282,
    0.6,
    0.857142857142857142857142857142,
    1.0,
    1.0,
    0.1,
    0.2,
    0.777777777777777777777777777778,
];

/// Row i of the Runge–Kutta matrix as (column, value) pairs; row 12 holds the 8th-order weights
/// (the FSAL stage sits at the new point) and rows 13–15 the dense-output stages.
#[allow(clippy::excessive_precision)]
const A: [&[(usize, f64)]; STAGES_DENSE] = [
    &[],
    &[(0, 5.26001519587677318785587544488e-2)],
    &[
        (0, 1.97250569845378994544595329183e-2),
        (1, 5.91751709536136983633785987549e-2),
    ],
    &[
        (0, 2.95875854768068491816892993775e-2),
        (2, 8.87627564304205475450678981324e-2),
    ],
    &[
        (0, 2.41365134159266685502369798665e-1),
        (2, -8.84549479328286085344864962717e-1),
        (3, 9.24834003261792003115737966543e-1),
    ],
    &[
        (0, 3.7037037037037037037037037037e-2),
        (3, 1.70828608729473871279604482173e-1),
        (4, 1.25467687566822425016691814123e-1),
    ],
    &[
        (0, 3.7109375e-2),
        (3, 1.70252211019544039314978060272e-1),
        (4, 6.02165389804559606850219397283e-2),
        (5, -1.7578125e-2),
    ],
    &[
        (0, 3.70920001185047927108779319836e-2),
        (3, 1.70383925712239993810214054705e-1),
        (4, 1.07262030446373284651809199168e-1),
        (5, -1.53194377486244017527936158236e-2),
        (6, 8.27378916381402288758473766002e-3),
    ],
    &[
        (0, 6.24110958716075717114429577812e-1),
        (3, -3.36089262944694129406857109825),
        (4, -8.68219346841726006818189891453e-1),
        (5, 2.75920996994467083049415600797e1),
        (6, 2.01540675504778934086186788979e1),
        (7, -4.34898841810699588477366255144e1),
    ],
    &[
        (0, 4.77662536438264365890433908527e-1),
        (3, -2.48811461997166764192642586468),
        (4, -5.90290826836842996371446475743e-1),
        (5, 2.12300514481811942347288949897e1),
        (6, 1.52792336328824235832596922938e1),
        (7, -3.32882109689848629194453265587e1),
        (8, -2.03312017085086261358222928593e-2),
    ],
    &[
        (0, -9.3714243008598732571704021658e-1),
        (3, 5.18637242884406370830023853209),
        (4, 1.09143734899672957818500254654),
        (5, -8.14978701074692612513997267357),
        (6, -1.85200656599969598641566180701e1),
        (7, 2.27394870993505042818970056734e1),
        (8, 2.49360555267965238987089396762),
        (9, -3.0467644718982195003823669022),
    ],
    &[
        (0, 2.27331014751653820792359768449),
        (3, -1.05344954667372501984066689879e1),
        (4, -2.00087205822486249909675718444),
        (5, -1.79589318631187989172765950534e1),
        (6, 2.79488845294199600508499808837e1),
        (7, -2.85899827713502369474065508674),
        (8, -8.87285693353062954433549289258),
        (9, 1.23605671757943030647266201528e1),
        (10, 6.43392746015763530355970484046e-1),
    ],
    // 8th-order weights b.
    &[
        (0, 5.42937341165687622380535766363e-2),
        (5, 4.45031289275240888144113950566),
        (6, 1.89151789931450038304281599044),
        (7, -5.8012039600105847814672114227),
        (8, 3.1116436695781989440891606237e-1),
        (9, -1.52160949662516078556178806805e-1),
        (10, 2.01365400804030348374776537501e-1),
        (11, 4.47106157277725905176885569043e-2),
    ],
    &[
        (0, 5.61675022830479523392909219681e-2),
        (6, 2.53500210216624811088794765333e-1),
        (7, -2.46239037470802489917441475441e-1),
        (8, -1.24191423263816360469010140626e-1),
        (9, 1.5329179827876569731206322685e-1),
        (10, 8.20105229563468988491666602057e-3),
        (11, 7.56789766054569976138603589584e-3),
        (12, -8.298e-3),
    ],
    &[
        (0, 3.18346481635021405060768473261e-2),
        (5, 2.83009096723667755288322961402e-2),
        (6, 5.35419883074385676223797384372e-2),
        (7, -5.49237485713909884646569340306e-2),
        (10, -1.08347328697249322858509316994e-4),
        (11, 3.82571090835658412954920192323e-4),
        (12, -3.40465008687404560802977114492e-4),
        (13, 1.41312443674632500278074618366e-1),
    ],
    &[
        (0, -4.28896301583791923408573538692e-1),
        (5, -4.69762141536116384314449447206),
        (6, 7.68342119606259904184240953878),
        (7, 4.06898981839711007970213554331),
        (8, 3.56727187455281109270669543021e-1),
        (12, -1.39902416515901462129418009734e-3),
        (13, 2.9475147891527723389556272149),
        (14, -9.15095847217987001081870187138),
    ],
];

/// 3rd-order weights subtracted from the 8th-order increment for the e₃ estimator.
#[allow(clippy::excessive_precision)]
const BHH: [(usize, f64); 3] = [
    (0, 0.244094488188976377952755905512),
    (8, 0.733846688281611857341361741547),
    (11, 0.220588235294117647058823529412e-1),
];

/// The e₅ estimator (difference of the 8th- and a 5th-order result, per unit h).
#[allow(clippy::excessive_precision)]
const E5: [(usize, f64); 8] = [
    (0, 0.1312004499419488073250102996e-1),
    (5, -0.1225156446376204440720569753e1),
    (6, -0.4957589496572501915214079952),
    (7, 0.1664377182454986536961530415e1),
    (8, -0.3503288487499736816886487290),
    (9, 0.3341791187130174790297318841),
    (10, 0.8192320648511571246570742613e-1),
    (11, -0.2235530786388629525884427845e-1),
];

/// Dense-output coefficients of the 4 highest terms of the continuous extension.
#[allow(clippy::excessive_precision)]
const D: [&[(usize, f64)]; 4] = [
    &[
        (0, -0.84289382761090128651353491142e1),
        (5, 0.56671495351937776962531783590),
        (6, -0.30689499459498916912797304727e1),
        (7, 0.23846676565120698287728149680e1),
        (8, 0.21170345824450282767155149946e1),
        (9, -0.87139158377797299206789907490),
        (10, 0.22404374302607882758541771650e1),
        (11, 0.63157877876946881815570249290),
        (12, -0.88990336451333310820698117400e-1),
        (13, 0.18148505520854727256656404962e2),
        (14, -0.91946323924783554000451984436e1),
        (15, -0.44360363875948939664310572000e1),
    ],
    &[
        (0, 0.10427508642579134603413151009e2),
        (5, 0.24228349177525818288430175319e3),
        (6, 0.16520045171727028198505394887e3),
        (7, -0.37454675472269020279518312152e3),
        (8, -0.22113666853125306036270938578e2),
        (9, 0.77334326684722638389603898808e1),
        (10, -0.30674084731089398182061213626e2),
        (11, -0.93321305264302278729567221706e1),
        (12, 0.15697238121770843886131091075e2),
        (13, -0.31139403219565177677282850411e2),
        (14, -0.93529243588444783865713862664e1),
        (15, 0.35816841486394083752465898540e2),
    ],
    &[
        (0, 0.19985053242002433820987653617e2),
        (5, -0.38703730874935176555105901742e3),
        (6, -0.18917813819516756882830838328e3),
        (7, 0.52780815920542364900561016686e3),
        (8, -0.11573902539959630126141871134e2),
        (9, 0.68812326946963000169666922661e1),
        (10, -0.10006050966910838403183860980e1),
        (11, 0.77771377980534432092869265740),
        (12, -0.27782057523535084065932004339e1),
        (13, -0.60196695231264120758267380846e2),
        (14, 0.84320405506677161018159903784e2),
        (15, 0.11992291136182789328035130030e2),
    ],
    &[
        (0, -0.25693933462703749003312586129e2),
        (5, -0.15418974869023643374053993627e3),
        (6, -0.23152937917604549567536039109e3),
        (7, 0.35763911791061412378285349910e3),
        (8, 0.93405324183624310003907691704e2),
        (9, -0.37458323136451633156875139351e2),
        (10, 0.10409964950896230045147246184e3),
        (11, 0.29840293426660503123344363579e2),
        (12, -0.43533456590011143754432175058e2),
        (13, 0.96324553959188282948394950600e2),
        (14, -0.39177261675615439165231486172e2),
        (15, -0.14972683625798562581422125276e3),
    ],
];

const SAFETY: f64 = 0.9;
/// Bounds of the step-size ratio h_new / h on acceptance.
const FAC_MIN: f64 = 1.0 / 3.0;
const FAC_MAX: f64 = 6.0;

/// DOP853 buffers, the last step (for dense output) and the proposed next step size.
#[derive(Debug, Clone)]
pub struct Dop853Solver {
    opts: Dop853,
    len: usize,
    /// Stage derivatives, stage j at `k[j·len..(j+1)·len]`; stage 12 is f(t_new, y_new).
    k: Vec<f64>,
    y_old: Vec<f64>,
    y_new: Vec<f64>,
    y_stage: Vec<f64>,
    /// The four highest coefficients of the dense polynomial (valid when `dense_ready`).
    cont: Vec<f64>,
    t_old: f64,
    t_new: f64,
    /// The step size used by the last accepted step.
    h_step: f64,
    /// The step size proposed for the next attempt (signed).
    h: f64,
    /// Whether a step has been taken, so that `(t_new, y_new, k[12])` describe a valid point.
    started: bool,
    dense_ready: bool,
    /// Consecutive accepted steps too small to change `t_stop` (see [`STALL_STEPS`]).
    stalled: u32,
    stats: Stats,
}

/// Accepted steps in a row below the resolution of `t_stop` after which the step size is taken
/// to have collapsed for good ([`IntegrateError::NoProgress`]). Hairer's test (`0.1|h| ≤ ε|t|`)
/// compares with the current t, so from t ≈ 0 it lets a run take ~10¹⁶ steps of 10⁻³⁸ s (a
/// state near the f64 limit, whose motion the controller resolves honestly) before failing;
/// a step that cannot even move `t_stop` means more than ~10¹⁵ steps to get there. A transient
/// collapse recovers within a few steps (the step may grow 6× per step), so 100 in a row is
/// no false alarm.
const STALL_STEPS: u32 = 100;

impl Dop853Solver {
    /// Forgets the last step: the next `step` computes a fresh initial step size.
    pub fn reset(&mut self) {
        self.started = false;
        self.dense_ready = false;
        self.stalled = 0;
        self.t_new = f64::NAN;
    }

    /// Step size proposed for the next attempt (signed; 0 before the first step).
    pub fn next_step_size(&self) -> f64 {
        self.h
    }

    /// Size of the last accepted step (signed).
    pub fn last_step_size(&self) -> f64 {
        self.h_step
    }

    #[inline]
    fn kslice(&self, j: usize) -> &[f64] {
        &self.k[j * self.len..(j + 1) * self.len]
    }

    /// `y_stage = y + h Σ_j a_j k_j` for one tableau row.
    #[inline]
    fn stage_input(&mut self, y: &[f64], h: f64, row: &[(usize, f64)]) {
        let len = self.len;
        for (i, (ys, &yi)) in self.y_stage.iter_mut().zip(y).enumerate() {
            let mut s = 0.0;
            for &(j, a) in row {
                s += a * self.k[j * len + i];
            }
            *ys = yi + h * s;
        }
    }

    /// Evaluates stage `j` at `t + c_j h` (its input must be in `y_stage`).
    #[inline]
    fn eval_stage<O: Ode>(&mut self, ode: &mut O, t: f64, h: f64, j: usize) {
        let len = self.len;
        let tj = if j == STAGES - 1 { t + h } else { t + C[j] * h };
        ode.eval(tj, &self.y_stage, &mut self.k[j * len..(j + 1) * len]);
        self.stats.evals += 1;
    }

    /// Hairer's `hinit`: an explicit-Euler probe for a step whose 8th-order error is ~tol.
    fn initial_step<O: Ode>(&mut self, ode: &mut O, t: f64, y: &[f64], dir: f64) -> f64 {
        let nl = ode.norm_len().min(self.len);
        if nl == 0 {
            return self.opts.h_max.min(1e-2);
        }
        let (rtol, atol) = (self.opts.rtol, self.opts.atol);
        let na = ode.angles();
        let mag = |i: usize, v: f64| magnitude(na, i, v);
        let mut dnf = 0.0;
        let mut dny = 0.0;
        for i in 0..nl {
            let sk = atol + rtol * mag(i, y[i]);
            dnf += (self.k[i] / sk).powi(2);
            dny += (y[i] / sk).powi(2);
        }
        dnf /= nl as f64;
        dny /= nl as f64;
        let mut h = if dnf <= 1e-10 || dny <= 1e-10 {
            1e-6
        } else {
            (dny / dnf).sqrt() * 0.01
        };
        h = h.min(self.opts.h_max);
        for i in 0..self.len {
            self.y_stage[i] = y[i] + dir * h * self.k[i];
        }
        // Stage slot 1 is scratch here; it is overwritten by the first attempt.
        let len = self.len;
        ode.eval(t + dir * h, &self.y_stage, &mut self.k[len..2 * len]);
        self.stats.evals += 1;
        let mut der2 = 0.0;
        for i in 0..nl {
            let sk = atol + rtol * mag(i, y[i]);
            der2 += ((self.k[len + i] - self.k[i]) / sk).powi(2);
        }
        let der2 = (der2 / nl as f64).sqrt() / h;
        let der12 = der2.abs().max(dnf.sqrt());
        let h1 = if der12 <= 1e-15 {
            (h * 1e-3).max(1e-6)
        } else {
            (0.01 / der12).powf(1.0 / 8.0)
        };
        (100.0 * h).min(h1).min(self.opts.h_max)
    }
}

/// `|v|` as the error norm's scale sees component `i`: the first `angles` components are angles,
/// whose size is capped at π (see [`Ode::angles`]).
#[inline]
fn magnitude(angles: usize, i: usize, v: f64) -> f64 {
    if i < angles {
        v.abs().min(std::f64::consts::PI)
    } else {
        v.abs()
    }
}

impl Solver for Dop853Solver {
    /// One accepted step from `(t, y)` towards `t_stop` (either direction; `t_stop == t` returns
    /// `t` unchanged). Rejected attempts are retried inside and counted in [`Stats::rejected`].
    ///
    /// FSAL: the derivative at the end of the last step is reused only if `t` and `y` are exactly
    /// the point that step returned; otherwise (a new initial condition, or deviation vectors
    /// re-orthonormalized by the caller) `f(t, y)` is re-evaluated, keeping the step size. A new
    /// `t` restarts the step-size selection.
    ///
    /// Errors: [`IntegrateError::NonFinite`] (NaN/Inf in `y` or in a new state),
    /// [`IntegrateError::StepSizeTooSmall`] (`0.1|h| ≤ ε|t|`), [`IntegrateError::NoProgress`]
    /// ([`STALL_STEPS`] accepted steps in a row that cannot change `t_stop`),
    /// [`IntegrateError::TooManySteps`] (more than `max_steps` attempts).
    ///
    /// Kept whole on purpose: the twelve stages, the error estimate and the step-size control
    /// read best side by side with the Butcher tableau (Hairer–Nørsett–Wanner I §II.10).
    fn step<O: Ode>(&mut self, ode: &mut O, t: f64, y: &mut [f64], t_stop: f64) -> Result<f64> {
        debug_assert_eq!(y.len(), self.len);
        let len = self.len;
        if t_stop == t {
            return Ok(t);
        }
        let dir = if t_stop > t { 1.0 } else { -1.0 };
        let continuing = self.started && t == self.t_new;
        if continuing && y == self.y_new.as_slice() {
            self.k.copy_within(12 * len..13 * len, 0);
        } else {
            check_finite(t, y)?;
            ode.eval(t, y, &mut self.k[..len]);
            self.stats.evals += 1;
        }
        let mut h = if continuing && self.h != 0.0 {
            self.h.abs()
        } else {
            match self.opts.h_init {
                Some(h0) => h0.abs(),
                None => self.initial_step(ode, t, y, dir),
            }
        };
        h = h.min(self.opts.h_max);
        let nl = ode.norm_len().min(len);
        let (rtol, atol) = (self.opts.rtol, self.opts.atol);
        let na = ode.angles();
        let mag = |i: usize, v: f64| magnitude(na, i, v);
        let mut rejected_before = false;
        loop {
            if self.stats.steps + self.stats.rejected >= self.opts.max_steps {
                return Err(IntegrateError::TooManySteps {
                    time: t,
                    max_steps: self.opts.max_steps,
                });
            }
            if 0.1 * h <= t.abs() * f64::EPSILON || h == 0.0 || !h.is_finite() {
                return Err(IntegrateError::StepSizeTooSmall { time: t, h });
            }
            let h_unclipped = h;
            let mut last = false;
            if (t + dir * 1.01 * h - t_stop) * dir >= 0.0 {
                h = (t_stop - t).abs();
                last = true;
            }
            let hs = dir * h;
            for j in 1..(STAGES - 1) {
                self.stage_input(y, hs, A[j]);
                self.eval_stage(ode, t, hs, j);
            }
            // The 8th-order result and both error estimators.
            let mut err5 = 0.0;
            let mut err3 = 0.0;
            for i in 0..len {
                let mut inc = 0.0;
                for &(j, b) in A[12] {
                    inc += b * self.k[j * len + i];
                }
                let yn = y[i] + hs * inc;
                self.y_new[i] = yn;
                if i < nl {
                    let sk = atol + rtol * mag(i, y[i]).max(mag(i, yn));
                    let mut e3 = inc;
                    for &(j, b) in &BHH {
                        e3 -= b * self.k[j * len + i];
                    }
                    let mut e5 = 0.0;
                    for &(j, e) in &E5 {
                        e5 += e * self.k[j * len + i];
                    }
                    err5 += (e5 / sk).powi(2);
                    err3 += (e3 / sk).powi(2);
                }
            }
            let mut deno = err5 + 0.01 * err3;
            if deno <= 0.0 {
                deno = 1.0;
            }
            let err = if nl == 0 {
                0.0
            } else {
                h * err5 * (1.0 / (nl as f64 * deno)).sqrt()
            };
            if !err.is_finite() {
                check_finite(t + hs, &self.y_new)?;
            }
            // err^(1/8): the controller's exponent for an 8th-order local error.
            let fac11 = if err.is_finite() {
                err.powf(1.0 / 8.0)
            } else {
                f64::INFINITY
            };
            if err <= 1.0 {
                if t_stop.is_finite() && t_stop + hs == t_stop {
                    self.stalled += 1;
                    if self.stalled >= STALL_STEPS {
                        return Err(IntegrateError::NoProgress { time: t_stop, h });
                    }
                } else {
                    self.stalled = 0;
                }
                let t_new = if last { t_stop } else { t + hs };
                // Back onto the constraint manifold first, so that the FSAL stage is f there.
                ode.project(&mut self.y_new);
                self.y_stage.copy_from_slice(&self.y_new);
                self.eval_stage(ode, t, hs, STAGES - 1);
                check_finite(t_new, &self.y_new)?;
                let fac = (fac11 / SAFETY).clamp(1.0 / FAC_MAX, 1.0 / FAC_MIN);
                let mut h_next = h / fac;
                if rejected_before {
                    h_next = h_next.min(h);
                }
                if last {
                    // Landing on t_stop should not shrink the step for the next interval.
                    h_next = h_next.max(h_unclipped);
                }
                self.h = dir * h_next.min(self.opts.h_max);
                self.h_step = hs;
                self.y_old.copy_from_slice(y);
                y.copy_from_slice(&self.y_new);
                self.t_old = t;
                self.t_new = t_new;
                self.started = true;
                self.dense_ready = false;
                self.stats.steps += 1;
                return Ok(t_new);
            }
            self.stats.rejected += 1;
            rejected_before = true;
            h /= (fac11 / SAFETY).min(1.0 / FAC_MIN);
        }
    }

    /// The 7th-order continuous extension over the last accepted step, `s ∈ [t_old, t_new]`
    /// (extrapolates outside). The first call after a step evaluates the 3 extra stages.
    /// Before any step it copies nothing and leaves `out` unchanged.
    fn dense<O: Ode>(&mut self, ode: &mut O, s: f64, out: &mut [f64]) {
        if !self.started {
            return;
        }
        let len = self.len;
        let hs = self.h_step;
        if !self.dense_ready {
            let y_old = std::mem::take(&mut self.y_old);
            for j in 13..STAGES_DENSE {
                self.stage_input(&y_old, hs, A[j]);
                self.eval_stage(ode, self.t_old, hs, j);
            }
            self.y_old = y_old;
            for (r, row) in D.iter().enumerate() {
                for i in 0..len {
                    let mut acc = 0.0;
                    for &(j, d) in *row {
                        acc += d * self.k[j * len + i];
                    }
                    self.cont[r * len + i] = hs * acc;
                }
            }
            self.dense_ready = true;
        }
        let th = (s - self.t_old) / hs;
        let th1 = 1.0 - th;
        let (k1, k13) = (self.kslice(0), self.kslice(12));
        for i in 0..len {
            let dy = self.y_new[i] - self.y_old[i];
            let r3 = hs * k1[i] - dy;
            let r4 = dy - hs * k13[i] - r3;
            let c5 = self.cont[i];
            let c6 = self.cont[len + i];
            let c7 = self.cont[2 * len + i];
            let c8 = self.cont[3 * len + i];
            let p = c5 + th * (c6 + th1 * (c7 + th * c8));
            out[i] = self.y_old[i] + th * (dy + th1 * (r3 + th * (r4 + th1 * p)));
        }
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y' = λ y: the exact solution is known everywhere.
    struct Exp(f64);
    impl Ode for Exp {
        fn len(&self) -> usize {
            1
        }
        fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
            dy[0] = self.0 * y[0];
        }
    }

    /// The tableau is consistent: row sums equal the nodes, weights sum to 1.
    #[test]
    fn tableau_row_sums() {
        for (i, row) in A.iter().enumerate().skip(1) {
            let s: f64 = row.iter().map(|&(_, a)| a).sum();
            assert!((s - C[i]).abs() < 1e-13, "row {i}: {s} vs {}", C[i]);
        }
        let e5: f64 = E5.iter().map(|&(_, e)| e).sum();
        assert!(e5.abs() < 1e-13);
        let bhh: f64 = BHH.iter().map(|&(_, b)| b).sum();
        assert!((bhh - 1.0).abs() < 1e-13);
    }

    #[test]
    fn exponential_and_dense() {
        let mut ode = Exp(-0.7);
        let mut s = Dop853::with_tol(1e-12).solver(1);
        let mut y = [1.0];
        let mut t = 0.0;
        let mut out = [0.0];
        while t < 5.0 {
            let t0 = t;
            t = s.step(&mut ode, t, &mut y, 5.0).unwrap();
            let tm = 0.5 * (t0 + t);
            s.dense(&mut ode, tm, &mut out);
            assert!((out[0] - (-0.7 * tm).exp()).abs() < 1e-11);
        }
        assert_eq!(t, 5.0);
        assert!((y[0] - (-3.5f64).exp()).abs() < 1e-11);
        // Backward to the start.
        while t > 0.0 {
            t = s.step(&mut ode, t, &mut y, 0.0).unwrap();
        }
        assert_eq!(t, 0.0);
        assert!((y[0] - 1.0).abs() < 1e-10);
    }

    #[test]
    fn errors() {
        let mut ode = Exp(1.0);
        let mut s = Dop853 {
            max_steps: 3,
            ..Dop853::with_tol(1e-12)
        }
        .solver(1);
        let mut y = [1.0];
        let r = s.advance_to(&mut ode, 0.0, &mut y, 100.0);
        assert!(matches!(r, Err(IntegrateError::TooManySteps { .. })));
        let mut s = Dop853::default().solver(1);
        let mut y = [f64::NAN];
        let r = s.step(&mut ode, 0.0, &mut y, 1.0);
        assert!(matches!(r, Err(IntegrateError::NonFinite { index: 0, .. })));
        // Finite-time blow-up of y' = y²: the step size collapses before t = 1.
        struct Blow;
        impl Ode for Blow {
            fn len(&self) -> usize {
                1
            }
            fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
                dy[0] = y[0] * y[0];
            }
        }
        let mut s = Dop853::default().solver(1);
        let mut y = [1.0];
        let r = s.advance_to(&mut Blow, 0.0, &mut y, 2.0);
        assert!(
            matches!(
                r,
                Err(IntegrateError::StepSizeTooSmall { .. } | IntegrateError::NonFinite { .. })
            ),
            "{r:?}"
        );
    }
}
