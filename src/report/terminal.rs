//! The terminal rendering. By default it reads at a glance: a header; every problem in at most
//! five lines — what, why, expected, actual, and where (the requirement and the scenario), or the
//! frame sent when the message only restates what was expected — with a problem found in more
//! than one era shown once, naming them; one line per area with its counts; the checks that did
//! not apply, collapsed into counts by reason; and a one-sentence verdict. With `-v` every problem
//! is shown in full, each era apart, with up to three exchanges (the reports always carry all of
//! it). `--show all` brings back one table per area with every check, `--show skipped` lists each
//! check that did not apply. Server text never reaches the terminal raw (see [`safe`]).

use std::collections::BTreeMap;

use comfy_table::{Cell, Color, ContentArrangement, Table};

use super::{safe, CheckResult, Report};
use crate::record::Status;
use crate::record::{Level, Reason};

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

/// How the terminal is rendered.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// ANSI colours.
    pub color: bool,
    /// The width the tables are bound to.
    pub width: u16,
    /// How much besides the problems.
    pub show: Show,
    /// Every problem in full, each era apart (`-v`), instead of at most five lines each.
    pub full: bool,
}

/// Renders the report for a terminal as `style` says. Every string that can hold server text has
/// its control characters written out first ([`safe::terminal`]): the only escape sequences in
/// the output are mcpcheck's own colours.
pub fn render(report: &Report, style: Style) -> String {
    let Style {
        color,
        width,
        show,
        full,
    } = style;
    let mut shown = safe::map_report(report, &safe::terminal);
    // The stderr tail keeps its lines, each indented below.
    if let (Some(shown), Some(raw)) = (&mut shown.server, &report.server) {
        shown.stderr_tail = stderr_tail(&raw.stderr_tail);
    }
    let report = &shown;
    let mut out = String::new();
    let target = report.target_label();
    out.push_str(&format!(
        "mcpcheck {} · {target}\n",
        report.mcpcheck_version
    ));
    // A server never spoken to has no name or protocol to show.
    let reached = report.protocol.server_info.is_some() || report.protocol.version.is_some();
    if reached {
        out.push_str(&format!(
            "server: {} · protocol {}\n",
            report.server_label().trim_end(),
            report.protocols_label(),
        ));
    }
    if let Some(note) = &report.eras_note {
        out.push_str(&format!("note: {note}\n"));
    }
    out.push('\n');
    let areas = report.areas_worst_first();
    match show {
        Show::All => {
            out.push_str(&tables(&areas, color, width));
            out.push_str(&problems(report, color, full));
        }
        Show::Problems | Show::Skipped => {
            out.push_str(&problems(report, color, full));
            out.push_str(&area_lines(&areas, color, width));
            out.push_str(&not_applicable(report, show == Show::Skipped));
        }
    }
    // The verdict line says why a run could not be made; the server's stderr may explain it.
    if report.fatal.is_some() {
        if let Some(server) = &report.server {
            if !server.stderr_tail.trim().is_empty() {
                out.push_str(&format!(
                    "server stderr (tail):\n{}\n",
                    indent(server.stderr_tail.trim_end(), "  ")
                ));
            }
        }
    }
    let checks = if report.summary.total == 1 {
        "check"
    } else {
        "checks"
    };
    out.push_str(&format!(
        "{} ({} {checks}, {} ms)\n",
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

/// Every problem, or nothing when there is none: each in at most five lines, one problem found
/// in several eras once (or with `full`, each in full); then, when a derived requirement is among
/// them, one line saying what derived means.
fn problems(report: &Report, color: bool, full: bool) -> String {
    let mut out = String::new();
    let problems = report.problems();
    if problems.is_empty() {
        return out;
    }
    out.push_str("problems\n\n");
    let derived_warn = report
        .grading
        .as_ref()
        .is_some_and(|g| g.derived_as_warnings);
    if full {
        for check in &problems {
            out.push_str(&problem(check, color));
            out.push('\n');
        }
    } else {
        // The same check with the same status in several eras: one entry.
        let mut groups: Vec<Vec<&CheckResult>> = Vec::new();
        for check in &problems {
            // The same finding (status and words) in several eras.
            match groups.iter_mut().find(|g| {
                g[0].id == check.id && g[0].status == check.status && g[0].message == check.message
            }) {
                Some(group) => group.push(check),
                None => groups.push(vec![check]),
            }
        }
        for group in &groups {
            out.push_str(&brief(group, color, derived_warn));
            out.push('\n');
        }
    }
    if problems.iter().any(|c| c.derived) {
        out.push_str(
            "derived: a requirement MCP states only through JSON-RPC 2.0 or an RFC it builds on, kept \
             at that source's level (--derived warn grades these as warnings)\n\n",
        );
    }
    out
}

/// The longest a line of server text gets in a brief problem (the reports keep it whole).
const BRIEF_TEXT: usize = 160;

/// The longest a line of server text gets in a problem shown in full (`-v`).
const FULL_TEXT: usize = 300;

/// One problem (or the same problem in several eras) in at most five lines: the header, then of
/// why, expected, actual, the frame sent and where, the four that say most, in that order.
fn brief(group: &[&CheckResult], color: bool, derived_warn: bool) -> String {
    let check = group[0];
    let eras: Vec<&str> = group.iter().filter_map(|c| c.version.as_deref()).collect();
    let name = if group.len() > 1 || !check.per_era {
        check.id.clone()
    } else {
        check.name()
    };
    let at = if group.len() > 1 {
        format!(" · at {}", eras.join(" and "))
    } else {
        String::new()
    };
    let mut text = format!(
        "{} {name} ({}) — {}{at}\n",
        paint(check.status.as_str(), check.status, color),
        level_label(check, derived_warn),
        check.title
    );
    // (priority, line): the lower the number, the more it says.
    let mut lines: Vec<(u8, String)> = Vec::new();
    if !restates(&check.message, &check.expected) {
        lines.push((4, format!("    {}", check.message)));
    }
    lines.push((2, format!("    expected: {}", check.expected)));
    match &check.actual {
        Some(actual) => lines.push((
            1,
            format!("    actual:   {}", first_line(actual, BRIEF_TEXT)),
        )),
        None => {
            if let Some(remark) = check.judged_evidence().find_map(|e| e.remark.as_ref()) {
                lines.push((
                    1,
                    format!("    observed: {}", first_line(remark, BRIEF_TEXT)),
                ));
            }
        }
    }
    if let Some((label, sent)) = check
        .judged_evidence()
        .find_map(|e| e.sent.as_ref().map(|s| (&e.label, s)))
    {
        lines.push((
            5,
            format!("    → {label}: {}", first_line(sent, BRIEF_TEXT)),
        ));
    }
    let spec = check
        .spec
        .iter()
        .find(|s| s.url.contains("modelcontextprotocol"))
        .or(check.spec.first())
        .map(|s| format!(" · {}", s.url))
        .unwrap_or_default();
    lines.push((3, format!("    see:      {}{spec}", check.source)));
    let mut order: Vec<u8> = lines.iter().map(|(p, _)| *p).collect();
    order.sort_unstable();
    let kept = order.get(3).copied().unwrap_or(u8::MAX);
    for (priority, line) in lines {
        if priority <= kept {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

/// Whether a message only says what `expected` says ("expected X" for an expected X).
fn restates(message: &str, expected: &str) -> bool {
    let message = message.trim().trim_end_matches('.');
    let expected = expected.trim().trim_end_matches('.');
    message == expected
        || message
            .strip_prefix("expected ")
            .is_some_and(|m| m == expected || expected.starts_with(m))
}

/// The level, and why the status is milder than the level when it is: `MUST, derived — a
/// warning under --derived warn`.
fn level_label(check: &CheckResult, derived_warn: bool) -> String {
    let mut label = check.level.to_string();
    if check.derived {
        label.push_str(", derived");
    }
    let milder = check.status == Status::Warn && check.level == Level::Must;
    if milder && check.derived && derived_warn {
        label.push_str(" — a warning under --derived warn");
    } else if milder {
        label.push_str(" — a warning in this case");
    }
    label
}

/// The last lines of a server's stderr for the terminal: decoration (ANSI colours) dropped, other
/// control characters written out, at most 12 lines of at most 200 bytes, and how much more there
/// was.
fn stderr_tail(raw: &str) -> String {
    const LINES: usize = 12;
    let plain = strip_ansi(raw);
    let lines: Vec<&str> = plain.trim_end().lines().collect();
    let from = lines.len().saturating_sub(LINES);
    let mut out = String::new();
    if from > 0 {
        out.push_str(&format!(
            "[{from} earlier lines not shown; the reports keep them]\n"
        ));
    }
    for line in &lines[from..] {
        out.push_str(&crate::record::transcript::cut(&safe::visible(line), 200));
        out.push('\n');
    }
    out
}

/// Text without ANSI escape sequences (CSI `ESC [ … letter` and OSC `ESC ] … BEL`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // Ended by BEL, or by ST (ESC \\), as OSC 8 hyperlinks are.
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// One line per area: what passed, failed, warned, could not be tested or did not apply. When
/// some area has a problem, the areas where everything judged passed share a line, and so do
/// the areas where nothing applied, so that the problems stay in view.
fn area_lines(areas: &[(&str, Vec<&CheckResult>)], color: bool, width: u16) -> String {
    if areas.is_empty() {
        return String::new();
    }
    let judged_in = |checks: &[&CheckResult]| checks.iter().any(|c| c.status != Status::Skip);
    let clean = |checks: &[&CheckResult]| {
        checks
            .iter()
            .all(|c| matches!(c.status, Status::Pass | Status::Skip))
    };
    let problems = areas.iter().any(|(_, checks)| !clean(checks));
    let (own, passed, idle) = areas.iter().fold(
        (Vec::new(), Vec::new(), Vec::new()),
        |(mut own, mut passed, mut idle), area| {
            if !judged_in(&area.1) {
                idle.push(area);
            } else if problems && clean(&area.1) {
                passed.push(area);
            } else {
                own.push(area);
            }
            (own, passed, idle)
        },
    );
    let name_width = own
        .iter()
        .map(|(a, _)| a.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (area, checks) in own {
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
            let text = super::counted(n, one, many);
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
        out.push_str(&format!(" {area:name_width$}  {}\n", parts.join(", ")));
    }
    if !passed.is_empty() {
        let names: Vec<String> = passed
            .iter()
            .map(|(area, checks)| {
                let n = checks.iter().filter(|c| c.status == Status::Pass).count();
                format!("{area} ({n})")
            })
            .collect();
        out.push_str(&wrapped(" all passed in ", &names, width));
    }
    if !idle.is_empty() {
        let names: Vec<String> = idle.iter().map(|(a, _)| a.to_string()).collect();
        out.push_str(&wrapped(" nothing applied in ", &names, width));
    }
    out.push('\n');
    out
}

/// `lead` and the names joined by commas, wrapped at `width` under the first name.
fn wrapped(lead: &str, names: &[String], width: u16) -> String {
    let indent = " ".repeat(lead.chars().count());
    let mut out = String::new();
    let mut line = lead.to_string();
    for (n, name) in names.iter().enumerate() {
        let piece = if n + 1 < names.len() {
            format!("{name}, ")
        } else {
            name.clone()
        };
        if line.chars().count() + piece.trim_end().chars().count() > usize::from(width)
            && line.trim().len() > lead.trim().len()
        {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
        }
        line.push_str(&piece);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// How many reasons for not applying the terminal names before it counts the rest together.
const REASONS_SHOWN: usize = 6;

/// The checks that did not apply, counted by reason (and with `each`, listed under it).
fn not_applicable(report: &Report, each: bool) -> String {
    let mut reasons: BTreeMap<String, Vec<&CheckResult>> = BTreeMap::new();
    for check in report.checks.iter().filter(|c| c.status == Status::Skip) {
        reasons.entry(reason(check)).or_default().push(check);
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
    // The commonest reasons; with `each`, all of them.
    // A last line that would stand for one reason names it instead.
    let shown = if each || reasons.len() == REASONS_SHOWN + 1 {
        reasons.len()
    } else {
        REASONS_SHOWN
    };
    let (reasons, rest) = reasons.split_at(shown.min(reasons.len()));
    for (reason, checks) in reasons {
        let reason = if checks.len() == 1 {
            singular(reason)
        } else {
            reason.clone()
        };
        out.push_str(&format!(" {:>3} {reason}\n", checks.len()));
        if each {
            for check in checks {
                out.push_str(&format!("       {}: {}\n", check.name(), check.message));
            }
        }
    }
    if !rest.is_empty() {
        let checks: usize = rest.iter().map(|(_, c)| c.len()).sum();
        let reasons = if rest.len() == 1 { "reason" } else { "reasons" };
        out.push_str(&format!(
            " {checks:>3} for {} other {reasons}\n",
            rest.len()
        ));
    }
    if !each {
        out.push_str("     (--show skipped lists them, --show all shows every check)\n");
    }
    out.push('\n');
    out
}

/// A reason's verb for one check ("needs", not "need").
pub fn singular(reason: &str) -> String {
    for (many, one) in [
        ("need ", "needs "),
        ("are ", "is "),
        ("check ", "checks "),
        ("call ", "calls "),
    ] {
        if let Some(rest) = reason.strip_prefix(many) {
            return format!("{one}{rest}");
        }
    }
    reason.to_string()
}

/// A skip's reason in a few words, so that the checks that did not apply for the same reason
/// count together ("need the http transport", "are for the 2026-07-28 era"). A skip its check's
/// own words explain (a scenario's rule, a step not sent for want of anything of its kind), or
/// one of a report without reasons, is counted under its message.
pub fn reason(check: &CheckResult) -> String {
    let Some(reason) = &check.reason else {
        return check.message.clone();
    };
    match reason {
        Reason::Transport { transports } => {
            format!("need {}", crate::record::describe(transports))
        }
        Reason::Era { era, .. } => format!("are for the {era} era"),
        Reason::Version { versions, .. } => format!("are for protocol versions {versions}"),
        Reason::FixtureSet { set } => format!("need the `{set}` fixtures (--fixtures {set})"),
        Reason::Capability { capability } => format!("need the `{capability}` capability"),
        Reason::Extension {
            extension,
            setting: Some(setting),
        } => format!("need the `{extension}` extension with `{setting}`"),
        Reason::Extension { extension, .. } => format!("need the `{extension}` extension"),
        Reason::Declared { .. } => {
            "check a server without a capability (this one declares it)".into()
        }
        Reason::CapabilitiesUnknown => "check what a server leaves undeclared, which is unknown here (server/discover gave no capabilities)".into(),
        Reason::CallTools => "call a listed tool (--call-tools)".into(),
        Reason::Token { .. } => {
            "need a token (the server is protected): -H \"Authorization: Bearer $TOKEN\"".into()
        }
        Reason::NoToolToProbe { .. } => {
            "call a listed tool with an argument to get wrong (none has one)".into()
        }
        Reason::Fixture { .. } => "need fixtures the server does not list".into(),
        Reason::NothingOnTheWire { .. } => {
            "found nothing of their kind in the run (no such message crossed the wire)".into()
        }
        // The check's own words, and the reasons of checks that could not be made (never a
        // skip's).
        Reason::Absent { .. }
        | Reason::Rule { .. }
        | Reason::Other
        | Reason::NoResponse { .. }
        | Reason::Closed { .. }
        | Reason::Stopped { .. }
        | Reason::NotSent { .. }
        | Reason::Unanswered { .. }
        | Reason::Authorization { .. }
        | Reason::NotTaken
        | Reason::NoSession { .. }
        | Reason::RunBound { .. }
        | Reason::Internal => check.message.clone(),
    }
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
    // The steps judged, and the ones they turn on before them (a connection's own initialize).
    let judged = check.judged_evidence().take(3);
    let context = check.evidence.iter().filter(|e| e.context);
    for evidence in context.chain(judged) {
        if let Some(sent) = &evidence.sent {
            text.push_str(&format!(
                "    → {}: {}\n",
                evidence.label,
                first_line(sent, FULL_TEXT)
            ));
        }
        // Over HTTP, what the request carried besides its body (a check may turn on a header).
        if !evidence.sent_headers.is_empty() {
            text.push_str(&format!(
                "      headers: {}\n",
                first_line(&evidence.sent_headers.join("; "), FULL_TEXT)
            ));
        }
        if let Some(received) = &evidence.received {
            let status = evidence
                .http_status
                .map(|s| format!("HTTP {s} "))
                .unwrap_or_default();
            text.push_str(&format!(
                "    ← {status}{}\n",
                first_line(received, FULL_TEXT)
            ));
        }
        if let Some(remark) = &evidence.remark {
            text.push_str(&format!("    · {}: {remark}\n", evidence.label));
        }
    }
    text
}

/// The first line of a text, cut at `max` bytes with its size said, and `…` when more lines
/// followed.
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    let cut = crate::record::transcript::cut(line, max);
    if text.lines().nth(1).is_some() {
        format!("{cut} …")
    } else {
        cut
    }
}
