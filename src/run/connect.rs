//! Connecting to the server under test: the main session (era detection, handshake, listing
//! what the server offers), sessions of their own for isolated scenarios, and the tool mcpcheck
//! may call when the user allows it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use super::{CallTools, Context, RunConfig};
use crate::check::step;
use crate::protocol::{Session, SessionInfo};
use crate::record::version::{self, latest_handshake, latest_stateless};
use crate::record::{Era, Exchange, Reply, Transcript};
use crate::report::ProtocolInfo;
use crate::scenario::SessionKind;

/// Detects the era and negotiates; fills in what was learned. When `main` cannot be trusted
/// any more (it did not answer `server/discover` in time, so a late answer to it could be taken
/// for the answer to `initialize`), it is closed and replaced by a fresh connection; its
/// transcript is returned, for the checks that read whole transcripts.
pub(super) async fn connect(
    main: &mut Arc<Session>,
    config: &RunConfig,
    protocol: &mut ProtocolInfo,
) -> Result<Option<Transcript>, ConnectError> {
    let forced = config.spec_version.as_deref();
    let mut retired = None;
    // Said when the handshake fails too: the wait it followed.
    let mut unanswered = None;
    if main.info().era.is_some() {
        // Connected before the pass began (the era probe's own connection).
        protocol.detection = "connected before the pass".into();
        protocol.requested_version = forced.map(str::to_string);
        learned(main, protocol);
        return Ok(None);
    }
    let era = match forced {
        Some(version) => {
            protocol.detection = format!("--spec-version {version}");
            Era::of(version).ok_or_else(|| ConnectError::UnknownVersion(version.to_string()))?
        }
        None => {
            let (discovered, probe) = main.discover().await;
            match (discovered, modern(&probe)) {
                (Some(result), _) => {
                    main.adopt_stateless(&result)?;
                    protocol.detection = "server/discover answered".into();
                    Era::Stateless
                }
                (None, Some(Modern::Defective { why, answer })) => {
                    main.adopt_stateless_defective(latest_stateless(), answer.as_ref());
                    protocol.detection = format!(
                        "server/discover answered as a 2026-07-28 server, but {why}; judged at {}",
                        latest_stateless()
                    );
                    Era::Stateless
                }
                (None, Some(Modern::Unknown(listed))) => {
                    return Err(ConnectError::UnknownListed {
                        wire: version::wire(latest_stateless()).to_string(),
                        listed,
                    })
                }
                (None, _) => {
                    protocol.detection = format!(
                        "server/discover not served ({}); initialize",
                        crate::record::exchange::describe(&probe, true)
                    );
                    if let Reply::Closed { detail } = &probe.reply {
                        return Err(ConnectError::ClosedProbing(detail.clone()));
                    }
                    // A server that has not said a word may still be starting, and answer the
                    // probe late: initialize goes to a fresh process, where a late discover
                    // answer cannot pose as its reply. (One that spoke and left the probe
                    // unanswered ignores it; initialize follows on the same connection.)
                    if let (Reply::Nothing { waited_ms }, true, false) =
                        (&probe.reply, main.is_stream(), main.heard())
                    {
                        unanswered = Some(format!(
                            "; before it, server/discover went unanswered for {waited_ms} ms on another start of the server"
                        ));
                        protocol.detection.push_str(" on a fresh connection");
                        // The old one is stopped first: the fresh one's start is its own.
                        main.close().await;
                        retired = Some(take_transcript(main));
                        *main = Arc::new(Session::open(&config.target, &config.limits)?);
                    }
                    Era::Handshake
                }
            }
        }
    };
    let session = &**main;
    match era {
        Era::Stateless => {
            if forced.is_some() {
                let (discovered, probe) = session.discover().await;
                match (discovered, modern(&probe)) {
                    (Some(result), _) => session.adopt_stateless(&result)?,
                    (None, Some(Modern::Defective { answer, .. })) => {
                        session.adopt_stateless_defective(latest_stateless(), answer.as_ref());
                    }
                    (None, _) => {
                        let described = crate::record::exchange::describe(&probe, true);
                        return Err(ConnectError::NoDiscover(described));
                    }
                }
            }
            protocol.requested_version = Some(forced.unwrap_or(latest_stateless()).to_string());
        }
        Era::Handshake => {
            let version = forced.unwrap_or(latest_handshake());
            protocol.requested_version = Some(version.to_string());
            if let Err((why, exchange)) = session.handshake(version).await {
                // initialize refused with -32022 listing 2026-07-28: a modern server that
                // speaks only that era (its discover answer was late or lost).
                let refused_modern = step::reply_message(&exchange).is_some_and(|m| {
                    m.pointer("/error/code").and_then(Value::as_i64) == Some(-32022)
                        && supported(m).contains(&version::wire(latest_stateless()))
                });
                if forced.is_some() || !refused_modern {
                    return Err(ConnectError::NoHandshake {
                        why,
                        before: unanswered.unwrap_or_default(),
                    });
                }
                let (discovered, _) = session.discover().await;
                match discovered {
                    Some(result) => session.adopt_stateless(&result)?,
                    None => session.adopt_stateless_defective(latest_stateless(), None),
                }
                protocol.detection = format!(
                    "initialize refused with -32022 naming {}; judged at {}",
                    version::wire(latest_stateless()),
                    latest_stateless()
                );
                protocol.requested_version = Some(latest_stateless().to_string());
            }
        }
    }
    learned(session, protocol);
    Ok(retired)
}

/// Why a connection could not be set up for a pass or a scenario.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The server could not be started, or its URL cannot be spoken to.
    #[error(transparent)]
    Open(#[from] crate::protocol::session::OpenError),
    /// The era's setup failed (a scenario's own handshake, or discover's versions).
    #[error(transparent)]
    Handshake(#[from] crate::protocol::session::HandshakeError),
    /// The run's handshake failed; what went before it, in words (with its leading `; `).
    #[error("no handshake: {why}{before}")]
    NoHandshake {
        /// Why.
        why: crate::protocol::session::HandshakeError,
        /// A discover probe that went unanswered before it, or nothing.
        before: String,
    },
    /// `--spec-version` names no revision (the resolver lets none through).
    #[error("unknown protocol version `{0}`")]
    UnknownVersion(String),
    /// discover refused the version asked with -32022, listing only versions mcpcheck does not
    /// know (the list, as written).
    #[error("server/discover refused {wire} with -32022 and lists only versions mcpcheck does not know ({listed})")]
    UnknownListed {
        /// The version asked, as the wire spells it.
        wire: String,
        /// What it listed.
        listed: String,
    },
    /// The connection closed while discover was asked (how, in words).
    #[error("{0} (while probing server/discover)")]
    ClosedProbing(String),
    /// A pinned 2026-07-28 pass whose discover went unanswered (what came, described).
    #[error("server/discover was not answered: {0}")]
    NoDiscover(String),
}

/// Fills in what the handshake or discovery taught about the server.
fn learned(session: &Session, protocol: &mut ProtocolInfo) {
    let info = session.info();
    protocol.era = info.era.map(|e| e.to_string());
    protocol.wire_version = info
        .version
        .as_deref()
        .map(|v| version::wire(v).to_string());
    protocol.version = info.version;
    protocol.server_info = info.server_info;
    protocol.capabilities = info.capabilities;
}

/// What a `server/discover` answer without a usable DiscoverResult says about the server.
pub(super) enum Modern {
    /// A 2026-07-28 server whose answer is defective: judge it in that era.
    Defective {
        /// What is wrong, in words.
        why: String,
        /// The result, if the answer was one.
        answer: Option<Value>,
    },
    /// Refused the version with -32022, listing only versions mcpcheck does not know.
    Unknown(String),
}

/// Whether a `server/discover` answer that is no usable DiscoverResult still shows a 2026-07-28
/// server: a result (without `supportedVersions`), or one of that era's own error codes
/// (-32020 header mismatch, -32021 missing client capability, -32022 unsupported version). Any
/// other answer, or none, means the handshake era (`None`), as does -32022 listing a handshake
/// version the server also speaks.
pub(super) fn modern(probe: &Exchange) -> Option<Modern> {
    let message = step::reply_message(probe)?;
    if let Some(result) = message.get("result").filter(|r| r.is_object()) {
        return Some(Modern::Defective {
            why: "its result has no supportedVersions array".into(),
            answer: Some(result.clone()),
        });
    }
    let code = message.pointer("/error/code").and_then(Value::as_i64)?;
    match code {
        -32020 | -32021 => Some(Modern::Defective {
            why: format!("it refused the probe with {code}"),
            answer: None,
        }),
        -32022 => {
            let listed = supported(message);
            if listed.contains(&version::wire(latest_stateless())) {
                Some(Modern::Defective {
                    why: format!(
                        "it refused {} with -32022 while listing it",
                        version::wire(latest_stateless())
                    ),
                    answer: None,
                })
            } else if listed
                .iter()
                .any(|v| version::by_wire(v).is_some_and(|r| r.era == Era::Handshake))
            {
                None
            } else {
                Some(Modern::Unknown(listed.join(", ")))
            }
        }
        _ => None,
    }
}

/// The versions a -32022 (unsupported version) error lists as supported, as wire strings.
fn supported(message: &Value) -> Vec<&str> {
    message
        .pointer("/error/data/supported")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether the server declared a capability; a dotted name (`resources.subscribe`) names a flag
/// inside one, which must be `true`; `extensions.<id>` names an extension by its whole
/// identifier (`extensions.io.modelcontextprotocol/tasks`), and a setting of it after one more
/// slash, which must be `true` (`extensions.io.modelcontextprotocol/skills/directoryRead`).
pub(super) fn declares(info: &SessionInfo, capability: &str) -> bool {
    if let Some(extension) = capability.strip_prefix("extensions.") {
        let (id, setting) = extension_setting(extension);
        let declared = info
            .capabilities
            .as_ref()
            .and_then(|c| c.get("extensions"))
            .and_then(|e| e.get(id));
        return match setting {
            Some(setting) => declared.and_then(|v| v.get(setting)) == Some(&Value::Bool(true)),
            None => declared.is_some_and(|v| !v.is_null() && v != &Value::Bool(false)),
        };
    }
    let mut parts = capability.split('.');
    let Some(top) = info
        .capabilities
        .as_ref()
        .and_then(|c| c.get(parts.next().unwrap_or_default()))
        .filter(|v| !v.is_null())
    else {
        return false;
    };
    let mut value = top;
    for part in parts {
        match value.get(part) {
            Some(inner) => value = inner,
            None => return false,
        }
    }
    value.as_bool().unwrap_or(true)
}

/// An extension named in `requires.capabilities` (after `extensions.`), split into its identifier
/// and the setting after one more slash: `io.modelcontextprotocol/skills/directoryRead` is
/// (`io.modelcontextprotocol/skills`, `directoryRead`).
pub(super) fn extension_setting(name: &str) -> (&str, Option<&str>) {
    match name.match_indices('/').nth(1) {
        Some((i, _)) => (&name[..i], Some(&name[i + 1..])),
        None => (name, None),
    }
}

/// Lists every item of a list method (`tools/list` → `tools`, keyed by `name`), following
/// cursors, at most 50 pages; listing is always safe. The first page is asked for twice if need
/// be (a server still starting may refuse it once); if it never comes, what came instead is
/// returned too.
pub(super) async fn list_all(
    session: &Session,
    method: &str,
    field: &str,
    key: &str,
) -> (HashMap<String, Value>, Option<String>) {
    let mut names = HashMap::new();
    let mut cursor: Option<Value> = None;
    let mut seen_cursors = HashSet::new();
    let listed = |e: &Exchange| step::reply_message(e).is_some_and(|m| m.get("result").is_some());
    for page in 0..50 {
        // A server that has stopped answering would only let each page wait out its bound.
        if let Some(why) = session.stuck() {
            return (names, Some(why));
        }
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let mut exchange = session.request(method, params.clone()).await;
        if page == 0 && !listed(&exchange) {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if let Some(why) = session.stuck() {
                return (names, Some(why));
            }
            exchange = session.request(method, params).await;
            if !listed(&exchange) {
                return (
                    names,
                    Some(crate::record::exchange::describe(&exchange, true)),
                );
            }
        }
        let Reply::Message { message, .. } = &exchange.reply else {
            break;
        };
        let Some(result) = message.get("result") else {
            break;
        };
        for item in result
            .get(field)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = item.get(key).and_then(Value::as_str) {
                names.insert(name.to_string(), item.clone());
            }
        }
        match result.get("nextCursor") {
            Some(next) if !next.is_null() && seen_cursors.insert(next.to_string()) => {
                cursor = Some(next.clone())
            }
            _ => break,
        }
    }
    (names, None)
}

/// `tool.NAME/POINTER`: a value from a listed tool's definition, e.g.
/// `tool.search/outputSchema`.
/// The tool the invalid-arguments probe calls, among those `which` allows (by name, so that
/// runs repeat): the first whose inputSchema requires a property, called without any; else the
/// first with a typed property, called with a value of another type. `None` if no tool has
/// either.
pub fn probe_tool(tools: &HashMap<String, Value>, which: CallTools) -> Option<(String, Value)> {
    let mut names: Vec<&String> = tools
        .iter()
        .filter(|(_, tool)| {
            which == CallTools::All
                || tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
        })
        .map(|(name, _)| name)
        .collect();
    names.sort();
    let requires = |name: &&&String| {
        tools[**name]
            .pointer("/inputSchema/required")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty())
    };
    if let Some(name) = names.iter().find(requires) {
        return Some(((*name).clone(), json!({})));
    }
    names.iter().find_map(|name| {
        let properties = tools[*name]
            .pointer("/inputSchema/properties")?
            .as_object()?;
        properties.iter().find_map(|(property, schema)| {
            let wrong = match schema.get("type")?.as_str()? {
                "string" => json!(12345),
                "number" | "integer" | "boolean" | "object" | "array" => {
                    json!("mcpcheck: not the declared type")
                }
                _ => return None,
            };
            Some(((*name).clone(), json!({ property.clone(): wrong })))
        })
    })
}

pub(super) fn token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{:016x}", hasher.finish())
}

/// A session's transcript, labelled with the protocol version the session spoke, with the frames
/// mcpcheck sent parsed for the checks over the whole run.
pub(super) fn take_transcript(session: &Session) -> Transcript {
    let mut transcript = std::mem::take(&mut *session.transcript.lock().expect("transcript lock"));
    transcript.version = session.info().version;
    transcript.parse_sent();
    transcript
}

/// Opens a session of a scenario's own: `fresh` does the handshake (or adopts the stateless
/// era), `bare` sends nothing. The start waits for a core ([`Starts`]) and holds it until the
/// server has written its first byte (its start is over), it went away, it is starting without
/// using its core (see [`hold_while_starting`]), or the start-up bound ran out, whichever comes
/// first; the scenario goes on meanwhile.
pub(super) async fn open_isolated(
    context: &Context,
    kind: SessionKind,
) -> Result<Session, ConnectError> {
    let permit = context.starts.acquire(&context.target).await;
    let session = Session::open(&context.target, &context.limits)?;
    if let (Some(permit), Some(heard)) = (permit, session.heard_flag()) {
        let (bound, group) = (context.limits.startup_timeout, session.process_group());
        tokio::spawn(hold_while_starting(permit, heard, group, bound));
    }
    if kind == SessionKind::Fresh {
        match context.info.era {
            Some(Era::Stateless) => session.set_info(SessionInfo {
                http_session: None,
                ..context.info.clone()
            }),
            _ => {
                let version = context
                    .info
                    .version
                    .clone()
                    .unwrap_or_else(|| latest_handshake().to_string());
                if let Err((why, _)) = session.handshake(&version).await {
                    session.close().await;
                    return Err(why.into());
                }
                session.barrier().await;
            }
        }
    }
    Ok(session)
}

/// How often a start's CPU use is sampled.
const CPU_SAMPLE: Duration = Duration::from_millis(100);
/// The span a start is judged idle over: it used less than [`IDLE_TICKS`] of CPU in it, and no
/// process of its group was running or waiting for a core at any sample.
const IDLE_SPAN: Duration = Duration::from_millis(300);
/// A tenth of a core over [`IDLE_SPAN`], in clock ticks of 10 ms.
const IDLE_TICKS: u64 = 3;

/// Holds a start's core permit until the server has written its first byte, its stdout closed,
/// the start-up bound ran out, or its process group has been all but idle for 0.3 s, sampled from
/// 0.1 s in (a sleep, a
/// network fetch, a database it connects to): the permits pace starts that compute (an
/// interpreter importing its packages), and a start that only waits holds no core from the
/// others.
pub(super) async fn hold_while_starting(
    permit: tokio::sync::OwnedSemaphorePermit,
    heard: Arc<std::sync::atomic::AtomicBool>,
    group: Option<i32>,
    bound: Duration,
) {
    let started = Instant::now();
    // Samples (when, ticks so far) since the group was last seen running.
    let mut quiet: std::collections::VecDeque<(Instant, u64)> = std::collections::VecDeque::new();
    // The first sample a period in: a server that answers at once (most do) costs no walk of
    // the process table.
    let mut next_sample = started + CPU_SAMPLE;
    // The reader holds the other reference while the server's stdout is open.
    while !heard.load(std::sync::atomic::Ordering::Relaxed)
        && Arc::strong_count(&heard) > 1
        && started.elapsed() < bound
    {
        let now = Instant::now();
        if let Some(group) = group.filter(|_| now >= next_sample) {
            // A late wake-up does not make up the missed samples: the next is a period away.
            next_sample = now + CPU_SAMPLE;
            match crate::transport::stdio::group_cpu_ticks(group) {
                Some((_, true)) | None => quiet.clear(),
                Some((ticks, false)) => {
                    quiet.push_back((now, ticks));
                    let (first, first_ticks) = quiet[0];
                    if now.duration_since(first) >= IDLE_SPAN {
                        // A process that exited takes its ticks with it: never below zero.
                        if ticks.saturating_sub(first_ticks) < IDLE_TICKS {
                            break;
                        }
                        quiet.pop_front();
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(permit);
}
