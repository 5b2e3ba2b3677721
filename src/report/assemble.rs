//! The report assembled from what a run emitted ([`Outcome`]): its passes (one per era, or per
//! pinned version) joined into one list in which every check names the version it was judged at
//! and cites that version's pages, with what was tested, when, and the notes of the run. The
//! runner emits; what the report says of it is decided here.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use super::{
    rfc3339, CheckResult, ProtocolInfo, Report, ServerProcess, Summary, TargetInfo, SCHEMA_VERSION,
};
use crate::record::{Reason, SpecRef, Status};

/// What one pass of a run emitted: one era, or one pinned version.
#[derive(Clone, Debug, Default)]
pub struct Pass {
    /// What was negotiated, and how.
    pub protocol: ProtocolInfo,
    /// What this pass could not judge: a protected server met without a token.
    pub note: Option<String>,
    /// Each scenario that ended a shared connection, and how.
    pub probes_ended: Vec<String>,
    /// How the stdio server (or the `--serve` command) behaved as a process.
    pub server: Option<ServerProcess>,
    /// Why the server could not be tested in this pass, when it could not.
    pub fatal: Option<String>,
    /// The results, in the library's order.
    pub checks: Vec<CheckResult>,
}

/// What a whole run emitted.
#[derive(Debug)]
pub struct Outcome {
    /// What was tested.
    pub target: TargetInfo,
    /// When the run started.
    pub started_at: SystemTime,
    /// How long it took.
    pub duration: Duration,
    /// The passes, in the order they were started (the first one's protocol heads the report).
    pub passes: Vec<Pass>,
    /// Why an era was not judged, when mcpcheck tried it.
    pub eras_note: Option<String>,
    /// stdio: how many server processes the run started, every pass together.
    pub process_starts: Option<usize>,
    /// The `--check` patterns: one that names a version keeps that era's result only.
    pub only: Vec<String>,
}

/// Whether a `--check` pattern (an id, or a prefix ending in `*`, either perhaps followed by
/// `@version`, which picks an era's result once the run is done) selects a check id.
pub fn pattern_matches(pattern: &str, id: &str) -> bool {
    let pattern = pattern.split_once('@').map_or(pattern, |(id, _)| id);
    match pattern.strip_suffix('*') {
        Some(prefix) => id.starts_with(prefix),
        None => id == pattern,
    }
}

impl Report {
    /// The report of a run: its passes joined (each check keeps the results of the eras where
    /// it applied, one skip when it applied in none, in the library's order; a check judged in
    /// more than one era is marked so and named `id@version`; a `--check` pattern naming a
    /// version, `id@2025-11-25`, keeps only that era's result), with what the run was.
    pub fn assemble(outcome: Outcome) -> Report {
        let Outcome {
            target,
            started_at,
            duration,
            passes,
            eras_note,
            process_starts,
            only,
        } = outcome;
        let mut passes = passes.into_iter();
        let mut first = passes.next().unwrap_or_default();
        stamp(&mut first);
        let mut joined = Report {
            schema_version: SCHEMA_VERSION,
            mcpcheck_version: env!("CARGO_PKG_VERSION").into(),
            target,
            protocol: first.protocol,
            other_eras: Vec::new(),
            eras_note: first.note,
            process_starts,
            probes_ended: first.probes_ended,
            server: first.server,
            fatal: first.fatal,
            started_at: rfc3339(started_at),
            duration_ms: duration.as_millis() as u64,
            summary: Summary::default(),
            grading: None,
            checks: Vec::new(),
        };
        let mut all = first.checks;
        for mut other in passes {
            stamp(&mut other);
            if let Some(fatal) = other.fatal.take() {
                let version = other.protocol.requested_version.as_deref().unwrap_or("?");
                let why = format!("at {version}: {fatal}");
                // A pass that could not be run does not undo what an earlier one judged.
                let judged = all.iter().any(|c| c.status != Status::Skip);
                if joined.fatal.is_some() || !judged {
                    joined.fatal.get_or_insert(why);
                } else {
                    joined.eras_note = Some(format!("{why}; the other versions' results stand"));
                }
            }
            if joined.server.is_none() {
                joined.server = other.server.take();
            }
            all.extend(other.checks);
            joined.probes_ended.append(&mut other.probes_ended);
            joined.other_eras.push(other.protocol);
        }
        let mut order: Vec<String> = Vec::new();
        let mut by_id: HashMap<String, Vec<CheckResult>> = HashMap::new();
        for check in all {
            if !by_id.contains_key(&check.id) {
                order.push(check.id.clone());
            }
            by_id.entry(check.id.clone()).or_default().push(check);
        }
        for id in order {
            let results = by_id.remove(&id).unwrap_or_default();
            let (mut kept, mut skips): (Vec<CheckResult>, Vec<CheckResult>) =
                results.into_iter().partition(|r| r.status != Status::Skip);
            if kept.is_empty() && !skips.is_empty() {
                // Why it applied nowhere: rather the reason in the era it belongs to than
                // "applies to the other era only".
                let reason = skips
                    .iter()
                    .position(|r| !matches!(r.reason, Some(Reason::Era { .. })))
                    .unwrap_or(0);
                kept.push(skips.swap_remove(reason));
            }
            // Two passes may judge a check at the same version (a connection that negotiates its
            // own, as jsonrpc-batch-served's does, under several --spec-version): one result each.
            let mut versions: Vec<Option<String>> = Vec::new();
            kept.retain(|r| {
                let fresh = !versions.contains(&r.version);
                versions.push(r.version.clone());
                fresh
            });
            let per_era = kept.len() > 1;
            for mut result in kept {
                result.per_era = per_era;
                if wanted(&result, &only) {
                    joined.checks.push(result);
                }
            }
        }
        if eras_note.is_some() {
            joined.eras_note = eras_note;
        }
        joined.summary = Summary::of(&joined.checks);
        joined
    }
}

/// Records the version each check of a pass was judged at, and cites its pages.
fn stamp(pass: &mut Pass) {
    let version = pass.protocol.version.clone();
    for check in &mut pass.checks {
        // A check on a connection that negotiated a version of its own keeps it.
        if check.version.is_none() {
            check.version = version.clone();
        }
        // Cited at the pages of the version judged, where they have the section.
        if let Some(version) = &check.version {
            let mut spec: Vec<SpecRef> = Vec::new();
            for cited in check.spec.iter().map(|s| s.at(version)) {
                // Two revisions' sections may be one page at the revision judged.
                if !spec.contains(&cited) {
                    spec.push(cited);
                }
            }
            check.spec = spec;
        }
    }
}

/// Whether a result is wanted by the `--check` patterns: every result when no pattern names a
/// version, else those an unversioned pattern selects and those at the version a pattern names.
fn wanted(result: &CheckResult, only: &[String]) -> bool {
    if !only.iter().any(|p| p.contains('@')) {
        return true;
    }
    only.iter().any(|pattern| match pattern.split_once('@') {
        Some((id, version)) => {
            pattern_matches(id, &result.id) && result.version.as_deref() == Some(version)
        }
        None => pattern_matches(pattern, &result.id),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, status: Status) -> CheckResult {
        CheckResult::bare(id, status)
    }

    fn pass(version: &str, checks: Vec<CheckResult>) -> Pass {
        let mut pass = Pass {
            checks,
            ..Pass::default()
        };
        pass.protocol.version = Some(version.into());
        pass
    }

    /// The report of a run of these passes.
    fn join(passes: Vec<Pass>, only: &[String]) -> Report {
        Report::assemble(Outcome {
            target: TargetInfo {
                transport: crate::record::TransportKind::Stdio,
                command: None,
                url: None,
            },
            started_at: SystemTime::now(),
            duration: Duration::ZERO,
            passes,
            eras_note: None,
            process_starts: None,
            only: only.to_vec(),
        })
    }

    #[test]
    fn a_check_judged_in_two_eras_is_kept_once_per_era_and_a_skip_gives_way() {
        let stateless = pass(
            "2026-07-28",
            vec![
                result("both", Status::Pass),
                result("handshake-only", Status::Skip),
                result("nowhere", Status::Skip),
            ],
        );
        let handshake = pass(
            "2025-11-25",
            vec![
                result("both", Status::Fail),
                result("handshake-only", Status::Pass),
                result("nowhere", Status::Skip),
            ],
        );
        let joined = join(vec![stateless, handshake], &[]);
        let names: Vec<(String, Status)> =
            joined.checks.iter().map(|c| (c.name(), c.status)).collect();
        assert_eq!(
            names,
            vec![
                ("both@2026-07-28".to_string(), Status::Pass),
                ("both@2025-11-25".to_string(), Status::Fail),
                ("handshake-only".to_string(), Status::Pass),
                ("nowhere".to_string(), Status::Skip),
            ]
        );
        assert_eq!(joined.checks[2].version.as_deref(), Some("2025-11-25"));
        assert_eq!(joined.summary.fail, 1);
        assert_eq!(joined.other_eras.len(), 1);
    }

    #[test]
    fn a_check_that_applied_in_neither_era_says_why_in_the_era_it_belongs_to() {
        let skip = |reason: Reason| {
            let mut result = result("stateless-only", Status::Skip);
            result.message = reason.to_string();
            result.reason = Some(reason);
            result
        };
        let stateless = pass(
            "2026-07-28",
            vec![skip(Reason::Capability {
                capability: "tools".into(),
            })],
        );
        let handshake = pass(
            "2025-11-25",
            vec![skip(Reason::Era {
                era: "stateless".into(),
                server: "handshake".into(),
            })],
        );
        // Whichever pass comes first.
        for passes in [
            vec![stateless.clone(), handshake.clone()],
            vec![handshake, stateless],
        ] {
            let joined = join(passes, &[]);
            assert_eq!(
                joined.checks[0].reason,
                Some(Reason::Capability {
                    capability: "tools".into()
                })
            );
        }
    }

    #[test]
    fn a_pattern_naming_a_version_keeps_that_era_only() {
        let joined = join(
            vec![
                pass("2026-07-28", vec![result("both", Status::Pass)]),
                pass("2025-11-25", vec![result("both", Status::Fail)]),
            ],
            &["both@2025-11-25".to_string()],
        );
        assert_eq!(joined.checks.len(), 1);
        assert_eq!(joined.checks[0].status, Status::Fail);
    }
}
