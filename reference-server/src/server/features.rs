//! The feature methods both eras share: tools, resources, prompts and completion (listing,
//! reading, getting, completing), and the list pages they are served in.

use serde_json::{json, Value};

use super::{capability_of, official, Server, Session};
use crate::fixtures::{self, PromptError};
use crate::mrtr;
use crate::outcome::{list_page, Outcome, Sink};
use crate::quirks::{Quirk, Waiver};

impl Server {
    /// The feature methods both eras share (tools, resources, prompts, completion); `None` for
    /// any other method. With an empty `version` nothing is run: the caller only asks whether
    /// the method is one of them.
    ///
    /// Long by design: one arm per feature method, each short.
    pub(super) async fn feature(
        &self,
        session: &Session,
        version: &str,
        method: &str,
        params: &Value,
        sink: &Sink,
    ) -> Option<Outcome> {
        if capability_of(method).is_some_and(|c| !self.serves(c)) {
            return None;
        }
        if let Some(skills) = self.skills.as_ref().filter(|_| {
            matches!(
                method,
                "skills/list" | "skills/get" | "resources/directory/read"
            )
        }) {
            if version.is_empty() {
                return Some(Ok(Value::Null));
            }
            return Some(skills.answer(method, params));
        }
        let known = matches!(
            method,
            "tools/list"
                | "tools/call"
                | "resources/list"
                | "resources/templates/list"
                | "resources/read"
                | "prompts/list"
                | "prompts/get"
                | "completion/complete"
        );
        if !known || version.is_empty() {
            return known.then(|| Ok(Value::Null));
        }
        if self.empty_lists && params.get("cursor").is_none() {
            let field = match method {
                "tools/list" => Some("tools"),
                "resources/list" => Some("resources"),
                "resources/templates/list" => Some("resourceTemplates"),
                "prompts/list" => Some("prompts"),
                _ => None,
            };
            if let Some(field) = field {
                let mut empty = serde_json::Map::new();
                empty.insert(field.to_string(), Value::Array(Vec::new()));
                return Some(Ok(Value::Object(empty)));
            }
        }
        Some(match method {
            "tools/list" => {
                self.ask_roots(session, sink);
                let mut tools = fixtures::tools(version);
                tools.retain(|t| self.official_fixtures || !official(t));
                // The tasks extension's official fixtures, only where the extension is served.
                if !self.serves("tasks") {
                    tools.retain(|t| {
                        !t["name"]
                            .as_str()
                            .is_some_and(|n| fixtures::TASK_TOOLS.contains(&n))
                    });
                }
                self.quirks.listing("tools", &mut tools);
                let ignored = json!({});
                let params = if self.quirks.waives(Waiver::Cursor) {
                    &ignored
                } else {
                    params
                };
                list_page(tools, params, "tools")
            }
            "tools/call" => self.call_tool(version, session, params, sink).await,
            "resources/list" => {
                let mut resources = fixtures::resources();
                resources.retain(|r| self.official_fixtures || !official(r));
                if self.quirks.has(Quirk::StatelessResourcesPerConnection)
                    && session.first_method.get().map(String::as_str) == Some("server/discover")
                {
                    // A connection that began with server/discover is listed one resource fewer.
                    resources.remove(0);
                }
                if let Some(skills) = &self.skills {
                    resources.extend(skills.listed());
                }
                if self.stateless() {
                    resources.push(json!({"uri": mrtr::ROOTS_RESOURCE, "name": "roots", "mimeType": "text/plain", "description": "How many roots the client has (asks for them first)."}));
                }
                self.quirks.listing("resources", &mut resources);
                list_page(resources, params, "resources")
            }
            "resources/templates/list" => {
                let mut templates = fixtures::resource_templates();
                templates.retain(|t| self.official_fixtures || !official(t));
                self.quirks.listing("resourceTemplates", &mut templates);
                list_page(templates, params, "resourceTemplates")
            }
            "resources/read" => self.read_resource(params),
            "prompts/list" => {
                let mut prompts = fixtures::prompts();
                prompts.retain(|p| self.official_fixtures || !official(p));
                if self.stateless() && self.official_fixtures {
                    prompts.push(json!({"name": mrtr::INPUT_PROMPT, "description": "The official suite's prompt that asks for context first."}));
                }
                self.quirks.listing("prompts", &mut prompts);
                list_page(prompts, params, "prompts")
            }
            "prompts/get" | "completion/complete"
                if !self.official_fixtures
                    && [params.get("name"), params.pointer("/ref/name")]
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .any(|n| n.starts_with("test_")) =>
            {
                Err((-32602, "Invalid params: unknown prompt".into(), None))
            }
            "prompts/get"
                if params.get("name") == Some(&json!(mrtr::INPUT_PROMPT))
                    && self.official_fixtures
                    && self.stateless() =>
            {
                mrtr::prompt(params, &self.quirks)
            }
            "prompts/get" => get_prompt(params),
            _ => complete(params),
        })
    }

    pub(super) fn read_resource(&self, params: &Value) -> Outcome {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err((-32602, "Invalid params: uri must be a string".into(), None));
        };
        if let Some(read) = self.skills.as_ref().and_then(|s| s.read(uri)) {
            return Ok(read);
        }
        if uri == mrtr::ROOTS_RESOURCE && self.stateless() {
            return mrtr::roots_resource(params, &self.quirks);
        }
        let found = if !self.official_fixtures && uri.starts_with("test://") {
            None
        } else {
            fixtures::read_resource(uri)
        };
        match found {
            Some(result) => Ok(result),
            None => Err((
                -32602,
                "Resource not found".into(),
                Some(json!({"uri": uri})),
            )),
        }
    }
}

pub(super) fn get_prompt(params: &Value) -> Outcome {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err((-32602, "Invalid params: name must be a string".into(), None));
    };
    let args = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    fixtures::get_prompt(name, &args).map_err(|e| match e {
        PromptError::Unknown => (-32602, format!("Unknown prompt: {name}"), None),
        PromptError::MissingArgument(arg) => {
            (-32602, format!("Missing required argument: {arg}"), None)
        }
    })
}

pub(super) fn complete(params: &Value) -> Outcome {
    let (Some(reference), Some(argument)) = (params.get("ref"), params.get("argument")) else {
        return Err((
            -32602,
            "Invalid params: ref and argument are required".into(),
            None,
        ));
    };
    let name = argument
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let value = argument
        .get("value")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match fixtures::complete(reference, name, value) {
        Some(values) => {
            Ok(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
        }
        None => Err((-32602, "Invalid params: unknown reference".into(), None)),
    }
}
