//! mcpcheck: a conformance test harness for Model Context Protocol servers.
//!
//! The path of a run reads top to bottom: [`cli`] resolves arguments into a [`run::RunConfig`];
//! [`transport`] moves bytes; [`protocol`] speaks MCP as a client; [`run`] executes [`scenario`]s;
//! [`check`] turns recorded exchanges into verdicts; [`report`] renders them.

pub mod check;
pub mod cli;
pub mod compare;
pub mod exit;
pub mod profile;
pub mod protocol;
pub mod report;
pub mod run;
pub mod scenario;
pub mod transport;

#[cfg(test)]
mod props;
