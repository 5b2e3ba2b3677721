//! The things the reference server serves: tools, resources, a template, prompts, completions.
//!
//! Every tool here is harmless and named `mcpcheck_*`, the prefix mcpcheck's fixture scenarios
//! look for. What a tool returns depends only on its arguments and the negotiated version.

use serde_json::{json, Value};

/// The related-task `_meta` key (2025-11-25 tasks).
pub const RELATED: &str = "io.modelcontextprotocol/related-task";

/// A folder's mimeType in a skills directory read.
pub const DIRECTORY: &str = "inode/directory";

/// How many items a page of a list holds (`--page-size`; 2 by default, so that pagination is
/// exercised).
pub static PAGE_SIZE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(2);

/// The page size in force.
pub fn page_size() -> usize {
    PAGE_SIZE.load(std::sync::atomic::Ordering::Relaxed)
}

/// The official suite's other 2026-07-28 fixture tools that ask for input (SEP-2322, served by mrtr.rs), by name,
/// with what each asks for: the elicitation, sampling and roots fixtures, the one that carries a
/// signed state, the one that asks for all three at once, the one whose state the suite tampers
/// with, the one that asks only for what the request declared, and the streaming elicitation
/// (which must answer on its own stream with no request of its own).
pub const INPUT_TOOLS: &[(&str, &str)] = &[
    (
        "test_input_required_result_elicitation",
        "Asks for the user's name (user_name), then greets them.",
    ),
    (
        "test_input_required_result_sampling",
        "Asks the client to sample an answer (capital_question), then says it.",
    ),
    (
        "test_input_required_result_list_roots",
        "Asks for the client's roots (client_roots), then counts them.",
    ),
    (
        "test_input_required_result_request_state",
        "Asks for a confirmation with a signed requestState, then says state-ok.",
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Asks for a name, a sampled greeting and the roots at once.",
    ),
    (
        "test_input_required_result_tampered_state",
        "Asks for a confirmation with a signed requestState, refused if altered.",
    ),
    (
        "test_input_required_result_capabilities",
        "Asks only for what the request's client capabilities allow.",
    ),
    (
        "test_streaming_elicitation",
        "Asks for the user's name with an InputRequiredResult, never a request of its own.",
    ),
];

/// The official suite's tasks-extension fixture tools (2026-07-28; served by tasks.rs), listed
/// only where the extension is served.
pub const TASK_TOOLS: &[&str] = &[
    "greet",
    "slow_compute",
    "failing_job",
    "protocol_error_job",
    "confirm_delete",
    "multi_input",
    "test_tool_with_task",
];

/// mcpcheck's fixture tool that asks for the client's roots (2026-07-28, multi-round).
pub const ROOTS_TOOL: &str = "mcpcheck_list_roots";

/// The official suite's multi-round fixture tool (2026-07-28).
pub const MULTI_ROUND_TOOL: &str = "test_input_required_result_multi_round";

/// The official suite's fixture prompt that asks for input (2026-07-28).
pub const INPUT_PROMPT: &str = "test_input_required_result_prompt";

/// A 1×1 transparent PNG, base64-encoded.
pub const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// Whether `version` is at least `since` (dates compare as strings).
pub fn at_least(version: &str, since: &str) -> bool {
    version >= since
}

/// The one version whose core has tasks (experimental; an extension from 2026-07-28 on).
pub const TASKS_VERSION: &str = "2025-11-25";

/// A fixture tool's `execution.taskSupport`, if it declares one.
pub fn task_support(name: &str) -> Option<&'static str> {
    match name {
        "mcpcheck_task" => Some("optional"),
        "mcpcheck_task_required" => Some("required"),
        _ => None,
    }
}

/// The schema of the fixture task's `workMs` argument: how long the task works.
fn work_ms() -> Value {
    json!({"type": "integer", "minimum": 0, "maximum": 10000})
}

/// The icon of the first tool (2025-11-25 on): a 1×1 PNG as a `data:` URI.
const ICON: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// The tool definitions as seen at `version`.
///
/// Long by design: data: the fixture tools' definitions.
pub fn tools(version: &str) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "mcpcheck_echo",
            "description": "Returns the text it is given.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        }),
        json!({
            "name": "mcpcheck_empty",
            "description": "Succeeds and returns no content.",
            "inputSchema": {"type": "object", "properties": {}}
        }),
        json!({
            "name": "mcpcheck_error",
            "description": "Always fails while executing, reported as a tool error.",
            "inputSchema": {"type": "object", "properties": {}}
        }),
        json!({
            "name": "mcpcheck_structured",
            "description": "Adds two numbers and returns the sum as structured content.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            }
        }),
        json!({
            "name": "mcpcheck_slow",
            "description": "Waits a little, reporting progress when asked to.",
            "inputSchema": {
                "type": "object",
                "properties": {"steps": {"type": "integer", "minimum": 1, "maximum": 20}, "delayMs": {"type": "integer", "minimum": 0, "maximum": 1000}}
            }
        }),
    ];
    if at_least(version, "2025-06-18") {
        tools[3]["outputSchema"] = json!({
            "type": "object",
            "properties": {"sum": {"type": "number"}},
            "required": ["sum"]
        });
    }
    if at_least(version, "2025-11-25") {
        // An icon, as a data: URI (a 1×1 PNG).
        tools[0]["icons"] = json!([{"src": ICON, "mimeType": "image/png", "sizes": ["1x1"]}]);
    }
    if version == TASKS_VERSION {
        // Tasks: one tool that may run as a task, one that must.
        for (name, description) in [
            (
                "mcpcheck_task",
                "Does a little work; may run as a task, reporting progress when asked to.",
            ),
            (
                "mcpcheck_task_required",
                "Does a little work; runs only as a task.",
            ),
        ] {
            tools.push(json!({
                "name": name,
                "description": description,
                "inputSchema": {"type": "object", "properties": {"workMs": work_ms()}},
                "execution": {"taskSupport": task_support(name)}
            }));
        }
    }
    if at_least(version, "2026-07-28") {
        // The tasks extension: a task for a request that declares it; the outcome is chosen.
        let outcome = json!({
            "type": "object",
            "properties": {
                "outcome": {"enum": ["done", "tool-error", "protocol-error", "input"]},
                "workMs": work_ms()
            }
        });
        tools.push(json!({
            "name": "mcpcheck_task",
            "description": "Does a little work: as a task for a client that declares the tasks extension, at once otherwise. outcome: done (default), tool-error (isError), protocol-error (a JSON-RPC error) or input (as a task, it first asks for the client's roots under the key `roots`); workMs: how long the task works (1000 by default).",
            "inputSchema": outcome
        }));
        tools.push(json!({
            "name": "mcpcheck_task_required",
            "description": "Does a little work, only as a task: a client must declare the tasks extension.",
            "inputSchema": outcome
        }));
    }
    tools.extend(everything_tools());
    // The official fixtures that ask the client for something: a server request, which the
    // handshake era has (2026-07-28 asks with an InputRequiredResult instead).
    if at_least(version, "2025-06-18") && !at_least(version, "2026-07-28") {
        let no_args = json!({"type": "object", "properties": {}});
        let mut asking = vec![
            ("test_sampling", "Asks the client to sample a reply."),
            ("test_elicitation", "Asks the user who they are."),
        ];
        if at_least(version, "2025-11-25") {
            asking.push((
                "test_elicitation_sep1034_defaults",
                "Asks for values that all have defaults.",
            ));
            asking.push((
                "test_elicitation_sep1330_enums",
                "Asks to choose, with every kind of enum.",
            ));
        }
        tools.extend(asking.into_iter().map(|(name, description)| {
            json!({"name": name, "description": description, "inputSchema": no_args})
        }));
        tools.push(json!({"name": "test_tool_with_logging", "description": "Logs three messages at info while it runs.", "inputSchema": no_args}));
    }
    if at_least(version, "2025-11-25") {
        // The official suite's JSON Schema 2020-12 fixture: every keyword must survive the
        // listing as written (SEP-1613, SEP-2106). It is never called.
        tools.push(json!({
            "name": "json_schema_2020_12_tool",
            "description": "Takes a contact whose schema uses $defs, $anchor, allOf/anyOf and if/then/else.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }
        }));
    }
    if at_least(version, "2026-07-28") {
        // An argument that travels in a header too (x-mcp-header → Mcp-Param-Region).
        tools.push(json!({
            "name": "mcpcheck_region",
            "description": "Says which region it was asked about.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "zone": {"type": "integer", "x-mcp-header": "Zone"}
                },
                "required": ["region"]
            }
        }));
        // Asks the client for its roots through an InputRequiredResult (MRTR).
        tools.push(json!({
            "name": "mcpcheck_list_roots",
            "description": "Asks the client for its roots and says how many there are.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }));
        // The official suite's MRTR fixture that asks in two rounds (mrtr.rs).
        tools.push(json!({
            "name": "test_input_required_result_multi_round",
            "description": "Asks for a name, then for a colour, then greets.",
            "inputSchema": {"type": "object", "properties": {}}
        }));
        // The official suite's stateless fixture: a tool that needs the client to sample,
        // which a request without that capability cannot have (-32021).
        tools.push(json!({
            "name": "test_missing_capability",
            "description": "Needs the sampling client capability.",
            "inputSchema": {"type": "object", "properties": {}}
        }));
        // The official suite's stateless fixtures that announce a list change to the
        // subscriptions listening for it (the lists themselves stay as they are).
        tools.push(json!({
            "name": "test_trigger_tool_change",
            "description": "Announces a change of the tool list to its listeners.",
            "inputSchema": {"type": "object", "properties": {}}
        }));
        tools.push(json!({
            "name": "test_trigger_prompt_change",
            "description": "Announces a change of the prompt list to its listeners.",
            "inputSchema": {"type": "object", "properties": {}}
        }));
        // The official suite's other fixtures that ask for input (mrtr.rs), and its logging
        // fixture, which logs only at a level the request asks for.
        for (name, description) in INPUT_TOOLS {
            tools.push(json!({"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}}));
        }
        // The official suite's tasks-extension fixtures (tasks.rs), in the order of TASK_TOOLS.
        let none = json!({"type": "object", "properties": {}});
        for (name, description, schema) in [
            (
                "greet",
                "Greets by name, at once (never as a task).",
                json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            ),
            (
                "slow_compute",
                "Works `seconds`, as a task for a client that declares the tasks extension.",
                json!({"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 60}, "label": {"type": "string"}}}),
            ),
            (
                "failing_job",
                "Runs only as a task, which completes with a tool error.",
                none.clone(),
            ),
            (
                "protocol_error_job",
                "A task that fails with a JSON-RPC error.",
                none.clone(),
            ),
            (
                "confirm_delete",
                "A task that asks for a confirmation first.",
                json!({"type": "object", "properties": {"filename": {"type": "string"}}}),
            ),
            (
                "multi_input",
                "A task that asks for two inputs first.",
                none.clone(),
            ),
            (
                "test_tool_with_task",
                "Asks for a name, then greets from a task.",
                none.clone(),
            ),
        ] {
            tools.push(json!({"name": name, "description": description, "inputSchema": schema}));
        }
        tools.push(json!({"name": "test_logging_tool", "description": "Logs at the level the request asks for, and not without one.", "inputSchema": {"type": "object", "properties": {}}}));
    }
    if at_least(version, "2025-03-26") {
        for tool in &mut tools {
            tool["annotations"] = json!({"readOnlyHint": true, "openWorldHint": false});
        }
    }
    if at_least(version, "2025-06-18") {
        // Metadata under a prefix of the project's own (2025-06-18 gave `_meta` keys a grammar).
        for tool in &mut tools {
            tool["_meta"] = json!({"io.github.mcpcheck/fixture": true});
        }
    }
    tools
}

/// The official conformance suite's fixture tools (its "everything server" names), so that
/// `mcpcheck --fixtures everything` and the official suite itself can be run against this server.
fn everything_tools() -> Vec<Value> {
    let no_args = json!({"type": "object", "properties": {}});
    [
        ("test_simple_text", "Returns a simple text."),
        ("test_image_content", "Returns an image."),
        ("test_audio_content", "Returns a sound."),
        ("test_embedded_resource", "Returns an embedded resource."),
        ("test_multiple_content_types", "Returns text, an image and a resource."),
        ("test_error_handling", "Always fails, as a tool error."),
        ("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100."),
        (
            "test_reconnection",
            "Over HTTP (2025-11-25), closes its stream mid-call; resume it for the result.",
        ),
    ]
    .into_iter()
    .map(|(name, description)| json!({"name": name, "description": description, "inputSchema": no_args}))
    .collect()
}

/// 10 ms of silence: a minimal WAV file (8 kHz, 8-bit mono, 80 samples), base64.
pub const SILENCE_WAV: &str = "UklGRnQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YVAAAACAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgA==";

fn everything_call(name: &str) -> Option<ToolOutcome> {
    let text = |t: &str| json!({"type": "text", "text": t});
    let image = json!({"type": "image", "data": PIXEL_PNG, "mimeType": "image/png"});
    let resource = json!({"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "An embedded resource."
    }});
    Some(ToolOutcome::Result(match name {
        "test_simple_text" => {
            json!({"content": [text("This is a simple text response for testing.")]})
        }
        "test_image_content" => json!({"content": [image]}),
        "test_audio_content" => {
            json!({"content": [{"type": "audio", "data": SILENCE_WAV, "mimeType": "audio/wav"}]})
        }
        "test_embedded_resource" => json!({"content": [resource]}),
        "test_multiple_content_types" => {
            json!({"content": [text("Text, an image and a resource:"), image, resource]})
        }
        "test_error_handling" => json!({
            "content": [text("This tool always fails, on purpose.")],
            "isError": true
        }),
        "test_tool_with_progress" => {
            return Some(ToolOutcome::Progress {
                points: vec![0, 50, 100],
                total: 100,
            })
        }
        "test_reconnection" => return Some(ToolOutcome::Reconnection),
        "test_trigger_tool_change" => {
            return Some(ToolOutcome::ListChanged("notifications/tools/list_changed"))
        }
        "test_trigger_prompt_change" => {
            return Some(ToolOutcome::ListChanged(
                "notifications/prompts/list_changed",
            ))
        }
        "test_sampling" => return Some(ToolOutcome::Sampling),
        "test_elicitation" => {
            return Some(ToolOutcome::Elicitation {
                message: "Please tell us who you are.".into(),
                schema: json!({"type": "object", "properties": {
                    "username": {"type": "string", "description": "Your name"},
                    "email": {"type": "string", "format": "email", "description": "Your email"}
                }, "required": ["username"]}),
            })
        }
        "test_elicitation_sep1034_defaults" => {
            return Some(ToolOutcome::Elicitation {
                message: "Confirm these values (each has a default).".into(),
                schema: json!({"type": "object", "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "default": true}
                }}),
            })
        }
        "test_elicitation_sep1330_enums" => {
            return Some(ToolOutcome::Elicitation {
                message: "Choose (every kind of enum).".into(),
                schema: json!({"type": "object", "properties": {
                    "untitledSingle": {"type": "string", "enum": ["a", "b", "c"]},
                    "titledSingle": {"type": "string", "oneOf": [{"const": "v1", "title": "First"}, {"const": "v2", "title": "Second"}]},
                    "legacyEnum": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"]},
                    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                    "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "p", "title": "Pea"}, {"const": "q", "title": "Queue"}]}}
                }}),
            })
        }
        "test_tool_with_logging" => {
            return Some(ToolOutcome::Logs(vec![
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]))
        }
        "test_logging_tool" => json!({"content": [text("Logged as the request asked.")]}),
        "json_schema_2020_12_tool" => json!({"content": [text("Contact received.")]}),
        _ => return None,
    }))
}

/// What a tool call produced.
pub enum ToolOutcome {
    /// A `CallToolResult`.
    Result(Value),
    /// No such tool.
    Unknown,
    /// The slow tool: report `steps` progress notifications `delay_ms` apart, then this result.
    Slow { steps: u64, delay_ms: u64 },
    /// The official suite's progress tool: report these progress values of `total`, then a result.
    Progress { points: Vec<u64>, total: u64 },
    /// The official suite's reconnection tool: a result after a while, long enough for the HTTP
    /// transport to have closed the call's stream (SEP-1699).
    Reconnection,
    /// The official list-change fixtures (2026-07-28): announce this notification to the
    /// subscriptions that asked for it.
    ListChanged(&'static str),
    /// The official logging tool (handshake era): log these lines at `info`, then a result.
    Logs(Vec<&'static str>),
    /// The official sampling tool: ask the client to sample, return what it said.
    Sampling,
    /// An official elicitation tool: ask the client to fill in this form.
    Elicitation { message: String, schema: Value },
}

/// 2026-07-28: what the tasks extension's fixture task comes to, by its `outcome` argument: a
/// result (`done`), a tool error (`tool-error`: `isError`) or a JSON-RPC error
/// (`protocol-error`).
pub fn ext_task_outcome(args: &Value) -> Result<Value, (i64, String, Option<Value>)> {
    let text = |t: &str| json!({"content": [{"type": "text", "text": t}]});
    match args.get("outcome").and_then(Value::as_str) {
        Some("tool-error") => {
            let mut result = text("The work failed.");
            result["isError"] = json!(true);
            Ok(result)
        }
        Some("protocol-error") => Err((-32603, "Internal error: the work broke down".into(), None)),
        _ => Ok(text("The work is done.")),
    }
}

/// How long the fixture task works, by its `workMs` argument (0 to 10,000 ms), when the call
/// says: a client that only waits for the task's end asks for a short one.
pub fn task_work(args: &Value) -> Option<std::time::Duration> {
    args.get("workMs")
        .and_then(Value::as_u64)
        .map(|ms| std::time::Duration::from_millis(ms.min(10_000)))
}

/// Runs a tool (all but the slow one, which needs the transport to report progress).
pub fn call_tool(name: &str, args: &Value, version: &str) -> ToolOutcome {
    let text = |t: &str| json!({"type": "text", "text": t});
    match name {
        "mcpcheck_echo" => match args.get("text").and_then(Value::as_str) {
            Some(t) => ToolOutcome::Result(json!({"content": [text(t)]})),
            None => ToolOutcome::Result(json!({
                "content": [text("invalid arguments: `text` must be a string")],
                "isError": true
            })),
        },
        "mcpcheck_empty" => ToolOutcome::Result(json!({"content": []})),
        "mcpcheck_task" | "mcpcheck_task_required" if version == TASKS_VERSION => {
            ToolOutcome::Result(json!({"content": [text("The work is done.")]}))
        }
        "mcpcheck_error" => ToolOutcome::Result(json!({
            "content": [text("the operation failed")],
            "isError": true
        })),
        "mcpcheck_structured" => {
            let (Some(a), Some(b)) = (
                args.get("a").and_then(Value::as_f64),
                args.get("b").and_then(Value::as_f64),
            ) else {
                return ToolOutcome::Result(json!({
                    "content": [text("invalid arguments: `a` and `b` must be numbers")],
                    "isError": true
                }));
            };
            let sum = json!({"sum": a + b});
            let mut result = json!({"content": [text(&sum.to_string())]});
            if at_least(version, "2025-06-18") {
                result["structuredContent"] = sum;
            }
            ToolOutcome::Result(result)
        }
        "mcpcheck_region" => match args.get("region").and_then(Value::as_str) {
            Some(region) => {
                ToolOutcome::Result(json!({"content": [text(&format!("region: {region}"))]}))
            }
            None => ToolOutcome::Result(json!({
                "content": [text("invalid arguments: `region` must be a string")],
                "isError": true
            })),
        },
        "mcpcheck_slow" => ToolOutcome::Slow {
            steps: args
                .get("steps")
                .and_then(Value::as_u64)
                .unwrap_or(3)
                .clamp(1, 20),
            delay_ms: args
                .get("delayMs")
                .and_then(Value::as_u64)
                .unwrap_or(20)
                .min(1000),
        },
        other => everything_call(other).unwrap_or(ToolOutcome::Unknown),
    }
}

/// The listed resources.
pub fn resources() -> Vec<Value> {
    vec![
        json!({"uri": "ref://docs/readme", "name": "readme", "mimeType": "text/plain", "description": "A short text."}),
        json!({"uri": "ref://images/pixel", "name": "pixel", "mimeType": "image/png", "description": "A 1x1 PNG."}),
        json!({"uri": "test://static-text", "name": "static-text", "mimeType": "text/plain", "description": "The official suite's text fixture."}),
        json!({"uri": "test://static-binary", "name": "static-binary", "mimeType": "image/png", "description": "The official suite's binary fixture."}),
    ]
}

/// The resource templates.
pub fn resource_templates() -> Vec<Value> {
    vec![
        json!({"uriTemplate": "ref://items/{id}", "name": "item", "mimeType": "text/plain", "description": "An item by id."}),
        json!({"uriTemplate": "test://template/{id}/data", "name": "template-data", "mimeType": "application/json", "description": "The official suite's template fixture."}),
    ]
}

/// Reads a resource; `None` when there is no such resource.
pub fn read_resource(uri: &str) -> Option<Value> {
    let contents = match uri {
        "ref://docs/readme" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "mcpcheck reference server\n"})
        }
        "ref://images/pixel" => json!({"uri": uri, "mimeType": "image/png", "blob": PIXEL_PNG}),
        "test://static-text" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."})
        }
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PIXEL_PNG}),
        _ if uri.starts_with("test://template/") => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")?;
            if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            json!({"uri": uri, "mimeType": "application/json", "text": json!({"id": id, "data": format!("data for {id}")}).to_string()})
        }
        _ => {
            let id = uri.strip_prefix("ref://items/")?;
            if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("item {id}")})
        }
    };
    Some(json!({"contents": [contents]}))
}

/// The prompts.
pub fn prompts() -> Vec<Value> {
    vec![
        json!({
            "name": "greeting",
            "description": "Asks for a greeting.",
            "arguments": [{"name": "name", "description": "Who to greet.", "required": true}]
        }),
        json!({"name": "plain", "description": "A prompt without arguments."}),
        json!({"name": "test_simple_prompt", "description": "The official suite's simple prompt."}),
        json!({
            "name": "test_prompt_with_arguments",
            "description": "The official suite's prompt with arguments.",
            "arguments": [
                {"name": "arg1", "description": "First argument.", "required": true},
                {"name": "arg2", "description": "Second argument.", "required": true}
            ]
        }),
        json!({
            "name": "test_prompt_with_embedded_resource",
            "description": "The official suite's prompt with an embedded resource.",
            "arguments": [{"name": "resourceUri", "description": "The resource to embed.", "required": true}]
        }),
        json!({"name": "test_prompt_with_image", "description": "The official suite's prompt with an image."}),
    ]
}

/// Why a prompt could not be produced.
pub enum PromptError {
    /// No such prompt.
    Unknown,
    /// A required argument is missing.
    MissingArgument(&'static str),
}

/// Produces a prompt.
pub fn get_prompt(name: &str, args: &Value) -> Result<Value, PromptError> {
    match name {
        "greeting" => {
            let who = args
                .get("name")
                .and_then(Value::as_str)
                .ok_or(PromptError::MissingArgument("name"))?;
            Ok(json!({
                "description": "A greeting",
                "messages": [{"role": "user", "content": {"type": "text", "text": format!("Say hello to {who}.")}}]
            }))
        }
        "plain" => Ok(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Tell me something."}}]
        })),
        "test_simple_prompt" => Ok(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]
        })),
        "test_prompt_with_arguments" => {
            let arg = |name: &'static str| {
                args.get(name)
                    .and_then(Value::as_str)
                    .ok_or(PromptError::MissingArgument(name))
            };
            let (arg1, arg2) = (arg("arg1")?, arg("arg2")?);
            Ok(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")}}]
            }))
        }
        "test_prompt_with_embedded_resource" => {
            let uri = args
                .get("resourceUri")
                .and_then(Value::as_str)
                .ok_or(PromptError::MissingArgument("resourceUri"))?;
            Ok(json!({
                "messages": [
                    {"role": "user", "content": {"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
                    {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
                ]
            }))
        }
        "test_prompt_with_image" => Ok(json!({
            "messages": [
                {"role": "user", "content": {"type": "image", "data": PIXEL_PNG, "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "text", "text": "Please describe the image above."}}
            ]
        })),
        _ => Err(PromptError::Unknown),
    }
}

/// Completion candidates for an argument of a prompt or template; `None` for an unknown reference.
pub fn complete(reference: &Value, argument: &str, prefix: &str) -> Option<Vec<String>> {
    let candidates: &[&str] = match (reference.get("type").and_then(Value::as_str), argument) {
        (Some("ref/prompt"), "name") if reference.get("name") == Some(&json!("greeting")) => {
            &["Ada", "Alan", "Grace", "Linus"]
        }
        (Some("ref/prompt"), _) if reference.get("name") == Some(&json!("greeting")) => &[],
        (Some("ref/resource"), "id")
            if reference.get("uri") == Some(&json!("ref://items/{id}")) =>
        {
            &["1", "2", "42"]
        }
        (Some("ref/resource"), _) if reference.get("uri") == Some(&json!("ref://items/{id}")) => {
            &[]
        }
        (Some("ref/prompt"), "arg1")
            if reference.get("name") == Some(&json!("test_prompt_with_arguments")) =>
        {
            &["paris", "park", "party"]
        }
        (Some("ref/prompt"), _)
            if reference.get("name") == Some(&json!("test_prompt_with_arguments")) =>
        {
            &[]
        }
        _ => return None,
    };
    let lower = prefix.to_lowercase();
    Some(
        candidates
            .iter()
            .filter(|c| c.to_lowercase().starts_with(&lower))
            .map(|c| c.to_string())
            .collect(),
    )
}
