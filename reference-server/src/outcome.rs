//! What a handler concludes and where the notifications it makes go: the words the server and
//! the features it hands requests to (tasks, multi-round requests) share, kept below all of them
//! so that none reaches back into the server for them.

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

/// A request's outcome: a result, or a JSON-RPC error (code, message, data).
pub type Outcome = Result<Value, (i64, String, Option<Value>)>;

/// Where notifications produced during a request go.
pub type Sink = UnboundedSender<Value>;
