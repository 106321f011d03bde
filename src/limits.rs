//! The hard limits of a run, in one place below every layer that checks them: the memory
//! budget of this machine, the most steps of one trajectory, the most links of a model, the
//! largest map and the largest map held whole in memory.

use crate::error::FieldError;

/// The memory a run may use, in bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub bytes: f64,
}

/// The share of the machine's memory a run may plan to use by default: half, so that the
/// machine stays usable and the estimates' slack does not push it into swap.
pub const MACHINE_FRACTION: f64 = 0.5;

/// The budget when /proc/meminfo cannot be read (not Linux): 8 GiB.
pub const FALLBACK_BUDGET: f64 = 8.0 * GIB;

/// Most steps one trajectory may take: 1e12 fixed steps are a day of one core at ~10⁷ steps/s
/// for a small chain, beyond any sensible run; a step too small to advance t in binary64
/// (dt < t·1.1e-16) always lands far above it.
pub const MAX_STEPS: f64 = 1e12;

/// Most links any model may have, whatever the budget: beyond it the per-link tables alone
/// (hundreds of bytes a link) are gigabytes before the analysis starts.
pub const MAX_LINKS: usize = 100_000_000;

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Largest map edge a spec accepts (`map.resolution`; the CLI asks for --force well below
/// this): `pendula map` streams its tiles to disk, so only the file's size bounds it.
pub const MAP_MAX_EDGE: usize = 65_536;

/// Above this many pixels (or [`LARGE_EDGE`]) a map held whole in memory (the library's and
/// the Python package's in-memory map, a sweep's points) is refused; `pendula map` streams
/// its tiles to disk and has no such limit.
pub const LARGE_PIXELS: usize = 1 << 26;
/// Above this edge (pixels) an in-memory map is refused.
pub const LARGE_EDGE: usize = 16_384;

/// A `width` × `height` in-memory map above [`LARGE_PIXELS`] or [`LARGE_EDGE`], refused naming
/// `map.resolution`; the caller says where to run it instead.
pub fn check_in_memory_map(width: usize, height: usize) -> Result<(), FieldError> {
    if width * height > LARGE_PIXELS || width.max(height) > LARGE_EDGE {
        return Err(FieldError::new(
            "map.resolution",
            format!(
                "{width}x{height} is {:.2e} pixels, above {LARGE_PIXELS} (or an edge above {LARGE_EDGE}) for a map held in memory",
                (width * height) as f64
            ),
        ));
    }
    Ok(())
}

/// The memory budget as a message names it among its fields ([`crate::error::FieldError::name`]):
/// each front end spells it, the CLI as its flag `--max-memory`, Python as what it is there
/// (half of this machine's memory), so that no front end rewrites another's text.
pub const MEMORY_BUDGET: &str = "max_memory";

impl Budget {
    /// [`MACHINE_FRACTION`] of MemTotal in /proc/meminfo, else [`FALLBACK_BUDGET`].
    pub fn machine() -> Budget {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| {
                let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
                Some(kb * 1024.0)
            })
            .filter(|b| b.is_finite() && *b > 0.0);
        Budget {
            bytes: total.map_or(FALLBACK_BUDGET, |t| t * MACHINE_FRACTION),
        }
    }

    /// Parses `64G`, `512M`, `1.5T`, `12GB`, `800MiB` or a plain byte count (binary units:
    /// G = 2³⁰ bytes). The error says what was expected.
    pub fn parse(text: &str) -> Result<Budget, String> {
        let t = text.trim();
        let digits = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
            .unwrap_or(t.len());
        // `1e9` is a number; `5E` alone is not a unit, so let the number parser decide.
        let (num, unit) = t.split_at(digits);
        let scale = match unit.trim().to_ascii_uppercase().as_str() {
            "" | "B" => 1.0,
            "K" | "KB" | "KIB" => 1024.0,
            "M" | "MB" | "MIB" => 1024.0 * 1024.0,
            "G" | "GB" | "GIB" => GIB,
            "T" | "TB" | "TIB" => 1024.0 * GIB,
            _ => f64::NAN,
        };
        let bad = || format!("expected a size such as 64G, 512M or 2T (got `{text}`)");
        let v: f64 = num.parse().map_err(|_| bad())?;
        let bytes = v * scale;
        if !(bytes.is_finite() && bytes >= 1.0) {
            return Err(bad());
        }
        Ok(Budget { bytes })
    }
}

/// A byte count for messages: `8.0 TB`, `12 GB`, `640 MB` (binary multiples, short names).
pub fn format_bytes(b: f64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if !v.is_finite() {
        return "more than 1 EB".into();
    }
    if v >= 10.0 || u == 0 {
        format!("{v:.0} {}", units[u])
    } else {
        format!("{v:.1} {}", units[u])
    }
}
