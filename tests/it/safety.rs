//! Safe by default: mcpcheck calls no tool it merely discovered unless the user passes
//! `--call-tools`, and then only the one probe call (restricted to read-only tools if asked).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{mcpcheck, reference_server};

/// The names of every tools/call mcpcheck sent in a run (from `-v`, which prints every frame),
/// with their arguments.
fn calls(extra: &[&str]) -> Vec<(String, Value)> {
    let command = reference_server().display().to_string();
    let output = mcpcheck()
        .args(["run", "--stdio", &command, "-v", "--json", "-"])
        .args(extra)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("→ "))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "tools/call")
        .map(|m| {
            (
                m.pointer("/params/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                m.pointer("/params/arguments")
                    .cloned()
                    .unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// Tools the built-in scenarios name as fixtures (`requires.tools`), the unknown-tool probe, and
/// the malformed call (no name at all).
fn named_by_scenarios() -> BTreeSet<String> {
    fn walk(dir: &std::path::Path, names: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, names);
            } else if path.extension().is_some_and(|e| e == "toml") {
                let file: toml::Table =
                    toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let tools = file
                    .get("requires")
                    .and_then(|r| r.get("tools"))
                    .and_then(|t| t.as_array())
                    .cloned()
                    .unwrap_or_default();
                names.extend(tools.iter().filter_map(|t| t.as_str().map(String::from)));
            }
        }
    }
    let mut names = BTreeSet::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"),
        &mut names,
    );
    assert!(names.contains("mcpcheck_slow"), "{names:?}");
    names.insert("mcpcheck_no_such_tool_e3b0c442".into());
    names.insert(String::new());
    names
}

#[test]
fn without_call_tools_only_named_fixtures_and_the_unknown_probe_are_called() {
    let allowed = named_by_scenarios();
    let calls = calls(&[]);
    assert!(!calls.is_empty());
    for (name, arguments) in &calls {
        assert!(allowed.contains(name), "mcpcheck called `{name}`");
        // The fixture echo is only ever called with its text, never with the probe's `{}`.
        if name == "mcpcheck_echo" {
            assert!(arguments.get("text").is_some(), "{arguments}");
        }
    }
}

#[test]
fn with_call_tools_one_probe_call_is_made() {
    for which in ["read-only", "all"] {
        let calls = calls(&["--call-tools", which]);
        let probes: Vec<_> = calls
            .iter()
            .filter(|(name, arguments)| name == "mcpcheck_echo" && arguments.get("text").is_none())
            .collect();
        assert_eq!(probes.len(), 1, "{which}: {calls:?}");
    }
}
