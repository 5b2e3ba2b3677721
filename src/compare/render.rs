//! Renderings of the comparison matrix: the terminal (fits 120 columns by abbreviating),
//! Markdown, and self-contained HTML whose every cell expands to the exact exchange.

use std::fmt::Write;

use comfy_table::{ContentArrangement, Table};

use super::{Cell, Matrix};
use crate::check::Status;
use crate::report::html::escape;
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
    short(
        format!("{} {observed}", symbol(cell.status)).trim_end(),
        width,
    )
}

const LEGEND: &str = "✓ pass  ✗ fail  ! warn  E error  ? not testable  i info  - not applicable\nafter a mark: the error code, H + the HTTP status, isError (a tool result marked isError), none (no reply)";

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
    for row in &matrix.rows {
        if !row.disagree && !agreed {
            agreed = true;
            let mut separator = vec![short("— all agree —", id_width)];
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
    let _ = writeln!(out, "\n{table}\n\n{LEGEND}");
    let disagreements = matrix.rows.iter().filter(|r| r.disagree).count();
    let _ = writeln!(
        out,
        "{} checks, {} servers, {disagreements} checks where the servers disagree",
        matrix.rows.len(),
        matrix.servers.len()
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
                "{} · protocol {} · {:.0}% ({} passed, {} failed, {} warnings)",
                server.server.clone().unwrap_or_default(),
                server.version.clone().unwrap_or_default(),
                server.score,
                server.pass,
                server.fail,
                server.warn
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
    for row in &matrix.rows {
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
                symbol(cell.status),
                observed
                    .map(|o| format!(" {}", md_code(&o)))
                    .unwrap_or_default()
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "\n⚡ the servers disagree. {LEGEND}");
    out
}

/// The HTML page; every cell expands to its exchange.
pub fn html(matrix: &Matrix) -> String {
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mcpcheck compare</title>\n<style>\nbody{font:14px/1.4 system-ui,sans-serif;margin:2em}\ntable{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .4em;vertical-align:top}\n.pass{background:#dafbe1}.fail,.error{background:#ffebe9}.warn{background:#fff8c5}.skip,.none{background:#f6f8fa}.info,.not-testable{background:#ddf4ff}\ntr.disagree td:first-child{font-weight:600}\npre{white-space:pre-wrap;word-break:break-all;max-width:40em;font-size:12px}\n</style>\n</head>\n<body>\n<h1>mcpcheck compare</h1>\n<ul>\n",
    );
    for server in &matrix.servers {
        let _ = writeln!(
            out,
            "<li><strong>{}</strong> — <code>{}</code> — {}</li>",
            escape(&server.name),
            escape(&server.target),
            escape(&server.fatal.clone().unwrap_or_else(|| format!(
                "{} · protocol {} · {:.0}%",
                server.server.clone().unwrap_or_default(),
                server.version.clone().unwrap_or_default(),
                server.score
            )))
        );
    }
    out.push_str("</ul>\n<table>\n<tr><th>check</th><th>level</th>");
    for server in &matrix.servers {
        let _ = write!(out, "<th>{}</th>", escape(&server.name));
    }
    out.push_str("</tr>\n");
    for row in &matrix.rows {
        let _ = write!(
            out,
            "<tr class=\"{}\"><td><code>{}</code><br><small>{}</small></td><td>{}</td>",
            if row.disagree { "disagree" } else { "agree" },
            escape(&row.id),
            escape(&row.title),
            row.level
        );
        for cell in &row.cells {
            let class = cell.status.map(|s| s.as_str()).unwrap_or("none");
            let mut wire = String::new();
            if let Some(message) = &cell.message {
                let _ = writeln!(wire, "{message}");
            }
            for evidence in &cell.evidence {
                let _ = writeln!(wire, "{}", evidence.wire());
            }
            let _ = write!(
                out,
                "<td class=\"{class}\"><details><summary>{} {}</summary><pre>{}</pre></details></td>",
                symbol(cell.status),
                escape(&cell.observed.clone().unwrap_or_default()),
                escape(wire.trim_end())
            );
        }
        out.push_str("</tr>\n");
    }
    let _ = writeln!(out, "</table>\n<p>{}</p>\n</body>\n</html>", escape(LEGEND));
    out
}
