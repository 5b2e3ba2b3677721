//! `jsonrpc-response-id`: every response echoes its request's id, with the same JSON type.

use crate::check::wire::{tally, Builtin, WireInput, MAX_EVIDENCE};
use crate::record::{Evidence, Level, Status, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "jsonrpc-response-id",
    since: "2026.11",
    area: "jsonrpc",
    title: "every response echoes its request's id, with the same JSON type",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/index#responses")],
    expect: "each response's id to equal the id of the request it answers, with the same JSON type (a string stays a string)",
    transports: &[],
    explain: "Responses MUST include the same id as the request they correspond to. mcpcheck matches responses to requests by value, so a response whose id has the wrong type is still found and reported here rather than lost.",
    idle: None,
    judge: jsonrpc_response_id,
};

/// Judges `jsonrpc-response-id`: every response echoes its request's id, with the same JSON type.
/// An HTTP refusal's body whose id is not the request's is a warning, not a failure: what id such a
/// body carries neither MCP nor JSON-RPC states.
fn jsonrpc_response_id(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut bad: Vec<Evidence> = Vec::new();
    let mut refusals: Vec<Evidence> = Vec::new();
    let mut seen = 0usize;
    for (sent, got) in input.transcripts.iter().flat_map(|t| t.id_pairs.iter()) {
        seen += 1;
        if sent != got {
            bad.push(Evidence::remark(
                "id",
                if got.is_null() {
                    format!("request id {sent} was answered with id null, or with no id")
                } else {
                    format!("request id {sent} was answered with id {got}")
                },
            ));
        }
    }
    for (sent, got) in input
        .transcripts
        .iter()
        .flat_map(|t| t.refusal_id_pairs.iter())
    {
        seen += 1;
        if sent != got {
            refusals.push(Evidence::remark(
                "id",
                if got.is_null() {
                    format!(
                        "request id {sent} was refused at the HTTP level with an error about the request it read, but without its id"
                    )
                } else {
                    format!(
                        "request id {sent} was refused at the HTTP level with a body whose id is {got}"
                    )
                },
            ));
        }
    }
    if bad.is_empty() && !refusals.is_empty() {
        let count = refusals.len();
        refusals.truncate(MAX_EVIDENCE);
        let mut verdict = Verdict::new(
            Status::Warn,
            format!("{count} HTTP refusal(s) carry a JSON-RPC body whose id is not the request's"),
        );
        verdict.note = Some(
            "the id of an HTTP-level error body is stated by neither MCP nor JSON-RPC 2.0 (derived), so it is a warning; null or no id is what a refusal made before the request was read carries, not one whose error is about the body it read (-32602, -32002, -32020, -32021)".into(),
        );
        return (verdict, refusals);
    }
    bad.extend(refusals);
    tally(def, bad, seen, None)
}
