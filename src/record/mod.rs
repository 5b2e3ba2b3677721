//! The record of a run: what crossed the wire (frames, HTTP records, exchanges and replies, how
//! a process ended), the evidence cut from it, and the vocabulary verdicts are written in
//! (levels, statuses, citations, versions, transports).
//!
//! This is the bottom layer: it imports no other module of the crate and does no I/O.
//! Transports and the session write the record; checks read it and conclude; reports render
//! what checks concluded. See docs/architecture.md.

pub mod challenge;
pub mod evidence;
pub mod exchange;
pub mod token;
pub mod transcript;
pub mod url;
pub mod verdict;
pub mod version;

pub use evidence::{compact, Evidence, EVIDENCE_TEXT};
pub use exchange::{id_key, Exchange, ExitReport, HttpFacts, Reply};
pub use transcript::{
    cut, was_cut, Carried, Direction, FrameIssue, HttpRecord, Transcript, WireFrame,
};
pub use verdict::{CheckDef, Level, Reason, SpecRef, Status, Verdict};
pub use version::{Era, VersionRange};

/// The transports, as named in scenario files and reports. The 2024-11-05 HTTP+SSE transport is
/// `sse` there (its older, shorter name, kept so that reports and scenario files stay
/// compatible); in the code it is `LegacySse`, never to be confused with the SSE responses of
/// Streamable HTTP (the `http-sse-*` checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// stdio.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The HTTP+SSE transport of 2024-11-05 (a GET stream, and POSTs to the endpoint it names).
    #[serde(rename = "sse")]
    LegacySse,
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::LegacySse => "sse",
        })
    }
}

/// Whether a check or scenario for these transports (none named: any) runs over `kind`.
pub fn allows(kinds: &[TransportKind], kind: TransportKind) -> bool {
    kinds.is_empty() || kinds.contains(&kind)
}

/// Transports named in prose: `the stdio transport`, `the stdio and sse transports`.
pub fn describe(kinds: &[TransportKind]) -> String {
    let names: Vec<String> = kinds.iter().map(ToString::to_string).collect();
    match names.split_last() {
        None => "every transport".into(),
        Some((last, [])) => format!("the {last} transport"),
        Some((last, rest)) => format!("the {} and {last} transports", rest.join(", ")),
    }
}

/// What a [`Tap`] calls: the direction and the frame's text.
pub type TapFn = dyn Fn(Direction, &str) + Send + Sync;

/// A callback shown every frame as it is recorded (`--verbose`).
#[derive(Clone)]
pub struct Tap(pub std::sync::Arc<TapFn>);

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tap")
    }
}

/// A number of bytes shared by everything that keeps evidence in one run (every connection's
/// transcript), so that the evidence of a whole run stays bounded in bytes however many
/// connections a flooding server fills. Clones share the budget.
#[derive(Clone, Debug)]
pub struct Budget(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> Budget {
        Budget(std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(
            bytes,
        )))
    }

    /// Takes `bytes` from the budget; false (and nothing taken) when too little is left.
    pub fn take(&self, bytes: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(bytes)
            })
            .is_ok()
    }
}

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SseEvent {
    /// The `id` field, if the event set one.
    pub id: Option<String>,
    /// The `event` field (the type), if set.
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The `retry` field in milliseconds, if set.
    pub retry: Option<u64>,
}
