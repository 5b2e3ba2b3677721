//! `wire-utf8`: every byte the server sends is UTF-8.

use crate::check::wire::{Builtin, Tally, WireInput};
use crate::record::{Direction, Evidence, FrameIssue, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "wire-utf8",
    since: "2026.11.3",
    area: "jsonrpc",
    title: "every byte the server sends is UTF-8",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/transports"), ("rfc3629", "section-3")],
    expect: "every stdout line, HTTP body and SSE line the server sends to decode as UTF-8",
    transports: &[],
    explain: "JSON-RPC messages MUST be UTF-8 encoded, on every transport. mcpcheck decodes each stdio line, each JSON body and each SSE line strictly; a byte sequence that is not UTF-8 (a Latin-1 \u{e9}, a lone continuation byte) is a violation even where a lenient decoder would have replaced it and read on.",
    idle: None,
    judge: wire_utf8,
};

/// Judges `wire-utf8`: every byte the server sends is UTF-8.
fn wire_utf8(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received && f.post.is_none())
        {
            found.seen += 1;
            if frame.issue == Some(FrameIssue::NotUtf8) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    "a stdout line that is not UTF-8",
                ));
            }
        }
        for post in transcript.posts.iter().filter(|p| p.status.is_some()) {
            found.seen += 1;
            if post.utf8_errors > 0 {
                found.bad.push(Evidence::remark(
                    &format!("{} {}", post.method, post.carried),
                    format!(
                        "HTTP {} with {} stretch(es) of bytes that are not UTF-8 in its body",
                        post.status.unwrap_or(0),
                        post.utf8_errors
                    ),
                ));
            }
        }
    }
    found.judge(def)
}
