//! `{{…}}` placeholders in scenario values: `{{protocolVersion}}`, `{{capture.NAME}}`, in rules
//! any query of the scenario language (`{{/error/code}}`, `{{status}}`, `{{sent/params/uri}}`,
//! `{{step.NAME/…}}`: the first value it finds), `{{each/POINTER}}` (in
//! a `for_each` step: a value of the item the request or fetch is for; `{{each}}` is the whole
//! item), `{{guarded.request}}` (a request a protected server guards), `{{token}}` (a per-run random
//! token) and, over HTTP, `{{server.url}}`, `{{server.origin}}` and `{{server.path}}` (the
//! endpoint under test, its origin, and its path without a trailing slash), and tokens a protected
//! server must refuse, made from the user's bearer token (`{{auth.alg-none}}`, …;
//! [`crate::record::token`]). A string that is one placeholder becomes the value itself, type kept.
//! An object member whose value is one placeholder ending in `?` (`"{{capture.state?}}"`) is
//! left out when the name has no value, instead of failing the expansion.

use serde_json::Value;

/// The filters a placeholder may end in, each taking a part of a URL value:
/// `{{capture.issuer|origin}}` (`scheme://authority` as written), `{{capture.issuer|path}}` (the
/// path without a trailing slash; empty for none), `{{capture.skill|dir}}` (the URI without its
/// last segment: the folder a file is in).
pub const URL_FILTERS: &[&str] = &["origin", "path", "dir"];

/// Why a placeholder name names nothing a run can fill (`None`: it is known). `captured` are the
/// names the file's steps capture; `query` says why a name is no query of the scenario language
/// (`Ok`: it is one), which only a check's rules fill (`in_rules`: the placeholder is in one;
/// a step is built before it has an exchange to query). Known: `protocolVersion`,
/// `era.request`, `guarded.request`, `token`, `copy`, `probe.name`, `probe.arguments`,
/// `server.url`, `server.origin`, `server.path`, `server.web-origin`, `capture.NAME`,
/// `tool.NAME[/POINTER]`, `each` with a JSON pointer, and in rules every query.
pub fn unknown(
    name: &str,
    captured: &[&str],
    query: &dyn Fn(&str) -> Result<(), String>,
    in_rules: bool,
) -> Option<String> {
    const FIXED: &[&str] = &[
        "protocolVersion",
        "era.request",
        "guarded.request",
        "token",
        "copy",
        "probe.name",
        "probe.arguments",
        "server.url",
        "server.origin",
        "server.path",
        "server.web-origin",
    ];
    if let Some((base, filter)) = name.rsplit_once('|') {
        if !URL_FILTERS.contains(&filter) {
            return Some(format!(
                "`{{{{{name}}}}}`: unknown filter `{filter}` (known: {})",
                URL_FILTERS.join(", ")
            ));
        }
        return unknown(base, captured, query, in_rules);
    }
    if FIXED.contains(&name) {
        return None;
    }
    if let Some(made_up) = name.strip_prefix("auth.") {
        return (!crate::record::token::NAMES.contains(&made_up)).then(|| {
            format!(
                "`{{{{{name}}}}}`: mcpcheck makes no such token (known: auth.{})",
                crate::record::token::NAMES.join(", auth.")
            )
        });
    }
    if let Some(capture) = name.strip_prefix("capture.") {
        return (!captured.contains(&capture)).then(|| {
            format!("`{{{{{name}}}}}` names a capture that no step of this file makes (captured here: {})",
                if captured.is_empty() { "none".to_string() } else { captured.join(", ") })
        });
    }
    if name.strip_prefix("tool.").is_some_and(|t| !t.is_empty()) {
        return None;
    }
    if let Some(pointer) = name.strip_prefix("each") {
        if pointer.is_empty() || pointer.starts_with('/') {
            return None;
        }
    }
    if name.is_empty() {
        return Some(
            "`{{}}` names nothing: a placeholder names a value (`{{capture.NAME}}`, in a rule `{{/error/code}}`)".into(),
        );
    }
    // The spellings from before placeholders were queries, named with what replaced them.
    if name == "reply" {
        return Some(
            "`{{reply}}` was the whole reply; a placeholder in a rule is now a query, and the query `reply` the kinds of reply: name a part of the message by its JSON pointer (`{{/result}}`, `{{/error}}`)".into(),
        );
    }
    if name == "http_status" {
        return Some(
            "`{{http_status}}` is now `{{status}}`: a placeholder in a rule is a query, and the status a number".into(),
        );
    }
    if let Some(pointer) = name.strip_prefix("reply/") {
        return Some(format!(
            "`{{{{{name}}}}}` is now `{{{{/{pointer}}}}}`: a placeholder in a rule is a query, and a query of the reply is its JSON pointer"
        ));
    }
    match query(name) {
        Ok(()) if in_rules => None,
        Ok(()) => Some(format!(
            "`{{{{{name}}}}}` is a query, which only a check's rules fill (a step is built before it has an exchange): keep a value of an earlier step with `capture` and write `{{{{capture.NAME}}}}`"
        )),
        Err(why) => Some(format!(
            "`{{{{{name}}}}}` names nothing mcpcheck can fill in: it is none of {}, capture.NAME, tool.NAME, each/POINTER, nor a query a rule could fill ({why})",
            FIXED.join(", ")
        )),
    }
}

/// What fills a placeholder that is a query (rules): the first value the query finds.
pub type QueryFill<'a> = dyn Fn(&str) -> Option<Value> + Sync + 'a;

/// Everything a placeholder can name, in one place: the steps fill what they send from it, and
/// the rules their expected values and messages. What a context does not have (a step has no
/// reply yet; a rule has no `copy`) names nothing there.
#[derive(Clone, Copy, Default)]
pub struct Fill<'a> {
    /// `{{protocolVersion}}`: the negotiated version.
    pub version: &'a str,
    /// `{{token}}`: the run's random token.
    pub token: Option<&'a str>,
    /// `{{copy}}`: which copy of a `concurrent` step (1, 2, …).
    pub copy: Option<usize>,
    /// `{{probe.name}}`, `{{probe.arguments}}`: the tool chosen for the invalid-arguments probe.
    pub probe: Option<&'a (String, Value)>,
    /// `{{capture.NAME}}`.
    pub captures: Option<&'a std::collections::HashMap<String, Value>>,
    /// `{{tool.NAME/POINTER}}`: the tools the run listed.
    pub tools: Option<&'a std::collections::HashMap<String, Value>>,
    /// Any other name (rules): a query of the scenario language, and the first value it finds in
    /// the judged step's exchange or an earlier step's (`{{/error/code}}`, `{{status}}`).
    pub query: Option<&'a QueryFill<'a>>,
    /// `{{each/POINTER}}` (a `for_each` step): the item the request is sent, or the document
    /// fetched, for.
    pub each: Option<&'a Value>,
    /// `{{server.url}}`, `{{server.origin}}`, `{{server.path}}`: the HTTP endpoint under test.
    pub server: Option<&'a str>,
    /// `{{auth.garbage}}`, `{{auth.alg-none}}`, `{{auth.foreign-key}}`, `{{auth.tampered}}`:
    /// tokens a protected server must refuse, made from the user's bearer token (this one).
    pub bearer: Option<&'a str>,
    /// `{{auth.other-audience}}`, `{{auth.shared-audience}}`: tokens the authorization server
    /// issued for another resource, and for this server and that one at once.
    pub issued: Option<&'a crate::record::token::Issued>,
    /// `{{auth.expired}}`: an expired token the user gave.
    pub expired: Option<&'a str>,
    /// `{{guarded.request}}`: the capabilities the server declared (`None`: unknown).
    pub capabilities: Option<&'a Value>,
}

impl Fill<'_> {
    /// The value a placeholder name stands for here, if it has one.
    pub fn lookup(&self, name: &str) -> Option<Value> {
        if let Some((base, filter)) = name.rsplit_once('|') {
            let value = self.lookup(base)?;
            return url_part(value.as_str()?, filter).map(Value::from);
        }
        match name {
            // What a request carries on the wire: the revision's wire string.
            "protocolVersion" => {
                return Some(Value::from(crate::record::version::wire(self.version)))
            }
            // A request every server of the connection's era answers with a result: `ping`, which
            // 2026-07-28 removed, or there `server/discover`.
            "era.request" => {
                let stateless = crate::record::version::Era::of(self.version)
                    == Some(crate::record::version::Era::Stateless);
                return Some(Value::from(if stateless {
                    "server/discover"
                } else {
                    "ping"
                }));
            }
            // A request a protected server is surest to guard: the listing of the first of tools,
            // prompts and resources the server declares (a server may leave ping or
            // server/discover open, as a health check), else `era.request`. With the
            // capabilities unknown (a protected server met without a token), tools/list.
            "guarded.request" => {
                let Some(capabilities) = self.capabilities else {
                    return Some(Value::from("tools/list"));
                };
                return match ["tools", "prompts", "resources"]
                    .iter()
                    .find(|c| capabilities.get(**c).is_some())
                {
                    Some(listing) => Some(Value::from(format!("{listing}/list"))),
                    None => self.lookup("era.request"),
                };
            }
            "token" => return self.token.map(Value::from),
            "copy" => return self.copy.map(Value::from),
            "probe.name" => return self.probe.map(|(n, _)| Value::from(n.clone())),
            "probe.arguments" => return self.probe.map(|(_, a)| a.clone()),
            "server.url" => return self.server.map(Value::from),
            "server.origin" => return url_part(self.server?, "origin").map(Value::from),
            "server.path" => return url_part(self.server?, "path").map(Value::from),
            "server.web-origin" => {
                return crate::record::url::web_origin(self.server?).map(Value::from)
            }
            _ => {}
        }
        if let Some(pointer) = name.strip_prefix("each") {
            return self.each?.pointer(pointer).cloned();
        }
        if let Some(capture) = name.strip_prefix("capture.") {
            return self.captures?.get(capture).cloned();
        }
        if let Some(issued) = name
            .strip_prefix("auth.")
            .filter(|n| crate::record::token::ISSUED.contains(n))
        {
            return self
                .issued?
                .get(issued)
                .and_then(|t| t.as_ref().ok())
                .map(|t| Value::from(t.as_str()));
        }
        if name == "auth.expired" {
            return self.expired.map(Value::from);
        }
        if let Some(made_up) = name.strip_prefix("auth.") {
            let made = crate::record::token::MadeUp::from(self.bearer?);
            return made.named(made_up).map(Value::from);
        }
        tool_value(self.tools, name).or_else(|| self.query.and_then(|query| query(name)))
    }
}

/// A part of a URL as written (`origin`, `path` or `dir`), for the URLs a fetch step derives from
/// another ([`crate::record::url::origin_and_path`]).
fn url_part<'u>(url: &'u str, part: &str) -> Option<&'u str> {
    if part == "dir" {
        // Any URI with a path (skill://a/b/SKILL.md is in skill://a/b): the last `/` after the
        // scheme's `//`, if there is one past it.
        let after = url.find("://").map_or(0, |i| i + 3);
        let cut = url[after..].rfind('/')? + after;
        return Some(&url[..cut]);
    }
    let (origin, path) = crate::record::url::origin_and_path(url)?;
    match part {
        "origin" => Some(origin),
        "path" => Some(path),
        _ => None,
    }
}

/// Expands the placeholders of a message for people: a name without a value reads `(absent)`,
/// so that no message shows a `{{…}}` unfilled.
pub fn expand_message(text: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> String {
    let filled = |name: &str| lookup(name).or_else(|| Some(Value::from("(absent)")));
    match expand_str(text, &filled) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => text.to_string(),
    }
}

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
                match expand(v, lookup) {
                    Err(_) if optional(v) => {}
                    expanded => {
                        out.insert(k.clone(), expanded?);
                    }
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// Whether a value is one optional placeholder (`"{{NAME?}}"`).
fn optional(value: &Value) -> bool {
    value
        .as_str()
        .and_then(whole_placeholder)
        .is_some_and(|name| name.ends_with('?'))
}

/// The name of the one placeholder a string consists of, if it is one.
fn whole_placeholder(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    (trimmed.starts_with("{{") && trimmed.ends_with("}}") && trimmed.matches("{{").count() == 1)
        .then(|| trimmed[2..trimmed.len() - 2].trim())
}

/// Expands placeholders in a string; a string that is exactly one placeholder yields its value.
/// A trailing `?` on a name marks it optional (see the module documentation); the name is
/// looked up without it.
pub fn expand_str(text: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, String> {
    let resolve = |name: &str| lookup(name.strip_suffix('?').unwrap_or(name));
    if let Some(name) = whole_placeholder(text) {
        return resolve(name).ok_or_else(|| name.to_string());
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(end) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = rest[start + 2..start + end].trim();
        match resolve(name).ok_or_else(|| name.to_string())? {
            Value::String(s) => out.push_str(&s),
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

/// The value a `{{tool.NAME/POINTER}}` placeholder names: the part at POINTER of the tool
/// NAME as the server listed it (`tools/list`), if the run listed it.
pub fn tool_value(
    tools: Option<&std::collections::HashMap<String, Value>>,
    name: &str,
) -> Option<Value> {
    let rest = name.strip_prefix("tool.")?;
    let (tool, pointer) = rest
        .split_once('/')
        .map_or((rest, String::new()), |(t, p)| (t, format!("/{p}")));
    tools?.get(tool)?.pointer(&pointer).cloned()
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
    fn messages_never_show_a_placeholder_unfilled() {
        assert_eq!(
            expand_message("v {{protocolVersion}}, code {{/error/code}}", &lookup),
            "v 2025-11-25, code (absent)"
        );
        assert_eq!(expand_message("{{capture.n}}", &lookup), "7");
    }

    #[test]
    fn the_guarded_request_is_a_declared_listing_else_the_era_request() {
        let guarded = |capabilities: Option<Value>, version: &str| {
            let fill = Fill {
                version,
                capabilities: capabilities.as_ref(),
                ..Fill::default()
            };
            fill.lookup("guarded.request")
        };
        let listing = json!({ "logging": {}, "resources": {}, "prompts": {} });
        assert_eq!(
            guarded(Some(listing), "2025-11-25"),
            Some(json!("prompts/list"))
        );
        let tools = json!({ "resources": {}, "tools": {} });
        assert_eq!(
            guarded(Some(tools), "2026-07-28"),
            Some(json!("tools/list"))
        );
        assert_eq!(
            guarded(Some(json!({ "logging": {} })), "2025-11-25"),
            Some(json!("ping"))
        );
        // Unknown (a run without a token): what a protected server guards, whatever it serves.
        assert_eq!(guarded(None, "2026-07-28"), Some(json!("tools/list")));
    }

    #[test]
    fn the_server_url_and_its_parts_fill_well_known_uris() {
        let captures = std::collections::HashMap::from([(
            "issuer".to_string(),
            json!("https://auth.example.com/tenant/1/"),
        )]);
        let fill = Fill {
            server: Some("http://127.0.0.1:7801/mcp?x=1"),
            captures: Some(&captures),
            ..Fill::default()
        };
        let at = |text: &str| expand_str(text, &|n| fill.lookup(n)).unwrap();
        assert_eq!(
            at("{{server.origin}}/.well-known/oauth-protected-resource{{server.path}}"),
            json!("http://127.0.0.1:7801/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            at("{{capture.issuer|origin}}/.well-known/oauth-authorization-server{{capture.issuer|path}}"),
            json!("https://auth.example.com/.well-known/oauth-authorization-server/tenant/1")
        );
        let root = Fill {
            server: Some("https://example.com"),
            ..Fill::default()
        };
        assert_eq!(root.lookup("server.path"), Some(json!("")));
        assert_eq!(
            root.lookup("server.origin"),
            Some(json!("https://example.com"))
        );
        // A filter of a name without a value, or of no URL, has none.
        assert_eq!(fill.lookup("capture.none|origin"), None);
        let no_query = |_: &str| Err(String::from("no query"));
        assert!(unknown("capture.issuer|origin", &["issuer"], &no_query, false).is_none());
        assert!(
            unknown("capture.issuer|host", &["issuer"], &no_query, false)
                .unwrap()
                .contains("unknown filter")
        );
        assert!(unknown("capture.other|path", &["issuer"], &no_query, false).is_some());
        // `dir`: the URI without its last segment, never cutting into the scheme's `//`.
        assert_eq!(
            url_part("skill://org/pdf/SKILL.md", "dir"),
            Some("skill://org/pdf")
        );
        assert_eq!(url_part("skill://pdf", "dir"), None);
        assert_eq!(url_part("a/b", "dir"), Some("a"));
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
    fn optional_members_without_a_value_are_left_out() {
        assert_eq!(
            expand(
                &json!({"a": "{{capture.missing?}}", "b": "{{capture.n?}}"}),
                &lookup
            )
            .unwrap(),
            json!({"b": 7})
        );
        // Anywhere else an optional name without a value is still an error.
        assert_eq!(
            expand(&json!(["{{capture.missing?}}"]), &lookup).unwrap_err(),
            "capture.missing?"
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
