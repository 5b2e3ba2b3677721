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

impl Scenario {
    /// Whether its first step opens the connection's protocol itself (an `initialize`): such a
    /// scenario needs a connection no one has spoken on, and shares none.
    pub fn starts_a_connection(&self) -> bool {
        matches!(
            self.steps.first().map(|s| &s.send),
            Some(StepSend::Request { method, .. }) if method == "initialize"
        )
    }
}

/// Which session a scenario's steps run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionKind {
    /// The run's main session, concurrently with other shared scenarios.
    Shared,
    /// A connection apart from the main one, after the handshake: over stdio a lane that such
    /// scenarios and the probes take in turn (a new one only when one ended it), over HTTP a
    /// session of its own.
    Fresh,
    /// A connection of its own, with no handshake.
    Bare,
    /// The run's probe connection, after the handshake: a connection apart from the main one,
    /// which the probe scenarios (frames that get no answer of their own, fixed ids) take one
    /// after another, a barrier between them. A new one is started only when a probe ended it
    /// (it closed, or stopped answering the barrier with a result).
    Probe,
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
    /// The fixture set the run must select (`everything`).
    pub fixtures: Option<String>,
    /// The scenario calls a discovered tool: it runs only under `--call-tools`.
    pub call_tools: bool,
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
    /// How the step is sent: once, or one of the ways of sending it more than once or of
    /// leaving it open.
    pub mode: Mode,
    /// Stop waiting for the response once a notification of this method has arrived.
    pub until_notified: Option<String>,
    /// A notification (method, params) sent this long after the request, while it is in flight.
    pub alongside: Option<(String, Option<Value>, Duration)>,
    /// HTTP headers to add or replace.
    pub headers: Vec<(String, String)>,
    /// HTTP headers to leave out.
    pub omit_headers: Vec<String>,
    /// Stateless era: `_meta` entries to leave out (`_meta` for the whole object).
    pub omit_meta: Vec<String>,
    /// Captures: a name and the query whose first value it keeps.
    pub capture: Vec<Capture>,
    /// HTTP: a method other than POST (`GET`, `DELETE`), sent with no body.
    pub http_method: Option<String>,
}

/// How a step is sent: once, or exactly one of the ways of sending its request more than once or
/// of leaving it open (the loader refuses a step that names two).
#[derive(Clone, Debug, Default)]
pub enum Mode {
    /// Sent once.
    #[default]
    Once,
    /// This many copies of the request at once (2 to 16), each built with its own `{{copy}}`.
    Concurrent(usize),
    /// Following `result.nextCursor`, up to this many pages in all (2 to 16).
    Pages(usize),
    /// Once per item of a captured array, one after another (a request, or a fetch).
    ForEach(ForEach),
    /// Again until the reply meets a condition.
    Poll(Poll),
    /// Left open while the steps after it run; they start once a notification of this method
    /// has arrived on it (or it has ended).
    Background(String),
}

impl Mode {
    /// How many copies are sent at once (1 but for [`Mode::Concurrent`]).
    pub fn copies(&self) -> usize {
        match self {
            Mode::Concurrent(copies) => *copies,
            _ => 1,
        }
    }

    /// How many pages are followed at most (1 but for [`Mode::Pages`]).
    pub fn pages(&self) -> usize {
        match self {
            Mode::Pages(pages) => *pages,
            _ => 1,
        }
    }

    /// The list a [`Mode::ForEach`] step goes down.
    pub fn each(&self) -> Option<&ForEach> {
        match self {
            Mode::ForEach(each) => Some(each),
            _ => None,
        }
    }

    /// The method of the notification a [`Mode::Background`] step lets the later steps start on.
    pub fn background(&self) -> Option<&str> {
        match self {
            Mode::Background(method) => Some(method),
            _ => None,
        }
    }

    /// How the step is sent, for people (`mcpcheck explain`); `None` for once.
    pub fn describe(&self) -> Option<String> {
        Some(match self {
            Mode::Once => return None,
            Mode::Concurrent(copies) => format!("{copies} copies at once"),
            Mode::Pages(pages) => format!("following nextCursor, {pages} pages at most"),
            Mode::ForEach(each) => format!(
                "once per item of capture.{} (at most {}), one after another",
                each.capture, each.max
            ),
            Mode::Poll(poll) => format!(
                "again until {} (at most {} s)",
                poll.until_text,
                poll.within.as_secs_f64()
            ),
            Mode::Background(method) => {
                format!("left open; the steps after it start once {method} arrives on it")
            }
        })
    }
}

/// A step sent once per item of a captured array (`for_each`).
#[derive(Clone, Debug)]
pub struct ForEach {
    /// The capture holding the array.
    pub capture: String,
    /// At most this many items.
    pub max: usize,
    /// Only the items this JSON Schema accepts (compiled when first used, for the built-in
    /// library).
    pub matching: Option<std::sync::Arc<Compiled<ItemSchema>>>,
    /// What it means about the server when no item qualifies.
    pub none: String,
    /// Whether no qualifying item means the server has nothing of the kind: the step's checks
    /// then do not apply.
    pub not_applicable: bool,
}

impl ForEach {
    /// The items of the captured array the step is sent for, in order: those `matching`
    /// accepts, at most `max`.
    pub fn items(&self, captured: Option<&Value>) -> Vec<Value> {
        captured
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|item| self.matching.as_ref().is_none_or(|m| m.get().accepts(item)))
            .take(self.max)
            .cloned()
            .collect()
    }
}

/// A value a step keeps for later steps.
#[derive(Clone, Debug)]
pub struct Capture {
    /// Its name (`{{capture.NAME}}`).
    pub name: String,
    /// The query whose first value it keeps.
    pub query: Query,
    /// What it means about the server when the query finds nothing: the reason a step that
    /// needs the value gives for not running.
    pub absent: String,
    /// Whether nothing found means the server has nothing of the kind (one page, no prompts):
    /// the checks of a step that needs the value then do not apply, rather than could not be
    /// tested.
    pub not_applicable: bool,
}

/// A step that polls: it sends its request again, each time with an id of its own, until the
/// reply meets `until` or `within` has passed (waiting between the polls what the server asks
/// for in `result.pollIntervalMs`, 50 ms to 1 s, 200 ms when it does not say).
#[derive(Clone, Debug)]
pub struct Poll {
    /// The condition on a reply that ends the polling.
    pub until: Cond,
    /// That condition as written, for people (`/result/status = {one_of = […]}`).
    pub until_text: String,
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
    /// HTTP: a GET of a document, apart from the MCP session (no session, no credentials): each
    /// URL in turn until one answers 2xx.
    Fetch(Vec<String>),
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

/// A condition: every query's values must meet its predicate.
#[derive(Clone, Debug, Default)]
pub struct Cond(pub Vec<(Query, Pred)>);

/// One form a query takes: as the documentation writes it, the pattern of its text (a regular
/// expression without anchors), and an example of it.
#[derive(Clone, Copy, Debug)]
pub struct QueryForm {
    /// As the README's table and the unknown-query error write it: `header.NAME`.
    pub form: &'static str,
    /// What its text matches: `header\..+`.
    pub pattern: &'static str,
    /// One query of the form: `header.content-type`.
    pub example: &'static str,
}

/// Every form of a query, in the order the README's table gives them: the unknown-query error
/// names them and the scenario schema's pattern for a query is made of them; tests hold that each
/// example parses and matches its pattern, and that the README documents each form.
pub const QUERY_FORMS: &[QueryForm] = &[
    QueryForm {
        form: "reply",
        pattern: "reply",
        example: "reply",
    },
    QueryForm {
        form: "/POINTER",
        pattern: "(/.*)?",
        example: "/error/code",
    },
    QueryForm {
        form: "sent/POINTER",
        pattern: "sent(/.*)?",
        example: "sent/params/uri",
    },
    QueryForm {
        form: "status",
        pattern: "status",
        example: "status",
    },
    QueryForm {
        form: "header.NAME",
        pattern: "header\\..+",
        example: "header.content-type",
    },
    QueryForm {
        form: "challenge.PARAM",
        pattern: "challenge\\..+",
        example: "challenge.scope",
    },
    QueryForm {
        form: "notified[METHOD]/POINTER",
        pattern: "notified\\[[^\\]]+\\](/.*)?",
        example: "notified[notifications/progress]/params/progress",
    },
    QueryForm {
        form: "requested[METHOD]/POINTER",
        pattern: "requested\\[[^\\]]+\\](/.*)?",
        example: "requested[sampling/createMessage]/params/messages",
    },
    QueryForm {
        form: "event-id[N]",
        pattern: "event-id\\[[0-9]+\\]",
        example: "event-id[0]",
    },
    QueryForm {
        form: "session-issued",
        pattern: "session-issued",
        example: "session-issued",
    },
    QueryForm {
        form: "progress-ok",
        pattern: "progress-ok",
        example: "progress-ok",
    },
    QueryForm {
        form: "content-digest",
        pattern: "content-digest",
        example: "content-digest",
    },
    QueryForm {
        form: "content-size",
        pattern: "content-size",
        example: "content-size",
    },
    QueryForm {
        form: "frontmatter/POINTER",
        pattern: "frontmatter(/.*)?",
        example: "frontmatter/name",
    },
    QueryForm {
        form: "step.NAME.…",
        pattern: "step\\.[A-Za-z0-9_-]+([./].*)?",
        example: "step.first.status",
    },
    QueryForm {
        form: "version",
        pattern: "version",
        example: "version",
    },
    QueryForm {
        form: "transport",
        pattern: "transport",
        example: "transport",
    },
    QueryForm {
        form: "offered",
        pattern: "offered",
        example: "offered",
    },
    QueryForm {
        form: "tool.NAME/POINTER",
        pattern: "tool\\.[^/]+(/.*)?",
        example: "tool.search/inputSchema/required",
    },
];

/// One way to address a part of what happened (see the README's "The scenario language").
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    /// A part of a step's exchange: the judged step's (`None`) or an earlier one's.
    Step {
        /// The earlier step's name; `None` for the step being judged.
        step: Option<String>,
        /// Which part.
        part: Part,
    },
    /// The negotiated protocol version.
    Version,
    /// The transport: `stdio`, `http` or `sse`.
    Transport,
    /// The versions the server offered in `server/discover` (several values).
    Offered,
    /// A listed tool's definition, at a JSON pointer (`tool.NAME/inputSchema/$schema`): what the
    /// run's listing of tools (every page) gave for that name.
    Tool {
        /// The tool's name.
        name: String,
        /// A JSON pointer into its definition (empty: all of it).
        at: String,
    },
}

/// A part of one step's exchange.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// The kinds of reply it got (several values: `response` and `result`, say).
    Reply,
    /// The reply message at a JSON pointer (`""`: the whole message).
    Body(String),
    /// What mcpcheck sent, at a JSON pointer.
    Sent(String),
    /// The HTTP status.
    Status,
    /// An HTTP response header, by name (any case).
    Header(String),
    /// A parameter of the response's Bearer challenge (`WWW-Authenticate`), by name in lower
    /// case: `challenge.resource_metadata`, `challenge.scope`, `challenge.error`.
    Challenge(String),
    /// The notifications of a method that arrived during the step, at a JSON pointer.
    Notified {
        /// The notification method.
        method: String,
        /// A JSON pointer into each such notification.
        at: String,
    },
    /// The requests of a method the server sent during the step, at a JSON pointer.
    Requested {
        /// The request method.
        method: String,
        /// A JSON pointer into each such request.
        at: String,
    },
    /// The id of the N-th SSE event of the HTTP response.
    EventId(usize),
    /// Named built-in: whether the server had issued an HTTP session id when the step ran.
    SessionIssued,
    /// Named built-in: whether the step's progress notifications are well-formed (at least one,
    /// each for the step's progress token, `progress` strictly increasing).
    ProgressOk,
    /// Named built-in: `sha256:` and the hex SHA-256 of the first item of a read's `contents`
    /// (its text as UTF-8, or its blob decoded), as the skills extension writes digests.
    ContentDigest,
    /// Named built-in: the size in bytes of the same.
    ContentSize,
    /// Named built-in: the YAML frontmatter of the first item of a read's `contents` (text
    /// beginning with a line `---`, up to the next), as JSON, at a JSON pointer.
    Frontmatter(String),
}

/// A predicate: every test must hold.
#[derive(Clone, Debug, Default)]
pub struct Pred(pub Vec<Test>);

/// One test of a predicate. A query yields zero or more values; `exists` asks whether it yields
/// any; every other test holds when some value passes it, and on no value at all only
/// `not_equals` holds (nothing there is not equal to anything).
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
    /// Whether the query yields a value at all.
    Exists(bool),
    /// An array, object or string of exactly this many items (characters).
    Length(usize),
    /// An array with an item equal to this (an object: with these members).
    Contains(Value),
    /// A string the regular expression matches.
    Matches(Arc<Compiled<regex::Regex>>),
    /// A string that begins with this one (templated).
    StartsWith(Value),
    /// A string that ends with this one (templated).
    EndsWith(Value),
    /// A protocol version within the window.
    Within(VersionRange),
    /// Valid against a schema.
    Schema(Arc<Compiled<jsonschema::Validator>>),
    /// Valid against the schema a placeholder resolves to at evaluation time.
    SchemaFrom(String),
}

/// What a predicate of a scenario file compiles before it can test (`schema = {…}`, a JSON
/// Schema of draft 2020-12; `matches = "…"`, a regular expression), compiled when it is first
/// used: a run loads the whole library and reaches few of them. A file given with `--scenarios`
/// has each compiled as it is loaded, so that an error points at its line; the built-in
/// library's are compiled by its test.
#[derive(Debug)]
pub struct Compiled<T: Compilable> {
    source: T::Source,
    compiled: std::sync::OnceLock<T>,
}

/// How what a [`Compiled`] holds is made from the file's value.
pub trait Compilable: Sized {
    /// What the file gives: a schema's JSON, a pattern's text.
    type Source: std::fmt::Debug;
    /// Compiles it, or says why it does not compile.
    fn compile(source: &Self::Source) -> Result<Self, String>;
}

impl Compilable for jsonschema::Validator {
    type Source = serde_json::Value;

    fn compile(source: &serde_json::Value) -> Result<Self, String> {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(source)
            .map_err(|e| format!("the schema does not compile: {e}"))
    }
}

/// A `for_each.matching` schema, of the dialect its `$schema` names (2020-12 without one).
#[derive(Debug)]
pub struct ItemSchema(jsonschema::Validator);

impl ItemSchema {
    /// Whether the schema accepts `item`.
    pub fn accepts(&self, item: &Value) -> bool {
        self.0.is_valid(item)
    }
}

impl Compilable for ItemSchema {
    type Source = serde_json::Value;

    fn compile(source: &serde_json::Value) -> Result<Self, String> {
        jsonschema::validator_for(source)
            .map(ItemSchema)
            .map_err(|e| e.to_string())
    }
}

impl Compilable for regex::Regex {
    type Source = String;

    fn compile(source: &String) -> Result<Self, String> {
        regex::Regex::new(source).map_err(|e| format!("`matches`: not a regular expression: {e}"))
    }
}

impl<T: Compilable> Compiled<T> {
    /// Not compiled yet.
    pub fn new(source: T::Source) -> Compiled<T> {
        Compiled {
            source,
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// Compiled (now, if it was not yet), or why it does not compile.
    pub fn compiled(&self) -> Result<&T, String> {
        if let Some(compiled) = self.compiled.get() {
            return Ok(compiled);
        }
        let compiled = T::compile(&self.source)?;
        Ok(self.compiled.get_or_init(|| compiled))
    }

    /// Compiled, for a test to use.
    pub fn get(&self) -> &T {
        self.compiled()
            .expect("a scenario compiles: checked as its file was loaded, or by the built-in library's test")
    }
}

/// JSON types.
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
}

impl JsonType {
    /// Whether a value has this type.
    pub fn matches(self, value: &Value) -> bool {
        match self {
            JsonType::String => value.is_string(),
            JsonType::Number => value.is_number(),
            JsonType::Integer => value.is_i64() || value.is_u64(),
            JsonType::Boolean => value.is_boolean(),
            JsonType::Object => value.is_object(),
            JsonType::Array => value.is_array(),
            JsonType::Null => value.is_null(),
        }
    }
}
