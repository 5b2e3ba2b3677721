//! The runner: connects, detects the era, negotiates, runs scenarios concurrently on shared or
//! isolated sessions, evaluates the checks and assembles the report.
//!
//! Every session it opens is closed before it returns, whatever happened; a stdio server is
//! always taken down its shutdown ladder.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::OptionFuture;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::check::rules::{self, Env, StepRecord};
use crate::check::{wire, Status, Verdict};
use crate::protocol::session::SendOptions;
use crate::protocol::{Era, Exchange, Outgoing, Reply, Session, SessionInfo};
use crate::record::version::LATEST_HANDSHAKE;
use crate::report::{
    rfc3339, CheckResult, Evidence, ProtocolInfo, Report, ServerProcess, Summary, TargetInfo,
    SCHEMA_VERSION,
};
use crate::scenario::{Scenario, SessionKind, Step, StepSend};
use crate::transport::serve::Served;
use crate::transport::{self, HttpSpec, Limits, Target, Transcript, TransportKind};

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
    /// A protocol version to force instead of negotiating the newest.
    pub spec_version: Option<String>,
    /// How many scenarios run at once.
    pub jobs: usize,
    /// The bound on the whole run.
    pub run_timeout: Duration,
    /// The scenarios.
    pub scenarios: Vec<Scenario>,
    /// Check ids (or `prefix*`) to run; empty means all.
    pub only: Vec<String>,
    /// Told about progress, if anyone listens.
    pub observer: Option<Observer>,
    /// Run only this slice of the scenarios: `(k, n)` is shard k of n, 1-based.
    pub shard: Option<(usize, usize)>,
    /// The fixture profile selected with `--profile` (`everything`): its scenarios run.
    pub fixture_profile: Option<String>,
    /// Official schema files to validate results with too (`--official-schemas`).
    pub official_schemas: Option<Arc<crate::check::messages::OfficialSchemas>>,
    /// Which discovered tools mcpcheck may call (`--call-tools`); none when not given.
    pub call_tools: Option<CallTools>,
}

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
    },
    /// A scenario finished.
    ScenarioFinished {
        /// Its id.
        id: String,
        /// The worst status among its checks.
        worst: Status,
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

/// Whether a `--check` pattern (an id, or a prefix ending in `*`) selects a check id.
pub fn pattern_matches(pattern: &str, id: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => id.starts_with(prefix),
        None => id == pattern,
    }
}

impl RunConfig {
    fn selected(&self, id: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|pattern| pattern_matches(pattern, id))
    }
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
    /// The fixture profile the run selected.
    fixture_profile: Option<String>,
    /// stdio servers started ahead for the scenarios that need a connection of their own.
    prestart: Prestart,
}

/// At most this many servers are started ahead of their scenarios at any one time.
const MAX_PRESTARTED: usize = 16;

/// stdio servers started ahead for scenarios that need a connection of their own, so that a
/// slow start-up overlaps the main handshake, the other start-ups and the scenarios that run
/// meanwhile: a rolling window of [`MAX_PRESTARTED`], refilled as scenarios take theirs.
struct Prestart {
    target: Target,
    limits: Limits,
    /// The servers started, by scenario index.
    started: std::sync::Mutex<HashMap<usize, Session>>,
    /// The scenarios (by index, in order) still to get one.
    waiting: std::sync::Mutex<VecDeque<usize>>,
    /// Servers a scenario took but did not need, being shut down meanwhile.
    discarded: std::sync::Mutex<JoinSet<()>>,
}

impl Prestart {
    /// Starts the first servers for these scenarios (by index, in the order they will run).
    fn new(target: &Target, limits: &Limits, waiting: VecDeque<usize>) -> Prestart {
        let prestart = Prestart {
            target: target.clone(),
            limits: limits.clone(),
            started: std::sync::Mutex::default(),
            waiting: std::sync::Mutex::new(waiting),
            discarded: std::sync::Mutex::default(),
        };
        prestart.fill();
        prestart
    }

    /// Starts servers for the next scenarios waiting, up to [`MAX_PRESTARTED`] started.
    fn fill(&self) {
        while self.started.lock().expect("prestart lock").len() < MAX_PRESTARTED {
            let Some(next) = self.waiting.lock().expect("prestart lock").pop_front() else {
                break;
            };
            if let Ok(session) = Session::open(&self.target, &self.limits) {
                self.started
                    .lock()
                    .expect("prestart lock")
                    .insert(next, session);
            }
        }
    }

    /// Takes the server started for a scenario (if any; a scenario still waiting will not get
    /// one now) and starts the next.
    fn take(&self, index: usize) -> Option<Session> {
        self.waiting
            .lock()
            .expect("prestart lock")
            .retain(|i| *i != index);
        let taken = self.started.lock().expect("prestart lock").remove(&index);
        self.fill();
        taken
    }

    /// Shuts down a server a scenario took but does not need (it does not apply), without
    /// holding up that scenario's turn: [`Prestart::close_unused`] waits for it.
    fn discard(&self, session: Session) {
        self.discarded
            .lock()
            .expect("prestart lock")
            .spawn(async move {
                session.close().await;
            });
    }

    /// Shuts down the servers no scenario took (the run's bound, a race with a scenario that
    /// started first) and waits for the discarded ones; starts no more.
    async fn close_unused(&self) {
        self.waiting.lock().expect("prestart lock").clear();
        let unused: Vec<Session> = self
            .started
            .lock()
            .expect("prestart lock")
            .drain()
            .map(|(_, session)| session)
            .collect();
        // Together: each may take the exit grace to stop.
        futures_util::future::join_all(unused.iter().map(Session::close)).await;
        let mut discarded = std::mem::take(&mut *self.discarded.lock().expect("prestart lock"));
        while discarded.join_next().await.is_some() {}
    }
}

/// Runs the checks and returns the report (with `fatal` set when the server could not be tested).
pub async fn run(config: RunConfig) -> Report {
    let Target::Http(HttpSpec {
        url,
        serve: Some(serve),
        ..
    }) = &config.target
    else {
        return run_started(config).await;
    };
    let clock = Instant::now();
    let (host, port) = match crate::transport::http::parse_url(url) {
        Ok(uri) => (
            uri.host().unwrap_or("127.0.0.1").to_string(),
            uri.port_u16().unwrap_or(default_port(uri.scheme_str())),
        ),
        Err(e) => {
            let mut report = empty_report(&config);
            report.fatal = Some(e);
            return report;
        }
    };
    match Served::start(serve, &host, port, &config.limits).await {
        Ok(served) => {
            let report = run_started(config).await;
            served.stop().await;
            report
        }
        Err(e) => {
            let mut report = empty_report(&config);
            report.fatal = Some(e);
            report.duration_ms = clock.elapsed().as_millis() as u64;
            report
        }
    }
}

/// The port a URL without one means: 443 for https, 80 otherwise.
fn default_port(scheme: Option<&str>) -> u16 {
    match scheme {
        Some(s) if s.eq_ignore_ascii_case("https") => 443,
        _ => 80,
    }
}

/// A report with nothing run yet.
fn empty_report(config: &RunConfig) -> Report {
    Report {
        schema_version: SCHEMA_VERSION,
        mcpcheck_version: env!("CARGO_PKG_VERSION").into(),
        target: match &config.target {
            Target::Stdio(spec) => TargetInfo {
                transport: "stdio".into(),
                command: Some(spec.argv.clone()),
                url: None,
            },
            Target::Http(spec) => TargetInfo {
                transport: config.target.kind().to_string(),
                command: spec.serve.as_ref().map(|s| s.command.argv.clone()),
                url: Some(spec.url.clone()),
            },
        },
        protocol: ProtocolInfo::default(),
        server: None,
        fatal: None,
        started_at: rfc3339(SystemTime::now()),
        duration_ms: 0,
        summary: Summary::default(),
        grading: None,
        checks: Vec::new(),
    }
}

/// How long a scenario is known to wait, at least: its steps' waits and holds, and a second for
/// each step with a timeout of its own (a call that blocks, such as tasks/result).
fn known_wait(scenario: &Scenario) -> Duration {
    scenario
        .steps
        .iter()
        .map(|step| {
            step.wait.unwrap_or_default()
                + step.hold.unwrap_or_default()
                + if step.timeout.is_some() {
                    Duration::from_secs(1)
                } else {
                    Duration::ZERO
                }
        })
        .sum()
}

/// Runs the scenarios against a server that is running (HTTP) or will be started (stdio).
async fn run_started(config: RunConfig) -> Report {
    let clock = Instant::now();
    let mut report = empty_report(&config);
    let mut scenarios: Vec<(usize, Arc<Scenario>)> = config
        .scenarios
        .iter()
        .cloned()
        .map(|mut s| {
            s.checks.retain(|c| config.selected(&c.def.id));
            s
        })
        .filter(|s| !s.checks.is_empty())
        .filter(|s| config.shard.is_none_or(|(k, n)| shard_of(&s.id, n) == k))
        .map(Arc::new)
        .enumerate()
        .collect();
    // Scenarios that are known to wait long start first, so that their waits overlap the rest.
    scenarios.sort_by_key(|(_, s)| std::cmp::Reverse(known_wait(s)));
    let main = match Session::open(&config.target, &config.limits) {
        Ok(session) => Arc::new(session),
        Err(e) => {
            report.fatal = Some(e);
            report.duration_ms = clock.elapsed().as_millis() as u64;
            return report;
        }
    };
    // A slow-starting server should cost its start-up time about once, not once per scenario.
    let waiting = match config.target {
        Target::Stdio(_) => scenarios
            .iter()
            .filter(|(_, s)| s.session != SessionKind::Shared)
            .filter(|(_, s)| transport::allows(&s.requires.transports, TransportKind::Stdio))
            .filter(|(_, s)| {
                s.requires
                    .profile
                    .as_ref()
                    .is_none_or(|p| config.fixture_profile.as_ref() == Some(p))
            })
            .map(|(index, _)| *index)
            .collect(),
        Target::Http(_) => VecDeque::new(),
    };
    let prestart = Prestart::new(&config.target, &config.limits, waiting);
    let connected = tokio::time::timeout(
        config.run_timeout,
        connect(&main, &config, &mut report.protocol),
    )
    .await;
    let failure = match connected {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(_) => Some(format!(
            "the handshake did not finish within the run bound of {} s",
            config.run_timeout.as_secs()
        )),
    };
    if let Some(fatal) = failure {
        prestart.close_unused().await;
        let exit = main.close().await;
        // What the HTTP+SSE stream showed before the run ended (an endpoint at another origin
        // ends it) is judged even so: the report says why the server could not be tested.
        if config.target.kind() == TransportKind::Sse {
            let transcripts = [take_transcript(&main)];
            let input = wire::WireInput {
                transport: TransportKind::Sse,
                transcripts: &transcripts,
                main_exit: exit.as_ref(),
                official: None,
            };
            for def in wire::definitions()
                .iter()
                .filter(|d| d.id.starts_with("legacy-sse-endpoint-") && config.selected(&d.id))
            {
                let (verdict, evidence) = wire::evaluate(def, &input);
                if verdict.status != Status::Skip {
                    report.checks.push(CheckResult::new(def, verdict, evidence));
                }
            }
            report.summary = Summary::of(&report.checks);
        }
        report.server = main
            .stderr_tail()
            .map(|stderr_tail| ServerProcess { exit, stderr_tail });
        report.fatal = Some(fatal);
        report.duration_ms = clock.elapsed().as_millis() as u64;
        return report;
    }
    let info = main.info();
    // Tools are listed when a scenario names one, and on 2026-07-28 always: arguments marked
    // with x-mcp-header must travel in Mcp-Param-* headers too, for any tool mcpcheck calls.
    let needs_tools = info.era == Some(Era::Stateless)
        || config
            .scenarios
            .iter()
            .any(|s| !s.requires.tools.is_empty() || s.requires.call_tools);
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
            config
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
        fixture_profile: config.fixture_profile.clone(),
        prestart,
    });

    if let Some(observer) = &config.observer {
        (observer.0)(RunEvent::Started {
            scenarios: scenarios.len(),
        });
    }
    let semaphore = Arc::new(Semaphore::new(config.jobs.max(1)));
    let mut tasks = JoinSet::new();
    for (index, scenario) in scenarios.iter().cloned() {
        let (context, semaphore, observer) =
            (context.clone(), semaphore.clone(), config.observer.clone());
        tasks.spawn(async move {
            let _permit = semaphore.acquire_owned().await.expect("semaphore open");
            // Boxed once it may run: a waiting task stays small (a scenario's future is large).
            let (results, transcript) = Box::pin(run_scenario(&context, &scenario, index)).await;
            if let Some(observer) = observer {
                let worst = results
                    .iter()
                    .map(|r| r.status)
                    .min()
                    .unwrap_or(Status::Pass);
                (observer.0)(RunEvent::ScenarioFinished {
                    id: scenario.id.clone(),
                    worst,
                });
            }
            (index, results, transcript)
        });
    }
    let mut done: HashMap<usize, Vec<CheckResult>> = HashMap::new();
    let mut transcripts: Vec<Transcript> = Vec::new();
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
    context.prestart.close_unused().await;
    // The report follows the library's order.
    scenarios.sort_by_key(|(index, _)| *index);
    for (index, scenario) in scenarios.drain(..) {
        let results = done.remove(&index).unwrap_or_else(|| {
            // A scenario that does not apply is skipped whether or not its turn came: the
            // verdict follows the server, not how far the run got.
            if let Some(why) = not_applicable(&context, &scenario) {
                return scenario.checks.iter().map(|c| CheckResult::new(&c.def, Verdict::new(Status::Skip, why.clone()), Vec::new())).collect();
            }
            let why = if finished && crashed {
                "mcpcheck itself failed while running this scenario (an internal error; please report it)".to_string()
            } else {
                format!("the run exceeded its bound of {} s before this check finished", config.run_timeout.as_secs())
            };
            scenario.checks.iter().map(|c| CheckResult::new(&c.def, Verdict::new(Status::Error, why.clone()), Vec::new())).collect()
        });
        report.checks.extend(results);
    }
    let exit = main.close().await;
    transcripts.push(take_transcript(&main));
    let input = wire::WireInput {
        transport: config.target.kind(),
        transcripts: &transcripts,
        main_exit: exit.as_ref(),
        official: config.official_schemas.as_deref(),
    };
    for def in wire::definitions()
        .iter()
        .filter(|d| config.selected(&d.id))
    {
        let (verdict, evidence) = wire::evaluate(def, &input);
        report.checks.push(CheckResult::new(def, verdict, evidence));
    }
    report.server = main
        .stderr_tail()
        .map(|stderr_tail| ServerProcess { exit, stderr_tail });
    report.summary = Summary::of(&report.checks);
    report.duration_ms = clock.elapsed().as_millis() as u64;
    report
}

/// Detects the era and negotiates; fills in what was learned.
async fn connect(
    main: &Session,
    config: &RunConfig,
    protocol: &mut ProtocolInfo,
) -> Result<(), String> {
    let forced = config.spec_version.as_deref();
    let era = match forced {
        Some(version) => {
            protocol.detection = format!("--spec-version {version}");
            Era::of(version).ok_or_else(|| format!("unknown protocol version `{version}`"))?
        }
        None => {
            let (discovered, probe) = main.discover().await;
            match discovered {
                Some(result) => {
                    main.adopt_stateless(&result)?;
                    protocol.detection = "server/discover answered".into();
                    Era::Stateless
                }
                None => {
                    protocol.detection = format!(
                        "server/discover not served ({}); initialize",
                        rules::describe(&probe, true)
                    );
                    if let Reply::Closed { detail } = &probe.reply {
                        return Err(format!("{detail} (while probing server/discover)"));
                    }
                    Era::Handshake
                }
            }
        }
    };
    match era {
        Era::Stateless => {
            if forced.is_some() {
                let (discovered, probe) = main.discover().await;
                let result = discovered.ok_or_else(|| {
                    format!(
                        "server/discover was not answered: {}",
                        rules::describe(&probe, true)
                    )
                })?;
                main.adopt_stateless(&result)?;
            }
            protocol.requested_version = Some(
                forced
                    .unwrap_or(crate::record::version::LATEST_STATELESS)
                    .to_string(),
            );
        }
        Era::Handshake => {
            let version = forced.unwrap_or(LATEST_HANDSHAKE);
            protocol.requested_version = Some(version.to_string());
            main.handshake(version)
                .await
                .map_err(|(why, _)| format!("no handshake: {why}"))?;
        }
    }
    let info = main.info();
    protocol.era = info.era.map(|e| e.to_string());
    protocol.version = info.version.clone();
    protocol.server_info = info.server_info.clone();
    protocol.capabilities = info.capabilities.clone();
    Ok(())
}

/// Whether the server declared a capability; a dotted name (`resources.subscribe`) names a flag
/// inside one, which must be `true`; `extensions.<id>` names an extension by its whole
/// identifier (`extensions.io.modelcontextprotocol/tasks`).
fn declares(info: &SessionInfo, capability: &str) -> bool {
    if let Some(extension) = capability.strip_prefix("extensions.") {
        return info
            .capabilities
            .as_ref()
            .and_then(|c| c.get("extensions"))
            .and_then(|e| e.get(extension))
            .is_some_and(|v| !v.is_null() && v != &Value::Bool(false));
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

/// Lists every item of a list method (`tools/list` → `tools`, keyed by `name`), following
/// cursors, at most 50 pages; listing is always safe. The first page is asked for twice if need
/// be (a server still starting may refuse it once); if it never comes, what came instead is
/// returned too.
async fn list_all(
    session: &Session,
    method: &str,
    field: &str,
    key: &str,
) -> (HashMap<String, Value>, Option<String>) {
    let mut names = HashMap::new();
    let mut cursor: Option<Value> = None;
    let mut seen_cursors = HashSet::new();
    let listed = |e: &Exchange| rules::reply_message(e).is_some_and(|m| m.get("result").is_some());
    for page in 0..50 {
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let mut exchange = session.request(method, params.clone()).await;
        if page == 0 && !listed(&exchange) {
            tokio::time::sleep(Duration::from_millis(500)).await;
            exchange = session.request(method, params).await;
            if !listed(&exchange) {
                return (names, Some(rules::describe(&exchange, true)));
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

fn token() -> String {
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

/// A session's transcript, labelled with the protocol version the session spoke.
fn take_transcript(session: &Session) -> Transcript {
    let mut transcript = std::mem::take(&mut *session.transcript.lock().expect("transcript lock"));
    transcript.version = session.info().version;
    transcript
}

/// Why a scenario does not apply, if it does not.
fn not_applicable(context: &Context, scenario: &Scenario) -> Option<String> {
    let requires = &scenario.requires;
    let transport = context.target.kind();
    let version = context.info.version.as_deref().unwrap_or("");
    if !transport::allows(&requires.transports, transport) {
        return Some(format!(
            "applies to {} only",
            transport::describe(&requires.transports)
        ));
    }
    if let Some(profile) = &requires.profile {
        if context.fixture_profile.as_ref() != Some(profile) {
            return Some(format!(
                "a fixture check of the `{profile}` profile (run with --profile {profile} against a server with those fixtures)"
            ));
        }
    }
    if let Some(era) = requires.era.filter(|e| Some(*e) != context.info.era) {
        return Some(format!(
            "applies to the {era} era only; the server speaks the {} era",
            context.info.era.map(|e| e.to_string()).unwrap_or_default()
        ));
    }
    if !requires.versions.contains(version) {
        return Some(format!(
            "applies to protocol versions {}; the server negotiated {version}",
            requires.versions
        ));
    }
    if let Some(missing) = requires
        .capabilities
        .iter()
        .find(|c| !declares(&context.info, c))
    {
        return Some(match missing.strip_prefix("extensions.") {
            Some(extension) => format!("the server does not declare the `{extension}` extension"),
            None => format!("the server does not declare the `{missing}` capability"),
        });
    }
    if let Some(declared) = requires
        .undeclared
        .iter()
        .find(|c| declares(&context.info, c))
    {
        return Some(format!(
            "the server declares the `{declared}` capability (this checks an undeclared one)"
        ));
    }
    if requires.call_tools {
        match context.call_tools {
            None => {
                return Some(
                    "calls a tool the server lists, which mcpcheck only does with --call-tools read-only|all"
                        .into(),
                )
            }
            Some(which) if context.probe.is_none() => {
                return Some(format!(
                    "no listed tool{} has a required or typed argument to get wrong",
                    if which == CallTools::ReadOnly {
                        " annotated readOnlyHint: true"
                    } else {
                        ""
                    }
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(missing) = requires.tools.iter().find(|t| {
        !context
            .tools
            .as_ref()
            .is_some_and(|tools| tools.contains_key(*t))
    }) {
        if let Some(why) = &context.tools_failure {
            return Some(format!(
                "the run's tools/list got no list ({why}), so the fixture `{missing}` cannot be found"
            ));
        }
        return Some(format!(
            "the server lists no tool named `{missing}`, the fixture this scenario calls"
        ));
    }
    let fixtures = [
        (
            "prompt",
            "prompts/list",
            &requires.prompts,
            &context.prompts,
        ),
        (
            "resource",
            "resources/list",
            &requires.resources,
            &context.resources,
        ),
    ];
    for (kind, method, wanted, listed) in fixtures {
        let Some(missing) = wanted.iter().find(|w| {
            !listed
                .as_ref()
                .is_some_and(|(items, _)| items.contains_key(*w))
        }) else {
            continue;
        };
        if let Some((_, Some(why))) = listed {
            return Some(format!(
                "the run's {method} got no list ({why}), so the fixture `{missing}` cannot be found"
            ));
        }
        return Some(format!(
            "the server lists no {kind} `{missing}`, the fixture this scenario uses"
        ));
    }
    None
}

/// Runs one scenario; returns its check results and, for an isolated session, its transcript.
async fn run_scenario(
    context: &Context,
    scenario: &Scenario,
    index: usize,
) -> (Vec<CheckResult>, Option<Transcript>) {
    let prestarted = context.prestart.take(index);
    if let Some(why) = not_applicable(context, scenario) {
        if let Some(session) = prestarted {
            context.prestart.discard(session);
        }
        let results = scenario
            .checks
            .iter()
            .map(|c| CheckResult::new(&c.def, Verdict::new(Status::Skip, why.clone()), Vec::new()))
            .collect();
        return (results, None);
    }
    let session = match scenario.session {
        SessionKind::Shared => context.main.clone(),
        kind => match open_isolated(context, kind, prestarted).await {
            Ok(session) => Arc::new(session),
            Err(why) => {
                let results = scenario
                    .checks
                    .iter()
                    .map(|c| {
                        CheckResult::new(
                            &c.def,
                            Verdict::new(
                                Status::Error,
                                format!("could not open a session of its own: {why}"),
                            ),
                            Vec::new(),
                        )
                    })
                    .collect();
                return (results, None);
            }
        },
    };
    // A connection of the scenario's own is judged at the version it negotiated itself.
    let main_version = context.info.version.clone().unwrap_or_default();
    let version = if scenario.session == SessionKind::Fresh {
        session
            .info()
            .version
            .unwrap_or_else(|| main_version.clone())
    } else {
        main_version.clone()
    };
    if version != main_version && !scenario.requires.versions.contains(&version) {
        session.close().await;
        let why = format!(
            "applies to protocol versions {}; a new connection negotiated {version} (the main one {main_version})",
            scenario.requires.versions
        );
        let results = scenario
            .checks
            .iter()
            .map(|c| CheckResult::new(&c.def, Verdict::new(Status::Skip, why.clone()), Vec::new()))
            .collect();
        return (results, Some(take_transcript(&session)));
    }
    let mut captures: HashMap<String, Value> = HashMap::new();
    let mut records: Vec<StepRecord> = Vec::new();
    let base = 1000 * (index as i64 + 1);
    let step_of = StepRunner {
        context,
        session: &session,
        version: &version,
        base,
        isolated: scenario.session != SessionKind::Shared,
    };
    for (n, step) in scenario.steps.iter().enumerate() {
        let built = step_of.build(n, step, &captures);
        let Some(ready_on) = &step.background else {
            let outcomes = step_of.send(step, built, None).await;
            record_step(step, outcomes, &mut captures, &mut records);
            continue;
        };
        // A background step stays open while the steps after it run; they start once its
        // notification has arrived (or it has ended).
        let notify = Arc::new(tokio::sync::Notify::new());
        let background = async {
            let outcomes = step_of
                .send(step, built, Some((ready_on.clone(), notify.clone())))
                .await;
            notify.notify_one();
            outcomes
        };
        let rest = async {
            notify.notified().await;
            let mut captures = captures.clone();
            let mut records = Vec::new();
            for (m, later) in scenario.steps.iter().enumerate().skip(n + 1) {
                let built = step_of.build(m, later, &captures);
                let outcomes = step_of.send(later, built, None).await;
                record_step(later, outcomes, &mut captures, &mut records);
            }
            (captures, records)
        };
        let (outcomes, (later_captures, later_records)) =
            futures_util::future::join(background, rest).await;
        captures = later_captures;
        record_step(step, outcomes, &mut captures, &mut records);
        records.extend(later_records);
        break;
    }
    let env = Env {
        version: &version,
        transport: context.target.kind(),
        captures: &captures,
        tools: context.tools.as_ref(),
        dual_era: context.info.era == Some(Era::Stateless)
            && context
                .info
                .supported_versions
                .iter()
                .any(|v| Era::of(v) == Some(Era::Handshake)),
    };
    let mut results = Vec::new();
    for check in &scenario.checks {
        let verdict = if !check.def.versions.contains(&version) {
            Verdict::new(
                Status::Skip,
                format!(
                    "applies to protocol versions {}; the server negotiated {version}",
                    check.def.versions
                ),
            )
        } else {
            rules::evaluate(check, &records, &env)
        };
        let evidence = check
            .steps
            .iter()
            .flat_map(|name| records.iter().filter(move |r| &r.name == name))
            .filter_map(|r| {
                r.outcome
                    .as_ref()
                    .ok()
                    .map(|e| Evidence::exchange(&r.name, e))
            })
            .collect();
        results.push(CheckResult::new(&check.def, verdict, evidence));
    }
    let transcript = if scenario.session == SessionKind::Shared {
        None
    } else {
        session.close().await;
        Some(take_transcript(&session))
    };
    (results, transcript)
}

/// Opens a session of a scenario's own: `fresh` does the handshake (or adopts the stateless
/// era), `bare` sends nothing.
async fn open_isolated(
    context: &Context,
    kind: SessionKind,
    prestarted: Option<Session>,
) -> Result<Session, String> {
    let session = match prestarted {
        Some(session) => session,
        None => Session::open(&context.target, &context.limits)?,
    };
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
                    .unwrap_or_else(|| LATEST_HANDSHAKE.to_string());
                if let Err((why, _)) = session.handshake(&version).await {
                    session.close().await;
                    return Err(why);
                }
                session.barrier().await;
            }
        }
    }
    Ok(session)
}

/// What a scenario's steps share: the connection, the version and the run's context.
struct StepRunner<'a> {
    context: &'a Context,
    session: &'a Session,
    version: &'a str,
    /// The base of the ids mcpcheck gives the scenario's requests.
    base: i64,
    /// Whether the scenario has a connection of its own (replies nobody claimed are its own).
    isolated: bool,
}

/// A step's frames, one per copy, each with its headers (or why it could not be built).
type Built = Vec<Result<(Outgoing, Vec<(String, String)>), String>>;

impl StepRunner<'_> {
    /// Builds the frames of step `n`, its placeholders filled from the run and the captures.
    fn build(&self, n: usize, step: &Step, captures: &HashMap<String, Value>) -> Built {
        // A step sent `concurrent` times at once is built once per copy (`{{copy}}` is 1, 2, …).
        let copies = step.concurrent.max(1);
        let context = self.context;
        let build = |copy: usize| -> Result<(Outgoing, Vec<(String, String)>), String> {
            let lookup = |name: &str| -> Option<Value> {
                match name {
                    "protocolVersion" => Some(Value::from(self.version)),
                    "token" => Some(Value::from(context.token.clone())),
                    "copy" => Some(Value::from(copy)),
                    "probe.name" => context.probe.as_ref().map(|(n, _)| Value::from(n.clone())),
                    "probe.arguments" => context.probe.as_ref().map(|(_, a)| a.clone()),
                    _ => name
                        .strip_prefix("capture.")
                        .and_then(|c| captures.get(c).cloned())
                        .or_else(|| {
                            crate::scenario::template::tool_value(context.tools.as_ref(), name)
                        }),
                }
            };
            let unresolved = |name: String| {
                let why = if name.starts_with("capture.") {
                    " (the earlier step it is captured from did not have it)"
                } else {
                    ""
                };
                format!(
                    "step `{}` was not run: `{{{{{name}}}}}` has no value{why}",
                    step.name
                )
            };
            let expand = |v: &Option<Value>| -> Result<Option<Value>, String> {
                v.as_ref()
                    .map(|v| crate::scenario::template::expand(v, &lookup))
                    .transpose()
                    .map_err(unresolved)
            };
            let text = |t: &str| -> Result<String, String> {
                crate::scenario::template::expand_str(t, &lookup)
                    .map(|v| {
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string())
                    })
                    .map_err(unresolved)
            };
            let headers = step
                .headers
                .iter()
                .map(|(name, value)| Ok((name.clone(), text(value)?)))
                .collect::<Result<Vec<_>, String>>()?;
            let outgoing = match &step.send {
                StepSend::Request { id, method, params } => {
                    let params = expand(params)?;
                    let id = match expand(id)? {
                        Some(id) => id,
                        None if copies > 1 => {
                            json!(self.base + 500 + 16 * n as i64 + copy as i64)
                        }
                        None => json!(self.base + n as i64),
                    };
                    Ok(Outgoing::Request {
                        id,
                        method: method.clone(),
                        params,
                    })
                }
                StepSend::Notification { method, params } => {
                    expand(params).map(|params| Outgoing::Notification {
                        method: method.clone(),
                        params,
                    })
                }
                StepSend::Raw(raw) => text(raw).map(|text| Outgoing::Raw { text }),
            }?;
            Ok((outgoing, headers))
        };
        (1..=copies).map(build).collect()
    }

    /// Sends a step's frames (its copies at once, with its `alongside` notification) and
    /// returns what came back for each.
    async fn send(
        &self,
        step: &Step,
        built: Built,
        ready: Option<(String, Arc<tokio::sync::Notify>)>,
    ) -> Vec<Result<Exchange, String>> {
        let options = SendOptions {
            headers: step.headers.clone(),
            omit_headers: step.omit_headers.clone(),
            omit_meta: step.omit_meta.clone(),
            wait: step.wait,
            hold: step.hold,
            drop_after_events: step.drop_after_events,
            until_notified: step.until_notified.clone(),
            // A background request leaves replies nobody claimed to the steps running meanwhile.
            accept_unmatched: self.isolated && ready.is_none(),
            ready,
            timeout: step.timeout,
            http_method: step.http_method.clone(),
        };
        if let Some(poll) = &step.poll {
            return vec![self.poll(poll, built, &options).await];
        }
        let sends = built.into_iter().map(|built| {
            let options = &options;
            async move {
                let (outgoing, headers) = built?;
                let options = SendOptions {
                    headers,
                    ..options.clone()
                };
                Ok(self.session.send(outgoing, &options).await)
            }
        });
        let alongside = step
            .alongside
            .as_ref()
            .map(|(method, params, after)| async move {
                tokio::time::sleep(*after).await;
                let outgoing = Outgoing::Notification {
                    method: method.clone(),
                    params: params.clone(),
                };
                self.session.send(outgoing, &SendOptions::default()).await
            });
        let (outcomes, _) =
            futures_util::future::join(futures_util::future::join_all(sends), async {
                if let Some(alongside) = alongside {
                    alongside.await;
                }
            })
            .await;
        outcomes
    }
}

impl StepRunner<'_> {
    /// Sends a polling step's request until its reply has one of the awaited values (or the
    /// step's time is up, or what came back is no reply at all); each poll has an id of its own
    /// (`<id>.2`, `<id>.3`, …) and waits what the server asked for in `result.pollIntervalMs`
    /// (at least 50 ms, at most 1 s). The last exchange is the step's; the others are in the
    /// transcript.
    async fn poll(
        &self,
        poll: &crate::scenario::Poll,
        built: Built,
        options: &SendOptions,
    ) -> Result<Exchange, String> {
        let (outgoing, headers) = built.into_iter().next().expect("one copy")?;
        let options = SendOptions {
            headers,
            ..options.clone()
        };
        let deadline = Instant::now() + poll.within;
        let mut attempt = 1;
        loop {
            let mut frame = outgoing.clone();
            if let Outgoing::Request { id, .. } = &mut frame {
                if attempt > 1 {
                    *id = Value::from(format!("{id}.{attempt}"));
                }
            }
            let exchange = self.session.send(frame, &options).await;
            let Some(reply) = rules::reply_message(&exchange) else {
                return Ok(exchange);
            };
            if poll
                .until
                .iter()
                .any(|v| reply.pointer(&poll.at) == Some(v))
            {
                return Ok(exchange);
            }
            let interval = reply
                .pointer("/result/pollIntervalMs")
                .and_then(Value::as_u64)
                .unwrap_or(200)
                .clamp(50, 1000);
            let next = Instant::now() + Duration::from_millis(interval);
            if next >= deadline {
                return Ok(exchange);
            }
            tokio::time::sleep_until(next.into()).await;
            attempt += 1;
        }
    }
}

/// Keeps what a step's exchanges captured and records them for its checks.
fn record_step(
    step: &Step,
    outcomes: Vec<Result<Exchange, String>>,
    captures: &mut HashMap<String, Value>,
    records: &mut Vec<StepRecord>,
) {
    let is_request = matches!(step.send, StepSend::Request { .. });
    for outcome in outcomes {
        if let Ok(exchange) = &outcome {
            for (name, pointer) in &step.capture {
                // `@event_id/N`: the id of the N-th SSE event of the HTTP response.
                let value = match pointer.strip_prefix("@event_id/") {
                    Some(n) => n.parse::<usize>().ok().and_then(|n| {
                        let id = exchange.http.as_ref()?.events.get(n)?.id.clone()?;
                        Some(Value::from(id))
                    }),
                    None => rules::reply_message(exchange)
                        .and_then(|m| m.pointer(pointer))
                        .cloned(),
                };
                if let Some(value) = value {
                    captures.insert(name.clone(), value);
                }
            }
        }
        records.push(StepRecord {
            name: step.name.clone(),
            is_request,
            outcome,
        });
    }
}
