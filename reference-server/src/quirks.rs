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
    /// Stateless: results (other than `server/discover`'s) carry no `resultType`.
    StatelessNoResultType,
    /// Stateless: the `server/discover` result's `_meta` has no serverInfo.
    StatelessNoServerInfo,
    /// Stateless: the `server/discover` result has no `ttlMs` / `cacheScope`.
    StatelessDiscoverNoCacheHints,
    /// Stateless: list and read results have no `ttlMs` / `cacheScope`.
    StatelessNoCacheHints,
    /// Stateless: a request without `_meta` version or capabilities is served as the latest version.
    StatelessMetaOptional,
    /// Stateless: a request without `_meta` clientInfo is refused with -32602.
    StatelessRequireClientInfo,
    /// Stateless: -32022 for an unsupported version carries no `data`.
    StatelessUnsupportedVersionNoData,
    /// Stateless: `ping` (removed in 2026-07-28) is still answered.
    StatelessAnswerRemoved,
    /// Stateless, HTTP: every JSON-RPC error comes with HTTP 200.
    StatelessHttpErrors200,
    /// Stateless, HTTP: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` are not checked.
    StatelessIgnoreHeaders,
    /// The official fixtures `test_image_content` and `test_prompt_with_image` return an image
    /// block without `mimeType`.
    EverythingImageWithoutMimeType,
    /// The official fixture `test_error_handling` fails with -32603 instead of an `isError` result.
    EverythingErrorAsProtocolError,
    /// Reading `test://template/{id}/data` returns content that does not mention the id.
    EverythingTemplateIgnoresId,
    /// `test_prompt_with_arguments` leaves its arguments out of the text.
    EverythingPromptIgnoresArguments,
    /// Any successful completion answers `{"completion": {}}`, without `values`.
    EverythingCompletionWithoutValues,
    /// `test_prompt_with_arguments` is produced even without its required `arg2`.
    EverythingPromptMissingArgumentServed,
    /// Stateless, HTTP: GET is answered 200 instead of 405.
    StatelessGetAllowed,
    /// Stateless, HTTP: responses carry an `Mcp-Session-Id` header.
    StatelessSessionId,
    /// Tool calls log at info whatever level the client set.
    LogLevelIgnored,
    /// The first tool's inputSchema is not a valid JSON Schema (a property of type "strin").
    ToolInputSchemaInvalid,
    /// HTTP: SSE responses start straight with a message, without a priming event.
    SseNoPriming,
    /// HTTP: session ids contain a space.
    SessionIdWithSpace,
    /// `tools` is not declared, but tools are served.
    ToolsServedUndeclared,
    /// `resources` is not declared, but resources are served.
    ResourcesServedUndeclared,
    /// `prompts` is not declared, but prompts are served.
    PromptsServedUndeclared,
    /// A log message notification lacks `data`.
    LogMessageWithoutData,
    /// The second listed resource's URI holds a malformed percent-escape.
    ResourceUriBadEscape,
    /// Binary payloads (blobs, image and audio data) lose their `=` padding.
    BlobUnpadded,
    /// tools/list names the first tool twice (a copy is listed last).
    ToolNameDuplicate,
    /// After the response to a call with a progress token, one more progress notification follows (stdio).
    ProgressAfterResponse,
    /// With roots/list the server also asks for sampling/createMessage, which the client did not declare.
    ServerSendsSampling,
    /// roots/list is asked twice with the same request id.
    ServerRequestIdReused,
    /// 2026-07-28: a missing resource gets the retired -32002.
    StatelessLegacyNotFoundCode,
    /// `notifications/cancelled` is ignored: the cancelled call still answers (stdio).
    IgnoreCancel,
    /// 2026-07-28: `notifications/cancelled` is ignored: the cancelled call still answers (stdio).
    StatelessIgnoreCancel,
    /// Cancelling an unknown request id is answered with an error.
    CancelUnknownError,
    /// resources/subscribe and resources/unsubscribe fail although `subscribe` is declared.
    SubscribeError,
    /// After a feature request before `initialize`, `initialize` itself is refused.
    PreInitBreaksInitialize,
    /// A file:// URI with `..` segments is read (as a fake /etc/passwd).
    ResourceTraversal,
    /// 2026-07-28 HTTP: the Mcp-Name header is not compared with the body.
    StatelessIgnoreMcpName,
    /// 2026-07-28 HTTP: Mcp-Name and Mcp-Param-* are compared literally; the Base64 sentinel is
    /// not decoded.
    StatelessNoBase64Sentinel,
    /// `mcpcheck_echo` runs without its required `text` and succeeds.
    InvalidArgumentsAccepted,
    /// 2026-07-28: tool calls log at debug and up even without `_meta` logLevel.
    StatelessLogWithoutLevel,
    /// 2026-07-28: an unknown `_meta` logLevel is accepted.
    StatelessLogLevelUnchecked,
    /// 2026-07-28: -32021's `data.requiredCapabilities` is an array of names, not a
    /// ClientCapabilities object.
    StatelessRequiredCapabilitiesArray,
    /// 2026-07-28: every tools/list answers the tools in a new order (rotated by one).
    StatelessToolsOrderUnstable,
    /// 2026-07-28: a listed tool marks a `number` property with `x-mcp-header`.
    StatelessXMcpHeaderOnNumber,
    /// SSE event ids restart at 0 on every stream, so streams of one session share them.
    SseEventIdsPerStream,
    /// HTTP: a call of the slow fixture tool while another is in progress on the same session
    /// gets 409 Conflict.
    OneStreamPerSession,
    /// 2026-07-28: the acknowledgement of `subscriptions/listen` carries no subscriptionId.
    StatelessListenUntagged,
    /// 2026-07-28: a tools/list_changed goes out on a listen stream before its acknowledgement.
    StatelessListenNotifyBeforeAck,
    /// 2026-07-28: the acknowledgement also agrees to prompt list changes nobody asked for.
    StatelessListenAckUnrequested,
    /// tasks/get and tasks/result of an unknown task answer -32603 instead of -32602.
    TaskUnknownIdInternal,
    /// A CreateTaskResult's task has no createdAt or lastUpdatedAt.
    TaskCreatedWithoutTimestamps,
    /// Tasks are shown without their ttl.
    TaskWithoutTtl,
    /// tasks/result answers without the related-task metadata.
    TaskResultUnrelated,
    /// tasks/result answers at once, with empty content, while the task still works.
    TaskResultEarly,
    /// tasks/cancel of a working task answers with the task still working, and it goes on.
    TaskCancelIgnored,
    /// tasks/cancel of a finished task answers with the task.
    TaskCancelTerminalAccepted,
    /// tasks/list lists no tasks.
    TaskListEmpty,
    /// tasks/list ignores a cursor it never issued.
    TaskListCursorIgnored,
    /// A cancelled task reports completed once its work would have ended.
    TaskCancelledCompletes,
    /// A tool that requires a task also runs as a plain call.
    TaskRequiredPlainAccepted,
    /// A tool without execution.taskSupport also runs as a task.
    TaskForbiddenAccepted,
    /// 2026-07-28, tasks extension: a CreateTaskResult comes in a 2025-11-25 `task` wrapper.
    ExtTaskNested,
    /// 2026-07-28, tasks extension: tasks/get answers with resultType "task".
    ExtTaskGetResultTypeTask,
    /// 2026-07-28, tasks extension: tasks/get of a completed task leaves out its result.
    ExtTaskResultNotInlined,
    /// 2026-07-28, tasks extension: a CreateTaskResult goes to a request that did not declare the extension.
    ExtTaskUndeclaredHandle,
    /// 2026-07-28, tasks extension: a tool that runs only as a task answers -32601 to a request without the extension.
    ExtTaskRequiredWrongError,
    /// 2026-07-28, tasks extension: tasks/get, tasks/update and tasks/cancel are served to requests without the extension.
    ExtTaskServesUndeclared,
    /// 2026-07-28, tasks extension: an unknown taskId gets -32603.
    ExtTaskUnknownInternal,
    /// 2026-07-28, tasks extension: tasks/cancel answers with the task.
    ExtTaskCancelReturnsTask,
    /// 2026-07-28, tasks extension: tasks/update refuses a response under a key that is not outstanding.
    ExtTaskUpdateUnknownKeyRefused,
    /// 2026-07-28, tasks extension: a task whose tool reported isError ends failed.
    ExtTaskToolErrorFailed,
    /// 2026-07-28, tasks extension: a failed task leaves out its error.
    ExtTaskFailedWithoutError,
    /// 2026-07-28, tasks extension: subscriptions/listen for task ids is acknowledged without the extension.
    ExtTaskListenUndeclared,
    /// 2026-07-28, tasks extension: tasks/get of a task that waits for input leaves out inputRequests.
    ExtTaskInputRequestsMissing,
    /// 2026-07-28, tasks extension: tasks/update acknowledges the answer to an input request but the task goes on waiting for it.
    ExtTaskUpdateIgnored,
    /// A task reports its progress under its taskId instead of the request's progressToken.
    TaskProgressTaskId,
    /// A task that is over sends one more progress notification, with the next request about it.
    TaskProgressAfterTerminal,
    /// 2026-07-28: the list-change fixtures announce nothing to the subscriptions listening.
    StatelessListChangeSilent,
    /// 2026-07-28: a subscription the server ends gets no final result (HTTP: the stream just
    /// closes; stdio: nothing is sent).
    StatelessListenEndUnannounced,
    /// 2026-07-28: `mcpcheck_list_roots` accepts a requestState that fails verification.
    StatelessMrtrStateUnchecked,
    /// 2026-07-28: `mcpcheck_list_roots` asks again on every retry and never completes.
    StatelessMrtrRetryAsksAgain,
    /// 2026-07-28: `mcpcheck_list_roots` also asks for sampling, which the client did not declare.
    StatelessMrtrUndeclaredRequest,
    /// Batches are refused on 2025-03-26 sessions too.
    BatchesRefused20250326,
    /// completion/complete is served although `completions` is not declared.
    CompletionsServedUndeclared,
    /// logging/setLevel is served although `logging` is not declared (and says so in a log
    /// message).
    LoggingServedUndeclared,
    /// 2026-07-28: a client capability declared on one request is remembered for later ones.
    StatelessCapabilityCarryover,
    /// 2026-07-28 HTTP: Mcp-Param-* headers are not compared with the arguments they mirror.
    StatelessIgnoreParamHeaders,
    /// A GET with Last-Event-ID replays the events of every stream of the session after it.
    ResumeReplaysOtherStreams,
    /// A GET with Last-Event-ID first sends a ping under the id of an earlier request of the
    /// session (its requests numbered afresh on each stream).
    ResumeRequestIdReused,
    /// A GET with Last-Event-ID does not redeliver the stream's requests still unanswered: the
    /// server gives up on them, and the calls waiting on them fail.
    ResumeForgetsRequests,
    /// `mcpcheck_structured` returns structuredContent without its JSON in a text block.
    StructuredContentNotMirrored,
    /// 2026-07-28: only the discover result names the server in `_meta`.
    StatelessServerInfoDiscoverOnly,
    /// 2026-07-28 HTTP: SSE responses lack `X-Accel-Buffering: no`.
    StatelessSseBuffered,
    /// `é` goes out as the Latin-1 byte 0xE9: in the instructions over HTTP, and over stdio in
    /// a log line after the handshake (on stdio the instructions would break the handshake).
    NonUtf8Output,
    /// `logging` is not declared (nor served), yet every tool call logs.
    LogWithoutCapability,
    /// tools/list is accompanied by a notifications/cancelled for a request nobody sent.
    ServerCancelUnknown,
    /// 2026-07-28: pages after the first of a list say cacheScope "private".
    StatelessCacheScopePerPage,
    /// Tool annotations carry `readOnlyHint` as the string "true".
    ToolAnnotationStringHint,
    /// tools/list results carry a `_meta` key that breaks the key grammar (2025-06-18 on).
    MetaKeyInvalid,
    /// The server asks for the client's roots while answering initialize.
    RequestsBeforeInitialized,
    /// A ping before `notifications/initialized` gets an error.
    PingBeforeInitializedRefused,
    /// A request without `MCP-Protocol-Version` gets 400, although 2025-03-26 is supported.
    ProtocolHeaderRequired,
    /// 2026-07-28 HTTP: a request without `MCP-Protocol-Version` is served.
    StatelessProtocolHeaderOptional,
    /// 2026-07-28: a legacy `initialize` gets an error that names no version.
    StatelessLegacyInitializeUnnamed,
    /// 2026-07-28 HTTP: a POST carrying `Last-Event-ID` is refused.
    StatelessPostLastEventIdRefused,
    /// logging/setLevel with a valid level gets -32603.
    SetLevelRefused,
    /// HTTP: an SSE stream stays open for three seconds after its response.
    SseStreamLingers,
    /// HTTP: a client that drops a call's SSE stream has cancelled the call.
    DisconnectCancels,
    /// HTTP: SSE priming events carry no `retry` field.
    SseCloseWithoutRetry,
    /// HTTP: the reconnection fixture's result is not kept for resumption.
    ReconnectionLosesResponse,
    /// `test_sampling` answers without asking the client to sample.
    SamplingFixtureSilent,
    /// The elicitation fixtures answer without asking the client.
    ElicitationFixtureSilent,
    /// `test_elicitation` asks in URL mode, which the client did not declare (2025-11-25).
    ElicitationUrlUndeclared,
    /// The SEP-1034 fixture's integer field has the default "30", a string.
    ElicitationDefaultMistyped,
    /// 2026-07-28: a retry with the requestState but no inputResponses gets -32602.
    StatelessMrtrMissingError,
    /// 2026-07-28: an unknown key in inputResponses gets -32602.
    StatelessMrtrExtraRefused,
    /// 2026-07-28: a malformed roots answer in inputResponses is taken as no roots.
    StatelessMrtrMalformedAccepted,
    /// 2026-07-28: the multi-round fixture's first round carries no requestState.
    StatelessMrtrFirstRoundNoState,
    /// 2026-07-28: the multi-round fixture completes after the first round.
    StatelessMrtrOneRound,
    /// 2026-07-28: the multi-round fixture refuses the state of its own second round.
    StatelessMrtrLastRoundRefused,
    /// 2026-07-28: the fixture prompt that needs context is produced without asking for it.
    StatelessMrtrPromptNeverAsks,
    /// 2026-07-28: the fixture prompt refuses the retry that carries the context.
    StatelessMrtrPromptRetryRefused,
    /// 2026-07-28: reading `mcpcheck://roots` asks again although the retry has the roots.
    StatelessMrtrResourceAsksAgain,
    /// 2026-07-28: reading `mcpcheck://roots` asks without the requestState it needs back.
    StatelessMrtrResourceWithoutState,
    /// 2026-07-28 HTTP: Mcp-Param-Region is required even for a null or absent argument.
    StatelessParamHeaderAlwaysRequired,
    /// 2026-07-28 HTTP: an integer argument's Mcp-Param-* header is compared as text.
    StatelessParamIntegerTextual,
    /// HTTP+SSE (2024-11-05): the endpoint is sent as an unnamed event, not an `endpoint` event.
    LegacySseEndpointUnnamed,
    /// HTTP+SSE (2024-11-05): a request's response comes in the body of its POST.
    LegacySseAnswerInPost,
    /// HTTP+SSE: the stream and message endpoints accept any Origin.
    LegacySseNoOriginCheck,
    /// HTTP+SSE: the endpoint event names this server under another host name (another origin).
    LegacySseEndpointCrossOrigin,
    /// stdio and HTTP+SSE: every response is sent twice.
    DuplicateResponses,
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
    (
        Quirk::StatelessNoResultType,
        "stateless-no-result-type",
        "2026-07-28: every result MUST carry resultType",
    ),
    (
        Quirk::StatelessNoServerInfo,
        "stateless-no-server-info",
        "2026-07-28: the discover result SHOULD carry serverInfo in _meta",
    ),
    (
        Quirk::StatelessDiscoverNoCacheHints,
        "stateless-discover-no-cache-hints",
        "2026-07-28: the discover result MUST carry ttlMs and cacheScope (schema)",
    ),
    (
        Quirk::StatelessNoCacheHints,
        "stateless-no-cache-hints",
        "2026-07-28: list and read results MUST carry ttlMs and cacheScope (schema)",
    ),
    (
        Quirk::StatelessMetaOptional,
        "stateless-meta-optional",
        "2026-07-28: a request without _meta protocolVersion/clientCapabilities MUST get -32602",
    ),
    (
        Quirk::StatelessRequireClientInfo,
        "stateless-require-client-info",
        "2026-07-28: _meta clientInfo is optional; a request without it MUST be served",
    ),
    (
        Quirk::StatelessUnsupportedVersionNoData,
        "stateless-unsupported-version-no-data",
        "2026-07-28: -32022 MUST carry data.supported and data.requested",
    ),
    (
        Quirk::StatelessAnswerRemoved,
        "stateless-answer-removed",
        "2026-07-28: ping was removed; a stateless-only server MUST answer -32601",
    ),
    (
        Quirk::StatelessHttpErrors200,
        "stateless-http-errors-200",
        "2026-07-28 HTTP: -32602/-32022/-32020 MUST come with 400, -32601 with 404",
    ),
    (
        Quirk::StatelessIgnoreHeaders,
        "stateless-ignore-headers",
        "2026-07-28 HTTP: MCP-Protocol-Version and Mcp-Method MUST match the body (else 400, -32020)",
    ),
    (
        Quirk::EverythingImageWithoutMimeType,
        "everything-image-without-mime-type",
        "an image content block MUST carry data and mimeType (schema)",
    ),
    (
        Quirk::EverythingErrorAsProtocolError,
        "everything-error-as-protocol-error",
        "a tool's execution error SHOULD be a result with isError, not a JSON-RPC error",
    ),
    (
        Quirk::EverythingTemplateIgnoresId,
        "everything-template-ignores-id",
        "a resource read through a template MUST be the resource the URI names",
    ),
    (
        Quirk::EverythingPromptIgnoresArguments,
        "everything-prompt-ignores-arguments",
        "prompts/get MUST use the arguments given",
    ),
    (
        Quirk::EverythingCompletionWithoutValues,
        "everything-completion-without-values",
        "a completion result MUST carry completion.values (schema)",
    ),
    (
        Quirk::EverythingPromptMissingArgumentServed,
        "everything-prompt-missing-argument-served",
        "a missing required prompt argument SHOULD get -32602",
    ),
    (
        Quirk::StatelessGetAllowed,
        "stateless-get-allowed",
        "2026-07-28 HTTP: GET and DELETE SHOULD get 405 (POST only)",
    ),
    (
        Quirk::StatelessSessionId,
        "stateless-session-id",
        "2026-07-28 HTTP: responses SHOULD carry no Mcp-Session-Id",
    ),
    (
        Quirk::LogLevelIgnored,
        "log-level-ignored",
        "after logging/setLevel the server SHOULD send only messages at or above that level",
    ),
    (
        Quirk::ToolInputSchemaInvalid,
        "tool-input-schema-invalid",
        "a tool's inputSchema MUST be a valid JSON Schema",
    ),
    (
        Quirk::SseNoPriming,
        "sse-no-priming",
        "an SSE stream SHOULD start with an event id and empty data (2025-11-25)",
    ),
    (
        Quirk::SessionIdWithSpace,
        "session-id-with-space",
        "a session id MUST hold only visible ASCII (0x21-0x7E)",
    ),
    (
        Quirk::ToolsServedUndeclared,
        "tools-served-undeclared",
        "a server MUST declare the tools capability to serve tools",
    ),
    (
        Quirk::ResourcesServedUndeclared,
        "resources-served-undeclared",
        "a server MUST declare the resources capability to serve resources",
    ),
    (
        Quirk::PromptsServedUndeclared,
        "prompts-served-undeclared",
        "a server MUST declare the prompts capability to serve prompts",
    ),    (
        Quirk::LogMessageWithoutData,
        "log-message-without-data",
        "a log message MUST carry level and data (schema)",
    ),
    (
        Quirk::ResourceUriBadEscape,
        "resource-uri-bad-escape",
        "a resource uri MUST be an RFC 3986 URI",
    ),
    (
        Quirk::BlobUnpadded,
        "blob-unpadded",
        "binary data MUST be properly base64-encoded (RFC 4648)",
    ),
    (
        Quirk::ToolNameDuplicate,
        "tool-name-duplicate",
        "tool names SHOULD be unique",
    ),
    (
        Quirk::ProgressAfterResponse,
        "progress-after-response",
        "progress MUST only reference active requests",
    ),
    (
        Quirk::ServerSendsSampling,
        "server-sends-sampling",
        "server requests MUST respect the client's capabilities",
    ),
    (
        Quirk::ServerRequestIdReused,
        "server-request-id-reused",
        "a request id MUST NOT be reused within a session",
    ),
    (
        Quirk::StatelessLegacyNotFoundCode,
        "stateless-legacy-not-found-code",
        "2026-07-28: -32002 is retired; a missing resource MUST get -32602",
    ),
    (
        Quirk::IgnoreCancel,
        "ignore-cancel",
        "a cancelled request SHOULD get no response",
    ),
    (
        Quirk::StatelessIgnoreCancel,
        "stateless-ignore-cancel",
        "2026-07-28 stdio: after cancellation the server MUST send nothing more for the request",
    ),
    (
        Quirk::CancelUnknownError,
        "cancel-unknown-error",
        "cancelling an unknown id SHOULD be ignored",
    ),
    (
        Quirk::SubscribeError,
        "subscribe-error",
        "a declared subscribe capability MUST be served",
    ),
    (
        Quirk::PreInitBreaksInitialize,
        "pre-init-breaks-initialize",
        "initialize MUST be answered with the server's capabilities, even after a premature request",
    ),
    (
        Quirk::ResourceTraversal,
        "resource-traversal",
        "resource URIs MUST be validated; traversal MUST be refused",
    ),
    (
        Quirk::StatelessIgnoreMcpName,
        "stateless-ignore-mcp-name",
        "2026-07-28 HTTP: Mcp-Name MUST match the body's name, else 400 with -32020",
    ),
    (
        Quirk::StatelessNoBase64Sentinel,
        "stateless-no-base64-sentinel",
        "2026-07-28 HTTP: an Mcp-Name in the =?base64?...?= form MUST be decoded before comparing",
    ),
    (
        Quirk::InvalidArgumentsAccepted,
        "invalid-arguments-accepted",
        "tool inputs MUST be validated; invalid arguments are refused (isError from 2025-11-25)",
    ),
    (
        Quirk::StatelessLogWithoutLevel,
        "stateless-log-without-level",
        "2026-07-28: no notifications/message for a request without _meta logLevel",
    ),
    (
        Quirk::StatelessLogLevelUnchecked,
        "stateless-log-level-unchecked",
        "2026-07-28: an invalid _meta logLevel SHOULD get -32602",
    ),
    (
        Quirk::StatelessRequiredCapabilitiesArray,
        "stateless-required-capabilities-array",
        "2026-07-28: -32021 data.requiredCapabilities MUST be a ClientCapabilities object",
    ),
    (
        Quirk::StatelessToolsOrderUnstable,
        "stateless-tools-order-unstable",
        "2026-07-28: tools/list SHOULD list tools in a deterministic order",
    ),
    (
        Quirk::StatelessXMcpHeaderOnNumber,
        "stateless-x-mcp-header-on-number",
        "2026-07-28: x-mcp-header MUST only mark integer, string or boolean properties",
    ),
    (
        Quirk::SseEventIdsPerStream,
        "sse-event-ids-per-stream",
        "SSE event ids MUST be unique across all streams of a session",
    ),
    (
        Quirk::OneStreamPerSession,
        "one-stream-per-session",
        "a client MAY keep several streams open; concurrent requests MUST each be answered",
    ),
    (
        Quirk::StatelessListenUntagged,
        "stateless-listen-untagged",
        "2026-07-28: every notification on a listen stream MUST carry its subscriptionId",
    ),
    (
        Quirk::TaskUnknownIdInternal,
        "task-unknown-id-internal",
        "2025-11-25 tasks: an unknown taskId MUST get -32602 (here -32603)",
    ),
    (
        Quirk::TaskCreatedWithoutTimestamps,
        "task-created-without-timestamps",
        "2025-11-25 tasks: a task MUST carry createdAt and lastUpdatedAt",
    ),
    (
        Quirk::TaskWithoutTtl,
        "task-without-ttl",
        "2025-11-25 tasks: tasks/get MUST include the actual ttl",
    ),
    (
        Quirk::TaskResultUnrelated,
        "task-result-unrelated",
        "2025-11-25 tasks: tasks/result MUST carry io.modelcontextprotocol/related-task",
    ),
    (
        Quirk::TaskResultEarly,
        "task-result-early",
        "2025-11-25 tasks: tasks/result MUST block until the task is terminal",
    ),
    (
        Quirk::TaskCancelIgnored,
        "task-cancel-ignored",
        "2025-11-25 tasks: a valid cancel MUST move the task to cancelled before responding",
    ),
    (
        Quirk::TaskCancelTerminalAccepted,
        "task-cancel-terminal-accepted",
        "2025-11-25 tasks: cancelling a terminal task MUST get -32602",
    ),
    (
        Quirk::TaskListEmpty,
        "task-list-empty",
        "2025-11-25 tasks: a task retrievable with tasks/get MUST be listed by tasks/list",
    ),
    (
        Quirk::TaskListCursorIgnored,
        "task-list-cursor-ignored",
        "2025-11-25 tasks: an invalid tasks/list cursor MUST get -32602",
    ),
    (
        Quirk::TaskCancelledCompletes,
        "task-cancelled-completes",
        "2025-11-25 tasks: a terminal status MUST NOT change (cancelled stays cancelled)",
    ),
    (
        Quirk::TaskRequiredPlainAccepted,
        "task-required-plain-accepted",
        "2025-11-25 tasks: a plain call of a tool whose taskSupport is required MUST get -32601",
    ),
    (
        Quirk::TaskForbiddenAccepted,
        "task-forbidden-accepted",
        "2025-11-25 tasks: a task-augmented call of a tool without taskSupport SHOULD get -32601",
    ),
    (
        Quirk::TaskProgressTaskId,
        "task-progress-task-id",
        "2025-11-25 tasks: a task's progress MUST use the progressToken of the request that made it",
    ),
    (
        Quirk::TaskProgressAfterTerminal,
        "task-progress-after-terminal",
        "2025-11-25 tasks: progress for a task MUST stop once the task is terminal",
    ),
    (
        Quirk::StatelessListChangeSilent,
        "stateless-list-change-silent",
        "2026-07-28: a listen stream for toolsListChanged/promptsListChanged SHOULD deliver a change",
    ),
    (
        Quirk::ExtTaskNested,
        "ext-task-nested",
        "2026-07-28 tasks extension: a CreateTaskResult MUST be flat (Result & Task)",
    ),
    (
        Quirk::ExtTaskGetResultTypeTask,
        "ext-task-get-result-type-task",
        "2026-07-28 tasks extension: tasks/get MUST set resultType \"complete\"",
    ),
    (
        Quirk::ExtTaskResultNotInlined,
        "ext-task-result-not-inlined",
        "2026-07-28 tasks extension: tasks/get of a completed task MUST inline its result",
    ),
    (
        Quirk::ExtTaskUndeclaredHandle,
        "ext-task-undeclared-handle",
        "2026-07-28 tasks extension: no CreateTaskResult to a request that did not declare the extension",
    ),
    (
        Quirk::ExtTaskRequiredWrongError,
        "ext-task-required-wrong-error",
        "2026-07-28 tasks extension: a tool that needs a task MUST get -32021 naming the extension",
    ),
    (
        Quirk::ExtTaskServesUndeclared,
        "ext-task-serves-undeclared",
        "2026-07-28 tasks extension: tasks/* from a request without the extension MUST get -32021",
    ),
    (
        Quirk::ExtTaskUnknownInternal,
        "ext-task-unknown-internal",
        "2026-07-28 tasks extension: an unknown taskId MUST (tasks/get) or SHOULD get -32602",
    ),
    (
        Quirk::ExtTaskCancelReturnsTask,
        "ext-task-cancel-returns-task",
        "2026-07-28 tasks extension: tasks/cancel MUST answer with an empty acknowledgement",
    ),
    (
        Quirk::ExtTaskUpdateUnknownKeyRefused,
        "ext-task-update-unknown-key-refused",
        "2026-07-28 tasks extension: responses to keys not outstanding SHOULD be ignored",
    ),
    (
        Quirk::ExtTaskToolErrorFailed,
        "ext-task-tool-error-failed",
        "2026-07-28 tasks extension: a tool error is a completed task, never failed",
    ),
    (
        Quirk::ExtTaskFailedWithoutError,
        "ext-task-failed-without-error",
        "2026-07-28 tasks extension: a failed task MUST carry the JSON-RPC error",
    ),
    (
        Quirk::ExtTaskListenUndeclared,
        "ext-task-listen-undeclared",
        "2026-07-28 tasks extension: listening for tasks without the extension MUST get -32021",
    ),
    (
        Quirk::ExtTaskInputRequestsMissing,
        "ext-task-input-requests-missing",
        "2026-07-28 tasks extension: an input_required task MUST carry its outstanding inputRequests",
    ),
    (
        Quirk::ExtTaskUpdateIgnored,
        "ext-task-update-ignored",
        "2026-07-28 tasks extension: an answered input request MUST NOT stay outstanding",
    ),
    (
        Quirk::StatelessListenEndUnannounced,
        "stateless-listen-end-unannounced",
        "2026-07-28: a subscription the server ends SHOULD get a final result",
    ),
    (
        Quirk::StatelessListenNotifyBeforeAck,
        "stateless-listen-notify-before-ack",
        "2026-07-28: the acknowledgement MUST be a subscription's first message",
    ),
    (
        Quirk::StatelessListenAckUnrequested,
        "stateless-listen-ack-unrequested",
        "2026-07-28: a listen stream MUST NOT carry notification types the client did not ask for",
    ),
    (
        Quirk::StatelessMrtrStateUnchecked,
        "stateless-mrtr-state-unchecked",
        "2026-07-28: a requestState that fails verification MUST be rejected",
    ),
    (
        Quirk::StatelessMrtrRetryAsksAgain,
        "stateless-mrtr-retry-asks-again",
        "2026-07-28: a retry carrying every input asked for completes the request",
    ),
    (
        Quirk::StatelessMrtrUndeclaredRequest,
        "stateless-mrtr-undeclared-request",
        "2026-07-28: input requests MUST only use capabilities the request declared",
    ),
    (
        Quirk::BatchesRefused20250326,
        "batches-refused-2025-03-26",
        "2025-03-26: implementations MUST support receiving JSON-RPC batches",
    ),
    (
        Quirk::CompletionsServedUndeclared,
        "completions-served-undeclared",
        "a server MUST declare the completions capability to serve completion/complete",
    ),
    (
        Quirk::LoggingServedUndeclared,
        "logging-served-undeclared",
        "a server MUST declare the logging capability to serve logging/setLevel",
    ),
    (
        Quirk::StatelessCapabilityCarryover,
        "stateless-capability-carryover",
        "2026-07-28: capabilities are per request; one declared earlier MUST NOT carry over",
    ),
    (
        Quirk::StatelessIgnoreParamHeaders,
        "stateless-ignore-param-headers",
        "2026-07-28 HTTP: an argument marked x-mcp-header MUST come with a matching Mcp-Param-* header",
    ),
    (
        Quirk::ResumeReplaysOtherStreams,
        "resume-replays-other-streams",
        "a resumed stream MUST NOT replay messages of another stream",
    ),
    (
        Quirk::ResumeRequestIdReused,
        "resume-request-id-reused",
        "a request id MUST NOT be reused within a session, on a resumed stream neither",
    ),
    (
        Quirk::ResumeForgetsRequests,
        "resume-forgets-requests",
        "a dropped stream SHOULD NOT cancel a call: a request it waits on is redelivered on resumption",
    ),
    (
        Quirk::StructuredContentNotMirrored,
        "structured-content-not-mirrored",
        "structuredContent SHOULD also be returned as JSON text",
    ),
    (
        Quirk::StatelessServerInfoDiscoverOnly,
        "stateless-server-info-discover-only",
        "2026-07-28: every result SHOULD name the server in _meta",
    ),
    (
        Quirk::StatelessSseBuffered,
        "stateless-sse-buffered",
        "2026-07-28 HTTP: SSE responses SHOULD carry X-Accel-Buffering: no",
    ),
    (
        Quirk::NonUtf8Output,
        "non-utf8-output",
        "every byte a server sends MUST be UTF-8 (transports)",
    ),
    (
        Quirk::LogWithoutCapability,
        "log-without-capability",
        "log messages MUST come only from a server that declares logging",
    ),
    (
        Quirk::ServerCancelUnknown,
        "server-cancel-unknown",
        "a server MUST cancel only its own requests in progress (2026-07-28: only a listen)",
    ),
    (
        Quirk::StatelessCacheScopePerPage,
        "stateless-cache-scope-per-page",
        "2026-07-28: every page of one list MUST have the same cacheScope",
    ),
    (
        Quirk::ToolAnnotationStringHint,
        "tool-annotation-string-hint",
        "tool annotations' hints MUST be booleans (schema)",
    ),
    (
        Quirk::MetaKeyInvalid,
        "meta-key-invalid",
        "_meta keys MUST follow the prefix/name grammar (2025-06-18 on)",
    ),
    (
        Quirk::RequestsBeforeInitialized,
        "requests-before-initialized",
        "the server SHOULD NOT send requests other than pings before initialized (lifecycle)",
    ),
    (
        Quirk::PingBeforeInitializedRefused,
        "ping-before-initialized-refused",
        "a ping MUST be answered at any time, before initialized too (lifecycle, ping)",
    ),
    (
        Quirk::ProtocolHeaderRequired,
        "protocol-header-required",
        "HTTP: a request without MCP-Protocol-Version SHOULD be taken as 2025-03-26 when that is supported",
    ),
    (
        Quirk::StatelessProtocolHeaderOptional,
        "stateless-protocol-header-optional",
        "2026-07-28 HTTP: a request without MCP-Protocol-Version MUST get 400 with -32020",
    ),
    (
        Quirk::StatelessLegacyInitializeUnnamed,
        "stateless-legacy-initialize-unnamed",
        "2026-07-28: a legacy initialize SHOULD get an error naming the supported versions",
    ),
    (
        Quirk::StatelessPostLastEventIdRefused,
        "stateless-post-last-event-id-refused",
        "2026-07-28 HTTP: Last-Event-ID on a POST SHOULD be ignored",
    ),
    (
        Quirk::SetLevelRefused,
        "set-level-refused",
        "logging/setLevel with a valid level MUST be served when logging is declared",
    ),
    (
        Quirk::SseStreamLingers,
        "sse-stream-lingers",
        "HTTP: an SSE stream SHOULD end after its response",
    ),
    (
        Quirk::DisconnectCancels,
        "disconnect-cancels",
        "HTTP: a dropped SSE stream SHOULD NOT be taken as a cancellation",
    ),
    (
        Quirk::SseCloseWithoutRetry,
        "sse-close-without-retry",
        "HTTP: a stream closed before its response SHOULD have sent a retry field (SEP-1699)",
    ),
    (
        Quirk::ReconnectionLosesResponse,
        "reconnection-loses-response",
        "HTTP: a stream closed before its response MUST be resumable to that response",
    ),
    (
        Quirk::SamplingFixtureSilent,
        "sampling-fixture-silent",
        "test_sampling MUST ask the client to sample (official fixture)",
    ),
    (
        Quirk::ElicitationFixtureSilent,
        "elicitation-fixture-silent",
        "the elicitation fixtures MUST ask the client with elicitation/create (official fixtures)",
    ),
    (
        Quirk::ElicitationUrlUndeclared,
        "elicitation-url-undeclared",
        "URL-mode elicitation MUST NOT be sent to a client without elicitation.url",
    ),
    (
        Quirk::ElicitationDefaultMistyped,
        "elicitation-default-mistyped",
        "an elicitation field's default MUST have the field's type (SEP-1034)",
    ),
    (
        Quirk::StatelessMrtrMissingError,
        "stateless-mrtr-missing-error",
        "2026-07-28: a retry missing a needed response SHOULD be asked again, not refused",
    ),
    (
        Quirk::StatelessMrtrExtraRefused,
        "stateless-mrtr-extra-refused",
        "2026-07-28: unknown keys in inputResponses SHOULD be ignored",
    ),
    (
        Quirk::StatelessMrtrMalformedAccepted,
        "stateless-mrtr-malformed-accepted",
        "2026-07-28: malformed inputResponses SHOULD get a JSON-RPC error",
    ),
    (
        Quirk::StatelessMrtrFirstRoundNoState,
        "stateless-mrtr-first-round-no-state",
        "2026-07-28: the multi-round fixture's first round sends the requestState its retry echoes",
    ),
    (
        Quirk::StatelessMrtrOneRound,
        "stateless-mrtr-one-round",
        "2026-07-28: the multi-round fixture asks in a second round before it completes",
    ),
    (
        Quirk::StatelessMrtrLastRoundRefused,
        "stateless-mrtr-last-round-refused",
        "2026-07-28: a retry with every input asked for and the echoed state completes",
    ),
    (
        Quirk::StatelessMrtrPromptNeverAsks,
        "stateless-mrtr-prompt-never-asks",
        "2026-07-28: the input-required fixture prompt asks for its context (prompts/get MRTR)",
    ),
    (
        Quirk::StatelessMrtrPromptRetryRefused,
        "stateless-mrtr-prompt-retry-refused",
        "2026-07-28: a prompts/get retry with the input asked for completes",
    ),
    (
        Quirk::StatelessMrtrResourceAsksAgain,
        "stateless-mrtr-resource-asks-again",
        "2026-07-28: a resources/read retry with the input asked for completes",
    ),
    (
        Quirk::StatelessMrtrResourceWithoutState,
        "stateless-mrtr-resource-without-state",
        "2026-07-28: mcpcheck://roots sends the requestState its retry must echo",
    ),
    (
        Quirk::StatelessParamHeaderAlwaysRequired,
        "stateless-param-header-always-required",
        "2026-07-28 HTTP: a null or absent argument MUST NOT require its Mcp-Param-* header",
    ),
    (
        Quirk::StatelessParamIntegerTextual,
        "stateless-param-integer-textual",
        "2026-07-28 HTTP: an integer Mcp-Param-* header SHOULD compare numerically",
    ),
    (
        Quirk::LegacySseEndpointUnnamed,
        "legacy-sse-endpoint-unnamed",
        "HTTP+SSE (2024-11-05): the stream MUST begin with an `endpoint` event",
    ),
    (
        Quirk::LegacySseAnswerInPost,
        "legacy-sse-answer-in-post",
        "HTTP+SSE (2024-11-05): server messages MUST be sent as SSE `message` events",
    ),
    (
        Quirk::LegacySseNoOriginCheck,
        "legacy-sse-no-origin-check",
        "HTTP+SSE (2024-11-05): servers MUST validate the Origin header on all connections",
    ),
    (
        Quirk::LegacySseEndpointCrossOrigin,
        "legacy-sse-endpoint-cross-origin",
        "HTTP+SSE: the endpoint a stream names SHOULD be at the stream's own origin (derived)",
    ),
    (
        Quirk::DuplicateResponses,
        "duplicate-responses",
        "each request SHOULD be answered once (derived; stdio and HTTP+SSE)",
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
