//! What each subcommand does around the engine: load, run or compare, write the reports, and
//! turn the outcome into an exit code, a file per subcommand. The binary only parses the command
//! line and calls [`execute`]; what several subcommands share (writing the reports, the exit
//! code, stopping on a signal) is here.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{self, Cli, Command};
use crate::exit;
use crate::report::{self, Report};
use crate::transport;

mod compare;
mod explain;
mod fetch;
mod list;
mod report_file;
mod run_command;
mod token;

pub use run_command::run_report;

/// Runs a parsed command line and returns the exit code it ends with.
pub fn execute(cli: Cli) -> ExitCode {
    match cli.command {
        Command::List(args) => list::list(&args),
        Command::Explain(args) => explain::explain(&args),
        Command::Run(args) => run_command::run_command(*args),
        Command::Baseline(args) => report_file::baseline(&args),
        Command::Repro(args) => report_file::repro(&args),
        Command::Token(args) => token::token(&args),
        Command::Merge(args) => report_file::merge(&args),
        Command::Compare(args) => compare::compare(&args),
        Command::Schemas(cli::SchemasCommand::Fetch(args)) => fetch::fetch_schemas(&args),
        Command::Completions(args) => {
            let mut out = Vec::new();
            clap_complete::generate(
                args.shell,
                &mut <cli::Cli as clap::CommandFactory>::command(),
                "mcpcheck",
                &mut out,
            );
            emit(&String::from_utf8_lossy(&out));
            ExitCode::SUCCESS
        }
        Command::Man => {
            let mut out = Vec::new();
            match clap_mangen::Man::new(<cli::Cli as clap::CommandFactory>::command())
                .render(&mut out)
            {
                Ok(()) => {
                    emit(&String::from_utf8_lossy(&out));
                    ExitCode::SUCCESS
                }
                Err(e) => usage(format!("cannot render the man page: {e}")),
            }
        }
        Command::Init(args) => {
            let request = cli::init::Request {
                dir: &args.dir,
                stdio: args.stdio.as_deref(),
                url: args.url.as_deref(),
                force: args.force,
                action: &args.action,
                profile: &crate::profile::latest().name,
            };
            match cli::init::init(&request) {
                Ok(said) => {
                    emit(&said);
                    ExitCode::SUCCESS
                }
                Err(e) => usage(e),
            }
        }
        Command::ScenarioSchema => {
            let schema = crate::scenario::schema::scenario_schema();
            emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&schema).expect("a JSON value")
            ));
            ExitCode::SUCCESS
        }
    }
}

/// A future that ends at the first SIGINT, SIGTERM or SIGHUP (Ctrl-C, a cancelled CI job, a
/// closed terminal): every command stops its servers on each alike. The handlers are registered
/// when this is called, before any server starts; without them it never ends.
fn stop_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let streams: Vec<_> = [
        SignalKind::interrupt(),
        SignalKind::terminate(),
        SignalKind::hangup(),
    ]
    .into_iter()
    .filter_map(|kind| signal(kind).ok())
    .collect();
    async move {
        if streams.is_empty() {
            return std::future::pending().await;
        }
        let waits = streams
            .into_iter()
            .map(|mut s| Box::pin(async move { s.recv().await }));
        futures_util::future::select_all(waits).await;
    }
}

/// Stops every server still running after an interruption and says so; exit 130.
fn interrupted() -> ExitCode {
    transport::stdio::kill_all_groups();
    transport::stdio::reap_orphans();
    eprintln!("mcpcheck: interrupted; every server it started has been stopped");
    ExitCode::from(exit::INTERRUPTED)
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

/// Says what was wrong with the command line or its files; exit 2.
fn usage(error: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(exit::USAGE)
}

/// Writes the reports, prints the table (or the verdict line; every problem in full when
/// `verbose`) and returns the exit code.
fn finish(report: &Report, outputs: &cli::OutputArgs, quiet: bool, verbose: bool) -> ExitCode {
    if let Err(e) = write_outputs(report, outputs) {
        eprintln!("error: {e}");
        return ExitCode::from(exit::USAGE);
    }
    let json_to_stdout = outputs
        .json
        .as_deref()
        .is_some_and(|p| p.as_os_str() == "-");
    let to_terminal = if json_to_stdout {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let color = to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(120);
    let show = match outputs.show.unwrap_or_default() {
        cli::ShowArg::Problems => report::terminal::Show::Problems,
        cli::ShowArg::Skipped => report::terminal::Show::Skipped,
        cli::ShowArg::All => report::terminal::Show::All,
    };
    let mut text = if quiet {
        format!("{}\n", report::safe::terminal(&report.verdict_line()))
    } else {
        report::terminal::render(
            report,
            report::terminal::Style {
                color,
                width,
                show,
                full: verbose,
            },
        )
    };
    let github = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    if outputs.annotations.unwrap_or(if github {
        cli::AnnotationsArg::Github
    } else {
        cli::AnnotationsArg::None
    }) == cli::AnnotationsArg::Github
    {
        text.push_str(&report::annotations::github(report));
    }
    if json_to_stdout {
        eprint!("{text}");
    } else {
        emit(&text);
    }
    ExitCode::from(report.exit_code())
}

/// Writes an output file, making its folder first.
fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("failed to create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("failed to write {}: {e}", path.display()))
}

/// Writes every report file the flags ask for.
fn write_outputs(report: &Report, outputs: &cli::OutputArgs) -> Result<(), String> {
    if let Some(path) = &outputs.json {
        // Made a JSON value first, then written by the value's own formatting: the bytes are
        // the same, but escaping them is serde_json's code, built optimised as dependencies
        // are, instead of code generic over the report, built with this crate (when this crate
        // was at opt-level 0 in the test builds, writing the report took a fifth of a run's CPU).
        let value = serde_json::to_value(report).expect("serializable");
        let json = format!("{value:#}\n");
        if path.as_os_str() == "-" {
            emit(&json);
        } else {
            write_file(path, &json)?;
        }
    }
    if let Some(path) = &outputs.junit {
        write_file(path, &report::junit::render(report))?;
    }
    if let Some(path) = &outputs.markdown {
        write_file(path, &report::markdown::render(report))?;
    }
    if let Some(path) = &outputs.html {
        write_file(path, &report::html::render(report))?;
    }
    if let Some(path) = &outputs.badge {
        write_file(path, &report::badge::render(report))?;
    }
    if let Some(path) = &outputs.sarif {
        write_file(path, &report::sarif::render(report))?;
    }
    if let Some(dir) = &outputs.official_json {
        write_file(&dir.join("checks.json"), &report::official::render(report))?;
    }
    Ok(())
}
