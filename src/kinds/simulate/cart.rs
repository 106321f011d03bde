//! The cart chain's trajectory, described for the front ends: the group `trajectory` (also
//! the body of `control`'s), the JSON summary and the 3-D figure (also `control`'s).

use super::energy_and_work;
use crate::analysis::cart::CartTrajectory;
use crate::analysis::{self, SimulateOptions};
use crate::finding::{Finding, Record};
use crate::integrate::Method;
use crate::kinds::{Found, Input, RunError};
use crate::model::CartChain;
use crate::observe::Observer;
use crate::plot::{CartFigure, PlotError};
use crate::store;
use ndarray::{Array2, Array3};
use serde_json::json;
use std::path::Path;

/// A cart chain's simulation: the trajectory with the chain and integrator its file names.
#[derive(Debug, Clone)]
pub struct CartSimulated {
    /// The run's title (the figure's and the summary's).
    pub title: String,
    pub sys: CartChain,
    pub method: Method,
    pub trajectory: CartTrajectory,
}

impl CartSimulated {
    /// Integrates `input`'s start on `sys` as `opts` asks, reporting to `observer`.
    pub fn run(
        input: &Input<'_>,
        sys: &CartChain,
        opts: &SimulateOptions,
        observer: &mut dyn Observer,
    ) -> Result<CartSimulated, RunError> {
        let trajectory = analysis::simulate(sys, input.method, input.x0, opts, observer)?;
        Ok(CartSimulated {
            title: input.title.to_string(),
            sys: sys.clone(),
            method: *input.method,
            trajectory,
        })
    }
}

/// The group `trajectory` of a cart chain's run with `method`: coordinates `time`, `link`,
/// `axis` (1 = e₁, 2 = e₂, 3 = e₃ down) and `plane` (1 = e₁, 2 = e₂); the links over (time,
/// link, axis), the cart over (time, plane), the energy balance, L_z, the chain, the
/// integrator and the run's statistics.
pub fn cart_record(sys: &CartChain, tr: &CartTrajectory, method: &Method) -> Record {
    let mut g = Record::new("trajectory");
    g.coord("time", tr.t.as_slice(), "s", "time")
        .index("link", sys.links(), "link index, counted from the cart")
        .index(
            "axis",
            3,
            "component: 1 = e1, 2 = e2, 3 = e3 (along gravity)",
        )
        .index("plane", 2, "horizontal component: 1 = e1, 2 = e2");
    link_series(&mut g, sys, tr);
    body_series(&mut g, sys, tr);
    energy_and_work(
        &mut g,
        &tr.energy,
        &tr.work,
        "work of the input and damping since t = 0",
    );
    g.var(
        "angular_momentum_z",
        &["time"],
        tr.angular_momentum_z.as_slice(),
        "kg m2 s-1",
        "vertical angular momentum of the masses about the pivot",
    );
    store::cart::cart_model(&mut g, sys);
    for (name, a) in store::method_attrs(method) {
        g.attr(name, a);
    }
    g.attr("max_energy_error", tr.max_energy_error())
        .attr("constraint_drift", tr.constraint_drift)
        .attr("steps", tr.stats.steps as i64)
        .attr("rejected_steps", tr.stats.rejected as i64)
        .attr("rhs_evaluations", tr.stats.evals as i64)
        .attr("complete", tr.complete);
    g
}

/// The links over (time, link, axis): direction and angular velocity from the state, and the
/// masses' positions, so a reader can draw the chain without the model.
fn link_series(g: &mut Record, sys: &CartChain, tr: &CartTrajectory) {
    let n = sys.links();
    let s = tr.len();
    let (qo, wo) = (sys.q_offset(), sys.omega_offset());
    let mut q = Array3::zeros((s, n, 3));
    let mut w = Array3::zeros((s, n, 3));
    let mut pos = Array3::zeros((s, n, 3));
    for k in 0..s {
        let x = tr.sample(k);
        let joints = sys.positions(x);
        for i in 0..n {
            for c in 0..3 {
                q[(k, i, c)] = x[qo + 3 * i + c];
                w[(k, i, c)] = x[wo + 3 * i + c];
                pos[(k, i, c)] = joints[i + 1][c];
            }
        }
    }
    let dims = ["time", "link", "axis"];
    g.var("q", &dims, q, "1", "link direction (unit vector)")
        .var(
            "omega",
            &dims,
            w,
            "rad s-1",
            "link angular velocity (perpendicular to q)",
        )
        .var("position", &dims, pos, "m", "position of the link's mass");
}

/// The cart over (time, plane): its position and velocity (zero for a fixed cart), the
/// input force and the horizontal momentum it changes.
fn body_series(g: &mut Record, sys: &CartChain, tr: &CartTrajectory) {
    let s = tr.len();
    let mut cx = Array2::zeros((s, 2));
    let mut cv = Array2::zeros((s, 2));
    let mut u = Array2::zeros((s, 2));
    let mut p = Array2::zeros((s, 2));
    for k in 0..s {
        let x = tr.sample(k);
        for c in 0..2 {
            if sys.free() {
                cx[(k, c)] = x[c];
                cv[(k, c)] = x[2 + c];
            }
            u[(k, c)] = tr.input[k][c];
            p[(k, c)] = tr.momentum[k][c];
        }
    }
    let dims = ["time", "plane"];
    g.var("cart_position", &dims, cx, "m", "cart position")
        .var("cart_velocity", &dims, cv, "m s-1", "cart velocity")
        .var("input", &dims, u, "N", "horizontal force on the cart")
        .var(
            "momentum",
            &dims,
            p,
            "kg m s-1",
            "horizontal momentum of cart and chain",
        );
}

/// Draws the cart chain's figure: six snapshots of the chain in 3-D over `tr`, titled `title`.
pub fn draw_cart(
    title: &str,
    sys: &CartChain,
    tr: &CartTrajectory,
    path: &Path,
) -> Result<(), PlotError> {
    let frames: Vec<Vec<[f64; 3]>> = (0..tr.len()).map(|k| sys.positions(tr.sample(k))).collect();
    let fig = CartFigure {
        title: title.to_string(),
        frames: &frames,
        times: &tr.t,
        snapshots: 6,
    };
    crate::plot::draw_cart_chain(&fig, path)
}

impl Finding for CartSimulated {
    fn group(&self) -> &'static str {
        "trajectory"
    }

    fn complete(&self) -> bool {
        self.trajectory.complete
    }

    fn record(&self) -> Record {
        cart_record(&self.sys, &self.trajectory, &self.method)
    }

    /// Names its kind, model and title itself (the cart chain's summaries have no integrator
    /// and no paths; the front end adds the wall time).
    fn summary(&self) -> serde_json::Value {
        let tr = &self.trajectory;
        json!({
            "kind": "simulate", "model": "cart-chain", "title": self.title,
            "samples": tr.len(), "t_end": tr.t.last(),
            "max_energy_error": tr.max_energy_error(),
            "constraint_drift": tr.constraint_drift,
            "final_state": tr.sample(tr.len() - 1),
            "steps": tr.stats.steps, "rhs_evaluations": tr.stats.evals,
            "complete": tr.complete,
        })
    }

    /// The cart chain's summary names its kind, model and title itself; the run adds its wall
    /// time only (it never had the integrator or the paths).
    fn run_fields(&self) -> &'static [&'static str] {
        &["wall_s"]
    }
}

impl Found for CartSimulated {
    fn draw(&self, path: &Path) -> Result<(), PlotError> {
        draw_cart(&self.title, &self.sys, &self.trajectory, path)
    }
}
