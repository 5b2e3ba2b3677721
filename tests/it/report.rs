use crate::support::{run_json, stdio_command, HttpServer};

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn clean_stdio_report_snapshot() {
    let command = stdio_command(&[]);
    let mut args = vec!["--stdio", &command, "-q"];
    args.extend(crate::support::SNAPSHOT_LIBRARY);
    let (code, mut report, _) = run_json(&args);
    assert_eq!(code, 0);
    crate::support::scrub_volatile(&mut report);
    settings().bind(|| {
        insta::assert_json_snapshot!("clean-stdio-report", report, {
            ".startedAt" => "[time]",
            ".durationMs" => "[ms]",
            // The newest grading profile moves on as checks are added; the snapshot does not.
            ".grading.profile" => "[latest]",
            ".target.command" => "[command]",
            ".server.stderrTail" => "[stderr]",
            ".server.exit.exitMs" => "[ms]",
            ".checks[].evidence[].elapsedMs" => "[ms]",
            ".checks[].message" => insta::dynamic_redaction(|value, _| {
                let text = value.as_str().unwrap_or_default().to_string();
                // "exited 12 ms after stdin closed" varies with the machine.
                insta::internals::Content::from(if text.starts_with("exited ") { "[exit timing]".to_string() } else { text })
            }),
            ".checks[].evidence[].remark" => insta::dynamic_redaction(|value, _| {
                let text = value.as_str().unwrap_or_default().to_string();
                insta::internals::Content::from(if text.starts_with("stopped by ") { "[exit]".to_string() } else { text })
            }),
        });
    });
}

#[test]
fn header_secrets_never_reach_any_output() {
    let server = HttpServer::start(&[]);
    let output = crate::support::mcpcheck()
        .env("MCPCHECK_IT_TOKEN", "sekrit-value-4711")
        .args([
            "run",
            "--url",
            &server.url,
            "-H",
            "Authorization: Bearer $MCPCHECK_IT_TOKEN",
            "-H",
            "X-Api-Key: plain-key-0815",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    for secret in ["sekrit-value-4711", "plain-key-0815"] {
        assert!(
            !stdout.contains(secret) && !stderr.contains(secret),
            "{secret} leaked"
        );
    }
    assert!(
        stdout.contains("Authorization: [redacted]"),
        "the header itself is still shown"
    );
}

#[test]
fn the_terminal_table_shows_expected_and_actual_for_failures() {
    let out = crate::support::output(&[
        "run",
        "--stdio",
        &stdio_command(&["missing-resource-empty-contents"]),
        "--check",
        "resources-read-missing-*",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("fail") && text.contains("resources-read-missing-error"),
        "{text}"
    );
    assert!(
        text.contains("actual:   result {\"contents\":[]}"),
        "{text}"
    );
    assert!(text.contains("expected: JSON-RPC error -32602"), "{text}");
    // Where: the scenario and the requirement, on one line.
    assert!(
        text.contains("see:      scenarios/resources/read-missing.toml:"),
        "{text}"
    );
    assert!(text.contains(" · https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling"), "{text}");
    assert!(
        text.contains("does not conform to MCP 2025-11-25: 0 passed, 1 failed, 1 not testable"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "no colour when stdout is not a terminal"
    );
}
