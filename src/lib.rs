//! mcpcheck: a conformance test harness for Model Context Protocol servers.
//!
//! The layers, lowest first (a module imports only those below it; `layers.rs` tests it, and
//! docs/architecture.md walks through them): [`record`] is what crossed the wire and the
//! vocabulary of verdicts; [`transport`] moves bytes; [`protocol`] speaks MCP as a client;
//! [`scenario`] is the scenario library and its file format; [`check`] turns the record into
//! verdicts; [`profile`] says which checks count; [`report`] renders a run; [`run`] executes
//! scenarios against a server; [`compare`] runs several; [`cli`] is the command line.

#![warn(missing_docs)]
// The scenario file schema is one deeply nested `json!` literal.
#![recursion_limit = "256"]

pub mod check;
pub mod cli;
pub mod compare;
pub mod exit;
pub mod profile;
pub mod protocol;
pub mod record;
pub mod report;
pub mod run;
pub mod scenario;
pub mod transport;

#[cfg(test)]
mod props;

#[cfg(test)]
mod layers;
