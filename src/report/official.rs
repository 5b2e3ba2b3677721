//! The official conformance suite's per-check `checks.json` shape (`--official-json DIR`), for
//! tools that already read it: an array of `{id, name, description, status, timestamp,
//! specReferences, details, errorMessage}` with statuses SUCCESS, FAILURE, WARNING, SKIPPED, INFO.

use serde_json::{json, Value};

use super::Report;
use crate::record::Status;

/// Renders the checks in the official suite's shape.
pub fn render(report: &Report) -> String {
    let checks: Vec<Value> = report
        .checks
        .iter()
        .map(|check| {
            let status = match check.status {
                Status::Pass => "SUCCESS",
                Status::Fail | Status::Error => "FAILURE",
                Status::Warn => "WARNING",
                Status::Skip => "SKIPPED",
                Status::NotTestable | Status::Info => "INFO",
            };
            let mut entry = json!({
                "id": check.name(),
                "name": check.name().replacen(&check.id, &pascal(&check.id), 1),
                "description": format!("{} ({})", check.title, check.level),
                "status": status,
                "timestamp": report.started_at,
                "specReferences": check.spec.iter().map(|s| json!({"id": format!("{} {}", s.version, s.section), "url": s.url})).collect::<Vec<_>>(),
                "details": {
                    "mcpcheckStatus": check.status,
                    "expected": check.expected,
                    "actual": check.actual,
                    "evidence": check.evidence,
                },
            });
            if matches!(check.status, Status::Fail | Status::Warn | Status::Error | Status::NotTestable) {
                let prefix = match check.status {
                    Status::NotTestable => "Not testable: ",
                    Status::Error => "Harness error: ",
                    Status::Fail | Status::Warn | Status::Info | Status::Skip | Status::Pass => "",
                };
                entry["errorMessage"] = json!(format!("{prefix}{}", check.message));
            }
            if check.status == Status::NotTestable {
                entry["details"]["untestable"] = json!(true);
            }
            entry
        })
        .collect();
    serde_json::to_string_pretty(&checks).expect("serializable") + "\n"
}

fn pascal(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}
