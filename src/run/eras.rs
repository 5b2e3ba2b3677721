//! Judging every era a server speaks. A server that answers `server/discover` is judged at
//! 2026-07-28; when it also completes the initialize handshake (many SDKs speak both), it is
//! judged again in the handshake era, the one most clients in the field use: over stdio that
//! pass runs beside the first, from the moment the first knows its era. Versions pinned
//! with `--spec-version` are judged one pass each instead. The passes are joined into one
//! report in which every check names the version it was judged at.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::{connect, pattern_matches, run_started, RunConfig, Shared};
use crate::protocol::Session;
use crate::record::version::latest_handshake;
use crate::record::{Reason, SpecRef, Status};
use crate::report::{CheckResult, Report, Summary};
use crate::transport::Target;

/// Less than this left of the run bound, and a second era is not started.
const MIN_PASS: Duration = Duration::from_secs(5);

/// Runs one pass per era (or per pinned version) and joins them.
pub(super) async fn run_eras(config: RunConfig) -> Report {
    let clock = Instant::now();
    let shared = Shared::new();
    let mut reports = Vec::new();
    let mut note = None;
    if config.versions.is_empty() {
        // Over stdio every era's connections are processes of their own, so the handshake era
        // starts as soon as the first pass knows it is in the stateless one, while that pass
        // goes on (a server slow to start pays its starts once, not twice in a row). Over HTTP
        // both eras would speak to one server whose state they share: one after the other.
        let concurrent = matches!(config.target, Target::Stdio(_));
        let (known, era) = tokio::sync::oneshot::channel();
        let first = run_started(config.clone(), None, &shared, concurrent.then_some(known));
        let handshake = async {
            match era.await {
                Ok(true) => Some(handshake_pass(&config, clock, &shared).await),
                _ => None,
            }
        };
        let (first, second) = tokio::join!(first, handshake);
        let stateless = first.fatal.is_none() && first.protocol.era.as_deref() == Some("stateless");
        reports.push(first);
        // A first pass that could not be completed stands alone, as if the other era had not
        // been tried.
        let second = match second {
            Some(second) => Some(second),
            None if stateless && !concurrent => Some(handshake_pass(&config, clock, &shared).await),
            None => None,
        };
        if let (true, Some(second)) = (stateless, second) {
            match second {
                Ok(second) => reports.push(second),
                Err(why) => note = Some(why),
            }
        }
    } else {
        for version in &config.versions {
            let mut pass = config.clone();
            pass.spec_version = Some(version.clone());
            pass.run_timeout = config.run_timeout.saturating_sub(clock.elapsed());
            let report = run_started(pass, None, &shared, None).await;
            let fatal = report.fatal.is_some();
            reports.push(report);
            if fatal {
                break;
            }
        }
    }
    let mut report = join(reports, &config.only);
    if note.is_some() {
        report.eras_note = note;
    }
    if let Target::Stdio(_) = config.target {
        report.process_starts = Some(
            config
                .limits
                .starts
                .load(std::sync::atomic::Ordering::Relaxed),
        );
    }
    report.duration_ms = clock.elapsed().as_millis() as u64;
    report
}

/// The handshake-era pass of a server found in the stateless era: on a connection of its own
/// that completes the initialize handshake, under what is left of the run bound. The report, or
/// why the era was not judged.
async fn handshake_pass(
    config: &RunConfig,
    clock: Instant,
    shared: &Shared,
) -> Result<Report, String> {
    let left = config.run_timeout.saturating_sub(clock.elapsed());
    if left < MIN_PASS {
        return Err(format!(
            "the handshake era was not tried: the run bound of {} s was used up",
            config.run_timeout.as_secs()
        ));
    }
    let session = completes_handshake(config, left, shared)
        .await
        .map_err(|why| {
            format!(
                "the handshake era was not judged: the server does not complete initialize ({why})"
            )
        })?;
    let mut pass = config.clone();
    pass.spec_version = Some(latest_handshake().to_string());
    // What is left once the handshake probe is done.
    pass.run_timeout = config.run_timeout.saturating_sub(clock.elapsed());
    let mut second = run_started(pass, Some(session), shared, None).await;
    // What the first era judged stands: the run is not untestable.
    if let Some(fatal) = second.fatal.take() {
        return Err(format!("the handshake era was not judged: {fatal}"));
    }
    second.protocol.detection = format!(
        "the server also completed initialize (asked for {})",
        latest_handshake()
    );
    Ok(second)
}

/// Whether the server completes an initialize handshake on a connection of its own: the
/// connection, handshake done, on which the handshake-era pass then goes on (one start fewer).
async fn completes_handshake(
    config: &RunConfig,
    left: Duration,
    shared: &Shared,
) -> Result<Session, String> {
    // Its start waits for a core like every other (it may run beside the first pass's).
    let permit = shared.starts.acquire(&config.target).await;
    let session = Session::open(&config.target, &config.limits)?;
    if let (Some(permit), Some(heard)) = (permit, session.heard_flag()) {
        let group = session.process_group();
        tokio::spawn(connect::hold_while_starting(
            permit,
            heard,
            group,
            config.limits.startup_timeout,
        ));
    }
    // Under what is left of the run bound, too.
    let bound = (config.limits.startup_timeout + config.limits.request_timeout).min(left);
    let outcome = tokio::time::timeout(bound, session.handshake(latest_handshake())).await;
    let why = match outcome {
        Ok(Ok(_)) => return Ok(session),
        Ok(Err((why, _))) => why,
        Err(_) => format!("no answer within {} s", bound.as_secs()),
    };
    session.close().await;
    Err(why)
}

/// Joins the passes: each check keeps the results of the eras where it applied (one skip when it
/// applied in none), in the library's order; a check judged in more than one era is marked so
/// and named `id@version`. A `--check` pattern naming a version (`id@2025-11-25`) keeps only
/// that era's result.
fn join(reports: Vec<Report>, only: &[String]) -> Report {
    let mut reports = reports.into_iter();
    let mut joined = reports.next().expect("one pass at least");
    stamp(&mut joined);
    let mut all = std::mem::take(&mut joined.checks);
    for mut other in reports {
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
            if wanted(&result, only) {
                joined.checks.push(result);
            }
        }
    }
    joined.summary = Summary::of(&joined.checks);
    joined
}

/// Records the version each check of a pass was judged at, and cites its pages.
fn stamp(report: &mut Report) {
    let version = report.protocol.version.clone();
    for check in &mut report.checks {
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
    use crate::record::Level;
    use crate::run::empty_report;
    use crate::transport::Limits;

    fn result(id: &str, status: Status) -> CheckResult {
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

    fn pass(version: &str, checks: Vec<CheckResult>) -> Report {
        let mut report = empty_report(&RunConfig {
            target: Target::Stdio(crate::transport::StdioSpec {
                argv: Vec::new(),
                env: Vec::new(),
                cwd: None,
            }),
            limits: Limits::default(),
            versions: Vec::new(),
            spec_version: None,
            jobs: 1,
            run_timeout: Duration::from_secs(1),
            scenarios: Vec::new(),
            only: Vec::new(),
            builtins: true,
            observer: None,
            shard: None,
            fixtures: None,
            official_schemas: None,
            call_tools: None,
            issued: Default::default(),
            served: None,
            expired_token: None,
        });
        report.protocol.version = Some(version.into());
        report.checks = checks;
        report
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
