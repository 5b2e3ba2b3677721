//! The `mcpcheck` binary: parse, run, print, and map the outcome to an exit code.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use mcpcheck::cli::{self, Cli, Command};
use mcpcheck::{exit, report, run, transport};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List(args) => list(&args),
        Command::Run(args) => run_command(&args),
    }
}

/// Writes to stdout; a closed pipe (`mcpcheck list | head`) is not an error.
fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

fn usage(error: cli::UsageError) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(exit::USAGE)
}

fn list(args: &cli::ListArgs) -> ExitCode {
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let mut defs: Vec<_> = scenarios
        .iter()
        .flat_map(|s| s.checks.iter().map(|c| c.def.clone()))
        .collect();
    defs.extend(mcpcheck::check::wire::definitions());
    defs.sort_by(|a, b| a.area.cmp(&b.area).then(a.id.cmp(&b.id)));
    if args.json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&defs).expect("serializable")
        ));
        return ExitCode::SUCCESS;
    }
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_HORIZONTAL_ONLY);
    table.force_no_tty();
    table.set_header(["check", "level", "area", "versions", "transport", "title"]);
    for def in &defs {
        let level = if def.derived {
            format!("{}*", def.level)
        } else {
            def.level.to_string()
        };
        table.add_row([
            def.id.clone(),
            level,
            def.area.clone(),
            def.versions.to_string(),
            def.transport
                .map(|t| t.to_string())
                .unwrap_or_else(|| "any".into()),
            def.title.clone(),
        ]);
    }
    emit(&format!(
        "{table}\n{} checks (* = derived from JSON-RPC 2.0 or the schema)\n",
        defs.len()
    ));
    ExitCode::SUCCESS
}

fn run_command(args: &cli::RunArgs) -> ExitCode {
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let (config, secrets) = match args.resolve(scenarios) {
        Ok(resolved) => resolved,
        Err(e) => return usage(e),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = runtime.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        // Registered before any server starts, so an early Ctrl-C still stops them all.
        let (mut interrupt, mut terminate) = match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(i), Ok(t)) => (i, t),
            _ => return Some(run::run(config).await),
        };
        tokio::select! {
            report = run::run(config) => Some(report),
            _ = interrupt.recv() => None,
            _ = terminate.recv() => None,
        }
    });
    let Some(report) = outcome else {
        transport::stdio::kill_all_groups();
        eprintln!("mcpcheck: interrupted; every server it started has been stopped");
        return ExitCode::from(exit::INTERRUPTED);
    };
    drop(runtime);
    let report = report.redacted(&secrets);
    let json_to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).expect("serializable") + "\n";
        if json_to_stdout {
            emit(&json);
        } else if let Err(e) = std::fs::write(path, json) {
            eprintln!("error: failed to write {}: {e}", path.display());
            return ExitCode::from(exit::USAGE);
        }
    }
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
    let text = if args.quiet {
        format!("{}\n", report.verdict_line())
    } else {
        report::terminal::render(&report, color, width)
    };
    if json_to_stdout {
        eprint!("{text}");
    } else {
        emit(&text);
    }
    ExitCode::from(report.exit_code())
}
