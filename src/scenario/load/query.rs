//! The scenario language's conditions as written: queries (what to look at) and predicates (what
//! must hold of it), checked here so that a typo is an error at its line, never a rule that
//! silently does not match.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use super::super::file::PredFile;
use super::super::model::{Compiled, Cond, JsonType, Part, Pred, Query, Test, QUERY_FORMS};
use super::{Compile, LoadError, Source};
use crate::record::VersionRange;

/// The queries about the run as a whole.
const GLOBAL: &[(&str, Query)] = &[
    ("version", Query::Version),
    ("transport", Query::Transport),
    ("offered", Query::Offered),
];

/// What the error for an unknown query lists: every form.
fn known() -> String {
    QUERY_FORMS
        .iter()
        .map(|f| f.form)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a query does not parse.
#[derive(Debug, thiserror::Error)]
pub(crate) enum QueryError {
    /// `tool.` with no name.
    #[error("`{0}` names no tool")]
    NoTool(String),
    /// `step.NAME…` where only the step's own exchange may be read.
    #[error(
        "`{0}`: a query here reads this step's own exchange; earlier steps are named only in rules"
    )]
    StepHere(String),
    /// `step.NAME…` naming no step of the file.
    #[error("`{query}`: no step is named `{step}`")]
    NoStep {
        /// The query.
        query: String,
        /// The name it gave.
        step: String,
    },
    /// The part of an exchange it names does not parse.
    #[error("`{query}`: {part}")]
    Part {
        /// The query.
        query: String,
        /// What is wrong with the part.
        part: PartError,
    },
}

/// Why the part of an exchange a query names does not parse.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PartError {
    /// A pointer that does not start with `/`.
    #[error("`{0}` is not a JSON pointer (it must start with `/`)")]
    NotAPointer(String),
    /// `notified[]`, `requested[]`, `event-id[]`.
    #[error("`{0}[]` names no method")]
    NoMethod(String),
    /// A `[` with no `]`.
    #[error("`{0}[` is not closed by `]`")]
    Unclosed(String),
    /// `event-id[N]/…`.
    #[error("`event-id[N]` takes no pointer")]
    EventIdPointer,
    /// `event-id[x]`.
    #[error("`event-id[{0}]`: N is an event's index, 0 or more")]
    EventIndex(String),
    /// A pointer into the reply written without its `/`.
    #[error(
        "unknown query: a JSON pointer into the reply starts with `/` (known: {})",
        known()
    )]
    SlashMissing,
    /// None of the forms.
    #[error("unknown query (known: {})", known())]
    Unknown,
}

/// Parses a query. `steps` are the step names an earlier-step query may name (`None`: such a
/// query is not allowed here).
pub(crate) fn parse_query(
    text: &str,
    steps: Option<&HashSet<String>>,
) -> Result<Query, QueryError> {
    let part = |part| QueryError::Part {
        query: text.to_string(),
        part,
    };
    if let Some((_, query)) = GLOBAL.iter().find(|(name, _)| *name == text) {
        return Ok(query.clone());
    }
    if let Some(rest) = text.strip_prefix("tool.") {
        let (name, at) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        if name.is_empty() {
            return Err(QueryError::NoTool(text.to_string()));
        }
        return Ok(Query::Tool {
            name: name.to_string(),
            at: at.to_string(),
        });
    }
    if let Some(rest) = text.strip_prefix("step.") {
        let end = rest.find(['.', '/']).unwrap_or(rest.len());
        let (name, tail) = rest.split_at(end);
        let Some(steps) = steps else {
            return Err(QueryError::StepHere(text.to_string()));
        };
        if !steps.contains(name) {
            return Err(QueryError::NoStep {
                query: text.to_string(),
                step: name.to_string(),
            });
        }
        let tail = tail.strip_prefix('.').unwrap_or(tail);
        return Ok(Query::Step {
            step: Some(name.to_string()),
            part: parse_part(tail).map_err(part)?,
        });
    }
    Ok(Query::Step {
        step: None,
        part: parse_part(text).map_err(part)?,
    })
}

/// Parses the part of one exchange a query names.
fn parse_part(text: &str) -> Result<Part, PartError> {
    let pointer = |p: &str| -> Result<String, PartError> {
        if p.is_empty() || p.starts_with('/') {
            Ok(p.to_string())
        } else {
            Err(PartError::NotAPointer(p.to_string()))
        }
    };
    let bracketed = |prefix: &str| -> Option<Result<(String, String), PartError>> {
        let rest = text.strip_prefix(prefix)?.strip_prefix('[')?;
        Some(match rest.split_once(']') {
            Some(("", _)) => Err(PartError::NoMethod(prefix.to_string())),
            Some((inner, tail)) => pointer(tail).map(|at| (inner.to_string(), at)),
            None => Err(PartError::Unclosed(prefix.to_string())),
        })
    };
    Ok(match text {
        "reply" => Part::Reply,
        "status" => Part::Status,
        "session-issued" => Part::SessionIssued,
        "progress-ok" => Part::ProgressOk,
        "content-digest" => Part::ContentDigest,
        "content-size" => Part::ContentSize,
        t if t.starts_with("frontmatter") => Part::Frontmatter(pointer(&t[11..])?),
        t if t.starts_with('/') || t.is_empty() => Part::Body(t.to_string()),
        t if t.starts_with("sent") => Part::Sent(pointer(&t[4..])?),
        t if t.starts_with("header.") && t.len() > 7 => Part::Header(t[7..].to_ascii_lowercase()),
        t if t.starts_with("challenge.") && t.len() > 10 => {
            Part::Challenge(t[10..].to_ascii_lowercase())
        }
        _ => {
            if let Some(found) = bracketed("notified") {
                let (method, at) = found?;
                Part::Notified { method, at }
            } else if let Some(found) = bracketed("requested") {
                let (method, at) = found?;
                Part::Requested { method, at }
            } else if let Some(found) = bracketed("event-id") {
                let (n, tail) = found?;
                if !tail.is_empty() {
                    return Err(PartError::EventIdPointer);
                }
                Part::EventId(n.parse().map_err(|_| PartError::EventIndex(n))?)
            } else if text.contains('/') {
                return Err(PartError::SlashMissing);
            } else {
                return Err(PartError::Unknown);
            }
        }
    })
}

/// Reads a condition table (`when`, `poll.until`): each key a query, each value a predicate.
pub(crate) fn resolve_cond(
    source: &Source,
    span: Range<usize>,
    table: toml::Table,
    steps: Option<&HashSet<String>>,
) -> Result<Cond, LoadError> {
    let mut parts = Vec::new();
    for (key, value) in table {
        let error = |e: String| source.error(Some(span.clone()), e);
        if matches!(key.as_str(), "step" | "header") && value.is_table() {
            return Err(error(format!(
                "`{key}.…`: a query with dots is written in quotes, e.g. `\"{key}.{}\" = …` (bare, TOML reads it as nested tables)",
                if key == "step" { "NAME.status" } else { "content-type" }
            )));
        }
        let query = parse_query(&key, steps).map_err(|e| error(e.to_string()))?;
        let pred =
            resolve_pred(value, source.compile).map_err(|e| error(format!("`{key}`: {e}")))?;
        if let Some((what, known)) = closed_vocabulary(&query) {
            for named in named_values(&pred) {
                if !named.as_str().is_some_and(|n| known.contains(&n)) {
                    let named = named.as_str().map_or(named.to_string(), str::to_string);
                    return Err(error(format!(
                        "`{key}`: unknown {what} `{named}`; use {}",
                        known.join(", ")
                    )));
                }
            }
        }
        parts.push((query, pred));
    }
    Ok(Cond(parts))
}

/// The values a query can have at all, where there are few: a value outside them is a typo.
fn closed_vocabulary(query: &Query) -> Option<(&'static str, &'static [&'static str])> {
    match query {
        Query::Step {
            part: Part::Reply, ..
        } => Some((
            "reply kind",
            &[
                "result", "error", "response", "none", "ended", "rejected", "closed",
            ],
        )),
        Query::Transport => Some(("transport", &["stdio", "http", "sse"])),
        _ => None,
    }
}

/// The values a predicate names for equality.
fn named_values(pred: &Pred) -> Vec<&serde_json::Value> {
    pred.0
        .iter()
        .flat_map(|test| match test {
            Test::Equals(v) | Test::NotEquals(v) => vec![v],
            Test::OneOf(vs) => vs.iter().collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Reads a predicate: a table of tests, or a plain value that it must equal.
fn resolve_pred(value: toml::Value, compile: Compile) -> Result<Pred, String> {
    let file: PredFile = match value {
        toml::Value::Table(table) => toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| e.message().trim_end().to_string())?,
        plain => PredFile {
            equals: Some(
                plain
                    .try_into()
                    .map_err(|e: toml::de::Error| e.message().to_string())?,
            ),
            ..PredFile::default()
        },
    };
    let mut tests = Vec::new();
    if let Some(v) = file.equals {
        tests.push(Test::Equals(v));
    }
    if let Some(v) = file.not_equals {
        tests.push(Test::NotEquals(v));
    }
    if let Some(v) = file.one_of {
        tests.push(Test::OneOf(v));
    }
    if let Some(kind) = &file.kind {
        tests.push(Test::Type(match kind.as_str() {
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "null" => JsonType::Null,
            other => {
                return Err(format!(
                "unknown type `{other}`; use string, number, integer, boolean, object, array or null (and `exists` for presence)"
            ))
            }
        }));
    }
    if let Some(want) = file.exists {
        tests.push(Test::Exists(want));
    }
    if let Some(n) = file.length {
        tests.push(Test::Length(n));
    }
    if let Some(v) = file.contains {
        tests.push(Test::Contains(v));
    }
    if let Some(pattern) = file.matches {
        let regex = Compiled::<regex::Regex>::new(pattern);
        if compile == Compile::Now {
            regex.compiled()?;
        }
        tests.push(Test::Matches(Arc::new(regex)));
    }
    if let Some(prefix) = file.starts_with {
        tests.push(Test::StartsWith(serde_json::Value::from(prefix)));
    }
    if let Some(suffix) = file.ends_with {
        tests.push(Test::EndsWith(serde_json::Value::from(suffix)));
    }
    if let Some(window) = &file.within {
        tests.push(Test::Within(VersionRange::parse(window)?));
    }
    if let Some(schema) = file.schema {
        let schema = Compiled::<jsonschema::Validator>::new(schema);
        if compile == Compile::Now {
            schema.compiled()?;
        }
        tests.push(Test::Schema(Arc::new(schema)));
    }
    if let Some(placeholder) = file.schema_from {
        tests.push(Test::SchemaFrom(placeholder));
    }
    if tests.is_empty() {
        return Err("the predicate tests nothing: give `equals`, `not_equals`, `one_of`, `type`, `exists`, `length`, `contains`, `matches`, `starts_with`, `ends_with`, `within`, `schema` or `schema_from`".into());
    }
    Ok(Pred(tests))
}

/// A plain value, as the equality shorthand keeps it.
#[cfg(test)]
fn equals_of(pred: &Pred) -> Option<&serde_json::Value> {
    match pred.0.as_slice() {
        [Test::Equals(v)] => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of forms is the parser's: each example parses and matches its form's pattern
    /// (the scenario schema's), a text of no form matches none, and the README's table of
    /// queries documents every form.
    #[test]
    fn every_query_form_parses_is_in_the_schema_and_is_documented() {
        let steps: HashSet<String> = ["first".to_string()].into();
        let readme = include_str!("../../../README.md");
        let table = readme
            .split_once("A query is one of:\n\n")
            .and_then(|(_, rest)| rest.split_once("\n\n"))
            .map(|(table, _)| table)
            .expect("the README's table of queries");
        for form in QUERY_FORMS {
            parse_query(form.example, Some(&steps))
                .unwrap_or_else(|e| panic!("{}: {e}", form.example));
            let pattern = regex::Regex::new(&format!("^({})$", form.pattern)).unwrap();
            assert!(pattern.is_match(form.example), "{}", form.form);
            assert!(
                table.contains(&format!("`{}`", form.form)),
                "the README's table of queries lacks `{}`",
                form.form
            );
        }
        let any = |text: &str| {
            QUERY_FORMS.iter().any(|f| {
                regex::Regex::new(&format!("^({})$", f.pattern))
                    .unwrap()
                    .is_match(text)
            })
        };
        for typo in ["replies", "header.", "event-id[x]", "status/x"] {
            assert!(parse_query(typo, Some(&steps)).is_err(), "{typo}");
            assert!(!any(typo), "{typo}");
        }
    }

    #[test]
    fn queries_parse_and_typos_are_errors() {
        let steps: HashSet<String> = ["delete".to_string()].into();
        let steps = Some(&steps);
        assert_eq!(
            parse_query("step.delete.status", steps).unwrap(),
            Query::Step {
                step: Some("delete".into()),
                part: Part::Status
            }
        );
        assert_eq!(
            parse_query("step.delete/result/x", steps).unwrap(),
            Query::Step {
                step: Some("delete".into()),
                part: Part::Body("/result/x".into())
            }
        );
        assert_eq!(
            parse_query("notified[notifications/progress]/params/progress", steps).unwrap(),
            Query::Step {
                step: None,
                part: Part::Notified {
                    method: "notifications/progress".into(),
                    at: "/params/progress".into()
                }
            }
        );
        assert_eq!(
            parse_query("header.Content-Type", steps).unwrap(),
            Query::Step {
                step: None,
                part: Part::Header("content-type".into())
            }
        );
        assert_eq!(parse_query("offered", None).unwrap(), Query::Offered);
        for bad in [
            "replly",
            "step.nope.status",
            "notified[]",
            "notified[x",
            "event-id[x]",
            "sentx",
        ] {
            assert!(parse_query(bad, steps).is_err(), "{bad}");
        }
        assert!(parse_query("step.delete.status", None).is_err());
    }

    #[test]
    fn a_plain_value_is_equality_and_an_empty_table_an_error() {
        let pred = resolve_pred(toml::Value::from(3), Compile::Now).unwrap();
        assert_eq!(equals_of(&pred), Some(&serde_json::Value::from(3)));
        assert!(resolve_pred(toml::Value::Table(toml::Table::new()), Compile::Now).is_err());
        let mut typo = toml::Table::new();
        typo.insert("one_off".into(), toml::Value::from(1));
        assert!(resolve_pred(toml::Value::Table(typo), Compile::Now)
            .unwrap_err()
            .contains("one_off"));
    }
}
