//! The terminal rendering: a header, one table per area (worst areas and worst checks first),
//! each problem with expected, actual and the spec link, and a one-sentence verdict.

use std::collections::BTreeMap;

use comfy_table::{Cell, Color, ContentArrangement, Table};

use super::{CheckResult, Report};
use crate::check::Status;

/// Renders the report for a terminal; `color` turns on ANSI colours, `width` sets the table width.
pub fn render(report: &Report, color: bool, width: u16) -> String {
    let mut out = String::new();
    let target = match (&report.target.command, &report.target.url) {
        (Some(command), _) => format!("stdio: {}", command.join(" ")),
        (_, Some(url)) => format!("http: {url}"),
        _ => report.target.transport.clone(),
    };
    out.push_str(&format!("mcpcheck {} · {target}\n", report.mcpcheck_version));
    let server = report
        .protocol
        .server_info
        .as_ref()
        .map(|i| format!("{} {}", i.get("name").and_then(|v| v.as_str()).unwrap_or("?"), i.get("version").and_then(|v| v.as_str()).unwrap_or("")))
        .unwrap_or_else(|| "unknown server".into());
    out.push_str(&format!(
        "server: {} · protocol {} ({} era) · {}\n\n",
        server.trim_end(),
        report.protocol.version.as_deref().unwrap_or("-"),
        report.protocol.era.as_deref().unwrap_or("unknown"),
        report.protocol.detection
    ));
    let mut areas: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for check in &report.checks {
        areas.entry(check.area.as_str()).or_default().push(check);
    }
    let mut areas: Vec<(&str, Vec<&CheckResult>)> = areas.into_iter().collect();
    for (_, checks) in &mut areas {
        checks.sort_by(|a, b| a.status.cmp(&b.status).then(a.id.cmp(&b.id)));
    }
    areas.sort_by_key(|(name, checks)| (checks.first().map(|c| c.status), *name));
    for (area, checks) in areas {
        out.push_str(&format!("{area}\n"));
        let mut table = Table::new();
        table.load_style(comfy_table::presets::UTF8_BORDERS_ONLY);
        table.set_content_arrangement(ContentArrangement::Dynamic);
        table.set_width(width);
        if color {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        for check in checks {
            let mut status = Cell::new(check.status.as_str());
            if color {
                status = status.fg(colour(check.status));
            }
            table.add_row(vec![status, Cell::new(&check.id), Cell::new(check.level.to_string()), Cell::new(detail(check))]);
        }
        out.push_str(&table.to_string());
        out.push_str("\n\n");
    }
    if let Some(fatal) = &report.fatal {
        out.push_str(&format!("error: {fatal}\n"));
    }
    if let Some(server) = &report.server {
        if report.fatal.is_some() && !server.stderr_tail.trim().is_empty() {
            out.push_str(&format!("server stderr (tail):\n{}\n", server.stderr_tail.trim_end()));
        }
    }
    out.push_str(&format!("{} ({} checks, {} ms)\n", report.verdict_line(), report.summary.total, report.duration_ms));
    out
}

fn colour(status: Status) -> Color {
    match status {
        Status::Pass => Color::Green,
        Status::Fail | Status::Error => Color::Red,
        Status::Warn => Color::Yellow,
        Status::NotTestable | Status::Info => Color::Cyan,
        Status::Skip => Color::DarkGrey,
    }
}

fn detail(check: &CheckResult) -> String {
    match check.status {
        Status::Pass | Status::Info => {
            let mut text = check.title.clone();
            if let Some(note) = &check.note {
                text.push_str(&format!("\nnote: {note}"));
            }
            text
        }
        Status::Skip => format!("{}\nskipped: {}", check.title, check.message),
        Status::Fail | Status::Warn | Status::Error | Status::NotTestable => {
            let mut text = format!("{}\n{}", check.title, check.message);
            if let Some(actual) = &check.actual {
                text.push_str(&format!("\nactual: {actual}"));
            }
            if let Some(note) = &check.note {
                text.push_str(&format!("\nnote: {note}"));
            }
            if let Some(spec) = check.spec.first() {
                text.push_str(&format!("\n{}", spec.url));
            }
            text
        }
    }
}
