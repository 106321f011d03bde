//! The terms a kind states its memory in ([`crate::kinds::Settings::memory`]): the budget
//! (`spec/budget/`) sums them and names the field of the largest when a run does not fit.

/// One term of an estimate.
pub struct Term {
    pub bytes: f64,
    /// The spec field that drives it.
    pub field: &'static str,
    /// What drives it, as a message's subject: `1000000 links`, `4.3e9 samples`.
    pub driver: String,
    /// What the bytes are for: `the integrator`.
    pub what: &'static str,
}

pub const F64: f64 = 8.0;
/// Copies of the state a solver keeps (DOP853: 12 stages, error, dense output, buffers).
pub const SOLVER_COPIES: f64 = 24.0;
/// Bytes a planar link costs: its parameters, the precomputed tables and a workspace.
pub const PLANAR_LINK_BYTES: f64 = 512.0;

/// Threads that run members, orbits or tiles at once.
pub fn threads() -> f64 {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as f64
}

pub fn links_driver(n: usize) -> String {
    format!("{n} links")
}

/// One trajectory's solver: SOLVER_COPIES states of `len` numbers.
pub fn solver(len: f64) -> f64 {
    len * F64 * SOLVER_COPIES
}

/// The integrator of one trajectory of a system of `dim` states, blamed on the links.
pub fn solver_term(n: usize, dim: f64) -> Term {
    Term {
        bytes: solver(dim),
        field: "model.links",
        driver: links_driver(n),
        what: "the integrator",
    }
}

/// Samples × bytes per sample, blamed on the end time (`field`; the message says the count is
/// t_end / dt_out) when the samples outnumber the links, else on the links.
pub fn samples_term(
    samples: f64,
    per: f64,
    n: usize,
    field: &'static str,
    what: &'static str,
) -> Term {
    let (field, driver) = if samples >= n as f64 {
        let ratio = if field.ends_with("t_end") {
            " (t_end / dt_out)"
        } else {
            ""
        };
        (field, format!("{samples:.3e} samples{ratio} of {n} links"))
    } else {
        ("model.links", format!("{n} links × {samples:.0} samples"))
    };
    Term {
        bytes: samples * per,
        field,
        driver,
        what,
    }
}
