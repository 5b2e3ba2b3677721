//! `progress-only-while-active`: progress notifications only name tokens of requests still in flight.

use crate::check::wire::progress::progress_outside_requests;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "progress-only-while-active",
    since: "2026.11.2",
    area: "progress",
    title: "progress notifications only name tokens of requests still in flight",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/utilities/progress#behavior-requirements")],
    expect: "each notifications/progress to carry the progressToken of a request mcpcheck sent that has not been answered yet",
    transports: &[],
    explain: "Progress notifications MUST only reference tokens that were provided in an active request; once the response is sent the request is over, and progress for it (or for a token never given) is a protocol error the client cannot attribute. Every progress notification of the run is examined, in the order it arrived; over HTTP, progress that arrives on another stream than its request's answer counts as late only if that stream was opened after the answer came (it may have been sent first and travelled slower). A request answered with a CreateTaskResult stays active as its task (see tasks-progress-stops).",
    idle: Some(Idle::Nothing("the server sent no progress notifications")),
    judge: progress_only_while_active,
};

/// Judges `progress-only-while-active`: progress notifications only name tokens of requests still in flight.
fn progress_only_while_active(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let (count, offenders) = progress_outside_requests(transcript);
        found.seen += count;
        found.bad.extend(offenders);
    }
    found.judge(def)
}
