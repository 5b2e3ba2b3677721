//! Reading scenario files: TOML parsing, validation, and errors that point at file:line:column.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use toml::Spanned;

use super::file::{AssertFile, CheckFile, CondFile, RuleFile, ScenarioFile, StepFile};
use super::model::{
    Assert, Cond, JsonType, Poll, Prior, ReplyKind, Requires, Rule, Scenario, ScenarioCheck,
    SessionKind, Step, StepSend, Test,
};
use super::template;
use crate::record::verdict::{spec_url, CheckDef, Level, SpecRef, Status};
use crate::record::version::KNOWN_VERSIONS;
use crate::record::TransportKind;
use crate::record::{Era, VersionRange};

/// The fixture profiles a scenario may require (`requires.profile`) and `--profile` selects.
pub const FIXTURE_PROFILES: &[&str] = &["everything"];

/// A problem in a scenario file, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The offending line with a caret under the column.
    pub snippet: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.line, self.column, self.message
        )?;
        if !self.snippet.is_empty() {
            write!(f, "\n{}", self.snippet)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

struct Source<'a> {
    path: &'a str,
    text: &'a str,
}

impl Source<'_> {
    fn error(&self, span: Option<Range<usize>>, message: impl Into<String>) -> LoadError {
        let offset = span.map_or(0, |s| s.start).min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[line_start..offset].chars().count() + 1;
        let line_text = self.text[line_start..].lines().next().unwrap_or("");
        let gutter = " ".repeat(line.to_string().len());
        let snippet = format!(
            "{gutter} |\n{line} | {line_text}\n{gutter} | {}^",
            " ".repeat(column - 1)
        );
        LoadError {
            path: self.path.to_string(),
            line,
            column,
            message: message.into(),
            snippet,
        }
    }

    fn at<T>(&self, spanned: &Spanned<T>, message: impl Into<String>) -> LoadError {
        self.error(Some(spanned.span()), message)
    }
}

/// Parses and validates one scenario file.
pub fn parse(path: &str, text: &str) -> Result<Scenario, LoadError> {
    let source = Source { path, text };
    let file: ScenarioFile = toml::from_str(text)
        .map_err(|e| source.error(e.span(), e.message().trim_end().to_string()))?;
    let scenario = resolve(&source, file)?;
    check_placeholders(&source, &scenario)?;
    Ok(scenario)
}

/// Every `{{…}}` in the file names something a run can fill: a placeholder that names nothing
/// (a typo, a capture no step makes) is an error here, at its line and column, instead of a
/// message that shows it unfilled at run time.
fn check_placeholders(source: &Source, scenario: &Scenario) -> Result<(), LoadError> {
    let captured: Vec<&str> = scenario
        .steps
        .iter()
        .flat_map(|s| s.capture.iter().map(|(name, _)| name.as_str()))
        .collect();
    let mut from = 0;
    while let Some(start) = source.text[from..].find("{{").map(|i| from + i) {
        let Some(end) = source.text[start..].find("}}").map(|i| start + i) else {
            return Err(source.error(Some(start..start), "`{{` is not closed by `}}`"));
        };
        let name = source.text[start + 2..end].trim();
        let name = name.strip_suffix('?').unwrap_or(name);
        if let Some(why) = template::unknown(name, &captured) {
            return Err(source.error(Some(start..end), why));
        }
        from = end + 2;
    }
    Ok(())
}

fn resolve(source: &Source, file: ScenarioFile) -> Result<Scenario, LoadError> {
    let id = file.id.get_ref().clone();
    if !is_kebab(&id) {
        return Err(source.at(
            &file.id,
            "a scenario id must be kebab-case (lowercase letters, digits and `-`)",
        ));
    }
    let session = match file.session.as_ref().map(|s| s.get_ref().as_str()) {
        None | Some("shared") => SessionKind::Shared,
        Some("fresh") => SessionKind::Fresh,
        Some("bare") => SessionKind::Bare,
        Some(other) => {
            return Err(source.at(
                file.session.as_ref().expect("some"),
                format!("unknown session `{other}`; use `shared`, `fresh` or `bare`"),
            ))
        }
    };
    let requires = Requires {
        capabilities: file.requires.capabilities.clone(),
        undeclared: file.requires.undeclared.clone(),
        tools: file.requires.tools.clone(),
        prompts: file.requires.prompts.clone(),
        resources: file.requires.resources.clone(),
        versions: match &file.requires.versions {
            Some(v) => VersionRange::parse(v.get_ref()).map_err(|e| source.at(v, e))?,
            None => VersionRange::default(),
        },
        transports: match &file.requires.transport {
            None => Vec::new(),
            Some(t) => transports(source, t)?,
        },
        era: match &file.requires.era {
            None => None,
            Some(e) => Some(match e.get_ref().as_str() {
                "handshake" => Era::Handshake,
                "stateless" => Era::Stateless,
                other => {
                    return Err(source.at(
                        e,
                        format!("unknown era `{other}`; use `handshake` or `stateless`"),
                    ))
                }
            }),
        },
        profile: match &file.requires.profile {
            None => None,
            Some(p) if FIXTURE_PROFILES.contains(&p.get_ref().as_str()) => {
                Some(p.get_ref().clone())
            }
            Some(p) => {
                return Err(source.at(
                    p,
                    format!(
                        "unknown fixture profile `{}`; use {}",
                        p.get_ref(),
                        FIXTURE_PROFILES.join(", ")
                    ),
                ))
            }
        },
        call_tools: file.requires.call_tools,
    };
    let mut steps = Vec::new();
    let mut names = HashSet::new();
    let mut background = false;
    for step in file.steps {
        if let Some(b) = &step.background {
            if std::mem::replace(&mut background, true) {
                return Err(source.at(b, "a scenario has at most one `background` step"));
            }
        }
        let resolved = resolve_step(source, step, session, &requires.transports)?;
        names.insert(resolved.name.clone());
        steps.push(resolved);
    }
    let mut checks = Vec::new();
    for check in file.checks {
        checks.push(resolve_check(source, check, &file.area, &names, &requires)?);
    }
    if checks.is_empty() {
        return Err(source.at(&file.id, "a scenario needs at least one [[check]]"));
    }
    Ok(Scenario {
        id,
        area: file.area,
        title: file.title,
        source: source.path.to_string(),
        session,
        requires,
        steps,
        checks,
    })
}

fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
}

fn transport(source: &Source, t: &Spanned<String>) -> Result<TransportKind, LoadError> {
    match t.get_ref().as_str() {
        "stdio" => Ok(TransportKind::Stdio),
        "http" => Ok(TransportKind::Http),
        "sse" => Ok(TransportKind::Sse),
        other => Err(source.at(
            t,
            format!("unknown transport `{other}`; use `stdio`, `http` or `sse`"),
        )),
    }
}

/// The transports of `[requires]`: one name, or a list of names.
fn transports(source: &Source, t: &Spanned<toml::Value>) -> Result<Vec<TransportKind>, LoadError> {
    let names: Vec<&toml::Value> = match t.get_ref() {
        toml::Value::Array(names) if !names.is_empty() => names.iter().collect(),
        toml::Value::Array(_) => {
            return Err(source.at(
                t,
                "`transport` lists no transport; leave it out to run over every transport",
            ))
        }
        one => vec![one],
    };
    let mut out = Vec::new();
    for name in names {
        let kind = match name.as_str() {
            Some("stdio") => TransportKind::Stdio,
            Some("http") => TransportKind::Http,
            Some("sse") => TransportKind::Sse,
            Some(other) => {
                return Err(source.at(
                    t,
                    format!("unknown transport `{other}`; use `stdio`, `http` or `sse`"),
                ))
            }
            None => return Err(source.at(
                t,
                "`transport` is a transport's name (`stdio`, `http` or `sse`) or a list of them",
            )),
        };
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    Ok(out)
}

fn resolve_step(
    source: &Source,
    step: StepFile,
    session: SessionKind,
    transports: &[TransportKind],
) -> Result<Step, LoadError> {
    let name = step.name.get_ref().clone();
    let http_method = match &step.http_method {
        None => None,
        Some(m) => match m.get_ref().as_str() {
            "GET" | "DELETE" | "POST" if transports == [TransportKind::Http] => Some(m.get_ref().clone()),
            // HTTP+SSE: a GET opens the SSE endpoint once more, as a probe.
            "GET" if transports == [TransportKind::Sse] => Some(m.get_ref().clone()),
            "GET" | "DELETE" | "POST" => {
                return Err(source.at(m, "`http_method` needs the scenario to require the http transport (`transport = \"http\"` in [requires]), or for GET the sse transport"))
            }
            other => return Err(source.at(m, format!("unknown http_method `{other}`; use `GET`, `DELETE` or `POST`"))),
        },
    };
    let send = match (step.request, step.notification, step.raw) {
        (None, None, None) if http_method.is_some() => StepSend::Raw(String::new()),
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
    let alongside = match step.alongside {
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
    let background = match step.background {
        None => None,
        Some(b)
            if matches!(send, StepSend::Request { .. })
                && step.concurrent.is_none()
                && alongside.is_none()
                && session != SessionKind::Shared =>
        {
            Some(b.into_inner().once_notified)
        }
        Some(b) => {
            return Err(source.at(
                &b,
                format!("step `{name}`: `background` goes with a single `request` (not `concurrent`, no `alongside`) on a connection of its own (`session = \"fresh\"` or `\"bare\"`)"),
            ))
        }
    };
    if step.until_notified.is_some() && !matches!(send, StepSend::Request { .. }) {
        return Err(source.at(
            &step.name,
            format!("step `{name}`: `until_notified` goes with a `request`"),
        ));
    }
    let concurrent = match &step.concurrent {
        None => 1,
        Some(n) if !(2..=16).contains(n.get_ref()) => {
            return Err(source.at(n, "`concurrent` is 2 to 16 copies".to_string()))
        }
        Some(n) if !matches!(send, StepSend::Request { id: None, .. }) => {
            return Err(source.at(
                n,
                format!("step `{name}`: `concurrent` goes with a `request` without a fixed `id`"),
            ))
        }
        Some(n) => *n.get_ref(),
    };
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
    let poll = match step.poll {
        None => None,
        Some(p)
            if matches!(send, StepSend::Request { id: None, .. })
                && step.concurrent.is_none()
                && background.is_none()
                && step.until_notified.is_none() =>
        {
            let span = p.span();
            let p = p.into_inner();
            if !p.at.starts_with('/') || p.until.is_empty() {
                return Err(source.error(
                    Some(span),
                    format!("step `{name}`: `poll` needs `at` (a JSON pointer) and at least one value in `until`"),
                ));
            }
            Some(Poll {
                at: p.at,
                until: p.until,
                within: Duration::from_millis(p.within_ms.unwrap_or(10_000)),
            })
        }
        Some(p) => {
            return Err(source.at(
                &p,
                format!("step `{name}`: `poll` goes with a single `request` without a fixed `id` (not `concurrent`, `background` or `until_notified`)"),
            ))
        }
    };
    for (capture, pointer) in &step.capture.0 {
        if !(pointer.is_empty() || pointer.starts_with('/') || pointer.starts_with("@event_id/")) {
            return Err(source.at(&step.name, format!("capture `{capture}`: `{pointer}` is not a JSON pointer (it must start with `/`)")));
        }
    }
    Ok(Step {
        name,
        send,
        timeout: step.timeout_ms.map(Duration::from_millis),
        wait: step.wait_ms.map(Duration::from_millis),
        hold: step.hold_ms.map(Duration::from_millis),
        drop_after_events,
        concurrent,
        until_notified: step.until_notified,
        background,
        alongside,
        poll,
        headers: step.headers.0,
        omit_headers: step.omit_headers,
        omit_meta: step.omit_meta,
        capture: step.capture.0,
        http_method,
    })
}

fn resolve_check(
    source: &Source,
    check: CheckFile,
    area: &str,
    steps: &HashSet<String>,
    requires: &Requires,
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
        if version != "jsonrpc-2.0" && !KNOWN_VERSIONS.contains(&version.as_str()) {
            return Err(source.at(
                &s.version,
                format!(
                    "unknown spec version `{version}`; use a protocol version or `jsonrpc-2.0`"
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
    let mut rules = Vec::new();
    for rule in check.rules {
        rules.push(resolve_rule(source, rule, level, steps)?);
    }
    let otherwise = match &check.otherwise {
        Some(v) => verdict(source, v, level)?,
        None => level.violation(),
    };
    let line = source.error(Some(check.id.span()), "").line;
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
        },
        steps: judged,
        rules,
        otherwise,
    })
}

fn verdict(source: &Source, v: &Spanned<String>, level: Level) -> Result<Status, LoadError> {
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

fn resolve_rule(
    source: &Source,
    rule: RuleFile,
    level: Level,
    steps: &HashSet<String>,
) -> Result<Rule, LoadError> {
    let status = verdict(source, &rule.verdict, level)?;
    let when = resolve_cond(source, rule.when, steps)?;
    Ok(Rule {
        when,
        verdict: status,
        message: rule.message,
        note: rule.note,
    })
}

/// Reply kinds joined with `|` (`result|error`).
fn reply_kinds(source: &Source, kinds: &Spanned<String>) -> Result<Vec<ReplyKind>, LoadError> {
    kinds
        .get_ref()
        .split('|')
        .map(str::trim)
        .map(|kind| match kind {
            "result" => Ok(ReplyKind::Result),
            "error" => Ok(ReplyKind::Error),
            "response" => Ok(ReplyKind::Response),
            "none" => Ok(ReplyKind::None),
            "rejected" => Ok(ReplyKind::Rejected),
            "closed" => Ok(ReplyKind::Closed),
            "ended" => Ok(ReplyKind::Ended),
            other => Err(source.at(
                kinds,
                format!("unknown reply kind `{other}`; use `result`, `error`, `response`, `none`, `rejected`, `closed` or `ended` (alternatives joined with `|`)"),
            )),
        })
        .collect()
}

fn resolve_cond(
    source: &Source,
    cond: CondFile,
    steps: &HashSet<String>,
) -> Result<Cond, LoadError> {
    let value =
        match (&cond.prior_at, &cond.prior_equals) {
            (None, None) => None,
            (Some(at), Some(equals)) if at.is_empty() || at.starts_with('/') => {
                Some((at.clone(), equals.clone()))
            }
            (Some(at), Some(_)) => {
                return Err(source.error(
                    None,
                    format!("`prior_at`: `{at}` is not a JSON pointer (it must start with `/`)"),
                ))
            }
            _ => return Err(source.error(
                None,
                "`prior_at` and `prior_equals` go together: the pointer and the value it must hold",
            )),
        };
    let prior_reply = cond
        .prior_reply
        .as_ref()
        .map(|kinds| reply_kinds(source, kinds))
        .transpose()?;
    let prior = match (&cond.prior_step, &cond.prior_http_status, value) {
        (None, None, None) if prior_reply.is_none() => None,
        (Some(step), http_status, value) if steps.contains(step.get_ref()) => {
            if http_status.is_none() && value.is_none() && prior_reply.is_none() {
                return Err(source.at(
                    step,
                    "`prior_step` needs `prior_http_status`, `prior_reply` or `prior_at` with `prior_equals`: what the step must have got",
                ));
            }
            Some(Prior {
                step: step.get_ref().clone(),
                http_status: http_status.clone(),
                value,
                reply: prior_reply,
            })
        }
        (Some(step), _, _) => {
            return Err(source.at(step, format!("no step is named `{}`", step.get_ref())))
        }
        (None, _, _) => {
            return Err(source.error(
                None,
                "`prior_http_status`, `prior_reply` and `prior_at` need `prior_step`, the step they test",
            ))
        }
    };
    let reply = cond
        .reply
        .as_ref()
        .map(|kinds| reply_kinds(source, kinds))
        .transpose()?;
    let versions = cond
        .versions
        .as_ref()
        .map(|v| VersionRange::parse(v.get_ref()).map_err(|e| source.at(v, e)))
        .transpose()?;
    let transport = cond
        .transport
        .as_ref()
        .map(|t| transport(source, t))
        .transpose()?;
    let mut asserts = Vec::new();
    let inline = AssertFile {
        at: cond
            .at
            .clone()
            .unwrap_or_else(|| Spanned::new(0..0, String::new())),
        equals: cond.equals,
        not_equals: cond.not_equals,
        one_of: cond.one_of,
        kind: cond.kind,
        len: cond.len,
        max_len: cond.max_len,
        contains: cond.contains,
        schema: cond.schema,
        schema_from: cond.schema_from,
    };
    let has_inline = inline.equals.is_some()
        || inline.not_equals.is_some()
        || inline.one_of.is_some()
        || inline.kind.is_some()
        || inline.len.is_some()
        || inline.max_len.is_some()
        || inline.contains.is_some()
        || inline.schema.is_some()
        || inline.schema_from.is_some();
    match (&cond.at, has_inline) {
        (Some(_), true) => asserts.extend(resolve_assert(source, inline)?),
        (Some(at), false) => return Err(source.at(at, "`at` needs a test: `equals`, `not_equals`, `one_of`, `type`, `len`, `max_len`, `contains` or `schema`")),
        (None, true) => return Err(source.error(None, "an assertion in `when` needs `at`, the JSON pointer it tests")),
        (None, false) => {}
    }
    for assert in cond.all {
        asserts.extend(resolve_assert(source, assert)?);
    }
    Ok(Cond {
        reply,
        code: cond.code,
        versions,
        transport,
        http_status: cond.http_status,
        content_type: cond.content_type,
        prior,
        session_issued: cond.session_issued,
        dual_era: cond.dual_era,
        progress_ok: cond.progress_ok,
        notified: cond.notified,
        requested: cond.requested,
        asserts,
    })
}

fn resolve_assert(source: &Source, assert: AssertFile) -> Result<Vec<Assert>, LoadError> {
    let at = assert.at.get_ref().clone();
    if !(at.is_empty() || at.starts_with('/')) {
        return Err(source.at(
            &assert.at,
            format!("`{at}` is not a JSON pointer (it must start with `/`)"),
        ));
    }
    let mut tests = Vec::new();
    if let Some(v) = assert.equals {
        tests.push(Test::Equals(v));
    }
    if let Some(v) = assert.not_equals {
        tests.push(Test::NotEquals(v));
    }
    if let Some(v) = assert.one_of {
        tests.push(Test::OneOf(v));
    }
    if let Some(kind) = &assert.kind {
        tests.push(Test::Type(match kind.get_ref().as_str() {
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "null" => JsonType::Null,
            "absent" => JsonType::Absent,
            "present" => JsonType::Present,
            other => {
                return Err(source.at(
                    kind,
                    format!("unknown type `{other}`; use string, number, integer, boolean, object, array, null, absent or present"),
                ))
            }
        }));
    }
    if let Some(n) = assert.len {
        tests.push(Test::Len(n));
    }
    if let Some(n) = assert.max_len {
        tests.push(Test::MaxLen(n));
    }
    if let Some(v) = assert.contains {
        tests.push(Test::Contains(v));
    }
    if let Some(schema) = assert.schema {
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .map_err(|e| source.at(&assert.at, format!("the schema does not compile: {e}")))?;
        tests.push(Test::Schema(Arc::new(validator)));
    }
    if let Some(placeholder) = assert.schema_from {
        tests.push(Test::SchemaFrom(placeholder));
    }
    Ok(tests
        .into_iter()
        .map(|test| Assert {
            at: at.clone(),
            test,
        })
        .collect())
}

/// The scenario library compiled into mcpcheck: (path, contents).
pub fn library_files() -> &'static [(&'static str, &'static str)] {
    include!(concat!(env!("OUT_DIR"), "/library.rs"))
}

/// Loads the built-in library.
pub fn library() -> Result<Vec<Scenario>, Vec<LoadError>> {
    collect(library_files().iter().map(|(path, text)| parse(path, text)))
}

/// Loads every `*.toml` file under a directory (recursively, in name order).
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let mut files = Vec::new();
    walk(dir, &mut files).map_err(|e| {
        vec![LoadError {
            path: dir.display().to_string(),
            line: 1,
            column: 1,
            message: e,
            snippet: String::new(),
        }]
    })?;
    files.sort();
    collect(files.iter().map(|path| {
        let shown = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => parse(&shown, &text),
            Err(e) => Err(LoadError {
                path: shown,
                line: 1,
                column: 1,
                message: format!("cannot read the file: {e}"),
                snippet: String::new(),
            }),
        }
    }))
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read the scenario directory: {e}"))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
    Ok(())
}

fn collect(
    results: impl Iterator<Item = Result<Scenario, LoadError>>,
) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let (mut ok, mut errors) = (Vec::new(), Vec::new());
    for result in results {
        match result {
            Ok(s) => ok.push(s),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(ok)
    } else {
        Err(errors)
    }
}

/// Rejects scenario ids and check ids used twice (also against the built-in check ids).
pub fn check_unique(scenarios: &[Scenario], builtin: &[&str]) -> Result<(), Vec<LoadError>> {
    let mut errors = Vec::new();
    let mut seen_scenarios: HashMap<&str, &str> = HashMap::new();
    let mut seen_checks: HashMap<&str, &str> = builtin.iter().map(|id| (*id, "built-in")).collect();
    for scenario in scenarios {
        if let Some(first) = seen_scenarios.insert(&scenario.id, &scenario.source) {
            errors.push(LoadError {
                path: scenario.source.clone(),
                line: 1,
                column: 1,
                message: format!("scenario id `{}` is already used by {first}", scenario.id),
                snippet: String::new(),
            });
        }
        for check in &scenario.checks {
            if let Some(first) = seen_checks.insert(&check.def.id, &check.def.source) {
                let (path, line) = check
                    .def
                    .source
                    .rsplit_once(':')
                    .unwrap_or((&check.def.source, "1"));
                errors.push(LoadError {
                    path: path.to_string(),
                    line: line.parse().unwrap_or(1),
                    column: 1,
                    message: format!("check id `{}` is already used by {first}", check.def.id),
                    snippet: String::new(),
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
id = "ping-demo"
area = "lifecycle"
title = "ping"

[[step]]
name = "ping"
request = { method = "ping" }

[[check]]
id = "ping-demo-result"
title = "ping gets a result"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic/utilities/ping" }]
step = "ping"
expect = "an empty result"
rule = [{ when = { reply = "result" }, verdict = "pass" }]
"#;

    #[test]
    fn a_placeholder_that_names_nothing_is_a_load_error_at_its_place() {
        let typo = MINIMAL.replace(
            "request = { method = \"ping\" }",
            "request = { method = \"ping\", params = { v = \"{{protocolVersoin}}\" } }",
        );
        let e = parse("demo.toml", &typo).unwrap_err();
        assert_eq!((e.line, e.column), (8, 46), "{e}");
        assert!(e.message.contains("names nothing"), "{e}");
        let capture = MINIMAL.replace(
            "verdict = \"pass\" }",
            "verdict = \"pass\", message = \"got {{capture.missing}}\" }",
        );
        let e = parse("demo.toml", &capture).unwrap_err();
        assert!(e.message.contains("no step of this file makes"), "{e}");
        let fine = MINIMAL.replace(
            "verdict = \"pass\" }",
            "verdict = \"pass\", message = \"{{reply/result}} at {{protocolVersion}} ({{http_status?}})\" }",
        );
        parse("demo.toml", &fine).unwrap();
    }

    #[test]
    fn a_minimal_scenario_loads() {
        let scenario = parse("demo.toml", MINIMAL).unwrap();
        assert_eq!(scenario.checks[0].def.source, "demo.toml:11");
        assert_eq!(scenario.checks[0].otherwise, Status::Fail);
        assert_eq!(
            scenario.checks[0].def.spec[0].url,
            "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping"
        );
    }

    #[test]
    fn unknown_fields_point_at_their_line() {
        let text = MINIMAL.replace(
            "expect = \"an empty result\"",
            "expect = \"x\"\nexpcet = \"typo\"",
        );
        let err = parse("demo.toml", &text).unwrap_err();
        assert_eq!((err.line, err.column), (17, 1), "{err}");
        assert!(err.message.contains("expcet"), "{err}");
        assert!(err.to_string().starts_with("demo.toml:17:1: "), "{err}");
    }

    #[test]
    fn semantic_errors_point_at_the_value() {
        let err = parse(
            "demo.toml",
            &MINIMAL.replace("level = \"MUST\"", "level = \"MUSTN'T\""),
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (13, 9), "{err}");
        assert!(err.message.contains("unknown level"));
        let err = parse(
            "demo.toml",
            &MINIMAL.replace("step = \"ping\"", "step = \"pong\""),
        )
        .unwrap_err();
        assert!(err.message.contains("no step is named `pong`"), "{err}");
        let err = parse(
            "demo.toml",
            &MINIMAL.replace(
                "request = { method = \"ping\" }",
                "notification = { method = \"x\" }",
            ),
        )
        .unwrap_err();
        assert!(err.message.contains("connection of its own"), "{err}");
        let err = parse(
            "demo.toml",
            &MINIMAL.replace("reply = \"result\"", "reply = \"reslut\""),
        )
        .unwrap_err();
        assert!(err.message.contains("unknown reply kind `reslut`"), "{err}");
    }

    #[test]
    fn a_polling_step_names_where_to_look_and_when_to_stop() {
        let with = |poll: &str| {
            parse(
                "demo.toml",
                &MINIMAL.replace(
                    "request = { method = \"ping\" }",
                    &format!("request = {{ method = \"ping\" }}\n{poll}"),
                ),
            )
        };
        let scenario =
            with(r#"poll = { at = "/result/status", until = ["completed"], within_ms = 2000 }"#)
                .unwrap();
        let poll = scenario.steps[0].poll.as_ref().unwrap();
        assert_eq!(poll.at, "/result/status");
        assert_eq!(poll.until, vec![serde_json::Value::from("completed")]);
        assert_eq!(poll.within, Duration::from_secs(2));
        let default = with(r#"poll = { at = "/result/status", until = ["completed"] }"#).unwrap();
        assert_eq!(
            default.steps[0].poll.as_ref().unwrap().within,
            Duration::from_secs(10)
        );
        let err = with(r#"poll = { at = "result/status", until = ["completed"] }"#).unwrap_err();
        assert!(err.message.contains("a JSON pointer"), "{err}");
        assert_eq!(err.line, 9, "{err}");
        let err = with("poll = { at = \"/result/status\", until = [\"x\"] }\nconcurrent = 2")
            .unwrap_err();
        assert!(
            err.message.contains("`poll` goes with a single `request`"),
            "{err}"
        );
    }

    #[test]
    fn transport_names_one_transport_or_a_list() {
        let with = |value: &str| {
            MINIMAL.replace(
                "title = \"ping\"\n",
                &format!("title = \"ping\"\n[requires]\ntransport = {value}\n"),
            )
        };
        let one = parse("demo.toml", &with("\"sse\"")).unwrap();
        assert_eq!(one.requires.transports, [TransportKind::Sse]);
        let two = parse("demo.toml", &with("[\"stdio\", \"sse\", \"stdio\"]")).unwrap();
        assert_eq!(
            two.requires.transports,
            [TransportKind::Stdio, TransportKind::Sse]
        );
        assert_eq!(
            two.checks[0].def.transports,
            [TransportKind::Stdio, TransportKind::Sse]
        );
        // Over HTTP+SSE a step may GET (a probe of the SSE endpoint), and nothing else.
        let get = with("\"sse\"")
            .replace("request = { method = \"ping\" }", "http_method = \"GET\"")
            .replace(
                "title = \"ping\"\n",
                "title = \"ping\"\nsession = \"fresh\"\n",
            );
        if let Err(err) = parse("demo.toml", &get) {
            panic!("{err}");
        }
        let delete = get.replace("\"GET\"", "\"DELETE\"");
        let err = parse("demo.toml", &delete).unwrap_err();
        assert!(err.message.contains("http transport"), "{err}");
        for (bad, says) in [
            ("[\"stdio\", \"smtp\"]", "unknown transport `smtp`"),
            ("[]", "lists no transport"),
            ("3", "a transport's name"),
        ] {
            let err = parse("demo.toml", &with(bad)).unwrap_err();
            assert_eq!(err.line, 6, "{err}");
            assert!(err.message.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn background_steps_are_single_requests_on_their_own_connection() {
        let background =
            "request = { method = \"ping\" }\nbackground = { once_notified = \"notifications/x\" }";
        // On the shared connection: refused, at the step's `background`.
        let text = MINIMAL.replace("request = { method = \"ping\" }", background);
        let err = parse("demo.toml", &text).unwrap_err();
        assert_eq!(err.line, 9, "{err}");
        assert!(err.message.contains("connection of its own"), "{err}");
        // On a connection of its own: loads, and only once per scenario.
        let own = text.replace("title = \"ping\"", "title = \"ping\"\nsession = \"fresh\"");
        let scenario = parse("demo.toml", &own).unwrap();
        assert_eq!(
            scenario.steps[0].background.as_deref(),
            Some("notifications/x")
        );
        let twice = own.replace(
            "[[check]]",
            &format!("[[step]]\nname = \"again\"\n{background}\n\n[[check]]"),
        );
        let err = parse("demo.toml", &twice).unwrap_err();
        assert!(err.message.contains("at most one `background`"), "{err}");
    }
}
