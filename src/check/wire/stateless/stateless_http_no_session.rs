//! `stateless-http-no-session`: on 2026-07-28, responses carry no Mcp-Session-Id.

use crate::check::wire::{transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-http-no-session",
    since: "2026.11.1",
    area: "stateless",
    title: "on 2026-07-28, responses carry no Mcp-Session-Id",
    level: Level::Should,
    derived: false,
    spec: &[("2026-07-28", "basic/transports/streamable-http")],
    expect: "no Mcp-Session-Id header on any response of a connection on 2026-07-28",
    transports: &[TransportKind::Http],
    explain: "2026-07-28 has no sessions: every request stands alone, and a session id in a response suggests state a client must not rely on. Only connections on 2026-07-28 are examined.",
    idle: Some(Idle::Nothing("applies to connections on 2026-07-28 only")),
    judge: stateless_http_no_session,
};

/// Judges `stateless-http-no-session`: on 2026-07-28, responses carry no Mcp-Session-Id.
fn stateless_http_no_session(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        let version =
            crate::record::version::wire(transcript.version.as_deref().unwrap_or_default());
        // Requests that claimed another version in their header, or none (mcpcheck's own
        // contradiction and legacy probes), may be routed to a legacy handler; they do
        // not count.
        for post in transcript.posts.iter().filter(|p| {
            p.status.is_some()
                && p.request_headers
                    .iter()
                    .any(|(n, v)| n.eq_ignore_ascii_case("mcp-protocol-version") && v == version)
        }) {
            found.seen += 1;
            if let Some(id) = post.response_header("mcp-session-id") {
                found.bad.push(Evidence::remark(
                    "Mcp-Session-Id",
                    format!("a {} response carried Mcp-Session-Id {id:?}", post.method),
                ));
            }
        }
    }
    found.judge(def)
}
