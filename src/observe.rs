//! Progress and cancellation: the analyses report to an observer the caller supplies (the CLI's
//! is an indicatif bar plus a signal flag), so the library itself never prints.
//!
//! An observer is called between output samples, intervals or tiles, which can be minutes apart
//! (one sample of a run with a tiny step). So an observer also hands out a [`Cancel`] token that
//! the integration loops poll every [`POLL_STEPS`] steps: a stop request then takes effect
//! within milliseconds, and the analysis returns what it has, marked incomplete.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether the analysis should go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// Stop early; the analysis returns what it has, marked incomplete.
    Stop,
}

/// Steps between two polls of a [`Cancel`] token inside an integration loop: an atomic load
/// every 1024 steps costs nothing measurable, and even a slow step (a long chain, ~10 µs) is
/// polled every ~10 ms.
pub const POLL_STEPS: u64 = 1024;

/// A stop request that integration loops poll (cheaply, every [`POLL_STEPS`] steps). Clones
/// share one flag; [`Cancel::never`] has none and is never set.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A token that can be set (by a signal handler, a GUI button, a test).
    pub fn new() -> Cancel {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }
    /// A token that is never set (the default).
    pub fn never() -> Cancel {
        Cancel(None)
    }
    /// Asks every loop polling this token (or a clone) to stop.
    pub fn set(&self) {
        if let Some(f) = &self.0 {
            f.store(true, Ordering::Relaxed);
        }
    }
    /// Whether a stop was asked for.
    #[inline]
    pub fn is_set(&self) -> bool {
        match &self.0 {
            Some(f) => f.load(Ordering::Relaxed),
            None => false,
        }
    }
    /// Whether a stop was asked for, polled only when `count` is a multiple of [`POLL_STEPS`]
    /// (a step counter of the calling loop).
    #[inline]
    pub fn poll(&self, count: u64) -> bool {
        count.is_multiple_of(POLL_STEPS) && self.is_set()
    }
}

/// Waits about `period` in a loop that polls work running on rayon's pool (an analysis's
/// observer loop between two progress reports).
///
/// A thread of the pool itself (an analysis nested in a sweep's point, which runs on the
/// sweep's pool) must not sleep there: the work it waits for is queued on the same pool, and
/// with every thread of it waiting (one thread, `--threads 1`, or as many points as threads)
/// nobody would run it, a deadlock at 0 % CPU. Such a thread runs a pending job of the pool
/// instead, and naps only briefly when there is none.
pub fn pause(period: std::time::Duration) {
    if rayon::current_thread_index().is_none() {
        std::thread::sleep(period);
        return;
    }
    if rayon::yield_now() != Some(rayon::Yield::Executed) {
        std::thread::sleep(period.min(std::time::Duration::from_millis(2)));
    }
}

/// The next message of `rx`, waiting about `period` at most: [`std::sync::mpsc::Receiver::recv_timeout`],
/// except that a thread of rayon's pool runs the pool's pending work while it waits
/// ([`pause`]), so a loop that waits for results computed on the pool cannot deadlock it.
pub fn recv_or_pause<T>(
    rx: &std::sync::mpsc::Receiver<T>,
    period: std::time::Duration,
) -> Result<T, std::sync::mpsc::RecvTimeoutError> {
    use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
    if rayon::current_thread_index().is_none() {
        return rx.recv_timeout(period);
    }
    match rx.try_recv() {
        Ok(t) => Ok(t),
        Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
        Err(TryRecvError::Empty) => {
            pause(period);
            Err(RecvTimeoutError::Timeout)
        }
    }
}

/// Receives progress in work units (samples, steps, pixels) of a known total.
pub trait Observer {
    fn start(&mut self, _total: u64, _unit: &'static str) {}
    /// `done` units are finished so far.
    fn advance(&mut self, done: u64) -> Control;
    fn finish(&mut self) {}
    /// The token the analysis's integration loops poll between observer calls. Setting it must
    /// also make [`Observer::advance`] return [`Control::Stop`]. Default: never set, so an
    /// observer without one stops at its own calls only.
    fn cancel(&self) -> Cancel {
        Cancel::never()
    }
}

/// Observes nothing, never stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn advance(&mut self, _done: u64) -> Control {
        Control::Continue
    }
}

/// Never stops at its calls but stops through its token: for tests of the loops' polling, and
/// for a caller that only wants to cancel (from another thread, with a clone of the token).
#[derive(Debug, Clone, Default)]
pub struct Cancellable(pub Cancel);

impl Observer for Cancellable {
    fn advance(&mut self, _done: u64) -> Control {
        if self.0.is_set() {
            Control::Stop
        } else {
            Control::Continue
        }
    }
    fn cancel(&self) -> Cancel {
        self.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let c = Cancel::new();
        let d = c.clone();
        assert!(!d.is_set());
        c.set();
        assert!(d.is_set());
        assert!(d.poll(0) && d.poll(POLL_STEPS) && !d.poll(1));
        let n = Cancel::never();
        n.set();
        assert!(!n.is_set());
        let mut o = Cancellable(Cancel::new());
        assert_eq!(o.advance(1), Control::Continue);
        o.cancel().set();
        assert_eq!(o.advance(1), Control::Stop);
    }
}
