//! Evaluating a scenario check: its rules against the exchanges its steps recorded.

use std::collections::HashMap;

use serde_json::Value;

use super::step::{NotSent, StepRecord};
use crate::record::Reply;
use crate::record::{Status, Verdict};
use crate::scenario::template;
use crate::scenario::ScenarioCheck;

use crate::record::exchange::{authorization_refusal, describe};
use crate::record::TransportKind;

/// What a check's evaluation may consult besides the exchange.
pub struct Env<'a> {
    /// The negotiated protocol version.
    pub version: &'a str,
    /// The transport.
    pub transport: TransportKind,
    /// Values captured by earlier steps.
    pub captures: &'a HashMap<String, Value>,
    /// Every listed tool's definition, by name, if the run listed tools.
    pub tools: Option<&'a HashMap<String, Value>>,
    /// The versions the server offered in `server/discover` (empty for a handshake-era server).
    pub offered: &'a [String],
    /// The HTTP endpoint under test (`{{server.url}}`), if the run is over HTTP.
    pub server: Option<&'a str>,
    /// The capabilities the server declared (`{{guarded.request}}`), if known.
    pub capabilities: Option<&'a Value>,
}

impl Env<'_> {
    /// What a query sees of the run, with these steps recorded.
    pub fn seen<'b>(&'b self, records: &'b [StepRecord]) -> super::query::Seen<'b> {
        super::query::Seen {
            records,
            version: self.version,
            transport: self.transport,
            offered: self.offered,
            tools: self.tools,
        }
    }
}

/// Evaluates a check over its steps; the worst verdict wins.
pub fn evaluate(check: &ScenarioCheck, records: &[StepRecord], env: &Env) -> Verdict {
    let mut worst: Option<Verdict> = None;
    let many = check.steps.len() > 1;
    for name in &check.steps {
        // A step sent several times at once (`concurrent`) has a record per copy; each is judged.
        let mut verdicts: Vec<(Option<String>, Verdict)> = records
            .iter()
            .filter(|r| &r.name == name)
            .map(|record| {
                (
                    what_was_sent(record),
                    evaluate_step(check, record, records, env),
                )
            })
            .collect();
        if verdicts.is_empty() {
            verdicts.push((
                None,
                Verdict::because(Status::NotTestable, crate::record::Reason::NotTaken),
            ));
        }
        let several = many || verdicts.len() > 1;
        for (sent, mut verdict) in verdicts {
            // Of several exchanges judged, say which one (by what was sent, not by how the
            // scenario names it).
            if let (true, false, Some(sent)) = (several, verdict.status == Status::Pass, sent) {
                verdict.message = format!("{sent}: {}", verdict.message);
            }
            if worst.as_ref().is_none_or(|w| verdict.status < w.status) {
                worst = Some(verdict);
            }
        }
    }
    worst.unwrap_or_else(|| {
        Verdict::new(
            Status::NotTestable,
            "the check judges no exchange (its scenario names none)",
        )
    })
}

/// What a step sent, in a few words: the method of its message with the resource, prompt or
/// page it names (`resources/read file:///a.txt`), or the HTTP method of a bodiless request.
fn what_was_sent(record: &StepRecord) -> Option<String> {
    let exchange = record.outcome.as_ref().ok()?;
    serde_json::from_str::<Value>(&exchange.sent)
        .ok()
        .and_then(|m| {
            let method = m.get("method")?.as_str()?;
            // Which item of a list: the resource or prompt named, or the page.
            let params = m.get("params");
            let item = ["/uri", "/name", "/cursor"]
                .iter()
                .find_map(|p| params?.pointer(p)?.as_str().map(|v| (p, v)));
            Some(match item {
                Some((&"/cursor", cursor)) => format!("{method} (cursor {cursor})"),
                Some((_, item)) => format!("{method} {item}"),
                None => method.to_string(),
            })
        })
        .or_else(|| {
            // A document fetched once per item: the URL of the answer judged.
            if record.item.is_some() {
                return exchange.sent.lines().last().map(str::to_string);
            }
            exchange
                .sent
                .split_once(' ')
                .map(|(method, _)| method.to_string())
                .filter(|m| m.chars().all(|c| c.is_ascii_uppercase()))
        })
}

fn evaluate_step(
    check: &ScenarioCheck,
    record: &StepRecord,
    records: &[StepRecord],
    env: &Env,
) -> Verdict {
    let exchange = match (&record.outcome, &record.stopped) {
        (Ok(exchange), _) => exchange,
        // Not sent because the server had stopped answering: an error of the run.
        (Err(_), Some(stopped)) => return Verdict::because(Status::Error, stopped.reason()),
        (
            Err(NotSent {
                why,
                not_applicable,
                unanswered,
            }),
            None,
        ) => {
            return if *not_applicable {
                Verdict::skip(crate::record::Reason::Absent { text: why.clone() })
            } else if *unanswered {
                Verdict::because(
                    Status::NotTestable,
                    crate::record::Reason::Unanswered { text: why.clone() },
                )
            } else {
                Verdict::because(
                    Status::NotTestable,
                    crate::record::Reason::NotSent { text: why.clone() },
                )
            };
        }
    };
    let actual = describe(exchange, record.is_request);
    // The request never reached MCP: the authorization layer refused it. What the check asks
    // cannot be seen without a token that covers the request (the authorization checks judge
    // exactly these refusals).
    if let Some(refusal) = exchange
        .http
        .as_ref()
        .filter(|_| check.def.area != "authorization")
        .and_then(|http| authorization_refusal(http.status, &http.headers))
    {
        return Verdict::because(
            Status::NotTestable,
            crate::record::Reason::Authorization { refusal },
        )
        .with_actual(actual);
    }
    if let (Some(why), Reply::Nothing { .. } | Reply::Closed { .. }) =
        (&record.stopped, &exchange.reply)
    {
        return Verdict::because(Status::Error, why.reason()).with_actual(actual);
    }
    let seen = env.seen(records);
    // A placeholder that is a query: the first value it finds, as a rule's `when` reads it (the
    // step names it may use are gathered once, and only for a rule that has such a placeholder).
    let steps = std::sync::OnceLock::<std::collections::HashSet<String>>::new();
    let query = |name: &str| {
        let steps = steps.get_or_init(|| records.iter().map(|r| r.name.clone()).collect());
        let query = crate::scenario::load::parse_query(name, Some(steps)).ok()?;
        super::query::values(&query, exchange, seen)
            .into_iter()
            .next()
    };
    let fill = template::Fill {
        version: env.version,
        captures: Some(env.captures),
        tools: env.tools,
        query: Some(&query),
        each: record.item.as_ref(),
        server: env.server,
        capabilities: env.capabilities,
        ..template::Fill::default()
    };
    let lookup = |name: &str| fill.lookup(name);
    for rule in &check.rules {
        if super::query::holds(&rule.when, exchange, seen, &lookup) {
            let text = rule
                .message
                .as_deref()
                .map(|m| template::expand_message(m, &lookup))
                .unwrap_or_else(|| default_message(rule.verdict, &check.def.expect));
            let mut verdict = Verdict::new(rule.verdict, text).with_actual(actual);
            verdict.note = rule
                .note
                .as_deref()
                .map(|n| template::expand_message(n, &lookup));
            return verdict;
        }
    }
    match &exchange.reply {
        Reply::Closed { detail } => Verdict::because(
            Status::Error,
            crate::record::Reason::Closed {
                text: detail.clone(),
            },
        )
        .with_actual(actual),
        Reply::Nothing { waited_ms } if record.is_request => Verdict::because(
            Status::Error,
            crate::record::Reason::NoResponse {
                waited_ms: *waited_ms,
            },
        )
        .with_actual(actual),
        _ => Verdict::new(
            check.otherwise,
            default_message(check.otherwise, &check.def.expect),
        )
        .with_actual(actual),
    }
}

fn default_message(status: Status, expect: &str) -> String {
    match status {
        Status::Pass => expect.to_string(),
        _ => format!("expected {expect}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Exchange, Reply};
    use serde_json::json;

    fn library_check(id: &str) -> ScenarioCheck {
        crate::scenario::load::library()
            .unwrap()
            .into_iter()
            .flat_map(|s| s.checks)
            .find(|c| c.def.id == id)
            .unwrap()
    }

    fn judge(id: &str, version: &str, reply: Value) -> Verdict {
        let sent = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "mcpcheck://nonexistent/x"}});
        judge_item(id, version, sent, None, reply)
    }

    /// Judges one exchange of a check's first step; `item` is the `for_each` item it was for.
    fn judge_item(
        id: &str,
        version: &str,
        sent: Value,
        item: Option<Value>,
        reply: Value,
    ) -> Verdict {
        let check = library_check(id);
        let exchange = Exchange {
            sent: sent.to_string(),
            sent_headers: Vec::new(),
            reply: Reply::Message {
                text: reply.to_string(),
                message: reply,
            },
            notifications: Vec::new(),
            server_requests: Vec::new(),
            http: None,
            elapsed_ms: 1,
        };
        let records = vec![StepRecord {
            name: check.steps[0].clone(),
            is_request: true,
            outcome: Ok(exchange),
            stopped: None,
            item,
        }];
        let captures = HashMap::new();
        evaluate(
            &check,
            &records,
            &Env {
                version,
                transport: TransportKind::Stdio,
                captures: &captures,
                tools: None,
                offered: &[],
                server: None,
                capabilities: None,
            },
        )
    }

    /// A `for_each` step's rules see the item each exchange was for: a skill file's listed
    /// digest and size against the bytes read, a skill's listed name against its uri.
    #[test]
    fn rules_of_a_for_each_step_see_its_item() {
        let read = |uri: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}});
        let text = json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [{"uri": "skill://a/x.md", "text": "abc"}]}});
        let file = |digest: &str, size: u64| {
            Some(json!({"uri": "skill://a/x.md", "digest": digest, "size": size}))
        };
        let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let digest = |item| {
            judge_item(
                "skills-file-digest",
                "2025-11-25",
                read("skill://a/x.md"),
                item,
                text.clone(),
            )
        };
        assert_eq!(digest(file(abc, 3)).status, Status::Pass);
        let stale = digest(file(abc, 4));
        assert_eq!(stale.status, Status::Fail);
        assert!(stale.message.contains("4 bytes"), "{}", stale.message);
        let get = |uri: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "skills/get", "params": {"uri": uri}});
        let skill =
            Some(json!({"uri": "skill://org/pdf/SKILL.md", "frontmatter": {"name": "pdf"}}));
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        let named = |uri: &str| {
            judge_item(
                "skills-uri-names-skill",
                "2025-11-25",
                get(uri),
                skill.clone(),
                answer.clone(),
            )
            .status
        };
        assert_eq!(named("skill://org/pdf/SKILL.md"), Status::Pass);
        assert_eq!(named("skill://org/pdf-tools/SKILL.md"), Status::Fail);
    }

    /// A placeholder in a rule is a query: `{{/error/code}}` is what the `when` key
    /// `"/error/code"` reads, a number kept as one.
    #[test]
    fn a_placeholder_in_a_rule_is_a_query_of_its_exchange() {
        let verdict = judge(
            "resources-read-missing-error",
            "2026-07-28",
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "nope"}}),
        );
        assert_eq!(verdict.status, Status::Fail);
        assert!(
            verdict.message.ends_with("got -32000"),
            "{}",
            verdict.message
        );
    }

    /// Skill names: lowercase letters (a-z, and others the format's text may mean), digits and
    /// single hyphens inside; not capitals, not a hyphen at an end or doubled.
    #[test]
    fn skill_names_follow_the_agent_skills_format() {
        let sent = json!({"jsonrpc": "2.0", "id": 1, "method": "skills/list"});
        let status = |name: &str| {
            let reply = json!({"jsonrpc": "2.0", "id": 1, "result": {"skills": [{"uri": "skill://x/SKILL.md", "frontmatter": {"name": name, "description": "d"}, "resources": "dynamic"}]}});
            judge_item(
                "skills-name-format",
                "2025-11-25",
                sent.clone(),
                None,
                reply,
            )
            .status
        };
        for good in ["pdf", "pdf-processing", "a1-b2", "café"] {
            assert_eq!(status(good), Status::Pass, "{good}");
        }
        for bad in [
            "PDF",
            "-pdf",
            "pdf-",
            "pdf--x",
            "pdf_x",
            "",
            &"a".repeat(65),
        ] {
            assert_eq!(status(bad), Status::Fail, "{bad}");
        }
    }

    #[test]
    fn sep_2164_follows_the_negotiated_version() {
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "Resource not found"}});
        let canonical = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Resource not found", "data": {"uri": "mcpcheck://nonexistent/x"}}});
        let tolerated = judge("resources-read-missing-error", "2025-11-25", legacy.clone());
        assert_eq!(tolerated.status, Status::Pass);
        assert!(tolerated.note.unwrap().contains("-32602 is now canonical"));
        assert_eq!(
            judge("resources-read-missing-error", "2025-06-18", legacy.clone()).status,
            Status::Pass
        );
        let modern = judge("resources-read-missing-error", "2026-07-28", legacy);
        assert_eq!(modern.status, Status::Fail);
        assert!(
            modern.message.contains("MUST NOT be emitted at 2026-07-28"),
            "{}",
            modern.message
        );
        assert_eq!(
            judge(
                "resources-read-missing-error",
                "2026-07-28",
                canonical.clone()
            )
            .status,
            Status::Pass
        );
        assert_eq!(
            judge("resources-read-missing-data-uri", "2026-07-28", canonical).status,
            Status::Pass
        );
    }

    #[test]
    fn other_codes_and_empty_contents_fail() {
        for reply in [
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 0, "message": "x"}}),
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": []}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [{"uri": "x", "text": ""}]}}),
        ] {
            for version in ["2025-11-25", "2026-07-28"] {
                assert_eq!(
                    judge("resources-read-missing-error", version, reply.clone()).status,
                    Status::Fail,
                    "{reply} at {version}"
                );
            }
        }
    }

    #[test]
    fn silence_and_a_gone_server_are_harness_errors_not_failures() {
        let check = library_check("resources-read-missing-error");
        let captures = HashMap::new();
        for reply in [
            Reply::Nothing { waited_ms: 5000 },
            Reply::Closed {
                detail: "the server exited (exit 1)".into(),
            },
        ] {
            let exchange = Exchange {
                sent: "{}".into(),
                sent_headers: Vec::new(),
                reply,
                notifications: Vec::new(),
                server_requests: Vec::new(),
                http: None,
                elapsed_ms: 1,
            };
            let records = vec![StepRecord {
                name: "read".into(),
                is_request: true,
                outcome: Ok(exchange),
                stopped: None,
                item: None,
            }];
            let verdict = evaluate(
                &check,
                &records,
                &Env {
                    version: "2025-11-25",
                    transport: TransportKind::Stdio,
                    captures: &captures,
                    tools: None,
                    offered: &[],
                    server: None,
                    capabilities: None,
                },
            );
            assert_eq!(verdict.status, Status::Error, "{verdict:?}");
        }
    }
}
