//! A JSON Schema of the scenario file format, for editors (`mcpcheck scenario-schema`) and for the
//! test that every file of the library follows it. It describes what `file.rs` accepts; the
//! loader still checks what a schema cannot (placeholders, step names, queries' parts).

use serde_json::{json, Value};

use super::model::QUERY_FORMS;

/// The schema of one scenario file (JSON Schema 2020-12, over the TOML read as JSON).
///
/// Long by design: data: the schema itself, key by key as `file.rs` reads them.
pub fn scenario_schema() -> Value {
    let predicate_table = json!({
        "type": "object",
        "additionalProperties": false,
        "minProperties": 1,
        "properties": {
            "equals": { "description": "equals this (placeholders filled first), type-strict" },
            "not_equals": { "description": "does not equal this" },
            "one_of": { "type": "array", "description": "is one of these" },
            "type": { "enum": ["string", "number", "integer", "boolean", "object", "array", "null"] },
            "exists": { "type": "boolean", "description": "whether the query finds anything" },
            "length": { "type": "integer", "minimum": 0, "description": "items of an array or object, characters of a string" },
            "contains": { "description": "an array with this item (an object: an item with these members)" },
            "matches": { "type": "string", "description": "a regular expression the string matches" },
            "starts_with": { "type": "string", "description": "a string it begins with (placeholders filled first)" },
            "ends_with": { "type": "string", "description": "a string it ends with (placeholders filled first)" },
            "within": { "type": "string", "description": "a protocol version window: *, V, >=V, <=V, A..B" },
            "schema": { "type": ["object", "boolean"], "description": "a JSON Schema the value validates against" },
            "schema_from": { "type": "string", "description": "a placeholder naming a schema, e.g. {{tool.NAME/outputSchema}}" }
        }
    });
    let query = format!(
        "^({})$",
        QUERY_FORMS
            .iter()
            .map(|f| f.pattern)
            .collect::<Vec<_>>()
            .join("|")
    );
    let condition = json!({
        "type": "object",
        "description": "query = predicate; every pair must hold",
        "propertyNames": { "pattern": query },
        "additionalProperties": {
            "anyOf": [
                { "$ref": "#/$defs/predicate" },
                { "type": ["string", "number", "boolean", "array"] }
            ]
        }
    });
    let message = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["method"],
        "properties": { "method": { "type": "string" }, "params": {} }
    });
    let requires = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "capabilities": { "type": "array", "items": { "type": "string" } },
            "undeclared": { "type": "array", "items": { "type": "string" } },
            "tools": { "type": "array", "items": { "type": "string" } },
            "prompts": { "type": "array", "items": { "type": "string" } },
            "resources": { "type": "array", "items": { "type": "string" } },
            "versions": { "type": "string" },
            "transport": {
                "anyOf": [
                    { "enum": ["stdio", "http", "sse", "legacy-sse"] },
                    { "type": "array", "minItems": 1, "items": { "enum": ["stdio", "http", "sse", "legacy-sse"] } }
                ]
            },
            "era": { "enum": ["handshake", "stateless"] },
            "fixtures": { "enum": ["everything"] },
            "profile": { "enum": ["everything"], "description": "an older name for fixtures" },
            "call_tools": { "type": "boolean" }
        }
    });
    let step = json!({
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": false,
            "required": ["name"],
            "properties": {
                "name": { "type": "string" },
                "request": message,
                "notification": message,
                "raw": { "type": "string" },
                "id": {},
                "timeout_ms": { "type": "integer", "minimum": 0 },
                "wait_ms": { "type": "integer", "minimum": 0 },
                "hold_ms": { "type": "integer", "minimum": 0 },
                "drop_after_events": { "type": "integer", "minimum": 1 },
                "until_notified": { "type": "string" },
                "background": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["once_notified"],
                    "properties": { "once_notified": { "type": "string" } }
                },
                "alongside": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["method"],
                    "properties": {
                        "method": { "type": "string" },
                        "params": {},
                        "after_ms": { "type": "integer", "minimum": 0 }
                    }
                },
                "concurrent": { "type": "integer", "minimum": 2, "maximum": 16 },
                "for_each": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["in", "none"],
                    "properties": {
                        "in": { "type": "string", "description": "the capture holding the array" },
                        "max": { "type": "integer", "minimum": 1, "maximum": 16 },
                        "matching": { "type": "object", "description": "a JSON Schema the items sent for must meet" },
                        "none": { "type": "string", "description": "what it means about the server when no item qualifies" },
                        "not_applicable": { "type": "boolean", "description": "no qualifying item means the server has nothing of the kind: the step's checks do not apply" }
                    }
                },
                "pages": { "type": "integer", "minimum": 2, "maximum": 16 },
                "poll": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["until"],
                    "properties": {
                        "until": { "$ref": "#/$defs/condition" },
                        "within_ms": { "type": "integer", "minimum": 0 }
                    }
                },
                "headers": { "type": "object", "additionalProperties": { "type": "string" } },
                "omit_headers": { "type": "array", "items": { "type": "string" } },
                "omit_meta": { "type": "array", "items": { "type": "string" } },
                "capture": {
                    "type": "object",
                    "additionalProperties": {
                        "anyOf": [
                            { "type": "string", "pattern": query },
                            {
                                "type": "object",
                                "additionalProperties": false,
                                "required": ["from"],
                                "properties": {
                                    "from": { "type": "string", "pattern": query },
                                    "absent": { "type": "string", "description": "what it means about the server when the query finds nothing" },
                                    "not_applicable": { "type": "boolean", "description": "nothing found means the server has nothing of the kind: the checks of a step needing it do not apply (needs absent)" }
                                }
                            }
                        ]
                    }
                },
                "http_method": { "enum": ["GET", "DELETE", "POST"] },
                "fetch": {
                    "description": "GET a document (no JSON-RPC, no session, no credentials): a URL, or URLs tried in turn until one answers 2xx",
                    "anyOf": [
                        { "type": "string" },
                        { "type": "array", "minItems": 1, "maxItems": 8, "items": { "type": "string" } }
                    ]
                }
            }
        }
    });
    // A rule of a check, or of a list the file's checks share (`[rules]`).
    let rule = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["when", "verdict"],
        "properties": {
            "when": { "$ref": "#/$defs/condition" },
            "verdict": { "enum": ["pass", "fail", "warn", "info", "skip", "not-testable", "violation"] },
            "message": { "type": "string" },
            "note": { "type": "string" }
        }
    });
    let check = json!({
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "title", "level", "spec", "expect"],
            "properties": {
                "id": { "type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$" },
                "since": { "type": "string", "description": "mcpcheck's own library only: the grading profile that first grades it" },
                "title": { "type": "string" },
                "level": { "enum": ["MUST", "SHOULD", "MAY"] },
                "derived": { "type": "boolean" },
                "spec": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["version", "section"],
                        "properties": {
                            "version": { "type": "string" },
                            "section": { "type": "string" },
                            "url": { "type": "string" }
                        }
                    }
                },
                "step": { "type": "string" },
                "steps": { "type": "array", "items": { "type": "string" } },
                "expect": { "type": "string" },
                "explain": { "type": "string" },
                "versions": { "type": "string" },
                "rule": {
                    "type": "array",
                    "items": {
                        "oneOf": [
                            { "$ref": "#/$defs/rule" },
                            {
                                "type": "object",
                                "additionalProperties": false,
                                "required": ["use"],
                                "properties": { "use": { "type": "string" } }
                            }
                        ]
                    }
                },
                "otherwise": { "enum": ["pass", "fail", "warn", "info", "skip", "not-testable", "violation"] }
            }
        }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "mcpcheck scenario",
        "type": "object",
        "additionalProperties": false,
        "required": ["id", "area", "title"],
        "$defs": { "predicate": predicate_table, "condition": condition, "rule": rule },
        "properties": {
            "id": { "type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$" },
            "area": { "type": "string" },
            "title": { "type": "string" },
            "description": { "type": "string" },
            "session": { "enum": ["shared", "probe", "fresh", "bare"] },
            "requires": requires,
            "step": step,
            "check": check,
            "rules": {
                "type": "object",
                "additionalProperties": { "type": "array", "items": { "$ref": "#/$defs/rule" } }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator() -> jsonschema::Validator {
        jsonschema::validator_for(&scenario_schema()).expect("the schema compiles")
    }

    /// Every property name the schema allows, anywhere in it.
    fn property_names(schema: &Value, names: &mut std::collections::BTreeSet<String>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    names.extend(properties.keys().cloned());
                }
                map.values().for_each(|v| property_names(v, names));
            }
            Value::Array(items) => items.iter().for_each(|v| property_names(v, names)),
            _ => {}
        }
    }

    #[test]
    fn the_readme_documents_every_key_of_the_scenario_schema() {
        let readme = include_str!("../../README.md");
        let section = readme
            .split_once("## Writing a scenario")
            .and_then(|(_, rest)| rest.split_once("\n## "))
            .map(|(section, _)| section)
            .expect("the README has a section on writing a scenario");
        let mut names = std::collections::BTreeSet::new();
        property_names(&scenario_schema(), &mut names);
        // A key is documented where the README writes it as TOML writes it (`key =`, `[key]`,
        // `[[key]]`, `"key" =`) or names it in code (`key`): the whole key, not the end of a
        // longer one.
        let written = |name: &str| {
            let forms = [
                format!("{name} ="),
                format!("[{name}]"),
                format!("\"{name}\" ="),
                format!("`{name}`"),
            ];
            forms.iter().any(|form| {
                section.match_indices(form.as_str()).any(|(at, _)| {
                    !section[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                })
            })
        };
        let undocumented: Vec<&String> = names.iter().filter(|name| !written(name)).collect();
        assert!(
            undocumented.is_empty(),
            "keys of the scenario schema the README's \"Writing a scenario\" does not document: {undocumented:?}"
        );
        assert!(names.len() > 60, "{} keys", names.len());
    }

    #[test]
    fn every_library_file_follows_the_schema() {
        let validator = validator();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios");
        let mut seen = 0;
        let mut stack = vec![std::path::PathBuf::from(dir)];
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&path).unwrap();
                let file: Value = toml::from_str(&text).unwrap();
                let errors: Vec<String> = validator
                    .iter_errors(&file)
                    .map(|e| format!("{} at {}", e, e.instance_path()))
                    .collect();
                assert!(errors.is_empty(), "{}: {errors:?}", path.display());
                seen += 1;
            }
        }
        assert!(seen > 90, "{seen} files");
    }

    #[test]
    fn the_schema_refuses_what_the_loader_refuses() {
        let validator = validator();
        let base = r#"
id = "x"
area = "a"
title = "t"
[[step]]
name = "s"
request = { method = "ping" }
[[check]]
id = "c"
title = "t"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic" }]
step = "s"
expect = "e"
rule = [{ when = { reply = "result" }, verdict = "pass" }]
"#;
        let parse = |text: &str| -> Value { toml::from_str(text).unwrap() };
        assert!(validator.is_valid(&parse(base)));
        for (from, to) in [
            ("reply = \"result\"", "replly = \"result\""),
            ("reply = \"result\"", "reply = { one_off = [\"result\"] }"),
            ("verdict = \"pass\"", "verdict = \"passed\""),
            ("level = \"MUST\"", "level = \"must\""),
            (
                "request = { method = \"ping\" }",
                "reqest = { method = \"ping\" }",
            ),
        ] {
            let broken = base.replace(from, to);
            assert!(!validator.is_valid(&parse(&broken)), "{to}");
            assert!(
                crate::scenario::load::parse("x.toml", &broken).is_err(),
                "{to}"
            );
        }
    }
}
