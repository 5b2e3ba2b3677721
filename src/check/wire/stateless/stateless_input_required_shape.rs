//! `stateless-input-required-shape`: 2026-07-28: an InputRequiredResult asks only for what it may.

use super::input_required_problems;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-input-required-shape",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: an InputRequiredResult asks only for what it may",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "basic/patterns/mrtr"), ("2026-07-28", "server/utilities/caching")],
    expect: "every InputRequiredResult to answer tools/call, prompts/get or resources/read, to carry inputRequests or requestState, to ask only for elicitation/create, sampling/createMessage or roots/list of capabilities the request declared, and to carry no caching hints",
    transports: &[],
    explain: "With MRTR a server asks the client for input by returning resultType \"input_required\". Only tools/call, prompts/get and resources/read may do so; the result carries inputRequests and/or requestState; each input request is an elicitation, sampling or roots request, and only for a capability the request's clientCapabilities declared (MUST NOT otherwise); and such a result is not cacheable. Every InputRequiredResult of the run is examined, among them the answer to a read of the fixture resource mcpcheck://roots that declares no capability after reads that declared roots: a server that remembers a capability from an earlier request asks for roots there.",
    idle: Some(Idle::Nothing("the server answered no request with an InputRequiredResult")),
    judge: stateless_input_required_shape,
};

/// Judges `stateless-input-required-shape`: 2026-07-28: an InputRequiredResult asks only for what it may.
fn stateless_input_required_shape(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in input.results(transcript).iter().filter(|a| {
            a.message.pointer("/result/resultType") == Some(&Value::from("input_required"))
        }) {
            found.seen += 1;
            let declared = answered
                .request
                .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
                .cloned()
                .unwrap_or(Value::Null);
            for problem in
                input_required_problems(&answered.method, &answered.message["result"], &declared)
            {
                found
                    .bad
                    .push(Evidence::frame(&answered.frame.text, &problem));
            }
        }
    }
    found.judge(def)
}
