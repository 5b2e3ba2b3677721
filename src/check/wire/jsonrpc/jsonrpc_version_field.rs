//! `jsonrpc-version-field`: every message carries \"jsonrpc\": \"2.0\".

use crate::check::wire::{received, Builtin, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "jsonrpc-version-field",
    since: "2026.11",
    area: "jsonrpc",
    title: "every message carries \"jsonrpc\": \"2.0\"",
    level: Level::Must,
    derived: true,
    spec: &[("2025-11-25", "basic/index#messages"), ("jsonrpc-2.0", "request_object")],
    expect: "every message from the server to have the member \"jsonrpc\" with the value \"2.0\"",
    transports: &[],
    explain: "All MCP messages MUST follow JSON-RPC 2.0, whose envelope requires the `jsonrpc` member to be exactly \"2.0\". Every message received during the run is examined.",
    idle: None,
    judge: jsonrpc_version_field,
};

/// Judges `jsonrpc-version-field`: every message carries "jsonrpc": "2.0".
fn jsonrpc_version_field(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for (message, frame) in received(input) {
        found.seen += 1;
        if message.get("jsonrpc") != Some(&Value::from("2.0")) {
            found.bad.push(Evidence::frame(
                &frame.text,
                "`jsonrpc` is missing or not \"2.0\"",
            ));
        }
    }
    found.judge(def)
}
