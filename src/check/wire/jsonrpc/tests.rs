//! Unit tests of [`super`].

use super::*;
use crate::check::wire::builtins;
use crate::check::wire::progress::{progress_outside_requests, task_progress_after_terminal};
use crate::check::wire::WireInput;
use crate::record::exchange::StoppedBy;
use crate::record::transcript::HttpRecord;
use crate::record::{Status, TransportKind};
use serde_json::json;

/// A frame on stream `post` (HTTP) or on the one pipe (`None`).
fn frame(direction: Direction, message: Value, post: Option<usize>) -> WireFrame {
    WireFrame {
        direction,
        at_ms: 0,
        text: message.to_string(),
        message: Some(message),
        issue: None,
        post,
    }
}

fn transcript(frames: Vec<WireFrame>) -> Transcript {
    let mut transcript = Transcript::default();
    transcript.frames = frames;
    transcript
}

fn progress(token: &str, step: u32) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": step}})
}

/// The task-augmented call (id 1, token "t") and its CreateTaskResult (task "k").
fn made(post: Option<usize>) -> Vec<WireFrame> {
    vec![
        frame(
            Direction::Sent,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "task": {}, "_meta": {"progressToken": "t"}}}),
            post,
        ),
        frame(
            Direction::Received,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"taskId": "k", "status": "working"}}}),
            post,
        ),
    ]
}

fn ask(id: u32, method: &str, post: Option<usize>) -> WireFrame {
    frame(
        Direction::Sent,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"taskId": "k"}}),
        post,
    )
}

fn answer(id: u32, result: Value, post: Option<usize>) -> WireFrame {
    frame(
        Direction::Received,
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
        post,
    )
}

#[test]
fn a_request_redelivered_on_a_resumed_stream_is_not_a_reuse_but_another_one_is() {
    let roots = json!({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"});
    let ping = json!({"jsonrpc": "2.0", "id": "r1", "method": "ping"});
    let mut transcript = transcript(vec![
        frame(Direction::Received, roots.clone(), Some(0)),
        // Stream 1 resumes stream 0: the same request again is its redelivery.
        frame(Direction::Received, roots.clone(), Some(1)),
        // Another request under the same id, resumed stream or not, is a reuse.
        frame(Direction::Received, ping.clone(), Some(1)),
        frame(Direction::Received, roots, Some(2)),
    ]);
    transcript.posts = vec![
        HttpRecord::default(),
        HttpRecord {
            method: "GET".into(),
            request_headers: vec![("Last-Event-ID".into(), "0-0".into())],
            ..HttpRecord::default()
        },
        HttpRecord::default(),
    ];
    let mut seen = 0;
    let bad = bad_request_ids(&transcript, &mut seen);
    assert_eq!((seen, bad.len()), (4, 2), "{bad:?}");
    assert!(bad[0]
        .remark
        .as_deref()
        .is_some_and(|r| r.contains("of an earlier roots/list names another request")));
    assert!(bad[1]
        .remark
        .as_deref()
        .is_some_and(|r| r.contains("was used before")));
}

#[test]
fn task_progress_after_the_end_on_one_pipe_is_flagged() {
    let mut frames = made(None);
    frames.extend([
        ask(2, "tasks/result", None),
        frame(Direction::Received, progress("t", 1), None),
        answer(2, json!({"content": []}), None),
        frame(Direction::Received, progress("t", 2), None),
    ]);
    let transcript = transcript(frames);
    let (seen, bad) = task_progress_after_terminal(&transcript);
    assert_eq!((seen, bad.len()), (2, 1));
    // The token lives on with its task: progress during the task is not out of place.
    let (seen, bad) = progress_outside_requests(&transcript);
    assert_eq!((seen, bad.len()), (2, 0));
}

#[test]
fn task_progress_is_late_only_on_its_stream_or_a_later_one() {
    let mut frames = made(Some(0));
    frames.extend([
        // An older stream (1) still open, and a tasks/get on stream 2 that reports the end.
        ask(2, "tasks/get", Some(1)),
        ask(3, "tasks/get", Some(2)),
        answer(3, json!({"taskId": "k", "status": "completed"}), Some(2)),
        // Sent before the end, perhaps: it travelled on the older stream.
        frame(Direction::Received, progress("t", 1), Some(1)),
        // A stream opened after the end cannot carry progress sent before it.
        ask(4, "tasks/get", Some(3)),
        frame(Direction::Received, progress("t", 2), Some(3)),
    ]);
    let (seen, bad) = task_progress_after_terminal(&transcript(frames));
    assert_eq!((seen, bad.len()), (2, 1));
    assert!(
        bad[0]
            .remark
            .as_deref()
            .is_some_and(|r| r.contains("tasks/get reported it completed")),
        "{bad:?}"
    );
}

#[test]
fn progress_after_an_answer_counts_only_where_it_surely_came_later() {
    let call = |id: u32, post| {
        frame(
            Direction::Sent,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "x", "_meta": {"progressToken": format!("t{id}")}}}),
            post,
        )
    };
    let frames = vec![
        // Answered on stream 0; its progress then comes on stream 1 (the GET, say): it may
        // have been sent first.
        call(1, Some(0)),
        answer(1, json!({"content": []}), Some(0)),
        frame(Direction::Received, progress("t1", 1), Some(1)),
        // After the answer on its own stream: late.
        call(2, Some(2)),
        answer(2, json!({"content": []}), Some(2)),
        frame(Direction::Received, progress("t2", 1), Some(2)),
        // A token never sent.
        frame(Direction::Received, progress("t9", 1), Some(2)),
    ];
    let (seen, bad) = progress_outside_requests(&transcript(frames));
    assert_eq!((seen, bad.len()), (3, 2));
}

#[test]
fn a_token_used_again_after_its_task_ended_is_the_new_request_s() {
    let mut frames = made(None);
    frames.extend([
        frame(
            Direction::Received,
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"taskId": "k", "status": "failed"}}),
            None,
        ),
        frame(
            Direction::Sent,
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "x", "_meta": {"progressToken": "t"}}}),
            None,
        ),
        frame(Direction::Received, progress("t", 1), None),
    ]);
    let (seen, bad) = task_progress_after_terminal(&transcript(frames));
    assert_eq!((seen, bad.len()), (0, 0));
}

#[test]
fn an_http_refusal_naming_another_id_is_a_warning_and_a_wrong_id_a_failure() {
    let def = builtins().find(|b| b.id == "jsonrpc-response-id").unwrap();
    let judge = |pairs: Vec<(Value, Value)>, refusals: Vec<(Value, Value)>| {
        let mut transcript = Transcript::default();
        transcript.id_pairs = pairs;
        transcript.refusal_id_pairs = refusals;
        let transcripts = [transcript];
        let input = WireInput::new(TransportKind::Http, &transcripts, None, None, None);
        (def.judge)(def, &input).0.status
    };
    let refused = vec![(json!(7), json!("server-error"))];
    assert_eq!(
        judge(vec![(json!(1), json!(1))], refused.clone()),
        Status::Warn
    );
    assert_eq!(
        judge(vec![(json!(1), json!("1"))], refused),
        Status::Fail,
        "a response with the wrong id still fails"
    );
    assert_eq!(
        judge(vec![(json!(1), json!(1))], vec![(json!(7), json!(7))]),
        Status::Pass
    );
}

#[test]
fn an_exit_on_stdin_eof_that_is_not_clean_passes_with_how_it_ended() {
    use crate::record::exchange::{EarlyExit, ExitReport};
    let def = builtins()
        .find(|b| b.id == "stdio-exit-before-initialize")
        .unwrap();
    let judge = |status: &str, stderr: Option<&str>| {
        let early = EarlyExit {
            exit: ExitReport {
                stopped_by: StoppedBy::StdinEof,
                exit_ms: Some(12),
                status: status.to_string(),
            },
            stderr_tail: stderr.map(str::to_string),
        };
        let input = WireInput::new(TransportKind::Stdio, &[], None, Some(&early), None);
        (def.judge)(def, &input).0
    };
    let clean = judge("exit 0", None);
    assert_eq!((clean.status, clean.note), (Status::Pass, None));
    let failed = judge("exit 1", Some("RuntimeError: stdin closed"));
    assert_eq!(failed.status, Status::Pass);
    assert!(failed.note.unwrap().contains("not a clean exit: exit 1"));
    let traced = judge(
        "exit 0",
        Some("Traceback (most recent call last):\n  File \"x\"\nEOFError"),
    );
    assert!(traced.note.is_some());
}
