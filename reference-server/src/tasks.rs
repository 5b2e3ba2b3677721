//! Tasks, as 2025-11-25 has them (experimental): a task-augmented `tools/call` returns a
//! `CreateTaskResult` at once, and the call's result is fetched later with `tasks/result`;
//! `tasks/get`, `tasks/list` and `tasks/cancel` report and end tasks.
//!
//! The fixture tools' results are known at once, so a task holds its outcome from the start and
//! only reports it as done after a short while: until then it is `working`, `tasks/result`
//! waits, and `tasks/cancel` may still cancel it.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::quirks::{Quirk, Quirks};

/// How long a task works before its outcome counts as reached.
const WORK: Duration = Duration::from_millis(300);

/// The lifetime every task is given, whatever was asked for (a receiver may override it).
const TTL_MS: u64 = 60_000;

/// The related-task `_meta` key.
const RELATED: &str = "io.modelcontextprotocol/related-task";

use crate::server::Outcome;

/// One task.
#[derive(Debug)]
struct Task {
    id: String,
    created: SystemTime,
    done_at: Instant,
    cancelled: Option<SystemTime>,
    outcome: Outcome,
}

impl Task {
    fn done(&self) -> bool {
        Instant::now() >= self.done_at
    }

    fn status(&self) -> &'static str {
        match (&self.cancelled, self.done(), &self.outcome) {
            (Some(_), ..) => "cancelled",
            (None, false, _) => "working",
            (None, true, Ok(result)) if result.get("isError") != Some(&json!(true)) => "completed",
            (None, true, _) => "failed",
        }
    }

    /// The task's state as the protocol shows it.
    fn view(&self, quirks: &Quirks) -> Value {
        let updated = match (self.cancelled, self.done()) {
            (Some(at), _) => at,
            (None, true) => self.created + WORK,
            (None, false) => self.created,
        };
        let status =
            if quirks.has(Quirk::TaskCancelledCompletes) && self.cancelled.is_some() && self.done()
            {
                "completed"
            } else {
                self.status()
            };
        let mut view = json!({
            "taskId": self.id,
            "status": status,
            "createdAt": iso8601(self.created),
            "lastUpdatedAt": iso8601(updated),
            "ttl": TTL_MS,
            "pollInterval": 100
        });
        if quirks.has(Quirk::TaskWithoutTtl) {
            view.as_object_mut().expect("object").remove("ttl");
        }
        view
    }
}

/// A connection's tasks.
#[derive(Debug, Default)]
pub struct Tasks {
    tasks: Mutex<Vec<Task>>,
}

impl Tasks {
    /// Starts a task whose outcome is already known; returns the `CreateTaskResult`.
    pub fn create(&self, quirks: &Quirks, outcome: Outcome) -> Value {
        let mut tasks = self.tasks.lock().expect("tasks lock");
        let task = Task {
            id: format!("mcpcheck-task-{}-{}", std::process::id(), tasks.len() + 1),
            created: SystemTime::now(),
            done_at: Instant::now() + WORK,
            cancelled: None,
            outcome,
        };
        let mut view = task.view(quirks);
        if quirks.has(Quirk::TaskCreatedWithoutTimestamps) {
            let object = view.as_object_mut().expect("object");
            object.remove("createdAt");
            object.remove("lastUpdatedAt");
        }
        tasks.push(task);
        json!({ "task": view })
    }

    /// `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
    pub async fn handle(&self, quirks: &Quirks, method: &str, params: &Value) -> Outcome {
        if method == "tasks/list" {
            if params.get("cursor").is_some() && !quirks.has(Quirk::TaskListCursorIgnored) {
                return Err((-32602, "Invalid params: unknown cursor".into(), None));
            }
            let tasks = self.tasks.lock().expect("tasks lock");
            let listed = if quirks.has(Quirk::TaskListEmpty) {
                Vec::new()
            } else {
                tasks.iter().map(|t| t.view(quirks)).collect()
            };
            return Ok(json!({ "tasks": listed }));
        }
        let id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        let unknown = || {
            let code = if quirks.has(Quirk::TaskUnknownIdInternal) {
                -32603
            } else {
                -32602
            };
            Err((code, format!("Invalid params: no task `{id}`"), None))
        };
        match method {
            "tasks/get" => {
                let tasks = self.tasks.lock().expect("tasks lock");
                match tasks.iter().find(|t| t.id == id) {
                    Some(task) => Ok(task.view(quirks)),
                    None => unknown(),
                }
            }
            "tasks/result" => {
                let wait = {
                    let tasks = self.tasks.lock().expect("tasks lock");
                    match tasks.iter().find(|t| t.id == id) {
                        Some(task) if task.cancelled.is_none() => {
                            task.done_at.saturating_duration_since(Instant::now())
                        }
                        Some(_) => Duration::ZERO,
                        None => return unknown(),
                    }
                };
                if !quirks.has(Quirk::TaskResultEarly) {
                    tokio::time::sleep(wait).await;
                }
                let tasks = self.tasks.lock().expect("tasks lock");
                let task = tasks.iter().find(|t| t.id == id).expect("tasks are kept");
                let related = json!({ RELATED: {"taskId": task.id} });
                if task.cancelled.is_some() {
                    return Err((-32603, "The task was cancelled".into(), Some(related)));
                }
                if quirks.has(Quirk::TaskResultEarly) && !task.done() {
                    return Ok(json!({"_meta": related, "content": []}));
                }
                match &task.outcome {
                    Ok(result) => {
                        let mut result = result.clone();
                        if !quirks.has(Quirk::TaskResultUnrelated) {
                            result["_meta"] = related;
                        }
                        Ok(result)
                    }
                    Err(error) => Err(error.clone()),
                }
            }
            "tasks/cancel" => {
                let mut tasks = self.tasks.lock().expect("tasks lock");
                let Some(task) = tasks.iter_mut().find(|t| t.id == id) else {
                    return unknown();
                };
                let terminal = task.cancelled.is_some() || task.done();
                if terminal && !quirks.has(Quirk::TaskCancelTerminalAccepted) {
                    return Err((
                        -32602,
                        format!("Invalid params: task `{id}` is already {}", task.status()),
                        None,
                    ));
                }
                if !terminal && !quirks.has(Quirk::TaskCancelIgnored) {
                    task.cancelled = Some(SystemTime::now());
                }
                Ok(task.view(quirks))
            }
            _ => unreachable!("only the tasks methods come here"),
        }
    }
}

/// An RFC 3339 timestamp in UTC, with milliseconds.
fn iso8601(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(iso8601(leap), "2024-02-29T12:34:56.789Z");
    }
}
