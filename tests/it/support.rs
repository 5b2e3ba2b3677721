use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The mcpcheck binary under test.
pub fn mcpcheck() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpcheck"));
    command
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS")
        .env("COLUMNS", "120");
    command
}

/// The reference server binary, built on first use if the test build did not build it: `cargo test`
/// over the workspace builds it (for the reference server's own integration tests), `cargo test
/// --test it` does not.
pub fn reference_server() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_BIN_EXE_mcpcheck")).with_file_name("reference-server");
        if !path.exists() {
            let status = Command::new(env!("CARGO"))
                .args(["build", "-p", "reference-server", "--manifest-path"])
                .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
                .status()
                .expect("cargo runs");
            assert!(status.success(), "building reference-server failed");
        }
        assert!(path.exists(), "no reference-server at {}", path.display());
        path
    })
    .clone()
}

/// The stdio command line for the reference server with some quirks.
pub fn stdio_command(quirks: &[&str]) -> String {
    let mut command = reference_server().display().to_string();
    for quirk in quirks {
        command.push_str(&format!(" --quirk {quirk}"));
    }
    command
}

/// A reference server over HTTP, stopped when dropped.
pub struct HttpServer {
    child: Child,
    /// The endpoint.
    pub url: String,
}

impl HttpServer {
    /// Starts one on a free loopback port.
    pub fn start(quirks: &[&str]) -> HttpServer {
        let args: Vec<&str> = quirks.iter().flat_map(|q| ["--quirk", q]).collect();
        HttpServer::start_with(&args)
    }

    /// Starts one on a free loopback port, with these extra arguments.
    pub fn start_with(args: &[&str]) -> HttpServer {
        let mut command = Command::new(reference_server());
        command
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().expect("reference-server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL line");
        HttpServer {
            child,
            url: line.trim().to_string(),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A real OAuth 2 authorization server from npm, oauth2-mock-server or oidc-provider
/// (tests/oauth, installed by `npm ci --prefix tests/oauth`), on a free loopback port; stopped
/// when dropped (and on its own when its stdin closes, should the test die first).
pub struct AuthorizationServer {
    child: Child,
    /// oidc-provider: the file it writes the secrets of each registration to.
    issued: Option<tempfile::TempPath>,
    /// Its issuer URL (`http://localhost:PORT` or `http://127.0.0.1:PORT`).
    pub issuer: String,
}

impl AuthorizationServer {
    /// Starts oauth2-mock-server (`tests/oauth/serve.mjs`), or says why it cannot (the package
    /// is not installed): the test then skips, unless `MCPCHECK_REQUIRE_FIXTURES` names `oauth`.
    pub fn start() -> Option<AuthorizationServer> {
        Self::start_script("serve.mjs", "oauth2-mock-server")
    }

    /// Starts oidc-provider (`tests/oauth/registering.mjs`), which lets a client register
    /// itself, or says why it cannot, as [`AuthorizationServer::start`] does.
    pub fn registering() -> Option<AuthorizationServer> {
        Self::start_script("registering.mjs", "oidc-provider")
    }

    fn start_script(script: &str, package: &str) -> Option<AuthorizationServer> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth");
        if !dir.join("node_modules").join(package).is_dir() {
            fixture_missing(
                "oauth",
                &format!(
                    "the authorization server {package} is not installed (npm ci --prefix tests/oauth)"
                ),
            );
            return None;
        }
        // oidc-provider warns of its development settings on every start: not shown.
        let registering = package == "oidc-provider";
        let stderr = if registering {
            Stdio::null()
        } else {
            Stdio::inherit()
        };
        let issued = registering.then(|| tempfile::NamedTempFile::new().unwrap().into_temp_path());
        let mut command = Command::new("node");
        if let Some(log) = &issued {
            command.env("MCPCHECK_ISSUED_LOG", log);
        }
        let mut child = command
            .arg(script)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("node starts");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("stdout"))
            .read_line(&mut line)
            .expect("the issuer line");
        assert!(line.starts_with("http://"), "{package} said {line:?}");
        Some(AuthorizationServer {
            child,
            issued,
            issuer: line.trim().to_string(),
        })
    }

    /// The client secrets and registration access tokens oidc-provider has issued so far.
    pub fn issued_secrets(&self) -> Vec<String> {
        self.issued
            .as_ref()
            .and_then(|log| std::fs::read_to_string(log).ok())
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `mcpcheck run ARGS --json -` and returns the exit code, the report and stderr.
pub fn run_json(args: &[&str]) -> (i32, Value, String) {
    run_json_with_env(args, &[])
}

/// [`run_json`] with these environment variables set (a token that a header names, say).
pub fn run_json_with_env(args: &[&str], env: &[(&str, &str)]) -> (i32, Value, String) {
    let output = mcpcheck()
        .envs(env.iter().copied())
        .arg("run")
        .args(args)
        .args(["--json", "-"])
        .output()
        .expect("mcpcheck runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (
        output.status.code().unwrap_or(-1),
        report,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The first result of check `id` in a report (panics naming the id when it did not run).
pub fn check<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id} did not run"))
}

/// The status of every check in a report, by name: its id, or `id@version` for a check judged
/// in more than one era.
pub fn statuses(report: &Value) -> std::collections::BTreeMap<String, String> {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap();
            let name = match (c["perEra"].as_bool(), c["version"].as_str()) {
                (Some(true), Some(version)) => format!("{id}@{version}"),
                _ => id.to_string(),
            };
            (name, c["status"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Runs mcpcheck with arbitrary arguments.
pub fn output(args: &[&str]) -> Output {
    mcpcheck().args(args).output().expect("mcpcheck runs")
}

/// Replaces what differs from run to run inside a report's strings: the reference server's task
/// ids (they hold its process id and the order concurrent scenarios made them in) and RFC 3339
/// timestamps (a task's createdAt and lastUpdatedAt).
pub fn scrub_volatile(value: &mut Value) {
    match value {
        Value::String(text) => *text = scrub_text(text),
        Value::Array(items) => items.iter_mut().for_each(scrub_volatile),
        Value::Object(members) => members.values_mut().for_each(scrub_volatile),
        _ => {}
    }
}

fn scrub_text(text: &str) -> String {
    const TASK: &str = "mcpcheck-task-";
    let bytes = text.as_bytes();
    let digits = |from: usize| {
        bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    // `DDDD-DD-DDTDD:DD:DD`, optional fraction, `Z`: the length of a timestamp starting here.
    let timestamp = |at: usize| -> Option<usize> {
        let shape = b"dddd-dd-ddTdd:dd:dd";
        let head = bytes.get(at..at + shape.len())?;
        let fits = head.iter().zip(shape).all(|(b, s)| match s {
            b'd' => b.is_ascii_digit(),
            other => b == other,
        });
        if !fits {
            return None;
        }
        let mut end = at + shape.len();
        if bytes.get(end) == Some(&b'.') {
            end += 1 + digits(end + 1);
        }
        (bytes.get(end) == Some(&b'Z')).then_some(end + 1 - at)
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with(TASK) {
            let pid = digits(i + TASK.len());
            let at = i + TASK.len() + pid;
            if pid > 0 && bytes.get(at) == Some(&b'-') && digits(at + 1) > 0 {
                out.push_str("mcpcheck-task-[id]");
                i = at + 1 + digits(at + 1);
                continue;
            }
        }
        if let Some(len) = timestamp(i) {
            out.push_str("[timestamp]");
            i += len;
            continue;
        }
        let c = text[i..].chars().next().expect("in bounds");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[test]
fn volatile_parts_are_scrubbed() {
    let mut value = serde_json::json!({"a": [
        "task `mcpcheck-task-1719-2` at 2026-11-22T12:02:18.186Z and 2026-11-22T12:02:18Z",
        "mcpcheck-task-x 2026-11-22 é"
    ]});
    scrub_volatile(&mut value);
    assert_eq!(
        value,
        serde_json::json!({"a": [
            "task `mcpcheck-task-[id]` at [timestamp] and [timestamp]",
            "mcpcheck-task-x 2026-11-22 é"
        ]})
    );
}

/// The flags that run the fixed snapshot library (tests/snapshot-library) instead of mcpcheck's
/// own: a snapshot over it changes only when a report format does, not when a check is added.
pub const SNAPSHOT_LIBRARY: &[&str] = &[
    "--no-builtin",
    "--scenarios",
    // Relative (tests run in the package's folder), so the sources in the snapshots are too.
    "tests/snapshot-library",
    "--check",
    "snap-*",
];

/// A test's outside fixture (`schemas`: ../shared/spec/schema; `chromium`) is missing: the test
/// fails where it is required (`MCPCHECK_REQUIRE_FIXTURES`, a comma-separated list of names,
/// which CI sets), and elsewhere says it was skipped and why; the caller then returns.
pub fn fixture_missing(name: &str, why: &str) {
    let required = std::env::var("MCPCHECK_REQUIRE_FIXTURES").unwrap_or_default();
    assert!(
        !required.split(',').any(|r| r.trim() == name),
        "{why}, and MCPCHECK_REQUIRE_FIXTURES={required} requires it"
    );
    eprintln!("SKIPPED: {why}");
}
