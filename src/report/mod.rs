//! One report model for a run, rendered many ways: the terminal table and JSON (documented in
//! docs/report-format.md). Secrets are redacted from the model before any rendering
//! ([`redact`]), and server text is made safe for each rendering ([`safe`]).

pub mod annotations;
pub mod assemble;
pub mod badge;
pub mod grade;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod merge;
pub mod official;
pub mod redact;
pub mod repro;
pub mod safe;
pub mod sarif;
pub mod terminal;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::record::{CheckDef, Level, SpecRef, Status, Verdict};
use crate::record::{ExitReport, Reason, TransportKind};

use crate::record::Evidence;

/// Why a file mcpcheck reads back (a JSON report, a baseline) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// It could not be read.
    #[error("cannot read {what}{}: {source}", path.display())]
    Read {
        /// What the file is, with a space (`the baseline `), or nothing.
        what: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a JSON report.
    #[error("{} is not an mcpcheck JSON report: {source}", path.display())]
    NotAReport {
        /// The file.
        path: std::path::PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// It is not in its format, at this line.
    #[error("{}:{line}: {message}", path.display())]
    At {
        /// The file.
        path: std::path::PathBuf,
        /// The line.
        line: usize,
        /// The parser's words.
        message: String,
    },
}

impl Report {
    /// Reads a JSON report written by `mcpcheck run --json`.
    pub fn read(path: &std::path::Path) -> Result<Report, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::Read {
            what: "",
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| FileError::NotAReport {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// The version of the JSON report format (2: every check names the protocol version it was
/// judged at, and a run may judge more than one era).
pub const SCHEMA_VERSION: u32 = 2;

/// Everything a run found.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The report format's version.
    pub schema_version: u32,
    /// mcpcheck's own version.
    pub mcpcheck_version: String,
    /// What was tested.
    pub target: TargetInfo,
    /// What was negotiated (in the first era judged, when more than one was).
    pub protocol: ProtocolInfo,
    /// The other eras judged in the same run: a server that answers server/discover and also
    /// completes the initialize handshake is judged in both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_eras: Vec<ProtocolInfo>,
    /// A note on what could not be judged: why an era was not judged, when mcpcheck tried it
    /// (the handshake of a server that answers server/discover), or that a protected server
    /// was met without a token (only the authorization checks could be made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eras_note: Option<String>,
    /// stdio: how many server processes the run started, every pass together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_starts: Option<usize>,
    /// Each scenario that ended the shared connection it ran on, the probe connection or (over
    /// stdio) a lane (it closed, or stopped answering a barrier with a result), and how; the
    /// scenarios after it went on on a new connection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes_ended: Vec<String>,
    /// How the stdio server (or the `--serve` command) behaved as a process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerProcess>,
    /// Set when the server could not be tested at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fatal: Option<String>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// How long the run took.
    pub duration_ms: u64,
    /// Counts per status.
    pub summary: Summary,
    /// How the run was graded (profile, strictness, baseline) and the exit code that follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grading: Option<grade::Grading>,
    /// One entry per check.
    pub checks: Vec<CheckResult>,
}

/// What was tested.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TargetInfo {
    /// The transport (`stdio`, `http` or `sse` in the JSON report).
    pub transport: TransportKind,
    /// The command: the server's, for stdio; for HTTP the `--serve` command that started it,
    /// if mcpcheck did (a replay starts it again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The URL, for HTTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl TargetInfo {
    /// What the server is: its URL for HTTP (a `--serve` command is not named), else its
    /// command line quoted so that it can be pasted back into a shell.
    pub fn shown(&self) -> String {
        match (&self.url, &self.command) {
            (Some(url), _) => url.clone(),
            (None, Some(command)) => command_line(command),
            _ => String::new(),
        }
    }

    /// `stdio: COMMAND`, `http: URL` or `sse: URL`: the one label every report gives a target.
    pub fn label(&self) -> String {
        match self.shown() {
            shown if shown.is_empty() => self.transport.to_string(),
            shown => format!("{}: {shown}", self.transport),
        }
    }
}

/// What was negotiated, and how.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolInfo {
    /// `handshake` or `stateless`.
    pub era: Option<String>,
    /// The negotiated revision, by name (`2026-07-28`): what the checks were judged at.
    pub version: Option<String>,
    /// The negotiated revision's wire string: the `protocolVersion` the conversation carried.
    /// The same as the name for every released revision; a draft's differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_version: Option<String>,
    /// The revision mcpcheck asked for, by name.
    pub requested_version: Option<String>,
    /// How the era was determined.
    pub detection: String,
    /// The server's `serverInfo`.
    pub server_info: Option<Value>,
    /// The server's capabilities.
    pub capabilities: Option<Value>,
}

/// How the stdio server (or the `--serve` command) behaved as a process.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerProcess {
    /// How it ended.
    pub exit: Option<ExitReport>,
    /// The end of its stderr.
    pub stderr_tail: String,
}

/// Counts per status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// All checks.
    pub total: usize,
    /// Passed.
    pub pass: usize,
    /// Failed (a MUST broken).
    pub fail: usize,
    /// Warnings (a SHOULD broken).
    pub warn: usize,
    /// Observations.
    pub info: usize,
    /// Not applicable.
    pub skip: usize,
    /// Prerequisite missing.
    pub not_testable: usize,
    /// Harness trouble.
    pub error: usize,
}

impl Summary {
    /// Counts the statuses of `checks`.
    pub fn of(checks: &[CheckResult]) -> Summary {
        let mut s = Summary {
            total: checks.len(),
            ..Summary::default()
        };
        for check in checks {
            *s.slot(check.status) += 1;
        }
        s
    }

    fn slot(&mut self, status: Status) -> &mut usize {
        match status {
            Status::Pass => &mut self.pass,
            Status::Fail => &mut self.fail,
            Status::Warn => &mut self.warn,
            Status::Info => &mut self.info,
            Status::Skip => &mut self.skip,
            Status::NotTestable => &mut self.not_testable,
            Status::Error => &mut self.error,
        }
    }
}

/// One check's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    /// The stable id.
    pub id: String,
    /// What is checked.
    pub title: String,
    /// The spec area.
    pub area: String,
    /// The verdict.
    pub status: Status,
    /// The requirement level.
    pub level: Level,
    /// Whether the requirement is derived rather than stated.
    pub derived: bool,
    /// Citations.
    pub spec: Vec<SpecRef>,
    /// Why, in one sentence.
    pub message: String,
    /// Why the check did not apply (a skip) or could not be made (not testable, an error): what
    /// readers match on (`reason: {kind, …}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// What a conforming server does.
    pub expected: String,
    /// What was observed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// A remark that does not change the status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where the check is defined.
    pub source: String,
    /// The protocol version the check was judged at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Set when the run judged this check in more than one era: the report then has one result
    /// per era, each named `id@version`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_era: bool,
    /// Set when the check's scenario spoke on a connection of its own without the handshake, so
    /// a replay of its exchanges sends nothing before them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bare_session: bool,
    /// The exchanges behind the verdict.
    pub evidence: Vec<Evidence>,
}

impl CheckResult {
    /// Builds a result from a definition, a verdict and evidence.
    pub fn new(def: &CheckDef, verdict: Verdict, evidence: Vec<Evidence>) -> CheckResult {
        CheckResult {
            id: def.id.clone(),
            title: def.title.clone(),
            area: def.area.clone(),
            status: verdict.status,
            level: def.level,
            derived: def.derived,
            spec: def.spec.clone(),
            message: verdict.message,
            reason: verdict.reason,
            expected: def.expect.clone(),
            actual: verdict.actual,
            note: verdict.note,
            source: def.source.clone(),
            version: None,
            per_era: false,
            bare_session: false,
            evidence,
        }
    }

    /// A result of a test's own: a MUST of area `test` with this status, and nothing else.
    #[cfg(test)]
    pub(crate) fn bare(id: &str, status: Status) -> CheckResult {
        CheckResult {
            id: id.into(),
            title: String::new(),
            area: "test".into(),
            status,
            level: Level::Must,
            derived: false,
            spec: Vec::new(),
            message: String::new(),
            reason: None,
            expected: String::new(),
            actual: None,
            note: None,
            source: String::new(),
            version: None,
            per_era: false,
            bare_session: false,
            evidence: Vec::new(),
        }
    }

    /// The evidence of the steps the check judges, without the ones it only turns on (a bare
    /// connection's own `initialize`, marked `context`).
    pub fn judged_evidence(&self) -> impl Iterator<Item = &Evidence> {
        self.evidence.iter().filter(|e| !e.context)
    }

    /// The name the check goes by in this report: its id, or `id@version` when the run judged
    /// it in more than one era.
    pub fn name(&self) -> String {
        match (&self.version, self.per_era) {
            (Some(version), true) => format!("{}@{version}", self.id),
            _ => self.id.clone(),
        }
    }
}

impl Report {
    /// Each check's mark in the grading, by name (none when the report was not graded).
    pub fn marks(&self) -> std::collections::HashMap<&str, grade::Mark> {
        self.grading.as_ref().map(|g| g.marks()).unwrap_or_default()
    }

    /// The checks by area, each area's worst first (then by name), the worst areas first and the
    /// areas where nothing applied last: the order the terminal and HTML reports show them in.
    pub fn areas_worst_first(&self) -> Vec<(&str, Vec<&CheckResult>)> {
        let mut areas: std::collections::BTreeMap<&str, Vec<&CheckResult>> =
            std::collections::BTreeMap::new();
        for check in &self.checks {
            areas.entry(check.area.as_str()).or_default().push(check);
        }
        let mut areas: Vec<(&str, Vec<&CheckResult>)> = areas.into_iter().collect();
        for (_, checks) in &mut areas {
            checks.sort_by(|a, b| a.status.cmp(&b.status).then(a.name().cmp(&b.name())));
        }
        areas.sort_by_key(|(name, checks)| {
            let worst = checks
                .iter()
                .map(|c| c.status)
                .filter(|s| *s != Status::Skip)
                .min()
                .unwrap_or(Status::Skip);
            (worst == Status::Skip, worst, *name)
        });
        areas
    }

    /// `stdio: COMMAND`, `http: URL` or `sse: URL` (an HTTP server's `--serve` command is not
    /// named).
    pub fn target_label(&self) -> String {
        self.target.label()
    }

    /// The server's name and version from `serverInfo`, or `unknown server`.
    pub fn server_label(&self) -> String {
        self.protocol
            .server_info
            .as_ref()
            .map(|i| {
                format!(
                    "{} {}",
                    i.get("name").and_then(Value::as_str).unwrap_or("?"),
                    i.get("version").and_then(Value::as_str).unwrap_or("")
                )
                .trim_end()
                .to_string()
            })
            .unwrap_or_else(|| "unknown server".into())
    }

    /// Every version judged, `and`-joined: `2026-07-28 and 2025-11-25` for a run that judged
    /// both eras.
    pub fn versions_label(&self) -> String {
        let versions: Vec<&str> = std::iter::once(&self.protocol)
            .chain(&self.other_eras)
            .filter_map(|p| p.version.as_deref())
            .collect();
        if versions.is_empty() {
            "(no version negotiated)".into()
        } else {
            versions.join(" and ")
        }
    }

    /// The protocol line of a report: each version judged with its era (`2026-07-28 (stateless
    /// era) and 2025-11-25 (handshake era)`).
    pub fn protocols_label(&self) -> String {
        std::iter::once(&self.protocol)
            .chain(&self.other_eras)
            .map(|p| {
                format!(
                    "{} ({} era)",
                    p.version.as_deref().unwrap_or("-"),
                    p.era.as_deref().unwrap_or("unknown")
                )
            })
            .collect::<Vec<_>>()
            .join(" and ")
    }

    /// The checks that need attention (fail, error, warn, not-testable), worst first.
    pub fn problems(&self) -> Vec<&CheckResult> {
        let mut problems: Vec<&CheckResult> = self
            .checks
            .iter()
            .filter(|c| {
                matches!(
                    c.status,
                    Status::Fail | Status::Error | Status::Warn | Status::NotTestable
                )
            })
            .collect();
        problems.sort_by(|a, b| a.status.cmp(&b.status).then(a.name().cmp(&b.name())));
        problems
    }

    /// The report with the user's secrets redacted where they stand (see [`redact`]).
    pub fn redacted(self, secrets: &[String]) -> Report {
        redact::Redactor::new(secrets).report(self)
    }

    /// The exit code: from the grading when the run was graded, else from the statuses alone.
    pub fn exit_code(&self) -> u8 {
        use crate::exit;
        if let Some(grading) = &self.grading {
            return grading.exit_code;
        }
        if self.fatal.is_some() {
            exit::UNTESTABLE
        } else if self.summary.fail > 0 {
            exit::FAILURES
        } else if self.summary.error > 0 {
            exit::HARNESS_ERRORS
        } else {
            exit::SUCCESS
        }
    }

    /// One sentence stating the result.
    pub fn verdict_line(&self) -> String {
        let version = self.versions_label();
        if let Some(fatal) = &self.fatal {
            return format!("could not be tested: {fatal}");
        }
        let s = &self.summary;
        let mut parts = vec![format!("{} passed", s.pass)];
        for (n, one, many) in [
            (s.fail, "failed", "failed"),
            (s.warn, "warning", "warnings"),
            (s.error, "error", "errors"),
            (s.not_testable, "not testable", "not testable"),
            (s.info, "info", "info"),
            (s.skip, "not applicable", "not applicable"),
        ] {
            if n > 0 {
                parts.push(counted(n, one, many));
            }
        }
        let (failing, errors) = match &self.grading {
            Some(g) => (
                !g.failing.is_empty() || !g.stale.is_empty(),
                g.exit_code == crate::exit::HARNESS_ERRORS,
            ),
            None => (s.fail > 0, s.error > 0),
        };
        if let Some(g) = &self.grading {
            if !g.expected_failures.is_empty() {
                parts.push(format!(
                    "{} expected by the baseline",
                    g.expected_failures.len()
                ));
            }
            if !g.stale.is_empty() {
                parts.push(format!(
                    "{} stale baseline entries ({})",
                    g.stale.len(),
                    g.stale.join(", ")
                ));
            }
            if g.strict && s.warn > 0 {
                parts.push("warnings fail (--strict)".into());
            }
            if g.derived_as_warnings {
                parts.push("derived checks graded as warnings (--derived warn)".into());
            }
        }
        let head = if failing {
            format!("does not conform to MCP {version}")
        } else if errors {
            format!("incomplete run against MCP {version}")
        } else {
            format!("conforms to MCP {version}")
        };
        format!("{head}: {}", parts.join(", "))
    }
}

/// Formats a system time as RFC 3339 in UTC, to the second.
pub fn rfc3339(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A command's words as a shell line that gives them back: a word with nothing a shell reads
/// specially stays as it is (`PORT=3000`, `./server`), any other is quoted.
pub fn command_line(argv: &[String]) -> String {
    let plain = |word: &str| {
        !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c))
    };
    argv.iter()
        .map(|word| {
            if plain(word) {
                word.clone()
            } else {
                shell_words::quote(word).into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `n` and the noun that goes with it: "1 warning", "2 warnings".
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_labelled_as_it_can_be_pasted_back() {
        let stdio = TargetInfo {
            transport: TransportKind::Stdio,
            command: Some(vec![
                "sh".into(),
                "-c".into(),
                "echo hi >&2; exec server".into(),
            ]),
            url: None,
        };
        assert_eq!(stdio.label(), "stdio: sh -c 'echo hi >&2; exec server'");
        let env = ["env", "PORT=3000", "node", "a b.js", ""].map(String::from);
        assert_eq!(command_line(&env), "env PORT=3000 node 'a b.js' ''");
        // A --serve command is the run's, not the target's name.
        let served = TargetInfo {
            transport: TransportKind::Http,
            command: Some(vec!["node".into(), "server.js".into()]),
            url: Some("http://127.0.0.1:3000/mcp".into()),
        };
        assert_eq!(served.label(), "http: http://127.0.0.1:3000/mcp");
        assert_eq!(served.shown(), "http://127.0.0.1:3000/mcp");
    }

    #[test]
    fn counts_take_the_noun_their_number_takes() {
        assert_eq!(counted(1, "warning", "warnings"), "1 warning");
        assert_eq!(counted(0, "warning", "warnings"), "0 warnings");
        assert_eq!(counted(2, "pass", "passes"), "2 passes");
    }

    #[test]
    fn compact_cuts_long_strings_and_keeps_the_shape() {
        let long = "x".repeat(600);
        let value = serde_json::json!({"a": [long, 1], "b": "short"});
        let kept = crate::record::compact(&value, 512);
        assert_eq!(kept["b"], "short");
        assert_eq!(kept["a"][1], 1);
        assert!(kept["a"][0]
            .as_str()
            .unwrap()
            .ends_with("… [88 more bytes]"));
    }

    #[test]
    fn rfc3339_formats_known_instants() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
