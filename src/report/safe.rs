//! Server text made safe for the place it is shown. Whatever the server under test sends
//! (its name, error messages, tool descriptions, stderr, header values) is untrusted: it must not
//! steer the user's terminal, inject markup into a report a reviewer trusts, or break a report's
//! format. Each rendering passes server text through the function for its medium:
//!
//! - [`visible`] for JUnit, HTML and multi-line terminal text (the server's stderr), [`terminal`]
//!   for one line of a terminal (a line break written out too): C0 controls other than tab and newline, DEL, C1
//!   controls (so every escape sequence) and the bidirectional overrides that can reorder what a
//!   reader sees are written out as `\x1b`, `\u{9b}`, … (a CR LF pair is kept as a newline).
//!   The result is valid in XML 1.0 too. Colour comes only from mcpcheck itself.
//! - [`md_text`], [`md_code`] and [`md_fence`] for Markdown: every ASCII punctuation character
//!   escaped (no emphasis, link, image, HTML or autolink can form), code spans and fences longer
//!   than any backtick run inside, pipes escaped and lines joined so that tables stay intact.
//!
//! [`map_report`] applies a function to every string of a report that can hold server text.

use std::borrow::Cow;

use serde_json::Value;

use super::{CheckResult, Evidence, Report};

/// Whether a character must be written out rather than passed to a terminal or a report.
fn hidden(c: char) -> bool {
    match c {
        '\t' | '\n' => false,
        // C0, DEL and C1 controls.
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional embeddings, overrides and isolates ("Trojan Source"), and the
        // non-characters XML 1.0 does not allow.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{fffe}' | '\u{ffff}' => true,
        _ => false,
    }
}

/// The text with every control character written out visibly (`\x1b`, `\r`, `\u{202e}`); text
/// without any is returned as it is.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.push_str("\\r"),
            c if hidden(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text bound for one line of a terminal: as [`visible`], and a line break is written out as
/// `\n` too, so that server text cannot start a line of its own (a forged verdict, say).
pub fn terminal(text: &str) -> Cow<'_, str> {
    match visible(text) {
        Cow::Borrowed(text) if !text.contains('\n') => Cow::Borrowed(text),
        text => Cow::Owned(text.replace('\n', "\\n")),
    }
}

/// Plain Markdown text that renders as exactly these characters on one line. Every character
/// that can open markup in CommonMark or GitHub's dialect is backslash-escaped — emphasis,
/// strikethrough, code, links and images, HTML and entities, headings, table cells, math, and
/// the bare autolinks GitHub makes of `www.`, `scheme://` and `user@host` — and line breaks
/// become spaces. Other punctuation is left alone, so mcpcheck's own sentences stay readable.
pub fn md_text(text: &str) -> String {
    let text = visible(text);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let escape = match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '!' | '|' | '~' | '&' | '#' | '@'
            | '$' => true,
            ':' => chars[i + 1..].starts_with(&['/', '/']),
            '.' => i >= 3 && chars[i - 3..i].iter().all(|w| w.eq_ignore_ascii_case(&'w')),
            _ => false,
        };
        match c {
            '\n' | '\t' => out.push(' '),
            c if escape => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A Markdown code span holding exactly this text on one line, safe inside a table cell: its
/// backtick fence is longer than any run of backticks inside, and pipes are escaped (GitHub
/// unescapes `\|` in a table cell before it reads the span).
pub fn md_code(text: &str) -> String {
    let text = visible(text).replace(['\n', '\t'], " ");
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.trim().is_empty() {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{}{pad}{ticks}", text.replace('|', "\\|"))
}

/// A fenced Markdown code block (info string `text`) holding this text: the fence is longer
/// than any backtick run inside, so the text cannot close it.
pub fn md_fence(text: &str) -> String {
    md_fence_as(text, "text")
}

/// A fenced Markdown code block with this info string (`sh` for a script), fenced like
/// [`md_fence`].
pub fn md_fence_as(text: &str, info: &str) -> String {
    let text = visible(text);
    let fence = "`".repeat((longest_run(&text, '`') + 1).max(4));
    format!("{fence}{info}\n{text}\n{fence}")
}

/// The length of the longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for x in text.chars() {
        run = if x == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// The report with `f` applied to every string that can hold what the server sent or said
/// (mcpcheck's own vocabulary — ids, statuses, levels, citations — is left alone).
pub fn map_report(report: &Report, f: &dyn Fn(&str) -> Cow<'_, str>) -> Report {
    let mut report = report.clone();
    let apply = |s: &mut String| {
        if let Cow::Owned(new) = f(s) {
            *s = new;
        }
    };
    if let Some(command) = &mut report.target.command {
        command.iter_mut().for_each(apply);
    }
    report.target.url.iter_mut().for_each(apply);
    for protocol in std::iter::once(&mut report.protocol).chain(&mut report.other_eras) {
        for value in [&mut protocol.server_info, &mut protocol.capabilities]
            .into_iter()
            .flatten()
        {
            map_value(value, f);
        }
    }
    for protocol in std::iter::once(&mut report.protocol).chain(&mut report.other_eras) {
        for field in [&mut protocol.version, &mut protocol.era] {
            field.iter_mut().for_each(apply);
        }
        apply(&mut protocol.detection);
    }
    report.eras_note.iter_mut().for_each(apply);
    if let Some(server) = &mut report.server {
        apply(&mut server.stderr_tail);
        if let Some(exit) = &mut server.exit {
            apply(&mut exit.status);
        }
    }
    report.fatal.iter_mut().for_each(apply);
    for check in &mut report.checks {
        map_check(check, f);
    }
    report
}

fn map_check(check: &mut CheckResult, f: &dyn Fn(&str) -> Cow<'_, str>) {
    let apply = |s: &mut String| {
        if let Cow::Owned(new) = f(s) {
            *s = new;
        }
    };
    apply(&mut check.title);
    apply(&mut check.message);
    apply(&mut check.expected);
    check.actual.iter_mut().for_each(apply);
    check.note.iter_mut().for_each(apply);
    check.evidence.iter_mut().for_each(|e| map_evidence(e, f));
}

/// `f` applied to every string of one piece of evidence.
pub fn map_evidence(evidence: &mut Evidence, f: &dyn Fn(&str) -> Cow<'_, str>) {
    let apply = |s: &mut String| {
        if let Cow::Owned(new) = f(s) {
            *s = new;
        }
    };
    apply(&mut evidence.label);
    evidence.sent.iter_mut().for_each(apply);
    evidence.received.iter_mut().for_each(apply);
    evidence.remark.iter_mut().for_each(apply);
    evidence.sent_headers.iter_mut().for_each(apply);
    evidence.response_headers.iter_mut().for_each(apply);
    evidence
        .notifications
        .iter_mut()
        .for_each(|v| map_value(v, f));
}

/// `f` applied to every string of a JSON value, member names included.
fn map_value(value: &mut Value, f: &dyn Fn(&str) -> Cow<'_, str>) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(new) = f(s) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| map_value(v, f)),
        Value::Object(map) => {
            if map.keys().any(|k| matches!(f(k), Cow::Owned(_))) {
                let old = std::mem::take(map);
                for (k, mut v) in old {
                    map_value(&mut v, f);
                    map.insert(f(&k).into_owned(), v);
                }
            } else {
                map.values_mut().for_each(|v| map_value(v, f));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_out_and_plain_text_is_untouched() {
        assert!(matches!(visible("plain\ttext\n"), Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{1b}]52;c;aGk=\u{7}\u{1b}[2J"),
            "\\x1b]52;c;aGk=\\x07\\x1b[2J"
        );
        assert_eq!(visible("a\r\nb\rc"), "a\nb\\rc");
        assert_eq!(visible("\u{9b}31m \u{7f}"), "\\x9b31m \\x7f");
        assert_eq!(visible("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(visible("\u{0}\u{ffff}"), "\\x00\\u{ffff}");
        assert_eq!(terminal("a\r\nb\u{1b}"), "a\\nb\\x1b");
    }

    #[test]
    fn markdown_text_cannot_form_markup() {
        assert_eq!(
            md_text("![x](https://e.example/a.png) <b>|\n# h"),
            "\\!\\[x\\](https\\://e.example/a.png) \\<b\\>\\| \\# h"
        );
        assert_eq!(
            md_text("WWW.a.b a@b *c* $x$ &lt; ~d~ `e`"),
            "WWW\\.a.b a\\@b \\*c\\* \\$x\\$ \\&lt; \\~d\\~ \\`e\\`"
        );
        assert_eq!(
            md_text("2025-11-25: 3 passed, 1 failed"),
            "2025-11-25: 3 passed, 1 failed"
        );
    }

    #[test]
    fn markdown_code_spans_and_fences_outlast_their_content() {
        assert_eq!(md_code("a|b"), "`a\\|b`");
        assert_eq!(md_code("x `` y"), "```x `` y```");
        assert_eq!(md_code("`x"), "`` `x ``");
        assert_eq!(md_fence("a\n````\nb"), "`````text\na\n````\nb\n`````");
        assert_eq!(md_fence("a"), "````text\na\n````");
    }
}
