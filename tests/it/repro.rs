//! `mcpcheck repro`: the script printed for a failing check, run with `sh`, shows the server's
//! deviation again, over stdio and over HTTP, without mcpcheck; secrets stay out of it.

use std::process::Command;

use crate::support::{mcpcheck, output, stdio_command, HttpServer};

/// Runs mcpcheck with these arguments and writes its JSON report to a temporary file.
fn report(name: &str, args: &[&str]) -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("mcpcheck-repro-{}-{name}.json", std::process::id()));
    let out = mcpcheck()
        .arg("run")
        .args(args)
        .arg("--json")
        .arg(&path)
        .output()
        .expect("mcpcheck runs");
    assert!(
        path.exists(),
        "no report: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

fn repro(check: &str, report: &std::path::Path) -> String {
    let out = output(&["repro", check, "--report", report.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn sh(script: &str, env: &[(&str, &str)]) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .envs(env.iter().copied())
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_stdio_failure_replays_with_the_server_command_and_its_frames() {
    let path = report(
        "stdio",
        &["--stdio", &stdio_command(&["method-not-found-no-message"])],
    );
    let script = repro("jsonrpc-error-shape", &path);
    assert!(
        script.starts_with("#!/bin/sh\n# mcpcheck repro: jsonrpc-error-shape (MUST)"),
        "{script}"
    );
    assert!(
        script.contains("\"method\":\"initialize\""),
        "the handshake comes first: {script}"
    );
    let replayed = sh(&script, &[]);
    // The quirk: -32601 without a message, as the report said.
    assert!(
        replayed.contains(r#""error":{"code":-32601}"#),
        "{replayed}"
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn an_http_failure_replays_as_curl_commands_with_the_session_carried() {
    let server = HttpServer::start(&["no-origin-check"]);
    let path = report(
        "http",
        &["--url", &server.url, "--check", "http-origin-rejected"],
    );
    let script = repro("http-origin-rejected", &path);
    assert!(
        script.contains("-H 'Origin: http://evil.example'"),
        "{script}"
    );
    assert!(
        script.contains("-H \"Mcp-Session-Id: $SESSION\""),
        "{script}"
    );
    let replayed = sh(&script, &[]);
    // The foreign Origin served, with the session the script's handshake opened.
    assert!(replayed.contains("HTTP/1.1 200"), "{replayed}");
    assert!(replayed.contains(r#""result":{}"#), "{replayed}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_redacted_header_is_asked_for_from_the_environment_and_never_written_out() {
    let server = HttpServer::start(&["no-origin-check"]);
    let secret = "repro-secret-token-1234";
    let path = report(
        "secret",
        &[
            "--url",
            &server.url,
            "--check",
            "http-origin-rejected",
            "-H",
            &format!("Authorization: Bearer {secret}"),
        ],
    );
    let script = repro("http-origin-rejected", &path);
    assert!(!script.contains(secret), "{script}");
    assert!(
        script.contains("$MCPCHECK_HEADER_AUTHORIZATION"),
        "{script}"
    );
    assert!(
        sh(&script, &[]).is_empty(),
        "without the variable the script stops"
    );
    let replayed = sh(&script, &[("MCPCHECK_HEADER_AUTHORIZATION", "Bearer x")]);
    assert!(replayed.contains("HTTP/1.1 200"), "{replayed}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_bad_token_check_replays_with_the_bad_token_made_again_from_the_users() {
    // A JWT (the server compares it whole); the quirk takes a JWT signed with any key.
    let token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InJlcHJvIn0.eyJzdWIiOiJyZXBybyIsImV4cCI6NDEwMjQ0NDgwMH0.c2lnbmF0dXJlLW9mLXRoZS11c2Vy";
    let server = HttpServer::start_with(&[
        "--static-token",
        token,
        "--quirk",
        "auth-accepts-unverified-jwt",
    ]);
    let path = report(
        "bad-token",
        &[
            "--url",
            &server.url,
            "--check",
            "auth-*",
            "-H",
            &format!("Authorization: Bearer {token}"),
        ],
    );
    let script = repro("auth-foreign-key-token-refused", &path);
    let made = mcpcheck::record::token::MadeUp::from(token);
    assert!(
        !script.contains(token) && !script.contains(&made.foreign_key),
        "{script}"
    );
    assert!(
        script.contains("-H \"Authorization: $MCPCHECK_TOKEN_FOREIGN_KEY\""),
        "the frame sends the made-up token, not the user's: {script}"
    );
    let handshake = script
        .lines()
        .find(|l| l.starts_with("SESSION="))
        .unwrap_or_else(|| panic!("no handshake: {script}"));
    assert!(
        handshake.contains("-H \"Authorization: $MCPCHECK_HEADER_AUTHORIZATION\""),
        "the handshake carries the user's token: {script}"
    );
    // mcpcheck makes the token again from the user's: the server takes it, as in the run.
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path_var = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let user = format!("Bearer {token}");
    let replayed = sh(
        &script,
        &[
            ("MCPCHECK_HEADER_AUTHORIZATION", user.as_str()),
            ("PATH", path_var.as_str()),
        ],
    );
    assert!(
        replayed.contains(">>> foreign-key") && replayed.contains("HTTP/1.1 200"),
        "{replayed}"
    );
    // The token mcpcheck prints is the one the run sent.
    let printed = mcpcheck()
        .args(["token", "foreign-key"])
        .env("MCPCHECK_HEADER_AUTHORIZATION", &user)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout),
        format!("Bearer {}\n", made.foreign_key)
    );
    let unset = mcpcheck()
        .args(["token", "alg-none"])
        .env_remove("MCPCHECK_HEADER_AUTHORIZATION")
        .output()
        .unwrap();
    assert_eq!(unset.status.code(), Some(2));
    let _ = std::fs::remove_file(path);
}

#[test]
fn an_unknown_check_or_an_era_left_unnamed_is_a_usage_error() {
    let dual = format!(
        "{} --dual-era",
        crate::support::reference_server().display()
    );
    let path = report(
        "dual",
        &["--stdio", &dual, "--check", "jsonrpc-parse-error"],
    );
    let out = output(&["repro", "no-such-check", "--report", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = output(&[
        "repro",
        "jsonrpc-parse-error",
        "--report",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("jsonrpc-parse-error@2025-11-25"),
        "{stderr}"
    );
    let script = repro("jsonrpc-parse-error@2025-11-25", &path);
    assert!(script.contains("judged at 2025-11-25"), "{script}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn the_markdown_and_html_reports_carry_the_replay_script_beside_the_failure() {
    let dir = std::env::temp_dir().join(format!("mcpcheck-repro-inline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (md, html) = (dir.join("report.md"), dir.join("report.html"));
    let out = mcpcheck()
        .args([
            "run",
            "--stdio",
            &stdio_command(&["method-not-found-no-message"]),
            "--check",
            "jsonrpc-error-shape",
            "--markdown",
            md.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ])
        .output()
        .expect("mcpcheck runs");
    assert_eq!(out.status.code(), Some(1));
    let markdown = std::fs::read_to_string(&md).unwrap();
    let block = markdown
        .split("<summary>replay (sh)</summary>\n\n````sh\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_else(|| panic!("no replay block: {markdown}"));
    assert!(block.starts_with("#!/bin/sh\n"), "{block}");
    let replayed = sh(block, &[]);
    // The quirk: an error -32601 without its message.
    assert!(
        replayed.contains(r#""error":{"code":-32601,"#) && !replayed.contains(r#""message""#),
        "{replayed}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<summary>replay (sh)</summary><pre>#!/bin/sh\n"),
        "{page}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
