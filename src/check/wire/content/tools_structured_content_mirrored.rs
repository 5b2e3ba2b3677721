//! `tools-structured-content-mirrored`: structuredContent is mirrored as JSON in a text block.

use crate::check::wire::shapes::same_json;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "tools-structured-content-mirrored",
    since: "2026.11.2",
    area: "tools",
    title: "structuredContent is mirrored as JSON in a text block",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "server/tools#structured-content")],
    expect: "every tools/call result with structuredContent to carry a text content block whose text parses to the same JSON",
    transports: &[],
    explain: "For backwards compatibility, a tool that returns structured content SHOULD also return its serialized JSON in a TextContent block, so that clients that do not read structuredContent still get the data. Every tool result of the run with structuredContent is examined.",
    idle: Some(Idle::Nothing("no tool result carried structuredContent")),
    judge: tools_structured_content_mirrored,
};

/// Judges `tools-structured-content-mirrored`: structuredContent is mirrored as JSON in a text block.
fn tools_structured_content_mirrored(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in input
            .results(transcript)
            .iter()
            .filter(|a| a.method == "tools/call")
        {
            let result = &answered.message["result"];
            let Some(structured) = result.get("structuredContent") else {
                continue;
            };
            found.seen += 1;
            let mirrored = result
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type") == Some(&Value::from("text")))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .any(|text| {
                    serde_json::from_str::<Value>(text)
                        .is_ok_and(|parsed| same_json(&parsed, structured))
                });
            if !mirrored {
                found.bad.push(Evidence::frame(
                    &answered.frame.text,
                    "structuredContent has no text block carrying its JSON serialization",
                ));
            }
        }
    }
    found.judge(def)
}
