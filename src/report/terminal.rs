//! The terminal rendering. By default it reads at a glance: a header; every problem in full —
//! message, expected, actual, spec link, source and the exchange — so that nobody needs to rerun
//! with more verbosity; one line per area with its counts; the checks that did not apply,
//! collapsed into counts by reason; and a one-sentence verdict. `--show all` brings back one
//! table per area with every check, `--show skipped` lists each check that did not apply.
//! Server text never reaches the terminal raw (see [`safe`]).

use std::collections::BTreeMap;

use comfy_table::{Cell, Color, ContentArrangement, Table};

use super::{safe, CheckResult, Report};
use crate::check::Status;

/// How much of the run the terminal shows besides the problems and the verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Show {
    /// One line per area and the not-applicable checks counted by reason (the default).
    #[default]
    Problems,
    /// That, and every check that did not apply, with its reason.
    Skipped,
    /// One table per area with every check.
    All,
}

/// Renders the report for a terminal; `color` turns on ANSI colours, `width` bounds the tables,
/// `show` says how much besides the problems. Every string that can hold server text has its
/// control characters written out first ([`safe::terminal`]): the only escape sequences in the
/// output are mcpcheck's own colours.
pub fn render(report: &Report, color: bool, width: u16, show: Show) -> String {
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
        "server: {} · protocol {}\n",
        server.trim_end(),
        report.protocols_label(),
    ));
    if let Some(note) = &report.eras_note {
        out.push_str(&format!("note: {note}\n"));
    }
    out.push('\n');
    let mut areas: BTreeMap<&str, Vec<&CheckResult>> = BTreeMap::new();
    for check in &report.checks {
        areas.entry(check.area.as_str()).or_default().push(check);
    }
    let mut areas: Vec<(&str, Vec<&CheckResult>)> = areas.into_iter().collect();
    for (_, checks) in &mut areas {
        checks.sort_by(|a, b| a.status.cmp(&b.status).then(a.name().cmp(&b.name())));
    }
    // Worst areas first; an area where nothing applied comes last.
    areas.sort_by_key(|(name, checks)| {
        let worst = checks
            .iter()
            .map(|c| c.status)
            .filter(|s| *s != Status::Skip)
            .min()
            .unwrap_or(Status::Skip);
        (worst == Status::Skip, worst, *name)
    });
    match show {
        Show::All => {
            out.push_str(&tables(&areas, color, width));
            out.push_str(&problems(report, color));
        }
        Show::Problems | Show::Skipped => {
            out.push_str(&problems(report, color));
            out.push_str(&area_lines(&areas, color));
            out.push_str(&not_applicable(report, show == Show::Skipped));
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

/// One table per area with every check (`--show all`).
fn tables(areas: &[(&str, Vec<&CheckResult>)], color: bool, width: u16) -> String {
    let mut out = String::new();
    for (area, checks) in areas {
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
                Cell::new(check.name()),
                Cell::new(check.level.to_string()),
                Cell::new(summary),
            ]);
        }
        out.push_str(&table.to_string());
        out.push_str("\n\n");
    }
    out
}

/// Every problem in full, or nothing when there is none.
fn problems(report: &Report, color: bool) -> String {
    let mut out = String::new();
    let problems = report.problems();
    if !problems.is_empty() {
        out.push_str("problems\n\n");
        for check in problems {
            out.push_str(&problem(check, color));
            out.push('\n');
        }
    }
    out
}

/// One line per area: what passed, failed, warned, could not be tested or did not apply.
fn area_lines(areas: &[(&str, Vec<&CheckResult>)], color: bool) -> String {
    let width = areas
        .iter()
        .map(|(a, _)| a.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (area, checks) in areas {
        let count = |status: Status| checks.iter().filter(|c| c.status == status).count();
        let parts: Vec<String> = [
            (Status::Fail, "failed", "failed"),
            (Status::Error, "error", "errors"),
            (Status::Warn, "warning", "warnings"),
            (Status::NotTestable, "not testable", "not testable"),
            (Status::Info, "info", "info"),
            (Status::Pass, "passed", "passed"),
            (Status::Skip, "not applicable", "not applicable"),
        ]
        .into_iter()
        .filter(|(status, ..)| count(*status) > 0)
        .map(|(status, one, many)| {
            let n = count(status);
            let text = format!("{n} {}", if n == 1 { one } else { many });
            match status {
                Status::Pass | Status::Skip => text,
                Status::Fail
                | Status::Error
                | Status::Warn
                | Status::NotTestable
                | Status::Info => paint(&text, status, color),
            }
        })
        .collect();
        out.push_str(&format!(" {area:width$}  {}\n", parts.join(", ")));
    }
    out.push('\n');
    out
}

/// The checks that did not apply, counted by reason (and with `each`, listed under it).
fn not_applicable(report: &Report, each: bool) -> String {
    let mut reasons: BTreeMap<String, Vec<&CheckResult>> = BTreeMap::new();
    for check in report.checks.iter().filter(|c| c.status == Status::Skip) {
        reasons
            .entry(reason(&check.message))
            .or_default()
            .push(check);
    }
    if reasons.is_empty() {
        return String::new();
    }
    let total: usize = reasons.values().map(Vec::len).sum();
    let mut reasons: Vec<(String, Vec<&CheckResult>)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    // How many were judged, so that a user sees what fixtures or another transport would add.
    let all = report.checks.len();
    let mut out = format!(
        "not applicable ({total} of {all}; {} were judged)\n",
        all - total
    );
    for (reason, checks) in &reasons {
        out.push_str(&format!(" {:>3} {reason}\n", checks.len()));
        if each {
            for check in checks {
                out.push_str(&format!("       {}: {}\n", check.name(), check.message));
            }
        }
    }
    if !each {
        out.push_str("     (--show skipped lists them, --show all shows every check)\n");
    }
    out.push('\n');
    out
}

/// A skip reason in a few words, so that the checks that did not apply for the same reason
/// count together ("need the http transport", "are for the 2026-07-28 era").
pub fn reason(message: &str) -> String {
    if let Some(transports) = message
        .strip_prefix("applies to the ")
        .and_then(|m| m.strip_suffix(" only"))
        .filter(|m| m.contains("transport"))
    {
        return format!("need the {transports}");
    }
    if let Some(era) = message
        .strip_prefix("applies to the ")
        .and_then(|m| m.split_once(" era only"))
        .map(|(era, _)| era)
    {
        return format!("are for the {era} era");
    }
    if message.starts_with("applies to 2026-07-28 ") {
        return "are for the stateless era".into();
    }
    if let Some(window) = message
        .strip_prefix("applies to protocol versions ")
        .and_then(|m| m.split_once(';'))
        .map(|(w, _)| w)
    {
        return format!("are for protocol versions {window}");
    }
    if let Some(set) = message
        .strip_prefix("a fixture check of the `")
        .and_then(|m| m.split_once('`'))
        .map(|(set, _)| set)
    {
        return format!("need the `{set}` fixtures (--fixtures {set})");
    }
    if let Some(what) = message.strip_prefix("the server does not declare the ") {
        return format!("need the {what}");
    }
    if message.starts_with("the server declares the ")
        && message.ends_with("(this checks an undeclared one)")
    {
        return "check a server without a capability (this one declares it)".into();
    }
    if message.starts_with("the server's capabilities are unknown") {
        return "check what a server leaves undeclared, which is unknown here (server/discover gave no capabilities)".into();
    }
    if message.contains("--call-tools") {
        return "call a listed tool (--call-tools)".into();
    }
    if message.starts_with("the server lists no ") {
        return "need fixtures the server does not list".into();
    }
    // A built-in check over the whole run that found nothing of its kind on the wire.
    if ["no ", "the server asked for no ", "the server answered no "]
        .iter()
        .any(|p| message.starts_with(p))
    {
        return "found nothing of their kind in the run (no such message crossed the wire)".into();
    }
    message.to_string()
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
        check.name(),
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
