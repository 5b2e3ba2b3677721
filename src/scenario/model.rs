//! Scenarios as the runner uses them: validated, resolved, with compiled schemas.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::record::TransportKind;
use crate::record::{CheckDef, Status};
use crate::record::{Era, VersionRange};

/// A validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario id.
    pub id: String,
    /// The spec area.
    pub area: String,
    /// What it does.
    pub title: String,
    /// The file it came from (`scenarios/…` for the library).
    pub source: String,
    /// Which session its steps run on.
    pub session: SessionKind,
    /// When it applies.
    pub requires: Requires,
    /// The steps.
    pub steps: Vec<Step>,
    /// The checks.
    pub checks: Vec<ScenarioCheck>,
}

/// Which session a scenario's steps run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionKind {
    /// The run's main session, concurrently with other shared scenarios.
    Shared,
    /// A connection of its own, after the handshake.
    Fresh,
    /// A connection of its own, with no handshake.
    Bare,
}

/// When a scenario applies.
#[derive(Clone, Debug, Default)]
pub struct Requires {
    /// Capabilities the server must declare.
    pub capabilities: Vec<String>,
    /// Capabilities the server must not declare.
    pub undeclared: Vec<String>,
    /// Tools the server must list.
    pub tools: Vec<String>,
    /// Prompts the server must list, by name.
    pub prompts: Vec<String>,
    /// Resources the server must list, by URI.
    pub resources: Vec<String>,
    /// The version window.
    pub versions: VersionRange,
    /// The transports it runs over (empty: every transport).
    pub transports: Vec<TransportKind>,
    /// The era.
    pub era: Option<Era>,
    /// The fixture profile the run must select (`everything`).
    pub profile: Option<String>,
    /// The scenario calls a discovered tool: it runs only under `--call-tools`.
    pub call_tools: bool,
}

/// A condition on an earlier step of the scenario.
#[derive(Clone, Debug)]
pub struct Prior {
    /// The step's name.
    pub step: String,
    /// Its HTTP status is one of these.
    pub http_status: Option<Vec<u16>>,
    /// The value at this JSON pointer into its reply message equals the second.
    pub value: Option<(String, Value)>,
    /// What kind of reply it got is one of these.
    pub reply: Option<Vec<ReplyKind>>,
}

/// One step.
#[derive(Clone, Debug)]
pub struct Step {
    /// Its name.
    pub name: String,
    /// What it sends.
    pub send: StepSend,
    /// The response timeout, if not the run's.
    pub timeout: Option<Duration>,
    /// How long to wait for an unexpected reply to a notification or raw frame.
    pub wait: Option<Duration>,
    /// stdio: wait this long for a late reply, without a barrier ping.
    pub hold: Option<Duration>,
    /// HTTP: drop a request's SSE stream after this many events.
    pub drop_after_events: Option<usize>,
    /// How many copies of the request are sent at once (1: just the one).
    pub concurrent: usize,
    /// Stop waiting for the response once a notification of this method has arrived.
    pub until_notified: Option<String>,
    /// The request stays open while the steps after it run; they start once a notification of
    /// this method has arrived on it (or it has ended).
    pub background: Option<String>,
    /// A notification (method, params) sent this long after the request, while it is in flight.
    pub alongside: Option<(String, Option<Value>, Duration)>,
    /// Send the request again until its reply has one of these values at a JSON pointer.
    pub poll: Option<Poll>,
    /// HTTP headers to add or replace.
    pub headers: Vec<(String, String)>,
    /// HTTP headers to leave out.
    pub omit_headers: Vec<String>,
    /// Stateless era: `_meta` entries to leave out (`_meta` for the whole object).
    pub omit_meta: Vec<String>,
    /// Captures: name and JSON pointer into the reply message.
    pub capture: Vec<(String, String)>,
    /// HTTP: a method other than POST (`GET`, `DELETE`), sent with no body.
    pub http_method: Option<String>,
}

/// A step that polls: it sends its request again, each time with an id of its own, until the
/// reply has one of `until` at `at` or `within` has passed (waiting between the polls what the
/// server asks for in `result.pollIntervalMs`, 50 ms to 1 s, 200 ms when it does not say).
#[derive(Clone, Debug)]
pub struct Poll {
    /// A JSON pointer into the reply message.
    pub at: String,
    /// The values there that end the polling.
    pub until: Vec<Value>,
    /// How long the polling may go on.
    pub within: Duration,
}

/// What a step sends (params and raw text may hold `{{…}}` placeholders).
#[derive(Clone, Debug)]
pub enum StepSend {
    /// A request; `id` is generated when not given.
    Request {
        /// An explicit id.
        id: Option<Value>,
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
    },
    /// A notification.
    Notification {
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
    },
    /// Raw bytes.
    Raw(String),
}

/// A check defined in a scenario.
#[derive(Clone, Debug)]
pub struct ScenarioCheck {
    /// Identity and citation.
    pub def: CheckDef,
    /// The steps it judges.
    pub steps: Vec<String>,
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// The verdict when no rule matches.
    pub otherwise: Status,
}

/// A rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The condition.
    pub when: Cond,
    /// The verdict.
    pub verdict: Status,
    /// The message (templated).
    pub message: Option<String>,
    /// A note.
    pub note: Option<String>,
}

/// A condition; every part given must hold.
#[derive(Clone, Debug, Default)]
pub struct Cond {
    /// The reply kinds, any of which matches.
    pub reply: Option<Vec<ReplyKind>>,
    /// The error codes, any of which matches.
    pub code: Option<Vec<i64>>,
    /// The negotiated version window.
    pub versions: Option<VersionRange>,
    /// The transport.
    pub transport: Option<TransportKind>,
    /// The HTTP statuses, any of which matches.
    pub http_status: Option<Vec<u16>>,
    /// A prefix of the HTTP response's Content-Type.
    pub content_type: Option<String>,
    /// What an earlier step must have got.
    pub prior: Option<Prior>,
    /// Whether the server had issued an HTTP session id.
    pub session_issued: Option<bool>,
    /// Whether the server speaks both eras (its discover result lists a handshake version).
    pub dual_era: Option<bool>,
    /// Whether the step's progress notifications are well-formed.
    pub progress_ok: Option<bool>,
    /// A notification the server must have sent during the step.
    pub notified: Option<crate::scenario::file::NotifiedFile>,
    /// A request the server must have sent during the step.
    pub requested: Option<crate::scenario::file::NotifiedFile>,
    /// Assertions on the reply message.
    pub asserts: Vec<Assert>,
}

/// The kinds of reply a rule can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyKind {
    /// A response with a result.
    Result,
    /// A response with an error.
    Error,
    /// Any JSON-RPC response.
    Response,
    /// Nothing within the wait.
    None,
    /// HTTP error status without a JSON-RPC body.
    Rejected,
    /// The server went away.
    Closed,
    /// HTTP: the request's SSE stream ended, by the server, before the response (a kind of
    /// `none`).
    Ended,
}

/// An assertion on the value at a JSON pointer of the reply message.
#[derive(Clone, Debug)]
pub struct Assert {
    /// The pointer.
    pub at: String,
    /// The test.
    pub test: Test,
}

/// What an assertion tests.
#[derive(Clone, Debug)]
pub enum Test {
    /// Equal (after templating), type-strict.
    Equals(Value),
    /// Not equal.
    NotEquals(Value),
    /// One of.
    OneOf(Vec<Value>),
    /// Of a JSON type.
    Type(JsonType),
    /// Exactly this many items.
    Len(usize),
    /// At most this many items.
    MaxLen(usize),
    /// An array with an item equal to this (an object: with these members).
    Contains(Value),
    /// Valid against a schema.
    Schema(Arc<jsonschema::Validator>),
    /// Valid against the schema a placeholder resolves to at evaluation time.
    SchemaFrom(String),
}

/// JSON types, plus presence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    /// A string.
    String,
    /// Any number.
    Number,
    /// An integer.
    Integer,
    /// true or false.
    Boolean,
    /// An object.
    Object,
    /// An array.
    Array,
    /// null.
    Null,
    /// Not there at all.
    Absent,
    /// There, whatever it is.
    Present,
}

impl JsonType {
    /// Whether a value (or its absence) has this type.
    pub fn matches(self, value: Option<&Value>) -> bool {
        match (self, value) {
            (JsonType::Absent, v) => v.is_none(),
            (JsonType::Present, v) => v.is_some(),
            (_, None) => false,
            (JsonType::String, Some(v)) => v.is_string(),
            (JsonType::Number, Some(v)) => v.is_number(),
            (JsonType::Integer, Some(v)) => v.is_i64() || v.is_u64(),
            (JsonType::Boolean, Some(v)) => v.is_boolean(),
            (JsonType::Object, Some(v)) => v.is_object(),
            (JsonType::Array, Some(v)) => v.is_array(),
            (JsonType::Null, Some(v)) => v.is_null(),
        }
    }
}
