//! Built-in checks of framing and the JSON-RPC layer: stdio lines and exit, the envelope of every
//! message, error objects, and the requests and progress notifications a server sends of its own.

use super::{received_fresh, resumed, sent_message, Builtin};
use crate::record::{id_key, Direction, Evidence, Transcript, WireFrame};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

mod jsonrpc_error_shape;
mod jsonrpc_response_id;
mod jsonrpc_response_once;
mod jsonrpc_response_result_xor_error;
mod jsonrpc_version_field;
mod lifecycle_quiet_before_initialized;
mod logging_capability_declared;
mod progress_only_while_active;
mod server_cancel_valid;
mod server_request_id;
mod server_requests_allowed;
mod stdio_exit_before_initialize;
mod stdio_exit_on_stdin_eof;
mod stdio_framing;
mod tasks_progress_stops;
mod wire_utf8;

/// The area's checks, a file each, in the order reports list them.
pub(super) const BUILTINS: &[Builtin] = &[
    progress_only_while_active::CHECK,
    tasks_progress_stops::CHECK,
    server_requests_allowed::CHECK,
    server_request_id::CHECK,
    stdio_framing::CHECK,
    stdio_exit_before_initialize::CHECK,
    stdio_exit_on_stdin_eof::CHECK,
    jsonrpc_version_field::CHECK,
    jsonrpc_response_id::CHECK,
    jsonrpc_response_once::CHECK,
    jsonrpc_response_result_xor_error::CHECK,
    jsonrpc_error_shape::CHECK,
    wire_utf8::CHECK,
    logging_capability_declared::CHECK,
    server_cancel_valid::CHECK,
    lifecycle_quiet_before_initialized::CHECK,
];

/// How a server process ended, as evidence: what stopped it, its status, and when.
pub(super) fn shutdown_remark(label: &str, exit: &crate::record::exchange::ExitReport) -> Evidence {
    Evidence::remark(
        label,
        format!(
            "stopped by {}; {}{}",
            exit.stopped_by,
            exit.status,
            exit.exit_ms
                .map(|ms| format!(" after {ms} ms"))
                .unwrap_or_default()
        ),
    )
}

/// The client capabilities a connection declared: those of the initialize request mcpcheck sent
/// on it, else mcpcheck's own (`roots`; the stateless era declares them per request).
pub(super) fn declared_client_capabilities(transcript: &Transcript) -> Value {
    transcript
        .frames
        .iter()
        .filter(|f| f.direction == Direction::Sent)
        .filter_map(sent_message)
        .find(|m| m.get("method") == Some(&Value::from("initialize")))
        .and_then(|m| m.pointer("/params/capabilities").cloned())
        .unwrap_or_else(crate::record::exchange::client_capabilities)
}

/// The requests a server sent (messages with a method and an id), with their frames.
pub(super) fn server_requests(
    transcript: &Transcript,
) -> impl Iterator<Item = (&Value, &WireFrame)> {
    received_fresh(transcript).filter(|(m, _)| m.get("method").is_some() && m.get("id").is_some())
}

/// The requests a server sent on one connection whose id is not a string or an integer, or was
/// used before on the connection. A stream resumed with `Last-Event-ID` may bring a request again:
/// the very same message under its id is a redelivery, not a reuse; another request under an id
/// already used is a reuse wherever it came. Counts every request into `seen`.
pub(super) fn bad_request_ids(transcript: &Transcript, seen: &mut usize) -> Vec<Evidence> {
    let mut used: HashMap<String, &Value> = HashMap::new();
    let mut bad = Vec::new();
    for frame in transcript
        .frames
        .iter()
        .filter(|f| f.direction == Direction::Received)
    {
        let Some(message) = frame
            .message
            .as_ref()
            .filter(|m| m.get("method").is_some() && m.get("id").is_some())
        else {
            continue;
        };
        *seen += 1;
        let id = &message["id"];
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            bad.push(Evidence::frame(
                &frame.text,
                &format!("the request id {id} is not a string or an integer"),
            ));
            continue;
        }
        match used.get(&id_key(id)) {
            None => {
                used.insert(id_key(id), message);
            }
            Some(before) if resumed(transcript, frame) && *before == message => {}
            Some(before) if resumed(transcript, frame) => bad.push(Evidence::frame(
                &frame.text,
                &format!(
                    "on a resumed stream, the id {id} of an earlier {} names another request: not its redelivery but a reuse",
                    before.get("method").and_then(Value::as_str).unwrap_or("request")
                ),
            )),
            Some(_) => bad.push(Evidence::frame(
                &frame.text,
                &format!("the request id {id} was used before in this session"),
            )),
        }
    }
    bad
}

/// The `notifications/cancelled` a server sent on one connection that name no request it may
/// cancel: up to 2025-11-25 one of its own requests (issued before on that connection; one
/// that crossed mcpcheck's answer is fine, the spec expects such races), on 2026-07-28 a
/// `subscriptions/listen` mcpcheck sent. Counts every such notification into `seen`.
pub(super) fn stray_cancellations(
    transcript: &Transcript,
    stateless: bool,
    seen: &mut usize,
) -> Vec<Evidence> {
    let mut issued: HashSet<String> = HashSet::new();
    let mut listens: HashSet<String> = HashSet::new();
    let mut bad = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::Sent => {
                let Some(sent) = sent_message(frame) else {
                    continue;
                };
                if let (Some("subscriptions/listen"), Some(id)) =
                    (sent.get("method").and_then(Value::as_str), sent.get("id"))
                {
                    listens.insert(id_key(id));
                }
            }
            Direction::Received => {
                if resumed(transcript, frame) {
                    continue;
                }
                let Some(message) = frame.message.as_ref() else {
                    continue;
                };
                let method = message.get("method").and_then(Value::as_str);
                if let (Some(_), Some(id)) = (method, message.get("id")) {
                    issued.insert(id_key(id));
                    continue;
                }
                if method != Some("notifications/cancelled") {
                    continue;
                }
                *seen += 1;
                let target = message.pointer("/params/requestId");
                let key = target.map(id_key).unwrap_or_default();
                let shown = target.unwrap_or(&Value::Null);
                let problem = if stateless {
                    (!listens.contains(&key)).then(|| {
                        format!("on 2026-07-28 a server cancels only a subscriptions/listen, but requestId {shown} names none")
                    })
                } else {
                    (!issued.contains(&key)).then(|| {
                        format!("requestId {shown} names no request the server issued on this connection")
                    })
                };
                if let Some(problem) = problem {
                    bad.push(Evidence::frame(&frame.text, &problem));
                }
            }
        }
    }
    bad
}

#[cfg(test)]
mod tests;
