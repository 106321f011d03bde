//! Fields under their old names. A spec that still uses one gets a one-line error naming the
//! new name (with the file's line and column), never a silent alias.

use serde::de::{Deserializer, Error};
use serde::{Deserialize, Serialize};

/// A field that was renamed: it can only be absent. Serialized never (skipped when `None`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Retired;

/// Declares `fn $name` that refuses the old field with `$message`.
macro_rules! retired {
    ($($name:ident => $message:literal;)*) => {
        $(
            pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Retired>, D::Error> {
                // Consume the value so the error points at it.
                let _ = toml::Value::deserialize(d)?;
                Err(D::Error::custom($message))
            }
        )*
    };
}

retired! {
    lyapunov_time => "`time` was renamed: give `t_end`, the end of the run (= transient + averaging time)";
    t_max_is_t_end => "`t_max` was renamed to `t_end` (the end of a run has one name in every spec and flag)";
    map_dt => "`map.dt` moved to `[integrator] dt` (the fixed step has one name everywhere)";
    energy_plot => "`figures.energy` was renamed to `energy_plot` (as --energy-plot)";
    map_size => "`width`/`height` were renamed: give `resolution = W` or `resolution = [W, H]` (as --resolution)";
}
