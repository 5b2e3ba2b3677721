use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

use crate::support::{mcpcheck, reference_server, run_json, statuses, HttpServer};

/// How the reference server runs: the transport, and the era it speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
    StatelessStdio,
    StatelessHttp,
    /// The 2024-11-05 HTTP+SSE transport, which the HTTP reference server serves at `/sse`.
    LegacySse,
}

impl Transport {
    const HANDSHAKE: [Transport; 2] = [Transport::Stdio, Transport::Http];
    const STATELESS: [Transport; 2] = [Transport::StatelessStdio, Transport::StatelessHttp];

    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::StatelessStdio => "stateless-stdio",
            Transport::StatelessHttp => "stateless-http",
            Transport::LegacySse => "sse",
        }
    }

    /// The modes a quirk runs in: `stateless-*` quirks (and `ext-task-*`, the 2026-07-28 tasks
    /// extension's) change only the stateless era, `legacy-sse-*` ones only the HTTP+SSE
    /// transport.
    fn for_quirk(quirk: &str) -> &'static [Transport] {
        if quirk.starts_with("stateless-") || quirk.starts_with("ext-task-") {
            &Transport::STATELESS
        } else if quirk.starts_with("legacy-sse-") {
            &[Transport::LegacySse]
        } else {
            &Transport::HANDSHAKE
        }
    }
}

/// Runs the whole library (with the `everything` fixture checks, and the probe call that
/// `--call-tools` allows) against the reference server with these quirks.
fn run(transport: Transport, quirks: &[&str]) -> (i32, Value) {
    let mut args: Vec<&str> = quirks.iter().flat_map(|q| ["--quirk", *q]).collect();
    match transport {
        Transport::Stdio | Transport::StatelessStdio => {
            if transport == Transport::StatelessStdio {
                args.push("--stateless");
            }
            let command = format!("{} {}", reference_server().display(), args.join(" "));
            let (code, report, _) = run_json(&[
                "--stdio",
                &command,
                "--fixtures",
                "everything",
                "--call-tools",
                "all",
                "-q",
            ]);
            (code, report)
        }
        Transport::Http | Transport::StatelessHttp | Transport::LegacySse => {
            if transport == Transport::StatelessHttp {
                args.push("--stateless");
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
            let (code, report, _) = run_json(&flags);
            (code, report)
        }
    }
}

fn assert_clean(transport: Transport) {
    let (code, report) = run(transport, &[]);
    assert_eq!(wiring_words(&report), Vec::<String>::new());
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
        Transport::Http | Transport::StatelessHttp => "http",
        Transport::LegacySse => "sse",
    };
    assert_eq!(report["target"]["transport"], this);
    for check in report["checks"].as_array().unwrap() {
        let (id, status) = (
            check["id"].as_str().unwrap(),
            check["status"].as_str().unwrap(),
        );
        // "applies to the stdio transport only", "… the stdio and sse transports only".
        let other = check["message"]
            .as_str()
            .and_then(|m| m.strip_prefix("applies to the "))
            .filter(|m| m.ends_with(" only") && !m.split([' ', ',']).any(|w| w == this));
        if let Some(other) = other {
            assert_eq!(status, "skip", "{id} is for {other} only");
        } else if id.starts_with("stateless-")
            || id.starts_with("tasks-ext-")
            || id.contains("-undeclared-")
        {
            // The stateless era's checks (the tasks extension's among them), and those of
            // capabilities the server does not declare.
            assert_eq!(status, "skip", "{id} does not apply to the clean server");
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

#[test]
fn clean_stdio_server_passes_every_check() {
    assert_clean(Transport::Stdio);
}

#[test]
fn clean_http_server_passes_every_check() {
    assert_clean(Transport::Http);
}

#[test]
fn clean_legacy_sse_server_passes_every_check() {
    assert_clean(Transport::LegacySse);
}

/// tests/quirks.toml: quirk → transport → check → status (collateral skips left out).
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

fn server_quirks() -> BTreeSet<String> {
    let output = Command::new(reference_server())
        .arg("--list-quirks")
        .output()
        .unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
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
/// declared, a fixture no longer listed. Such skips are collateral, not what a quirk is for, so
/// tests/quirks.toml does not list them; every other change of status it lists.
fn collateral_skips(report: &Value) -> BTreeSet<String> {
    const REQUIREMENTS: &[&str] = &[
        "applies to protocol versions ",
        "applies to the ",
        "the server does not declare the ",
        "the server declares the ",
        "the server's capabilities are unknown",
        "the server lists no ",
        "the run's ",
    ];
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "skip")
        .filter(|c| {
            let message = c["message"].as_str().unwrap_or_default();
            REQUIREMENTS.iter().any(|r| message.starts_with(r))
        })
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// How many quirked runs the self-test has going at once.
const QUIRK_RUNS_AT_ONCE: usize = 8;

#[test]
fn every_quirk_flips_exactly_its_checks_and_every_check_has_a_quirk() {
    let expected = expectations();
    let quirks = server_quirks();
    assert_eq!(
        quirks,
        expected.keys().cloned().collect::<BTreeSet<_>>(),
        "tests/quirks.toml and --list-quirks must name the same quirks"
    );
    for (quirk, per) in &expected {
        let modes: Vec<&str> = Transport::for_quirk(quirk)
            .iter()
            .map(|t| t.name())
            .collect();
        for mode in per.keys() {
            assert!(
                modes.contains(mode),
                "tests/quirks.toml [{quirk}] names {mode}, but the quirk runs in {modes:?}"
            );
        }
    }
    let clean: BTreeMap<&str, BTreeMap<String, String>> = Transport::HANDSHAKE
        .iter()
        .chain(&Transport::STATELESS)
        .chain(&[Transport::LegacySse])
        .map(|t| (t.name(), statuses(&run(*t, &[]).1)))
        .collect();
    let jobs: Vec<(String, Transport)> = quirks
        .iter()
        .flat_map(|q| Transport::for_quirk(q).iter().map(|t| (q.clone(), *t)))
        .collect();
    let results = std::sync::Mutex::new(Vec::new());
    let wiring = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // A run against the reference server mostly waits (fixed waits of the library), so more
        // runs at once than cores keep the machine busy.
        for _ in 0..QUIRK_RUNS_AT_ONCE {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((quirk, transport)) = jobs.get(i) else {
                    break;
                };
                let (_, report) = run(*transport, &[quirk]);
                for words in wiring_words(&report) {
                    wiring
                        .lock()
                        .unwrap()
                        .push(format!("--quirk {quirk}: {words}"));
                }
                results.lock().unwrap().push((
                    quirk.clone(),
                    *transport,
                    statuses(&report),
                    collateral_skips(&report),
                ));
            });
        }
    });
    let mut problems = Vec::new();
    let mut flipped: BTreeSet<String> = BTreeSet::new();
    for (quirk, transport, got, collateral) in results.into_inner().unwrap() {
        let baseline = &clean[transport.name()];
        let want = expected[&quirk]
            .get(transport.name())
            .cloned()
            .unwrap_or_default();
        for (id, status) in &want {
            if status == "skip" && collateral.contains(id) {
                problems.push(format!(
                    "tests/quirks.toml [{quirk}] lists {id} = \"skip\" over {}, a collateral skip the self-test derives: leave it out",
                    transport.name()
                ));
            }
        }
        let changed: BTreeMap<String, String> = got
            .iter()
            .filter(|(id, s)| baseline.get(*id) != Some(s) && !collateral.contains(*id))
            .map(|(id, s)| (id.clone(), s.clone()))
            .collect();
        if changed != want {
            problems.push(format!(
                "--quirk {quirk} over {}: expected changes {want:?}, got {changed:?}",
                transport.name()
            ));
        }
        flipped.extend(
            changed
                .into_iter()
                .filter(|(_, s)| s == "fail" || s == "warn")
                .map(|(id, _)| id),
        );
    }
    let every_check: BTreeSet<String> = clean.values().flat_map(|m| m.keys().cloned()).collect();
    let unproven: Vec<&String> = every_check.difference(&flipped).collect();
    problems.extend(wiring.into_inner().unwrap());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        unproven.is_empty(),
        "checks that no quirk makes fail or warn: {unproven:?}"
    );
}

#[test]
fn list_names_every_check_that_runs() {
    let output = mcpcheck().args(["list", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed: BTreeSet<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let (_, report) = run(Transport::Stdio, &[]);
    let ran: BTreeSet<String> = statuses(&report).into_keys().collect();
    assert_eq!(listed, ran.iter().map(String::as_str).collect());
}

#[test]
fn a_stateless_server_is_detected_and_judged_at_2026_07_28() {
    for transport in Transport::STATELESS {
        let (code, report) = run(transport, &[]);
        assert_eq!(code, 0, "{}", transport.name());
        assert_eq!(report["protocol"]["era"], "stateless");
        assert_eq!(report["protocol"]["version"], "2026-07-28");
        assert_eq!(report["protocol"]["detection"], "server/discover answered");
        assert_eq!(
            report["protocol"]["serverInfo"]["name"],
            "mcpcheck-reference-server"
        );
        let checks = report["checks"].as_array().unwrap();
        let status = |id: &str| {
            checks.iter().find(|c| c["id"] == id).unwrap()["status"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(status("lifecycle-initialize-result"), "skip");
        assert_eq!(status("resources-read-missing-error"), "pass");
        assert_eq!(status("stateless-meta-required"), "pass");
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

#[test]
fn sse_responses_and_their_notifications_are_read_over_http() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("slow.toml"),
        r#"
id = "slow-progress"
area = "it"
title = "a slow tool reports progress"

[requires]
tools = ["mcpcheck_slow"]

[[step]]
name = "slow"
request = { method = "tools/call", params = { name = "mcpcheck_slow", arguments = { steps = 3, delayMs = 10 }, _meta = { progressToken = "tok-1" } } }

[[check]]
id = "slow-progress-result"
title = "the call completes"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic/utilities/progress" }]
step = "slow"
expect = "a result"
rule = [{ when = { reply = "result" }, verdict = "pass" }]
"#,
    )
    .unwrap();
    let server = HttpServer::start(&[]);
    let (code, report, _) = run_json(&[
        "--url",
        &server.url,
        "--scenarios",
        dir.path().to_str().unwrap(),
        "--no-builtin",
        "-q",
    ]);
    assert_eq!(code, 0);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "slow-progress-result")
        .unwrap();
    assert_eq!(check["status"], "pass", "{check}");
    let evidence = &check["evidence"][0];
    assert!(
        evidence["responseHeaders"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("content-type: text/event-stream")),
        "{evidence}"
    );
    let progress: Vec<&Value> = evidence["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{evidence}");
    assert_eq!(progress[2]["params"]["progress"], 3);
}
