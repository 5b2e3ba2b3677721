//! HTTP authentication challenges (RFC 9110 §11.6.1, `WWW-Authenticate`): parsed into schemes
//! and parameters, so that the authorization checks and the step-up refusal read the same thing
//! however a server writes it (several challenges in one header or over several headers,
//! parameters in any order, quoted or not, the scheme in any case).

/// One challenge: a scheme and its parameters (or a token68).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    /// The scheme as written (`Bearer`, `bearer`, `Basic`).
    pub scheme: String,
    /// The `name=value` parameters in order, names lowercased, quoted values unescaped.
    pub params: Vec<(String, String)>,
    /// A token68 in place of parameters (`Negotiate abc==`), if there was one.
    pub token68: Option<String>,
}

impl Challenge {
    /// The value of a parameter, by name in any case.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Whether the challenge is of the Bearer scheme (in any case, RFC 9110 §11.1).
    pub fn is_bearer(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("bearer")
    }
}

/// Every challenge of every `WWW-Authenticate` header among `headers`, in order.
pub fn challenges(headers: &[(String, String)]) -> Vec<Challenge> {
    headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("www-authenticate"))
        .flat_map(|(_, value)| parse(value))
        .collect()
}

/// The first challenge of the Bearer scheme among `headers`, if any.
pub fn bearer(headers: &[(String, String)]) -> Option<Challenge> {
    challenges(headers).into_iter().find(Challenge::is_bearer)
}

/// A `token` character (RFC 9110 §5.6.2).
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Parses one `WWW-Authenticate` value: a comma-separated list of challenges, each a scheme
/// followed by a token68 or by `name=value` parameters, which run on, comma-separated, until
/// the next scheme. What cannot be read is skipped a character at a time, never an error: a
/// check then finds the parameter it looks for missing.
pub fn parse(value: &str) -> Vec<Challenge> {
    let chars: Vec<char> = value.chars().collect();
    let mut at = 0;
    let mut out: Vec<Challenge> = Vec::new();
    let skip = |at: &mut usize, set: &dyn Fn(char) -> bool| {
        while *at < chars.len() && set(chars[*at]) {
            *at += 1;
        }
    };
    let token = |at: &mut usize| -> String {
        let start = *at;
        while *at < chars.len() && is_tchar(chars[*at]) {
            *at += 1;
        }
        chars[start..*at].iter().collect()
    };
    // Whether a `name=` at `at` starts a parameter: the `=` is followed by a value, not by
    // more `=` (a token68's padding) or the end of the element.
    let param_follows = |from: usize| -> bool {
        let mut i = from;
        while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
            i += 1;
        }
        if chars.get(i) != Some(&'=') {
            return false;
        }
        i += 1;
        while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
            i += 1;
        }
        matches!(chars.get(i), Some(c) if *c != '=' && *c != ',')
    };
    loop {
        skip(&mut at, &|c| c == ',' || c.is_whitespace());
        if at >= chars.len() {
            break;
        }
        let name = token(&mut at);
        if name.is_empty() {
            at += 1;
            continue;
        }
        if param_follows(at) {
            // A parameter of the challenge before it (with none before it, dropped).
            skip(&mut at, &|c| c == ' ' || c == '\t');
            at += 1; // '='
            skip(&mut at, &|c| c == ' ' || c == '\t');
            let value = if chars.get(at) == Some(&'"') {
                at += 1;
                let mut value = String::new();
                while at < chars.len() && chars[at] != '"' {
                    if chars[at] == '\\' && at + 1 < chars.len() {
                        at += 1;
                    }
                    value.push(chars[at]);
                    at += 1;
                }
                at += 1; // the closing quote
                value
            } else {
                // A token, or (from a server that does not quote a URL) whatever runs to the
                // next comma.
                let start = at;
                while at < chars.len() && chars[at] != ',' {
                    at += 1;
                }
                chars[start..at]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string()
            };
            if let Some(last) = out.last_mut() {
                last.params.push((name.to_ascii_lowercase(), value));
            }
            continue;
        }
        let mut challenge = Challenge {
            scheme: name,
            ..Challenge::default()
        };
        // A token68 directly after the scheme: token characters and `=` padding, ending the
        // element.
        let mut look = at;
        skip(&mut look, &|c| c == ' ');
        if look > at {
            let begin = look;
            let body = token(&mut look);
            if !body.is_empty() && !param_follows(look) {
                skip(&mut look, &|c| c == '=');
                let mut end = look;
                skip(&mut end, &|c| c == ' ');
                if end >= chars.len() || chars[end] == ',' {
                    challenge.token68 = Some(chars[begin..look].iter().collect());
                    at = look;
                }
            }
        }
        out.push(challenge);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(value: &str) -> Challenge {
        let mut all = parse(value);
        assert_eq!(all.len(), 1, "{value}: {all:?}");
        all.remove(0)
    }

    #[test]
    fn a_bearer_challenge_reads_its_parameters_quoted_or_not_in_any_order() {
        let c = one(
            r#"bearer error="insufficient_scope", scope="files:read \"x\"", realm=mcp, resource_metadata="https://a/.well-known/oauth-protected-resource""#,
        );
        assert!(c.is_bearer());
        assert_eq!(c.param("error"), Some("insufficient_scope"));
        assert_eq!(c.param("scope"), Some(r#"files:read "x""#));
        assert_eq!(c.param("REALM"), Some("mcp"));
        assert_eq!(
            c.param("resource_metadata"),
            Some("https://a/.well-known/oauth-protected-resource")
        );
        assert_eq!(one("Bearer").params, vec![]);
        // An unquoted URL (not a token, but servers send it) runs to the next comma.
        let c = one("Bearer resource_metadata=https://a/.well-known/x,\tscope = mcp");
        assert_eq!(
            c.param("resource_metadata"),
            Some("https://a/.well-known/x")
        );
        assert_eq!(c.param("scope"), Some("mcp"));
    }

    #[test]
    fn several_challenges_in_one_header_and_over_several_are_told_apart() {
        let all = parse(r#"Basic realm="a, b", Bearer realm="x", scope="s", Negotiate abc=="#);
        let schemes: Vec<&str> = all.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "Bearer", "Negotiate"]);
        assert_eq!(all[0].param("realm"), Some("a, b"));
        assert_eq!(all[1].param("scope"), Some("s"));
        assert_eq!(all[2].token68.as_deref(), Some("abc=="));
        let headers = vec![
            (
                "WWW-Authenticate".to_string(),
                r#"Basic realm="x""#.to_string(),
            ),
            ("www-authenticate".to_string(), "Bearer scope=a".to_string()),
        ];
        assert_eq!(challenges(&headers).len(), 2);
        assert_eq!(bearer(&headers).unwrap().param("scope"), Some("a"));
        assert!(bearer(&headers[..1]).is_none());
    }

    #[test]
    fn what_cannot_be_read_is_skipped_not_an_error() {
        assert!(parse("").is_empty());
        assert!(parse(" , ,").is_empty());
        assert!(parse("=").is_empty());
        assert!(parse(r#"realm="x""#).is_empty());
        let c = one(r#"Bearer error="unterminated"#);
        assert_eq!(c.param("error"), Some("unterminated"));
    }
}
