//! The Python readers (h5py, and xarray over h5netcdf) that open our HDF5 files in
//! `tests/python/check_h5.py`.
//!
//! `build.rs` looks for them and sets `cfg(have_python_readers)`; a test that needs them carries
//! `#[cfg_attr(not(have_python_readers), ignore = "…")]`, so `cargo test` reports it as
//! ignored, with the reason, where they are missing (and `PENDULA_REQUIRE_PYTHON=1` turns that
//! into a build error, for CI).

use std::path::Path;
use std::process::Command;

/// The interpreter build.rs found the readers in (`$PYTHON` or `python3` on the PATH).
pub fn python() -> &'static str {
    option_env!("PENDULA_PYTHON").unwrap_or("python3")
}

/// Runs `check_h5.py FILE GROUP` and panics with its output unless it reports OK; returns its
/// stdout (the xarray repr of the group).
pub fn check_h5(file: &Path, group: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/check_h5.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(file)
        .arg(group)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("check_h5.py: OK"),
        "check_h5.py {} {group} failed:\n{stdout}\n{stderr}",
        file.display()
    );
    stdout
}
