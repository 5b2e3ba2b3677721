//! Built-in checks of the stateless 2026-07-28 wire: error codes, tool order, `x-mcp-header`
//! declarations, `subscriptions/listen` streams, InputRequiredResult shapes, server info, SSE.

use std::collections::HashMap;

use serde_json::Value;

use super::{results, sent_message, tally, transcripts_since, Builtin, Idle, Tally, WireInput};
use crate::record::transcript::cut;
use crate::record::{
    id_key, Direction, Evidence, Level, Transcript, TransportKind, Verdict, WireFrame,
};

pub(super) const BUILTINS: &[Builtin] = &[
    Builtin {
        id: "stateless-list-not-per-connection",
        since: "2026.11.12",
        area: "stateless",
        title: "2026-07-28: tools, prompts and resources are listed alike on every connection",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "server/tools#capabilities"), ("2026-07-28", "changelog")],
        expect: "every answer of tools/list (prompts/list, resources/list) for the same cursor (none: the first page), on any 2026-07-28 connection, to name the same tools (prompts, resources), unless the server announced a change (list_changed) between them",
        transports: &[],
        explain: "2026-07-28 removed sessions (SEP-2567): what a list method returns does not vary per connection, nor change as a side effect of other requests, so that clients and caches can share one list. Every page of every list method answered on a 2026-07-28 connection is put in the order it was answered and compared with the answer for the same cursor (none: the first page) before it; a difference is excused by a list_changed notification of that list that arrived after the earlier answer (one notification excusing one difference per page). Order is judged by stateless-tools-order-stable.",
        idle: Some(Idle::Nothing("no page of a list was asked for twice at 2026-07-28")),
        judge: stateless_list_not_per_connection,
    },
    Builtin {
        id: "stateless-tools-order-stable",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: tools/list answers in a deterministic order",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "server/tools#listing-tools")],
        expect: "every answer of tools/list for the same cursor (or none: the first page) in the run that lists the same tools to list them in the same order",
        transports: &[],
        explain: "On 2026-07-28 tools/list SHOULD be deterministic, so that clients and caches (ttlMs, cacheScope) see one stable list and prompts built from it do not change between requests. Every page of every tools/list of every 2026-07-28 connection is compared with the first answer for the same cursor (the first page: no cursor), so a later page that changes between requests is seen too. A page that lists other tools is judged by stateless-list-not-per-connection, not here.",
        idle: Some(Idle::Stateless("tools/list results (with x-mcp-header, for the latter)")),
        judge: stateless_tools_order_stable,
    },
    Builtin {
        id: "stateless-x-mcp-header-valid",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: x-mcp-header annotations in tool schemas are well-formed",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "server/tools#tool"), ("2026-07-28", "basic/transports/streamable-http")],
        expect: "each x-mcp-header a non-empty HTTP token, unique without regard to case, on an integer, string or boolean property reached through `properties` only",
        transports: &[],
        explain: "A tool may ask clients to mirror an argument into an Mcp-Param-<Name> header with x-mcp-header. The name must be an RFC 9110 token, unique per tool without regard to case, only on integer, string or boolean properties, and reachable through a chain of `properties` (not items, anyOf, $ref …); clients drop a tool that breaks these rules. Every inputSchema of every 2026-07-28 tools/list result is examined.",
        idle: Some(Idle::Stateless("tools/list results (with x-mcp-header, for the latter)")),
        judge: stateless_x_mcp_header_valid,
    },
    Builtin {
        id: "stateless-listen-ack-first",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: a subscription's first message is its acknowledgement",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/subscriptions")],
        expect: "for every subscriptions/listen, the first notification tagged with its id to be notifications/subscriptions/acknowledged",
        transports: &[],
        explain: "The acknowledgement MUST be the first message the server sends carrying the subscription's id in io.modelcontextprotocol/subscriptionId, and no notification may go out on the subscription before it (on stdio the order is per subscription; others may interleave). Every listen request of the run is examined.",
        idle: Some(Idle::Nothing("no notification tagged with a subscriptions/listen id arrived")),
        judge: stateless_listen_ack_first,
    },
    Builtin {
        id: "stateless-listen-filter",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: a subscription carries only the notification types asked for",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/subscriptions"), ("2026-07-28", "schema#subscriptionfilter")],
        expect: "the acknowledgement to agree to a subset of the types asked for, and every tagged notification to be of a type asked for (never progress or log messages)",
        transports: &[],
        explain: "Each notification type is opt-in: the server MUST NOT send types the client did not request on a subscriptions/listen stream, and acknowledges only a subset of what was asked. Progress and log messages belong to a request's own response stream. Every notification tagged with a listen request's id is examined against that request's filter.",
        idle: Some(Idle::Nothing("no notification tagged with a subscriptions/listen id arrived")),
        judge: stateless_listen_filter,
    },
    Builtin {
        id: "stateless-listen-tagged",
        since: "2026.11.11",
        area: "stateless",
        title: "2026-07-28: everything a subscription delivers carries its id",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/subscriptions"), ("2026-07-28", "schema#notificationmetaobject"), ("2026-07-28", "schema#subscriptionslistenresult")],
        expect: "_meta io.modelcontextprotocol/subscriptionId = the listen request's id on every notification of a subscription (over HTTP: everything on the listen request's stream; on any transport: every acknowledgement, list change and resource update) and on the subscription's final result",
        transports: &[],
        explain: "A client tells its subscriptions apart by the id the server puts in _meta io.modelcontextprotocol/subscriptionId: the server MUST include it on every notification delivered on a subscriptions/listen stream, and the final result that ends a subscription carries it too (the schema requires it). On 2026-07-28 acknowledgements, list changes and resource updates travel only on subscriptions, so one of them without the id cannot be placed on any. Over HTTP mcpcheck reads a listen stream on for a second after its acknowledgement; every notification and final result of every 2026-07-28 connection is examined.",
        idle: Some(Idle::Nothing("no subscription delivered anything on a 2026-07-28 connection")),
        judge: stateless_listen_tagged,
    },
    Builtin {
        id: "stateless-input-required-shape",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: an InputRequiredResult asks only for what it may",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/patterns/mrtr"), ("2026-07-28", "server/utilities/caching")],
        expect: "every InputRequiredResult to answer tools/call, prompts/get or resources/read, to carry inputRequests or requestState, to ask only for elicitation/create, sampling/createMessage or roots/list of capabilities the request declared, and to carry no caching hints",
        transports: &[],
        explain: "With MRTR a server asks the client for input by returning resultType \"input_required\". Only tools/call, prompts/get and resources/read may do so; the result carries inputRequests and/or requestState; each input request is an elicitation, sampling or roots request, and only for a capability the request's clientCapabilities declared (MUST NOT otherwise); and such a result is not cacheable. Every InputRequiredResult of the run is examined, among them the answer to a read of the fixture resource mcpcheck://roots that declares no capability after reads that declared roots: a server that remembers a capability from an earlier request asks for roots there.",
        idle: Some(Idle::Nothing("the server answered no request with an InputRequiredResult")),
        judge: stateless_input_required_shape,
    },
    Builtin {
        id: "stateless-server-info-everywhere",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: every result names the server in _meta",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "basic/index#meta")],
        expect: "_meta io.modelcontextprotocol/serverInfo with a name and a version on every result of a 2026-07-28 connection",
        transports: &[],
        explain: "Without a handshake, a 2026-07-28 client learns who answered from each result: servers SHOULD include io.modelcontextprotocol/serverInfo (an Implementation: name and version) in the _meta of every response. Every result of every 2026-07-28 connection is examined.",
        idle: Some(Idle::Stateless("connections (SSE responses, for the latter)")),
        judge: stateless_server_info_everywhere,
    },
    Builtin {
        id: "stateless-sse-unbuffered",
        since: "2026.11.2",
        area: "stateless",
        title: "2026-07-28: SSE responses carry X-Accel-Buffering: no",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "basic/transports/streamable-http")],
        expect: "the header X-Accel-Buffering: no on every text/event-stream response of a 2026-07-28 connection",
        transports: &[TransportKind::Http],
        explain: "A reverse proxy that buffers an SSE response delays every event until the stream ends, which defeats progress and long-lived subscriptions; 2026-07-28 servers SHOULD send X-Accel-Buffering: no on SSE responses. Every SSE response of every 2026-07-28 connection is examined.",
        idle: Some(Idle::Stateless("connections (SSE responses, for the latter)")),
        judge: stateless_sse_unbuffered,
    },
    Builtin {
        id: "stateless-error-codes",
        since: "2026.11.2",
        area: "stateless",
        title: "on 2026-07-28, no retired or undefined error code of the reserved range",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/index#error-codes")],
        expect: "no error with -32002, -32042, or a code in -32020..-32099 other than -32020, -32021 and -32022 on a 2026-07-28 connection",
        transports: &[],
        explain: "2026-07-28 reserves -32020 to -32099 for the specification and defines -32020, -32021 and -32022 in it; implementations MUST NOT emit an undefined code from the range. -32002 (resource not found, now -32602) and -32042 are retired. Every error response of a 2026-07-28 connection is examined.",
        idle: Some(Idle::Nothing("no error came back on a 2026-07-28 connection")),
        judge: stateless_error_codes,
    },
    Builtin {
        id: "stateless-http-no-session",
        since: "2026.11.1",
        area: "stateless",
        title: "on 2026-07-28, responses carry no Mcp-Session-Id",
        level: Level::Should,
        derived: false,
        spec: &[("2026-07-28", "basic/transports/streamable-http")],
        expect: "no Mcp-Session-Id header on any response of a connection on 2026-07-28",
        transports: &[TransportKind::Http],
        explain: "2026-07-28 has no sessions: every request stands alone, and a session id in a response suggests state a client must not rely on. Only connections on 2026-07-28 are examined.",
        idle: Some(Idle::Nothing("applies to connections on 2026-07-28 only")),
        judge: stateless_http_no_session,
    },
    Builtin {
        id: "stateless-cache-scope-pages",
        since: "2026.11.3",
        area: "stateless",
        title: "every page of one listing has the same cacheScope",
        level: Level::Must,
        derived: false,
        spec: &[("2026-07-28", "basic/utilities/caching")],
        expect: "each page reached through nextCursor to carry the cacheScope of the page that named the cursor",
        transports: &[],
        explain: "2026-07-28 puts caching hints (ttlMs, cacheScope) on list results. A paginated list is one result cut into pages, and every page of it MUST carry the same cacheScope: a client cannot cache page one as public and page two as private. mcpcheck follows nextCursor in several scenarios; each page it asked for with a cursor is compared with the page that gave it.",
        idle: Some(Idle::Nothing("no list of the run had a second page on 2026-07-28")),
        judge: stateless_cache_scope_pages,
    },
];

/// Judges `stateless-cache-scope-pages`: every page of one listing has the same cacheScope.
fn stateless_cache_scope_pages(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        if transcript.version.as_deref().is_none_or(|v| {
            crate::record::version::Era::of(v) != Some(crate::record::version::Era::Stateless)
        }) {
            continue;
        }
        // The cacheScope of the page that handed out each cursor, by method and cursor.
        let mut scopes: HashMap<(String, String), Value> = HashMap::new();
        for answered in results(transcript) {
            if !answered.method.ends_with("/list") {
                continue;
            }
            let result = &answered.message["result"];
            let scope = result.get("cacheScope").cloned().unwrap_or(Value::Null);
            if let Some(cursor) = answered
                .request
                .pointer("/params/cursor")
                .and_then(Value::as_str)
            {
                if let Some(first) = scopes.get(&(answered.method.clone(), cursor.to_string())) {
                    found.seen += 1;
                    if *first != scope {
                        found.bad.push(Evidence::frame(
                            &answered.frame.text,
                            &format!("the {} page for cursor {cursor:?} has cacheScope {scope}, the page that gave the cursor {first}", answered.method),
                        ));
                    }
                }
            }
            if let Some(next) = result.get("nextCursor").and_then(Value::as_str) {
                scopes.insert((answered.method.clone(), next.to_string()), scope);
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-tools-order-stable`: 2026-07-28: tools/list answers in a deterministic order.
fn stateless_tools_order_stable(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    // The first answer for each cursor (none: the first page), as a sequence of names; every
    // later answer for the same cursor, on any connection, is compared with it.
    let mut first: HashMap<Option<String>, Vec<String>> = HashMap::new();
    for transcript in transcripts_since(input, "2026-07-28") {
        for answered in results(transcript)
            .into_iter()
            .filter(|a| a.method == "tools/list")
        {
            let cursor = answered
                .request
                .pointer("/params/cursor")
                .filter(|c| !c.is_null())
                .map(Value::to_string);
            let names: Vec<String> = answered
                .message
                .pointer("/result/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(String::from)
                .collect();
            found.seen += 1;
            match first.get(&cursor) {
                None => {
                    first.insert(cursor, names);
                }
                // The same tools in another order; other tools are what
                // stateless-list-not-per-connection judges.
                Some(before) if *before != names && same_set(before, &names) => {
                    found.bad.push(Evidence::remark(
                        "tools/list",
                        format!(
                            "{} listed [{}] once and [{}] later",
                            match &cursor {
                                None => "the first page".to_string(),
                                Some(c) => format!("the page for cursor {}", cut(c, 60)),
                            },
                            cut(&before.join(", "), 120),
                            cut(&names.join(", "), 120)
                        ),
                    ))
                }
                // Other tools (judged elsewhere): later answers are compared with this list.
                Some(before) if !same_set(before, &names) => {
                    first.insert(cursor, names);
                }
                Some(_) => {}
            }
        }
    }
    found.judge(def)
}

/// Whether two lists of names hold the same names, in whatever order.
fn same_set(a: &[String], b: &[String]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort();
    b.sort();
    a == b
}

/// One answer of a list method: when it came, on which connection, for which cursor (`None`: the
/// first page), and the names (or URIs) of the page, sorted.
struct Listing {
    at: std::time::Instant,
    connection: usize,
    cursor: Option<String>,
    names: Vec<String>,
}

/// Every page of `kind` (`tools`, `prompts`, `resources`) a connection was answered.
fn listings(transcript: &Transcript, connection: usize, kind: &str) -> Vec<Listing> {
    let method = format!("{kind}/list");
    let (array, key) = match kind {
        "resources" => ("/result/resources", "uri"),
        "prompts" => ("/result/prompts", "name"),
        _ => ("/result/tools", "name"),
    };
    results(transcript)
        .into_iter()
        .filter(|a| a.method == method)
        .map(|answered| {
            let mut names: Vec<String> = answered
                .message
                .pointer(array)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|item| item.get(key).and_then(Value::as_str).map(String::from))
                .collect();
            names.sort();
            Listing {
                at: transcript.started() + std::time::Duration::from_millis(answered.frame.at_ms),
                connection,
                cursor: answered
                    .request
                    .pointer("/params/cursor")
                    .filter(|c| !c.is_null())
                    .map(Value::to_string),
                names,
            }
        })
        .collect()
}

/// Judges `stateless-list-not-per-connection`: every page of a list method names the same items as
/// the answer for the same cursor before it, on whatever connection, unless a list_changed of that
/// list arrived between them.
fn stateless_list_not_per_connection(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut bad: Vec<Evidence> = Vec::new();
    let mut seen = 0usize;
    let transcripts: Vec<&Transcript> = transcripts_since(input, "2026-07-28").collect();
    for kind in ["tools", "prompts", "resources"] {
        let mut all: Vec<Listing> = transcripts
            .iter()
            .enumerate()
            .flat_map(|(n, t)| listings(t, n, kind))
            .collect();
        if all.len() < 2 {
            continue;
        }
        all.sort_by_key(|l| l.at);
        // Each page is compared with the answer for the same cursor before it.
        let mut last: HashMap<Option<String>, usize> = HashMap::new();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (n, listing) in all.iter().enumerate() {
            if let Some(before) = last.insert(listing.cursor.clone(), n) {
                pairs.push((before, n));
            }
        }
        let pairs_len = pairs.len();
        let changed = format!("notifications/{kind}/list_changed");
        let announced: Vec<std::time::Instant> = transcripts
            .iter()
            .flat_map(|t| {
                t.frames
                    .iter()
                    .filter(|f| f.direction == Direction::Received)
                    .filter(|f| {
                        f.message
                            .as_ref()
                            .and_then(|m| m.get("method"))
                            .and_then(Value::as_str)
                            == Some(changed.as_str())
                    })
                    .map(|f| t.started() + std::time::Duration::from_millis(f.at_ms))
            })
            .collect();
        // A list_changed that arrived after the earlier answer excuses the difference; each one
        // excuses one difference per page, as one change makes each page differ once.
        let mut used: Vec<(usize, Option<String>)> = Vec::new();
        for (before, after) in pairs {
            let (before, after) = (&all[before], &all[after]);
            if before.names == after.names {
                continue;
            }
            // Any unused list_changed that came after the earlier answer (it may reach mcpcheck
            // after the later answer already shows the change).
            let excuse = announced
                .iter()
                .enumerate()
                .position(|(n, t)| *t >= before.at && !used.contains(&(n, after.cursor.clone())));
            if let Some(n) = excuse {
                used.push((n, after.cursor.clone()));
                continue;
            }
            let only = |a: &[String], b: &[String]| -> Vec<String> {
                a.iter().filter(|n| !b.contains(n)).cloned().collect()
            };
            let added = only(&after.names, &before.names);
            let gone = only(&before.names, &after.names);
            let mut change = Vec::new();
            if !added.is_empty() {
                change.push(format!("[{}] more", cut(&added.join(", "), 120)));
            }
            if !gone.is_empty() {
                change.push(format!("[{}] fewer", cut(&gone.join(", "), 120)));
            }
            let page = match &after.cursor {
                None => "the first page".to_string(),
                Some(cursor) => format!("the page for cursor {}", cut(cursor, 60)),
            };
            let place = if before.connection == after.connection {
                format!("{page}, asked for again on the same connection,")
            } else {
                format!("{page}, asked for again on another connection,")
            };
            bad.push(Evidence::remark(
                &format!("{kind}/list"),
                format!(
                    "{place} named {} than before, with no {changed} between",
                    change.join(" and ")
                ),
            ));
        }
        // What was examined: the pages compared with an earlier answer.
        seen += pairs_len;
    }
    tally(def, bad, seen, None)
}

/// Judges `stateless-x-mcp-header-valid`: 2026-07-28: x-mcp-header annotations in tool schemas are well-formed.
fn stateless_x_mcp_header_valid(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
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
                found.seen += usize::from(schema.to_string().contains("\"x-mcp-header\""));
                for problem in problems {
                    found.bad.push(Evidence::remark(
                        "tools/list",
                        format!("tool `{name}`: {problem}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-listen-ack-first`: 2026-07-28: a subscription's first message is its acknowledgement.
fn stateless_listen_ack_first(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for (id, _, tagged) in listen_streams(transcript) {
            let Some((first, frame)) = tagged.first() else {
                continue;
            };
            found.seen += 1;
            if first.get("method").and_then(Value::as_str)
                != Some("notifications/subscriptions/acknowledged")
            {
                found.bad.push(Evidence::frame(
                    &frame.text,
                    &format!(
                        "the first notification of subscription {id} is not its acknowledgement"
                    ),
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-listen-filter`: 2026-07-28: a subscription carries only the notification types asked for.
fn stateless_listen_filter(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for (id, filter, tagged) in listen_streams(transcript) {
            for (notification, frame) in tagged {
                found.seen += 1;
                if let Some(why) = unrequested(&filter, notification) {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("subscription {id}: {why}"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Notifications that 2026-07-28 delivers only on a `subscriptions/listen` stream.
const SUBSCRIPTION_ONLY: &[&str] = &[
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
];

/// Judges `stateless-listen-tagged`: 2026-07-28: everything a subscription delivers carries its id.
fn stateless_listen_tagged(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        // Each listen request: its id (as a key) and, over HTTP, the POST whose stream it is.
        let mut listens: Vec<(String, Option<usize>)> = Vec::new();
        for frame in &transcript.frames {
            if frame.direction == Direction::Sent {
                if let Some(id) = sent_message(frame)
                    .filter(|m| m["method"] == "subscriptions/listen")
                    .and_then(|m| m.get("id").map(id_key))
                {
                    listens.push((id, frame.post));
                }
                continue;
            }
            let Some(message) = frame.message.as_ref() else {
                continue;
            };
            let method = message.get("method").and_then(Value::as_str);
            if let (None, Some(id)) = (method, message.get("id")) {
                // A final result of a subscription names it, like its notifications.
                let key = id_key(id);
                if let (true, Some(result)) = (
                    listens.iter().any(|(k, _)| *k == key),
                    message.get("result"),
                ) {
                    found.seen += 1;
                    let tag = result
                        .pointer("/_meta/io.modelcontextprotocol~1subscriptionId")
                        .map(id_key);
                    if tag.as_ref() != Some(&key) {
                        found.bad.push(Evidence::frame(
                            &frame.text,
                            &format!("the final result of subscription {key} does not carry its id in _meta io.modelcontextprotocol/subscriptionId"),
                        ));
                    }
                }
                continue;
            }
            let (Some(method), None) = (method, message.get("id")) else {
                continue;
            };
            let tag = message
                .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                .map(id_key);
            let stream = frame
                .post
                .and_then(|post| listens.iter().find(|(_, p)| *p == Some(post)));
            if let Some((key, _)) = stream {
                found.seen += 1;
                if tag.as_ref() != Some(key) {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("a {method} on the stream of subscription {key} without its id in _meta io.modelcontextprotocol/subscriptionId"),
                    ));
                }
            } else if SUBSCRIPTION_ONLY.contains(&method) {
                found.seen += 1;
                if tag.is_none() {
                    found.bad.push(Evidence::frame(
                        &frame.text,
                        &format!("a {method} without _meta io.modelcontextprotocol/subscriptionId: on 2026-07-28 it goes only on a subscription, tagged with its id"),
                    ));
                }
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-input-required-shape`: 2026-07-28: an InputRequiredResult asks only for what it may.
fn stateless_input_required_shape(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        for answered in results(transcript).into_iter().filter(|a| {
            a.message.pointer("/result/resultType") == Some(&Value::from("input_required"))
        }) {
            found.seen += 1;
            let declared = answered
                .request
                .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
                .cloned()
                .unwrap_or(Value::Null);
            for problem in
                input_required_problems(&answered.method, &answered.message["result"], &declared)
            {
                found
                    .bad
                    .push(Evidence::frame(&answered.frame.text, &problem));
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-server-info-everywhere`: 2026-07-28: every result names the server in _meta.
fn stateless_server_info_everywhere(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
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
            found.seen += 1;
            let info = answered
                .message
                .pointer("/result/_meta/io.modelcontextprotocol~1serverInfo");
            let named = info.is_some_and(|i| {
                i.get("name").is_some_and(Value::is_string)
                    && i.get("version").is_some_and(Value::is_string)
            });
            if !named {
                found.bad.push(Evidence::frame(
                    &answered.frame.text,
                    &format!("a {} result without _meta io.modelcontextprotocol/serverInfo (name and version)", answered.method),
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-sse-unbuffered`: 2026-07-28: SSE responses carry X-Accel-Buffering: no.
fn stateless_sse_unbuffered(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        for post in transcript.posts.iter().filter(|p| {
            p.response_header("content-type")
                .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"))
        }) {
            found.seen += 1;
            if !post
                .response_header("x-accel-buffering")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("no"))
            {
                found.bad.push(Evidence::remark(
                    "SSE response",
                    format!(
                        "an SSE response to a {} without X-Accel-Buffering: no",
                        post.method
                    ),
                ));
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-error-codes`: on 2026-07-28, no retired or undefined error code of the reserved range.
fn stateless_error_codes(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
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
            found.seen += 1;
            let problem = match code {
                -32002 => Some("-32002 was the resource-not-found code before 2026-07-28; it is no longer defined".to_string()),
                -32042 => Some("-32042 (URL elicitation required) is not defined on 2026-07-28".to_string()),
                -32099..=-32020 if !DEFINED_RESERVED.contains(&code) => Some(format!("{code} lies in -32020..-32099, which the spec reserves, and it defines no such code")),
                _ => None,
            };
            if let Some(problem) = problem {
                found.bad.push(Evidence::frame(&frame.text, &problem));
            }
        }
    }
    found.judge(def)
}

/// Judges `stateless-http-no-session`: on 2026-07-28, responses carry no Mcp-Session-Id.
fn stateless_http_no_session(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in transcripts_since(input, "2026-07-28") {
        let version =
            crate::record::version::wire(transcript.version.as_deref().unwrap_or_default());
        // Requests that claimed another version in their header, or none (mcpcheck's own
        // contradiction and legacy probes), may be routed to a legacy handler; they do
        // not count.
        for post in transcript.posts.iter().filter(|p| {
            p.status.is_some()
                && p.request_headers
                    .iter()
                    .any(|(n, v)| n.eq_ignore_ascii_case("mcp-protocol-version") && v == version)
        }) {
            found.seen += 1;
            if let Some(id) = post.response_header("mcp-session-id") {
                found.bad.push(Evidence::remark(
                    "Mcp-Session-Id",
                    format!("a {} response carried Mcp-Session-Id {id:?}", post.method),
                ));
            }
        }
    }
    found.judge(def)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
