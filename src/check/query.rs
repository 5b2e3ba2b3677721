//! The scenario language at run time: what a query finds in the record of a scenario's steps,
//! and whether a predicate holds of it. Conditions, `poll.until` and captures all go through
//! here, so a query means the same wherever it is written.

use serde_json::Value;

use super::content;
use super::step::{progress_ok, reply_message, StepRecord};
use crate::record::{Exchange, Reply, TransportKind};
use crate::scenario::model::{Cond, Part, Pred, Query, Test};
use crate::scenario::template;

/// What a query can see besides the exchange it reads.
#[derive(Clone, Copy)]
pub struct Seen<'a> {
    /// The steps recorded so far (for `step.NAME.…`).
    pub records: &'a [StepRecord],
    /// The negotiated protocol version.
    pub version: &'a str,
    /// The transport.
    pub transport: TransportKind,
    /// The versions the server offered in `server/discover`, as wire strings.
    pub offered: &'a [String],
    /// Every listed tool's definition, by name, if the run listed tools.
    pub tools: Option<&'a std::collections::HashMap<String, Value>>,
}

/// Whether every part of a condition holds for this exchange.
pub fn holds(
    cond: &Cond,
    exchange: &Exchange,
    seen: Seen,
    lookup: &dyn Fn(&str) -> Option<Value>,
) -> bool {
    cond.0
        .iter()
        .all(|(query, pred)| pred_holds(pred, &values(query, exchange, seen), lookup))
}

/// The values a query finds: none, one, or (replies, notifications, offered versions) several.
pub fn values(query: &Query, exchange: &Exchange, seen: Seen) -> Vec<Value> {
    match query {
        Query::Version => vec![Value::from(seen.version)],
        Query::Transport => vec![Value::from(seen.transport.to_string())],
        // Offered as wire strings; judged as revisions (an unknown string stays as it was).
        Query::Offered => seen
            .offered
            .iter()
            .map(|v| {
                Value::from(crate::record::version::by_wire(v).map_or(v.as_str(), |r| &r.name))
            })
            .collect(),
        Query::Tool { name, at } => seen
            .tools
            .and_then(|tools| tools.get(name)?.pointer(at).cloned())
            .into_iter()
            .collect(),
        Query::Step { step: None, part } => part_values(part, exchange),
        Query::Step {
            step: Some(name),
            part,
        } => seen
            .records
            .iter()
            .find(|r| &r.name == name)
            .and_then(|r| r.outcome.as_ref().ok())
            .map(|earlier| part_values(part, earlier))
            .unwrap_or_default(),
    }
}

fn part_values(part: &Part, exchange: &Exchange) -> Vec<Value> {
    let one = |v: Option<Value>| v.into_iter().collect::<Vec<_>>();
    match part {
        Part::Reply => reply_kinds(exchange)
            .iter()
            .map(|k| Value::from(*k))
            .collect(),
        Part::Body(pointer) => one(reply_message(exchange)
            .and_then(|m| m.pointer(pointer))
            .cloned()),
        Part::Sent(pointer) => one(serde_json::from_str::<Value>(&exchange.sent)
            .ok()
            .and_then(|s| s.pointer(pointer).cloned())),
        Part::Status => one(exchange.http.as_ref().map(|h| Value::from(h.status))),
        Part::Header(name) => one(exchange.http.as_ref().and_then(|h| {
            h.headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| Value::from(v.as_str()))
        })),
        Part::Challenge(name) => one(exchange.http.as_ref().and_then(|h| {
            crate::record::challenge::bearer(&h.headers)?
                .param(name)
                .map(Value::from)
        })),
        Part::Notified { method, at } => of_method(&exchange.notifications, method, at),
        Part::Requested { method, at } => of_method(&exchange.server_requests, method, at),
        Part::EventId(n) => one(exchange
            .http
            .as_ref()
            .and_then(|h| h.events.get(*n)?.id.clone())
            .map(Value::from)),
        Part::SessionIssued => vec![Value::from(
            exchange.http.as_ref().is_some_and(|h| h.session),
        )],
        Part::ProgressOk => vec![Value::from(progress_ok(exchange))],
        Part::ContentDigest => {
            one(content::bytes(exchange).map(|b| Value::from(content::sha256(&b))))
        }
        Part::ContentSize => one(content::bytes(exchange).map(|b| Value::from(b.len()))),
        Part::Frontmatter(at) => {
            one(content::frontmatter_of(exchange).and_then(|f| f.pointer(at).cloned()))
        }
    }
}

/// The values at a pointer of the messages of one method.
fn of_method(messages: &[Value], method: &str, at: &str) -> Vec<Value> {
    messages
        .iter()
        .filter(|m| m.get("method").and_then(Value::as_str) == Some(method))
        .filter_map(|m| m.pointer(at).cloned())
        .collect()
}

/// Every kind a reply is: `response` and `result` or `error` for a message; `none` (and `ended`
/// when an HTTP stream ended before the response); `rejected`; `closed`.
pub fn reply_kinds(exchange: &Exchange) -> Vec<&'static str> {
    match &exchange.reply {
        Reply::Message { message, .. } => {
            let error = message.get("error").is_some_and(|e| !e.is_null());
            if error {
                vec!["response", "error"]
            } else if message.get("result").is_some() {
                vec!["response", "result"]
            } else {
                vec!["response"]
            }
        }
        Reply::Nothing { .. } if exchange.http.as_ref().is_some_and(|h| h.ended_early) => {
            vec!["none", "ended"]
        }
        Reply::Nothing { .. } => vec!["none"],
        Reply::Rejected { .. } => vec!["rejected"],
        Reply::Closed { .. } => vec!["closed"],
    }
}

/// Whether a predicate holds of what a query found: `exists` asks whether it found anything;
/// every other test holds when some value passes it; of nothing at all, only `not_equals` holds.
pub fn pred_holds(pred: &Pred, found: &[Value], lookup: &dyn Fn(&str) -> Option<Value>) -> bool {
    pred.0.iter().all(|test| match test {
        Test::Exists(want) => found.is_empty() != *want,
        _ if found.is_empty() => test_holds(test, None, lookup),
        _ => found.iter().any(|v| test_holds(test, Some(v), lookup)),
    })
}

fn test_holds(test: &Test, value: Option<&Value>, lookup: &dyn Fn(&str) -> Option<Value>) -> bool {
    let expand = |v: &Value| template::expand(v, lookup).ok();
    match (test, value) {
        (Test::Exists(want), v) => v.is_some() == *want,
        (Test::NotEquals(expected), v) => {
            expand(expected).is_some_and(|e| !v.is_some_and(|v| same(v, &e)))
        }
        (_, None) => false,
        (Test::Equals(expected), Some(v)) => expand(expected).is_some_and(|e| same(v, &e)),
        (Test::OneOf(options), Some(v)) => options
            .iter()
            .any(|o| expand(o).is_some_and(|e| same(v, &e))),
        (Test::Type(kind), Some(v)) => kind.matches(v),
        (Test::Length(n), Some(v)) => length(v) == Some(*n),
        (Test::Contains(expected), Some(v)) => expand(expected).is_some_and(|expected| {
            v.as_array().is_some_and(|items| {
                items.iter().any(|item| match &expected {
                    Value::Object(members) => members
                        .iter()
                        .all(|(k, m)| item.get(k).is_some_and(|i| same(i, m))),
                    other => same(item, other),
                })
            })
        }),
        (Test::Matches(regex), Some(v)) => v.as_str().is_some_and(|s| regex.get().is_match(s)),
        (Test::StartsWith(prefix), Some(v)) => match (expand(prefix), v.as_str()) {
            (Some(Value::String(prefix)), Some(s)) => s.starts_with(&prefix),
            _ => false,
        },
        (Test::EndsWith(suffix), Some(v)) => match (expand(suffix), v.as_str()) {
            (Some(Value::String(suffix)), Some(s)) => s.ends_with(&suffix),
            _ => false,
        },
        (Test::Within(window), Some(v)) => v.as_str().is_some_and(|s| window.contains(s)),
        (Test::Schema(schema), Some(v)) => schema.get().is_valid(v),
        (Test::SchemaFrom(placeholder), Some(v)) => template::expand_str(placeholder, lookup)
            .ok()
            .and_then(|s| jsonschema::validator_for(&s).ok())
            .is_some_and(|validator| validator.is_valid(v)),
    }
}

/// Whether two JSON values are the same value: type-strict (a string is never a number), members
/// in any order, and numbers by value, as JSON has one kind of number (`1` and `1.0` are the same;
/// encoders differ in which they write).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || (x.is_f64() || y.is_f64()) && x.as_f64() == y.as_f64()
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn length(value: &Value) -> Option<usize> {
    match value {
        Value::Array(a) => Some(a.len()),
        Value::Object(o) => Some(o.len()),
        Value::String(s) => Some(s.chars().count()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::same;
    use serde_json::json;

    #[test]
    fn values_are_the_same_by_json_value() {
        assert!(same(&json!(1), &json!(1.0)));
        assert!(same(
            &json!({"a": [1, {"b": 2.0}]}),
            &json!({"a": [1.0, {"b": 2}]})
        ));
        assert!(same(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})));
        assert!(!same(&json!(1), &json!("1")));
        assert!(!same(&json!(1), &json!(1.5)));
        assert!(!same(&json!({"a": 1}), &json!({"a": 1, "b": null})));
        assert!(same(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!same(&json!(i64::MAX), &json!(i64::MAX - 1)));
    }
}
