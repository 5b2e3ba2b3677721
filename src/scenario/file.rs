//! The on-disk scenario format (TOML), mirrored field by field. Unknown fields are errors, and
//! spans are kept where later validation needs to point at a line. The file format's JSON Schema
//! is derived from these types (`schemars`): their doc comments are its descriptions, and the
//! `schemars` attributes say what serde's do not (the words a key takes, a number's range, the
//! query forms of a condition).

use std::borrow::Cow;

use indexmap_lite::OrderedMap;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

use super::model::QUERY_FORMS;

/// The verdicts a rule (or a check's `otherwise`) may give.
const VERDICTS: [&str; 7] = [
    "pass",
    "fail",
    "warn",
    "info",
    "skip",
    "not-testable",
    "violation",
];

/// What a scenario's or a check's id looks like.
const ID: &str = "^[a-z0-9][a-z0-9-]*$";

/// Ordered string maps in the file (headers, captures) keep their written order.
pub mod indexmap_lite {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

    /// A map that keeps insertion order; small, so a vector of pairs is enough.
    #[derive(Clone, Debug, Default)]
    pub struct OrderedMap(pub Vec<(String, String)>);

    impl schemars::JsonSchema for OrderedMap {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "OrderedMap".into()
        }

        fn inline_schema() -> bool {
            true
        }

        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({ "type": "object", "additionalProperties": { "type": "string" } })
        }
    }

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
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The scenario id (kebab-case).
    #[schemars(with = "String", extend("pattern" = ID))]
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
    #[schemars(with = "Option<String>", extend("enum" = ["shared", "probe", "fresh", "bare"]))]
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
    /// Rule lists several checks of the file share, by name; a check's rules take one in with
    /// `{ use = "NAME" }`, at that place.
    #[serde(default)]
    #[schemars(schema_with = "shared_rules")]
    pub rules: std::collections::BTreeMap<Spanned<String>, Vec<Spanned<RuleFile>>>,
}

/// Applicability.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = older_names)]
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
    #[schemars(with = "Option<String>")]
    pub versions: Option<Spanned<String>>,
    /// `stdio`, `http` or `sse`, or a list of them.
    #[serde(default)]
    #[schemars(schema_with = "transports")]
    pub transport: Option<Spanned<toml::Value>>,
    /// `handshake` or `stateless`.
    #[serde(default)]
    #[schemars(with = "Option<String>", extend("enum" = ["handshake", "stateless"]))]
    pub era: Option<Spanned<String>>,
    /// A fixture set (`everything`): the scenario runs only when the run selects it with
    /// `--fixtures`, against a server that implements those fixtures (`profile` is an older
    /// name for it).
    #[serde(default, alias = "profile")]
    #[schemars(with = "Option<String>", extend("enum" = ["everything"]))]
    pub fixtures: Option<Spanned<String>>,
    /// The scenario calls a tool the server lists (`{{probe.name}}`): it runs only when the user
    /// allows that with `--call-tools`.
    #[serde(default)]
    pub call_tools: bool,
}

/// A JSON-RPC message to send.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageFile {
    /// The method.
    pub method: String,
    /// The params.
    #[serde(default)]
    pub params: Option<Value>,
}

/// A notification sent while a step's request is in flight.
#[derive(Debug, Deserialize, JsonSchema)]
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
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackgroundFile {
    /// The steps after it start once a notification of this method has arrived on its stream
    /// (or once it has ended, whichever comes first).
    pub once_notified: String,
}

/// How a step polls: which reply ends it, and for how long it may go on.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PollFile {
    /// The condition on a reply that ends the polling (like a rule's `when`).
    #[schemars(with = "Condition")]
    pub until: Spanned<toml::Table>,
    /// How long the polling may go on, in milliseconds (10 000 when not given).
    #[serde(default)]
    pub within_ms: Option<u64>,
}

/// A step sent once per item of a captured array.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForEachFile {
    /// The capture holding the array (`resources`, captured as `/result/resources`).
    #[serde(rename = "in")]
    pub capture: String,
    /// At most this many items (1 to 16; 16 when not given), in the order listed.
    #[serde(default)]
    #[schemars(range(min = 1, max = 16))]
    pub max: Option<usize>,
    /// Only the items this JSON Schema accepts (a prompt with a required argument, say).
    #[serde(default)]
    #[schemars(extend("type" = "object"))]
    pub matching: Option<Value>,
    /// What it means about the server when no item qualifies: the reason the step gives for
    /// not running ("no listed prompt has a required argument").
    pub none: String,
    /// Whether no qualifying item means the server has nothing of the kind, so that the checks
    /// judging the step do not apply (rather than could not be tested).
    #[serde(default)]
    pub not_applicable: bool,
}

/// One step.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepFile {
    /// The step's name, referred to by checks.
    #[schemars(with = "String")]
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
    #[schemars(with = "Option<usize>", range(min = 1))]
    pub drop_after_events: Option<Spanned<usize>>,
    /// A request that opens a stream (`subscriptions/listen`): stop waiting for its response once
    /// a notification of this method has arrived (HTTP: the stream is then closed, which ends
    /// the request; stdio: cancel it in a later step).
    #[serde(default)]
    pub until_notified: Option<String>,
    /// A request that stays open while the steps after it run (`subscriptions/listen` while
    /// another request changes a list): they start once its `once_notified` notification came.
    #[serde(default)]
    #[schemars(with = "Option<BackgroundFile>")]
    pub background: Option<Spanned<BackgroundFile>>,
    /// While the request is in flight, send this notification too (e.g. a cancellation).
    #[serde(default)]
    #[schemars(with = "Option<AlongsideFile>")]
    pub alongside: Option<Spanned<AlongsideFile>>,
    /// Send the request this many times at once (2 to 16), each copy with its own id; `{{copy}}`
    /// is the copy's number (1, 2, …). Every copy is judged.
    #[serde(default)]
    #[schemars(with = "Option<usize>", range(min = 2, max = 16))]
    pub concurrent: Option<Spanned<usize>>,
    /// Send the request once per item of a captured array (sequentially, each with an id of its
    /// own); `{{each/POINTER}}` is a value of the item. Every item's exchange is judged.
    #[serde(default)]
    #[schemars(with = "Option<ForEachFile>")]
    pub for_each: Option<Spanned<ForEachFile>>,
    /// A list request: follow `result.nextCursor` up to this many pages in all (2 to 16), each
    /// page a request of its own with `params.cursor`; every page is judged, and an array a
    /// capture takes from the pages is joined across them.
    #[serde(default)]
    #[schemars(with = "Option<usize>", range(min = 2, max = 16))]
    pub pages: Option<Spanned<usize>>,
    /// Send the request again (each time with an id of its own) until its reply has one of
    /// these values at a JSON pointer, as a client polls `tasks/get`; the last reply is the
    /// step's.
    #[serde(default)]
    #[schemars(with = "Option<PollFile>")]
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
    /// Values to capture: name = query (the first value it yields), e.g. `/result/tools/0/name`,
    /// or name = `{ from = QUERY, absent = "what it means about the server when there is none" }`:
    /// the reason the steps that need it give for not running; with `not_applicable = true`
    /// their checks then do not apply (the server has nothing of the kind).
    #[serde(default)]
    #[schemars(schema_with = "captures")]
    pub capture: toml::Table,
    /// HTTP only: send with this method (`GET` or `DELETE`) and no body; such a step needs no
    /// `request`, `notification` or `raw`.
    #[serde(default)]
    #[schemars(with = "Option<String>", extend("enum" = ["GET", "DELETE", "POST"]))]
    pub http_method: Option<Spanned<String>>,
    /// HTTP only: GET a document instead of sending a message: a URL, or several tried in turn
    /// until one answers 2xx (`{{server.origin}}`, `{{capture.NAME?}}`: a URL whose optional
    /// placeholder has no value is left out). Sent with no session, no credentials and none of
    /// the user's headers; a JSON body is the reply queries read.
    #[serde(default)]
    #[schemars(with = "Option<FetchFile>")]
    pub fetch: Option<Spanned<FetchFile>>,
}

/// The URLs a `fetch` step tries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FetchFile {
    /// One URL.
    One(String),
    /// URLs tried in turn.
    Many(#[schemars(length(min = 1, max = 8))] Vec<String>),
}

/// One check.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckFile {
    /// The stable check id.
    #[schemars(with = "String", extend("pattern" = ID))]
    pub id: Spanned<String>,
    /// Built-in library only: the grading profile that first grades the check (user checks
    /// leave it out; every profile grades them).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub since: Option<Spanned<String>>,
    /// What is checked, in one line.
    pub title: String,
    /// `MUST`, `SHOULD` or `MAY`.
    #[schemars(with = "String", extend("enum" = ["MUST", "SHOULD", "MAY"]))]
    pub level: Spanned<String>,
    /// Whether the requirement is derived (JSON-RPC 2.0, the schema, an RFC MCP builds on) rather
    /// than stated.
    #[serde(default)]
    pub derived: bool,
    /// Citations.
    #[schemars(length(min = 1))]
    pub spec: Vec<SpecFile>,
    /// The step (or steps) the check judges.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub step: Option<Spanned<String>>,
    /// Several steps, all judged; the worst verdict wins.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub steps: Vec<Spanned<String>>,
    /// What a conforming server does, in words.
    pub expect: String,
    /// Why the requirement exists and how the check probes it.
    #[serde(default)]
    pub explain: Option<String>,
    /// A version window narrower than the scenario's.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub versions: Option<Spanned<String>>,
    /// The rules, tried in order; the first that matches gives the verdict.
    #[serde(default, rename = "rule")]
    #[schemars(with = "Vec<RuleFile>")]
    pub rules: Vec<Spanned<RuleFile>>,
    /// The verdict when no rule matches (default: what a violation of the level gets).
    #[serde(default)]
    #[schemars(with = "Option<String>", extend("enum" = VERDICTS))]
    pub otherwise: Option<Spanned<String>>,
}

/// A citation.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// The protocol version, `jsonrpc-2.0`, or an RFC (`rfc6750`).
    #[schemars(with = "String")]
    pub version: Spanned<String>,
    /// The section path with anchor.
    pub section: String,
    /// A link, when the derived one is wrong.
    #[serde(default)]
    pub url: Option<String>,
}

/// A rule: a condition and the verdict it gives, or (`use`) a shared rule list of the file's
/// taken in at its place.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = rule_or_use)]
pub struct RuleFile {
    /// The condition: query = predicate, every one of which must hold (`{}`: always).
    #[serde(default)]
    #[schemars(with = "Option<Condition>")]
    pub when: Option<Spanned<toml::Table>>,
    /// `pass`, `fail`, `warn`, `info`, `skip`, `not-testable` or `violation` (per the level).
    #[serde(default)]
    #[schemars(with = "Option<String>", extend("enum" = VERDICTS))]
    pub verdict: Option<Spanned<String>>,
    /// The name of a list in the file's `[rules]`, whose rules stand here (alone in its rule).
    #[serde(default, rename = "use")]
    #[schemars(with = "Option<String>")]
    pub shared: Option<Spanned<String>>,
    /// The message reported (templated).
    #[serde(default)]
    pub message: Option<String>,
    /// A note that does not change the verdict.
    #[serde(default)]
    pub note: Option<String>,
}

/// A predicate written as a table: every test given must hold. A predicate written as a plain
/// value (a string, number, boolean or array) is short for `{ equals = VALUE }`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct PredFile {
    /// Equals this (templated, type-strict).
    #[serde(default)]
    pub equals: Option<Value>,
    /// Does not equal this.
    #[serde(default)]
    pub not_equals: Option<Value>,
    /// Is one of these.
    #[serde(default)]
    pub one_of: Option<Vec<Value>>,
    /// Is of this JSON type: string, number, integer, boolean, object, array, null.
    #[serde(default, rename = "type")]
    #[schemars(extend("enum" = ["string", "number", "integer", "boolean", "object", "array", "null"]))]
    pub kind: Option<String>,
    /// Whether the query yields a value at all.
    #[serde(default)]
    pub exists: Option<bool>,
    /// An array, object or string of exactly this many items (characters).
    #[serde(default)]
    pub length: Option<usize>,
    /// An array with an item that is this value, or, for an object, an object with these members
    /// (templated: `{ taskId = "{{capture.task}}" }`).
    #[serde(default)]
    pub contains: Option<Value>,
    /// A string this regular expression matches (`(?i)` for any case).
    #[serde(default)]
    pub matches: Option<String>,
    /// A string that begins with this one (templated: `"{{capture.root}}/"`).
    #[serde(default)]
    pub starts_with: Option<String>,
    /// A string that ends with this one (templated).
    #[serde(default)]
    pub ends_with: Option<String>,
    /// A protocol version within this window (`>=2025-06-18`, `<=2025-11-25`, `A..B`, `*`).
    #[serde(default)]
    pub within: Option<String>,
    /// Valid against this JSON Schema (2020-12 unless `$schema` says otherwise).
    #[serde(default)]
    #[schemars(extend("type" = ["object", "boolean"]))]
    pub schema: Option<Value>,
    /// Valid against the schema this placeholder names, e.g. `"{{capture.outputSchema}}"`.
    #[serde(default)]
    pub schema_from: Option<String>,
}

/// A condition (a rule's `when`, a poll's `until`): query = predicate, every pair must hold. Only
/// for the schema: the loader reads it as a table and parses each query.
pub struct Condition;

/// The pattern every query matches: the forms of [`QUERY_FORMS`], one of them whole.
fn query_pattern() -> String {
    let forms: Vec<&str> = QUERY_FORMS.iter().map(|f| f.pattern).collect();
    format!("^({})$", forms.join("|"))
}

impl JsonSchema for Condition {
    fn schema_name() -> Cow<'static, str> {
        "condition".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let predicate = generator.subschema_for::<PredFile>();
        json_schema!({
            "type": "object",
            "description": "query = predicate; every pair must hold",
            "propertyNames": { "pattern": query_pattern() },
            "additionalProperties": {
                "anyOf": [predicate, { "type": ["string", "number", "boolean", "array"] }]
            }
        })
    }
}

/// A step's `capture`: name = query, or name = `{ from = QUERY, absent = …, not_applicable = … }`.
fn captures(_: &mut SchemaGenerator) -> Schema {
    let query = query_pattern();
    json_schema!({
        "type": "object",
        "additionalProperties": {
            "anyOf": [
                { "type": "string", "pattern": query },
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["from"],
                    "properties": {
                        "from": { "type": "string", "pattern": query },
                        "absent": { "type": "string", "description": "what it means about the server when the query finds nothing" },
                        "not_applicable": { "type": "boolean", "description": "nothing found means the server has nothing of the kind: the checks of a step needing it do not apply (needs absent)" }
                    }
                }
            ]
        }
    })
}

/// `[rules]`: lists of rules by name; a list takes in no other (`use` is for a check's rules).
fn shared_rules(generator: &mut SchemaGenerator) -> Schema {
    // The rule's schema is registered, then its first branch (a condition and a verdict) named.
    generator.subschema_for::<RuleFile>();
    json_schema!({
        "type": "object",
        "additionalProperties": { "type": "array", "items": { "$ref": "#/$defs/RuleFile/oneOf/0" } }
    })
}

/// `requires.transport`: one transport or a list of them.
fn transports(_: &mut SchemaGenerator) -> Schema {
    let one = json_schema!({ "enum": ["stdio", "http", "sse", "legacy-sse"] });
    json_schema!({
        "description": "stdio, http or sse (legacy-sse), or a list of them",
        "anyOf": [one, { "type": "array", "minItems": 1, "items": one }]
    })
}

/// `requires.profile`, the older name of `fixtures`, is a key of the file too.
fn older_names(schema: &mut Schema) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    if let Some(mut fixtures) = properties.get("fixtures").cloned() {
        fixtures["description"] = "an older name for fixtures".into();
        properties.insert("profile".into(), fixtures);
    }
}

/// A rule is a condition with its verdict (and words), or a `use` of a shared list, alone.
fn rule_or_use(schema: &mut Schema) {
    let Some(Value::Object(mut properties)) = schema.get("properties").cloned() else {
        return;
    };
    let shared = properties.remove("use").unwrap_or_default();
    let description = schema.get("description").cloned().unwrap_or_default();
    *schema = json_schema!({
        "description": description,
        "oneOf": [
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["when", "verdict"],
                "properties": properties
            },
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["use"],
                "properties": { "use": shared }
            }
        ]
    });
}
