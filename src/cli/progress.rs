//! The CLI's observer: an indicatif bar on stderr (by default only when stderr is a terminal;
//! `--progress always|never`) and Ctrl-C, which asks the running analysis to stop and keep
//! what it has.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pendula::observe::{Control, Observer};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static MODE: AtomicU8 = AtomicU8::new(Mode::Auto as u8);

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

/// Installs the Ctrl-C handler once: the first Ctrl-C asks for a clean stop, a second one exits.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

pub struct Bar {
    bar: Option<ProgressBar>,
    message: String,
}

impl Bar {
    pub fn new(message: &str) -> Bar {
        install_interrupt_handler();
        Bar {
            bar: None,
            message: message.to_string(),
        }
    }
}

impl Observer for Bar {
    fn start(&mut self, total: u64, unit: &'static str) {
        let Some(target) = target() else {
            return;
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        let template =
            format!("{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{per_sec}}, ETA {{eta}})");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(self.message.clone());
        bar.enable_steady_tick(Duration::from_millis(200));
        self.bar = Some(bar);
    }

    fn advance(&mut self, done: u64) -> Control {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
        if interrupted() {
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
}
