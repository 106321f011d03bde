//! One orbit's run to the section ([`super::orbit`]): the section function g and its slope,
//! the step loop, the crossings found in each step (stroboscopic, or bracketed and located on
//! the dense output), the deviation vector's renormalisation, and the finished [`Orbit`].

use super::{Orbit, Section, SectionEnd, SectionOptions};
use crate::analysis::energy::EnergyBalance;
use crate::analysis::AnalysisError;
use crate::integrate::{locate, Direction, Dop853, Dop853Solver, Flow, Ode, Solver, Stats};
use crate::model::{Chain, System};
use std::f64::consts::PI;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Signed distance and its time derivative, given the state and (when needed) its derivative.
struct Gfun<'a> {
    section: &'a Section,
    n: usize,
    /// g needs f(x) for its slope (ω or general hyperplane with ω components).
    needs_rhs: bool,
}

impl Gfun<'_> {
    fn new(section: &Section, n: usize) -> Gfun<'_> {
        let needs_rhs = match section {
            Section::Coordinate { index, .. } => *index >= n / 2,
            Section::Hyperplane { normal, .. } => normal[n / 2..].iter().any(|&a| a != 0.0),
            Section::Stroboscopic { .. } => false,
        };
        Gfun {
            section,
            n,
            needs_rhs,
        }
    }
    #[inline]
    fn g(&self, x: &[f64]) -> f64 {
        match self.section {
            Section::Coordinate { index, value, .. } => {
                if *index < self.n / 2 {
                    (x[*index] - value).sin()
                } else {
                    x[*index] - value
                }
            }
            Section::Hyperplane { normal, offset, .. } => {
                normal.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - offset
            }
            Section::Stroboscopic { .. } => 0.0,
        }
    }
    /// ġ; `f` is f(x) when `needs_rhs`, else ignored (θ̇ = ω is in the state).
    #[inline]
    fn gdot(&self, x: &[f64], f: &[f64]) -> f64 {
        let h = self.n / 2;
        match self.section {
            Section::Coordinate { index, value, .. } => {
                if *index < h {
                    (x[*index] - value).cos() * x[h + index]
                } else {
                    f[*index]
                }
            }
            Section::Hyperplane { normal, .. } => {
                let mut s = 0.0;
                for k in 0..h {
                    s += normal[k] * x[h + k];
                }
                if self.needs_rhs {
                    for k in h..self.n {
                        s += normal[k] * f[k];
                    }
                }
                s
            }
            Section::Stroboscopic { .. } => 0.0,
        }
    }
    /// Whether a located root is on the section's branch (cos(θ − c) > 0 for angles).
    fn on_branch(&self, x: &[f64]) -> bool {
        match self.section {
            Section::Coordinate { index, value, .. } if *index < self.n / 2 => {
                (x[*index] - value).cos() > 0.0
            }
            _ => true,
        }
    }
    /// How far the section angle moved over a step (0 for other sections).
    fn angle_travel(&self, x0: &[f64], x1: &[f64]) -> f64 {
        match self.section {
            Section::Coordinate { index, .. } if *index < self.n / 2 => {
                (x1[*index] - x0[*index]).abs()
            }
            _ => 0.0,
        }
    }
}

/// Golden-section search for the minimum of `h` on [a, b] to ~1e-10 relative width.
fn golden_min(mut h: impl FnMut(f64) -> f64, mut a: f64, mut b: f64) -> (f64, f64) {
    let r = 0.5 * (5f64.sqrt() - 1.0);
    let mut c = b - r * (b - a);
    let mut d = a + r * (b - a);
    let (mut fc, mut fd) = (h(c), h(d));
    for _ in 0..60 {
        if (b - a).abs() <= 1e-12 * (1.0 + a.abs()) {
            break;
        }
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = h(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = h(d);
        }
    }
    if fc < fd {
        (c, fc)
    } else {
        (d, fd)
    }
}

/// g's slope ġ at `(t, ya)`, evaluating the right-hand side into `fbuf` only when the section
/// needs it (a free function so that callers can pass `y` or `buf` beside `flow`).
fn section_slope(
    gf: &Gfun<'_>,
    flow: &mut Flow<'_, Chain>,
    fbuf: &mut [f64],
    t: f64,
    ya: &[f64],
) -> f64 {
    if gf.needs_rhs {
        flow.eval(t, ya, fbuf);
    }
    gf.gdot(&ya[..gf.n], &fbuf[..gf.n])
}

/// One orbit in progress: the integrator, the section function at the last step's end, and the
/// crossings so far. Each step of [`orbit`] is one method, so the loop reads as
/// step → find crossings (stroboscopic or located) → renormalise the deviation vector.
pub(super) struct OrbitRun<'a> {
    chain: &'a Chain,
    section: &'a Section,
    opts: &'a SectionOptions,
    progress: &'a AtomicU64,
    n: usize,
    work: bool,
    k: usize,
    flow: Flow<'a, Chain>,
    solver: Dop853Solver,
    balance: EnergyBalance,
    gf: Gfun<'a>,
    dirn: Direction,
    /// The state at `t` and at the previous step's end.
    y: Vec<f64>,
    y0: Vec<f64>,
    /// Dense-output and right-hand-side scratch; `buf` holds the last recorded crossing.
    buf: Vec<f64>,
    fbuf: Vec<f64>,
    t: f64,
    /// g and ġ at `t`, so that each step evaluates them only at its new end.
    g0: f64,
    d0: f64,
    next_strobe: u64,
    /// Σ ln of the deviation-vector norms divided out so far.
    log_growth: f64,
    out: Orbit,
}

impl<'a> OrbitRun<'a> {
    /// The flow (with a deviation vector when a Lyapunov exponent is asked for), the solver and
    /// an empty [`Orbit`]; g and ġ at t = 0.
    pub(super) fn new(
        chain: &'a Chain,
        section: &'a Section,
        x0: &[f64],
        opts: &'a SectionOptions,
        progress: &'a AtomicU64,
    ) -> Self {
        let n = chain.dim();
        let work = !chain.is_conservative();
        let k = usize::from(opts.lyapunov);
        let mut flow = Flow::with_layout(chain, work, k);
        // The deviation vector stays out of the error norm, so the crossings are those of the plain
        // state flow; the exponent is an indicator, not a converged spectrum.
        flow.tangent_in_norm = false;
        let len = flow.layout.len();
        let solver = Dop853 {
            rtol: opts.rtol,
            atol: opts.atol,
            h_max: opts.h_max,
            ..Default::default()
        }
        .solver(len);
        let v0: Vec<f64> = (0..n * k).map(|_| 1.0 / (n as f64).sqrt()).collect();
        let y = flow.initial(x0, if k > 0 { Some(&v0) } else { None });
        let balance = EnergyBalance::new(chain, chain.energy(0.0, x0));
        let gf = Gfun::new(section, n);
        let dirn = section.direction();
        let out = Orbit {
            initial: x0.to_vec(),
            t: Vec::with_capacity(opts.crossings),
            states: Vec::with_capacity(opts.crossings),
            energy_error: Vec::with_capacity(opts.crossings),
            lyapunov: None,
            end: SectionEnd::TimeLimit,
            t_end: 0.0,
            stats: Stats::default(),
        };
        let buf = vec![0.0; len];
        let mut fbuf = vec![0.0; len];
        let t = 0.0;
        let g0 = gf.g(&y[..n]);
        let d0 = section_slope(&gf, &mut flow, &mut fbuf, t, &y);
        let y0 = y.clone();
        OrbitRun {
            chain,
            section,
            opts,
            progress,
            n,
            work,
            k,
            flow,
            solver,
            balance,
            gf,
            dirn,
            y,
            y0,
            buf,
            fbuf,
            t,
            g0,
            d0,
            next_strobe: match section {
                Section::Stroboscopic { transient, .. } => transient + 1,
                _ => 1,
            },
            log_growth: 0.0,
            out,
        }
    }

    /// Whether the orbit has all the crossings it was asked for.
    fn done(&self) -> bool {
        self.out.t.len() >= self.opts.crossings
    }

    /// Appends the crossing held in `buf` at time `tc`, with its energy error.
    fn record(&mut self, tc: f64) {
        let n = self.n;
        let x = &self.buf[..n];
        let w = if self.work { self.buf[n] } else { 0.0 };
        self.out.t.push(tc);
        self.out.states.push(x.to_vec());
        self.out
            .energy_error
            .push(self.balance.relative(self.chain.energy(tc, x), w));
        self.progress.fetch_add(1, Ordering::Relaxed);
    }

    /// Steps until enough crossings, `t_end`, a failed step or `stop` (polled once per step).
    pub(super) fn steps(&mut self, stop: &AtomicBool) {
        while self.out.t.len() < self.opts.crossings {
            if stop.load(Ordering::Relaxed) {
                self.out.end = SectionEnd::Stopped;
                break;
            }
            if self.t >= self.opts.t_end {
                self.out.end = SectionEnd::TimeLimit;
                break;
            }
            let t1 = match self
                .solver
                .step(&mut self.flow, self.t, &mut self.y, self.opts.t_end)
            {
                Ok(t1) => t1,
                Err(e) => {
                    let msg = AnalysisError::naming(self.chain, self.flow.layout)(e).to_string();
                    self.out.end = SectionEnd::Failed(msg);
                    break;
                }
            };
            let finished = if let Section::Stroboscopic { t0: ts, period, .. } = self.section {
                self.strobe(*ts, *period, t1)
            } else {
                self.crossings_in_step(t1)
            };
            if finished {
                break;
            }
            self.t = t1;
            self.renormalise();
            self.y0.copy_from_slice(&self.y);
        }
    }

    /// Records the stroboscopic samples t₀ + k·T that fall in (t, t1]; true (with `t` at the
    /// last sample) once the orbit is complete.
    fn strobe(&mut self, ts: f64, period: f64, t1: f64) -> bool {
        loop {
            let tk = ts + self.next_strobe as f64 * period;
            if tk > t1 {
                return false;
            }
            if tk > self.t {
                if tk == t1 {
                    self.buf.copy_from_slice(&self.y);
                } else {
                    self.solver.dense(&mut self.flow, tk, &mut self.buf);
                }
                self.record(tk);
            }
            self.next_strobe += 1;
            if self.done() {
                self.t = tk;
                return true;
            }
        }
    }

    /// Locates the crossings in the step (t, t1], split into pieces over which the section
    /// angle moves at most π/4 so that no pair of crossings hides inside one piece; true (with
    /// `t` at the last crossing) once the orbit is complete.
    fn crossings_in_step(&mut self, t1: f64) -> bool {
        let n = self.n;
        let t = self.t;
        let g1 = self.gf.g(&self.y[..n]);
        let d1 = section_slope(&self.gf, &mut self.flow, &mut self.fbuf, t1, &self.y);
        let travel = self.gf.angle_travel(&self.y0[..n], &self.y[..n]);
        let pieces = self
            .opts
            .pieces
            .max((travel / (PI / 4.0)).ceil() as usize)
            .max(1);
        let (mut ta, mut ga, mut da) = (t, self.g0, self.d0);
        for p in 1..=pieces {
            let (tb, gb, db) = if p == pieces {
                (t1, g1, d1)
            } else {
                let tb = t + (t1 - t) * p as f64 / pieces as f64;
                self.solver.dense(&mut self.flow, tb, &mut self.buf);
                let gb = self.gf.g(&self.buf[..n]);
                let db = section_slope(&self.gf, &mut self.flow, &mut self.fbuf, tb, &self.buf);
                (tb, gb, db)
            };
            let (brackets, nb) = self.brackets((ta, ga, da), (tb, gb, db));
            if self.locate_crossings(&brackets[..nb]) {
                return true;
            }
            ta = tb;
            ga = gb;
            da = db;
        }
        self.g0 = g1;
        self.d0 = d1;
        false
    }

    /// Brackets in one piece from its ends' g and ġ: a sign change, or a graze (both ends on
    /// one side, g approaching then receding) whose extremum dips across, giving two.
    fn brackets(
        &mut self,
        (ta, ga, da): (f64, f64, f64),
        (tb, gb, db): (f64, f64, f64),
    ) -> ([(f64, f64, f64, f64); 2], usize) {
        let n = self.n;
        let mut brackets: [(f64, f64, f64, f64); 2] = [(0.0, 0.0, 0.0, 0.0); 2];
        let mut nb = 0;
        if Direction::Either.crosses(ga, gb) {
            brackets[0] = (ta, ga, tb, gb);
            nb = 1;
        } else if ga != 0.0 && ga.signum() == gb.signum() {
            let s = ga.signum();
            if s * da < 0.0 && s * db > 0.0 {
                let (tm, hm) = golden_min(
                    |tt| {
                        self.solver.dense(&mut self.flow, tt, &mut self.buf);
                        s * self.gf.g(&self.buf[..n])
                    },
                    ta,
                    tb,
                );
                if hm < 0.0 {
                    brackets[0] = (ta, ga, tm, s * hm);
                    brackets[1] = (tm, s * hm, tb, gb);
                    nb = 2;
                }
            }
        }
        (brackets, nb)
    }

    /// Locates the root in each bracket crossed in the section's direction and records those
    /// on the section's branch; true (with `t` at the crossing) once the orbit is complete.
    fn locate_crossings(&mut self, brackets: &[(f64, f64, f64, f64)]) -> bool {
        let n = self.n;
        for &(a, fa, b, fb) in brackets {
            if !self.dirn.crosses(fa, fb) {
                continue;
            }
            let gf = &self.gf;
            if let Some(c) = locate(
                &mut self.solver,
                &mut self.flow,
                a,
                fa,
                b,
                fb,
                |_, s| gf.g(&s[..n]),
                &mut self.buf,
                1e-14,
            ) {
                if self.gf.on_branch(&self.buf[..n]) {
                    self.record(c.t);
                    if self.done() {
                        self.t = c.t;
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Divides the deviation vector back to unit size when it strays outside [1e-8, 1e8],
    /// keeping the log of what was divided out (the exponent is then exact, not overflowed).
    fn renormalise(&mut self) {
        if self.k > 0 {
            let off = self.flow.layout.tangent_offset();
            let norm = self.y[off..].iter().map(|v| v * v).sum::<f64>().sqrt();
            if !(1e-8..=1e8).contains(&norm) {
                self.log_growth += norm.ln();
                self.y[off..].iter_mut().for_each(|v| *v /= norm);
            }
        }
    }

    /// How the orbit ended, the time reached, the finite-time exponent and the solver's counts.
    pub(super) fn finish(self) -> Orbit {
        let mut out = self.out;
        if out.t.len() >= self.opts.crossings {
            out.end = SectionEnd::Complete;
        }
        let t = self.t;
        out.t_end = t;
        if self.k > 0 && t > 0.0 {
            // At the last crossing when the loop ended there, else at the last step.
            let src = if out.end == SectionEnd::Complete {
                &self.buf
            } else {
                &self.y
            };
            let off = self.flow.layout.tangent_offset();
            let norm = src[off..].iter().map(|v| v * v).sum::<f64>().sqrt();
            out.lyapunov = Some((self.log_growth + norm.ln()) / t);
        }
        out.stats = self.solver.stats();
        out
    }
}
