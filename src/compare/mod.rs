//! `mcpcheck compare`: the same suite against several servers at once, and a servers × checks
//! matrix of the verdicts — rows where the servers disagree first, each cell with what was
//! observed (the error code or HTTP status) and the exchange behind it.

pub mod render;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::record::evidence::Replied;
use crate::record::version::Era;
use crate::record::Evidence;
use crate::record::{Level, Status};
use crate::report::{CheckResult, Report};
use crate::run::{self, RunConfig};

/// One server to compare: a name and what `run` needs.
#[derive(Clone, Debug)]
pub struct Entry {
    /// A short name for columns.
    pub name: String,
    /// The run configuration for this server.
    pub config: RunConfig,
}

/// The comparison.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Matrix {
    /// The report format's version.
    pub schema_version: u32,
    /// The servers, in column order.
    pub servers: Vec<Column>,
    /// One row per check, disagreements first.
    pub rows: Vec<Row>,
    /// Every server's full report, in column order.
    pub reports: Vec<Report>,
}

/// A server's column.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Column {
    /// Its name.
    pub name: String,
    /// stdio command or URL.
    pub target: String,
    /// The negotiated protocol version.
    pub version: Option<String>,
    /// serverInfo name and version.
    pub server: Option<String>,
    /// Set when the server could not be tested.
    pub fatal: Option<String>,
    /// Passed checks over judged ones (pass + fail + warn), in percent.
    pub score: f64,
    /// Counts.
    pub pass: usize,
    /// Failures.
    pub fail: usize,
    /// Warnings.
    pub warn: usize,
}

/// A check's row.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The check id (`id@2026-07-28` for a dual-era server's stateless result, see `row_key`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its spec area (`jsonrpc`, `tools`, …): rows are grouped by it.
    #[serde(default)]
    pub area: String,
    /// Its level.
    pub level: Level,
    /// Its first spec link.
    pub spec: Option<String>,
    /// Whether the servers' verdicts differ.
    pub disagree: bool,
    /// One cell per server, in column order.
    pub cells: Vec<Cell>,
}

/// One server's verdict on one check.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    /// The verdict (absent when the check did not run for this server).
    pub status: Option<Status>,
    /// What was observed, in a few characters: `-32602`, `HTTP 404`, `result`, `none`.
    pub observed: Option<String>,
    /// The verdict's message.
    pub message: Option<String>,
    /// A remark that did not change the verdict (a pass with a note: a tolerated legacy
    /// behaviour, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The exchange behind it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

impl Row {
    /// Whether the check applied to none of the servers (every cell not applicable or absent).
    pub fn applies_nowhere(&self) -> bool {
        self.cells
            .iter()
            .all(|c| matches!(c.status, None | Some(Status::Skip)))
    }
}

impl Cell {
    /// Whether the cell passed with a note worth showing.
    pub fn noted_pass(&self) -> bool {
        self.status == Some(Status::Pass) && self.note.is_some()
    }
}

impl Matrix {
    /// The matrix with `f` applied to every string that can hold server text (see
    /// [`crate::report::safe`]).
    pub fn map_text(&self, f: &dyn Fn(&str) -> std::borrow::Cow<'_, str>) -> Matrix {
        let mut matrix = self.clone();
        let apply = |s: &mut String| *s = f(s).into_owned();
        for server in &mut matrix.servers {
            apply(&mut server.name);
            apply(&mut server.target);
            for field in [&mut server.version, &mut server.server, &mut server.fatal] {
                field.iter_mut().for_each(apply);
            }
        }
        for row in &mut matrix.rows {
            apply(&mut row.title);
            for cell in &mut row.cells {
                cell.observed.iter_mut().for_each(apply);
                cell.message.iter_mut().for_each(apply);
                cell.note.iter_mut().for_each(apply);
                for evidence in &mut cell.evidence {
                    crate::report::safe::map_evidence(evidence, f);
                }
            }
        }
        matrix.reports = matrix
            .reports
            .iter()
            .map(|r| crate::report::safe::map_report(r, f))
            .collect();
        matrix
    }
}

/// Runs every entry (at most `jobs` at once); returns the reports in entry order.
pub async fn run_all(entries: Vec<Entry>, jobs: usize) -> Vec<Report> {
    let semaphore = Arc::new(Semaphore::new(jobs.max(1)));
    let mut tasks = Vec::new();
    for entry in entries {
        let semaphore = semaphore.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = semaphore.acquire_owned().await.expect("semaphore open");
            crate::report::Report::assemble(run::run(entry.config).await)
        }));
    }
    let mut reports = Vec::new();
    for task in tasks {
        reports.push(task.await.expect("a compare run does not panic"));
    }
    reports
}

/// The exit code of a comparison, as `run`'s for one server: 3 when a server could not be
/// tested at all, else 1 when one failed a check, else 4 when checks of one could not be carried
/// out, else 0.
pub fn exit_code(reports: &[Report]) -> u8 {
    use crate::exit;
    let codes: Vec<u8> = reports.iter().map(Report::exit_code).collect();
    [exit::UNTESTABLE, exit::FAILURES, exit::HARNESS_ERRORS]
        .into_iter()
        .find(|code| codes.contains(code))
        .unwrap_or(exit::SUCCESS)
}

/// What a check observed, in a few characters, from the first piece of its judged evidence that
/// sent something.
pub fn observed<'a>(evidence: impl Iterator<Item = &'a Evidence>) -> Option<String> {
    observed_for(evidence, None)
}

/// What a check observed, from the piece of its judged evidence its verdict rests on: of several
/// exchanges (a check over steps), the one whose answer the verdict's `actual` describes (the
/// worst one's), else the first that sent something.
pub fn observed_for<'a>(
    evidence: impl Iterator<Item = &'a Evidence>,
    actual: Option<&str>,
) -> Option<String> {
    let labels: Vec<String> = evidence
        .filter(|e| e.sent.is_some())
        .map(observed_in)
        .collect();
    let described = |label: &&String| {
        actual.is_some_and(|actual| {
            label
                .split(' ')
                .next_back()
                .is_some_and(|what| what.starts_with('-') && actual.contains(what))
        })
    };
    labels
        .iter()
        .find(described)
        .or_else(|| labels.first())
        .cloned()
}

/// What one piece of evidence observed, in a few characters.
fn observed_in(first: &Evidence) -> String {
    let http = first.http_status.map(|s| format!("HTTP {s} "));
    let message = first
        .received
        .as_deref()
        .and_then(|r| serde_json::from_str::<Value>(r).ok());
    let what = match message {
        Some(m) if m.get("error").is_some_and(|e| !e.is_null()) => m
            .pointer("/error/code")
            .map(|c| c.to_string())
            .unwrap_or_else(|| "error".into()),
        Some(m) if m.get("result").is_some() => {
            if m.pointer("/result/isError") == Some(&Value::Bool(true)) {
                "isError".into()
            } else {
                "result".into()
            }
        }
        Some(_) => "response".into(),
        // Evidence is capped: a long error message may have been cut, but its code came first.
        None => match first.received.as_deref().and_then(error_code_prefix) {
            Some(code) => code,
            // A cut response whose result came before its id is still a result.
            None if first
                .received
                .as_deref()
                .is_some_and(|r| r.starts_with('{') && r.contains("\"result\":")) =>
            {
                "result".into()
            }
            None if first.received.is_some() => "body".into(),
            None => match first.reply {
                Some(Replied::Nothing) => "none".into(),
                Some(Replied::Closed) => "closed".into(),
                _ => String::new(),
            },
        },
    };
    format!("{}{what}", http.unwrap_or_default())
        .trim()
        .to_string()
}

/// The error code of a (possibly cut) JSON-RPC error response's text, e.g. `-32603`.
fn error_code_prefix(text: &str) -> Option<String> {
    let at = text.find("\"error\":{\"code\":")? + "\"error\":{\"code\":".len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| *c == '-' || c.is_ascii_digit())
        .collect();
    digits.parse::<i64>().ok().map(|c| c.to_string())
}

/// The row a result goes in: its check's, except that a check a server was judged on in both
/// eras has its 2026-07-28 result in a row of its own (`id@2026-07-28`), so that its handshake
/// result sits beside the other servers' handshake results.
fn row_key(check: &CheckResult) -> String {
    match &check.version {
        Some(version) if check.per_era && Era::of(version) == Some(Era::Stateless) => check.name(),
        _ => check.id.clone(),
    }
}

/// Builds the matrix from named reports.
pub fn build(names: Vec<String>, reports: Vec<Report>) -> Matrix {
    let servers = names
        .iter()
        .zip(&reports)
        .map(|(name, r)| {
            let judged = r.summary.pass + r.summary.fail + r.summary.warn;
            Column {
                name: name.clone(),
                // The command that starts the server (a served HTTP server's too: it says
                // which server the column is), quoted as a shell reads it; else the URL.
                target: match (&r.target.command, &r.target.url) {
                    (Some(command), _) => crate::report::command_line(command),
                    (None, Some(url)) => url.clone(),
                    _ => r.target.transport.to_string(),
                },
                version: r.protocol.version.as_ref().map(|_| r.versions_label()),
                server: r.protocol.server_info.as_ref().map(|i| {
                    format!(
                        "{} {}",
                        i.get("name").and_then(Value::as_str).unwrap_or("?"),
                        i.get("version").and_then(Value::as_str).unwrap_or("")
                    )
                    .trim()
                    .to_string()
                }),
                fatal: r.fatal.clone(),
                score: if judged == 0 {
                    0.0
                } else {
                    (r.summary.pass as f64 * 1000.0 / judged as f64).round() / 10.0
                },
                pass: r.summary.pass,
                fail: r.summary.fail,
                warn: r.summary.warn,
            }
        })
        .collect();
    let mut order: Vec<String> = Vec::new();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    for (column, report) in reports.iter().enumerate() {
        for check in &report.checks {
            let key = row_key(check);
            let row = rows.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                Row {
                    id: key.clone(),
                    title: check.title.clone(),
                    area: check.area.clone(),
                    level: check.level,
                    spec: check.spec.first().map(|s| s.url.clone()),
                    disagree: false,
                    cells: vec![
                        Cell {
                            status: None,
                            observed: None,
                            message: None,
                            note: None,
                            evidence: Vec::new()
                        };
                        reports.len()
                    ],
                }
            });
            row.cells[column] = Cell {
                status: Some(check.status),
                observed: observed_for(check.judged_evidence(), check.actual.as_deref()),
                message: Some(check.message.clone()),
                note: check.note.clone(),
                evidence: check.judged_evidence().take(3).cloned().collect(),
            };
        }
    }
    let mut rows: Vec<Row> = order.iter().filter_map(|id| rows.remove(id)).collect();
    // A server that could not be tested agrees with nobody: every check another server was
    // judged on is a disagreement.
    let untested = reports.iter().any(|r| r.fatal.is_some());
    for row in &mut rows {
        // Not applicable (the other transport, an undeclared capability) is no disagreement.
        let judged: Vec<Status> = row
            .cells
            .iter()
            .filter_map(|c| c.status)
            .filter(|s| *s != Status::Skip)
            .collect();
        row.disagree = judged.windows(2).any(|w| w[0] != w[1]) || (untested && !judged.is_empty());
    }
    // Disagreements first, then the rest; rows that applied to no server last; within each
    // group by area, then the worst verdict first, then by id.
    rows.sort_by_key(|r| {
        (
            !r.disagree,
            r.applies_nowhere(),
            r.area.clone(),
            r.cells.iter().filter_map(|c| c.status).min(),
            r.id.clone(),
        )
    });
    Matrix {
        schema_version: 1,
        servers,
        rows,
        reports,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_error_response_still_shows_its_code() {
        let cut = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"ValidationError: 31 valid"#;
        assert_eq!(error_code_prefix(cut).as_deref(), Some("-32603"));
        assert_eq!(error_code_prefix("plain text body"), None);
        let evidence = Evidence {
            sent: Some("{}".into()),
            received: Some(cut.into()),
            ..Evidence::default()
        };
        assert_eq!(
            observed([evidence.clone()].iter()).as_deref(),
            Some("-32603")
        );
        // Of a check over two steps, the exchange its verdict describes.
        let passed = Evidence {
            sent: Some("{}".into()),
            received: Some(
                r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"no"}}"#.into(),
            ),
            ..Evidence::default()
        };
        let both = [passed, evidence];
        assert_eq!(
            observed_for(both.iter(), Some("error -32603 \"ValidationError\"")).as_deref(),
            Some("-32603")
        );
        assert_eq!(observed_for(both.iter(), None).as_deref(), Some("-32601"));
        // A result cut before its id (a server that writes `result` first) is still a result.
        let cut_result = Evidence {
            sent: Some("{}".into()),
            received: Some(r#"{"result":{"tools":[{"name":"a very long"#.into()),
            ..Evidence::default()
        };
        assert_eq!(observed([cut_result].iter()).as_deref(), Some("result"));
    }

    #[test]
    fn a_check_judged_in_both_eras_has_its_stateless_result_in_a_row_of_its_own() {
        let check = |version: &str, per_era: bool| {
            let def = crate::check::wire::definitions()[0].clone();
            let mut result = CheckResult::new(
                &def,
                crate::record::Verdict::new(Status::Pass, String::new()),
                Vec::new(),
            );
            result.version = Some(version.into());
            result.per_era = per_era;
            result
        };
        let id = crate::check::wire::definitions()[0].id.clone();
        assert_eq!(row_key(&check("2025-11-25", true)), id);
        assert_eq!(
            row_key(&check("2026-07-28", true)),
            format!("{id}@2026-07-28")
        );
        assert_eq!(row_key(&check("2026-07-28", false)), id);
    }
}
