//! Command-line front end: flags become a [`SpecFile`], which is validated into a [`Spec`]
//! before any work starts; then one library call does the work and the results are exported.
//!
//! Exit codes: 0 success, 2 bad input (one line naming the flag or field), 1 a failed run.

mod animate;
mod args;
mod bench;
mod bench_visual;
mod cart;
mod lyapunov;
mod map;
mod modes;
mod output;
mod poincare;
mod progress;
mod serve;
mod simulate;

use args::{Cli, Command, Common};
use pendula::spec::{self, Spec, SpecError, SpecFile};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A failure, sorted by who can fix it.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit code 2.
    Input(String),
    /// The run failed (blow-up, I/O, interrupted): exit code 1.
    Run(String),
}

impl From<SpecError> for CliError {
    fn from(e: SpecError) -> Self {
        CliError::Input(e.to_string())
    }
}

pub fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    // The matches are kept beside the parsed struct: a cart-chain run asks them which flags
    // the command line itself gave.
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // clap's message is several lines (usage, tips); keep the one that names the flag.
            let text = e.render().to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            eprintln!("{} (see --help)", line.trim());
            return ExitCode::from(2);
        }
    };
    let command_line = std::env::args().collect::<Vec<_>>().join(" ");
    let given = matches.subcommand();
    match dispatch(cli, given, &command_line) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Input(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        Err(CliError::Run(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
    }
}

/// Runs the parsed command; `given` holds its matches (which flags the command line gave).
fn dispatch(
    cli: Cli,
    given: Option<(&str, &clap::ArgMatches)>,
    command_line: &str,
) -> Result<(), CliError> {
    match cli.command {
        Command::Simulate(a) => {
            if let Some(mut f) = cart::detect(&a.spec, &a.model.model, "simulate")? {
                cart::refuse_planar_flags(given, &["spec", "model", "t_end", "dt_out"])?;
                let s = f.simulate.get_or_insert_with(Default::default);
                s.t_end = a.t_end.or(s.t_end);
                s.dt_out = a.dt_out.or(s.dt_out);
                return cart::run_file(&f, &a.common, command_line);
            }
            let (file, flags) = a.to_spec_file()?;
            let spec = validate(&file, &flags)?;
            execute(&spec, &a.common, command_line)
        }
        Command::Modes(a) => {
            if let Some(mut f) = cart::detect(&a.spec, &a.model.model, "modes")? {
                cart::refuse_planar_flags(given, &["spec", "model", "equilibria"])?;
                let m = f.modes.get_or_insert_with(Default::default);
                m.equilibria = a.equilibria.clone().or(m.equilibria.take());
                return cart::run_file(&f, &a.common, command_line);
            }
            let (file, flags) = a.to_spec_file()?;
            let spec = validate(&file, &flags)?;
            execute(&spec, &a.common, command_line)
        }
        Command::Lyapunov(a) => {
            if let Some(mut f) = cart::detect(&a.spec, &a.model.model, "lyapunov")? {
                cart::refuse_planar_flags(given, &["spec", "model", "tau", "transient", "time"])?;
                let l = f.lyapunov.get_or_insert_with(Default::default);
                l.tau = a.tau.or(l.tau);
                l.transient = a.transient.or(l.transient);
                l.time = a.time.or(l.time);
                return cart::run_file(&f, &a.common, command_line);
            }
            let (file, flags) = a.to_spec_file()?;
            let spec = validate(&file, &flags)?;
            execute(&spec, &a.common, command_line)
        }
        Command::Poincare(a) => {
            let (file, flags) = a.to_spec_file()?;
            let spec = validate(&file, &flags)?;
            execute(&spec, &a.common, command_line)
        }
        Command::Run(a) => {
            if let Ok(text) = std::fs::read_to_string(&a.spec) {
                if spec::cart::is_cart_chain(&text) {
                    let origin = a.spec.display().to_string();
                    return cart::run_text(&text, &origin, &a.common, command_line);
                }
            }
            let file = read_spec(&a.spec)?;
            let spec = validate(&file, &[])?;
            if matches!(spec.analysis, pendula::spec::Analysis::Map(_)) {
                return map::run_map(&spec, &a.common, &Default::default(), command_line);
            }
            execute(&spec, &a.common, command_line)
        }
        Command::Map(a) => map::map_command(&a, command_line),
        Command::Merge(a) => map::merge_command(&a, command_line),
        Command::Render(a) => map::render_command(&a),
        Command::Bench(a) => bench::bench_command(&a),
        Command::Animate(a) => {
            let (file, flags) = a.to_spec_file()?;
            let spec = validate(&file, &flags)?;
            execute(&spec, &a.common, command_line)
        }
        Command::Serve(a) => serve::serve_command(&a),
        Command::Control(a) => cart::control_command(&a, command_line),
    }
}

/// Sizes rayon's global pool for `--threads N` (all cores when absent). Called once, before any
/// work, so the pool cannot exist yet and `build_global` cannot fail.
pub fn set_threads(threads: Option<usize>) -> Result<(), CliError> {
    if let Some(n) = threads {
        if n == 0 {
            return Err(CliError::Input("--threads: must be >= 1 (got 0)".into()));
        }
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    Ok(())
}

/// Reads and parses a spec file; errors are bad input.
fn read_spec(path: &Path) -> Result<SpecFile, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("cannot read spec `{}`: {e}", path.display())))?;
    Ok(spec::parse(&text, &path.display().to_string())?)
}

/// Validates, naming the flag rather than the spec field when the value came from a flag.
fn validate(file: &SpecFile, flags: &[(&'static str, &'static str)]) -> Result<Spec, CliError> {
    file.validate().map_err(|e| {
        match flags
            .iter()
            .find(|(field, _)| e.field == *field || e.field.starts_with(&format!("{field}[")))
        {
            Some((_, flag)) => CliError::Input(format!("{flag}: {}", e.message)),
            None => CliError::Input(e.to_string()),
        }
    })
}

/// Output paths after flags override the spec's `[output]`.
pub struct Outputs {
    pub file: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

fn execute(spec: &Spec, common: &Common, command_line: &str) -> Result<(), CliError> {
    let outputs = Outputs {
        file: common.output.clone().or_else(|| spec.output.file.clone()),
        plot: common.plot.clone().or_else(|| spec.output.plot.clone()),
    };
    if let Some(p) = &outputs.plot {
        match p.extension().and_then(|e| e.to_str()) {
            Some("png") | Some("svg") => {}
            _ => {
                return Err(CliError::Input(format!(
                    "--plot: `{}` must end in .png or .svg",
                    p.display()
                )))
            }
        }
    }
    let prints_report = matches!(
        spec.analysis,
        pendula::spec::Analysis::Modes(_)
            | pendula::spec::Analysis::Lyapunov(_)
            | pendula::spec::Analysis::Poincare(_)
    );
    let animation = match &spec.analysis {
        pendula::spec::Analysis::Animate(o) => Some(o),
        _ => None,
    };
    let visual = !spec.figures.paths().is_empty()
        || animation.is_some_and(|o| o.gif.is_some() || o.frames.is_some());
    if outputs.file.is_none() && outputs.plot.is_none() && !common.json && !prints_report && !visual
    {
        return Err(CliError::Input(
            "nothing to write: give -o FILE.h5, --plot FILE.png|svg or --json (or [output] in the spec)".into(),
        ));
    }
    for (flag, p) in [("-o", &outputs.file), ("--plot", &outputs.plot)] {
        if let Some(p) = p {
            output::prepare_path(p, common.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    animate::prepare_figures(spec, common.force)?;
    if let Some(o) = animation {
        animate::prepare_animation(o, common.force)?;
    }
    set_threads(common.threads)?;
    output::run_analysis(spec, &outputs, common, command_line)
}
