//! The CLI's observer: an indicatif bar on stderr (by default only when stderr is a terminal;
//! `--progress always|never`) and the stop signals. SIGINT (Ctrl-C), SIGTERM (a scheduler's
//! preemption) and SIGHUP (a closed terminal; it stays ignored under `nohup`) ask the running
//! analysis to stop and keep what it has: they set the library's [`Cancel`] token, which the
//! integration loops poll every few thousand steps, so a run stops within milliseconds, writes
//! its partial result (marked incomplete) and exits 1. A second signal exits at once (130).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pendula::observe::{Cancel, Control, Observer};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

static MODE: AtomicU8 = AtomicU8::new(Mode::Auto as u8);

/// The token the signal handler sets (created with the handler).
static STOP: OnceLock<Cancel> = OnceLock::new();

/// When the progress bar is drawn (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// When stderr is a terminal.
    Auto,
    /// Always (a log file of a batch job gets the bar's lines).
    Always,
    /// Never.
    Never,
}

/// Sets the mode for every bar of this run (from `--progress`).
pub fn set_mode(mode: Mode) {
    MODE.store(mode as u8, Ordering::SeqCst);
}

/// Where the bar draws, or `None` when it is not drawn.
fn target() -> Option<ProgressDrawTarget> {
    match MODE.load(Ordering::SeqCst) {
        m if m == Mode::Never as u8 => None,
        m if m == Mode::Always as u8 => Some(ProgressDrawTarget::term_like(Box::new(
            console::Term::stderr(),
        ))),
        _ if std::io::stderr().is_terminal() => Some(ProgressDrawTarget::stderr()),
        _ => None,
    }
}

/// Installs the signal handler once and returns the token it sets: the first SIGINT / SIGTERM /
/// SIGHUP asks for a clean stop, a second one exits at once.
pub fn install_interrupt_handler() -> Cancel {
    STOP.get_or_init(|| {
        let token = Cancel::new();
        let set = token.clone();
        let nohup = sighup_ignored();
        let _ = ctrlc::set_handler(move || {
            if set.is_set() {
                std::process::exit(130);
            }
            set.set();
        });
        if nohup {
            // Started under `nohup`: a closed terminal must not stop the run.
            ignore_sighup();
        }
        // A stop during the final file write ends the write too (the unfinished file removed).
        pendula::store::stop_writes_with(token.clone());
        token
    })
    .clone()
}

/// Whether SIGHUP is ignored (`nohup`).
#[cfg(unix)]
fn sighup_ignored() -> bool {
    // SAFETY: queries the disposition only (null new action) into a zeroed sigaction.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGHUP, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(unix)]
fn ignore_sighup() {
    // SAFETY: sets the disposition of SIGHUP back to "ignore", as it was at start.
    unsafe {
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
}

#[cfg(not(unix))]
fn sighup_ignored() -> bool {
    false
}

#[cfg(not(unix))]
fn ignore_sighup() {}

pub struct Bar {
    bar: Option<ProgressBar>,
    message: String,
    cancel: Cancel,
}

impl Bar {
    pub fn new(message: &str) -> Bar {
        Bar {
            bar: None,
            message: message.to_string(),
            cancel: install_interrupt_handler(),
        }
    }
}

/// Width of the bar itself; with the widest message ("integrate"), unit ("intervals") and
/// counts the line stays within 80 columns (tested below).
const BAR_WIDTH: usize = 20;

/// The bar's style for `unit`: `MSG [====>    ] 1.2e6/2.0e6, 3.5e5 intervals/s, ETA 4m05s`.
fn style(unit: &'static str) -> Option<ProgressStyle> {
    let template = format!("{{msg}} [{{bar:{BAR_WIDTH}}}] {{counts}}, {{rate}}, ETA {{left}}");
    let style = ProgressStyle::with_template(&template).ok()?;
    Some(
        style
            .progress_chars("=> ")
            .with_key(
                "counts",
                |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}", counts_text(s.pos(), s.len()));
                },
            )
            .with_key(
                "rate",
                move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}", rate_text(s.per_sec(), unit));
                },
            )
            .with_key("left", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}", eta_text(s.pos(), s.len(), s.per_sec()));
            }),
    )
}

/// A count in at most 6 columns: exact below 10⁵ (`64`, `12000`), else 2 significant digits
/// (`3.5e5`).
pub fn count_text(n: u64) -> String {
    if n < 100_000 {
        n.to_string()
    } else {
        format!("{:.1e}", n as f64)
    }
}

/// `done/total` (`12/64`, `1.2e6/2.0e6`).
fn counts_text(done: u64, total: Option<u64>) -> String {
    match total {
        Some(t) => format!("{}/{}", count_text(done), count_text(t)),
        None => count_text(done),
    }
}

/// A rate with its unit in human form: `3.5e5 steps/s`, `420 samples/s`, `2.5 tiles/s`,
/// `0.04 tiles/s`; `- unit/s` before there is one.
pub fn rate_text(per_sec: f64, unit: &str) -> String {
    let r = per_sec;
    let v = if !(r.is_finite() && r > 0.0) {
        "-".to_string()
    } else if r >= 1e4 {
        format!("{r:.1e}")
    } else if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 10.0 {
        format!("{r:.1}")
    } else if r >= 0.01 {
        format!("{r:.2}")
    } else {
        format!("{r:.0e}")
    };
    format!("{v} {unit}/s")
}

/// Time left at the current rate, in at most 6 columns: `12s`, `4m05s`, `3h20m`, `12d`, or `?`
/// (no rate yet, or more than 99 days).
pub fn eta_text(done: u64, total: Option<u64>, per_sec: f64) -> String {
    let Some(total) = total else {
        return "?".into();
    };
    let left = total.saturating_sub(done) as f64;
    if left == 0.0 {
        return "0s".into();
    }
    if !(per_sec.is_finite() && per_sec > 0.0) {
        return "?".into();
    }
    let s = (left / per_sec).ceil();
    if s >= 100.0 * 86400.0 {
        return "?".into();
    }
    let s = s as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..86400 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d", s / 86400),
    }
}

impl Observer for Bar {
    fn start(&mut self, total: u64, unit: &'static str) {
        let Some(target) = target() else {
            return;
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        if let Some(style) = style(unit) {
            bar.set_style(style);
        }
        bar.set_message(self.message.clone());
        bar.enable_steady_tick(Duration::from_millis(200));
        self.bar = Some(bar);
    }

    fn advance(&mut self, done: u64) -> Control {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
        if self.cancel.is_set() {
            Control::Stop
        } else {
            Control::Continue
        }
    }

    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }

    fn cancel(&self) -> Cancel {
        self.cancel.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn rates_in_human_units() {
        assert_eq!(rate_text(346_739.448_3, "steps"), "3.5e5 steps/s");
        assert_eq!(rate_text(2.0e9, "pixels"), "2.0e9 pixels/s");
        assert_eq!(rate_text(420.4, "samples"), "420 samples/s");
        assert_eq!(rate_text(12.34, "frames"), "12.3 frames/s");
        assert_eq!(rate_text(2.5, "tiles"), "2.50 tiles/s");
        assert_eq!(rate_text(0.0012, "tiles"), "1e-3 tiles/s");
        assert_eq!(rate_text(0.0, "tiles"), "- tiles/s");
        assert_eq!(rate_text(f64::NAN, "tiles"), "- tiles/s");
        assert_eq!(count_text(64), "64");
        assert_eq!(count_text(99_999), "99999");
        assert_eq!(count_text(1_234_567), "1.2e6");
        assert_eq!(counts_text(12, Some(64)), "12/64");
        assert_eq!(eta_text(0, Some(100), 10.0), "10s");
        assert_eq!(eta_text(0, Some(245), 1.0), "4m05s");
        assert_eq!(eta_text(0, Some(12_000), 1.0), "3h20m");
        assert_eq!(eta_text(0, Some(10), 0.0), "?");
        assert_eq!(eta_text(10, Some(10), 0.0), "0s");
        assert_eq!(eta_text(0, Some(u64::MAX), 1e-3), "?");
    }

    /// A terminal that records the lines the bar draws.
    #[derive(Debug, Default, Clone)]
    struct Capture(Arc<Mutex<Vec<String>>>);

    impl indicatif::TermLike for Capture {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push(s.to_string());
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.write_line(s)
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The widest message and unit the commands use, with the widest counts, draw within 80
    /// columns (on a terminal wider than that, so nothing is cut for us).
    #[test]
    fn widest_line_fits_80_columns() {
        let term = Capture::default();
        let bar = ProgressBar::with_draw_target(
            Some(12_345_678_901),
            ProgressDrawTarget::term_like(Box::new(term.clone())),
        );
        bar.set_style(style("intervals").unwrap());
        bar.set_message("integrate");
        bar.set_position(1_234_567_890);
        std::thread::sleep(Duration::from_millis(30));
        bar.set_position(2_345_678_901);
        bar.tick();
        let lines = term.0.lock().unwrap().clone();
        let line = lines
            .iter()
            .rev()
            .find(|l| l.contains("intervals/s"))
            .expect("the bar drew a line");
        let width = console::measure_text_width(line);
        assert!(width <= 80, "{width} columns: {line}");
        assert!(line.starts_with("integrate ["), "{line}");
        assert!(line.contains("] 2.3e9/1.2e10, "), "{line}");
        assert!(line.contains("ETA "), "{line}");
    }
}
