//! `http-session-id-visible-ascii`: a session id holds only visible ASCII.

use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "http-session-id-visible-ascii",
    since: "2026.11.1",
    area: "http",
    title: "a session id holds only visible ASCII",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#session-management")],
    expect: "every Mcp-Session-Id the server issues to consist of characters 0x21 to 0x7E only",
    transports: &[TransportKind::Http],
    explain: "The session ID MUST only contain visible ASCII characters (0x21 to 0x7E), so that it survives every HTTP stack and log unchanged. Every session id issued during the run is examined.",
    idle: Some(Idle::Nothing("the server issued no session id")),
    judge: http_session_id_visible_ascii,
};

/// Judges `http-session-id-visible-ascii`: a session id holds only visible ASCII.
fn http_session_id_visible_ascii(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for post in input.transcripts.iter().flat_map(|t| t.posts.iter()) {
        let Some(id) = post.response_header("mcp-session-id") else {
            continue;
        };
        found.seen += 1;
        if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            found.bad.push(Evidence::remark(
                "Mcp-Session-Id",
                format!("the session id {id:?} holds characters outside 0x21..0x7E"),
            ));
        }
    }
    found.judge(def)
}
