//! `tools-schemas-valid`: every listed tool's inputSchema and outputSchema is a valid JSON Schema.

use crate::check::wire::{messages, Answered, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "tools-schemas-valid",
    since: "2026.11.1",
    area: "tools",
    title: "every listed tool's inputSchema and outputSchema is a valid JSON Schema",
    level: Level::Must,
    derived: true,
    spec: &[("2025-11-25", "server/tools#tool"), ("2025-11-25", "basic/index#json-schema-usage")],
    expect: "each inputSchema (and outputSchema) in every tools/list result to be a valid JSON Schema of its dialect ($schema, else 2020-12 from 2025-11-25 on and draft-07 before)",
    transports: &[],
    explain: "Clients validate arguments and structured results with these schemas; a schema that does not compile (an unknown type name, a malformed keyword) makes the tool unusable. mcpcheck compiles every schema of every tools/list result of the run, by the dialect its $schema names, else the version's default: JSON Schema 2020-12 from 2025-11-25 on, draft-07 before.",
    idle: Some(Idle::Nothing("no tools/list result of the run listed a tool")),
    judge: tools_schemas_valid,
};

/// Judges `tools-schemas-valid`: every listed tool's inputSchema and outputSchema is a valid JSON Schema.
fn tools_schemas_valid(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let Some(version) = transcript.version.as_deref() else {
            continue;
        };
        for Answered { message, .. } in input
            .results(transcript)
            .iter()
            .filter(|a| a.method == "tools/list")
        {
            let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array) else {
                continue;
            };
            for tool in tools {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                for member in ["inputSchema", "outputSchema"] {
                    let Some(schema) = tool.get(member) else {
                        continue;
                    };
                    found.seen += 1;
                    if let Err(problem) = messages::compile_tool_schema(schema, version) {
                        found.bad.push(Evidence::remark(
                            "tools/list",
                            format!(
                                "the {member} of `{name}` is not a valid JSON Schema: {problem}"
                            ),
                        ));
                    }
                }
            }
        }
    }
    found.judge(def)
}
