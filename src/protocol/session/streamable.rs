//! Streamable HTTP: each request in its own HTTP exchange, the headers it carries (session,
//! protocol version, 2026-07-28 routing headers), SSE answers and their resumption.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::{answer_server_request, HttpLink, Outgoing, SendOptions, Session, MAX_NOTIFICATIONS};
use crate::record::exchange::authorization_refusal;
use crate::record::transcript::{Carried, HttpRecord, MAX_FRAME_TEXT};
use crate::record::version::Era;
use crate::record::{id_key, Direction, Exchange, FrameIssue, HttpFacts, Reply};
use crate::transport::http::{self, HttpRequest, HttpResponse};
use crate::transport::HttpSpec;

impl Session {
    pub(super) fn http_headers(
        &self,
        spec: &HttpSpec,
        outgoing: &Outgoing,
        options: &SendOptions,
    ) -> Vec<(String, String)> {
        // Read in place: a request's headers need a few of its fields, not a copy of all of it
        // (the server's capabilities and info among them).
        let info = self.info.lock().expect("info lock");
        let authority = crate::record::url::authority(&spec.url).unwrap_or_default();
        let mut headers: Vec<(String, String)> = vec![
            ("Host".into(), authority),
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        // The stateless era has no sessions: an id a server issued anyway (one that also speaks
        // the handshake era, answering an initialize) is not sent back on its requests.
        if let Some(id) = info
            .http_session
            .as_ref()
            .filter(|_| info.era != Some(Era::Stateless))
        {
            headers.push(("Mcp-Session-Id".into(), id.clone()));
        }
        match (info.era, &info.version) {
            (Some(Era::Stateless), Some(version)) => {
                headers.push((
                    "MCP-Protocol-Version".into(),
                    crate::record::version::wire(version).to_string(),
                ));
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
            // The header exists from 2025-06-18 on.
            (_, Some(version)) if crate::record::version::at_least(version, "2025-06-18") => {
                headers.push((
                    "MCP-Protocol-Version".into(),
                    crate::record::version::wire(version).to_string(),
                ));
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

    /// Sends one frame over Streamable HTTP and records what came back: the request, the answers to
    /// server requests posted while its stream is open, SEP-1699 resumption, the reply and the
    /// transcript.
    ///
    /// Long by design: one HTTP exchange from its first byte to its record, as one state machine whose
    /// closures share the request's bounds (timeout, cancellation, the awaited id); split, each part
    /// would need all of them passed in.
    pub(super) async fn send_http(
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
            // The session's POSTs take turns on its keep-alive connections; a GET stream, and a
            // POST whose stream mcpcheck drops on purpose, have connections of their own.
            reuse: (method == "POST" && options.drop_after_events.is_none())
                .then(|| link.pool.clone()),
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
        // A POST's stream is read on after its answer only within the bound on the exchange.
        let request = HttpRequest {
            stream_for: if method == "POST" {
                Some(timeout)
            } else {
                request.stream_for
            },
            ..request
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
                    reuse: None,
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
                        && !response.timed_out
                        && until.is_none()
                        && self.info.lock().expect("info lock").era != Some(Era::Stateless)
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
            Outgoing::Request { .. } => Carried::Request,
            Outgoing::Notification { .. } => Carried::Notification,
            Outgoing::Raw { .. } => Carried::Raw,
        };
        let mut record = HttpRecord {
            method: method.clone(),
            request_headers: headers.clone(),
            carried: if method == "POST" {
                carried
            } else {
                Carried::Method(method.to_ascii_lowercase())
            },
            ..HttpRecord::default()
        };
        // A request sent without the run's Authorization header, or with another in its place,
        // is a question for the authorization layer (the authorization checks send them): what
        // it refuses, with whatever body, is judged by those checks, not read as the server's
        // JSON-RPC by the checks over the whole run.
        // (The last of the run's, as the last given is the one sent.)
        let authorization = |headers: &[(String, String)]| {
            headers
                .iter()
                .rfind(|(n, _)| n.eq_ignore_ascii_case("authorization"))
                .map(|(_, v)| v.clone())
        };
        let probes_authorization = authorization(&link.spec.headers) != authorization(&headers);
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
            Ok(Err(error)) => {
                let detail = error.to_string();
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
                        && !response.timed_out
                        && !response.messages.iter().any(|(m, _)| answered(m)),
                );
                record.retry_sent = response.events.iter().any(|e| e.retry.is_some());
                // What the reply is read from: the messages of the response and of its
                // resumptions (not another copy of the events).
                // A copy only when resumptions add to the response's own.
                let merged = (!resumed.is_empty()).then(|| {
                    let mut merged = HttpResponse {
                        status: response.status,
                        headers: response.headers.clone(),
                        body: response.body.clone(),
                        messages: response.messages.clone(),
                        ..HttpResponse::default()
                    };
                    for (_, got) in &resumed {
                        merged.messages.extend(got.messages.iter().cloned());
                    }
                    merged
                });
                let (mut reply, notifications, server_requests) =
                    Self::http_reply(merged.as_ref().unwrap_or(&response), &answered);
                // An SSE stream was waited on (a plain body without an answer was not).
                if let (Reply::Nothing { waited_ms }, true) = (&mut reply, response.is_sse()) {
                    *waited_ms = started.elapsed().as_millis() as u64;
                }
                let unanswered_stream =
                    (response.is_sse() && matches!(reply, Reply::Nothing { .. })).then(|| {
                        format!(
                            "an SSE stream of {} events, {} bytes",
                            response.events_seen, response.body_bytes
                        )
                    });
                let facts = HttpFacts {
                    status: response.status,
                    headers: response.headers.clone(),
                    events: response.events.clone(),
                    session: had_session,
                    ended_early: record.closed_early == Some(true) && resumed.is_empty(),
                    unanswered_stream,
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
            // The body of the authorization layer's refusal is not the server's JSON-RPC: the
            // checks over the whole run do not read it as such (its HTTP record stays).
            let refused = facts.as_ref().is_some_and(|(_, response)| {
                authorization_refusal(response.status, &response.headers).is_some()
                    || (probes_authorization && response.status >= 400)
            });
            if let Some((_, response)) = facts.as_ref().filter(|_| !refused) {
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
                        Some(FrameIssue::Body(issue.clone())),
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
                // An HTTP-level refusal (say, 400 for a missing session) may have been made
                // before the request was read: with a null id it answers no request id, and
                // with another id it is judged apart (neither MCP nor JSON-RPC says what id
                // such a body carries).
                let refused = facts.as_ref().is_some_and(|(f, _)| f.status >= 400);
                match message.get("id") {
                    // An error about the body (its params, its headers against it) was made
                    // after the body was read, its id with it: without the id it answers no
                    // request.
                    Some(Value::Null) | None if refused && answers_what_was_read(message) => {
                        transcript.refusal_id_pairs.push((id.clone(), Value::Null))
                    }
                    Some(Value::Null) | None if refused => {}
                    Some(got) if refused => {
                        transcript.refusal_id_pairs.push((id.clone(), got.clone()))
                    }
                    Some(got) => transcript.id_pairs.push((id.clone(), got.clone())),
                    // A response without its id answers no request: judged like id null.
                    None => transcript.id_pairs.push((id.clone(), Value::Null)),
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
    pub(super) async fn resume_stream(
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
        let last_id =
            |events: &[crate::record::SseEvent]| events.iter().rev().find_map(|e| e.id.clone());
        let retry_of =
            |events: &[crate::record::SseEvent]| events.iter().rev().find_map(|e| e.retry);
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
                reuse: None,
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
                carried: Carried::Resumption,
                ..HttpRecord::default()
            };
            let got = match got {
                Ok(Ok(got)) => got,
                Ok(Err(error)) => {
                    record.error = Some(error.to_string());
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
    pub(super) fn http_reply(
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
        // The authorization layer's refusal is no JSON-RPC answer, whatever its body holds.
        let answer =
            answer.filter(|_| authorization_refusal(response.status, &response.headers).is_none());
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

    pub(super) fn learn_session(&self, outgoing: &Outgoing, response: &HttpResponse) {
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

    /// Sends one HTTP request whose answer nobody waits on (a session's DELETE, the POST of an
    /// answer to a server request), bounded by the request timeout whatever the server does.
    pub(super) async fn send_bounded(
        &self,
        request: &HttpRequest,
    ) -> Result<HttpResponse, http::HttpError> {
        http::send_within(
            request,
            self.limits.max_frame_bytes,
            self.limits.request_timeout,
            Duration::ZERO,
        )
        .await
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
pub(super) fn base64(bytes: &[u8]) -> String {
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

/// Whether an error body's code says the server read the request's body: invalid params,
/// resource not found, a header contradicting the body, a missing client capability (declared
/// in the body's `_meta`). A parse error, an invalid request or a server-defined code may come
/// before the body was read, and method not found (-32601) or an unsupported version (-32022)
/// can be told from the `Mcp-Method` and `MCP-Protocol-Version` headers alone.
fn answers_what_was_read(message: &Value) -> bool {
    message
        .pointer("/error/code")
        .and_then(Value::as_i64)
        .is_some_and(|code| [-32602, -32002, -32020, -32021].contains(&code))
}
