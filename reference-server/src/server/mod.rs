//! The protocol logic of the reference server, written on plain JSON values.
//!
//! It knows nothing of stdio or HTTP: a transport hands it one frame (the bytes of a line or of a
//! POST body) and sends on what it returns. Notifications produced while a request runs (progress,
//! log messages) go to the sink the transport passes in. Quirks are applied here, and only here.

mod features;
mod stateless;
mod tools;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::fixtures;
use crate::outcome::LOG_LEVELS;
use crate::outcome::{Outcome, Sink, UNANSWERED};
use crate::quirks::{Demand, Era, Quirk, Quirks, Waiver};

/// The protocol versions this server speaks, newest first.
pub const SUPPORTED: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

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
    /// The method of the first message the connection sent, `(other)` for a frame that was no
    /// single message (for the quirk that lists per connection).
    pub first_method: std::sync::OnceLock<String>,
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
    /// Speak the stateless era (2026-07-28) instead of the handshake era (with `dual_era`:
    /// decided by the connection's first request).
    pub stateless: AtomicBool,
    /// Speak both eras, as many SDKs do: a connection whose first request is server/discover or
    /// carries `_meta` with a protocol version is served in the stateless era, one that starts
    /// with initialize in the handshake era (stdio only: a process serves one connection).
    pub dual_era: bool,
    /// With `dual_era`: whether the connection's era is decided.
    pub era_decided: AtomicBool,
    /// The capabilities declared and served (`None`: all of them); the methods of the others
    /// are unknown (-32601).
    pub capabilities: Option<Vec<String>>,
    /// Whether the official conformance suite's fixtures (`test_*`, `test://…`) are served.
    pub official_fixtures: bool,
    /// HTTP: the bearer token every request to the endpoint must carry (`--static-token`), as a
    /// protected resource would check one; without it (or with another) the answer is 401 with a
    /// Bearer challenge.
    pub static_token: Option<String>,
    /// HTTP, with a static token: the methods that token's scope does not cover
    /// (`--token-lacks-scope`), answered 403 `insufficient_scope` as a server asking the client
    /// to step up.
    pub token_lacks: Vec<String>,
    /// HTTP, with a static token: the authorization server its resource metadata names
    /// (`--authorization-server`; this server's origin when not given).
    pub authorization_server: Option<String>,
    /// HTTP, with a static token: a token known to have expired (`--expired-token`), refused
    /// unless a quirk takes it.
    pub expired_token: Option<String>,
    /// HTTP: the authorization server whose tokens the server takes (`--auth ISSUER`).
    pub issuer: Option<std::sync::Arc<crate::issuer::Issuer>>,
    /// Every list method (tools, resources, templates, prompts) answers an empty list
    /// (`--empty-lists`): a server with nothing of any kind to offer, though it declares them.
    pub empty_lists: bool,
    /// stdio: after writing this many lines, the server writes nothing more but keeps reading
    /// and running (`--stop-answering-after N`): a server that stopped answering.
    pub silent_after: Option<usize>,
    /// With the quirk `stateless-capability-carryover`: a request declared sampling.
    pub capability_seen: AtomicBool,
    /// With the quirk `ext-task-capability-remembered`: the task ids asked about by a request
    /// that declared the tasks extension.
    pub ext_task_ids_declared: Mutex<Vec<String>>,
    /// 2026-07-28: the open `subscriptions/listen` streams, for the list-change fixtures.
    pub listeners: Mutex<Vec<Listener>>,
    /// The key of the next listener.
    pub listener_keys: std::sync::atomic::AtomicU64,
    /// 2026-07-28: the tasks of the tasks extension, held by the server.
    pub ext_tasks: crate::tasks::ExtTasks,
    /// The skills extension's skills (`--skills DIR`), declared and served when given.
    pub skills: Option<crate::skills::Skills>,
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

tokio::task_local! {
    /// Over HTTP with `--dual-era`: whether the request being served is of the stateless era,
    /// decided request by request from what it carries ([`Server::stateless`] reads it).
    pub static ERA: bool;
}

/// `fut`, run in the era of the request being served (for work spawned on its behalf).
pub fn in_this_era<F: std::future::Future>(fut: F) -> impl std::future::Future<Output = F::Output> {
    let era = ERA.try_with(|stateless| *stateless).ok();
    async move {
        match era {
            Some(stateless) => ERA.scope(stateless, fut).await,
            None => fut.await,
        }
    }
}

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
        .any(|v| {
            v.starts_with("test_")
                || v.starts_with("test://")
                || v == "json_schema_2020_12_tool"
                || fixtures::TASK_TOOLS.contains(&v)
        })
}

/// How long a `subscriptions/listen` stream stays open before the server ends it gracefully.
const LISTEN_LIFETIME: Duration = Duration::from_secs(1);

/// The version the stateless mode speaks.
pub const STATELESS_VERSION: &str = "2026-07-28";

impl Server {
    /// Whether the server declares and serves this capability.
    fn serves(&self, capability: &str) -> bool {
        if self.quirks.withholds(capability) {
            return false;
        }
        self.capabilities
            .as_ref()
            .is_none_or(|c| c.iter().any(|x| x == capability))
    }

    /// Keeps only the declared capabilities of a capabilities object.
    fn declared(&self, mut capabilities: Value) -> Value {
        if let Some(object) = capabilities.as_object_mut() {
            object.retain(|name, _| self.serves(name));
            self.quirks.declared(object);
        }
        capabilities
    }

    /// Handles one frame: a line on stdio or a POST body on HTTP.
    pub async fn handle_frame(&self, session: &Session, bytes: &[u8], sink: &Sink) -> Handled {
        // What the connection began with: a message's method, or `(other)` for anything else.
        session.first_method.get_or_init(|| {
            serde_json::from_slice::<Value>(bytes)
                .ok()
                .and_then(|m| m.get("method").and_then(Value::as_str).map(String::from))
                .unwrap_or_else(|| "(other)".into())
        });
        let parsed: Value = match serde_json::from_slice(bytes) {
            Ok(value) => value,
            Err(e) => {
                return Handled {
                    replies: vec![self.error(
                        Value::Null,
                        -32700,
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
                    && !self.quirks.demands(Demand::NoBatches))
                    || self.quirks.waives(Waiver::Batches))
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

    /// HTTP: whether the server is a protected resource (`--static-token`, `--auth`).
    pub fn protected(&self) -> bool {
        self.static_token.is_some() || self.issuer.is_some()
    }

    /// Whether this connection speaks the stateless era.
    pub fn stateless(&self) -> bool {
        // Over HTTP with --dual-era, the era is the request's (`ERA`); otherwise the server's.
        ERA.try_with(|stateless| *stateless)
            .unwrap_or_else(|_| self.stateless.load(Ordering::Relaxed))
    }

    /// With `dual_era`: decides the connection's era from its first request that says
    /// (initialize: the handshake era; server/discover or a `_meta` protocol version: the
    /// stateless era); a request that says neither is served in the handshake era meanwhile.
    fn decide_era(&self, message: &serde_json::Map<String, Value>) {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return;
        };
        let versioned = message
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .is_some();
        let stateless = method == "server/discover" || versioned;
        if stateless || method == "initialize" {
            self.stateless.store(stateless, Ordering::Relaxed);
            self.era_decided.store(true, Ordering::Relaxed);
        }
    }

    /// Handles one JSON-RPC message; returns the response, if one is due. The quirks that change
    /// a reply act here, as data.
    async fn handle_message(
        &self,
        session: &Session,
        message: Value,
        sink: &Sink,
    ) -> Option<Value> {
        if !self.quirks.replies() {
            return self.answer_message(session, message, sink).await;
        }
        let copy = message.clone();
        let reply = self.answer_message(session, message, sink).await;
        self.quirks.replied(&copy, reply)
    }

    /// One JSON-RPC message, answered as the conformant server answers it.
    async fn answer_message(
        &self,
        session: &Session,
        message: Value,
        sink: &Sink,
    ) -> Option<Value> {
        let Value::Object(message) = message else {
            return Some(self.error(Value::Null, -32600, "Invalid Request: not an object", None));
        };
        // Over stdio a connection's era is decided once; over HTTP each request has its own.
        if self.dual_era
            && !self.era_decided.load(Ordering::Relaxed)
            && ERA.try_with(|_| ()).is_err()
        {
            self.decide_era(&message);
        }
        let id = message.get("id").cloned();
        let id_ok = match &id {
            None => true,
            Some(Value::String(_)) => true,
            Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
            Some(Value::Object(_)) => self.quirks.waives(Waiver::ObjectId),
            Some(Value::Null) => self.quirks.waives(Waiver::NullId),
            Some(_) => false,
        };
        let version_ok = message.get("jsonrpc") == Some(&json!("2.0"))
            || (self.quirks.waives(Waiver::JsonrpcVersion) && message.contains_key("jsonrpc"));
        if !message.contains_key("method")
            && (message.contains_key("result") || message.contains_key("error"))
        {
            // A response to a request of ours: to whoever waits for it (a tool asking the
            // client to sample or elicit); roots and pings are not waited for.
            let key = id.as_ref().map(Value::to_string).unwrap_or_default();
            let waiter = session.awaiting.lock().expect("awaiting lock").remove(&key);
            if let Some(waiter) = waiter {
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
        if self.quirks.demands(Demand::IntegerId) && id.as_ref().is_some_and(Value::is_string) {
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

    /// A notification, which is never answered: `notifications/initialized` ends the handshake;
    /// the server keeps nothing of the others.
    fn handle_notification(&self, session: &Session, method: &str) -> Option<Value> {
        if method == "notifications/initialized" {
            session.initialized.store(true, Ordering::Relaxed);
        }
        None
    }

    /// A request, answered by its era's dispatch ([`Server::handle_handshake`] or
    /// [`Server::handle_stateless`]), with the quirks that change an answer applied.
    async fn handle_request(
        &self,
        session: &Session,
        id: &Value,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        let outcome = if self.stateless() {
            self.handle_stateless(session, id, method, params, sink)
                .await
        } else {
            // The quirks that change what a handler answered act here, as data (in the
            // stateless era, before the era's members are added to a result).
            let outcome = self.handle_handshake(session, method, params, sink).await;
            self.quirks.answer(Era::Handshake, method, params, outcome)
        };
        // So do those that send a notification along with an answer, before it goes.
        for notice in self.quirks.notices(method, params, &outcome) {
            let _ = sink.send(notice);
        }
        outcome
    }

    /// A request of the handshake era: before `initialize`, only `initialize` and `ping`.
    ///
    /// Long by design: one arm per method the era serves itself.
    async fn handle_handshake(
        &self,
        session: &Session,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
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
                        session
                            .early_request
                            .store(self.quirks.demands(Demand::CleanStart), Ordering::Relaxed);
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
                if self.quirks.demands(Demand::PingAfterInitialized)
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
                    Some(level) => {
                        if !self.quirks.waives(Waiver::SetLevel) {
                            *session.log_level.lock().expect("log level lock") = Some(level);
                        }
                        Ok(json!({}))
                    }
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
            && !self.quirks.waives(Waiver::TaskListenExtension)
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
        let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": honoured, "_meta": tag}});
        for message in self.quirks.opening("subscriptions/listen", &tag, vec![ack]) {
            let _ = sink.send(message);
        }
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
        Ok(json!({"_meta": tag}))
    }

    /// The list-change fixtures (2026-07-28): every subscription acknowledged for `method`
    /// gets the notification, tagged with its id. Returns how many did.
    fn announce(&self, method: &str) -> usize {
        if self.quirks.waives(Waiver::ListChanges) {
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
        if self.stateless()
            || !session.client_roots.load(Ordering::Relaxed)
            || session.asked_roots.swap(true, Ordering::Relaxed)
        {
            return;
        }
        // The server also checks once that the client is alive, and withdraws the question at
        // once: either side may cancel a request it issued.
        let opening = vec![
            json!({"jsonrpc": "2.0", "id": "ref-roots-1", "method": "roots/list"}),
            json!({"jsonrpc": "2.0", "id": "ref-ping-1", "method": "ping"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "ref-ping-1", "reason": "no longer needed"}}),
        ];
        for message in self.quirks.opening("roots/list", &Value::Null, opening) {
            let _ = sink.send(message);
        }
    }

    /// Sends a request to the client on the current request's stream (its params as the
    /// quirks that are on ask it, in an exchange at `version`) and waits (up to 10 s) for the
    /// answer; `None` if none came.
    async fn ask_client(
        &self,
        session: &Session,
        sink: &Sink,
        version: &str,
        method: &str,
        mut params: Value,
    ) -> Option<Value> {
        self.quirks.ask(method, version, &mut params);
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
        Ok(json!({}))
    }

    fn unknown_method(&self, method: &str) -> Outcome {
        Err((
            -32601,
            "Method not found".into(),
            Some(json!({"method": method})),
        ))
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

fn is_request(message: &Value) -> bool {
    message.get("method").is_some() && message.get("id").is_some()
}
