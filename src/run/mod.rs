//! The runner: connects, detects the era, negotiates, runs scenarios concurrently on shared or
//! isolated sessions and evaluates the checks; what it emits ([`Outcome`]) is made a report by
//! [`crate::report::Report::assemble`].
//!
//! Every session it opens is closed before it returns, whatever happened; a stdio server is
//! always taken down its shutdown ladder.

mod applicable;
pub mod authorize;
mod connect;
mod eras;
mod scenario;

use applicable::not_applicable;
pub use connect::probe_tool;
use connect::{connect, declares, list_all, open_isolated, take_transcript, token};
use scenario::run_scenario;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::OptionFuture;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::check::step::NotSent;
use crate::check::wire;
use crate::protocol::{Outgoing, Session, SessionInfo};
use crate::record::version::{latest_handshake, latest_stateless};
use crate::record::Era;
use crate::record::{Reason, Status, Verdict};
use crate::record::{Transcript, TransportKind};
use crate::report::assemble::{pattern_matches, Outcome, Pass};
use crate::report::{CheckResult, ServerProcess, TargetInfo};
use crate::scenario::{Scenario, SessionKind};
use crate::transport::serve::{ServeFailure, Served};
use crate::transport::{HttpSpec, Limits, Target};

/// Which discovered tools mcpcheck may call (`--call-tools`; never any unless asked).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallTools {
    /// Only tools annotated `readOnlyHint: true`.
    ReadOnly,
    /// Any listed tool.
    All,
}

/// Everything a run needs, resolved from the command line.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// What to test.
    pub target: Target,
    /// Timeouts and caps.
    pub limits: Limits,
    /// The protocol versions to judge at (`--spec-version`, repeatable), one pass each; empty:
    /// judge every era the server speaks (2026-07-28 where server/discover is answered, and the
    /// newest handshake version the server negotiates).
    pub versions: Vec<String>,
    /// The version this pass forces (set per pass from `versions`; `None` detects the era).
    pub spec_version: Option<String>,
    /// How many scenarios run at once.
    pub jobs: usize,
    /// The bound on the whole run.
    pub run_timeout: Duration,
    /// The scenarios.
    pub scenarios: Vec<Arc<Scenario>>,
    /// Check ids (or `prefix*`) to run; empty means all.
    pub only: Vec<String>,
    /// Whether the built-in checks over the whole run are judged (`--no-builtin` leaves them out,
    /// as it leaves out the scenario library).
    pub builtins: bool,
    /// Told about progress, if anyone listens.
    pub observer: Option<Observer>,
    /// Run only this slice of the scenarios: `(k, n)` is shard k of n, 1-based.
    pub shard: Option<(usize, usize)>,
    /// The fixture set selected with `--fixtures` (`everything`): its scenarios run.
    pub fixtures: Option<String>,
    /// Official schema files to validate results with too (`--official-schemas`).
    pub official_schemas: Option<Arc<crate::check::messages::OfficialSchemas>>,
    /// Which discovered tools mcpcheck may call (`--call-tools`); none when not given.
    pub call_tools: Option<CallTools>,
    /// With `--auth client-credentials`: tokens the authorization server issued that the server
    /// should refuse (`{{auth.other-audience}}`, `{{auth.shared-audience}}`), or why it issued
    /// none ([`authorize::Obtained::issued`]).
    pub issued: crate::record::token::Issued,
    /// An expired token of the server's (`--expired-token-env`), which it must refuse
    /// (`{{auth.expired}}`).
    pub expired_token: Option<String>,
    /// The server the target serves, already running ([`serve_early`]): the run goes on with it
    /// and stops it.
    pub served: Option<Arc<Served>>,
}

/// How many redirects a GET of a metadata document follows from one URL (a fetch step, and
/// `--auth`'s discovery).
pub(crate) const MAX_REDIRECTS: usize = 5;

/// The shard (1-based, of `n`) a scenario belongs to: a stable hash of its id, so that a slice
/// does not move when other scenarios are added.
pub fn shard_of(scenario_id: &str, n: usize) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in scenario_id.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    (hash % n.max(1) as u64) as usize + 1
}

/// Something that happened during a run, for progress displays.
#[derive(Clone, Debug)]
pub enum RunEvent {
    /// The handshake is done; this many scenarios will run.
    Started {
        /// How many.
        scenarios: usize,
        /// The protocol version the pass negotiated (two eras run side by side, each a pass).
        version: Option<String>,
    },
    /// A scenario finished.
    ScenarioFinished {
        /// Its id.
        id: String,
        /// The worst status among its checks.
        worst: Status,
        /// The protocol version of its pass.
        version: Option<String>,
    },
}

/// A callback told about [`RunEvent`]s.
#[derive(Clone)]
pub struct Observer(pub Arc<dyn Fn(RunEvent) + Send + Sync>);

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observer")
    }
}

impl RunConfig {
    fn selected(&self, id: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|pattern| pattern_matches(pattern, id))
    }

    /// Whether a built-in check over the whole run is judged.
    fn builtin_selected(&self, id: &str) -> bool {
        self.builtins && self.selected(id)
    }
}

/// What a stdio server that could not be spoken to wrote on stdout that is no JSON-RPC message
/// (a banner, a log line), said so that the author sees why: stdout is the protocol channel.
fn stray_stdout(main: &Session, kind: TransportKind) -> Option<String> {
    if kind != TransportKind::Stdio {
        return None;
    }
    let transcript = main.transcript.lock().expect("transcript lock");
    let stray: Vec<String> = transcript
        .frames
        .iter()
        .filter(|f| f.direction == crate::record::Direction::Received && f.message.is_none())
        .filter(|f| !f.text.trim().is_empty())
        .take(2)
        .map(|f| format!("`{}`", crate::record::cut(f.text.trim(), 120)))
        .collect();
    (!stray.is_empty()).then(|| {
        format!(
            "; the server wrote on stdout what is no JSON-RPC message: {} (stdout is the protocol channel: log to stderr)",
            stray.join(", ")
        )
    })
}

/// What every scenario may consult.
struct Context {
    main: Arc<Session>,
    target: Target,
    limits: Limits,
    info: SessionInfo,
    /// Every listed tool's definition, by name (when a scenario needs tools).
    tools: Option<HashMap<String, Value>>,
    /// What the run's own tools/list got instead of a list, if it got none.
    tools_failure: Option<String>,
    /// Every listed prompt by name, and what came instead of a list (when a scenario needs a
    /// fixture prompt).
    prompts: Option<(HashMap<String, Value>, Option<String>)>,
    /// Every listed resource by URI, likewise.
    resources: Option<(HashMap<String, Value>, Option<String>)>,
    /// Which discovered tools may be called (`--call-tools`).
    call_tools: Option<CallTools>,
    /// The tool chosen for the invalid-arguments probe, and the arguments that violate its
    /// inputSchema (`{{probe.name}}`, `{{probe.arguments}}`).
    probe: Option<(String, Value)>,
    token: String,
    /// The fixture set the run selected.
    fixtures: Option<String>,
    /// Paces the starts of the connections of their own that scenarios need.
    starts: Starts,
    /// A protected server met without a token: why every check but the authorization ones
    /// cannot be made.
    tokenless: Option<Reason>,
    /// Tokens the authorization server issued for the checks, or why none ([`RunConfig::issued`]).
    issued: crate::record::token::Issued,
    /// An expired token of the server's ([`RunConfig::expired_token`]).
    expired_token: Option<String>,
    /// The connections that scenarios take one after another ([`Lane`], placed by [`lanes`]).
    lanes: Vec<Lane>,
    /// The lane connections that a scenario ended (a probe, mostly): their transcripts, and which
    /// scenario ended each and how.
    lanes_ended: std::sync::Mutex<Vec<(Transcript, String)>>,
}

/// A connection that scenarios take one after another, in an order fixed by the library (the
/// rank of each in the lane), whatever order their tasks happen to start in: a scenario that
/// ends the connection always ends it for the same scenarios after it, and a new one is started
/// only then (a barrier after each scenario tells). The probe scenarios (frames that get no
/// answer of their own, fixed ids) share one; over stdio, where every connection is a server
/// process started, they and the scenarios that need a connection after the handshake share
/// [`OWN_LANES`]: a server that takes seconds of CPU to start is started a few times, not once
/// per scenario.
#[derive(Default)]
struct Lane {
    /// The connection (`None` before the lane's first scenario, and after one ended it).
    connection: Arc<tokio::sync::Mutex<Option<Arc<Session>>>>,
    /// Whose turn it is.
    turn: tokio::sync::watch::Sender<usize>,
}

/// How many lanes the probes and the scenarios with a connection of their own share over stdio.
/// Scenarios in a lane run one after another: more lanes, more process starts, less waiting.
const OWN_LANES: usize = 2;

/// Which lane a scenario runs in, and its rank there; `None`: on the main connection, or on a
/// connection of its own. Over HTTP only the probes share one (a connection of a scenario's
/// own is a session, not a process); over stdio the probes and the scenarios that need a
/// connection after the handshake share [`OWN_LANES`], the longest known waits first, each to
/// the lane with the least waiting so far (a scenario counts a tenth of a second at least): the
/// lanes end at about the same time, and the placing follows the library alone, never the
/// run's timing.
fn lanes(
    scenarios: &[(usize, Arc<Scenario>)],
    target: &Target,
    count: usize,
) -> HashMap<usize, (usize, usize)> {
    let mut ordered: Vec<&(usize, Arc<Scenario>)> = scenarios.iter().collect();
    ordered.sort_by_key(|(index, _)| *index);
    if !matches!(target, Target::Stdio(_)) {
        return ordered
            .iter()
            .filter(|(_, s)| s.session == SessionKind::Probe)
            .enumerate()
            .map(|(rank, (index, _))| (*index, (0, rank)))
            .collect();
    }
    let mut shared: Vec<&&(usize, Arc<Scenario>)> = ordered
        .iter()
        .filter(|(_, s)| match s.session {
            SessionKind::Probe => true,
            SessionKind::Fresh => !s.starts_a_connection(),
            SessionKind::Shared | SessionKind::Bare => false,
        })
        .collect();
    shared.sort_by_key(|(_, s)| std::cmp::Reverse(known_wait(s, target)));
    let mut waits = vec![Duration::ZERO; count.max(1)];
    let mut taken = vec![0; count.max(1)];
    let mut placed = HashMap::new();
    for (index, scenario) in shared {
        let lane = (0..waits.len()).min_by_key(|&l| waits[l]).unwrap_or(0);
        placed.insert(*index, (lane, taken[lane]));
        waits[lane] += known_wait(scenario, target).max(Duration::from_millis(100));
        taken[lane] += 1;
    }
    placed
}

/// Hands a lane's turn to its next scenario when dropped.
struct NextTurn<'a>(&'a tokio::sync::watch::Sender<usize>);

impl Drop for NextTurn<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|now| *now += 1);
    }
}

/// A lane's connection as its scenario holds it: the others wait.
type LaneSlot = tokio::sync::OwnedMutexGuard<Option<Arc<Session>>>;

impl Context {
    /// Gives a lane's connection back after a scenario: for the next one if it still answers a
    /// barrier with a result, else closed and kept with the reason (the next one starts a new
    /// connection).
    async fn release_lane(&self, mut slot: LaneSlot, session: Arc<Session>, scenario: &str) {
        let serving = match session.stuck() {
            Some(why) => Err(why),
            None => session.still_serving().await,
        };
        match serving {
            Ok(()) => *slot = Some(session),
            Err(why) => {
                drop(slot);
                session.close().await;
                self.lanes_ended
                    .lock()
                    .expect("lanes lock")
                    .push((take_transcript(&session), format!("{scenario}: {why}")));
            }
        }
    }
}

/// Paces the server processes a run starts to the machine: a start holds a permit from the
/// moment the process is spawned until it has written its first byte (or went away, or its
/// start-up bound ran out), and there are no more permits than cores. So every start has a core to
/// itself, and a start counts against the start-up bound only once it has one: a server that
/// takes seconds of CPU to start (an interpreter importing its packages) is not slowed past
/// its bound by mcpcheck's other starts.
#[derive(Clone)]
pub(crate) struct Starts {
    permits: Arc<Semaphore>,
}

impl Starts {
    /// As many concurrent starts as the machine has cores.
    fn for_machine() -> Starts {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Starts {
            permits: Arc::new(Semaphore::new(cores)),
        }
    }

    /// Waits for a core for one start (HTTP targets start nothing: no wait).
    async fn acquire(&self, target: &Target) -> Option<tokio::sync::OwnedSemaphorePermit> {
        match target {
            Target::Stdio(_) => self.permits.clone().acquire_owned().await.ok(),
            Target::Http(_) => None,
        }
    }
}

/// Runs the checks: what the run emitted, which
/// [`Report::assemble`](crate::report::Report::assemble) makes the report of (a single pass with
/// `fatal` when the server could not be tested).
pub async fn run(config: RunConfig) -> Outcome {
    let clock = Instant::now();
    let started_at = SystemTime::now();
    // A server the target serves is started (unless it already was, for its token) and stopped
    // once the run is over.
    let (passes, eras_note) = match serve_early(&config).await {
        Ok(served) => {
            let passes = eras::run_eras(&config).await;
            if let Some(served) = served {
                served.stop().await;
            }
            passes
        }
        Err(failure) => {
            let server = (!failure.stderr_tail.trim().is_empty()).then_some(ServerProcess {
                exit: None,
                stderr_tail: failure.stderr_tail,
            });
            let pass = Pass {
                fatal: Some(failure.why),
                server,
                ..Pass::default()
            };
            (vec![pass], None)
        }
    };
    let process_starts = matches!(config.target, Target::Stdio(_)).then(|| {
        config
            .limits
            .starts
            .load(std::sync::atomic::Ordering::Relaxed)
    });
    Outcome {
        target: target_info(&config.target),
        started_at,
        duration: clock.elapsed(),
        passes,
        eras_note,
        process_starts,
        only: config.only,
    }
}

/// Starts the server the target serves (`--serve`), unless the configuration holds it running
/// already; `None` for a target that serves nothing. What must reach the server before the run
/// (the token `--auth` gets names its URL, and its authorization server is learned from it)
/// starts it here and puts it in [`RunConfig::served`], and the run goes on with that process:
/// a server that is its own authorization server keeps the keys that signed the token.
pub async fn serve_early(config: &RunConfig) -> Result<Option<Arc<Served>>, ServeFailure> {
    if let Some(served) = &config.served {
        return Ok(Some(served.clone()));
    }
    let Target::Http(HttpSpec {
        url,
        serve: Some(serve),
        ..
    }) = &config.target
    else {
        return Ok(None);
    };
    let uri = crate::record::url::parse_url(url).map_err(|why| ServeFailure {
        why: why.to_string(),
        stderr_tail: String::new(),
    })?;
    let host = uri.host().unwrap_or("127.0.0.1").to_string();
    let port = uri.port_u16().unwrap_or(default_port(uri.scheme_str()));
    Ok(Some(Arc::new(
        Served::start(serve, &host, port, &config.limits).await?,
    )))
}

/// The port a URL without one means: 443 for https, 80 otherwise.
fn default_port(scheme: Option<&str>) -> u16 {
    match scheme {
        Some(s) if s.eq_ignore_ascii_case("https") => 443,
        _ => 80,
    }
}

/// What is tested, as the report says it.
fn target_info(target: &Target) -> TargetInfo {
    match target {
        Target::Stdio(spec) => TargetInfo {
            transport: TransportKind::Stdio,
            command: Some(spec.argv.clone()),
            url: None,
        },
        Target::Http(spec) => TargetInfo {
            transport: target.kind(),
            command: spec.serve.as_ref().map(|s| s.command.argv.clone()),
            url: Some(spec.url.clone()),
        },
    }
}

/// How long a scenario is known to wait, at least: its steps' holds, a second for each step
/// with a timeout of its own (a call that blocks, such as tasks/result), and its steps' waits.
/// Over a stream (stdio, HTTP+SSE) a wait is a window for an answer that should not come, which
/// the barrier's answer ends on a server that answers: at most the barrier's grace of each is
/// counted there (counted whole, a probe of three such windows would pass for the library's
/// longest wait).
fn known_wait(scenario: &Scenario, target: &Target) -> Duration {
    let barrier_ended = target.kind() != TransportKind::Http;
    scenario
        .steps
        .iter()
        .map(|step| {
            let wait = step.wait.unwrap_or_default();
            (if barrier_ended {
                wait.min(crate::protocol::session::BARRIER_GRACE)
            } else {
                wait
            }) + step.hold.unwrap_or_default()
                + if step.timeout.is_some() {
                    Duration::from_secs(1)
                } else {
                    Duration::ZERO
                }
        })
        .sum()
}

/// Runs the scenarios against a server that is running (HTTP) or will be started (stdio).
///
/// Long by design: the run's one sequence (connect, list, schedule every scenario under
/// the run bound, judge the built-ins, shut down), each stage a call; what is left inline is
/// the bookkeeping that ties them together under one deadline.
/// `ready` is a connection already past its handshake at the pass's version, to go on with
/// instead of starting the server once more.
async fn run_started(
    config: RunConfig,
    ready: Option<Session>,
    shared: &Shared,
    era_known: Option<tokio::sync::oneshot::Sender<bool>>,
) -> Pass {
    let clock = Instant::now();
    let mut pass = Pass::default();
    let mut scenarios: Vec<(usize, Arc<Scenario>)> = config
        .scenarios
        .iter()
        .map(|s| {
            // Shared as it is, unless some of its checks were not selected.
            if s.checks.iter().all(|c| config.selected(&c.def.id)) {
                return Arc::clone(s);
            }
            let mut s = Scenario::clone(s);
            s.checks.retain(|c| config.selected(&c.def.id));
            Arc::new(s)
        })
        .filter(|s| !s.checks.is_empty())
        .filter(|s| config.shard.is_none_or(|(k, n)| shard_of(&s.id, n) == k))
        .enumerate()
        .collect();
    // Scenarios that are known to wait long start first, so that their waits overlap the rest.
    scenarios.sort_by_key(|(_, s)| std::cmp::Reverse(known_wait(s, &config.target)));
    let opened = match ready {
        Some(session) => Ok(session),
        None => Session::open(&config.target, &config.limits),
    };
    let mut main = match opened {
        Ok(session) => Arc::new(session),
        Err(e) => {
            pass.fatal = Some(e.to_string());
            return pass;
        }
    };
    let connected = tokio::time::timeout(
        config.run_timeout,
        connect(&mut main, &config, &mut pass.protocol),
    )
    .await;
    let mut transcripts: Vec<Transcript> = Vec::new();
    let failure = match connected {
        Ok(Ok(retired)) => {
            transcripts.extend(retired);
            // Whoever waits to know whether this pass is in the stateless era learns it now
            // (a pass that could not connect drops the sender: not known).
            if let Some(known) = era_known {
                let _ = known.send(pass.protocol.era.as_deref() == Some("stateless"));
            }
            None
        }
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => Some(format!(
            "the handshake did not finish within the run bound of {} s",
            config.run_timeout.as_secs()
        )),
    };
    // A protected server that refused the handshake of a run without a token is judged as far
    // as a client without one can: the authorization checks; every other check needs a token.
    let tokenless = failure.as_ref().and_then(|_| tokenless(&main, &config));
    let failure = failure.filter(|_| tokenless.is_none());
    if let Some(refusal) = &tokenless {
        // The version the pass asked for, else the newest of the handshake era: without a token
        // the server says nothing of the era it speaks (server/discover and initialize are both
        // refused), and most protected servers in the field speak the handshake era.
        let pinned = config.spec_version.clone();
        let version = pinned
            .clone()
            .unwrap_or_else(|| latest_handshake().to_string());
        let era = Era::of(&version).unwrap_or(Era::Handshake);
        main.set_info(SessionInfo {
            era: Some(era),
            version: Some(version.clone()),
            ..SessionInfo::default()
        });
        pass.protocol.version = Some(version.clone());
        pass.protocol.requested_version = Some(version.clone());
        pass.protocol.wire_version = Some(crate::record::version::wire(&version).to_string());
        pass.protocol.era = Some(era.to_string());
        pass.protocol.detection = match pinned {
            Some(_) => format!(
                "the request was refused for authorization ({refusal}) and the run has no token: judged at {version}, as --spec-version asks"
            ),
            None => format!(
                "initialize and server/discover were refused for authorization ({refusal}) and the run has no token, so the era the server speaks is unknown: judged at {version} (--spec-version {} judges a server of the stateless era)",
                latest_stateless()
            ),
        };
        pass.note = Some(format!(
            "the server is protected (it refused the run's requests without a token: {refusal}) and the run has no token: only the authorization checks could be made; pass one with -H \"Authorization: Bearer $TOKEN\""
        ));
    }
    if let Some(mut fatal) = failure {
        if let Some(stray) = stray_stdout(&main, config.target.kind()) {
            fatal.push_str(&stray);
        }
        let exit = main.close().await;
        // What the HTTP+SSE stream showed before the run ended (an endpoint at another origin
        // ends it) is judged even so: the report says why the server could not be tested.
        if config.target.kind() == TransportKind::LegacySse {
            let transcripts = [take_transcript(&main)];
            let input = wire::WireInput::new(
                TransportKind::LegacySse,
                &transcripts,
                exit.as_ref(),
                None,
                None,
            );
            for builtin in wire::builtins().filter(|b| {
                b.id().starts_with("legacy-sse-endpoint-") && config.builtin_selected(b.id())
            }) {
                let (verdict, evidence) = wire::evaluate(builtin, &input);
                if verdict.status != Status::Skip {
                    let def = builtin.definition();
                    pass.checks.push(CheckResult::new(&def, verdict, evidence));
                }
            }
        }
        pass.server = main
            .stderr_tail()
            .map(|stderr_tail| ServerProcess { exit, stderr_tail });
        pass.fatal = Some(fatal);
        return pass;
    }
    let info = main.info();
    // Tools are listed when a scenario names one, and on 2026-07-28 always: arguments marked
    // with x-mcp-header must travel in Mcp-Param-* headers too, for any tool mcpcheck calls.
    let needs_tools = tokenless.is_none()
        && (info.era == Some(Era::Stateless)
            || config
                .scenarios
                .iter()
                .any(|s| !s.requires.tools.is_empty() || s.requires.call_tools));
    // The listings run under the run bound too: a server that answers them slowly cannot hold
    // the run past it.
    let listings = async {
        let (tools, tools_failure) = if needs_tools && declares(&info, "tools") {
            let (tools, failure) = list_all(&main, "tools/list", "tools", "name").await;
            main.learn_tools(&tools);
            (Some(tools), failure)
        } else {
            (None, None)
        };
        // Fixture prompts and resources are looked for only when a scenario names one.
        let needs = |wanted: fn(&crate::scenario::model::Requires) -> &Vec<String>,
                     capability: &str| {
            tokenless.is_none()
                && config
                    .scenarios
                    .iter()
                    .any(|s| !wanted(&s.requires).is_empty())
                && declares(&info, capability)
        };
        let prompts = OptionFuture::from(
            needs(|r| &r.prompts, "prompts")
                .then(|| list_all(&main, "prompts/list", "prompts", "name")),
        )
        .await;
        let resources = OptionFuture::from(
            needs(|r| &r.resources, "resources")
                .then(|| list_all(&main, "resources/list", "resources", "uri")),
        )
        .await;
        (tools, tools_failure, prompts, resources)
    };
    let bound = config.run_timeout.saturating_sub(clock.elapsed());
    let (tools, tools_failure, prompts, resources) = tokio::time::timeout(bound, listings)
        .await
        .unwrap_or_else(|_| {
            let why = format!(
                "the run exceeded its bound of {} s while listing the server's tools, prompts and resources",
                config.run_timeout.as_secs()
            );
            (None, Some(why), None, None)
        });
    let info = main.info();
    let context = Arc::new(Context {
        main: main.clone(),
        target: config.target.clone(),
        limits: config.limits.clone(),
        info,
        probe: config
            .call_tools
            .and_then(|which| tools.as_ref().and_then(|t| probe_tool(t, which))),
        call_tools: config.call_tools,
        tools,
        tools_failure,
        prompts,
        resources,
        token: token(),
        fixtures: config.fixtures.clone(),
        starts: shared.starts.clone(),
        tokenless: tokenless.map(|refusal| Reason::Token { refusal }),
        issued: config.issued.clone(),
        expired_token: config.expired_token.clone(),
        lanes: (0..OWN_LANES).map(|_| Lane::default()).collect(),
        lanes_ended: std::sync::Mutex::default(),
    });

    if let Some(observer) = &config.observer {
        (observer.0)(RunEvent::Started {
            scenarios: scenarios.len(),
            version: context.info.version.clone(),
        });
    }
    shared
        .start_early_exit(&config, config.run_timeout.saturating_sub(clock.elapsed()))
        .await;
    let lanes = lanes(&scenarios, &context.target, context.lanes.len());
    // Over stdio each lane used holds one of the jobs for itself (its scenarios run one after
    // another, so one place is all it ever needs, and it never waits for it): a lane's turn
    // never waits behind the scenarios of the main connection, nor those behind a lane's long
    // waits. Over HTTP most scenarios have sessions of their own and the probes' one lane waits
    // little: one pool for all (`None`), as with too few jobs to spare one per lane.
    let (semaphore, lane_places) = {
        let jobs = config.jobs.max(1);
        let lanes_used = lanes
            .values()
            .map(|(lane, _)| *lane)
            .collect::<std::collections::HashSet<_>>()
            .len();
        if context.target.kind() == TransportKind::Stdio && jobs > lanes_used + 1 {
            (Arc::new(Semaphore::new(jobs - lanes_used)), None)
        } else {
            let one = Arc::new(Semaphore::new(jobs));
            (one.clone(), Some(one))
        }
    };
    let mut tasks = JoinSet::new();
    for (index, scenario) in scenarios.iter().cloned() {
        let lane = lanes.get(&index).copied();
        // The place it waits for among the jobs: none for a lane with a place of its own.
        let (context, semaphore, observer) = (
            context.clone(),
            match lane {
                Some(_) => lane_places.clone(),
                None => Some(semaphore.clone()),
            },
            config.observer.clone(),
        );
        tasks.spawn(async move {
            // The scenarios of a lane take its connection one after another, in the order
            // `lanes` fixed, waiting for their turn before they take a place among the jobs.
            let slot = match lane {
                Some((lane, rank)) => {
                    let mut turn = context.lanes[lane].turn.subscribe();
                    // The sender lives in the context, which this task holds.
                    let _ = turn.wait_for(|now| *now == rank).await;
                    Some(context.lanes[lane].connection.clone().lock_owned().await)
                }
                None => None,
            };
            // The next scenario's turn comes when this one is done, even if it panicked.
            let _turn = lane.map(|(lane, _)| NextTurn(&context.lanes[lane].turn));
            let _permit = match semaphore {
                Some(semaphore) => Some(semaphore.acquire_owned().await.expect("semaphore open")),
                None => None,
            };
            // Boxed once it may run: a waiting task stays small (a scenario's future is large).
            let (results, transcript) =
                Box::pin(run_scenario(&context, &scenario, index, slot)).await;
            if let Some(observer) = observer {
                let worst = results
                    .iter()
                    .map(|r| r.status)
                    .min()
                    .unwrap_or(Status::Pass);
                (observer.0)(RunEvent::ScenarioFinished {
                    id: scenario.id.clone(),
                    worst,
                    version: context.info.version.clone(),
                });
            }
            (index, results, transcript)
        });
    }
    let mut done: HashMap<usize, Vec<CheckResult>> = HashMap::new();
    let remaining = config.run_timeout.saturating_sub(clock.elapsed());
    let mut crashed = false;
    let finished = tokio::time::timeout(remaining, async {
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((index, results, transcript)) => {
                    done.insert(index, results);
                    transcripts.extend(transcript);
                }
                Err(_) => crashed = true,
            }
        }
    })
    .await
    .is_ok();
    tasks.shutdown().await;
    // The report follows the library's order.
    scenarios.sort_by_key(|(index, _)| *index);
    for (index, scenario) in scenarios.drain(..) {
        let results = done.remove(&index).unwrap_or_else(|| {
            // A scenario that does not apply is skipped whether or not its turn came: the
            // verdict follows the server, not how far the run got.
            if let Some(why) = not_applicable(&context, &scenario) {
                return scenario
                    .checks
                    .iter()
                    .map(|c| CheckResult::new(&c.def, Verdict::skip(why.clone()), Vec::new()))
                    .collect();
            }
            let why = if finished && crashed {
                Reason::Internal
            } else {
                Reason::RunBound {
                    seconds: config.run_timeout.as_secs(),
                }
            };
            scenario
                .checks
                .iter()
                .map(|c| {
                    CheckResult::new(
                        &c.def,
                        Verdict::because(Status::Error, why.clone()),
                        Vec::new(),
                    )
                })
                .collect()
        });
        pass.checks.extend(results);
    }
    for lane in &context.lanes {
        if let Some(connection) = lane.connection.lock().await.take() {
            connection.close().await;
            transcripts.push(take_transcript(&connection));
        }
    }
    // Lanes end their connections at the same time: the report lists them by scenario, never
    // in the order they happened to end in.
    let mut ended = std::mem::take(&mut *context.lanes_ended.lock().expect("lanes lock"));
    ended.sort_by(|a, b| a.1.cmp(&b.1));
    for (transcript, ended) in ended {
        transcripts.push(transcript);
        pass.probes_ended.push(ended);
    }
    let exit = main.close().await;
    transcripts.push(take_transcript(&main));
    let early_exit = shared
        .early_exit(config.run_timeout.saturating_sub(clock.elapsed()))
        .await;
    let input = wire::WireInput::new(
        config.target.kind(),
        &transcripts,
        exit.as_ref(),
        early_exit.as_ref(),
        config.official_schemas.as_deref(),
    );
    for builtin in wire::builtins().filter(|b| config.builtin_selected(b.id())) {
        let (verdict, evidence) = match (wire::evaluate(builtin, &input), &context.tokenless) {
            // What crossed the wire is refusals: nothing of the server's MCP to judge.
            ((verdict, _), Some(why))
                if !verdict.reason.as_ref().is_some_and(Reason::is_the_runs) =>
            {
                (Verdict::skip(why.clone()), Vec::new())
            }
            (judged, _) => judged,
        };
        pass.checks
            .push(CheckResult::new(&builtin.definition(), verdict, evidence));
    }
    pass.server = main
        .stderr_tail()
        .map(|stderr_tail| ServerProcess { exit, stderr_tail });
    pass
}

/// The area of the checks a client without a token can make of a protected server.
const AUTHORIZATION: &str = "authorization";

/// Whether a run without a token met a protected server: over Streamable HTTP, with no
/// `Authorization` header of the user's, the handshake's last answer was the authorization
/// layer's refusal (401 or 403 with a challenge). Returns the refusal in words.
fn tokenless(main: &Session, config: &RunConfig) -> Option<String> {
    let Target::Http(spec) = &config.target else {
        return None;
    };
    if spec.legacy_sse
        || spec
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
    {
        return None;
    }
    let transcript = main.transcript.lock().expect("transcript lock");
    let last = transcript.posts.last()?;
    crate::record::exchange::authorization_refusal(last.status?, &last.response_headers)
}

/// A step's frames, one per copy, each with its headers (or why it could not be built).
type Built = Vec<Result<(Outgoing, Vec<(String, String)>), NotSent>>;

/// What the passes of one run (one per era or pinned version) share: the pacing of the
/// server's starts, and the early-exit probe, started once for them all.
pub(super) struct Shared {
    /// Paces every start of the run.
    starts: Starts,
    /// The early-exit probe: started by the first pass whose scenarios begin, judged by each.
    early_exit: tokio::sync::Mutex<Option<EarlyExitProbe>>,
}

impl Drop for Shared {
    /// A probe still running when the run is over (its pass never came to judge it) is stopped,
    /// and its server with it: nothing is left running.
    fn drop(&mut self) {
        if let Some(EarlyExitProbe::Running(handle)) = self.early_exit.get_mut() {
            handle.abort();
        }
    }
}

/// The early-exit probe running in the background, or what it found.
enum EarlyExitProbe {
    /// Still running.
    Running(tokio::task::JoinHandle<Option<crate::record::exchange::EarlyExit>>),
    /// Ended, with what it found.
    Ended(Option<crate::record::exchange::EarlyExit>),
}

impl Shared {
    /// Nothing started yet; starts paced to the machine's cores.
    pub(super) fn new() -> Shared {
        Shared {
            starts: Starts::for_machine(),
            early_exit: tokio::sync::Mutex::new(None),
        }
    }

    /// Starts the early-exit probe in the background, once per run (a pass after the first
    /// finds it started): the stdio server started once more and its stdin closed before
    /// anything is sent, within `bound`; how it ended is what `stdio-exit-before-initialize`
    /// judges. It waits for a core like every start, and overlaps the scenarios.
    async fn start_early_exit(&self, config: &RunConfig, bound: Duration) {
        const CHECK: &str = "stdio-exit-before-initialize";
        if config.target.kind() != TransportKind::Stdio || !config.builtin_selected(CHECK) {
            return;
        }
        // Held by a pass that is starting the probe, or waiting for what it found: either way
        // it has been started, and this pass does not wait.
        let Ok(mut probe) = self.early_exit.try_lock() else {
            return;
        };
        if probe.is_some() {
            return;
        }
        // A server told to stop while it is still starting (an interpreter importing, `npx`
        // resolving) notices only once it has started: it gets the startup bound on top of the
        // exit grace, so that a slow start is not taken for a server that ignores EOF.
        let limits = crate::transport::Limits {
            exit_grace: config.limits.exit_grace + config.limits.startup_timeout,
            ..config.limits.clone()
        };
        let (starts, target) = (self.starts.clone(), config.target.clone());
        let grace = config.limits.exit_grace;
        *probe = Some(EarlyExitProbe::Running(tokio::spawn(async move {
            tokio::time::timeout(bound, async {
                let permit = starts.acquire(&target).await;
                let session = Session::open(&target, &limits).ok()?;
                // The core is its while it starts and ends, up to the usual exit grace: a
                // server that ignores the end of its stdin idles on, and holds none.
                let closing = session.close();
                tokio::pin!(closing);
                let exit = tokio::select! {
                    exit = &mut closing => exit,
                    () = tokio::time::sleep(grace) => {
                        drop(permit);
                        closing.await
                    }
                }?;
                Some(crate::record::exchange::EarlyExit {
                    exit,
                    stderr_tail: session.stderr_tail(),
                })
            })
            .await
            .ok()
            .flatten()
        })));
    }

    /// What the early-exit probe found, waiting for it at most `bound` (`None`: not started,
    /// or no answer in time).
    async fn early_exit(&self, bound: Duration) -> Option<crate::record::exchange::EarlyExit> {
        let mut probe = self.early_exit.lock().await;
        if let Some(EarlyExitProbe::Running(handle)) = probe.as_mut() {
            let found = tokio::time::timeout(bound, handle)
                .await
                .ok()?
                .ok()
                .flatten();
            *probe = Some(EarlyExitProbe::Ended(found));
        }
        match probe.as_ref() {
            Some(EarlyExitProbe::Ended(found)) => found.clone(),
            _ => None,
        }
    }
}
