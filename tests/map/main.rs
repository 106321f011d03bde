//! The map tests, one binary whose modules follow `analysis::map`: the grid, files, resume and
//! figures ([`basics`], [`resume`]), each map kind ([`kinds`], [`flip_located`],
//! [`lyapunov_error`], [`descriptor`], [`fli`]) and the SIMD lanes against the scalar path ([`tangent_lanes`],
//! [`indicator_lanes`], [`three_lanes`]), which all go through the one [`harness`].

#[path = "../common/python.rs"]
mod python;
#[path = "../common/running.rs"]
mod running;
#[path = "../common/spawn.rs"]
mod spawn;

mod chains;
mod harness;

mod basics;
mod bigmap;
mod descriptor;
mod fli;
mod flip_located;
mod indicator_lanes;
mod integrity;
mod kinds;
mod lyapunov_error;
mod resume;
mod tangent_lanes;
mod three_lanes;
