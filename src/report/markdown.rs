//! Markdown for people and for `$GITHUB_STEP_SUMMARY`: a verdict line, counts, every problem
//! (failures first) with expected vs actual, spec links and the exchange, and all checks in a
//! collapsible table. Whatever the server sent is escaped ([`safe`]): it renders as text, never
//! as a link, image, HTML or a broken table.

use std::fmt::Write;

use super::grade::Mark;
use super::safe::{md_code, md_fence, md_fence_as, md_text};
use super::{CheckResult, Evidence, Report};
use crate::record::Status;

/// mcpcheck's own text (a title, an expectation, from the scenario files) in a table cell: its
/// Markdown is kept, only the table is protected.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// Renders the report as Markdown.
///
/// Long by design: the document top to bottom (heading, counts, problems by kind, the table),
/// each section a few lines writing into the same buffer.
pub fn render(report: &Report) -> String {
    let marks = report.marks();
    let mut out = String::new();
    let failing = report.exit_code() == crate::exit::FAILURES || report.fatal.is_some();
    let icon = if failing {
        "❌"
    } else if report.exit_code() != crate::exit::SUCCESS || report.summary.warn > 0 {
        "⚠️"
    } else {
        "✅"
    };
    // The verdict line is mcpcheck's sentence; what the server chose in it is escaped.
    let mut heading = report.clone();
    for protocol in std::iter::once(&mut heading.protocol).chain(&mut heading.other_eras) {
        protocol.version = protocol.version.as_deref().map(md_text);
    }
    heading.fatal = heading.fatal.as_deref().map(md_text);
    let _ = writeln!(out, "## {icon} mcpcheck: {}\n", heading.verdict_line());
    let target = match report.target.shown() {
        shown if shown.is_empty() => report.target.transport.to_string(),
        shown => format!("{} {}", report.target.transport, md_code(&shown)),
    };
    let server = report.protocol.server_info.as_ref().map(|i| {
        format!(
            "**{}** {}",
            md_text(i.get("name").and_then(|v| v.as_str()).unwrap_or("?")),
            md_text(i.get("version").and_then(|v| v.as_str()).unwrap_or(""))
        )
    });
    let mut facts = vec![target];
    facts.extend(server);
    if report.protocol.version.is_some() {
        facts.push(format!("protocol {}", md_text(&report.protocols_label())));
    }
    if let Some(note) = &report.eras_note {
        facts.push(md_text(note));
    }
    if let Some(grading) = &report.grading {
        facts.push(format!(
            "profile {}{}",
            grading.profile,
            if grading.strict { ", strict" } else { "" }
        ));
    }
    facts.push(format!("mcpcheck {}", report.mcpcheck_version));
    let _ = writeln!(out, "{}\n", facts.join(" · "));
    let s = &report.summary;
    let _ = writeln!(out, "| pass | fail | warn | error | not testable | info | not applicable |\n|---|---|---|---|---|---|---|");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} | {} |\n",
        s.pass, s.fail, s.warn, s.error, s.not_testable, s.info, s.skip
    );
    if let Some(fatal) = &report.fatal {
        let _ = writeln!(
            out,
            "**The server could not be tested:** {}\n",
            md_text(fatal)
        );
        if let Some(server) = &report.server {
            if !server.stderr_tail.trim().is_empty() {
                let _ = writeln!(
                    out,
                    "<details><summary>server stderr (tail)</summary>\n\n{}\n\n</details>\n",
                    md_fence(server.stderr_tail.trim_end())
                );
            }
        }
    }
    let problems = report.problems();
    for (status, heading) in [
        (Status::Fail, "Failures"),
        (Status::Error, "Could not be checked"),
        (Status::Warn, "Warnings"),
        (Status::NotTestable, "Not testable"),
    ] {
        let group: Vec<&&CheckResult> = problems.iter().filter(|c| c.status == status).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {heading}\n");
        for check in group {
            problem(&mut out, report, &marks, check);
        }
    }
    let stale = report
        .grading
        .as_ref()
        .map(|g| g.stale.clone())
        .unwrap_or_default();
    if !stale.is_empty() {
        let _ = writeln!(out, "### Stale baseline entries\n\nThese checks are listed in the baseline but now pass; remove them: {}\n", stale.iter().map(|s| md_code(s)).collect::<Vec<_>>().join(", "));
    }
    let _ = writeln!(out, "<details><summary>All {} checks</summary>\n\n| status | check | level | title |\n|---|---|---|---|", report.checks.len());
    let mut all: Vec<&CheckResult> = report.checks.iter().collect();
    all.sort_by(|a, b| {
        a.area
            .cmp(&b.area)
            .then(a.status.cmp(&b.status))
            .then(a.name().cmp(&b.name()))
    });
    for check in all {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            check.status,
            md_code(&check.name()),
            check.level,
            cell(&check.title)
        );
    }
    let _ = writeln!(out, "\n</details>");
    out
}

fn problem(
    out: &mut String,
    report: &Report,
    marks: &std::collections::HashMap<&str, Mark>,
    check: &CheckResult,
) {
    let mark = super::grade::mark_of(marks, &check.name());
    let tag = match mark {
        Mark::Expected => " — expected by the baseline",
        Mark::Ungraded => " — not graded by this profile",
        Mark::Stale => " — stale baseline entry",
        Mark::Graded | Mark::Failing => "",
    };
    let derived = if check.derived { ", derived" } else { "" };
    let _ = writeln!(
        out,
        "#### {} ({}{derived}){tag}\n\n{} — {}\n",
        md_code(&check.name()),
        check.level,
        cell(&check.title),
        md_text(&check.message)
    );
    let _ = writeln!(
        out,
        "| | |\n|---|---|\n| expected | {} |",
        cell(&check.expected)
    );
    if let Some(actual) = &check.actual {
        let _ = writeln!(out, "| actual | {} |", md_code(actual));
    }
    if let Some(note) = &check.note {
        let _ = writeln!(out, "| note | {} |", md_text(note));
    }
    let specs: Vec<String> = check
        .spec
        .iter()
        .map(|s| format!("[{} {}]({})", s.version, s.section, s.url))
        .collect();
    if let Some(command) = super::repro::command(check) {
        let _ = writeln!(
            out,
            "| replay | {} (the run's `--json` report) |",
            md_code(&command)
        );
    }
    let _ = writeln!(
        out,
        "| spec | {} |\n| source | {} |\n",
        specs.join(", "),
        md_code(&check.source)
    );
    if !check.evidence.is_empty() {
        let wire = check
            .evidence
            .iter()
            .map(Evidence::wire)
            .collect::<Vec<_>>()
            .join("\n");
        let _ = writeln!(
            out,
            "<details><summary>exchange</summary>\n\n{}\n\n</details>\n",
            md_fence(wire.trim_end())
        );
    }
    if let Some(script) = super::repro::inline(report, check) {
        let _ = writeln!(
            out,
            "<details><summary>replay (sh)</summary>\n\n{}\n\n</details>\n",
            md_fence_as(script.trim_end(), "sh")
        );
    }
}
