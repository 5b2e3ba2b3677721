//! `wire-notification-schema`: every notification the server sends has its method's shape.

use crate::check::wire::{messages, Builtin, Idle, Tally, WireInput};
use crate::record::{Direction, Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "wire-notification-schema",
    since: "2026.11.2",
    area: "jsonrpc",
    title: "every notification the server sends has its method's shape",
    level: Level::Must,
    derived: true,
    spec: &[("2025-11-25", "schema"), ("2026-07-28", "schema")],
    expect: "each notifications/message, progress, cancelled, resources/updated and list_changed notification to validate against its type at the negotiated version",
    transports: &[],
    explain: "The schema defines the params of every notification: a log message needs a level from the RFC 5424 list and data, progress a string or integer token and a number, resources/updated a uri. mcpcheck validates every notification of a method it knows, on every connection, against its own per-version description (and the official schema files with --official-schemas). Notifications of other methods are not judged here.",
    idle: Some(Idle::Nothing("the server sent no notification of a method mcpcheck knows")),
    judge: wire_notification_schema,
};

/// Judges `wire-notification-schema`: every notification the server sends has its method's shape.
fn wire_notification_schema(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let Some(version) = transcript.version.as_deref() else {
            continue;
        };
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received)
        {
            let Some(message) = frame.message.as_ref().filter(|m| {
                m.get("id").is_none()
                    && m.get("method")
                        .and_then(Value::as_str)
                        .is_some_and(|method| {
                            messages::NOTIFICATIONS.iter().any(|(n, _)| *n == method)
                        })
            }) else {
                continue;
            };
            found.seen += 1;
            let method = message["method"].as_str().unwrap_or_default();
            if let Some(problem) = messages::check_notification(version, message) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("not a {method} notification of {version}: {problem}"),
                ));
            } else if let Some(problem) = input
                .official
                .and_then(|o| o.check_notification(version, message))
            {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("the official {version} schema rejects this {method} notification: {problem}"),
                ));
            }
        }
    }
    found.judge(def)
}
