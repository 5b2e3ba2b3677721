//! `http-sse-ends-after-response`: a POST's SSE stream ends after its response.

use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-sse-ends-after-response",
    since: "2026.11.3",
    area: "http",
    title: "a POST's SSE stream ends after its response",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server"), ("2026-07-28", "basic/transports/streamable-http")],
    expect: "each SSE stream that answers a POST to end within a second of carrying the response",
    transports: &[TransportKind::Http],
    explain: "A server that answers a POST with an SSE stream sends the notifications of that request and then its response; after the response it SHOULD terminate the stream, so that clients and proxies do not hold connections that will carry nothing more. For every such stream mcpcheck reads on for a second after the response and notes whether it ends. (A stream the server closes before the response, as 2025-11-25 allows for polling, is not this check's business.)",
    idle: Some(Idle::Nothing("no POST was answered with an SSE stream that carried its response")),
    judge: http_sse_ends_after_response,
};

/// Judges `http-sse-ends-after-response`: a POST's SSE stream ends after its response.
fn http_sse_ends_after_response(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in input.transcripts.iter().flat_map(|t| t.posts.iter()) {
        let Some(ended) = post.ended_after_response else {
            continue;
        };
        found.seen += 1;
        if !ended {
            found.bad.push(Evidence::remark(
                &format!("POST {}", post.carried),
                "the SSE stream stayed open for more than a second after the response".into(),
            ));
        }
    }
    found.judge(def)
}
