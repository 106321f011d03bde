//! The fast path of the maps: RK4 for two- and three-link chains, many pixels at once in SIMD
//! lanes, one refill loop for every lane map kind.
//!
//! The pieces, each written once:
//!
//! - [`engine`]: the lanes (structure-of-arrays state and deviation vectors), the RK4 step of
//!   the augmented vector, the refill loop (a lane whose pixel ended takes the next pixel at
//!   once, so the vector stays full until the work list runs out) and the one dispatch over
//!   (lane width, damped, driven) that compiles each combination in;
//! - a [`LaneModel`] per chain: its state and tangent derivative ([`two_link`], whose
//!   equations serve the state and its deviations alike, and [`three_link`], state only);
//! - a [`Reduction`] per map kind: how a pixel starts, what its lane does after each step, and
//!   how a finished pixel is written out ([`flip`] flip times, [`final_state`] final states and the
//!   energy kernel's plain run, [`tangent`] Lyapunov/FTLE/MEGNO, [`indicators`] SALI/GALI,
//!   [`fli`] FLI/OFLI, [`descriptor`] the Lagrangian descriptor's halves, which integrates
//!   along the RK4 stages through [`rk4_quad`]).
//!
//! The frequency map's orbits need a symplectic integrator, not RK4: [`gauss`] runs its
//! Gauss–Legendre steps on lanes of its own (conservative two-link chains), outside the refill
//! loop, since every pixel takes the same steps.
//!
//! A new lane map kind is one reduction plus its registration (the kind's `*_run` function, the
//! tile function that calls it, and its [`Lanes`](super::kinds::Lanes) in the catalogue, whose
//! `auto` says whether `--kernel auto` takes them or only `--kernel lanes`: FLI and the
//! descriptor, which agree with their scalar path to rounding rather than to the bit).
//!
//! The lanes are plain arrays and every operation is a loop over lanes, so LLVM vectorizes them;
//! the loop is compiled three times (AVX-512, AVX2+FMA, baseline) and picked at run time, so no
//! `target-cpu=native` is needed and the binary runs anywhere. Arithmetic is identical in all
//! three (explicit `mul_add`, IEEE division) and at every lane width, so the map depends neither
//! on the machine nor on the refill order.

pub mod descriptor;
pub mod engine;
pub mod final_state;
pub mod fli;
pub mod flip;
pub mod gauss;
pub mod indicators;
mod sincos;
pub mod tangent;
pub mod three_link;
pub mod two_link;

pub use engine::{rk4, rk4_quad, Fixed, LaneModel, Lanes, Reduction, Widest, Width};
pub use flip::{crossing_fraction, located_time, FlipMask, DIVERGED};
pub use three_link::ThreeLink;
pub use two_link::{TwoLink, TwoLinkDrive};

pub use crate::analysis::simd::{simd, Simd};
