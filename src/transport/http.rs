//! The HTTP client under the Streamable HTTP transport: hyper's HTTP/1.1 connection API, so the
//! headers sent are exactly the ones set (nothing added, nothing normalised away), with TLS for
//! https targets. A session's POSTs take turns on its keep-alive connections ([`Pool`]); every
//! other request has a connection of its own. Bodies are read as JSON or as an SSE stream.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Uri;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::sse::SseParser;
use crate::record::transcript::{cut, MAX_FRAME_TEXT};
use crate::record::SseEvent;

/// One HTTP request to send.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    /// `POST`, `GET` or `DELETE`.
    pub method: String,
    /// The full URL.
    pub url: String,
    /// Headers, exactly as sent, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// A GET answered with an SSE stream is read for this long (or until it ends) instead of
    /// being returned at its headers. For a POST: the time the caller gives the whole exchange,
    /// which what is read on after the response (or the awaited notification) must fit in.
    pub stream_for: Option<Duration>,
    /// A POST answered with an SSE stream is dropped (the connection closed) after this many
    /// events, as a client that lost its connection would.
    pub drop_after_events: Option<usize>,
    /// Keep-alive connections this request may be sent on, and its connection left in for the
    /// next once its response has been read to the end; `None`: a connection of its own.
    pub reuse: Option<Pool>,
}

/// Idle keep-alive connections, by origin, that the requests of one session take turns on: a
/// TCP connection (and a TLS handshake) per session instead of per request. A connection is
/// taken back only after a response read to its end without `Connection: close`, and not when
/// it has been idle longer than [`IDLE_REUSE`] (servers close idle connections after a second or
/// a few).
#[derive(Clone, Default)]
pub struct Pool(Arc<std::sync::Mutex<Vec<Idle>>>);

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idle = self.0.lock().map(|p| p.len()).unwrap_or(0);
        write!(f, "Pool({idle} idle)")
    }
}

/// A connection waiting in a [`Pool`].
struct Idle {
    origin: String,
    since: tokio::time::Instant,
    sender: SendRequest,
    driver: Driver,
}

/// How long an idle connection is still taken for a request: well inside the idle timeouts of
/// the servers and proxies in front of them (Node's and uvicorn's 5 s, gunicorn's 2 s, some
/// proxies' 1 s), so that a connection is not taken as the server closes it.
const IDLE_REUSE: Duration = Duration::from_millis(750);

impl Pool {
    /// Takes an idle connection to `origin` that is ready for a request.
    fn take(&self, origin: &str) -> Option<Idle> {
        let mut idle = self.0.lock().expect("pool lock");
        let now = tokio::time::Instant::now();
        // The stale and the closed are let go (their drivers stop with them).
        idle.retain(|c| now.duration_since(c.since) < IDLE_REUSE && !c.sender.is_closed());
        let at = idle
            .iter()
            .position(|c| c.origin == origin && c.sender.is_ready())?;
        Some(idle.swap_remove(at))
    }

    /// Keeps a connection whose response was read to its end for the next request.
    fn give_back(&self, origin: String, sender: SendRequest, driver: Driver) {
        let mut idle = self.0.lock().expect("pool lock");
        // A session has few requests in flight at once: a handful of idle connections is enough.
        if idle.len() < MAX_IDLE {
            idle.push(Idle {
                origin,
                since: tokio::time::Instant::now(),
                sender,
                driver,
            });
        }
    }
}

/// The idle connections a pool keeps at most.
const MAX_IDLE: usize = 8;

/// How much of an SSE event's data the event itself keeps (its message is kept apart).
const EVENT_DATA_KEPT: usize = 1024;

/// How long a POST's SSE stream may stay open after the response it was opened for.
pub const SSE_END_GRACE: Duration = Duration::from_secs(1);

/// What came back.
#[derive(Clone, Debug, Default)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The response headers, in order.
    pub headers: Vec<(String, String)>,
    /// For non-SSE bodies: the body as text (cut at the frame limit).
    pub body: String,
    /// Bytes of body read.
    pub body_bytes: usize,
    /// For SSE bodies: every event.
    pub events: Vec<SseEvent>,
    /// The JSON-RPC messages the body carried, each with the text it came from.
    pub messages: Vec<(Value, String)>,
    /// A problem with the body: not JSON, cut short, and so on.
    pub issue: Option<String>,
    /// How many stretches of the body were not UTF-8: a JSON body counts once, an SSE stream
    /// once per line. The body is still read (lossily), so the other checks see its messages.
    pub utf8_errors: usize,
    /// For a POST's SSE stream that carried the awaited response: whether the stream ended
    /// within [`SSE_END_GRACE`] after it.
    pub ended_after_response: Option<bool>,
    /// Whether mcpcheck dropped the stream on purpose (`drop_after_events`).
    pub dropped: bool,
    /// Whether the body was read to its end (so its connection can serve another request).
    pub body_ended: bool,
    /// The share of [`IN_FLIGHT_BYTES`] this response holds while it lives.
    pub held: Option<Arc<tokio::sync::OwnedSemaphorePermit>>,
    /// For SSE bodies: how many events came (those past [`EVENTS_KEPT`] are counted, not kept).
    pub events_seen: usize,
    /// A POST's SSE stream was still open without the awaited message when the caller's bound
    /// on the exchange came: mcpcheck stopped reading it (the server did not close it).
    pub timed_out: bool,
}

/// How many events of one SSE body are kept (with their messages); past them, or past
/// [`KEPT_BYTES`], events are only parsed for the awaited message and for server requests,
/// and counted. A flood of small events costs far more than its bytes once parsed.
pub const EVENTS_KEPT: usize = 64;

/// About how many bytes the kept events and messages of one SSE body hold (parsed messages
/// counted at about twice their data); an event starts being kept only below it, and the
/// awaited response is kept whole, whatever its size, up to the frame bound.
pub const KEPT_BYTES: usize = 1 << 20;

/// How many bytes the bodies of all responses being read or held at once may take, across the
/// process: however many requests run at once (`--jobs`), a server that floods every one of them
/// cannot take mcpcheck's memory with it. A response that finds the bound reached stops being
/// read, and says so.
pub const IN_FLIGHT_BYTES: usize = 24 << 20;

/// The units (KiB) of [`IN_FLIGHT_BYTES`], shared by every response.
fn in_flight() -> &'static Arc<tokio::sync::Semaphore> {
    static UNITS: OnceLock<Arc<tokio::sync::Semaphore>> = OnceLock::new();
    UNITS.get_or_init(|| Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT_BYTES >> 10)))
}

/// Why a response stopped being read when [`IN_FLIGHT_BYTES`] was reached.
fn in_flight_full() -> String {
    format!(
        "mcpcheck's bound of {} MiB on response bytes held at once was reached; reading stopped",
        IN_FLIGHT_BYTES >> 20
    )
}

/// Takes `bytes` more of the in-flight bound into `held`; false (nothing taken) when the bound
/// is reached.
fn hold(held: &mut Option<tokio::sync::OwnedSemaphorePermit>, bytes: usize) -> bool {
    let units = u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX);
    let Ok(permit) = in_flight().clone().try_acquire_many_owned(units) else {
        return false;
    };
    match held {
        Some(held) => held.merge(permit),
        None => *held = Some(permit),
    }
    true
}

impl HttpResponse {
    /// The value of a header (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the body is an SSE stream (`Content-Type: text/event-stream`).
    pub fn is_sse(&self) -> bool {
        self.header("content-type")
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"))
    }
}

fn tls_connector() -> &'static tokio_rustls::TlsConnector {
    static CONNECTOR: OnceLock<tokio_rustls::TlsConnector> = OnceLock::new();
    CONNECTOR.get_or_init(|| {
        let roots = tokio_rustls::rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let mut config = tokio_rustls::rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        tokio_rustls::TlsConnector::from(Arc::new(config))
    })
}

/// Whether a body ends (no more frames) within `grace`; what comes meanwhile is read and let go.
async fn ends_within(
    body: &mut hyper::body::Incoming,
    grace: Duration,
    parser: &mut SseParser,
    result: &mut HttpResponse,
) -> bool {
    let deadline = tokio::time::Instant::now() + grace;
    let mut late = 0usize;
    let mut read = 0usize;
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(None) => {
                result.body_ended = true;
                return true;
            }
            Ok(Some(Err(_))) => return true,
            Ok(Some(Ok(frame))) => {
                // What the server sends after the response on the same stream (a late progress
                // notification, say) is kept for the checks, a few events and bytes at most;
                // beyond that the stream is only read, to see whether it ends.
                let Ok(chunk) = frame.into_data() else {
                    continue;
                };
                read += chunk.len();
                if late >= LATE_EVENTS_KEPT || read > LATE_BYTES_KEPT {
                    continue;
                }
                for mut event in parser.feed(&chunk) {
                    late += 1;
                    if late > LATE_EVENTS_KEPT {
                        continue;
                    }
                    if let Ok(value) = serde_json::from_str::<Value>(&event.data) {
                        result
                            .messages
                            .push((value, cut(&event.data, MAX_FRAME_TEXT)));
                    }
                    if event.data.len() > EVENT_DATA_KEPT {
                        event.data = cut(&event.data, EVENT_DATA_KEPT);
                    }
                    result.events.push(event);
                }
            }
            Err(_) => return false,
        }
    }
}

/// How many events after the response on a POST's stream are kept.
const LATE_EVENTS_KEPT: usize = 16;

/// How many bytes after the response on a POST's stream are parsed for those events.
const LATE_BYTES_KEPT: usize = 256 << 10;

use crate::record::url::parse_url;

/// Sends one request. Messages are passed to `on_message` as they arrive (so that server requests
/// on an SSE stream can be answered while it is open); reading an SSE stream stops once `done`
/// says the awaited message has arrived.
pub async fn send(
    request: &HttpRequest,
    max_body: usize,
    connect_timeout: Duration,
    on_message: Option<&mpsc::UnboundedSender<Value>>,
    done: &(dyn Fn(&Value) -> bool + Send + Sync),
) -> Result<HttpResponse, HttpError> {
    // A POST's read on after its answer ends a little before the caller's bound on it.
    let read_on_by = request
        .stream_for
        .filter(|_| request.method == "POST")
        .map(|d| tokio::time::Instant::now() + d.saturating_sub(Duration::from_millis(100)));
    let Opened {
        head,
        body,
        driver,
        keep,
    } = open(request, connect_timeout).await?;
    let response = read_body(head, body, request, max_body, on_message, done, read_on_by).await;
    // A response read to its end leaves its connection free for the session's next request.
    if let (Some(pool), Some((origin, sender)), Ok(answer)) = (&request.reuse, keep, &response) {
        let close = answer
            .header("connection")
            .is_some_and(|v| v.to_ascii_lowercase().contains("close"));
        if answer.body_ended && !answer.dropped && !close {
            pool.give_back(origin, sender, driver);
            return response;
        }
    }
    drop(driver);
    response
}

/// Sends one request that nobody reads a stream of (no server messages are passed on), the
/// whole exchange bounded by `wait` plus `extra`: a server that never answers holds it no
/// longer.
pub async fn send_within(
    request: &HttpRequest,
    max_body: usize,
    wait: Duration,
    extra: Duration,
) -> Result<HttpResponse, HttpError> {
    tokio::time::timeout(
        wait + extra,
        send(request, max_body, wait, None, &|_| false),
    )
    .await
    .unwrap_or_else(|_| {
        Err(HttpError::NoResponse {
            method: request.method.clone(),
            seconds: wait.as_secs_f64(),
        })
    })
}

/// A response whose head has come and whose body is still to be read.
pub struct Opened {
    /// Status and headers (nothing of the body yet).
    pub head: HttpResponse,
    /// The body.
    pub body: hyper::body::Incoming,
    /// Drives the connection; stops it when dropped.
    pub driver: Driver,
    /// For a request that may reuse connections: its origin and the connection's handle, to
    /// give back to the pool once the response has been read.
    keep: Option<(String, SendRequest)>,
}

/// The handle a request is sent on.
type SendRequest = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// The task that drives one HTTP connection, stopped (the connection closed) when dropped.
pub struct Driver(tokio::task::JoinHandle<()>);

impl Drop for Driver {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends one request and returns once the response head has come: on an idle connection of
/// its pool when there is one, else on a new connection.
pub async fn open(request: &HttpRequest, connect_timeout: Duration) -> Result<Opened, HttpError> {
    let uri = parse_url(&request.url).map_err(HttpError::Url)?;
    let host = uri
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let https = uri.scheme_str() == Some("https");
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let origin = format!("{}://{host}:{port}", if https { "https" } else { "http" });
    if let Some(pool) = &request.reuse {
        while let Some(mut idle) = pool.take(&origin) {
            match send_on(&mut idle.sender, &uri, request).await {
                Ok(response) => {
                    return Ok(opened(response, idle.driver, Some((origin, idle.sender))));
                }
                // Not sent (the connection closed as it was taken): another, or a new one.
                Err(e) if e.unsent() => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
    let tcp = tokio::time::timeout(connect_timeout, TcpStream::connect((host.as_str(), port)))
        .await
        .map_err(|_| HttpError::ConnectTimeout {
            host: host.clone(),
            port,
        })?
        .map_err(|source| HttpError::Connect {
            host: host.clone(),
            port,
            source,
        })?;
    let _ = tcp.set_nodelay(true);
    let keep = request.reuse.is_some().then_some(origin);
    if https {
        let name =
            tokio_rustls::rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| {
                HttpError::TlsName {
                    host: host.clone(),
                    why: e.to_string(),
                }
            })?;
        let tls = tls_connector()
            .connect(name, tcp)
            .await
            .map_err(|source| HttpError::Tls {
                host: host.clone(),
                source,
            })?;
        start(tls, &uri, request, keep).await
    } else {
        start(tcp, &uri, request, keep).await
    }
}

/// Opens an HTTP/1.1 connection on `stream` and sends the request on it.
async fn start<S>(
    stream: S,
    uri: &Uri,
    request: &HttpRequest,
    keep: Option<String>,
) -> Result<Opened, HttpError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(HttpError::Handshake)?;
    let driver = Driver(tokio::spawn(async move {
        let _ = connection.await;
    }));
    let response = send_on(&mut sender, uri, request).await?;
    Ok(opened(
        response,
        driver,
        keep.map(|origin| (origin, sender)),
    ))
}

/// Why a request was not answered on a connection.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// No such request can be made (a header value no request may carry): the builder's words.
    #[error("invalid request: {0}")]
    Invalid(String),
    /// hyper's error: the connection, or the exchange on it.
    #[error("the request failed: {0}")]
    Http(hyper::Error),
}

/// Why an HTTP request got no response: what a caller may tell apart, each said in words.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The URL is no http or https URL mcpcheck can reach (the words say why and what was
    /// likely meant).
    #[error(transparent)]
    Url(#[from] crate::record::url::UrlError),
    /// No TCP connection within the bound.
    #[error("connecting to {host}:{port} timed out")]
    ConnectTimeout {
        /// The host.
        host: String,
        /// The port.
        port: u16,
    },
    /// The TCP connection was refused or failed.
    #[error("cannot connect to {host}:{port}: {source}")]
    Connect {
        /// The host.
        host: String,
        /// The port.
        port: u16,
        /// What the system said.
        source: std::io::Error,
    },
    /// The host is no name a TLS certificate can be checked against.
    #[error("invalid TLS server name `{host}`: {why}")]
    TlsName {
        /// The host.
        host: String,
        /// What rustls said.
        why: String,
    },
    /// The TLS handshake failed (a certificate not trusted, a protocol not spoken).
    #[error("TLS handshake with {host} failed: {source}")]
    Tls {
        /// The host.
        host: String,
        /// What rustls said.
        source: std::io::Error,
    },
    /// The HTTP/1.1 handshake on the connection failed.
    #[error("HTTP handshake failed: {0}")]
    Handshake(hyper::Error),
    /// The request was not answered on the connection.
    #[error(transparent)]
    Send(#[from] SendError),
    /// No response within the caller's bound on the whole exchange.
    #[error("the {method} got no HTTP response within {seconds} s")]
    NoResponse {
        /// The HTTP method.
        method: String,
        /// The bound, in seconds.
        seconds: f64,
    },
}

impl From<HttpError> for String {
    fn from(error: HttpError) -> String {
        error.to_string()
    }
}

impl SendError {
    /// Whether the request never left (the connection closed as it was taken): it may go on
    /// another connection.
    fn unsent(&self) -> bool {
        matches!(self, SendError::Http(e) if e.is_canceled())
    }
}

/// Sends the request, exactly as it is, on a connection.
async fn send_on(
    sender: &mut SendRequest,
    uri: &Uri,
    request: &HttpRequest,
) -> Result<hyper::Response<hyper::body::Incoming>, SendError> {
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let mut builder = hyper::Request::builder()
        .method(request.method.as_str())
        .uri(path);
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let outgoing = builder
        .body(Full::new(Bytes::from(request.body.clone())))
        .map_err(|e| SendError::Invalid(e.to_string()))?;
    sender.send_request(outgoing).await.map_err(SendError::Http)
}

/// The response head as read, with the body still to read.
fn opened(
    response: hyper::Response<hyper::body::Incoming>,
    driver: Driver,
    keep: Option<(String, SendRequest)>,
) -> Opened {
    let head = HttpResponse {
        status: response.status().as_u16(),
        headers: response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        ..HttpResponse::default()
    };
    Opened {
        head,
        body: response.into_body(),
        driver,
        keep,
    }
}

/// Reads a response's body: JSON (cut at `max_body`) or an SSE stream.
///
/// Long by design: the body read as JSON or SSE under one byte budget and one deadline, with the
/// SSE dialect's event ids, retry and early close recorded as they pass.
async fn read_body(
    mut result: HttpResponse,
    mut body: hyper::body::Incoming,
    request: &HttpRequest,
    max_body: usize,
    on_message: Option<&mpsc::UnboundedSender<Value>>,
    done: &(dyn Fn(&Value) -> bool + Send + Sync),
    read_on_by: Option<tokio::time::Instant>,
) -> Result<HttpResponse, HttpError> {
    let sse = result.is_sse();
    if sse && request.method != "POST" && request.stream_for.is_none() {
        // A GET stream stays open for server messages; its headers are the answer.
        return Ok(result);
    }
    let deadline = request
        .stream_for
        .filter(|_| request.method != "POST")
        .map(|d| tokio::time::Instant::now() + d);
    let mut parser = SseParser::default();
    let mut raw = Vec::new();
    let mut held = None;
    // About what the kept events and messages hold, in bytes (as charged to the bound).
    let mut kept_bytes = 0usize;
    // A POST's stream is read until its response came, or until a little before the caller's
    // bound on the exchange: what came is then said (the caller's own bound would lose it).
    let until = deadline.or(read_on_by.filter(|_| sse));
    loop {
        let next = match until {
            Some(until) => match tokio::time::timeout_at(until, body.frame()).await {
                Ok(next) => next,
                Err(_) => {
                    result.timed_out = deadline.is_none();
                    break;
                }
            },
            None => body.frame().await,
        };
        let Some(frame) = next else {
            result.body_ended = true;
            break;
        };
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                result.issue = Some(format!("the body ended with an error: {e}"));
                break;
            }
        };
        let Ok(chunk) = frame.into_data() else {
            continue;
        };
        result.body_bytes += chunk.len();
        // What is kept counts against the bound on everything held in flight: a plain body's
        // bytes; of an SSE stream, what its kept events and messages hold (below).
        if !sse && !hold(&mut held, chunk.len()) {
            result.issue = Some(in_flight_full());
            break;
        }
        if !sse {
            if raw.len() < max_body {
                raw.extend_from_slice(&chunk[..chunk.len().min(max_body - raw.len())]);
            }
            continue;
        }
        let mut finished = false;
        let mut answered = false;
        let mut exhausted = false;
        for mut event in parser.feed(&chunk) {
            result.events_seen += 1;
            let keep = result.events.len() < EVENTS_KEPT && kept_bytes <= KEPT_BYTES.min(max_body);
            if !event.data.is_empty() {
                match serde_json::from_str::<Value>(&event.data) {
                    Ok(value) => {
                        let server_request =
                            value.get("method").is_some() && value.get("id").is_some();
                        if let Some(tx) = on_message.filter(|_| keep || server_request) {
                            let _ = tx.send(value.clone());
                        }
                        let awaited = done(&value);
                        if awaited {
                            finished = true;
                            answered |= value.get("method").is_none();
                        }
                        if keep || awaited {
                            // A notification's text is kept as evidence only (cut like a
                            // frame); a response's whole, as its reply.
                            let text = if value.get("method").is_some() && value.get("id").is_none()
                            {
                                cut(&event.data, MAX_FRAME_TEXT)
                            } else {
                                event.data.clone()
                            };
                            // Parsed, a message holds about twice its data, besides its text.
                            let cost = 2 * event.data.len() + text.len();
                            kept_bytes += cost;
                            exhausted |= !hold(&mut held, cost);
                            result.messages.push((value, text));
                        }
                    }
                    Err(e) if keep => {
                        result.issue = Some(format!("an SSE event's data is not JSON: {e}"));
                    }
                    Err(_) => {}
                }
            }
            // The message is kept above; the event keeps its fields, and its data only in short
            // (whether it was empty is what the checks of events ask).
            if keep {
                if event.data.len() > EVENT_DATA_KEPT {
                    event.data = cut(&event.data, EVENT_DATA_KEPT);
                }
                kept_bytes += event.data.len();
                exhausted |= !hold(&mut held, event.data.len());
                result.events.push(event);
            }
        }
        if exhausted && !finished {
            result.issue = Some(in_flight_full());
            break;
        }
        if finished {
            if request.method == "POST" {
                let grace = read_on_by.map_or(SSE_END_GRACE, |by| {
                    SSE_END_GRACE.min(by.saturating_duration_since(tokio::time::Instant::now()))
                });
                let ended = ends_within(&mut body, grace, &mut parser, &mut result).await;
                // A stream that ended the wait with a notification (a subscription's
                // acknowledgement) stays open by design: what came next is kept, and whether
                // it ended says nothing.
                if answered {
                    result.ended_after_response = Some(ended);
                }
            }
            break;
        }
        if request
            .drop_after_events
            .is_some_and(|n| result.events.len() >= n)
        {
            result.dropped = true;
            break;
        }
        // One event that never ends would grow the parser without bound.
        if parser.pending() > max_body {
            result.issue = Some(format!(
                "an SSE event grew past {max_body} bytes without ending; reading stopped"
            ));
            break;
        }
    }
    result.held = held.map(Arc::new);
    if sse {
        result.utf8_errors = parser.invalid_utf8;
    } else {
        result.utf8_errors = usize::from(std::str::from_utf8(&raw).is_err());
        result.body = String::from_utf8_lossy(&raw).into_owned();
        if result.body_bytes > max_body {
            result.issue = Some(format!(
                "the body of {} bytes exceeds the limit of {max_body} bytes",
                result.body_bytes
            ));
        }
        let text = result.body.trim();
        if !text.is_empty() {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Array(items)) => {
                    result.messages.extend(items.into_iter().map(|item| {
                        let text = item.to_string();
                        (item, text)
                    }));
                }
                Ok(value) => result.messages.push((value, text.to_string())),
                Err(e) => {
                    if result.issue.is_none() {
                        result.issue = Some(format!("the body is not JSON: {e}"));
                    }
                }
            }
        }
    }
    Ok(result)
}

impl crate::record::HttpRecord {
    /// Records what came back: status, headers, body size and encoding, and the SSE events'
    /// ids (the facts every exchange keeps, whatever asked for it).
    pub fn record_response(&mut self, response: &HttpResponse) {
        self.status = Some(response.status);
        self.response_headers = response.headers.clone();
        self.body_bytes = response.body_bytes;
        self.utf8_errors = response.utf8_errors;
        self.ended_after_response = response.ended_after_response;
        self.first_event = response.events.first().cloned();
        self.event_ids = response
            .events
            .iter()
            .filter_map(|e| e.id.clone())
            .collect();
    }
}
