//! `stateless-x-mcp-header-valid`: 2026-07-28: x-mcp-header annotations in tool schemas are well-formed.

use super::x_mcp_header_problems;
use crate::check::wire::{transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stateless-x-mcp-header-valid",
    since: "2026.11.2",
    area: "stateless",
    title: "2026-07-28: x-mcp-header annotations in tool schemas are well-formed",
    level: Level::Must,
    derived: false,
    spec: &[("2026-07-28", "server/tools#tool"), ("2026-07-28", "basic/transports/streamable-http")],
    expect: "each x-mcp-header a non-empty HTTP token, unique without regard to case, on an integer, string or boolean property reached through `properties` only",
    transports: &[],
    explain: "A tool may ask clients to mirror an argument into an Mcp-Param-<Name> header with x-mcp-header. The name must be an RFC 9110 token, unique per tool without regard to case, only on integer, string or boolean properties, and reachable through a chain of `properties` (not items, anyOf, $ref …); clients drop a tool that breaks these rules. Every inputSchema of every 2026-07-28 tools/list result is examined.",
    idle: Some(Idle::Stateless("tools/list results (with x-mcp-header, for the latter)")),
    judge: stateless_x_mcp_header_valid,
};

/// Judges `stateless-x-mcp-header-valid`: 2026-07-28: x-mcp-header annotations in tool schemas are well-formed.
fn stateless_x_mcp_header_valid(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        for answered in input
            .results(transcript)
            .iter()
            .filter(|a| a.method == "tools/list")
        {
            for tool in answered
                .message
                .pointer("/result/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                let Some(schema) = tool.get("inputSchema") else {
                    continue;
                };
                let problems = x_mcp_header_problems(schema);
                found.seen += usize::from(schema.to_string().contains("\"x-mcp-header\""));
                for problem in problems {
                    found.bad.push(Evidence::remark(
                        "tools/list",
                        format!("tool `{name}`: {problem}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}
