//! Two runs writing the same output: the lock on `PATH.partial` is taken before the file is
//! created or truncated, so the run that holds it finishes with a complete file and the other
//! fails naming the lock, touching nothing (issue 48: the loser used to truncate the winner's
//! `.partial` before failing HDF5's own lock, and the winner reported a file whose datasets
//! could not be read).

#[path = "common/running.rs"]
mod running;
#[path = "common/spawn.rs"]
#[allow(dead_code)] // Its `run` and `json` are for other tests.
mod spawn;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn pendula(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("pendula"));
    c.current_dir(dir).args(args);
    c
}

/// Opens `file` and reads every dataset of every group in full (as f64, which every numeric
/// dataset of a result file converts to), returning how many values were read.
fn read_everything(file: &Path) -> usize {
    fn walk(g: &hdf5::Group, n: &mut usize) {
        for ds in g.datasets().unwrap() {
            let v: Vec<f64> = ds
                .read_raw()
                .unwrap_or_else(|e| panic!("dataset {}: {e}", ds.name()));
            assert_eq!(v.len(), ds.size(), "dataset {}", ds.name());
            *n += v.len();
        }
        for sub in g.groups().unwrap() {
            walk(&sub, n);
        }
    }
    let _g = spawn::spawn_guard();
    let f = hdf5::File::open(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut n = 0;
    walk(&f.group("/").unwrap(), &mut n);
    n
}

const FAST: &[&str] = &[
    "simulate", "--preset", "double", "--theta", "2,2", "--t-end", "2", "--dt-out", "0.01", "-o",
    "same.h5",
];

/// Deterministic: the test holds the lock (as a run writing `same.h5` would). The second run
/// fails with exit 1 naming the lock, leaves the held `.partial` byte for byte as it was and
/// writes no `same.h5`; once the lock is released the same command succeeds.
#[test]
fn a_run_fails_on_a_held_lock_and_leaves_the_partial_alone() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("same.h5.partial");
    let content = b"the first run's data, being written";
    std::fs::write(&partial, content).unwrap();
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&partial)
        .unwrap();
    held.lock().unwrap();
    let out = spawn::output(&mut pendula(dir.path(), FAST));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("lock") && stderr.contains("same.h5.partial"),
        "names the lock: {stderr}"
    );
    assert_eq!(std::fs::read(&partial).unwrap(), content, "untouched");
    assert!(!dir.path().join("same.h5").exists());
    drop(held);
    std::fs::remove_file(&partial).unwrap();
    let out = spawn::output(&mut pendula(dir.path(), FAST));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(read_everything(&dir.path().join("same.h5")) > 0);
}

fn signal(child: &std::process::Child, sig: &str) {
    assert!(Command::new("kill")
        .args([&format!("-{sig}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

/// Two processes: the first is stopped (SIGSTOP) as soon as its `.partial` exists, i.e. while
/// it writes; the second, started then, fails naming the lock; the first, continued, exits 0
/// and every dataset of its file reads back.
#[test]
fn of_two_concurrent_writers_exactly_one_succeeds_with_a_complete_file() {
    let dir = tempfile::tempdir().unwrap();
    // 10⁶ samples: the write lasts long enough (about a second) to be caught in it.
    let winner_args = [
        "simulate", "--preset", "double", "--theta", "2,2", "--t-end", "10000", "--dt-out", "0.01",
        "-o", "same.h5",
    ];
    let mut winner = spawn::spawn(
        pendula(dir.path(), &winner_args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let partial = dir.path().join("same.h5.partial");
    running::poll_child(
        &mut winner,
        "the first run's .partial",
        Duration::from_secs(300),
        |c| {
            assert!(
                c.try_wait().unwrap().is_none(),
                "the first run ended before it was seen writing"
            );
            partial.exists().then_some(())
        },
    );
    signal(&winner, "STOP");
    assert!(
        !dir.path().join("same.h5").exists(),
        "the first run was stopped while writing"
    );
    let loser = spawn::output(&mut pendula(dir.path(), FAST));
    signal(&winner, "CONT");
    let loser_err = String::from_utf8_lossy(&loser.stderr);
    assert_eq!(loser.status.code(), Some(1), "{loser_err}");
    assert!(loser_err.contains("lock"), "names the lock: {loser_err}");
    let status = winner.wait().unwrap();
    let mut winner_err = String::new();
    std::io::Read::read_to_string(winner.stderr.as_mut().unwrap(), &mut winner_err).unwrap();
    assert!(status.success(), "{winner_err}");
    assert!(!partial.exists());
    // 10⁶ + 1 samples of time, energy, work and two links' angles and speeds, at least.
    assert!(read_everything(&dir.path().join("same.h5")) > 6 * 1_000_000);
}
