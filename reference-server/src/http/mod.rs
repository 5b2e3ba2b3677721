//! The Streamable HTTP transport of the reference server (protocol revisions 2025-03-26 and later).
//!
//! One endpoint, `/mcp`: POST carries messages, DELETE ends a session, GET is refused with 405
//! (the server offers no standalone stream). A request is answered with JSON, or with an SSE
//! stream when it produces notifications before its response. Origin is validated; sessions are
//! minted on `initialize`.

mod headers;
use headers::{
    body_names, param_header_problem, stateless_header_problem, stateless_status,
    zone_header_problem,
};
mod streams;
use streams::{empty_stream, get_stream, sse_response};

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::body::{plain, HttpBody, MAX_BODY};
use crate::quirks::{Challenge, Demand, Form, Quirk, Waiver};
use crate::server::{Server, Session, SUPPORTED};

struct State {
    server: Arc<Server>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// Session ids that were issued and have ended (DELETE, or a server stop).
    ended: Mutex<std::collections::HashSet<String>>,
    counter: AtomicU64,
    /// The 2024-11-05 HTTP+SSE streams (handshake era only).
    legacy: Arc<crate::legacy::Streams>,
}

/// Listens on `addr` and serves until the process is stopped. Prints the endpoint URL on stdout.
pub async fn serve(server: Arc<Server>, addr: SocketAddr) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("http://{local}/mcp");
    eprintln!("reference-server: listening on http://{local}/mcp");
    if !server.stateless() {
        eprintln!("reference-server: HTTP+SSE (2024-11-05) at http://{local}/sse");
    }
    let state = Arc::new(State {
        server,
        sessions: Mutex::new(HashMap::new()),
        ended: Mutex::default(),
        counter: AtomicU64::new(1),
        legacy: Arc::default(),
    });
    loop {
        let (stream, _) = listener.accept().await?;
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(route(&state, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn route(state: &Arc<State>, req: Request<Incoming>) -> Response<HttpBody> {
    if let Some(document) = resource_metadata(state, &req) {
        return document;
    }
    if let Some(document) = authorization_server_metadata(state, &req) {
        return document;
    }
    let legacy = !state.server.stateless() && matches!(req.uri().path(), "/sse" | "/messages");
    if req.uri().path() != "/mcp" && !legacy {
        return plain(StatusCode::NOT_FOUND, "not found");
    }
    if let Some(origin) = req
        .headers()
        .get("origin")
        .filter(|_| !state.server.quirks.waives(Waiver::Origin))
        .filter(|_| !(legacy && state.server.quirks.waives(Waiver::LegacySseOrigin)))
    {
        if !origin_allowed(origin) || state.server.quirks.demands(Demand::NoOrigin) {
            return rpc_error(
                StatusCode::FORBIDDEN,
                -32600,
                "Forbidden: invalid Origin",
                None,
            );
        }
    }
    match (req.uri().path(), req.method()) {
        ("/sse", &Method::GET) => {
            let host = req
                .headers()
                .get("host")
                .and_then(|h| h.to_str().ok())
                .unwrap_or("127.0.0.1")
                .to_string();
            return crate::legacy::open(&state.server, &state.legacy, new_session_id(state), &host);
        }
        ("/messages", &Method::POST) => {
            return crate::legacy::post(&state.server, &state.legacy, req).await
        }
        ("/sse" | "/messages", _) => {
            return plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => {}
    }
    // A quirk that waives the token for ping (`auth-open-ping`) lets ping and server/discover
    // through without one: which method a POST carries is known once its body is read.
    let open_ping = state.server.quirks.waives(Waiver::PingToken) && *req.method() == Method::POST;
    if !open_ping {
        if let Some(refusal) = unauthorized(state, &req) {
            return refusal;
        }
    }
    // With --dual-era, a GET or DELETE of the stateless era (its protocol version, no session)
    // is refused as that era refuses it.
    let stateless_other = state.server.dual_era
        && *req.method() != Method::POST
        && stateless_request(req.headers(), b"");
    if *req.method() != Method::POST {
        let request = crate::quirks::NonPost {
            method: req.method().as_str(),
            stateless: state.server.stateless(),
            stateless_request: stateless_other,
        };
        if let Some((status, body)) = state.server.quirks.intercepted(&request) {
            let status = StatusCode::from_u16(status).expect("a quirk's status is valid");
            return plain(status, body);
        }
    }
    match *req.method() {
        Method::POST => {
            let (parts, body) = req.into_parts();
            let body = match Limited::new(body, MAX_BODY).collect().await {
                Ok(body) => body.to_bytes(),
                Err(_) => {
                    return rpc_error(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        -32600,
                        "Request body too large",
                        None,
                    )
                }
            };
            let stateless = state
                .server
                .dual_era
                .then(|| stateless_request(&parts.headers, &body));
            let method = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|m| Some(m.get("method")?.as_str()?.to_string()));
            let req = Request::from_parts(parts, Full::new(body));
            let open = matches!(method.as_deref(), Some("ping" | "server/discover"));
            if open_ping && !open {
                if let Some(refusal) = unauthorized(state, &req) {
                    return refusal;
                }
            }
            match stateless {
                Some(stateless) => crate::server::ERA.scope(stateless, post(state, req)).await,
                None => post(state, req).await,
            }
        }
        // 2026-07-28 Streamable HTTP is POST only.
        _ if state.server.stateless() || stateless_other => {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
            response
                .headers_mut()
                .insert("allow", HeaderValue::from_static("POST"));
            response
        }
        Method::DELETE => match session_of(state, &req) {
            Ok((id, _)) => {
                if !state.server.quirks.waives(Waiver::SessionDelete) {
                    state.sessions.lock().expect("sessions lock").remove(&id);
                    state.ended.lock().expect("ended lock").insert(id);
                }
                plain(StatusCode::OK, "")
            }
            Err(response) => response,
        },
        Method::GET => match session_of(state, &req) {
            Ok((_, session)) => get_stream(state, &session, &req),
            Err(response) => response,
        },
        _ => {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
            response
                .headers_mut()
                .insert("allow", HeaderValue::from_static("POST, DELETE"));
            response
        }
    }
}

/// Only loopback origins are accepted (DNS-rebinding protection).
fn origin_allowed(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    let host = if rest.starts_with('[') {
        rest.split(']')
            .next()
            .map(|h| format!("{h}]"))
            .unwrap_or_default()
    } else {
        rest.split(':').next().unwrap_or("").to_string()
    };
    matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

#[expect(
    clippy::result_large_err,
    reason = "the error is the HTTP response to send, built once per request"
)]
fn session_of<B>(
    state: &State,
    req: &Request<B>,
) -> Result<(String, Arc<Session>), Response<HttpBody>> {
    let Some(id) = req
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: Mcp-Session-Id header is required",
            None,
        ));
    };
    match state.sessions.lock().expect("sessions lock").get(id) {
        Some(session) => Ok((id.to_string(), session.clone())),
        None => Err(rpc_error(
            StatusCode::NOT_FOUND,
            -32600,
            "Session not found",
            None,
        )),
    }
}

/// With `--dual-era`: whether a POST is of the stateless era. A `_meta` protocol version or
/// `server/discover` says the stateless era; `initialize` or a session id the handshake era;
/// anything else goes by its MCP-Protocol-Version header.
fn stateless_request(headers: &hyper::HeaderMap, body: &[u8]) -> bool {
    let message: Option<Value> = serde_json::from_slice(body).ok();
    let first = message
        .as_ref()
        .and_then(|m| if m.is_array() { m.get(0) } else { Some(m) });
    if let Some(first) = first {
        if first
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .is_some()
            || first.get("method") == Some(&json!("server/discover"))
        {
            return true;
        }
        if first.get("method") == Some(&json!("initialize")) {
            return false;
        }
    }
    // A session id says the handshake era, unless the message said otherwise (a 2026-07-28
    // server ignores the header).
    if headers.contains_key("mcp-session-id") {
        return false;
    }
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() == crate::server::STATELESS_VERSION)
}

/// Answers a POST to the endpoint (its body already read).
///
/// Long by design: the POST checks in the order the transport section gives them (Origin,
/// Accept, Content-Type, session, protocol version, body), each refusing with its own status.
async fn post(state: &Arc<State>, req: Request<Full<Bytes>>) -> Response<HttpBody> {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let accept = header("accept");
    if !(accept.contains("application/json") && accept.contains("text/event-stream")) {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "Not Acceptable: Accept must list application/json and text/event-stream",
            None,
        );
    }
    if !header("content-type").starts_with("application/json") {
        return rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32600,
            "Unsupported Media Type: use application/json",
            None,
        );
    }
    let protocol_version = header("mcp-protocol-version");
    // Header values compared with the body as they are (methods are case-sensitive).
    let raw_header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
    };
    let mcp_method = raw_header("mcp-method");
    let mcp_name = raw_header("mcp-name");
    let mcp_region = raw_header("mcp-param-region");
    let mcp_zone = raw_header("mcp-param-zone");
    let has_session_header = req.headers().contains_key("mcp-session-id");
    let session_header: Option<String> = req
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let has_last_event_id = req.headers().contains_key("last-event-id");
    let req_host = host_of(&req);
    let session = session_of(state, &req);
    // Read already, within MAX_BODY (`route`).
    let body = match req.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(never) => match never {},
    };
    let parsed: Option<Value> = serde_json::from_slice(&body).ok();
    let (sink, _) = mpsc::unbounded_channel();
    let Some(parsed) = parsed else {
        let handled = state
            .server
            .handle_frame(&Session::default(), &body, &sink)
            .await;
        if handled.stop {
            if let Ok((id, _)) = &session {
                state.sessions.lock().expect("sessions lock").remove(id);
                state.ended.lock().expect("ended lock").insert(id.clone());
            }
        }
        return json_response(
            state,
            StatusCode::BAD_REQUEST,
            Value::Array(handled.replies).take_first(),
            None,
        );
    };
    let no_message = parsed.as_object().is_some_and(|o| {
        !["method", "result", "error"]
            .iter()
            .any(|k| o.contains_key(*k))
    });
    if no_message && state.server.quirks.has(Quirk::HttpRefusalWrongCode) {
        // Refused at the HTTP level, as it may be, but with the body's code for another error.
        return rpc_error(StatusCode::BAD_REQUEST, -32700, "Parse error", None);
    }
    let method = parsed
        .get("method")
        .or_else(|| parsed.get(0).and_then(|m| m.get("method")))
        .and_then(Value::as_str);
    if let Some(method) = method.filter(|m| state.server.token_lacks.iter().any(|l| l == m)) {
        return insufficient_scope(&req_host, &format!("mcp:{method}"), method);
    }
    if state.server.stateless() {
        if has_last_event_id && state.server.quirks.demands(Demand::PostWithoutLastEventId) {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                -32600,
                "Bad Request: Last-Event-ID on a POST",
                parsed.get("id").cloned(),
            );
        }
        // A handshake-era client's initialize carries neither the headers nor `_meta`: it is
        // answered with the versions this server speaks (below), not with a header error.
        let legacy_initialize = parsed.get("method") == Some(&json!("initialize"))
            && parsed
                .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                .is_none()
            && !state.server.quirks.waives(Waiver::LegacyInitialize);
        if !state.server.quirks.waives(Waiver::StatelessHeaders) && !legacy_initialize {
            if let Some(problem) = stateless_header_problem(
                &state.server.quirks,
                &parsed,
                &protocol_version,
                &mcp_method,
                &mcp_name,
            ) {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32020,
                    &problem,
                    parsed.get("id").cloned(),
                );
            }
        }
        if !state.server.quirks.waives(Waiver::ParamHeaders) {
            if let Some(problem) = param_header_problem(&parsed, &mcp_region, &state.server.quirks)
                .or_else(|| zone_header_problem(&parsed, &mcp_zone, &state.server.quirks))
            {
                return rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32020,
                    &problem,
                    parsed.get("id").cloned(),
                );
            }
        }
        // No sessions in the stateless era: every request stands alone.
        let id_header = state
            .server
            .quirks
            .has(Quirk::StatelessSessionId)
            .then(|| new_session_id(state));
        return respond(state, Arc::new(Session::default()), body, id_header, true).await;
    }
    let is_initialize =
        parsed.get("method") == Some(&json!("initialize")) && parsed.get("id").is_some();
    let (session_id, session) = if is_initialize {
        let id = new_session_id(state);
        let session = Arc::new(Session::default());
        state
            .sessions
            .lock()
            .expect("sessions lock")
            .insert(id.clone(), session.clone());
        (id, session)
    } else {
        match session {
            Ok(found) => found,
            Err(_) if state.server.quirks.waives(Waiver::SessionHeader) && !has_session_header => {
                let throwaway = Arc::new(Session::default());
                ("throwaway".to_string(), throwaway)
            }
            // Only an id it never issued: an ended session still gets 404.
            Err(_)
                if state.server.quirks.waives(Waiver::UnknownSession)
                    && has_session_header
                    && session_header.as_ref().is_some_and(|id| {
                        !state.ended.lock().expect("ended lock").contains(id)
                    }) =>
            {
                let throwaway = Arc::new(Session::default());
                ("throwaway".to_string(), throwaway)
            }
            Err(response) => return response,
        }
    };
    // With the quirk, a session on a version that has the header requires it.
    let header_missing = protocol_version.is_empty()
        && state.server.quirks.demands(Demand::ProtocolHeader)
        && session
            .version()
            .is_some_and(|v| v.as_str() >= "2025-06-18");
    if !is_initialize
        && (header_missing
            || (!protocol_version.is_empty()
                && !SUPPORTED.contains(&protocol_version.as_str())
                && !state.server.quirks.waives(Waiver::ProtocolVersionHeader)))
    {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Bad Request: unsupported MCP-Protocol-Version",
            None,
        );
    }
    let sse_allowed = session
        .version()
        .is_some_and(|v| v.as_str() >= "2025-11-25");
    respond(
        state,
        session,
        body,
        is_initialize.then_some(session_id),
        sse_allowed,
    )
    .await
}

/// Handles a POST body on a session and answers with 202, JSON or an SSE stream.
///
/// Long by design: how a handled POST is answered (202, JSON, or SSE with its priming event,
/// resumability and the quirks of each), one branch per answer form.
async fn respond(
    state: &Arc<State>,
    session: Arc<Session>,
    body: Bytes,
    id_header: Option<String>,
    sse_allowed: bool,
) -> Response<HttpBody> {
    // With the quirk, a call of the slow fixture tool holds the session until it is done.
    let slow = body.windows(13).any(|w| w == b"mcpcheck_slow");
    if state.server.quirks.demands(Demand::OneSlowCall)
        && slow
        && session.busy.swap(true, Ordering::Relaxed)
    {
        return plain(
            StatusCode::CONFLICT,
            "Conflict: another request of this session is in progress",
        );
    }
    // Cancellation: a notifications/cancelled stops the tool call it names (its stream then
    // ends without a response).
    let message: Option<Value> = serde_json::from_slice(&body).ok();
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str);
    if method == Some("notifications/cancelled") && !state.server.quirks.waives(Waiver::Cancel) {
        let id = message
            .as_ref()
            .and_then(|m| m.pointer("/params/requestId"))
            .map(Value::to_string)
            .unwrap_or_default();
        if let Some(task) = session
            .in_flight
            .lock()
            .expect("in-flight lock")
            .remove(&id)
        {
            task.abort();
        }
    }
    let call_id = (method == Some("tools/call"))
        .then(|| {
            message
                .as_ref()
                .and_then(|m| m.get("id"))
                .map(Value::to_string)
        })
        .flatten();
    let (sink, mut notes) = mpsc::unbounded_channel::<Value>();
    let server = state.server.clone();
    let task_session = session.clone();
    let mut work = tokio::spawn(crate::server::in_this_era(async move {
        let handled = server.handle_frame(&task_session, &body, &sink).await;
        if slow {
            task_session.busy.store(false, Ordering::Relaxed);
        }
        handled
    }));
    if let Some(id) = &call_id {
        session
            .in_flight
            .lock()
            .expect("in-flight lock")
            .insert(id.clone(), work.abort_handle());
    }
    // The official reconnection fixture (2025-11-25): its stream is closed after the priming
    // event, and the client resumes it (SEP-1699).
    let reconnect = sse_allowed && body_names(&message, "test_reconnection");
    if reconnect {
        return sse_response(state, &session, None, notes, work, true, id_header, true);
    }
    // Notifications first: a handler that logs and then answers at once must not have its
    // notification dropped because its answer was ready too.
    let handled = tokio::select! {
        biased;
        Some(first) = notes.recv() => {
            return sse_response(state, &session, Some(first), notes, work, sse_allowed, id_header, false);
        }
        handled = &mut work => match handled {
            Ok(handled) => handled,
            // Cancelled before it said anything: an empty stream, and no response.
            Err(_) => return empty_stream(),
        },
    };
    if let Some(id) = &call_id {
        session.in_flight.lock().expect("in-flight lock").remove(id);
    }
    if !handled.had_request {
        if handled.replies.is_empty() {
            let status = state
                .server
                .quirks
                .status(&Value::Null, StatusCode::ACCEPTED);
            return plain(status, "");
        }
        return json_response(
            state,
            StatusCode::OK,
            Value::Array(handled.replies).take_first(),
            id_header,
        );
    }
    let mut body = if handled.batch {
        Value::Array(handled.replies)
    } else {
        Value::Array(handled.replies).take_first()
    };
    let status = if state.server.stateless() {
        stateless_status(&body)
    } else {
        StatusCode::OK
    };
    let status = state.server.quirks.status(&body, status);
    state.server.quirks.posted(status.as_u16(), &mut body);
    json_response(state, status, body, id_header)
}

fn new_session_id(state: &State) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(state.counter.fetch_add(1, Ordering::Relaxed));
    let id = format!("{:016x}{:016x}", hasher.finish(), std::process::id());
    state.server.quirks.session_id(id)
}

fn json_response(
    state: &State,
    status: StatusCode,
    body: Value,
    session_id: Option<String>,
) -> Response<HttpBody> {
    let mut bytes = body.to_string().into_bytes();
    state.server.quirks.encoded("http", &mut bytes);
    let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert("mcp-session-id", id);
    }
    state.server.quirks.headers("json", response.headers_mut());
    response
}

/// The host the request named, for URLs of this server (its resource metadata).
fn host_of<B>(req: &Request<B>) -> String {
    req.headers()
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1")
        .to_string()
}

/// With `--static-token` or `--auth`: a request to the endpoint without a good token is refused
/// with 401 and a Bearer challenge naming the resource metadata (RFC 6750 §3, RFC 9728 §5.1),
/// with a JSON body that is not JSON-RPC, as many protected servers answer; a token of the
/// issuer's without the scope gets 403 `insufficient_scope`.
fn unauthorized<B>(state: &Arc<State>, req: &Request<B>) -> Option<Response<HttpBody>> {
    if !state.server.protected() {
        return None;
    }
    let trusted_session = state.server.quirks.waives(Waiver::TokenInSession)
        && req
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|id| {
                state
                    .sessions
                    .lock()
                    .expect("sessions lock")
                    .contains_key(id)
            });
    if trusted_session {
        return None;
    }
    let given = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, value)| value.trim());
    let host = host_of(req);
    if let Some(given) = given {
        let expired = state.server.expired_token.as_deref() == Some(given);
        if state.server.static_token.as_deref() == Some(given)
            || state.server.quirks.accepts(given, expired)
        {
            return None;
        }
        let resource = format!("http://{host}/mcp");
        match state.server.issuer.as_ref().map(|issuer| {
            let audience =
                (!state.server.quirks.waives(Waiver::Audience)).then_some(resource.as_str());
            let among = state.server.quirks.waives(Waiver::SoleAudience);
            issuer.check(given, audience, among, SCOPE)
        }) {
            Some(Ok(())) => return None,
            Some(Err(crate::issuer::Refused::Scope)) => {
                return Some(insufficient_scope(&host, SCOPE, "this server"))
            }
            Some(Err(crate::issuer::Refused::Invalid(_))) | None => {}
        }
    }
    let (error, description) = match given {
        None => (None, "a bearer token is required"),
        Some(_) => (Some("invalid_token"), "the token is not valid here"),
    };
    let quirks = &state.server.quirks;
    let mut params = vec![(
        "resource_metadata".to_string(),
        format!(
            "http://{host}{}",
            metadata_path(state).unwrap_or(METADATA_PATH)
        ),
    )];
    params.push(("scope".to_string(), SCOPE.to_string()));
    if let Some(error) = error {
        params.push(("error".to_string(), error.to_string()));
    }
    let mut challenge = Challenge {
        scheme: "Bearer".into(),
        params,
        status: StatusCode::UNAUTHORIZED.as_u16(),
        token_given: given.is_some(),
        error: error.map(str::to_string),
        description: description.to_string(),
        form: Form::Challenged,
    };
    quirks.challenge(&mut challenge);
    let status = StatusCode::from_u16(challenge.status).unwrap_or(StatusCode::UNAUTHORIZED);
    let error = challenge.error.as_deref().unwrap_or("unauthorized");
    Some(match challenge.form {
        Form::Challenged => {
            let body = json!({"error": error, "error_description": challenge.description});
            auth_refusal(status, &challenge.header(), &body)
        }
        Form::Bare => plain(StatusCode::UNAUTHORIZED, "unauthorized"),
        Form::Unchallenged => oauth_error(status, error, &challenge.description),
    })
}

/// The scope a token needs for this server (the one its challenge asks for).
const SCOPE: &str = "mcp";

/// The path-aware well-known URI of the endpoint (RFC 9728 §3.1): where the protected resource
/// metadata is served unless a quirk moves it, what a challenge names if it is served nowhere,
/// and where the redirect of `auth-metadata-redirect` leads.
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

/// Where the protected resource metadata is served, if anywhere: [`METADATA_PATH`] unless a
/// quirk moves it or serves it nowhere.
fn metadata_path(state: &State) -> Option<&'static str> {
    state
        .server
        .quirks
        .located("protected-resource", Some(METADATA_PATH))
}

/// With `--static-token`: the protected resource metadata (RFC 9728), served without a token
/// (a GET of its well-known URI), naming the endpoint as the resource and the authorization
/// server that issues its tokens.
fn resource_metadata(state: &Arc<State>, req: &Request<Incoming>) -> Option<Response<HttpBody>> {
    state.server.protected().then_some(())?;
    let quirks = &state.server.quirks;
    if quirks.located("moved-protected-resource", None) == Some(req.uri().path()) {
        let mut moved = plain(StatusCode::PERMANENT_REDIRECT, "moved");
        moved
            .headers_mut()
            .insert("location", HeaderValue::from_static(METADATA_PATH));
        return Some(moved);
    }
    if metadata_path(state) != Some(req.uri().path()) || req.method() != Method::GET {
        return None;
    }
    if quirks.demands(Demand::MetadataToken) {
        if let Some(refusal) = unauthorized(state, req) {
            return Some(refusal);
        }
    }
    let host = host_of(req);
    let issuer = state
        .server
        .authorization_server
        .clone()
        .unwrap_or_else(|| format!("http://{host}"));
    let resource = format!("http://{host}/mcp");
    let mut document = json!({
        "resource": resource,
        "authorization_servers": [issuer],
        "scopes_supported": [SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "mcpcheck reference server",
    });
    quirks.document("protected-resource", document.as_object_mut()?);
    let mut bytes = document.to_string().into_bytes();
    quirks.encoded("protected-resource", &mut bytes);
    let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed());
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    quirks.headers("protected-resource", response.headers_mut());
    Some(response)
}

/// With `--static-token` and no `--authorization-server`: this server's origin is its own
/// authorization server as far as discovery goes, and serves that server's metadata (RFC 8414 at
/// `/.well-known/oauth-authorization-server`), so that the checks of the document have a server
/// whose every field a quirk can change, and the default authorization endpoint 2025-03-26 names
/// (`/authorize`). (Its endpoints issue nothing: a run against a real authorization server names
/// it with `--authorization-server`.)
fn authorization_server_metadata(
    state: &Arc<State>,
    req: &Request<Incoming>,
) -> Option<Response<HttpBody>> {
    state.server.protected().then_some(())?;
    if state.server.authorization_server.is_some() || req.method() != Method::GET {
        return None;
    }
    let quirks = &state.server.quirks;
    if quirks.located("authorize", Some("/authorize")) == Some(req.uri().path()) {
        // The default authorization endpoint of 2025-03-26 (at the origin, for clients that
        // find no metadata): a request without a client is refused as RFC 6749 §4.1.2.1 says,
        // with an error to the user and no redirect. It issues nothing.
        return Some(oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "client_id is required",
        ));
    }
    // A second authorization server, at this origin's `/second`, where a quirk locates one.
    let second = quirks.located("second-authorization-server", None) == Some(req.uri().path());
    let path = quirks.located(
        "authorization-server",
        Some("/.well-known/oauth-authorization-server"),
    )?;
    if req.uri().path() != path && !second {
        return None;
    }
    let origin = format!("http://{}", host_of(req));
    let issuer = if second {
        format!("{origin}/second")
    } else {
        origin.clone()
    };
    let mut document = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": [SCOPE],
        "client_id_metadata_document_supported": true,
        "registration_endpoint": format!("{origin}/register"),
    });
    let members = document.as_object_mut()?;
    if second {
        quirks.document("second-authorization-server", members);
    } else {
        quirks.document("authorization-server", members);
    }
    let mut response = Response::new(Full::new(Bytes::from(document.to_string())).boxed());
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    Some(response)
}

/// With `--token-lacks-scope`: the token does not cover `method`, so the answer is 403 with an
/// `insufficient_scope` challenge naming the scope that would (2025-11-25, authorization#scope-challenge-handling).
fn insufficient_scope(host: &str, scope: &str, what: &str) -> Response<HttpBody> {
    let challenge = format!(
        "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"http://{host}/.well-known/oauth-protected-resource/mcp\", error_description=\"the token does not cover {what}\""
    );
    let body = json!({"error": "insufficient_scope", "error_description": format!("the token does not cover {what}")});
    auth_refusal(StatusCode::FORBIDDEN, &challenge, &body)
}

/// An OAuth error answer (RFC 6749 §5.2's body): JSON naming the error and describing it.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response<HttpBody> {
    let body = json!({"error": error, "error_description": description});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

fn auth_refusal(status: StatusCode, challenge: &str, body: &Value) -> Response<HttpBody> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    if let Ok(value) = HeaderValue::from_str(challenge) {
        headers.insert("www-authenticate", value);
    }
    response
}

fn rpc_error(
    status: StatusCode,
    code: i64,
    message: &str,
    id: Option<Value>,
) -> Response<HttpBody> {
    let mut body = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
    if let Some(id) = id {
        body["id"] = id;
    }
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

/// The first element of an array (or null), for the single-message case.
trait TakeFirst {
    fn take_first(self) -> Value;
}

impl TakeFirst for Value {
    fn take_first(self) -> Value {
        match self {
            Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
            _ => Value::Null,
        }
    }
}

/// The JSON-RPC message an SSE event as sent carries, if any.
fn event_message(text: &str) -> Option<Value> {
    text.lines()
        .find_map(|line| line.strip_prefix("data: "))
        .and_then(|data| serde_json::from_str(data).ok())
}
