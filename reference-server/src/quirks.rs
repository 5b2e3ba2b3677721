//! The deliberate deviations the reference server can be told to make.
//!
//! Each quirk breaks exactly one rule of the specification, so that every check of mcpcheck can be
//! shown to fail against it. Quirks are switched on with `--quirk NAME` and listed with
//! `--list-quirks`; none is on by default, and with none on the server conforms.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::outcome::{Failure, Outcome};
use crate::stock::Stock;

/// Where a quirk that is data acts: the handlers stay the conformant server's, and the quirk's
/// function changes what they produced at one place, instead of a branch in them.
#[derive(Clone, Copy)]
enum Acts {
    /// Every response about to be sent (`; rewrites f`).
    Response(fn(&mut Map<String, Value>)),
    /// A list before it is paged (`; lists "tools" with f`): `tools`, `resources`,
    /// `resourceTemplates` or `prompts`.
    Listing(&'static str, fn(&mut Vec<Value>)),
    /// What the handler of one of these methods answered, a result or an error, given the
    /// request's params (`; answers "prompts/get" with f`, `; answers "a" | "b" with f`), in
    /// either era or in one (`; stateless_answers …`, `; handshake_answers …`).
    Answer(
        &'static [&'static str],
        Option<Era>,
        fn(&Value, Outcome) -> Outcome,
    ),
    /// An authorization document about to be served (`; serves "protected-resource" with f`): the
    /// protected resource metadata (`protected-resource`, RFC 9728) or the authorization
    /// server metadata (`authorization-server`, RFC 8414; `second-authorization-server`, the
    /// second's, if a quirk locates one).
    Document(&'static str, fn(&mut Map<String, Value>)),
    /// The skills a server serves from its folder, as loaded, and the scheme of their URIs
    /// (`; stocks f`).
    Stocks(fn(&mut Stock)),
    /// What the skills extension's handler of one of these methods answered (`skills/list`,
    /// `skills/get`, `resources/directory/read`), given the skills served and the request's
    /// params (`; skill_answers "resources/directory/read" with f`).
    SkillAnswer(
        &'static [&'static str],
        fn(&Stock, &Value, Outcome) -> Outcome,
    ),
    /// The result of a tasks/cancel of the tasks extension, given the task it cancelled as
    /// tasks/get would show it (`; acknowledges f`): by default empty.
    CancelResult(fn(&Value, &mut Map<String, Value>)),
    /// The lines a stdio server writes on stdout as it starts, before it reads anything
    /// (`; greets f`): none by default.
    Greeting(fn(&mut Vec<String>)),
    /// A skill's entry as skills/list and skills/get give it, with the skills served and the
    /// skill's index among them (`; enters f`).
    SkillEntry(fn(&Stock, usize, &mut Map<String, Value>)),
    /// The JSON-RPC answer a POST gets in its response's JSON body (Streamable HTTP), with the
    /// response's status (`; posts f`).
    Posted(fn(u16, &mut Map<String, Value>)),
    /// The headers of a Streamable HTTP response, once set: one with a JSON body (`; heads f`),
    /// an SSE stream answering a POST (`; heads "sse" with f`), or the protected resource
    /// metadata document (`; heads "protected-resource" with f`).
    Headers(&'static str, fn(&mut hyper::HeaderMap)),
    /// The challenge, status and body of a refusal for want of a valid token, and what it is
    /// made of ([`Form`]) (`; challenges f`).
    Challenge(fn(&mut Challenge)),
    /// A notification the server sends while it answers one of these methods, given the
    /// request's params and the answer (`; notifies "tools/list" with f`).
    Notice(
        &'static [&'static str],
        fn(&Value, &Outcome) -> Option<Value>,
    ),
    /// A 2025-11-25 task as every answer and notification shows it (`; shows f`).
    TaskView(fn(&mut Map<String, Value>)),
    /// A refusal in place of the handler's answer, given the method and the params: in the
    /// 2026-07-28 era, once the request's `_meta` has been found to name the era and the
    /// client's capabilities (`; stateless_refuses f`).
    Refusal(fn(&str, &Value) -> Option<Failure>),
    /// The reply to an incoming message (a request's response; none for a notification or a
    /// response), given the message (`; replies f`). A reply the function changes is then
    /// rewritten like every other (`; rewrites`).
    Reply(fn(&Map<String, Value>, Option<Value>) -> Option<Value>),
    /// A result of the 2026-07-28 era once that era's members (`resultType`, the caching hints,
    /// the server's name in `_meta`) are added, with the method and the request's params
    /// (`; decorates f`).
    Decorated(fn(&str, &Value, &mut Map<String, Value>)),
    /// The params of a request for one of these methods (`elicitation/create`,
    /// `sampling/createMessage`) that the server is about to send the client while it answers a
    /// tool call, given the protocol version the exchange speaks (`; asks "elicitation/create"
    /// with f`). The requests quirks send unasked are theirs alone.
    Ask(&'static [&'static str], fn(&str, &mut Value)),
    /// The messages the server opens an exchange with, as it would send them, given what
    /// names the exchange (`; opens "subscriptions/listen" with f`): a 2026-07-28 listen
    /// stream's (its acknowledgement; the subscription's `_meta` tag), or, in the handshake era,
    /// the requests with which it asks a session's client for its roots once (`"roots/list"`:
    /// roots/list, then a ping it withdraws at once; null).
    Opening(&'static str, fn(&Value, &mut Vec<Value>)),
    /// The capabilities the server declares (initialize, server/discover), once those it does
    /// not serve are left out (`; declares f`).
    Declared(fn(&mut Map<String, Value>)),
    /// The params of a notification the server sends on its own, by its method, as it is made
    /// (`; tells "notifications/message" with f`; also `"notifications/progress"`, a task's).
    Told(&'static str, fn(&mut Map<String, Value>)),
    /// The progress a tool call reports, in the order it reports it, before the first
    /// notification is sent (`; reports f`).
    Progress(fn(&mut [u64])),
    /// The status a task is shown with once its work is over, given what it was ([`Settled`])
    /// (`; settles f`): by default cancelled if it was, else completed or failed by its outcome.
    Settle(fn(&Settled, &mut &'static str)),
    /// An SSE event the server is about to send, as its text (`; sends "priming" with f`): a
    /// Streamable HTTP stream's priming event (`priming`), or an HTTP+SSE stream's first event,
    /// which names where to post (`endpoint`), given the `Host` the stream was asked for (empty
    /// for a priming event). A priming event a quirk leaves empty is not sent.
    Event(&'static str, fn(&str, &mut String)),
    /// A bearer token the server takes besides the valid one, given whether it is the token the
    /// server knows as expired (`; accepts f`).
    Token(fn(&str, bool) -> bool),
    /// A reply (not a batch's) about to be written on stdout, over stdio only, once rewritten as
    /// every response is (`; writes f`).
    Written(fn(&mut Map<String, Value>)),
    /// The lines a reply (not a batch's) is written as on stdout, given the frame it answers and
    /// the reply (`; prints f`): one line of compact JSON, unless a quirk changes them.
    Printed(fn(&[u8], &Map<String, Value>, &mut Vec<String>)),
    /// The HTTP status of the answer to a Streamable HTTP POST, given its JSON body (null for
    /// a POST of notifications only, acknowledged without a body) (`; status f`).
    Status(fn(&Value, &mut u16)),
    /// The id of a new Streamable HTTP session, before it is sent (`; names f`).
    SessionId(fn(&mut String)),
    /// The number of a new SSE stream answering a POST (Streamable HTTP), which its event ids
    /// begin with (`; numbers f`): by default one the server gives no other stream.
    StreamNumber(fn(&mut u64)),
    /// The path an authorization document or endpoint is served at, if anywhere (`; locates
    /// "protected-resource" with f`; also `"authorization-server"` and `"authorize"`; and,
    /// nowhere by default, `"moved-protected-resource"`, a URL that redirects to the metadata,
    /// and `"second-authorization-server"`, the metadata of a second authorization server at
    /// the origin's `/second`, which the resource's must then list). A challenge names the
    /// protected resource metadata's (its default if it is served nowhere). Quirks act in the
    /// order they are declared, so of two that place one document the later wins.
    Location(&'static str, fn(&mut Option<&'static str>)),
    /// A check of what the server receives, or a step it takes on it, that it skips (`; waives
    /// Waiver::Origin`).
    Waive(Waiver),
    /// A check of what the server receives that it makes where the conformant server does not
    /// (`; demands Demand::IntegerId`).
    Demand(Demand),
    /// The bytes of what the server writes, as they go out (`; encodes "stdio" with f`: each
    /// line on stdout; `; encodes "http" with f`: each Streamable HTTP response's JSON body;
    /// `; encodes "protected-resource" with f`: the protected resource metadata document).
    Encoded(&'static str, fn(&mut Vec<u8>)),
    /// An answer in place of the handler's to a request at the MCP endpoint that is no POST
    /// (Streamable HTTP), once it is authorized (`; intercepts f`): its status and plain-text
    /// body, given the method and the era the request is in ([`NonPost`]).
    Intercept(fn(&NonPost) -> Option<(u16, &'static str)>),
    /// A capability the server neither declares nor serves, whatever `--capabilities` says
    /// (`; withholds data::LOGGING`).
    Withheld(&'static str),
    /// The protocol version initialize is answered with, and the session then speaks, given the
    /// version asked for and those the server supports, newest first (`; negotiates f`): by
    /// default the version asked for if it is supported, else the newest.
    Negotiated(fn(&str, &[&str], &mut String)),
}

/// A check the conformant server makes of what it receives, or a step it takes on what it
/// receives (cancelling a task, ending a session, filtering its log messages), which a quirk may
/// skip (`; waives Waiver::Origin`): the server asks [`Quirks::waives`] where it makes the check
/// or takes the step, and a quirk that skips it names it here, so that one check serves every
/// quirk (of any era) that leaves it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiver {
    /// HTTP: a request whose `Origin` is not allowed is refused with 403 (at every endpoint,
    /// the legacy transport's too).
    Origin,
    /// HTTP+SSE: the same on the legacy transport's endpoints.
    LegacySseOrigin,
    /// `notifications/cancelled` stops the request it names.
    Cancel,
    /// Streamable HTTP: an `MCP-Protocol-Version` the server does not speak gets 400.
    ProtocolVersionHeader,
    /// 2026-07-28 HTTP: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` must match the body.
    StatelessHeaders,
    /// 2026-07-28 HTTP: an argument marked `x-mcp-header` comes with its `Mcp-Param-*` header.
    ParamHeaders,
    /// 2026-07-28 HTTP: a request without `MCP-Protocol-Version` is compared with its body's
    /// version all the same (and refused).
    MissingProtocolHeader,
    /// 2026-07-28 HTTP: `Mcp-Name` must match the name the body routes by.
    NameHeader,
    /// Tasks extension over HTTP: `Mcp-Name` must match a tasks method's `taskId`.
    TaskNameHeader,
    /// 2026-07-28: a request carries `_meta` with its protocol version and capabilities.
    Meta,
    /// 2026-07-28: server/discover does too.
    DiscoverMeta,
    /// 2026-07-28: an `initialize` whose `_meta` names no protocol version (a handshake-era
    /// client's) gets -32022 naming the versions the server speaks (waived: it goes on to the
    /// `_meta` check like any request).
    LegacyInitialize,
    /// stdio: the server exits once its stdin closes.
    StdinEof,
    /// Streamable HTTP: a session id the server never issued gets 404 (one it ended does
    /// still, waived or not).
    UnknownSession,
    /// Streamable HTTP: a request other than initialize without `Mcp-Session-Id` gets 400.
    SessionHeader,
    /// 2026-07-28: the list-change fixtures notify every listen stream acknowledged for the
    /// list.
    ListChanges,
    /// 2026-07-28 tasks extension: a call's 2025-11-25 `task` member does not declare the
    /// extension (waived: it makes the call a task).
    LegacyTaskHint,
    /// 2026-07-28: a `_meta` logLevel is one of the levels.
    LogLevel,
    /// 2026-07-28: `inputResponses.roots` is a ListRootsResult.
    InputResponses,
    /// 2026-07-28 tasks extension: tasks/* come from a request that declares the extension.
    TasksExtension,
    /// 2025-11-25 tasks: a task-augmented call of a tool without task support gets -32601.
    TaskForbidden,
    /// 2025-11-25 tasks: a plain call of a tool that runs only as a task gets -32601.
    TaskRequired,
    /// A batch (a JSON array) is refused where the version has none.
    Batches,
    /// A request id that is an object gets -32600.
    ObjectId,
    /// A request id that is null gets -32600.
    NullId,
    /// `jsonrpc` must be `"2.0"` (a message that has the member at all is taken).
    JsonrpcVersion,
    /// 2026-07-28 HTTP: `Mcp-Method` matches the body's method in case too.
    MethodHeaderCase,
    /// 2026-07-28 HTTP: an `Mcp-Name` sentinel's Base64 is refused unless valid (the quirk's
    /// decoding skips what is outside the alphabet and does not check the length).
    Base64Sentinel,
    /// A protected resource: every request carries a valid token, one in a session too.
    TokenInSession,
    /// A protected resource: ping and server/discover carry a valid token too.
    PingToken,
    /// With `--auth`: a token is issued for this server (its audience names it).
    Audience,
    /// With `--auth`: a token is issued for this server alone (an audience that lists others
    /// too is refused).
    SoleAudience,
    /// 2025-11-25 tasks: cancelling a task that is over gets -32602.
    TerminalTaskCancel,
    /// tools/list pages by its cursor, and a cursor it never gave gets -32602 (the quirk serves
    /// the first page whatever the cursor).
    Cursor,
    /// 2025-11-25 tasks: a tasks/list cursor the server never gave gets -32602.
    TaskListCursor,
    /// 2025-11-25 tasks: tasks/cancel of a task that is not over cancels it.
    TaskCancel,
    /// 2026-07-28 tasks extension: the answers tasks/update carries are taken, and stop being
    /// outstanding.
    TaskUpdate,
    /// Log messages below the client's level are not sent: the level logging/setLevel set, or
    /// in the 2026-07-28 era the request's `_meta` level.
    SessionLogLevel,
    /// logging/setLevel with a valid level sets the session's log level.
    SetLevel,
    /// Handshake era: a session gets no log messages until logging/setLevel sets its level
    /// (waived: every level until then).
    LevelSet,
    /// 2026-07-28: a request whose `_meta` names no log level gets no log messages (waived:
    /// every level).
    LevelInMeta,
    /// Streamable HTTP: DELETE ends its session (later requests on it get 404).
    SessionDelete,
    /// 2026-07-28 tasks extension: listening for task status needs the extension (-32021).
    TaskListenExtension,
    /// 2026-07-28 tasks extension: a call whose request does not declare the extension is not
    /// made a task.
    UndeclaredTask,
    /// 2026-07-28 HTTP: an `Mcp-Name` or `Mcp-Param-*` value in the `=?base64?…?=` form is
    /// decoded before it is compared (the quirk compares the text as it came).
    SentinelDecoding,
    /// 2026-07-28 HTTP: an integer argument's `Mcp-Param-*` header is compared as a number (the
    /// quirk compares it with the argument's JSON text).
    NumericParamHeader,
}

/// A check of what the server receives that the conformant server does not make, which a quirk
/// may add (`; demands Demand::IntegerId`): the server asks [`Quirks::demands`] where it would
/// make it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demand {
    /// HTTP: a request carries no `Origin` at all (the server's own is refused too).
    NoOrigin,
    /// A request id is an integer (a string id gets -32600).
    IntegerId,
    /// Streamable HTTP: a request on a session whose version has the header carries
    /// `MCP-Protocol-Version` (else 400), although 2025-03-26 is supported.
    ProtocolHeader,
    /// 2026-07-28 HTTP: a call of `mcpcheck_region` carries `Mcp-Param-Region` even for a null
    /// or absent argument.
    ParamHeaderAlways,
    /// 2026-07-28 tasks extension: tasks/update answers only keys that are outstanding.
    OutstandingKeys,
    /// 2026-07-28 tasks extension: tasks/cancel is of a task that is not over (else -32602).
    LiveTaskCancel,
    /// A batch is refused on a 2025-03-26 session too.
    NoBatches,
    /// A protected resource: the metadata document is served only with a valid token.
    MetadataToken,
    /// A ping between the initialize result and notifications/initialized gets -32600.
    PingAfterInitialized,
    /// stdio: `notifications/cancelled` names a request in flight (else an error with id null
    /// answers it).
    KnownCancel,
    /// A connection asks for nothing the server serves before initialize, but ping (else
    /// initialize, too, gets -32600 on it).
    CleanStart,
    /// Streamable HTTP: a session has one call of the slow fixture tool at a time (another
    /// gets 409).
    OneSlowCall,
    /// 2026-07-28 HTTP: a POST carries no `Last-Event-ID` (else 400 with -32600).
    PostWithoutLastEventId,
}

/// A request at the MCP endpoint that is no POST, as an intercepting quirk sees it.
pub struct NonPost<'a> {
    /// The HTTP method (`GET`, `DELETE`, …).
    pub method: &'a str,
    /// Whether the server speaks the 2026-07-28 era.
    pub stateless: bool,
    /// Whether a server of both eras takes the request as one of the 2026-07-28 era (its
    /// protocol version, no session), which that era refuses with 405.
    pub stateless_request: bool,
}

impl NonPost<'_> {
    /// Whether the request is answered in the handshake era: neither the server nor the request
    /// is of the 2026-07-28 era.
    pub fn handshake(&self) -> bool {
        !self.stateless && !self.stateless_request
    }
}

/// A task whose work is over, as a quirk that settles its status sees it ([`Quirks::settled`]).
pub struct Settled<'a> {
    /// Whether it is a task of the 2026-07-28 tasks extension (else a 2025-11-25 task).
    pub extension: bool,
    /// Whether it was cancelled.
    pub cancelled: bool,
    /// What its work gave.
    pub outcome: &'a Outcome,
}

/// A quirk's change to the members of an object the server is about to send.
type MembersChange = fn(&mut Map<String, Value>);

/// The era a request is answered in: an answer's quirk may act in one only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// The handshake era (`initialize`, sessions).
    Handshake,
    /// The 2026-07-28 stateless era.
    Stateless,
}

/// How a protected server refuses a request without a valid token: the `WWW-Authenticate`
/// challenge, the status and the OAuth error body, and what of them is sent ([`Form`]), which a
/// quirk may change before they are sent.
pub struct Challenge {
    /// The scheme (`Bearer`).
    pub scheme: String,
    /// Its parameters in order, each sent as `name="value"`.
    pub params: Vec<(String, String)>,
    /// The HTTP status (401).
    pub status: u16,
    /// Whether the request carried a token (an invalid one).
    pub token_given: bool,
    /// The OAuth error code the refusal's body names (`None`: "unauthorized"); the challenge
    /// names it too unless a quirk drops it from `params`.
    pub error: Option<String>,
    /// The body's `error_description`.
    pub description: String,
    /// What the refusal is made of.
    pub form: Form,
}

/// What a refusal for want of a valid token is made of ([`Challenge::form`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The challenge in `WWW-Authenticate` and an OAuth error body (JSON), with the status.
    Challenged,
    /// A 401 with a plain-text body and no challenge.
    Bare,
    /// The OAuth error body with the status, and no challenge: a server error where a token
    /// verifier threw, say.
    Unchallenged,
}

impl Challenge {
    /// The `WWW-Authenticate` header's value.
    pub fn header(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(name, value)| format!("{name}=\"{value}\""))
            .collect();
        format!("{} {}", self.scheme, params.join(", "))
    }
}

/// Declares every quirk once: its variant, what it does (the doc comment), the rule it breaks, the
/// runs it shows in (`in stateless`, `in legacy_sse`; the handshake era over stdio and HTTP if not
/// given) and, for a quirk that is data, where it acts and the function that does it, once or more
/// for a quirk that acts in several places, each after a `;` ([`Acts`]: `; rewrites f`, `; lists
/// "tools" with f`, `; answers "prompts/get" with f`, `; serves "protected-resource" with f`,
/// `; enters f`, `; posts f`, `; heads f` (`; heads "sse" with f`, `"protected-resource"`),
/// `; challenges f`, `; decorates f`, `; replies f`, `; stateless_refuses f`, `; shows f`,
/// `; notifies "tools/list" with f`, `; asks "elicitation/create" with f`, `; opens
/// "subscriptions/listen" with f`, `; declares f`, `; writes f`, `; prints f`, `; intercepts f`,
/// `; encodes "stdio" with f`, `; status f`, `; names f`, `; locates "protected-resource" with f`,
/// `; waives Waiver::Origin`, `; demands Demand::IntegerId`, `; withholds data::LOGGING`,
/// `; negotiates f`, `; accepts f`, `; sends "endpoint" with f`, `; tells "notifications/message"
/// with f`, `; reports f`, `; settles f`, `; stocks f`, `; numbers f`, `; skill_answers
/// "resources/directory/read" with f`, `; acknowledges f`, `; greets f`). The command-line name
/// is derived
/// from the variant (`InitMissingServerInfo` is `init-missing-server-info`; a run of digits is a
/// word of its own), or given with `as`.
macro_rules! quirks {
    ($($(#[doc = $doc:literal])* $variant:ident $(as $name:literal)? $(in $modes:ident)? => $rule:literal $(; $how:ident $($($place:literal)|+ with)? $acts:path)*,)*) => {
        /// One deliberate deviation from the specification.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum Quirk {
            $($(#[doc = $doc])* $variant,)*
        }

        /// Every quirk, in declaration order, with the rule it breaks, its name if the variant's
        /// does not give it, the runs it shows in, and where it acts, if it is data.
        const DECLARED: &[(Quirk, &str, Option<&str>, Modes, &[Acts])] = &[$((
            Quirk::$variant,
            $rule,
            quirks!(@name $($name)?),
            quirks!(@modes $($modes)?),
            &[$(quirks!(@acts $how [$($($place),+)?] $acts)),*],
        ),)*];
    };
    (@name) => { None };
    (@name $name:literal) => { Some($name) };
    (@modes) => { Modes::Handshake };
    (@modes stateless) => { Modes::Stateless };
    (@modes legacy_sse) => { Modes::LegacySse };
    (@modes auth) => { Modes::Auth };
    (@modes stateless_auth) => { Modes::StatelessAuth };
    (@modes oauth) => { Modes::OAuth };
    (@modes legacy_auth) => { Modes::LegacyAuth };
    (@acts rewrites [] $f:path) => { Acts::Response($f) };
    (@acts lists [$place:literal] $f:path) => { Acts::Listing($place, $f) };
    (@acts answers [$($place:literal),+] $f:path) => { Acts::Answer(&[$($place),+], None, $f) };
    (@acts stateless_answers [$($place:literal),+] $f:path) => {
        Acts::Answer(&[$($place),+], Some(Era::Stateless), $f)
    };
    (@acts handshake_answers [$($place:literal),+] $f:path) => {
        Acts::Answer(&[$($place),+], Some(Era::Handshake), $f)
    };
    (@acts serves [$place:literal] $f:path) => { Acts::Document($place, $f) };
    (@acts enters [] $f:path) => { Acts::SkillEntry($f) };
    (@acts posts [] $f:path) => { Acts::Posted($f) };
    (@acts heads [] $f:path) => { Acts::Headers("json", $f) };
    (@acts heads [$place:literal] $f:path) => { Acts::Headers($place, $f) };
    (@acts challenges [] $f:path) => { Acts::Challenge($f) };
    (@acts decorates [] $f:path) => { Acts::Decorated($f) };
    (@acts replies [] $f:path) => { Acts::Reply($f) };
    (@acts stateless_refuses [] $f:path) => { Acts::Refusal($f) };
    (@acts shows [] $f:path) => { Acts::TaskView($f) };
    (@acts notifies [$($place:literal),+] $f:path) => { Acts::Notice(&[$($place),+], $f) };
    (@acts asks [$($place:literal),+] $f:path) => { Acts::Ask(&[$($place),+], $f) };
    (@acts opens [$place:literal] $f:path) => { Acts::Opening($place, $f) };
    (@acts declares [] $f:path) => { Acts::Declared($f) };
    (@acts writes [] $f:path) => { Acts::Written($f) };
    (@acts prints [] $f:path) => { Acts::Printed($f) };
    (@acts intercepts [] $f:path) => { Acts::Intercept($f) };
    (@acts encodes [$place:literal] $f:path) => { Acts::Encoded($place, $f) };
    (@acts status [] $f:path) => { Acts::Status($f) };
    (@acts names [] $f:path) => { Acts::SessionId($f) };
    (@acts numbers [] $f:path) => { Acts::StreamNumber($f) };
    (@acts locates [$place:literal] $f:path) => { Acts::Location($place, $f) };
    (@acts accepts [] $f:path) => { Acts::Token($f) };
    (@acts sends [$place:literal] $f:path) => { Acts::Event($place, $f) };
    (@acts tells [$place:literal] $f:path) => { Acts::Told($place, $f) };
    (@acts reports [] $f:path) => { Acts::Progress($f) };
    (@acts stocks [] $f:path) => { Acts::Stocks($f) };
    (@acts skill_answers [$($place:literal),+] $f:path) => { Acts::SkillAnswer(&[$($place),+], $f) };
    (@acts acknowledges [] $f:path) => { Acts::CancelResult($f) };
    (@acts greets [] $f:path) => { Acts::Greeting($f) };
    (@acts settles [] $f:path) => { Acts::Settle($f) };
    (@acts waives [] $check:path) => { Acts::Waive($check) };
    (@acts demands [] $check:path) => { Acts::Demand($check) };
    (@acts withholds [] $capability:path) => { Acts::Withheld($capability) };
    (@acts negotiates [] $f:path) => { Acts::Negotiated($f) };
}

/// The runs a quirk shows in: the era the server speaks and the transports it is reached over.
/// The self-test runs the whole library once per run a quirk names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modes {
    /// The handshake era, over stdio and over Streamable HTTP.
    Handshake,
    /// The 2026-07-28 stateless era (`--stateless`), over stdio and over Streamable HTTP.
    Stateless,
    /// The 2024-11-05 HTTP+SSE transport only.
    LegacySse,
    /// Streamable HTTP as a protected resource (`--static-token`), the client holding the token.
    Auth,
    /// The same in the 2026-07-28 stateless era (`--stateless --static-token`).
    StatelessAuth,
    /// Streamable HTTP as the resource server of a real authorization server (`--auth ISSUER`),
    /// the client getting its token with the client credentials grant.
    OAuth,
    /// Streamable HTTP as a protected resource (`--static-token`) judged at 2025-03-26, whose
    /// authorization took the MCP server's own origin for the authorization server.
    LegacyAuth,
}

impl Modes {
    /// The name `--list-quirks` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Modes::Handshake => "handshake",
            Modes::Stateless => "stateless",
            Modes::LegacySse => "legacy-sse",
            Modes::Auth => "auth",
            Modes::StatelessAuth => "stateless-auth",
            Modes::OAuth => "oauth",
            Modes::LegacyAuth => "legacy-auth",
        }
    }
}

quirks! {
    /// Error responses that answer no readable request id (id null) name the id "server-error".
    NullIdErrorsNamed => "an error answering no readable id carries id null (JSON-RPC; over HTTP, the id of a refusal's body is stated by neither: a warning)"; rewrites data::null_id_named,
    /// `initialize` answers without `serverInfo`.
    InitMissingServerInfo => "initialize result MUST carry serverInfo (schema)"; answers "initialize" with data::without_server_info,
    /// `initialize` answers with the next older version instead of echoing a supported one.
    VersionNoEcho => "a supported requested version MUST be echoed (lifecycle)"; negotiates data::older_version,
    /// `initialize` echoes any requested version, even one the server does not know.
    EchoUnsupportedVersion => "an unsupported version MUST be answered with a supported one (lifecycle)"; negotiates data::unsupported_echoed,
    /// `notifications/initialized` is answered as if it were a request.
    AnswerInitialized => "notifications/initialized MUST NOT be answered"; replies data::initialized_answered,
    /// `ping` is answered with a method-not-found error.
    PingError => "ping MUST be answered with an empty result"; answers "ping" with data::ping_error,
    /// Reading an unknown resource succeeds with an empty `contents` array.
    MissingResourceEmptyContents => "an unknown resource MUST NOT be read as empty contents (SEP-2164)"; answers "resources/read" with data::missing_resource_empty,
    /// Reading an unknown resource fails with -32603 (internal error).
    MissingResourceInternalError => "an unknown resource MUST give -32602 (SEP-2164)"; answers "resources/read" with data::missing_resource_internal_error,
    /// The not-found error for an unknown resource carries no `data.uri`.
    MissingResourceNoDataUri => "the not-found error SHOULD carry data.uri (SEP-2164; before 2026-07-28 only an example shows it)"; answers "resources/read" with data::missing_resource_no_data,
    /// 2026-07-28: the not-found error for an unknown resource carries no `data.uri`.
    StatelessMissingResourceNoDataUri in stateless => "2026-07-28: the not-found error SHOULD carry data.uri (SEP-2164)"; answers "resources/read" with data::missing_resource_no_data,
    /// Calling an unknown tool gives a result with `isError: true` instead of a protocol error.
    UnknownToolIsError => "an unknown tool SHOULD be a protocol error, not isError"; answers "tools/call" with data::unknown_tool_is_error,
    /// Calling an unknown tool gives a plain success.
    UnknownToolSuccess => "an unknown tool MUST NOT succeed"; answers "tools/call" with data::unknown_tool_success,
    /// The tool that returns nothing answers with `content: null`.
    EmptyResultNullContent => "a tool result MUST have a content array"; answers "tools/call" with data::empty_null_content,
    /// The tool that returns nothing marks its result `isError: true`.
    EmptyResultIsError => "a tool that succeeded MUST NOT set isError"; answers "tools/call" with data::empty_is_error,
    /// An unparsable frame gets -32603 instead of -32700.
    ParseErrorWrongCode => "an unparsable frame MUST get -32700 (JSON-RPC 2.0)"; rewrites data::parse_error_code,
    /// After answering an unparsable frame the server stops serving (stdio: exits; HTTP: drops the session).
    ExitOnParseError => "the server MUST keep serving after a malformed frame",
    /// A request with `"jsonrpc": "1.0"` is processed.
    AcceptJsonrpc1 => "jsonrpc MUST be \"2.0\"; anything else is -32600"; waives Waiver::JsonrpcVersion,
    /// The empty object `{}` gets -32601 instead of -32600.
    EmptyObjectMethodNotFound => "{} is not a request and MUST get -32600"; replies data::empty_object_method_not_found,
    /// A request whose id is an object is processed.
    ObjectIdAccepted => "an id MUST be a string or integer; an object id is -32600"; waives Waiver::ObjectId,
    /// An unknown method gets -32000 instead of -32601.
    UnknownMethodWrongCode => "an unknown method MUST get -32601"; rewrites data::unknown_method_code,
    /// A response from the client that answers no request of the server's is answered with an
    /// error.
    AnswerStrayResponse => "a response that answers no request SHOULD NOT be answered (derived)"; replies data::stray_response_answered,
    /// An unknown notification is answered with an error.
    AnswerUnknownNotification => "a notification MUST NOT be answered"; replies data::unknown_notification_answered,
    /// stdio: a banner line is printed on stdout before any message.
    StdoutBanner => "stdout MUST carry only MCP messages (stdio)"; greets data::banner,
    /// stdio, 2026-07-28: every response is pretty-printed over several lines, server/discover's
    /// too (a client must still tell the era, then flag the framing).
    StatelessPrettyPrint in stateless => "messages MUST NOT contain embedded newlines (stdio), in the 2026-07-28 era too"; prints data::pretty,
    /// stdio: the response to `ping` is pretty-printed over several lines.
    PrettyPrintPing => "messages MUST NOT contain embedded newlines (stdio)"; prints data::pretty_ping,
    /// Error responses lack the `"jsonrpc": "2.0"` member.
    JsonrpcMissingOnErrors => "every message MUST carry \"jsonrpc\": \"2.0\""; rewrites data::no_jsonrpc_on_errors,
    /// HTTP: an error answered in a JSON body (HTTP 200) leaves out its `id`.
    HttpErrorsWithoutId => "a response MUST carry the id of the request it answers (JSON-RPC)"; posts data::http_error_without_id,
    /// 2026-07-28 HTTP: an error sent with a 4xx status (-32602, -32601, -32020, …, each
    /// answering a request that was read) leaves out its `id`.
    StatelessRefusalsWithoutId in stateless => "a response MUST carry the id of the request it answers (JSON-RPC); over HTTP with a 4xx status neither MCP nor JSON-RPC states it: a warning"; posts data::refusal_without_id,
    /// stdio: an error response leaves out its `id` (a parse error's id null included).
    StdioErrorsWithoutId => "a response MUST carry the id of the request it answers (JSON-RPC)"; writes data::stdio_error_without_id,
    /// A request with id 0 is answered with id null.
    ZeroIdNull => "a response MUST echo the request id with its type"; rewrites data::zero_id_null,
    /// Error responses also carry `"result": null`.
    ErrorWithNullResult => "a response MUST carry exactly one of result and error"; rewrites data::null_result_on_errors,
    /// The -32601 error has no `message`.
    MethodNotFoundNoMessage => "an error MUST carry an integer code and a string message"; rewrites data::no_message_on_32601,
    /// stdio: the server keeps running after its stdin is closed.
    IgnoreStdinEof => "a stdio server SHOULD exit when its stdin closes"; waives Waiver::StdinEof,
    /// A request with a string id is refused with -32600.
    StringIdRejected => "a request id MAY be a string; refusing string ids breaks clients"; demands Demand::IntegerId,
    /// A JSON-RPC batch is processed at every version, not only at 2025-03-26.
    AcceptBatches => "batches were removed in 2025-06-18 and MUST be refused"; waives Waiver::Batches,
    /// A cursor the server never issued is ignored (the first page is served).
    InvalidCursorIgnored => "an invalid cursor SHOULD get -32602"; waives Waiver::Cursor,
    /// `logging/setLevel` accepts any level.
    SetLevelAcceptsAnything => "an invalid log level SHOULD get -32602"; answers "logging/setLevel" with data::any_level_accepted,
    /// HTTP: the Origin header is not validated.
    NoOriginCheck => "a foreign Origin MUST be refused with 403 (DNS rebinding)"; waives Waiver::Origin,
    /// HTTP: the MCP-Protocol-Version header is not validated.
    IgnoreProtocolVersionHeader => "an invalid MCP-Protocol-Version MUST get 400"; waives Waiver::ProtocolVersionHeader,
    /// The first tool's inputSchema has no `type`.
    ToolInputSchemaWithoutType => "a tool's inputSchema MUST be of type object (schema)"; lists "tools" with data::first_tool_schema_without_type,
    /// The first resource has no `name`.
    ResourceWithoutName => "a resource MUST have a name (schema)"; lists "resources" with data::first_without_name,
    /// An unknown prompt is served as an empty list of messages.
    UnknownPromptEmptyResult => "an unknown prompt SHOULD get -32602"; answers "prompts/get" with data::unknown_prompt_empty,
    /// The first prompt has no `name`.
    PromptWithoutName => "a prompt MUST have a name (schema)"; lists "prompts" with data::first_without_name,
    /// The resource template has no `uriTemplate`.
    TemplateWithoutUriTemplate => "a resource template MUST have a uriTemplate (schema)"; lists "resourceTemplates" with data::first_template_without_uri_template,
    /// Reading a text resource returns both `text` and `blob`.
    ReadTextAndBlob => "resource contents MUST be text or blob, not both (schema)"; answers "resources/read" with data::first_text_and_blob,
    /// Every text resource but the first listed one is read with a blob beside its text (only
    /// reading beyond the first listed resource, across pages, finds it).
    LaterResourceTextAndBlob => "resource contents MUST be text or blob, not both, in every resource (schema)"; answers "resources/read" with data::later_text_and_blob,
    /// The `greeting` prompt is produced without its required argument `name`.
    PromptMissingArgumentServed => "a prompt without a required argument SHOULD get -32602"; answers "prompts/get" with data::greeting_without_name,
    /// The `plain` prompt's message has the role `system`.
    PromptMessageBadRole => "a prompt message's role MUST be user or assistant (schema)"; answers "prompts/get" with data::plain_prompt_system_role,
    /// Completing the `greeting` prompt's argument gives 101 values.
    CompletionTooManyValues => "completion values MUST NOT exceed 100 items (schema)"; answers "completion/complete" with data::greeting_101_values,
    /// Completion for an unknown prompt offers an empty list.
    CompletionUnknownRefEmpty => "completion for an unknown prompt SHOULD get -32602"; answers "completion/complete" with data::completion_refused_empty,
    /// The structured tool returns its sum as a string, against its outputSchema.
    StructuredContentMismatch => "structuredContent MUST validate against the outputSchema"; answers "tools/call" with data::structured_sum_string,
    /// A tools/call without a name gets -32603.
    MalformedCallInternalError => "invalid params MUST get -32602 (JSON-RPC 2.0)"; answers "tools/call" with data::nameless_call_internal_error,
    /// HTTP: GET is answered 200 with a plain-text body instead of an SSE stream or 405.
    Get200Plain => "GET MUST give an SSE stream or 405 (Streamable HTTP)"; intercepts data::get_200_plain,
    /// A request whose id is null is processed.
    NullIdAccepted => "a request id MUST NOT be null"; waives Waiver::NullId,
    /// The first tool's name contains a space.
    ToolNameWithSpace => "tool names SHOULD use only A-Z a-z 0-9 _ - . (SEP-986)"; lists "tools" with data::first_tool_name_with_space,
    /// The first resource's uri has no scheme.
    ResourceUriWithoutScheme => "a resource uri MUST be a URI (RFC 3986)"; lists "resources" with data::first_uri_without_scheme,
    /// HTTP: DELETE answers 200 but the session lives on.
    SessionsSurviveDelete => "a terminated session MUST get 404 (Streamable HTTP)"; waives Waiver::SessionDelete,
    /// HTTP: DELETE answers 500.
    Delete500 => "DELETE SHOULD end the session (2xx) or be refused with 405"; intercepts data::delete_500,
    /// HTTP: a request under a session id the server never issued is served (on a throwaway
    /// session) instead of refused with 404.
    SessionUnknownServed => "a session id the server does not know SHOULD get 404 (derived from the session rules)"; waives Waiver::UnknownSession,
    /// HTTP: a request without a session id is served (on a throwaway session).
    SessionOptional => "a request without the issued session id SHOULD get 400"; waives Waiver::SessionHeader,
    /// The slow tool's progress goes down instead of up.
    ProgressDecreasing => "progress MUST increase with each notification"; reports data::progress_reversed,
    /// HTTP: an accepted notification gets 200 instead of 202.
    Notification200 => "an accepted notification MUST get HTTP 202 (Streamable HTTP)"; status data::acknowledged_200,
    /// HTTP: JSON responses are labelled `Content-Type: text/plain`.
    ContentTypeTextPlain => "a response MUST be application/json or text/event-stream (Streamable HTTP)"; heads data::json_as_text_plain,
    /// Stateless: results (other than `server/discover`'s) carry no `resultType`.
    StatelessNoResultType in stateless => "2026-07-28: every result MUST carry resultType"; decorates data::no_result_type,
    /// Stateless: the `server/discover` result's `_meta` has no serverInfo.
    StatelessNoServerInfo in stateless => "2026-07-28: the discover result SHOULD carry serverInfo in _meta"; decorates data::discover_without_server_info,
    /// Stateless: the `server/discover` result has no `ttlMs` / `cacheScope`.
    StatelessDiscoverNoCacheHints in stateless => "2026-07-28: the discover result MUST carry ttlMs and cacheScope (schema)"; answers "server/discover" with data::discover_without_cache_hints,
    /// 2026-07-28: the discover result carries no `supportedVersions`.
    StatelessDiscoverNoSupportedVersions in stateless => "2026-07-28: the discover result MUST list supportedVersions (schema); a client judges such a server in its era rather than falling back to initialize"; answers "server/discover" with data::discover_without_versions,
    /// 2026-07-28: server/discover is refused with -32021, as if it needed a client capability.
    StatelessDiscoverRequiresCapability in stateless => "2026-07-28: server/discover MUST be implemented (answered with a DiscoverResult); a refusal with -32021 still shows a 2026-07-28 server"; answers "server/discover" with data::discover_requires_capability,
    /// Stateless: list and read results have no `ttlMs` / `cacheScope`.
    StatelessNoCacheHints in stateless => "2026-07-28: list and read results MUST carry ttlMs and cacheScope (schema)"; decorates data::no_cache_hints,
    /// Stateless: a request without `_meta` version or capabilities is served as the latest version.
    StatelessMetaOptional in stateless => "2026-07-28: a request without _meta protocolVersion/clientCapabilities MUST get -32602"; waives Waiver::Meta,
    /// Stateless: a request without `_meta` clientInfo is refused with -32602.
    StatelessRequireClientInfo in stateless => "2026-07-28: _meta clientInfo is optional; a request without it MUST be served"; stateless_refuses data::client_info_required,
    /// Stateless: -32022 for an unsupported version carries no `data`.
    StatelessUnsupportedVersionNoData in stateless => "2026-07-28: -32022 MUST carry data.supported and data.requested"; rewrites data::unsupported_version_without_data,
    /// Stateless: `ping` (removed in 2026-07-28) is still answered.
    StatelessAnswerRemoved in stateless => "2026-07-28: ping was removed; a stateless-only server MUST answer -32601"; answers "ping" with data::ping_answered,
    /// 2026-07-28 HTTP: the Mcp-Method header is compared with the body's method ignoring case.
    StatelessMethodHeaderAnyCase in stateless => "2026-07-28 HTTP: an Mcp-Method value that differs from the method, if only in case, MUST get 400 with -32020"; waives Waiver::MethodHeaderCase,
    /// 2026-07-28: server/discover is answered without `_meta`.
    StatelessDiscoverMetaOptional in stateless => "2026-07-28: server/discover without _meta MUST get -32602 like any request"; waives Waiver::DiscoverMeta,
    /// 2026-07-28: resources/subscribe and resources/unsubscribe are answered with an empty result.
    StatelessAnswerSubscribe in stateless => "2026-07-28: resources/subscribe and unsubscribe were removed; a stateless-only server MUST answer -32601"; stateless_answers "resources/subscribe" | "resources/unsubscribe" with data::subscribe_answered,
    /// Stateless, HTTP: every JSON-RPC error comes with HTTP 200.
    StatelessHttpErrors200 in stateless => "2026-07-28 HTTP: -32602/-32022/-32020 MUST come with 400, -32601 with 404"; status data::answered_200,
    /// Stateless, HTTP: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` are not checked.
    StatelessIgnoreHeaders in stateless => "2026-07-28 HTTP: MCP-Protocol-Version and Mcp-Method MUST match the body (else 400, -32020)"; waives Waiver::StatelessHeaders,
    /// The official fixtures `test_image_content` and `test_prompt_with_image` return an image
    /// block without `mimeType`.
    EverythingImageWithoutMimeType => "an image content block MUST carry data and mimeType (schema)"; answers "tools/call" | "prompts/get" with data::image_without_mime_type,
    /// The official fixture `test_error_handling` fails with -32603 instead of an `isError` result.
    EverythingErrorAsProtocolError => "a tool's execution error SHOULD be a result with isError, not a JSON-RPC error"; answers "tools/call" with data::tool_error_as_protocol_error,
    /// Reading `test://template/{id}/data` returns content that does not mention the id.
    EverythingTemplateIgnoresId => "a resource read through a template MUST be the resource the URI names"; answers "resources/read" with data::template_without_id,
    /// `test_prompt_with_arguments` leaves its arguments out of the text.
    EverythingPromptIgnoresArguments => "prompts/get MUST use the arguments given"; answers "prompts/get" with data::arguments_ignored,
    /// Any successful completion answers `{"completion": {}}`, without `values`.
    EverythingCompletionWithoutValues => "a completion result MUST carry completion.values (schema)"; answers "completion/complete" with data::completion_without_values,
    /// `test_prompt_with_arguments` is produced even without its required `arg2`.
    EverythingPromptMissingArgumentServed => "a missing required prompt argument SHOULD get -32602"; answers "prompts/get" with data::arguments_prompt_without_arg2,
    /// Stateless, HTTP: GET is answered 200 instead of 405.
    StatelessGetAllowed in stateless => "2026-07-28 HTTP: GET and DELETE SHOULD get 405 (POST only)"; intercepts data::stateless_get_allowed,
    /// Stateless, HTTP: responses carry an `Mcp-Session-Id` header.
    StatelessSessionId in stateless => "2026-07-28 HTTP: responses SHOULD carry no Mcp-Session-Id",
    /// Tool calls log at info whatever level the client set.
    LogLevelIgnored => "after logging/setLevel the server SHOULD send only messages at or above that level"; waives Waiver::SessionLogLevel,
    /// The first tool's inputSchema is not a valid JSON Schema (a property of type "strin").
    ToolInputSchemaInvalid => "a tool's inputSchema MUST be a valid JSON Schema"; lists "tools" with data::first_tool_schema_invalid,
    /// HTTP: SSE responses start straight with a message, without a priming event.
    SseNoPriming => "an SSE stream SHOULD start with an event id and empty data (2025-11-25)"; sends "priming" with data::no_priming,
    /// HTTP: session ids contain a space.
    SessionIdWithSpace => "a session id MUST hold only visible ASCII (0x21-0x7E)"; names data::session_id_with_space,
    /// `tools` is not declared, but tools are served.
    ToolsServedUndeclared => "a server MUST declare the tools capability to serve tools"; declares data::without_tools,
    /// `resources` is not declared, but resources are served.
    ResourcesServedUndeclared => "a server MUST declare the resources capability to serve resources"; declares data::without_resources,
    /// `prompts` is not declared, but prompts are served.
    PromptsServedUndeclared => "a server MUST declare the prompts capability to serve prompts"; declares data::without_prompts,
    /// A log message notification lacks `data`.
    LogMessageWithoutData => "a log message MUST carry level and data (schema)"; tells "notifications/message" with data::without_data,
    /// The second listed resource's URI holds a malformed percent-escape.
    ResourceUriBadEscape => "a resource uri MUST be an RFC 3986 URI"; lists "resources" with data::second_uri_bad_escape,
    /// Binary payloads (blobs, image and audio data) lose their `=` padding.
    BlobUnpadded => "binary data MUST be properly base64-encoded (RFC 4648)"; rewrites data::unpad_results,
    /// tools/list names the first tool twice (a copy is listed last).
    ToolNameDuplicate => "tool names SHOULD be unique"; lists "tools" with data::first_tool_twice,
    /// After the response to a call with a progress token, one more progress notification follows (stdio).
    ProgressAfterResponse => "progress MUST only reference active requests",
    /// With roots/list the server also asks for sampling/createMessage, which the client did not declare.
    ServerSendsSampling => "server requests MUST respect the client's capabilities"; opens "roots/list" with data::sampling_unasked,
    /// roots/list is asked twice with the same request id.
    ServerRequestIdReused => "a request id MUST NOT be reused within a session"; opens "roots/list" with data::roots_id_reused,
    /// 2026-07-28: a missing resource gets the retired -32002.
    StatelessLegacyNotFoundCode in stateless => "2026-07-28: -32002 is retired; a missing resource MUST get -32602"; stateless_answers "resources/read" with data::not_found_32002,
    /// `notifications/cancelled` is ignored: the cancelled call still answers (stdio).
    IgnoreCancel => "a cancelled request SHOULD get no response"; waives Waiver::Cancel,
    /// 2026-07-28: `notifications/cancelled` is ignored: the cancelled call still answers (stdio).
    StatelessIgnoreCancel in stateless => "2026-07-28 stdio: after cancellation the server MUST send nothing more for the request"; waives Waiver::Cancel,
    /// Cancelling an unknown request id is answered with an error.
    CancelUnknownError => "cancelling an unknown id SHOULD be ignored"; demands Demand::KnownCancel,
    /// resources/subscribe and resources/unsubscribe fail although `subscribe` is declared.
    SubscribeError => "a declared subscribe capability MUST be served"; answers "resources/subscribe" | "resources/unsubscribe" with data::subscription_failed,
    /// After a feature request before `initialize`, `initialize` itself is refused.
    PreInitBreaksInitialize => "initialize MUST be answered with the server's capabilities, even after a premature request"; demands Demand::CleanStart,
    /// A file:// URI with `..` segments is read (as a fake /etc/passwd).
    ResourceTraversal => "resource URIs MUST be validated; traversal MUST be refused"; answers "resources/read" with data::traversal_read,
    /// 2026-07-28 HTTP: the Mcp-Name header is not compared with the body.
    StatelessIgnoreMcpName in stateless => "2026-07-28 HTTP: Mcp-Name MUST match the body's name, else 400 with -32020"; waives Waiver::NameHeader,
    /// 2026-07-28 HTTP: Mcp-Name and Mcp-Param-* are compared literally; the Base64 sentinel is
    /// not decoded.
    StatelessNoBase64Sentinel as "stateless-no-base64-sentinel" in stateless => "2026-07-28 HTTP: an Mcp-Name in the =?base64?...?= form MUST be decoded before comparing"; waives Waiver::SentinelDecoding,
    /// 2026-07-28 HTTP: an Mcp-Name sentinel with invalid Base64 is decoded leniently (characters
    /// outside the alphabet skipped, length not checked) instead of refused.
    StatelessLenientBase64Sentinel as "stateless-lenient-base64-sentinel" in stateless => "2026-07-28 HTTP: invalid Base64 in an Mcp-Name sentinel MUST be refused with 400 and -32020"; waives Waiver::Base64Sentinel,
    /// `mcpcheck_echo` runs without its required `text` and succeeds.
    InvalidArgumentsAccepted => "tool inputs MUST be validated; invalid arguments are refused (isError from 2025-11-25)"; answers "tools/call" with data::echo_without_text_accepted,
    /// 2026-07-28: tool calls log at debug and up even without `_meta` logLevel.
    StatelessLogWithoutLevel in stateless => "2026-07-28: no notifications/message for a request without _meta logLevel"; waives Waiver::LevelInMeta,
    /// 2026-07-28: an unknown `_meta` logLevel is accepted.
    StatelessLogLevelUnchecked in stateless => "2026-07-28: an invalid _meta logLevel SHOULD get -32602"; waives Waiver::LogLevel,
    /// 2026-07-28: -32021's `data.requiredCapabilities` is an array of names, not a
    /// ClientCapabilities object.
    StatelessRequiredCapabilitiesArray in stateless => "2026-07-28: -32021 data.requiredCapabilities MUST be a ClientCapabilities object"; answers "tools/call" with data::required_capabilities_array,
    /// 2026-07-28: every page of tools/list after the first lists its tools in another order
    /// on each answer (the first page stays the same).
    StatelessToolsLaterPageUnstable in stateless => "2026-07-28: tools/list SHOULD be deterministic, on every page"; answers "tools/list" with data::later_page_unstable,
    /// 2026-07-28 (stdio): a connection whose first message was server/discover (as mcpcheck's
    /// main connection's is) is listed one resource fewer than any other, as with a list kept
    /// per connection.
    StatelessResourcesPerConnection in stateless => "2026-07-28: list results MUST NOT vary per connection",
    /// 2026-07-28: once a request declared the `roots` capability, a later read of
    /// `mcpcheck://roots` that does not declare it asks for the roots anyway.
    StatelessRootsCarryover in stateless => "2026-07-28: a capability is declared per request; one declared earlier MUST NOT be assumed",
    /// 2026-07-28: every tools/list answers the tools in a new order (rotated by one).
    StatelessToolsOrderUnstable in stateless => "2026-07-28: tools/list SHOULD list tools in a deterministic order"; answers "tools/list" with data::order_unstable,
    /// 2026-07-28: a listed tool marks a `number` property with `x-mcp-header`.
    StatelessXMcpHeaderOnNumber in stateless => "2026-07-28: x-mcp-header MUST only mark integer, string or boolean properties"; lists "tools" with data::header_on_number,
    /// SSE event ids restart at 0 on every stream, so streams of one session share them.
    SseEventIdsPerStream => "SSE event ids MUST be unique across all streams of a session"; numbers data::stream_zero,
    /// HTTP: a call of the slow fixture tool while another is in progress on the same session
    /// gets 409 Conflict.
    OneStreamPerSession => "a client MAY keep several streams open; concurrent requests MUST each be answered"; demands Demand::OneSlowCall,
    /// 2026-07-28: the acknowledgement of `subscriptions/listen` carries no subscriptionId.
    StatelessListenUntagged in stateless => "2026-07-28: every notification on a listen stream MUST carry its subscriptionId"; opens "subscriptions/listen" with data::untagged_ack,
    /// tasks/get and tasks/result of an unknown task answer -32603 instead of -32602.
    TaskUnknownIdInternal => "2025-11-25 tasks: an unknown taskId MUST get -32602 (here -32603)"; handshake_answers "tasks/get" | "tasks/result" | "tasks/cancel" with data::unknown_task_internal,
    /// A CreateTaskResult's task has no createdAt or lastUpdatedAt.
    TaskCreatedWithoutTimestamps => "2025-11-25 tasks: a task MUST carry createdAt and lastUpdatedAt"; answers "tools/call" with data::created_task_without_timestamps,
    /// Tasks are shown without their ttl.
    TaskWithoutTtl => "2025-11-25 tasks: tasks/get MUST include the actual ttl"; shows data::task_without_ttl,
    /// tasks/result answers without the related-task metadata.
    TaskResultUnrelated => "2025-11-25 tasks: tasks/result MUST carry io.modelcontextprotocol/related-task"; handshake_answers "tasks/result" with data::result_unrelated,
    /// tasks/result answers at once, with empty content, while the task still works.
    TaskResultEarly => "2025-11-25 tasks: tasks/result MUST block until the task is terminal",
    /// tasks/cancel of a working task answers with the task still working, and it goes on.
    TaskCancelIgnored => "2025-11-25 tasks: a valid cancel MUST move the task to cancelled before responding"; waives Waiver::TaskCancel,
    /// tasks/cancel of a finished task answers with the task.
    TaskCancelTerminalAccepted => "2025-11-25 tasks: cancelling a terminal task MUST get -32602"; waives Waiver::TerminalTaskCancel,
    /// tasks/list lists no tasks.
    TaskListEmpty => "2025-11-25 tasks: a task retrievable with tasks/get MUST be listed by tasks/list"; answers "tasks/list" with data::no_tasks_listed,
    /// tasks/list ignores a cursor it never issued.
    TaskListCursorIgnored => "2025-11-25 tasks: an invalid tasks/list cursor MUST get -32602"; waives Waiver::TaskListCursor,
    /// A cancelled task reports completed once its work would have ended.
    TaskCancelledCompletes => "2025-11-25 tasks: a terminal status MUST NOT change (cancelled stays cancelled)"; settles data::cancelled_completes,
    /// A tool that requires a task also runs as a plain call.
    TaskRequiredPlainAccepted => "2025-11-25 tasks: a plain call of a tool whose taskSupport is required MUST get -32601"; waives Waiver::TaskRequired,
    /// A tool without execution.taskSupport also runs as a task.
    TaskForbiddenAccepted => "2025-11-25 tasks: a task-augmented call of a tool without taskSupport SHOULD get -32601"; waives Waiver::TaskForbidden,
    /// A task reports its progress under its taskId instead of the request's progressToken.
    TaskProgressTaskId => "2025-11-25 tasks: a task's progress MUST use the progressToken of the request that made it"; tells "notifications/progress" with data::progress_under_task_id,
    /// A task that is over sends one more progress notification, with the next request about it.
    TaskProgressAfterTerminal => "2025-11-25 tasks: progress for a task MUST stop once the task is terminal",
    /// 2026-07-28: the list-change fixtures announce nothing to the subscriptions listening.
    StatelessListChangeSilent in stateless => "2026-07-28: a listen stream for toolsListChanged/promptsListChanged SHOULD deliver a change"; waives Waiver::ListChanges,
    /// 2026-07-28, tasks extension: a CreateTaskResult comes in a 2025-11-25 `task` wrapper.
    ExtTaskNested in stateless => "2026-07-28 tasks extension: a CreateTaskResult MUST be flat (Result & Task)"; stateless_answers "tools/call" with data::task_handle_nested,
    /// 2026-07-28, tasks extension: tasks/get answers with resultType "task".
    ExtTaskGetResultTypeTask in stateless => "2026-07-28 tasks extension: tasks/get MUST set resultType \"complete\""; stateless_answers "tasks/get" with data::task_view_typed_task,
    /// 2026-07-28, tasks extension: tasks/get of a completed task leaves out its result.
    ExtTaskResultNotInlined in stateless => "2026-07-28 tasks extension: tasks/get of a completed task MUST inline its result"; stateless_answers "tasks/get" | "tasks/cancel" with data::ext_task_result_not_inlined,
    /// 2026-07-28, tasks extension: a CreateTaskResult goes to a request that did not declare the extension.
    ExtTaskUndeclaredHandle in stateless => "2026-07-28 tasks extension: no CreateTaskResult to a request that did not declare the extension"; waives Waiver::UndeclaredTask,
    /// 2026-07-28, tasks extension: a tool that runs only as a task answers -32601 to a request without the extension.
    ExtTaskRequiredWrongError in stateless => "2026-07-28 tasks extension: a tool that needs a task MUST get -32021 naming the extension"; answers "tools/call" with data::task_required_method_not_found,
    /// 2026-07-28, tasks extension: tasks/get, tasks/update and tasks/cancel are served to requests without the extension.
    ExtTaskServesUndeclared in stateless => "2026-07-28 tasks extension: tasks/* from a request without the extension MUST get -32021"; waives Waiver::TasksExtension,
    /// 2026-07-28, tasks extension: an unknown taskId gets -32603.
    ExtTaskUnknownInternal in stateless => "2026-07-28 tasks extension: an unknown taskId MUST (tasks/get) or SHOULD get -32602"; stateless_answers "tasks/get" | "tasks/update" | "tasks/cancel" with data::unknown_task_internal,
    /// 2026-07-28, tasks extension: tasks/cancel answers with the task.
    ExtTaskCancelReturnsTask in stateless => "2026-07-28 tasks extension: tasks/cancel MUST answer with an empty acknowledgement"; acknowledges data::cancel_returns_task,
    /// 2026-07-28, tasks extension: tasks/update refuses a response under a key that is not outstanding.
    ExtTaskUpdateUnknownKeyRefused in stateless => "2026-07-28 tasks extension: responses to keys not outstanding SHOULD be ignored"; demands Demand::OutstandingKeys,
    /// 2026-07-28, tasks extension: a task whose tool reported isError ends failed.
    ExtTaskToolErrorFailed in stateless => "2026-07-28 tasks extension: a tool error is a completed task, never failed"; settles data::tool_error_failed,
    /// 2026-07-28, tasks extension: a failed task leaves out its error.
    ExtTaskFailedWithoutError in stateless => "2026-07-28 tasks extension: a failed task MUST carry the JSON-RPC error"; stateless_answers "tasks/get" | "tasks/cancel" with data::ext_task_failed_without_error,
    /// 2026-07-28, tasks extension: subscriptions/listen for task ids is acknowledged without the extension.
    ExtTaskListenUndeclared in stateless => "2026-07-28 tasks extension: listening for tasks without the extension MUST get -32021"; waives Waiver::TaskListenExtension,
    /// 2026-07-28, tasks extension: tasks/get of a task that waits for input leaves out inputRequests.
    ExtTaskInputRequestsMissing in stateless => "2026-07-28 tasks extension: an input_required task MUST carry its outstanding inputRequests"; stateless_answers "tasks/get" | "tasks/cancel" with data::ext_task_input_requests_missing,
    /// 2026-07-28, tasks extension: tasks/update acknowledges the answer to an input request but the task goes on waiting for it.
    ExtTaskUpdateIgnored in stateless => "2026-07-28 tasks extension: an answered input request MUST NOT stay outstanding"; waives Waiver::TaskUpdate,
    /// 2026-07-28, tasks extension: a task id once asked about by a request that declared the
    /// extension is served to requests that do not.
    ExtTaskCapabilityRemembered in stateless => "2026-07-28 tasks extension: a capability declared by one request MUST NOT carry over to the next",
    /// 2026-07-28: a subscription the server ends gets no final result (HTTP: the stream just
    /// closes; stdio: nothing is sent).
    StatelessListenEndUnannounced in stateless => "2026-07-28: a subscription the server ends SHOULD get a final result"; stateless_answers "subscriptions/listen" with data::listen_unanswered,
    /// 2026-07-28: a tools/list_changed goes out on a listen stream before its acknowledgement.
    StatelessListenNotifyBeforeAck in stateless => "2026-07-28: the acknowledgement MUST be a subscription's first message"; opens "subscriptions/listen" with data::change_before_ack,
    /// 2026-07-28: the acknowledgement also agrees to prompt list changes nobody asked for.
    StatelessListenAckUnrequested in stateless => "2026-07-28: a listen stream MUST NOT carry notification types the client did not ask for"; opens "subscriptions/listen" with data::prompts_acknowledged,
    /// 2026-07-28: right after the acknowledgement, a resources/list_changed nobody asked for
    /// goes out on the listen stream, tagged.
    StatelessListenExtraAfterAck in stateless => "2026-07-28: a listen stream MUST NOT carry notification types the client did not ask for (after the acknowledgement)"; opens "subscriptions/listen" with data::resources_change_after_ack,
    /// 2026-07-28: right after the acknowledgement, a tools/list_changed goes out on the listen
    /// stream without the subscription's id.
    StatelessListenChangeUntagged in stateless => "2026-07-28: every notification on a listen stream MUST carry its subscriptionId"; opens "subscriptions/listen" with data::untagged_change_after_ack,
    /// 2026-07-28: right after the acknowledgement, a roots/list request goes out on the listen
    /// stream.
    StatelessListenServerRequest in stateless => "2026-07-28: a server sends no requests of its own (not on a listen stream either)"; opens "subscriptions/listen" with data::roots_request_after_ack,
    /// 2026-07-28: the final result of a subscription the server ends leaves out the
    /// subscription's id.
    StatelessListenFinalUntagged in stateless => "2026-07-28: the final result of a subscription MUST carry its subscriptionId"; stateless_answers "subscriptions/listen" with data::final_untagged,
    /// 2026-07-28: `mcpcheck_list_roots` accepts a requestState that fails verification.
    StatelessMrtrStateUnchecked in stateless => "2026-07-28: a requestState that fails verification MUST be rejected"; stateless_answers "tools/call" with data::roots_state_unchecked,
    /// 2026-07-28: `mcpcheck_list_roots` asks again on every retry and never completes.
    StatelessMrtrRetryAsksAgain in stateless => "2026-07-28: a retry carrying every input asked for completes the request"; stateless_answers "tools/call" with data::roots_retry_asks_again,
    /// 2026-07-28: `mcpcheck_list_roots` also asks for sampling, which the client did not declare.
    StatelessMrtrUndeclaredRequest in stateless => "2026-07-28: input requests MUST only use capabilities the request declared"; stateless_answers "tools/call" with data::roots_round_asks_sampling,
    /// Batches are refused on 2025-03-26 sessions too.
    BatchesRefused20250326 as "batches-refused-2025-03-26" => "2025-03-26: implementations MUST support receiving JSON-RPC batches"; demands Demand::NoBatches,
    /// completion/complete is served although `completions` is not declared.
    CompletionsServedUndeclared => "a server MUST declare the completions capability to serve completion/complete"; declares data::without_completions,
    /// logging/setLevel is served although `logging` is not declared (and says so in a log
    /// message).
    LoggingServedUndeclared => "a server MUST declare the logging capability to serve logging/setLevel"; declares data::without_logging; notifies "logging/setLevel" with data::level_set_logged,
    /// 2026-07-28 HTTP: the Origin header is not validated.
    StatelessNoOriginCheck in stateless => "2026-07-28: a foreign Origin MUST still be refused with 403 (DNS rebinding)"; waives Waiver::Origin,
    /// 2026-07-28: completion/complete is served although server/discover does not declare
    /// `completions`.
    StatelessCompletionsServedUndeclared in stateless => "2026-07-28: a method of a capability not declared in server/discover MUST get -32601"; declares data::without_completions,
    /// 2026-07-28: a JSON-RPC batch is processed.
    StatelessAcceptBatches in stateless => "2026-07-28: a JSON array is no MCP message; a batch MUST be refused"; waives Waiver::Batches,
    /// 2026-07-28: a client capability declared on one request is remembered for later ones.
    StatelessCapabilityCarryover in stateless => "2026-07-28: capabilities are per request; one declared earlier MUST NOT carry over",
    /// 2026-07-28 HTTP: Mcp-Param-* headers are not compared with the arguments they mirror.
    StatelessIgnoreParamHeaders in stateless => "2026-07-28 HTTP: an argument marked x-mcp-header MUST come with a matching Mcp-Param-* header"; waives Waiver::ParamHeaders,
    /// A GET with Last-Event-ID replays the events of every stream of the session after it.
    ResumeReplaysOtherStreams => "a resumed stream MUST NOT replay messages of another stream",
    /// A GET with Last-Event-ID first sends a ping under the id of an earlier request of the
    /// session (its requests numbered afresh on each stream).
    ResumeRequestIdReused => "a request id MUST NOT be reused within a session, on a resumed stream neither",
    /// A GET with Last-Event-ID does not redeliver the stream's requests still unanswered: the
    /// server gives up on them, and the calls waiting on them fail.
    ResumeForgetsRequests => "a dropped stream SHOULD NOT cancel a call: a request it waits on is redelivered on resumption",
    /// `mcpcheck_structured` returns structuredContent without its JSON in a text block.
    StructuredContentNotMirrored => "structuredContent SHOULD also be returned as JSON text"; answers "tools/call" with data::structured_not_mirrored,
    /// 2026-07-28: only the discover result names the server in `_meta`.
    StatelessServerInfoDiscoverOnly in stateless => "2026-07-28: every result SHOULD name the server in _meta"; decorates data::server_info_on_discover_only,
    /// 2026-07-28 HTTP: SSE responses lack `X-Accel-Buffering: no`.
    StatelessSseBuffered in stateless => "2026-07-28 HTTP: SSE responses SHOULD carry X-Accel-Buffering: no"; heads "sse" with data::sse_buffered,
    /// `é` goes out as the Latin-1 byte 0xE9: in the instructions over HTTP, and over stdio in
    /// a log line after the handshake (on stdio the instructions would break the handshake).
    NonUtf8Output as "non-utf8-output" => "every byte a server sends MUST be UTF-8 (transports)"; encodes "stdio" with data::latin1; encodes "http" with data::cafe_instructions; prints data::cafe_after_handshake,
    /// `logging` is not declared, and logging/setLevel is refused with -32603 instead of -32601.
    LoggingUndeclaredOtherError => "a method of an undeclared capability is an unknown method: -32601 (derived)"; withholds data::LOGGING; handshake_answers "logging/setLevel" with data::set_level_unavailable,
    /// `logging` is not declared (nor served), yet every tool call logs.
    LogWithoutCapability => "log messages MUST come only from a server that declares logging"; withholds data::LOGGING; waives Waiver::LevelSet,
    /// tools/list is accompanied by a notifications/cancelled for a request nobody sent.
    ServerCancelUnknown => "a server MUST cancel only its own requests in progress (2026-07-28: only a listen)"; notifies "tools/list" with data::cancel_unknown,
    /// 2026-07-28: pages after the first of a list say cacheScope "private".
    StatelessCacheScopePerPage in stateless => "2026-07-28: every page of one list MUST have the same cacheScope"; decorates data::later_pages_private,
    /// The first tool's icon is a `file:` URI.
    ToolIconFileScheme => "a tool icon's src SHOULD be an https URL or a data: URI, the schemes clients are told to ensure (2025-11-25 on)"; lists "tools" with data::icon_file_scheme,
    /// Tool annotations carry `readOnlyHint` as the string "true".
    ToolAnnotationStringHint => "tool annotations' hints MUST be booleans (schema)"; lists "tools" with data::read_only_hint_string,
    /// tools/list results carry a `_meta` key that breaks the key grammar (a grammar of 2025-06-18
    /// on; the key is sent at every version).
    MetaKeyInvalid => "_meta keys MUST follow the prefix/name grammar (2025-06-18 on)"; answers "tools/list" with data::invalid_meta_key,
    /// The server asks for the client's roots while answering initialize.
    RequestsBeforeInitialized => "the server SHOULD NOT send requests other than pings before initialized (lifecycle)",
    /// A ping before `notifications/initialized` gets an error.
    PingBeforeInitializedRefused => "a ping MUST be answered at any time, before initialized too (lifecycle, ping)"; demands Demand::PingAfterInitialized,
    /// A request without `MCP-Protocol-Version` gets 400, although 2025-03-26 is supported.
    ProtocolHeaderRequired => "HTTP: a request without MCP-Protocol-Version SHOULD be taken as 2025-03-26 when that is supported"; demands Demand::ProtocolHeader,
    /// 2026-07-28 HTTP: a request without `MCP-Protocol-Version` is served.
    StatelessProtocolHeaderOptional in stateless => "2026-07-28 HTTP: a request without MCP-Protocol-Version MUST get 400 with -32020"; waives Waiver::MissingProtocolHeader,
    /// 2026-07-28: a legacy `initialize` gets an error that names no version.
    StatelessLegacyInitializeUnnamed in stateless => "2026-07-28: a legacy initialize SHOULD get an error naming the supported versions"; waives Waiver::LegacyInitialize,
    /// 2026-07-28 HTTP: a POST carrying `Last-Event-ID` is refused.
    StatelessPostLastEventIdRefused in stateless => "2026-07-28 HTTP: Last-Event-ID on a POST SHOULD be ignored"; demands Demand::PostWithoutLastEventId,
    /// logging/setLevel with a valid level gets -32603.
    SetLevelRefused => "logging/setLevel with a valid level MUST be served when logging is declared"; waives Waiver::SetLevel; answers "logging/setLevel" with data::set_level_refused,
    /// HTTP: an SSE stream stays open for three seconds after its response.
    SseStreamLingers => "HTTP: an SSE stream SHOULD end after its response",
    /// HTTP: a client that drops a call's SSE stream has cancelled the call.
    DisconnectCancels => "HTTP: a dropped SSE stream SHOULD NOT be taken as a cancellation",
    /// HTTP: SSE priming events carry no `retry` field.
    SseCloseWithoutRetry => "HTTP: a stream closed before its response SHOULD have sent a retry field (SEP-1699)"; sends "priming" with data::priming_without_retry,
    /// HTTP: the reconnection fixture's result is not kept for resumption.
    ReconnectionLosesResponse => "HTTP: a stream closed before its response MUST be resumable to that response",
    /// `test_sampling` answers without asking the client to sample.
    SamplingFixtureSilent => "test_sampling MUST ask the client to sample (official fixture)",
    /// The elicitation fixtures answer without asking the client.
    ElicitationFixtureSilent => "the elicitation fixtures MUST ask the client with elicitation/create (official fixtures)",
    /// `test_elicitation` asks in URL mode, which the client did not declare (2025-11-25).
    ElicitationUrlUndeclared => "URL-mode elicitation MUST NOT be sent to a client without elicitation.url"; asks "elicitation/create" with data::username_form_as_url,
    /// The SEP-1034 fixture's integer field has the default "30", a string.
    ElicitationDefaultMistyped => "an elicitation field's default MUST have the field's type (SEP-1034)"; asks "elicitation/create" with data::age_default_string,
    /// 2026-07-28: a retry with the requestState but no inputResponses gets -32602.
    StatelessMrtrMissingError in stateless => "2026-07-28: a retry missing a needed response SHOULD be asked again, not refused"; stateless_answers "tools/call" with data::roots_missing_refused,
    /// 2026-07-28: an unknown key in inputResponses gets -32602.
    StatelessMrtrExtraRefused in stateless => "2026-07-28: unknown keys in inputResponses SHOULD be ignored"; stateless_answers "tools/call" with data::roots_extra_refused,
    /// 2026-07-28: a malformed roots answer in inputResponses is taken as no roots.
    StatelessMrtrMalformedAccepted in stateless => "2026-07-28: malformed inputResponses SHOULD get a JSON-RPC error"; waives Waiver::InputResponses,
    /// 2026-07-28: the multi-round fixture's first round carries no requestState.
    StatelessMrtrFirstRoundNoState in stateless => "2026-07-28: the multi-round fixture's first round sends the requestState its retry echoes"; answers "tools/call" with data::first_round_without_state,
    /// 2026-07-28: the multi-round fixture completes after the first round.
    StatelessMrtrOneRound in stateless => "2026-07-28: the multi-round fixture asks in a second round before it completes"; stateless_answers "tools/call" with data::multi_round_once,
    /// 2026-07-28: the multi-round fixture refuses the state of its own second round.
    StatelessMrtrLastRoundRefused in stateless => "2026-07-28: a retry with every input asked for and the echoed state completes"; stateless_answers "tools/call" with data::multi_round_last_refused,
    /// 2026-07-28: the fixture prompt that needs context is produced without asking for it.
    StatelessMrtrPromptNeverAsks in stateless => "2026-07-28: the input-required fixture prompt asks for its context (prompts/get MRTR)",
    /// 2026-07-28: the fixture prompt refuses the retry that carries the context.
    StatelessMrtrPromptRetryRefused in stateless => "2026-07-28: a prompts/get retry with the input asked for completes"; answers "prompts/get" with data::prompt_retry_refused,
    /// 2026-07-28: reading `mcpcheck://roots` asks again although the retry has the roots.
    StatelessMrtrResourceAsksAgain in stateless => "2026-07-28: a resources/read retry with the input asked for completes",
    /// 2026-07-28: reading `mcpcheck://roots` asks without the requestState it needs back.
    StatelessMrtrResourceWithoutState in stateless => "2026-07-28: mcpcheck://roots sends the requestState its retry must echo",
    /// 2026-07-28 HTTP: Mcp-Param-Region is required even for a null or absent argument.
    StatelessParamHeaderAlwaysRequired in stateless => "2026-07-28 HTTP: a null or absent argument MUST NOT require its Mcp-Param-* header"; demands Demand::ParamHeaderAlways,
    /// 2026-07-28 HTTP: an integer argument's Mcp-Param-* header is compared as text.
    StatelessParamIntegerTextual in stateless => "2026-07-28 HTTP: an integer Mcp-Param-* header SHOULD compare numerically"; waives Waiver::NumericParamHeader,
    /// With `--static-token`: a request without the token is refused with 403 (its Bearer challenge kept).
    AuthMissingToken403 as "auth-missing-token-403" in auth => "a request without a token MUST get 401, not 403 (authorization error handling)"; challenges data::missing_token_403,
    /// With `--static-token`: the 401 carries no `WWW-Authenticate` header (and a plain-text body).
    AuthNoChallenge in auth => "a 401 MUST carry a WWW-Authenticate challenge (RFC 6750 §3)"; challenges data::bare_401,
    /// With `--static-token`: the 401's challenge is of the Basic scheme.
    AuthChallengeBasic in auth => "the 401's challenge MUST be of the Bearer scheme (RFC 6750 §3); another scheme is protection other than MCP's OAuth profile, which HTTP servers SHOULD follow"; challenges data::basic_challenge,
    /// With `--static-token`: no protected resource metadata is served anywhere (the challenge still names it).
    AuthMetadataMissing in auth => "a protected MCP server MUST serve its Protected Resource Metadata (RFC 9728), at the URL its challenge names"; locates "protected-resource" with data::nowhere,
    /// With `--static-token`: the challenge names a resource metadata URL that answers 404 (the well-known URI serves it).
    AuthMetadataDeadLink in auth => "the resource_metadata URL a challenge names MUST serve the metadata (RFC 9728 §5.1)"; challenges data::metadata_link_dead,
    /// With `--static-token`: the challenge names no resource_metadata; the path-aware well-known URI serves the metadata (allowed from 2025-11-25).
    AuthMetadataUnnamed in auth => "control: from 2025-11-25 a challenge may leave resource_metadata out when the well-known URI serves the metadata"; challenges data::metadata_unnamed,
    /// With `--static-token`: the challenge names no resource_metadata, and neither well-known URI serves the metadata (it is at a path of its own).
    AuthMetadataHidden in auth => "a protected server MUST lead a client to its metadata: resource_metadata in the challenge, or (from 2025-11-25) the well-known URI"; challenges data::metadata_unnamed; locates "protected-resource" with data::metadata_hidden,
    /// With `--static-token`: the metadata is served at the root well-known URI only, which the challenge names (allowed).
    AuthMetadataAtRoot in auth => "control: the metadata may be served at the root well-known URI, which clients try after the path-aware one"; locates "protected-resource" with data::metadata_at_root,
    /// With `--static-token`: the challenge names a URL that redirects (308) to the metadata.
    AuthMetadataRedirect in auth => "control: a metadata URL may redirect to the document; clients follow it"; challenges data::metadata_moved; locates "moved-protected-resource" with data::metadata_redirect,
    /// With `--static-token`: the metadata document is an HTML page.
    AuthMetadataNotJson in auth => "the Protected Resource Metadata is a JSON object (RFC 9728 §3.2)"; encodes "protected-resource" with data::html_page; heads "protected-resource" with data::content_type_html,
    /// With `--static-token`: the metadata document is JSON sent as `text/plain`.
    AuthMetadataContentType in auth => "the Protected Resource Metadata MUST be sent as application/json (RFC 9728 §3.2)"; heads "protected-resource" with data::content_type_plain,
    /// With `--static-token`: the metadata document needs the token (401 without it).
    AuthMetadataBehindToken in auth => "the Protected Resource Metadata MUST be served to a client without a token: it is how the client learns to get one"; demands Demand::MetadataToken,
    /// With `--static-token`: the metadata's `resource` names another path of this server.
    AuthMetadataWrongResource in auth => "the metadata's resource MUST be the server's canonical URI (RFC 9728 §3.3)"; serves "protected-resource" with data::resource_elsewhere,
    /// With `--static-token`: the metadata has no `resource`.
    AuthMetadataNoResource in auth => "the metadata's resource is REQUIRED (RFC 9728 §2)"; serves "protected-resource" with data::without_resource,
    /// With `--static-token`: the metadata's `authorization_servers` is empty.
    AuthMetadataNoAuthorizationServers in auth => "the metadata MUST list at least one authorization server"; serves "protected-resource" with data::no_authorization_servers,
    /// 2026-07-28, tasks extension: a `tools/call` with a 2025-11-25 `task` member gets a task
    /// handle though the request does not declare the extension.
    ExtTaskLegacyHintOptIn in stateless => "tasks extension: a CreateTaskResult only for a request that declares the extension; a 2025-11-25 `task` member in the params is no declaration"; waives Waiver::LegacyTaskHint,
    /// 2026-07-28, tasks extension over HTTP: the Mcp-Name of tasks/get, tasks/update and
    /// tasks/cancel is not compared with the task id.
    ExtTaskIgnoreMcpName in stateless => "tasks extension over Streamable HTTP: an Mcp-Name that contradicts params.taskId gets HTTP 400 with -32020, as for the core's named requests"; waives Waiver::TaskNameHeader,
    /// HTTP: every request that carries an Origin header is refused with 403, the server's own
    /// origin too.
    OriginRefusedAlways => "an Origin check refuses foreign origins, not the server's own: a browser page the server serves sends it (a warning: neither MCP nor HTTP states it)"; demands Demand::NoOrigin,
    /// 2026-07-28, tasks extension: `tasks/cancel` of a task that is over is refused with -32602,
    /// as 2025-11-25 refused it.
    ExtTaskCancelTerminalRefused in stateless => "tasks extension: tasks/cancel of a known task is acknowledged with an empty result, even once the task is over (cancellation is cooperative; -32602 is for unknown task ids)"; demands Demand::LiveTaskCancel,
    /// 2026-07-28: `tasks/list` and `tasks/result` are served as 2025-11-25 served them.
    StatelessAnswerTaskMethods in stateless => "2026-07-28 has no tasks/list nor tasks/result (the tasks extension keeps tasks/get, tasks/update and tasks/cancel): unknown methods, -32601"; stateless_answers "tasks/list" | "tasks/result" with data::task_methods_answered,
    /// With `--static-token`: a request carrying the id of a session (one an initialize with the
    /// token opened) is served without a token.
    AuthSessionTrusted in auth => "every request is authorized, not only the one that opened the session: a session id without the token gets 401"; waives Waiver::TokenInSession,
    /// 2026-07-28: the 401's challenge and the resource metadata's `scopes_supported` name
    /// `offline_access` besides the server's scope.
    AuthOfflineAccess in stateless_auth => "2026-07-28: a protected server SHOULD NOT name offline_access in its challenge's scope nor in its metadata's scopes_supported (refresh tokens are no requirement of the resource)"; challenges data::offline_access_asked; serves "protected-resource" with data::offline_access_supported,
    /// With `--static-token`: the metadata's `resource` is the server's origin, not its endpoint URL.
    AuthMetadataResourceOrigin in auth => "the metadata's resource is the server's canonical URI: an origin-only resource SHOULD NOT stand for an endpoint with a path (RFC 9728 §3.3; the SDKs accept a prefix)"; serves "protected-resource" with data::resource_origin,
    /// With `--static-token`: any bearer token is accepted; only a request with none is refused.
    AuthAcceptsAnyToken in auth => "a server MUST validate the token, not only its presence, and answer 401 to an invalid one"; accepts data::any_token,
    /// With `--static-token`: a JWT whose header says `alg: none` is accepted.
    AuthAcceptsAlgNone in auth => "an unsecured JWT (alg none) is an invalid token: 401"; accepts data::unsecured_jwt,
    /// With `--static-token`: any well-formed JWT is accepted, its signature never checked.
    AuthAcceptsUnverifiedJwt in auth => "a JWT is valid only if its signature verifies with the authorization server's key: 401 otherwise"; accepts data::any_jwt,
    /// With `--static-token` and `--expired-token`: the expired token is accepted.
    AuthAcceptsExpiredToken in auth => "an expired token MUST get 401"; accepts data::expired_token,
    /// With `--static-token`: the 401 for an invalid token carries no `error="invalid_token"`.
    AuthInvalidTokenNoError in auth => "a challenge refusing a token SHOULD say error=\"invalid_token\" (RFC 6750 §3.1)"; challenges data::no_error_named,
    /// With `--auth`: a token issued for another resource is accepted (its audience never checked).
    AuthAnyAudience in oauth => "a server MUST accept only tokens issued for it as the audience (RFC 8707), 401 otherwise"; waives Waiver::Audience,
    /// With `--auth`: a token whose audience lists this server among others is accepted (a membership test).
    AuthAudienceMembership in oauth => "a server SHOULD accept only tokens issued for it alone: one for it and another resource can be replayed by the other (RFC 8707, token audience binding)"; waives Waiver::SoleAudience,
    /// With `--static-token` (its own origin the authorization server): no authorization server metadata is served.
    AuthServerMetadataMissing in auth => "an authorization server MUST offer its metadata (RFC 8414 or OpenID Connect Discovery)"; locates "authorization-server" with data::nowhere,
    /// With `--static-token`: the authorization server metadata's `issuer` is not the URL the resource metadata names.
    AuthServerIssuerMismatch in auth => "the metadata's issuer MUST be identical to the issuer it was found for (RFC 8414 §3.3)"; serves "authorization-server" with data::issuer_elsewhere,
    /// With `--static-token`: the authorization server metadata's `issuer` has a trailing slash the resource metadata's URL has not.
    AuthServerIssuerSlash in auth => "the metadata's issuer SHOULD be the identical string, not only the same URL under RFC 3986 (RFC 8414 §3.3 compares them as identical)"; serves "authorization-server" with data::issuer_slash,
    /// With `--static-token`: the authorization server metadata names no token endpoint.
    AuthServerNoTokenEndpoint in auth => "the authorization server metadata names its token endpoint (RFC 8414 §2)"; serves "authorization-server" with data::without_token_endpoint,
    /// With `--static-token`: the authorization server metadata has no `code_challenge_methods_supported`.
    AuthServerNoPkce in auth => "the authorization server metadata MUST list S256 in code_challenge_methods_supported, or MCP clients refuse it (2025-11-25)"; serves "authorization-server" with data::without_pkce,
    /// With `--static-token`: `ping` and `server/discover` are answered without a token (a
    /// health check left open); everything else needs it.
    AuthOpenPing in stateless_auth => "control: a server may leave ping open and guard the rest; the authorization checks then judge a request it guards"; waives Waiver::PingToken,
    /// With `--static-token`: the resource metadata lists a second authorization server (this
    /// origin's `/second`), whose metadata has no `code_challenge_methods_supported`.
    AuthSecondServerNoPkce in auth => "every authorization server the resource metadata lists is one a client may pick: each MUST list S256 in code_challenge_methods_supported (2025-11-25)"; locates "second-authorization-server" with data::second_server_at; serves "protected-resource" with data::second_server_listed; serves "second-authorization-server" with data::without_pkce,
    /// With `--static-token`: the authorization server metadata offers Dynamic Client Registration only.
    AuthServerRegistrationOnly in auth => "from 2025-11-25 an authorization server SHOULD support Client ID Metadata Documents"; serves "authorization-server" with data::registration_only,
    /// With `--static-token`: the authorization server metadata offers no way for a new client to get a client id.
    AuthServerNoRegistration in auth => "from 2025-11-25 an authorization server SHOULD support Client ID Metadata Documents (Dynamic Client Registration is the fallback)"; serves "authorization-server" with data::no_registration,
    /// With `--static-token`: the authorization server metadata is served by OpenID Connect Discovery only.
    AuthServerOidcOnly in auth => "control: OpenID Connect Discovery is one of the metadata locations clients try"; locates "authorization-server" with data::oidc_only,
    /// With `--static-token`, judged at 2025-03-26: no authorization server metadata is served at the origin (the default endpoints are).
    AuthOriginMetadataMissing in legacy_auth => "2025-03-26: a server SHOULD serve authorization server metadata at its origin (RFC 8414)"; locates "authorization-server" with data::nowhere,
    /// With `--static-token`, judged at 2025-03-26: neither the metadata nor the default authorization endpoint is served at the origin.
    AuthOriginNoEndpoints in legacy_auth => "2025-03-26: a server without authorization server metadata MUST serve the default endpoints (/authorize, /token, /register)"; locates "authorization-server" with data::nowhere; locates "authorize" with data::nowhere,
    /// With `--static-token`: the challenge for a request without any token says `error="invalid_token"`.
    AuthMissingTokenError in auth => "a challenge to a request without credentials SHOULD NOT carry an error code (RFC 6750 §3.1)"; challenges data::missing_token_error_named,
    /// With `--static-token`: a bad token is answered 500 with an OAuth error body (a verifier that throws).
    AuthBadToken500 in auth => "an invalid token MUST get 401 (authorization token handling), not a server error"; challenges data::bad_token_500,
    /// With `--static-token`: the 401's challenge carries no `scope`.
    AuthChallengeNoScope in auth => "from 2025-11-25 the 401's challenge SHOULD carry the scope to ask for"; challenges data::no_scope_named,
    /// HTTP+SSE (2024-11-05): the endpoint is sent as an unnamed event, not an `endpoint` event.
    LegacySseEndpointUnnamed in legacy_sse => "HTTP+SSE (2024-11-05): the stream MUST begin with an `endpoint` event"; sends "endpoint" with data::endpoint_unnamed,
    /// HTTP+SSE (2024-11-05): a request's response comes in the body of its POST.
    LegacySseAnswerInPost in legacy_sse => "HTTP+SSE (2024-11-05): server messages MUST be sent as SSE `message` events",
    /// HTTP+SSE: the stream and message endpoints accept any Origin.
    LegacySseNoOriginCheck in legacy_sse => "HTTP+SSE (2024-11-05): servers MUST validate the Origin header on all connections"; waives Waiver::LegacySseOrigin,
    /// HTTP+SSE: the endpoint event names this server under another host name (another origin).
    LegacySseEndpointCrossOrigin in legacy_sse => "HTTP+SSE: the endpoint a stream names SHOULD be at the stream's own origin (derived)"; sends "endpoint" with data::endpoint_other_origin,
    /// logging is not declared; logging/setLevel with a valid level is -32601, with an invalid one -32603 (as MiniMCP does).
    LoggingUndeclaredInvalidLevelHandled => "the method of an undeclared capability is not served: -32601 whatever its arguments (derived)"; withholds data::LOGGING; handshake_answers "logging/setLevel" with data::unknown_level_internal_error,
    /// HTTP: a JSON object that is no JSON-RPC message (`{}`) is refused with 400 and a -32700 body.
    HttpRefusalWrongCode => "an invalid request refused at the HTTP level with a JSON-RPC body SHOULD carry -32600 (derived: a warning)",
    /// tools/list drops the keywords `if`, `then`, `else` and `$anchor` from every inputSchema.
    SchemaKeywordsDropped => "from 2025-11-25 a tool's inputSchema is 2020-12 JSON Schema, listed with every keyword its author wrote (SEP-1613, SEP-2106)"; lists "tools" with data::schema_keywords_dropped,
    /// With `--skills`: the extension is declared without the `resources` capability (resources are still served).
    SkillsResourcesUndeclared => "skills extension: a server that declares it MUST declare the resources capability too"; declares data::without_resources,
    /// With `--skills`: skills/list is an unknown method, though the extension is declared.
    SkillsListUnknown => "skills extension: a server that declares it MUST implement skills/list"; answers "skills/list" with data::skills_list_unknown,
    /// With `--skills`: the second skill's entry has no `resources`.
    SkillsEntryNoResources => "skills extension: a skill entry MUST carry `resources`, its files or \"dynamic\""; enters data::second_skill_without_files,
    /// With `--skills`: the second skill is named in capitals, in its folder and its frontmatter.
    SkillsNameUppercase => "skills extension: a skill's name MUST be 1-64 lowercase letters, digits and single hyphens"; stocks data::second_skill_uppercase,
    /// With `--skills`: the second skill's frontmatter names it otherwise than its folder does.
    SkillsUriNameMismatch => "skills extension: the last segment of a skill's path MUST be its frontmatter's name"; stocks data::second_skill_renamed,
    /// With `--skills`: the skills are served under the scheme `repo://`.
    SkillsCustomScheme => "skills extension: skill URIs SHOULD use the skill:// scheme"; stocks data::repo_scheme,
    /// With `--skills`: skills/get answers with the entry's members, not in `skill`.
    SkillsGetUnwrapped => "skills extension: skills/get MUST answer with the skill's entry in `skill`"; answers "skills/get" with data::skill_unwrapped,
    /// With `--skills`: skills/get answers with a nextCursor beside the entry.
    SkillsGetCursor => "skills extension: a skills/get result carries no pagination cursor"; answers "skills/get" with data::skill_with_cursor,
    /// With `--skills`: skills/get of an unknown skill answers -32002 (resource not found).
    SkillsGetUnknownNotFound => "skills extension: skills/get of a skill the server does not serve MUST get -32602"; answers "skills/get" with data::skill_not_found_32002,
    /// With `--skills`, 2026-07-28: skills/list carries no ttlMs or cacheScope.
    SkillsListNoCacheHints in stateless => "skills extension, 2026-07-28: skills/list MUST carry ttlMs and cacheScope"; decorates data::skills_list_without_cache_hints,
    /// With `--skills`, 2026-07-28: skills/list and skills/get carry no resultType.
    SkillsNoResultType in stateless => "skills extension, 2026-07-28: skills/list and skills/get results MUST say resultType \"complete\""; decorates data::skills_without_result_type,
    /// With `--skills`: a skill's files leave out its SKILL.md.
    SkillsFilesOmitSkillmd => "skills extension: a skill's `resources` MUST list every file, its SKILL.md among them"; enters data::files_without_skillmd,
    /// With `--skills`: the first skill lists among its files the second skill's SKILL.md.
    SkillsFileOutside => "skills extension: every file a skill lists MUST be inside the skill's folder"; enters data::first_skill_lists_seconds_file,
    /// With `--skills`: the first skill's files but its SKILL.md are listed with the digest of other bytes.
    SkillsStaleDigest => "skills extension: a file's digest MUST be the sha256 of its bytes, its size their count"; enters data::first_skill_stale_digests,
    /// With `--skills`: a SKILL.md is read as text/plain.
    SkillsSkillmdPlainText => "skills extension: a SKILL.md SHOULD be served as text/markdown"; answers "resources/read" with data::skill_md_plain_text,
    /// With `--skills`: resources/list names each SKILL.md `SKILL.md`, not by its frontmatter.
    SkillsSkillmdListedMisnamed => "skills extension: a listed SKILL.md resource SHOULD be named as its frontmatter names the skill"; lists "resources" with data::skillmd_named_skillmd,
    /// With `--skills`: the first skill's entry has a description its SKILL.md has not.
    SkillsFrontmatterDiffers => "skills extension: an entry's frontmatter MUST be the SKILL.md's own"; enters data::first_skill_other_description,
    /// With `--skills`: resources/directory/read is an unknown method, though `directoryRead` is declared.
    SkillsDirectoryUnknown => "skills extension: with directoryRead declared, resources/directory/read MUST serve every skill folder"; answers "resources/directory/read" with data::directory_read_unknown,
    /// With `--skills`: a directory read of a file answers an empty folder.
    SkillsDirectoryReadsFile => "skills extension: a directory read of what is not a directory MUST get -32602"; skill_answers "resources/directory/read" with data::file_read_as_directory,
    /// With `--skills`: a directory read lists subfolders without the mimeType inode/directory.
    SkillsDirectoryUntyped => "skills extension: a directory read MUST mark each subfolder inode/directory"; answers "resources/directory/read" with data::folders_untyped,
    /// stdio: every response is written twice.
    DuplicateResponses => "each request SHOULD be answered once (derived; stdio and HTTP+SSE)"; prints data::twice,
}

impl Quirk {
    /// The command-line name: given with `as`, or the variant's words in kebab case.
    pub fn name(self) -> String {
        if let Some((_, _, Some(name), ..)) = DECLARED.iter().find(|(q, ..)| *q == self) {
            return (*name).to_string();
        }
        let variant = format!("{self:?}");
        let mut name = String::new();
        let mut previous: Option<char> = None;
        for c in variant.chars() {
            let starts_word = c.is_ascii_uppercase()
                || (c.is_ascii_digit() && previous.is_some_and(|p| !p.is_ascii_digit()));
            if starts_word && previous.is_some() {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
            previous = Some(c);
        }
        name
    }
}

/// Every quirk with its name and the rule it breaks, in declaration order.
pub fn all() -> impl Iterator<Item = (Quirk, String, &'static str)> {
    DECLARED.iter().map(|(q, rule, ..)| (*q, q.name(), *rule))
}

impl Quirk {
    /// The runs this quirk shows in.
    pub fn modes(self) -> Modes {
        DECLARED
            .iter()
            .find(|(q, ..)| *q == self)
            .map_or(Modes::Handshake, |(.., modes, _)| *modes)
    }
}

/// Looks a quirk up by its command-line name.
pub fn parse(name: &str) -> Option<Quirk> {
    all().find(|(_, n, _)| n == name).map(|(q, _, _)| q)
}
/// The set of quirks switched on for one server, and where those that are data act (kept as
/// they are switched on: every response passes through them).
#[derive(Clone, Default)]
pub struct Quirks {
    on: BTreeSet<Quirk>,
    acts: Vec<Acts>,
}

impl std::fmt::Debug for Quirks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(&self.on).finish()
    }
}

impl Quirks {
    /// Switches a quirk on.
    pub fn insert(&mut self, quirk: Quirk) {
        self.on.insert(quirk);
        // In the order of declaration, whatever the order they were switched on in.
        self.acts = DECLARED
            .iter()
            .filter(|(quirk, ..)| self.on.contains(quirk))
            .flat_map(|(.., acts)| acts.iter().copied())
            .collect();
    }

    /// Whether a quirk is on.
    pub fn has(&self, quirk: Quirk) -> bool {
        self.on.contains(&quirk)
    }

    /// Where the quirks that are on act, if they are data.
    fn acting(&self) -> impl Iterator<Item = Acts> + '_ {
        self.acts.iter().copied()
    }

    /// Applies to `value`'s members, if it is an object, the change of every quirk that is on
    /// and acts at the place `at` picks out.
    fn change_members(&self, value: &mut Value, at: fn(Acts) -> Option<MembersChange>) {
        if let Value::Object(members) = value {
            for change in self.acting().filter_map(at) {
                change(members);
            }
        }
    }

    /// Applies the rewrites of the quirks that are on to a response about to be sent.
    pub fn rewrite(&self, mut response: Value) -> Value {
        self.change_members(&mut response, |acts| match acts {
            Acts::Response(change) => Some(change),
            _ => None,
        });
        response
    }

    /// Applies the quirks that are on to a list (`tools`, `resources`, `resourceTemplates`,
    /// `prompts`) before it is paged.
    pub fn listing(&self, list: &str, items: &mut Vec<Value>) {
        for acts in self.acting() {
            if let Acts::Listing(place, change) = acts {
                if place == list {
                    change(items);
                }
            }
        }
    }

    /// Applies the quirks that are on to what the handler of `method` answered in `era`.
    pub fn answer(&self, era: Era, method: &str, params: &Value, mut outcome: Outcome) -> Outcome {
        for acts in self.acting() {
            if let Acts::Answer(places, only, change) = acts {
                if places.contains(&method) && only.is_none_or(|only| only == era) {
                    outcome = change(params, outcome);
                }
            }
        }
        outcome
    }

    /// Whether a quirk that is on takes this bearer token, which is not the valid one (`expired`:
    /// it is the token the server knows as expired).
    pub fn accepts(&self, token: &str, expired: bool) -> bool {
        self.acting()
            .any(|acts| matches!(acts, Acts::Token(takes) if takes(token, expired)))
    }

    /// Applies the quirks that are on to the text of an SSE event of this kind (`priming`,
    /// `endpoint`), sent on a stream asked for with this `Host` (empty for a priming event).
    pub fn event(&self, kind: &str, host: &str, mut text: String) -> String {
        for acts in self.acting() {
            if let Acts::Event(place, change) = acts {
                if place == kind {
                    change(host, &mut text);
                }
            }
        }
        text
    }

    /// Applies the quirks that are on to the params of a `method` notification the server is
    /// about to send on its own.
    pub fn told(&self, method: &str, params: &mut Value) {
        let Value::Object(members) = params else {
            return;
        };
        for acts in self.acting() {
            if let Acts::Told(place, change) = acts {
                if place == method {
                    change(members);
                }
            }
        }
    }

    /// Applies the quirks that are on to the skills a server serves, as they are loaded.
    pub fn stocked(&self, stock: &mut Stock) {
        for acts in self.acting() {
            if let Acts::Stocks(change) = acts {
                change(stock);
            }
        }
    }

    /// The number of a new SSE stream answering a POST, once the quirks that are on have
    /// changed it.
    pub fn stream_number(&self, mut number: u64) -> u64 {
        for acts in self.acting() {
            if let Acts::StreamNumber(change) = acts {
                change(&mut number);
            }
        }
        number
    }

    /// Applies the quirks that are on to what the skills extension's handler of `method`
    /// answered, given the skills served.
    pub fn skill_answer(
        &self,
        method: &str,
        stock: &Stock,
        params: &Value,
        mut outcome: Outcome,
    ) -> Outcome {
        for acts in self.acting() {
            if let Acts::SkillAnswer(places, change) = acts {
                if places.contains(&method) {
                    outcome = change(stock, params, outcome);
                }
            }
        }
        outcome
    }

    /// The result of a tasks/cancel of the tasks extension, once the quirks that are on have
    /// changed it, given the task it cancelled as tasks/get would show it (made only for them).
    pub fn cancel_result(&self, task: impl FnOnce() -> Value) -> Value {
        let mut result = Map::new();
        let mut changes = self
            .acting()
            .filter_map(|acts| match acts {
                Acts::CancelResult(change) => Some(change),
                _ => None,
            })
            .peekable();
        if changes.peek().is_some() {
            let task = task();
            for change in changes {
                change(&task, &mut result);
            }
        }
        Value::Object(result)
    }

    /// The lines a stdio server writes on stdout as it starts, as the quirks that are on have
    /// them.
    pub fn greeting(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for acts in self.acting() {
            if let Acts::Greeting(change) = acts {
                change(&mut lines);
            }
        }
        lines
    }

    /// Applies the quirks that are on to the progress a tool call is about to report.
    pub fn reported(&self, progress: &mut [u64]) {
        for acts in self.acting() {
            if let Acts::Progress(change) = acts {
                change(progress);
            }
        }
    }

    /// Applies the quirks that are on to the status of a task whose work is over.
    pub fn settled(&self, task: &Settled, status: &mut &'static str) {
        for acts in self.acting() {
            if let Acts::Settle(change) = acts {
                change(task, status);
            }
        }
    }

    /// Applies the quirks that are on to the answer a POST gets in a JSON body with `status`.
    pub fn posted(&self, status: u16, answer: &mut Value) {
        let Value::Object(members) = answer else {
            return;
        };
        for acts in self.acting() {
            if let Acts::Posted(change) = acts {
                change(status, members);
            }
        }
    }

    /// Applies the quirks that are on to the headers of a response of this kind: `json` (a JSON
    /// body), `sse` (an SSE stream) or `protected-resource` (the metadata document).
    pub fn headers(&self, kind: &str, headers: &mut hyper::HeaderMap) {
        for acts in self.acting() {
            if let Acts::Headers(place, change) = acts {
                if place == kind {
                    change(headers);
                }
            }
        }
    }

    /// Applies the quirks that are on to a refusal's challenge.
    pub fn challenge(&self, challenge: &mut Challenge) {
        for acts in self.acting() {
            if let Acts::Challenge(change) = acts {
                change(challenge);
            }
        }
    }

    /// Applies the quirks that are on to a result of the 2026-07-28 era to `method`, once that
    /// era's members are added.
    pub fn decorated(&self, method: &str, params: &Value, result: &mut Value) {
        let Value::Object(members) = result else {
            return;
        };
        for acts in self.acting() {
            if let Acts::Decorated(change) = acts {
                change(method, params, members);
            }
        }
    }

    /// The refusal a quirk that is on gives a request of the 2026-07-28 era instead of its
    /// handler's answer, if any.
    pub fn refusal(&self, method: &str, params: &Value) -> Option<Outcome> {
        self.acting().find_map(|acts| match acts {
            Acts::Refusal(refuse) => refuse(method, params).map(Err),
            _ => None,
        })
    }

    /// Applies the quirks that are on to a reply (not a batch's) about to be written on stdout.
    pub fn written(&self, reply: &mut Value) {
        self.change_members(reply, |acts| match acts {
            Acts::Written(change) => Some(change),
            _ => None,
        });
    }

    /// The lines a reply (not a batch's) is written as on stdout, answering `frame`: one line of
    /// compact JSON, once the quirks that are on change them.
    pub fn printed(&self, frame: &[u8], reply: &Value) -> Vec<String> {
        let mut lines = vec![reply.to_string()];
        if let Value::Object(members) = reply {
            for acts in self.acting() {
                if let Acts::Printed(change) = acts {
                    change(frame, members, &mut lines);
                }
            }
        }
        lines
    }

    /// Whether a quirk that is on skips this check.
    pub fn waives(&self, check: Waiver) -> bool {
        self.acting()
            .any(|acts| matches!(acts, Acts::Waive(skipped) if skipped == check))
    }

    /// Whether a quirk that is on withholds this capability: the server neither declares nor
    /// serves it.
    pub fn withholds(&self, capability: &str) -> bool {
        self.acting()
            .any(|acts| matches!(acts, Acts::Withheld(withheld) if withheld == capability))
    }

    /// The protocol version initialize is answered with (and the session speaks), given the
    /// version asked for, those the server supports (newest first), and the one it would answer
    /// with, once the quirks that are on have changed it.
    pub fn negotiated(&self, requested: &str, supported: &[&str], version: &mut String) {
        for acts in self.acting() {
            if let Acts::Negotiated(change) = acts {
                change(requested, supported, version);
            }
        }
    }

    /// Whether a quirk that is on makes this check.
    pub fn demands(&self, check: Demand) -> bool {
        self.acting()
            .any(|acts| matches!(acts, Acts::Demand(made) if made == check))
    }

    /// The HTTP status of the answer to a POST, once the quirks that are on have changed it,
    /// given its JSON body (null for notifications acknowledged without a body).
    pub fn status(&self, body: &Value, status: hyper::StatusCode) -> hyper::StatusCode {
        let mut code = status.as_u16();
        for acts in self.acting() {
            if let Acts::Status(change) = acts {
                change(body, &mut code);
            }
        }
        hyper::StatusCode::from_u16(code).unwrap_or(status)
    }

    /// The path this authorization document or endpoint (`protected-resource`,
    /// `authorization-server`, `authorize`, `moved-protected-resource`) is served at, if
    /// anywhere, once the quirks that are on have moved it from `default`.
    pub fn located(&self, document: &str, default: Option<&'static str>) -> Option<&'static str> {
        let mut path = default;
        for acts in self.acting() {
            if let Acts::Location(place, change) = acts {
                if place == document {
                    change(&mut path);
                }
            }
        }
        path
    }

    /// The id of a new session, once the quirks that are on have changed it.
    pub fn session_id(&self, mut id: String) -> String {
        for acts in self.acting() {
            if let Acts::SessionId(change) = acts {
                change(&mut id);
            }
        }
        id
    }

    /// Applies the quirks that are on to the bytes the server is about to write over this
    /// transport (`stdio`: a line; `http`: a JSON body), or as this document
    /// (`protected-resource`).
    pub fn encoded(&self, what: &str, bytes: &mut Vec<u8>) {
        for acts in self.acting() {
            if let Acts::Encoded(place, change) = acts {
                if place == what {
                    change(bytes);
                }
            }
        }
    }

    /// The answer a quirk that is on gives in place of the handler's to a request that is no
    /// POST (the first declared that gives one), or `None`.
    pub fn intercepted(&self, request: &NonPost) -> Option<(u16, &'static str)> {
        self.acting().find_map(|acts| match acts {
            Acts::Intercept(answer) => answer(request),
            _ => None,
        })
    }

    /// Applies the quirks that are on to the capabilities the server declares.
    pub fn declared(&self, capabilities: &mut Map<String, Value>) {
        for acts in self.acting() {
            if let Acts::Declared(change) = acts {
                change(capabilities);
            }
        }
    }

    /// The messages the server opens an exchange with (`subscriptions/listen`, `roots/list`),
    /// given what names it (see [`Acts::Opening`]), once the quirks that are on change them.
    pub fn opening(&self, exchange: &str, names: &Value, mut opening: Vec<Value>) -> Vec<Value> {
        for acts in self.acting() {
            if let Acts::Opening(place, change) = acts {
                if place == exchange {
                    change(names, &mut opening);
                }
            }
        }
        opening
    }

    /// Applies the quirks that are on to the params of a `method` request the server is about
    /// to send the client, in an exchange at `version`.
    pub fn ask(&self, method: &str, version: &str, params: &mut Value) {
        for acts in self.acting() {
            if let Acts::Ask(places, change) = acts {
                if places.contains(&method) {
                    change(version, params);
                }
            }
        }
    }

    /// The notifications the quirks that are on send while the server answers `method`.
    pub fn notices(&self, method: &str, params: &Value, outcome: &Outcome) -> Vec<Value> {
        self.acting()
            .filter_map(|acts| match acts {
                Acts::Notice(places, notice) if places.contains(&method) => notice(params, outcome),
                _ => None,
            })
            .collect()
    }

    /// Applies the quirks that are on to a 2025-11-25 task as the server shows it.
    pub fn task_view(&self, view: &mut Value) {
        self.change_members(view, |acts| match acts {
            Acts::TaskView(change) => Some(change),
            _ => None,
        });
    }

    /// Whether a quirk that is on changes the replies to messages (`; replies`): the server
    /// keeps a copy of each message for them only then.
    pub fn replies(&self) -> bool {
        self.acting().any(|acts| matches!(acts, Acts::Reply(_)))
    }

    /// Applies the quirks that are on to the reply to `message`; a reply they change is
    /// rewritten as every response is.
    pub fn replied(&self, message: &Value, mut reply: Option<Value>) -> Option<Value> {
        let Value::Object(message) = message else {
            return reply;
        };
        for acts in self.acting() {
            if let Acts::Reply(change) = acts {
                let changed = change(message, reply.clone());
                if changed != reply {
                    reply = changed.map(|r| self.rewrite(r));
                }
            }
        }
        reply
    }

    /// Applies the quirks that are on to the entry of the skill at `index` of `stock`.
    pub fn skill_entry(&self, stock: &Stock, index: usize, entry: &mut Map<String, Value>) {
        for acts in self.acting() {
            if let Acts::SkillEntry(change) = acts {
                change(stock, index, entry);
            }
        }
    }

    /// Applies the quirks that are on to an authorization document about to be served
    /// (`protected-resource` or `authorization-server`).
    pub fn document(&self, document: &str, members: &mut Map<String, Value>) {
        for acts in self.acting() {
            if let Acts::Document(place, change) = acts {
                if place == document {
                    change(members);
                }
            }
        }
    }
}

/// The quirks that are data: what each changes where it acts ([`Acts`]).
// A listing's function takes the list itself, as one that adds an item must.
#[allow(clippy::ptr_arg)]
mod data {
    use super::{Challenge, Form, NonPost, Settled};
    use crate::fixtures;
    use crate::outcome::{Failure, Outcome, UNANSWERED};
    use crate::stock::{digest, Skill, Stock};
    use serde_json::json;
    use serde_json::{Map, Value};
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// Streamable HTTP: a GET in the handshake era answered 200 with a plain-text body instead
    /// of an SSE stream (or 405).
    pub fn get_200_plain(request: &NonPost) -> Option<(u16, &'static str)> {
        (request.method == "GET" && request.handshake()).then_some((200, "ok"))
    }

    /// Streamable HTTP: a DELETE in the handshake era answered 500, the session kept.
    pub fn delete_500(request: &NonPost) -> Option<(u16, &'static str)> {
        (request.method == "DELETE" && request.handshake()).then_some((500, "cannot delete"))
    }

    /// 2026-07-28 HTTP: a GET answered 200 instead of 405.
    pub fn stateless_get_allowed(request: &NonPost) -> Option<(u16, &'static str)> {
        (request.method == "GET" && request.stateless).then_some((200, "ok"))
    }

    /// stdio: every reply pretty-printed over several lines.
    pub fn pretty(_: &[u8], reply: &Map<String, Value>, lines: &mut Vec<String>) {
        let pretty = serde_json::to_string_pretty(reply).expect("serializable");
        for line in lines.iter_mut() {
            line.clone_from(&pretty);
        }
    }

    /// stdio: the reply to a frame that names `"ping"` pretty-printed over several lines.
    pub fn pretty_ping(frame: &[u8], reply: &Map<String, Value>, lines: &mut Vec<String>) {
        if frame.windows(6).any(|w| w == b"\"ping\"") {
            pretty(frame, reply, lines);
        }
    }

    /// stdio: a response (not a notification or a request) written twice.
    pub fn twice(_: &[u8], reply: &Map<String, Value>, lines: &mut Vec<String>) {
        if reply.get("method").is_none() && reply.contains_key("id") {
            lines.extend_from_slice(&lines.clone());
        }
    }

    /// A listen stream's acknowledgement among the messages it opens with.
    fn acknowledgement(opening: &mut [Value]) -> Option<&mut Value> {
        opening
            .iter_mut()
            .find(|m| m["method"] == "notifications/subscriptions/acknowledged")
    }

    /// `StatelessListenUntagged`: the acknowledgement leaves out the subscription's id.
    pub fn untagged_ack(_tag: &Value, opening: &mut Vec<Value>) {
        if let Some(params) = acknowledgement(opening).and_then(|a| a["params"].as_object_mut()) {
            params.remove("_meta");
        }
    }

    /// `StatelessListenAckUnrequested`: the acknowledgement agrees to prompt list changes too.
    pub fn prompts_acknowledged(_tag: &Value, opening: &mut Vec<Value>) {
        if let Some(ack) = acknowledgement(opening) {
            ack["params"]["notifications"]["promptsListChanged"] = json!(true);
        }
    }

    /// `StatelessListenNotifyBeforeAck`: a tagged tools/list_changed goes before the
    /// acknowledgement.
    pub fn change_before_ack(tag: &Value, opening: &mut Vec<Value>) {
        let at = opening
            .iter()
            .position(|m| m["method"] == "notifications/subscriptions/acknowledged")
            .unwrap_or(0);
        opening.insert(
            at,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": tag}}),
        );
    }

    /// `StatelessListenExtraAfterAck`: a tagged resources/list_changed nobody asked for follows.
    pub fn resources_change_after_ack(tag: &Value, opening: &mut Vec<Value>) {
        opening.push(json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {"_meta": tag}}));
    }

    /// `StatelessListenChangeUntagged`: a tools/list_changed without the subscription's id
    /// follows.
    pub fn untagged_change_after_ack(_tag: &Value, opening: &mut Vec<Value>) {
        opening.push(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    }

    /// `StatelessListenServerRequest`: a roots/list request follows.
    pub fn roots_request_after_ack(_tag: &Value, opening: &mut Vec<Value>) {
        opening.push(
            json!({"jsonrpc": "2.0", "id": "reference-server-roots", "method": "roots/list"}),
        );
    }

    /// `ToolsServedUndeclared`: the tools capability is not declared.
    pub fn without_tools(capabilities: &mut Map<String, Value>) {
        capabilities.shift_remove("tools");
    }

    /// `ResourcesServedUndeclared`, `SkillsResourcesUndeclared`: the resources capability is not
    /// declared.
    pub fn without_resources(capabilities: &mut Map<String, Value>) {
        capabilities.shift_remove("resources");
    }

    /// `PromptsServedUndeclared`: the prompts capability is not declared.
    pub fn without_prompts(capabilities: &mut Map<String, Value>) {
        capabilities.shift_remove("prompts");
    }

    /// `CompletionsServedUndeclared`, `StatelessCompletionsServedUndeclared`: the completions
    /// capability is not declared.
    pub fn without_completions(capabilities: &mut Map<String, Value>) {
        capabilities.shift_remove("completions");
    }

    /// `LoggingServedUndeclared`: the logging capability is not declared.
    pub fn without_logging(capabilities: &mut Map<String, Value>) {
        capabilities.shift_remove("logging");
    }

    /// `LoggingServedUndeclared`: a level set is told at once, in a log message the server
    /// never declared it sends.
    pub fn level_set_logged(_params: &Value, outcome: &Outcome) -> Option<Value> {
        outcome.is_ok().then(|| {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "notice", "logger": "mcpcheck-reference", "data": "log level set"}
            })
        })
    }

    /// `ProgressDecreasing`: a tool call reports its progress in reverse, the largest first.
    pub fn progress_reversed(progress: &mut [u64]) {
        progress.reverse();
    }

    /// `TaskProgressTaskId`: a task's progress names the task (its `_meta` relates it) as its
    /// token, whatever token the request carried, if any.
    pub fn progress_under_task_id(params: &mut Map<String, Value>) {
        if let Some(task) = params
            .get("_meta")
            .and_then(|meta| meta.get(fixtures::RELATED))
            .and_then(|related| related.get("taskId"))
            .cloned()
        {
            params.insert("progressToken".into(), task);
        }
    }

    /// `TaskCancelledCompletes`: a 2025-11-25 task that was cancelled is shown completed once
    /// its work would have ended.
    pub fn cancelled_completes(task: &Settled, status: &mut &'static str) {
        if !task.extension && task.cancelled {
            *status = "completed";
        }
    }

    /// `ExtTaskToolErrorFailed`: a task of the tasks extension whose tool answered with
    /// `isError` is shown failed.
    pub fn tool_error_failed(task: &Settled, status: &mut &'static str) {
        if task.extension
            && !task.cancelled
            && matches!(task.outcome, Ok(result) if result.get("isError") == Some(&json!(true)))
        {
            *status = "failed";
        }
    }

    /// `SkillsNameUppercase`: the second skill is named in capitals, in its folder and its
    /// frontmatter.
    pub fn second_skill_uppercase(stock: &mut Stock) {
        if let Some(skill) = stock.skills.get_mut(1) {
            let upper = name_of(skill).to_uppercase();
            skill.path = match skill.path.rsplit_once('/') {
                Some((parent, _)) => format!("{parent}/{upper}"),
                None => upper.clone(),
            };
            rename(skill, &upper);
        }
    }

    /// `SkillsUriNameMismatch`: the second skill's frontmatter names it otherwise than its
    /// folder does.
    pub fn second_skill_renamed(stock: &mut Stock) {
        if let Some(skill) = stock.skills.get_mut(1) {
            let renamed = format!("{}-renamed", name_of(skill));
            rename(skill, &renamed);
        }
    }

    /// The name a skill's frontmatter gives it.
    fn name_of(skill: &Skill) -> String {
        skill.frontmatter["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Names a skill `new` in its frontmatter and its SKILL.md.
    fn rename(skill: &mut Skill, new: &str) {
        let old = name_of(skill);
        skill.frontmatter["name"] = json!(new);
        if let Some((_, bytes)) = skill.files.iter_mut().find(|(f, _)| f == "SKILL.md") {
            let text = String::from_utf8_lossy(bytes).replacen(
                &format!("name: {old}"),
                &format!("name: {new}"),
                1,
            );
            *bytes = text.into_bytes();
        }
    }

    /// `AuthSecondServerNoPkce`: a second authorization server's metadata is served, at the
    /// origin's `/second`.
    pub fn second_server_at(path: &mut Option<&'static str>) {
        *path = Some("/.well-known/oauth-authorization-server/second");
    }

    /// `AuthSecondServerNoPkce`: the resource's metadata lists the second authorization server
    /// too (at the origin the resource is at).
    pub fn second_server_listed(document: &mut Map<String, Value>) {
        let Some(origin) = document
            .get("resource")
            .and_then(Value::as_str)
            .and_then(|resource| resource.strip_suffix("/mcp"))
            .map(str::to_string)
        else {
            return;
        };
        if let Some(servers) = document
            .get_mut("authorization_servers")
            .and_then(Value::as_array_mut)
        {
            servers.push(json!(format!("{origin}/second")));
        }
    }

    /// `SkillsFileOutside`: the first skill's files list the second skill's SKILL.md too.
    pub fn first_skill_lists_seconds_file(
        stock: &Stock,
        index: usize,
        entry: &mut Map<String, Value>,
    ) {
        let Some(other) = stock.skills.get(1).filter(|_| index == 0) else {
            return;
        };
        if let Some(files) = entry.get_mut("resources").and_then(Value::as_array_mut) {
            let bytes = &other.files[0].1;
            files.push(json!({"uri": format!("{}/SKILL.md", stock.root(other)), "digest": digest(bytes), "size": bytes.len()}));
        }
    }

    /// `SkillsCustomScheme`: the skills' URIs use a scheme of the server's own, `repo://`.
    pub fn repo_scheme(stock: &mut Stock) {
        stock.scheme = "repo";
    }

    /// `LogMessageWithoutData`: a log message leaves out its `data`.
    pub fn without_data(params: &mut Map<String, Value>) {
        params.shift_remove("data");
    }

    /// `TaskResultUnrelated`: tasks/result's result leaves out the task it relates to.
    pub fn result_unrelated(_params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            if let Some(members) = result.as_object_mut() {
                let emptied = members
                    .get_mut("_meta")
                    .and_then(Value::as_object_mut)
                    .is_some_and(|meta| {
                        meta.shift_remove(fixtures::RELATED);
                        meta.is_empty()
                    });
                if emptied {
                    members.shift_remove("_meta");
                }
            }
            result
        })
    }

    /// `ExtTaskNested`: a task handle (the extension's CreateTaskResult) holds its task in a
    /// `task` member instead of being the task.
    pub fn task_handle_nested(_params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            let Some(members) = result.as_object_mut() else {
                return result;
            };
            if members.get("resultType") != Some(&json!("task")) {
                return result;
            }
            members.shift_remove("resultType");
            json!({"resultType": "task", "task": result})
        })
    }

    /// `ExtTaskGetResultTypeTask`: the extension's tasks/get sets `resultType` "task".
    pub fn task_view_typed_task(_params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut view| {
            view["resultType"] = json!("task");
            view
        })
    }

    /// `StatelessMrtrUndeclaredRequest`: the roots tool's round asks the client to sample too,
    /// a capability the request did not declare.
    pub fn roots_round_asks_sampling(params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            if params["name"] == fixtures::ROOTS_TOOL {
                if let Some(requests) = result
                    .get_mut("inputRequests")
                    .and_then(Value::as_object_mut)
                {
                    requests.insert("sample".into(), json!({"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}], "maxTokens": 10}}));
                }
            }
            result
        })
    }

    /// `SkillsDirectoryUntyped`: a directory read leaves out each subfolder's mimeType.
    pub fn folders_untyped(_params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            if let Some(items) = result.get_mut("resources").and_then(Value::as_array_mut) {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    if item.get("mimeType") == Some(&json!(fixtures::DIRECTORY)) {
                        item.shift_remove("mimeType");
                    }
                }
            }
            result
        })
    }

    /// `StdioErrorsWithoutId`: an error written on stdout leaves out its `id`.
    pub fn stdio_error_without_id(reply: &mut Map<String, Value>) {
        if reply.contains_key("error") {
            reply.remove("id");
        }
    }

    /// `AuthOfflineAccess`: the challenge's scope names `offline_access` too.
    pub fn offline_access_asked(challenge: &mut Challenge) {
        for (name, value) in &mut challenge.params {
            if name == "scope" {
                value.push_str(" offline_access");
            }
        }
    }

    /// `AuthOfflineAccess`: the resource metadata's `scopes_supported` names `offline_access`
    /// too.
    pub fn offline_access_supported(document: &mut Map<String, Value>) {
        if let Some(Value::Array(scopes)) = document.get_mut("scopes_supported") {
            scopes.push(json!("offline_access"));
        }
    }

    /// `ServerRequestIdReused`: a second roots/list goes out under the first one's id.
    pub fn roots_id_reused(_: &Value, opening: &mut Vec<Value>) {
        if let Some(first) = opening
            .iter()
            .find(|m| m["method"] == "roots/list")
            .cloned()
        {
            opening.push(first);
        }
    }

    /// `ServerSendsSampling`: a sampling request goes out too, though the client never declared
    /// sampling.
    pub fn sampling_unasked(_: &Value, opening: &mut Vec<Value>) {
        opening.push(json!({"jsonrpc": "2.0", "id": "ref-sampling-1", "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}], "maxTokens": 10}}));
    }

    /// `StatelessListenEndUnannounced`: a subscription the server ends gets no final result.
    pub fn listen_unanswered(_params: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Ok(_) => Err((UNANSWERED, String::new(), None)),
            refused => refused,
        }
    }

    /// `StatelessListenFinalUntagged`: the final result of a subscription the server ends
    /// leaves out the subscription's id.
    pub fn final_untagged(_params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            if let Some(members) = result.as_object_mut() {
                members.remove("_meta");
            }
            result
        })
    }

    /// `ElicitationDefaultMistyped`: the form's integer field `age` has the default "30", a
    /// string.
    pub fn age_default_string(_version: &str, params: &mut Value) {
        if let Some(age) = params.pointer_mut("/requestedSchema/properties/age") {
            age["default"] = json!("30");
        }
    }

    /// `ElicitationUrlUndeclared`: from 2025-11-25, the form that asks for a username goes to a
    /// URL instead (URL mode, which the client did not declare).
    pub fn username_form_as_url(version: &str, params: &mut Value) {
        if fixtures::at_least(version, "2025-11-25")
            && params
                .pointer("/requestedSchema/properties/username")
                .is_some()
        {
            *params = json!({"mode": "url", "message": params["message"], "url": "https://example.com/form", "elicitationId": "ref-elicitation-1"});
        }
    }

    fn is_error(response: &Map<String, Value>) -> bool {
        response.contains_key("error")
    }

    /// `JsonrpcMissingOnErrors`: error responses lose `"jsonrpc": "2.0"`.
    pub fn no_jsonrpc_on_errors(response: &mut Map<String, Value>) {
        if is_error(response) {
            response.shift_remove("jsonrpc");
        }
    }

    /// `ErrorWithNullResult`: error responses also carry `"result": null`.
    pub fn null_result_on_errors(response: &mut Map<String, Value>) {
        if is_error(response) {
            response.insert("result".into(), Value::Null);
        }
    }

    /// `NullIdErrorsNamed`: an error with id null names the id "server-error" instead.
    pub fn null_id_named(response: &mut Map<String, Value>) {
        if response.contains_key("error") && response.get("id") == Some(&Value::Null) {
            response.insert("id".into(), Value::from("server-error"));
        }
    }

    /// `ZeroIdNull`: a response to id 0 carries id null.
    pub fn zero_id_null(response: &mut Map<String, Value>) {
        if let Some(id) = response.get_mut("id") {
            if id.as_i64() == Some(0) {
                *id = Value::Null;
            }
        }
    }

    /// `MethodNotFoundNoMessage`: the -32601 error has no `message`.
    pub fn no_message_on_32601(response: &mut Map<String, Value>) {
        if let Some(Value::Object(error)) = response.get_mut("error") {
            if error.get("code") == Some(&Value::from(-32601)) {
                error.shift_remove("message");
            }
        }
    }

    /// `BlobUnpadded`: the fixtures' base64 payloads lose their `=` padding in every result.
    pub fn unpad_results(response: &mut Map<String, Value>) {
        if let Some(result) = response.get_mut("result") {
            unpad(result);
        }
    }

    fn unpad(value: &mut Value) {
        match value {
            Value::String(text)
                if text == crate::fixtures::PIXEL_PNG || text == crate::fixtures::SILENCE_WAV =>
            {
                *text = text.trim_end_matches('=').to_string();
            }
            Value::Array(items) => items.iter_mut().for_each(unpad),
            Value::Object(members) => members.values_mut().for_each(unpad),
            _ => {}
        }
    }

    /// Whether an outcome is resources/read's not-found error (-32602 naming the URI).
    fn not_found(outcome: &Outcome) -> Option<Value> {
        match outcome {
            Err((-32602, _, Some(data))) => data.get("uri").cloned(),
            _ => None,
        }
    }

    /// Whether the handler answered the request itself: a result, or its own -32602 (not a
    /// refusal of the method or of a connection not yet initialized, which a quirk of the
    /// method's answer leaves as it is).
    fn answered(outcome: &Outcome) -> bool {
        matches!(outcome, Ok(_) | Err((-32602, _, _)))
    }

    /// The string at a pointer of the request's params (empty: none there).
    fn text_at<'v>(params: &'v Value, pointer: &str) -> &'v str {
        params
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// A prompt of one user message with this text.
    fn user_prompt(text: &str) -> Outcome {
        Ok(json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}))
    }

    /// `PromptMissingArgumentServed`: `greeting` without its `name` is produced anyway.
    pub fn greeting_without_name(params: &Value, outcome: Outcome) -> Outcome {
        if text_at(params, "/name") == "greeting"
            && params.pointer("/arguments/name").is_none()
            && answered(&outcome)
        {
            return user_prompt("Please greet .");
        }
        outcome
    }

    /// `EverythingPromptMissingArgumentServed`: `test_prompt_with_arguments` without `arg2` is
    /// produced anyway.
    pub fn arguments_prompt_without_arg2(params: &Value, outcome: Outcome) -> Outcome {
        if text_at(params, "/name") == "test_prompt_with_arguments"
            && params.pointer("/arguments/arg2").is_none()
            && answered(&outcome)
        {
            return user_prompt("Prompt with arguments: arg1='?', arg2=''");
        }
        outcome
    }

    /// `EverythingPromptIgnoresArguments`: `test_prompt_with_arguments` leaves its arguments out.
    pub fn arguments_ignored(params: &Value, outcome: Outcome) -> Outcome {
        if text_at(params, "/name") == "test_prompt_with_arguments" && answered(&outcome) {
            return user_prompt("Prompt with arguments.");
        }
        outcome
    }

    /// `CompletionTooManyValues`: completing `greeting`'s argument gives 101 values.
    pub fn greeting_101_values(params: &Value, outcome: Outcome) -> Outcome {
        if text_at(params, "/ref/name") == "greeting" && answered(&outcome) {
            let values: Vec<String> = (1..=101).map(|n| format!("Name {n}")).collect();
            return Ok(json!({"completion": {"values": values, "total": 101, "hasMore": false}}));
        }
        outcome
    }

    /// `ResourceTraversal`: a file:// URI with `..` segments is read, as a fake /etc/passwd.
    pub fn traversal_read(params: &Value, outcome: Outcome) -> Outcome {
        let uri = text_at(params, "/uri");
        if uri.starts_with("file://") && uri.contains("/..") && not_found(&outcome).is_some() {
            return Ok(
                json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "root:x:0:0:root:/root:/bin/sh\n"}]}),
            );
        }
        outcome
    }

    /// `EverythingTemplateIgnoresId`: a resource read through `test://template/{id}/data` does
    /// not mention the id.
    pub fn template_without_id(params: &Value, mut outcome: Outcome) -> Outcome {
        let uri = text_at(params, "/uri");
        // (Another quirk may have made the contents empty: nothing to rewrite then.)
        if let Some(item) = outcome
            .as_mut()
            .ok()
            .filter(|_| uri.starts_with("test://template/"))
            .and_then(|result| result.pointer_mut("/contents/0"))
            .and_then(Value::as_object_mut)
        {
            item.insert("text".into(), json!("{\"data\": \"data\"}"));
        }
        outcome
    }

    /// `MalformedCallInternalError`: a tools/call without a name gets -32603.
    pub fn nameless_call_internal_error(params: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Err((-32602, message, data)) if !params.get("name").is_some_and(Value::is_string) => {
                Err((-32603, message, data))
            }
            other => other,
        }
    }

    /// `InvalidArgumentsAccepted`: `mcpcheck_echo` without its required `text` succeeds, with
    /// empty text.
    pub fn echo_without_text_accepted(params: &Value, outcome: Outcome) -> Outcome {
        let refused = outcome
            .as_ref()
            .is_ok_and(|result| result.get("isError") == Some(&Value::Bool(true)));
        if text_at(params, "/name") == "mcpcheck_echo"
            && params.pointer("/arguments/text").is_none()
            && refused
        {
            return Ok(json!({"content": [{"type": "text", "text": ""}]}));
        }
        outcome
    }

    /// `MissingResourceEmptyContents`: an unknown resource is read as empty contents.
    pub fn missing_resource_empty(_: &Value, outcome: Outcome) -> Outcome {
        match not_found(&outcome) {
            Some(_) => Ok(json!({"contents": []})),
            None => outcome,
        }
    }

    /// `MissingResourceInternalError`: an unknown resource gets -32603.
    pub fn missing_resource_internal_error(_: &Value, outcome: Outcome) -> Outcome {
        match not_found(&outcome) {
            Some(_) => Err((-32603, "Internal error".into(), None)),
            None => outcome,
        }
    }

    /// `MissingResourceNoDataUri`, `StatelessMissingResourceNoDataUri`: the not-found error
    /// carries no `data`.
    pub fn missing_resource_no_data(_: &Value, outcome: Outcome) -> Outcome {
        match not_found(&outcome) {
            Some(_) => Err((-32602, "Resource not found".into(), None)),
            None => outcome,
        }
    }

    /// `UnknownPromptEmptyResult`: a prompt the server does not list gets an empty result.
    pub fn unknown_prompt_empty(params: &Value, outcome: Outcome) -> Outcome {
        // A name the fixtures do not know (not a missing name, nor a missing argument).
        let unknown = params
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|name| {
                let args = params
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                matches!(
                    crate::fixtures::get_prompt(name, &args),
                    Err(crate::fixtures::PromptError::Unknown)
                )
            });
        match outcome {
            Err((-32602, ..)) if unknown => Ok(json!({"messages": []})),
            other => other,
        }
    }

    /// `PromptMessageBadRole`: the `plain` prompt's first message has the role `system`.
    pub fn plain_prompt_system_role(params: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            if params.get("name") == Some(&json!("plain")) {
                result["messages"][0]["role"] = json!("system");
            }
            result
        })
    }

    /// `EverythingCompletionWithoutValues`: a completion carries no `values`.
    pub fn completion_without_values(_: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|_| json!({"completion": {}}))
    }

    /// `PromptWithoutName`, `ResourceWithoutName`: the first item has no `name`.
    pub fn first_without_name(items: &mut Vec<Value>) {
        remove_from_first(items, "name");
    }

    /// `TemplateWithoutUriTemplate`: the first template has no `uriTemplate`.
    pub fn first_template_without_uri_template(items: &mut Vec<Value>) {
        remove_from_first(items, "uriTemplate");
    }

    fn remove_from_first(items: &mut [Value], member: &str) {
        if let Some(first) = items.first_mut().and_then(Value::as_object_mut) {
            first.remove(member);
        }
    }

    /// `ResourceUriWithoutScheme`: the first resource's uri is a relative reference.
    pub fn first_uri_without_scheme(items: &mut Vec<Value>) {
        if let Some(first) = items.first_mut() {
            first["uri"] = json!("docs/readme");
        }
    }

    /// `ResourceUriBadEscape`: the second resource's uri has a bad percent escape.
    pub fn second_uri_bad_escape(items: &mut Vec<Value>) {
        if let Some(second) = items.get_mut(1) {
            second["uri"] = json!("ref://images/pi%xel");
        }
    }

    /// `ToolNameWithSpace`: the first tool's name has a space.
    pub fn first_tool_name_with_space(tools: &mut Vec<Value>) {
        if let Some(first) = tools.first_mut() {
            first["name"] = json!("mcpcheck echo");
        }
    }

    /// `ToolInputSchemaInvalid`: the first tool's inputSchema names a type that does not exist.
    pub fn first_tool_schema_invalid(tools: &mut Vec<Value>) {
        if let Some(first) = tools.first_mut() {
            first["inputSchema"]["properties"]["text"]["type"] = json!("strin");
        }
    }

    /// `ToolInputSchemaWithoutType`: the first tool's inputSchema has no `type`.
    pub fn first_tool_schema_without_type(tools: &mut Vec<Value>) {
        if let Some(schema) = tools
            .first_mut()
            .and_then(|t| t.get_mut("inputSchema"))
            .and_then(Value::as_object_mut)
        {
            schema.remove("type");
        }
    }

    /// `ToolNameDuplicate`: the first tool is listed twice.
    pub fn first_tool_twice(tools: &mut Vec<Value>) {
        if let Some(first) = tools.first().cloned() {
            tools.push(first);
        }
    }

    /// `ToolAnnotationStringHint`: `readOnlyHint` is the string "true" wherever annotations are.
    pub fn read_only_hint_string(tools: &mut Vec<Value>) {
        for tool in tools.iter_mut().filter(|t| t.get("annotations").is_some()) {
            tool["annotations"]["readOnlyHint"] = json!("true");
        }
    }

    /// `SchemaKeywordsDropped`: as an SDK that rebuilds a schema from its own types, what it
    /// does not model is gone (`if`/`then`/`else`, a `$defs` entry's `$anchor`).
    pub fn schema_keywords_dropped(tools: &mut Vec<Value>) {
        for tool in tools.iter_mut() {
            if let Some(schema) = tool["inputSchema"].as_object_mut() {
                for keyword in ["if", "then", "else"] {
                    schema.remove(keyword);
                }
            }
            if let Some(address) = tool
                .pointer_mut("/inputSchema/$defs/address")
                .and_then(Value::as_object_mut)
            {
                address.remove("$anchor");
            }
        }
    }

    /// `StatelessXMcpHeaderOnNumber`: `mcpcheck_structured` marks its number argument with
    /// `x-mcp-header`.
    pub fn header_on_number(tools: &mut Vec<Value>) {
        if let Some(tool) = tools
            .iter_mut()
            .find(|t| t["name"] == "mcpcheck_structured")
        {
            tool["inputSchema"]["properties"]["a"]["x-mcp-header"] = json!("A");
        }
    }

    /// `PingError`: a ping the server would answer gets -32601.
    pub fn ping_error(_: &Value, outcome: Outcome) -> Outcome {
        outcome.and_then(|_| Err((-32601, "Method not found".into(), None)))
    }

    /// `SetLevelRefused`: what the handler served (a valid level, which the server leaves unset)
    /// gets -32603; its errors (an unknown level's -32602) pass as they are.
    pub fn set_level_refused(_: &Value, outcome: Outcome) -> Outcome {
        outcome.and_then(|_| {
            Err((
                -32603,
                "Internal error: log levels cannot be changed".into(),
                None,
            ))
        })
    }

    /// `ToolIconFileScheme`: the first tool's icon is a file on the server's machine.
    pub fn icon_file_scheme(tools: &mut Vec<Value>) {
        if let Some(tool) = tools.first_mut() {
            tool["icons"] =
                json!([{"src": "file:///usr/share/icons/mcpcheck.png", "mimeType": "image/png"}]);
        }
    }

    /// `MetaKeyInvalid`: every page of tools/list carries a `_meta` key that breaks the key
    /// grammar.
    pub fn invalid_meta_key(_: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut page| {
            page["_meta"] = json!({"-not a key-": true});
            page
        })
    }

    /// `VersionNoEcho`: a supported version is answered with the next older one (the oldest with
    /// itself).
    pub fn older_version(requested: &str, supported: &[&str], version: &mut String) {
        if let Some(i) = supported.iter().position(|v| *v == requested) {
            *version = supported[(i + 1).min(supported.len() - 1)].to_string();
        }
    }

    /// `EchoUnsupportedVersion`: a version the server does not support is echoed all the same.
    pub fn unsupported_echoed(requested: &str, supported: &[&str], version: &mut String) {
        if !supported.contains(&requested) {
            *version = requested.to_string();
        }
    }

    /// The capability the logging quirks withhold.
    pub const LOGGING: &str = "logging";

    /// `LoggingUndeclaredOtherError`: logging/setLevel, which the server finds unknown (before
    /// initialize too), gets -32603 instead.
    pub fn set_level_unavailable(_: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Err((-32601, ..)) => Err((
                -32603,
                "Internal error: logging is not available".into(),
                None,
            )),
            other => other,
        }
    }

    /// `LoggingUndeclaredInvalidLevelHandled`: logging/setLevel with a level that is none of the
    /// levels, which the server finds unknown (before initialize too), gets -32603 instead. With
    /// `LoggingUndeclaredOtherError` also on, whichever is declared first answers.
    pub fn unknown_level_internal_error(params: &Value, outcome: Outcome) -> Outcome {
        let known = params
            .get("level")
            .and_then(Value::as_str)
            .is_some_and(|level| crate::outcome::LOG_LEVELS.contains(&level));
        match outcome {
            Err((-32601, ..)) if !known => {
                Err((-32603, "Internal error: unknown log level".into(), None))
            }
            other => other,
        }
    }

    /// `SetLevelAcceptsAnything`: an unknown log level is accepted.
    pub fn any_level_accepted(_: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Err((-32602, ..)) => Ok(json!({})),
            other => other,
        }
    }

    /// `AuthMissingToken403`: a request without a token gets 403.
    pub fn missing_token_403(challenge: &mut Challenge) {
        if !challenge.token_given {
            challenge.status = 403;
        }
    }

    /// `AuthChallengeBasic`: the challenge is of the Basic scheme.
    pub fn basic_challenge(challenge: &mut Challenge) {
        challenge.scheme = "Basic".into();
        challenge.params = vec![("realm".into(), "mcp".into())];
    }

    /// The challenge's `resource_metadata` URL made to name `path` at the same origin.
    fn relink(challenge: &mut Challenge, path: &str) {
        for (name, value) in &mut challenge.params {
            if let Some((origin, _)) = value
                .split_once("/.well-known/")
                .filter(|_| name == "resource_metadata")
            {
                *value = format!("{origin}{path}");
            }
        }
    }

    /// `AuthMetadataDeadLink`: the challenge names a metadata URL that serves nothing.
    pub fn metadata_link_dead(challenge: &mut Challenge) {
        relink(challenge, "/.well-known/oauth-protected-resource/gone");
    }

    /// Where `AuthMetadataRedirect` redirects to the metadata from.
    const MOVED_METADATA: &str = "/.well-known/oauth-protected-resource/moved";

    /// `AuthMetadataRedirect`: the challenge names a URL that redirects to the metadata.
    pub fn metadata_moved(challenge: &mut Challenge) {
        relink(challenge, MOVED_METADATA);
    }

    /// `AuthMetadataRedirect`: a URL that redirects to the metadata.
    pub fn metadata_redirect(path: &mut Option<&'static str>) {
        *path = Some(MOVED_METADATA);
    }

    /// `AuthMetadataMissing`, `AuthServerMetadataMissing`, `AuthOriginMetadataMissing`,
    /// `AuthOriginNoEndpoints`: a document or endpoint served nowhere.
    pub fn nowhere(path: &mut Option<&'static str>) {
        *path = None;
    }

    /// `AuthNoChallenge`: a bare 401, without a challenge.
    pub fn bare_401(challenge: &mut Challenge) {
        challenge.form = Form::Bare;
    }

    /// `AuthBadToken500`: a token that is not valid is answered 500 with an OAuth error body and
    /// no challenge, as when a token verifier throws and its framework turns that into a server
    /// error.
    pub fn bad_token_500(challenge: &mut Challenge) {
        if challenge.token_given {
            challenge.status = 500;
            challenge.error = Some("server_error".into());
            challenge.description = "token verification failed".into();
            challenge.form = Form::Unchallenged;
        }
    }

    /// `AuthMetadataHidden`: the metadata is served at a path of its own, neither well-known URI.
    pub fn metadata_hidden(path: &mut Option<&'static str>) {
        *path = Some("/metadata/oauth-protected-resource");
    }

    /// `AuthMetadataAtRoot`: the metadata is served at the root well-known URI.
    pub fn metadata_at_root(path: &mut Option<&'static str>) {
        *path = Some("/.well-known/oauth-protected-resource");
    }

    /// `AuthServerOidcOnly`: the authorization server metadata is served by OpenID Connect
    /// Discovery only.
    pub fn oidc_only(path: &mut Option<&'static str>) {
        *path = Some("/.well-known/openid-configuration");
    }

    /// `AuthMetadataUnnamed`, `AuthMetadataHidden`: the challenge names no metadata URL.
    pub fn metadata_unnamed(challenge: &mut Challenge) {
        challenge
            .params
            .retain(|(name, _)| name != "resource_metadata");
    }

    /// `AuthMissingTokenError`: a request without a token is refused with error
    /// "invalid_token" (in the challenge and the body), as one with a bad token is.
    pub fn missing_token_error_named(challenge: &mut Challenge) {
        if !challenge.token_given {
            challenge
                .params
                .push(("error".to_string(), "invalid_token".to_string()));
            challenge.error = Some("invalid_token".to_string());
        }
    }

    /// `AuthInvalidTokenNoError`: the challenge names no error.
    pub fn no_error_named(challenge: &mut Challenge) {
        challenge.params.retain(|(name, _)| name != "error");
    }

    /// `AuthChallengeNoScope`: the challenge names no scope.
    pub fn no_scope_named(challenge: &mut Challenge) {
        challenge.params.retain(|(name, _)| name != "scope");
    }

    /// `HttpErrorsWithoutId`: an error answered in a POST's JSON body leaves out its id.
    pub fn http_error_without_id(_: u16, answer: &mut Map<String, Value>) {
        if is_error(answer) {
            answer.remove("id");
        }
    }

    /// `StatelessRefusalsWithoutId`: an answer with a 4xx status leaves out its id.
    pub fn refusal_without_id(status: u16, answer: &mut Map<String, Value>) {
        if (400..500).contains(&status) {
            answer.remove("id");
        }
    }

    /// `ContentTypeTextPlain`: a JSON body is labelled `text/plain`.
    pub fn json_as_text_plain(headers: &mut hyper::HeaderMap) {
        headers.insert(
            "content-type",
            hyper::header::HeaderValue::from_static("text/plain"),
        );
    }

    /// `TaskListEmpty`: tasks/list lists no tasks.
    pub fn no_tasks_listed(_: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            result["tasks"] = json!([]);
            result
        })
    }

    /// `SkillsEntryNoResources`: the second skill's entry lists no files.
    pub fn second_skill_without_files(_: &Stock, index: usize, entry: &mut Map<String, Value>) {
        if index == 1 {
            entry.remove("resources");
        }
    }

    /// `SkillsFilesOmitSkillmd`: a skill's files leave out its SKILL.md (the entry's own `uri`).
    pub fn files_without_skillmd(_: &Stock, _: usize, entry: &mut Map<String, Value>) {
        let own = entry.get("uri").cloned();
        if let Some(Value::Array(files)) = entry.get_mut("resources") {
            files.retain(|f| f.get("uri") != own.as_ref());
        }
    }

    /// The digest of an earlier version of a file (`sha256:` and the hex of the SHA-256 of
    /// "an earlier version of the file"): well formed, and no file's.
    const EARLIER_DIGEST: &str =
        "sha256:61fd94771dcf6a3dd36078ca952c4e242e2617d40f648140067409d6bb7b7494";

    /// `Notification200`: a POST of notifications only is acknowledged with 200, not 202.
    pub fn acknowledged_200(body: &Value, status: &mut u16) {
        if body.is_null() {
            *status = 200;
        }
    }

    /// `StatelessHttpErrors200`: every answer in a JSON body comes with 200, an error too.
    pub fn answered_200(body: &Value, status: &mut u16) {
        if !body.is_null() {
            *status = 200;
        }
    }

    /// `SessionIdWithSpace`: a space in the middle of every session id.
    pub fn session_id_with_space(id: &mut String) {
        let middle = id.len() / 2;
        if id.is_char_boundary(middle) {
            id.insert(middle, ' ');
        }
    }

    /// `NonUtf8Output`: every `é` (UTF-8 C3 A9) goes out as the Latin-1 byte E9.
    pub fn latin1(bytes: &mut Vec<u8>) {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i..].starts_with(&[0xc3, 0xa9]) {
                out.push(0xe9);
                i += 2;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        *bytes = out;
    }

    /// `NonUtf8Output` over HTTP: the instructions gain an `é`, which goes out as Latin-1.
    pub fn cafe_instructions(bytes: &mut Vec<u8>) {
        if let Ok(text) = std::str::from_utf8(bytes) {
            *bytes = text
                .replace("harmless.", "harmless (caf\u{e9}).")
                .into_bytes();
        }
        latin1(bytes);
    }

    /// `NonUtf8Output` over stdio (and HTTP+SSE, whose messages are printed as stdio's are): the
    /// reply to initialize or server/discover is followed by a log message with an `é` (which
    /// the stdio encoding writes as Latin-1); in the instructions it would break the handshake.
    pub fn cafe_after_handshake(frame: &[u8], _: &Map<String, Value>, lines: &mut Vec<String>) {
        let handshake = serde_json::from_slice::<Value>(frame)
            .ok()
            .is_some_and(|v| {
                matches!(
                    v.get("method").and_then(Value::as_str),
                    Some("initialize" | "server/discover")
                )
            });
        if handshake {
            lines.push(
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "quirk", "data": "caf\u{e9}"}})
                    .to_string(),
            );
        }
    }

    /// `AuthMetadataNotJson`: the document is an HTML page.
    pub fn html_page(bytes: &mut Vec<u8>) {
        *bytes = b"<html><body>metadata</body></html>".to_vec();
    }

    /// `AuthMetadataNotJson`: a response sent as `text/html`.
    pub fn content_type_html(headers: &mut hyper::HeaderMap) {
        headers.insert(
            "content-type",
            hyper::header::HeaderValue::from_static("text/html"),
        );
    }

    /// `AuthMetadataContentType`: a response sent as `text/plain`.
    pub fn content_type_plain(headers: &mut hyper::HeaderMap) {
        headers.insert(
            "content-type",
            hyper::header::HeaderValue::from_static("text/plain"),
        );
    }

    /// `SkillsSkillmdPlainText`: a SKILL.md read as `text/plain`.
    pub fn skill_md_plain_text(_: &Value, mut outcome: Outcome) -> Outcome {
        if let Some(Value::Array(contents)) =
            outcome.as_mut().ok().and_then(|r| r.get_mut("contents"))
        {
            for content in contents {
                if content["uri"]
                    .as_str()
                    .is_some_and(|u| u.ends_with("/SKILL.md"))
                {
                    content["mimeType"] = json!("text/plain");
                }
            }
        }
        outcome
    }

    /// `StatelessToolsOrderUnstable`: each answer to tools/list lists its page rotated by one
    /// more than the answer before (the pages keep their tools).
    pub fn order_unstable(_: &Value, outcome: Outcome) -> Outcome {
        static ANSWERS: AtomicUsize = AtomicUsize::new(0);
        if !paged(&outcome) {
            return outcome;
        }
        rotate_tools(outcome, ANSWERS.fetch_add(1, Ordering::Relaxed))
    }

    /// `StatelessToolsLaterPageUnstable`: each answer for a later page (one asked for with a
    /// cursor) lists it rotated by one more than the answer before for that cursor.
    pub fn later_page_unstable(params: &Value, outcome: Outcome) -> Outcome {
        static TURNS: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());
        let Some(cursor) = params
            .get("cursor")
            .filter(|c| !c.is_null() && paged(&outcome))
        else {
            return outcome;
        };
        let turn = {
            let mut turns = TURNS.lock().expect("turns lock");
            let turn = turns.entry(cursor.to_string()).or_insert(0);
            *turn += 1;
            *turn - 1
        };
        rotate_tools(outcome, turn)
    }

    /// Whether tools/list was answered by paging the tools: a page, or the refusal of an
    /// unknown cursor (not a request refused before it was served, such as one before
    /// initialization).
    fn paged(outcome: &Outcome) -> bool {
        match outcome {
            Ok(page) => page.get("tools").is_some_and(Value::is_array),
            Err((code, _, _)) => *code == -32602,
        }
    }

    /// A page of tools/list with its tools rotated left by `turn` (modulo their number).
    fn rotate_tools(mut outcome: Outcome, turn: usize) -> Outcome {
        if let Some(Value::Array(tools)) =
            outcome.as_mut().ok().and_then(|page| page.get_mut("tools"))
        {
            let len = tools.len().max(1);
            tools.rotate_left(turn % len);
        }
        outcome
    }

    /// `SkillsStaleDigest`: the first skill's files but its SKILL.md are listed with the digest
    /// of other bytes.
    pub fn first_skill_stale_digests(_: &Stock, index: usize, entry: &mut Map<String, Value>) {
        let own = entry.get("uri").cloned();
        let Some(Value::Array(files)) = entry.get_mut("resources").filter(|_| index == 0) else {
            return;
        };
        for file in files.iter_mut().filter(|f| f.get("uri") != own.as_ref()) {
            file["digest"] = json!(EARLIER_DIGEST);
        }
    }

    /// `SkillsFrontmatterDiffers`: the first skill's entry has a description its SKILL.md has not.
    pub fn first_skill_other_description(_: &Stock, index: usize, entry: &mut Map<String, Value>) {
        if let Some(frontmatter) = entry.get_mut("frontmatter").filter(|_| index == 0) {
            frontmatter["description"] = json!("A description the SKILL.md does not have.");
        }
    }

    /// `SkillsSkillmdListedMisnamed`: resources/list names each skill's SKILL.md `SKILL.md`.
    pub fn skillmd_named_skillmd(items: &mut Vec<Value>) {
        for item in items.iter_mut().filter(|i| is_skillmd(i)) {
            item["name"] = json!("SKILL.md");
        }
    }

    /// Whether a file or a resource is a skill's SKILL.md (by its URI).
    fn is_skillmd(item: &Value) -> bool {
        item.get("uri")
            .and_then(Value::as_str)
            .is_some_and(|uri| uri.ends_with("/SKILL.md"))
    }

    /// `ReadTextAndBlob`: the first item of a fixture resource's contents, if it is text, is read
    /// with a blob beside its text.
    pub fn first_text_and_blob(params: &Value, outcome: Outcome) -> Outcome {
        if !is_fixture(params) {
            return outcome;
        }
        outcome.map(|mut result| {
            if let Some(item) = result
                .pointer_mut("/contents/0")
                .filter(|i| i.get("text").is_some())
            {
                item["blob"] = json!(crate::fixtures::PIXEL_PNG);
            }
            result
        })
    }

    /// `LaterResourceTextAndBlob`: every fixture resource but the first listed one is read with a
    /// blob beside each text.
    pub fn later_text_and_blob(params: &Value, outcome: Outcome) -> Outcome {
        if !is_fixture(params) || params["uri"] == "ref://docs/readme" {
            return outcome;
        }
        outcome.map(|mut result| {
            let contents = result.get_mut("contents").and_then(Value::as_array_mut);
            for item in contents.into_iter().flatten() {
                if item.get("text").is_some() {
                    item["blob"] = json!(crate::fixtures::PIXEL_PNG);
                }
            }
            result
        })
    }

    /// Whether a resources/read names one of the server's fixture resources (not a skill's file,
    /// nor a resource of the 2026-07-28 era's own).
    fn is_fixture(params: &Value) -> bool {
        params
            .get("uri")
            .and_then(Value::as_str)
            .is_some_and(|uri| crate::fixtures::read_resource(uri).is_some())
    }

    /// `AuthMetadataWrongResource`: the resource is another path of the server.
    pub fn resource_elsewhere(document: &mut Map<String, Value>) {
        rename_resource(document, "/other");
    }

    /// `AuthMetadataResourceOrigin`: the resource is the server's origin.
    pub fn resource_origin(document: &mut Map<String, Value>) {
        rename_resource(document, "");
    }

    /// The resource (the endpoint's URL, `…/mcp`) with its path made `path`.
    fn rename_resource(document: &mut Map<String, Value>, path: &str) {
        if let Some(Value::String(resource)) = document.get_mut("resource") {
            let origin = resource.strip_suffix("/mcp").unwrap_or(resource);
            *resource = format!("{origin}{path}");
        }
    }

    /// `AuthMetadataNoResource`: no resource.
    pub fn without_resource(document: &mut Map<String, Value>) {
        document.remove("resource");
    }

    /// `AuthMetadataNoAuthorizationServers`: an empty list of authorization servers.
    pub fn no_authorization_servers(document: &mut Map<String, Value>) {
        document.insert("authorization_servers".into(), json!([]));
    }

    /// `AuthServerIssuerMismatch`: the issuer is another URL than the one it was found for.
    pub fn issuer_elsewhere(document: &mut Map<String, Value>) {
        if let Some(Value::String(issuer)) = document.get_mut("issuer") {
            issuer.push_str("/issuer");
        }
    }

    /// `AuthServerIssuerSlash`: the issuer with a trailing slash.
    pub fn issuer_slash(document: &mut Map<String, Value>) {
        if let Some(Value::String(issuer)) = document.get_mut("issuer") {
            issuer.push('/');
        }
    }

    /// `AuthServerNoTokenEndpoint`: no token endpoint.
    pub fn without_token_endpoint(document: &mut Map<String, Value>) {
        document.remove("token_endpoint");
    }

    /// `AuthServerNoPkce`, and `AuthSecondServerNoPkce` for the second server: no code
    /// challenge methods.
    pub fn without_pkce(document: &mut Map<String, Value>) {
        document.remove("code_challenge_methods_supported");
    }

    /// `AuthServerRegistrationOnly`: Dynamic Client Registration, no Client ID Metadata
    /// Documents.
    pub fn registration_only(document: &mut Map<String, Value>) {
        document.remove("client_id_metadata_document_supported");
    }

    /// `AuthServerNoRegistration`: no way for a new client to get a client id.
    pub fn no_registration(document: &mut Map<String, Value>) {
        document.remove("client_id_metadata_document_supported");
        document.remove("registration_endpoint");
    }

    /// The tool a tools/call names.
    fn tool(params: &Value) -> &str {
        params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Whether a tools/call's error says the tool is unknown (-32602 naming it).
    fn unknown_tool(outcome: &Outcome) -> bool {
        matches!(outcome, Err((-32602, _, Some(data))) if data.get("name").is_some())
    }

    /// A tools/call's result (not a task's handle) for the tool `name`, if that is what it is.
    fn called(params: &Value, outcome: &Outcome, name: &str) -> bool {
        tool(params) == name && matches!(outcome, Ok(result) if result.get("content").is_some())
    }

    /// `UnknownToolIsError`: an unknown tool is a result with isError.
    pub fn unknown_tool_is_error(params: &Value, outcome: Outcome) -> Outcome {
        if !unknown_tool(&outcome) {
            return outcome;
        }
        let text = format!("Unknown tool: {}", tool(params));
        Ok(json!({"content": [{"type": "text", "text": text}], "isError": true}))
    }

    /// `UnknownToolSuccess`: an unknown tool succeeds.
    pub fn unknown_tool_success(_: &Value, outcome: Outcome) -> Outcome {
        if !unknown_tool(&outcome) {
            return outcome;
        }
        Ok(json!({"content": [{"type": "text", "text": "done"}]}))
    }

    /// `EmptyResultNullContent`: `mcpcheck_empty`'s result has `content: null`.
    pub fn empty_null_content(params: &Value, outcome: Outcome) -> Outcome {
        if !called(params, &outcome, "mcpcheck_empty") {
            return outcome;
        }
        Ok(json!({"content": null}))
    }

    /// `EmptyResultIsError`: `mcpcheck_empty`'s result says isError.
    pub fn empty_is_error(params: &Value, outcome: Outcome) -> Outcome {
        if !called(params, &outcome, "mcpcheck_empty") {
            return outcome;
        }
        Ok(json!({"content": [], "isError": true}))
    }

    /// `StructuredContentMismatch`: `mcpcheck_structured`'s sum is a string.
    pub fn structured_sum_string(params: &Value, outcome: Outcome) -> Outcome {
        if !called(params, &outcome, "mcpcheck_structured") {
            return outcome;
        }
        outcome.map(|mut result| {
            if let Some(sum) = result.pointer("/structuredContent/sum").cloned() {
                result["structuredContent"]["sum"] = json!(sum.to_string());
            }
            result
        })
    }

    /// `StructuredContentNotMirrored`: `mcpcheck_structured`'s text is not its JSON.
    pub fn structured_not_mirrored(params: &Value, outcome: Outcome) -> Outcome {
        if !called(params, &outcome, "mcpcheck_structured") {
            return outcome;
        }
        outcome.map(|mut result| {
            result["content"] = json!([{"type": "text", "text": "The sum is computed."}]);
            result
        })
    }

    /// `EverythingErrorAsProtocolError`: `test_error_handling` fails with -32603.
    pub fn tool_error_as_protocol_error(params: &Value, outcome: Outcome) -> Outcome {
        if !called(params, &outcome, "test_error_handling") {
            return outcome;
        }
        Err((-32603, "Internal error: the tool failed".into(), None))
    }

    /// `SkillsListUnknown`: skills/list is a method the server does not know, whatever its
    /// params (before initialize too, as any unknown method).
    pub fn skills_list_unknown(_: &Value, _: Outcome) -> Outcome {
        Err((-32601, "Method not found: skills/list".into(), None))
    }

    /// `SkillsDirectoryUnknown`: resources/directory/read is a method the server does not know,
    /// whatever its params.
    pub fn directory_read_unknown(_: &Value, _: Outcome) -> Outcome {
        Err((
            -32601,
            "Method not found: resources/directory/read".into(),
            None,
        ))
    }

    /// `SkillsGetUnwrapped`: skills/get answers with the entry itself, not `{skill: …}`.
    pub fn skill_unwrapped(_: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| result["skill"].take())
    }

    /// `SkillsGetCursor`: skills/get answers with a nextCursor beside the entry.
    pub fn skill_with_cursor(_: &Value, outcome: Outcome) -> Outcome {
        outcome.map(|mut result| {
            result["nextCursor"] = json!("more-of-the-skill");
            result
        })
    }

    /// `SkillsGetUnknownNotFound`: an unknown skill gets -32002, a resource's not-found code.
    pub fn skill_not_found_32002(_: &Value, outcome: Outcome) -> Outcome {
        match not_found(&outcome) {
            Some(uri) => Err((
                -32002,
                "Resource not found".into(),
                Some(json!({"uri": uri})),
            )),
            None => outcome,
        }
    }

    /// `InitMissingServerInfo`: the initialize result has no `serverInfo`.
    pub fn without_server_info(_: &Value, outcome: Outcome) -> Outcome {
        without(outcome, &["serverInfo"])
    }

    /// `UnknownMethodWrongCode`: the -32601 of an unknown method (the one that names the
    /// method in its data) is -32000 instead.
    pub fn unknown_method_code(response: &mut Map<String, Value>) {
        let Some(Value::Object(error)) = response.get_mut("error") else {
            return;
        };
        let named = error.get("data").and_then(|d| d.get("method")).is_some();
        if error.get("code") == Some(&json!(-32601)) && named {
            *error = Map::from_iter([
                ("code".to_string(), json!(-32000)),
                ("message".to_string(), json!("Unknown method")),
            ]);
        }
    }

    /// `StatelessUnsupportedVersionNoData`: the -32022 of a request at a version the server
    /// does not speak carries no data (the handshake-era initialize's, worded apart, keeps it).
    pub fn unsupported_version_without_data(response: &mut Map<String, Value>) {
        let Some(Value::Object(error)) = response.get_mut("error") else {
            return;
        };
        if error.get("code") == Some(&json!(-32022))
            && error.get("message") == Some(&json!(crate::outcome::UNSUPPORTED_VERSION))
        {
            error.remove("data");
        }
    }

    /// `ParseErrorWrongCode`: a frame that does not parse gets -32603 instead of -32700.
    pub fn parse_error_code(response: &mut Map<String, Value>) {
        if let Some(Value::Object(error)) = response.get_mut("error") {
            if error.get("code") == Some(&json!(-32700)) {
                error.insert("code".into(), json!(-32603));
            }
        }
    }

    /// `CompletionUnknownRefEmpty`: a completion the handler refuses (an unknown reference) is
    /// answered with no values instead.
    pub fn completion_refused_empty(_: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Err((-32602, ..)) => Ok(json!({"completion": {"values": [], "hasMore": false}})),
            other => other,
        }
    }

    /// The result without these members (an error stays as it is).
    fn without(outcome: Outcome, members: &[&str]) -> Outcome {
        outcome.map(|mut result| {
            if let Some(object) = result.as_object_mut() {
                members.iter().for_each(|m| {
                    object.remove(*m);
                });
            }
            result
        })
    }

    /// `StatelessDiscoverNoCacheHints`: the discover result has no `ttlMs` and `cacheScope`.
    pub fn discover_without_cache_hints(_: &Value, outcome: Outcome) -> Outcome {
        without(outcome, &["ttlMs", "cacheScope"])
    }

    /// `StatelessDiscoverNoSupportedVersions`: the discover result has no `supportedVersions`.
    pub fn discover_without_versions(_: &Value, outcome: Outcome) -> Outcome {
        without(outcome, &["supportedVersions"])
    }

    /// `StatelessDiscoverRequiresCapability`: server/discover is refused with -32021, as if it
    /// needed the client's elicitation capability.
    pub fn discover_requires_capability(_: &Value, outcome: Outcome) -> Outcome {
        outcome.and_then(|_| {
            Err((
                -32021,
                "Missing required client capability".into(),
                Some(json!({"requiredCapabilities": {"elicitation": {}}})),
            ))
        })
    }

    /// `StatelessAnswerRemoved`: ping, which 2026-07-28 removed, is answered with an empty
    /// result.
    pub fn ping_answered(_: &Value, outcome: Outcome) -> Outcome {
        outcome.or_else(|_| Ok(json!({})))
    }

    /// Removes the `resultType` "complete" the 2026-07-28 era added to a result (a type the
    /// handler set itself, such as "input_required", stays).
    fn without_complete(result: &mut Map<String, Value>) {
        if result.get("resultType") == Some(&json!("complete")) {
            result.shift_remove("resultType");
        }
    }

    /// `StatelessNoResultType`: results other than server/discover's carry no `resultType`.
    pub fn no_result_type(method: &str, _: &Value, result: &mut Map<String, Value>) {
        if method != "server/discover" {
            without_complete(result);
        }
    }

    /// `SkillsNoResultType`: skills/list and skills/get results carry no `resultType`.
    pub fn skills_without_result_type(method: &str, _: &Value, result: &mut Map<String, Value>) {
        if method.starts_with("skills/") {
            without_complete(result);
        }
    }

    /// The methods whose results of the 2026-07-28 era carry the caching hints (server/discover
    /// sets its own).
    const CACHEABLE: [&str; 7] = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "resources/read",
        "skills/get",
        "skills/list",
    ];

    fn without_cache_hints(result: &mut Map<String, Value>) {
        result.shift_remove("ttlMs");
        result.shift_remove("cacheScope");
    }

    /// `StatelessNoCacheHints`: list and read results carry no `ttlMs` or `cacheScope`.
    pub fn no_cache_hints(method: &str, _: &Value, result: &mut Map<String, Value>) {
        if CACHEABLE.contains(&method) {
            without_cache_hints(result);
        }
    }

    /// `SkillsListNoCacheHints`: skills/list carries no `ttlMs` or `cacheScope`.
    pub fn skills_list_without_cache_hints(
        method: &str,
        _: &Value,
        result: &mut Map<String, Value>,
    ) {
        if method == "skills/list" {
            without_cache_hints(result);
        }
    }

    /// `StatelessCacheScopePerPage`: a page asked for with a cursor says cacheScope "private".
    pub fn later_pages_private(method: &str, params: &Value, result: &mut Map<String, Value>) {
        let later_page = params.get("cursor").is_some_and(|c| !c.is_null());
        if later_page && CACHEABLE.contains(&method) && result.contains_key("cacheScope") {
            result["cacheScope"] = json!("private");
        }
    }

    /// Takes the server's name out of a result's `_meta`, and `_meta` with it once empty.
    fn without_meta_server_info(result: &mut Map<String, Value>) {
        if let Some(Value::Object(meta)) = result.get_mut("_meta") {
            meta.shift_remove("io.modelcontextprotocol/serverInfo");
            if meta.is_empty() {
                result.shift_remove("_meta");
            }
        }
    }

    /// `StatelessNoServerInfo`: the discover result does not name the server in `_meta`.
    pub fn discover_without_server_info(method: &str, _: &Value, result: &mut Map<String, Value>) {
        if method == "server/discover" {
            without_meta_server_info(result);
        }
    }

    /// `StatelessServerInfoDiscoverOnly`: only the discover result names the server in `_meta`.
    pub fn server_info_on_discover_only(method: &str, _: &Value, result: &mut Map<String, Value>) {
        if method != "server/discover" {
            without_meta_server_info(result);
        }
    }

    /// The method an unknown-method error (-32601) names, if the outcome is one.
    fn unknown_method(outcome: &Outcome) -> Option<&str> {
        match outcome {
            Err((-32601, _, Some(data))) => data.get("method").and_then(Value::as_str),
            _ => None,
        }
    }

    /// `StatelessAnswerSubscribe`: resources/subscribe and unsubscribe, removed in 2026-07-28,
    /// are still answered.
    pub fn subscribe_answered(_: &Value, outcome: Outcome) -> Outcome {
        match unknown_method(&outcome) {
            Some(_) => Ok(json!({})),
            None => outcome,
        }
    }

    /// `StatelessAnswerTaskMethods`: tasks/list and tasks/result, which 2026-07-28 does not
    /// have, are answered as the 2025-11-25 methods (no tasks; no such task).
    pub fn task_methods_answered(_: &Value, outcome: Outcome) -> Outcome {
        match unknown_method(&outcome) {
            Some("tasks/list") => Ok(json!({"tasks": []})),
            Some("tasks/result") => Err((-32602, "Invalid params: no such task".into(), None)),
            _ => outcome,
        }
    }

    /// `StatelessLegacyNotFoundCode`: 2026-07-28: an unknown resource gets the retired -32002.
    pub fn not_found_32002(_: &Value, outcome: Outcome) -> Outcome {
        match not_found(&outcome) {
            Some(uri) => Err((
                -32002,
                "Resource not found".into(),
                Some(json!({ "uri": uri })),
            )),
            _ => outcome,
        }
    }

    /// `SubscribeError`: a subscription the server would take (or end) fails with -32603.
    pub fn subscription_failed(_: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Ok(_) => Err((-32603, "Internal error: subscriptions failed".into(), None)),
            refused => refused,
        }
    }

    /// `TaskUnknownIdInternal` (2025-11-25 tasks: tasks/get, tasks/result, tasks/cancel) and
    /// `ExtTaskUnknownInternal` (the tasks extension: tasks/get, tasks/update, tasks/cancel): an
    /// unknown task id gets -32603.
    pub fn unknown_task_internal(_: &Value, outcome: Outcome) -> Outcome {
        match outcome {
            Err((-32602, message, data)) if message.starts_with(crate::outcome::NO_TASK) => {
                Err((-32603, message, data))
            }
            other => other,
        }
    }

    /// `TaskCreatedWithoutTimestamps`: 2025-11-25 tasks: the task a call creates is given
    /// without createdAt and lastUpdatedAt.
    pub fn created_task_without_timestamps(_: &Value, mut outcome: Outcome) -> Outcome {
        if let Ok(Value::Object(result)) = &mut outcome {
            if let Some(Value::Object(task)) = result.get_mut("task") {
                // Taken out as the server always did, each swapped with the last member.
                task.swap_remove("createdAt");
                task.swap_remove("lastUpdatedAt");
            }
        }
        outcome
    }

    /// A JSON-RPC error response.
    fn error_reply(id: Value, code: i64, message: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
    }

    /// The method of a notification the server took and answered nothing (`reply` is none): one
    /// without an id, of JSON-RPC 2.0, whose params, if any, are an object.
    fn notification<'m>(message: &'m Map<String, Value>, reply: &Option<Value>) -> Option<&'m str> {
        let params_ok = message
            .get("params")
            .is_none_or(|p| p.is_null() || p.is_object());
        if reply.is_some()
            || message.contains_key("id")
            || message.get("jsonrpc") != Some(&json!("2.0"))
            || !params_ok
        {
            return None;
        }
        message.get("method").and_then(Value::as_str)
    }

    /// `AnswerInitialized`: notifications/initialized is answered with an empty result.
    pub fn initialized_answered(
        message: &Map<String, Value>,
        reply: Option<Value>,
    ) -> Option<Value> {
        match notification(message, &reply) {
            Some("notifications/initialized") => {
                Some(json!({"jsonrpc": "2.0", "id": null, "result": {}}))
            }
            _ => reply,
        }
    }

    /// The notifications the server takes (the others it ignores, as a server may).
    const NOTIFICATIONS: [&str; 4] = [
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/roots/list_changed",
        "notifications/progress",
    ];

    /// `AnswerUnknownNotification`: a notification the server does not take is answered with
    /// -32601.
    pub fn unknown_notification_answered(
        message: &Map<String, Value>,
        reply: Option<Value>,
    ) -> Option<Value> {
        match notification(message, &reply) {
            Some(method) if !NOTIFICATIONS.contains(&method) => {
                Some(error_reply(Value::Null, -32601, "Method not found"))
            }
            _ => reply,
        }
    }

    /// `EmptyObjectMethodNotFound`: `{}` gets -32601 instead of -32600.
    pub fn empty_object_method_not_found(
        message: &Map<String, Value>,
        reply: Option<Value>,
    ) -> Option<Value> {
        if message.is_empty() {
            return Some(error_reply(Value::Null, -32601, "Method not found"));
        }
        reply
    }

    /// `AnswerStrayResponse`: a response to a request the server never sent (mcpcheck names
    /// its id so) is answered with -32600.
    pub fn stray_response_answered(
        message: &Map<String, Value>,
        reply: Option<Value>,
    ) -> Option<Value> {
        let response = !message.contains_key("method")
            && (message.contains_key("result") || message.contains_key("error"));
        let id = message.get("id");
        if response && id.is_some_and(|id| id.to_string().contains("mcpcheck-never-asked")) {
            return Some(error_reply(
                id.cloned().unwrap_or(Value::Null),
                -32600,
                "Invalid Request: no request of ours has this id",
            ));
        }
        reply
    }

    /// `StatelessRequireClientInfo`: 2026-07-28: a request whose `_meta` has no clientInfo is
    /// refused with -32602.
    pub fn client_info_required(_: &str, params: &Value) -> Option<Failure> {
        let without = params
            .pointer("/_meta/io.modelcontextprotocol~1clientInfo")
            .is_none();
        without.then(|| {
            (
                -32602,
                "Invalid params: _meta must carry clientInfo".into(),
                None,
            )
        })
    }

    /// `ExtTaskRequiredWrongError`: the tasks extension: the tool that runs only as a task,
    /// called without the extension, gets -32601 instead of -32021 naming it.
    pub fn task_required_method_not_found(params: &Value, outcome: Outcome) -> Outcome {
        let name = "mcpcheck_task_required";
        let asks_input = params.pointer("/arguments/outcome") == Some(&json!("input"));
        match outcome {
            Err((-32021, ..)) if text_at(params, "/name") == name && !asks_input => Err((
                -32601,
                format!("Method not found: `{name}` runs only as a task"),
                None,
            )),
            other => other,
        }
    }

    /// `StatelessRequiredCapabilitiesArray`: 2026-07-28: the official fixture that needs
    /// sampling names it in `requiredCapabilities` as an array, not a capabilities object.
    pub fn required_capabilities_array(params: &Value, mut outcome: Outcome) -> Outcome {
        if text_at(params, "/name") == "test_missing_capability" {
            if let Err((-32021, _, Some(data))) = &mut outcome {
                if data.get("requiredCapabilities") == Some(&json!({"sampling": {}})) {
                    data["requiredCapabilities"] = json!(["sampling"]);
                }
            }
        }
        outcome
    }

    /// `StatelessMrtrFirstRoundNoState`: the multi-round fixture's first round (the one that
    /// asks for `step1`) carries no requestState.
    pub fn first_round_without_state(params: &Value, mut outcome: Outcome) -> Outcome {
        if text_at(params, "/name") == crate::fixtures::MULTI_ROUND_TOOL {
            if let Ok(Value::Object(result)) = &mut outcome {
                if result
                    .get("inputRequests")
                    .is_some_and(|r| r.get("step1").is_some())
                {
                    result.shift_remove("requestState");
                }
            }
        }
        outcome
    }

    /// `ExtTaskResultNotInlined`: tasks/get of a completed task leaves out its result.
    pub fn ext_task_result_not_inlined(_: &Value, outcome: Outcome) -> Outcome {
        ext_task_without(outcome, "completed", "result")
    }

    /// `ExtTaskFailedWithoutError`: tasks/get of a failed task leaves out its error.
    pub fn ext_task_failed_without_error(_: &Value, outcome: Outcome) -> Outcome {
        ext_task_without(outcome, "failed", "error")
    }

    /// `ExtTaskInputRequestsMissing`: tasks/get of a task waiting for input leaves out what it
    /// waits for.
    pub fn ext_task_input_requests_missing(_: &Value, outcome: Outcome) -> Outcome {
        ext_task_without(outcome, "input_required", "inputRequests")
    }

    /// A task of this status as tasks/get gives it, without this member.
    fn ext_task_without(outcome: Outcome, status: &str, member: &str) -> Outcome {
        outcome.map(|mut task| {
            if task.get("status") == Some(&json!(status)) {
                if let Some(task) = task.as_object_mut() {
                    task.shift_remove(member);
                }
            }
            task
        })
    }

    /// Whether the server's answer to this call is one its fixture tool `name` made: the call
    /// names it, declares the client `capability` it needs, and got past the refusals made
    /// before any tool runs (arguments that are not an object; tools not served, -32601).
    fn fixture_answered(params: &Value, outcome: &Outcome, name: &str, capability: &str) -> bool {
        text_at(params, "/name") == name
            && crate::rounds::declares(params, capability)
            && params.get("arguments").is_none_or(Value::is_object)
            && !matches!(outcome, Err((-32601, ..)))
    }

    /// What a call of the roots tool (`mcpcheck_list_roots`) carried (see [`roots_retry`]).
    struct RootsRetry<'p> {
        /// The roots answered (`inputResponses.roots.roots`), if any.
        roots: Option<&'p Value>,
        /// Whether inputResponses names a key besides `roots`.
        extra: bool,
        /// Whether the call carries inputResponses at all.
        responses: bool,
        /// The requestState echoed, if any.
        state: Option<&'p str>,
    }

    /// What a call of the roots tool carried, once the tool answered it and got past its
    /// refusal of roots answered in the wrong shape: `None` for any other call.
    fn roots_retry<'p>(params: &'p Value, outcome: &Outcome) -> Option<RootsRetry<'p>> {
        if !fixture_answered(params, outcome, fixtures::ROOTS_TOOL, "roots") {
            return None;
        }
        let responses = params.get("inputResponses");
        let answer = responses.and_then(|r| r.get("roots"));
        if answer.is_some_and(|a| !a.get("roots").is_some_and(Value::is_array)) {
            return None;
        }
        Some(RootsRetry {
            roots: answer.and_then(|a| a.get("roots")),
            extra: responses
                .and_then(Value::as_object)
                .is_some_and(|r| r.keys().any(|k| k != "roots")),
            responses: responses.is_some(),
            state: params.get("requestState").and_then(Value::as_str),
        })
    }

    /// An invalid-params refusal saying why.
    fn invalid_params(why: &str) -> Outcome {
        Err((-32602, format!("Invalid params: {why}"), None))
    }

    /// `StatelessMrtrExtraRefused`: a roots-tool call whose inputResponses names a key it did
    /// not ask for is refused.
    pub fn roots_extra_refused(params: &Value, outcome: Outcome) -> Outcome {
        match roots_retry(params, &outcome) {
            Some(retry) if retry.extra => invalid_params("unknown key in inputResponses"),
            _ => outcome,
        }
    }

    /// `StatelessMrtrMissingError`: a roots-tool retry that echoes the state but carries no
    /// inputResponses is refused rather than asked again.
    pub fn roots_missing_refused(params: &Value, outcome: Outcome) -> Outcome {
        match roots_retry(params, &outcome) {
            Some(retry) if !retry.responses && retry.state.is_some() => {
                invalid_params("inputResponses missing")
            }
            _ => outcome,
        }
    }

    /// `StatelessMrtrStateUnchecked`: a roots-tool retry whose state fails verification is
    /// answered as if it had passed.
    pub fn roots_state_unchecked(params: &Value, outcome: Outcome) -> Outcome {
        match roots_retry(params, &outcome) {
            Some(RootsRetry {
                roots: Some(roots),
                state: Some(state),
                ..
            }) if crate::rounds::verify(state) != Some("roots-v1") => {
                let count = roots.as_array().map_or(0, Vec::len);
                Ok(json!({"content": [{"type": "text", "text": format!("{count} roots")}]}))
            }
            _ => outcome,
        }
    }

    /// `StatelessMrtrRetryAsksAgain`: a roots-tool retry that carries the roots and the state,
    /// and would be answered, is asked for the roots again instead.
    pub fn roots_retry_asks_again(params: &Value, outcome: Outcome) -> Outcome {
        match roots_retry(params, &outcome) {
            Some(RootsRetry {
                roots: Some(_),
                state: Some(_),
                ..
            }) if outcome.is_ok() => Ok(json!({
                "resultType": "input_required",
                "inputRequests": {"roots": {"method": "roots/list"}},
                "requestState": crate::rounds::sign("roots-v1"),
            })),
            _ => outcome,
        }
    }

    /// The payload of the state a call of the multi-round fixture echoes, once the fixture
    /// answered it: `None` for any other call, or a state that fails verification.
    fn multi_round_state<'p>(params: &'p Value, outcome: &Outcome) -> Option<&'p str> {
        if !fixture_answered(params, outcome, fixtures::MULTI_ROUND_TOOL, "elicitation") {
            return None;
        }
        crate::rounds::verify(params.get("requestState")?.as_str()?)
    }

    /// `StatelessMrtrOneRound`: the multi-round fixture completes once it has the name, without
    /// asking its second round.
    pub fn multi_round_once(params: &Value, outcome: Outcome) -> Outcome {
        if multi_round_state(params, &outcome) == Some("round1") {
            if let Ok(Some(name)) = crate::rounds::answered(params, "step1", "name") {
                return Ok(
                    json!({"content": [{"type": "text", "text": format!("Multi-round complete for {name}")}]}),
                );
            }
        }
        outcome
    }

    /// `StatelessMrtrLastRoundRefused`: the multi-round fixture refuses the state of its own
    /// second round.
    pub fn multi_round_last_refused(params: &Value, outcome: Outcome) -> Outcome {
        match multi_round_state(params, &outcome) {
            Some(payload) if payload.starts_with("round2-") => {
                invalid_params("requestState is not for this round")
            }
            _ => outcome,
        }
    }

    /// `AuthAcceptsAnyToken`: any bearer token is taken.
    pub fn any_token(_: &str, _: bool) -> bool {
        true
    }

    /// `AuthAcceptsAlgNone`: an unsecured JWT (`alg: none`) is taken.
    pub fn unsecured_jwt(token: &str, _: bool) -> bool {
        crate::issuer::unverified_header(token).is_some_and(|header| header["alg"] == "none")
    }

    /// `AuthAcceptsUnverifiedJwt`: any token shaped as a JWT is taken, its signature unchecked.
    pub fn any_jwt(token: &str, _: bool) -> bool {
        crate::issuer::unverified_header(token).is_some()
    }

    /// `AuthAcceptsExpiredToken`: the expired token is taken.
    pub fn expired_token(_: &str, expired: bool) -> bool {
        expired
    }

    /// `StdoutBanner`: a line that is no message, before any message.
    pub fn banner(lines: &mut Vec<String>) {
        lines.push("reference-server ready\n".into());
    }

    /// `ExtTaskCancelReturnsTask`: tasks/cancel answers with the task it cancelled.
    pub fn cancel_returns_task(task: &Value, result: &mut Map<String, Value>) {
        if let Value::Object(task) = task {
            result.extend(task.clone());
        }
    }

    /// `SkillsDirectoryReadsFile`: a directory read of one of the skills' files lists nothing,
    /// as if it were an empty folder.
    pub fn file_read_as_directory(stock: &Stock, params: &Value, outcome: Outcome) -> Outcome {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return outcome;
        };
        let uri = uri.trim_end_matches('/');
        let a_file = stock.skills.iter().any(|skill| {
            let root = stock.root(skill);
            skill
                .files
                .iter()
                .any(|(file, _)| format!("{root}/{file}") == uri)
        });
        if a_file && outcome.is_err() {
            Ok(json!({"resources": []}))
        } else {
            outcome
        }
    }

    /// `SseEventIdsPerStream`: every stream is number 0, its event ids those of every other.
    pub fn stream_zero(number: &mut u64) {
        *number = 0;
    }

    /// `SseNoPriming`: a stream has no priming event.
    pub fn no_priming(_host: &str, event: &mut String) {
        event.clear();
    }

    /// `SseCloseWithoutRetry`: the priming event of a stream carries no `retry` field.
    pub fn priming_without_retry(_host: &str, event: &mut String) {
        *event = event
            .lines()
            .filter(|line| !line.starts_with("retry:"))
            .map(|line| format!("{line}\n"))
            .collect();
    }

    /// `LegacySseEndpointUnnamed`: the endpoint event is sent without its `event: endpoint`
    /// line (an unnamed event, a `message`).
    pub fn endpoint_unnamed(_host: &str, event: &mut String) {
        if let Some(rest) = event.strip_prefix("event: endpoint\n") {
            *event = rest.to_string();
        }
    }

    /// `LegacySseEndpointCrossOrigin`: the endpoint event names the same server under another
    /// host name (`localhost` for `127.0.0.1` and the other way round): another origin.
    pub fn endpoint_other_origin(host: &str, event: &mut String) {
        let port = host.rsplit_once(':').map_or("80", |(_, port)| port);
        let other = if host.starts_with("localhost") {
            "127.0.0.1"
        } else {
            "localhost"
        };
        *event = event.replacen("data: /", &format!("data: http://{other}:{port}/"), 1);
    }

    /// `StatelessSseBuffered`: an SSE response does not ask proxies not to buffer it (no
    /// `X-Accel-Buffering: no`).
    pub fn sse_buffered(headers: &mut hyper::HeaderMap) {
        headers.remove("x-accel-buffering");
    }

    /// `StatelessMrtrPromptRetryRefused`: the fixture prompt's retry that carries the context
    /// asked for is refused with -32602.
    pub fn prompt_retry_refused(params: &Value, outcome: Outcome) -> Outcome {
        let completed = matches!(&outcome, Ok(result) if result.get("messages").is_some());
        if text_at(params, "/name") == crate::fixtures::INPUT_PROMPT
            && completed
            && params.get("inputResponses").is_some()
        {
            return Err((
                -32602,
                "Invalid params: unexpected inputResponses".into(),
                None,
            ));
        }
        outcome
    }

    /// `EverythingImageWithoutMimeType`: the official fixtures' image (the tool's content, the
    /// prompt's message) carries no mimeType.
    pub fn image_without_mime_type(params: &Value, mut outcome: Outcome) -> Outcome {
        let at = match text_at(params, "/name") {
            "test_image_content" => "/content/0",
            "test_prompt_with_image" => "/messages/0/content",
            _ => return outcome,
        };
        if let Ok(result) = &mut outcome {
            if let Some(Value::Object(image)) = result.pointer_mut(at) {
                image.shift_remove("mimeType");
            }
        }
        outcome
    }

    /// `TaskWithoutTtl`: a task is shown without its ttl.
    pub fn task_without_ttl(task: &mut Map<String, Value>) {
        task.shift_remove("ttl");
    }

    /// `ServerCancelUnknown`: tools/list comes with a notifications/cancelled for a request
    /// nobody sent.
    pub fn cancel_unknown(_: &Value, _: &Outcome) -> Option<Value> {
        Some(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": "no-such-request", "reason": "quirk"}
        }))
    }
}
