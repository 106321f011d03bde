//! Waiting until a spawned `pendula` is under way before a test signals it: its stop handler
//! installed and some CPU time spent, read from /proc. A condition with a deadline, never a
//! sleep: on a busy machine a fixed second may end before the process has even started its
//! run (and a signal then kills it outright) or long after.

use std::process::Child;
use std::time::{Duration, Instant};

/// How long a test waits for a start that takes milliseconds on an idle machine.
#[allow(dead_code)] // Not every test binary that includes this file uses every item.
pub const PATIENCE: Duration = Duration::from_secs(60);

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

/// The CPU time (user + system) `pid` has used, from /proc/PID/stat.
fn cpu_time(pid: u32) -> Duration {
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
    let end = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{what} ended ({status}) before it was under way");
        }
        let pid = child.id();
        if catches_stop_signals(pid) && cpu_time(pid) >= cpu {
            return;
        }
        assert!(
            Instant::now() < end,
            "{what} not under way within {PATIENCE:?} ({:?} of CPU)",
            cpu_time(pid)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}
