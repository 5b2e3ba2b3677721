//! `tasks-status-transitions`: a task's status moves only along the allowed paths.

use crate::check::wire::{is_terminal, messages, Answered, Builtin, Idle, Tally, WireInput};
use crate::record::{Evidence, Level, Verdict};
use serde_json::Value;
use std::collections::HashMap;

/// The check's definition, which the area's `BUILTINS` lists.
pub(super) const CHECK: Builtin = Builtin {
    id: "tasks-status-transitions",
    since: "2026.11.4",
    area: "tasks",
    title: "a task's status moves only along the allowed paths",
    level: Level::Must,
    derived: false,
    spec: &[
        ("2025-11-25", "basic/utilities/tasks#task-status-lifecycle"),
        ("2026-07-28", "extensions/tasks#task-status"),
    ],
    expect: "once completed, failed or cancelled, a task to stay so (and on 2025-11-25 to begin in working), across every CreateTaskResult, tasks/get, tasks/cancel and tasks/list result of the run",
    transports: &[],
    explain: "From working or input_required a task may move anywhere, but completed, failed and cancelled are terminal and never change. On 2025-11-25 every task begins in working; the 2026-07-28 tasks extension lets a task handle's seed state be another. mcpcheck follows every task the run saw, in the order the results arrived on its connection, and judges each change of status.",
    idle: Some(Idle::Nothing("no task was created or reported during the run")),
    judge: tasks_status_transitions,
};

/// Judges `tasks-status-transitions`: a task's status moves only along the allowed paths.
fn tasks_status_transitions(def: &Builtin, input: &WireInput) -> (Verdict, Vec<Evidence>) {
    let mut found = Tally::default();
    for transcript in input.transcripts {
        let mut last: HashMap<String, String> = HashMap::new();
        for Answered {
            method,
            message,
            frame,
            ..
        } in input.results(transcript)
        {
            let result = &message["result"];
            let reported: Vec<&Value> = match method.as_str() {
                messages::TASK_AUGMENTED => vec![&result["task"]],
                // 2026-07-28 (tasks extension): a flat handle; its cancel is a bare ack.
                messages::TASK_HANDLE | "tasks/get" | "tasks/cancel" => vec![result],
                "tasks/list" => result["tasks"]
                    .as_array()
                    .map(|t| t.iter().collect())
                    .unwrap_or_default(),
                _ => continue,
            };
            for task in reported {
                let (Some(id), Some(status)) = (
                    task.get("taskId").and_then(Value::as_str),
                    task.get("status").and_then(Value::as_str),
                ) else {
                    continue;
                };
                found.seen += 1;
                let problem = match last.get(id) {
                    None if method == messages::TASK_AUGMENTED && status != "working" => {
                        Some(format!("task `{id}` began as {status}, not working"))
                    }
                    Some(before) if before != status && is_terminal(before) => Some(format!(
                        "task `{id}` was {before}, a terminal status, and then {status}"
                    )),
                    _ => None,
                };
                if let Some(problem) = problem {
                    found.bad.push(Evidence::frame(&frame.text, &problem));
                }
                last.insert(id.to_string(), status.to_string());
            }
        }
    }
    found.judge(def)
}
