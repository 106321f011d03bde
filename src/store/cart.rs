//! HDF5 layouts of the cart-chain results (named dimensions throughout, for xarray). The
//! trajectory group is its kind's record ([`crate::kinds::simulate::cart_record`]).
//!
//! The modes group is its kind's record too (`crate::kinds::modes`, with [`cart_model`]).
//! Control group: `input` (1..2) × `state` (1..4n+4) gain, closed- and open-loop eigenvalues.

use super::{GroupWriter, StoreError};
use crate::analysis::cart::{ClosedLoop, Lqr};
use crate::finding::Record;
use crate::model::CartChain;
use ndarray::Array2;

fn index(k: usize) -> Vec<i64> {
    (1..=k as i64).collect()
}

/// The model's parameters as entries of a group that has the coordinate `link`: variables
/// over it and attributes.
pub fn cart_model(g: &mut Record, sys: &CartChain) {
    let p = sys.params();
    g.var(
        "length",
        &["link"],
        p.lengths.as_slice(),
        "m",
        "link length",
    )
    .var(
        "mass",
        &["link"],
        p.masses.as_slice(),
        "kg",
        "point mass at the link's outer end",
    )
    .attr("cart_fixed", !sys.free())
    .attr("cart_mass", p.cart_mass.unwrap_or(f64::NAN))
    .attr("gravity", p.gravity)
    .attr("cart_damping", p.cart_damping);
    // Per link, so a variable (an attribute of 10⁴ links would not fit an object header).
    let joint: Vec<f64> = (0..sys.links())
        .map(|i| p.joint_damping.get(i).copied().unwrap_or(0.0))
        .collect();
    g.var(
        "joint_damping",
        &["link"],
        joint,
        "N m s",
        "damping of the joint above the link",
    );
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
