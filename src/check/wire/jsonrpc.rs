//! Built-in checks of framing and the JSON-RPC layer: stdio lines and exit, the envelope of every
//! message, error objects, and the requests and progress notifications a server sends of its own.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::progress::{progress_outside_requests, task_progress_after_terminal};
use super::{
    declared_capabilities, is_response, received, resumed, sent_message, tally, Builtin, Idle,
    Tally, WireInput, MAX_EVIDENCE,
};
use crate::record::exchange::StoppedBy;
use crate::record::{
    id_key, Direction, Evidence, FrameIssue, Level, Status, Transcript, TransportKind, Verdict,
    WireFrame,
};

pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "progress-only-while-active",
        since: "2026.11.2",
        area: "progress",
        title: "progress notifications only name tokens of requests still in flight",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/utilities/progress#behavior-requirements")],
        expect: "each notifications/progress to carry the progressToken of a request mcpcheck sent that has not been answered yet",
        transports: &[],
        explain: "Progress notifications MUST only reference tokens that were provided in an active request; once the response is sent the request is over, and progress for it (or for a token never given) is a protocol error the client cannot attribute. Every progress notification of the run is examined, in the order it arrived; over HTTP, progress that arrives on another stream than its request's answer counts as late only if that stream was opened after the answer came (it may have been sent first and travelled slower). A request answered with a CreateTaskResult stays active as its task (see tasks-progress-stops).",
        idle: Some(Idle::Nothing("the server sent no progress notifications")),
        judge: progress_only_while_active,
    },
    Builtin {
        id: "tasks-progress-stops",
        since: "2026.11.7",
        area: "tasks",
        title: "2025-11-25: a task's progress stops once the task is terminal",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/utilities/progress#behavior-requirements"), ("2025-11-25", "basic/utilities/tasks#task-progress-notifications")],
        expect: "no notifications/progress with the token of a task-augmented request once the task was seen to be over: tasks/result answered, or tasks/get, tasks/cancel or notifications/tasks/status reported completed, failed or cancelled",
        transports: &[],
        explain: "For a task-augmented request the progressToken stays valid after the CreateTaskResult, for as long as the task works, and progress notifications for the task MUST stop once it reaches a terminal status. mcpcheck follows every task made by a request that carried a progress token and flags progress for it that the server sent after the client had learnt that the task was over: later on the same connection or stream, or on a stream opened after that. Progress sent before the end that travelled on another stream is not held against the server.",
        idle: Some(Idle::Nothing("no task made by a request with a progress token reported progress")),
        judge: tasks_progress_stops,
    },
    Builtin {
        id: "server-requests-allowed",
        since: "2026.11.2",
        area: "lifecycle",
        title: "the server sends only the requests the client's capabilities allow",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/lifecycle#capability-negotiation"), ("2026-07-28", "basic/patterns/mrtr")],
        expect: "roots/list, sampling/createMessage and elicitation/create only on connections whose initialize declared `roots`, `sampling` and `elicitation` (URL-mode elicitation only with `elicitation.url`, sampling with tools only with `sampling.tools`), and on 2026-07-28 no request at all",
        transports: &[],
        explain: "Both parties MUST respect the negotiated capabilities. mcpcheck's main connection declares only `roots`, so a server may ask it for roots/list or ping but not for sampling or elicitation; the official sampling and elicitation fixtures run on connections that declare those too. From 2025-11-25 a URL-mode elicitation needs `elicitation.url` and a sampling request with tools needs `sampling.tools`. On 2026-07-28 a server sends no requests of its own: it asks for input by returning an InputRequiredResult. Every request the server sent during the run is judged against what its connection declared.",
        idle: Some(Idle::Nothing("the server sent no requests of its own")),
        judge: server_requests_allowed,
    },
    Builtin {
        id: "server-request-id",
        since: "2026.11.2",
        area: "jsonrpc",
        title: "the server's own requests have string or integer ids, never reused",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/index#requests")],
        expect: "each request the server sends to have a string or integer id that it has not used before on the connection",
        transports: &[],
        explain: "Requests MUST include a string or integer ID, which MUST NOT be null and MUST NOT have been used before by the requestor within the same session; a reused id makes the client's answer ambiguous. Every request the server sent during the run is examined, those on streams resumed with Last-Event-ID too: there the very same request again is its redelivery, while another request under an id already used is a reuse (a server that numbers each stream's requests afresh, say).",
        idle: Some(Idle::Nothing("the server sent no requests of its own")),
        judge: server_request_id,
    },
    Builtin {
        id: "stdio-framing",
        since: "2026.11",
        area: "stdio",
        title: "stdout carries only MCP messages, one per line",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#stdio")],
        expect: "every line on stdout to be exactly one JSON-RPC message, with no banner, log line, blank line or pretty-printed JSON",
        transports: &[TransportKind::Stdio],
        explain: "Messages are delimited by newlines and MUST NOT contain embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message. Every line the server writes during the whole run is examined.",
        idle: None,
        judge: stdio_framing,
    },
    Builtin {
        id: "stdio-exit-before-initialize",
        since: "2026.11.11",
        area: "stdio",
        title: "a server whose stdin closes before initialize exits (its status and stderr are recorded)",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "basic/lifecycle#stdio")],
        expect: "a second server process, whose stdin mcpcheck closes before sending anything, to exit within the startup bound plus the exit grace, without needing SIGTERM",
        transports: &[TransportKind::Stdio],
        explain: "A client that gives up before the handshake (a wrong command, a cancelled start) closes the server's input at once; the server should exit then as at any other time. mcpcheck starts the server once more, closes its stdin without a word, and records how it ended and the end of its stderr, which often says what a server expects at startup (an environment variable, a config file).",
        idle: None,
        judge: stdio_exit_before_initialize,
    },
    Builtin {
        id: "stdio-exit-on-stdin-eof",
        since: "2026.11",
        area: "stdio",
        title: "the server exits when its stdin is closed",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "basic/lifecycle#stdio")],
        expect: "the server to exit within the grace period after mcpcheck closes its stdin, without needing SIGTERM",
        transports: &[TransportKind::Stdio],
        explain: "For stdio, shutdown starts with the client closing the server's input stream; the client then waits and escalates to SIGTERM and SIGKILL only if the server does not exit. mcpcheck follows that ladder at the end of the run.",
        idle: None,
        judge: stdio_exit_on_stdin_eof,
    },
    Builtin {
        id: "jsonrpc-version-field",
        since: "2026.11",
        area: "jsonrpc",
        title: "every message carries \"jsonrpc\": \"2.0\"",
        level: Level::Must,
        derived: true,
        spec: &[("2025-11-25", "basic/index#messages"), ("jsonrpc-2.0", "request_object")],
        expect: "every message from the server to have the member \"jsonrpc\" with the value \"2.0\"",
        transports: &[],
        explain: "All MCP messages MUST follow JSON-RPC 2.0, whose envelope requires the `jsonrpc` member to be exactly \"2.0\". Every message received during the run is examined.",
        idle: None,
        judge: jsonrpc_version_field,
    },
    Builtin {
        id: "jsonrpc-response-id",
        since: "2026.11",
        area: "jsonrpc",
        title: "every response echoes its request's id, with the same JSON type",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/index#responses")],
        expect: "each response's id to equal the id of the request it answers, with the same JSON type (a string stays a string)",
        transports: &[],
        explain: "Responses MUST include the same id as the request they correspond to. mcpcheck matches responses to requests by value, so a response whose id has the wrong type is still found and reported here rather than lost.",
        idle: None,
        judge: jsonrpc_response_id,
    },
    Builtin {
        id: "jsonrpc-response-once",
        since: "2026.11.10",
        area: "jsonrpc",
        title: "each request is answered once",
        level: Level::Should,
        derived: true,
        spec: &[("2025-11-25", "basic/index#responses")],
        expect: "one response to each request: no second response with the id of a request already answered",
        transports: &[TransportKind::Stdio, TransportKind::LegacySse],
        explain: "Responses are sent in reply to requests, one to each; a client matches a response to its request by id, and a second response with the same id would be taken for the answer to a later request (which mcpcheck does not do). Neither MCP nor JSON-RPC 2.0 says 'exactly once' in so many words, so this is derived and at most a warning. Over stdio and HTTP+SSE mcpcheck counts, per connection, the responses to every id it sent; over Streamable HTTP a response redelivered on a resumed stream is not a duplicate, so that transport is not judged here.",
        idle: Some(Idle::Nothing("mcpcheck got no response over a stream transport")),
        judge: jsonrpc_response_once,
    },
    Builtin {
        id: "jsonrpc-response-result-xor-error",
        since: "2026.11",
        area: "jsonrpc",
        title: "every response carries exactly one of result and error",
        level: Level::Must,
        derived: true,
        spec: &[("2024-11-05", "basic/messages#responses"), ("jsonrpc-2.0", "response_object")],
        expect: "each response to have either `result` or `error`, never both and never neither",
        transports: &[],
        explain: "JSON-RPC 2.0: either the result member or the error member MUST be included, but both members MUST NOT be included.",
        idle: None,
        judge: jsonrpc_response_result_xor_error,
    },
    Builtin {
        id: "jsonrpc-error-shape",
        since: "2026.11",
        area: "jsonrpc",
        title: "every error has an integer code and a string message",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/index#responses"), ("jsonrpc-2.0", "error_object")],
        expect: "each `error` to be an object with an integer `code` and a string `message`",
        transports: &[],
        explain: "Error responses MUST include an error code (an integer) and an error message; `data` is optional.",
        idle: None,
        judge: jsonrpc_error_shape,
    },
    Builtin {
        id: "wire-utf8",
        since: "2026.11.3",
        area: "jsonrpc",
        title: "every byte the server sends is UTF-8",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports"), ("rfc3629", "section-3")],
        expect: "every stdout line, HTTP body and SSE line the server sends to decode as UTF-8",
        transports: &[],
        explain: "JSON-RPC messages MUST be UTF-8 encoded, on every transport. mcpcheck decodes each stdio line, each JSON body and each SSE line strictly; a byte sequence that is not UTF-8 (a Latin-1 \u{e9}, a lone continuation byte) is a violation even where a lenient decoder would have replaced it and read on.",
        idle: None,
        judge: wire_utf8,
    },
    Builtin {
        id: "logging-capability-declared",
        since: "2026.11.3",
        area: "logging",
        title: "log messages come only from a server that declares logging",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "server/utilities/logging#capabilities"), ("2026-07-28", "server/utilities/logging")],
        expect: "no notifications/message from a server whose capabilities (initialize or server/discover) lack `logging`",
        transports: &[],
        explain: "Servers that emit log message notifications MUST declare the `logging` capability. Every notifications/message of the run is compared with the capabilities the server declared on that connection (or, on a connection that did not ask, in the run's discover or initialize result).",
        idle: Some(Idle::Nothing("the server sent no log message during the run")),
        judge: logging_capability_declared,
    },
    Builtin {
        id: "server-cancel-valid",
        since: "2026.11.3",
        area: "cancellation",
        title: "the server cancels only what it may",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/utilities/cancellation#cancellation-flow"), ("2026-07-28", "basic/patterns/cancellation")],
        expect: "each notifications/cancelled from the server to name a request the server issued on that connection; on 2026-07-28 only a subscriptions/listen of mcpcheck's",
        transports: &[],
        explain: "Up to 2025-11-25 either side may cancel a request it issued that is still in progress: a server's notifications/cancelled MUST reference one of its own requests. A cancellation that crosses mcpcheck's answer is not held against the server (the spec expects such races); one that names an id the server never used, or one of mcpcheck's requests, is. On 2026-07-28 a server sends no requests, and it sends notifications/cancelled only to end a subscriptions/listen stream; any other requestId is a violation.",
        idle: Some(Idle::Nothing("the server sent no notifications/cancelled during the run")),
        judge: server_cancel_valid,
    },
    Builtin {
        id: "lifecycle-quiet-before-initialized",
        since: "2026.11.3",
        area: "lifecycle",
        title: "no requests but pings before the client's initialized",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "basic/lifecycle#initialization")],
        expect: "between mcpcheck's initialize request and its notifications/initialized, no request from the server other than ping",
        transports: &[],
        explain: "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification: until then the client may not be ready to answer them. Every connection on which mcpcheck sent initialize and then initialized is examined, the main one and the lifecycle scenarios' own (one of which puts a ping between the two).",
        idle: Some(Idle::Nothing("no connection of the run had an initialize followed by initialized")),
        judge: lifecycle_quiet_before_initialized,
    },
];

/// Judges `lifecycle-quiet-before-initialized`: no requests but pings before the client's initialized.
fn lifecycle_quiet_before_initialized(
    def: &Builtin,
    input: &WireInput,
) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let mut window: Option<Vec<&WireFrame>> = None;
        for frame in &transcript.frames {
            match frame.direction {
                Direction::Sent => {
                    let method = sent_message(frame)
                        .and_then(|m| m.get("method").and_then(Value::as_str).map(str::to_string));
                    match method.as_deref() {
                        Some("initialize") => window = Some(Vec::new()),
                        Some("notifications/initialized") => {
                            if let Some(early) = window.take() {
                                found.seen += 1;
                                if let Some(first) = early.first() {
                                    found.bad.push(Evidence::frame(
                                        &first.text,
                                        &format!("{} request(s) from the server before mcpcheck sent notifications/initialized", early.len()),
                                    ));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Direction::Received => {
                    let Some(early) = window.as_mut() else {
                        continue;
                    };
                    let request = frame.message.as_ref().filter(|m| {
                        m.get("id").is_some()
                            && m.get("method")
                                .and_then(Value::as_str)
                                .is_some_and(|method| method != "ping")
                    });
                    if request.is_some() {
                        early.push(frame);
                    }
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `wire-utf8`: every byte the server sends is UTF-8.
fn wire_utf8(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received && f.post.is_none())
        {
            found.seen += 1;
            if frame.issue == Some(FrameIssue::NotUtf8) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    "a stdout line that is not UTF-8",
                ));
            }
        }
        for post in transcript.posts.iter().filter(|p| p.status.is_some()) {
            found.seen += 1;
            if post.utf8_errors > 0 {
                found.bad.push(Evidence::remark(
                    &format!("{} {}", post.method, post.carried),
                    format!(
                        "HTTP {} with {} stretch(es) of bytes that are not UTF-8 in its body",
                        post.status.unwrap_or(0),
                        post.utf8_errors
                    ),
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `logging-capability-declared`: log messages come only from a server that declares logging.
fn logging_capability_declared(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    let anywhere = input.transcripts.iter().find_map(declared_capabilities);
    for transcript in input.transcripts {
        let Some(declared) = declared_capabilities(transcript).or(anywhere.clone()) else {
            continue;
        };
        for frame in transcript
            .frames
            .iter()
            .filter(|f| f.direction == Direction::Received && !resumed(transcript, f))
        {
            let Some(message) = frame.message.as_ref() else {
                continue;
            };
            if message.get("method").and_then(Value::as_str) != Some("notifications/message")
                || message.get("id").is_some()
            {
                continue;
            }
            found.seen += 1;
            if declared.get("logging").is_none_or(Value::is_null) {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    "a log message, although the server's capabilities have no `logging`",
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `server-cancel-valid`: the server cancels only what it may.
fn server_cancel_valid(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let stateless = transcript.version.as_deref().is_some_and(|v| {
            crate::record::version::Era::of(v) == Some(crate::record::version::Era::Stateless)
        });
        found
            .bad
            .extend(stray_cancellations(transcript, stateless, &mut found.seen));
    }
    found.judge(def)
}

/// Judges `progress-only-while-active`: progress notifications only name tokens of requests still in flight.
fn progress_only_while_active(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let (count, offenders) = progress_outside_requests(transcript);
        found.seen += count;
        found.bad.extend(offenders);
    }
    found.judge(def)
}

/// Judges `tasks-progress-stops`: 2025-11-25: a task's progress stops once the task is terminal.
fn tasks_progress_stops(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let (count, offenders) = task_progress_after_terminal(transcript);
        found.seen += count;
        found.bad.extend(offenders);
    }
    found.judge(def)
}

/// Judges `server-requests-allowed`: the server sends only the requests the client's capabilities allow.
fn server_requests_allowed(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let stateless = transcript.version.as_deref().is_some_and(|v| {
            crate::record::version::Era::of(v) == Some(crate::record::version::Era::Stateless)
        });
        let declared = declared_client_capabilities(transcript);
        let has = |pointer: &str| declared.pointer(pointer).is_some_and(|c| !c.is_null());
        for (message, frame) in server_requests(transcript) {
            found.seen += 1;
            let method = message["method"].as_str().unwrap_or("?");
            let params = message.get("params");
            let problem = match method {
                _ if stateless => Some(format!("a {method} request on 2026-07-28, where a server sends no requests of its own (it asks for input with an InputRequiredResult instead)")),
                "roots/list" if !has("/roots") => Some("a roots/list request, although this connection did not declare the `roots` client capability".into()),
                "sampling/createMessage" if !has("/sampling") => Some("a sampling/createMessage request, although this connection did not declare the `sampling` client capability".into()),
                "sampling/createMessage"
                    if params.is_some_and(|p| p.get("tools").is_some() || p.get("toolChoice").is_some())
                        && !has("/sampling/tools") =>
                {
                    Some("a sampling/createMessage request with tools, although this connection did not declare `sampling.tools`".into())
                }
                "elicitation/create" if !has("/elicitation") => Some("an elicitation/create request, although this connection did not declare the `elicitation` client capability".into()),
                "elicitation/create"
                    if params.and_then(|p| p.get("mode")) == Some(&Value::from("url"))
                        && !has("/elicitation/url") =>
                {
                    Some("a URL-mode elicitation/create request, although this connection did not declare `elicitation.url`".into())
                }
                _ => None,
            };
            if let Some(problem) = problem {
                found.bad.push(Evidence::frame(&frame.text, &problem));
            }
        }
    }
    found.judge(def)
}

/// Judges `server-request-id`: the server's own requests have string or integer ids, never reused.
fn server_request_id(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        found
            .bad
            .extend(bad_request_ids(transcript, &mut found.seen));
    }
    found.judge(def)
}

/// Judges `stdio-framing`: stdout carries only MCP messages, one per line.
fn stdio_framing(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for frame in input
        .transcripts
        .iter()
        .flat_map(|t| t.frames.iter())
        .filter(|f| f.direction == Direction::Received)
    {
        found.seen += 1;
        if let Some(issue) = &frame.issue {
            found
                .bad
                .push(Evidence::frame(&frame.text, &issue.to_string()));
        }
    }
    found.judge(def)
}

/// Judges `stdio-exit-on-stdin-eof`: the server exits when its stdin is closed.
fn stdio_exit_on_stdin_eof(_: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let Some(exit) = input.main_exit else {
        return (
            Verdict::new(
                Status::NotTestable,
                "the server was not shut down by mcpcheck",
            ),
            Vec::new(),
        );
    };
    let evidence = vec![shutdown_remark("shutdown", exit)];
    match exit.stopped_by {
        StoppedBy::StdinEof => (
            Verdict::new(
                Status::Pass,
                format!(
                    "exited {} ms after stdin closed ({})",
                    exit.exit_ms.unwrap_or(0),
                    exit.status
                ),
            ),
            evidence,
        ),
        StoppedBy::ExitedBeforeShutdown => (
            Verdict::new(
                Status::NotTestable,
                format!(
                    "the server had already exited before stdin was closed ({})",
                    exit.status
                ),
            ),
            evidence,
        ),
        other @ (StoppedBy::Sigterm | StoppedBy::Sigkill) => (
            Verdict::new(
                Status::Warn,
                format!("the server did not exit after stdin closed; it was stopped by {other}"),
            )
            .with_actual(format!("stopped by {other}")),
            evidence,
        ),
    }
}

/// How a server process ended, as evidence: what stopped it, its status, and when.
fn shutdown_remark(label: &str, exit: &crate::record::exchange::ExitReport) -> Evidence {
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

/// Judges `stdio-exit-before-initialize`: a server whose stdin closes before `initialize`
/// exits; its exit status and stderr tail go into the evidence either way.
fn stdio_exit_before_initialize(_: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let Some(early) = input.early_exit else {
        return (
            Verdict::new(
                Status::NotTestable,
                "no second server process could be started within the run's bound",
            ),
            Vec::new(),
        );
    };
    let exit = &early.exit;
    let stderr = early
        .stderr_tail
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let mut evidence = vec![shutdown_remark("stdin closed before initialize", exit)];
    if let Some(stderr) = stderr {
        evidence.push(Evidence::remark(
            "stderr",
            crate::record::cut(stderr, crate::record::EVIDENCE_TEXT),
        ));
    }
    let said = stderr
        .map(|s| {
            format!(
                "; stderr ends: {}",
                crate::record::cut(s.lines().last().unwrap_or(s), 200)
            )
        })
        .unwrap_or_default();
    // Exiting is what the check asks; how is shown beside the pass when it was not clean (a
    // failure status, or a crash's trace on stderr), so that a comparison of servers shows it.
    let crashed = stderr.is_some_and(|s| {
        [
            "Traceback (most recent call last)",
            "panicked at",
            "Unhandled",
            "\n    at ",
        ]
        .iter()
        .any(|mark| s.contains(mark))
    });
    let unclean = (exit.status != "exit 0" || crashed)
        .then(|| format!("not a clean exit: {}{said}", exit.status));
    match exit.stopped_by {
        StoppedBy::StdinEof | StoppedBy::ExitedBeforeShutdown => {
            let mut verdict = Verdict::new(
                Status::Pass,
                format!(
                    "exited ({}) {}{said}",
                    exit.status,
                    if exit.stopped_by == StoppedBy::StdinEof {
                        format!("{} ms after stdin closed", exit.exit_ms.unwrap_or(0))
                    } else {
                        "before stdin was closed".to_string()
                    }
                ),
            );
            verdict.note = unclean;
            (verdict, evidence)
        }
        other @ (StoppedBy::Sigterm | StoppedBy::Sigkill) => (
            Verdict::new(
                Status::Warn,
                format!("the server did not exit when stdin closed before initialize; it was stopped by {other}{said}"),
            )
            .with_actual(format!("stopped by {other}")),
            evidence,
        ),
    }
}

/// Judges `jsonrpc-version-field`: every message carries "jsonrpc": "2.0".
fn jsonrpc_version_field(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for (message, frame) in received(input) {
        found.seen += 1;
        if message.get("jsonrpc") != Some(&Value::from("2.0")) {
            found.bad.push(Evidence::frame(
                &frame.text,
                "`jsonrpc` is missing or not \"2.0\"",
            ));
        }
    }
    found.judge(def)
}

/// Judges `jsonrpc-response-id`: every response echoes its request's id, with the same JSON type.
/// An HTTP refusal's body whose id is not the request's is a warning, not a failure: what id such a
/// body carries neither MCP nor JSON-RPC states.
fn jsonrpc_response_id(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut bad: Vec<Evidence> = Vec::new();
    let mut refusals: Vec<Evidence> = Vec::new();
    let mut seen = 0usize;
    for (sent, got) in input.transcripts.iter().flat_map(|t| t.id_pairs.iter()) {
        seen += 1;
        if sent != got {
            bad.push(Evidence::remark(
                "id",
                if got.is_null() {
                    format!("request id {sent} was answered with id null, or with no id")
                } else {
                    format!("request id {sent} was answered with id {got}")
                },
            ));
        }
    }
    for (sent, got) in input
        .transcripts
        .iter()
        .flat_map(|t| t.refusal_id_pairs.iter())
    {
        seen += 1;
        if sent != got {
            refusals.push(Evidence::remark(
                "id",
                if got.is_null() {
                    format!(
                        "request id {sent} was refused at the HTTP level with an error about the request it read, but without its id"
                    )
                } else {
                    format!(
                        "request id {sent} was refused at the HTTP level with a body whose id is {got}"
                    )
                },
            ));
        }
    }
    if bad.is_empty() && !refusals.is_empty() {
        let count = refusals.len();
        refusals.truncate(MAX_EVIDENCE);
        let mut verdict = Verdict::new(
            Status::Warn,
            format!("{count} HTTP refusal(s) carry a JSON-RPC body whose id is not the request's"),
        );
        verdict.note = Some(
            "the id of an HTTP-level error body is stated by neither MCP nor JSON-RPC 2.0 (derived), so it is a warning; null or no id is what a refusal made before the request was read carries, not one whose error is about the body it read (-32602, -32002, -32020, -32021)".into(),
        );
        return (verdict, refusals);
    }
    bad.extend(refusals);
    tally(def, bad, seen, None)
}

/// Judges `jsonrpc-response-once`: each request is answered once.
fn jsonrpc_response_once(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let mut sent: HashMap<String, usize> = HashMap::new();
        let mut answered: HashMap<String, (usize, &WireFrame)> = HashMap::new();
        for frame in &transcript.frames {
            match frame.direction {
                Direction::Sent => {
                    if let Some(id) = sent_message(frame)
                        .filter(|m| m.get("method").is_some())
                        .and_then(|m| m.get("id").cloned())
                    {
                        *sent.entry(id_key(&id)).or_default() += 1;
                    }
                }
                Direction::Received => {
                    let Some(id) = frame
                        .message
                        .as_ref()
                        .filter(|m| is_response(m))
                        .and_then(|m| m.get("id"))
                        .filter(|id| !id.is_null())
                    else {
                        continue;
                    };
                    let entry = answered.entry(id_key(id)).or_insert((0, frame));
                    entry.0 += 1;
                }
            }
        }
        for (id, (count, frame)) in &answered {
            let Some(requests) = sent.get(id) else {
                continue;
            };
            found.seen += 1;
            if count > requests {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!(
                        "{count} responses with id {id} to {requests} request(s) with that id"
                    ),
                ));
            }
        }
    }
    // The order of a map is no order: evidence is sorted for a stable report.
    found.bad.sort_by(|a, b| a.remark.cmp(&b.remark));
    found.judge(def)
}

/// Judges `jsonrpc-response-result-xor-error`: every response carries exactly one of result and error.
fn jsonrpc_response_result_xor_error(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for (message, frame) in received(input).filter(|(m, _)| is_response(m)) {
        found.seen += 1;
        let (r, e) = (
            message.get("result").is_some(),
            message.get("error").is_some(),
        );
        if r == e {
            found.bad.push(Evidence::frame(
                &frame.text,
                if r {
                    "both `result` and `error`"
                } else {
                    "neither `result` nor `error`"
                },
            ));
        }
    }
    found.judge(def)
}

/// Judges `jsonrpc-error-shape`: every error has an integer code and a string message.
fn jsonrpc_error_shape(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for (message, frame) in received(input).filter(|(m, _)| is_response(m)) {
        let Some(error) = message.get("error") else {
            continue;
        };
        found.seen += 1;
        let code_ok = error.get("code").is_some_and(|c| c.is_i64());
        let message_ok = error.get("message").is_some_and(Value::is_string);
        if !(code_ok && message_ok) {
            let what = match (code_ok, message_ok) {
                (false, false) => "no integer `code` and no string `message`",
                (false, true) => "no integer `code`",
                _ => "no string `message`",
            };
            found.bad.push(Evidence::frame(&frame.text, what));
        }
    }
    found.judge(def)
}
/// The client capabilities a connection declared: those of the initialize request mcpcheck sent
/// on it, else mcpcheck's own (`roots`; the stateless era declares them per request).
fn declared_client_capabilities(transcript: &Transcript) -> Value {
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
fn server_requests(transcript: &Transcript) -> impl Iterator<Item = (&Value, &WireFrame)> {
    transcript
        .frames
        .iter()
        .filter(|f| f.direction == Direction::Received && !resumed(transcript, f))
        .filter_map(|f| f.message.as_ref().map(|m| (m, f)))
        .filter(|(m, _)| m.get("method").is_some() && m.get("id").is_some())
}

/// The requests a server sent on one connection whose id is not a string or an integer, or was
/// used before on the connection. A stream resumed with `Last-Event-ID` may bring a request again:
/// the very same message under its id is a redelivery, not a reuse; another request under an id
/// already used is a reuse wherever it came. Counts every request into `seen`.
fn bad_request_ids(transcript: &Transcript, seen: &mut usize) -> Vec<Evidence> {
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
fn stray_cancellations(
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
