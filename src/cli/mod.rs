//! Command-line front end: a straight pipeline. The command line (flags declared once, in
//! [`flags`]) is laid over the spec it starts from, the spec is validated once, the analysis
//! runs (one module per kind), and its results are exported.
//!
//! Exit codes: 0 success, 2 bad input (one line naming the flag or field), 1 a failed run.

mod animate;
mod bench;
mod bench_visual;
mod flags;
mod map;
mod measure;
mod output;
mod progress;
mod serve;
mod sweep;

use clap::{ArgMatches, Args, Command, FromArgMatches};
use output::{set_threads, CliError, Common, Outputs, Run};
use pendula::spec::{self, Spec, SpecFile};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn main() -> ExitCode {
    let matches = match cli().try_get_matches() {
        Ok(m) => m,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // clap's message is several lines (usage, tips); keep its first paragraph, which
            // names the flag or the missing arguments, on one line.
            let text = e.render().to_string();
            let first: Vec<&str> = text
                .lines()
                .skip_while(|l| l.trim().is_empty())
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                .collect();
            let line = one_line(&first.join(" "));
            let line = if line.is_empty() {
                "error: invalid arguments".to_string()
            } else {
                line
            };
            eprintln!("{line}{} (see --help)", suggestion(&e));
            return ExitCode::from(2);
        }
    };
    let command_line = std::env::args().collect::<Vec<_>>().join(" ");
    match dispatch(&matches, &command_line) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Input(m)) => {
            eprintln!("error: {}", one_line(&m));
            ExitCode::from(2)
        }
        Err(CliError::Field(e)) => {
            eprintln!("error: {}", one_line(&e.render(&flags::spell)));
            ExitCode::from(2)
        }
        Err(CliError::Run(m)) => {
            eprintln!("error: {}", one_line(&m));
            ExitCode::from(1)
        }
    }
}

/// An error as one line: whitespace runs (an HDF5 message's newlines) become one space, and
/// other control characters are escaped (`\u{1b}`), so an echoed value cannot move the cursor,
/// colour the terminal or forge a second line in a log.
/// clap's "did you mean" for a mistyped flag, subcommand or value (its tip paragraph, which
/// the one-line message drops), as `; did you mean '--t-end'?`, or nothing.
fn suggestion(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let kinds = [
        ContextKind::SuggestedArg,
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedValue,
    ];
    let found: Vec<String> = kinds
        .iter()
        .filter_map(|k| e.get(*k))
        .flat_map(|v| match v {
            ContextValue::String(s) => vec![s.clone()],
            ContextValue::Strings(s) => s.clone(),
            _ => vec![],
        })
        .map(|s| format!("'{}'", one_line(&s)))
        .collect();
    if found.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", found.join(" or "))
    }
}

fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// What `run --help` says after the flags.
const RUN_HELP: &str = "\
--resume, --shard and --dry-run apply to a map spec as to `pendula map` (see `pendula map --help`):
an interrupted map spec resumes with `pendula run SPEC.toml --resume`. A measure spec always
resumes the map it computes (--resume is accepted and changes nothing); other kinds refuse them.";

/// The whole command tree: spec commands from the flag table, the others from their derives.
fn cli() -> Command {
    let mut cmd = Command::new("pendula")
        .version(env!("CARGO_PKG_VERSION"))
        .about(
            "Chaos in pendulum chains: trajectories, Lyapunov spectra, sections, modes, fractals",
        )
        .subcommand_required(true)
        // No auto `help` subcommand: `pendula help --help` failed; `--help` serves every level.
        .disable_help_subcommand(true)
        .arg_required_else_help(true);
    // The commands that run a spec: every registered kind's ([`pendula::kinds::KINDS`]),
    // listed in the order of [`pendula::spec::kinds`]; `measure`'s command is its own (it
    // measures map files; its spec runs with `run`).
    let mut commands: Vec<_> = pendula::kinds::KINDS
        .iter()
        .filter(|k| k.name != "measure")
        .map(|k| (k.name, k.about))
        .collect();
    let order = pendula::spec::kinds();
    commands.sort_by_key(|(name, _)| order.iter().position(|k| k == name));
    for (name, about) in commands {
        let mut sub = Command::new(name)
            .allow_negative_numbers(true)
            .arg(
                clap::Arg::new("spec")
                    .long("spec")
                    .value_name("SPEC.toml")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(format!(
                        "Start from this analysis spec (kind = \"{name}\"); the flags override it"
                    )),
            )
            .arg(
                clap::Arg::new("model")
                    .long("model")
                    .value_name("MODEL.toml")
                    .value_parser(clap::value_parser!(PathBuf))
                    .conflicts_with("preset")
                    .help("Read the model from this TOML file (the fields of a spec's [model])"),
            )
            .args(flags::args_for(name));
        if name == "map" {
            sub = map::RunFlags::augment_args(sub);
        }
        if name == "orbits" {
            sub = sub.arg(
                clap::Arg::new("action")
                    .index(1)
                    .value_name("ACTION")
                    .value_parser(pendula::kinds::orbits::OrbitsAction::NAMES)
                    .help("find (default): one orbit; continue: its branch in --parameter; diagram: the orbit diagram in --parameter; curve: its bifurcations in --parameter and --parameter2"),
            );
        }
        // `augment_args` sets the about of the struct it derives from: set ours after it.
        cmd = cmd.subcommand(Common::augment_args(sub).about(about));
    }
    let about = |c: Command, text: &'static str| c.about(text);
    // `run` takes the map's run-control flags too, so that an interrupted map spec resumes
    // with the command its message names (`rerun the same command with --resume`).
    let run = map::RunFlags::augment_args(Common::augment_args(
        Command::new("run").arg(
            clap::Arg::new("SPEC")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf))
                .help("The analysis spec (TOML)"),
        ),
    ))
    .after_help(RUN_HELP);
    cmd.subcommand(about(run, "Run an analysis spec (analyses/*.toml)."))
    .subcommand(about(
        map::MergeArgs::augment_args(Command::new("merge")),
        "Join the shard files of one map into the map a single run would write.",
    ))
    .subcommand(about(
        map::RenderArgs::augment_args(Command::new("render")),
        "Draw the figure of a map file.",
    ))
    .subcommand(about(
        measure::MeasureArgs::augment_args(Command::new("measure").allow_negative_numbers(true)),
        "Boundary dimension, uncertainty exponent, basin entropy and Wada test of a label grid.",
    ))
    .subcommand(about(
        bench::BenchArgs::augment_args(Command::new("bench").allow_negative_numbers(true)),
        "The benchmarks F, L and M of docs/benchmarks.md, each as one JSON line.",
    ))
    .subcommand(about(
        serve::ServeArgs::augment_args(Command::new("serve").allow_negative_numbers(true)),
        "Live viewer in the browser (binds 127.0.0.1 only).",
    ))
}

fn parsed<T: FromArgMatches>(m: &ArgMatches) -> Result<T, CliError> {
    T::from_arg_matches(m).map_err(|e| CliError::Input(e.to_string().trim().to_string()))
}

/// Runs the parsed command.
fn dispatch(matches: &ArgMatches, command_line: &str) -> Result<(), CliError> {
    let (name, m) = matches.subcommand().expect("a subcommand is required");
    match name {
        "merge" => {
            let a: map::MergeArgs = parsed(m)?;
            let outs = [a.common.output.clone(), a.common.plot.clone()];
            closed("merge", outs.iter().flatten(), || {
                map::merge_command(&a, command_line)
            })
        }
        "render" => {
            let a: map::RenderArgs = parsed(m)?;
            closed("render", [&a.output], || map::render_command(&a))
        }
        "measure" => {
            let a: measure::MeasureArgs = parsed(m)?;
            let outs = [a.common.output.clone(), a.common.plot.clone()];
            closed("measure", outs.iter().flatten(), || {
                measure::measure_command(&a, command_line)
            })
        }
        "bench" => bench::bench_command(&parsed(m)?),
        "serve" => serve::serve_command(&parsed(m)?),
        _ => {
            let common: Common = parsed(m)?;
            progress::set_mode(common.progress);
            let (spec, from_file) = load_spec(name, m, &common.budget())?;
            let run = match name {
                "map" | "run" => parsed(m)?,
                _ => map::RunFlags::default(),
            };
            if name == "run" {
                run_flags_apply(&spec, &run)?;
            }
            execute(&spec, &common, &run, command_line).map_err(|e| match e {
                CliError::Field(e) => CliError::Input(flags::name_flag(e, m, name, from_file)),
                e => e,
            })
        }
    }
}

/// Refuses `run`'s map flags for a spec they do not apply to, naming the flag: a map spec
/// takes all three; a measure spec `--resume` (its map always resumes: accepted, changes
/// nothing); other kinds none.
fn run_flags_apply(spec: &Spec, run: &map::RunFlags) -> Result<(), CliError> {
    let kind = spec.analysis.kind().name;
    let given = [
        ("--resume", run.resume),
        ("--shard", run.shard.is_some()),
        ("--dry-run", run.dry_run),
    ];
    for (flag, set) in given {
        if spec.sweep.is_some() {
            // A sweep always resumes its finished points; it runs each map whole.
            if set && flag != "--resume" {
                return Err(CliError::Input(format!(
                    "{flag}: a spec with a [sweep] runs each point whole (it resumes by itself)"
                )));
            }
            continue;
        }
        let applies = match &spec.analysis {
            _ if pendula::kinds::map::spec_options(spec).is_some() => true,
            _ if measure::run_of(spec).is_some() => flag == "--resume",
            _ => false,
        };
        if set && !applies {
            let takes = if flag == "--resume" {
                "a map or measure spec"
            } else {
                "a map spec"
            };
            return Err(CliError::Input(format!(
                "{flag}: applies to {takes}, not to this `{kind}` spec"
            )));
        }
    }
    Ok(())
}

/// Runs a command that writes `paths`, then prints its closing line (as [`execute`] does).
fn closed<'a>(
    what: &str,
    paths: impl IntoIterator<Item = &'a PathBuf>,
    f: impl FnOnce() -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut closing = output::Closing::start();
    for p in paths {
        closing.may_write(p);
    }
    let result = f();
    if result.is_ok() {
        eprintln!("{}", closing.line(what));
    }
    result
}

/// The spec a command describes: its `--spec` file (or the positional one of `run`), with
/// `--model` and then every given flag laid over it, parsed and validated once; and whether it
/// came from a file (a refusal then names a flag only where one was given).
fn load_spec(
    command: &str,
    m: &ArgMatches,
    budget: &spec::Budget,
) -> Result<(Spec, bool), CliError> {
    let (mut file, from_file) = if command == "run" {
        let p = m.get_one::<PathBuf>("SPEC").expect("required");
        (read_spec(p, "SPEC")?, true)
    } else if let Some(p) = m.get_one::<PathBuf>("spec") {
        let file = read_spec(p, "--spec")?;
        if file.kind.as_deref() != Some(command) {
            return Err(CliError::Input(format!(
                "--spec: the spec's kind is `{}`, not {command} (use `pendula run`)",
                file.kind.as_deref().unwrap_or("missing")
            )));
        }
        (file, true)
    } else {
        let file = SpecFile {
            kind: Some(command.into()),
            // `control` is the cart chain's analysis: it starts from the default cart chain.
            model: match command {
                "control" => spec::ModelFile::Cart(spec::CartModelSpec {
                    kind: Some("cart-chain".into()),
                    ..Default::default()
                }),
                _ => Default::default(),
            },
            ..Default::default()
        };
        (file, false)
    };
    if let Some(p) = m.try_get_one::<PathBuf>("model").ok().flatten() {
        let text = std::fs::read_to_string(p)
            .map_err(|e| CliError::Input(format!("--model: cannot read `{}`: {e}", p.display())))?;
        file.model = spec::parse_model(&text, &p.display().to_string())
            .map_err(|e| CliError::Input(format!("--model: {e}")))?;
    }
    if command != "run" {
        file = with_flags(file, m, command)?;
        if let Some(a) = m.try_get_one::<String>("action").ok().flatten() {
            let orbits = file.registered.table_mut("orbits");
            orbits.insert("action".into(), toml::Value::String(a.clone()));
        }
        // The commands' documented default model; a spec run as it is must name its model.
        if let spec::ModelFile::Planar(model) = &mut file.model {
            if model.preset.is_none() && model.link.is_none() {
                model.preset = Some("double".into());
            }
        }
    }
    // A shard of a map holds only its own tiles: its memory is checked as such.
    let shard = match command {
        "map" | "run" => m
            .try_get_one::<(usize, usize)>("shard")
            .ok()
            .flatten()
            .copied(),
        _ => None,
    };
    let spec = file
        .validate_for(budget, shard)
        .map_err(|e| CliError::Input(flags::name_flag(e, m, command, from_file)))?;
    for note in &spec.notes {
        eprintln!("{note}");
    }
    Ok((spec, from_file))
}

/// Lays the given flags over `file` (through its TOML form, so a flag is a path and a value).
fn with_flags(file: SpecFile, m: &ArgMatches, command: &str) -> Result<SpecFile, CliError> {
    let mut table = toml::Table::try_from(&file)
        .map_err(|e| CliError::Input(format!("the spec cannot be written as TOML: {e}")))?;
    flags::overlay(&mut table, m, command);
    let model = table
        .get("model")
        .and_then(|t| t.get("kind"))
        .and_then(|k| k.as_str())
        .unwrap_or("planar-chain")
        .to_string();
    spec::parse_table(table).map_err(|e| {
        CliError::Input(
            flags::refuse_unknown(&e, m, command, &model)
                .or_else(|| flags::refuse_missing(&e, m, command))
                // A value the spec refuses as it reads it (`--torque-frequency 60rpm`) names
                // the flag that gave it.
                .unwrap_or_else(|| flags::name_flag(e, m, command, true)),
        )
    })
}

/// Reads and parses a spec file; errors are bad input.
fn read_spec(path: &Path, flag: &str) -> Result<SpecFile, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::Input(format!(
            "{flag}: cannot read spec `{}`: {e}",
            path.display()
        ))
    })?;
    // A file's own error names the file's field, whatever flags were given.
    spec::parse(&text, &path.display().to_string()).map_err(|e| CliError::Input(e.to_string()))
}

/// Runs a validated spec and ends with the closing stderr line naming what it wrote
/// ([`output::Closing`]); a run refused as bad input wrote nothing and says only why.
fn execute(
    spec: &Spec,
    common: &Common,
    run: &map::RunFlags,
    command_line: &str,
) -> Result<(), CliError> {
    let mut closing = output::Closing::start();
    let plot = common.plot.as_ref().or(spec.output.plot.as_ref());
    for p in [common.output.as_ref(), spec.output.file.as_ref(), plot]
        .into_iter()
        .flatten()
    {
        closing.may_write(p);
    }
    if let Some(r) = measure::run_of(spec) {
        closing.may_write(&r.map_file);
        for f in r.sweep.iter().flat_map(|s| &s.map_files) {
            closing.may_write(f);
        }
    }
    if let (Some(_), Some(p)) = (pendula::kinds::map::spec_options(spec), plot) {
        // A map without -o is written beside its figure.
        closing.may_write(&p.with_extension("h5"));
    }
    for (_, p) in spec.figures.paths() {
        closing.may_write(p);
    }
    let outputs = Outputs {
        file: common.output.clone().or_else(|| spec.output.file.clone()),
        plot: plot.cloned(),
    };
    if let Some(d) = sweep::sweep_directory(spec, &outputs) {
        closing.may_fill(&d, "point files", Some("h5"));
    }
    if let Some(o) = animate::options(spec) {
        if let Some(g) = &o.gif {
            closing.may_write(g);
        }
        if let Some(d) = &o.frames {
            closing.may_fill(d, "frames", None);
        }
    }
    let result = execute_run(spec, common, run, command_line);
    let what = describe(spec);
    match result {
        Ok(()) => {
            eprintln!("{}", closing.line(&what));
            Ok(())
        }
        // A failed or interrupted run that kept something says what, in its one error line.
        Err(CliError::Run(m)) if !closing.written().is_empty() => Err(CliError::Run(format!(
            "{m}; {}",
            closing.line(&format!("{what}, incomplete"))
        ))),
        Err(e) => Err(e),
    }
}

/// A few words on what a spec ran, for the closing line.
fn describe(spec: &Spec) -> String {
    let what = describe_analysis(spec);
    match &spec.sweep {
        Some(s) => format!("{what} sweep of {} points", s.points.len()),
        None => what,
    }
}

fn describe_analysis(spec: &Spec) -> String {
    spec.analysis.describe()
}

/// Checks the outputs before any work, then runs the analysis.
fn execute_run(
    spec: &Spec,
    common: &Common,
    run: &map::RunFlags,
    command_line: &str,
) -> Result<(), CliError> {
    let outputs = Outputs {
        file: common.output.clone().or_else(|| spec.output.file.clone()),
        plot: common.plot.clone().or_else(|| spec.output.plot.clone()),
    };
    if let Some(p) = &common.plot {
        output::check_figure_path(p, "--plot")?;
    }
    if let Some(p) = &common.output {
        output::check_result_path(p, "-o")?;
    }
    if spec.sweep.is_some() {
        if run.dry_run || run.shard.is_some() {
            let flag = if run.dry_run { "--dry-run" } else { "--shard" };
            return Err(CliError::Input(format!(
                "{flag}: a sweep runs each point's map whole (it resumes by itself)"
            )));
        }
        for (flag, p) in [("-o", &outputs.file), ("--plot", &outputs.plot)] {
            if let Some(p) = p {
                output::prepare_path(p, common.force)
                    .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
            }
        }
        set_threads(common.threads)?;
        return sweep::run(spec, common, &outputs, command_line);
    }
    if pendula::kinds::map::spec_options(spec).is_some() {
        return map::run_map(spec, common, run, command_line);
    }
    if let Some(r) = measure::run_of(spec) {
        set_threads(common.threads)?;
        return measure::run_spec(spec, common, r, command_line);
    }
    let prints_report = spec.analysis.kind().reports;

    let animation = animate::options(spec);
    let visual = !spec.figures.paths().is_empty()
        || animation.is_some_and(|o| o.gif.is_some() || o.frames.is_some());
    if outputs.file.is_none() && outputs.plot.is_none() && !common.json && !prints_report && !visual
    {
        return Err(CliError::Input(
            "nothing to write: give -o FILE.h5, --plot FILE.png|svg or --json (or [output] in the spec)".into(),
        ));
    }
    // Name what the path came from: the flag, or the spec's `[output]` field.
    let source = |flag: &'static str, given: bool, field: &'static str| {
        if given {
            flag
        } else {
            field
        }
    };
    for (flag, p) in [
        (
            source("-o", common.output.is_some(), "output.file"),
            &outputs.file,
        ),
        (
            source("--plot", common.plot.is_some(), "output.plot"),
            &outputs.plot,
        ),
    ] {
        if let Some(p) = p {
            output::prepare_path(p, common.force)
                .map_err(|m| CliError::Input(format!("{flag}: {m}")))?;
        }
    }
    animate::prepare_figures(spec, common.force)?;
    if let Some(o) = animation {
        animate::prepare_animation(o.gif.as_deref(), o.frames.as_deref(), common.force)?;
    }
    set_threads(common.threads)?;
    let ctx = Run {
        spec,
        outputs,
        common,
        command_line,
    };
    match spec.analysis.kind().name {
        "animate" => animate::run(&ctx),
        _ => run_library(&ctx),
    }
}

/// The analyses one library call runs ([`pendula::run::execute`]) with the command's progress
/// bar (and its Ctrl-C token); the result file is written, then the command does its own part
/// (figure, report).
fn run_library(ctx: &Run) -> Result<(), CliError> {
    use pendula::run::Output;
    output::refuse_cart_plot(ctx)?;
    let start = std::time::Instant::now();
    let mut bar = progress::Bar::new(ctx.spec.analysis.kind().name);
    let outcome = pendula::run::execute(ctx.spec, &mut bar)?;
    let Output { chain, result } = outcome.output;
    output::finish_found(ctx, chain, result, start)
}
