//! Keeping the user's secrets (header values, values taken from the environment) out of every
//! output, without touching mcpcheck's own words.
//!
//! Secrets are replaced where they stand in what crossed the wire: bytes sent and received,
//! header values, the target's URL and command, the server's stderr and the data it returned.
//! In mcpcheck's sentences (messages, remarks, the fatal reason), which may quote the server,
//! only secrets long enough not to hit ordinary words are replaced. Identifiers, statuses,
//! levels, titles, citations and sources are never touched, so a secret such as `pass` or `1`
//! cannot change what a report says or break its structure.
//!
//! A token the authorization checks sent in place of the user's (one mcpcheck made from it, one
//! issued for another resource, an expired one) is redacted under its name, `[redacted
//! auth.alg-none]`: it is as secret as the user's own, but a reader, and the replay script, must
//! still tell which was sent.

use std::collections::HashMap;

use serde_json::Value;

use super::{CheckResult, Evidence, Report};

/// What a secret is replaced with.
pub const MARK: &str = "[redacted]";

/// A secret at least this long is replaced wherever it stands in the evidence; a shorter one
/// only where it stands alone (not inside a longer word or number).
const ANYWHERE: usize = 4;

/// A secret at least this long is replaced in mcpcheck's sentences too.
const IN_PROSE: usize = 8;

/// Replaces the user's secrets, each according to where it stands.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// The secrets, longest first (a secret that contains another is replaced whole).
    secrets: Vec<String>,
    /// The marks of named secrets (`[redacted auth.alg-none]`); any other is [`MARK`].
    marks: HashMap<String, String>,
    /// The user's own tokens (those the made-up ones were made from), never named.
    users: Vec<String>,
}

impl Redactor {
    /// A redactor for these secrets (empty ones are ignored).
    pub fn new(secrets: &[String]) -> Redactor {
        let mut secrets: Vec<String> = secrets.iter().filter(|s| !s.is_empty()).cloned().collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        secrets.dedup();
        // The tokens made from the user's are named for the placeholder that sends them
        // (`{{auth.alg-none}}`); the user's own token never is, whatever else it equals. A
        // user's token is a secret whose made-up garbage token is a secret too (the garbage
        // token is a hash of the token it was made from; a made-up JWT remade from itself or
        // from another made-up one can equal one of the user's).
        let mut marks = HashMap::new();
        let mut users = Vec::new();
        for secret in &secrets {
            let made = crate::record::token::MadeUp::from(secret);
            if !secrets.contains(&made.garbage) {
                continue;
            }
            users.push(secret.clone());
            for name in crate::record::token::MADE {
                if let Some(token) = made.named(name) {
                    if secrets.iter().any(|s| s == token) {
                        marks.insert(token.to_string(), mark_of(name));
                    }
                }
            }
        }
        for user in &users {
            marks.remove(user);
        }
        Redactor {
            secrets,
            marks,
            users,
        }
    }

    /// These secrets are the tokens named `auth.NAME` (`other-audience`, `expired`): each is
    /// redacted under its name, unless it is the user's own token too.
    pub fn naming<'a>(mut self, named: impl IntoIterator<Item = (&'a str, &'a str)>) -> Redactor {
        for (name, token) in named {
            if self.secrets.iter().any(|s| s == token) && !self.users.iter().any(|u| u == token) {
                self.marks.insert(token.to_string(), mark_of(name));
            }
        }
        self
    }

    /// What replaces this secret.
    fn mark(&self, secret: &str) -> &str {
        self.marks.get(secret).map_or(MARK, String::as_str)
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Text that crossed the wire (or came from the server): every secret is replaced, a short
    /// one only where it stands alone.
    pub fn wire(&self, text: &str) -> String {
        let secrets: Vec<(&str, &str, bool)> = self
            .secrets
            .iter()
            .map(|s| (s.as_str(), self.mark(s), s.chars().count() < ANYWHERE))
            .collect();
        replace(text, &secrets)
    }

    /// One of mcpcheck's sentences, which may quote the server: only long secrets are replaced.
    pub fn prose(&self, text: &str) -> String {
        let secrets: Vec<(&str, &str, bool)> = self
            .secrets
            .iter()
            .filter(|s| s.chars().count() >= IN_PROSE)
            .map(|s| (s.as_str(), self.mark(s), false))
            .collect();
        replace(text, &secrets)
    }

    /// A header line (`Name: value`): a value that is or holds a secret is replaced whole; the
    /// name is kept.
    pub fn header(&self, line: &str) -> String {
        match line.split_once(": ") {
            Some((name, value)) => match self.held_secret(value) {
                Some(secret) => format!("{name}: {}", self.mark(secret)),
                None => line.to_string(),
            },
            None => self.wire(line),
        }
    }

    /// The longest secret `value` is or holds.
    fn held_secret(&self, value: &str) -> Option<&str> {
        self.secrets
            .iter()
            .find(|s| *s == value || (s.chars().count() >= ANYWHERE && value.contains(s.as_str())))
            .map(String::as_str)
    }

    /// Every string of a JSON value the server sent.
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.wire(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }

    /// The report with every secret redacted where it stands.
    pub fn report(&self, mut report: Report) -> Report {
        if self.is_empty() {
            return report;
        }
        if let Some(command) = &mut report.target.command {
            command.iter_mut().for_each(|a| *a = self.wire(a));
        }
        if let Some(url) = &mut report.target.url {
            *url = self.wire(url);
        }
        for value in [
            &mut report.protocol.server_info,
            &mut report.protocol.capabilities,
        ]
        .into_iter()
        .flatten()
        {
            self.value(value);
        }
        if let Some(server) = &mut report.server {
            server.stderr_tail = self.wire(&server.stderr_tail);
        }
        if let Some(fatal) = &mut report.fatal {
            *fatal = self.prose(fatal);
        }
        report.checks.iter_mut().for_each(|c| self.check(c));
        report
    }

    fn check(&self, check: &mut CheckResult) {
        check.message = self.prose(&check.message);
        for text in [&mut check.actual, &mut check.note].into_iter().flatten() {
            *text = self.prose(text);
        }
        check.evidence.iter_mut().for_each(|e| self.evidence(e));
        // A reason can carry what the server said (why a list request got no list, the scope
        // and error of a refusal).
        match &mut check.reason {
            Some(crate::record::Reason::Fixture {
                list_failed: Some((_, why)),
                ..
            }) => *why = self.prose(why),
            Some(
                crate::record::Reason::Authorization { refusal }
                | crate::record::Reason::Token { refusal },
            ) => *refusal = self.prose(refusal),
            _ => {}
        }
    }

    fn evidence(&self, evidence: &mut Evidence) {
        for text in [&mut evidence.sent, &mut evidence.received]
            .into_iter()
            .flatten()
        {
            *text = self.wire(text);
        }
        if let Some(remark) = &mut evidence.remark {
            *remark = self.prose(remark);
        }
        for line in evidence
            .sent_headers
            .iter_mut()
            .chain(evidence.response_headers.iter_mut())
        {
            *line = self.header(line);
        }
        evidence
            .notifications
            .iter_mut()
            .for_each(|v| self.value(v));
    }
}

/// The mark of the token `auth.NAME`.
fn mark_of(name: &str) -> String {
    format!("[redacted auth.{name}]")
}

/// The token name of a named mark (`[redacted auth.alg-none]` → `alg-none`): one of
/// [`crate::record::token::NAMES`], whatever a report file says.
pub fn named_mark(text: &str) -> Option<&'static str> {
    let name = text.strip_prefix("[redacted auth.")?.strip_suffix(']')?;
    crate::record::token::NAMES
        .iter()
        .copied()
        .find(|known| *known == name)
}

/// Replaces every secret in `text` in one pass (longest first, so that no secret is found
/// inside another's mark) with its mark; a secret marked `alone` only where no letter, digit or
/// `_` touches it.
fn replace(text: &str, secrets: &[(&str, &str, bool)]) -> String {
    if !secrets.iter().any(|(s, _, _)| text.contains(s)) {
        return text.to_string();
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let hit = secrets.iter().find(|(secret, _, alone)| {
            rest.starts_with(secret)
                && (!alone || !(word(prev) || word(rest[secret.len()..].chars().next())))
        });
        match hit {
            Some((secret, mark, _)) => {
                out.push_str(mark);
                prev = secret.chars().next_back();
                rest = &rest[secret.len()..];
            }
            None => {
                out.push(c);
                prev = Some(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(secrets: &[&str]) -> Redactor {
        Redactor::new(&secrets.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn long_secrets_go_everywhere_they_stand() {
        let r = redactor(&["Bearer s3cret-token", "s3cret-token"]);
        assert_eq!(r.wire("x s3cret-token y"), "x [redacted] y");
        assert_eq!(r.prose("echoed s3cret-token"), "echoed [redacted]");
        assert_eq!(
            r.header("Authorization: Bearer s3cret-token"),
            "Authorization: [redacted]"
        );
    }

    #[test]
    fn a_token_sent_in_place_of_the_users_is_redacted_under_its_name() {
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
        let made = crate::record::token::MadeUp::from(token);
        let mut secrets = vec![format!("Bearer {token}"), token.to_string()];
        secrets.extend(made.all());
        secrets.push("expired-token-1234".into());
        let r = Redactor::new(&secrets).naming([("expired", "expired-token-1234")]);
        assert_eq!(
            r.header(&format!("Authorization: Bearer {}", made.alg_none)),
            "Authorization: [redacted auth.alg-none]"
        );
        assert_eq!(
            r.header(&format!("Authorization: Bearer {token}")),
            "Authorization: [redacted]"
        );
        assert_eq!(
            r.wire(&format!("sent {} and expired-token-1234", made.garbage)),
            "sent [redacted auth.garbage] and [redacted auth.expired]"
        );
        assert_eq!(named_mark("[redacted auth.tampered]"), Some("tampered"));
        assert_eq!(named_mark("[redacted auth.x$(reboot)]"), None);
        // An authorization server that ignores `resource` issues the user's token again for
        // another resource: the user's token keeps the plain mark.
        let r = Redactor::new(&secrets).naming([("other-audience", token)]);
        assert_eq!(
            r.header(&format!("Authorization: Bearer {token}")),
            "Authorization: [redacted]"
        );
        assert_eq!(named_mark(MARK), None);
    }

    #[test]
    fn short_secrets_never_touch_words_or_prose() {
        let r = redactor(&["pass", "1", "test"]);
        // Prose keeps mcpcheck's words.
        assert_eq!(r.prose("not-testable: 1 passed"), "not-testable: 1 passed");
        // On the wire a four-character secret goes anywhere, a shorter one only alone.
        assert_eq!(
            r.wire(r#"{"id":1,"x":"pass"}"#),
            r#"{"id":[redacted],"x":"[redacted]"}"#
        );
        assert_eq!(r.wire(r#"{"id":12}"#), r#"{"id":12}"#);
        assert_eq!(r.wire("1-1 11 1"), "[redacted]-[redacted] 11 [redacted]");
        assert_eq!(r.header("X-Env: pass"), "X-Env: [redacted]");
        assert_eq!(r.header("X-Other: 10"), "X-Other: 10");
    }

    #[test]
    fn a_secret_inside_another_secret_or_the_mark_is_not_found_again() {
        let r = redactor(&["acted", "token-acted"]);
        assert_eq!(r.wire("a token-acted b acted"), "a [redacted] b [redacted]");
    }

    #[test]
    fn a_secret_that_is_a_word_of_the_report_keeps_it_whole() {
        let r = redactor(&["fail", "skip", "MUST", "error", "-"]);
        let mut check = CheckResult {
            id: "tools-call-unknown-tool".into(),
            title: "an unknown tool is an error".into(),
            area: "tools".into(),
            status: crate::record::Status::Fail,
            level: crate::record::Level::Must,
            derived: false,
            spec: Vec::new(),
            message: "the call did not fail".into(),
            reason: None,
            expected: "an error".into(),
            actual: Some("error -32602".into()),
            note: None,
            source: "scenarios/tools/unknown.toml:3".into(),
            version: None,
            per_era: false,
            bare_session: false,
            evidence: vec![Evidence {
                label: "call".into(),
                sent: Some("fail".into()),
                ..Evidence::default()
            }],
        };
        r.check(&mut check);
        assert_eq!(check.id, "tools-call-unknown-tool");
        assert_eq!(check.message, "the call did not fail");
        assert_eq!(check.actual.as_deref(), Some("error -32602"));
        assert_eq!(check.evidence[0].sent.as_deref(), Some("[redacted]"));
    }

    #[test]
    fn what_a_server_said_in_a_skip_reason_is_redacted() {
        let r = redactor(&["s3cret-token"]);
        let reason = crate::record::Reason::Fixture {
            fixture: "tool".into(),
            name: "mcpcheck_slow".into(),
            list_failed: Some((
                "tools/list".into(),
                "HTTP 500: bad token s3cret-token".into(),
            )),
        };
        let mut check = CheckResult::new(
            &crate::check::wire::definitions()[0],
            crate::record::Verdict::skip(reason),
            Vec::new(),
        );
        r.check(&mut check);
        let text = serde_json::to_string(&check).unwrap();
        assert!(!text.contains("s3cret-token"), "{text}");
        assert!(text.contains("bad token [redacted]"), "{text}");
    }
}
