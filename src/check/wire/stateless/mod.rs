//! Built-in checks of the stateless 2026-07-28 wire: error codes, tool order, `x-mcp-header`
//! declarations, `subscriptions/listen` streams, InputRequiredResult shapes, server info, SSE.

use super::{sent_message, Builtin, WireInput};
use crate::record::{id_key, Direction, Transcript, WireFrame};
use serde_json::Value;
use std::collections::HashMap;

mod stateless_cache_scope_pages;
mod stateless_error_codes;
mod stateless_http_no_session;
mod stateless_input_required_shape;
mod stateless_list_not_per_connection;
mod stateless_listen_ack_first;
mod stateless_listen_filter;
mod stateless_listen_tagged;
mod stateless_server_info_everywhere;
mod stateless_sse_unbuffered;
mod stateless_tools_order_stable;
mod stateless_x_mcp_header_valid;

/// The area's checks, a file each, in the order reports list them.
pub(super) const BUILTINS: &[Builtin] = &[
    stateless_list_not_per_connection::CHECK,
    stateless_tools_order_stable::CHECK,
    stateless_x_mcp_header_valid::CHECK,
    stateless_listen_ack_first::CHECK,
    stateless_listen_filter::CHECK,
    stateless_listen_tagged::CHECK,
    stateless_input_required_shape::CHECK,
    stateless_server_info_everywhere::CHECK,
    stateless_sse_unbuffered::CHECK,
    stateless_error_codes::CHECK,
    stateless_http_no_session::CHECK,
    stateless_cache_scope_pages::CHECK,
];

/// Whether two lists of names hold the same names, in whatever order.
pub(super) fn same_set(a: &[String], b: &[String]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort();
    b.sort();
    a == b
}

/// One answer of a list method: when it came, on which connection, for which cursor (`None`: the
/// first page), and the names (or URIs) of the page, sorted.
pub(super) struct Listing {
    at: std::time::Instant,
    connection: usize,
    cursor: Option<String>,
    names: Vec<String>,
}

/// Every page of `kind` (`tools`, `prompts`, `resources`) a connection was answered.
pub(super) fn listings(
    input: &WireInput,
    transcript: &Transcript,
    connection: usize,
    kind: &str,
) -> Vec<Listing> {
    let method = format!("{kind}/list");
    let (array, key) = match kind {
        "resources" => ("/result/resources", "uri"),
        "prompts" => ("/result/prompts", "name"),
        _ => ("/result/tools", "name"),
    };
    input
        .results(transcript)
        .iter()
        .filter(|a| a.method == method)
        .map(|answered| {
            let mut names: Vec<String> = answered
                .message
                .pointer(array)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|item| item.get(key).and_then(Value::as_str).map(String::from))
                .collect();
            names.sort();
            Listing {
                at: transcript.started() + std::time::Duration::from_millis(answered.frame.at_ms),
                connection,
                cursor: answered
                    .request
                    .pointer("/params/cursor")
                    .filter(|c| !c.is_null())
                    .map(Value::to_string),
                names,
            }
        })
        .collect()
}

/// Notifications that 2026-07-28 delivers only on a `subscriptions/listen` stream.
pub(super) const SUBSCRIPTION_ONLY: &[&str] = &[
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
];

/// What is wrong with the `x-mcp-header` annotations of a tool's inputSchema (2026-07-28): each
/// names a header (a non-empty RFC 9110 token, unique without regard to case), sits on an
/// integer, string or boolean property, and is reached from the root through `properties` only.
pub fn x_mcp_header_problems(schema: &Value) -> Vec<String> {
    fn walk(value: &Value, path: &mut Vec<String>, found: &mut Vec<(Vec<String>, Value, Value)>) {
        match value {
            Value::Object(members) => {
                if let Some(header) = members.get("x-mcp-header") {
                    let kind = members.get("type").cloned().unwrap_or(Value::Null);
                    found.push((path.clone(), header.clone(), kind));
                }
                for (key, inner) in members {
                    path.push(key.clone());
                    walk(inner, path, found);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, inner) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk(inner, path, found);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(schema, &mut Vec::new(), &mut found);
    let mut problems = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for (path, header, kind) in found {
        let at = format!("/{}", path.join("/"));
        // Reachable through `properties` only: properties/<name>(/properties/<name>)*.
        let chained = !path.is_empty()
            && path.len() % 2 == 0
            && path.iter().step_by(2).all(|p| p == "properties");
        if !chained {
            problems.push(format!(
                "x-mcp-header at `{at}` is not reached through `properties` alone"
            ));
        }
        let Some(name) = header.as_str() else {
            problems.push(format!("x-mcp-header at `{at}` is not a string"));
            continue;
        };
        let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(tchar) {
            problems.push(format!(
                "x-mcp-header {name:?} at `{at}` is not an HTTP token (RFC 9110)"
            ));
        }
        if !matches!(kind.as_str(), Some("integer" | "string" | "boolean")) {
            problems.push(format!(
                "x-mcp-header {name:?} marks a property of type {kind}; only integer, string and boolean properties may carry one"
            ));
        }
        if let Some(other) = names.insert(name.to_ascii_lowercase(), at.clone()) {
            problems.push(format!(
                "x-mcp-header {name:?} at `{at}` repeats the one at `{other}` (names are compared without regard to case)"
            ));
        }
    }
    problems
}

/// One `subscriptions/listen` of a connection: its id (as a key), the filter it asked for, and
/// every notification received tagged with its id, in order.
pub(super) type ListenStream<'a> = (String, Value, Vec<(&'a Value, &'a WireFrame)>);

/// The `subscriptions/listen` requests a connection sent, with their tagged notifications.
pub(super) fn listen_streams(transcript: &Transcript) -> Vec<ListenStream<'_>> {
    let mut streams: Vec<ListenStream<'_>> = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::Sent => {
                let Some(sent) = sent_message(frame) else {
                    continue;
                };
                if sent.get("method").and_then(Value::as_str) == Some("subscriptions/listen") {
                    if let Some(id) = sent.get("id") {
                        let filter = sent
                            .pointer("/params/notifications")
                            .cloned()
                            .unwrap_or(Value::Null);
                        streams.push((id_key(id), filter, Vec::new()));
                    }
                }
            }
            Direction::Received => {
                let Some(message) = frame.message.as_ref() else {
                    continue;
                };
                if message.get("id").is_some() {
                    continue;
                }
                let Some(tag) = message
                    .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                    .map(id_key)
                else {
                    continue;
                };
                if let Some((_, _, tagged)) = streams.iter_mut().find(|(id, _, _)| *id == tag) {
                    tagged.push((message, frame));
                }
            }
        }
    }
    streams
}

/// Why a notification on a listen stream was not asked for by `filter`, if it was not.
pub(super) fn unrequested(filter: &Value, notification: &Value) -> Option<String> {
    let method = notification.get("method").and_then(Value::as_str)?;
    let asked = |flag: &str| filter.get(flag) == Some(&Value::Bool(true));
    match method {
        "notifications/subscriptions/acknowledged" => {
            let agreed = notification.pointer("/params/notifications")?.as_object()?;
            for (flag, value) in agreed {
                let extra = match flag.as_str() {
                    "resourceSubscriptions" => value.as_array().is_some_and(|uris| {
                        uris.iter().any(|u| {
                            !filter
                                .get("resourceSubscriptions")
                                .and_then(Value::as_array)
                                .is_some_and(|asked| asked.contains(u))
                        })
                    }),
                    _ => value == &Value::Bool(true) && !asked(flag),
                };
                if extra {
                    return Some(format!(
                        "the acknowledgement agrees to `{flag}`, which the listen request did not ask for"
                    ));
                }
            }
            None
        }
        "notifications/tools/list_changed" if !asked("toolsListChanged") => {
            Some("tools/list_changed without toolsListChanged".into())
        }
        "notifications/prompts/list_changed" if !asked("promptsListChanged") => {
            Some("prompts/list_changed without promptsListChanged".into())
        }
        "notifications/resources/list_changed" if !asked("resourcesListChanged") => {
            Some("resources/list_changed without resourcesListChanged".into())
        }
        "notifications/resources/updated" => {
            let uri = notification.pointer("/params/uri")?;
            let listed = filter
                .get("resourceSubscriptions")
                .and_then(Value::as_array)
                .is_some_and(|uris| uris.contains(uri));
            (!listed).then(|| {
                format!("resources/updated for {uri}, which is not in resourceSubscriptions")
            })
        }
        "notifications/progress" | "notifications/message" => Some(format!(
            "{method} belongs to a request's own stream, never to a subscription"
        )),
        _ => None,
    }
}

/// What is wrong with an InputRequiredResult (2026-07-28, MRTR) answering `method`, given the
/// client capabilities the request declared.
pub fn input_required_problems(method: &str, result: &Value, declared: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !matches!(method, "tools/call" | "prompts/get" | "resources/read") {
        problems.push(format!(
            "an InputRequiredResult for {method}; only tools/call, prompts/get and resources/read may ask for input"
        ));
    }
    let requests = result.get("inputRequests");
    if requests.is_none() && result.get("requestState").is_none() {
        problems.push("neither inputRequests nor requestState".into());
    }
    for member in ["ttlMs", "cacheScope"] {
        if result.get(member).is_some() {
            problems.push(format!(
                "`{member}`: an InputRequiredResult is not cacheable"
            ));
        }
    }
    match requests {
        None => {}
        Some(Value::Object(requests)) => {
            for (key, request) in requests {
                let method = request.get("method").and_then(Value::as_str).unwrap_or("");
                let capability = match method {
                    "roots/list" => "roots",
                    "sampling/createMessage" => "sampling",
                    "elicitation/create" => "elicitation",
                    other => {
                        problems.push(format!(
                            "inputRequests.{key} is a `{other}` request; only elicitation/create, sampling/createMessage and roots/list may be asked for"
                        ));
                        continue;
                    }
                };
                if declared.get(capability).is_none_or(Value::is_null) {
                    problems.push(format!(
                        "inputRequests.{key} asks for {method}, but the request did not declare the `{capability}` client capability"
                    ));
                }
            }
        }
        Some(_) => problems.push("inputRequests is not an object".into()),
    }
    problems
}

/// The error codes 2026-07-28 defines in the range it reserves (-32020 to -32099).
pub(super) const DEFINED_RESERVED: [i64; 3] = [-32020, -32021, -32022];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_mcp_header_rules() {
        let good = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}
        }});
        assert!(x_mcp_header_problems(&good).is_empty());
        for (schema, why) in [
            (
                serde_json::json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                "type",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "token",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                "token",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
                "repeats",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "through `properties`",
            ),
            (
                serde_json::json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                "through `properties`",
            ),
        ] {
            let problems = x_mcp_header_problems(&schema);
            assert!(
                problems.iter().any(|p| p.contains(why)),
                "{schema}: {problems:?}"
            );
        }
    }
}
