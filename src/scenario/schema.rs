//! A JSON Schema of the scenario file format, for editors (`mcpcheck scenario-schema`) and for the
//! test that every file of the library follows it. It is derived from the types `file.rs` reads
//! a file into (their doc comments are its descriptions); the loader still checks what a schema
//! cannot (placeholders, step names, queries' parts, which step keys go together).

use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::file::ScenarioFile;

/// The schema of one scenario file (JSON Schema 2020-12, over the TOML read as JSON).
pub fn scenario_schema() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<ScenarioFile>()
        .to_value();
    without_null(&mut schema);
    schema["title"] = "mcpcheck scenario".into();
    schema
}

/// TOML has no null (a key left out is how a file says "none"): the `null` schemars allows for
/// an `Option` is taken out again, from a `type` list, as a branch of an `anyOf`, and as the
/// default of a key left out.
fn without_null(schema: &mut Value) {
    let Value::Object(members) = schema else {
        if let Value::Array(items) = schema {
            items.iter_mut().for_each(without_null);
        }
        return;
    };
    if members.get("default").is_some_and(Value::is_null) {
        members.remove("default");
    }
    if let Some(Value::Array(types)) = members.get_mut("type") {
        types.retain(|t| t != "null");
        if let [one] = types.as_slice() {
            let one = one.clone();
            members.insert("type".into(), one);
        }
    }
    let null = |branch: &Value| branch.get("type").is_some_and(|t| t == "null");
    if let Some(Value::Array(branches)) = members.get_mut("anyOf") {
        branches.retain(|b| !null(b));
        if branches.len() == 1 {
            let only = branches.pop().unwrap_or_default();
            members.remove("anyOf");
            if let Value::Object(only) = only {
                for (key, value) in only {
                    members.entry(key).or_insert(value);
                }
            }
        }
    }
    members.values_mut().for_each(without_null);
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
            // What serde alone would not say, and the schema's attributes do.
            ("id = \"x\"", "id = \"Not An Id\""),
            ("name = \"s\"", "name = \"s\"\nconcurrent = 1"),
            ("name = \"s\"", "name = \"s\"\npages = 17"),
            ("area = \"a\"", "area = \"a\"\nsession = \"weird\""),
            (
                "area = \"a\"",
                "area = \"a\"\nrequires = { transport = \"tcp\" }",
            ),
            (
                "spec = [{ version = \"2025-11-25\", section = \"basic\" }]",
                "spec = []",
            ),
            ("reply = \"result\"", "reply = {}"),
            ("verdict = \"pass\" }", "verdict = \"pass\", use = \"x\" }"),
            (
                "name = \"s\"",
                "name = \"s\"\ncapture = { x = \"nonsense\" }",
            ),
            (
                "rule = [{ when = { reply = \"result\" }, verdict = \"pass\" }]",
                "rule = [{ use = \"shared\" }]\n[rules]\nshared = [{ use = \"other\" }]\nother = []",
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
