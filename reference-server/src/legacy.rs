//! The HTTP+SSE transport of protocol revision 2024-11-05, served beside Streamable HTTP as
//! servers that keep old clients working do: `GET /sse` opens a stream whose first event,
//! `endpoint`, names the URI to POST messages to (`/messages?sessionId=…`); each POST is
//! accepted with 202, and everything the server says comes back on the stream as SSE `message`
//! events. One stream is one client's conversation, carried like stdio's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::body::{event_stream, plain, HttpBody, MAX_BODY};
use crate::quirks::Quirk;
use crate::server::Server;

/// The open streams, by the session id their endpoint names.
#[derive(Default)]
pub struct Streams(Mutex<HashMap<String, Arc<Stream>>>);

/// One open stream: where its POSTed frames go, and (with the quirk `legacy-sse-answer-in-post`)
/// the POSTs waiting for their response, by request id as JSON text.
struct Stream {
    frames: mpsc::UnboundedSender<Vec<u8>>,
    in_post: Mutex<HashMap<String, oneshot::Sender<String>>>,
}

/// `GET /sse`: a new conversation, its stream beginning with the endpoint to POST to (`host`
/// is the request's Host header).
pub fn open(
    server: &Arc<Server>,
    streams: &Arc<Streams>,
    id: String,
    host: &str,
) -> Response<HttpBody> {
    let (frames_tx, frames_rx) = mpsc::unbounded_channel();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let (body_tx, body_rx) = mpsc::unbounded_channel::<Bytes>();
    let stream = Arc::new(Stream {
        frames: frames_tx,
        in_post: Mutex::new(HashMap::new()),
    });
    streams
        .0
        .lock()
        .expect("streams lock")
        .insert(id.clone(), stream.clone());
    let endpoint = format!("event: endpoint\ndata: /messages?sessionId={id}\n\n");
    let _ = body_tx.send(Bytes::from(server.quirks.event("endpoint", host, endpoint)));
    // HTTP+SSE is of the handshake era, also for a server that speaks both (--dual-era).
    let conversation = tokio::spawn(crate::server::ERA.scope(
        false,
        crate::stdio::converse(server.clone(), frames_rx, out_tx),
    ));
    let streams = streams.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                line = out_rx.recv() => {
                    let Some(line) = line else { break };
                    let line = line.trim_end();
                    // A POST that stopped waiting leaves its answer to the stream.
                    if let Some(waiter) = answer_waiter(&stream, line) {
                        if waiter.send(line.to_string()).is_ok() {
                            continue;
                        }
                    } else if has_method(line) {
                        // Once the stream carries a notification or request, the POSTs waiting
                        // answer with 202 and leave their answers to the stream, after it: an
                        // answer in a POST body could otherwise overtake what came before it
                        // (the quirk is about where answers go, not about their order).
                        stream.in_post.lock().expect("in-post lock").clear();
                    }
                    // A message that spans lines (a pretty-printed one) takes one data field each.
                    let mut event = String::from("event: message\n");
                    for part in line.lines() {
                        event.push_str("data: ");
                        event.push_str(part);
                        event.push('\n');
                    }
                    event.push('\n');
                    if body_tx.send(Bytes::from(event)).is_err() {
                        break;
                    }
                }
                () = body_tx.closed() => break,
            }
        }
        // The client went away (or the server stopped): the conversation ends with its stream.
        streams.0.lock().expect("streams lock").remove(&id);
        drop(stream);
        let _ = conversation.await;
    });
    event_stream(body_rx)
}

/// With the quirk, the POST a response belongs to, if one is waiting for it.
fn answer_waiter(stream: &Stream, line: &str) -> Option<oneshot::Sender<String>> {
    let message: Value = serde_json::from_str(line).ok()?;
    if message.get("method").is_some() {
        return None;
    }
    let id = message.get("id")?.to_string();
    stream.in_post.lock().expect("in-post lock").remove(&id)
}

/// Whether a line is a notification or a request.
fn has_method(line: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|m| m.get("method").is_some())
}

/// `POST /messages?sessionId=…`: one message for the stream's conversation, accepted with 202.
pub async fn post(
    server: &Server,
    streams: &Streams,
    req: Request<Incoming>,
) -> Response<HttpBody> {
    let id = req
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("sessionId="))
        .map(str::to_string);
    let Some(id) = id else {
        return plain(StatusCode::BAD_REQUEST, "sessionId is required");
    };
    let Some(stream) = streams.0.lock().expect("streams lock").get(&id).cloned() else {
        return plain(StatusCode::NOT_FOUND, "no such session");
    };
    let body = match http_body_util::Limited::new(req.into_body(), MAX_BODY)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes().to_vec(),
        Err(_) => return plain(StatusCode::PAYLOAD_TOO_LARGE, "body too large"),
    };
    let request_id = serde_json::from_slice::<Value>(&body).ok().and_then(|m| {
        m.get("method")?;
        m.get("id")
            .filter(|id| id.is_string() || id.is_number())
            .map(Value::to_string)
    });
    let waiter = match request_id {
        Some(request_id) if server.quirks.has(Quirk::LegacySseAnswerInPost) => {
            let (tx, rx) = oneshot::channel();
            stream
                .in_post
                .lock()
                .expect("in-post lock")
                .insert(request_id, tx);
            Some(rx)
        }
        _ => None,
    };
    if stream.frames.send(body).is_err() {
        return plain(StatusCode::NOT_FOUND, "no such session");
    }
    match waiter {
        // A request that never gets its response (a cancelled call) does not hold the POST long.
        Some(rx) => match tokio::time::timeout(std::time::Duration::from_secs(4), rx).await {
            Ok(Ok(answer)) => {
                let mut response = Response::new(
                    http_body_util::Full::new(Bytes::from(answer))
                        .map_err(|never| match never {})
                        .boxed(),
                );
                response
                    .headers_mut()
                    .insert("content-type", HeaderValue::from_static("application/json"));
                response
            }
            _ => plain(StatusCode::ACCEPTED, "Accepted"),
        },
        None => plain(StatusCode::ACCEPTED, "Accepted"),
    }
}
