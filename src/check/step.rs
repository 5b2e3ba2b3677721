//! What a scenario's steps leave for the checks to judge: one record per step (the exchange, or
//! why nothing was sent), and the readings of an exchange that queries and rules share.

use serde_json::Value;

use crate::record::{Exchange, Reply};

/// What one step did.
#[derive(Clone, Debug)]
pub struct StepRecord {
    /// The step's name.
    pub name: String,
    /// Whether it sent a request (so that silence is a timeout, not an observation).
    pub is_request: bool,
    /// The exchange, or why the step could not run.
    pub outcome: Result<Exchange, NotSent>,
    /// Why silence or a closed connection in this exchange says nothing about the step: the
    /// server had stopped answering (the connection had closed before the scenario began, or
    /// nothing sent after it was answered either). A check resting on such a reply is an error
    /// of the run, never a verdict.
    pub stopped: Option<String>,
    /// The item of a `for_each` step the exchange was for (`{{each/…}}` in its rules).
    pub item: Option<Value>,
}

/// Why a step sent nothing, in terms of what the server did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotSent {
    /// The reason ("the server lists no prompts, so none could be got").
    pub why: String,
    /// Whether it means the server has nothing of the kind (one page, no prompts), so that the
    /// step's checks do not apply, rather than could not be tested.
    pub not_applicable: bool,
}

impl From<String> for NotSent {
    fn from(why: String) -> NotSent {
        NotSent {
            why,
            not_applicable: false,
        }
    }
}

impl std::fmt::Display for NotSent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// The JSON-RPC message that answered, if one did.
pub fn reply_message(exchange: &Exchange) -> Option<&Value> {
    match &exchange.reply {
        Reply::Message { message, .. } => Some(message),
        _ => None,
    }
}

/// Whether the progress notifications received during an exchange are well-formed: at least
/// one, each for the token the request carried, with strictly increasing `progress`.
pub fn progress_ok(exchange: &Exchange) -> bool {
    let sent: Option<Value> = serde_json::from_str(&exchange.sent).ok();
    let Some(token) = sent
        .as_ref()
        .and_then(|s| s.pointer("/params/_meta/progressToken"))
    else {
        return false;
    };
    let progress: Vec<&Value> = exchange
        .notifications
        .iter()
        .filter(|n| n.get("method").and_then(Value::as_str) == Some("notifications/progress"))
        .collect();
    if progress.is_empty() {
        return false;
    }
    let mut last = f64::NEG_INFINITY;
    for note in progress {
        if note.pointer("/params/progressToken") != Some(token) {
            return false;
        }
        let Some(value) = note.pointer("/params/progress").and_then(Value::as_f64) else {
            return false;
        };
        if value <= last {
            return false;
        }
        last = value;
    }
    true
}

/// The bytes of the first item of a read's `contents`: its text as UTF-8, or its blob
/// decoded from base64 (`None` when it has neither, or the blob is not base64).
pub fn content_bytes(exchange: &Exchange) -> Option<Vec<u8>> {
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

/// The YAML frontmatter of a Markdown text (a first line `---`, then YAML up to a line `---`)
/// as JSON; `None` when there is none or it is not a YAML mapping.
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
    let docs = yaml_rust2::YamlLoader::load_from_str(&rest[..end]).ok()?;
    match docs.first().map(yaml_to_json) {
        Some(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}

fn yaml_to_json(yaml: &yaml_rust2::Yaml) -> Value {
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
        Yaml::Array(items) => Value::Array(items.iter().map(yaml_to_json).collect()),
        Yaml::Hash(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) => s.clone(),
                        other => yaml_to_json(other).to_string(),
                    };
                    (key, yaml_to_json(v))
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
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            sha256(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
