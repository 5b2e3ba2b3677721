//! The two ways in: the 2026-07-28 stateless era (every request carries its version and
//! capabilities in `_meta`) and the handshake era's `initialize`.

use std::sync::atomic::Ordering;

use serde_json::{json, Value};

use super::{Server, Session, STATELESS_VERSION, SUPPORTED};
use crate::fixtures;
use crate::outcome::{Outcome, Sink, LOG_LEVELS};
use crate::quirks::{Era, Quirk, Waiver};

impl Server {
    /// With the quirk `ext-task-capability-remembered`: whether a request about this task id
    /// declared the tasks extension before (a request that declares it now is remembered).
    fn remembers_extension(&self, params: &Value) -> bool {
        if !self.quirks.has(Quirk::ExtTaskCapabilityRemembered) {
            return false;
        }
        let Some(task) = params.get("taskId").and_then(Value::as_str) else {
            return false;
        };
        let mut seen = self
            .ext_task_ids_declared
            .lock()
            .expect("declared task ids lock");
        if crate::tasks::declared(params) {
            if !seen.iter().any(|t| t == task) && seen.len() < 256 {
                seen.push(task.to_string());
            }
            return false;
        }
        seen.iter().any(|t| t == task)
    }

    /// The stateless era: every request carries its version and capabilities in `_meta`; there
    /// is no handshake, no ping and no setLevel; every result says `resultType`.
    ///
    /// Long by design: the 2026-07-28 request checks in the spec's order (`_meta` version and
    /// capabilities, removed methods, the method), then the dispatch and the result's caching hints.
    pub(super) async fn handle_stateless(
        &self,
        session: &Session,
        id: &Value,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Outcome {
        let meta = params.get("_meta");
        let version = meta
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str);
        if method == "initialize"
            && version.is_none()
            && !self.quirks.waives(Waiver::LegacyInitialize)
        {
            // A handshake-era client: tell it which versions this server speaks.
            return Err((
                -32022,
                format!("Unsupported protocol version: this server speaks {STATELESS_VERSION} only, without initialize"),
                Some(json!({"supported": [STATELESS_VERSION], "requested": params.get("protocolVersion").cloned().unwrap_or(Value::Null)})),
            ));
        }
        let capabilities = meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
        let version = match (version, capabilities) {
            (Some(version), Some(_)) => version,
            _ if self.quirks.waives(Waiver::Meta) => STATELESS_VERSION,
            _ if method == "server/discover" && self.quirks.waives(Waiver::DiscoverMeta) => {
                STATELESS_VERSION
            }
            _ => {
                return Err((
                    -32602,
                    "Invalid params: _meta must carry protocolVersion and clientCapabilities"
                        .into(),
                    None,
                ))
            }
        };
        if let Some(refusal) = self.quirks.refusal(method, params) {
            return refusal;
        }
        if let Some(level) = meta.and_then(|m| m.get("io.modelcontextprotocol/logLevel")) {
            let known = level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l));
            if !known && !self.quirks.waives(Waiver::LogLevel) {
                return Err((
                    -32602,
                    format!("Invalid params: unknown logLevel {level}"),
                    None,
                ));
            }
        }
        if version != STATELESS_VERSION {
            let data = json!({"supported": [STATELESS_VERSION], "requested": version});
            return Err((
                -32022,
                crate::outcome::UNSUPPORTED_VERSION.into(),
                Some(data),
            ));
        }
        let outcome = match method {
            "server/discover" => {
                let mut result = json!({
                    "supportedVersions": [STATELESS_VERSION],
                    "capabilities": self.declared(json!({"tools": {"listChanged": true}, "resources": {}, "prompts": {"listChanged": true}, "completions": {}, "logging": {}, "extensions": {}})),
                    "instructions": "A reference server for mcpcheck. Its tools are harmless.",
                    "ttlMs": 0,
                    "cacheScope": "public"
                });
                if self.serves("tasks") {
                    result["capabilities"]["extensions"][crate::tasks::EXTENSION] = json!({});
                }
                if self.skills.is_some() {
                    result["capabilities"]["extensions"][crate::skills::EXTENSION] =
                        crate::skills::Skills::capability();
                }
                if result["capabilities"]["extensions"]
                    .as_object()
                    .is_some_and(|e| e.is_empty())
                {
                    if let Some(capabilities) = result["capabilities"].as_object_mut() {
                        capabilities.remove("extensions");
                    }
                }
                Ok(result)
            }
            "subscriptions/listen" => self.listen(id, params, sink).await,
            "tasks/get" | "tasks/update" | "tasks/cancel" if self.serves("tasks") => {
                // Called first: a request that declares the extension is remembered by it.
                let remembered = self.remembers_extension(params);
                if crate::tasks::declared(params)
                    || self.quirks.waives(Waiver::TasksExtension)
                    || remembered
                {
                    self.ext_tasks.handle(&self.quirks, method, params)
                } else {
                    Err(crate::tasks::missing_extension(method))
                }
            }
            _ => match self.feature(session, version, method, params, sink).await {
                Some(outcome) => outcome,
                // initialize, ping, logging/setLevel and subscribe are gone in this era.
                None => self.unknown_method(method),
            },
        };
        // The quirks that change what a handler answered act here, as data, before this era's
        // members are added.
        let mut result = self
            .quirks
            .answer(Era::Stateless, method, params, outcome)?;
        if result.get("resultType").is_none() {
            result["resultType"] = json!("complete");
        }
        // Lists and reads are cacheable: they carry the caching hints (SEP-2549); a read that
        // asks for input first (MRTR) is not.
        let asks = result.get("resultType") == Some(&json!("input_required"));
        let cacheable = !asks
            && matches!(
                method,
                "tools/list"
                    | "resources/list"
                    | "resources/templates/list"
                    | "prompts/list"
                    | "resources/read"
                    | "skills/get"
                    | "skills/list"
            );
        if cacheable {
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("public");
        }
        let meta = result
            .as_object_mut()
            .expect("results are objects")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/serverInfo"] =
            json!({"name": "mcpcheck-reference-server", "version": env!("CARGO_PKG_VERSION")});
        // The quirks that change what this era added act here, as data.
        self.quirks.decorated(method, params, &mut result);
        Ok(result)
    }

    pub(super) fn initialize(&self, session: &Session, params: &Value, sink: &Sink) -> Outcome {
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err((
                -32602,
                "Invalid params: protocolVersion is required".into(),
                None,
            ));
        };
        let mut version = if SUPPORTED.contains(&requested) {
            requested.to_string()
        } else {
            SUPPORTED[0].to_string()
        };
        self.quirks.negotiated(requested, &SUPPORTED, &mut version);
        let mut capabilities = json!({
            "tools": {"listChanged": false},
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {"listChanged": false},
            "logging": {}
        });
        if fixtures::at_least(&version, "2025-03-26") {
            capabilities["completions"] = json!({});
        }
        if version == fixtures::TASKS_VERSION {
            capabilities["tasks"] =
                json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        }
        if version == fixtures::TASKS_VERSION && self.skills.is_some() {
            capabilities["extensions"] =
                json!({crate::skills::EXTENSION: crate::skills::Skills::capability()});
        }
        let result = json!({
            "protocolVersion": version,
            "capabilities": self.declared(capabilities),
            "serverInfo": {"name": "mcpcheck-reference-server", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "A reference server for mcpcheck. Its tools are harmless."
        });
        *session.version.lock().expect("version lock") = Some(version);
        session.client_roots.store(
            params.pointer("/capabilities/roots").is_some(),
            Ordering::Relaxed,
        );
        *session
            .client_capabilities
            .lock()
            .expect("client capabilities lock") =
            params.get("capabilities").cloned().unwrap_or_default();
        if self.quirks.has(Quirk::RequestsBeforeInitialized) {
            // Asks for the roots at once, before the client has sent `initialized`.
            self.ask_roots(session, sink);
        }
        Ok(result)
    }
}
