//! Running the `pendula` binary from a test, safely beside tests that hold HDF5 files open.

use serde_json::Value;
use std::path::Path;

/// Held while this process has an HDF5 file open for writing and while it spawns a child: the
/// HDF5 library opens files without close-on-exec, so a child forked meanwhile (by a test on
/// another thread) would inherit the descriptor and its lock, and the binary could not open the
/// file it is given ("unable to lock file").
static SPAWN: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn spawn_guard() -> std::sync::MutexGuard<'static, ()> {
    SPAWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// `pendula ARGS` in `dir`: (exit code, stdout, stderr).
pub fn run(args: &[&str], dir: &Path) -> (i32, String, String) {
    let child = {
        let _g = spawn_guard();
        std::process::Command::new(assert_cmd::cargo::cargo_bin("pendula"))
            .current_dir(dir)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The one line `--json` prints.
pub fn json(stdout: &str) -> Value {
    assert_eq!(
        stdout.trim_end().lines().count(),
        1,
        "--json is one line: {stdout}"
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

/// `cmd.output()` (stdin closed, stdout and stderr captured) with the child spawned under
/// [`spawn_guard`]: for tests that build their own `Command`.
#[allow(dead_code)] // Not every test binary that includes this file builds its own commands.
pub fn output(cmd: &mut std::process::Command) -> std::process::Output {
    use std::process::Stdio;
    let child = {
        let _g = spawn_guard();
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    child.wait_with_output().unwrap()
}

/// `cmd.spawn()` under [`spawn_guard`].
#[allow(dead_code)] // As `output`.
pub fn spawn(cmd: &mut std::process::Command) -> std::process::Child {
    let _g = spawn_guard();
    cmd.spawn().unwrap()
}

/// `cmd.status()` with the child spawned under [`spawn_guard`].
#[allow(dead_code)] // As `output`.
pub fn status(cmd: &mut std::process::Command) -> std::process::ExitStatus {
    spawn(cmd).wait().unwrap()
}
