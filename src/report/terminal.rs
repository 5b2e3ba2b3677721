//! The terminal rendering: a header; one compact table per area (worst areas and worst checks
//! first); then every problem in full — message, expected, actual, spec link, source and the
//! exchange — so that nobody needs to rerun with more verbosity; and a one-sentence verdict.
//! Server text never reaches the terminal raw (see [`safe`]).

use std::collections::BTreeMap;

use comfy_table::{Cell, Color, ContentArrangement, Table};

use super::{safe, CheckResult, Report};
use crate::check::Status;

/// Renders the report for a terminal; `color` turns on ANSI colours, `width` bounds the tables.
/// Every string that can hold server text has its control characters written out first
/// ([`safe::terminal`]): the only escape sequences in the output are mcpcheck's own colours.
pub fn render(report: &Report, color: bool, width: u16) -> String {
    let mut shown = safe::map_report(report, &safe::terminal);
    // The stderr tail keeps its lines, each indented below.
    if let (Some(shown), Some(raw)) = (&mut shown.server, &report.server) {
        shown.stderr_tail = safe::visible(&raw.stderr_tail).into_owned();
    }
    let report = &shown;
    let mut out = String::new();
    let target = report.target_label();
    out.push_str(&format!(
        "mcpcheck {} · {target}\n",
        report.mcpcheck_version
    ));
    let server = report.server_label();
    out.push_str(&format!(
        "server: {} · protocol {} ({} era)\n\n",
        server.trim_end(),
        report.protocol.version.as_deref().unwrap_or("-"),
        report.protocol.era.as_deref().unwrap_or("unknown"),
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
    for (area, checks) in &areas {
        out.push_str(&format!("{area}\n"));
        let mut table = Table::new();
        table.load_style(comfy_table::presets::NOTHING);
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
            let summary = match check.status {
                Status::Skip => format!("{} (skipped: {})", check.title, check.message),
                Status::Fail
                | Status::Error
                | Status::Warn
                | Status::NotTestable
                | Status::Info
                | Status::Pass => check.title.clone(),
            };
            table.add_row(vec![
                status,
                Cell::new(&check.id),
                Cell::new(check.level.to_string()),
                Cell::new(summary),
            ]);
        }
        out.push_str(&table.to_string());
        out.push_str("\n\n");
    }
    let problems = report.problems();
    if !problems.is_empty() {
        out.push_str("problems\n\n");
        for check in problems {
            out.push_str(&problem(check, color));
            out.push('\n');
        }
    }
    if let Some(fatal) = &report.fatal {
        out.push_str(&format!("error: {fatal}\n"));
        if let Some(server) = &report.server {
            if !server.stderr_tail.trim().is_empty() {
                out.push_str(&format!(
                    "server stderr (tail):\n{}\n",
                    indent(server.stderr_tail.trim_end(), "  ")
                ));
            }
        }
    }
    out.push_str(&format!(
        "{} ({} checks, {} ms)\n",
        report.verdict_line(),
        report.summary.total,
        report.duration_ms
    ));
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

fn paint(text: &str, status: Status, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let code = match status {
        Status::Pass => "32",
        Status::Fail | Status::Error => "31",
        Status::Warn => "33",
        Status::NotTestable | Status::Info => "36",
        Status::Skip => "90",
    };
    format!("\u{1b}[1;{code}m{text}\u{1b}[0m")
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One problem in full, h2spec style: what, why, expected, actual, where, and the wire.
fn problem(check: &CheckResult, color: bool) -> String {
    let derived = if check.derived { ", derived" } else { "" };
    let mut text = format!(
        "{} {} ({}{derived}) — {}\n",
        paint(check.status.as_str(), check.status, color),
        check.id,
        check.level,
        check.title
    );
    text.push_str(&format!("    {}\n", check.message));
    text.push_str(&format!("    expected: {}\n", check.expected));
    if let Some(actual) = &check.actual {
        text.push_str(&format!("    actual:   {actual}\n"));
    }
    if let Some(note) = &check.note {
        text.push_str(&format!("    note:     {note}\n"));
    }
    for spec in &check.spec {
        text.push_str(&format!(
            "    spec:     {} ({} {})\n",
            spec.url, spec.version, spec.section
        ));
    }
    text.push_str(&format!("    source:   {}\n", check.source));
    for evidence in check.evidence.iter().take(3) {
        if let Some(sent) = &evidence.sent {
            text.push_str(&format!("    → {}: {}\n", evidence.label, first_line(sent)));
        }
        if let Some(received) = &evidence.received {
            let status = evidence
                .http_status
                .map(|s| format!("HTTP {s} "))
                .unwrap_or_default();
            text.push_str(&format!("    ← {status}{}\n", first_line(received)));
        }
        if let Some(remark) = &evidence.remark {
            text.push_str(&format!("    · {}: {remark}\n", evidence.label));
        }
    }
    text
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let more = text.lines().count() > 1;
    let cut = crate::record::transcript::cut(line, 300);
    if more {
        format!("{cut} …")
    } else {
        cut
    }
}
