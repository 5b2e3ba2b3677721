//! mcpcheck's own description of what each result looks like at each protocol version: a JSON
//! Schema (2020-12) per method and version, written from the specification's facts (required
//! members, member types, and when each content type and field arrived). The built-in check
//! `wire-result-schema` validates every result the server sends against the one for the method
//! it answers, at the version the session negotiated, so that a result with the right envelope
//! but the wrong shape does not pass unseen. The test suite cross-checks these schemas against
//! the official schema files on a corpus of valid and broken messages.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

/// The result types mcpcheck knows, by the method whose result they are.
pub const METHODS: &[(&str, &str)] = &[
    ("initialize", "InitializeResult"),
    ("ping", "EmptyResult"),
    ("server/discover", "DiscoverResult"),
    ("tools/list", "ListToolsResult"),
    ("tools/call", "CallToolResult"),
    ("resources/list", "ListResourcesResult"),
    ("resources/read", "ReadResourceResult"),
    ("resources/templates/list", "ListResourceTemplatesResult"),
    ("prompts/list", "ListPromptsResult"),
    ("prompts/get", "GetPromptResult"),
    ("completion/complete", "CompleteResult"),
    ("tasks/get", "GetTaskResult"),
    ("tasks/list", "ListTasksResult"),
    ("tasks/cancel", "CancelTaskResult"),
    (TASK_AUGMENTED, "CreateTaskResult"),
];

/// What mcpcheck calls the answer to a task-augmented request (2025-11-25): a
/// `CreateTaskResult`, whatever the request's method. `tasks/result` is judged as a result of
/// the request that made the task.
pub const TASK_AUGMENTED: &str = "(task-augmented request)";

/// What mcpcheck calls a result with `resultType: "task"` (2026-07-28, the tasks extension): a
/// `CreateTaskResult` in lieu of the request's own result, whatever the request's method.
pub const TASK_HANDLE: &str = "(task handle)";

/// The methods the tasks extension adds to 2026-07-28, and what a result of each is called.
pub const EXTENSION_METHODS: &[(&str, &str)] = &[
    ("tasks/get", "GetTaskResult"),
    ("tasks/update", "UpdateTaskResult"),
    ("tasks/cancel", "CancelTaskResult"),
    (TASK_HANDLE, "CreateTaskResult"),
];

/// The one version whose core has tasks (experimental; an extension from 2026-07-28 on).
pub const TASKS_VERSION: &str = "2025-11-25";

/// The notifications a server sends that mcpcheck knows, with their type's name in the schema.
pub const NOTIFICATIONS: &[(&str, &str)] = &[
    ("notifications/message", "LoggingMessageNotification"),
    ("notifications/progress", "ProgressNotification"),
    ("notifications/cancelled", "CancelledNotification"),
    (
        "notifications/resources/updated",
        "ResourceUpdatedNotification",
    ),
    (
        "notifications/resources/list_changed",
        "ResourceListChangedNotification",
    ),
    (
        "notifications/tools/list_changed",
        "ToolListChangedNotification",
    ),
    (
        "notifications/prompts/list_changed",
        "PromptListChangedNotification",
    ),
];

/// The log levels of `notifications/message`, as the schema lists them.
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The name of the result type of a method, as the specification's schema calls it.
pub fn result_type(method: &str) -> Option<&'static str> {
    METHODS.iter().find(|(m, _)| *m == method).map(|(_, t)| *t)
}

/// Whether revision `version` is `first` or a later one.
fn since(version: &str, first: &str) -> bool {
    crate::record::version::at_least(version, first)
}

fn string() -> Value {
    json!({"type": "string"})
}

fn object() -> Value {
    json!({"type": "object"})
}

/// An object with these required members (and any others).
fn shape(required: &[&str], properties: Value) -> Value {
    json!({"type": "object", "required": required, "properties": properties})
}

/// The annotations of content blocks, resources and templates: who the data is for, how
/// important it is (0 to 1), and from 2025-06-18 when it last changed.
fn annotations(version: &str) -> Value {
    let mut properties = json!({
        "audience": {"type": "array", "items": {"enum": ["user", "assistant"]}},
        "priority": {"type": "number", "minimum": 0, "maximum": 1},
    });
    if since(version, "2025-06-18") {
        properties["lastModified"] = string();
    }
    json!({"type": "object", "properties": properties})
}

/// The hints a tool may carry (2025-03-26 on): a title and four booleans.
fn tool_annotations() -> Value {
    let hint = json!({"type": "boolean"});
    json!({"type": "object", "properties": {
        "title": string(),
        "readOnlyHint": hint,
        "destructiveHint": hint,
        "idempotentHint": hint,
        "openWorldHint": hint,
    }})
}

fn content_block(version: &str) -> Value {
    let annotations = annotations(version);
    let mut kinds = vec![
        shape(
            &["type", "text"],
            json!({"type": {"const": "text"}, "text": string(), "annotations": annotations}),
        ),
        shape(
            &["type", "data", "mimeType"],
            json!({"type": {"const": "image"}, "data": string(), "mimeType": string(), "annotations": annotations}),
        ),
        shape(
            &["type", "resource"],
            json!({"type": {"const": "resource"}, "resource": resource_contents(), "annotations": annotations}),
        ),
    ];
    if since(version, "2025-03-26") {
        kinds.push(shape(
            &["type", "data", "mimeType"],
            json!({"type": {"const": "audio"}, "data": string(), "mimeType": string(), "annotations": annotations}),
        ));
    }
    if since(version, "2025-06-18") {
        kinds.push(shape(
            &["type", "uri", "name"],
            json!({"type": {"const": "resource_link"}, "uri": string(), "name": string(), "mimeType": string(), "size": {"type": "integer"}, "annotations": annotations}),
        ));
    }
    json!({"anyOf": kinds})
}

fn resource_contents() -> Value {
    json!({"anyOf": [
        shape(&["uri", "text"], json!({"uri": string(), "text": string(), "mimeType": string()})),
        shape(&["uri", "blob"], json!({"uri": string(), "blob": string(), "mimeType": string()})),
    ]})
}

fn tool(version: &str) -> Value {
    let mut properties = json!({
        "name": string(),
        "description": string(),
        "inputSchema": shape(&["type"], json!({"type": {"const": "object"}, "properties": object()})),
    });
    if since(version, "2025-03-26") {
        properties["annotations"] = tool_annotations();
    }
    if version == TASKS_VERSION {
        properties["execution"] = json!({"type": "object", "properties": {
            "taskSupport": {"enum": ["forbidden", "optional", "required"]},
        }});
    }
    if since(version, "2025-06-18") {
        properties["title"] = string();
        // An object schema until 2025-11-25; any JSON Schema from 2026-07-28 on.
        properties["outputSchema"] = if since(version, "2026-07-28") {
            object()
        } else {
            shape(
                &["type"],
                json!({"type": {"const": "object"}, "properties": object()}),
            )
        };
    }
    shape(&["name", "inputSchema"], properties)
}

/// A task's shape: 2025-11-25 names its lifetime and polling hint `ttl` and `pollInterval`, the
/// 2026-07-28 tasks extension `ttlMs` and `pollIntervalMs`; `required` adds to the members a
/// task always has.
fn task_shape(ttl: &str, poll: &str, required: &[&str]) -> Value {
    let mut fields = vec!["taskId", "status", "createdAt", "lastUpdatedAt", ttl];
    fields.extend(required);
    let mut properties = json!({
        "taskId": string(),
        "status": {"enum": ["working", "input_required", "completed", "failed", "cancelled"]},
        "statusMessage": string(),
        "createdAt": string(),
        "lastUpdatedAt": string(),
    });
    properties[ttl] = json!({"type": ["integer", "null"]});
    properties[poll] = json!({"type": "integer"});
    shape(&fields, properties)
}

/// The schema a result of `method` must satisfy at `version`, if mcpcheck knows the method.
///
/// Long by design: a table, one arm per method, each the result's shape at that version.
pub fn result_schema(method: &str, version: &str) -> Option<Value> {
    let stateless = since(version, "2026-07-28");
    let cursor = json!({"nextCursor": string()});
    let list = |member: &str, item: Value| {
        let mut properties = cursor.clone();
        properties[member] = json!({"type": "array", "items": item});
        let mut required = vec![member];
        if stateless {
            required.extend(["ttlMs", "cacheScope"]);
            properties["ttlMs"] = json!({"type": "integer", "minimum": 0});
            properties["cacheScope"] = json!({"enum": ["public", "private"]});
        }
        shape(&required, properties)
    };
    let task = || task_shape("ttl", "pollInterval", &[]);
    let tasks = version == TASKS_VERSION;
    let mut schema = match method {
        "tasks/get" | "tasks/cancel" if tasks => task(),
        "tasks/list" if tasks => list("tasks", task()),
        TASK_AUGMENTED if tasks => shape(&["task"], json!({"task": task()})),
        "initialize" if !stateless => shape(
            &["protocolVersion", "capabilities", "serverInfo"],
            json!({
                "protocolVersion": string(),
                "capabilities": object(),
                "serverInfo": shape(&["name", "version"], json!({"name": string(), "version": string()})),
                "instructions": string(),
            }),
        ),
        "ping" if !stateless => object(),
        "server/discover" if stateless => shape(
            &["supportedVersions", "capabilities", "ttlMs", "cacheScope"],
            json!({
                "supportedVersions": {"type": "array", "items": string()},
                "capabilities": object(),
                "ttlMs": {"type": "integer", "minimum": 0},
                "cacheScope": {"enum": ["public", "private"]},
                "instructions": string(),
            }),
        ),
        "tools/list" => list("tools", tool(version)),
        "tools/call" => {
            let mut properties = json!({
                "content": {"type": "array", "items": content_block(version)},
                "isError": {"type": "boolean"},
            });
            if since(version, "2025-06-18") && !stateless {
                properties["structuredContent"] = object();
            }
            shape(&["content"], properties)
        }
        "resources/list" => list(
            "resources",
            shape(
                &["uri", "name"],
                json!({"uri": string(), "name": string(), "mimeType": string(), "size": {"type": "integer"}, "annotations": annotations(version)}),
            ),
        ),
        "resources/templates/list" => list(
            "resourceTemplates",
            shape(
                &["uriTemplate", "name"],
                json!({"uriTemplate": string(), "name": string(), "mimeType": string(), "annotations": annotations(version)}),
            ),
        ),
        "resources/read" => {
            let mut schema = list("contents", resource_contents());
            schema["properties"]
                .as_object_mut()
                .expect("properties")
                .remove("nextCursor");
            schema
        }
        "prompts/list" => list(
            "prompts",
            shape(
                &["name"],
                json!({
                    "name": string(),
                    "description": string(),
                    "arguments": {"type": "array", "items": shape(&["name"], json!({"name": string(), "description": string(), "required": {"type": "boolean"}}))},
                }),
            ),
        ),
        "prompts/get" => shape(
            &["messages"],
            json!({
                "description": string(),
                "messages": {"type": "array", "items": shape(&["role", "content"], json!({
                    "role": {"enum": ["user", "assistant"]},
                    "content": content_block(version),
                }))},
            }),
        ),
        "completion/complete" => shape(
            &["completion"],
            json!({"completion": shape(&["values"], json!({
                "values": {"type": "array", "items": string(), "maxItems": 100},
                "total": {"type": "integer"},
                "hasMore": {"type": "boolean"},
            }))}),
        ),
        _ => return None,
    };
    schema["properties"]["_meta"] = object();
    if stateless {
        schema["properties"]["resultType"] = string();
        let required = schema
            .as_object_mut()
            .expect("an object schema")
            .entry("required")
            .or_insert_with(|| json!([]));
        required
            .as_array_mut()
            .expect("required is an array")
            .push(json!("resultType"));
    }
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    Some(schema)
}

/// The schema a result of `method` must satisfy at `version` under the tasks extension
/// (2026-07-28, `io.modelcontextprotocol/tasks`), written from the extension's specification:
/// a task handle is a flat `Result & Task` with `resultType` "task"; `tasks/get` is a
/// `DetailedTask` (a completed task inlines its `result`, a failed one its `error`, one that
/// needs input its `inputRequests`); `tasks/update` and `tasks/cancel` are empty
/// acknowledgements. The official core schema does not hold these types.
pub fn extension_result_schema(method: &str, version: &str) -> Option<Value> {
    if !since(version, "2026-07-28") {
        return None;
    }
    let task = |required: &[&str]| task_shape("ttlMs", "pollIntervalMs", required);
    let mut schema = match method {
        TASK_HANDLE => {
            let mut schema = task(&["resultType"]);
            schema["properties"]["resultType"] = json!({"const": "task"});
            schema
        }
        "tasks/get" => {
            let mut schema = task(&["resultType"]);
            schema["properties"]["resultType"] = json!({"const": "complete"});
            schema["properties"]["result"] = object();
            schema["properties"]["error"] = shape(
                &["code", "message"],
                json!({"code": {"type": "integer"}, "message": string()}),
            );
            schema["properties"]["inputRequests"] = object();
            let needs = |status: &str, member: &str| json!({"if": {"properties": {"status": {"const": status}}}, "then": {"required": [member]}});
            schema["allOf"] = json!([
                needs("completed", "result"),
                needs("failed", "error"),
                needs("input_required", "inputRequests"),
            ]);
            schema
        }
        "tasks/update" | "tasks/cancel" => shape(
            &["resultType"],
            json!({"resultType": {"const": "complete"}}),
        ),
        _ => return None,
    };
    schema["properties"]["_meta"] = object();
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    Some(schema)
}

/// Whether mcpcheck judges results of `method` at `version` (core or the tasks extension).
pub fn judged(method: &str, version: &str) -> bool {
    // The validator is compiled once per method and version, and a judged result is validated
    // next: asking the cache builds no schema twice.
    !method.starts_with("notifications/") && validator(method, version).is_some()
}

/// The schema a whole notification message of `method` must satisfy at `version` (its method
/// and params), if mcpcheck knows the notification.
pub fn notification_schema(method: &str, version: &str) -> Option<Value> {
    let token = json!({"type": ["string", "integer"]});
    let mut params = match method {
        "notifications/message" => shape(
            &["level", "data"],
            json!({"level": {"enum": LOG_LEVELS}, "logger": string(), "data": true}),
        ),
        "notifications/progress" => {
            let mut properties = json!({
                "progressToken": token,
                "progress": {"type": "number"},
                "total": {"type": "number"},
            });
            if since(version, "2025-03-26") {
                properties["message"] = string();
            }
            shape(&["progressToken", "progress"], properties)
        }
        // 2025-11-25 made requestId optional (a task is cancelled by tasks/cancel instead).
        "notifications/cancelled" => shape(
            if version == "2025-11-25" {
                &[]
            } else {
                &["requestId"]
            },
            json!({"requestId": token, "reason": string()}),
        ),
        "notifications/resources/updated" => shape(&["uri"], json!({"uri": string()})),
        "notifications/resources/list_changed"
        | "notifications/tools/list_changed"
        | "notifications/prompts/list_changed" => object(),
        _ => return None,
    };
    params["properties"]["_meta"] = object();
    let list_changed = method.ends_with("/list_changed");
    let mut schema = shape(
        if list_changed {
            &["method"]
        } else {
            &["method", "params"]
        },
        json!({"method": {"const": method}, "params": params}),
    );
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    Some(schema)
}

type Cache = Mutex<HashMap<(String, String), Option<Arc<jsonschema::Validator>>>>;

fn validator(method: &str, version: &str) -> Option<Arc<jsonschema::Validator>> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (method.to_string(), version.to_string());
    if let Some(found) = cache.lock().expect("cache lock").get(&key) {
        return found.clone();
    }
    let schema = if method.starts_with("notifications/") {
        notification_schema(method, version)
    } else {
        result_schema(method, version).or_else(|| extension_result_schema(method, version))
    };
    let compiled = schema.map(|schema| {
        Arc::new(jsonschema::validator_for(&schema).expect("mcpcheck's own schemas compile"))
    });
    cache
        .lock()
        .expect("cache lock")
        .insert(key, compiled.clone());
    compiled
}

/// What is wrong with a result of `method` at `version`: `None` when it conforms or mcpcheck has
/// no schema for the method; otherwise the first problems, each with its JSON pointer.
pub fn check_result(method: &str, version: &str, result: &Value) -> Option<String> {
    // A 2026-07-28 result may ask for more input instead (MRTR); that shape is not judged here.
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return None;
    }
    // `resultType: "task"` belongs to the CreateTaskResult of the tasks extension alone.
    if method != TASK_HANDLE && result.get("resultType").and_then(Value::as_str) == Some("task") {
        return Some(format!(
            "/resultType: \"task\" on a result of {method}; only a CreateTaskResult carries it"
        ));
    }
    let validator = validator(method, version)?;
    problems(&validator, result)
}

/// What is wrong with a notification message the server sent at `version`: `None` when it
/// conforms or mcpcheck does not know its method.
pub fn check_notification(version: &str, message: &Value) -> Option<String> {
    let method = message.get("method").and_then(Value::as_str)?;
    NOTIFICATIONS.iter().find(|(m, _)| *m == method)?;
    let validator = validator(method, version)?;
    problems(&validator, message)
}

/// The first problems a validator finds, each with its JSON pointer; `None` when there are none.
fn problems(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    let found: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("{} at `{}`", e, if at.is_empty() { "/" } else { &at })
        })
        .collect();
    (!found.is_empty()).then(|| found.join("; "))
}

/// Compiles a tool's inputSchema or outputSchema by its dialect: the one its `$schema` names,
/// else JSON Schema 2020-12 from 2025-11-25 on and draft-07 before (the versions' defaults).
pub fn compile_tool_schema(schema: &Value, version: &str) -> Result<(), String> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err("it is not an object".into());
    }
    let mut options = jsonschema::options().should_validate_formats(false);
    if schema.get("$schema").is_none() {
        options = options.with_draft(if since(version, "2025-11-25") {
            jsonschema::Draft::Draft202012
        } else {
            jsonschema::Draft::Draft7
        });
    }
    options.build(schema).map(|_| ()).map_err(|e| e.to_string())
}

/// The official schema files a user pointed mcpcheck at (`--official-schemas DIR`, holding
/// `<version>.json` as published in the specification repository): results are also validated
/// against the official definition of their type.
#[derive(Debug, Default)]
pub struct OfficialSchemas {
    docs: HashMap<String, Value>,
    compiled: Cache,
}

impl OfficialSchemas {
    /// Loads every `<version>.json` of a folder; an unreadable or unparsable file is an error.
    pub fn load(dir: &std::path::Path) -> Result<OfficialSchemas, String> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("--official-schemas {}: {e}", dir.display()))?;
        let mut docs = HashMap::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(version) = path
                .file_stem()
                .and_then(|s| s.to_str())
                .filter(|s| crate::record::version::known(s))
            else {
                continue;
            };
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let doc: Value = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
            docs.insert(version.to_string(), doc);
        }
        if docs.is_empty() {
            return Err(format!(
                "--official-schemas {}: no <version>.json file of a known version (e.g. 2025-11-25.json)",
                dir.display()
            ));
        }
        Ok(OfficialSchemas {
            docs,
            compiled: Mutex::new(HashMap::new()),
        })
    }

    /// The versions loaded.
    pub fn versions(&self) -> Vec<&str> {
        let mut versions: Vec<&str> = self.docs.keys().map(String::as_str).collect();
        versions.sort();
        versions
    }

    fn validator(&self, version: &str, definition: &str) -> Option<Arc<jsonschema::Validator>> {
        let key = (version.to_string(), definition.to_string());
        if let Some(found) = self.compiled.lock().expect("cache lock").get(&key) {
            return found.clone();
        }
        let compiled = self.docs.get(version).and_then(|doc| {
            let defs = if doc.get("$defs").is_some() {
                "$defs"
            } else {
                "definitions"
            };
            doc.pointer(&format!("/{defs}/{definition}"))?;
            let mut rooted = doc.clone();
            rooted["$ref"] = json!(format!("#/{defs}/{definition}"));
            // `format: byte` and friends are annotations here, as in the published files' intent.
            jsonschema::options()
                .should_validate_formats(false)
                .build(&rooted)
                .ok()
                .map(Arc::new)
        });
        self.compiled
            .lock()
            .expect("cache lock")
            .insert(key, compiled.clone());
        compiled
    }

    /// What the official schema of `version` finds wrong with a result of `method`: `None` when
    /// it conforms, or when that version's file or the method's type is not there.
    pub fn check_result(&self, method: &str, version: &str, result: &Value) -> Option<String> {
        // Neither MRTR's request for input nor an extension's task handle is a core result.
        if matches!(
            result.get("resultType").and_then(Value::as_str),
            Some("input_required" | "task")
        ) || method == TASK_HANDLE
        {
            return None;
        }
        let validator = self.validator(version, result_type(method)?)?;
        problems(&validator, result)
    }

    /// What the official schema of `version` finds wrong with a notification message.
    pub fn check_notification(&self, version: &str, message: &Value) -> Option<String> {
        let method = message.get("method").and_then(Value::as_str)?;
        let (_, definition) = NOTIFICATIONS.iter().find(|(m, _)| *m == method)?;
        let validator = self.validator(version, definition)?;
        problems(&validator, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_a_schema_in_its_era() {
        for (method, _) in METHODS {
            let handshake = result_schema(method, "2025-11-25");
            let stateless = result_schema(method, "2026-07-28");
            match *method {
                "initialize" | "ping" => assert!(handshake.is_some() && stateless.is_none()),
                "tasks/get" | "tasks/list" | "tasks/cancel" | TASK_AUGMENTED => {
                    assert!(handshake.is_some() && stateless.is_none());
                    assert!(result_schema(method, "2025-06-18").is_none());
                }
                "server/discover" => assert!(handshake.is_none() && stateless.is_some()),
                _ => assert!(handshake.is_some() && stateless.is_some()),
            }
        }
    }

    #[test]
    fn the_tasks_extension_has_its_own_result_shapes() {
        assert!(extension_result_schema("tasks/get", "2025-11-25").is_none());
        for (method, _) in EXTENSION_METHODS {
            assert!(judged(method, "2026-07-28"), "{method}");
        }
        let handle = json!({"resultType": "task", "taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": null});
        assert_eq!(check_result(TASK_HANDLE, "2026-07-28", &handle), None);
        let nested = json!({"resultType": "task", "task": handle});
        assert!(check_result(TASK_HANDLE, "2026-07-28", &nested).is_some());
        // A handle where the call's own result belongs.
        let problem = check_result("prompts/get", "2026-07-28", &handle).unwrap();
        assert!(problem.contains("only a CreateTaskResult"), "{problem}");
        let mut done = handle.clone();
        done["resultType"] = json!("complete");
        done["status"] = json!("completed");
        let problem = check_result("tasks/get", "2026-07-28", &done).unwrap();
        assert!(problem.contains("result"), "{problem}");
        done["result"] = json!({"content": []});
        assert_eq!(check_result("tasks/get", "2026-07-28", &done), None);
        let ack = json!({"resultType": "complete"});
        assert_eq!(check_result("tasks/cancel", "2026-07-28", &ack), None);
        assert!(check_result("tasks/update", "2026-07-28", &json!({})).is_some());
    }

    #[test]
    fn content_types_follow_their_versions() {
        let audio =
            json!({"content": [{"type": "audio", "data": "AA==", "mimeType": "audio/wav"}]});
        assert!(check_result("tools/call", "2024-11-05", &audio).is_some());
        assert!(check_result("tools/call", "2025-03-26", &audio).is_none());
        let link = json!({"content": [{"type": "resource_link", "uri": "x:y", "name": "y"}]});
        assert!(check_result("tools/call", "2025-03-26", &link).is_some());
        assert!(check_result("tools/call", "2025-06-18", &link).is_none());
    }

    #[test]
    fn stateless_results_need_result_type_and_caching_hints() {
        let list = json!({"tools": []});
        assert!(check_result("tools/list", "2025-11-25", &list).is_none());
        let problem = check_result("tools/list", "2026-07-28", &list).unwrap();
        assert!(problem.contains("resultType"), "{problem}");
        let full =
            json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"});
        assert!(check_result("tools/list", "2026-07-28", &full).is_none());
    }

    #[test]
    fn tool_schemas_compile_by_their_dialect() {
        let good = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        assert!(compile_tool_schema(&good, "2025-11-25").is_ok());
        assert!(compile_tool_schema(&good, "2024-11-05").is_ok());
        let bad = json!({"type": "object", "properties": {"x": {"type": "strin"}}});
        assert!(compile_tool_schema(&bad, "2025-11-25").is_err());
        assert!(compile_tool_schema(&bad, "2024-11-05").is_err());
        assert!(compile_tool_schema(&json!("object"), "2025-11-25").is_err());
    }

    #[test]
    fn a_problem_names_where_it_is() {
        let result = json!({"tools": [{"name": "x", "inputSchema": {"type": "array"}}]});
        let problem = check_result("tools/list", "2025-11-25", &result).unwrap();
        assert!(problem.contains("/tools/0/inputSchema/type"), "{problem}");
    }
}
