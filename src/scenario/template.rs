//! `{{…}}` placeholders in scenario values: `{{protocolVersion}}`, `{{capture.NAME}}`,
//! `{{sent/POINTER}}` (in rules: a value from the message the step sent) and `{{token}}` (a
//! per-run random token). A string that is one placeholder becomes the value itself, type kept.

use serde_json::Value;

/// Expands every placeholder in `value`. `lookup` resolves a name; an unknown or unavailable
/// name is an error carrying the name.
pub fn expand(value: &Value, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => expand_str(s, lookup)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| expand(v, lookup))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                out.insert(k.clone(), expand(v, lookup)?);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// Expands placeholders in a string; a string that is exactly one placeholder yields its value.
pub fn expand_str(text: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, String> {
    let trimmed = text.trim();
    if trimmed.starts_with("{{") && trimmed.ends_with("}}") && trimmed.matches("{{").count() == 1 {
        let name = trimmed[2..trimmed.len() - 2].trim();
        return lookup(name).ok_or_else(|| name.to_string());
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(end) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = rest[start + 2..start + end].trim();
        match lookup(name).ok_or_else(|| name.to_string())? {
            Value::String(s) => out.push_str(&s),
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lookup(name: &str) -> Option<Value> {
        match name {
            "protocolVersion" => Some(json!("2025-11-25")),
            "capture.n" => Some(json!(7)),
            _ => None,
        }
    }

    #[test]
    fn whole_placeholders_keep_their_type() {
        assert_eq!(
            expand(&json!({"v": "{{capture.n}}"}), &lookup).unwrap(),
            json!({"v": 7})
        );
        assert_eq!(
            expand(&json!(["at {{protocolVersion}} n={{capture.n}}"]), &lookup).unwrap(),
            json!(["at 2025-11-25 n=7"])
        );
    }

    #[test]
    fn unknown_names_are_errors() {
        assert_eq!(expand(&json!("{{nope}}"), &lookup).unwrap_err(), "nope");
        assert_eq!(
            expand_str("no placeholders", &lookup).unwrap(),
            json!("no placeholders")
        );
    }
}
