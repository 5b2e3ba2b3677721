//! The server under test is untrusted (SECURITY.md): whatever it sends, it cannot steer mcpcheck.
//! A fixture server (examples/hostile_strings.rs) puts terminal escapes, HTML, Markdown links and
//! images, table breakers and characters XML does not allow into every string it sends; every
//! output format is checked. An HTTP+SSE server that names an endpoint at another origin gets
//! nothing sent there, least of all the user's credentials. And a secret of any length never
//! breaks a report.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use crate::support::{mcpcheck, reference_server, run_json, HttpServer};

/// The fixture server, built on first use if the test build did not build it.
pub fn hostile_strings() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = reference_server()
            .with_file_name("examples")
            .join("hostile_strings");
        // `cargo test` builds examples; a test runner that does not (nextest) may find none, or
        // an old one.
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hostile_strings.rs");
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if !path.exists() || modified(&path) < modified(&source) {
            let status = Command::new(env!("CARGO"))
                .args(["build", "--example", "hostile_strings", "--manifest-path"])
                .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
                .status()
                .expect("cargo runs");
            assert!(
                status.success(),
                "building the hostile_strings example failed"
            );
        }
        path
    })
    .clone()
}

/// The fixture over HTTP, stopped when dropped.
struct HostileHttp {
    child: Child,
    url: String,
}

impl HostileHttp {
    fn start() -> HostileHttp {
        let mut child = Command::new(hostile_strings())
            .arg("--http")
            .stdout(Stdio::piped())
            .spawn()
            .expect("hostile_strings starts");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL line");
        HostileHttp {
            child,
            url: line.trim().to_string(),
        }
    }
}

impl Drop for HostileHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Characters that must never reach a terminal or a report from the server: C0 controls but tab
/// and newline, DEL, C1 controls, bidirectional overrides.
fn hidden(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The nearest character boundary at or before `at`.
fn boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn assert_no_controls(what: &str, text: &str) {
    if let Some((at, c)) = text.char_indices().find(|(_, c)| hidden(*c)) {
        let start = boundary(text, at.saturating_sub(80));
        panic!(
            "{what}: a raw {c:?} reached the output at byte {at}: …{}",
            &text[start..at]
        );
    }
}

/// Renders Markdown as CommonMark (with GitHub's tables) and asserts that nothing of the server
/// became markup: no image, no link but mcpcheck's own spec links, no HTML but mcpcheck's own
/// `<details>` blocks, every table row as wide as its header, and every bare mention of the
/// server's URLs inside a code span or block (where no autolink forms).
fn assert_inert_markdown(what: &str, markdown: &str) {
    assert_no_controls(what, markdown);
    let mut code = Vec::new();
    let (mut header_cells, mut row_cells, mut in_head) = (0usize, 0usize, false);
    for (event, range) in Parser::new_ext(markdown, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Image { dest_url, .. }) => {
                panic!("{what}: an image ({dest_url}) in the Markdown")
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                assert!(
                    !dest_url.contains("evil"),
                    "{what}: a link to {dest_url} in the Markdown"
                );
                // mcpcheck's own links (spec citations) are markup it wrote.
                code.push(range);
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let html = html.trim();
                assert!(
                    html.starts_with("<details><summary>") || html == "</details>",
                    "{what}: HTML in the Markdown: {html}"
                );
            }
            Event::Code(_) => code.push(range),
            Event::Start(Tag::CodeBlock(_)) => code.push(range),
            Event::Start(Tag::TableHead) => (in_head, header_cells) = (true, 0),
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => row_cells = 0,
            Event::Start(Tag::TableCell) if in_head => header_cells += 1,
            Event::Start(Tag::TableCell) => row_cells += 1,
            Event::End(TagEnd::TableRow) => assert_eq!(
                row_cells, header_cells,
                "{what}: a table row with {row_cells} cells under a header of {header_cells}"
            ),
            _ => {}
        }
    }
    // GitHub makes links of bare `scheme://`, `www.` and `user@host` text: outside code and
    // mcpcheck's own links, each of the server's must be broken by an escape.
    for trigger in ["://evil", "www.evil", "@evil"] {
        for (at, _) in markdown.match_indices(trigger) {
            let safe = markdown[..at].ends_with('\\') || code.iter().any(|r| r.contains(&at));
            assert!(
                safe,
                "{what}: a bare `{trigger}` outside code at byte {at}: …{}",
                &markdown[boundary(markdown, at.saturating_sub(60))..at]
            );
        }
    }
    assert!(
        !markdown.contains("\n# forged heading"),
        "{what}: the server started a heading"
    );
}

fn assert_inert_html(what: &str, html: &str) {
    assert_no_controls(what, html);
    for tag in ["<img", "<script", "<b>", "<!--"] {
        assert!(!html.contains(tag), "{what}: `{tag}` in the HTML");
    }
    assert!(html.contains("&lt;img src=https://evil.example/i.png&gt;"));
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs mcpcheck against the fixture with every output format; checks each.
fn every_format_is_inert(target: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (md, junit, html, json) = (file("r.md"), file("r.xml"), file("r.html"), file("r.json"));
    let output = mcpcheck()
        .arg("run")
        .args(target)
        .args(["--markdown", &md, "--junit", &junit, "--html", &html])
        .args(["--json", &json, "--timeout", "2"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_no_controls("terminal report", &stdout);
    assert_no_controls("progress", &stderr);
    // The server's name is shown, its escapes written out, on the header line and nowhere else.
    assert!(
        stdout.contains("server: \\x1b]52;c;aGFja2Vk\\x07"),
        "{stdout}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("conforms to MCP")
            || l.starts_with("# forged heading")
            || l.starts_with("---")),
        "server text started a line of its own:\n{stdout}"
    );
    assert_inert_markdown("run --markdown", &read(md.as_ref()));
    assert_inert_html("run --html", &read(html.as_ref()));
    let junit = read(junit.as_ref());
    assert_no_controls("run --junit", &junit);
    roxmltree::Document::parse(&junit).expect("the JUnit report is well-formed XML 1.0");
    // JSON is data: it keeps exactly what the server sent.
    let report: Value = serde_json::from_str(&read(json.as_ref())).unwrap();
    let name = report["protocol"]["serverInfo"]["name"].as_str().unwrap();
    assert!(name.starts_with("\u{1b}]52;c;aGFja2Vk\u{7}"), "{name:?}");

    // Every frame with -v: the server's bytes written out too.
    let output = mcpcheck()
        .arg("run")
        .args(target)
        .args(["-v", "--timeout", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("← "), "{stderr}");
    assert_no_controls("run -v", &stderr);
    assert_no_controls("run -v stdout", &String::from_utf8_lossy(&output.stdout));
    let output = mcpcheck()
        .arg("run")
        .args(target)
        .args(["-q", "--timeout", "2"])
        .output()
        .unwrap();
    assert_no_controls("run -q", &String::from_utf8_lossy(&output.stdout));
}

#[test]
fn a_hostile_stdio_server_cannot_steer_the_terminal_or_the_reports() {
    let command = hostile_strings().display().to_string();
    every_format_is_inert(&["--stdio", &command]);
}

#[test]
fn a_hostile_http_server_cannot_steer_the_terminal_or_the_reports() {
    let server = HostileHttp::start();
    every_format_is_inert(&["--url", &server.url]);
}

#[test]
fn a_hostile_server_cannot_steer_the_comparison() {
    let http = HostileHttp::start();
    let dir = tempfile::tempdir().unwrap();
    let (md, html) = (dir.path().join("c.md"), dir.path().join("c.html"));
    let output = mcpcheck()
        .arg("compare")
        .args(["--stdio", &hostile_strings().display().to_string()])
        .args(["--url", &http.url, "--timeout", "2"])
        .args(["--name", "<img src=https://evil.example/n.png>|x", "--name"])
        .arg("[\u{1b}[2Jlink](https://evil.example/)")
        .arg("--markdown")
        .arg(&md)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The hostile server fails checks, so the comparison exits 1, as `run` would for it.
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_no_controls("compare terminal", &stdout);
    assert!(stdout.contains("\\x1b"), "{stdout}");
    assert_inert_markdown("compare --markdown", &read(&md));
    assert_inert_html("compare --html", &read(&html));
}

/// A loopback listener that counts the connections it gets and keeps what they sent.
struct Thief {
    port: u16,
    connections: Arc<AtomicUsize>,
    received: Arc<Mutex<Vec<u8>>>,
}

impl Thief {
    fn start() -> Thief {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let received = Arc::new(Mutex::new(Vec::new()));
        let (count, keep) = (connections.clone(), received.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                count.fetch_add(1, Ordering::SeqCst);
                let keep = keep.clone();
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                    let mut buffer = [0u8; 8192];
                    while let Ok(n) = stream.read(&mut buffer) {
                        if n == 0 {
                            break;
                        }
                        keep.lock().unwrap().extend_from_slice(&buffer[..n]);
                    }
                });
            }
        });
        Thief {
            port,
            connections,
            received,
        }
    }
}

/// An HTTP+SSE stream whose endpoint event names `endpoint`; it stays open for 30 s.
fn sse_naming(endpoint: String) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let endpoint = endpoint.clone();
            std::thread::spawn(move || {
                use std::io::Write;
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: endpoint\ndata: {endpoint}\n\n"
                );
                std::thread::sleep(Duration::from_secs(30));
            });
        }
    });
    url
}

#[test]
fn an_endpoint_at_another_origin_gets_nothing_and_no_credentials() {
    let thief = Thief::start();
    for endpoint in [
        format!("http://127.0.0.1:{}/steal?sessionId=1", thief.port),
        format!("//127.0.0.1:{}/steal", thief.port),
        format!("http://localhost:{}/steal", thief.port),
    ] {
        let url = sse_naming(endpoint.clone());
        let output = mcpcheck()
            .env("MCPCHECK_IT_TOKEN", "sekrit-token-0042")
            .args(["run", "--url", &url, "--legacy-sse", "--timeout", "2"])
            .args(["-H", "Authorization: Bearer $MCPCHECK_IT_TOKEN"])
            .args(["-H", "X-Api-Key: key-9137", "--json", "-"])
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(output.status.code(), Some(3), "{endpoint}: {report}");
        let fatal = report["fatal"].as_str().unwrap();
        assert!(fatal.contains("at another origin"), "{fatal}");
        assert!(fatal.contains("could not be tested further"), "{fatal}");
        let check = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "legacy-sse-endpoint-same-origin")
            .unwrap_or_else(|| panic!("no endpoint finding: {report}"));
        assert_eq!(check["status"], "warn", "{check}");
        assert!(
            check["actual"].as_str().unwrap().contains("/steal"),
            "{check}"
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    let received = String::from_utf8_lossy(&thief.received.lock().unwrap()).into_owned();
    assert_eq!(
        thief.connections.load(Ordering::SeqCst),
        0,
        "the other origin was contacted: {received}"
    );
    assert!(!received.contains("sekrit"));
}

#[test]
fn the_reference_server_names_its_own_origin_and_passes() {
    let server = HttpServer::start(&[]);
    let sse = server.url.replace("/mcp", "/sse");
    let (code, report, stderr) = run_json(&[
        "--url",
        &sse,
        "--legacy-sse",
        "--check",
        "legacy-sse-endpoint-*",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let statuses = crate::support::statuses(&report);
    assert_eq!(statuses["legacy-sse-endpoint-same-origin"], "pass");
}

#[test]
fn short_and_common_secrets_never_break_a_report() {
    let server = HttpServer::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (md, junit, html) = (file("r.md"), file("r.xml"), file("r.html"));
    let output = mcpcheck()
        .args(["run", "--url", &server.url])
        .args(["-H", "X-Env: pass", "-H", "X-One: 1", "-H", "X-Test: test"])
        .args([
            "-H",
            "X-Fail: fail",
            "-H",
            "X-Must: MUST",
            "-H",
            "X-Dash: -",
        ])
        .args(["-H", "X-Long: a-longer-secret-value"])
        .args(["--markdown", &md, "--junit", &junit, "--html", &html])
        .args(["--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let statuses = crate::support::statuses(&report);
    assert!(statuses.values().any(|s| s == "pass"));
    assert!(statuses.contains_key("jsonrpc-parse-error"));
    assert_eq!(report["summary"]["fail"], 0);
    let text = report.to_string();
    assert!(!text.contains("a-longer-secret-value"));
    assert!(
        text.contains("X-Env: [redacted]"),
        "header values are redacted"
    );
    assert!(text.contains("X-Long: [redacted]"));
    assert!(!text.contains("not-[redacted]"));
    for path in [&md, &junit, &html] {
        let out = read(path.as_ref());
        assert!(!out.contains("a-longer-secret-value"), "{path}");
        assert!(out.contains("pass"), "{path}: mcpcheck's own words survive");
    }
    roxmltree::Document::parse(&read(junit.as_ref())).unwrap();
}
