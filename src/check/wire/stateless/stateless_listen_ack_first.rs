//! `stateless-listen-ack-first`: 2026-07-28: a subscription's first message is its acknowledgement.

use super::listen_streams;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-listen-ack-first",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: a subscription's first message is its acknowledgement",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "basic/patterns/subscriptions")],
    expect: "for every subscriptions/listen, the first notification tagged with its id to be notifications/subscriptions/acknowledged",
    transports: &[],
    explain: "The acknowledgement MUST be the first message the server sends carrying the subscription's id in io.modelcontextprotocol/subscriptionId, and no notification may go out on the subscription before it (on stdio the order is per subscription; others may interleave). Every listen request of the run is examined.",
    idle: Some(Idle::Nothing("no notification tagged with a subscriptions/listen id arrived")),
    judge: stateless_listen_ack_first,
};

/// Judges `stateless-listen-ack-first`: 2026-07-28: a subscription's first message is its acknowledgement.
fn stateless_listen_ack_first(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for (id, _, tagged) in listen_streams(transcript) {
            let Some((first, frame)) = tagged.first() else {
                continue;
            };
            found.seen += 1;
            if first.get("method").and_then(Value::as_str)
                != Some("notifications/subscriptions/acknowledged")
            {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!(
                        "the first notification of subscription {id} is not its acknowledgement"
                    ),
                ));
            }
        }
    }
    found.judge(def)
}
