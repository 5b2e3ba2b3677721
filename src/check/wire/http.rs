//! Built-in checks of the Streamable HTTP transport seen over a whole run: session ids, SSE
//! priming and event ids, status codes for notifications, content types of responses.

use std::collections::HashMap;

use serde_json::Value;

use super::{resumes, sent_message, transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{id_key, Carried, Direction, Evidence, Level, TransportKind, Verdict};

pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
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
    },
    Builtin {
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
    },
    Builtin {
        id: "http-sse-event-id-unique",
        since: "2026.11.2",
        area: "http",
        title: "SSE event ids are unique across all streams of a session",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#resumability-and-redelivery")],
        expect: "no SSE event id used twice within one session, on any of its streams (2025-03-26 to 2025-11-25)",
        transports: &[TransportKind::Http],
        explain: "If a server attaches ids to SSE events, they MUST be globally unique across all streams within the session, because a client resumes with Last-Event-ID and the server must know which stream and position that names. Every event id of every SSE response of each session is examined.",
        idle: Some(Idle::Nothing("no SSE event of a 2025-03-26 to 2025-11-25 session carried an id")),
        judge: http_sse_event_id_unique,
    },
    Builtin {
        id: "http-session-id-visible-ascii",
        since: "2026.11.1",
        area: "http",
        title: "a session id holds only visible ASCII",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#session-management")],
        expect: "every Mcp-Session-Id the server issues to consist of characters 0x21 to 0x7E only",
        transports: &[TransportKind::Http],
        explain: "The session ID MUST only contain visible ASCII characters (0x21 to 0x7E), so that it survives every HTTP stack and log unchanged. Every session id issued during the run is examined.",
        idle: Some(Idle::Nothing("the server issued no session id")),
        judge: http_session_id_visible_ascii,
    },
    Builtin {
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
    },
    Builtin {
        id: "http-notification-accepted",
        since: "2026.11",
        area: "http",
        title: "a notification POST is answered 202 with no body",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
        expect: "HTTP 202 Accepted with an empty body for an accepted notification, or an HTTP error status if the server cannot accept it",
        transports: &[TransportKind::Http],
        explain: "If the input is a JSON-RPC notification and the server accepts it, the server MUST return 202 Accepted with no body; if it cannot accept it, an HTTP error status. Every notification mcpcheck POSTs during the run is examined.",
        idle: None,
        judge: http_notification_accepted,
    },
    Builtin {
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
    },
];

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

/// Judges `http-sse-event-id-unique`: SSE event ids are unique across all streams of a session.
fn http_sse_event_id_unique(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts.iter().filter(|t| {
        t.version.as_deref().is_some_and(|v| {
            crate::record::version::at_least(v, "2025-03-26")
                && crate::record::version::Era::of(v)
                    == Some(crate::record::version::Era::Handshake)
        })
    }) {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (n, post) in transcript
            .posts
            .iter()
            .enumerate()
            .filter(|(_, p)| !resumes(p))
        {
            for id in post.event_ids.iter().filter(|id| !id.is_empty()) {
                found.seen += 1;
                if let Some(first) = ids.insert(id, n) {
                    found.bad.push(Evidence::remark(
                        "SSE event id",
                        format!(
                            "the event id {id:?} of the stream answering HTTP request {} was used before, on the stream answering request {}",
                            n + 1,
                            first + 1
                        ),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `http-session-id-visible-ascii`: a session id holds only visible ASCII.
fn http_session_id_visible_ascii(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in input.transcripts.iter().flat_map(|t| t.posts.iter()) {
        let Some(id) = post.response_header("mcp-session-id") else {
            continue;
        };
        found.seen += 1;
        if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            found.bad.push(Evidence::remark(
                "Mcp-Session-Id",
                format!("the session id {id:?} holds characters outside 0x21..0x7E"),
            ));
        }
    }
    found.judge(def)
}

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

/// Judges `http-notification-accepted`: a notification POST is answered 202 with no body.
fn http_notification_accepted(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in input
        .transcripts
        .iter()
        .flat_map(|t| t.posts.iter())
        .filter(|p| p.carried == Carried::Notification)
    {
        let Some(status) = post.status else { continue };
        found.seen += 1;
        let ok = (status == 202 && post.body_bytes == 0) || (400..500).contains(&status);
        if (400..500).contains(&status) {
            found.note = Some(format!("a notification was refused with HTTP {status}, which the spec allows for input the server cannot accept"));
        }
        if !ok {
            found.bad.push(Evidence::remark(
                "POST notification",
                format!("HTTP {status} with a body of {} bytes", post.body_bytes),
            ));
        }
    }
    found.judge(def)
}

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
