//! `tools/call`: the fixture tools, the official suite's and mcpcheck's own, each with the
//! quirks that change what it does.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Server, Session};
use crate::fixtures::{self, ToolOutcome};
use crate::mrtr;
use crate::outcome::{Outcome, Sink, LOG_LEVELS};
use crate::quirks::{Quirk, Waiver};

impl Server {
    /// Calls a fixture tool.
    ///
    /// Long by design: one arm per fixture tool, each with the quirks that change it, so that a tool's
    /// whole behaviour is read in one place.
    pub(super) async fn call_tool(
        &self,
        version: &str,
        session: &Session,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err((-32602, "Invalid params: name must be a string".into(), None));
        };
        let args = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        if !args.is_object() {
            return Err((
                -32602,
                "Invalid params: arguments must be an object".into(),
                None,
            ));
        }
        if version == fixtures::TASKS_VERSION && self.serves("tasks") {
            let augmented = params.get("task").is_some_and(Value::is_object);
            match (augmented, fixtures::task_support(name)) {
                (true, None) if !self.quirks.waives(Waiver::TaskForbidden) => {
                    return Err((
                        -32601,
                        format!("Method not found: `{name}` does not run as a task"),
                        None,
                    ))
                }
                (false, Some("required")) if !self.quirks.waives(Waiver::TaskRequired) => {
                    return Err((
                        -32601,
                        format!("Method not found: `{name}` runs only as a task"),
                        None,
                    ))
                }
                (true, _) => {
                    let outcome = match fixtures::call_tool(name, &args, version) {
                        ToolOutcome::Result(result) => Ok(result),
                        ToolOutcome::Unknown => {
                            Err((-32602, format!("Unknown tool: {name}"), None))
                        }
                        _ => Ok(json!({"content": [{"type": "text", "text": "done"}]})),
                    };
                    let token = params.pointer("/_meta/progressToken").cloned();
                    return Ok(session.tasks.create(
                        &self.quirks,
                        outcome,
                        token,
                        fixtures::task_work(&args),
                    ));
                }
                _ => {}
            }
        }
        if self.stateless() && self.serves("tasks") && self.official_fixtures {
            if let Some(outcome) = self
                .ext_tasks
                .official_tool(&self.quirks, name, &args, params)
            {
                return outcome;
            }
        }
        if self.stateless()
            && self.serves("tasks")
            && matches!(name, "mcpcheck_task" | "mcpcheck_task_required")
        {
            // 2026-07-28, the tasks extension: a task for a request that declares it.
            let declared = crate::tasks::declared(params);
            let outcome = fixtures::ext_task_outcome(&args);
            // With outcome `input`, the task first asks for the client's roots.
            let asks_roots = args.get("outcome") == Some(&json!("input"));
            if asks_roots && !crate::rounds::declares(params, "roots") {
                return mrtr::missing_capability("roots");
            }
            // A 2025-11-25 `task` member asks for a task the way that revision did.
            let legacy_hint = params.get("task").is_some_and(Value::is_object)
                && self.quirks.waives(Waiver::LegacyTaskHint);
            if declared || legacy_hint || self.quirks.waives(Waiver::UndeclaredTask) {
                return Ok(self.ext_tasks.create(
                    &self.quirks,
                    outcome,
                    asks_roots,
                    fixtures::task_work(&args),
                ));
            }
            if asks_roots {
                return Err(crate::tasks::missing_extension(
                    "asking for input during a task",
                ));
            }
            if name == "mcpcheck_task_required" {
                return Err(crate::tasks::missing_extension(name));
            }
            // Otherwise the work is done at once.
            return outcome;
        }
        if name == "test_missing_capability" && self.official_fixtures && self.stateless() {
            // The official fixture needs sampling (the suite asks for it by that name).
            let declared = crate::rounds::declares(params, "sampling");
            // With the quirk, a capability once declared is remembered, as a session would.
            let remembered = self.quirks.has(Quirk::StatelessCapabilityCarryover)
                && self.capability_seen.fetch_or(declared, Ordering::Relaxed);
            if declared || remembered {
                return Ok(json!({"content": [{"type": "text", "text": "sampling is available"}]}));
            }
            return Err((
                -32021,
                "Missing required client capability: sampling".into(),
                Some(json!({"requiredCapabilities": {"sampling": {}}})),
            ));
        }
        if name == fixtures::ROOTS_TOOL && self.stateless() {
            return mrtr::list_roots(params, &self.quirks);
        }
        if name == mrtr::MULTI_ROUND_TOOL && self.official_fixtures && self.stateless() {
            return mrtr::multi_round(params);
        }
        if self.official_fixtures && self.stateless() {
            if let Some(outcome) = mrtr::official_tool(name, params) {
                return outcome;
            }
        }
        // The handshake era sets the level per session (logging/setLevel); 2026-07-28 per
        // request, in `_meta` (no level: no log messages at all).
        let level = if self.stateless() && !self.serves("logging") {
            // A server without the logging capability never logs.
            None
        } else if self.stateless() {
            params
                .pointer("/_meta/io.modelcontextprotocol~1logLevel")
                .and_then(Value::as_str)
                .and_then(|l| LOG_LEVELS.iter().position(|x| *x == l))
                .or_else(|| self.quirks.waives(Waiver::LevelInMeta).then_some(0))
        } else {
            session
                .log_level
                .lock()
                .expect("log level lock")
                .or_else(|| self.quirks.waives(Waiver::LevelSet).then_some(0))
        };
        if level.is_some_and(|l| l <= 1 || self.quirks.waives(Waiver::SessionLogLevel)) {
            let mut params =
                json!({"level": "info", "logger": "tools", "data": format!("calling {name}")});
            self.quirks.told("notifications/message", &mut params);
            let _ = sink.send(json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": params
            }));
        }
        let outcome = if !self.official_fixtures && name.starts_with("test_") {
            ToolOutcome::Unknown
        } else {
            fixtures::call_tool(name, &args, version)
        };
        match outcome {
            ToolOutcome::Unknown => Err((
                -32602,
                format!("Unknown tool: {name}"),
                Some(json!({"name": name})),
            )),
            ToolOutcome::Result(result) => Ok(result),
            ToolOutcome::Progress { mut points, total } => {
                self.quirks.reported(&mut points);
                if let Some(token) = params.pointer("/_meta/progressToken") {
                    for point in points {
                        let _ = sink.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": point, "total": total}}));
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
                Ok(json!({"content": [{"type": "text", "text": "Progress reported."}]}))
            }
            ToolOutcome::Sampling => {
                let declared = session.client_declares("sampling");
                if !declared || self.quirks.has(Quirk::SamplingFixtureSilent) {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "The client cannot sample."}], "isError": !self.quirks.has(Quirk::SamplingFixtureSilent)}),
                    );
                }
                let answer = self
                    .ask_client(session, sink, version, "sampling/createMessage", json!({
                        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello in one word."}}],
                        "maxTokens": 20
                    }))
                    .await;
                let text = answer
                    .as_ref()
                    .and_then(|a| a.pointer("/result/content/text"))
                    .and_then(Value::as_str)
                    .unwrap_or("(no answer)");
                Ok(json!({"content": [{"type": "text", "text": format!("LLM response: {text}")}]}))
            }
            ToolOutcome::Elicitation { message, schema } => {
                let declared = session.client_declares("elicitation");
                if !declared {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "The client cannot elicit."}], "isError": true}),
                    );
                }
                if self.quirks.has(Quirk::ElicitationFixtureSilent) {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "User response: none asked"}]}),
                    );
                }
                let params = json!({"message": message, "requestedSchema": schema});
                let Some(answer) = self
                    .ask_client(session, sink, version, "elicitation/create", params)
                    .await
                else {
                    return Ok(
                        json!({"content": [{"type": "text", "text": "The client did not answer elicitation/create."}], "isError": true}),
                    );
                };
                let action = answer
                    .pointer("/result/action")
                    .and_then(Value::as_str)
                    .unwrap_or("none");
                let content = answer
                    .pointer("/result/content")
                    .cloned()
                    .unwrap_or_default();
                Ok(
                    json!({"content": [{"type": "text", "text": format!("User response: action={action}, content={content}")}]}),
                )
            }
            ToolOutcome::Logs(lines) => {
                // Three log messages a little apart, each at `info`, as the session's level
                // allows (the handshake era's official logging fixture).
                for line in lines {
                    if level.is_some_and(|l| l <= 1) {
                        let mut params = json!({"level": "info", "logger": "test_tool_with_logging", "data": line});
                        self.quirks.told("notifications/message", &mut params);
                        let _ = sink.send(json!({
                            "jsonrpc": "2.0",
                            "method": "notifications/message",
                            "params": params
                        }));
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Ok(json!({"content": [{"type": "text", "text": "Logging completed."}]}))
            }
            ToolOutcome::ListChanged(method) => {
                let told = self.announce(method);
                Ok(
                    json!({"content": [{"type": "text", "text": format!("Sent {method} to {told} subscription(s).")}]}),
                )
            }
            ToolOutcome::Reconnection => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(
                    json!({"content": [{"type": "text", "text": "Reconnection test completed: the result outlived its stream."}]}),
                )
            }
            ToolOutcome::Slow { steps, delay_ms } => {
                let token = params.pointer("/_meta/progressToken").cloned();
                let mut reported: Vec<u64> = (1..=steps).collect();
                self.quirks.reported(&mut reported);
                for (step, shown) in (1..=steps).zip(reported) {
                    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                    if let Some(token) = &token {
                        let mut progress =
                            json!({"progressToken": token, "progress": shown, "total": steps});
                        if fixtures::at_least(version, "2025-03-26") {
                            progress["message"] = json!(format!("step {step} of {steps}"));
                        }
                        let _ = sink.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}));
                    }
                }
                Ok(
                    json!({"content": [{"type": "text", "text": format!("done after {steps} steps")}]}),
                )
            }
        }
    }
}
