//! What results and notifications carry, taken apart: their content blocks, URIs, base64 data,
//! `_meta` keys and elicitation schemas, with the problems each can have. Pure helpers of the
//! content checks (and of scenario assertions, which reuse the URI and base64 rules).

use serde_json::Value;

/// The content blocks of a tools/call or prompts/get result (prompt messages hold one each).
pub(super) fn content_blocks<'a>(method: &str, result: &'a Value) -> Vec<&'a Value> {
    match method {
        "tools/call" => result
            .get("content")
            .and_then(Value::as_array)
            .map(|c| c.iter().collect())
            .unwrap_or_default(),
        "prompts/get" => result
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| m.iter().filter_map(|m| m.get("content")).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The resource URIs a result carries, each with where it was found.
pub(super) fn result_uris<'a>(method: &str, result: &'a Value) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    let mut each = |member: &str, key: &str| {
        for (i, item) in result
            .get(member)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(uri) = item.get(key).and_then(Value::as_str) {
                out.push((format!("{method} /{member}/{i}/{key}"), uri));
            }
        }
    };
    match method {
        "resources/list" => each("resources", "uri"),
        "resources/read" => each("contents", "uri"),
        _ => {}
    }
    for block in content_blocks(method, result) {
        let uri = match block.get("type").and_then(Value::as_str) {
            Some("resource_link") => block.get("uri"),
            Some("resource") => block.pointer("/resource/uri"),
            _ => None,
        };
        if let Some(uri) = uri.and_then(Value::as_str) {
            out.push((format!("a {method} content block"), uri));
        }
    }
    out
}

/// The base64 payloads a result carries (blobs, image and audio data), each with where it was.
pub(super) fn result_base64<'a>(method: &str, result: &'a Value) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    if method == "resources/read" {
        for (i, item) in result
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(blob) = item.get("blob").and_then(Value::as_str) {
                out.push((format!("resources/read /contents/{i}/blob"), blob));
            }
        }
    }
    for block in content_blocks(method, result) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("?");
        let data = match kind {
            "image" | "audio" => block.get("data"),
            "resource" => block.pointer("/resource/blob"),
            _ => None,
        };
        if let Some(data) = data.and_then(Value::as_str) {
            out.push((format!("the data of a {method} {kind} block"), data));
        }
    }
    out
}

/// Whether a string is base64 as RFC 4648 §4 defines it: the standard alphabet, padded to a
/// multiple of four characters, `=` only at the end.
pub fn is_base64(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return false;
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    padding <= 2
        && bytes[..bytes.len() - padding]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// What keeps a string from being a URI by RFC 3986 (`scheme ":" hier-part [ "?" query ] [ "#"
/// fragment ]`): `None` when it is one. Characters outside the grammar, a malformed
/// percent-escape, a missing or malformed scheme and a second `#` are found.
pub fn uri_problem(text: &str) -> Option<String> {
    let Some((scheme, rest)) = text.split_once(':') else {
        return Some("no scheme (no `:`)".into());
    };
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Some(format!("`{scheme}` is not a scheme"));
    }
    let bytes = rest.as_bytes();
    let mut hashes = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'%' => {
                let escape = bytes.get(i + 1..i + 3);
                if !escape.is_some_and(|e| e.iter().all(u8::is_ascii_hexdigit)) {
                    return Some(format!(
                        "a malformed percent-escape at byte {}",
                        i + 1 + scheme.len()
                    ));
                }
                i += 3;
                continue;
            }
            b'#' => hashes += 1,
            // unreserved, sub-delims, and the delimiters of the hierarchy, query and fragment;
            // `[` and `]` for IP literals in the authority.
            _ if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?[]".contains(&b) => {}
            _ => {
                let c = rest[i..].chars().next().unwrap_or('?');
                return Some(format!(
                    "the character {c:?}, which a URI cannot hold unescaped"
                ));
            }
        }
        i += 1;
    }
    (hashes > 1).then(|| "more than one `#`".into())
}

/// Whether two JSON values are the same, numbers compared by value (`3` and `3.0` are equal).
pub(super) fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// Members whose contents are a tool's or a user's own data, not protocol objects: `_meta` keys
/// inside them are not the server's to format.
pub(super) const FREE_FORM: [&str; 5] = [
    "inputSchema",
    "outputSchema",
    "structuredContent",
    "requestedSchema",
    "arguments",
];

/// Every key of every `_meta` object in a message (outside free-form members and error data),
/// with the JSON pointer of its `_meta` and whether a prefix is required (never, here).
pub(super) fn meta_keys<'a>(message: &'a Value, out: &mut Vec<(String, &'a str, bool)>) {
    walk_meta(message, &mut Vec::new(), out);
}

/// A step on the way from a message to one of its values.
enum Step<'a> {
    /// An object's member.
    Key(&'a str),
    /// An array's item.
    Index(usize),
}

/// [`meta_keys`] below `value`, which `path` leads to: the pointer is written only for a `_meta`
/// found, not for every value passed on the way (a run's messages have thousands).
fn walk_meta<'a>(
    value: &'a Value,
    path: &mut Vec<Step<'a>>,
    out: &mut Vec<(String, &'a str, bool)>,
) {
    match value {
        Value::Object(object) => {
            for (key, member) in object {
                if key == "_meta" {
                    if let Some(meta) = member.as_object() {
                        path.push(Step::Key(key));
                        let here = pointer(path);
                        path.pop();
                        out.extend(meta.keys().map(|k| (here.clone(), k.as_str(), false)));
                    }
                } else if !(FREE_FORM.contains(&key.as_str()) || path.is_empty() && key == "error")
                {
                    path.push(Step::Key(key));
                    walk_meta(member, path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                walk_meta(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The JSON pointer (RFC 6901) a path of steps spells.
fn pointer(path: &[Step]) -> String {
    let mut pointer = String::new();
    for step in path {
        pointer.push('/');
        match step {
            Step::Key(key) => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Step::Index(i) => pointer.push_str(&i.to_string()),
        }
    }
    pointer
}

/// What is wrong with a `_meta` key (2025-06-18 on), if anything: an optional prefix of labels
/// and a slash, then a name. `prefixed`: the prefix is mandatory (extension identifiers).
pub fn meta_key_problem(key: &str, prefixed: bool) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if name.contains('/') {
        return Some("more than one `/`; a key is one prefix and one name".into());
    }
    match prefix {
        None if prefixed => {
            return Some("an extension identifier needs a prefix (`com.example/name`)".into())
        }
        None => {}
        Some(prefix) => {
            for label in prefix.split('.') {
                let chars: Vec<char> = label.chars().collect();
                let ok = chars.first().is_some_and(char::is_ascii_alphabetic)
                    && chars.last().is_some_and(char::is_ascii_alphanumeric)
                    && chars.iter().all(|c| c.is_ascii_alphanumeric() || *c == '-');
                if !ok {
                    return Some(format!(
                        "the prefix label {label:?} must start with a letter, end with a letter or digit, and hold only letters, digits and hyphens"
                    ));
                }
            }
        }
    }
    let chars: Vec<char> = name.chars().collect();
    let ok = chars.is_empty()
        || (chars.first().is_some_and(char::is_ascii_alphanumeric)
            && chars.last().is_some_and(char::is_ascii_alphanumeric)
            && chars
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')));
    (!ok).then(|| {
        format!("the name {name:?} must begin and end with a letter or digit and hold only letters, digits, `-`, `_` and `.`")
    })
}

/// What is wrong with a form elicitation's requestedSchema at a version, if anything.
///
/// Long by design: one rule per line of the elicitation schema's definition (types, formats,
/// enums, defaults per version), read top to bottom like the spec's table.
pub fn elicitation_schema_problems(schema: &Value, version: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if schema.get("type") != Some(&Value::from("object")) {
        problems.push("requestedSchema is not of type object".to_string());
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        problems.push("requestedSchema has no properties object".into());
        return problems;
    };
    let late = crate::record::version::at_least(version, "2025-11-25");
    let titled = |options: &Value| {
        options.as_array().is_some_and(|o| {
            !o.is_empty()
                && o.iter().all(|x| {
                    x.get("const").is_some_and(Value::is_string)
                        && x.get("title").is_some_and(Value::is_string)
                })
        })
    };
    let strings = |options: &Value| {
        options
            .as_array()
            .is_some_and(|o| !o.is_empty() && o.iter().all(Value::is_string))
    };
    // The options an enum field offers, whichever way it spells them.
    let options = |field: &Value| -> Option<Vec<Value>> {
        if let Some(values) = field.get("enum").and_then(Value::as_array) {
            return Some(values.clone());
        }
        field
            .get("oneOf")
            .or_else(|| field.get("anyOf"))
            .and_then(Value::as_array)
            .map(|o| o.iter().filter_map(|x| x.get("const").cloned()).collect())
    };
    for (name, field) in properties {
        let kind = field.get("type").and_then(Value::as_str);
        let mut problem = |text: String| problems.push(format!("field {name:?}: {text}"));
        match kind {
            Some("string") => {
                if let Some(values) = field.get("enum") {
                    if !strings(values) {
                        problem("`enum` is not a list of strings".into());
                    }
                }
                if let Some(one_of) = field.get("oneOf") {
                    if !late || !titled(one_of) {
                        problem("`oneOf` is not a list of {const, title} strings (titled single-select, 2025-11-25 on)".into());
                    }
                }
                if let Some(format) = field.get("format").and_then(Value::as_str) {
                    if !["email", "uri", "date", "date-time"].contains(&format) {
                        problem(format!(
                            "format {format:?} is not email, uri, date or date-time"
                        ));
                    }
                }
            }
            Some("number" | "integer" | "boolean") => {}
            Some("array") if late => {
                let items = &field["items"];
                let ok = items
                    .get("enum")
                    .map(strings)
                    .or_else(|| items.get("anyOf").map(titled))
                    .unwrap_or(false);
                if !ok {
                    problem("a multi-select array needs `items` with a string `enum` or an `anyOf` of {const, title}".into());
                }
            }
            other => problem(format!(
                "type {} is not a primitive field (string, number, integer, boolean{})",
                other.map_or("missing".to_string(), |k| format!("{k:?}")),
                if late {
                    ", or a multi-select array"
                } else {
                    ""
                }
            )),
        }
        if field.get("properties").is_some() {
            problems.push(format!(
                "field {name:?}: nested properties; the form must be flat"
            ));
        }
        let Some(default) = field.get("default") else {
            continue;
        };
        let typed = match kind {
            Some("string") => default.is_string(),
            Some("number") => default.is_number(),
            Some("integer") => default.is_i64() || default.is_u64(),
            Some("boolean") => default.is_boolean(),
            Some("array") => default
                .as_array()
                .is_some_and(|d| d.iter().all(Value::is_string)),
            _ => true,
        };
        if !typed {
            problems.push(format!(
                "field {name:?}: the default {default} is not of the field's type {}",
                kind.unwrap_or("?")
            ));
            continue;
        }
        let offered = if kind == Some("array") {
            options(&field["items"])
        } else {
            options(field)
        };
        if let Some(offered) = offered {
            let chosen: Vec<&Value> = match default.as_array() {
                Some(values) => values.iter().collect(),
                None => vec![default],
            };
            if let Some(stray) = chosen.iter().find(|v| !offered.contains(v)) {
                problems.push(format!(
                    "field {name:?}: the default {stray} is not one of the field's options"
                ));
            }
        }
    }
    problems
}
