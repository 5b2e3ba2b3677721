//! `http-sse-retry-before-close`: a stream closed before its response carries a retry field.

use crate::check::wire::{sent_message, transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{id_key, Direction, Evidence, Level, TransportKind, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-sse-retry-before-close",
    since: "2026.11.3",
    area: "http",
    title: "a stream closed before its response carries a retry field",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
    expect: "each SSE stream the server ends before the response it was opened for (a request mcpcheck did not cancel) to have sent an SSE `retry` field first (2025-11-25 on)",
    transports: &[TransportKind::Http],
    explain: "From 2025-11-25 a server may close a request's SSE stream before the response, once the stream has an event id, to avoid holding a connection (SEP-1699); the client then resumes it with a GET and Last-Event-ID. The server SHOULD send an SSE event with a `retry` field before closing, so that the client knows when to come back. mcpcheck resumes such streams itself; this check looks at every stream that ended early, except those of requests mcpcheck had cancelled.",
    idle: Some(Idle::Nothing("no request's SSE stream was ended by the server before its response")),
    judge: http_sse_retry_before_close,
};

/// Judges `http-sse-retry-before-close`: a stream closed before its response carries a retry field.
fn http_sse_retry_before_close(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2025-11-25") {
        // The requests mcpcheck cancelled: their streams may end without a response.
        let cancelled: std::collections::HashSet<String> = transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Sent)
            .filter_map(sent_message)
            .filter(|m| m.get("method") == Some(&Value::from("notifications/cancelled")))
            .filter_map(|m| m.pointer("/params/requestId").map(id_key))
            .collect();
        for (index, post) in transcript.posts.iter().enumerate() {
            if post.closed_early != Some(true) {
                continue;
            }
            let request = transcript
                .frames
                .iter()
                .filter(|f| f.direction == Direction::Sent && f.post == Some(index))
                .find_map(sent_message);
            let id = request.as_ref().and_then(|m| m.get("id")).map(id_key);
            if id.is_some_and(|id| cancelled.contains(&id)) {
                continue;
            }
            found.seen += 1;
            if !post.retry_sent {
                found.bad.push(Evidence::remark(
                    "POST request",
                    "the server ended the request's SSE stream before the response without an SSE `retry` field".into(),
                ));
            }
        }
    }
    found.judge(def)
}
