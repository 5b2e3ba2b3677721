//! `server-cancel-valid`: the server cancels only what it may.

use super::stray_cancellations;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "server-cancel-valid",
    since: "2026.11.3",
    area: "cancellation",
    title: "the server cancels only what it may",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/utilities/cancellation#cancellation-flow"), ("2026-07-28", "basic/patterns/cancellation")],
    expect: "each notifications/cancelled from the server to name a request the server issued on that connection; on 2026-07-28 only a subscriptions/listen of mcpcheck's",
    transports: &[],
    explain: "Up to 2025-11-25 either side may cancel a request it issued that is still in progress: a server's notifications/cancelled MUST reference one of its own requests. A cancellation that crosses mcpcheck's answer is not held against the server (the spec expects such races); one that names an id the server never used, or one of mcpcheck's requests, is. On 2026-07-28 a server sends no requests, and it sends notifications/cancelled only to end a subscriptions/listen stream; any other requestId is a violation.",
    idle: Some(Idle::Nothing("the server sent no notifications/cancelled during the run")),
    judge: server_cancel_valid,
};

/// Judges `server-cancel-valid`: the server cancels only what it may.
fn server_cancel_valid(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let stateless = transcript.version.as_deref().is_some_and(|v| {
            crate::record::version::Era::of(v) == Some(crate::record::version::Era::Stateless)
        });
        found
            .bad
            .extend(stray_cancellations(transcript, stateless, &mut found.seen));
    }
    found.judge(def)
}
