//! Running one scenario: its steps in order (with background steps and captures), each step's
//! exchange recorded, then its checks judged over what was recorded.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{not_applicable, open_isolated, take_transcript, Built, Context, LaneSlot};
use crate::check::query::Seen;
use crate::check::rules::Env;
use crate::check::step::{NotSent, StepRecord, Stopped};
use crate::check::{query, rules, step};
use crate::protocol::session::SendOptions;
use crate::protocol::{Outgoing, Session};
use crate::record::{Evidence, Exchange, Reason, Reply, Status, Transcript, Verdict};
use crate::report::CheckResult;
use crate::scenario::model::{Part, Query};
use crate::scenario::{Mode, Scenario, SessionKind, Step, StepSend};

/// Runs one scenario; returns its check results and, for an isolated session, its transcript.
/// A scenario of a lane comes holding the lane's connection (`lane`), and gives it back.
///
/// Long by design: a scenario's life in order (connect or share, version window, the steps with
/// their background step, judging), each stage short and tied to the next by the captures.
pub(super) async fn run_scenario(
    context: &Context,
    scenario: &Scenario,
    index: usize,
    mut lane: Option<LaneSlot>,
) -> (Vec<CheckResult>, Option<Transcript>) {
    // Without a token, a protected server said nothing about itself: only what the run chose
    // makes a check not apply, and every check but the authorization ones needs the token.
    let skip = not_applicable(context, scenario)
        .filter(|why| context.tokenless.is_none() || why.is_the_runs())
        .or_else(|| {
            context
                .tokenless
                .clone()
                .filter(|_| scenario.area != super::AUTHORIZATION)
        });
    if let Some(why) = skip {
        let results = scenario
            .checks
            .iter()
            .map(|c| CheckResult::new(&c.def, Verdict::skip(why.clone()), Vec::new()))
            .collect();
        return (results, None);
    }
    let open = async {
        match scenario.session {
            SessionKind::Shared => Ok(context.main.clone()),
            // A lane's scenario goes on with the lane's connection, or starts it.
            _ if lane.is_some() => match lane.as_mut().and_then(|slot| slot.take()) {
                Some(session) => Ok(session),
                None => open_isolated(context, SessionKind::Fresh)
                    .await
                    .map(Arc::new),
            },
            kind => open_isolated(context, kind).await.map(Arc::new),
        }
    };
    let session = match open.await {
        Ok(opened) => opened,
        Err(why) => {
            let results = scenario
                .checks
                .iter()
                .map(|c| {
                    CheckResult::new(
                        &c.def,
                        Verdict::because(
                            Status::Error,
                            crate::record::Reason::NoSession {
                                text: why.to_string(),
                            },
                        ),
                        Vec::new(),
                    )
                })
                .collect();
            return (results, None);
        }
    };
    // A connection of the scenario's own is judged at the version it negotiated itself.
    let main_version = context.info.version.clone().unwrap_or_default();
    let version = if matches!(scenario.session, SessionKind::Fresh | SessionKind::Probe) {
        session
            .info()
            .version
            .unwrap_or_else(|| main_version.clone())
    } else {
        main_version.clone()
    };
    if version != main_version && !scenario.requires.versions.contains(&version) {
        let transcript = finish(context, scenario, session, lane).await;
        let why = Reason::Version {
            versions: scenario.requires.versions.to_string(),
            negotiated: version.clone(),
            main: Some(main_version.clone()),
        };
        let results = scenario
            .checks
            .iter()
            .map(|c| CheckResult::new(&c.def, Verdict::skip(why.clone()), Vec::new()))
            .collect();
        return (results, transcript);
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
        absent: scenario
            .steps
            .iter()
            .flat_map(|s| &s.capture)
            .map(|c| {
                let why = NotSent {
                    why: c.absent.clone(),
                    not_applicable: c.not_applicable,
                    unanswered: false,
                };
                (c.name.clone(), why)
            })
            .collect(),
    };
    // A connection that had closed before the scenario's first step says nothing about its
    // steps; one that closes during the scenario is what the scenario's own steps did.
    let gone_before = session.gone().await;
    for (n, step) in scenario.steps.iter().enumerate() {
        let Some(ready_on) = step.mode.background() else {
            step_of
                .run_and_record(n, step, &mut captures, &mut records)
                .await;
            continue;
        };
        // A background step on a connection that stopped answering is not sent either: it
        // would wait out its bound before the steps after it start.
        if let Some(why) = step_of.session.stuck() {
            step_of.record_unsent(n, step, &why, &mut captures, &mut records);
            continue;
        }
        let built = step_of.build(n, step, &captures);
        // A background step stays open while the steps after it run; they start once its
        // notification has arrived (or it has ended).
        let notify = Arc::new(tokio::sync::Notify::new());
        let background = async {
            let outcomes = step_of
                .send(step, built, Some((ready_on.to_string(), notify.clone())))
                .await;
            notify.notify_one();
            outcomes
        };
        let rest = async {
            notify.notified().await;
            let mut captures = captures.clone();
            let mut records = Vec::new();
            for (m, later) in scenario.steps.iter().enumerate().skip(n + 1) {
                step_of
                    .run_and_record(m, later, &mut captures, &mut records)
                    .await;
            }
            (captures, records)
        };
        let (outcomes, (later_captures, later_records)) =
            futures_util::future::join(background, rest).await;
        captures = later_captures;
        step_of.record(step, outcomes, &mut captures, &mut records);
        records.extend(later_records);
        break;
    }
    if let Some(gone) = gone_before {
        for record in &mut records {
            record.stopped = Some(Stopped::ClosedBefore(gone.to_string()));
        }
    }
    confirm_silence(&session, &mut records).await;
    let own_version = match scenario.session {
        SessionKind::Bare => session.info().version,
        SessionKind::Shared | SessionKind::Fresh | SessionKind::Probe => None,
    };
    let env = Env {
        version: &version,
        transport: context.target.kind(),
        captures: &captures,
        tools: context.tools.as_ref(),
        offered: &context.info.supported_versions,
        server: context.target.url(),
        capabilities: context.info.capabilities.as_ref(),
    };
    let mut results = Vec::new();
    for check in &scenario.checks {
        let verdict = if !check.def.versions.contains(&version) {
            Verdict::skip(Reason::Version {
                versions: check.def.versions.to_string(),
                negotiated: version.clone(),
                main: None,
            })
        } else {
            rules::evaluate(check, &records, &env)
        };
        // On a connection without mcpcheck's handshake, what the check turns on includes every
        // step before the ones it judges (its own initialize, say): the evidence, and a replay of
        // it, then reproduce it.
        let judged: Vec<&StepRecord> = if scenario.session == SessionKind::Bare {
            let last = records.iter().rposition(|r| check.steps.contains(&r.name));
            records[..last.map_or(0, |l| l + 1)].iter().collect()
        } else {
            check
                .steps
                .iter()
                .flat_map(|name| records.iter().filter(move |r| &r.name == name))
                .collect()
        };
        let evidence = judged
            .into_iter()
            .filter_map(|r| {
                r.outcome.as_ref().ok().map(|e| Evidence {
                    context: !check.steps.contains(&r.name),
                    ..Evidence::exchange(&r.name, e)
                })
            })
            .collect();
        let mut result = CheckResult::new(&check.def, verdict, evidence);
        result.bare_session = scenario.session == SessionKind::Bare;
        // A connection that negotiated a version of its own (a bare one's initialize) is judged
        // at that version, and says so.
        if let Some(own) = own_version.as_ref().filter(|v| **v != version) {
            result.version = Some(own.clone());
        }
        results.push(result);
    }
    let transcript = finish(context, scenario, session, lane).await;
    (results, transcript)
}

/// Done with a scenario's connection: the main one stays open, a lane's goes back for the
/// lane's next scenario (or is retired, if this one ended it), one of the scenario's own is
/// closed and its transcript returned.
async fn finish(
    context: &Context,
    scenario: &Scenario,
    session: Arc<Session>,
    lane: Option<LaneSlot>,
) -> Option<Transcript> {
    match (scenario.session, lane) {
        (SessionKind::Shared, _) => None,
        (_, Some(slot)) => {
            context.release_lane(slot, session, &scenario.id).await;
            None
        }
        _ => {
            session.close().await;
            Some(take_transcript(&session))
        }
    }
}

/// Silence is a verdict only on a server that still answers: a step that got nothing back
/// (no reply, or a request's timeout) holds as the server's doing only if the same connection
/// answered something after it: a later step, or else a barrier request sent now (none is
/// needed on a connection already known to have stopped answering). Otherwise
/// every such step is marked as the server having stopped answering, and the checks resting on
/// it are errors of the run, whatever the scenario and whatever its order in the run.
async fn confirm_silence(session: &Session, records: &mut [StepRecord]) {
    let answered = |r: &StepRecord| matches!(&r.outcome, Ok(e) if matches!(e.reply, Reply::Message { .. } | Reply::Rejected { .. }));
    let silent = |r: &StepRecord| {
        r.stopped.is_none()
            && matches!(&r.outcome, Ok(e) if matches!(e.reply, Reply::Nothing { .. }))
    };
    let unconfirmed: Vec<usize> = (0..records.len())
        .filter(|&i| silent(&records[i]) && !records[i + 1..].iter().any(answered))
        .collect();
    if unconfirmed.is_empty() {
        return;
    }
    // A connection already known to be silent needs no barrier to say so.
    let why = match session.stuck() {
        Some(why) => Some(why),
        None => session.answers().await,
    };
    if let Some(why) = why {
        for i in unconfirmed {
            records[i].stopped = Some(Stopped::Silent(why.to_string()));
        }
    }
}

/// What a scenario's steps share: the connection, the version and the run's context.
pub(super) struct StepRunner<'a> {
    context: &'a Context,
    session: &'a Session,
    version: &'a str,
    /// The base of the ids mcpcheck gives the scenario's requests.
    base: i64,
    /// Whether the scenario has a connection of its own (replies nobody claimed are its own).
    isolated: bool,
    /// What each capture's absence means about the server (the reason a step that needs it
    /// gives for not running).
    absent: HashMap<String, NotSent>,
}

impl StepRunner<'_> {
    /// What a query sees of the run, with these steps recorded.
    fn seen<'b>(&'b self, records: &'b [StepRecord]) -> Seen<'b> {
        Seen {
            records,
            version: self.version,
            transport: self.context.target.kind(),
            offered: &self.context.info.supported_versions,
            tools: self.context.tools.as_ref(),
        }
    }

    /// Runs step `n` and records what it did; on a connection the server has stopped
    /// answering ([`Session::stuck`]) the step is not sent (it would only wait out its bound),
    /// and the checks resting on it are errors of the run, unless it would not have been sent
    /// anyway (a capture it needs is absent): then they do not apply, as anywhere.
    pub(super) async fn run_and_record(
        &self,
        n: usize,
        step: &Step,
        captures: &mut HashMap<String, Value>,
        records: &mut Vec<StepRecord>,
    ) {
        let Some(why) = self.session.stuck() else {
            let outcomes = self.run_step(n, step, captures).await;
            self.record(step, outcomes, captures, records);
            return;
        };
        self.record_unsent(n, step, &why, captures, records);
    }

    /// Records step `n` as not sent on a connection that stopped answering (`why`), unless it
    /// would not have been sent anyway (a capture it needs is absent): then its checks do not
    /// apply, as anywhere.
    fn record_unsent(
        &self,
        n: usize,
        step: &Step,
        why: &str,
        captures: &mut HashMap<String, Value>,
        records: &mut Vec<StepRecord>,
    ) {
        // A step that would not be sent on an answering connection either (a capture it needs
        // is absent: the server lists no prompts, say) stays not applicable.
        if !matches!(step.send, StepSend::Fetch(_)) {
            let built = self.build(n, step, captures);
            let absent = !built.is_empty()
                && built.iter().all(|b| {
                    matches!(
                        b,
                        Err(NotSent {
                            not_applicable: true,
                            ..
                        })
                    )
                });
            if absent {
                let outcomes = built.into_iter().filter_map(Result::err).map(Err).collect();
                self.record(step, outcomes, captures, records);
                return;
            }
        }
        // Nothing went out: no exchange to show or replay, an error of the run to judge.
        let unsent = NotSent::from(format!("not sent: {why}"));
        self.record(step, vec![Err(unsent)], captures, records);
        if let Some(record) = records.last_mut() {
            record.stopped = Some(Stopped::NotSent(why.to_string()));
        }
    }

    /// Keeps what a step's exchanges captured (the first value of each capture's query) and
    /// records them for its checks.
    pub(super) fn record(
        &self,
        step: &Step,
        outcomes: Vec<Result<Exchange, NotSent>>,
        captures: &mut HashMap<String, Value>,
        records: &mut Vec<StepRecord>,
    ) {
        let is_request = matches!(step.send, StepSend::Request { .. });
        let fetch = matches!(step.send, StepSend::Fetch(_));
        // A `for_each` step's items, in the order its exchanges came (as `build` made them).
        let items: Vec<Value> = step
            .mode
            .each()
            .map(|each| each.items(captures.get(&each.capture)))
            .unwrap_or_default();
        let mut items = items.into_iter();
        // The pages of a list join their arrays into one capture.
        let mut joined: HashMap<String, Value> = HashMap::new();
        // Whether the step got what a capture reads: a result for one that reads the reply, any
        // HTTP answer for one that reads its status or headers, or that reads a fetched
        // document (a 404 says there is none), or that reads a stream mcpcheck itself cut
        // short (`drop_after_events`: no result was to come on it). A step that was not sent
        // answered nothing either way: its captures keep their own reasons, unless it was not
        // sent because a request before it got no result, which then holds for its captures too.
        let sent = outcomes.iter().any(Result::is_ok);
        let upstream = outcomes.iter().any(|o| {
            matches!(
                o,
                Err(NotSent {
                    unanswered: true,
                    ..
                })
            )
        });
        let answered = |capture: &crate::scenario::model::Capture| {
            let http_layer = fetch
                || step.drop_after_events.is_some()
                || matches!(
                    &capture.query,
                    Query::Step {
                        part: Part::Status | Part::Header(_) | Part::Challenge(_),
                        ..
                    }
                );
            outcomes.iter().any(|o| match o {
                Ok(exchange) if http_layer => exchange.http.is_some(),
                Ok(exchange) => {
                    step::reply_message(exchange).is_some_and(|m| m.get("result").is_some())
                }
                Err(_) => false,
            })
        };
        for capture in &step.capture {
            if upstream || (sent && !answered(capture)) {
                captures.insert(unanswered(&capture.name), Value::Bool(true));
            }
        }
        for outcome in outcomes {
            if let Ok(exchange) = &outcome {
                for capture in &step.capture {
                    let found = query::values(&capture.query, exchange, self.seen(records));
                    if let Some(value) = found.into_iter().next() {
                        let value = match (step.mode.pages() > 1, joined.get(&capture.name), &value)
                        {
                            (true, Some(Value::Array(earlier)), Value::Array(page)) => {
                                Value::Array(earlier.iter().chain(page).cloned().collect())
                            }
                            _ => value,
                        };
                        joined.insert(capture.name.clone(), value.clone());
                        captures.insert(capture.name.clone(), value);
                    }
                }
            }
            records.push(StepRecord {
                name: step.name.clone(),
                is_request,
                item: items.next(),
                outcome,
                stopped: None,
            });
        }
    }

    /// Why a step needing capture `name` that has nothing was not sent: the capture's own
    /// reason, which says the server has nothing of the kind (not applicable) only when the
    /// request that would have listed it got a result; one that failed says nothing about what
    /// the server has, and makes the step's checks a consequence of that request's
    /// (`unanswered`).
    fn absent_of(&self, name: &str, captures: &HashMap<String, Value>) -> Option<NotSent> {
        let absent = self.absent.get(name)?;
        if !captures.contains_key(&unanswered(name)) {
            return Some(absent.clone());
        }
        let why = if absent.not_applicable {
            format!(
                "the request that lists them got no result, so the one that needs capture.{name} was not sent"
            )
        } else {
            absent.why.clone()
        };
        Some(NotSent {
            why,
            not_applicable: false,
            unanswered: true,
        })
    }

    /// Runs step `n` (not a background one): builds and sends its frames, or fetches its
    /// document.
    async fn run_step(
        &self,
        n: usize,
        step: &Step,
        captures: &HashMap<String, Value>,
    ) -> Vec<Result<Exchange, NotSent>> {
        if let StepSend::Fetch(urls) = &step.send {
            // A `for_each` fetch: one document per item, one after another.
            return match self.items(step, captures) {
                Err(why) => vec![Err(why)],
                Ok(None) => vec![self.fetch(urls, step.timeout, captures, None).await],
                Ok(Some(items)) => {
                    let mut outcomes = Vec::new();
                    for item in &items {
                        outcomes.push(self.fetch(urls, step.timeout, captures, Some(item)).await);
                    }
                    outcomes
                }
            };
        }
        let built = self.build(n, step, captures);
        self.send(step, built, None).await
    }

    /// The items a `for_each` step is sent for (`None`: the step is sent once), or why it is not
    /// sent at all: an empty list is the capture's absence ("the server lists no prompts"), a
    /// list none of whose items qualify is the step's own `none`.
    fn items(
        &self,
        step: &Step,
        captures: &HashMap<String, Value>,
    ) -> Result<Option<Vec<Value>>, NotSent> {
        let Some(each) = step.mode.each() else {
            return Ok(None);
        };
        let captured = captures.get(&each.capture);
        let items = each.items(captured);
        if !items.is_empty() {
            return Ok(Some(items));
        }
        let empty = captured.is_none_or(|v| v.as_array().is_some_and(Vec::is_empty));
        Err(match (empty, self.absent_of(&each.capture, captures)) {
            (true, Some(absent)) => absent,
            (true, None) if captured.is_none() => NotSent::from(format!(
                "the run has no value for capture.{}, so the request was not sent",
                each.capture
            )),
            _ => NotSent {
                why: each.none.clone(),
                not_applicable: each.not_applicable,
                unanswered: false,
            },
        })
    }

    /// A fetch step: GETs each of its URLs in turn (those whose optional placeholders have no
    /// value left out) until one answers 2xx, with nothing but `Accept: application/json`: no
    /// session, no credentials, none of the user's headers; a redirect is followed, up to
    /// [`super::MAX_REDIRECTS`] hops; `each` is the item of a `for_each` fetch the URLs are made
    /// from (`{{each}}`). The step's
    /// exchange is that answer, or the last one tried; each of the others is kept as context in
    /// its `sent` (`GET URL → HTTP 404`). A JSON body of a 2xx answer is the reply the queries
    /// read (`/resource`); any other is a rejected one.
    async fn fetch(
        &self,
        urls: &[String],
        timeout: Option<Duration>,
        captures: &HashMap<String, Value>,
        each: Option<&Value>,
    ) -> Result<Exchange, NotSent> {
        let server = self.context.target.url();
        let fill = crate::scenario::template::Fill {
            version: self.version,
            token: Some(&self.context.token),
            captures: Some(captures),
            tools: self.context.tools.as_ref(),
            each,
            server,
            ..Default::default()
        };
        let lookup = |name: &str| fill.lookup(name);
        let mut candidates = Vec::new();
        let mut missing = None;
        for url in urls {
            match crate::scenario::template::expand_str(url, &lookup) {
                Ok(Value::String(url)) if !url.is_empty() => {
                    // (The same URL twice, as two templates may give, is fetched once.)
                    if !candidates.contains(&url) {
                        candidates.push(url);
                    }
                }
                Ok(_) => {}
                Err(name) if name.ends_with('?') => {}
                Err(name) => {
                    missing.get_or_insert(name);
                }
            }
        }
        if candidates.is_empty() {
            let name = missing.unwrap_or_default();
            if let Some(absent) = name
                .split('|')
                .next()
                .and_then(|n| n.strip_prefix("capture."))
                .and_then(|c| self.absent_of(c, captures))
            {
                return Err(absent);
            }
            return Err(NotSent::from(format!(
                "the run has no value for {name}, so there was no URL to fetch"
            )));
        }
        let limits = &self.context.limits;
        let wait = timeout.unwrap_or(limits.request_timeout);
        let mut tried: Vec<String> = Vec::new();
        let mut last = None;
        'candidates: for first in candidates {
            // A redirect is followed (a metadata URL often answers one: a trailing slash,
            // http to https), a few hops at most, each in the evidence.
            let mut url = first;
            for hop in 0..=super::MAX_REDIRECTS {
                let started = Instant::now();
                let request = crate::transport::http::HttpRequest {
                    method: "GET".into(),
                    url: url.clone(),
                    headers: vec![
                        (
                            "Host".into(),
                            crate::record::url::authority(&url).unwrap_or_default(),
                        ),
                        ("Accept".into(), "application/json".into()),
                    ],
                    body: Vec::new(),
                    stream_for: None,
                    drop_after_events: None,
                    reuse: None,
                };
                let answer = crate::transport::http::send_within(
                    &request,
                    limits.max_frame_bytes,
                    wait,
                    Duration::from_millis(500),
                )
                .await;
                let mut sent = tried.join("\n");
                if !sent.is_empty() {
                    sent.push('\n');
                }
                sent.push_str(&format!("GET {url}"));
                let exchange = document_exchange(sent, &request.headers, answer, started);
                let status = exchange.http.as_ref().map_or(0, |h| h.status);
                let next = exchange
                    .http
                    .as_ref()
                    .filter(|_| (300..400).contains(&status) && hop < super::MAX_REDIRECTS)
                    .and_then(|h| {
                        h.headers
                            .iter()
                            .find(|(n, _)| n.eq_ignore_ascii_case("location"))
                    })
                    .and_then(|(_, location)| crate::record::url::resolve(&url, location).ok());
                tried.push(match &next {
                    Some(next) => format!("GET {url} → HTTP {status} to {next}"),
                    None => format!(
                        "GET {url} → {}",
                        crate::record::exchange::describe(&exchange, true)
                    ),
                });
                last = Some(exchange);
                if (200..300).contains(&status) {
                    break 'candidates;
                }
                match next {
                    Some(next) => url = next,
                    None => break,
                }
            }
        }
        Ok(last.expect("at least one URL was fetched"))
    }

    /// Builds the frames of step `n`, its placeholders filled from the run and the captures.
    pub(super) fn build(&self, n: usize, step: &Step, captures: &HashMap<String, Value>) -> Built {
        // A step sent `concurrent` times at once is built once per copy (`{{copy}}` is 1, 2, …);
        // a `for_each` step once per item (`{{each/…}}`).
        let copies = step.mode.copies();
        let context = self.context;
        let items = match self.items(step, captures) {
            Ok(items) => items,
            Err(why) => return vec![Err(why)],
        };
        let repeated = copies > 1 || items.is_some();
        let build = |copy: usize,
                     each: Option<&Value>|
         -> Result<(Outgoing, Vec<(String, String)>), NotSent> {
            let fill = crate::scenario::template::Fill {
                version: self.version,
                token: Some(&context.token),
                bearer: bearer(&context.target),
                issued: Some(&context.issued),
                expired: context.expired_token.as_deref(),
                capabilities: context.info.capabilities.as_ref(),
                copy: Some(copy),
                probe: context.probe.as_ref(),
                captures: Some(captures),
                tools: context.tools.as_ref(),
                each,
                server: context.target.url(),
                ..Default::default()
            };
            let lookup = |name: &str| fill.lookup(name);
            // Why the request could not be sent, in terms of what the server did.
            let unresolved = |name: String| {
                let name = name.trim_end_matches('?');
                // A filtered capture (`capture.skill|dir`) is missing when the capture is; when
                // it is there, the filter found nothing in it (a URI without a folder).
                let (name, filter) = name.split_once('|').unwrap_or((name, ""));
                if let Some(capture) = name.strip_prefix("capture.") {
                    match (captures.get(capture), self.absent_of(capture, captures)) {
                        (None, Some(absent)) => return absent,
                        (Some(value), _) if !filter.is_empty() => {
                            return NotSent::from(format!(
                                "capture.{capture} ({value}) has no `{filter}` part, so the request was not sent"
                            ))
                        }
                        _ => {}
                    }
                }
                if name == "auth.expired" {
                    return NotSent {
                        why:
                            "no expired token was given (--expired-token-env VAR), so none was sent"
                                .to_string(),
                        not_applicable: true,
                        unanswered: false,
                    };
                }
                if let Some(issued) = name
                    .strip_prefix("auth.")
                    .filter(|n| crate::record::token::ISSUED.contains(n))
                {
                    let what = if issued == "shared-audience" {
                        "for this server and another resource at once"
                    } else {
                        "for another resource"
                    };
                    return match context.issued.get(issued) {
                        Some(Err(why)) => NotSent::from(format!(
                            "the authorization server issued no token {what} ({why}), so there is none to send"
                        )),
                        _ => NotSent {
                            why: format!("the run got no token of its own with client credentials (--auth client-credentials), so it has none {what}"),
                            not_applicable: true,
                            unanswered: false,
                        },
                    };
                }
                if name.starts_with("auth.") && bearer(&context.target).is_none() {
                    return NotSent {
                        why: "no bearer token was given (-H \"Authorization: Bearer …\"), so mcpcheck has none to make bad ones from".to_string(),
                        not_applicable: true,
                        unanswered: false,
                    };
                }
                NotSent::from(match name.split_once('.').map_or(name, |(root, _)| root) {
                    "probe" => "no listed tool has arguments to get wrong, so the request was not sent".to_string(),
                    "tool" => "the tool this request needs is not in the server's tools/list, so it was not sent".to_string(),
                    "auth" => "the bearer token given is not a JWT, so there is no signature to keep while altering its claims".to_string(),
                    _ => format!("the run has no value for {name}, so the request was not sent"),
                })
            };
            let expand = |v: &Option<Value>| -> Result<Option<Value>, NotSent> {
                v.as_ref()
                    .map(|v| crate::scenario::template::expand(v, &lookup))
                    .transpose()
                    .map_err(unresolved)
            };
            let text = |t: &str| -> Result<String, NotSent> {
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
                .collect::<Result<Vec<_>, NotSent>>()?;
            let outgoing = match &step.send {
                StepSend::Request { id, method, params } => {
                    let params = expand(params)?;
                    let id = match expand(id)? {
                        Some(id) => id,
                        None if repeated => {
                            json!(self.base + 500 + 16 * n as i64 + copy as i64)
                        }
                        None => json!(self.base + n as i64),
                    };
                    Ok(Outgoing::Request {
                        id,
                        method: text(method)?,
                        params,
                    })
                }
                StepSend::Notification { method, params } => {
                    let method = text(method)?;
                    expand(params).map(|params| Outgoing::Notification { method, params })
                }
                StepSend::Raw(raw) => text(raw).map(|text| Outgoing::Raw { text }),
                // A fetch sends no frame ([`StepRunner::fetch`]).
                StepSend::Fetch(_) => {
                    Err(NotSent::from("a fetch step sends no message".to_string()))
                }
            }?;
            Ok((outgoing, headers))
        };
        match &items {
            Some(items) => items
                .iter()
                .enumerate()
                .map(|(k, item)| build(k + 1, Some(item)))
                .collect(),
            None => (1..=copies).map(|copy| build(copy, None)).collect(),
        }
    }

    /// Sends a step's frames (its copies at once, with its `alongside` notification) and
    /// returns what came back for each.
    ///
    /// On a shared session the step first takes its slot on the connection
    /// ([`Session::step_slot`]). A request step that waited in vain while a reply no request
    /// could claim came in (a server that answers without the id) is sent once more, alone on
    /// the connection, where that reply can only be its own: which step met the first such
    /// reply depends on timing, the verdict must not.
    pub(super) async fn send(
        &self,
        step: &Step,
        built: Built,
        ready: Option<(String, Arc<tokio::sync::Notify>)>,
    ) -> Vec<Result<Exchange, NotSent>> {
        // Isolated sessions run one step at a time and claim every reply (all but a background
        // request's, which leaves them to the steps running meanwhile). A shared session's steps
        // are requests without a fixed id, none in the background (the loader sees to it).
        if self.isolated {
            return self.send_once(step, built, ready, true).await;
        }
        debug_assert!(ready.is_none(), "a background step on a shared session");
        let slot = self.session.step_slot().await;
        let outcomes = self
            .send_once(step, built.clone(), None, slot.alone())
            .await;
        let waited_in_vain = step.until_notified.is_none()
            && outcomes
                .iter()
                .any(|o| matches!(o, Ok(e) if matches!(e.reply, Reply::Nothing { .. })));
        if slot.alone() || !waited_in_vain || !self.session.strict() {
            return outcomes;
        }
        drop(slot);
        // Alone now: the link is strict.
        let _slot = self.session.step_slot().await;
        self.send_once(step, again(built), None, true).await
    }

    /// Sends a step's frames once; `claim` takes a reply no request claimed as the step's own.
    async fn send_once(
        &self,
        step: &Step,
        built: Built,
        ready: Option<(String, Arc<tokio::sync::Notify>)>,
        claim: bool,
    ) -> Vec<Result<Exchange, NotSent>> {
        let options = SendOptions {
            headers: step.headers.clone(),
            omit_headers: step.omit_headers.clone(),
            omit_meta: step.omit_meta.clone(),
            wait: step.wait,
            hold: step.hold,
            drop_after_events: step.drop_after_events,
            until_notified: step.until_notified.clone(),
            // A background request leaves replies nobody claimed to the steps running meanwhile.
            accept_unmatched: claim && ready.is_none(),
            ready,
            timeout: step.timeout,
            http_method: step.http_method.clone(),
        };
        match &step.mode {
            Mode::Poll(poll) => return vec![self.poll(poll, built, &options).await],
            Mode::Pages(_) => return self.paginate(step, built, &options).await,
            Mode::ForEach(_) => {
                // One item after another, as a client going down a list would.
                let mut outcomes = Vec::new();
                for built in built {
                    outcomes.push(match built {
                        Ok((outgoing, headers)) => {
                            let options = SendOptions {
                                headers,
                                ..options.clone()
                            };
                            Ok(self.session.send(outgoing, &options).await)
                        }
                        Err(why) => Err(why),
                    });
                }
                return outcomes;
            }
            // Once, as copies at once, or in the background: every frame at once, below.
            Mode::Once | Mode::Concurrent(_) | Mode::Background(_) => {}
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
    /// Sends a list request, then the page each `result.nextCursor` points to, up to the step's
    /// `pages` in all; stops at the last page, at an answer that is no result, or at a cursor
    /// already followed. Each page has an id of its own (`<id>.2`, `<id>.3`, …).
    pub(super) async fn paginate(
        &self,
        step: &Step,
        built: Built,
        options: &SendOptions,
    ) -> Vec<Result<Exchange, NotSent>> {
        let (first, headers) = match built.into_iter().next().expect("one copy") {
            Ok(built) => built,
            Err(why) => return vec![Err(why)],
        };
        let options = SendOptions {
            headers,
            ..options.clone()
        };
        let mut outcomes = Vec::new();
        let mut followed: Vec<Value> = Vec::new();
        let mut frame = first.clone();
        for page in 1..=step.mode.pages() {
            let exchange = self.session.send(frame.clone(), &options).await;
            let cursor = step::reply_message(&exchange)
                .and_then(|reply| reply.pointer("/result/nextCursor"))
                .filter(|c| c.is_string())
                .cloned();
            outcomes.push(Ok(exchange));
            let Some(cursor) = cursor.filter(|c| !followed.contains(c)) else {
                break;
            };
            followed.push(cursor.clone());
            let Outgoing::Request { id, method, params } = &first else {
                break;
            };
            let mut params = params.clone().unwrap_or_else(|| json!({}));
            if let Some(object) = params.as_object_mut() {
                object.insert("cursor".into(), cursor);
            }
            frame = Outgoing::Request {
                id: Value::from(format!("{id}.{}", page + 1)),
                method: method.clone(),
                params: Some(params),
            };
        }
        outcomes
    }

    /// Sends a polling step's request until its reply has one of the awaited values (or the
    /// step's time is up, or what came back is no reply at all); each poll has an id of its own
    /// (`<id>.2`, `<id>.3`, …) and waits what the server asked for in `result.pollIntervalMs`
    /// (at least 50 ms, at most 1 s). The last exchange is the step's; the others are in the
    /// transcript.
    pub(super) async fn poll(
        &self,
        poll: &crate::scenario::Poll,
        built: Built,
        options: &SendOptions,
    ) -> Result<Exchange, NotSent> {
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
            let Some(reply) = step::reply_message(&exchange) else {
                return Ok(exchange);
            };
            if query::holds(&poll.until, &exchange, self.seen(&[]), &|_| None) {
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

/// A step's frames to send once more, each request with an id of its own: a request id is never
/// used twice in a session. Only generated ids come here (a step with an id of its own runs on a
/// connection of its own, and is never sent again): numbers move up by a million, strings get
/// `-again`.
fn again(built: Built) -> Built {
    built
        .into_iter()
        .map(|frame| {
            frame.map(|(outgoing, headers)| {
                let outgoing = match outgoing {
                    Outgoing::Request { id, method, params } => Outgoing::Request {
                        id: match (id.as_i64(), id.as_str()) {
                            (Some(n), _) => json!(n + 1_000_000),
                            (_, Some(s)) => json!(format!("{s}-again")),
                            _ => id,
                        },
                        method,
                        params,
                    },
                    other => other,
                };
                (outgoing, headers)
            })
        })
        .collect()
}

/// The key under which the captures remember that the step that takes capture `name` got no
/// result (no capture name holds a NUL).
fn unanswered(name: &str) -> String {
    format!("\u{0}unanswered:{name}")
}

/// The exchange of one fetched document: a JSON body of a 2xx answer is the reply message; any
/// other body is a rejected one; no answer at all, a closed one.
fn document_exchange(
    sent: String,
    headers: &[(String, String)],
    answer: Result<crate::transport::http::HttpResponse, crate::transport::http::HttpError>,
    started: Instant,
) -> Exchange {
    let elapsed_ms = started.elapsed().as_millis() as u64;
    let (reply, http) = match answer {
        Err(error) => (
            Reply::Closed {
                detail: error.to_string(),
            },
            None,
        ),
        Ok(response) => {
            let json = serde_json::from_str::<Value>(&response.body)
                .ok()
                .filter(|_| (200..300).contains(&response.status));
            let reply = match json {
                Some(message) => Reply::Message {
                    message,
                    text: response.body.clone(),
                },
                None => Reply::Rejected {
                    status: response.status,
                    body: response.body.clone(),
                },
            };
            let http = crate::record::HttpFacts {
                status: response.status,
                headers: response.headers.clone(),
                ..Default::default()
            };
            (reply, Some(http))
        }
    };
    Exchange {
        sent,
        sent_headers: headers.to_vec(),
        reply,
        notifications: Vec::new(),
        server_requests: Vec::new(),
        http,
        elapsed_ms,
    }
}

/// The user's bearer token (`-H "Authorization: Bearer …"`), over HTTP, if one was given.
fn bearer(target: &crate::transport::Target) -> Option<&str> {
    match target {
        crate::transport::Target::Http(spec) => spec
            .headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("authorization"))
            .and_then(|(_, value)| crate::record::token::bearer_of(value)),
        crate::transport::Target::Stdio(_) => None,
    }
}
