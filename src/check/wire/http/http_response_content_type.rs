//! `http-response-content-type`: a request POST is answered as application/json or text/event-stream.

use crate::check::wire::{Builtin, Tally, WireInput};
use crate::record::{Carried, Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-response-content-type",
    since: "2026.11",
    area: "http",
    title: "a request POST is answered as application/json or text/event-stream",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
    expect: "Content-Type application/json (one JSON object) or text/event-stream on every successful answer to a request",
    transports: &[TransportKind::Http],
    explain: "If the input is a JSON-RPC request, the server MUST return either Content-Type: text/event-stream or Content-Type: application/json. Every successful (2xx) answer to a request during the run is examined.",
    idle: None,
    judge: http_response_content_type,
};

/// Judges `http-response-content-type`: a request POST is answered as application/json or text/event-stream.
fn http_response_content_type(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in input
        .transcripts
        .iter()
        .flat_map(|t| t.posts.iter())
        .filter(|p| p.carried == Carried::Request)
    {
        let Some(status) = post.status.filter(|s| (200..300).contains(s)) else {
            continue;
        };
        found.seen += 1;
        let content_type = post
            .response_header("content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        if !(content_type.starts_with("application/json")
            || content_type.starts_with("text/event-stream"))
        {
            found.bad.push(Evidence::remark(
                "POST request",
                format!("HTTP {status} with Content-Type `{content_type}`"),
            ));
        }
    }
    found.judge(def)
}
