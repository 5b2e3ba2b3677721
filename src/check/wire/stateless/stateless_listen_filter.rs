//! `stateless-listen-filter`: 2026-07-28: a subscription carries only the notification types asked for.

use super::{listen_streams, unrequested};
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-listen-filter",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: a subscription carries only the notification types asked for",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "basic/patterns/subscriptions"), ("2026-07-28", "schema#subscriptionfilter")],
    expect: "the acknowledgement to agree to a subset of the types asked for, and every tagged notification to be of a type asked for (never progress or log messages)",
    transports: &[],
    explain: "Each notification type is opt-in: the server MUST NOT send types the client did not request on a subscriptions/listen stream, and acknowledges only a subset of what was asked. Progress and log messages belong to a request's own response stream. Every notification tagged with a listen request's id is examined against that request's filter.",
    idle: Some(Idle::Nothing("no notification tagged with a subscriptions/listen id arrived")),
    judge: stateless_listen_filter,
};

/// Judges `stateless-listen-filter`: 2026-07-28: a subscription carries only the notification types asked for.
fn stateless_listen_filter(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for (id, filter, tagged) in listen_streams(transcript) {
            for (notification, frame) in tagged {
                found.seen += 1;
                if let Some(why) = unrequested(&filter, notification) {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("subscription {id}: {why}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
