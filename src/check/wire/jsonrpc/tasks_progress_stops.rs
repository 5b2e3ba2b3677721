//! `tasks-progress-stops`: 2025-11-25: a task's progress stops once the task is terminal.

use crate::check::wire::progress::task_progress_after_terminal;
use crate::check::wire::{Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "tasks-progress-stops",
    since: "2026.11.7",
    area: "tasks",
    title: "2025-11-25: a task's progress stops once the task is terminal",
    level: Level::Must,
    derived: false,
    spec: &[("2025-11-25", "basic/utilities/progress#behavior-requirements"), ("2025-11-25", "basic/utilities/tasks#task-progress-notifications")],
    expect: "no notifications/progress with the token of a task-augmented request once the task was seen to be over: tasks/result answered, or tasks/get, tasks/cancel or notifications/tasks/status reported completed, failed or cancelled",
    transports: &[],
    explain: "For a task-augmented request the progressToken stays valid after the CreateTaskResult, for as long as the task works, and progress notifications for the task MUST stop once it reaches a terminal status. mcpcheck follows every task made by a request that carried a progress token and flags progress for it that the server sent after the client had learnt that the task was over: later on the same connection or stream, or on a stream opened after that. Progress sent before the end that travelled on another stream is not held against the server.",
    idle: Some(Idle::Nothing("no task made by a request with a progress token reported progress")),
    judge: tasks_progress_stops,
};

/// Judges `tasks-progress-stops`: 2025-11-25: a task's progress stops once the task is terminal.
fn tasks_progress_stops(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let (count, offenders) = task_progress_after_terminal(transcript);
        found.seen += count;
        found.bad.extend(offenders);
    }
    found.judge(def)
}
