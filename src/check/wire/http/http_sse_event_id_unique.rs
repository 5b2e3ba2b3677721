//! `http-sse-event-id-unique`: SSE event ids are unique across all streams of a session.

use crate::check::wire::{resumes, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, TransportKind, Verdict};
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-sse-event-id-unique",
    since: "2026.11.2",
    area: "http",
    title: "SSE event ids are unique across all streams of a session",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#resumability-and-redelivery")],
    expect: "no SSE event id used twice within one session, on any of its streams (2025-03-26 to 2025-11-25)",
    transports: &[TransportKind::Http],
    explain: "If a server attaches ids to SSE events, they MUST be globally unique across all streams within the session, because a client resumes with Last-Event-ID and the server must know which stream and position that names. Every event id of every SSE response of each session is examined.",
    idle: Some(Idle::Nothing("no SSE event of a 2025-03-26 to 2025-11-25 session carried an id")),
    judge: http_sse_event_id_unique,
};

/// Judges `http-sse-event-id-unique`: SSE event ids are unique across all streams of a session.
fn http_sse_event_id_unique(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts.iter().filter(|t| {
        t.version.as_deref().is_some_and(|v| {
            crate::record::version::at_least(v, "2025-03-26")
                && crate::record::version::Era::of(v)
                    == Some(crate::record::version::Era::Handshake)
        })
    }) {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (n, post) in transcript
            .posts
            .iter()
            .enumerate()
            .filter(|(_, p)| !resumes(p))
        {
            for id in post.event_ids.iter().filter(|id| !id.is_empty()) {
                found.seen += 1;
                if let Some(first) = ids.insert(id, n) {
                    found.bad.push(Evidence::remark(
                        "SSE event id",
                        format!(
                            "the event id {id:?} of the stream answering HTTP request {} was used before, on the stream answering request {}",
                            n + 1,
                            first + 1
                        ),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
