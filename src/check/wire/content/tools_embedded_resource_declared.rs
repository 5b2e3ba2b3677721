//! `tools-embedded-resource-declared`: a server that returns embedded resources declares resources.

use crate::check::wire::shapes::content_blocks;
use crate::check::wire::{declared_capabilities, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "tools-embedded-resource-declared",
    since: "2026.11.3",
    area: "tools",
    title: "a server that returns embedded resources declares resources",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "server/tools#embedded-resources")],
    expect: "a server whose tool results hold `resource` content blocks (from 2025-06-18) to declare the `resources` capability",
    transports: &[],
    explain: "Servers that use embedded resources SHOULD implement the resources capability, so that a client can read the resource again by its URI. Every tools/call result of the run is examined; each embedded resource counts once.",
    idle: Some(Idle::Nothing("no tool result of the run held an embedded resource")),
    judge: tools_embedded_resource_declared,
};

/// Judges `tools-embedded-resource-declared`: a server that returns embedded resources declares resources.
fn tools_embedded_resource_declared(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    let anywhere = input
        .transcripts
        .iter()
        .find_map(|t| declared_capabilities(input, t));
    for transcript in input.transcripts {
        if transcript
            .version
            .as_deref()
            .is_none_or(|v| !crate::record::version::at_least(v, "2025-06-18"))
        {
            continue;
        }
        let declared = declared_capabilities(input, transcript).or(anywhere);
        for answered in input
            .results(transcript)
            .iter()
            .filter(|a| a.method == "tools/call")
        {
            for block in content_blocks("tools/call", &answered.message["result"]) {
                if block.get("type").and_then(Value::as_str) != Some("resource") {
                    continue;
                }
                found.seen += 1;
                let resources = declared
                    .as_ref()
                    .and_then(|d| d.get("resources"))
                    .is_some_and(|r| !r.is_null());
                if !resources {
                    found.bad.push(Evidence::frame(
                        &answered.frame.text,
                        "an embedded resource in a tool result, although the server does not declare `resources`",
                    ));
                }
            }
        }
    }
    found.judge(def)
}
