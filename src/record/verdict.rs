//! The vocabulary of verdicts: what a check is (its requirement, level and citation) and what
//! it can conclude (a status and the words that go with it).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::version::VersionRange;
use super::TransportKind;

/// The requirement level of RFC 2119, as the spec states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    /// MUST / MUST NOT / REQUIRED: a violation is a failure.
    #[serde(rename = "MUST")]
    Must,
    /// SHOULD / SHOULD NOT / RECOMMENDED: a violation is a warning.
    #[serde(rename = "SHOULD")]
    Should,
    /// MAY / OPTIONAL: an observation.
    #[serde(rename = "MAY")]
    May,
}

impl Level {
    /// The verdict a violation of this level gets.
    pub fn violation(self) -> Status {
        match self {
            Level::Must => Status::Fail,
            Level::Should => Status::Warn,
            Level::May => Status::Info,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        })
    }
}

/// Where in the spec a requirement is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecRef {
    /// The protocol version whose text is cited, or `jsonrpc-2.0`.
    pub version: String,
    /// The section, e.g. `server/resources#error-handling`.
    pub section: String,
    /// A link to it.
    pub url: String,
}

impl SpecRef {
    /// A citation of the MCP spec; the URL is derived from version and section.
    pub fn mcp(version: &str, section: &str) -> SpecRef {
        SpecRef {
            version: version.into(),
            section: section.into(),
            url: spec_url(version, section),
        }
    }
}

impl SpecRef {
    /// The citation as the pages of `judged` have it, for a check judged at that version: a
    /// 2025-11-25 section whose page 2026-07-28 kept (under the same path, or moved to
    /// `basic/patterns/` or `basic/transports/stdio`) is cited at 2026-07-28. Other citations
    /// stay as written: a version's own changelog, a page 2026-07-28 removed (lifecycle, ping),
    /// JSON-RPC and RFCs, and a section of an older version a check names on purpose (the
    /// 2025-03-26 batching it judges on a 2025-03-26 connection).
    pub fn at(&self, judged: &str) -> SpecRef {
        // A link given by hand (the derived one being wrong) stays too.
        let derived_link = self.url == spec_url(&self.version, &self.section);
        if judged != "2026-07-28" || self.version != "2025-11-25" || !derived_link {
            return self.clone();
        }
        let (path, anchor) = self
            .section
            .split_once('#')
            .map_or((self.section.as_str(), None), |(p, a)| (p, Some(a)));
        let moved = match (path, anchor) {
            (
                "basic/index"
                | "server/tools"
                | "server/resources"
                | "server/prompts"
                | "server/utilities/completion"
                | "server/utilities/logging"
                | "server/utilities/pagination"
                | "client/elicitation"
                | "client/sampling"
                | "client/roots"
                | "schema",
                _,
            ) => path,
            ("basic/utilities/cancellation", _) => "basic/patterns/cancellation",
            ("basic/utilities/progress", _) => "basic/patterns/progress",
            ("basic/transports", Some("stdio")) => "basic/transports/stdio",
            _ => return self.clone(),
        };
        let section = match anchor {
            Some(anchor) if moved == path => format!("{moved}#{anchor}"),
            // A page that moved has anchors of its own.
            _ => moved.to_string(),
        };
        SpecRef::mcp(judged, &section)
    }
}

/// The URL of a section: MCP sections under modelcontextprotocol.io (the tasks extension's,
/// `extensions/tasks#…`, on its own site), JSON-RPC under jsonrpc.org.
pub fn spec_url(version: &str, section: &str) -> String {
    if let Some(anchor) = section.strip_prefix("extensions/tasks") {
        format!(
            "https://modelcontextprotocol.github.io/ext-tasks/specification/{version}/tasks.html{anchor}"
        )
    } else if version == "jsonrpc-2.0" {
        format!(
            "https://www.jsonrpc.org/specification#{}",
            section.trim_start_matches('#')
        )
    } else if let Some(number) = version.strip_prefix("rfc") {
        format!("https://www.rfc-editor.org/rfc/rfc{number}#{section}")
    } else {
        let (path, anchor) = section
            .split_once('#')
            .map_or((section, None), |(p, a)| (p, Some(a)));
        match anchor {
            Some(anchor) => {
                format!("https://modelcontextprotocol.io/specification/{version}/{path}#{anchor}")
            }
            None => format!("https://modelcontextprotocol.io/specification/{version}/{path}"),
        }
    }
}

/// Everything that identifies and explains a check.
#[derive(Clone, Debug, Serialize)]
pub struct CheckDef {
    /// Stable kebab-case id.
    pub id: String,
    /// One line: what is checked.
    pub title: String,
    /// The spec area (`lifecycle`, `resources`, `jsonrpc`, …).
    pub area: String,
    /// The requirement level.
    pub level: Level,
    /// Whether the requirement is derived (from JSON-RPC 2.0 or the schema) rather than stated.
    pub derived: bool,
    /// The citations.
    pub spec: Vec<SpecRef>,
    /// What a conforming server does, in words.
    pub expect: String,
    /// The protocol versions the check applies to.
    #[serde(serialize_with = "display")]
    pub versions: VersionRange,
    /// The transports the check applies to (empty: every transport).
    pub transports: Vec<TransportKind>,
    /// Where the check is defined: `scenarios/….toml:LINE`, or `built-in`.
    pub source: String,
    /// Why the requirement exists and how the check probes it.
    pub explain: Option<String>,
    /// The grading profile that first grades this built-in check (`since` in its definition);
    /// `None` for the user's own checks, which every profile grades.
    #[serde(skip)]
    pub since: Option<String>,
}

fn display<S: serde::Serializer, T: fmt::Display>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// The outcome class of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// A MUST is broken.
    Fail,
    /// The harness could not carry the check out (timeout, transport failure, server gone).
    Error,
    /// A SHOULD is broken.
    Warn,
    /// A prerequisite is missing, so the check could not be made.
    NotTestable,
    /// An observation worth reporting.
    Info,
    /// The check does not apply (capability not declared, version window, transport).
    Skip,
    /// The server conforms.
    Pass,
}

impl Status {
    /// Every status, most severe first (the order reports use).
    pub const ALL: [Status; 7] = [
        Status::Fail,
        Status::Error,
        Status::Warn,
        Status::NotTestable,
        Status::Info,
        Status::Skip,
        Status::Pass,
    ];

    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Info => "info",
            Status::Skip => "skip",
            Status::NotTestable => "not-testable",
            Status::Error => "error",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A check's conclusion: the status, and the words that go with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The status.
    pub status: Status,
    /// Why, in one sentence.
    pub message: String,
    /// What was observed, in short.
    pub actual: Option<String>,
    /// A remark that does not change the status (e.g. a tolerated legacy behaviour).
    pub note: Option<String>,
}

impl Verdict {
    /// A verdict with a status and a message.
    pub fn new(status: Status, message: impl Into<String>) -> Verdict {
        Verdict {
            status,
            message: message.into(),
            actual: None,
            note: None,
        }
    }

    /// Adds what was observed.
    pub fn with_actual(mut self, actual: impl Into<String>) -> Verdict {
        self.actual = Some(actual.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_citation_follows_the_version_judged_where_its_page_lives_on() {
        let kept = SpecRef::mcp("2025-11-25", "server/tools#error-handling").at("2026-07-28");
        assert_eq!(kept.version, "2026-07-28");
        assert_eq!(
            kept.url,
            "https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling"
        );
        let moved = SpecRef::mcp("2025-11-25", "basic/utilities/cancellation#x").at("2026-07-28");
        assert_eq!(moved.section, "basic/patterns/cancellation");
        // A page 2026-07-28 removed, an older version named on purpose, JSON-RPC, and any
        // citation of a handshake-era check, stay as written.
        for (version, section, judged) in [
            ("2025-11-25", "basic/lifecycle#initialization", "2026-07-28"),
            ("2025-03-26", "basic/index#batching", "2026-07-28"),
            ("jsonrpc-2.0", "error_object", "2026-07-28"),
            ("2025-11-25", "server/tools#error-handling", "2025-11-25"),
            ("2025-06-18", "server/tools", "2025-11-25"),
        ] {
            let cited = SpecRef::mcp(version, section);
            assert_eq!(cited.at(judged), cited, "{version} {section} at {judged}");
        }
    }
}
