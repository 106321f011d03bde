//! The test-only fault hook of a map run (see [`abort_point`]).

/// The test-only fault hook: when the environment variable `PENDULA_TEST_ABORT_AT` names
/// `phase`, the process aborts here (no destructors, no clean-up: what `kill -9` leaves), so
/// the tests can check that every phase of a map run leaves a state `--resume` accepts. The
/// phases are `checkpoint` (staged, not yet in place), `tile` (the first tile stored),
/// `assembly` (the `.partial` half written), `assembled` (the file in place, the checkpoint
/// not yet touched) and `clean-up` (the checkpoint half removed). Not for users.
pub fn abort_point(phase: &str) {
    if abort_at() == Some(phase) {
        std::process::abort();
    }
}

/// The phase named by `PENDULA_TEST_ABORT_AT` (the only place that reads it; see [`abort_point`]).
pub(super) fn abort_at() -> Option<&'static str> {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    AT.get_or_init(|| std::env::var("PENDULA_TEST_ABORT_AT").ok())
        .as_deref()
}
