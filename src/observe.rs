//! Progress and cancellation: the analyses report to an observer the caller supplies (the CLI's
//! is an indicatif bar plus a Ctrl-C flag), so the library itself never prints.

/// Whether the analysis should go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// Stop early; the analysis returns what it has, marked incomplete.
    Stop,
}

/// Receives progress in work units (samples, steps, pixels) of a known total.
pub trait Observer {
    fn start(&mut self, _total: u64, _unit: &'static str) {}
    /// `done` units are finished so far.
    fn advance(&mut self, done: u64) -> Control;
    fn finish(&mut self) {}
}

/// Observes nothing, never stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn advance(&mut self, _done: u64) -> Control {
        Control::Continue
    }
}
