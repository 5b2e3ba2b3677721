//! A shields.io endpoint badge (`--badge FILE`): `{"schemaVersion": 1, "label", "message", "color"}`.

use serde_json::json;

use super::Report;

/// Renders the badge JSON.
pub fn render(report: &Report) -> String {
    let s = &report.summary;
    let failing = report.exit_code() == crate::exit::FAILURES;
    let (message, color) = if report.fatal.is_some() {
        ("untestable".to_string(), "lightgrey")
    } else if failing {
        (format!("{} failed", s.fail.max(1)), "red")
    } else if s.warn > 0 {
        (
            format!(
                "{}/{} passed, {}",
                s.pass,
                s.pass + s.fail + s.warn,
                super::counted(s.warn, "warning", "warnings")
            ),
            "yellow",
        )
    } else {
        (
            format!("{}/{} passed", s.pass, s.pass + s.fail + s.warn),
            "brightgreen",
        )
    };
    let label = match &report.protocol.version {
        Some(version) => format!("MCP {version}"),
        None => "MCP conformance".to_string(),
    };
    serde_json::to_string_pretty(
        &json!({"schemaVersion": 1, "label": label, "message": message, "color": color}),
    )
    .expect("serializable")
        + "\n"
}
