//! The live viewer's engine: one chain advanced frame by frame with the time scaling of docs/physics.md §6
//! (Δt_eff = α·Δt split into S RK4 sub-steps), together with one tangent vector for a running
//! estimate of the maximal Lyapunov exponent (renormalized every frame, Benettin's method).

use crate::integrate::{Flow, Ode, Rk4};
use crate::model::{Chain, ChainParams, Damping, Link, LinkShape, System};
use serde::Deserialize;
use serde_json::{json, Value};

/// Limits on what a page may ask for: every request is checked against them.
pub const MAX_LINKS: usize = 30;
pub const MAX_SUBSTEPS: u64 = 200;
pub const MAX_SPEED: f64 = 20.0;

/// The settings a page can change.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub masses: Vec<f64>,
    pub lengths: Vec<f64>,
    pub shape: LinkShape,
    /// Absolute damping γ on every link (N·m·s).
    pub damping: f64,
    pub gravity: f64,
    /// Speed multiplier α.
    pub speed: f64,
    /// RK4 sub-steps per frame.
    pub substeps: u64,
    /// Initial angles (rad); the release is from rest.
    pub theta0: Vec<f64>,
}

impl Settings {
    /// Three equal point masses released at 120°, 150°, 180° — visibly chaotic at once.
    pub fn triple() -> Settings {
        Settings::equal(3)
    }
    /// N equal point links (1 kg, 1/N m each, so the chain always spans 1 m).
    pub fn equal(n: usize) -> Settings {
        let theta0 = (0..n)
            .map(|j| (2.0 + 1.0 * j as f64 / n.max(1) as f64).min(3.1))
            .collect();
        Settings {
            masses: vec![1.0; n],
            lengths: vec![1.0 / n as f64; n],
            shape: LinkShape::Point,
            damping: 0.0,
            gravity: ChainParams::G,
            speed: 1.0,
            substeps: 10,
            theta0,
        }
    }
    pub fn links(&self) -> usize {
        self.masses.len()
    }
    fn chain(&self) -> Chain {
        let n = self.links();
        let links = (0..n)
            .map(|j| Link::shaped(self.lengths[j], self.masses[j], self.shape))
            .collect();
        let mut params = ChainParams::new(links);
        params.gravity = self.gravity;
        if self.damping > 0.0 {
            params.damping = Damping {
                absolute: vec![self.damping; n],
                joint: vec![],
            };
        }
        Chain::new(params).expect("settings are validated before use")
    }
}

/// A page's message, before validation. Unknown fields are refused.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Change settings (any subset); a change of N, masses, lengths, shape or damping restarts
    /// from the initial angles.
    Config {
        n: Option<usize>,
        masses: Option<Vec<f64>>,
        lengths: Option<Vec<f64>>,
        shape: Option<String>,
        damping: Option<f64>,
        speed: Option<f64>,
        substeps: Option<u64>,
    },
    Pause {
        paused: bool,
    },
    /// Back to the initial angles at t = 0. Written `{}` because serde ignores extra fields of
    /// an internally tagged unit variant: as an empty struct variant, `"extra":1` is refused.
    Reset {},
    /// New initial angles (the mouse drag), released from rest.
    SetAngles {
        theta: Vec<f64>,
    },
}

fn check(name: &str, v: f64, lo: f64, hi: f64) -> Result<f64, String> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(format!("{name} must be between {lo} and {hi} (got {v})"))
    }
}

/// The running simulation of one viewer.
pub struct Engine {
    pub settings: Settings,
    chain: Chain,
    /// Augmented state [θ | θ̇ | v] (v: the tangent vector).
    y: Vec<f64>,
    solver: crate::integrate::rk4::Rk4Solver,
    pub t: f64,
    pub paused: bool,
    /// Σ ln |v| over renormalizations, and the model time they span.
    log_sum: f64,
    log_time: f64,
    /// RK4 steps taken since the engine started (the simulation-rate counter).
    pub steps: u64,
}

impl Engine {
    pub fn new(settings: Settings) -> Engine {
        let chain = settings.chain();
        let len = Flow::with_layout(&chain, false, 1).len();
        let mut e = Engine {
            settings,
            chain,
            y: vec![0.0; len],
            solver: Rk4::new(1.0).solver(len),
            t: 0.0,
            paused: false,
            log_sum: 0.0,
            log_time: 0.0,
            steps: 0,
        };
        e.reset();
        e
    }

    /// Back to θ0 at rest, t = 0, a fresh tangent vector and Lyapunov sum.
    pub fn reset(&mut self) {
        let n = self.settings.links();
        self.y.iter_mut().for_each(|v| *v = 0.0);
        self.y[..n].copy_from_slice(&self.settings.theta0);
        // The tangent vector: unit, spread over all angles.
        let s = 1.0 / (n as f64).sqrt();
        for j in 0..n {
            self.y[2 * n + j] = s;
        }
        self.t = 0.0;
        self.log_sum = 0.0;
        self.log_time = 0.0;
    }

    fn rebuild(&mut self) {
        let steps = self.steps;
        let paused = self.paused;
        *self = Engine::new(self.settings.clone());
        self.steps = steps;
        self.paused = paused;
    }

    /// Applies a request; Err is a one-line reason, and nothing is changed.
    pub fn apply(&mut self, req: Request) -> Result<(), String> {
        match req {
            Request::Pause { paused } => self.paused = paused,
            Request::Reset {} => self.reset(),
            Request::SetAngles { theta } => {
                let n = self.settings.links();
                if theta.len() != n {
                    return Err(format!(
                        "theta has {} values, the chain {n} links",
                        theta.len()
                    ));
                }
                for &th in &theta {
                    check("theta", th, -100.0, 100.0)?;
                }
                self.settings.theta0 = theta;
                self.reset();
            }
            Request::Config {
                n,
                masses,
                lengths,
                shape,
                damping,
                speed,
                substeps,
            } => {
                let mut s = self.settings.clone();
                if let Some(n) = n {
                    if n == 0 || n > MAX_LINKS {
                        return Err(format!("n must be between 1 and {MAX_LINKS} (got {n})"));
                    }
                    if n != s.links() {
                        let shape = s.shape;
                        let (damping, speed, sub) = (s.damping, s.speed, s.substeps);
                        s = Settings::equal(n);
                        s.shape = shape;
                        s.damping = damping;
                        s.speed = speed;
                        s.substeps = sub;
                    }
                }
                let n = s.links();
                for (name, given, target) in [
                    ("masses", masses, &mut s.masses),
                    ("lengths", lengths, &mut s.lengths),
                ] {
                    if let Some(v) = given {
                        // One value for every link, or one per link.
                        let v = if v.len() == 1 { vec![v[0]; n] } else { v };
                        if v.len() != n {
                            return Err(format!(
                                "{name} has {} values, the chain {n} links",
                                v.len()
                            ));
                        }
                        for &x in &v {
                            check(name, x, 0.01, 100.0)?;
                        }
                        *target = v;
                    }
                }
                if let Some(sh) = shape {
                    s.shape = match sh.as_str() {
                        "point" => LinkShape::Point,
                        "rod" => LinkShape::Rod,
                        _ => return Err(format!("shape must be point or rod (got {sh:?})")),
                    };
                }
                if let Some(d) = damping {
                    s.damping = check("damping", d, 0.0, 10.0)?;
                }
                if let Some(a) = speed {
                    s.speed = check("speed", a, 0.01, MAX_SPEED)?;
                }
                if let Some(k) = substeps {
                    if k == 0 || k > MAX_SUBSTEPS {
                        return Err(format!(
                            "substeps must be between 1 and {MAX_SUBSTEPS} (got {k})"
                        ));
                    }
                    s.substeps = k;
                }
                let restart = s.masses != self.settings.masses
                    || s.lengths != self.settings.lengths
                    || s.shape != self.settings.shape
                    || s.damping != self.settings.damping;
                self.settings = s;
                if restart {
                    self.rebuild();
                }
            }
        }
        Ok(())
    }

    /// Advances one frame of `frame_dt` wall seconds (model time α·frame_dt in S sub-steps),
    /// unless paused. A blow-up (it cannot happen at these step sizes for a sane chain, but the
    /// page must never see NaN) restarts from the initial angles.
    pub fn advance(&mut self, frame_dt: f64) {
        if self.paused {
            return;
        }
        let n = self.settings.links();
        let h_eff = self.settings.speed * frame_dt;
        let h = h_eff / self.settings.substeps as f64;
        let mut flow = Flow::with_layout(&self.chain, false, 1);
        for _ in 0..self.settings.substeps {
            self.solver.rk4_step(&mut flow, self.t, h, &mut self.y);
            self.t += h;
        }
        self.steps += self.settings.substeps;
        let (x, v) = self.y.split_at_mut(2 * n);
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(norm.is_finite() && norm > 0.0) || x.iter().any(|x| !x.is_finite()) {
            self.reset();
            return;
        }
        v.iter_mut().for_each(|x| *x /= norm);
        self.log_sum += norm.ln();
        self.log_time += h_eff;
    }

    /// The running maximal-Lyapunov estimate (1/s), None before any time has passed.
    pub fn lyapunov(&self) -> Option<f64> {
        (self.log_time > 0.0).then(|| self.log_sum / self.log_time)
    }

    pub fn state(&self) -> &[f64] {
        &self.y[..2 * self.settings.links()]
    }

    /// The frame message the page draws.
    pub fn frame(&self) -> Value {
        let n = self.settings.links();
        let x = self.state();
        let joints = self.chain.joint_positions(self.t, &x[..n]);
        let ke = self.chain.link_kinetic_energies(x);
        let round = |v: f64| (v * 1e6).round() / 1e6;
        json!({
            "type": "frame",
            "t": round(self.t),
            "n": n,
            "theta": x[..n].iter().map(|&v| round(v)).collect::<Vec<_>>(),
            "omega": x[n..].iter().map(|&v| round(v)).collect::<Vec<_>>(),
            "x": joints.iter().map(|p| round(p[0])).collect::<Vec<_>>(),
            "y": joints.iter().map(|p| round(p[1])).collect::<Vec<_>>(),
            "ke": ke.iter().map(|&v| round(v)).collect::<Vec<_>>(),
            "energy": round(self.chain.energy(self.t, x)),
            "lyapunov": self.lyapunov().map(round),
            "paused": self.paused,
            "shape": match self.settings.shape { LinkShape::Point => "point", LinkShape::Rod => "rod" },
            "speed": self.settings.speed,
            "substeps": self.settings.substeps,
            "damping": self.settings.damping,
            "masses": self.settings.masses,
            "lengths": self.settings.lengths,
        })
    }
}
