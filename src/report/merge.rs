//! Joining the JSON reports of a sharded run (`mcpcheck run --shard K/N`) into one report.
//!
//! Every scenario check ran in exactly one shard. Built-in checks judge the traffic of their own
//! shard, so each shard reports them: the merged verdict is the worst of them (a shard that had
//! nothing to judge and skipped does not count), with the evidence of all.

use std::collections::HashMap;

use super::{CheckResult, Report, Summary};
use crate::record::Status;

/// How much evidence a merged check keeps.
const MAX_EVIDENCE: usize = 10;

/// Why shard reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// None were given.
    #[error("no reports to merge")]
    Nothing,
    /// They are of different targets (their labels).
    #[error(
        "the reports are of different targets ({0} and {1}); merge joins the shards of one run"
    )]
    Targets(String, String),
}

/// Merges shard reports of one target.
pub fn merge(reports: Vec<Report>) -> Result<Report, MergeError> {
    let mut reports = reports.into_iter();
    let mut merged = reports.next().ok_or(MergeError::Nothing)?;
    let target_of = |r: &Report| {
        (
            r.target.transport,
            r.target.command.clone(),
            r.target.url.clone(),
        )
    };
    let target = target_of(&merged);
    let mut index: HashMap<String, usize> = merged
        .checks
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name(), i))
        .collect();
    for report in reports {
        if target_of(&report) != target {
            return Err(MergeError::Targets(
                merged.target.label(),
                report.target.label(),
            ));
        }
        if merged.fatal.is_none() {
            if let Some(fatal) = &report.fatal {
                merged.fatal = Some(format!("a shard could not test the server: {fatal}"));
            }
        }
        if merged.protocol.version.is_none() {
            merged.protocol = report.protocol.clone();
        }
        merged.started_at = merged.started_at.clone().min(report.started_at.clone());
        merged.duration_ms = merged.duration_ms.max(report.duration_ms);
        for check in report.checks {
            match index.get(&check.name()) {
                Some(&i) => combine(&mut merged.checks[i], check),
                None => {
                    index.insert(check.name(), merged.checks.len());
                    merged.checks.push(check);
                }
            }
        }
    }
    merged.summary = Summary::of(&merged.checks);
    merged.grading = None;
    Ok(merged)
}

/// The worse verdict wins, except that a skip (nothing to judge in that shard) never hides a
/// verdict another shard reached; evidence from both is kept.
fn combine(kept: &mut CheckResult, other: CheckResult) {
    let mut evidence = std::mem::take(&mut kept.evidence);
    evidence.extend(other.evidence.iter().cloned());
    let replace = match (kept.status, other.status) {
        (Status::Skip, theirs) => theirs != Status::Skip,
        (_, Status::Skip) => false,
        (ours, theirs) => theirs < ours,
    };
    if replace {
        *kept = other;
    }
    evidence.truncate(MAX_EVIDENCE);
    kept.evidence = evidence;
}
