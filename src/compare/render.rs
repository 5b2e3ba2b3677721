//! Renderings of the comparison matrix: the terminal (fits 120 columns by abbreviating),
//! Markdown, and self-contained HTML whose every cell expands to the exact exchange.

use std::fmt::Write;

use comfy_table::{ContentArrangement, Table};

use super::{Cell, Matrix, Row};
use crate::record::Status;
use crate::report::counted;
use crate::report::html::{escape, with_code};
use crate::report::safe::{self, md_code, md_text};

fn symbol(status: Option<Status>) -> &'static str {
    match status {
        Some(Status::Pass) => "✓",
        Some(Status::Fail) => "✗",
        Some(Status::Warn) => "!",
        Some(Status::Error) => "E",
        Some(Status::NotTestable) => "?",
        Some(Status::Info) => "i",
        Some(Status::Skip) => "-",
        None => " ",
    }
}

fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!(
            "{}…",
            text.chars().take(max.saturating_sub(1)).collect::<String>()
        )
    }
}

/// A cell's mark: its status's symbol, with `*` for a pass with a note.
fn mark(cell: &Cell) -> String {
    if cell.noted_pass() {
        format!("{}*", symbol(cell.status))
    } else {
        symbol(cell.status).to_string()
    }
}

fn cell_text(cell: &Cell, width: usize) -> String {
    let observed = match cell.status {
        Some(Status::Pass) | Some(Status::Skip) | None => String::new(),
        Some(Status::Fail | Status::Error | Status::Warn | Status::NotTestable | Status::Info) => {
            cell.observed
                .clone()
                .unwrap_or_default()
                .replace("HTTP ", "H")
        }
    };
    short(format!("{} {observed}", mark(cell)).trim_end(), width)
}

const LEGEND: &str = "✓ pass  ✓* pass with a note  ✗ fail  ! warn  E error  ? not testable  i info  - not applicable\nafter a mark: the error code, H + the HTTP status, isError (a tool result marked isError), none (no reply)";

/// The line that stands for the rows no server was judged on.
fn nowhere_line(count: usize) -> String {
    format!(
        "{} to none of these servers",
        counted(count, "check applied", "checks applied")
    )
}

/// The terminal table, at most `width` columns wide; server text has its control characters
/// written out ([`safe::terminal`]).
pub fn terminal(matrix: &Matrix, width: usize) -> String {
    let matrix = &matrix.map_text(&safe::terminal);
    let servers = matrix.servers.len().max(1);
    let id_width = 38.min(width / 3);
    let cell_width = ((width.saturating_sub(id_width + 3)) / servers)
        .saturating_sub(3)
        .clamp(3, 16);
    let mut table = Table::new();
    table.load_style(comfy_table::presets::NOTHING);
    table.set_content_arrangement(ContentArrangement::Disabled);
    table.force_no_tty();
    let mut header = vec!["check".to_string()];
    header.extend(matrix.servers.iter().map(|s| short(&s.name, cell_width)));
    table.set_header(header);
    let mut agreed = false;
    let mut area = None;
    for row in matrix.rows.iter().filter(|r| !r.applies_nowhere()) {
        if !row.disagree && !agreed {
            agreed = true;
            area = None;
            let mut separator = vec![short("═ all agree ═", id_width)];
            separator.extend(matrix.servers.iter().map(|_| String::new()));
            table.add_row(separator);
        }
        if area != Some(&row.area) {
            area = Some(&row.area);
            let mut separator = vec![short(&format!("— {} —", row.area), id_width)];
            separator.extend(matrix.servers.iter().map(|_| String::new()));
            table.add_row(separator);
        }
        let mut cells = vec![short(&row.id, id_width)];
        cells.extend(row.cells.iter().map(|c| cell_text(c, cell_width)));
        table.add_row(cells);
    }
    let mut scores = vec!["score (pass / judged)".to_string()];
    scores.extend(matrix.servers.iter().map(|s| {
        if s.fatal.is_some() {
            "untestable".to_string()
        } else {
            format!("{:.0}%", s.score)
        }
    }));
    table.add_row(scores);
    // Failures apart from warnings: a MUST broken never reads like a SHOULD missed.
    let mut counts = vec!["failed / warnings".to_string()];
    counts.extend(matrix.servers.iter().map(|s| {
        if s.fatal.is_some() {
            String::new()
        } else {
            format!("{} / {}", s.fail, s.warn)
        }
    }));
    table.add_row(counts);
    let mut out = String::new();
    for (i, server) in matrix.servers.iter().enumerate() {
        let about = server.fatal.clone().unwrap_or_else(|| {
            format!(
                "{} · protocol {}",
                server.server.clone().unwrap_or_default(),
                server.version.clone().unwrap_or_default()
            )
        });
        let _ = writeln!(
            out,
            "{}",
            short(
                &format!("[{}] {} · {about} · {}", i + 1, server.name, server.target),
                width
            )
        );
    }
    let _ = writeln!(out, "\n{table}\n");
    let nowhere = matrix.rows.iter().filter(|r| r.applies_nowhere()).count();
    if nowhere > 0 {
        let _ = writeln!(out, "{} (--json lists them)\n", nowhere_line(nowhere));
    }
    let _ = writeln!(out, "{LEGEND}");
    let disagreements = matrix.rows.iter().filter(|r| r.disagree).count();
    let _ = writeln!(
        out,
        "{}, {}, {} where the servers disagree",
        counted(matrix.rows.len(), "check", "checks"),
        counted(matrix.servers.len(), "server", "servers"),
        counted(disagreements, "check", "checks")
    );
    out
}

/// The Markdown table.
pub fn markdown(matrix: &Matrix) -> String {
    let mut out = String::from("## mcpcheck compare\n\n");
    for server in &matrix.servers {
        let _ = writeln!(
            out,
            "- **{}** — {} — {}",
            md_text(&server.name),
            md_code(&server.target),
            md_text(&server.fatal.clone().unwrap_or_else(|| format!(
                "{} · protocol {} · {:.0}% ({} passed, {} failed, {})",
                server.server.clone().unwrap_or_default(),
                server.version.clone().unwrap_or_default(),
                server.score,
                server.pass,
                server.fail,
                counted(server.warn, "warning", "warnings")
            )))
        );
    }
    let _ = write!(out, "\n| check | level |");
    for server in &matrix.servers {
        let _ = write!(out, " {} |", md_text(&server.name));
    }
    let _ = write!(out, "\n|---|---|");
    for _ in &matrix.servers {
        out.push_str("---|");
    }
    out.push('\n');
    let (judged, nowhere): (Vec<&Row>, Vec<&Row>) =
        matrix.rows.iter().partition(|r| !r.applies_nowhere());
    let mut area = None;
    for row in judged {
        if area != Some((&row.area, row.disagree)) {
            area = Some((&row.area, row.disagree));
            let _ = write!(out, "| **{}** | |", md_text(&row.area));
            for _ in &matrix.servers {
                out.push_str(" |");
            }
            out.push('\n');
        }
        markdown_row(&mut out, row);
    }
    if !nowhere.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>{}</summary>\n\n| check | level |",
            nowhere_line(nowhere.len())
        );
        for server in &matrix.servers {
            let _ = write!(out, " {} |", md_text(&server.name));
        }
        let _ = write!(out, "\n|---|---|");
        for _ in &matrix.servers {
            out.push_str("---|");
        }
        out.push('\n');
        for row in nowhere {
            markdown_row(&mut out, row);
        }
        out.push_str("\n</details>\n");
    }
    let notes: Vec<String> = matrix
        .rows
        .iter()
        .flat_map(|row| {
            row.cells
                .iter()
                .zip(&matrix.servers)
                .filter(|(cell, _)| cell.noted_pass())
                .map(move |(cell, server)| {
                    format!(
                        "- {} on {}: {}",
                        md_code(&row.id),
                        md_text(&server.name),
                        md_text(cell.note.as_deref().unwrap_or_default())
                    )
                })
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(
            out,
            "\n<details><summary>{} with a note (✓*)</summary>\n\n{}\n\n</details>",
            counted(notes.len(), "pass", "passes"),
            notes.join("\n")
        );
    }
    let _ = writeln!(out, "\n⚡ the servers disagree. {LEGEND}");
    out
}

/// One check's row of the Markdown table.
fn markdown_row(out: &mut String, row: &Row) {
    let id = match &row.spec {
        Some(url) => format!("[{}]({url})", md_code(&row.id)),
        None => md_code(&row.id),
    };
    let _ = write!(
        out,
        "| {id}{} | {} |",
        if row.disagree { " ⚡" } else { "" },
        row.level
    );
    for cell in &row.cells {
        let observed = cell
            .observed
            .clone()
            .filter(|_| !matches!(cell.status, Some(Status::Pass) | Some(Status::Skip) | None));
        let _ = write!(
            out,
            " {}{} |",
            mark(cell),
            observed
                .map(|o| format!(" {}", md_code(&o)))
                .unwrap_or_default()
        );
    }
    out.push('\n');
}

/// The HTML page; every cell expands to its exchange. The legend comes first; the header row
/// (server names, then each one's score) stays in view while the table scrolls; the rows where
/// the servers disagree come in a section of their own, above those where they agree.
pub fn html(matrix: &Matrix) -> String {
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mcpcheck compare</title>\n<style>\nbody{font:14px/1.4 system-ui,sans-serif;margin:2em}\ntable{border-collapse:separate;border-spacing:0}td,th{border:1px solid #d0d7de;padding:.2em .4em;vertical-align:top}\nthead th{position:sticky;background:#fff;z-index:1}thead tr.names th{top:0}thead tr.score th{top:1.9em;font-weight:400;font-size:.9em}\n.pass{background:#dafbe1}.fail,.error{background:#ffebe9}.warn{background:#fff8c5}.skip,.none{background:#f6f8fa}.info,.not-testable{background:#ddf4ff}\ntr.disagree td:first-child{font-weight:600}\ntr.group th{text-align:left;background:#24292f;color:#fff;font-size:1.05em;padding:.4em}tbody.agree tr.group th{background:#57606a}\ntbody.disagree tr:last-child td{border-bottom:4px solid #24292f}\ntr.area th{text-align:left;background:#eaeef2}\n.legend{font-size:.9em;color:#57606a;white-space:pre-line}\npre{white-space:pre-wrap;word-break:break-all;max-width:40em;font-size:12px}\n</style>\n</head>\n<body>\n<h1>mcpcheck compare</h1>\n<ul>\n",
    );
    for server in &matrix.servers {
        let _ = writeln!(
            out,
            "<li><strong>{}</strong> — <code>{}</code> — {}</li>",
            escape(&server.name),
            escape(&server.target),
            escape(&server.fatal.clone().unwrap_or_else(|| format!(
                "{} · protocol {}",
                server.server.clone().unwrap_or_default(),
                server.version.clone().unwrap_or_default(),
            )))
        );
    }
    let _ = writeln!(out, "</ul>\n<p class=\"legend\">{}</p>", escape(LEGEND));
    out.push_str("<table>\n<thead>\n<tr class=\"names\"><th>check</th><th>level</th>");
    for server in &matrix.servers {
        let _ = write!(out, "<th>{}</th>", escape(&server.name));
    }
    out.push_str("</tr>\n<tr class=\"score\"><th>score</th><th></th>");
    for server in &matrix.servers {
        let score = match &server.fatal {
            Some(_) => "could not be tested".to_string(),
            None => format!(
                "{:.0}% · {} passed, {} failed, {}",
                server.score,
                server.pass,
                server.fail,
                counted(server.warn, "warning", "warnings")
            ),
        };
        let _ = write!(out, "<th>{}</th>", escape(&score));
    }
    out.push_str("</tr>\n</thead>\n");
    let columns = matrix.servers.len() + 2;
    let shown: Vec<&Row> = matrix
        .rows
        .iter()
        .filter(|r| !r.applies_nowhere())
        .collect();
    for (disagree, class, heading) in [
        (true, "disagree", "where the servers disagree"),
        (false, "agree", "where the servers agree"),
    ] {
        let rows: Vec<&&Row> = shown.iter().filter(|r| r.disagree == disagree).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<tbody class=\"{class}\">\n<tr class=\"group\"><th colspan=\"{columns}\">{} {heading}</th></tr>",
            counted(rows.len(), "check", "checks")
        );
        let mut area = None;
        for row in rows {
            if area != Some(&row.area) {
                area = Some(&row.area);
                let _ = writeln!(
                    out,
                    "<tr class=\"area\"><th colspan=\"{columns}\">{}</th></tr>",
                    escape(&row.area)
                );
            }
            html_row(&mut out, row);
        }
        out.push_str("</tbody>\n");
    }
    out.push_str("</table>\n");
    let nowhere: Vec<&Row> = matrix.rows.iter().filter(|r| r.applies_nowhere()).collect();
    if !nowhere.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>{}</summary>\n<table>",
            escape(&nowhere_line(nowhere.len()))
        );
        for row in nowhere {
            html_row(&mut out, row);
        }
        out.push_str("</table>\n</details>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// One check's row of the HTML table; every cell expands to its verdict, note and exchange.
fn html_row(out: &mut String, row: &Row) {
    let _ = write!(
        out,
        "<tr class=\"{}\"><td><code>{}</code><br><small>{}</small></td><td>{}</td>",
        if row.disagree { "disagree" } else { "agree" },
        escape(&row.id),
        with_code(&row.title),
        row.level
    );
    for cell in &row.cells {
        let class = cell.status.map(|s| s.as_str()).unwrap_or("none");
        let mut wire = String::new();
        if let Some(message) = &cell.message {
            let _ = writeln!(wire, "{message}");
        }
        if let Some(note) = &cell.note {
            let _ = writeln!(wire, "note: {note}");
        }
        for evidence in &cell.evidence {
            let _ = writeln!(wire, "{}", evidence.wire());
        }
        let _ = write!(
            out,
            "<td class=\"{class}\"><details><summary>{} {}</summary><pre>{}</pre></details></td>",
            mark(cell),
            escape(&cell.observed.clone().unwrap_or_default()),
            escape(wire.trim_end())
        );
    }
    out.push_str("</tr>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Column;
    use crate::record::Level;

    fn cell(status: Option<Status>, note: Option<&str>) -> Cell {
        Cell {
            status,
            observed: None,
            message: None,
            note: note.map(str::to_string),
            evidence: Vec::new(),
        }
    }

    fn row(id: &str, area: &str, cells: Vec<Cell>) -> Row {
        Row {
            id: id.into(),
            title: String::new(),
            area: area.into(),
            level: Level::Must,
            spec: None,
            disagree: false,
            cells,
        }
    }

    fn matrix() -> Matrix {
        let column = |name: &str| Column {
            name: name.into(),
            target: "./server".into(),
            version: Some("2025-11-25".into()),
            server: None,
            fatal: None,
            score: 100.0,
            pass: 1,
            fail: 0,
            warn: 0,
        };
        Matrix {
            schema_version: 1,
            servers: vec![column("a"), column("b")],
            rows: vec![
                row(
                    "judged-check",
                    "jsonrpc",
                    vec![
                        cell(Some(Status::Pass), Some("-32002 accepted during SEP-2164")),
                        cell(Some(Status::Pass), None),
                    ],
                ),
                row(
                    "nowhere-check",
                    "http",
                    vec![cell(Some(Status::Skip), None), cell(None, None)],
                ),
            ],
            reports: Vec::new(),
        }
    }

    #[test]
    fn rows_that_applied_nowhere_collapse_and_areas_head_their_rows() {
        let text = terminal(&matrix(), 120);
        assert!(!text.contains("nowhere-check"), "{text}");
        assert!(
            text.contains("1 check applied to none of these servers"),
            "{text}"
        );
        assert!(text.contains("— jsonrpc —"), "{text}");
        let md = markdown(&matrix());
        assert!(md.contains("| **jsonrpc** |"), "{md}");
        assert!(
            md.contains("<details><summary>1 check applied to none"),
            "{md}"
        );
        // Still a row of the table inside the collapsed block, so that nothing is lost.
        assert!(md.contains("| `nowhere-check` | MUST | - |   |"), "{md}");
        let html = html(&matrix());
        assert!(
            html.contains("<tr class=\"area\"><th colspan=\"4\">jsonrpc</th></tr>"),
            "{html}"
        );
    }

    #[test]
    fn the_html_table_keeps_its_header_in_view_and_sets_disagreements_apart() {
        let mut matrix = matrix();
        matrix.rows[0].disagree = true;
        matrix.servers[1].fatal = Some("no handshake".into());
        let html = html(&matrix);
        // The legend before the table, the header (names, then scores) sticky.
        let legend = html.find("<p class=\"legend\">").unwrap();
        assert!(legend < html.find("<table>").unwrap(), "{html}");
        assert!(html.contains("thead th{position:sticky"), "{html}");
        assert!(
            html.contains("<tr class=\"score\"><th>score</th><th></th><th>100% · 1 passed, 0 failed, 0 warnings</th><th>could not be tested</th></tr>"),
            "{html}"
        );
        // A section per side of the boundary, disagreements first.
        let disagree = html
            .find("<tbody class=\"disagree\">\n<tr class=\"group\"><th colspan=\"4\">1 check where the servers disagree</th></tr>")
            .expect(&html);
        assert!(html[disagree..].contains("judged-check"), "{html}");
        assert!(!html.contains("<tbody class=\"agree\">"), "{html}");
        let agreeing = super::html(&super::tests::matrix());
        assert!(
            agreeing.contains("<tbody class=\"agree\">\n<tr class=\"group\"><th colspan=\"4\">1 check where the servers agree</th></tr>"),
            "{agreeing}"
        );
    }

    #[test]
    fn a_pass_with_a_note_is_marked_and_its_note_shown() {
        let md = markdown(&matrix());
        assert!(md.contains("| `judged-check` | MUST | ✓* | ✓ |"), "{md}");
        assert!(
            md.contains("- `judged-check` on a: -32002 accepted during SEP-2164"),
            "{md}"
        );
        assert!(terminal(&matrix(), 120).contains("✓*"));
        assert!(html(&matrix()).contains("note: -32002 accepted during SEP-2164"));
    }
}
