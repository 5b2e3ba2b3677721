//! `stateless-tools-order-stable`: 2026-07-28: tools/list answers in a deterministic order.

use super::same_set;
use crate::check::wire::{transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::transcript::cut;
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-tools-order-stable",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: tools/list answers in a deterministic order",
    level: Level::Should,
    derived: false,
    spec: &[("2026-07-28", "server/tools#listing-tools")],
    expect: "every answer of tools/list for the same cursor (or none: the first page) in the run that lists the same tools to list them in the same order",
    transports: &[],
    explain: "On 2026-07-28 tools/list SHOULD be deterministic, so that clients and caches (ttlMs, cacheScope) see one stable list and prompts built from it do not change between requests. Every page of every tools/list of every 2026-07-28 connection is compared with the first answer for the same cursor (the first page: no cursor), so a later page that changes between requests is seen too. A page that lists other tools is judged by stateless-list-not-per-connection, not here.",
    idle: Some(Idle::Stateless("tools/list results (with x-mcp-header, for the latter)")),
    judge: stateless_tools_order_stable,
};

/// Judges `stateless-tools-order-stable`: 2026-07-28: tools/list answers in a deterministic order.
fn stateless_tools_order_stable(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    // The first answer for each cursor (none: the first page), as a sequence of names; every
    // later answer for the same cursor, on any connection, is compared with it.
    let mut first: HashMap<Option<String>, Vec<String>> = HashMap::new();
    for transcript in transcripts_since(input, "2026-07-28") {
        for answered in input
            .results(transcript)
            .iter()
            .filter(|a| a.method == "tools/list")
        {
            let cursor = answered
                .request
                .pointer("/params/cursor")
                .filter(|c| !c.is_null())
                .map(Value::to_string);
            let names: Vec<String> = answered
                .message
                .pointer("/result/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(String::from)
                .collect();
            found.seen += 1;
            match first.get(&cursor) {
                None => {
                    first.insert(cursor, names);
                }
                // The same tools in another order; other tools are what
                // stateless-list-not-per-connection judges.
                Some(before) if *before != names && same_set(before, &names) => {
                    found.bad.push(Evidence::remark(
                        "tools/list",
                        format!(
                            "{} listed [{}] once and [{}] later",
                            match &cursor {
                                None => "the first page".to_string(),
                                Some(c) => format!("the page for cursor {}", cut(c, 60)),
                            },
                            cut(&before.join(", "), 120),
                            cut(&names.join(", "), 120)
                        ),
                    ))
                }
                // Other tools (judged elsewhere): later answers are compared with this list.
                Some(before) if !same_set(before, &names) => {
                    first.insert(cursor, names);
                }
                Some(_) => {}
            }
        }
    }
    found.judge(def)
}
