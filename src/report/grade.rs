//! Grading: what a run's verdicts mean for CI. Applies `--strict` (warnings fail), the grading
//! profile (later checks are observations only) and the baseline (known failures do not fail the
//! run; a listed check that now passes is stale and does), and computes the exit code.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{FileError, Report};
use crate::exit;
use crate::profile::Profile;
use crate::record::Status;

/// A baseline file: check ids known to fail for this server.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Check id → why it is expected to fail.
    #[serde(default)]
    pub checks: BTreeMap<String, BaselineEntry>,
}

/// One known failure.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    /// Why it fails.
    pub reason: String,
    /// Where it is tracked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl Baseline {
    /// Reads a baseline file; errors read `path:line:column: message`.
    pub fn load(path: &Path) -> Result<Baseline, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::Read {
            what: "the baseline ",
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            FileError::At {
                path: path.to_path_buf(),
                line: text[..offset.min(text.len())].matches('\n').count() + 1,
                message: e.message().trim_end().to_string(),
            }
        })
    }

    /// A baseline listing every check that failed (or warned) in a report.
    pub fn from_report(report: &Report) -> Baseline {
        let checks = report
            .checks
            .iter()
            .filter(|c| matches!(c.status, Status::Fail | Status::Warn))
            .map(|c| {
                let reason = format!(
                    "{} since {}: {}",
                    c.status,
                    &report.started_at[..10.min(report.started_at.len())],
                    c.message
                );
                (c.name(), BaselineEntry { reason, link: None })
            })
            .collect();
        Baseline { checks }
    }

    /// The baseline as TOML, with a header comment.
    pub fn to_toml(&self) -> String {
        let mut out = String::from(
            "# mcpcheck baseline: checks known to fail for this server. A listed failure does not fail\n# the run; a listed check that passes is stale and does, so remove it. Give each a reason.\n\n",
        );
        out.push_str(&toml::to_string(self).expect("a baseline serializes"));
        out
    }
}

/// How a run is graded.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grading {
    /// The profile's name.
    pub profile: String,
    /// Whether warnings fail the run.
    pub strict: bool,
    /// The baseline file, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Checks that fail the run (unlisted failures, and warnings under `--strict`).
    pub failing: Vec<String>,
    /// Baseline entries whose check now passes: they fail the run until removed.
    pub stale: Vec<String>,
    /// Listed failures that still fail.
    pub expected_failures: Vec<String>,
    /// Checks outside the profile, reported for information only.
    pub ungraded: Vec<String>,
    /// The exit code this grading gives.
    pub exit_code: u8,
    /// Whether derived checks were graded as warnings (`--derived warn`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub derived_as_warnings: bool,
}

/// Grades the derived checks (requirements MCP states only through JSON-RPC 2.0 or an RFC it
/// builds on) as warnings:
/// each that failed becomes a warning, with a note saying so (`--derived warn`). What a server
/// inherits from its SDK is still shown, but does not fail the run unless warnings do.
pub fn derived_as_warnings(report: &mut Report) {
    for check in report.checks.iter_mut() {
        if check.derived && check.status == Status::Fail {
            check.status = Status::Warn;
            let note = "graded as a warning (--derived warn): MCP states this requirement only through JSON-RPC 2.0 or an RFC it builds on";
            check.note = Some(match check.note.take() {
                Some(before) => format!("{before}; {note}"),
                None => note.to_string(),
            });
        }
    }
    report.summary = super::Summary::of(&report.checks);
}

/// What a check's mark in the grading is, for renderers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Counts normally.
    Graded,
    /// Fails the run.
    Failing,
    /// Listed in the baseline and still failing.
    Expected,
    /// Listed in the baseline but passing.
    Stale,
    /// Outside the profile.
    Ungraded,
}

impl Grading {
    /// Grades a report.
    pub fn apply(
        report: &Report,
        profile: &Profile,
        strict: bool,
        baseline: Option<(&Baseline, String)>,
    ) -> Grading {
        let mut grading = Grading {
            profile: profile.name.to_string(),
            strict,
            baseline: baseline.as_ref().map(|(_, path)| path.clone()),
            failing: Vec::new(),
            stale: Vec::new(),
            expected_failures: Vec::new(),
            ungraded: Vec::new(),
            exit_code: exit::SUCCESS,
            derived_as_warnings: false,
        };
        let mut errors = 0;
        for check in &report.checks {
            if !profile.grades(&check.id, &check.source) {
                grading.ungraded.push(check.name());
                continue;
            }
            let bad = check.status == Status::Fail || (strict && check.status == Status::Warn);
            let listed = baseline.as_ref().is_some_and(|(b, _)| {
                b.checks.contains_key(&check.id) || b.checks.contains_key(&check.name())
            });
            let name = check.name();
            match (bad, listed, check.status) {
                (true, true, _) => grading.expected_failures.push(name),
                (true, false, _) => grading.failing.push(name),
                (false, true, Status::Pass) => grading.stale.push(name),
                (false, true, Status::Warn) if !strict => grading.expected_failures.push(name),
                _ => {}
            }
            if check.status == Status::Error {
                errors += 1;
            }
        }
        grading.exit_code = if report.fatal.is_some() {
            exit::UNTESTABLE
        } else if !grading.failing.is_empty() || !grading.stale.is_empty() {
            exit::FAILURES
        } else if errors > 0 {
            exit::HARNESS_ERRORS
        } else {
            exit::SUCCESS
        };
        grading
    }

    /// The marks of the checks that are not simply graded, for lookups while rendering (one
    /// map per rendering, so renderers stay linear in the number of checks).
    pub fn marks(&self) -> std::collections::HashMap<&str, Mark> {
        let mut marks = std::collections::HashMap::new();
        for (list, mark) in [
            (&self.ungraded, Mark::Ungraded),
            (&self.expected_failures, Mark::Expected),
            (&self.stale, Mark::Stale),
            (&self.failing, Mark::Failing),
        ] {
            for id in list {
                marks.insert(id.as_str(), mark);
            }
        }
        marks
    }
}

/// The mark of one check in a report (`Graded` when the report was not graded).
pub fn mark_of(marks: &std::collections::HashMap<&str, Mark>, id: &str) -> Mark {
    marks.get(id).copied().unwrap_or(Mark::Graded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::report::{CheckResult, ProtocolInfo, Summary, TargetInfo};

    fn report(checks: &[(&str, Status, &str)]) -> Report {
        let checks: Vec<CheckResult> = checks
            .iter()
            .map(|(id, status, source)| CheckResult {
                area: "a".into(),
                source: source.to_string(),
                ..CheckResult::bare(id, *status)
            })
            .collect();
        Report {
            schema_version: 1,
            mcpcheck_version: "0".into(),
            target: TargetInfo {
                transport: crate::record::TransportKind::Stdio,
                command: None,
                url: None,
            },
            protocol: ProtocolInfo::default(),
            other_eras: Vec::new(),
            eras_note: None,
            process_starts: None,
            probes_ended: Vec::new(),
            server: None,
            fatal: None,
            started_at: "2026-11-22T00:00:00Z".into(),
            duration_ms: 0,
            summary: Summary::of(&checks),
            grading: None,
            checks,
        }
    }

    /// The first profile: it grades `stdio-framing` and `jsonrpc-version-field`, not the later
    /// `jsonrpc-response-once` (each says so in its `since`).
    fn first() -> &'static Profile {
        &crate::profile::all()[0]
    }

    #[test]
    fn checks_outside_the_profile_do_not_fail_the_run() {
        let r = report(&[
            ("stdio-framing", Status::Pass, "built-in"),
            ("jsonrpc-response-once", Status::Fail, "built-in"),
        ]);
        let g = Grading::apply(&r, first(), false, None);
        assert_eq!(g.exit_code, exit::SUCCESS);
        assert_eq!(g.ungraded, ["jsonrpc-response-once"]);
        let r = report(&[("mine", Status::Fail, "my/x.toml:1")]);
        assert_eq!(
            Grading::apply(&r, first(), false, None).exit_code,
            exit::FAILURES,
            "user checks are always graded"
        );
    }

    #[test]
    fn strict_makes_warnings_fail() {
        let r = report(&[("stdio-framing", Status::Warn, "built-in")]);
        assert_eq!(
            Grading::apply(&r, first(), false, None).exit_code,
            exit::SUCCESS
        );
        assert_eq!(
            Grading::apply(&r, first(), true, None).exit_code,
            exit::FAILURES
        );
    }

    #[test]
    fn baselines_only_shrink() {
        let mut baseline = Baseline::default();
        baseline.checks.insert(
            "stdio-framing".into(),
            BaselineEntry {
                reason: "known".into(),
                link: None,
            },
        );
        let listed_failing = report(&[("stdio-framing", Status::Fail, "built-in")]);
        let g = Grading::apply(
            &listed_failing,
            first(),
            false,
            Some((&baseline, "b.toml".into())),
        );
        assert_eq!(
            (g.exit_code, g.expected_failures.clone()),
            (exit::SUCCESS, vec!["stdio-framing".to_string()])
        );
        let unlisted = report(&[
            ("stdio-framing", Status::Fail, "built-in"),
            ("jsonrpc-version-field", Status::Fail, "built-in"),
        ]);
        let g = Grading::apply(
            &unlisted,
            first(),
            false,
            Some((&baseline, "b.toml".into())),
        );
        assert_eq!(
            (g.exit_code, g.failing.clone()),
            (exit::FAILURES, vec!["jsonrpc-version-field".to_string()])
        );
        let now_passing = report(&[("stdio-framing", Status::Pass, "built-in")]);
        let g = Grading::apply(
            &now_passing,
            first(),
            false,
            Some((&baseline, "b.toml".into())),
        );
        assert_eq!(
            (g.exit_code, g.stale.clone()),
            (exit::FAILURES, vec!["stdio-framing".to_string()])
        );
    }

    #[test]
    fn a_baseline_round_trips_through_toml() {
        let r = report(&[
            ("stdio-framing", Status::Fail, "built-in"),
            ("jsonrpc-version-field", Status::Pass, "built-in"),
        ]);
        let text = Baseline::from_report(&r).to_toml();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.toml");
        std::fs::write(&path, &text).unwrap();
        let back = Baseline::load(&path).unwrap();
        assert_eq!(back.checks.keys().collect::<Vec<_>>(), ["stdio-framing"]);
        std::fs::write(&path, "[checks.x]\nreason = \"r\"\nlnk = \"y\"\n").unwrap();
        assert!(Baseline::load(&path)
            .unwrap_err()
            .to_string()
            .contains("b.toml:3: unknown field `lnk`"));
    }
}
