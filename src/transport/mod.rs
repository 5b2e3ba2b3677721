//! Bytes in and out: the stdio and Streamable HTTP transports, the 2024-11-05 HTTP+SSE transport,
//! the SSE parser, and the transcript that records everything that crossed the wire. Nothing here
//! knows about checks.

pub mod http;
pub mod legacy;
pub mod serve;
pub mod sse;
pub mod stdio;

use std::path::PathBuf;
use std::time::Duration;

use crate::record::{Budget, Tap, Transcript, TransportKind};

/// What to start or where to connect.
#[derive(Clone, Debug)]
pub enum Target {
    /// A command spoken to over its stdin and stdout.
    Stdio(StdioSpec),
    /// A Streamable HTTP endpoint.
    Http(HttpSpec),
}

impl Target {
    /// `stdio`, `http` or `sse`.
    pub fn kind(&self) -> TransportKind {
        match self {
            Target::Stdio(_) => TransportKind::Stdio,
            Target::Http(spec) if spec.legacy_sse => TransportKind::LegacySse,
            Target::Http(_) => TransportKind::Http,
        }
    }

    /// The URL under test, for HTTP (`None` over stdio).
    pub fn url(&self) -> Option<&str> {
        match self {
            Target::Http(spec) => Some(&spec.url),
            Target::Stdio(_) => None,
        }
    }
}

/// Sets headers, each replacing any of the same name (names compare case-insensitively), then
/// leaves out those named in `omit`.
pub fn set_headers<'a>(
    headers: &mut Vec<(String, String)>,
    set: impl IntoIterator<Item = &'a (String, String)>,
    omit: &[String],
) {
    for (name, value) in set {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    headers.retain(|(n, _)| !omit.iter().any(|o| o.eq_ignore_ascii_case(n)));
}

/// How to start a stdio server.
#[derive(Clone, Debug)]
pub struct StdioSpec {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// The working directory, if not the current one.
    pub cwd: Option<PathBuf>,
}

/// Where an HTTP server listens.
#[derive(Clone, Debug)]
pub struct HttpSpec {
    /// The endpoint URL (with `legacy_sse`: the URL of the SSE stream).
    pub url: String,
    /// Whether the server speaks the 2024-11-05 HTTP+SSE transport instead of Streamable HTTP.
    pub legacy_sse: bool,
    /// Headers sent with every request (`--header`).
    pub headers: Vec<(String, String)>,
    /// A command mcpcheck starts before the run and stops after it (`--serve`).
    pub serve: Option<serve::ServeSpec>,
}

/// How many bytes of evidence one run keeps at most (frames, parsed messages, notifications);
/// what comes after is counted, not kept.
pub const EVIDENCE_BYTES: usize = 16 << 20;

/// Bounds that keep a hostile server from hanging or flooding the harness.
#[derive(Clone, Debug)]
pub struct Limits {
    /// How long to wait for the answer to one request.
    pub request_timeout: Duration,
    /// The largest frame (stdio line or HTTP body) read; larger ones are cut and reported.
    pub max_frame_bytes: usize,
    /// How much of the server's stderr is kept (the tail).
    pub stderr_bytes: usize,
    /// How long a stdio server may take to exit after its stdin closes, before SIGTERM.
    pub exit_grace: Duration,
    /// How long a stdio server may take to answer its first request (it may still be starting).
    pub startup_timeout: Duration,
    /// Shown every frame, if set.
    pub tap: Option<Tap>,
    /// The bytes of evidence the run may still keep (shared by every connection of the run).
    pub evidence: Budget,
    /// How many server processes the run has started (shared by every connection of the run).
    pub starts: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

/// How long a server may take to start (to answer its first request) unless told otherwise:
/// the library's default and `--startup-timeout`'s.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            request_timeout: Duration::from_secs(5),
            max_frame_bytes: 4 << 20,
            stderr_bytes: 16 << 10,
            exit_grace: Duration::from_secs(2),
            startup_timeout: STARTUP_TIMEOUT,
            tap: None,
            evidence: Budget::new(EVIDENCE_BYTES),
            starts: std::sync::Arc::default(),
        }
    }
}
