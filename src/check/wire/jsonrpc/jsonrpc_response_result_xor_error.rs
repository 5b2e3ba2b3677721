//! `jsonrpc-response-result-xor-error`: every response carries exactly one of result and error.

use crate::check::wire::{is_response, received, Builtin, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "jsonrpc-response-result-xor-error",
    since: "2026.11",
    area: "jsonrpc",
    title: "every response carries exactly one of result and error",
    level: Level::Must,
    derived: true,
    spec: &[("2024-11-05", "basic/messages#responses"), ("jsonrpc-2.0", "response_object")],
    expect: "each response to have either `result` or `error`, never both and never neither",
    transports: &[],
    explain: "JSON-RPC 2.0: either the result member or the error member MUST be included, but both members MUST NOT be included.",
    idle: None,
    judge: jsonrpc_response_result_xor_error,
};

/// Judges `jsonrpc-response-result-xor-error`: every response carries exactly one of result and error.
fn jsonrpc_response_result_xor_error(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for (message, frame) in received(input).filter(|(m, _)| is_response(m)) {
        found.seen += 1;
        let (r, e) = (
            message.get("result").is_some(),
            message.get("error").is_some(),
        );
        if r == e {
            found.bad.push(Evidence::frame(
                &frame.text,
                if r {
                    "both `result` and `error`"
                } else {
                    "neither `result` nor `error`"
                },
            ));
        }
    }
    found.judge(def)
}
