//! Reading scenario files: TOML parsing, validation, and errors that point at file:line:column.

mod query;
mod steps;

pub(crate) use query::parse_query;

use steps::{resolve_check, resolve_step};

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use toml::Spanned;

use super::file::{CheckFile, RuleFile, ScenarioFile, StepFile};
use super::model::{
    Capture, ForEach, Mode, Poll, Requires, Rule, Scenario, ScenarioCheck, SessionKind, Step,
    StepSend,
};
use super::template;
use crate::record::TransportKind;
use crate::record::{Era, VersionRange};

/// The fixture sets a scenario may require (`requires.fixtures`) and `--fixtures` selects.
pub const FIXTURE_SETS: &[&str] = &["everything"];

/// A problem in a scenario file, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The offending line with a caret under the column.
    pub snippet: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.line, self.column, self.message
        )?;
        if !self.snippet.is_empty() {
            write!(f, "\n{}", self.snippet)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

struct Source<'a> {
    path: &'a str,
    text: &'a str,
    /// When the file's JSON Schemas and regular expressions are compiled.
    compile: Compile,
}

/// When the JSON Schemas and regular expressions of a scenario file's predicates are compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compile {
    /// As the file is loaded: one that does not compile is an error at its line (a file a user
    /// gives).
    Now,
    /// When a run first uses it (the built-in library, whose test compiles them all).
    WhenUsed,
}

impl Source<'_> {
    fn error(&self, span: Option<Range<usize>>, message: impl Into<String>) -> LoadError {
        let offset = span.map_or(0, |s| s.start).min(self.text.len());
        let before = &self.text[..offset];
        let line = self.line(offset);
        let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
        let column = self.text[line_start..offset].chars().count() + 1;
        let line_text = self.text[line_start..].lines().next().unwrap_or("");
        let gutter = " ".repeat(line.to_string().len());
        let snippet = format!(
            "{gutter} |\n{line} | {line_text}\n{gutter} | {}^",
            " ".repeat(column - 1)
        );
        LoadError {
            path: self.path.to_string(),
            line,
            column,
            message: message.into(),
            snippet,
        }
    }

    /// The 1-based line an offset of the text is on.
    fn line(&self, offset: usize) -> usize {
        let before = &self.text.as_bytes()[..offset.min(self.text.len())];
        memchr::memchr_iter(b'\n', before).count() + 1
    }

    fn at<T>(&self, spanned: &Spanned<T>, message: impl Into<String>) -> LoadError {
        self.error(Some(spanned.span()), message)
    }
}

/// Parses and validates one scenario file.
pub fn parse(path: &str, text: &str) -> Result<Scenario, LoadError> {
    parse_compiling(path, text, Compile::Now)
}

/// Parses and validates one scenario file, compiling its schemas and regular expressions now or
/// when first used.
fn parse_compiling(path: &str, text: &str, compile: Compile) -> Result<Scenario, LoadError> {
    let source = Source {
        path,
        text,
        compile,
    };
    let file: ScenarioFile = toml::from_str(text)
        .map_err(|e| source.error(e.span(), e.message().trim_end().to_string()))?;
    let scenario = resolve(&source, file)?;
    check_placeholders(&source, &scenario)?;
    Ok(scenario)
}

/// Every `{{…}}` in the file names something a run can fill: a placeholder that names nothing
/// (a typo, a capture no step makes) is an error here, at its line and column, instead of a
/// message that shows it unfilled at run time.
fn check_placeholders(source: &Source, scenario: &Scenario) -> Result<(), LoadError> {
    let captured: Vec<&str> = scenario
        .steps
        .iter()
        .flat_map(|s| s.capture.iter().map(|c| c.name.as_str()))
        .collect();
    // A query may name the file's steps (`{{step.NAME/…}}`).
    let steps: HashSet<String> = scenario.steps.iter().map(|s| s.name.clone()).collect();
    // Comments say what they like: only the file's values are filled in.
    let text = without_comments(source.text);
    let sections = step_sections(&text);
    let mut from = 0;
    while let Some(start) = memchr::memmem::find(&text.as_bytes()[from..], b"{{").map(|i| from + i)
    {
        let Some(end) = memchr::memmem::find(&text.as_bytes()[start..], b"}}").map(|i| start + i)
        else {
            return Err(source.error(Some(start..start), "`{{` is not closed by `}}`"));
        };
        let name = text[start + 2..end].trim();
        let name = name.strip_suffix('?').unwrap_or(name);
        let query = |name: &str| {
            query::parse_query(name, Some(&steps))
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        // The last table header before the placeholder says whether it is in a step.
        let in_step = sections
            .partition_point(|(at, _)| *at < start)
            .checked_sub(1)
            .is_some_and(|last| sections[last].1);
        if let Some(why) = template::unknown(name, &captured, &query, !in_step) {
            return Err(source.error(Some(start..end), why));
        }
        from = end + 2;
    }
    Ok(())
}

/// The table headers of a scenario file (its comments blanked), in order: where each begins, and
/// whether it opens a step's table (`[[step]]`, `[step.…]`).
fn step_sections(text: &str) -> Vec<(usize, bool)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // A header's line begins with `[` once blanks are passed: each `[` is looked back from to
    // its line's start (most are inside a line, and stop the look at once).
    for bracket in memchr::memchr_iter(b'[', bytes) {
        let at = memchr::memrchr(b'\n', &bytes[..bracket]).map_or(0, |n| n + 1);
        if !text[at..bracket].trim_start().is_empty() {
            continue;
        }
        let end = memchr::memchr(b'\n', &bytes[bracket..]).map_or(bytes.len(), |n| bracket + n);
        let name = text[at..end]
            .trim()
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            .map(|l| l.trim_start_matches('[').trim_end_matches(']'))
            .filter(|name| {
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
            });
        if let Some(name) = name {
            out.push((at, name == "step" || name.starts_with("step.")));
        }
    }
    out
}

/// The TOML text with every comment blanked out (each byte of it a space, so that offsets stay
/// those of the file): a `#` outside a string starts a comment that runs to the end of the line.
/// The text is searched for the bytes that can change what follows (quotes, `#`, escapes, line
/// ends), not walked byte by byte: every run loads the whole library.
fn without_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while let Some(at) = memchr::memchr3(b'#', b'"', b'\'', &bytes[i..]) {
        i += at;
        match bytes[i] {
            b'#' => {
                let end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
                out[i..end].fill(b' ');
                i = end;
            }
            quote => {
                let triple = bytes[i..].starts_with(&[quote; 3]);
                i = string_end(bytes, i + if triple { 3 } else { 1 }, quote, triple);
            }
        }
    }
    // A comment runs to a newline, so it is whole characters that became spaces.
    String::from_utf8(out).expect("whole characters blanked")
}

/// Where a TOML string whose opening quote ends before `i` ends: just past its closing quote (or
/// three), past the newline that ends a one-line string left open, or at the end of the text.
/// Basic strings (`"`) have escapes, literal ones (`'`) none.
fn string_end(bytes: &[u8], mut i: usize, quote: u8, triple: bool) -> usize {
    loop {
        let rest = &bytes[i.min(bytes.len())..];
        let found = match (quote == b'"', triple) {
            (true, false) => memchr::memchr3(b'\\', b'"', b'\n', rest),
            (true, true) => memchr::memchr2(b'\\', b'"', rest),
            (false, false) => memchr::memchr2(b'\'', b'\n', rest),
            (false, true) => memchr::memchr(b'\'', rest),
        };
        let Some(at) = found else {
            return bytes.len();
        };
        i += at;
        match bytes[i] {
            b'\\' => i += 2,
            _ if !triple => return i + 1,
            _ if bytes[i..].starts_with(&[quote; 3]) => return i + 3,
            _ => i += 1,
        }
    }
}

fn resolve(source: &Source, file: ScenarioFile) -> Result<Scenario, LoadError> {
    let id = file.id.get_ref().clone();
    if !is_kebab(&id) {
        return Err(source.at(
            &file.id,
            "a scenario id must be kebab-case (lowercase letters, digits and `-`)",
        ));
    }
    let session = match file.session.as_ref().map(|s| s.get_ref().as_str()) {
        None | Some("shared") => SessionKind::Shared,
        Some("fresh") => SessionKind::Fresh,
        Some("bare") => SessionKind::Bare,
        Some("probe") => SessionKind::Probe,
        Some(other) => {
            return Err(source.at(
                file.session.as_ref().expect("some"),
                format!("unknown session `{other}`; use `shared`, `probe`, `fresh` or `bare`"),
            ))
        }
    };
    let requires = Requires {
        capabilities: file.requires.capabilities.clone(),
        undeclared: file.requires.undeclared.clone(),
        tools: file.requires.tools.clone(),
        prompts: file.requires.prompts.clone(),
        resources: file.requires.resources.clone(),
        versions: match &file.requires.versions {
            Some(v) => VersionRange::parse(v.get_ref()).map_err(|e| source.at(v, e))?,
            None => VersionRange::default(),
        },
        transports: match &file.requires.transport {
            None => Vec::new(),
            Some(t) => transports(source, t)?,
        },
        era: match &file.requires.era {
            None => None,
            Some(e) => Some(match e.get_ref().as_str() {
                "handshake" => Era::Handshake,
                "stateless" => Era::Stateless,
                other => {
                    return Err(source.at(
                        e,
                        format!("unknown era `{other}`; use `handshake` or `stateless`"),
                    ))
                }
            }),
        },
        fixtures: match &file.requires.fixtures {
            None => None,
            Some(p) if FIXTURE_SETS.contains(&p.get_ref().as_str()) => Some(p.get_ref().clone()),
            Some(p) => {
                return Err(source.at(
                    p,
                    format!(
                        "unknown fixture set `{}`; use {}",
                        p.get_ref(),
                        FIXTURE_SETS.join(", ")
                    ),
                ))
            }
        },
        call_tools: file.requires.call_tools,
    };
    let mut steps = Vec::new();
    let mut names = HashSet::new();
    let mut background = false;
    for step in file.steps {
        if let Some(b) = &step.background {
            if std::mem::replace(&mut background, true) {
                return Err(source.at(b, "a scenario has at most one `background` step"));
            }
        }
        let resolved = resolve_step(source, step, session, &requires.transports)?;
        names.insert(resolved.name.clone());
        steps.push(resolved);
    }
    let mut checks = Vec::new();
    let mut used = HashSet::new();
    for check in file.checks {
        checks.push(resolve_check(
            source,
            check,
            &file.area,
            &names,
            &requires,
            (&file.rules, &mut used),
        )?);
    }
    // A shared list no check takes in is a leftover.
    if let Some(unused) = file
        .rules
        .keys()
        .find(|name| !used.contains(name.get_ref()))
    {
        return Err(source.at(
            unused,
            format!(
                "no check uses the shared rules `{}`: take them in with {{ use = \"{}\" }} or remove them",
                unused.get_ref(),
                unused.get_ref()
            ),
        ));
    }
    if checks.is_empty() {
        return Err(source.at(&file.id, "a scenario needs at least one [[check]]"));
    }
    Ok(Scenario {
        id,
        area: file.area,
        title: file.title,
        source: source.path.to_string(),
        session,
        requires,
        steps,
        checks,
    })
}

fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
}

/// The transports of `[requires]`: one name, or a list of names.
fn transports(source: &Source, t: &Spanned<toml::Value>) -> Result<Vec<TransportKind>, LoadError> {
    let names: Vec<&toml::Value> = match t.get_ref() {
        toml::Value::Array(names) if !names.is_empty() => names.iter().collect(),
        toml::Value::Array(_) => {
            return Err(source.at(
                t,
                "`transport` lists no transport; leave it out to run over every transport",
            ))
        }
        one => vec![one],
    };
    let mut out = Vec::new();
    for name in names {
        let kind = match name.as_str() {
            Some("stdio") => TransportKind::Stdio,
            Some("http") => TransportKind::Http,
            Some("sse" | "legacy-sse") => TransportKind::LegacySse,
            Some(other) => {
                return Err(source.at(
                    t,
                    format!("unknown transport `{other}`; use `stdio`, `http` or `sse` (the 2024-11-05 HTTP+SSE transport; `legacy-sse` names it too)"),
                ))
            }
            None => return Err(source.at(
                t,
                "`transport` is a transport's name (`stdio`, `http` or `sse`) or a list of them",
            )),
        };
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    Ok(out)
}

/// The scenario library compiled into mcpcheck: (path, contents).
pub fn library_files() -> &'static [(&'static str, &'static str)] {
    include!(concat!(env!("OUT_DIR"), "/library.rs"))
}

/// Loads the built-in library (a copy of [`library_ref`]'s).
pub fn library() -> Result<Vec<Scenario>, Vec<LoadError>> {
    library_ref()
        .map(|library| library.iter().map(|s| Scenario::clone(s)).collect())
        .map_err(<[LoadError]>::to_vec)
}

/// The built-in library, parsed once per process and shared: a run reads it for its scenarios
/// and again for the profiles that grade them, and the self-test makes hundreds of runs in one
/// process, none copying it.
pub fn library_ref() -> Result<&'static [Arc<Scenario>], &'static [LoadError]> {
    static LIBRARY: std::sync::OnceLock<Result<Vec<Arc<Scenario>>, Vec<LoadError>>> =
        std::sync::OnceLock::new();
    LIBRARY
        .get_or_init(|| {
            let parsed = library_files()
                .iter()
                .map(|(path, text)| parse_compiling(path, text, Compile::WhenUsed));
            collect(parsed).map(|library| library.into_iter().map(Arc::new).collect())
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Vec::as_slice)
}

/// The built-in library as a run takes it: its scenarios shared, not copied.
pub fn library_shared() -> Result<Vec<Arc<Scenario>>, Vec<LoadError>> {
    library_ref()
        .map(<[Arc<Scenario>]>::to_vec)
        .map_err(<[LoadError]>::to_vec)
}

/// Loads every `*.toml` file under a directory (recursively, in name order), or the one file a
/// path names. A directory without a scenario file is an error, not an empty library.
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let error = |message: String| {
        vec![LoadError {
            path: dir.display().to_string(),
            line: 1,
            column: 1,
            message,
            snippet: String::new(),
        }]
    };
    let mut files = Vec::new();
    if dir.is_file() {
        files.push(dir.to_path_buf());
    } else {
        walk(dir, &mut files).map_err(error)?;
        if files.is_empty() {
            return Err(error(
                "the scenario folder holds no *.toml file (--scenarios takes a folder of scenario files, or one file)"
                    .into(),
            ));
        }
    }
    files.sort();
    collect(files.iter().map(|path| {
        let shown = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => parse(&shown, &text),
            Err(e) => Err(LoadError {
                path: shown,
                line: 1,
                column: 1,
                message: format!("cannot read the file: {e}"),
                snippet: String::new(),
            }),
        }
    }))
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read the scenario directory: {e}"))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
    Ok(())
}

fn collect(
    results: impl Iterator<Item = Result<Scenario, LoadError>>,
) -> Result<Vec<Scenario>, Vec<LoadError>> {
    let (mut ok, mut errors) = (Vec::new(), Vec::new());
    for result in results {
        match result {
            Ok(s) => ok.push(s),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(ok)
    } else {
        Err(errors)
    }
}

/// Rejects scenario ids and check ids used twice (also against the built-in check ids).
pub fn check_unique<S: Borrow<Scenario>>(
    scenarios: &[S],
    builtin: &[&str],
) -> Result<(), Vec<LoadError>> {
    let mut errors = Vec::new();
    let mut seen_scenarios: HashMap<&str, &str> = HashMap::new();
    let mut seen_checks: HashMap<&str, &str> = builtin.iter().map(|id| (*id, "built-in")).collect();
    for scenario in scenarios.iter().map(Borrow::borrow) {
        if let Some(first) = seen_scenarios.insert(&scenario.id, &scenario.source) {
            errors.push(LoadError {
                path: scenario.source.clone(),
                line: 1,
                column: 1,
                message: format!("scenario id `{}` is already used by {first}", scenario.id),
                snippet: String::new(),
            });
        }
        for check in &scenario.checks {
            if let Some(first) = seen_checks.insert(&check.def.id, &check.def.source) {
                let (path, line) = check
                    .def
                    .source
                    .rsplit_once(':')
                    .unwrap_or((&check.def.source, "1"));
                errors.push(LoadError {
                    path: path.to_string(),
                    line: line.parse().unwrap_or(1),
                    column: 1,
                    message: format!("check id `{}` is already used by {first}", check.def.id),
                    snippet: String::new(),
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests;
