//! One conversation with a server over either transport: sending frames, matching responses to
//! requests, answering the server's own requests, the handshake and era detection.
//!
//! A session records everything in its [`Transcript`]. It judges nothing: it reports what came
//! back (a message, nothing, an HTTP rejection, a closed connection) and leaves verdicts to checks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot, watch};

use crate::record::exchange::{client_capabilities, client_info};
use crate::record::transcript::{HttpRecord, MAX_FRAME_TEXT};
use crate::record::version::{Era, KNOWN_VERSIONS, LATEST_STATELESS};
use crate::record::{id_key, Exchange, ExitReport, HttpFacts, Reply};
use crate::transport::http::{self, HttpRequest, HttpResponse};
use crate::transport::legacy::{LegacySse, Posted, Tagged};
use crate::transport::stdio::{Inbound, StdioProcess, StdoutReader};
use crate::transport::{Direction, HttpSpec, Limits, Target, Transcript};

/// A frame to send.
#[derive(Clone, Debug)]
pub enum Outgoing {
    /// A request with the given id.
    Request {
        /// The id, of any JSON type the scenario chose.
        id: Value,
        /// The method.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
    /// A notification.
    Notification {
        /// The method.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
    /// Bytes exactly as written (a stdio line or an HTTP body).
    Raw {
        /// The text to send.
        text: String,
    },
}

impl Outgoing {
    fn method(&self) -> Option<&str> {
        match self {
            Outgoing::Request { method, .. } | Outgoing::Notification { method, .. } => {
                Some(method)
            }
            Outgoing::Raw { .. } => None,
        }
    }
}

/// stdio and HTTP+SSE: returns once a notification of `method` has arrived on the link, counting from its
/// `from`-th notification.
async fn notified_since(link: &StreamLink, from: usize, method: &str) {
    let arrived = || {
        link.notifications
            .lock()
            .expect("notifications lock")
            .get(from..)
            .unwrap_or_default()
            .iter()
            .any(|n| n.get("method").and_then(Value::as_str) == Some(method))
    };
    while !arrived() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Per-frame options.
#[derive(Clone, Debug, Default)]
pub struct SendOptions {
    /// Headers to add or replace (HTTP).
    pub headers: Vec<(String, String)>,
    /// Headers to leave out (HTTP), including ones mcpcheck would send by default.
    pub omit_headers: Vec<String>,
    /// Stateless era: `_meta` entries mcpcheck would add that are left out (`_meta`: all of it).
    pub omit_meta: Vec<String>,
    /// How long to wait for an unexpected reply to a notification or raw frame.
    pub wait: Option<Duration>,
    /// stdio: after a notification or raw frame, wait this long for whatever comes back, with no
    /// barrier ping to cut the wait short.
    pub hold: Option<Duration>,
    /// HTTP: drop a request's SSE stream after this many events (stdio: ignored).
    pub drop_after_events: Option<usize>,
    /// A request that opens a stream (`subscriptions/listen`): stop waiting once a notification
    /// of this method has arrived, with no response (HTTP: the stream is closed then).
    pub until_notified: Option<String>,
    /// A request that runs in the background: signalled once a notification of this method has
    /// arrived during it, so that the steps after it may start.
    pub ready: Option<(String, Arc<tokio::sync::Notify>)>,
    /// How long to wait for the response to a request (defaults to the session's timeout).
    pub timeout: Option<Duration>,
    /// Whether a response with an id that matches nothing counts as the reply (isolated sessions).
    pub accept_unmatched: bool,
    /// HTTP: send with this method (`GET`, `DELETE`) and no body instead of POSTing the frame.
    pub http_method: Option<String>,
}

/// What the session learned about the server.
#[derive(Clone, Debug, Default)]
pub struct SessionInfo {
    /// The wire era.
    pub era: Option<Era>,
    /// The negotiated protocol version.
    pub version: Option<String>,
    /// `serverInfo` (handshake era) or `_meta` server info (stateless era).
    pub server_info: Option<Value>,
    /// The server's capabilities.
    pub capabilities: Option<Value>,
    /// HTTP: the session id the server issued.
    pub http_session: Option<String>,
    /// Stateless era: the versions `server/discover` listed.
    pub supported_versions: Vec<String>,
    /// 2026-07-28: per tool, the arguments its inputSchema marks with `x-mcp-header` (the path
    /// of property names, and the header name), mirrored into `Mcp-Param-*` headers.
    pub param_headers: HashMap<String, Vec<(Vec<String>, String)>>,
}

/// A session with one server.
pub struct Session {
    link: Link,
    /// Everything that crossed the wire.
    pub transcript: Arc<Mutex<Transcript>>,
    info: Mutex<SessionInfo>,
    limits: Limits,
    next_id: AtomicI64,
}

enum Link {
    /// stdio, or the HTTP+SSE transport: one stream of messages from the server, matched to
    /// requests as they come.
    Stream(Arc<StreamLink>),
    /// Streamable HTTP: each request's answer comes in its own HTTP response.
    Http(Box<HttpLink>),
}

/// What carries a stream-shaped link's frames.
enum Pipe {
    /// A child process's stdin and stdout, and the flag its stdout reader sets once it has
    /// produced anything (until then the server may still be starting, and a request may wait
    /// up to the start-up allowance).
    Process(StdioProcess, Arc<std::sync::atomic::AtomicBool>),
    /// The 2024-11-05 HTTP+SSE transport: POSTs out, an SSE stream in.
    Sse(LegacySse),
}

/// Why a frame could not be handed to the server.
enum Unsent {
    /// The server is gone (stdin closed, the stream or connection failed).
    Closed(String),
    /// HTTP+SSE: the POST got an error status.
    Rejected { status: u16, body: String },
}

impl Pipe {
    /// Hands one frame (a JSON text, no newline) to the server; over HTTP+SSE the POST carries
    /// `headers` too and leaves out those named in `omit`.
    async fn write(
        &self,
        frame: &str,
        headers: &[(String, String)],
        omit: &[String],
    ) -> Result<(), Unsent> {
        match self {
            Pipe::Process(process, _) => process
                .write(format!("{frame}\n").as_bytes())
                .await
                .map_err(Unsent::Closed),
            Pipe::Sse(sse) => match sse.post(frame, headers, omit).await {
                Ok(Posted::Accepted) => Ok(()),
                Ok(Posted::Rejected { status, body }) => Err(Unsent::Rejected { status, body }),
                Err(e) => Err(Unsent::Closed(e)),
            },
        }
    }
}

struct StreamLink {
    pipe: Pipe,
    pending: Mutex<HashMap<String, oneshot::Sender<(Value, String)>>>,
    /// Ids of our requests that timed out: a late answer to one is not a reply to anything else.
    abandoned: Mutex<std::collections::HashSet<String>>,
    /// Ids whose response was delivered: a second response to one is the server's duplicate,
    /// recorded in the transcript (and judged there), never taken for the reply to a later step.
    delivered: Mutex<std::collections::HashSet<String>>,
    /// Ids of the requests mcpcheck sent on this connection: only a response to one of them can
    /// be a duplicate (a server that answers with an id of its own making is judged elsewhere).
    sent_ids: Mutex<std::collections::HashSet<String>>,
    unmatched: tokio::sync::Mutex<mpsc::Receiver<(Value, String)>>,
    notifications: Mutex<Vec<Value>>,
    /// The requests the server sent, in order.
    server_requests: Mutex<Vec<Value>>,
    /// The bytes of notifications and server requests kept so far (at most [`MAX_NOTE_BYTES`]).
    kept_bytes: std::sync::atomic::AtomicUsize,
    /// The run's evidence budget, which what is kept here draws on too.
    budget: crate::transport::Budget,
    /// Set once a request waited out the whole start-up allowance on a silent server: the
    /// allowance is given once per connection, not once per request.
    allowance_spent: std::sync::atomic::AtomicBool,
    /// The client capabilities this connection declared (what mcpcheck answers).
    declared: Mutex<Value>,
    closed: watch::Receiver<bool>,
}

impl StreamLink {
    /// Whether a message of `bytes` may still be kept (counting it, on this connection and in
    /// the run's budget, if so).
    fn keep(&self, bytes: usize) -> bool {
        self.kept_bytes
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |kept| {
                (kept + bytes <= MAX_NOTE_BYTES).then_some(kept + bytes)
            })
            .is_ok()
            && self.budget.take(bytes)
    }

    /// Whether the server has been heard from (stdout spoke, or the SSE stream named its
    /// endpoint).
    fn heard(&self) -> bool {
        match &self.pipe {
            Pipe::Process(_, heard) => heard.load(Ordering::Relaxed),
            Pipe::Sse(sse) => sse.heard(),
        }
    }
}

struct HttpLink {
    spec: HttpSpec,
    /// Ids of the requests mcpcheck cancelled: a stream of theirs that ends early is not
    /// resumed.
    cancelled: Mutex<std::collections::HashSet<String>>,
    /// The client capabilities this connection declared (what mcpcheck answers).
    declared: Mutex<Value>,
}

/// How many notifications (and, apart, server requests) a connection keeps.
const MAX_NOTIFICATIONS: usize = 1_000;

/// How long a request that took an unclaimed reply still waits for its own answer.
const UNCLAIMED_GRACE: Duration = Duration::from_millis(250);

/// About what a parsed message costs beyond its text (its maps and their entries).
const VALUE_OVERHEAD: usize = 1024;

/// How many bytes of notifications and server requests a connection keeps; a flood beyond is
/// still answered and recorded in the transcript (within its own bounds), not kept here.
const MAX_NOTE_BYTES: usize = 2 << 20;

impl Session {
    /// Starts the server (stdio) or prepares the endpoint (HTTP). Nothing is sent yet.
    pub fn open(target: &Target, limits: &Limits) -> Result<Session, String> {
        let transcript = Arc::new(Mutex::new(Transcript::new(
            limits.tap.clone(),
            limits.evidence.clone(),
        )));
        let link = match target {
            Target::Stdio(spec) => {
                let (process, events) = StdioProcess::spawn(spec, limits)?;
                let heard = events.heard();
                Link::Stream(Self::stream_link(
                    Pipe::Process(process, heard),
                    Source::Stdout(events),
                    &transcript,
                    &limits.evidence,
                ))
            }
            Target::Http(spec) if spec.legacy_sse => {
                http::parse_url(&spec.url)?;
                let (sse, received) = LegacySse::connect(spec, limits, transcript.clone());
                Link::Stream(Self::stream_link(
                    Pipe::Sse(sse),
                    Source::Sse(received),
                    &transcript,
                    &limits.evidence,
                ))
            }
            Target::Http(spec) => {
                http::parse_url(&spec.url)?;
                Link::Http(Box::new(HttpLink {
                    spec: spec.clone(),
                    cancelled: Mutex::new(std::collections::HashSet::new()),
                    declared: Mutex::new(client_capabilities()),
                }))
            }
        };
        Ok(Session {
            link,
            transcript,
            info: Mutex::new(SessionInfo::default()),
            limits: limits.clone(),
            next_id: AtomicI64::new(1),
        })
    }

    /// A stream-shaped link, with its dispatcher running.
    fn stream_link(
        pipe: Pipe,
        source: Source,
        transcript: &Arc<Mutex<Transcript>>,
        budget: &crate::transport::Budget,
    ) -> Arc<StreamLink> {
        let (unmatched_tx, unmatched_rx) = mpsc::channel(64);
        let (closed_tx, closed_rx) = watch::channel(false);
        let link = Arc::new(StreamLink {
            pipe,
            pending: Mutex::new(HashMap::new()),
            abandoned: Mutex::new(std::collections::HashSet::new()),
            delivered: Mutex::new(std::collections::HashSet::new()),
            sent_ids: Mutex::new(std::collections::HashSet::new()),
            unmatched: tokio::sync::Mutex::new(unmatched_rx),
            notifications: Mutex::new(Vec::new()),
            server_requests: Mutex::new(Vec::new()),
            kept_bytes: std::sync::atomic::AtomicUsize::new(0),
            budget: budget.clone(),
            allowance_spent: std::sync::atomic::AtomicBool::new(false),
            declared: Mutex::new(client_capabilities()),
            closed: closed_rx,
        });
        tokio::spawn(dispatch(
            Arc::downgrade(&link),
            source,
            unmatched_tx,
            closed_tx,
            transcript.clone(),
        ));
        link
    }

    /// What the session knows about the server.
    pub fn info(&self) -> SessionInfo {
        self.info.lock().expect("info lock").clone()
    }

    /// Sets what the session knows (used when a scenario's session inherits the main one's era).
    pub fn set_info(&self, info: SessionInfo) {
        *self.info.lock().expect("info lock") = info;
    }

    /// Learns, from the listed tools, which arguments travel in `Mcp-Param-*` headers too.
    pub fn learn_tools(&self, tools: &HashMap<String, Value>) {
        let headers = tools
            .iter()
            .filter_map(|(name, tool)| {
                let marked = param_header_paths(tool.get("inputSchema")?);
                (!marked.is_empty()).then(|| (name.clone(), marked))
            })
            .collect();
        self.info.lock().expect("info lock").param_headers = headers;
    }

    /// The limits this session runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The server's stderr so far (stdio).
    pub fn stderr_tail(&self) -> Option<String> {
        match &self.link {
            Link::Stream(link) => match &link.pipe {
                Pipe::Process(process, _) => Some(process.stderr_tail()),
                Pipe::Sse(_) => None,
            },
            Link::Http(_) => None,
        }
    }

    /// A fresh id for a request mcpcheck makes on its own account.
    pub fn next_id(&self) -> Value {
        json!(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Sends a request with a fresh id and returns the exchange.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Exchange {
        let id = self.next_id();
        self.send(
            Outgoing::Request {
                id,
                method: method.into(),
                params,
            },
            &SendOptions::default(),
        )
        .await
    }

    /// Sends one frame and waits for what comes back.
    pub async fn send(&self, outgoing: Outgoing, options: &SendOptions) -> Exchange {
        let outgoing = self.with_meta(outgoing, &options.omit_meta);
        let initialize =
            matches!(&outgoing, Outgoing::Request { method, .. } if method == "initialize");
        if let (true, Outgoing::Request { params, .. }) = (initialize, &outgoing) {
            // What this connection declares is what mcpcheck then answers the server.
            let declared = params
                .as_ref()
                .and_then(|p| p.get("capabilities"))
                .cloned()
                .unwrap_or_else(|| json!({}));
            let slot = match &self.link {
                Link::Stream(link) => &link.declared,
                Link::Http(link) => &link.declared,
            };
            *slot.lock().expect("declared lock") = declared;
        }
        let exchange = match &self.link {
            Link::Stream(link) => self.send_stream(link, outgoing, options).await,
            Link::Http(link) => self.send_http(link, outgoing, options).await,
        };
        if initialize {
            self.learn_version(&exchange);
        }
        exchange
    }

    /// A session that runs its own `initialize` (a bare one) adopts the version it negotiated,
    /// so that later requests carry the matching `MCP-Protocol-Version` header.
    fn learn_version(&self, exchange: &Exchange) {
        let Reply::Message { message, .. } = &exchange.reply else {
            return;
        };
        let Some(version) = message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        else {
            return;
        };
        let mut info = self.info.lock().expect("info lock");
        if info.version.is_none() && Era::of(version) == Some(Era::Handshake) {
            info.era = Some(Era::Handshake);
            info.version = Some(version.to_string());
        }
    }

    /// In the stateless era every request carries its version and capabilities in `_meta`.
    fn with_meta(&self, outgoing: Outgoing, omit: &[String]) -> Outgoing {
        let version = {
            let info = self.info.lock().expect("info lock");
            match (info.era, &info.version) {
                (Some(Era::Stateless), Some(version)) => version.clone(),
                _ => return outgoing,
            }
        };
        match outgoing {
            Outgoing::Request { id, method, params } => {
                let mut params = params.unwrap_or_else(|| json!({}));
                if let Some(object) = params.as_object_mut() {
                    let meta = object.entry("_meta").or_insert_with(|| json!({}));
                    if let Some(meta) = meta.as_object_mut() {
                        let defaults = [
                            ("io.modelcontextprotocol/protocolVersion", json!(version)),
                            (
                                "io.modelcontextprotocol/clientCapabilities",
                                client_capabilities(),
                            ),
                            ("io.modelcontextprotocol/clientInfo", client_info()),
                        ];
                        for (key, value) in defaults {
                            if !omit.iter().any(|o| o == key) {
                                meta.entry(key).or_insert(value);
                            }
                        }
                    }
                    if omit.iter().any(|o| o == "_meta") {
                        object.remove("_meta");
                    }
                }
                Outgoing::Request {
                    id,
                    method,
                    params: Some(params),
                }
            }
            other => other,
        }
    }

    fn render(outgoing: &Outgoing) -> String {
        let frame = |id: Option<&Value>, method: &str, params: &Option<Value>| {
            let mut message = Map::new();
            message.insert("jsonrpc".into(), json!("2.0"));
            if let Some(id) = id {
                message.insert("id".into(), id.clone());
            }
            message.insert("method".into(), json!(method));
            if let Some(params) = params {
                message.insert("params".into(), params.clone());
            }
            Value::Object(message).to_string()
        };
        match outgoing {
            Outgoing::Request { id, method, params } => frame(Some(id), method, params),
            Outgoing::Notification { method, params } => frame(None, method, params),
            Outgoing::Raw { text } => text.clone(),
        }
    }

    async fn send_stream(
        &self,
        link: &Arc<StreamLink>,
        outgoing: Outgoing,
        options: &SendOptions,
    ) -> Exchange {
        let started = Instant::now();
        let text = Self::render(&outgoing);
        if let (Pipe::Sse(sse), Some(_)) = (&link.pipe, &options.http_method) {
            return Self::probe_sse(sse, text, options, started).await;
        }
        // A step that takes an unclaimed reply takes one that comes after it was sent: whatever
        // nobody claimed before (a late or duplicated answer to an earlier step) is let go.
        let takes_unclaimed = options.accept_unmatched
            || options.hold.is_some()
            || !matches!(outgoing, Outgoing::Request { .. });
        if takes_unclaimed {
            let mut unmatched = link.unmatched.lock().await;
            while unmatched.try_recv().is_ok() {}
        }
        // The id of a request mcpcheck built is known; a raw frame's is read from its text.
        let sent_id = match &outgoing {
            Outgoing::Request { id, .. } => Some(id.clone()),
            Outgoing::Notification { .. } => None,
            Outgoing::Raw { text } => serde_json::from_str::<Value>(text)
                .ok()
                .filter(|m| m.get("method").is_some())
                .and_then(|m| m.get("id").cloned()),
        };
        if let Some(id) = sent_id.filter(|id| !id.is_null()).map(|id| id_key(&id)) {
            link.sent_ids.lock().expect("sent ids lock").insert(id);
        }
        let notes_before = link.notifications.lock().expect("notifications lock").len();
        let requests_before = link
            .server_requests
            .lock()
            .expect("server requests lock")
            .len();
        // Checks judge what the server sent; the frames mcpcheck sent are kept as text only.
        self.transcript.lock().expect("transcript lock").push(
            Direction::Sent,
            &text,
            None,
            None,
            None,
        );
        if options.accept_unmatched || !matches!(outgoing, Outgoing::Request { .. }) {
            // Replies that nobody claimed belong to earlier frames, not to this one.
            let mut unmatched = link.unmatched.lock().await;
            while unmatched.try_recv().is_ok() {}
        }
        let waiter = match &outgoing {
            Outgoing::Request { id, .. } => {
                let (tx, rx) = oneshot::channel();
                link.pending
                    .lock()
                    .expect("pending lock")
                    .insert(id_key(id), tx);
                Some(rx)
            }
            _ => None,
        };
        let written = link
            .pipe
            .write(
                text.strip_suffix('\n').unwrap_or(&text),
                &options.headers,
                &options.omit_headers,
            )
            .await;
        if let (Err(_), Outgoing::Request { id, .. }) = (&written, &outgoing) {
            link.pending
                .lock()
                .expect("pending lock")
                .remove(&id_key(id));
        }
        // HTTP+SSE: the status of a POST the server refused, as evidence.
        let mut http_facts = None;
        let reply = if let Err(unsent) = written {
            match unsent {
                Unsent::Closed(detail) => Reply::Closed {
                    detail: self.closed_detail(link, &detail).await,
                },
                Unsent::Rejected { status, body } => {
                    http_facts = Some(HttpFacts {
                        status,
                        ..HttpFacts::default()
                    });
                    Reply::Rejected { status, body }
                }
            }
        } else {
            match (waiter, &outgoing) {
                (Some(rx), Outgoing::Request { id, .. }) => {
                    let timeout = options.timeout.unwrap_or(self.limits.request_timeout);
                    // A server not heard from yet may still be starting: it gets up to the
                    // start-up allowance, and `timeout` from its first output.
                    let allowance = (!link.heard() && !link.allowance_spent.load(Ordering::SeqCst))
                        .then_some(self.limits.startup_timeout);
                    let awaited = async {
                        match options.until_notified.as_deref() {
                            None => {
                                self.await_response(
                                    link,
                                    rx,
                                    timeout,
                                    allowance,
                                    options.accept_unmatched,
                                )
                                .await
                            }
                            Some(until) => {
                                let started = Instant::now();
                                tokio::select! {
                                    reply = self.await_response(link, rx, timeout, allowance, options.accept_unmatched) => reply,
                                    () = notified_since(link, notes_before, until) => Reply::Nothing {
                                        waited_ms: started.elapsed().as_millis() as u64,
                                    },
                                }
                            }
                        }
                    };
                    // A background request signals the steps after it once its notification came.
                    let ready = async {
                        let Some((method, notify)) = &options.ready else {
                            return std::future::pending().await;
                        };
                        notified_since(link, notes_before, method).await;
                        notify.notify_one();
                        std::future::pending::<()>().await
                    };
                    let reply = tokio::select! {
                        reply = awaited => reply,
                        () = ready => unreachable!("the ready signal never ends"),
                    };
                    link.pending
                        .lock()
                        .expect("pending lock")
                        .remove(&id_key(id));
                    if matches!(reply, Reply::Nothing { .. }) {
                        link.abandoned
                            .lock()
                            .expect("abandoned lock")
                            .insert(id_key(id));
                    }
                    if let Reply::Message { message, .. } = &reply {
                        if let Some(got) = message.get("id") {
                            self.transcript
                                .lock()
                                .expect("transcript lock")
                                .id_pairs
                                .push((id.clone(), got.clone()));
                        }
                    }
                    reply
                }
                _ if options.hold.is_some() => {
                    self.await_hold(link, options.hold.unwrap_or_default())
                        .await
                }
                (_, Outgoing::Raw { .. }) => {
                    self.await_unmatched(link, options.wait.unwrap_or(self.limits.request_timeout))
                        .await
                }
                _ => {
                    self.await_unmatched(link, options.wait.unwrap_or(Duration::from_millis(300)))
                        .await
                }
            }
        };
        let notifications = link
            .notifications
            .lock()
            .expect("notifications lock")
            .get(notes_before..)
            .unwrap_or_default()
            .to_vec();
        let server_requests = link
            .server_requests
            .lock()
            .expect("server requests lock")
            .get(requests_before..)
            .unwrap_or_default()
            .to_vec();
        // HTTP+SSE: the step's own headers went with the POST.
        let sent_headers = match &link.pipe {
            Pipe::Sse(_) => options.headers.clone(),
            Pipe::Process(..) => Vec::new(),
        };
        Exchange {
            sent: text,
            sent_headers,
            reply,
            notifications,
            server_requests,
            http: http_facts,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }

    /// HTTP+SSE: a `GET` step opens the SSE endpoint once more with the step's headers (a
    /// probe, outside the conversation), reads what comes for its `hold` (half a second unless
    /// given), and closes it.
    async fn probe_sse(
        sse: &LegacySse,
        text: String,
        options: &SendOptions,
        started: Instant,
    ) -> Exchange {
        let hold = options.hold.unwrap_or(Duration::from_millis(500));
        let (reply, http) = match sse
            .probe(&options.headers, &options.omit_headers, hold)
            .await
        {
            Ok(response) => {
                let reply = if response.status >= 400 {
                    Reply::Rejected {
                        status: response.status,
                        body: response.body.clone(),
                    }
                } else {
                    Reply::Nothing {
                        waited_ms: started.elapsed().as_millis() as u64,
                    }
                };
                let facts = HttpFacts {
                    status: response.status,
                    headers: response.headers,
                    events: response.events,
                    ..HttpFacts::default()
                };
                (reply, Some(facts))
            }
            Err(detail) => (Reply::Closed { detail }, None),
        };
        Exchange {
            sent: text,
            sent_headers: options.headers.clone(),
            reply,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            http,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }

    async fn await_response(
        &self,
        link: &Arc<StreamLink>,
        rx: oneshot::Receiver<(Value, String)>,
        timeout: Duration,
        allowance: Option<Duration>,
        accept_unmatched: bool,
    ) -> Reply {
        enum Got {
            Message(Value, String),
            Unclaimed(Value, String),
            Dropped,
            Eof,
            Timeout(Duration),
        }
        let mut closed = link.closed.clone();
        let mut rx = rx;
        let got = {
            let mut unmatched = if accept_unmatched {
                Some(link.unmatched.lock().await)
            } else {
                None
            };
            tokio::select! {
                biased;
                got = &mut rx => match got {
                    Ok((message, text)) => Got::Message(message, text),
                    Err(_) => Got::Dropped,
                },
                Some((message, text)) = async { match unmatched.as_mut() { Some(u) => u.recv().await, None => std::future::pending().await } } => {
                    Got::Unclaimed(message, text)
                }
                _ = async { let _ = closed.wait_for(|c| *c).await; } => Got::Eof,
                waited = time_limit(link, timeout, allowance) => Got::Timeout(waited),
            }
        };
        match got {
            Got::Message(message, text) => Reply::Message { message, text },
            Got::Unclaimed(message, text) => {
                // An unclaimed reply (another id, or none) may be the late or duplicated answer
                // to an earlier step: the request's own answer, if it follows at once, wins.
                if let Ok(Ok((own, own_text))) =
                    tokio::time::timeout(UNCLAIMED_GRACE, &mut rx).await
                {
                    return Reply::Message {
                        message: own,
                        text: own_text,
                    };
                }
                Reply::Message { message, text }
            }
            Got::Timeout(waited) => Reply::Nothing {
                waited_ms: waited.as_millis() as u64,
            },
            Got::Dropped => Reply::Closed {
                detail: self.closed_detail(link, "stdout closed").await,
            },
            Got::Eof => {
                // A response that came just before EOF may still be on its way to the waiter.
                if let Ok(Ok((message, text))) =
                    tokio::time::timeout(Duration::from_millis(50), &mut rx).await
                {
                    return Reply::Message { message, text };
                }
                Reply::Closed {
                    detail: self.closed_detail(link, "stdout closed").await,
                }
            }
        }
    }

    /// Waits the whole of `hold` for the next response nobody else claims (a late answer).
    async fn await_hold(&self, link: &Arc<StreamLink>, hold: Duration) -> Reply {
        let mut closed = link.closed.clone();
        let mut unmatched = link.unmatched.lock().await;
        tokio::select! {
            got = unmatched.recv() => match got {
                Some((message, text)) => Reply::Message { message, text },
                None => Reply::Closed { detail: self.closed_detail(link, "stdout closed").await },
            },
            _ = async { let _ = closed.wait_for(|c| *c).await; } => Reply::Closed {
                detail: self.closed_detail(link, "stdout closed").await,
            },
            _ = tokio::time::sleep(hold) => Reply::Nothing { waited_ms: hold.as_millis() as u64 },
        }
    }

    /// Waits for a reply to a frame that has no id of ours (a notification, a raw frame): the
    /// next response nobody else claims. A `ping` is sent behind the frame as a barrier: a
    /// server answers in order, so once the ping is answered (and a short grace has passed for
    /// servers that answer concurrently), any reply to the frame would have come.
    async fn await_unmatched(&self, link: &Arc<StreamLink>, wait: Duration) -> Reply {
        const GRACE: Duration = Duration::from_millis(50);
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + wait;
        let mut closed = link.closed.clone();
        let barrier_id = self.next_id();
        let (tx, barrier) = oneshot::channel();
        link.pending
            .lock()
            .expect("pending lock")
            .insert(id_key(&barrier_id), tx);
        link.sent_ids
            .lock()
            .expect("sent ids lock")
            .insert(id_key(&barrier_id));
        let ping = json!({"jsonrpc": "2.0", "id": barrier_id, "method": "ping"}).to_string();
        self.transcript.lock().expect("transcript lock").push(
            Direction::Sent,
            &ping,
            serde_json::from_str(&ping).ok(),
            None,
            None,
        );
        let barrier_sent = link.pipe.write(&ping, &[], &[]).await.is_ok();
        let got = {
            let mut unmatched = link.unmatched.lock().await;
            let barrier = async move {
                if barrier_sent {
                    let _ = barrier.await;
                } else {
                    std::future::pending::<()>().await;
                }
            };
            tokio::pin!(barrier);
            let mut until = deadline;
            let mut barrier_done = false;
            let got = loop {
                tokio::select! {
                    biased;
                    got = unmatched.recv() => break got,
                    _ = &mut barrier, if !barrier_done => {
                        barrier_done = true;
                        until = until.min(tokio::time::Instant::now() + GRACE);
                    }
                    _ = async { let _ = closed.wait_for(|c| *c).await; } => {
                        // The server may have answered just before it went away.
                        break tokio::time::timeout(Duration::from_millis(50), unmatched.recv()).await.ok().flatten();
                    }
                    _ = tokio::time::sleep_until(until) => {
                        if !barrier_done {
                            link.abandoned.lock().expect("abandoned lock").insert(id_key(&barrier_id));
                        }
                        link.pending.lock().expect("pending lock").remove(&id_key(&barrier_id));
                        return Reply::Nothing { waited_ms: started.elapsed().as_millis() as u64 };
                    }
                }
            };
            if !barrier_done {
                // The barrier's answer may still come; it must not pass for a later reply.
                link.abandoned
                    .lock()
                    .expect("abandoned lock")
                    .insert(id_key(&barrier_id));
            }
            got
        };
        link.pending
            .lock()
            .expect("pending lock")
            .remove(&id_key(&barrier_id));
        match got {
            Some((message, text)) => Reply::Message { message, text },
            None => Reply::Closed {
                detail: self.closed_detail(link, "stdout closed").await,
            },
        }
    }

    async fn closed_detail(&self, link: &StreamLink, what: &str) -> String {
        match &link.pipe {
            Pipe::Process(process, _) => {
                for _ in 0..20 {
                    if let Some(status) = process.try_status().await {
                        return format!("the server exited ({status})");
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                format!("the server stopped talking: {what}")
            }
            Pipe::Sse(sse) => match sse.ended() {
                Some(why) if what == "stdout closed" => why,
                _ if what == "stdout closed" => "the SSE stream ended".into(),
                _ => what.to_string(),
            },
        }
    }

    fn http_headers(
        &self,
        spec: &HttpSpec,
        outgoing: &Outgoing,
        options: &SendOptions,
    ) -> Vec<(String, String)> {
        let info = self.info();
        let authority = http::parse_url(&spec.url)
            .ok()
            .and_then(|u| u.authority().map(|a| a.to_string()))
            .unwrap_or_default();
        let mut headers: Vec<(String, String)> = vec![
            ("Host".into(), authority),
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        if let Some(id) = &info.http_session {
            headers.push(("Mcp-Session-Id".into(), id.clone()));
        }
        match (info.era, &info.version) {
            (Some(Era::Stateless), Some(version)) => {
                headers.push(("MCP-Protocol-Version".into(), version.clone()));
                // Routing headers mirror the body; for raw frames, the body as far as it parses,
                // so that a raw frame tests its own defect rather than missing headers.
                let raw = match outgoing {
                    Outgoing::Raw { text } => serde_json::from_str::<Value>(text).ok(),
                    _ => None,
                };
                let method = outgoing.method().or_else(|| {
                    raw.as_ref()
                        .and_then(|m| m.get("method"))
                        .and_then(Value::as_str)
                });
                if let Some(method) = method {
                    headers.push(("Mcp-Method".into(), method.to_string()));
                }
                let params = match outgoing {
                    Outgoing::Request { params, .. } => params.as_ref(),
                    _ => raw.as_ref().and_then(|m| m.get("params")),
                };
                // The tasks extension routes by task: Mcp-Name is the taskId.
                let named = |p: &'_ Value| match method {
                    Some("tasks/get" | "tasks/update" | "tasks/cancel") => p.get("taskId").cloned(),
                    _ => p.get("name").or_else(|| p.get("uri")).cloned(),
                };
                if let Some(name) = params.and_then(named).as_ref().and_then(Value::as_str) {
                    headers.push(("Mcp-Name".into(), name.to_string()));
                    if method == Some("tools/call") {
                        for (path, header) in info.param_headers.get(name).into_iter().flatten() {
                            let arguments = params.and_then(|p| p.get("arguments"));
                            let value = path
                                .iter()
                                .try_fold(arguments, |v, key| Some(v?.get(key)))
                                .flatten();
                            if let Some(value) = value.and_then(header_value) {
                                headers.push((format!("Mcp-Param-{header}"), value));
                            }
                        }
                    }
                }
            }
            (_, Some(version)) if version.as_str() >= "2025-06-18" => {
                headers.push(("MCP-Protocol-Version".into(), version.clone()));
            }
            _ => {}
        }
        crate::transport::set_headers(
            &mut headers,
            spec.headers.iter().chain(&options.headers),
            &options.omit_headers,
        );
        headers
    }

    async fn send_http(
        &self,
        link: &HttpLink,
        outgoing: Outgoing,
        options: &SendOptions,
    ) -> Exchange {
        let started = Instant::now();
        let text = Self::render(&outgoing);
        if let Outgoing::Notification { method, params } = &outgoing {
            if let Some(target) = params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .filter(|_| method == "notifications/cancelled")
            {
                link.cancelled
                    .lock()
                    .expect("cancelled lock")
                    .insert(id_key(target));
            }
        }
        let had_session = self.info.lock().expect("info lock").http_session.is_some();
        let headers = self.http_headers(&link.spec, &outgoing, options);
        let method = options.http_method.clone().unwrap_or_else(|| "POST".into());
        let mut headers = headers;
        if method != "POST" {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
        }
        let body = if method == "POST" {
            text.clone().into_bytes()
        } else {
            Vec::new()
        };
        let request = HttpRequest {
            method: method.clone(),
            url: link.spec.url.clone(),
            headers: headers.clone(),
            body,
            stream_for: options.hold.filter(|_| method == "GET"),
            drop_after_events: options.drop_after_events.filter(|_| method == "POST"),
        };
        let awaited = match &outgoing {
            Outgoing::Request { id, .. } => Some(id_key(id)),
            _ => None,
        };
        let is_response = |m: &Value| {
            m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some())
        };
        let answered = |m: &Value| {
            is_response(m)
                && awaited
                    .as_ref()
                    .is_none_or(|key| m.get("id").map(id_key).as_ref() == Some(key))
        };
        let until = options.until_notified.as_deref();
        // A GET stream read for a while (`hold`) is read to the end of that while.
        let read_on = method == "GET" && options.hold.is_some();
        let done = |m: &Value| {
            if let Some((method, notify)) = &options.ready {
                if m.get("id").is_none()
                    && m.get("method").and_then(Value::as_str) == Some(method.as_str())
                {
                    notify.notify_one();
                }
            }
            !read_on
                && (answered(m)
                    || (m.get("id").is_none()
                        && until
                            .is_some_and(|u| m.get("method").and_then(Value::as_str) == Some(u))))
        };
        let (server_tx, mut server_rx) = mpsc::unbounded_channel::<Value>();
        let timeout = match &outgoing {
            Outgoing::Request { .. } => options.timeout.unwrap_or(self.limits.request_timeout),
            _ => options
                .timeout
                .unwrap_or(self.limits.request_timeout)
                .max(options.wait.unwrap_or_default()),
        };
        // Server-initiated requests that arrive on the stream are answered on POSTs of their own
        // while the stream is open: a server may wait for the answer before it responds.
        let answering = async {
            while let Some(server_request) = server_rx.recv().await {
                if server_request.get("method").is_none() || server_request.get("id").is_none() {
                    continue;
                }
                let declared = link.declared.lock().expect("declared lock").clone();
                let answer = answer_server_request(&server_request, &declared);
                let body = answer.to_string();
                let mut headers = self.http_headers(
                    &link.spec,
                    &Outgoing::Raw { text: body.clone() },
                    &SendOptions::default(),
                );
                headers.retain(|(n, _)| {
                    !n.eq_ignore_ascii_case("mcp-method") && !n.eq_ignore_ascii_case("mcp-name")
                });
                let post = HttpRequest {
                    method: "POST".into(),
                    url: link.spec.url.clone(),
                    headers,
                    body: body.into_bytes(),
                    stream_for: None,
                    drop_after_events: None,
                };
                // A server that never answers the POST of mcpcheck's answer holds it no longer
                // than a request.
                let _ = self.send_bounded(&post).await;
            }
        };
        let sending = async {
            let result = tokio::time::timeout(
                timeout,
                http::send(
                    &request,
                    self.limits.max_frame_bytes,
                    timeout,
                    Some(&server_tx),
                    &done,
                ),
            )
            .await;
            // SEP-1699 (2025-11-25): a server may close a request's SSE stream before the
            // response, once the stream has an event id; the client then resumes it with a GET
            // and Last-Event-ID, after the `retry` the server asked for.
            let resumed = match &result {
                Ok(Ok(response))
                    if method == "POST"
                        && until.is_none()
                        && self.info().era != Some(Era::Stateless)
                        && awaited.as_ref().is_some_and(|key| {
                            !link.cancelled.lock().expect("cancelled lock").contains(key)
                        }) =>
                {
                    self.resume_stream(
                        link,
                        response,
                        &answered,
                        &server_tx,
                        timeout.saturating_sub(started.elapsed()),
                    )
                    .await
                }
                _ => Vec::new(),
            };
            drop(server_tx);
            (result, resumed)
        };
        let ((result, resumed), ()) = tokio::join!(sending, answering);
        let carried = match &outgoing {
            Outgoing::Request { .. } => "request",
            Outgoing::Notification { .. } => "notification",
            Outgoing::Raw { .. } => "raw",
        };
        let mut record = HttpRecord {
            method: method.clone(),
            request_headers: headers.clone(),
            carried: if method == "POST" {
                carried.into()
            } else {
                method.to_ascii_lowercase()
            },
            ..HttpRecord::default()
        };
        let (reply, notifications, server_requests, facts) = match result {
            Err(_) => {
                record.error = Some(format!("no response within {} ms", timeout.as_millis()));
                (
                    Reply::Nothing {
                        waited_ms: timeout.as_millis() as u64,
                    },
                    Vec::new(),
                    Vec::new(),
                    None,
                )
            }
            Ok(Err(detail)) => {
                record.error = Some(detail.clone());
                (Reply::Closed { detail }, Vec::new(), Vec::new(), None)
            }
            Ok(Ok(response)) => {
                record.record_response(&response);
                self.learn_session(&outgoing, &response);
                record.closed_early = Some(
                    response.is_sse()
                        && awaited.is_some()
                        && until.is_none()
                        && !response.dropped
                        && !response.messages.iter().any(|(m, _)| answered(m)),
                );
                record.retry_sent = response.events.iter().any(|e| e.retry.is_some());
                // What the reply is read from: the messages of the response and of its
                // resumptions (not another copy of the events).
                let mut merged = HttpResponse {
                    status: response.status,
                    body: response.body.clone(),
                    messages: response.messages.clone(),
                    ..HttpResponse::default()
                };
                for (_, got) in &resumed {
                    merged.messages.extend(got.messages.iter().cloned());
                }
                let (reply, notifications, server_requests) = Self::http_reply(&merged, &answered);
                let facts = HttpFacts {
                    status: response.status,
                    headers: response.headers.clone(),
                    events: response.events.clone(),
                    session: had_session,
                    ended_early: record.closed_early == Some(true) && resumed.is_empty(),
                };
                (
                    reply,
                    notifications,
                    server_requests,
                    Some((facts, response)),
                )
            }
        };
        {
            let mut transcript = self.transcript.lock().expect("transcript lock");
            let post = transcript.push_post(record);
            let parsed = serde_json::from_str::<Value>(&text).ok();
            transcript.push(Direction::Sent, &text, parsed, None, Some(post));
            if let Some((_, response)) = &facts {
                for (message, raw) in &response.messages {
                    transcript.push(
                        Direction::Received,
                        raw,
                        Some(message.clone()),
                        None,
                        Some(post),
                    );
                }
                if let Some(issue) = &response.issue {
                    transcript.push(
                        Direction::Received,
                        &response.body,
                        None,
                        Some(issue.clone()),
                        Some(post),
                    );
                }
            }
            for (record, got) in resumed {
                let get = transcript.push_post(record);
                for (message, raw) in &got.messages {
                    transcript.push(
                        Direction::Received,
                        raw,
                        Some(message.clone()),
                        None,
                        Some(get),
                    );
                }
            }
            if let (Outgoing::Request { id, .. }, Reply::Message { message, .. }) =
                (&outgoing, &reply)
            {
                // An HTTP-level rejection with a null id (say, 400 for a missing session) was
                // refused before the request was read; it answers no request id.
                let rejected = facts.as_ref().is_some_and(|(f, _)| f.status >= 400)
                    && message.get("id") == Some(&Value::Null);
                if let Some(got) = message.get("id").filter(|_| !rejected) {
                    transcript.id_pairs.push((id.clone(), got.clone()));
                }
            }
        }
        let sent = if method == "POST" {
            text
        } else {
            format!("{method} {}", link.spec.url)
        };
        Exchange {
            sent,
            sent_headers: headers,
            reply,
            notifications,
            server_requests,
            http: facts.map(|(facts, _)| facts),
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }

    /// Resumes a POST's SSE stream that ended before its response (SEP-1699): up to three GETs
    /// with `Last-Event-ID`, each after the `retry` the server last asked for (at most 3 s), as
    /// long as time is left and each brings something new. Returns each GET's record and
    /// response; none if the stream needs no resuming.
    async fn resume_stream(
        &self,
        link: &HttpLink,
        response: &HttpResponse,
        answered: &(dyn Fn(&Value) -> bool + Send + Sync),
        server_tx: &mpsc::UnboundedSender<Value>,
        mut left: Duration,
    ) -> Vec<(HttpRecord, HttpResponse)> {
        let sse = response.is_sse();
        if !sse || response.dropped || response.messages.iter().any(|(m, _)| answered(m)) {
            return Vec::new();
        }
        let last_id = |events: &[crate::transport::sse::SseEvent]| {
            events.iter().rev().find_map(|e| e.id.clone())
        };
        let retry_of =
            |events: &[crate::transport::sse::SseEvent]| events.iter().rev().find_map(|e| e.retry);
        let mut last = last_id(&response.events);
        let mut retry = retry_of(&response.events).unwrap_or(0);
        let mut out = Vec::new();
        for _ in 0..3 {
            let Some(id) = last.clone() else { break };
            let wait = Duration::from_millis(retry.min(3000));
            if wait >= left {
                break;
            }
            tokio::time::sleep(wait).await;
            left -= wait;
            let mut headers = self.http_headers(
                &link.spec,
                &Outgoing::Raw {
                    text: String::new(),
                },
                &SendOptions::default(),
            );
            headers.retain(|(n, _)| {
                !["content-type", "mcp-method", "mcp-name"]
                    .iter()
                    .any(|h| n.eq_ignore_ascii_case(h))
            });
            headers.push(("Last-Event-ID".into(), id));
            let get = HttpRequest {
                method: "GET".into(),
                url: link.spec.url.clone(),
                headers: headers.clone(),
                body: Vec::new(),
                stream_for: Some(left),
                drop_after_events: None,
            };
            let began = Instant::now();
            let got = tokio::time::timeout(
                left,
                http::send(
                    &get,
                    self.limits.max_frame_bytes,
                    left,
                    Some(server_tx),
                    answered,
                ),
            )
            .await;
            left = left.saturating_sub(began.elapsed());
            let mut record = HttpRecord {
                method: "GET".into(),
                request_headers: headers,
                carried: "resumption".into(),
                ..HttpRecord::default()
            };
            let got = match got {
                Ok(Ok(got)) => got,
                Ok(Err(detail)) => {
                    record.error = Some(detail);
                    out.push((record, HttpResponse::default()));
                    break;
                }
                Err(_) => {
                    record.error = Some("no end of the resumed stream in time".into());
                    out.push((record, HttpResponse::default()));
                    break;
                }
            };
            record.record_response(&got);
            let done = got.messages.iter().any(|(m, _)| answered(m));
            let progressed = !got.events.is_empty() && got.status == 200;
            last = last_id(&got.events).or(last);
            retry = retry_of(&got.events).unwrap_or(retry);
            out.push((record, got));
            if done || !progressed {
                break;
            }
        }
        out
    }

    /// The reply a response body carries, with the notifications and the server's own requests
    /// that came with it.
    fn http_reply(
        response: &HttpResponse,
        done: &dyn Fn(&Value) -> bool,
    ) -> (Reply, Vec<Value>, Vec<Value>) {
        // What an exchange keeps of the server's messages is bounded like a connection's: at
        // most so many, their long strings cut as a frame's text is.
        let (requests, notifications): (Vec<Value>, Vec<Value>) = response
            .messages
            .iter()
            .filter(|(m, _)| m.get("method").is_some())
            .take(MAX_NOTIFICATIONS)
            .map(|(m, _)| crate::record::compact(m, MAX_FRAME_TEXT))
            .partition(|m| m.get("id").is_some());
        let answer = response.messages.iter().find(|(m, _)| done(m)).or_else(|| {
            response.messages.iter().find(|(m, _)| {
                m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some())
            })
        });
        let reply = match answer {
            Some((message, text)) => Reply::Message {
                message: message.clone(),
                text: text.clone(),
            },
            // A redirect is not followed: it is the server's answer.
            None if response.status >= 300 => Reply::Rejected {
                status: response.status,
                body: response.body.clone(),
            },
            None => Reply::Nothing { waited_ms: 0 },
        };
        (reply, notifications, requests)
    }

    fn learn_session(&self, outgoing: &Outgoing, response: &HttpResponse) {
        let sent_initialize = match outgoing {
            Outgoing::Request { method, .. } => method == "initialize",
            Outgoing::Raw { text } => serde_json::from_str::<Value>(text)
                .is_ok_and(|v| v.get("method") == Some(&json!("initialize"))),
            Outgoing::Notification { .. } => false,
        };
        if sent_initialize {
            if let Some(id) = response.header("mcp-session-id") {
                self.info.lock().expect("info lock").http_session = Some(id.to_string());
            }
        }
    }

    /// Detects the era: probes `server/discover` (stateless era); anything else means handshake.
    pub async fn discover(&self) -> (Option<Value>, Exchange) {
        let params = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": LATEST_STATELESS,
            "io.modelcontextprotocol/clientCapabilities": client_capabilities(),
            "io.modelcontextprotocol/clientInfo": client_info(),
        }});
        let options = SendOptions {
            headers: vec![
                ("MCP-Protocol-Version".into(), LATEST_STATELESS.into()),
                ("Mcp-Method".into(), "server/discover".into()),
            ],
            ..SendOptions::default()
        };
        let id = self.next_id();
        let exchange = self
            .send(
                Outgoing::Request {
                    id,
                    method: "server/discover".into(),
                    params: Some(params),
                },
                &options,
            )
            .await;
        let result = match &exchange.reply {
            Reply::Message { message, .. } => message
                .get("result")
                .filter(|r| r.get("supportedVersions").is_some_and(Value::is_array))
                .cloned(),
            _ => None,
        };
        (result, exchange)
    }

    /// Adopts the stateless era after a successful discovery.
    pub fn adopt_stateless(&self, discovered: &Value) -> Result<(), String> {
        let supported: Vec<&str> = discovered["supportedVersions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let version = KNOWN_VERSIONS
            .iter()
            .rev()
            .find(|v| Era::of(v) == Some(Era::Stateless) && supported.contains(v))
            .ok_or_else(|| {
                format!("server/discover lists no version mcpcheck speaks (it lists {supported:?})")
            })?;
        let server_info = discovered
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
            .cloned();
        self.set_info(SessionInfo {
            era: Some(Era::Stateless),
            version: Some(version.to_string()),
            server_info,
            capabilities: discovered.get("capabilities").cloned(),
            http_session: None,
            supported_versions: supported.iter().map(|v| v.to_string()).collect(),
            param_headers: HashMap::new(),
        });
        Ok(())
    }

    /// The handshake: `initialize` with `version`, then `notifications/initialized`.
    pub async fn handshake(&self, version: &str) -> Result<Exchange, (String, Exchange)> {
        let params = json!({"protocolVersion": version, "capabilities": client_capabilities(), "clientInfo": client_info()});
        let exchange = self.request("initialize", Some(params)).await;
        let result = match &exchange.reply {
            Reply::Message { message, .. } => match (message.get("result"), message.get("error")) {
                (Some(result), None) if result.is_object() => result.clone(),
                (_, Some(error)) => {
                    return Err((
                        format!("initialize was answered with an error: {error}"),
                        exchange,
                    ))
                }
                _ => return Err(("initialize was answered without a result".into(), exchange)),
            },
            Reply::Nothing { waited_ms } => {
                return Err((
                    format!("no answer to initialize within {waited_ms} ms"),
                    exchange,
                ))
            }
            Reply::Rejected { status, .. } if (300..400).contains(status) => {
                return Err((
                    format!(
                        "initialize was answered {}",
                        crate::record::exchange::describe(&exchange, true)
                    ),
                    exchange,
                ))
            }
            Reply::Rejected { status, body } => {
                return Err((
                    format!(
                        "initialize was rejected with HTTP {status}: {}",
                        body.trim()
                    ),
                    exchange,
                ))
            }
            Reply::Closed { detail } => {
                return Err((format!("{detail} before answering initialize"), exchange))
            }
        };
        let Some(negotiated) = result.get("protocolVersion").and_then(Value::as_str) else {
            return Err((
                "the initialize result has no protocolVersion".into(),
                exchange,
            ));
        };
        if Era::of(negotiated) != Some(Era::Handshake) {
            return Err((format!("the server chose protocol version `{negotiated}`, which mcpcheck does not know for the handshake era"), exchange));
        }
        {
            let mut info = self.info.lock().expect("info lock");
            info.era = Some(Era::Handshake);
            info.version = Some(negotiated.to_string());
            info.server_info = result.get("serverInfo").cloned();
            info.capabilities = result.get("capabilities").cloned();
        }
        let options = SendOptions {
            wait: Some(Duration::from_millis(0)),
            ..SendOptions::default()
        };
        self.send(
            Outgoing::Notification {
                method: "notifications/initialized".into(),
                params: None,
            },
            &options,
        )
        .await;
        Ok(exchange)
    }

    /// Waits until the server has answered everything sent so far, by sending a `ping` and waiting
    /// (briefly) for its answer: a stdio server answers in order, so stray replies to earlier
    /// frames arrive before it and cannot be mistaken for the answer to a later frame.
    pub async fn barrier(&self) {
        if let Link::Stream(_) = &self.link {
            let id = self.next_id();
            let options = SendOptions {
                timeout: Some(self.limits.request_timeout.min(Duration::from_secs(1))),
                ..SendOptions::default()
            };
            self.send(
                Outgoing::Request {
                    id,
                    method: "ping".into(),
                    params: None,
                },
                &options,
            )
            .await;
        }
    }

    /// Sends one HTTP request whose answer nobody waits on (a session's DELETE, the POST of an
    /// answer to a server request), bounded by the request timeout whatever the server does.
    async fn send_bounded(&self, request: &HttpRequest) -> Result<HttpResponse, String> {
        http::send_within(
            request,
            self.limits.max_frame_bytes,
            self.limits.request_timeout,
            Duration::ZERO,
        )
        .await
    }

    /// Ends the session: stdio servers go down the shutdown ladder; HTTP sessions are deleted.
    pub async fn close(&self) -> Option<ExitReport> {
        match &self.link {
            Link::Stream(link) => {
                let exit = match &link.pipe {
                    Pipe::Process(process, _) => {
                        Some(process.shutdown(self.limits.exit_grace).await)
                    }
                    // HTTP+SSE: closing the stream ends the conversation.
                    Pipe::Sse(sse) => {
                        sse.close();
                        None
                    }
                };
                // With the group gone (or the stream closed) the dispatcher sees the end; let it
                // record the last frames before anyone reads the transcript.
                let mut closed = link.closed.clone();
                let _ =
                    tokio::time::timeout(Duration::from_millis(500), closed.wait_for(|c| *c)).await;
                exit
            }
            Link::Http(link) => {
                // Only a session the server issued can be deleted.
                self.info.lock().expect("info lock").http_session.as_ref()?;
                let mut headers = self.http_headers(
                    &link.spec,
                    &Outgoing::Raw {
                        text: String::new(),
                    },
                    &SendOptions::default(),
                );
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
                let request = HttpRequest {
                    method: "DELETE".into(),
                    url: link.spec.url.clone(),
                    headers: headers.clone(),
                    body: Vec::new(),
                    stream_for: None,
                    drop_after_events: None,
                };
                let outcome = self.send_bounded(&request).await;
                let mut record = HttpRecord {
                    method: "DELETE".into(),
                    request_headers: headers,
                    carried: "session end".into(),
                    ..HttpRecord::default()
                };
                match outcome {
                    Ok(response) => {
                        record.status = Some(response.status);
                        record.response_headers = response.headers;
                    }
                    Err(e) => record.error = Some(e),
                }
                self.transcript
                    .lock()
                    .expect("transcript lock")
                    .push_post(record);
                None
            }
        }
    }
}

/// The arguments a tool's inputSchema marks with `x-mcp-header`, reached through `properties`
/// alone: the path of property names, and the header name.
pub fn param_header_paths(schema: &Value) -> Vec<(Vec<String>, String)> {
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, property) in properties {
            path.push(name.clone());
            if let Some(header) = property.get("x-mcp-header").and_then(Value::as_str) {
                out.push((path.clone(), header.to_string()));
            }
            walk(property, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// An argument's value as an `Mcp-Param-*` header: integers and booleans as written, strings as
/// they are when a header can carry them unchanged, else in the Base64 sentinel form
/// `=?base64?…?=`. `None` for null and for other types (the header is then left out).
pub fn header_value(value: &Value) -> Option<String> {
    match value {
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::String(s) => {
            let plain = s.bytes().all(|b| (0x20..0x7f).contains(&b))
                && !s.starts_with(' ')
                && !s.ends_with(' ')
                && !s.starts_with("=?");
            Some(if plain {
                s.clone()
            } else {
                format!("=?base64?{}?=", base64(s.as_bytes()))
            })
        }
        _ => None,
    }
}

/// Standard, padded base64 (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Ends when a reply's time is up, and says after how long by the rule: after `timeout`, or, for
/// a server that may still be starting (`allowance`), `timeout` after its first output and at the
/// latest when the allowance ends. A server that talks at once (even junk, even a flood) gets no
/// more than `timeout`.
async fn time_limit(link: &StreamLink, timeout: Duration, allowance: Option<Duration>) -> Duration {
    let Some(allowance) = allowance else {
        tokio::time::sleep(timeout).await;
        return timeout;
    };
    const POLL: Duration = Duration::from_millis(10);
    let heard_then_timeout = async {
        let mut silent = Duration::ZERO;
        while !link.heard() {
            tokio::time::sleep(POLL).await;
            silent += POLL;
        }
        tokio::time::sleep(timeout).await;
        silent + timeout
    };
    let cap = allowance.max(timeout);
    tokio::select! {
        waited = heard_then_timeout => waited.min(cap),
        () = tokio::time::sleep(cap) => {
            if !link.heard() {
                link.allowance_spent.store(true, Ordering::SeqCst);
            }
            cap
        }
    }
}

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
fn elicitation_content(schema: &Value) -> Value {
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

/// Where a stream-shaped link's incoming items come from.
enum Source {
    /// A stdio server's stdout.
    Stdout(StdoutReader),
    /// The HTTP+SSE transport's stream (and POST bodies), tagged with their HTTP exchange.
    Sse(mpsc::UnboundedReceiver<Tagged>),
}

impl Source {
    async fn next(&mut self) -> Option<Tagged> {
        match self {
            Source::Stdout(reader) => reader.next().await.map(|events| (events, None)),
            Source::Sse(received) => received.recv().await,
        }
    }
}

/// Routes what the server sends on a stream-shaped link: responses to their waiters, the server's
/// requests to [`answer_server_request`], notifications to the session's list, everything to the
/// transcript.
async fn dispatch(
    link: std::sync::Weak<StreamLink>,
    mut source: Source,
    unmatched: mpsc::Sender<(Value, String)>,
    closed: watch::Sender<bool>,
    transcript: Arc<Mutex<Transcript>>,
) {
    'read: while let Some((events, post)) = source.next().await {
        // Buffered lines come back without touching the pipe; a flooding server must not keep
        // this task from yielding to the rest of the run.
        tokio::task::consume_budget().await;
        let Some(link) = link.upgrade() else { return };
        for event in events {
            match event {
                Inbound::Closed => break 'read,
                Inbound::Noise { text, issue } => {
                    transcript.lock().expect("transcript lock").push(
                        Direction::Received,
                        &text,
                        None,
                        Some(issue),
                        post,
                    );
                }
                Inbound::Message { value, text, issue } => {
                    let single = value.is_object().then(|| value.clone());
                    transcript.lock().expect("transcript lock").push(
                        Direction::Received,
                        &text,
                        single,
                        issue,
                        post,
                    );
                    let messages = match value {
                        Value::Array(items) => items,
                        other => vec![other],
                    };
                    for message in messages {
                        route(&link, message, &text, &unmatched, &transcript).await;
                    }
                }
            }
        }
    }
    let _ = closed.send(true);
    if let Some(link) = link.upgrade() {
        link.pending.lock().expect("pending lock").clear();
    }
}

async fn route(
    link: &Arc<StreamLink>,
    message: Value,
    text: &str,
    unmatched: &mpsc::Sender<(Value, String)>,
    transcript: &Arc<Mutex<Transcript>>,
) {
    let has_method = message.get("method").is_some();
    let has_id = message.get("id").is_some();
    if has_method && has_id {
        let declared = link.declared.lock().expect("declared lock").clone();
        let answer = answer_server_request(&message, &declared).to_string();
        {
            let mut requests = link.server_requests.lock().expect("server requests lock");
            if requests.len() < MAX_NOTIFICATIONS && link.keep(text.len() + VALUE_OVERHEAD) {
                requests.push(message.clone());
            }
        }
        let parsed = serde_json::from_str::<Value>(&answer).ok();
        transcript.lock().expect("transcript lock").push(
            Direction::Sent,
            &answer,
            parsed,
            None,
            None,
        );
        match &link.pipe {
            Pipe::Process(..) => {
                let _ = link.pipe.write(&answer, &[], &[]).await;
            }
            // A POST may take its time; the stream must be read on meanwhile.
            Pipe::Sse(_) => {
                let link = link.clone();
                tokio::spawn(async move {
                    let _ = link.pipe.write(&answer, &[], &[]).await;
                });
            }
        }
    } else if has_method {
        let mut notes = link.notifications.lock().expect("notifications lock");
        if notes.len() < MAX_NOTIFICATIONS && link.keep(text.len() + VALUE_OVERHEAD) {
            notes.push(message);
        }
    } else {
        let waiter = message.get("id").and_then(|id| {
            link.pending
                .lock()
                .expect("pending lock")
                .remove(&id_key(id))
        });
        match waiter {
            Some(tx) => {
                if let Some(id) = message.get("id").filter(|id| !id.is_null()) {
                    link.delivered
                        .lock()
                        .expect("delivered lock")
                        .insert(id_key(id));
                }
                let _ = tx.send((message, text.to_string()));
            }
            None => {
                let late = message.get("id").is_some_and(|id| {
                    link.abandoned
                        .lock()
                        .expect("abandoned lock")
                        .remove(&id_key(id))
                });
                let duplicate = message.get("id").is_some_and(|id| {
                    !id.is_null()
                        && link
                            .delivered
                            .lock()
                            .expect("delivered lock")
                            .contains(&id_key(id))
                });
                // Late, taken by whichever step accepts an unclaimed reply, or a duplicate: from
                // now on another response with this id is a duplicate.
                if let Some(id) = message.get("id").filter(|id| !id.is_null()).map(id_key) {
                    if link.sent_ids.lock().expect("sent ids lock").contains(&id) {
                        link.delivered.lock().expect("delivered lock").insert(id);
                    }
                }
                if !late && !duplicate {
                    let _ = unmatched.try_send((message, text.to_string()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn mcp_param_headers_mirror_marked_arguments() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "string"}
        }});
        let mut paths = param_header_paths(&schema);
        paths.sort();
        assert_eq!(
            paths,
            vec![
                (vec!["opts".to_string(), "n".to_string()], "N".to_string()),
                (vec!["region".to_string()], "Region".to_string()),
            ]
        );
        assert_eq!(header_value(&json!("eu-west")).as_deref(), Some("eu-west"));
        assert_eq!(header_value(&json!(42)).as_deref(), Some("42"));
        assert_eq!(header_value(&json!(true)).as_deref(), Some("true"));
        assert_eq!(header_value(&json!(null)), None);
        assert_eq!(header_value(&json!(1.5)), None);
        // Non-ASCII, edge spaces and the sentinel's own prefix go as Base64.
        assert_eq!(
            header_value(&json!("Zürich")).as_deref(),
            Some("=?base64?WsO8cmljaA==?=")
        );
        assert_eq!(
            header_value(&json!(" x")).as_deref(),
            Some("=?base64?IHg=?=")
        );
        assert_eq!(
            base64(b"mcpcheck_no_such_tool_e3b0c442"),
            "bWNwY2hlY2tfbm9fc3VjaF90b29sX2UzYjBjNDQy"
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"ab"), "YWI=");
    }

    use super::*;

    #[test]
    fn server_requests_are_answered_per_declared_capabilities() {
        let declared = client_capabilities();
        let ask = |method: &str, declared: &Value| {
            answer_server_request(
                &json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": {
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string"},
                        "age": {"type": "integer", "default": 30},
                        "color": {"type": "string", "oneOf": [{"const": "red", "title": "Red"}]},
                        "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
                        "ok": {"type": "boolean"}
                    }}
                }}),
                declared,
            )
        };
        assert_eq!(ask("ping", &declared)["result"], json!({}));
        assert_eq!(ask("roots/list", &declared)["result"], json!({"roots": []}));
        assert_eq!(ask("roots/list", &json!({}))["error"]["code"], -32601);
        for undeclared in ["sampling/createMessage", "elicitation/create"] {
            let answer = ask(undeclared, &declared);
            assert_eq!(answer["error"]["code"], -32601, "{undeclared}");
            assert_eq!(answer["id"], 3);
        }
        let both = json!({"sampling": {}, "elicitation": {}});
        assert_eq!(
            ask("sampling/createMessage", &both)["result"]["role"],
            "assistant"
        );
        let form = ask("elicitation/create", &both);
        assert_eq!(form["result"]["action"], "accept");
        assert_eq!(
            form["result"]["content"],
            json!({"name": "mcpcheck", "age": 30, "color": "red", "tags": ["a"], "ok": true})
        );
    }

    #[test]
    fn ids_match_by_value_whatever_their_type() {
        assert_eq!(id_key(&json!(7)), id_key(&json!("7")));
        assert_ne!(id_key(&json!(7)), id_key(&json!(8)));
        assert_eq!(id_key(&json!(null)), "null");
    }
}
