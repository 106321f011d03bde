//! HDF5 layouts of the cart-chain results (named dimensions throughout, for xarray). The
//! trajectory group is its kind's record ([`crate::kinds::simulate::cart_record`]).
//!
//! The modes group is its kind's record too (`crate::kinds::modes`, with [`cart_model`]), and
//! so is control's LQR group (`crate::kinds::control`).

use crate::finding::Record;
use crate::model::CartChain;

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
