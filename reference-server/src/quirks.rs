//! The deliberate deviations the reference server can be told to make.
//!
//! Each quirk breaks exactly one rule of the specification, so that every check of mcpcheck can be
//! shown to fail against it. Quirks are switched on with `--quirk NAME` and listed with
//! `--list-quirks`; none is on by default, and with none on the server conforms.

use std::collections::BTreeSet;

/// One deliberate deviation from the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Quirk {
    /// `initialize` answers without `serverInfo`.
    InitMissingServerInfo,
    /// `initialize` answers with the next older version instead of echoing a supported one.
    VersionNoEcho,
    /// `initialize` echoes any requested version, even one the server does not know.
    EchoUnsupportedVersion,
    /// `notifications/initialized` is answered as if it were a request.
    AnswerInitialized,
    /// `ping` is answered with a method-not-found error.
    PingError,
    /// Reading an unknown resource succeeds with an empty `contents` array.
    MissingResourceEmptyContents,
    /// Reading an unknown resource fails with -32603 (internal error).
    MissingResourceInternalError,
    /// The not-found error for an unknown resource carries no `data.uri`.
    MissingResourceNoDataUri,
    /// Calling an unknown tool gives a result with `isError: true` instead of a protocol error.
    UnknownToolIsError,
    /// Calling an unknown tool gives a plain success.
    UnknownToolSuccess,
    /// The tool that returns nothing answers with `content: null`.
    EmptyResultNullContent,
    /// The tool that returns nothing marks its result `isError: true`.
    EmptyResultIsError,
    /// An unparsable frame gets -32603 instead of -32700.
    ParseErrorWrongCode,
    /// After answering an unparsable frame the server stops serving (stdio: exits; HTTP: drops the session).
    ExitOnParseError,
    /// A request with `"jsonrpc": "1.0"` is processed.
    AcceptJsonrpc1,
    /// The empty object `{}` gets -32601 instead of -32600.
    EmptyObjectMethodNotFound,
    /// A request whose id is an object is processed.
    ObjectIdAccepted,
    /// An unknown method gets -32000 instead of -32601.
    UnknownMethodWrongCode,
    /// An unknown notification is answered with an error.
    AnswerUnknownNotification,
    /// stdio: a banner line is printed on stdout before any message.
    StdoutBanner,
    /// stdio: the response to `ping` is pretty-printed over several lines.
    PrettyPrintPing,
    /// Error responses lack the `"jsonrpc": "2.0"` member.
    JsonrpcMissingOnErrors,
    /// A request with id 0 is answered with id null.
    ZeroIdNull,
    /// Error responses also carry `"result": null`.
    ErrorWithNullResult,
    /// The -32601 error has no `message`.
    MethodNotFoundNoMessage,
    /// stdio: the server keeps running after its stdin is closed.
    IgnoreStdinEof,
    /// A request with a string id is refused with -32600.
    StringIdRejected,
    /// A JSON-RPC batch is processed at every version, not only at 2025-03-26.
    AcceptBatches,
    /// A cursor the server never issued is ignored (the first page is served).
    InvalidCursorIgnored,
    /// `logging/setLevel` accepts any level.
    SetLevelAcceptsAnything,
    /// HTTP: the Origin header is not validated.
    NoOriginCheck,
    /// HTTP: the MCP-Protocol-Version header is not validated.
    IgnoreProtocolVersionHeader,
    /// The first tool's inputSchema has no `type`.
    ToolInputSchemaWithoutType,
    /// The first resource has no `name`.
    ResourceWithoutName,
    /// An unknown prompt is served as an empty list of messages.
    UnknownPromptEmptyResult,
    /// The first prompt has no `name`.
    PromptWithoutName,
    /// The resource template has no `uriTemplate`.
    TemplateWithoutUriTemplate,
    /// Reading a text resource returns both `text` and `blob`.
    ReadTextAndBlob,
    /// Completion for an unknown prompt offers an empty list.
    CompletionUnknownRefEmpty,
    /// The structured tool returns its sum as a string, against its outputSchema.
    StructuredContentMismatch,
    /// A tools/call without a name gets -32603.
    MalformedCallInternalError,
    /// HTTP: GET is answered 200 with a plain-text body instead of an SSE stream or 405.
    Get200Plain,
    /// A request whose id is null is processed.
    NullIdAccepted,
    /// The first tool's name contains a space.
    ToolNameWithSpace,
    /// The first resource's uri has no scheme.
    ResourceUriWithoutScheme,
    /// HTTP: DELETE answers 200 but the session lives on.
    SessionsSurviveDelete,
    /// HTTP: DELETE answers 500.
    Delete500,
    /// HTTP: a request without a session id is served (on a throwaway session).
    SessionOptional,
    /// The slow tool's progress goes down instead of up.
    ProgressDecreasing,
    /// HTTP: an accepted notification gets 200 instead of 202.
    Notification200,
    /// HTTP: JSON responses are labelled `Content-Type: text/plain`.
    ContentTypeTextPlain,
}

/// Every quirk with its command-line name and the rule it breaks.
pub const ALL: &[(Quirk, &str, &str)] = &[
    (
        Quirk::InitMissingServerInfo,
        "init-missing-server-info",
        "initialize result MUST carry serverInfo (schema)",
    ),
    (
        Quirk::VersionNoEcho,
        "version-no-echo",
        "a supported requested version MUST be echoed (lifecycle)",
    ),
    (
        Quirk::EchoUnsupportedVersion,
        "echo-unsupported-version",
        "an unsupported version MUST be answered with a supported one (lifecycle)",
    ),
    (
        Quirk::AnswerInitialized,
        "answer-initialized",
        "notifications/initialized MUST NOT be answered",
    ),
    (
        Quirk::PingError,
        "ping-error",
        "ping MUST be answered with an empty result",
    ),
    (
        Quirk::MissingResourceEmptyContents,
        "missing-resource-empty-contents",
        "an unknown resource MUST NOT be read as empty contents (SEP-2164)",
    ),
    (
        Quirk::MissingResourceInternalError,
        "missing-resource-internal-error",
        "an unknown resource MUST give -32602 (SEP-2164)",
    ),
    (
        Quirk::MissingResourceNoDataUri,
        "missing-resource-no-data-uri",
        "the not-found error SHOULD carry data.uri (SEP-2164)",
    ),
    (
        Quirk::UnknownToolIsError,
        "unknown-tool-is-error",
        "an unknown tool SHOULD be a protocol error, not isError",
    ),
    (
        Quirk::UnknownToolSuccess,
        "unknown-tool-success",
        "an unknown tool MUST NOT succeed",
    ),
    (
        Quirk::EmptyResultNullContent,
        "empty-result-null-content",
        "a tool result MUST have a content array",
    ),
    (
        Quirk::EmptyResultIsError,
        "empty-result-is-error",
        "a tool that succeeded MUST NOT set isError",
    ),
    (
        Quirk::ParseErrorWrongCode,
        "parse-error-wrong-code",
        "an unparsable frame MUST get -32700 (JSON-RPC 2.0)",
    ),
    (
        Quirk::ExitOnParseError,
        "exit-on-parse-error",
        "the server MUST keep serving after a malformed frame",
    ),
    (
        Quirk::AcceptJsonrpc1,
        "accept-jsonrpc-1",
        "jsonrpc MUST be \"2.0\"; anything else is -32600",
    ),
    (
        Quirk::EmptyObjectMethodNotFound,
        "empty-object-method-not-found",
        "{} is not a request and MUST get -32600",
    ),
    (
        Quirk::ObjectIdAccepted,
        "object-id-accepted",
        "an id MUST be a string or integer; an object id is -32600",
    ),
    (
        Quirk::UnknownMethodWrongCode,
        "unknown-method-wrong-code",
        "an unknown method MUST get -32601",
    ),
    (
        Quirk::AnswerUnknownNotification,
        "answer-unknown-notification",
        "a notification MUST NOT be answered",
    ),
    (
        Quirk::StdoutBanner,
        "stdout-banner",
        "stdout MUST carry only MCP messages (stdio)",
    ),
    (
        Quirk::PrettyPrintPing,
        "pretty-print-ping",
        "messages MUST NOT contain embedded newlines (stdio)",
    ),
    (
        Quirk::JsonrpcMissingOnErrors,
        "jsonrpc-missing-on-errors",
        "every message MUST carry \"jsonrpc\": \"2.0\"",
    ),
    (
        Quirk::ZeroIdNull,
        "zero-id-null",
        "a response MUST echo the request id with its type",
    ),
    (
        Quirk::ErrorWithNullResult,
        "error-with-null-result",
        "a response MUST carry exactly one of result and error",
    ),
    (
        Quirk::MethodNotFoundNoMessage,
        "method-not-found-no-message",
        "an error MUST carry an integer code and a string message",
    ),
    (
        Quirk::IgnoreStdinEof,
        "ignore-stdin-eof",
        "a stdio server SHOULD exit when its stdin closes",
    ),
    (
        Quirk::StringIdRejected,
        "string-id-rejected",
        "a request id MAY be a string; refusing string ids breaks clients",
    ),
    (
        Quirk::AcceptBatches,
        "accept-batches",
        "batches were removed in 2025-06-18 and MUST be refused",
    ),
    (
        Quirk::InvalidCursorIgnored,
        "invalid-cursor-ignored",
        "an invalid cursor SHOULD get -32602",
    ),
    (
        Quirk::SetLevelAcceptsAnything,
        "set-level-accepts-anything",
        "an invalid log level SHOULD get -32602",
    ),
    (
        Quirk::NoOriginCheck,
        "no-origin-check",
        "a foreign Origin MUST be refused with 403 (DNS rebinding)",
    ),
    (
        Quirk::IgnoreProtocolVersionHeader,
        "ignore-protocol-version-header",
        "an invalid MCP-Protocol-Version MUST get 400",
    ),
    (
        Quirk::ToolInputSchemaWithoutType,
        "tool-input-schema-without-type",
        "a tool's inputSchema MUST be of type object (schema)",
    ),
    (
        Quirk::ResourceWithoutName,
        "resource-without-name",
        "a resource MUST have a name (schema)",
    ),
    (
        Quirk::UnknownPromptEmptyResult,
        "unknown-prompt-empty-result",
        "an unknown prompt SHOULD get -32602",
    ),
    (
        Quirk::PromptWithoutName,
        "prompt-without-name",
        "a prompt MUST have a name (schema)",
    ),
    (
        Quirk::TemplateWithoutUriTemplate,
        "template-without-uri-template",
        "a resource template MUST have a uriTemplate (schema)",
    ),
    (
        Quirk::ReadTextAndBlob,
        "read-text-and-blob",
        "resource contents MUST be text or blob, not both (schema)",
    ),
    (
        Quirk::CompletionUnknownRefEmpty,
        "completion-unknown-ref-empty",
        "completion for an unknown prompt SHOULD get -32602",
    ),
    (
        Quirk::StructuredContentMismatch,
        "structured-content-mismatch",
        "structuredContent MUST validate against the outputSchema",
    ),
    (
        Quirk::MalformedCallInternalError,
        "malformed-call-internal-error",
        "invalid params MUST get -32602 (JSON-RPC 2.0)",
    ),
    (
        Quirk::Get200Plain,
        "get-200-plain",
        "GET MUST give an SSE stream or 405 (Streamable HTTP)",
    ),
    (
        Quirk::NullIdAccepted,
        "null-id-accepted",
        "a request id MUST NOT be null",
    ),
    (
        Quirk::ToolNameWithSpace,
        "tool-name-with-space",
        "tool names SHOULD use only A-Z a-z 0-9 _ - . (SEP-986)",
    ),
    (
        Quirk::ResourceUriWithoutScheme,
        "resource-uri-without-scheme",
        "a resource uri MUST be a URI (RFC 3986)",
    ),
    (
        Quirk::SessionsSurviveDelete,
        "sessions-survive-delete",
        "a terminated session MUST get 404 (Streamable HTTP)",
    ),
    (
        Quirk::Delete500,
        "delete-500",
        "DELETE SHOULD end the session (2xx) or be refused with 405",
    ),
    (
        Quirk::SessionOptional,
        "session-optional",
        "a request without the issued session id SHOULD get 400",
    ),
    (
        Quirk::ProgressDecreasing,
        "progress-decreasing",
        "progress MUST increase with each notification",
    ),
    (
        Quirk::Notification200,
        "notification-200",
        "an accepted notification MUST get HTTP 202 (Streamable HTTP)",
    ),
    (
        Quirk::ContentTypeTextPlain,
        "content-type-text-plain",
        "a response MUST be application/json or text/event-stream (Streamable HTTP)",
    ),
];

/// Looks a quirk up by its command-line name.
pub fn parse(name: &str) -> Option<Quirk> {
    ALL.iter().find(|(_, n, _)| *n == name).map(|(q, _, _)| *q)
}

/// The set of quirks switched on for one server.
#[derive(Clone, Debug, Default)]
pub struct Quirks(BTreeSet<Quirk>);

impl Quirks {
    /// Switches a quirk on.
    pub fn insert(&mut self, quirk: Quirk) {
        self.0.insert(quirk);
    }

    /// Whether a quirk is on.
    pub fn has(&self, quirk: Quirk) -> bool {
        self.0.contains(&quirk)
    }
}
