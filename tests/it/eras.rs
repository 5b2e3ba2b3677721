//! Every era a server speaks: the reference server in `--dual-era` mode answers server/discover
//! and completes initialize, so one run judges it at 2026-07-28 and in the handshake era.

use serde_json::Value;

use crate::support::{output, reference_server, run_json, statuses, HttpServer};

fn dual(quirks: &[&str]) -> String {
    let mut command = format!("{} --dual-era", reference_server().display());
    for quirk in quirks {
        command.push_str(&format!(" --quirk {quirk}"));
    }
    command
}

fn versions_of(report: &Value) -> Vec<String> {
    std::iter::once(&report["protocol"])
        .chain(report["otherEras"].as_array().into_iter().flatten())
        .map(|p| p["version"].as_str().unwrap_or("-").to_string())
        .collect()
}

#[test]
fn a_dual_era_server_is_judged_in_both_eras_and_each_result_names_its_version() {
    let (code, report, _) = run_json(&["--stdio", &dual(&[])]);
    assert_eq!(code, 0, "a clean dual-era run passes");
    assert_eq!(report["schemaVersion"], 2);
    assert_eq!(versions_of(&report), ["2026-07-28", "2025-11-25"]);
    let checks = report["checks"].as_array().unwrap();
    assert!(
        checks.iter().all(|c| c["version"].is_string()),
        "every result names its version"
    );
    let statuses = statuses(&report);
    // Judged in both eras: one result each.
    assert_eq!(statuses["jsonrpc-parse-error@2026-07-28"], "pass");
    assert_eq!(statuses["jsonrpc-parse-error@2025-11-25"], "pass");
    // Only in the era it belongs to, under its plain id.
    assert_eq!(statuses["lifecycle-version-echo"], "pass");
    assert_eq!(statuses["stateless-removed-methods"], "pass");
    let echo = checks
        .iter()
        .find(|c| c["id"] == "lifecycle-version-echo")
        .unwrap();
    assert_eq!(echo["version"], "2025-11-25");
    assert!(echo.get("perEra").is_none());
}

/// Over Streamable HTTP too: each request is of the era it says it is (a session id or
/// initialize, or a `_meta` protocol version), and mcpcheck sends a stateless-era request no
/// session id, even after the server issued one to an initialize on the same connection.
#[test]
fn a_dual_era_server_over_http_is_judged_in_both_eras_without_a_finding() {
    let server = HttpServer::start_with(&["--dual-era"]);
    let (code, report, _) = run_json(&["--url", &server.url, "--fixtures", "everything"]);
    assert_eq!(code, 0, "{}", report["summary"]);
    assert_eq!(versions_of(&report), ["2026-07-28", "2025-11-25"]);
    assert_eq!(report["summary"]["warn"], 0, "{}", report["summary"]);
    let statuses = statuses(&report);
    assert_eq!(statuses["stateless-post-last-event-id"], "pass");
    assert_eq!(statuses["stateless-http-post-only"], "pass");
    assert_eq!(statuses["http-session-delete"], "pass");
}

#[test]
fn a_deviation_in_the_handshake_era_of_a_dual_era_server_fails_the_run() {
    // Before dual-era runs, this server was judged at 2026-07-28 only and passed.
    let (code, report, _) = run_json(&["--stdio", &dual(&["version-no-echo"])]);
    assert_eq!(code, 1);
    assert_eq!(statuses(&report)["lifecycle-version-echo"], "fail");
    let (code, report, _) = run_json(&["--stdio", &dual(&["stateless-answer-removed"])]);
    assert_eq!(code, 1);
    assert_eq!(statuses(&report)["stateless-removed-methods"], "fail");
}

#[test]
fn the_verdict_line_and_the_header_name_every_version_judged() {
    let out = output(&["run", "--stdio", &dual(&[])]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("protocol 2026-07-28 (stateless era) and 2025-11-25 (handshake era)"),
        "{text}"
    );
    assert!(
        text.contains("conforms to MCP 2026-07-28 and 2025-11-25:"),
        "{text}"
    );
}

#[test]
fn a_stateless_only_server_is_judged_in_its_era_and_the_report_says_why_not_the_other() {
    let command = format!("{} --stateless", reference_server().display());
    let (code, report, _) = run_json(&["--stdio", &command]);
    assert_eq!(code, 0);
    assert_eq!(versions_of(&report), ["2026-07-28"]);
    let note = report["erasNote"].as_str().expect("erasNote");
    assert!(
        note.starts_with("the handshake era was not judged"),
        "{note}"
    );
    assert!(note.contains("-32022"), "{note}");
}

#[test]
fn pinned_versions_are_judged_one_pass_each_in_their_order() {
    let (code, report, _) = run_json(&["--stdio", &dual(&[]), "--spec-version", "2025-06-18"]);
    assert_eq!(code, 0);
    assert_eq!(versions_of(&report), ["2025-06-18"]);
    assert!(report.get("erasNote").is_none());
    let (_, report, _) = run_json(&[
        "--stdio",
        &dual(&[]),
        "--spec-version",
        "2025-11-25",
        "--spec-version",
        "2026-07-28",
    ]);
    assert_eq!(versions_of(&report), ["2025-11-25", "2026-07-28"]);
}

#[test]
fn a_check_pattern_can_name_an_era() {
    let (_, report, _) = run_json(&[
        "--stdio",
        &dual(&[]),
        "--check",
        "jsonrpc-parse-error@2025-11-25",
    ]);
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(checks[0]["version"], "2025-11-25");
    let out = output(&[
        "run",
        "--stdio",
        &dual(&[]),
        "--check",
        "jsonrpc-parse-error@1999-01-01",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a known protocol version"));
}

#[test]
fn a_baseline_entry_can_name_an_era() {
    let dir = std::env::temp_dir().join(format!("mcpcheck-eras-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let baseline = dir.join("baseline.toml");
    let server = dual(&["jsonrpc-missing-on-errors"]);
    let run = |entries: &str| {
        std::fs::write(&baseline, entries).unwrap();
        run_json(&["--stdio", &server, "--baseline", baseline.to_str().unwrap()]).0
    };
    // The deviation fails jsonrpc-version-field in both eras.
    assert_eq!(
        run("[checks.\"jsonrpc-version-field@2025-11-25\"]\nreason = \"known\"\n"),
        1
    );
    assert_eq!(
        run("[checks.\"jsonrpc-version-field@2025-11-25\"]\nreason = \"known\"\n[checks.\"jsonrpc-version-field@2026-07-28\"]\nreason = \"known\"\n"),
        0
    );
    assert_eq!(
        run("[checks.jsonrpc-version-field]\nreason = \"known in every era\"\n"),
        0
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_pinned_version_the_server_refuses_leaves_what_the_others_judged_standing() {
    // The second pass cannot start (a stateless-only server refuses initialize); the first
    // pass's verdicts decide the exit code, and the report says why the other was not judged.
    let command = format!("{} --stateless", reference_server().display());
    let (code, report, _) = run_json(&[
        "--stdio",
        &command,
        "--spec-version",
        "2026-07-28",
        "--spec-version",
        "2025-11-25",
    ]);
    assert_eq!(code, 0, "{}", report["fatal"]);
    assert!(report["fatal"].is_null());
    assert!(report["summary"]["pass"].as_u64().unwrap() > 50);
    let note = report["erasNote"].as_str().unwrap();
    assert!(
        note.contains("at 2025-11-25") && note.contains("-32022"),
        "{note}"
    );
}

#[test]
fn a_dual_era_run_over_stdio_starts_few_processes_and_counts_them() {
    // Per era: the main connection, two lanes that the probes and the scenarios with a
    // connection of their own share, and what needs a connection no one has spoken on (the
    // scenarios without a handshake, the legacy initialize); once per run, the early-exit
    // start. Every other start is a lane connection a scenario ended, which none does here.
    let (code, report, stderr) = run_json(&["--stdio", &dual(&[])]);
    assert_eq!(code, 0, "{stderr}");
    let starts = report["processStarts"].as_u64().expect("processStarts");
    assert!(starts <= 13, "{starts} starts");
    assert!(report["probesEnded"].is_null(), "{}", report["probesEnded"]);
    let early: Vec<String> = statuses(&report)
        .into_iter()
        .filter(|(id, _)| id.starts_with("stdio-exit-before-initialize"))
        .map(|(_, status)| status)
        .collect();
    assert_eq!(
        early,
        ["pass", "pass"],
        "judged in each era, from the one start"
    );
}
