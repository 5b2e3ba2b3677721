//! SARIF 2.1.0, for GitHub code scanning and the other tools that read static-analysis results:
//! one rule per check the run judged, one result per failed or warned check (a failure is an
//! `error`, a warning a `warning`), each with its rule id, message, the requirement it cites and
//! where the check is defined. A check of mcpcheck's own library points into mcpcheck's
//! repository at this version (`uriBaseId` `MCPCHECK`); a scenario file of the user's is a path
//! of the repository being scanned. A failure a baseline expects is reported suppressed.

use serde_json::{json, Map, Value};

use super::grade::Mark;
use super::{safe, CheckResult, Report};
use crate::record::Status;

/// Where mcpcheck's own files are published, for the locations of its library's checks.
const HOME: &str = "https://github.com/mcpcheck/mcpcheck";

/// The schema a SARIF file names.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Renders the report as a SARIF 2.1.0 log (pretty JSON, ending in a newline).
pub fn render(report: &Report) -> String {
    // Server text has its control characters written out first, as in every other report.
    let report = &safe::map_report(report, &safe::visible);
    let marks = report.marks();
    let judged: Vec<&CheckResult> = report
        .checks
        .iter()
        .filter(|c| c.status != Status::Skip)
        .collect();
    // One rule per check id (a check judged in two eras has two results and one rule).
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_index: Map<String, Value> = Map::new();
    for check in &judged {
        if rule_index.contains_key(&check.id) {
            continue;
        }
        rule_index.insert(check.id.clone(), json!(rules.len()));
        rules.push(rule(check));
    }
    let results: Vec<Value> = judged
        .iter()
        .filter(|c| matches!(c.status, Status::Fail | Status::Warn))
        .map(|check| {
            let mark = super::grade::mark_of(&marks, &check.name());
            result(check, rule_index[&check.id].clone(), mark)
        })
        .collect();
    let mut invocation = json!({ "executionSuccessful": report.fatal.is_none() });
    if let Some(fatal) = &report.fatal {
        invocation["toolExecutionNotifications"] = json!([{
            "level": "error",
            "message": { "text": text(&format!("the server could not be tested: {fatal}")) },
        }]);
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcpcheck",
                "version": report.mcpcheck_version,
                "semanticVersion": report.mcpcheck_version,
                "informationUri": HOME,
                "rules": rules,
            }},
            "originalUriBaseIds": {
                "MCPCHECK": {
                    "uri": format!("{HOME}/blob/v{}/", report.mcpcheck_version),
                    "description": { "text": "mcpcheck's repository, at the version that ran" },
                },
            },
            "invocations": [invocation],
            "results": results,
            "properties": {
                "target": report.target.label(),
                "verdict": report.verdict_line(),
            },
        }],
    });
    serde_json::to_string_pretty(&log).expect("a JSON value") + "\n"
}

/// A check as a rule: its id, title, the requirement's level and where the spec states it.
fn rule(check: &CheckResult) -> Value {
    let level = format!("{}{}", check.level, if check.derived { "*" } else { "" });
    let mut rule = json!({
        "id": check.id,
        "shortDescription": { "text": text(&check.title) },
        "fullDescription": { "text": text(&format!("{} ({level}): {}", check.title, check.expected)) },
        "defaultConfiguration": { "level": default_level(check) },
        "properties": {
            "tags": ["mcp", check.area.as_str()],
            "requirement": level,
        },
    });
    if let Some(spec) = check.spec.first() {
        rule["helpUri"] = json!(spec.url);
        rule["help"] = json!({
            "text": text(&format!("{} {}: {}", spec.version, spec.section, spec.url)),
        });
    }
    rule
}

/// A MUST is an error when broken, anything weaker a warning.
fn default_level(check: &CheckResult) -> &'static str {
    match check.level {
        crate::record::Level::Must if !check.derived => "error",
        _ => "warning",
    }
}

/// One failed or warned check.
fn result(check: &CheckResult, rule_index: Value, mark: Mark) -> Value {
    let level = match check.status {
        Status::Fail => "error",
        _ => "warning",
    };
    let mut message = format!("{}: {}", check.title, check.message);
    message.push_str(&format!("\nexpected: {}", check.expected));
    if let Some(actual) = &check.actual {
        message.push_str(&format!("\nactual: {actual}"));
    }
    if let Some(note) = &check.note {
        message.push_str(&format!("\nnote: {note}"));
    }
    if let Some(version) = &check.version {
        message.push_str(&format!("\njudged at MCP {version}"));
    }
    let mut result = json!({
        "ruleId": check.id,
        "ruleIndex": rule_index,
        "level": level,
        "message": { "text": text(&message) },
        "locations": [location(&check.source)],
        "partialFingerprints": {
            // Stable across runs and commands (a new server version, a flag): the check and the
            // protocol version it was judged at.
            "mcpcheck/v1": format!("{}|{}", check.id, check.version.as_deref().unwrap_or("")),
        },
        "properties": {
            "status": check.status.as_str(),
            "requirement": format!("{}{}", check.level, if check.derived { "*" } else { "" }),
        },
    });
    if let Some(version) = &check.version {
        result["properties"]["version"] = json!(version);
    }
    if mark == Mark::Expected {
        result["suppressions"] = json!([{
            "kind": "external",
            "justification": "listed in the baseline",
        }]);
    }
    result
}

/// Where a check is defined: `FILE:LINE` of a scenario (mcpcheck's library, or the user's own),
/// or mcpcheck's code for a built-in check.
fn location(source: &str) -> Value {
    let (file, line) = match source.rsplit_once(':') {
        Some((file, line)) if line.parse::<u64>().is_ok() => (file, line.parse::<u64>().ok()),
        _ => (source, None),
    };
    let library = crate::scenario::load::library_files()
        .iter()
        .any(|(name, _)| *name == file);
    let artifact = if library {
        json!({ "uri": file, "uriBaseId": "MCPCHECK" })
    } else if file == "built-in" {
        json!({ "uri": "src/check/wire/", "uriBaseId": "MCPCHECK" })
    } else {
        json!({ "uri": file.trim_start_matches("./") })
    };
    let mut physical = json!({ "artifactLocation": artifact });
    if let Some(line) = line {
        physical["region"] = json!({ "startLine": line });
    }
    json!({ "physicalLocation": physical })
}

/// Text for a SARIF message: its embedded-link brackets escaped, so that what a server sent can
/// never become a link.
fn text(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len());
    for c in plain.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_are_escaped_so_no_server_text_becomes_a_link() {
        assert_eq!(text("see [here](1) \\ ok"), "see \\[here\\](1) \\\\ ok");
    }

    #[test]
    fn a_library_scenario_points_into_mcpcheck_and_a_user_one_into_the_repository() {
        let (name, _) = crate::scenario::load::library_files()[0];
        let library = location(&format!("{name}:14"));
        assert_eq!(
            library["physicalLocation"]["artifactLocation"]["uriBaseId"],
            "MCPCHECK"
        );
        assert_eq!(library["physicalLocation"]["region"]["startLine"], 14);
        let own = location("./conformance/my-check.toml:3");
        assert_eq!(
            own["physicalLocation"]["artifactLocation"],
            json!({ "uri": "conformance/my-check.toml" })
        );
    }
}
