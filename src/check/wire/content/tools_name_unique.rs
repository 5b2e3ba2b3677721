//! `tools-name-unique`: no tool name is listed twice, across all pages of a listing.

use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "tools-name-unique",
    since: "2026.11.2",
    area: "tools",
    title: "no tool name is listed twice, across all pages of a listing",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "server/tools#tool-names")],
    expect: "every tool name to appear once across the pages of each tools/list listing",
    transports: &[],
    explain: "Tool names SHOULD be unique within a server, since clients call tools by name; a duplicate makes one of them unreachable. The pages of one listing (a tools/list without a cursor, then the ones that follow its nextCursor) are taken together.",
    idle: Some(Idle::Nothing("no tools/list result of the run listed a tool")),
    judge: tools_name_unique,
};

/// Judges `tools-name-unique`: no tool name is listed twice, across all pages of a listing.
fn tools_name_unique(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        // A tools/list without a cursor starts a listing; one with the nextCursor of the
        // listing's last page continues it. Any other cursor (mcpcheck's invalid-cursor
        // probe) is not part of a listing.
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut page = 0;
        let mut next: Option<Value> = None;
        for answered in input
            .results(transcript)
            .iter()
            .filter(|a| a.method == "tools/list")
        {
            match answered.request.pointer("/params/cursor") {
                None => {
                    names.clear();
                    page = 0;
                }
                Some(cursor) if Some(cursor) == next.as_ref() => {}
                Some(_) => continue,
            }
            next = answered.message.pointer("/result/nextCursor").cloned();
            page += 1;
            for name in answered
                .message
                .pointer("/result/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
            {
                // What it examined is the names (a listing of no tools holds nothing).
                found.seen += 1;
                if let Some(first) = names.insert(name.to_string(), page) {
                    found.bad.push(Evidence::remark(
                        "tools/list",
                        format!("the tool name `{name}` is listed twice (pages {first} and {page} of one listing)"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
