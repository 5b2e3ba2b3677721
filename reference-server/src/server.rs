//! The protocol logic of the reference server, written on plain JSON values.
//!
//! It knows nothing of stdio or HTTP: a transport hands it one frame (the bytes of a line or of a
//! POST body) and sends on what it returns. Notifications produced while a request runs (progress,
//! log messages) go to the sink the transport passes in. Quirks are applied here, and only here.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::fixtures::{self, PromptError, ToolOutcome, PAGE_SIZE};
use crate::mrtr;
use crate::quirks::{Quirk, Quirks};

/// The protocol versions this server speaks, newest first.
pub const SUPPORTED: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Log levels in increasing severity (RFC 5424 order, as the spec uses them).
const LOG_LEVELS: [&str; 8] = [
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

/// The per-connection (stdio) or per-session (HTTP) state.
#[derive(Debug, Default)]
pub struct Session {
    version: Mutex<Option<String>>,
    log_level: Mutex<Option<usize>>,
    /// Whether the client declared the `roots` capability.
    client_roots: AtomicBool,
    /// The capabilities the client declared in initialize.
    client_capabilities: Mutex<Value>,
    /// The server's own requests awaiting the client's answer, by id.
    awaiting: Mutex<std::collections::HashMap<String, tokio::sync::oneshot::Sender<Value>>>,
    /// Whether the server has asked the client for its roots.
    asked_roots: AtomicBool,
    /// With the quirk `pre-init-breaks-initialize`: a feature request came before initialize.
    early_request: AtomicBool,
    /// Whether the client sent `notifications/initialized`.
    initialized: AtomicBool,
    /// HTTP, with the quirk `one-stream-per-session`: a request is in progress.
    pub busy: AtomicBool,
    /// HTTP: tool calls in flight, by their request id as JSON text, for cancellation.
    pub in_flight: Mutex<std::collections::HashMap<String, tokio::task::AbortHandle>>,
    /// HTTP: every SSE event sent on the session's streams, in order, as (stream, event id,
    /// the event as sent), for resumption with Last-Event-ID.
    pub events: Mutex<Vec<(u64, String, String)>>,
    /// HTTP: the SSE streams still running, each with the GET that resumed it, if any.
    pub live: Mutex<
        std::collections::HashMap<u64, Option<tokio::sync::mpsc::UnboundedSender<bytes::Bytes>>>,
    >,
    /// 2025-11-25: the tasks started on this connection.
    pub tasks: crate::tasks::Tasks,
}

impl Session {
    /// Whether the server still waits for the client's answer to its request with this id.
    pub fn awaits(&self, id: &Value) -> bool {
        self.awaiting
            .lock()
            .expect("awaiting lock")
            .contains_key(&id.to_string())
    }

    /// Stops waiting for the answer to the server's request with this id: the asker gets none.
    pub fn give_up(&self, id: &Value) {
        self.awaiting
            .lock()
            .expect("awaiting lock")
            .remove(&id.to_string());
    }

    /// Whether the client declared this capability in initialize.
    fn client_declares(&self, capability: &str) -> bool {
        self.client_capabilities
            .lock()
            .expect("client capabilities lock")
            .get(capability)
            .is_some()
    }

    /// The negotiated protocol version, once `initialize` has been answered.
    pub fn version(&self) -> Option<String> {
        self.version.lock().expect("version lock").clone()
    }
}

/// What became of one incoming frame.
#[derive(Debug, Default)]
pub struct Handled {
    /// The JSON-RPC responses to send back (several only for a batch).
    pub replies: Vec<Value>,
    /// Whether the replies form a batch and must be sent as one JSON array.
    pub batch: bool,
    /// Whether the frame held at least one request (as opposed to notifications or responses only).
    pub had_request: bool,
    /// Whether the transport should stop serving after sending the replies.
    pub stop: bool,
}

/// The server: its quirks, shared by every connection.
#[derive(Debug, Default)]
pub struct Server {
    /// The deviations switched on.
    pub quirks: Quirks,
    /// Speak the stateless era (2026-07-28) instead of the handshake era.
    pub stateless: bool,
    /// The capabilities declared and served (`None`: all of them); the methods of the others
    /// are unknown (-32601).
    pub capabilities: Option<Vec<String>>,
    /// Whether the official conformance suite's fixtures (`test_*`, `test://…`) are served.
    pub official_fixtures: bool,
    /// How many tools/list requests were answered (for the quirk that reorders them).
    pub list_calls: std::sync::atomic::AtomicUsize,
    /// With the quirk `stateless-capability-carryover`: a request declared elicitation.
    pub elicitation_seen: AtomicBool,
    /// 2026-07-28: the open `subscriptions/listen` streams, for the list-change fixtures.
    pub listeners: Mutex<Vec<Listener>>,
    /// The key of the next listener.
    pub listener_keys: std::sync::atomic::AtomicU64,
    /// 2026-07-28: the tasks of the tasks extension, held by the server.
    pub ext_tasks: crate::tasks::ExtTasks,
}

/// An open `subscriptions/listen` subscription.
#[derive(Debug)]
pub struct Listener {
    /// A number of its own, to remove it when it ends.
    key: u64,
    /// The `_meta` that tags its notifications (the listen request's id).
    tag: Value,
    /// The notification methods it was acknowledged for.
    methods: Vec<&'static str>,
    /// Its stream.
    sink: Sink,
}

/// Removes a listener from the server's list when its subscription ends (or is cancelled).
struct Unlisten<'a>(&'a Mutex<Vec<Listener>>, u64);

impl Drop for Unlisten<'_> {
    fn drop(&mut self) {
        self.0
            .lock()
            .expect("listeners lock")
            .retain(|l| l.key != self.1);
    }
}

/// The error code of a request the server ends without answering (a quirk's abrupt end).
const UNANSWERED: i64 = i64::MIN;

/// The capability a feature method belongs to.
fn capability_of(method: &str) -> Option<&'static str> {
    Some(match method.split('/').next()? {
        "tools" => "tools",
        "resources" => "resources",
        "prompts" => "prompts",
        "completion" => "completions",
        "logging" => "logging",
        _ => return None,
    })
}

/// Whether a fixture (tool, prompt, resource or template) is one of the official suite's.
fn official(item: &Value) -> bool {
    ["name", "uri", "uriTemplate"]
        .iter()
        .filter_map(|k| item.get(*k).and_then(Value::as_str))
        .any(|v| v.starts_with("test_") || v.starts_with("test://"))
}

/// How long a `subscriptions/listen` stream stays open before the server ends it gracefully.
const LISTEN_LIFETIME: Duration = Duration::from_secs(2);

/// The version the stateless mode speaks.
pub const STATELESS_VERSION: &str = "2026-07-28";

impl Server {
    /// Whether the server declares and serves this capability.
    fn serves(&self, capability: &str) -> bool {
        if capability == "logging" && self.quirks.has(Quirk::LogWithoutCapability) {
            return false;
        }
        self.capabilities
            .as_ref()
            .is_none_or(|c| c.iter().any(|x| x == capability))
    }

    /// Keeps only the declared capabilities of a capabilities object.
    fn declared(&self, mut capabilities: Value) -> Value {
        let hidden = [
            (Quirk::ToolsServedUndeclared, "tools"),
            (Quirk::ResourcesServedUndeclared, "resources"),
            (Quirk::PromptsServedUndeclared, "prompts"),
            (Quirk::CompletionsServedUndeclared, "completions"),
            (Quirk::LoggingServedUndeclared, "logging"),
        ];
        if let Some(object) = capabilities.as_object_mut() {
            object.retain(|name, _| {
                self.serves(name)
                    && !hidden
                        .iter()
                        .any(|(quirk, cap)| cap == name && self.quirks.has(*quirk))
            });
        }
        capabilities
    }

    /// Handles one frame: a line on stdio or a POST body on HTTP.
    pub async fn handle_frame(&self, session: &Session, bytes: &[u8], sink: &Sink) -> Handled {
        let parsed: Value = match serde_json::from_slice(bytes) {
            Ok(value) => value,
            Err(e) => {
                let code = if self.quirks.has(Quirk::ParseErrorWrongCode) {
                    -32603
                } else {
                    -32700
                };
                return Handled {
                    replies: vec![self.error(
                        Value::Null,
                        code,
                        &format!("Parse error: {e}"),
                        None,
                    )],
                    had_request: true,
                    stop: self.quirks.has(Quirk::ExitOnParseError),
                    ..Handled::default()
                };
            }
        };
        match parsed {
            Value::Array(items)
                if ((session.version().as_deref() == Some("2025-03-26")
                    && !self.quirks.has(Quirk::BatchesRefused20250326))
                    || self.quirks.has(Quirk::AcceptBatches))
                    && !items.is_empty() =>
            {
                let mut handled = Handled {
                    batch: true,
                    ..Handled::default()
                };
                for item in items {
                    handled.had_request |= is_request(&item);
                    if let Some(reply) = self.handle_message(session, item, sink).await {
                        handled.replies.push(reply);
                    }
                }
                handled
            }
            Value::Array(_) => Handled {
                replies: vec![self.error(
                    Value::Null,
                    -32600,
                    "Invalid Request: batches are not supported",
                    None,
                )],
                had_request: true,
                ..Handled::default()
            },
            message => {
                let had_request = is_request(&message) || !message.is_object();
                // With the quirk, a call's progress goes on after its response (stdio only:
                // an HTTP response carries one message).
                let late = (self.quirks.has(Quirk::ProgressAfterResponse)
                    && message.get("method") == Some(&json!("tools/call")))
                .then(|| message.pointer("/params/_meta/progressToken").cloned())
                .flatten();
                let mut replies: Vec<Value> = self
                    .handle_message(session, message, sink)
                    .await
                    .into_iter()
                    .collect();
                if let Some(token) = late {
                    replies.push(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1000}}));
                }
                Handled {
                    replies,
                    had_request,
                    ..Handled::default()
                }
            }
        }
    }

    /// Handles one JSON-RPC message; returns the response, if one is due.
    async fn handle_message(
        &self,
        session: &Session,
        message: Value,
        sink: &Sink,
    ) -> Option<Value> {
        let Value::Object(message) = message else {
            return Some(self.error(Value::Null, -32600, "Invalid Request: not an object", None));
        };
        if message.is_empty() && self.quirks.has(Quirk::EmptyObjectMethodNotFound) {
            return Some(self.error(Value::Null, -32601, "Method not found", None));
        }
        let id = message.get("id").cloned();
        let id_ok = match &id {
            None => true,
            Some(Value::String(_)) => true,
            Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
            Some(Value::Object(_)) => self.quirks.has(Quirk::ObjectIdAccepted),
            Some(Value::Null) => self.quirks.has(Quirk::NullIdAccepted),
            Some(_) => false,
        };
        let version_ok = message.get("jsonrpc") == Some(&json!("2.0"))
            || (self.quirks.has(Quirk::AcceptJsonrpc1) && message.contains_key("jsonrpc"));
        if !message.contains_key("method")
            && (message.contains_key("result") || message.contains_key("error"))
        {
            // A response to a request of ours: to whoever waits for it (a tool asking the
            // client to sample or elicit); roots and pings are not waited for.
            let key = id.as_ref().map(Value::to_string).unwrap_or_default();
            if let Some(waiter) = session.awaiting.lock().expect("awaiting lock").remove(&key) {
                let _ = waiter.send(Value::Object(message));
            }
            return None;
        }
        let reply_id = if id_ok {
            id.clone().unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return Some(self.error(reply_id, -32600, "Invalid Request: no method", None));
        };
        if !version_ok || !id_ok {
            return Some(self.error(reply_id, -32600, "Invalid Request", None));
        }
        if self.quirks.has(Quirk::StringIdRejected) && id.as_ref().is_some_and(Value::is_string) {
            return Some(self.error(
                reply_id,
                -32600,
                "Invalid Request: string ids are not supported",
                None,
            ));
        }
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        if !(params.is_null() || params.is_object()) {
            return id.map(|id| {
                self.error(id, -32602, "Invalid params: params must be an object", None)
            });
        }
        match id {
            None => self.handle_notification(session, method),
            Some(id) => match self
                .handle_request(session, &id, method, &params, sink)
                .await
            {
                Ok(result) => Some(self.result(id, result)),
                Err((UNANSWERED, ..)) => None,
                Err((code, text, data)) => Some(self.error(id, code, &text, data)),
            },
        }
    }

    fn handle_notification(&self, session: &Session, method: &str) -> Option<Value> {
        if method == "notifications/initialized" {
            session.initialized.store(true, Ordering::Relaxed);
        }
        match method {
            "notifications/initialized" if self.quirks.has(Quirk::AnswerInitialized) => {
                Some(json!({"jsonrpc": "2.0", "id": null, "result": {}}))
            }
            "notifications/initialized"
            | "notifications/cancelled"
            | "notifications/roots/list_changed"
            | "notifications/progress" => None,
            _ if self.quirks.has(Quirk::AnswerUnknownNotification) => {
                Some(self.error(Value::Null, -32601, "Method not found", None))
            }
            _ => None,
        }
    }

    async fn handle_request(
        &self,
        session: &Session,
        id: &Value,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        if self.stateless {
            return self
                .handle_stateless(session, id, method, params, sink)
                .await;
        }
        let Some(version) = session.version() else {
            return match method {
                "initialize" if session.early_request.load(Ordering::Relaxed) => Err((
                    -32600,
                    "Invalid Request: this connection misbehaved before initializing".into(),
                    None,
                )),
                "initialize" => self.initialize(session, params, sink),
                "ping" => self.ping(),
                _ => match self.feature(session, "", method, params, sink).await {
                    Some(_) => {
                        session.early_request.store(
                            self.quirks.has(Quirk::PreInitBreaksInitialize),
                            Ordering::Relaxed,
                        );
                        Err((
                            -32600,
                            "Invalid Request: the session is not initialized".into(),
                            None,
                        ))
                    }
                    None => self.unknown_method(method),
                },
            };
        };
        match method {
            "initialize" => self.initialize(session, params, sink),
            "ping"
                if self.quirks.has(Quirk::PingBeforeInitializedRefused)
                    && !session.initialized.load(Ordering::Relaxed) =>
            {
                Err((
                    -32600,
                    "Invalid Request: waiting for notifications/initialized".into(),
                    None,
                ))
            }
            "ping" => self.ping(),
            "logging/setLevel" if self.serves("logging") => {
                let level = params
                    .get("level")
                    .and_then(Value::as_str)
                    .and_then(|l| LOG_LEVELS.iter().position(|x| *x == l));
                match level {
                    Some(_) if self.quirks.has(Quirk::SetLevelRefused) => Err((
                        -32603,
                        "Internal error: log levels cannot be changed".into(),
                        None,
                    )),
                    Some(level) => {
                        *session.log_level.lock().expect("log level lock") = Some(level);
                        if self.quirks.has(Quirk::LoggingServedUndeclared) {
                            // It says so at once, in a log message it never declared it sends.
                            let _ = sink.send(json!({
                                "jsonrpc": "2.0",
                                "method": "notifications/message",
                                "params": {"level": "notice", "logger": "mcpcheck-reference", "data": "log level set"}
                            }));
                        }
                        Ok(json!({}))
                    }
                    None if self.quirks.has(Quirk::SetLevelAcceptsAnything) => Ok(json!({})),
                    None => Err((-32602, "Invalid params: unknown log level".into(), None)),
                }
            }
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
                if version == fixtures::TASKS_VERSION && self.serves("tasks") =>
            {
                session
                    .tasks
                    .handle(&self.quirks, method, params, sink)
                    .await
            }
            "resources/subscribe" | "resources/unsubscribe" if self.serves("resources") => {
                if !params.get("uri").is_some_and(Value::is_string) {
                    Err((-32602, "Invalid params: uri must be a string".into(), None))
                } else if self.quirks.has(Quirk::SubscribeError) {
                    Err((-32603, "Internal error: subscriptions failed".into(), None))
                } else {
                    Ok(json!({}))
                }
            }
            _ => match self.feature(session, &version, method, params, sink).await {
                Some(outcome) => outcome,
                None => self.unknown_method(method),
            },
        }
    }

    /// `subscriptions/listen` (2026-07-28): acknowledges the notification types it honours (of
    /// those asked for, the tool and prompt lists' changes, which the fixtures
    /// `test_trigger_tool_change` and `test_trigger_prompt_change` announce), tagged with the
    /// subscription's id, then keeps the stream open until the client ends it (stdio:
    /// cancellation; HTTP: closing the stream) or, after a while, ends it gracefully with a
    /// result.
    async fn listen(&self, id: &Value, params: &Value, sink: &Sink) -> Outcome {
        let Some(asked) = params.get("notifications").and_then(Value::as_object) else {
            return Err((
                -32602,
                "Invalid params: notifications must be an object".into(),
                None,
            ));
        };
        // Task status notifications need the tasks extension; this server sends none, so it
        // agrees to no task ids (the acknowledgement leaves them out).
        if asked.contains_key("taskIds")
            && self.serves("tasks")
            && !crate::tasks::declared(params)
            && !self.quirks.has(Quirk::ExtTaskListenUndeclared)
        {
            return Err(crate::tasks::missing_extension("listening for task status"));
        }
        let tag = json!({"io.modelcontextprotocol/subscriptionId": id});
        let mut honoured = json!({});
        let mut methods = Vec::new();
        if asked.get("toolsListChanged") == Some(&json!(true)) && self.serves("tools") {
            honoured["toolsListChanged"] = json!(true);
            methods.push("notifications/tools/list_changed");
        }
        if asked.get("promptsListChanged") == Some(&json!(true)) && self.serves("prompts") {
            honoured["promptsListChanged"] = json!(true);
            methods.push("notifications/prompts/list_changed");
        }
        if self.quirks.has(Quirk::StatelessListenAckUnrequested) {
            honoured["promptsListChanged"] = json!(true);
        }
        if self.quirks.has(Quirk::StatelessListenNotifyBeforeAck) {
            let _ = sink.send(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": tag}}));
        }
        let mut ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": honoured, "_meta": tag}});
        if self.quirks.has(Quirk::StatelessListenUntagged) {
            ack["params"]
                .as_object_mut()
                .expect("params")
                .remove("_meta");
        }
        let _ = sink.send(ack);
        let key = self.listener_keys.fetch_add(1, Ordering::Relaxed);
        self.listeners
            .lock()
            .expect("listeners lock")
            .push(Listener {
                key,
                tag: tag.clone(),
                methods,
                sink: sink.clone(),
            });
        let _unlisten = Unlisten(&self.listeners, key);
        tokio::time::sleep(LISTEN_LIFETIME).await;
        if self.quirks.has(Quirk::StatelessListenEndUnannounced) {
            return Err((UNANSWERED, String::new(), None));
        }
        Ok(json!({"_meta": tag}))
    }

    /// The list-change fixtures (2026-07-28): every subscription acknowledged for `method`
    /// gets the notification, tagged with its id. Returns how many did.
    fn announce(&self, method: &str) -> usize {
        if self.quirks.has(Quirk::StatelessListChangeSilent) {
            return 0;
        }
        self.listeners
            .lock()
            .expect("listeners lock")
            .iter()
            .filter(|l| l.methods.contains(&method))
            .filter(|l| {
                l.sink
                    .send(json!({"jsonrpc": "2.0", "method": method, "params": {"_meta": l.tag}}))
                    .is_ok()
            })
            .count()
    }

    /// Asks the client for its roots once per session, as servers that work on files do, if the
    /// client declared the capability (handshake era only: 2026-07-28 servers send no requests).
    fn ask_roots(&self, session: &Session, sink: &Sink) {
        if self.stateless
            || !session.client_roots.load(Ordering::Relaxed)
            || session.asked_roots.swap(true, Ordering::Relaxed)
        {
            return;
        }
        let _ = sink.send(json!({"jsonrpc": "2.0", "id": "ref-roots-1", "method": "roots/list"}));
        // The server also checks once that the client is alive, and withdraws the question at
        // once: either side may cancel a request it issued.
        let _ = sink.send(json!({"jsonrpc": "2.0", "id": "ref-ping-1", "method": "ping"}));
        let _ = sink.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "ref-ping-1", "reason": "no longer needed"}}));
        if self.quirks.has(Quirk::ServerRequestIdReused) {
            let _ =
                sink.send(json!({"jsonrpc": "2.0", "id": "ref-roots-1", "method": "roots/list"}));
        }
        if self.quirks.has(Quirk::ServerSendsSampling) {
            let _ = sink.send(json!({"jsonrpc": "2.0", "id": "ref-sampling-1", "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}], "maxTokens": 10}}));
        }
    }

    /// Sends a request to the client on the current request's stream and waits (up to 10 s)
    /// for the answer; `None` if none came.
    async fn ask_client(
        &self,
        session: &Session,
        sink: &Sink,
        method: &str,
        params: Value,
    ) -> Option<Value> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = format!(
            "ref-{}-{}",
            method.replace('/', "-"),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let (tx, rx) = tokio::sync::oneshot::channel();
        session
            .awaiting
            .lock()
            .expect("awaiting lock")
            .insert(json!(id).to_string(), tx);
        let _ = sink.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        tokio::time::timeout(Duration::from_secs(10), rx)
            .await
            .ok()?
            .ok()
    }

    fn ping(&self) -> Outcome {
        if self.quirks.has(Quirk::PingError) {
            Err((-32601, "Method not found".into(), None))
        } else {
            Ok(json!({}))
        }
    }

    fn unknown_method(&self, method: &str) -> Outcome {
        if self.quirks.has(Quirk::UnknownMethodWrongCode) {
            Err((-32000, "Unknown method".into(), None))
        } else {
            Err((
                -32601,
                "Method not found".into(),
                Some(json!({"method": method})),
            ))
        }
    }

    /// The feature methods both eras share (tools, resources, prompts, completion); `None` for
    /// any other method. With an empty `version` nothing is run: the caller only asks whether
    /// the method is one of them.
    async fn feature(
        &self,
        session: &Session,
        version: &str,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Option<Outcome> {
        if capability_of(method).is_some_and(|c| !self.serves(c)) {
            return None;
        }
        let known = matches!(
            method,
            "tools/list"
                | "tools/call"
                | "resources/list"
                | "resources/templates/list"
                | "resources/read"
                | "prompts/list"
                | "prompts/get"
                | "completion/complete"
        );
        if !known || version.is_empty() {
            return known.then(|| Ok(Value::Null));
        }
        Some(match method {
            "tools/list" => {
                self.ask_roots(session, sink);
                if self.quirks.has(Quirk::ServerCancelUnknown) {
                    let _ = sink.send(json!({
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": "no-such-request", "reason": "quirk"}
                    }));
                }
                let mut tools = fixtures::tools(version);
                if self.quirks.has(Quirk::ToolAnnotationStringHint) {
                    for tool in tools.iter_mut().filter(|t| t.get("annotations").is_some()) {
                        tool["annotations"]["readOnlyHint"] = json!("true");
                    }
                }
                if self.quirks.has(Quirk::ToolNameDuplicate) {
                    tools.push(tools[0].clone());
                }
                if self.quirks.has(Quirk::StatelessXMcpHeaderOnNumber) {
                    if let Some(tool) = tools
                        .iter_mut()
                        .find(|t| t["name"] == "mcpcheck_structured")
                    {
                        tool["inputSchema"]["properties"]["a"]["x-mcp-header"] = json!("A");
                    }
                }
                tools.retain(|t| self.official_fixtures || !official(t));
                if self.quirks.has(Quirk::ToolNameWithSpace) {
                    tools[0]["name"] = json!("mcpcheck echo");
                }
                if self.quirks.has(Quirk::ToolInputSchemaInvalid) {
                    tools[0]["inputSchema"]["properties"]["text"]["type"] = json!("strin");
                }
                if self.quirks.has(Quirk::ToolInputSchemaWithoutType) {
                    tools[0]["inputSchema"]
                        .as_object_mut()
                        .expect("schema object")
                        .remove("type");
                }
                let ignored = json!({});
                let params = if self.quirks.has(Quirk::InvalidCursorIgnored) {
                    &ignored
                } else {
                    params
                };
                let page = list_page(tools, params, "tools").map(|mut page| {
                    if self.quirks.has(Quirk::MetaKeyInvalid)
                        && fixtures::at_least(version, "2025-06-18")
                    {
                        page["_meta"] = json!({"-not a key-": true});
                    }
                    page
                });
                if self.quirks.has(Quirk::StatelessToolsOrderUnstable) {
                    // Each answer lists its page in another order (the pages stay the same).
                    let turn = self.list_calls.fetch_add(1, Ordering::Relaxed);
                    return Some(page.map(|mut page| {
                        if let Some(tools) = page["tools"].as_array_mut() {
                            let len = tools.len().max(1);
                            tools.rotate_left(turn % len);
                        }
                        page
                    }));
                }
                page
            }
            "tools/call" => self.call_tool(version, session, params, sink).await,
            "resources/list" => {
                let mut resources = fixtures::resources();
                resources.retain(|r| self.official_fixtures || !official(r));
                if self.stateless {
                    resources.push(json!({"uri": mrtr::ROOTS_RESOURCE, "name": "roots", "mimeType": "text/plain", "description": "How many roots the client has (asks for them first)."}));
                }
                if self.quirks.has(Quirk::ResourceUriWithoutScheme) {
                    resources[0]["uri"] = json!("docs/readme");
                }
                if self.quirks.has(Quirk::ResourceUriBadEscape) {
                    if let Some(second) = resources.get_mut(1) {
                        second["uri"] = json!("ref://images/pi%xel");
                    }
                }
                if self.quirks.has(Quirk::ResourceWithoutName) {
                    resources[0]
                        .as_object_mut()
                        .expect("resource object")
                        .remove("name");
                }
                list_page(resources, params, "resources")
            }
            "resources/templates/list" => {
                let mut templates = fixtures::resource_templates();
                templates.retain(|t| self.official_fixtures || !official(t));
                if self.quirks.has(Quirk::TemplateWithoutUriTemplate) {
                    templates[0]
                        .as_object_mut()
                        .expect("template object")
                        .remove("uriTemplate");
                }
                list_page(templates, params, "resourceTemplates")
            }
            "resources/read" => self.read_resource(params),
            "prompts/list" => {
                let mut prompts = fixtures::prompts();
                prompts.retain(|p| self.official_fixtures || !official(p));
                if self.stateless && self.official_fixtures {
                    prompts.push(json!({"name": mrtr::INPUT_PROMPT, "description": "The official suite's prompt that asks for context first."}));
                }
                if self.quirks.has(Quirk::PromptWithoutName) {
                    prompts[0]
                        .as_object_mut()
                        .expect("prompt object")
                        .remove("name");
                }
                list_page(prompts, params, "prompts")
            }
            "prompts/get"
                if params.get("name") == Some(&json!("test_prompt_with_arguments"))
                    && params.pointer("/arguments/arg2").is_none()
                    && self
                        .quirks
                        .has(Quirk::EverythingPromptMissingArgumentServed) =>
            {
                Ok(
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='?', arg2=''"}}]}),
                )
            }
            "prompts/get"
                if params.get("name") == Some(&json!("test_prompt_with_arguments"))
                    && self.quirks.has(Quirk::EverythingPromptIgnoresArguments) =>
            {
                Ok(
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Prompt with arguments."}}]}),
                )
            }
            "prompts/get" | "completion/complete"
                if !self.official_fixtures
                    && [params.get("name"), params.pointer("/ref/name")]
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .any(|n| n.starts_with("test_")) =>
            {
                Err((-32602, "Invalid params: unknown prompt".into(), None))
            }
            "prompts/get"
                if params.get("name") == Some(&json!("test_prompt_with_image"))
                    && self.quirks.has(Quirk::EverythingImageWithoutMimeType) =>
            {
                get_prompt(params).map(|mut result| {
                    if let Some(content) = result
                        .pointer_mut("/messages/0/content")
                        .and_then(Value::as_object_mut)
                    {
                        content.remove("mimeType");
                    }
                    result
                })
            }
            "prompts/get"
                if params.get("name") == Some(&json!(mrtr::INPUT_PROMPT))
                    && self.official_fixtures
                    && self.stateless =>
            {
                mrtr::prompt(params, &self.quirks)
            }
            "prompts/get" => match get_prompt(params) {
                Err((-32602, message, _))
                    if message.starts_with("Unknown prompt")
                        && self.quirks.has(Quirk::UnknownPromptEmptyResult) =>
                {
                    Ok(json!({"messages": []}))
                }
                other => other,
            },
            _ => match complete(params) {
                Err(_) if self.quirks.has(Quirk::CompletionUnknownRefEmpty) => {
                    Ok(json!({"completion": {"values": [], "hasMore": false}}))
                }
                Ok(_) if self.quirks.has(Quirk::EverythingCompletionWithoutValues) => {
                    Ok(json!({"completion": {}}))
                }
                other => other,
            },
        })
    }

    /// The stateless era: every request carries its version and capabilities in `_meta`; there
    /// is no handshake, no ping and no setLevel; every result says `resultType`.
    async fn handle_stateless(
        &self,
        session: &Session,
        id: &Value,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        let meta = params.get("_meta");
        let version = meta
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str);
        if method == "initialize"
            && version.is_none()
            && !self.quirks.has(Quirk::StatelessLegacyInitializeUnnamed)
        {
            // A handshake-era client: tell it which versions this server speaks.
            return Err((
                -32022,
                format!("Unsupported protocol version: this server speaks {STATELESS_VERSION} only, without initialize"),
                Some(json!({"supported": [STATELESS_VERSION], "requested": params.get("protocolVersion").cloned().unwrap_or(Value::Null)})),
            ));
        }
        let capabilities = meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
        let version = match (version, capabilities) {
            (Some(version), Some(_)) => version,
            _ if self.quirks.has(Quirk::StatelessMetaOptional) => STATELESS_VERSION,
            _ => {
                return Err((
                    -32602,
                    "Invalid params: _meta must carry protocolVersion and clientCapabilities"
                        .into(),
                    None,
                ))
            }
        };
        if self.quirks.has(Quirk::StatelessRequireClientInfo)
            && meta
                .and_then(|m| m.get("io.modelcontextprotocol/clientInfo"))
                .is_none()
        {
            return Err((
                -32602,
                "Invalid params: _meta must carry clientInfo".into(),
                None,
            ));
        }
        if let Some(level) = meta.and_then(|m| m.get("io.modelcontextprotocol/logLevel")) {
            let known = level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l));
            if !known && !self.quirks.has(Quirk::StatelessLogLevelUnchecked) {
                return Err((
                    -32602,
                    format!("Invalid params: unknown logLevel {level}"),
                    None,
                ));
            }
        }
        if version != STATELESS_VERSION {
            let data = (!self.quirks.has(Quirk::StatelessUnsupportedVersionNoData))
                .then(|| json!({"supported": [STATELESS_VERSION], "requested": version}));
            return Err((-32022, "Unsupported protocol version".into(), data));
        }
        let discover = method == "server/discover";
        let mut result = match method {
            "server/discover" => {
                let mut result = json!({
                    "supportedVersions": [STATELESS_VERSION],
                    "capabilities": self.declared(json!({"tools": {"listChanged": true}, "resources": {}, "prompts": {"listChanged": true}, "completions": {}, "logging": {}, "extensions": {}})),
                    "instructions": "A reference server for mcpcheck. Its tools are harmless.",
                    "ttlMs": 0,
                    "cacheScope": "public"
                });
                if self.serves("tasks") {
                    result["capabilities"]["extensions"][crate::tasks::EXTENSION] = json!({});
                } else if let Some(capabilities) = result["capabilities"].as_object_mut() {
                    capabilities.remove("extensions");
                }
                if self.quirks.has(Quirk::StatelessDiscoverNoCacheHints) {
                    let object = result.as_object_mut().expect("object");
                    object.remove("ttlMs");
                    object.remove("cacheScope");
                }
                Ok(result)
            }
            "ping" if self.quirks.has(Quirk::StatelessAnswerRemoved) => Ok(json!({})),
            "subscriptions/listen" => self.listen(id, params, sink).await,
            "tasks/get" | "tasks/update" | "tasks/cancel" if self.serves("tasks") => {
                if crate::tasks::declared(params) || self.quirks.has(Quirk::ExtTaskServesUndeclared)
                {
                    self.ext_tasks.handle(&self.quirks, method, params)
                } else {
                    Err(crate::tasks::missing_extension(method))
                }
            }
            _ => match self.feature(session, version, method, params, sink).await {
                Some(outcome) => outcome,
                // initialize, ping, logging/setLevel and subscribe are gone in this era.
                None => self.unknown_method(method),
            },
        }?;
        if (discover || !self.quirks.has(Quirk::StatelessNoResultType))
            && result.get("resultType").is_none()
        {
            result["resultType"] = json!("complete");
        }
        // Lists and reads are cacheable: they carry the caching hints (SEP-2549); a read that
        // asks for input first (MRTR) is not.
        let asks = result.get("resultType") == Some(&json!("input_required"));
        let cacheable = !asks
            && matches!(
                method,
                "tools/list"
                    | "resources/list"
                    | "resources/templates/list"
                    | "prompts/list"
                    | "resources/read"
            );
        if cacheable && !self.quirks.has(Quirk::StatelessNoCacheHints) {
            result["ttlMs"] = json!(0);
            let later_page = params.get("cursor").is_some_and(|c| !c.is_null());
            result["cacheScope"] =
                if later_page && self.quirks.has(Quirk::StatelessCacheScopePerPage) {
                    json!("private")
                } else {
                    json!("public")
                };
        }
        if !(discover && self.quirks.has(Quirk::StatelessNoServerInfo))
            && (discover || !self.quirks.has(Quirk::StatelessServerInfoDiscoverOnly))
        {
            let meta = result
                .as_object_mut()
                .expect("results are objects")
                .entry("_meta")
                .or_insert_with(|| json!({}));
            meta["io.modelcontextprotocol/serverInfo"] =
                json!({"name": "mcpcheck-reference-server", "version": env!("CARGO_PKG_VERSION")});
        }
        Ok(result)
    }

    fn initialize(&self, session: &Session, params: &Value, sink: &Sink) -> Outcome {
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err((
                -32602,
                "Invalid params: protocolVersion is required".into(),
                None,
            ));
        };
        let version = match SUPPORTED.iter().position(|v| *v == requested) {
            Some(i) if self.quirks.has(Quirk::VersionNoEcho) => {
                SUPPORTED[(i + 1).min(SUPPORTED.len() - 1)].to_string()
            }
            Some(_) => requested.to_string(),
            None if self.quirks.has(Quirk::EchoUnsupportedVersion) => requested.to_string(),
            None => SUPPORTED[0].to_string(),
        };
        let mut capabilities = json!({
            "tools": {"listChanged": false},
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {"listChanged": false},
            "logging": {}
        });
        if fixtures::at_least(&version, "2025-03-26") {
            capabilities["completions"] = json!({});
        }
        if version == fixtures::TASKS_VERSION {
            capabilities["tasks"] =
                json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        }
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.declared(capabilities),
            "serverInfo": {"name": "mcpcheck-reference-server", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "A reference server for mcpcheck. Its tools are harmless."
        });
        if self.quirks.has(Quirk::InitMissingServerInfo) {
            result.as_object_mut().expect("object").remove("serverInfo");
        }
        *session.version.lock().expect("version lock") = Some(version);
        session.client_roots.store(
            params.pointer("/capabilities/roots").is_some(),
            Ordering::Relaxed,
        );
        *session
            .client_capabilities
            .lock()
            .expect("client capabilities lock") =
            params.get("capabilities").cloned().unwrap_or_default();
        if self.quirks.has(Quirk::RequestsBeforeInitialized) {
            // Asks for the roots at once, before the client has sent `initialized`.
            self.ask_roots(session, sink);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        version: &str,
        session: &Session,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            let code = if self.quirks.has(Quirk::MalformedCallInternalError) {
                -32603
            } else {
                -32602
            };
            return Err((code, "Invalid params: name must be a string".into(), None));
        };
        let args = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        if !args.is_object() {
            return Err((
                -32602,
                "Invalid params: arguments must be an object".into(),
                None,
            ));
        }
        if version == fixtures::TASKS_VERSION && self.serves("tasks") {
            let augmented = params.get("task").is_some_and(Value::is_object);
            match (augmented, fixtures::task_support(name)) {
                (true, None) if !self.quirks.has(Quirk::TaskForbiddenAccepted) => {
                    return Err((
                        -32601,
                        format!("Method not found: `{name}` does not run as a task"),
                        None,
                    ))
                }
                (false, Some("required")) if !self.quirks.has(Quirk::TaskRequiredPlainAccepted) => {
                    return Err((
                        -32601,
                        format!("Method not found: `{name}` runs only as a task"),
                        None,
                    ))
                }
                (true, _) => {
                    let outcome = match fixtures::call_tool(name, &args, version) {
                        ToolOutcome::Result(result) => Ok(result),
                        ToolOutcome::Unknown => {
                            Err((-32602, format!("Unknown tool: {name}"), None))
                        }
                        _ => Ok(json!({"content": [{"type": "text", "text": "done"}]})),
                    };
                    let token = params.pointer("/_meta/progressToken").cloned();
                    return Ok(session.tasks.create(&self.quirks, outcome, token));
                }
                _ => {}
            }
        }
        if self.stateless
            && self.serves("tasks")
            && matches!(name, "mcpcheck_task" | "mcpcheck_task_required")
        {
            // 2026-07-28, the tasks extension: a task for a request that declares it.
            let declared = crate::tasks::declared(params);
            let outcome = fixtures::ext_task_outcome(&args);
            // With outcome `input`, the task first asks for the client's roots.
            let asks_roots = args.get("outcome") == Some(&json!("input"));
            if asks_roots && !mrtr::declares(params, "roots") {
                return mrtr::missing_capability("roots");
            }
            if declared || self.quirks.has(Quirk::ExtTaskUndeclaredHandle) {
                return Ok(self.ext_tasks.create(&self.quirks, outcome, asks_roots));
            }
            if asks_roots {
                return Err(crate::tasks::missing_extension(
                    "asking for input during a task",
                ));
            }
            if name == "mcpcheck_task_required" {
                return Err(if self.quirks.has(Quirk::ExtTaskRequiredWrongError) {
                    (
                        -32601,
                        format!("Method not found: `{name}` runs only as a task"),
                        None,
                    )
                } else {
                    crate::tasks::missing_extension(name)
                });
            }
            // Otherwise the work is done at once.
            return outcome;
        }
        if name == "test_missing_capability" && self.official_fixtures && self.stateless {
            let declared = params
                .pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/elicitation")
                .is_some();
            // With the quirk, a capability once declared is remembered, as a session would.
            let remembered = self.quirks.has(Quirk::StatelessCapabilityCarryover)
                && self.elicitation_seen.fetch_or(declared, Ordering::Relaxed);
            if declared || remembered {
                return Ok(
                    json!({"content": [{"type": "text", "text": "elicitation is available"}]}),
                );
            }
            let required = if self.quirks.has(Quirk::StatelessRequiredCapabilitiesArray) {
                json!(["elicitation"])
            } else {
                json!({"elicitation": {}})
            };
            return Err((
                -32021,
                "Missing required client capability: elicitation".into(),
                Some(json!({"requiredCapabilities": required})),
            ));
        }
        if name == "mcpcheck_list_roots" && self.stateless {
            return mrtr::list_roots(params, &self.quirks);
        }
        if name == mrtr::MULTI_ROUND_TOOL && self.official_fixtures && self.stateless {
            return mrtr::multi_round(params, &self.quirks);
        }
        // The handshake era sets the level per session (logging/setLevel); 2026-07-28 per
        // request, in `_meta` (no level: no log messages at all).
        let level = if self.stateless && !self.serves("logging") {
            // A server without the logging capability never logs.
            None
        } else if self.stateless {
            params
                .pointer("/_meta/io.modelcontextprotocol~1logLevel")
                .and_then(Value::as_str)
                .and_then(|l| LOG_LEVELS.iter().position(|x| *x == l))
                .or_else(|| {
                    self.quirks
                        .has(Quirk::StatelessLogWithoutLevel)
                        .then_some(0)
                })
        } else if self.quirks.has(Quirk::LogWithoutCapability) {
            Some(0)
        } else {
            *session.log_level.lock().expect("log level lock")
        };
        if level.is_some_and(|l| l <= 1 || self.quirks.has(Quirk::LogLevelIgnored)) {
            let _ = sink.send(json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": if self.quirks.has(Quirk::LogMessageWithoutData) {
                    json!({"level": "info", "logger": "tools"})
                } else {
                    json!({"level": "info", "logger": "tools", "data": format!("calling {name}")})
                }
            }));
        }
        let outcome = if !self.official_fixtures && name.starts_with("test_") {
            ToolOutcome::Unknown
        } else {
            fixtures::call_tool(name, &args, version)
        };
        match outcome {
            ToolOutcome::Unknown if self.quirks.has(Quirk::UnknownToolIsError) => Ok(json!({
                "content": [{"type": "text", "text": format!("Unknown tool: {name}")}],
                "isError": true
            })),
            ToolOutcome::Unknown if self.quirks.has(Quirk::UnknownToolSuccess) => {
                Ok(json!({"content": [{"type": "text", "text": "done"}]}))
            }
            ToolOutcome::Unknown => Err((
                -32602,
                format!("Unknown tool: {name}"),
                Some(json!({"name": name})),
            )),
            ToolOutcome::Result(_)
                if name == "mcpcheck_echo"
                    && args.get("text").is_none()
                    && self.quirks.has(Quirk::InvalidArgumentsAccepted) =>
            {
                Ok(json!({"content": [{"type": "text", "text": ""}]}))
            }
            ToolOutcome::Result(_)
                if name == "mcpcheck_empty" && self.quirks.has(Quirk::EmptyResultNullContent) =>
            {
                Ok(json!({"content": null}))
            }
            ToolOutcome::Result(_)
                if name == "mcpcheck_empty" && self.quirks.has(Quirk::EmptyResultIsError) =>
            {
                Ok(json!({"content": [], "isError": true}))
            }
            ToolOutcome::Result(mut result)
                if name == "mcpcheck_structured"
                    && self.quirks.has(Quirk::StructuredContentNotMirrored) =>
            {
                result["content"] = json!([{"type": "text", "text": "The sum is computed."}]);
                Ok(result)
            }
            ToolOutcome::Result(mut result)
                if name == "mcpcheck_structured"
                    && self.quirks.has(Quirk::StructuredContentMismatch) =>
            {
                if let Some(sum) = result.pointer("/structuredContent/sum").cloned() {
                    result["structuredContent"]["sum"] = json!(sum.to_string());
                }
                Ok(result)
            }
            ToolOutcome::Result(mut result)
                if name == "test_image_content"
                    && self.quirks.has(Quirk::EverythingImageWithoutMimeType) =>
            {
                if let Some(block) = result
                    .pointer_mut("/content/0")
                    .and_then(Value::as_object_mut)
                {
                    block.remove("mimeType");
                }
                Ok(result)
            }
            ToolOutcome::Result(_)
                if name == "test_error_handling"
                    && self.quirks.has(Quirk::EverythingErrorAsProtocolError) =>
            {
                Err((-32603, "Internal error: the tool failed".into(), None))
            }
            ToolOutcome::Result(result) => Ok(result),
            ToolOutcome::Progress { mut points, total } => {
                if self.quirks.has(Quirk::ProgressDecreasing) {
                    points.reverse();
                }
                if let Some(token) = params.pointer("/_meta/progressToken") {
                    for point in points {
                        let _ = sink.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": point, "total": total}}));
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
                Ok(json!({"content": [{"type": "text", "text": "Progress reported."}]}))
            }
            ToolOutcome::Sampling => {
                let declared = session.client_declares("sampling");
                if !declared || self.quirks.has(Quirk::SamplingFixtureSilent) {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "The client cannot sample."}], "isError": !self.quirks.has(Quirk::SamplingFixtureSilent)}),
                    );
                }
                let answer = self
                    .ask_client(session, sink, "sampling/createMessage", json!({
                        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello in one word."}}],
                        "maxTokens": 20
                    }))
                    .await;
                let text = answer
                    .as_ref()
                    .and_then(|a| a.pointer("/result/content/text"))
                    .and_then(Value::as_str)
                    .unwrap_or("(no answer)");
                Ok(json!({"content": [{"type": "text", "text": format!("LLM response: {text}")}]}))
            }
            ToolOutcome::Elicitation { message, schema } => {
                let declared = session.client_declares("elicitation");
                if !declared {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "The client cannot elicit."}], "isError": true}),
                    );
                }
                if self.quirks.has(Quirk::ElicitationFixtureSilent) {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "User response: none asked"}]}),
                    );
                }
                let mut schema = schema;
                if self.quirks.has(Quirk::ElicitationDefaultMistyped) {
                    if let Some(age) = schema.pointer_mut("/properties/age") {
                        age["default"] = json!("30");
                    }
                }
                let mut params = json!({"message": message, "requestedSchema": schema});
                // With the quirk, test_elicitation (the form that asks for a username) goes to
                // a URL instead.
                if self.quirks.has(Quirk::ElicitationUrlUndeclared)
                    && fixtures::at_least(version, "2025-11-25")
                    && schema.pointer("/properties/username").is_some()
                {
                    params = json!({"mode": "url", "message": message, "url": "https://example.com/form", "elicitationId": "ref-elicitation-1"});
                }
                let Some(answer) = self
                    .ask_client(session, sink, "elicitation/create", params)
                    .await
                else {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "The client did not answer elicitation/create."}], "isError": true}),
                    );
                };
                let action = answer
                    .pointer("/result/action")
                    .and_then(Value::as_str)
                    .unwrap_or("none");
                let content = answer
                    .pointer("/result/content")
                    .cloned()
                    .unwrap_or_default();
                Ok(
                    json!({"content": [{"type": "text", "text": format!("User response: action={action}, content={content}")}]}),
                )
            }
            ToolOutcome::ListChanged(method) => {
                let told = self.announce(method);
                Ok(
                    json!({"content": [{"type": "text", "text": format!("Sent {method} to {told} subscription(s).")}]}),
                )
            }
            ToolOutcome::Reconnection => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(
                    json!({"content": [{"type": "text", "text": "Reconnection test completed: the result outlived its stream."}]}),
                )
            }
            ToolOutcome::Slow { steps, delay_ms } => {
                let token = params.pointer("/_meta/progressToken").cloned();
                for step in 1..=steps {
                    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                    if let Some(token) = &token {
                        let shown = if self.quirks.has(Quirk::ProgressDecreasing) {
                            steps + 1 - step
                        } else {
                            step
                        };
                        let mut progress =
                            json!({"progressToken": token, "progress": shown, "total": steps});
                        if fixtures::at_least(version, "2025-03-26") {
                            progress["message"] = json!(format!("step {step} of {steps}"));
                        }
                        let _ = sink.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}));
                    }
                }
                Ok(
                    json!({"content": [{"type": "text", "text": format!("done after {steps} steps")}]}),
                )
            }
        }
    }

    fn read_resource(&self, params: &Value) -> Outcome {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err((-32602, "Invalid params: uri must be a string".into(), None));
        };
        if uri == mrtr::ROOTS_RESOURCE && self.stateless {
            return mrtr::roots_resource(params, &self.quirks);
        }
        let found = if !self.official_fixtures && uri.starts_with("test://") {
            None
        } else {
            fixtures::read_resource(uri)
        };
        match found {
            Some(mut result) if self.quirks.has(Quirk::ReadTextAndBlob) => {
                if let Some(item) = result["contents"]
                    .get_mut(0)
                    .filter(|i| i.get("text").is_some())
                {
                    item["blob"] = json!(fixtures::PIXEL_PNG);
                }
                Ok(result)
            }
            Some(mut result)
                if uri.starts_with("test://template/")
                    && self.quirks.has(Quirk::EverythingTemplateIgnoresId) =>
            {
                result["contents"][0]["text"] = json!("{\"data\": \"data\"}");
                Ok(result)
            }
            Some(result) => Ok(result),
            None if uri.starts_with("file://")
                && uri.contains("/..")
                && self.quirks.has(Quirk::ResourceTraversal) =>
            {
                Ok(
                    json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "root:x:0:0:root:/root:/bin/sh\n"}]}),
                )
            }
            None if self.stateless && self.quirks.has(Quirk::StatelessLegacyNotFoundCode) => Err((
                -32002,
                "Resource not found".into(),
                Some(json!({"uri": uri})),
            )),
            None if self.quirks.has(Quirk::MissingResourceEmptyContents) => {
                Ok(json!({"contents": []}))
            }
            None if self.quirks.has(Quirk::MissingResourceInternalError) => {
                Err((-32603, "Internal error".into(), None))
            }
            None if self.quirks.has(Quirk::MissingResourceNoDataUri) => {
                Err((-32602, "Resource not found".into(), None))
            }
            None => Err((
                -32602,
                "Resource not found".into(),
                Some(json!({"uri": uri})),
            )),
        }
    }

    fn result(&self, id: Value, result: Value) -> Value {
        self.quirks
            .rewrite(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    fn error(&self, id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), json!(code));
        error.insert("message".into(), json!(message));
        if let Some(data) = data {
            error.insert("data".into(), data);
        }
        self.quirks
            .rewrite(json!({"jsonrpc": "2.0", "id": id, "error": error}))
    }
}

/// A handler's answer: a result, or an error's code, message and data.
/// A request's outcome: a result, or a JSON-RPC error (code, message, data).
pub type Outcome = Result<Value, (i64, String, Option<Value>)>;

fn is_request(message: &Value) -> bool {
    message.get("method").is_some() && message.get("id").is_some()
}

/// Serves one page of a list; cursors are `page:<offset>`.
fn list_page(items: Vec<Value>, params: &Value, key: &str) -> Outcome {
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(cursor) => cursor
            .as_str()
            .and_then(|c| c.strip_prefix("page:"))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < items.len() && n % PAGE_SIZE == 0)
            .ok_or((-32602, "Invalid params: invalid cursor".to_string(), None))?,
    };
    let end = (start + PAGE_SIZE).min(items.len());
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(items[start..end].to_vec()));
    if end < items.len() {
        result.insert("nextCursor".into(), json!(format!("page:{end}")));
    }
    Ok(Value::Object(result))
}

fn get_prompt(params: &Value) -> Outcome {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err((-32602, "Invalid params: name must be a string".into(), None));
    };
    let args = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    fixtures::get_prompt(name, &args).map_err(|e| match e {
        PromptError::Unknown => (-32602, format!("Unknown prompt: {name}"), None),
        PromptError::MissingArgument(arg) => {
            (-32602, format!("Missing required argument: {arg}"), None)
        }
    })
}

fn complete(params: &Value) -> Outcome {
    let (Some(reference), Some(argument)) = (params.get("ref"), params.get("argument")) else {
        return Err((
            -32602,
            "Invalid params: ref and argument are required".into(),
            None,
        ));
    };
    let name = argument
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let value = argument
        .get("value")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match fixtures::complete(reference, name, value) {
        Some(values) => {
            Ok(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
        }
        None => Err((-32602, "Invalid params: unknown reference".into(), None)),
    }
}
