//! SALI and GALI at their old path: the estimator lives with the other single-orbit reducers in
//! [`crate::analysis::orbit::sali`].

pub use crate::analysis::orbit::sali::*;
