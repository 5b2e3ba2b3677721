//! `http-sse-priming`: an SSE response starts with a priming event (an id and empty data).

use crate::check::wire::{sent_message, Builtin, Idle, Tally, WireInput};
use crate::record::{Direction, Evidence, Level, TransportKind, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-sse-priming",
    since: "2026.11.1",
    area: "http",
    title: "an SSE response starts with a priming event (an id and empty data)",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
    expect: "on 2025-11-25, every text/event-stream response to a POST to begin with an event that has an id and empty data",
    transports: &[TransportKind::Http],
    explain: "From 2025-11-25 (SEP-1699) a server opening an SSE stream SHOULD immediately send an event with an event ID and an empty data field, so the client can reconnect with Last-Event-ID. 2026-07-28 dropped resumability, and earlier versions did not ask for it; only responses of connections on 2025-11-25 are examined, after the initialize POST that negotiates the version.",
    idle: Some(Idle::Nothing("no POST was answered with an SSE stream on a 2025-11-25 connection")),
    judge: http_sse_priming,
};

/// Judges `http-sse-priming`: an SSE response starts with a priming event (an id and empty data).
fn http_sse_priming(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input
        .transcripts
        .iter()
        .filter(|t| t.version.as_deref() == Some("2025-11-25"))
    {
        // The initialize POST is left out: the version is only being negotiated there.
        let initialize: std::collections::HashSet<usize> = transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Sent)
            .filter(|f| {
                sent_message(f).is_some_and(|m| m.get("method") == Some(&Value::from("initialize")))
            })
            .filter_map(|f| f.post)
            .collect();
        // So is a request without MCP-Protocol-Version: the server then takes it as
        // 2025-03-26, which has no priming (mcpcheck's probe of the missing header).
        for (_, post) in transcript.posts.iter().enumerate().filter(|(i, p)| {
            !initialize.contains(i)
                && p.method == "POST"
                && p.request_headers.iter().any(|(n, v)| {
                    n.eq_ignore_ascii_case("mcp-protocol-version")
                        && v == crate::record::version::wire("2025-11-25")
                })
                && p.response_header("content-type")
                    .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"))
        }) {
            found.seen += 1;
            let primed = post.first_event.as_ref().is_some_and(|e| {
                e.id.as_deref().is_some_and(|id| !id.is_empty()) && e.data.is_empty()
            });
            if !primed {
                let first = match &post.first_event {
                    Some(e) => format!(
                        "its first event has id {:?} and {} bytes of data",
                        e.id,
                        e.data.len()
                    ),
                    None => "it carried no event".to_string(),
                };
                found.bad.push(Evidence::remark(
                    "SSE response",
                    format!("an SSE response to a POST was not primed: {first}"),
                ));
            }
        }
    }
    found.judge(def)
}
