//! Built-in checks of the 2024-11-05 HTTP+SSE transport seen over a whole run: every stream
//! begins with the `endpoint` event, the endpoint it names is at the stream's own origin, and
//! every server message arrives as an SSE `message` event.

use super::{Builtin, Idle, Tally, WireInput};
use crate::record::transcript::{cut, Carried, HttpRecord};
use crate::record::url::{origin, resolve, same_origin};
use crate::record::{Direction, Evidence, Level, TransportKind, Verdict};

pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "legacy-sse-endpoint-event",
        since: "2026.11.6",
        area: "sse",
        title: "an SSE stream begins with the endpoint event",
        level: Level::Must,
        derived: false,
        spec: &[("2024-11-05", "basic/transports#http-with-sse")],
        expect: "the first event of every stream the SSE endpoint opens to be an `endpoint` event whose data is a URI to POST messages to",
        transports: &[TransportKind::LegacySse],
        explain: "In the HTTP+SSE transport of 2024-11-05 (deprecated since 2025-03-26, still how many servers serve older clients) a client opens an SSE stream with GET; when it connects, the server MUST send an `endpoint` event whose data is the URI the client POSTs all its messages to. mcpcheck looks at the first event of every stream of the run. To keep going it also takes a first event of another name as the endpoint, if its data is not JSON, and fails this check.",
        idle: Some(Idle::Nothing("no HTTP+SSE stream was opened")),
        judge: legacy_sse_endpoint_event,
    },
    Builtin {
        id: "legacy-sse-endpoint-same-origin",
        since: "2026.11.10",
        area: "sse",
        title: "the endpoint event names a URI at the stream's own origin",
        level: Level::Should,
        derived: true,
        spec: &[
            ("2024-11-05", "basic/transports#http-with-sse"),
            ("2024-11-05", "basic/transports#security-warning"),
        ],
        expect: "the `endpoint` event of every stream to name a URI at the origin (scheme, host and port) the stream was opened at",
        transports: &[TransportKind::LegacySse],
        explain: "The `endpoint` event chooses where a client sends every message, and with them the credentials it was given for the server (an Authorization header, say). The 2024-11-05 text does not say where that URI may point, so this is derived, at most a warning: from the transport's security warning (a server's transport must not be a way to reach or abuse something else) and from the official SDKs, whose clients refuse an endpoint whose origin differs from the stream's. mcpcheck does the same: it never sends a message, or the user's headers, to another origin; the run ends there, and this check shows the endpoint named.",
        idle: Some(Idle::Nothing("no HTTP+SSE stream named an endpoint")),
        judge: legacy_sse_endpoint_same_origin,
    },
    Builtin {
        id: "legacy-sse-message-events",
        since: "2026.11.6",
        area: "sse",
        title: "server messages arrive as SSE message events",
        level: Level::Must,
        derived: false,
        spec: &[("2024-11-05", "basic/transports#http-with-sse")],
        expect: "every message the server sends to come on the stream as an SSE `message` event holding one JSON-RPC message as JSON (none in the bodies of the POSTs)",
        transports: &[TransportKind::LegacySse],
        explain: "In the HTTP+SSE transport, server messages are sent as SSE `message` events with the message encoded as JSON in the event data; the POSTs that carry the client's messages only deliver them. mcpcheck examines every event after the endpoint and the body of every POST: an event of another name, data that is not JSON, or a message in a POST's body fails. (To keep the run going, such messages are still taken as the server's answers.)",
        idle: Some(Idle::Nothing("the server sent no message over HTTP+SSE")),
        judge: legacy_sse_message_events,
    },
];

/// Every GET of the run that opened an HTTP+SSE stream.
fn streams<'a>(input: &'a WireInput) -> impl Iterator<Item = &'a HttpRecord> {
    input
        .transcripts
        .iter()
        .flat_map(|t| t.posts.iter())
        .filter(|p| p.method == "GET" && p.carried == Carried::Stream)
}

/// Judges `legacy-sse-endpoint-event`: an SSE stream begins with the endpoint event.
fn legacy_sse_endpoint_event(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in streams(input) {
        let Some(first) = &post.first_event else {
            continue;
        };
        found.seen += 1;
        let name = first.event.as_deref().unwrap_or("message");
        if name != "endpoint" {
            found.bad.push(Evidence::remark(
                "first event",
                format!(
                    "the stream began with an event named `{name}` (data: {}), not `endpoint`",
                    cut(&first.data, 200)
                ),
            ));
        } else if let Err(e) = resolve("http://127.0.0.1/", first.data.trim()) {
            found.bad.push(Evidence::remark(
                "endpoint event",
                format!(
                    "the endpoint `{}` is not a usable URI: {e}",
                    cut(&first.data, 200)
                ),
            ));
        }
    }
    found.judge(def)
}

/// Judges `legacy-sse-endpoint-same-origin`: the endpoint event names a URI at the stream's own origin.
fn legacy_sse_endpoint_same_origin(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in streams(input) {
        let (Some(first), Some(url)) = (&post.first_event, &post.url) else {
            continue;
        };
        let Ok(endpoint) = resolve(url, first.data.trim()) else {
            continue;
        };
        found.seen += 1;
        if !same_origin(&endpoint, url) {
            found.bad.push(Evidence::remark(
                "endpoint event",
                format!(
                    "the stream opened at {} named its endpoint at {} (origin {}); mcpcheck sent it nothing",
                    origin(url).unwrap_or_default(),
                    cut(&endpoint, 200),
                    origin(&endpoint).unwrap_or_default()
                ),
            ));
        }
    }
    found.judge(def)
}

/// Judges `legacy-sse-message-events`: server messages arrive as SSE message events.
fn legacy_sse_message_events(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received && f.post.is_some())
        {
            found.seen += 1;
            if let Some(issue) = &frame.issue {
                found
                    .bad
                    .push(Evidence::frame(&frame.text, &issue.to_string()));
            }
        }
    }
    found.judge(def)
}
