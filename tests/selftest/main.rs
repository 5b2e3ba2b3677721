//! The self-test: the whole library against the reference server, clean and with every quirk,
//! one test per quirk and run, so that the test runner spreads them, a failure names its quirk,
//! and `cargo test --test selftest QUIRK` runs one quirk's runs alone.
//!
//! `tests/quirks.toml` says which checks each quirk changes in each run; every other check must
//! keep the status it has against the clean server of that run, whose report every quirk's test
//! of that run shares. The reference server says which runs a quirk shows in
//! (`--list-quirks`). Twenty-four run at once (`--test-threads` sets how many; `RUST_TEST_THREADS` does
//! not): each run waits on the library's own waits as much as it computes. mcpcheck runs in this
//! process ([`run_in_process`]), the reference server as a process of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::OnceLock;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

#[allow(dead_code)]
#[path = "../it/support.rs"]
mod support;

use support::{mcpcheck, reference_server, statuses, AuthorizationServer, HttpServer};

/// The bearer token of the protected reference server (`auth` runs): a JWT (the server compares it
/// whole), so that the token checks alter its claims too.
const SELFTEST_TOKEN: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InNlbGZ0ZXN0In0.eyJpc3MiOiJodHRwczovL3NlbGZ0ZXN0LmludmFsaWQiLCJzdWIiOiJtY3BjaGVjay1zZWxmdGVzdCIsInNjb3BlIjoibWNwIiwiZXhwIjo0MTAyNDQ0ODAwfQ.3DBnNCwEcBYU-879qd6XfJldln7NEuvu8cPLO2NPUBk";

/// A token the protected reference server knows as expired (`auth` runs, `--expired-token`),
/// given to mcpcheck with `--expired-token-env`.
const SELFTEST_EXPIRED: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJtY3BjaGVjay1zZWxmdGVzdCIsImV4cCI6MTAwMDAwMDAwMH0.ZXhwaXJlZA";

/// How many tests run at once unless `--test-threads` says otherwise.
const RUNS_AT_ONCE: usize = 24;

/// How the reference server runs: the transport, and the era it speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
    StatelessStdio,
    StatelessHttp,
    /// The 2024-11-05 HTTP+SSE transport, which the HTTP reference server serves at `/sse`.
    LegacySse,
    /// Streamable HTTP as a protected resource (`--static-token`), mcpcheck holding the token.
    AuthHttp,
    /// Streamable HTTP as the resource server of a real authorization server (oauth2-mock-server,
    /// `--auth ISSUER`), mcpcheck getting its token with `--auth client-credentials`.
    OAuth,
    /// A protected resource (`--static-token`) in the 2026-07-28 stateless era.
    StatelessAuth,
    /// A protected resource (`--static-token`) judged at 2025-03-26 (`--spec-version`), its
    /// authorization checks only: the revision whose authorization lived at the server's origin.
    LegacyAuth,
}

impl Transport {
    const ALL: [Transport; 9] = [
        Transport::Stdio,
        Transport::Http,
        Transport::StatelessStdio,
        Transport::StatelessHttp,
        Transport::LegacySse,
        Transport::AuthHttp,
        Transport::OAuth,
        Transport::StatelessAuth,
        Transport::LegacyAuth,
    ];

    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::StatelessStdio => "stateless-stdio",
            Transport::StatelessHttp => "stateless-http",
            Transport::LegacySse => "sse",
            Transport::AuthHttp => "auth",
            Transport::OAuth => "oauth",
            Transport::StatelessAuth => "stateless-auth",
            Transport::LegacyAuth => "legacy-auth",
        }
    }

    /// The runs of a quirk that shows in these modes, as `--list-quirks` names them.
    fn for_modes(modes: &str) -> &'static [Transport] {
        match modes {
            "handshake" => &[Transport::Stdio, Transport::Http],
            "stateless" => &[Transport::StatelessStdio, Transport::StatelessHttp],
            "legacy-sse" => &[Transport::LegacySse],
            "auth" => &[Transport::AuthHttp],
            "oauth" => &[Transport::OAuth],
            "stateless-auth" => &[Transport::StatelessAuth],
            "legacy-auth" => &[Transport::LegacyAuth],
            other => panic!("--list-quirks names unknown modes `{other}`"),
        }
    }
}

/// The authorization server of the `oauth` runs, started once for the whole self-test (it stops
/// when the test process ends); `None` where it is not installed.
fn issuer() -> Option<&'static str> {
    static ISSUER: OnceLock<Option<AuthorizationServer>> = OnceLock::new();
    ISSUER
        .get_or_init(AuthorizationServer::start)
        .as_ref()
        .map(|server| server.issuer.as_str())
}

/// Whether a run can be made here: the `oauth` runs need the authorization server (without it
/// they are skipped and say so, unless `MCPCHECK_REQUIRE_FIXTURES` names `oauth`).
fn available(transport: Transport) -> bool {
    transport != Transport::OAuth || issuer().is_some()
}

/// Runs the whole library (with the `everything` fixture checks, and the probe call that
/// `--call-tools` allows) against the reference server with these quirks.
fn run(transport: Transport, quirks: &[&str]) -> (i32, Value) {
    let mut args: Vec<&str> = quirks.iter().flat_map(|q| ["--quirk", *q]).collect();
    // Every run serves the example skills, so that the skills extension's checks run in each.
    args.extend([
        "--skills",
        concat!(env!("CARGO_MANIFEST_DIR"), "/reference-server/skills"),
    ]);
    if transport == Transport::OAuth {
        let Some(issuer) = issuer() else {
            return (0, serde_json::json!({"checks": []}));
        };
        args.extend(["--auth", issuer]);
        let server = HttpServer::start_with(&args);
        let flags = [
            "--fixtures",
            "everything",
            "--call-tools",
            "all",
            "-q",
            "--url",
            &server.url,
            "--auth",
            "client-credentials",
            "--client-id",
            "mcpcheck-selftest",
            "--client-secret-env",
            "MCPCHECK_SELFTEST_SECRET",
        ];
        return run_in_process(&flags);
    }
    match transport {
        Transport::Stdio | Transport::StatelessStdio => {
            if transport == Transport::StatelessStdio {
                args.push("--stateless");
            }
            let command = format!("{} {}", reference_server().display(), args.join(" "));
            run_in_process(&[
                "--stdio",
                &command,
                "--fixtures",
                "everything",
                "--call-tools",
                "all",
                "-q",
            ])
        }
        Transport::Http
        | Transport::StatelessHttp
        | Transport::LegacySse
        | Transport::AuthHttp
        | Transport::StatelessAuth
        | Transport::LegacyAuth
        | Transport::OAuth => {
            match transport {
                Transport::StatelessHttp => args.push("--stateless"),
                Transport::StatelessAuth => args.extend([
                    "--stateless",
                    "--static-token",
                    SELFTEST_TOKEN,
                    "--expired-token",
                    SELFTEST_EXPIRED,
                ]),
                Transport::AuthHttp | Transport::LegacyAuth => args.extend([
                    "--static-token",
                    SELFTEST_TOKEN,
                    "--expired-token",
                    SELFTEST_EXPIRED,
                ]),
                _ => {}
            }
            let server = HttpServer::start_with(&args);
            let mut flags = vec![
                "--fixtures",
                "everything",
                "--call-tools",
                "all",
                "-q",
                "--url",
            ];
            let sse = server.url.replace("/mcp", "/sse");
            if transport == Transport::LegacySse {
                flags.extend([sse.as_str(), "--legacy-sse"]);
            } else {
                flags.push(&server.url);
            }
            if transport == Transport::LegacyAuth {
                flags.extend(["--spec-version", "2025-03-26", "--check", "auth-*"]);
            }
            if matches!(
                transport,
                Transport::AuthHttp | Transport::StatelessAuth | Transport::LegacyAuth
            ) {
                // The token as a user passes it: named in the header, read from the environment.
                flags.extend(["-H", "Authorization: Bearer $MCPCHECK_SELFTEST_TOKEN"]);
                flags.extend(["--expired-token-env", "MCPCHECK_SELFTEST_EXPIRED"]);
            }
            run_in_process(&flags)
        }
    }
}

/// `mcpcheck run FLAGS` made in this process: its exit code and JSON report. The library runs
/// here as the binary runs it, less the writing of its outputs (the integration tests run the
/// binary itself); each of the self-test's 500 runs is spared starting mcpcheck and loading its
/// scenario library anew, about a fifth of a run's CPU. The reference server is a process of its
/// own, as ever. The tokens the flags name are in this process's environment (see [`main`]).
fn run_in_process(flags: &[&str]) -> (i32, Value) {
    let argv = ["mcpcheck", "run"].into_iter().chain(flags.iter().copied());
    let cli = <mcpcheck::cli::Cli as clap::Parser>::try_parse_from(argv)
        .unwrap_or_else(|e| panic!("{e}"));
    let mcpcheck::cli::Command::Run(args) = cli.command else {
        unreachable!("parsed as `run`")
    };
    match mcpcheck::cli::commands::run_report(*args) {
        Ok(report) => (
            i32::from(report.exit_code()),
            serde_json::to_value(&report).expect("a report is JSON"),
        ),
        Err(code) => panic!("the run made no report ({code:?}); its stderr says why"),
    }
}

/// The report of the whole library against the clean server of this run, made once and shared
/// by every test of that run.
fn clean(transport: Transport) -> &'static (i32, Value) {
    static CLEAN: [OnceLock<(i32, Value)>; 9] = [const { OnceLock::new() }; 9];
    let slot = Transport::ALL.iter().position(|t| *t == transport).unwrap();
    CLEAN[slot].get_or_init(|| run(transport, &[]))
}

/// The clean server over a handshake-era transport: every check that applies passes.
fn assert_clean(transport: Transport) {
    if !available(transport) {
        return;
    }
    let (code, report) = clean(transport);
    let code = *code;
    assert_eq!(wiring_words(report), Vec::<String>::new());
    assert_eq!(
        code,
        0,
        "exit code against the clean reference server over {}",
        transport.name()
    );
    assert!(report["fatal"].is_null());
    assert_eq!(report["protocol"]["version"], "2025-11-25");
    assert_eq!(report["protocol"]["era"], "handshake");
    let this = match transport {
        Transport::Stdio | Transport::StatelessStdio => "stdio",
        Transport::Http
        | Transport::StatelessHttp
        | Transport::AuthHttp
        | Transport::OAuth
        | Transport::StatelessAuth
        | Transport::LegacyAuth => "http",
        Transport::LegacySse => "sse",
    };
    assert_eq!(report["target"]["transport"], this);
    for check in report["checks"].as_array().unwrap() {
        let (id, status) = (
            check["id"].as_str().unwrap(),
            check["status"].as_str().unwrap(),
        );
        // A check for other transports.
        let other = (check["reason"]["kind"] == "transport")
            .then(|| &check["reason"]["transports"])
            .filter(|transports| !transports.as_array().unwrap().iter().any(|t| t == this));
        if let Some(other) = other {
            assert_eq!(status, "skip", "{id} is for {other} only");
        } else if id.starts_with("stateless-")
            || id.starts_with("tasks-ext-")
            || id == "skills-cache-hints"
            || id == "skills-result-type"
            || id.contains("-undeclared-")
            || id.ends_with("-offline-access")
            || id.starts_with("auth-origin-")
            || (id.starts_with("auth-")
                && !matches!(transport, Transport::AuthHttp | Transport::OAuth))
            || (matches!(
                id,
                "auth-other-audience-refused" | "auth-shared-audience-refused"
            ) && transport != Transport::OAuth)
            || (id == "auth-expired-token-refused" && transport != Transport::AuthHttp)
        {
            // The authorization checks, too, where the server is not protected.
            // The stateless era's checks (the tasks extension's, the skills extension's
            // caching hints and the authorization checks of 2026-07-28 among them), and those of
            // capabilities the server does not declare.
            assert_eq!(status, "skip", "{id} does not apply to the clean server");
        } else if id == "auth-server-metadata-registration" && transport == Transport::OAuth {
            // oauth2-mock-server offers neither Client ID Metadata Documents nor registration:
            // the deployment's authorization server, reported under the server (a SHOULD).
            assert_eq!(status, "warn", "{id}: {}", check["message"]);
        } else {
            assert_eq!(
                status,
                "pass",
                "{id} over {}: {}",
                transport.name(),
                check["message"]
            );
        }
    }
}

fn expectations() -> BTreeMap<String, BTreeMap<&'static str, BTreeMap<String, String>>> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quirks.toml")).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let mut out = BTreeMap::new();
    for (quirk, sections) in table {
        let mut per: BTreeMap<&'static str, BTreeMap<String, String>> = BTreeMap::new();
        for (section, checks) in sections.as_table().unwrap() {
            let targets: Vec<&'static str> = match section.as_str() {
                "both" => vec!["stdio", "http"],
                "stdio" => vec!["stdio"],
                "http" => vec!["http"],
                "stateless" => vec!["stateless-stdio", "stateless-http"],
                "stateless-stdio" => vec!["stateless-stdio"],
                "stateless-http" => vec!["stateless-http"],
                "sse" => vec!["sse"],
                "auth" => vec!["auth"],
                "oauth" => vec!["oauth"],
                "stateless-auth" => vec!["stateless-auth"],
                "legacy-auth" => vec!["legacy-auth"],
                other => panic!("[{quirk}]: unknown section `{other}`"),
            };
            for target in targets {
                for (check, status) in checks.as_table().unwrap() {
                    per.entry(target)
                        .or_default()
                        .insert(check.clone(), status.as_str().unwrap().to_string());
                }
            }
        }
        out.insert(quirk, per);
    }
    out
}

/// Every quirk of the reference server with the runs it shows in.
fn server_quirks() -> BTreeMap<String, &'static [Transport]> {
    let output = Command::new(reference_server())
        .arg("--list-quirks")
        .output()
        .unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next().unwrap().to_string();
            (name, Transport::for_modes(words.next().unwrap()))
        })
        .collect()
}

/// Messages and notes that speak of how a scenario is wired (a placeholder, a step's name)
/// instead of what the server did.
fn wiring_words(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            ["message", "note"].into_iter().filter_map(move |field| {
                let text = c[field].as_str()?;
                (text.contains("{{") || text.contains("step `"))
                    .then(|| format!("{}: {text}", c["id"].as_str().unwrap_or_default()))
            })
        })
        .collect()
}

/// The checks a run skipped because the server, as the quirk made it, no longer meets their
/// scenario's requirements: another protocol version negotiated, a capability no longer (or now)
/// declared, a fixture no longer listed; and the checks that could not be made because a request
/// whose value their step needs got no result, where a check of the same scenario file is among
/// those the quirk is for (`listed`), so that the failure is seen where it happens (a request
/// that no listed check of its scenario judges keeps its consequences listed). Such changes are
/// collateral, not what a quirk is for, so tests/quirks.toml does not list them; every other
/// change of status it lists.
fn collateral(report: &Value, listed: &BTreeMap<String, String>) -> BTreeSet<String> {
    const REQUIREMENTS: &[&str] = &[
        "transport",
        "era",
        "version",
        "capability",
        "extension",
        "declared",
        "capabilities-unknown",
        "fixture",
    ];
    let checks = report["checks"].as_array().unwrap();
    let file = |c: &Value| {
        let source = c["source"].as_str().unwrap_or_default();
        source.split(':').next().unwrap_or_default().to_string()
    };
    // The files of the listed checks that show a failure themselves (not one of these
    // consequences).
    let judged_files: BTreeSet<String> = checks
        .iter()
        .filter(|c| listed.contains_key(c["id"].as_str().unwrap_or_default()))
        .filter(|c| c["reason"]["kind"] != "unanswered")
        .map(file)
        .collect();
    checks
        .iter()
        .filter(|c| {
            let kind = c["reason"]["kind"].as_str().unwrap_or_default();
            (c["status"] == "skip" && REQUIREMENTS.contains(&kind))
                || (c["status"] == "not-testable"
                    && kind == "unanswered"
                    && judged_files.contains(&file(c)))
        })
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// One quirk in one run: exactly the checks tests/quirks.toml lists change, to the listed status.
fn quirk_changes_its_checks(
    quirk: &str,
    transport: Transport,
    want: &BTreeMap<String, String>,
) -> Result<(), Failed> {
    if !available(transport) {
        return Ok(());
    }
    let (_, report) = run(transport, &[quirk]);
    let baseline = statuses(&clean(transport).1);
    let got = statuses(&report);
    let collateral = collateral(&report, want);
    let mut problems: Vec<String> = wiring_words(&report);
    // A run that could not test the server reports no checks, and so would change none: a quirk
    // that expects no change must leave the server testable (one that ends the run on purpose,
    // legacy-sse-endpoint-cross-origin, names the check that says so).
    if want.is_empty() && !report["fatal"].is_null() && clean(transport).1["fatal"].is_null() {
        problems.push(format!(
            "--quirk {quirk} over {}: the run could not test the server: {}",
            transport.name(),
            report["fatal"]
        ));
    }
    for (id, status) in want {
        if collateral.contains(id) && got.get(id) == Some(status) {
            problems.push(format!(
                "tests/quirks.toml [{quirk}] lists {id} = \"{status}\" over {}, a collateral change the self-test derives: leave it out",
                transport.name()
            ));
        }
    }
    let changed: BTreeMap<String, String> = got
        .iter()
        .filter(|(id, s)| baseline.get(*id) != Some(s) && !collateral.contains(*id))
        .map(|(id, s)| (id.clone(), s.clone()))
        .collect();
    if &changed != want {
        let messages: Vec<String> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                let id = c["id"].as_str().unwrap_or_default();
                changed.contains_key(id) != want.contains_key(id)
            })
            .map(|c| format!("  {} {}: {}", c["id"], c["status"], c["message"]))
            .collect();
        problems.push(format!(
            "--quirk {quirk} over {}: expected changes {want:?}, got {changed:?}\n{}",
            transport.name(),
            messages.join("\n")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// tests/quirks.toml and `--list-quirks` name the same quirks, each in runs the quirk shows in.
fn quirks_toml_names_every_quirk() -> Result<(), Failed> {
    let quirks = server_quirks();
    let expected = expectations();
    if quirks.keys().ne(expected.keys()) {
        let listed: BTreeSet<&String> = quirks.keys().collect();
        let written: BTreeSet<&String> = expected.keys().collect();
        return Err(format!(
            "tests/quirks.toml and --list-quirks must name the same quirks; only the server has {:?}, only the file {:?}",
            listed.difference(&written).collect::<Vec<_>>(),
            written.difference(&listed).collect::<Vec<_>>()
        )
        .into());
    }
    for (quirk, per) in &expected {
        let modes: Vec<&str> = quirks[quirk].iter().map(|t| t.name()).collect();
        for mode in per.keys() {
            if !modes.contains(mode) {
                return Err(format!(
                    "tests/quirks.toml [{quirk}] names {mode}, but the quirk runs in {modes:?}"
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Every check of the library is made to fail or warn by some quirk (each quirk's test holds
/// that its listed changes happen).
fn every_check_has_a_quirk() -> Result<(), Failed> {
    let flipped: BTreeSet<String> = expectations()
        .values()
        .flat_map(|per| per.values())
        .flat_map(|checks| checks.iter())
        .filter(|(_, s)| *s == "fail" || *s == "warn")
        .map(|(id, _)| id.clone())
        .collect();
    let every_check: BTreeSet<String> = Transport::ALL
        .iter()
        .flat_map(|t| statuses(&clean(*t).1).into_keys())
        .collect();
    let unproven: Vec<&String> = every_check.difference(&flipped).collect();
    if unproven.is_empty() {
        Ok(())
    } else {
        Err(format!("checks that no quirk makes fail or warn: {unproven:?}").into())
    }
}

/// `mcpcheck list` names exactly the checks a run reports.
fn list_names_every_check_that_runs() -> Result<(), Failed> {
    let output = mcpcheck().args(["list", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed: BTreeSet<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let ran: BTreeSet<String> = statuses(&clean(Transport::Stdio).1).into_keys().collect();
    assert_eq!(listed, ran.iter().map(String::as_str).collect());
    Ok(())
}

fn main() {
    // The runs are made in this process (see [`run_in_process`]): the tokens their flags name
    // from the environment are set here, before any thread starts.
    // Every run's pipes and sockets are this process's: its soft limit of open files is raised
    // to the hard one (each mcpcheck process had a limit of its own).
    // SAFETY: getrlimit and setrlimit only read and set this process's limit.
    unsafe {
        let mut limit = std::mem::zeroed::<libc::rlimit>();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
    for (name, value) in [
        ("MCPCHECK_SELFTEST_TOKEN", SELFTEST_TOKEN),
        ("MCPCHECK_SELFTEST_EXPIRED", SELFTEST_EXPIRED),
        ("MCPCHECK_SELFTEST_SECRET", "mcpcheck-selftest-secret"),
    ] {
        std::env::set_var(name, value);
    }
    let mut args = Arguments::from_args();
    args.test_threads.get_or_insert(RUNS_AT_ONCE);
    let expected = expectations();
    let mut trials = Vec::new();
    // The clean runs first: every quirk's test of a run waits for its baseline.
    for transport in [
        Transport::Stdio,
        Transport::Http,
        Transport::LegacySse,
        Transport::AuthHttp,
        Transport::OAuth,
    ] {
        trials.push(Trial::test(
            format!("clean::{}", transport.name()),
            move || {
                assert_clean(transport);
                Ok(())
            },
        ));
    }
    for transport in [
        Transport::StatelessStdio,
        Transport::StatelessHttp,
        Transport::StatelessAuth,
    ] {
        trials.push(Trial::test(
            format!("clean::{}", transport.name()),
            move || {
                a_stateless_server_is_detected_and_judged_at_2026_07_28(transport);
                Ok(())
            },
        ));
    }
    trials.push(Trial::test("clean::legacy-auth", || {
        a_protected_server_is_judged_at_its_origin_at_2025_03_26();
        Ok(())
    }));
    trials.push(Trial::test(
        "quirks_toml_names_every_quirk",
        quirks_toml_names_every_quirk,
    ));
    trials.push(Trial::test(
        "every_check_has_a_quirk",
        every_check_has_a_quirk,
    ));
    trials.push(Trial::test(
        "list_names_every_check_that_runs",
        list_names_every_check_that_runs,
    ));
    for (quirk, transports) in server_quirks() {
        for transport in transports {
            let want = expected
                .get(&quirk)
                .and_then(|per| per.get(transport.name()))
                .cloned()
                .unwrap_or_default();
            let name = quirk.clone();
            trials.push(Trial::test(
                format!("quirk::{quirk}::{}", transport.name()),
                move || quirk_changes_its_checks(&name, *transport, &want),
            ));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The clean server in the stateless era: detected, judged at 2026-07-28, and passing every
/// check that applies.
fn a_stateless_server_is_detected_and_judged_at_2026_07_28(transport: Transport) {
    {
        let (code, report) = clean(transport);
        assert_eq!(*code, 0, "{}", transport.name());
        assert_eq!(report["protocol"]["era"], "stateless");
        assert_eq!(report["protocol"]["version"], "2026-07-28");
        assert_eq!(report["protocol"]["detection"], "server/discover answered");
        assert_eq!(
            report["protocol"]["serverInfo"]["name"],
            "mcpcheck-reference-server"
        );
        let checks = report["checks"].as_array().unwrap();
        let by_id = statuses(report);
        let status = |id: &str| by_id[id].clone();
        assert_eq!(status("lifecycle-initialize-result"), "skip");
        assert_eq!(status("resources-read-missing-error"), "pass");
        assert_eq!(status("stateless-meta-required"), "pass");
        if transport == Transport::StatelessAuth {
            // A protected server of the stateless era is judged as a resource server there.
            for id in [
                "auth-missing-token-401",
                "auth-metadata-resource",
                "auth-foreign-key-token-refused",
                "auth-challenge-offline-access",
                "auth-metadata-offline-access",
            ] {
                assert_eq!(status(id), "pass", "{id}");
            }
        }
        // The clean server passes everything that applies to the stateless era.
        for check in checks {
            let (id, verdict) = (
                check["id"].as_str().unwrap(),
                check["status"].as_str().unwrap(),
            );
            assert!(
                verdict == "pass" || verdict == "skip",
                "{id} over {}: {verdict}: {}",
                transport.name(),
                check["message"]
            );
        }
        let sent = checks
            .iter()
            .find(|c| c["id"] == "jsonrpc-method-not-found")
            .unwrap()["evidence"][0]["sent"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            sent.contains("\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""),
            "{sent}"
        );
    }
}

/// The clean protected server judged at 2025-03-26: its origin serves the authorization server
/// metadata (so the default endpoints are not judged), and every authorization check of that
/// revision passes.
fn a_protected_server_is_judged_at_its_origin_at_2025_03_26() {
    let (code, report) = clean(Transport::LegacyAuth);
    assert_eq!(*code, 0, "{}", report["summary"]);
    assert_eq!(report["protocol"]["version"], "2025-03-26");
    let checks = report["checks"].as_array().unwrap();
    let by_id = statuses(report);
    let status = |id: &str| by_id[id].clone();
    for id in [
        "auth-missing-token-401",
        "auth-missing-token-challenge",
        "auth-garbage-token-refused",
        "auth-tampered-token-refused",
        "auth-expired-token-refused",
        "auth-origin-metadata",
    ] {
        assert_eq!(status(id), "pass", "{id}");
    }
    // Later revisions' discovery does not apply; the defaults are not used where metadata is.
    for id in [
        "auth-metadata-discoverable",
        "auth-other-audience-refused",
        "auth-origin-default-endpoints",
    ] {
        assert_eq!(status(id), "skip", "{id}");
    }
    for check in checks {
        assert_eq!(check["area"], "authorization", "{check}");
        assert!(
            check["status"] == "pass" || check["status"] == "skip",
            "{}: {}",
            check["id"],
            check["message"]
        );
    }
}
