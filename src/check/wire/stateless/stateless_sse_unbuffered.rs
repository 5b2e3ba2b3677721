//! `stateless-sse-unbuffered`: 2026-07-28: SSE responses carry X-Accel-Buffering: no.

use crate::check::wire::{transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-sse-unbuffered",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: SSE responses carry X-Accel-Buffering: no",
    level: Level::Should,
    derived: false,
    spec: &[("2026-07-28", "basic/transports/streamable-http")],
    expect: "the header X-Accel-Buffering: no on every text/event-stream response of a 2026-07-28 connection",
    transports: &[TransportKind::Http],
    explain: "A reverse proxy that buffers an SSE response delays every event until the stream ends, which defeats progress and long-lived subscriptions; 2026-07-28 servers SHOULD send X-Accel-Buffering: no on SSE responses. Every SSE response of every 2026-07-28 connection is examined.",
    idle: Some(Idle::Stateless("connections (SSE responses, for the latter)")),
    judge: stateless_sse_unbuffered,
};

/// Judges `stateless-sse-unbuffered`: 2026-07-28: SSE responses carry X-Accel-Buffering: no.
fn stateless_sse_unbuffered(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        for post in transcript.posts.iter().filter(|p| {
            p.response_header("content-type")
                .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"))
        }) {
            found.seen += 1;
            if !post
                .response_header("x-accel-buffering")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("no"))
            {
                found.bad.push(Evidence::remark(
                    "SSE response",
                    format!(
                        "an SSE response to a {} without X-Accel-Buffering: no",
                        post.method
                    ),
                ));
            }
        }
    }
    found.judge(def)
}
