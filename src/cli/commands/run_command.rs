//! `mcpcheck run`: the run with its progress display, then the reports and the exit code.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use super::{finish, interrupted, stop_signal, usage};
use crate::record::{Direction, Tap};
use crate::report::grade::Grading;
use crate::run::{self, Observer, RunEvent};
use crate::{cli, report};

/// Resolves the flags, runs the library against the server and renders the report.
pub(super) fn run_command(args: cli::RunArgs) -> ExitCode {
    match graded_report(args, Signals::Stop) {
        Ok((report, resolved)) => {
            finish(&report, &resolved.outputs, resolved.quiet, resolved.verbose)
        }
        Err(code) => code,
    }
}

/// `mcpcheck run` without its outputs, for a program that runs mcpcheck as a library (its own
/// self-test does): the graded, redacted report of a run with these flags; its exit code is
/// [`Report::exit_code`](crate::report::Report::exit_code). The report files the flags name
/// (`--json`, `--junit`, …) are not written and no summary is printed, but stderr shows what a
/// run shows there (its progress unless `-q`, every frame with `--verbose`). A run that makes
/// no report (a flag in error, no token to be had) says why on stderr and gives its exit code
/// instead. Signals are the caller's: unlike `mcpcheck run`, the run does not stop at Ctrl-C.
pub fn run_report(args: cli::RunArgs) -> Result<report::Report, ExitCode> {
    graded_report(args, Signals::Ignore).map(|(report, _)| report)
}

/// Whether a run stops at SIGINT, SIGTERM and SIGHUP, stopping its servers (exit 130).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signals {
    Stop,
    Ignore,
}

/// The run's report, graded and redacted, with the flags it was resolved from.
fn graded_report(
    args: cli::RunArgs,
    signals: Signals,
) -> Result<(report::Report, cli::Resolved), ExitCode> {
    let mut resolved = match args.resolve() {
        Ok(resolved) => resolved,
        Err(e) => return Err(usage(e)),
    };
    // One thread: a run mostly waits on the server, and its own work (a few hundred exchanges,
    // then the judging) is far less than a core. Worker threads handing tasks to each other cost
    // more than they gave (paired self-test runs: 0.92 of the CPU and 0.94 of the time).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // First: the token it gets is a secret every output after it redacts.
    if let Some(client) = resolved.auth.clone() {
        let quiet = resolved.quiet;
        authorize(
            &runtime,
            &mut resolved.config,
            &mut resolved.secrets,
            quiet,
            &client,
        )?;
    }
    if resolved.verbose {
        let redactor = redactor(&resolved);
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
    let config = resolved.config.clone();
    let outcome = runtime.block_on(async {
        let stop: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> = match signals {
            // Registered before any server starts, so an early Ctrl-C still stops them all.
            Signals::Stop => Box::pin(stop_signal()),
            Signals::Ignore => Box::pin(std::future::pending()),
        };
        tokio::select! {
            outcome = run::run(config) => Some(crate::report::Report::assemble(outcome)),
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
        return Err(interrupted());
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
    let report = redactor(&resolved).report(report);
    Ok((report, resolved))
}

/// What keeps the run's secrets out of its outputs: the tokens the authorization checks send
/// in place of the user's each under its name.
fn redactor(resolved: &cli::Resolved) -> report::redact::Redactor {
    let issued = resolved
        .config
        .issued
        .iter()
        .filter_map(|(name, token)| Some((name.as_str(), token.as_ref().ok()?.as_str())));
    let named = issued.chain(
        resolved
            .config
            .expired_token
            .as_deref()
            .map(|t| ("expired", t)),
    );
    report::redact::Redactor::new(&resolved.secrets).naming(named)
}

/// `--auth`: gets a token from the server's authorization server and adds it to the run's
/// headers, and it and the tokens the checks make from it to the secrets. For `--auth code` the
/// sign-in URL is printed and opened in a browser (`$BROWSER`, else the system's opener). A
/// server for which no token can be had cannot be tested: exit 3, saying why. (`compare` gets
/// each server's token the same way.)
pub(super) fn authorize(
    runtime: &tokio::runtime::Runtime,
    config: &mut run::RunConfig,
    secrets: &mut Vec<String>,
    quiet: bool,
    client: &run::authorize::Client,
) -> Result<(), ExitCode> {
    let url = match &config.target {
        crate::transport::Target::Http(spec) => spec.url.clone(),
        crate::transport::Target::Stdio(_) => return Ok(()),
    };
    let redactor = report::redact::Redactor::new(secrets);
    let browser = std::sync::Mutex::new(None::<std::process::Child>);
    let show = |url: &str| {
        // The URL is the authorization server's (from its metadata): shown escaped.
        eprintln!(
            "mcpcheck: sign in to authorize mcpcheck: {}",
            report::safe::terminal(url)
        );
        *browser.lock().expect("browser lock") = open_browser(url);
    };
    // A server that mcpcheck serves (`--serve`) is started now, to get its token from, and the
    // run goes on with that process.
    let obtained = match runtime.block_on(run::serve_early(config)) {
        Ok(served) => {
            config.served = served;
            runtime
                .block_on(run::authorize::obtain(&url, client, &show))
                .map_err(|e| e.to_string())
        }
        Err(failure) => {
            let tail = failure.stderr_tail.trim();
            Err(format!(
                "the --serve command could not be started to get a token: {}{}",
                failure.why,
                if tail.is_empty() {
                    String::new()
                } else {
                    format!("; its stderr ended with: {tail}")
                }
            ))
        }
    };
    if obtained.is_err() {
        // Nothing will run against it.
        if let Some(served) = config.served.take() {
            runtime.block_on(served.stop());
        }
    }
    let crate::transport::Target::Http(spec) = &mut config.target else {
        return Ok(());
    };
    // The browser is the user's: one still running is left to them (an opener that has
    // returned is reaped).
    if let Some(mut child) = browser.lock().expect("browser lock").take() {
        let _ = child.try_wait();
    }
    let flag = match client.flow {
        run::authorize::Flow::ClientCredentials => "client-credentials",
        run::authorize::Flow::Code => "code",
    };
    match obtained {
        Ok(obtained) => {
            if !quiet {
                eprintln!(
                    "mcpcheck: got a token by the {}",
                    report::safe::terminal(&redactor.prose(&obtained.how))
                );
            }
            secrets.push(obtained.access_token.clone());
            secrets.extend(obtained.secrets.iter().cloned());
            secrets.extend(obtained.issued.values().filter_map(|t| t.clone().ok()));
            config.issued = obtained.issued.clone();
            secrets.extend(crate::record::token::MadeUp::from(&obtained.access_token).all());
            spec.headers.push((
                "Authorization".into(),
                format!("Bearer {}", obtained.access_token),
            ));
            Ok(())
        }
        Err(why) => {
            eprintln!(
                "mcpcheck: could not get a token (--auth {flag}): {}",
                report::safe::terminal(&redactor.prose(&why))
            );
            Err(ExitCode::from(crate::exit::UNTESTABLE))
        }
    }
}

/// Opens `url` in a browser: `$BROWSER` (a command, the URL appended) where it is set, else the
/// system's opener. `None` when none could be started (the URL is printed anyway).
fn open_browser(url: &str) -> Option<std::process::Child> {
    let mut argv = match std::env::var("BROWSER") {
        Ok(command) if !command.trim().is_empty() => shell_words::split(&command).ok()?,
        _ if cfg!(target_os = "macos") => vec!["open".to_string()],
        _ if cfg!(windows) => vec!["explorer".to_string()],
        _ => vec!["xdg-open".to_string()],
    };
    argv.push(url.to_string());
    std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()
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
    // Each finished scenario takes its number here, so no two lines share one whatever thread
    // the observer is called on (the bar's position, read after its increment, could be
    // another's).
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
