//! `stdio-exit-on-stdin-eof`: the server exits when its stdin is closed.

use super::shutdown_remark;
use crate::check::wire::{Builtin, WireInput};
use crate::record::exchange::StoppedBy;
use crate::record::{Evidence, Level, Status, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stdio-exit-on-stdin-eof",
    since: "2026.11",
    area: "stdio",
    title: "the server exits when its stdin is closed",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "basic/lifecycle#stdio")],
    expect: "the server to exit within the grace period after mcpcheck closes its stdin, without needing SIGTERM",
    transports: &[TransportKind::Stdio],
    explain: "For stdio, shutdown starts with the client closing the server's input stream; the client then waits and escalates to SIGTERM and SIGKILL only if the server does not exit. mcpcheck follows that ladder at the end of the run.",
    idle: None,
    judge: stdio_exit_on_stdin_eof,
};

/// Judges `stdio-exit-on-stdin-eof`: the server exits when its stdin is closed.
fn stdio_exit_on_stdin_eof(_: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let Some(exit) = input.main_exit else {
        return (
            Verdict::new(
                Status::NotTestable,
                "the server was not shut down by mcpcheck",
            ),
            Vec::new(),
        );
    };
    let evidence = vec![shutdown_remark("shutdown", exit)];
    match exit.stopped_by {
        StoppedBy::StdinEof => (
            Verdict::new(
                Status::Pass,
                format!(
                    "exited {} ms after stdin closed ({})",
                    exit.exit_ms.unwrap_or(0),
                    exit.status
                ),
            ),
            evidence,
        ),
        StoppedBy::ExitedBeforeShutdown => (
            Verdict::new(
                Status::NotTestable,
                format!(
                    "the server had already exited before stdin was closed ({})",
                    exit.status
                ),
            ),
            evidence,
        ),
        other @ (StoppedBy::Sigterm | StoppedBy::Sigkill) => (
            Verdict::new(
                Status::Warn,
                format!("the server did not exit after stdin closed; it was stopped by {other}"),
            )
            .with_actual(format!("stopped by {other}")),
            evidence,
        ),
    }
}
