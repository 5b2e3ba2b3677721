//! `jsonrpc-response-once`: each request is answered once.

use crate::check::wire::{is_response, sent_message, Builtin, Idle, Tally, WireInput};
use crate::record::{id_key, Direction, Evidence, Level, TransportKind, Verdict, WireFrame};
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "jsonrpc-response-once",
    since: "2026.11.10",
    area: "jsonrpc",
    title: "each request is answered once",
    level: Level::Should,
    derived: true,
    spec: &[("2025-11-25", "basic/index#responses")],
    expect: "one response to each request: no second response with the id of a request already answered",
    transports: &[TransportKind::Stdio, TransportKind::LegacySse],
    explain: "Responses are sent in reply to requests, one to each; a client matches a response to its request by id, and a second response with the same id would be taken for the answer to a later request (which mcpcheck does not do). Neither MCP nor JSON-RPC 2.0 says 'exactly once' in so many words, so this is derived and at most a warning. Over stdio and HTTP+SSE mcpcheck counts, per connection, the responses to every id it sent; over Streamable HTTP a response redelivered on a resumed stream is not a duplicate, so that transport is not judged here.",
    idle: Some(Idle::Nothing("mcpcheck got no response over a stream transport")),
    judge: jsonrpc_response_once,
};

/// Judges `jsonrpc-response-once`: each request is answered once.
fn jsonrpc_response_once(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let mut sent: HashMap<String, usize> = HashMap::new();
        let mut answered: HashMap<String, (usize, &WireFrame)> = HashMap::new();
        for frame in &transcript.frames {
            match frame.direction {
                Direction::Sent => {
                    if let Some(id) = sent_message(frame)
                        .filter(|m| m.get("method").is_some())
                        .and_then(|m| m.get("id").cloned())
                    {
                        *sent.entry(id_key(&id)).or_default() += 1;
                    }
                }
                Direction::Received => {
                    let Some(id) = frame
                        .message
                        .as_ref()
                        .filter(|m| is_response(m))
                        .and_then(|m| m.get("id"))
                        .filter(|id| !id.is_null())
                    else {
                        continue;
                    };
                    let entry = answered.entry(id_key(id)).or_insert((0, frame));
                    entry.0 += 1;
                }
            }
        }
        for (id, (count, frame)) in &answered {
            let Some(requests) = sent.get(id) else {
                continue;
            };
            found.seen += 1;
            if count > requests {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!(
                        "{count} responses with id {id} to {requests} request(s) with that id"
                    ),
                ));
            }
        }
    }
    // The order of a map is no order: evidence is sorted for a stable report.
    found.bad.sort_by(|a, b| a.remark.cmp(&b.remark));
    found.judge(def)
}
