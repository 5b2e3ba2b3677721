//! What each subcommand does around the engine: load, run or compare, write the reports, and
//! turn the outcome into an exit code. The binary only parses the command line and calls
//! [`execute`].

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use crate::cli::{self, Cli, Command};
use crate::exit;
use crate::record::{Direction, Tap};
use crate::report::grade::{Baseline, Grading};
use crate::report::{self, Report};
use crate::run::{self, Observer, RunEvent};
use crate::transport::{self};

/// Runs a parsed command line and returns the exit code it ends with.
pub fn execute(cli: Cli) -> ExitCode {
    match cli.command {
        Command::List(args) => list(&args),
        Command::Explain(args) => explain(&args),
        Command::Run(args) => run_command(*args),
        Command::Baseline(args) => baseline(&args),
        Command::Repro(args) => repro(&args),
        Command::Merge(args) => merge(&args),
        Command::Compare(args) => compare(&args),
        Command::Schemas(cli::SchemasCommand::Fetch(args)) => fetch_schemas(&args),
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

/// `mcpcheck schemas fetch`: every file is tried; the worst outcome decides the exit code.
fn fetch_schemas(args: &cli::FetchArgs) -> ExitCode {
    use crate::cli::schemas::{self as official, FetchError, Fetched};
    if let Err(e) = crate::record::url::parse_url(&args.from) {
        return usage(format!("--from: {e}"));
    }
    let dir = args.dir.clone().unwrap_or_else(official::default_dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("mcpcheck: cannot create {}: {e}", dir.display());
        return ExitCode::from(exit::USAGE);
    }
    let versions: Vec<&str> = if args.versions.is_empty() {
        official::PINNED.iter().map(|(v, _)| *v).collect()
    } else {
        args.versions.iter().map(String::as_str).collect()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let timeout = std::time::Duration::from_secs(args.timeout.max(1));
    let mut code = exit::SUCCESS;
    for version in versions {
        let outcome = runtime.block_on(official::fetch_one(&dir, &args.from, version, timeout));
        match outcome {
            Ok(Fetched::Downloaded) => eprintln!("{version}.json: downloaded, sha256 checked"),
            Ok(Fetched::Present) => eprintln!("{version}.json: already there, sha256 checked"),
            Err(e) => {
                eprintln!("mcpcheck: {version}.json: {e}");
                code = code.max(match e {
                    FetchError::Checksum(_) => exit::FAILURES,
                    FetchError::Io(_) => exit::USAGE,
                    FetchError::Download(_) => exit::UNTESTABLE,
                });
            }
        }
    }
    if code == exit::SUCCESS {
        emit(&format!("{}\n", dir.display()));
        eprintln!(
            "use them with: mcpcheck run --official-schemas {} …",
            dir.display()
        );
    }
    ExitCode::from(code)
}

/// Writes to stdout; a closed pipe (`mcpcheck list | head`) is not an error.
/// The transports a check applies to, for `list` and `explain`.
fn transports(kinds: &[crate::record::TransportKind]) -> String {
    if kinds.is_empty() {
        "any".into()
    } else {
        kinds
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

fn usage(error: impl std::fmt::Display) -> ExitCode {
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
    defs.extend(crate::check::wire::definitions());
    defs.sort_by(|a, b| a.area.cmp(&b.area).then(a.id.cmp(&b.id)));
    if args.json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&defs).expect("serializable")
        ));
        return ExitCode::SUCCESS;
    }
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::NOTHING);
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
            transports(&def.transports),
            def.title.clone(),
        ]);
    }
    emit(&format!(
        "{table}\n\n{} checks (* = derived from JSON-RPC 2.0 or the schema)\n",
        defs.len()
    ));
    ExitCode::SUCCESS
}

/// Says what a check sends, what it expects and why.
///
/// Long by design: the explanation's sections in the order a reader needs them.
fn explain(args: &cli::ExplainArgs) -> ExitCode {
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let found = scenarios.iter().find_map(|s| {
        s.checks
            .iter()
            .find(|c| c.def.id == args.id)
            .map(|c| (Some(s), c.def.clone(), c.steps.clone()))
    });
    let found = found.or_else(|| {
        crate::check::wire::definitions()
            .into_iter()
            .find(|d| d.id == args.id)
            .map(|d| (None, d, Vec::new()))
    });
    let Some((scenario, def, steps)) = found else {
        return usage(format!(
            "no check is named `{}` (see `mcpcheck list`)",
            args.id
        ));
    };
    let mut text = format!("{} — {}\n\n", def.id, def.title);
    text.push_str(&format!(
        "level:     {}{}\n",
        def.level,
        if def.derived {
            " (derived from JSON-RPC 2.0 or the schema)"
        } else {
            ""
        }
    ));
    text.push_str(&format!(
        "area:      {}\nversions:  {}\ntransport: {}\nsource:    {}\n",
        def.area,
        def.versions,
        transports(&def.transports),
        def.source
    ));
    for spec in &def.spec {
        text.push_str(&format!(
            "spec:      {} ({} {})\n",
            spec.url, spec.version, spec.section
        ));
    }
    text.push_str(&format!("\nexpects:   {}\n", def.expect));
    if let Some(explain) = &def.explain {
        text.push_str(&format!("\nwhy:       {explain}\n"));
    }
    match scenario {
        Some(scenario) => {
            let session = match scenario.session {
                crate::scenario::SessionKind::Shared => "the run's main session",
                crate::scenario::SessionKind::Fresh => {
                    "a connection apart from the main one, after the handshake (over stdio shared in turn with other such scenarios)"
                }
                crate::scenario::SessionKind::Bare => "a connection of its own, with no handshake",
                crate::scenario::SessionKind::Probe => {
                    "the probe connection (after the handshake; taken in turn, over stdio with the fresh scenarios)"
                }
            };
            text.push_str(&format!(
                "\nsends, on {session} (scenario `{}`):\n",
                scenario.id
            ));
            for step in &scenario.steps {
                let judged = if steps.contains(&step.name) {
                    " ← judged"
                } else {
                    ""
                };
                let what = match &step.send {
                    crate::scenario::StepSend::Request { method, params, .. } => format!(
                        "request {method} {}",
                        params.as_ref().map(|p| p.to_string()).unwrap_or_default()
                    ),
                    crate::scenario::StepSend::Notification { method, params } => format!(
                        "notification {method} {}",
                        params.as_ref().map(|p| p.to_string()).unwrap_or_default()
                    ),
                    crate::scenario::StepSend::Raw(raw) if raw.is_empty() => {
                        format!("HTTP {}", step.http_method.clone().unwrap_or_default())
                    }
                    crate::scenario::StepSend::Raw(raw) => format!("raw bytes {raw}"),
                };
                let polled = step
                    .poll
                    .as_ref()
                    .map(|p| {
                        format!(
                            ", again until {} (at most {} s)",
                            p.until_text,
                            p.within.as_secs_f64()
                        )
                    })
                    .unwrap_or_default();
                text.push_str(&format!(
                    "  {}: {}{polled}{}{judged}\n",
                    step.name,
                    what.trim_end(),
                    window(step)
                ));
            }
        }
        None => {
            text.push_str("\nbuilt-in: judged over every message of the run, not over one step\n")
        }
    }
    emit(&text);
    ExitCode::SUCCESS
}

/// How long a step waits, for `explain`: the "nothing more comes" window of a hold or of a frame
/// that should get no answer, and a response timeout of the step's own.
fn window(step: &crate::scenario::Step) -> String {
    let ms = |d: std::time::Duration| d.as_millis();
    let mut parts = Vec::new();
    if let Some(hold) = step.hold {
        parts.push(format!(
            "then watches {} ms that nothing more comes",
            ms(hold)
        ));
    }
    if let Some(wait) = step.wait {
        parts.push(format!("waits {} ms for an answer", ms(wait)));
    }
    if let Some(timeout) = step.timeout {
        parts.push(format!("waits up to {} ms for its answer", ms(timeout)));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

fn baseline(args: &cli::BaselineArgs) -> ExitCode {
    let report = match read_report(&args.report) {
        Ok(report) => report,
        Err(e) => return usage(e),
    };
    emit(&Baseline::from_report(&report).to_toml());
    ExitCode::SUCCESS
}

/// `mcpcheck repro`: the script that replays a check's exchanges.
fn repro(args: &cli::ReproArgs) -> ExitCode {
    use crate::report::repro::{self, Start};
    let report = match read_report(&args.report) {
        Ok(report) => report,
        Err(e) => return usage(e),
    };
    let check = match repro::find(&report, &args.check) {
        Ok(check) => check,
        Err(e) => return usage(e),
    };
    let scenarios = match cli::load_scenarios(&args.scenarios) {
        Ok(scenarios) => scenarios,
        Err(e) => return usage(e),
    };
    // A scenario on a bare connection sends its own frames from the start.
    let bare = check.bare_session
        || scenarios.iter().any(|s| {
            s.session == crate::scenario::SessionKind::Bare
                && s.checks.iter().any(|c| c.def.id == check.id)
        });
    let start = if bare {
        Start::Nothing
    } else {
        Start::Handshake
    };
    match repro::script(&report, check, start) {
        Ok(script) => {
            emit(&script);
            ExitCode::SUCCESS
        }
        Err(e) => usage(e),
    }
}

/// Reads a JSON report written by `mcpcheck run --json`.
fn read_report(path: &std::path::Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not an mcpcheck JSON report: {e}", path.display()))
}

fn compare(args: &cli::CompareArgs) -> ExitCode {
    let entries = match args.resolve() {
        Ok(entries) => entries,
        Err(e) => return usage(e),
    };
    let names: Vec<String> = entries.iter().map(|(e, _)| e.name.clone()).collect();
    let secrets: Vec<Vec<String>> = entries.iter().map(|(_, s)| s.clone()).collect();
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let entries: Vec<_> = entries.into_iter().map(|(e, _)| e).collect();
    let outcome = runtime.block_on(async {
        let stop = stop_signal();
        tokio::select! {
            reports = crate::compare::run_all(entries, jobs) => Some(reports),
            () = stop => None,
        }
    });
    let Some(reports) = outcome else {
        return interrupted();
    };
    drop(runtime);
    let reports: Vec<Report> = reports
        .into_iter()
        .zip(&secrets)
        .map(|(r, s)| r.redacted(s))
        .collect();
    let matrix = crate::compare::build(names, reports);
    let mut json_to_stdout = false;
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&matrix).expect("serializable") + "\n";
        if path.as_os_str() == "-" {
            json_to_stdout = true;
            emit(&json);
        } else if let Err(e) = write_file(path, &json) {
            return usage(e);
        }
    }
    for (path, text) in [
        (
            &args.markdown,
            crate::compare::render::markdown as fn(&_) -> String,
        ),
        (&args.html, crate::compare::render::html),
    ] {
        if let Some(path) = path {
            if let Err(e) = write_file(path, &text(&matrix)) {
                return usage(e);
            }
        }
    }
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(120);
    let table = crate::compare::render::terminal(&matrix, width);
    if json_to_stdout {
        eprint!("{table}");
    } else {
        emit(&table);
    }
    ExitCode::from(crate::compare::exit_code(&matrix.reports))
}

fn merge(args: &cli::MergeArgs) -> ExitCode {
    let mut reports = Vec::new();
    for path in &args.reports {
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|text| {
                serde_json::from_str::<Report>(&text)
                    .map_err(|e| format!("{} is not an mcpcheck JSON report: {e}", path.display()))
            });
        match parsed {
            Ok(report) => reports.push(report),
            Err(e) => return usage(e),
        }
    }
    let (strict, baseline, profile) = match args.grading.resolve() {
        Ok(resolved) => resolved,
        Err(e) => return usage(e),
    };
    let mut report = match report::merge::merge(reports) {
        Ok(report) => report,
        Err(e) => return usage(e),
    };
    let derived_warn = args.grading.derived == Some(cli::DerivedArg::Warn);
    if derived_warn {
        report::grade::derived_as_warnings(&mut report);
    }
    let mut grading = Grading::apply(
        &report,
        profile,
        strict,
        baseline.as_ref().map(|(b, p)| (b, p.clone())),
    );
    grading.derived_as_warnings = derived_warn;
    report.grading = Some(grading);
    finish(&report, &args.output, args.quiet, false)
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

fn run_command(args: cli::RunArgs) -> ExitCode {
    let mut resolved = match args.resolve() {
        Ok(resolved) => resolved,
        Err(e) => return usage(e),
    };
    if resolved.verbose {
        let redactor = report::redact::Redactor::new(&resolved.secrets);
        resolved.config.limits.tap = Some(Tap(Arc::new(move |direction, text| {
            let arrow = match direction {
                Direction::Sent => "→",
                Direction::Received => "←",
            };
            // What the server sent reaches the terminal only with its controls made visible.
            eprintln!("{arrow} {}", report::safe::terminal(&redactor.wire(text)));
        })));
    }
    let progress = (!resolved.quiet && !resolved.verbose)
        .then(|| progress_observer(std::io::stderr().is_terminal(), resolved.progress));
    if let Some((observer, _)) = &progress {
        resolved.config.observer = Some(observer.clone());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let config = resolved.config.clone();
    let outcome = runtime.block_on(async {
        // Registered before any server starts, so an early Ctrl-C still stops them all.
        let stop = stop_signal();
        tokio::select! {
            report = run::run(config) => Some(report),
            () = stop => None,
        }
    });
    if let Some((_, bar)) = &progress {
        // A run that could not start a scenario says why in its verdict, not "ran 0".
        if !std::io::stderr().is_terminal() && bar.position() > 0 {
            eprintln!(
                "mcpcheck: ran {} scenarios in {:.1} s",
                bar.position(),
                bar.elapsed().as_secs_f64()
            );
        }
        bar.finish_and_clear();
    }
    let Some(mut report) = outcome else {
        return interrupted();
    };
    drop(runtime);
    let baseline = resolved
        .baseline
        .as_ref()
        .map(|(b, path)| (b, path.clone()));
    if resolved.derived_warn {
        report::grade::derived_as_warnings(&mut report);
    }
    let mut grading = Grading::apply(&report, resolved.profile, resolved.strict, baseline);
    grading.derived_as_warnings = resolved.derived_warn;
    report.grading = Some(grading);
    let report = report.redacted(&resolved.secrets);
    finish(&report, &resolved.outputs, resolved.quiet, resolved.verbose)
}

/// ` at VERSION`, or nothing when the version is not known.
fn at(version: &Option<String>) -> String {
    version
        .as_deref()
        .map(|v| format!(" at {v}"))
        .unwrap_or_default()
}

/// A progress bar on a terminal. Elsewhere (a CI log) a start line and an end line, and with
/// `--progress` a line per scenario as it finishes.
fn progress_observer(tty: bool, each: bool) -> (Observer, indicatif::ProgressBar) {
    let bar = if tty {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{pos}/{len}] {msg}").expect("template"),
    );
    let shown = bar.clone();
    let passes = std::sync::atomic::AtomicUsize::new(0);
    // Scenarios finish on several threads at once: each takes its number here, so no two lines
    // share one (the bar's position, read after its increment, could be another's).
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let observer = Observer(Arc::new(move |event| match event {
        RunEvent::Started { scenarios, version } => {
            shown.set_length(shown.length().unwrap_or(0) + scenarios as u64);
            if !tty {
                // A second era (or pinned version) is a pass of its own, which may run beside
                // the first: each line names the version of its pass.
                let again = passes.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0;
                let more = if again { " more" } else { "" };
                eprintln!(
                    "mcpcheck: running {scenarios}{more} scenarios{}",
                    at(&version)
                );
            }
        }
        RunEvent::ScenarioFinished { id, worst, version } => {
            shown.inc(1);
            shown.set_message(id.clone());
            let number = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if !tty && each {
                eprintln!(
                    "mcpcheck: [{number}/{}] {id}{}: {worst}",
                    shown.length().unwrap_or(0),
                    at(&version)
                );
            }
        }
    }));
    (observer, bar)
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("failed to create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("failed to write {}: {e}", path.display()))
}

fn write_outputs(report: &Report, outputs: &cli::OutputArgs) -> Result<(), String> {
    if let Some(path) = &outputs.json {
        let json = serde_json::to_string_pretty(report).expect("serializable") + "\n";
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
