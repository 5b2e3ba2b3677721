//! `logging-capability-declared`: log messages come only from a server that declares logging.

use crate::check::wire::{declared_capabilities, received_fresh, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "logging-capability-declared",
    since: "2026.11.3",
    area: "logging",
    title: "log messages come only from a server that declares logging",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "server/utilities/logging#capabilities"), ("2026-07-28", "server/utilities/logging")],
    expect: "no notifications/message from a server whose capabilities (initialize or server/discover) lack `logging`",
    transports: &[],
    explain: "Servers that emit log message notifications MUST declare the `logging` capability. Every notifications/message of the run is compared with the capabilities the server declared on that connection (or, on a connection that did not ask, in the run's discover or initialize result).",
    idle: Some(Idle::Nothing("the server sent no log message during the run")),
    judge: logging_capability_declared,
};

/// Judges `logging-capability-declared`: log messages come only from a server that declares logging.
fn logging_capability_declared(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    let anywhere = input
        .transcripts
        .iter()
        .find_map(|t| declared_capabilities(input, t));
    for transcript in input.transcripts {
        let Some(declared) = declared_capabilities(input, transcript).or(anywhere) else {
            continue;
        };
        for (message, frame) in received_fresh(transcript) {
            if message.get("method").and_then(Value::as_str) != Some("notifications/message")
                || message.get("id").is_some()
            {
                continue;
            }
            found.seen += 1;
            if declared.get("logging").is_none_or(Value::is_null) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    "a log message, although the server's capabilities have no `logging`",
                ));
            }
        }
    }
    found.judge(def)
}
