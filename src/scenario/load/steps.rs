//! Resolving the parts of a scenario file: its steps, checks, rules, conditions and assertions,
//! each checked against the file (with its line and column) as it is turned into the model.

use super::*;

pub(super) fn resolve_step(
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

pub(super) fn resolve_check(
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
pub(super) fn reply_kinds(
    source: &Source,
    kinds: &Spanned<String>,
) -> Result<Vec<ReplyKind>, LoadError> {
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

pub(super) fn resolve_cond(
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

pub(super) fn resolve_assert(
    source: &Source,
    assert: AssertFile,
) -> Result<Vec<Assert>, LoadError> {
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
