//! Built-in checks judged over whole transcripts rather than single steps. Each area is a folder
//! with a file per check, holding the check's definition (as data) and its judgment, and a
//! `mod.rs` that lists them and holds what several of them share: [`jsonrpc`] (framing, the
//! envelope of every message, server-initiated traffic), [`content`] (what results and
//! notifications carry), [`http`] (the Streamable HTTP transport), [`legacy`] (the 2024-11-05
//! HTTP+SSE transport) and [`stateless`] (the 2026-07-28 wire).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::messages;
use crate::record::id_key;
use crate::record::transcript::cut;
use crate::record::ExitReport;
use crate::record::VersionRange;
use crate::record::{CheckDef, Level, SpecRef, Status, Verdict};
use crate::record::{Direction, Transcript, TransportKind, WireFrame};
use crate::record::{Evidence, EVIDENCE_TEXT};

mod content;
mod http;
mod jsonrpc;
mod legacy;
mod progress;
mod shapes;
mod stateless;

pub use shapes::{is_base64, uri_problem};
pub use stateless::{input_required_problems, x_mcp_header_problems};

/// A built-in check: its definition, as data, and the function that judges it. The runner
/// reaches each through [`builtins`].
pub struct Builtin {
    id: &'static str,
    /// The grading profile that first grades it (see the grading profiles).
    since: &'static str,
    area: &'static str,
    title: &'static str,
    level: Level,
    derived: bool,
    spec: &'static [(&'static str, &'static str)],
    expect: &'static str,
    /// The transports it is judged over (empty: every one).
    transports: &'static [TransportKind],
    explain: &'static str,
    /// Why the check is skipped when the run gave it nothing to examine (`None`: not testable).
    idle: Option<Idle>,
    /// The function that judges it, written next to the area's definitions.
    judge: Judge,
}

/// Why a built-in check is skipped when the run gave it nothing to examine.
#[derive(Clone, Copy, Debug)]
enum Idle {
    /// Nothing of its kind crossed the wire; the words say what.
    Nothing(&'static str),
    /// It examines messages of 2026-07-28 connections only; the words say which. In a run with
    /// no such connection it is for the stateless era, and nothing was missing.
    Stateless(&'static str),
}

/// How a built-in check is judged: a pure function of its definition and the run's record.
type Judge = fn(&Builtin, &WireInput) -> (Verdict, Vec<Evidence>);

/// Every area's built-ins.
const AREAS: [&[Builtin]; 5] = [
    jsonrpc::BUILTINS,
    content::BUILTINS,
    http::BUILTINS,
    legacy::BUILTINS,
    stateless::BUILTINS,
];

/// How many offending items are kept as evidence.
const MAX_EVIDENCE: usize = 5;

/// Every built-in, area by area.
pub fn builtins() -> impl Iterator<Item = &'static Builtin> {
    AREAS.iter().flat_map(|table| table.iter())
}

/// The ids of the built-in checks.
pub fn ids() -> Vec<&'static str> {
    builtins().map(|b| b.id).collect()
}

/// The definitions of the built-in checks.
pub fn definitions() -> Vec<CheckDef> {
    builtins().map(Builtin::definition).collect()
}

impl Builtin {
    /// The check's id.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The check's definition, as reports and `mcpcheck explain` show it.
    pub fn definition(&self) -> CheckDef {
        CheckDef {
            id: self.id.into(),
            title: self.title.into(),
            area: self.area.into(),
            level: self.level,
            derived: self.derived,
            spec: self
                .spec
                .iter()
                .map(|(version, section)| SpecRef::mcp(version, section))
                .collect(),
            expect: self.expect.into(),
            versions: VersionRange::default(),
            transports: self.transports.to_vec(),
            source: "built-in".into(),
            explain: Some(self.explain.into()),
            since: Some(self.since.into()),
        }
    }
}

/// What the wire checks look at.
pub struct WireInput<'a> {
    /// The transport.
    pub transport: TransportKind,
    /// Every connection's transcript.
    pub transcripts: &'a [Transcript],
    /// How the main stdio server ended.
    pub main_exit: Option<&'a ExitReport>,
    /// How a stdio server ended whose stdin was closed before `initialize`.
    pub early_exit: Option<&'a crate::record::exchange::EarlyExit>,
    /// The official schema files, if the user named them (`--official-schemas`).
    pub official: Option<&'a messages::OfficialSchemas>,
    /// Each transcript's answered requests (see [`results`]), matched once for every check
    /// that looks at them.
    answered: std::sync::OnceLock<Vec<Vec<Answered<'a>>>>,
}

impl<'a> WireInput<'a> {
    /// What the wire checks look at: the run's transport, transcripts and how its stdio
    /// servers ended, and the official schemas if the user named them.
    pub fn new(
        transport: TransportKind,
        transcripts: &'a [Transcript],
        main_exit: Option<&'a ExitReport>,
        early_exit: Option<&'a crate::record::exchange::EarlyExit>,
        official: Option<&'a messages::OfficialSchemas>,
    ) -> WireInput<'a> {
        WireInput {
            transport,
            transcripts,
            main_exit,
            early_exit,
            official,
            answered: std::sync::OnceLock::new(),
        }
    }

    /// Every response `transcript` (one of this input's) received that carries a result, with
    /// the request it answers: [`results`], computed once per transcript for all the checks.
    fn results(&self, transcript: &Transcript) -> &[Answered<'a>] {
        let all = self
            .answered
            .get_or_init(|| self.transcripts.iter().map(results).collect());
        match self
            .transcripts
            .iter()
            .position(|t| std::ptr::eq(t, transcript))
        {
            Some(i) => &all[i],
            None => {
                debug_assert!(false, "a transcript that is not the input's");
                &[]
            }
        }
    }
}

/// A frame mcpcheck sent, as JSON: parsed as it was recorded (over HTTP) or when its transcript
/// was taken from the session (see [`Transcript::parse_sent`]), else here.
fn sent_message(frame: &WireFrame) -> Option<Cow<'_, Value>> {
    match &frame.message {
        Some(message) => Some(Cow::Borrowed(message)),
        None => serde_json::from_str::<Value>(&frame.text)
            .ok()
            .map(Cow::Owned),
    }
}

/// A result a connection received, with the request it answers.
struct Answered<'a> {
    /// The request's method.
    method: String,
    /// The request as sent.
    request: Cow<'a, Value>,
    /// The response message.
    message: &'a Value,
    /// The frame the response came in.
    frame: &'a WireFrame,
}

/// Every response a connection received that carries a result, with the request it answers
/// (matched by id as the connection went along) and the frame it came in.
fn results(transcript: &Transcript) -> Vec<Answered<'_>> {
    let mut requests: HashMap<String, Cow<'_, Value>> = HashMap::new();
    // Task-augmented requests, by the id of the task they made.
    let mut tasks: HashMap<String, Cow<'_, Value>> = HashMap::new();
    let mut out = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::Sent => {
                if let Some(sent) = sent_message(frame) {
                    if let (Some(id), Some(_)) =
                        (sent.get("id"), sent.get("method").and_then(Value::as_str))
                    {
                        requests.insert(id_key(id), sent);
                    }
                }
            }
            Direction::Received => {
                let Some(message) = frame.message.as_ref() else {
                    continue;
                };
                let (Some(id), Some(_)) = (message.get("id"), message.get("result")) else {
                    continue;
                };
                // An answer to a probe sent off the protocol on purpose is its check's alone.
                if transcript.probes.contains(&id_key(id)) {
                    continue;
                }
                let Some(request) = requests.get(&id_key(id)) else {
                    continue;
                };
                let method = request["method"].as_str().unwrap_or_default();
                // 2025-11-25 tasks: a task-augmented request is answered with a CreateTaskResult,
                // and tasks/result answers with the result of the request that made the task.
                if request
                    .pointer("/params/task")
                    .is_some_and(Value::is_object)
                {
                    if let Some(task) = message
                        .pointer("/result/task/taskId")
                        .and_then(Value::as_str)
                    {
                        tasks.insert(task.to_string(), request.clone());
                    }
                    out.push(Answered {
                        method: messages::TASK_AUGMENTED.to_string(),
                        request: request.clone(),
                        message,
                        frame,
                    });
                    continue;
                }
                // 2026-07-28 (tasks extension): a task handle in lieu of the request's result.
                if message.pointer("/result/resultType") == Some(&Value::from("task")) {
                    out.push(Answered {
                        method: messages::TASK_HANDLE.to_string(),
                        request: request.clone(),
                        message,
                        frame,
                    });
                    continue;
                }
                let underlying = (method == "tasks/result")
                    .then(|| request.pointer("/params/taskId").and_then(Value::as_str))
                    .flatten()
                    .and_then(|task| tasks.get(task));
                let request = underlying.unwrap_or(request);
                out.push(Answered {
                    method: request["method"].as_str().unwrap_or_default().to_string(),
                    request: request.clone(),
                    message,
                    frame,
                });
            }
        }
    }
    out
}

/// Every message a connection received, with its frame, less those a stream resumed with
/// `Last-Event-ID` delivered again (see [`resumed`]).
fn received_fresh(transcript: &Transcript) -> impl Iterator<Item = (&Value, &WireFrame)> {
    transcript
        .frames
        .iter()
        .filter(|f| f.direction == Direction::Received && !resumed(transcript, f))
        .filter_map(|f| f.message.as_ref().map(|m| (m, f)))
}

/// Whether a frame arrived on a stream resumed with `Last-Event-ID`: a redelivery of messages
/// sent before, which the checks of order and uniqueness leave out.
fn resumed(transcript: &Transcript, frame: &WireFrame) -> bool {
    frame
        .post
        .and_then(|i| transcript.posts.get(i))
        .is_some_and(resumes)
}

/// Whether an HTTP exchange was a GET resuming a stream (`Last-Event-ID`).
fn resumes(record: &crate::record::transcript::HttpRecord) -> bool {
    record
        .request_headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("last-event-id"))
}

/// The capabilities the server declared on a connection: those of its `initialize` or
/// `server/discover` result there.
fn declared_capabilities<'a>(input: &WireInput<'a>, transcript: &Transcript) -> Option<&'a Value> {
    input
        .results(transcript)
        .iter()
        .find(|a| a.method == "initialize" || a.method == "server/discover")
        .and_then(|a| a.message.pointer("/result/capabilities"))
}

/// Every JSON object a run received, with the frame it came in.
fn received<'a>(input: &'a WireInput) -> impl Iterator<Item = (&'a Value, &'a WireFrame)> {
    input
        .transcripts
        .iter()
        .flat_map(|t| t.frames.iter())
        .filter(|f| f.direction == Direction::Received)
        .filter_map(|f| f.message.as_ref().filter(|m| m.is_object()).map(|m| (m, f)))
}

/// Whether a task status is terminal: a task does not leave it (2025-11-25 tasks).
fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// Whether a received message is a response (it has no method).
fn is_response(message: &Value) -> bool {
    message.get("method").is_none()
}

/// What was sent beside what came back: a received response shown as evidence gets the request
/// it answers (the outgoing frame with its id before it on the same connection, and over HTTP
/// that POST's headers), so that the exchange can be read, and replayed, whole.
fn attach_requests(evidence: &mut [Evidence], transcripts: &[Transcript]) {
    for item in evidence.iter_mut().filter(|e| e.sent.is_none()) {
        let Some(received) = &item.received else {
            continue;
        };
        // A response (a server's own request has a method, and answers nothing of ours).
        let Some(id) = serde_json::from_str::<Value>(received)
            .ok()
            .filter(is_response)
            .and_then(|m| m.get("id").filter(|id| !id.is_null()).cloned())
        else {
            continue;
        };
        // The evidence holds the frame as `Evidence::frame` cut it.
        let same = |text: &str| {
            if text.len() <= EVIDENCE_TEXT {
                text == received
            } else {
                cut(text, EVIDENCE_TEXT) == *received
            }
        };
        let found = transcripts.iter().find_map(|t| {
            let at = t
                .frames
                .iter()
                .position(|f| f.direction == Direction::Received && same(&f.text))?;
            let request = t.frames[..at].iter().rev().find(|f| {
                f.direction == Direction::Sent
                    && sent_message(f)
                        .is_some_and(|m| m.get("id") == Some(&id) && m.get("method").is_some())
            })?;
            let headers = request
                .post
                .and_then(|i| t.posts.get(i))
                .map(|p| {
                    p.request_headers
                        .iter()
                        .map(|(n, v)| format!("{n}: {v}"))
                        .collect()
                })
                .unwrap_or_default();
            Some((request.text.clone(), headers))
        });
        if let Some((sent, headers)) = found {
            item.sent = Some(cut(&sent, EVIDENCE_TEXT));
            item.sent_headers = headers;
        }
    }
}

/// Judges one built-in check over the run's transcripts.
pub fn evaluate(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    if !crate::record::allows(def.transports, input.transport) {
        return (
            Verdict::skip(crate::record::Reason::Transport {
                transports: def.transports.to_vec(),
            }),
            Vec::new(),
        );
    }
    let (mut verdict, mut evidence) = (def.judge)(def, input);
    let stateless = |t: &Transcript| {
        t.version
            .as_deref()
            .and_then(crate::record::version::Era::of)
            == Some(crate::record::version::Era::Stateless)
    };
    if let (Status::Skip, Some(Idle::Stateless(_))) = (verdict.status, def.idle) {
        if !input.transcripts.iter().any(stateless) {
            verdict = Verdict::skip(crate::record::Reason::Era {
                era: "stateless".into(),
                server: "handshake".into(),
            });
        }
    }
    attach_requests(&mut evidence, input.transcripts);
    // A flood past the evidence bounds leaves frames unexamined: a pass says so.
    let dropped: usize = input.transcripts.iter().map(|t| t.dropped).sum();
    if dropped > 0 && verdict.status == Status::Pass && verdict.note.is_none() {
        verdict.note = Some(format!(
            "{dropped} frames the server sent past mcpcheck's evidence bounds were not kept, so not examined"
        ));
    }
    (verdict, evidence)
}

/// The verdict on an id no area defines.
/// The transcripts of connections on revision `version` or a later one.
fn transcripts_since<'a>(
    input: &'a WireInput,
    version: &'a str,
) -> impl Iterator<Item = &'a Transcript> {
    input.transcripts.iter().filter(move |t| {
        t.version
            .as_deref()
            .is_some_and(|v| crate::record::version::at_least(v, version))
    })
}

/// What a built-in check over the run found as it went: how many items it examined, the
/// offending ones, and a remark for the verdict.
#[derive(Default)]
struct Tally {
    /// The offending items, as evidence.
    bad: Vec<Evidence>,
    /// How many items were examined.
    seen: usize,
    /// A remark that does not change the status.
    note: Option<String>,
}

impl Tally {
    /// The verdict on what was found ([`tally`]).
    fn judge(self, def: &Builtin) -> (Verdict, Vec<Evidence>) {
        tally(def, self.bad, self.seen, self.note)
    }
}

/// The verdict of a check that examined `seen` items and found `bad` among them.
fn tally(
    def: &Builtin,
    mut bad: Vec<Evidence>,
    seen: usize,
    note: Option<String>,
) -> (Verdict, Vec<Evidence>) {
    let count = bad.len();
    bad.truncate(MAX_EVIDENCE);
    let verdict = if seen == 0 {
        // What a check that found nothing to examine says: skip, where that means it does not
        // apply; otherwise not testable.
        match def.idle {
            Some(Idle::Nothing(why)) => Verdict::skip(crate::record::Reason::NothingOnTheWire {
                text: why.to_string(),
            }),
            Some(Idle::Stateless(what)) => Verdict::skip(crate::record::Reason::NothingOnTheWire {
                text: format!("applies to 2026-07-28 {what}"),
            }),
            None => Verdict::new(
                Status::NotTestable,
                "nothing this check examines crossed the wire during the run",
            ),
        }
    } else if count == 0 {
        let mut v = Verdict::new(Status::Pass, format!("{seen} examined, all conform"));
        v.note = note;
        v
    } else {
        let first = bad
            .first()
            .and_then(|e| e.remark.clone())
            .unwrap_or_default();
        Verdict::new(
            def.level.violation(),
            format!("{count} of {seen} examined do not conform"),
        )
        .with_actual(cut(&first, 200))
    };
    (verdict, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_loads_and_ids_are_unique() {
        let scenarios = crate::scenario::load::library().unwrap_or_else(|errors| {
            panic!(
                "{}",
                errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        assert!(!scenarios.is_empty());
        crate::scenario::load::check_unique(&scenarios, &ids())
            .unwrap_or_else(|errors| panic!("{errors:?}"));
    }

    #[test]
    fn the_answer_to_a_probe_sent_off_the_protocol_is_its_own_checks_alone() {
        let frame = |direction, message: Value| WireFrame {
            direction,
            at_ms: 0,
            text: message.to_string(),
            message: Some(message),
            issue: None,
            post: None,
        };
        let mut transcript = Transcript::default();
        for id in [1, 2] {
            transcript.frames.push(frame(
                Direction::Sent,
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
            ));
            transcript.frames.push(frame(
                Direction::Received,
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
            ));
        }
        // Request 2 carried a contradictory header on purpose.
        transcript.probes.insert(id_key(&serde_json::json!(2)));
        let judged: Vec<Value> = results(&transcript)
            .iter()
            .map(|a| a.message["id"].clone())
            .collect();
        assert_eq!(judged, vec![serde_json::json!(1)]);
    }
}
