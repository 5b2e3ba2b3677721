//! `stdio-exit-before-initialize`: a server whose stdin closes before initialize exits (its status and stderr are recorded).

use super::shutdown_remark;
use crate::check::wire::{Builtin, WireInput};
use crate::record::exchange::StoppedBy;
use crate::record::{Evidence, Level, Status, TransportKind, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "stdio-exit-before-initialize",
    since: "2026.11.11",
    area: "stdio",
    title: "a server whose stdin closes before initialize exits (its status and stderr are recorded)",
    level: Level::Should,
    derived: false,
    spec: &[("2025-11-25", "basic/lifecycle#stdio")],
    expect: "a second server process, whose stdin mcpcheck closes before sending anything, to exit within the startup bound plus the exit grace, without needing SIGTERM",
    transports: &[TransportKind::Stdio],
    explain: "A client that gives up before the handshake (a wrong command, a cancelled start) closes the server's input at once; the server should exit then as at any other time. mcpcheck starts the server once more, closes its stdin without a word, and records how it ended and the end of its stderr, which often says what a server expects at startup (an environment variable, a config file).",
    idle: None,
    judge: stdio_exit_before_initialize,
};

/// Judges `stdio-exit-before-initialize`: a server whose stdin closes before `initialize`
/// exits; its exit status and stderr tail go into the evidence either way.
fn stdio_exit_before_initialize(_: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let Some(early) = input.early_exit else {
        return (
            Verdict::new(
                Status::NotTestable,
                "no second server process could be started within the run's bound",
            ),
            Vec::new(),
        );
    };
    let exit = &early.exit;
    let stderr = early
        .stderr_tail
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let mut evidence = vec![shutdown_remark("stdin closed before initialize", exit)];
    if let Some(stderr) = stderr {
        evidence.push(Evidence::remark(
            "stderr",
            crate::record::cut(stderr, crate::record::EVIDENCE_TEXT),
        ));
    }
    let said = stderr
        .map(|s| {
            format!(
                "; stderr ends: {}",
                crate::record::cut(s.lines().last().unwrap_or(s), 200)
            )
        })
        .unwrap_or_default();
    // Exiting is what the check asks; how is shown beside the pass when it was not clean (a
    // failure status, or a crash's trace on stderr), so that a comparison of servers shows it.
    let crashed = stderr.is_some_and(|s| {
        [
            "Traceback (most recent call last)",
            "panicked at",
            "Unhandled",
            "\n    at ",
        ]
        .iter()
        .any(|mark| s.contains(mark))
    });
    let unclean = (exit.status != "exit 0" || crashed)
        .then(|| format!("not a clean exit: {}{said}", exit.status));
    match exit.stopped_by {
        StoppedBy::StdinEof | StoppedBy::ExitedBeforeShutdown => {
            let mut verdict = Verdict::new(
                Status::Pass,
                format!(
                    "exited ({}) {}{said}",
                    exit.status,
                    if exit.stopped_by == StoppedBy::StdinEof {
                        format!("{} ms after stdin closed", exit.exit_ms.unwrap_or(0))
                    } else {
                        "before stdin was closed".to_string()
                    }
                ),
            );
            verdict.note = unclean;
            (verdict, evidence)
        }
        other @ (StoppedBy::Sigterm | StoppedBy::Sigkill) => (
            Verdict::new(
                Status::Warn,
                format!("the server did not exit when stdin closed before initialize; it was stopped by {other}{said}"),
            )
            .with_actual(format!("stopped by {other}")),
            evidence,
        ),
    }
}
