//! Waiting until a spawned `pendula` is under way before a test signals it (its stop handler
//! installed and some CPU time spent, read from /proc), and until it has stopped after the
//! signal, bounding the CPU time it spends getting there. Conditions with deadlines, never a
//! sleep or a wall-clock bound on work: on a busy machine a fixed second may end before the
//! process has even started its run (a signal then kills it outright), and a stop that takes
//! 0.3 s of CPU may take 3 s of wall time.

use std::process::Child;
use std::time::{Duration, Instant};

/// How long a test waits for a start that takes milliseconds on an idle machine.
#[allow(dead_code)] // Not every test binary that includes this file uses every item.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Every wait of the tests: polls `step` every 2 ms until it gives a value, and panics naming
/// `what` once `patience` has passed. A condition with a deadline, never a fixed sleep standing in
/// for one: a busy machine only makes the wait longer.
#[allow(dead_code)]
pub fn poll<T>(what: &str, patience: Duration, mut step: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + patience;
    loop {
        if let Some(v) = step() {
            return v;
        }
        assert!(Instant::now() < end, "{what}: not within {patience:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// [`poll`] on a running `child`, which is killed (not left running) when the wait fails or
/// `step` panics.
#[allow(dead_code)]
pub fn poll_child<T>(
    child: &mut Child,
    what: &str,
    patience: Duration,
    mut step: impl FnMut(&mut Child) -> Option<T>,
) -> T {
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        poll(what, patience, || step(child))
    }));
    match waited {
        Ok(v) => v,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            std::panic::resume_unwind(e)
        }
    }
}

/// Clock ticks per second of /proc/PID/stat's CPU times (USER_HZ: 100 on Linux).
const TICKS: f64 = 100.0;

/// Whether `pid` catches SIGINT and SIGTERM, from the `SigCgt` mask of /proc/PID/status.
fn catches_stop_signals(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .unwrap_or(0);
    let bit = |signal: u32| mask & (1 << (signal - 1)) != 0;
    bit(2) && bit(15)
}

/// The CPU time (user + system) `pid` has used, from /proc/PID/stat (zero once it is gone).
#[allow(dead_code)]
pub fn cpu_time(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Duration::from_secs_f64((ticks(11) + ticks(12)) / TICKS)
}

/// Waits until `child` catches the stop signals and has used `cpu` of CPU time (its run is
/// under way, however busy the machine), polling every few milliseconds. Panics, naming
/// `what`, if it exits first or is not there within [`PATIENCE`].
#[allow(dead_code)]
pub fn wait_running(child: &mut Child, cpu: Duration, what: &str) {
    let pid = child.id();
    // poll_child: a run that never gets under way is killed, not left running.
    poll_child(child, &format!("{what} under way"), PATIENCE, |child| {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{what} ended ({status}) before it was under way");
        }
        (catches_stop_signals(pid) && cpu_time(pid) >= cpu).then_some(())
    })
}

/// Waits for `child` to exit after a stop signal, sent when it had used `cpu_at_signal` of CPU
/// time; returns its status and the CPU time it spent after the signal. Panics, killing it,
/// once that exceeds `cpu_limit` (it is still working, not stopping) or after [`PATIENCE`] of
/// wall time (it waits on something instead of stopping).
#[allow(dead_code)]
pub fn wait_stopped(
    child: &mut Child,
    cpu_at_signal: Duration,
    cpu_limit: Duration,
    what: &str,
) -> (std::process::ExitStatus, Duration) {
    let pid = child.id();
    let mut spent = Duration::ZERO;
    let what = format!("{what} stopped after the stop signal");
    poll_child(child, &what, PATIENCE, |child| {
        if let Some(status) = child.try_wait().unwrap() {
            return Some((status, spent));
        }
        spent = spent.max(cpu_time(pid).saturating_sub(cpu_at_signal));
        assert!(
            spent <= cpu_limit,
            "{what}: still running after {spent:?} of CPU"
        );
        None
    })
}
