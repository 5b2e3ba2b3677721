//! Judging: checks turn the record of a run into verdicts. The vocabulary (what a check is,
//! what it can conclude) lives in [`crate::record::verdict`], where every layer takes it from.
//!
//! Checks are pure: [`rules`] evaluates a scenario check against the records of its steps
//! ([`step`]; a read's bytes, digest and frontmatter in [`content`]), [`wire`]
//! evaluates the built-in checks over whole transcripts. Neither does any I/O.

pub mod content;
pub mod messages;
pub mod query;
pub mod rules;
pub mod step;
pub mod wire;

/// Every check there is, in one list: the checks of `scenarios` (the library, and any the user
/// loads) in their order, then the built-in checks over whole transcripts ([`wire`]).
pub fn definitions<S: std::borrow::Borrow<crate::scenario::Scenario>>(
    scenarios: &[S],
) -> Vec<crate::record::CheckDef> {
    scenarios
        .iter()
        .map(std::borrow::Borrow::borrow)
        .flat_map(|s| s.checks.iter().map(|c| c.def.clone()))
        .chain(wire::definitions())
        .collect()
}
