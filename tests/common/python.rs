//! The Python readers (h5py, and xarray over h5netcdf) that open our HDF5 files in
//! `tests/python/check_h5.py`.
//!
//! Probed when the tests run, once per test binary, not when the crate builds: a probe in
//! `build.rs` had to watch `PATH` and Python's package directories, so activating a virtual
//! environment or a `pip install` recompiled the whole crate. A test that needs the readers
//! starts with `if !python::readers_available() { return; }`: where they are missing it says
//! why on stderr and passes, and with `PENDULA_REQUIRE_PYTHON=1` (CI) it fails instead.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The interpreter with the readers (`$PYTHON`, default `python3`), or why there is none.
fn probe() -> &'static Result<String, String> {
    static PROBE: OnceLock<Result<String, String>> = OnceLock::new();
    PROBE.get_or_init(|| {
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        let script = "import sys, h5py, xarray, h5netcdf; print(sys.executable)";
        match Command::new(&python).args(["-c", script]).output() {
            Err(e) => Err(format!("cannot run `{python}` ({e})")),
            Ok(o) if !o.status.success() => Err(format!(
                "`{python}` lacks them: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or_default()
            )),
            Ok(_) => Ok(python),
        }
    })
}

/// Whether a test that needs the readers can run. Where they are missing: false, after saying
/// so on stderr, or a panic under `PENDULA_REQUIRE_PYTHON=1`.
pub fn readers_available() -> bool {
    match probe() {
        Ok(_) => true,
        Err(why) => {
            let hint =
                "pip install h5py xarray h5netcdf (or set PYTHON to an interpreter that has them)";
            if std::env::var("PENDULA_REQUIRE_PYTHON").is_ok_and(|v| v == "1") {
                panic!(
                    "PENDULA_REQUIRE_PYTHON=1 but the Python readers are missing: {why}; {hint}"
                );
            }
            eprintln!("skipped: the Python readers are missing: {why}; {hint}");
            false
        }
    }
}

/// The interpreter the readers were found in.
pub fn python() -> &'static str {
    match probe() {
        Ok(p) => p,
        Err(_) => "python3",
    }
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
