//! Judging: checks turn the record of a run into verdicts. The vocabulary (what a check is,
//! what it can conclude) lives in [`crate::record::verdict`] and is re-exported here.
//!
//! Checks are pure: [`rules`] evaluates a scenario check against the records of its steps
//! ([`step`]), [`wire`]
//! evaluates the built-in checks over whole transcripts. Neither does any I/O.

pub mod messages;
pub mod query;
pub mod rules;
pub mod step;
pub mod wire;

pub use crate::record::verdict::{spec_url, CheckDef, Level, SpecRef, Status, Verdict};
