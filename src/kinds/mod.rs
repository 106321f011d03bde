//! The analysis kinds as registered values. A kind is one folder here: its spec table and its
//! validation, what its run holds in memory, its run, and its result, which describes itself
//! ([`crate::finding::Finding`]: the file's group, the JSON summary, the text report, the
//! figure, the sweep's scalars). The layers around it serve every kind the same way: the spec
//! validates a kind's table by calling its folder, the budget asks the validated
//! [`Settings`] for its memory, [`crate::run::execute`] runs it, the store writes its record,
//! the plot layer draws its figure, the CLI builds its command from [`KINDS`] and the flag
//! table, and a sweep keeps its scalars.
//!
//! Adding a kind: a folder beside `frequencies/` (its table type, `validate`, a [`Settings`] and
//! a [`crate::finding::Finding`]), its line in [`KINDS`] and its flags' lines in `cli/flags.rs`.
//! The spec reads and validates its table through the registry ([`Kind::read`],
//! [`Kind::validate`]), the CLI builds its command from it.
//!
//! Registered, every analysis kind: frequencies, poincare, orbits, animate, map and measure
//! (planar chain), simulate, modes and lyapunov (either model) and control (cart chain).
//! Animate's and measure's runs are their front ends' (animate's command checks the files it
//! writes, a measure spec computes or reuses its map file: [`crate::run::execute`] refuses
//! both); a map's command streams its tiles to disk, [`crate::run::execute`] holds them in
//! memory (its file in `store/map/`, its figure in `plot/map/`).

pub mod animate;
pub mod control;
mod error;
pub mod frequencies;
mod kind;
pub mod lyapunov;
pub mod manifolds;
pub mod map;
pub mod measure;
pub mod memory;
pub mod modes;
pub mod orbits;
pub mod poincare;
pub mod simulate;

pub use error::RunError;
pub use kind::{
    planar_chain, read_table, table_fields, table_of, typed_table, Executed, Found, Input, Kind,
    OwnContent, Registered, Same, Settings, SpecParts, Table, TableError, TableOf, Validation,
    EITHER_MODEL, PLANAR_ONLY,
};

/// Every registered kind.
pub const KINDS: &[Kind] = &[
    frequencies::KIND,
    poincare::KIND,
    orbits::KIND,
    simulate::KIND,
    modes::KIND,
    control::KIND,
    animate::KIND,
    lyapunov::KIND,
    map::KIND,
    measure::KIND,
    manifolds::KIND,
];

/// The registered kind called `name` (its spec table, command and result group).
pub fn named(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}
