//! One self-contained HTML file (no scripts, no network) that reads as the terminal report does:
//! the verdict (marked), counts, the problems first and open, a line per area, the checks judged
//! by area, each expandable to its evidence — the bytes sent and received, headers, timing — then
//! the checks that did not apply counted by reason, and the server's stderr tail.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use super::grade::Mark;
use super::{CheckResult, Evidence, Report};
use crate::record::Status;

/// Escapes text for HTML; control characters are written out visibly ([`super::safe::visible`]).
pub fn escape(text: &str) -> String {
    let text = super::safe::visible(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes `text` for HTML and sets its Markdown code spans (`` `name` ``, as the library's
/// titles write them) as `<code>`; an unpaired backtick stays as it is.
pub fn with_code(text: &str) -> String {
    let escaped = escape(text);
    let pieces: Vec<&str> = escaped.split('`').collect();
    let mut out = String::with_capacity(escaped.len() + 16);
    for (n, piece) in pieces.iter().enumerate() {
        // A piece after an odd count of backticks is inside a span, if a backtick closes it.
        match (n % 2 == 1, n + 1 < pieces.len()) {
            (true, true) => {
                out.push_str("<code>");
                out.push_str(piece);
                out.push_str("</code>");
            }
            (true, false) => {
                out.push('`');
                out.push_str(piece);
            }
            (false, _) => out.push_str(piece),
        }
    }
    out
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#1b1f24}
h1{font-size:1.4em;padding:.4em .6em;border-radius:6px}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #d0d7de}
h1.conforms{background:#dafbe1;color:#116329}h1.fails{background:#ffebe9;color:#a40e26}h1.untested{background:#eaeef2;color:#24292f}
h1 .mark{font-weight:700;margin-right:.4em}
table.counts td,table.counts th,table.areas td,table.areas th{padding:.2em .8em;text-align:center;border:1px solid #d0d7de}
table.areas td:first-child{text-align:left}table{border-collapse:collapse}
details.check{border:1px solid #d0d7de;border-radius:6px;margin:.3em 0;padding:.3em .6em}
details.check>summary,details.reason>summary{cursor:pointer}
.status{display:inline-block;min-width:7em;font-weight:600}
.status.pass,th.pass{color:#1a7f37}.status.fail,.status.error,th.fail,th.error,p.fail{color:#cf222e}.status.warn,th.warn{color:#9a6700}
.status.info,.status.not-testable,th.info,th.not-testable{color:#0969da}.status.skip,th.skip{color:#6e7781}
details.check.fail,details.check.error{border-left:4px solid #cf222e}details.check.warn{border-left:4px solid #9a6700}
details.check.pass{border-left:4px solid #1a7f37}details.check.info,details.check.not-testable{border-left:4px solid #0969da}
pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
dl{display:grid;grid-template-columns:8em 1fr;gap:.2em 1em}dt{color:#57606a}dd{margin:0}
.tag,.legend{font-size:.85em;color:#57606a}abbr{text-decoration:underline dotted;cursor:help}
";

/// A status as a column of counts says it ("warnings", "not applicable").
fn column_label(status: Status) -> &'static str {
    match status {
        Status::Pass => "passed",
        Status::Fail => "failed",
        Status::Warn => "warnings",
        Status::Error => "errors",
        Status::NotTestable => "not testable",
        Status::Info => "info",
        Status::Skip => "not applicable",
    }
}

/// What a derived level's star means, where it appears and in the legend.
const DERIVED: &str = "derived: a requirement MCP states only through JSON-RPC 2.0 (or its schema) or an RFC it builds on, graded at that source's level";

/// A status as the report's words say it ("not applicable", not "skip").
fn status_label(status: Status) -> &'static str {
    match status {
        Status::Skip => "not applicable",
        Status::NotTestable => "not testable",
        other => other.as_str(),
    }
}

/// Renders the report as a self-contained HTML page, read as the terminal report reads: the
/// verdict, the problems, a line per area, the checks judged by area, then the checks that did
/// not apply counted by reason.
pub fn render(report: &Report) -> String {
    let marks = report.marks();
    let mut out = String::new();
    let _ = write!(out, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mcpcheck: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n", escape(&report.verdict_line()));
    let (class, mark) = match report.exit_code() {
        crate::exit::SUCCESS => ("conforms", "✓"),
        crate::exit::FAILURES => ("fails", "✗"),
        _ => ("untested", "?"),
    };
    let _ = writeln!(
        out,
        "<h1 id=\"verdict\" class=\"{class}\"><span class=\"mark\">{mark}</span>{}</h1>",
        escape(&report.verdict_line())
    );
    let target = report.target_label();
    let server = report.server_label();
    let profile = report
        .grading
        .as_ref()
        .map(|g| {
            format!(
                " · profile {}{}",
                g.profile,
                if g.strict { " (strict)" } else { "" }
            )
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<p>{} · server {} · protocol {} · mcpcheck {}{} · {} · {} ms</p>",
        escape(&target),
        escape(server.trim_end()),
        escape(&report.protocols_label()),
        escape(&report.mcpcheck_version),
        escape(&profile),
        escape(&report.started_at),
        report.duration_ms
    );
    let s = &report.summary;
    out.push_str("<table class=\"counts\"><tr>");
    let counts = [
        (Status::Pass, s.pass),
        (Status::Fail, s.fail),
        (Status::Warn, s.warn),
        (Status::Error, s.error),
        (Status::NotTestable, s.not_testable),
        (Status::Info, s.info),
        (Status::Skip, s.skip),
    ];
    for (status, _) in counts {
        let _ = write!(
            out,
            "<th class=\"{}\">{}</th>",
            status.as_str(),
            column_label(status)
        );
    }
    out.push_str("</tr>\n<tr>");
    for (_, n) in counts {
        let _ = write!(out, "<td>{n}</td>");
    }
    out.push_str("</tr></table>\n");
    if report.checks.iter().any(|c| c.derived) {
        let _ = writeln!(
            out,
            "<p class=\"legend\">A level with a star (MUST*, SHOULD*) is {DERIVED}.</p>"
        );
    }
    if let Some(note) = &report.eras_note {
        let _ = writeln!(out, "<p>{}</p>", escape(note));
    }
    if let Some(fatal) = &report.fatal {
        let _ = writeln!(
            out,
            "<p class=\"fail\"><strong>The server could not be tested:</strong> {}</p>",
            escape(fatal)
        );
    }
    let problems = report.problems();
    if !problems.is_empty() {
        let _ = writeln!(out, "<h2 id=\"problems\">Problems</h2>");
        for check in problems {
            check_block(&mut out, report, &marks, check, true);
        }
    }
    area_sections(&mut out, report, &marks);
    not_applicable(&mut out, report);
    if let Some(server) = &report.server {
        let _ = writeln!(out, "<h2 id=\"server\">Server process</h2>");
        if let Some(exit) = &server.exit {
            let _ = writeln!(
                out,
                "<p>stopped by {}; {}{}</p>",
                escape(&exit.stopped_by.to_string()),
                escape(&exit.status),
                exit.exit_ms
                    .map(|ms| format!(", {ms} ms after stdin closed"))
                    .unwrap_or_default()
            );
        }
        let _ = writeln!(
            out,
            "<details{}><summary>stderr (tail)</summary><pre>{}</pre></details>",
            if report.fatal.is_some() { " open" } else { "" },
            escape(&server.stderr_tail)
        );
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// A table with a line per area (its counts, worst areas first), then a section per area with
/// the checks judged there; the checks that did not apply are counted, not listed.
fn area_sections(out: &mut String, report: &Report, marks: &HashMap<&str, Mark>) {
    let areas = report.areas_worst_first();
    if areas.is_empty() {
        return;
    }
    const COLUMNS: [Status; 7] = [
        Status::Fail,
        Status::Warn,
        Status::Error,
        Status::NotTestable,
        Status::Info,
        Status::Pass,
        Status::Skip,
    ];
    let _ = writeln!(out, "<h2 id=\"areas\">Areas</h2>\n<table class=\"areas\">");
    out.push_str("<tr><th>area</th>");
    for status in COLUMNS {
        let _ = write!(
            out,
            "<th class=\"{}\">{}</th>",
            status.as_str(),
            column_label(status)
        );
    }
    out.push_str("</tr>\n");
    for (area, checks) in &areas {
        let judged = checks.iter().any(|c| c.status != Status::Skip);
        let name = if judged {
            format!("<a href=\"#area-{0}\">{0}</a>", escape(area))
        } else {
            escape(area)
        };
        let _ = write!(out, "<tr><td>{name}</td>");
        for status in COLUMNS {
            match checks.iter().filter(|c| c.status == status).count() {
                0 => out.push_str("<td></td>"),
                n => {
                    let _ = write!(out, "<td>{n}</td>");
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    for (area, checks) in &areas {
        let judged: Vec<&&CheckResult> =
            checks.iter().filter(|c| c.status != Status::Skip).collect();
        if judged.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<h2 id=\"area-{}\">{}</h2>",
            escape(area),
            escape(area)
        );
        for check in judged {
            check_block(out, report, marks, check, false);
        }
    }
}

/// The checks that did not apply, counted by reason as the terminal counts them, each reason
/// expanding to its checks.
fn not_applicable(out: &mut String, report: &Report) {
    let mut reasons: BTreeMap<String, Vec<&CheckResult>> = BTreeMap::new();
    for check in report.checks.iter().filter(|c| c.status == Status::Skip) {
        reasons
            .entry(super::terminal::reason(check))
            .or_default()
            .push(check);
    }
    if reasons.is_empty() {
        return;
    }
    let total: usize = reasons.values().map(Vec::len).sum();
    let mut reasons: Vec<(String, Vec<&CheckResult>)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    let _ = writeln!(
        out,
        "<h2 id=\"not-applicable\">Not applicable ({total} of {}; {} were judged)</h2>",
        report.checks.len(),
        report.checks.len() - total
    );
    for (reason, checks) in reasons {
        let reason = if checks.len() == 1 {
            super::terminal::singular(&reason)
        } else {
            reason
        };
        let _ = writeln!(
            out,
            "<details class=\"reason\"><summary>{} {}</summary><ul>",
            checks.len(),
            with_code(&reason)
        );
        for check in checks {
            let _ = writeln!(
                out,
                "<li><code>{}</code> {}{} — {}: {}</li>",
                escape(&check.name()),
                check.level,
                level_star(check),
                with_code(&check.title),
                with_code(&check.message)
            );
        }
        out.push_str("</ul></details>\n");
    }
}

/// The star after a derived check's level, explained where it appears.
fn level_star(check: &CheckResult) -> String {
    if check.derived {
        format!("<abbr title=\"{}\">*</abbr>", escape(DERIVED))
    } else {
        String::new()
    }
}

fn check_block(
    out: &mut String,
    report: &Report,
    marks: &HashMap<&str, Mark>,
    check: &CheckResult,
    open: bool,
) {
    let mark = super::grade::mark_of(marks, &check.name());
    let tag = match mark {
        Mark::Expected => " <span class=\"tag\">expected by the baseline</span>",
        Mark::Stale => " <span class=\"tag\">stale baseline entry</span>",
        Mark::Ungraded => " <span class=\"tag\">not graded by this profile</span>",
        Mark::Graded | Mark::Failing => "",
    };
    let status = check.status.as_str();
    let _ = writeln!(
        out,
        "<details class=\"check {status}\"{}><summary><span class=\"status {status}\">{}</span> <code>{}</code> {}{} — {}{tag}</summary>",
        if open { " open" } else { "" },
        status_label(check.status),
        escape(&check.name()),
        check.level,
        level_star(check),
        with_code(&check.title)
    );
    let _ = writeln!(
        out,
        "<dl><dt>verdict</dt><dd>{}</dd><dt>expected</dt><dd>{}</dd>",
        with_code(&check.message),
        with_code(&check.expected)
    );
    if let Some(actual) = &check.actual {
        let _ = writeln!(
            out,
            "<dt>actual</dt><dd><code>{}</code></dd>",
            escape(actual)
        );
    }
    if let Some(note) = &check.note {
        let _ = writeln!(out, "<dt>note</dt><dd>{}</dd>", escape(note));
    }
    for spec in &check.spec {
        let _ = writeln!(
            out,
            "<dt>spec</dt><dd><a href=\"{}\">{} {}</a></dd>",
            escape(&spec.url),
            escape(&spec.version),
            escape(&spec.section)
        );
    }
    if let Some(command) = super::repro::command(check) {
        let _ = writeln!(
            out,
            "<dt>replay</dt><dd><code>{}</code> (the run's <code>--json</code> report)</dd>",
            escape(&command)
        );
    }
    let _ = writeln!(
        out,
        "<dt>source</dt><dd><code>{}</code></dd></dl>",
        escape(&check.source)
    );
    for evidence in &check.evidence {
        evidence_block(out, evidence);
    }
    if let Some(script) = super::repro::inline(report, check) {
        let _ = writeln!(
            out,
            "<details class=\"replay\"><summary>replay (sh)</summary><pre>{}</pre></details>",
            escape(script.trim_end())
        );
    }
    out.push_str("</details>\n");
}

fn evidence_block(out: &mut String, evidence: &Evidence) {
    let timing = evidence
        .elapsed_ms
        .map(|ms| format!(" · {ms} ms"))
        .unwrap_or_default();
    let status = evidence
        .http_status
        .map(|s| format!(" · HTTP {s}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<p class=\"tag\">{}{status}{timing}</p>",
        escape(&evidence.label)
    );
    let mut wire = String::new();
    for header in &evidence.sent_headers {
        let _ = writeln!(wire, "> {header}");
    }
    if let Some(sent) = &evidence.sent {
        let _ = writeln!(wire, "→ {sent}");
    }
    for header in &evidence.response_headers {
        let _ = writeln!(wire, "< {header}");
    }
    if let Some(received) = &evidence.received {
        let _ = writeln!(wire, "← {received}");
    }
    for note in &evidence.notifications {
        let _ = writeln!(wire, "← (notification) {note}");
    }
    if let Some(remark) = &evidence.remark {
        let _ = writeln!(wire, "· {remark}");
    }
    let _ = writeln!(out, "<pre>{}</pre>", escape(wire.trim_end()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_become_code_and_everything_is_escaped() {
        assert_eq!(
            with_code("without the `completions` capability"),
            "without the <code>completions</code> capability"
        );
        assert_eq!(
            with_code("`a<b>` and `c`"),
            "<code>a&lt;b&gt;</code> and <code>c</code>"
        );
        // An unpaired backtick stays.
        assert_eq!(with_code("it's `open"), "it&#39;s `open");
        assert_eq!(with_code("`x` then `y"), "<code>x</code> then `y");
        assert_eq!(with_code("plain"), "plain");
    }
}
