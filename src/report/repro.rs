//! Replaying a verdict: a self-contained shell script that sends the exchanges behind one
//! check's verdict to the server again with standard tools, so that a failure can be reproduced
//! on a laptop without mcpcheck. Over stdio the server command is fed the exact frames (after
//! the handshake the check's session had); over Streamable HTTP each frame is a `curl` command
//! with the exact headers, the session id carried from the handshake to the later requests.
//! Secrets are never written out: a redacted header becomes an environment variable the script
//! asks for.

use std::fmt::Write as _;

use super::{CheckResult, Report};
use crate::record::version::{self, Era};
use crate::record::{was_cut, EVIDENCE_TEXT};

/// How the check's session began, which decides what the script sends before its frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// After the initialize handshake (the handshake era; a shared or fresh session).
    Handshake,
    /// Nothing first: a bare connection, or the stateless era (every frame carries `_meta`).
    Nothing,
}

/// What a redacted value begins with in a report (`[redacted]`, `[redacted auth.alg-none]`).
const REDACTED: &str = "[redacted";

/// Why no replay script can be written.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    /// No check of the report has the name.
    #[error("the report has no check `{0}`")]
    NoCheck(String),
    /// The check was judged in more than one era; the names of its results.
    #[error("`{name}` was judged in more than one era; name one: {}", .results.join(", "))]
    SeveralEras {
        /// The name given.
        name: String,
        /// Its results' names (`id@version`).
        results: Vec<String>,
    },
    /// The HTTP+SSE transport, which a shell script cannot speak.
    #[error("replaying the 2024-11-05 HTTP+SSE transport needs a client that keeps its GET stream open; run mcpcheck with --check instead")]
    LegacySse,
    /// The report names neither a command nor a URL.
    #[error("the report names no server to replay against")]
    NoServer,
    /// Nothing was sent that could be replayed.
    #[error("nothing was sent for `{name}` that could be replayed (its verdict rests on {})", if *.exchanged { "what the server did on its own" } else { "no exchange" })]
    NothingSent {
        /// The check's name.
        name: String,
        /// Whether it has exchanges (of the server's own doing).
        exchanged: bool,
    },
}

/// The check a name picks: `id`, or `id@version` for one era's result.
pub fn find<'a>(report: &'a Report, name: &str) -> Result<&'a CheckResult, ReproError> {
    let matching: Vec<&CheckResult> = report
        .checks
        .iter()
        .filter(|c| c.name() == name || c.id == name)
        .collect();
    match matching.as_slice() {
        [] => Err(ReproError::NoCheck(name.to_string())),
        [one] => Ok(one),
        several => Err(ReproError::SeveralEras {
            name: name.to_string(),
            results: several.iter().map(|c| c.name()).collect(),
        }),
    }
}

/// The command that prints a problem's replay script (for the Markdown and HTML reports), when
/// the check sent something that can be replayed.
pub fn command(check: &CheckResult) -> Option<String> {
    let problem = matches!(
        check.status,
        crate::record::Status::Fail | crate::record::Status::Warn
    );
    let sent = check
        .evidence
        .iter()
        .any(|e| e.sent.as_deref().is_some_and(|s| !s.is_empty()));
    (problem && sent).then(|| format!("mcpcheck repro {} --report report.json", check.name()))
}

/// The replay script the Markdown and HTML reports show beside a problem: the one
/// `mcpcheck repro` prints, when the check sent something that can be replayed. A check of a
/// scenario on a bare connection starts with its own frames; any other starts after a handshake.
pub fn inline(report: &Report, check: &CheckResult) -> Option<String> {
    command(check)?;
    let start = if check.bare_session {
        Start::Nothing
    } else {
        Start::Handshake
    };
    script(report, check, start).ok()
}

/// The script that replays a check's exchanges, or why there is none.
pub fn script(report: &Report, check: &CheckResult, start: Start) -> Result<String, ReproError> {
    let frames: Vec<Frame> = check
        .evidence
        .iter()
        .filter_map(|e| {
            let sent = e.sent.as_deref().filter(|s| !s.is_empty())?;
            Some(Frame {
                label: e.label.clone(),
                body: sent.to_string(),
                headers: e.sent_headers.clone(),
                cut: was_cut(sent),
            })
        })
        .collect();
    if frames.is_empty() {
        return Err(ReproError::NothingSent {
            name: check.name(),
            exchanged: !check.evidence.is_empty(),
        });
    }
    // The version is what the server negotiated: only a known one goes into the script.
    let version = check
        .version
        .as_deref()
        .or(report.protocol.version.as_deref())
        .filter(|v| version::known(v))
        .unwrap_or(version::latest_handshake())
        .to_string();
    let start = match Era::of(&version) {
        Some(Era::Stateless) => Start::Nothing,
        _ if frames.iter().any(|f| f.body.contains("\"initialize\"")) => Start::Nothing,
        _ => start,
    };
    let mut out = String::from("#!/bin/sh\n");
    let _ = writeln!(
        out,
        "# mcpcheck repro: {} ({}) — {}",
        check.name(),
        check.level,
        one_line(&check.title)
    );
    let _ = writeln!(
        out,
        "# judged at {version}: {} — {}",
        check.status,
        one_line(&check.message)
    );
    let _ = writeln!(out, "# a conforming server: {}", one_line(&check.expected));
    if frames.iter().any(|f| f.cut) {
        let _ = writeln!(
            out,
            "# Note: a frame over {EVIDENCE_TEXT} bytes was cut in the report and is sent cut here."
        );
    }
    match (&report.target.url, &report.target.command) {
        (Some(url), serve) if report.target.transport == crate::record::TransportKind::Http => {
            http(&mut out, url, serve.as_deref(), &version, start, &frames);
        }
        (Some(_), _) => return Err(ReproError::LegacySse),
        (None, Some(command)) => stdio(&mut out, command, &version, start, &frames),
        (None, None) => return Err(ReproError::NoServer),
    }
    Ok(out)
}

/// One frame the check's verdict rests on.
struct Frame {
    label: String,
    body: String,
    headers: Vec<String>,
    cut: bool,
}

fn stdio(out: &mut String, command: &[String], version: &str, start: Start, frames: &[Frame]) {
    out.push_str(
        "# Feeds the server the frames below, one per line, a second apart, and prints what it\n# writes on stdout (stderr is left on the terminal).\n{\n",
    );
    if start == Start::Handshake {
        let _ = writeln!(
            out,
            "  printf '%s\\n' {}\n  sleep 1\n  printf '%s\\n' '{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}'",
            quote(&initialize(version))
        );
    }
    for frame in frames {
        let _ = writeln!(
            out,
            "  # {}\n  printf '%s\\n' {}\n  sleep 1",
            one_line(&frame.label),
            quote(&frame.body)
        );
    }
    let _ = writeln!(out, "}} | {}", shell_words::join(command));
}

fn http(
    out: &mut String,
    url: &str,
    serve: Option<&[String]>,
    version: &str,
    start: Start,
    frames: &[Frame],
) {
    let wants_session = frames.iter().any(|f| header(f, "mcp-session-id").is_some());
    let _ = writeln!(out, "set -u\nURL={}", quote(url));
    if let Some(command) = serve {
        // The run started the server itself (--serve) and stopped it at the end: so does the
        // script.
        let _ = writeln!(
            out,
            "# mcpcheck started the server for the run (--serve): start it again (in a session of its\n# own where setsid exists, so that its children go with it), wait until its port answers\n# (about 30 s at most), and stop it at the end, also on Ctrl-C.\nif command -v setsid >/dev/null 2>&1; then setsid {command} & else {command} & fi\nSERVER=$!\ntrap 'kill -- -$SERVER 2>/dev/null || kill $SERVER 2>/dev/null' EXIT\ntrap 'exit 130' INT\ntrap 'exit 143' TERM HUP\ni=0\nwhile [ $i -lt 30 ] && ! curl -s -o /dev/null -m 1 \"$URL\"; do sleep 1; i=$((i + 1)); done",
            command = shell_words::join(command)
        );
    }
    // A redacted header becomes a variable the script asks for: the user's own value, or a token
    // the authorization checks sent in its place, which the script has mcpcheck make again from
    // the user's (or asks for, when it came from elsewhere).
    // Each as (header, variable, the token's name for a token sent in place of the user's).
    let mut secrets: Vec<(String, String, Option<&str>)> = Vec::new();
    for h in frames.iter().flat_map(|f| f.headers.iter()) {
        let Some((name, value)) = h.split_once(": ") else {
            continue;
        };
        let token = super::redact::named_mark(value);
        let secret = (name.to_string(), variable(name, value), token);
        if value.contains(REDACTED) && !secrets.contains(&secret) {
            secrets.push(secret);
        }
    }
    // A token sent in place of the user's is sent to a server that takes the user's: the
    // handshake carries it, and the made-up tokens are made from it.
    if secrets.iter().any(|(_, _, token)| token.is_some()) {
        let user = ("Authorization".to_string(), env_name("Authorization"), None);
        secrets.retain(|s| *s != user);
        secrets.insert(0, user);
    }
    let user = env_name("Authorization");
    for (name, var, token) in &secrets {
        match token {
            None => {
                let _ = writeln!(
                    out,
                    ": \"${{{var}:?set {var} to the {name} header's value (it was redacted from the report)}}\""
                );
            }
            Some(token) if crate::record::token::MADE.contains(token) => {
                let _ = writeln!(
                    out,
                    "# The {token} token mcpcheck made from yours (it carries your token's claims), made again by\n# mcpcheck ($MCPCHECK names it where it is not on PATH: npx mcpcheck, target/debug/mcpcheck).\nif [ -z \"${{{var}:-}}\" ]; then\n  {var}=$({user}=\"${user}\" ${{MCPCHECK:-mcpcheck}} token {token}) || exit 1\nfi"
                );
            }
            Some(token) => {
                let what = if *token == "expired" {
                    "the expired token given with --expired-token-env"
                } else {
                    "a token the authorization server issued to the same client for another resource"
                };
                let _ = writeln!(
                    out,
                    ": \"${{{var}:?set {var} to the {name} header's value with {what} (it was redacted from the report)}}\""
                );
            }
        }
    }
    if start == Start::Handshake && wants_session {
        let auth: String = secrets
            .iter()
            .filter(|(_, _, token)| token.is_none())
            .map(|(name, var, _)| format!(" -H \"{name}: ${var}\""))
            .collect();
        let _ = writeln!(
            out,
            "# The handshake, keeping the session id the server issues.\nSESSION=$(curl -sS -D - -o /dev/null -X POST \"$URL\" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'{auth} --data-binary {} | tr -d '\\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p')",
            quote(&initialize(version))
        );
        let _ = writeln!(
            out,
            "curl -sS -o /dev/null -X POST \"$URL\" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H \"Mcp-Session-Id: $SESSION\" -H 'MCP-Protocol-Version: {}'{auth} --data-binary '{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}'",
            version::wire(version)
        );
    }
    out.push_str(
        "# Each frame as sent, with its headers; -i prints the status and headers of the answer.\n",
    );
    for frame in frames {
        let _ = writeln!(
            out,
            "echo '>>> {}'",
            one_line(&frame.label).replace('\'', "")
        );
        // A fetched document: a GET of each URL tried, with no credentials.
        if let Some(urls) = fetched(&frame.body) {
            for url in urls {
                let _ = writeln!(
                    out,
                    "curl -sS -i -H 'Accept: application/json' {}\necho",
                    quote(url)
                );
            }
            continue;
        }
        let mut line = String::from("curl -sS -i -X POST \"$URL\"");
        if frame.headers.is_empty() {
            line.push_str(
                " -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'",
            );
        }
        for h in &frame.headers {
            let Some((name, value)) = h.split_once(": ") else {
                continue;
            };
            // curl writes these itself.
            if name.eq_ignore_ascii_case("host") || name.eq_ignore_ascii_case("content-length") {
                continue;
            }
            if name.eq_ignore_ascii_case("mcp-session-id") && start == Start::Handshake {
                line.push_str(&format!(" -H \"{name}: $SESSION\""));
            } else if value.contains(REDACTED) {
                line.push_str(&format!(" -H \"{name}: ${}\"", variable(name, value)));
            } else {
                line.push_str(&format!(" -H {}", quote(&format!("{name}: {value}"))));
            }
        }
        let _ = writeln!(out, "{line} --data-binary {}\necho", quote(&frame.body));
    }
}

/// The URLs a fetch step GET, from what it recorded as sent (`GET URL`, one per line, each but
/// the last followed by `→` and what it got); `None` for a frame.
fn fetched(sent: &str) -> Option<Vec<&str>> {
    sent.lines()
        .map(|line| {
            let url = line.strip_prefix("GET ")?.split(" → ").next()?;
            (url.starts_with("http://") || url.starts_with("https://")).then_some(url)
        })
        .collect()
}

/// The initialize request the script's handshake sends, asking for revision `version`.
fn initialize(version: &str) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"repro-init\",\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"mcpcheck-repro\",\"version\":\"{}\"}}}}}}",
        version::wire(version),
        env!("CARGO_PKG_VERSION")
    )
}

fn header<'a>(frame: &'a Frame, name: &str) -> Option<&'a str> {
    frame.headers.iter().find_map(|h| {
        let (n, v) = h.split_once(": ")?;
        n.eq_ignore_ascii_case(name).then_some(v)
    })
}

/// The variable that holds a redacted header's value: `MCPCHECK_TOKEN_ALG_NONE` for the value
/// `[redacted auth.alg-none]`, else the header's [`env_name`].
fn variable(header: &str, value: &str) -> String {
    match super::redact::named_mark(value) {
        Some(token) => format!(
            "MCPCHECK_TOKEN_{}",
            token.to_ascii_uppercase().replace('-', "_")
        ),
        None => env_name(header),
    }
}

/// `Authorization` → `MCPCHECK_HEADER_AUTHORIZATION`.
fn env_name(header: &str) -> String {
    let mut name = String::from("MCPCHECK_HEADER_");
    name.extend(header.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        }
    }));
    name
}

fn quote(text: &str) -> String {
    shell_words::quote(text).into_owned()
}

/// A comment stays one line, whatever the server wrote.
fn one_line(text: &str) -> String {
    super::safe::terminal(text)
        .replace(['\n', '\r'], " ")
        .chars()
        .take(200)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fetch_is_replayed_as_the_gets_it_made_and_a_frame_is_not() {
        let sent = "GET http://a/.well-known/x/mcp → HTTP 404\nGET https://a/.well-known/x";
        assert_eq!(
            fetched(sent),
            Some(vec![
                "http://a/.well-known/x/mcp",
                "https://a/.well-known/x"
            ])
        );
        assert_eq!(fetched(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(fetched("GET /relative"), None);
    }

    #[test]
    fn a_redacted_header_becomes_an_environment_variable_and_is_never_written_out() {
        assert_eq!(env_name("Authorization"), "MCPCHECK_HEADER_AUTHORIZATION");
        assert_eq!(env_name("X-Api-Key"), "MCPCHECK_HEADER_X_API_KEY");
    }

    #[test]
    fn a_frame_is_quoted_for_the_shell_whatever_it_holds() {
        let frame = r#"{"a":"it's $HOME `x`"}"#;
        let quoted = quote(frame);
        assert_eq!(
            shell_words::split(&quoted).unwrap(),
            vec![frame.to_string()]
        );
    }

    #[test]
    fn a_cut_frame_is_recognized_and_a_whole_one_is_not() {
        let long = "x".repeat(EVIDENCE_TEXT + 10);
        assert!(was_cut(&crate::record::cut(&long, EVIDENCE_TEXT)));
        assert!(!was_cut(r#"{"text":"… [many more bytes]"}"#));
        assert!(!was_cut("short"));
    }

    /// A report on `target` at `version`, and a failed check whose evidence is one ping.
    fn fixture(target: serde_json::Value, version: &str) -> (Report, CheckResult) {
        let report: Report = serde_json::from_value(serde_json::json!({
            "schemaVersion": 2, "mcpcheckVersion": "0", "startedAt": "", "durationMs": 0,
            "target": target,
            "protocol": {"era": "handshake", "version": version, "detection": ""},
            "summary": {"total": 0, "pass": 0, "fail": 0, "warn": 0, "info": 0, "skip": 0, "notTestable": 0, "error": 0},
            "checks": []
        }))
        .unwrap();
        let check: CheckResult = serde_json::from_value(serde_json::json!({
            "id": "c", "title": "t", "area": "a", "status": "fail", "level": "MUST", "derived": false,
            "spec": [], "message": "m", "expected": "e", "source": "s",
            "evidence": [{"label": "l", "sent": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}]
        }))
        .unwrap();
        (report, check)
    }

    #[test]
    fn a_replay_of_a_served_http_run_starts_the_server_again_and_stops_it() {
        let (report, check) = fixture(
            serde_json::json!({"transport": "http", "url": "http://127.0.0.1:4321/mcp", "command": ["./server", "--port", "4321"]}),
            "2025-11-25",
        );
        let script = script(&report, &check, Start::Handshake).unwrap();
        let started = script
            .find("setsid ./server --port 4321 &")
            .expect("started");
        let trap = script.find("trap 'kill -- -$SERVER").expect("stopped");
        let first = script.find("curl -sS").expect("a request");
        assert!(started < trap && trap < first, "{script}");
    }

    #[test]
    fn a_version_the_server_made_up_never_reaches_the_script() {
        let (report, check) = fixture(
            serde_json::json!({"transport": "stdio", "command": ["./server"]}),
            "x'; touch /tmp/owned; '\n",
        );
        let script = script(&report, &check, Start::Handshake).unwrap();
        assert!(!script.contains("owned"), "{script}");
        assert!(script.contains(version::latest_handshake()), "{script}");
    }
}
