//! HDF5 layouts of the cart-chain results (named dimensions throughout, for xarray).
//!
//! Trajectory group: coordinates `time`, `link` (1..n), `axis` (1 = e₁, 2 = e₂, 3 = e₃ down),
//! `plane` (1 = e₁, 2 = e₂); variables `q(time, link, axis)`, `omega(time, link, axis)`,
//! `position(time, link, axis)` (the masses), `cart_position`, `cart_velocity`, `input`,
//! `momentum(time, plane)`, `energy`, `work`, `angular_momentum_z(time)`.
//! Modes group: `crate::kinds::modes` (its record, with [`cart_model`]).
//! Control group: `input` (1..2) × `state` (1..4n+4) gain, closed- and open-loop eigenvalues.

use super::{GroupWriter, StoreError};
use crate::analysis::cart::{CartTrajectory, ClosedLoop, Lqr};
use crate::finding::Record;
use crate::integrate::Method;
use crate::model::CartChain;
use ndarray::{Array2, Array3};

fn index(k: usize) -> Vec<i64> {
    (1..=k as i64).collect()
}

/// The model's parameters as variables over `link` and attributes.
pub fn write_cart_model(g: &GroupWriter<'_>, sys: &CartChain) -> Result<(), StoreError> {
    let mut model = Record::new("model");
    cart_model(&mut model, sys);
    super::record::write_into(g, &model)
}

/// Adds the model's parameters to the group `g` (over its coordinate `link`): what
/// [`write_cart_model`] writes, for a result that describes its group ([`Record`]).
pub fn cart_model(g: &mut Record, sys: &CartChain) {
    let p = sys.params();
    // Per link, so a variable (an attribute of 10⁴ links would not fit an object header).
    let joint: Vec<f64> = (0..sys.links())
        .map(|i| p.joint_damping.get(i).copied().unwrap_or(0.0))
        .collect();
    g.var("length", &["link"], p.lengths.clone(), "m", "link length")
        .var(
            "mass",
            &["link"],
            p.masses.clone(),
            "kg",
            "point mass at the link's outer end",
        )
        .attr("cart_fixed", !sys.free())
        .attr("cart_mass", p.cart_mass.unwrap_or(f64::NAN))
        .attr("gravity", p.gravity)
        .attr("cart_damping", p.cart_damping)
        .var(
            "joint_damping",
            &["link"],
            joint,
            "N m s",
            "damping of the joint above the link",
        );
}

/// A sampled trajectory into `g`.
pub fn write_cart_trajectory(
    g: &GroupWriter<'_>,
    sys: &CartChain,
    tr: &CartTrajectory,
    method: &Method,
) -> Result<(), StoreError> {
    let n = sys.links();
    g.coord("time", &tr.t, "s", "time")?;
    g.coord_i64("link", &index(n), "1", "link index, counted from the cart")?;
    g.coord_i64(
        "axis",
        &index(3),
        "1",
        "component: 1 = e1, 2 = e2, 3 = e3 (along gravity)",
    )?;
    g.coord_i64(
        "plane",
        &index(2),
        "1",
        "horizontal component: 1 = e1, 2 = e2",
    )?;
    cart_link_series(g, sys, tr)?;
    cart_body_series(g, sys, tr)?;
    super::results::write_energy_and_work(
        g,
        &tr.energy,
        &tr.work,
        "work of the input and damping since t = 0",
    )?;
    g.var(
        "angular_momentum_z",
        &["time"],
        tr.angular_momentum_z.as_slice(),
        "kg m2 s-1",
        "vertical angular momentum of the masses about the pivot",
    )?;
    write_cart_model(g, sys)?;
    super::write_method(g, method)?;
    g.attr_f64("max_energy_error", tr.max_energy_error())?;
    g.attr_f64("constraint_drift", tr.constraint_drift)?;
    g.attr_i64("steps", tr.stats.steps as i64)?;
    g.attr_i64("rejected_steps", tr.stats.rejected as i64)?;
    g.attr_i64("rhs_evaluations", tr.stats.evals as i64)?;
    g.attr_bool("complete", tr.complete)?;
    Ok(())
}

/// The links over (time, link, axis): direction and angular velocity from the state, and the
/// masses' positions, so a reader can draw the chain without the model.
fn cart_link_series(
    g: &GroupWriter<'_>,
    sys: &CartChain,
    tr: &CartTrajectory,
) -> Result<(), StoreError> {
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
    g.var(
        "q",
        &["time", "link", "axis"],
        &q,
        "1",
        "link direction (unit vector)",
    )?;
    g.var(
        "omega",
        &["time", "link", "axis"],
        &w,
        "rad s-1",
        "link angular velocity (perpendicular to q)",
    )?;
    g.var(
        "position",
        &["time", "link", "axis"],
        &pos,
        "m",
        "position of the link's mass",
    )?;
    Ok(())
}

/// The cart over (time, plane): its position and velocity (zero for a fixed cart), the
/// input force and the horizontal momentum it changes.
fn cart_body_series(
    g: &GroupWriter<'_>,
    sys: &CartChain,
    tr: &CartTrajectory,
) -> Result<(), StoreError> {
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
    g.var(
        "cart_position",
        &["time", "plane"],
        &cx,
        "m",
        "cart position",
    )?;
    g.var(
        "cart_velocity",
        &["time", "plane"],
        &cv,
        "m s-1",
        "cart velocity",
    )?;
    g.var(
        "input",
        &["time", "plane"],
        &u,
        "N",
        "horizontal force on the cart",
    )?;
    g.var(
        "momentum",
        &["time", "plane"],
        &p,
        "kg m s-1",
        "horizontal momentum of cart and chain",
    )?;
    Ok(())
}

/// An LQR design into `g`.
pub fn write_lqr(g: &GroupWriter<'_>, l: &Lqr) -> Result<(), StoreError> {
    let m = l.gain.len() / 2;
    g.coord_i64(
        "input",
        &index(2),
        "1",
        "cart force component: 1 = e1, 2 = e2",
    )?;
    g.coord_i64(
        "state",
        &index(m),
        "1",
        "linear coordinate (x, C^T q_i, x dot, C^T q_i dot)",
    )?;
    g.coord_i64(
        "eigenvalue",
        &index(m),
        "1",
        "eigenvalue index, by real part",
    )?;
    let k = Array2::from_shape_vec((2, m), l.gain.clone()).expect("2 × m gain");
    g.var(
        "gain",
        &["input", "state"],
        &k,
        "1",
        "LQR gain K (u = -K z; units of N per unit of z)",
    )?;
    let part = |v: &[(f64, f64)], re: bool| -> Vec<f64> {
        v.iter().map(|z| if re { z.0 } else { z.1 }).collect()
    };
    g.var(
        "closed_loop_re",
        &["eigenvalue"],
        part(&l.closed_loop, true).as_slice(),
        "s-1",
        "closed-loop eigenvalue, real part",
    )?;
    g.var(
        "closed_loop_im",
        &["eigenvalue"],
        part(&l.closed_loop, false).as_slice(),
        "s-1",
        "closed-loop eigenvalue, imaginary part",
    )?;
    g.var(
        "open_loop_re",
        &["eigenvalue"],
        part(&l.open_loop, true).as_slice(),
        "s-1",
        "open-loop eigenvalue, real part",
    )?;
    g.var(
        "open_loop_im",
        &["eigenvalue"],
        part(&l.open_loop, false).as_slice(),
        "s-1",
        "open-loop eigenvalue, imaginary part",
    )?;
    g.attr_str("equilibrium", &l.equilibrium)?;
    g.attr_f64("riccati_residual", l.riccati_residual)?;
    g.attr_f64("controllability_margin", l.controllability_margin)?;
    g.attr_f64s(
        "weights",
        &[
            l.weights.q_cart,
            l.weights.q_angle,
            l.weights.q_rate,
            l.weights.r,
        ],
    )?;
    g.attr_str("weights_order", "q_cart, q_angle, q_rate, r")?;
    Ok(())
}

/// The closed-loop error ‖z(t)‖ next to a trajectory group (same `time` coordinate).
pub fn write_closed_loop_error(g: &GroupWriter<'_>, c: &ClosedLoop) -> Result<(), StoreError> {
    g.var(
        "error",
        &["time"],
        c.error.as_slice(),
        "1",
        "norm of the linear-coordinate error z - z_ref",
    )?;
    g.attr_f64("final_direction_error", c.final_direction_error)?;
    Ok(())
}
