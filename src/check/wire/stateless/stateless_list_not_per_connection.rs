//! `stateless-list-not-per-connection`: 2026-07-28: tools, prompts and resources are listed alike on every connection.

use super::{listings, Listing};
use crate::check::wire::{tally, transcripts_since, Builtin, Idle, WireInput};
use crate::record::transcript::cut;
use crate::record::{Direction, Evidence, Level, Transcript, Verdict};
use serde_json::Value;
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-list-not-per-connection",
    since: "2026.11.12",
    area: "stateless",
    title: "2026-07-28: tools, prompts and resources are listed alike on every connection",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "server/tools#capabilities"), ("2026-07-28", "changelog")],
    expect: "every answer of tools/list (prompts/list, resources/list) for the same cursor (none: the first page), on any 2026-07-28 connection, to name the same tools (prompts, resources), unless the server announced a change (list_changed) between them",
    transports: &[],
    explain: "2026-07-28 removed sessions (SEP-2567): what a list method returns does not vary per connection, nor change as a side effect of other requests, so that clients and caches can share one list. Every page of every list method answered on a 2026-07-28 connection is put in the order it was answered and compared with the answer for the same cursor (none: the first page) before it; a difference is excused by a list_changed notification of that list that arrived after the earlier answer (one notification excusing one difference per page). Order is judged by stateless-tools-order-stable.",
    idle: Some(Idle::Nothing("no page of a list was asked for twice at 2026-07-28")),
    judge: stateless_list_not_per_connection,
};

/// Judges `stateless-list-not-per-connection`: every page of a list method names the same items as
/// the answer for the same cursor before it, on whatever connection, unless a list_changed of that
/// list arrived between them.
fn stateless_list_not_per_connection(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut bad: Vec<Evidence> = Vec::new();
    let mut seen = 0usize;
    let transcripts: Vec<&Transcript> = transcripts_since(input, "2026-07-28").collect();
    for kind in ["tools", "prompts", "resources"] {
        let mut all: Vec<Listing> = transcripts
            .iter()
            .enumerate()
            .flat_map(|(n, t)| listings(input, t, n, kind))
            .collect();
        if all.len() < 2 {
            continue;
        }
        all.sort_by_key(|l| l.at);
        // Each page is compared with the answer for the same cursor before it.
        let mut last: HashMap<Option<String>, usize> = HashMap::new();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (n, listing) in all.iter().enumerate() {
            if let Some(before) = last.insert(listing.cursor.clone(), n) {
                pairs.push((before, n));
            }
        }
        let pairs_len = pairs.len();
        let changed = format!("notifications/{kind}/list_changed");
        let announced: Vec<std::time::Instant> = transcripts
            .iter()
            .flat_map(|t| {
                t.frames
                    .iter()
                    .filter(|f| f.direction == Direction::Received)
                    .filter(|f| {
                        f.message
                            .as_ref()
                            .and_then(|m| m.get("method"))
                            .and_then(Value::as_str)
                            == Some(changed.as_str())
                    })
                    .map(|f| t.started() + std::time::Duration::from_millis(f.at_ms))
            })
            .collect();
        // A list_changed that arrived after the earlier answer excuses the difference; each one
        // excuses one difference per page, as one change makes each page differ once.
        let mut used: Vec<(usize, Option<String>)> = Vec::new();
        for (before, after) in pairs {
            let (before, after) = (&all[before], &all[after]);
            if before.names == after.names {
                continue;
            }
            // Any unused list_changed that came after the earlier answer (it may reach mcpcheck
            // after the later answer already shows the change).
            let excuse = announced
                .iter()
                .enumerate()
                .position(|(n, t)| *t >= before.at && !used.contains(&(n, after.cursor.clone())));
            if let Some(n) = excuse {
                used.push((n, after.cursor.clone()));
                continue;
            }
            let only = |a: &[String], b: &[String]| -> Vec<String> {
                a.iter().filter(|n| !b.contains(n)).cloned().collect()
            };
            let added = only(&after.names, &before.names);
            let gone = only(&before.names, &after.names);
            let mut change = Vec::new();
            if !added.is_empty() {
                change.push(format!("[{}] more", cut(&added.join(", "), 120)));
            }
            if !gone.is_empty() {
                change.push(format!("[{}] fewer", cut(&gone.join(", "), 120)));
            }
            let page = match &after.cursor {
                None => "the first page".to_string(),
                Some(cursor) => format!("the page for cursor {}", cut(cursor, 60)),
            };
            let place = if before.connection == after.connection {
                format!("{page}, asked for again on the same connection,")
            } else {
                format!("{page}, asked for again on another connection,")
            };
            bad.push(Evidence::remark(
                &format!("{kind}/list"),
                format!(
                    "{place} named {} than before, with no {changed} between",
                    change.join(" and ")
                ),
            ));
        }
        // What was examined: the pages compared with an earlier answer.
        seen += pairs_len;
    }
    tally(def, bad, seen, None)
}
