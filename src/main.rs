//! The `pendula` command: parse → validate → run → export. All work is library calls.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
