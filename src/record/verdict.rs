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
    /// The citation as the pages of `judged` have it, for a check judged at that revision: a
    /// section whose page each later revision up to `judged` kept (under the same path, or
    /// moved, as `revisions.toml` lists) is cited at `judged`, so a 2025-11-25 section of
    /// `server/tools` judged at 2026-07-28 is cited at 2026-07-28. Other citations stay as
    /// written: a revision's own changelog, a page a later revision removed (lifecycle, ping),
    /// JSON-RPC and RFCs, and a section of an older revision a check names on purpose (the
    /// 2025-03-26 batching it judges on a 2025-03-26 connection).
    pub fn at(&self, judged: &str) -> SpecRef {
        // A link given by hand (the derived one being wrong) stays too.
        if self.url != spec_url(&self.version, &self.section) {
            return self.clone();
        }
        let (Some(from), Some(to)) = (
            crate::record::version::position(&self.version),
            crate::record::version::position(judged),
        ) else {
            return self.clone();
        };
        if to <= from {
            return self.clone();
        }
        let mut section = self.section.clone();
        for revision in crate::record::version::revisions()
            .iter()
            .take(to + 1)
            .skip(from + 1)
        {
            match revision
                .kept
                .as_ref()
                .and_then(|kept| kept_section(kept, &section))
            {
                Some(kept) => section = kept,
                None => return self.clone(),
            }
        }
        SpecRef::mcp(judged, &section)
    }
}

/// Where a section of the revision before is in a revision that kept its page, if it did.
fn kept_section(kept: &crate::record::version::Kept, section: &str) -> Option<String> {
    let path = section.split_once('#').map_or(section, |(p, _)| p);
    if kept.same.iter().any(|p| p == path) {
        return Some(section.to_string());
    }
    // A page that moved has anchors of its own: the citation names the page.
    kept.moved
        .get(section)
        .or_else(|| kept.moved.get(path))
        .cloned()
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
        let folder = crate::record::version::revision(version).map_or(version, |r| r.folder());
        match anchor {
            Some(anchor) => {
                format!("https://modelcontextprotocol.io/specification/{folder}/{path}#{anchor}")
            }
            None => format!("https://modelcontextprotocol.io/specification/{folder}/{path}"),
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
    /// Whether the requirement is derived (from JSON-RPC 2.0, the schema or an RFC MCP builds on)
    /// rather than stated.
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

/// Why a check did not apply (a skip) or could not be made (not testable, an error of the run):
/// what reports group skips by and what every reader matches on, never the words of the message,
/// which [`fmt::Display`] writes from it. In the JSON report it is `reason: {kind, …}` beside the
/// message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Reason {
    /// The check is for other transports.
    Transport {
        /// The transports it is for.
        transports: Vec<TransportKind>,
    },
    /// The check belongs to a set of fixtures the run was not told to use (`--fixtures SET`).
    FixtureSet {
        /// The set.
        set: String,
    },
    /// The check is for the other era.
    Era {
        /// The era it is for.
        era: String,
        /// The era the server speaks.
        server: String,
    },
    /// The check is for protocol versions other than the one negotiated.
    Version {
        /// The versions it is for.
        versions: String,
        /// The version negotiated.
        negotiated: String,
        /// The main connection's version, when a connection of the scenario's own negotiated
        /// another.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        main: Option<String>,
    },
    /// The server does not declare a capability the check needs.
    Capability {
        /// The capability, as a path (`tools.listChanged`).
        capability: String,
    },
    /// The server does not declare an extension the check needs.
    Extension {
        /// The extension's name.
        extension: String,
        /// The setting of it the check needs `true` (`directoryRead`), if it needs one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        setting: Option<String>,
    },
    /// The check is about a capability left undeclared, and the server declares it.
    Declared {
        /// The capability.
        capability: String,
    },
    /// The check is about what the server leaves undeclared, and its capabilities are unknown.
    CapabilitiesUnknown,
    /// The check calls a tool the server lists, which the user did not allow (`--call-tools`).
    CallTools,
    /// The server is protected and the run has no token (no `Authorization` header): only the
    /// authorization checks could be made.
    Token {
        /// How the server refused the handshake (`HTTP 401 (scope "mcp")`).
        refusal: String,
    },
    /// The check calls a listed tool with a wrong argument, and none has one to get wrong.
    NoToolToProbe {
        /// Whether only tools annotated read-only were allowed.
        read_only: bool,
    },
    /// A fixture the check's scenario uses (a tool, prompt or resource) is not listed.
    Fixture {
        /// `tool`, `prompt` or `resource`.
        fixture: String,
        /// Its name.
        name: String,
        /// The list request that got no list, and why, when that is why it was not found.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        list_failed: Option<(String, String)>,
    },
    /// A step was not sent because the server has nothing of its kind; the scenario says what
    /// (`absent`, `for_each.none`).
    Absent {
        /// The scenario's words.
        #[serde(skip)]
        text: String,
    },
    /// The check's own words say why (a scenario file's rule with `verdict = "skip"`,
    /// `"not-testable"` or `"error"`, or a built-in check's judgment).
    Rule {
        /// The rule's message.
        #[serde(skip)]
        text: String,
    },
    /// A request got no response within its bound (an error of the run).
    NoResponse {
        /// How long mcpcheck waited.
        waited_ms: u64,
    },
    /// The connection closed before the exchange the check judges was over, or had closed before
    /// the scenario began (an error of the run).
    Closed {
        /// What closed it, in words.
        #[serde(skip)]
        text: String,
    },
    /// The server had stopped answering on the step's connection: the step was not sent, or
    /// nothing came back to it nor to anything sent after it (an error of the run).
    Stopped {
        /// Whether the step was sent (a report written before this was said reads as not sent).
        #[serde(default)]
        sent: bool,
        /// Why, in words.
        #[serde(skip)]
        text: String,
    },
    /// A step the check judges was not sent, for a reason the scenario or the run gives (no value
    /// to fill in, a list request that got no list): not testable.
    NotSent {
        /// Why, in words.
        #[serde(skip)]
        text: String,
    },
    /// A step the check judges was not sent because the request that would have given a value
    /// it needs got no result (an error answered it, or nothing did): not testable, a
    /// consequence of what that request's own checks judge.
    Unanswered {
        /// Why, in words.
        #[serde(skip)]
        text: String,
    },
    /// The authorization layer refused the request (HTTP 401 or 403): what the check asks
    /// cannot be seen without credentials that cover it (not testable).
    Authorization {
        /// The refusal (`HTTP 403 insufficient_scope`).
        refusal: String,
    },
    /// The exchange the check judges did not take place in this run (not testable).
    NotTaken,
    /// A connection of the scenario's own could not be opened (an error of the run).
    NoSession {
        /// Why, in words.
        #[serde(skip)]
        text: String,
    },
    /// The run's bound (`--run-timeout`) ran out before the check finished (an error of the run).
    RunBound {
        /// The bound, in seconds.
        seconds: u64,
    },
    /// mcpcheck itself failed while running the check's scenario (an error of the run).
    Internal,
    /// A built-in check over the whole run found nothing of its kind on the wire.
    NothingOnTheWire {
        /// What it looked for, in words.
        #[serde(skip)]
        text: String,
    },
    /// A kind this version of mcpcheck does not know, read from a report a newer one wrote (its
    /// message says why).
    #[serde(other)]
    Other,
}

impl Reason {
    /// Whether the reason is the run's own choice (the transport, the era or version, the
    /// fixture set, whether tools may be called), which holds whatever the server: not a fact
    /// about the server learned from what it said.
    pub fn is_the_runs(&self) -> bool {
        matches!(
            self,
            Reason::Transport { .. }
                | Reason::FixtureSet { .. }
                | Reason::Era { .. }
                | Reason::Version { .. }
                | Reason::CallTools
                | Reason::Token { .. }
        )
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Transport { transports } => {
                write!(f, "applies to {} only", super::describe(transports))
            }
            Reason::FixtureSet { set } => write!(
                f,
                "a fixture check of the `{set}` fixtures (run with --fixtures {set} against a server that has them)"
            ),
            Reason::Era { era, server } => write!(
                f,
                "applies to the {era} era only; the server speaks the {server} era"
            ),
            Reason::Version {
                versions,
                negotiated,
                main: None,
            } => write!(
                f,
                "applies to protocol versions {versions}; the server negotiated {negotiated}"
            ),
            Reason::Version {
                versions,
                negotiated,
                main: Some(main),
            } => write!(
                f,
                "applies to protocol versions {versions}; a new connection negotiated {negotiated} (the main one {main})"
            ),
            Reason::Capability { capability } => {
                write!(f, "the server does not declare the `{capability}` capability")
            }
            Reason::Extension {
                extension,
                setting: Some(setting),
            } => write!(
                f,
                "the server does not declare the `{extension}` extension with `{setting}: true`"
            ),
            Reason::Extension { extension, .. } => {
                write!(f, "the server does not declare the `{extension}` extension")
            }
            Reason::Declared { capability } => write!(
                f,
                "the server declares the `{capability}` capability (this checks an undeclared one)"
            ),
            Reason::CapabilitiesUnknown => f.write_str(
                "the server's capabilities are unknown (its server/discover answer gave none), so what it leaves undeclared cannot be told",
            ),
            Reason::CallTools => f.write_str(
                "calls a tool the server lists, which mcpcheck only does with --call-tools read-only|all",
            ),
            Reason::Token { refusal } => write!(
                f,
                "needs a token: the server is protected (it refused the run's requests without a token: {refusal}) and the run has none; pass one with -H \"Authorization: Bearer $TOKEN\""
            ),
            Reason::NoToolToProbe { read_only } => write!(
                f,
                "no listed tool{} has a required or typed argument to get wrong",
                if *read_only {
                    " annotated readOnlyHint: true"
                } else {
                    ""
                }
            ),
            Reason::Fixture {
                name,
                list_failed: Some((method, why)),
                ..
            } => write!(
                f,
                "the run's {method} got no list ({why}), so the fixture `{name}` cannot be found"
            ),
            Reason::Fixture { fixture, name, .. } if fixture == "tool" => write!(
                f,
                "the server lists no tool named `{name}`, the fixture this scenario calls"
            ),
            Reason::Fixture { fixture, name, .. } => write!(
                f,
                "the server lists no {fixture} `{name}`, the fixture this scenario uses"
            ),
            Reason::Absent { text }
            | Reason::Rule { text }
            | Reason::NothingOnTheWire { text }
            | Reason::NotSent { text }
            | Reason::Unanswered { text } => f.write_str(text),
            Reason::NoResponse { waited_ms } => write!(
                f,
                "the check could not be made: no response within {waited_ms} ms"
            ),
            Reason::Closed { text } | Reason::Stopped { text, .. } => {
                write!(f, "the check could not be made: {text}")
            }
            Reason::Authorization { refusal } => write!(
                f,
                "the server refused the request for authorization ({refusal}): credentials that cover it are needed (for OAuth, -H \"Authorization: Bearer $TOKEN\")"
            ),
            Reason::NotTaken => {
                f.write_str("the exchange this check judges did not take place in this run")
            }
            Reason::NoSession { text } => {
                write!(f, "could not open a session of its own: {text}")
            }
            Reason::RunBound { seconds } => write!(
                f,
                "the run exceeded its bound of {seconds} s before this check finished"
            ),
            Reason::Internal => f.write_str(
                "mcpcheck itself failed while running this scenario (an internal error; please report it)",
            ),
            Reason::Other => f.write_str("a reason this version of mcpcheck does not know"),
        }
    }
}

/// A check's conclusion: the status, and the words that go with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The status.
    pub status: Status,
    /// Why, in one sentence.
    pub message: String,
    /// Why the check did not apply (a skip) or could not be made (not testable, an error).
    pub reason: Option<Reason>,
    /// What was observed, in short.
    pub actual: Option<String>,
    /// A remark that does not change the status (e.g. a tolerated legacy behaviour).
    pub note: Option<String>,
}

impl Verdict {
    /// A verdict with a status and a message.
    /// A skip, not-testable or error made this way is one its check's own words give
    /// ([`Reason::Rule`]); one the run's circumstances give is made by [`Verdict::because`].
    pub fn new(status: Status, message: impl Into<String>) -> Verdict {
        let message = message.into();
        let unjudged = matches!(status, Status::Skip | Status::NotTestable | Status::Error);
        Verdict {
            status,
            reason: unjudged.then(|| Reason::Rule {
                text: message.clone(),
            }),
            message,
            actual: None,
            note: None,
        }
    }

    /// A skip, its message written from its reason.
    pub fn skip(reason: Reason) -> Verdict {
        Verdict::because(Status::Skip, reason)
    }

    /// A verdict of a check that did not apply or could not be made, its message written from
    /// its reason.
    pub fn because(status: Status, reason: Reason) -> Verdict {
        Verdict {
            reason: Some(reason.clone()),
            ..Verdict::new(status, reason.to_string())
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
    fn a_check_that_could_not_be_made_carries_its_reason_as_data_too() {
        let timeout = Verdict::because(Status::Error, Reason::NoResponse { waited_ms: 5000 });
        assert_eq!(
            timeout.message,
            "the check could not be made: no response within 5000 ms"
        );
        assert_eq!(
            serde_json::to_value(timeout.reason.as_ref().unwrap()).unwrap(),
            serde_json::json!({"kind": "no-response", "waitedMs": 5000})
        );
        // A not-testable the check's own words give is the rule's.
        let own = Verdict::new(Status::NotTestable, "no error came back");
        assert_eq!(
            serde_json::to_value(own.reason.unwrap()).unwrap(),
            serde_json::json!({"kind": "rule"})
        );
        // A report written before `sent` was said still reads.
        let older: Reason = serde_json::from_value(serde_json::json!({"kind": "stopped"})).unwrap();
        assert!(matches!(older, Reason::Stopped { sent: false, .. }));
        let bound = Verdict::because(Status::Error, Reason::RunBound { seconds: 300 });
        let read: Reason =
            serde_json::from_value(serde_json::json!({"kind": "run-bound", "seconds": 300}))
                .unwrap();
        assert_eq!(bound.reason, Some(read));
    }

    #[test]
    fn a_skip_carries_its_reason_as_data_and_says_it_in_words() {
        let verdict = Verdict::skip(Reason::Fixture {
            fixture: "prompt".into(),
            name: "mcpcheck_simple".into(),
            list_failed: Some(("prompts/list".into(), "a timeout".into())),
        });
        assert_eq!(
            verdict.message,
            "the run's prompts/list got no list (a timeout), so the fixture `mcpcheck_simple` cannot be found"
        );
        assert_eq!(
            serde_json::to_value(verdict.reason.as_ref().unwrap()).unwrap(),
            serde_json::json!({
                "kind": "fixture",
                "fixture": "prompt",
                "name": "mcpcheck_simple",
                "listFailed": ["prompts/list", "a timeout"]
            })
        );
        let transport = Reason::Transport {
            transports: vec![TransportKind::Stdio, TransportKind::LegacySse],
        };
        assert_eq!(
            transport.to_string(),
            "applies to the stdio and sse transports only"
        );
        let back: Reason =
            serde_json::from_value(serde_json::to_value(&transport).unwrap()).unwrap();
        assert_eq!(back, transport);
        // A skip its check's own rule gives keeps the rule's words; the kind says whose they are.
        let rule = Verdict::new(Status::Skip, "no page to ask for");
        assert_eq!(
            serde_json::to_value(rule.reason.unwrap()).unwrap(),
            serde_json::json!({"kind": "rule"})
        );
        assert_eq!(Verdict::new(Status::Pass, "fine").reason, None);
    }

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
        // The authorization page was split: a section stays on the index under its anchor, or
        // is cited at the page it moved to.
        let stayed =
            SpecRef::mcp("2025-11-25", "basic/authorization#token-handling").at("2026-07-28");
        assert_eq!(
            (stayed.version.as_str(), stayed.section.as_str()),
            ("2026-07-28", "basic/authorization#token-handling")
        );
        let split = SpecRef::mcp(
            "2025-11-25",
            "basic/authorization#authorization-server-location",
        )
        .at("2026-07-28");
        assert_eq!(
            split.section,
            "basic/authorization/authorization-server-discovery"
        );
        // A page 2026-07-28 removed, an older version named on purpose, JSON-RPC, and any
        // citation of a handshake-era check, stay as written.
        for (version, section, judged) in [
            ("2025-11-25", "basic/lifecycle#initialization", "2026-07-28"),
            ("2025-03-26", "basic/index#batching", "2026-07-28"),
            ("jsonrpc-2.0", "error_object", "2026-07-28"),
            ("2025-11-25", "server/tools#error-handling", "2025-11-25"),
            ("2025-06-18", "server/tools", "2025-11-25"),
            (
                "2025-11-25",
                "basic/authorization#no-such-section",
                "2026-07-28",
            ),
        ] {
            let cited = SpecRef::mcp(version, section);
            assert_eq!(cited.at(judged), cited, "{version} {section} at {judged}");
        }
    }
}
