//! Built-in checks judged over whole transcripts rather than single steps: framing, the JSON-RPC
//! envelope of every message, HTTP status and content types, and how a stdio server exits.

use std::collections::HashMap;

use serde_json::Value;

use super::{messages, CheckDef, Level, SpecRef, Status, Verdict};
use crate::protocol::session::id_key;
use crate::protocol::VersionRange;
use crate::report::Evidence;
use crate::transport::stdio::ExitReport;
use crate::transport::transcript::cut;
use crate::transport::{Direction, Transcript, TransportKind, WireFrame};

/// A built-in check's definition, as data.
struct Builtin {
    id: &'static str,
    area: &'static str,
    title: &'static str,
    level: Level,
    derived: bool,
    spec: &'static [(&'static str, &'static str)],
    expect: &'static str,
    transport: Option<TransportKind>,
    explain: &'static str,
    /// Why the check is skipped when the run gave it nothing to examine (`None`: not testable).
    idle: Option<&'static str>,
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "wire-notification-schema",
        area: "jsonrpc",
        title: "every notification the server sends has its method's shape",
        level: Level::Must,
        derived: true,
        spec: &[("2025-11-25", "schema"), ("2026-07-28", "schema")],
        expect: "each notifications/message, progress, cancelled, resources/updated and list_changed notification to validate against its type at the negotiated version",
        transport: None,
        explain: "The schema defines the params of every notification: a log message needs a level from the RFC 5424 list and data, progress a string or integer token and a number, resources/updated a uri. mcpcheck validates every notification of a method it knows, on every connection, against its own per-version description (and the official schema files with --official-schemas). Notifications of other methods are not judged here.",
        idle: Some("the server sent no notification of a method mcpcheck knows"),
    },
    Builtin {
        id: "wire-uri-rfc3986",
        area: "resources",
        title: "every resource URI the server sends is an RFC 3986 URI",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "server/resources#resource"), ("rfc3986", "section-3")],
        expect: "each uri in resources/list and resources/read results and in resource and resource_link content blocks to be scheme \":\" followed only by characters a URI may hold, with well-formed percent-escapes",
        transport: None,
        explain: "Resources are identified by URIs per RFC 3986, custom schemes included. A space, a non-ASCII character, a malformed percent-escape or a missing scheme makes a string that clients cannot parse or compare reliably. Every URI of every such result of the run is examined.",
        idle: Some("no resource URI crossed the wire during the run"),
    },
    Builtin {
        id: "wire-base64",
        area: "resources",
        title: "every blob and every image or audio payload is valid base64",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "server/resources#binary-content"), ("2025-11-25", "server/tools#image-content"), ("rfc4648", "section-4")],
        expect: "each resource blob and each image or audio block's data to be padded base64 in the standard alphabet (RFC 4648 §4)",
        transport: None,
        explain: "Binary data MUST be properly encoded: the schema gives these members format `byte`, base64 as RFC 4648 §4 defines it — the standard alphabet (not the URL-safe one), padded with `=` to a multiple of four characters. Every blob and image or audio payload of the run's resources/read, tools/call and prompts/get results is examined.",
        idle: Some("no blob, image or audio payload crossed the wire during the run"),
    },
    Builtin {
        id: "tools-name-unique",
        area: "tools",
        title: "no tool name is listed twice, across all pages of a listing",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "server/tools#tool-names")],
        expect: "every tool name to appear once across the pages of each tools/list listing",
        transport: None,
        explain: "Tool names SHOULD be unique within a server, since clients call tools by name; a duplicate makes one of them unreachable. The pages of one listing (a tools/list without a cursor, then the ones that follow its nextCursor) are taken together.",
        idle: None,
    },
    Builtin {
        id: "progress-only-while-active",
        area: "progress",
        title: "progress notifications only name tokens of requests still in flight",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/utilities/progress#behavior-requirements")],
        expect: "each notifications/progress to carry the progressToken of a request mcpcheck sent that has not been answered yet",
        transport: None,
        explain: "Progress notifications MUST only reference tokens that were provided in an active request; once the response is sent the request is over, and progress for it (or for a token never given) is a protocol error the client cannot attribute. Every progress notification of the run is examined, in the order it arrived.",
        idle: Some("the server sent no progress notifications"),
    },
    Builtin {
        id: "server-requests-allowed",
        area: "lifecycle",
        title: "the server sends only the requests the client's capabilities allow",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/lifecycle#capability-negotiation"), ("2026-07-28", "basic/patterns/mrtr")],
        expect: "no sampling/createMessage or elicitation/create request (mcpcheck declares only `roots`), and on 2026-07-28 no request at all",
        transport: None,
        explain: "Both parties MUST respect the negotiated capabilities: mcpcheck declares the `roots` client capability only, so a server may ask for roots/list or ping, but not for sampling or elicitation. On 2026-07-28 a server sends no requests of its own: it asks for input by returning an InputRequiredResult. Every request the server sent during the run is examined.",
        idle: Some("the server sent no requests of its own"),
    },
    Builtin {
        id: "server-request-id",
        area: "jsonrpc",
        title: "the server's own requests have string or integer ids, never reused",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/index#requests")],
        expect: "each request the server sends to have a string or integer id that it has not used before on the connection",
        transport: None,
        explain: "Requests MUST include a string or integer ID, which MUST NOT be null and MUST NOT have been used before by the requestor within the same session; a reused id makes the client's answer ambiguous. Every request the server sent during the run is examined.",
        idle: Some("the server sent no requests of its own"),
    },
    Builtin {
        id: "http-sse-event-id-unique",
        area: "http",
        title: "SSE event ids are unique across all streams of a session",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#resumability-and-redelivery")],
        expect: "no SSE event id used twice within one session, on any of its streams (2025-03-26 to 2025-11-25)",
        transport: Some(TransportKind::Http),
        explain: "If a server attaches ids to SSE events, they MUST be globally unique across all streams within the session, because a client resumes with Last-Event-ID and the server must know which stream and position that names. Every event id of every SSE response of each session is examined.",
        idle: Some("no SSE event of a 2025-03-26 to 2025-11-25 session carried an id"),
    },
    Builtin {
        id: "stateless-tools-order-stable",
        area: "stateless",
        title: "2026-07-28: tools/list answers in a deterministic order",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "server/tools#listing-tools")],
        expect: "every first page of tools/list in the run to list the same tools in the same order",
        transport: None,
        explain: "On 2026-07-28 tools/list SHOULD be deterministic, so that clients and caches (ttlMs, cacheScope) see one stable list and prompts built from it do not change between requests. The first pages of every tools/list of every 2026-07-28 connection are compared.",
        idle: Some("applies to 2026-07-28 tools/list results (with x-mcp-header, for the latter)"),
    },
    Builtin {
        id: "stateless-x-mcp-header-valid",
        area: "stateless",
        title: "2026-07-28: x-mcp-header annotations in tool schemas are well-formed",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "server/tools#tool"), ("2026-07-28", "basic/transports/streamable-http")],
        expect: "each x-mcp-header a non-empty HTTP token, unique without regard to case, on an integer, string or boolean property reached through `properties` only",
        transport: None,
        explain: "A tool may ask clients to mirror an argument into an Mcp-Param-<Name> header with x-mcp-header. The name must be an RFC 9110 token, unique per tool without regard to case, only on integer, string or boolean properties, and reachable through a chain of `properties` (not items, anyOf, $ref …); clients drop a tool that breaks these rules. Every inputSchema of every 2026-07-28 tools/list result is examined.",
        idle: Some("applies to 2026-07-28 tools/list results (with x-mcp-header, for the latter)"),
    },
    Builtin {
        id: "stateless-listen-ack-first",
        area: "stateless",
        title: "2026-07-28: a subscription's first message is its acknowledgement",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/subscriptions")],
        expect: "for every subscriptions/listen, the first notification tagged with its id to be notifications/subscriptions/acknowledged",
        transport: None,
        explain: "The acknowledgement MUST be the first message the server sends carrying the subscription's id in io.modelcontextprotocol/subscriptionId, and no notification may go out on the subscription before it (on stdio the order is per subscription; others may interleave). Every listen request of the run is examined.",
        idle: Some("no notification tagged with a subscriptions/listen id arrived"),
    },
    Builtin {
        id: "stateless-listen-filter",
        area: "stateless",
        title: "2026-07-28: a subscription carries only the notification types asked for",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/subscriptions"), ("2026-07-28", "schema#subscriptionfilter")],
        expect: "the acknowledgement to agree to a subset of the types asked for, and every tagged notification to be of a type asked for (never progress or log messages)",
        transport: None,
        explain: "Each notification type is opt-in: the server MUST NOT send types the client did not request on a subscriptions/listen stream, and acknowledges only a subset of what was asked. Progress and log messages belong to a request's own response stream. Every notification tagged with a listen request's id is examined against that request's filter.",
        idle: Some("no notification tagged with a subscriptions/listen id arrived"),
    },
    Builtin {
        id: "stateless-input-required-shape",
        area: "stateless",
        title: "2026-07-28: an InputRequiredResult asks only for what it may",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/mrtr"), ("2026-07-28", "server/utilities/caching")],
        expect: "every InputRequiredResult to answer tools/call, prompts/get or resources/read, to carry inputRequests or requestState, to ask only for elicitation/create, sampling/createMessage or roots/list of capabilities the request declared, and to carry no caching hints",
        transport: None,
        explain: "With MRTR a server asks the client for input by returning resultType \"input_required\". Only tools/call, prompts/get and resources/read may do so; the result carries inputRequests and/or requestState; each input request is an elicitation, sampling or roots request, and only for a capability the request's clientCapabilities declared (MUST NOT otherwise); and such a result is not cacheable. Every InputRequiredResult of the run is examined.",
        idle: Some("the server answered no request with an InputRequiredResult"),
    },
    Builtin {
        id: "tools-structured-content-mirrored",
        area: "tools",
        title: "structuredContent is mirrored as JSON in a text block",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "server/tools#structured-content")],
        expect: "every tools/call result with structuredContent to carry a text content block whose text parses to the same JSON",
        transport: None,
        explain: "For backwards compatibility, a tool that returns structured content SHOULD also return its serialized JSON in a TextContent block, so that clients that do not read structuredContent still get the data. Every tool result of the run with structuredContent is examined.",
        idle: Some("no tool result carried structuredContent"),
    },
    Builtin {
        id: "stateless-server-info-everywhere",
        area: "stateless",
        title: "2026-07-28: every result names the server in _meta",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "basic/index#meta")],
        expect: "_meta io.modelcontextprotocol/serverInfo with a name and a version on every result of a 2026-07-28 connection",
        transport: None,
        explain: "Without a handshake, a 2026-07-28 client learns who answered from each result: servers SHOULD include io.modelcontextprotocol/serverInfo (an Implementation: name and version) in the _meta of every response. Every result of every 2026-07-28 connection is examined.",
        idle: Some("applies to 2026-07-28 connections (SSE responses, for the latter)"),
    },
    Builtin {
        id: "stateless-sse-unbuffered",
        area: "stateless",
        title: "2026-07-28: SSE responses carry X-Accel-Buffering: no",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "basic/transports/streamable-http")],
        expect: "the header X-Accel-Buffering: no on every text/event-stream response of a 2026-07-28 connection",
        transport: Some(TransportKind::Http),
        explain: "A reverse proxy that buffers an SSE response delays every event until the stream ends, which defeats progress and long-lived subscriptions; 2026-07-28 servers SHOULD send X-Accel-Buffering: no on SSE responses. Every SSE response of every 2026-07-28 connection is examined.",
        idle: Some("applies to 2026-07-28 connections (SSE responses, for the latter)"),
    },
    Builtin {
        id: "stateless-error-codes",
        area: "stateless",
        title: "on 2026-07-28, no retired or undefined error code of the reserved range",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/index#error-codes")],
        expect: "no error with -32002, -32042, or a code in -32020..-32099 other than -32020, -32021 and -32022 on a 2026-07-28 connection",
        transport: None,
        explain: "2026-07-28 reserves -32020 to -32099 for the specification and defines -32020, -32021 and -32022 in it; implementations MUST NOT emit an undefined code from the range. -32002 (resource not found, now -32602) and -32042 are retired. Every error response of a 2026-07-28 connection is examined.",
        idle: Some("no error came back on a 2026-07-28 connection"),
    },
    Builtin {
        id: "stateless-http-no-session",
        area: "stateless",
        title: "on 2026-07-28, responses carry no Mcp-Session-Id",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "basic/transports/streamable-http")],
        expect: "no Mcp-Session-Id header on any response of a connection on 2026-07-28",
        transport: Some(TransportKind::Http),
        explain: "2026-07-28 has no sessions: every request stands alone, and a session id in a response suggests state a client must not rely on. Only connections on 2026-07-28 are examined.",
        idle: Some("applies to connections on 2026-07-28 only"),
    },
    Builtin {
        id: "tools-schemas-valid",
        area: "tools",
        title: "every listed tool's inputSchema and outputSchema is a valid JSON Schema",
        level: Level::Must,
        derived: true,
        spec: &[("2025-11-25", "server/tools#tool"), ("2025-11-25", "basic/index#json-schema-usage")],
        expect: "each inputSchema (and outputSchema) in every tools/list result to be a valid JSON Schema of its dialect ($schema, else 2020-12 from 2025-11-25 on and draft-07 before)",
        transport: None,
        explain: "Clients validate arguments and structured results with these schemas; a schema that does not compile (an unknown type name, a malformed keyword) makes the tool unusable. mcpcheck compiles every schema of every tools/list result of the run, by the dialect its $schema names, else the version's default: JSON Schema 2020-12 from 2025-11-25 on, draft-07 before.",
        idle: None,
    },
    Builtin {
        id: "http-session-id-visible-ascii",
        area: "http",
        title: "a session id holds only visible ASCII",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#session-management")],
        expect: "every Mcp-Session-Id the server issues to consist of characters 0x21 to 0x7E only",
        transport: Some(TransportKind::Http),
        explain: "The session ID MUST only contain visible ASCII characters (0x21 to 0x7E), so that it survives every HTTP stack and log unchanged. Every session id issued during the run is examined.",
        idle: Some("the server issued no session id"),
    },
    Builtin {
        id: "http-sse-priming",
        area: "http",
        title: "an SSE response starts with a priming event (an id and empty data)",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
        expect: "on 2025-11-25, every text/event-stream response to a POST to begin with an event that has an id and empty data",
        transport: Some(TransportKind::Http),
        explain: "From 2025-11-25 (SEP-1699) a server opening an SSE stream SHOULD immediately send an event with an event ID and an empty data field, so the client can reconnect with Last-Event-ID. 2026-07-28 dropped resumability, and earlier versions did not ask for it; only responses of connections on 2025-11-25 are examined, after the initialize POST that negotiates the version.",
        idle: Some("no POST was answered with an SSE stream on a 2025-11-25 connection"),
    },
    Builtin {
        id: "wire-result-schema",
        area: "jsonrpc",
        title: "every result has the shape of its method's result type",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "schema"), ("2026-07-28", "schema")],
        expect: "each result to validate against its method's result type at the negotiated version (InitializeResult, ListToolsResult, CallToolResult, ReadResourceResult, GetPromptResult, CompleteResult, DiscoverResult, …)",
        transport: None,
        explain: "The schema defines a result type for every method; a response with a valid JSON-RPC envelope but the wrong result shape is still wrong. mcpcheck validates every result it receives, on every connection, against its own per-version description of that type (content types, required members, and from 2026-07-28 resultType and the caching hints ttlMs and cacheScope on list and read results).",
        idle: None,
    },
    Builtin {
        id: "stdio-framing",
        area: "stdio",
        title: "stdout carries only MCP messages, one per line",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#stdio")],
        expect: "every line on stdout to be exactly one JSON-RPC message, with no banner, log line, blank line or pretty-printed JSON",
        transport: Some(TransportKind::Stdio),
        explain: "Messages are delimited by newlines and MUST NOT contain embedded newlines; the server MUST NOT write anything to stdout that is not a valid MCP message. Every line the server writes during the whole run is examined.",
        idle: None,
    },
    Builtin {
        id: "stdio-exit-on-stdin-eof",
        area: "stdio",
        title: "the server exits when its stdin is closed",
        level: Level::Should,
        derived: false,
        spec: &[("2025-11-25", "basic/lifecycle#stdio")],
        expect: "the server to exit within the grace period after mcpcheck closes its stdin, without needing SIGTERM",
        transport: Some(TransportKind::Stdio),
        explain: "For stdio, shutdown starts with the client closing the server's input stream; the client then waits and escalates to SIGTERM and SIGKILL only if the server does not exit. mcpcheck follows that ladder at the end of the run.",
        idle: None,
    },
    Builtin {
        id: "jsonrpc-version-field",
        area: "jsonrpc",
        title: "every message carries \"jsonrpc\": \"2.0\"",
        level: Level::Must,
        derived: true,
        spec: &[("2025-11-25", "basic/index#messages"), ("jsonrpc-2.0", "request_object")],
        expect: "every message from the server to have the member \"jsonrpc\" with the value \"2.0\"",
        transport: None,
        explain: "All MCP messages MUST follow JSON-RPC 2.0, whose envelope requires the `jsonrpc` member to be exactly \"2.0\". Every message received during the run is examined.",
        idle: None,
    },
    Builtin {
        id: "jsonrpc-response-id",
        area: "jsonrpc",
        title: "every response echoes its request's id, with the same JSON type",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/index#responses")],
        expect: "each response's id to equal the id of the request it answers, with the same JSON type (a string stays a string)",
        transport: None,
        explain: "Responses MUST include the same id as the request they correspond to. mcpcheck matches responses to requests by value, so a response whose id has the wrong type is still found and reported here rather than lost.",
        idle: None,
    },
    Builtin {
        id: "jsonrpc-response-result-xor-error",
        area: "jsonrpc",
        title: "every response carries exactly one of result and error",
        level: Level::Must,
        derived: true,
        spec: &[("2024-11-05", "basic/messages#responses"), ("jsonrpc-2.0", "response_object")],
        expect: "each response to have either `result` or `error`, never both and never neither",
        transport: None,
        explain: "JSON-RPC 2.0: either the result member or the error member MUST be included, but both members MUST NOT be included.",
        idle: None,
    },
    Builtin {
        id: "jsonrpc-error-shape",
        area: "jsonrpc",
        title: "every error has an integer code and a string message",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/index#responses"), ("jsonrpc-2.0", "error_object")],
        expect: "each `error` to be an object with an integer `code` and a string `message`",
        transport: None,
        explain: "Error responses MUST include an error code (an integer) and an error message; `data` is optional.",
        idle: None,
    },
    Builtin {
        id: "http-notification-accepted",
        area: "http",
        title: "a notification POST is answered 202 with no body",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
        expect: "HTTP 202 Accepted with an empty body for an accepted notification, or an HTTP error status if the server cannot accept it",
        transport: Some(TransportKind::Http),
        explain: "If the input is a JSON-RPC notification and the server accepts it, the server MUST return 202 Accepted with no body; if it cannot accept it, an HTTP error status. Every notification mcpcheck POSTs during the run is examined.",
        idle: None,
    },
    Builtin {
        id: "http-response-content-type",
        area: "http",
        title: "a request POST is answered as application/json or text/event-stream",
        level: Level::Must,
        derived: false,
        spec: &[("2025-11-25", "basic/transports#sending-messages-to-the-server")],
        expect: "Content-Type application/json (one JSON object) or text/event-stream on every successful answer to a request",
        transport: Some(TransportKind::Http),
        explain: "If the input is a JSON-RPC request, the server MUST return either Content-Type: text/event-stream or Content-Type: application/json. Every successful (2xx) answer to a request during the run is examined.",
        idle: None,
    },
];

/// How many offending items are kept as evidence.
const MAX_EVIDENCE: usize = 5;

/// The ids of the built-in checks.
pub fn ids() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.id).collect()
}

/// The definitions of the built-in checks.
pub fn definitions() -> Vec<CheckDef> {
    BUILTINS
        .iter()
        .map(|b| CheckDef {
            id: b.id.into(),
            title: b.title.into(),
            area: b.area.into(),
            level: b.level,
            derived: b.derived,
            spec: b
                .spec
                .iter()
                .map(|(version, section)| SpecRef::mcp(version, section))
                .collect(),
            expect: b.expect.into(),
            versions: VersionRange::default(),
            transport: b.transport,
            source: "built-in".into(),
            explain: Some(b.explain.into()),
        })
        .collect()
}

/// What the wire checks look at.
pub struct WireInput<'a> {
    /// The transport.
    pub transport: TransportKind,
    /// Every connection's transcript.
    pub transcripts: &'a [Transcript],
    /// How the main stdio server ended.
    pub main_exit: Option<&'a ExitReport>,
    /// The official schema files, if the user named them (`--official-schemas`).
    pub official: Option<&'a messages::OfficialSchemas>,
}

/// A frame mcpcheck sent, as JSON (frames sent over stdio are kept as text only).
fn sent_message(frame: &WireFrame) -> Option<Value> {
    frame
        .message
        .clone()
        .or_else(|| serde_json::from_str::<Value>(&frame.text).ok())
}

/// A result a connection received, with the request it answers.
struct Answered<'a> {
    /// The request's method.
    method: String,
    /// The request as sent.
    request: Value,
    /// The response message.
    message: &'a Value,
    /// The frame the response came in.
    frame: &'a WireFrame,
}

/// Every response a connection received that carries a result, with the request it answers
/// (matched by id as the connection went along) and the frame it came in.
fn results(transcript: &Transcript) -> Vec<Answered<'_>> {
    let mut requests: HashMap<String, Value> = HashMap::new();
    let mut out = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::Sent => {
                if let Some(sent) = sent_message(frame) {
                    if let (Some(id), Some(_)) =
                        (sent.get("id"), sent.get("method").and_then(Value::as_str))
                    {
                        requests.insert(id_key(id), sent.clone());
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
                if let Some(request) = requests.get(&id_key(id)) {
                    out.push(Answered {
                        method: request["method"].as_str().unwrap_or_default().to_string(),
                        request: request.clone(),
                        message,
                        frame,
                    });
                }
            }
        }
    }
    out
}

/// The content blocks of a tools/call or prompts/get result (prompt messages hold one each).
fn content_blocks<'a>(method: &str, result: &'a Value) -> Vec<&'a Value> {
    match method {
        "tools/call" => result
            .get("content")
            .and_then(Value::as_array)
            .map(|c| c.iter().collect())
            .unwrap_or_default(),
        "prompts/get" => result
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| m.iter().filter_map(|m| m.get("content")).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The resource URIs a result carries, each with where it was found.
fn result_uris<'a>(method: &str, result: &'a Value) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    let mut each = |member: &str, key: &str| {
        for (i, item) in result
            .get(member)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(uri) = item.get(key).and_then(Value::as_str) {
                out.push((format!("{method} /{member}/{i}/{key}"), uri));
            }
        }
    };
    match method {
        "resources/list" => each("resources", "uri"),
        "resources/read" => each("contents", "uri"),
        _ => {}
    }
    for block in content_blocks(method, result) {
        let uri = match block.get("type").and_then(Value::as_str) {
            Some("resource_link") => block.get("uri"),
            Some("resource") => block.pointer("/resource/uri"),
            _ => None,
        };
        if let Some(uri) = uri.and_then(Value::as_str) {
            out.push((format!("a {method} content block"), uri));
        }
    }
    out
}

/// The base64 payloads a result carries (blobs, image and audio data), each with where it was.
fn result_base64<'a>(method: &str, result: &'a Value) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    if method == "resources/read" {
        for (i, item) in result
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(blob) = item.get("blob").and_then(Value::as_str) {
                out.push((format!("resources/read /contents/{i}/blob"), blob));
            }
        }
    }
    for block in content_blocks(method, result) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("?");
        let data = match kind {
            "image" | "audio" => block.get("data"),
            "resource" => block.pointer("/resource/blob"),
            _ => None,
        };
        if let Some(data) = data.and_then(Value::as_str) {
            out.push((format!("the data of a {method} {kind} block"), data));
        }
    }
    out
}

/// Whether a string is base64 as RFC 4648 §4 defines it: the standard alphabet, padded to a
/// multiple of four characters, `=` only at the end.
pub fn is_base64(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return false;
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    padding <= 2
        && bytes[..bytes.len() - padding]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// What keeps a string from being a URI by RFC 3986 (`scheme ":" hier-part [ "?" query ] [ "#"
/// fragment ]`): `None` when it is one. Characters outside the grammar, a malformed
/// percent-escape, a missing or malformed scheme and a second `#` are found.
pub fn uri_problem(text: &str) -> Option<String> {
    let Some((scheme, rest)) = text.split_once(':') else {
        return Some("no scheme (no `:`)".into());
    };
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Some(format!("`{scheme}` is not a scheme"));
    }
    let bytes = rest.as_bytes();
    let mut hashes = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'%' => {
                let escape = bytes.get(i + 1..i + 3);
                if !escape.is_some_and(|e| e.iter().all(u8::is_ascii_hexdigit)) {
                    return Some(format!(
                        "a malformed percent-escape at byte {}",
                        i + 1 + scheme.len()
                    ));
                }
                i += 3;
                continue;
            }
            b'#' => hashes += 1,
            // unreserved, sub-delims, and the delimiters of the hierarchy, query and fragment;
            // `[` and `]` for IP literals in the authority.
            _ if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?[]".contains(&b) => {}
            _ => {
                let c = rest[i..].chars().next().unwrap_or('?');
                return Some(format!(
                    "the character {c:?}, which a URI cannot hold unescaped"
                ));
            }
        }
        i += 1;
    }
    (hashes > 1).then(|| "more than one `#`".into())
}

/// Whether two JSON values are the same, numbers compared by value (`3` and `3.0` are equal).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
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
fn resumes(record: &crate::transport::transcript::HttpRecord) -> bool {
    record
        .request_headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("last-event-id"))
}

/// Replays a connection frame by frame and finds the progress notifications whose token no
/// request in flight carries: how many progress notifications there were, and the offenders.
fn progress_outside_requests(transcript: &Transcript) -> (usize, Vec<Evidence>) {
    let mut active: HashMap<String, String> = HashMap::new();
    let (mut seen, mut bad) = (0, Vec::new());
    for frame in &transcript.frames {
        match frame.direction {
            Direction::Sent => {
                let Some(sent) = sent_message(frame) else {
                    continue;
                };
                if let (Some(id), Some(token)) =
                    (sent.get("id"), sent.pointer("/params/_meta/progressToken"))
                {
                    active.insert(id_key(token), id_key(id));
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
                    if !active.contains_key(&token) {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("progress for token {token}, which no request in flight carries (never sent, or its request was already answered)"),
                        ));
                    }
                } else if message.get("method").is_none() {
                    if let Some(id) = message.get("id").map(id_key) {
                        active.retain(|_, request| *request != id);
                    }
                }
            }
        }
    }
    (seen, bad)
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

/// What is wrong with the `x-mcp-header` annotations of a tool's inputSchema (2026-07-28): each
/// names a header (a non-empty RFC 9110 token, unique without regard to case), sits on an
/// integer, string or boolean property, and is reached from the root through `properties` only.
pub fn x_mcp_header_problems(schema: &Value) -> Vec<String> {
    fn walk(value: &Value, path: &mut Vec<String>, found: &mut Vec<(Vec<String>, Value, Value)>) {
        match value {
            Value::Object(members) => {
                if let Some(header) = members.get("x-mcp-header") {
                    let kind = members.get("type").cloned().unwrap_or(Value::Null);
                    found.push((path.clone(), header.clone(), kind));
                }
                for (key, inner) in members {
                    path.push(key.clone());
                    walk(inner, path, found);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, inner) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk(inner, path, found);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(schema, &mut Vec::new(), &mut found);
    let mut problems = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for (path, header, kind) in found {
        let at = format!("/{}", path.join("/"));
        // Reachable through `properties` only: properties/<name>(/properties/<name>)*.
        let chained = !path.is_empty()
            && path.len() % 2 == 0
            && path.iter().step_by(2).all(|p| p == "properties");
        if !chained {
            problems.push(format!(
                "x-mcp-header at `{at}` is not reached through `properties` alone"
            ));
        }
        let Some(name) = header.as_str() else {
            problems.push(format!("x-mcp-header at `{at}` is not a string"));
            continue;
        };
        let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(tchar) {
            problems.push(format!(
                "x-mcp-header {name:?} at `{at}` is not an HTTP token (RFC 9110)"
            ));
        }
        if !matches!(kind.as_str(), Some("integer" | "string" | "boolean")) {
            problems.push(format!(
                "x-mcp-header {name:?} marks a property of type {kind}; only integer, string and boolean properties may carry one"
            ));
        }
        if let Some(other) = names.insert(name.to_ascii_lowercase(), at.clone()) {
            problems.push(format!(
                "x-mcp-header {name:?} at `{at}` repeats the one at `{other}` (names are compared without regard to case)"
            ));
        }
    }
    problems
}

/// One `subscriptions/listen` of a connection: its id (as a key), the filter it asked for, and
/// every notification received tagged with its id, in order.
type ListenStream<'a> = (String, Value, Vec<(&'a Value, &'a WireFrame)>);

/// The `subscriptions/listen` requests a connection sent, with their tagged notifications.
fn listen_streams(transcript: &Transcript) -> Vec<ListenStream<'_>> {
    let mut streams: Vec<ListenStream<'_>> = Vec::new();
    for frame in &transcript.frames {
        match frame.direction {
            Direction::Sent => {
                let Some(sent) = sent_message(frame) else {
                    continue;
                };
                if sent.get("method").and_then(Value::as_str) == Some("subscriptions/listen") {
                    if let Some(id) = sent.get("id") {
                        let filter = sent
                            .pointer("/params/notifications")
                            .cloned()
                            .unwrap_or(Value::Null);
                        streams.push((id_key(id), filter, Vec::new()));
                    }
                }
            }
            Direction::Received => {
                let Some(message) = frame.message.as_ref() else {
                    continue;
                };
                if message.get("id").is_some() {
                    continue;
                }
                let Some(tag) = message
                    .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                    .map(id_key)
                else {
                    continue;
                };
                if let Some((_, _, tagged)) = streams.iter_mut().find(|(id, _, _)| *id == tag) {
                    tagged.push((message, frame));
                }
            }
        }
    }
    streams
}

/// Why a notification on a listen stream was not asked for by `filter`, if it was not.
fn unrequested(filter: &Value, notification: &Value) -> Option<String> {
    let method = notification.get("method").and_then(Value::as_str)?;
    let asked = |flag: &str| filter.get(flag) == Some(&Value::Bool(true));
    match method {
        "notifications/subscriptions/acknowledged" => {
            let agreed = notification.pointer("/params/notifications")?.as_object()?;
            for (flag, value) in agreed {
                let extra = match flag.as_str() {
                    "resourceSubscriptions" => value.as_array().is_some_and(|uris| {
                        uris.iter().any(|u| {
                            !filter
                                .get("resourceSubscriptions")
                                .and_then(Value::as_array)
                                .is_some_and(|asked| asked.contains(u))
                        })
                    }),
                    _ => value == &Value::Bool(true) && !asked(flag),
                };
                if extra {
                    return Some(format!(
                        "the acknowledgement agrees to `{flag}`, which the listen request did not ask for"
                    ));
                }
            }
            None
        }
        "notifications/tools/list_changed" if !asked("toolsListChanged") => {
            Some("tools/list_changed without toolsListChanged".into())
        }
        "notifications/prompts/list_changed" if !asked("promptsListChanged") => {
            Some("prompts/list_changed without promptsListChanged".into())
        }
        "notifications/resources/list_changed" if !asked("resourcesListChanged") => {
            Some("resources/list_changed without resourcesListChanged".into())
        }
        "notifications/resources/updated" => {
            let uri = notification.pointer("/params/uri")?;
            let listed = filter
                .get("resourceSubscriptions")
                .and_then(Value::as_array)
                .is_some_and(|uris| uris.contains(uri));
            (!listed).then(|| {
                format!("resources/updated for {uri}, which is not in resourceSubscriptions")
            })
        }
        "notifications/progress" | "notifications/message" => Some(format!(
            "{method} belongs to a request's own stream, never to a subscription"
        )),
        _ => None,
    }
}

/// What is wrong with an InputRequiredResult (2026-07-28, MRTR) answering `method`, given the
/// client capabilities the request declared.
pub fn input_required_problems(method: &str, result: &Value, declared: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !matches!(method, "tools/call" | "prompts/get" | "resources/read") {
        problems.push(format!(
            "an InputRequiredResult for {method}; only tools/call, prompts/get and resources/read may ask for input"
        ));
    }
    let requests = result.get("inputRequests");
    if requests.is_none() && result.get("requestState").is_none() {
        problems.push("neither inputRequests nor requestState".into());
    }
    for member in ["ttlMs", "cacheScope"] {
        if result.get(member).is_some() {
            problems.push(format!(
                "`{member}`: an InputRequiredResult is not cacheable"
            ));
        }
    }
    match requests {
        None => {}
        Some(Value::Object(requests)) => {
            for (key, request) in requests {
                let method = request.get("method").and_then(Value::as_str).unwrap_or("");
                let capability = match method {
                    "roots/list" => "roots",
                    "sampling/createMessage" => "sampling",
                    "elicitation/create" => "elicitation",
                    other => {
                        problems.push(format!(
                            "inputRequests.{key} is a `{other}` request; only elicitation/create, sampling/createMessage and roots/list may be asked for"
                        ));
                        continue;
                    }
                };
                if declared.get(capability).is_none_or(Value::is_null) {
                    problems.push(format!(
                        "inputRequests.{key} asks for {method}, but the request did not declare the `{capability}` client capability"
                    ));
                }
            }
        }
        Some(_) => problems.push("inputRequests is not an object".into()),
    }
    problems
}

/// The error codes 2026-07-28 defines in the range it reserves (-32020 to -32099).
const DEFINED_RESERVED: [i64; 3] = [-32020, -32021, -32022];

/// Evaluates one built-in check.
pub fn evaluate(def: &CheckDef, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    if let Some(transport) = def.transport {
        if transport != input.transport {
            return (
                Verdict::new(
                    Status::Skip,
                    format!("applies to the {transport} transport only"),
                ),
                Vec::new(),
            );
        }
    }
    let received = || {
        input
            .transcripts
            .iter()
            .flat_map(|t| t.frames.iter())
            .filter(|f| f.direction == Direction::Received)
            .filter_map(|f| f.message.as_ref().filter(|m| m.is_object()).map(|m| (m, f)))
    };
    let is_response = |m: &Value| m.get("method").is_none();
    let mut bad: Vec<Evidence> = Vec::new();
    let mut seen = 0usize;
    let mut note = None;
    match def.id.as_str() {
        "stdio-framing" => {
            for frame in input
                .transcripts
                .iter()
                .flat_map(|t| t.frames.iter())
                .filter(|f| f.direction == Direction::Received)
            {
                seen += 1;
                if let Some(issue) = &frame.issue {
                    bad.push(Evidence::frame(&frame.text, issue));
                }
            }
        }
        "stdio-exit-on-stdin-eof" => {
            let Some(exit) = input.main_exit else {
                return (
                    Verdict::new(
                        Status::NotTestable,
                        "the server was not shut down by mcpcheck",
                    ),
                    Vec::new(),
                );
            };
            let evidence = vec![Evidence::remark(
                "shutdown",
                format!(
                    "stopped by {}; {}{}",
                    exit.stopped_by,
                    exit.status,
                    exit.exit_ms
                        .map(|ms| format!(" after {ms} ms"))
                        .unwrap_or_default()
                ),
            )];
            return match exit.stopped_by.as_str() {
                "stdin-eof" => (
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
                "exited-before-shutdown" => (
                    Verdict::new(
                        Status::NotTestable,
                        format!(
                            "the server had already exited before stdin was closed ({})",
                            exit.status
                        ),
                    ),
                    evidence,
                ),
                other => (
                    Verdict::new(
                        Status::Warn,
                        format!(
                            "the server did not exit after stdin closed; it was stopped by {other}"
                        ),
                    )
                    .with_actual(format!("stopped by {other}")),
                    evidence,
                ),
            };
        }
        "jsonrpc-version-field" => {
            for (message, frame) in received() {
                seen += 1;
                if message.get("jsonrpc") != Some(&Value::from("2.0")) {
                    bad.push(Evidence::frame(
                        &frame.text,
                        "`jsonrpc` is missing or not \"2.0\"",
                    ));
                }
            }
        }
        "jsonrpc-response-id" => {
            for (sent, got) in input.transcripts.iter().flat_map(|t| t.id_pairs.iter()) {
                seen += 1;
                if sent != got {
                    bad.push(Evidence::remark(
                        "id",
                        format!("request id {sent} was answered with id {got}"),
                    ));
                }
            }
        }
        "jsonrpc-response-result-xor-error" => {
            for (message, frame) in received().filter(|(m, _)| is_response(m)) {
                seen += 1;
                let (r, e) = (
                    message.get("result").is_some(),
                    message.get("error").is_some(),
                );
                if r == e {
                    bad.push(Evidence::frame(
                        &frame.text,
                        if r {
                            "both `result` and `error`"
                        } else {
                            "neither `result` nor `error`"
                        },
                    ));
                }
            }
        }
        "wire-result-schema" => {
            for transcript in input.transcripts {
                let Some(version) = transcript.version.as_deref() else {
                    continue;
                };
                for Answered {
                    method,
                    message,
                    frame,
                    ..
                } in results(transcript)
                {
                    if message.get("error").is_some()
                        || messages::result_schema(&method, version).is_none()
                    {
                        continue;
                    }
                    let result = &message["result"];
                    seen += 1;
                    if let Some(problem) = messages::check_result(&method, version, result) {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("not a {method} result of {version}: {problem}"),
                        ));
                    } else if let Some(problem) = input
                        .official
                        .and_then(|o| o.check_result(&method, version, result))
                    {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the official {version} schema rejects this {method} result: {problem}"),
                        ));
                    }
                }
            }
        }
        "tools-schemas-valid" => {
            for transcript in input.transcripts {
                let Some(version) = transcript.version.as_deref() else {
                    continue;
                };
                for Answered { message, .. } in results(transcript)
                    .into_iter()
                    .filter(|a| a.method == "tools/list")
                {
                    let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array)
                    else {
                        continue;
                    };
                    for tool in tools {
                        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                        for member in ["inputSchema", "outputSchema"] {
                            let Some(schema) = tool.get(member) else {
                                continue;
                            };
                            seen += 1;
                            if let Err(problem) = messages::compile_tool_schema(schema, version) {
                                bad.push(Evidence::remark(
                                    "tools/list",
                                    format!("the {member} of `{name}` is not a valid JSON Schema: {problem}"),
                                ));
                            }
                        }
                    }
                }
            }
        }
        "stateless-http-no-session" => {
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref().is_some_and(|v| v >= "2026-07-28"))
            {
                let version = transcript.version.as_deref().unwrap_or_default();
                // Requests that claimed another version in their header (mcpcheck's own
                // contradiction probes) may be routed to a legacy handler; they do not count.
                for post in transcript.posts.iter().filter(|p| {
                    p.status.is_some()
                        && p.request_headers.iter().all(|(n, v)| {
                            !n.eq_ignore_ascii_case("mcp-protocol-version") || v == version
                        })
                }) {
                    seen += 1;
                    if let Some(id) = post.response_header("mcp-session-id") {
                        bad.push(Evidence::remark(
                            "Mcp-Session-Id",
                            format!("a {} response carried Mcp-Session-Id {id:?}", post.method),
                        ));
                    }
                }
            }
        }
        "http-session-id-visible-ascii" => {
            for post in input.transcripts.iter().flat_map(|t| t.posts.iter()) {
                let Some(id) = post.response_header("mcp-session-id") else {
                    continue;
                };
                seen += 1;
                if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                    bad.push(Evidence::remark(
                        "Mcp-Session-Id",
                        format!("the session id {id:?} holds characters outside 0x21..0x7E"),
                    ));
                }
            }
        }
        "http-sse-priming" => {
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref() == Some("2025-11-25"))
            {
                // The initialize POST is left out: the version is only being negotiated there.
                let initialize: std::collections::HashSet<usize> = transcript
                    .frames
                    .iter()
                    .filter(|f| f.direction == Direction::Sent)
                    .filter(|f| {
                        serde_json::from_str::<Value>(&f.text)
                            .ok()
                            .is_some_and(|m| m.get("method") == Some(&Value::from("initialize")))
                    })
                    .filter_map(|f| f.post)
                    .collect();
                for (_, post) in transcript.posts.iter().enumerate().filter(|(i, p)| {
                    !initialize.contains(i)
                        && p.method == "POST"
                        && p.response_header("content-type").is_some_and(|c| {
                            c.to_ascii_lowercase().starts_with("text/event-stream")
                        })
                }) {
                    seen += 1;
                    let primed = post.first_event.as_ref().is_some_and(|e| {
                        e.id.as_deref().is_some_and(|id| !id.is_empty()) && e.data.is_empty()
                    });
                    if !primed {
                        let first = match &post.first_event {
                            Some(e) => format!(
                                "its first event has id {:?} and {} bytes of data",
                                e.id,
                                e.data.len()
                            ),
                            None => "it carried no event".to_string(),
                        };
                        bad.push(Evidence::remark(
                            "SSE response",
                            format!("an SSE response to a POST was not primed: {first}"),
                        ));
                    }
                }
            }
        }
        "wire-notification-schema" => {
            for transcript in input.transcripts {
                let Some(version) = transcript.version.as_deref() else {
                    continue;
                };
                for frame in transcript
                    .frames
                    .iter()
                    .filter(|f| f.direction == Direction::Received)
                {
                    let Some(message) = frame.message.as_ref().filter(|m| {
                        m.get("id").is_none()
                            && m.get("method")
                                .and_then(Value::as_str)
                                .is_some_and(|method| {
                                    messages::NOTIFICATIONS.iter().any(|(n, _)| *n == method)
                                })
                    }) else {
                        continue;
                    };
                    seen += 1;
                    let method = message["method"].as_str().unwrap_or_default();
                    if let Some(problem) = messages::check_notification(version, message) {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("not a {method} notification of {version}: {problem}"),
                        ));
                    } else if let Some(problem) = input
                        .official
                        .and_then(|o| o.check_notification(version, message))
                    {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the official {version} schema rejects this {method} notification: {problem}"),
                        ));
                    }
                }
            }
        }
        "wire-uri-rfc3986" => {
            for transcript in input.transcripts {
                for answered in results(transcript) {
                    for (place, uri) in result_uris(&answered.method, &answered.message["result"]) {
                        seen += 1;
                        if let Some(problem) = uri_problem(uri) {
                            bad.push(Evidence::remark(
                                &answered.method,
                                format!("{place}: {uri:?} is not an RFC 3986 URI: {problem}"),
                            ));
                        }
                    }
                }
            }
        }
        "wire-base64" => {
            for transcript in input.transcripts {
                for answered in results(transcript) {
                    for (place, data) in
                        result_base64(&answered.method, &answered.message["result"])
                    {
                        seen += 1;
                        if !is_base64(data) {
                            bad.push(Evidence::remark(
                                &answered.method,
                                format!(
                                    "{place} is not padded standard base64 (RFC 4648): {:?}",
                                    cut(data, 60)
                                ),
                            ));
                        }
                    }
                }
            }
        }
        "tools-name-unique" => {
            for transcript in input.transcripts {
                // A tools/list without a cursor starts a listing; one with the nextCursor of the
                // listing's last page continues it. Any other cursor (mcpcheck's invalid-cursor
                // probe) is not part of a listing.
                let mut names: HashMap<String, usize> = HashMap::new();
                let mut page = 0;
                let mut next: Option<Value> = None;
                for answered in results(transcript)
                    .into_iter()
                    .filter(|a| a.method == "tools/list")
                {
                    match answered.request.pointer("/params/cursor") {
                        None => {
                            names.clear();
                            page = 0;
                        }
                        Some(cursor) if Some(cursor) == next.as_ref() => {}
                        Some(_) => continue,
                    }
                    next = answered.message.pointer("/result/nextCursor").cloned();
                    page += 1;
                    seen += 1;
                    for name in answered
                        .message
                        .pointer("/result/tools")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.get("name").and_then(Value::as_str))
                    {
                        if let Some(first) = names.insert(name.to_string(), page) {
                            bad.push(Evidence::remark(
                                "tools/list",
                                format!("the tool name `{name}` is listed twice (pages {first} and {page} of one listing)"),
                            ));
                        }
                    }
                }
            }
        }
        "progress-only-while-active" => {
            for transcript in input.transcripts {
                let (count, offenders) = progress_outside_requests(transcript);
                seen += count;
                bad.extend(offenders);
            }
        }
        "server-requests-allowed" => {
            for transcript in input.transcripts {
                let stateless = transcript
                    .version
                    .as_deref()
                    .is_some_and(|v| v >= "2026-07-28");
                for (message, frame) in server_requests(transcript) {
                    seen += 1;
                    let method = message["method"].as_str().unwrap_or("?");
                    let gated = match method {
                        "sampling/createMessage" => Some("sampling"),
                        "elicitation/create" => Some("elicitation"),
                        _ => None,
                    };
                    if stateless {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("a {method} request on 2026-07-28, where a server sends no requests of its own (it asks for input with an InputRequiredResult instead)"),
                        ));
                    } else if let Some(capability) = gated {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("a {method} request, although mcpcheck did not declare the `{capability}` client capability"),
                        ));
                    }
                }
            }
        }
        "server-request-id" => {
            for transcript in input.transcripts {
                let mut ids: HashMap<String, usize> = HashMap::new();
                for (message, frame) in server_requests(transcript) {
                    seen += 1;
                    let id = &message["id"];
                    if !(id.is_string() || id.is_i64() || id.is_u64()) {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the request id {id} is not a string or an integer"),
                        ));
                    } else if ids.insert(id_key(id), seen).is_some() {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the request id {id} was used before in this session"),
                        ));
                    }
                }
            }
        }
        "http-sse-event-id-unique" => {
            for transcript in input.transcripts.iter().filter(|t| {
                t.version
                    .as_deref()
                    .is_some_and(|v| ("2025-03-26".."2026-07-28").contains(&v))
            }) {
                let mut ids: HashMap<&str, usize> = HashMap::new();
                for (n, post) in transcript
                    .posts
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| !resumes(p))
                {
                    for id in post.event_ids.iter().filter(|id| !id.is_empty()) {
                        seen += 1;
                        if let Some(first) = ids.insert(id, n) {
                            bad.push(Evidence::remark(
                                "SSE event id",
                                format!(
                                    "the event id {id:?} of the stream answering HTTP request {} was used before, on the stream answering request {}",
                                    n + 1,
                                    first + 1
                                ),
                            ));
                        }
                    }
                }
            }
        }
        "stateless-tools-order-stable" => {
            // Per connection: every first page of tools/list, as a sequence of names.
            let mut first: Option<Vec<String>> = None;
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref().is_some_and(|v| v >= "2026-07-28"))
            {
                for answered in results(transcript).into_iter().filter(|a| {
                    a.method == "tools/list" && a.request.pointer("/params/cursor").is_none()
                }) {
                    let names: Vec<String> = answered
                        .message
                        .pointer("/result/tools")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.get("name").and_then(Value::as_str))
                        .map(String::from)
                        .collect();
                    seen += 1;
                    match &first {
                        None => first = Some(names),
                        Some(before) if *before != names => bad.push(Evidence::remark(
                            "tools/list",
                            format!(
                                "one tools/list answered [{}], a later one [{}]",
                                cut(&before.join(", "), 120),
                                cut(&names.join(", "), 120)
                            ),
                        )),
                        Some(_) => {}
                    }
                }
            }
        }
        "stateless-x-mcp-header-valid" => {
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref().is_some_and(|v| v >= "2026-07-28"))
            {
                for answered in results(transcript)
                    .into_iter()
                    .filter(|a| a.method == "tools/list")
                {
                    for tool in answered
                        .message
                        .pointer("/result/tools")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                        let Some(schema) = tool.get("inputSchema") else {
                            continue;
                        };
                        let problems = x_mcp_header_problems(schema);
                        seen += usize::from(schema.to_string().contains("\"x-mcp-header\""));
                        for problem in problems {
                            bad.push(Evidence::remark(
                                "tools/list",
                                format!("tool `{name}`: {problem}"),
                            ));
                        }
                    }
                }
            }
        }
        "stateless-listen-ack-first" => {
            for transcript in input.transcripts {
                for (id, _, tagged) in listen_streams(transcript) {
                    let Some((first, frame)) = tagged.first() else {
                        continue;
                    };
                    seen += 1;
                    if first.get("method").and_then(Value::as_str)
                        != Some("notifications/subscriptions/acknowledged")
                    {
                        bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the first notification of subscription {id} is not its acknowledgement"),
                        ));
                    }
                }
            }
        }
        "stateless-listen-filter" => {
            for transcript in input.transcripts {
                for (id, filter, tagged) in listen_streams(transcript) {
                    for (notification, frame) in tagged {
                        seen += 1;
                        if let Some(why) = unrequested(&filter, notification) {
                            bad.push(Evidence::frame(
                                &frame.text,
                                &format!("subscription {id}: {why}"),
                            ));
                        }
                    }
                }
            }
        }
        "stateless-input-required-shape" => {
            for transcript in input.transcripts {
                for answered in results(transcript).into_iter().filter(|a| {
                    a.message.pointer("/result/resultType") == Some(&Value::from("input_required"))
                }) {
                    seen += 1;
                    let declared = answered
                        .request
                        .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
                        .cloned()
                        .unwrap_or(Value::Null);
                    for problem in input_required_problems(
                        &answered.method,
                        &answered.message["result"],
                        &declared,
                    ) {
                        bad.push(Evidence::frame(&answered.frame.text, &problem));
                    }
                }
            }
        }
        "tools-structured-content-mirrored" => {
            for transcript in input.transcripts {
                for answered in results(transcript)
                    .into_iter()
                    .filter(|a| a.method == "tools/call")
                {
                    let result = &answered.message["result"];
                    let Some(structured) = result.get("structuredContent") else {
                        continue;
                    };
                    seen += 1;
                    let mirrored = result
                        .get("content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|b| b.get("type") == Some(&Value::from("text")))
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .any(|text| {
                            serde_json::from_str::<Value>(text)
                                .is_ok_and(|parsed| same_json(&parsed, structured))
                        });
                    if !mirrored {
                        bad.push(Evidence::frame(
                            &answered.frame.text,
                            "structuredContent has no text block carrying its JSON serialization",
                        ));
                    }
                }
            }
        }
        "stateless-server-info-everywhere" => {
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref().is_some_and(|v| v >= "2026-07-28"))
            {
                // Methods 2026-07-28 removed (a dual-era server may still answer them, as it
                // answers mcpcheck's own barrier pings) are not 2026-07-28 results.
                for answered in results(transcript).into_iter().filter(|a| {
                    !matches!(
                        a.method.as_str(),
                        "ping"
                            | "initialize"
                            | "logging/setLevel"
                            | "resources/subscribe"
                            | "resources/unsubscribe"
                    )
                }) {
                    seen += 1;
                    let info = answered
                        .message
                        .pointer("/result/_meta/io.modelcontextprotocol~1serverInfo");
                    let named = info.is_some_and(|i| {
                        i.get("name").is_some_and(Value::is_string)
                            && i.get("version").is_some_and(Value::is_string)
                    });
                    if !named {
                        bad.push(Evidence::frame(
                            &answered.frame.text,
                            &format!("a {} result without _meta io.modelcontextprotocol/serverInfo (name and version)", answered.method),
                        ));
                    }
                }
            }
        }
        "stateless-sse-unbuffered" => {
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref().is_some_and(|v| v >= "2026-07-28"))
            {
                for post in transcript.posts.iter().filter(|p| {
                    p.response_header("content-type")
                        .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"))
                }) {
                    seen += 1;
                    if !post
                        .response_header("x-accel-buffering")
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("no"))
                    {
                        bad.push(Evidence::remark(
                            "SSE response",
                            format!(
                                "an SSE response to a {} without X-Accel-Buffering: no",
                                post.method
                            ),
                        ));
                    }
                }
            }
        }
        "stateless-error-codes" => {
            for transcript in input
                .transcripts
                .iter()
                .filter(|t| t.version.as_deref().is_some_and(|v| v >= "2026-07-28"))
            {
                for frame in transcript
                    .frames
                    .iter()
                    .filter(|f| f.direction == Direction::Received)
                {
                    let Some(code) = frame
                        .message
                        .as_ref()
                        .and_then(|m| m.pointer("/error/code"))
                        .and_then(Value::as_i64)
                    else {
                        continue;
                    };
                    seen += 1;
                    let problem = match code {
                        -32002 => Some("-32002 was the resource-not-found code before 2026-07-28; it is no longer defined".to_string()),
                        -32042 => Some("-32042 (URL elicitation required) is not defined on 2026-07-28".to_string()),
                        -32099..=-32020 if !DEFINED_RESERVED.contains(&code) => Some(format!("{code} lies in -32020..-32099, which the spec reserves, and it defines no such code")),
                        _ => None,
                    };
                    if let Some(problem) = problem {
                        bad.push(Evidence::frame(&frame.text, &problem));
                    }
                }
            }
        }
        "jsonrpc-error-shape" => {
            for (message, frame) in received().filter(|(m, _)| is_response(m)) {
                let Some(error) = message.get("error") else {
                    continue;
                };
                seen += 1;
                let code_ok = error.get("code").is_some_and(|c| c.is_i64());
                let message_ok = error.get("message").is_some_and(Value::is_string);
                if !(code_ok && message_ok) {
                    let what = match (code_ok, message_ok) {
                        (false, false) => "no integer `code` and no string `message`",
                        (false, true) => "no integer `code`",
                        _ => "no string `message`",
                    };
                    bad.push(Evidence::frame(&frame.text, what));
                }
            }
        }
        "http-notification-accepted" => {
            for post in input
                .transcripts
                .iter()
                .flat_map(|t| t.posts.iter())
                .filter(|p| p.carried == "notification")
            {
                let Some(status) = post.status else { continue };
                seen += 1;
                let ok = (status == 202 && post.body_bytes == 0) || (400..500).contains(&status);
                if (400..500).contains(&status) {
                    note = Some(format!("a notification was refused with HTTP {status}, which the spec allows for input the server cannot accept"));
                }
                if !ok {
                    bad.push(Evidence::remark(
                        "POST notification",
                        format!("HTTP {status} with a body of {} bytes", post.body_bytes),
                    ));
                }
            }
        }
        "http-response-content-type" => {
            for post in input
                .transcripts
                .iter()
                .flat_map(|t| t.posts.iter())
                .filter(|p| p.carried == "request")
            {
                let Some(status) = post.status.filter(|s| (200..300).contains(s)) else {
                    continue;
                };
                seen += 1;
                let content_type = post
                    .response_header("content-type")
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if !(content_type.starts_with("application/json")
                    || content_type.starts_with("text/event-stream"))
                {
                    bad.push(Evidence::remark(
                        "POST request",
                        format!("HTTP {status} with Content-Type `{content_type}`"),
                    ));
                }
            }
        }
        other => {
            return (
                Verdict::new(Status::Error, format!("unknown built-in check `{other}`")),
                Vec::new(),
            )
        }
    }
    let count = bad.len();
    bad.truncate(MAX_EVIDENCE);
    let verdict = if seen == 0 {
        // What a check that found nothing to examine says: skip, where that means it does not
        // apply; otherwise not testable.
        match BUILTINS
            .iter()
            .find(|b| b.id == def.id)
            .and_then(|b| b.idle)
        {
            Some(why) => Verdict::new(Status::Skip, why),
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
    fn base64_is_padded_standard_alphabet() {
        for good in ["", "AA==", "AAA=", "AAAA", "iVBORw0KGgo=", "+/+/"] {
            assert!(is_base64(good), "{good:?}");
        }
        for bad in [
            "AA", "AAA", "A===", "AA=A", "-_-_", "AA AA==", "AA==\n", "Zm9v!A==",
        ] {
            assert!(!is_base64(bad), "{bad:?}");
        }
    }

    #[test]
    fn json_values_compare_numbers_by_value() {
        use serde_json::json;
        assert!(same_json(&json!({"sum": 3}), &json!({"sum": 3.0})));
        assert!(same_json(
            &json!([1, {"a": 2.5}]),
            &json!([1.0, {"a": 2.5}])
        ));
        assert!(!same_json(&json!({"sum": 3}), &json!({"sum": "3"})));
        assert!(!same_json(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn x_mcp_header_rules() {
        let good = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}
        }});
        assert!(x_mcp_header_problems(&good).is_empty());
        for (schema, why) in [
            (
                serde_json::json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                "type",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "token",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                "token",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
                "repeats",
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "through `properties`",
            ),
            (
                serde_json::json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                "through `properties`",
            ),
        ] {
            let problems = x_mcp_header_problems(&schema);
            assert!(
                problems.iter().any(|p| p.contains(why)),
                "{schema}: {problems:?}"
            );
        }
    }

    #[test]
    fn uris_follow_rfc_3986() {
        for good in [
            "file:///home/user/a.txt",
            "https://example.com/a?b=c#d",
            "test://static-text",
            "ref://items/%20x",
            "urn:isbn:0451450523",
            "http://[::1]:8080/",
            "mailto:a@example.com",
        ] {
            assert_eq!(uri_problem(good), None, "{good:?}");
        }
        for (bad, why) in [
            ("docs/readme", "no scheme"),
            ("1abc:x", "not a scheme"),
            (":x", "not a scheme"),
            ("ref://a b", "' '"),
            ("ref://a/%zz", "percent-escape"),
            ("ref://a/%4", "percent-escape"),
            ("ref://é", "'é'"),
            ("ref://a#b#c", "more than one"),
            ("ref://a\\b", "'\\\\'"),
        ] {
            let problem = uri_problem(bad).unwrap_or_else(|| panic!("{bad:?} passed"));
            assert!(problem.contains(why), "{bad:?}: {problem}");
        }
    }
}
