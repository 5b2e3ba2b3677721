//! The 2026-07-28 fixtures that ask the client for input (MRTR, SEP-2322) instead of sending it
//! a request: mcpcheck's tool `mcpcheck_list_roots` and resource `mcpcheck://roots` (both ask
//! for the client's roots), and the official suite's tool
//! `test_input_required_result_multi_round` (two rounds of elicitation, then a result) and prompt
//! `test_input_required_result_prompt` (one elicitation).
//!
//! Each round's `requestState` is signed with a key of this process, so that a state the client
//! altered fails verification (-32602) instead of being acted on.

use serde_json::{json, Value};

use crate::outcome::Outcome;
use crate::quirks::{Quirk, Quirks, Waiver};
use crate::rounds::{answered, declares, sign, verify};

/// The URI of the resource that asks for the client's roots before it can be read.
pub const ROOTS_RESOURCE: &str = "mcpcheck://roots";

pub use crate::fixtures::{INPUT_PROMPT, MULTI_ROUND_TOOL};

/// The -32021 error for a request that needs a client capability it did not declare.
pub fn missing_capability(capability: &str) -> Outcome {
    Err((
        -32021,
        format!("Missing required client capability: {capability}"),
        Some(json!({"requiredCapabilities": {capability: {}}})),
    ))
}

fn tampered() -> Outcome {
    Err((
        -32602,
        "Invalid params: requestState failed verification".into(),
        None,
    ))
}

/// An elicitation request for one string field.
fn ask_text(message: &str, field: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {field: {"type": "string"}},
                "required": [field]
            }
        }
    })
}

fn invalid(why: String) -> Outcome {
    Err((-32602, format!("Invalid params: {why}"), None))
}

fn text(text: String) -> Value {
    json!({"type": "text", "text": text})
}

/// The fixture tool `mcpcheck_list_roots`: the first call asks the client for its roots (key
/// `roots`) with a signed `requestState`; the retry that carries the roots and the state back is
/// answered with their number. Unknown keys in inputResponses are ignored; a malformed roots
/// answer and a state that fails verification are refused (-32602).
pub fn list_roots(params: &Value, quirks: &Quirks) -> Outcome {
    if !declares(params, "roots") {
        return missing_capability("roots");
    }
    let responses = params.get("inputResponses");
    let state = params.get("requestState").and_then(Value::as_str);
    if let Some(roots) = responses.and_then(|r| r.get("roots")) {
        let well_formed = roots.get("roots").is_some_and(Value::is_array);
        if !well_formed && !quirks.waives(Waiver::InputResponses) {
            return invalid("inputResponses.roots is not a ListRootsResult".into());
        }
    }
    let answered = responses
        .and_then(|r| r.get("roots"))
        .map(|r| r.get("roots").cloned().unwrap_or(json!([])));
    match (answered, state) {
        (Some(_), Some(state)) if verify(state) != Some("roots-v1") => tampered(),
        (Some(roots), Some(_)) => {
            let count = roots.as_array().map_or(0, Vec::len);
            Ok(json!({"content": [text(format!("{count} roots"))]}))
        }
        _ => Ok(json!({
            "resultType": "input_required",
            "inputRequests": {"roots": {"method": "roots/list"}},
            "requestState": sign("roots-v1"),
        })),
    }
}

/// `test_input_required_result_multi_round`: asks for a name (`step1`), then for a colour
/// (`step2`) with a new state that carries the name, then answers with both.
pub fn multi_round(params: &Value) -> Outcome {
    if !declares(params, "elicitation") {
        return missing_capability("elicitation");
    }
    let round_one = || {
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {"step1": ask_text("Step 1: What is your name?", "name")},
            "requestState": sign("round1"),
        });
        Ok(result)
    };
    let Some(state) = params.get("requestState").and_then(Value::as_str) else {
        return round_one();
    };
    let Some(payload) = verify(state) else {
        return tampered();
    };
    if payload == "round1" {
        let name = match answered(params, "step1", "name") {
            Err(why) => return invalid(why),
            Ok(None) => return round_one(),
            Ok(Some(name)) => name,
        };
        // The name travels in the state, hex-encoded so that it cannot break the format.
        let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
        return Ok(json!({
            "resultType": "input_required",
            "inputRequests": {"step2": ask_text("Step 2: What is your favorite color?", "color")},
            "requestState": sign(&format!("round2-{hex}")),
        }));
    }
    let Some(hex) = payload.strip_prefix("round2-") else {
        return tampered();
    };
    let name: String = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .map(char::from)
        .collect();
    match answered(params, "step2", "color") {
        Err(why) => invalid(why),
        Ok(None) => Ok(json!({
            "resultType": "input_required",
            "inputRequests": {"step2": ask_text("Step 2: What is your favorite color?", "color")},
            "requestState": state,
        })),
        Ok(Some(color)) => Ok(json!({
            "content": [text(format!("Multi-round complete for {name} who likes {color}"))]
        })),
    }
}

/// `test_input_required_result_prompt`: asks what context the prompt should use
/// (`user_context`), then produces the prompt.
pub fn prompt(params: &Value, quirks: &Quirks) -> Outcome {
    if quirks.has(Quirk::StatelessMrtrPromptNeverAsks) {
        return Ok(
            json!({"messages": [{"role": "user", "content": text("Prompt with context: none".into())}]}),
        );
    }
    if !declares(params, "elicitation") {
        return missing_capability("elicitation");
    }
    match answered(params, "user_context", "context") {
        Err(why) => invalid(why),
        Ok(Some(context)) => Ok(json!({
            "messages": [{"role": "user", "content": text(format!("Prompt with context: {context}"))}]
        })),
        Ok(None) => Ok(json!({
            "resultType": "input_required",
            "inputRequests": {
                "user_context": ask_text("What context should the prompt use?", "context")
            },
        })),
    }
}

/// An elicitation of the user's name (key `user_name` in the official fixtures).
fn ask_name() -> Value {
    ask_text("What is your name?", "name")
}

/// A sampling request for one user message.
fn ask_sample(text: &str, max_tokens: u64) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens
        }
    })
}

/// An elicitation of a yes or no (`ok`).
fn ask_confirmation() -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": "Please confirm",
            "requestedSchema": {
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"]
            }
        }
    })
}

/// An InputRequiredResult asking these requests, with a signed state of this payload if given.
fn asking(requests: Value, state: Option<&str>) -> Outcome {
    let mut result = json!({"resultType": "input_required", "inputRequests": requests});
    if let Some(state) = state {
        result["requestState"] = json!(sign(state));
    }
    Ok(result)
}

/// A CallToolResult of one text.
fn done(text_: String) -> Outcome {
    Ok(json!({"content": [text(text_)]}))
}

/// Whether `inputResponses` answers `key` with a result of the request's kind: an ElicitResult
/// (`action`), a sampling result (`content`) or a ListRootsResult (`roots` array); `Err` for an
/// answer of the wrong shape.
fn answers(params: &Value, key: &str, kind: &str) -> Result<bool, String> {
    let Some(answer) = params.pointer(&format!("/inputResponses/{key}")) else {
        return Ok(false);
    };
    let fits = match kind {
        "elicitation" => answer.get("action").is_some_and(Value::is_string),
        // A sampling result's content is one block, or (2025-11-25 on) an array of them.
        "sampling" => answer
            .get("content")
            .is_some_and(|c| c.is_object() || c.is_array()),
        _ => answer.get("roots").is_some_and(Value::is_array),
    };
    if fits {
        Ok(true)
    } else {
        Err(format!(
            "inputResponses.{key} is not the answer to its request"
        ))
    }
}

/// The official input fixtures ([`crate::fixtures::INPUT_TOOLS`]); `None` for any other tool.
pub fn official_tool(name: &str, params: &Value) -> Option<Outcome> {
    if !crate::fixtures::INPUT_TOOLS.iter().any(|(n, _)| *n == name) {
        return None;
    }
    // `inputResponses` present but not an object is no answer at all.
    if params.get("inputResponses").is_some_and(|r| !r.is_object()) {
        return Some(invalid("inputResponses must be an object".into()));
    }
    let needs =
        |capability: &str| (!declares(params, capability)).then(|| missing_capability(capability));
    let state = params.get("requestState").and_then(Value::as_str);
    Some(match name {
        "test_input_required_result_elicitation" | "test_streaming_elicitation" => {
            if let Some(refusal) = needs("elicitation") {
                return Some(refusal);
            }
            match answered(params, "user_name", "name") {
                Err(why) => invalid(why),
                Ok(Some(name)) => done(format!("Hello, {name}!")),
                Ok(None) => asking(json!({"user_name": ask_name()}), None),
            }
        }
        "test_input_required_result_sampling" => {
            if let Some(refusal) = needs("sampling") {
                return Some(refusal);
            }
            match answers(params, "capital_question", "sampling") {
                Err(why) => invalid(why),
                Ok(true) => {
                    let content = params.pointer("/inputResponses/capital_question/content");
                    let said = content
                        .and_then(|c| c.get("text").or_else(|| c.pointer("/0/text")))
                        .and_then(Value::as_str)
                        .unwrap_or("(no text)");
                    done(format!("The model said: {said}"))
                }
                Ok(false) => asking(
                    json!({"capital_question": ask_sample("What is the capital of France?", 100)}),
                    None,
                ),
            }
        }
        "test_input_required_result_list_roots" => {
            if let Some(refusal) = needs("roots") {
                return Some(refusal);
            }
            match answers(params, "client_roots", "roots") {
                Err(why) => invalid(why),
                Ok(true) => {
                    let count = params
                        .pointer("/inputResponses/client_roots/roots")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    done(format!("{count} roots"))
                }
                Ok(false) => asking(
                    json!({"client_roots": {"method": "roots/list", "params": {}}}),
                    None,
                ),
            }
        }
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            if let Some(refusal) = needs("elicitation") {
                return Some(refusal);
            }
            match (state, answers(params, "confirm", "elicitation")) {
                (Some(state), _) if verify(state) != Some("confirm-v1") => tampered(),
                (_, Err(why)) => invalid(why),
                (Some(_), Ok(true)) => done("state-ok: confirmed".into()),
                _ => asking(json!({"confirm": ask_confirmation()}), Some("confirm-v1")),
            }
        }
        "test_input_required_result_multiple_inputs" => {
            for capability in ["elicitation", "sampling", "roots"] {
                if let Some(refusal) = needs(capability) {
                    return Some(refusal);
                }
            }
            if state.is_some_and(|s| verify(s) != Some("multiple-v1")) {
                return Some(tampered());
            }
            let all = [
                ("user_name", "elicitation"),
                ("greeting", "sampling"),
                ("client_roots", "roots"),
            ]
            .iter()
            .map(|(key, kind)| answers(params, key, kind))
            .collect::<Result<Vec<bool>, String>>();
            match all {
                Err(why) => invalid(why),
                Ok(all) if all.iter().all(|a| *a) && state.is_some() => {
                    done("all three inputs received".into())
                }
                Ok(_) => asking(
                    json!({
                        "user_name": ask_name(),
                        "greeting": ask_sample("Generate a greeting", 50),
                        "client_roots": {"method": "roots/list", "params": {}}
                    }),
                    Some("multiple-v1"),
                ),
            }
        }
        _ => {
            // test_input_required_result_capabilities: one request per declared capability.
            let mut requests = serde_json::Map::new();
            if declares(params, "elicitation") {
                requests.insert("user_name".into(), ask_name());
            }
            if declares(params, "sampling") {
                requests.insert(
                    "capital_question".into(),
                    ask_sample("What is the capital of France?", 100),
                );
            }
            if declares(params, "roots") {
                requests.insert(
                    "client_roots".into(),
                    json!({"method": "roots/list", "params": {}}),
                );
            }
            let answered_any = params
                .get("inputResponses")
                .and_then(Value::as_object)
                .is_some_and(|r| r.keys().any(|k| requests.contains_key(k)));
            if requests.is_empty() {
                missing_capability("elicitation")
            } else if answered_any {
                done("asked only for what the request declared".into())
            } else {
                asking(Value::Object(requests), None)
            }
        }
    })
}

/// `mcpcheck://roots`: asks for the client's roots (`roots`, with a signed state), then reads
/// as their number.
pub fn roots_resource(params: &Value, quirks: &Quirks) -> Outcome {
    /// Whether a read declared roots before (kept for the carry-over quirk only).
    static ROOTS_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let declared = declares(params, "roots");
    let remembered = quirks.has(Quirk::StatelessRootsCarryover)
        && ROOTS_SEEN.fetch_or(declared, std::sync::atomic::Ordering::Relaxed);
    if !declared && !remembered {
        return missing_capability("roots");
    }
    let count = match params.pointer("/inputResponses/roots") {
        None => None,
        Some(answer) => match answer.get("roots").and_then(Value::as_array) {
            Some(roots) => Some(roots.len()),
            None => return invalid("inputResponses.roots is not a ListRootsResult".into()),
        },
    };
    let state = params.get("requestState").and_then(Value::as_str);
    if state.is_some_and(|s| verify(s) != Some("roots")) {
        return tampered();
    }
    match (count, state) {
        (Some(count), state)
            if (state.is_some() || quirks.has(Quirk::StatelessMrtrResourceWithoutState))
                && !quirks.has(Quirk::StatelessMrtrResourceAsksAgain) =>
        {
            Ok(json!({"contents": [{
                "uri": ROOTS_RESOURCE,
                "mimeType": "text/plain",
                "text": format!("{count} roots")
            }]}))
        }
        _ if quirks.has(Quirk::StatelessMrtrResourceWithoutState) => Ok(json!({
            "resultType": "input_required",
            "inputRequests": {"roots": {"method": "roots/list"}},
        })),
        _ => Ok(json!({
            "resultType": "input_required",
            "inputRequests": {"roots": {"method": "roots/list"}},
            "requestState": sign("roots"),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multi_round_fixture_takes_two_rounds() {
        let meta = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
        let first = multi_round(&json!({"_meta": meta})).unwrap();
        assert!(first["inputRequests"]["step1"].is_object());
        let second = multi_round(
            &json!({"_meta": meta, "requestState": first["requestState"],
                "inputResponses": {"step1": {"action": "accept", "content": {"name": "Ada"}}}}),
        )
        .unwrap();
        assert!(second["inputRequests"]["step2"].is_object());
        assert_ne!(second["requestState"], first["requestState"]);
        let third = multi_round(
            &json!({"_meta": meta, "requestState": second["requestState"],
                "inputResponses": {"step2": {"action": "accept", "content": {"color": "blue"}}}}),
        )
        .unwrap();
        assert_eq!(
            third["content"][0]["text"],
            "Multi-round complete for Ada who likes blue"
        );
    }
}
