//! `jsonrpc-error-shape`: every error has an integer code and a string message.

use crate::check::wire::{is_response, received, Builtin, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "jsonrpc-error-shape",
    since: "2026.11",
    area: "jsonrpc",
    title: "every error has an integer code and a string message",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/index#responses"), ("jsonrpc-2.0", "error_object")],
    expect: "each `error` to be an object with an integer `code` and a string `message`",
    transports: &[],
    explain: "Error responses MUST include an error code (an integer) and an error message; `data` is optional.",
    idle: None,
    judge: jsonrpc_error_shape,
};

/// Judges `jsonrpc-error-shape`: every error has an integer code and a string message.
fn jsonrpc_error_shape(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for (message, frame) in received(input).filter(|(m, _)| is_response(m)) {
        let Some(error) = message.get("error") else {
            continue;
        };
        found.seen += 1;
        let code_ok = error.get("code").is_some_and(|c| c.is_i64());
        let message_ok = error.get("message").is_some_and(Value::is_string);
        if !(code_ok && message_ok) {
            let what = match (code_ok, message_ok) {
                (false, false) => "no integer `code` and no string `message`",
                (false, true) => "no integer `code`",
                _ => "no string `message`",
            };
            found.bad.push(Evidence::frame(&frame.text, what));
        }
    }
    found.judge(def)
}
