//! `wire-meta-key-format`: every `_meta` key the server sends follows the key grammar.

use crate::check::wire::shapes::{meta_key_problem, meta_keys};
use crate::check::wire::{received_fresh, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "wire-meta-key-format",
    since: "2026.11.3",
    area: "jsonrpc",
    title: "every `_meta` key the server sends follows the key grammar",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/index#meta"), ("2026-07-28", "basic/index#meta")],
    expect: "each key of every `_meta` object (from 2025-06-18) to be an optional prefix of dot-separated labels and a slash, then a name that begins and ends with a letter or digit; on 2026-07-28 each key of `capabilities.extensions` to be such a key with a prefix",
    transports: &[],
    explain: "From 2025-06-18 `_meta` keys have a grammar: an optional prefix (labels separated by dots, each starting with a letter and ending with a letter or digit, with letters, digits and hyphens between, followed by `/`) and a name (empty, or beginning and ending with a letter or digit, with letters, digits, `-`, `_` and `.` between). 2026-07-28 keys the `extensions` capability the same way, with the prefix mandatory. Every `_meta` object of every message the server sends is examined, except inside tool schemas, structured content and arguments, which are the tool's own data. Keys under a prefix MCP reserves are judged by the grammar only: official extensions use that prefix too.",
    idle: Some(Idle::Nothing("the server sent no `_meta` key on a 2025-06-18 or later connection")),
    judge: wire_meta_key_format,
};

/// Judges `wire-meta-key-format`: every `_meta` key the server sends follows the key grammar.
fn wire_meta_key_format(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let Some(version) = transcript
            .version
            .as_deref()
            .filter(|v| crate::record::version::at_least(v, "2025-06-18"))
        else {
            continue;
        };
        for (message, frame) in received_fresh(transcript) {
            let mut keys = Vec::new();
            meta_keys(message, &mut keys);
            if crate::record::version::at_least(version, "2026-07-28") {
                if let Some(extensions) = message
                    .pointer("/result/capabilities/extensions")
                    .and_then(Value::as_object)
                {
                    keys.extend(extensions.keys().map(|k| {
                        (
                            "/result/capabilities/extensions".to_string(),
                            k.as_str(),
                            true,
                        )
                    }));
                }
            }
            for (at, key, prefixed) in keys {
                found.seen += 1;
                if let Some(problem) = meta_key_problem(key, prefixed) {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("key {key:?} at `{at}`: {problem}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
