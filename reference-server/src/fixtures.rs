//! The things the reference server serves: tools, resources, a template, prompts, completions.
//!
//! Every tool here is harmless and named `mcpcheck_*`, the prefix mcpcheck's fixture scenarios
//! look for. What a tool returns depends only on its arguments and the negotiated version.

use serde_json::{json, Value};

/// Lists are split into pages of this many items, so that pagination is exercised.
pub const PAGE_SIZE: usize = 2;

/// A 1×1 transparent PNG, base64-encoded.
pub const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// Whether `version` is at least `since` (dates compare as strings).
pub fn at_least(version: &str, since: &str) -> bool {
    version >= since
}

/// The tool definitions as seen at `version`.
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
    if at_least(version, "2025-03-26") {
        for tool in &mut tools {
            tool["annotations"] = json!({"readOnlyHint": true, "openWorldHint": false});
        }
    }
    tools
}

/// What a tool call produced.
pub enum ToolOutcome {
    /// A `CallToolResult`.
    Result(Value),
    /// No such tool.
    Unknown,
    /// The slow tool: report `steps` progress notifications `delay_ms` apart, then this result.
    Slow { steps: u64, delay_ms: u64 },
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
        _ => ToolOutcome::Unknown,
    }
}

/// The listed resources.
pub fn resources() -> Vec<Value> {
    vec![
        json!({"uri": "ref://docs/readme", "name": "readme", "mimeType": "text/plain", "description": "A short text."}),
        json!({"uri": "ref://images/pixel", "name": "pixel", "mimeType": "image/png", "description": "A 1x1 PNG."}),
    ]
}

/// The resource templates.
pub fn resource_templates() -> Vec<Value> {
    vec![
        json!({"uriTemplate": "ref://items/{id}", "name": "item", "mimeType": "text/plain", "description": "An item by id."}),
    ]
}

/// Reads a resource; `None` when there is no such resource.
pub fn read_resource(uri: &str) -> Option<Value> {
    let contents = match uri {
        "ref://docs/readme" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "mcpcheck reference server\n"})
        }
        "ref://images/pixel" => json!({"uri": uri, "mimeType": "image/png", "blob": PIXEL_PNG}),
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
