//! `legacy-sse-message-events`: server messages arrive as SSE message events.

use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Direction, Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
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
};

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
