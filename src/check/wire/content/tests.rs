//! Unit tests of [`super`].

use crate::check::wire::shapes::{elicitation_schema_problems, meta_key_problem, same_json};
use crate::check::wire::{is_base64, uri_problem};

#[test]
fn elicitation_schemas_are_flat_typed_forms() {
    let good = serde_json::json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "Ada", "format": "email"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 0.5},
        "ok": {"type": "boolean", "default": true},
        "color": {"type": "string", "enum": ["red", "green"], "default": "green"},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}], "default": "s"},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["b"]},
        "pets": {"type": "array", "items": {"anyOf": [{"const": "cat", "title": "Cat"}]}}
    }});
    assert!(elicitation_schema_problems(&good, "2025-11-25").is_empty());
    for (field, why) in [
        (
            serde_json::json!({"type": "object", "properties": {}}),
            "nested",
        ),
        (
            serde_json::json!({"type": "integer", "default": "5"}),
            "default",
        ),
        (
            serde_json::json!({"type": "string", "enum": ["a"], "default": "b"}),
            "options",
        ),
        (
            serde_json::json!({"type": "array", "items": {"type": "object"}}),
            "array",
        ),
        (
            serde_json::json!({"type": "string", "format": "phone"}),
            "format",
        ),
    ] {
        let schema = serde_json::json!({"type": "object", "properties": {"f": field}});
        assert!(
            !elicitation_schema_problems(&schema, "2025-11-25").is_empty(),
            "{why}"
        );
    }
    let multi = serde_json::json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"enum": ["a"]}}
    }});
    assert!(!elicitation_schema_problems(&multi, "2025-06-18").is_empty());
}

#[test]
fn meta_keys_follow_the_grammar() {
    for good in [
        "progressToken",
        "io.modelcontextprotocol/related-task",
        "com.example/x",
        "a/b.c_d-e",
        "x1",
        "com.example/",
        "",
    ] {
        assert_eq!(meta_key_problem(good, false), None, "{good:?}");
    }
    for bad in [
        "-x",
        "x_",
        "a b",
        "1com.example/x",
        "com.example-/x",
        "com..example/x",
        "/x",
        "a/b/c",
        "caf\u{e9}",
        "com.example/_x",
    ] {
        assert!(meta_key_problem(bad, false).is_some(), "{bad:?}");
    }
    assert!(meta_key_problem("tasks", true).is_some());
    assert_eq!(
        meta_key_problem("io.modelcontextprotocol/tasks", true),
        None
    );
}

#[test]
fn base64_is_padded_standard_alphabet() {
    for good in ["", "AA==", "AAA=", "AAAA", "iVBORw0KGgo=", "+/+/"] {
        assert!(is_base64(good), "{good:?}");
    }
    for bad in [
        "AA", "AAA", "A===", "AA=A", "-_-_", "AA AA==", "AA==\n", "Zm9v!A==",
    ] {
        assert!(!is_base64(bad), "{bad:?}");
    }
}

#[test]
fn json_values_compare_numbers_by_value() {
    use serde_json::json;
    assert!(same_json(&json!({"sum": 3}), &json!({"sum": 3.0})));
    assert!(same_json(
        &json!([1, {"a": 2.5}]),
        &json!([1.0, {"a": 2.5}])
    ));
    assert!(!same_json(&json!({"sum": 3}), &json!({"sum": "3"})));
    assert!(!same_json(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
}

#[test]
fn uris_follow_rfc_3986() {
    for good in [
        "file:///home/user/a.txt",
        "https://example.com/a?b=c#d",
        "test://static-text",
        "ref://items/%20x",
        "urn:isbn:0451450523",
        "http://[::1]:8080/",
        "mailto:a@example.com",
    ] {
        assert_eq!(uri_problem(good), None, "{good:?}");
    }
    for (bad, why) in [
        ("docs/readme", "no scheme"),
        ("1abc:x", "not a scheme"),
        (":x", "not a scheme"),
        ("ref://a b", "' '"),
        ("ref://a/%zz", "percent-escape"),
        ("ref://a/%4", "percent-escape"),
        ("ref://é", "'é'"),
        ("ref://a#b#c", "more than one"),
        ("ref://a\\b", "'\\\\'"),
    ] {
        let problem = uri_problem(bad).unwrap_or_else(|| panic!("{bad:?} passed"));
        assert!(problem.contains(why), "{bad:?}: {problem}");
    }
}

#[test]
fn meta_keys_are_found_with_their_pointers_outside_free_form_members_and_error_data() {
    let message = serde_json::json!({
        "result": {
            "_meta": {"a/b": 1},
            "items": [{"x~y/z": {"_meta": {"k": 1}}}],
            "structuredContent": {"_meta": {"free": 1}}
        },
        "error": {"data": {"_meta": {"free": 1}}}
    });
    let mut keys = Vec::new();
    crate::check::wire::shapes::meta_keys(&message, &mut keys);
    assert_eq!(
        keys,
        vec![
            ("/result/_meta".to_string(), "a/b", false),
            ("/result/items/0/x~0y~1z/_meta".to_string(), "k", false),
        ]
    );
}
