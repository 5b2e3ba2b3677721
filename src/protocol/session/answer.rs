//! Answering the requests a server sends of its own (roots, sampling, elicitation, ping) with
//! what the connection declared.

use serde_json::{json, Value};

/// mcpcheck's answer to a request from the server, by what the connection `declared`: `ping`
/// always; `roots/list` (no roots), `sampling/createMessage` (a canned completion) and
/// `elicitation/create` (form mode: accepted, with a value for every field; URL mode: declined)
/// where declared; anything else gets -32601.
pub fn answer_server_request(request: &Value, declared: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let has = |capability: &str| declared.get(capability).is_some_and(|c| !c.is_null());
    let result = match request.get("method").and_then(Value::as_str) {
        Some("ping") => json!({}),
        Some("roots/list") if has("roots") => json!({"roots": []}),
        Some("sampling/createMessage") if has("sampling") => json!({
            "role": "assistant",
            "content": {"type": "text", "text": "mcpcheck: a canned completion, no model was asked"},
            "model": "mcpcheck-canned",
            "stopReason": "endTurn"
        }),
        Some("elicitation/create") if has("elicitation") => {
            let params = request.get("params").cloned().unwrap_or_default();
            if params.get("mode").and_then(Value::as_str) == Some("url") {
                json!({"action": "decline"})
            } else {
                json!({"action": "accept", "content": elicitation_content(&params["requestedSchema"])})
            }
        }
        _ => {
            return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
        }
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A value for every field of an elicitation form: its default where it has one, else the first
/// option of an enum, else something of its type.
pub(super) fn elicitation_content(schema: &Value) -> Value {
    let mut content = serde_json::Map::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Value::Object(content);
    };
    for (name, field) in properties {
        let kind = field.get("type").and_then(Value::as_str);
        let first_option = field
            .pointer("/enum/0")
            .or_else(|| field.pointer("/oneOf/0/const"))
            .or_else(|| field.pointer("/anyOf/0/const"))
            .cloned();
        let value = match (field.get("default"), kind) {
            (Some(default), _) => default.clone(),
            (None, Some("array")) => {
                let items = &field["items"];
                let option = items
                    .pointer("/enum/0")
                    .or_else(|| items.pointer("/anyOf/0/const"))
                    .cloned();
                Value::Array(option.into_iter().collect())
            }
            (None, _) if first_option.is_some() => first_option.unwrap_or_default(),
            (None, Some("boolean")) => json!(true),
            (None, Some("integer" | "number")) => field.get("minimum").cloned().unwrap_or(json!(1)),
            (None, _) => json!(match field.get("format").and_then(Value::as_str) {
                Some("email") => "mcpcheck@example.com",
                Some("uri") => "https://example.com/mcpcheck",
                Some("date") => "2026-01-01",
                Some("date-time") => "2026-01-01T00:00:00Z",
                _ => "mcpcheck",
            }),
        };
        content.insert(name.clone(), value);
    }
    Value::Object(content)
}
