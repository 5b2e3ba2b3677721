//! `wire-result-schema`: every result has the shape of its method's result type.

use crate::check::wire::{messages, Answered, Builtin, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "wire-result-schema",
    since: "2026.11.1",
    area: "jsonrpc",
    title: "every result has the shape of its method's result type",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "schema"), ("2026-07-28", "schema")],
    expect: "each result to validate against its method's result type at the negotiated version (InitializeResult, ListToolsResult, CallToolResult, ReadResourceResult, GetPromptResult, CompleteResult, DiscoverResult, …)",
    transports: &[],
    explain: "The schema defines a result type for every method; a response with a valid JSON-RPC envelope but the wrong result shape is still wrong. mcpcheck validates every result it receives, on every connection, against its own per-version description of that type (content types, required members, and from 2026-07-28 resultType and the caching hints ttlMs and cacheScope on list and read results).",
    idle: None,
    judge: wire_result_schema,
};

/// Judges `wire-result-schema`: every result has the shape of its method's result type.
fn wire_result_schema(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let Some(version) = transcript.version.as_deref() else {
            continue;
        };
        for Answered {
            method,
            request,
            message,
            frame,
        } in input.results(transcript)
        {
            if message.get("error").is_some() || !messages::judged(method, version) {
                continue;
            }
            let result = &message["result"];
            found.seen += 1;
            let asked = request["method"].as_str().unwrap_or_default();
            if method == messages::TASK_HANDLE && asked != "tools/call" {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("a task handle (resultType \"task\") answers {asked}; the tasks extension makes tasks of tools/call only"),
                ));
            } else if let Some(problem) = messages::check_result(method, version, result) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("not a {method} result of {version}: {problem}"),
                ));
            } else if let Some(problem) = input
                .official
                .and_then(|o| o.check_result(method, version, result))
            {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!(
                        "the official {version} schema rejects this {method} result: {problem}"
                    ),
                ));
            }
        }
    }
    found.judge(def)
}
