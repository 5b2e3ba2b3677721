//! `server-request-id`: the server's own requests have string or integer ids, never reused.

use super::bad_request_ids;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "server-request-id",
    since: "2026.11.2",
    area: "jsonrpc",
    title: "the server's own requests have string or integer ids, never reused",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/index#requests")],
    expect: "each request the server sends to have a string or integer id that it has not used before on the connection",
    transports: &[],
    explain: "Requests MUST include a string or integer ID, which MUST NOT be null and MUST NOT have been used before by the requestor within the same session; a reused id makes the client's answer ambiguous. Every request the server sent during the run is examined, those on streams resumed with Last-Event-ID too: there the very same request again is its redelivery, while another request under an id already used is a reuse (a server that numbers each stream's requests afresh, say).",
    idle: Some(Idle::Nothing("the server sent no requests of its own")),
    judge: server_request_id,
};

/// Judges `server-request-id`: the server's own requests have string or integer ids, never reused.
fn server_request_id(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        found
            .bad
            .extend(bad_request_ids(transcript, &mut found.seen));
    }
    found.judge(def)
}
