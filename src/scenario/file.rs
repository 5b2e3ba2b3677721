//! The on-disk scenario format (TOML), mirrored field by field. Unknown fields are errors, and
//! spans are kept where later validation needs to point at a line.

use indexmap_lite::OrderedMap;
use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

/// Ordered string maps in the file (headers, captures) keep their written order.
pub mod indexmap_lite {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

    /// A map that keeps insertion order; small, so a vector of pairs is enough.
    #[derive(Clone, Debug, Default)]
    pub struct OrderedMap(pub Vec<(String, String)>);

    impl<'de> Deserialize<'de> for OrderedMap {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = OrderedMap;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a table of strings")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedMap, A::Error> {
                    let mut pairs = Vec::new();
                    while let Some((k, v)) = map.next_entry::<String, String>()? {
                        pairs.push((k, v));
                    }
                    Ok(OrderedMap(pairs))
                }
            }
            deserializer.deserialize_map(V)
        }
    }
}

/// A whole scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The scenario id (kebab-case).
    pub id: Spanned<String>,
    /// The spec area.
    pub area: String,
    /// One line saying what the scenario does.
    pub title: String,
    /// Longer prose, optional.
    #[serde(default)]
    pub description: Option<String>,
    /// `shared` (the main session), `fresh` (its own connection, after the handshake) or `bare`
    /// (its own connection, no handshake).
    #[serde(default)]
    pub session: Option<Spanned<String>>,
    /// When the scenario applies.
    #[serde(default)]
    pub requires: RequiresFile,
    /// The steps, in order.
    #[serde(default, rename = "step")]
    pub steps: Vec<StepFile>,
    /// The checks.
    #[serde(default, rename = "check")]
    pub checks: Vec<CheckFile>,
}

/// Applicability.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequiresFile {
    /// Server capabilities that must be declared.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Server capabilities that must not be declared (to check they are not served either).
    #[serde(default)]
    pub undeclared: Vec<String>,
    /// Tools that must be listed (fixture tools; calling a tool the user did not name is not done).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Prompts that must be listed (fixture prompts), by name.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// Resources that must be listed (fixture resources), by URI.
    #[serde(default)]
    pub resources: Vec<String>,
    /// A version window such as `>=2025-06-18`.
    #[serde(default)]
    pub versions: Option<Spanned<String>>,
    /// `stdio`, `http` or `sse`, or a list of them.
    #[serde(default)]
    pub transport: Option<Spanned<toml::Value>>,
    /// `handshake` or `stateless`.
    #[serde(default)]
    pub era: Option<Spanned<String>>,
    /// A fixture profile (`everything`): the scenario runs only when the run selects it with
    /// `--profile`, against a server that implements that profile's fixtures.
    #[serde(default)]
    pub profile: Option<Spanned<String>>,
    /// The scenario calls a tool the server lists (`{{probe.name}}`): it runs only when the user
    /// allows that with `--call-tools`.
    #[serde(default)]
    pub call_tools: bool,
}

/// A JSON-RPC message to send.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageFile {
    /// The method.
    pub method: String,
    /// The params.
    #[serde(default)]
    pub params: Option<Value>,
}

/// A notification sent while a step's request is in flight.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlongsideFile {
    /// The notification's method.
    pub method: String,
    /// Its params.
    #[serde(default)]
    pub params: Option<Value>,
    /// How long after the request it is sent, in milliseconds.
    #[serde(default)]
    pub after_ms: u64,
}

/// A step that stays open while the steps after it run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackgroundFile {
    /// The steps after it start once a notification of this method has arrived on its stream
    /// (or once it has ended, whichever comes first).
    pub once_notified: String,
}

/// How a step polls: which reply ends it, and for how long it may go on.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollFile {
    /// A JSON pointer into the reply message.
    pub at: String,
    /// The values there that end the polling.
    pub until: Vec<Value>,
    /// How long the polling may go on, in milliseconds (10 000 when not given).
    #[serde(default)]
    pub within_ms: Option<u64>,
}

/// One step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepFile {
    /// The step's name, referred to by checks.
    pub name: Spanned<String>,
    /// Send a request.
    #[serde(default)]
    pub request: Option<MessageFile>,
    /// Send a notification.
    #[serde(default)]
    pub notification: Option<MessageFile>,
    /// Send these bytes exactly (a newline is added on stdio if missing).
    #[serde(default)]
    pub raw: Option<String>,
    /// The request id to use instead of a generated one (any JSON type).
    #[serde(default)]
    pub id: Option<Value>,
    /// How long to wait for the response to a request, in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// How long to wait for an (unexpected) reply to a notification or raw frame, in milliseconds.
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// stdio: after a notification or raw frame, wait this long for whatever comes back, without
    /// the ping mcpcheck otherwise sends behind the frame to cut the wait short (for replies that
    /// only come later, such as the response to a request cancelled too late).
    #[serde(default)]
    pub hold_ms: Option<u64>,
    /// HTTP: a request answered with an SSE stream is dropped (its connection closed) after this
    /// many events, as a client that lost its connection would; the server's work goes on, and
    /// a later GET with `Last-Event-ID` may resume the stream.
    #[serde(default)]
    pub drop_after_events: Option<Spanned<usize>>,
    /// A request that opens a stream (`subscriptions/listen`): stop waiting for its response once
    /// a notification of this method has arrived (HTTP: the stream is then closed, which ends
    /// the request; stdio: cancel it in a later step).
    #[serde(default)]
    pub until_notified: Option<String>,
    /// A request that stays open while the steps after it run (`subscriptions/listen` while
    /// another request changes a list): they start once its `once_notified` notification came.
    #[serde(default)]
    pub background: Option<Spanned<BackgroundFile>>,
    /// While the request is in flight, send this notification too (e.g. a cancellation).
    #[serde(default)]
    pub alongside: Option<Spanned<AlongsideFile>>,
    /// Send the request this many times at once (2 to 16), each copy with its own id; `{{copy}}`
    /// is the copy's number (1, 2, …). Every copy is judged.
    #[serde(default)]
    pub concurrent: Option<Spanned<usize>>,
    /// Send the request again (each time with an id of its own) until its reply has one of
    /// these values at a JSON pointer, as a client polls `tasks/get`; the last reply is the
    /// step's.
    #[serde(default)]
    pub poll: Option<Spanned<PollFile>>,
    /// HTTP headers to add or replace.
    #[serde(default)]
    pub headers: OrderedMap,
    /// HTTP headers to leave out.
    #[serde(default)]
    pub omit_headers: Vec<String>,
    /// Stateless era: `_meta` entries mcpcheck adds that this request leaves out (full keys,
    /// e.g. `io.modelcontextprotocol/protocolVersion`), or `_meta` for the whole object.
    #[serde(default)]
    pub omit_meta: Vec<String>,
    /// Values to capture from the response: name = JSON pointer into the response message.
    #[serde(default)]
    pub capture: OrderedMap,
    /// HTTP only: send with this method (`GET` or `DELETE`) and no body; such a step needs no
    /// `request`, `notification` or `raw`.
    #[serde(default)]
    pub http_method: Option<Spanned<String>>,
}

/// One check.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckFile {
    /// The stable check id.
    pub id: Spanned<String>,
    /// Built-in library only: the grading profile that first grades the check (user checks
    /// leave it out; every profile grades them).
    #[serde(default)]
    pub since: Option<Spanned<String>>,
    /// What is checked, in one line.
    pub title: String,
    /// `MUST`, `SHOULD` or `MAY`.
    pub level: Spanned<String>,
    /// Whether the requirement is derived (JSON-RPC 2.0, the schema) rather than stated.
    #[serde(default)]
    pub derived: bool,
    /// Citations.
    pub spec: Vec<SpecFile>,
    /// The step (or steps) the check judges.
    #[serde(default)]
    pub step: Option<Spanned<String>>,
    /// Several steps, all judged; the worst verdict wins.
    #[serde(default)]
    pub steps: Vec<Spanned<String>>,
    /// What a conforming server does, in words.
    pub expect: String,
    /// Why the requirement exists and how the check probes it.
    #[serde(default)]
    pub explain: Option<String>,
    /// A version window narrower than the scenario's.
    #[serde(default)]
    pub versions: Option<Spanned<String>>,
    /// The rules, tried in order; the first that matches gives the verdict.
    #[serde(default, rename = "rule")]
    pub rules: Vec<RuleFile>,
    /// The verdict when no rule matches (default: what a violation of the level gets).
    #[serde(default)]
    pub otherwise: Option<Spanned<String>>,
}

/// A citation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// The protocol version, or `jsonrpc-2.0`.
    pub version: Spanned<String>,
    /// The section path with anchor.
    pub section: String,
    /// A link, when the derived one is wrong.
    #[serde(default)]
    pub url: Option<String>,
}

/// A rule: a condition and the verdict it gives.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// The condition; every field given must hold.
    pub when: CondFile,
    /// `pass`, `fail`, `warn`, `info`, `skip`, `not-testable` or `violation` (per the level).
    pub verdict: Spanned<String>,
    /// The message reported (templated).
    #[serde(default)]
    pub message: Option<String>,
    /// A note that does not change the verdict.
    #[serde(default)]
    pub note: Option<String>,
}

/// A notification a condition looks for.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifiedFile {
    /// The notification's method.
    pub method: String,
    /// A JSON pointer into the notification.
    #[serde(default)]
    pub at: Option<String>,
    /// The value there is one of these.
    #[serde(default)]
    pub one_of: Option<Vec<Value>>,
}

/// A condition on what came back. Every field given must hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CondFile {
    /// What kind of reply, alternatives separated by `|`: `result`, `error`, `response`, `none`,
    /// `rejected`, `closed`, `ended` (HTTP: the stream ended before the response).
    #[serde(default)]
    pub reply: Option<Spanned<String>>,
    /// The error code is one of these.
    #[serde(default)]
    pub code: Option<Vec<i64>>,
    /// The negotiated version lies in this window.
    #[serde(default)]
    pub versions: Option<Spanned<String>>,
    /// The transport is this one.
    #[serde(default)]
    pub transport: Option<Spanned<String>>,
    /// The HTTP status is one of these.
    #[serde(default)]
    pub http_status: Option<Vec<u16>>,
    /// The HTTP response's Content-Type starts with this (case-insensitive).
    #[serde(default)]
    pub content_type: Option<String>,
    /// An earlier step whose HTTP status `prior_http_status` tests (e.g. a DELETE before a
    /// request that must then get 404).
    #[serde(default)]
    pub prior_step: Option<Spanned<String>>,
    /// The HTTP status of `prior_step` is one of these.
    #[serde(default)]
    pub prior_http_status: Option<Vec<u16>>,
    /// A JSON pointer into `prior_step`'s reply message, whose value `prior_equals` tests (e.g.
    /// the protocol version an earlier initialize negotiated).
    #[serde(default)]
    pub prior_at: Option<String>,
    /// The value at `prior_at` equals this.
    #[serde(default)]
    pub prior_equals: Option<Value>,
    /// What kind of reply `prior_step` got, like `reply` (e.g. `error`: a fixture failed).
    #[serde(default)]
    pub prior_reply: Option<Spanned<String>>,
    /// HTTP: whether the server had issued a session id on this connection.
    #[serde(default)]
    pub session_issued: Option<bool>,
    /// Stateless era: whether `server/discover` also listed a handshake-era version (a server
    /// speaking both eras may keep answering methods 2026-07-28 removed).
    #[serde(default)]
    pub dual_era: Option<bool>,
    /// Whether the step's `notifications/progress` are well-formed: at least one, each for the
    /// `progressToken` the step sent, with strictly increasing `progress`.
    #[serde(default)]
    pub progress_ok: Option<bool>,
    /// A notification the server sent during the step: its method and, optionally, a value at a
    /// JSON pointer that is one of some values (`{ method = "notifications/message", at =
    /// "/params/level", one_of = ["debug"] }`).
    #[serde(default)]
    pub notified: Option<NotifiedFile>,
    /// A request the server sent during the step (mcpcheck answered it), matched like
    /// `notified` (`{ method = "sampling/createMessage" }`).
    #[serde(default)]
    pub requested: Option<NotifiedFile>,
    /// A JSON pointer into the reply message, for an inline assertion.
    #[serde(default)]
    pub at: Option<Spanned<String>>,
    /// The value there equals this (templated, type-strict).
    #[serde(default)]
    pub equals: Option<Value>,
    /// The value there does not equal this.
    #[serde(default)]
    pub not_equals: Option<Value>,
    /// The value there is one of these.
    #[serde(default)]
    pub one_of: Option<Vec<Value>>,
    /// The JSON type there: string, number, integer, boolean, object, array, null, absent, present.
    #[serde(default, rename = "type")]
    pub kind: Option<Spanned<String>>,
    /// The array, string or object there has exactly this many items.
    #[serde(default)]
    pub len: Option<usize>,
    /// … at most this many.
    #[serde(default)]
    pub max_len: Option<usize>,
    /// The array there has an item that is this value, or, for an object, an object with these
    /// members (placeholders are filled: `{ taskId = "{{capture.task}}" }`).
    #[serde(default)]
    pub contains: Option<Value>,
    /// The value there validates against this JSON Schema (2020-12 unless `$schema` says otherwise).
    #[serde(default)]
    pub schema: Option<Value>,
    /// The value there validates against the schema this placeholder names, e.g.
    /// `"{{capture.outputSchema}}"` (its own `$schema`, else 2020-12).
    #[serde(default)]
    pub schema_from: Option<String>,
    /// More assertions.
    #[serde(default)]
    pub all: Vec<AssertFile>,
}

/// A standalone assertion.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssertFile {
    /// A JSON pointer into the reply message.
    pub at: Spanned<String>,
    /// See [`CondFile::equals`].
    #[serde(default)]
    pub equals: Option<Value>,
    /// See [`CondFile::not_equals`].
    #[serde(default)]
    pub not_equals: Option<Value>,
    /// See [`CondFile::one_of`].
    #[serde(default)]
    pub one_of: Option<Vec<Value>>,
    /// See [`CondFile::kind`].
    #[serde(default, rename = "type")]
    pub kind: Option<Spanned<String>>,
    /// See [`CondFile::len`].
    #[serde(default)]
    pub len: Option<usize>,
    /// See [`CondFile::max_len`].
    #[serde(default)]
    pub max_len: Option<usize>,
    /// See [`CondFile::contains`].
    #[serde(default)]
    pub contains: Option<Value>,
    /// See [`CondFile::schema`].
    #[serde(default)]
    pub schema: Option<Value>,
    /// The value there validates against the schema this placeholder names, e.g.
    /// `"{{capture.outputSchema}}"` (its own `$schema`, else 2020-12).
    #[serde(default)]
    pub schema_from: Option<String>,
}
