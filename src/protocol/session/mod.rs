//! One conversation with a server over either transport: sending frames, matching responses to
//! requests, answering the server's own requests, the handshake and era detection.
//!
//! A session records everything in its [`Transcript`]. It judges nothing: it reports what came
//! back (a message, nothing, an HTTP rejection, a closed connection) and leaves verdicts to checks.

mod answer;
mod dispatch;
mod handshake;
mod stream;
mod streamable;

pub use answer::answer_server_request;
use dispatch::{dispatch, Source};
pub use handshake::HandshakeError;
pub use streamable::{header_value, param_header_paths};

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot, watch};

use crate::record::exchange::{client_capabilities, client_info};
use crate::record::transcript::HttpRecord;
use crate::record::version::Era;
use crate::record::Transcript;
use crate::record::{Exchange, ExitReport, Reply};
use crate::transport::http::HttpRequest;
use crate::transport::legacy::{LegacySse, Posted, Tagged};
use crate::transport::stdio::StdioProcess;
use crate::transport::{HttpSpec, Limits, Target};

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

impl SendOptions {
    /// Whether the request goes out off the protocol on purpose: `_meta` entries or headers
    /// mcpcheck would send left out, or a protocol header set by hand (`MCP-*`, `Origin`,
    /// `Content-Type`), as the probes of a wrong or contradictory header are.
    pub fn off_protocol(&self) -> bool {
        !self.omit_meta.is_empty()
            || !self.omit_headers.is_empty()
            || self.headers.iter().any(|(name, _)| {
                // An Mcp-Param-* header mirrors an argument: a request that carries one is an
                // ordinary call (a wrong one is judged by its own check).
                let name = name.to_ascii_lowercase();
                (name.starts_with("mcp-") && !name.starts_with("mcp-param-"))
                    || name == "origin"
                    || name == "content-type"
            })
    }
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
                .map_err(|e| Unsent::Closed(e.to_string())),
            Pipe::Sse(sse) => match sse.post(frame, headers, omit).await {
                Ok(Posted::Accepted) => Ok(()),
                Ok(Posted::Rejected { status, body }) => Err(Unsent::Rejected { status, body }),
                Err(e) => Err(Unsent::Closed(e.to_string())),
            },
        }
    }
}

/// A request a stream server left unanswered past its bound, with nothing at all said since
/// it was sent.
struct Silence {
    /// When that request's bound ran out.
    since: std::time::Instant,
    /// [`StreamLink::received`] then: anything the server sends after ends the silence.
    received: u64,
    /// Whether a request sent after that bound ran out went unanswered for a whole `--timeout`
    /// as well: the server has stopped answering (two requests said so, not a clock).
    confirmed: bool,
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
    budget: crate::record::Budget,
    /// Set once a request waited out the whole start-up allowance on a silent server: the
    /// allowance is given once per connection, not once per request.
    allowance_spent: std::sync::atomic::AtomicBool,
    /// How many frames (and lines that are none) the server has sent on this connection.
    received: std::sync::atomic::AtomicU64,
    /// Set when a request's bound ran out with nothing at all received since it was sent (see
    /// [`Session::stuck`]).
    silence: Mutex<Option<Silence>>,
    /// The client capabilities this connection declared (what mcpcheck answers).
    declared: Mutex<Value>,
    closed: watch::Receiver<bool>,
    /// The steps of a shared session: held shared, or by one step alone once the link is
    /// strict.
    slot: Arc<tokio::sync::RwLock<()>>,
    /// Set once a response came that no request could claim (no id, id null, or an id mcpcheck
    /// never sent): from then on each step has the connection alone, and takes such a reply as
    /// its own.
    strict: std::sync::atomic::AtomicBool,
}

/// A step's hold on a shared session's connection (see [`Session::step_slot`]); let go when
/// dropped.
pub struct StepSlot {
    held: Held,
}

enum Held {
    /// Streamable HTTP: each answer comes on its request's own response, nothing to hold.
    Nothing,
    Shared {
        _guard: tokio::sync::OwnedRwLockReadGuard<()>,
    },
    Alone {
        _guard: tokio::sync::OwnedRwLockWriteGuard<()>,
    },
}

impl StepSlot {
    /// Whether the step has the connection to itself (the link is strict): a response that no
    /// request claims is then the step's own.
    pub fn alone(&self) -> bool {
        matches!(self.held, Held::Alone { .. })
    }
}

impl StreamLink {
    /// Records that a request sent at `asked`, when [`StreamLink::received`] was `received`, has
    /// just waited out its bound (`whole`: one of at least `--timeout`): if nothing at all has
    /// come since it was sent, the server is silent from now on (the first such bound counts,
    /// until it says anything), and a second such request that waited a whole `--timeout`, sent
    /// after the first one's bound ran out, confirms it (a step's own shorter bound does not: a
    /// server may answer that step late).
    fn note_silence(&self, received: u64, asked: std::time::Instant, whole: bool) {
        if self.received.load(Ordering::SeqCst) != received {
            return;
        }
        let mut silence = self.silence.lock().expect("silence lock");
        match silence.as_mut() {
            Some(silent) if silent.received == received => {
                silent.confirmed |= whole && asked >= silent.since;
            }
            _ => {
                *silence = Some(Silence {
                    since: std::time::Instant::now(),
                    received,
                    confirmed: false,
                });
            }
        }
    }

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
    /// The keep-alive connections its requests take turns on.
    pool: crate::transport::http::Pool,
}

/// How many notifications (and, apart, server requests) a connection keeps.
const MAX_NOTIFICATIONS: usize = 1_000;

/// How long a frame without an id of ours still waits for a reply once the barrier behind it
/// has been answered (servers that answer concurrently may answer the frame later), cut to the
/// frame's own wait where that is shorter: the most of a wait a server that answers spends.
pub const BARRIER_GRACE: Duration = Duration::from_millis(50);

/// How long a request that took an unclaimed reply still waits for its own answer.
const UNCLAIMED_GRACE: Duration = Duration::from_millis(250);

/// About what a parsed message costs beyond its text (its maps and their entries).
const VALUE_OVERHEAD: usize = 1024;

/// How many bytes of notifications and server requests a connection keeps; a flood beyond is
/// still answered and recorded in the transcript (within its own bounds), not kept here.
const MAX_NOTE_BYTES: usize = 2 << 20;

/// Why a connection could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The stdio server could not be started.
    #[error(transparent)]
    Start(#[from] crate::transport::stdio::StdioError),
    /// The URL cannot be spoken to.
    #[error(transparent)]
    Url(#[from] crate::record::url::UrlError),
}

impl From<OpenError> for String {
    fn from(error: OpenError) -> String {
        error.to_string()
    }
}

impl Session {
    /// Starts the server (stdio) or prepares the endpoint (HTTP). Nothing is sent yet.
    pub fn open(target: &Target, limits: &Limits) -> Result<Session, OpenError> {
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
                crate::record::url::parse_url(&spec.url)?;
                let (sse, received) = LegacySse::connect(spec, limits, transcript.clone());
                Link::Stream(Self::stream_link(
                    Pipe::Sse(sse),
                    Source::Sse(received),
                    &transcript,
                    &limits.evidence,
                ))
            }
            Target::Http(spec) => {
                crate::record::url::parse_url(&spec.url)?;
                Link::Http(Box::new(HttpLink {
                    spec: spec.clone(),
                    cancelled: Mutex::new(std::collections::HashSet::new()),
                    declared: Mutex::new(client_capabilities()),
                    pool: crate::transport::http::Pool::default(),
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
        budget: &crate::record::Budget,
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
            received: std::sync::atomic::AtomicU64::new(0),
            silence: Mutex::new(None),
            declared: Mutex::new(client_capabilities()),
            closed: closed_rx,
            slot: Arc::new(tokio::sync::RwLock::new(())),
            strict: std::sync::atomic::AtomicBool::new(false),
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

    /// Why the connection is known to be closed (stdio: stdout ended, with how the server
    /// exited; HTTP+SSE: the stream ended), if it is. Streamable HTTP has no one connection to
    /// lose: never.
    pub async fn gone(&self) -> Option<String> {
        match &self.link {
            Link::Stream(link) if *link.closed.borrow() => {
                Some(self.closed_detail(link, None).await)
            }
            _ => None,
        }
    }

    /// Why the server is taken to have stopped answering on this connection, if it has: a
    /// request's bound ran out, the server has sent nothing at all since that request was sent,
    /// and a request sent after that bound ran out (a later step's, or the barrier that
    /// confirms a step's silence) went unanswered for a whole `--timeout` too. Two unanswered
    /// requests say so, never the time that passed (a step that only holds does not). Anything
    /// the server sends ends it. What would only wait out its own bounds on such a connection
    /// is not sent (an error of the run, never a verdict on the server). `None` over Streamable
    /// HTTP, where each request has an answer of its own.
    pub fn stuck(&self) -> Option<String> {
        let Link::Stream(link) = &self.link else {
            return None;
        };
        let silence = link.silence.lock().expect("silence lock");
        let silence = silence.as_ref()?;
        if link.received.load(Ordering::SeqCst) != silence.received {
            return None;
        }
        silence.confirmed.then(|| {
            format!(
                "the server has sent nothing on this connection since a request it left unanswered, and left a request sent after that one's bound ran out unanswered for a whole --timeout ({} s) as well",
                self.limits.request_timeout.as_secs_f64()
            )
        })
    }

    /// Whether the server still answers on this session: a barrier request (`ping`, or
    /// `server/discover` on 2026-07-28) gets any answer (an error or an HTTP refusal too) within
    /// the request timeout. `None` when it did; else why not, in words.
    pub async fn answers(&self) -> Option<String> {
        let (method, exchange) = self.send_barrier().await;
        match &exchange.reply {
            Reply::Message { .. } | Reply::Rejected { .. } => None,
            Reply::Nothing { waited_ms } => Some(format!(
                "the {method} sent after it got no answer within {waited_ms} ms either"
            )),
            Reply::Closed { detail } => Some(format!("then {detail}")),
        }
    }

    /// Whether the server has said anything on this connection yet (stdio: stdout; HTTP+SSE:
    /// the stream). HTTP: always, once asked.
    pub fn heard(&self) -> bool {
        match &self.link {
            Link::Stream(link) => link.heard(),
            Link::Http(_) => true,
        }
    }

    /// Whether the connection still serves as it did: open, and a barrier request answered with
    /// a result (not an error, not an HTTP refusal) within the request timeout. Else why not.
    pub async fn still_serving(&self) -> Result<(), String> {
        if let Some(gone) = self.gone().await {
            return Err(gone);
        }
        let (method, exchange) = self.send_barrier().await;
        match &exchange.reply {
            Reply::Message { message, .. } if message.get("result").is_some() => Ok(()),
            Reply::Nothing { waited_ms } => Err(format!(
                "the {method} sent after it got no answer within {waited_ms} ms"
            )),
            Reply::Closed { detail } => Err(format!("then {detail}")),
            _ => Err(format!(
                "the {method} sent after it was answered with {}",
                crate::record::exchange::describe(&exchange, true)
            )),
        }
    }

    /// Sends the barrier request (`ping`, or `server/discover` on 2026-07-28) with the usual
    /// timeout; its method and exchange.
    async fn send_barrier(&self) -> (String, Exchange) {
        let id = self.next_id();
        let request = self.barrier_request(id);
        let method = match &request {
            Outgoing::Request { method, .. } => method.clone(),
            _ => "ping".into(),
        };
        (method, self.send(request, &SendOptions::default()).await)
    }

    /// stdio: the flag that turns true once the server process has written its first byte to
    /// stdout (shared with the reader), to tell when its start is over. `None` for other links.
    pub fn heard_flag(&self) -> Option<Arc<std::sync::atomic::AtomicBool>> {
        match &self.link {
            Link::Stream(link) => match &link.pipe {
                Pipe::Process(_, heard) => Some(heard.clone()),
                Pipe::Sse(_) => None,
            },
            Link::Http(_) => None,
        }
    }

    /// Whether every reply comes on one ordered channel (stdio, HTTP+SSE), so that a late
    /// answer to one request could be read as the answer to a later one.
    pub fn is_stream(&self) -> bool {
        matches!(self.link, Link::Stream(_))
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

    /// The server process of a stdio session (`None` for other links).
    fn process(&self) -> Option<&StdioProcess> {
        match &self.link {
            Link::Stream(link) => match &link.pipe {
                Pipe::Process(process, _) => Some(process),
                Pipe::Sse(_) => None,
            },
            Link::Http(_) => None,
        }
    }

    /// The server's stderr so far (stdio).
    pub fn stderr_tail(&self) -> Option<String> {
        self.process().map(StdioProcess::stderr_tail)
    }

    /// stdio: the server's process group. `None` for other links.
    pub fn process_group(&self) -> Option<i32> {
        self.process().map(StdioProcess::process_group)
    }

    /// Takes the connection for one step of a session shared by concurrent scenarios. Over
    /// stdio and HTTP+SSE, replies are told apart by their id alone, and a reply without a
    /// usable one can only be tied to a step that was alone on the connection. Steps share it
    /// until such a reply comes (the steps that take unclaimed replies, notifications and raw
    /// frames, run on connections of their own); from then on the link is strict and each step
    /// has it alone. Streamable HTTP holds nothing.
    pub async fn step_slot(&self) -> StepSlot {
        let held = match &self.link {
            Link::Http(_) => Held::Nothing,
            Link::Stream(link) if link.strict.load(Ordering::SeqCst) => Held::Alone {
                _guard: link.slot.clone().write_owned().await,
            },
            Link::Stream(link) => Held::Shared {
                _guard: link.slot.clone().read_owned().await,
            },
        };
        StepSlot { held }
    }

    /// Whether a response on this connection could be tied to no request (see
    /// [`Session::step_slot`]); never over Streamable HTTP.
    pub fn strict(&self) -> bool {
        match &self.link {
            Link::Stream(link) => link.strict.load(Ordering::SeqCst),
            Link::Http(_) => false,
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
        if let (true, Outgoing::Request { id, .. }) = (options.off_protocol(), &outgoing) {
            self.transcript
                .lock()
                .expect("transcript lock")
                .probes
                .insert(crate::record::id_key(id));
        }
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
        // Each transport's exchange is a future of kilobytes: boxed, the future of a request
        // (and of everything that awaits one) stays small and cheap to move.
        let exchange = match &self.link {
            Link::Stream(link) => Box::pin(self.send_stream(link, outgoing, options)).await,
            Link::Http(link) => Box::pin(self.send_http(link, outgoing, options)).await,
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
        let Some(revision) = crate::record::version::by_wire(version) else {
            return;
        };
        let mut info = self.info.lock().expect("info lock");
        if info.version.is_none() && revision.era == Era::Handshake {
            info.era = Some(Era::Handshake);
            info.version = Some(revision.name.clone());
        }
    }

    /// The request sent as a barrier behind frames that get no answer of their own: `ping`, or
    /// in the stateless era (which removed ping) `server/discover`, so that its answer is a
    /// result a server gives with its id rather than an error.
    fn barrier_request(&self, id: Value) -> Outgoing {
        let stateless = self.info.lock().expect("info lock").era == Some(Era::Stateless);
        self.with_meta(
            Outgoing::Request {
                id,
                method: if stateless { "server/discover" } else { "ping" }.into(),
                params: None,
            },
            &[],
        )
    }

    /// In the stateless era every request carries its version and capabilities in `_meta`.
    fn with_meta(&self, outgoing: Outgoing, omit: &[String]) -> Outgoing {
        let version = {
            let info = self.info.lock().expect("info lock");
            match (info.era, &info.version) {
                (Some(Era::Stateless), Some(version)) => {
                    crate::record::version::wire(version).to_string()
                }
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
                // Only a session the server issued can be deleted, and the stateless era has
                // none to delete (it sends no session id).
                {
                    let info = self.info.lock().expect("info lock");
                    info.http_session.as_ref()?;
                    if info.era == Some(crate::record::Era::Stateless) {
                        return None;
                    }
                }
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
                    reuse: None,
                };
                let outcome = self.send_bounded(&request).await;
                let mut record = HttpRecord {
                    method: "DELETE".into(),
                    request_headers: headers,
                    carried: crate::record::Carried::SessionEnd,
                    ..HttpRecord::default()
                };
                match outcome {
                    Ok(response) => {
                        record.status = Some(response.status);
                        record.response_headers = response.headers;
                    }
                    Err(e) => record.error = Some(e.to_string()),
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

impl Source {
    async fn next(&mut self) -> Option<Tagged> {
        match self {
            Source::Stdout(reader) => reader.next().await.map(|events| (events, None)),
            Source::Sse(received) => received.recv().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::streamable::base64;
    use super::*;
    use crate::record::id_key;

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
