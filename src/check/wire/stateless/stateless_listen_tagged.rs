//! `stateless-listen-tagged`: 2026-07-28: everything a subscription delivers carries its id.

use super::SUBSCRIPTION_ONLY;
use crate::check::wire::{sent_message, transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{id_key, Direction, Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-listen-tagged",
    since: "2026.11.11",
    area: "stateless",
    title: "2026-07-28: everything a subscription delivers carries its id",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "basic/patterns/subscriptions"), ("2026-07-28", "schema#notificationmetaobject"), ("2026-07-28", "schema#subscriptionslistenresult")],
    expect: "_meta io.modelcontextprotocol/subscriptionId = the listen request's id on every notification of a subscription (over HTTP: everything on the listen request's stream; on any transport: every acknowledgement, list change and resource update) and on the subscription's final result",
    transports: &[],
    explain: "A client tells its subscriptions apart by the id the server puts in _meta io.modelcontextprotocol/subscriptionId: the server MUST include it on every notification delivered on a subscriptions/listen stream, and the final result that ends a subscription carries it too (the schema requires it). On 2026-07-28 acknowledgements, list changes and resource updates travel only on subscriptions, so one of them without the id cannot be placed on any. Over HTTP mcpcheck reads a listen stream on for a second after its acknowledgement; every notification and final result of every 2026-07-28 connection is examined.",
    idle: Some(Idle::Nothing("no subscription delivered anything on a 2026-07-28 connection")),
    judge: stateless_listen_tagged,
};

/// Judges `stateless-listen-tagged`: 2026-07-28: everything a subscription delivers carries its id.
fn stateless_listen_tagged(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        // Each listen request: its id (as a key) and, over HTTP, the POST whose stream it is.
        let mut listens: Vec<(String, Option<usize>)> = Vec::new();
        for frame in &transcript.frames {
            if frame.direction == Direction::Sent {
                if let Some(id) = sent_message(frame)
                    .filter(|m| m["method"] == "subscriptions/listen")
                    .and_then(|m| m.get("id").map(id_key))
                {
                    listens.push((id, frame.post));
                }
                continue;
            }
            let Some(message) = frame.message.as_ref() else {
                continue;
            };
            let method = message.get("method").and_then(Value::as_str);
            if let (None, Some(id)) = (method, message.get("id")) {
                // A final result of a subscription names it, like its notifications.
                let key = id_key(id);
                if let (true, Some(result)) = (
                    listens.iter().any(|(k, _)| *k == key),
                    message.get("result"),
                ) {
                    found.seen += 1;
                    let tag = result
                        .pointer("/_meta/io.modelcontextprotocol~1subscriptionId")
                        .map(id_key);
                    if tag.as_ref() != Some(&key) {
                        found.bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the final result of subscription {key} does not carry its id in _meta io.modelcontextprotocol/subscriptionId"),
                        ));
                    }
                }
                continue;
            }
            let (Some(method), None) = (method, message.get("id")) else {
                continue;
            };
            let tag = message
                .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                .map(id_key);
            let stream = frame
                .post
                .and_then(|post| listens.iter().find(|(_, p)| *p == Some(post)));
            if let Some((key, _)) = stream {
                found.seen += 1;
                if tag.as_ref() != Some(key) {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("a {method} on the stream of subscription {key} without its id in _meta io.modelcontextprotocol/subscriptionId"),
                    ));
                }
            } else if SUBSCRIPTION_ONLY.contains(&method) {
                found.seen += 1;
                if tag.is_none() {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("a {method} without _meta io.modelcontextprotocol/subscriptionId: on 2026-07-28 it goes only on a subscription, tagged with its id"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
