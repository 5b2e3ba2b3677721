//! Tasks, as 2025-11-25 has them (experimental): a task-augmented `tools/call` returns a
//! `CreateTaskResult` at once, and the call's result is fetched later with `tasks/result`;
//! `tasks/get`, `tasks/list` and `tasks/cancel` report and end tasks.
//!
//! The fixture tools' results are known at once, so a task holds its outcome from the start and
//! only reports it as done after a short while: until then it is `working`, `tasks/result`
//! waits, and `tasks/cancel` may still cancel it. A task made by a request that carried a
//! `progressToken` reports its progress with that token while `tasks/result` waits on it (on
//! that request's stream, where a client waiting for the task listens), and none once it is
//! done.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::fixtures::RELATED;
use crate::quirks::{Demand, Quirk, Quirks, Settled, Waiver};

/// How long a task works before its outcome counts as reached: long enough that a client under
/// load still cancels it while it works.
const WORK: Duration = Duration::from_millis(1000);

/// How long a task that reports progress works: long enough that a client under load still asks
/// for its result while it works (the progress goes to the stream of that request).
const PROGRESS_WORK: Duration = Duration::from_millis(2000);

/// The lifetime every task is given, whatever was asked for (a receiver may override it).
const TTL_MS: u64 = 60_000;

/// How many progress notifications a task sends while it works (at even steps of its work; the
/// total is one more, which its completion reaches).
const PROGRESS_STEPS: u32 = 3;

use crate::outcome::{Outcome, Sink, NO_TASK};

/// One task.
#[derive(Debug)]
struct Task {
    id: String,
    created: SystemTime,
    started: Instant,
    /// How long it works.
    work: Duration,
    cancelled: Option<SystemTime>,
    outcome: Outcome,
    /// The `progressToken` of the request that made the task.
    progress_token: Option<Value>,
    /// How many progress notifications it has sent.
    reported: u32,
    /// 2026-07-28, tasks extension: the input requests it waits on, by key, until
    /// `tasks/update` answers each.
    asks: Vec<(String, Value)>,
    /// What the task comes to once every input request is answered, from the answers by key.
    then: Option<Then>,
    /// The answers so far.
    answers: serde_json::Map<String, Value>,
}

impl Task {
    fn done(&self) -> bool {
        self.asks.is_empty() && Instant::now() >= self.started + self.work
    }

    fn working(&self) -> bool {
        self.cancelled.is_none() && !self.done()
    }

    /// Its `step`th progress notification (of [`PROGRESS_STEPS`] + 1), tied to the task.
    /// None without a token, unless a quirk gives it one.
    fn progress(&self, quirks: &Quirks, step: u32) -> Option<Value> {
        let mut params = json!({
            "progressToken": self.progress_token.clone().unwrap_or(Value::Null),
            "progress": step,
            "total": PROGRESS_STEPS + 1,
            "message": format!("step {step} of {}", PROGRESS_STEPS + 1),
            "_meta": { RELATED: {"taskId": self.id} }
        });
        quirks.told("notifications/progress", &mut params);
        if params["progressToken"].is_null() {
            return None;
        }
        Some(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))
    }

    /// Its status once its work is over as a quirk may show it, given what it is by default.
    fn settled(&self, quirks: &Quirks, extension: bool, mut status: &'static str) -> &'static str {
        if self.done() {
            let task = Settled {
                extension,
                cancelled: self.cancelled.is_some(),
                outcome: &self.outcome,
            };
            quirks.settled(&task, &mut status);
        }
        status
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
            (None, true) => self.created + self.work,
            (None, false) => self.created,
        };
        let status = self.settled(quirks, false, self.status());
        let mut view = json!({
            "taskId": self.id,
            "status": status,
            "createdAt": iso8601(self.created),
            "lastUpdatedAt": iso8601(updated),
            "ttl": TTL_MS,
            "pollInterval": 100
        });
        quirks.task_view(&mut view);
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
    /// `progress_token` is the token the task-augmented request carried, if any.
    /// `work` is how long the task works, when the call said (`workMs`).
    pub fn create(
        &self,
        quirks: &Quirks,
        outcome: Outcome,
        progress_token: Option<Value>,
        work: Option<Duration>,
    ) -> Value {
        let mut tasks = self.tasks.lock().expect("tasks lock");
        let task = Task {
            id: format!("mcpcheck-task-{}-{}", std::process::id(), tasks.len() + 1),
            created: SystemTime::now(),
            started: Instant::now(),
            work: work.unwrap_or(if progress_token.is_some() {
                PROGRESS_WORK
            } else {
                WORK
            }),
            cancelled: None,
            outcome,
            progress_token,
            reported: 0,
            asks: Vec::new(),
            then: None,
            answers: serde_json::Map::new(),
        };
        let view = task.view(quirks);
        tasks.push(task);
        json!({ "task": view })
    }

    /// While the task works, sends its progress notifications that are due, each when it is due,
    /// on `sink`; returns once the task is done or cancelled (or has no token).
    async fn report_progress(&self, quirks: &Quirks, id: &str, sink: &Sink) {
        loop {
            let (step, due) = {
                let tasks = self.tasks.lock().expect("tasks lock");
                match tasks.iter().find(|t| t.id == id) {
                    Some(task)
                        if task.working()
                            && task.progress_token.is_some()
                            && task.reported < PROGRESS_STEPS =>
                    {
                        let step = task.reported + 1;
                        (step, task.started + task.work * step / (PROGRESS_STEPS + 1))
                    }
                    _ => return,
                }
            };
            tokio::time::sleep_until(due.into()).await;
            let mut tasks = self.tasks.lock().expect("tasks lock");
            let Some(task) = tasks.iter_mut().find(|t| t.id == id) else {
                return;
            };
            // Another request waiting on the task may have sent this step already.
            if task.working() && task.reported < step {
                task.reported = step;
                if let Some(note) = task.progress(quirks, step) {
                    let _ = sink.send(note);
                }
            }
        }
    }

    /// With the quirk, a task that is over and had a progress token sends one more progress
    /// notification (once), on the stream of whatever request asks about it next.
    fn late_progress(&self, quirks: &Quirks, id: &str, sink: &Sink) {
        if !quirks.has(Quirk::TaskProgressAfterTerminal) {
            return;
        }
        let mut tasks = self.tasks.lock().expect("tasks lock");
        if let Some(task) = tasks.iter_mut().find(|t| t.id == id) {
            if !task.working() && task.reported <= PROGRESS_STEPS {
                task.reported = PROGRESS_STEPS + 1;
                if let Some(note) = task.progress(quirks, PROGRESS_STEPS + 1) {
                    let _ = sink.send(note);
                }
            }
        }
    }

    /// `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`; progress of a task that
    /// `tasks/result` waits on goes to `sink`.
    pub async fn handle(
        &self,
        quirks: &Quirks,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        if method == "tasks/list" {
            if params.get("cursor").is_some() && !quirks.waives(Waiver::TaskListCursor) {
                return Err((-32602, "Invalid params: unknown cursor".into(), None));
            }
            let tasks = self.tasks.lock().expect("tasks lock");
            let listed: Vec<Value> = tasks.iter().map(|t| t.view(quirks)).collect();
            return Ok(json!({ "tasks": listed }));
        }
        let id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        let unknown = || Err((-32602, format!("{NO_TASK} `{id}`"), None));
        if method != "tasks/cancel" {
            self.late_progress(quirks, id, sink);
        }
        match method {
            "tasks/get" => {
                let tasks = self.tasks.lock().expect("tasks lock");
                match tasks.iter().find(|t| t.id == id) {
                    Some(task) => Ok(task.view(quirks)),
                    None => unknown(),
                }
            }
            "tasks/result" => {
                let done_at = {
                    let tasks = self.tasks.lock().expect("tasks lock");
                    match tasks.iter().find(|t| t.id == id) {
                        Some(task) if task.cancelled.is_none() => task.started + task.work,
                        Some(_) => Instant::now(),
                        None => return unknown(),
                    }
                };
                if !quirks.has(Quirk::TaskResultEarly) {
                    self.report_progress(quirks, id, sink).await;
                    tokio::time::sleep_until(done_at.into()).await;
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
                        result["_meta"] = related;
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
                if terminal && !quirks.waives(Waiver::TerminalTaskCancel) {
                    return Err((
                        -32602,
                        format!("Invalid params: task `{id}` is already {}", task.status()),
                        None,
                    ));
                }
                if !terminal && !quirks.waives(Waiver::TaskCancel) {
                    task.cancelled = Some(SystemTime::now());
                }
                Ok(task.view(quirks))
            }
            _ => unreachable!("only the tasks methods come here"),
        }
    }
}

/// The key under which a fixture task that needs input asks for the client's roots.
pub const ROOTS_KEY: &str = "roots";

/// What a task that asked for input comes to, from the answers by key.
type Then = fn(&serde_json::Map<String, Value>) -> Outcome;

/// The tasks extension's identifier (2026-07-28, SEP-2663).
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether a 2026-07-28 request declares the tasks extension among its capabilities.
pub fn declared(params: &Value) -> bool {
    params
        .pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// The -32021 error for a request that needs the tasks extension but did not declare it.
pub fn missing_extension(what: &str) -> (i64, String, Option<Value>) {
    (
        -32021,
        format!("Missing required client capability: {what} needs the {EXTENSION} extension"),
        Some(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}})),
    )
}

/// 2026-07-28: the tasks of the tasks extension (`io.modelcontextprotocol/tasks`). A tool call
/// may be answered with a task handle (`resultType: "task"`), which `tasks/get` polls until
/// the task is over (its result or error inlined), `tasks/update` answers its input requests
/// and `tasks/cancel` ends. The server holds them, not a connection: on 2026-07-28 a request
/// belongs to none.
#[derive(Debug, Default)]
pub struct ExtTasks {
    tasks: Mutex<Vec<Task>>,
}

impl Task {
    /// Its status as the extension sees it: a tool error is a completed task; only a JSON-RPC
    /// error makes it failed.
    fn ext_status(&self, quirks: &Quirks) -> &'static str {
        let status = match (&self.cancelled, self.done(), &self.outcome) {
            (Some(_), ..) => "cancelled",
            (None, false, _) if !self.asks.is_empty() => "input_required",
            (None, false, _) => "working",
            (None, true, Ok(_)) => "completed",
            (None, true, Err(_)) => "failed",
        };
        self.settled(quirks, true, status)
    }

    /// Its state as the extension shows it (a `Task`); `detailed` adds what its status carries
    /// (a `DetailedTask`: the result of a completed task, the error of a failed one).
    fn ext_view(&self, quirks: &Quirks, detailed: bool) -> Value {
        let updated = match (self.cancelled, self.done()) {
            (Some(at), _) => at,
            (None, true) => self.created + self.work,
            (None, false) => self.created,
        };
        let status = self.ext_status(quirks);
        let mut view = json!({
            "taskId": self.id,
            "status": status,
            "createdAt": iso8601(self.created),
            "lastUpdatedAt": iso8601(updated),
            "ttlMs": TTL_MS,
            "pollIntervalMs": 100
        });
        if !detailed {
            return view;
        }
        match (status, &self.outcome) {
            ("input_required", _) => {
                view["inputRequests"] = Value::Object(self.asks.iter().cloned().collect());
            }
            ("completed", Ok(result)) => {
                view["result"] = result.clone();
            }
            ("failed", Ok(_)) => {
                view["error"] = json!({"code": -32603, "message": "the tool reported an error"});
            }
            ("failed", Err((code, message, data))) => {
                view["error"] = json!({"code": code, "message": message});
                if let Some(data) = data {
                    view["error"]["data"] = data.clone();
                }
            }
            _ => {}
        }
        if status == "failed" {
            view["statusMessage"] = json!("The work broke down.");
        }
        view
    }
}

impl ExtTasks {
    /// Starts a task whose outcome is already known; returns its handle (a `CreateTaskResult`),
    /// once `tasks/get` knows the task. A task that `asks_roots` first waits for the client's
    /// roots (input request [`ROOTS_KEY`]); its outcome is then how many came.
    /// `work` is how long the task works, when the call said (`workMs`).
    pub fn create(
        &self,
        quirks: &Quirks,
        outcome: Outcome,
        asks_roots: bool,
        work: Option<Duration>,
    ) -> Value {
        let asks = if asks_roots {
            vec![(
                ROOTS_KEY.to_string(),
                json!({"method": "roots/list", "params": {}}),
            )]
        } else {
            Vec::new()
        };
        self.start(
            quirks,
            outcome,
            asks,
            asks_roots.then_some(count_roots),
            work,
        )
    }

    /// Starts a task that first waits on these input requests (key and request), then comes to
    /// what `then` makes of the answers (or to `outcome`, without `then`).
    pub fn start(
        &self,
        quirks: &Quirks,
        outcome: Outcome,
        asks: Vec<(String, Value)>,
        then: Option<Then>,
        work: Option<Duration>,
    ) -> Value {
        let mut tasks = self.tasks.lock().expect("tasks lock");
        let task = Task {
            id: format!(
                "mcpcheck-ext-task-{}-{}",
                std::process::id(),
                tasks.len() + 1
            ),
            created: SystemTime::now(),
            started: Instant::now(),
            work: work.unwrap_or(WORK),
            cancelled: None,
            outcome,
            progress_token: None,
            reported: 0,
            asks,
            then,
            answers: serde_json::Map::new(),
        };
        let view = task.ext_view(quirks, false);
        tasks.push(task);
        let mut handle = view;
        handle["resultType"] = json!("task");
        handle
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` from a request that declared the
    /// extension.
    pub fn handle(&self, quirks: &Quirks, method: &str, params: &Value) -> Outcome {
        let id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        let mut tasks = self.tasks.lock().expect("tasks lock");
        let Some(task) = tasks.iter_mut().find(|t| t.id == id) else {
            return Err((-32602, format!("{NO_TASK} `{id}`"), None));
        };
        match method {
            "tasks/get" => Ok(task.ext_view(quirks, true)),
            "tasks/update" => {
                let Some(responses) = params.get("inputResponses").and_then(Value::as_object)
                else {
                    return Err((
                        -32602,
                        "Invalid params: inputResponses must be an object".into(),
                        None,
                    ));
                };
                // Responses to keys that are not outstanding are ignored.
                let outstanding: Vec<(String, Value)> = task
                    .asks
                    .iter()
                    .filter(|(key, _)| responses.contains_key(key))
                    .cloned()
                    .collect();
                if responses.len() > outstanding.len() && quirks.demands(Demand::OutstandingKeys) {
                    return Err((-32602, "Invalid params: no such input request".into(), None));
                }
                for (key, request) in &outstanding {
                    if !answers_request(request, &responses[key]) {
                        return Err((
                            -32602,
                            format!(
                                "Invalid params: inputResponses.{key} does not answer its request"
                            ),
                            None,
                        ));
                    }
                }
                if !outstanding.is_empty() && !quirks.waives(Waiver::TaskUpdate) {
                    for (key, _) in &outstanding {
                        task.asks.retain(|(k, _)| k != key);
                        task.answers.insert(key.clone(), responses[key].clone());
                    }
                    if task.asks.is_empty() {
                        // The work goes on from here.
                        task.started = Instant::now();
                        if let Some(then) = task.then {
                            task.outcome = then(&task.answers);
                        }
                    }
                }
                Ok(json!({}))
            }
            "tasks/cancel" => {
                let over = task.cancelled.is_some() || task.done();
                if over && quirks.demands(Demand::LiveTaskCancel) {
                    return Err((-32602, "Invalid params: the task is over".into(), None));
                }
                // Cancelling a task that is over changes nothing; the request is acknowledged.
                if task.cancelled.is_none() && !task.done() {
                    task.cancelled = Some(SystemTime::now());
                }
                Ok(quirks.cancel_result(|| task.ext_view(quirks, true)))
            }
            _ => unreachable!("only the tasks extension's methods come here"),
        }
    }
}

impl ExtTasks {
    /// The official suite's tasks-extension fixture tools (2026-07-28): `greet` (never a task),
    /// `slow_compute` (a task of `seconds` for a request that declares the extension),
    /// `failing_job` (only as a task, which completes with `isError`), `protocol_error_job` (a
    /// task that fails with a JSON-RPC error), `confirm_delete` and `multi_input` (tasks that
    /// first ask for input, one request and two), and `test_tool_with_task` (asks for a name
    /// with an InputRequiredResult, then makes a task of the greeting). `None` for other tools.
    pub fn official_tool(
        &self,
        quirks: &Quirks,
        name: &str,
        args: &Value,
        params: &Value,
    ) -> Option<Outcome> {
        let text = |t: String| json!({"content": [{"type": "text", "text": t}]});
        let declared = declared(params);
        let second = Some(Duration::from_secs(1));
        let elicit = |message: &str, properties: Value, required: Value| json!({"method": "elicitation/create", "params": {"message": message, "requestedSchema": {"type": "object", "properties": properties, "required": required}}});
        Some(match name {
            "greet" => match args.get("name").and_then(Value::as_str) {
                Some(who) => Ok(text(format!("Hello, {who}!"))),
                // Arguments its inputSchema refuses are invalid params on 2026-07-28.
                None => Err((-32602, "Invalid params: name must be a string".into(), None)),
            },
            "slow_compute" => {
                let seconds = args
                    .get("seconds")
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0)
                    .clamp(0.0, 60.0);
                let label = args.get("label").and_then(Value::as_str).unwrap_or("work");
                let result = text(format!("{label}: computed in {seconds} s"));
                if !declared {
                    // Without the extension the work is done at once.
                    return Some(Ok(result));
                }
                let work = Some(Duration::from_secs_f64(seconds));
                Ok(self.start(quirks, Ok(result), Vec::new(), None, work))
            }
            "failing_job" if !declared => Err(missing_extension(name)),
            "failing_job" => {
                let mut result = text("The job failed.".into());
                result["isError"] = json!(true);
                Ok(self.start(quirks, Ok(result), Vec::new(), None, second))
            }
            "protocol_error_job" => {
                let error = (
                    -32603,
                    "Internal error: the job broke down".to_string(),
                    None,
                );
                if !declared {
                    return Some(Err(error));
                }
                Ok(self.start(quirks, Err(error), Vec::new(), None, second))
            }
            "confirm_delete" | "multi_input" if !declared => {
                Err(missing_extension("asking for input during a task"))
            }
            "confirm_delete" => {
                let file = args
                    .get("filename")
                    .and_then(Value::as_str)
                    .unwrap_or("the file");
                let ask = elicit(
                    &format!("Delete {file}?"),
                    json!({"confirm": {"type": "boolean"}}),
                    json!(["confirm"]),
                );
                Ok(self.start(
                    quirks,
                    Ok(text("Nothing was deleted.".into())),
                    vec![("confirm".into(), ask)],
                    Some(confirmed),
                    second,
                ))
            }
            "multi_input" => {
                let ask = |n: &str| {
                    elicit(
                        &format!("Input {n} of 2: a name, and a confirmation"),
                        json!({"name": {"type": "string"}, "confirm": {"type": "boolean"}}),
                        json!(["name"]),
                    )
                };
                Ok(self.start(
                    quirks,
                    Ok(text("Both inputs came.".into())),
                    vec![("first".into(), ask("1")), ("second".into(), ask("2"))],
                    None,
                    second,
                ))
            }
            "test_tool_with_task" if !declared => Err(missing_extension(name)),
            "test_tool_with_task" => match params.pointer("/inputResponses/user_name") {
                Some(answer) if answer.get("action").is_some_and(Value::is_string) => {
                    let who = answer
                        .pointer("/content/name")
                        .and_then(Value::as_str)
                        .unwrap_or("nobody");
                    let greeting = text(format!("Hello, {who}, from a task!"));
                    Ok(self.start(quirks, Ok(greeting), Vec::new(), None, second))
                }
                Some(_) => Err((
                    -32602,
                    "Invalid params: inputResponses.user_name is not an ElicitResult".into(),
                    None,
                )),
                // Before the task exists, the input is asked for with an InputRequiredResult.
                None => Ok(json!({
                    "resultType": "input_required",
                    "inputRequests": {"user_name": elicit("What is your name?", json!({"name": {"type": "string"}}), json!(["name"]))}
                })),
            },
            _ => return None,
        })
    }
}

/// `confirm_delete`'s outcome once answered: deleted if the user accepted and confirmed.
fn confirmed(answers: &serde_json::Map<String, Value>) -> Outcome {
    let yes = answers.get("confirm").is_some_and(|a| {
        a.get("action") == Some(&json!("accept"))
            && a.pointer("/content/confirm") == Some(&json!(true))
    });
    let said = if yes {
        "The file was deleted."
    } else {
        "Nothing was deleted."
    };
    Ok(json!({"content": [{"type": "text", "text": said}]}))
}

/// Whether an answer has the shape of its input request's result: a ListRootsResult, an
/// ElicitResult or a sampling result.
fn answers_request(request: &Value, answer: &Value) -> bool {
    match request.get("method").and_then(Value::as_str) {
        Some("roots/list") => answer.get("roots").is_some_and(Value::is_array),
        Some("elicitation/create") => answer.get("action").is_some_and(Value::is_string),
        Some("sampling/createMessage") => answer
            .get("content")
            .is_some_and(|c| c.is_object() || c.is_array()),
        _ => true,
    }
}

/// The fixture task's outcome once the client's roots came: how many.
fn count_roots(answers: &serde_json::Map<String, Value>) -> Outcome {
    let count = answers
        .get(ROOTS_KEY)
        .and_then(|a| a.get("roots"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let text = format!("The client has {count} roots.");
    Ok(json!({"content": [{"type": "text", "text": text}]}))
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
