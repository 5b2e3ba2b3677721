//! SSE streams: a POST answered as a stream, the GET stream, and the channel body that carries them.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::{event_message, State};
use crate::body::{event_stream, plain, HttpBody};
use crate::quirks::Quirk;
use crate::server::Session;

/// Answers with an SSE stream: the notifications as they come, then the response, then the end.
/// With `close_early`, the stream ends after the priming event; the rest is only kept for a GET
/// with Last-Event-ID.
#[allow(clippy::too_many_arguments)]
/// Long by design: one SSE response's events in order (priming, notifications, the response,
/// close or retry) with the quirks that change each.
pub(super) fn sse_response(
    state: &Arc<State>,
    session: &Arc<Session>,
    first: Option<Value>,
    mut notes: mpsc::UnboundedReceiver<Value>,
    work: tokio::task::JoinHandle<crate::server::Handled>,
    prime: bool,
    session_id: Option<String>,
    close_early: bool,
) -> Response<HttpBody> {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let stream = state
        .server
        .quirks
        .stream_number(state.counter.fetch_add(1, Ordering::Relaxed));
    let session = session.clone();
    let quirks = state.server.quirks.clone();
    session.live.lock().expect("live lock").insert(stream, None);
    tokio::spawn(async move {
        // Every event is kept in the session's store, for resumption with Last-Event-ID, and
        // goes to a GET that resumed this stream, if one is listening.
        let remember = |id: String, text: String| {
            let mut events = session.events.lock().expect("events lock");
            events.push((stream, id, text.clone()));
            if let Some(Some(resumed)) = session.live.lock().expect("live lock").get(&stream) {
                let _ = resumed.send(Bytes::from(text.clone()));
            }
            Bytes::from(text)
        };
        // A client that went away is not a cancellation: the work goes on and its events are
        // kept (with the quirk, the call is stopped instead).
        let abort = work.abort_handle();
        let tx = std::sync::Mutex::new(Some(tx));
        let send = |bytes: Bytes| {
            let gone = tx
                .lock()
                .expect("stream lock")
                .as_ref()
                .is_none_or(|tx| tx.send(bytes).is_err());
            if gone && !close_early && quirks.has(Quirk::DisconnectCancels) {
                abort.abort();
            }
        };
        if prime {
            let id = format!("{stream}-0");
            let priming = quirks.event("priming", "", format!("id: {id}\nretry: 1000\ndata:\n\n"));
            if !priming.is_empty() {
                send(remember(id.clone(), priming));
            }
        }
        if close_early {
            // The server ends the stream here; the work goes on.
            tx.lock().expect("stream lock").take();
        }
        let lose = close_early && quirks.has(Quirk::ReconnectionLosesResponse);
        let mut n = 0u64;
        let mut event = |data: &str| {
            n += 1;
            let id = format!("{stream}-{n}");
            let text = format!("id: {id}\nevent: message\ndata: {data}\n\n");
            if lose {
                Bytes::from(text)
            } else {
                remember(id.clone(), text)
            }
        };
        if let Some(first) = &first {
            send(event(&first.to_string()));
        }
        while let Some(note) = notes.recv().await {
            send(event(&note.to_string()));
        }
        if let Ok(handled) = work.await {
            if handled.batch {
                send(event(&Value::Array(handled.replies).to_string()));
            } else {
                // The response, then whatever a quirk sends after it on the same stream (a
                // late progress notification).
                for reply in handled.replies {
                    send(event(&reply.to_string()));
                }
            }
        }
        // The stream is over: a GET resuming it ends once it has what there was.
        session.live.lock().expect("live lock").remove(&stream);
        if quirks.has(Quirk::SseStreamLingers) {
            tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        }
        drop(tx);
    });
    let mut response = event_stream(rx);
    let headers = response.headers_mut();
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    // An initialize answered as a stream still hands out the session id.
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        headers.insert("mcp-session-id", id);
    }
    state.server.quirks.headers("sse", headers);
    response
}

/// An SSE response that ends at once, carrying nothing (for a request cancelled before it said
/// anything).
pub(super) fn empty_stream() -> Response<HttpBody> {
    let mut response = plain(StatusCode::OK, "");
    response.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    response
}

/// A GET stream (handshake era). With `Last-Event-ID` it resumes the stream that event was sent
/// on: the events sent after it on that stream, then the end. Without, it stays open and quiet
/// for a while (this server sends nothing unsolicited).
pub(super) fn get_stream(
    state: &Arc<State>,
    session: &Session,
    req: &Request<Incoming>,
) -> Response<HttpBody> {
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let last = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    match last {
        Some(last) => {
            let events = session.events.lock().expect("events lock");
            let every_stream = state.server.quirks.has(Quirk::ResumeReplaysOtherStreams);
            if let Some(at) = events.iter().position(|(_, id, _)| *id == last) {
                let stream = events[at].0;
                if state.server.quirks.has(Quirk::ResumeRequestIdReused) {
                    // The resumed stream numbers its requests afresh: its first one takes the
                    // id of the session's first request already done with.
                    let done = events
                        .iter()
                        .filter_map(|(_, _, text)| event_message(text))
                        .filter_map(|m| m.get("method").and(m.get("id")).cloned())
                        .find(|id| !session.awaits(id));
                    if let Some(id) = done {
                        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
                        let _ = tx.send(Bytes::from(format!("event: message\ndata: {ping}\n\n")));
                    }
                }
                let forget = state.server.quirks.has(Quirk::ResumeForgetsRequests);
                for (_, _, text) in events[at + 1..]
                    .iter()
                    .filter(|(s, _, _)| every_stream || *s == stream)
                {
                    // With the quirk, an unanswered request is neither redelivered nor waited on.
                    let unanswered = event_message(text)
                        .and_then(|m| m.get("method").and(m.get("id")).cloned())
                        .filter(|id| session.awaits(id));
                    if let (true, Some(id)) = (forget, &unanswered) {
                        session.give_up(id);
                        continue;
                    }
                    let _ = tx.send(Bytes::from(text.clone()));
                }
                // A stream still running goes on here (under the events lock, so that no event
                // is missed or sent twice); a finished one ends with the replay.
                if let Some(listener) = session.live.lock().expect("live lock").get_mut(&stream) {
                    *listener = Some(tx);
                }
            }
        }
        None => {
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                drop(tx);
            });
        }
    }
    event_stream(rx)
}
