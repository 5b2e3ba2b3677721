//! Resolving the parts of a scenario file: its steps, checks, rules, conditions and assertions,
//! each checked against the file (with its line and column) as it is turned into the model.

use std::collections::HashSet;
use std::time::Duration;

use toml::Spanned;

use super::super::model::{Compiled, ItemSchema};
use super::{
    is_kebab, query, Capture, CheckFile, Compile, ForEach, LoadError, Mode, Poll, Requires, Rule,
    RuleFile, ScenarioCheck, SessionKind, Source, Step, StepFile, StepSend,
};
use crate::record::verdict::{spec_url, CheckDef, Level, SpecRef, Status};
use crate::record::version;
use crate::record::{TransportKind, VersionRange};

pub(super) fn resolve_step(
    source: &Source,
    mut step: StepFile,
    session: SessionKind,
    transports: &[TransportKind],
) -> Result<Step, LoadError> {
    let name = step.name.get_ref().clone();
    one_way(source, &step)?;
    let http_method = http_method(source, &step, transports)?;
    let send = match fetch(source, &mut step, transports)? {
        Some(urls) => StepSend::Fetch(urls),
        None => what_it_sends(source, &mut step, http_method.is_some(), session)?,
    };
    let dressing = Dressing::of(source, &mut step, &send)?;
    let capture = captures(source, &mut step, &send, http_method.as_deref())?;
    // At most one of these is given (`one_way`).
    let mode = [
        concurrent(source, &mut step, &send)?,
        background(source, &mut step, &send, &dressing, session)?,
        poll(source, &mut step, &send)?,
        repeats(source, &mut step, &send, &dressing)?,
    ]
    .into_iter()
    .flatten()
    .next()
    .unwrap_or_default();
    Ok(Step {
        name,
        send,
        timeout: step.timeout_ms.map(Duration::from_millis),
        wait: step.wait_ms.map(Duration::from_millis),
        hold: step.hold_ms.map(Duration::from_millis),
        drop_after_events: dressing.drop_after_events,
        mode,
        until_notified: step.until_notified,
        alongside: dressing.alongside,
        headers: step.headers.0,
        omit_headers: step.omit_headers,
        omit_meta: step.omit_meta,
        capture,
        http_method,
    })
}

/// `capture`: each name with its query, and what it means about the server when the query finds
/// nothing (given as `absent`, or said of the request's answer).
fn captures(
    source: &Source,
    step: &mut StepFile,
    send: &StepSend,
    http_method: Option<&str>,
) -> Result<Vec<Capture>, LoadError> {
    let answer = match (send, http_method) {
        (StepSend::Request { method, .. }, _) => format!("the answer to {method}"),
        (StepSend::Notification { method, .. }, _) => format!("what came back for {method}"),
        (StepSend::Raw(_), Some(http)) => format!("the answer to the HTTP {http}"),
        (StepSend::Raw(_), None) => "what came back for the raw frame".to_string(),
        (StepSend::Fetch(_), _) => "the document fetched".to_string(),
    };
    let mut out = Vec::new();
    for (name, value) in std::mem::take(&mut step.capture) {
        let bad = |e: String| source.at(&step.name, format!("capture `{name}`: {e}"));
        let (text, absent, not_applicable) = match value {
            toml::Value::String(text) => (text, None, false),
            toml::Value::Table(mut table) => {
                let field = |table: &mut toml::Table, key: &str| match table.remove(key) {
                    Some(toml::Value::String(text)) => Ok(Some(text)),
                    None => Ok(None),
                    Some(_) => Err(format!("`{key}` is a string")),
                };
                let from = field(&mut table, "from").map_err(bad)?;
                let absent = field(&mut table, "absent").map_err(bad)?;
                let not_applicable = match table.remove("not_applicable") {
                    Some(toml::Value::Boolean(flag)) => flag,
                    None => false,
                    Some(_) => return Err(bad("`not_applicable` is true or false".into())),
                };
                if let Some(key) = table.keys().next() {
                    return Err(bad(format!(
                        "unknown key `{key}`; use `from`, `absent` and `not_applicable`"
                    )));
                }
                if not_applicable && absent.is_none() {
                    return Err(bad(
                        "`not_applicable` needs `absent`: the reason the checks do not apply"
                            .into(),
                    ));
                }
                (
                    from.ok_or_else(|| bad("`from` names the query".into()))?,
                    absent,
                    not_applicable,
                )
            }
            _ => {
                return Err(bad(
                    "a query, or `{ from = QUERY, absent = \"…\", not_applicable = true }`".into(),
                ))
            }
        };
        let query = query::parse_query(&text, None).map_err(|e| bad(e.to_string()))?;
        let absent = absent.unwrap_or_else(|| {
            format!("{answer} had nothing at {text}, so the request that needs it was not sent")
        });
        out.push(Capture {
            name,
            query,
            absent,
            not_applicable,
        });
    }
    Ok(out)
}

/// `http_method`: GET, DELETE or POST with no body, over the transport that has it.
fn http_method(
    source: &Source,
    step: &StepFile,
    transports: &[TransportKind],
) -> Result<Option<String>, LoadError> {
    Ok(match &step.http_method {
        None => None,
        Some(m) => match m.get_ref().as_str() {
            "GET" | "DELETE" | "POST" if transports == [TransportKind::Http] => Some(m.get_ref().clone()),
            // HTTP+SSE: a GET opens the SSE endpoint once more, as a probe.
            "GET" if transports == [TransportKind::LegacySse] => Some(m.get_ref().clone()),
            "GET" | "DELETE" | "POST" => {
                return Err(source.at(m, "`http_method` needs the scenario to require the http transport (`transport = \"http\"` in [requires]), or for GET the sse transport"))
            }
            other => return Err(source.at(m, format!("unknown http_method `{other}`; use `GET`, `DELETE` or `POST`"))),
        },
    })
}

/// `fetch`: the URLs of a document to GET, over HTTP only, as the step's one thing (no message,
/// and none of the ways of sending one: headers, an HTTP method, copies, polling, waits).
fn fetch(
    source: &Source,
    step: &mut StepFile,
    transports: &[TransportKind],
) -> Result<Option<Vec<String>>, LoadError> {
    let Some(fetch) = step.fetch.take() else {
        return Ok(None);
    };
    let name = step.name.get_ref().clone();
    let urls = match fetch.get_ref() {
        super::super::file::FetchFile::One(url) => vec![url.clone()],
        super::super::file::FetchFile::Many(urls) => urls.clone(),
    };
    if urls.is_empty() || urls.len() > 8 {
        return Err(source.at(
            &fetch,
            "`fetch` is a URL or a list of 1 to 8 URLs".to_string(),
        ));
    }
    if transports.is_empty() || transports.contains(&TransportKind::Stdio) {
        return Err(source.at(
            &fetch,
            "`fetch` needs the scenario to require an HTTP transport (`transport = \"http\"` in [requires])",
        ));
    }
    let others = [
        ("request", step.request.is_some()),
        ("notification", step.notification.is_some()),
        ("raw", step.raw.is_some()),
        ("id", step.id.is_some()),
        ("http_method", step.http_method.is_some()),
        ("headers", !step.headers.0.is_empty()),
        ("omit_headers", !step.omit_headers.is_empty()),
        ("omit_meta", !step.omit_meta.is_empty()),
        ("wait_ms", step.wait_ms.is_some()),
        ("hold_ms", step.hold_ms.is_some()),
        ("drop_after_events", step.drop_after_events.is_some()),
        ("until_notified", step.until_notified.is_some()),
        ("background", step.background.is_some()),
        ("alongside", step.alongside.is_some()),
        ("concurrent", step.concurrent.is_some()),
        ("pages", step.pages.is_some()),
        ("poll", step.poll.is_some()),
    ];
    if let Some((key, _)) = others.iter().find(|(_, given)| *given) {
        return Err(source.at(
            &fetch,
            format!("step `{name}`: `fetch` GETs a document (once per item with `for_each`) and sends nothing else; `{key}` does not go with it"),
        ));
    }
    for url in &urls {
        let bare = url.replace(['{', '}'], "");
        if !(bare.starts_with("http://") || bare.starts_with("https://") || url.starts_with("{{")) {
            return Err(source.at(
                &fetch,
                format!("`fetch`: `{url}` is not an http or https URL (or a placeholder that gives one, such as `{{{{server.origin}}}}/…`)"),
            ));
        }
    }
    Ok(Some(urls))
}

/// What the step sends: exactly one of a request, a notification and raw bytes (or nothing, for
/// a bodiless HTTP method), and whether that needs a connection of its own.
fn what_it_sends(
    source: &Source,
    step: &mut StepFile,
    bodiless: bool,
    session: SessionKind,
) -> Result<StepSend, LoadError> {
    let name = step.name.get_ref().clone();
    let send = match (
        step.request.take(),
        step.notification.take(),
        step.raw.take(),
    ) {
        (None, None, None) if bodiless => StepSend::Raw(String::new()),
        (Some(m), None, None) => StepSend::Request {
            id: step.id.clone(),
            method: m.method,
            params: m.params,
        },
        (None, Some(m), None) => StepSend::Notification {
            method: m.method,
            params: m.params,
        },
        (None, None, Some(raw)) => StepSend::Raw(raw),
        _ => {
            return Err(source.at(
                &step.name,
                format!(
                    "step `{name}` must have exactly one of `request`, `notification` or `raw`"
                ),
            ))
        }
    };
    if step.id.is_some() && !matches!(send, StepSend::Request { .. }) {
        return Err(source.at(
            &step.name,
            format!("step `{name}`: `id` goes with `request` only"),
        ));
    }
    let needs_own = !matches!(send, StepSend::Request { id: None, .. });
    if needs_own && session == SessionKind::Shared {
        return Err(source.at(
            &step.name,
            format!("step `{name}` sends a notification, a raw frame or a fixed id, which needs a connection of its own: set `session = \"fresh\"` or `\"bare\"`"),
        ));
    }
    Ok(send)
}

/// A step is sent one way: once, or with exactly one of these keys.
const WAYS: [&str; 5] = ["concurrent", "pages", "for_each", "poll", "background"];

/// Refuses a step that names two ways of sending ([`WAYS`]).
fn one_way(source: &Source, step: &StepFile) -> Result<(), LoadError> {
    let given = [
        step.concurrent.is_some(),
        step.pages.is_some(),
        step.for_each.is_some(),
        step.poll.is_some(),
        step.background.is_some(),
    ];
    let named: Vec<&str> = WAYS
        .iter()
        .zip(given)
        .filter(|(_, given)| *given)
        .map(|(way, _)| *way)
        .collect();
    if let [first, second, ..] = named[..] {
        let name = step.name.get_ref();
        return Err(source.at(
            &step.name,
            format!("step `{name}`: `{first}` and `{second}` do not go together: a step is sent one way (once, or with one of `{}`)", WAYS.join("`, `")),
        ));
    }
    Ok(())
}

/// What a request is sent with besides its message: a notification alongside, or a stream
/// dropped after some events.
struct Dressing {
    alongside: Option<(String, Option<serde_json::Value>, Duration)>,
    drop_after_events: Option<usize>,
}

impl Dressing {
    fn of(source: &Source, step: &mut StepFile, send: &StepSend) -> Result<Dressing, LoadError> {
        let name = step.name.get_ref().clone();
        let alongside = match step.alongside.take() {
            None => None,
            Some(a) if matches!(send, StepSend::Request { .. }) && step.concurrent.is_none() => {
                let a = a.into_inner();
                Some((a.method, a.params, Duration::from_millis(a.after_ms)))
            }
            Some(a) => {
                return Err(source.at(
                    &a,
                    format!(
                        "step `{name}`: `alongside` goes with a single `request` (not `concurrent`)"
                    ),
                ))
            }
        };
        if step.until_notified.is_some() && !matches!(send, StepSend::Request { .. }) {
            return Err(source.at(
                &step.name,
                format!("step `{name}`: `until_notified` goes with a `request`"),
            ));
        }
        let drop_after_events = match &step.drop_after_events {
            None => None,
            Some(n) if *n.get_ref() == 0 => {
                return Err(source.at(n, "`drop_after_events` is 1 or more events".to_string()))
            }
            Some(n) if !matches!(send, StepSend::Request { .. }) || step.concurrent.is_some() => {
                return Err(source.at(
                    n,
                    format!("step `{name}`: `drop_after_events` goes with a single `request`"),
                ))
            }
            Some(n) => Some(*n.get_ref()),
        };
        Ok(Dressing {
            alongside,
            drop_after_events,
        })
    }
}

/// `concurrent`: copies of a request without a fixed id, sent at once.
fn concurrent(
    source: &Source,
    step: &mut StepFile,
    send: &StepSend,
) -> Result<Option<Mode>, LoadError> {
    let name = step.name.get_ref().clone();
    Ok(match step.concurrent.take() {
        None => None,
        Some(n) if !(2..=16).contains(n.get_ref()) => {
            return Err(source.at(&n, "`concurrent` is 2 to 16 copies".to_string()))
        }
        Some(n) if !matches!(send, StepSend::Request { id: None, .. }) => {
            return Err(source.at(
                &n,
                format!("step `{name}`: `concurrent` goes with a `request` without a fixed `id`"),
            ))
        }
        Some(n) => Some(Mode::Concurrent(n.into_inner())),
    })
}

/// `background`: a request left open while the steps after it run, on a connection of the
/// scenario's own.
fn background(
    source: &Source,
    step: &mut StepFile,
    send: &StepSend,
    dressing: &Dressing,
    session: SessionKind,
) -> Result<Option<Mode>, LoadError> {
    let name = step.name.get_ref().clone();
    Ok(match step.background.take() {
        None => None,
        Some(b)
            if matches!(send, StepSend::Request { .. })
                && dressing.alongside.is_none()
                && matches!(session, SessionKind::Fresh | SessionKind::Bare) =>
        {
            Some(Mode::Background(b.into_inner().once_notified))
        }
        Some(b) => {
            return Err(source.at(
                &b,
                format!("step `{name}`: `background` goes with a single `request` (no `alongside`) on a connection of its own (`session = \"fresh\"` or `\"bare\"`)"),
            ))
        }
    })
}

/// `for_each` and `pages`: a request sent once per item of a captured array, or once per page of
/// a list. Either goes with a request of the scenario's own making (no fixed id, no
/// `alongside`); `for_each` goes with a fetch too (its URLs made from each item in turn).
fn repeats(
    source: &Source,
    step: &mut StepFile,
    send: &StepSend,
    dressing: &Dressing,
) -> Result<Option<Mode>, LoadError> {
    let name = step.name.get_ref().clone();
    let fetch = matches!(send, StepSend::Fetch(_));
    let single = matches!(send, StepSend::Request { id: None, .. }) && dressing.alongside.is_none();
    let alone = format!("step `{name}`: `for_each` and `pages` go with a single `request` without a fixed `id` (and no `alongside`); `for_each` goes with a `fetch` too");
    match step.pages.take() {
        None => {}
        Some(p) if !single => return Err(source.at(&p, alone)),
        Some(p) if !(2..=16).contains(p.get_ref()) => {
            return Err(source.at(&p, "`pages` is 2 to 16 pages".to_string()))
        }
        Some(p) => return Ok(Some(Mode::Pages(p.into_inner()))),
    };
    let each = match step.for_each.take() {
        None => None,
        Some(f) if !single && !fetch => return Err(source.at(&f, alone)),
        Some(f) => {
            let span = f.span();
            let f = f.into_inner();
            let max = f.max.unwrap_or(16);
            if !(1..=16).contains(&max) {
                return Err(source.error(Some(span), "`for_each.max` is 1 to 16 items".to_string()));
            }
            let matching = match &f.matching {
                None => None,
                Some(schema) => {
                    let matching = Compiled::<ItemSchema>::new(schema.clone());
                    if source.compile == Compile::Now {
                        matching.compiled().map_err(|e| {
                            source.error(
                                Some(span.clone()),
                                format!("`for_each.matching` is no valid JSON Schema: {e}"),
                            )
                        })?;
                    }
                    Some(std::sync::Arc::new(matching))
                }
            };
            if f.none.trim().is_empty() {
                return Err(source.error(
                    Some(span),
                    "`for_each.none` says what it means about the server when no item qualifies"
                        .to_string(),
                ));
            }
            Some(ForEach {
                capture: f.capture,
                max,
                matching,
                none: f.none,
                not_applicable: f.not_applicable,
            })
        }
    };
    Ok(each.map(Mode::ForEach))
}

/// `poll`: sending a request again until its reply meets a condition.
fn poll(source: &Source, step: &mut StepFile, send: &StepSend) -> Result<Option<Mode>, LoadError> {
    let name = step.name.get_ref().clone();
    Ok(match step.poll.take() {
        None => None,
        Some(p)
            if matches!(send, StepSend::Request { id: None, .. })
                && step.until_notified.is_none() =>
        {
            let p = p.into_inner();
            let span = p.until.span();
            if p.until.get_ref().is_empty() {
                return Err(source.error(
                    Some(span),
                    format!("step `{name}`: `poll` needs a condition in `until`: the reply that ends it"),
                ));
            }
            let until_text = p
                .until
                .get_ref()
                .iter()
                .map(|(query, pred)| format!("{query} = {pred}"))
                .collect::<Vec<_>>()
                .join(", ");
            Some(Mode::Poll(Poll {
                until: query::resolve_cond(source, span, p.until.into_inner(), None)?,
                until_text,
                within: Duration::from_millis(p.within_ms.unwrap_or(10_000)),
            }))
        }
        Some(p) => {
            return Err(source.at(
                &p,
                format!("step `{name}`: `poll` goes with a single `request` without a fixed `id` (not `until_notified`)"),
            ))
        }
    })
}

/// The rule lists a file shares among its checks (`[rules]`), by name.
pub(super) type SharedRules = std::collections::BTreeMap<Spanned<String>, Vec<Spanned<RuleFile>>>;

pub(super) fn resolve_check(
    source: &Source,
    check: CheckFile,
    area: &str,
    steps: &HashSet<String>,
    requires: &Requires,
    shared: (&SharedRules, &mut HashSet<String>),
) -> Result<ScenarioCheck, LoadError> {
    let id = check.id.get_ref().clone();
    if !is_kebab(&id) {
        return Err(source.at(
            &check.id,
            "a check id must be kebab-case (lowercase letters, digits and `-`)",
        ));
    }
    let level = match check.level.get_ref().as_str() {
        "MUST" => Level::Must,
        "SHOULD" => Level::Should,
        "MAY" => Level::May,
        other => {
            return Err(source.at(
                &check.level,
                format!("unknown level `{other}`; use `MUST`, `SHOULD` or `MAY`"),
            ))
        }
    };
    let mut spec = Vec::new();
    for s in &check.spec {
        let version = s.version.get_ref();
        // An RFC the requirement comes from is cited as `rfcNNNN` (its section as the anchor).
        let rfc = version
            .strip_prefix("rfc")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if version != "jsonrpc-2.0" && !rfc && !version::known(version) {
            return Err(source.at(
                &s.version,
                format!(
                    "unknown spec version `{version}`; use a protocol version, `jsonrpc-2.0` or an RFC (`rfc6750`)"
                ),
            ));
        }
        spec.push(SpecRef {
            version: version.clone(),
            section: s.section.clone(),
            url: s
                .url
                .clone()
                .unwrap_or_else(|| spec_url(version, &s.section)),
        });
    }
    if spec.is_empty() {
        return Err(source.at(
            &check.id,
            "a check must cite the spec: add at least one `spec` entry",
        ));
    }
    let mut judged = Vec::new();
    for step in check.step.iter().chain(&check.steps) {
        if !steps.contains(step.get_ref()) {
            return Err(source.at(step, format!("no step is named `{}`", step.get_ref())));
        }
        judged.push(step.get_ref().clone());
    }
    if judged.is_empty() {
        return Err(source.at(
            &check.id,
            "a check must name the `step` (or `steps`) it judges",
        ));
    }
    let versions = match &check.versions {
        Some(v) => VersionRange::parse(v.get_ref()).map_err(|e| source.at(v, e))?,
        None => requires.versions.clone(),
    };
    let (shared, used) = shared;
    let mut rules = Vec::new();
    for rule in check.rules {
        let Some(name) = &rule.get_ref().shared else {
            rules.push(resolve_rule(source, rule, level, steps)?);
            continue;
        };
        let parts = rule.get_ref();
        if parts.when.is_some()
            || parts.verdict.is_some()
            || parts.message.is_some()
            || parts.note.is_some()
        {
            return Err(source.at(
                name,
                "`use` takes in a shared rule list: it stands alone in its rule (no `when`, `verdict`, `message` or `note`)",
            ));
        }
        let Some(list) = shared.get(name.get_ref().as_str()) else {
            let known: Vec<&str> = shared.keys().map(|n| n.get_ref().as_str()).collect();
            return Err(source.at(
                name,
                format!(
                    "no shared rules are named `{}`; the file's [rules] has: {}",
                    name.get_ref(),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        };
        used.insert(name.get_ref().clone());
        for rule in list {
            if let Some(nested) = &rule.get_ref().shared {
                return Err(source.at(nested, "a shared rule list cannot take in another"));
            }
            rules.push(resolve_rule(source, rule.clone(), level, steps)?);
        }
    }
    let otherwise = match &check.otherwise {
        Some(v) => verdict(source, v, level)?,
        None => level.violation(),
    };
    let line = source.line(check.id.span().start);
    Ok(ScenarioCheck {
        def: CheckDef {
            id,
            title: check.title,
            area: area.to_string(),
            level,
            derived: check.derived,
            spec,
            expect: check.expect,
            versions,
            transports: requires.transports.clone(),
            source: format!("{}:{line}", source.path),
            explain: check.explain,
            since: check.since.map(|s| s.into_inner()),
        },
        steps: judged,
        rules,
        otherwise,
    })
}

pub(super) fn verdict(
    source: &Source,
    v: &Spanned<String>,
    level: Level,
) -> Result<Status, LoadError> {
    Ok(match v.get_ref().as_str() {
        "pass" => Status::Pass,
        "fail" => Status::Fail,
        "warn" => Status::Warn,
        "info" => Status::Info,
        "skip" => Status::Skip,
        "not-testable" => Status::NotTestable,
        "violation" => level.violation(),
        other => {
            return Err(source.at(v, format!("unknown verdict `{other}`; use `pass`, `fail`, `warn`, `info`, `skip`, `not-testable` or `violation`")))
        }
    })
}

pub(super) fn resolve_rule(
    source: &Source,
    rule: Spanned<RuleFile>,
    level: Level,
    steps: &HashSet<String>,
) -> Result<Rule, LoadError> {
    let span = rule.span();
    let rule = rule.into_inner();
    let (when, verdict_given) = match (rule.when, rule.verdict) {
        (Some(when), Some(verdict)) => (when, verdict),
        (Some(when), None) => return Err(source.at(&when, "this rule has no `verdict`")),
        (None, Some(verdict)) => {
            return Err(source.at(&verdict, "this rule has no `when` (`{}` holds always)"))
        }
        (None, None) => {
            return Err(source.error(
                Some(span),
                "a rule needs `when` and `verdict` (or `use` naming shared rules, alone)",
            ))
        }
    };
    let status = verdict(source, &verdict_given, level)?;
    let span = when.span();
    let when = query::resolve_cond(source, span, when.into_inner(), Some(steps))?;
    Ok(Rule {
        when,
        verdict: status,
        message: rule.message,
        note: rule.note,
    })
}
