//! What a handler concludes and where the notifications it makes go: the words the server and
//! the features it hands requests to (tasks, multi-round requests) share, kept below all of them
//! so that none reaches back into the server for them.

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

/// A JSON-RPC error: code, message, data.
pub type Failure = (i64, String, Option<Value>);

/// A request's outcome: a result, or a JSON-RPC error.
pub type Outcome = Result<Value, Failure>;

/// The error code of a request the server ends without answering (a quirk's abrupt end): no
/// response is sent for it.
pub const UNANSWERED: i64 = i64::MIN;

/// The message of the 2026-07-28 era's -32022 for a version the server does not speak (the
/// handshake-era `initialize` sent to the stateless server words its own), which a quirk finds
/// the error by.
pub const UNSUPPORTED_VERSION: &str = "Unsupported protocol version";

/// How the -32602 for a task id the server does not know begins (the 2025-11-25 methods and
/// the tasks extension's word it alike), which a quirk finds the error by.
pub const NO_TASK: &str = "Invalid params: no task";

/// Log levels in increasing severity (RFC 5424 order, as the spec uses them).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Where notifications produced during a request go.
pub type Sink = UnboundedSender<Value>;

/// Serves one page of a list; cursors are `page:<offset>`.
pub fn list_page(items: Vec<Value>, params: &Value, key: &str) -> Outcome {
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(cursor) => cursor
            .as_str()
            .and_then(|c| c.strip_prefix("page:"))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < items.len() && n % crate::fixtures::page_size() == 0)
            .ok_or((-32602, "Invalid params: invalid cursor".to_string(), None))?,
    };
    let end = (start + crate::fixtures::page_size()).min(items.len());
    let mut result = serde_json::Map::new();
    result.insert(key.into(), Value::Array(items[start..end].to_vec()));
    if end < items.len() {
        result.insert(
            "nextCursor".into(),
            serde_json::json!(format!("page:{end}")),
        );
    }
    Ok(Value::Object(result))
}
