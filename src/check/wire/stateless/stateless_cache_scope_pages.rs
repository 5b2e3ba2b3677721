//! `stateless-cache-scope-pages`: every page of one listing has the same cacheScope.

use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-cache-scope-pages",
    since: "2026.11.3",
    area: "stateless",
    title: "every page of one listing has the same cacheScope",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "basic/utilities/caching")],
    expect: "each page reached through nextCursor to carry the cacheScope of the page that named the cursor",
    transports: &[],
    explain: "2026-07-28 puts caching hints (ttlMs, cacheScope) on list results. A paginated list is one result cut into pages, and every page of it MUST carry the same cacheScope: a client cannot cache page one as public and page two as private. mcpcheck follows nextCursor in several scenarios; each page it asked for with a cursor is compared with the page that gave it.",
    idle: Some(Idle::Nothing("no list of the run had a second page on 2026-07-28")),
    judge: stateless_cache_scope_pages,
};

/// Judges `stateless-cache-scope-pages`: every page of one listing has the same cacheScope.
fn stateless_cache_scope_pages(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        if transcript.version.as_deref().is_none_or(|v| {
            crate::record::version::Era::of(v) != Some(crate::record::version::Era::Stateless)
        }) {
            continue;
        }
        // The cacheScope of the page that handed out each cursor, by method and cursor.
        let mut scopes: HashMap<(String, String), Value> = HashMap::new();
        for answered in input.results(transcript) {
            if !answered.method.ends_with("/list") {
                continue;
            }
            let result = &answered.message["result"];
            let scope = result.get("cacheScope").cloned().unwrap_or(Value::Null);
            if let Some(cursor) = answered
                .request
                .pointer("/params/cursor")
                .and_then(Value::as_str)
            {
                if let Some(first) = scopes.get(&(answered.method.clone(), cursor.to_string())) {
                    found.seen += 1;
                    if *first != scope {
                        found.bad.push(Evidence::frame(
                            &answered.frame.text,
                            &format!("the {} page for cursor {cursor:?} has cacheScope {scope}, the page that gave the cursor {first}", answered.method),
                        ));
                    }
                }
            }
            if let Some(next) = result.get("nextCursor").and_then(Value::as_str) {
                scopes.insert((answered.method.clone(), next.to_string()), scope);
            }
        }
    }
    found.judge(def)
}
