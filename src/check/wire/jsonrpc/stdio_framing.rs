//! `stdio-framing`: stdout carries only MCP messages, one per line.

use crate::check::wire::{Builtin, Tally, WireInput};
use crate::record::{Direction, Evidence, Level, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stdio-framing",
    since: "2026.11",
    area: "stdio",
    title: "stdout carries only MCP messages, one per line",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/transports#stdio")],
    expect: "every line on stdout to be exactly one JSON-RPC message, with no banner, log line, blank line or pretty-printed JSON",
    transports: &[TransportKind::Stdio],
    explain: "Messages are delimited by newlines and MUST NOT contain embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message. Every line the server writes during the whole run is examined.",
    idle: None,
    judge: stdio_framing,
};

/// Judges `stdio-framing`: stdout carries only MCP messages, one per line.
fn stdio_framing(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for frame in input
        .transcripts
        .iter()
        .flat_map(|t| t.frames.iter())
        .filter(|f| f.direction == Direction::Received)
    {
        found.seen += 1;
        if let Some(issue) = &frame.issue {
            found
                .bad
                .push(Evidence::frame(&frame.text, &issue.to_string()));
        }
    }
    found.judge(def)
}
