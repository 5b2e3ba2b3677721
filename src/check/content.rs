//! What the checks read out of a resource read's contents beyond its JSON: the bytes of its
//! first item, their digest as the skills extension writes one, and the YAML frontmatter of a
//! Markdown text (a SKILL.md's). Everything read here comes from the server, so the YAML is read
//! with bounds: no aliases (a few bytes of them expand without end), a bounded size and depth.

use serde_json::Value;

use super::step::reply_message;
use crate::record::Exchange;

/// The most frontmatter read, in bytes: a SKILL.md's is a few lines.
const MAX_FRONTMATTER: usize = 64 * 1024;

/// The deepest nesting of frontmatter read (mappings and sequences).
const MAX_DEPTH: usize = 64;

/// The bytes of the first item of a read's `contents`: its text as UTF-8, or its blob
/// decoded from base64 (`None` when it has neither, or the blob is not base64).
pub fn bytes(exchange: &Exchange) -> Option<Vec<u8>> {
    let item = reply_message(exchange)?.pointer("/result/contents/0")?;
    if let Some(text) = item.get("text").and_then(Value::as_str) {
        return Some(text.as_bytes().to_vec());
    }
    let blob = item.get("blob")?.as_str()?;
    if !crate::check::wire::is_base64(blob) {
        return None;
    }
    crate::record::token::decode(&blob.replace('+', "-").replace('/', "_"))
}

/// `sha256:` and the lowercase hex of the bytes' SHA-256, as the skills extension writes a
/// file's digest.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The YAML frontmatter of the first item of a read's `contents` (text, or a blob holding
/// UTF-8), as JSON.
pub fn frontmatter_of(exchange: &Exchange) -> Option<Value> {
    let bytes = bytes(exchange)?;
    frontmatter(std::str::from_utf8(&bytes).ok()?)
}

/// The YAML frontmatter of a Markdown text (a first line `---`, then YAML up to a line `---`)
/// as JSON; `None` when there is none, it is not a YAML mapping, or it is beyond the bounds
/// (aliases, more than 64 KiB, nested deeper than 64).
pub fn frontmatter(text: &str) -> Option<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let end = rest
        .match_indices("\n---")
        .map(|(i, _)| i)
        .find(|&i| {
            let after = &rest[i + 4..];
            after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n")
        })
        .map(|i| i + 1)
        .or_else(|| rest.starts_with("---").then_some(0))?;
    let yaml = &rest[..end];
    if yaml.len() > MAX_FRONTMATTER || !bounded(yaml) {
        return None;
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml).ok()?;
    match docs.first().map(to_json) {
        Some(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}

/// Whether YAML is free of aliases and nested at most [`MAX_DEPTH`] deep (read as events, before
/// any of it is built).
fn bounded(yaml: &str) -> bool {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(yaml);
    let mut depth = 0usize;
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => return true,
            Ok((Event::Alias(_), _)) | Err(_) => return false,
            Ok((Event::MappingStart(..) | Event::SequenceStart(..), _)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
            }
            Ok((Event::MappingEnd | Event::SequenceEnd, _)) => depth = depth.saturating_sub(1),
            Ok(_) => {}
        }
    }
}

fn to_json(yaml: &yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match yaml {
        Yaml::String(s) => Value::from(s.as_str()),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(r) => r
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::from(r.as_str()), Value::Number),
        Yaml::Boolean(b) => Value::from(*b),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Hash(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) => s.clone(),
                        other => to_json(other).to_string(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_as_json() {
        let text = "---\nname: pdf\ndescription: >-\n  two\n  lines\nmetadata:\n  version: \"1.0\"\n  n: 2\n---\n# body\n---\n";
        let got = frontmatter(text).unwrap();
        assert_eq!(
            got,
            serde_json::json!({"name": "pdf", "description": "two lines", "metadata": {"version": "1.0", "n": 2}})
        );
        assert!(frontmatter("# no frontmatter\n").is_none());
        assert!(frontmatter("---\nname: [unclosed\n---\n").is_none());
        assert!(frontmatter("---\r\nname: x\r\n---\r\n").is_some());
    }

    #[test]
    fn frontmatter_beyond_its_bounds_is_not_read() {
        // Aliases: a few lines that would expand to 9^9 strings.
        let mut bomb = String::from("---\na: &a [x,x,x,x,x,x,x,x,x]\n");
        for (n, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
            .iter()
            .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
        {
            bomb.push_str(&format!("{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        bomb.push_str("---\n");
        assert!(frontmatter(&bomb).is_none());
        let deep = format!("---\nname: {}{}\n---\n", "[".repeat(100), "]".repeat(100));
        assert!(frontmatter(&deep).is_none());
        let long = format!("---\nname: x\ndescription: {}\n---\n", "y".repeat(70_000));
        assert!(frontmatter(&long).is_none());
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            sha256(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
