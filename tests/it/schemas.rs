//! mcpcheck's own result schemas (src/check/messages.rs) against the official schema files in
//! ../shared/spec/schema: on a corpus of valid results and of results broken one way at a time,
//! for every method and protocol version, both must give the same verdict.

use std::path::PathBuf;

use mcpcheck::check::messages::{
    check_notification, check_result, result_schema, result_type, METHODS, NOTIFICATIONS,
    TASK_AUGMENTED,
};
use serde_json::{json, Value};

const VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

fn official_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/schema");
    dir.is_dir().then_some(dir)
}

/// A validator for one definition of an official schema file.
fn official(dir: &std::path::Path, version: &str, definition: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(dir.join(format!("{version}.json"))).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let defs = if doc.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    doc["$ref"] = json!(format!("#/{defs}/{definition}"));
    jsonschema::options()
        .should_validate_formats(false)
        .build(&doc)
        .unwrap_or_else(|e| panic!("{version} {definition}: {e}"))
}

/// A valid result of `method` at `version`, with every kind of item the type allows.
fn valid(method: &str, version: &str) -> Value {
    let mut blocks = vec![
        json!({"type": "text", "text": "hello", "annotations": {"audience": ["user"], "priority": 0.5}}),
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
        json!({"type": "resource", "resource": {"uri": "ref://a", "mimeType": "text/plain", "text": "a"}}),
    ];
    if version >= "2025-03-26" {
        blocks.push(json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}));
    }
    if version >= "2025-06-18" {
        blocks.push(json!({"type": "resource_link", "uri": "ref://b", "name": "b"}));
    }
    let mut result = match method {
        "initialize" => json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "s", "version": "1"},
            "instructions": "hi"
        }),
        "ping" => json!({}),
        "server/discover" => json!({
            "supportedVersions": [version],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "public"
        }),
        "tools/list" => {
            let mut list = json!({"tools": [
                {"name": "a", "description": "d", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
                {"name": "b", "inputSchema": {"type": "object"}}
            ], "nextCursor": "c"});
            if version >= "2025-03-26" {
                list["tools"][0]["annotations"] =
                    json!({"title": "A", "readOnlyHint": true, "openWorldHint": false});
            }
            if version == "2025-11-25" {
                list["tools"][0]["execution"] = json!({"taskSupport": "optional"});
            }
            list
        }
        "tools/call" => json!({"content": blocks, "isError": false}),
        "resources/list" => {
            let mut list = json!({"resources": [{"uri": "ref://a", "name": "a", "mimeType": "text/plain", "annotations": {"audience": ["assistant", "user"], "priority": 1}}]});
            if version >= "2025-06-18" {
                list["resources"][0]["annotations"]["lastModified"] = json!("2025-01-12T15:00:58Z");
            }
            list
        }
        "resources/read" => json!({"contents": [
            {"uri": "ref://a", "mimeType": "text/plain", "text": "a"},
            {"uri": "ref://b", "mimeType": "image/png", "blob": "iVBORw0KGgo="}
        ]}),
        "resources/templates/list" => {
            json!({"resourceTemplates": [{"uriTemplate": "ref://items/{id}", "name": "item"}]})
        }
        "prompts/list" => json!({"prompts": [
            {"name": "p", "description": "d", "arguments": [{"name": "x", "required": true}]},
            {"name": "q"}
        ]}),
        "prompts/get" => json!({"messages": blocks
            .iter()
            .map(|b| json!({"role": "user", "content": b}))
            .collect::<Vec<_>>()}),
        "completion/complete" => {
            json!({"completion": {"values": ["a", "b"], "total": 2, "hasMore": false}})
        }
        "tasks/get" | "tasks/cancel" => json!({
            "taskId": "t1", "status": "working", "statusMessage": "busy",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttl": 60000, "pollInterval": 500
        }),
        "tasks/list" => json!({"tasks": [
            {"taskId": "t1", "status": "completed", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": null},
            {"taskId": "t2", "status": "input_required", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": 1000}
        ], "nextCursor": "c"}),
        TASK_AUGMENTED => json!({"task": {
            "taskId": "t1", "status": "working",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000
        }}),
        other => panic!("no corpus for {other}"),
    };
    if version >= "2026-07-28" {
        result["resultType"] = json!("complete");
        if matches!(
            method,
            "tools/list"
                | "resources/list"
                | "resources/templates/list"
                | "prompts/list"
                | "resources/read"
        ) {
            result["ttlMs"] = json!(1000);
            result["cacheScope"] = json!("private");
        }
    }
    result
}

/// Results broken one way each: every required member left out, every member of the wrong
/// type, and breakages inside items (names, content blocks, versions' content types).
fn mutants(method: &str, version: &str, valid: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let object = valid.as_object().unwrap();
    for key in object.keys() {
        let mut broken = valid.clone();
        broken.as_object_mut().unwrap().remove(key);
        out.push((format!("without {key}"), broken));
        let mut broken = valid.clone();
        broken[key] = json!(7);
        out.push((format!("{key} = 7"), broken));
    }
    out.push(("not an object".into(), json!([1, 2])));
    let mut item = |what: &str, pointer: &str, value: Option<Value>| {
        let mut broken = valid.clone();
        match value {
            Some(v) => *broken.pointer_mut(pointer).unwrap() = v,
            None => {
                let (parent, key) = pointer.rsplit_once('/').unwrap();
                broken
                    .pointer_mut(parent)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(key);
            }
        }
        out.push((what.to_string(), broken));
    };
    match method {
        "initialize" => {
            item("serverInfo without version", "/serverInfo/version", None);
            item(
                "serverInfo.name a number",
                "/serverInfo/name",
                Some(json!(1)),
            );
        }
        "tools/list" => {
            item("a tool without name", "/tools/0/name", None);
            item("a tool without inputSchema", "/tools/0/inputSchema", None);
            item(
                "inputSchema of type array",
                "/tools/1/inputSchema/type",
                Some(json!("array")),
            );
            item("nextCursor a number", "/nextCursor", Some(json!(3)));
            if version >= "2025-03-26" {
                item(
                    "readOnlyHint a string",
                    "/tools/0/annotations/readOnlyHint",
                    Some(json!("yes")),
                );
                item(
                    "an annotation title a number",
                    "/tools/0/annotations/title",
                    Some(json!(1)),
                );
            }
        }
        "tools/call" => {
            item("image without mimeType", "/content/1/mimeType", None);
            item("text without text", "/content/0/text", None);
            item(
                "an unknown content type",
                "/content/0",
                Some(json!({"type": "video", "data": "AA=="})),
            );
            item("isError a string", "/isError", Some(json!("no")));
            item(
                "priority above 1",
                "/content/0/annotations/priority",
                Some(json!(2)),
            );
            item(
                "an audience of robots",
                "/content/0/annotations/audience/0",
                Some(json!("robot")),
            );
            item(
                "embedded resource without uri",
                "/content/2/resource/uri",
                None,
            );
            if version < "2025-03-26" {
                item(
                    "audio before 2025-03-26",
                    "/content/0",
                    Some(json!({"type": "audio", "data": "AA==", "mimeType": "audio/wav"})),
                );
            }
            if version < "2025-06-18" {
                item(
                    "resource_link before 2025-06-18",
                    "/content/0",
                    Some(json!({"type": "resource_link", "uri": "ref://b", "name": "b"})),
                );
            }
        }
        "resources/list" => {
            item("a resource without uri", "/resources/0/uri", None);
            item("a resource without name", "/resources/0/name", None);
            item(
                "a negative priority",
                "/resources/0/annotations/priority",
                Some(json!(-0.1)),
            );
            if version >= "2025-06-18" {
                item(
                    "lastModified a number",
                    "/resources/0/annotations/lastModified",
                    Some(json!(20250112)),
                );
            }
        }
        "resources/read" => {
            item("contents without text or blob", "/contents/0/text", None);
            item("contents without uri", "/contents/1/uri", None);
        }
        "resources/templates/list" => {
            item(
                "a template without uriTemplate",
                "/resourceTemplates/0/uriTemplate",
                None,
            );
        }
        "prompts/list" => {
            item("a prompt without name", "/prompts/0/name", None);
            item(
                "an argument without name",
                "/prompts/0/arguments/0/name",
                None,
            );
            item(
                "required a string",
                "/prompts/0/arguments/0/required",
                Some(json!("yes")),
            );
        }
        "prompts/get" => {
            item("a message without role", "/messages/0/role", None);
            item("role system", "/messages/0/role", Some(json!("system")));
            item("content without type", "/messages/0/content/type", None);
        }
        "completion/complete" => {
            item("completion without values", "/completion/values", None);
            item(
                "101 values",
                "/completion/values",
                Some(json!((0..101).map(|i| i.to_string()).collect::<Vec<_>>())),
            );
            item(
                "a value not a string",
                "/completion/values/0",
                Some(json!(1)),
            );
        }
        "server/discover" => {
            item(
                "supportedVersions not strings",
                "/supportedVersions/0",
                Some(json!(20260728)),
            );
            item("cacheScope shared", "/cacheScope", Some(json!("shared")));
            item("ttlMs negative", "/ttlMs", Some(json!(-1)));
        }
        _ => {}
    }
    out
}

/// Where mcpcheck knowingly differs from a schema file, and why.
fn known_difference(method: &str, version: &str, what: &str) -> Option<&'static str> {
    match (method, what) {
        ("completion/complete", "101 values") if version < "2026-07-28" => Some(
            "the schema states the 100-value cap (\"Must not exceed 100 items\") only in a description \
             until 2026-07-28 adds maxItems; mcpcheck follows the text",
        ),
        _ => None,
    }
}

#[test]
fn known_differences_are_still_differences() {
    let Some(dir) = official_dir() else {
        crate::support::fixture_missing(
            "schemas",
            "../shared/spec/schema is not beside the checkout",
        );
        return;
    };
    // If a schema file is fixed, the exception must go.
    let theirs = official(&dir, "2025-11-25", "CompleteResult");
    let base = valid("completion/complete", "2025-11-25");
    let (_, many) = mutants("completion/complete", "2025-11-25", &base)
        .into_iter()
        .find(|(w, _)| w == "101 values")
        .unwrap();
    assert!(theirs.is_valid(&many));
    assert!(check_result("completion/complete", "2025-11-25", &many).is_some());
    assert!(known_difference("completion/complete", "2025-11-25", "101 values").is_some());
}

#[test]
fn own_schemas_agree_with_the_official_ones() {
    let Some(dir) = official_dir() else {
        crate::support::fixture_missing(
            "schemas",
            "../shared/spec/schema is not beside the checkout",
        );
        return;
    };
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for version in VERSIONS {
        for (method, _) in METHODS {
            if result_schema(method, version).is_none() {
                continue;
            }
            let definition = result_type(method).unwrap();
            let theirs = official(&dir, version, definition);
            let base = valid(method, version);
            let mut corpus = vec![("valid".to_string(), base.clone())];
            corpus.extend(mutants(method, version, &base));
            for (what, message) in corpus {
                compared += 1;
                let ours_ok = check_result(method, version, &message).is_none();
                let theirs_ok = theirs.is_valid(&message);
                if ours_ok != theirs_ok && known_difference(method, version, &what).is_none() {
                    disagreements.push(format!(
                        "{version} {method} ({what}): mcpcheck says {}, the official schema says {}",
                        if ours_ok { "valid" } else { "invalid" },
                        if theirs_ok { "valid" } else { "invalid" },
                    ));
                }
            }
        }
    }
    assert!(compared > 300, "only {compared} messages compared");
    assert!(
        disagreements.is_empty(),
        "{} of {compared} disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// The corpus really holds both verdicts: most mutants are invalid for both.
#[test]
fn the_corpus_has_valid_and_invalid_messages() {
    for version in VERSIONS {
        for (method, _) in METHODS {
            if result_schema(method, version).is_none() {
                continue;
            }
            let base = valid(method, version);
            assert!(
                check_result(method, version, &base).is_none(),
                "{version} {method}: {:?}",
                check_result(method, version, &base)
            );
            let invalid = mutants(method, version, &base)
                .iter()
                .filter(|(_, m)| check_result(method, version, m).is_some())
                .count();
            assert!(invalid >= 1, "{version} {method}: no invalid mutant");
        }
    }
}

/// `--official-schemas DIR`: results are also validated with the official files, and what they
/// reject is a failure even where mcpcheck's own description is satisfied.
#[test]
fn official_schemas_from_a_folder_are_used_at_run_time() {
    use crate::support::{reference_server, run_json, statuses};
    let Some(dir) = official_dir() else {
        crate::support::fixture_missing(
            "schemas",
            "../shared/spec/schema is not beside the checkout",
        );
        return;
    };
    let server = reference_server().display().to_string();
    let official = dir.to_str().unwrap();
    for era in ["", " --stateless"] {
        let command = format!("{server}{era}");
        let (code, report, _) = run_json(&["--stdio", &command, "--official-schemas", official]);
        assert_eq!(code, 0, "{era}");
        assert_eq!(statuses(&report)["wire-result-schema"], "pass");
    }
    // A copy of 2025-11-25 whose ListToolsResult also requires `extra`: only the official file
    // can reject the reference server's tools/list now.
    let tmp = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("2025-11-25.json")).unwrap())
            .unwrap();
    doc["$defs"]["ListToolsResult"]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!("extra"));
    std::fs::write(tmp.path().join("2025-11-25.json"), doc.to_string()).unwrap();
    let (code, report, _) = run_json(&[
        "--stdio",
        &server,
        "--official-schemas",
        tmp.path().to_str().unwrap(),
        "--check",
        "wire-result-schema",
        "--check",
        "tools-list-shape",
    ]);
    assert_eq!(code, 1);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "wire-result-schema")
        .unwrap();
    assert_eq!(check["status"], "fail");
    let evidence = check["evidence"].to_string();
    assert!(
        evidence.contains("the official 2025-11-25 schema rejects this tools/list result"),
        "{evidence}"
    );
    // A folder without schema files is a usage error.
    let empty = tempfile::tempdir().unwrap();
    let output = crate::support::mcpcheck()
        .args(["run", "--stdio", &server, "--official-schemas"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// A valid notification of `method` at `version`, with every optional member the type allows.
fn valid_notification(method: &str, version: &str) -> Value {
    let params = match method {
        "notifications/message" => {
            json!({"level": "warning", "logger": "db", "data": {"detail": "slow query"}})
        }
        "notifications/progress" => {
            let mut p = json!({"progressToken": "t-1", "progress": 0.5, "total": 1});
            if version >= "2025-03-26" {
                p["message"] = json!("halfway");
            }
            p
        }
        "notifications/cancelled" => json!({"requestId": 7, "reason": "user"}),
        "notifications/resources/updated" => json!({"uri": "file:///a.txt"}),
        _ => json!({}),
    };
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The valid notification broken one way at a time. (The `jsonrpc` member is left alone: the
/// official files require it from 2025-11-25 on, and mcpcheck judges it in its own check,
/// `jsonrpc-version-field`, for every message.)
fn notification_mutants(method: &str, version: &str, valid: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut with = |what: &str, pointer: &str, value: Option<Value>| {
        let mut m = valid.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let target = m.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        match value {
            Some(v) => target.insert(key.to_string(), v),
            None => target.remove(key),
        };
        out.push((what.to_string(), m));
    };
    match method {
        "notifications/message" => {
            with("no data", "/params/data", None);
            with("no level", "/params/level", None);
            with("unknown level", "/params/level", Some(json!("verbose")));
            with("numeric logger", "/params/logger", Some(json!(5)));
        }
        "notifications/progress" => {
            with("no token", "/params/progressToken", None);
            with("boolean token", "/params/progressToken", Some(json!(true)));
            with(
                "fractional token",
                "/params/progressToken",
                Some(json!(1.5)),
            );
            with("string progress", "/params/progress", Some(json!("50%")));
            with("no progress", "/params/progress", None);
            with("string total", "/params/total", Some(json!("one")));
            if version >= "2025-03-26" {
                with("numeric message", "/params/message", Some(json!(5)));
            }
        }
        "notifications/cancelled" => {
            with("null request id", "/params/requestId", Some(Value::Null));
            with("numeric reason", "/params/reason", Some(json!(5)));
            with("no request id", "/params/requestId", None);
        }
        "notifications/resources/updated" => {
            with("no uri", "/params/uri", None);
            with("numeric uri", "/params/uri", Some(json!(5)));
        }
        _ => {
            with("string params", "/params", Some(json!("changed")));
        }
    }
    out
}

#[test]
fn own_notification_schemas_agree_with_the_official_ones() {
    let Some(dir) = official_dir() else {
        crate::support::fixture_missing(
            "schemas",
            "../shared/spec/schema is not beside the checkout",
        );
        return;
    };
    let mut disagreements = Vec::new();
    let (mut compared, mut invalid) = (0, 0);
    for version in VERSIONS {
        for (method, definition) in NOTIFICATIONS {
            let theirs = official(&dir, version, definition);
            let base = valid_notification(method, version);
            let mut corpus = vec![("valid".to_string(), base.clone())];
            corpus.extend(notification_mutants(method, version, &base));
            for (what, message) in corpus {
                compared += 1;
                let ours_ok = check_notification(version, &message).is_none();
                let theirs_ok = theirs.is_valid(&message);
                invalid += usize::from(!ours_ok);
                if what == "valid" {
                    assert!(
                        ours_ok,
                        "{version} {method}: the valid notification is refused"
                    );
                }
                if ours_ok != theirs_ok {
                    disagreements.push(format!(
                        "{version} {method} ({what}): mcpcheck says {}, the official schema says {}",
                        if ours_ok { "valid" } else { "invalid" },
                        if theirs_ok { "valid" } else { "invalid" },
                    ));
                }
            }
        }
    }
    assert!(compared > 100, "only {compared} messages compared");
    assert!(invalid > 80, "only {invalid} messages found invalid");
    assert!(
        disagreements.is_empty(),
        "{} of {compared} disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// A mirror of the specification repository's raw files, on loopback: it answers
/// `GET /<commit>/schema/<version>/schema.json` from a folder of `<version>.json` files, with
/// one version's file altered if asked. Returns its base URL and how many files it served.
fn mirror(
    dir: PathBuf,
    tamper: Option<&'static str>,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let served = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = served.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("/");
            let version = path
                .strip_suffix("/schema.json")
                .and_then(|p| p.rsplit('/').next())
                .unwrap_or("");
            let (status, mut body) = match std::fs::read(dir.join(format!("{version}.json"))) {
                Ok(body) if path.contains(mcpcheck::cli::schemas::commit()) => ("200 OK", body),
                _ => ("404 Not Found", b"not found".to_vec()),
            };
            if Some(version) == tamper {
                body.extend_from_slice(b"\n");
            }
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    (base, served)
}

#[test]
fn schemas_fetch_downloads_the_pinned_files_once_and_checks_them() {
    let Some(official) = official_dir() else {
        crate::support::fixture_missing(
            "schemas",
            "../shared/spec/schema is not beside the checkout",
        );
        return;
    };
    let (base, served) = mirror(official.clone(), None);
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("schemas");
    let fetch = || {
        crate::support::mcpcheck()
            .args(["schemas", "fetch", "--from", &base, "--dir"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let first = fetch();
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&first.stdout).trim(),
        dir.display().to_string()
    );
    for version in VERSIONS {
        assert_eq!(
            std::fs::read(dir.join(format!("{version}.json"))).unwrap(),
            std::fs::read(official.join(format!("{version}.json"))).unwrap(),
            "{version}"
        );
    }
    assert_eq!(served.load(std::sync::atomic::Ordering::Relaxed), 5);
    // Once there with the right checksum, nothing is downloaded again.
    let second = fetch();
    assert_eq!(second.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&second.stderr).contains("already there"));
    assert_eq!(served.load(std::sync::atomic::Ordering::Relaxed), 5);
    // The folder is what --official-schemas reads.
    let loaded = mcpcheck::check::messages::OfficialSchemas::load(&dir).unwrap();
    assert_eq!(loaded.versions(), VERSIONS.to_vec());
}

#[test]
fn schemas_fetch_refuses_a_file_with_another_checksum() {
    let Some(official) = official_dir() else {
        crate::support::fixture_missing(
            "schemas",
            "../shared/spec/schema is not beside the checkout",
        );
        return;
    };
    let (base, _) = mirror(official, Some("2025-11-25"));
    let out = tempfile::tempdir().unwrap();
    let output = crate::support::mcpcheck()
        .args(["schemas", "fetch", "--from", &base, "--dir"])
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("2025-11-25.json") && stderr.contains("sha256"),
        "{stderr}"
    );
    assert!(!out.path().join("2025-11-25.json").exists());
    assert!(out.path().join("2026-07-28.json").exists());
}

#[test]
fn schemas_fetch_reports_an_unreachable_source() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let out = tempfile::tempdir().unwrap();
    let output = crate::support::mcpcheck()
        .args([
            "schemas",
            "fetch",
            "--version",
            "2025-11-25",
            "--from",
            &base,
            "--dir",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot connect"));
    let bad = crate::support::mcpcheck()
        .args(["schemas", "fetch", "--version", "2099-01-01"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
