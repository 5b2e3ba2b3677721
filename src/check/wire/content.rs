//! Built-in checks of what results and notifications carry: their per-version schemas, tool
//! input and output schemas, resource URIs, base64 payloads, tool names and structured content.

use std::collections::HashMap;

use serde_json::Value;

use super::shapes::{
    content_blocks, elicitation_schema_problems, is_base64, meta_key_problem, meta_keys,
    result_base64, result_uris, same_json, uri_problem,
};
use super::{
    declared_capabilities, is_terminal, messages, results, resumed, Answered, Builtin, Idle, Tally,
    WireInput,
};
use crate::record::transcript::cut;
use crate::record::{Direction, Evidence, Level, Verdict};

pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "tasks-status-transitions",
        since: "2026.11.4",
        area: "tasks",
        title: "a task's status moves only along the allowed paths",
        level: Level::Must,
        derived: false,
        spec: &[
            ("2025-11-25", "basic/utilities/tasks#task-status-lifecycle"),
            ("2026-07-28", "extensions/tasks#task-status"),
        ],
        expect: "once completed, failed or cancelled, a task to stay so (and on 2025-11-25 to begin in working), across every CreateTaskResult, tasks/get, tasks/cancel and tasks/list result of the run",
        transports: &[],
        explain: "From working or input_required a task may move anywhere, but completed, failed and cancelled are terminal and never change. On 2025-11-25 every task begins in working; the 2026-07-28 tasks extension lets a task handle's seed state be another. mcpcheck follows every task the run saw, in the order the results arrived on its connection, and judges each change of status.",
        idle: Some(Idle::Nothing("no task was created or reported during the run")),
        judge: tasks_status_transitions,
    },
    Builtin {
        id: "wire-notification-schema",
        since: "2026.11.2",
        area: "jsonrpc",
        title: "every notification the server sends has its method's shape",
        level: Level::Must,
        derived: true,
        spec: &[("2025-11-25", "schema"), ("2026-07-28", "schema")],
        expect: "each notifications/message, progress, cancelled, resources/updated and list_changed notification to validate against its type at the negotiated version",
        transports: &[],
        explain: "The schema defines the params of every notification: a log message needs a level from the RFC 5424 list and data, progress a string or integer token and a number, resources/updated a uri. mcpcheck validates every notification of a method it knows, on every connection, against its own per-version description (and the official schema files with --official-schemas). Notifications of other methods are not judged here.",
        idle: Some(Idle::Nothing("the server sent no notification of a method mcpcheck knows")),
        judge: wire_notification_schema,
    },
    Builtin {
        id: "wire-uri-rfc3986",
        since: "2026.11.2",
        area: "resources",
        title: "every resource URI the server sends is an RFC 3986 URI",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "server/resources#resource"), ("rfc3986", "section-3")],
        expect: "each uri in resources/list and resources/read results and in resource and resource_link content blocks to be scheme \":\" followed only by characters a URI may hold, with well-formed percent-escapes",
        transports: &[],
        explain: "Resources are identified by URIs per RFC 3986, custom schemes included. A space, a non-ASCII character, a malformed percent-escape or a missing scheme makes a string that clients cannot parse or compare reliably. Every URI of every such result of the run is examined.",
        idle: Some(Idle::Nothing("no resource URI crossed the wire during the run")),
        judge: wire_uri_rfc3986,
    },
    Builtin {
        id: "wire-base64",
        since: "2026.11.2",
        area: "resources",
        title: "every blob and every image or audio payload is valid base64",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "server/resources#binary-content"), ("2025-11-25", "server/tools#image-content"), ("rfc4648", "section-4")],
        expect: "each resource blob and each image or audio block's data to be padded base64 in the standard alphabet (RFC 4648 §4)",
        transports: &[],
        explain: "Binary data MUST be properly encoded: the schema gives these members format `byte`, base64 as RFC 4648 §4 defines it — the standard alphabet (not the URL-safe one), padded with `=` to a multiple of four characters. Every blob and image or audio payload of the run's resources/read, tools/call and prompts/get results is examined.",
        idle: Some(Idle::Nothing("no blob, image or audio payload crossed the wire during the run")),
        judge: wire_base64,
    },
    Builtin {
        id: "tools-name-unique",
        since: "2026.11.2",
        area: "tools",
        title: "no tool name is listed twice, across all pages of a listing",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "server/tools#tool-names")],
        expect: "every tool name to appear once across the pages of each tools/list listing",
        transports: &[],
        explain: "Tool names SHOULD be unique within a server, since clients call tools by name; a duplicate makes one of them unreachable. The pages of one listing (a tools/list without a cursor, then the ones that follow its nextCursor) are taken together.",
        idle: Some(Idle::Nothing("no tools/list result of the run listed a tool")),
        judge: tools_name_unique,
    },
    Builtin {
        id: "tools-structured-content-mirrored",
        since: "2026.11.2",
        area: "tools",
        title: "structuredContent is mirrored as JSON in a text block",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "server/tools#structured-content")],
        expect: "every tools/call result with structuredContent to carry a text content block whose text parses to the same JSON",
        transports: &[],
        explain: "For backwards compatibility, a tool that returns structured content SHOULD also return its serialized JSON in a TextContent block, so that clients that do not read structuredContent still get the data. Every tool result of the run with structuredContent is examined.",
        idle: Some(Idle::Nothing("no tool result carried structuredContent")),
        judge: tools_structured_content_mirrored,
    },
    Builtin {
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
    },
    Builtin {
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
    },
    Builtin {
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
    },
    Builtin {
        id: "tools-embedded-resource-declared",
        since: "2026.11.3",
        area: "tools",
        title: "a server that returns embedded resources declares resources",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "server/tools#embedded-resources")],
        expect: "a server whose tool results hold `resource` content blocks (from 2025-06-18) to declare the `resources` capability",
        transports: &[],
        explain: "Servers that use embedded resources SHOULD implement the resources capability, so that a client can read the resource again by its URI. Every tools/call result of the run is examined; each embedded resource counts once.",
        idle: Some(Idle::Nothing("no tool result of the run held an embedded resource")),
        judge: tools_embedded_resource_declared,
    },
    Builtin {
        id: "server-elicitation-schema",
        since: "2026.11.3",
        area: "elicitation",
        title: "every form elicitation asks with a flat schema of primitive fields",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "client/elicitation#requested-schema"), ("2025-11-25", "schema#elicitrequestformparams")],
        expect: "each form-mode elicitation/create to carry a requestedSchema of type object whose properties are strings (optionally with format, enum or titled oneOf), numbers, integers, booleans or (2025-11-25) multi-select arrays of such options, with defaults of the field's own type and among its options",
        transports: &[],
        explain: "A form elicitation's requestedSchema is a restricted subset of JSON Schema: a flat object whose properties are primitive fields, so that any client can render it as a form. 2025-11-25 adds titled single-select enums (oneOf of const and title), multi-select arrays (items with enum or anyOf) and defaults on every field type (SEP-1034, SEP-1330); a default must be of the field's type and, for an enum, one of its options. Every elicitation/create the server sent is examined; mcpcheck only receives them on connections that declare elicitation (the official fixtures').",
        idle: Some(Idle::Nothing("the server asked for no form elicitation")),
        judge: server_elicitation_schema,
    },
];

/// Judges `tasks-status-transitions`: a task's status moves only along the allowed paths.
fn tasks_status_transitions(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let mut last: HashMap<String, String> = HashMap::new();
        for Answered {
            method,
            message,
            frame,
            ..
        } in results(transcript)
        {
            let result = &message["result"];
            let reported: Vec<&Value> = match method.as_str() {
                messages::TASK_AUGMENTED => vec![&result["task"]],
                // 2026-07-28 (tasks extension): a flat handle; its cancel is a bare ack.
                messages::TASK_HANDLE | "tasks/get" | "tasks/cancel" => vec![result],
                "tasks/list" => result["tasks"]
                    .as_array()
                    .map(|t| t.iter().collect())
                    .unwrap_or_default(),
                _ => continue,
            };
            for task in reported {
                let (Some(id), Some(status)) = (
                    task.get("taskId").and_then(Value::as_str),
                    task.get("status").and_then(Value::as_str),
                ) else {
                    continue;
                };
                found.seen += 1;
                let problem = match last.get(id) {
                    None if method == messages::TASK_AUGMENTED && status != "working" => {
                        Some(format!("task `{id}` began as {status}, not working"))
                    }
                    Some(before) if before != status && is_terminal(before) => Some(format!(
                        "task `{id}` was {before}, a terminal status, and then {status}"
                    )),
                    _ => None,
                };
                if let Some(problem) = problem {
                    found.bad.push(Evidence::frame(&frame.text, &problem));
                }
                last.insert(id.to_string(), status.to_string());
            }
        }
    }
    found.judge(def)
}

/// Judges `server-elicitation-schema`: every form elicitation asks with a flat schema of primitive fields.
fn server_elicitation_schema(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let version = transcript.version.as_deref().unwrap_or("2025-11-25");
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received && !resumed(transcript, f))
        {
            let Some(message) = frame.message.as_ref().filter(|m| {
                m.get("id").is_some()
                    && m.get("method") == Some(&Value::from("elicitation/create"))
                    && m.pointer("/params/mode").is_none_or(|mode| mode == "form")
            }) else {
                continue;
            };
            found.seen += 1;
            let problems =
                elicitation_schema_problems(&message["params"]["requestedSchema"], version);
            if let Some(problem) = problems.first() {
                found.bad.push(Evidence::frame(&frame.text, problem));
            }
        }
    }
    found.judge(def)
}

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
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received && !resumed(transcript, f))
        {
            let Some(message) = frame.message.as_ref() else {
                continue;
            };
            let mut keys = Vec::new();
            meta_keys(message, "", &mut keys);
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

/// Judges `tools-embedded-resource-declared`: a server that returns embedded resources declares resources.
fn tools_embedded_resource_declared(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    let anywhere = input.transcripts.iter().find_map(declared_capabilities);
    for transcript in input.transcripts {
        if transcript
            .version
            .as_deref()
            .is_none_or(|v| !crate::record::version::at_least(v, "2025-06-18"))
        {
            continue;
        }
        let declared = declared_capabilities(transcript).or(anywhere.clone());
        for answered in results(transcript)
            .into_iter()
            .filter(|a| a.method == "tools/call")
        {
            for block in content_blocks("tools/call", &answered.message["result"]) {
                if block.get("type").and_then(Value::as_str) != Some("resource") {
                    continue;
                }
                found.seen += 1;
                let resources = declared
                    .as_ref()
                    .and_then(|d| d.get("resources"))
                    .is_some_and(|r| !r.is_null());
                if !resources {
                    found.bad.push(Evidence::frame(
                        &answered.frame.text,
                        "an embedded resource in a tool result, although the server does not declare `resources`",
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `wire-notification-schema`: every notification the server sends has its method's shape.
fn wire_notification_schema(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let Some(version) = transcript.version.as_deref() else {
            continue;
        };
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received)
        {
            let Some(message) = frame.message.as_ref().filter(|m| {
                m.get("id").is_none()
                    && m.get("method")
                        .and_then(Value::as_str)
                        .is_some_and(|method| {
                            messages::NOTIFICATIONS.iter().any(|(n, _)| *n == method)
                        })
            }) else {
                continue;
            };
            found.seen += 1;
            let method = message["method"].as_str().unwrap_or_default();
            if let Some(problem) = messages::check_notification(version, message) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("not a {method} notification of {version}: {problem}"),
                ));
            } else if let Some(problem) = input
                .official
                .and_then(|o| o.check_notification(version, message))
            {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("the official {version} schema rejects this {method} notification: {problem}"),
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `wire-uri-rfc3986`: every resource URI the server sends is an RFC 3986 URI.
fn wire_uri_rfc3986(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in results(transcript) {
            for (place, uri) in result_uris(&answered.method, &answered.message["result"]) {
                found.seen += 1;
                if let Some(problem) = uri_problem(uri) {
                    found.bad.push(Evidence::remark(
                        &answered.method,
                        format!("{place}: {uri:?} is not an RFC 3986 URI: {problem}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `wire-base64`: every blob and every image or audio payload is valid base64.
fn wire_base64(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in results(transcript) {
            for (place, data) in result_base64(&answered.method, &answered.message["result"]) {
                found.seen += 1;
                if !is_base64(data) {
                    found.bad.push(Evidence::remark(
                        &answered.method,
                        format!(
                            "{place} is not padded standard base64 (RFC 4648): {:?}",
                            cut(data, 60)
                        ),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `tools-name-unique`: no tool name is listed twice, across all pages of a listing.
fn tools_name_unique(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        // A tools/list without a cursor starts a listing; one with the nextCursor of the
        // listing's last page continues it. Any other cursor (mcpcheck's invalid-cursor
        // probe) is not part of a listing.
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut page = 0;
        let mut next: Option<Value> = None;
        for answered in results(transcript)
            .into_iter()
            .filter(|a| a.method == "tools/list")
        {
            match answered.request.pointer("/params/cursor") {
                None => {
                    names.clear();
                    page = 0;
                }
                Some(cursor) if Some(cursor) == next.as_ref() => {}
                Some(_) => continue,
            }
            next = answered.message.pointer("/result/nextCursor").cloned();
            page += 1;
            for name in answered
                .message
                .pointer("/result/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
            {
                // What it examined is the names (a listing of no tools holds nothing).
                found.seen += 1;
                if let Some(first) = names.insert(name.to_string(), page) {
                    found.bad.push(Evidence::remark(
                        "tools/list",
                        format!("the tool name `{name}` is listed twice (pages {first} and {page} of one listing)"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `tools-structured-content-mirrored`: structuredContent is mirrored as JSON in a text block.
fn tools_structured_content_mirrored(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in results(transcript)
            .into_iter()
            .filter(|a| a.method == "tools/call")
        {
            let result = &answered.message["result"];
            let Some(structured) = result.get("structuredContent") else {
                continue;
            };
            found.seen += 1;
            let mirrored = result
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type") == Some(&Value::from("text")))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .any(|text| {
                    serde_json::from_str::<Value>(text)
                        .is_ok_and(|parsed| same_json(&parsed, structured))
                });
            if !mirrored {
                found.bad.push(Evidence::frame(
                    &answered.frame.text,
                    "structuredContent has no text block carrying its JSON serialization",
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `tools-schemas-valid`: every listed tool's inputSchema and outputSchema is a valid JSON Schema.
fn tools_schemas_valid(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let Some(version) = transcript.version.as_deref() else {
            continue;
        };
        for Answered { message, .. } in results(transcript)
            .into_iter()
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
        } in results(transcript)
        {
            if message.get("error").is_some() || !messages::judged(&method, version) {
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
            } else if let Some(problem) = messages::check_result(&method, version, result) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!("not a {method} result of {version}: {problem}"),
                ));
            } else if let Some(problem) = input
                .official
                .and_then(|o| o.check_result(&method, version, result))
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
#[cfg(test)]
mod tests;
