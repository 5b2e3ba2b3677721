//! Replaying a connection's progress notifications against the requests (and tasks) in flight
//! when each arrived: the helpers of `progress-only-while-active` and `tasks-progress-stops`.

use std::collections::HashMap;

use serde_json::Value;

use super::{is_terminal, resumed, sent_message};
use crate::record::{id_key, Direction, Evidence, Transcript, WireFrame};

/// Replays a connection frame by frame and finds the progress notifications whose token no
/// request in flight carries: how many progress notifications there were, and the offenders.
/// Progress for a request already answered counts against the server only where it was surely
/// sent after the answer: later on the stream the answer came on (stdio and HTTP+SSE have one), or
/// on an HTTP stream whose request was sent after the answer arrived; on another stream it may
/// have been sent first and travelled slower.
pub(super) fn progress_outside_requests(transcript: &Transcript) -> (usize, Vec<Evidence>) {
    // Token → the id of the request in flight that carries it.
    let mut active: HashMap<String, String> = HashMap::new();
    // Token → where the answer of the request that carried it came (frame index, stream).
    let mut answered: HashMap<String, (usize, Option<usize>)> = HashMap::new();
    let mut order = SendOrder::default();
    let (mut seen, mut bad) = (0, Vec::new());
    for (index, frame) in transcript.frames.iter().enumerate() {
        match frame.direction {
            Direction::Sent => {
                order.sent(index, frame);
                let Some(sent) = sent_message(frame) else {
                    continue;
                };
                if let (Some(id), Some(token)) =
                    (sent.get("id"), sent.pointer("/params/_meta/progressToken"))
                {
                    active.insert(id_key(token), id_key(id));
                    answered.remove(&id_key(token));
                }
            }
            Direction::Received => {
                let Some(message) = frame
                    .message
                    .as_ref()
                    .filter(|_| !resumed(transcript, frame))
                else {
                    continue;
                };
                if message.get("method").and_then(Value::as_str) == Some("notifications/progress") {
                    seen += 1;
                    let token = message
                        .pointer("/params/progressToken")
                        .map(id_key)
                        .unwrap_or_default();
                    let late = match answered.get(&token) {
                        _ if active.contains_key(&token) => false,
                        None => true,
                        Some((at, stream)) => order.surely_after(frame, *at, *stream),
                    };
                    if late {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("progress for token {token}, which no request in flight carries (never sent, or its request was already answered)"),
                        ));
                    }
                } else if message.get("method").is_none() {
                    // A request answered with a CreateTaskResult lives on as its task, and its
                    // token with it (`tasks-progress-stops` judges when that ends).
                    if message
                        .pointer("/result/task/taskId")
                        .is_some_and(Value::is_string)
                    {
                        continue;
                    }
                    if let Some(id) = message.get("id").map(id_key) {
                        let done: Vec<String> = active
                            .iter()
                            .filter(|(_, request)| **request == id)
                            .map(|(token, _)| token.clone())
                            .collect();
                        for token in done {
                            active.remove(&token);
                            answered.insert(token, (index, frame.post));
                        }
                    }
                }
            }
        }
    }
    (seen, bad)
}

/// The status at `status`, if it is terminal.
pub(super) fn terminal(status: Option<&Value>) -> Option<&str> {
    status.and_then(Value::as_str).filter(|s| is_terminal(s))
}

/// Replays a connection frame by frame and finds the progress notifications for a task's token
/// that the server sent after the connection had learnt that the task was over: later on the
/// same stream (stdio and HTTP+SSE have one), or on an HTTP stream whose request was sent after
/// that. Returns how many progress notifications for tasks there were, and the offenders.
pub(super) fn task_progress_after_terminal(transcript: &Transcript) -> (usize, Vec<Evidence>) {
    let mut requests: HashMap<String, std::borrow::Cow<'_, Value>> = HashMap::new();
    let mut tasks: HashMap<String, TrackedTask> = HashMap::new();
    let mut order = SendOrder::default();
    let (mut seen, mut bad) = (0, Vec::new());
    for (index, frame) in transcript.frames.iter().enumerate() {
        if frame.direction == Direction::Sent {
            order.sent(index, frame);
            let Some(sent) = sent_message(frame) else {
                continue;
            };
            if let Some(token) = sent.pointer("/params/_meta/progressToken").map(id_key) {
                // The token now belongs to a new request; a task over that had it lets it go.
                tasks.retain(|_, task| task.token != token || task.ended.is_none());
            }
            if let Some(id) = sent.get("id").filter(|_| sent.get("method").is_some()) {
                requests.insert(id_key(id), sent.clone());
            }
            continue;
        }
        if resumed(transcript, frame) {
            continue;
        }
        let Some(message) = frame.message.as_ref() else {
            continue;
        };
        let mut end = |task_id: Option<&str>, why: String| {
            if let Some(task) = task_id.and_then(|t| tasks.get_mut(t)) {
                task.ended.get_or_insert((index, frame.post, why));
            }
        };
        match message.get("method").and_then(Value::as_str) {
            Some("notifications/progress") => {
                let token = message
                    .pointer("/params/progressToken")
                    .map(id_key)
                    .unwrap_or_default();
                // Progress under the task's id instead of the request's token is the task's
                // too (and a violation `progress-only-while-active` reports).
                let Some((task_id, task)) = tasks
                    .iter()
                    .find(|(id, t)| t.token == token || id_key(&Value::from(id.as_str())) == token)
                else {
                    continue;
                };
                seen += 1;
                let Some((at, stream, why)) = &task.ended else {
                    continue;
                };
                if order.surely_after(frame, *at, *stream) {
                    bad.push(Evidence::frame(
                        &frame.text,
                        &format!("progress for task {task_id} (token {token}) after {why}"),
                    ));
                }
            }
            Some("notifications/tasks/status") => {
                if let Some(status) = terminal(message.pointer("/params/status")) {
                    let task_id = message.pointer("/params/taskId").and_then(Value::as_str);
                    end(
                        task_id,
                        format!("notifications/tasks/status reported it {status}"),
                    );
                }
            }
            Some(_) => {}
            None => {
                let Some(request) = message.get("id").and_then(|id| requests.get(&id_key(id)))
                else {
                    continue;
                };
                let task_id = request.pointer("/params/taskId").and_then(Value::as_str);
                match request["method"].as_str().unwrap_or_default() {
                    _ if request
                        .pointer("/params/task")
                        .is_some_and(Value::is_object) =>
                    {
                        let made = message
                            .pointer("/result/task/taskId")
                            .and_then(Value::as_str);
                        let token = request.pointer("/params/_meta/progressToken").map(id_key);
                        if let (Some(made), Some(token)) = (made, token) {
                            tasks.insert(made.to_string(), TrackedTask { token, ended: None });
                        }
                    }
                    "tasks/result" => end(task_id, "tasks/result was answered".into()),
                    method @ ("tasks/get" | "tasks/cancel") => {
                        if let Some(status) = terminal(message.pointer("/result/status")) {
                            end(task_id, format!("{method} reported it {status}"));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    (seen, bad)
}

/// The order a connection's frames are known to have been sent in, across its streams: on one
/// stream (stdio and HTTP+SSE have just one) in the order they arrived; on an HTTP stream whose
/// request was sent after a frame arrived, after that frame; otherwise not known (a frame on
/// another stream may have been sent first and travelled slower).
#[derive(Default)]
struct SendOrder {
    /// HTTP: the index of the frame that opened each stream (the request sent on it).
    opened: HashMap<usize, usize>,
}

impl SendOrder {
    /// Notes a frame mcpcheck sent (the `index`th of the transcript).
    fn sent(&mut self, index: usize, frame: &WireFrame) {
        if let Some(post) = frame.post {
            self.opened.entry(post).or_insert(index);
        }
    }

    /// Whether `frame` was surely sent after the frame at `at`, which came on `stream`.
    fn surely_after(&self, frame: &WireFrame, at: usize, stream: Option<usize>) -> bool {
        frame.post == stream
            || frame
                .post
                .and_then(|p| self.opened.get(&p))
                .is_some_and(|opened_at| *opened_at > at)
    }
}

/// A task made by a request that carried a progress token, as one connection saw it.
struct TrackedTask {
    /// The request's progress token (as [`id_key`] spells it).
    token: String,
    /// Where the connection learnt that the task was over: the frame's index, its stream (HTTP)
    /// and what said so.
    ended: Option<(usize, Option<usize>, String)>,
}
